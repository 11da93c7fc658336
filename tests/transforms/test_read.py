"""transforms.read: the Beam readers on an in-process portable runner, kept and rejected outputs."""
import bz2
import collections
import gzip
import json
import os

import apache_beam as beam
import pytest
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.util import assert_that, equal_to

from miners import sources
from schemas.records import Document, Reject
from tests.testdata.readers import build
from transforms.common import COUNTS, REJECTS
from transforms.read import (DOCUMENTS, PAIRS, InputError, ReadDocuments, ReadFileFn, ReadSentencePairs, WorkItem,
                             expand_inputs, plan_work)

N_PAGES = 18  # the bad-input dumps are made from the sample's first pages, to keep the test quick


def small_dump(change=lambda p: p, n=N_PAGES) -> bytes:
    header, pages, trailer = build.split_dump(build.xml_bytes())
    return header + b"\n  ".join(change(p) for p in pages[:n]) + trailer


def replace_in(title: bytes, old: bytes, new: bytes):
    return lambda p: p.replace(old, new) if b"<title>" + title + b"</title>" in p else p


def template_only(title: bytes):
    def change(p):
        if b"<title>" + title + b"</title>" not in p:
            return p
        start = p.index(b">", p.index(b"<text")) + 1
        return p[:start] + b"{{Infobox only}}" + p[p.index(b"</text>"):]
    return change


def pure_read(path, **kw):
    """The pure reader's output on one file (itself tested against an independent parse)."""
    counts = collections.Counter()
    out = list(sources.READERS[sources.detect_format(path)](path, path, "test",
                                                            lambda k, n=1: counts.update({k: n}), **kw))
    return out, counts


def run(pipeline_fn):
    with beam.Pipeline(runner=FnApiRunner()) as p:
        pipeline_fn(p)


def summed(counts_pcoll):
    return counts_pcoll | "Sum" >> beam.CombinePerKey(sum)


def check_balance(expected_records):
    """Matcher on summed counts: records == kept + skipped + filtered, and records as expected."""
    def _check(actual):
        c = dict(actual)
        kept = c.get("read/documents", 0) + c.get("read/pairs", 0)
        other = sum(n for k, n in c.items() if k.startswith(("read/skipped:", "read/filtered:")))
        assert c["read/records"] == kept + other == expected_records, c
    return _check


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("readers")
    files = {}

    def put(name, data):
        path = str(d / name)
        with open(path, "wb") as f:
            f.write(data)
        files[name] = path

    good = small_dump()
    put("good.xml.bz2", bz2.compress(good))
    full = bz2.compress(small_dump(n=60))
    put("truncated.xml.bz2", full[:len(full) // 2])
    put("malformed.xml.bz2", bz2.compress(small_dump(replace_in(b"Autism", b"</title>", b"</titel>"))))
    put("broken-utf8.xml", small_dump(replace_in(b"Albedo", b"Albedo", b"Alb\xffedo")))
    put("empty-page.xml.gz", gzip.compress(small_dump(template_only(b"Albedo")), mtime=0))
    put("not-bz2.xml.bz2", b"this is not a bz2 archive")
    docs = [Document(id=str(i), text=f"Document number {i}. It has two sentences.", source="jsonl")
            for i in range(5)]
    put("docs.jsonl", "\n".join([json.dumps({"id": d.id, "text": d.text}) for d in docs] + ["{bad"]).encode())
    put("web.warc.wet.gz", build.gzip_members([build.wet_file([("http://a.example/", "Web text. More web text.")]),
                                               build.wet_file([("http://b.example/", "Second page here.")])]))
    return files


def test_read_documents_every_bad_input(bad_inputs):
    paths = expand_inputs([os.path.join(os.path.dirname(bad_inputs["good.xml.bz2"]), "*")])
    assert paths == sorted(bad_inputs.values())
    limit = 150_000  # Anarchism (181 kB of wikitext) is over it, Autism (147 kB) under
    expected_docs, expected_rejects, expected_counts = [], [], collections.Counter()
    for path in paths:
        out, counts = pure_read(path, **({"max_page_bytes": limit} if "xml" in path else {}))
        expected_docs += [o for o in out if isinstance(o, Document)]
        expected_rejects += [o for o in out if isinstance(o, Reject)]
        expected_counts.update(counts)
    # what each bad file must have produced, by reason and key
    name = lambda r: os.path.basename(r.source)  # noqa: E731
    big = {p[0] for p in build.truth()[:60] if p[1] == "0" and not p[2] and p[3] > limit}
    assert big, "the size limit must hit some page of the sample"
    got = sorted((name(r), r.reason, r.key) for r in expected_rejects)
    assert ("malformed.xml.bz2", "malformed_xml", "25") in got
    assert ("broken-utf8.xml", "broken_utf8", "39") in got
    assert ("empty-page.xml.gz", "empty_page", "39") in got
    assert ("docs.jsonl", "bad_json", "line 6") in got
    assert [(n, reason) for n, reason, _ in got if n == "not-bz2.xml.bz2"] == [("not-bz2.xml.bz2", "corrupt_archive")]
    assert [reason for n, reason, _ in got if n == "truncated.xml.bz2" and reason != "page_too_large"] == \
        ["truncated_archive"]
    assert {k for n, reason, k in got if reason == "page_too_large" and n == "good.xml.bz2"} == \
        {p[0] for p in build.truth()[:N_PAGES] if p[1] == "0" and not p[2] and p[3] > limit}
    assert [d.id for d in expected_docs if d.path == bad_inputs["good.xml.bz2"]] == ["25", "39"]
    assert [d.id for d in expected_docs if d.source == "wet"] == ["http://a.example/", "http://b.example/"]

    def pipeline(p):
        out = p | ReadDocuments(paths, "test", max_page_bytes=limit)
        assert_that(out[DOCUMENTS], equal_to(expected_docs), label="Docs")
        assert_that(out[REJECTS], equal_to(expected_rejects), label="Rejects")
        totals = summed(out[COUNTS])
        assert_that(totals, equal_to(list(expected_counts.items())), label="Counts")
        assert_that(totals, check_balance(expected_counts["read/records"]), label="Balance")
    run(pipeline)


def test_read_multistream_by_ranges(tmp_path):
    data_path, index_path = build.build_multistream(str(tmp_path), pages_per_stream=5)
    # the index given with the dump is not an input of its own
    items = plan_work([data_path, index_path], range_bytes=150_000)
    assert len(items) > 3 and {i.fmt for i in items} == {"wiki_multistream"}
    single = list(sources.iter_wiki_articles(data_path, data_path, "test"))  # one sequential read
    expected = [d for d in single if isinstance(d, Document)]
    assert [d.id for d in expected] == [p[0] for p in build.truth() if p[1] == "0" and not p[2] and p[0] != "728"]

    def pipeline(p):
        out = p | ReadDocuments([data_path, index_path], "test", range_bytes=150_000)
        assert_that(out[DOCUMENTS], equal_to(expected), label="Docs")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.reason, r.key)), equal_to([("empty_page", "728")]),
                    label="Rejects")
        assert_that(summed(out[COUNTS]), check_balance(206), label="Balance")
    run(pipeline)


