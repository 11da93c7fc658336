"""SimSim core (miners/simsim/simulate.py): seeds, language-model selection, simulated dropping on real parses."""
import itertools
import pathlib
import re

import pytest

from miners.simsim import simulate as simsim

ROOT = pathlib.Path(__file__).resolve().parents[3]
TUNE = ROOT / "tests" / "testdata" / "wikisplit" / "tune.tsv"


def test_seeds_carry_the_complex_side_and_the_text_the_steps_run_on():
    t = simsim.text_seed("Anarchism", 3, "Anarchism is a political philosophy.", "a.bz2")
    assert (t.id, t.complex, t.base, t.kind, t.doc_id, t.sentence_index) == \
        ("Anarchism:3", t.complex, t.complex, "text", "Anarchism", 3)
    aligned = simsim.pair_seed("wl:1", "The cat, which was black, sat.", "The black cat sat.", 0.8)
    assert (aligned.kind, aligned.complex, aligned.base) == ("pair", "The cat, which was black, sat.",
                                                             "The black cat sat.")
    loose = simsim.pair_seed("wl:2", "The cat, which was black, sat.", "Dogs bark.", 0.2)
    assert (loose.kind, loose.base) == ("pair_misaligned", "The cat, which was black, sat.")
    assert simsim.pair_seed("wl:3", "a", "b", 0.5).kind == "pair"  # the bound is inclusive
    split = simsim.wikisplit_seed("ws:1", "He came and he saw.", "He came.", "He saw.")
    assert split.base == "He came. He saw." and split.splitting and not aligned.splitting


def test_wikisplit_rows_are_recognised_by_their_separator():
    with open(TUNE, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in itertools.islice(f, 50)]
    assert all(simsim.is_wikisplit_row(simple) for _, simple in rows)
    assert not simsim.is_wikisplit_row("The black cat sat.")


def test_selection_takes_the_most_natural_changed_candidate_and_never_a_worse_one():
    base = "The committee approved the proposal after a long debate."
    cands = {"es": "The committee approved the proposal after a long debate .",  # same after normalising? no
             "ca": "The committee approved the proposal after a long discussion.",
             "gl": "the committee  approved the proposal after a long debate.",  # case / space only: not a pair
             "eo": "Committee approve proposal after long debate."}
    nll = {"es": 3.0, "ca": 2.5, "gl": 1.0, "eo": 6.0}
    choice = simsim.select_candidate(base, cands, nll, base_nll=2.8)
    assert (choice.pivot, choice.reason) == ("ca", "") and choice.text == cands["ca"]
    worse = simsim.select_candidate(base, cands, nll, base_nll=2.0)
    assert (worse.pivot, worse.reason) == ("ca", "less_natural_than_seed")
    same = simsim.select_candidate(base, {"gl": cands["gl"], "pt": " "}, {"gl": 1.0, "pt": 0.1}, base_nll=2.0)
    assert same.reason == "no_changed_candidate" and not same.pivot
    tie = simsim.select_candidate(base, {"b": "Another text.", "a": "Other text."}, {"a": 1.0, "b": 1.0}, 2.0)
    assert tie.pivot == "a"  # ties go to the first pivot by name: deterministic


def test_fewest_changes_selection_takes_the_natural_candidate_that_changes_least():
    # The seed and its es candidate are from the blind-read sample; the other pivots' are made up.
    base = "The civilizations in Mesopotamia, the Indus Valley and the Huanghe shared many similarities."
    cands = {"es": "The civilizations in Mesopotamia, the Indus Valley and the Huanghe shared a lot of similarities.",
             "ca": "The civilisations of Mesopotamia, the Valley of the Indus and the Huanghe shared a lot of "
                   "similarities.",
             "gl": "Civilizations in Mesopotamia, Valley Indus and Huanghe shared many likenesses.",
             "eo": "The civilizations in Mesopotamia, the Indus Valley and the Huanghe shared much similarity."}
    nll = {"es": 3.0, "ca": 2.0, "gl": 4.0, "eo": 2.5}
    assert simsim.new_bigrams(cands["es"], base) == 4  # "shared a", "a lot", "lot of", "of similarities"
    assert simsim.new_bigrams(cands["eo"], base) == 2
    assert simsim.new_bigrams(cands["ca"], base) > 4
    lm = simsim.select_candidate(base, cands, nll, base_nll=3.5)
    assert lm.pivot == "ca"  # the paper's: the lowest NLL, whatever it changed
    fewest = simsim.select_candidate(base, cands, nll, base_nll=3.5, select="fewest_changes")
    assert (fewest.pivot, fewest.reason) == ("eo", "")  # 2 new bigrams, no less natural than the seed
    strict = simsim.select_candidate(base, cands, nll, base_nll=2.2, select="fewest_changes")
    assert (strict.pivot, strict.reason) == ("ca", "")  # the only one no less natural than the seed
    none = simsim.select_candidate(base, {"gl": cands["gl"]}, nll, base_nll=3.5, select="fewest_changes")
    assert none.reason == "less_natural_than_seed"
    with pytest.raises(ValueError):
        simsim.select_candidate(base, cands, nll, base_nll=3.5, select="best")


