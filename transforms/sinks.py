"""Split assignment and deterministic sharded sinks.

Beam's `WriteToTFRecord(num_shards=N)` assigns elements to shards from a
random start, so two runs over the same input write different shards. Here a
record's shard is a hash of its content and each shard is sorted before it is
written, so the same input and options give byte-identical shards on every
runner. Every (variant, split, shard) file is written even when empty, so
readers always find `-00000-of-NNNNN` ... `-(N-1)-of-NNNNN`.

Layout:
    OUTPUT/<dataset>/<variant>/<split>/<dataset>-SSSSS-of-NNNNN.tfrecord  (+ .tsv, + .parquet)
    OUTPUT/<dataset>/rejects/rejects-SSSSS-of-NNNNN.jsonl
    OUTPUT/<dataset>/_stats/counts.json     (read back by the driver for the manifest)

`<dataset>` is the record's (`markers`) or, for a run in another language than English, the name the
job gives (`markers-uk`: schemas.records.dataset_name); rejects written there carry that name.

Only Create / Map / ParDo / GroupByKey / Flatten are used (Dask-compatible).
Files are written to a temporary name and renamed, so a reader never sees a
half-written shard.
"""
import dataclasses
import io
import json
import struct
import typing
import uuid

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
import google_crc32c

from schemas.records import base_dataset
from transforms.common import in_global_window, stable_fraction, stable_hash

SPLITS = ("train", "validation", "test")


# ---------------------------------------------------------------- TFRecord framing

