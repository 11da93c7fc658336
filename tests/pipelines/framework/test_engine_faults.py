"""A TaskManager dies mid-run and the job still finishes, with the same bytes and the same counts (issue 39).

A Flink session cluster as `rewrite-mine cluster start flink --taskmanagers 2 --job_server_port 0` starts it
(two TaskManagers of 2 slots, fixed-delay restarts, no job server kept: each run starts its own, as on a
cluster of a user's own, and the driver-kill tests count it among the driver's processes), on loopback. Discovery on 6 copies of the bundled enwiki excerpt runs
with `--parallelism 2`, and as soon as a stage has its input or has written records
(a point the test sees over the REST API, not a timer; `_busy_taskmanager`) the TaskManager that runs the job's tasks is
SIGKILLed. Flink restarts the failed region on the other TaskManager's slots; the run must exit 0, write
the local runner's bytes and counters (read = kept + rejected, nothing counted twice:
counters are records of the job's own output, not the engine's attempted metrics), publish once, and
Flink's exception history must show the failure it recovered from (a kill that hit an idle
TaskManager would prove nothing).

`pytest -m "not engines"` leaves it out while working; `make test` and CI run it.
"""
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
from pipelines.framework.engines.spark import SparkCluster  # noqa: E402
from pipelines.framework.workers.external_pool import free_port  # noqa: E402

pytestmark = [pytest.mark.engines, pytest.mark.slow]

COPIES = 6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # `rewrite-mine cluster start flink`'s restarts (5, 5 s apart). With 2 s apart, a full run beside a heavy job
    # spent all five before the JobManager had marked the killed TaskManager lost: each restart read the
    # dead one's partitions again ("Connection refused: localhost/127.0.0.1:39239", then "Recovery is
    # suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=5, backoffTimeMS=2000)").
    c = FlinkCluster(str(tmp_path_factory.mktemp("flink2")), port=free_port(),
                     rpc_port=free_port(), slots=2, taskmanagers=2)
    c.start()
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("copies")
    for i in range(COPIES):
        os.symlink(ENWIKI, d / f"enwiki-20240601-pages-articles{i + 1}.xml-p10p30302.bz2")
    return ["--input", str(d / "*.bz2"), "--preset", "sample", "--num_shards", "2"]


