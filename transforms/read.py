"""Beam readers of the text sources: files -> Documents / SentencePairs.

    paths --expand_inputs--> [file] --ReadDocuments--> {"documents": Document,
                                                        "rejects": Reject,
                                                        "counts": (name, n)}

Built from `Create(work items) | Reshuffle() | ParDo(...)` only (no `ReadFrom*`,
no splittable DoFn, no state or timers) so that every runner, Dask included,
runs it. A work item is one file, or one byte range of a multistream
Wikipedia dump (a run of whole bz2 streams), so one big dump is read by many
workers. The parsing itself lives in `miners.sources` (pure Python); here we
only open files through Beam's `FileSystems` (local, gs://, s3://, ...).
"""
import dataclasses
from typing import List, Sequence

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from miners import sources
from schemas.records import Reject
from transforms import progress
from transforms.common import COUNTS, REJECTS, MiningDoFn

DOCUMENTS = "documents"
PAIRS = "pairs"


class InputError(ValueError):
    """An input pattern matched nothing, or a matched file cannot be opened."""


def open_input(path: str):
    """The raw bytes of `path` on any Beam filesystem (decompression is done by the parsers)."""
    return FileSystems.open(path, mime_type="application/octet-stream",
                            compression_type=CompressionTypes.UNCOMPRESSED)


def expand_inputs(patterns: Sequence[str]) -> List[str]:
    """Every file matched by `patterns`, sorted and de-duplicated; fails fast.

    Called at pipeline-construction time (by the CLI) so that a typo stops the
    job before any worker starts.

    Raises:
      InputError: naming the pattern that matched nothing, or the file that
        cannot be opened and read.
    """
    if isinstance(patterns, str):
        patterns = [patterns]
    files = set()
    for pattern in patterns:
        try:
            results = FileSystems.match([pattern])
            metadata = results[0].metadata_list if results else []
        except Exception as e:  # noqa: BLE001 - each filesystem raises its own type
            raise InputError(f"input pattern {pattern!r} cannot be matched: {e}") from e
        paths = [m.path for m in metadata if not m.path.endswith("/")]
        if not paths:
            raise InputError(f"input pattern {pattern!r} matched no file")
        files.update(paths)
    for path in sorted(files):
        try:
            with open_input(path) as f:
                f.read(1)
        except Exception as e:  # noqa: BLE001
            raise InputError(f"input file {path!r} cannot be read: {type(e).__name__}: {e}") from e
    return sorted(files)


@dataclasses.dataclass(frozen=True)
class WorkItem:
    """One unit of reading: a whole file, or bytes [start, end) of a multistream dump."""
    path: str
    fmt: str
    start: int = 0
    end: int = -1


def _multistream_index(path: str) -> str:
    """The index next to a `*-multistream.xml.bz2` (`.txt.bz2` or `.txt`)."""
    stem = path[:-len("-multistream.xml.bz2")]
    for candidate in (f"{stem}-multistream-index.txt.bz2", f"{stem}-multistream-index.txt"):
        if FileSystems.exists(candidate):
            return candidate
    raise InputError(f"multistream dump {path!r} has no index next to it "
                     f"({stem}-multistream-index.txt.bz2); read it with fmt='wiki' instead")


def plan_work(paths: Sequence[str], fmt: str = "auto",
              range_bytes: int = sources.DEFAULT_RANGE_BYTES) -> List[WorkItem]:
    """Work items for `paths`: one per file, one per byte range of a multistream dump.

    Multistream index files given alongside their dump are not inputs and are left out.
    """
    items = []
    for path in sorted(set(paths)):
        try:
            kind = sources.detect_format(path, fmt)
        except ValueError as e:
            raise InputError(str(e)) from e
        if kind == "wiki_multistream_index":
            continue
        if kind == "wiki_multistream":
            index = _multistream_index(path)
            size = FileSystems.match([path])[0].metadata_list[0].size_in_bytes
            with open_input(index) as f:
                ranges = sources.multistream_ranges(f, size, range_bytes, index_name=index)
            items.extend(WorkItem(path, kind, s, e) for s, e in ranges)
        else:
            items.append(WorkItem(path, kind))
    return items


