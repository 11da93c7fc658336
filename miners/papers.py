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
"""
import dataclasses
import hashlib
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from typing import BinaryIO, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from miners.sources import _ARCHIVE_ERRORS, _archive_reason, _noop, _open_local, _reject, decompressed, STAGE
from schemas.papers import CITATION_PLACEHOLDER, SECTIONS, Paper, PaperParagraph
from schemas.records import Reject

Inc = Callable[..., None]

# A scientific paper is at most a few MB of JSON or XML (the largest S2ORC
# records with many bib entries stay under 10 MB); anything bigger is a data
# dump or a broken file and would cost a worker its memory.
DEFAULT_MAX_PAPER_BYTES = 32 * 1024 * 1024
_SNIFF_BYTES = 64 * 1024
TEI_NS = "http://www.tei-c.org/ns/1.0"
_T = "{%s}" % TEI_NS

# ---------------------------------------------------------------- normalising

_NON_ALNUM_RE = re.compile(r"[\W_]+", re.UNICODE)


def title_key(title: str) -> str:
    """Lower case, letters and digits only, words joined by one space ("" for no title)."""
    t = unicodedata.normalize("NFKC", title or "").lower()
    return _NON_ALNUM_RE.sub(" ", t).strip()


def citation_key(link: Optional[str], title: str, year) -> str:
    """"s2:<id>" for a linked paper, else "title:<title key>|<year>" (year 0 when unknown), "" when untitled."""
    if link not in (None, ""):
        return f"s2:{link}"
    t = title_key(title)
    return f"title:{t}|{_year(year)}" if t else ""


def _year(value) -> int:
    """A year from an int or a date string ("2017", "2019-05-01"); 0 when there is none."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if 1000 <= value <= 2999 else 0
    m = re.search(r"\b(1\d{3}|2\d{3})\b", str(value or ""))
    return int(m.group(1)) if m else 0


def _stable_id(title: str, paragraphs: Sequence[PaperParagraph]) -> str:
    """An id for a source without one: from the normalised title, else from the text."""
    basis = title_key(title) or "\n".join(p.text for p in paragraphs[:3])
    return "sha1:" + hashlib.sha1(basis.encode("utf-8")).hexdigest()[:20]


# ---------------------------------------------------------------- sections

_NUMBERING_RE = re.compile(r"^\s*(?:(?:\d+|[IVXLC]+|[A-Z])(?:\.\d+)*\.?\s+|\d+(?:\.\d+)*\.?(?=[A-Za-z]))", re.I)
# Checked by where the keyword first occurs in the heading: "Results and Discussion" -> results,
# "Conclusions and Future Work" -> conclusion, "Materials and Methods" -> method.
_SECTION_KEYWORDS = (
    ("abstract", r"abstract|summary of the paper"),
    ("introduction", r"intro|introduc|motivation|einleitung"),
    ("background", r"related work|related research|related literature|background|previous work|prior work|"
                   r"literature review|review of (?:the )?literature|preliminar|state of the art"),
    ("method", r"method|materials?\b|approach|model|framework|algorithm|architecture|proposed|"
               r"our system|system description|technique|procedure|formulation|theory"),
    ("data", r"data|corpus|corpora|annotation|collection of"),
    ("experiments", r"experiment|evaluation|setup|set-up|implementation|baselines?\b|training details"),
    ("results", r"result|findings|performance|analysis|ablation|comparison"),
    ("discussion", r"discussion|limitations?\b"),
    ("conclusion", r"conclu|summary|future work|future direction|final remarks|outlook|closing remarks"),
)
_SECTION_RES = tuple((name, re.compile(r"(?<![a-z])(?:" + pat + ")")) for name, pat in _SECTION_KEYWORDS)
# JATS <sec sec-type="..."> values (JATS 1.x suggested list).
_JATS_SEC_TYPES = {"intro": "introduction", "introduction": "introduction", "methods": "method",
                   "materials|methods": "method", "materials": "method", "results": "results",
                   "discussion": "discussion", "results|discussion": "results", "conclusions": "conclusion",
                   "conclusion": "conclusion", "cases": "results", "background": "background"}


def strip_numbering(heading: str) -> str:
    """"2.1 Related Work" -> "Related Work", "II. PRELIMINARIES" -> "PRELIMINARIES"."""
    h = (heading or "").strip()
    stripped = _NUMBERING_RE.sub("", h, count=1)
    return stripped if stripped.strip() else h


