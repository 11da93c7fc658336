"""TFDV statistics, schema validation and the HTML report, inside the pipeline.

`ValidateAndReport(dataset, record_cls, output_dir)` takes the final
PCollection[(variant, split, record)] (after split assignment) and writes

    OUTPUT/<dataset>/stats/statistics.pb            DatasetFeatureStatisticsList:
                                                    "All Examples" + one dataset per
                                                    "<variant>/<split>" slice
    OUTPUT/<dataset>/stats/anomalies-<variant>-<split>.pbtxt   TFDV Anomalies per slice
    OUTPUT/<dataset>/stats/anomalies.json           every anomaly in plain words
    OUTPUT/<dataset>/stats/report.html              the page a person looks at

and returns PCollection[(counter_name, n)]: `validate/anomalies` (total) and
`validate/anomalies:<variant>/<split>`. Given `counts_path`, it also writes
the job's counts file in the same step (the job's counters, the other counts
it is given and the anomaly counts, summed), which the framework reads into
the manifest. With `fail_on_anomalies=True` the job fails after writing the
statistics and the report, with the anomalies in its error message.

Statistics are computed on Arrow record batches built from the records'
fields (the same features as the tf.train.Examples of the shards) plus one
derived feature per text field, `<field>_words` (word count), so the curated
schema (`schemas/<dataset>.pbtxt`) can bound lengths. Each batch is cut into
slices ("All Examples" and one per "<variant>/<split>") and every slice's
statistics are TFDV's (basic statistics, and exact top values and uniques
from value counts: `Statistics`), computed by TFDV code that only the workers
import. Everything the report needs, the counters with it, goes into one
combine (`_SummaryFn`: per bundle where it is made, merged once); only the top
values and uniques take two shuffles of their own before it (a sum per value,
then a combine per feature).

Only small aggregates reach a single worker: the statistics of each slice
(merged partial statistics), label counts, histograms and a few sampled examples per label.
"""
import json
import os
import typing

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from miners.quality import report as report_lib
from miners.text.segmenter import word_count
from schemas.base import _field_kinds
from schemas.records import base_dataset
from transforms.common import stable_fraction

SLICE_COLUMN = "__slice__"
ALL_EXAMPLES = "All Examples"  # TFDV's name for the unsliced dataset

# Text fields whose word counts are derived features and plotted in the report. These tables and the
# schemas are keyed on the base dataset (`markers`); a run in another language (`markers-uk`) uses them.
LENGTH_FIELDS = {
    "markers": ("sentence1", "sentence2"),
    "splits": ("complex", "simple1", "simple2"),
    "fusion": ("coherent_first_sentence", "coherent_second_sentence",
               "incoherent_first_sentence", "incoherent_second_sentence"),
    "simplify": ("complex", "simple"),
    "sci_para": ("src", "tgt"),
}
# Float fields holding scores: histogrammed in the report.
SCORE_FIELDS = {
    "markers": (),
    "splits": ("bleu1", "bleu2"),
    "fusion": (),
    "simplify": ("bleu", "alignment", "dropping", "reordering"),
    "sci_para": ("bleu", "bertscore", "similarity"),
}


class AnomaliesFound(ValueError):
    """Raised (with `fail_on_anomalies`) when an output split does not match its schema."""


def schema_path(dataset: str) -> str:
    """The committed, curated TFDV schema of a dataset (`markers-uk` has `markers`'s)."""
    import schemas
    return os.path.join(os.path.dirname(schemas.__file__), f"{base_dataset(dataset)}.pbtxt")


def stats_dir(output_dir: str, dataset: str) -> str:
    return FileSystems.join(output_dir, dataset, "stats")


def report_path(output_dir: str, dataset: str) -> str:
    """Where the HTML report is written (for the manifest)."""
    return FileSystems.join(stats_dir(output_dir, dataset), "report.html")


def _write(path: str, data: bytes):
    with FileSystems.create(path) as f:
        f.write(data)


