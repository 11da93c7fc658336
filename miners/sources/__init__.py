"""Streaming parsers of the text sources (no Beam import).

Each parser is a generator over one input file that yields
`schemas.records.Document` (or `SentencePair`) for kept inputs and
`schemas.records.Reject` (stage "read") for bad ones, and counts through an
`inc(name)` callback:

  read/records            every input unit seen (page, WARC record, line),
                          a truncated tail included;
  read/documents          kept documents (`read/pairs` for sentence pairs);
  read/skipped:<why>      out of scope, not bad input (redirect, namespace,
                          warc_type, blank_line): counted, not rejected;
  read/filtered:<reason>  rejected, each with a Reject record.

so that records == documents + skipped + filtered for every file.

Inputs are the raw bytes of a file (a binary file object, or a local path);
compression is chosen from the name (`.bz2`, `.gz`) unless given. Python's own
bz2/gzip readers are used on purpose: they raise on a truncated archive
(EOFError), which becomes a `truncated_archive` reject, where some wrappers
return a silent short read.

One module per source kind, what they share in `common`:

    common.py   format detection by name (`detect_format`, FORMATS), decompression, opening,
                the read stage's reject helper, line-by-line reading
    wiki.py     Wikipedia pages-articles dumps: a whole file, or byte ranges of a multistream dump
    history.py  Wikipedia pages-meta-history dumps: temporally adjacent revision pairs (WikiSplit)
    wet.py      CommonCrawl WET files
    jsonl.py    JSON-lines documents
    pairs.py    sentence-pair TSV files

The names below are the readers' public interface (`from miners import sources`);
READERS maps a format to its reader.
"""
from miners.sources.common import FORMATS, STAGE, compression_of, decompressed, detect_format
from miners.sources.jsonl import iter_jsonl_documents
from miners.sources.pairs import iter_sentence_pairs
from miners.sources.wet import iter_wet_records
from miners.sources.wiki import (DEFAULT_MAX_PAGE_BYTES, DEFAULT_RANGE_BYTES, iter_wiki_articles,
                                 iter_wiki_articles_range, multistream_ranges, read_multistream_header,
                                 read_multistream_offsets)

__all__ = ["FORMATS", "STAGE", "DEFAULT_MAX_PAGE_BYTES", "DEFAULT_RANGE_BYTES", "READERS", "compression_of",
           "decompressed", "detect_format", "iter_jsonl_documents", "iter_sentence_pairs", "iter_wet_records",
           "iter_wiki_articles", "iter_wiki_articles_range", "multistream_ranges", "read_multistream_header",
           "read_multistream_offsets"]

READERS = {
    "wiki": iter_wiki_articles,
    "wet": iter_wet_records,
    "jsonl": iter_jsonl_documents,
    "pairs": iter_sentence_pairs,
}
