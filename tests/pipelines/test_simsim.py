"""`rewrite-mine simsim` end to end on real text: Apertium back-translation, the default language
model, simulated operations, the quality stage, the release TSVs, rejects and engine checks."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from pipelines.framework.job import JobFailed
from schemas.records import SimplificationExample
from tests import ppdb_fixtures
from transforms.sinks import read_records

ROOT = pathlib.Path(__file__).resolve().parents[2]
TUNE = ROOT / "tests" / "testdata" / "wikisplit" / "tune.tsv"

pytestmark = pytest.mark.skipif(shutil.which("apertium") is None,
                                reason="Debian package apertium missing (make test installs it: tools/system_packages.sh)")

# Real Wikipedia sentences (from the bundled enwiki excerpt's "Anarchism" and "Autism" pages).
DOC = {"id": "doc-1", "url": "https://en.wikipedia.org/wiki/Anarchism", "text": (
    "Anarchism is a political philosophy and movement that is skeptical of all justifications for authority "
    "and seeks to abolish the institutions it claims maintain unnecessary coercion and hierarchy. "
    "Humans lived in societies without formal hierarchies long before the establishment of formal states, "
    "realms, or empires. "
    "The first known use of the word in a political sense appeared in a pamphlet published during the "
    "French Revolution in the late eighteenth century. "
    "Autism is a neurodevelopmental disorder characterized by difficulties with social interaction and "
    "communication, and by restricted and repetitive behavior.")}

# A complex-simple pair file (the WikiLarge form): one aligned pair, one whose simple side is unrelated.
PAIRS = ("The committee, which had met in secret for several months, finally approved the controversial "
         "proposal after a long debate.\tThe committee approved the proposal after a long debate.\n"
         "The river rises in the northern mountains and flows south through several large towns before "
         "reaching the sea.\tMy favourite food is a plate of hot noodles with fresh vegetables.\n")


def _inputs(tmp_path, n_splits=12):
    d = tmp_path / "in"
    d.mkdir()
    (d / "docs.jsonl").write_text(json.dumps(DOC) + "\n", encoding="utf-8")
    with open(TUNE, encoding="utf-8") as f:
        rows = [next(f) for _ in range(n_splits)]
    (d / "wikisplit-tune.tsv").write_text("".join(rows), encoding="utf-8")
    (d / "wikilarge.tsv").write_text(PAIRS, encoding="utf-8")
    return [str(d / "docs.jsonl"), str(d / "wikisplit-tune.tsv"), str(d / "wikilarge.tsv")]


def _run(argv):
    from pipelines import simsim
    return simsim.run(list(argv))


def _all_records(out, variant):
    base = pathlib.Path(out) / "simplify" / variant
    return read_records([str(p) for p in sorted(base.glob("*/*.tfrecord"))], SimplificationExample)


def _tsv_rows(out, variant):
    rows = []
    for path in sorted((pathlib.Path(out) / "simplify" / variant).glob("*/*.tsv")):
        rows += [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return rows


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("simsim")
    inputs = _inputs(tmp)
    out = str(tmp / "out")
    argv = sum((["--input", p] for p in inputs), []) + [
        "--output", out, "--tsv", "--pivots", "es,ca", "--num_workers", "1", "--no_progress"]
    manifest = _run(argv)
    return {"out": out, "manifest": manifest, "argv": argv, "tmp": tmp, "inputs": inputs}


def test_seeds_of_every_kind_become_pairs_of_every_variant(mined):
    m = mined["manifest"]
    stages = m["counts"]["stages"]
    seeds = stages["seeds"]
    assert seeds.get("wikisplit") == 12 and seeds.get("text", 0) >= 3, seeds
    assert seeds.get("pair") == 1 and seeds.get("pair_misaligned") == 1, seeds  # BERTScore checked each pair
    cands = stages["translate"]["candidates"]
    assert set(cands) == {"back_translation:es", "back_translation:ca"}
    s1, s2, s3 = (_all_records(mined["out"], v) for v in ("s1", "s2", "s3"))
    assert s1 and s2 and s3
    assert {r.method.split(":")[0] for r in s1} == {"back_translation"}
    assert {r.method.split(":")[0] for r in s2} == {"lm_selected"}
    assert {r.method.split(":")[0] for r in s3} == {"simulated"}
    assert {r.pivot for r in s1} == {"es", "ca"}
    for r in s1 + s2 + s3:
        assert r.complex.strip() and r.simple.strip() and r.complex != r.simple
        assert r.language_model.startswith("pocketsphinx:")
        assert 0.0 <= r.dropping <= 1.0 and 0.0 <= r.reordering <= 1.0 and r.alignment > 0.0
        assert not r.has_substitution_metric  # no --ppdb
    for r in s2:  # the language model never picks a candidate less natural than the seed's text
        assert r.simple_nll <= r.complex_nll + 1e-9 or r.seed_kind != "text"
    # WikiSplit seeds carry the splitting operation: their simple side has two sentences.
    split = [r for r in s2 + s3 if r.seed_kind == "wikisplit"]
    assert split and all("splitting" in r.operations and r.splitting for r in split)
    assert any("dropping" in r.operations for r in s3)
    # The manifest says what ran and what did not.
    engines = json.dumps(m)
    assert "apertium" in engines and "substitution" in engines
    derived = m.get("derived", {})
    assert derived.get("splitting", {}).get("s2", {}).get("pairs", 0) == len(s2)


def test_release_tsv_is_complex_tab_simple_and_matches_the_records(mined):
    for variant in ("s1", "s2", "s3"):
        rows = _tsv_rows(mined["out"], variant)
        records = _all_records(mined["out"], variant)
        assert len(rows) == len(records) and all(len(row) == 2 for row in rows)
        assert sorted((r.complex, r.simple) for r in records) == sorted((a, b) for a, b in rows)


def test_a_rerun_gives_the_same_shards(mined, tmp_path):
    out2 = str(tmp_path / "again")
    argv = [a if a != mined["out"] else out2 for a in mined["argv"]]
    _run(argv)
    for variant in ("s1", "s2", "s3"):
        first = sorted(p.relative_to(mined["out"]) for p in (pathlib.Path(mined["out"]) / "simplify" / variant)
                       .rglob("*.tfrecord"))
        for rel in first:
            assert (pathlib.Path(mined["out"]) / rel).read_bytes() == (pathlib.Path(out2) / rel).read_bytes(), rel


def test_a_hanging_translator_turns_its_batches_into_rejects_and_the_job_goes_on(mined, tmp_path):
    out = str(tmp_path / "hang")
    argv = [a for a in mined["argv"]]
    argv[argv.index("--output") + 1] = out
    m = _run(argv + ["--translate_timeout", "0.0001"])
    filtered = m["counts"]["stages"]["translate"].get("filtered", {})
    assert filtered.get("translation_timeout", 0) > 0, m["counts"]["stages"]["translate"]
    rejects = []
    for path in (pathlib.Path(out) / "simplify" / "rejects").glob("*"):
        rejects += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    hung = [r for r in rejects if r["reason"] == "translation_timeout"]
    assert hung and all("pivot" in r["detail"] for r in hung)


def test_substitution_with_ppdb_rules(mined, tmp_path):
    rules = ppdb_fixtures.write_rules(str(tmp_path / "ppdb-2.0-s-lexical"))
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(json.dumps({"id": "d", "text": (
        "The company purchased approximately three hundred automobiles for its residence in the old city "
        "centre last year. The engineers commenced the construction of the bridge in the spring of that "
        "year after a long delay.")}) + "\n", encoding="utf-8")
    out = str(tmp_path / "ppdb")
    m = _run(["--input", str(inputs), "--output", out, "--pivots", "es", "--num_workers", "1", "--ppdb",
              str(rules), "--variants", "s2,s3", "--no_progress", "--seed_min_words", "8"])
    s3 = _all_records(out, "s3")
    assert s3 and all(r.has_substitution_metric for r in s3)
    assert "ppdb" in json.dumps(m).lower()


def test_missing_engines_fail_before_the_run_naming_the_option(tmp_path):
    base = ["--input", str(TUNE), "--output", str(tmp_path / "o"), "--num_workers", "1"]
    with pytest.raises(JobFailed, match="--ct2_model_dir"):
        _run(base + ["--translator", "ctranslate2"])
    with pytest.raises(JobFailed, match="--lm_path"):
        _run(base + ["--lm", "kenlm", "--lm_path", str(tmp_path / "missing.arpa")])
    with pytest.raises(JobFailed, match="--pivots"):
        _run(base + ["--pivots", "xx"])
    with pytest.raises(JobFailed, match="--ppdb"):
        _run(base + ["--ppdb", str(tmp_path / "no-ppdb.gz")])


def test_cli_help_names_the_engines():
    out = subprocess.run([sys.executable, "-m", "pipelines.cli", "simsim", "--help"], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout
    for flag in ("--translator", "--pivots", "--ct2_model_dir", "--lm", "--lm_path", "--ppdb", "--variants"):
        assert flag in out
