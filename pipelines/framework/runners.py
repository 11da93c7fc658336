"""Choosing and configuring the Beam runner.

`--runner local` (the default) is Beam's portable in-process runner
(`FnApiRunner`) chosen explicitly: recent `DirectRunner`s first try to
download the Prism binary, and this project must never touch the network.
With `--num_workers N > 1` it runs N SDK worker processes
(`direct_running_mode=multi_processing`); with 1 it runs in-process, unless
Beam's own `--direct_running_mode multi_processing` is given (one worker
process apart from the driver, as with N > 1: the fair baseline for scaling).

`--runner dask` runs on a `dask.distributed` cluster (`--dask_address`, or a
LocalCluster of `--num_workers` processes) through `pipelines.framework.dask_runner`.

`--runner flink` (with `--flink_master HOST:PORT`) and `--runner spark` (with
`--spark_master_url spark://HOST:PORT`) are Beam's FlinkRunner and SparkRunner
with the job server, the environment and the parallelism chosen by
`pipelines.framework.engines.submission` (the job server from the cache `make engines`
filled, never downloaded; for a cluster on this machine, SDK worker processes
started here; parallelism from the cluster's task slots).

Any other runner name is handed to Beam unchanged together with every option
the job does not know itself (`--project`, `--region`, `--temp_location`,
`--job_endpoint`, `--environment_type`, ...).
"""
import collections
import contextlib
import logging
import os
import re
import signal
import threading
import time
import typing
import weakref

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from pipelines.framework.engines.options import beam_option
from pipelines.framework.workers.warm import THREAD_VARIABLES, thread_variables  # noqa: F401  (re-exported)

LOG = logging.getLogger("rewrite_mine")

LOCAL = "local"
DASK = "dask"
FLINK = "flink"
SPARK = "spark"
ENGINES = (FLINK, SPARK)


def use_filesystem_options(beam_args) -> None:
    """Give Beam's filesystems the run's options at the driver, before any pipeline exists.

    The driver reads and writes through `FileSystems` before the pipeline is built (the inputs are
    matched and checksummed, the staging directory marked, a published manifest read) and after it ran
    (manifest, card, publication). A pipeline hands its options to `FileSystems` only when it is
    constructed, and S3's endpoint and credentials (`--s3_endpoint_url`, `--s3_access_key_id`, ...) or
    GCS's project are options: without this the driver would talk to AWS's default endpoint with
    whatever credentials boto3 finds, while the workers use the ones given."""
    from apache_beam.io.filesystems import FileSystems  # pylint: disable=import-outside-toplevel
    FileSystems.set_options(PipelineOptions(list(beam_args)))


def make_options(args, beam_args) -> PipelineOptions:
    runner = (args.runner or LOCAL)
    extra = dict(save_main_session=False)
    if runner.lower() == LOCAL:
        mode = "multi_processing" if args.num_workers > 1 else "in_memory"
        if any(a == "--direct_running_mode" or a.startswith("--direct_running_mode=") for a in beam_args):
            mode = PipelineOptions(list(beam_args)).get_all_options()["direct_running_mode"]
        extra.update(direct_running_mode=mode, direct_num_workers=args.num_workers)
    elif runner.lower() in ENGINES:
        from pipelines.framework.engines.submission import submission as engine_submission
        from pipelines.framework.workers.warm import preload_for
        submission = engine_submission(runner.lower(), beam_args,
                                       preload=preload_for(bool(getattr(args, "validation", False))),
                                       own_job_server=bool(getattr(args, "own_job_server", False)))
        extra.update(submission.options)
        if submission.pool is not None:
            # Beam stages the output of `pip freeze` with every portable job, so that workers can warn of
            # packages unlike the driver's (0.4-1 s of each submission here, a subprocess). The workers this
            # run starts (EXTERNAL) are processes of this very interpreter: there is nothing to compare.
            beam_args = list(beam_args) + ["--experiments=disable_logging_submission_environment"]
        if not beam_option(beam_args, "job_name"):
            extra["job_name"] = engine_job_name(args.output)  # the next run finds it if this driver is killed
        args._engine = submission  # run_and_wait starts its job server and worker pool; the manifest says which
    elif runner.lower() != DASK:
        extra["runner"] = runner
    return PipelineOptions(list(beam_args), **extra)


