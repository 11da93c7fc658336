"""`rewrite-mine blind`: a seeded blind sheet of an output directory (source and output only, variants
shuffled, scores hidden), its key, and the scoring of a reader's verdicts."""
import json
import pathlib

from pipelines import blind, cli
from schemas.records import SimplificationExample
from transforms.sinks import tfrecord_frame

# Real back-translations of the bundled sample (issue 34's examples and others of the same run).
PAIRS = [
    ("In fact, they live as monogamous pairs with their young.",
     "In fact, they live monogamous even with the his new."),
    ("Upon her death, Apollo transformed her into a sun-loving herb.",
     "At his death, Apollo transformed him at an only-wanting to herb."),
    ("Women make up 70% of the country's lawyers and 60% of its judges.",
     "Women make up 70% of the lawyers of the country and 60% of the his judges."),
    ("The first known use of the word in a political sense appeared in a pamphlet.",
     "The first known use of the word in a political sense appeared in a leaflet."),
    ("Humans lived in societies without formal hierarchies long before the establishment of formal states.",
     "Humans lived in societies without formal hierarchies long before the foundation of formal states."),
    ("Autism is a neurodevelopmental disorder characterized by difficulties with social interaction.",
     "Autism is a disorder characterized by difficulties with social interaction."),
]


def _output(tmp_path):
    """An OUTPUT/simplify directory as the job writes it: manifest, <variant>/<split>/*.tfrecord."""
    d = tmp_path / "simplify"
    n = 0
    for variant, method in (("s1", "back_translation:es"), ("s2", "lm_selected:ca"), ("s3", "simulated:ca")):
        for split in ("train", "test"):
            (d / variant / split).mkdir(parents=True)
            with open(d / variant / split / "part-00000-of-00001.tfrecord", "wb") as f:
                for i, (c, s) in enumerate(PAIRS):
                    if (i % 2 == 0) == (split == "train"):
                        n += 1
                        r = SimplificationExample(complex=c, simple=f"{s} ({variant})", method=method,
                                                  pivot=method.split(":")[1], doc_id=f"doc{i}", sentence_index=i,
                                                  simple_nll=5.0 + i)
                        f.write(tfrecord_frame(r.to_example()))
    (d / "manifest.json").write_text(json.dumps({
        "dataset": "simplify", "record": "SimplificationExample", "variants": ["s1", "s2", "s3"],
        "splits": ["train", "validation", "test"]}), encoding="utf-8")
    return d