def test_too_many_changes_keeps_a_few_words_changed_and_rejects_word_salad():
    # From the blind reading: accepted with one changed phrase; broken with a dozen.
    seed = "The spelling of the word varies significantly among historical sources."
    assert simsim.candidate_reason("The spelling of the word varies significantly between historical sources.",
                                   seed) is None
    seed2 = "And fourth, ancient library catalogues predating Andronicus' intervention list an Aristotelian corpus."
    salad = ("And fourth library, ancient the catalogues that predate Andronicus' list of intervention a quite "
             "a lot of Aristotelian corpus.")
    assert simsim.too_many_changes_reason(salad, seed2) == "too_many_changes"
    assert simsim.too_many_changes_reason(salad, seed2, max_new_bigrams=-1) is None  # no bound
    assert simsim.candidate_reason(salad, seed2, checks=("too_many_changes",), max_new_bigrams=50) is None


def test_token_offsets_follow_the_text():
    text = "Smith's book, \"Rivers\" (1990), sold well."
    tokens = ["Smith", "'s", "book", ",", "\"", "Rivers", "\"", "(", "1990", ")", ",", "sold", "well", "."]
    spans = simsim.token_offsets(text, tokens)
    assert [text[a:b] for a, b in spans] == tokens
    assert simsim.token_offsets(text, ["Smith", "missing"]) is None


def test_well_formed_flags_the_debris_a_removal_leaves():
    assert simsim.well_formed("The river flows north into the lake.")
    assert not simsim.well_formed("The river flows , , north.")
    assert not simsim.well_formed("The river flows north and.")
    assert not simsim.well_formed("It is present in all developed animals, as well as.")  # round 10b
    assert not simsim.well_formed("The river () flows north.")
    # A defect the original already had does not count against the edit.
    assert simsim.well_formed("He said , it rained.", "He said , it rained heavily.")


@pytest.fixture(scope="module")
def annotator():
    from miners.nlp.annotators import make_annotator
    return make_annotator("spacy")


def _wikipedia_sentences(n):
    """Real Wikipedia sentences: the complex sides of WikiSplit's tune split (ASCII, 12-40 words)."""
    out = []
    with open(TUNE, encoding="utf-8") as f:
        for line in f:
            s = line.split("\t")[0].strip()
            if 12 <= len(s.split()) <= 40 and s.endswith(" .") and re.fullmatch(r"[\x20-\x7e]+", s):
                out.append(s)
            if len(out) >= n:
                break
    return out


def test_dropping_on_real_wikipedia_sentences_stays_well_formed_and_bounded(annotator):
    sentences = _wikipedia_sentences(120)
    assert len(sentences) >= 100
    parses = annotator.parse(sentences)
    changed = errors = 0
    for text, parse in zip(sentences, parses):
        if isinstance(parse, Exception):  # e.g. spaCy finds two sentences in one: the job skips these
            errors += 1
            continue
        new, dropped = simsim.drop_phrases(text, parse, seed=13, key=text)
        again = simsim.drop_phrases(text, parse, seed=13, key=text)
        assert again == (new, dropped)  # seeded: the same choice every time
        if not dropped:
            assert new == text
            continue
        changed += 1
        assert len(dropped) <= simsim.MAX_DROPS
        assert simsim.well_formed(new, text), (text, new)
        assert new.endswith(".")
        removed = len(text.split()) - len(new.split())
        assert 0 < removed <= simsim.MAX_DROP_SHARE * len(text.split()) + 1, (text, new)
        for p in dropped:  # what went is a subtree of one of the four relations
            assert p.relation in simsim.DROPPABLE_RELATIONS
        # The words kept are the sentence's words, in order (nothing invented).
        kept = iter(re.findall(r"\w+", text.lower()))  # (the first word may be re-capitalised)
        assert all(any(w == k for k in kept) for w in re.findall(r"\w+", new.lower())), (text, new)
    assert errors <= 0.1 * len(sentences)
    assert changed >= 0.5 * len(sentences)


def test_dropping_removes_a_prepositional_phrase_and_repairs_the_junction(annotator):
    text = "In 1990, the company moved its headquarters to Boston after a long dispute with the city."
    parse = annotator.parse([text])[0]
    phrases = simsim.droppable_phrases(parse, text)
    spans = [text[simsim.token_offsets(text, [t.text for t in parse.tokens])[p.start][0]:
                  simsim.token_offsets(text, [t.text for t in parse.tokens])[p.end - 1][1]] for p in phrases]
    assert "after a long dispute with the city" in spans or "with the city" in spans
    other = "The name refers to a small river in the north of the country."
    parse2 = annotator.parse([other])[0]
    offs = simsim.token_offsets(other, [t.text for t in parse2.tokens])
    spans2 = [other[offs[p.start][0]:offs[p.end - 1][1]] for p in simsim.droppable_phrases(parse2, other)]
    assert not any(s.startswith("to a small river") for s in spans2)  # right after its verb: an argument
    # (object_complement, on by default since issue 51, keeps "with the city" after "dispute": left out here)
    checks = tuple(c for c in simsim.DEFAULT_DROP_CHECKS if c != "object_complement")
    dropped = [simsim.drop_phrases(text, parse, seed=s, key=text, checks=checks)[0] for s in range(12)]
    assert any(d != text for d in dropped)
    for d in dropped:
        assert simsim.well_formed(d, text) and d.endswith(".") and not d.startswith(","), d