class ReadFileFn(MiningDoFn):
    """WorkItem -> Documents (main), Rejects (REJECTS), counts (COUNTS)."""

    def __init__(self, dataset: str, max_page_bytes: int = sources.DEFAULT_MAX_PAGE_BYTES):
        super().__init__(dataset, sources.STAGE)
        self.max_page_bytes = max_page_bytes

    def _records(self, item: WorkItem, f):
        if item.fmt == "wiki_multistream":
            return sources.iter_wiki_articles_range(f, item.path, item.start, item.end, self.dataset, self.inc,
                                                    max_page_bytes=self.max_page_bytes)
        if item.fmt == "wiki":
            return sources.iter_wiki_articles(f, item.path, self.dataset, self.inc,
                                              max_page_bytes=self.max_page_bytes)
        return sources.READERS[item.fmt](f, item.path, self.dataset, self.inc)

    def process(self, item: WorkItem):
        key = item.path if item.end < 0 else f"{item.path}@{item.start}-{item.end}"
        yield from guarded_read(self, item.path, key, lambda f: self._records(item, f), item.start)


def guarded_read(fn: MiningDoFn, path: str, key: str, records, start: int = 0):
    """The outputs of a reader DoFn `fn` for one file: `records(f)` over the opened file (its progress
    tracked from byte `start`), Rejects to the REJECTS tag; a reader that breaks on the file ends in
    one `reader_error` reject under `key` instead of killing the job."""
    try:
        with open_input(path) as f, progress.track_input(fn.dataset, f, start):
            for rec in records(f):
                if isinstance(rec, Reject):
                    yield beam.pvalue.TaggedOutput(REJECTS, rec)
                else:
                    yield rec
    except Exception as e:  # noqa: BLE001 - a file that breaks the reader must not kill the job
        # What was read before the failure has been emitted; the rest of the file is lost, said here.
        fn.inc(f"{fn.stage}/records")
        r = fn.reject("reader_error", path, key, f"{type(e).__name__}: {e}")
        if r is not None:
            yield r


class _ReadFiles(beam.PTransform):
    def __init__(self, paths, dataset, fmt, max_page_bytes, range_bytes, main):
        super().__init__()
        self.paths, self.dataset, self.fmt = list(paths), dataset, fmt
        self.max_page_bytes, self.range_bytes, self.main = max_page_bytes, range_bytes, main

    def expand(self, pbegin):
        items = plan_work(self.paths, self.fmt, self.range_bytes)
        wrong = [i.path for i in items if (i.fmt == "pairs") != (self.main == PAIRS)]
        if wrong:
            raise InputError(f"{wrong[0]!r} is read as {sources.detect_format(wrong[0], self.fmt)!r}: "
                             + ("read sentence pairs with ReadSentencePairs" if self.main == DOCUMENTS
                                else "ReadSentencePairs reads only s1<TAB>s2 files"))
        if not items:
            raise InputError(f"no readable input among {self.paths!r}")
        out = (pbegin
               | "WorkItems" >> beam.Create(items)
               | "Spread" >> beam.Reshuffle()
               | "Parse" >> beam.ParDo(ReadFileFn(self.dataset, self.max_page_bytes)).with_outputs(
                   REJECTS, COUNTS, main=self.main))
        return {self.main: out[self.main], REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


class ReadDocuments(_ReadFiles):
    """Documents of Wikipedia dumps, WET and JSONL files.

    Args:
      paths: expanded file paths (see `expand_inputs`).
      dataset: dataset name for Rejects and counters.
      fmt: "auto" (by file name) or one of `miners.sources.FORMATS`.
      max_page_bytes: larger Wikipedia pages are rejected `page_too_large`.
      range_bytes: size of the byte ranges a multistream dump is cut into.

    Returns (from `expand`): {"documents": PCollection[Document],
    "rejects": PCollection[Reject], "counts": PCollection[(name, n)]}.
    """

    def __init__(self, paths, dataset, fmt="auto", max_page_bytes=sources.DEFAULT_MAX_PAGE_BYTES,
                 range_bytes=sources.DEFAULT_RANGE_BYTES):
        super().__init__(paths, dataset, fmt, max_page_bytes, range_bytes, DOCUMENTS)
        if fmt == "pairs":
            raise ValueError("sentence-pair files are read with ReadSentencePairs")


class ReadSentencePairs(_ReadFiles):
    """SentencePairs of `s1 \\t s2` TSV files: {"pairs", "rejects", "counts"}."""

    def __init__(self, paths, dataset):
        super().__init__(paths, dataset, "pairs", sources.DEFAULT_MAX_PAGE_BYTES, sources.DEFAULT_RANGE_BYTES,
                         PAIRS)
