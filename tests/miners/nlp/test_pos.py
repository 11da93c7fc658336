"""POS tagger interface (miners/nlp/pos.py) with spaCy en_core_web_sm."""
import pytest

from miners.nlp.pos import PosTagger


@pytest.fixture(scope="module")
def tagger():
    return PosTagger()


def test_pipeline_runs_only_what_tags_need(tagger):
    assert tagger.nlp.pipe_names == ["tok2vec", "tagger", "attribute_ruler"]


def test_first_word_tags_on_real_sentences(tagger):
    # Sentences of the bundled Wikipedia sample (articles "Autism" and "Albedo").
    assert tagger.tag_first_word("Surprisingly, the mutations that increase autism risk have not been identified.") \
        == "RB"
    assert tagger.tag_first_word("Typically, autism cannot be traced to a single-gene mutation.") == "RB"
    assert tagger.tag_first_word("Albedo is the measure of the diffuse reflection of solar radiation.") == "NNP"
    assert tagger.tag_first_word("") == ""


def test_batched_equals_one_by_one(tagger):
    sentences = ["Historically, the town was small.", "Paris, the capital, is large.", "Yes, it is."]
    assert tagger.tag_first_words(sentences) == [tagger.tag_first_word(s) for s in sentences] == ["RB", "NNP", "UH"]
    assert tagger.tag("Truly, it rained.")[:2] == [("Truly", "RB"), (",", ",")]
