"""Real engines: the jobs on a Flink session cluster and a Spark standalone cluster started here.

One Flink 1.19 cluster (a JobManager and a TaskManager with 2 slots, two JVMs) and one Spark 3.5 cluster
(a master and a worker with 2 cores) are started for this module, on free ports of loopback, from the
engines `make engines` fetched (tools/engines.sh; `make test` fetches them first). On Spark, every job goes
through Beam's job server to the cluster in one `rewrite-mine all` pipeline (Discovery, DiscoFuse, WikiSplit,
SimSim fed WikiSplit's pairs, ParaSCI) and must write the local runner's bytes: shards, TSVs, rejects and
counters (the session's `all_reference`, 2 local worker processes); on Flink the five jobs run in the worker
image (test_worker_image.py: the job FINISHED, every operator with parallelism 2, work done in both slots).
A killed TaskManager fails the run with its cause and publishes nothing; a cluster that is down at submit time
is one line naming its address.

Inputs are real: the first pages of the bundled enwiki excerpt (Wikipedia text, CC BY-SA), a history built
from them and WikiSplit's pairs, and the bundled scientific papers (samples/scientific/SOURCES.md).

`pytest -m "not engines"` leaves these out while working; `make test` and CI run them.
"""
import glob
import json
import os
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ENWIKI, ROOT  # noqa: E402
from pipelines.framework.engines import daemons  # noqa: E402
from pipelines.framework.engines.daemons import get_json  # noqa: E402
from pipelines.framework.engines.flink import FlinkCluster  # noqa: E402
from pipelines.framework.engines.options import (  # noqa: E402
    DOCKER_WORKERS_PER_SLOT, ENVIRONMENT_CACHE_MS, WORKERS_PER_SLOT)
from pipelines.framework.engines.paths import (  # noqa: E402
    ENV_ENGINES, EngineError, flink_home, job_server_jar, need_java, spark_version)
from pipelines.framework.engines.spark import SparkCluster  # noqa: E402
from pipelines.framework.engines.submission import is_local, submission  # noqa: E402
from pipelines.framework.workers.external_pool import free_fixed_port, free_port  # noqa: E402

pytestmark = [pytest.mark.engines, pytest.mark.slow]

@pytest.fixture(scope="module")
def flink(tmp_path_factory):
    # No restart strategy: a lost TaskManager fails the job (the clean failure is tested here; the
    # restarts of `cluster start flink`'s default are in test_engine_faults.py). Beam's job server kept
    # beside it, as `cluster start flink` keeps one: this module's runs use it (the other modules' clusters
    # keep none, and their runs start their own).
    cluster = FlinkCluster(str(tmp_path_factory.mktemp("flink")), port=free_port(),
                                   rpc_port=free_port(), slots=2, restart_attempts=0, job_port=free_fixed_port())
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    cluster = SparkCluster(str(tmp_path_factory.mktemp("spark")), port=free_port(),
                                   ui_port=free_port(), worker_ui_port=free_port(), cores=2)
    os.environ["REWRITE_MINE_SPARK_UI"] = cluster.ui_url  # the submission reads the master's version there
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
        os.environ.pop("REWRITE_MINE_SPARK_UI", None)


def _check_engine(manifest, name, version_prefix):
    run = manifest["run"]
    assert run["runner"] == name
    engine = run["engine"]
    assert engine["name"] == name and str(engine["version"]).startswith(version_prefix)
    assert engine["job_server"].startswith(f"beam-runners-{name}")
    # Python workers kept between stages (Beam's environment cache; on Flink, Beam's classes on the cluster's
    # classpath): for the five jobs in one run, a few per slot / core (Spark: 8 here), where a worker is idle
    # past the cache's minute between stages. Without the cache, every stage starts its own: some 30 a run for
    # Discovery alone.
    assert 2 <= engine["sdk_worker_processes"] <= 6 * WORKERS_PER_SLOT, engine
    return engine


