"""Worker processes of the local runner started before the pipeline is built (issue 19).

Beam's `FnApiRunner` starts its N worker processes when the first stage runs, after the driver has
built the pipeline: each then spends 1-3 s importing Beam's worker, TensorFlow (TFDV's statistics),
spaCy and this project, while the driver waits. So the local runner starts them *warm*, as early as
it can: `rewrite-mine` starts the pool before it even imports the job (`start_early`, from a first
look at the command line: local runner, how many workers, validation on), and `make_pipeline` adopts
that pool when the parsed options agree (`adopt`; otherwise it starts one itself, as a library caller's
pipeline does).

A pool is one process (the *zygote*) that binds N Unix sockets in a private directory, imports what
every worker needs (`PRELOAD`, and TFDV when the job validates) once, and then forks: N-1 children
and itself each serve one socket. The imports are paid once, not N times, on the core the driver
leaves idle while it builds the graph; the forked workers share the imported code's memory. Before
it forks, the zygote waits for the driver to `release` the pool: the driver's standard error (the
run's log file, where `rewrite-mine` redirects it) travels to the zygote over the control socket, and
everything the zygote wrote before goes there too.

When the runner then starts a worker (`python -m pipelines.framework.workers.sdk_worker_main`, with the
control address and options in its environment), that process hands its environment and arguments
to a free warm process and waits for it: the warm process runs Beam's worker unchanged and sends
back its exit status, which the started process exits with. If the started process dies (the runner
kills it, the watchdog kills it), the warm one sees its socket close and ends too; every warm process
ends when the driver closes the control socket (`Pool.close`, or the driver's end, SIGKILL
included). No warm process free (or none answers): the started process runs the worker itself, as
before. PySpark's daemon, Gunicorn's preloading and Android's zygote do the same for the same reason.

Only the local runner's multi-process mode uses this pool. A run on Flink or Spark whose workers start on
this machine (Beam's EXTERNAL environment, external_pool.py) gets their *fork server* started as early, in
the same way (`ForkServer`, `start_early`): it imports while the driver imports and builds the job, and
serves the engine's requests for workers once the run adopts it (`adopt_forks`).
`REWRITE_MINE_WARM_WORKERS=0` turns both off.
"""
import argparse
import contextlib
import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import typing

from pipelines.framework.workers import process

LOG = logging.getLogger("rewrite_mine")

#: Environment variable naming the directory of the warm workers' sockets (set while a run may start
#: workers; the started worker processes inherit it). "0" disables warm workers.
ENV = "REWRITE_MINE_WARM_WORKERS"
MODULE = "pipelines.framework.workers.warm"
#: What every worker imports before its first bundle: modules, or `module:function` to call.
PRELOAD = ("apache_beam.runners.worker.sdk_worker_main", "transforms", "transforms.common", "transforms.sinks",
           "miners.nlp.pos:import_spacy")
#: Imported too when the job computes statistics (its validation is on).
VALIDATION_PRELOAD = ("tensorflow_data_validation",)
#: How long a started worker waits for a warm process to finish its imports and answer.
CLAIM_TIMEOUT_S = 300.0
#: How long a worker request waits for the fork server to finish its imports.
FORK_WAIT_S = 120.0
#: How long starting the pool waits for the zygote to bind its sockets.
BIND_TIMEOUT_S = 30.0
_OK = b"ok\n"
_RELEASE = b"release\n"

#: The numerical libraries' thread-count variables a worker gets when N share the machine.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def enabled() -> bool:
    return os.environ.get(ENV, "") != "0"


