"""Python SDK workers for Flink and Spark clusters on this machine: Beam's EXTERNAL environment.

A Flink TaskManager or Spark executor runs the project's Python code in SDK worker processes that it asks
an external worker pool to start (`StartWorkerRequest` of Beam's `BeamFnExternalWorkerPool` service). Beam
ships such a pool (`python -m apache_beam.runners.worker.worker_pool_main`), and LOOPBACK runs one inside
the submitting process with every worker as a thread of it (one core for the whole job: the GIL). This
pool's service runs in the submitting process too, but each worker is a process:

  * Forked from a *fork server* (`ForkServer`): one process that imports what every worker needs once
    (Beam's worker, this project, spaCy, TFDV when the job validates: the list the local runner's warm
    workers use, warm.py), then forks a child per worker. Flink starts a
    worker per slot for each of a job's pipelined regions (some 20 on the Discovery sample), so this saves
    2-3 s of imports per worker. The child gets the requesting process's environment at that moment (the
    live progress display's side channel, transforms/progress.py, is set when the run starts).
  * If the fork server is not up (or fails), a new process of this very Python (`python -m
    pipelines.framework.workers.external_pool CONTROL_URL WORKER_ID`). Beam's own pool starts `python` from PATH,
    and never reads its output, so a worker that writes enough blocks.

Either way the worker runs Beam's `SdkHarness` against the control endpoint the engine gave, writes to the
run's log (standard error, which `rewrite-mine` redirects to OUTPUT/logs/), and ends without the
interpreter's teardown when the engine closes it.
"""
import contextlib
import json
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import typing

from apache_beam.portability.api import beam_fn_api_pb2, beam_fn_api_pb2_grpc

from pipelines.framework.workers import warm
from pipelines.framework.workers.warm import FORK_WAIT_S, ForkServer, die_with_parent  # noqa: F401 (names of this module before)

LOG = logging.getLogger("rewrite_mine")

#: Beam's SDK worker defaults (sdk_worker_main): a 100 MB state cache, no time-based output buffering.
STATE_CACHE_BYTES = 100 << 20
MODULE = "pipelines.framework.workers.external_pool"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_fixed_port(low: int = 20000, high: int = 32768) -> int:
    """A free port of localhost below Linux's ephemeral range (32768-60999), for a daemon that binds it
    seconds later. A port `free_port` returns comes from that range, and until it is bound it can be handed
    to any process that binds port 0 or connects: a Flink cluster's JVMs do so while they start, and a
    kept job server's port picked before the cluster started was taken that way ("Address already in
    use"). Ports of this range are given only to who names them."""
    rng = random.Random(f"{os.getpid()}:{time.time_ns()}")
    for _ in range(1000):
        port = rng.randrange(low, high)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port of localhost found in {low}-{high - 1} (1000 tries)")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b") ", 1)[1][:1] != b"Z"
    except (OSError, IndexError):
        return False


