"""Complex -> simple pairs from the files datasets ship in (miners/simsim/pair_files.py).

Each format is written by the test in its release layout (WikiLarge .src/.dst, ASSET .orig +
.simp.N, TurkCorpus .norm + .turk.N, TSV, WikiSplit, DiscoFuse with its header, Discovery),
plus the real WikiSplit tune.tsv of ../shared/data.
"""
import gzip

import pytest

from miners.simsim import pair_files as pf
from schemas.records import FusionExample, SimplificationExample, SplitExample
from tests.conftest import SHARED_DATA

TUNE = SHARED_DATA / "wikisplit" / "tune.tsv"
COMPLEX = ["The bridge , which was built by the Romans , still stands .",
           "He purchased a house in Paris and commenced work on the novel .",
           "Approximately 30 villages were destroyed ."]
SIMPLE = ["The bridge still stands .", "He bought a house in Paris . He began work on the novel .",
          "About 30 villages were destroyed ."]


def write(path, lines, gz=False):
    text = "".join(line + "\n" for line in lines)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def read(path, fmt="auto", references="all"):
    counts = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n
    return list(pf.read_pairs(str(path), fmt, references, inc)), counts


def test_wikilarge_src_dst_from_either_side(tmp_path):
    src = write(tmp_path / "wiki.full.aner.ori.test.src", COMPLEX)
    dst = write(tmp_path / "wiki.full.aner.ori.test.dst", SIMPLE)
    assert pf.detect_format(src) == pf.detect_format(dst) == "parallel"
    pairs, counts = read(src)
    assert pairs == list(zip(COMPLEX, SIMPLE)) and counts == {"pairs": 3}
    assert read(dst)[0] == pairs
    assert pf.describe_input(src, "parallel") == f"{src} -> {dst}"


def test_asset_orig_with_ten_references(tmp_path):
    orig = write(tmp_path / "asset.test.orig", COMPLEX)
    for n in range(10):
        write(tmp_path / f"asset.test.simp.{n}", [f"{s} ({n})" for s in SIMPLE])
    pairs, counts = read(orig)
    assert len(pairs) == 30 and counts == {"pairs": 30}
    # one complex sentence's references together, in reference order (0, 1, ..., 9: numeric, not 0, 1, 10)
    assert pairs[:3] == [(COMPLEX[0], f"{SIMPLE[0]} (0)"), (COMPLEX[0], f"{SIMPLE[0]} (1)"),
                         (COMPLEX[0], f"{SIMPLE[0]} (2)")]
    assert read(orig, references="first")[0] == [(c, f"{s} (0)") for c, s in zip(COMPLEX, SIMPLE)]
    # naming one reference reads only that one
    assert read(tmp_path / "asset.test.simp.3")[0] == [(c, f"{s} (3)") for c, s in zip(COMPLEX, SIMPLE)]
    assert pf.describe_input(orig, "parallel").endswith("asset.test.simp.0 (+9 more references)")


def test_turkcorpus_norm_with_turk_references_gzipped(tmp_path):
    norm = write(tmp_path / "test.8turkers.tok.norm.gz", COMPLEX, gz=True)
    for n in range(8):
        write(tmp_path / f"test.8turkers.tok.turk.{n}.gz", SIMPLE, gz=True)
    pairs, counts = read(norm)
    assert len(pairs) == 24 and set(pairs) == set(zip(COMPLEX, SIMPLE))


def test_parallel_bad_lines_and_errors(tmp_path):
    orig = write(tmp_path / "set.complex", COMPLEX + ["A lone sentence ."])
    write(tmp_path / "set.simple", SIMPLE + ["   "])
    pairs, counts = read(orig)
    assert len(pairs) == 3 and counts == {"pairs": 3, "bad:empty_side": 1}
    write(tmp_path / "short.orig", COMPLEX)
    write(tmp_path / "short.simp", SIMPLE[:2])
    with pytest.raises(pf.PairFileError, match=r"short.simp has 2 lines but .*short.orig has 3"):
        read(tmp_path / "short.orig")
    lonely = write(tmp_path / "lonely.src", COMPLEX)
    with pytest.raises(pf.PairFileError, match="lonely.src: no simple-side file"):
        read(lonely)
    with pytest.raises(pf.PairFileError, match="input .*missing.tsv does not exist"):
        read(tmp_path / "missing.tsv")


