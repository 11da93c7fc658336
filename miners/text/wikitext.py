"""Wikitext -> plain text for the sentence miners (no Beam import).

`clean_wikitext` tokenizes a page with mwparserfromhell's C tokenizer, prunes
the token list (`_prune`), reads text, list marks and headings straight off
the tokens and builds nodes only for the few constructs left (`_walk_tokens`,
the same result as walking mwparserfromhell's full node tree), keeping only
running prose:

  * dropped: references, tables, templates (infoboxes, citations, navboxes,
    nested or not; the inline templates that carry words or numbers keep
    their visible text, see below), files and images with their captions,
    categories, interlanguage links, comments, section headings, magic words,
    non-prose tags (`<gallery>`, `<math>`, `<score>`, `<timeline>`, ...);
  * kept: link text (`[[A|b]]` -> `b`, `[[A]]` -> `A`, `[http://x text]` ->
    `text`), the inner text of formatting tags and bold/italic quotes,
    paragraphs separated by one blank line, HTML entities unescaped.

Lists: bullet (`*`), numbered (`#`) and definition-term (`;`) items are
dropped. In articles they hold "See also" entries, bibliographies, discographies
and link lists: fragments, not sentences, that would feed the rewriting
miners (DiscoFuse, Discovery) with junk pairs. Indented (`:`) lines are kept,
each as its own paragraph: they hold quotations and indented prose
(e.g. quoted law articles), which are real sentences.

Punctuation: where markup was dropped (a template, a reference, a file, a
comment), the punctuation it leaves behind is tidied: `Ada ({{IPA|..}}; born
1815)` becomes `Ada (born 1815)`, `Anarchism ({{IPAc-en|..}}) is` becomes
`Anarchism is`, `in 1990 <ref>..</ref>.` becomes `in 1990.`. The walk leaves a
seam mark where it dropped something and the tidy rules apply to the
punctuation around a seam only: punctuation the editors wrote (`but,, the`,
`(; born 1970)`, `batting .309`) is kept as written, so mined sentences are the
text (the WikiSplit release keeps such sentences as they are).

Inline templates (issue 32). A template dropped from inside a sentence left a
hole that reached the data (`tend to be {{angbr|a}}, while` became `tend to be,
while`). The common inline ones that carry words or numbers are rendered as
en.wikipedia shows them (`_RENDER`, written from each template's
documentation: `angbr`, `math`/`mvar`, `frac`, `circa`, `sic`, `as of`, `val`,
`e`, `abbr`, `visible anchor`, `transl`, `nihongo`, `chem`, `coord`, `birth
date` and its kin, `ill`, `formatnum:`, ...; before them `lang`, `lang-xx`,
`nowrap`, `convert`). Pronunciations (`IPA...`, `respell`) are dropped in the
parentheses after a name, as before, and `{{IPA|..}}` is shown in running text
("the vowel /a/"). Footnotes, citations, maintenance tags, anchors and icons
(`_is_silent`) show no words of the sentence and go anywhere. Any other
template, and an inline `<math>`/`<chem>`/`<ce>`/`<hiero>`, that sat inside a
sentence leaves `HOLE` (`schemas.records.TEMPLATE_HOLE`, a noncharacter) glued
to the word before it: the miners reject that sentence as `template_hole`.
"Inside a sentence": not alone on its line(s), and the text before it in its
paragraph does not end a sentence (`.`, `!`, `?`, maybe closing quotes), or
it opens a sentence that goes on in lower case or with `,;:`. The text without the marks is
exactly the text a plain drop gives. Measured on the bundled sample
(`bench/template_holes.py`): 206 of 18,428 sentences had a hole before, 79 of
18,447 after (most of them inline formulas).

Bad markup never raises anything but `WikitextError`, which the reader turns
into a `parser_error` reject.
"""
import contextvars
import functools
import html
import re

from mwparserfromhell.nodes import (Argument, Comment, ExternalLink, Heading, HTMLEntity, Tag, Template,
                                    Text, Wikilink)
from mwparserfromhell.parser import CTokenizer, use_c
from mwparserfromhell.parser import tokens as tk
from mwparserfromhell.parser.builder import Builder

from schemas.records import TEMPLATE_HOLE as HOLE


class WikitextError(ValueError):
    """The wikitext could not be parsed or cleaned (reject reason `parser_error`)."""


# Tags whose whole content is dropped: not prose, or not text at all.
DROP_TAGS = frozenset("""
ref references gallery math chem ce score timeline graph mapframe maplink imagemap hiero
syntaxhighlight source pre templatedata inputbox categorytree charinsert indicator
table tr td th caption ul ol li dl dt dd noinclude includeonly section poem
style script object embed iframe svg
""".split())
# `poem` is dropped: verse lines are not sentences.
# Of those, the tags that stand for words of a sentence when inline (a formula, a chemical formula,
# hieroglyphs): dropped inside a sentence, they leave a hole (`HOLE`) as an unknown template does.
HOLE_TAGS = frozenset(["math", "chem", "ce", "hiero"])

# Namespace prefixes of links that are not visible text (lower case; English
# and the languages of the sample dumps; `:`-prefixed links are visible). A dump's
# own names (its `<namespaces>` header: Файл, Fichier, ファイル, ...) are passed
# to `clean_wikitext` as `hidden_namespaces` (miners/sources/siteinfo.py).
FILE_NAMESPACES = frozenset(["file", "image", "media", "файл", "картинка", "изображение", "datei", "bild",
                             "fichier", "archivo", "imagen", "immagine", "ficheiro", "imagem", "plik"])
CATEGORY_NAMESPACES = frozenset(["category", "категория", "kategorie", "catégorie", "categoría", "categoria",
                                 "kategoria"])
HIDDEN_NAMESPACES = FILE_NAMESPACES | CATEGORY_NAMESPACES
_INTERLANGUAGE = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{2,8}){0,2}$|simple$")
# The link prefixes dropped by the `clean_wikitext` call in progress (its `hidden_namespaces`):
# a context variable rather than one more argument threaded through every recursive walk.
_HIDDEN = contextvars.ContextVar("hidden_namespaces", default=HIDDEN_NAMESPACES)