def to_record_batch(rows, dataset: str, record_cls):
    """[(slice, record)] -> pa.RecordBatch with one list column per field (+ derived lengths)."""
    import pyarrow as pa
    kinds = _field_kinds(record_cls)
    cols, names = [], []
    for name, (kind, tp) in kinds.items():
        values = []
        for _, r in rows:
            v = getattr(r, name)
            v = list(v) if kind == "seq" else [v]
            if tp is str:
                v = [x.encode("utf-8") for x in v]
            elif tp is bool or tp is int:
                v = [int(x) for x in v]
            elif tp is float:
                v = [float(x) for x in v]
            else:  # str-valued enum
                v = [x.value.encode("utf-8") for x in v]
            values.append(v)
        pa_type = (pa.list_(pa.binary()) if tp is str or not isinstance(tp, type) or issubclass(tp, str)
                   else pa.list_(pa.float32()) if tp is float else pa.list_(pa.int64()))
        cols.append(pa.array(values, type=pa_type))
        names.append(name)
    for field in LENGTH_FIELDS.get(base_dataset(dataset), ()):
        cols.append(pa.array([[word_count(getattr(r, field))] for _, r in rows], type=pa.list_(pa.int64())))
        names.append(f"{field}_words")
    cols.append(pa.array([[s.encode("utf-8")] for s, _ in rows], type=pa.list_(pa.binary())))
    names.append(SLICE_COLUMN)
    return pa.RecordBatch.from_arrays(cols, names)


def slice_record_batch(record_batch):
    """(slice, batch) pairs of one record batch: "All Examples", then one per value of SLICE_COLUMN.

    The slice column itself is dropped from every batch."""
    import pyarrow as pa
    idx = record_batch.schema.get_field_index(SLICE_COLUMN)
    keys = [v[0].decode("utf-8") for v in record_batch.column(idx).to_pylist()]
    rest = pa.RecordBatch.from_arrays(
        [record_batch.column(i) for i in range(record_batch.num_columns) if i != idx],
        [n for i, n in enumerate(record_batch.schema.names) if i != idx])
    yield ALL_EXAMPLES, rest
    groups = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    for k in sorted(groups):
        yield k, rest.take(pa.array(groups[k], type=pa.int64()))


# TFDV's defaults (tfdv.StatsOptions): top values kept per string feature, and rank-histogram buckets.
NUM_TOP_VALUES = 20
NUM_RANK_HISTOGRAM_BUCKETS = 1000


class BasicStatisticsCombineFn(beam.CombineFn):
    """TFDV's basic statistics of one slice: record batches -> DatasetFeatureStatistics.

    Counts, presence, value counts, numeric quantiles and histograms, string lengths: TFDV's
    `BasicStatsGenerator` with `tfdv.StatsOptions()`'s settings, as `tfdv.GenerateStatistics` runs it
    (partial statistics per bundle in every worker, merged per slice). Top-k and unique values are
    counted exactly beside it (`_value_counts`), as `tfdv.GenerateStatistics` does by default.

    The generator is made on first use, in the worker: the driver that builds the pipeline never
    imports TFDV, nor TensorFlow with it (1.4 s of every job's start before any worker can work;
    `tfdv.GenerateStatistics` has to be expanded by the driver).
    """

    def __init__(self):
        super().__init__()
        self._generators = None

    def _gens(self):
        if self._generators is None:
            from tensorflow_data_validation.statistics import stats_impl, stats_options
            from tensorflow_data_validation.statistics.generators import basic_stats_generator
            generators = [g for g in stats_impl.get_generators(stats_options.StatsOptions(), in_memory=True)
                          if isinstance(g, basic_stats_generator.BasicStatsGenerator)]
            for generator in generators:
                generator.setup()
            self._generators = generators
        return self._generators

    def __getstate__(self):
        return dict(self.__dict__, _generators=None)

    def setup(self, *args, **kwargs):
        self._gens()

    def create_accumulator(self, *args, **kwargs):
        return [g.create_accumulator() for g in self._gens()]

    def add_input(self, mutable_accumulator, element, *args, **kwargs):
        return [g.add_input(a, element) for g, a in zip(self._gens(), mutable_accumulator)]

    def merge_accumulators(self, accumulators, *args, **kwargs):
        per_generator = zip(*accumulators)
        return [g.merge_accumulators(list(accs)) for g, accs in zip(self._gens(), per_generator)]

    def compact(self, accumulator, *args, **kwargs):
        return [g.compact(a) for g, a in zip(self._gens(), accumulator)]

    def extract_output(self, accumulator, *args, **kwargs):
        from tensorflow_data_validation.statistics import stats_impl
        (stats,) = stats_impl.extract_statistics_output(accumulator, self._gens()).datasets
        return stats