def _stop_pid(pid: int, grace_s: float = 10.0) -> None:
    """A worker whose engine closed its control channel has already ended; else SIGTERM, then SIGKILL."""
    deadline = time.time() + 0.5
    while time.time() < deadline and _alive(pid):
        time.sleep(0.05)
    if not _alive(pid):
        return
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.time() + grace_s
    while time.time() < deadline and _alive(pid):
        time.sleep(0.1)
    if _alive(pid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class ProcessWorkerPool:
    """Beam's external worker pool service on a free port of this machine, starting worker processes."""

    def __init__(self, preload: typing.Sequence[str] = (), log_output: bool = True):
        self.port = free_port()
        self.address = f"localhost:{self.port}"
        self.preload = tuple(preload)
        self.log_output = log_output
        self._server = None
        self._servicer: typing.Optional[_Servicer] = None
        self._forks: typing.Optional[ForkServer] = None
        #: Whether its fork server is the one `rewrite-mine` started before it imported the job (warm.start_early).
        self.fork_server_early = False

    def start(self) -> str:
        import grpc  # pylint: disable=import-outside-toplevel
        from apache_beam.utils import thread_pool_executor  # pylint: disable=import-outside-toplevel
        if self.preload and warm.enabled():
            # The one `rewrite-mine` started before it imported the job (warm.start_early), if it fits.
            self._forks = warm.adopt_forks(self.preload)
            self.fork_server_early = self._forks is not None
            if self._forks is None:
                self._forks = ForkServer(self.preload)
        self._servicer = _Servicer(self.log_output, self._forks)
        server = grpc.server(thread_pool_executor.shared_unbounded_instance(),
                             options=[("grpc.http2.max_pings_without_data", 0), ("grpc.http2.max_ping_strikes", 0)])
        beam_fn_api_pb2_grpc.add_BeamFnExternalWorkerPoolServicer_to_server(self._servicer, server)
        if server.add_insecure_port(f"localhost:{self.port}") == 0:
            raise RuntimeError(f"the SDK worker pool could not listen on {self.address}")
        server.start()
        self._server = server
        LOG.debug("SDK worker pool (EXTERNAL environment) listening at %s", self.address)
        return self.address

    @property
    def started(self) -> int:
        """How many worker processes the engine asked for so far."""
        return self._servicer.started if self._servicer else 0

    @property
    def forked(self) -> int:
        """How many of them came from the fork server."""
        return self._servicer.forked if self._servicer else 0

    def stop(self) -> None:
        if self._servicer is not None:
            self._servicer.stop_all()
        if self._server is not None:
            self._server.stop(grace=2).wait(5)
            self._server = None
        if self._forks is not None:
            self._forks.close()
            self._forks = None


def _worker_command(control_url: str, worker_id: str) -> typing.List[str]:
    return [sys.executable, "-m", MODULE, control_url, worker_id]


class _Servicer(beam_fn_api_pb2_grpc.BeamFnExternalWorkerPoolServicer):
    """The `BeamFnExternalWorkerPool` service: StartWorker / StopWorker."""

    def __init__(self, log_output: bool, forks: typing.Optional[ForkServer]):
        self.log_output = log_output
        self.forks = forks
        self.started = 0
        self.forked = 0
        # Keyed by (the asking engine's connection, worker id): every TaskManager (or executor) numbers its
        # workers from "1-1" on, so two of them ask for the same id, and StopWorker must stop the asking
        # one's worker, not the other's.
        self._workers: typing.Dict[typing.Tuple[str, str], typing.Union[int, subprocess.Popen]] = {}
        self._replaced: typing.List[typing.Union[int, subprocess.Popen]] = []
        self._lock = threading.Lock()

    def StartWorker(self, request, context):  # noqa: N802 - the gRPC method's name
        try:
            url, worker_id = request.control_endpoint.url, request.worker_id
            worker: typing.Union[int, subprocess.Popen, None] = None
            if self.forks is not None:
                worker = self.forks.fork(url, worker_id, dict(os.environ))
            if worker is None:
                out = None if self.log_output else subprocess.DEVNULL
                worker = subprocess.Popen(  # pylint: disable=consider-using-with
                    _worker_command(url, worker_id), stdin=subprocess.DEVNULL,
                    stdout=2 if out is None else out, stderr=out, close_fds=True)
            with self._lock:
                key = (_peer(context), worker_id)
                if key in self._workers:  # asked twice by one engine: the first is stopped with the pool
                    self._replaced.append(self._workers[key])
                self._workers[key] = worker
                self.started += 1
                self.forked += isinstance(worker, int)
            LOG.debug("started SDK worker %s (pid %s) for %s", worker_id,
                      worker if isinstance(worker, int) else worker.pid, url)
            return beam_fn_api_pb2.StartWorkerResponse()
        except Exception as e:  # noqa: BLE001 - the engine reports it as the worker's start failure
            return beam_fn_api_pb2.StartWorkerResponse(error=f"{type(e).__name__}: {e}")

    def StopWorker(self, request, context):  # noqa: N802
        with self._lock:
            worker = self._workers.pop((_peer(context), request.worker_id), None)
            if worker is None:  # another connection of the same engine: only an id no other engine uses
                same = [k for k in self._workers if k[1] == request.worker_id]
                worker = self._workers.pop(same[0]) if len(same) == 1 else None
        if worker is not None:
            _stop(worker)
        return beam_fn_api_pb2.StopWorkerResponse()

    def stop_all(self) -> None:
        with self._lock:
            workers, self._workers = list(self._workers.values()) + self._replaced, {}
            self._replaced = []
        threads = [threading.Thread(target=_stop, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def _peer(context) -> str:
    """The asking engine's connection ("ipv4:127.0.0.1:PORT"); "" without one."""
    try:
        return context.peer() or ""
    except Exception:  # noqa: BLE001 - no context (a direct call)
        return ""


def _stop(worker: typing.Union[int, subprocess.Popen]) -> None:
    if isinstance(worker, int):
        _stop_pid(worker)
        return
    try:
        worker.wait(timeout=0.5)
        return
    except subprocess.TimeoutExpired:
        pass
    worker.terminate()
    try:
        worker.wait(timeout=10)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


# ------------------------------------------------------------------ the worker processes

def run_harness(control_url: str, worker_id: str) -> int:
    """Beam's SdkHarness on the engine's control endpoint until the engine closes it; the exit status."""
    from apache_beam.runners.worker import sdk_worker  # pylint: disable=import-outside-toplevel
    try:
        sdk_worker.SdkHarness(control_url, worker_id=worker_id, state_cache_size=STATE_CACHE_BYTES,
                              data_buffer_time_limit_ms=0).run()
    except Exception:  # pylint: disable=broad-except  (the engine closed the channel: its failure, reported there)
        # One line on the console (configure_worker_logging); the traceback with REWRITE_MINE_WORKER_TRACEBACKS=1.
        logging.getLogger(__name__).warning("SDK worker %s stopped", worker_id, exc_info=True)
        return 1
    return 0


def _log_format(worker_id: str) -> str:
    return "%(asctime)s %(levelname)s worker " + worker_id + " %(name)s: %(message)s"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


class _OneLineExceptions(logging.Formatter):
    """A worker's log lines on the driver's console, an exception as one line, not a traceback.

    The workers write to the console of `rewrite-mine` (they inherit its stderr). When an engine loses a
    TaskManager or executor, the workers it ran see their gRPC channels break and Beam logs each with a
    traceback, in the console of a run that then recovers and finishes. What failed in a bundle reaches
    the driver anyway (Beam sends the error, with its traceback, in the bundle's response, and the run's
    error line and log name it). REWRITE_MINE_WORKER_TRACEBACKS=1 keeps the tracebacks.
    """

    def formatException(self, ei):  # noqa: N802 - logging's name
        return "(" + _one_line(ei[1]) + "; REWRITE_MINE_WORKER_TRACEBACKS=1 shows the traceback)"

    def format(self, record):
        return " ".join(super().format(record).splitlines())

    def formatStack(self, stack_info):  # noqa: N802
        return ""


def configure_worker_logging(worker_id: str) -> None:
    """WARNING and above of every logger of an SDK worker process, on stderr, one line per record."""
    logging.basicConfig(level=logging.WARNING, format=_log_format(worker_id), force=True)
    if os.environ.get("REWRITE_MINE_WORKER_TRACEBACKS", "") not in ("", "0"):
        return
    for handler in logging.getLogger().handlers:
        handler.setFormatter(_OneLineExceptions(_log_format(worker_id)))


def fork_server(path: str, preload: typing.Sequence[str], control_fd: typing.Optional[int] = None) -> int:
    """Import `preload`, then (with `control_fd`: once the driver releases it, warm.ForkServer) serve fork
    requests on the Unix socket `path` until stdin closes."""
    from pipelines.framework.workers import process  # pylint: disable=import-outside-toplevel

    def leave(code):  # what it leaves on disk removed first: a driver killed with SIGKILL cannot
        warm.remove_fork_files(path)
        process.exit_now(code)

    def lifeline():
        with contextlib.suppress(OSError):
            sys.stdin.buffer.read()
        leave(0)

    # It ends when the driver dies: stdin's end (lifeline), the hang-up of the control socket before its
    # release (warm.await_fork_release), and SIGTERM (die_with_parent; ignored until now: warm.ForkServer).
    signal.signal(signal.SIGTERM, lambda signum, frame: leave(128 + signum))
    threading.Thread(target=lifeline, name="lifeline", daemon=True).start()
    process.preload_frozen(preload)
    if control_fd is not None:
        warm.await_fork_release(control_fd, path)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the forked workers
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".tmp")
    server.listen(64)
    os.rename(path + ".tmp", path)  # a client that sees the path can connect
    while True:
        conn, _ = server.accept()
        with conn:
            data = warm.recv_line(conn)
            try:
                request = json.loads(data.decode())
            except ValueError:
                continue
            pid = os.fork()
            if pid == 0:  # the worker
                signal.signal(signal.SIGTERM, signal.SIG_DFL)  # ends at once, and leaves the server's files
                die_with_parent()  # ends with the fork server, which ends with the driver (a killed one too)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # its own subprocesses are waited for as usual
                server.close()
                conn.close()
                os.environ.clear()
                os.environ.update(request.get("env") or {})
                configure_worker_logging(request["id"])
                process.exit_now(run_harness(request["control"], request["id"]))
            with contextlib.suppress(OSError):
                conn.sendall((json.dumps({"pid": pid}) + "\n").encode())


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from pipelines.framework import credentials  # pylint: disable=import-outside-toplevel
    credentials.install(argv)  # Beam's worker logs its pipeline options, credentials among them
    if argv and argv[0] == "--fork-server":  # --fork-server PATH [--preload A,B] [--control FD] (warm.ForkServer)
        path, rest = argv[1], argv[2:]
        preload = rest[rest.index("--preload") + 1].split(",") if "--preload" in rest else []
        control = int(rest[rest.index("--control") + 1]) if "--control" in rest else None
        return fork_server(path, [p for p in preload if p], control)
    control_url, worker_id = argv[0], argv[1]
    configure_worker_logging(worker_id)
    return run_harness(control_url, worker_id)


if __name__ == "__main__":
    from pipelines.framework.workers.process import exit_now  # pylint: disable=import-outside-toplevel
    exit_now(main())
