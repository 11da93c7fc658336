"""miners.sources: the streaming readers, on the real samples and on bad inputs made from them."""
import bz2
import collections
import gzip
import io
import json

import pytest

from miners import sources
from miners.sources import (detect_format, iter_jsonl_documents, iter_sentence_pairs, iter_wet_records,
                            iter_wiki_articles, iter_wiki_articles_range, multistream_ranges)
from schemas.records import Document, Reject, SentencePair
from tests.testdata.readers import build


class Counts(collections.Counter):
    def inc(self, name, n=1):
        self[name] += n


def read(reader, data, path, **kw):
    counts = Counts()
    out = list(reader(io.BytesIO(data), path, "test", counts.inc, **kw))
    return [o for o in out if not isinstance(o, Reject)], [o for o in out if isinstance(o, Reject)], counts


def balanced(counts):
    """Nothing lost: every unit read is kept, skipped or rejected."""
    kept = counts["read/documents"] + counts["read/pairs"]
    other = sum(n for k, n in counts.items() if k.startswith(("read/skipped:", "read/filtered:")))
    return counts["read/records"] == kept + other


@pytest.fixture(scope="module")
def en():
    """The full read of the English sample: (docs, rejects, counts)."""
    with open(build.EN, "rb") as f:
        return read(iter_wiki_articles, f.read(), build.EN)


def _raw_en():
    with open(build.EN, "rb") as f:
        return f.read()


def _en_variant(replace_page):
    """The English sample's XML with one page's bytes replaced, re-compressed."""
    header, pages, trailer = build.split_dump(build.xml_bytes())
    pages = [replace_page(p) for p in pages]
    return bz2.compress(header + b"\n  ".join(pages) + trailer)


# ------------------------------- formats ----------------------------------

@pytest.mark.parametrize("path,fmt", [
    ("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2", "wiki"),
    ("gs://b/enwiki-20260101-pages-articles.xml.bz2", "wiki"),
    ("x/dump.xml", "wiki"),
    ("enwiki-20260101-pages-articles-multistream.xml.bz2", "wiki_multistream"),
    ("enwiki-20260101-pages-articles-multistream-index.txt.bz2", "wiki_multistream_index"),
    ("CC-MAIN-20260101-00000.warc.wet.gz", "wet"),
    ("a.warc.wet", "wet"),
    ("docs.jsonl", "jsonl"), ("docs.jsonl.gz", "jsonl"), ("docs.json.gz", "jsonl"),
    ("pairs.tsv", "pairs"), ("pairs.tsv.gz", "pairs"),
])
def test_detect_format(path, fmt):
    assert detect_format(path) == fmt


def test_detect_format_override_and_unknown():
    assert detect_format("whatever.txt", "jsonl") == "jsonl"
    with pytest.raises(ValueError, match="whatever.txt"):
        detect_format("whatever.txt")
    with pytest.raises(ValueError, match="unknown input format"):
        detect_format("a.jsonl", "csv")


# ------------------------------- wikipedia --------------------------------

def test_wiki_sample_counts_match_an_independent_parse(en):
    docs, rejects, counts = en
    truth = build.truth()
    articles = [p for p in truth if p[1] == "0" and not p[2]]
    assert counts["read/records"] == len(truth) == 206
    assert counts["read/skipped:namespace"] == sum(1 for p in truth if p[1] != "0") == 1
    assert counts["read/skipped:redirect"] == sum(1 for p in truth if p[1] == "0" and p[2]) == 99
    # every article is kept or rejected, in file order
    assert [d.id for d in docs] + [r.key for r in rejects] == [p[0] for p in articles if p[0] in
                                                               {d.id for d in docs}] + [r.key for r in rejects]
    assert sorted([d.id for d in docs] + [r.key for r in rejects]) == sorted(p[0] for p in articles)
    # the one list-only article has no prose left
    assert [(r.reason, r.key) for r in rejects] == [("empty_page", "728")]
    assert counts["read/documents"] == len(docs) == 105
    assert balanced(counts)