def _value_counts(sliced_batch):
    """(slice, record batch) -> ((slice, feature path, value), count) for every string feature.

    TFDV's own tuples for its exact top-k and uniques (`tfdv.GenerateStatistics`' default), no
    example weights, no schema (every string feature; numeric features get no top-k)."""
    from tensorflow_data_validation.statistics.generators import top_k_uniques_stats_generator as topk
    from tensorflow_data_validation.utils.example_weight_map import ExampleWeightMap
    for key, (count, _) in topk._to_topk_tuples(  # pylint: disable=protected-access
            sliced_batch, bytes_features=frozenset(), categorical_numeric_types={},
            example_weight_map=ExampleWeightMap()):
        yield key, count


def _top_values_stats(slice_feature, counts_values):
    """((slice, feature path), [(count, value)] largest first) -> (slice, DatasetFeatureStatistics)."""
    from tensorflow_data_validation.utils import top_k_uniques_stats_util as util
    return slice_feature[0], util.make_dataset_feature_stats_proto_topk_single(
        feature_path_tuple=slice_feature[1],
        value_count_list=[util.FeatureValueCount(value, count) for count, value in counts_values],
        is_weighted_stats=False, num_top_values=NUM_TOP_VALUES, frequency_threshold=1,
        num_rank_histogram_buckets=NUM_RANK_HISTOGRAM_BUCKETS)


def _uniques_stats(slice_feature, uniques):
    from tensorflow_data_validation.utils import top_k_uniques_stats_util as util
    return slice_feature[0], util.make_dataset_feature_stats_proto_unique_single(
        feature_path_tuple=slice_feature[1], num_uniques=uniques)


class _TopAndUniquesFn(beam.CombineFn):
    """(count, value) pairs of one (slice, feature) -> (its top values, largest first; its number of values).

    `beam.combiners.Top.PerKey(n)` and a count per key in one combine: one shuffle, not two (each shuffle is
    a level of tasks on Flink, docs/RUNNERS.md). Each value comes once per (slice, feature): summed before."""

    def __init__(self, n):
        super().__init__()
        self._top = beam.combiners.TopCombineFn(n)

    def create_accumulator(self, *args, **kwargs):
        return self._top.create_accumulator(), 0

    def add_input(self, mutable_accumulator, element, *args, **kwargs):
        top, n = mutable_accumulator
        return self._top.add_input(top, element), n + 1

    def merge_accumulators(self, accumulators, *args, **kwargs):
        accumulators = list(accumulators)
        return (self._top.merge_accumulators([a[0] for a in accumulators]), sum(a[1] for a in accumulators))

    def compact(self, accumulator, *args, **kwargs):
        return self._top.compact(accumulator[0]), accumulator[1]

    def extract_output(self, accumulator, *args, **kwargs):
        return self._top.extract_output(accumulator[0]), accumulator[1]


