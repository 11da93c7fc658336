"""QualityStage end to end on real sentences, per dataset, plus its options."""
import argparse
import collections
import dataclasses
import itertools
import json
import pathlib

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

from conftest import in_process_pipeline
from miners.quality import dedup as dd
from miners.quality import scoring
from schemas.records import DiscourseType, FusionExample, MarkerExample, SplitExample
from transforms.quality import DEFAULT_CONFIGS, QualityStage, add_quality_arguments, config_from_args

TESTDATA = pathlib.Path(__file__).resolve().parents[1] / "testdata"
TUNE = TESTDATA / "wikisplit" / "tune.tsv"
MARKERS = TESTDATA / "discovery" / "mined_enwiki_sample.jsonl"


def _dissimilar(records, text, n, min_words):
    out, sets = [], []
    for rec in records:
        sh = set(dd.shingles(text(rec)))
        if len(text(rec).split()) >= min_words and all(len(sh & o) / len(sh | o) < 0.5 for o in sets):
            out.append(rec)
            sets.append(sh)
        if len(out) == n:
            return out
    raise AssertionError("not enough records")


def _splits(n):
    with open(TUNE, encoding="utf-8") as f:
        recs = [dataclasses.replace(SplitExample.from_row(line.rstrip("\n").split("\t")), page_id=i + 1)
                for i, line in enumerate(itertools.islice(f, 400))]
    checks = DEFAULT_CONFIGS["splits"].bleu
    recs = [r for r in recs if scoring.check_bleu(r, checks)[1] is None]  # pass BLEU on their own
    return _dissimilar(recs, lambda r: r.complex, n, 20)


def test_quality_stage_splits_dedups_filters_and_scores():
    recs = _splits(31)
    # A wrong pairing: one example's complex sentence with other examples' simple sentences.
    wrong = dataclasses.replace(recs[30], simple1=recs[0].simple1, simple2=recs[1].simple2, page_id=3000)
    recs = recs[:30]
    near = [dataclasses.replace(r, complex=r.complex.rstrip(" .") + " as well.", page_id=1000 + i)
            for i, r in enumerate(recs[:6])]
    exact = [dataclasses.replace(r, complex=r.complex.replace(",", " ,"), page_id=2000 + i)
             for i, r in enumerate(recs[6:9])]
    bad = [dataclasses.replace(recs[13], simple2="  ", page_id=4000),
           dataclasses.replace(recs[14], complex=recs[14].complex + "\ufffd", page_id=4001)]
    inputs = [("base", r) for r in recs + near + exact + [wrong] + bad]
    with in_process_pipeline() as p:
        out = p | beam.Create(inputs) | QualityStage("splits")
        # Each original or its perturbed copy survives, never both: 30 examples, one per source sentence.
        source = {r.page_id: k for k, r in enumerate(recs)}
        source.update({1000 + i: i for i in range(6)})
        source.update({2000 + i: 6 + i for i in range(3)})
        source_of = lambda r: source.get(r.page_id, r.page_id)  # noqa: E731
        assert_that(out["examples"] | beam.MapTuple(lambda v, r: source_of(r)) | "Distinct" >> beam.Distinct()
                    | "N" >> beam.combiners.Count.Globally(), equal_to([30]), label="one_per_source")
        assert_that(out["examples"] | "All" >> beam.combiners.Count.Globally(), equal_to([30]), label="count")
        # Scores are stored and meet WikiSplit's bound.
        assert_that(out["examples"] | beam.MapTuple(lambda v, r: r.bleu1 >= 0.2 and r.bleu2 >= 0.2 and r.bleu1 > 0)
                    | "Uniq" >> beam.Distinct(), equal_to([True]), label="scored")
        assert_that(out["rejects"] | beam.Map(lambda r: r.reason), equal_to(
            ["duplicate_near"] * 6 + ["duplicate_exact"] * 3 + ["bleu_too_low", "empty_field", "non_text"]),
            label="reasons")
        assert_that(out["counts"] | beam.CombinePerKey(sum) | beam.Filter(lambda kv: "filtered" in kv[0]),
                    equal_to([("check/filtered:empty_field", 1), ("check/filtered:non_text", 1),
                              ("exact_dedup/filtered:duplicate_exact", 3),
                              ("near_dedup/filtered:duplicate_near", 6), ("bleu/filtered:bleu_too_low", 1)]),
                    label="counts")


def _markers():
    with open(MARKERS, encoding="utf-8") as f:
        recs = [MarkerExample.from_dict(json.loads(line)) for line in f]
    return _dissimilar(recs, lambda r: r.sentence1 + " " + r.sentence2, 40, 25)


def test_quality_stage_markers_on_real_mined_pairs():
    recs = _markers()
    near = [dataclasses.replace(r, sentence2=r.sentence2.rstrip(" .") + " too.", sentence_index=10_000 + i)
            for i, r in enumerate(recs[:5])]
    exact = [dataclasses.replace(r, sentence1=r.sentence1.lower(), sentence_index=20_000)
             for r in recs[5:7]]
    with in_process_pipeline() as p:
        out = p | beam.Create([("base", r) for r in recs + near + exact]) | QualityStage("markers")
        assert_that(out["examples"] | beam.combiners.Count.Globally(), equal_to([40]), label="count")
        assert_that(out["examples"] | beam.MapTuple(lambda v, r: (r.doc_id, r.sentence_index % 10_000))
                    | "D" >> beam.Distinct() | "C" >> beam.combiners.Count.Globally(),
                    equal_to([40]), label="one_per_source")
        assert_that(out["rejects"] | beam.Map(lambda r: r.reason),
                    equal_to(["duplicate_near"] * 5 + ["duplicate_exact"] * 2), label="reasons")


