"""s3's dropping may not break the sentence (issue 42, item 4): each check of miners/simsim/simulate.py's
DROP_CHECKS on the text a judged s3 record was dropped from (docs/simsim_judged/, rebuilt by
tools/simsim_drop.py: the seed back-translated through the record's pivot), with the real parser."""
import pytest

from miners.simsim import simulate as simsim

# the phrases these checks were written for: prepositional ones (no longer dropped by default since issue 51)
PREPOSITIONAL = ("obl", "nmod")


@pytest.fixture(scope="module")
def annotator():
    from miners.nlp.annotators import make_annotator
    return make_annotator("spacy")


def _phrase(parse, text, words):
    """The droppable phrase of `parse` whose text is `words`."""
    offsets = simsim.token_offsets(text, [t.text for t in parse.tokens])
    for p in simsim.droppable_phrases(parse, text, relations=PREPOSITIONAL):
        if text[offsets[p.start][0]:offsets[p.end - 1][1]].rstrip(" ,") == words:  # with its comma or not
            return p
    raise AssertionError(f"{words!r} is no droppable phrase of {text!r}")


# (sheet item, the s2 text, the phrase the old dropping removed, the reason it is now refused); every
# record was read broken (b) by its blind reader.
BROKEN_BY_DROPPING = [
    ("round5 83", "Marić returned to Switzerland without the child, whose real name and fate is unknown.",
     "without the child", "antecedent"),
    ("round3 71", "This response is mostly secondary because the salamanders have been observed to remain "
                  "stationary near odoriferous prey but only feed if it moves.", "near odoriferous prey", "antecedent"),
    ("round3 15", "Besides, the number of ethnic Azerbaijanis in Iran far outnumber those in neighbouring Azerbaijan.",
     "in Iran", "parallel"),
    ("round3 41", "The normal method of calculation in ancient Rome, as in Greece, was by moving counters in a smooth "
                  "table.", "in ancient Rome", "parallel"),
    ("round3 9", "The modern territory of Albania has no counterpart in antiquity, comprising parts of the Roman "
                 "provinces of Dalmatia (south Illyricum) and Macedonia (particularly Epirus Nova).",
     "in antiquity", "scope"),
    ("round4 50", "The search for new elements is usually described using nuclear numbers.", "for new elements",
     "subject_modifier"),
    ("round3 88", "The compatibility of capitalism, nationalism, and the religion with anarchism is widely disputed.",
     "with anarchism", "subject_modifier"),
    ("round4 13", "The ships are subject to superstructure icing in the extreme north of October to May.", "to May",
     "range_end"),
    ("round5 46", "Technology – The dawn of the Western alchemy is sometimes associated with that of metallurgy, "
                  "extending backwards to 3500 bc.", "to 3500 bc", "adverb_complement"),
    ("round7b 52", "For instance, the Right Hegelians interpreted Hegel as seeing the Prussian state of his day as "
                   "perfect and the target of all history up until then.", "until then", "adverb_complement"),
    ("round7b 33", "The heritage of táltos kings can be found in several locations of Hungary and is linked mainly "
                   "to kings of Árpád dynasty.", "to kings of Árpád dynasty", "adverb_complement"),
    ("round8 53", "He did, even so, perform original research in the natural sciences, e.g., botany, zoology, physics, "
                  "astronomy, chemistry, meteorology and several other sciences.", "in the natural sciences",
     "elaboration"),
    ("round8b 69", "Achilles was cremated and his ashes buried in the same urn like those of Patroclus.",
     "like those of Patroclus", "comparison"),
    ("round8b 39", "Testing continued all through December until the day before launch, including several levels "
                   "of readiness testing from December 5 through 11.", "before launch", "elaboration"),
    ("round4 67", "Because the end (telos) is the principle of each change, and for the sake of the end exists "
                  "potentiality, therefore the actuality is the end .", "for the sake of the end", "inversion"),
    ("round4 83", "The Taliban tried to capture Kabul in early 1995 but was repelled by forces under Massoud.",
     "under Massoud", "bare_noun"),
    ("round4 88", "He wrote several treaties on ethics, including most especially, the Nicomachean Ethics.",
     "on ethics", "bare_noun"),
    ("round10 77", "Alabama is an alcoholic beverage been of control, meaning that the state government holds a "
                   "monopoly on the sale of alcohol.", "on the sale of alcohol", "noun_complement"),
    # (refused as definite_noun first since issue 51: "its" says whose emphasis, the phrase which)
    ("round10b 15", "One of the basic features of Ōmoto-kyō is its emphasis on the achievement of utopia during one's "
                    "life.", "on the achievement of utopia", "definite_noun"),
]


@pytest.mark.parametrize("item,text,words,reason", BROKEN_BY_DROPPING, ids=[b[0] for b in BROKEN_BY_DROPPING])
def test_a_drop_read_broken_is_refused_for_its_reason(annotator, item, text, words, reason):
    parse = annotator.parse([text])[0]
    phrase = _phrase(parse, text, words)
    assert simsim.phrase_refusal(parse, phrase) == reason, item
    # and the step, whatever its seed, never removes it
    counted = []
    for seed in range(6):
        new, dropped = simsim.drop_phrases(text, parse, seed, key=text, relations=PREPOSITIONAL,
                                           reparse=lambda t: annotator.parse([t])[0], inc=counted.append)
        assert phrase not in dropped and words in new
    assert reason in counted


