"""Keys of papers and citations: title keys, citation keys, stable ids.

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
import hashlib
import re
import unicodedata
from typing import Optional, Sequence
from schemas.papers import PaperParagraph


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
