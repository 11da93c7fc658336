"""CheckRecordsFn, BleuFilterFn and BertScoreFilter on the in-process runner."""
import itertools
import pathlib

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from conftest import in_process_pipeline
from miners.quality import scoring
from schemas.records import MarkerExample, SimplificationExample, SplitExample
from transforms.common import COUNTS, REJECTS
from transforms.filters import BertScoreCheck, BertScoreFilter, BleuFilterFn, CheckRecordsFn, check_record

TUNE = pathlib.Path(__file__).resolve().parents[1] / "testdata" / "wikisplit" / "tune.tsv"


def _tune(n):
    with open(TUNE, encoding="utf-8") as f:
        return [SplitExample.from_row(line.rstrip("\n").split("\t")) for line in itertools.islice(f, n)]


def test_check_record_reasons_in_plain_words():
    good = MarkerExample("It rained all day.", "We stayed inside.", "however")
    fields = ("sentence1", "sentence2")
    assert check_record(good, MarkerExample, fields) == (None, "")
    assert check_record(MarkerExample(" ", "x", "however"), MarkerExample, fields) == (
        "empty_field", "sentence1 is empty")
    assert check_record(MarkerExample("bad \udcff byte", "x", "however"), MarkerExample, fields) == (
        "non_text", "sentence1 holds U+DCFF at offset 4")
    assert check_record(MarkerExample("ok", "broken \ufffd text", "however"), MarkerExample, fields) == (
        "non_text", "sentence2 holds U+FFFD at offset 7")
    assert check_record(SplitExample("a", "b", "c"), MarkerExample, fields) == (
        "schema_mismatch", "expected MarkerExample, got SplitExample")
    assert check_record(MarkerExample("ok", "ok", "however", sentence_index="3"), MarkerExample, fields) == (
        "schema_mismatch", "field sentence_index is str, expected int")
    assert check_record(MarkerExample("ok", "ok", "no_such_marker"), MarkerExample, fields, {"however"}) == (
        "schema_mismatch", "label 'no_such_marker' is not in the dataset's label list")


def test_check_records_fn_routes_bad_input_to_rejects():
    good = _tune(3)
    bad = [SplitExample("", "b", "c", page_id=1), SplitExample("a\x00b", "b", "c", page_id=2)]
    inputs = [("base", r) for r in good + bad] + [("base", "not a record"), "not even a pair"]
    with in_process_pipeline() as p:
        out = p | beam.Create(inputs) | beam.ParDo(CheckRecordsFn(
            "splits", SplitExample, ("complex", "simple1", "simple2"))).with_outputs(REJECTS, COUNTS, main="ok")
        assert_that(out.ok, equal_to([("base", r) for r in good]), label="kept")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.reason, r.key, r.detail)), equal_to([
            ("empty_field", "1", "complex is empty"),
            ("non_text", "2", "complex holds U+0000 at offset 1"),
            ("schema_mismatch", "str", "expected SplitExample, got str"),
            ("schema_mismatch", "", "element is not (variant, record)")]), label="rejects")
        assert_that(out[COUNTS] | beam.CombinePerKey(sum), equal_to([
            ("check/passed", 3), ("check/filtered:empty_field", 1), ("check/filtered:non_text", 1),
            ("check/filtered:schema_mismatch", 2)]), label="counts")


