"""Scheduled reprocessing: input fingerprints, up-to-date runs, versions per dump date, atomic publication."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ROOT  # noqa: E402
from pipelines.framework import publication  # noqa: E402


@pytest.mark.parametrize("name,date", [
    ("enwiki-20240601-pages-articles1.xml-p1p30303.bz2", "20240601"),
    ("gs://dumps/dewiki/dewiki-20231101-pages-meta-history3.xml-p1p2.7z", "20231101"),
    ("/data/enwiktionary-20240101-pages-articles.xml.bz2", "20240101"),
    ("enwiki-latest-pages-articles.xml.bz2", ""),
    ("enwiki-20241399-pages-articles.xml.bz2", ""),  # not a date
    ("CC-MAIN-20240101-00001.warc.wet.gz", ""),
])
def test_dump_date_is_read_from_wikimedia_dump_names(name, date):
    assert publication.parse_dump_date(name) == date


def test_dump_date_option_resolves_or_says_what_to_pass():
    a, b = "x/enwiki-20240601-pages-articles1.xml.bz2", "x/enwiki-20240601-pages-meta-history1.xml.bz2"
    assert publication.resolve_dump_date("", [a]) == ""
    assert publication.resolve_dump_date("auto", [a, b]) == "20240601"
    assert publication.resolve_dump_date("20240515", [a]) == "20240515"
    with pytest.raises(publication.ReprocessError, match="several dumps"):
        publication.resolve_dump_date("auto", [a, "x/enwiki-20240701-pages-articles1.xml.bz2"])
    with pytest.raises(publication.ReprocessError, match="pass --dump_date YYYYMMDD"):
        publication.resolve_dump_date("auto", [a, "x/enwiki-latest-pages-articles.xml.bz2"])
    with pytest.raises(publication.ReprocessError, match="YYYYMMDD or 'auto'"):
        publication.resolve_dump_date("2024-06-01", [a])


def test_fingerprint_follows_inputs_options_and_code_not_the_runner(tmp_path):
    from pipelines import discovery
    path = tmp_path / "enwiki-20240601-pages-articles1.xml.bz2"
    path.write_bytes(b"first")

    def fp(*extra):
        args, _ = discovery.JOB.parse_args(["--input", str(path), "--output", str(tmp_path / "out")] + list(extra))
        return publication.plan_for(discovery.JOB, args, [str(path)])

    plan = fp()
    assert plan.inputs == [{"path": str(path), "size_bytes": 5, "dump_date": "20240601",
                            "sha256": hashlib.sha256(b"first").hexdigest()}]
    assert fp("--runner", "dask", "--num_workers", "7").fingerprint == plan.fingerprint
    assert fp("--own_job_server", "--no_progress", "--progress_interval", "5").fingerprint == plan.fingerprint
    assert fp("--seed", "1").fingerprint != plan.fingerprint
    assert fp("--dump_date", "auto").fingerprint != plan.fingerprint
    assert fp("--checksum", "metadata").inputs[0]["mtime"] == pytest.approx(os.stat(path).st_mtime)
    path.write_bytes(b"other")
    assert fp().fingerprint != plan.fingerprint


def _mtimes(directory):
    return {os.path.join(b, n): os.stat(os.path.join(b, n)).st_mtime_ns
            for b, _, files in os.walk(directory) for n in files}


def _discovery(articles, out, *extra):
    return h.run_job("pipelines.discovery", h.DISCOVERY_ARGS + ["--input", articles, "--output", str(out),
                                                                "--num_workers", "1"] + list(extra))


@pytest.mark.slow
def test_same_inputs_find_nothing_to_do_and_force_rewrites_identical_bytes(tmp_path):
    articles = h.inputs()["articles"]
    first = _discovery(articles, tmp_path)
    published = tmp_path / "markers"
    assert first["_path"] == str(published / "manifest.json") and not first["_up_to_date"]
    assert first["inputs"][0]["sha256"] == hashlib.sha256(open(articles, "rb").read()).hexdigest()
    assert sorted(os.listdir(tmp_path)) == ["markers"]  # no staging left behind
    before, digest = _mtimes(published), h.digest(published)
    assert digest == h.digest(h.reference("discovery"))

    again = _discovery(articles, tmp_path)
    assert again["_up_to_date"] is True
    assert again["reprocess"]["fingerprint"] == first["reprocess"]["fingerprint"]
    assert _mtimes(published) == before  # nothing was written

    forced = _discovery(articles, tmp_path, "--force")
    assert forced["_up_to_date"] is False
    assert h.digest(published) == digest
    assert h.comparable_manifest(published / "manifest.json") == h.comparable_manifest(
        h.reference("discovery") + "/manifest.json")


@pytest.mark.slow
def test_a_new_dump_date_writes_a_new_version_beside_the_old(tmp_path):
    june = h.write_articles(tmp_path, date="20240601")
    july = h.write_articles(tmp_path, date="20240701")
    may = h.write_articles(tmp_path, date="20240501")
    out = tmp_path / "out"
    _discovery(june, out, "--dump_date", "auto")
    june_digest = h.digest(out / "20240601" / "markers")
    assert h.examples_written(out / "20240601" / "markers" / "manifest.json") > 0
    assert (out / "markers.LATEST").read_text() == "20240601\n"

    manifest = _discovery(july, out, "--dump_date", "auto")
    assert manifest["reprocess"]["version"] == "20240701"
    assert manifest["reprocess"]["published"] == str(out / "20240701" / "markers")
    assert h.digest(out / "20240601" / "markers") == june_digest  # the old version is untouched
    assert (out / "markers.LATEST").read_text() == "20240701\n"

    _discovery(may, out, "--dump_date", "auto")  # a backfill does not move LATEST back
    assert (out / "markers.LATEST").read_text() == "20240701\n"
    assert sorted(os.listdir(out)) == ["20240501", "20240601", "20240701", "markers.LATEST"]


@pytest.mark.slow
def test_a_run_killed_midway_publishes_nothing_and_the_next_run_completes_it(tmp_path):
    out = tmp_path / "out"
    june = h.write_articles(tmp_path, date="20240601")
    july = h.write_articles(tmp_path, date="20240701")
    old = _discovery(june, out)
    old_digest = h.digest(out / "markers")
    old_manifest = (out / "markers" / "manifest.json").read_text()

    argv = ["discovery"] + h.DISCOVERY_ARGS + ["--input", july, "--output", str(out), "--num_workers", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "pipelines.cli"] + argv, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staging = out / publication.STAGING
    deadline = time.time() + 300
    killed_while = None
    while time.time() < deadline and proc.poll() is None:
        written = [f for b, _, fs in os.walk(staging) for f in fs if f != publication.RUNNING_MARKER]
        if written:  # the pipeline is writing its shards: kill the driver now
            killed_while = written
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert killed_while, "the run finished or never wrote before it could be killed"
    # Readers still see the complete old dataset, byte for byte.
    assert h.digest(out / "markers") == old_digest
    assert (out / "markers" / "manifest.json").read_text() == old_manifest
    assert os.listdir(staging)  # the partial run is only in staging

    new = h.run_job("pipelines.discovery", argv[1:])
    assert new["reprocess"]["fingerprint"] != old["reprocess"]["fingerprint"]
    published = json.loads((out / "markers" / "manifest.json").read_text())
    assert published["reprocess"]["fingerprint"] == new["reprocess"]["fingerprint"]
    assert published["inputs"][0]["path"] == july
    assert h.examples_written(out / "markers" / "manifest.json") == h.examples_written(
        h.reference("discovery") + "/manifest.json")
    # logs/: the CLI run's log file (pipelines/framework/console.py)
    assert sorted(os.listdir(out)) == ["logs", "markers"]


@pytest.mark.slow
def test_a_finished_run_whose_publication_was_cut_short_is_published_without_running_again(tmp_path):
    articles = h.inputs()["articles"]
    first = _discovery(articles, tmp_path)
    plan = publication.make_plan("markers", str(tmp_path), "", first["reprocess"]["fingerprint"], first["inputs"])
    os.makedirs(plan.staging_root)
    os.rename(tmp_path / "markers", plan.staging_dir)  # as if the driver died between run and publication
    assert not (tmp_path / "markers").exists()
    again = _discovery(articles, tmp_path)
    assert again["run"] == first["run"]  # the staged manifest, not a new run
    assert h.digest(tmp_path / "markers") == h.digest(h.reference("discovery"))
    assert sorted(os.listdir(tmp_path)) == ["markers"]


def test_publication_refuses_an_unfinished_staging_directory(tmp_path):
    plan = publication.make_plan("markers", str(tmp_path), "", "ab" * 32, [])
    publication.prepare_staging(plan)
    os.makedirs(plan.staging_dir)
    (tmp_path / "markers").mkdir()
    (tmp_path / "markers" / "keep.txt").write_text("old")
    with pytest.raises(publication.ReprocessError, match="did not finish"):
        publication.publish(plan)
    assert (tmp_path / "markers" / "keep.txt").read_text() == "old"
    assert json.loads(open(os.path.join(plan.staging_root, publication.RUNNING_MARKER)).read())["fingerprint"] == \
        "ab" * 32


def test_a_temporary_file_a_task_attempt_left_is_not_published(tmp_path, caplog):
    # A full run beside a heavy job: the Spark driver-kill test's rerun published two files of
    # rejects/.tmp-<uuid>/ (written after the run had removed that directory: a retried or zombie attempt).
    plan = publication.make_plan("markers", str(tmp_path), "", "cd" * 32, [])
    publication.prepare_staging(plan)
    staged = os.path.join(plan.staging_dir, "rejects")
    os.makedirs(os.path.join(staged, ".tmp-84d5123f"))
    with open(os.path.join(staged, ".tmp-84d5123f", "00000-14c1.jsonl"), "w", encoding="utf-8") as f:
        f.write('{"reason": "x"}\n')
    with open(os.path.join(staged, "rejects-00000-of-00001.jsonl"), "w", encoding="utf-8") as f:
        f.write('{"reason": "x"}\n')
    with open(os.path.join(plan.staging_dir, publication.MANIFEST), "w", encoding="utf-8") as f:
        f.write("{}")
    with caplog.at_level("WARNING", logger="rewrite_mine"):
        published = publication.publish(plan)
    files = sorted(os.path.relpath(os.path.join(r, n), published) for r, _, ns in os.walk(published) for n in ns)
    assert files == ["manifest.json", os.path.join("rejects", "rejects-00000-of-00001.jsonl")]
    assert not os.path.exists(os.path.join(published, "rejects", ".tmp-84d5123f"))
    assert any("1 temporary file(s)" in r.getMessage() and "00000-14c1.jsonl" in r.getMessage()
               for r in caplog.records)


def test_restaged_paths_read_as_published_with_or_without_a_trailing_slash():
    from pipelines.framework.job import _restage_paths
    info = {"report": "out/_staging/simplify-1a2b/simplify/stats/report.html", "n": 3,
            "files": ["out/_staging/simplify-1a2b/simplify/a.tfrecord"]}
    for published in ("out", "out/"):
        assert _restage_paths(info, "out/_staging/simplify-1a2b", published) == {
            "report": "out/simplify/stats/report.html", "n": 3, "files": ["out/simplify/a.tfrecord"]}