def engine_job_name(output: str) -> str:
    """The name of a run's job on Flink or Spark: from its `--output` as the run sees it (the staging root
    `OUTPUT/_staging/<dataset>-<fingerprint>`), so every run of the same command gives the same name and a
    later run finds the job of one whose driver was killed (`stop_orphaned_job`)."""
    base = os.path.basename(str(output).rstrip("/")) or "output"
    return "rewrite-mine-" + "".join(c if c.isalnum() or c in "-_." else "-" for c in base)


#: Flink job states of a job that still runs or may run again.
_FLINK_ACTIVE = ("INITIALIZING", "CREATED", "RUNNING", "FAILING", "CANCELLING", "RESTARTING", "RECONCILING",
                 "SUSPENDED")


def _driver_alive(marker: dict) -> bool:
    """Whether the driver that wrote a staging marker (pid and host) still runs; False when it cannot tell."""
    import socket  # pylint: disable=import-outside-toplevel
    pid = marker.get("pid")
    if not isinstance(pid, int) or pid == os.getpid() or marker.get("host") != socket.gethostname():
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return False
    return _process_alive(pid) and ("pipelines" in cmd or "rewrite-mine" in cmd)


def stop_orphaned_job(args, beam_args, staging_root: str, marker: typing.Optional[dict],
                      timeout_s: float = 120.0) -> typing.List[str]:
    """Cancel the Flink job an earlier run of this command left running when its driver was killed; the
    cancelled job ids.

    Flink keeps a submitted job when its client (Beam's job server: a run's own ends with the driver, one
    the cluster keeps stays) goes, and
    that job still writes into the staging directory the new run is about to empty and write again. It
    is found by its name (`engine_job_name`) on the cluster at this run's `--flink_master`, and cancelled
    only when the marker the earlier run left (`marker`: its pid and host) shows that its driver is
    dead. Spark needs nothing: its driver lives in Beam's job server, and the application ends with it.

    Raises:
      JobFailed: the job did not end within `timeout_s` of being cancelled.
    """
    if (getattr(args, "runner", None) or LOCAL).lower() != FLINK or not marker or _driver_alive(marker):
        return []
    master = (beam_option(beam_args, "flink_master") or "").strip()
    master = master.split("://", 1)[-1].rstrip("/")
    name = beam_option(beam_args, "job_name") or engine_job_name(staging_root)
    if not master or master.startswith("["):
        return []
    from pipelines.framework.engines import daemons  # pylint: disable=import-outside-toplevel
    from pipelines.framework.errors import JobFailed  # pylint: disable=import-outside-toplevel
    import urllib.request  # pylint: disable=import-outside-toplevel
    try:
        jobs = daemons.get_json(f"http://{master}/jobs/overview").get("jobs", [])
    except Exception:  # noqa: BLE001 - no cluster there: nothing of it can still run; the run says so itself
        return []
    orphans = [j["jid"] for j in jobs if j.get("name") == name and j.get("state") in _FLINK_ACTIVE]
    for jid in orphans:
        LOG.warning("Flink job %s (%s) of an earlier run of this command, whose driver (pid %s) was killed, still "
                    "runs on %s and writes to %s: cancelling it", jid, name, marker.get("pid"), master, staging_root)
        request = urllib.request.Request(f"http://{master}/jobs/{jid}?mode=cancel", method="PATCH")
        with urllib.request.urlopen(request, timeout=10):  # noqa: S310 - the user's cluster
            pass
    deadline = time.time() + timeout_s
    for jid in orphans:
        while daemons.get_json(f"http://{master}/jobs/{jid}").get("state") in _FLINK_ACTIVE:
            if time.time() > deadline:
                raise JobFailed(f"the Flink job {jid} of an earlier run of this command (its driver was killed) "
                                f"still runs on {master} {timeout_s:.0f} s after it was cancelled; cancel it "
                                f"(http://{master}/#/job/running) and re-run the same command")
            time.sleep(1.0)
    return orphans


#: The module each worker process of the local runner runs: Beam's SDK worker, ending without the
#: interpreter's teardown (pipelines/framework/workers/sdk_worker_main.py).
WORKER_MODULE = "pipelines.framework.workers.sdk_worker_main"
BEAM_WORKER_MODULE = "apache_beam.runners.worker.sdk_worker_main"


