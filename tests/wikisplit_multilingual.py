"""SYNTHETIC edit histories in other languages, for WikiSplit (issue 33, item 5).

No real edit history of a Wikipedia other than English is reachable here (../shared/data/SOURCES.md).
These histories are built from the real article texts of the pages-articles excerpts in
../shared/data/wikipedia/ (Wikipedia text, CC BY-SA), or of their first articles bundled in
tests/testdata/languages/ (`bundled`), and every split in them is woven, not edited by a person: call
them synthetic wherever they are used.

How a page's history is woven (`weave_page`), for one page of the excerpt:

  1. the article's real wikitext is cleaned with the dump's namespaces and cut into paragraphs and
     sentences by the language's segmenter (`miners.text.sentences`);
  2. the woven pair is the first pair of adjacent sentences (S1, S2) of a paragraph, in text order,
     such that: S1 ends with the language's full stop (`.`, `。`, `।`, `։`) and both have 4 to 60
     tokens (`miners.text.tokens`); the text "S1 S2" (CJK: "S1S2") appears verbatim in the wikitext (no
     markup inside it, so replacing it edits exactly those two sentences); S1 and S2 end differently
     (their last three tokens differ); and the merged sentence C stays one sentence for the segmenter,
     "S1 S2" two, inside their paragraph;
  3. C is S1 without its full stop, a connective (`CONNECTIVES`: uk ", і ", el ", και ", vi ", và ",
     bg ", и ", hy ", և ", ...) and S2 with its first letter lower-cased (kept when the first word is
     written with a capital inside a sentence elsewhere in the article: a proper noun); Chinese
     replaces S1's `。` by `，`, Japanese by `、` (no connective word: `…した、その後…` is not how a
     Japanese editor would merge, a conjugated form would be, so the Japanese C is less natural);
  4. the page gets three revisions: the article as it is, the article with "S1 S2" replaced by C
     (a merge: the miner's backward direction), and the article as it is again with a newline added
     at its end (a split: forward; without the newline the third revision would be an identity
     revert of the second, which the history reader drops as vandalism reverted).

`expected` lists every woven (C, S1, S2); the job, run on the history, should output each once
(its dedup keeps one example per complex sentence) and nothing else.
"""
import bz2
import dataclasses
import os
import re
import typing

from wikisplit_fixtures import Page, write_history

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MULTI = os.path.join(os.path.dirname(ROOT), "shared", "data", "wikipedia", "multilingual")


def bundled(lang: str) -> str:
    """Path of the small excerpt of `lang` bundled in tests/testdata/languages/ (the same dump's header and
    first articles: tools/make_language_excerpts.py)."""
    name = ("zhwiki-20180401-test-pages-small.xml.bz2" if lang == "zh"
            else f"{lang}wiki-20230501-pages-articles-small.xml.bz2")
    return os.path.join(ROOT, "tests", "testdata", "languages", name)


def excerpt(lang: str) -> str:
    """Path of the real pages-articles excerpt of `lang` in ../shared/data/wikipedia/multilingual/."""
    if lang == "zh":
        return os.path.join(MULTI, "zhwiki-20180401-test-pages.xml.bz2")
    return os.path.join(MULTI, f"{lang}wiki-20230501-pages-articles-multistream-excerpt.xml.bz2")


#: How S1 and S2 are joined into C: (S1's stop, the text that replaces it).
CONNECTIVES = {
    "uk": (".", ", і "), "ru": (".", ", и "), "bg": (".", ", и "), "el": (".", ", και "),
    "vi": (".", ", và "), "hy": ("։", ", և "), "bn": ("।", " এবং "), "mr": (".", " आणि "),
    "zh": ("。", "，"), "ja": ("。", "、"),
}
_CJK = ("zh", "ja")


@dataclasses.dataclass
class Fixture:
    path: str
    lang: str
    expected: typing.List[typing.Tuple[str, str, str]]  # woven (complex, simple1, simple2)
    pages: int


