"""Builders of pages-meta-history fixtures from real text, for the WikiSplit tests and bench.

Real articles come from `samples/wikipedia/enwiki-...-shortened.bz2` (206 English
Wikipedia articles, gensim test data; Wikipedia text CC BY-SA). Split pairs come
from the tuning split of the WikiSplit release (`../shared/data/wikisplit/tune.tsv`,
google-research-datasets/wiki-split, CC BY-SA 4.0), detokenized and woven into the
articles' histories as edits: the complex sentence in one revision, the two
simple sentences in the next (or the reverse), among ordinary edits, vandalism
and reverts. Nothing is committed: fixtures are generated at test time.
"""
import bz2
import dataclasses
import functools
import hashlib
import os
import re
import typing
from xml.sax.saxutils import escape

from miners.text import segmenter as text_lib
from miners.sources import history
from schemas.release import detokenize_punct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARTICLES = os.path.join(ROOT, "samples", "wikipedia",
                        "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
TUNE_CANDIDATES = [os.path.join(ROOT, "tests", "testdata", "wikisplit", "tune.tsv"),
                   os.path.join(os.path.dirname(ROOT), "shared", "data", "wikisplit", "tune.tsv")]

_MARKUP = ("''", "[", "]", "{", "}", "|", "<", ">", "=", "*", "#", "&", "~~")


def tune_path() -> str:
    for p in TUNE_CANDIDATES:
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"tune.tsv not found in {TUNE_CANDIDATES}")


@functools.lru_cache(maxsize=None)
def tune_rows() -> typing.Tuple[typing.Tuple[str, str, str], ...]:
    """(complex, simple1, simple2) of the release, as released (tokenized)."""
    rows = []
    with open(tune_path(), encoding="utf-8") as f:
        for line in f:
            c, s = line.rstrip("\n").split("\t")
            s1, s2 = (x.strip() for x in s.split("<::::>", 1))
            rows.append((c.strip(), s1, s2))
    return tuple(rows)


@functools.lru_cache(maxsize=None)
def weavable_pairs() -> typing.Tuple[typing.Tuple[str, str, str], ...]:
    """Release pairs, detokenized, that survive as sentences in plain wikitext: (c, s1, s2, row index).

    Kept when: no character the wiki parser would read as markup, the complex
    sentence segments as one sentence and "S1 S2" as exactly (S1, S2).
    This choice is independent of the miner under test.
    """
    out = []
    for idx, (c, s1, s2) in enumerate(tune_rows()):
        c, s1, s2 = detokenize_punct(c), detokenize_punct(s1), detokenize_punct(s2)
        if any(m in x for m in _MARKUP for x in (c, s1, s2)):
            continue
        lead = "It was so."  # the sentence must also stand apart from the text before it
        if (text_lib.split_sentences(f"{lead} {c}") != [lead, c]
                or text_lib.split_sentences(f"{lead} {s1} {s2}") != [lead, s1, s2]):
            continue
        out.append((c, s1, s2, idx))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def articles(max_blocks: int = 12) -> typing.Tuple[typing.Tuple[int, str, str], ...]:
    """(page id, title, wikitext of the first `max_blocks` blocks) of real non-redirect articles."""
    out = []
    with bz2.open(ARTICLES, "rb") as f:
        for rev in history.iter_revisions(f, ARTICLES):
            if isinstance(rev, history.Skip) or rev.namespace != 0:
                continue
            if rev.text.lstrip().lower().startswith("#redirect") or len(rev.text) < 2000:
                continue
            blocks = [b for b in rev.text.split("\n\n") if b.strip()][:max_blocks]
            try:
                _prose_block(blocks, 0)
            except ValueError:
                continue
            out.append((rev.page_id, rev.title, "\n\n".join(blocks[:max_blocks])))
    return tuple(out)


@dataclasses.dataclass
class Page:
    page_id: int
    title: str
    ns: int = 0
    revisions: typing.List[typing.Tuple[str, str]] = dataclasses.field(default_factory=list)  # (text, comment)