def test_reader_error_is_a_reject_not_a_crash(tmp_path):
    gone = str(tmp_path / "deleted-after-planning.jsonl")

    def pipeline(p):
        out = (p | beam.Create([WorkItem(gone, "jsonl")])
               | beam.ParDo(ReadFileFn("test")).with_outputs(REJECTS, COUNTS, main=DOCUMENTS))
        assert_that(out[DOCUMENTS], equal_to([]), label="Docs")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.reason, r.key, "FileNotFoundError" in r.detail)),
                    equal_to([("reader_error", gone, True)]), label="Rejects")
        assert_that(summed(out[COUNTS]), equal_to([("read/records", 1), ("read/filtered:reader_error", 1)]),
                    label="Counts")
    run(pipeline)


def test_read_sentence_pairs(tmp_path):
    path = tmp_path / "pairs.tsv.gz"
    path.write_bytes(gzip.compress(b"It rained.\tHowever, we went out.\nonly one\nA.\tB.\tp7\n", mtime=0))

    def pipeline(p):
        out = p | ReadSentencePairs([str(path)], "test")
        assert_that(out[PAIRS] | beam.Map(lambda s: (s.id, s.s1, s.s2)),
                    equal_to([("pairs.tsv.gz:1", "It rained.", "However, we went out."), ("p7", "A.", "B.")]),
                    label="Pairs")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.reason, r.key)),
                    equal_to([("wrong_column_count", "line 2")]), label="Rejects")
        assert_that(summed(out[COUNTS]), check_balance(3), label="Balance")
    run(pipeline)


# ------------------------------ expand_inputs -----------------------------

def test_expand_inputs_sorted_and_deduplicated():
    pattern = os.path.join(build.SAMPLES, "*.bz2")
    assert expand_inputs([pattern, build.EN, pattern]) == sorted([build.BG, build.EN, build.TABLES])


def test_expand_inputs_glob_matching_nothing(tmp_path):
    pattern = str(tmp_path / "*.warc.wet.gz")
    with pytest.raises(InputError, match=r"input pattern '.*\*\.warc\.wet\.gz' matched no file"):
        expand_inputs([build.EN, pattern])


def test_expand_inputs_missing_file(tmp_path):
    missing = str(tmp_path / "enwiki-missing.xml.bz2")
    with pytest.raises(InputError, match="enwiki-missing.xml.bz2"):
        expand_inputs([missing])


def test_expand_inputs_unreadable_file(tmp_path):
    unreadable = tmp_path / "docs.jsonl"
    unreadable.mkdir()  # matched by name, but cannot be opened and read
    with pytest.raises(InputError, match=r"input file '.*docs\.jsonl' cannot be read"):
        expand_inputs([str(unreadable)])


def test_unknown_format_fails_at_construction(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("x")
    with pytest.raises(InputError, match="notes.txt"):
        plan_work([str(path)])
    assert [i.fmt for i in plan_work([str(path)], fmt="jsonl")] == ["jsonl"]


def test_multistream_without_index_fails_at_construction(tmp_path):
    data_path, index_path = build.build_multistream(str(tmp_path), pages_per_stream=50)
    os.remove(index_path)
    with pytest.raises(InputError, match="has no index"):
        plan_work([data_path])


def test_pairs_file_is_not_a_document_input(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("a.\tb.\n")
    with pytest.raises(InputError, match="ReadSentencePairs"):
        beam.Pipeline(runner=FnApiRunner()) | ReadDocuments([str(path)], "test")