# Wikipedia redirect keywords (MediaWiki `#REDIRECT` and localisations of the sample languages).
_REDIRECT = re.compile(r"\s*#\s*(?:redirect|пренасочване|виж|перенаправление|weiterleitung|redirection"
                       r"|redirección|rinvia)\b", re.IGNORECASE)
# More local redirect words, each counted only before the link (`#đổi [[X]]`; "#đổi mới ..." is a numbered
# list line). Read at the head of the redirect pages of the real excerpts of ../shared/data/wikipedia/
# multilingual/ (uk перенаправлення, el ΑΝΑΚΑΤΕΥΘΥΝΣΗ, hy ՎԵՐԱՀՂՈՒՄ, ja 転送, mr पुनर्निर्देशन and its
# misspelling पुर्ननिर्देशन, bn পুনর্নির্দেশ, vi đổi), the others from the redirect magic words of
# MediaWiki's language files of large Wikipedias. A pages-articles page also says `<redirect title=...>`,
# which the reader checks first.
_LOCAL_REDIRECT = re.compile(
    r"\s*#\s*(?:перенаправлення|перенапр|ανακατευθυνση|ανακατεύθυνση|վերահղում|転送|リダイレクト|पुनर्निर्देशन"
    r"|पुर्ननिर्देशन|পুনর্নির্দেশ|đổi|重定向|doorverwijzing|przekieruj|patrz|redirecionamento|omdirigering"
    r"|yönlendirme|yönlendir|přesměruj|تحويل|הפניה|넘겨주기)\s*:?\s*\[\[", re.IGNORECASE)

#: Left where markup was dropped, removed before the text is returned: a Unicode noncharacter
#: (reserved for internal use, never in interchange text; NUL would end the parser's input).
SEAM = "\ufdd0"

_MAGIC_WORD = re.compile(r"__[A-Z]+__")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[])\s+")
_EMPTY_PARENS = re.compile(r"\((?:\s*[,;:]\s*)*\)|\[(?:\s*[,;:]\s*)*\]")
_OPEN_PAREN_PUNCT = re.compile(r"\(\s*[,;:]\s*")
_DOUBLE_PUNCT = re.compile(r"([,;])\s*(?=[,;.])")
_WS_CHARS = " \t\r\f\v\u00a0\u2009\u200b\u202f"
# A run of `_WS_CHARS`, collapsed to one space: only runs that are not already one plain space
# match (`_WS.sub(" ", x)` == `re.sub(f"[{_WS_CHARS}]+", " ", x)`; most of that one's matches were
# single spaces replaced by a space, 2x the time).
_WS = re.compile(r"[\t\r\f\v\u00a0\u2009\u200b\u202f][ \t\r\f\v\u00a0\u2009\u200b\u202f]*"
                 r"| [ \t\r\f\v\u00a0\u2009\u200b\u202f]+")
_PARA = re.compile(r"\n[\s\ufdd0\ufdd1]*\n")
# Leftovers of markup that the tokenizer kept as text (unbalanced braces etc.).
_RESIDUE = re.compile(r"\{\{|\}\}|\[\[|\]\]|\{\||\|\}|<ref\b[^>]*>|</ref>|<ref\s*/>", re.IGNORECASE)
# Tags the tokenizer could not pair (an unclosed `<div ...>`): the tag goes, its text stays.
_STRAY_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
# Lines that are table or template debris, not prose.
_DEBRIS_LINE = re.compile(r"^[\s\ufdd0\ufdd1]*(?:[|!]|\{\||\|\}|\}\}).*$", re.MULTILINE)
# A line that holds nothing but dropped markup: a template there stood at block level, not in a sentence.
_MARKS_LINE = re.compile(r"^[ \t\ufdd0\ufdd1]*\ufdd1[ \t\ufdd0\ufdd1]*$", re.MULTILINE)

# Cheap pre-pass: markup dropped anyway, removed before the (costly) tokenizer sees it.
_PRE_STRIP = re.compile(r"<!--.*?(?:-->|\Z)|<ref\b[^>]*?/\s*>|<ref\b[^>]*>.*?</ref\s*>", re.DOTALL | re.IGNORECASE)
_TABLE_LINE = re.compile(r"^[ \t:]*(\{\||\|\})", re.MULTILINE)

# A page nested deeper than this is pathological (and would overflow the recursion).
MAX_DEPTH = 60


def is_redirect(text: str) -> bool:
    """True if the wikitext is a redirect page (`#REDIRECT [[Target]]`)."""
    return bool(_REDIRECT.match(text or "") or _LOCAL_REDIRECT.match(text or ""))


def _template_name(tpl) -> str:
    return str(tpl.name).strip().lower().replace("_", " ")


def _template_text(tpl, depth, out):
    """Visible text of the inline templates that carry prose (`_RENDER`), else nothing."""
    name = _template_name(tpl)
    params = [p for p in tpl.params if not p.showkey]
    if name in ("nowrap", "nobr", "small", "big", "em", "strong", "nowrap begin") and params:
        _walk(params[0].value, depth + 1, out)
    elif name == "lang" and len(params) >= 2:
        _walk(params[1].value, depth + 1, out)
    elif name.startswith("lang-") and params:
        _walk(params[0].value, depth + 1, out)
    elif name in ("convert", "cvt") and len(params) >= 2:
        out.append(f"{params[0].value.strip_code().strip()} {params[1].value.strip_code().strip()}")
    elif name in ("'", "' \"", "\" '"):
        out.append("'")
    elif name in ("snd", "spaced ndash", "spaced en dash"):
        out.append(" \u2013 ")
    elif name in ("ndash", "–"):
        out.append("\u2013")
    elif name in ("mdash", "—"):
        out.append("\u2014")
    elif name in _RENDER:
        _RENDER[name](tpl, _positional(tpl), depth + 1, out)
    elif name.startswith("formatnum:"):  # a computed value inside ("{{formatnum:{{inflation|..}}}}"): a hole
        out.append(_formatnum(name[len("formatnum:"):].strip()) or HOLE)
    elif _is_pronunciation(name) and not _in_parentheses(out):
        # In running text a transcription is the word under discussion ("the vowel /a/"); in the
        # parentheses after a name it is an aside, dropped like before (issue 32).
        pos = _positional(tpl)
        if name == "ipa" and 1 in pos:
            _walk(pos[1], depth + 1, out)
        elif name in ("ipaslink", "ipablink") and 1 in pos:
            out.append("[" if name == "ipablink" else "")
            _walk(pos[1], depth + 1, out)
            out.append("]" if name == "ipablink" else "")


