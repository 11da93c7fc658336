"""The streaming pages-meta-history reader: pairs, noise skips, bad input, bounded memory."""
import bz2
import gzip
import io
import tracemalloc

import pytest

from miners.sources import history
from tests import wikisplit_fixtures as fx


def _article_texts(n):
    return [text for _, _, text in fx.articles()[:n]]


def _run(data: bytes, path="h.xml", **kw):
    pairs, skips = [], []
    for item in history.iter_history(history.open_dump(io.BytesIO(data), path), path, **kw):
        (skips if isinstance(item, history.Skip) else pairs).append(item)
    return pairs, skips


def _xml(pages):
    buf = io.StringIO()
    buf.write(fx.HEADER)
    rid = 1000
    for p in pages:
        for part in fx.page_xml(p, rid):
            buf.write(part)
        rid += 100
    buf.write(fx.FOOTER)
    return buf.getvalue().encode("utf-8")


def _ids(pairs):
    return [(p.before.revision_id, p.after.revision_id) for p in pairs]


def test_adjacent_pairs_with_provenance():
    a, b, c = _article_texts(3)
    data = _xml([fx.Page(12, "Anarchism", revisions=[(a, "x"), (b, "y"), (c, "z")]),
                 fx.Page(25, "Autism", revisions=[(c, "first"), (a, "second")])])
    pairs, skips = _run(data)
    assert skips == []
    assert _ids(pairs) == [(1000, 1001), (1001, 1002), (1100, 1101)]
    first = pairs[0]
    assert (first.before.page_id, first.before.title, first.before.namespace) == (12, "Anarchism", 0)
    assert first.before.text == a and first.after.text == b
    assert (first.after.parent_id, first.after.comment, first.after.contributor) == (1000, "y", "Editor1")
    assert first.before.timestamp == "2010-01-01T00:00:00Z" and first.after.timestamp == "2010-01-01T00:00:01Z"


def test_identity_revert_drops_reverted_and_reverting_revisions():
    a, b, c, d = _article_texts(4)
    page = fx.Page(5, "P", revisions=[(a, "start"), (b, "e1"), (c, "e2"), (a, "e3"), (d, "edit")])
    pairs, skips = _run(_xml([page]))
    assert _ids(pairs) == [(1000, 1004)]
    assert [(s.reason, s.key) for s in skips] == [
        ("reverted_revision", "5:1002"), ("reverted_revision", "5:1001"), ("identity_revert", "5:1003")]


def test_revert_outside_the_radius_keeps_emitted_pairs():
    texts = _article_texts(5)
    revs = [(t, "e") for t in texts] + [(texts[0], "back to the start")]
    pairs, skips = _run(_xml([fx.Page(5, "P", revisions=revs)]), revert_radius=2)
    # The reverted revisions were already final (out of the window): only the reverting one is skipped.
    assert _ids(pairs) == [(1000, 1001), (1001, 1002), (1002, 1003), (1003, 1004)]
    assert [(s.reason, s.key) for s in skips] == [("identity_revert", "5:1005")]


@pytest.mark.parametrize("comment", ["rvv", "Reverted edits by 1.2.3.4 (talk) to last version by X",
                                     "Undid revision 123 by Y", "rv vandalism", "ClueBot NG: reverting"])
def test_revert_comments_are_skipped(comment):
    a, b, c = _article_texts(3)
    pairs, skips = _run(_xml([fx.Page(5, "P", revisions=[(a, "x"), (b, comment), (c, "y")])]))
    assert _ids(pairs) == [(1000, 1002)]
    assert [(s.reason, s.key) for s in skips] == [("revert_comment", "5:1001")]


def test_ordinary_comments_are_kept():
    assert not history.is_revert_comment("copyedit; split a long sentence")
    assert not history.is_revert_comment("")
    assert history.is_revert_comment("rvv")


def test_non_article_namespace_is_skipped_per_revision():
    a, b = _article_texts(2)
    pairs, skips = _run(_xml([fx.Page(9, "Talk:P", ns=1, revisions=[(a, "x"), (b, "y")]),
                              fx.Page(10, "P", revisions=[(a, "x"), (b, "y")])]))
    assert _ids(pairs) == [(1100, 1101)]
    assert [(s.reason, s.key) for s in skips] == [("non_article_namespace", "9:1000"),
                                                  ("non_article_namespace", "9:1001")]


def _one_page_with(middle_revision_xml: str) -> bytes:
    a, b = _article_texts(2)
    xml = _xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y")])]).decode("utf-8")
    return xml.replace("    </revision>\n", "    </revision>\n" + middle_revision_xml, 1).encode("utf-8")


def test_missing_and_deleted_text_are_rejected():
    missing = "    <revision>\n      <id>1500</id>\n      <timestamp>2010-01-01T00:00:00Z</timestamp>\n    </revision>\n"
    deleted = ('    <revision>\n      <id>1501</id>\n      <timestamp>2010-01-01T00:00:00Z</timestamp>\n'
               '      <comment deleted="deleted" />\n      <text bytes="10" deleted="deleted" />\n    </revision>\n')
    pairs, skips = _run(_one_page_with(missing + deleted))
    assert _ids(pairs) == [(1000, 1001)]
    assert [(s.reason, s.key) for s in skips] == [("missing_text", "5:1500"), ("deleted_text", "5:1501")]


