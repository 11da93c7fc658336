"""Runner choice, and the helpers the runner tests share (real inputs, output digests, reference runs).

Inputs are real: the first pages of the bundled Wikipedia excerpt
(samples/wikipedia, gensim test data, Wikipedia text CC BY-SA) written under a
dump-style name, and a pages-meta-history file built by tests/wikisplit_fixtures.py
from the same articles and WikiSplit release pairs (CC BY-SA 4.0).
"""
import argparse
import bz2
import functools
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import time

import apache_beam as beam
import pytest

from conftest import ENWIKI, ROOT, shared_once
from pipelines.framework import publication, runners

ARTICLE_PAGES = 60  # the first 60 pages hold 4 real articles (the rest are redirects): a few seconds per run
DUMP_NAME = "enwiki-{date}-pages-articles1.xml-p10p30302.bz2"
HISTORY_NAME = "enwiki-{date}-pages-meta-history1.xml-p10p30302.bz2"
DISCOVERY_ARGS = ["--preset", "sample", "--num_shards", "2"]
# Files compared byte for byte across runners (the manifest is compared apart: its `run` section differs).
COMPARED_SUFFIXES = (".tfrecord", ".tsv", ".jsonl", "counts.json")


def write_articles(directory, date="20240601", n_pages=ARTICLE_PAGES) -> str:
    """The first `n_pages` pages of the bundled excerpt as a pages-articles dump named for `date`."""
    with bz2.open(ENWIKI, "rt", encoding="utf-8") as f:
        data = f.read()
    head, _, rest = data.partition("  <page>")
    pages = ("  <page>" + rest).split("  </page>\n")[:n_pages]
    path = os.path.join(str(directory), DUMP_NAME.format(date=date))
    with bz2.open(path, "wt", encoding="utf-8") as f:
        f.write(head + "".join(p + "  </page>\n" for p in pages) + "</mediawiki>\n")
    return path


def write_history(directory, date="20240601", n_pages=8) -> str:
    sys.path.insert(0, str(ROOT / "tests"))
    import wikisplit_fixtures  # pylint: disable=import-outside-toplevel
    path = os.path.join(str(directory), HISTORY_NAME.format(date=date))
    wikisplit_fixtures.build_fixture(path, n_pages=n_pages)
    return path


def digest(dataset_dir) -> dict:
    """{relative path: sha256} of the record, reject and count files of one dataset directory."""
    out = {}
    for base, _, files in os.walk(str(dataset_dir)):
        for name in files:
            if name.endswith(COMPARED_SUFFIXES):
                path = os.path.join(base, name)
                with open(path, "rb") as f:
                    out[os.path.relpath(path, str(dataset_dir))] = hashlib.sha256(f.read()).hexdigest()
    return out


def comparable_manifest(path) -> dict:
    """The manifest without what legitimately differs between runs and runners."""
    with open(str(path), encoding="utf-8") as f:
        m = json.load(f)
    # Paths under the output directory (e.g. the report) differ only by that directory.
    m = json.loads(json.dumps(m).replace(json.dumps(m["options"]["output"])[1:-1], "OUTPUT"))
    m.pop("run", None)
    m.get("reprocess", {}).pop("published", None)
    for key in ("runner", "num_workers", "dask_address", "output", "force"):
        m["options"].pop(key, None)
    return m


def examples_written(manifest_path) -> int:
    with open(str(manifest_path), encoding="utf-8") as f:
        written = json.load(f)["counts"]["written"]
    return sum(node["examples"] for splits in written.values() for node in splits.values())


def run_job(module: str, argv) -> dict:
    """`rewrite-mine <job> argv` in this process (the job's public `run`)."""
    import importlib  # pylint: disable=import-outside-toplevel
    return importlib.import_module(module).run(list(argv))


@functools.lru_cache(maxsize=None)
def inputs() -> dict:
    """The articles dump and the history file, written once per test run (`conftest.shared_once`): the
    records carry their source's path, so every pytest process must read the same files."""
    d = shared_once("inputs", lambda d: (write_articles(d), write_history(d)))
    return {"articles": os.path.join(d, DUMP_NAME.format(date="20240601")),
            "history": os.path.join(d, HISTORY_NAME.format(date="20240601"))}


