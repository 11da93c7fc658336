"""Translators: real apertium round trips on Wikipedia sentences, line alignment with odd inputs,
crashes and hangs as errors; CTranslate2 plumbing on a tiny random Marian model built here."""
import os
import shutil

import pytest

import nlp_models
from miners.simsim import translate as tr

needs_apertium = pytest.mark.skipif(
    shutil.which("apertium") is None or "es" not in tr.apertium_pivot_modes(tr.apertium_modes()),
    reason="Debian packages apertium + apertium-eng-spa not installed (make test installs them)")


@pytest.fixture(scope="module")
def sentences():
    return nlp_models.wikipedia_sentences(20)


@pytest.fixture(scope="module")
def apertium():
    translator = tr.make_translator("apertium").load()
    yield translator
    translator.close()


@needs_apertium
def test_apertium_pivots_are_the_debian_pairs(apertium):
    assert {"es", "ca", "gl"} <= set(apertium.pivots())
    assert tr.check_translator("apertium") == apertium.pivots()
    assert tr.check_translator("apertium", ("es", "ca")) == ("es", "ca")
    assert apertium.mode("en", "es") == "eng-spa" and apertium.mode("es", "en") in ("spa-eng", "spa-eng_US")


@needs_apertium
def test_apertium_round_trip_on_wikipedia(apertium, sentences):
    forward = apertium.translate(sentences, "en", "es")
    assert len(forward) == 20 and all(forward)
    assert sum(" el " in f" {s} " or " la " in f" {s} " or " de " in f" {s} " for s in forward) >= 15  # Spanish
    back, error = tr.back_translate_batch(apertium, sentences, "es")
    assert error is None and len(back) == 20
    assert all(b.strip() for b in back)
    assert sum(b != s for b, s in zip(back, sentences)) >= 15  # rewritten, as the paper wants
    for b, s in zip(back, sentences):  # aligned: each output shares words with its own input
        shared = set(b.lower().split()) & set(s.lower().split())
        assert len(shared) >= 2, (s, b)
    assert not any(w.startswith(("*", "#", "@")) for b in back for w in b.split())  # marks stripped


@needs_apertium
def test_apertium_alignment_with_odd_inputs(apertium, sentences):
    odd = ["", "Line one\nline two of one sentence.", "   ", "It ends without a stop", "A\n\nB.", "Ok."]
    out = apertium.translate(odd, "en", "es")
    assert len(out) == len(odd)
    assert out[0] == "" and out[2] == ""
    assert out[5] in ("Ok.", "Bien.", "Vale.", "De acuerdo.") or out[5].endswith(".")
    back, error = tr.back_translate_batch(apertium, odd, "es")
    assert error is None and back[0] == "" and back[2] == ""
    many = [sentences[i % 20] if i % 7 else f"Sentence number {i}." for i in range(500)]
    out = apertium.translate(many, "en", "es")
    assert len(out) == 500
    for i in range(0, 500, 7):
        assert str(i) in out[i], (i, out[i])  # numbered lines come back at their own index


@needs_apertium
def test_apertium_keeps_marks_that_the_source_had(apertium):
    out, = apertium.translate(["The xyzzyplugh fell."], "en", "es")
    assert "xyzzyplugh" in out and "*" not in out
    back, error = tr.back_translate_batch(apertium, ["Follow #xyzzyplugh on the web."], "es")
    assert error is None and "#xyzzyplugh" in back[0]
    if "hbs" in apertium.pivots():
        out, = apertium.translate(['He said "hi" there.'], "en", "hbs")
        assert "parquote" not in out and out.count('"') == 2


@needs_apertium
def test_crash_and_hang_are_errors_not_exceptions(sentences):
    broken = tr.make_translator("apertium", modes={"xx": ("eng-nonexistent", "nonexistent-eng")}).load()
    out, error = tr.back_translate_batch(broken, sentences, "xx")
    assert out is None and isinstance(error, tr.TranslationFailed) and "eng-nonexistent" in str(error)
    assert "timeout" not in type(error).__name__.lower()
    slow = tr.make_translator("apertium", timeout=0.01).load()
    out, error = tr.back_translate_batch(slow, sentences * 25, "es")
    assert out is None and "Timeout" in type(error).__name__ and "timed out" in str(error)
    out, error = tr.back_translate_batch(slow, sentences, "zz")  # no such pivot
    assert out is None and isinstance(error, tr.TranslationFailed)


def test_missing_translators_name_the_option(tmp_path, monkeypatch):
    with pytest.raises(tr.TranslatorUnavailable, match="--translator"):
        tr.check_translator("moses")
    with pytest.raises(tr.TranslatorUnavailable, match="--ct2_model_dir.*en-xx.*xx-en"):
        tr.check_translator("ctranslate2", ct2_model_dir=str(tmp_path / "none"))
    (tmp_path / "en-de").mkdir()
    with pytest.raises(tr.TranslatorUnavailable, match="--ct2_model_dir.*no model pair"):
        tr.check_translator("ctranslate2", ct2_model_dir=str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))  # no apertium on PATH: what a machine without it sees
    with pytest.raises(tr.TranslatorUnavailable, match="apt-get install apertium apertium-eng-spa"):
        tr.check_translator("apertium")


@needs_apertium
def test_missing_apertium_pivot_names_pivots_and_packages():
    with pytest.raises(tr.TranslatorUnavailable, match="--pivots.*zz.*apt-get install apertium"):
        tr.check_translator("apertium", ("es", "zz"))


