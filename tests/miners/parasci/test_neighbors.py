"""Blocked nearest-neighbour search: equal to brute force, bounded memory, blocks of oversized groups."""
import tracemalloc

import numpy as np
import pytest

from miners.parasci import neighbors


def _unit(rng, n, d):
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _brute_topk(a, b, k, threshold, la=None, lb=None, exclude_same=False, self_mode=False, decimals=4):
    sims = a @ b.T
    if decimals is not None:  # as records keep scores (schemas.base.SCORE_DECIMALS); ties by row number
        sims = np.round(sims, decimals)
    if self_mode:
        np.fill_diagonal(sims, -np.inf)
    if exclude_same:
        sims[np.asarray(la)[:, None] == np.asarray(lb)[None, :]] = -np.inf
    sims[sims < threshold] = -np.inf
    out = {}
    for i in range(a.shape[0]):
        order = sorted(range(b.shape[0]), key=lambda j: (-sims[i, j], j))[:k]
        got = [(round(float(sims[i, j]), decimals) if decimals is not None else float(sims[i, j]), j)
               for j in order if sims[i, j] > -np.inf]
        if got:
            out[i] = got
    return out


def _assert_same(got, expected):
    """Same rows, same partners in the same order, cosines equal up to float32 summation order
    (a chunked product may differ from the full one in the last bits)."""
    assert sorted(got) == sorted(expected)
    for i, partners in expected.items():
        assert [j for _, j in got[i]] == [j for _, j in partners], i
        assert np.allclose([s for s, _ in got[i]], [s for s, _ in partners], atol=1e-5), i


@pytest.mark.parametrize("chunk", [7, 64, 1000])
def test_self_search_equals_brute_force_for_every_chunk_size(chunk):
    rng = np.random.default_rng(1)
    x = _unit(rng, 300, 16)
    labels = rng.integers(0, 3, 300)
    got = neighbors.topk_pairs(x, k=4, threshold=0.2, left_labels=labels, exclude_same=True, chunk=chunk)
    _assert_same(got, _brute_topk(x, x, 4, 0.2, labels, labels, exclude_same=True, self_mode=True))
    for i, partners in got.items():  # never a row with itself, never the same label
        assert all(j != i and labels[j] != labels[i] for _, j in partners)


def test_two_sided_search_equals_brute_force():
    rng = np.random.default_rng(2)
    a, b = _unit(rng, 120, 8), _unit(rng, 90, 8)
    got = neighbors.topk_pairs(a, b, k=3, threshold=0.0, chunk=25)
    _assert_same(got, _brute_topk(a, b, 3, 0.0))


def test_pairs_are_unordered_and_unique():
    rng = np.random.default_rng(3)
    x = _unit(rng, 200, 8)
    pairs = neighbors.self_pairs(x, k=5, threshold=0.5, chunk=50)
    assert pairs and all(i < j for i, j, _ in pairs)
    assert len({(i, j) for i, j, _ in pairs}) == len(pairs)
    for i, j, s in pairs:
        assert s == round(s, 4) and abs(s - float(x[i] @ x[j])) <= 0.5e-4 + 1e-6 and s >= 0.5  # rounded as records keep scores


def test_a_group_of_20000_sentences_is_searched_in_bounded_memory():
    """The full similarity matrix of 20,000 sentences would be 1.6 GB; the blocked search stays
    near its chunk x chunk block, and finds the planted paraphrases."""
    rng = np.random.default_rng(4)
    n, d = 20_000, 384
    x = _unit(rng, n, d)
    # 50 planted near-copies: row 2i+1 is row 2i plus a little noise.
    for i in range(0, 100, 2):
        y = x[i] + 0.01 * rng.standard_normal(d).astype(np.float32)
        x[i + 1] = y / np.linalg.norm(y)
    tracemalloc.start()
    pairs = neighbors.self_pairs(x, k=3, threshold=0.9, chunk=1024)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    full_matrix = n * n * 4
    assert peak < 64 * 2 ** 20 < full_matrix / 20
    assert {(i, i + 1) for i in range(0, 100, 2)} <= {(i, j) for i, j, _ in pairs}
    assert len(pairs) == 50  # random 384-d unit vectors never reach cosine 0.9


def test_blocks_of_an_oversized_group_meet_pairwise_once():
    blocks = neighbors.num_blocks(10_001, 2_500)
    assert blocks == 5
    met = {}
    for b in range(blocks):
        for pair in neighbors.block_pairs(b, blocks):
            met.setdefault(pair, set()).add(b)
    # every unordered pair of blocks (and every block with itself) is one key holding exactly those blocks
    assert set(met) == {(i, j) for i in range(blocks) for j in range(i, blocks)}
    assert all(members == {i, j} for (i, j), members in met.items())
    assert neighbors.num_blocks(0, 100) == 1 and neighbors.num_blocks(100, 100) == 1


def test_pairs_beyond_top_k_are_counted():
    # Five identical rows in two sections: 6 cross-section pairs, all above the threshold; with k=1
    # each row keeps one partner, and the pairs no row kept are counted, not silently lost.
    v = np.ones((5, 4), dtype=np.float32) / 2
    labels = ["a", "a", "b", "b", "b"]
    stats = {}
    pairs = neighbors.self_pairs(v, k=1, threshold=0.5, labels=labels, exclude_same=True, stats=stats)
    assert stats["above_threshold"] == 6
    assert stats["beyond_top_k"] == 6 - len(pairs) > 0
    assert neighbors.self_pairs(v, k=1, threshold=0.5, labels=labels, exclude_same=True) == pairs