def test_dropping_never_takes_a_numbers_phrase(annotator):
    # The blind reading: "capital from 1817 to 1819" lost "to 1819"; "one and a half to two years" lost "to".
    text = "St. Stephens, now abandoned, served as the territorial capital from 1817 to 1819 after a long dispute."
    parse = annotator.parse([text])[0]
    offs = simsim.token_offsets(text, [t.text for t in parse.tokens])
    spans = [text[offs[p.start][0]:offs[p.end - 1][1]] for p in simsim.droppable_phrases(parse, text)]
    assert not any(re.search(r"\d", s) for s in spans), spans
    assert spans  # the other phrases may still go


def test_dropping_keeps_kinds_degrees_and_frequencies(annotator):
    # The blind reading: "Rational egoism" -> "Egoism", "Natural gas" -> "The gas", "so externally
    # driven rather than" -> "so driven than", "generally achieve" -> "achieve".
    for text, kept in [
            ("Rational egoism is the view that rationality consists in acting in one's own interest.", "Rational"),
            ("The musculoskeletal system is strong enough to support the head and the body.", "musculoskeletal"),
            ("Why is development so externally driven rather than having an internal basis?", "rather"),
            ("Aardwolves generally achieve maturity at one and a half to two years of age.", "generally"),
            ("The fort was abandoned in approximately 1850 after a long siege by the army.", "approximately")]:
        parse = annotator.parse([text])[0]
        offs = simsim.token_offsets(text, [t.text for t in parse.tokens])
        spans = [text[offs[p.start][0]:offs[p.end - 1][1]] for p in simsim.droppable_phrases(parse, text)]
        assert not any(kept in s.split() for s in spans), (text, spans)
    text = "The large region was crossed by a long road in the north."
    parse = annotator.parse([text])[0]
    offs = simsim.token_offsets(text, [t.text for t in parse.tokens])
    spans = [text[offs[p.start][0]:offs[p.end - 1][1]] for p in simsim.droppable_phrases(parse, text)]
    assert "large" in spans or "long" in spans  # a degree may still go (when amod is asked for)


def test_default_dropping_takes_no_adjective_nor_adverb(annotator):
    # The second blind reading: "the front legs" -> "the legs", "do not use tones phonemically". (Since issue 51
    # no prepositional phrase either by default: `--drop_relations obl,nmod` asks for them.)
    text = "In aquatic species, the front legs are slowly modified into flippers during a long period."
    parse = annotator.parse([text])[0]
    offs = simsim.token_offsets(text, [t.text for t in parse.tokens])
    assert not simsim.droppable_phrases(parse, text, relations=simsim.DEFAULT_DROP_RELATIONS)
    asked = simsim.droppable_phrases(parse, text, relations=("obl", "nmod"))
    assert asked and {p.relation for p in asked} <= {"obl", "nmod"}
    every = [text[offs[p.start][0]:offs[p.end - 1][1]] for p in simsim.droppable_phrases(parse, text)]
    assert "slowly" in every or "front" in every  # amod / advmod only when asked for


def test_a_wikisplit_row_whose_split_side_adds_content_is_no_seed():
    # WikiSplit tune rows, as the second blind reading met them (s2 read as invented content).
    assert simsim.split_adds_content(
        "Jeff Hickman was born in Alva, Oklahoma on November 28, 1973, to Steve and Cathy (Leamon) Hickman.",
        "Jeff Hickman was born in Alva, Oklahoma on November 28, 1973, and raised in the Cherokee and Dacoma "
        "areas. His parents are Steve and Cathy (Leamon) Hickman.")
    assert simsim.split_adds_content(  # a number the complex side lacks
        "In the 2011 Census the population was not measured separately.",
        "In the 2011 Census the population was 136. It was not measured separately.")
    assert not simsim.split_adds_content(
        "Aa originated from a word meaning water, and it can be seen in German.",
        "Aa originated from a word meaning water. It can be seen in German.")
    # a name the complex side lacks (round 7b: the split side names a city the complex sentence does not)
    complex_ = "Hülchrath is a district in North Rhine - Westphalia, Germany known for its castle Schloss Hülchrath."
    split = ("Hülchrath is district of the city of Grevenbroich in North Rhine - Westphalia, Germany. "
             "It is known for its castle Schloss Hülchrath.")
    assert simsim.new_names(complex_, split) == ["Grevenbroich"]
    assert simsim.split_adds_content(complex_, split)
    # a sentence's first word is no name; a name the complex side has is none either
    assert simsim.new_names("Isac said the poems were weak, and Emil Isac panned them.",
                            "Emil Isac panned the poems. Isac said they were weak.") == []


