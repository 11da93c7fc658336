"""Wikipedia pages-articles dumps (one file, or byte ranges of a multistream dump): articles as Documents.

Dumps are cut into pages at the byte level (`<page>` ... `</page>`; safe
because a `<` inside page text is always escaped as `&lt;`) and each page is
parsed on its own with ElementTree. This keeps memory bounded by one page, and
a malformed page, broken UTF-8 bytes or a giant page costs that page only: the
reader goes on with the next `<page>`, which a single document-wide
`iterparse` cannot do after its first syntax error.
"""
import bz2
import codecs
import re
import urllib.parse
import xml.etree.ElementTree as ET
from typing import BinaryIO, Iterable, Iterator, List, Optional, Tuple, Union

from miners.sources.common import _ARCHIVE_ERRORS, STAGE, Inc, _archive_reason, _noop, _open_local, decompressed
from miners.sources.siteinfo import hidden_link_prefixes, parse_siteinfo
from miners.text.wikitext import HIDDEN_NAMESPACES, WikitextError, clean_wikitext, is_redirect
from schemas.records import Document, Reject

# 5 MB of wikitext: the largest English articles are ~1-2 MB; beyond this a
# page is a data dump (lists, tables) and costs more than it brings.
DEFAULT_MAX_PAGE_BYTES = 5 * 1024 * 1024
# Group multistream bz2 streams (100 pages each) into work items of this many compressed bytes.
DEFAULT_RANGE_BYTES = 32 * 1024 * 1024
CHUNK_BYTES = 1 << 20


def _file_chunks(f: BinaryIO) -> Iterator[bytes]:
    while True:
        block = f.read(CHUNK_BYTES)
        if not block:
            return
        yield block