@functools.lru_cache(maxsize=None)
def reference(job: str) -> str:
    """The dataset directory written by the local in-process runner (computed once per test run)."""
    def build(out):
        if job == "discovery":
            run_job("pipelines.discovery", DISCOVERY_ARGS + ["--input", inputs()["articles"], "--output", out,
                                                             "--num_workers", "1"])
        else:
            run_job("pipelines.wikisplit", ["--input", inputs()["history"], "--output", out, "--num_workers", "1",
                                            "--num_shards", "2"])
    out = shared_once(f"reference-{job}", build)
    return os.path.join(out, "markers" if job == "discovery" else "splits")


# ------------------------------------------------------------------ every job in one run

PAPERS = ROOT / "samples" / "scientific"
#: The datasets `rewrite-mine all` writes with ALL_ARGS, in the order its manifests come.
ALL_DATASETS = ("markers", "fusion", "splits", "simplify", "sci_para")
# SimSim's back-translation (Apertium), language-model choice and BERTScore batch; small batches give many of
# them, so batches that followed an engine's bundles would show as other scores and choices. Apertium's batches
# are larger: each call starts a process (~0.25 s), and 16 seeds a call cost the sample ~100 s of a 180-s run;
# 250 still makes three batches of its ~700 seeds per direction.
SIMSIM_ARGS = ["--pivots", "es,ca", "--translate_batch", "250", "--lm_batch", "8", "--bertscore_batch", "8"]


def all_args(inputs_of=None) -> list:
    """`rewrite-mine all` over every kind of input, small: the excerpt's first 60 pages (4 real articles: Discovery,
    DiscoFuse, SimSim's seeds), an 8-page history (WikiSplit, whose pairs feed SimSim) and the bundled papers
    (ParaSCI). `inputs_of` maps {"articles", "history", "papers"} to other locations (an object store)."""
    ins = inputs_of or {"articles": [inputs()["articles"]], "history": [inputs()["history"]],
                        "papers": [str(PAPERS / "**" / "*.json*"), str(PAPERS / "**" / "*.xml"),
                                   str(PAPERS / "**" / "*.nxml")]}
    argv = []
    for flag, key in (("--input", "articles"), ("--history_input", "history"), ("--papers_input", "papers")):
        for path in ins[key]:
            argv += [flag, path]
    return argv + ["--preset", "sample", "--num_shards", "2", "--tsv"] + SIMSIM_ARGS


def run_all(argv) -> list:
    """`rewrite-mine all argv` in this process; its manifests."""
    from pipelines import all as all_job  # pylint: disable=import-outside-toplevel
    return all_job.run(list(argv))


def file_digests(dataset_dir, suffixes=COMPARED_SUFFIXES + (".src", ".tgt")) -> dict:
    """{relative path: sha256} of a dataset's files, with a stage's seconds taken out of `_stats/counts.json`
    (they differ between any two runs)."""
    out = {}
    for base, _, files in os.walk(str(dataset_dir)):
        for name in files:
            if not name.endswith(suffixes):
                continue
            path = os.path.join(base, name)
            rel = os.path.relpath(path, str(dataset_dir))
            with open(path, "rb") as f:
                data = f.read()
            if rel == os.path.join("_stats", "counts.json"):
                data = json.dumps({k: v for k, v in json.loads(data).items() if not k.startswith("_stats/seconds/")},
                                  sort_keys=True).encode()
            out[rel] = hashlib.sha256(data).hexdigest()
    return out


