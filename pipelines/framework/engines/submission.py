"""A job's submission to an engine: what `--runner flink|spark` adds to its Beam options, and what runs beside it.

`submission` checks the engine a run names (flink.py / spark.py: the cluster answers, the right
version), fills the options the user left out (runner, job endpoint, parallelism, environment), and
returns a `Submission` whose `running()` starts and stops what the run needs here: Beam's job server
(job_server.py) and, for a cluster on this machine, Beam's EXTERNAL environment served by a pool of SDK
worker processes of this Python (pipelines/framework/workers/external_pool.py). A cluster on other hosts
needs an environment its workers can start (`--environment_type DOCKER --environment_config IMAGE`).
"""
import contextlib
import dataclasses
import os
import re
import typing

from pipelines.framework.engines import flink, spark
from pipelines.framework.engines.daemons import is_local  # noqa: F401  (a name of this module before)
from pipelines.framework.engines.job_server import JobServer
from pipelines.framework.engines.options import beam_option
from pipelines.framework.engines.paths import FLINK, EngineError, job_server_jar, job_server_version
from pipelines.framework.workers.external_pool import ProcessWorkerPool

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
                if "job_endpoint" in self.options:  # it may have started on another port (job_server.start)
                    self.options["job_endpoint"] = self.job_server.endpoint
            yield self
        finally:
            if self.job_server is not None:
                self.job_server.stop()
            if self.pool is not None:
                self.pool.stop()
                self.info["sdk_worker_processes"] = self.pool.started
                self.info["sdk_worker_processes_forked"] = self.pool.forked
                if self.pool.forked:
                    self.info["sdk_worker_fork_server"] = ("started with the driver, before the job was imported"
                                                           if self.pool.fork_server_early else "started with the run")


def submission(engine: str, beam_args: typing.Sequence[str], preload: typing.Sequence[str] = (),
               log_worker_output: bool = True, own_job_server: bool = False) -> Submission:
    """Check the engine (reachable, the right version) and build the options of a run on it.

    The job server: the one given as `--job_endpoint`, else the one a Flink cluster started here keeps beside
    it (flink.kept_job_server), else one started for this run (`own_job_server`: that, whatever the cluster
    keeps).

    Raises:
      EngineError: the engine's files are missing, the cluster does not answer at the address given, or
        its version is not the one Beam's job server is built for; the message says what to do.
    """
    environment = beam_option(beam_args, "environment_type")
    master = _master(engine, beam_args)
    if environment is None and not (is_local(master) or master.startswith(("[", "local"))):
        raise EngineError(
            f"the {engine.capitalize()} cluster at {master} is not on this machine, and its workers need a way to "
            f"start this project's Python workers: add --environment_type DOCKER --environment_config IMAGE "
            f"(the worker image the Dockerfile builds, pushed where the cluster can pull it), or "
            f"--environment_type EXTERNAL --environment_config HOST:PORT (a `python -m "
            f"apache_beam.runners.worker.worker_pool_main` beside each worker); see docs/RUNNERS.md")
    jar = beam_option(beam_args, f"{engine}_job_server_jar") or job_server_jar(engine)
    if not os.path.exists(jar):
        raise EngineError(f"--{engine}_job_server_jar {jar}: no such file")
    if engine == FLINK:
        options, info = flink.submit_options(master, beam_args)
    else:
        options, info = spark.submit_options(master, beam_args)
    if own_job_server:
        options.pop("job_endpoint", None)
    info.update(job_server=f"{os.path.basename(jar)} (Beam {job_server_version(jar) or '?'})")
    kept = options.get("job_endpoint")
    if kept:
        info["job_server"] += f", kept by the cluster at {kept}"
    # What the user gave on the command line wins over what is chosen here (Beam options given as keyword
    # arguments override the flags).
    options = {k: v for k, v in options.items()
               if k in ("flink_master", "spark_master_url") or beam_option(beam_args, k) is None}
    options.update(runner="FlinkRunner" if engine == FLINK else "SparkRunner")
    pool = None
    if environment is None:
        pool = ProcessWorkerPool(preload=preload, log_output=log_worker_output)
        options.update(environment_type="EXTERNAL", environment_config=pool.address)
        info["environment"] = "EXTERNAL: SDK worker processes started on this machine by rewrite-mine"
    else:
        info["environment"] = environment
    server = None
    if beam_option(beam_args, "job_endpoint") is None and not kept:
        server = JobServer(engine, jar, master,
                           stage_jar=not (engine == FLINK and not master.startswith("[") and
                                          flink.cluster_has_beam(master, jar)))
        options["job_endpoint"] = server.endpoint
        server.launch()  # its JVM starts while the driver builds the pipeline
    return Submission(engine, options, info, job_server=server, pool=pool)


def _master(engine: str, beam_args) -> str:
    """The cluster's address the user gave (`--flink_master` / `--spark_master_url`)."""
    if engine == FLINK:
        master = beam_option(beam_args, "flink_master")
        if not master or master == "[auto]":
            raise EngineError("--runner flink needs --flink_master HOST:PORT, the REST address of a Flink session "
                              "cluster (`rewrite-mine cluster start flink` starts one on localhost:8081), or "
                              "--flink_master [local] for a Flink mini cluster inside the job server")
        return re.sub(r"^https?://", "", master.strip()).rstrip("/")
    master = (beam_option(beam_args, "spark_master_url") or "").strip()
    if not master:
        raise EngineError("--runner spark needs --spark_master_url spark://HOST:PORT, a Spark standalone master "
                          "(`rewrite-mine cluster start spark` starts one at spark://127.0.0.1:7077), or "
                          "--spark_master_url 'local[N]' for Spark inside the job server")
    if not master.startswith("local") and not re.match(r"^spark://([^:/]+|\[[^\]]+\]):(\d+)$", master):
        raise EngineError(f"--spark_master_url {master}: expected spark://HOST:PORT")
    return master