def test_different_seeds_choose_different_phrases_somewhere(annotator):
    sentences = _wikipedia_sentences(40)
    parses = annotator.parse(sentences)
    differ = sum(1 for t, p in zip(sentences, parses) if not isinstance(p, Exception)
                 and simsim.drop_phrases(t, p, seed=1, key=t)[0] != simsim.drop_phrases(t, p, seed=2, key=t)[0])
    assert differ > 0


def test_selection_never_takes_the_complex_side_of_a_pair():
    # An aligned pair's steps run on its simple side; a back-translation that restores the complex
    # side is no simplification, however natural (s1 skips it too).
    base, complex_ = "The cat sat on the mat.", "The black cat sat quietly on the old mat."
    cands = {"es": "the black cat sat quietly on the old mat.", "ca": "The cat was sitting on the mat."}
    nll = {"es": 1.0, "ca": 2.0}
    choice = simsim.select_candidate(base, cands, nll, 3.0, complex_)
    assert choice.pivot == "ca" and not choice.reason
    only = simsim.select_candidate(base, {"es": cands["es"]}, {"es": 1.0}, 3.0, complex_)
    assert only.reason == "no_changed_candidate"


def test_length_bounds_at_intake_are_cheap_and_name_the_bound():
    giant = " ".join(["alpha"] * 400000)  # 2.4 MB: refused on its length in characters, without a split
    assert simsim.length_reason(giant) == "too_many_chars"
    assert simsim.length_reason(" ".join(["w"] * (simsim.PAIR_SEED_MAX_WORDS + 1)), max_chars=10**6) == "too_long"
    assert simsim.length_reason("Too short.") == "too_short"
    assert simsim.length_reason("The committee approved the proposal after a long debate.") is None