def same_dataset(ours, ref, manifests=(comparable_manifest, comparable_manifest)):
    """Assert two runs wrote one dataset alike: every record, reject, TSV and count file, and the manifest
    but for what differs between runners (its `run` section, the output's path, the stages' seconds).
    `manifests`: the functions (path) -> comparable dict for our manifest and the reference's."""
    ours, ref = pathlib.Path(ours), pathlib.Path(ref)
    assert examples_written(ref / "manifest.json") > 0, ref
    mine, theirs = file_digests(ours), file_digests(ref)
    assert len(theirs) >= 5 and mine == theirs, sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))

    def comparable(path, read):
        m = read(path)
        m.get("derived", {}).pop("stage_seconds", None)
        m.get("counts", {}).get("stages", {}).pop("_stats", None)
        return m
    assert comparable(ours / "manifest.json", manifests[0]) == comparable(ref / "manifest.json", manifests[1])


def assert_ran_on_both_slots(flink) -> dict:
    """The newest job of `flink` (a FlinkCluster) FINISHED with every operator at parallelism 2, and a grouped
    stage after a shuffle had records in both subtasks (one per slot). Returns the job."""
    from pipelines.framework.engines.daemons import get_json  # pylint: disable=import-outside-toplevel
    newest = sorted(flink.jobs(), key=lambda j: j["start-time"])[-1]
    job = flink.job(newest["jid"])
    assert job["state"] == "FINISHED"
    assert {v["parallelism"] for v in job["vertices"]} == {2}

    def subtask_records(vid):
        return [s["metrics"]["read-records"] for s in get_json(f"{flink.rest_url}/jobs/{job['jid']}/vertices/{vid}")["subtasks"]]
    both = [v for v in job["vertices"] if "GroupReduce" in v["name"] and all(n > 0 for n in subtask_records(v["id"]))]
    assert both, "no stage processed records in both slots"
    return job


# ------------------------------------------------------------------ the object store stops mid-run (issue 50)