# --- Inline templates rendered as en.wikipedia displays them (issue 32: each one, dropped, left a hole in
# its sentence). Written from each template's documentation; plain text, no markup.

def _positional(tpl):
    """{position: value} of the positional parameters, `{{x|a|2=b}}` included."""
    out = {}
    for p in tpl.params:
        key = str(p.name).strip()
        if key.isdigit():
            out[int(key)] = p.value
    return out


def _named(tpl, key: str) -> str:
    """Plain text of the named parameter `key` ("" when absent)."""
    return tpl.get(key).value.strip_code().strip() if tpl.has(key) else ""


def _plain(value) -> str:
    return value.strip_code().strip()


def _walk_each(values, depth, out, sep=""):
    for k, v in enumerate(values):
        if k:
            out.append(sep)
        _walk(v, depth, out)


def _r_wrap(open_, close):
    def render(tpl, pos, depth, out):
        if 1 in pos:
            out.append(open_)
            _walk(pos[1], depth, out)
            out.append(close)
    return render


def _r_param(k):
    def render(tpl, pos, depth, out):
        if k in pos:
            _walk(pos[k], depth, out)
    return render


def _r_prefixed(prefix):
    def render(tpl, pos, depth, out):
        if 1 in pos:
            out.append(prefix)
            _walk(pos[1], depth, out)
    return render


def _r_last(tpl, pos, depth, out):
    if pos:
        _walk(pos[max(pos)], depth, out)


def _r_const(text):
    def render(tpl, pos, depth, out):
        out.append(text)
    return render


def _r_frac(tpl, pos, depth, out):
    """{{frac|d}} 1⁄d, {{frac|n|d}} n⁄d, {{frac|w|n|d}} w n⁄d (U+2044 FRACTION SLASH)."""
    parts = [_plain(pos[k]) for k in sorted(pos) if k <= 3]
    if len(parts) == 1:
        out.append(f"1\u2044{parts[0]}")
    elif len(parts) == 2:
        out.append(f"{parts[0]}\u2044{parts[1]}")
    elif len(parts) == 3:
        out.append(f"{parts[0]} {parts[1]}\u2044{parts[2]}")


def _r_circa(tpl, pos, depth, out):
    """{{circa|1900}} c. 1900; {{circa|1900|1910}} c. 1900 – c. 1910; {{circa}} c."""
    dates = [_plain(pos[k]) for k in sorted(pos) if k <= 2 and _plain(pos[k])]
    out.append(" \u2013 ".join(f"c.\u00a0{d}" for d in dates) if dates else "c.")


def _r_sic(tpl, pos, depth, out):
    """{{sic}} [sic]; {{sic|word}} word [sic]; {{sic|ex|ample}} example [sic]; hide=y: the word only."""
    words = [pos[k] for k in sorted(pos) if k <= 2]
    _walk_each(words, depth, out)
    if not _named(tpl, "hide"):
        out.append(" [sic]" if words else "[sic]")


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _month(text: str) -> str:
    if text.isdigit() and 1 <= int(text) <= 12:
        return _MONTHS[int(text) - 1]
    return text


def _r_as_of(tpl, pos, depth, out):
    """{{as of|2014}} As of 2014; |5 As of May 2014; |5|20 As of 20 May 2014 (df=US: May 20, 2014);
    lc=y lower case; since=y Since; alt=text: the text instead."""
    if tpl.has("alt") and _plain(tpl.get("alt").value):
        _walk(tpl.get("alt").value, depth, out)
        return
    year, month, day = (_plain(pos[k]) if k in pos else "" for k in (1, 2, 3))
    if not year:
        return
    if month and day:
        month = _month(month)
        date = f"{month} {day}, {year}" if _named(tpl, "df").lower() == "us" else f"{day} {month} {year}"
    elif month:
        date = f"{_month(month)} {year}"
    else:
        date = year
    lead = "Since" if _named(tpl, "since") else "As of"
    if _named(tpl, "lc"):
        lead = lead.lower()
    out.append(f"{lead} {date}")


def _r_val(tpl, pos, depth, out):
    """{{val|1.4}} 1.4; |0.3 1.4±0.3; |+0.3|-0.2 1.4+0.3−0.2; |(3) 1.4(3); e=18 ×10^18; u=/ul= unit
    after a space, up=/upl= per-unit after a slash; p= prefix, s= suffix, end= appended."""
    if 1 not in pos:
        return
    text = _named(tpl, "p") + _plain(pos[1])
    unc = _plain(pos[2]) if 2 in pos else ""
    if unc.startswith("("):
        text += unc
    elif unc and 3 in pos:
        text += f"+{unc.lstrip('+')}\u2212{_plain(pos[3]).lstrip('-').lstrip(chr(0x2212))}"
    elif unc:
        text += f"\u00b1{unc}"
    exp = _named(tpl, "e")
    if exp:
        text += f"\u00d710^{exp}"
    text += _named(tpl, "s") + _named(tpl, "end")
    unit = _named(tpl, "u") or _named(tpl, "ul")
    if unit:
        per = _named(tpl, "up") or _named(tpl, "upl")
        text += f"\u00a0{unit}" + (f"/{per}" if per else "")
    out.append(text)


