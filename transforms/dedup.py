"""Exact and near-duplicate removal as Beam transforms (miners.dedup does the work).

Both take and return PCollection[(variant, record)] or, after split
assignment, PCollection[(variant, split, record)] (the record is always the
last item, the variant the first); duplicates are removed within a variant,
across splits. Only Create / ParDo / GroupByKey / Flatten are used (no
state, no timers, no side inputs of the whole data), so the graph runs on the
Dask runner, and no step ever holds more than one key's values:

  ExactDedup:  (variant, rec) -> (exact_key, (variant, rec)) -> GroupByKey
               -> keep the smallest by `sort_key()`, reject the rest
  NearDedup:   (id, (variant, rec))                         id = exact key
    signatures -> ((variant, band_key), (id, signature))   one per LSH band
    GroupByKey -> edges (smaller id, larger id) inside each bucket, verified
                  by estimated Jaccard >= threshold
    connected components: `rounds` x (large-star, small-star), one GroupByKey
                  each (Kiveris et al. 2014), then a pointer-jump step
    -> (id, smallest id of its component) for every non-representative
    GroupByKey with the records by id -> keep or drop; drops meet their
    representative's text in a last GroupByKey that holds only dropped ids.

Why label propagation by star contraction and not a global union-find: a
union-find needs the whole edge list on one worker. Star contraction needs
only each node's neighbours per step. The number of rounds is fixed when the
graph is built (Beam has no loops); LSH buckets are linked as stars around
their smallest id, so components are shallow and converge in one or two
rounds in practice. A component that has not converged after `rounds` is
still handled safely: every dropped example names a kept or an already
dropped representative, never itself, and the `near_dedup/unconverged`
counter says how often the pointer had to jump.
"""
import apache_beam as beam

from miners import dedup as dd
from transforms.common import COUNTS, REJECTS, MiningDoFn

DEFAULT_CC_ROUNDS = 4


def _record(e):
    return e[-1]


def _order(e):
    """Deterministic order of candidates: variant, then the record's sort key, then the split if any."""
    return (e[0], e[-1].sort_key(), e[1:-1])


def _summary(record, fields, limit=300):
    return " | ".join(str(getattr(record, f)) for f in fields)[:limit]


class _KeepSmallestFn(MiningDoFn):
    """(key, [(variant, record)...]) -> the one with the smallest sort_key; rejects the rest."""

    def __init__(self, dataset, key_fields, stage="exact_dedup"):
        super().__init__(dataset, stage)
        self.key_fields = tuple(key_fields)

    def process(self, element):
        key, items = element
        items = sorted(items, key=_order)
        keep = items[0]
        self.inc("passed")
        yield keep
        for e in items[1:]:
            yield self.reject("duplicate_exact", source=e[0], key=key,
                              detail=f"kept: {_summary(_record(keep), self.key_fields)}",
                              payload=_record(e).to_json())


class ExactDedup(beam.PTransform):
    """Drop examples whose normalised key fields equal another's (within a variant).

    Returns dict(examples, rejects, counts).
    """

    def __init__(self, dataset, key_fields, label=None):
        super().__init__(label)
        self.dataset = dataset
        self.key_fields = tuple(key_fields)

    def expand(self, pcoll):
        fields = self.key_fields
        out = (pcoll
               | "KeyByNormalisedText" >> beam.Map(lambda e: (dd.exact_key(e[-1], fields, e[0]), e))
               | "GroupByExactKey" >> beam.GroupByKey()
               | "KeepOnePerKey" >> beam.ParDo(_KeepSmallestFn(self.dataset, fields)).with_outputs(
                   REJECTS, COUNTS, main="examples"))
        return {"examples": out.examples, "rejects": out[REJECTS], "counts": out[COUNTS]}