def cli(argv, cwd, env=None, **kw):
    """`rewrite-mine ARGV` of this checkout, in a process of its own."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "pipelines.cli"] + list(argv), cwd=str(cwd), env=env, **kw)


def run_with_store_outage(argv, cwd, server, staging_url, outage_s, timeout_s=1500):
    """`rewrite-mine ARGV` in a process of its own; `server` (a MinioServer) is stopped as soon as the run has
    staged its first object under `staging_url` (it is writing), for `outage_s` seconds (None: for good, until
    the run ends), then started again on its port with its data. Returns (exit status, stderr). (stderr goes
    to a file, not a pipe: a run that logs much while the test waits would block on a full pipe.)"""
    err_path = pathlib.Path(str(cwd)) / f"stderr-{os.getpid()}-{time.monotonic_ns()}.log"
    with open(err_path, "wb") as err_file:
        proc = cli(argv, cwd, stdout=subprocess.DEVNULL, stderr=err_file)
        try:
            deadline, seen = time.time() + timeout_s, []
            while time.time() < deadline and proc.poll() is None and not seen:
                try:
                    seen = [k for k in server.keys(staging_url) if not k.endswith(publication.RUNNING_MARKER)]
                except Exception:  # noqa: BLE001 - the prefix is not there yet
                    seen = []
                time.sleep(0.1)
            assert seen and proc.poll() is None, \
                "the run finished or never wrote before the store could be stopped: " + \
                err_path.read_text(encoding="utf-8", errors="replace")[-3000:]
            server.stop()
            if outage_s is not None:
                time.sleep(outage_s)
                server.start()
            proc.wait(timeout=timeout_s)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if server.process is None:
                server.start()
    return proc.returncode, err_path.read_text(encoding="utf-8", errors="replace")


def failed_cleanly_on_store(rc, err, server):
    """Exit 2 with one error line naming the store and its endpoint and saying nothing was published, and no
    traceback."""
    assert rc == 2, err[-3000:]
    lines = [line for line in err.splitlines() if "error" in line.lower() and "object store" in line]
    assert len(lines) == 1 and server.endpoint in lines[0] and "nothing was published" in lines[0].lower(), \
        err[-3000:]
    assert "Traceback" not in err, err[-3000:]

# ------------------------------------------------------------------ tests


def _args(**kw):
    base = dict(runner="local", num_workers=1, dask_address=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_local_runner_is_the_in_process_portable_runner_never_the_direct_runner():
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    assert isinstance(runners.make_runner(_args()), FnApiRunner)
    one = runners.make_options(_args(num_workers=1), []).get_all_options()
    two = runners.make_options(_args(num_workers=2), []).get_all_options()
    assert (one["direct_running_mode"], one["direct_num_workers"]) == ("in_memory", 1)
    assert (two["direct_running_mode"], two["direct_num_workers"]) == ("multi_processing", 2)
    # Beam's own flag still chooses: one worker process apart from the driver.
    sub = runners.make_options(_args(num_workers=1), ["--direct_running_mode", "multi_processing"]).get_all_options()
    assert (sub["direct_running_mode"], sub["direct_num_workers"]) == ("multi_processing", 1)


def test_other_runner_names_and_their_options_pass_through_to_beam():
    opts = runners.make_options(_args(runner="PortableRunner"),
                                ["--job_endpoint", "localhost:8099", "--environment_type", "LOOPBACK"])
    got = opts.get_all_options()
    assert (got["runner"], got["job_endpoint"], got["environment_type"]) == (
        "PortableRunner", "localhost:8099", "LOOPBACK")
    assert runners.make_runner(_args(runner="PortableRunner")) is None


def test_dask_runner_gets_the_scheduler_address_and_worker_count():
    from pipelines.framework.dask_runner import DaskRunner
    runner = runners.make_runner(_args(runner="dask", dask_address="tcp://10.0.0.1:8786", num_workers=3))
    assert isinstance(runner, DaskRunner)
    assert (runner.address, runner.num_workers, runner.num_partitions) == ("tcp://10.0.0.1:8786", 3, 6)


def test_shared_pipeline_hands_out_one_pipeline_inside_the_block_only():
    p = beam.Pipeline(runner=runners.make_runner(_args()))
    with runners.shared_pipeline(p):
        assert runners.make_pipeline(_args(), []) is p
        assert runners.make_pipeline(_args(runner="dask"), []) is p
    assert runners.make_pipeline(_args(), []) is not p


def test_sdk_worker_pids_lists_only_beam_worker_processes(tmp_path):
    import subprocess
    import time
    # A real SDK worker module started as a child; it exits at once without a control endpoint,
    # so a sleeping stand-in with the same module name in its command line is used instead.
    script = tmp_path / "sdk_worker_main.py"
    script.write_text("import time\ntime.sleep(30)\n")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    worker = subprocess.Popen([sys.executable, str(script)])
    try:
        time.sleep(0.3)
        assert runners.sdk_worker_pids() == [worker.pid]
    finally:
        worker.kill()
        other.kill()
        worker.wait()
        other.wait()
    assert runners.sdk_worker_pids() == []


def test_local_runner_stops_its_worker_processes_concurrently():
    """Beam closes worker handlers one by one (each waits for its process to exit); ours closes them at once.

    Each fake handler's close() waits at a barrier for the other: closed in turn, the first would
    never get past it (the barrier's timeout only guards against a hang).
    """
    import threading

    from apache_beam.runners.portability.fn_api_runner import worker_handlers
    runners.make_runner(_args())  # installs the concurrent close
    barrier = threading.Barrier(2, timeout=60)
    closed = []

    class Handler:
        def __init__(self, name):
            self.name = name

        def close(self):
            barrier.wait()
            closed.append(self.name)

    manager = worker_handlers.WorkerHandlerManager.__new__(worker_handlers.WorkerHandlerManager)
    manager._cached_handlers = {"env": [Handler("w1"), Handler("w2")]}
    manager._workers_by_id = {}
    manager.close_all()
    assert sorted(closed) == ["w1", "w2"] and not barrier.broken
    assert dict(manager._cached_handlers) == {} and manager._workers_by_id == {}


def test_a_workers_own_children_are_not_taken_for_workers():
    """A subprocess an SDK worker starts (SimSim's apertium) carries the worker's command line between
    fork and exec; the watchdog must not count it as a worker (it would then 'die' when it execs)."""
    import subprocess
    import time
    from pipelines.framework import runners
    code = ("import os, time\n"
            "pid = os.fork()\n"
            "time.sleep(3)\n"
            "if pid: os.waitpid(pid, 0)\n")
    worker = subprocess.Popen([sys.executable, "-c", code, "apache_beam.runners.worker.sdk_worker_main"])
    try:
        time.sleep(1.0)
        assert runners.sdk_worker_pids() == [worker.pid]
    finally:
        worker.kill()
        worker.wait()


def test_a_broken_worker_channel_counts_as_a_dead_worker_but_a_dofn_error_does_not():
    # Raised by Beam when a killed worker's channel breaks before the watchdog's grace period is over.
    assert runners._lost_channel(RuntimeError("Channel closed prematurely."))
    assert runners._lost_channel(RuntimeError("<_MultiThreadedRendezvous of RPC that terminated with: "
                                              "status = StatusCode.UNAVAILABLE details = \"Socket closed\">"))
    # A user's DoFn error comes back from the harness: it is the job's own failure, reported as it is.
    assert not runners._lost_channel(RuntimeError("Error received from SDK harness for instruction 7: "
                                                  "ValueError: bad record"))
    assert not runners._lost_channel(ValueError("Channel width must be positive"))


def test_a_worker_killed_just_before_beam_notices_its_broken_channel_is_named(tmp_path, monkeypatch):
    """CI: Beam raised "Channel closed prematurely" 0.3 s after a worker was killed, before the watchdog's
    next look at the process table, and the run failed with Beam's words instead of naming the worker.
    The watchdog now looks again when Beam reports a broken channel. Here the watchdog's own polls are
    an hour apart, so only that look can find the (real, killed) worker process."""
    import subprocess
    import time
    script = tmp_path / "sdk_worker_main.py"  # a stand-in named like Beam's worker module
    script.write_text("import time\ntime.sleep(60)\n")
    worker = subprocess.Popen([sys.executable, str(script)])
    real_watchdog, made = runners._WorkerWatchdog, []
    monkeypatch.setattr(runners, "_WorkerWatchdog", lambda: made.append(real_watchdog(poll_s=3600)) or made[-1])

    def run(pipeline, args):
        deadline = time.time() + 30
        while runners.sdk_worker_pids() != [worker.pid] and time.time() < deadline:
            time.sleep(0.05)
        assert made[-1].check() == []  # the watchdog sees the worker alive (its own first poll is an hour away)
        worker.kill()
        worker.wait()
        raise RuntimeError("Channel closed prematurely.")

    monkeypatch.setattr(runners, "_run_with_progress", run)
    options = runners.make_options(_args(num_workers=2), [])
    try:
        with pytest.raises(runners.WorkerDied) as died:
            runners.run_and_wait(beam.Pipeline(options=options), _args(num_workers=2))
    finally:
        worker.kill()
        worker.wait()
    assert str(died.value).startswith(f"SDK worker process(es) [{worker.pid}] of the local runner died mid-run")
    # A DoFn's own error with no dead worker is raised as it is.
    monkeypatch.setattr(runners, "_run_with_progress", lambda p, a: (_ for _ in ()).throw(ValueError("bad record")))
    with pytest.raises(ValueError, match="bad record"):
        runners.run_and_wait(beam.Pipeline(options=options), _args(num_workers=2))


def test_worker_threads_share_the_cores_between_workers_and_leave_the_users_setting(monkeypatch):
    for k in runners.THREAD_VARIABLES:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")  # the user's own choice
    with runners.worker_threads(2, cpus=8):
        assert os.environ["OMP_NUM_THREADS"] == "4" and os.environ["OPENBLAS_NUM_THREADS"] == "4"
        assert os.environ["MKL_NUM_THREADS"] == "3"
    assert "OMP_NUM_THREADS" not in os.environ and os.environ["MKL_NUM_THREADS"] == "3"
    with runners.worker_threads(4, cpus=2):
        assert os.environ["OMP_NUM_THREADS"] == "1"
    with runners.worker_threads(1, cpus=8):  # in-process: the driver's own settings
        assert "OMP_NUM_THREADS" not in os.environ


@pytest.mark.parametrize("inherited", ["ignored", "default"])
def test_watchdog_interrupts_again_when_the_first_interrupt_is_swallowed(monkeypatch, inherited):
    # A full-suite run started with `nohup make test &` left a driver waiting forever after a worker
    # was killed: a background process inherits SIGINT ignored, so the watchdog's signal was lost.
    # The watchdog now handles SIGINT while it watches (and restores what was there), and signals
    # until the run stops, in case one interrupt is swallowed.
    import signal as _signal
    import time as _time

    from pipelines.framework import runners as r
    seen = iter([[4242]])  # one worker seen, then gone
    monkeypatch.setattr(r, "sdk_worker_pids", lambda pid=None: next(seen, []))
    before = _signal.getsignal(_signal.SIGINT)
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN if inherited == "ignored" else _signal.default_int_handler)
    watchdog = r._WorkerWatchdog(grace_s=0.2, poll_s=0.05, resend_s=0.3)
    interrupts = 0
    try:
        with watchdog:
            deadline = _time.time() + 20
            while interrupts < 2 and _time.time() < deadline:
                try:
                    _time.sleep(0.05)
                except KeyboardInterrupt:
                    interrupts += 1  # the first one swallowed
        after = _signal.getsignal(_signal.SIGINT)
    finally:
        _signal.signal(_signal.SIGINT, before)
    assert interrupts == 2
    assert watchdog.fired and watchdog.dead == [4242]
    assert after == (_signal.SIG_IGN if inherited == "ignored" else _signal.default_int_handler)


def test_local_worker_processes_run_the_project_worker_module_and_the_patch_is_scoped(tmp_path):
    """Each worker process of the local runner runs pipelines/framework/workers/sdk_worker_main.py (Beam's worker,
    ending without interpreter teardown); Beam's environment factory is restored after the run."""
    from apache_beam.transforms import environments
    factory = environments.SubprocessSDKEnvironment.__dict__["from_command_string"]
    args = _args(num_workers=2)
    import glob
    import pathlib
    with beam.Pipeline(runner=runners.make_runner(args), options=runners.make_options(args, [])) as p:
        # The command line of each process that ran an element (library functions only: the workers cannot
        # import this test module).
        _ = (p | beam.Create([pathlib.Path("/proc/self/cmdline")] * 4) | beam.Map(pathlib.Path.read_bytes)
             | beam.Map(bytes.hex) | beam.io.WriteToText(str(tmp_path / "cmd")))
    cmds = [bytes.fromhex(line).replace(b"\0", b" ").decode() for f in glob.glob(str(tmp_path / "cmd*"))
            for line in open(f).read().split()]
    assert len(cmds) == 4
    assert all(runners.WORKER_MODULE in c and runners.BEAM_WORKER_MODULE not in c for c in cmds), cmds
    assert environments.SubprocessSDKEnvironment.__dict__["from_command_string"] is factory


def test_the_worker_module_exits_with_the_workers_failure_status():
    # Without the runner's control address Beam's worker fails at start: the status must say so.
    import subprocess
    env = {k: v for k, v in os.environ.items() if k not in ("CONTROL_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS")}
    proc = subprocess.run([sys.executable, "-m", runners.WORKER_MODULE], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "CONTROL_API_SERVICE_DESCRIPTOR" in proc.stderr


def test_exit_now_flushes_streams_and_logs_and_keeps_the_status(tmp_path):
    import subprocess
    log = tmp_path / "run.log"
    code = ("import logging, sys; from pipelines.framework.workers.process import exit_now; "
            f"logging.basicConfig(filename={str(log)!r}, level=logging.INFO); logging.info('kept'); "
            "sys.stdout.write('summary without newline'); sys.stderr.write('note'); exit_now(3)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "summary without newline", "note")
    assert "kept" in log.read_text()


def test_an_engine_runs_sdk_workers_are_told_from_their_fork_server_and_their_death_is_named():
    """The SDK workers an engine's tasks run in (pipelines/framework/workers/external_pool.py): the fork server's
    children, which keep its command line, and workers started as processes of their own. One killed
    before the run fails with a lost gRPC channel is named as the cause; a DoFn's error or a lost
    TaskManager is reported as it is."""
    import signal
    import subprocess
    import time
    server_code = "import os, time\nif os.fork() == 0:\n    time.sleep(60)\nelse:\n    time.sleep(60)\n"
    server = subprocess.Popen([sys.executable, "-c", server_code, "-m", "pipelines.framework.workers.external_pool",
                               "--fork-server", "/nonexistent/fork.sock", "--preload",
                               "apache_beam.runners.worker.sdk_worker_main"])
    spawned = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "-m",
                                "pipelines.framework.workers.external_pool", "localhost:1", "1-1"])
    try:
        deadline = time.time() + 30
        while time.time() < deadline and len(runners.engine_worker_pids()) < 2:
            time.sleep(0.1)
        workers = runners.engine_worker_pids()
        assert len(workers) == 2 and server.pid not in workers and spawned.pid in workers
        forked = [p for p in workers if p != spawned.pid][0]
        watch = runners._EngineWorkerWatch(pool="a pool")
        watch.check()
        os.kill(forked, signal.SIGKILL)
        deadline = time.time() + 10
        while time.time() < deadline and forked in runners.engine_worker_pids():
            time.sleep(0.1)
        watch.check()
        lost = RuntimeError("Pipeline BeamApp failed in state FAILED: java.lang.RuntimeException: "
                            "io.grpc.StatusRuntimeException: CANCELLED: call already cancelled")
        line = watch.cause_of(lost, before_s=0)
        assert line.startswith(f"SDK worker process(es) [{forked}] of this run died mid-run") and "\n" not in line
        assert "CANCELLED: call already cancelled" in line
        assert watch.cause_of(RuntimeError("CANCELLED: Error received from SDK harness for instruction 4: "
                                           "ValueError: bad record"), before_s=0) is None
        assert watch.cause_of(RuntimeError("CANCELLED: TaskManager with id tm-0 is no longer reachable"),
                              before_s=0) is None
        assert watch.cause_of(lost, before_s=60) is None  # ended as the run failed: not taken for its cause
        assert runners._EngineWorkerWatch(pool=None).cause_of(lost, before_s=0) is None
    finally:
        for p in (server, spawned):
            p.kill()
            p.wait()


def test_an_engine_sdk_workers_errors_reach_the_console_as_one_line_unless_tracebacks_are_asked_for():
    # A TaskManager lost mid-run breaks its workers' gRPC channels; each worker logs it, on the console of a
    # run that then recovers: one line each, not a traceback (REWRITE_MINE_WORKER_TRACEBACKS=1 keeps them).
    import subprocess
    code = ("import logging; from pipelines.framework.workers.external_pool import configure_worker_logging\n"
            "configure_worker_logging('1-1')\n"
            "try:\n    raise ConnectionError('Socket closed\\n  by peer')\n"
            "except ConnectionError:\n    logging.getLogger('apache_beam.data_plane').exception('Failed to read')\n")
    env = {k: v for k, v in os.environ.items() if k != "REWRITE_MINE_WORKER_TRACEBACKS"}
    quiet = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
    assert quiet.returncode == 0, quiet.stderr
    lines = [line for line in quiet.stderr.splitlines() if "worker 1-1" in line or line.startswith("  (")]
    assert "Traceback" not in quiet.stderr and "ERROR worker 1-1 apache_beam.data_plane: Failed to read" in lines[0]
    assert "ConnectionError: Socket closed by peer" in quiet.stderr
    loud = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(env, REWRITE_MINE_WORKER_TRACEBACKS="1"))
    assert "Traceback (most recent call last)" in loud.stderr


def test_the_worker_pool_stops_the_asking_engines_worker_when_two_engines_use_the_same_worker_id():
    # Two TaskManagers each number their SDK workers from "1-1" on and ask the one pool of the driver over
    # gRPC (one channel per environment, Beam's ExternalEnvironmentFactory). A StopWorker from one must stop
    # its own worker, never the other TaskManager's (whose tasks would then fail mid-run).
    import time
    import grpc
    from apache_beam.portability.api import beam_fn_api_pb2, beam_fn_api_pb2_grpc, endpoints_pb2
    from pipelines.framework.workers.external_pool import ProcessWorkerPool
    pool = ProcessWorkerPool(log_output=False)  # no preload: workers are processes of their own
    address = pool.start()
    channels = [grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(2)]
    try:
        stubs = [beam_fn_api_pb2_grpc.BeamFnExternalWorkerPoolStub(c) for c in channels]
        pids = []
        for stub in stubs:  # a control endpoint nobody serves: the worker waits for it (60 s), then ends
            request = beam_fn_api_pb2.StartWorkerRequest(
                worker_id="1-1", control_endpoint=endpoints_pb2.ApiServiceDescriptor(url="localhost:1"))
            assert not stub.StartWorker(request).error
            deadline = time.time() + 30
            while time.time() < deadline and len(runners.engine_worker_pids()) < len(pids) + 1:
                time.sleep(0.1)
            pids.append((set(runners.engine_worker_pids()) - set(pids)).pop())
        assert pool.started == 2 and len(set(pids)) == 2
        stubs[0].StopWorker(beam_fn_api_pb2.StopWorkerRequest(worker_id="1-1"))
        assert runners.engine_worker_pids() == [pids[1]]  # the first engine's worker, not the second's
        stubs[1].StopWorker(beam_fn_api_pb2.StopWorkerRequest(worker_id="1-1"))
        assert runners.engine_worker_pids() == []
    finally:
        for c in channels:
            c.close()
        pool.stop()


def test_an_engine_job_is_named_after_its_staging_directory_the_same_for_every_run_of_a_command(tmp_path):
    name = runners.engine_job_name(str(tmp_path / "_staging" / "markers-0123456789abcdef"))
    assert name == "rewrite-mine-markers-0123456789abcdef"
    assert runners.engine_job_name("gs://bucket/out/_staging/markers uk-01/") == "rewrite-mine-markers-uk-01"
    args = _args(runner="flink", output=str(tmp_path / "_staging" / "markers-0123456789abcdef"))
    # Nothing to stop: another runner, no marker, or a marker whose driver still runs (this process).
    assert runners.stop_orphaned_job(_args(runner="local"), [], str(tmp_path), {"pid": 1}) == []
    assert runners.stop_orphaned_job(args, ["--flink_master", "localhost:1"], str(tmp_path), None) == []
    import socket
    alive = {"pid": os.getppid(), "host": socket.gethostname()}
    assert runners._driver_alive({"pid": 2 ** 22 + 7, "host": socket.gethostname()}) is False
    assert runners._driver_alive(dict(alive, host="elsewhere")) is False
    # No cluster answers there: nothing of it can still run.
    assert runners.stop_orphaned_job(args, ["--flink_master", f"localhost:{_free_port()}"], str(tmp_path),
                                     {"pid": 2 ** 22 + 7, "host": socket.gethostname()}) == []


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_port_picked_for_a_daemon_that_binds_it_later_is_outside_the_kernels_ephemeral_range():
    # a kept job server binds its port seconds after the test picked it, while a Flink cluster's JVMs
    # start and bind port 0 (free_port's range): a port only ever given to who names it cannot be taken
    import socket  # pylint: disable=import-outside-toplevel
    from pipelines.framework.workers.external_pool import free_fixed_port  # pylint: disable=import-outside-toplevel
    with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="utf-8") as f:
        ephemeral_low = int(f.read().split()[0])
    ports = {free_fixed_port() for _ in range(20)}
    assert all(20000 <= p < min(32768, ephemeral_low) for p in ports) and len(ports) > 1
    taken = free_fixed_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", taken))
        with pytest.raises(OSError, match=f"no free port of localhost found in {taken}-{taken}"):
            free_fixed_port(taken, taken + 1)
