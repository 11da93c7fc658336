"""DiscoFuse rules on real sentences.

Sources: the paper's Table 1 examples (Geva et al. 2019, from English
Wikipedia) and sentences of the bundled English Wikipedia sample
(samples/wikipedia/enwiki-...-shortened.bz2, CC BY-SA; see SOURCES.md).
Parsed with the real spaCy en_core_web_sm through the spacy annotator.
"""
import pytest

from miners.discofuse import rules as discofuse
from miners.discofuse import coref
from miners.nlp.annotation import AnnotatedDocument, unparsed_sentence
from miners.nlp.annotators import SpacyAnnotator
from miners.text.segmenter import split_sentences
from schemas.records import DiscourseType as DT


@pytest.fixture(scope="module")
def annotator():
    return SpacyAnnotator()


def mine(annotator, text, options=discofuse.Options()):
    sents = split_sentences(text)
    parsed = annotator.parse(sents)
    doc = AnnotatedDocument("doc1", "wikipedia", tuple(parsed), (0,) * len(parsed), coref.resolve(parsed),
                            "builtin", "spacy")
    counts = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n

    examples, drops = discofuse.mine_document(doc, options, inc)
    return examples, drops, counts


def only(examples, kind):
    found = [e for e in examples if e.discourse_type == kind]
    assert len(found) == 1, [(e.discourse_type, e.incoherent_first_sentence, e.incoherent_second_sentence) for e in examples]
    e = found[0]
    return e.incoherent_first_sentence, e.incoherent_second_sentence, e.connective_string, e.has_coref_type_pronoun


# --- the paper's Table 1 ----------------------------------------------------

def test_pair_conn_table1(annotator):
    ex, _, counts = mine(annotator, "Hebden Bridge is a popular place to live. However, space is limited due to "
                                    "the steep valleys and lack of flat land.")
    assert only(ex, DT.PAIR_CONN) == ("Hebden Bridge is a popular place to live .",
                                      "Space is limited due to the steep valleys and lack of flat land .",
                                      "however", 0.0)
    e = ex[0]
    assert (e.coherent_first_sentence, e.coherent_second_sentence) == (
        "Hebden Bridge is a popular place to live .",
        "However , space is limited due to the steep valleys and lack of flat land .")
    assert (e.doc_id, e.sentence_index, e.rule, e.source) == ("doc1", 0, "pair_conn", "wikipedia")
    assert counts == {"passed": 1, "type:PAIR_CONN": 1}


def test_vp_coord_table1(annotator):
    ex, _, _ = mine(annotator, "The Sharks started the year 0-4, yet recovered to claim sixth spot.")
    assert only(ex, DT.SINGLE_VP_COORD) == ("The Sharks started the year 0 - 4 .",
                                            "The Sharks recovered to claim sixth spot .", "yet", 0.0)


def test_relative_table1(annotator):
    ex, _, _ = mine(annotator, "Kubler, who retired from cycling in 1957, remained a revered figure in the "
                               "wealthy alpine nation.")
    e = ex[0]
    assert only(ex, DT.SINGLE_RELATIVE) == ("Kubler remained a revered figure in the wealthy alpine nation .",
                                            "Kubler retired from cycling in 1957 .", "", 0.0)
    assert (e.coherent_first_sentence, e.coherent_second_sentence) == (
        "Kubler , who retired from cycling in 1957 , remained a revered figure in the wealthy alpine nation .", "")


def test_cataphora_issue_example(annotator):
    ex, _, _ = mine(annotator, "Stating that the election was fraudulent, Walker rejected the results of the count.")
    assert only(ex, DT.SINGLE_CATAPHORA) == ("Walker stated that the election was fraudulent .",
                                             "Walker rejected the results of the count .", "", 0.0)


# --- sentences of the bundled Wikipedia sample ---------------------------------

def test_cataphora_present_tense(annotator):
    ex, _, _ = mine(annotator, "Wanting to go down fighting, he charges at Achilles with his only weapon.")
    assert only(ex, DT.SINGLE_CATAPHORA) == ("He wants to go down fighting .",
                                             "He charges at Achilles with his only weapon .", "", 0.0)


