"""Discovery's markers in other languages (issue 33, item 6): connective lexicons (UK_DiMLex bundled,
a user's list by path) and sentence-initial n-grams before a comma as discovered markers.

Sentences are real Wikipedia text of the excerpts in ../shared/data/wikipedia/multilingual/ (uk, ja,
zh, el; CC BY-SA)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SHARED_DATA
from miners.discovery import pairs as disco
from miners.discovery import markers

LEXICONS = SHARED_DATA / "discovery" / "lexicons"
UKWIKI = SHARED_DATA / "wikipedia" / "multilingual" / "ukwiki-20230501-pages-articles-multistream-excerpt.xml.bz2"


def test_bundled_ukrainian_list():
    uk = markers.bundled_markers("uk")
    assert len(uk) == 100 and "однак" in uk and "крім того" in uk and "таким чином" in uk
    # prepositions and subordinating conjunctions of the lexicon are not seeds
    assert "після" not in uk and "коли" not in uk and "якщо" not in uk
    assert markers.bundled_markers("bg") == ()


@pytest.mark.skipif(not (LEXICONS / "UK_DiMLex.xml").exists(), reason="../shared/data not present")
def test_bundled_list_is_the_lexicon():
    assert tuple(markers.read_markers(str(LEXICONS / "UK_DiMLex.xml"))) == markers.bundled_markers("uk")
    zh = markers.read_markers(str(LEXICONS / "chinese_dimlex.xml"))  # CC BY-NC-SA: read by path, never bundled
    assert "然而" in zh and "但是" in zh and not any("..." in m for m in zh) and "随着" not in zh


def test_ukrainian_seeds_and_discovered_ngrams():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    found = m.match("Однак, ніхто з відомих європейських хіміків не оцінив важливості відкриття.")
    assert (found.label, found.surface, found.discovered) == ("однак", "Однак,", False)
    assert found.rest.startswith("Ніхто з відомих")
    assert m.match("Крім того, РНК має каталітичні властивості.").label == "крім_того"
    assert m.match("Ажіотаж навколо виставки не вщухав.") is None  # "а" is a word, not a prefix
    tim = m.match("Тим не менш, лікування в державних установах не є обов'язковим.")
    assert tim.label == "тим_не_менш," and tim.discovered  # not in UK_DiMLex: discovered
    assert m.match("Об'єднані провінції Ріо-де-ла-Плати, як їх тоді називали, воювали.") is None  # a name
    assert m.match("У 1871 році, за словами автора, таблиця змінилася.") is None  # digits
    assert markers.LexiconMatcher((), "uk", discover=False).match("Тим не менш, це так.") is None


def test_commas_of_other_scripts():
    ja = markers.LexiconMatcher((), "ja")
    found = ja.match("しかし、最高気温が35℃を超える猛暑日になることはほとんど無い。")
    assert (found.label, found.surface, found.rest[:3]) == ("しかし,", "しかし、", "最高気")
    zh = markers.LexiconMatcher(["然而", "但是"], "zh")
    found = zh.match("然而，中华民族中的民族却较为偏向国族概念。")
    assert (found.label, found.surface, found.rest[:2]) == ("然而", "然而，", "中华")
    assert zh.match("此外，繪製天氣圖亦是觀測研究所要做的。").label == "此外,"
    ar = markers.LexiconMatcher((), "ar").match("لكن، الوضع تغير بعد ذلك بسنوات.")
    assert ar.label == "لكن," and ar.rest.startswith("الوضع")


def test_chinese_and_japanese_sentence_length():
    config = disco.DiscoveryConfig(language="ja")
    assert disco.sentence_reason("最高気温が35℃を超える猛暑日になることはほとんど無い。", config) is None
    assert disco.sentence_reason("最高気温が35℃を超える猛暑日になることはほとんど無い。") == "too_short"  # English count


@pytest.mark.slow
@pytest.mark.skipif(not UKWIKI.exists(), reason="../shared/data not present")
def test_discovery_runs_on_the_ukrainian_excerpt(tmp_path):
    out = tmp_path / "out"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-m", "pipelines.cli", "discovery", "--input", str(UKWIKI),
                           "--output", str(out), "--preset", "sample", "--num_workers", "1", "--no_validation",
                           "--variants", "big"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((out / "markers-uk" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["language"] == "uk" and "uk_dimlex_markers.txt" in manifest["job_info"]["seed_markers"]
    counts = json.loads((out / "markers-uk" / "_stats" / "counts.json").read_text(encoding="utf-8"))
    assert counts["markers/candidates:однак"] >= 40 and counts["markers/candidates:наприклад"] >= 60
    assert "markers/candidates:після" not in counts
    assert counts.get("pairs/filtered:not_english", 0) == 0 and counts["pairs/passed"] >= 1500
