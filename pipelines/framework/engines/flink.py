"""Flink: a session cluster on this machine (`FlinkCluster`) and the options of a run on a Flink cluster.

`rewrite-mine cluster start flink` starts `FlinkCluster` (a JobManager and TaskManagers on loopback, from
the distribution `make engines` fetched, configured for Beam's jobs: network buffers, off-heap memory,
restarts, Beam's runner classes on the cluster's classpath). `submit_options` checks the cluster a run is
sent to (`--flink_master HOST:PORT`: it answers, it runs Flink 1.19, it has slots) and chooses the
parallelism and the SDK workers per TaskManager from its slots.
"""
import contextlib
import dataclasses
import glob
import json
import logging
import os
import re
import shlex
import shutil
import subprocess
import time
import typing

from pipelines.framework.engines import daemons
from pipelines.framework.engines.options import (DOCKER_WORKERS_PER_SLOT, WORKERS_PER_SLOT, beam_option,
                                                  cache_environments)
from pipelines.framework.engines.paths import (FLINK, FLINK_MINOR, EngineError, flink_cluster_lib_jar, flink_home,
                                              job_server_jar, job_server_version, need_java)

LOG = logging.getLogger("rewrite_mine")

# The restart strategy of the Flink clusters `rewrite-mine cluster start flink` starts (docs/RUNNERS.md
# gives the same settings for a user's own cluster): a failed task is retried 5 times, 5 s apart.
RESTART_ATTEMPTS = 5
RESTART_DELAY_S = 5

#: The label of the containers Beam's DOCKER environment starts from this cluster's TaskManagers (the value:
#: the cluster's workdir), put on by `workdir/bin/docker` (`write_docker_shim`).
CONTAINER_LABEL = "rewrite-mining.flink-cluster"