def test_cataphora_skips_prepositional_participles(annotator):
    ex, _, _ = mine(annotator, "According to his cousin and contemporary, Gervas Huxley, he had an early "
                               "interest in drawing.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_CATAPHORA] == []


def test_relative_which(annotator):
    ex, _, _ = mine(annotator, "In the retinas are green rods, which are receptive to a wide range of wavelengths.")
    assert only(ex, DT.SINGLE_RELATIVE) == ("In the retinas are green rods .",
                                            "Green rods are receptive to a wide range of wavelengths .", "", 0.0)


def test_apposition(annotator):
    ex, _, _ = mine(annotator, "Sonatrach, the national oil company, is the largest company in Africa.")
    assert only(ex, DT.SINGLE_APPOSITION) == ("Sonatrach is the largest company in Africa .",
                                              "Sonatrach is the national oil company .", "", 0.0)


def test_apposition_past_tense_drops_preposition(annotator):
    ex, _, _ = mine(annotator, "The Delos sanctuary was primarily dedicated to Artemis, Apollo's twin sister.")
    assert only(ex, DT.SINGLE_APPOSITION) == ("The Delos sanctuary was primarily dedicated to Artemis .",
                                              "Artemis was Apollo 's twin sister .", "", 0.0)


def test_conn_start(annotator):
    ex, _, _ = mine(annotator, "While there is a relatively low number of professional astronomers, the field is "
                               "popular among amateurs.")
    assert only(ex, DT.SINGLE_CONN_START) == ("There is a relatively low number of professional astronomers .",
                                              "The field is popular among amateurs .", "while", 0.0)


def test_conn_inner(annotator):
    ex, _, _ = mine(annotator, "Andorra does not have its own armed forces, although there is a small "
                               "ceremonial Army.")
    assert only(ex, DT.SINGLE_CONN_INNER) == ("Andorra does not have its own armed forces .",
                                              "There is a small ceremonial Army .", "although", 0.0)


def test_conn_inner_anaphora(annotator):
    ex, _, _ = mine(annotator, "English is less commonly spoken among the general population, though it is "
                               "understood to varying degrees in the major tourist resorts.")
    assert only(ex, DT.SINGLE_CONN_INNER_ANAPHORA) == (
        "English is less commonly spoken among the general population .",
        "English is understood to varying degrees in the major tourist resorts .", "though", 1.0)


def test_s_coord(annotator):
    ex, _, _ = mine(annotator, "The Russians never fully colonized Alaska, and the colony was never very profitable.")
    assert only(ex, DT.SINGLE_S_COORD) == ("The Russians never fully colonized Alaska .",
                                           "The colony was never very profitable .", "and", 0.0)


def test_s_coord_anaphora(annotator):
    ex, _, _ = mine(annotator, "It seems that these rituals were dormant in Greece, and they were reinforced "
                               "when the Greeks migrated to Anatolia.")
    assert only(ex, DT.SINGLE_S_COORD_ANAPHORA) == (
        "It seems that these rituals were dormant in Greece .",
        "These rituals were reinforced when the Greeks migrated to Anatolia .", "and", 1.0)


def test_vp_coord_passive(annotator):
    ex, _, _ = mine(annotator, "The god tries to drown Achilles but is stopped by Hera and Hephaestus.")
    assert only(ex, DT.SINGLE_VP_COORD) == ("The god tries to drown Achilles .",
                                            "The god is stopped by Hera and Hephaestus .", "but", 0.0)


def test_pair_anaphora(annotator):
    ex, _, _ = mine(annotator, "Phlegyas was irate after the death of his daughter and burned the Temple of Apollo "
                               "at Delphi. Apollo then killed him for what he did.")
    assert only(ex, DT.PAIR_ANAPHORA) == (
        "Phlegyas was irate after the death of his daughter and burned the Temple of Apollo at Delphi .",
        "Apollo then killed Phlegyas for what he did .", "", 1.0)


def test_pair_conn_anaphora(annotator):
    ex, _, _ = mine(annotator, "Agassi compiled performances that saw him cited as one of the most charismatic "
                               "players in the history of the game. As a result, he is credited for helping to "
                               "revive the popularity of tennis during the 1990s.")
    assert only(ex, DT.PAIR_CONN_ANAPHORA) == (
        "Agassi compiled performances that saw him cited as one of the most charismatic players in the history "
        "of the game .",
        "Agassi is credited for helping to revive the popularity of tennis during the 1990s .", "as a result", 1.0)


def test_pair_none(annotator):
    text = ("The Commune was the result of an uprising in Paris after France was defeated in the Franco-Prussian "
            "War. Anarchists participated actively in the establishment of the Paris Commune.")
    ex, _, _ = mine(annotator, text)
    e, = ex
    assert e.discourse_type == DT.PAIR_NONE
    assert e.incoherent_first_sentence == e.coherent_first_sentence
    assert e.incoherent_second_sentence == e.coherent_second_sentence == \
        "Anarchists participated actively in the establishment of the Paris Commune ."


def test_ambiguous_pronoun_is_not_resolved(annotator):
    # two singular non-person nouns in the previous sentence: "its" is left alone
    ex, _, _ = mine(annotator, "The town has a small harbour near the old castle. Its main industry is fishing and "
                               "tourism during the summer.")
    assert all(e.has_coref_type_pronoun == 0.0 for e in ex)


# --- filters ---------------------------------------------------------------

def test_short_sentences_are_dropped_and_counted(annotator):
    ex, drops, counts = mine(annotator, "Kubler, who retired, remained famous.")
    assert ex == []
    assert drops == [("short_sentence", 0, "Kubler , who retired , remained famous . ")]
    assert counts == {"filtered:short_sentence": 1}
    ex, drops, _ = mine(annotator, "Kubler, who retired, remained famous.", discofuse.Options(min_tokens=0))
    assert only(ex, DT.SINGLE_RELATIVE) == ("Kubler remained famous .", "Kubler retired .", "", 0.0)


def test_non_ascii_is_dropped_unless_allowed(annotator):
    text = "Kübler, who retired from cycling in 1957, remained a revered figure in the wealthy alpine nation."
    ex, drops, counts = mine(annotator, text)
    assert (ex, [d[0] for d in drops], counts) == ([], ["non_ascii"], {"filtered:non_ascii": 1})
    ex, _, _ = mine(annotator, text, discofuse.Options(ascii_only=False))
    assert [e.discourse_type for e in ex] == [DT.SINGLE_RELATIVE]


def test_precheck():
    assert discofuse.single_may_match("He left the city in 1957 .".split()) is False
    assert discofuse.single_may_match("He left , sadly .".split()) is True
    assert discofuse.single_may_match("He left because he was ill .".split()) is True
    assert discofuse.pair_may_match("The city grew quickly .".split()) is False
    assert discofuse.pair_may_match("His city grew quickly .".split()) is True
    assert discofuse.pair_may_match("In 1990 , however , the city grew .".split()) is True


def test_unparsed_sentences_only_make_pair_none():
    s = [unparsed_sentence("The city grew quickly in the nineteenth century .".split()),
         unparsed_sentence("The harbour was built by the Romans long ago .".split())]
    doc = AnnotatedDocument("d", "wet", tuple(s), (0, 0))
    ex, drops = discofuse.mine_document(doc)
    assert [(e.discourse_type, e.incoherent_second_sentence) for e in ex] == [
        (DT.PAIR_NONE, "The harbour was built by the Romans long ago .")]


def test_inflection_uses_lemminflect():
    assert discofuse.inflect("state", "VBD") == "stated"
    assert discofuse.inflect("be", "VBD", plural=True) == "were"
    assert discofuse.inflect("be", "VBZ") == "is"
    assert discofuse.inflect("carry", "VBZ") == "carries"


def test_split_inside_brackets_is_dropped(annotator):
    ex, drops, _ = mine(annotator, "(The alkali metals can also form negative ions, known as alkalides, but these are "
                                   "little more than laboratory curiosities.)")
    assert ex == [] and [d[0] for d in drops] == ["unbalanced_brackets"]


# --- review of the sample output (sentences of the bundled Wikipedia sample) ----------

def test_he_never_resolves_to_a_non_person(annotator):
    # article "Apollo 8": the tagger types "the Moon" PERSON; "he" must not become "the Moon"
    ex, _, _ = mine(annotator, "Taking command, he ordered Anders and Lovell to get some sleep and that the rest "
                               "of the flight plan regarding observing the Moon be scrubbed. At first Anders "
                               "protested saying that he was fine, but Borman would not be swayed.",
                    discofuse.Options(min_tokens=0))
    assert [(e.discourse_type, e.incoherent_second_sentence) for e in ex] == [
        (DT.SINGLE_CATAPHORA, "He ordered Anders and Lovell to get some sleep and that the rest of the flight plan "
                              "regarding observing the Moon be scrubbed .")]


def test_candidate_after_the_pronoun_in_its_own_sentence_competes(annotator):
    # article "Abraham Lincoln": "his" is Lincoln (cataphora), not Abraham of the previous sentence
    ex, _, _ = mine(annotator, "Abraham became adept at using an axe. Tall for his age, Lincoln was also strong "
                               "and athletic.")
    assert [(e.discourse_type, e.incoherent_second_sentence, e.has_coref_type_pronoun) for e in ex] == [
        (DT.PAIR_NONE, "Tall for his age , Lincoln was also strong and athletic .", 0.0)]


def test_subordinate_clause_of_the_next_conjunct_is_not_a_split_point(annotator):
    # article "Afghanistan": "while" opens a clause of the following main clause; no clean split
    text = ('A number of government ministries are believed to be rife with corruption, and while President '
            'Karzai vowed to tackle the problem in late 2009 by stating that "individuals who are involved in '
            'corruption will have no place in the government", top government officials were stealing and '
            'misusing hundreds of millions of dollars through the Kabul Bank.')
    ex, drops, counts = mine(annotator, text)
    assert ex == []
    assert drops == [("connective_not_clause_initial", 0,
                      'A number of government ministries are believed to be rife with corruption , and while '
                      'President Karzai vowed to tackle the problem in late 2009 by stating that " individuals who '
                      'are involved in corruption will have no place in the government " , top government officials '
                      'were stealing and misusing hundreds of millions of dollars through the Kabul Bank .')]
    assert counts == {"filtered:connective_not_clause_initial": 1}


def test_vp_coord_carries_the_modal_over(annotator):
    # article "Anarchism": "may accept ... but argue" -> "... may argue"
    ex, _, _ = mine(annotator, 'Philosophical anarchism may accept the existence of a minimal state as unfortunate, '
                               'and usually temporary, "necessary evil" but argue that citizens do not have a moral '
                               'obligation to obey the state when its laws conflict with individual autonomy.')
    assert only(ex, DT.SINGLE_VP_COORD) == (
        'Philosophical anarchism may accept the existence of a minimal state as unfortunate , and usually '
        'temporary , " necessary evil " .',
        "Philosophical anarchism may argue that citizens do not have a moral obligation to obey the state when "
        "its laws conflict with individual autonomy .", "but", 0.0)


def test_coordinator_left_behind_goes_with_the_connective(annotator):
    # article "ASCII": "and so" used to leave "... against shifting , and ."
    ex, _, _ = mine(annotator, "The standards committee decided against shifting, and so ASCII required at least a "
                               "seven-bit code.")
    assert only(ex, DT.SINGLE_S_COORD) == ("The standards committee decided against shifting .",
                                           "ASCII required at least a seven - bit code .", "and so", 0.0)


def test_dangling_coordinator_from_markup_is_dropped(annotator):
    # article "Andre Agassi": markup cleaning removed the figures ("between 110 and .")
    ex, drops, counts = mine(annotator, "He often used his hard slice serve to the deuce service box to send his "
                                        "opponent off the court, followed by a shot to the opposite corner. Agassi's "
                                        "service speed when hitting a flat first serve would range between 110 and.")
    assert ex == [] and [d[0] for d in drops] == ["fragment"] and counts == {"filtered:fragment": 1}


def test_vp_coord_does_not_carry_do_to_a_finite_verb(annotator):
    # article "Alkane": "do not form ... and are insoluble" must not give "They do not are insoluble"
    ex, _, _ = mine(annotator, "For this reason they do not form hydrogen bonds and are insoluble in polar solvents "
                               "such as water.")
    assert only(ex, DT.SINGLE_VP_COORD) == ("For this reason they do not form hydrogen bonds .",
                                            "They are insoluble in polar solvents such as water .", "and", 0.0)


def test_conjoined_that_clause_is_no_s_coord(annotator):
    # article "Articles of Confederation": the second conjunct is a "that" clause, not a sentence
    ex, _, _ = mine(annotator, "They ordered a final copy prepared (the one in the National Archives), and that "
                               "delegates should inform the secretary of their authority for ratification.")
    assert [e for e in ex if e.discourse_type in (DT.SINGLE_S_COORD, DT.SINGLE_VP_COORD)] == []


def test_relative_on_a_noun_inside_a_larger_phrase_is_declined(annotator):
    # article "Association (psychology)" via "Aristotle" (issue 18): "which" may be "the power", and
    # "allowing ..." moved into the first half changed the meaning; the rule declines, counted
    ex, drops, counts = mine(annotator, "According to Aristotle, association is the power innate in a mental "
                                        "state, which operates upon the unexpressed remains of former experiences, "
                                        "allowing them to rise and be recalled.")
    assert ex == []
    assert [d[0] for d in drops] == ["relative_antecedent_ambiguous"]
    assert counts == {"filtered:relative_antecedent_ambiguous": 1}


def test_apposition_after_the_verb_keeps_the_closing_comma(annotator):
    # article "Alchemy"
    ex, _, _ = mine(annotator, "In 1845, Baron Carl Reichenbach, published his studies on Odic force, a concept with "
                               "some similarities to alchemy, but his research did not enter the mainstream of "
                               "scientific discussion.")
    assert only(ex, DT.SINGLE_APPOSITION) == (
        "In 1845 , Baron Carl Reichenbach , published his studies on Odic force , but his research did not enter "
        "the mainstream of scientific discussion .", "Odic force was a concept with some similarities to alchemy .",
        "", 0.0)


def test_apposition_to_a_mistagged_verb_is_skipped(annotator):
    # article "Alberta": "originates" is tagged NOUN and made the root; no "X were a tributary" sentence
    ex, _, _ = mine(annotator, "The Peace River originates in the Rocky Mountains of northern British Columbia and "
                               "flows through northern Alberta and into the Slave River, a tributary of the Mackenzie "
                               "River.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_APPOSITION] == []


def test_relative_pronoun_subject_is_no_s_coord(annotator):
    # article "ASCII": "... and that used EBCDIC" continues a relative clause
    ex, _, _ = mine(annotator, "Computers attached to the ARPANET included machines running operating systems such "
                               "as TOPS-10 and TENEX using CR-LF line endings, machines running operating systems "
                               "such as Multics using LF line endings, and machines running operating systems such as "
                               "OS/360 that represented lines as a character count followed by the characters of the "
                               "line and that used EBCDIC rather than ASCII.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_S_COORD] == []


def test_apposition_on_a_predicate_noun_is_skipped(annotator):
    # article "Aristotle": no "A dogmatic philosopher was the author of a closed system ."
    ex, _, _ = mine(annotator, "In accordance with the Greek theorists, the Muslims considered Aristotle to be a "
                               "dogmatic philosopher, the author of a closed system, and believed that Aristotle "
                               "shared with Plato essential tenets of thought.")
    assert [e.discourse_type for e in ex] == [DT.SINGLE_VP_COORD]


def test_apposition_before_a_phrase_drops_both_commas(annotator):
    # article "Angola"
    ex, _, _ = mine(annotator, "The Angolan government created Sonangol, a state-run oil company, in 1976.",
                    discofuse.Options(min_tokens=0))
    assert only(ex, DT.SINGLE_APPOSITION) == ("The Angolan government created Sonangol in 1976 .",
                                              "Sonangol was a state - run oil company .", "", 0.0)


def test_coordinated_names_block_their(annotator):
    # "their" in the second sentence is North Carolina and Georgia's, not "their states" of the first
    ex, _, _ = mine(annotator, "New Jersey, Delaware and Maryland could not, since their states had not ratified. "
                               "North Carolina and Georgia also didn't sign that day, since their delegations were "
                               "absent.")
    assert [e.discourse_type for e in ex] == [DT.PAIR_NONE]


def test_apposition_to_a_bare_name_in_s_is_singular(annotator):
    # article "Apollo": "Thanatos" is tagged NNPS; the be-verb must still be "was"
    ex, _, _ = mine(annotator, 'Instead, Alcestis took his place, but Heracles managed to "persuade" Thanatos, the '
                               'god of death, to return her to the world of the living.')
    assert only(ex, DT.SINGLE_APPOSITION) == (
        'Instead , Alcestis took his place , but Heracles managed to " persuade " Thanatos to return her to the '
        'world of the living .', "Thanatos was the god of death .", "", 0.0)


def test_vp_coord_needs_a_finite_second_verb(annotator):
    # article "Aristotle": no "This being acted upon , ..." sentence
    ex, _, _ = mine(annotator, "Referring to potentiality, this is what a thing is capable of doing, or being acted "
                               "upon, if the conditions are right and it is not prevented by something else.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_VP_COORD] == []


def test_vp_coord_does_not_carry_a_relative_pronoun(annotator):
    # article "Algorithm": no "That uses the solution ..." sentence
    ex, _, _ = mine(annotator, "A simpler variant of divide and conquer is called a decrease and conquer algorithm, "
                               "that solves an identical subproblem and uses the solution of this subproblem to solve "
                               "the bigger problem.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_VP_COORD] == []


def test_vp_coord_second_verb_agrees_with_the_carried_subject(annotator):
    # article "Azerbaijan": "have transformed ... and promotes" - the carried plural subject takes
    # "promote" (lemminflect), read off the agreement of the first verb
    ex, _, _ = mine(annotator, "Major projects such as Heydar Aliyev Cultural Center, Flame Towers, Baku Crystal "
                               "Hall, Baku White City and SOCAR Tower have transformed the country's skyline and "
                               "promotes its contemporary identity.")
    assert only(ex, DT.SINGLE_VP_COORD) == (
        "Major projects such as Heydar Aliyev Cultural Center , Flame Towers , Baku Crystal Hall , Baku White City "
        "and SOCAR Tower have transformed the country 's skyline .",
        "Major projects promote its contemporary identity .", "and", 0.0)


def test_vp_coord_leaves_an_unmarked_subject_alone(annotator):
    # article "Adobe": "protect" carries no tense tag, so "need" is not re-inflected
    ex, _, _ = mine(annotator, "These protect the adobe wall from water damage, but need to be reapplied "
                               "periodically.")
    assert only(ex, DT.SINGLE_VP_COORD) == ("These protect the adobe wall from water damage .",
                                            "These need to be reapplied periodically .", "but", 0.0)


# --- issue 18: meaning errors of the structural rules (sentences of the bundled sample) ----------

def declined(annotator, text, options=discofuse.Options()):
    """The reasons a text was declined for, and that no example of a single-sentence rule came out."""
    ex, drops, counts = mine(annotator, text, options)
    assert [e for e in ex if e.discourse_type.value.startswith("SINGLE_")] == [], ex
    reasons = [d[0] for d in drops]
    assert counts == {f"filtered:{r}": reasons.count(r) for r in reasons}
    return reasons


def test_vp_coord_shared_trailing_complement_is_declined(annotator):
    # article "Algeria": "in French" belongs to both verbs
    assert declined(annotator, "In 2008, 11.2 million Algerians could read and write in French.") == [
        "vp_coord_shared_complement"]
    # article "Lichen": "as fungal species" belongs to both
    assert declined(annotator, "Accordingly, lichens are named and classified as fungal species.",
                    discofuse.Options(min_tokens=0)) == ["vp_coord_shared_complement"]


def test_vp_coord_under_a_scope_adverb_is_declined(annotator):
    # article "American Revolutionary War": not both at once is not "could not occupy"
    text = ("As a result of the manpower shortage and Patriot control of the countryside, where the majority of "
            "the American population lived, the British often could not simultaneously defeat the Americans on the "
            "field and occupy the captured areas, evidenced by withdrawals from Philadelphia and the Carolinas.")
    assert declined(annotator, text) == ["vp_coord_scope_adverb"]


def test_vp_coord_with_or_is_declined(annotator):
    # article "Answer (law)": an alternative must not become an obligation
    text = ("If such a motion is unsuccessful, the defendant must file an answer to the complaint or risk an "
            "adverse default judgment.")
    assert declined(annotator, text) == ["vp_coord_alternative"]


def test_vp_coord_shared_negation_is_declined(annotator):
    # "did not A and B" is not "did not A" + "did not B"
    assert declined(annotator, "The early settlers did not clear the dense forest and build large farms there.") \
        == ["vp_coord_under_negation"]


def test_vp_coord_carries_a_frequency_adverb(annotator):
    ex, _, _ = mine(annotator, "The farmers often grew barley on the hills and sold it in the town market.")
    assert only(ex, DT.SINGLE_VP_COORD) == ("The farmers often grew barley on the hills .",
                                            "The farmers often sold it in the town market .", "and", 0.0)


def test_relative_after_the_verb_with_a_phrase_after_it_is_declined(annotator):
    # article "Algeria": "as Pied-Noirs" was handed to the main clause
    text = ("One of France's longest-held overseas territories, Algeria became a destination for hundreds of "
            "thousands of European immigrants, who became known as colons and later, as Pied-Noirs.")
    assert declined(annotator, text) == ["relative_antecedent_ambiguous"]
    assert declined(annotator, "The city welcomed many immigrants, who became known as colons and later, as "
                               "Pied-Noirs.") == ["relative_tail_ambiguous"]


def test_relative_on_the_complement_of_a_larger_noun_phrase_is_declined(annotator):
    # article "Altruism": "which" is "the ancient morality of the gift", not "the gift"
    assert declined(annotator, "This is the ancient morality of the gift, which has become a principle of "
                               "justice.") == ["relative_antecedent_ambiguous"]


def test_clausal_which_is_declined(annotator):
    assert declined(annotator, "In 1629 the king dissolved the parliament, which led to eleven years of personal "
                               "rule.") == ["relative_clausal_which"]


def test_apposition_inside_a_coordination_is_declined(annotator):
    # article "Abacus": no "The French Revolution was the Western Christian world ."
    text = ("This Greek abacus saw use in Achaemenid Persia, the Etruscan civilization, Ancient Rome and, until the "
            "French Revolution, the Western Christian world.")
    assert declined(annotator, text) == ["apposition_in_coordination"]


def test_dangling_participle_is_no_cataphora(annotator):
    # article "AFC West" / NFL scheduling: the writer uses the schedule as an example, not each team
    text = ("Using the 2012 regular season schedule as an example, each team in the AFC West plays against every "
            "team in the AFC North and NFC South.")
    assert declined(annotator, text) == ["cataphora_dangling_participle"]


def test_coordinated_antecedent_is_taken_whole_without_s_after_a_plural(annotator):
    # article "Alberta": "their" is both bodies; no "Municipal governments 's boundaries"
    ex, _, _ = mine(annotator, "Locally municipal governments and school boards are elected and operate "
                               "separately. Their boundaries do not necessarily coincide.",
                    discofuse.Options(min_tokens=0))
    assert only(ex, DT.PAIR_ANAPHORA) == (
        "Locally municipal governments and school boards are elected and operate separately .",
        "Municipal governments and school boards ' boundaries do not necessarily coincide .", "", 1.0)


def test_singular_pronoun_never_takes_a_coordinated_antecedent(annotator):
    ex, _, _ = mine(annotator, "The old harbour and the castle were rebuilt after the great war. Its walls are now "
                               "open to visitors in the summer.")
    assert all(e.has_coref_type_pronoun == 0.0 for e in ex)


def test_subject_pronoun_prefers_the_previous_subject(annotator):
    # article "Amphibian": "They" are the caecilians (tagged NNP), not the earthworms
    ex, _, _ = mine(annotator, "Caecilians superficially resemble earthworms and are limbless. They burrow by means "
                               "of zones of muscle contractions which move along the body.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []
    ex, _, _ = mine(annotator, "The town has a small harbour near the old castle. It is one of the oldest "
                               "settlements on the coast.")
    assert only(ex, DT.PAIR_ANAPHORA) == (
        "The town has a small harbour near the old castle .",
        "The town is one of the oldest settlements on the coast .", "", 1.0)


def test_role_noun_in_the_pronouns_sentence_blocks_a_person_of_the_previous_one(annotator):
    # article "Appeal": "he" is the defendant, not "the judge" of the previous sentence
    ex, _, _ = mine(annotator, "For example, suppose at trial the judge found for the plaintiff and ordered the "
                               "defendant to pay $50,000. If the defendant files an appeal arguing that he should "
                               "not have to pay any money, then the plaintiff might file a cross-appeal arguing that "
                               "the defendant should have to pay more.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []


# --- found reading the sample output before the fix (issue 18) ----------------------------------

def test_expletive_it_is_not_resolved(annotator):
    # article "Animal rights" (Schopenhauer): no "Compassion may be confidently asserted that ..."
    ex, _, _ = mine(annotator, "Compassion for animals is intimately associated with goodness of character, and it "
                               "may be confidently asserted that he who is cruel to living creatures cannot be a good "
                               "man.")
    assert only(ex, DT.SINGLE_S_COORD)[1].startswith("It may be confidently asserted that")


def test_subject_pronoun_does_not_take_the_earlier_object(annotator):
    # article "Aardwolf": "they" is not "numbers"
    ex, _, _ = mine(annotator, "The aardwolf has not seen decreasing numbers and they are relatively widespread "
                               "throughout eastern Africa.")
    assert only(ex, DT.SINGLE_S_COORD) == ("The aardwolf has not seen decreasing numbers .",
                                           "They are relatively widespread throughout eastern Africa .", "and", 0.0)


def test_coordinated_antecedent_in_the_same_sentence(annotator):
    # article "Aesthetics": "they" are the artists and the sculptors
    ex, _, _ = mine(annotator, "Artists and sculptors tried to find this ideal order in relation with mathematics, "
                               "but they believed that this ideal order revealed itself not so much to the "
                               "dispassionate intellect, as to the whole sentient self.")
    assert only(ex, DT.SINGLE_S_COORD_ANAPHORA)[1] == (
        "Artists and sculptors believed that this ideal order revealed itself not so much to the dispassionate "
        "intellect , as to the whole sentient self .")


def test_antecedent_keeps_its_of_complement(annotator):
    # article "Alkane": "It" is the molecular structure of the alkanes
    ex, _, _ = mine(annotator, "The molecular structure of the alkanes directly affects their physical and chemical "
                               "characteristics. It is derived from the electron configuration of carbon, which has "
                               "four valence electrons.")
    assert only(ex, DT.PAIR_ANAPHORA)[1] == (
        "The molecular structure of the alkanes is derived from the electron configuration of carbon , which has "
        "four valence electrons .")


def test_vp_coord_does_not_carry_be_to_a_bare_verb(annotator):
    # article "Anatomy": no "They are research into certain systems ..."
    ex, _, _ = mine(annotator, "They are often involved in teaching anatomy, and research into certain systems, "
                               "organs, tissues or cells.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_VP_COORD] == []


def test_apposition_summing_up_the_clause_is_declined(annotator):
    # article "Alkali metal": no "Water is a property which ammonium salts share ."
    assert declined(annotator, "For example, most alkali metal salts are soluble in water, a property which "
                               "ammonium salts share.") == ["apposition_to_clause"]


def test_owing_to_is_no_cataphora(annotator):
    # article "Alaska": no "Most of the land owes to the low population density ."
    ex, _, _ = mine(annotator, "Owing to the low population density, most of the land is located in the "
                               "Unorganized Borough.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_CATAPHORA] == []


def test_apposition_to_a_list_member_is_declined(annotator):
    # article "Algeria": no "Syria was the Red Sea coast of Africa , ..."
    assert declined(annotator, "The Fatimid Islamic state, also known as Fatimid Caliphate made an Islamic empire "
                               "that included North Africa, Sicily, Palestine, Jordan, Lebanon, Syria, the Red Sea "
                               "coast of Africa, Tihamah, Hejaz, and Yemen.") == ["apposition_in_coordination"]


def test_vp_coord_with_a_coordinated_subject_behind_a_comma_is_declined(annotator):
    # article "Amphibian": the subject is not only "Giant salamanders"
    assert declined(annotator, "Giant salamanders of the genus Andrias, as well as Ceratophrine and Pyxicephalus "
                               "frogs possess sharp teeth and are capable of drawing blood with a defensive bite.") == [
        "vp_coord_subject_unclear"]


def test_antecedent_from_a_subordinate_clause_of_the_previous_sentence_is_not_taken(annotator):
    # article "Andrei Tarkovsky": "His" is Tarkovsky (out of view), not the film Nostalghia
    ex, _, _ = mine(annotator, "The documentary Voyage in Time was produced in Italy in 1982, as was Nostalghia in "
                               "1983. His last film The Sacrifice was produced in Sweden in 1986.")
    assert [(e.discourse_type, e.has_coref_type_pronoun) for e in ex] == [(DT.PAIR_NONE, 0.0)]


def test_subject_preference_does_not_override_a_name_or_another_subject(annotator):
    # article "Arthur Schopenhauer": "She" is the woman, never Schopenhauer
    ex, _, _ = mine(annotator, "While in Berlin, Schopenhauer was named as a defendant in a lawsuit initiated by a "
                               "woman named Caroline Marquet. She asked for damages, alleging that Schopenhauer had "
                               "pushed her.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []
    # article "Algeria": "It" is Algeria, subject of the reported clause, not the agency
    ex, _, _ = mine(annotator, "The U.S. Energy Information Administration reported that in 2005, Algeria had 160 "
                               "Tcuft of proven natural-gas reserves. It also ranks 16th in oil reserves.",
                    discofuse.Options(min_tokens=0))
    assert [e for e in ex if e.has_coref_type_pronoun] == []


def test_vp_coord_after_a_finite_subordinate_clause_is_declined(annotator):
    # article "American Revolution": Hamilton, not the U.S., "in addition created a national bank"
    assert declined(annotator, "The U.S. finally solved its debt and currency problems in the 1790s when Secretary "
                               "of the Treasury Alexander Hamilton secured legislation by which the national "
                               "government assumed all of the state debts, and in addition created a national bank "
                               "and a funding system based on tariffs and bond issues that paid off the foreign "
                               "debts.") == ["vp_coord_attachment_ambiguous"]


def test_vp_coord_with_two_subjects_is_declined(annotator):
    # article "Abraham Lincoln": the parse has two subjects; no "An exceptionally astute politician ... managed ..."
    assert declined(annotator, "An exceptionally astute politician deeply involved with power issues in each state, "
                               "Lincoln reached out to the War Democrats and managed his own re-election campaign in "
                               "the 1864 presidential election.") == ["vp_coord_subject_unclear"]


def test_apposition_two_phrases_deep_is_declined(annotator):
    # article "Nobel Prize in Literature": no "China was The Exile and Fighting Angel"
    assert declined(annotator, "Some may consider the American writer, Pearl S. Buck, an honorary Asian Nobel "
                               "laureate, having spent considerable time in China as the daughter of missionaries, and "
                               "based many of her novels, namely The Good Earth (1931) and The Mother (1933), as well "
                               "as the biographies of her parents of their time in China, The Exile and Fighting "
                               "Angel, all of which earned her the Literature prize in 1938.")


def test_relative_on_others_is_declined(annotator):
    # article "Algeria": no "Others ' presence disrupted farmers ..."
    assert declined(annotator, "Between the Nile and the Red Sea were living Bedouin tribes expelled from Arabia for "
                               "their disruption and turbulent influence, both Banu Hilal and Banu Sulaym among "
                               "others, whose presence disrupted farmers in the Nile Valley since the nomads would "
                               "often loot.") == ["relative_antecedent_ambiguous"]


# --- found judging the first post-fix sample (seed 2019, docs/DISCOFUSE_QUALITY.md) ----------------

def test_expletive_it_before_an_adjective_and_a_wh_clause_is_not_resolved(annotator):
    # article "Afroasiatic languages": no "Afroasiatic is uncertain when or where ..."
    ex, _, _ = mine(annotator, "In addition to languages spoken today, Afroasiatic includes several important ancient "
                               "languages, such as Ancient Egyptian, Akkadian, Biblical Hebrew, and Old Aramaic. It is "
                               "uncertain when or where the original homeland of the Afroasiatic family existed.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []


def test_apposition_with_a_comma_inside_is_declined(annotator):
    # article "Afghanistan": no "Kandahar was the last Hotak stronghold , from Shah Hussain Hotak , at which point ..."
    assert declined(annotator, "In 1738, Nader Shah and his forces captured Kandahar, the last Hotak stronghold, from "
                               "Shah Hussain Hotak, at which point the incarcerated 16-year-old Ahmad Shah Durrani was "
                               "freed and made the commander of an Afghan regiment.") == ["apposition_extent_unclear"]


# --- found judging the second post-fix sample (seed 2020, docs/DISCOFUSE_QUALITY.md) ---------------

def test_plural_pronoun_after_a_vague_subject_is_not_resolved(annotator):
    # article "Amphibian": "them" are the "Some", not "Many amphibians" of the previous sentence
    ex, _, _ = mine(annotator, "Many amphibians catch their prey by flicking out an elongated tongue with a sticky tip "
                               "and drawing it back into the mouth before seizing the item with their jaws. Some use "
                               "inertial feeding to help them swallow the prey, repeatedly thrusting their head "
                               "forward sharply causing the food to move backwards in their mouth by inertia.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []


def test_subject_preference_not_over_a_noun_inside_the_subject(annotator):
    # article "Alberta": "It" is the Corridor, not "the population"
    ex, _, _ = mine(annotator, "In 2001, the population of the Calgary-Edmonton Corridor was 2.15 million (72% of "
                               "Alberta's population). It is also one of the fastest growing regions in the country.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []


def test_which_on_a_person_is_declined(annotator):
    # article "Academy Award for Best Original Song" context: "which" is the recording, not Charlie Rich
    assert declined(annotator, "The first was by Charlie Rich, which went to number 22 in 1976.",
                    discofuse.Options(min_tokens=0)) == ["relative_pronoun_mismatch"]


def test_which_disagreeing_with_a_plural_noun_is_clausal(annotator):
    # article "Alabama": the spilling occurs in winter, not the lowland areas
    assert declined(annotator, "When there is a dominant continental air mass, cold air spills onto the lowland areas, "
                               "which occurs most frequently in the winter.") == ["relative_clausal_which"]


def test_relative_on_the_complement_of_an_adverb_is_declined(annotator):
    # article "Academy Awards": the grievance is the date, not the holidays
    assert declined(annotator, "Another reason for the move to late February and early March is to avoid the awards "
                               "ceremony occurring so close to the religious holidays of Passover and Easter, which "
                               "for decades had been a grievance from members and the general public.") == [
        "relative_antecedent_ambiguous"]


def test_relative_pronoun_must_be_the_clauses_own_subject(annotator):
    # article "American Revolutionary War": no "Taxes they claimed were unconstitutional , imposed by ..."
    ex, _, _ = mine(annotator, "The American Revolutionary War had its origins in the resistance of many Americans to "
                               "taxes, which they claimed were unconstitutional, imposed by the British parliament.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_RELATIVE] == []


def test_vp_coord_ending_inside_a_finite_clause_is_declined(annotator):
    # article "Amphibian": the blood is spread around the body, not the heart
    assert declined(annotator, "In the juvenile stage, the circulation is similar to that of a fish; the two-chambered "
                               "heart pumps the blood through the gills where it is oxygenated, and is spread around "
                               "the body and back to the heart in a single loop.") == ["vp_coord_attachment_ambiguous"]


# --- found judging the third post-fix sample (seed 2021, docs/DISCOFUSE_QUALITY.md) ----------------

def test_s_coord_with_a_shared_object_is_declined(annotator):
    # article "Alabama": no "In 2007 , the Alabama Legislature passed ."
    ex, drops, _ = mine(annotator, "In 2007, the Alabama Legislature passed, and Republican Governor Bob Riley signed "
                                   "a resolution expressing profound regret over slavery and its lingering impact.")
    assert [e for e in ex if e.discourse_type == DT.SINGLE_S_COORD] == []
    assert "s_coord_shared_object" in [d[0] for d in drops]


def test_subject_preference_not_after_an_earlier_fitting_noun(annotator):
    # article "Amateur astronomy": "They" are the telescopes, not "the mechanics of the telescope"
    ex, _, _ = mine(annotator, "With these computer-driven telescopes, the user typically enters the name of the item "
                               "of interest and the mechanics of the telescope point the telescope towards that item "
                               "automatically. They have several notable advantages for amateur astronomers intent on "
                               "research.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []


def test_the_british_compete_for_they(annotator):
    # article "American Revolutionary War": "they" are the British, not the Americans
    ex, _, _ = mine(annotator, "It was not unusual for the Americans to suffer a string of defeats, only to have the "
                               "British retreat because they could not occupy the captured land.")
    assert [e for e in ex if e.has_coref_type_pronoun] == []


def test_relative_on_a_phrase_after_the_object_is_declined(annotator):
    # article "Algorithm" (seed-2022 sample): the treatise was translated, not the Arabic language
    assert declined(annotator, "About 825, he wrote a treatise in the Arabic language, which was translated into "
                               "Latin in the 12th century under the title Algoritmi de numero Indorum.") == [
        "relative_antecedent_ambiguous"]


# --- issue 32: the repeated noun phrase is the head phrase, with a determiner that keeps its referent ----------

def test_apposition_leaves_the_connective_and_the_focus_word_in_the_first_sentence(annotator):
    # article "Alkali metal": "so" and "only" belong to the sentence, not to "Lithium is ..."
    text = ("The lattice energy is maximised with small, highly charged ions; the alkali metals do not form highly "
            "charged ions, only forming ions with a charge of +1, so only lithium, the smallest alkali metal, can "
            "release enough lattice energy to make the reaction with nitrogen exothermic, forming lithium nitride.")
    ex, _, _ = mine(annotator, text)
    first, second, _, _ = only(ex, DT.SINGLE_APPOSITION)
    assert second == "Lithium is the smallest alkali metal ."
    assert ", so only lithium can release enough lattice energy" in first
    # article "Alberta": "only" hangs on the number, and is the sentence's too
    ex, _, _ = mine(annotator, "Alberta is home to only one variety of venomous snake, the prairie rattlesnake.")
    assert only(ex, DT.SINGLE_APPOSITION)[:2] == ("Alberta is home to only one variety of venomous snake .",
                                                  "One variety of venomous snake is the prairie rattlesnake .")


def test_relative_antecedent_leaves_the_focus_adverb_in_the_first_sentence(annotator):
    # article "Amphibian"
    text = ("In air, where oxygen is more concentrated, some small species can rely solely on cutaneous gas exchange, "
            "most famously the plethodontid salamanders, which have neither lungs nor gills.")
    ex, _, _ = mine(annotator, text)
    assert only(ex, DT.SINGLE_RELATIVE)[:2] == (
        "In air , where oxygen is more concentrated , some small species can rely solely on cutaneous gas exchange "
        ", most famously the plethodontid salamanders .", "The plethodontid salamanders have neither lungs nor gills .")


def test_relative_antecedent_with_a_number_is_repeated_with_these(annotator):
    # article "Alkali metal": "About 300,000 neutral atoms were synthesized" would be another 300,000
    text = ("The greatest quantity of francium ever assembled to date is about 300,000 neutral atoms, which were "
            "synthesized using the nuclear reaction given above.")
    ex, _, _ = mine(annotator, text)
    assert only(ex, DT.SINGLE_RELATIVE)[:2] == (
        "The greatest quantity of francium ever assembled to date is about 300,000 neutral atoms .",
        "These neutral atoms were synthesized using the nuclear reaction given above .")
    # article "Aardwolf": a measure repeated is the same amount, it stays as it is
    ex, _, _ = mine(annotator, "While foraging, the aardwolf will cover about 1 km per hour, which translates to "
                               "8-12 km per summer night and 3-8 km per winter night.")
    assert only(ex, DT.SINGLE_RELATIVE)[1] == (
        "About 1 km per hour translates to 8 - 12 km per summer night and 3 - 8 km per winter night .")


def test_vp_coord_indefinite_subject_is_repeated_with_the(annotator):
    # article "American Revolutionary War": "A small British raiding force ... began moving" is another force
    text = ("Earlier, in January 1781, a small British raiding force under Benedict Arnold had landed there, and "
            "began moving through the countryside, destroying supply depots, mills, and other economic targets.")
    ex, _, _ = mine(annotator, text)
    assert only(ex, DT.SINGLE_VP_COORD)[:2] == (
        "Earlier , in January 1781 , a small British raiding force under Benedict Arnold had landed there .",
        "The small British raiding force under Benedict Arnold began moving through the countryside , destroying "
        "supply depots , mills , and other economic targets .")


def test_vp_coord_some_subject_is_repeated_with_these(annotator):
    # article "Algae": "Some groups later were seen ..." may be other groups
    ex, _, _ = mine(annotator, "In other cases, some groups were originally characterized as parasitic algae (e.g., "
                               "Chlorochytrium), but later were seen as endophytic algae.")
    assert only(ex, DT.SINGLE_VP_COORD)[1] == "These groups later were seen as endophytic algae ."
    # article "Algorithm": "every" distributes over both verbs, it stays as it is
    ex, _, _ = mine(annotator, "Every field of science has its own problems and needs efficient algorithms.")
    assert only(ex, DT.SINGLE_VP_COORD)[1] == "Every field of science needs efficient algorithms ."


def test_vp_coord_with_a_quantifier_as_subject_is_declined(annotator):
    # article "Amphibian": no determiner to replace, "Some are carnivorous" may be others
    assert declined(annotator, "Some, such as the spadefoot toads, have strong biting jaws and are carnivorous or "
                               "even cannibalistic.") == ["vp_coord_subject_quantified"]
    # article "Art": a negative quantifier cannot be repeated
    assert declined(annotator, "In this sense, Art, as creativity, is something humans must do by their very nature "
                               "(i.e., no other species creates art), and is therefore beyond utility.") == [
        "vp_coord_subject_quantified"]


def test_template_hole_sentences_are_not_mined():
    # Issue 32: the sentence of the bundled sample's "A" article where {{angbr|a}} was dropped, annotated
    # from its text without the mark (transforms.annotate), makes no example, alone or in a pair.
    s = [unparsed_sentence("68 % of letters used in English texts tend to be , while the number is 6 .".split()),
         unparsed_sentence("The harbour was built by the Romans long ago .".split()),
         unparsed_sentence("The city grew quickly in the nineteenth century .".split())]
    counts = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n

    ex, drops = discofuse.mine_document(AnnotatedDocument("d", "wikipedia", tuple(s), (0, 0, 0),
                                                          template_holes=(0,)), inc=inc)
    assert [(e.sentence_index, e.discourse_type) for e in ex] == [(1, DT.PAIR_NONE)]
    assert [(d[0], d[1]) for d in drops] == [("template_hole", 0)]
    assert counts["filtered:template_hole"] == 1