def test_wiki_document_fields(en):
    docs, _, _ = en
    first = docs[0]
    assert (first.id, first.title, first.source, first.lang) == ("12", "Anarchism", "wikipedia", "en")
    assert first.url == "https://en.wikipedia.org/wiki/Anarchism"
    assert first.path == build.EN
    assert first.text.startswith("Anarchism is a political philosophy")
    by_title = {d.title: d for d in docs}
    assert by_title["Academy Award for Best Production Design"].url == \
        "https://en.wikipedia.org/wiki/Academy_Award_for_Best_Production_Design"


def test_wiki_utf16_bulgarian_sample():
    with open(build.BG, "rb") as f:
        docs, rejects, counts = read(iter_wiki_articles, f.read(), build.BG)
    assert (counts["read/records"], counts["read/skipped:namespace"], len(docs), rejects) == (3, 2, 1, [])
    doc = docs[0]
    assert (doc.id, doc.title, doc.lang) == ("558", "Григориански календар", "bg")
    assert doc.url.startswith("https://bg.wikipedia.org/wiki/%D0%93")
    assert doc.text.startswith("Григорианският календар")


def test_wiki_dump_without_siteinfo_defaults_to_english():
    with open(build.TABLES, "rb") as f:
        docs, rejects, counts = read(iter_wiki_articles, f.read(), build.TABLES)
    assert [d.id for d in docs] == [p[0] for p in build.truth(build.TABLES)]
    assert all(d.url.startswith("https://en.wikipedia.org/wiki/") for d in docs)


def test_wiki_plain_xml_and_local_path(tmp_path, en):
    path = tmp_path / "dump.xml"
    path.write_bytes(build.xml_bytes())
    counts = Counts()
    docs = [o for o in iter_wiki_articles(str(path), str(path), "test", counts.inc) if isinstance(o, Document)]
    assert [d.text for d in docs] == [d.text for d in en[0]]


def test_truncated_bz2_keeps_the_pages_before_the_cut(en):
    raw = _raw_en()
    cut = raw[:len(raw) // 2]
    docs, rejects, counts = read(iter_wiki_articles, cut, build.EN)
    full_docs = en[0]
    assert 0 < len(docs) < len(full_docs)
    assert docs == full_docs[:len(docs)]  # the same documents, in order: a prefix of the full read
    assert [r.reason for r in rejects if r.reason != "empty_page"] == ["truncated_archive"]
    trunc = [r for r in rejects if r.reason == "truncated_archive"][0]
    assert "EOFError" in trunc.detail and build.EN in trunc.detail
    # the page the cut fell in is named: it is the page after the last complete one
    ids = [p[0] for p in build.truth()]
    last_complete = ids[counts["read/records"] - 2]
    assert trunc.key == ids[counts["read/records"] - 1]
    assert f"after page {last_complete}" in trunc.detail
    assert balanced(counts)


def test_malformed_page_is_rejected_and_the_rest_read(en):
    data = _en_variant(lambda p: p.replace(b"<title>Autism</title>", b"<title>Autism</titel>"))
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("malformed_xml", "25"), ("empty_page", "728")]
    assert "mismatched tag" in rejects[0].detail
    assert docs == [d for d in en[0] if d.id != "25"]
    assert balanced(counts)


def test_unclosed_page_is_rejected_and_the_next_read(en):
    data = _en_variant(lambda p: p.replace(b"</page>", b"") if b"<title>Autism</title>" in p else p)
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("malformed_xml", "25"), ("empty_page", "728")]
    assert docs == [d for d in en[0] if d.id != "25"]
    assert balanced(counts)


def test_broken_utf8_rejects_the_page_only(en):
    data = _en_variant(lambda p: p.replace(b"Autism is a", b"Autism \xff\xfe is a"))
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("broken_utf8", "25"), ("empty_page", "728")]
    assert "can't decode byte 0xff" in rejects[0].detail
    assert docs == [d for d in en[0] if d.id != "25"]
    assert balanced(counts)


