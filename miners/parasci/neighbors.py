"""Blocked nearest-neighbour search over L2-normalised sentence embeddings.

ParaSCI's candidate groups (the sentences of one paper, the definitions of one
term, the sentences citing one paper) are where all-pairs comparison breaks: a
paper cited 10,000 times gives 50 million pairs. Nothing here forms all pairs
or the full similarity matrix. The similarity of two blocks of rows is one
matrix product of at most `chunk` x `chunk` floats; each row keeps only its
`k` best partners above `threshold` (a bounded heap per row), so memory is
O(chunk^2 + n k) whatever the group size, and the output is at most n k pairs.

Rows carry a `partition` label (a section, a paper id): `exclude_same=True`
only pairs rows with different labels (intra-paper pairs must come from
different sections, cross-paper pairs from different papers).

The Beam stage (transforms/parasci.py) splits a group larger than one worker
should hold into blocks (`block_of`) and gives each pair of blocks to a
worker (`block_pairs`); a sentence's pairs from different block pairs are
merged downstream (transforms.parasci.KeepBestPairs keeps each sentence in its best pair).
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from schemas.base import SCORE_DECIMALS

#: Rows per matrix-product chunk: a chunk x chunk float32 product is 16 MB at 2048.
DEFAULT_CHUNK = 2048
#: Partners kept per sentence (project default: ParaSCI keeps every pair above its threshold;
#: a cap bounds the output of a group of near-identical sentences).
DEFAULT_TOP_K = 5

Pair = Tuple[int, int, float]  # (row i, row j, cosine), i < j in the caller's numbering


def _as_matrix(vectors) -> np.ndarray:
    m = np.asarray(vectors, dtype=np.float32)
    if m.ndim != 2:
        raise ValueError(f"expected a 2-d array of embeddings, got shape {m.shape}")
    return m


def topk_pairs(left, right=None, *, k: int = DEFAULT_TOP_K, threshold: float = 0.0,
               left_labels: Optional[Sequence] = None, right_labels: Optional[Sequence] = None,
               exclude_same: bool = False, chunk: int = DEFAULT_CHUNK,
               stats: Optional[Dict[str, int]] = None,
               decimals: Optional[int] = SCORE_DECIMALS) -> Dict[int, List[Tuple[float, int]]]:
    """For each left row, its best `k` right rows with cosine >= threshold.

    Each block of `chunk` left rows is multiplied with each block of `chunk` right rows; the
    block's k best per row (`argpartition`) are merged into a running (rows, k) best list, so no
    more than chunk x chunk similarities exist at a time.

    Args:
      left: (n, d) L2-normalised rows.
      right: (m, d) rows, or None for `left` against itself (a row is never its own partner).
      k: partners kept per left row.
      threshold: minimum cosine.
      left_labels / right_labels: a partition label per row (e.g. the section).
      exclude_same: only pair rows whose labels differ.
      chunk: rows per matrix-product block.
      stats: when given, stats["above_threshold"] is increased by the (left row, right row) partners
        at or above the threshold, kept or not, so a caller can count those beyond the top k.
      decimals: cosines are rounded to this many decimals before the threshold and the ranking (records
        keep scores so: schemas.base.SCORE_DECIMALS), so the last float bits of a vector (the machine's)
        never decide a partner; None keeps them whole.

    Returns:
      {left row: [(cosine, right row), ...] best first, ties by row number}; in self mode the
      right rows index `left`. Only rows with at least one partner appear.
    """
    a = _as_matrix(left)
    self_mode = right is None
    b = a if self_mode else _as_matrix(right)
    la = np.asarray(left_labels) if left_labels is not None else None
    lb = la if self_mode else (np.asarray(right_labels) if right_labels is not None else None)
    if exclude_same and (la is None or lb is None):
        raise ValueError("exclude_same needs labels for both sides")
    n, m = a.shape[0], b.shape[0]
    out: Dict[int, List[Tuple[float, int]]] = {}
    kk = min(k, m)
    if n == 0 or kk <= 0:
        return out
    # With rounded cosines, equal ones are common: a tie is broken by the right row's number (the lower
    # first), through a key that moves each cosine by less than half a rounding step.
    tie_step = 0.5 * 10.0 ** -decimals / (m + 1) if decimals is not None else 0.0
    for i0 in range(0, n, chunk):
        ai = a[i0:i0 + chunk]
        r = ai.shape[0]
        best_s = np.full((r, kk), -np.inf, dtype=np.float32)
        best_k = np.full((r, kk), -np.inf, dtype=np.float64)
        best_j = np.full((r, kk), -1, dtype=np.int64)
        for j0 in range(0, m, chunk):
            sims = ai @ b[j0:j0 + chunk].T  # at most chunk x chunk
            if decimals is not None:
                sims = np.round(sims, decimals)
            c = sims.shape[1]
            if self_mode and j0 < i0 + r and i0 < j0 + c:  # the block holds the diagonal
                ii = np.arange(r) + i0
                on = (ii >= j0) & (ii < j0 + c)
                sims[np.nonzero(on)[0], ii[on] - j0] = -np.inf
            if exclude_same:
                sims[la[i0:i0 + r, None] == lb[None, j0:j0 + c]] = -np.inf
            sims[sims < threshold] = -np.inf
            if stats is not None:
                stats["above_threshold"] = stats.get("above_threshold", 0) + int(np.count_nonzero(sims > -np.inf))
            keys = sims.astype(np.float64) - (np.arange(c) + j0)[None, :] * tie_step
            if c > kk:
                idx = np.argpartition(-keys, kk - 1, axis=1)[:, :kk]
                top = np.take_along_axis(sims, idx, axis=1)
                top_k = np.take_along_axis(keys, idx, axis=1)
            else:
                idx = np.broadcast_to(np.arange(c), (r, c))
                top, top_k = sims, keys
            cand_s = np.concatenate([best_s, top], axis=1)
            cand_k = np.concatenate([best_k, top_k], axis=1)
            cand_j = np.concatenate([best_j, idx + j0], axis=1)
            sel = np.argpartition(-cand_k, kk - 1, axis=1)[:, :kk]
            best_s = np.take_along_axis(cand_s, sel, axis=1)
            best_k = np.take_along_axis(cand_k, sel, axis=1)
            best_j = np.take_along_axis(cand_j, sel, axis=1)
        rows, cols = np.nonzero(best_s > -np.inf)
        for row, col in zip(rows.tolist(), cols.tolist()):
            s = float(best_s[row, col])
            out.setdefault(row + i0, []).append((round(s, decimals) + 0.0 if decimals is not None else s,
                                                 int(best_j[row, col])))
    for partners in out.values():
        partners.sort(key=lambda t: (-t[0], t[1]))
    return out


def pairs_from_topk(topk: Dict[int, List[Tuple[float, int]]]) -> List[Pair]:
    """Unordered pairs (i < j, cosine) from per-row top-k lists, each pair once, sorted."""
    seen = {}
    for i, partners in topk.items():
        for s, j in partners:
            key = (i, j) if i < j else (j, i)
            seen[key] = s
    return sorted(((i, j, s) for (i, j), s in seen.items()), key=lambda t: (t[0], t[1]))


def self_pairs(vectors, *, k: int = DEFAULT_TOP_K, threshold: float = 0.0, labels: Optional[Sequence] = None,
               exclude_same: bool = False, chunk: int = DEFAULT_CHUNK,
               stats: Optional[Dict[str, int]] = None) -> List[Pair]:
    """Candidate pairs inside one group: each row's best k partners above the threshold.

    With `stats`, stats["above_threshold"] counts the unordered pairs above the threshold and
    stats["beyond_top_k"] those that are in no row's top k (dropped by the cap)."""
    inner: Dict[str, int] = {}
    pairs = pairs_from_topk(topk_pairs(vectors, None, k=k, threshold=threshold, left_labels=labels,
                                       exclude_same=exclude_same, chunk=chunk, stats=inner))
    if stats is not None:
        above = inner.get("above_threshold", 0) // 2  # each unordered pair is seen from both rows
        stats["above_threshold"] = stats.get("above_threshold", 0) + above
        stats["beyond_top_k"] = stats.get("beyond_top_k", 0) + above - len(pairs)
    return pairs


# ------------------------------------------------------------------ blocks of an oversized group

def num_blocks(group_size: int, block_size: int) -> int:
    """Blocks a group is cut into so that one block pair fits a worker (>= 1)."""
    return max(1, -(-group_size // max(1, block_size)))


def block_pairs(block: int, blocks: int) -> List[Tuple[int, int]]:
    """The block pairs (i <= j) a member of `block` takes part in: every pair of blocks meets once."""
    return [(min(block, o), max(block, o)) for o in range(blocks)]