def _masked_crc(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord_frame(data: bytes) -> bytes:
    """One TFRecord: uint64 length, masked crc32c of length, data, masked crc32c of data."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _masked_crc(length)) + data + struct.pack("<I", _masked_crc(data))


def iter_tfrecords(path: str) -> typing.Iterator[bytes]:
    """Read a TFRecord file (checks both CRCs). For tests and tools; TF is not needed."""
    with FileSystems.open(path, compression_type="uncompressed") as f:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise IOError(f"{path}: truncated TFRecord header")
            (length,) = struct.unpack("<Q", header[:8])
            if struct.unpack("<I", header[8:])[0] != _masked_crc(header[:8]):
                raise IOError(f"{path}: corrupt TFRecord length")
            data = f.read(length)
            (crc,) = struct.unpack("<I", f.read(4))
            if crc != _masked_crc(data):
                raise IOError(f"{path}: corrupt TFRecord data")
            yield data


# ---------------------------------------------------------------- split assignment

def parse_split_ratios(text: str) -> typing.Tuple[float, float, float]:
    """'0.9,0.05,0.05' -> (0.9, 0.05, 0.05) for train/validation/test."""
    parts = [float(x) for x in str(text).split(",")]
    if len(parts) != 3 or any(x < 0 for x in parts) or abs(sum(parts) - 1.0) > 1e-6:
        raise ValueError(f"--split must be three non-negative ratios summing to 1 "
                         f"(train,validation,test), got {text!r}")
    return tuple(parts)


def assign_split(key: str, ratios, salt: str = "split") -> str:
    """Split of a stable key: a hash, never a random draw."""
    x = stable_fraction(key, salt)
    if x < ratios[0]:
        return "train"
    if x < ratios[0] + ratios[1]:
        return "validation"
    return "test"


class AssignSplits(beam.PTransform):
    """(variant, record) -> (variant, split, record), split from `record.split_key()`."""

    def __init__(self, ratios):
        super().__init__()
        self.ratios = tuple(ratios)

    def expand(self, pcoll):
        ratios = self.ratios
        return pcoll | "AssignSplit" >> beam.Map(
            lambda vr: (vr[0], assign_split(vr[1].split_key(), ratios), vr[1]))


# ---------------------------------------------------------------- file writing

def _write_atomically(path: str, payload: bytes):
    if not payload and path.startswith("s3://"):
        _put_empty_s3_object(path)  # Beam's S3 writer cannot write an empty object
        return
    tmp = path + ".tmp"
    with FileSystems.create(tmp, mime_type="application/octet-stream") as f:
        f.write(payload)
    if FileSystems.exists(path):
        FileSystems.delete([path])
    FileSystems.rename([tmp], [path])


def _put_empty_s3_object(path: str):
    """An empty object at `s3://bucket/key` (an empty shard: every shard file is written). Beam 2.61's S3 writer
    is a multipart upload, and one of no part is refused ("CompleteMultipartUpload: You must specify at
    least one part"); one PUT through the boto3 client Beam builds from the run's options instead (a PUT
    appears whole or not at all, so no temporary name is needed)."""
    from apache_beam.io.aws.clients.s3 import boto3_client  # pylint: disable=import-outside-toplevel
    from apache_beam.io.aws.s3io import parse_s3_path  # pylint: disable=import-outside-toplevel
    from apache_beam.options.pipeline_options import PipelineOptions  # pylint: disable=import-outside-toplevel
    from apache_beam.options.value_provider import RuntimeValueProvider  # pylint: disable=import-outside-toplevel
    # The options Beam's own S3 filesystem is built with (FileSystems.get_filesystem).
    options = (FileSystems._pipeline_options  # pylint: disable=protected-access
               or RuntimeValueProvider.runtime_options or PipelineOptions())
    bucket, key = parse_s3_path(path)
    boto3_client.Client(options=options).client.put_object(Bucket=bucket, Key=key, Body=b"")


def shard_name(prefix: str, index: int, count: int, suffix: str) -> str:
    return f"{prefix}-{index:05d}-of-{count:05d}{suffix}"


class _WriteShardFn(beam.DoFn):
    def __init__(self, output_dir, dataset, write_tsv, columns, header=True, file_suffixes=(), parquet_cls=None):
        self.output_dir = output_dir
        self.parquet_cls = parquet_cls  # the record class when a Parquet file goes beside each shard
        self.dataset = dataset
        self.write_tsv = write_tsv
        self.columns = columns
        self.header = header
        self.file_suffixes = tuple(file_suffixes)  # line-aligned release files, one per column

    def process(self, keyed):
        (variant, split, shard, num_shards), groups = keyed
        records = sorted(groups["records"], key=lambda r: r.sort_key())
        base = FileSystems.join(self.output_dir, self.dataset, variant, split)
        prefix = FileSystems.join(base, self.dataset)
        _write_atomically(shard_name(prefix, shard, num_shards, ".tfrecord"),
                          b"".join(tfrecord_frame(r.to_example()) for r in records))
        # Same records, same order: one Parquet file per non-empty TFRecord shard (Hugging Face `datasets`
        # 5.2 fails on a Parquet file of no rows, so an empty shard has none).
        if self.parquet_cls is not None and records:
            from schemas import columnar  # pylint: disable=import-outside-toplevel
            _write_atomically(shard_name(prefix, shard, num_shards, columnar.PARQUET_SUFFIX),
                              columnar.to_parquet(records, self.parquet_cls))
        if self.write_tsv and self.file_suffixes:
            rows = [r.to_row() for r in records]
            for i, suffix in enumerate(self.file_suffixes):
                _write_atomically(shard_name(prefix, shard, num_shards, suffix),
                                  "".join(_tsv_cell(row[i]) + "\n" for row in rows).encode("utf-8"))
        elif self.write_tsv:
            lines = ["\t".join(self.columns)] if self.header else []
            lines += ["\t".join(_tsv_cell(c) for c in r.to_row()) for r in records]
            _write_atomically(shard_name(prefix, shard, num_shards, ".tsv"),
                              "".join(line + "\n" for line in lines).encode("utf-8"))
        yield (f"written/{variant}/{split}", len(records))
        for r in records:
            yield (f"written/{variant}/{split}/label:{r.label()}", 1)


def _tsv_cell(value: str) -> str:
    # A tab or newline inside a field would break the release format's columns.
    return str(value).replace("\t", " ").replace("\n", " ").replace("\r", " ")


class WriteShards(beam.PTransform):
    """(variant, split, record) -> sharded TFRecord (+TSV) files; returns written counts.

    Args:
      output_dir: OUTPUT.
      record_cls: the records' class.
      variants: every variant to write (empty shards are written for empty ones).
      splits: every split to write.
      num_shards: shards for "train"; `num_eval_shards` for the other splits.
      write_parquet: also write `<dataset>-SSSSS-of-NNNNN.parquet` beside each TFRecord shard.
      dataset: the dataset's folder and shard prefix; default `record_cls.DATASET` (a run in another
        language than English names it `markers-uk`: schemas.records.dataset_name).
    """

    def __init__(self, output_dir, record_cls, variants, splits=SPLITS, num_shards=4, num_eval_shards=1,
                 write_tsv=False, write_parquet=False, dataset=None):
        super().__init__()
        self.output_dir = output_dir
        self.record_cls = record_cls
        self.dataset = dataset or record_cls.DATASET
        self.variants = tuple(variants)
        self.splits = tuple(splits)
        self.num_shards = num_shards
        self.num_eval_shards = num_eval_shards
        self.write_tsv = write_tsv
        self.write_parquet = write_parquet

    def _shards_for(self, split):
        return self.num_shards if split == "train" else self.num_eval_shards

    def expand(self, pcoll):
        shards_for = self._shards_for
        all_keys = [(v, s, i, shards_for(s)) for v in self.variants for s in self.splits
                    for i in range(shards_for(s))]
        keyed = pcoll | "KeyByShard" >> beam.Map(
            lambda vsr: ((vsr[0], vsr[1], stable_hash(vsr[2].shard_key(), "shard") % shards_for(vsr[1]),
                          shards_for(vsr[1])), vsr[2]))
        empty = pcoll.pipeline | "AllShards" >> beam.Create([(k, None) for k in all_keys])
        grouped = {"records": keyed, "expected": empty} | "GroupShards" >> beam.CoGroupByKey()
        return grouped | "WriteShard" >> beam.ParDo(
            _WriteShardFn(self.output_dir, self.dataset, self.write_tsv,
                          self.record_cls.RELEASE_COLUMNS, self.record_cls.RELEASE_HAS_HEADER,
                          self.record_cls.RELEASE_FILE_SUFFIXES,
                          parquet_cls=self.record_cls if self.write_parquet else None))


class _RejectFilesFn(beam.DoFn):
    """Reject records -> JSON lines appended to one temporary file per (bundle, shard), in the stage
    that produced them; yields `((shard, num_shards), path)` once the bundle's files are closed.

    The lines themselves never leave the worker: only the file names are grouped, so rejects cost no
    shuffle through the runner and no stage of their own (on 40 copies of the sample, 37,382 rejects,
    26 MB, had taken four serial stages and ~3 s of a 2-worker run; issue 19)."""

    def __init__(self, tmp_dir, num_shards, dataset=""):
        self.tmp_dir = tmp_dir
        self.num_shards = num_shards
        self.dataset = dataset  # the folder's dataset: a miner's `markers` reject is `markers-uk`'s in a uk run
        self._files = {}

    def start_bundle(self):
        self._files = {}

    def process(self, reject):
        if self.dataset and reject.dataset != self.dataset and reject.dataset == base_dataset(self.dataset):
            reject = dataclasses.replace(reject, dataset=self.dataset)
        line = reject.to_json()
        shard = stable_hash(line, "rejects") % self.num_shards
        f = self._files.get(shard)
        if f is None:
            path = FileSystems.join(self.tmp_dir, f"{shard:05d}-{uuid.uuid4().hex}.jsonl")
            f = self._files[shard] = (path, FileSystems.create(path, mime_type="application/octet-stream"))
        f[1].write(line.encode("utf-8") + b"\n")
        return ()  # nothing per reject: the bundle's files are emitted by finish_bundle (and Beam, seeing no
        #           iterator returned, warned at every pipeline construction)

    def finish_bundle(self):
        files, self._files = self._files, {}
        for shard, (path, handle) in sorted(files.items()):
            handle.close()
            yield in_global_window(((shard, self.num_shards), path))

    def teardown(self):
        for _, handle in self._files.values():  # a failed bundle: its files are left to the clean-up
            try:
                handle.close()
            except Exception:  # pylint: disable=broad-except
                pass


def _read_lines(path):
    """The lines of a temporary rejects file, split at "\\n" only: a payload may hold U+2028, U+0085 ...
    (JSON written with ensure_ascii=False), where `str.splitlines` would cut a line in two."""
    with FileSystems.open(path, compression_type="uncompressed") as f:
        return [line.decode("utf-8") for line in f.read().split(b"\n")[:-1]]


class _WriteRejectShardFn(beam.DoFn):
    """All temporary files of one shard -> its sorted `rejects-SSSSS-of-NNNNN.jsonl`. Only files that a
    finished bundle reported are read: a retried bundle's leftovers are not."""

    def __init__(self, output_dir, dataset):
        self.output_dir = output_dir
        self.dataset = dataset

    def process(self, keyed):
        (shard, num_shards), groups = keyed
        paths = sorted(groups["files"])
        lines = sorted(line for path in paths for line in _read_lines(path))
        prefix = FileSystems.join(self.output_dir, self.dataset, "rejects", "rejects")
        _write_atomically(shard_name(prefix, shard, num_shards, ".jsonl"),
                          "".join(line + "\n" for line in lines).encode("utf-8"))
        # The files stay until every shard is written (`_remove_tmp_dir`): a retried step reads them again.
        yield ("rejects/written", len(lines))


