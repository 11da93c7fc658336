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
`validate/anomalies:<variant>/<split>`, so the framework puts them in the
manifest. With `fail_on_anomalies=True` the job fails after writing them,
with the anomalies in its error message.

Statistics are computed on Arrow record batches built from the records'
fields (the same features as the tf.train.Examples of the shards) plus one
derived feature per text field, `<field>_words` (word count), so the curated
schema (`schemas/<dataset>.pbtxt`) can bound lengths. Slicing is done by a
TFDV slice function on a `__slice__` column that is dropped from every
slice (and from the "All Examples" statistics before they are written).

Only small aggregates reach a single worker: the statistics proto (TFDV
combines it), label counts, histograms and a few sampled examples per label.
"""
import json
import os
import typing

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from miners import report as report_lib
from miners.text import word_count
from schemas.base import _field_kinds
from transforms.common import stable_fraction

SLICE_COLUMN = "__slice__"
ALL_EXAMPLES = "All Examples"  # TFDV's name for the unsliced dataset

# Text fields whose word counts are derived features and plotted in the report.
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
    """The committed, curated TFDV schema of a dataset."""
    import schemas
    return os.path.join(os.path.dirname(schemas.__file__), f"{dataset}.pbtxt")


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
    for field in LENGTH_FIELDS.get(dataset, ()):
        cols.append(pa.array([[word_count(getattr(r, field))] for _, r in rows], type=pa.list_(pa.int64())))
        names.append(f"{field}_words")
    cols.append(pa.array([[s.encode("utf-8")] for s, _ in rows], type=pa.list_(pa.binary())))
    names.append(SLICE_COLUMN)
    return pa.RecordBatch.from_arrays(cols, names)


def slice_by_column(record_batch):
    """TFDV slice function: one slice per value of SLICE_COLUMN, the column dropped."""
    import pyarrow as pa
    idx = record_batch.schema.get_field_index(SLICE_COLUMN)
    keys = [v[0].decode("utf-8") for v in record_batch.column(idx).to_pylist()]
    rest = pa.RecordBatch.from_arrays(
        [record_batch.column(i) for i in range(record_batch.num_columns) if i != idx],
        [n for i, n in enumerate(record_batch.schema.names) if i != idx])
    groups = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    for k in sorted(groups):
        yield k, rest.take(pa.array(groups[k], type=pa.int64()))


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


def _validate_and_write(stats_list, dataset, schema_file, out_dir):
    """Validate each slice against the schema, write stats + anomalies; yield (slice, [descriptions])."""
    import tensorflow_data_validation as tfdv
    from google.protobuf import text_format
    from tensorflow_metadata.proto.v0 import statistics_pb2
    schema = tfdv.load_schema_text(schema_file)
    for ds in stats_list.datasets:
        if ds.name == ALL_EXAMPLES:
            keep = [f for f in ds.features if f.path.step != [SLICE_COLUMN] and f.name != SLICE_COLUMN]
            del ds.features[:]
            ds.features.extend(keep)
    _write(FileSystems.join(out_dir, "statistics.pb"), stats_list.SerializeToString(deterministic=True))
    described = {}
    for ds in sorted(stats_list.datasets, key=lambda d: d.name):
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


def _write_report(element, dataset, out_dir, fail_on_anomalies):
    _, parts = element
    summary = {"dataset": dataset, "label_counts": {}, "lengths": {}, "scores": {}, "rejects": {},
               "examples": {}, "anomalies": {}}
    for kind, key, value in parts:
        if kind == "label":
            summary["label_counts"][key] = value
        elif kind == "length":
            summary["lengths"].setdefault(key[0], {})[key[1]] = value
        elif kind == "score":
            summary["scores"].setdefault(key[0], {})[key[1]] = value
        elif kind == "reject":
            summary["rejects"][key] = value
        elif kind == "example":
            summary["examples"][key] = [j for _, j in sorted(value)]
        elif kind == "anomalies":
            summary["anomalies"][key] = value
    _write(FileSystems.join(out_dir, "report.html"), report_lib.render_html(summary).encode("utf-8"))
    total = sum(len(v) for v in summary["anomalies"].values())
    yield "validate/anomalies", total
    for sl, descs in sorted(summary["anomalies"].items()):
        yield f"validate/anomalies:{sl}", len(descs)
    if fail_on_anomalies and total:
        lines = [f"{sl}: {d}" for sl, ds in sorted(summary["anomalies"].items()) for d in ds]
        raise AnomaliesFound(
            f"{total} schema anomalies in dataset {dataset!r} (see {out_dir}/anomalies.json):\n  "
            + "\n  ".join(lines))


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
      dataset: output dataset name.
      record_cls: its record class.
      output_dir: the job's OUTPUT root (files go to OUTPUT/<dataset>/stats/).
      counts: optional PCollection (or list) of (counter_name, n) from the job: reject reasons for the report.
      schema_file: curated schema (default schemas/<dataset>.pbtxt).
      fail_on_anomalies: raise AnomaliesFound after writing everything.
      examples_per_label: sampled examples shown per label.
    """

    def __init__(self, dataset, record_cls, output_dir, counts=None, schema_file=None,
                 fail_on_anomalies=False, examples_per_label=3, batch_size=1000, label=None):
        super().__init__(label)
        self.dataset, self.record_cls, self.output_dir = dataset, record_cls, output_dir
        self.counts = counts
        self.schema_file = schema_file or schema_path(dataset)
        self.fail_on_anomalies = fail_on_anomalies
        self.examples_per_label = examples_per_label
        self.batch_size = batch_size
        if not os.path.isfile(self.schema_file):
            raise FileNotFoundError(f"no TFDV schema for dataset {dataset!r} at {self.schema_file}")

    def expand(self, pcoll):
        import tensorflow_data_validation as tfdv
        dataset, record_cls = self.dataset, self.record_cls
        out_dir = stats_dir(self.output_dir, dataset)
        stats = (pcoll
                 | "SliceKey" >> beam.Map(lambda vsr: (f"{vsr[0]}/{vsr[1]}", vsr[2]))
                 | "Batch" >> beam.BatchElements(min_batch_size=1, max_batch_size=self.batch_size)
                 | "ToRecordBatch" >> beam.Map(to_record_batch, dataset, record_cls)
                 | "Statistics" >> tfdv.GenerateStatistics(
                     tfdv.StatsOptions(experimental_slice_functions=[slice_by_column]))
                 | "ValidateAndWriteStats" >> beam.FlatMap(
                     _validate_and_write, dataset, self.schema_file, out_dir)
                 | "TagAnomalies" >> beam.MapTuple(lambda sl, d: ("anomalies", sl, d)))

        def tag(kind):
            return beam.MapTuple(lambda k, v: (kind, k, v))

        labels = (pcoll
                  | "LabelKey" >> beam.Map(lambda vsr: ((vsr[0], vsr[1], vsr[2].label()), 1))
                  | "CountLabels" >> beam.CombinePerKey(sum) | "TagLabels" >> tag("label"))
        lengths = (pcoll
                   | "LengthKeys" >> beam.FlatMap(_length_keys, LENGTH_FIELDS.get(dataset, ()),
                                                  report_lib.LENGTH_CAP)
                   | "CountLengths" >> beam.CombinePerKey(sum) | "TagLengths" >> tag("length"))
        scores = (pcoll
                  | "ScoreKeys" >> beam.FlatMap(_score_keys, SCORE_FIELDS.get(dataset, ()),
                                                report_lib.SCORE_BUCKET)
                  | "CountScores" >> beam.CombinePerKey(sum) | "TagScores" >> tag("score"))
        examples = (pcoll
                    | "SampleKey" >> beam.Map(lambda vsr: (
                        vsr[2].label(), (stable_fraction(vsr[2].to_json(), "report"), vsr[2].to_json())))
                    | "SamplePerLabel" >> beam.combiners.Top.SmallestPerKey(self.examples_per_label)
                    | "TagExamples" >> tag("example"))
        parts = [stats, labels, lengths, scores, examples,
                 pcoll.pipeline | "ReportSeed" >> beam.Create([("seed", "", 0)])]
        counts = self.counts
        if counts is not None:
            counts = list(counts) if isinstance(counts, (list, tuple)) else [counts]
            rejects = (counts | "FlattenJobCounts" >> beam.Flatten()
                       | "RejectCounts" >> beam.Filter(_is_reject_count)
                       | "SumRejects" >> beam.CombinePerKey(sum) | "TagRejects" >> tag("reject"))
            parts.append(rejects)
        return (parts
                | "FlattenSummary" >> beam.Flatten()
                | "OneKey" >> beam.Map(lambda x: (None, x))
                | "GatherSummary" >> beam.GroupByKey()
                | "WriteReport" >> beam.FlatMap(_write_report, dataset, out_dir, self.fail_on_anomalies))