def _r_e(tpl, pos, depth, out):
    """{{e|24}} ×10^24 (the exponent of a number written just before)."""
    if 1 in pos:
        out.append(f"\u00d710^{_plain(pos[1])}")


def _r_transl(tpl, pos, depth, out):
    """{{transl|ar|text}} / {{transl|ar|ALA|text}}: the text (the last positional parameter)."""
    if pos:
        _walk(pos[max(k for k in pos if k <= 3)], depth, out)


def _r_nihongo(tpl, pos, depth, out):
    """{{nihongo|English|漢字|rōmaji|extra}} English (漢字, rōmaji, extra); without English: 漢字 (rōmaji)."""
    parts = [pos[k] for k in (1, 2, 3, 4) if k in pos and _plain(pos[k])]
    if not parts:
        return
    _walk(parts[0], depth, out)
    if len(parts) > 1:
        out.append(" (")
        _walk_each(parts[1:], depth, out, ", ")
        out.append(")")


def _r_chem(tpl, pos, depth, out):
    """{{chem|H|2|O}} H2O: the parameters joined (the numbers are subscripts)."""
    _walk_each([pos[k] for k in sorted(pos)], depth, out)


def _r_join(sep):
    def render(tpl, pos, depth, out):
        _walk_each([pos[k] for k in sorted(pos) if k <= 2], depth, out, sep)
    return render


def _formatnum(text: str) -> str:
    """{{formatnum:1234567.5}} 1,234,567.5 (en: comma groups); "" for anything not a number."""
    m = re.fullmatch(r"(-?)(\d+)(\.\d+)?", text)
    if not m:
        return ""
    return f"{m.group(1)}{int(m.group(2)):,}{m.group(3) or ''}"


def _r_date(with_age):
    """{{birth date|1900|1|2}} January 2, 1900 (df=y: 2 January 1900); `birth date and age` shows the date
    only (the age changes with the day the page is read); `death date and age` adds (aged N)."""
    def render(tpl, pos, depth, out):
        ymd = [_plain(pos[k]) if k in pos else "" for k in (1, 2, 3)]
        if not ymd[0].isdigit():
            return
        year, month, day = ymd
        mdy = _named(tpl, "df").lower() not in ("y", "yes", "1", "true")
        if month and day:
            m = _month(month)
            text = f"{m} {day}, {year}" if mdy else f"{day} {m} {year}"
        elif month:
            text = f"{_month(month)} {year}"
        else:
            text = year
        if with_age:
            born = [_plain(pos[k]) if k in pos else "" for k in (4, 5, 6)]
            if all(x.isdigit() for x in ymd + born):
                y, mo, d = (int(x) for x in ymd)
                by, bm, bd = (int(x) for x in born)
                text += f" (aged {y - by - ((mo, d) < (bm, bd))})"
        out.append(text)
    return render


def _r_coord(tpl, pos, depth, out):
    """{{coord|13|19|N|169|9|W}} 13°19′N 169°9′W; {{coord|43.65|-79.38}} 43.65°N 79.38°W; nothing with
    display=title (shown beside the page title, not in the sentence)."""
    display = _named(tpl, "display").lower()
    if display and "inline" not in display and display not in ("it", "i", "ti"):
        out.append(SEAM)
        return
    vals = [_plain(pos[k]) for k in sorted(pos)]
    vals = [v for v in vals if v and ":" not in v]
    hemi = [i for i, v in enumerate(vals) if v.upper() in ("N", "S", "E", "W")]
    try:
        if len(hemi) >= 2:
            i, j = hemi[0], hemi[1]
            marks = ("\u00b0", "\u2032", "\u2033")
            lat = "".join(f"{v}{marks[k]}" for k, v in enumerate(vals[:i]))
            lon = "".join(f"{v}{marks[k]}" for k, v in enumerate(vals[i + 1:j]))
            out.append(f"{lat}{vals[i].upper()} {lon}{vals[j].upper()}")
        elif len(vals) >= 2 and not hemi:
            la, lo = float(vals[0]), float(vals[1])
            out.append(f"{vals[0].lstrip('-')}\u00b0{'N' if la >= 0 else 'S'} "
                       f"{vals[1].lstrip('-')}\u00b0{'E' if lo >= 0 else 'W'}")
    except ValueError:
        pass


def _r_ill(tpl, pos, depth, out):
    """{{ill|English title|de|German title}} the English title (lt= shown instead); the older
    {{ill|de|Title}} form: the title."""
    if tpl.has("lt") and _plain(tpl.get("lt").value):
        _walk(tpl.get("lt").value, depth, out)
    elif 1 in pos and 2 in pos and re.fullmatch(r"[a-z]{2,3}(-[a-z]+)?", _plain(pos[1])):
        _walk(pos[2], depth, out)
    elif 1 in pos:
        _walk(pos[1], depth, out)


_RENDER = {
    "birth date": _r_date(False), "death date": _r_date(False), "start date": _r_date(False),
    "end date": _r_date(False), "birth date and age": _r_date(False), "death date and age": _r_date(True),
    "coord": _r_coord, "ill": _r_ill, "interlanguage link": _r_ill,
    "angbr": _r_wrap("\u27e8", "\u27e9"),
    "angle bracket": _r_wrap("\u27e8", "\u27e9"),
    "math": _r_param(1), "mvar": _r_param(1),
    "frac": _r_frac, "sfrac": _r_frac, "fraction": _r_frac,
    "circa": _r_circa, "c.": _r_circa, "ca.": _r_circa,
    "sic": _r_sic,
    "as of": _r_as_of,
    "val": _r_val, "e": _r_e,
    "abbr": _r_param(1), "visible anchor": _r_param(1), "vanchor": _r_param(1),
    "transl": _r_transl, "transliteration": _r_transl,
    "nihongo": _r_nihongo,
    "chem": _r_chem, "eqm": _r_const("\u21cc"),
    "'s": _r_const("'s"),
    "sc": _r_param(1), "smallcaps": _r_param(1), "small caps": _r_param(1), "smaller": _r_param(1),
    "large": _r_param(1), "larger": _r_param(1), "nq": _r_param(1), "script": _r_param(2), "rtl-lang": _r_param(2),
    "resize": _r_last,
    "nbsp": _r_const("\u00a0"), "spaces": _r_const("\u00a0"), "mdashb": _r_const("\u2014"),
    "us$": _r_prefixed("US$"),
    "bibleref": _r_join(" "), "bibleverse": _r_join(" "),
}