def _utf8_chunks(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """UTF-16 input (with a BOM) transcoded to UTF-8; UTF-8 passed through untouched."""
    first = b""
    for first in chunks:
        if first:
            break
    if first[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        dec = codecs.getincrementaldecoder("utf-16")(errors="replace")
        yield dec.decode(first).encode("utf-8")
        for block in chunks:
            yield dec.decode(block).encode("utf-8")
        yield dec.decode(b"", final=True).encode("utf-8")
        return
    if first.startswith(codecs.BOM_UTF8):
        first = first[3:]
    yield first
    yield from chunks


# --------------------------------------------------------------------------
# Wikipedia pages-articles XML
# --------------------------------------------------------------------------

_MAX_HEADER = 64 << 20
_PAGE_OPEN = b"<page>"
_PAGE_CLOSE = b"</page>"
_ID_RE = re.compile(rb"<id>\s*(\d+)\s*</id>")
_TITLE_RE = re.compile(rb"<title>([^<]*)</title>")
_BASE_RE = re.compile(r"<base>\s*([^<\s]+)\s*</base>")
_XML_LANG_RE = re.compile(r"""xml:lang=["']([A-Za-z-]+)["']""")


def _split_pages(chunks: Iterable[bytes], max_raw: int):
    """Cut a decompressed dump into page byte strings.

    Yields tuples:
      ("header", bytes)          everything before the first page (siteinfo);
      ("page", bytes)            `<page>` ... `</page>`;
      ("malformed", bytes, why)  a page that was never closed before the next `<page>`;
      ("too_large", bytes, n)    the head of a page longer than `max_raw` bytes (skipped);
      ("truncated", bytes, err)  the archive broke (err) with `bytes` of an unfinished page;
      ("unterminated", bytes)    the file ended inside a page.
    """
    buf = b""
    p = 0  # start of unconsumed data in buf
    search = 0  # where to resume looking for page tags (absolute in buf)
    in_page = header_done = skipping = False
    skipped_head = b""
    it = iter(chunks)
    error = None
    while True:
        try:
            chunk = next(it)
        except StopIteration:
            break
        except _ARCHIVE_ERRORS as e:
            error = e
            break
        buf = buf[p:] + chunk
        search = max(0, search - p)
        p = 0
        while True:
            if skipping:  # inside a page that is too large: discard up to its end
                j = buf.find(_PAGE_CLOSE, search)
                k = buf.find(_PAGE_OPEN, search, j if j >= 0 else len(buf))
                if k >= 0:  # the giant page was never closed: the next page starts here
                    p = search = k
                    skipping = in_page = False
                    continue
                if j < 0:
                    buf, p, search = buf[-len(_PAGE_CLOSE):], 0, 0
                    break
                p = search = j + len(_PAGE_CLOSE)
                skipping = in_page = False
                continue
            if not in_page:
                i = buf.find(_PAGE_OPEN, max(p, search))
                if i < 0:
                    if not header_done and len(buf) - p > _MAX_HEADER:
                        yield ("header", buf[p:p + (1 << 20)])  # no pages yet: not a dump we know
                        header_done = True
                    if header_done:  # whitespace or the closing </mediawiki> between pages
                        p = max(p, len(buf) - len(_PAGE_OPEN))
                    search = max(p, len(buf) - len(_PAGE_OPEN))
                    break
                if not header_done:
                    yield ("header", buf[p:i])
                    header_done = True
                p, search, in_page = i, i + len(_PAGE_OPEN), True
                continue
            j = buf.find(_PAGE_CLOSE, search)
            k = buf.find(_PAGE_OPEN, search, j if j >= 0 else len(buf))
            if k >= 0:
                yield ("malformed", buf[p:k], "<page> not closed before the next <page>")
                p, search = k, k + len(_PAGE_OPEN)
                continue
            if j < 0:
                if len(buf) - p > max_raw:
                    skipped_head = buf[p:p + 4096]
                    yield ("too_large", skipped_head, len(buf) - p)
                    skipping = True
                    buf, p, search = buf[-len(_PAGE_CLOSE):], 0, 0
                else:
                    search = max(search, len(buf) - len(_PAGE_CLOSE))
                break
            end = j + len(_PAGE_CLOSE)
            yield ("page", buf[p:end])
            p = search = end
            in_page = False
    if not header_done:
        yield ("header", buf[p:] if not in_page else b"")
    if error is not None:
        yield ("truncated", buf[p:] if in_page and not skipping else b"", error)
    elif in_page and not skipping and buf[p:].strip():
        yield ("unterminated", buf[p:])


def _local(tag: str) -> str:
    """Tag name without its `{namespace}`: export-0.10, 0.11 ... all match."""
    return tag.rsplit("}", 1)[-1]


class _WikiSite:
    """URL prefix and language of a dump, from its `<base>` (or `xml:lang`), and the link prefixes
    the cleaner drops, from its `<namespaces>` (`hidden`)."""

    def __init__(self, header: bytes = b"", default_lang: str = "en"):
        text = header.decode("utf-8", "replace")
        self.lang = default_lang
        self.prefix = f"https://{default_lang}.wikipedia.org/wiki/"
        site = parse_siteinfo(text)
        self.hidden = hidden_link_prefixes(site, HIDDEN_NAMESPACES) if site.namespaces else None
        m = _BASE_RE.search(text)
        if m:
            base = m.group(1)
            cut = base.find("/wiki/")
            self.prefix = base[:cut + len("/wiki/")] if cut >= 0 else base.rsplit("/", 1)[0] + "/"
            host = urllib.parse.urlsplit(base).hostname or ""
            if host.endswith(".wikipedia.org"):
                self.lang = host.split(".")[0]
        m = _XML_LANG_RE.search(text)
        if m and not _BASE_RE.search(text):
            self.lang = m.group(1)
            self.prefix = f"https://{self.lang}.wikipedia.org/wiki/"

    def url(self, title: str) -> str:
        return self.prefix + urllib.parse.quote(title.replace(" ", "_"), safe="/:(),'!*$@;-._~")


def _page_key(raw: bytes) -> str:
    """The page id of a (possibly broken) page, for rejects; "" if none is found."""
    m = _ID_RE.search(raw)
    return m.group(1).decode("ascii") if m else ""


def _page_label(raw: bytes) -> str:
    m = _TITLE_RE.search(raw)
    return m.group(1).decode("utf-8", "replace") if m else ""


class _WikiReader:
    """Turns page byte strings into Documents / Rejects / skips (shared by file and range reads)."""

    def __init__(self, path, dataset, inc, max_page_bytes, site):
        self.path, self.dataset, self.inc = path, dataset, inc
        self.max_page_bytes = max_page_bytes
        self.site = site
        self.last_id = ""

    def reject(self, reason, key, detail="", payload=""):
        self.inc(f"{STAGE}/filtered:{reason}")
        return Reject.make(self.dataset, STAGE, reason, self.path, key, detail, payload)

    def events(self, pieces) -> Iterator[Union[Document, Reject]]:
        for piece in pieces:
            kind = piece[0]
            if kind == "header":
                if piece[1].strip():
                    self.site = _WikiSite(piece[1], self.site.lang) if b"<base>" in piece[1] \
                        or b"xml:lang" in piece[1] or b"<namespaces>" in piece[1] else self.site
                continue
            self.inc(f"{STAGE}/records")
            if kind == "page":
                out = self.page(piece[1])
                if out is not None:
                    yield out
                continue
            raw = piece[1]
            key = _page_key(raw)
            if kind == "malformed":
                yield self.reject("malformed_xml", key, f"{piece[2]}; title={_page_label(raw)!r}",
                                  raw.decode("utf-8", "replace"))
            elif kind == "too_large":
                yield self.reject("page_too_large", key,
                                  f"page XML over {piece[2]} bytes (limit {self.max_page_bytes} of wikitext); "
                                  f"title={_page_label(raw)!r}")
            elif kind == "truncated":
                after = f"after page {self.last_id}" if self.last_id else "before any complete page"
                yield self.reject(_archive_reason(piece[2]), key or self.last_id,
                                  f"{type(piece[2]).__name__}: {piece[2]}; file {self.path} broke {after}",
                                  raw.decode("utf-8", "replace"))
            elif kind == "unterminated":
                after = f"after page {self.last_id}" if self.last_id else "before any complete page"
                yield self.reject("truncated_archive", key or self.last_id,
                                  f"file {self.path} ended inside a page {after}",
                                  raw.decode("utf-8", "replace"))

    def page(self, raw: bytes) -> Optional[Union[Document, Reject]]:
        key = _page_key(raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            # Dumps are valid UTF-8: bad bytes mean corruption, so the page is not trusted.
            return self.reject("broken_utf8", key, f"{e}; title={_page_label(raw)!r}",
                               raw.decode("utf-8", "replace"))
        try:
            elem = ET.fromstring(text)
        except ET.ParseError as e:
            return self.reject("malformed_xml", key, f"{e}; title={_page_label(raw)!r}", text)
        title, ns, page_id, redirect, wikitext = "", None, "", False, None
        for child in elem:
            name = _local(child.tag)
            if name == "title":
                title = (child.text or "").strip()
            elif name == "ns":
                ns = (child.text or "").strip()
            elif name == "id":
                page_id = (child.text or "").strip()
            elif name == "redirect":
                redirect = True
            elif name == "revision":  # pages-articles has one; keep the last if several
                for sub in child:
                    if _local(sub.tag) == "text":
                        wikitext = sub.text or ""
        self.last_id = page_id or self.last_id
        if ns is not None and ns != "0":
            self.inc(f"{STAGE}/skipped:namespace")
            return None
        if wikitext is None:
            return self.reject("malformed_xml", page_id, f"page has no <revision><text>; title={title!r}")
        if redirect or is_redirect(wikitext):
            self.inc(f"{STAGE}/skipped:redirect")
            return None
        size = len(wikitext.encode("utf-8"))
        if size > self.max_page_bytes:
            return self.reject("page_too_large", page_id,
                               f"{size} bytes of wikitext > {self.max_page_bytes}; title={title!r}")
        try:
            clean = clean_wikitext(wikitext, self.site.hidden)
        except WikitextError as e:
            return self.reject("parser_error", page_id, f"{e}; title={title!r}", wikitext)
        if not clean:
            return self.reject("empty_page", page_id, f"no text left after cleaning; title={title!r}", wikitext)
        self.inc(f"{STAGE}/documents")
        return Document(id=page_id, text=clean, source="wikipedia", title=title, url=self.site.url(title),
                        lang=self.site.lang, path=self.path)


def _max_raw(max_page_bytes: int) -> int:
    # XML escaping grows wikitext (&lt; &quot; ...): only a page far above the
    # limit is cut at the byte level, the exact check is on the wikitext.
    return 2 * max_page_bytes + (1 << 16)


def iter_wiki_articles(fileobj_or_path: Union[str, BinaryIO], path: str, dataset: str, inc: Inc = _noop,
                       max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES, compression: str = "auto",
                       default_lang: str = "en") -> Iterator[Union[Document, Reject]]:
    """Articles (namespace 0, redirects skipped) of a pages-articles dump, cleaned.

    Args:
      fileobj_or_path: the dump's raw bytes (binary file object) or a local path.
      path: the name to report in Documents/Rejects; decides the decompression.
      dataset: dataset name written into Rejects.
      inc: counter callback `inc(name, n=1)`.
      max_page_bytes: wikitext larger than this is rejected `page_too_large`.
      compression: "auto" (from `path`), "bz2", "gzip" or "none".
      default_lang: language when the dump has no `<base>` / `xml:lang`.

    Yields:
      Document(id=page id, title, text, source="wikipedia", url, lang, path) or Reject.
    """
    own = isinstance(fileobj_or_path, str)
    raw = _open_local(fileobj_or_path) if own else fileobj_or_path
    try:
        f = decompressed(raw, path, compression)
        reader = _WikiReader(path, dataset, inc, max_page_bytes, _WikiSite(b"", default_lang))
        yield from reader.events(_split_pages(_utf8_chunks(_file_chunks(f)), _max_raw(max_page_bytes)))
    finally:
        if own:
            raw.close()


# ---------------------------- multistream ---------------------------------

def read_multistream_offsets(lines: Iterable[bytes]) -> List[int]:
    """Sorted distinct stream offsets of a multistream index (`offset:page_id:title` lines)."""
    offsets = set()
    for line in lines:
        head = line.split(b":", 1)[0].strip()
        if head.isdigit():
            offsets.add(int(head))
    return sorted(offsets)


def multistream_ranges(index: Union[str, BinaryIO], data_size: int, target_bytes: int = DEFAULT_RANGE_BYTES,
                       index_name: Optional[str] = None) -> List[Tuple[int, int]]:
    """Byte ranges of a `*-multistream.xml.bz2`, each a run of whole bz2 streams.

    Args:
      index: the `*-multistream-index.txt(.bz2)` as a local path or raw binary file object.
      data_size: size in bytes of the multistream dump.
      target_bytes: consecutive streams are grouped until a range reaches this size.
      index_name: the index's name when `index` is a file object (for its compression).

    Returns:
      [(start, end)] covering every indexed stream up to `data_size`, in file
      order. The header stream (siteinfo, before the first offset) is not in
      any range; `iter_wiki_articles_range` reads it on its own.
    """
    own = isinstance(index, str)
    raw = _open_local(index) if own else index
    try:
        offsets = read_multistream_offsets(decompressed(raw, index if own else (index_name or "")))
    finally:
        if own:
            raw.close()
    offsets = [o for o in offsets if o < data_size]
    if not offsets:
        return []
    bounds = offsets + [data_size]
    ranges, start = [], bounds[0]
    for i in range(1, len(bounds)):
        if bounds[i] - start >= target_bytes or i == len(bounds) - 1:
            ranges.append((start, bounds[i]))
            start = bounds[i]
    return ranges


def _bz2_range_chunks(f: BinaryIO, start: int, end: int) -> Iterator[bytes]:
    """Decompressed bytes of the bz2 streams in [start, end), each stream decompressed on its own."""
    f.seek(start)
    left = end - start
    d, fed = bz2.BZ2Decompressor(), False
    while left > 0:
        block = f.read(min(CHUNK_BYTES, left))
        if not block:
            raise EOFError(f"file ended before byte {end}")
        left -= len(block)
        while block:
            out = d.decompress(block)
            fed = True
            if out:
                yield out
            if d.eof:
                block = d.unused_data
                d, fed = bz2.BZ2Decompressor(), False
            else:
                block = b""
    if fed and not d.eof:
        raise EOFError(f"bz2 stream cut at byte {end}: the range does not end on a stream boundary")


def read_multistream_header(f: BinaryIO) -> bytes:
    """The first bz2 stream of a multistream dump (`<mediawiki>` + `<siteinfo>`)."""
    f.seek(0)
    d, out = bz2.BZ2Decompressor(), []
    while not d.eof:
        block = f.read(1 << 16)
        if not block:
            break
        out.append(d.decompress(block))
    return b"".join(out)


def iter_wiki_articles_range(fileobj_or_path: Union[str, BinaryIO], path: str, start: int, end: int, dataset: str,
                             inc: Inc = _noop, max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
                             header: Optional[bytes] = None,
                             default_lang: str = "en") -> Iterator[Union[Document, Reject]]:
    """Like `iter_wiki_articles`, for the byte range [start, end) of a multistream dump.

    Args:
      fileobj_or_path: the dump (seekable raw bytes) or a local path.
      start, end: a range from `multistream_ranges`.
      header: the decompressed header stream; read from offset 0 when None
        (it gives the site's URL prefix and language).
    """
    own = isinstance(fileobj_or_path, str)
    f = _open_local(fileobj_or_path) if own else fileobj_or_path
    try:
        try:
            head = read_multistream_header(f) if header is None else header
        except _ARCHIVE_ERRORS:
            head = b""  # the range itself is still readable; default site
        site = _WikiSite(head, default_lang) if head else _WikiSite(b"", default_lang)
        reader = _WikiReader(path, dataset, inc, max_page_bytes, site)
        pieces = _split_pages(_bz2_range_chunks(f, start, end), _max_raw(max_page_bytes))
        # The pieces of a range have no header of their own: drop the empty one the splitter reports.
        yield from reader.events(p for p in pieces if p[0] != "header")
    finally:
        if own:
            f.close()
