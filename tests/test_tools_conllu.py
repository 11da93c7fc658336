"""tools/conllu_text_to_jsonl.py: documents from the `# text` lines of a CoNLL-U file."""
import importlib.util
import json
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "conllu_text_to_jsonl", Path(__file__).resolve().parent.parent / "tools" / "conllu_text_to_jsonl.py")
conllu_text_to_jsonl = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(conllu_text_to_jsonl)


def _sentence(sent_id, text):
    return [f"# sent_id = {sent_id}\n", f"# text = {text}\n", "1\tx\tx\tX\t_\t_\t0\troot\t_\t_\n", "\n"]


# Sequoia-like: no `# newdoc`, sent_ids of two texts, one of them out of order and with a gap.
LINES = (_sentence("Europar.550_00001", "Le Parlement vote.")
         + _sentence("annodis.er_00002", "Il a parlé.")
         + _sentence("Europar.550_00002", "Il approuve le texte.")
         + _sentence("annodis.er_00001", "Le maire a invité le conseil.")
         + _sentence("annodis.er_00004", "Une autre histoire.")
         + _sentence("annodis.er_00005", "Elle finit."))


def test_one_document_per_sentence_without_the_option():
    docs, missing = conllu_text_to_jsonl.documents(LINES, "seq.conllu")
    assert missing == 0
    assert [doc_id for doc_id, _ in docs] == ["Europar.550_00001", "annodis.er_00002", "Europar.550_00002",
                                             "annodis.er_00001", "annodis.er_00004", "annodis.er_00005"]


def test_group_by_sent_id_prefix_in_id_order_with_paragraph_at_a_jump():
    docs, missing = conllu_text_to_jsonl.documents(LINES, "seq.conllu", group_by_sent_id=True)
    assert missing == 0
    assert docs == [
        ("Europar.550", "Le Parlement vote. Il approuve le texte."),
        ("annodis.er", "Le maire a invité le conseil. Il a parlé.\n\nUne autre histoire. Elle finit."),
    ]


def test_group_by_sent_id_command_line(tmp_path, capsys):
    path = tmp_path / "seq.conllu"
    path.write_text("".join(LINES + _sentence("lonely", "Sans numéro.")), encoding="utf-8")
    conllu_text_to_jsonl.main([str(path), "--lang", "fr", "--group_by_sent_id"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["lang"]) for r in rows] == [("Europar.550", "fr"), ("annodis.er", "fr"), ("lonely", "fr")]
    assert rows[2]["text"] == "Sans numéro."