# Pronunciations: dropped in the parentheses after a name, `_template_text` renders `ipa`, `ipaslink`,
# `ipablink` elsewhere (a hole is left by the others).
def _is_pronunciation(name: str) -> bool:
    return name.startswith("ipa") or name in ("respell", "audio", "pronunciation")


def _in_parentheses(out, limit: int = 500) -> bool:
    """Whether the text written so far ends inside an open parenthesis of the current line."""
    depth = 0
    seen = 0
    for piece in reversed(out):
        for ch in reversed(piece):
            seen += 1
            if ch == "\n" or seen > limit:
                return False
            if ch == ")":
                depth += 1
            elif ch == "(":
                if depth == 0:
                    return True
                depth -= 1
    return False


# Templates that show no words of the sentence: footnotes and citations, maintenance and cleanup tags
# ("citation needed", "clarify", ...), anchors, icons. Dropped anywhere without a hole; any other
# template the cleaner cannot render leaves a hole where it sat inside a sentence.
_SILENT = frozenset([
    "sfn", "sfnp", "sfnm", "sfnmp", "rp", "r", "ref", "refn", "efn", "efn-ua", "efn-lr", "nb", "note", "notetag",
    "cref", "cnote", "cn", "fact", "citation needed", "clarify", "when", "who", "whom", "which", "where", "by whom",
    "according to whom", "dubious", "vague", "specify", "elucidate", "quantify", "failed verification",
    "better source", "unreliable source?", "unreliable source", "qualify evidence", "full", "refimprove",
    "more citations needed", "inflation-fn", "dead link", "cbignore", "anchor", "anchors", "dn", "or", "what",
    "why", "how", "lopsided", "buzz", "verify source", "irrelevant citation", "clear", "-", "toc", "reflist",
    "notelist"])
_SILENT_PREFIXES = ("cite ", "citation", "sfn", "harv", "efn", "refn", "#tag:", "update ", "as written")
_SILENT_SUFFIXES = (" needed", " inline", "-inline", " icon")


def _is_silent(name: str) -> bool:
    return (name in _SILENT or name.startswith(_SILENT_PREFIXES) or name.endswith(_SILENT_SUFFIXES)
            or name.startswith("flagicon"))


def _rendered(name: str) -> bool:
    """Whether `_template_text` may show text for a template of this name."""
    return (name in _KEEP_TEMPLATES or name in _RENDER or name.startswith(("lang-", "formatnum:"))
            or _is_pronunciation(name))


def _dropped_mark(name: str) -> str:
    """What a template that showed nothing leaves: a hole where it may have carried words, else a seam."""
    return SEAM if _rendered(name) or _is_silent(name) else HOLE


def _link_is_hidden(title: str) -> bool:
    if title.startswith(":"):
        return False
    prefix, sep, _ = title.partition(":")
    if not sep:
        return False
    p = prefix.strip().lower()
    if "_" in p or "  " in p:  # `[[Tập_tin:x.jpg]]` is `[[Tập tin:x.jpg]]`
        p = " ".join(p.replace("_", " ").split())
    return p in _HIDDEN.get() or bool(_INTERLANGUAGE.match(p))


def _walk(code, depth, out, line_mode=None):
    """Append the visible text of `code` (a Wikicode) to `out`; returns the line mode left open.

    `line_mode` is "skip" after a dropped list item (drop until end of line) or
    "para" after an indented line (keep it, then end its paragraph).
    """
    if depth > MAX_DEPTH:
        raise WikitextError(f"markup nested deeper than {MAX_DEPTH}")
    for node in code.nodes:
        if isinstance(node, Text):
            value = node.value
            if line_mode is not None:
                nl = value.find("\n")
                if nl < 0:
                    if line_mode == "para":
                        out.append(value)
                    continue
                if line_mode == "para":
                    out.append(value[:nl])
                    out.append("\n\n")
                value = value[nl:]
                line_mode = None
            out.append(value)
        elif line_mode == "skip":
            continue
        elif isinstance(node, Wikilink):
            title = str(node.title).strip()
            if _link_is_hidden(title):
                out.append(SEAM)
                continue
            if node.text is not None:
                _walk(node.text, depth + 1, out)
            else:
                out.append(node.title.strip_code().lstrip(":"))
        elif isinstance(node, Tag):
            tag = str(node.tag).strip().lower()
            markup = node.wiki_markup
            if tag in ("li", "dt") and markup:  # "*", "#", ";" list items: dropped (module docstring)
                line_mode = "skip"
            elif tag == "dd" and markup:  # ":" indentation: its own paragraph
                out.append("\n\n")
                line_mode = "para"
            elif tag == "hr":
                out.append("\n\n")
            elif tag == "br":
                out.append(" ")
            elif tag in DROP_TAGS:
                out.append(HOLE if tag in HOLE_TAGS else SEAM)
            elif node.contents is not None and not node.self_closing:
                if tag == "nowiki":
                    out.append(str(node.contents))
                else:
                    if tag in ("p", "div", "blockquote", "center"):
                        out.append("\n\n")
                    _walk(node.contents, depth + 1, out)
                    if tag in ("p", "div", "blockquote", "center"):
                        out.append("\n\n")
        elif isinstance(node, ExternalLink):
            if node.title is not None and node.brackets:
                _walk(node.title, depth + 1, out)
            else:  # a bare URL
                out.append(SEAM)
        elif isinstance(node, HTMLEntity):
            out.append(node.normalize())
        elif isinstance(node, Heading):
            out.append("\n\n")
        elif isinstance(node, Template):
            n = len(out)
            _template_text(node, depth, out)
            if len(out) == n:
                out.append(_dropped_mark(_template_name(node)))
        else:  # comments, arguments, any other node (Wikicode extensions): dropped
            out.append(SEAM)
    return line_mode