@pytest.fixture(scope="module")
def ct2_dir(tmp_path_factory):
    return nlp_models.tiny_ct2_pair(str(tmp_path_factory.mktemp("ct2")), "xx")


def test_ctranslate2_plumbing(ct2_dir, sentences):
    assert tr.check_translator("ctranslate2", ct2_model_dir=ct2_dir) == ("xx",)
    translator = tr.make_translator("ctranslate2", ct2_model_dir=ct2_dir, translate_batch=4,
                                    max_decoding_length=32).load()
    assert translator.pivots() == ("xx",) and translator.compute_type == "int8"
    texts = sentences[:10] + ["", "a line\nbreak"]
    out = translator.translate(texts, "en", "xx")
    assert len(out) == 12 and all(isinstance(o, str) for o in out)
    assert out[10] == "" and all(o for i, o in enumerate(out) if i != 10)
    # batching does not change the result: one call of 12 = the same texts one by one
    assert [translator.translate([t], "en", "xx")[0] for t in texts] == out
    assert translator.translate(texts, "en", "xx") == out  # deterministic
    back, error = tr.back_translate_batch(translator, texts, "xx")
    assert error is None and len(back) == 12
    out, error = tr.back_translate_batch(translator, texts, "de")
    assert out is None and "no CTranslate2 model for en-de" in str(error)
    translator.close()


def test_ctranslate2_timeout_is_an_error(ct2_dir, sentences):
    translator = tr.make_translator("ctranslate2", ct2_model_dir=ct2_dir, timeout=1e-6).load()
    out, error = tr.back_translate_batch(translator, sentences * 5, "xx")
    assert out is None and "Timeout" in type(error).__name__
    translator.timeout = 60.0  # the next batch does not queue behind the one that timed out
    out, error = tr.back_translate_batch(translator, sentences[:2], "xx")
    assert error is None and len(out) == 2
    translator.close()



def test_apertium_marks_are_removed_and_reported_unless_the_source_had_them():
    from miners.simsim.translate import split_marks, untranslated
    text, marked = split_marks("The *demarç of @laborojde #be in #hashtag.", "The x of y in #hashtag.")
    assert text == "The demarç of laborojde be in #hashtag."
    assert marked == ("demarç", "laborojde", "be")
    # a name carried through unchanged is fine: the seed has it
    assert untranslated(("Zagreb", "demarç"), "The librarians of Zagreb met.") == ("demarç",)
    # ... also inside a possessive or with digits, as apertium's marks cut them
    assert untranslated(("Zappa", "1950s", "Zappaha"), "Zappa's friend of the 1950s.") == ("Zappaha",)
    # a mark inside a word, after a hyphen or a number (issue 34: they stayed in the text)
    text, marked = split_marks("(FLEC-*FAC) during the 1850*s and 1860*s", "(FLEC-FAC) during the 1850s and 1860s")
    assert text == "(FLEC-FAC) during the 1850s and 1860s" and marked == ("FAC", "s", "s")
    assert untranslated(marked, "(FLEC-FAC) during the 1850s and 1860s") == ()


def test_unknown_words_of_a_neural_back_translation():
    from miners.simsim.english_words import load
    from miners.simsim.translate import unknown_words
    words = load()
    assert "photosynthesis" in words and "predsjedateljski" not in words
    out = unknown_words("The predsjedateljski office of Zagreb ima apotekaj rooms.",
                        "The chairman's office in Zagreb has rooms.", words)
    assert out == ("predsjedateljski", "ima", "apotekaj")  # Zagreb: capitalised, a name, left alone


needs_word_lists = pytest.mark.skipif(
    not all(os.path.isfile(p) for p in ("/usr/share/dict/american-english", "/usr/share/dict/british-english")),
    reason="Debian packages wamerican, wbritish missing (make test installs them: tools/system_packages.sh)")


@needs_word_lists
def test_english_dictionary_has_the_inflections_and_spellings_cmu_lacks():
    from miners.simsim import english_words
    cmu = english_words.load(lists=False)
    full = english_words.load()
    for word in ("chevrons", "favourable", "generalisation", "readiest"):
        assert word not in cmu and word in full
    for word in ("emptyness", "annuled", "predsjedateljski", "laborojde"):
        assert word not in full
    assert [os.path.basename(p) for p in english_words.sources()][1:] == ["american-english", "british-english"]


@needs_apertium
@needs_word_lists
def test_apertium_back_translation_with_an_unmarked_pivot_word_is_flagged(apertium):
    """Apertium's Galician pair writes "emptyness" for "vacuum" without marking it: the dictionary
    check catches what the marks miss (a real sentence of WikiSplit's tune set)."""
    from miners.simsim import english_words
    seed = ("A power vacuum was created north of 36th Parallel which enabled the PKK to establish bases and "
            "training camps in northern Iraq.")
    if "gl" not in apertium.pivots():
        pytest.skip("apertium-en-gl not installed")
    out, flagged, error = tr.back_translate_checked(apertium, [seed], "gl", english_words.load())
    assert error is None and "emptyness" in out[0]
    assert flagged == [("emptyness",)]
    _, unchecked, _ = tr.back_translate_checked(apertium, [seed], "gl", None)
    assert unchecked == [()]  # the marks alone miss it
