"""Sinks on the in-process runner: deterministic shards that TensorFlow reads back."""
import glob
import json
import os

import apache_beam as beam
import pytest

from conftest import in_process_pipeline
from schemas.records import MarkerExample, Reject
from transforms import sinks

RECORDS = [MarkerExample(f"Sentence one number {i}.", f"Sentence two number {i}.",
                         ["however", "in_fact,", "[no-conn]"][i % 3], doc_id=f"doc{i % 7}", sentence_index=i)
           for i in range(60)]


def _write(out_dir, records, tsv=True, num_shards=3):
    with in_process_pipeline() as p:
        examples = (p | beam.Create([("base", r) for r in records])
                    | sinks.AssignSplits((0.8, 0.1, 0.1)))
        written = examples | sinks.WriteShards(str(out_dir), MarkerExample, ["base", "big"], num_shards=num_shards,
                                               num_eval_shards=1, write_tsv=tsv)
        rej = (p | "R" >> beam.Create([Reject.make("markers", "read", "bad", "f", str(i)) for i in range(5)])
               | sinks.WriteRejects(str(out_dir), "markers", num_shards=2))
        ((written, rej) | beam.Flatten() | sinks.WriteCounts(os.path.join(str(out_dir), "markers", "_stats",
                                                                          "counts.json")))


def test_shards_read_back_with_tensorflow_into_the_same_records(tmp_path):
    tf = pytest.importorskip("tensorflow")
    _write(tmp_path, RECORDS)
    files = sorted(glob.glob(str(tmp_path / "markers" / "base" / "*" / "*.tfrecord")))
    names = sorted(os.path.relpath(f, tmp_path) for f in files)
    assert "markers/base/train/markers-00000-of-00003.tfrecord" in names
    assert "markers/base/test/markers-00000-of-00001.tfrecord" in names
    got = [MarkerExample.from_example(raw.numpy()) for raw in tf.data.TFRecordDataset(files)]
    assert sorted(got, key=lambda r: r.sort_key()) == sorted(RECORDS, key=lambda r: r.sort_key())
    # Our own reader agrees with TensorFlow's.
    assert sorted(sinks.read_records(files, MarkerExample), key=lambda r: r.sort_key()) == \
        sorted(got, key=lambda r: r.sort_key())


def test_split_is_a_function_of_the_document(tmp_path):
    _write(tmp_path, RECORDS)
    by_doc = {}
    for split in ("train", "validation", "test"):
        for f in glob.glob(str(tmp_path / "markers" / "base" / split / "*.tfrecord")):
            for r in sinks.read_records([f], MarkerExample):
                by_doc.setdefault(r.doc_id, set()).add(split)
                assert split == sinks.assign_split(r.doc_id, (0.8, 0.1, 0.1))
    assert all(len(s) == 1 for s in by_doc.values())


def test_empty_variant_still_gets_every_shard(tmp_path):
    _write(tmp_path, RECORDS)
    big = sorted(os.path.basename(f) for f in glob.glob(str(tmp_path / "markers" / "big" / "train" / "*")))
    assert big == [f"markers-0000{i}-of-00003.{ext}" for i in range(3) for ext in ("tfrecord", "tsv")]
    assert all(os.path.getsize(tmp_path / "markers" / "big" / "train" / f) == 0
               for f in big if f.endswith(".tfrecord"))


def test_same_input_gives_byte_identical_shards(tmp_path):
    _write(tmp_path / "a", RECORDS)
    _write(tmp_path / "b", list(reversed(RECORDS)))
    files_a = sorted(os.path.relpath(f, tmp_path / "a") for f in glob.glob(str(tmp_path / "a" / "**" / "*.*"),
                                                                           recursive=True))
    assert files_a
    for rel in files_a:
        with open(tmp_path / "a" / rel, "rb") as fa, open(tmp_path / "b" / rel, "rb") as fb:
            assert fa.read() == fb.read(), rel


def test_tsv_has_release_columns_and_rows(tmp_path):
    _write(tmp_path, RECORDS)
    rows = []
    for f in sorted(glob.glob(str(tmp_path / "markers" / "base" / "*" / "*.tsv"))):
        lines = open(f, encoding="utf-8").read().splitlines()
        assert lines[0] == "sentence1\tsentence2\tlabel"
        rows += [line.split("\t") for line in lines[1:]]
    assert sorted(rows) == sorted(r.to_row() for r in RECORDS)


def test_rejects_and_counts(tmp_path):
    _write(tmp_path, RECORDS)
    lines = []
    for f in sorted(glob.glob(str(tmp_path / "markers" / "rejects" / "*.jsonl"))):
        lines += open(f, encoding="utf-8").read().splitlines()
    assert sorted(json.loads(x)["key"] for x in lines) == ["0", "1", "2", "3", "4"]
    counts = json.load(open(tmp_path / "markers" / "_stats" / "counts.json"))
    assert counts["rejects/written"] == 5
    written = sum(v for k, v in counts.items() if k.count("/") == 2 and k.startswith("written/base/"))
    assert written == len(RECORDS)
    labels = {k.split("label:")[1]: 0 for k in counts if "label:" in k}
    for k, v in counts.items():
        if "label:" in k:
            labels[k.split("label:")[1]] += v
    assert labels == {"however": 20, "in_fact,": 20, "[no-conn]": 20}