@pytest.mark.parametrize("limit", [100_000, 20_000])
def test_giant_pages_rejected_by_size(en, limit):
    # 100 kB: every big page is parsed, then measured; 20 kB: pages over 2*limit+64 kB of XML
    # are cut at the byte level without being held in memory.
    docs, rejects, counts = read(iter_wiki_articles, _raw_en(), build.EN, max_page_bytes=limit)
    expected = {p[0] for p in build.truth() if p[1] == "0" and not p[2] and p[3] > limit}
    assert len(expected) > 3
    assert {r.key for r in rejects if r.reason == "page_too_large"} == expected
    assert docs == [d for d in en[0] if d.id not in expected]
    assert balanced(counts)


def test_parser_error_and_empty_page_rejects():
    def corrupt(page):
        if b"<title>Autism</title>" in page:
            return page.replace(b"Autism is a", b"&lt;b&gt;" * 100 + b"Autism" + b"&lt;/b&gt;" * 100 + b" is a")
        if b"<title>Albedo</title>" in page:
            start = page.index(b"<text")
            start = page.index(b">", start) + 1
            return page[:start] + b"{{Infobox only}}" + page[page.index(b"</text>"):]
        return page
    docs, rejects, counts = read(iter_wiki_articles, _en_variant(corrupt), build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("parser_error", "25"), ("empty_page", "39"),
                                                    ("empty_page", "728")]
    assert "nested deeper" in rejects[0].detail and "Autism" in rejects[0].detail
    assert balanced(counts)


def test_plain_xml_cut_mid_page():
    data = build.xml_bytes()
    cut = data[:data.index(b"<id>25</id>") + 20]
    docs, rejects, counts = read(iter_wiki_articles, cut, "dump.xml")
    assert [r.reason for r in rejects] == ["truncated_archive"]
    assert "ended inside a page" in rejects[0].detail and rejects[0].key == "25"
    assert [d.id for d in docs] == ["12"]
    assert balanced(counts)


# ------------------------------- multistream ------------------------------

@pytest.mark.parametrize("index_compressed", [True, False])
def test_multistream_ranges_union_equals_single_read(tmp_path, en, index_compressed):
    data_path, index_path = build.build_multistream(str(tmp_path), 7, index_compressed)
    size = len(open(data_path, "rb").read())
    ranges = multistream_ranges(index_path, size, target_bytes=200_000)
    assert len(ranges) > 3
    # contiguous, whole streams, covering every page stream to the end of the file
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])) and ranges[-1][1] == size
    counts = Counts()
    docs, rejects = [], []
    for start, end in ranges:
        for o in iter_wiki_articles_range(data_path, data_path, start, end, "test", counts.inc):
            (rejects if isinstance(o, Reject) else docs).append(o)
    single = [o for o in iter_wiki_articles(data_path, data_path, "test") if isinstance(o, Document)]
    assert docs == single
    assert [d.text for d in docs] == [d.text for d in en[0]]
    assert [(r.reason, r.key) for r in rejects] == [("empty_page", "728")]
    assert counts["read/records"] == 206 and balanced(counts)


def test_multistream_range_not_on_stream_boundary_is_rejected(tmp_path):
    data_path, index_path = build.build_multistream(str(tmp_path), 7)
    size = len(open(data_path, "rb").read())
    start, end = multistream_ranges(index_path, size, target_bytes=1)[0]
    counts = Counts()
    out = list(iter_wiki_articles_range(data_path, data_path, start, end - 10, "test", counts.inc))
    assert [o.reason for o in out if isinstance(o, Reject)] == ["truncated_archive"]
    assert balanced(counts)


