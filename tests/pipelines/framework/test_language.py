"""The language of a run (issue 33, item 1): `--language`, else the one the Wikipedia dumps name in
their `<siteinfo>`; it reaches the segmenter, the manifest and the dataset card."""
import argparse
import json
import os
import subprocess
import sys

import pytest

from conftest import BGWIKI, ENWIKI, ROOT, SHARED_DATA
from pipelines.framework.errors import JobFailed
from pipelines.framework.language import resolve_language

UKWIKI = SHARED_DATA / "wikipedia" / "multilingual" / "ukwiki-20230501-pages-articles-multistream-excerpt.xml.bz2"


def _args(**kw):
    return argparse.Namespace(**{"language": "", "format": "auto", **kw})


def test_default_is_the_dumps_language():
    assert resolve_language(_args(), [str(BGWIKI)]) == "bg"  # UTF-16 dump, <dbname>bgwiki</dbname>
    assert resolve_language(_args(), [str(ENWIKI)]) == "en"
    if UKWIKI.exists():
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
    manifest = json.loads((out / "markers" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["language"] == "bg" and manifest["options"]["language"] == "bg"
    # 1 article, 45 sentences (the English segmenter: 22; it cuts only before A-Z and digits).
    assert manifest["counts"]["stages"]["segment"] == {"documents": 1, "sentences": 45}
    card = (out / "markers" / "README.md").read_text(encoding="utf-8")
    assert "language:\n- bg\n" in card and "Language: `bg`" in card
