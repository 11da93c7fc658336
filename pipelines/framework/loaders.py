"""Outputs the training frameworks load as they are: TFDS metadata, Parquet configs, the dataset card.

Run by the framework once a job's pipeline has finished and its counts are
summed (`Job.write_manifest`, before the manifest is written and the run is
published), at the driver:

  * TensorFlow Datasets: every `OUTPUT/<dataset>/<variant>/` gets the
    `dataset_info.json` and `features.json` that `tfds.builder_from_directory`
    reads, written with TFDS's own `DatasetInfo` / `SplitInfo` / `FeaturesDict`.
    Our shards keep their names (`<split>/<dataset>-SSSSS-of-NNNNN.tfrecord`,
    which every reader and test of this project uses): each split's info
    carries the TFDS filename template `{SPLIT}/{DATASET}-{SHARD_X_OF_Y}.{FILEFORMAT}`
    that names exactly those files. (`tfds.folder_dataset.write_metadata`
    only lists files directly in the data directory, not in split folders,
    hence the same calls made here with per-split templates.) Shard lengths
    come from reading each shard's record headers (payloads are skipped).
    Splits with no examples are left out: TFDS cannot read a split of no data.
    A run in another language than English writes `markers-uk/` with
    `markers-uk-SSSSS-of-NNNNN.tfrecord` shards (schemas.records.dataset_name);
    TFDS builder names are identifiers, so its builder is `markers_uk`
    (`schemas.records.tfds_name`) and its splits' template names the files
    literally: `{SPLIT}/markers-uk-{SHARD_X_OF_Y}.{FILEFORMAT}`. English
    datasets keep `{DATASET}` in the template (their names are identifiers).
  * Hugging Face `datasets`: with `--parquet` the sinks wrote a Parquet file
    beside every TFRecord shard (schemas/columnar.py); the card's YAML
    `configs` name them, one config per variant, one entry per split.
  * The dataset card `OUTPUT/<dataset>/README.md` (pipelines/framework/dataset_card.py).

What was written is recorded in the manifest under `loaders`.
"""
import dataclasses
import logging
import struct
import typing

from apache_beam.io.filesystems import FileSystems

from pipelines.framework import dataset_card
from schemas import columnar
from schemas.records import base_dataset, tfds_name
from transforms import sinks

LOG = logging.getLogger("rewrite_mine")

TFDS_FILENAME_TEMPLATE = "{SPLIT}/{DATASET}-{SHARD_X_OF_Y}.{FILEFORMAT}"


def tfds_filename_template(dataset: str) -> str:
    """The TFDS filename template of a dataset's shards: `TFDS_FILENAME_TEMPLATE` when the dataset's
    name is its TFDS builder name; else (`markers-uk`, builder `markers_uk`) the shard prefix written
    out, since TFDS fills `{DATASET}` with the builder name."""
    if tfds_name(dataset) == dataset:
        return TFDS_FILENAME_TEMPLATE
    return TFDS_FILENAME_TEMPLATE.replace("{DATASET}", dataset)
TFDS_VERSION = "1.0.0"  # the data's TFDS version; the code version is in the manifest


def shard_paths(dataset_dir: str, dataset: str, variant: str, split: str, suffix: str) -> typing.List[str]:
    """Sorted shard files of one (variant, split) with `suffix` (".tfrecord", ".parquet")."""
    pattern = FileSystems.join(dataset_dir, variant, split, f"{dataset}-*-of-*{suffix}")
    return sorted(m.path for r in FileSystems.match([pattern]) for m in r.metadata_list
                  if m.path.endswith(suffix))


def count_tfrecords(path: str) -> int:
    """Records in one TFRecord file, reading only the 12-byte headers (payloads are skipped)."""
    n = 0
    with FileSystems.open(path, compression_type="uncompressed") as f:
        while True:
            header = f.read(12)
            if not header:
                return n
            if len(header) < 12:
                raise IOError(f"{path}: truncated TFRecord header")
            (length,) = struct.unpack("<Q", header[:8])
            f.seek(length + 4, 1)
            n += 1


@dataclasses.dataclass
class SplitShards:
    """One (variant, split): its shard files, records per shard and bytes."""
    split: str
    paths: typing.List[str]
    lengths: typing.List[int]
    num_bytes: int


def scan_shards(dataset_dir: str, dataset: str, variant: str, splits) -> typing.List[SplitShards]:
    out = []
    for split in splits:
        paths = shard_paths(dataset_dir, dataset, variant, split, ".tfrecord")
        sizes = [m.size_in_bytes for r in FileSystems.match(paths) for m in r.metadata_list] if paths else []
        out.append(SplitShards(split, paths, [count_tfrecords(p) for p in paths], sum(sizes)))
    return out