def test_multistream_ranges_grouping():
    index = b"".join(f"{o}:{i}:T{i}\n".encode() for i, o in enumerate([100, 100, 250, 400, 400, 700]))
    assert multistream_ranges(io.BytesIO(index), 1000, target_bytes=400, index_name="i.txt") == \
        [(100, 700), (700, 1000)]
    assert multistream_ranges(io.BytesIO(index), 1000, target_bytes=300, index_name="i.txt") == \
        [(100, 400), (400, 700), (700, 1000)]
    assert multistream_ranges(io.BytesIO(index), 1000, target_bytes=1, index_name="i.txt") == \
        [(100, 250), (250, 400), (400, 700), (700, 1000)]


# ---------------------------------- WET -----------------------------------

@pytest.fixture(scope="module")
def wet_docs(en):
    return [(d.url, d.text.replace("\n\n", "\n")) for d in en[0][:4]]


def test_wet_multi_member_gzip(wet_docs):
    data = build.gzip_members([build.wet_file(wet_docs[:2]), build.wet_file(wet_docs[2:])])
    docs, rejects, counts = read(iter_wet_records, data, "CC-MAIN-x.warc.wet.gz")
    assert rejects == []
    assert [d.id for d in docs] == [u for u, _ in wet_docs]
    assert [d.url for d in docs] == [u for u, _ in wet_docs]
    assert [d.text for d in docs] == [t.replace("\n", "\n\n") for _, t in wet_docs]
    assert {(d.source, d.lang) for d in docs} == {("wet", "eng")}
    assert counts == {"read/records": 6, "read/skipped:warc_type": 2, "read/documents": 4}


