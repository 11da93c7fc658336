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


# ------------------------------------------------ labels that are no connective (issue 43, item 2)
# Each sentence is the s2 of a `big` row of the excerpts before the fix.

def test_ukrainian_ta_as_a_pronoun_is_no_marker():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    # "та" (and, but) of UK_DiMLex is also the demonstrative "that (one)": "Та зі сторін" is "the one of
    # the sides", and s2 without it was "Зі сторін, котрі ..." (no subject).
    assert m.match("Та зі сторін, котрі є джерелом повідомлення, кодує його в знаках мови.") is None
    assert m.match("Та з них, що лишилася, згоріла у 1941 році.") is None
    assert m.match("Та ж сама доля спіткала і його брата.") is None
    # The conjunction: s2 is a sentence without it.
    found = m.match("Та захоплення швидко вичерпало себе.")
    assert (found.label, found.rest) == ("та", "Захоплення швидко вичерпало себе.")
    assert m.match("Та коли вона дізналася всю правду, вирішила повернути собі щастя.").label == "та"


def test_japanese_topic_and_list_heads_are_no_marker():
    ja = markers.LexiconMatcher((), "ja")
    # これは (this + topic particle) is the subject of s2, not a connective (docs/LANGUAGES.md).
    assert ja.match("これは、繊維産業と機械産業によるものだ。") is None
    assert ja.match("それは、それぞれの町村は徳島市と学区は異なるというものである。") is None
    # その他 (the others) heading a list without a verb: s2 without it is no sentence.
    assert ja.match("その他、ユダヤ教、キリスト教（主にカトリック、ギリシャ正教、プロテスタント）。") is None
    assert ja.match("その他、ドイツ語、フランス語など。") is None
    # ... and "besides" before a clause with its verb stays a marker.
    found = ja.match("その他、輪島市の輪島塗、加賀地方の九谷焼など芸術性の高い伝統技術が継承されている。")
    assert (found.label, found.rest[:3]) == ("その他,", "輪島市")
    assert ja.match("しかし、正確に数えることはほぼ不可能である。").label == "しかし,"


def test_a_one_character_chinese_seed_does_not_match_inside_a_word():
    zh = markers.LexiconMatcher(["即", "而", "但", "然而"], "zh")
    # 即是 (that is) and 即使 (even if) are words: 即 alone left "是，..." and "使是..." as s2.
    found = zh.match("即是，包含在命题里的要比包含在原是概念的定义要多得多。")
    assert found is None or (found.label != "即" and not found.rest.startswith("是"))
    assert zh.match("即使是專業化學家，仍用這些簡單概念來解釋和思考一些複雜的知識。") is None
    assert zh.match("即将到来的冬天很冷，人们开始储存食物和燃料。") is None
    # 即 (namely) before a clause, and the other one-character seeds, still match.
    found = zh.match("即他认为自然和精神、存在和思维是同一个绝对的不同表现。")
    assert (found.label, found.rest[:3]) == ("即", "他认为")
    assert zh.match("而庞蒂使用存在主义和现象学对人类存在作研究。").label == "而"
    assert markers.SEED_COMPOUNDS["zh"] and all(len(w) > 1 for w in markers.SEED_COMPOUNDS["zh"])


def test_a_language_without_a_lexicon_gets_only_ngrams_before_a_comma():
    # Italian (no lexicon bundled, LICO not in ../shared/data): what docs/LANGUAGES.md says it gets.
    it = markers.LexiconMatcher(markers.bundled_markers("it"), "it")
    found = it.match("Tuttavia, il governo non approvò la legge prima del 1920.")
    assert (found.label, found.discovered, found.rest[:6]) == ("tuttavia,", True, "Il gov")
    assert it.match("Inoltre, la città ospita due università.").label == "inoltre,"
    # Markers written without a comma are never found: no seed names them, and n-grams need the comma.
    assert it.match("Ma il governo non approvò la legge prima del 1920.") is None
    assert it.match("Però la città non ospita alcuna università.") is None
    assert it.match("Quindi la città crebbe rapidamente.") is None
    # A clause's head before its comma is an n-gram too: the frequency threshold has to drop it.
    assert it.match("Nel frattempo, la città crebbe.").label == "nel_frattempo,"
    assert it.match("La città, fondata dai Romani, crebbe.").label == "la_città,"
    # With a list (`--markers`), the same words are seeds with or without the comma.
    seeded = markers.LexiconMatcher(["ma", "però", "quindi"], "it")
    assert seeded.match("Ma il governo non approvò la legge prima del 1920.").label == "ma"
    assert seeded.match("Però la città non ospita alcuna università.").rest == "La città non ospita alcuna università."


