"""Exact and near-duplicate removal as Beam transforms (miners.quality.dedup does the work).

Both take and return PCollection[(variant, record)] or, after split
assignment, PCollection[(variant, split, record)] (the record is always the
last item, the variant the first); duplicates are removed within a variant,
across splits. Only Create / ParDo / GroupByKey / Flatten are used (no
state, no timers, no side inputs of the whole data), so the graph runs on the
Dask runner, and no step ever holds more than one key's values:

  ExactDedup:  (variant, rec) -> (exact_key, (variant, rec)) -> GroupByKey
               -> keep the smallest by `sort_key()`, reject the rest
  NearDedup:   (variant, rec) -> (id, rec)                  id = exact key
    signatures -> band entries (band_key, id, signature), one per LSH band,
                  batched per bundle into ((variant, partition), [entries])
                  where partition = band_key's first row mod `partitions`
    GroupByKey -> buckets of each partition -> edges (smaller id, larger id)
                  inside each bucket, verified by estimated Jaccard >= threshold
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

Why partitions of bands and not one GroupByKey element per band: Beam's cost
is per element, and 14 band elements per example made the band shuffle most
of the stage's time (bench/bench_dedup.py). A partition holds 1/`partitions`
of the band entries of a variant (each ~0.6 KB with its 128-value
signature): 1,024 partitions keep one under 100 MB up to ~10 M examples per
variant; raise `partitions` for bigger datasets.
"""
import apache_beam as beam
from miners.quality import dedup as dd
from transforms.common import COUNTS, REJECTS, MiningDoFn, in_global_window

DEFAULT_CC_ROUNDS = 4
DEFAULT_PARTITIONS = 1024


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
        items = list(items)
        if len(items) > 1:
            items.sort(key=_order)
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


class _SignFn(MiningDoFn):
    """(variant, record) -> main: (id, ('rec', (variant, record))); BANDS: batches of band entries.

    The id is the exact-dedup key of the record. Band entries
    `(band_key, id, signature)` are not emitted one by one: they are buffered
    per `(variant, partition)` and emitted as one list per partition and
    bundle (and whenever the buffer holds `flush_entries`), so the band
    shuffle moves a few hundred elements per bundle instead of `bands`
    elements per example (Beam's cost is per element, not per byte).
    """

    BANDS = "bands"

    def __init__(self, dataset, key_fields, num_perm, bands, rows, shingle_size, partitions,
                 flush_entries=100_000):
        super().__init__(dataset, "near_dedup")
        self.key_fields = tuple(key_fields)
        self.num_perm, self.bands, self.rows, self.shingle_size = num_perm, bands, rows, shingle_size
        self.partitions = partitions
        self.flush_entries = flush_entries
        self._hasher = None
        self._buffer = None
        self._buffered = 0

    def setup(self):
        self._hasher = dd.MinHasher(self.num_perm, shingle_size=self.shingle_size)

    def start_bundle(self):
        super().start_bundle()
        self._buffer = {}
        self._buffered = 0

    def process(self, element):
        variant, record = element[0], element[-1]
        text = dd.key_text(record, self.key_fields)
        node = dd.text_key(text, variant)
        yield node, ("rec", element)
        sh = dd.shingles(text, self.shingle_size, normalized=True)
        if not sh:
            self.inc("no_words")
            return
        sig = self._hasher.signature_bytes(shingle_list=sh)
        self.inc("signatures")
        partitions, buffer = self.partitions, self._buffer
        shape = dd.key_shape(record, self.key_fields)
        for band in dd.band_slices(sig, self.bands, self.rows):
            key = (variant, dd.band_partition(band, partitions))
            entries = buffer.get(key)
            if entries is None:
                entries = buffer[key] = []
            # records of another shape (a key field empty in one, not in the other) never share a bucket
            entries.append((band if shape is None else shape + band, node, sig))
        self._buffered += self.bands
        if self._buffered >= self.flush_entries:
            yield from self._flush(lambda v: beam.pvalue.TaggedOutput(self.BANDS, v))

    def _flush(self, wrap):
        buffer, self._buffer, self._buffered = self._buffer, {}, 0
        for key in sorted(buffer):
            yield wrap((key, buffer[key]))

    def finish_bundle(self):
        yield from self._flush(lambda v: beam.pvalue.TaggedOutput(self.BANDS, in_global_window(v)))
        yield from super().finish_bundle()


