"""The built-in conservative pronoun resolver, on real parses (spaCy en_core_web_sm)."""
import pytest

from miners.discofuse import coref
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


def test_object_pronoun_skips_its_clause_mate_subject(parse):
    # "Apollo killed him": "him" is not Apollo (binding Principle B); "he" in "what he did" stays ambiguous
    s = parse(["Phlegyas was irate after the death of his daughter and burned the Temple of Apollo at Delphi .",
               "Apollo then killed him for what he did ."])
    assert [c.mentions for c in coref.resolve(s) if c.mentions[-1].sentence == 1] == [
        (Mention(0, 0, 1), Mention(1, 3, 4))]


def test_person_pronoun_takes_no_article_name(parse):
    # article "Apollo 8": "the Moon" (typed PERSON by the small model) is no antecedent of "he"
    s = parse(["Taking command , he ordered Anders and Lovell to get some sleep and that the rest of the flight "
               "plan regarding observing the Moon be scrubbed .",
               "At first Anders protested saying that he was fine , but Borman would not be swayed ."])
    assert s[0].tokens[23].text == "Moon" and s[0].tokens[23].ner == "B-PERSON"
    assert coref.resolve(s) == ()


def test_cataphoric_name_blocks_the_previous_sentence(parse):
    s = parse(["Abraham became adept at using an axe .", "Tall for his age , Lincoln was also strong and athletic ."])
    assert coref.resolve(s) == ()


def test_coordinated_possessives_are_left_alone(parse):
    # article "Albania": "his or her" is not one entity
    s = parse(["Macedonian and some Greek minority groups have sharply criticized Article 20 of the Census law .",
               "They refuse to declare his or her ethnicity ."])
    assert [c for c in coref.resolve(s) if c.mentions[-1].start in (4, 6)] == []


def test_name_compounded_with_a_common_noun_competes(parse):
    # article "Aristotle": "gave Aristotle cause to justify his ..." - "his" is not replaced from outside
    s = parse(["Aristotle believed that intellectual purposes guided all natural processes .",
               "Such a teleological view gave Aristotle cause to justify his observed data as an expression of "
               "formal design ."])
    assert coref.resolve(s) == ()


def test_pronoun_continuing_a_pronoun_chain_is_left_alone(parse):
    # from the bundled sample (article "Aardvark"): "they" is the aardvarks of an earlier
    # sentence, referred to by "they" in the previous one, not "bright or dark nights".
    s = parse(["On a nightly basis they tend to be more active during the first portion of the night time "
               "( 20:00 - 00:00 ) ; however , they do n't seem to prefer bright or dark nights over the other .",
               "During adverse weather or if disturbed they will retreat to their burrow systems ."])
    assert [c for c in coref.resolve(s) if c.mentions[1].sentence == 1] == []
