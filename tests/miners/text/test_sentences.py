"""miners.text.sentences: the segmenter of a run's language (issue 33, item 3), on real text.

Paragraphs are real Wikipedia text as the reader cleans it, from the excerpts of
../shared/data/wikipedia/ (ukwiki "Україна", "Мидловський Ісидор Михайлович", "Національне
космічне агентство України"; jawiki "日本語", "インタプリタ"; zhwiki "数学", "哲学"; hywiki
"Հայաստան", "Արցախ"; bnwiki "বাংলা ভাষা"; elwiki "Ημερολόγιο"; bgwiki "Григориански календар"),
and gold sentences of the Universal Dependencies treebanks: their first 300 sentences bundled in
tests/testdata/languages/ (tools/make_language_excerpts.py), and the whole test treebanks of
../shared/data/ud/ where present (the figures of docs/LANGUAGES.md are measured on those).
"""
import pytest

from miners.text import sentences
from miners.text import segmenter as text
from conftest import LANGUAGE_DATA, SHARED_DATA


def test_english_keeps_the_english_segmenter():
    assert sentences.splitter_for("en") is text.split_sentences
    sample = "Acme Holdings SA. Like its parent, it grew. Smith et al. (2019) disagree."
    assert sentences.segment(sample, "en") == text.segment(sample)


@pytest.mark.parametrize("lang,paragraph,expected", [
    # Cyrillic capitals start sentences (the English segmenter looks for A-Z only); "м." after a number is
    # a unit that may end one, before a name ("м. Львів") it is the city.
    ("uk", "Пересічна абсолютна висота рівнин становить 175 м. В Україні знаходиться найвища точка "
           "Східноєвропейської рівнини — гора Берда, висотою 515 м над рівнем моря.",
     ["Пересічна абсолютна висота рівнин становить 175 м.",
      "В Україні знаходиться найвища точка Східноєвропейської рівнини — гора Берда, висотою 515 м над рівнем моря."]),
    ("uk", "Ісидор (Сидір) Михайлович Мидловський (криптонім: Т. Ш; 4 лютого 1854, Саджавка — 18 липня 1916, "
           "м. Львів) — український актор, театральний діяч і письменник.",
     ["Ісидор (Сидір) Михайлович Мидловський (криптонім: Т. Ш; 4 лютого 1854, Саджавка — 18 липня 1916, "
      "м. Львів) — український актор, театральний діяч і письменник."]),
    ("uk", "Сьогодні НКАУ координує роботу понад 40 підприємств — «Південмаш», КБ «Південне» ім. М. Янгеля. "
           "Для керування супутниками в Україні створений єдиний наземний комплекс.",
     ["Сьогодні НКАУ координує роботу понад 40 підприємств — «Південмаш», КБ «Південне» ім. М. Янгеля.",
      "Для керування супутниками в Україні створений єдиний наземний комплекс."]),
    # CJK full stops need no space; a stop inside 「...」 quoted in the sentence is no boundary.
    ("ja", "日本語では「私は本を読む。」という語順で文を作る。英語で「I read a book.」という語順をSVO型と称する。",
     ["日本語では「私は本を読む。」という語順で文を作る。", "英語で「I read a book.」という語順をSVO型と称する。"]),
    ("zh", "数学是利用符号语言研究數量、结构、变化以及空间等概念的一門学科，从某种角度看屬於形式科學的一種。"
           "數學透過抽象化和邏輯推理的使用，由計數、計算、量度和對物體形狀及運動的觀察而產生。",
     ["数学是利用符号语言研究數量、结构、变化以及空间等概念的一門学科，从某种角度看屬於形式科學的一種。",
      "數學透過抽象化和邏輯推理的使用，由計數、計算、量度和對物體形狀及運動的觀察而產生。"]),
    ("zh", "哲學（philosophy）是研究普遍的、根本的问题的学科。哲学与其他学科的不同是其批判的方式。",
     ["哲學（philosophy）是研究普遍的、根本的问题的学科。", "哲学与其他学科的不同是其批判的方式。"]),
    # Armenian full stop ։ and the era abbreviation "մ.թ.ա." (a word holding periods).
    ("hy", "Տարածաշրջանը հիմնականում անտառածածկ է և լեռնային։ Ըստ Մովսես Խորենացու՝ սկիզբն է համարվում "
           "մ.թ.ա. 2492 թվականը։",
     ["Տարածաշրջանը հիմնականում անտառածածկ է և լեռնային։",
      "Ըստ Մովսես Խորենացու՝ սկիզբն է համարվում մ.թ.ա. 2492 թվականը։"]),
    # Bengali danda before a caseless script.
    ("bn", "বাংলা ভাষা বিকাশের ইতিহাস ১৩০০ বছর পুরনো। চর্যাপদ এ ভাষার আদি নিদর্শন।",
     ["বাংলা ভাষা বিকাশের ইতিহাস ১৩০০ বছর পুরনো।", "চর্যাপদ এ ভাষার আদি নিদর্শন।"]),
    # The Greek question mark is ";".
    ("el", "Ποιος είναι αυτός που προκηρύσσει το νέο ημερολόγιο; Ο άνθρωπος, ως αντιπρόσωπος της αρχέγονης "
           "οντότητας.",
     ["Ποιος είναι αυτός που προκηρύσσει το νέο ημερολόγιο;", "Ο άνθρωπος, ως αντιπρόσωπος της αρχέγονης οντότητας."]),
    ("bg", "Въведен е в България със закон на 14 март 1916 г. Отчитането на времето по нов стил започва "
           "от 1 април 1916 г. според юлианския календар.",
     ["Въведен е в България със закон на 14 март 1916 г.",
      "Отчитането на времето по нов стил започва от 1 април 1916 г. според юлианския календар."]),
    # French-GSD test sentences: guillemets stay with their sentence, "av. J.-C." ends one, "M." is a title.
    ("fr", "« Il a été largement démontré que la population civile est l'objet de diverses atteintes », écrit "
           "l'ONG. M. Dupont a répondu. Il fut dédié en 493 av. J.-C. À cette époque, il remarqua des différences.",
     ["« Il a été largement démontré que la population civile est l'objet de diverses atteintes », écrit l'ONG.",
      "M. Dupont a répondu.", "Il fut dédié en 493 av. J.-C.", "À cette époque, il remarqua des différences."]),
])
def test_real_paragraphs(lang, paragraph, expected):
    assert sentences.splitter_for(lang)(paragraph) == expected


