"""`rewrite-mine profile` end to end: the real WikiSplit tune set against a set where nothing splits.

Runs the command's entry point in this process (the same `main` that `rewrite-mine profile`
dispatches to) with the bundled MiniLM for BERTScore and en_core_web_sm for parsing.
"""
import json
import os
import re

import pytest

from pipelines import cli
from pipelines import profile as prof
from tests.conftest import SHARED_DATA
from tests.ppdb_fixtures import write_rules

TUNE = SHARED_DATA / "wikisplit" / "tune.tsv"
PNGS = ("alignment.png", "dropping.png", "reordering.png", "splitting.png")


def no_split_set(path, n=40):
    """One-sentence rewrites of tune.tsv's complex sentences: a comma-delimited phrase dropped (or
    the last words before the full stop), nothing split; plus three bad lines."""
    lines = []
    with open(TUNE, encoding="utf-8") as f:
        for line in f:
            complex_ = line.split("\t")[0].strip()
            if complex_.count(" . ") or not complex_.endswith(" ."):
                continue  # one sentence only
            simple = re.sub(r" , [^,]+ , ", " ", complex_, count=1)
            if simple == complex_:
                words = complex_.split()
                simple = " ".join(words[:-4] + words[-1:])
            lines.append(f"{complex_}\t{simple}")
            if len(lines) == n:
                break
    lines += ["", "only one column", "\tno complex side"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("profile")
    dropped = no_split_set(base / "dropped.tsv")
    out = base / "out"
    rc = cli.main(["profile", "--input", str(TUNE), "--name", "WikiSplit tune", "--input", dropped,
                   "--name", "Dropped", "--output", str(out), "--max_pairs", "100"])
    assert rc == 0
    with open(out / "profile.json", encoding="utf-8") as f:
        return out, json.load(f)


def test_split_share_near_one_for_wikisplit_and_zero_without_splits(run):
    _, result = run
    wikisplit, dropped = result["datasets"]
    assert (wikisplit["name"], dropped["name"]) == ("WikiSplit tune", "Dropped")
    assert wikisplit["format"] == "wikisplit" and dropped["format"] == "tsv"
    assert wikisplit["pairs"] == 100 and wikisplit["pairs_read"] == 5000 and wikisplit["sampled"] is True
    assert wikisplit["split_share"] > 0.9
    assert dropped["split_share"] == 0.0 and dropped["pairs"] == dropped["pairs_read"] == 40
    # the dropped set discards more and aligns less well than WikiSplit's splits
    w, d = wikisplit["metrics"], dropped["metrics"]
    assert d["dropping"]["mean"] > w["dropping"]["mean"]
    for name in ("alignment", "dropping", "reordering"):
        for m in (w, d):
            assert 0.0 <= m[name]["min"] <= m[name]["mean"] <= m[name]["max"] <= 1.0
            assert sum(m[name]["histogram"]["counts"]) == m[name]["count"]
    assert 0.85 < w["alignment"]["mean"] < 1.0


def test_bad_lines_counted_and_substitution_skipped_without_ppdb(run):
    _, result = run
    assert result["datasets"][1]["bad_lines"] == {"blank_line": 1, "too_few_columns": 1, "empty_side": 1}
    assert result["datasets"][0]["bad_lines"] == {}
    assert result["substitution"]["measured"] is False and "no --ppdb" in result["substitution"]["note"]
    assert "substitution" not in result["datasets"][0]["metrics"]
    assert "substitution" not in result["definitions"]


def test_plots_and_page_name_both_datasets(run):
    out, _ = run
    for name in PNGS:
        with open(out / name, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert not os.path.exists(out / "substitution.png")
    page = (out / "profile.html").read_text(encoding="utf-8")
    assert "WikiSplit tune" in page and "Dropped" in page
    assert page.count("data:image/png;base64,") == 4
    assert "no --ppdb given" in page


def test_same_input_same_output(run, tmp_path):
    out, result = run
    again = tmp_path / "again"
    dropped = result["datasets"][1]["input"]
    assert prof.main(["--input", dropped, "--name", "Dropped", "--output", str(again), "--max_pairs", "100"]) == 0
    with open(again / "profile.json", encoding="utf-8") as f:
        assert json.load(f)["datasets"][0] == result["datasets"][1]


def test_substitution_with_a_ppdb_file(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("Approximately 30 villages were destroyed and a large number of residents had to utilize "
                     "temporary shelters.\tAbout 30 villages were destroyed. Many residents had to use temporary "
                     "shelters.\nHe purchased a house in Paris.\tHe bought a house in Paris.\n", encoding="utf-8")
    rules = write_rules(tmp_path / "ppdb-2.0-s-lexical.gz", gz=True)
    out = tmp_path / "out"
    assert prof.main(["--input", str(pairs), "--output", str(out), "--ppdb", rules]) == 0
    result = json.loads((out / "profile.json").read_text(encoding="utf-8"))
    assert result["substitution"]["measured"] is True and result["substitution"]["rules"] == 21
    sub = result["datasets"][0]["metrics"]["substitution"]
    assert sub["count"] == 2 and sub["mean"] == pytest.approx((3 / 12 + 1 / 6) / 2, abs=1e-6)
    assert result["datasets"][0]["name"] == "pairs"
    assert os.path.exists(out / "substitution.png")


def test_a_missing_input_fails_naming_it(tmp_path, capsys):
    missing = str(tmp_path / "asset.test.orig")
    assert prof.main(["--input", str(TUNE), "--input", missing, "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"input {missing} does not exist" in err
    assert not os.path.exists(tmp_path / "out")  # nothing written, no model loaded
    assert prof.main(["--input", str(TUNE), "--output", str(tmp_path / "out"), "--ppdb",
                      str(tmp_path / "ppdb.gz")]) == 2
    assert f"--ppdb {tmp_path / 'ppdb.gz'} does not exist" in capsys.readouterr().err


def test_help_names_every_metric_and_format(capsys):
    with pytest.raises(SystemExit):
        cli.main(["profile", "--help"])
    text = capsys.readouterr().out
    for word in ("alignment", "substitution", "dropping", "reordering", "splitting", "wikisplit", "discofuse",
                 "--ppdb", "profile.json"):
        assert word in text


def write_shard(folder, records):
    from transforms.sinks import shard_name, tfrecord_frame
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / shard_name(records[0].DATASET, 0, 1, ".tfrecord")
    path.write_bytes(b"".join(tfrecord_frame(r.to_example()) for r in records))
    return path


def test_this_projects_output_folders(tmp_path):
    """OUTPUT/<dataset>/<variant>/<split>/ shards: found, decoded and mapped to complex -> simple."""
    from schemas.records import FusionExample, SplitExample
    split = SplitExample(complex="The bridge, which the Romans built, still stands.",
                         simple1="The bridge still stands.", simple2="The Romans built it.", page_id=7)
    write_shard(tmp_path / "out" / "splits" / "wikisplit" / "train", [split, split])
    fusion = FusionExample("Moore was born in Memphis , but he grew up in Dallas .", "", "Moore was born in Memphis .",
                           "Moore grew up in Dallas .", "PAIR_CONN", "but")
    for variant in ("balanced", "full"):
        write_shard(tmp_path / "out" / "fusion" / variant / "test", [fusion] * (1 if variant == "balanced" else 3))
    counts = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n
    label, pairs = prof.read_record_pairs(str(tmp_path / "out" / "splits"), inc)
    assert label == "splits/wikisplit"
    assert pairs == [("The bridge, which the Romans built, still stands.",
                      "The bridge still stands. The Romans built it.")] * 2
    label, pairs = prof.read_record_pairs(str(tmp_path / "out" / "fusion"), inc)
    assert label == "fusion/full" and len(pairs) == 3  # `full` holds `balanced`
    assert pairs[0] == ("Moore was born in Memphis, but he grew up in Dallas.",
                        "Moore was born in Memphis. Moore grew up in Dallas.")
    assert counts == {"pairs": 5}
    with pytest.raises(prof.ProfileError, match="holds several datasets .*fusion, splits"):
        prof.record_files(str(tmp_path / "out"))
    with pytest.raises(prof.ProfileError, match="no <dataset>-SSSSS-of-NNNNN.tfrecord shards"):
        prof.record_files(str((tmp_path / "empty").mkdir() or tmp_path / "empty"))


def test_the_command_shows_only_our_lines(tmp_path):
    # As `rewrite-mine show` and the jobs: other libraries' warnings (Google API FutureWarnings on
    # import, ...) stay off the console unless -v is given.
    import subprocess
    import sys
    from tests.conftest import ROOT
    proc = subprocess.run([sys.executable, "-m", "pipelines.cli", "profile", "--input", str(TUNE),
                           "--output", str(tmp_path / "p"), "--max_pairs", "5"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Warning" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    assert "profile: 1 dataset(s)" in proc.stdout + proc.stderr
