"""Partial paraphrases on real ParaSCI sentences: clauses, best-clause extraction, PDBERT pseudo data and loader."""
import collections
import random

import pytest

from conftest import SHARED_DATA
from miners.parasci import pairs as ps
from miners.parasci import partial

VAL = SHARED_DATA / "parasci" / "release-acl-val"


@pytest.fixture(scope="module")
def val_pairs():
    src = (VAL / "val.src").read_text(encoding="utf-8").splitlines()
    tgt = (VAL / "val.tgt").read_text(encoding="utf-8").splitlines()
    return list(zip(src, tgt))


@pytest.fixture(scope="module")
def embedder():
    from miners.nlp.embed import SentenceEmbedder
    return SentenceEmbedder().load()


def test_clauses_keep_offsets_into_the_sentence():
    text = "we use bleu , which is a metric ( papineni et al ) -- and phrase-based smt ; ratio 3:1 , 1,000 words ."
    spans = partial.split_clauses(text)
    assert [text[s:e] for s, e in spans] == [
        "we use bleu", "which is a metric", "papineni et al", "and phrase-based smt", "ratio 3:1", "1,000 words ."]
    assert spans[0] == (0, 11) and spans[2] == (text.index("papineni"), text.index("papineni") + 14)


def test_clean_span_drops_edge_punctuation_and_conjunctions():
    text = "x , and we measure quality with bleu , while"
    s, e = partial.clean_span(text, 1, len(text))
    assert text[s:e] == "we measure quality with bleu"


def test_candidate_spans_never_cover_the_whole_sentence():
    text = "we use bleu and ter , and we report the averages of three runs ."
    spans = [text[s:e] for s, e in partial.candidate_spans(text, min_words=2)]
    assert spans == ["we use bleu and ter", "we report the averages of three runs"]
    assert partial.candidate_spans("we use bleu and ter to measure translation quality .") == []


def test_best_clause_extracts_the_paraphrasing_clause(val_pairs, embedder):
    # Real pairs 1 and 2 of the released validation split, the target joined to another real sentence.
    (s1, t1), (s2, t2), other_a, other_b = val_pairs[1], val_pairs[2], val_pairs[4][0], val_pairs[8][0]
    pairs = [
        (s1, partial.strip_end_punctuation(other_a) + " ; " + t1),
        (s1, partial.strip_end_punctuation(t1) + " , and " + other_a),
        (s2, partial.strip_end_punctuation(other_b) + " , while " + t2),
    ]
    got = partial.best_clauses(pairs, embedder, ps.MINILM_MIN_SIMILARITY)
    assert [m.text for m in got] == [partial.strip_end_punctuation(t1), partial.strip_end_punctuation(t1),
                                     partial.strip_end_punctuation(t2)]
    for (short, long_text), m in zip(pairs, got):
        assert long_text[m.start:m.end] == m.text and m.method == "best_clause"
        assert m.similarity == pytest.approx(embedder.similarity([short], [m.text])[0], abs=1e-4)
        assert m.similarity >= ps.MINILM_MIN_SIMILARITY


def test_best_clause_none_when_nothing_passes_or_only_the_whole_sentence(val_pairs, embedder):
    s1, t1 = val_pairs[1]
    unrelated = partial.strip_end_punctuation(val_pairs[4][0]) + " ; " + val_pairs[8][0]
    got = partial.best_clauses([(s1, unrelated), (s1, t1), (s1, ""), ("", t1 + " ; " + s1)], embedder,
                               ps.MINILM_MIN_SIMILARITY)
    assert got[0] is None  # no clause paraphrases the short sentence
    # t1 has no clause boundary: its only candidate would be the whole sentence, never returned even at -1.
    assert partial.best_clauses([(s1, t1)], embedder, -1.0) == [None]
    assert got[1:] == [None, None, None]


def test_pseudo_examples_label_b_exactly(val_pairs):
    rng = random.Random(7)
    pool = [s for p in val_pairs[100:300] for s in p]
    examples = partial.pseudo_examples(val_pairs[:100], pool, rng)
    assert len(examples) == 100
    for (a, b), ex in zip(val_pairs[:100], examples):
        assert ex.question == a
        if "B" in ex.parts:
            assert ex.answer == partial.strip_end_punctuation(b)
            assert ex.context[ex.start:ex.end] == ex.answer
            assert ex.start == 0 or ex.context[ex.start - 1] == " "
            assert ex.end == len(ex.context) or ex.context[ex.end] == " "
        else:
            assert (ex.start, ex.end, ex.answer) == (-1, -1, "")
        assert ex.context and not ex.context.startswith(" ")
    with_c = [ex for ex in examples if ex.parts.startswith("C") and "B" in ex.parts]
    assert with_c and all(not ex.context[:ex.start].rstrip().endswith(".") for ex in with_c)


