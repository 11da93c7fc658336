"""Spark: a standalone cluster on this machine (`SparkCluster`) and the options of a run on a Spark master.

`rewrite-mine cluster start spark` starts `SparkCluster` (a master and workers on loopback, Spark's own
daemons from the distribution `make engines` fetched). `submit_options` checks the master a run is sent
to (`--spark_master_url spark://HOST:PORT`: it answers, and its web UI says the Spark version Beam's job
server drives) and counts the SDK workers per Spark worker from its cores.
"""
import contextlib
import dataclasses
import getpass
import glob
import logging
import os
import re
import shutil
import socket
import typing

from pipelines.framework.engines import daemons
from pipelines.framework.engines.options import WORKERS_PER_SLOT, beam_option, cache_environments
from pipelines.framework.engines.paths import SPARK, EngineError, job_server_jar, need_java, spark_home, spark_version

LOG = logging.getLogger("rewrite_mine")


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
    #: A worker deletes the directory of an application that ended this long ago (its executors' logs and
    #: the job's staged jar, 90 MB per executor), checking every minute; Spark keeps them forever by default.
    app_data_ttl_s: int = 3600

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
                   SPARK_IDENT_STRING=getpass.getuser(),
                   SPARK_WORKER_OPTS=" ".join([env.get("SPARK_WORKER_OPTS", ""), "-Dspark.worker.cleanup.enabled=true",
                                               f"-Dspark.worker.cleanup.interval={min(60, self.app_data_ttl_s)}",
                                               f"-Dspark.worker.cleanup.appDataTtl={self.app_data_ttl_s}"]).strip())
        env.pop("SPARK_CONF_DIR", None)
        return env

    def status(self) -> dict:
        return daemons.get_json(f"{self.ui_url}/json/", timeout_s=2)

    def running(self) -> bool:
        try:
            return self.status().get("status") == "ALIVE"
        except Exception:  # noqa: BLE001
            return False

    def _daemon(self, action: str, cls: str, *args: str, instance: int = 1) -> None:
        daemons.run_script([os.path.join(self._home(), "sbin", "spark-daemon.sh"), action, cls, str(instance), *args],
                    self._env(), f"Spark's spark-daemon.sh {action} {cls.rsplit('.', 1)[-1]}")

    def start(self, timeout_s: float = 180.0) -> "SparkCluster":
        need_java()
        for port, what in ((self.port, "master port"), (self.ui_port, "master web UI port"),
                           *((self.worker_ui_port + i, "worker web UI port") for i in range(self.workers))):
            if daemons.port_taken(port):
                raise EngineError(f"cannot start Spark: its {what} {port} is already in use (another Spark cluster? "
                                  f"`rewrite-mine cluster status spark`; or choose other ports: "
                                  f"rewrite-mine cluster start spark --port N --ui_port M --worker_ui_port K)")
        for sub in ("log", "work", "tmp"):
            os.makedirs(os.path.join(self.workdir, sub), exist_ok=True)
        self._daemon("start", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                     str(self.port), "--webui-port", str(self.ui_port))
        if not daemons.wait_until(self.running, timeout_s, failed=self._died("Master")):
            self.stop()
            raise EngineError(f"Spark's master did not answer at {self.ui_url}/json/ within {timeout_s:.0f} s; "
                              f"logs: {os.path.join(self.workdir, 'log')}")
        for i in range(self.workers):
            self.start_worker(i)
        total = self.cores * self.workers
        ready = daemons.wait_until(
            lambda: (lambda s: s if s.get("aliveworkers", 0) >= self.workers and s.get("cores", 0) >= total
                     else None)(self.status()), timeout_s, failed=self._died("Worker"))
        if not ready:
            self.stop()
            raise EngineError(f"Spark's workers did not register {total} cores with the master at {self.ui_url} "
                              f"within {timeout_s:.0f} s; logs: {os.path.join(self.workdir, 'log')}")
        LOG.debug("Spark standalone cluster at %s (%s cores)", self.master_url, ready.get("cores"))
        return self

    def _died(self, daemon: str):
        def check():
            if not daemons.pids_in(os.path.join(self.workdir, f"*{daemon}*.pid")):
                logs = sorted(glob.glob(os.path.join(self.workdir, "log", f"*{daemon}*.out")))
                return f"Spark's {daemon} exited during start; its log ({logs[-1] if logs else ''}) ends: " + \
                    (daemons.tail(logs[-1]) if logs else "")
            return None
        return check

    def start_worker(self, index: int) -> None:
        """Start worker `index` (again, after it died)."""
        self._daemon("start", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores",
                     str(self.cores), "--memory", self.memory, "--webui-port", str(self.worker_ui_port + index),
                     self.master_url, instance=index + 1)

    def worker_pids(self, index: typing.Optional[int] = None) -> typing.List[int]:
        """The workers' processes (all, or worker `index`'s)."""
        return daemons.pids_in(os.path.join(self.workdir, f"*Worker-{'*' if index is None else index + 1}.pid"))

    def worker_json(self, index: int) -> dict:
        """Worker `index`'s own web UI as JSON (its executors, cores used)."""
        return daemons.get_json(f"http://127.0.0.1:{self.worker_ui_port + index}/json/", timeout_s=2)

    def pids(self) -> typing.List[int]:
        return daemons.pids_in(os.path.join(self.workdir, "*.pid"))

    def stop(self) -> None:
        """Stop its master and workers and remove what only they used: the jars staged to each executor
        (`workdir/work/app-*/N/*.jar`) and the temporary directories (`workdir/tmp`); executors' logs stay."""
        daemons.kill(daemons.pids_in(os.path.join(self.workdir, "*Worker*.pid"))
                     + daemons.pids_in(os.path.join(self.workdir, "*Master*.pid")))
        for path in glob.glob(os.path.join(self.workdir, "*.pid")) + \
                glob.glob(os.path.join(self.workdir, "work", "app-*", "*", "*.jar")):
            with contextlib.suppress(OSError):
                os.remove(path)
        shutil.rmtree(os.path.join(self.workdir, "tmp"), ignore_errors=True)

    def applications(self) -> typing.List[dict]:
        s = self.status()
        return list(s.get("activeapps", [])) + list(s.get("completedapps", []))


