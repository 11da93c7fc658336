"""S2ORC JSON (2019, 2020, 2021 releases) and doc2json papers.

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
import dataclasses
from typing import List, Optional, Tuple, Union
from schemas.papers import Paper, PaperParagraph
from miners.parasci.papers.keys import _stable_id, _year, citation_key, title_key
from miners.parasci.papers.sections import _SectionTracker
from miners.parasci.papers.citations import _SPACE_RE, replace_citations
from miners.parasci.papers.subjects import arxiv_field, first_subject


def s2orc_subject(obj: dict, meta: dict) -> str:
    """The paper's field of study (`miners.parasci.papers.subjects`), never its venue: the MAG / S2 fields of
    study, else an ACL Anthology id (computer science), else an old-style arXiv id's archive."""
    for name in ("mag_field_of_study", "s2_fields_of_study", "fieldsOfStudy", "fields_of_study"):
        fields = obj.get(name) or meta.get(name)
        if fields:
            field = first_subject(fields if isinstance(fields, list) else [fields])
            if field:
                return field
    if obj.get("acl_id") or meta.get("acl_id"):
        return "computer science"
    return arxiv_field(str(obj.get("arxiv_id") or meta.get("arxiv_id") or ""))


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
    field = s2orc_subject(obj, meta)
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
