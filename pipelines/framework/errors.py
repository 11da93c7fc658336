"""The error of a job that the user can act on, and the one-line cause of a runner's failure, shared by the job
framework, publication and the console."""
import re


class JobFailed(RuntimeError):
    """A failure the user can act on; the message says what to do."""


_STAGE = re.compile(r"(?:while running|running) '([^']+)'")
_ERROR_LINE = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failed|Timeout)"
                         r"\w*)(?::\s*(.*))?$")


def failure_cause(cause: str) -> str:
    """The stage a runner's failure happened in and the error's own message, not a traceback's first
    line: Beam's runners wrap a worker's exception in a RuntimeError whose text is the whole
    traceback ("Traceback (most recent call last): ... ValueError: [E088] Text of length ...
    [while running 'MineSimplifications/Simulate']")."""
    text = cause.strip()
    if not text:
        return cause
    stages = [s for s in _STAGE.findall(text) if s]
    errors = []
    for line in text.splitlines():
        m = _ERROR_LINE.match(line)
        if m and not line.lstrip().startswith(("File ", "Traceback")):
            errors.append((m.group(1), (m.group(2) or "").strip()))
    # the innermost error is the last one that is not a runner's wrapper of another
    wrappers = ("RuntimeError", "RuntimeException", "UserCodeException")
    inner = [e for e in errors if e[0] not in wrappers] or errors
    if inner:
        name, message = inner[-1]
        message = re.sub(r"\s*\[while running '[^']+'\]\s*$", "", message)
        summary = f"{name}: {message}" if message else name
    else:
        summary = text.splitlines()[0]
    if stages:
        summary = f"in stage {stages[-1]!r}: {summary}"
    return summary
