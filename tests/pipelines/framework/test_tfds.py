"""Outputs the training frameworks load as they are: TFDS, Parquet (Hugging Face), the dataset card.

Real jobs on small real inputs (tests/pipelines/framework/test_runners.py: the bundled
Wikipedia excerpt and a history dump built from WikiSplit release pairs;
DiscoFuse's Table 1 sentences), written with --tsv --parquet; every variant is
loaded with `tfds.builder_from_directory(...)` (whole splits and
`train[:50%]`) and compared with the manifest's counts, the records of the
TFRecord shards and the release TSV. The Parquet files are read back with
pyarrow (Hugging Face `datasets` itself cannot be installed beside Beam's pins:
tools/check_hf_loading.sh loads them in a separate environment). Simplify and
sci_para records (their jobs need translators and paper models) go through the
same sinks and metadata writer directly.
"""
import glob
import json
import os
import sys

import apache_beam as beam
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import bundled_wiki, in_process_pipeline  # noqa: E402
from pipelines.framework import dataset_card, loaders  # noqa: E402
from schemas.records import MarkerExample, OUTPUT_RECORDS, SciParaphraseExample, SimplificationExample  # noqa: E402
from transforms import sinks  # noqa: E402

tfds = pytest.importorskip("tensorflow_datasets")

DISCOFUSE_DOCS = [
    {"id": "en-1", "text": "Hebden Bridge is a popular place to live. However, space is limited due to the steep "
                           "valleys and lack of flat land.\n\nKubler, who retired from cycling in 1957, remained a "
                           "revered figure in the wealthy alpine nation."},
    {"id": "en-2", "text": "The Sharks started the year 0-4, yet recovered to claim sixth spot."},
]
LOADER_FLAGS = ["--tsv", "--parquet", "--num_workers", "1"]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """{dataset: OUTPUT/<dataset>} for discovery, wikisplit and discofuse runs (one output root)."""
    out = str(tmp_path_factory.mktemp("loaders"))
    h.run_job("pipelines.discovery", h.DISCOVERY_ARGS + LOADER_FLAGS + ["--input", h.inputs()["articles"],
                                                                        "--output", out])
    # --split_size 1: every one of train / tune / validation / test gets examples.
    h.run_job("pipelines.wikisplit", LOADER_FLAGS + ["--input", h.inputs()["history"], "--output", out,
                                                     "--num_shards", "2", "--split_size", "1"])
    docs = os.path.join(out, "docs.jsonl")
    with open(docs, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(d) + "\n" for d in DISCOFUSE_DOCS)
    # The documents' sentences are Wikipedia's: declared, since a JSON-lines input's licence is the user's to say.
    h.run_job("pipelines.discofuse", LOADER_FLAGS + ["--input", docs, "--output", out, "--split", "1,0,0",
                                                     "--input_license", "cc-by-sa-4.0"])
    return {ds: os.path.join(out, ds) for ds in ("markers", "splits", "fusion")}


