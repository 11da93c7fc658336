"""ParaSCI rules on real sentences: definitions, length rate, candidate classes, filters, Table 2."""
import dataclasses
import sacrebleu
import pytest

from conftest import SHARED_DATA
from miners.parasci import pairs as ps
from miners.text.segmenter import split_sentences
from schemas.papers import CITATION_PLACEHOLDER, Paper, PaperParagraph, PaperSentence
from schemas.records import SciParaphraseExample

VAL = SHARED_DATA / "parasci" / "release-acl-val"


@pytest.fixture(scope="module")
def val_pairs():
    src = (VAL / "val.src").read_text(encoding="utf-8").splitlines()
    tgt = (VAL / "val.tgt").read_text(encoding="utf-8").splitlines()
    assert len(src) == len(tgt) == 2753
    return list(zip(src, tgt))


@pytest.mark.parametrize("sentence, term, abbr", [
    ("relation extraction is the task of finding semantic relations between two entities from text .",
     "relation extraction", ""),
    ("relation extraction ( re ) is the task of extracting semantic relationships between entities in text .",
     "relation extraction", "re"),
    ("dependency parsing is the task to assign dependency structures to a given sentence.",
     "dependency parsing", ""),
    ("stance detection has been defined as automatically detecting whether the author of a piece of text is "
     "in favor of the given target or against it .", "stance detection", ""),
    ("Part-of-speech tagging is the problem of determining the syntactic part of speech of an occurrence of a word "
     "in context.", "part of speech tagging", ""),
    ("We define the literature graph as a directed property graph with nodes for papers and authors.",
     "literature graph", ""),
    ("Named Entity Recognition (NER) is a core component of many information extraction pipelines.",
     "named entity recognition", "NER"),
    # The paper's own patterns (§3.3): term last, "we call this X", apposition.
    ("identifying the meaning of a word in its context is known as word sense disambiguation ( wsd ) .",
     "word sense disambiguation", "wsd"),
    ("The process of mapping a mention to its entry in a knowledge base is referred to as entity linking.",
     "entity linking", ""),
    ("We call this approach distant supervision [CITATION].", "distant supervision", ""),
    ("BERT, a language model that is pre-trained on large corpora, gives strong results.", "bert", ""),
])
def test_definitions_name_their_term(sentence, term, abbr):
    d = ps.find_definition(sentence)
    assert d is not None and (d.term, d.abbreviation) == (term, abbr)


@pytest.mark.parametrize("sentence", [
    "It is defined as the sum of the two scores.",  # a pronoun, not a term
    "although coreference resolution is a subproblem of natural language understanding , coreference "
    "resolution evaluation metrics have predominately been discussed in terms of abstract entities .",
    "sometimes a noun can be defined as a word that names a thing .",  # a clause, not a noun phrase
    "We evaluate our model on three benchmark datasets.",
    # "main contribution of this paper" is not a term (issue 16).
    "The main contribution of this paper is the task of aligning citation sentences across papers.",
])
def test_non_definitions_are_not_taken(sentence):
    assert ps.find_definition(sentence) is None


def test_definition_pairs_of_the_released_validation_split_agree_on_their_term(val_pairs):
    """Where both sides of a released pair are definitions, the grouping key must bring them together."""
    both = [(ps.find_definition(a), ps.find_definition(b)) for a, b in val_pairs]
    both = [(x, y) for x, y in both if x and y]
    assert len(both) >= 200
    assert all(x.term == y.term for x, y in both)
    assert ps.definition_group("Computer Science", "semantic parsing") == "computer science|semantic parsing"


def test_length_rate_is_relative_to_the_shorter_sentence_and_ignores_placeholders():
    assert ps.length_rate("one two three four", "one two three four five six seven eight") == 1.0
    assert ps.length_rate("we use bleu [CITATION] here", "we use bleu here") == 0.0
    assert ps.length_rate("", "a b") == float("inf")


def test_released_pairs_mostly_pass_the_published_length_rates(val_pairs):
    """The PLR definition chosen is consistent with §4.2: released pairs pass PLR < 1 (and < 2)."""
    rates = [ps.length_rate(a, b) for a, b in val_pairs]
    assert sum(r < ps.MAX_LENGTH_RATE for r in rates) / len(rates) > 0.95
    assert sum(r < ps.MAX_LENGTH_RATE_DEFINITION for r in rates) / len(rates) > 0.99


def _sentence(paper, index, section, text):
    return PaperSentence(paper_id=paper, index=index, section=section, text=text, path=f"{paper}.json")


