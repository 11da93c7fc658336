"""A paper's subject: a normalised field of study, whatever the format says (not a venue string).

ParaSCI groups definitions by field (§3.3): "attention" in a computer science paper and in a
psychology paper are not one term. A venue string ("Frontiers in microbiology", "Front
Microbiol", "ACL") splits one field into many groups and says nothing of the field of a
journal it does not name, so the readers take what each format says about the subject:

  S2ORC       `mag_field_of_study` (2019 / 2020 metadata, a list), `s2_fields_of_study` /
              `fieldsOfStudy` (later releases: strings or {"category": ...}); an `acl_id` means
              the ACL Anthology, i.e. computer science; an `arxiv_id` of the old form
              ("cs/0112017") names its archive;
  JATS        `<article-categories><subj-group>` subjects (eLife: "Cell biology"), not those of
              the article type ("Research article", "Review", PMC's "Original Articles");
  GROBID TEI  `<profileDesc><textClass><classCode>`, an arXiv id with its category
              ("arXiv:1810.04805 [cs.CL]"), or an ACL Anthology DOI (prefix 10.18653).

`normalise_subject` maps what was found to one of the top-level fields of study that S2ORC uses
(Microsoft Academic's 19: "biology", "computer science", "medicine", ...), by keywords; a subject
it cannot map is kept lower-cased; nothing found is "" (one group of unknown field).
"""
import re
from typing import Iterable, Optional

#: Top-level fields (MAG's level 0, as S2ORC's mag_field_of_study), lower-cased, with the keywords
#: that map a subject to them, tried in this order (the first match wins).
_FIELD_KEYWORDS = (
    ("computer science", ("computer", "computing", "computational linguistics", "natural language",
                          "machine learning", "artificial intelligence", "informatics", "software")),
    ("medicine", ("medicine", "medical", "clinical", "epidemiolog", "health", "cancer", "oncolog",
                  "patholog", "pharmacolog", "surgery", "nursing", "psychiatr", "cardiolog")),
    ("biology", ("biolog", "genomic", "genetic", "neuroscience", "ecology", "biochemistr", "biophysic",
                 "microbiolog", "immunolog", "plant", "evolution", "stem cell", "chromosome",
                 "gene expression", "physiolog", "zoolog", "botan", "life science", "q-bio")),
    ("chemistry", ("chemistr", "chemical")),
    ("materials science", ("material", "nanotech", "polymer")),
    ("physics", ("physics", "astro", "cond-mat", "hep-", "quant-ph", "gr-qc", "nucl-", "optics")),
    ("mathematics", ("mathemat", "statistic", "probabilit", "algebra", "geometry", "math")),
    ("economics", ("economic", "econometric", "finance", "q-fin")),
    ("engineering", ("engineering", "eess", "electrical", "mechanical", "robotic", "control")),
    ("psychology", ("psycholog", "cognitive science", "behavior", "behaviour")),
    ("environmental science", ("environment", "climate", "earth science", "atmospher")),
    ("geology", ("geolog", "geophysic", "geoscience")),
    ("geography", ("geograph",)),
    ("sociology", ("sociolog", "social science")),
    ("political science", ("political", "politics")),
    ("business", ("business", "management", "marketing")),
    ("history", ("history",)),
    ("philosophy", ("philosoph",)),
    ("art", ("art", "arts")),
)
#: arXiv archives (the part of a category before the dot) -> field.
_ARXIV = {"cs": "computer science", "math": "mathematics", "stat": "mathematics", "q-bio": "biology",
          "q-fin": "economics", "econ": "economics", "eess": "engineering", "physics": "physics",
          "astro-ph": "physics", "cond-mat": "physics", "gr-qc": "physics", "hep-ex": "physics",
          "hep-lat": "physics", "hep-ph": "physics", "hep-th": "physics", "math-ph": "physics",
          "nlin": "physics", "nucl-ex": "physics", "nucl-th": "physics", "quant-ph": "physics",
          "cmp-lg": "computer science", "chao-dyn": "physics", "adap-org": "physics"}
#: Words of an article type, not a subject ("Research article", "Original Articles", "Short report").
_ARTICLE_TYPE_WORDS = frozenset("""article articles paper papers research original review reviews report reports
short brief letter letters editorial editorials communication communications commentary correspondence
perspective perspectives insight insights feature features case study studies erratum correction retraction
advance tools and resources news opinion essay essays regular full length rapid technical note notes
methods method protocol protocols highlight highlights mini""".split())
ACL_DOI_PREFIX = "10.18653/"  # the ACL Anthology's DOIs


def is_article_type(text: str) -> bool:
    """'Research article', 'Original Articles', 'Review', 'Short report': an article type."""
    words = re.findall(r"[a-z]+", text.lower())
    return bool(words) and all(w in _ARTICLE_TYPE_WORDS for w in words)


def arxiv_field(value: str) -> str:
    """The field of an arXiv category or old-style id ('cs.CL', 'hep-th/9901001', '[cs.CL]'), or ''."""
    m = re.search(r"\b([a-z]+(?:-[a-z]+)?)(?:\.[A-Za-z\-]+)?(?:/\d{7}|\])", value or "")
    if not m:
        m = re.fullmatch(r"\s*([a-z]+(?:-[a-z]+)?)(?:\.[A-Za-z\-]+)?\s*", value or "")
    return _ARXIV.get(m.group(1), "") if m else ""


def normalise_subject(subject: str) -> str:
    """One subject as written -> its top-level field ('Developmental Biology and Stem Cells' ->
    'biology', 'cs.CL' -> 'computer science'); unknown subjects lower-cased; '' for an article type."""
    s = " ".join((subject or "").split())
    if not s or is_article_type(s):
        return ""
    by_arxiv = arxiv_field(s)
    if by_arxiv:
        return by_arxiv
    low = s.lower()
    for field, keys in _FIELD_KEYWORDS:
        for k in keys:
            if (re.search(r"\b" + re.escape(k) + r"\b", low) if len(k) <= 4 else k in low):
                return field
    return low


def first_subject(subjects: Iterable[Optional[str]]) -> str:
    """The first subject of a list that normalises to something (a paper's primary subject first)."""
    for s in subjects:
        if isinstance(s, dict):
            s = s.get("category") or s.get("name") or ""
        field = normalise_subject(str(s or ""))
        if field:
            return field
    return ""