def test_wet_truncated_gzip(wet_docs):
    data = build.gzip_members([build.wet_file(wet_docs[:2]), build.wet_file(wet_docs[2:])])
    first = len(build.gzip_members([build.wet_file(wet_docs[:2])]))
    docs, rejects, counts = read(iter_wet_records, data[:first + (len(data) - first) // 2], "x.warc.wet.gz")
    assert [d.url for d in docs] == [u for u, _ in wet_docs[:2]]
    # the last record read whole is the warcinfo record that opens the second member
    assert [(r.reason, r.key) for r in rejects] == [
        ("truncated_archive", "<urn:uuid:00000000-0000-0000-0000-000000000000>")]
    assert balanced(counts)


def test_wet_bad_records(wet_docs):
    good = build.wet_file(wet_docs[:2])
    second = good.index(b"WARC/1.0", 10)
    bad_length = good[:second] + good[second:].replace(b"Content-Length: ", b"Content-Length: x", 1)
    data = (b"garbage line\r\n" + bad_length + build.warc_record([("WARC-Type", "conversion"),
                                                                   ("WARC-Target-URI", "http://e/")], b"\xff ok")
            + build.warc_record([("WARC-Type", "conversion"), ("WARC-Target-URI", "http://empty/")], b"  \n")
            + build.wet_file(wet_docs[2:3]))
    truncated = data + b"WARC/1.0\r\nWARC-Type: conversion\r\nContent-Length: 500\r\n\r\nshort"
    docs, rejects, counts = read(iter_wet_records, truncated, "x.warc.wet")
    assert [d.url for d in docs] == [wet_docs[1][0], wet_docs[2][0]]
    assert [r.reason for r in rejects] == ["malformed_record", "malformed_record", "broken_utf8", "empty_document",
                                           "truncated_record"]
    assert rejects[0].key == "record 1" and rejects[1].key == wet_docs[0][0] and rejects[2].key == "http://e/"
    assert balanced(counts)


# --------------------------------- JSONL ----------------------------------

JSONL = "\n".join([
    json.dumps({"id": "a", "text": "First doc.", "title": "A", "url": "http://a", "lang": "en"}),
    "{not json",
    json.dumps({"id": "b"}),
    json.dumps({"id": 7, "text": "Seven."}),
    json.dumps(["a list"]),
    json.dumps({"id": "c", "text": 5}),
    "",
    json.dumps({"id": "d", "text": "   "}),
    json.dumps({"id": True, "text": "x"}),
]).encode("utf-8") + b"\n\xff\xfe\n"


@pytest.mark.parametrize("name,data", [("d.jsonl", JSONL), ("d.jsonl.gz", gzip.compress(JSONL, mtime=0))])
def test_jsonl(name, data):
    docs, rejects, counts = read(iter_jsonl_documents, data, name)
    assert docs == [Document(id="a", text="First doc.", source="jsonl", title="A", url="http://a", lang="en",
                             path=name),
                    Document(id="7", text="Seven.", source="jsonl", path=name)]
    assert [(r.reason, r.key) for r in rejects] == [
        ("bad_json", "line 2"), ("missing_field", "line 3"), ("wrong_type", "line 5"), ("wrong_type", "line 6"),
        ("empty_document", "line 8"), ("wrong_type", "line 9"), ("broken_utf8", "line 10")]
    assert counts["read/skipped:blank_line"] == 1 and counts["read/records"] == 10
    assert balanced(counts)


def test_jsonl_truncated_gzip():
    data = gzip.compress(JSONL * 50, mtime=0)
    docs, rejects, counts = read(iter_jsonl_documents, data[:len(data) - 20], "d.jsonl.gz")
    assert rejects[-1].reason == "truncated_archive" and "EOFError" in rejects[-1].detail
    assert balanced(counts)


# ------------------------------ sentence pairs ----------------------------

def test_sentence_pairs():
    data = ("It rained.\tHowever, we went out.\n"
            "One column only\n"
            "A.\tB.\tpair-7\n"
            "\n"
            "a\tb\tc\td\n"
            "\tEmpty first.\n").encode("utf-8") + b"Bad \xff.\tx\r\n"
    pairs, rejects, counts = read(iter_sentence_pairs, data, "dir/p.tsv")
    assert pairs == [SentencePair(id="p.tsv:1", s1="It rained.", s2="However, we went out.", path="dir/p.tsv"),
                     SentencePair(id="pair-7", s1="A.", s2="B.", path="dir/p.tsv")]
    assert [(r.reason, r.key) for r in rejects] == [("wrong_column_count", "line 2"),
                                                    ("wrong_column_count", "line 5"),
                                                    ("empty_sentence", "line 6"), ("broken_utf8", "line 7")]
    assert counts == {"read/records": 7, "read/pairs": 2, "read/skipped:blank_line": 1,
                      "read/filtered:wrong_column_count": 2, "read/filtered:empty_sentence": 1,
                      "read/filtered:broken_utf8": 1}


def test_readers_table():
    assert set(sources.READERS) == {"wiki", "wet", "jsonl", "pairs"}


def test_unclosed_giant_page_does_not_swallow_the_next(en, monkeypatch):
    monkeypatch.setattr(sources, "CHUNK_BYTES", 16 * 1024)  # the page spans many reads
    # Anarchism (181 kB) loses its </page>: over 2 * limit + 64 kB of XML, its bytes are skipped
    # without being kept in memory, and reading resumes at the next <page>.
    data = _en_variant(lambda p: p.replace(b"</page>", b"") if b"<title>Anarchism</title>" in p else p)
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN, max_page_bytes=1_000)
    articles = [p for p in build.truth() if p[1] == "0" and not p[2]]
    assert [(r.reason, r.key) for r in rejects][0] == ("page_too_large", "12")
    assert {r.key for r in rejects if r.reason == "page_too_large"} == {p[0] for p in articles if p[3] > 1_000}
    assert {d.id for d in docs} == {p[0] for p in articles if p[3] <= 1_000} - {"728"}
    assert counts["read/skipped:redirect"] == 99  # the redirects after Anarchism were still read
    assert balanced(counts)


def test_small_reads_cut_tags_anywhere(en, monkeypatch):
    # 1000-byte reads put chunk boundaries inside <page>, </page> and multi-byte characters.
    monkeypatch.setattr(sources, "CHUNK_BYTES", 1000)
    docs, rejects, counts = read(iter_wiki_articles, _raw_en(), build.EN)
    assert docs == en[0] and rejects == en[1] and counts == en[2]