@pytest.fixture(scope="module")
def local(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    h.run_job("pipelines.discovery", inputs + ["--output", str(out), "--num_workers", "2", "--no_progress"])
    return out / "markers"


def _submit(cluster, inputs, out):
    return subprocess.Popen([sys.executable, "-m", "pipelines.cli", "discovery"] + inputs + [
        "--output", str(out), "--runner", "flink", "--flink_master", cluster.master, "--parallelism", "2",
        "--no_progress"], cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _job_of(cluster, before):
    jobs = [j for j in cluster.jobs() if j["jid"] not in before]
    return jobs[0] if jobs else None


def _busy_taskmanager(cluster, jid):
    """The resource id of a TaskManager running a subtask that has its input (records read) or has written
    records, or None.

    Records read, not only written: Beam's Flink runner hands a batch stage's whole partition to the SDK
    worker as one bundle, and the worker sends its output back when the bundle ends. The read stage (most
    of the job's work: ~17 s of a 6-copy run on this machine) shows 0 records written until its last
    moment, and only the short stages after it show some while they run (windows of 1-6 s; a faster host
    ran them all between two polls and a full run on CI failed for it, 2026-11-29). Its input (the 6 file
    names) is read as it starts."""
    job = cluster.job(jid)
    if job.get("state") != "RUNNING":
        return None
    for v in job["vertices"]:
        m = v.get("metrics", {})
        if v.get("status") != "RUNNING" or max(m.get("read-records", 0), m.get("write-records", 0)) <= 0:
            continue
        d = get_json(f"{cluster.rest_url}/jobs/{jid}/vertices/{v['id']}")
        for s in d.get("subtasks", []):
            sm = s.get("metrics", {})
            if s.get("status") == "RUNNING" and s.get("taskmanager-id") and \
                    max(sm.get("read-records", 0), sm.get("write-records", 0)) > 0:
                return s["taskmanager-id"]
    return None


# Quarantined once (a full run on 2026-11-27 failed it with the job finished and the local bytes written;
# alone it passed). Likeliest cause, fixed since: two engine JVMs both ask the driver's pool for worker "1-1",
# and one's StopWorker stopped the other's worker mid-bundle, whose traceback then reached the console
# (test_runners: the pool keys workers by connection and id; a worker's errors are one line).
def test_a_taskmanager_killed_mid_run_costs_a_restart_not_the_run(cluster, inputs, local, tmp_path):
    """The clean bytes and counts are the local runner's (the session's other engine tests show a clean
    Flink run writes them); a clean run on this cluster first, once here, cost some 100 s and proved
    nothing more."""
    before = {j["jid"] for j in cluster.jobs()}
    t0 = time.time()
    proc = _submit(cluster, inputs, tmp_path / "killed")
    victim = resource = job = None
    try:
        deadline = time.time() + 600
        while victim is None and time.time() < deadline and proc.poll() is None:
            time.sleep(0.3)
            job = job or _job_of(cluster, before)
            if job is None:
                continue
            resource = _busy_taskmanager(cluster, job["jid"])
            if resource:
                victim = cluster.taskmanager_pid_of(resource)
                assert victim, (resource, cluster.taskmanager_pids())
                os.kill(victim, signal.SIGKILL)
        killed_at = time.time() - t0
        _, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    run_s = time.time() - t0
    assert victim is not None, "the job was never seen with records on a TaskManager"
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-4000:]

    # Flink recovered from the failure it logged, on the TaskManager that survived.
    assert cluster.job(job["jid"])["state"] == "FINISHED"
    history = get_json(f"{cluster.rest_url}/jobs/{job['jid']}/exceptions")
    entries = history.get("exceptionHistory", {}).get("entries", [])
    assert entries, history
    assert any(resource in json.dumps(e) or "TaskManager" in json.dumps(e) or "lost" in json.dumps(e).lower()
               for e in entries), entries[:2]
    assert int(cluster.overview()["taskmanagers"]) == 1

    # Same bytes and counters as the local runner (nothing counted twice), published once.
    assert h.digest(tmp_path / "killed" / "markers") == h.digest(local)
    assert h.comparable_manifest(tmp_path / "killed" / "markers" / "manifest.json") == \
        h.comparable_manifest(local / "manifest.json")
    assert sorted(os.listdir(tmp_path / "killed")) == ["logs", "markers"]
    print(f"\nkilled TaskManager {resource} (pid {victim}) {killed_at:.0f} s in; run with the kill {run_s:.0f} s")
    cluster.start_taskmanager(wait_s=180)  # the cluster whole again for whatever runs next



def _running_tasks(cluster, jid):
    """Whether the job `jid` is RUNNING with a vertex whose tasks run."""
    job = cluster.job(jid)
    return job.get("state") == "RUNNING" and any(v.get("status") == "RUNNING" for v in job.get("vertices", []))


def _python_workers(driver_pid):
    """The driver's SDK worker processes (not its fork server: killing that kills no worker)."""
    from pipelines.framework import runners  # pylint: disable=import-outside-toplevel
    return runners.engine_worker_pids(driver_pid)


def _kill_workers_mid_run(cluster, inputs, out, how_many):
    """Submit; once a stage has its input or has written records, SIGKILL `how_many` of the driver's SDK
    workers (None: all). (killed pids, the job, seconds in, the finished process and its stderr)."""
    before = {j["jid"] for j in cluster.jobs()}
    t0 = time.time()
    proc = _submit(cluster, inputs, out)
    victims = job = None
    try:
        deadline = time.time() + 600
        while victims is None and time.time() < deadline and proc.poll() is None:
            time.sleep(0.3)
            job = job or _job_of(cluster, before)
            if job is None or not _busy_taskmanager(cluster, job["jid"]):
                continue
            workers = _python_workers(proc.pid)
            if workers:
                victims = workers[:how_many] if how_many else workers
                for pid in victims:
                    os.kill(pid, signal.SIGKILL)
        killed_at = time.time() - t0
        _, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert victims, "no SDK worker was seen while a stage of the job had records"
    return victims, job, killed_at, proc, err


def test_one_sdk_worker_killed_mid_run_on_flink_fails_cleanly_naming_it(cluster, inputs, local, tmp_path):
    # One Python SDK worker (not the TaskManager, not the fork server) SIGKILLed once a stage has its
    # input or has written records. Flink restarts the failed task, but Beam's runner in the TaskManager keeps the worker's
    # environment cached for --environment_cache_millis (60 s from its start) and sends the restarted task
    # to the dead worker again; the test cluster's 5 restarts 5 s apart (25 s) all meet it (Flink's exception
    # history: "CANCELLED: client cancelled", then five "CANCELLED: call already cancelled"). The run
    # fails cleanly, naming the dead worker. Should the cached environment have expired before the
    # restarts ran out, the job finishes: then with the local runner's bytes.
    # (Every worker killed at once was a test of its own until 2026-11-29: the same watch named every dead
    # worker and the same restarts met them; one Flink run of ~90 s less in the suite's budget, issue 49. The
    # same command publishing after a failed run: the driver-kill tests below.)
    out = tmp_path / "killed"
    victims, job, killed_at, proc, err = _kill_workers_mid_run(cluster, inputs, out, 1)
    failures = get_json(f"{cluster.rest_url}/jobs/{job['jid']}/exceptions")["exceptionHistory"]["entries"]
    print(f"\nFlink: killed SDK worker {victims} {killed_at:.0f} s in: exit {proc.returncode}, "
          f"{len(failures)} task failure(s)")
    assert "Traceback" not in err, err[-4000:]
    assert failures, "the kill hit no task"
    if proc.returncode == 0:
        assert cluster.job(job["jid"])["state"] == "FINISHED"
        assert h.digest(out / "markers") == h.digest(local)
        return
    assert proc.returncode == 2, err[-3000:]
    errors = [line for line in err.splitlines() if line.startswith("rewrite-mine discovery: error:")]
    assert len(errors) == 1, err
    assert f"SDK worker process(es) [{victims[0]}] of this run died mid-run" in errors[0], errors[0]
    assert "Nothing was published" in errors[0] and "Re-run the same command" in errors[0]
    assert cluster.job(job["jid"])["state"] == "FAILED"
    assert not (out / "markers").exists()


# ------------------------------------------------------------------ Spark


@pytest.fixture(scope="module")
def spark2(tmp_path_factory):
    c = SparkCluster(str(tmp_path_factory.mktemp("spark2")), port=free_port(),
                             ui_port=free_port(), worker_ui_port=free_port(), cores=1, workers=2,
                             memory="3g")
    os.environ["REWRITE_MINE_SPARK_UI"] = c.ui_url
    c.start()
    try:
        yield c
    finally:
        c.stop()
        os.environ.pop("REWRITE_MINE_SPARK_UI", None)


def _spark_driver(ui_port):
    """{completed stages, failed tasks, active tasks} of the Spark application whose driver (inside the
    run's job server) serves its UI on `ui_port`; zeros while it does not answer."""
    out = {"completed": 0, "failed_tasks": 0, "active_tasks": 0}
    try:
        base = f"http://127.0.0.1:{ui_port}/api/v1/applications"
        for app in get_json(base, timeout_s=2):
            for s in get_json(f"{base}/{app['id']}/stages", timeout_s=2):
                out["completed"] += s.get("status") == "COMPLETE"
                out["failed_tasks"] += int(s.get("numFailedTasks", 0))
                out["active_tasks"] += int(s.get("numActiveTasks", 0))
    except Exception:  # noqa: BLE001 - not up yet, or gone
        pass
    return out


def _submit_spark(spark, inputs, out, ui_port=None):
    """The CLI on `spark`; the Spark driver that Beam's job server runs serves its UI on `ui_port` (a free
    port: other Spark drivers may hold 4040 and the ports after it on a shared machine)."""
    env = dict(os.environ)
    if ui_port:
        env["JAVA_TOOL_OPTIONS"] = f"{env.get('JAVA_TOOL_OPTIONS', '')} -Dspark.ui.port={ui_port}".strip()
    return subprocess.Popen([sys.executable, "-m", "pipelines.cli", "discovery"] + inputs + [
        "--output", str(out), "--runner", "spark", "--spark_master_url", spark.master_url, "--no_progress"],
        cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_a_spark_worker_killed_mid_run_costs_its_tasks_not_the_run(spark2, inputs, local, tmp_path):
    """Compared with the local runner's bytes and counts (a clean Spark run first, once here, cost ~100 s)."""
    before = {a["id"] for a in spark2.applications()}
    t0 = time.time()
    ui_port = free_port()
    proc = _submit_spark(spark2, inputs, tmp_path / "killed", ui_port)
    victim = None
    try:
        deadline = time.time() + 600
        while victim is None and time.time() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if not [a for a in spark2.status().get("activeapps", []) if a["id"] not in before]:
                continue
            try:  # a worker's UI slow to answer on a loaded machine: ask again
                busy = [i for i in range(2) if spark2.worker_json(i).get("executors")]
            except OSError:
                continue
            # Mid-run: both workers hold an executor of the job, and a stage of it has completed.
            if len(busy) == 2 and _spark_driver(ui_port)["completed"] >= 1:
                victim = spark2.worker_pids(0)[0]
                os.kill(victim, signal.SIGKILL)
        killed_at = time.time() - t0
        _, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert victim is not None, "the job was never seen running on both workers"
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-4000:]
    run_s = time.time() - t0
    assert h.digest(tmp_path / "killed" / "markers") == h.digest(local)
    assert h.comparable_manifest(tmp_path / "killed" / "markers" / "manifest.json") == \
        h.comparable_manifest(local / "manifest.json")
    assert spark2.status().get("aliveworkers") == 1
    print(f"\nSpark: killed worker 0 (pid {victim}) {killed_at:.0f} s in; run with the kill {run_s:.0f} s")
    spark2.start_worker(0)  # the cluster whole again for whatever runs next
    deadline = time.time() + 180
    while time.time() < deadline and spark2.status().get("aliveworkers") != 2:
        time.sleep(1)


# Quarantined once (a full run on 2026-11-27 failed it with the job finished and the local bytes written;
# alone it passed). Likeliest cause, fixed since: two engine JVMs both ask the driver's pool for worker "1-1",
# and one's StopWorker stopped the other's worker mid-bundle, whose traceback then reached the console
# (test_runners: the pool keys workers by connection and id; a worker's errors are one line).
def test_one_sdk_worker_killed_mid_run_on_spark_costs_task_retries_not_the_run(spark2, inputs, local, tmp_path):
    # One Python SDK worker of the run SIGKILLed while Spark runs the job's tasks, after a stage has
    # completed (the driver's REST API says so, not a timer). Spark retries a failed task up to 4 times,
    # on either executor, and each executor has two workers per core (likely: a retry that meets the dead
    # worker's cached environment fails again, one given the other worker succeeds). Measured: 35 failed
    # task attempts (a clean run
    # on two workers has 2: Beam's cached RDD blocks cannot be fetched from the other executor), exit 0,
    # the local runner's bytes and counters. Should a task fail 4 times, the run fails cleanly, naming
    # the dead worker, and publishes nothing.
    out = tmp_path / "killed"
    ui_port = free_port()
    before = {a["id"] for a in spark2.applications()}
    t0 = time.time()
    proc = _submit_spark(spark2, inputs, out, ui_port)
    victims, seen = None, {}
    try:
        deadline = time.time() + 600
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if victims is None:
                if not [a for a in spark2.status().get("activeapps", []) if a["id"] not in before]:
                    continue
                state = _spark_driver(ui_port)
                workers = _python_workers(proc.pid)
                if state["completed"] >= 1 and state["active_tasks"] > 0 and workers:
                    victims = workers[:1]
                    os.kill(victims[0], signal.SIGKILL)
                    killed_at = time.time() - t0
            else:
                state = _spark_driver(ui_port)
                seen = max(seen, state, key=lambda s: s.get("failed_tasks", 0)) if seen else state
        _, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    run_s = time.time() - t0
    assert victims, "no SDK worker was seen while Spark ran the job's tasks"
    print(f"\nSpark: killed SDK worker {victims} {killed_at:.0f} s in; run {run_s:.0f} s, exit {proc.returncode}; "
          f"the driver saw {seen.get('failed_tasks')} failed task attempts")
    assert "Traceback" not in err, err[-4000:]
    if proc.returncode != 0:
        assert proc.returncode == 2, err[-3000:]
        errors = [line for line in err.splitlines() if line.startswith("rewrite-mine discovery: error:")]
        assert len(errors) == 1 and f"SDK worker process(es) [{victims[0]}]" in errors[0], err[-3000:]
        assert "Nothing was published" in errors[0] and not (out / "markers").exists()
        return
    assert h.digest(out / "markers") == h.digest(local)
    assert h.comparable_manifest(out / "markers" / "manifest.json") == h.comparable_manifest(local / "manifest.json")


# ------------------------------------------------------------------ the driver killed


def _staged_manifests(out):
    return [os.path.join(b, f) for b, _, fs in os.walk(str(out)) for f in fs if f == "manifest.json"]


def _wait_gone(pids, timeout_s):
    """The pids of `pids` still alive after up to `timeout_s` seconds."""
    deadline = time.time() + timeout_s
    while time.time() < deadline and any(daemons.alive(p) for p in pids):
        time.sleep(0.5)
    return [p for p in pids if daemons.alive(p)]


def _parent_or_none(pid):
    from pipelines.framework import runners  # pylint: disable=import-outside-toplevel
    try:
        return runners._parent_of(pid)  # pylint: disable=protected-access
    except (OSError, ValueError, IndexError):
        return None


def _fork_folders(helpers):
    """The folders of the fork servers among `helpers` ({pid: command}; "--fork-server PATH ...")."""
    return [os.path.dirname(cmd.split("--fork-server ", 1)[1].split()[0])
            for cmd in helpers.values() if "--fork-server " in cmd]


def _kill_driver(proc, ready):
    """SIGKILL the driver `proc` once `ready()` says the job is mid-run. ({pid: command} of every process it
    had started, the job server and fork server among them)."""
    from pipelines.framework import runners  # pylint: disable=import-outside-toplevel
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.3)
        workers = _python_workers(proc.pid) if ready() else []
        if workers:
            owned = runners._descendants(proc.pid)
            # The driver's own children, read before the kill: a worker forked after `workers` was read keeps
            # the fork server's command line, and was once counted as a third helper (a full run beside a
            # heavy job killed the driver while the first workers were starting).
            children = {p for p in owned if _parent_or_none(p) == proc.pid}
            os.kill(proc.pid, signal.SIGKILL)  # our own driver's pid, nothing else
            proc.communicate(timeout=60)
            helpers = {p: cmd for p, cmd in owned.items() if p in children and
                       ("job-server" in cmd or "--fork-server" in cmd)}
            return owned, helpers
    proc.kill()
    proc.communicate(timeout=60)
    raise AssertionError("the job was never seen mid-run")


