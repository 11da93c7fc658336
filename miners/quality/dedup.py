"""Exact and near-duplicate detection over records: pure Python, no Beam.

Exact duplicates share a *normalised key*: the dataset's key text fields,
NFKC-normalised, lower-cased, with whitespace collapsed and the spacing around
punctuation removed, so that the tokenized release form (`( 1990 ) , but`) and
the running-text form (`(1990), but`) of one sentence get the same key.

Near-duplicates follow the MinHash/LSH recipe (Broder 1997; Leskovec,
Rajaraman & Ullman, *Mining of Massive Datasets*, ch. 3): word shingles ->
MinHash signature (datasketch) -> `b` bands of `r` rows, each band hashed to a
*band key*. Examples sharing a band key are candidates; a candidate pair is an
edge when the signatures agree on at least `threshold` of their positions (the
estimated Jaccard similarity). Duplicates are the connected components of
that graph and one deterministic representative (smallest id) is kept per
component.

The connected-components helpers here are the per-key steps of the
*large-star / small-star* algorithm (Kiveris et al., "Connected Components in
MapReduce and Beyond", SoCC 2014): each step only needs the neighbours of one
node, i.e. one GroupByKey in Beam, and no worker ever holds the whole graph.
`UnionFind` is the in-memory reference used by tests and benchmarks.
"""
import functools
import hashlib
import re
import struct
import unicodedata
from typing import Dict, Iterable, List, Sequence, Tuple

# Defaults: 128 permutations and a 0.8 Jaccard threshold over 3-word shingles
# are the usual near-duplicate settings (Lee et al., "Deduplicating Training
# Data Makes Language Models Better", ACL 2022, uses 5-grams, 9000 perms and
# 0.8 on whole documents; sentence-length records need shorter shingles).
DEFAULT_NUM_PERM = 128
DEFAULT_THRESHOLD = 0.8
DEFAULT_SHINGLE_SIZE = 3
MINHASH_SEED = 1  # datasketch's default seed: signatures comparable with bare datasketch

# LSH band weights. Candidates are verified on the full signature (estimated
# Jaccard >= threshold) before they become edges, so a false positive of the
# banding costs one comparison, a false negative a kept duplicate: weigh
# misses 9:1. At threshold 0.8 and 128 permutations this gives 14 bands of 9
# rows instead of 9 x 13: a pair with Jaccard 0.89 is missed 0.2% of the time
# instead of 11% (1 - (1 - s^r)^b, MMDS §3.4.2).
FALSE_POSITIVE_WEIGHT = 0.1
FALSE_NEGATIVE_WEIGHT = 0.9

FIELD_SEPARATOR = " \u241e "  # joins several key fields into one text (SYMBOL FOR RECORD SEPARATOR)

