"""Builders of reader test inputs, all made from the real samples under samples/wikipedia/.

The samples are Wikipedia text (CC BY-SA), excerpts taken from the gensim
project's test data (see ../shared/data/SOURCES.md). Bad inputs (cut
archives, corrupted pages, ...) are made from them at test time.
"""
import bz2
import functools
import gzip
import os
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SAMPLES = os.path.join(ROOT, "samples", "wikipedia")
EN = os.path.join(SAMPLES, "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
BG = os.path.join(SAMPLES, "bgwiki-latest-pages-articles-shortened.xml.bz2")
TABLES = os.path.join(SAMPLES, "enwiki-table-markup.xml.bz2")


@functools.lru_cache(maxsize=None)
def xml_bytes(path=EN) -> bytes:
    with bz2.open(path) as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def truth(path=EN):
    """Per page, from a whole-document ElementTree parse (not the reader's byte splitter):
    (page id, ns, is redirect, wikitext size in UTF-8 bytes, title)."""
    pages = []
    with bz2.open(path) as f:
        for _, el in ET.iterparse(f):
            if el.tag.rsplit("}", 1)[-1] != "page":
                continue
            text = el.find("{*}revision/{*}text")
            pages.append((el.find("{*}id").text, el.find("{*}ns").text, el.find("{*}redirect") is not None,
                          len((text.text or "").encode("utf-8")), el.find("{*}title").text))
            el.clear()
    return tuple(pages)


def split_dump(data: bytes):
    """(header, [page bytes], trailer) of a dump's XML, cut on the page tags."""
    first = data.index(b"<page>")
    pages, pos = [], first
    while True:
        start = data.find(b"<page>", pos)
        if start < 0:
            break
        end = data.index(b"</page>", start) + len(b"</page>")
        pages.append(data[start:end])
        pos = end
    return data[:first], pages, data[pos:]


def build_multistream(directory, pages_per_stream=7, index_compressed=True, path=EN):
    """A `*-multistream.xml.bz2` made of the sample's pages, with its index; returns (data, index) paths."""
    header, pages, trailer = split_dump(xml_bytes(path))
    data_path = os.path.join(directory, "testwiki-20260101-pages-articles-multistream.xml.bz2")
    index_path = os.path.join(directory, "testwiki-20260101-pages-articles-multistream-index.txt"
                              + (".bz2" if index_compressed else ""))
    index_lines = []
    with open(data_path, "wb") as out:
        out.write(bz2.compress(header))
        for i in range(0, len(pages), pages_per_stream):
            offset = out.tell()
            group = pages[i:i + pages_per_stream]
            for page in group:
                root = ET.fromstring(page)
                index_lines.append(f"{offset}:{root.find('id').text}:{root.find('title').text}\n")
            out.write(bz2.compress(b"\n  " + b"\n  ".join(group) + b"\n"))
        out.write(bz2.compress(trailer))
    text = "".join(index_lines).encode("utf-8")
    with open(index_path, "wb") as f:
        f.write(bz2.compress(text) if index_compressed else text)
    return data_path, index_path


def warc_record(headers, payload: bytes) -> bytes:
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    head += f"Content-Length: {len(payload)}\r\n\r\n"
    return head.encode("utf-8") + payload + b"\r\n\r\n"


def wet_file(docs, lang="eng") -> bytes:
    """WET bytes: a warcinfo record, then one conversion record per (url, text)."""
    info = b"software: rewrite-mining tests\r\nformat: WARC File Format 1.0\r\n"
    records = [warc_record([("WARC-Type", "warcinfo"), ("WARC-Date", "2026-01-01T00:00:00Z"),
                            ("WARC-Record-ID", "<urn:uuid:00000000-0000-0000-0000-000000000000>"),
                            ("Content-Type", "application/warc-fields")], info)]
    for i, (url, text) in enumerate(docs):
        records.append(warc_record([
            ("WARC-Type", "conversion"), ("WARC-Target-URI", url), ("WARC-Date", "2026-01-01T00:00:00Z"),
            ("WARC-Record-ID", f"<urn:uuid:00000000-0000-0000-0000-{i + 1:012d}>"),
            ("WARC-Refers-To", f"<urn:uuid:10000000-0000-0000-0000-{i + 1:012d}>"),
            ("WARC-Block-Digest", "sha1:AAAA"), ("WARC-Identified-Content-Language", lang),
            ("Content-Type", "text/plain")], text.encode("utf-8")))
    return b"".join(records)


def gzip_members(parts) -> bytes:
    """Multi-member gzip, one member per part, as CommonCrawl writes WET files."""
    return b"".join(gzip.compress(p, mtime=0) for p in parts)
