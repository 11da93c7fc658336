"""End to end: the `rewrite-mine` command on the bundled real sample, as a user runs it."""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ENWIKI, ROOT
from schemas.records import MarkerExample
from transforms.sinks import read_records

CLI = [sys.executable, "-m", "pipelines.cli"]


def _cli(*args, timeout=900):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run(CLI + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory):
    """The README's main command (2 worker processes) and the same job in-process."""
    base = tmp_path_factory.mktemp("cli")
    runs = {}
    for workers in ("2", "1"):
        out = base / f"w{workers}"
        proc = _cli("discovery", "--input", str(ENWIKI), "--output", str(out), "--tsv", "--preset", "sample",
                    "--num_workers", workers)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[workers] = (out, proc)
    return runs


@pytest.mark.slow
def test_main_command_prints_a_summary_and_writes_a_manifest(sample_runs):
    out, proc = sample_runs["2"]
    assert "== rewrite-mine discovery: markers ==" in proc.stdout
    assert "written examples:" in proc.stdout and "manifest:" in proc.stdout
    # Validation's counter per slice reads as what it means (it printed "anomalies: 18 kinds, total 0").
    assert re.search(r"validate +no anomalies \(\d+ slices checked\)", proc.stdout), proc.stdout
    manifest = json.loads((out / "markers" / "manifest.json").read_text())
    assert manifest["inputs"][0]["path"].endswith(ENWIKI.name)
    assert manifest["inputs"][0]["size_bytes"] == ENWIKI.stat().st_size
    assert manifest["options"]["preset"] == "sample" and manifest["run"]["runner"] == "local"
    assert manifest["code_version"]["package"] == "0.1.0"


@pytest.mark.slow
def test_read_equals_kept_plus_rejected_plus_skipped(sample_runs):
    out, _ = sample_runs["2"]
    stages = json.loads((out / "markers" / "manifest.json").read_text())["counts"]["stages"]
    read = stages["read"]
    assert read["records"] == read["documents"] + sum(read.get("skipped", {}).values()) + \
        sum(read.get("filtered", {}).values())
    # Every document that was read is either kept by the language check or rejected by it.
    assert read["documents"] == stages["document"]["passed"] + sum(stages["document"].get("filtered", {}).values())


@pytest.mark.slow
def test_shards_read_back_with_tensorflow_and_match_counts_and_tsv(sample_runs):
    tf = pytest.importorskip("tensorflow")
    out, _ = sample_runs["2"]
    manifest = json.loads((out / "markers" / "manifest.json").read_text())
    for variant, splits in manifest["counts"]["written"].items():
        for split, node in splits.items():
            files = sorted(glob.glob(str(out / "markers" / variant / split / "markers-*.tfrecord")))
            records = [MarkerExample.from_example(raw.numpy()) for raw in tf.data.TFRecordDataset(files)]
            assert len(records) == node["examples"], (variant, split)
            labels = {}
            for r in records:
                labels[r.label()] = labels.get(r.label(), 0) + 1
            assert labels == node["labels"]
            tsv_rows = [line.split("\t") for f in sorted(glob.glob(str(out / "markers" / variant / split / "*.tsv")))
                        for line in open(f, encoding="utf-8").read().splitlines()[1:]]
            assert sorted(tsv_rows) == sorted(r.to_row() for r in records)
    assert manifest["counts"]["written"]["base"]["train"]["examples"] > 0


@pytest.mark.slow
def test_same_shards_with_one_or_two_workers(sample_runs):
    a, _ = sample_runs["2"]
    b, _ = sample_runs["1"]
    # Data shards, TSVs, rejects and counters are byte-identical. (statistics.pb's means and deviations
    # differ in their last float bits with the order partial statistics are merged in, so only the
    # anomalies verdict is compared.)
    files = sorted(os.path.relpath(f, a) for f in glob.glob(str(a / "markers" / "**" / "*"), recursive=True)
                   if os.path.isfile(f) and "/stats/" not in f and not f.endswith("manifest.json"))
    assert (a / "markers/stats/anomalies.json").read_bytes() == (b / "markers/stats/anomalies.json").read_bytes()
    assert any(f.endswith(".tfrecord") for f in files)
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


@pytest.mark.slow
def test_rejects_name_their_reason_and_source(sample_runs):
    out, _ = sample_runs["2"]
    rejects = [json.loads(line) for f in sorted((out / "markers" / "rejects").glob("*.jsonl"))
               for line in f.read_text(encoding="utf-8").splitlines()]
    assert rejects
    assert all(r["reason"] and r["stage"] and r["source"] for r in rejects)
    by_reason = {}
    for r in rejects:
        by_reason[(r["stage"], r["reason"])] = by_reason.get((r["stage"], r["reason"]), 0) + 1
    manifest = json.loads((out / "markers" / "manifest.json").read_text())
    # Non-bulk reasons are written in full: the files agree with the counters.
    assert by_reason[("read", "empty_page")] == manifest["counts"]["stages"]["read"]["filtered"]["empty_page"]
    assert by_reason[("pairs", "too_long")] == manifest["counts"]["stages"]["pairs"]["filtered"]["too_long"]
    assert manifest["rejects_written"] == len(rejects)


