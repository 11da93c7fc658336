"""GROBID TEI papers (and the XML helpers JATS shares).

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
from typing import Callable, Dict, List, Tuple, Union
from schemas.papers import Paper, PaperParagraph
from miners.parasci.papers.keys import _stable_id, _year, citation_key, title_key
from miners.parasci.papers.sections import _SectionTracker
from miners.parasci.papers.citations import _SPACE_RE, replace_citations
from miners.parasci.papers.subjects import ACL_DOI_PREFIX, arxiv_field, first_subject


TEI_NS = "http://www.tei-c.org/ns/1.0"
_T = "{%s}" % TEI_NS


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


def tei_subject(header, doi: str = "") -> str:
    """The paper's subject from a GROBID TEI header (`miners.parasci.papers.subjects`), never the venue:
    `textClass/classCode`, else an arXiv id with its category, else an ACL Anthology DOI."""
    if header is None:
        return ""
    codes = [_text_of(c) for c in header.iter(_T + "classCode")]
    field = first_subject(codes)
    if field:
        return field
    source_desc = header.find(f".//{_T}sourceDesc")
    for idno in (source_desc.iter(_T + "idno") if source_desc is not None else ()):
        if (idno.get("type") or "").lower() == "arxiv":
            field = arxiv_field(_text_of(idno))
            if field:
                return field
    return "computer science" if doi.lower().startswith(ACL_DOI_PREFIX) else ""


def paper_from_tei(root, path: str) -> Union[Paper, Tuple[str, str]]:
    """A `Paper` from a GROBID TEI document (root element `TEI`)."""
    header = root.find(f"{_T}teiHeader")
    title = _text_of(header.find(f".//{_T}titleStmt/{_T}title")) if header is not None else ""
    source_desc = header.find(f".//{_T}sourceDesc") if header is not None else None
    year, field, doi = 0, "", ""
    if source_desc is not None:
        for date in source_desc.iter(_T + "date"):
            year = year or _year(date.get("when") or _text_of(date))
        for idno in source_desc.iter(_T + "idno"):
            if (idno.get("type") or "").upper() == "DOI" and _text_of(idno):
                doi = _text_of(idno)
                break
    field = tei_subject(header, doi)
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
