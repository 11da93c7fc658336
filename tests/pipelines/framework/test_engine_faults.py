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
from pipelines.framework import engines  # noqa: E402

pytestmark = [pytest.mark.engines, pytest.mark.slow]

COPIES = 12


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = engines.FlinkCluster(str(tmp_path_factory.mktemp("flink2")), port=engines.free_port(),
                             rpc_port=engines.free_port(), slots=2, taskmanagers=2, restart_attempts=5,
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
        d = engines.get_json(f"{cluster.rest_url}/jobs/{jid}/vertices/{v['id']}")
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
    history = engines.get_json(f"{cluster.rest_url}/jobs/{job['jid']}/exceptions")
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
