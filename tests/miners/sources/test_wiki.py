"""miners/sources/wiki.py: pages-articles dumps and multistream ranges, on the real samples and on bad inputs
made from them."""
import io

import pytest

from miners.sources import iter_wiki_articles, iter_wiki_articles_range, multistream_ranges, wiki
from schemas.records import Document, Reject
from tests.sources_fixtures import Counts, balanced, en, en_variant, raw_en, read  # noqa: F401 (en: a fixture)
from tests.testdata.readers import build


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
    raw = raw_en()
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
    data = en_variant(lambda p: p.replace(b"<title>Autism</title>", b"<title>Autism</titel>"))
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("malformed_xml", "25"), ("empty_page", "728")]
    assert "mismatched tag" in rejects[0].detail
    assert docs == [d for d in en[0] if d.id != "25"]
    assert balanced(counts)


def test_unclosed_page_is_rejected_and_the_next_read(en):
    data = en_variant(lambda p: p.replace(b"</page>", b"") if b"<title>Autism</title>" in p else p)
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("malformed_xml", "25"), ("empty_page", "728")]
    assert docs == [d for d in en[0] if d.id != "25"]
    assert balanced(counts)


def test_broken_utf8_rejects_the_page_only(en):
    data = en_variant(lambda p: p.replace(b"Autism is a", b"Autism \xff\xfe is a"))
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN)
    assert [(r.reason, r.key) for r in rejects] == [("broken_utf8", "25"), ("empty_page", "728")]
    assert "can't decode byte 0xff" in rejects[0].detail
    assert docs == [d for d in en[0] if d.id != "25"]
    assert balanced(counts)


@pytest.mark.parametrize("limit", [100_000, 20_000])
def test_giant_pages_rejected_by_size(en, limit):
    # 100 kB: every big page is parsed, then measured; 20 kB: pages over 2*limit+64 kB of XML
    # are cut at the byte level without being held in memory.
    docs, rejects, counts = read(iter_wiki_articles, raw_en(), build.EN, max_page_bytes=limit)
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
    docs, rejects, counts = read(iter_wiki_articles, en_variant(corrupt), build.EN)
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


def test_unclosed_giant_page_does_not_swallow_the_next(en, monkeypatch):
    monkeypatch.setattr(wiki, "CHUNK_BYTES", 16 * 1024)  # the page spans many reads
    # Anarchism (181 kB) loses its </page>: over 2 * limit + 64 kB of XML, its bytes are skipped
    # without being kept in memory, and reading resumes at the next <page>.
    data = en_variant(lambda p: p.replace(b"</page>", b"") if b"<title>Anarchism</title>" in p else p)
    docs, rejects, counts = read(iter_wiki_articles, data, build.EN, max_page_bytes=1_000)
    articles = [p for p in build.truth() if p[1] == "0" and not p[2]]
    assert [(r.reason, r.key) for r in rejects][0] == ("page_too_large", "12")
    assert {r.key for r in rejects if r.reason == "page_too_large"} == {p[0] for p in articles if p[3] > 1_000}
    assert {d.id for d in docs} == {p[0] for p in articles if p[3] <= 1_000} - {"728"}
    assert counts["read/skipped:redirect"] == 99  # the redirects after Anarchism were still read
    assert balanced(counts)


def test_small_reads_cut_tags_anywhere(en, monkeypatch):
    # 1000-byte reads put chunk boundaries inside <page>, </page> and multi-byte characters.
    monkeypatch.setattr(wiki, "CHUNK_BYTES", 1000)
    docs, rejects, counts = read(iter_wiki_articles, raw_en(), build.EN)
    assert docs == en[0] and rejects == en[1] and counts == en[2]
