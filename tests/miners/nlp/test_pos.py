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


def test_the_tagger_loads_without_pytorch_and_tags_as_with_it():
    # `_load_sm` keeps thinc from importing PyTorch (0.9 s per process); PyTorch still imports afterwards,
    # and the tags are those of a process that had PyTorch loaded before spaCy.
    import subprocess
    import sys
    sentences = ["However, the results were clear.", "In contrast, BMP signaling patterns the DV axis."]
    code = ("import sys, json; {pre}from miners.nlp.pos import PosTagger; t = PosTagger(); "
            "loaded = 'torch' in sys.modules and sys.modules['torch'] is not None; "
            "tags = [[x for _, x in t.tag(s)] for s in {sentences!r}]; import torch; "
            "print(json.dumps([loaded, tags, torch.__version__ != '']))")
    root = __import__("pathlib").Path(__file__).resolve().parents[3]
    plain = subprocess.run([sys.executable, "-c", code.format(pre="", sentences=sentences)], cwd=root,
                           capture_output=True, text=True, check=True).stdout
    with_torch = subprocess.run([sys.executable, "-c", code.format(pre="import torch; ", sentences=sentences)],
                                cwd=root, capture_output=True, text=True, check=True).stdout
    import json
    plain, with_torch = json.loads(plain), json.loads(with_torch)
    assert plain[0] is False and with_torch[0] is True
    assert plain[1] == with_torch[1] and plain[1][0][:2] == ["RB", ","]
    assert plain[2] and with_torch[2]
