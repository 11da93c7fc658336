"""miners/sources/wet.py: CommonCrawl WET files built from the English sample's articles, and broken ones."""
import pytest

from miners.sources import iter_wet_records
from tests.sources_fixtures import balanced, en, read  # noqa: F401 (en: a fixture)
from tests.testdata.readers import build


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


def test_a_record_over_the_bound_is_read_past_and_rejected(wet_docs):
    """Issue 32: a WET record larger than max_record_bytes is rejected `record_too_large` (its payload
    read past in chunks, never held) and the records after it are still read."""
    (u1, t1), (u2, t2) = wet_docs[:2]
    data = build.wet_file([(u1, t1 * 40), (u2, t2)])
    limit = len(t1.encode("utf-8")) * 10
    docs, rejects, counts = read(iter_wet_records, data, "x.warc.wet", max_record_bytes=limit)
    assert [d.url for d in docs] == [u2]
    assert [(r.reason, r.key) for r in rejects] == [("record_too_large", u1)]
    assert balanced(counts)
    docs, rejects, _ = read(iter_wet_records, data, "x.warc.wet")
    assert [d.url for d in docs] == [u1, u2] and not rejects  # under the default bound (5 MB): kept