def sha1_base36(text: str) -> str:
    n = int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest(), "big")
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out.rjust(31, "0")


HEADER = ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">\n'
          '  <siteinfo>\n    <sitename>Wikipedia</sitename>\n    <dbname>enwiki</dbname>\n'
          '    <namespaces>\n      <namespace key="0" case="first-letter" />\n'
          '      <namespace key="1" case="first-letter">Talk</namespace>\n    </namespaces>\n  </siteinfo>\n')
FOOTER = "</mediawiki>\n"


def page_xml(page: Page, first_revision_id: int) -> typing.Iterator[str]:
    yield f"  <page>\n    <title>{escape(page.title)}</title>\n    <ns>{page.ns}</ns>\n    <id>{page.page_id}</id>\n"
    parent = 0
    for i, (text, comment) in enumerate(page.revisions):
        rid = first_revision_id + i
        day, sec = divmod(i, 86400)
        ts = f"2010-{1 + (day // 28) % 12:02d}-{1 + day % 28:02d}T{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}Z"
        yield (f"    <revision>\n      <id>{rid}</id>\n"
               + (f"      <parentid>{parent}</parentid>\n" if parent else "")
               + f"      <timestamp>{ts}</timestamp>\n"
               f"      <contributor>\n        <username>Editor{i % 7}</username>\n        <id>{i % 7 + 1}</id>\n      </contributor>\n"
               + (f"      <comment>{escape(comment)}</comment>\n" if comment else "")
               + "      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
               f'      <text bytes="{len(text.encode("utf-8"))}" xml:space="preserve">{escape(text)}</text>\n'
               f"      <sha1>{sha1_base36(text)}</sha1>\n    </revision>\n")
        parent = rid
    yield "  </page>\n"


def write_history(path: str, pages: typing.Iterable[Page], header: str = HEADER) -> str:
    """Write a pages-meta-history XML (`.xml` or `.xml.bz2`) under `header` (the `<mediawiki>` opening
    and `<siteinfo>`) and return its path."""
    opener = bz2.open if path.endswith(".bz2") else open
    with opener(path, "wt", encoding="utf-8") as f:
        f.write(header)
        rid = 1000
        for page in pages:
            for part in page_xml(page, rid):
                f.write(part)
            rid += len(page.revisions) + 10
        f.write(FOOTER)
    return path


def _insert_sentence(text: str, block_index: int, sentence: str, fallback: bool = False) -> str:
    blocks = text.split("\n\n")
    k = _prose_block(blocks, block_index, fallback)
    blocks[k] = sentence + " " + blocks[k].lstrip()  # at the start: the text before may end without a stop
    return "\n\n".join(blocks)


def _prose_block(blocks, start, fallback: bool = False):
    """Index of a prose paragraph (not a template, table, heading, list or file, nor a paragraph
    inside a template or table that spans blank lines: an infobox's field, a quotation) at or after
    `start`; with `fallback`, the last block when none is left (a page edited many times: every
    paragraph may come to hold a piped link or start with an inserted quote)."""
    n = len(blocks)
    inside, depth = [], 0
    for b in blocks:
        opened = depth
        depth = max(0, depth + b.count("{{") - b.count("}}") + b.count("{|") - b.count("|}"))
        inside.append(opened > 0)
    for j in range(n):
        k = (start + j) % n
        b = blocks[k].strip()
        if (b and (b[0].isalpha() or b.startswith("'''")) and "{{" not in b and "|" not in b
                and not b.startswith("=") and not inside[k]):
            return k
    if fallback and n:
        return n - 1
    raise ValueError("no prose block")


def _copyedit(text: str, seed: int) -> str:
    """An ordinary edit that is not a split: a word changed in one prose paragraph."""
    blocks = text.split("\n\n")
    k = _prose_block(blocks, seed % len(blocks))
    b = blocks[k]
    for old, new in ((" is ", " was "), (" was ", " is "), (" the ", " a "), (" and ", " & ")):
        if old in b:
            blocks[k] = b.replace(old, new, 1)
            return "\n\n".join(blocks)
    blocks[k] = b + " Citation needed."
    return "\n\n".join(blocks)


