"""Canonical section names from headings (ParaSCI §3.1 compares six of them).

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
import re
import unicodedata
from typing import Dict, Optional, Tuple


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