def submit_options(master: str, beam_args) -> typing.Tuple[dict, dict]:
    """The Beam options of a run on the Spark master `master` (spark://HOST:PORT, or local[N]) and what the
    manifest records of it; checks that a master answers there and runs the Spark Beam's job server drives."""
    info: typing.Dict[str, typing.Any] = {"name": SPARK, "master": master}
    options: typing.Dict[str, typing.Any] = {"spark_master_url": master}
    cache_environments(options, beam_args)
    local_version = spark_version()
    if master.startswith("local"):
        info["version"] = f"{local_version} (in the job server)"
        return options, info
    m = re.match(r"^spark://([^:/]+|\[[^\]]+\]):(\d+)$", master)
    host, port = m.group(1), int(m.group(2))
    try:
        socket.create_connection((host.strip("[]"), port), timeout=5).close()
    except OSError as e:
        raise EngineError(f"no Spark master answers at {master} ({daemons.why(e)}): start one with "
                          f"`rewrite-mine cluster start spark`, or give your master's address as "
                          f"--spark_master_url spark://HOST:PORT") from None
    # The master's web UI says its version; REWRITE_MINE_SPARK_UI when it is not on port 8080 of the master's host.
    ui_url = os.environ.get("REWRITE_MINE_SPARK_UI") or f"http://{host}:8080"
    version = ""
    with contextlib.suppress(Exception):
        page = daemons.get_text(ui_url + "/")
        found = re.search(r'class="version"[^>]*>\s*([\w.\-]+)\s*<', page)
        version = found.group(1) if found else ""
        status = daemons.get_json(ui_url + "/json/")
        info.update(cores=status.get("cores"), workers=status.get("aliveworkers"))
    if version and version != local_version:
        raise EngineError(f"the Spark cluster at {master} runs Spark {version} and Beam's job server here drives "
                          f"Spark {local_version}: they must be the same version (apache/beam#21092); use a "
                          f"{local_version} cluster (`rewrite-mine cluster start spark`)")
    info["version"] = version or f"{local_version} (the job server's; the master's web UI at {ui_url} did not say)"
    # Beam stages every jar of the job server's classpath to each executor, Spark's own jars (which every
    # executor has already) included: 420 MB copied into the worker's directory per executor and job, where
    # the job server's jar (93 MB, Beam's classes) is what the executors need.
    if not beam_option(beam_args, "files_to_stage"):
        options["files_to_stage"] = [job_server_jar(SPARK)]
    cores = info.get("cores")
    if cores:
        options["sdk_worker_parallelism"] = WORKERS_PER_SLOT * max(1, int(cores) // max(1, int(info.get("workers") or 1)))
    return options, info