@dataclasses.dataclass
class Fixture:
    path: str
    expected: typing.List[dict]  # woven splits that must come out: complex/simple1/simple2/direction/page_id
    unexpected: typing.List[tuple]  # woven (complex, simple1, simple2) that must NOT come out (reverted, talk page)
    pages: int
    revisions: int


def build_fixture(path: str, n_pages: int = 40, offset: int = 0,
                  pairs: typing.Optional[typing.Sequence[tuple]] = None) -> Fixture:
    """A history of `n_pages` real articles, each with one woven split among other edits.

    Page i (article i, release pair i + offset):
      * i % 5 == 0: the split is done by a vandal edit and identity-reverted -> nothing;
      * i % 5 == 1: the split happens backward (two sentences merged into one);
      * otherwise forward; odd pages also get a profane vandal edit and its revert.
    One Talk page (namespace 1) carries a split too -> nothing.
    `pairs` (c, s1, s2, row index) default to `weavable_pairs()`.
    """
    arts = articles()
    pairs = weavable_pairs() if pairs is None else pairs
    pages, expected, unexpected = [], [], []
    revisions = 0
    for i in range(n_pages):
        page_id, title, base = arts[i % len(arts)]
        # Distinct when articles repeat (ids of articles can be 1 apart: spaced wider past 1,000 pages).
        page_id = page_id * 1000 + i if n_pages <= 1000 else page_id * 100_000 + i
        c, s1, s2, idx = pairs[(i + offset) % len(pairs)]
        k = 1 + i % 3
        with_c = _insert_sentence(base, k, c)
        with_s = _insert_sentence(base, k, f"{s1} {s2}")
        ce_c = _insert_sentence(_copyedit(base, i + 5), k, c)  # the same with an unrelated edit
        ce_s = _insert_sentence(_copyedit(base, i + 5), k, f"{s1} {s2}")
        p = Page(page_id, title)
        if i % 5 == 1:  # backward: S1 S2 -> C
            p.revisions = [(base, "start"), (with_s, "expand"), (ce_s, "ce"),
                           (ce_c, "merge sentences")]
            expected.append(dict(complex=c, simple1=s1, simple2=s2, direction="backward", page_id=page_id, row=idx))
        elif i % 5 == 0:  # split by a vandal, reverted by identity
            p.revisions = [(base, "start"), (with_c, "expand"), (ce_c, "ce"),
                           (ce_s, ""), (ce_c, "Reverted 1 edit by Vandal")]
            unexpected.append((c, s1, s2))
        else:
            p.revisions = [(base, "start"), (with_c, "expand"), (ce_c, "ce"),
                           (ce_s, "split long sentence")]
            expected.append(dict(complex=c, simple1=s1, simple2=s2, direction="forward", page_id=page_id, row=idx))
        if i % 2 == 1:
            last = p.revisions[-1][0]
            p.revisions.append((_insert_sentence(last, 0, "This article is shit shit shit shit.", fallback=True), ""))
            p.revisions.append((last, "rvv"))
        revisions += len(p.revisions)
        pages.append(p)
        if i == 0:
            c2, t1, t2, _ = pairs[(n_pages + offset) % len(pairs)]
            talk = Page(page_id + 999, "Talk:" + title, ns=1,
                        revisions=[(c2, "q"), (f"{t1} {t2}", "split")])
            unexpected.append((c2, t1, t2))
            revisions += 2
            pages.append(talk)
    write_history(path, pages)
    return Fixture(path, expected, unexpected, len(pages), revisions)


