"""Rebuild the small non-English excerpts bundled for the tests (tests/testdata/languages/) from ../shared/data.

    PYTHONPATH=. python tools/make_language_excerpts.py [--shared ../shared/data] [--out tests/testdata/languages]

Deterministic: the same shared files give the same bytes (bz2 at level 9 writes no time stamp).

Wikipedia (`<lang>wiki-<date>-pages-articles-small.xml.bz2`, from `wikipedia/multilingual/`): the dump's
own header, byte for byte (`<mediawiki ...>`, `<siteinfo>` with its `<dbname>` and localized
`<namespaces>`), then its pages
in file order, each page's XML unchanged, until `ARTICLES[lang]` articles (namespace 0, not a redirect) of
at most `MAX_PAGE_BYTES` bytes are taken; a larger page is skipped, the redirects and other
namespaces' pages met on the way are kept (the reader skips them, as in a whole dump); then
`</mediawiki>`. Ukrainian has the most articles (a Discovery run end to end that writes every split)
and Japanese the next (a WikiSplit history woven from them, tests/wikisplit_multilingual.py).

Universal Dependencies (`<treebank>-excerpt.conllu.bz2`, from `ud/`): the treebank's first sentences,
each block unchanged (comments, tokens), whole `# newdoc` documents where the treebank marks them,
until at least `UD_SENTENCES` sentences.

Licences and sources: tests/testdata/languages/SOURCES.md (Wikipedia text CC BY-SA 4.0; UD French-GSD
and Ukrainian-IU CC BY-SA 4.0).
"""
import argparse
import bz2
import os
import re
import sys
import typing

WIKI_SOURCES = {
    "uk": "ukwiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "vi": "viwiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "ja": "jawiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "el": "elwiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "bn": "bnwiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "hy": "hywiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "mr": "mrwiki-20230501-pages-articles-multistream-excerpt.xml.bz2",
    "zh": "zhwiki-20180401-test-pages.xml.bz2",
}
#: Articles taken per language (`DEFAULT_ARTICLES` for the others).
ARTICLES = {"uk": 40, "ja": 20}
DEFAULT_ARTICLES = 8
#: Bytes of one page's XML at most: a long article (the excerpts hold pages of 500 kB) is skipped.
MAX_PAGE_BYTES = 30_000

UD_SOURCES = ("uk_iu-ud-test.conllu", "fr_gsd-ud-test.conllu")
UD_SENTENCES = 300

_PAGE = re.compile(rb"<page>.*?</page>\s*", re.DOTALL)


def small_name(source: str) -> str:
    """`ukwiki-20230501-pages-articles-multistream-excerpt.xml.bz2` -> `ukwiki-20230501-pages-articles-small.xml.bz2`
    (one bz2 stream: not a multistream dump, whose name would send the reader to look for an index)."""
    stem = source[:-len(".xml.bz2")].replace("-multistream", "")
    stem = stem[:-len("-excerpt")] if stem.endswith("-excerpt") else stem
    return f"{stem}-small.xml.bz2"


def _is_article(page: bytes) -> bool:
    return b"<ns>0</ns>" in page and b"<redirect" not in page


def wiki_excerpt(data: bytes, articles: int, max_page_bytes: int = MAX_PAGE_BYTES) -> typing.Tuple[bytes, int, int]:
    """(excerpt XML, articles taken, pages taken) of a dump's decompressed bytes."""
    start = data.index(b"<page>")
    head = data[:start]
    # the indentation before the first <page> is part of the header as the dump wrote it
    out, taken, pages = [head], 0, 0
    for m in _PAGE.finditer(data, start):
        page = m.group(0)
        if len(page) > max_page_bytes:
            continue
        out.append(page)
        pages += 1
        if _is_article(page):
            taken += 1
            if taken >= articles:
                break
    tail = out[-1]
    if not tail.endswith(b"\n"):
        out.append(b"\n")
    out.append(b"</mediawiki>\n")
    return b"".join(out), taken, pages


def ud_excerpt(text: str, sentences: int) -> typing.Tuple[str, int]:
    """(excerpt, sentences) of a CoNLL-U file: whole blocks, whole `# newdoc` documents when marked."""
    blocks = [b for b in text.split("\n\n") if b.strip()]
    has_docs = any(b.lstrip().startswith("# newdoc") or "\n# newdoc" in b for b in blocks)
    out = []
    for block in blocks:
        starts_doc = block.startswith("# newdoc") or "\n# newdoc" in block
        if len(out) >= sentences and (not has_docs or starts_doc):
            break
        out.append(block)
    return "".join(b.strip("\n") + "\n\n" for b in out), len(out)


def main(argv=None) -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", default=os.path.join(os.path.dirname(root), "shared", "data"),
                   help="the shared data folder (../shared/data)")
    p.add_argument("--out", default=os.path.join(root, "tests", "testdata", "languages"))
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for lang, source in WIKI_SOURCES.items():
        path = os.path.join(args.shared, "wikipedia", "multilingual", source)
        with bz2.open(path, "rb") as f:
            xml, taken, pages = wiki_excerpt(f.read(), ARTICLES.get(lang, DEFAULT_ARTICLES))
        target = os.path.join(args.out, small_name(source))
        payload = bz2.compress(xml, 9)
        with open(target, "wb") as f:
            f.write(payload)
        print(f"{os.path.basename(target)}: {taken} articles, {pages} pages, {len(xml):,} bytes XML, "
              f"{len(payload):,} bz2")
    for source in UD_SOURCES:
        with open(os.path.join(args.shared, "ud", source), encoding="utf-8") as f:
            text, n = ud_excerpt(f.read(), UD_SENTENCES)
        stem = source[:-len(".conllu")]
        target = os.path.join(args.out, f"{stem}-excerpt.conllu.bz2")
        payload = bz2.compress(text.encode("utf-8"), 9)
        with open(target, "wb") as f:
            f.write(payload)
        print(f"{os.path.basename(target)}: {n} sentences, {len(payload):,} bz2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