def test_counts_are_summed_in_one_combine_and_an_empty_run_still_writes_its_file(tmp_path):
    fn = sinks._SumCountsFn()  # pylint: disable=protected-access
    assert fn.merge_accumulators([]) == {}
    parts = [fn.add_input(fn.add_input(fn.create_accumulator(), ("a", 2)), ("b", 1)), {"a": 5}, {}]
    assert fn.extract_output(fn.merge_accumulators(parts)) == {"a": 7, "b": 1}
    for name, pairs in (("some", [("a", 1)] * 7 + [("b", 2)] * 3), ("none", [])):
        path = str(tmp_path / f"{name}.json")
        with in_process_pipeline() as p:
            _ = p | beam.Create(pairs, reshuffle=False) | sinks.WriteCounts(path)
        with open(path, encoding="utf-8") as f:
            assert json.load(f) == ({"_stats/runs": 1, "a": 7, "b": 6} if pairs else {"_stats/runs": 1})


def _reject_shards(out_dir, inputs, num_shards, workers=None):
    """Write rejects from several collections (each in its own bundles); return {file name: bytes}."""
    from apache_beam.options.pipeline_options import PipelineOptions
    opts = PipelineOptions(["--direct_num_workers", str(workers), "--direct_running_mode", "multi_threading"]) \
        if workers else None
    with (beam.Pipeline(runner="DirectRunner", options=opts) if workers else in_process_pipeline()) as p:
        pcolls = tuple(p | f"R{i}" >> beam.Create(rejects) if isinstance(rejects, list)
                       else tuple(p | f"R{i}{j}" >> beam.Create(r) for j, r in enumerate(rejects))
                       for i, rejects in enumerate(inputs))
        # A tuple, nested as the jobs pass it (a quality stage's steps are a tuple inside).
        pcolls | sinks.WriteRejects(str(out_dir), "markers", num_shards=num_shards)
    rej_dir = out_dir / "markers" / "rejects"
    assert sorted(os.listdir(rej_dir)) == [f"rejects-{i:05d}-of-{num_shards:05d}.jsonl" for i in range(num_shards)]
    return {f: (rej_dir / f).read_bytes() for f in os.listdir(rej_dir)}


def test_rejects_from_many_collections_are_written_where_produced_and_the_same_whatever_the_bundling(tmp_path):
    made = [Reject.make("markers", stage, reason, "f", f"{stage}{i}", detail="x" * (i % 5), payload={"i": i})
            for stage, reason, n in (("read", "bad_xml", 40), ("mine", "too_long", 300), ("dedup", "dup", 7))
            for i in range(n)]
    inputs = [made[:40], made[40:340], made[340:]]
    one = _reject_shards(tmp_path / "one", [made], 3)
    three = _reject_shards(tmp_path / "three", [inputs[0], (inputs[1], inputs[2])], 3)
    threaded = _reject_shards(tmp_path / "threaded", inputs, 3, workers=2)
    assert one == three == threaded  # same bytes: shard = hash of the line, each shard sorted
    lines = [line for data in one.values() for line in data.decode("utf-8").splitlines()]
    assert sorted(lines) == sorted(r.to_json() for r in made)
    for data in one.values():
        shard_lines = data.decode("utf-8").splitlines()
        assert shard_lines == sorted(shard_lines)
    # No temporary file or directory is left behind.
    assert not glob.glob(str(tmp_path / "*" / "markers" / "rejects" / ".tmp-*"))


def test_an_empty_rejects_collection_still_writes_every_shard(tmp_path):
    files = _reject_shards(tmp_path, [[]], 2)
    assert files == {"rejects-00000-of-00002.jsonl": b"", "rejects-00001-of-00002.jsonl": b""}


def test_tfrecord_reader_detects_corruption(tmp_path):
    path = tmp_path / "x.tfrecord"
    data = sinks.tfrecord_frame(b"hello") + sinks.tfrecord_frame(b"world")
    path.write_bytes(data[:-3] + b"zzz")
    with pytest.raises(IOError, match="corrupt"):
        list(sinks.iter_tfrecords(str(path)))


def test_split_ratios_are_validated():
    assert sinks.parse_split_ratios("0.9,0.05,0.05") == (0.9, 0.05, 0.05)
    with pytest.raises(ValueError, match="sum"):
        sinks.parse_split_ratios("0.9,0.2,0.05")


def test_a_reject_holding_unicode_line_separators_stays_one_json_line(tmp_path):
    # Rejects are JSON with ensure_ascii=False: U+2028, U+2029 and U+0085 pass through raw, and must not
    # split a line when the temporary files are read back.
    made = [Reject.make("markers", "read", "bad", "f", str(i), payload=f"a\u2028b\u2029c\u0085d {i}\x1ce")
            for i in range(4)]
    files = _reject_shards(tmp_path, [made], 1)
    lines = files["rejects-00000-of-00001.jsonl"].split(b"\n")[:-1]
    assert len(lines) == 4
    assert sorted(json.loads(line)["payload"] for line in lines) == sorted(r.payload for r in made)


def test_building_the_sinks_logs_no_warning_of_beams(tmp_path, caplog):
    """Beam warns "No iterator is returned by the process method" for a DoFn whose `process` neither yields
    nor returns; the rejects writer's did, once per rejects collection of every run (issue 32)."""
    import logging  # pylint: disable=import-outside-toplevel
    with caplog.at_level(logging.WARNING, logger="apache_beam"):
        p = beam.Pipeline()
        rejects = [p | f"R{i}" >> beam.Create([Reject.make("markers", "read", "bad", "f", "k")]) for i in range(3)]
        tuple(rejects) | sinks.WriteRejects(str(tmp_path), "markers", num_shards=2)
    assert not [r for r in caplog.records if "No iterator is returned" in r.getMessage()]