class _BandKeysFn(MiningDoFn):
    """(id, (variant, record)) -> ((variant, band_key), (id, signature)) for each band."""

    def __init__(self, dataset, key_fields, num_perm, bands, rows, shingle_size):
        super().__init__(dataset, "near_dedup")
        self.key_fields = tuple(key_fields)
        self.num_perm, self.bands, self.rows, self.shingle_size = num_perm, bands, rows, shingle_size
        self._hasher = None

    def setup(self):
        self._hasher = dd.MinHasher(self.num_perm, shingle_size=self.shingle_size)

    def process(self, element):
        node, e = element
        variant, record = e[0], e[-1]
        sh = dd.shingles(dd.key_text(record, self.key_fields), self.shingle_size)
        if not sh:
            self.inc("no_words")
            return
        sig = self._hasher.signature_bytes(shingle_list=sh)
        self.inc("signatures")
        for band in dd.band_keys(sig, self.bands, self.rows):
            yield (variant, band), (node, sig)


def _bucket_edges(element, threshold):
    _, members = element
    members = list(members)
    if len(members) < 2:
        return []
    return dd.bucket_edges(members, threshold)


def _large_star(element):
    node, nbrs = element
    return [(m, v) for v, m in dd.large_star(node, nbrs)]


def _small_star(element):
    node, nbrs = element
    return [(m, v) for v, m in dd.small_star(node, nbrs)]


def _both_directions(edge):
    a, b = edge
    return [(a, b), (b, a)]


def _larger_first(edge):
    a, b = edge
    return (b, a) if a < b else (a, b)


class ConnectedComponents(beam.PTransform):
    """PCollection[(a, b)] undirected edges -> PCollection[(node, representative)].

    Emits one pair for every node that is not the smallest of its component;
    the representative is the smallest node reached (exact once converged).
    Counts: `near_dedup/unconverged` (pointer jumps needed after the rounds).
    """

    def __init__(self, rounds=DEFAULT_CC_ROUNDS, label=None):
        super().__init__(label)
        self.rounds = rounds

    def expand(self, edges):
        for i in range(self.rounds):
            edges = (edges
                     | f"LargeStarSym{i}" >> beam.FlatMap(_both_directions)
                     | f"LargeStarGroup{i}" >> beam.GroupByKey()
                     | f"LargeStar{i}" >> beam.FlatMap(_large_star))
            edges = (edges
                     | f"SmallStarOrient{i}" >> beam.Map(_larger_first)
                     | f"SmallStarGroup{i}" >> beam.GroupByKey()
                     | f"SmallStar{i}" >> beam.FlatMap(_small_star))
        parents = (edges
                   | "ByLarger" >> beam.Map(_larger_first)
                   | "GroupParents" >> beam.GroupByKey()
                   | "MinParent" >> beam.MapTuple(lambda v, ps: (v, min(ps))))
        # One pointer jump: a node whose parent still has a parent takes the grandparent.
        as_child = parents | "AsChild" >> beam.MapTuple(lambda v, p: (p, ("child", v)))
        as_node = parents | "AsNode" >> beam.MapTuple(lambda v, p: (v, ("parent", p)))
        return ((as_child, as_node)
                | "FlattenPointers" >> beam.Flatten()
                | "GroupPointers" >> beam.GroupByKey()
                | "JumpPointers" >> beam.FlatMap(_jump))


def _jump(element):
    node, tagged = element
    parent, children = None, []
    for tag, v in tagged:
        if tag == "parent":
            parent = v
        else:
            children.append(v)
    # Every node with a parent is some node's child: emit each pointer once, from the parent's side.
    for c in sorted(children):
        if parent is not None:
            beam.metrics.Metrics.counter("quality", "near_dedup/unconverged").inc()
        yield c, (parent if parent is not None else node)


class _JoinDecisionFn(MiningDoFn):
    """(id, [('rec', (variant, record)) | ('rep', rep_id) | ('child', id)]) -> keep or drop."""

    DROPPED = "dropped"
    REP = "rep_text"

    def __init__(self, dataset, key_fields):
        super().__init__(dataset, "near_dedup")
        self.key_fields = tuple(key_fields)

    def process(self, element):
        node, tagged = element
        recs, rep, children = [], None, []
        for tag, v in tagged:
            if tag == "rec":
                recs.append(v)
            elif tag == "rep":
                rep = v
            else:
                children.append(v)
        if not recs:
            return
        recs.sort(key=_order)
        first = recs[0]
        for e in recs[1:]:  # identical ids: exact duplicates left in the input
            yield self.reject("duplicate_exact", source=e[0], key=node,
                              detail=f"kept: {_summary(_record(first), self.key_fields)}",
                              payload=_record(e).to_json())
        if rep is None:
            self.inc("passed")
            yield first
            for c in sorted(set(children)):
                yield beam.pvalue.TaggedOutput(self.REP, (c, ("rep", node, _summary(_record(first), self.key_fields))))
        else:
            yield beam.pvalue.TaggedOutput(self.DROPPED, (node, ("rec", first)))
            # A dropped node can still be the representative another node points to
            # (when components did not converge): pass its text on too.
            for c in sorted(set(children)):
                yield beam.pvalue.TaggedOutput(self.REP, (c, ("rep", node, _summary(_record(first), self.key_fields))))


