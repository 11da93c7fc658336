"""The encoders on CTranslate2 (miners/nlp/ct2.py): the tokenizer without transformers, the models as the worker
image keeps them (converted on the build machine, found by a key of the model's files), one thread."""
import os

import numpy as np
import pytest

from conftest import ROOT
from miners.nlp import ct2
from miners.nlp.embed import SentenceEmbedder
from miners.quality.scoring import EmbeddingBertScorer, default_bertscore_model


def _sentences(n):
    out = []
    with open(ROOT / "tests" / "testdata" / "wikisplit" / "tune.tsv", encoding="utf-8") as f:
        for line in f:
            out += line.rstrip("\n").split("\t")
            if len(out) >= n:
                break
    return out[:n] + ["", "x " * 700, "Ünïcödé façade — naïve “quotes” 中文", "  spaces  "]


def test_the_fast_tokenizer_gives_transformers_ids_and_tokens_without_transformers():
    transformers = pytest.importorskip("transformers")
    model = default_bertscore_model()
    theirs = transformers.AutoTokenizer.from_pretrained(model, local_files_only=True)
    ours = ct2.FastTokenizer(model)
    assert (ours.cls_token_id, ours.sep_token_id, ours.pad_token_id, ours.model_max_length) == \
        (theirs.cls_token_id, theirs.sep_token_id, theirs.pad_token_id, theirs.model_max_length)
    for text in _sentences(600):
        for length in (256, 512):
            a = theirs.encode(text, add_special_tokens=True, max_length=length, truncation=True)
            b = ours.encode(text, add_special_tokens=True, max_length=length, truncation=True)
            assert a == b and theirs.convert_ids_to_tokens(a) == ours.convert_ids_to_tokens(b), text[:80]


def test_the_images_models_have_the_originals_key_and_are_found_without_their_weights(tmp_path, monkeypatch):
    baked = ct2.bake(str(tmp_path / "models"))
    copy, converted = baked[0], baked[1]
    assert not [n for n in os.listdir(copy) if n.endswith(ct2.WEIGHT_SUFFIXES)]  # the weights stay out
    assert ct2.model_key(copy) == ct2.model_key(default_bertscore_model())
    assert os.path.basename(converted) == ct2.model_key(copy)
    monkeypatch.setenv(ct2.ENV_MODELS, str(tmp_path / "models"))
    assert ct2.encoder_dir(copy) == converted  # before any conversion cache of this machine
    texts = _sentences(40)
    ours = SentenceEmbedder(copy, batch_size=7).load().encode(texts)
    theirs = SentenceEmbedder(default_bertscore_model(), batch_size=64).load().encode(texts)
    assert np.array_equal(ours, theirs)  # the same bits: one thread, and batches make no difference


def test_a_sentence_vector_is_the_same_bits_in_any_batch_and_close_to_sentence_transformers():
    texts = _sentences(120)
    model = SentenceEmbedder(batch_size=64).load()
    one = np.stack([model.encode([t])[0] for t in texts[:30]])
    assert np.array_equal(one, model.encode(texts)[:30])
    pytest.importorskip("sentence_transformers")
    reference = SentenceEmbedder(encoder="torch").load().encode(texts)
    assert float(np.abs(reference - model.encode(texts)).max()) < 1e-5


def test_bertscore_on_ct2_needs_no_torch_and_rounds_its_scores():
    scorer = EmbeddingBertScorer(encoder="ct2").load()
    scores = scorer.score(["The cat sat on the mat.", ""], ["A cat was sitting on the mat.", "Anything."])
    assert scores[1] == 0.0 and 0.5 < scores[0] < 1 and scores[0] == round(scores[0], 4)


def test_a_bertscore_embedding_does_not_follow_what_the_worker_encoded_before():
    """BERTScore keeps each worker's embeddings in a cache: which texts go to the encoder together follows the
    worker's history (the runner's bundles). With batches of one token length, a text's embedding is the same
    bits whatever came before."""
    texts = _sentences(80)
    fresh = EmbeddingBertScorer(encoder="ct2", batch_size=16).load()
    fresh._cache.clear()  # pylint: disable=protected-access
    fresh.embed(texts[:40])
    first = {t: fresh._cache[t][0].copy() for t in texts[:40]}  # pylint: disable=protected-access
    other = EmbeddingBertScorer(encoder="ct2", batch_size=100).load()
    other._cache.clear()  # pylint: disable=protected-access
    other.embed(texts[40:] + texts[:7])  # another history: other neighbours, a long text among them
    other.embed(texts[:40])
    for t in texts[:40]:
        assert np.array_equal(first[t], other._cache[t][0]), t[:60]  # pylint: disable=protected-access