# Issue 34: back-translations Apertium wrote for seeds of the bundled sample, and what each check says.
GARBLED = [
    # (seed, candidate, the first check that rejects it)
    ("In 2001, The Coup released '' Party Music '' on 75 Ark.",
     "In 2001, The Swipe released '' Music of Party '' on 75 Ark.", "entity_changed"),
    ("The Heath Brothers recorded the album in Tirana.", "The Brothers of Heath recorded the album in Tyrant.",
     "entity_changed"),
    ("Women make up 70% of the country's lawyers and 60% of its judges.",
     "Women make up 70% of the lawyers of the country and 60% of the his judges.", "pronoun_changed"),
    ("Women make up 70% of the country's lawyers and 60% of its judges.",
     "Women make up 70% of the lawyers of the country and 60% of the their judges.", "broken_sequence"),
    ("The museum bought a house in the town.", "The museum bought a the house in the town.", "broken_sequence"),
    ("The museum is in the old town.", "The museum is. The old town.", "broken_sequence"),
    ("It read Law at the University of Melbourne from 1977 to 1980.",
     "It read Law at the University of Melbourne since 1977 at 1980.", "entity_changed"),  # "from 1977" lost
    ("It read Law at the University of Melbourne from 1977 to 1980.",
     "It read Law at the University of Melbourne from 1977 at 1980.", "entity_changed"),  # "to 1980" lost
    # The blind reading: "colonizing the territory from 1483" came back as "of 1483".
    ("Portugal ruled Angola for 400 years, colonizing the territory from 1483 until independence in 1975.",
     "Portugal ruled Angola for 400 years, colonizing the territory of 1483 until independence in 1975.",
     "entity_changed"),
    ("The station was opened in March 1897.", "The station was opened at March 1897.", "broken_sequence"),
    # a name's particle translated (blind readings, rounds 8 and 9: read broken)
    ("In 1508, the Spanish Crown appointed Alonso de Ojeda as its first Governor of Aruba.",
     "In 1508, the Spanish Crown appointed Alonso of Ojeda as its first Governor of Aruba.", "entity_changed"),
    ("A victory by Rodney's fleet over the French Admiral de Grasse frustrated the hopes of France.",
     "A victory by Rodney's fleet over the French Admiral of Grasse thwarted the hopes of France.", "entity_changed"),
    ("He will coordinate the efforts.", "It will coordinate the efforts.", "pronoun_changed"),
    ("Pickens was born in Bucks County, Pennsylvania.", "Pickens Was born in Bucks County, Pennsylvania.",
     "entity_changed"),
    ("The track is now High Park Avenue.", "The clue is now Avenue of Tall Park.", "entity_changed"),
    ("In fact, they live as monogamous pairs with their young.",
     "In fact, they live monogamous even with the his new.", "pronoun_changed"),
    ("In fact, they live as monogamous pairs with their young.",
     "In fact, they live so monogamous pairs with his youngsters.", "pronoun_changed"),
    ("The site is currently occupied by NASA's Advanced Technology Development Center (ATDC), a research center.",
     "The place is at present occupied by NASA is. The ATDC the project is a NASA - development center.",
     "entity_changed"),
    ("The Front for the Liberation of the Enclave of Cabinda-Armed Forces of Cabinda (FLEC-FAC) fought on.",
     "The Front for the Liberation of the Enclave of Cabinda-Armed Forces of Cabinda (FLEC-*FAC) fought on.",
     "apertium_mark"),
    ("Cotton was grown there during the 1850s and 1860s.", "Cotton was grown there during the 1850*s and 1860*s.",
     "apertium_mark"),
    ("He went to the town to buy bread.", "He went to to the town to buy bread.", "broken_sequence"),
    ("Upon her death, Apollo transformed her into a sun-loving herb.",
     "At his death, Apollo transformed him at an only-wanting to herb.", "pronoun_changed"),
    ("The band recorded their first album in 1990.", "The band recorded his first album in 1990.",
     "pronoun_changed"),
    ("The figure was 1,000 in 1990.", "The figure was 100 in 1990.", "entity_changed"),
    # The negation Apertium turns into "any" / "or ... or" (the sample, and the blind reading's).
    ("No human being can write fast enough to keep up.", "Any human being can write quite fast to keep up.",
     "negation_changed"),
    ("No visas are needed for Dutch citizens, only a passport.", "Any visa is needed for Dutch citizens, only a passport.",
     "negation_changed"),
    ("Neither the calculations of significance nor the estimated treatment effects can be taken at face value.",
     "Or the calculuses of the significance or the effects of treatment wanted can be taken to the letter.",
     "negation_changed"),
    ("The orbit posed no further hazard to the crew.", "The orbit posed any further danger to the crew.",
     "negation_changed"),
    # a quotation, title, term or gloss changed (rounds 9 and 10b)
    ("The word is from ager, \"field\", and cultūra, \"cultivation\".",
     "The word is from ager, \"area\", and cultūra, \"cultivation\".", "quote_changed"),
    ("They calculate the declination of the “epoch of date” to the instant.",
     "They calculate the declination of the “period to date” to the instant.", "quote_changed"),
]
FLUENT = [
    ("The first known use of the word in a political sense appeared in a pamphlet.",
     "The first known use of the word in a political sense appeared in a leaflet."),
    ("In 2001, The Coup released '' Party Music '' on 75 Ark.",
     "In 2001, The Coup released '' Party Music '' at 75 Ark."),
    ('Jay wrote that the taxes were "the price of liberty".', 'Jay wrote that taxes were "the price of liberty."'),
    ("Apollo transformed her into a herb after her death.", "After her death, Apollo transformed her into a herb."),
    ("New York is large. It has 8 million people.", "New York is big. It has 8 million inhabitants."),
    ("I think that the answer is right.", "I believe that the answer is correct."),
    ("It was, as it is.", "It was, as it is."),  # a seed's own sequence is not the candidate's fault
    ("He met her in 1990 and married her.", "He met her in 1990 and he married her."),
    ("The meeting began at 1800 hours in May.", "The meeting started at 1800 hours in May."),
    ("The ions hit a target at the superHILAC accelerator at Berkeley, California.",
     "The ions hit a target in the superHILAC accelerator in Berkeley, California."),
    ("Mangini recorded his own interpretations of them later.", "Mangini recorded his own readings of them later on."),
    ("Pickens was born in Bucks County. He was the son of Andrew Pickens, Sr.",
     "Pickens was born in Bucks County. He was the son of Andrew Pickens, Sr."),
    ("The band of Heath Brothers played in 1990.", "Heath Brothers's band played in 1990."),
]


@pytest.mark.parametrize("seed,candidate,reason", GARBLED)
def test_candidate_checks_reject_apertiums_garble_with_their_reason(seed, candidate, reason):
    assert simsim.candidate_reason(candidate, seed) == reason
    assert simsim.candidate_reason(seed, seed) is None  # the seed itself passes


@pytest.mark.parametrize("seed,candidate", FLUENT)
def test_candidate_checks_keep_fluent_rewrites_that_keep_names_and_numbers(seed, candidate):
    assert simsim.candidate_reason(candidate, seed) is None


def test_seed_entities_leave_sentence_starts_and_split_possessives():
    numbers, spans = simsim.seed_entities(
        "The site is occupied by NASA's Advanced Technology Development Center (ATDC). In 2001 I left Tirana.")
    assert numbers == ["2001"]
    assert spans == ["ATDC", "Advanced Technology Development Center", "NASA", "Tirana"]  # no "The", "In", "I"
    assert simsim.candidate_reason("A text.", "A text.", checks=()) is None
    assert simsim.candidate_reason("The his.", "A text.", checks=("apertium_mark",)) is None


def test_is_clause_on_real_parses(annotator):
    clause, fragment = annotator.parse(["It was destroyed in 1990.", "A list of the members of the band."])
    assert simsim.is_clause(clause) and not simsim.is_clause(fragment)


# --------------------------------------------------------------------------- WordNet substitution and sense (issue 42)

_HAS_WORDNET = pathlib.Path("/usr/share/wordnet/index.noun").is_file()
needs_wordnet = pytest.mark.skipif(not _HAS_WORDNET, reason="Debian's wordnet-base is not installed")


