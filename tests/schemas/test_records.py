"""Round trips of every record through tf.train.Example, the release rows and JSON."""
import dataclasses

import pytest

from schemas import records as R
from schemas.release import detokenize_punct, tokenize_punct

EXAMPLES = [
    R.Document(id="12", text="Anarchism is a political philosophy.\n\nIt is old.", source="wikipedia",
               title="Anarchism", url="https://en.wikipedia.org/wiki/Anarchism", path="x.bz2"),
    R.SegmentedDocument(id="12", source="wikipedia", sentences=("A b.", "C d."), paragraphs=(0, 1)),
    R.SegmentedDocument(id="empty", source="jsonl", sentences=(), paragraphs=()),
    R.Revision(page_id=7, title="T", namespace=0, revision_id=100, parent_id=99,
               timestamp="2001-01-01T00:00:00Z", comment="typo", text="Some text.", sha1="abc", minor=True),
    R.SentencePair(id="p1", s1="It rained.", s2="However, we went out."),
    R.Reject.make("markers", "read", "truncated_archive", "a.bz2", "page 5", "EOFError", "x" * 5000),
    R.MarkerExample("It rained.", "We went out.", "however", "However,", False, "12", 3, "wikipedia"),
    R.SplitExample("A did x, and B did y.", "A did x.", "B did y.", page_id=5, title="T", revision_before=1,
                   revision_after=2, direction="forward", bleu1=0.43, bleu2=0.27),
    R.FusionExample("Hebden Bridge is a popular place to live .",
                    "However , space is limited due to the steep valleys and lack of flat land .",
                    "Hebden Bridge is a popular place to live .",
                    "Space is limited due to the steep valleys and lack of flat land .",
                    R.DiscourseType.PAIR_CONN, "however", 0.0, 0.0, doc_id="d", sentence_index=4),
    R.SciParaphraseExample("We propose a model.", "A model is proposed.", "intra_paper", "p1", "p1",
                           "abstract", "conclusion", bleu=0.12, bertscore=0.91, similarity=0.93, length_rate=0.25),
    R.SimplificationExample("The committee, which met on Monday, approved the budget.",
                            "The committee approved the budget.", "simulated:es", pivot="es", seed_kind="text",
                            operations=("back_translation", "dropping"), doc_id="12", alignment=0.8,
                            dropping=0.4, reordering=0.7),
]


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda r: type(r).__name__)
def test_example_round_trip(record):
    assert type(record).from_example(record.to_example()) == record


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda r: type(r).__name__)
def test_tensorflow_reads_our_examples(record):
    tf = pytest.importorskip("tensorflow")
    parsed = tf.train.Example.FromString(record.to_example())
    assert type(record).from_example(parsed) == record
    assert sorted(parsed.features.feature) == sorted(record.to_dict())


@pytest.mark.parametrize("record", EXAMPLES, ids=lambda r: type(r).__name__)
def test_json_round_trip(record):
    assert type(record).from_dict(__import__("json").loads(record.to_json())) == record


def test_floats_are_float32_so_round_trips_are_exact():
    r = R.SplitExample("a", "b", "c", bleu1=0.1)
    assert r.bleu1 != 0.1 and abs(r.bleu1 - 0.1) < 1e-7


def test_reject_truncates_payload():
    r = EXAMPLES[5]
    assert len(r.payload) == R.Reject.MAX_PAYLOAD
    assert R.reject_from_json(r.to_json()) == r


def test_enum_is_coerced_from_string():
    r = R.FusionExample("a", "b", "c", "d", "SINGLE_RELATIVE")
    assert r.discourse_type is R.DiscourseType.SINGLE_RELATIVE
    assert len(R.DiscourseType) == 13