def test_candidates_become_pairs_partial_jobs_or_reasoned_drops():
    t = ps.Thresholds()
    a = _sentence("p1", 3, "abstract", "we propose a neural model for relation extraction from scientific text .")
    b = _sentence("p1", 40, "conclusion", "we present a neural network that extracts relations from scientific text .")
    long_ = _sentence("p1", 41, "conclusion", "we proposed a neural relation extraction model for scientific text , "
                      "evaluated it on three benchmark corpora , and released the code and the annotated data .")
    assert ps.classify(ps.Candidate("intra_paper", a, b, 0.9), t) == ("pair", None)
    assert ps.classify(ps.Candidate("intra_paper", a, long_, t.partial_similarity + 0.01), t) == ("partial", None)
    assert ps.classify(ps.Candidate("intra_paper", a, b, t.similarity - 0.01), t) == \
        ("drop", "below_similarity")
    assert ps.classify(ps.Candidate("intra_paper", a, a, 1.0), t)[1] == "identical_sentences"
    # An in-paper pair needs a sentence of the abstract or the conclusion; two body sections are not asked.
    intro = dataclasses.replace(a, section="introduction")
    discussion = dataclasses.replace(b, section="discussion")
    assert ps.classify(ps.Candidate("intra_paper", intro, discussion, 0.9), t) == ("drop", "no_summary_section")
    assert ps.classify(ps.Candidate("intra_paper", intro, b, 0.9), t) == ("pair", None)
    assert ps.classify(ps.Candidate("same_citation", intro, discussion, 0.9), t)[1] != "no_summary_section"
    # definitions allow a longer partner (PLR < 2) and are never cut into partial pairs
    assert ps.classify(ps.Candidate("definition", a, long_, 0.9), t) == ("pair", None)


def test_a_pair_and_its_reverse_are_one_record():
    a = _sentence("p2", 5, "introduction", "semantic parsing is the task of mapping natural language to logical forms .")
    b = _sentence("p1", 9, "background", "semantic parsing is the task of translating utterances to a meaning "
                  "representation .")
    one = ps.make_example(ps.Candidate("definition", a, b, 0.8, group="cs|semantic parsing"))
    two = ps.make_example(ps.Candidate("definition", b, a, 0.8, group="cs|semantic parsing"))
    assert one == two
    assert (one.paper_id, one.other_paper_id, one.src) == ("p1", "p2", b.text)
    assert one.length_rate == ps.length_rate(a.text, b.text)


def test_filters_use_the_method_thresholds():
    t = ps.Thresholds()
    rec = SciParaphraseExample(src="x y z", tgt="x y z w", method="intra_paper", bertscore=t.min_bertscore + 0.01,
                               length_rate=0.33)
    assert ps.filter_reason(rec, t) is None
    low = SciParaphraseExample(src="a", tgt="b", method="intra_paper", bertscore=t.min_bertscore_definition + 0.01)
    assert ps.filter_reason(low, t) == "bertscore_too_low"
    assert ps.filter_reason(SciParaphraseExample(src="a", tgt="b", method="definition",
                                                 bertscore=t.min_bertscore_definition + 0.01,
                                                 length_rate=1.5), t) is None
    assert ps.filter_reason(SciParaphraseExample(src="a", tgt="b", method="intra_paper", bertscore=0.99,
                                                 length_rate=1.5), t) == "length_rate_too_high"
    paper = ps.Thresholds.paper()
    assert (paper.similarity, paper.min_bertscore, paper.min_bertscore_definition) == (0.931, 0.7, 0.6)


def test_a_bertscore_ceiling_rejects_copies_only_when_set():
    near_copy = SciParaphraseExample(src="a", tgt="b", method="intra_paper", bertscore=0.93, length_rate=0.1)
    assert ps.filter_reason(near_copy, ps.Thresholds()) is None  # off by default
    band = ps.Thresholds(min_bertscore=ps.BAND_MIN_BERTSCORE, max_bertscore=ps.BAND_MAX_BERTSCORE)
    assert ps.filter_reason(near_copy, band) == "bertscore_too_high"
    assert ps.filter_reason(dataclasses.replace(near_copy, bertscore=0.91), band) == "bertscore_too_high"
    assert ps.filter_reason(dataclasses.replace(near_copy, bertscore=0.8), band) is None
    assert ps.filter_reason(dataclasses.replace(near_copy, bertscore=0.7), band) == "bertscore_too_low"
    # the definition floor is its own; the ceiling applies to every method
    definition = dataclasses.replace(near_copy, method="definition")
    assert ps.filter_reason(dataclasses.replace(definition, bertscore=0.7), band) is None
    assert ps.filter_reason(definition, band) == "bertscore_too_high"