def _remove_tmp_dir(_, tmp_dir):
    """Last step: the temporary directory goes, with any file a failed and retried bundle left in it
    (matched by name first: on object stores a directory is only a prefix)."""
    leftovers = [m.path for r in FileSystems.match([FileSystems.join(tmp_dir, "*")]) for m in r.metadata_list]
    if leftovers:
        FileSystems.delete(leftovers)
    if FileSystems.exists(tmp_dir):
        FileSystems.delete([tmp_dir])
    return []


class WriteRejects(beam.PTransform):
    """Reject records -> OUTPUT/<dataset>/rejects/rejects-SSSSS-of-NNNNN.jsonl (sorted JSON lines).

    Takes one PCollection of `Reject` or a tuple of them (nested is fine; a list would be read by Beam as
    values to create, not as collections): each is written where
    it is produced, without a Flatten, so no reject crosses the runner between stages. Output: the
    `("rejects/written", n)` count of each shard. The shards are the same whatever the bundling: a
    line's shard is a hash of the line and each shard is sorted."""

    def __init__(self, output_dir, dataset, num_shards=1):
        super().__init__()
        self.output_dir = output_dir
        self.dataset = dataset
        self.num_shards = num_shards

    def expand(self, pcolls):
        n = self.num_shards
        tmp_dir = FileSystems.join(self.output_dir, self.dataset, "rejects", f".tmp-{uuid.uuid4().hex}")
        leaves = list(_leaves(pcolls))
        if not leaves:
            raise ValueError("WriteRejects needs at least one PCollection")
        pipeline = leaves[0].pipeline
        files = [pc | f"RejectFiles{i}" >> beam.ParDo(_RejectFilesFn(tmp_dir, n, self.dataset))
                 for i, pc in enumerate(leaves)]
        files = files[0] if len(files) == 1 else tuple(files) | "FlattenRejectFiles" >> beam.Flatten()
        expected = pipeline | "AllRejectShards" >> beam.Create([((i, n), None) for i in range(n)])
        written = ({"files": files, "expected": expected} | "GroupRejectFiles" >> beam.CoGroupByKey()
                   | "WriteRejectShard" >> beam.ParDo(_WriteRejectShardFn(self.output_dir, self.dataset)))
        done = written | "OneKey" >> beam.Map(lambda kv: (None, kv)) | "AllShardsWritten" >> beam.GroupByKey()
        done | "RemoveTmpDir" >> beam.FlatMap(_remove_tmp_dir, tmp_dir)
        return written


