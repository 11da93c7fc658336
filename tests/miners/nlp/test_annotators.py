"""Annotator backends: spaCy (real en_core_web_sm), stanza adapter, CoNLL-U reader."""
import pathlib

import pytest

from miners.nlp import annotators
from miners.nlp.annotation import Sentence

FIXTURE = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "discofuse" / "fusion.conllu"

STANZA_CONLLU = """# text = Kubler, who retired in 1957, remained famous.
1\tKubler\tKubler\tPROPN\tNNP\tNumber=Sing\t8\tnsubj\t_\tSpaceAfter=No
2\t,\t,\tPUNCT\t,\t_\t1\tpunct\t_\t_
3\twho\twho\tPRON\tWP\tPronType=Rel\t4\tnsubj\t_\t_
4\tretired\tretire\tVERB\tVBD\tTense=Past\t1\tacl:relcl\t_\t_
5\tin\tin\tADP\tIN\t_\t6\tcase\t_\t_
6\t1957\t1957\tNUM\tCD\t_\t4\tobl\t_\tSpaceAfter=No
7\t,\t,\tPUNCT\t,\t_\t1\tpunct\t_\t_
8\tremained\tremain\tVERB\tVBD\tTense=Past\t0\troot\t_\t_
9\tfamous\tfamous\tADJ\tJJ\t_\t8\txcomp\t_\tSpaceAfter=No
10\t.\t.\tPUNCT\t.\t_\t8\tpunct\t_\t_

"""


@pytest.fixture(scope="module")
def spacy_annotator():
    return annotators.SpacyAnnotator()


def test_spacy_output_is_ud_v2(spacy_annotator):
    s, = spacy_annotator.parse(["Kubler, who retired from cycling in 1957, remained a revered figure."])
    rows = [(t.text, t.upos, t.xpos, t.head, t.deprel) for t in s.tokens]
    assert rows[0] == ("Kubler", "PROPN", "NNP", 9, "nsubj")
    assert rows[3] == ("retired", "VERB", "VBD", 0, "acl:relcl")  # ClearNLP relcl -> UD acl:relcl
    assert rows[6] == ("in", "ADP", "IN", 7, "case")  # prep -> case of its object
    assert rows[7] == ("1957", "NUM", "CD", 3, "obl")  # pobj -> obl under the verb
    assert s.tokens[9].deprel == "root" and s.root() == 9
    assert s.tokens[0].ner == "B-PERSON"


def test_clear_to_ud_restructures_prepositions():
    words = ["lived", "in", "Paris"]
    heads, labels = annotators.clear_to_ud(words, [-1, 0, 1], ["ROOT", "prep", "pobj"], ["VERB", "ADP", "PROPN"])
    assert (heads, labels) == ([-1, 2, 0], ["root", "case", "obl"])
    heads, labels = annotators.clear_to_ud(["city", "of", "Rome"], [-1, 0, 1], ["ROOT", "prep", "pobj"],
                                           ["NOUN", "ADP", "PROPN"])
    assert (heads, labels) == ([-1, 2, 0], ["root", "case", "nmod"])


def test_two_roots_is_a_parse_error():
    with pytest.raises(annotators.ParseError):
        annotators.check_tree([-1, -1])
    with pytest.raises(annotators.ParseError):
        annotators.check_tree([1, 0, -1])


def test_spacy_two_sentences_in_one_string_is_a_parse_error(spacy_annotator):
    out = spacy_annotator.parse(["He left. She stayed.", "He left the city."])
    assert isinstance(out[0], annotators.ParseError)
    assert isinstance(out[1], Sentence) and out[1].words() == ["He", "left", "the", "city", "."]


def test_missing_spacy_model_names_the_option():
    with pytest.raises(annotators.AnnotatorUnavailable, match="--spacy_model"):
        annotators.load_spacy("no_such_model_xyz")


