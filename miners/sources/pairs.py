"""Sentence-pair TSV files: `s1 \\t s2 [\\t id]` per line."""
import os
from typing import BinaryIO, Iterator, Union

from miners.sources.common import DEFAULT_MAX_RECORD_BYTES, STAGE, Inc, _noop, _parse_lines, _reject
from schemas.records import Reject, SentencePair


def iter_sentence_pairs(fileobj: Union[str, BinaryIO], path: str, dataset: str, inc: Inc = _noop,
                        compression: str = "auto", max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
                        ) -> Iterator[Union[SentencePair, Reject]]:
    """Sentence pairs of a TSV file: `s1 \\t s2 [\\t id]` per line.

    The id is the third column when present, else `<file name>:<line number>`.
    Rejects (key "line N"): record_too_large (a line over `max_record_bytes`), broken_utf8, wrong_column_count, empty_sentence,
    truncated_archive, corrupt_archive. Blank lines are skipped.
    """
    base = os.path.basename(path)

    def parse(n, text):
        key = f"line {n}"
        cols = text.split("\t")
        if len(cols) not in (2, 3):
            return _reject(dataset, inc, "wrong_column_count", path, key, f"{len(cols)} columns, expected 2 or 3",
                           text)
        s1, s2 = cols[0].strip(), cols[1].strip()
        if not s1 or not s2:
            return _reject(dataset, inc, "empty_sentence", path, key, "s1 or s2 is empty", text)
        pair_id = cols[2].strip() if len(cols) == 3 and cols[2].strip() else f"{base}:{n}"
        inc(f"{STAGE}/pairs")
        return SentencePair(id=pair_id, s1=s1, s2=s2, path=path)

    return _parse_lines(fileobj, path, dataset, inc, compression, parse, columns=True,
                        max_record_bytes=max_record_bytes)
