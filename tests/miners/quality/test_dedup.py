"""Unit tests of miners.quality.dedup: keys, shingles, signatures, bands, components."""
import itertools
import pathlib


from miners.quality import dedup as dd
from schemas.records import SplitExample

TUNE = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "wikisplit" / "tune.tsv"


def _tune(n):
    with open(TUNE, encoding="utf-8") as f:
        return [SplitExample.from_row(line.rstrip("\n").split("\t")) for line in itertools.islice(f, n)]


def test_normalize_text_case_whitespace_and_punctuation_spacing():
    assert dd.normalize_text("  The  Cat ,sat ( here ) .\n") == "the cat,sat (here)."
    # `` and '' (the release's quotes) become '"'; straight quotes keep their spacing (open or close?).
    assert dd.normalize_text("He said `` hi '' \u2014 twice") == 'he said " hi " - twice'
    assert dd.normalize_text("ﬁne") == "fine"  # NFKC ligature


def test_exact_key_equal_for_release_and_running_text_forms():
    tokenized = "' ( 1990 ) was the second sequel to appear , though Hooper did not return ."
    running = "' (1990) was the second sequel to appear, though hooper did not return."
    a = SplitExample(complex=tokenized, simple1="x", simple2="y")
    b = SplitExample(complex=running, simple1="other", simple2="z")
    assert dd.exact_key(a, ("complex",)) == dd.exact_key(b, ("complex",))
    assert dd.exact_key(a, ("complex",), "base") != dd.exact_key(a, ("complex",), "big")
    assert dd.exact_key(a, ("complex", "simple1")) != dd.exact_key(b, ("complex", "simple1"))


def test_shingles():
    assert dd.shingles("The cat sat on the mat.", 3) == [
        b"cat sat on", b"on the mat", b"sat on the", b"the cat sat"]
    assert dd.shingles("Short one", 3) == [b"short one"]
    assert dd.shingles(" , . ", 3) == []


def test_signature_equals_bare_datasketch():
    from datasketch import MinHash
    text = "Hooper did not return to direct due to scheduling conflicts with another film."
    bare = MinHash(num_perm=64, seed=dd.MINHASH_SEED)
    bare.update_batch(dd.shingles(text))
    assert dd.MinHasher(64).signature(text) == tuple(int(v) for v in bare.hashvalues)


def test_optimal_bands():
    # 9 bands x 13 rows: the S-curve 1-(1-s^13)^9 crosses 0.5 at s ~ 0.82.
    assert dd.optimal_bands(0.8, 128) == (9, 13)
    # Same choice as datasketch's MinHashLSH (equal false-positive / false-negative weights).
    from datasketch.lsh import _optimal_param
    for threshold, num_perm in ((0.5, 64), (0.7, 128), (0.9, 256)):
        assert dd.optimal_bands(threshold, num_perm) == _optimal_param(threshold, num_perm, 0.5, 0.5)
    # The dedup stage weighs misses 9:1 (candidates are verified afterwards).
    assert dd.optimal_bands(0.8, 128, dd.FALSE_POSITIVE_WEIGHT, dd.FALSE_NEGATIVE_WEIGHT) == (14, 9) == \
        _optimal_param(0.8, 128, 0.1, 0.9)


def test_band_slices_and_partitions():
    sig = tuple(range(100, 112))
    keys = dd.band_slices(sig, 3, 4)
    assert [int.from_bytes(k[:2], "little") for k in keys] == [0, 1, 2]
    assert all(len(k) == 2 + 4 * 4 for k in keys)
    assert dd.band_slices(dd._as_bytes(sig), 3, 4) == keys  # ints and bytes give the same keys
    other = dd.band_slices(sig[:4] + (99,) + sig[5:], 3, 4)
    assert keys[0] == other[0] and keys[1] != other[1] and keys[2] == other[2]
    # A band's partition is its first row value mod the partition count: same key, same partition.
    assert [dd.band_partition(k, 7) for k in keys] == [100 % 7, 104 % 7, 108 % 7]


