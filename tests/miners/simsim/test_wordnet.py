"""miners/simsim/wordnet.py: WordNet 3.0 read from Debian's wordnet-base files, inflection, and the
substitution's choice of a more frequent synonym of a safe sense (issue 42)."""
import os

import pytest

from miners.simsim import wordnet

pytestmark = pytest.mark.skipif(not os.path.isfile(os.path.join(wordnet.WORDNET_DIR, "index.noun")),
                                reason="Debian's wordnet-base is not installed (tools/debian-packages.txt)")


@pytest.fixture(scope="module")
def wn():
    return wordnet.WordNet.load()


def test_reads_synsets_in_sense_order_and_the_exception_lists(wn):
    assert wn.synsets("buy", "v")[0].words == ("buy", "purchase")
    assert wn.morphy("bought", "v") == ["buy"]
    assert wn.morphy("children", "n") == ["child"]
    assert wn.morphy("cars", "n") == ["car"]
    # pointers: a car is a motor vehicle (hypernym), a cab is a car (hyponym)
    assert {"motor_vehicle", "cab"} <= wn.lemmas_of_related("car", "n")


def test_inflects_regularly_and_from_the_exception_lists_or_declines(wn):
    assert wordnet.inflect("purchase", "VBD", wn) == "purchased"
    assert wordnet.inflect("buy", "VBN", wn) == "bought"  # one irregular form for past and participle
    assert wordnet.inflect("begin", "VBD", wn) is None  # began / begun: unsure which
    assert wordnet.inflect("car", "NNS", wn) == "cars"
    assert wordnet.inflect("child", "NNS", wn) == "children"
    assert wordnet.inflect("try", "VBZ", wn) == "tries"
    assert wordnet.inflect("use", "VBG", wn) == "using"
    assert wordnet.inflect("visit", "VBD", wn) is None  # a doubling CVC ending: unsure
    assert wordnet.inflect("large", "JJR", wn) is None


def test_synonyms_are_more_frequent_of_a_safe_sense_and_inflected(wn):
    assert wordnet.synonym_candidates("physicians", "physician", "NNS", wn) == wordnet.Choice("", ("doctors",))
    assert wordnet.synonym_candidates("purchased", "purchase", "VBD", wn).replacements[0] == "bought"
    assert wordnet.synonym_candidates("commenced", "commence", "VBD", wn).replacements == ("started",)
    # "vehicle" has several senses and no synonym in its first one
    assert wordnet.synonym_candidates("vehicles", "vehicle", "NNS", wn).reason == "ambiguous_sense"
    assert wordnet.synonym_candidates("pamphlet", "pamphlet", "NN", wn).reason == "not_more_frequent"
    assert wordnet.synonym_candidates("herb", "herb", "NN", wn).reason == "no_synonym"
    assert wordnet.synonym_candidates("larger", "large", "JJR", wn).reason == "inflection_unknown"
    # a plural that is a noun of its own ("optics", the science) is not the plural of "optic" (the eye)
    assert wordnet.synonym_candidates("optics", "optic", "NNS", wn).reason == "ambiguous_sense"
    # a vague light word is never the replacement ("commence" -> "get")
    assert "get" not in wordnet.synonym_candidates("commence", "commence", "VB", wn).replacements
    # the metric reads a pair already made: any sense
    assert wordnet.synonym_candidates("vehicles", "vehicle", "NNS", wn, any_sense=True).reason != "ambiguous_sense"


def test_a_missing_database_names_the_package(tmp_path):
    with pytest.raises(wordnet.WordNetUnavailable, match="wordnet-base"):
        wordnet.WordNet(str(tmp_path))
