"""Abbreviations and their long forms, as a paper defines them: "named entity recognition (NER)".

The method is that of Schwartz and Hearst, "A Simple Algorithm for Identifying Abbreviation
Definitions in Biomedical Text" (PSB 2003); the code is ours. A short form is a parenthesised
token of 2 to 10 characters that starts with a letter or digit and holds a letter ("(NER)",
"( wsd )", "(BX-C)"); its long form candidate is the text before the parenthesis, at most
min(|SF| + 5, 2 |SF|) words, cut at the previous clause boundary. The long form is the shortest
end of the candidate in which every letter and digit of the short form is found, right to left,
in order, the first character of the short form at the start of a word. The reverse form
"NER (named entity recognition)" is tried when the parenthesis holds several words and the token
before it is a short form with a capital.

No Beam here: `transforms/parasci.py` calls `paper_abbreviations` once per paper.
"""
import re
from typing import Dict, Iterable, List, Optional, Tuple

_PAREN_RE = re.compile(r"\(\s*([^()]{1,120}?)\s*\)")
_WORD_RE = re.compile(r"\S+")
# Where a long form cannot reach back past: a clause boundary before the parenthesis.
_BOUNDARY_RE = re.compile(r"[.;:!?\[\]]|, (?=\S)")
MIN_SHORT, MAX_SHORT = 2, 10
# Parenthesised Latin, never a short form.
_NOT_SHORT = frozenset(("e.g", "e.g.", "i.e", "i.e.", "cf", "cf.", "etc", "etc.", "viz", "viz.", "ibid", "et al"))


def _is_short_form(text: str) -> bool:
    if not MIN_SHORT <= len(text) <= MAX_SHORT or " " in text or text.lower() in _NOT_SHORT:
        return False
    # A plain lower-case word longer than four letters ("(muscle)", "(forward)") is a gloss, not a short
    # form; short lower-case gene names ("dpp", "sog") are.
    if len(text) > 4 and text.isalpha() and text.islower():
        return False
    if not text[0].isalnum() or not any(c.isalpha() for c in text):
        return False
    return bool(re.fullmatch(r"[\w\-/.&']+", text))


def match_long_form(short: str, candidate: str) -> Optional[str]:
    """The long form inside `candidate` (text ending where the short form's parenthesis opens) for
    `short`, or None (Schwartz and Hearst's right-to-left match)."""
    s = [c.lower() for c in short if c.isalnum()]
    text = candidate.rstrip()
    t = text.lower()
    si, ti = len(s) - 1, len(t) - 1
    while si >= 0:
        c = s[si]
        # The first character of the short form must start a word of the long form.
        while ti >= 0 and (t[ti] != c or (si == 0 and ti > 0 and t[ti - 1].isalnum())):
            ti -= 1
        if ti < 0:
            return None
        si -= 1
        ti -= 1
    start = ti + 1
    long_form = text[start:].strip()
    # Not just the short form again, and the long form is longer than the short one.
    if len(long_form) <= len(short) or long_form.lower() == short.lower():
        return None
    return long_form


def trim_long_form(short: str, long_form: str) -> str:
    """Drop trailing words that the short form does not abbreviate ("named entity recognition
    problems (NER)" -> "named entity recognition"): while the long form has more words than the
    short form has characters, a last word whose first character is not in the short form goes if
    the rest still matches ("amyloid-β peptide (Aβ)" keeps its two words)."""
    chars = [c.lower() for c in short if c.isalnum()]
    letters = set(chars)
    words = long_form.split()
    while len(words) > max(1, len(chars)) and words[-1][0].lower() not in letters:
        shorter = match_long_form(short, " ".join(words[:-1]))
        if shorter is None:
            break
        words = shorter.split()
    return " ".join(words)


# How far before a parenthesis the long form is looked for at first (characters). A paragraph of a
# thesis can hold megabytes: reading all of text[:end] for each of its parentheses cost time quadratic
# in the paragraph (an 11 MB paragraph ran for minutes). The window widens only when it cannot tell.
_LOOK_BACK = 1000


def _candidate_before(text: str, end: int, n_words: int) -> str:
    """At most n_words words of text[:end], not crossing a clause boundary.

    Reads a window before `end`, the same answer as reading all of text[:end]: the window is enough
    when it holds a clause boundary past its first character (what lies before that boundary is never
    used) or more than n_words words (its first word, perhaps cut, is not among the last n_words)."""
    start = max(0, end - _LOOK_BACK)
    while True:
        before = text[start:end]
        cut = 0
        for m in _BOUNDARY_RE.finditer(before):
            cut = m.end()
        words = _WORD_RE.findall(before[cut:])
        if start == 0 or cut >= 2 or len(words) > n_words:
            return " ".join(words[-n_words:]) if words else ""
        start = max(0, start - 4 * (end - start))


def _last_word(text: str, end: int) -> str:
    """The last word of text[:end] (a window before `end`, widened while its only word may be cut)."""
    start = max(0, end - 200)
    while True:
        words = _WORD_RE.findall(text[start:end])
        if start == 0 or len(words) >= 2:
            return words[-1] if words else ""
        start = max(0, start - 4 * (end - start))


def find_abbreviations(text: str) -> List[Tuple[str, str]]:
    """(short form, long form) pairs defined in one text, in order of appearance.

    >>> find_abbreviations("Named entity recognition (NER) finds names.")
    [('NER', 'Named entity recognition')]
    """
    out = []
    for m in _PAREN_RE.finditer(text):
        inside = m.group(1).strip()
        first = re.split(r"[;,]\s", inside)[0].strip()
        if _is_short_form(first):
            n = min(len(first) + 5, 2 * len(first))
            long_form = match_long_form(first, _candidate_before(text, m.start(), n))
            long_form = trim_long_form(first, long_form) if long_form else None
            if long_form and (len(long_form.split()) > 1 or len(long_form) > 2 * len(first)):
                out.append((first, long_form))
            continue
        # Reverse form: "NER (named entity recognition)".
        words_inside = inside.split()
        short = _last_word(text, m.start()).strip(",;:")
        # Reverse form only for a short form with a capital ("NER (...)", not "data (...)").
        if len(words_inside) >= 2 and _is_short_form(short) and any(c.isupper() for c in short):
            long_form = match_long_form(short, inside)
            if long_form and long_form == inside:
                out.append((short, long_form))
    return out


def normalise_short(short: str) -> str:
    """The key of a short form: lower-cased, letters and digits ('BX-C' -> 'bxc')."""
    return "".join(c for c in short.lower() if c.isalnum())


def paper_abbreviations(texts: Iterable[str], normalise=lambda s: s) -> Dict[str, str]:
    """{normalised short form: long form} over one paper's texts (`normalise` applied to long forms).

    A short form defined with two long forms keeps the one written most often (then the first)."""
    seen: Dict[str, Dict[str, int]] = {}
    order: Dict[Tuple[str, str], int] = {}
    for text in texts:
        for short, long_form in find_abbreviations(text):
            key, value = normalise_short(short), normalise(long_form)
            if not key or not value:
                continue
            seen.setdefault(key, {})
            seen[key][value] = seen[key].get(value, 0) + 1
            order.setdefault((key, value), len(order))
    return {k: min(v, key=lambda lf: (-v[lf], order[(k, lf)])) for k, v in seen.items()}