# Templates whose visible text `_template_text` keeps (any other template is dropped whole).
_KEEP_TEMPLATES = frozenset(["nowrap", "nobr", "small", "big", "em", "strong", "nowrap begin", "lang", "convert", "cvt",
                             "'", "' \"", "\" '", "snd", "spaced ndash", "spaced en dash", "ndash", "\u2013", "mdash",
                             "\u2014"])


def _style_close(toks, i, n):
    """(start, end) of the closing tokens of the bold/italic tag opened at `i`, or None to keep the tag.

    None when any text inside holds a newline: `_walk` reads a tag's contents with a fresh line mode.
    """
    depth = 0
    j = i
    open_, close_open, ends = tk.TagOpenOpen, tk.TagOpenClose, (tk.TagCloseSelfclose, tk.TagCloseClose)
    text = tk.Text
    while j < n:
        c = type(toks[j])
        if c is open_:
            depth += 1
        elif c is close_open and depth == 1:
            k = j + 1
            while k < n and type(toks[k]) is not tk.TagCloseClose:
                k += 1
            return (j, k + 1) if k < n else None
        elif c in ends:
            depth -= 1
            if depth == 0:
                return None
        elif c is text and "\n" in toks[j]["text"]:
            return None
        j += 1
    return None


def _prune(toks):
    """The tokenizer's token list with what `_walk` would drop or flatten already resolved.

    Building the node tree costs about 5x the C tokenizer; most of it went to
    nodes that `_walk` then drops (templates, arguments, comments, file and
    category links, `DROP_TAGS` tags) or reads as plain text (`[[A]]`,
    `[[A|b]]`). Each dropped construct becomes one `SEAM` text token, a link
    with a plain title (and plain text) becomes its visible text, a bold/italic
    tag without a newline inside is unwrapped (its contents stay in place; it no
    longer counts toward `MAX_DEPTH`), and adjacent text tokens are joined: `_walk` over the built tree then yields exactly what
    it yields over the full tree (a Text node of `SEAM` or of link text without
    a newline is handled as the node it replaces, in every line mode). A
    construct whose close is missing is left to the builder.
    """
    out = []
    append = out.append
    n = len(toks)
    types = list(map(type, toks))
    TText, TOpen, TClose, TSep = tk.Text, tk.TemplateOpen, tk.TemplateClose, tk.TemplateParamSeparator
    AOpen, LOpen, LClose, LSep = tk.ArgumentOpen, tk.WikilinkOpen, tk.WikilinkClose, tk.WikilinkSeparator
    GOpen, GCloseOpen, CStart = tk.TagOpenOpen, tk.TagCloseOpen, tk.CommentStart
    seam = TText(text=SEAM)
    hole = TText(text=HOLE)
    resume = {}  # index of an unwrapped style tag's closing tokens -> index after them
    i = 0
    while i < n:
        cls = types[i]
        if cls is TText or cls not in _PRUNE_OPENERS:
            if i in resume:
                i = resume.pop(i)
                continue
            append(toks[i])
            i += 1
            continue
        if i in resume:
            i = resume.pop(i)
            continue
        tok = toks[i]
        drop = False
        mark = seam
        if cls is GOpen:
            if tok.get("wiki_markup") in ("''", "'''") and i + 2 < n and types[i + 2] is GCloseOpen:
                close = _style_close(toks, i, n)
                if close is not None:
                    resume[close[0]] = close[1]
                    i += 3
                    continue
            if i + 1 < n and types[i + 1] is TText:
                name = toks[i + 1]["text"].strip().lower()
                drop = name in DROP_TAGS and not (tok.get("wiki_markup") and name in ("li", "dt", "dd"))
                if name in HOLE_TAGS:
                    mark = hole
        elif cls is TOpen:
            if i + 2 < n and types[i + 1] is TText and (types[i + 2] is TSep or types[i + 2] is TClose):
                name = toks[i + 1]["text"].strip().lower().replace("_", " ")
                drop = not _rendered(name)
                if drop and not _is_silent(name):
                    mark = hole
        elif cls is LOpen:
            if i + 2 < n and types[i + 1] is TText and (types[i + 2] is LSep or types[i + 2] is LClose):
                title = toks[i + 1]["text"]
                if _link_is_hidden(title.strip()):
                    drop = True
                elif types[i + 2] is LClose and "\n" not in title:
                    append(TText(text=title.lstrip(":")))
                    i += 3
                    continue
                elif (i + 4 < n and types[i + 3] is TText and types[i + 4] is LClose
                      and "\n" not in toks[i + 3]["text"]):
                    append(toks[i + 3])
                    i += 5
                    continue
        else:  # AOpen, CStart: arguments and comments are always dropped
            drop = True
        j = _matching_close(types, i, n) if drop else n
        if j >= n:  # kept, or no close: the builder has it (it raises as before on a missing close)
            append(tok)
            i += 1
            continue
        append(mark)
        i = j + 1
    merged = []
    run = []  # adjacent text tokens, joined once
    for tok in out:
        if type(tok) is TText:
            run.append(tok)
            continue
        if run:
            merged.append(run[0] if len(run) == 1 else TText(text="".join([t["text"] for t in run])))
            run = []
        merged.append(tok)
    if run:
        merged.append(run[0] if len(run) == 1 else TText(text="".join([t["text"] for t in run])))
    return merged


