"""Beam's Flink or Spark job server for one run, started from the jar `make engines` fetched.

A portable Beam job is submitted to a job server, which translates it for the engine. Beam's own
FlinkRunner / SparkRunner would download the jar at run time (never done here) and stop it only at
interpreter exit (which `rewrite-mine` skips); `JobServer` starts the cached jar on free ports, starts
its JVM while the driver builds the pipeline, and stops it when the run ends.
"""
import contextlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
import typing

from pipelines.framework.engines import daemons
from pipelines.framework.engines.paths import FLINK, EngineError, need_java
from pipelines.framework.workers.external_pool import die_with_parent, free_port

LOG = logging.getLogger("rewrite_mine")
# How many ports a job server is started on before the run fails (each taken since it was picked).
PORT_ATTEMPTS = 3


#: Beam's job server stages every jar on its own classpath with each job it submits
#: (`PipelineResources.detectClassPathResourcesToStage`): on Flink, its own 164 MB jar went to the cluster with
#: every job, was written to the JobManager's blob store, and fetched into the TaskManager's blob cache, ~1.5-2.5 s
#: of each submission. Beam leaves out any classpath entry whose path contains this mark
#: (`PipelineResources.isStageable`, made for Gradle's wrapper jar).
UNSTAGED_MARK = "gradle/wrapper"


def unstaged_jar(jar: str) -> str:
    """The same file as `jar` (a hard link, or a copy where links cannot be made) at a path Beam's job server
    does not stage (`UNSTAGED_MARK`), beside it: `DIR/unstaged/gradle/wrapper/NAME.jar`.

    For clusters that already have Beam's runner classes on their classpath (a `FlinkCluster` with its
    `beam_lib`, loaded parent-first): their jobs need no jar of their own, and a job server run from this path
    submits none. A cluster without them needs the jar: use `jar` itself there.
    """
    target_dir = os.path.join(os.path.dirname(os.path.abspath(jar)), "unstaged", *UNSTAGED_MARK.split("/"))
    target = os.path.join(target_dir, os.path.basename(jar))
    if os.path.exists(target) and (os.path.samefile(target, jar) or (
            os.path.getsize(target) == os.path.getsize(jar) and os.path.getmtime(target) >= os.path.getmtime(jar))):
        return target
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(target_dir, exist_ok=True)
        try:
            os.link(jar, tmp)
        except OSError:  # another file system, or one without hard links: a copy (a symlink would be resolved)
            shutil.copyfile(jar, tmp)
        os.replace(tmp, target)
    except OSError as e:  # a folder this user cannot write: the job server ships its jar, as Beam's does
        LOG.info("Beam's job server will send its jar with each job (%s: %s)", target_dir, e)
        with contextlib.suppress(OSError):
            os.remove(tmp)
        return jar
    return target


def command(java: str, engine: str, jar: str, master: str, port: int, artifacts: str) -> typing.List[str]:
    """The command line of Beam's `engine` job server from `jar`, for the cluster at `master`, on job port
    `port` (its artifact and expansion services on free ports), staging into `artifacts`."""
    return [java, "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd HH:mm:ss,SSS", "-jar", jar,
            "--flink-master" if engine == FLINK else "--spark-master-url", master, "--job-port", str(port),
            "--artifact-port", "0", "--expansion-port", "0", "--artifacts-dir", artifacts]


class JobServer:
    """Beam's Flink or Spark job server (`java -jar` of the cached jar) for one run, on free ports of localhost.

    Beam's own FlinkRunner / SparkRunner would start the same jar, but they stop it only at interpreter
    exit (which `rewrite-mine` skips) and take over SIGINT; here it stops when the run ends.
    """

    def __init__(self, engine: str, jar: str, master: str, stage_jar: bool = True):
        """`stage_jar`: False for a cluster that has Beam's runner classes of `jar`'s version on its classpath
        (the job server then runs from `unstaged_jar(jar)` and submits no jar with the job)."""
        self.engine, self.master = engine, master
        self.jar = jar if stage_jar else unstaged_jar(jar)
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
        cmd = command(java, self.engine, self.jar, self.master, self.port, os.path.join(self._dir, "artifacts"))
        LOG.info("starting Beam's %s job server: %s", self.engine, " ".join(cmd))
        with open(self._log_path, "wb") as log:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,  # pylint: disable=consider-using-with
                                          stderr=subprocess.STDOUT, preexec_fn=die_with_parent)

    def start(self, timeout_s: float = 120.0, attempts: int = PORT_ATTEMPTS) -> str:
        """Launch it if needed and wait until its JVM listens on its job port. The port was free when
        it was picked; on a busy machine another process can take it before the JVM binds it (seen in a
        full test run beside a heavy job: Flink's job server says "Address already in use", Spark's exits
        0 without a word). Then the job server starts again on another free port, up to `attempts` times,
        and `endpoint` says which (the caller passes it on to the pipeline's options)."""
        self.launch()
        for attempt in range(1, attempts + 1):
            log_path = self._log_path

            def died():
                if self._proc.poll() is not None:
                    held = (f" (port {self.port} is held by another process)" if self._port_was_taken() else "")
                    return (f"Beam's {self.engine} job server ({self.jar}) exited with {self._proc.returncode} "
                            f"at start{held}: {daemons.tail(log_path, 8)}")
                return None

            def listening():
                # the JVM's own socket, not only a taken port: the port may be held by the process that took it
                return self._proc.poll() is None and daemons.listens(self._proc.pid, self.port)

            try:
                if daemons.wait_until(listening, timeout_s, poll_s=0.3, failed=died):
                    return self.endpoint
            except EngineError:
                if attempt < attempts and self._port_was_taken():
                    LOG.warning("Beam's %s job server could not bind port %d (taken by another process since "
                                "it was picked); starting it again on another port", self.engine, self.port)
                    self._relaunch_on_a_new_port()
                    continue
                self.stop()
                raise
            self.stop()
            raise EngineError(f"Beam's {self.engine} job server did not listen on {self.endpoint} within "
                              f"{timeout_s:.0f} s: {daemons.tail(log_path, 8)}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _read_log(self) -> str:
        try:
            with open(self._log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _port_was_taken(self) -> bool:
        """Its JVM could not bind the port: Flink's says so, Spark's exits without a word while another
        process holds the port."""
        text = self._read_log()
        if "Address already in use" in text and str(self.port) in text:
            return True
        ours = self._proc is not None and self._proc.poll() is None and daemons.listens(self._proc.pid, self.port)
        return not ours and daemons.port_taken(self.port)

    def _relaunch_on_a_new_port(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
        self._proc, self._dir = None, None
        self.port = free_port()
        self.endpoint = f"localhost:{self.port}"
        self.launch()

    def log_tail(self, lines: int = 20) -> str:
        return daemons.tail(self._log_path, lines)

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
