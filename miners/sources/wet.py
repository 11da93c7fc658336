"""CommonCrawl WET files (WARC/1.0 `conversion` records): text documents."""
from typing import BinaryIO, Iterator, Union

from miners.sources.common import _ARCHIVE_ERRORS, DEFAULT_MAX_RECORD_BYTES, STAGE, Inc, _archive_reason, _noop, \
    _open_local, _reject, decompressed, skip_bytes
from schemas.records import Document, Reject


def iter_wet_records(fileobj: Union[str, BinaryIO], path: str, dataset: str, inc: Inc = _noop,
                     compression: str = "auto", max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
                     ) -> Iterator[Union[Document, Reject]]:
    """Text documents of a CommonCrawl WET file (WARC/1.0 `conversion` records).

    Each payload line is a text block of the page: it becomes a paragraph.

    Yields:
      Document(id=target URI (record id when absent), url, text, source="wet",
      lang=first of WARC-Identified-Content-Language) or Reject
      (malformed_record, truncated_record, truncated_archive, corrupt_archive, broken_utf8, empty_document,
      record_too_large: a payload over `max_record_bytes`, read past without being held).
    """
    own = isinstance(fileobj, str)
    raw = _open_local(fileobj) if own else fileobj
    try:
        f = decompressed(raw, path, compression)
        yield from _wet(f, path, dataset, inc, max_record_bytes)
    finally:
        if own:
            raw.close()


def _wet(f, path, dataset, inc, max_record_bytes=DEFAULT_MAX_RECORD_BYTES):
    n = 0
    pending = None  # a version line already read while resynchronising
    last = ""
    in_record = False  # the record being read is already counted
    try:
        while True:
            in_record = False
            line = pending if pending is not None else f.readline()
            pending = None
            if not line:
                return
            if not line.strip():
                continue
            n += 1
            inc(f"{STAGE}/records")
            in_record = True
            if not line.startswith(b"WARC/"):
                yield _reject(dataset, inc, "malformed_record", path, f"record {n}",
                              f"expected a WARC/ version line after {last or 'the start'}",
                              line.decode("utf-8", "replace"))
                while True:  # resynchronise on the next version line
                    line = f.readline()
                    if not line or line.startswith(b"WARC/"):
                        break
                pending = line if line else None
                continue
            headers = {}
            while True:
                h = f.readline()
                if not h:
                    yield _reject(dataset, inc, "truncated_record", path, f"record {n}",
                                  f"file ended inside the headers after {last or 'the start'}")
                    return
                if not h.strip():
                    break
                name, sep, value = h.decode("utf-8", "replace").partition(":")
                if sep:
                    headers[name.strip().lower()] = value.strip()
            key = headers.get("warc-target-uri") or headers.get("warc-record-id") or f"record {n}"
            try:
                length = int(headers["content-length"])
                if length < 0:
                    raise ValueError(length)
            except (KeyError, ValueError):
                yield _reject(dataset, inc, "malformed_record", path, key,
                              f"missing or bad Content-Length: {headers.get('content-length')!r}")
                while True:
                    line = f.readline()
                    if not line or line.startswith(b"WARC/"):
                        break
                pending = line if line else None
                continue
            if length > max_record_bytes:
                got = skip_bytes(f, length)
                if got < length:
                    yield _reject(dataset, inc, "truncated_record", path, key, f"payload {got} of {length} bytes")
                    return
                last = key
                yield _reject(dataset, inc, "record_too_large", path, key,
                              f"payload of {length} bytes > {max_record_bytes} (the bound of one record)")
                continue
            payload = f.read(length)
            if len(payload) < length:
                yield _reject(dataset, inc, "truncated_record", path, key,
                              f"payload {len(payload)} of {length} bytes", payload.decode("utf-8", "replace"))
                return
            last = key
            if headers.get("warc-type", "").lower() != "conversion":
                inc(f"{STAGE}/skipped:warc_type")
                continue
            try:
                text = payload.decode("utf-8")
            except UnicodeDecodeError as e:
                yield _reject(dataset, inc, "broken_utf8", path, key, str(e), payload.decode("utf-8", "replace"))
                continue
            paragraphs = [ln.strip() for ln in text.splitlines() if ln.strip()]
            if not paragraphs:
                yield _reject(dataset, inc, "empty_document", path, key, "empty payload")
                continue
            lang = headers.get("warc-identified-content-language", "").split(",")[0].strip()
            inc(f"{STAGE}/documents")
            yield Document(id=key, text="\n\n".join(paragraphs), source="wet", url=headers.get("warc-target-uri", ""),
                           lang=lang, path=path)
    except _ARCHIVE_ERRORS as e:
        if not in_record:
            inc(f"{STAGE}/records")
        yield _reject(dataset, inc, _archive_reason(e), path, last or "start",
                      f"{type(e).__name__}: {e}; file {path} broke after record {last or 'none'}")