# Drops the readers accepted (a): still made.
ACCEPTED = [
    ("round4 74", "About 55,000 American sailors served on the privateers during the war.", "during the war"),
    ("round4 57", "The order was almost abandoned for the Ionic order, but the Ionic capital also posed an insoluble "
                  "problem in the corner of a temple.", "in the corner of a temple"),
    ("round5 57", "In the late 15th century, Marsilo Ficino translated the Corpus Hermeticum and the works of Plato "
                  "to Latin.", "to Latin"),
    ("round5 67", "Four days after his birth, Apollo killed the chthonic dragon Python, that lived in Delphi beside "
                  "the Castalian Spring.", "beside the Castalian Spring"),
]


@pytest.mark.parametrize("item,text,words", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_a_drop_read_acceptable_is_still_made(annotator, item, text, words):
    parse = annotator.parse([text])[0]
    phrase = _phrase(parse, text, words)
    assert simsim.phrase_refusal(parse, phrase) is None, item
    offsets = simsim.token_offsets(text, [t.text for t in parse.tokens])
    result = simsim._remove(text, offsets, [phrase])  # pylint: disable=protected-access
    assert simsim.result_refusal(text, parse, result, lambda t: annotator.parse([t])[0]) is None, (item, result)


def test_object_complement_is_on_by_default_since_issue_51(annotator):
    # round 3, item 19 (b): "combining the human development with socioeconomic factors" -> "combining the
    # human development"; item 48 (a): "condemned Trismegistus for idolatry" -> "condemned Trismegistus" (the
    # acceptable drop it also refuses); issue 51's tuning text: "dedicated a portion of the spoils to him".
    text = ("The evolutionary anthropology is based in natural science and social science, combining the human "
            "development with socioeconomic factors.")
    parse = annotator.parse([text])[0]
    phrase = _phrase(parse, text, "with socioeconomic factors")
    assert "object_complement" in simsim.DEFAULT_DROP_CHECKS
    assert simsim.phrase_refusal(parse, phrase) == "object_complement"
    assert simsim.phrase_refusal(parse, phrase, tuple(c for c in simsim.DROP_CHECKS if c != "object_complement")) \
        is None


def test_the_junction_loses_the_comma_that_closed_the_phrase():
    # round 4, item 92: "who thought that behind the appearance of things, there was" -> "that, there was";
    # round 5, item 96: "primacy; in other words, the desire" -> "primacy;, the desire".
    join = simsim._join  # pylint: disable=protected-access
    assert join("who thought that", ", there was") == "who thought that there was"
    assert join("primacy on the intellect;", ", the desire") == "primacy on the intellect; the desire"
    assert join("In 1990", ", he left") == "In 1990, he left"
    assert simsim.defects("Will had ontological primacy;, the desire is understood.") > 0


def test_the_result_is_parsed_again_and_refused_when_it_no_longer_reads_as_the_sentence(annotator):
    text = "He was followed by Tadashi Abe in 1952, who came as the official representative."

    def reparse(t):
        return annotator.parse([t])[0]
    parse = reparse(text)
    assert simsim.result_refusal(text, parse, "He was followed by Tadashi Abe, who came as the official "
                                              "representative.", reparse) is None
    assert simsim.result_refusal(text, parse, "He was followed by Tadashi Abe in 1952, who came as the "
                                              "official representative ,.", reparse) == "defect"
    assert simsim.result_refusal(text, parse, "Tadashi Abe in 1952, the official representative.",
                                 reparse) in ("no_clause", "root_changed")
    assert simsim.result_refusal(text, parse, "He was followed by the in 1952, who came as the official "
                                              "representative.", reparse) is not None
    assert simsim.result_refusal(text, parse, "Tadashi Abe in 1952.", reparse, checks=()) is None  # no check asked
    assert simsim.result_refusal(text, parse, "x", lambda t: ValueError("no parse")) == "unparsed"


def test_the_dropping_checks_cost_the_real_sentences_some_drops_not_all(annotator):
    # The WikiSplit tune sentences of test_simulate's dropping test: with every check and the re-parse,
    # dropping still happens, and what it refuses is counted under the reasons of DROP_CHECKS.
    from tests.miners.simsim.test_simulate import _wikipedia_sentences
    sentences = _wikipedia_sentences(60)
    parses = annotator.parse(sentences)
    counted, changed = [], 0
    for text, parse in zip(sentences, parses):
        if isinstance(parse, Exception):
            continue
        new, dropped = simsim.drop_phrases(text, parse, seed=13, key=text, relations=PREPOSITIONAL,
                                           reparse=lambda t: annotator.parse([t])[0], inc=counted.append)
        changed += bool(dropped)
        assert simsim.well_formed(new, text)
    assert changed >= 0.08 * len(sentences)  # 6 of 60 since issue 51's second round (12 before)
    assert counted and set(counted) <= set(simsim.DROP_CHECKS)


def test_a_phrase_that_alone_identifies_a_noun_with_the_is_not_dropped(annotator):
    # round 8b, item 39 (b): "until the day before launch" -> "until the day" (there elaboration refused
    # it first: ", including ..." followed); "the small village of New Salem" keeps "small" -- no refusal.
    text = "Testing continued all through December until the day before launch."
    parse = annotator.parse([text])[0]
    words = [t.text for t in parse.tokens]
    before = simsim.Phrase(words.index("before"), words.index("launch") + 1, "nmod")
    assert simsim.phrase_refusal(parse, before, ("definite_noun",)) == "definite_noun"
    text = "Testing continued all through December until the last day before launch."
    parse = annotator.parse([text])[0]
    words = [t.text for t in parse.tokens]
    before = simsim.Phrase(words.index("before"), words.index("launch") + 1, "nmod")
    assert simsim.phrase_refusal(parse, before, ("definite_noun",)) is None  # "the last day" says which
