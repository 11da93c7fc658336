"""JSON-lines files: one document per line."""
import json
from typing import BinaryIO, Iterator, Union

from miners.sources.common import DEFAULT_MAX_RECORD_BYTES, STAGE, Inc, _noop, _parse_lines, _reject
from schemas.records import Document, Reject


def iter_jsonl_documents(fileobj: Union[str, BinaryIO], path: str, dataset: str, inc: Inc = _noop,
                         compression: str = "auto", max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
                         ) -> Iterator[Union[Document, Reject]]:
    """Documents of a JSON-lines file: `{"id", "text", optional "title", "url", "lang"}` per line.

    Rejects (key "line N"): record_too_large (a line over `max_record_bytes`), broken_utf8, bad_json, wrong_type, missing_field,
    empty_document, truncated_archive, corrupt_archive. Blank lines are skipped.
    """

    def parse(n, text):
        key = f"line {n}"
        try:
            obj = json.loads(text)
        except ValueError as e:
            return _reject(dataset, inc, "bad_json", path, key, str(e), text)
        if not isinstance(obj, dict):
            return _reject(dataset, inc, "wrong_type", path, key, f"line is a {type(obj).__name__}, not an object",
                           text)
        missing = [k for k in ("id", "text") if k not in obj]
        if missing:
            return _reject(dataset, inc, "missing_field", path, key, f"missing {', '.join(missing)}", text)
        doc_id = obj["id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
            return _reject(dataset, inc, "wrong_type", path, key, f"id is a {type(doc_id).__name__}", text)
        bad = [k for k in ("text", "title", "url", "lang") if k in obj and obj[k] is not None
               and not isinstance(obj[k], str)]
        if bad:
            return _reject(dataset, inc, "wrong_type", path, key, f"not a string: {', '.join(bad)}", text)
        if not obj["text"] or not obj["text"].strip():
            return _reject(dataset, inc, "empty_document", path, key, f"id={doc_id}", text)
        inc(f"{STAGE}/documents")
        return Document(id=str(doc_id), text=obj["text"], source="jsonl", title=obj.get("title") or "",
                        url=obj.get("url") or "", lang=obj.get("lang") or "", path=path)

    return _parse_lines(fileobj, path, dataset, inc, compression, parse, max_record_bytes=max_record_bytes)
