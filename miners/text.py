"""Model-free text utilities: sentence segmentation and word counting.

The segmenter is a single regular-expression pass with an abbreviation list,
fast enough to run on whole dumps (it is the "bare read-and-split" baseline
of the benchmarks). It splits after `.`, `!`, `?` (optionally followed by
closing quotes or brackets) when whitespace and an upper-case letter, digit
or opening quote follow, unless the period closes a known abbreviation, an
initial ("J. R. R. Tolkien") or a number ("No. 5").
"""
import re
from typing import Iterator, List, Tuple

# Lower-cased abbreviations (without the period) after which a period does not end a sentence.
ABBREVIATIONS = frozenset("""
mr mrs ms dr prof rev st sr jr gen col lt sgt capt cmdr adm gov sen rep pres
co corp inc ltd bros dept univ assn est fig figs vol vols no nos pp ed eds op cit
jan feb mar apr jun jul aug sep sept oct nov dec
mt ft ave blvd rd hwy
approx ca cf viz vs etc al ie eg e.g i.e u.s u.k u.n a.m p.m
""".split())

_BOUNDARY = re.compile(r"""([.!?]+["'\u201d\u2019)\]]*)(\s+)(?=["'\u201c\u2018(\[]?[A-Z0-9])""")
_PARA_SPLIT = re.compile(r"\n\s*\n+")
_WS = re.compile(r"\s+")
_WORD = re.compile(r"\w+(?:[-'\u2019]\w+)*")


def _ends_with_abbreviation(text_before: str) -> bool:
    """True if the text before a candidate boundary ends with an abbreviation or an initial."""
    m = re.search(r"(\S+)$", text_before)
    if not m:
        return False
    token = m.group(1).rstrip(".").lstrip("(\"'\u201c")
    low = token.lower()
    if low in ABBREVIATIONS:
        return True
    if len(token) == 1 and token.isalpha() and token.isupper():  # an initial: "J."
        return True
    if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]?", token):  # "U.S", "e.g"
        return True
    return False


def split_sentences(paragraph: str) -> List[str]:
    """Split one paragraph into sentences (whitespace inside each sentence normalised)."""
    paragraph = _WS.sub(" ", paragraph).strip()
    if not paragraph:
        return []
    sentences = []
    start = 0
    for m in _BOUNDARY.finditer(paragraph):
        end = m.end(1)
        if m.group(1).startswith(".") and len(m.group(1).rstrip("\"'\u201d\u2019)]")) == 1 \
                and _ends_with_abbreviation(paragraph[start:m.start(1)]):
            continue
        sentence = paragraph[start:end].strip()
        if sentence:
            sentences.append(sentence)
        start = m.end()
    tail = paragraph[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def split_paragraphs(text: str) -> List[str]:
    return [p for p in (p.strip() for p in _PARA_SPLIT.split(text)) if p]


def segment(text: str) -> Tuple[Tuple[str, ...], Tuple[int, ...]]:
    """Sentences of a whole document and, for each, its paragraph number."""
    sentences, paragraphs = [], []
    for i, para in enumerate(split_paragraphs(text)):
        for s in split_sentences(para):
            sentences.append(s)
            paragraphs.append(i)
    return tuple(sentences), tuple(paragraphs)


def iter_consecutive_pairs(sentences, paragraphs, cross_paragraph=False) -> Iterator[Tuple[int, str, str]]:
    """(index of s1, s1, s2) for consecutive sentences, within a paragraph unless asked."""
    for i in range(len(sentences) - 1):
        if cross_paragraph or paragraphs[i] == paragraphs[i + 1]:
            yield i, sentences[i], sentences[i + 1]


def words(text: str) -> List[str]:
    return _WORD.findall(text)


def word_count(text: str) -> int:
    return len(text.split())