def test_bleu_filter_on_real_wikisplit_pairs():
    recs = _tune(40)
    checks = (scoring.BleuCheck("complex", "simple1", "bleu1", min_score=0.2),
              scoring.BleuCheck("complex", "simple2", "bleu2", min_score=0.2))
    # A wrong pairing: the complex sentence of one example with the simple sentences of another.
    swapped = SplitExample(complex=recs[0].complex, simple1=recs[1].simple1, simple2=recs[1].simple2, page_id=99)
    expected = [scoring.check_bleu(r, checks) for r in recs + [swapped]]
    kept = [("base", r) for r, reason, _ in expected if reason is None]
    dropped = [(reason, detail) for _, reason, detail in expected if reason]
    assert 99 in [r.page_id for r, reason, _ in expected if reason]  # the wrong pairing is caught
    assert all(r.bleu1 >= 0.2 and r.bleu2 >= 0.2 for _, r in kept)
    with in_process_pipeline() as p:
        out = p | beam.Create([("base", r) for r in recs + [swapped]]) | beam.ParDo(
            BleuFilterFn("splits", checks)).with_outputs(REJECTS, COUNTS, main="ok")
        assert_that(out.ok, equal_to(kept), label="kept")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.reason, r.detail)), equal_to(dropped), label="rejects")


def test_bertscore_filter_batches_stores_scores_and_rejects():
    pairs = [SimplificationExample("The committee approved the new budget on Monday.",
                                   "On Monday the committee approved the new budget.", "x", doc_id="a"),
             SimplificationExample("The river flooded the village after the storm.",
                                   "Quantum chromodynamics describes the strong force.", "x", doc_id="b"),
             SimplificationExample("She was born in Paris in 1921.", "In 1921 she was born in Paris.", "x",
                                   doc_id="c")]
    scorer = scoring.BertScorer(batch_size=2).load()
    scores = scorer.score([p.simple for p in pairs], [p.complex for p in pairs])
    assert scores[0] > 0.5 > scores[1] and scores[2] > 0.5
    check = BertScoreCheck("simple", "complex", "alignment", min_score=0.5)
    with in_process_pipeline() as p:
        out = p | beam.Create([("base", r) for r in pairs]) | BertScoreFilter("simplify", check, batch_size=2)
        assert_that(out["examples"] | beam.MapTuple(lambda v, r: (r.doc_id, round(r.alignment, 5))),
                    equal_to([("a", round(scores[0], 5)), ("c", round(scores[2], 5))]), label="kept")
        assert_that(out["rejects"] | beam.Map(lambda r: (r.reason, r.key)),
                    equal_to([("bertscore_too_low", "b")]), label="rejects")


def test_bertscore_filter_grouped_by_reference_gives_the_same_scores():
    # A seed's records share the complex side: grouped, they are scored in one batch (embedded once).
    complex_ = "The committee, which met in a closed session, approved the new budget on Monday."
    simples = ["The committee approved the new budget on Monday.", "On Monday the committee approved the budget.",
               "The committee met in a closed session. It approved the new budget on Monday."]
    other = SimplificationExample("She was born in Paris in 1921.", "In 1921 she was born in Paris.", "x",
                                  doc_id="z")
    unrelated = SimplificationExample(complex_, "Quantum chromodynamics describes the strong force.", "x",
                                      doc_id="q")
    pairs = [SimplificationExample(complex_, s, "x", doc_id=f"s{i}") for i, s in enumerate(simples)] + [other,
                                                                                                        unrelated]
    scorer = scoring.BertScorer(batch_size=4).load()
    expected = scorer.score([p.simple for p in pairs], [p.complex for p in pairs])
    assert min(expected[:-1]) > 0.5 > expected[-1]
    check = BertScoreCheck("simple", "complex", "alignment", min_score=0.5, group_by_reference=True)
    with in_process_pipeline() as p:
        out = p | beam.Create([("s1", r) for r in pairs]) | BertScoreFilter("simplify", check, batch_size=4)
        assert_that(out["examples"] | beam.MapTuple(lambda v, r: (v, r.doc_id, round(r.alignment, 4))),
                    equal_to([("s1", r.doc_id, round(x, 4)) for r, x in zip(pairs[:-1], expected)]), label="kept")
        # Every record read is kept or rejected under a reason: 5 in, 4 kept, 1 reject.
        assert_that(out["rejects"] | beam.Map(lambda r: (r.reason, r.key)),
                    equal_to([("bertscore_too_low", "q")]), label="rejects")
