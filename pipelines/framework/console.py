"""The terminal a person reads: our lines on the console, other libraries' in a log file.

A job's imports (Beam, TensorFlow via TFDV, google-cloud clients, grpc) print
dozens of warnings and log lines before and during a run, in the driver and
in every worker process. By default `rewrite-mine` routes them, whole, to
`OUTPUT/logs/rewrite-mine-<job>.log` and keeps the terminal for its own lines:

  * logging: the `rewrite_mine` logger (and records at ERROR or above from
    anyone; one that carries a whole traceback, as an engine relays a
    worker's failure, in one line) go to the console; every record goes to
    the log file, whole. Log lines
    that a local-runner worker sends back to the driver (Beam's logging
    service, logger `apache_beam.runners.portability.local_job_service`) are
    shown when they come from this project's code, as `worker: <message>`.
  * Python warnings: FutureWarning, DeprecationWarning, UserWarning, ... raised
    in a module outside this project go to the log file (logger `py.warnings`);
    warnings raised by this project's modules stay on the console.
  * file descriptor 2: once the log file is known (`redirect`), the process's
    stderr descriptor points at it, so what TensorFlow's C++ code, grpc,
    TFDV's `sys.stderr.write` and every child process (the local runner's SDK
    workers, a Dask LocalCluster's workers inherit it) write to stderr lands
    in the log; the console keeps a duplicate of the original descriptor.

`-v` / `--verbose` shows everything live (nothing is redirected; the log file
still receives the Python log records).

    console.install(verbose)                 # before the job's imports
    with console.redirect(log_path(output, job)):
        job.run(argv)
"""
import contextlib
import io
import logging
import os
import re
import sys
import typing
import warnings

from pipelines.framework.errors import failure_cause

LOG = logging.getLogger("rewrite_mine")
OUR_LOGGER = "rewrite_mine"
WORKER_LOGGER = "apache_beam.runners.portability.local_job_service"
# The repository root: a warning or worker log line raised from a file under it (outside a virtualenv) is ours.
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Set before TensorFlow / grpc are imported (they read them once). setdefault: a user's own value wins.
QUIET_ENV = {
    "TF_CPP_MIN_LOG_LEVEL": "1",  # TF C++: drop INFO; warnings and errors still reach the log file (fd 2)
    "GRPC_VERBOSITY": "ERROR",
    "GLOG_minloglevel": "1",
}
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_state: typing.Dict[str, typing.Any] = {}
_ORIGINAL_SHOWWARNING = warnings.showwarning


def is_project_file(path: str) -> bool:
    """True for a source file of this repository (not one of the libraries installed in its virtualenv)."""
    path = os.path.abspath(path or "")
    return (path.startswith(PROJECT_ROOT + os.sep) and f"{os.sep}site-packages{os.sep}" not in path
            and f"{os.sep}.venv{os.sep}" not in path)


_LOCATION = re.compile(r'log_location: "((?:[^"\\]|\\.)*)"')
_MESSAGE = re.compile(r'message: "((?:[^"\\]|\\.)*)"')


def _worker_entry(record: logging.LogRecord) -> typing.Optional[str]:
    """The message of a worker's log entry relayed by the local runner, when our code logged it; else None."""
    if record.name != WORKER_LOGGER:
        return None
    text = record.getMessage()
    if not text.startswith("Worker:"):
        return None
    loc = _LOCATION.search(text)
    if not loc or not is_project_file(loc.group(1).rsplit(":", 1)[0]):
        return None
    msg = _MESSAGE.search(text)
    raw = msg.group(1) if msg else text
    try:
        return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeError:
        return raw


class ConsoleFilter(logging.Filter):
    """Our records, anyone's errors, and our workers' relayed lines (rewritten as `worker: ...`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == OUR_LOGGER or record.name.startswith(OUR_LOGGER + "."):
            return True
        worker = _worker_entry(record)
        if worker is not None:
            record.msg, record.args, record.name = f"worker: {worker}", (), OUR_LOGGER
            return True
        if record.name == WORKER_LOGGER:  # relayed third-party worker lines (Beam's own, at any level)
            return False
        return record.levelno >= logging.ERROR


#: Set to 1 to see a traceback another library relays at ERROR (an engine's worker failure) on the console.
TRACEBACKS_ENV = "REWRITE_MINE_WORKER_TRACEBACKS"


def relayed_traceback(record: logging.LogRecord) -> typing.Optional[str]:
    """One line for another library's ERROR record whose text is a whole traceback, else None.

    An engine relays a worker's failure so: Beam's portable runner logs each of the job service's error
    messages on the root logger, and a task that failed in a Python SDK worker reads "java.lang.
    RuntimeException: Error received from SDK harness for instruction 85: Traceback (most recent call last):
    ..." (dozens of lines, once per failed attempt). The console gets the stage and the innermost error; the
    log file keeps the record whole."""
    if record.levelno < logging.ERROR or record.name == OUR_LOGGER or record.name.startswith(OUR_LOGGER + "."):
        return None
    if os.environ.get(TRACEBACKS_ENV, "") not in ("", "0"):
        return None
    text = record.getMessage()
    if "Traceback (most recent call last)" not in text:
        return None
    return (f"{' '.join(failure_cause(text).split())[:500]} (its traceback: the run's log file; "
            f"{TRACEBACKS_ENV}=1 shows it here)")


class ConsoleFormatter(logging.Formatter):
    """FORMAT, with a relayed traceback in one line (`relayed_traceback`). The record itself is not changed:
    the log file's handler formats it whole."""

    def format(self, record: logging.LogRecord) -> str:
        line = relayed_traceback(record)
        if line is None:
            return super().format(record)
        short = logging.makeLogRecord(record.__dict__)
        short.msg, short.args, short.exc_info, short.exc_text, short.stack_info = line, (), None, None, None
        return super().format(short)