def test_help_lists_every_option_with_its_default():
    proc = _cli("discovery", "--help", timeout=120)
    assert proc.returncode == 0
    for option in ("--input", "--output", "--tsv", "--runner", "--num_workers", "--split", "--min_marker_count",
                   "--langid_model", "--variants"):
        assert option in proc.stdout
    assert "(default: 0.9,0.05,0.05)" in proc.stdout.replace("\n", " ").replace("  ", " ") or \
        "0.9,0.05,0.05" in proc.stdout


def test_top_level_help_lists_jobs():
    proc = _cli("--help", timeout=120)
    assert proc.returncode == 0 and "discovery" in proc.stdout


def test_missing_input_fails_fast_naming_it(tmp_path):
    missing = tmp_path / "nope" / "enwiki-*.xml.bz2"
    proc = _cli("discovery", "--input", str(missing), "--output", str(tmp_path / "out"), timeout=120)
    assert proc.returncode == 2
    assert str(missing) in proc.stderr
    assert not (tmp_path / "out").exists()


def test_unreadable_input_fails_fast_naming_it(tmp_path):
    bad = tmp_path / "locked.xml.bz2"
    bad.write_bytes(b"x")
    os.chmod(bad, 0)
    if os.access(bad, os.R_OK):  # root reads anything: use a directory named like a file instead
        bad.unlink()
        bad.mkdir()
    proc = _cli("discovery", "--input", str(bad), "--output", str(tmp_path / "out"), timeout=120)
    assert proc.returncode == 2 and str(bad) in proc.stderr


def test_unknown_job_is_an_error():
    proc = _cli("nosuchjob", timeout=120)
    assert proc.returncode == 2 and "unknown job" in proc.stderr


def test_an_unquoted_glob_expanded_by_the_shell_is_an_error_not_one_file(tmp_path):
    # `--input dir/*` unquoted reaches the job as `--input dir/a dir/b`: before, the job ran on dir/a
    # alone and Beam dropped dir/b with a warning.
    a, b = tmp_path / "a.xml.bz2", tmp_path / "b.xml.bz2"
    for f in (a, b):
        f.write_bytes(ENWIKI.read_bytes())
    proc = _cli("discovery", "--input", str(a), str(b), "--output", str(tmp_path / "out"), timeout=120)
    assert proc.returncode == 2
    assert repr(str(b)) in proc.stderr and "--input 'dir/*'" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_preset_the_job_does_not_have_is_an_option_error_not_a_traceback(tmp_path):
    # DiscoFuse has no presets: `--preset sample` (Discovery's) raised a KeyError before.
    proc = _cli("discofuse", "--input", str(ENWIKI), "--output", str(tmp_path / "out"), "--preset", "sample",
                timeout=300)
    assert proc.returncode == 2 and "discofuse has no presets" in proc.stderr and "Traceback" not in proc.stderr
    proc = _cli("discovery", "--input", str(ENWIKI), "--output", str(tmp_path / "out"), "--preset", "nope",
                timeout=300)
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr  # argparse's own check
    assert not (tmp_path / "out").exists()


def test_stray_arguments_tell_option_values_from_paths():
    from pipelines.framework.job import stray_arguments
    assert stray_arguments(["--project", "p", "--region=eu", "x", "y"]) == ["x", "y"]
    assert stray_arguments(["b.json", "c.json", "--job_endpoint", "localhost:8099"]) == ["b.json", "c.json"]
    assert stray_arguments(["--direct_num_workers", "1", "--streaming"]) == []


def test_a_secret_that_begins_with_a_dash_reaches_the_s3_options_whole(tmp_path):
    # CI: a generated MinIO secret began with "-", and Beam's option parser stopped the run with
    # "--s3_secret_access_key: expected one argument".
    from pipelines.discovery import JOB
    from pipelines.framework.job import join_dash_values
    from pipelines.framework.storage import s3_options
    argv = ["--input", str(ENWIKI), "--output", str(tmp_path / "out"), "--s3_access_key_id", "-key1",
            "--s3_secret_access_key", "-NzhX-Lp", "--s3_session_token", "-tok", "--s3_region_name", "us-east-1"]
    args, beam_args = JOB.parse_args(argv)
    assert args.output == str(tmp_path / "out")
    given = {"s3_access_key_id": "-key1", "s3_secret_access_key": "-NzhX-Lp", "s3_session_token": "-tok",
             "s3_region_name": "us-east-1"}
    assert {k: v for k, v in s3_options(beam_args).items() if k in given} == given
    # Only those options' values are joined; an option missing its value is still an error, not a secret.
    assert join_dash_values(["--s3_secret_access_key", "--streaming", "--x", "-y"]) == \
        ["--s3_secret_access_key", "--streaming", "--x", "-y"]


def test_the_command_keeps_its_exit_status_and_output_when_it_ends_without_teardown(tmp_path):
    # `rewrite-mine` ends with os._exit after flushing (pipelines/framework/workers/process.py): --help's
    # text, an option error's status and message still arrive whole.
    proc = _cli("parasci", "--help", timeout=300)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("--output out/ --tsv")
    proc = _cli("parasci", "--input", "x", timeout=300)
    assert proc.returncode == 2 and "--output" in proc.stderr
