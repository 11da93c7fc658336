"""`rewrite-mine parasci` end to end on the bundled real papers (S2ORC forms, doc2json, GROBID TEI,
JATS) plus broken files: pairs written, rejects with reasons, the release's .src / .tgt files,
paper-level splits, Table 2 in the manifest and the report."""
import json
import pathlib

import pytest

import sacrebleu

from pipelines.framework.job import JobFailed
from schemas.records import SciParaphraseExample
from schemas.release import strip_citation_placeholders
from transforms.sinks import read_records

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "scientific"
BROKEN = ROOT / "tests" / "testdata" / "scientific"


def _run(argv):
    from pipelines import parasci
    return parasci.run(list(argv))


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    out = tmp_path_factory.mktemp("parasci") / "out"
    manifest = _run(["--input", str(SAMPLES / "**" / "*.json*"), "--input", str(SAMPLES / "**" / "*.xml"),
                     "--input", str(SAMPLES / "**" / "*.nxml"), "--input", str(BROKEN / "*"),
                     "--output", str(out), "--tsv", "--num_workers", "1", "--no_progress"])
    return {"out": out, "manifest": manifest}


def _records(out):
    shards = sorted(str(p) for p in (out / "sci_para" / "base").rglob("*.tfrecord"))
    return read_records(shards, SciParaphraseExample)


def test_pairs_come_from_the_papers_and_unreadable_files_are_rejects(mined):
    m = mined["manifest"]
    stages = m["counts"]["stages"]
    assert stages["read"]["papers"] >= 8
    records = _records(mined["out"])
    assert records
    n_papers = stages["papers"]["passed"]
    # Issue 16's goal is at most 3 pairs per paper; the committed decision writes 30 on these 7 papers
    # (4.3 per paper, 3.1 on the 27 shared papers: docs/PARASCI.md); the old cosine default wrote
    # 17-37 per paper. This bound catches a fall back to related-sentence pairs.
    assert len(records) <= 5 * n_papers, (len(records), n_papers)
    assert "intra_paper" in {r.method for r in records}
    for r in records:
        assert r.src.strip() and r.tgt.strip() and r.src != r.tgt
        assert r.bertscore > 0.4 and r.length_rate < 2.0 and r.similarity >= 0.5
        assert r.paraphrase_probability >= mined["manifest"]["job_info"]["decision"]["threshold"]
        if r.method == "intra_paper":
            assert r.paper_id == r.other_paper_id and r.section != r.other_section
    rejects = []
    for path in (mined["out"] / "sci_para" / "rejects").glob("*.jsonl"):
        rejects += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    reasons = {r["reason"] for r in rejects}
    for reason in ("bad_xml", "not_a_paper", "no_body_text", "truncated_archive", "broken_utf8"):
        assert reason in reasons, reasons
    assert "duplicate_paper" in reasons  # the TEI and doc2json copies of one PDF are one paper


def test_no_sentence_straddles_two_splits_no_pair_is_dropped_and_a_pair_is_written_once(mined):
    from miners.parasci.pairs import sentence_ids
    records = _records(mined["out"])
    split_of, paper_split = {}, {}
    for split_dir in (mined["out"] / "sci_para" / "base").iterdir():
        if not split_dir.is_dir():
            continue
        for r in read_records(sorted(str(p) for p in split_dir.glob("*.tfrecord")), SciParaphraseExample):
            for sid in sentence_ids(r):
                assert split_of.setdefault(sid, split_dir.name) == split_dir.name, sid
            if r.paper_id == r.other_paper_id:
                assert paper_split.setdefault(r.paper_id, split_dir.name) == split_dir.name, r.paper_id
    keys = [frozenset((r.src, r.tgt)) for r in records]
    assert len(keys) == len(set(keys))
    assert "split/filtered:papers_in_different_splits" not in json.dumps(mined["manifest"]["counts"])


def test_release_files_are_line_aligned_and_table2_describes_them(mined):
    release = mined["out"] / "sci_para" / "release"
    total = 0
    for name in ("train", "val", "test"):
        src = (release / name / f"{name}.src").read_text(encoding="utf-8").splitlines()
        tgt = (release / name / f"{name}.tgt").read_text(encoding="utf-8").splitlines()
        assert len(src) == len(tgt)
        total += len(src)
    records = _records(mined["out"])
    assert total == len(records)
    pairs = {(strip_citation_placeholders(r.src), strip_citation_placeholders(r.tgt)) for r in records}
    src = (release / "train" / "train.src").read_text(encoding="utf-8").splitlines()
    tgt = (release / "train" / "train.tgt").read_text(encoding="utf-8").splitlines()
    assert all(p in pairs for p in zip(src, tgt))
    assert not any("[CITATION]" in line for line in src + tgt)  # the release's lines carry no marker
    t2 = mined["manifest"]["derived"]["table2"]
    assert t2["pairs"] == len(records)
    assert sum(t2["per_method"].values()) == len(records)
    words = sum(len(r.src.split()) + len(r.tgt.split()) for r in records) / (2 * len(records))
    assert abs(t2["avg_words"] - words) < 1.0
    # Self-BLEU is corpus BLEU-4 of tgt against src over the written pairs (sacrebleu, recomputed here).
    expected = sacrebleu.corpus_bleu([r.tgt for r in records], [[r.src for r in records]]).score
    assert abs(t2["self_bleu"] - expected) < 0.01, (t2["self_bleu"], expected)
    page = (mined["out"] / "sci_para" / "stats" / "report.html").read_text(encoding="utf-8")
    assert "Table 2 of the paper" in page


