"""Language-model scorers: the default CMU trigram model on real Wikipedia sentences, KenLM against
hand-computed values from a small ARPA file, a tiny random GPT-2 built here (finite, batch-invariant)."""
import math
import os
import random

import pytest

import nlp_models
from miners.simsim import lm
from schemas.base import quantize_score

needs_default = pytest.mark.skipif(
    lm.default_model_path() is None,
    reason="en-us.lm.bin not found: pip install pocketsphinx or apt-get install pocketsphinx-en-us")


@pytest.fixture(scope="module")
def default_lm():
    return lm.make_language_model("default").load()


def test_words_are_lower_case_without_punctuation():
    assert lm.words("Don’t stop, it's 1990 (U.S.)!") == ["don't", "stop", "it's", "1990", "u", "s"]
    assert lm.words("") == []


@needs_default
def test_default_model_prefers_real_sentences_to_shuffled_ones(default_lm):
    sentences = nlp_models.wikipedia_sentences(50)
    rng = random.Random(0)
    shuffled = []
    for s in sentences:
        w = s.split()
        while w == s.split():
            rng.shuffle(w)
        shuffled.append(" ".join(w))
    real, fake = default_lm.mean_nll(sentences), default_lm.mean_nll(shuffled)
    assert all(math.isfinite(x) and x > 0 for x in real + fake)
    wins = sum(r < f for r, f in zip(real, fake))
    assert wins >= 47, wins  # 50 of 50 when written; a shuffle of a short sentence can tie or win
    assert default_lm.name == "pocketsphinx:en-us.lm.bin" == lm.check_language_model("default")


@needs_default
def test_default_model_values(default_lm):
    nll = default_lm.mean_nll(["The cat sat on the mat.", "Mat the on sat cat the.", "", "Xyzzyplugh qwertzuiop."])
    assert nll[0] < nll[1]
    assert math.isfinite(nll[2])  # only </s> after <s>
    # unknown words cost OOV_LOGPROB each and drop out of the history: </s> backs off to its unigram
    assert nll[3] == pytest.approx(-(2 * lm.OOV_LOGPROB + default_lm.logprob("</s>", [])) / 3)
    # per token, natural log: P(the | <s>) is a few per cent in English text
    assert 1.5 < -default_lm.logprob("the", ["<s>"]) < 4.5
    assert default_lm.mean_nll(["The cat sat on the mat."]) == nll[:1]  # no state between calls


@needs_default
def test_default_model_batch_path_is_the_per_word_definition(default_lm):
    texts = ["He didn’t say where the 1,200 soldiers had gone.", "The cat sat on the mat.", "",
             "Xyzzyplugh qwertzuiop said the minister in Paris on Tuesday."]
    for text, nll in zip(texts, default_lm.mean_nll(texts)):
        lps = default_lm.sentence_logprobs(text)
        assert nll == quantize_score(-sum(lps) / len(lps))  # scores are rounded as records keep them
    assert lm.words("He didn’t go") == ["he", "didn't", "go"]


@needs_default
def test_default_model_from_the_debian_path_scores_the_same(default_lm):
    debian = os.path.join(lm.DEBIAN_MODEL_DIR, lm.DEFAULT_MODEL_FILE)
    if not os.path.isfile(debian):
        pytest.skip("Debian package pocketsphinx-en-us not installed (make test installs it)")
    texts = ["The judicial branch interprets the law.", "Law the interprets branch judicial the."]
    assert lm.make_language_model("default", debian).load().mean_nll(texts) == default_lm.mean_nll(texts)


def test_kenlm_arpa_matches_hand_computed_values(tmp_path):
    path = nlp_models.write_arpa(str(tmp_path / "small.arpa"))
    model = lm.make_language_model("kenlm", path).load()
    assert model.name == "kenlm:small.arpa" == lm.check_language_model("kenlm", path)
    ln10 = math.log(10)
    # <s> the cat sat </s>: four bigrams from the file
    expected_cat = (0.30103 + 0.22185 + 0.39794 + 0.15490) / 4 * ln10
    # <s> the dog </s>: P(</s> | dog) backs off with weight 0 to the unigram -0.69897
    expected_dog = (0.30103 + 0.5 + 0.69897) / 3 * ln10
    # <s> <unk> </s>: backoff(<s>) -0.30103 + P(<unk>) -1.0, then P(</s>) -0.69897
    expected_unk = (0.30103 + 1.0 + 0.69897) / 2 * ln10
    got = model.mean_nll(["The cat sat.", "the DOG", "zebra"])
    assert got == pytest.approx([expected_cat, expected_dog, expected_unk], abs=0.5e-4 + 1e-6)


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    return nlp_models.tiny_gpt2(str(tmp_path_factory.mktemp("gpt2") / "tiny-gpt2"))


def test_transformers_tiny_gpt2_is_finite_and_batch_invariant(gpt2_dir):
    texts = nlp_models.wikipedia_sentences(9) + ["", "Short.", "é ü ß — “quotes”"]
    assert lm.check_language_model("transformers", gpt2_dir) == "transformers:tiny-gpt2"
    one = lm.make_language_model("transformers", gpt2_dir, batch_size=1).load()
    four = lm.make_language_model("transformers", gpt2_dir, batch_size=4).load()
    all_at_once = lm.make_language_model("transformers", gpt2_dir, batch_size=64).load()
    a, b, c = one.mean_nll(texts), four.mean_nll(texts), all_at_once.mean_nll(texts)
    assert all(math.isfinite(x) and x > 0 for x in a)
    assert b == pytest.approx(a, abs=1e-4) and c == pytest.approx(a, abs=1e-4)
    assert len(set(round(x, 6) for x in a)) > 6  # the values depend on the text
    # a random model over 257 tokens: per-token NLL close to ln(257)
    assert all(abs(x - math.log(257)) < 1.0 for x in a)


def test_missing_models_name_the_option(tmp_path):
    with pytest.raises(lm.LanguageModelUnavailable, match="--lm 'bigram'"):
        lm.check_language_model("bigram")
    with pytest.raises(lm.LanguageModelUnavailable, match="--lm_path.*ARPA"):
        lm.check_language_model("kenlm", str(tmp_path / "missing.arpa"))
    with pytest.raises(lm.LanguageModelUnavailable, match="--lm_path.*config.json"):
        lm.check_language_model("transformers", str(tmp_path))
    with pytest.raises(lm.LanguageModelUnavailable, match="--lm default.*pocketsphinx-en-us"):
        lm.check_language_model("default", str(tmp_path / "en-us.lm.bin"))
    with pytest.raises(lm.LanguageModelUnavailable, match="--lm"):
        lm.make_language_model("bigram")