def test_the_driver_killed_mid_run_on_flink_leaves_nothing_published_and_the_rerun_cancels_its_job(
        cluster, inputs, local, tmp_path):
    # SIGKILL of `rewrite-mine` while Flink runs its tasks. Its job server and fork server die with it, its
    # SDK workers with the fork server. Flink keeps the submitted job (it restarts its tasks, and fails
    # them once the restarts run out: no worker can start any more), which writes into the staging
    # directory only, never published. The same command again finds the job by its name, cancels it if it
    # still runs, and publishes the local runner's bytes.
    out = tmp_path / "out"
    before = {j["jid"] for j in cluster.jobs()}
    proc = _submit(cluster, inputs, out)
    seen = {}

    def mid_run():
        # Flink runs the job's tasks (and _kill_driver sees its SDK workers). Not "a stage has written
        # records": the REST API's metrics lag, and on a quick machine the whole run fitted in the lag
        # (CI, stop 45: "the job was never seen mid-run").
        seen["job"] = seen.get("job") or _job_of(cluster, before)
        return seen["job"] is not None and _running_tasks(cluster, seen["job"]["jid"])
    owned, helpers = _kill_driver(proc, mid_run)
    try:
        jid = seen["job"]["jid"]
        assert len(helpers) == 2, owned  # Beam's job server and the workers' fork server
        t0 = time.time()
        left = _wait_gone(list(owned), 60)
        assert left == [], {p: owned[p] for p in left}
        gone_s = time.time() - t0
        folders = _fork_folders(helpers)  # the fork server removed its socket's folder as it ended
        assert len(folders) == 1 and not any(os.path.exists(f) for f in folders), folders
        assert not (out / "markers").exists(), sorted(os.listdir(out / "markers"))
        assert _staged_manifests(out) == [], _staged_manifests(out)
        state_after_kill = cluster.job(jid)["state"]
        t0 = time.time()
        rerun = _submit(cluster, inputs, out)
        _, err = rerun.communicate(timeout=900)
        rerun_s = time.time() - t0
        assert rerun.returncode == 0, err[-3000:]
        assert h.digest(out / "markers") == h.digest(local)
        final = cluster.job(jid)["state"]
        assert final in ("CANCELED", "FAILED"), final
        if final == "CANCELED":
            log = (out / "logs" / "rewrite-mine-discovery.log").read_text(encoding="utf-8", errors="replace")
            assert f"Flink job {jid}" in log and "cancelling it" in log
        print(f"\nFlink, driver killed: its {len(owned)} processes gone {gone_s:.0f} s after the kill; its job "
              f"{state_after_kill} then, {final} after the rerun ({rerun_s:.0f} s)")
    finally:
        for p, cmd in owned.items():  # whatever of this test's own driver is still there, and no other
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    if f.read().replace(b"\0", b" ").decode("utf-8", "replace") == cmd:
                        os.kill(p, signal.SIGKILL)
            except OSError:
                continue


