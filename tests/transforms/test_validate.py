"""ValidateAndReport: TFDV statistics per split, curated schemas, anomalies, the report."""
import dataclasses
import itertools
import json
import os
import pathlib

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

from conftest import in_process_pipeline
from schemas.records import OUTPUT_RECORDS, DiscourseType, FusionExample, MarkerExample, SplitExample
from transforms import validate

TESTDATA = pathlib.Path(__file__).resolve().parents[1] / "testdata"
TUNE = TESTDATA / "wikisplit" / "tune.tsv"


def _splits(n):
    with open(TUNE, encoding="utf-8") as f:
        return [dataclasses.replace(SplitExample.from_row(line.rstrip("\n").split("\t")), page_id=i + 1,
                                    bleu1=0.5, bleu2=0.4)
                for i, line in enumerate(itertools.islice(f, n))]


def _run(tmp_path, rows, dataset="splits", counts=None, **kw):
    with in_process_pipeline() as p:
        extra = p | "Counts" >> beam.Create(counts) if counts else None
        out = (p | beam.Create(rows)
               | validate.ValidateAndReport(dataset, OUTPUT_RECORDS[dataset], str(tmp_path), counts=extra, **kw))
        result = out | beam.combiners.ToList()
        assert_that(result | beam.Map(len), equal_to([len({(v, s) for v, s, _ in rows}) + 1]))
    return os.path.join(str(tmp_path), dataset, "stats")


def test_every_dataset_has_a_loadable_curated_schema():
    import tensorflow_data_validation as tfdv
    for dataset, cls in OUTPUT_RECORDS.items():
        schema = tfdv.load_schema_text(validate.schema_path(dataset))
        names = {f.name for f in schema.feature}
        fields = {f.name for f in dataclasses.fields(cls)}
        assert names == fields | {f"{t}_words" for t in validate.LENGTH_FIELDS[dataset]}
    fusion = tfdv.load_schema_text(validate.schema_path("fusion"))
    domain = [f for f in fusion.feature if f.name == "discourse_type"][0].string_domain.value
    assert sorted(domain) == sorted(t.value for t in DiscourseType)
    markers = tfdv.load_schema_text(validate.schema_path("markers"))
    # Discovery discovers new markers: the label set is open, not the release's 174 labels.
    assert not [f for f in markers.feature if f.name == "label_name"][0].HasField("string_domain")


def test_clean_real_splits_have_no_anomalies_and_write_stats(tmp_path):
    import tensorflow_data_validation as tfdv
    recs = _splits(120)
    rows = [("base", "train" if r.page_id % 4 else "test", r) for r in recs]
    counts = [("bleu/filtered:bleu_too_low", 4), ("near_dedup/filtered:duplicate_near", 2), ("check/passed", 9)]
    out = _run(tmp_path, rows, counts=counts)
    assert sorted(os.listdir(out)) == ["anomalies-base-test.pbtxt", "anomalies-base-train.pbtxt",
                                       "anomalies.json", "report.html", "statistics.pb"]
    assert json.load(open(os.path.join(out, "anomalies.json"))) == {"base/test": [], "base/train": []}
    stats = tfdv.load_stats_binary(os.path.join(out, "statistics.pb"))
    by_name = {d.name: d for d in stats.datasets}
    assert sorted(by_name) == ["All Examples", "base/test", "base/train"]
    assert (by_name["base/test"].num_examples, by_name["base/train"].num_examples) == (30, 90)
    assert validate.SLICE_COLUMN not in {f.path.step[0] for d in stats.datasets for f in d.features}
    words = [f for f in by_name["All Examples"].features if f.path.step[0] == "complex_words"][0]
    assert words.num_stats.max == max(len(r.complex.split()) for r in recs)
    page = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    for text in ("No anomalies", "Examples per label and split", "<td>forward</td><td>90</td><td>30</td>",
                 "complex", "bleu1", "bleu/filtered:bleu_too_low</td><td>4", "data:image/svg+xml;base64,"):
        assert text in page
    assert "check/passed" not in page  # only reject reasons are listed


def test_anomalies_are_explained_counted_and_can_fail_the_job(tmp_path):
    recs = _splits(40)
    recs[3] = dataclasses.replace(recs[3], direction="sideways")
    recs[5] = dataclasses.replace(recs[5], bleu1=1.5)
    rows = [("base", "train", r) for r in recs]
    with in_process_pipeline() as p:
        out = (p | beam.Create(rows) | validate.ValidateAndReport("splits", SplitExample, str(tmp_path)))
        assert_that(out, equal_to([("validate/anomalies", 2), ("validate/anomalies:base/train", 2)]))
    described = json.load(open(tmp_path / "splits" / "stats" / "anomalies.json"))["base/train"]
    assert described[0].startswith("feature 'bleu1': Out-of-range values")
    assert "sideways" in described[1] and described[1].startswith("feature 'direction'")
    with pytest.raises(Exception, match="2 schema anomalies in dataset 'splits'"):
        with in_process_pipeline() as p:
            _ = (p | beam.Create(rows)
                 | validate.ValidateAndReport("splits", SplitExample, str(tmp_path / "again"), fail_on_anomalies=True))
    assert os.path.exists(tmp_path / "again" / "splits" / "stats" / "report.html")  # written before failing


