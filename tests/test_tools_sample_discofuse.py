"""tools/sample_discofuse.py --blind_sheet: the sheet holds only what the reader judges, spaces collapsed;
the key holds the types (issue 52's blind reading)."""
import subprocess
import sys

from conftest import ROOT

HEADER = ("coherent_first_sentence\tcoherent_second_sentence\tincoherent_first_sentence\tincoherent_second_sentence"
          "\tdiscourse_type\tconnective_string\thas_coref_type_pronoun\thas_coref_type_nominal\n")


def test_blind_sheet_and_key(tmp_path):
    rows = [f"Le club  a gagné {i} fois et a perdu .\t\tLe club a gagné {i} fois .\tLe club a perdu .\t"
            f"SINGLE_VP_COORD\tet\t0.0\t0.0\n" for i in range(30)]
    rows += ["A .\tB .\tA .\tB .\tPAIR_NONE\t\t0.0\t0.0\n"]
    (tmp_path / "full" / "train").mkdir(parents=True)
    (tmp_path / "full" / "train" / "x.tsv").write_text(HEADER + "".join(rows), encoding="utf-8")
    sheet, key = tmp_path / "sheet.tsv", tmp_path / "key.tsv"
    subprocess.run([sys.executable, str(ROOT / "tools" / "sample_discofuse.py"), str(tmp_path / "full"),
                    "--seed", "7", "-n", "10", "--blind_sheet", str(sheet), "--key", str(key)], check=True)
    lines = sheet.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "item\tinput\toutput 1\toutput 2" and len(lines) == 11
    assert all("SINGLE_VP_COORD" not in l and "  " not in l for l in lines)
    assert [l.split("\t")[0] for l in lines[1:]] == [str(i) for i in range(1, 11)]
    keys = key.read_text(encoding="utf-8").splitlines()[1:]
    assert all(k.split("\t")[1] == "SINGLE_VP_COORD" for k in keys)
    # the same seed draws the same sheet
    again = tmp_path / "again.tsv"
    subprocess.run([sys.executable, str(ROOT / "tools" / "sample_discofuse.py"), str(tmp_path / "full"),
                    "--seed", "7", "-n", "10", "--blind_sheet", str(again), "--key", str(tmp_path / "k2")], check=True)
    assert again.read_text(encoding="utf-8") == sheet.read_text(encoding="utf-8")
