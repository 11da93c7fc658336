"""What every source reader shares: format detection by file name, decompression, opening, the
read stage's counting and reject helpers, and line-by-line reading (JSON lines, sentence pairs).

The readers' contract (what they yield and count) is in miners/sources/__init__.py.
"""
import bz2
import gzip
import os
import zlib
from typing import BinaryIO, Callable, Iterator, Tuple, Union

from schemas.records import Reject

STAGE = "read"
FORMATS = ("wiki", "wiki_multistream", "wet", "jsonl", "pairs")

Inc = Callable[..., None]
#: A record of a line file or a WET file (one JSON document, one sentence pair, one WARC payload)
#: larger than this is rejected `record_too_large` without being held in memory: the bound a
#: Wikipedia page has (`wiki.DEFAULT_MAX_PAGE_BYTES`), for every reader of documents.
DEFAULT_MAX_RECORD_BYTES = 5 * 1024 * 1024
_SKIP_CHUNK = 1 << 20
_ARCHIVE_ERRORS = (EOFError, OSError, zlib.error)


def _noop(name, n=1):
    pass


def _archive_reason(error: BaseException) -> str:
    """EOFError: the archive was cut short; anything else (bad CRC, not bz2/gzip): corrupt."""
    return "truncated_archive" if isinstance(error, EOFError) else "corrupt_archive"


# --------------------------------------------------------------------------
# Formats and opening
# --------------------------------------------------------------------------

_COMPRESSIONS = {".bz2": "bz2", ".gz": "gzip", ".gzip": "gzip"}


def compression_of(path: str) -> str:
    """"bz2" | "gzip" | "none" from the file name's extension."""
    return _COMPRESSIONS.get(os.path.splitext(path)[1].lower(), "none")


def detect_format(path: str, override: str = "auto") -> str:
    """The reader for `path`: one of FORMATS, or "wiki_multistream_index".

    Args:
      path: file name (any filesystem); only the name is looked at.
      override: a name from FORMATS to force, or "auto".

    Raises:
      ValueError: unknown override, or a name no rule recognises.
    """
    if override and override != "auto":
        if override not in FORMATS:
            raise ValueError(f"unknown input format {override!r}; expected one of {FORMATS}")
        return override
    name = os.path.basename(path).lower()
    stem = name[:-len(os.path.splitext(name)[1])] if compression_of(name) != "none" else name
    if "multistream-index" in stem:
        return "wiki_multistream_index"
    if stem.endswith("-multistream.xml") and compression_of(name) == "bz2":
        return "wiki_multistream"
    # Dump parts are named like "enwiki-...-pages-articles1.xml-p10p30302.bz2".
    if stem.endswith(".xml") or ".xml-" in stem:
        return "wiki"
    if stem.endswith(".wet") or stem.endswith(".warc"):
        return "wet"
    if stem.endswith(".jsonl") or stem.endswith(".json"):
        return "jsonl"
    if stem.endswith(".tsv"):
        return "pairs"
    raise ValueError(f"cannot tell the format of {path!r} from its name; pass the format explicitly "
                     f"(one of {FORMATS})")


def decompressed(fileobj: BinaryIO, path: str, compression: str = "auto") -> BinaryIO:
    """A binary reader of the decompressed bytes of `fileobj` (raw file bytes)."""
    kind = compression_of(path) if compression == "auto" else compression
    if kind == "bz2":
        return bz2.BZ2File(fileobj)  # reads concatenated (multistream) bz2 too
    if kind == "gzip":
        return gzip.GzipFile(fileobj=fileobj)  # reads multi-member gzip too
    return fileobj


def _open_local(path: str) -> BinaryIO:
    return open(path, "rb")


def _reject(dataset, inc, reason, path, key, detail="", payload=""):
    inc(f"{STAGE}/filtered:{reason}")
    return Reject.make(dataset, STAGE, reason, path, key, detail, payload)


# --------------------------------------------------------------------------
# Line files (JSON lines, sentence-pair TSV)
# --------------------------------------------------------------------------

def _lines(f, limit: int) -> Iterator[Tuple[int, bytes, int]]:
    """(line number, line, 0) per line; a line over `limit` bytes is read past in chunks, never
    held whole, and comes as (line number, its first bytes, its size)."""
    n = 0
    while True:
        line = f.readline(limit + 1)
        if not line:
            return
        n += 1
        if len(line) > limit and not line.endswith(b"\n"):
            size, head = len(line), line[:2000]
            while True:
                rest = f.readline(_SKIP_CHUNK)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield n, head, size
            continue
        yield n, line, 0


def skip_bytes(f, n: int) -> int:
    """Read past `n` bytes of `f` in chunks; returns how many there were."""
    done = 0
    while done < n:
        chunk = f.read(min(_SKIP_CHUNK, n - done))
        if not chunk:
            break
        done += len(chunk)
    return done


def _parse_lines(fileobj: Union[str, BinaryIO], path: str, dataset: str, inc: Inc, compression: str,
                 parse: Callable[[int, str], object], columns: bool = False,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator:
    """`parse(line number, text without its line break)` of each non-blank line: a record or a Reject.

    Every line counts as a record; blank lines are counted as skipped (with `columns`, a line with a
    tab is not blank: `\t` is a pair of empty sides, parsed and rejected). Rejects:
    broken_utf8 and record_too_large (a line over `max_record_bytes`; key "line N"), and truncated_archive / corrupt_archive for a
    file that breaks while it is read (key: the line after the last one read).
    A file given by name is closed at the end.
    """
    own = isinstance(fileobj, str)
    raw = _open_local(fileobj) if own else fileobj
    n = 0
    try:
        f = decompressed(raw, path, compression)
        for n, line, oversize in _lines(f, max_record_bytes):
            inc(f"{STAGE}/records")
            if oversize:
                yield _reject(dataset, inc, "record_too_large", path, f"line {n}",
                              f"line of {oversize} bytes > {max_record_bytes} (the bound of one record)",
                              line.decode("utf-8", "replace"))
                continue
            try:
                text = line.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as e:
                yield _reject(dataset, inc, "broken_utf8", path, f"line {n}", str(e),
                              line.decode("utf-8", "replace"))
                continue
            if not text.strip() and not (columns and "\t" in text):
                inc(f"{STAGE}/skipped:blank_line")
                continue
            yield parse(n, text)
    except _ARCHIVE_ERRORS as e:
        inc(f"{STAGE}/records")
        yield _reject(dataset, inc, _archive_reason(e), path, f"line {n + 1}",
                      f"{type(e).__name__}: {e}; file {path} broke after line {n}")
    finally:
        if own:
            raw.close()