def test_release_rows():
    m = EXAMPLES[6]
    assert m.to_row() == ["It rained.", "We went out.", "however"]
    assert R.MarkerExample.from_row(m.to_row()).label() == "however"
    f = EXAMPLES[8]
    row = f.to_row()
    assert row[4:] == ["PAIR_CONN", "however", "0.0", "0.0"]
    assert R.FusionExample.from_row(row).discourse_type is R.DiscourseType.PAIR_CONN
    s = EXAMPLES[7]
    assert s.to_row() == ["A did x , and B did y .", "A did x . <::::> B did y ."]
    back = R.SplitExample.from_row(s.to_row())
    assert (back.complex, back.simple1, back.simple2) == (s.complex, s.simple1, s.simple2)
    assert R.SciParaphraseExample.from_row(EXAMPLES[9].to_row()).tgt == "A model is proposed."
    assert R.SimplificationExample.from_row(EXAMPLES[10].to_row()).simple == "The committee approved the budget."


def test_release_tokenization_matches_wikisplit_examples():
    assert tokenize_punct("(1990) was the sequel, though Hooper didn't return.") == \
        "( 1990 ) was the sequel , though Hooper did n't return ."
    assert tokenize_punct("The Devil's Rain") == "The Devil 's Rain"
    assert detokenize_punct("( 1990 ) was , he said .") == "(1990) was, he said."


def test_every_output_record_is_registered():
    assert set(R.OUTPUT_RECORDS) == {"markers", "splits", "fusion", "simplify", "sci_para"}
    for cls in R.OUTPUT_RECORDS.values():
        assert cls.RELEASE_COLUMNS


def test_reject_payload_shows_a_template_hole_visibly():
    from schemas.records import TEMPLATE_HOLE, Reject, without_template_holes
    r = Reject.make("markers", "pairs", "template_hole", payload="landed at" + TEMPLATE_HOLE + ", in the Pacific")
    assert r.payload == "landed at{{\u2026}}, in the Pacific" and TEMPLATE_HOLE not in r.to_json()
    assert without_template_holes("at" + TEMPLATE_HOLE + ", in") == "at, in"


# ------------------------------------------------------------------ model scores (issue 49)

def test_a_models_last_float_bits_change_no_byte_of_a_record():
    """Two scores that differ only in their last bit (what another thread count or CPU gives) make the same
    record: the same tf.train.Example bytes, JSON and shard key; the score is kept to SCORE_DECIMALS."""
    import math
    from schemas.base import SCORE_DECIMALS
    a = 0.8551849510  # 0.8552 either way
    b = math.nextafter(a, 1.0)
    ra = R.SciParaphraseExample(src="x y", tgt="y x", method="intra_paper", similarity=a, bertscore=a,
                                      paraphrase_probability=a)
    rb = R.SciParaphraseExample(src="x y", tgt="y x", method="intra_paper", similarity=b, bertscore=b,
                                      paraphrase_probability=b)
    assert ra.to_example() == rb.to_example() and ra.to_json() == rb.to_json()
    assert SCORE_DECIMALS == 4 and ra.similarity == ra.bertscore == pytest.approx(0.8552, abs=1e-7)
    sa = R.SimplificationExample(complex="A b.", simple="B a.", method="lm_selected:es", base_nll=a,
                                       simple_nll=a, alignment=a)
    sb = R.SimplificationExample(complex="A b.", simple="B a.", method="lm_selected:es", base_nll=b,
                                       simple_nll=b, alignment=b)
    assert sa.to_example() == sb.to_example()


def test_a_records_shard_key_leaves_its_model_scores_out_and_its_order_is_total():
    r1 = R.SciParaphraseExample(src="x y", tgt="y x", method="intra_paper", similarity=0.81, bertscore=0.9)
    r2 = dataclasses.replace(r1, similarity=0.83, bertscore=0.7)
    assert r1.shard_key() == r2.shard_key() and "similarity" not in r1.shard_key()
    assert r1.sort_key() != r2.sort_key() and r1.sort_key().startswith(r1.shard_key())
    # Records without model scores keep their old keys (their shards do not move).
    m = R.MarkerExample(sentence1="a", sentence2="b", label_name="however")
    assert m.shard_key() == m.sort_key() == m.to_json()
