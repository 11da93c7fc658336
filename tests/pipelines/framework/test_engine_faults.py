"""A TaskManager dies mid-run and the job still finishes, with the same bytes and the same counts (issue 39).

A Flink session cluster as `rewrite-mine cluster start flink --taskmanagers 2` starts it (two TaskManagers
of 2 slots, fixed-delay restarts), on loopback. Discovery on 12 copies of the bundled enwiki excerpt runs
with `--parallelism 2`: once, clean; once more, and as soon as a stage has written its first records
(a point the test sees over the REST API, not a timer) the TaskManager that runs the job's tasks is
SIGKILLed. Flink restarts the failed region on the other TaskManager's slots; the run must exit 0, write
the local runner's bytes, the clean run's counters (read = kept + rejected, nothing counted twice:
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
from pipelines.framework.engines.daemons import get_json  # noqa: E402
from pipelines.framework.engines.flink import FlinkCluster  # noqa: E402
from pipelines.framework.engines.spark import SparkCluster  # noqa: E402
from pipelines.framework.workers.external_pool import free_port  # noqa: E402

pytestmark = [pytest.mark.engines, pytest.mark.slow]

COPIES = 12


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = FlinkCluster(str(tmp_path_factory.mktemp("flink2")), port=free_port(),
                             rpc_port=free_port(), slots=2, taskmanagers=2, restart_attempts=5,
                             restart_delay_s=2)
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
    """The resource id of a TaskManager running a subtask that has written records, or None."""
    job = cluster.job(jid)
    if job.get("state") != "RUNNING":
        return None
    for v in job["vertices"]:
        if v.get("status") != "RUNNING" or v.get("metrics", {}).get("write-records", 0) <= 0:
            continue
        d = get_json(f"{cluster.rest_url}/jobs/{jid}/vertices/{v['id']}")
        for s in d.get("subtasks", []):
            if s.get("status") == "RUNNING" and s.get("taskmanager-id"):
                return s["taskmanager-id"]
    return None


def test_a_taskmanager_killed_mid_run_costs_a_restart_not_the_run(cluster, inputs, local, tmp_path):
    # A clean run on the same cluster: its bytes, its counters and its time.
    before = {j["jid"] for j in cluster.jobs()}
    t0 = time.time()
    clean = _submit(cluster, inputs, tmp_path / "clean")
    _, err = clean.communicate(timeout=900)
    clean_s = time.time() - t0
    assert clean.returncode == 0, err[-3000:]
    assert h.digest(tmp_path / "clean" / "markers") == h.digest(local)

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
    assert victim is not None, "the job was never seen writing records on a TaskManager"
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err

    # Flink recovered from the failure it logged, on the TaskManager that survived.
    assert cluster.job(job["jid"])["state"] == "FINISHED"
    history = get_json(f"{cluster.rest_url}/jobs/{job['jid']}/exceptions")
    entries = history.get("exceptionHistory", {}).get("entries", [])
    assert entries, history
    assert any(resource in json.dumps(e) or "TaskManager" in json.dumps(e) or "lost" in json.dumps(e).lower()
               for e in entries), entries[:2]
    assert int(cluster.overview()["taskmanagers"]) == 1

    # Same bytes as the local runner, same counters as the clean run, published once.
    assert h.digest(tmp_path / "killed" / "markers") == h.digest(local)
    assert h.comparable_manifest(tmp_path / "killed" / "markers" / "manifest.json") == \
        h.comparable_manifest(tmp_path / "clean" / "markers" / "manifest.json")
    counts = json.loads((tmp_path / "killed" / "markers" / "manifest.json").read_text())["counts"]
    assert counts == json.loads((tmp_path / "clean" / "markers" / "manifest.json").read_text())["counts"]
    assert sorted(os.listdir(tmp_path / "killed")) == ["logs", "markers"]
    print(f"\nclean run {clean_s:.0f} s; killed TaskManager {resource} (pid {victim}) {killed_at:.0f} s in; "
          f"run with the kill {run_s:.0f} s: the kill cost {run_s - clean_s:.0f} s")
    cluster.start_taskmanager(wait_s=180)  # the cluster whole again for whatever runs next



def _ppid(pid):
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read().decode("utf-8", "replace")
    return int(stat[stat.rindex(")") + 2:].split()[1])


def _python_workers(driver_pid):
    """The driver's SDK worker processes: forked by its fork server, or started as sdk_worker_main."""
    from pipelines.framework import runners  # pylint: disable=import-outside-toplevel
    procs = runners._descendants(driver_pid)  # pylint: disable=protected-access
    servers = [p for p, cmd in procs.items() if "--fork-server" in cmd]
    forked = []
    for p in procs:
        try:
            if _ppid(p) in servers:
                forked.append(p)
        except (OSError, ValueError, IndexError):
            continue
    return sorted(set(forked) | set(runners.sdk_worker_pids(driver_pid)))