def canonical_section(heading: str) -> str:
    """The canonical name (one of SECTIONS) of a heading as written; "other" when none fits.

    The numbering is ignored and the keyword found earliest in the heading wins,
    so "1 Introduction" -> introduction, "2. Related Work" -> background,
    "Experimental Setup" -> experiments, "Results and Discussion" -> results.
    """
    h = unicodedata.normalize("NFKD", strip_numbering(heading)).lower()
    h = "".join(c for c in h if not unicodedata.combining(c))  # "Introducción" -> "introduccion"
    best = None
    for name, pattern in _SECTION_RES:
        m = pattern.search(h)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else "other"


def _section_number(number: str, heading: str) -> str:
    """"2.1" from an explicit number or from the start of the heading ("2.1 Node Types")."""
    if number:
        return number.strip().rstrip(".")
    m = re.match(r"\s*(\d+(?:\.\d+)*)\.?\s", heading or "")
    return m.group(1) if m else ""


class _SectionTracker:
    """Canonical sections of a flat run of headings (S2ORC, TEI).

    A paragraph with no heading before any heading is `preamble`; one with no
    heading after a heading continues that section (GROBID's headless divs
    after a figure or formula). A numbered subsection takes its parent's
    section when that one is known: "3.1 Document Classification" under
    "3 Experiments" is experiments, "4.2 Statistical analysis" under
    "4 Methods" is method.
    """

    def __init__(self):
        self.by_number: Dict[str, str] = {}
        self.current: Optional[Tuple[str, str]] = None  # (canonical, heading)

    def section(self, heading: str, number: str = "") -> Tuple[str, str]:
        heading = (heading or "").strip()
        if not heading:
            return self.current or ("preamble", "")
        name = canonical_section(heading)
        num = _section_number(number, heading)
        if "." in num:
            parts = num.split(".")
            for k in range(len(parts) - 1, 0, -1):
                parent = self.by_number.get(".".join(parts[:k]))
                if parent and parent != "other":
                    name = parent
                    break
        if num:
            self.by_number[num] = name
        self.current = (name, heading)
        return self.current


# ---------------------------------------------------------------- citations

_OPEN, _CLOSE = "([{", ")]}"
_GAP_RE = re.compile(r"^[\s,;\-\u2010-\u2015()\[\]{}]*$")
_RANGE_RE = re.compile(r"^\s*[\-\u2010-\u2015]\s*$")
_SPACE_RE = re.compile(r"\s+")
_PUNCT_AFTER_RE = re.compile(re.escape(CITATION_PLACEHOLDER) + r" (?=[.,;:)\]])")


def _imbalance(s: str) -> Tuple[int, int]:
    """(unmatched closers, unmatched openers) of brackets in s."""
    depth, closers = 0, 0
    for c in s:
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth:
                depth -= 1
            else:
                closers += 1
    return closers, depth


def _prev_char(text: str, i: int) -> int:
    """Index of the last non-space character before i (-1 if none)."""
    j = i - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j


def _next_char(text: str, i: int) -> int:
    j = i
    while j < len(text) and text[j].isspace():
        j += 1
    return j


def replace_citations(text: str, spans: Sequence[Tuple[int, int, str]],
                      range_keys: Callable[[str, str], List[str]] = lambda a, b: []
                      ) -> Tuple[str, Tuple[str, ...], Tuple[int, ...]]:
    """Text with one placeholder per citation group, the cited keys and their placeholder numbers.

    Args:
      text: the paragraph as written.
      spans: (start, end, key) of each citation marker (key "" for an unknown reference);
        overlapping or out-of-range spans are ignored.
      range_keys: keys implied between two markers joined by a dash ("[3]-[5]" -> the key of 4).

    Returns:
      (text with whitespace collapsed, cite_keys, cite_slots) as `PaperParagraph` holds them.
    """
    good = []
    for start, end, key in sorted(spans, key=lambda s: (s[0], s[1])):
        if 0 <= start < end <= len(text) and (not good or start >= good[-1][1]):
            good.append((start, end, key))
    groups: List[List] = []  # [start, end, [keys]]
    for start, end, key in good:
        if groups and _GAP_RE.match(text[groups[-1][1]:start]):
            gap = text[groups[-1][1]:start]
            g = groups[-1]
            if _RANGE_RE.match(gap) and g[2]:
                g[2].extend(range_keys(g[2][-1], key))
            g[1] = end
            g[2].append(key)
        else:
            groups.append([start, end, [key]])
    out, keys, slots, pos = [], [], [], 0
    for n, (start, end, gkeys) in enumerate(groups):
        start, end = _balance(text, start, end, pos, groups[n + 1][0] if n + 1 < len(groups) else len(text))
        out.append(text[pos:start])
        out.append(f" {CITATION_PLACEHOLDER} ")
        pos = end
        seen = set()
        for k in gkeys:
            if k not in seen:
                seen.add(k)
                keys.append(k)
                slots.append(n)
    out.append(text[pos:])
    clean = _SPACE_RE.sub(" ", "".join(out)).strip()
    clean = _PUNCT_AFTER_RE.sub(CITATION_PLACEHOLDER, clean)
    return clean, tuple(keys), tuple(slots)