def _every_dataset_alike(manifests, out, reference):
    """Each of the five datasets of one `all` run on an engine is the local runner's, byte for byte."""
    assert tuple(m["dataset"] for m in manifests) == h.ALL_DATASETS
    by_name = {m["dataset"]: m for m in manifests}
    assert by_name["fusion"]["job_info"]["annotator"] == "spacy"  # DiscoFuse parsed inside the engine's workers
    for dataset in h.ALL_DATASETS:
        h.same_dataset(out / dataset, reference / dataset)


def test_every_job_on_spark_writes_the_local_runners_bytes(spark, all_reference, tmp_path):
    """All five miners in one `rewrite-mine all` pipeline on Spark standalone: Discovery, DiscoFuse (spaCy),
    WikiSplit, SimSim (Apertium, the n-gram LM, BERTScore on CTranslate2) fed WikiSplit's pairs, and ParaSCI
    (MiniLM on CTranslate2). One submission replaces one per job (a job server and its SDK workers each).
    (Over 60 s: five jobs' models in the executors' workers. On Flink, the five jobs run in the image's
    workers from and to MinIO, test_worker_image.py; until 2026-11-29 they also ran here with the driver's
    workers, which cost ~3 min of the suite's budget, issue 49, and proved the same Python on the same
    engine. Flink with the driver's workers: test_engine_faults.py, Discovery against the local bytes.)"""
    out = tmp_path / "spark"
    manifests = h.run_all(h.all_args() + ["--output", str(out), "--no_progress", "--runner", "spark",
                                          "--spark_master_url", spark.master_url])
    for m in manifests:
        assert _check_engine(m, "spark", spark_version())["cores"] == 2
    apps = [a for a in spark.applications() if a.get("state") == "FINISHED"]
    assert apps and apps[-1]["cores"] == 2
    _every_dataset_alike(manifests, out, all_reference)
    # The executor got the job server's jar only, not Spark's own jars again (420 MB per executor and
    # job, which filled CI's disk), and the worker deletes an application's directory an hour after it ended.
    staged = {os.path.basename(p) for p in glob.glob(os.path.join(spark.workdir, "work", apps[-1]["id"], "*", "*.jar"))}
    assert staged == {os.path.basename(job_server_jar("spark"))}, staged
    with open(f"/proc/{spark.worker_pids()[0]}/cmdline", "rb") as f:
        worker = f.read().decode().split("\0")
    assert {"-Dspark.worker.cleanup.enabled=true", "-Dspark.worker.cleanup.interval=60",
            "-Dspark.worker.cleanup.appDataTtl=3600"} <= set(worker), worker


def test_the_engines_jvms_the_tests_start_compile_with_c1_only(flink):
    """The suite's budget lever (conftest.JVM_TEST_OPTIONS): the cluster's JVMs got it through their
    environment, as Beam's job servers and Spark's executors do."""
    assert flink.job_server_pids()
    for pid in flink.taskmanager_pids() + flink.jobmanager_pids() + flink.job_server_pids():
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(v.split("=", 1) for v in f.read().decode("utf-8", "replace").split("\0") if "=" in v)
        assert "-XX:TieredStopAtLevel=" in env.get("JAVA_TOOL_OPTIONS", ""), (pid, env)


