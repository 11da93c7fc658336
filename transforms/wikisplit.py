"""Beam wrappers of the WikiSplit miner (Botha et al., EMNLP 2018).

    file paths                                         # -> str (expanded history dump paths)
      | Reshuffle                                      # parallel over files
      | ReadRevisionPairsFn                            # -> RevisionPair; Skip -> rejects
      | MineSplitsFn                                   # -> SplitExample (one per C and pair)
      | DedupByComplex                                 # -> SplitExample (one per complex sentence)
      | AssignFixedSizeSplits                          # -> (variant, split, SplitExample)

Reading and mining are two DoFns that the runner fuses, so revision texts are
never serialised between them; the mining DoFn keeps a bounded cache of
cleaned wikitext blocks, so unchanged paragraphs are cleaned once per page.
"""
import typing

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from miners.wikisplit import splits as wikisplit
from miners.sources import history
from transforms.common import COUNTS, REJECTS, MiningDoFn, stable_hash

DATASET = "splits"
VARIANT = "base"
#: The release reserves 5,000 examples each for tune, validation and test (Botha et al. 2018, §3).
DEFAULT_SPLIT_SIZES = (("tune", 5000), ("validation", 5000), ("test", 5000))
#: Expected skips of revision miners: counted in full, written to rejects only for a sample.
NOISE_SKIPS = ("reverted_revision", "identity_revert", "revert_comment", "non_article_namespace")
_SPLIT_SALT = "wikisplit-split"


class ReadRevisionPairsFn(MiningDoFn):
    """File path -> `RevisionPair`s of adjacent kept revisions; skips and bad input -> rejects."""

    def __init__(self, revert_radius=history.REVERT_RADIUS, max_revision_chars=history.MAX_REVISION_CHARS,
                 noise_sample_rate=0.01):
        super().__init__(DATASET, "read", bulk_reasons=NOISE_SKIPS, bulk_sample_rate=noise_sample_rate)
        self.revert_radius = revert_radius
        self.max_revision_chars = max_revision_chars

    def process(self, path: str):
        try:
            raw = FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)
        except Exception as e:  # a missing or unreadable file must not kill the job
            r = self.reject("unreadable_file", source=path, key=path, detail=f"{type(e).__name__}: {e}")
            if r is not None:
                yield r
            return
        self.inc("files")
        try:
            with raw:
                stream = history.open_dump(raw, path)
                for item in history.iter_history(stream, path, revert_radius=self.revert_radius,
                                                 max_revision_chars=self.max_revision_chars):
                    if isinstance(item, history.Skip):
                        r = self.reject(item.reason, source=path, key=item.key, detail=item.detail,
                                        payload=item.payload)
                        if r is not None:
                            yield r
                    else:
                        self.inc("passed")
                        yield item
        except Exception as e:  # e.g. a corrupt 7z header: reject the rest of the file, go on
            r = self.reject("read_error", source=path, key=path, detail=f"{type(e).__name__}: {e}")
            if r is not None:
                yield r


class MineSplitsFn(MiningDoFn):
    """`RevisionPair` -> `SplitExample`s; filtered candidates and cleaner failures -> rejects."""

    def __init__(self, min_bleu=wikisplit.MIN_BLEU, cache_size=wikisplit.BLOCK_CACHE_SIZE, language="en",
                 hidden_namespaces=None):
        super().__init__(DATASET, "mine")
        self.min_bleu = min_bleu
        self.cache_size = cache_size
        self.language = language or "en"
        self.hidden_namespaces = None if hidden_namespaces is None else frozenset(hidden_namespaces)
        self._segmenter = None

    def setup(self):
        # The cleaner (mwparserfromhell) is loaded once per worker.
        self._segmenter = wikisplit.BlockSegmenter(cache_size=self.cache_size, language=self.language,
                                                   hidden_namespaces=self.hidden_namespaces)

    def process(self, pair):
        before, after = pair
        key = f"{after.page_id}:{before.revision_id}-{after.revision_id}"
        try:
            result = wikisplit.mine_revision_pair(pair, self._segmenter, min_bleu=self.min_bleu, inc=self.inc)
        except Exception as e:  # WikitextError and anything unexpected: this pair only
            from miners.text.wikitext import WikitextError
            reason = "wikitext_error" if isinstance(e, WikitextError) else "mining_error"
            r = self.reject(reason, source=after.path, key=key, detail=f"{type(e).__name__}: {e}")
            if r is not None:
                yield r
            return
        for rej in result.rejects:
            r = self.reject(rej.reason, source=after.path, key=key, detail=rej.detail,
                            payload=f"{rej.complex}\t{rej.simple1} <::::> {rej.simple2}")
            if r is not None:
                yield r
        for ex in result.examples:
            self.inc(f"passed:{ex.direction}")
            yield ex


class _BestOfFn(MiningDoFn):
    def __init__(self):
        super().__init__(DATASET, "dedup")

    def process(self, element):
        _, examples = element
        examples = list(examples)
        if len(examples) > 1:
            self.inc("duplicates_dropped", len(examples) - 1)
        self.inc("passed")
        yield wikisplit.best_of(examples)


