"""The local runner's SDK worker process: Beam's `sdk_worker_main`, ending without interpreter teardown.

`--runner local` with several workers starts one process per worker with this module
(`pipelines.framework.runners.LocalRunner`) instead of `apache_beam.runners.worker.sdk_worker_main`.
It runs Beam's worker unchanged; when the runner closes the worker's control channel (every bundle
of the run is done and acknowledged, every file its DoFns wrote is closed), the process ends at once
with the worker's exit status, without the interpreter's teardown. That teardown (module
finalisers and garbage of TensorFlow, spaCy, PyTorch and fastText) took 1.5-3.3 s per process here,
and the runner waits for every worker to exit before the job can end (docs/RUNNERS.md, issue 19).
When the runner offers warm worker processes (warm.py beside this module), this process hands
its work to one of them and exits with that one's status.
"""
import os
import sys
import threading
import time


def _stat(pid: int):
    """The fields of /proc/PID/stat after the command name (state, ppid, ...), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
        return stat[stat.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return None


def _start_time(pid: int):
    """The start time of process `pid` (/proc/PID/stat's 22nd field), or None: a pid names the same process
    as long as this does not change."""
    fields = _stat(pid)
    return fields[19] if fields and len(fields) > 19 else None


def _parent_of(pid: int):
    fields = _stat(pid)
    return int(fields[1]) if fields and len(fields) > 1 else None


_SHELLS = frozenset({"sh", "dash", "bash"})


def _runner_pid() -> int:
    """The process that started this one: Beam starts a worker through `/bin/sh -c` (shell=True), and the
    shell waits for its child, so it outlives a SIGKILLed driver: the runner is the shell's parent then."""
    parent = os.getppid()
    try:
        with open(f"/proc/{parent}/comm", encoding="utf-8", errors="replace") as f:
            comm = f.read().strip()
    except OSError:
        return parent
    if comm in _SHELLS:
        return _parent_of(parent) or parent
    return parent


def _end_with_the_runner(poll_s: float = 1.0) -> None:
    """Exit when the process that started this one (the driver running the local runner) is gone: a
    SIGKILLed driver closes no channel in time, and a worker busy in a bundle, waiting for the warm
    process it handed its work to, or for the driver's control channel (Beam waits 60 s for it) would
    outlive it (the warm process ends when this one does). Watched: the runner's pid and start time (a
    full run beside a heavy job found these processes alive a minute after the driver's SIGKILL, when
    only the shell between them, which outlives the driver, was watched)."""
    parent = os.getppid()
    runner = _runner_pid()
    started = _start_time(runner)

    def gone() -> bool:
        if started is None:  # no /proc: the parent, as far as it can be told
            return os.getppid() != parent
        return _start_time(runner) != started

    def watch():
        while not gone():
            time.sleep(poll_s)
        os._exit(1)  # pylint: disable=protected-access
    threading.Thread(target=watch, name="runner-watch", daemon=True).start()


def main(argv=None) -> int:
    """Hand the work to a warm worker process when the runner offers some (warm.py), else run Beam's SDK
    worker here; returns the worker's exit status. Either way the process ends with its runner."""
    argv = list(sys.argv if argv is None else argv)
    from pipelines.framework import credentials
    credentials.install(argv)  # Beam's worker logs its pipeline options, credentials among them
    _end_with_the_runner()
    from pipelines.framework.workers import warm
    status = warm.hand_over(argv)
    return warm.run_worker(argv) if status is None else status


if __name__ == "__main__":
    from pipelines.framework.workers.process import exit_now
    exit_now(main())
