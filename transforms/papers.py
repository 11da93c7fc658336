"""Beam reader of scientific papers: files -> Papers (parsing in miners/parasci/papers.py).

    paths --ReadPapers--> {"papers": Paper, "rejects": Reject, "counts": (name, n)}

One work item per file (`Create | Reshuffle | ParDo`, as `transforms.read`
does, so every runner, Dask included, runs it); a JSON-lines shard yields
many papers, a TEI / JATS / pretty-printed S2ORC file one. Files are opened
through Beam's `FileSystems` (local, gs://, s3://, ...) and decompressed by
the parser (`.gz`, `.bz2`).
"""
import apache_beam as beam

from miners.parasci import papers as mp
from miners import sources
from transforms.common import COUNTS, REJECTS, MiningDoFn
from transforms.read import InputError, expand_inputs, guarded_read

PAPERS = "papers"


class ReadPaperFileFn(MiningDoFn):
    """file path -> Papers (main), Rejects (REJECTS), counts (COUNTS)."""

    def __init__(self, dataset: str, max_paper_bytes: int = mp.DEFAULT_MAX_PAPER_BYTES):
        super().__init__(dataset, sources.STAGE)
        self.max_paper_bytes = max_paper_bytes

    def process(self, path: str):
        yield from guarded_read(self, path, path, lambda f: mp.iter_papers(
            f, path, self.dataset, self.inc, max_paper_bytes=self.max_paper_bytes))


class ReadPapers(beam.PTransform):
    """Papers of S2ORC JSON / JSON lines (2019, 2020, 2021 forms, doc2json), GROBID TEI and JATS files.

    Args:
      paths: files or patterns; each is matched and opened once at construction
        (`transforms.read.expand_inputs`), so a missing or unreadable file stops
        the job before it starts, named in the `InputError`.
      dataset: dataset name for Rejects and counters.
      max_paper_bytes: a paper (file or JSON line) larger than this is rejected `too_large`.

    Returns (from `expand`): {"papers": PCollection[Paper], "rejects": PCollection[Reject],
    "counts": PCollection[(name, n)]}; counters read/records, read/papers,
    read/filtered:<reason>, read/skipped:blank_line.
    """

    def __init__(self, paths, dataset: str, max_paper_bytes: int = mp.DEFAULT_MAX_PAPER_BYTES):
        super().__init__()
        self.paths = [paths] if isinstance(paths, str) else list(paths)
        self.dataset = dataset
        self.max_paper_bytes = max_paper_bytes

    def expand(self, pbegin):
        if not self.paths:
            raise InputError("ReadPapers: no input file")
        files = expand_inputs(self.paths)
        out = (pbegin
               | "PaperFiles" >> beam.Create(files)
               | "Spread" >> beam.Reshuffle()
               | "Parse" >> beam.ParDo(ReadPaperFileFn(self.dataset, self.max_paper_bytes)).with_outputs(
                   REJECTS, COUNTS, main=PAPERS))
        return {PAPERS: out[PAPERS], REJECTS: out[REJECTS], COUNTS: out[COUNTS]}