# The constructs `_prune` may drop or flatten, and the token classes that close each.
_PRUNE_CLOSERS = {
    tk.TemplateOpen: (tk.TemplateClose,), tk.ArgumentOpen: (tk.ArgumentClose,),
    tk.CommentStart: (tk.CommentEnd,), tk.WikilinkOpen: (tk.WikilinkClose,),
    tk.TagOpenOpen: (tk.TagCloseSelfclose, tk.TagCloseClose),
}
_PRUNE_OPENERS = frozenset(_PRUNE_CLOSERS)


def _next(types, cls, j, n):
    """Index of the first `cls` in `types[j:n]`, or n (list.index: a C scan, not a Python loop)."""
    try:
        return types.index(cls, j, n)
    except ValueError:
        return n


def _matching_close(types, i, n):
    """Index of the token closing the construct opened at `i` (nesting of the same construct counted), or n."""
    opener = types[i]
    closers = _PRUNE_CLOSERS[opener]
    depth = 1
    j = i + 1
    next_open = _next(types, opener, j, n)
    while j < n:
        close = min(_next(types, c, j, n) for c in closers) if len(closers) > 1 else _next(types, closers[0], j, n)
        if close >= n:
            return n
        if next_open < close:
            depth += 1
            j = next_open + 1
            next_open = _next(types, opener, j, n)
            continue
        depth -= 1
        if depth == 0:
            return close
        j = close + 1
    return n


@functools.lru_cache(maxsize=4096)
def _tidy(zone: str) -> str:
    """Punctuation around dropped markup: empty brackets, `(;`, space before `,`, `,,`."""
    zone = zone.replace(SEAM, "")
    zone = _EMPTY_PARENS.sub("", zone)
    zone = _OPEN_PAREN_PUNCT.sub("(", zone)
    zone = _SPACE_AFTER_OPEN.sub(r"\1", zone)
    zone = _SPACE_BEFORE_PUNCT.sub(r"\1", zone)
    return _DOUBLE_PUNCT.sub("", zone)


_ZONE_PUNCT = frozenset(",.;:!?()[]")
_MARKS = (SEAM, HOLE)
_SENTENCE_END = ".!?"
_QUOTE_CLOSERS = "\"')]\u201d\u2019"


def _next_mark(para: str, start: int) -> int:
    i, j = para.find(SEAM, start), para.find(HOLE, start)
    return j if i < 0 else i if j < 0 else min(i, j)


def _hole_in_sentence(before: str, after: str) -> str:
    """Where a hole between `before` and `after` (paragraph text, marks left out) lies in its sentence:
    "after_word" (text of the sentence before it), "before_word" (it opens a sentence that goes on in
    lower case or with `,;:`: "{{x}} is a city", "{{as of|2010}}, the"), "" (not in a sentence: at a
    paragraph's start or after a sentence's end, before a capital or nothing)."""
    left = before.rstrip().rstrip(_QUOTE_CLOSERS).rstrip()
    if left and left[-1] not in _SENTENCE_END:
        return "after_word"
    right = after.lstrip(" \t" + _QUOTE_CLOSERS)
    return "before_word" if right[:1].islower() or right[:1] in ",;:" else ""


def _tidy_seams(para: str) -> str:
    """Each zone of `para` replaced by `_tidy(zone)`: a zone is a maximal run of whitespace,
    `_ZONE_PUNCT` and marks that holds a mark (the tidy rules apply only around dropped markup).

    Same result as `re.sub(r"[\s,.;:!?()\[\]]*\ufdd0[\s,.;:!?()\[\]\ufdd0]*", ...)`, found from
    each seam outwards: that expression tried its leading run at every position of the text.

    A zone that holds a `HOLE` (an unknown template or a formula dropped) is tidied as if it held a
    seam; where the hole lies inside a sentence (`_hole_in_sentence`), one `HOLE` stays, glued to the
    word before it (or to the word after it, at a sentence's start), so that the text without the
    marks is exactly the text of a seam.
    """
    out = []
    pos, n = 0, len(para)
    i = _next_mark(para, 0)
    while i >= 0:
        start = i
        while start > pos and (para[start - 1] in _ZONE_PUNCT or para[start - 1].isspace()):
            start -= 1
        end = i + 1
        while end < n and (para[end] in _MARKS or para[end] in _ZONE_PUNCT or para[end].isspace()):
            end += 1
        zone = para[start:end]
        out.append(para[pos:start])
        if HOLE in zone:
            h = zone.index(HOLE)
            where = _hole_in_sentence("".join(out) + zone[:h].replace(SEAM, ""),
                                      zone[h + 1:].replace(SEAM, "").replace(HOLE, "") + para[end:end + 2])
            tidied = _tidy(zone.replace(HOLE, SEAM))
            if where == "after_word":
                out.append(HOLE + tidied)
            elif where == "before_word":
                out.append(tidied + HOLE)
            else:
                out.append(tidied)
        else:
            out.append(_tidy(zone))
        pos = end
        i = _next_mark(para, end)
    out.append(para[pos:])
    return "".join(out)


def _normalise(raw: str) -> str:
    raw = html.unescape(raw)  # entities that reached us as text (e.g. double-escaped "&amp;nbsp;")
    raw = _MAGIC_WORD.sub(SEAM, raw)
    raw = _DEBRIS_LINE.sub("", raw)
    raw = _RESIDUE.sub(" " + SEAM, raw)
    raw = _STRAY_TAG.sub(" " + SEAM, raw)
    if HOLE in raw:  # a template alone on its line(s) stood at block level: no hole
        raw = _MARKS_LINE.sub(lambda m: m.group(0).replace(HOLE, SEAM), raw)
    paragraphs = []
    for para in _PARA.split(raw):
        para = _WS.sub(" ", para.replace("\n", " ")).strip()
        if not para:
            continue
        if SEAM in para or HOLE in para:
            para = _tidy_seams(para)
            para = _WS.sub(" ", para).strip()
        # A paragraph of punctuation only (what a dropped template/table left) is no text.
        if para and any(ch.isalnum() for ch in para):
            paragraphs.append(para)
    return "\n\n".join(paragraphs)


