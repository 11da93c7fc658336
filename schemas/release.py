"""Helpers for the public release formats (plain functions, no project imports).

WikiSplit and DiscoFuse release their text tokenized on punctuation, in the
Penn-Treebank manner: `is n't`, `Devil 's`, `( 1990 )`, `777 - 300ERs`.
"""
import re

_CONTRACTION = re.compile(r"(?i)\b(\w+)(n't)\b")
_CLITIC = re.compile(r"(?i)(\w)('s|'re|'ve|'ll|'d|'m)\b")
# Punctuation to split off, except a '.' or ',' inside a number (3.5, 1,000),
# and a '.' closing a known abbreviation or an initial (handled below).
_PUNCT = re.compile(r"""(?x)
    \.\.\.|--
  | (?<!\d)[.,](?!\d) | (?<=\d)[.,](?!\d) | (?<!\d)[.,](?=\d)
  | [;:!?()\[\]{}"\u201c\u201d\u2018\u2019/\-\u2013\u2014&%$#@*+=<>|~^]
""")
_ABBREV = re.compile(r"^(?:[A-Z]|(?i:mr|mrs|ms|dr|st|jr|sr|co|inc|ltd|no|vs|etc|sat|mt|ft|gen|lt|col|u\.s))\.$")
# Also kept whole, as in the WikiSplit release: acronyms ("U.S.", "i.e.", "a.k.a.") and more abbreviations.
_ABBREV_MORE = re.compile(r"^(?:[A-Za-z]\.){2,}$|^(?i:rev|art|gov|sgt|capt|prof|ave|corp|bros|vol|pp|ca|cf|al|fig"
                          r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.$")
_TRAILING = re.compile(r"^(.+?)([,;:!?)\]\"']+)$")


def _is_abbrev(tok: str) -> bool:
    return bool(_ABBREV.match(tok) or _ABBREV_MORE.match(tok))


def tokenize_punct(text: str) -> str:
    """Space-separate punctuation the way the WikiSplit/DiscoFuse releases do."""
    out = []
    for tok in text.split():
        if _is_abbrev(tok):
            out.append(tok)
            continue
        m = _TRAILING.match(tok)
        if m and _is_abbrev(m.group(1)):  # "U.S.," -> "U.S." ","
            out.append(m.group(1))
            out.extend(_PUNCT.sub(lambda p: f" {p.group(0)} ", m.group(2)).split())
            continue
        tok = _CONTRACTION.sub(r"\1 \2", tok)
        tok = _CLITIC.sub(r"\1 \2", tok)
        tok = _PUNCT.sub(lambda m: f" {m.group(0)} ", tok)
        out.extend(tok.split())
    return " ".join(out)


_DETOK_LEFT = re.compile(r" ([.,;:!?%)\]}]|n't|'s|'re|'ve|'ll|'d|'m)(?= |$)")
_DETOK_RIGHT = re.compile(r"(^| )([(\[{$]) ")


def detokenize_punct(text: str) -> str:
    """Best-effort inverse of `tokenize_punct` (used when reading a release TSV)."""
    text = _DETOK_LEFT.sub(r"\1", text)
    text = _DETOK_RIGHT.sub(r"\1\2", text)
    return text