def test_pseudo_presence_rates_are_near_the_paper(val_pairs):
    rng = random.Random(11)
    pool = [s for p in val_pairs for s in p]
    examples = partial.pseudo_examples(val_pairs * 2, pool, rng)
    n = len(examples)
    rate = collections.Counter(c for ex in examples for c in ex.parts)
    # C is forced in the 2% of draws with nothing present: expected rate 0.8 + 0.02.
    assert rate["C"] / n == pytest.approx(0.82, abs=0.02)
    assert rate["B"] / n == pytest.approx(0.5, abs=0.02)
    assert rate["D"] / n == pytest.approx(0.8, abs=0.02)
    assert partial.pseudo_examples(val_pairs[:50], pool, random.Random(3)) == \
        partial.pseudo_examples(val_pairs[:50], pool, random.Random(3))


@pytest.fixture(scope="module")
def tiny_qa_model(tmp_path_factory):
    """A randomly initialised one-layer QA model with the MiniLM tokenizer (plumbing only)."""
    import torch
    import transformers
    from miners.nlp.embed import default_embedding_model
    out = tmp_path_factory.mktemp("tiny_pdbert")
    tok = transformers.AutoTokenizer.from_pretrained(default_embedding_model())
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=256)
    transformers.BertForQuestionAnswering(config).save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


def test_span_extractor_loads_and_answers_like_best_clauses(val_pairs, tiny_qa_model):
    pairs = [(a, partial.strip_end_punctuation(val_pairs[i + 10][0]) + " " + b) for i, (a, b) in
             enumerate(val_pairs[:6])] + [("", "")]
    ex = partial.SpanExtractor(tiny_qa_model, min_words=1)
    raw = ex.spans(pairs)
    assert len(raw) == len(pairs)
    for (_, long_text), r in zip(pairs, raw):
        if r is not None:
            s, e, score = r
            assert 0 <= s < e <= len(long_text) and score > 0
    got = ex.extract(pairs)
    assert len(got) == len(pairs)
    for (_, long_text), m in zip(pairs, got):
        if m is not None:
            assert long_text[m.start:m.end] == m.text and m.method == "pdbert"
            assert ps.normalise_text(m.text) != ps.normalise_text(partial.strip_end_punctuation(long_text))
    # The same extractor from the real pipeline's point of view: a threshold without an embedder's
    # score keeps nothing (NaN never passes).
    assert partial.SpanExtractor(tiny_qa_model, threshold=0.0).extract(pairs) == [None] * len(pairs)


def test_span_extractor_missing_model_names_the_tool(tmp_path):
    with pytest.raises(RuntimeError, match="train_pdbert"):
        partial.SpanExtractor(str(tmp_path / "nope")).load()


def test_span_decoding_picks_the_best_context_span_or_no_span():
    import torch
    long_text = "the cat sat on the mat"
    # [CLS] q [SEP] the cat sat on the mat [SEP]; offsets of context tokens are into long_text.
    offsets = [(0, 0), (0, 1), (0, 0), (0, 3), (4, 7), (8, 11), (12, 14), (15, 18), (19, 22), (0, 0)]
    seq = [None, 0, None, 1, 1, 1, 1, 1, 1, None]
    ex = partial.SpanExtractor("unused")
    start = torch.zeros(10)
    end = torch.zeros(10)
    start[4], end[5] = 5.0, 4.0  # "cat sat"
    start[1], end[1] = 50.0, 50.0  # the question token never wins
    s, e, score = ex._best_span(start, end, offsets, seq, long_text)  # pylint: disable=protected-access
    assert long_text[s:e] == "cat sat" and score == pytest.approx(9.0)
    start[0], end[0] = 6.0, 6.0  # no-span logit above the best span
    assert ex._best_span(start, end, offsets, seq, long_text) is None  # pylint: disable=protected-access


@pytest.mark.parametrize("method", ["best_clause", "pdbert"])
def test_extract_partial_fn_runs_either_method(val_pairs, tiny_qa_model, method):
    from apache_beam import pvalue
    from schemas.papers import PaperSentence
    from transforms.parasci import ExtractPartialFn, Params
    s1, t1 = val_pairs[1]
    long_text = partial.strip_end_punctuation(val_pairs[4][0]) + " ; " + t1
    a = PaperSentence(paper_id="p1", index=3, section="abstract", text=s1)
    b = PaperSentence(paper_id="p1", index=40, section="conclusion", text=long_text)
    fn = ExtractPartialFn(Params(partial_method=method, pdbert_model=tiny_qa_model))
    fn.setup()
    fn.start_bundle()
    out = list(fn.process([ps.Candidate(method="intra_paper", a=a, b=b, similarity=0.7)]))
    assert len(out) == 1
    if method == "best_clause":
        assert (out[0].src, out[0].tgt, out[0].method) == (s1, partial.strip_end_punctuation(t1), "partial")
    else:  # an untrained head: whatever it answers must take exactly the path the decision gives it
        m = fn._extractor.extract([(s1, long_text)])[0]  # pylint: disable=protected-access
        reason = "no_partial_match" if m is None else \
            fn.params.thresholds.decision.decide(s1, m.text, m.similarity)[1]
        if reason is None:
            assert not isinstance(out[0], pvalue.TaggedOutput)
            assert (out[0].src, out[0].tgt, out[0].method) == (s1, m.text, "partial") and m.text in long_text
        else:
            assert isinstance(out[0], pvalue.TaggedOutput) and out[0].value.reason == reason