#: Keys of the cluster's own configuration (Flink keeps keys it does not know, and its REST API shows them at
#: /jobmanager/config) that name the job server kept beside it (`FlinkCluster.job_port`) and its jar:
#: `submit_options` finds it there, so every run on the cluster uses it.
JOB_ENDPOINT_KEY = "rewrite-mining.job-server.endpoint"
JOB_SERVER_JAR_KEY = "rewrite-mining.job-server.jar"
#: ... and the jar of Beam's runner classes on its classpath (`FlinkCluster.beam_lib`): a job server of the same
#: Beam version sends no jar of its own with the jobs it submits there (`job_server.unstaged_jar`).
BEAM_LIB_KEY = "rewrite-mining.beam-lib.jar"


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

    Job server: with `job_port`, Beam's Flink job server runs beside the cluster, started and stopped with it,
    and every run on the cluster uses it (`submit_options`). A run that starts its own pays a JVM's start
    and a cold translation of its pipeline: ~5-9 s of a 40-copy Discovery run (docs/RUNNERS.md).
    """
    workdir: str
    port: int = 8081  # REST API and web UI (the address jobs are submitted to: --flink_master localhost:PORT)
    slots: int = 2  # per TaskManager
    rpc_port: int = 6123
    #: `rewrite-mine all` on one TaskManager (the five jobs' ~1,000 operators per slot) ran out of a 3 GB
    #: TaskManager's task heap (381 MB: "OutOfMemoryError: Java heap space" in SimSim's WriteCounts).
    taskmanager_memory: str = "4096m"
    taskmanagers: int = 1
    restart_attempts: int = RESTART_ATTEMPTS
    restart_delay_s: int = RESTART_DELAY_S
    home: typing.Optional[str] = None
    #: A jar of Beam's runner classes put on the cluster's own classpath (see `write_lib`): by default the
    #: one `make engines` built; "" for none (a cluster as users have them: Beam comes with each job).
    beam_lib: typing.Optional[str] = None
    #: Beam's Flink job server kept beside the cluster on this port of localhost (0: none; each run starts its
    #: own). `rewrite-mine cluster start flink` keeps one on 8099.
    job_port: int = 0

    def __post_init__(self):
        if self.beam_lib is None:
            self.beam_lib = flink_cluster_lib_jar()

    @property
    def master(self) -> str:
        return f"localhost:{self.port}"

    @property
    def rest_url(self) -> str:
        return f"http://localhost:{self.port}"

    @property
    def job_endpoint(self) -> typing.Optional[str]:
        """The kept job server's address (`--job_endpoint`), or None without one."""
        return f"localhost:{self.job_port}" if self.job_port else None

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
            # Java 17's --add-opens, as the distribution has them; a JVM that crashes writes its hs_err file
            # beside the cluster's logs, not into the directory the cluster was started from. Threads get
            # 4 MB of stack (Java's default is 1 MB): the JobManager's REST thread deserializes a submitted
            # JobGraph recursively, and `rewrite-mine all`'s graph overflowed 1 MB on a cold JobManager
            # (a full run, 2026-11-29: JobSubmitHandler "java.lang.StackOverflowError", the job never ran).
            "env.java.opts.all": (f"{java_opts} -Xss4m "
                                  f"-XX:ErrorFile={os.path.join(self.workdir, 'log', 'hs_err_pid%p.log')}").strip(),
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
            # Managed memory (Flink's sorts) 25% instead of 40%: with 4 GB, some 1.1 GB of task heap, where
            # Beam's operators keep their state.
            "taskmanager.memory.managed.fraction": 0.25,
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
            # A killed TaskManager refuses the heartbeat's RPC, and two refusals in a row mark it lost
            # (heartbeat.rpc-failure-threshold): seconds. A live one that is slow to answer (a 2-core machine
            # under load 10 missed a 20 s timeout with `rewrite-mine all` running) gets a minute.
            "heartbeat.interval": 4000, "heartbeat.timeout": 60000, "heartbeat.rpc-failure-threshold": 2,
            # Deploying a Beam job's ~200 operators per slot is one RPC per task: Flink's default 10 s
            # ask timeout failed a job in a full test run beside a heavy job ("TaskManager not responding
            # after a rpcTimeout of 10000 ms" on submitTask); a busy machine answers within a minute.
            "pekko.ask.timeout": "60 s",
            # The REST API's job metrics (records read and written per vertex, which progress and the
            # suite's fault tests read) are fetched from the TaskManagers every second, not every 10 s.
            "metrics.fetcher.update-interval": 1000,
            "rest.address": "localhost", "rest.bind-address": "localhost", "rest.port": self.port,
            "io.tmp.dirs": tmp,
            # A TaskManager keeps each finished job's jar (Beam's job server, 164 MB) in its blob cache for
            # an hour by default: a cluster that runs a job a minute held gigabytes. A minute is enough.
            "blob.service.cleanup.interval": 60,
            # Every task's deployment names its job's and its vertex's information through the blob server
            # instead of carrying them in the RPC: a Beam vertex's information is 6-330 KB (its stage's
            # payload and three copies of the pipeline options), and the TaskManager took each of a region's
            # ~200 tasks in turn, ~13 ms apiece (the last region of a Discovery job: 2.7 s before its last task
            # ran). From the blob server, the TaskManager fetches and reads each vertex's information once
            # for all its subtasks (docs/RUNNERS.md). Flink's default offloads only what exceeds 1 MB.
            "blob.offload.minsize": 0,
            "web.tmpdir": tmp,
        }
        if self.beam_lib:
            settings["classloader.resolve-order"] = "parent-first"
            settings[BEAM_LIB_KEY] = os.path.basename(self.beam_lib)
        if self.job_port:
            settings[JOB_ENDPOINT_KEY] = self.job_endpoint
            settings[JOB_SERVER_JAR_KEY] = os.path.basename(job_server_jar(FLINK))
        with open(os.path.join(conf, "config.yaml"), "w", encoding="utf-8") as f:
            f.write("# Written by rewrite-mine cluster start flink (pipelines/framework/engines/flink.py)\n")
            for key, value in settings.items():
                f.write(f"{key}: {json.dumps(value) if isinstance(value, str) else value}\n")
        return conf

    def overview(self) -> dict:
        return daemons.get_json(f"{self.rest_url}/overview", timeout_s=2)

    def running(self) -> bool:
        try:
            return bool(self.overview())
        except Exception:  # noqa: BLE001
            return False

    def start(self, timeout_s: float = 180.0) -> "FlinkCluster":
        need_java()
        home = self._home()
        # A job server this folder's cluster left (its JobManager died, or was killed without `stop`) would
        # hold the job port, and serve a cluster that is gone.
        daemons.kill(self.job_server_pids())
        for port, what in ((self.port, "REST port"), (self.rpc_port, "JobManager RPC port"),
                           (self.job_port, "job server port")):
            if port and daemons.port_taken(port):
                raise EngineError(f"cannot start Flink: its {what} {port} is already in use (another Flink cluster? "
                                  f"`rewrite-mine cluster status flink`; or choose other ports: "
                                  f"rewrite-mine cluster start flink --port N --rpc_port M --job_server_port J)")
        os.makedirs(os.path.join(self.workdir, "log"), exist_ok=True)  # flink-daemon.sh writes there, never creates it
        self.write_lib()
        self.write_conf()
        env = self._env()
        daemons.run_script([os.path.join(home, "bin", "jobmanager.sh"), "start"], env, "Flink's jobmanager.sh start")
        for i in range(self.taskmanagers):
            self.start_taskmanager(index=i)
        log_dir = os.path.join(self.workdir, "log")

        def died():
            if not daemons.pids_in(os.path.join(self.workdir, "*standalonesession*.pid")):
                logs = sorted(glob.glob(os.path.join(log_dir, "*standalonesession*.log")))
                return f"Flink's JobManager exited during start; its log ({logs[-1] if logs else log_dir}) ends: " + \
                    (daemons.tail(logs[-1]) if logs else "")
            return None

        total = self.slots * self.taskmanagers
        ready = daemons.wait_until(lambda: (lambda o: o if o.get("slots-total", 0) >= total else None)(self.overview()),
                      timeout_s, failed=died)
        if not ready:
            self.stop()
            raise EngineError(f"Flink did not show {total} task slots at {self.rest_url}/overview within "
                              f"{timeout_s:.0f} s; logs: {log_dir}")
        LOG.debug("Flink %s session cluster at %s: %s", ready.get("flink-version"), self.rest_url, ready)
        if self.job_port:
            try:
                self.start_job_server()
            except EngineError:
                self.stop()
                raise
        return self

    def start_job_server(self, timeout_s: float = 120.0) -> str:
        """Start Beam's Flink job server beside the cluster (`job_port`), in a session of its own so that it
        outlives `rewrite-mine cluster start`; its pid in `workdir/job-server.pid`, its log in
        `workdir/log/job-server.log`, each job's staged artifacts under `workdir/artifacts` (removed when the
        job ends). Returns its endpoint once it listens."""
        if any(daemons.listens(p, self.job_port) for p in self.job_server_pids()):
            return self.job_endpoint
        daemons.kill(self.job_server_pids())  # one of this folder's on another port, or not listening
        java = need_java()
        jar = job_server_jar(FLINK)
        log_path = os.path.join(self.workdir, "log", "job-server.log")
        from pipelines.framework.engines import job_server  # pylint: disable=import-outside-toplevel
        if self.beam_lib and same_beam(os.path.basename(self.beam_lib), jar):
            jar = job_server.unstaged_jar(jar)  # the cluster has Beam's classes: its jobs need no jar
        cmd = job_server.command(java, FLINK, jar, self.master, self.job_port, self._artifacts_dir())
        with open(log_path, "wb") as log:  # a new log each start: it gets every job's metrics as it ends
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,  # pylint: disable=consider-using-with
                                    cwd=self.workdir, start_new_session=True)
        with open(os.path.join(self.workdir, "job-server.pid"), "w", encoding="utf-8") as f:
            f.write(f"{proc.pid}\n")

        def died():
            if proc.poll() is not None:
                return (f"Beam's Flink job server ({jar}) exited with {proc.returncode} at start; its log "
                        f"({log_path}) ends: {daemons.tail(log_path, 8)}")
            return None

        if not daemons.wait_until(lambda: daemons.listens(proc.pid, self.job_port), timeout_s, poll_s=0.3, failed=died):
            daemons.kill([proc.pid])
            raise EngineError(f"Beam's Flink job server did not listen on {self.job_endpoint} within {timeout_s:.0f} s; "
                              f"its log: {log_path}")
        LOG.debug("Beam's Flink job server kept beside %s at %s (pid %d)", self.rest_url, self.job_endpoint, proc.pid)
        return self.job_endpoint

    def configured_job_server(self) -> typing.Tuple[str, str]:
        """(endpoint, jar) of the job server the running cluster's configuration names (its runs look there);
        ("", "") for none."""
        return configured_job_server(self.master)

    def job_server_pids(self) -> typing.List[int]:
        """The kept job server's process: the pid file's, if that process is Beam's job server of this folder
        (not a process that got the pid since)."""
        return [p for p in daemons.pids_in(os.path.join(self.workdir, "job-server.pid"))
                if is_job_server(p, artifacts=self._artifacts_dir())]

    def _artifacts_dir(self) -> str:
        return os.path.join(os.path.abspath(self.workdir), "artifacts")  # the job server runs in the workdir

    def start_taskmanager(self, wait_s: float = 0.0, index: typing.Optional[int] = None) -> None:
        """Start TaskManager `index` (default: the first of the cluster's that is not running, e.g. after one
        died); with `wait_s`, wait until the cluster's slots are all free again."""
        if index is None:
            index = next((i for i in range(self.taskmanagers) if not self.taskmanager_pids(i)), self.taskmanagers)
        env = self._env()
        shim = self.write_docker_shim()
        if shim:
            env["PATH"] = os.path.dirname(shim) + os.pathsep + env.get("PATH", "")
        env["FLINK_PID_DIR"] = os.path.join(self.workdir, f"tm-{index}")
        os.makedirs(env["FLINK_PID_DIR"], exist_ok=True)
        resource_id = f"tm-{index}-{int(time.time() * 1000)}"
        daemons.run_script([os.path.join(self._home(), "bin", "taskmanager.sh"), "start", "-D",
                     f"taskmanager.resource-id={resource_id}"], env, "Flink's taskmanager.sh start")
        want = self.slots * self.taskmanagers
        if wait_s and not daemons.wait_until(lambda: self.overview().get("slots-available", 0) >= want, wait_s):
            raise EngineError(f"Flink's TaskManager did not register {self.slots} slots at {self.rest_url} within "
                              f"{wait_s:.0f} s; logs: {os.path.join(self.workdir, 'log')}")

    def taskmanager_pids(self, index: typing.Optional[int] = None) -> typing.List[int]:
        """The TaskManagers' processes (all, or TaskManager `index`'s)."""
        which = "*" if index is None else str(index)
        return daemons.pids_in(os.path.join(self.workdir, f"tm-{which}", "*taskexecutor*.pid")) + \
            (daemons.pids_in(os.path.join(self.workdir, "*taskexecutor*.pid")) if index is None else [])

    def taskmanager_pid_of(self, resource_id: str) -> typing.Optional[int]:
        """The process of the TaskManager the REST API names `resource_id` (tm-<index>-<start>)."""
        parts = resource_id.split("-")
        if len(parts) < 2 or parts[0] != "tm" or not parts[1].isdigit():
            return None
        pids = self.taskmanager_pids(int(parts[1]))
        return pids[-1] if pids else None

    def jobmanager_pids(self) -> typing.List[int]:
        return daemons.pids_in(os.path.join(self.workdir, "*standalonesession*.pid"))

    def stop(self) -> int:
        """Stop its JobManager, TaskManagers and job server, remove their temporary files (`workdir/tmp`: blob
        caches with each job's jar, which a killed TaskManager leaves behind; `workdir/artifacts`) and the
        containers its TaskManagers
        started that are still there; the logs stay. Returns the number of containers removed.

        Why the containers: Beam keeps a DOCKER job's containers for `--environment_cache_millis` (60 s,
        options.py) after the job's last stage, and only the TaskManager removes them; a cluster stopped
        within that minute left them running for good (the bench saw six after one run)."""
        daemons.kill(self.job_server_pids() + self.taskmanager_pids() + self.jobmanager_pids())
        for path in glob.glob(os.path.join(self.workdir, "*.pid")):
            with contextlib.suppress(OSError):
                os.remove(path)
        for name in ("tmp", "artifacts"):
            shutil.rmtree(os.path.join(self.workdir, name), ignore_errors=True)
        return self.remove_containers()

    @property
    def container_label(self) -> str:
        """`docker ps --filter label=...` of the containers this cluster's TaskManagers started."""
        return f"{CONTAINER_LABEL}={os.path.realpath(self.workdir)}"

    def write_docker_shim(self) -> typing.Optional[str]:
        """`workdir/bin/docker`, first on the TaskManagers' PATH: Beam's DOCKER environment runs `docker run -d
        ... IMAGE --id=...` through the `docker` it finds there (DockerCommand, no option for labels), and this
        hands every command to the engine's client, a `run` with this cluster's label. None (and no shim)
        where this machine has no `docker`: no job of the cluster can use DOCKER then."""
        path = os.path.join(self.workdir, "bin", "docker")
        docker = shutil.which("docker", path=os.pathsep.join(
            d for d in os.environ.get("PATH", "").split(os.pathsep) if d and os.path.abspath(d) != os.path.dirname(
                os.path.abspath(path))))  # not the shim itself, when its folder is on this process's PATH
        if not docker:
            return None
        docker = os.path.abspath(docker)
        text = ("#!/bin/sh\n"
                "# Written by rewrite-mine cluster start flink (pipelines/framework/engines/flink.py): the\n"
                "# containers Beam starts for this cluster's jobs carry its label, so that stopping the\n"
                "# cluster removes those Beam had not removed yet.\n"
                f'if [ "$1" = run ]; then shift; exec {shlex.quote(docker)} run --label '
                f'{shlex.quote(self.container_label)} "$@"; fi\n'
                f'exec {shlex.quote(docker)} "$@"\n')
        with contextlib.suppress(OSError):
            with open(path, encoding="utf-8") as f:
                if f.read() == text and os.access(path, os.X_OK):
                    return path  # a TaskManager started again beside running ones: theirs stays as it is
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(path + ".tmp", 0o755)
        os.replace(path + ".tmp", path)  # a running TaskManager never execs a half-written shim
        return path

    def remove_containers(self) -> int:
        """Remove (`docker rm -f`) the containers that carry this cluster's label; 0 without a shim or an
        engine that answers."""
        shim = os.path.join(self.workdir, "bin", "docker")
        docker = shutil.which("docker")
        if not docker or not os.path.exists(shim):
            return 0
        removed: typing.List[str] = []
        try:
            ps = subprocess.run([docker, "ps", "-a", "-q", "--filter", f"label={self.container_label}"],
                                capture_output=True, text=True, timeout=60, check=False)
            if ps.returncode != 0:  # no engine answers (not running, or not this user's): nothing of it runs
                LOG.debug("docker ps for the containers of Flink's jobs at %s: %s", self.workdir, ps.stderr.strip())
            elif ps.stdout.split():
                rm = subprocess.run([docker, "rm", "-f", *ps.stdout.split()], capture_output=True, text=True,
                                    timeout=120, check=False)
                removed = rm.stdout.split()  # the ids it removed; a container Beam removed meanwhile is not one
                errors = [line for line in rm.stderr.splitlines() if line.strip() and "No such container" not in line]
                if rm.returncode != 0 and errors:
                    LOG.warning("docker rm of the containers of Flink's jobs at %s: %s", self.workdir,
                                " ".join(errors)[-500:])
        except (OSError, subprocess.TimeoutExpired) as e:
            LOG.warning("could not list or remove the containers of Flink's jobs at %s: %s (`docker ps -a "
                        "--filter label=%s`)", self.workdir, e, self.container_label)
        if removed:
            LOG.info("removed %d container(s) Beam had started for jobs on Flink at %s", len(removed), self.workdir)
        return len(removed)

    def jobs(self) -> typing.List[dict]:
        return daemons.get_json(f"{self.rest_url}/jobs/overview").get("jobs", [])

    def job(self, jid: str) -> dict:
        return daemons.get_json(f"{self.rest_url}/jobs/{jid}")