def thread_variables(num_workers: int, cpus: typing.Optional[int] = None) -> typing.Dict[str, str]:
    """The numerical libraries' thread counts a worker gets when N share the machine (none for one)."""
    if num_workers <= 1:
        return {}
    threads = str(max(1, (cpus or os.cpu_count() or 1) // num_workers))
    return {k: threads for k in THREAD_VARIABLES}


def worker_environment(n: int) -> typing.Dict[str, str]:
    """The environment the warm processes start with: the driver's, with `thread_variables(n)` where the
    user set none (numerical libraries read them when they load, i.e. during the warm imports)."""
    env = dict(os.environ)
    env.update({k: v for k, v in thread_variables(n).items() if k not in os.environ})
    return env


def preload_for(validation: bool) -> typing.Tuple[str, ...]:
    return PRELOAD + (VALIDATION_PRELOAD if validation else ())


def in_process_preload(validation: bool) -> typing.Tuple[str, ...]:
    """What a run that works inside the driver (or a Dask worker: no Beam SDK harness) imports up front."""
    return tuple(m for m in preload_for(validation) if not m.startswith("apache_beam.runners.worker"))


def _socket_path(directory: str, i: int) -> str:
    return os.path.join(directory, f"w{i}.sock")


class Pool:
    """N warm worker processes: one zygote, started now, that forks the other N-1 once `release`d;
    `close()` stops every one that no run claimed (and any left)."""

    def __init__(self, n: int, preload: typing.Sequence[str] = PRELOAD, env: typing.Optional[dict] = None,
                 release: bool = True):
        self.n = n
        self.preload = tuple(preload)
        self.env = dict(os.environ if env is None else env)
        self.dir = tempfile.mkdtemp(prefix="rewrite-mine-warm-")
        self.released = False
        # The control socket: the zygote's end is passed to it; the driver's end is its lifeline (every
        # warm process ends when it closes) and carries the release (with the driver's stderr).
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        early = open(os.path.join(self.dir, "early.log"), "wb")  # pylint: disable=consider-using-with
        try:
            self.procs = [subprocess.Popen(
                [sys.executable, "-m", MODULE, "--serve", self.dir, "--count", str(n),
                 "--control", str(theirs.fileno()), "--preload", ",".join(self.preload)],
                env=self.env, stdin=subprocess.DEVNULL, stderr=early, pass_fds=(theirs.fileno(),))]
        finally:
            theirs.close()
            early.close()
        # The zygote binds its sockets first thing (~0.1 s), before its imports: wait for that, so a
        # worker the runner starts finds every warm process (and queues on it while it imports).
        deadline = time.time() + BIND_TIMEOUT_S
        while time.time() < deadline and self.procs[0].poll() is None and not all(
                os.path.exists(_socket_path(self.dir, i)) for i in range(n)):
            time.sleep(0.01)
        if release:
            self.release()

    def matches(self, n: int, preload: typing.Sequence[str], env: dict) -> bool:
        """Whether this pool is what `Pool(n, preload, env)` would start (thread variables compared)."""
        return (self.n == n and self.preload == tuple(preload) and self.procs[0].poll() is None
                and all(self.env.get(k) == env.get(k) for k in THREAD_VARIABLES))

    def release(self):
        """Let the zygote fork the workers, their standard error being this process's (now)."""
        if not self.released:
            self.released = True
            # the zygote gone: the started workers run themselves
            _send_release(self._control, "warm workers: the zygote")

    def pids(self) -> typing.List[int]:
        """The warm processes now alive (the zygote and its forks; a claimed one runs a worker)."""
        out = []
        for name in sorted(os.listdir(self.dir)) if os.path.isdir(self.dir) else []:
            if name.endswith(".pid"):
                try:
                    with open(os.path.join(self.dir, name), encoding="ascii") as f:
                        pid = int(f.read().strip())
                except (OSError, ValueError):
                    continue
                if _alive_warm(pid):
                    out.append(pid)
        return out

    @contextlib.contextmanager
    def offered(self):
        """While this block runs, worker processes started by the runner find the pool."""
        saved = os.environ.get(ENV)
        os.environ[ENV] = self.dir
        try:
            yield self
        finally:
            if saved is None:
                os.environ.pop(ENV, None)
            else:
                os.environ[ENV] = saved

    def close(self, wait_s: float = 5.0):
        forks = self.pids()
        try:
            self._control.close()  # every warm process watches it: they end now
        except OSError:
            pass
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.time() + wait_s
        for p in self.procs:
            try:
                p.wait(max(0.0, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for pid in forks:
            while _alive_warm(pid) and time.time() < deadline:
                time.sleep(0.01)
            if _alive_warm(pid):
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
        shutil.rmtree(self.dir, ignore_errors=True)


def _alive_warm(pid: int) -> bool:
    """Whether `pid` is a live (not zombie) warm process (a reused pid runs something else)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().decode("utf-8", "replace")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z" and MODULE in cmd


#: The module whose `--fork-server` mode serves an engine's SDK workers (external_pool.py; named, not
#: imported: it imports Beam's gRPC services, which the driver's first moments do without).
FORK_SERVER_MODULE = "pipelines.framework.workers.external_pool"


def die_with_parent() -> None:
    """In a child process before exec: SIGTERM when the thread that started it ends (a driver that is
    killed, or ends without its teardown, must leave no job server JVM or fork server behind). Linux only."""
    try:
        import ctypes  # pylint: disable=import-outside-toplevel
        ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM
    except Exception:  # noqa: BLE001 - elsewhere the run stops them at its end as usual
        pass


#: The folder a ForkServer makes for its socket and early.log (the server removes it when the driver dies).
FORK_DIR_PREFIX = "rewrite-mine-forks-"


def remove_fork_files(path: str) -> None:
    """What the fork server serving at `path` leaves on disk, removed: its ForkServer folder (the socket and
    early.log), or only the socket when it serves elsewhere. The server calls it as it ends: a driver killed
    with SIGKILL cannot (ForkServer.close does for a driver that ends as usual)."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.basename(directory).startswith(FORK_DIR_PREFIX):
        shutil.rmtree(directory, ignore_errors=True)
        return
    for name in (path, path + ".tmp"):
        with contextlib.suppress(OSError):
            os.unlink(name)


def _fork_server_preexec() -> None:
    """die_with_parent, with SIGTERM ignored until the server's handler removes its folder before it ends
    (external_pool.fork_server): a driver killed while the server still imports would otherwise leave the
    folder. Ignored, the signal changes nothing: the server ends once it finds the driver gone."""
    die_with_parent()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


class ForkServer:
    """A process that imports `preload` once and forks one SDK worker per request of an engine's worker
    pool (external_pool.ProcessWorkerPool), with the environment `env` (default: this process's) while it
    imports.

    It serves once `release`d, with this process's standard error (then) as its own and its workers', and
    what it wrote before (its imports' warnings) copied there first: `rewrite-mine` starts it before the
    job is even imported (`start_early`), while standard error is still the terminal, and the run's log
    is set up by the time the run adopts it (`adopt_forks`). Its standard input is its lifeline: it ends
    when this process closes it, or dies."""

    def __init__(self, preload: typing.Sequence[str], env: typing.Optional[dict] = None, release: bool = True):
        self.preload = tuple(preload)
        self.env = dict(os.environ if env is None else env)
        self.dir = tempfile.mkdtemp(prefix=FORK_DIR_PREFIX)
        self.path = os.path.join(self.dir, "fork.sock")
        self.released = False
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        early = open(os.path.join(self.dir, "early.log"), "wb")  # pylint: disable=consider-using-with
        try:
            self.proc = subprocess.Popen(  # pylint: disable=consider-using-with
                [sys.executable, "-m", FORK_SERVER_MODULE, "--fork-server", self.path, "--preload",
                 ",".join(self.preload), "--control", str(theirs.fileno())],
                env=self.env, stdin=subprocess.PIPE, stdout=early, stderr=early, close_fds=True,
                pass_fds=(theirs.fileno(),), preexec_fn=_fork_server_preexec)
        finally:
            theirs.close()
            early.close()
        if release:
            self.release()

    def matches(self, preload: typing.Sequence[str], env: dict) -> bool:
        """Whether this server is what `ForkServer(preload, env)` would start (thread variables compared)."""
        return (self.preload == tuple(preload) and self.proc.poll() is None
                and all(self.env.get(k) == env.get(k) for k in THREAD_VARIABLES))

    def release(self) -> None:
        """Let it serve, its standard error (and its workers') being this process's (now)."""
        if not self.released:
            self.released = True
            # it gone: `fork` finds no socket and the pool starts its workers as processes
            _send_release(self._control, "the SDK workers' fork server")

    def fork(self, control_url: str, worker_id: str, env: dict) -> typing.Optional[int]:
        """The pid of a new worker forked for `control_url`, or None (the server is not there)."""
        deadline = time.time() + FORK_WAIT_S
        while not os.path.exists(self.path):
            if self.proc.poll() is not None or time.time() > deadline:
                return None
            time.sleep(0.05)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(30)
                s.connect(self.path)
                s.sendall((json.dumps({"control": control_url, "id": worker_id, "env": env}) + "\n").encode())
                reply = recv_line(s)
            return int(json.loads(reply.decode())["pid"])
        except (OSError, ValueError, KeyError):
            LOG.warning("the SDK workers' fork server did not answer; starting worker %s as a new process",
                        worker_id, exc_info=True)
            return None

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(OSError):
            self._control.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def await_fork_release(control_fd: int, path: str) -> None:
    """The fork server's side of `ForkServer.release`: block until the driver releases it (its imports
    done), then take the driver's standard error as its standard output and error. Ends the process when
    the driver closes the control socket without releasing it (the run ended before it ran)."""
    control = socket.socket(fileno=control_fd)
    _await_release(control, os.path.dirname(path), gone=lambda: remove_fork_files(path))
    os.dup2(2, 1)
    control.close()  # the workers it forks need none of it


# ------------------------------------------------------------------ started before the job is imported

_EARLY: typing.List[Pool] = []
_EARLY_FORKS: typing.List[ForkServer] = []
#: The engines whose runs on a cluster of this machine start their SDK workers from a fork server here.
ENGINE_RUNNERS = ("flink", "spark")
#: The parallelism of a run on a cluster `rewrite-mine cluster start` started with its defaults (Flink: one
#: TaskManager of 2 slots; Spark: a worker of 2 cores; engines/cli.py), which a run takes when not given one.
ENGINE_PARALLELISM = 2


class _GuessError(Exception):
    pass


class _Guesser(argparse.ArgumentParser):
    def error(self, message):
        raise _GuessError(message)


def guess_local_workers(argv) -> typing.Optional[typing.Tuple[int, bool]]:
    """(workers, validation) when `argv` (a job's options) asks for the local runner's multi-process mode,
    as the job's own parser will read it; None otherwise (another runner, in-process, --help, unclear).
    Only a guess: `adopt` checks it against the parsed options."""
    if any(a in ("-h", "--help") for a in argv):
        return None
    parser = _Guesser(add_help=False)
    parser.add_argument("--runner", default="local")
    parser.add_argument("--num_workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--direct_running_mode", default=None)
    parser.add_argument("--no_validation", dest="validation", action="store_false", default=True)
    try:
        args, _ = parser.parse_known_args(list(argv))
    except (_GuessError, SystemExit):
        return None
    if (args.runner or "local").lower() != "local" or args.num_workers < 1:
        return None
    multi = args.num_workers > 1 or args.direct_running_mode == "multi_processing"
    return (args.num_workers, args.validation) if multi else None


def guess_engine_workers(argv) -> typing.Optional[typing.Tuple[int, bool]]:
    """(parallelism, validation) when `argv` (a job's options) asks for a run on Flink or Spark whose SDK
    workers start on this machine (no `--environment_type`: Beam's EXTERNAL environment of this project's
    worker pool); None otherwise. The parallelism is `--parallelism` or, not given, what a cluster that
    `rewrite-mine cluster start` started with its defaults gives (`ENGINE_PARALLELISM`). Only a guess:
    `adopt_forks` checks it."""
    if any(a in ("-h", "--help") for a in argv):
        return None
    parser = _Guesser(add_help=False)
    parser.add_argument("--runner", default="local")
    parser.add_argument("--environment_type", default=None)
    parser.add_argument("--parallelism", type=int, default=None)
    parser.add_argument("--no_validation", dest="validation", action="store_false", default=True)
    try:
        args, _ = parser.parse_known_args(list(argv))
    except (_GuessError, SystemExit):
        return None
    if (args.runner or "").lower() not in ENGINE_RUNNERS or args.environment_type is not None:
        return None
    return max(1, args.parallelism or ENGINE_PARALLELISM), args.validation


def start_early(argv) -> typing.Optional[typing.Union[Pool, ForkServer]]:
    """Start a job's warm workers before the job is imported (`rewrite-mine`): the zygote's imports then
    overlap the driver's (Beam's, ~1 s) as well as its graph building. Not released: `adopt` does that
    once the run's standard error is set up. Kept for `adopt`; ended with the process otherwise.

    For a run on Flink or Spark whose workers start here, the same for the workers' fork server
    (`adopt_forks`): started when the pool starts, it was still importing (4.5 s, TensorFlow among it)
    when the cluster asked for the first workers, and a job's first tasks waited for it."""
    if not enabled():
        return None
    engine = guess_engine_workers(argv)
    if engine is not None:
        if _EARLY_FORKS:
            return None
        parallelism, validation = engine
        try:
            forks = ForkServer(preload_for(validation), env=worker_environment(parallelism), release=False)
        except OSError:  # no process could be started: the pool's own start reports it
            LOG.debug("the SDK workers' fork server: early start failed", exc_info=True)
            return None
        _EARLY_FORKS.append(forks)
        return forks
    if _EARLY:
        return None
    guess = guess_local_workers(argv)
    if guess is None:
        return None
    n, validation = guess
    try:
        pool = Pool(n, preload_for(validation), env=worker_environment(n), release=False)
    except OSError:  # no process could be started: the runner's own start reports it
        LOG.debug("warm workers: early start failed", exc_info=True)
        return None
    _EARLY.append(pool)
    return pool


def adopt(n: int, preload: typing.Sequence[str], env: dict) -> typing.Optional[Pool]:
    """The pool `start_early` started, released, if it is the one these options need; else None (and
    a pool started for other options is stopped)."""
    if not _EARLY:
        return None
    pool = _EARLY.pop()
    if pool.matches(n, preload, env):
        pool.release()
        return pool
    pool.close()
    return None


def adopt_forks(preload: typing.Sequence[str], env: typing.Optional[dict] = None) -> typing.Optional[ForkServer]:
    """The fork server `start_early` started, released, if it is the one a pool with these imports and
    this environment (default: this process's, where the thread counts are set by now) would start; else
    None (and one started for other options is stopped)."""
    if not _EARLY_FORKS:
        return None
    forks = _EARLY_FORKS.pop()
    if forks.matches(preload, dict(os.environ if env is None else env)):
        forks.release()
        return forks
    forks.close()
    return None


def discard_early(forks: bool = True):
    """Stop a pool `start_early` started that no run adopted (the job ended before it ran, e.g. up to date),
    and with `forks` an engine's fork server as well."""
    while _EARLY:
        _EARLY.pop().close()
    while forks and _EARLY_FORKS:
        _EARLY_FORKS.pop().close()


# ------------------------------------------------------------------ the started worker's side

def _claim_order(paths, worker_id):
    """Start at a place given by the worker's id, so N workers started at once try N different sockets."""
    digits = "".join(c for c in worker_id or "" if c.isdigit())
    start = int(digits) % len(paths) if digits and paths else 0
    return paths[start:] + paths[:start]


def hand_over(argv) -> typing.Optional[int]:
    """In a worker process the runner started: give the work to a warm process and return its exit
    status; None when no warm process took it (the caller then runs the worker itself)."""
    pool_dir = os.environ.get(ENV, "")
    if not pool_dir or pool_dir == "0" or not os.path.isdir(pool_dir):
        return None
    paths = sorted(os.path.join(pool_dir, f) for f in os.listdir(pool_dir) if f.endswith(".sock"))
    message = json.dumps({"env": dict(os.environ), "argv": list(argv), "cwd": os.getcwd()}).encode("utf-8")
    for path in _claim_order(paths, os.environ.get("WORKER_ID")):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(CLAIM_TIMEOUT_S)  # a full backlog or a hung warm process: give up, never hang
        try:
            conn.connect(path)
            conn.sendall(len(message).to_bytes(8, "big") + message)
            if _recv_exactly(conn, len(_OK)) != _OK:  # taken by another worker, or it died
                conn.close()
                continue
        except OSError:
            conn.close()
            continue
        conn.settimeout(None)
        # Claimed: from here on this process only mirrors the warm one.
        status = conn.recv(16)
        return int(status.decode("ascii").strip() or 1) if status else 1
    return None


def _send_release(control: socket.socket, what: str) -> None:
    """Send the release over `control`, with this process's standard error (`_await_release` takes it)."""
    sys.stderr.flush()
    try:
        socket.send_fds(control, [_RELEASE], [2])
    except OSError:
        LOG.debug("%s could not be released", what, exc_info=True)


def recv_line(conn) -> bytes:
    """Bytes from `conn` up to and with a newline, or all there were when it closed first."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _recv_exactly(conn, n) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


# ------------------------------------------------------------------ the warm process's side

def _die_with_driver(control: socket.socket, directory: str):
    """End this process when the driver closes the control socket (`Pool.close`, or the driver's end,
    whatever it is: also SIGKILL), removing the pool's directory (a killed driver could not). Waits for
    the hang-up without reading, so the release message stays for the zygote's main thread. Threads do
    not survive a fork: each forked worker calls it again."""

    def watch():
        poller = select.poll()
        # POLLHUP and POLLERR are always reported; POLLRDHUP (Linux) also when the driver shut its end.
        poller.register(control.fileno(), getattr(select, "POLLRDHUP", 0))
        while True:
            if poller.poll():
                shutil.rmtree(directory, ignore_errors=True)
                os._exit(1)  # pylint: disable=protected-access
    threading.Thread(target=watch, name="warm-driver-watch", daemon=True).start()


def _await_release(control: socket.socket, directory: str, gone: typing.Optional[typing.Callable] = None):
    """Block until the driver releases the pool; from then on standard error is the driver's, with what
    this process wrote before (its imports' warnings) copied there first. When the driver is gone
    instead, `gone()` and the end of this process."""
    message, fds, _, _ = socket.recv_fds(control, 64, 1)
    if message != _RELEASE:  # the driver is gone (or broke the protocol): nothing to serve
        if gone is not None:
            gone()
        os._exit(1)  # pylint: disable=protected-access
    if not fds:
        return
    process.flush_streams()
    try:
        with open(os.path.join(directory, "early.log"), "rb") as f:
            early = f.read()
        if early:
            os.write(fds[0], early)
    except OSError:
        pass
    os.dup2(fds[0], 2)
    os.close(fds[0])


def zygote(directory: str, n: int, preload: typing.Sequence[str], control_fd: int) -> int:
    """Bind N sockets, import, wait for the release, fork N-1 workers; then serve the first socket
    (each fork serves its own and exits). Returns this process's worker's exit status."""
    control = socket.socket(fileno=control_fd)
    _die_with_driver(control, directory)
    servers = []
    for i in range(n):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Bound and listening under another name first: a worker that sees the path can connect (between
        # bind and listen it was refused; a full test run hit that window under load).
        server.bind(_socket_path(directory, i) + ".tmp")
        server.listen(8)
        os.rename(_socket_path(directory, i) + ".tmp", _socket_path(directory, i))
        servers.append(server)
    # No cyclic garbage collection while importing: the imports make ~700,000 objects and hardly any
    # garbage (4,000 objects, 1 MB), and the collector's passes over them were a quarter of the import
    # time (2.35 -> 1.75 s). What the imports made is then frozen (never scanned again, and so never
    # copied into a fork's memory by the collector) before the workers fork.
    process.preload_frozen(preload)
    _await_release(control, directory)
    mine = 0
    for i in range(1, n):
        process.flush_streams()
        if os.fork() == 0:
            mine = i
            _die_with_driver(control, directory)
            break
    for i, server in enumerate(servers):
        if i != mine:
            server.close()
    try:
        with open(os.path.join(directory, f"w{mine}.pid"), "w", encoding="ascii") as f:
            f.write(f"{os.getpid()}\n")
    except OSError:
        pass
    status = serve(servers[mine], _socket_path(directory, mine))
    if mine:  # a fork never returns into the zygote's code
        process.exit_now(status)
    return status


def serve(server: socket.socket, path: str) -> int:
    """Take one worker from `server` (a started worker waiting in the backlog is served first), run it."""
    while True:
        conn, _ = server.accept()
        try:
            conn.settimeout(30.0)
            size = int.from_bytes(_recv_exactly(conn, 8), "big")
            message = json.loads(_recv_exactly(conn, size).decode("utf-8"))
            conn.sendall(_OK)  # a worker that gave up waiting is gone: this fails and the next one is taken
            conn.settimeout(None)
        except (OSError, ValueError):
            conn.close()
            continue
        break
    server.close()  # workers still in the backlog get a closed connection and try another socket
    try:
        os.unlink(path)
    except OSError:
        pass
    os.environ.clear()
    os.environ.update(message["env"])
    os.chdir(message["cwd"])
    done = threading.Event()

    def watch_started_process():  # it died (killed by the runner or the watchdog): so does this one
        try:
            conn.recv(1)
        except OSError:
            pass
        if not done.is_set():
            os._exit(1)  # pylint: disable=protected-access
    threading.Thread(target=watch_started_process, name="warm-claim-watch", daemon=True).start()

    status = run_worker(message["argv"])
    done.set()
    process.flush_streams()  # the worker's last words before the started process exits
    try:
        conn.sendall(f"{status}\n".encode("ascii"))
    except OSError:
        pass
    return status


def run_worker(argv) -> int:
    """Run Beam's SDK worker; returns its exit status (0, or the status it exited with)."""
    from apache_beam.runners.worker import sdk_worker_main
    try:
        sdk_worker_main.main(list(argv))
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # pylint: disable=broad-except  (reported as Beam's worker would, then status 1)
        traceback.print_exc()
        return 1
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="the warm SDK worker processes of the local runner (internal)")
    parser.add_argument("--serve", required=True, help="directory of the N Unix sockets to bind and serve")
    parser.add_argument("--count", type=int, default=1, help="worker processes (the zygote forks N-1)")
    parser.add_argument("--control", type=int, required=True, help="file descriptor of the driver's control socket")
    parser.add_argument("--preload", default="", help="comma-separated modules to import first")
    args = parser.parse_args(argv)
    from pipelines.framework import credentials  # pylint: disable=import-outside-toplevel
    credentials.install([])  # forked workers inherit it: Beam's worker logs its options, credentials among them
    return zygote(args.serve, args.count, args.preload.split(","), args.control)


if __name__ == "__main__":
    process.exit_now(main())