def test_segment_keeps_paragraph_numbers():
    doc = "Перше речення. Друге речення.\n\nТретє речення."
    assert sentences.segment(doc, "uk") == (("Перше речення.", "Друге речення.", "Третє речення."), (0, 0, 1))


def test_segmenter_pickles():
    import pickle
    split = sentences.splitter_for("fr")
    assert pickle.loads(pickle.dumps(split))("Il pleut. Il vente.") == ["Il pleut.", "Il vente."]


@pytest.mark.parametrize("path,lang,group,floor", [
    # Measured (tools/measure_segmenter.py) on the bundled first 300 sentences: uk F1 0.983 (214
    # boundaries; the English segmenter 0.000); fr in paragraphs of 5, F1 0.941 (240; English 0.937).
    (LANGUAGE_DATA / "uk_iu-ud-test-excerpt.conllu.bz2", "uk", 0, 0.97),
    (LANGUAGE_DATA / "fr_gsd-ud-test-excerpt.conllu.bz2", "fr", 5, 0.93),
    # The whole test treebanks: uk F1 0.971 (English 0.013, sentencex 0.920); fr in paragraphs of 5
    # gold sentences F1 0.956 (English 0.951, sentencex 0.951).
    (SHARED_DATA / "ud" / "uk_iu-ud-test.conllu", "uk", 0, 0.96),
    (SHARED_DATA / "ud" / "fr_gsd-ud-test.conllu", "fr", 5, 0.95),
])
def test_gold_boundaries_of_treebanks(path, lang, group, floor):
    import importlib.util
    import pathlib
    if not path.exists():
        pytest.skip(f"{path} missing")
    spec = importlib.util.spec_from_file_location(
        "measure_segmenter", pathlib.Path(__file__).resolve().parents[3] / "tools" / "measure_segmenter.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    paragraphs = tool._grouped(tool.read_paragraphs(str(path)), str(group) if group else "")
    ours = tool.score(paragraphs, sentences.splitter_for(lang))
    english = tool.score(paragraphs, text.split_sentences)
    assert ours["f1"] >= floor
    assert ours["f1"] > english["f1"]
    assert ours["precision"] >= 0.98


@pytest.mark.parametrize("paragraph,expected", [
    # initials with a hyphen are no "J.-C." (Jésus-Christ) unless "av." / "après" comes before them
    ("Le décor fut réalisé par J.-C. Marchianni pour la première fois. Il fut repris en 1990.",
     ["Le décor fut réalisé par J.-C. Marchianni pour la première fois.", "Il fut repris en 1990."]),
    ("La ville fut fondée en 52 av. J.-C. Elle devint romaine.",
     ["La ville fut fondée en 52 av. J.-C.", "Elle devint romaine."]),
    ("Il est né au Ier siècle après J.-C. Les sources sont rares.",
     ["Il est né au Ier siècle après J.-C.", "Les sources sont rares."]),
    # a closing quote, a period, then " - " and a date: an item of a dated list
    ('Les syndicats dénoncent la remise en cause des "acquis sociaux". - avril 2004 : le gouvernement recule. '
     '- 3 mai 2004 : grève.',
     ['Les syndicats dénoncent la remise en cause des "acquis sociaux".', "- avril 2004 : le gouvernement recule.",
      "- 3 mai 2004 : grève."]),
    ("Il a vu la fin. - mais pas tout.", ["Il a vu la fin. - mais pas tout."]),
])
def test_french_initials_and_dated_list_items(paragraph, expected):
    assert sentences.splitter_for("fr")(paragraph) == expected