def _leaves(pcolls):
    if isinstance(pcolls, (list, tuple)):
        for pc in pcolls:
            yield from _leaves(pc)
    else:
        yield pcolls


class _SumCountsFn(beam.CombineFn):
    """`(name, n)` pairs -> {name: total}: summed per bundle first (combiner lifting), then merged."""

    def create_accumulator(self):
        return {}

    def add_input(self, mutable_accumulator, element):
        name, n = element
        mutable_accumulator[name] = mutable_accumulator.get(name, 0) + n
        return mutable_accumulator

    def merge_accumulators(self, accumulators):
        accumulators = iter(accumulators)
        merged = next(accumulators, None)
        if merged is None:  # nothing to merge
            return {}
        for acc in accumulators:
            for name, n in acc.items():
                merged[name] = merged.get(name, 0) + n
        return merged

    def extract_output(self, accumulator):
        return accumulator


def write_counts(path, totals):
    """{name: n} -> `path`, one JSON object (sorted names), written atomically."""
    _write_atomically(path, json.dumps(totals, indent=1, sort_keys=True).encode("utf-8"))


class _WriteCountsFn(beam.DoFn):
    def __init__(self, path):
        self.path = path

    def process(self, keyed):
        _, totals = keyed
        write_counts(self.path, totals)
        yield self.path


class WriteCounts(beam.PTransform):
    """Sum `(name, n)` pairs and write them as one JSON object (read by the driver)."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def expand(self, pcoll):
        # One combine to a single key: each bundle's pairs are summed per name where they are made (one
        # entry per counter name leaves a bundle), and the sums merged in one step. One shuffle, not a sum
        # per name followed by a group of everything: on Flink each shuffle is a level of tasks at the
        # end of the job (docs/RUNNERS.md). An empty run still writes its counts file (the seed).
        seed = pcoll.pipeline | "SeedCounts" >> beam.Create([("_stats/runs", 1)])
        return ((pcoll, seed) | "FlattenCounts" >> beam.Flatten()
                | "OneKey" >> beam.Map(lambda kv: (0, kv))
                | "SumCounts" >> beam.CombinePerKey(_SumCountsFn())
                | "WriteCountsFile" >> beam.ParDo(_WriteCountsFn(self.path)))


def read_records(paths: typing.Iterable[str], record_cls) -> list:
    """Decode every record of the given TFRecord files (in order)."""
    return [record_cls.from_example(data) for path in paths for data in iter_tfrecords(path)]


def read_parquet(path: str, record_cls) -> list:
    """The records of one Parquet file (for tests and tools)."""
    import pyarrow.parquet as pq  # pylint: disable=import-outside-toplevel
    with FileSystems.open(path, compression_type="uncompressed") as f:
        table = pq.read_table(io.BytesIO(f.read()))
    return [record_cls.from_dict(row) for row in table.to_pylist()]