def test_tsv_with_bad_lines_counted(tmp_path):
    path = write(tmp_path / "pairs.tsv", [f"{c}\t{s}\textra column" for c, s in zip(COMPLEX, SIMPLE)]
                 + ["", "no tab here", "\tonly a simple side", "a  complex   side\t  a simple side "])
    assert pf.detect_format(path) == "tsv"
    pairs, counts = read(path)
    assert pairs == list(zip(COMPLEX, SIMPLE)) + [("a complex side", "a simple side")]
    assert counts == {"pairs": 4, "bad:blank_line": 1, "bad:too_few_columns": 1, "bad:empty_side": 1}


def test_our_simplify_release_tsv(tmp_path):
    record = SimplificationExample(complex="He purchased a house.", simple="He bought a house.", method="simulated:de")
    path = write(tmp_path / "simplify-train.tsv", ["\t".join(record.to_row())])
    assert read(path)[0] == [("He purchased a house.", "He bought a house.")]
    assert pf.record_pair(record) == ("He purchased a house.", "He bought a house.")


def test_wikisplit_release_tsv(tmp_path):
    rows = [SplitExample(complex="The bridge, which the Romans built, still stands.", simple1="The bridge still stands.",
                         simple2="The Romans built it.").to_row()]
    path = write(tmp_path / "train.tsv", ["\t".join(r) for r in rows] + ["A complex line\twithout the separator"])
    assert pf.detect_format(path) == "wikisplit"
    pairs, counts = read(path)
    assert pairs == [("The bridge, which the Romans built, still stands.",
                      "The bridge still stands. The Romans built it.")]
    assert counts == {"pairs": 1, "bad:no_separator": 1}


def test_the_real_wikisplit_tune_set():
    pairs, counts = read(TUNE)
    assert len(pairs) == 5000 and counts == {"pairs": 5000}
    complex_, simple = pairs[1]
    # commas and full stops re-attached (quotes left as the release has them); the two simple sentences joined
    assert complex_ == "' Maolain ' said to be diminutive of ' bald ', name of Irish Lord of Gaileang Breagh in 12th century."
    assert simple == "' Maolain ' said to be diminuative of ' bald '. Name of Irish Lord of Gaileang Breagh in 12th century."


def test_discofuse_release_tsv(tmp_path):
    header = "\t".join(FusionExample.RELEASE_COLUMNS)
    row = ["Moore was born in Memphis , but he grew up in Dallas .", "", "Moore was born in Memphis .",
           "Moore grew up in Dallas .", "PAIR_CONN", "but", "0.0", "0.0"]
    path = write(tmp_path / "train_balanced.tsv", [header, "\t".join(row), "\t".join(row[:3]),
                                                   "\t".join(row[:6] + ["yes", "0.0"])])
    assert pf.detect_format(path) == "discofuse"
    pairs, counts = read(path)
    # the coherent (fused) text is the complex side, the incoherent pair the simple one
    assert pairs == [("Moore was born in Memphis, but he grew up in Dallas.",
                      "Moore was born in Memphis. Moore grew up in Dallas.")]
    assert counts == {"pairs": 1, "bad:too_few_columns": 1, "bad:bad_row": 1}


def test_discovery_markers_are_no_rewrite(tmp_path):
    path = write(tmp_path / "discovery.tsv", ["sentence1\tsentence2\tlabel", "It rained.\tWe stayed in.\tso"])
    assert pf.detect_format(path) == "markers"
    assert read(path) == ([], {})


def test_format_cannot_be_told(tmp_path):
    path = write(tmp_path / "notes.txt", ["one column only"])
    with pytest.raises(pf.PairFileError, match="cannot tell the format of .*notes.txt.*pass --format"):
        pf.detect_format(path)
    with pytest.raises(pf.PairFileError, match="unknown format 'xml'"):
        read(path, "xml")


def test_reservoir_is_seeded_and_keeps_order():
    a, n = pf.reservoir(iter(range(1000)), 10, seed=3)
    b, _ = pf.reservoir(iter(range(1000)), 10, seed=3)
    assert a == b and n == 1000 and len(a) == 10 and a == sorted(a)
    assert pf.reservoir(iter(range(1000)), 10, seed=4)[0] != a
    assert pf.reservoir(iter(range(5)), 10, seed=0) == ([0, 1, 2, 3, 4], 5)
    assert pf.reservoir(iter(range(5)), 0, seed=0) == ([0, 1, 2, 3, 4], 5)