def _manifest(dataset_dir):
    with open(os.path.join(dataset_dir, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def _shards(dataset_dir, variant, split, suffix):
    return sorted(glob.glob(os.path.join(dataset_dir, variant, split, f"*{suffix}")))


def _tfds_records(builder, split, record_cls):
    """TFDS examples as our records (bytes -> str; the feature spec's field names are the record's)."""
    out = []
    for ex in tfds.as_numpy(builder.as_dataset(split=split, shuffle_files=False)):
        d = {k: (v.decode("utf-8") if isinstance(v, bytes) else
                 [x.decode("utf-8") if isinstance(x, bytes) else x for x in v.tolist()] if hasattr(v, "ndim") and v.ndim
                 else v.item() if hasattr(v, "item") else v) for k, v in ex.items()}
        out.append(record_cls.from_dict(d))
    return out


def _tsv_rows(dataset_dir, variant, split, record_cls):
    rows = []
    for path in _shards(dataset_dir, variant, split, ".tsv"):
        lines = open(path, encoding="utf-8").read().splitlines()
        rows += [line.split("\t") for line in lines[1 if record_cls.RELEASE_HAS_HEADER else 0:]]
    return rows


@pytest.mark.parametrize("dataset", ["markers", "splits", "fusion"])
def test_every_variant_loads_with_tfds_and_matches_manifest_shards_and_tsv(outputs, dataset):
    dataset_dir = outputs[dataset]
    manifest = _manifest(dataset_dir)
    record_cls = OUTPUT_RECORDS[dataset]
    written = manifest["counts"]["written"]
    loaded_examples = 0
    for variant in manifest["variants"]:
        builder = tfds.builder_from_directory(os.path.join(dataset_dir, variant))
        assert (builder.info.name, builder.info.config_name) == (dataset, variant)
        nonempty = [s for s in manifest["splits"] if written[variant][s]["examples"]]
        assert sorted(builder.info.splits) == sorted(nonempty)
        assert manifest["loaders"]["tfds"][variant] == nonempty
        for split in nonempty:
            n = written[variant][split]["examples"]
            assert builder.info.splits[split].num_examples == n
            assert builder.info.splits[split].num_shards == len(_shards(dataset_dir, variant, split, ".tfrecord"))
            shard_records = sinks.read_records(_shards(dataset_dir, variant, split, ".tfrecord"), record_cls)
            loaded = _tfds_records(builder, split, record_cls)
            assert loaded == shard_records  # every field, shard order kept
            assert sorted(r.to_row() for r in loaded) == sorted(_tsv_rows(dataset_dir, variant, split, record_cls))
            loaded_examples += len(loaded)
        if "train" in nonempty:
            half = _tfds_records(builder, "train[:50%]", record_cls)
            full = sinks.read_records(_shards(dataset_dir, variant, "train", ".tfrecord"), record_cls)
            assert len(half) == builder.info.splits["train[:50%]"].num_examples
            assert half == full[:len(half)]  # the slice TFDS computed from our shard lengths
            if len(full) >= 2:
                assert 0 < len(half) < len(full)
    assert loaded_examples > 0


@pytest.mark.parametrize("dataset", ["markers", "splits", "fusion"])
def test_parquet_files_hold_the_shards_records_and_the_card_configs_name_them(outputs, dataset):
    import yaml  # pylint: disable=import-outside-toplevel
    dataset_dir = outputs[dataset]
    manifest = _manifest(dataset_dir)
    record_cls = OUTPUT_RECORDS[dataset]
    for variant in manifest["variants"]:
        for split in manifest["splits"]:
            tf_paths = _shards(dataset_dir, variant, split, ".tfrecord")
            pq_paths = _shards(dataset_dir, variant, split, ".parquet")
            nonempty = [p for p in tf_paths if loaders.count_tfrecords(p)]  # an empty shard has no Parquet file
            assert [p[:-len(".parquet")] for p in pq_paths] == [p[:-len(".tfrecord")] for p in nonempty]
            for tf_path, pq_path in zip(nonempty, pq_paths):
                assert sinks.read_parquet(pq_path, record_cls) == sinks.read_records([tf_path], record_cls)
    text = open(os.path.join(dataset_dir, "README.md"), encoding="utf-8").read()
    assert text.startswith("---\n")
    front = yaml.safe_load(text.split("---\n")[1])
    written = manifest["counts"]["written"]
    nonempty = {v: [s for s in manifest["splits"] if written[v][s]["examples"]] for v in manifest["variants"]}
    configs = {c["config_name"]: c for c in front["configs"]}
    assert list(configs) == [v for v in manifest["variants"] if nonempty[v]]
    assert front["configs"][0].get("default") is True and not any(c.get("default") for c in front["configs"][1:])
    for variant, config in configs.items():
        assert [f["split"] for f in config["data_files"]] == nonempty[variant]
        for f in config["data_files"]:
            files = glob.glob(os.path.join(dataset_dir, f["path"]))
            assert files and all(p.endswith(".parquet") for p in files)
            rows = sum(len(sinks.read_parquet(p, record_cls)) for p in files)
            assert rows == manifest["counts"]["written"][variant][f["split"]]["examples"]
    assert front["license"] == "cc-by-sa-4.0"


@pytest.mark.parametrize("dataset", ["markers", "splits", "fusion"])
def test_dataset_card_says_what_where_from_how_many_and_under_which_licence(outputs, dataset):
    dataset_dir = outputs[dataset]
    manifest = _manifest(dataset_dir)
    text = open(os.path.join(dataset_dir, "README.md"), encoding="utf-8").read()
    card = dataset_card.CARDS[dataset]
    for section in ("## What the data is", "## Method and paper", "## Loading", "## Inputs", "## Counts",
                    "## Filters and thresholds", "## Known limitations", "## Licence"):
        assert section in text, section
    assert card.citation in text and "```bibtex" in text
    # Wikipedia's licence for a dump; for DiscoFuse's JSON-lines input, the licence its run declared
    assert ("cc-by-sa-4.0, as declared" in text) if dataset == "fusion" else ("CC BY-SA 4.0" in text)
    for inp in manifest["inputs"]:
        assert f"`{os.path.basename(inp['path'])}` | {inp.get('dump_date') or '-'} |" in text
    written = manifest["counts"]["written"]
    for variant in manifest["variants"]:
        counts = [written[variant][s]["examples"] for s in manifest["splits"]]
        assert f"| {variant} | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |" in text
        for split in manifest["splits"]:
            for label, n in written[variant][split]["labels"].items():
                assert f"| `{label}` |" in text
    for reason, n in manifest["rejects_by_reason"].items():
        assert f"| {reason} | {n} |" in text
    assert os.path.dirname(dataset_dir) not in text  # no machine paths in a file that travels with the data


def test_the_card_names_thresholds_and_the_coreference_used(outputs):
    text = open(os.path.join(outputs["markers"], "README.md"), encoding="utf-8").read()
    assert "| `--min_english_prob` | 0.75 |" in text and "| `--max_words` | 32 |" in text
    fusion = open(os.path.join(outputs["fusion"], "README.md"), encoding="utf-8").read()
    assert "coreference" in fusion and _manifest(outputs["fusion"])["job_info"]["coreference"] in fusion


def _simplify_and_sci_para_records():
    simp = [SimplificationExample(complex=f"The committee, which met on day {i}, approved the plan.",
                                  simple=f"The committee approved the plan on day {i}.",
                                  method=["back_translation:es", "lm_selected:es", "simulated:es"][i % 3],
                                  pivot="es", seed_kind="text", doc_id=f"d{i % 5}", sentence_index=i,
                                  operations=() if i % 2 else ("back_translation", "dropping"),
                                  base_nll=3.5 + i, simple_nll=3.0, alignment=0.9, dropping=0.25,
                                  splitting=bool(i % 4 == 0))
            for i in range(24)]
    sci = [SciParaphraseExample(src=f"we propose a new model number {i} .", tgt=f"a novel model {i} is proposed .",
                                method=["intra_paper", "partial", "definition", "same_citation"][i % 4],
                                paper_id=f"P{i % 6}", other_paper_id=f"P{(i + 1) % 6}", similarity=0.81,
                                bertscore=0.77, length_rate=0.5)
           for i in range(24)]
    return {"simplify": (SimplificationExample, ("s1", "s2", "s3"), simp),
            "sci_para": (SciParaphraseExample, ("intra_paper", "all"), sci)}


@pytest.mark.parametrize("dataset", ["simplify", "sci_para"])
def test_simplify_and_sci_para_records_load_with_tfds_and_parquet(tmp_path, dataset):
    record_cls, variants, records = _simplify_and_sci_para_records()[dataset]
    with in_process_pipeline() as p:
        (p | beam.Create([(variants[0], r) for r in records]) | sinks.AssignSplits((0.6, 0.2, 0.2))
         | sinks.WriteShards(str(tmp_path), record_cls, variants, num_shards=3, write_parquet=True))
    dataset_dir = os.path.join(str(tmp_path), dataset)
    shards = loaders.scan_shards(dataset_dir, dataset, variants[0], sinks.SPLITS)
    assert sum(sum(s.lengths) for s in shards) == len(records)
    names = loaders.write_tfds_metadata(os.path.join(dataset_dir, variants[0]), dataset, variants[0], record_cls,
                                        shards, dataset_card.CARDS[dataset])
    builder = tfds.builder_from_directory(os.path.join(dataset_dir, variants[0]))
    loaded = []
    for split in names:
        got = _tfds_records(builder, split, record_cls)
        assert got == sinks.read_records(_shards(dataset_dir, variants[0], split, ".tfrecord"), record_cls)
        assert got == [r for path in _shards(dataset_dir, variants[0], split, ".parquet")
                       for r in sinks.read_parquet(path, record_cls)]
        loaded += got
    assert sorted(r.to_json() for r in loaded) == sorted(r.to_json() for r in records)
    assert dataset_card.CARDS[dataset].citation in builder.info.citation


def test_count_tfrecords_reads_headers_only_and_agrees_with_the_full_reader(tmp_path):
    path = str(tmp_path / "x.tfrecord")
    payloads = [b"", b"a", b"b" * 70000, b"cd"]
    with open(path, "wb") as f:
        f.write(b"".join(sinks.tfrecord_frame(x) for x in payloads))
    assert loaders.count_tfrecords(path) == len(list(sinks.iter_tfrecords(path))) == 4
    with open(path, "ab") as f:
        f.write(b"\x01\x02")
    with pytest.raises(IOError, match="truncated"):
        loaders.count_tfrecords(path)


def test_metadata_and_card_are_rewritten_byte_identical(outputs):
    """Same manifest, same files: nothing in them depends on the run's date or machine."""
    import argparse  # pylint: disable=import-outside-toplevel
    from pipelines import discovery  # pylint: disable=import-outside-toplevel
    dataset_dir = outputs["markers"]
    manifest = _manifest(dataset_dir)
    names = ["README.md"] + [os.path.join(v, f) for v in manifest["variants"]
                             for f in ("dataset_info.json", "features.json")]
    before = {n: open(os.path.join(dataset_dir, n), "rb").read() for n in names}
    args = argparse.Namespace(**dict(manifest["options"], output=os.path.dirname(dataset_dir)))
    info = loaders.write_loaders(discovery.JOB, args, manifest)
    assert info == manifest["loaders"]
    assert {n: open(os.path.join(dataset_dir, n), "rb").read() for n in names} == before
    assert manifest["run"]["finished_utc"] not in before["README.md"].decode("utf-8")


@pytest.mark.parametrize("dataset", sorted(OUTPUT_RECORDS))
def test_every_dataset_has_a_card_text_and_renders_valid_front_matter(dataset):
    import yaml  # pylint: disable=import-outside-toplevel
    record_cls = OUTPUT_RECORDS[dataset]
    manifest = {"dataset": dataset, "job": dataset, "record": record_cls.__name__, "variants": ["v1", "v2"],
                "splits": list(sinks.SPLITS), "release_columns": list(record_cls.RELEASE_COLUMNS),
                "counts": {"written": {"v1": {s: {"examples": 2, "labels": {"a|b": 2}} for s in sinks.SPLITS},
                                       "v2": {s: {"examples": 0, "labels": {}} for s in sinks.SPLITS}}},
                "inputs": [{"path": "/data/enwiki-20240601-pages-articles1.xml.bz2", "dump_date": "20240601",
                            "size_bytes": 10, "sha256": "ab" * 32}],
                "options": {"min_words": 3, "seed": 1}, "rejects_by_reason": {"read:bad": 1}, "job_info": {}}
    configs = dataset_card.hf_configs(manifest["variants"], {"v1": list(sinks.SPLITS), "v2": []})
    text = dataset_card.render_card(manifest, configs=configs)
    front = yaml.safe_load(text.split("---\n")[1])
    assert [c["config_name"] for c in front["configs"]] == ["v1"]  # a variant of no examples has no files
    card = dataset_card.CARDS[dataset]
    assert front["license"] == card.license_id and card.citation in text and card.license in text
    assert "| `enwiki-20240601-pages-articles1.xml.bz2` | 20240601 |" in text and "/data/" not in text
    assert "| `a\\|b` | 2 | 2 | 2 |" in text and "| `--min_words` | 3 |" in text and "--seed" not in text


# ------------------------------------------------------------------ a run in another language

@pytest.fixture(scope="module")
def ukrainian(tmp_path_factory):
    """OUTPUT/markers-uk of a Discovery run on the bundled ukwiki excerpt (40 real articles; the language
    read from its <siteinfo>). --min_marker_count 1: 40 short articles give no marker 5 times."""
    out = str(tmp_path_factory.mktemp("uk"))
    h.run_job("pipelines.discovery", ["--preset", "sample", "--min_marker_count", "1", "--variants", "big,base"]
              + LOADER_FLAGS + ["--input", str(bundled_wiki("uk")), "--output", out])
    return out


def test_a_ukrainian_run_is_named_markers_uk_everywhere(ukrainian):
    assert [d for d in os.listdir(ukrainian) if d != "logs"] == ["markers-uk"]  # no `markers/`
    dataset_dir = os.path.join(ukrainian, "markers-uk")
    manifest = _manifest(dataset_dir)
    assert (manifest["dataset"], manifest["language"]) == ("markers-uk", "uk")
    assert manifest["layout"] == "markers-uk/<variant>/<split>/markers-uk-SSSSS-of-NNNNN.tfrecord"
    assert manifest["loaders"]["tfds_name"] == "markers_uk"
    assert manifest["loaders"]["tfds_filename_template"] == "{SPLIT}/markers-uk-{SHARD_X_OF_Y}.{FILEFORMAT}"
    names = {os.path.basename(p) for p in glob.glob(os.path.join(dataset_dir, "*", "*", "*-of-*"))}
    assert names and all(n.startswith("markers-uk-") for n in names)
    assert "markers-uk-00000-of-00004.tfrecord" in names and "markers-uk-00000-of-00004.parquet" in names
    # the per-dataset tables of `markers` apply: its TFDV schema validated the slices, its length fields
    # were derived (`sentence1_words`), its card text
    anomalies = manifest["counts"]["stages"]["validate"]["anomalies"]
    assert anomalies["total"] == 0 and "big/train" in anomalies
    with open(os.path.join(dataset_dir, "stats", "statistics.pb"), "rb") as f:
        assert b"sentence1_words" in f.read()
    card = open(os.path.join(dataset_dir, "README.md"), encoding="utf-8").read()
    assert "`markers-uk`, written by `rewrite-mine discovery`" in card
    assert dataset_card.CARDS["markers"].citation in card
    assert "language:\n- uk\n" in card and "`markers_uk`" in card
    rejects = [json.loads(line) for path in glob.glob(os.path.join(dataset_dir, "rejects", "*.jsonl"))
               for line in open(path, encoding="utf-8")]
    assert rejects and {r["dataset"] for r in rejects} == {"markers-uk"}


def test_a_ukrainian_run_loads_with_tfds_and_its_parquet_configs(ukrainian):
    import yaml  # pylint: disable=import-outside-toplevel
    from tensorflow_datasets.core import naming  # pylint: disable=import-outside-toplevel
    dataset_dir = os.path.join(ukrainian, "markers-uk")
    manifest = _manifest(dataset_dir)
    written = manifest["counts"]["written"]
    loaded = 0
    for variant in manifest["variants"]:
        nonempty = [s for s in manifest["splits"] if written[variant][s]["examples"]]
        if not nonempty:
            continue
        builder = tfds.builder_from_directory(os.path.join(dataset_dir, variant))
        assert (builder.info.name, builder.info.config_name) == ("markers_uk", variant)
        assert naming.is_valid_dataset_name(builder.info.name)  # `markers-uk` is not a TFDS name
        assert sorted(builder.info.splits) == sorted(nonempty)
        for split in nonempty:
            shards = _shards(dataset_dir, variant, split, ".tfrecord")
            records = _tfds_records(builder, split, MarkerExample)
            assert records == sinks.read_records(shards, MarkerExample)
            assert len(records) == written[variant][split]["examples"]
            loaded += len(records)
    assert loaded > 0
    # Hugging Face `datasets`: the card's configs name the Parquet files, which hold the shards' records
    front = yaml.safe_load(open(os.path.join(dataset_dir, "README.md"), encoding="utf-8").read().split("---\n")[1])
    for config in front["configs"]:
        for f in config["data_files"]:
            files = sorted(glob.glob(os.path.join(dataset_dir, f["path"])))
            assert files and all(os.path.basename(p).startswith("markers-uk-") for p in files)
            got = [r for p in files for r in sinks.read_parquet(p, MarkerExample)]
            assert got == [r for p in files for r in sinks.read_records([p[:-len(".parquet")] + ".tfrecord"],
                                                                        MarkerExample)]
            assert len(got) == written[config["config_name"]][f["split"]]["examples"]
            assert all(r.sentence1 and r.sentence2 for r in got)