def test_markers_and_fusion_reports(tmp_path):
    with open(TESTDATA / "discovery" / "mined_enwiki_sample.jsonl", encoding="utf-8") as f:
        mined = [MarkerExample.from_dict(json.loads(line)) for line in itertools.islice(f, 100)]
    # Real mined examples, discovered adverbs ("there,") included, are valid.
    out = _run(tmp_path, [("base", "train", r) for r in mined], dataset="markers")
    assert json.load(open(os.path.join(out, "anomalies.json"))) == {"base/train": []}
    # An empty sentence breaks the schema's word-count bounds and is reported in plain words.
    broken = [dataclasses.replace(mined[0], sentence2="")] + mined[1:5]
    out = _run(tmp_path / "broken", [("base", "train", r) for r in broken], dataset="markers")
    (described,) = json.load(open(os.path.join(out, "anomalies.json")))["base/train"]
    assert "sentence2" in described
    recs = _splits(10)
    fusion = [FusionExample(r.complex, "", r.simple1, r.simple2, DiscourseType.PAIR_NONE, doc_id=str(r.page_id))
              for r in recs]
    out = _run(tmp_path, [("wikipedia", "train", r) for r in fusion], dataset="fusion")
    assert json.load(open(os.path.join(out, "anomalies.json"))) == {"wikipedia/train": []}
    assert "PAIR_NONE" in open(os.path.join(out, "report.html"), encoding="utf-8").read()


def test_tensorflow_for_the_statistics_is_imported_without_keras():
    # transforms/__init__.py sets TF_USE_LEGACY_KERAS unless the user did: TF 2.16 then skips its eager
    # import of Keras 3 (with matplotlib and scikit-learn), ~1.2 s of every driver and worker start.
    import subprocess
    import sys
    code = ("import transforms, sys, os; import tensorflow_data_validation as tfdv; "
            "print(os.environ['TF_USE_LEGACY_KERAS'], 'keras' in sys.modules, 'sklearn' in sys.modules, "
            "callable(tfdv.GenerateStatistics))")
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    root = pathlib.Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["1", "False", "False", "True"]
    env["TF_USE_LEGACY_KERAS"] = "0"  # the user's choice is kept (and Keras is then imported as usual)
    out = subprocess.run([sys.executable, "-c", "import transforms, os; print(os.environ['TF_USE_LEGACY_KERAS'])"],
                         cwd=root, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0"]


def _by_feature(stats_list):
    from google.protobuf import json_format
    return {(d.name, tuple(f.path.step)): json_format.MessageToDict(f)
            for d in stats_list.datasets for f in d.features}, {d.name: d.num_examples for d in stats_list.datasets}


def _assert_close(a, b, where):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), where
        for k in a:
            _assert_close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_close(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), where
    else:
        assert a == b, where


def _write_proto(stats_list, path):
    with open(path, "wb") as f:
        f.write(stats_list.SerializeToString())


def test_statistics_are_what_tfdv_generate_statistics_computes(tmp_path):
    # Our Statistics (TFDV's basic-statistics generator in one CombinePerKey, exact top values and
    # uniques from value counts, all built in the workers) against tfdv.GenerateStatistics itself, on
    # real WikiSplit records with repeated texts (top values with counts above 1) and two slices.
    import tensorflow_data_validation as tfdv
    recs = _splits(150)
    recs = recs + [dataclasses.replace(r, page_id=1000 + i) for i, r in enumerate(recs[:40])] + recs[:7]
    rows = [(("base/train" if i % 3 else "base/test"), r) for i, r in enumerate(recs)]
    batches = [validate.to_record_batch(rows[i:i + 64], "splits", SplitExample) for i in range(0, len(rows), 64)]

    def by_slice_column(record_batch):  # TFDV slice function: the slices, without "All Examples"
        for key, batch in validate.slice_record_batch(record_batch):
            if key != validate.ALL_EXAMPLES:
                yield key, batch

    ours_path, theirs_path = str(tmp_path / "ours.pb"), str(tmp_path / "theirs.pb")
    with in_process_pipeline() as p:
        rbs = p | beam.Create(batches, reshuffle=False)
        _ = (rbs | "Slices" >> beam.FlatMap(validate.slice_record_batch) | validate.Statistics()
             | beam.combiners.ToList() | beam.Map(lambda parts: _write_proto(validate.merge_statistics(parts),
                                                                             ours_path)))
        _ = (rbs | tfdv.GenerateStatistics(tfdv.StatsOptions(experimental_slice_functions=[by_slice_column]))
             | beam.Map(_write_proto, theirs_path))
    ours, theirs = tfdv.load_stats_binary(ours_path), tfdv.load_stats_binary(theirs_path)
    for ds in theirs.datasets:  # TFDV's default slice sees the slice column too
        keep = [f for f in ds.features if f.path.step != [validate.SLICE_COLUMN]]
        del ds.features[:]
        ds.features.extend(keep)
    (mine, my_counts), (tfdv_features, tfdv_counts) = _by_feature(ours), _by_feature(theirs)
    assert my_counts == tfdv_counts == {"All Examples": 197, "base/test": 66, "base/train": 131}
    assert [d.name for d in ours.datasets] == ["All Examples", "base/test", "base/train"]
    assert sorted(mine) == sorted(tfdv_features)
    for key in mine:
        _assert_close(mine[key], tfdv_features[key], str(key))
    top = [f for f in ours.datasets[0].features if f.path.step == ["complex"]][0].string_stats
    assert top.top_values[0].frequency == 3 and top.unique == 150  # recs[:7] three times, recs[7:40] twice


