"""miners.sources (the package's interface) and miners/sources/common.py: format detection, the readers table."""
import pytest

from miners import sources
from miners.sources import detect_format


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


def test_readers_table():
    assert set(sources.READERS) == {"wiki", "wet", "jsonl", "pairs"}
