"""Files -> papers or rejects: sniffing the format, JSON lines, archives, size bounds.

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
import json
import re
import xml.etree.ElementTree as ET
from typing import BinaryIO, Callable, Iterator, Tuple, Union
from miners.sources.common import _ARCHIVE_ERRORS, _archive_reason, _noop, _open_local, _reject, decompressed, STAGE
from schemas.papers import Paper
from schemas.records import Reject
from miners.parasci.papers.s2orc import paper_from_s2orc
from miners.parasci.papers.tei import _T, _local, paper_from_tei
from miners.parasci.papers.jats import paper_from_jats


Inc = Callable[..., None]

# A scientific paper is at most a few MB of JSON or XML (the largest S2ORC
# records with many bib entries stay under 10 MB); anything bigger is a data
# dump or a broken file and would cost a worker its memory.
DEFAULT_MAX_PAPER_BYTES = 32 * 1024 * 1024
_SNIFF_BYTES = 64 * 1024


def _xml_paper(data: bytes, path: str) -> Union[Paper, Tuple[str, str]]:
    head = data[:200].decode("ascii", "replace").lower()
    m = re.search(r"encoding=[\"']([\w.-]+)", head)
    if not m or m.group(1).replace("_", "-") in ("utf-8", "utf8"):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            return "broken_utf8", str(e)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        return "bad_xml", str(e)
    except (ValueError, LookupError) as e:  # unknown declared encoding
        return "bad_xml", f"{type(e).__name__}: {e}"
    name = _local(root.tag)
    if name == "TEI" or root.tag.startswith(_T):
        if root.tag != _T + "TEI":
            return "not_a_paper", f"TEI root {root.tag} is not a TEI document"
        return paper_from_tei(root, path)
    if name == "article":
        return paper_from_jats(root, path)
    return "not_a_paper", f"XML root <{name}> is neither TEI nor JATS <article>"


def _json_paper(text: str, path: str) -> Union[Paper, Tuple[str, str]]:
    try:
        obj = json.loads(text)
    except ValueError as e:
        return "bad_json", str(e)
    if not isinstance(obj, dict):
        return "not_a_paper", f"JSON {type(obj).__name__}, not an object"
    return paper_from_s2orc(obj, path)


def _result(value, dataset, inc, path, key, payload=""):
    if isinstance(value, Paper):
        inc(f"{STAGE}/papers")
        return value
    reason, detail = value
    return _reject(dataset, inc, reason, path, key, detail, payload[:2000])


def iter_papers(fileobj: Union[str, BinaryIO], path: str, dataset: str, inc: Inc = _noop,
                compression: str = "auto",
                max_paper_bytes: int = DEFAULT_MAX_PAPER_BYTES) -> Iterator[Union[Paper, Reject]]:
    """Every paper of one file (S2ORC / doc2json JSON or JSON lines, GROBID TEI, JATS).

    Args:
      fileobj: raw file bytes (a binary file object) or a local path.
      path: the file's name: compression is chosen from it (".gz", ".bz2") and it is the key of rejects.
      dataset: for the Rejects.
      inc: counter callback `inc(name, n=1)`.
      compression: "auto" (from the name), "gzip", "bz2" or "none".
      max_paper_bytes: a paper (a file, or a JSON line) larger than this is rejected `too_large`.

    Yields:
      `Paper`s, and `Reject`s keyed by the file (single-paper files) or "line N" (JSON lines).
    """
    own = isinstance(fileobj, str)
    raw = _open_local(fileobj) if own else fileobj
    n_lines = [0]
    in_record = [False]
    try:
        f = decompressed(raw, path, compression)
        yield from _iter(f, path, dataset, inc, max_paper_bytes, n_lines, in_record)
    except _ARCHIVE_ERRORS as e:
        if not in_record[0]:
            inc(f"{STAGE}/records")
        key = f"line {n_lines[0] + 1}" if n_lines[0] else path
        yield _reject(dataset, inc, _archive_reason(e), path, key,
                      f"{type(e).__name__}: {e}; file {path} broke after line {n_lines[0]}")
    finally:
        if own:
            raw.close()


def _iter(f, path, dataset, inc, limit, n_lines, in_record):
    first = f.readline(limit + 1)
    probe = first.lstrip()
    if probe.startswith(b"\xef\xbb\xbf"):
        probe = probe[3:].lstrip()
    if probe[:1] == b"{" and (len(first) > limit or _is_json_object(first)):
        # JSON lines: one paper a line, streamed. (A pretty-printed object's first line is a bare "{";
        # a first line over the limit is a giant minified object: rejected alone, the next lines still read.)
        line, n = first, 1
        while line:
            n_lines[0] = n
            key = f"line {n}"
            if not line.strip():
                inc(f"{STAGE}/skipped:blank_line")
                line = f.readline(limit + 1)
                n += 1
                continue
            in_record[0] = True
            inc(f"{STAGE}/records")
            if len(line) > limit and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the giant line
                    line = f.readline(1 << 20)
                yield _reject(dataset, inc, "too_large", path, key, f"JSON line over {limit} bytes")
            else:
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError as e:
                    yield _reject(dataset, inc, "broken_utf8", path, key, str(e), line[:2000].decode("utf-8", "replace"))
                else:
                    yield _result(_json_paper(text, path), dataset, inc, path, key, text)
            in_record[0] = False
            line = f.readline(limit + 1)
            n += 1
        return
    # One document a file.
    data = first + f.read(limit + 1 - len(first)) if len(first) <= limit else first
    in_record[0] = True
    inc(f"{STAGE}/records")
    if len(data) > limit:
        yield _reject(dataset, inc, "too_large", path, path, f"file over {limit} bytes (max_paper_bytes)")
        return
    body = data.lstrip()
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:].lstrip()
    if body[:1] in (b"{", b"["):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as e:
            yield _reject(dataset, inc, "broken_utf8", path, path, str(e))
            return
        yield _result(_json_paper(text, path), dataset, inc, path, path)
    elif body[:1] == b"<":
        yield _result(_xml_paper(data, path), dataset, inc, path, path)
    elif not body:
        yield _reject(dataset, inc, "no_body_text", path, path, "empty file")
    else:
        yield _reject(dataset, inc, "unknown_format", path, path,
                      f"neither JSON nor XML: starts with {body[:40]!r}")


def _is_json_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line.decode("utf-8")), dict)
    except (ValueError, UnicodeDecodeError):
        return False