def local_runner():
    """Beam's `FnApiRunner` whose worker processes (multi_processing) run `WORKER_MODULE`."""
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from apache_beam.transforms import environments

    class LocalRunner(FnApiRunner):
        """`FnApiRunner.run_pipeline` builds the worker command line itself
        ("python -m apache_beam.runners.worker.sdk_worker_main"); while it runs, the environment it
        builds from that line names `WORKER_MODULE` instead. With `warm_pool` set (`make_pipeline`),
        the worker processes it starts hand their work to the pool's warm processes."""

        warm_pool = None

        def run_pipeline(self, pipeline, options):
            pool, self.warm_pool = self.warm_pool, None
            if pool is None:
                return self._run_pipeline(pipeline, options)
            try:
                with pool.offered():
                    return self._run_pipeline(pipeline, options)
            finally:
                pool.close()

        def _run_pipeline(self, pipeline, options):
            cls = environments.SubprocessSDKEnvironment
            raw = cls.__dict__["from_command_string"]
            original = cls.from_command_string

            def from_command_string(command_string, *a, **k):
                return original(command_string.replace(BEAM_WORKER_MODULE, WORKER_MODULE), *a, **k)

            cls.from_command_string = staticmethod(from_command_string)
            # Beam's FnApiRunner gives its worker processes no pipeline options (an empty provision info),
            # so their filesystems knew no s3:// endpoint nor credentials ("Unable to locate credentials"
            # writing the rejects); they get the run's options, as every portable runner's workers do.
            from apache_beam.runners.portability.portable_runner import JobServiceHandle
            self._provision_info.provision_info.pipeline_options.CopyFrom(
                JobServiceHandle.encode_pipeline_options(options.get_all_options()))
            try:
                return super().run_pipeline(pipeline, options)
            finally:
                cls.from_command_string = raw

    return LocalRunner()


def make_runner(args):
    runner = (args.runner or LOCAL).lower()
    if runner == LOCAL:
        close_workers_concurrently()
        return local_runner()
    if runner == DASK:
        return make_dask_runner(args)
    return None  # Beam resolves the name from the options


def make_dask_runner(args):
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise RuntimeError("--runner dask needs the dask extra: pip install -c constraints.txt "
                           "'rewrite-mining[dask]'") from e
    from pipelines.framework.dask_runner import DaskRunner
    from pipelines.framework.workers.warm import in_process_preload
    return DaskRunner(address=args.dask_address, num_workers=args.num_workers,
                      preload=in_process_preload(bool(getattr(args, "validation", False))))


