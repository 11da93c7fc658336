"""Discovery Beam stages (transforms/discovery.py, pipelines/discovery.py) on the in-process runner."""
import collections
import json
import pathlib

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

from conftest import BGWIKI, ENWIKI, in_process_pipeline
from miners.discovery import pairs as disco
from miners.discovery import hard as dh
from schemas.records import Document, MarkerExample, SegmentedDocument, SentencePair
from transforms import discovery as dt
from transforms.common import COUNTS, REJECTS

DATA = pathlib.Path(__file__).resolve().parents[1] / "testdata" / "discovery"


def _docs(name, n):
    rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()][:n]
    return [Document(id=r["id"], text=r["text"], source="wikipedia", title=r["title"]) for r in rows]


def _sum_counts(pcoll, label):
    return pcoll | f"Sum{label}" >> beam.CombinePerKey(sum)


def test_document_language_filter_keeps_english_rejects_bulgarian():
    en, bg = _docs("enwiki_docs.jsonl", 3), _docs("bgwiki_docs.jsonl", 1)
    with in_process_pipeline() as p:
        out = p | beam.Create(en + bg) | dt.FilterDocumentLanguage()
        assert_that(out["main"] | beam.Map(lambda d: d.id), equal_to([d.id for d in en]), label="Kept")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.stage, r.reason, r.key, r.detail.split(" ")[0])),
                    equal_to([("document", "not_english", bg[0].id, "lang=bg")]), label="Rejected")
        assert_that(_sum_counts(out[COUNTS], "C"),
                    equal_to([("document/passed", 3), ("document/filtered:not_english", 1)]), label="Counts")


DOC = SegmentedDocument(
    id="7", source="wikipedia", path="dump.xml.bz2",
    sentences=("The river flows north through the valley.",
               "However, the town lies on its southern bank.",
               "Andrew Jackson visited the bridge in 1851.",
               "Surprisingly, the bridge survived the great flood of 1862.",
               "In other words, it failed."),
    paragraphs=(0, 0, 0, 0, 0))


def test_mine_candidates_kept_rejected_and_counts():
    params = dt.DiscoveryParams(config=disco.DiscoveryConfig(no_conn_rate=0.0), bulk_sample_rate=1.0)
    pair = SentencePair(id="pairs.tsv:1", s1="The mill was built in 1820 by the town.",
                        s2="Nevertheless, the church remained the largest building.", path="pairs.tsv")
    with in_process_pipeline() as p:
        out = p | beam.Create([DOC, pair]) | dt.MineMarkerCandidates(params)
        assert_that(out["main"] | beam.Map(lambda e: (e.doc_id, e.sentence_index, e.label_name, e.discovered,
                                                      e.sentence2)),
                    equal_to([("7", 0, "however", False, "The town lies on its southern bank."),
                              ("7", 2, "surprisingly,", True, "The bridge survived the great flood of 1862."),
                              ("pairs.tsv:1", 0, "nevertheless", False, "The church remained the largest building.")]),
                    label="Kept")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.stage, r.reason, r.key, r.source)),
                    equal_to([("pairs", "no_marker", "7:1", "dump.xml.bz2"),
                              ("pairs", "too_short", "7:3", "dump.xml.bz2")]), label="Rejected")
        assert_that(_sum_counts(out[COUNTS], "C"),
                    equal_to([("pairs/passed", 3), ("pairs/filtered:no_marker", 1),
                              ("pairs/filtered:too_short", 1)]), label="Counts")


def test_bulk_rejects_are_counted_in_full_but_sampled():
    params = dt.DiscoveryParams(config=disco.DiscoveryConfig(no_conn_rate=0.0, min_english_prob=0.0),
                                discover=False, bulk_sample_rate=0.0)
    docs = [SegmentedDocument(id=f"d{i}", source="x", sentences=("The river flows north.", "The town lies south."),
                              paragraphs=(0, 0)) for i in range(50)]
    with in_process_pipeline() as p:
        out = p | beam.Create(docs) | dt.MineMarkerCandidates(params)
        assert_that(out[REJECTS], equal_to([]), label="NoneWritten")
        assert_that(_sum_counts(out[COUNTS], "C"), equal_to([("pairs/filtered:no_marker", 50)]), label="Counts")


# ------------------------------------------------------------------ selection and variants

@pytest.fixture(scope="module")
def mined():
    return [MarkerExample.from_dict(json.loads(line))
            for line in (DATA / "mined_enwiki_sample.jsonl").read_text(encoding="utf-8").splitlines()]


def _lowest(examples, n, seed=0):
    """Reference: n lowest-ranked examples per label, labels with fewer than n left out."""
    by_label = collections.defaultdict(list)
    for e in examples:
        by_label[e.label_name].append(e)
    out = []
    for lab, exs in by_label.items():
        exs.sort(key=lambda e: disco.example_rank(e, seed, "select"))
        if len(exs) >= n:
            out += exs[:n]
    return out


def _capped(examples, min_count, cap, seed=0):
    counts = collections.Counter(e.label_name for e in examples)
    by_label = collections.defaultdict(list)
    for e in examples:
        if counts[e.label_name] >= min_count:
            by_label[e.label_name].append(e)
    return [e for exs in by_label.values()
            for e in sorted(exs, key=lambda e: disco.example_rank(e, seed, "select"))[:cap]]


