"""The language filter of a run in any language (issue 33, item 4): lid.176 keeps sentences of the
run's language; rejects are `not_english` in English runs (as always) and `wrong_language` in others.

Sentences are real: the Bulgarian Wikipedia sample bundled in samples/ (read and segmented as a run
does) and the Ukrainian excerpt bundled in tests/testdata/languages/ (40 articles)."""
import collections

import pytest

from conftest import BGWIKI, ENWIKI, bundled_wiki
from miners.discovery import pairs as disco
from miners.text import sentences
from miners.nlp import langid as langid_lib
from miners.sources.wiki import iter_wiki_articles
from schemas.records import Document, SegmentedDocument

UKWIKI = bundled_wiki("uk")


@pytest.fixture(scope="module")
def langid():
    return langid_lib.LanguageIdentifier()


def _segmented(path, lang, limit=3):
    out = []
    for d in iter_wiki_articles(str(path), str(path), "markers"):
        if isinstance(d, Document):
            sents, paras = sentences.segment(d.text, lang)
            out.append(SegmentedDocument(id=d.id, source="wikipedia", sentences=sents, paragraphs=paras,
                                         path=str(path)))
            if len(out) == limit:
                break
    return out


def _mine(doc, language, langid, min_prob):
    # no_conn_rate 1: every pair without a marker is a [no-conn] candidate, so every pair that
    # passes the model-free filters meets the language filter.
    config = disco.DiscoveryConfig(no_conn_rate=1.0, min_english_prob=min_prob, language=language)
    counts = collections.Counter()
    results = disco.DiscoveryMiner(config, langid=langid).mine_document(doc, lambda n, k=1: counts.update({n: k}))
    return results, counts


def test_bulgarian_run_keeps_bulgarian_and_english_run_rejects_it(langid):
    doc, = _segmented(BGWIKI, "bg", 1)
    kept, counts = _mine(doc, "bg", langid, langid_lib.sentence_threshold("bg"))
    passed = [r for r in kept if isinstance(r, disco.MarkerExample)]
    assert len(passed) >= 12 and counts["pairs/filtered:wrong_language"] <= 3
    assert "pairs/filtered:not_english" not in counts
    english, counts_en = _mine(doc, "en", langid, disco.MIN_ENGLISH_PROB)
    assert not [r for r in english if isinstance(r, disco.MarkerExample)]
    assert counts_en["pairs/filtered:not_english"] == len(passed) + counts["pairs/filtered:wrong_language"]


def test_english_sentences_in_a_ukrainian_run_are_wrong_language(langid):
    en_doc, = _segmented(ENWIKI, "en", 1)
    results, counts = _mine(en_doc, "uk", langid, langid_lib.sentence_threshold("uk"))
    rejected = [r for r in results if isinstance(r, disco.Rejection) and r.reason == "wrong_language"]
    assert rejected and not [r for r in results if isinstance(r, disco.MarkerExample)]
    assert counts["pairs/filtered:wrong_language"] == len(rejected)
    assert "lang=en" in rejected[0].detail


def test_ukrainian_documents_pass_the_document_filter(langid):
    docs = [d for d in iter_wiki_articles(str(UKWIKI), str(UKWIKI), "markers") if isinstance(d, Document)][:50]
    reasons = [disco.document_language_reason(d.text, langid, language="uk") for d in docs]
    # measured on the 40 bundled articles: all 40 pass (the first 50 of the whole excerpt: 45 or more)
    assert len(docs) == 40 and reasons.count(None) >= 36
    assert {disco.document_language_reason(d.text, langid) for d in docs} == {"not_english"}  # the English filter


def test_thresholds_and_reasons_per_language():
    assert langid_lib.sentence_threshold("en") == disco.MIN_ENGLISH_PROB == 0.75
    assert langid_lib.sentence_threshold("uk") == 0.75
    assert langid_lib.sentence_threshold("mr") == langid_lib.sentence_threshold("zh") == 0.5
    assert langid_lib.wrong_language_reason("en") == langid_lib.wrong_language_reason("simple") == "not_english"
    assert langid_lib.wrong_language_reason("fr") == "wrong_language"
    assert langid_lib.known_language("be-tarask") and not langid_lib.known_language("zu")


def test_the_model_knows_the_languages_the_table_names(langid):
    labels = {l.replace("__label__", "") for l in langid._model.get_labels()}  # pylint: disable=protected-access
    assert labels == langid_lib.LID176_LANGUAGES
