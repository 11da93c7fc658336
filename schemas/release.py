"""Helpers for the public release formats (plain functions, no project imports but schemas).

WikiSplit and DiscoFuse release their text tokenized on punctuation, in the
Penn-Treebank manner: `is n't`, `Devil 's`, `( 1990 )`, `777 - 300ERs`.
A period stays on its word where the sentence segmenter would not cut after it
(`schemas.abbreviations`, the rule both share): `U.S. Army`, `LL.B. (`,
`( b. 1950`, `e.g. ,`; where it ends the sentence it is split off, also after
an abbreviation (`et al .` at the end of a sentence, as in the release). A
period inside a word stays (`3.5`, `Amazon.com`, `p.224`, `.309`), as in the
release.
"""
import re

from schemas import abbreviations

_CONTRACTION = re.compile(r"(?i)\b(\w+)(n't)\b")
_CLITIC = re.compile(r"(?i)(\w)('s|'re|'ve|'ll|'d|'m)\b")
# Punctuation to split off. A period is kept between two letters or digits (3.5, Amazon.com)
# and before a digit when nothing alphanumeric precedes it (.309); a comma between two digits
# (1,000). Abbreviations are handled before this (in `tokenize_punct`).
_PUNCT = re.compile(r"""(?x)
    \.\.\.|--
  | (?<![^\W_])\.(?!\d) | (?<=[^\W_])\.(?![^\W_])
  | (?<!\d),|,(?!\d)
  | [;:!?()\[\]{}"\u201c\u201d\u2018\u2019/\-\u2013\u2014&%$#@*+=<>|~^]
""")
# A token as opening brackets/quotes, the word, closing punctuation ("(b." -> "(", "b.", "";
# "U.S.," -> "", "U.S.", ",").
_EDGES = re.compile(r"""^([(\[{"'\u201c\u2018]*)(.*?)([,;:!?)\]}"'\u201d\u2019]*)$""")


def _split(tok: str) -> str:
    tok = _CONTRACTION.sub(r"\1 \2", tok)
    tok = _CLITIC.sub(r"\1 \2", tok)
    return _PUNCT.sub(lambda m: f" {m.group(0)} ", tok)


def tokenize_punct(text: str) -> str:
    """Space-separate punctuation the way the WikiSplit/DiscoFuse releases do.

    Args:
      text: one or more sentences of plain text.

    Returns:
      The tokens joined by single spaces.
    """
    toks = text.split()
    out = []
    for i, tok in enumerate(toks):
        if "." in tok:
            lead, word, trail = _EDGES.match(tok).groups()
            if len(word) > 1 and word[-1] == "." and word[-2] != "." and abbreviations.kind(word[:-1]):
                # An abbreviation keeps its period unless that period ends the sentence (the
                # segmenter's rule); one before closing punctuation ("U.S.,", "approx.)") never does.
                nxt = toks[i + 1] if i + 1 < len(toks) else None
                if trail or not abbreviations.period_ends_sentence(word[:-1], nxt):
                    out.extend(_split(lead).split())
                    out.append(word)
                    out.extend(_split(trail).split())
                    continue
        out.extend(_split(tok).split())
    return " ".join(out)


_DETOK_LEFT = re.compile(r" ([.,;:!?%)\]}]|n't|'s|'re|'ve|'ll|'d|'m)(?= |$)")
_DETOK_RIGHT = re.compile(r"(^| )([(\[{$]) ")


def detokenize_punct(text: str) -> str:
    """Best-effort inverse of `tokenize_punct` (used when reading a release TSV)."""
    text = _DETOK_LEFT.sub(r"\1", text)
    text = _DETOK_RIGHT.sub(r"\1\2", text)
    return text


# ParaSCI's release (Dong et al. 2021): lower-cased, tokenised on punctuation, no citation marker;
# a hyphen or slash inside a word stays ("phrase-based", "mention/markable", as in the release).
_CITATION_PLACEHOLDER_RE = re.compile(r"\s*\[CITATION\]")
_INNER_JOINER = re.compile(r"(?<=[^\W_]) ([-/]) (?=[^\W_])")


# A bracket that holds nothing but citations and a cue word: "(see [CITATION])", "(e.g., [CITATION];
# [CITATION])", "(reviewed in [CITATION])". It goes as a whole, cue and all.
_CITATION_CUES = r"(?:see(?: also)?|e\.g\.|i\.e\.|cf\.|reviewed in|for (?:a )?reviews?,? see|as in|as described in)"
_CITATION_BRACKET_RE = re.compile(r"\s*\(\s*(?:" + _CITATION_CUES + r"\s*,?\s*)*\[CITATION\]"
                                  r"(?:\s*[,;]?\s*(?:and\s+)?\[CITATION\])*\s*[,;]?\s*\)", re.IGNORECASE)
# A citation that is a word of its sentence: it opens the sentence and the sentence goes on with a
# comma or a small letter ("[CITATION] proposed ...", "[CITATION], the densities ..."; one before a
# capital is the previous sentence's, cut off after its full stop: "[CITATION] In this work, ...") or is the object of a preposition or conjunction ("as shown by
# [CITATION]", "presented in [CITATION]:", "such as [CITATION]"). Without the marker such a sentence
# does not read ("presented in:"), and the marker's surface form ("Liu et al. (2019)", "[12]") is not
# kept by the readers: `citation_as_word` tells the miner to leave the sentence out of pairs.
_CITATION_WORD_RE = re.compile(r"^\W*\[CITATION\]\s*(?:[,;:]|(?-i:[a-z]))|\b(?:in|by|of|from|to|with|see|cf\.|than|like|unlike|on|at|for"
                               r"|via|per|and|or|as|e\.g\.|i\.e\.|following)\s*,?\s+\[CITATION\]",
                               re.IGNORECASE)


def citation_as_word(text: str) -> bool:
    """True when a citation placeholder of `text` is a word of the sentence (see _CITATION_WORD_RE),
    a bracket of citations and a cue word ("(see [CITATION])") not counted."""
    return bool(_CITATION_WORD_RE.search(_CITATION_BRACKET_RE.sub("", text)))


def strip_citation_placeholders(text: str) -> str:
    """'X is known [CITATION] (see [CITATION]).' -> 'X is known.': the release's lines carry no
    citation marker (schemas.papers.CITATION_PLACEHOLDER, written out literally to avoid an import).
    A sentence where a citation is a word (`citation_as_word`) is not paired by the miner."""
    text = _CITATION_BRACKET_RE.sub("", text)
    text = _CITATION_PLACEHOLDER_RE.sub("", text)
    text = re.sub(r"\(\s*[,;]?\s*\)", "", text)  # "( [CITATION] )" left an empty bracket
    text = re.sub(r"\s+([,;:.!?])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    return " ".join(text.split())


def parasci_release_form(text: str) -> str:
    """The form of ParaSCI's .src / .tgt lines: no citation marker, lower-cased, punctuation split off
    ('We use BLEU [CITATION].' -> 'we use bleu .')."""
    return _INNER_JOINER.sub(r"\1", tokenize_punct(strip_citation_placeholders(text).lower()))