# ------------------------------------------ labels a blind reader found no connective (uk big rows, after issue 43)

def test_a_one_letter_seed_before_a_stop_is_an_initial():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    # "А." is the initial of "А. Козачковський", not the conjunction "а": s2 was left ". Козачковський ...".
    assert m.match("А. Козачковський почав читати напам'ять деякі вірші, написані поетом до заслання.") is None
    assert m.match("І. Франко писав про це у своїх статтях.") is None
    assert m.match("А.Козачковський почав читати вірші.") is None
    # The conjunction before a word, with or without a comma, still matches.
    assert m.match("А Козачковський почав читати вірші.").label == "а"
    assert m.match("І все ж таки вони перемогли.").label == "і"
    # Any language with one-letter seeds (a user's list).
    it = markers.LexiconMatcher(["e", "o"], "it")
    assert it.match("E. Fermi lavorò a Roma.") is None
    assert it.match("E la città crebbe rapidamente.").label == "e"


def test_a_seed_heading_a_longer_connective_matches_it_or_nothing():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    assert "тоді як" not in markers.bundled_markers("uk")  # not in UK_DiMLex: a listed longer form
    # "тоді як" (whereas) is one conjunction: "тоді" alone left s2 "Як для арабських граматистів ...".
    assert m.match("Тоді як для арабських граматистів найбільший інтерес становила морфологічна структура.") is None
    # "так само, як" (just as), "тому що" (because), "відповідно до" (according to): the same.
    assert m.match("Так само, як математика та фізика, хімія вивчає будову речовини.") is None
    assert m.match("Тому що, згідно з указом, землі передавалися монастирям.") is None
    assert m.match("Відповідно до теорії Бора, електрони рухаються по орбітах.") is None
    # The seeds alone, and the longest seed, still match.
    found = m.match("Тоді хан вирушив на Київ.")
    assert (found.label, found.rest) == ("тоді", "Хан вирушив на Київ.")
    assert m.match("Так само сталося і з іншими містами.").label == "так_само"
    assert m.match("Тому його вважають засновником школи.").label == "тому"
    assert m.match("Відповідно, електрон обертається навколо ядра.").label == "відповідно"
    assert m.match("До того ж оцінка виявилася завищеною.").label == "до_того_ж"


def test_a_marker_ending_in_a_preposition_needs_a_pronoun_object():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    # "незважаючи на" (despite) governs a noun phrase of s2: s2 without it is no sentence.
    assert m.match("Незважаючи на посилення феодальної роздробленості, мав місце значний економічний підйом.") is None
    assert m.match("Незважаючи на це рішення, уряд продовжив реформу.") is None  # a determiner of a noun
    assert m.match("Незважаючи на те, що уряд підписав угоду, війна тривала.") is None  # a concessive clause
    assert m.match("Щодо творів, завдяки цензурі їх не друкували.") is None  # щодо is a preposition
    # Before a pronoun and a comma it is a connective ("despite this,"), removed with its pronoun.
    found = m.match("Незважаючи на це, вони продовжували боротьбу.")
    assert (found.label, found.surface, found.rest) == ("незважаючи_на_це", "Незважаючи на це,",
                                                       "Вони продовжували боротьбу.")
    assert m.match("Незалежно від цього, закон набирає чинності.").label == "незалежно_від_цього"
    assert m.match("Відповідно до цього, електрон обертається навколо ядра.").label == "відповідно_до_цього"
    assert m.match("Крім того, РНК має каталітичні властивості.").label == "крім_того"  # a seed with its pronoun


