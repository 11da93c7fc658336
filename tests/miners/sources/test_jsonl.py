"""miners/sources/jsonl.py: JSON-lines documents, good and bad lines, a truncated archive."""
import gzip
import json

import pytest

from miners.sources import iter_jsonl_documents
from schemas.records import Document
from tests.sources_fixtures import balanced, read


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


def test_a_line_over_the_bound_is_read_past_and_rejected():
    """Issue 32: a JSON line over max_record_bytes is rejected `record_too_large` without being held
    whole; the lines after it are read (the same bound for sentence-pair lines)."""
    big = json.dumps({"id": "giant", "text": "Words of a giant document. " * 5000})
    data = (big + "\n" + json.dumps({"id": "after", "text": "The next document."}) + "\n").encode("utf-8")
    docs, rejects, counts = read(iter_jsonl_documents, data, "x.jsonl", max_record_bytes=10_000)
    assert [d.id for d in docs] == ["after"]
    assert [(r.reason, r.key) for r in rejects] == [("record_too_large", "line 1")]
    assert len(rejects[0].payload) <= 2000 and balanced(counts)
    docs, rejects, _ = read(iter_jsonl_documents, data, "x.jsonl")
    assert [d.id for d in docs] == ["giant", "after"] and not rejects