def test_building_a_pipeline_with_statistics_never_imports_tensorflow():
    import subprocess
    import sys
    code = ("import sys, apache_beam as beam; from transforms import validate; "
            "from schemas.records import SplitExample; p = beam.Pipeline(); "
            "_ = p | beam.Create([]) | validate.ValidateAndReport('splits', SplitExample, '/nonexistent'); "
            "print(sorted(m for m in ('tensorflow', 'tensorflow_data_validation') if m in sys.modules))")
    root = pathlib.Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"]


def test_the_summary_combine_merges_like_one_accumulator_and_changes_only_the_first():
    import copy
    fn = validate._SummaryFn(2)  # pylint: disable=protected-access
    elements = [("label", ("base", "train", "a"), 1), ("jobcount", "x/filtered:too_short", 3),
                ("example", "a", (0.5, '{"n": 1}')), ("count", "written/base/train", 4), ("seed", "", 0),
                ("example", "a", (0.1, '{"n": 2}')), ("label", ("base", "train", "a"), 1),
                ("example", "a", (0.9, '{"n": 3}')), ("length", ("complex", 7), 2), ("jobcount", "x/kept", 1)]
    one = fn.create_accumulator()
    for e in elements:
        one = fn.add_input(one, e)
    parts = [fn.create_accumulator() for _ in range(3)]
    for i, e in enumerate(elements):
        parts[0 if i < 2 else 1 if i < 6 else 2] = fn.add_input(parts[0 if i < 2 else 1 if i < 6 else 2], e)
    def plain(acc):  # the examples' heaps hold Beam's ComparableValue, which has no equality of its own
        return {kind: ({k: sorted(getattr(c, "value", c) for c in heap[1]) for k, heap in part.items()}
                       if kind == "example" else part) for kind, part in acc.items()}

    others = [plain(copy.deepcopy(p)) for p in parts[1:]]
    merged = fn.extract_output(fn.merge_accumulators(parts))
    assert merged == fn.extract_output(one)
    assert [plain(p) for p in parts[1:]] == others  # the accumulators after the first are as they were
    assert merged["label"] == {("base", "train", "a"): 2}
    assert merged["example"] == {"a": [(0.1, '{"n": 2}'), (0.5, '{"n": 1}')]}  # the two smallest
    assert merged["jobcount"] == {"x/filtered:too_short": 3, "x/kept": 1}
    assert merged["count"] == {"written/base/train": 4} and merged["length"] == {("complex", 7): 2}
    assert fn.extract_output(fn.merge_accumulators([])) == fn.extract_output({})


def test_the_report_writes_the_counts_file_in_its_step(tmp_path):
    rows = [("base", "train", r) for r in _splits(30)]
    counts_path = tmp_path / "splits" / "_stats" / "counts.json"
    with in_process_pipeline() as p:
        job = p | "Job" >> beam.Create([("bleu/filtered:bleu_too_low", 4), ("check/passed", 9),
                                        ("bleu/filtered:bleu_too_low", 1)])
        other = p | "Other" >> beam.Create([("written/base/train", 30), ("rejects/written", 5)])
        _ = (p | beam.Create(rows) | validate.ValidateAndReport(
            "splits", SplitExample, str(tmp_path), counts=[job], other_counts=other, counts_path=str(counts_path)))
    assert json.load(open(counts_path)) == {
        "_stats/runs": 1, "bleu/filtered:bleu_too_low": 5, "check/passed": 9, "rejects/written": 5,
        "validate/anomalies": 0, "validate/anomalies:base/train": 0, "written/base/train": 30}
    page = open(tmp_path / "splits" / "stats" / "report.html", encoding="utf-8").read()
    assert "bleu/filtered:bleu_too_low</td><td>5" in page and "rejects/written" not in page
