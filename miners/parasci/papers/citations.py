"""Citation markers -> one placeholder per citation group, with the keys they cite.

Part of `miners.parasci.papers` (a pure move of the former miners/parasci/papers.py; no Beam here).
"""
import re
from typing import Callable, List, Sequence, Tuple
from schemas.papers import CITATION_PLACEHOLDER


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