class _RejectDroppedFn(MiningDoFn):
    def __init__(self, dataset):
        super().__init__(dataset, "near_dedup")

    def process(self, element):
        node, tagged = element
        rec, rep = None, None
        for v in tagged:
            if v[0] == "rec":
                rec = v[1]
            else:
                rep = v
        if rec is None:
            return
        variant, record = rec[0], rec[-1]
        rep_id, rep_text = (rep[1], rep[2]) if rep else ("", "")
        yield self.reject("duplicate_near", source=variant, key=node,
                          detail=f"merged into {rep_id}: {rep_text}", payload=record.to_json())


class NearDedup(beam.PTransform):
    """MinHash-LSH near-duplicate removal within each variant. Returns dict(examples, rejects, counts)."""

    def __init__(self, dataset, key_fields, threshold=dd.DEFAULT_THRESHOLD, num_perm=dd.DEFAULT_NUM_PERM,
                 shingle_size=dd.DEFAULT_SHINGLE_SIZE, rounds=DEFAULT_CC_ROUNDS, label=None):
        super().__init__(label)
        self.dataset = dataset
        self.key_fields = tuple(key_fields)
        self.threshold = threshold
        self.num_perm = num_perm
        self.shingle_size = shingle_size
        self.rounds = rounds
        self.bands, self.rows = dd.optimal_bands(threshold, num_perm, dd.FALSE_POSITIVE_WEIGHT,
                                                 dd.FALSE_NEGATIVE_WEIGHT)

    def expand(self, pcoll):
        fields = self.key_fields
        threshold = self.threshold
        keyed = pcoll | "KeyById" >> beam.Map(lambda e: (dd.exact_key(e[-1], fields, e[0]), e))
        sig = keyed | "BandKeys" >> beam.ParDo(_BandKeysFn(
            self.dataset, fields, self.num_perm, self.bands, self.rows, self.shingle_size)).with_outputs(
                COUNTS, main="bands")
        edges = (sig.bands
                 | "GroupByBand" >> beam.GroupByKey()
                 | "BucketEdges" >> beam.FlatMap(_bucket_edges, threshold))
        pointers = edges | "Components" >> ConnectedComponents(self.rounds)
        tagged = ((keyed | "TagRecords" >> beam.MapTuple(lambda k, vr: (k, ("rec", vr))),
                   pointers | "TagRep" >> beam.MapTuple(lambda v, p: (v, ("rep", p))),
                   pointers | "TagChild" >> beam.MapTuple(lambda v, p: (p, ("child", v))))
                  | "FlattenJoin" >> beam.Flatten()
                  | "GroupById" >> beam.GroupByKey())
        decided = tagged | "Decide" >> beam.ParDo(_JoinDecisionFn(self.dataset, fields)).with_outputs(
            _JoinDecisionFn.DROPPED, _JoinDecisionFn.REP, REJECTS, COUNTS, main="examples")
        dropped = ((decided[_JoinDecisionFn.DROPPED], decided[_JoinDecisionFn.REP])
                   | "FlattenDropped" >> beam.Flatten()
                   | "GroupDropped" >> beam.GroupByKey()
                   | "RejectDropped" >> beam.ParDo(_RejectDroppedFn(self.dataset)).with_outputs(
                       REJECTS, COUNTS, main="unused"))
        rejects = (decided[REJECTS], dropped[REJECTS]) | "FlattenRejects" >> beam.Flatten()
        counts = (sig[COUNTS], decided[COUNTS], dropped[COUNTS]) | "FlattenCounts" >> beam.Flatten()
        return {"examples": decided.examples, "rejects": rejects, "counts": counts}