class DedupByComplex(beam.PTransform):
    """Emit a complex sentence found in several revision pairs once (the best, deterministically).

    Returns a dict: `examples` and `counts`.
    """

    def expand(self, examples):
        out = (examples
               | "KeyByComplex" >> beam.Map(lambda e: (e.complex, e))
               | "GroupByComplex" >> beam.GroupByKey()
               | "KeepBest" >> beam.ParDo(_BestOfFn()).with_outputs(COUNTS, main="examples"))
        return {"examples": out.examples, "counts": out[COUNTS]}


def fill_fixed_splits(page_counts: typing.Iterable[typing.Tuple[int, int, int]],
                      sizes=DEFAULT_SPLIT_SIZES):
    """Greedy fill of fixed-size splits with whole pages in hash order.

    Args:
      page_counts: (hash, page_id, n_examples) of pages, any order.
      sizes: ((split, size), ...) filled in this order.

    Returns:
      (assignment, kept): page_id -> split for the reserved pages, and the
      sorted prefix of `page_counts` that decided it (pages after it go to train).
    """
    items = sorted(page_counts)
    assignment = {}
    i = 0
    for split, size in sizes:
        filled = 0
        while filled < size and i < len(items):
            _, page_id, n = items[i]
            assignment[page_id] = split
            filled += n
            i += 1
    return assignment, items[:i]


class _ReservePagesFn(beam.CombineFn):
    """Keeps only the pages that can still land in a fixed-size split (bounded memory)."""

    def __init__(self, sizes):
        self.sizes = tuple(sizes)

    def create_accumulator(self):
        return []

    def add_input(self, acc, element):
        acc.append(element)
        if len(acc) > 8192:
            acc[:] = fill_fixed_splits(acc, self.sizes)[1]
        return acc

    def merge_accumulators(self, accs):
        merged = [x for acc in accs for x in acc]
        return fill_fixed_splits(merged, self.sizes)[1]

    def extract_output(self, acc):
        return fill_fixed_splits(acc, self.sizes)[0]


class AssignFixedSizeSplits(beam.PTransform):
    """SplitExample -> (variant, split, SplitExample) with fixed-size reserved splits by page id.

    Pages are ordered by a stable hash of their id; whole pages fill `tune`,
    then `validation`, then `test` until each holds at least its size (the
    last page of a split may overshoot it); every other page goes to `train`.
    """

    def __init__(self, sizes=DEFAULT_SPLIT_SIZES, variant=VARIANT):
        super().__init__()
        self.sizes = tuple((s, int(n)) for s, n in sizes)
        self.variant = variant

    def expand(self, examples):
        reserved = (examples
                    | "PageOne" >> beam.Map(lambda e: (e.page_id, 1))
                    | "CountPerPage" >> beam.CombinePerKey(sum)
                    | "HashPage" >> beam.MapTuple(
                        lambda page_id, n: (stable_hash(str(page_id), _SPLIT_SALT), page_id, n))
                    | "ReservePages" >> beam.CombineGlobally(_ReservePagesFn(self.sizes)))
        variant = self.variant
        return examples | "AssignSplit" >> beam.Map(
            lambda e, table: (variant, table.get(e.page_id, "train"), e),
            table=beam.pvalue.AsSingleton(reserved))


class MineWikiSplit(beam.PTransform):
    """History dump paths -> dict of `presplit` (variant, split, SplitExample), `rejects`, `counts`."""

    def __init__(self, min_bleu=wikisplit.MIN_BLEU, sizes=DEFAULT_SPLIT_SIZES,
                 revert_radius=history.REVERT_RADIUS, max_revision_chars=history.MAX_REVISION_CHARS,
                 noise_sample_rate=0.01, language="en", hidden_namespaces=None):
        """`language`: the run's (segmenter); `hidden_namespaces`: link prefixes the cleaner drops (the dumps'
        file and category namespaces: `miners.sources.siteinfo.hidden_link_prefixes`; None: the built-in list)."""
        super().__init__()
        self.min_bleu = min_bleu
        self.language = language
        self.hidden_namespaces = hidden_namespaces
        self.sizes = sizes
        self.revert_radius = revert_radius
        self.max_revision_chars = max_revision_chars
        self.noise_sample_rate = noise_sample_rate

    def expand(self, paths):
        read = (paths
                | "ReshuffleFiles" >> beam.Reshuffle()
                | "ReadRevisionPairs" >> beam.ParDo(ReadRevisionPairsFn(
                    self.revert_radius, self.max_revision_chars, self.noise_sample_rate)
                ).with_outputs(REJECTS, COUNTS, main="pairs"))
        mined = (read.pairs
                 | "MineSplits" >> beam.ParDo(MineSplitsFn(self.min_bleu, language=self.language,
                                                         hidden_namespaces=self.hidden_namespaces)).with_outputs(
                     REJECTS, COUNTS, main="examples"))
        dedup = mined.examples | "DedupByComplex" >> DedupByComplex()
        presplit = dedup["examples"] | "AssignSplits" >> AssignFixedSizeSplits(self.sizes)
        return {
            "presplit": presplit,
            "rejects": [read[REJECTS], mined[REJECTS]],
            "counts": [read[COUNTS], mined[COUNTS], dedup["counts"]],
        }
