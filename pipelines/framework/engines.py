"""Distributed engines: Flink and Spark clusters on this machine, Beam's job servers for them, and the
options that send a job there.

    rewrite-mine cluster start flink     a Flink session cluster on loopback: a JobManager and a
                                         TaskManager with 2 slots, REST API and web UI on localhost:8081
    rewrite-mine cluster start spark     a Spark standalone master (spark://127.0.0.1:7077, web UI on
                                         :8080) and a worker with 2 cores
    rewrite-mine cluster stop|status flink|spark

    rewrite-mine <job> ... --runner flink --flink_master HOST:PORT
    rewrite-mine <job> ... --runner spark --spark_master_url spark://HOST:PORT

The engines' files (Flink's and Spark's distributions, Beam's job servers) are fetched once, pinned, by
`make engines` (tools/engines.sh) into `.engines/` of the checkout, or `$REWRITE_MINE_ENGINES`; nothing
is downloaded while a job runs. A run on an engine is Beam's FlinkRunner / SparkRunner with the job
server started here from that cache (`JobServer`), and, for a cluster on this machine, Beam's EXTERNAL
environment served by a pool of SDK worker processes of this Python (`pipelines/framework/
worker_pool.py`): the engine's workers ask it for one Python worker per task slot. For a cluster on
other hosts, the user names the environment its workers can start (`--environment_type DOCKER
--environment_config IMAGE`, the worker image of the Dockerfile).
"""
import contextlib
import dataclasses
import getpass
import glob
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import typing
import urllib.error
import urllib.request

from pipelines.framework.errors import JobFailed
from pipelines.framework.worker_pool import ProcessWorkerPool, die_with_parent, free_port

LOG = logging.getLogger("rewrite_mine")

ENV_ENGINES = "REWRITE_MINE_ENGINES"
FLINK = "flink"
SPARK = "spark"
#: The Flink minor version Beam's job server is built for (tools/engines/flink-job-server.pom.xml).
FLINK_MINOR = "1.19"
# The restart strategy of the Flink clusters `rewrite-mine cluster start flink` starts (docs/RUNNERS.md
# gives the same settings for a user's own cluster): a failed task is retried 5 times, 5 s apart.
RESTART_ATTEMPTS = 5
RESTART_DELAY_S = 5
FETCH = "fetch them once with `make engines` (tools/engines.sh: Maven Central and PyPI)"
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0")


class EngineError(JobFailed):
    """An engine is missing, down or misconfigured; the message says what to do."""


# ------------------------------------------------------------------ the cached files

def engines_dir() -> str:
    """Where `make engines` put the engines: $REWRITE_MINE_ENGINES, else `.engines/` of this checkout."""
    configured = os.environ.get(ENV_ENGINES)
    if configured:
        return os.path.abspath(configured)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, ".engines")


def _find(pattern: str, what: str) -> str:
    hits = sorted(glob.glob(os.path.join(engines_dir(), pattern)))
    if not hits:
        raise EngineError(f"{what} is not in {engines_dir()}: {FETCH}, or point ${ENV_ENGINES} at a folder "
                          f"that has it")
    return hits[-1]


def flink_home() -> str:
    return os.path.dirname(os.path.dirname(_find("flink-*/pyflink/lib/flink-dist-*.jar", "Flink's distribution")))


def spark_home() -> str:
    return os.path.dirname(os.path.dirname(_find("spark-*/pyspark/jars/spark-core_*.jar", "Spark's distribution")))


def job_server_jar(engine: str) -> str:
    name = {FLINK: "beam-runners-flink-*-job-server-*.jar", SPARK: "beam-runners-spark-*-job-server-*.jar"}[engine]
    return _find(f"beam-*/{engine}-job-server/{name}", f"Beam's {engine.capitalize()} job server")


def flink_cluster_lib_jar() -> str:
    """Beam's runner classes without Flink's, for the classpath of a cluster started here ("" when not fetched)."""
    hits = sorted(glob.glob(os.path.join(engines_dir(), "beam-*", "flink-cluster-lib", "beam-runners-flink-*-lib.jar")))
    return hits[-1] if hits else ""


def _version_in(path: str, prefix: str) -> str:
    m = re.search(re.escape(prefix) + r"-(\d[\w.]*?)\.jar$", os.path.basename(path))
    return m.group(1) if m else ""


def flink_version(home: typing.Optional[str] = None) -> str:
    home = home or flink_home()
    jars = glob.glob(os.path.join(home, "lib", "flink-dist-*.jar"))
    return _version_in(jars[0], "flink-dist") if jars else ""


def spark_version(home: typing.Optional[str] = None) -> str:
    home = home or spark_home()
    jars = glob.glob(os.path.join(home, "jars", "spark-core_*.jar"))
    return re.sub(r"^spark-core_[\d.]+-", "", os.path.basename(jars[0]))[:-len(".jar")] if jars else ""


def job_server_version(jar: str) -> str:
    m = re.search(r"-job-server-(\d[\w.]*?)\.jar$", os.path.basename(jar))
    return m.group(1) if m else ""


# ------------------------------------------------------------------ small helpers

def need_java() -> str:
    java = shutil.which("java")
    if java is None:
        raise EngineError("Java is needed to run Flink, Spark and Beam's job servers and none is on PATH: install "
                          "Java 17 (Debian: sudo apt-get install -y openjdk-17-jre-headless)")
    return java


