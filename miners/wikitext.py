"""Wikitext -> plain text for the sentence miners (no Beam import).

`clean_wikitext` tokenizes a page with mwparserfromhell's C tokenizer, prunes
the token list (`_prune`), reads text, list marks and headings straight off
the tokens and builds nodes only for the few constructs left (`_walk_tokens`,
the same result as walking mwparserfromhell's full node tree), keeping only
running prose:

  * dropped: references, tables, templates (infoboxes, citations, navboxes,
    nested or not; a handful of inline text templates such as `{{lang|..}}`,
    `{{nowrap|..}}` and `{{convert|..}}` keep their visible text), files and
    images with their captions, categories, interlanguage links, comments,
    section headings, magic words, non-prose tags (`<gallery>`, `<math>`,
    `<score>`, `<timeline>`, ...);
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
_PARA = re.compile(r"\n[\s\ufdd0]*\n")
# Leftovers of markup that the tokenizer kept as text (unbalanced braces etc.).
_RESIDUE = re.compile(r"\{\{|\}\}|\[\[|\]\]|\{\||\|\}|<ref\b[^>]*>|</ref>|<ref\s*/>", re.IGNORECASE)
# Tags the tokenizer could not pair (an unclosed `<div ...>`): the tag goes, its text stays.
_STRAY_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
# Lines that are table or template debris, not prose.
_DEBRIS_LINE = re.compile(r"^[\s\ufdd0]*(?:[|!]|\{\||\|\}|\}\}).*$", re.MULTILINE)

# Cheap pre-pass: markup dropped anyway, removed before the (costly) tokenizer sees it.
_PRE_STRIP = re.compile(r"<!--.*?(?:-->|\Z)|<ref\b[^>]*?/\s*>|<ref\b[^>]*>.*?</ref\s*>", re.DOTALL | re.IGNORECASE)
_TABLE_LINE = re.compile(r"^[ \t:]*(\{\||\|\})", re.MULTILINE)

# A page nested deeper than this is pathological (and would overflow the recursion).
MAX_DEPTH = 60


def is_redirect(text: str) -> bool:
    """True if the wikitext is a redirect page (`#REDIRECT [[Target]]`)."""
    return bool(_REDIRECT.match(text or "") or _LOCAL_REDIRECT.match(text or ""))


def _template_text(tpl, depth, out):
    """Visible text of the few inline templates that carry prose, else nothing."""
    name = str(tpl.name).strip().lower().replace("_", " ")
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
                out.append(SEAM)
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
                out.append(SEAM)
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
        elif cls is TOpen:
            if i + 2 < n and types[i + 1] is TText and (types[i + 2] is TSep or types[i + 2] is TClose):
                name = toks[i + 1]["text"].strip().lower().replace("_", " ")
                drop = name not in _KEEP_TEMPLATES and not name.startswith("lang-")
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
        append(seam)
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


def _tidy_seams(para: str) -> str:
    """Each zone of `para` replaced by `_tidy(zone)`: a zone is a maximal run of whitespace,
    `_ZONE_PUNCT` and seams that holds a seam (the tidy rules apply only around dropped markup).

    Same result as `re.sub(r"[\s,.;:!?()\[\]]*\ufdd0[\s,.;:!?()\[\]\ufdd0]*", ...)`, found from
    each seam outwards: that expression tried its leading run at every position of the text.
    """
    out = []
    pos, n = 0, len(para)
    i = para.find(SEAM)
    while i >= 0:
        start = i
        while start > pos and (para[start - 1] in _ZONE_PUNCT or para[start - 1].isspace()):
            start -= 1
        end = i + 1
        while end < n and (para[end] == SEAM or para[end] in _ZONE_PUNCT or para[end].isspace()):
            end += 1
        out.append(para[pos:start])
        out.append(_tidy(para[start:end]))
        pos = end
        i = para.find(SEAM, end)
    out.append(para[pos:])
    return "".join(out)


def _normalise(raw: str) -> str:
    raw = html.unescape(raw)  # entities that reached us as text (e.g. double-escaped "&amp;nbsp;")
    raw = _MAGIC_WORD.sub(SEAM, raw)
    raw = _DEBRIS_LINE.sub("", raw)
    raw = _RESIDUE.sub(" " + SEAM, raw)
    raw = _STRAY_TAG.sub(" " + SEAM, raw)
    paragraphs = []
    for para in _PARA.split(raw):
        para = _WS.sub(" ", para.replace("\n", " ")).strip()
        if not para:
            continue
        if SEAM in para:
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