def _balance(text: str, start: int, end: int, lo: int, hi: int) -> Tuple[int, int]:
    """Widen or narrow a citation group so that it takes its own brackets and leaves the sentence's.

    "[<1>, <2>]" takes both brackets; "(<Smith, 2019;> <Lee, 2020)>" is whole already;
    "(e.g., <Wu et al., 2014)>" leaves the ")" that closes "(e.g., "; a lone "(" or ")"
    that GROBID cut from its partner goes with the group.
    """
    closers, openers = _imbalance(text[start:end])
    if closers == 0 and openers == 0:
        b, a = _prev_char(text, start), _next_char(text, end)
        if b >= lo and a < hi and text[b] in _OPEN and text[a] == _CLOSE[_OPEN.index(text[b])]:
            return b, a + 1
        return start, end
    if openers:
        a = _next_char(text, end)
        if a < hi and text[a] in _CLOSE:
            end = a + 1
        elif _imbalance(text[end:hi])[0] and text[start] in _OPEN:
            start += 1  # "(Tu et al., 2017; for a review)": the "(" belongs to the sentence
    if closers:
        b = _prev_char(text, start)
        if b >= lo and text[b] in _OPEN:
            start = b
        elif _imbalance(text[lo:start])[1] and text[end - 1] in _CLOSE:
            end -= 1  # "(e.g., Wu et al., 2014)": the ")" closes the sentence's "("
    return start, end


# ---------------------------------------------------------------- S2ORC JSON