def test_sentences_carry_the_keys_of_the_papers_they_cite():
    text = ("Despite notable advances in scientific search engines, data mining and digital libraries [CITATION], "
            "researchers remain unable to answer simple questions. We focus on extracting structured data from "
            "scientific documents, as in natural language interfaces [CITATION] and academic search [CITATION].")
    paper = Paper(id="N18-3011", title="Construction of the Literature Graph in Semantic Scholar", field="",
                  year=2018, source="doc2json", path="pdf-N18-3011.json", paragraphs=(
                      PaperParagraph("introduction", "Introduction", text,
                                     cite_keys=("title:wu 2014|2014", "s2:iyer2017", "title:xiong|2017"),
                                     cite_slots=(0, 1, 2)),))
    sents = ps.paper_sentences(paper, split_sentences)
    assert [s.index for s in sents] == [0, 1]
    assert sents[0].cite_keys == ("title:wu 2014|2014",)
    assert sents[1].cite_keys == ("s2:iyer2017", "title:xiong|2017")
    assert {s.section for s in sents} == {"introduction"}


def test_sentence_filters_on_real_paper_text():
    assert ps.sentence_reason("We use BLEU [CITATION].") == "too_short"
    assert ps.sentence_reason("in order to measure translation quality , we use bleu 7 and ter scores .") is None
    assert ps.sentence_reason("= 0.5 × 10 −3 , β 1 = 0.9 , β 2 = 0.999 , = 10 −8 and λ = 0.01 .") == \
        "low_letter_ratio"


def test_table2_of_the_validation_split_matches_sacrebleu(val_pairs):
    records = [SciParaphraseExample(src=a, tgt=b, method="intra_paper") for a, b in val_pairs]
    t2 = ps.table2(records)
    assert t2["pairs"] == 2753 and t2["per_method"] == {"intra_paper": 2753}
    words = sum(len(a.split()) + len(b.split()) for a, b in val_pairs) / (2 * 2753)
    assert t2["avg_words"] == round(words, 2)
    assert t2["self_bleu"] == pytest.approx(sacrebleu.corpus_bleu([b for _, b in val_pairs],
                                                                  [[a for a, _ in val_pairs]]).score, abs=0.01)


def test_release_lines_carry_no_citation_marker_and_the_release_form_is_lowercased_tokenized():
    from schemas.release import parasci_release_form
    r = SciParaphraseExample(src="Liu et al. [CITATION] proposed a phrase-based model ([CITATION]).",
                             tgt="As shown before [CITATION], the model (PB-SMT) works (see [CITATION]).",
                             method="same_citation")
    assert r.to_row() == ["Liu et al. proposed a phrase-based model.", "As shown before, the model (PB-SMT) works."]
    assert CITATION_PLACEHOLDER in r.src  # the record keeps the placeholder
    assert parasci_release_form(r.tgt) == "as shown before , the model ( pb-smt ) works ."
    assert parasci_release_form("We use Earley's algorithm [CITATION].") == "we use earley 's algorithm ."


def test_boilerplate_sentences_are_rejected_before_any_search():
    assert ps.sentence_reason("This work was supported by the National Science Foundation under award 1234567.") \
        == "boilerplate"
    assert ps.sentence_reason("We propose a neural model for relation extraction from scientific text.") is None


def test_bertscore_uses_the_scorers_layer_for_scibert_not_the_last():
    assert ps.bertscore_layer_for("/models/scibert_scivocab_uncased") == 8
    assert ps.bertscore_layer_for("/models/scibert-scivocab-uncased/") == 8
    assert ps.bertscore_layer_for("/models/my-own-encoder") is None


def test_a_sentence_whose_citation_is_a_word_is_not_paired_and_cue_brackets_go_whole():
    """Issue 32: "[CITATION], the densities ..." read ", the densities ..." in the release lines, and
    "presented in [CITATION]:" read "presented in:". The readers keep no surface form of a marker,
    so such a sentence is left out of pairs (`citation_as_word`); a bracket of citations with a cue
    word goes whole. Sentences of the real papers under ../shared/data/scientific."""
    from schemas.release import strip_citation_placeholders
    for text in ("[CITATION], the densities of the ion pairs were computed with the same force field.",
                 "Inspired by [CITATION], we train a supervised binary classifier for merging pairs of author "
                 "instances.",
                 "We now consider a path planning problem, similar to the one presented in [CITATION]: an agent "
                 "wants to exit a maze using the least possible time.",
                 "The E-values generated by COMPASS were converted to evolutionary distances as described in "
                 "[CITATION]."):
        assert ps.sentence_reason(text) == "citation_as_word", text
    # A citation that ends the previous sentence, cut off after its full stop, is not a word of this one.
    text = "[CITATION] Non-viral gene delivery has been advanced by the rapid development of materials science."
    assert ps.sentence_reason(text) is None
    assert strip_citation_placeholders(text) == "Non-viral gene delivery has been advanced by the rapid " \
                                                "development of materials science."
    text = ("It is well known that jasmonate-mediated defenses can be costly in the absence of herbivores "
            "(reviewed in e.g., [CITATION]), and under low levels of damage.")
    assert ps.sentence_reason(text) is None
    assert strip_citation_placeholders(text) == ("It is well known that jasmonate-mediated defenses can be costly "
                                                 "in the absence of herbivores, and under low levels of damage.")