def port_taken(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def get_json(url: str, timeout_s: float = 5.0) -> typing.Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310 - http(s) of the user's cluster
        return json.loads(r.read().decode("utf-8"))


def get_text(url: str, timeout_s: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310
        return r.read().decode("utf-8", "replace")


def _why(e: BaseException) -> str:
    if isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError):
        e = e.reason if isinstance(e.reason, BaseException) else e
    text = str(e) or type(e).__name__
    return text.replace("[Errno 111] ", "")


def _host_of(address: str) -> str:
    address = re.sub(r"^[a-z]+://", "", address.strip())
    if address.startswith("["):
        return address[:address.index("]") + 1]
    return address.rsplit(":", 1)[0] if ":" in address else address


def is_local(address: str) -> bool:
    host = _host_of(address)
    return host in LOCAL_HOSTS or host in (socket.gethostname(), socket.getfqdn())


def _tail(path: str, lines: int = 12) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()
    except OSError:
        return ""


def _wait(condition: typing.Callable[[], typing.Any], timeout_s: float, poll_s: float = 0.5,
          failed: typing.Callable[[], typing.Optional[str]] = lambda: None):
    """Poll `condition` until it returns something true (returned) or `failed` names a failure (raised as
    EngineError) or `timeout_s` passes (None)."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            value = condition()
        except Exception:  # noqa: BLE001 - not up yet
            value = None
        if value:
            return value
        problem = failed()
        if problem:
            raise EngineError(problem)
        time.sleep(poll_s)
    return None


def _run_script(cmd: typing.List[str], env: dict, what: str) -> None:
    proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120, check=False)
    if proc.returncode != 0:
        raise EngineError(f"{what} failed (exit {proc.returncode}): "
                          f"{proc.stdout.decode('utf-8', 'replace').strip()[-800:]}")


def _pids(pattern: str) -> typing.List[int]:
    out = []
    for path in glob.glob(pattern):
        try:
            with open(path, encoding="utf-8") as f:
                out += [int(x) for x in f.read().split() if x.isdigit()]
        except OSError:
            continue
    return [p for p in out if _alive(p)]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().split(b") ", 1)[1][:1] != b"Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False


def _kill(pids: typing.Iterable[int], grace_s: float = 10.0) -> None:
    pids = [p for p in pids if _alive(p)]
    for p in pids:
        with contextlib.suppress(OSError):
            os.kill(p, 15)
    deadline = time.time() + grace_s
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    for p in pids:
        if _alive(p):
            with contextlib.suppress(OSError):
                os.kill(p, 9)


# ------------------------------------------------------------------ clusters on this machine

@dataclasses.dataclass
class FlinkCluster:
    """A Flink standalone session cluster on loopback: one JobManager and `taskmanagers` TaskManagers (JVMs).

    Its configuration, logs and pid files live in `workdir`; the distribution is left untouched. Each
    TaskManager i has its pid file in `workdir/tm-i` and a resource id `tm-i-<start>`, so the REST API's
    TaskManager ids (and the subtasks that ran on them) name their process.

    Restarts: a job whose task fails (a TaskManager or an SDK worker died) is restarted `restart_attempts`
    times, `restart_delay_s` apart (Flink's fixed-delay strategy, the failed region only); 0: none, the
    job fails at once. A restarted job finishes with the same records: every stage is deterministic and
    the output is published by the driver only after the job FINISHED (publication.py). Losing a
    TaskManager for good is survived when the others have the job's `--parallelism` in free slots.
    """
    workdir: str
    port: int = 8081  # REST API and web UI (the address jobs are submitted to: --flink_master localhost:PORT)
    slots: int = 2  # per TaskManager
    rpc_port: int = 6123
    taskmanager_memory: str = "3072m"
    taskmanagers: int = 1
    restart_attempts: int = RESTART_ATTEMPTS
    restart_delay_s: int = RESTART_DELAY_S
    home: typing.Optional[str] = None
    #: A jar of Beam's runner classes put on the cluster's own classpath (see `write_lib`): by default the
    #: one `make engines` built; "" for none (a cluster as users have them: Beam comes with each job).
    beam_lib: typing.Optional[str] = None

    def __post_init__(self):
        if self.beam_lib is None:
            self.beam_lib = flink_cluster_lib_jar()

    @property
    def master(self) -> str:
        return f"localhost:{self.port}"

    @property
    def rest_url(self) -> str:
        return f"http://localhost:{self.port}"

    def _home(self) -> str:
        self.home = self.home or flink_home()
        return self.home

    def _env(self) -> dict:
        env = dict(os.environ)
        env.update(FLINK_CONF_DIR=os.path.join(self.workdir, "conf"), FLINK_LOG_DIR=os.path.join(self.workdir, "log"),
                   FLINK_PID_DIR=self.workdir, FLINK_LIB_DIR=os.path.join(self.workdir, "lib"))
        env.pop("FLINK_HOME", None)
        return env

    def write_lib(self) -> str:
        """`workdir/lib`: the distribution's lib/, plus Beam's runner classes when a jar of them is given.

        Why Beam on the cluster's classpath: a job's classes live in a class loader of its own that Flink
        drops whenever no task of the job runs, which happens between its pipelined regions; Beam's
        runner keeps its Python workers in static caches of those classes, so every region started new
        SDK workers (some 30 a Discovery run, each loading its models again). Loaded parent-first from
        here (`classloader.resolve-order: parent-first`: the job's staged copy of the same classes is then
        never used, and no class exists twice), the caches live as long as the cluster.
        """
        lib = os.path.join(self.workdir, "lib")
        shutil.rmtree(lib, ignore_errors=True)
        os.makedirs(lib)
        for name in os.listdir(os.path.join(self._home(), "lib")):
            os.symlink(os.path.join(self._home(), "lib", name), os.path.join(lib, name))
        if self.beam_lib:
            os.symlink(os.path.abspath(self.beam_lib), os.path.join(lib, os.path.basename(self.beam_lib)))
        return lib

    def write_conf(self) -> str:
        """`workdir/conf`: the distribution's conf/ with this cluster's ports, slots and memory."""
        import yaml  # pylint: disable=import-outside-toplevel  (a dependency of apache-beam)
        src = os.path.join(self._home(), "conf")
        conf = os.path.join(self.workdir, "conf")
        os.makedirs(conf, exist_ok=True)
        for name in os.listdir(src):
            if name != "config.yaml":
                shutil.copy(os.path.join(src, name), os.path.join(conf, name))
        with open(os.path.join(src, "config.yaml"), encoding="utf-8") as f:
            base = yaml.safe_load(f) or {}
        java_opts = (((base.get("env") or {}).get("java") or {}).get("opts") or {}).get("all", "")
        tmp = os.path.join(self.workdir, "tmp")
        os.makedirs(tmp, exist_ok=True)
        settings = {
            "env.java.opts.all": java_opts,  # Java 17's --add-opens, as the distribution has them
            "jobmanager.bind-host": "localhost", "jobmanager.rpc.address": "localhost",
            "jobmanager.rpc.port": self.rpc_port, "jobmanager.memory.process.size": "1600m",
            "jobmanager.execution.failover-strategy": "region",
            "taskmanager.bind-host": "localhost", "taskmanager.host": "localhost",
            "taskmanager.numberOfTaskSlots": self.slots, "taskmanager.memory.process.size": self.taskmanager_memory,
            # A Beam job is some 200 operators, all deployed at once in each slot, and each blocking result
            # partition asks for 512 network buffers (sort-shuffle's minimum) by default: the network memory
            # runs out ("Insufficient number of network buffers: required 512, but only 370 available",
            # apache/beam#34450). 64 buffers (2 MB) per partition and more network memory are enough here.
            "taskmanager.memory.network.fraction": 0.2,
            "taskmanager.memory.network.max": "1gb",
            "taskmanager.network.sort-shuffle.min-buffers": 64,
            # Beam's gRPC channels to the SDK workers allocate direct memory, counted as the tasks'
            # off-heap memory, which is 0 by default ("Cannot reserve 2097152 bytes of direct buffer
            # memory" broke a worker's data channel mid-run).
            "taskmanager.memory.task.off-heap.size": "512m",
            "parallelism.default": self.slots,
            # A task that fails is restarted, not the job failed: a dump-scale job loses a machine now and
            # then. Heartbeats on loopback: a dead TaskManager is noticed in seconds, not Flink's 50 s.
            **({"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": self.restart_attempts,
                "restart-strategy.fixed-delay.delay": f"{self.restart_delay_s} s"}
               if self.restart_attempts > 0 else {"restart-strategy.type": "none"}),
            "heartbeat.interval": 4000, "heartbeat.timeout": 20000,
            "rest.address": "localhost", "rest.bind-address": "localhost", "rest.port": self.port,
            "io.tmp.dirs": tmp,
            "web.tmpdir": tmp,
        }
        if self.beam_lib:
            settings["classloader.resolve-order"] = "parent-first"
        with open(os.path.join(conf, "config.yaml"), "w", encoding="utf-8") as f:
            f.write("# Written by rewrite-mine cluster start flink (pipelines/framework/engines.py)\n")
            for key, value in settings.items():
                f.write(f"{key}: {json.dumps(value) if isinstance(value, str) else value}\n")
        return conf

    def overview(self) -> dict:
        return get_json(f"{self.rest_url}/overview", timeout_s=2)

    def running(self) -> bool:
        try:
            return bool(self.overview())
        except Exception:  # noqa: BLE001
            return False

    def start(self, timeout_s: float = 180.0) -> "FlinkCluster":
        need_java()
        home = self._home()
        for port, what in ((self.port, "REST port"), (self.rpc_port, "JobManager RPC port")):
            if port_taken(port):
                raise EngineError(f"cannot start Flink: its {what} {port} is already in use (another Flink cluster? "
                                  f"`rewrite-mine cluster status flink`; or choose other ports: "
                                  f"rewrite-mine cluster start flink --port N --rpc_port M)")
        os.makedirs(os.path.join(self.workdir, "log"), exist_ok=True)  # flink-daemon.sh writes there, never creates it
        self.write_lib()
        self.write_conf()
        env = self._env()
        _run_script([os.path.join(home, "bin", "jobmanager.sh"), "start"], env, "Flink's jobmanager.sh start")
        for i in range(self.taskmanagers):
            self.start_taskmanager(index=i)
        log_dir = os.path.join(self.workdir, "log")

        def died():
            if not _pids(os.path.join(self.workdir, "*standalonesession*.pid")):
                logs = sorted(glob.glob(os.path.join(log_dir, "*standalonesession*.log")))
                return f"Flink's JobManager exited during start; its log ({logs[-1] if logs else log_dir}) ends: " + \
                    (_tail(logs[-1]) if logs else "")
            return None

        total = self.slots * self.taskmanagers
        ready = _wait(lambda: (lambda o: o if o.get("slots-total", 0) >= total else None)(self.overview()),
                      timeout_s, failed=died)
        if not ready:
            self.stop()
            raise EngineError(f"Flink did not show {total} task slots at {self.rest_url}/overview within "
                              f"{timeout_s:.0f} s; logs: {log_dir}")
        LOG.debug("Flink %s session cluster at %s: %s", ready.get("flink-version"), self.rest_url, ready)
        return self

    def start_taskmanager(self, wait_s: float = 0.0, index: typing.Optional[int] = None) -> None:
        """Start TaskManager `index` (default: the first of the cluster's that is not running, e.g. after one
        died); with `wait_s`, wait until the cluster's slots are all free again."""
        if index is None:
            index = next((i for i in range(self.taskmanagers) if not self.taskmanager_pids(i)), self.taskmanagers)
        env = self._env()
        env["FLINK_PID_DIR"] = os.path.join(self.workdir, f"tm-{index}")
        os.makedirs(env["FLINK_PID_DIR"], exist_ok=True)
        resource_id = f"tm-{index}-{int(time.time() * 1000)}"
        _run_script([os.path.join(self._home(), "bin", "taskmanager.sh"), "start", "-D",
                     f"taskmanager.resource-id={resource_id}"], env, "Flink's taskmanager.sh start")
        want = self.slots * self.taskmanagers
        if wait_s and not _wait(lambda: self.overview().get("slots-available", 0) >= want, wait_s):
            raise EngineError(f"Flink's TaskManager did not register {self.slots} slots at {self.rest_url} within "
                              f"{wait_s:.0f} s; logs: {os.path.join(self.workdir, 'log')}")

    def taskmanager_pids(self, index: typing.Optional[int] = None) -> typing.List[int]:
        """The TaskManagers' processes (all, or TaskManager `index`'s)."""
        which = "*" if index is None else str(index)
        return _pids(os.path.join(self.workdir, f"tm-{which}", "*taskexecutor*.pid")) + \
            (_pids(os.path.join(self.workdir, "*taskexecutor*.pid")) if index is None else [])

    def taskmanager_pid_of(self, resource_id: str) -> typing.Optional[int]:
        """The process of the TaskManager the REST API names `resource_id` (tm-<index>-<start>)."""
        parts = resource_id.split("-")
        if len(parts) < 2 or parts[0] != "tm" or not parts[1].isdigit():
            return None
        pids = self.taskmanager_pids(int(parts[1]))
        return pids[-1] if pids else None

    def jobmanager_pids(self) -> typing.List[int]:
        return _pids(os.path.join(self.workdir, "*standalonesession*.pid"))

    def stop(self) -> None:
        _kill(self.taskmanager_pids() + self.jobmanager_pids())
        for path in glob.glob(os.path.join(self.workdir, "*.pid")):
            with contextlib.suppress(OSError):
                os.remove(path)

    def jobs(self) -> typing.List[dict]:
        return get_json(f"{self.rest_url}/jobs/overview").get("jobs", [])

    def job(self, jid: str) -> dict:
        return get_json(f"{self.rest_url}/jobs/{jid}")


@dataclasses.dataclass
class SparkCluster:
    """A Spark standalone cluster on loopback: a master and `workers` workers (JVMs, Spark's own daemons).

    Worker i is spark-daemon.sh's instance i + 1 (its pid file says so) with its web UI on
    `worker_ui_port + i`. A worker that dies takes its executor with it (Spark's WorkerWatcher); the
    driver re-runs the lost tasks on the other executors (and a lost shuffle's map stage), so a job
    finishes with the same records while one worker is left.
    """
    workdir: str
    port: int = 7077
    ui_port: int = 8080
    worker_ui_port: int = 8082
    cores: int = 2  # per worker
    memory: str = "4g"
    home: typing.Optional[str] = None
    workers: int = 1

    @property
    def master_url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    @property
    def ui_url(self) -> str:
        return f"http://127.0.0.1:{self.ui_port}"

    def _home(self) -> str:
        self.home = self.home or spark_home()
        return self.home

    def _env(self) -> dict:
        env = dict(os.environ)
        env.update(SPARK_HOME=self._home(), SPARK_LOG_DIR=os.path.join(self.workdir, "log"),
                   SPARK_PID_DIR=self.workdir, SPARK_WORKER_DIR=os.path.join(self.workdir, "work"),
                   SPARK_LOCAL_IP="127.0.0.1", SPARK_LOCAL_DIRS=os.path.join(self.workdir, "tmp"),
                   SPARK_IDENT_STRING=getpass.getuser())
        env.pop("SPARK_CONF_DIR", None)
        return env

    def status(self) -> dict:
        return get_json(f"{self.ui_url}/json/", timeout_s=2)

    def running(self) -> bool:
        try:
            return self.status().get("status") == "ALIVE"
        except Exception:  # noqa: BLE001
            return False

    def _daemon(self, action: str, cls: str, *args: str, instance: int = 1) -> None:
        _run_script([os.path.join(self._home(), "sbin", "spark-daemon.sh"), action, cls, str(instance), *args],
                    self._env(), f"Spark's spark-daemon.sh {action} {cls.rsplit('.', 1)[-1]}")

    def start(self, timeout_s: float = 180.0) -> "SparkCluster":
        need_java()
        for port, what in ((self.port, "master port"), (self.ui_port, "master web UI port"),
                           *((self.worker_ui_port + i, "worker web UI port") for i in range(self.workers))):
            if port_taken(port):
                raise EngineError(f"cannot start Spark: its {what} {port} is already in use (another Spark cluster? "
                                  f"`rewrite-mine cluster status spark`; or choose other ports: "
                                  f"rewrite-mine cluster start spark --port N --ui_port M --worker_ui_port K)")
        for sub in ("log", "work", "tmp"):
            os.makedirs(os.path.join(self.workdir, sub), exist_ok=True)
        self._daemon("start", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                     str(self.port), "--webui-port", str(self.ui_port))
        if not _wait(self.running, timeout_s, failed=self._died("Master")):
            self.stop()
            raise EngineError(f"Spark's master did not answer at {self.ui_url}/json/ within {timeout_s:.0f} s; "
                              f"logs: {os.path.join(self.workdir, 'log')}")
        for i in range(self.workers):
            self.start_worker(i)
        total = self.cores * self.workers
        ready = _wait(lambda: (lambda s: s if s.get("aliveworkers", 0) >= self.workers and s.get("cores", 0) >= total
                               else None)(self.status()), timeout_s, failed=self._died("Worker"))
        if not ready:
            self.stop()
            raise EngineError(f"Spark's workers did not register {total} cores with the master at {self.ui_url} "
                              f"within {timeout_s:.0f} s; logs: {os.path.join(self.workdir, 'log')}")
        LOG.debug("Spark standalone cluster at %s (%s cores)", self.master_url, ready.get("cores"))
        return self

    def _died(self, daemon: str):
        def check():
            if not _pids(os.path.join(self.workdir, f"*{daemon}*.pid")):
                logs = sorted(glob.glob(os.path.join(self.workdir, "log", f"*{daemon}*.out")))
                return f"Spark's {daemon} exited during start; its log ({logs[-1] if logs else ''}) ends: " + \
                    (_tail(logs[-1]) if logs else "")
            return None
        return check

    def start_worker(self, index: int) -> None:
        """Start worker `index` (again, after it died)."""
        self._daemon("start", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores",
                     str(self.cores), "--memory", self.memory, "--webui-port", str(self.worker_ui_port + index),
                     self.master_url, instance=index + 1)

    def worker_pids(self, index: typing.Optional[int] = None) -> typing.List[int]:
        """The workers' processes (all, or worker `index`'s)."""
        return _pids(os.path.join(self.workdir, f"*Worker-{'*' if index is None else index + 1}.pid"))

    def worker_json(self, index: int) -> dict:
        """Worker `index`'s own web UI as JSON (its executors, cores used)."""
        return get_json(f"http://127.0.0.1:{self.worker_ui_port + index}/json/", timeout_s=2)

    def pids(self) -> typing.List[int]:
        return _pids(os.path.join(self.workdir, "*.pid"))

    def stop(self) -> None:
        _kill(_pids(os.path.join(self.workdir, "*Worker*.pid")) + _pids(os.path.join(self.workdir, "*Master*.pid")))
        for path in glob.glob(os.path.join(self.workdir, "*.pid")):
            with contextlib.suppress(OSError):
                os.remove(path)

    def applications(self) -> typing.List[dict]:
        s = self.status()
        return list(s.get("activeapps", [])) + list(s.get("completedapps", []))


# ------------------------------------------------------------------ Beam's job server, started from the cache

class JobServer:
    """Beam's Flink or Spark job server (`java -jar` of the cached jar) for one run, on free ports of localhost.

    Beam's own FlinkRunner / SparkRunner would start the same jar, but they stop it only at interpreter
    exit (which `rewrite-mine` skips) and take over SIGINT; here it stops when the run ends.
    """

    def __init__(self, engine: str, jar: str, master: str):
        self.engine, self.jar, self.master = engine, jar, master
        self.port = free_port()
        self.endpoint = f"localhost:{self.port}"
        self._proc: typing.Optional[subprocess.Popen] = None
        self._dir: typing.Optional[str] = None
        self._log_path = ""

    def launch(self) -> None:
        """Start the JVM and return at once (it starts while the driver builds the pipeline; `start` waits)."""
        if self._proc is not None:
            return
        java = need_java()
        self._dir = tempfile.mkdtemp(prefix=f"rewrite-mine-{self.engine}-job-server-")
        self._log_path = os.path.join(self._dir, "job-server.log")
        master_flag = "--flink-master" if self.engine == FLINK else "--spark-master-url"
        cmd = [java, "-Dorg.slf4j.simpleLogger.showDateTime=true",
               "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd HH:mm:ss,SSS", "-jar", self.jar,
               master_flag, self.master, "--job-port", str(self.port), "--artifact-port", "0",
               "--expansion-port", "0", "--artifacts-dir", os.path.join(self._dir, "artifacts")]
        LOG.info("starting Beam's %s job server: %s", self.engine, " ".join(cmd))
        with open(self._log_path, "wb") as log:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,  # pylint: disable=consider-using-with
                                          stderr=subprocess.STDOUT, preexec_fn=die_with_parent)

    def start(self, timeout_s: float = 120.0) -> str:
        """Launch it if needed and wait until it listens."""
        self.launch()
        log_path = self._log_path

        def died():
            if self._proc.poll() is not None:
                return (f"Beam's {self.engine} job server ({self.jar}) exited with {self._proc.returncode} "
                        f"at start: {_tail(log_path, 8)}")
            return None

        if not _wait(lambda: port_taken(self.port), timeout_s, poll_s=0.3, failed=died):
            self.stop()
            raise EngineError(f"Beam's {self.engine} job server did not listen on {self.endpoint} within "
                              f"{timeout_s:.0f} s: {_tail(log_path, 8)}")
        return self.endpoint

    def log_tail(self, lines: int = 20) -> str:
        return _tail(self._log_path, lines)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._dir:
            # The job server's log lines (not its final dump of every metric as JSON) go to the run's log.
            text = self.log_lines()
            if text:
                LOG.debug("Beam's %s job server said:\n%s", self.engine, text)
                with contextlib.suppress(OSError):
                    os.write(2, f"Beam's {self.engine} job server said:\n{text}\n".encode("utf-8", "replace"))
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def log_lines(self, limit: int = 2000) -> str:
        """Its timestamped log lines and the exceptions among them."""
        keep = []
        try:
            with open(os.path.join(self._dir or "", "job-server.log"), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if re.match(r"^(\d{4}-\d\d-\d\d |Caused by|\S+(Exception|Error)\b)", line):
                        keep.append(line.rstrip())
        except OSError:
            return ""
        return "\n".join(keep[-limit:])


# ------------------------------------------------------------------ a job's submission to an engine

@dataclasses.dataclass
class Submission:
    """What `--runner flink|spark` adds to a job's Beam options, what the manifest records of the engine,
    and what runs beside the job: the job server and, for a cluster on this machine, the worker pool."""
    engine: str
    options: dict
    info: dict
    job_server: typing.Optional[JobServer] = None
    pool: typing.Any = None

    @contextlib.contextmanager
    def running(self):
        """The job server and the worker pool, started for the run and stopped after it."""
        try:
            if self.pool is not None:
                self.pool.start()
            if self.job_server is not None:
                self.job_server.start()
            yield self
        finally:
            if self.job_server is not None:
                self.job_server.stop()
            if self.pool is not None:
                self.pool.stop()
                self.info["sdk_worker_processes"] = self.pool.started
                self.info["sdk_worker_processes_forked"] = self.pool.forked


def _beam_option(beam_args: typing.Sequence[str], name: str) -> typing.Optional[str]:
    """The value of Beam option `--name` in `beam_args` (`--name V` or `--name=V`), or None."""
    flag = f"--{name}"
    value = None
    for i, a in enumerate(beam_args):
        if a == flag and i + 1 < len(beam_args):
            value = beam_args[i + 1]
        elif a.startswith(flag + "="):
            value = a[len(flag) + 1:]
    return value


def submission(engine: str, beam_args: typing.Sequence[str], preload: typing.Sequence[str] = (),
               log_worker_output: bool = True) -> Submission:
    """Check the engine (reachable, the right version) and build the options of a run on it.

    Raises:
      EngineError: the engine's files are missing, the cluster does not answer at the address given, or
        its version is not the one Beam's job server is built for; the message says what to do.
    """
    environment = _beam_option(beam_args, "environment_type")
    master = _master(engine, beam_args)
    if environment is None and not (is_local(master) or master.startswith(("[", "local"))):
        raise EngineError(
            f"the {engine.capitalize()} cluster at {master} is not on this machine, and its workers need a way to "
            f"start this project's Python workers: add --environment_type DOCKER --environment_config IMAGE "
            f"(the worker image the Dockerfile builds, pushed where the cluster can pull it), or "
            f"--environment_type EXTERNAL --environment_config HOST:PORT (a `python -m "
            f"apache_beam.runners.worker.worker_pool_main` beside each worker); see docs/RUNNERS.md")
    jar = _beam_option(beam_args, f"{engine}_job_server_jar") or job_server_jar(engine)
    if not os.path.exists(jar):
        raise EngineError(f"--{engine}_job_server_jar {jar}: no such file")
    if engine == FLINK:
        options, info = _flink(master, beam_args)
    else:
        options, info = _spark(master, beam_args)
    info.update(job_server=f"{os.path.basename(jar)} (Beam {job_server_version(jar) or '?'})")
    # What the user gave on the command line wins over what is chosen here (Beam options given as keyword
    # arguments override the flags).
    options = {k: v for k, v in options.items()
               if k in ("flink_master", "spark_master_url") or _beam_option(beam_args, k) is None}
    options.update(runner="FlinkRunner" if engine == FLINK else "SparkRunner")
    pool = None
    if environment is None:
        pool = ProcessWorkerPool(preload=preload, log_output=log_worker_output)
        options.update(environment_type="EXTERNAL", environment_config=pool.address)
        info["environment"] = "EXTERNAL: SDK worker processes started on this machine by rewrite-mine"
    else:
        info["environment"] = environment
    server = None
    if _beam_option(beam_args, "job_endpoint") is None:
        server = JobServer(engine, jar, master)
        options["job_endpoint"] = server.endpoint
        server.launch()  # its JVM starts while the driver builds the pipeline
    return Submission(engine, options, info, job_server=server, pool=pool)


def _master(engine: str, beam_args) -> str:
    """The cluster's address the user gave (`--flink_master` / `--spark_master_url`)."""
    if engine == FLINK:
        master = _beam_option(beam_args, "flink_master")
        if not master or master == "[auto]":
            raise EngineError("--runner flink needs --flink_master HOST:PORT, the REST address of a Flink session "
                              "cluster (`rewrite-mine cluster start flink` starts one on localhost:8081), or "
                              "--flink_master [local] for a Flink mini cluster inside the job server")
        return re.sub(r"^https?://", "", master.strip()).rstrip("/")
    master = (_beam_option(beam_args, "spark_master_url") or "").strip()
    if not master:
        raise EngineError("--runner spark needs --spark_master_url spark://HOST:PORT, a Spark standalone master "
                          "(`rewrite-mine cluster start spark` starts one at spark://127.0.0.1:7077), or "
                          "--spark_master_url 'local[N]' for Spark inside the job server")
    if not master.startswith("local") and not re.match(r"^spark://([^:/]+|\[[^\]]+\]):(\d+)$", master):
        raise EngineError(f"--spark_master_url {master}: expected spark://HOST:PORT")
    return master


#: How long an engine keeps an idle SDK worker for the next stage of the same job (Beam's
#: `--environment_cache_millis`, 0 by default: a new worker per stage, each loading its models again; the
#: Discovery sample started some 30 on Flink and 72 on Spark). With it, 2 workers for the whole job, where
#: the engine keeps Beam's classes loaded between stages (Spark; a Flink cluster started here).
ENVIRONMENT_CACHE_MS = 60_000


#: Python SDK workers per task slot of a Flink TaskManager (Beam's `--sdk_worker_parallelism` counts them per
#: TaskManager). Beam binds each task to a worker by a counter (`DefaultJobBundleFactory`: the n-th stage
#: instance opened gets worker n mod N), so the two subtasks of the heaviest stage share one worker, one core
#: between them, whenever the tasks opened between them number a multiple of N: half the runs with one
#: worker per slot (Discovery on 40 copies: its read stage 39-46 s instead of 24-28 s), a quarter with two.
#: Beam's `--load_balance_bundles` would pick a free worker per bundle, but it deadlocked here (a region's
#: upstream bundles held every worker while the downstream ones waited for one).
WORKERS_PER_SLOT = 2


def _cache_environments(options: dict, beam_args) -> None:
    if _beam_option(beam_args, "environment_cache_millis") is None:
        options["environment_cache_millis"] = ENVIRONMENT_CACHE_MS


def _flink(master: str, beam_args) -> typing.Tuple[dict, dict]:
    info: typing.Dict[str, typing.Any] = {"name": FLINK, "master": master}
    options: typing.Dict[str, typing.Any] = {"flink_master": master, "flink_version": FLINK_MINOR}
    _cache_environments(options, beam_args)
    parallelism = int(_beam_option(beam_args, "parallelism") or -1)
    if master == "[local]":
        info["version"] = f"{FLINK_MINOR} (mini cluster in the job server)"
        if parallelism < 1:
            parallelism = os.cpu_count() or 1
    else:
        try:
            overview = get_json(f"http://{master}/overview")
        except Exception as e:  # noqa: BLE001 - any failure to reach it is the same for the user
            raise EngineError(f"no Flink cluster answers at http://{master} ({_why(e)}): start one with "
                              f"`rewrite-mine cluster start flink`, or give your cluster's REST address as "
                              f"--flink_master HOST:PORT") from None
        version = str(overview.get("flink-version", ""))
        if not version.startswith(FLINK_MINOR + "."):
            raise EngineError(f"the Flink cluster at {master} runs Flink {version or '(unknown)'}, and Beam's job "
                              f"server here is built for Flink {FLINK_MINOR}: use a {FLINK_MINOR}.x cluster "
                              f"(`rewrite-mine cluster start flink` starts one)")
        slots = int(overview.get("slots-total", 0))
        managers = max(1, int(overview.get("taskmanagers", 0)))
        if slots < 1:
            raise EngineError(f"the Flink cluster at {master} has no task slots (no TaskManager registered): start a "
                              f"TaskManager, or `rewrite-mine cluster stop flink` and start it again")
        if parallelism < 1:
            parallelism = slots
        from pipelines.framework import flink_preflight  # network memory and restarts, before submission
        flink_preflight.check(master, parallelism)
        info.update(version=version, slots=slots, taskmanagers=managers)
        options["sdk_worker_parallelism"] = WORKERS_PER_SLOT * max(1, slots // managers)
    options["parallelism"] = parallelism
    info["parallelism"] = parallelism
    return options, info


def _spark(master: str, beam_args) -> typing.Tuple[dict, dict]:
    info: typing.Dict[str, typing.Any] = {"name": SPARK, "master": master}
    options: typing.Dict[str, typing.Any] = {"spark_master_url": master}
    _cache_environments(options, beam_args)
    local_version = spark_version()
    if master.startswith("local"):
        info["version"] = f"{local_version} (in the job server)"
        return options, info
    m = re.match(r"^spark://([^:/]+|\[[^\]]+\]):(\d+)$", master)
    host, port = m.group(1), int(m.group(2))
    try:
        socket.create_connection((host.strip("[]"), port), timeout=5).close()
    except OSError as e:
        raise EngineError(f"no Spark master answers at {master} ({_why(e)}): start one with "
                          f"`rewrite-mine cluster start spark`, or give your master's address as "
                          f"--spark_master_url spark://HOST:PORT") from None
    # The master's web UI says its version; REWRITE_MINE_SPARK_UI when it is not on port 8080 of the master's host.
    ui_url = os.environ.get("REWRITE_MINE_SPARK_UI") or f"http://{host}:8080"
    version = ""
    with contextlib.suppress(Exception):
        page = get_text(ui_url + "/")
        found = re.search(r'class="version"[^>]*>\s*([\w.\-]+)\s*<', page)
        version = found.group(1) if found else ""
        status = get_json(ui_url + "/json/")
        info.update(cores=status.get("cores"), workers=status.get("aliveworkers"))
    if version and version != local_version:
        raise EngineError(f"the Spark cluster at {master} runs Spark {version} and Beam's job server here drives "
                          f"Spark {local_version}: they must be the same version (apache/beam#21092); use a "
                          f"{local_version} cluster (`rewrite-mine cluster start spark`)")
    info["version"] = version or f"{local_version} (the job server's; the master's web UI at {ui_url} did not say)"
    cores = info.get("cores")
    if cores:
        options["sdk_worker_parallelism"] = WORKERS_PER_SLOT * max(1, int(cores) // max(1, int(info.get("workers") or 1)))
    return options, info


# ------------------------------------------------------------------ `rewrite-mine cluster`

def default_workdir(engine: str) -> str:
    return os.path.join(engines_dir(), "run", engine)


def cluster_main(argv: typing.Sequence[str]) -> int:
    """`rewrite-mine cluster start|stop|status flink|spark`: a cluster on this machine (loopback)."""
    import argparse  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser(
        prog="rewrite-mine cluster",
        description="Start, stop or show a Flink session cluster or a Spark standalone cluster on this machine "
                    "(loopback), from the engines `make engines` fetched. Jobs go there with --runner flink "
                    "--flink_master localhost:PORT or --runner spark --spark_master_url spark://127.0.0.1:PORT.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("engine", choices=(FLINK, SPARK))
    parser.add_argument("--dir", default=None, help="the cluster's configuration, logs and pid files "
                                                    "(default: <engines>/run/<engine>)")
    parser.add_argument("--port", type=int, default=None,
                        help="Flink: REST port (default 8081); Spark: master port (default 7077)")
    parser.add_argument("--rpc_port", type=int, default=6123, help="Flink: JobManager RPC port")
    parser.add_argument("--ui_port", type=int, default=8080, help="Spark: master web UI port")
    parser.add_argument("--worker_ui_port", type=int, default=8082, help="Spark: worker web UI port")
    parser.add_argument("--slots", type=int, default=2, help="Flink: task slots of each TaskManager; Spark: worker cores")
    parser.add_argument("--taskmanagers", type=int, default=1,
                        help="Flink: TaskManagers (JVMs) to start; a job with --parallelism at most the slots of "
                             "all but one survives losing one of them")
    parser.add_argument("--restart_attempts", type=int, default=RESTART_ATTEMPTS,
                        help="Flink: times a failed task is restarted (fixed-delay strategy); 0: none, a job fails "
                             "at the first lost TaskManager or SDK worker")
    parser.add_argument("--restart_delay", type=int, default=RESTART_DELAY_S, help="Flink: seconds between restarts")
    parser.add_argument("--workers", type=int, default=1,
                        help="Spark: workers (JVMs) to start, web UIs on --worker_ui_port and the ports after it; a "
                             "job survives losing one of them")
    parser.add_argument("--memory", default=None, help="Flink: TaskManager process size (default 3072m); "
                                                       "Spark: worker memory (default 4g)")
    args = parser.parse_args(list(argv))
    workdir = args.dir or default_workdir(args.engine)
    try:
        if args.engine == FLINK:
            cluster: typing.Any = FlinkCluster(workdir, port=args.port or 8081, slots=args.slots,
                                               rpc_port=args.rpc_port, taskmanager_memory=args.memory or "3072m",
                                               taskmanagers=args.taskmanagers, restart_attempts=args.restart_attempts,
                                               restart_delay_s=args.restart_delay)
            where = f"--runner flink --flink_master {cluster.master}  (web UI {cluster.rest_url})"
        else:
            cluster = SparkCluster(workdir, port=args.port or 7077, ui_port=args.ui_port,
                                   worker_ui_port=args.worker_ui_port, cores=args.slots, memory=args.memory or "4g",
                                   workers=args.workers)
            where = f"--runner spark --spark_master_url {cluster.master_url}  (web UI {cluster.ui_url})"
        if args.action == "start":
            if cluster.running():
                dead = [i for i in range(cluster.taskmanagers) if not cluster.taskmanager_pids(i)] \
                    if args.engine == FLINK else []
                if dead and int(cluster.overview().get("taskmanagers", 0)) < cluster.taskmanagers:
                    for i in dead:  # the JobManager is up, some of its TaskManagers died
                        cluster.start_taskmanager(index=i)
                    print(f"{args.engine} was running without {len(dead)} of its TaskManagers; started them again: "
                          f"{where}")
                    return 0
                print(f"{args.engine} is already running: {where}")
                return 0
            cluster.start()
            print(f"{args.engine} started (files in {workdir}): {where}")
            return 0
        if args.action == "stop":
            cluster.stop()
            print(f"{args.engine} stopped ({workdir})")
            return 0
        if cluster.running():
            detail = cluster.overview() if args.engine == FLINK else {
                k: cluster.status().get(k) for k in ("status", "aliveworkers", "cores", "coresused")}
            print(f"{args.engine} is running: {where}\n{json.dumps(detail, sort_keys=True)}")
            return 0
        print(f"{args.engine} is not running at {cluster.master if args.engine == FLINK else cluster.master_url}")
        return 1
    except EngineError as e:
        print(f"rewrite-mine cluster: error: {e}", file=sys.stderr)
        return 2