def _kill_workers_mid_run(cluster, inputs, out, how_many):
    """Submit; once a stage has written records, SIGKILL `how_many` of the driver's SDK workers (None:
    all). (killed pids, the job, seconds in, the finished process and its stderr)."""
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
    assert victims, "no SDK worker was seen while the job wrote records"
    return victims, job, killed_at, proc, err


def test_one_sdk_worker_killed_mid_run_on_flink_leaves_the_same_bytes(cluster, inputs, local, tmp_path):
    # One Python SDK worker (not the TaskManager) dies while the job runs: Beam keeps two per slot, the
    # job finishes; if the dead one held a bundle, Flink restarted its task. Same bytes, same counters.
    victims, job, killed_at, proc, err = _kill_workers_mid_run(cluster, inputs, tmp_path / "killed", 1)
    assert proc.returncode == 0, err[-3000:]
    assert cluster.job(job["jid"])["state"] == "FINISHED"
    assert h.digest(tmp_path / "killed" / "markers") == h.digest(local)
    restarts = get_json(f"{cluster.rest_url}/jobs/{job['jid']}/exceptions")["exceptionHistory"]["entries"]
    print(f"\nFlink: killed SDK worker {victims} {killed_at:.0f} s in; {len(restarts)} task failure(s) recovered")


def test_every_sdk_worker_killed_on_flink_fails_cleanly_and_the_rerun_publishes_the_same_bytes(
        cluster, inputs, local, tmp_path):
    # Every SDK worker of the run killed at once: Beam's runner in the TaskManager keeps the dead
    # environment in its cache (Beam 2.62), so Flink's restarts meet it again and the job fails for good.
    # The run must fail cleanly: exit 2, one error line, nothing published; the same command redoes it.
    out = tmp_path / "out"
    _, job, _, proc, err = _kill_workers_mid_run(cluster, inputs, out, None)
    assert proc.returncode == 2, err[-3000:]
    errors = [line for line in err.splitlines() if line.startswith("rewrite-mine discovery: error:")]
    assert len(errors) == 1 and "the pipeline failed" in errors[0] and "Nothing was published" in errors[0], err
    assert "Traceback" not in err
    assert not (out / "markers" / "manifest.json").exists()
    assert cluster.job(job["jid"])["state"] == "FAILED"
    rerun = _submit(cluster, inputs, out)
    _, err = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, err[-3000:]
    assert h.digest(out / "markers") == h.digest(local)


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


def _spark_stages_done():
    """Stages completed by a running Spark driver (its UI, 4040 and the ports after it), or 0."""
    for port in range(4040, 4050):
        try:
            apps = get_json(f"http://127.0.0.1:{port}/api/v1/applications", timeout_s=1)
            done = 0
            for app in apps:
                stages = get_json(f"http://127.0.0.1:{port}/api/v1/applications/{app['id']}/stages",
                                          timeout_s=1)
                done += sum(1 for s in stages if s.get("status") == "COMPLETE")
            return done
        except Exception:  # noqa: BLE001 - not a driver's UI
            continue
    return 0


def _submit_spark(spark, inputs, out):
    return subprocess.Popen([sys.executable, "-m", "pipelines.cli", "discovery"] + inputs + [
        "--output", str(out), "--runner", "spark", "--spark_master_url", spark.master_url, "--no_progress"],
        cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_spark_worker_killed_mid_run_costs_its_tasks_not_the_run(spark2, inputs, local, tmp_path):
    t0 = time.time()
    clean = _submit_spark(spark2, inputs, tmp_path / "clean")
    _, err = clean.communicate(timeout=900)
    clean_s = time.time() - t0
    assert clean.returncode == 0, err[-3000:]
    before = {a["id"] for a in spark2.applications()}
    t0 = time.time()
    proc = _submit_spark(spark2, inputs, tmp_path / "killed")
    victim = None
    try:
        deadline = time.time() + 600
        while victim is None and time.time() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if not [a for a in spark2.status().get("activeapps", []) if a["id"] not in before]:
                continue
            busy = [i for i in range(2) if spark2.worker_json(i).get("executors")]
            # Mid-run: both workers hold an executor of the job, and a stage of it has completed.
            if len(busy) == 2 and _spark_stages_done() >= 1:
                victim = spark2.worker_pids(0)[0]
                os.kill(victim, signal.SIGKILL)
        killed_at = time.time() - t0
        _, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert victim is not None, "the job was never seen running on both workers"
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    run_s = time.time() - t0
    assert h.digest(tmp_path / "killed" / "markers") == h.digest(local)
    assert h.digest(tmp_path / "clean" / "markers") == h.digest(local)
    assert spark2.status().get("aliveworkers") == 1
    print(f"\nSpark: clean run {clean_s:.0f} s; killed worker 0 (pid {victim}) {killed_at:.0f} s in; run with the "
          f"kill {run_s:.0f} s: the kill cost {run_s - clean_s:.0f} s")