@pytest.fixture(scope="module")
def wn():
    from miners.simsim.wordnet import WordNet
    return WordNet.load()


def _counted():
    import collections
    counts = collections.Counter()
    return counts, lambda name, n=1: counts.update({name: n})


@needs_wordnet
def test_wordnet_substitution_replaces_a_word_by_a_frequent_synonym_inflected(annotator, wn):
    text = "The physicians purchased three automobiles in Paris."
    parse = annotator.parse([text])[0]
    counts, inc = _counted()
    new, applied = simsim.wordnet_substitute(text, parse, wn, lambda texts: [1.0] * len(texts),
                                             max_substitutions=5, inc=inc)
    assert new == "The doctors bought three cars in Paris."
    assert applied == ["physicians -> doctors", "purchased -> bought", "automobiles -> cars"]
    assert counts["substituted"] == 3 and counts["proper_noun"] == 1 and counts["number"] == 1
    # at most max_substitutions words, in sentence order
    new, applied = simsim.wordnet_substitute(text, parse, wn, lambda texts: [1.0] * len(texts), max_substitutions=1)
    assert new == "The doctors purchased three automobiles in Paris."


@needs_wordnet
def test_wordnet_substitution_keeps_names_and_what_the_language_model_finds_less_natural(annotator, wn):
    text = "The physicians of the Automobile Club met in Paris."
    parse = annotator.parse([text])[0]
    counts, inc = _counted()
    # every trial scores worse than the sentence: nothing replaced, each word counted lm_rejected
    scores = iter([1.0] + [2.0] * 20)
    new, applied = simsim.wordnet_substitute(text, parse, wn, lambda texts: [next(scores) for _ in texts], inc=inc)
    assert new == text and applied == [] and counts["lm_rejected"] >= 1 and counts["substituted"] == 0
    assert "Automobile" in new and counts["in_name"] + counts["proper_noun"] >= 2
    counts, inc = _counted()
    new, _ = simsim.wordnet_substitute(text, parse, wn, lambda texts: [1.0] * len(texts), inc=inc)
    assert "Automobile Club" in new and "Paris" in new and new.startswith("The doctors")


@needs_wordnet
def test_sense_changed_flags_a_new_word_unrelated_to_the_lost_one(wn):
    # Issue 34's readings: "cola" -> "glue", "spacecraft" -> "aircraft" (another sense of the pivot's word)
    assert simsim.sense_changed_reason("Phosphoric acid is a component of glue drinks.",
                                       "Phosphoric acid is a component of cola drinks.", wn) == "sense_changed"
    assert simsim.sense_changed_words("At 68 hours, the aircraft went behind the Moon.",
                                      "At 68 hours, the spacecraft went behind the Moon.", wn) == ["aircraft"]
    # synonyms, inflections, hypernyms and derivations pass; so does a function word or a dropped word
    for seed, candidate in (("The word appeared in a pamphlet.", "The word appeared in a leaflet."),
                            ("He bought two cars.", "He buys two cars."),
                            ("She drove a cab to work.", "She drove a car to work."),
                            ("aspects of agriculture sciences", "aspects of agricultural sciences"),
                            ("It may be considered an achievement.", "It can be considered an achievement."),
                            ("Apollo played his lyre in the temple.", "Apollo played his lyre.")):
        assert simsim.sense_changed_reason(candidate, seed, wn) is None, candidate


@pytest.mark.parametrize("seed, candidate, reason", [
    # Apertium restores a Romance dropped subject as "it" (blind-judged rounds 4-6, docs/simsim_judged/)
    ("In 1956, Tarkovsky directed his first student short film.",
     "In 1956, Tarkovsky it directed his first student short film.", "pronoun_inserted"),
    ("Apollo 8 took three days to travel to the Moon.", "Apollo 8 it took three days to travel to the Moon.",
     "pronoun_inserted"),
    ("Why is development so externally driven?", "Why it is development so externally driven?", "pronoun_inserted"),
    ("Observe that steps 4, 5 and 6 are repeated.", "It observes that steps 4, 5 and 6 are repeated.",
     "pronoun_inserted"),
    # an "it" the seed has where the candidate has it, or moved within a replaced stretch, is no insertion
    ("He said it was fine.", "He said that it was fine.", None),
    ("The band released it in 1995.", "The group released it in 1995.", None),
    ("It was built in 1900.", "It was constructed in 1900.", None),
])
def test_pronoun_inserted(seed, candidate, reason):
    assert simsim.pronoun_inserted_reason(candidate, seed) == reason
    assert simsim.candidate_reason(candidate, seed) == reason