def _close_all_concurrently(self):
    """`WorkerHandlerManager.close_all`, closing every worker handler at once."""
    handlers = [h for handler_list in self._cached_handlers.values() for h in set(handler_list)]

    def close(handler):
        try:
            handler.close()
        except Exception:  # pylint: disable=broad-except  (as Beam's own close_all: log and go on)
            LOG.error("error closing worker handler %s", handler, exc_info=True)

    threads = [threading.Thread(target=close, args=(h,), name=f"close-{i}") for i, h in enumerate(handlers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    self._cached_handlers = collections.defaultdict(list)
    self._workers_by_id = {}


_close_all_concurrently.rewrite_mine = True


def close_workers_concurrently():
    """Make the local runner stop its SDK worker processes in parallel, not one after the other.

    Beam 2.61's `WorkerHandlerManager.close_all` closes the handlers in turn
    and each close waits for its worker process to exit, which takes ~1.6 s
    once TensorFlow (TFDV) and spaCy are loaded: with N workers, N x 1.6 s of
    serial wall time at the end of every run. Same handlers, same close()
    calls, same error handling; only the waiting overlaps. Idempotent.
    """
    from apache_beam.runners.portability.fn_api_runner import worker_handlers
    if getattr(worker_handlers.WorkerHandlerManager.close_all, "rewrite_mine", False):
        return
    worker_handlers.WorkerHandlerManager.close_all = _close_all_concurrently


# `rewrite-mine all` builds several jobs into one pipeline: while a pipeline is shared here,
# `make_pipeline` hands it out instead of a new one (see pipelines/all.py).
_SHARED = []


@contextlib.contextmanager
def shared_pipeline(pipeline: beam.Pipeline):
    """Within this block every `make_pipeline` call returns `pipeline` (one DAG for several jobs)."""
    _SHARED.append(pipeline)
    try:
        yield pipeline
    finally:
        _SHARED.pop()


def make_pipeline(args, beam_args) -> beam.Pipeline:
    if _SHARED:
        return _SHARED[-1]
    options = make_options(args, beam_args)
    runner = make_runner(args)
    start_warm_workers(runner, args, options)
    return beam.Pipeline(runner=runner, options=options)


def start_warm_workers(runner, args, options):
    """The local runner's multi-process mode: its worker processes, warm (pipelines/framework/
    workers/warm.py): the pool `rewrite-mine` started before it imported the job when it is the one these
    options need, else one started now; either way they import while the driver builds the pipeline."""
    from pipelines.framework.workers import warm
    if getattr(runner, "warm_pool", False) is not None or not warm.enabled():
        warm.discard_early(forks=False)
        return
    opts = options.get_all_options()
    if opts.get("direct_running_mode") != "multi_processing":
        warm.discard_early(forks=False)
        return
    n = max(1, int(opts.get("direct_num_workers") or 1))
    preload = warm.preload_for(bool(getattr(args, "validation", False)))
    env = warm.worker_environment(n)  # thread counts as `worker_threads` gives them
    pool = warm.adopt(n, preload, env) or warm.Pool(n, preload, env=env)
    runner.warm_pool = pool
    weakref.finalize(runner, pool.close)  # a pipeline built and never run: its warm workers go with it


# ------------------------------------------------------------------ running and faults

class WorkerDied(RuntimeError):
    """An SDK worker process died mid-run (e.g. killed, out of memory) and the run failed for it: one of
    the local multi-process runner's, or one an engine's tasks ran in (Beam's EXTERNAL environment)."""


def _descendants(pid: int, stop: typing.Optional[typing.Callable[[str], bool]] = None) -> typing.Dict[int, str]:
    """{pid: command line} of every descendant process of `pid` (Linux /proc; {} elsewhere); the
    descendants of a process whose command line satisfies `stop` are left out."""
    children: typing.Dict[int, typing.List[int]] = {}
    cmdlines: typing.Dict[int, str] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
            rest = stat[stat.rindex(")") + 2:].split()
            if rest[0] == "Z":  # a zombie is a dead process
                continue
            ppid = int(rest[1])
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdlines[int(name)] = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    out, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out[child] = cmdlines.get(child, "")
            if stop is None or not stop(out[child]):
                todo.append(child)
    return out


def _is_warm_worker(cmd: str) -> bool:
    return "pipelines.framework.workers.warm" in cmd and not cmd.startswith("/bin/sh")


def _is_sdk_worker(cmd: str) -> bool:
    return "sdk_worker_main" in cmd and not cmd.startswith("/bin/sh") and not _is_warm_worker(cmd)


def sdk_worker_pids(pid: typing.Optional[int] = None) -> typing.List[int]:
    """The SDK worker processes (`apache_beam.runners.worker.sdk_worker_main`) under `pid` (default: this one)."""
    # A worker's own children are not workers: a subprocess it starts (SimSim's apertium) carries the
    # worker's command line between fork and exec, and would be taken for a worker that then died.
    # Warm worker processes are not listed either (pipelines/framework/workers/warm.py): one that dies
    # unclaimed costs nothing (the worker Beam starts runs itself), and a claimed one's death reaches
    # the watchdog through the started process, which exits with it.
    procs = _descendants(os.getpid() if pid is None else pid,
                         stop=lambda cmd: _is_sdk_worker(cmd) or _is_warm_worker(cmd))
    return sorted(p for p, cmd in procs.items() if _is_sdk_worker(cmd))


class _WorkerWatchdog:
    """Beam's FnApiRunner waits forever for a multi-process SDK worker that died: detect it and fail.

    A worker seen alive and then gone while the pipeline still runs after `grace_s`
    (workers also stop when a run ends normally) interrupts the main thread.
    """

    def __init__(self, grace_s: float = 10.0, poll_s: float = 0.5, resend_s: float = 5.0):
        self.grace_s, self.poll_s, self.resend_s = grace_s, poll_s, resend_s
        self.dead: typing.List[int] = []
        self.fired = False  # the watchdog interrupted the main thread
        self._seen: typing.Set[int] = set()
        self._died_at: typing.Optional[float] = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="sdk-worker-watchdog", daemon=True)

    def __enter__(self):
        # A process started in the background by a non-interactive shell (`nohup rewrite-mine ... &`,
        # CI scripts) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler:
        # the watchdog's signal would be lost and the driver wait forever. Handled while we watch.
        self._saved_handler = signal.getsignal(signal.SIGINT)
        if self._saved_handler in (signal.SIG_IGN, signal.SIG_DFL, None):
            signal.signal(signal.SIGINT, signal.default_int_handler)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._saved_handler in (signal.SIG_IGN, signal.SIG_DFL):
            signal.signal(signal.SIGINT, self._saved_handler)
        return False

    def check(self) -> typing.List[int]:
        """Look at the process table once: the workers seen alive before and gone now join `dead`."""
        with self._lock:
            alive = set(sdk_worker_pids())
            gone = self._seen - alive
            self._seen |= alive
            if gone and self._died_at is None:
                self._died_at = time.time()
                self.dead = sorted(gone)
            return self.dead

    def settle(self, wait_s: float = 2.0) -> typing.List[int]:
        """The dead workers, looked for now: Beam may notice a killed worker's broken channel and raise
        before the next poll has seen it gone (seen in CI: "Channel closed prematurely" 0.3 s after the
        kill). A channel breaks as its process dies, so a few looks over `wait_s` are enough."""
        deadline = time.time() + wait_s
        while not self.check() and time.time() < deadline:
            time.sleep(0.1)
        return self.dead

    def _watch(self):
        while not self._stop.wait(self.poll_s):
            self.check()
            died_at = self._died_at
            if died_at is not None and time.time() - died_at >= self.grace_s and not self._stop.is_set():
                if not self.fired:
                    LOG.error("SDK worker process(es) %s died; stopping the run", self.dead)
                self.fired = True
                # A real signal: it also wakes a main thread blocked on a lock (interrupt_main would not).
                os.kill(os.getpid(), signal.SIGINT)
                # Sent again until the run stops, in case code the main thread is in swallows one.
                with self._lock:
                    self._died_at = time.time() - self.grace_s + self.resend_s

    def kill_survivors(self):
        for pid in sdk_worker_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@contextlib.contextmanager
def worker_threads(num_workers: int, cpus: typing.Optional[int] = None):
    """While the local runner starts its N worker processes, each gets cores / N threads for its
    numerical libraries (PyTorch, BLAS): each would otherwise take every core, and N of them fight.

    Measured (BERTScore, MiniLM, 384 pairs, 2 cores, 2 processes at once): 17.2 s each with 2
    threads, 11.9 s with 1. The workers inherit the driver's environment when they start; a
    variable the user has set is left alone, and the driver's environment is restored afterwards.
    """
    if num_workers <= 1:
        yield
        return
    saved = {k: os.environ.get(k) for k in THREAD_VARIABLES}
    for k, v in thread_variables(num_workers, cpus).items():
        os.environ.setdefault(k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# What the runner raises when a worker's gRPC channel breaks under it (a killed worker, seen before the
# watchdog's grace period is over); a DoFn's own error comes back as "Error received from SDK harness".
_LOST_CHANNEL = ("Channel closed prematurely", "Socket closed", "StatusCode.UNAVAILABLE", "RpcError")


def _lost_channel(e: BaseException) -> bool:
    text = f"{type(e).__name__}: {e}"
    return any(mark in text for mark in _LOST_CHANNEL)


# What an engine reports when the SDK worker a task ran in is gone: Beam's Java runner loses its gRPC
# channel to it (a restarted task sent to the dead worker again reads "CANCELLED: call already cancelled").
_ENGINE_LOST_WORKER = ("CANCELLED", "UNAVAILABLE", "call already cancelled", "Channel closed", "Socket closed",
                       "Connection reset", "connection closed", "Broken pipe")
# ... and what it reports when it lost a machine (a TaskManager, an executor): the workers that died with
# it are not the cause then.
_ENGINE_LOST_MACHINE = ("TaskManager with id", "is no longer reachable", "ExecutorLostFailure", "Executor lost",
                        "Lost executor", "Worker lost")
# ... and a Python error of the job's own code, raised in a worker that was alive.
_HARNESS_ERROR = ("Error received from SDK harness", "Traceback (most recent call last)")


def _process_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b") ", 1)[1][:1] != b"Z"
    except (OSError, IndexError):
        return False


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read().decode("utf-8", "replace")
    return int(stat[stat.rindex(")") + 2:].split()[1])


POOL_MODULE = "-m pipelines.framework.workers.external_pool"


def engine_worker_pids(pid: typing.Optional[int] = None) -> typing.List[int]:
    """The SDK worker processes the engine worker pool of the driver `pid` (default: this process) runs for
    a Flink TaskManager or Spark executor (pipelines/framework/workers/external_pool.py): the children of its fork
    server, and workers it started as processes of their own. Not the fork server itself: a forked worker
    keeps its command line ("--fork-server ... --preload apache_beam.runners.worker.sdk_worker_main,..."),
    so only the parent tells them apart."""
    pid = os.getpid() if pid is None else pid
    procs = _descendants(pid)
    parents = {}
    for p in procs:
        try:
            parents[p] = _parent_of(p)
        except (OSError, ValueError, IndexError):
            continue
    mine = {p for p, cmd in procs.items() if POOL_MODULE in cmd and parents.get(p) == pid}
    servers = {p for p in mine if "--fork-server" in procs[p]}
    forked = {p for p, parent in parents.items() if parent in servers}
    return sorted(forked | (mine - servers))


class _EngineWorkerWatch:
    """Which SDK worker processes of an engine run ended while the job still ran.

    A Flink TaskManager or Spark executor runs the job's Python code in SDK workers that this process's
    pool starts (Beam's EXTERNAL environment, pipelines/framework/workers/external_pool.py). When one is killed or
    runs out of memory, the engine's error names only Beam's broken gRPC call ("CANCELLED: call already
    cancelled"); `cause_of` names the workers. Looked at every `poll_s` (the process table only; nothing
    is signalled or changed).
    """

    def __init__(self, pool, poll_s: float = 0.5):
        self.pool = pool
        self.poll_s = poll_s
        self.seen: typing.Set[int] = set()
        self.ended: typing.Dict[int, float] = {}  # pid -> when it was first seen gone
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="engine-worker-watch", daemon=True)

    def __enter__(self):
        if self.pool is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        return False

    def check(self) -> None:
        alive = set(engine_worker_pids())
        now = time.time()
        for pid in self.seen - alive:
            self.ended.setdefault(pid, now)
        self.seen |= alive

    def _watch(self):
        while not self._stop.wait(self.poll_s):
            try:
                self.check()
            except Exception:  # noqa: BLE001 - a watch that fails must not fail the run
                LOG.debug("engine worker watch", exc_info=True)

    def cause_of(self, e: BaseException, before_s: float = 1.0) -> typing.Optional[str]:
        """The one-line cause of the run's failure `e` when SDK workers of the run died before it, else None.

        They count when they ended at least `before_s` before the failure (a job that fails for another
        reason closes its workers as it ends) and the engine's error is a lost gRPC channel: not a Python
        error of the job's own code, nor a lost TaskManager or executor (whose workers end with it).
        """
        if self.pool is None:
            return None
        self._stop.set()
        self.check()
        dead = sorted(pid for pid, when in self.ended.items() if when <= time.time() - before_s)
        text = f"{type(e).__name__}: {e}"
        if not dead or not any(m in text for m in _ENGINE_LOST_WORKER) or \
                any(m in text for m in _ENGINE_LOST_MACHINE + _HARNESS_ERROR):
            return None
        # What the engine said: the innermost exception's message (a Java chain "...Exception: ...Exception: X").
        said = " ".join((re.split(r"(?:Exception|Error):\s*", text)[-1].strip().splitlines() or [""])[0].split())
        said = said.split(". ")[0][:100]  # "CANCELLED: call already cancelled", not gRPC's advice after it
        return (f"SDK worker process(es) {dead} of this run died mid-run (killed, or out of memory), and the "
                f"engine's retries of their tasks failed too: Beam keeps a worker's environment cached in the "
                f"engine (--environment_cache_millis) and sent them to the dead one ({said})")


