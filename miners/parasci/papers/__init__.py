"""Readers of scientific papers (no Beam import): S2ORC JSON, doc2json, GROBID TEI, JATS -> `Paper`.

One input file gives one paper (a pretty-printed S2ORC / doc2json JSON, a TEI
or JATS XML file) or many (JSON lines, plain or `.gz` / `.bz2` shards as S2ORC
ships them). The format is told from the content, not the name: JSON whose
first line is a whole object is JSON lines; XML is TEI when its root is `TEI`
(namespace http://www.tei-c.org/ns/1.0) and JATS when it is `article`.

S2ORC forms recognised (all with `body_text` paragraphs of
`{text, section, cite_spans: [{start, end, text, ref_id}]}` and `bib_entries`
keyed by `ref_id`):

  2019 release   {paper_id, metadata: {title, year, venue, journal, ...},
                  grobid_parse, latex_parse}  (latex_parse used when it has text;
                  a bib entry's S2 id is in `links`)
  2020 release   {paper_id, _pdf_hash, abstract, body_text, bib_entries, ...}
                  (title / year / mag_field_of_study present only when merged
                  with the metadata file; a bib entry's S2 id is in `link`)
  2021 form      {paper_id, metadata: {title, authors, year}, abstract, body_text, ...}
  doc2json       {paper_id, title, year, header, pdf_parse | latex_parse: {...}}
                  (doc2json names a paper after its file name cut at the first
                  dot, "2020" for 2020.acl-main.207.pdf, which collides, so the
                  id is the PDF's SHA-1 `_pdf_hash` when given, else the
                  title's hash, the id the GROBID TEI of the same PDF gets)

Citations: the citation spans of a paragraph are grouped (a run of spans with
only brackets and separators between them, "[3, 4]", "(Smith et al., 2019;
Lee, 2020)", "[3]-[5]") and each group is replaced by one
`CITATION_PLACEHOLDER`, its brackets included. The key of a cited paper is
"s2:<id>" when the source links it to a Semantic Scholar paper, otherwise
"title:<normalised title>|<year>" from its bibliography entry, "" when the
marker points to no entry. Section headings are mapped onto
`schemas.papers.SECTIONS` by `canonical_section`.

Bad input never raises out of `iter_papers`; it yields `Reject`s (stage
"read") with reasons: broken_utf8, bad_json, bad_xml, not_a_paper,
no_body_text, too_large, unknown_format, truncated_archive, corrupt_archive.
Counters: read/records (every file or JSON line), read/papers,
read/filtered:<reason>, read/skipped:blank_line; records == papers + filtered.

One file per format (a pure move of the former miners/parasci/papers.py): keys.py, sections.py,
citations.py, s2orc.py, tei.py, jats.py, reader.py; every name stays importable from here.
"""
# pylint: disable=unused-import
from miners.parasci.papers.keys import (  # noqa: F401
    _NON_ALNUM_RE,
    _stable_id,
    _year,
    citation_key,
    title_key,
)
from miners.parasci.papers.sections import (  # noqa: F401
    _JATS_SEC_TYPES,
    _NUMBERING_RE,
    _SECTION_KEYWORDS,
    _SECTION_RES,
    _SectionTracker,
    _section_number,
    canonical_section,
    strip_numbering,
)
from miners.parasci.papers.citations import (  # noqa: F401
    _GAP_RE,
    _PUNCT_AFTER_RE,
    _RANGE_RE,
    _SPACE_RE,
    _balance,
    _imbalance,
    _next_char,
    _prev_char,
    replace_citations,
)
from miners.parasci.papers.s2orc import (  # noqa: F401
    _bib_key,
    _parse_of,
    _s2orc_form,
    _s2orc_paragraphs,
    paper_from_s2orc,
)
from miners.parasci.papers.tei import (  # noqa: F401
    TEI_NS,
    _T,
    _between,
    _flatten,
    _local,
    _tei_bib,
    _text_of,
    paper_from_tei,
)
from miners.parasci.papers.jats import (  # noqa: F401
    _JATS_SKIP,
    _jats_bib,
    _jats_replace,
    paper_from_jats,
)
from miners.parasci.papers.reader import (  # noqa: F401
    DEFAULT_MAX_PAPER_BYTES,
    Inc,
    _SNIFF_BYTES,
    _is_json_object,
    _iter,
    _json_paper,
    _result,
    _xml_paper,
    iter_papers,
)
from miners.sources.common import _noop  # noqa: F401