@pytest.mark.parametrize("seed, candidate, restored, counts", [
    # blind-judged records of rounds 7, 7b and 8's draw (docs/simsim_judged/), each read broken or a slip
    ("Schools were scarce between World War I and World War II.",
     "The schools were scarce among World War I and World War II.",
     "Schools were scarce between World War I and World War II.", {"article": 1, "preposition": 1}),
    ("Use of the video arraignment process addresses the problems associated with having to transport defendants.",
     "Use of the video arraignment the process addresses the problems associated with having to transport accused.",
     "Use of the video arraignment process addresses the problems associated with having to transport accused.",
     {"article": 1}),
    ("Extremely pure sodium can be produced through the thermal decomposition of sodium azide.",
     "Extremely the pure sodium can be produced through the thermal decomposition of sodium azide.",
     "Extremely pure sodium can be produced through the thermal decomposition of sodium azide.", {"article": 1}),
    ("Aikido makes use of body movement (tai sabaki) to blend with uke.",
     "The aikido makes use of movement of body (tai sabaki) to blend with uke.",
     "Aikido makes use of body movement (tai sabaki) to blend with uke.", {"noun_order": 1, "article": 1}),
    ("For decades, political power has been concentrated in the presidency.",
     "For decades, the political power has been concentrated in the presidency.",
     "For decades, political power has been concentrated in the presidency.", {"article": 1}),
    ("That leads to the formation of subtropical climate on most foothills and plains of the country.",
     "That leads to the formation of subtropical climate on most of foothills and plains of the land.",
     "That leads to the formation of subtropical climate on most foothills and plains of the land.", {"of": 1}),
    ("By 1903, only 2,980 African Americans were registered in Alabama, although at least 74,000 were literate.",
     "By 1903, only 2,980 African Americans were registered in Alabama, although at least 74,000 was literate.",
     "By 1903, only 2,980 African Americans were registered in Alabama, although at least 74,000 were literate.",
     {"agreement": 1}),
    ("Nevertheless, CH3COOH is both an Arrhenius and a Brønsted-Lowry acid.",
     "Nevertheless, CH3COOH is both a Arrhenius and a Brønsted-Lowry acid.",
     "Nevertheless, CH3COOH is both an Arrhenius and a Brønsted-Lowry acid.", {"agreement": 1}),
    ("Friedrich Nietzsche argued that a fusion of the two was most desirable.",
     "Friedrich Nietzsche argued that a fusion of the two was more desirable.",
     "Friedrich Nietzsche argued that a fusion of the two was most desirable.", {"agreement": 1}),
    ("In aquatic species, the front legs are modified into flippers.",
     "In aquatic species, the front legs are modified in flippers.",
     "In aquatic species, the front legs are modified into flippers.", {"preposition": 1}),
    ("At exactly 61 hours after launch, about 24200 mi from the Moon, the crew burned the RCS for 11 seconds.",
     "In exactly 61 hours after launch, on 24200 mi from the Moon, the crew burned the RCS.",
     "At exactly 61 hours after launch, about 24200 mi from the Moon, the crew burned the RCS.", {"preposition": 2}),
    ("The bodies of the statues are associated with the cult.", "The body of the statues is associated with the cult.",
     "The bodies of the statues are associated with the cult.", {"number": 1, "agreement": 1}),
    ("Metazoans do not include the sponges, which have undifferentiated cells.",
     "Metazoans do not include the sponges, that has undifferentiated cells.",
     "Metazoans do not include the sponges, which have undifferentiated cells.", {"relative": 1, "agreement": 1}),
    ("Those who oppose abortion often maintain that an embryo is a human.",
     "Those who oppose abortion often maintains that an embryo is a human.",
     "Those who oppose abortion often maintain that an embryo is a human.", {"number": 1}),
    # noun_order: a noun-of-noun calque of the seed's compound, back in the seed's order
    ("Endangered marine species include seals, sea lions, turtles, and whales.",
     "Endangered marine species include seals, lions of sea, turtles, and whales.",
     "Endangered marine species include seals, sea lions, turtles, and whales.", {"noun_order": 1}),
    ("This group of islands is sometimes called the ABC islands.",
     "This group of islands is sometimes called the islands of the ABC.",
     "This group of islands is sometimes called the ABC islands.", {"noun_order": 1}),
    ("Shays' Rebellion was an uprising against the state court system.",
     "Shays' Rebellion was an uprising against the system of state court.",
     "Shays' Rebellion was an uprising against the state court system.", {"noun_order": 1}),
    ("A random effects model is used when the treatments are not fixed.",
     "Model of random effects is used when the treatments are not fixed.",
     "Random effects model is used when the treatments are not fixed.", {"noun_order": 1}),
    ('The term "lynching" originated in Virginia.', 'The lynching "of term" originated in Virginia.',
     'The term "lynching" originated in Virginia.', {"noun_order": 1}),
    # possessive, conjunction, punctuation, and the article's other swaps (added after round 9)
    ("John Dee followed Agrippa's occult tradition.", "John Dee followed Agrippa occult tradition.",
     "John Dee followed Agrippa's occult tradition.", {"possessive": 1}),
    ("Spain joined the war in 1779, as an ally of France.", "Spain joined the war in 1779, like an ally of France.",
     "Spain joined the war in 1779, as an ally of France.", {"conjunction": 1}),
    ("The soul was a simpler concept than it is for us.", "The soul was a simpler concept that it is for us.",
     "The soul was a simpler concept than it is for us.", {"conjunction": 1}),
    ("Care must be taken with cyclic data, such as phases or angles.",
     "Care must be taken with cyclic data, as phases or angles.",
     "Care must be taken with cyclic data, such as phases or angles.", {"conjunction": 1}),
    ("A few vertebrates, such as the sturgeon, retain it.", "A few vertebrates, like the sturgeon, retain it.",
     "A few vertebrates, such as the sturgeon, retain it.", {"conjunction": 1}),
    ("Angola's capital, Luanda, lies on the coast.", "the capital of Angola , Luanda, lies on the coast .",
     "The capital of Angola, Luanda, lies on the coast.", {"punctuation": 3}),
    ("Alternative names are '' Camtozi '' , '' Kantozi ''.", "Other names are '' Camtozi '' , '' Kantozi ''.",
     "Other names are '' Camtozi '' , '' Kantozi ''.", {}),  # a tokenized seed keeps its spaces
    ("In an uncharged atom, the atomic number is equal to the number of electrons.",
     "In one uncharged atom, the atomic number is equal to the number of electrons.",
     "In an uncharged atom, the atomic number is equal to the number of electrons.", {"article": 1}),
    ("He established a library in the Lyceum.", "He established library in the Lyceum.",
     "He established a library in the Lyceum.", {"article": 1}),
    ("It was synthesized using the reaction given above.", "It was synthesized using the reaction given on.",
     "It was synthesized using the reaction given above.", {"preposition": 1}),
    ("It was claimed by the Province of Georgia from 1767 onwards.",
     "It was claimed by the Province of Georgia from 1767 down.",
     "It was claimed by the Province of Georgia from 1767 onwards.", {"preposition": 1}),
    # not one compound in the seed, or not where the seed has it: stays
    ("It has campuses in Alaska Anchorage, University and Juneau.",
     "It has campuses in University of Alaska Anchorage and Juneau.",
     "It has campuses in University of Alaska Anchorage and Juneau.", {}),
    ("Data transmission is slow, so we omit signs.", "We omit transmission of data, so it is slow.",
     "We omit transmission of data, so it is slow.", {}),
    # a preposition that goes with a changed content word stays with it
    ("An endoskeleton derived from the mesoderm is present.", "A endoskeleton derivative of the mesoderm is present.",
     "An endoskeleton derivative of the mesoderm is present.", {"agreement": 1}),
    # a word that replaces a content word, or stands where the seed's words were not side by side, stays
    ("His reign began in 1990.", "The reign began in 1990.", "The reign began in 1990.", {}),
    ("He was elected by county.", "He was elected for the county.", "He was elected for the county.", {}),
    ('"Schools" were scarce.', '"The schools" were scarce.', '"The schools" were scarce.', {}),
    ("Gold was found.", "Gold was found.", "Gold was found.", {}),
    ("He sailed aboard the ship.", "He sailed on the ship.", "He sailed on the ship.", {}),  # a simpler word
])
def test_restore_function_words_puts_back_what_the_back_translation_changed_without_simplifying(
        seed, candidate, restored, counts):
    assert simsim.restore_function_words(candidate, seed) == (restored, counts)