def _value_statistics(slice_feature, top_and_uniques):
    """((slice, feature path), (top (count, value) pairs, uniques)) -> its two statistics parts."""
    top, uniques = top_and_uniques
    yield _top_values_stats(slice_feature, top)
    yield _uniques_stats(slice_feature, uniques)


class ValueStatistics(beam.PTransform):
    """PCollection[(slice, record batch)] -> PCollection[(slice, DatasetFeatureStatistics)]: the exact top
    values and unique counts of every string feature, from value counts per (slice, feature, value)."""

    def expand(self, sliced):
        return (sliced
                | "ValueCounts" >> beam.FlatMap(_value_counts)
                | "SumValueCounts" >> beam.CombinePerKey(sum)
                | "ByFeature" >> beam.MapTuple(lambda k, n: ((k[0], k[1]), (n, k[2])))
                | "TopAndUniques" >> beam.CombinePerKey(
                    _TopAndUniquesFn(max(NUM_TOP_VALUES, NUM_RANK_HISTOGRAM_BUCKETS)))
                | "ValueStats" >> beam.FlatMapTuple(_value_statistics))


class Statistics(beam.PTransform):
    """PCollection[(slice, record batch)] -> PCollection[(slice, DatasetFeatureStatistics)] (parts).

    What `tfdv.GenerateStatistics(StatsOptions())` computes, in fewer and lazier stages: the basic
    statistics of each slice are one CombinePerKey; exact top values and unique counts of string
    features come from value counts per (slice, feature, value). Several parts per slice: merge them
    with `merge_statistics`. TFDV is imported by the workers only. (`ValidateAndReport` combines the
    basic statistics with the rest of its report instead.)
    """

    def expand(self, sliced):
        basic = sliced | "Basic" >> beam.CombinePerKey(BasicStatisticsCombineFn())
        return (basic, sliced | "Values" >> ValueStatistics()) | "FlattenParts" >> beam.Flatten()


def merge_statistics(parts):
    """[(slice, DatasetFeatureStatistics)] -> DatasetFeatureStatisticsList, one dataset per slice by name.

    No parts (a job that wrote no example): one empty "All Examples"."""
    from tensorflow_metadata.proto.v0 import statistics_pb2
    from tfx_bsl.statistics import merge_util
    named = []
    for name, ds in parts or [(ALL_EXAMPLES, statistics_pb2.DatasetFeatureStatistics())]:
        one = statistics_pb2.DatasetFeatureStatistics()
        one.CopyFrom(ds)
        one.name = name
        named.append(one)
    merged = merge_util.merge_dataset_feature_statistics(named)
    out = statistics_pb2.DatasetFeatureStatisticsList()
    out.datasets.extend(sorted(merged.datasets, key=lambda d: d.name))
    return out


def describe_anomalies(anomalies) -> typing.List[str]:
    """A TFDV Anomalies proto as sentences a person can act on."""
    out = []
    for feature in sorted(anomalies.anomaly_info):
        info = anomalies.anomaly_info[feature]
        reasons = "; ".join(r.description or r.short_description for r in info.reason)
        out.append(f"feature '{feature}': {info.short_description or 'anomaly'} - {reasons or info.description}")
    if anomalies.HasField("dataset_anomaly_info"):
        info = anomalies.dataset_anomaly_info
        out.append(f"dataset: {info.short_description} - " + "; ".join(r.description for r in info.reason))
    return out