def run_and_wait(pipeline: beam.Pipeline, args):
    """Run `pipeline` and wait for it; returns the final state.

    Raises:
      WorkerDied: a local SDK worker process died mid-run (the local runner would hang).
    """
    mode = pipeline._options.get_all_options().get("direct_running_mode")  # pylint: disable=protected-access
    local = (args.runner or LOCAL).lower() == LOCAL
    local_multi = local and (getattr(args, "num_workers", 1) > 1 or mode == "multi_processing")
    # The pipeline is built: collect as usual from here (a no-op unless `rewrite-mine` deferred it). Run
    # in-process, the driver is the worker: it first imports what a warm worker would, frozen with the rest.
    from pipelines.framework.workers.process import resume_collection
    from pipelines.framework.workers.warm import in_process_preload
    resume_collection(in_process_preload(bool(getattr(args, "validation", False)))
                      if local and not local_multi else ())
    engine = getattr(args, "_engine", None)
    if engine is not None:
        # Thread counts first: the worker pool's fork server loads the numerical libraries as it starts. The
        # parallelism chosen for the run, or the one the user gave (which the submission's options leave out).
        parallelism = (engine.options.get("parallelism")
                       or pipeline._options.get_all_options().get("parallelism") or 1)  # pylint: disable=protected-access
        with worker_threads(parallelism), engine.running():
            if engine.options.get("job_endpoint"):  # the port the job server got, which may not be the first
                from apache_beam.options.pipeline_options import PortableOptions
                pipeline._options.view_as(PortableOptions).job_endpoint = engine.options["job_endpoint"]  # pylint: disable=protected-access
            watch = _EngineWorkerWatch(engine.pool)
            try:
                with watch:
                    return _run_with_progress(pipeline, args)
            except Exception as e:  # pylint: disable=broad-except
                died = watch.cause_of(e)
                if died is None:
                    raise
                raise WorkerDied(died) from None
    if not local_multi or threading.current_thread() is not threading.main_thread():
        return _run_with_progress(pipeline, args)
    watchdog = _WorkerWatchdog()
    try:
        with watchdog, worker_threads(getattr(args, "num_workers", 1)):
            return _run_with_progress(pipeline, args)
    except BaseException as e:  # pylint: disable=broad-except
        # After the watchdog's SIGINT the exception is usually KeyboardInterrupt, but code the main thread
        # was in may catch it and raise its own: whatever comes out then is the dead worker's doing. Before
        # the grace period is over, Beam itself may notice the broken channel and raise first (seen in CI).
        # (Not looked for after a Ctrl-C: the user's SIGINT reaches the workers too.)
        if _lost_channel(e) and not watchdog.dead:
            watchdog.settle()
        if not (watchdog.fired or (watchdog.dead and (isinstance(e, KeyboardInterrupt) or _lost_channel(e)))):
            raise
        watchdog.kill_survivors()
        raise WorkerDied(f"SDK worker process(es) {watchdog.dead} of the local runner died mid-run: killed, "
                         f"out of memory (try fewer --num_workers), or unable to start (workers connect to the "
                         f"driver over gRPC on localhost; a worker's own error, if any, is printed above or, "
                         f"run by rewrite-mine, in OUTPUT/logs/rewrite-mine-<job>.log)") from None