def _s2orc_form(obj: dict) -> Optional[str]:
    """"s2orc_2019" | "s2orc_2020" | "s2orc_2021" | "doc2json", or None for a JSON that is no paper."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("pdf_parse"), dict) or (isinstance(obj.get("latex_parse"), dict)
                                                  and "metadata" not in obj):
        return "doc2json"
    if isinstance(obj.get("metadata"), dict) and ("grobid_parse" in obj or "latex_parse" in obj):
        return "s2orc_2019"
    if isinstance(obj.get("body_text"), list):
        return "s2orc_2021" if isinstance(obj.get("metadata"), dict) else "s2orc_2020"
    return None


def _parse_of(obj: dict, form: str) -> dict:
    """The dict holding body_text / bib_entries for the form."""
    if form == "doc2json":
        for name in ("pdf_parse", "latex_parse"):
            if isinstance(obj.get(name), dict) and obj[name].get("body_text"):
                return obj[name]
        return obj.get("pdf_parse") or obj.get("latex_parse") or {}
    if form == "s2orc_2019":
        for name in ("latex_parse", "grobid_parse"):  # LaTeX parses are the cleaner text when present
            if isinstance(obj.get(name), dict) and obj[name].get("body_text"):
                return obj[name]
        return obj.get("grobid_parse") or obj.get("latex_parse") or {}
    return obj


def _bib_key(entry) -> str:
    if not isinstance(entry, dict):
        return ""
    link = entry.get("link", entry.get("links"))
    if isinstance(link, list):
        link = link[0] if link else None
    return citation_key(str(link) if link not in (None, "") else None, str(entry.get("title") or ""),
                        entry.get("year"))


def _s2orc_paragraphs(items, bib: dict, tracker: Optional[_SectionTracker],
                      fixed: Optional[str] = None) -> List[PaperParagraph]:
    paras = []
    keys = {rid: _bib_key(e) for rid, e in bib.items()} if isinstance(bib, dict) else {}
    for item in items or ():
        if not isinstance(item, dict):
            continue
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            continue
        heading = str(item.get("section") or "")
        if fixed:
            section = fixed
        else:
            section, heading = tracker.section(heading, str(item.get("sec_num") or ""))
        spans = []
        for cs in item.get("cite_spans") or ():
            if not isinstance(cs, dict):
                continue
            try:
                start, end = int(cs.get("start")), int(cs.get("end"))
            except (TypeError, ValueError):
                continue
            spans.append((start, end, keys.get(cs.get("ref_id"), "") if cs.get("ref_id") else ""))
        clean, ckeys, slots = replace_citations(text, spans)
        if clean:
            paras.append(PaperParagraph(section=section, heading=heading if not fixed else (heading or "Abstract"),
                                        text=clean, cite_keys=ckeys, cite_slots=slots))
    return paras


def paper_from_s2orc(obj: dict, path: str) -> Union[Paper, Tuple[str, str]]:
    """A `Paper` from one S2ORC / doc2json object, or (reason, detail) when it is none."""
    form = _s2orc_form(obj)
    if form is None:
        keys = ", ".join(sorted(obj)[:8]) if isinstance(obj, dict) else type(obj).__name__
        return "not_a_paper", f"no S2ORC body_text / grobid_parse / pdf_parse (has: {keys})"
    parse = _parse_of(obj, form)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    title = str(meta.get("title") or obj.get("title") or "")
    year = _year(meta.get("year") or obj.get("year"))
    fields = obj.get("mag_field_of_study") or meta.get("mag_field_of_study") or []
    field = (fields[0] if isinstance(fields, list) and fields else str(fields or "")) \
        or str(meta.get("venue") or meta.get("journal") or obj.get("venue") or obj.get("journal") or "")
    bib = parse.get("bib_entries") or {}
    abstract = parse.get("abstract")
    if isinstance(abstract, list) and abstract:
        paras = _s2orc_paragraphs(abstract, bib, None, fixed="abstract")
    else:
        text = abstract if isinstance(abstract, str) else meta.get("abstract") or obj.get("abstract")
        paras = ([PaperParagraph(section="abstract", heading="Abstract", text=_SPACE_RE.sub(" ", text).strip())]
                 if isinstance(text, str) and text.strip() else [])
    body = _s2orc_paragraphs(parse.get("body_text"), bib, _SectionTracker())
    if not body:
        return "no_body_text", f"{form} paper {obj.get('paper_id', '?')} has no body paragraph with text"
    if all(p.section == "preamble" and not p.heading for p in body):
        # No heading at all (S2ORC 2019 grobid_parse): the sections are unknown, not a preamble;
        # "other" keeps Method and Results text out of the intra-paper search (ParaSCI §3.1).
        body = [dataclasses.replace(p, section="other") for p in body]
    paras.extend(body)
    pid = obj.get("paper_id")
    if form == "doc2json":
        pid = parse.get("_pdf_hash") or obj.get("_pdf_hash") or None
    pid = str(pid) if pid not in (None, "") else _stable_id(title, paras)
    source = "doc2json" if form == "doc2json" else "s2orc"
    return Paper(id=pid, title=title, field=field, year=year, source=source, path=path,
                 paragraphs=tuple(paras), title_key=title_key(title))


# ---------------------------------------------------------------- XML helpers

def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text_of(el) -> str:
    return _SPACE_RE.sub(" ", "".join(el.itertext())).strip() if el is not None else ""


def _flatten(el, is_cite: Callable, skip: frozenset) -> Tuple[str, List[Tuple[int, int, object]]]:
    """Text of a paragraph element and the (start, end, element) of its citation markers."""
    parts: List[str] = []
    spans = []
    size = [0]

    def add(s):
        if s:
            parts.append(s)
            size[0] += len(s)

    def walk(node, top):
        if not top and _local(node.tag) in skip:
            add(" ")
        elif not top and is_cite(node):
            start = size[0]
            add("".join(node.itertext()))
            spans.append((start, size[0], node))
        else:
            add(node.text)
            for child in node:
                walk(child, False)
        if not top:
            add(node.tail)

    walk(el, True)
    return "".join(parts), spans


# ---------------------------------------------------------------- GROBID TEI

def _tei_bib(root) -> Dict[str, str]:
    keys = {}
    for bs in root.iter(_T + "biblStruct"):
        xid = bs.get("{http://www.w3.org/XML/1998/namespace}id")
        if not xid:
            continue
        title = ""
        for part in ("analytic", "monogr"):
            node = bs.find(f"{_T}{part}/{_T}title")
            if node is not None and _text_of(node):
                title = _text_of(node)
                break
        date = bs.find(f".//{_T}imprint/{_T}date")
        year = (date.get("when") or _text_of(date)) if date is not None else ""
        keys[xid] = citation_key(None, title, year)
    return keys


def paper_from_tei(root, path: str) -> Union[Paper, Tuple[str, str]]:
    """A `Paper` from a GROBID TEI document (root element `TEI`)."""
    header = root.find(f"{_T}teiHeader")
    title = _text_of(header.find(f".//{_T}titleStmt/{_T}title")) if header is not None else ""
    source_desc = header.find(f".//{_T}sourceDesc") if header is not None else None
    year, field, doi = 0, "", ""
    if source_desc is not None:
        for date in source_desc.iter(_T + "date"):
            year = year or _year(date.get("when") or _text_of(date))
        venue = source_desc.find(f".//{_T}monogr/{_T}title")
        field = _text_of(venue)
        for idno in source_desc.iter(_T + "idno"):
            if (idno.get("type") or "").upper() == "DOI" and _text_of(idno):
                doi = _text_of(idno)
                break
    if not year and header is not None:
        for date in header.iter(_T + "date"):
            year = year or _year(date.get("when") or _text_of(date))
    bib = _tei_bib(root)

    def is_cite(node):
        return _local(node.tag) == "ref" and node.get("type") == "bibr"

    def key_of(node):
        target = (node.get("target") or "").lstrip("#")
        return bib.get(target, "") if target else ""

    order = list(bib)

    def range_keys(a, b):
        return _between(order, bib, a, b)

    skip = frozenset({"figure", "table", "note"})

    def para(p, section, heading):
        raw, spans = _flatten(p, is_cite, skip)
        text, keys, slots = replace_citations(raw, [(s, e, key_of(n)) for s, e, n in spans], range_keys)
        return PaperParagraph(section=section, heading=heading, text=text, cite_keys=keys,
                              cite_slots=slots) if text else None

    paras = []
    profile = header.find(f".//{_T}profileDesc") if header is not None else None
    abstract = profile.find(f"{_T}abstract") if profile is not None else None
    if abstract is not None:
        for p in abstract.iter(_T + "p"):
            pp = para(p, "abstract", "Abstract")
            if pp:
                paras.append(pp)
    body = root.find(f"{_T}text/{_T}body")
    tracker = _SectionTracker()
    n_body = 0
    if body is not None:
        for div in body.iter(_T + "div"):
            head = div.find(f"{_T}head")
            heading = _text_of(head)
            section, heading = tracker.section(heading, head.get("n", "") if head is not None else "")
            for p in div.findall(f"{_T}p"):
                pp = para(p, section, heading)
                if pp:
                    paras.append(pp)
                    n_body += 1
        for p in body.findall(f"{_T}p"):  # paragraphs outside any div (rare)
            pp = para(p, "preamble", "")
            if pp:
                paras.append(pp)
                n_body += 1
    if not n_body:
        return "no_body_text", "TEI document with no <body> paragraph"
    pid = f"doi:{doi}" if doi else _stable_id(title, paras)
    return Paper(id=pid, title=title, field=field, year=year, source="grobid_tei", path=path,
                 paragraphs=tuple(paras), title_key=title_key(title))


def _between(order: List[str], keys: Dict[str, str], first_key: str, last_key: str) -> List[str]:
    """Keys of the bibliography entries strictly between two cited ones, in list order."""
    by_key = {}
    for i, rid in enumerate(order):
        by_key.setdefault(keys[rid], i)
    i, j = by_key.get(first_key), by_key.get(last_key)
    if i is None or j is None or not first_key or not last_key or not 0 < j - i <= 50:
        return []
    return [keys[order[k]] for k in range(i + 1, j)]


# ---------------------------------------------------------------- JATS

def _jats_bib(root) -> Tuple[List[str], Dict[str, str]]:
    order, keys = [], {}
    for ref in root.iter("ref"):
        rid = ref.get("id")
        if not rid:
            continue
        cit = None
        for name in ("element-citation", "mixed-citation", "citation", "nlm-citation"):
            cit = ref.find(f".//{name}")
            if cit is not None:
                break
        title, year = "", 0
        if cit is not None:
            for name in ("article-title", "chapter-title", "source"):
                node = cit.find(f".//{name}")
                if node is not None and _text_of(node):
                    title = _text_of(node)
                    break
            y = cit.find(".//year")
            year = _year(_text_of(y))
        order.append(rid)
        keys[rid] = citation_key(None, title, year)
    return order, keys


_JATS_SKIP = frozenset({"fig", "table-wrap", "disp-formula", "supplementary-material", "fn", "table", "graphic"})


def paper_from_jats(root, path: str) -> Union[Paper, Tuple[str, str]]:
    """A `Paper` from a JATS (PubMed Central) document (root element `article`)."""
    front = root.find("front")
    meta = front.find("article-meta") if front is not None else None
    title = _text_of(meta.find("title-group/article-title")) if meta is not None else ""
    ids = {}
    year = 0
    if meta is not None:
        for aid in meta.findall("article-id"):
            ids.setdefault(aid.get("pub-id-type") or "", _text_of(aid))
        for pd in meta.findall("pub-date"):
            year = year or _year(_text_of(pd.find("year")))
    journal = root.find("front/journal-meta/journal-title-group/journal-title")
    if journal is None:
        journal = root.find("front/journal-meta/journal-title")
    field = _text_of(journal)
    order, bib = _jats_bib(root)

    def is_cite(node):
        return node.tag == "xref" and node.get("ref-type") == "bibr"

    def range_keys(a, b):
        return _between(order, bib, a, b)

    def para(p, section, heading):
        raw, spans = _flatten(p, is_cite, _JATS_SKIP)
        cites = []
        for s, e, node in spans:
            rids = (node.get("rid") or "").split()
            for k, rid in enumerate(rids or [""]):  # rid="R1 R2": one marker citing two references
                cites.append((s, e, bib.get(rid, "")) if k == 0 else (e, e, bib.get(rid, "")))
        text, keys, slots = _jats_replace(raw, cites, range_keys)
        return PaperParagraph(section=section, heading=heading, text=text, cite_keys=keys,
                              cite_slots=slots) if text else None

    paras = []
    if meta is not None:
        abstracts = meta.findall("abstract")
        plain = [a for a in abstracts if not a.get("abstract-type")] or abstracts[:1]
        for a in plain[:1]:
            for p in a.iter("p"):
                pp = para(p, "abstract", "Abstract")
                if pp:
                    paras.append(pp)
    body = root.find("body")
    n_body = [0]

    def walk(node, section, heading, depth):
        for child in node:
            if child.tag == "p":
                pp = para(child, section, heading)
                if pp:
                    paras.append(pp)
                    n_body[0] += 1
            elif child.tag == "sec":
                if (child.get("sec-type") or "").startswith("supplementary"):
                    continue
                h = _text_of(child.find("title"))
                if depth > 0 and section not in ("other", "preamble"):
                    name = section  # a subsection ("Statistical analysis") is part of its section ("Methods")
                else:
                    name = canonical_section(h) if h else "other"
                    if name == "other":
                        name = _JATS_SEC_TYPES.get((child.get("sec-type") or "").lower(), "other")
                walk(child, name, h or heading, depth + 1)
            elif child.tag in ("list", "boxed-text", "disp-quote"):
                walk(child, section, heading, depth)
            elif child.tag == "list-item":
                walk(child, section, heading, depth)

    if body is not None:
        walk(body, "preamble", "", 0)
    if not n_body[0]:
        return "no_body_text", "JATS article with no <body> paragraph"
    pid = (f"PMC{ids['pmc']}" if ids.get("pmc") and not ids["pmc"].upper().startswith("PMC") else ids.get("pmc")) \
        or (f"doi:{ids['doi']}" if ids.get("doi") else "") or (f"pmid:{ids['pmid']}" if ids.get("pmid") else "") \
        or _stable_id(title, paras)
    return Paper(id=pid, title=title, field=field, year=year, source="jats", path=path,
                 paragraphs=tuple(paras), title_key=title_key(title))


def _jats_replace(raw, cites, range_keys):
    """replace_citations where zero-width extra keys of one marker (rid="R1 R2") join its group."""
    merged = []
    for s, e, k in cites:
        if s == e and merged:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + (k,))
        else:
            merged.append((s, e, (k,)))
    # Encode multi-key markers as one key joined by NUL, split back after grouping.
    text, keys, slots = replace_citations(raw, [(s, e, "\0".join(ks)) for s, e, ks in merged],
                                          lambda a, b: range_keys(a.split("\0")[-1], b.split("\0")[0]))
    out_k, out_s = [], []
    for k, slot in zip(keys, slots):
        for part in k.split("\0"):
            if (part, slot) not in zip(out_k, out_s):
                out_k.append(part)
                out_s.append(slot)
    return text, tuple(out_k), tuple(out_s)


# ---------------------------------------------------------------- files

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