def _validate_and_write(parts, dataset, schema_text, out_dir):
    """Validate each slice against the schema, write stats + anomalies; yield (slice, [descriptions]).

    parts: `Statistics`' output, gathered, in a deterministic order. schema_text: the schema's text, read
    on the driver (a worker in a container or on another host has no file of the submitting machine)."""
    import tensorflow_data_validation as tfdv
    from google.protobuf import text_format
    from tensorflow_metadata.proto.v0 import schema_pb2, statistics_pb2
    schema = text_format.Parse(schema_text, schema_pb2.Schema())
    stats_list = merge_statistics(parts)
    _write(FileSystems.join(out_dir, "statistics.pb"), stats_list.SerializeToString(deterministic=True))
    described = {}
    for ds in stats_list.datasets:
        if ds.name == ALL_EXAMPLES:
            continue
        one = statistics_pb2.DatasetFeatureStatisticsList(datasets=[ds])
        anomalies = tfdv.validate_statistics(one, schema)
        safe = ds.name.replace("/", "-")
        _write(FileSystems.join(out_dir, f"anomalies-{safe}.pbtxt"),
               text_format.MessageToString(anomalies).encode("utf-8"))
        described[ds.name] = describe_anomalies(anomalies)
    _write(FileSystems.join(out_dir, "anomalies.json"),
           json.dumps(described, indent=1, sort_keys=True).encode("utf-8"))
    for name, descs in sorted(described.items()):
        yield name, descs


def _statistics_order(part):
    return part[0], part[1].SerializeToString(deterministic=True)


_SUMMED = ("label", "length", "score", "jobcount", "count")


class _SummaryFn(beam.CombineFn):
    """(kind, key, value) -> {kind: {key: combined}}: all the report needs and the job's counts, one combine.

    Kinds: label, length, score (counts per key, summed); example (the `n` smallest (fraction, json) of a
    label); basic (record batches of a slice -> TFDV's basic statistics, `BasicStatisticsCombineFn`);
    statistics (finished (slice, part) pairs, kept); jobcount (the job's counters, whose reject reasons the
    report lists); count (other counters, the counts file's only); seed (nothing: an empty run has a
    report). Each bundle's elements are combined where they are made and the accumulators merged once: one
    shuffle in all, where a combine per kind and a group of their results were two levels, and on Flink
    some 40 more tasks at the end of the job (docs/RUNNERS.md)."""

    def __init__(self, examples_per_label):
        super().__init__()
        self._top = beam.combiners.TopCombineFn(examples_per_label, reverse=True)
        self._basic = BasicStatisticsCombineFn()

    def _fn(self, kind):
        return self._top if kind == "example" else self._basic

    def create_accumulator(self, *args, **kwargs):
        return {}

    def add_input(self, mutable_accumulator, element, *args, **kwargs):
        kind, key, value = element
        if kind == "seed":
            return mutable_accumulator
        part = mutable_accumulator.get(kind)
        if part is None:
            part = mutable_accumulator[kind] = [] if kind == "statistics" else {}
        if kind in _SUMMED:
            part[key] = part.get(key, 0) + value
        elif kind == "statistics":
            part.append((key, value))
        else:
            fn = self._fn(kind)
            part[key] = fn.add_input(part[key] if key in part else fn.create_accumulator(), value)
        return mutable_accumulator

    def merge_accumulators(self, accumulators, *args, **kwargs):
        # Only the first accumulator, and what is made here, is changed: the others may be shared.
        accumulators = iter(accumulators)
        merged = next(accumulators, None)
        if merged is None:
            return {}
        for accumulator in accumulators:
            for kind, part in accumulator.items():
                into = merged.get(kind)
                if into is None:
                    into = merged[kind] = [] if kind == "statistics" else {}
                if kind in _SUMMED:
                    for key, n in part.items():
                        into[key] = into.get(key, 0) + n
                elif kind == "statistics":
                    into.extend(part)
                else:
                    fn = self._fn(kind)
                    for key, acc in part.items():
                        into[key] = fn.merge_accumulators([into[key] if key in into else fn.create_accumulator(), acc])
        return merged

    def compact(self, accumulator, *args, **kwargs):
        for kind in ("example", "basic"):
            for key, acc in accumulator.get(kind, {}).items():
                accumulator[kind][key] = self._fn(kind).compact(acc)
        return accumulator

    def extract_output(self, accumulator, *args, **kwargs):
        out = {kind: dict(accumulator.get(kind, {})) for kind in _SUMMED}
        out["statistics"] = list(accumulator.get("statistics", []))
        for kind in ("example", "basic"):
            fn = self._fn(kind)  # merged once more: an accumulator that came through a shuffle alone is rehydrated
            out[kind] = {key: fn.extract_output(fn.merge_accumulators([acc]))
                         for key, acc in accumulator.get(kind, {}).items()}
        return out