@pytest.mark.parametrize("timestamp, detail", [
    ("<timestamp></timestamp>", "timestamp ''"),
    ("", "timestamp ''"),  # no <timestamp> element
    ("<timestamp>2010-02-30T00:00:00Z</timestamp>", "timestamp '2010-02-30T00:00:00Z'"),
    ("<timestamp>1 January 2010</timestamp>", "timestamp '1 January 2010'"),
])
def test_missing_or_invalid_timestamp_is_rejected(timestamp, detail):
    a, b, c = _article_texts(3)
    data = _xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y"), (c, "z")])])
    data = data.replace(b"<timestamp>2010-01-01T00:00:01Z</timestamp>", timestamp.encode("utf-8"))
    pairs, skips = _run(data)
    # The revision is dropped like one without text: its neighbours pair up, it is counted.
    assert _ids(pairs) == [(1000, 1002)]
    assert [(s.reason, s.key, s.detail) for s in skips] == [("bad_timestamp", "5:1001", detail)]
    assert [p.after.timestamp for p in pairs] == ["2010-01-01T00:00:02Z"]


def test_broken_utf8_is_rejected_and_reading_goes_on():
    bad = ('    <revision>\n      <id>1500</id>\n      <timestamp>2010-01-01T00:00:00Z</timestamp>\n'
           '      <text xml:space="preserve">Caf\xff\xfe text</text>\n    </revision>\n')
    data = _one_page_with("@@BAD@@").replace(b"@@BAD@@", bad.encode("latin-1"))
    pairs, skips = _run(data)
    assert _ids(pairs) == [(1000, 1001)]
    assert [(s.reason, s.key) for s in skips] == [("broken_utf8", "5:1500")]


def test_giant_revision_is_rejected():
    a, b = _article_texts(2)
    giant = "Giant text. " * 5000
    pairs, skips = _run(_xml([fx.Page(5, "P", revisions=[(a, "x"), (giant, "g"), (b, "y")])]),
                        max_revision_chars=50_000)
    assert _ids(pairs) == [(1000, 1002)]
    assert [(s.reason, s.key, s.detail) for s in skips] == [("giant_revision", "5:1001", "60000 chars")]


def test_malformed_xml_keeps_what_came_before():
    a, b, c = _article_texts(3)
    data = _xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y")]), fx.Page(6, "Q", revisions=[(c, "z")])])
    broken = data.replace(b"<title>Q</title>", b"<title>Q</titel>")
    pairs, skips = _run(broken)
    assert _ids(pairs) == [(1000, 1001)]
    assert [s.reason for s in skips] == ["malformed_xml"]
    assert "mismatched tag" in skips[0].detail


def test_truncated_bz2_archive():
    a, b, c = _article_texts(3)
    data = bz2.compress(_xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y"), (c, "z")])]))
    pairs, skips = _run(data[: len(data) * 3 // 4], path="h.xml.bz2")
    assert [s.reason for s in skips] == ["truncated_archive"]
    assert "EOFError" in skips[0].detail
    # Whatever was complete before the cut came out.
    assert all(p.before.page_id == 5 for p in pairs)


def test_compressed_formats_read_the_same(tmp_path):
    a, b, c = _article_texts(3)
    data = _xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y"), (c, "z")])])
    py7zr = pytest.importorskip("py7zr")
    seven = tmp_path / "h.xml.7z"
    with py7zr.SevenZipFile(seven, "w") as archive:
        archive.writestr(data, "h.xml")
    plain = _ids(_run(data)[0])
    assert plain == [(1000, 1001), (1001, 1002)]
    assert _ids(_run(bz2.compress(data), "h.xml.bz2")[0]) == plain
    assert _ids(_run(gzip.compress(data), "h.xml.gz")[0]) == plain
    with open(seven, "rb") as f:
        pairs, skips = [], []
        for item in history.iter_history(history.open_dump(f, str(seven)), str(seven)):
            (skips if isinstance(item, history.Skip) else pairs).append(item)
    assert skips == [] and _ids(pairs) == plain
    assert pairs[1].after.text == c


def test_corrupt_7z_is_a_truncated_archive(tmp_path):
    py7zr = pytest.importorskip("py7zr")
    a, b = _article_texts(2)
    seven = tmp_path / "h.xml.7z"
    with py7zr.SevenZipFile(seven, "w") as archive:
        archive.writestr(_xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y")])]), "h.xml")
    raw = seven.read_bytes()
    cut = raw[: len(raw) // 2]
    pairs, skips = _run(cut, path="h.xml.7z")
    assert pairs == [] and [s.reason for s in skips] == ["truncated_archive"]


def _peak_bytes(n_revisions: int) -> int:
    base = _article_texts(1)[0][:3000]
    pairs = fx.weavable_pairs()
    data = _xml([fx.Page(7, "Big", revisions=[(pairs[i % len(pairs)][0] + " " + base, f"e{i}")
                                             for i in range(n_revisions)])])
    tracemalloc.start()
    n = 0
    for item in history.iter_history(io.BytesIO(data), "big.xml"):
        n += 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n == n_revisions - 1
    return peak


def test_memory_is_flat_in_the_number_of_revisions():
    small, large = _peak_bytes(1000), _peak_bytes(10000)
    # 10x the revisions of one page: the reader holds a bounded window, so the peak barely moves.
    assert large < 1.5 * small, (small, large)


def test_identity_reverts_without_sha1_use_a_text_hash():
    import re
    a, b, c = _article_texts(3)
    data = _xml([fx.Page(5, "P", revisions=[(a, "x"), (b, "y"), (a, "z"), (c, "w")])])
    data = re.sub(rb"\s*<sha1>[0-9a-z]*</sha1>", b"", data)
    assert b"<sha1>" not in data
    pairs, skips = _run(data)
    assert _ids(pairs) == [(1000, 1003)]
    assert [(s.reason, s.key) for s in skips] == [("reverted_revision", "5:1001"), ("identity_revert", "5:1002")]