def big_page(n_revisions: int, title: str = "Big page", page_id: int = 7) -> Page:
    """One real article edited `n_revisions` times (a sentence appended and changed in turn)."""
    _, _, base = articles()[3]
    pairs = weavable_pairs()
    revs = []
    text = base
    for i in range(n_revisions):
        c, s1, s2, _ = pairs[i % len(pairs)]
        text = _insert_sentence(base, i % 4, c if i % 2 == 0 else f"{s1} {s2}")
        revs.append((text, f"edit {i}"))
    return Page(page_id, title, revisions=revs)


def write_big_history(path: str, target_bytes: int, revisions_per_page: int = 30) -> typing.Tuple[int, int]:
    """Write real-text history pages until the XML reaches `target_bytes`; returns (pages, revisions).

    Each page is a real article edited cumulatively: every tenth revision adds a release complex
    sentence, the next splits it into its two simple sentences, the others are ordinary edits
    (a sentence added or a word changed in another paragraph). Real histories hold far fewer
    splits (WikiSplit: about 1M from all of English Wikipedia's history); this is a busy case.
    """
    arts = articles(max_blocks=40)
    pairs = weavable_pairs()
    opener = bz2.open if path.endswith(".bz2") else open
    size = n_pages = n_revs = 0
    rid = 1000
    with opener(path, "wt", encoding="utf-8") as f:
        f.write(HEADER)
        while size < target_bytes:
            page_id, title, text = arts[n_pages % len(arts)]
            p = Page(page_id * 1000 + n_pages, title)
            c = s1 = s2 = ""
            for j in range(revisions_per_page):
                blocks = text.split("\n\n")
                if j % 10 == 0:  # a long sentence is added ...
                    c, s1, s2, _ = pairs[(n_pages * revisions_per_page + j) % len(pairs)]
                    text = _insert_sentence(text, j, c, fallback=True)
                    comment = "expand"
                elif j % 10 == 1:  # ... and split in the next revision
                    text = text.replace(c, f"{s1} {s2}", 1)
                    comment = "split a long sentence"
                else:  # ordinary edits elsewhere: a sentence added, a word changed
                    k = _prose_block(blocks, j * 7 + n_pages, fallback=True)
                    if j % 2:
                        blocks[k] = blocks[k] + f" It was updated in {1900 + j}."
                    else:
                        blocks[k] = blocks[k].replace(" the ", " this ", 1) if " the " in blocks[k] \
                            else blocks[k] + f" See {1800 + j}."
                    text = "\n\n".join(blocks)
                    comment = "copyedit"
                p.revisions.append((text, comment))
            for part in page_xml(p, rid):
                f.write(part)
                size += len(part.encode("utf-8"))
            rid += revisions_per_page + 10
            n_pages += 1
            n_revs += len(p.revisions)
        f.write(FOOTER)
    return n_pages, n_revs


def release_conditions_hold(row_index: int) -> bool:
    """The paper's conditions on the release's own tokens (independent of the miner's tokenizer)."""
    import sacrebleu
    c, s1, s2 = tune_rows()[row_index]
    c, s1, s2 = c.split(), s1.split(), s2.split()
    if not (c[:3] == s1[:3] and c[-3:] == s2[-3:] and s1[-3:] != s2[-3:]):
        return False
    c, s1, s2 = tune_rows()[row_index]
    return min(sacrebleu.sentence_bleu(c, [s1]).score, sacrebleu.sentence_bleu(c, [s2]).score) >= 20


def recoverable(fixture: "Fixture") -> typing.List[tuple]:
    """(complex, simple1, simple2, direction, page_id) of the woven pairs a faithful miner must find."""
    return sorted((d["complex"], d["simple1"], d["simple2"], d["direction"], d["page_id"])
                  for d in fixture.expected if release_conditions_hold(d["row"]))


# ----------------------------------------------------------------- the whole tune split woven in

# Release text that wikitext would not render as written (MediaWiki's markup): bold/italic quotes
# left after the quotes are restored, links, templates, tables, tags and comments, entities,
# signatures, magic words and magic links; and, at the start of a line (where the weave puts a
# sentence), list, indent, heading and preformatted marks.
_WIKI_MARKUP = re.compile(r"''|\[\[|\]\]|\[(?:https?:|ftp:|//)|\{\{|\}\}|\{\||\|\}|<[A-Za-z/!]|&#?\w+;"
                          r"|~~~|__[A-Z]+__|\b(?:ISBN|RFC|PMID) +\d|(?:https?|ftp)://")