def _write_report(element, dataset, out_dir, fail_on_anomalies, schema_text, counts_path=None):
    """Validate and write the statistics, then write the report (and, with `counts_path`, the job's counts
    with the anomaly counts); yield the anomaly counts."""
    _, combined = element
    summary = {"dataset": dataset, "label_counts": {}, "lengths": {}, "scores": {}, "rejects": {},
               "examples": {}, "anomalies": {}}
    for key, n in sorted(combined["label"].items()):
        summary["label_counts"][key] = n
    for (field, bucket), n in sorted(combined["length"].items()):
        summary["lengths"].setdefault(field, {})[bucket] = n
    for (field, bucket), n in sorted(combined["score"].items()):
        summary["scores"].setdefault(field, {})[bucket] = n
    for name, n in sorted(combined["jobcount"].items()):
        if _is_reject_count((name, n)):
            summary["rejects"][name] = n
    for label, sample in sorted(combined["example"].items()):
        summary["examples"][label] = [j for _, j in sorted(sample)]
    statistics = sorted(list(combined["basic"].items()) + combined["statistics"], key=_statistics_order)
    summary["anomalies"] = dict(_validate_and_write(statistics, dataset, schema_text, out_dir))
    _write(FileSystems.join(out_dir, "report.html"), report_lib.render_html(summary).encode("utf-8"))
    total = sum(len(v) for v in summary["anomalies"].values())
    anomaly_counts = [("validate/anomalies", total)] + [
        (f"validate/anomalies:{sl}", len(descs)) for sl, descs in sorted(summary["anomalies"].items())]
    if fail_on_anomalies and total:
        lines = [f"{sl}: {d}" for sl, ds in sorted(summary["anomalies"].items()) for d in ds]
        raise AnomaliesFound(
            f"{total} schema anomalies in dataset {dataset!r} (see {out_dir}/anomalies.json):\n  "
            + "\n  ".join(lines))
    if counts_path:
        from transforms.sinks import write_counts  # pylint: disable=import-outside-toplevel
        counts = dict(combined["jobcount"])
        for name, n in list(combined["count"].items()) + anomaly_counts:
            counts[name] = counts.get(name, 0) + n
        write_counts(counts_path, counts)
    yield from anomaly_counts


def _report_keys(vsr, length_fields, cap, score_fields, width):
    """(variant, split, record) -> the report's (kind, key, value) elements of one record."""
    record = vsr[2]
    yield "label", (vsr[0], vsr[1], record.label()), 1
    for key, n in _length_keys(vsr, length_fields, cap):
        yield "length", key, n
    for key, n in _score_keys(vsr, score_fields, width):
        yield "score", key, n
    yield "example", record.label(), (stable_fraction(record.shard_key(), "report"), record.to_json())


def _length_keys(vsr, fields, cap):
    return [((f, min(word_count(getattr(vsr[2], f)), cap)), 1) for f in fields]


def _score_keys(vsr, fields, width):
    out = []
    for f in fields:
        v = float(getattr(vsr[2], f))
        b = min(max(int(v / width), 0), int(round(1 / width)) - 1)  # clamp [0, 1)
        out.append(((f, round(b * width, 4)), 1))
    return out


def _is_reject_count(kv):
    return "filtered:" in kv[0]


