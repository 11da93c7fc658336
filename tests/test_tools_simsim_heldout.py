"""tools/simsim_heldout.py: held-out seeds as one document a line, and counts that show no text."""
import json

from tools import simsim_heldout


def test_each_line_is_one_document(tmp_path):
    lines = tmp_path / "asset.orig"
    lines.write_text("First sentence here.\n\nSecond one, with a comma.\n", encoding="utf-8")
    out = tmp_path / "seeds.jsonl"
    assert simsim_heldout.to_jsonl(str(lines), str(out)) == 2
    docs = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert docs == [{"id": "asset.orig:0", "text": "First sentence here."},
                    {"id": "asset.orig:2", "text": "Second one, with a comma."}]


def test_a_sheet_holds_source_and_output_only_and_the_key_the_origin(tmp_path):
    items = [{"item": 1, "origin": "s2", "source": "A  source\twith tab.", "output": "An   output.", "method": "m",
              "doc_id": "d", "sentence_index": "0", "output_sha1": "abc"}]
    sheet, key = tmp_path / "sheet.tsv", tmp_path / "key.tsv"
    simsim_heldout.write_sheet(items, str(sheet), str(key))
    assert sheet.read_text(encoding="utf-8") == "item\tSOURCE\tOUTPUT\n1\tA source with tab.\tAn output.\n"
    assert key.read_text(encoding="utf-8").splitlines()[1] == "1\ts2\tm\td\t0\tabc"


def test_earlier_sheets_sources_are_drawn_last_and_the_overlap_is_counted(tmp_path):
    import random
    import types
    earlier = tmp_path / "old.tsv"
    earlier.write_text("item\tSOURCE\tOUTPUT\n1\tSeen  one.\tOut one.\n2\tSeen two.\tOut two.\n", encoding="utf-8")
    rows = simsim_heldout.read_sheet_rows([str(earlier)])
    assert rows == [("seen one.", "out one."), ("seen two.", "out two.")]
    recs = [types.SimpleNamespace(complex=c) for c in ("Seen one.", "Seen two.", "New one.", "New two.")]
    seen = {s for s, _ in rows}
    assert {r.complex for r in simsim_heldout._fresh_first(random.Random(1), recs, 2, seen)} == {"New one.",
                                                                                              "New two."}
    assert len(simsim_heldout._fresh_first(random.Random(1), recs, 3, seen)) == 3
    items = [{"origin": "s2", "source": "Seen one.", "output": "Out one."},
             {"origin": "s2", "source": "Seen two.", "output": "Other."},
             {"origin": "s3", "source": "New one.", "output": "X."}]
    assert simsim_heldout.overlap(items, rows) == {
        "s2": {"items": 2, "same_row_judged_before": 1, "source_seen_before": 1},
        "s3": {"items": 1, "same_row_judged_before": 0, "source_seen_before": 0}}