def test_options_that_cannot_work_fail_before_the_run(tmp_path):
    base = ["--input", str(SAMPLES / "jats" / "*.nxml"), "--output", str(tmp_path / "o"), "--num_workers", "1"]
    with pytest.raises(JobFailed, match="--methods"):
        _run(base + ["--methods", "intra_paper,magic"])
    with pytest.raises(JobFailed, match="--min_similarity"):
        _run(base + ["--embedding_model", str(tmp_path)])
    with pytest.raises(JobFailed, match="--max_bertscore"):
        _run(base + ["--min_bertscore", "0.8", "--max_bertscore", "0.8"])
    with pytest.raises(JobFailed, match="--max_pairs_per_paper"):
        _run(base + ["--max_pairs_per_paper", "-1"])
    with pytest.raises(JobFailed, match=str(tmp_path / "missing")):
        _run(["--input", str(tmp_path / "missing" / "*.json"), "--output", str(tmp_path / "o")])


def test_the_bertscore_band_options_reach_the_thresholds_and_the_cap_is_off_by_default():
    from miners.parasci import pairs as ps
    from pipelines import parasci
    args, _ = parasci.JOB.parse_args(["--input", "x", "--output", "o", "--min_bertscore", "0.75",
                                      "--max_bertscore", "0.9"])
    t = parasci.params_from_args(args).thresholds
    assert (t.min_bertscore, t.max_bertscore) == (ps.BAND_MIN_BERTSCORE, ps.BAND_MAX_BERTSCORE) == (0.75, 0.9)
    args, _ = parasci.JOB.parse_args(["--input", "x", "--output", "o"])
    params = parasci.params_from_args(args)
    assert (params.thresholds.min_bertscore, params.thresholds.max_bertscore) == (ps.MINILM_MIN_BERTSCORE, 1.0)
    assert params.max_pairs_per_paper == 0


def test_a_thesis_whose_body_is_one_11_mb_paragraph_is_counted_and_the_other_papers_are_mined(tmp_path):
    # S2ORC holds theses and books: one such paper used to stall the job (issue 39; the abbreviation
    # finder read the whole paragraph before each of its parentheses, quadratic in the paragraph).
    # It is a valid paper: read, its 80,000 sentences cut, then rejected too_many_sentences, counted.
    src = json.loads((SAMPLES / "s2orc" / "20200705-18980380.json").read_text(encoding="utf-8"))
    text = " ".join(p["text"] for p in src["body_text"] if p["text"])
    para = " ".join([text] * (11_000_000 // (len(text) + 1) + 1))
    assert len(para) >= 11_000_000
    giant = dict(src, paper_id="99999999", body_text=[{"section": "Introduction", "text": para, "cite_spans": [],
                                                       "ref_spans": []}])
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "20200705-99999999.json").write_text(json.dumps(giant), encoding="utf-8")
    jats = SAMPLES / "jats" / "PMC5828200.nxml"
    (papers / jats.name).write_bytes(jats.read_bytes())
    out = tmp_path / "out"
    manifest = _run(["--input", str(papers / "*"), "--output", str(out), "--num_workers", "1", "--no_progress"])
    stages = manifest["counts"]["stages"]
    assert stages["read"]["papers"] == 2
    rejects = [json.loads(line) for path in (out / "sci_para" / "rejects").glob("*.jsonl")
               for line in path.read_text(encoding="utf-8").splitlines()]
    giant_rejects = [r for r in rejects if r["key"] == "99999999" or r["key"].endswith("99999999")]
    assert [r["reason"] for r in giant_rejects] == ["too_many_sentences"], giant_rejects
    assert "> 5000 (--max_paper_sentences)" in giant_rejects[0]["detail"]
    assert stages["sentences"]["filtered"]["too_many_sentences"] == 1
    assert stages["sentences"]["passed"] > 50  # the JATS paper's sentences went on
