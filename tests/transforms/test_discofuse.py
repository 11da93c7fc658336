"""MineFusionExamples on the in-process runner: CoNLL-U fixture (the paper's Table 1 sentences)."""
import pathlib

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from miners.discofuse.rules import Options
from schemas.records import DiscourseType as DT
from schemas.records import FusionExample
from tests.conftest import in_process_pipeline
from transforms.annotate import ReadConlluDocuments
from transforms.discofuse import MineFusionExamples, balanced_keep

FIXTURE = str(pathlib.Path(__file__).resolve().parents[1] / "testdata" / "discofuse" / "fusion.conllu")

HEBDEN = FusionExample(
    coherent_first_sentence="Hebden Bridge is a popular place to live .",
    coherent_second_sentence="However , space is limited due to the steep valleys and lack of flat land .",
    incoherent_first_sentence="Hebden Bridge is a popular place to live .",
    incoherent_second_sentence="Space is limited due to the steep valleys and lack of flat land .",
    discourse_type=DT.PAIR_CONN, connective_string="however", source="conllu", doc_id="hebden",
    sentence_index=0, rule="pair_conn")
KUBLER = FusionExample(
    coherent_first_sentence="Kubler , who retired from cycling in 1957 , remained a revered figure in the "
                            "wealthy alpine nation .",
    coherent_second_sentence="",
    incoherent_first_sentence="Kubler remained a revered figure in the wealthy alpine nation .",
    incoherent_second_sentence="Kubler retired from cycling in 1957 .",
    discourse_type=DT.SINGLE_RELATIVE, source="conllu", doc_id="kubler", sentence_index=0,
    rule="single_relative")


def test_mine_fusion_examples_from_conllu():
    with in_process_pipeline() as p:
        docs = (p | beam.Create([FIXTURE]) | ReadConlluDocuments("fusion"))["annotated"]
        out = docs | MineFusionExamples("fusion", Options())
        assert_that(out["examples"], equal_to([("full", HEBDEN), ("full", KUBLER),
                                               ("balanced", HEBDEN), ("balanced", KUBLER)]))
        counts = out["counts"] | beam.CombinePerKey(sum)
        assert_that(counts, equal_to([("discofuse/documents", 3), ("discofuse/passed", 2),
                                      ("discofuse/type:PAIR_CONN", 1), ("discofuse/type:SINGLE_RELATIVE", 1)]),
                    label="counts")


def test_filtered_examples_are_counted_and_rejected():
    with in_process_pipeline() as p:
        docs = (p | beam.Create([FIXTURE]) | ReadConlluDocuments("fusion"))["annotated"]
        out = docs | MineFusionExamples("fusion", Options(min_tokens=12), bulk_sample_rate=1.0)
        assert_that(out["examples"], equal_to([]))
        rejects = out["rejects"] | beam.Map(lambda r: (r.reason, r.key, r.stage))
        assert_that(rejects, equal_to([("short_sentence", "hebden#0", "discofuse"),
                                       ("short_sentence", "kubler#0", "discofuse")]), label="rejects")


def test_balanced_variant_downsamples_and_deterministically():
    base = dict(coherent_first_sentence="", coherent_second_sentence="", incoherent_first_sentence="",
                incoherent_second_sentence="", doc_id="d")
    ands = [FusionExample(**base, discourse_type=DT.SINGLE_S_COORD, connective_string="and", sentence_index=i)
            for i in range(400)]
    kept = [balanced_keep(e) for e in ands]
    assert kept == [balanced_keep(e) for e in ands]  # same answer every time
    assert 60 <= sum(kept) <= 140  # keep-rate 0.25 of 400
    rel = FusionExample(**base, discourse_type=DT.SINGLE_RELATIVE)
    assert balanced_keep(rel) is True


def test_balanced_variant_is_per_language():
    """French down-samples "et" and "mais" (issue 43); English's rates and answers stay as they were."""
    from transforms.discofuse import BALANCED_KEEP, balanced_keep_rates
    base = dict(coherent_first_sentence="", coherent_second_sentence="", incoherent_first_sentence="",
                incoherent_second_sentence="", doc_id="d")

    def examples(conn):
        return [FusionExample(**base, discourse_type=DT.SINGLE_VP_COORD, connective_string=conn, sentence_index=i)
                for i in range(400)]
    assert 60 <= sum(balanced_keep(e, "fr") for e in examples("et")) <= 140  # 0.25 of 400
    assert 150 <= sum(balanced_keep(e, "fr") for e in examples("mais")) <= 250  # 0.5 of 400
    assert all(balanced_keep(e, "fr") for e in examples("and"))  # no English word in French rates
    assert all(balanced_keep(e, "en") for e in examples("et"))
    ands = examples("and")
    assert [balanced_keep(e) for e in ands] == [balanced_keep(e, "en") for e in ands]
    assert balanced_keep_rates("en") is BALANCED_KEEP == {"and": 0.25, "but": 0.5, "PAIR_ANAPHORA": 0.25}
    assert balanced_keep_rates("uk") is BALANCED_KEEP  # a language without rules of its own: English's
    assert balanced_keep_rates("fr") == {"et": 0.25, "mais": 0.5, "PAIR_ANAPHORA": 0.25}


def test_balanced_variant_caps_pair_none_at_englishs_share_in_every_language():
    """Issue 52: French's balanced variant was 89% PAIR_NONE (894 of 1,001 rows); PAIR_NONE now makes up at most
    MAX_PAIR_NONE_SHARE of it in every language, English's share on the bundled sample (77.6%)."""
    from transforms.discofuse import MAX_PAIR_NONE_SHARE, WithBalanced, pair_none_keep_rate
    base = dict(coherent_first_sentence="", coherent_second_sentence="", incoherent_first_sentence="",
                incoherent_second_sentence="", doc_id="d")
    nones = [FusionExample(**base, discourse_type=DT.PAIR_NONE, sentence_index=i) for i in range(894)]
    others = [FusionExample(**base, discourse_type=DT.SINGLE_RELATIVE, sentence_index=i) for i in range(107)]
    assert pair_none_keep_rate(7044, 2029) == 1.0  # the English sample's balanced counts: nothing more dropped
    assert pair_none_keep_rate(0, 5) == 1.0 and pair_none_keep_rate(10, 0) == 0.0
    assert abs(pair_none_keep_rate(894, 107) - 0.78 / 0.22 * 107 / 894) < 1e-12
    with in_process_pipeline() as p:
        out = p | beam.Create([("full", e) for e in nones + others]) | WithBalanced("fr")

        def check(rows):
            rows = list(rows)
            assert sorted(e.sentence_index for v, e in rows if v == "full") == sorted(
                e.sentence_index for e in nones + others)
            rows = [r for r in rows if r[0] == "balanced"]
            kept_none = sum(1 for _, e in rows if e.discourse_type == DT.PAIR_NONE)
            assert sum(1 for _, e in rows if e.discourse_type != DT.PAIR_NONE) == 107
            assert 0.70 <= kept_none / len(rows) <= MAX_PAIR_NONE_SHARE + 0.02, kept_none / len(rows)
        assert_that(out, check)
    # English: nothing changes where PAIR_NONE is already within the share
    with in_process_pipeline() as p:
        out = p | beam.Create([("full", e) for e in nones[:300] + others]) | WithBalanced("en")
        assert_that(out, equal_to([(v, e) for e in nones[:300] + others for v in ("full", "balanced")]))