def test_the_driver_killed_mid_run_on_spark_leaves_no_process_and_nothing_published(spark2, inputs, tmp_path):
    # SIGKILL of `rewrite-mine` while Spark runs its tasks: the Spark driver lives in Beam's job server,
    # which ends with `rewrite-mine`, so the application ends, its executors with it, and the SDK workers
    # with their executors. Nothing is left, nothing published, and no application holds the cluster's cores.
    # (Until 2026-11-29 the test then ran the same command again: a plain Spark run on a cluster with no
    # application left, ~90 s of a full run; that a rerun publishes after a killed driver is the staging
    # directory's work, the same on every runner: test_faults.py on the local runner, the Flink test above.)
    out = tmp_path / "out"
    ui_port = free_port()
    before = {a["id"] for a in spark2.applications()}
    proc = _submit_spark(spark2, inputs, out, ui_port)

    def mid_run():
        # The application runs and (in _kill_driver) its SDK workers are up: they are, only while tasks run.
        # Not "a stage has completed" as well: the driver's REST API lags, and in a full run beside a heavy
        # job the whole job ran to DONE without the test ever seeing a completed stage mid-run.
        return bool([a for a in spark2.status().get("activeapps", []) if a["id"] not in before])
    owned, helpers = _kill_driver(proc, mid_run)
    t0 = time.time()
    assert len(helpers) == 2, owned  # Beam's job server and the workers' fork server
    left = _wait_gone(list(owned), 120)
    gone_s = time.time() - t0
    assert left == [], {p: owned[p] for p in left}
    folders = _fork_folders(helpers)  # the fork server removed its socket's folder as it ended
    assert len(folders) == 1 and not any(os.path.exists(f) for f in folders), folders
    deadline = time.time() + 60
    while time.time() < deadline and [a for a in spark2.status().get("activeapps", []) if a["id"] not in before]:
        time.sleep(1)
    assert not [a for a in spark2.status().get("activeapps", []) if a["id"] not in before]
    assert not (out / "markers").exists() and _staged_manifests(out) == []
    assert spark2.status().get("aliveworkers") == 2
    print(f"\nSpark, driver killed: its {len(owned)} processes gone {gone_s:.0f} s after the kill")
