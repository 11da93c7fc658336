"""A worker process killed mid-run: the job finishes with the same records, or fails with a clear
message and publishes nothing (readers never see a partial dataset; see pipelines/framework/publication.py)."""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ROOT  # noqa: E402
from pipelines.framework import runners  # noqa: E402
from pipelines.framework.engines.daemons import alive  # noqa: E402


@pytest.mark.slow
def test_local_runner_fails_clearly_when_an_sdk_worker_is_killed_and_the_rerun_completes(tmp_path):
    argv = ["discovery"] + h.DISCOVERY_ARGS + ["--input", h.inputs()["articles"], "--output", str(tmp_path),
                                               "--num_workers", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "pipelines.cli"] + argv, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    victim = None
    deadline = time.time() + 300
    while victim is None and time.time() < deadline and proc.poll() is None:
        pids = runners.sdk_worker_pids(proc.pid)
        if len(pids) == 2:
            time.sleep(1.0)  # both workers are running bundles
            victim = pids[0]
            os.kill(victim, signal.SIGKILL)
        time.sleep(0.1)
    _, stderr = proc.communicate(timeout=300)
    assert victim is not None, "the SDK workers were never seen"
    if proc.returncode == 0:  # the dead worker's bundles were already done: the run must be complete
        assert h.digest(tmp_path / "markers") == h.digest(h.reference("discovery"))
        return
    assert proc.returncode == 2, stderr[-2000:]
    assert f"SDK worker process(es) [{victim}] of the local runner died mid-run" in stderr, stderr[-3000:]
    assert "Nothing was published" in stderr and "Re-run the same command" in stderr
    assert not (tmp_path / "markers").exists()
    assert runners.sdk_worker_pids(proc.pid) == []  # no orphaned worker
    h.run_job("pipelines.discovery", argv[1:])  # the next run completes it
    assert h.digest(tmp_path / "markers") == h.digest(h.reference("discovery"))
    # logs/: the CLI run's log file (pipelines/framework/console.py)
    assert sorted(os.listdir(tmp_path)) == ["logs", "markers"]


@pytest.mark.slow
def test_dask_worker_killed_mid_run_is_replaced_and_the_job_writes_the_same_records(tmp_path):
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    outcome = {}

    def job():
        try:
            outcome["manifest"] = h.run_job("pipelines.discovery", h.DISCOVERY_ARGS + [
                "--input", h.inputs()["articles"], "--output", str(tmp_path),
                "--runner", "dask", "--dask_address", cluster.scheduler_address])
        except Exception as e:  # noqa: BLE001 - asserted below
            outcome["error"] = e

    thread = threading.Thread(target=job)
    try:
        thread.start()
        killed = None
        deadline = time.time() + 300
        while killed is None and thread.is_alive() and time.time() < deadline:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed = pid
            time.sleep(0.05)
        thread.join(timeout=600)
        assert killed is not None, "no task was seen running"
        assert not thread.is_alive()
        if "error" in outcome:
            assert "Nothing was published" in str(outcome["error"])
            assert not (tmp_path / "markers").exists()
        else:
            assert h.digest(tmp_path / "markers") == h.digest(h.reference("discovery"))
            assert h.examples_written(tmp_path / "markers" / "manifest.json") > 0
        # The nanny restarted the worker: the cluster is whole again.
        client.wait_for_workers(2, timeout=60)
        assert killed not in client.run(os.getpid).values()
    finally:
        client.close()
        cluster.close()


@pytest.mark.slow
def test_the_driver_killed_mid_run_leaves_no_output_and_no_process_and_the_rerun_publishes_the_same_bytes(tmp_path):
    # SIGKILL of `rewrite-mine` itself (issue 39, item 5): nothing can clean up after it, so what it
    # started must end by itself (its SDK workers lose their runner; warm workers their lifeline) and
    # nothing half-written may be taken for a result.
    argv = ["discovery"] + h.DISCOVERY_ARGS + ["--input", h.inputs()["articles"], "--output", str(tmp_path),
                                               "--num_workers", "2", "--no_progress"]
    # Its output goes to a file, not a pipe: the SDK workers inherit the driver's stderr, and a pipe they
    # hold open kept `communicate` waiting after the driver was dead (CI, a busy machine: timed out).
    console = tmp_path.parent / f"{tmp_path.name}-console.txt"
    with open(console, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "pipelines.cli"] + argv, cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)
    started = {}
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if len(runners.sdk_worker_pids(proc.pid)) == 2:  # the pipeline runs bundles: mid-run
            time.sleep(1.0)
            started = runners._descendants(proc.pid)  # pylint: disable=protected-access
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.1)
    if not started and proc.poll() is None:
        proc.kill()
    proc.wait(timeout=60)
    assert started, f"the SDK workers were never seen (exit {proc.returncode}): {console.read_text()[-3000:]}"
    assert proc.returncode == -signal.SIGKILL
    deadline = time.time() + 60
    while time.time() < deadline and any(alive(p) for p in started):
        time.sleep(0.5)
    left = {p: cmd for p, cmd in started.items() if alive(p)}
    for p in left:  # not left behind for the tests after this one, whatever this one says
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes of the killed driver still run: {left}"
    assert not (tmp_path / "markers" / "manifest.json").exists()
    h.run_job("pipelines.discovery", argv[1:])  # the same command again publishes the complete dataset
    assert h.digest(tmp_path / "markers") == h.digest(h.reference("discovery"))