def _partition_edges(element, threshold):
    """((variant, partition), [[(band_key, id, signature)...]...]) -> edges of every bucket with 2+ ids."""
    _, batches = element
    buckets = {}
    for batch in batches:
        for band, node, sig in batch:
            members = buckets.get(band)
            if members is None:
                buckets[band] = [(node, sig)]
            else:
                members.append((node, sig))
    edges = set()
    for members in buckets.values():
        if len(members) > 1:
            edges.update(dd.bucket_edges(members, threshold))
    return sorted(edges)


def _large_star(element):
    """Large-star step of one node; emits (larger, smaller) edges, oriented for the small star."""
    node, nbrs = element
    return dd.large_star(node, nbrs)


def _small_star(element):
    """Small-star step of one node; emits each edge in both directions, ready for the next large star."""
    node, nbrs = element
    for v, m in dd.small_star(node, nbrs):
        yield v, m
        yield m, v


def _both_directions(edge):
    a, b = edge
    return [(a, b), (b, a)]


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
        # Each round: large star (group by node over both directions) -> (larger, smaller) edges
        # -> small star (group by the larger node) -> both directions again for the next round.
        edges = edges | "BothDirections" >> beam.FlatMap(_both_directions)
        for i in range(self.rounds):
            edges = (edges
                     | f"LargeStarGroup{i}" >> beam.GroupByKey()
                     | f"LargeStar{i}" >> beam.FlatMap(_large_star)
                     | f"SmallStarGroup{i}" >> beam.GroupByKey()
                     | f"SmallStar{i}" >> beam.FlatMap(_small_star))
        # Both directions of every edge: keep each once, as (larger, smaller), grouped by the larger.
        parents = (edges
                   | "ByLarger" >> beam.Filter(lambda e: e[0] > e[1])
                   | "GroupParents" >> beam.GroupByKey()
                   | "Pointers" >> beam.FlatMap(_pointers))
        # One pointer jump: a node whose parent still has a parent takes the grandparent.
        return (parents
                | "GroupPointers" >> beam.GroupByKey()
                | "JumpPointers" >> beam.FlatMap(_jump))


def _pointers(element):
    """(node, smaller neighbours) -> its parent (the smallest), told to both: (node, parent), (parent, child)."""
    node, smaller = element
    parent = min(smaller)
    return [(node, ("parent", parent)), (parent, ("child", node))]


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


def _tag_pointer(pointer):
    """(node, rep) -> the node learns its representative, the representative its child."""
    node, rep = pointer
    return [(node, ("rep", rep)), (rep, ("child", node))]


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
        if len(recs) > 1:
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
                 shingle_size=dd.DEFAULT_SHINGLE_SIZE, rounds=DEFAULT_CC_ROUNDS, partitions=DEFAULT_PARTITIONS,
                 flush_entries=100_000, label=None):
        super().__init__(label)
        if partitions < 1:
            raise ValueError(f"near-dedup partitions must be >= 1, got {partitions}")
        self.partitions = partitions
        self.flush_entries = flush_entries
        self.dataset = dataset
        self.key_fields = tuple(key_fields)
        self.threshold = threshold
        self.num_perm = num_perm
        self.shingle_size = shingle_size
        self.rounds = rounds
        self.bands, self.rows = dd.optimal_bands(threshold, num_perm, dd.FALSE_POSITIVE_WEIGHT,
                                                 dd.FALSE_NEGATIVE_WEIGHT)

    def expand(self, pcoll):
        threshold = self.threshold
        signed = pcoll | "Sign" >> beam.ParDo(_SignFn(
            self.dataset, self.key_fields, self.num_perm, self.bands, self.rows, self.shingle_size,
            self.partitions, self.flush_entries)).with_outputs(_SignFn.BANDS, COUNTS, main="records")
        edges = (signed[_SignFn.BANDS]
                 | "GroupByBandPartition" >> beam.GroupByKey()
                 | "BucketEdges" >> beam.FlatMap(_partition_edges, threshold))
        pointers = edges | "Components" >> ConnectedComponents(self.rounds)
        fields = self.key_fields
        tagged = ((signed.records,
                   pointers | "TagPointers" >> beam.FlatMap(_tag_pointer))
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
        counts = (signed[COUNTS], decided[COUNTS], dropped[COUNTS]) | "FlattenCounts" >> beam.Flatten()
        return {"examples": decided.examples, "rejects": rejects, "counts": counts}
