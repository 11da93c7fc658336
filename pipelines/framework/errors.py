"""The error of a job that the user can act on, shared by the job framework and publication."""


class JobFailed(RuntimeError):
    """A failure the user can act on; the message says what to do."""
