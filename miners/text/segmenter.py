"""Model-free text utilities: sentence segmentation and word counting.

The segmenter is a single regular-expression pass plus one lexicon lookup per
candidate, fast enough to run on whole dumps (it is the "bare read-and-split"
baseline of the benchmarks). It considers a cut after `.`, `!`, `?`
(optionally followed by closing quotes or brackets) when whitespace and an
upper-case letter or digit follow, possibly after up to two opening quotes or
brackets (`"`, `''`, `(`, `[`) and a space. A `!` or `?` always ends the sentence; a lone
period ends it unless `schemas.abbreviations.period_ends_sentence` says it
closes an abbreviation: never after "e.g.", "Eq.", "Dr."; only before a
sentence starter ("The", "We", "However") after "Inc.", "et al.", an initial or
an acronym ("U.S.", "LL.B."); only before a number after "Fig.", "No.", "Art."
(words too: "a work of art. Spiritual ..." is cut). The release tokenizer
(`schemas.release`) asks the same rule, so the two agree on which periods
belong to words.

Measured (issue 12) on the 5,000 pairs of ../shared/data/wikisplit/tune.tsv,
detokenized: `s1 + " " + s2` gives exactly [s1, s2] and the complex sentence
one sentence for 4,967 pairs (99.34%), against 4,945 (98.90%) with the former
list-only segmenter (on the tokenized release text: 99.44% against 99.00%).
Most of the 33 left are the release's own slips (a complex sentence holding
two sentences, "Mt. <::::> Wachusset" cut after an abbreviation). Speed, on
2,082 paragraphs (7,824 sentences) of the bundled English Wikipedia sample:
72 ms against 126 ms before (the former looked back over the whole sentence
at each candidate). The release tokenizer round-trips 95.8% of the tune
sentences (94.2% before).
"""
import re
from typing import Iterator, List, Tuple

from schemas import abbreviations

#: Lower-cased abbreviations (without the final period) whose period may not end a sentence;
#: the shared lexicon of `schemas.abbreviations` (see there for the three kinds).
ABBREVIATIONS = abbreviations.ABBREVIATIONS

# A candidate cut: the stop and its closers, the whitespace, then (looked ahead) up to two
# openers, maybe a space, and an upper-case letter or digit. Two openers and the space for
# "(\"The ..." and for the quote of the WikiSplit/DiscoFuse releases, two apostrophes set apart
# ("'' Painter Man '' later covered ...").
_BOUNDARY = re.compile(r"""([.!?]+["'\u201d\u2019)\]]*)(\s+)(?=["'\u201c\u2018(\[]{0,2} ?[A-Z0-9])""")
_CLOSERS = "\"'\u201d\u2019)]"
_PARA_SPLIT = re.compile(r"\n\s*\n+")
_WS = re.compile(r"\s+")
# Whitespace `_WS.sub(" ", ...)` would change: a run of two or more, or one that is not a space. The
# cleaner's paragraphs are already single-spaced: looking costs half of replacing every space by a space
# (5,047 paragraphs of the enwiki sample: 46 -> 23 ms, the same text; issue 19).
_WS_CHANGE = re.compile(r"[^\S ]|  ")
_WORD = re.compile(r"\w+(?:[-'\u2019]\w+)*")


def one_line(paragraph: str) -> str:
    """`paragraph` with every run of whitespace one space, stripped (untouched when it has none to
    change: the common case costs one search)."""
    if _WS_CHANGE.search(paragraph):
        paragraph = _WS.sub(" ", paragraph)
    return paragraph.strip()


def split_sentences(paragraph: str) -> List[str]:
    """Split one paragraph into sentences (whitespace inside each sentence normalised).

    Args:
      paragraph: running text; line breaks and runs of whitespace count as one space.

    Returns:
      The sentences in order, each stripped; [] for blank text.
    """
    paragraph = one_line(paragraph)
    if not paragraph:
        return []
    sentences = []
    start = 0
    ends = abbreviations.period_ends_sentence
    for m in _BOUNDARY.finditer(paragraph):
        stop = m.group(1)
        if stop[0] == "." and len(stop.rstrip(_CLOSERS)) == 1:
            dot = m.start(1)
            # The word before the period (the text is single-spaced) and the word after the space.
            word = paragraph[max(start, paragraph.rfind(" ", start, dot) + 1):dot].lstrip(abbreviations.OPENERS)
            after = m.end()
            next_end = paragraph.find(" ", after)
            if not ends(word, paragraph[after:next_end] if next_end >= 0 else paragraph[after:]):
                continue
        sentence = paragraph[start:m.end(1)].strip()
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
