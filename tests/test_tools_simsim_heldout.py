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