def test_stanza_adapter_on_conll2doc_document():
    from stanza.utils.conll import CoNLL
    doc = CoNLL.conll2doc(input_str=STANZA_CONLLU)
    sentences, chains = annotators.sentences_from_stanza(doc)
    s, = sentences
    assert chains == ()
    assert [(t.text, t.head, t.deprel) for t in s.tokens][:4] == [
        ("Kubler", 7, "nsubj"), (",", 0, "punct"), ("who", 3, "nsubj"), ("retired", 0, "acl:relcl")]
    assert s.tokens[3].lemma == "retire" and s.tokens[3].xpos == "VBD"


def test_stanza_adapter_feeds_the_rules():
    from stanza.utils.conll import CoNLL
    from miners.discofuse import rules as discofuse
    from miners.nlp.annotation import AnnotatedDocument
    sentences, _ = annotators.sentences_from_stanza(CoNLL.conll2doc(input_str=STANZA_CONLLU))
    doc = AnnotatedDocument("d", "wikipedia", tuple(sentences), (0,))
    ex, _ = discofuse.mine_document(doc, discofuse.Options(min_tokens=0))
    assert [(e.discourse_type.value, e.incoherent_first_sentence, e.incoherent_second_sentence) for e in ex] == [
        ("SINGLE_RELATIVE", "Kubler remained famous .", "Kubler retired in 1957 .")]


def test_stanza_without_models_names_the_option(tmp_path):
    with pytest.raises(annotators.AnnotatorUnavailable, match="--stanza_dir"):
        annotators.StanzaAnnotator(str(tmp_path))
    with pytest.raises(annotators.AnnotatorUnavailable, match="--stanza_dir"):
        annotators.make_annotator("stanza", stanza_dir="")


def test_stanza_pipeline_load_error_names_the_option(tmp_path):
    # resources.json present but no models: the real stanza.Pipeline load path fails
    (tmp_path / "resources.json").write_text('{"en": {"default_processors": {"tokenize": "combined"}}}')
    with pytest.raises(annotators.AnnotatorUnavailable, match="--stanza_dir"):
        annotators.StanzaAnnotator(str(tmp_path))


def test_read_conllu_fixture():
    docs = annotators.read_conllu(FIXTURE.read_text())
    assert [d for d, _ in docs] == ["hebden", "kubler", "broken"]
    hebden = docs[0][1]
    assert [s.text() for s in hebden] == [
        "Hebden Bridge is a popular place to live .",
        "However , space is limited due to the steep valleys and lack of flat land ."]
    assert hebden[0].tokens[0].ner == "B-ORG"
    assert isinstance(docs[2][1][0], annotators.ParseError)


def test_stanza_coref_chains_drive_pair_anaphora():
    """stanza's own CorefChain objects (as its coref processor attaches them) become our chains."""
    from stanza.models.coref.coref_chain import CorefChain as StanzaChain
    from stanza.models.coref.coref_chain import CorefMention
    from stanza.utils.conll import CoNLL
    from miners.discofuse import rules as discofuse
    from miners.nlp.annotation import COREF_ANNOTATOR, AnnotatedDocument, CorefChain, Mention
    doc = CoNLL.conll2doc(input_file=str(FIXTURE.parent / "agassi.conllu"))
    doc.coref = [
        StanzaChain(0, [CorefMention(0, 0, 1), CorefMention(1, 4, 5)], "Agassi", 0),
        StanzaChain(1, [CorefMention(0, 18, 20)], "the game", 0),  # a singleton: no chain
    ]
    sentences, chains = annotators.sentences_from_stanza(doc)
    assert chains == (CorefChain((Mention(0, 0, 1), Mention(1, 4, 5)), 0, COREF_ANNOTATOR),)
    annotated = AnnotatedDocument("agassi", "wikipedia", tuple(sentences), (0, 0), chains, COREF_ANNOTATOR)
    ex, _ = discofuse.mine_document(annotated)
    assert [(e.discourse_type.value, e.incoherent_second_sentence, e.connective_string, e.has_coref_type_pronoun)
            for e in ex] == [("PAIR_CONN_ANAPHORA",
                              "Agassi is credited for helping to revive the popularity of tennis during the 1990s .",
                              "as a result", 1.0)]