def test_variants_match_reference(mined):
    hard_cfg = dh.HardConfig(bucket=10_000, train_per_marker=30)
    params = dt.DiscoveryParams(min_marker_count=5, max_per_marker=20, examples_per_marker=5, top_markers=3,
                                hard=hard_cfg, bulk_sample_rate=1.0)
    counts = collections.Counter(e.label_name for e in mined)
    big = _capped(mined, 5, 20)
    base = _lowest(big, 5)
    top3 = disco.top_labels({k: v for k, v in counts.items() if v >= 5}, 3)
    hard_kept, hard_removed = dh.hard_filter(big, hard_cfg)
    expected = ([("big", e) for e in big] + [("base", e) for e in base]
                + [("top10", e) for e in base if e.label_name in top3]
                + [("adv", e) for e in base if e.discovered]
                + [("hard", e) for e in _lowest(hard_kept, 5)])
    shuffled = []
    for lab in {e.label_name for e in base}:
        shuffled += disco.derange_second_sentences([e for e in base if e.label_name == lab])
    expected += [("shuffled", e) for e in shuffled]
    # The reference itself is not degenerate.
    assert len(big) < len(mined) and {e.label_name for e in base} >= set(top3) and hard_removed
    assert any(e.discovered for e in base)

    with in_process_pipeline() as p:
        out = p | beam.Create(mined) | dt.SelectAndBuildVariants(params)
        assert_that(out["examples"], equal_to(expected), label="Variants")
        assert_that(out["marker_counts"], equal_to(list(counts.items())), label="MarkerCounts")
        n_rare = sum(n for n in counts.values() if n < 5)
        n_over = sum(max(0, n - 20) for n in counts.values() if n >= 5)
        assert_that(out["rejects"] | beam.Map(lambda r: (r.stage, r.reason)) | beam.combiners.Count.PerElement(),
                    equal_to([(("select", "rare_marker"), n_rare), (("select", "over_cap"), n_over),
                              (("hard", "predictable"), len(hard_removed))]), label="Rejects")
        selected = collections.Counter(e.label_name for e in big)
        expected_counts = ([(f"markers/candidates:{k}", v) for k, v in counts.items()]
                           + [(f"markers/selected:{k}", v) for k, v in selected.items()]
                           + [("select/passed", len(big)), ("select/filtered:rare_marker", n_rare),
                              ("select/filtered:over_cap", n_over), ("hard/passed", len(hard_kept)),
                              ("hard/filtered:predictable", len(hard_removed))])
        assert_that(_sum_counts(out["counts"], "C"), equal_to(expected_counts), label="Counts")


def test_unknown_variant_is_refused(mined):
    with pytest.raises(ValueError, match="unknown Discovery variants"):
        with in_process_pipeline() as p:
            _ = p | beam.Create(mined[:3]) | dt.SelectAndBuildVariants(dt.DiscoveryParams(variants=("base", "tiny")))


# ------------------------------------------------------------------ the job on the bundled samples

def _run_job(tmp_path, *args):
    from pipelines.discovery import JOB
    out = tmp_path / "out"
    manifest = JOB.run(["--output", str(out), "--num_workers", "1", *args])
    return out, manifest


@pytest.mark.slow
def test_job_on_bulgarian_sample_yields_only_language_rejects(tmp_path):
    # An English run on a Bulgarian dump (--language en; by default the dump's language, bg, is mined).
    out, manifest = _run_job(tmp_path, "--preset", "sample", "--input", str(BGWIKI), "--language", "en")
    stages = manifest["counts"]["stages"]
    assert manifest["counts"]["written"] == {} or all(
        node["examples"] == 0 for splits in manifest["counts"]["written"].values() for node in splits.values())
    assert stages["document"]["filtered"] == {"not_english": stages["read"]["documents"]}
    assert "pairs" not in stages and "document" in stages
    rejects = [json.loads(line) for f in sorted((out / "markers" / "rejects").glob("*.jsonl"))
               for line in f.read_text(encoding="utf-8").splitlines()]
    assert {(r["stage"], r["reason"]) for r in rejects} <= {("document", "not_english"), ("read", "empty_page")}
    assert sum(r["reason"] == "not_english" for r in rejects) == stages["read"]["documents"]


@pytest.mark.slow
def test_job_on_english_sample_writes_every_variant(tmp_path):
    out, manifest = _run_job(tmp_path, "--preset", "sample", "--input", str(ENWIKI), "--tsv",
                             "--variants", "big,base,shuffled,top10,adv")
    written = manifest["counts"]["written"]
    assert set(written) == {"big", "base", "shuffled", "top10", "adv"}
    base_labels = collections.Counter()
    for node in written["base"].values():
        base_labels.update(node["labels"])
    assert base_labels and set(base_labels.values()) == {5}  # the sample preset: 5 per marker
    top10 = collections.Counter()
    for node in written["top10"].values():
        top10.update(node["labels"])
    assert len(top10) == 10 and set(top10) <= set(base_labels)
    rows = [line.split("\t") for f in (out / "markers" / "base").rglob("*.tsv")
            for line in f.read_text(encoding="utf-8").splitlines()[1:] if line]  # after the header
    assert len(rows) == sum(base_labels.values()) and all(len(r) == 3 for r in rows)
    assert {r[2] for r in rows} == set(base_labels)