def test_the_comma_of_a_marker_follows_it_directly():
    # uk-05 of the blind reading: the excerpt reads "Так, «прописаний» Шевченко, ..." (the marker removed
    # was "Так,", comma and all); the sheet showed s2 only, so "так," looked matched before a quote.
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    found = m.match("Так, «прописаний» Шевченко, відразу ж потрапив під найпильніший нагляд III відділу поліції.")
    assert (found.label, found.surface, found.discovered) == ("так,", "Так,", True)
    assert found.rest.startswith("«прописаний» Шевченко")
    # Without a comma right after the words, no n-gram (a later comma is not the marker's) ...
    assert m.match("Так «прописаний» Шевченко, відразу ж потрапив під найпильніший нагляд поліції.") is None
    assert m.match("Так звані «ДНР» та «ЛНР», як їх називали, воювали.") is None
    # ... and a seed keeps only a comma right after it.
    found = m.match("Однак вони, на жаль, не встигли.")
    assert (found.label, found.surface, found.rest) == ("однак", "Однак", "Вони, на жаль, не встигли.")


def test_ukrainian_vzhe_and_shche_are_no_markers():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    # uk-11, uk-13 of a blind reading: a focus particle before a time ("Вже тоді" = already then) and a
    # part of the noun phrase ("Ще один" = another one); s2 was left "Тоді захопився ..." / "Один ...".
    assert m.match("Вже тоді захопився творчістю Рільке, мав про нього наукову доповідь.") is None
    assert m.match("Ще один важливий аспект скандинавської моделі неформальної освіти - це акцент на здоров'я.") is None
    assert m.match("Уже в 1779 р. у Чернівцях було 3200 мешканців.") is None
    assert m.match("Ще в гімназії я писав історичні драми.") is None
    # nor as n-grams before a comma
    assert m.match("Ще, крім того, було відкрито школу.") is None
    assert m.match("Також він був членом товариства.").label == "також"


def test_ukrainian_i_opening_a_paired_conjunction_is_no_marker():
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    # uk-03 of a blind reading: "І X й Y" / "І X, і Y" is "both X and Y", not "and" tying s2 to s1; s2 was
    # left "Кількість теплоти й температуру можна вимірювати ...".
    assert m.match("І кількість теплоти й температуру можна вимірювати в одиницях механічної енергії.") is None
    assert m.match("І Демокріт, і Левкіпп вважали, що атоми, поділені порожнечею, вічні.") is None
    assert m.match("Й батько, й мати працювали в школі.") is None
    # "and" with a second "і" further on, or after a comma of the marker, is still a marker
    assert m.match("І в перший же день її роботи Декларація і Договір про створення СРСР підписали.").label == "і"
    assert m.match("І ось князь Гліб пливе по річці в човні, і його оточують його вороги.").label == "і"
    assert m.match("І, навпаки, мови і діалекти неписьменних народів вивчали.").label == "і"
    assert m.match("І ми сміливо можемо твердити, що вона займе видатне місце.").label == "і"


def test_a_marker_before_a_colon_is_no_marker():
    # uk-08 of a blind reading: "Наприклад: кілобайт може означати ..." announces a list; s2 was left
    # ": кілобайт ...". A marker is followed by a comma or a word, never by a colon (any language).
    m = markers.LexiconMatcher(markers.bundled_markers("uk"), "uk")
    assert m.match("Наприклад: кілобайт може означати як 1024 байти, так і 1000 байт.") is None
    assert m.match("Наприклад : хлопець, газета, критика, простір, час, добро, пароплав, обід.") is None
    assert m.match("Наприклад, кілобайт може означати 1024 байти.").label == "наприклад"
    zh = markers.LexiconMatcher(["例如"], "zh")
    assert zh.match("例如：北京、上海、广州都是大城市。") is None
    assert zh.match("例如，北京是一个大城市。").label == "例如"
    # nor a discovered n-gram whose comma is followed by a colon
    it = markers.LexiconMatcher([], "it")
    assert it.match("Per esempio, : Roma, Milano e Napoli.") is None
