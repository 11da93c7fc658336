"""JATS XML papers (PubMed Central, eLife).

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
from typing import Dict, List, Tuple, Union
from schemas.papers import Paper, PaperParagraph
from miners.parasci.papers.keys import _stable_id, _year, citation_key, title_key
from miners.parasci.papers.sections import _JATS_SEC_TYPES, canonical_section
from miners.parasci.papers.citations import replace_citations
from miners.parasci.papers.subjects import first_subject
from miners.parasci.papers.tei import _between, _flatten, _text_of


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


def jats_subject(meta) -> str:
    """The paper's subject from `<article-categories>` (`miners.parasci.papers.subjects`), never the journal
    title: the subjects of every `<subj-group>` except the article type's ("display-channel",
    "article-type"; eLife's "Research article", PMC's "Original Articles" headings are types too)."""
    cats = meta.find("article-categories") if meta is not None else None
    if cats is None:
        return ""
    subjects = [_text_of(subj) for group in cats.iter("subj-group")
                if (group.get("subj-group-type") or "").lower() not in ("display-channel", "article-type")
                for subj in group.findall("subject")]
    return first_subject(subjects)


_JATS_SKIP = frozenset({"fig", "table-wrap", "disp-formula", "supplementary-material", "fn", "table", "graphic"})


def _jats_id(ids: dict) -> str:
    """The article's id, by preference: its PubMed Central id (`pmc` in PMC's own files, `pmcid` in Europe
    PMC's), its PubMed id, its DOI; "" when it has none of them."""
    pmc = ids.get("pmc") or ids.get("pmcid") or ""
    if pmc:
        return pmc if pmc.upper().startswith("PMC") else f"PMC{pmc}"
    if ids.get("pmid"):
        return f"pmid:{ids['pmid']}"
    return f"doi:{ids['doi']}" if ids.get("doi") else ""


def paper_from_jats(root, path: str) -> Union[Paper, Tuple[str, str]]:
    """A `Paper` from a JATS (PubMed Central) document (root element `article`)."""
    front = root.find("front")
    meta = front.find("article-meta") if front is not None else None
    title = _text_of(meta.find("title-group/article-title")) if meta is not None else ""
    ids = {}
    year = 0
    if meta is not None:
        for aid in meta.findall("article-id"):
            ids.setdefault((aid.get("pub-id-type") or "").lower(), _text_of(aid).strip())
        for pd in meta.findall("pub-date"):
            year = year or _year(_text_of(pd.find("year")))
    field = jats_subject(meta)
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
    pid = _jats_id(ids) or _stable_id(title, paras)
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