def _lower_first(s2: str, article: str) -> str:
    m = re.match(r"\w+", s2)
    if not m or not s2[0].isupper():
        return s2
    word = m.group(0)
    if len(word) > 1 and not word[1:].islower():
        return s2  # an acronym or a word with inner capitals
    if re.search(r"[^\W\d_]\s+" + re.escape(word) + r"\b", article):
        for hit in re.finditer(r"(\w)\s+" + re.escape(word) + r"\b", article):
            if hit.group(1).islower():
                return s2  # written with a capital inside a sentence: a proper noun
    return s2[0].lower() + s2[1:]


def merge(lang: str, s1: str, s2: str, article: str = "") -> typing.Optional[str]:
    """C for (S1, S2) in `lang` (module docstring, step 3), or None when S1 does not end with the stop."""
    stop, joiner = CONNECTIVES[lang]
    if not s1.endswith(stop):
        return None
    if lang in _CJK:
        return s1[:-len(stop)] + joiner + s2
    return s1[:-len(stop)] + joiner + _lower_first(s2, article)


def weave_page(lang: str, wikitext: str, hidden) -> typing.Optional[typing.Tuple[str, str, str, str]]:
    """(merged wikitext, C, S1, S2) for one article, or None when no pair qualifies (step 2)."""
    from miners.text import sentences
    from miners.text import tokens
    from miners.text.wikitext import clean_wikitext
    seg = sentences.splitter_for(lang)
    sep = "" if lang in _CJK else " "
    cleaned = clean_wikitext(wikitext, hidden_namespaces=hidden)
    for para in cleaned.split("\n"):
        sents = seg(para)
        for i in range(len(sents) - 1):
            s1, s2 = sents[i], sents[i + 1]
            t1, t2 = tokens.tokens(s1, lang), tokens.tokens(s2, lang)
            if not (4 <= len(t1) <= 60 and 4 <= len(t2) <= 60) or t1[-3:] == t2[-3:]:
                continue
            joined = s1 + sep + s2
            if wikitext.count(joined) != 1:
                continue
            c = merge(lang, s1, s2, cleaned)
            if c is None or c in (s1, s2):
                continue
            before = sents[:i] + [c] + sents[i + 2:]
            if seg(para.replace(joined, c)) != before:
                continue
            return wikitext.replace(joined, c), c, s1, s2
    return None


def build(path: str, lang: str, max_pages: int = 1000, source: str = "") -> Fixture:
    """A SYNTHETIC pages-meta-history of `lang` (module docstring) at `path` (`.xml` or `.xml.bz2`), woven from
    `source` (a pages-articles dump of `lang`; default the shared excerpt, `excerpt(lang)`)."""
    from miners.sources import history, siteinfo
    from miners.text.wikitext import HIDDEN_NAMESPACES
    src = source or excerpt(lang)
    with open(src, "rb") as raw:
        header = siteinfo.read_header(raw, src)
    site = siteinfo.parse_siteinfo(header)
    hidden = siteinfo.hidden_link_prefixes(site, HIDDEN_NAMESPACES) if site.namespaces else None
    head = header.decode("utf-8")
    head = head[:head.index("</siteinfo>")] if "</siteinfo>" in head else head
    head += "</siteinfo>"
    pages, expected, seen = [], [], set()
    with bz2.open(src, "rb") as f:
        for rev in history.iter_revisions(f, src):
            if isinstance(rev, history.Skip) or rev.namespace != 0 or len(pages) >= max_pages:
                continue
            woven = weave_page(lang, rev.text, hidden)
            if woven is None:
                continue
            merged, c, s1, s2 = woven
            if c in seen:  # the excerpts hold a few pages twice (the same text under two titles)
                continue
            seen.add(c)
            pages.append(Page(rev.page_id, rev.title, revisions=[(rev.text, "start"), (merged, "merge sentences"),
                                                                 (rev.text + "\n", "split long sentence")]))
            expected.append((c, s1, s2))
    write_history(path, pages, head + "\n")
    return Fixture(path, lang, expected, len(pages))
