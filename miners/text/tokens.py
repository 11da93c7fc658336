"""Word tokens of any language, for the tests that compare tokens (WikiSplit's trigrams and BLEU).

English keeps the release's tokenization (`schemas.release.tokenize_punct`, which the WikiSplit
release and every English test were built with). Every other language gets Unicode-aware tokens:

  * a word is a run of letters, combining marks and digits (Unicode categories L*, M*, N*: the
    vowel signs and viramas of Devanagari and Bengali, Vietnamese tones written as combining
    marks, stay inside their word), with an apostrophe or hyphen between two such runs kept inside
    it (Ukrainian `м'ясо`, `все-таки`, French `aujourd'hui`, Greek `κ.λπ` is three tokens);
  * every other non-space character (punctuation, symbols) is a token of its own;
  * in Chinese and Japanese (`CHARACTER_LANGUAGES`), written without spaces, every Han, kana and
    CJK symbol character is a token of its own (character tokens): the paper's trigram and BLEU
    tests then read characters. Runs of Latin letters and digits inside such text stay words
    (`2010年` is `2010`, `年`), so a year is not four tokens that the repeated-token filter could
    read as noise.

No word segmenter for Chinese or Japanese is installed here (jieba, fugashi/MeCab, sudachi are not
dependencies of the project): characters are what the issue asks for when none is.
"""
import functools
import typing
import unicodedata

from schemas.release import tokenize_punct

#: Languages tokenized in characters (Wikimedia codes).
CHARACTER_LANGUAGES = frozenset(["zh", "ja", "yue", "zh-yue", "wuu", "zh-classical", "gan", "lzh"])
_ENGLISH = frozenset(["en", "simple"])
_JOINERS = frozenset("'\u2019\u02bc-\u2010\u2011")  # apostrophes and hyphens inside a word


@functools.lru_cache(maxsize=65536)
def _kind(ch: str) -> str:
    """'w' (word character), 'c' (a character that is a token by itself in CJK text), 's' (space)
    or 'p' (anything else: a token of its own)."""
    if ch.isspace():
        return "s"
    cat = unicodedata.category(ch)
    if cat[0] in "LMN":
        code = ord(ch)
        if (0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF
                or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3134F or 0x31F0 <= code <= 0x31FF
                or 0xFF66 <= code <= 0xFF9F or code == 0x3005):
            return "c"
        return "w"
    return "p"


def unicode_tokens(text: str, characters: bool = False) -> typing.List[str]:
    """Unicode-aware word tokens (module docstring); `characters`: CJK characters are tokens."""
    out: typing.List[str] = []
    word: typing.List[str] = []
    n = len(text)
    i = 0
    while i < n:
        ch = text[i]
        kind = _kind(ch)
        if kind == "c" and not characters:
            kind = "w"
        if kind == "w":
            word.append(ch)
        elif (ch in _JOINERS and word and i + 1 < n and _kind(text[i + 1]) == "w"):
            word.append(ch)
        else:
            if word:
                out.append("".join(word))
                word = []
            if kind in ("c", "p"):
                out.append(ch)
        i += 1
    if word:
        out.append("".join(word))
    return out


def tokens(text: str, language: str = "en") -> typing.List[str]:
    """Tokens of `text` in `language`: the release's for English, Unicode words (characters for
    Chinese and Japanese) for every other language."""
    if language in _ENGLISH:
        return tokenize_punct(text).split()
    return unicode_tokens(text, characters=language in CHARACTER_LANGUAGES)


def tokenized(text: str, language: str = "en") -> str:
    """`tokens` joined by single spaces (what BLEU scores)."""
    if language in _ENGLISH:
        return tokenize_punct(text)
    return " ".join(tokens(text, language))