def submit_options(master: str, beam_args) -> typing.Tuple[dict, dict]:
    """The Beam options of a run on the Flink cluster at `master` (REST address, or [local]) and what the
    manifest records of it; checks that a cluster answers there and runs the Flink Beam's job server is for."""
    info: typing.Dict[str, typing.Any] = {"name": FLINK, "master": master}
    options: typing.Dict[str, typing.Any] = {"flink_master": master, "flink_version": FLINK_MINOR}
    cache_environments(options, beam_args)
    parallelism = int(beam_option(beam_args, "parallelism") or -1)
    if master == "[local]":
        info["version"] = f"{FLINK_MINOR} (mini cluster in the job server)"
        if parallelism < 1:
            parallelism = os.cpu_count() or 1
    else:
        try:
            overview = daemons.get_json(f"http://{master}/overview")
        except Exception as e:  # noqa: BLE001 - any failure to reach it is the same for the user
            raise EngineError(f"no Flink cluster answers at http://{master} ({daemons.why(e)}): start one with "
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
        from pipelines.framework.engines import preflight  # network memory and restarts, before submission
        preflight.check(master, parallelism)
        if beam_option(beam_args, "job_endpoint") is None:
            kept = kept_job_server(master, beam_option(beam_args, "flink_job_server_jar") or job_server_jar(FLINK))
            if kept:
                options["job_endpoint"] = kept
        info.update(version=version, slots=slots, taskmanagers=managers)
        docker = str(beam_option(beam_args, "environment_type") or "").upper() == "DOCKER"
        per_slot = DOCKER_WORKERS_PER_SLOT if docker else WORKERS_PER_SLOT
        options["sdk_worker_parallelism"] = per_slot * max(1, slots // managers)
    options["parallelism"] = parallelism
    info["parallelism"] = parallelism
    return options, info


def is_job_server(pid: int, port: typing.Optional[int] = None, jar: str = "", artifacts: str = "") -> bool:
    """Whether process `pid` is Beam's Flink job server (of `jar`, on job port `port`, staging into
    `artifacts`, where given), by its command line."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().decode("utf-8", "replace").split("\0")
    except OSError:
        return False
    def value(flag):
        return argv[argv.index(flag) + 1] if flag in argv[:-1] else None
    jars = [a for a in argv if a.endswith(".jar")]
    return (any("job-server" in os.path.basename(a) for a in jars) and value("--job-port") is not None
            and (port is None or value("--job-port") == str(port))
            and (not jar or any(os.path.basename(a) == os.path.basename(jar) for a in jars))
            and (not artifacts or value("--artifacts-dir") == artifacts))


def beam_lib_version(name: str) -> str:
    """Beam's version in the name of a cluster's jar of Beam's runner classes ("" when it names none)."""
    m = re.search(r"-(\d+\.\d+\.\d+[\w.]*?)-lib\.jar$", name)
    return m.group(1) if m else ""


def same_beam(lib_name: str, jar: str) -> bool:
    """Whether a cluster's jar of Beam's runner classes (its name) is of job server `jar`'s Beam version."""
    return beam_lib_version(lib_name) == job_server_version(jar) != ""


def _cluster_setting(master: str, *keys: str) -> typing.Tuple[str, ...]:
    """The values of `keys` in the configuration of the Flink cluster at `master` (its REST API's
    /jobmanager/config), "" for each it lacks; all "" when it does not answer (an older REST API, a hiccup)."""
    try:
        config = {e.get("key"): e.get("value") for e in daemons.get_json(f"http://{master}/jobmanager/config")}
    except Exception:  # noqa: BLE001 - no answer: as a cluster that names nothing
        return tuple("" for _ in keys)
    return tuple(str(config.get(k) or "").strip().strip('"') for k in keys)


def cluster_has_beam(master: str, jar: str) -> bool:
    """Whether the Flink cluster at `master` says (in its configuration, `BEAM_LIB_KEY`) that it has Beam's
    runner classes of the version of job server `jar` on its classpath: then that job server need not send
    its jar with each job (`job_server.unstaged_jar`). False for no answer, or a cluster that does not say."""
    lib, = _cluster_setting(master, BEAM_LIB_KEY)
    return bool(lib) and same_beam(lib, jar)


def configured_job_server(master: str) -> typing.Tuple[str, str]:
    """(endpoint, jar) of the job server the Flink cluster at `master` names in its configuration
    (`FlinkCluster.job_port`, read over its REST API); ("", "") for none, or no answer."""
    endpoint, jar = _cluster_setting(master, JOB_ENDPOINT_KEY, JOB_SERVER_JAR_KEY)
    return endpoint, jar


def kept_job_server(master: str, jar: str, warn: bool = True) -> typing.Optional[str]:
    """The endpoint of the job server the cluster at `master` keeps beside it (`FlinkCluster.job_port`: named
    in its configuration), when it is Beam's job server of `jar` (the one this run would start) and
    listens there; else None, with a warning saying why (the run starts its own). Only for a cluster on
    this machine: the endpoint is on its loopback, and the process listening there is checked."""
    if not daemons.is_local(master):
        return None
    endpoint, kept_jar = configured_job_server(master)
    if not endpoint:
        return None
    say = LOG.warning if warn else LOG.debug
    if kept_jar != os.path.basename(jar):
        say("the Flink cluster at %s keeps a job server of another jar (%s, this run's: %s); this run starts its "
            "own (`rewrite-mine cluster stop flink`, then start it again, keeps this one)", master, kept_jar,
            os.path.basename(jar))
        return None
    port = endpoint.rsplit(":", 1)[-1]
    listening = [p for p in _java_pids() if port.isdigit() and is_job_server(p, int(port), jar)
                 and daemons.listens(p, int(port))]
    if not listening:
        say("the Flink cluster at %s names %s as its job server, and no job server of %s listens there; this "
            "run starts its own (`rewrite-mine cluster start flink` starts it again)", master, endpoint,
            os.path.basename(jar))
        return None
    return endpoint


def _java_pids() -> typing.List[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/comm", encoding="utf-8", errors="replace") as f:
                    if f.read().strip() == "java":
                        out.append(int(name))
            except OSError:
                continue
    return out