def test_restore_function_words_does_only_the_kinds_asked_for():
    seed, candidate = "Schools were scarce in 1920.", "The schools was scarce on 1920."
    assert simsim.restore_function_words(candidate, seed) == ("Schools were scarce in 1920.",
                                                              {"article": 1, "agreement": 1, "preposition": 1})
    assert simsim.restore_function_words(candidate, seed, ("preposition",)) == ("The schools was scarce in 1920.",
                                                                                {"preposition": 1})
    assert simsim.restore_function_words(candidate, seed, ()) == (candidate, {})
    # without `number`, the verb stays when the candidate changed its subject's number too
    seed, candidate = "The bodies of the statues are associated.", "The body of the statues is associated."
    assert simsim.restore_function_words(candidate, seed, ("agreement",)) == (candidate, {})


@needs_wordnet
def test_pos_changed_flags_a_word_that_cannot_stand_in_the_replaced_words_part_of_speech(wn):
    # Issue 51's tuning text: "The Kindle 2 features a display" -> "... characteristics a display" (a verb by a noun)
    from miners.nlp.annotation import Token

    def toks(*pairs):
        return [Token(text=w, lemma=w.lower(), upos=u, xpos="", head=0, deprel="") for w, u in pairs]

    seed = toks(("The", "DET"), ("reader", "NOUN"), ("features", "VERB"), ("a", "DET"), ("display", "NOUN"),
                (".", "PUNCT"))
    assert simsim.pos_changed_words(seed, "The reader characteristics a display.", wn) == ["characteristics"]
    # a word that can be a verb, a changed function word, a noun for a noun and a word WordNet lacks are not flagged
    for candidate in ("The reader has a display.", "The reader features the display.",
                      "The reader features a screen.", "The reader zorbles a display."):
        assert simsim.pos_changed_words(seed, candidate, wn) == [], candidate