def _strip_tables(text: str) -> str:
    """Remove tables (`{|` ... `|}` at line starts, nesting counted) line by line."""
    if "{|" not in text:
        return text
    out, depth, pos = [], 0, 0
    for m in _TABLE_LINE.finditer(text):
        if m.group(1) == "{|":
            if depth == 0:
                out.append(text[pos:m.start()])
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                end = text.find("\n", m.end())
                pos = len(text) if end < 0 else end
    if depth == 0:
        out.append(text[pos:])
    # An unclosed table runs to the end of the page (MediaWiki renders it so).
    return "".join(out)


def prestrip(wikitext: str, seam: str = "") -> str:
    """Comments, references and tables removed by regular expressions (no parse).

    Args:
      wikitext: the page's wikitext.
      seam: left where a comment or reference was removed (`clean_wikitext` passes `SEAM`).
    """
    return _strip_tables(_PRE_STRIP.sub(seam, wikitext))


def _tokens(text: str):
    """mwparserfromhell's tokens of `parse(text, skip_style_tags=False)`, pruned (`_prune`)."""
    if use_c and CTokenizer:
        tokenizer = CTokenizer()
    else:  # pragma: no cover - the wheels ship the C tokenizer
        from mwparserfromhell.parser.tokenizer import Tokenizer
        tokenizer = Tokenizer()
    return _prune(tokenizer.tokenize(text, 0, False))


# Opening token class -> the closing token classes of the same construct (well nested in the token list).
_CLOSERS = {
    tk.TemplateOpen: (tk.TemplateClose,), tk.ArgumentOpen: (tk.ArgumentClose,),
    tk.WikilinkOpen: (tk.WikilinkClose,), tk.ExternalLinkOpen: (tk.ExternalLinkClose,),
    tk.CommentStart: (tk.CommentEnd,), tk.HTMLEntityStart: (tk.HTMLEntityEnd,),
    tk.HeadingStart: (tk.HeadingEnd,), tk.TagOpenOpen: (tk.TagCloseSelfclose, tk.TagCloseClose),
}
_LIST_ITEM = {"li": "skip", "dt": "skip", "dd": "para"}


def _walk_tokens(toks, out):
    """`_walk(Builder().build(toks), 0, out)` without building the whole tree.

    After `_prune`, half the tokens are text and most of the rest are list-item
    marks and headings: those are read here as `_walk` reads their nodes. Any
    other construct (a kept template, an external link, a tag with contents, an
    entity) is built alone, from its own tokens, and walked with the line mode
    carried over, as `_walk` does from one sibling node to the next. Returns
    False (nothing appended) where the token list is not a well-nested
    sequence of constructs; the caller then builds the whole tree.
    """
    n = len(toks)
    i = 0
    line_mode = None
    pieces = []
    append = pieces.append
    TText, GOpen, GSelf = tk.Text, tk.TagOpenOpen, tk.TagCloseSelfclose
    HStart = tk.HeadingStart
    while i < n:
        tok = toks[i]
        cls = type(tok)
        if cls is TText:  # `_walk`'s Text branch
            value = tok["text"]
            i += 1
            if line_mode is not None:
                nl = value.find("\n")
                if nl < 0:
                    if line_mode == "para":
                        append(value)
                    continue
                if line_mode == "para":
                    append(value[:nl])
                    append("\n\n")
                value = value[nl:]
                line_mode = None
            append(value)
            continue
        if (cls is GOpen and tok.get("wiki_markup") and i + 2 < n and type(toks[i + 1]) is TText
                and type(toks[i + 2]) is GSelf and toks[i + 1]["text"] in _LIST_ITEM):
            # "*", "#", ";" list items and ":" indentation (a self-closing tag node with wiki markup)
            if line_mode != "skip":
                line_mode = _LIST_ITEM[toks[i + 1]["text"]]
                if line_mode == "para":
                    append("\n\n")
            i += 3
            continue
        closers = _CLOSERS.get(cls)
        if closers is None:
            return False
        depth = 1
        j = i + 1
        while j < n:
            c = type(toks[j])
            if c is cls:
                depth += 1
            elif c in closers:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= n:
            return False
        if line_mode == "skip":  # `_walk` skips any node but text until the end of the line
            pass
        elif cls is HStart:  # a heading: its title is not prose
            append("\n\n")
        else:
            line_mode = _walk(Builder().build(toks[i:j + 1]), 0, pieces, line_mode)
        i = j + 1
    out.extend(pieces)
    return True


def clean_wikitext(wikitext: str, hidden_namespaces=None) -> str:
    """Plain text of a page's wikitext: paragraphs separated by a blank line.

    Args:
      wikitext: the `<text>` of a page revision, XML entities already decoded.
      hidden_namespaces: link prefixes (lower case, `_` as a space) whose links are dropped with
        their captions: the dump's file, media and category namespaces and their aliases
        (`miners.sources.siteinfo.hidden_link_prefixes`); None: `HIDDEN_NAMESPACES`.

    Returns:
      The prose of the page ("" when nothing is left).

    Raises:
      WikitextError: the markup could not be parsed (pathological nesting,
        tokenizer failure).
    """
    if not wikitext:
        return ""
    token = _HIDDEN.set(HIDDEN_NAMESPACES if hidden_namespaces is None else hidden_namespaces)
    try:
        toks = _tokens(prestrip(wikitext, SEAM))
        out = []
        if not _walk_tokens(toks, out):
            _walk(Builder().build(toks), 0, out)
    except WikitextError:
        raise
    except (RecursionError, MemoryError) as e:
        raise WikitextError(f"{type(e).__name__}: markup too deeply nested") from e
    except Exception as e:  # noqa: BLE001 - the tokenizer raises assorted types on junk input
        raise WikitextError(f"{type(e).__name__}: {e}") from e
    finally:
        _HIDDEN.reset(token)
    return _normalise("".join(out))