def test_quality_stage_fusion_checks_and_dedups():
    recs = _splits(6)
    fusion = [FusionExample(r.complex, "", r.simple1, r.simple2, DiscourseType.PAIR_NONE, doc_id=str(r.page_id))
              for r in recs]
    dup = dataclasses.replace(fusion[0], coherent_first_sentence=fusion[0].coherent_first_sentence.upper(),
                              doc_id="dup")
    empty = dataclasses.replace(fusion[1], incoherent_first_sentence="", doc_id="empty")
    with in_process_pipeline() as p:
        out = p | beam.Create([("base", r) for r in fusion + [dup, empty]]) | QualityStage("fusion")
        kept_fusion = sorted([fusion[0], dup], key=lambda r: r.sort_key())[:1] + fusion[1:]
        assert_that(out["examples"], equal_to([("base", r) for r in kept_fusion]), label="kept")
        assert_that(out["rejects"] | beam.Map(lambda r: r.reason),
                    equal_to(["duplicate_exact", "empty_field"]), label="reasons")


def test_options_override_the_table():
    parser = add_quality_arguments(argparse.ArgumentParser())
    args = parser.parse_args([])
    assert config_from_args("splits", args) == DEFAULT_CONFIGS["splits"]
    assert args.fail_on_anomalies is False
    args = parser.parse_args(["--no_near_dedup", "--minhash_threshold", "0.7", "--minhash_permutations", "64",
                              "--min_bleu", "0.3", "--fail_on_anomalies"])
    c = config_from_args("splits", args)
    assert (c.dedup, c.near_dedup, c.minhash_threshold, c.num_perm) == (True, False, 0.7, 64)
    assert [b.min_score for b in c.bleu] == [0.3, 0.3] and args.fail_on_anomalies
    c = config_from_args("simplify", parser.parse_args(["--bertscore_model", "/models/roberta-large",
                                                          "--min_bertscore", "0.8", "--bertscore_batch", "16"]))
    assert (c.bertscore_model, c.bertscore.min_score, c.bertscore_batch) == ("/models/roberta-large", 0.8, 16)
    assert config_from_args("simplify", parser.parse_args(["--no_bertscore"])).bertscore is None
    assert config_from_args("splits", parser.parse_args(["--no_dedup", "--no_bleu_filter"])).bleu == ()
    with pytest.raises(ValueError, match="defines no BERTScore"):
        config_from_args("markers", parser.parse_args(["--bertscore"]))


def _dump(x, tag, out_dir):
    import os
    from transforms.common import stable_hash
    if tag == "rejects":
        x = (x.reason, x.key, x.detail)
    elif tag == "examples":
        x = (x[0], x[1].to_json())
    with open(os.path.join(out_dir, f"{tag}-{stable_hash(repr(x)):016x}"), "w", encoding="utf-8") as f:
        f.write(repr(x))


def _run_quality_to_files(runner, inputs, out_dir):
    p = beam.Pipeline(runner=runner)
    q = p | beam.Create(inputs) | QualityStage("splits")
    for tag in ("examples", "rejects"):
        _ = q[tag] | f"Dump{tag}" >> beam.Map(_dump, tag, str(out_dir))
    _ = q["counts"] | beam.CombinePerKey(sum) | "DumpCounts" >> beam.Map(_dump, "counts", str(out_dir))
    p.run().wait_until_finish()
    out = collections.defaultdict(list)
    for path in sorted(out_dir.iterdir()):
        out[path.name.split("-")[0]].append(path.read_text(encoding="utf-8"))
    return {k: sorted(v) for k, v in out.items()}


def test_quality_stage_runs_on_the_dask_runner_with_the_same_result(tmp_path):
    """Only Create / ParDo / GroupByKey / Flatten: the project's Dask runner gives the same output."""
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from pipelines.framework.dask_runner import DaskRunner
    recs = _splits(20)
    near = [dataclasses.replace(r, complex=r.complex.rstrip(" .") + " as well.", page_id=1000 + i)
            for i, r in enumerate(recs[:5])]
    inputs = [("base", r) for r in recs + near]
    (tmp_path / "fn").mkdir()
    (tmp_path / "dask").mkdir()
    on_fn = _run_quality_to_files(FnApiRunner(), inputs, tmp_path / "fn")
    on_dask = _run_quality_to_files(DaskRunner(num_workers=2), inputs, tmp_path / "dask")
    assert on_dask == on_fn
    assert (len(on_fn["examples"]), len(on_fn["rejects"])) == (20, 5)


def test_quality_stage_keeps_presplit_shape_and_dedups_across_splits():
    recs = _splits(8)
    copy = dataclasses.replace(recs[0], complex=recs[0].complex.rstrip(" .") + " as well.", page_id=999)
    inputs = [("base", "train", r) for r in recs] + [("base", "test", copy)]
    keep, drop = sorted([("base", "train", recs[0]), ("base", "test", copy)],
                        key=lambda e: dd.exact_key(e[2], ("complex",), "base"))
    with in_process_pipeline() as p:
        out = p | beam.Create(inputs) | QualityStage("splits")
        assert_that(out["examples"] | beam.Map(lambda e: (e[0], e[1], e[2].page_id)),
                    equal_to([(v, s, r.page_id) for v, s, r in inputs if r.page_id != drop[2].page_id]),
                    label="kept")
        assert_that(out["rejects"] | beam.Map(lambda r: (r.reason, r.source, json.loads(r.payload)["page_id"])),
                    equal_to([("duplicate_near", "base", drop[2].page_id)]), label="rejects")
