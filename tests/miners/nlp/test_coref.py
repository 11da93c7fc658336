"""The built-in conservative pronoun resolver, on real parses (spaCy en_core_web_sm)."""
import pytest

from miners.nlp import coref
from miners.nlp.annotation import Mention
from miners.nlp.annotators import SpacyAnnotator


@pytest.fixture(scope="module")
def parse():
    a = SpacyAnnotator()
    return a.parse


def test_unique_antecedent_in_previous_sentence(parse):
    s = parse(["Agassi compiled performances that made him famous .", "As a result , he is credited for it ."])
    chains = coref.resolve(s)
    assert [c.mentions for c in chains] == [(Mention(0, 0, 1), Mention(1, 4, 5))]


def test_antecedent_in_earlier_clause(parse):
    s = parse(["English is less commonly spoken , though it is understood in the resorts ."])
    chains = coref.resolve(s)
    assert [c.mentions for c in chains] == [(Mention(0, 0, 1), Mention(0, 7, 8))]


def test_two_candidates_resolve_nothing(parse):
    s = parse(["The town has a small harbour near the old castle .", "Its main industry is fishing ."])
    assert coref.resolve(s) == ()


def test_number_agreement(parse):
    # "they" cannot take the singular "Agassi"; only the plural "rituals" fits
    s = parse(["These rituals were dormant in Greece , and they were reinforced later ."])
    chains = coref.resolve(s)
    assert [(c.mentions[0].start, c.mentions[0].end) for c in chains] == [(0, 2)]


def test_they_with_several_people_in_view_is_left_alone(parse):
    # from the bundled sample (article "Alchemy"): "they" means the two people, not "books"
    s = parse(["Zosimos of Panopolis wrote the oldest known books on alchemy , while Mary the Jewess is credited "
               "as the first Western alchemist .", "They wrote in Greek and lived in Egypt under Roman rule ."])
    assert [c for c in coref.resolve(s) if c.mentions[-1].sentence == 1] == []