def _cli(argv, **kw):
    return subprocess.Popen([sys.executable, "-m", "pipelines.cli"] + argv, cwd=str(ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.parametrize("runner", ["flink", "spark"])
def test_a_cluster_that_is_down_is_one_line_naming_its_address(runner, tmp_path):
    port = free_port()
    address = f"localhost:{port}" if runner == "flink" else f"spark://127.0.0.1:{port}"
    flag = "--flink_master" if runner == "flink" else "--spark_master_url"
    proc = _cli(["discovery", "--input", str(ENWIKI), "--output", str(tmp_path), "--runner", runner, flag, address])
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    lines = [line for line in err.splitlines() if line.startswith("rewrite-mine")]
    assert len(lines) == 2 and address.split("//")[-1] in lines[0] and "cluster start" in lines[0], err
    assert "Traceback" not in err + out
    assert not (tmp_path / "markers").exists()


def test_killing_the_taskmanager_fails_the_run_with_its_cause_and_publishes_nothing(flink, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for i in range(12):  # long enough to be killed mid-run
        os.symlink(ENWIKI, inputs / f"enwiki-20240601-pages-articles{i + 1}.xml-p10p30302.bz2")
    out = tmp_path / "out"
    proc = _cli(["discovery", "--input", str(inputs / "*.bz2"), "--output", str(out), "--preset", "sample",
                 "--runner", "flink", "--flink_master", flink.master, "--no_progress"])
    try:
        deadline = time.time() + 240
        running = None
        while time.time() < deadline and proc.poll() is None and running is None:
            time.sleep(1)
            for job in flink.jobs():
                if job["state"] == "RUNNING" and job["tasks"].get("running", 0) > 0:
                    running = job
        assert running is not None, "the job never ran"
        time.sleep(3)  # mid-run: its SDK workers are reading
        for pid in flink.taskmanager_pids():
            os.kill(pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
        flink.start_taskmanager(wait_s=180)  # the cluster as the other tests found it
    assert proc.returncode == 2
    assert "the pipeline failed" in err and "TaskManager" in err and "Nothing was published" in err, err
    assert "Traceback" not in err
    assert not (out / "markers" / "manifest.json").exists()
    assert get_json(f"{flink.rest_url}/jobs/{running['jid']}")["state"] == "FAILED"


def test_runs_use_the_job_server_the_cluster_keeps_and_write_the_local_bytes(flink, tmp_path, caplog):
    """`rewrite-mine cluster start flink` keeps Beam's job server beside the cluster (--job_server_port) and
    names it in the cluster's configuration; a run on the cluster finds it there and starts none of its own
    (a JVM's start and a cold translation less: ~5-9 s of a 40-copy run, docs/RUNNERS.md). The kept one
    outlives the run; when it is gone, a run starts its own with a warning, and `cluster start` starts it again."""
    server = flink.job_server_pids()
    assert server and daemons.listens(server[0], flink.job_port)
    out = tmp_path / "out"
    proc = _cli(["discovery", "--input", h.inputs()["articles"], "--output", str(out), *h.DISCOVERY_ARGS,
                 "--runner", "flink", "--flink_master", flink.master, "--parallelism", "2", "--no_progress"])
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    with open(out / "markers" / "manifest.json", encoding="utf-8") as f:
        engine = json.load(f)["run"]["engine"]
    assert engine["job_server"].endswith(f", kept by the cluster at {flink.job_endpoint}"), engine
    # Its workers came from the fork server `rewrite-mine` started before it imported the job (warm.start_early):
    # its imports ran beside the driver's, and the job's first tasks did not wait for them. The run took it
    # because its workers' thread counts agreed with the --parallelism given (a run given one got none before).
    assert engine["sdk_worker_fork_server"] == "started with the driver, before the job was imported", engine
    assert engine["sdk_worker_processes_forked"] == engine["sdk_worker_processes"] >= 2, engine
    assert "job server said" not in err  # no job server of its own, whose log a run prints when it stops it
    assert h.digest(out / "markers") == h.digest(h.reference("discovery"))
    assert flink.job_server_pids() == server  # still there for the next run
    # Each job's staged files are removed as it ends (a run whose workers start here stages none: no folder).
    artifacts = os.path.join(flink.workdir, "artifacts")
    assert not os.path.isdir(artifacts) or not os.listdir(artifacts)
    # The cluster has Beam's classes (FlinkCluster.beam_lib), so the kept job server sends no jar with its jobs:
    # the TaskManager's blob cache holds the job's own blobs (its offloaded information), and no 164 MB jar.
    jid = max(flink.jobs(), key=lambda j: j.get("start-time", 0))["jid"]
    blobs = glob.glob(os.path.join(flink.workdir, "tmp", "*", "blobStorage", f"job_{jid}", "blob_p-*"))
    assert blobs, os.listdir(os.path.join(flink.workdir, "tmp"))
    assert max(os.path.getsize(b) for b in blobs) < 20_000_000, [(b, os.path.getsize(b)) for b in blobs]
    assert "gradle/wrapper" in " ".join(open(f"/proc/{server[0]}/cmdline", "rb").read().decode().split("\0"))

    # The same submission chooses its own with --own_job_server, and a --job_endpoint given wins.
    own = submission("flink", ["--flink_master", flink.master], own_job_server=True)
    own.job_server.stop()
    assert own.options["job_endpoint"] == own.job_server.endpoint != flink.job_endpoint
    assert os.path.samefile(own.job_server.jar, job_server_jar("flink")) and "gradle/wrapper" in own.job_server.jar
    given = submission("flink", ["--flink_master", flink.master, "--job_endpoint", "localhost:1"])
    assert given.job_server is None and "job_endpoint" not in given.options

    # Gone: the next run starts its own, and says why; `cluster start` starts it again.
    daemons.kill(server)
    with caplog.at_level("WARNING", logger="rewrite_mine"):
        fallback = submission("flink", ["--flink_master", flink.master])
    assert fallback.job_server is not None, (fallback.options, caplog.text)
    fallback.job_server.stop()
    assert any(f"names {flink.job_endpoint} as its job server, and no job server of" in r.getMessage()
               for r in caplog.records), caplog.text
    argv = ["cluster", "start", "flink", "--dir", flink.workdir, "--port", str(flink.port), "--rpc_port",
            str(flink.rpc_port), "--job_server_port", str(flink.job_port)]
    started = _cli(argv)
    said, err = started.communicate(timeout=300)
    assert started.returncode == 0 and f"started its job server again at {flink.job_endpoint}" in said, said + err
    assert flink.job_server_pids() and flink.job_server_pids() != server
    status = _cli(["cluster", "status", "flink", "--dir", flink.workdir, "--port", str(flink.port)])
    said, err = status.communicate(timeout=120)
    assert status.returncode == 0 and f'"job_server": "{flink.job_endpoint}"' in said, said + err


# ------------------------------------------------------------------ without a cluster


def test_a_kept_job_server_is_told_by_its_command_line_not_by_its_pid_or_port_alone(tmp_path):
    # A pid file outlives its process, and its pid may be another's since; a port may be held by another
    # job service (8099 is Beam's default for every job server): a run uses a kept job server only when
    # the process is Beam's job server of the jar it would start, on that port.
    from pipelines.framework.engines.flink import is_job_server
    jar = "/x/beam-runners-flink-1.19-job-server-2.62.0.jar"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "-jar", jar, "--job-port", "8099",
                             "--artifacts-dir", str(tmp_path / "artifacts")])
    other = subprocess.Popen(["sleep", "120"])
    try:
        time.sleep(0.5)
        assert is_job_server(proc.pid) and is_job_server(proc.pid, 8099, jar, str(tmp_path / "artifacts"))
        assert not is_job_server(proc.pid, 8098)
        assert not is_job_server(proc.pid, 8099, "/x/beam-runners-flink-1.19-job-server-2.61.0.jar")
        assert not is_job_server(proc.pid, artifacts=str(tmp_path / "elsewhere"))
        assert not is_job_server(other.pid) and not is_job_server(2 ** 22 + 7)
    finally:
        proc.kill()
        other.kill()


def test_a_job_server_for_a_cluster_with_beams_classes_runs_from_a_path_beam_does_not_stage(tmp_path):
    # Beam's job server stages every jar of its classpath with each job, unless the path holds "gradle/wrapper"
    # (PipelineResources.isStageable). The rule is Beam's: if the jar `make engines` fetched stops saying so,
    # jobs would carry the 164 MB jar again (slower, still right), and this test says where to look.
    import zipfile
    from pipelines.framework.engines.job_server import UNSTAGED_MARK, unstaged_jar
    with zipfile.ZipFile(job_server_jar("flink")) as z:
        code = z.read("org/apache/beam/sdk/util/construction/resources/PipelineResources.class")
    assert UNSTAGED_MARK.encode() in code
    # the same file (a link), made once, made again when the jar is replaced
    jar = tmp_path / "beam-runners-flink-1.19-job-server-2.62.0.jar"
    jar.write_bytes(b"one")
    linked = unstaged_jar(str(jar))
    assert UNSTAGED_MARK in linked and os.path.samefile(linked, jar) and os.path.basename(linked) == jar.name
    assert unstaged_jar(str(jar)) == linked
    jar.unlink()
    jar.write_bytes(b"two!")
    assert unstaged_jar(str(jar)) == linked and os.path.samefile(linked, jar)
    with open(linked, "rb") as f:
        assert f.read() == b"two!"
    # a folder it cannot write: the jar itself (sent with each job, as Beam does)
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        (ro / jar.name).write_bytes(b"x")
        ro.chmod(0o555)
        assert unstaged_jar(str(ro / jar.name)) == str(ro / jar.name)
    # the cluster's configuration says which Beam it has; another version's job server sends its jar
    from pipelines.framework.engines.flink import beam_lib_version
    assert beam_lib_version("beam-runners-flink-1.19-2.62.0-lib.jar") == "2.62.0"
    assert beam_lib_version("flink-dist-1.19.3.jar") == ""


def test_a_start_on_a_taken_port_or_without_the_engines_says_what_to_do(tmp_path, monkeypatch):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        taken = s.getsockname()[1]
        with pytest.raises(EngineError, match=rf"REST port {taken} is already in use.*--port"):
            FlinkCluster(str(tmp_path / "f"), port=taken, rpc_port=free_port()).start()
        with pytest.raises(EngineError, match=rf"master port {taken} is already in use"):
            SparkCluster(str(tmp_path / "s"), port=taken).start()
    monkeypatch.setenv(ENV_ENGINES, str(tmp_path / "empty"))
    with pytest.raises(EngineError, match=r"Flink's distribution is not in .*make engines"):
        flink_home()
    with pytest.raises(EngineError, match=r"Beam's Spark job server is not in .*make engines"):
        job_server_jar("spark")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineError, match=r"Java is needed.*openjdk-17"):
        need_java()


def test_flink_needs_a_master_and_a_remote_cluster_needs_an_environment():
    with pytest.raises(EngineError, match=r"--runner flink needs --flink_master HOST:PORT"):
        submission("flink", [])
    with pytest.raises(EngineError, match=r"--runner spark needs --spark_master_url"):
        submission("spark", ["--spark_master_url", ""])
    with pytest.raises(EngineError, match=r"expected spark://HOST:PORT"):
        submission("spark", ["--spark_master_url", "127.0.0.1:7077"])
    # A cluster on another host cannot reach SDK workers started here: the user names their environment.
    for engine, flag, master in (("flink", "--flink_master", "flink.example.org:8081"),
                                 ("spark", "--spark_master_url", "spark://spark.example.org:7077")):
        with pytest.raises(EngineError, match=r"not on this machine.*--environment_type DOCKER"):
            submission(engine, [flag, master])
    assert is_local("localhost:8081") and is_local("127.0.0.1:8081")


def test_a_crashing_flink_jvm_writes_its_crash_file_beside_the_clusters_logs(flink):
    # A TaskManager JVM that died of SIGSEGV once left hs_err_pid*.log in the directory the suite ran from.
    import yaml
    with open(os.path.join(flink.workdir, "conf", "config.yaml"), encoding="utf-8") as f:
        conf = yaml.safe_load(f)
    opts = conf["env.java.opts.all"] if "env.java.opts.all" in conf else conf["env"]["java"]["opts"]["all"]
    log_dir = os.path.join(flink.workdir, "log")
    assert f"-XX:ErrorFile={os.path.join(log_dir, 'hs_err_pid%p.log')}" in opts
    assert "--add-opens" in opts  # the distribution's own options kept
    # the running JVMs got it (Java accepts the flag: the cluster is up)
    jvms = subprocess.run(["ps", "-ww", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    mine = [line for line in jvms.splitlines() if "-XX:ErrorFile=" + log_dir in line]
    assert len(mine) == 2, jvms  # the JobManager and the TaskManager
    # 4 MB of thread stack: the JobManager deserializes `all`'s JobGraph recursively (StackOverflowError at 1 MB)
    assert all("-Xss4m" in line for line in mine), mine



def test_flinks_rpc_timeout_is_a_minute_on_the_clusters_we_start(flink):
    # A full run beside a heavy job failed a job on "TaskManager not responding after a rpcTimeout of
    # 10000 ms" (deploying a task). The JobManager took the setting: its REST API lists it.
    import yaml
    with open(os.path.join(flink.workdir, "conf", "config.yaml"), encoding="utf-8") as f:
        conf = yaml.safe_load(f)
    assert conf["pekko.ask.timeout"] == "60 s"
    config = {e["key"]: e["value"] for e in get_json(f"{flink.rest_url}/jobmanager/config")}
    assert config.get("pekko.ask.timeout") == "60 s", config
    # A finished job's jar (164 MB) leaves the TaskManagers' blob caches after a minute, not an hour.
    assert conf["blob.service.cleanup.interval"] == 60
    assert config.get("blob.service.cleanup.interval") == "60", config


def test_a_stopped_cluster_leaves_its_logs_and_not_its_temporary_files(tmp_path):
    # What a killed TaskManager leaves (blob caches with each job's jar) and the jars staged to Spark's
    # executors are removed when the cluster stops; logs stay to be read.
    def tree(root, files):
        for name in files:
            os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write("x")
    flink_dir, spark_dir = tmp_path / "flink", tmp_path / "spark"
    tree(flink_dir, ["tmp/tm_tm-0-1/blobStorage/job_1/blob_p-1", "log/flink-taskexecutor-0.log",
                     "artifacts/job_1/artifact"])
    # stands for the job server it keeps (its pid file is read, and the process's command line checked)
    kept = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "-jar",
                             "beam-runners-flink-1.19-job-server-2.62.0.jar", "--job-port", "8099",
                             "--artifacts-dir", str(flink_dir / "artifacts")])
    (flink_dir / "job-server.pid").write_text(f"{kept.pid}\n", encoding="utf-8")
    FlinkCluster(str(flink_dir), beam_lib="").stop()
    assert kept.wait(timeout=30) is not None
    assert not (flink_dir / "tmp").exists() and (flink_dir / "log" / "flink-taskexecutor-0.log").is_file()
    assert not (flink_dir / "artifacts").exists() and not (flink_dir / "job-server.pid").exists()
    tree(spark_dir, ["work/app-1-0001/0/beam-runners-spark-3-job-server.jar", "work/app-1-0001/0/stderr",
                     "tmp/spark-1/blockmgr-1/0a/shuffle_0_0_0.data", "log/spark-worker.out"])
    SparkCluster(str(spark_dir)).stop()
    assert sorted(os.listdir(spark_dir / "work" / "app-1-0001" / "0")) == ["stderr"]
    assert not (spark_dir / "tmp").exists() and (spark_dir / "log" / "spark-worker.out").is_file()


def test_the_options_a_local_flink_run_gets(flink):
    # A job server of its own (the cluster keeps one, which runs use: the test above).
    sub = submission("flink", ["--flink_master", flink.master], own_job_server=True)
    sub.job_server.stop()  # launched at once (it starts while the pipeline is built); not needed here
    o = sub.options
    assert (o["runner"], o["flink_master"], o["parallelism"], o["sdk_worker_parallelism"]) == (
        "FlinkRunner", flink.master, 2, 2 * WORKERS_PER_SLOT)
    assert o["environment_cache_millis"] == ENVIRONMENT_CACHE_MS
    # what the user gives wins
    mine = submission("flink", ["--flink_master", flink.master, "--sdk_worker_parallelism", "1",
                                        "--environment_cache_millis", "0"], own_job_server=True)
    mine.job_server.stop()
    assert "sdk_worker_parallelism" not in mine.options and "environment_cache_millis" not in mine.options
    assert o["environment_type"] == "EXTERNAL" and o["environment_config"] == sub.pool.address
    assert o["job_endpoint"] == sub.job_server.endpoint
    assert os.path.samefile(sub.job_server.jar, job_server_jar("flink"))
    # Workers this run starts from its own interpreter: no `pip freeze` staged to compare them with; the
    # user's experiments kept. Workers in an image: Beam's comparison stays.
    import types
    from apache_beam.options.pipeline_options import DebugOptions
    from pipelines.framework.runners import make_options
    for given, external in (([], True), (["--experiments=use_runner_v2"], True),
                            (["--environment_type", "DOCKER", "--environment_config", "x:1"], False)):
        args = types.SimpleNamespace(runner="flink", output="/tmp/out", own_job_server=True, validation=False)
        made = make_options(args, ["--flink_master", flink.master, *given])
        args._engine.job_server.stop()  # pylint: disable=protected-access
        experiments = made.view_as(DebugOptions).experiments or []
        assert ("disable_logging_submission_environment" in experiments) == external, experiments
        assert ("use_runner_v2" in experiments) == ("--experiments=use_runner_v2" in given)
    docker = submission("flink", ["--flink_master", flink.master, "--environment_type", "DOCKER",
                                          "--environment_config", "registry/rewrite-mining:0.1.0"], own_job_server=True)
    docker.job_server.stop()
    assert docker.pool is None and "environment_type" not in docker.options
    # one container of the image per slot (options.DOCKER_WORKERS_PER_SLOT: each is a cold Python loading models)
    assert docker.options["sdk_worker_parallelism"] == 2 * DOCKER_WORKERS_PER_SLOT == 2
    assert json.loads(json.dumps(docker.info))["environment"] == "DOCKER"


@pytest.mark.parametrize("engine", ["flink", "spark"])
def test_a_job_server_whose_port_was_taken_since_it_was_picked_starts_on_another(engine, caplog):
    # A full run beside a heavy job (issue 39): between free_port() and the JVM's bind another process
    # took the port, the job server died with "Address already in use" and the rerun of a fault test failed.
    # Spark's job server logs nothing at all and exits 0 when its port is taken (CI failed every Spark test
    # when "listening" meant Flink's log line): listening is the JVM's own socket on the port.
    import socket
    from pipelines.framework.engines import daemons
    from pipelines.framework.engines.job_server import JobServer
    master = "localhost:1" if engine == "flink" else "spark://127.0.0.1:1"  # no cluster needed to listen
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.bind(("0.0.0.0", 0))
    held.listen(1)
    server = JobServer(engine, job_server_jar(engine), master)
    taken = held.getsockname()[1]
    server.port, server.endpoint = taken, f"localhost:{taken}"
    try:
        with caplog.at_level("WARNING", logger="rewrite_mine"):
            endpoint = server.start(timeout_s=120)
        assert endpoint == server.endpoint != f"localhost:{taken}"
        assert daemons.listens(server._proc.pid, server.port)  # pylint: disable=protected-access
        assert not daemons.listens(server._proc.pid, taken)  # pylint: disable=protected-access
        assert any(f"could not bind port {taken}" in r.getMessage() for r in caplog.records)
    finally:
        server.stop()
        held.close()
    # and when every attempt meets a taken port, the run fails with the job server's own words
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.bind(("0.0.0.0", 0))
    held.listen(1)
    server = JobServer(engine, job_server_jar(engine), master)
    server.port = held.getsockname()[1]
    server.endpoint = f"localhost:{server.port}"
    try:
        with pytest.raises(EngineError, match="Address already in use|is held by another process"):
            server.start(timeout_s=120, attempts=1)
    finally:
        server.stop()
        held.close()