_LINE_START_MARKUP = tuple("*#:;= ") + ("----",)


def release_to_plain(sentence: str) -> str:
    """A release sentence as the plain text it was cut from: punctuation re-attached
    (`detokenize_punct`) and the release's `''` quotes (it has no `"`) written as `"`, opening
    ones on the word after, closing ones on the word before, in turn."""
    toks = detokenize_punct(sentence).split(" ")
    out, opened = [], False
    for i, tok in enumerate(toks):
        if tok.startswith("''") and tok.strip("'.,;:!?)") == "" and tok != "'":
            # A quote token ("''", "''.", "''," ...): closes an open quote, else opens one
            # (one left open at the end of the sentence closes on the word before).
            if opened or i == len(toks) - 1:
                out[-1:] = [(out[-1] if out else "") + '"' + tok[2:]]
                opened = False
            else:
                out.append('"')
                opened = True
        elif out and out[-1] == '"' and opened:
            out[-1] += tok
        else:
            out.append(tok)
    return " ".join(out)


def wikitext_safe(sentence: str) -> bool:
    """True when `sentence`, written as the start of a wikitext paragraph, renders as itself."""
    return not (_WIKI_MARKUP.search(sentence) or sentence.startswith(_LINE_START_MARKUP))


@functools.lru_cache(maxsize=None)
def release_pairs_in_wikitext() -> typing.Tuple[typing.Tuple[str, str, str, int], ...]:
    """Every release pair that plain wikitext can hold as written: (c, s1, s2, row index).

    Unlike `weavable_pairs`, nothing is asked of the project's segmenter (or any other code of
    the miner): a pair is left out only when its text would be read as markup (`wikitext_safe`).
    """
    out = []
    for idx, row in enumerate(tune_rows()):
        c, s1, s2 = (release_to_plain(s) for s in row)
        if all(wikitext_safe(s) for s in (c, s1, s2)):
            out.append((c, s1, s2, idx))
    return tuple(out)


def build_release_history(path: str, pairs: typing.Sequence[typing.Tuple[str, str, str, int]]) -> Fixture:
    """`build_fixture`'s pages with every pair of `pairs` woven as a kept split (forward or
    backward) on a page of its own.

    The pages `build_fixture` makes a reverted vandal split (every fifth) weave the pair of the
    next page, so no pair is lost to them; their splits, and the talk page's, must not come out
    (`Fixture.expected` is keyed by page: a pair mined on the wrong page is wrong).
    """
    seq = []
    for pair in pairs:
        if len(seq) % 5 == 0:
            seq.append(pair)  # a reverted vandal split: the same pair is woven for real next
        seq.append(pair)
    return build_fixture(path, n_pages=len(seq), pairs=seq)


def shared_sentence_removed(woven: tuple, mined: tuple) -> bool:
    """True when `mined` is the woven (c, s1, s2, direction, page_id) less text that the release's C
    holds twice over: a last sentence C shares with S2, or a first one it shares with S1.

    The release has pairs whose C and S2 both end with one more, unchanged sentence (its segmenter
    missed the stop: "... the server's instance of X. When a client boots, ..."); a miner that
    segments at that stop finds the split without it. That is the split the text holds, not a
    wrong output.
    """
    (c, s1, s2, d, p), (mc, m1, m2, md, mp) = woven, mined
    if (d, p) != (md, mp):
        return False
    tail = c[len(mc):] if c.startswith(mc + " ") else None
    if tail and s1 == m1 and s2 == m2 + tail:
        return True
    head = c[:len(c) - len(mc)] if c.endswith(" " + mc) else None
    return bool(head) and s2 == m2 and s1 == head + m1
