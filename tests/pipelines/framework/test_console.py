"""The console a person reads (issue 13): our lines only, a log file, live progress, advice, `show`.

Two real job runs on the bundled Wikipedia sample, in a subprocess as a user runs them:
  * quiet (default): `discovery` without `--preset sample`, not a terminal, progress every second;
  * `-v --preset sample`: library warnings shown live; its output is read back by `rewrite-mine show`.
The rest are unit tests on the pieces (rules table, console filter, progress figures, Dataflow URL).
"""
import collections
import io
import logging
import os
import re
import subprocess
import sys
import types

import pytest

from conftest import ENWIKI, ROOT
from pipelines.framework import advice, console, progress
from transforms import progress as live_progress  # the worker side of the side channel

CLI = [sys.executable, "-m", "pipelines.cli"]
# Lines other libraries print on every run (issue 13's list), never on the quiet console.
THIRD_PARTY = ("FutureWarning", "Unable to import IPython", "semi_persistent_directory", "warnings.warn(")


def _cli(*args, timeout=600):
    env = {k: v for k, v in os.environ.items() if k not in console.QUIET_ENV}
    return subprocess.run(CLI + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def quiet_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("quiet") / "out"
    proc = _cli("discovery", "--input", str(ENWIKI), "--output", str(out), "--progress_interval", "1",
                "--no_validation")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


@pytest.fixture(scope="module")
def verbose_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("verbose") / "out"
    proc = _cli("discovery", "-v", "--input", str(ENWIKI), "--output", str(out), "--preset", "sample",
                "--num_workers", "1", "--no_progress")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


@pytest.mark.slow
def test_quiet_console_shows_only_our_lines_and_the_log_file_has_the_rest(quiet_run):
    out, proc = quiet_run
    text = proc.stdout + proc.stderr
    for marker in THIRD_PARTY:
        assert marker not in text, marker
    for line in proc.stderr.splitlines():  # every stderr line is one of ours (rewrite_mine logger)
        assert " rewrite_mine: " in line, line
    log = (out / "logs" / "rewrite-mine-discovery.log").read_text()
    assert "FutureWarning" in log and "py.warnings" in log  # whole, in the log file
    assert "semi_persistent_directory" in log  # the SDK workers' lines relayed to the driver
    assert f"log:      {out / 'logs' / 'rewrite-mine-discovery.log'}" in proc.stdout


@pytest.mark.slow
def test_progress_lines_when_not_a_terminal(quiet_run):
    _, proc = quiet_run
    lines = [l for l in proc.stderr.splitlines() if " rewrite_mine: progress: " in l]
    assert lines, proc.stderr[-2000:]
    assert any(" of " in l and "docs (" in l and "elapsed " in l and "ETA " in l for l in lines)
    assert any("read 1.7 MB of 1.7 MB (100%)" in l for l in lines)  # the whole bz2 sample was read


@pytest.mark.slow
def test_empty_run_explains_which_stage_and_option(quiet_run):
    _, proc = quiet_run
    assert "0 examples written." in proc.stdout
    # Every candidate of the sample (509 since sentences ending in a colon are no pair) is dropped there.
    assert re.search(r"select/filtered:rare_marker dropped (\d+) of \1 \(100%\): every marker has fewer than "
                     r"10,000 candidates; for small inputs use --preset sample or lower --min_marker_count",
                     proc.stdout), proc.stdout


@pytest.mark.slow
def test_verbose_shows_library_warnings_live(verbose_run):
    out, proc = verbose_run
    assert "FutureWarning" in proc.stderr
    assert "== rewrite-mine discovery: markers ==" in proc.stdout
    assert (out / "logs" / "rewrite-mine-discovery.log").exists()


@pytest.mark.slow
def test_show_prints_summary_examples_and_report(verbose_run):
    out, _ = verbose_run
    proc = _cli("show", str(out / "markers"), "--examples", "1", "--max_labels", "2", "--seed", "3", timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "== rewrite-mine discovery: markers ==" in proc.stdout
    assert "-- markers/base: 2 of " in proc.stdout
    assert proc.stdout.count("    sentence1: ") >= 2 * 6 - 1  # one example per label, 2 labels, 6 variants
    assert f"report: {out / 'markers' / 'stats' / 'report.html'}" in proc.stdout
    assert "FutureWarning" not in proc.stdout + proc.stderr
    again = _cli("show", str(out / "markers"), "--examples", "1", "--max_labels", "2", "--seed", "3", timeout=300)
    assert again.stdout == proc.stdout  # seeded


def test_show_without_manifest_says_so(tmp_path):
    from pipelines import show
    assert show.show(str(tmp_path), stream=io.StringIO()) == 2


# ------------------------------------------------------------------ rules table

def _manifest(stages, written=0, **options):
    return {"job": "discovery", "options": dict({"min_marker_count": 10000, "format": "auto"}, **options),
            "counts": {"stages": stages, "written": {"base": {"train": {"examples": written, "labels": {}}}}}}


def test_advice_names_stage_option_and_fix():
    lines = advice.advise(_manifest({"select": {"filtered": {"rare_marker": 526}},
                                     "pairs": {"passed": 528, "filtered": {"no_marker": 12510}}}))
    assert lines == ["0 examples written.",
                     "select/filtered:rare_marker dropped 526 of 526 (100%): every marker has fewer than 10,000 "
                     "candidates; for small inputs use --preset sample or lower --min_marker_count"]


def test_advice_nearly_everything_generic_rule_and_silence_when_fine():
    lines = advice.advise(_manifest({"mystage": {"passed": 1, "filtered": {"odd": 200}}}, written=1))
    assert lines == ["mystage/filtered:odd dropped 200 of 201 (100%): see the mystage options in "
                     "`rewrite-mine discovery --help`"]
    assert advice.advise(_manifest({"select": {"passed": 369, "filtered": {"rare_marker": 112}}}, written=3)) == []


def test_advice_rules_can_be_extended():
    rule = advice.register(advice.Rule("mystage/filtered:odd", option="min_words", job="discovery",
                                       message="too odd for --min_words {value}"))
    try:
        lines = advice.advise(_manifest({"mystage": {"filtered": {"odd": 5}}}, written=1, min_words=4))
        assert lines == ["mystage/filtered:odd dropped 5 of 5 (100%): too odd for --min_words 4"]
    finally:
        advice.RULES.remove(rule)


def test_advice_nothing_read():
    lines = advice.advise(_manifest({"read": {"documents": 0, "skipped": {"redirect": 3}}}))
    assert lines[0] == "0 examples written." and "no document was read" in lines[1]


# ------------------------------------------------------------------ console filter

def _record(name, level, msg, *args):
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_console_filter_keeps_ours_and_our_workers_lines_only():
    f = console.ConsoleFilter()
    assert f.filter(_record("rewrite_mine", logging.INFO, "discovery: 1 input file(s)"))
    assert not f.filter(_record("apache_beam.io.gcp", logging.WARNING, "gcp"))
    assert not f.filter(_record("py.warnings", logging.WARNING, "FutureWarning: x"))
    assert f.filter(_record("grpc", logging.ERROR, "a real error"))
    ours = os.path.join(console.PROJECT_ROOT, "transforms", "discovery.py")
    entry = f'severity: WARN message: "no langid model; using the heuristic" log_location: "{ours}:12" thread: "1"'
    rec = _record(console.WORKER_LOGGER, logging.WARNING, "Worker: %s", entry)
    assert f.filter(rec) and rec.getMessage() == "worker: no langid model; using the heuristic"
    theirs = 'severity: WARN message: "No semi_persistent_directory found" log_location: "/x/site-packages/a.py:3"'
    assert not f.filter(_record(console.WORKER_LOGGER, logging.WARNING, "Worker: %s", theirs))


# What Beam's portable runner logged (root logger, ERROR) when a Flink task failed in an SDK worker of the
# image, the object store stopped mid-run (test_worker_image.py, 2026-11-29), shortened to its shape.
_ENGINE_FAILURE = (
    "java.lang.RuntimeException: Error received from SDK harness for instruction 85: Traceback (most recent "
    "call last):\n  File \"/opt/rewrite-mining/venv/lib/python3.11/site-packages/urllib3/connection.py\", line "
    "239, in _new_conn\n    sock = connection.create_connection(\nConnectionRefusedError: [Errno 111] "
    "Connection refused\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback "
    "(most recent call last):\n  File \"/opt/rewrite-mining/src/transforms/sinks.py\", line 253, in process\n"
    "    f = self._files[shard] = (path, FileSystems.create(path, mime_type=\"application/octet-stream\"))\n"
    "apache_beam.io.aws.clients.s3.messages.S3ClientError: ('Could not connect to the endpoint URL: "
    "\"http://127.0.0.1:44113/b/out/_staging/x.jsonl?uploads\" [while running \\'WriteRejects/RejectFiles7\\']', "
    "None)\n\n\tat java.base/java.util.concurrent.CompletableFuture.reportGet(CompletableFuture.java:396)\n")


def test_an_engines_relayed_traceback_is_one_console_line_and_whole_in_the_log(monkeypatch):
    monkeypatch.delenv(console.TRACEBACKS_ENV, raising=False)
    rec = _record("root", logging.ERROR, "%s", _ENGINE_FAILURE)
    assert console.ConsoleFilter().filter(rec)  # an error: it reaches the console ...
    line = console.ConsoleFormatter(console.FORMAT).format(rec)
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line  # ... in one line
    assert "WriteRejects/RejectFiles7" in line and "S3ClientError" in line and "Could not connect" in line, line
    assert console.TRACEBACKS_ENV in line and "log file" in line
    whole = logging.Formatter(console.FORMAT).format(rec)  # the log file's handler: the record is unchanged
    assert "Traceback (most recent call last)" in whole and "sinks.py" in whole
    # Our own lines and others' errors without a traceback are left as they are; so is everything when asked.
    ours = _record("rewrite_mine", logging.ERROR, "%s", _ENGINE_FAILURE)
    assert console.ConsoleFormatter(console.FORMAT).format(ours) == logging.Formatter(console.FORMAT).format(ours)
    plain = _record("grpc", logging.ERROR, "a real error")
    assert console.ConsoleFormatter(console.FORMAT).format(plain).endswith("grpc: a real error")
    monkeypatch.setenv(console.TRACEBACKS_ENV, "1")
    assert "sinks.py" in console.ConsoleFormatter(console.FORMAT).format(rec)


def test_library_warnings_go_to_the_log_ours_to_the_console():
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger().addHandler(handler)
    try:
        console._showwarning("old api", FutureWarning, "/x/site-packages/google/api_core/v.py", 3)
        console._showwarning("model missing", UserWarning, os.path.join(console.PROJECT_ROOT, "miners", "a.py"), 4)
    finally:
        logging.getLogger().removeHandler(handler)
    assert [(r.name, "FutureWarning" in r.getMessage()) for r in records] == [("py.warnings", True),
                                                                                ("rewrite_mine", False)]


# ------------------------------------------------------------------ progress

def test_side_channel_counts_and_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv(live_progress.ENV_DIR, str(tmp_path))
    c = live_progress.live_counts("markers")
    c["read/documents"] += 7
    c[live_progress.KEPT] += 3
    data = tmp_path / "input.bin"
    data.write_bytes(b"x" * 1000)
    with open(data, "rb") as f, live_progress.track_input("markers", f, 100):
        f.seek(100)
        f.read(400)
        assert live_progress.snapshot()["bytes"] == {"markers": 400}
    snap = live_progress.snapshot()
    assert snap == {"counts": {"markers": {"read/documents": 7, live_progress.KEPT: 3}}, "bytes": {"markers": 400}}
    f = progress.figures(snap, total_bytes=1600, elapsed=10.0)
    assert (f["bytes"], f["docs"], f["docs_per_s"], f["kept"], f["eta"]) == (400, 7, 0.7, {"markers": 3}, 30.0)
    assert progress.format_line(f) == ("read 400 B of 1.6 kB (25%), 7 docs (0.7/s), kept markers=3, "
                                       "elapsed 0:00:10, ETA 0:00:30")


def test_busy_stages_say_what_a_job_does_once_reading_is_over():
    before = {"counts": {"simplify": {"read/records": 300, "translate/candidates:es": 100, "select/passed": 5}},
              "bytes": {"simplify": 1600}}
    now = {"counts": {"simplify": {"read/records": 300, "translate/candidates:es": 700,
                                   "translate/candidates:ca": 200, "select/passed": 45, "seeds/text": 300,
                                   progress.KEPT: 0}},
           "bytes": {"simplify": 1600}}
    first = progress.figures(before, total_bytes=1600, elapsed=30.0)
    assert first["busy"] == [] and first["stages"] == {"simplify:translate": 100, "simplify:select": 5}
    f = progress.figures(now, total_bytes=1600, elapsed=60.0, before=first["stages"])
    # Reading and the kept counter are left out; the two stages that moved most, largest first.
    assert f["busy"] == [("simplify:translate", 800), ("simplify:seeds", 300)]
    assert progress.format_line(f) == ("read 1.6 kB of 1.6 kB (100%), 300 docs (5.0/s), kept simplify=0, "
                                       "busy simplify:translate +800, simplify:seeds +300, "
                                       "elapsed 0:01:00, ETA ?")


def test_monitor_logs_plain_lines_when_not_a_terminal(tmp_path):
    snaps = iter([{"counts": {"m": {"read/records": n}}, "bytes": {"m": 10 * n}} for n in range(1, 1000)])
    stream = io.StringIO()  # not a TTY
    with progress.Monitor(100, interval_s=0.1, stream=stream, source=lambda: next(snaps)) as m:
        import time
        time.sleep(0.5)
    assert m.lines and all("docs (" in line for line in m.lines)


def test_monitor_redraws_one_line_on_a_terminal_and_prints_our_log_lines_above_it():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    snaps = iter([{"counts": {"m": {"read/records": n}}, "bytes": {"m": 10 * n}} for n in range(1, 1000)])
    stream = Terminal()
    console.install(False)
    console._state["console_handler"].setStream(stream)
    try:
        with progress.Monitor(100, interval_s=0.1, stream=stream, source=lambda: next(snaps)) as m:
            import time
            time.sleep(1.5)
            logging.getLogger("rewrite_mine").info("a line of ours")
            time.sleep(0.6)
    finally:
        console.uninstall()
    out = stream.getvalue()
    assert not m.lines  # no plain log lines on a terminal
    assert "docs" in out and "\r" in out and "ETA" in out  # the redrawn line
    assert "rewrite_mine: a line of ours\n" in out  # whole, not broken by the redraw


def test_dataflow_submission_line_formatting_only():
    """Formatting only: a fake result object stands in for a DataflowPipelineResult (no Dataflow here)."""
    from apache_beam.options.pipeline_options import PipelineOptions
    assert progress.dataflow_job_url("2026-11-23_01_02_03-123", "europe-west1", "my-proj") == (
        "https://console.cloud.google.com/dataflow/jobs/europe-west1/2026-11-23_01_02_03-123?project=my-proj")
    fake = types.SimpleNamespace(job_id=lambda: "2026-11-23_01_02_03-123")
    options = PipelineOptions(["--runner", "DataflowRunner", "--project", "my-proj", "--region", "europe-west1"])
    assert progress.report_dataflow_submission(fake, options).endswith("-123?project=my-proj")
    assert progress.report_dataflow_submission(types.SimpleNamespace(), options) is None
    portable = PipelineOptions(["--runner", "PortableRunner"])  # a job id, but no Dataflow console
    assert progress.report_dataflow_submission(fake, portable) is None


def test_metrics_source_reads_counters_by_dataset_namespace():
    def counter(ns, name, committed):
        return types.SimpleNamespace(key=types.SimpleNamespace(metric=types.SimpleNamespace(namespace=ns, name=name)),
                                     committed=committed, attempted=committed)
    result = types.SimpleNamespace(metrics=lambda: types.SimpleNamespace(query=lambda: {"counters": [
        counter("markers", "read/documents", 5), counter("markers", progress.KEPT, 2),
        counter("beam", "internal", 9)]}))
    snap = progress.metrics_source(result)()
    assert snap["counts"] == {"markers": collections.Counter({"read/documents": 5, progress.KEPT: 2})}
