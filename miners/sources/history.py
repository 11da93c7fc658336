"""Streaming reader of MediaWiki pages-meta-history dumps: temporally adjacent revision pairs.

Pure Python (no Beam). A dump is read with a pull XML parser in fixed-size
chunks; each `<revision>` element is turned into a `schemas.records.Revision`
and dropped from the tree at once, so memory is bounded by the revert window
(`revert_radius` revisions of one page), never by the page's revision count.

Noise is skipped the way revision miners do (e.g. the `mwreverts` convention
of an identity-revert window of 15 revisions):
  * identity reverts: a revision whose text hash equals one of the last
    `revert_radius` kept revisions of the page reverts to it; the revisions in
    between ("reverted") and the reverting revision itself are dropped;
  * edits whose comment marks vandalism or a revert (`rvv`, `Reverted edits
    by`, `Undid revision`, ...);
  * pages outside the article namespace (ns != 0);
  * bad input: missing or deleted text, a missing or invalid timestamp,
    broken UTF-8, giant revisions, malformed XML, truncated archives.
Each skip is reported as a `Skip(reason, key, detail, payload)` item in the
stream (the caller counts and writes them); kept revisions come out as
`RevisionPair(before, after)`.

Element shapes: `iter_history(fileobj)` -> `RevisionPair | Skip`.
"""
import bz2
import collections
import datetime
import gzip
import hashlib
import io
import queue
import re
import threading
import typing
import xml.etree.ElementTree as ET

from schemas.records import Revision

#: Identity reverts are searched among this many previous kept revisions
#: (mwreverts' default radius: Halfaker's revert detection).
REVERT_RADIUS = 15
#: Text hashes remembered per page for identity reverts beyond the window (bounded memory).
MAX_PAGE_HASHES = 1000
#: Revisions longer than this (characters of wikitext) are rejected as giant.
MAX_REVISION_CHARS = 2_000_000
#: Read size for the pull parser.
CHUNK_BYTES = 1 << 18

# A revision's timestamp in the export format (MediaWiki export-0.10: ISO 8601 in UTC).
_TIMESTAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z")

# Comments of reverting or anti-vandalism edits (English Wikipedia conventions:
# "rvv", "rv", "revert(ed)", "undid revision", "vandal", Twinkle/Huggle/ClueBot tags).
_REVERT_COMMENT = re.compile(
    r"(?i)(\brvv?\b|\brevert(ed|ing)?\b|\bundid revision\b|\bundo\b|vandal|\brv/v\b|"
    r"\bclue ?bot\b|\bhuggle\b|\brollback\b)")


class Skip(typing.NamedTuple):
    """A dropped revision / file and why (`reason` is snake_case)."""
    reason: str
    key: str = ""
    detail: str = ""
    payload: str = ""


class RevisionPair(typing.NamedTuple):
    """Two temporally adjacent kept revisions of one page."""
    before: Revision
    after: Revision


