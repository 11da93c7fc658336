"""Conventions shared by every DoFn of the project.

A mining DoFn has three outputs:
  * main: the kept elements;
  * `rejects` (REJECTS): `schemas.records.Reject` for every dropped input;
  * `counts` (COUNTS): `(counter_name, n)` pairs, pre-aggregated per bundle
    and emitted in `finish_bundle`, so the manifest can be computed from data
    on every runner (Beam metrics are not reported by all of them).

Counter names are `<stage>/passed` and `<stage>/filtered:<reason>` (STYLE.md
section 3); the same increments also go to Beam metrics for the runner's UI.

Reasons listed in `bulk_reasons` (e.g. "no marker", the fate of most sentence
pairs of a corpus) are always counted in full but written to rejects only for
a deterministic sample (`bulk_sample_rate`), so rejects stay inspectable
instead of duplicating the corpus.
"""
import collections

import apache_beam as beam
from apache_beam.transforms.window import GlobalWindow
from apache_beam.utils.timestamp import MIN_TIMESTAMP
from apache_beam.utils.windowed_value import WindowedValue

from miners.hashing import stable_fraction, stable_hash  # noqa: F401 (re-exported for transforms)
from schemas.records import Reject
from transforms import progress

REJECTS = "rejects"
COUNTS = "counts"




class MiningDoFn(beam.DoFn):
    """Base DoFn: `self.inc(name)`, `self.reject(...)` and per-bundle counts.

    Subclasses implement `process` and yield `self.reject(...)` results for drops.
    """

    def __init__(self, dataset: str, stage: str, bulk_reasons=(), bulk_sample_rate: float = 0.01):
        self.dataset = dataset
        self.stage = stage
        self.bulk_reasons = frozenset(bulk_reasons)
        self.bulk_sample_rate = bulk_sample_rate
        self._counts = None
        self._metrics = None
        self._live = None

    def start_bundle(self):
        self._counts = collections.Counter()
        self._live = progress.live_counts(self.dataset)  # the live progress display's side channel, or None
        if self._metrics is None:
            self._metrics = {}

    def inc(self, name: str, n: int = 1):
        """Count under `<stage>/<name>` unless the name already carries a stage."""
        full = name if "/" in name else f"{self.stage}/{name}"
        self._counts[full] += n
        if self._live is not None:
            self._live[full] += n
        counter = self._metrics.get(full)
        if counter is None:
            counter = self._metrics[full] = beam.metrics.Metrics.counter(self.dataset, full)
        counter.inc(n)

    def reject(self, reason: str, source="", key="", detail="", payload="", stage=None):
        """Count a rejection; return the tagged output to yield (or None when sampled out)."""
        stage = stage or self.stage
        self.inc(f"{stage}/filtered:{reason}")
        if reason in self.bulk_reasons and stable_fraction(f"{source}|{key}|{payload}", reason) >= self.bulk_sample_rate:
            return None
        return beam.pvalue.TaggedOutput(
            REJECTS, Reject.make(self.dataset, stage, reason, source, key, detail, payload))

    def finish_bundle(self):
        for name, n in sorted(self._counts.items()):
            yield beam.pvalue.TaggedOutput(COUNTS, in_global_window((name, n)))
        self._counts = collections.Counter()


def in_global_window(value):
    """`value` as an element of the global window: what `finish_bundle` must emit (it has no input element)."""
    return WindowedValue(value, MIN_TIMESTAMP, [GlobalWindow()])


def emit_all(results):
    """Yield every non-None element (helper for `yield from` with `reject()`)."""
    for r in results:
        if r is not None:
            yield r


def _bucket_of(element, total, sort_key, batch_size, batches_per_bucket, salt):
    buckets = max(1, -(-total // (batch_size * batches_per_bucket)))
    return stable_hash(sort_key(element), salt) % buckets, element


def _sorted_batches(bucket, sort_key, batch_size, element_size_fn=None):
    _, elements = bucket
    elements = sorted(elements, key=sort_key)
    if element_size_fn is None:
        for i in range(0, len(elements), batch_size):
            yield elements[i:i + batch_size]
        return
    batch, size = [], 0
    for e in elements:
        n = max(1, element_size_fn(e))
        if batch and size + n > batch_size:
            yield batch
            batch, size = [], 0
        batch.append(e)
        size += n
    if batch:
        yield batch


class DeterministicBatches(beam.PTransform):
    """PCollection[T] -> PCollection[[T]]: batches whose make-up depends on the input, not on its order.

    `beam.BatchElements` batches elements as they arrive in a bundle, and with several workers the
    arrival order changes from run to run. A model whose output depends on what else is in its batch
    (padding to the batch's longest sentence changes a BERT embedding in the last float bits) then
    writes different numbers on every run. Here the elements are spread over buckets by a stable
    hash of `sort_key(element)` (a string that identifies the element; the number of buckets grows
    with the input: about `batches_per_bucket` full batches each, so there is parallelism at scale),
    each bucket is sorted by the same key and cut into batches of `batch_size`.

    `element_size_fn` (optional): an element's size (e.g. the records of a group); a batch is then cut
    before its sizes would add up past `batch_size`, and buckets are counted in elements as before.

    Costs one grouping of the elements and a global count.
    """

    def __init__(self, sort_key, batch_size: int, batches_per_bucket: int = 16, salt: str = "batches",
                 element_size_fn=None, label=None):
        super().__init__(label)
        self.sort_key, self.batch_size = sort_key, batch_size
        self.batches_per_bucket, self.salt = batches_per_bucket, salt
        self.element_size_fn = element_size_fn

    def expand(self, pcoll):
        total = pcoll | "Count" >> beam.combiners.Count.Globally()
        return (pcoll
                | "Bucket" >> beam.Map(_bucket_of, beam.pvalue.AsSingleton(total), self.sort_key, self.batch_size,
                                       self.batches_per_bucket, self.salt)
                | "GroupBuckets" >> beam.GroupByKey()
                | "SortAndCut" >> beam.FlatMap(_sorted_batches, self.sort_key, self.batch_size, self.element_size_fn))
