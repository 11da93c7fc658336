"""Helpers of the source readers' tests (tests/miners/sources/): run a reader, check its accounting,
the English sample read once."""
import bz2
import collections
import io

import pytest

from miners.sources import iter_wiki_articles
from schemas.records import Reject
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


def raw_en():
    with open(build.EN, "rb") as f:
        return f.read()


def en_variant(replace_page):
    """The English sample's XML with one page's bytes replaced, re-compressed."""
    header, pages, trailer = build.split_dump(build.xml_bytes())
    pages = [replace_page(p) for p in pages]
    return bz2.compress(header + b"\n  ".join(pages) + trailer)