def is_revert_comment(comment: str) -> bool:
    return bool(comment) and bool(_REVERT_COMMENT.search(comment))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text_hash(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _DecodedChunks:
    """Decode a byte stream as UTF-8 in chunks; undecodable bytes become U+FFFD."""

    def __init__(self, raw, chunk_bytes=CHUNK_BYTES):
        self._raw = raw
        self._chunk = chunk_bytes
        self._decoder = __import__("codecs").getincrementaldecoder("utf-8")(errors="replace")

    def __iter__(self):
        while True:
            data = self._raw.read(self._chunk)
            if not data:
                tail = self._decoder.decode(b"", final=True)
                if tail:
                    yield tail
                return
            yield self._decoder.decode(data)


class _QueueWriter:
    """py7zr writer that hands decompressed bytes to a bounded queue (streaming)."""

    def __init__(self, q):
        self._q = q
        self._size = 0

    def write(self, s):
        self._q.put(bytes(s))
        self._size += len(s)
        return len(s)

    def read(self, size=None):
        return b""

    def seek(self, offset, whence=0):
        return 0

    def flush(self):
        return None

    def size(self):
        return self._size

    def close(self):
        return None


class _SevenZipStream(io.RawIOBase):
    """Readable stream over the first member of a .7z archive, decompressed in a thread."""

    def __init__(self, fileobj):
        try:
            import py7zr
            import py7zr.io
        except ImportError as e:  # pragma: no cover - py7zr is a declared dependency
            raise ImportError("reading .7z needs py7zr: pip install py7zr==1.1.4") from e
        self._q = queue.Queue(maxsize=16)
        self._buf = b""
        self._error = None
        self._done = False

        outer = self

        class _Factory(py7zr.io.WriterFactory):
            def create(self, filename):
                return _QueueWriter(outer._q)

        def work():
            try:
                with py7zr.SevenZipFile(fileobj, mode="r") as archive:
                    names = [n for n in archive.getnames()]
                    archive.extract(targets=names[:1], factory=_Factory())
            except BaseException as e:  # re-raised in the reader thread
                outer._error = e
            finally:
                outer._q.put(None)

        self._thread = threading.Thread(target=work, daemon=True)
        self._thread.start()

    def readable(self):
        return True

    def readinto(self, b):
        while not self._buf and not self._done:
            item = self._q.get()
            if item is None:
                self._done = True
                if self._error is not None:
                    raise EOFError(f"7z archive error: {self._error}") from self._error
            else:
                self._buf = item
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


def open_dump(fileobj, path: str):
    """Wrap a raw binary stream according to the file name: .bz2, .gz, .7z or plain XML."""
    low = path.lower()
    if low.endswith(".bz2"):
        return bz2.BZ2File(fileobj, "rb")
    if low.endswith(".gz"):
        return gzip.GzipFile(fileobj=fileobj, mode="rb")
    if low.endswith(".7z"):
        return io.BufferedReader(_SevenZipStream(fileobj), buffer_size=CHUNK_BYTES)
    return fileobj


def iter_revisions(stream, path: str = "") -> typing.Iterator[typing.Union[Revision, Skip]]:
    """Revisions of a (decompressed) dump in file order, plus `Skip`s for bad input.

    Memory: one revision element at a time (each is removed from its page
    element as soon as it is read).
    """
    parser = ET.XMLPullParser(events=("start", "end"))
    root = None  # <mediawiki>: finished top-level children are removed from it
    page = None  # the <page> element being read (children removed as they end)
    page_info = {}
    depth = 0
    try:
        for chunk in _DecodedChunks(stream):
            parser.feed(chunk)
            for event, elem in parser.read_events():
                tag = _local(elem.tag)
                if event == "start":
                    depth += 1
                    if root is None:
                        root = elem
                    elif tag == "page":
                        page, page_info = elem, {}
                    continue
                depth -= 1
                if page is None:
                    if depth == 1:  # <siteinfo> and other top-level elements
                        root.remove(elem)
                    continue
                if tag == "revision":
                    yield _make_revision(elem, page_info, path)
                    page.remove(elem)
                elif tag == "page":
                    root.remove(page)
                    page = None
                elif depth == 2:  # a direct child of <page>: title, ns, id, redirect
                    if tag in ("title", "ns", "id"):
                        page_info[tag] = (elem.text or "").strip()
                    page.remove(elem)
        parser.close()
    except ET.ParseError as e:
        yield Skip("malformed_xml", path, str(e))
    except (EOFError, OSError, ValueError) as e:
        # bz2/gzip raise EOFError on a truncated stream, OSError on corrupt data.
        yield Skip("truncated_archive", path, f"{type(e).__name__}: {e}")


def _children(elem) -> dict:
    """Local tag name -> first child element."""
    out = {}
    for child in elem:
        out.setdefault(_local(child.tag), child)
    return out


def _make_revision(elem, page_info, path):
    kids = _children(elem)

    def text_of(name):
        c = kids.get(name)
        return (c.text or "") if c is not None else ""

    try:
        page_id = int(page_info.get("id") or 0)
        namespace = int(page_info.get("ns") or 0)
        revision_id = int(text_of("id") or 0)
        parent_id = int(text_of("parentid") or 0)
    except ValueError as e:
        return Skip("bad_revision_metadata", f"{page_info.get('title', '')}", str(e))
    contributor = ""
    c = kids.get("contributor")
    if c is not None:
        who = _children(c)
        for name in ("username", "ip"):
            if who.get(name) is not None and who[name].text:
                contributor = who[name].text
                break
    t = kids.get("text")
    comment_elem = kids.get("comment")
    key = f"{page_id}:{revision_id}"
    if t is None:
        return Skip("missing_text", key, "no <text> element")
    if t.get("deleted") is not None:
        return Skip("deleted_text", key, "text deleted")
    timestamp = text_of("timestamp").strip()
    if not _valid_timestamp(timestamp):
        return Skip("bad_timestamp", key, f"timestamp {timestamp[:40]!r}")
    comment = "" if comment_elem is None or comment_elem.get("deleted") is not None else (comment_elem.text or "")
    return Revision(
        page_id=page_id, title=page_info.get("title", ""), namespace=namespace,
        revision_id=revision_id, parent_id=parent_id, timestamp=timestamp,
        comment=comment, text=t.text or "", sha1=text_of("sha1").strip(), contributor=contributor,
        minor="minor" in kids, path=path)


def _valid_timestamp(timestamp: str) -> bool:
    m = _TIMESTAMP.fullmatch(timestamp)
    if m is None:
        return False
    try:
        datetime.datetime(*map(int, m.groups()))
    except ValueError:  # e.g. 2010-02-30
        return False
    return True


def revision_hash(rev: Revision):
    """Identity of a revision's text: the dump's own SHA-1 when present (no rehashing), else BLAKE2b."""
    return ("sha1", rev.sha1) if rev.sha1 else ("b2", _text_hash(rev.text))


def iter_history(stream, path: str = "", revert_radius: int = REVERT_RADIUS,
                 max_revision_chars: int = MAX_REVISION_CHARS,
                 namespaces=(0,)) -> typing.Iterator[typing.Union[RevisionPair, Skip]]:
    """Adjacent pairs of kept revisions of every page of a decompressed history dump.

    Args:
      stream: binary file object of the XML (use `open_dump` for archives).
      path: input name, for provenance and reject keys.
      revert_radius: identity reverts are searched this many kept revisions back;
        it is also the look-ahead (a pair is emitted once its later revision is
        `revert_radius` revisions old, when it can no longer be reverted).
      max_revision_chars: revisions with more wikitext are skipped as `giant_revision`.
      namespaces: namespaces to keep (articles: 0).

    Yields:
      `RevisionPair` for each pair of temporally adjacent kept revisions, and
      `Skip` for every dropped revision or file problem.
    """
    namespaces = frozenset(namespaces)
    window = collections.deque()  # kept, not-yet-final revisions: (hash, Revision)
    last_final = None  # the last revision that left the window (left side of the next pair)
    last_final_hash = None
    page_id = None
    page_hashes = collections.OrderedDict()  # text hashes of the page's kept revisions (bounded LRU)

    def flush_one():
        nonlocal last_final, last_final_hash
        h, rev = window.popleft()
        if last_final is not None:
            yield RevisionPair(last_final, rev)
        last_final, last_final_hash = rev, h

    def end_page():
        nonlocal last_final, last_final_hash
        while window:
            yield from flush_one()
        last_final = last_final_hash = None
        page_hashes.clear()

    for item in iter_revisions(stream, path):
        if isinstance(item, Skip):
            yield item
            continue
        rev = item
        if rev.page_id != page_id:
            yield from end_page()
            page_id = rev.page_id
        key = f"{rev.page_id}:{rev.revision_id}"
        if rev.namespace not in namespaces:
            yield Skip("non_article_namespace", key, f"ns={rev.namespace}")
            continue
        if len(rev.text) > max_revision_chars:
            yield Skip("giant_revision", key, f"{len(rev.text)} chars", rev.text[:200])
            continue
        if "\ufffd" in rev.text:
            yield Skip("broken_utf8", key, "undecodable bytes in text", rev.text[:200])
            continue
        h = revision_hash(rev)
        # Identity revert: back to the text of a kept revision still in the window.
        match = None
        for i in range(len(window) - 1, -1, -1):
            if window[i][0] == h:
                match = i
                break
        if match is None and last_final_hash == h:
            match = -1
        if match is None and h in page_hashes:
            # Back to a revision already out of the window: its pairs were emitted; skip the reverting one.
            yield Skip("identity_revert", key, "text equals an earlier revision (outside the revert window)")
            continue
        if match is not None:
            while len(window) > match + 1:
                _, reverted = window.pop()
                yield Skip("reverted_revision", f"{reverted.page_id}:{reverted.revision_id}",
                           f"reverted by {rev.revision_id}")
            yield Skip("identity_revert", key, "text equals an earlier revision")
            continue
        if is_revert_comment(rev.comment):
            yield Skip("revert_comment", key, rev.comment[:200])
            continue
        window.append((h, rev))
        page_hashes[h] = None
        if len(page_hashes) > MAX_PAGE_HASHES:
            page_hashes.popitem(last=False)
        if len(window) > revert_radius:
            yield from flush_one()
    yield from end_page()