class _Buffer(logging.Handler):
    """Keeps records until the log file is known (the output directory is parsed later)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: typing.List[logging.LogRecord] = []

    def emit(self, record):
        if len(self.records) < 10000:
            self.records.append(record)


def _showwarning(message, category, filename, lineno, file=None, line=None):
    text = warnings.formatwarning(message, category, filename, lineno, line).rstrip("\n")
    if file is not None or is_project_file(filename):
        (LOG if file is None else logging.getLogger("py.warnings")).warning("%s", text)
        if file is not None:
            file.write(text + "\n")
        return
    logging.getLogger("py.warnings").warning("%s", text)


def console_stream():
    """The stream our lines are written to (the terminal's stderr, even while fd 2 points at the log file)."""
    return _state.get("console") or sys.stderr


def verbose() -> bool:
    return bool(_state.get("verbose"))


def install(verbose_: bool = False) -> None:
    """Route logging and warnings; set the quiet environment for TF/grpc. Call before the job's imports."""
    _state["verbose"] = verbose_
    if not verbose_:
        for k, v in QUIET_ENV.items():
            os.environ.setdefault(k, v)
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_rewrite_mine", False):
            root.removeHandler(h)
    root.setLevel(logging.INFO)
    console = logging.StreamHandler(console_stream())
    console.setFormatter(logging.Formatter(FORMAT) if verbose_ else ConsoleFormatter(FORMAT))
    if not verbose_:
        console.addFilter(ConsoleFilter())
    console._rewrite_mine = True  # pylint: disable=protected-access
    buffer = _Buffer()
    buffer._rewrite_mine = True  # pylint: disable=protected-access
    root.addHandler(console)
    root.addHandler(buffer)
    _state.update(console_handler=console, buffer=buffer)
    if not verbose_:
        warnings.showwarning = _showwarning


def uninstall() -> None:
    """Undo `install` (for callers that run a job in-process and go on, e.g. tests)."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_rewrite_mine", False):
            root.removeHandler(h)
    if warnings.showwarning is _showwarning:
        warnings.showwarning = _ORIGINAL_SHOWWARNING
    _state.clear()


def log_path(output: str, job: str) -> str:
    """OUTPUT/logs/rewrite-mine-<job>.log for a local OUTPUT; ./rewrite-mine-logs/... for a remote one."""
    if "://" in output:
        return os.path.join("rewrite-mine-logs", f"rewrite-mine-{job}.log")
    return os.path.join(output, "logs", f"rewrite-mine-{job}.log")


@contextlib.contextmanager
def redirect(path: str):
    """Within this block every log record, and (unless verbose) everything written to fd 2, goes to `path`."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    root = logging.getLogger()
    log_file = open(path, "a", encoding="utf-8", buffering=1)  # pylint: disable=consider-using-with
    file_handler = logging.StreamHandler(log_file)
    file_handler.setFormatter(logging.Formatter(FORMAT))
    buffer = _state.pop("buffer", None)
    if buffer is not None:
        root.removeHandler(buffer)
        for record in buffer.records:
            file_handler.handle(record)
    root.addHandler(file_handler)
    saved_fd = None
    console = None
    if not verbose():
        sys.stderr.flush()
        saved_fd = os.dup(2)
        console = io.TextIOWrapper(os.fdopen(os.dup(saved_fd), "wb", buffering=0), encoding="utf-8",
                                   errors="replace", line_buffering=True, write_through=True)
        _state["console"] = console
        handler = _state.get("console_handler")
        if handler is not None:
            handler.setStream(console)
        os.dup2(log_file.fileno(), 2)
    _state["log_path"] = path
    try:
        yield path
    finally:
        if saved_fd is not None:
            sys.stderr.flush()
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            handler = _state.get("console_handler")
            if handler is not None:
                handler.setStream(sys.stderr)
            _state.pop("console", None)
            console.close()
        root.removeHandler(file_handler)
        log_file.close()


def current_log_path() -> str:
    return _state.get("log_path", "")