class ValidateAndReport(beam.PTransform):
    """PCollection[(variant, split, record)] -> PCollection[(counter_name, n)] (anomaly counts).

    Args:
      dataset: output dataset name (`markers`, or `markers-uk`: the per-dataset tables are its base's).
      record_cls: its record class.
      output_dir: the job's OUTPUT root (files go to OUTPUT/<dataset>/stats/).
      counts: optional PCollection (or list) of (counter_name, n) from the job: reject reasons for the report.
      other_counts: optional PCollection (or list) of (counter_name, n) for the counts file only.
      counts_path: where to write the counts file (`counts`, `other_counts`, the anomaly counts and
        `_stats/runs`: 1, summed; what `sinks.WriteCounts` writes), in the report's step; None: not written.
      schema_file: curated schema (default schemas/<dataset>.pbtxt).
      fail_on_anomalies: raise AnomaliesFound after writing everything.
      examples_per_label: sampled examples shown per label.
    """

    def __init__(self, dataset, record_cls, output_dir, counts=None, schema_file=None,
                 fail_on_anomalies=False, examples_per_label=3, batch_size=1000, label=None, other_counts=None,
                 counts_path=None):
        super().__init__(label)
        self.dataset, self.record_cls, self.output_dir = dataset, record_cls, output_dir
        self.counts, self.other_counts, self.counts_path = counts, other_counts, counts_path
        self.schema_file = schema_file or schema_path(dataset)
        self.fail_on_anomalies = fail_on_anomalies
        self.examples_per_label = examples_per_label
        self.batch_size = batch_size
        if not os.path.isfile(self.schema_file):
            raise FileNotFoundError(f"no TFDV schema for dataset {dataset!r} at {self.schema_file}")
        with open(self.schema_file, encoding="utf-8") as f:
            self.schema_text = f.read()

    def expand(self, pcoll):
        dataset, record_cls = self.dataset, self.record_cls
        out_dir = stats_dir(self.output_dir, dataset)
        sliced = (pcoll
                  | "SliceKey" >> beam.Map(lambda vsr: (f"{vsr[0]}/{vsr[1]}", vsr[2]))
                  | "Batch" >> beam.BatchElements(min_batch_size=1, max_batch_size=self.batch_size)
                  | "ToRecordBatch" >> beam.Map(to_record_batch, dataset, record_cls)
                  | "Slices" >> beam.FlatMap(slice_record_batch))
        # Everything goes to one combine (`_SummaryFn`): the basic statistics' record batches, the top values
        # and unique counts (two shuffles of their own before), each record's label, lengths, scores and
        # sample key, and the counters. Its one result is validated, written and reported in one step.
        parts = [sliced | "TagBasic" >> beam.MapTuple(lambda sl, batch: ("basic", sl, batch)),
                 (sliced | "ValueStatistics" >> ValueStatistics()
                  | "TagStatistics" >> beam.MapTuple(lambda sl, part: ("statistics", sl, part))),
                 pcoll | "ReportKeys" >> beam.FlatMap(
                     _report_keys, LENGTH_FIELDS.get(base_dataset(dataset), ()), report_lib.LENGTH_CAP,
                     SCORE_FIELDS.get(base_dataset(dataset), ()), report_lib.SCORE_BUCKET),
                 pcoll.pipeline | "ReportSeed" >> beam.Create(
                     [("seed", "", 0)] + ([("count", "_stats/runs", 1)] if self.counts_path else []))]
        for kind, given in (("jobcount", self.counts), ("count", self.other_counts)):
            if given is None:
                continue
            for i, counts in enumerate(list(given) if isinstance(given, (list, tuple)) else [given]):
                parts.append(counts | f"Tag{kind.capitalize()}{i}" >> beam.MapTuple(
                    lambda name, n, kind=kind: (kind, name, n)))
        return (parts
                | "FlattenSummary" >> beam.Flatten()
                | "OneKey" >> beam.Map(lambda x: (None, x))
                | "Summarize" >> beam.CombinePerKey(_SummaryFn(self.examples_per_label))
                | "WriteReport" >> beam.FlatMap(_write_report, dataset, out_dir, self.fail_on_anomalies,
                                                self.schema_text, self.counts_path))