def tfds_features(record_cls):
    """The `tfds.features.FeaturesDict` of a record class (from schemas/columnar.py's column types)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tensorflow_datasets as tfds  # pylint: disable=import-outside-toplevel
    dtypes = {"string": np.str_, "int64": np.int64, "bool": np.bool_, "float32": np.float32}
    features = {}
    for name, (base, is_list) in columnar.column_types(record_cls).items():
        if is_list:
            features[name] = tfds.features.Tensor(shape=(None,), dtype=dtypes[base])
        elif base == "string":
            features[name] = tfds.features.Text()
        else:
            features[name] = tfds.features.Scalar(dtype=dtypes[base])
    return tfds.features.FeaturesDict(features)


def write_tfds_metadata(variant_dir: str, dataset: str, variant: str, record_cls,
                        shards: typing.Sequence[SplitShards], card: dataset_card.CardText = None) -> typing.List[str]:
    """Write dataset_info.json + features.json into `variant_dir`. Returns the TFDS split names.

    TFDS writes through TensorFlow's filesystems, which know local paths and gs:// but not s3:// (that
    is tensorflow-io's): on any other store the files are written to a local directory first and copied
    with Beam's `FileSystems` (they name no directory: the same bytes either way)."""
    if "://" not in variant_dir or variant_dir.startswith("gs://"):
        return _write_tfds_metadata(variant_dir, dataset, variant, record_cls, shards, card)
    import os  # pylint: disable=import-outside-toplevel
    import tempfile  # pylint: disable=import-outside-toplevel
    with tempfile.TemporaryDirectory(prefix="rewrite-mine-tfds-") as local:
        splits = _write_tfds_metadata(local, dataset, variant, record_cls, shards, card)
        for name in sorted(n for n in os.listdir(local) if os.path.isfile(os.path.join(local, n))):
            with open(os.path.join(local, name), "rb") as f:
                data = f.read()
            sinks._write_atomically(FileSystems.join(variant_dir, name), data)  # pylint: disable=protected-access
    return splits


def _write_tfds_metadata(variant_dir, dataset, variant, record_cls, shards, card) -> typing.List[str]:
    import tensorflow_datasets as tfds  # pylint: disable=import-outside-toplevel
    from tensorflow_datasets.core import dataset_info, naming  # pylint: disable=import-outside-toplevel
    from tensorflow_datasets.core import splits as split_lib  # pylint: disable=import-outside-toplevel
    template = naming.ShardedFileTemplate(data_dir=variant_dir, template=tfds_filename_template(dataset),
                                          dataset_name=tfds_name(dataset), filetype_suffix="tfrecord")
    infos = [tfds.core.SplitInfo(name=s.split, shard_lengths=s.lengths, num_bytes=s.num_bytes,
                                 filename_template=template.replace(split=s.split))
             for s in shards if sum(s.lengths)]
    identity = dataset_info.DatasetIdentity(name=tfds_name(dataset), version=tfds.core.Version(TFDS_VERSION),
                                            data_dir=variant_dir, module_name="", config_name=variant)
    kwargs = {}
    if card is not None:
        kwargs = dict(description=f"{card.summary}\n\n{card.method}", citation=card.citation,
                      homepage=card.homepage or None, license=card.license)
    info = tfds.core.DatasetInfo(builder=identity, features=tfds_features(record_cls), **kwargs)
    info.set_file_format("tfrecord")
    info.set_splits(split_lib.SplitDict(infos))
    info.write_to_directory(variant_dir)
    return [i.name for i in infos]


def write_loaders(job, args, manifest: dict) -> dict:
    """TFDS metadata per variant, the card (with Parquet configs under --parquet); sets manifest["loaders"].

    Args:
      job: the `pipelines.framework.job.Job`.
      args: its parsed options (`args.output` is the staging root for a staged run).
      manifest: the manifest being written (counts, options, inputs).
    """
    name = job.dataset_for(args)  # `markers`, or `markers-uk` in a Ukrainian run
    dataset_dir = FileSystems.join(args.output, name)
    record_cls = job.record_cls
    card = dataset_card.CARDS.get(base_dataset(name))
    written = manifest["counts"]["written"]
    info: dict = {"tfds": {}, "tfds_filename_template": tfds_filename_template(name), "parquet": None,
                  "card": "README.md"}
    if tfds_name(name) != name:
        info["tfds_name"] = tfds_name(name)
    try:
        import tensorflow_datasets  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        have_tfds = True
    except ImportError:
        have_tfds = False
        info["tfds"] = "not written: tensorflow-datasets is not installed (pip install 'rewrite-mining[loaders]')"
        LOG.warning("%s: %s", name, info["tfds"])
    for variant in manifest["variants"]:
        shards = scan_shards(dataset_dir, name, variant, manifest["splits"])
        for s in shards:  # the headers read back must agree with what the sinks counted
            expected = written.get(variant, {}).get(s.split, {}).get("examples", 0)
            if sum(s.lengths) != expected:
                LOG.warning("%s/%s/%s: %d records in the shards, %d counted by the sinks",
                            name, variant, s.split, sum(s.lengths), expected)
        if have_tfds:
            variant_dir = FileSystems.join(dataset_dir, variant)
            try:
                info["tfds"][variant] = write_tfds_metadata(variant_dir, name, variant, record_cls, shards, card)
            except Exception as e:  # noqa: BLE001 - the data is written; a metadata failure must not lose the run
                LOG.error("%s/%s: TFDS metadata not written: %s", name, variant, e)
                info.setdefault("errors", []).append(f"tfds {variant}: {type(e).__name__}: {e}")
    configs = None
    if getattr(args, "parquet", False):
        present = {v: [s for s in manifest["splits"] if shard_paths(dataset_dir, name, v, s,
                                                                     columnar.PARQUET_SUFFIX)]
                   for v in manifest["variants"]}
        configs = dataset_card.hf_configs(manifest["variants"], present)
        info["parquet"] = {"configs": configs}
    manifest["loaders"] = info
    quality = None
    try:
        from transforms.quality import config_from_args  # pylint: disable=import-outside-toplevel
        quality = dataclasses.asdict(config_from_args(job.dataset, args))
    except Exception:  # noqa: BLE001 - a dataset with no quality row: the card just omits it
        quality = None
    text = dataset_card.render_card(manifest, configs=configs, quality=quality)
    sinks._write_atomically(FileSystems.join(dataset_dir, "README.md"),  # pylint: disable=protected-access
                            text.encode("utf-8"))
    return info