def test_estimated_jaccard_and_bucket_edges():
    a, b, c = (1, 2, 3, 4), (1, 2, 3, 5), (9, 9, 9, 9)
    assert dd.estimated_jaccard(a, b) == 0.75
    assert dd.bucket_edges([("n2", b), ("n1", a), ("n3", c)], 0.7) == [("n1", "n2")]
    assert dd.bucket_edges([("n2", b), ("n1", a), ("n3", a)], 0.8) == [("n1", "n3")]


def test_star_steps():
    assert dd.large_star("b", ["a", "c", "d"]) == [("c", "a"), ("d", "a")]
    assert dd.large_star("a", ["c", "d"]) == [("c", "a"), ("d", "a")]
    assert dd.small_star("d", ["b", "c"]) == [("c", "b"), ("d", "b")]


def _star_rounds(edges, rounds):
    """The Beam ConnectedComponents algorithm, in memory, for the reference check."""
    for _ in range(rounds):
        nbrs = {}
        for a, b in edges:
            nbrs.setdefault(a, set()).add(b)
            nbrs.setdefault(b, set()).add(a)
        edges = {(m, v) for u, ns in nbrs.items() for v, m in dd.large_star(u, ns)}
        smaller = {}
        for a, b in edges:
            lo, hi = min(a, b), max(a, b)
            smaller.setdefault(hi, set()).add(lo)
        edges = {(m, v) for u, ns in smaller.items() for v, m in dd.small_star(u, ns)}
    parent = {}
    for m, v in edges:
        parent[v] = min(parent.get(v, m), m)
    return parent


def test_star_contraction_equals_union_find_on_chains_and_trees():
    chain = [(f"n{i:02d}", f"n{i + 1:02d}") for i in range(30)]
    reversed_chain = [(f"m{i:02d}", f"m{i - 1:02d}") for i in range(30, 0, -1)]
    tree = [(f"t{i:02d}", f"t{(i - 1) // 2:02d}") for i in range(1, 40)]
    edges = chain + reversed_chain + tree
    reference = {node: root for node, root in dd.components(edges).items() if node != root}
    assert len(reference) == 30 + 30 + 39
    # A sorted chain is the worst case: about log2(n) + 2 rounds (Kiveris et al. 2014).
    assert _star_rounds(edges, 5) == reference
    early = _star_rounds(edges, 4)
    assert early != reference
    # Not converged is still safe: every pointer goes to a smaller node of the same component.
    assert all(p < v and reference[v] == reference.get(p, p) for v, p in early.items())
    assert set(early) == set(reference)


def _true_jaccard(a, b):
    sa, sb = set(dd.shingles(a)), set(dd.shingles(b))
    return len(sa & sb) / len(sa | sb)


def test_lsh_finds_real_near_duplicates_and_keeps_distinct_sentences():
    texts, sets = [], []
    for rec in _tune(400):
        sh = set(dd.shingles(rec.complex))
        if len(rec.complex.split()) >= 25 and all(len(sh & o) / len(sh | o) < 0.5 for o in sets):
            texts.append(rec.complex)
            sets.append(sh)
    texts = texts[:60]
    perturbed = [t.rstrip(".") + " as well." for t in texts[:20]]  # one more word at the end
    assert all(_true_jaccard(a, b) >= 0.9 for a, b in zip(texts, perturbed))
    hasher = dd.MinHasher()
    bands, rows = dd.optimal_bands(0.8, 128, dd.FALSE_POSITIVE_WEIGHT, dd.FALSE_NEGATIVE_WEIGHT)
    nodes = [(f"o{i:03d}", t) for i, t in enumerate(texts)] + [(f"p{i:03d}", t) for i, t in enumerate(perturbed)]
    buckets = {}
    for node, text in nodes:
        sig = hasher.signature(text)
        for key in dd.band_slices(sig, bands, rows):
            buckets.setdefault(key, []).append((node, sig))
    edges = sorted({e for members in buckets.values() if len(members) > 1 for e in dd.bucket_edges(members, 0.8)})
    assert edges == [(f"o{i:03d}", f"p{i:03d}") for i in range(20)]
