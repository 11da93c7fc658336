"""The language of a run (issue 33, item 1): `--language`, else the one the Wikipedia dumps name in
their `<siteinfo>`; it reaches the segmenter, the manifest, the dataset card and the dataset's name
(`splits-ja`, `markers-bg`; English keeps `splits`, `markers`)."""
import argparse
import json
import os
import subprocess
import sys

import pytest

from conftest import BGWIKI, ENWIKI, ROOT, bundled_wiki
from pipelines.framework.errors import JobFailed
from pipelines.framework.language import resolve_language
from schemas.records import base_dataset, dataset_name, tfds_name

sys.path.insert(0, str(ROOT / "tests"))
import wikisplit_multilingual as wm  # noqa: E402  pylint: disable=wrong-import-position

UKWIKI = bundled_wiki("uk")


def _args(**kw):
    return argparse.Namespace(**{"language": "", "format": "auto", **kw})


def test_default_is_the_dumps_language():
    assert resolve_language(_args(), [str(BGWIKI)]) == "bg"  # UTF-16 dump, <dbname>bgwiki</dbname>
    assert resolve_language(_args(), [str(ENWIKI)]) == "en"
    args = _args()
    assert resolve_language(args, [str(UKWIKI)]) == "uk" and args.language == "uk"


def test_option_wins_and_is_checked():
    assert resolve_language(_args(language="FR"), [str(BGWIKI)]) == "fr"
    with pytest.raises(JobFailed, match="--language"):
        resolve_language(_args(language="french!"), [str(BGWIKI)])


def test_dumps_of_several_languages_need_the_option():
    with pytest.raises(JobFailed, match="several languages"):
        resolve_language(_args(), [str(BGWIKI), str(ENWIKI)])
    assert resolve_language(_args(language="bg"), [str(BGWIKI), str(ENWIKI)]) == "bg"


def test_inputs_without_a_header_are_english(tmp_path):
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"id": "1", "text": "One. Two."}\n', encoding="utf-8")
    assert resolve_language(_args(), [str(jsonl)]) == "en"


@pytest.mark.slow
def test_discovery_on_the_bulgarian_dump_runs_in_bulgarian(tmp_path):
    """The real bgwiki sample: read, segmented by the Bulgarian segmenter (the English one cuts only
    before A-Z and digits), the language in manifest and card."""
    out = tmp_path / "out"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-m", "pipelines.cli", "discovery", "--input", str(BGWIKI),
                           "--output", str(out), "--preset", "sample", "--num_workers", "1",
                           "--min_document_english_prob", "0", "--no_validation"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not (out / "markers").exists()
    manifest = json.loads((out / "markers-bg" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["language"] == "bg" and manifest["options"]["language"] == "bg"
    assert manifest["dataset"] == "markers-bg"
    # 1 article, 45 sentences (the English segmenter: 22; it cuts only before A-Z and digits).
    assert manifest["counts"]["stages"]["segment"] == {"documents": 1, "sentences": 45}
    card = (out / "markers-bg" / "README.md").read_text(encoding="utf-8")
    assert "language:\n- bg\n" in card and "Language: `bg`" in card


def test_dataset_names():
    assert dataset_name("markers", "en") == dataset_name("markers", "") == "markers"  # English: as before
    assert dataset_name("markers", "uk") == "markers-uk" and dataset_name("splits", "JA") == "splits-ja"
    assert dataset_name("fusion", "be-tarask") == "fusion-be-tarask"
    assert dataset_name("sci_para", "fr") == "sci_para-fr"
    for name in ("markers", "markers-uk", "fusion-be-tarask", "sci_para-fr"):
        assert base_dataset(name) == name.split("-")[0]
    assert tfds_name("markers-uk") == "markers_uk" and tfds_name("sci_para") == "sci_para"


def test_wikisplit_on_a_japanese_history_writes_splits_ja(tmp_path):
    """A SYNTHETIC history (tests/wikisplit_multilingual.py) woven from the bundled jawiki excerpt's 20
    articles (8 splits woven): the job names its dataset `splits-ja` from the dump header, in the folder,
    the shards, the manifest and the card; `splits`' quality and TFDV tables apply; `rewrite-mine profile`
    reads it as `splits` records."""
    from pipelines import profile, wikisplit  # pylint: disable=import-outside-toplevel
    from transforms import sinks  # pylint: disable=import-outside-toplevel
    from schemas.records import SplitExample  # pylint: disable=import-outside-toplevel
    fixture = wm.build(str(tmp_path / "jawiki-synthetic-history.xml.bz2"), "ja", source=wm.bundled("ja"))
    assert len(fixture.expected) == 8
    out = tmp_path / "out"
    manifest = wikisplit.run(["--input", fixture.path, "--output", str(out), "--num_workers", "1", "--tsv"])
    assert [p.name for p in out.iterdir() if p.name != "logs"] == ["splits-ja"]
    dataset_dir = out / "splits-ja"
    assert (manifest["dataset"], manifest["language"]) == ("splits-ja", "ja")
    shards = sorted(dataset_dir.glob("base/*/*.tfrecord"))
    assert shards and all(p.name.startswith("splits-ja-") for p in shards)
    assert sorted(dataset_dir.glob("base/*/*.tsv")) == [p.with_suffix(".tsv") for p in shards]
    records = sinks.read_records([str(p) for p in shards], SplitExample)
    assert {(r.complex, r.simple1, r.simple2) for r in records} == set(fixture.expected)
    assert manifest["counts"]["stages"]["validate"]["anomalies"]["total"] == 0
    assert "bleu" in manifest["counts"]["stages"]  # the quality row of `splits` (BLEU over Japanese characters)
    card = (dataset_dir / "README.md").read_text(encoding="utf-8")
    assert "`splits-ja`, written by `rewrite-mine wikisplit`" in card and "language:\n- ja\n" in card
    dataset, variant, _ = profile.record_files(str(dataset_dir))
    assert (dataset, variant) == ("splits-ja", "base")
    label, pairs = profile.read_record_pairs(str(dataset_dir), lambda *a: None)
    assert label == "splits-ja/base" and len(pairs) == 8