_WS = re.compile(r"\s+")
# Spaces before closing punctuation and after opening punctuation are spacing, not content.
_SPACE_BEFORE = re.compile(r"\s+([.,;:!?%)\]}'\u2019\u201d]|n't\b)")
_SPACE_AFTER = re.compile(r"([(\[{$\u2018\u201c])\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "`": "'",
                         "\u2013": "-", "\u2014": "-"})
_WORD = re.compile(r"\w+(?:['\u2019]\w+)*")


def normalize_text(text: str) -> str:
    """Case, whitespace and punctuation spacing normalised (the exact-dedup form)."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).lower()
    text = text.replace("''", '"')
    text = _WS.sub(" ", text).strip()
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    return text


def key_text(record, fields: Sequence[str]) -> str:
    """The dataset's key fields of `record`, normalised and joined."""
    return FIELD_SEPARATOR.join(normalize_text(str(getattr(record, f))) for f in fields)


def key_shape(record, fields: Sequence[str]):
    """Which key fields of `record` are empty, as bytes that prefix its LSH band keys; None when none is.

    Two records whose key fields are empty in different places are not copies of each other, however
    much the fields they both fill share: a DiscoFuse single-sentence example (second sentence empty) and
    a pair example that starts with the same sentence are two examples (issue 52). None keeps the band
    keys of records with every key field filled as they were.
    """
    empty = [not str(getattr(record, f)).strip() for f in fields]
    if not any(empty):
        return None
    return b"\xff" + bytes(int(e) for e in empty)


def exact_key(record, fields: Sequence[str], namespace: str = "") -> str:
    """Hex digest of the normalised key fields (`namespace`: e.g. the variant)."""
    return text_key(key_text(record, fields), namespace)


def text_key(normalized: str, namespace: str = "") -> str:
    """`exact_key` from an already normalised key text (see `key_text`)."""
    return hashlib.blake2b(f"{namespace}\x00{normalized}".encode("utf-8"), digest_size=16).hexdigest()


def shingles(text: str, size: int = DEFAULT_SHINGLE_SIZE, normalized: bool = False) -> List[bytes]:
    """Distinct word `size`-grams of the normalised text (the whole text if shorter).

    `normalized=True`: `text` is already `normalize_text` output (skip that step).
    """
    words = _WORD.findall(text if normalized else normalize_text(text))
    if not words:
        return []
    if len(words) <= size:
        return [" ".join(words).encode("utf-8")]
    return sorted({" ".join(words[i:i + size]).encode("utf-8") for i in range(len(words) - size + 1)})


class MinHasher:
    """MinHash signatures with datasketch, permutations built once (not per example).

    Signatures equal `datasketch.MinHash(num_perm, seed).update_batch(shingles)`.
    One MinHash is cleared and reused per call: an instance is not thread-safe
    (Beam gives each thread its own DoFn instance, which owns one MinHasher).
    """

    def __init__(self, num_perm: int = DEFAULT_NUM_PERM, seed: int = MINHASH_SEED,
                 shingle_size: int = DEFAULT_SHINGLE_SIZE):
        from datasketch import MinHash  # imported here: optional dependency of the dedup stage
        self.num_perm = num_perm
        self.seed = seed
        self.shingle_size = shingle_size
        self._minhash = MinHash(num_perm=num_perm, seed=seed)

    def hashvalues(self, shingle_list: Sequence[bytes]):
        """datasketch hash values (numpy array) of a list of shingles."""
        m = self._minhash
        m.clear()
        m.update_batch(shingle_list)
        return m.hashvalues.copy()

    def signature(self, text: str) -> Tuple[int, ...]:
        """The signature of `text` (all-max values when the text has no word)."""
        return tuple(int(v) for v in self.hashvalues(shingles(text, self.shingle_size)))

    def signature_bytes(self, text: str = None, shingle_list: Sequence[bytes] = None) -> bytes:
        """The signature as little-endian uint32 bytes: compact to shuffle (4 bytes a value)."""
        import numpy as np
        if shingle_list is None:
            shingle_list = shingles(text, self.shingle_size)
        return np.asarray(self.hashvalues(shingle_list), dtype="<u4").tobytes()


@functools.lru_cache(maxsize=64)
def optimal_bands(threshold: float, num_perm: int, fp_weight: float = 0.5,
                  fn_weight: float = 0.5) -> Tuple[int, int]:
    """(bands, rows) minimising weighted false positives + false negatives around `threshold`.

    The S-curve 1 - (1 - s^r)^b is integrated numerically below and above the
    threshold (Leskovec et al., MMDS §3.4.2), the criterion datasketch's
    MinHashLSH uses (same weights, same answer).
    """
    def integral(f, a, b, steps=200):
        h = (b - a) / steps
        return sum(f(a + (i + 0.5) * h) for i in range(steps)) * h

    best, best_err = (1, num_perm), float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = integral(lambda s: 1 - (1 - s ** r) ** b, 0.0, threshold)
            fn = integral(lambda s: 1 - (1 - (1 - s ** r) ** b), threshold, 1.0)
            err = fp_weight * fp + fn_weight * fn
            if err < best_err:
                best, best_err = (b, r), err
    return best


def _as_bytes(signature) -> bytes:
    if isinstance(signature, bytes):
        return signature
    return struct.pack(f"<{len(signature)}I", *(v & 0xFFFFFFFF for v in signature))


def band_slices(signature: bytes, bands: int, rows: int) -> List[bytes]:
    """One key per band: band number (2 bytes) + the band's rows (4 bytes each, signature as ints or bytes).

    Two examples share a key exactly when they agree on every row of that
    band. The rows are hash values already, so the band itself is the key
    (4 * rows + 2 bytes): nothing to hash again.
    """
    data = _as_bytes(signature)
    width = 4 * rows
    return [i.to_bytes(2, "little") + data[i * width:(i + 1) * width] for i in range(bands)]


def band_partition(band_key: bytes, partitions: int) -> int:
    """Which of `partitions` shuffle partitions a raw band key goes to (its first row value, mod)."""
    return int.from_bytes(band_key[2:6], "little") % partitions


def estimated_jaccard(sig1, sig2) -> float:
    """Fraction of equal signature positions: an unbiased Jaccard estimate (ints or bytes)."""
    import numpy as np
    a = np.frombuffer(_as_bytes(sig1), dtype="<u4")
    b = np.frombuffer(_as_bytes(sig2), dtype="<u4")
    if len(a) != len(b) or not len(a):
        raise ValueError("signatures of different lengths")
    return float(np.count_nonzero(a == b)) / len(a)


def bucket_edges(members: Iterable[Tuple[str, Sequence[int]]], threshold: float) -> List[Tuple[str, str]]:
    """Edges of one LSH bucket: each member to the bucket's smallest id, when similar enough.

    Linking to one hub (a star) instead of every pair keeps a bucket linear in
    its size; members similar to each other but not to the hub are linked to
    the most similar-by-id member that passes instead, and are found anyway
    through other bands in the usual case.
    Returns (smaller_id, larger_id) pairs, sorted.
    """
    members = sorted(dict(members).items())
    edges = set()
    linked = []  # ids already attached, in id order: candidates for the next member
    for node, sig in members:
        for other, other_sig in linked:
            if estimated_jaccard(sig, other_sig) >= threshold:
                edges.add((other, node))
                break
        else:
            linked.append((node, sig))
            continue
    return sorted(edges)


# --------------------------------------------------------------------------
# Connected components: per-node steps of large-star / small-star
# --------------------------------------------------------------------------


def large_star(node: str, neighbours: Iterable[str]) -> List[Tuple[str, str]]:
    """Connect every larger neighbour of `node` to the smallest of node and its neighbours.

    Returns directed edges (larger, smaller).
    """
    nbrs = set(neighbours)
    m = min(nbrs | {node})
    return sorted((v, m) for v in nbrs if v > node)


def small_star(node: str, smaller_neighbours: Iterable[str]) -> List[Tuple[str, str]]:
    """Connect `node` and its smaller neighbours to the smallest of them.

    Returns directed edges (larger, smaller).
    """
    nbrs = set(smaller_neighbours) | {node}
    m = min(nbrs)
    return sorted((v, m) for v in nbrs if v != m)


class UnionFind:
    """In-memory union-find (path halving, union by smallest id): the reference."""

    def __init__(self):
        self.parent: Dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            lo, hi = min(ra, rb), max(ra, rb)
            self.parent[hi] = lo


def components(edges: Iterable[Tuple[str, str]]) -> Dict[str, str]:
    """node -> smallest node of its component, for every node of `edges`."""
    uf = UnionFind()
    for a, b in edges:
        uf.union(a, b)
    return {x: uf.find(x) for x in sorted(uf.parent)}