def _run_with_progress(pipeline: beam.Pipeline, args):
    """`pipeline.run().wait_until_finish()` with the live progress display (pipelines/framework/progress.py).

    Local and Dask runners: figures from the workers' side-channel files. Other runners: the job id
    and console URL are logged at submission (Dataflow) and the display reads the job's metrics.
    """
    from pipelines.framework import progress
    if not getattr(args, "progress", True):
        result = pipeline.run()
        progress.report_dataflow_submission(result, pipeline._options)  # pylint: disable=protected-access
        return result.wait_until_finish()
    interval = getattr(args, "progress_interval", progress.DEFAULT_INTERVAL_S)
    try:
        from transforms.read import expand_inputs
        total = progress.input_bytes(expand_inputs(args.input))
    except Exception:  # noqa: BLE001 - no total: the display shows no ETA
        total = 0
    runner = (args.runner or LOCAL).lower()
    engine = getattr(args, "_engine", None)
    if runner in (LOCAL, DASK) or (engine is not None and engine.pool is not None):
        # Workers on this machine (for an engine: the SDK worker processes its pool starts here).
        with progress.Monitor(total, interval):
            return pipeline.run().wait_until_finish()
    result = pipeline.run()
    progress.report_dataflow_submission(result, pipeline._options)  # pylint: disable=protected-access
    with progress.Monitor(total, interval, source=progress.metrics_source(result)):
        return result.wait_until_finish()