def test_draw_writes_a_blind_sheet_and_a_key(tmp_path):
    out = _output(tmp_path)
    sheet, key = tmp_path / "sheet.txt", tmp_path / "key.tsv"
    assert cli.main(["blind", "draw", str(out), "--n", "s1=2,s2=4,s3=3", "--seed", "7",
                     "--sheet", str(sheet), "--key", str(key)]) == 0
    text = sheet.read_text(encoding="utf-8")
    items = [line for line in text.splitlines() if line.startswith("== ")]
    assert [line for line in items] == [f"== {i}" for i in range(1, 10)]
    # Source and output only: no variant, method, pivot or score on the sheet.
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    for hidden in ("lm_selected", "simulated", "back_translation", "pivot", "nll", "doc0", "train"):
        assert hidden not in body
    assert text.count("source: ") == 9 and text.count("output: ") == 9 and text.count("verdict: ") == 9
    rows = [line.split("\t") for line in key.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == list(blind.KEY_COLUMNS)
    variants = [r[1] for r in rows[1:]]
    assert sorted(variants) == ["s1"] * 2 + ["s2"] * 4 + ["s3"] * 3
    assert variants != sorted(variants)  # shuffled across variants
    # Each key row is the record on the sheet under that item (the test's outputs end in "(variant)").
    outputs = [line[len("output: "):] for line in text.splitlines() if line.startswith("output: ")]
    for row, output in zip(rows[1:], outputs):
        assert output.endswith(f"({row[1]})")
        assert row[3] == {"s1": "back_translation:es", "s2": "lm_selected:ca", "s3": "simulated:ca"}[row[1]]
    # Seeded: the same draw again is byte-identical; another seed is another sample.
    sheet2, key2 = tmp_path / "sheet2.txt", tmp_path / "key2.tsv"
    blind.main(["draw", str(out), "--n", "s1=2,s2=4,s3=3", "--seed", "7", "--sheet", str(sheet2), "--key", str(key2)])
    assert sheet2.read_bytes() == sheet.read_bytes() and key2.read_bytes() == key.read_bytes()
    blind.main(["draw", str(out), "--n", "s1=2,s2=4,s3=3", "--seed", "8", "--sheet", str(sheet2), "--key", str(key2)])
    assert sheet2.read_bytes() != sheet.read_bytes()


def test_draw_takes_every_record_of_a_small_variant(tmp_path):
    items = blind.draw(str(_output(tmp_path)), {"s2": 40}, seed=0)
    assert len(items) == len(PAIRS)
    assert sorted(i["record"].complex for i in items) == sorted(c for c, _ in PAIRS)


def test_score_counts_verdicts_per_variant(tmp_path, capsys):
    out = _output(tmp_path)
    sheet, key = tmp_path / "sheet.txt", tmp_path / "key.tsv"
    blind.main(["draw", str(out), "--n", "s2=4,s3=3", "--seed", "1", "--sheet", str(sheet), "--key", str(key)])
    variant_of = {int(r.split("\t")[0]): r.split("\t")[1] for r in key.read_text().splitlines()[1:]}
    # The reader: s2 items acceptable, small slip, broken, ...; s3 items broken; item 7 left empty.
    answers, s2_seen = {}, 0
    for item, variant in sorted(variant_of.items()):
        if item == 7:
            continue
        if variant == "s2":
            answers[item] = ["a", "s", "broken", "A"][s2_seen]
            s2_seen += 1
        else:
            answers[item] = "b"
    lines, current = [], None
    for line in sheet.read_text(encoding="utf-8").splitlines():
        if line.startswith("== "):
            current = int(line[3:])
        if line.startswith("verdict:") and current in answers:
            line = f"verdict: {answers[current]}"
        lines.append(line)
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert blind.main(["score", "--sheet", str(sheet), "--key", str(key)]) == 0
    table = blind.tally(blind.read_verdicts(str(sheet)), blind.read_key(str(key)))
    expected = {v: {"n": 0, "acceptable": 0, "small_slip": 0, "broken": 0, "unjudged": 0, "invalid": 0}
                for v in ("s2", "s3")}
    names = {"a": "acceptable", "A": "acceptable", "s": "small_slip", "b": "broken", "broken": "broken"}
    for item, variant in variant_of.items():
        expected[variant]["n"] += 1
        expected[variant][names[answers[item]] if item in answers else "unjudged"] += 1
    assert table == expected
    assert expected[variant_of[7]]["unjudged"] == 1 and sum(e["broken"] for e in expected.values()) >= 3
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[:2] == ["variant", "n"]
    s3 = expected["s3"]
    assert printed[2].split() == ["s3", "3", str(s3["acceptable"]), str(s3["small_slip"]), str(s3["broken"]),
                                  str(s3["unjudged"]), "0", f"{s3['acceptable'] + s3['small_slip']}/{3 - s3['unjudged']}",
                                  f"{100 * (s3['acceptable'] + s3['small_slip']) / (3 - s3['unjudged']):.0f}%"]


def test_score_refuses_a_sheet_of_another_key(tmp_path):
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("== 1\nsource: x\noutput: y\nverdict: a\n== 99\nsource: x\noutput: y\nverdict: b\n")
    key = tmp_path / "key.tsv"
    key.write_text("\t".join(blind.KEY_COLUMNS) + "\n1\ts2\ttrain\tlm_selected:es\td\t0\tabc\n")
    try:
        blind.tally(blind.read_verdicts(str(sheet)), blind.read_key(str(key)))
    except ValueError as e:
        assert "99" in str(e)
    else:
        raise AssertionError("a sheet item missing from the key must be an error")


ASSET = pathlib.Path(__file__).resolve().parents[3] / "shared" / "data" / "asset"


def _references(tmp_path):
    """A small reference corpus shaped like ASSET's files: X.orig and X.simp.0..2."""
    d = tmp_path / "refs"
    d.mkdir()
    sources = [f"Source sentence number {i} is rather long." for i in range(30)]
    (d / "corpus.orig").write_text("\n".join(sources) + "\n", encoding="utf-8")
    for k in range(3):
        (d / f"corpus.simp.{k}").write_text("\n".join(f"Sentence {i} is long (ref{k})." for i in range(30)) + "\n",
                                            encoding="utf-8")
    return f"{d / 'corpus.orig'},{d / 'corpus.simp.0'}"


def test_draw_mixes_unmarked_references_into_the_sheet(tmp_path):
    out, refs = _output(tmp_path), _references(tmp_path)
    sheet, key = tmp_path / "sheet.txt", tmp_path / "key.tsv"
    assert blind.main(["draw", str(out), "--n", "s2=3,s3=3", "--seed", "4", "--sheet", str(sheet), "--key", str(key),
                       "--references", refs, "--n_references", "12"]) == 0
    text = sheet.read_text(encoding="utf-8")
    assert text.count("source: ") == 18 and text.count("verdict: ") == 18
    # Shown like records: source and output only, nothing naming the reference corpus.
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    for hidden in ("reference", "corpus", "simp", "orig"):
        assert hidden not in body
    rows = [dict(zip(blind.KEY_COLUMNS, line.split("\t"))) for line in key.read_text(encoding="utf-8").splitlines()[1:]]
    assert sorted(r["variant"] for r in rows) == ["reference"] * 12 + ["s2"] * 3 + ["s3"] * 3
    outputs = [line[len("output: "):] for line in text.splitlines() if line.startswith("output: ")]
    sources = [line[len("source: "):] for line in text.splitlines() if line.startswith("source: ")]
    used = set()
    for row, source, output in zip(rows, sources, outputs):
        if row["variant"] != "reference":
            continue
        i = int(row["sentence_index"])
        k = row["method"].rsplit(".", 1)[1]
        assert row["method"] == f"reference:corpus.simp.{k}" and row["doc_id"] == "corpus.orig"
        assert source == f"Source sentence number {i} is rather long." and output == f"Sentence {i} is long (ref{k})."
        used.add(k)
    assert len(used) > 1  # one of the sibling files per line, not always .simp.0
    # Seeded: the same draw is byte-identical.
    sheet2, key2 = tmp_path / "sheet2.txt", tmp_path / "key2.tsv"
    blind.main(["draw", str(out), "--n", "s2=3,s3=3", "--seed", "4", "--sheet", str(sheet2), "--key", str(key2),
                "--references", refs, "--n_references", "12"])
    assert sheet2.read_bytes() == sheet.read_bytes() and key2.read_bytes() == key.read_bytes()


def test_score_reports_the_share_of_references(tmp_path, capsys):
    out, refs = _output(tmp_path), _references(tmp_path)
    sheet, key = tmp_path / "sheet.txt", tmp_path / "key.tsv"
    blind.main(["draw", str(out), "--n", "s2=2", "--seed", "3", "--sheet", str(sheet), "--key", str(key),
                "--references", refs, "--n_references", "4"])
    variant_of = {int(r.split("\t")[0]): r.split("\t")[1] for r in key.read_text().splitlines()[1:]}
    lines, current, ref_seen = [], None, 0
    for line in sheet.read_text(encoding="utf-8").splitlines():
        if line.startswith("== "):
            current = int(line[3:])
        if line.startswith("verdict:"):
            if variant_of[current] == "reference":
                line = "verdict: " + "assb"[ref_seen]
                ref_seen += 1
            else:
                line = "verdict: b"
        lines.append(line)
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert blind.main(["score", "--sheet", str(sheet), "--key", str(key)]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["reference"] == ["reference", "4", "1", "2", "1", "0", "0", "3/4", "75%"]
    assert rows["s2"] == ["s2", "2", "0", "0", "2", "0", "0", "0/2", "0%"]


def test_draw_reads_asset_references():
    """ASSET's test set in ../shared/data (read for evaluation only): ten .simp files per line."""
    orig = ASSET / "asset.test-0-199.orig"
    if not orig.exists():
        import pytest
        pytest.skip("../shared/data/asset not present")
    items = blind.draw_references(f"{orig},{ASSET / 'asset.test-0-199.simp.0'}", 20, seed=11)
    assert len(items) == 20 and {i["variant"] for i in items} == {"reference"}
    assert len({i["record"].method for i in items}) > 2
    lines = orig.read_text(encoding="utf-8").splitlines()
    assert all(lines[i["record"].sentence_index] == i["record"].complex for i in items)
