"""One hostile corpus for every job: per input kind, the worst cases beside one good real file.

`build(directory)` writes the files (about 170 MB, mostly the giant ones; a few seconds) and
returns a `Corpus`: the paths per input kind, which files are good, and the secret token of a
local file that two inputs name as an external XML entity (it must never reach an output).

The good files are real text: pages of the bundled English Wikipedia excerpt
(samples/wikipedia/..., gensim test data, Wikipedia text CC BY-SA), a history woven from them and
the WikiSplit tune split (tests/wikisplit_fixtures.py), a JATS paper of the bundled scientific
samples (samples/scientific/SOURCES.md) and a pre-parsed CoNLL-U file of tests/testdata/discofuse.
The bad ones are made from them here; nothing is committed.

Kinds and their bad cases (issue 32, "One hostile corpus through every job"):
  articles  an entity bomb, an external entity naming a local file, a truncated and a random-bytes
            .bz2, a 30 MB one-paragraph page, templates nested 500 deep, a page with 200,000 links,
            broken UTF-8, a page without a revision
  history   a page with 3,000 revisions, a 20 MB revision, missing and deleted text, invalid
            timestamps
  wet       a 50 MB record, a truncated gzip, a record with a false Content-Length, random bytes
  jsonl     invalid JSON, a list, a missing field, NUL bytes, a 20 MB text
  pairs     wrong columns, an empty side, a 2 MB side
  conllu    malformed rows, a 10,000-token sentence
  papers    an external entity, an entity bomb, a truncated .jsonl.gz, random bytes, an 11 MB
            paragraph, no body
"""
import bz2
import dataclasses
import gzip
import json
import os
import random
import typing

from tests import wikisplit_fixtures
from tests.testdata.readers import build as readers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JATS = os.path.join(ROOT, "samples", "scientific", "jats", "PMC5828200.nxml")
CONLLU = os.path.join(ROOT, "tests", "testdata", "discofuse", "fusion.conllu")
TUNE = os.path.join(ROOT, "tests", "testdata", "wikisplit", "tune.tsv")

SECRET = "HOSTILE-SECRET-7f3a9c-DO-NOT-LEAK"
MB = 1 << 20

# Real sentences (the bundled excerpt's "Anarchism" article) for the filler of the giant inputs.
FILLER = ("Anarchism is a political philosophy and movement that is skeptical of all justifications for "
          "authority and seeks to abolish the institutions it claims maintain unnecessary coercion and "
          "hierarchy. ")

_BOMB_DTD = ('<!DOCTYPE lolz [<!ENTITY lol "lollollollollollollollollollol">'
             + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
             + "]>\n")


@dataclasses.dataclass
class Corpus:
    directory: str
    secret_file: str
    kinds: typing.Dict[str, typing.List[str]]  # kind -> every file of it, good ones first
    good: typing.Dict[str, str]                # kind -> its good file

    def files(self, *kinds) -> typing.List[str]:
        return [p for k in kinds for p in self.kinds[k]]


def _write(path, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return path


def _random_bytes(n, seed) -> bytes:
    return random.Random(seed).randbytes(n)


def _page(title, page_id, text, *, revision=True, extra_revision_xml="", raw=False) -> str:
    """A page of one revision; `raw`: the text goes in unescaped (an entity reference stays one)."""
    from xml.sax.saxutils import escape
    rev = (f"<revision><id>{page_id}0</id><timestamp>2020-01-01T00:00:00Z</timestamp>"
           f"<model>wikitext</model><format>text/x-wiki</format>"
           f'<text bytes="{len(text)}" xml:space="preserve">{text if raw else escape(text)}</text></revision>')
    return (f"<page><title>{escape(title)}</title><ns>0</ns><id>{page_id}</id>"
            f"{rev if revision else extra_revision_xml}</page>")


def _dump(header: bytes, pages, trailer: bytes, dtd: str = "") -> bytes:
    body = b"".join(p if isinstance(p, bytes) else p.encode("utf-8") for p in pages)
    if dtd:
        return dtd.encode("utf-8") + header.lstrip() + body + trailer
    return header + body + trailer


def _articles(d, secret_file) -> typing.Tuple[str, typing.List[str]]:
    header, pages, trailer = readers.split_dump(readers.xml_bytes())
    # Drop the XML declaration so that a DOCTYPE can lead (an entity file starts with it).
    if header.startswith(b"<?xml"):
        header = header[header.index(b"?>") + 2:].lstrip()
    good_pages = [p for p in pages if b"<redirect" not in p and 3000 < len(p) < 12000][:2]
    good = _write(os.path.join(d, "good-pages-articles.xml.bz2"), bz2.compress(_dump(header, good_pages, trailer)))
    whole = bz2.compress(_dump(header, pages[:30], trailer))
    out = [
        _write(os.path.join(d, "entity-bomb-pages-articles.xml"),
               _dump(header, [_page("Bomb", 900001, "Laughs &lol9; end.", raw=True)], trailer, _BOMB_DTD)),
        _write(os.path.join(d, "external-entity-pages-articles.xml"),
               _dump(header, [_page("Leak", 900002, "Secret: &xxe; end.", raw=True)], trailer,
                     f'<!DOCTYPE mediawiki [<!ENTITY xxe SYSTEM "file://{secret_file}">]>\n')),
        _write(os.path.join(d, "truncated-pages-articles.xml.bz2"), whole[:len(whole) // 2]),
        _write(os.path.join(d, "random-pages-articles.xml.bz2"), _random_bytes(200_000, 1)),
        _write(os.path.join(d, "giant-paragraph-pages-articles.xml"),
               _dump(header, [_page("Giant", 900003, FILLER * (30 * MB // len(FILLER)))], trailer)),
        _write(os.path.join(d, "nested-templates-pages-articles.xml"),
               _dump(header, [_page("Nested", 900004,
                                    "The nest begins here. " + "{{outer|" * 500 + "core" + "}}" * 500
                                    + " It ends here after the templates, and the text goes on for a while.")],
                     trailer)),
        _write(os.path.join(d, "many-links-pages-articles.xml"),
               _dump(header, [_page("Links", 900005, "Links: " + " ".join(f"[[P{i}]]"
                                                                             for i in range(200_000)) + ".")],
                     trailer)),
        _write(os.path.join(d, "broken-utf8-pages-articles.xml"),
               _dump(header, [_page("Broken", 900006, "Caf\udce9 placeholder sentence that is long enough to be "
                                    "mined by something.").encode("utf-8", "surrogateescape")],
                     trailer)),
        _write(os.path.join(d, "no-revision-pages-articles.xml"),
               _dump(header, [_page("Empty", 900007, "", revision=False)], trailer)),
    ]
    return good, out


def _history(d) -> typing.Tuple[str, typing.List[str]]:
    good = os.path.join(d, "good-pages-meta-history.xml")
    wikisplit_fixtures.build_fixture(good, n_pages=6)
    head = ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" xml:lang="en"><siteinfo>'
            '<sitename>Wikipedia</sitename><dbname>enwiki</dbname><namespaces>'
            '<namespace key="0" case="first-letter" /></namespaces></siteinfo>')

    def rev(rid, text, ts="2020-01-01T00:00:00Z", text_xml=None):
        from xml.sax.saxutils import escape
        body = text_xml if text_xml is not None else f'<text xml:space="preserve">{escape(text)}</text>'
        stamp = f"<timestamp>{ts}</timestamp>" if ts is not None else ""
        return (f"<revision><id>{rid}</id>{stamp}<contributor><username>U</username><id>1</id></contributor>"
                f"<comment>edit</comment><model>wikitext</model><format>text/x-wiki</format>{body}</revision>")

    def page(pid, title, revs):
        return f"<page><title>{title}</title><ns>0</ns><id>{pid}</id>{''.join(revs)}</page>"

    base = FILLER * 3
    many = [rev(800000 + i, base + f"Edit number {i} changed this line.") for i in range(3000)]
    out = [
        _write(os.path.join(d, "many-revisions-pages-meta-history.xml"),
               (head + page(80001, "Many", many) + "</mediawiki>").encode("utf-8")),
        _write(os.path.join(d, "giant-revision-pages-meta-history.xml"),
               (head + page(80002, "Giant", [rev(810001, base), rev(810002, FILLER * (20 * MB // len(FILLER)))])
                + "</mediawiki>").encode("utf-8")),
        _write(os.path.join(d, "missing-text-pages-meta-history.xml"),
               (head + page(80003, "Missing", [rev(820001, base), rev(820002, "", text_xml=""),
                                               rev(820003, "", text_xml='<text deleted="deleted" />'),
                                               rev(820004, base + " More.")])
                + "</mediawiki>").encode("utf-8")),
        _write(os.path.join(d, "bad-timestamps-pages-meta-history.xml"),
               (head + page(80004, "Stamps", [
                   rev(830001, "The cat sat on the mat in the warm kitchen, and the dog slept by the door all day.",
                       ts="yesterday"),
                   rev(830002, "The cat sat on the mat in the warm kitchen. The dog slept by the door all day.",
                       ts=""),
                   rev(830003, "The cat sat on the mat in the warm kitchen, and the dog slept by the door all day "
                               "long.", ts=None)])
                + "</mediawiki>").encode("utf-8")),
    ]
    return good, out


def _real_docs(n=2):
    """(title, text) of real articles: the plain text of the excerpt's first pages with enough prose."""
    with open(os.path.join(ROOT, "tests", "testdata", "discovery", "enwiki_docs.jsonl"), encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    docs = [x for x in docs if 2000 < len(x["text"]) < 8000][:n]
    return [(x.get("title") or x["id"], x["text"]) for x in docs]


def _warc(uri, payload: bytes, length=None) -> bytes:
    n = len(payload) if length is None else length
    return (f"WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: {uri}\r\n"
            f"WARC-Identified-Content-Language: eng\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {n}\r\n\r\n").encode("utf-8") + payload + b"\r\n\r\n"


def _wet(d) -> typing.Tuple[str, typing.List[str]]:
    docs = _real_docs()
    good = _write(os.path.join(d, "good.warc.wet.gz"), gzip.compress(
        b"".join(_warc(f"https://en.wikipedia.org/wiki/{t.replace(' ', '_')}", x.encode("utf-8")) for t, x in docs),
        mtime=0))
    whole = gzip.compress(b"".join(_warc(f"https://example.org/{i}", (FILLER * 40).encode("utf-8"))
                                   for i in range(40)), mtime=0)
    big = (FILLER * (50 * MB // len(FILLER))).encode("utf-8")
    out = [
        _write(os.path.join(d, "giant-record.warc.wet"), _warc("https://example.org/giant", big)),
        _write(os.path.join(d, "truncated.warc.wet.gz"), whole[:len(whole) // 2]),
        _write(os.path.join(d, "false-length.warc.wet"),
               _warc("https://example.org/long", (FILLER * 3).encode("utf-8"), length=10 * MB)),
        _write(os.path.join(d, "false-length-short.warc.wet"),
               _warc("https://example.org/short", (FILLER * 3).encode("utf-8"), length=40)
               + _warc("https://example.org/after", (FILLER * 2).encode("utf-8"))),
        _write(os.path.join(d, "random.warc.wet.gz"), _random_bytes(100_000, 2)),
    ]
    return good, out


def _jsonl(d) -> typing.Tuple[str, typing.List[str]]:
    docs = _real_docs()
    good = _write(os.path.join(d, "good.jsonl"), "".join(
        json.dumps({"id": f"good-{i}", "title": t, "text": x}) + "\n" for i, (t, x) in enumerate(docs)).encode())
    lines = [b'{"id": "bad-json", "text": "unterminated',
             json.dumps(["a", "list", "not", "an", "object"]).encode(),
             json.dumps({"id": "no-text"}).encode(),
             json.dumps({"id": "nul", "text": "Null\u0000bytes inside a sentence that is long enough to mine "
                                              "something from it, and then some more words."}).encode(),
             b'{"id": "raw-nul", "text": "raw \x00 byte"}',
             json.dumps({"id": "giant", "text": FILLER * (20 * MB // len(FILLER))}).encode()]
    return good, [_write(os.path.join(d, "bad.jsonl"), b"\n".join(lines) + b"\n"),
                  _write(os.path.join(d, "random.jsonl.gz"), _random_bytes(50_000, 3))]


def _pairs(d) -> typing.Tuple[str, typing.List[str]]:
    with open(TUNE, encoding="utf-8") as f:
        rows = [next(f) for _ in range(3)]
    good_rows = []
    for row in rows:
        c, s = row.rstrip("\n").split("\t")
        good_rows.append(f"{c}\t{s.replace(' <::::> ', ' ')}\n")
    good = _write(os.path.join(d, "good-pairs.tsv"), "".join(good_rows).encode("utf-8"))
    bad = (b"only one column here, with no tab at all in the line.\n"
           b"one\ttwo\tthree columns\n"
           b"\tThe simple side is here but the complex side is empty.\n"
           b"The complex side is here but the simple side is empty.\t\n"
           + ("word " * (2 * MB // 5)).encode() + b"\tA short simple side.\n")
    return good, [_write(os.path.join(d, "bad-pairs.tsv"), bad)]


def _conllu(d) -> typing.Tuple[str, typing.List[str]]:
    with open(CONLLU, "rb") as f:
        good = _write(os.path.join(d, "good.conllu"), f.read())
    rows = ["# sent_id = malformed", "1\tThe\tthe\tDET", "two\tcat\tcat\tNOUN\tNN\t_\t3\tnsubj\t_\t_",
            "3\tsat\tsit\tVERB\tVBD\t_\tx\troot\t_\t_", ""]
    big = ["# sent_id = giant"] + [f"{i}\tword\tword\tNOUN\tNN\t_\t{0 if i == 1 else 1}\t"
                                   f"{'root' if i == 1 else 'dep'}\t_\t_" for i in range(1, 10_001)] + [""]
    return good, [_write(os.path.join(d, "bad.conllu"), ("\n".join(rows + big) + "\n").encode("utf-8"))]


def _papers(d, secret_file) -> typing.Tuple[str, typing.List[str]]:
    with open(JATS, "rb") as f:
        jats = f.read()
    good = _write(os.path.join(d, "good-PMC5828200.nxml"), jats)
    body_start = jats.index(b"<body>")
    head, tail = jats[:body_start], jats[jats.index(b"</body>") + len(b"</body>"):]
    decl_end = head.index(b"?>") + 2 if head.startswith(b"<?xml") else 0
    article = head[head.index(b"<article"):]

    title = article.index(b"<article-title>") + len(b"<article-title>")

    def with_dtd(dtd, body, name):  # each bad paper under its own title: not a copy of the good one
        own = article[:title] + f"Hostile case {name}: ".encode() + article[title:]
        return head[:decl_end] + b"\n" + dtd.encode() + own + body + tail

    paragraph = ("<body><sec><title>Results</title><p>" + FILLER * (11 * MB // len(FILLER)) + "</p></sec></body>")
    s2orc = json.dumps({"paper_id": "s2-1", "title": "A paper", "abstract": [{"text": FILLER * 5}],
                        "body_text": [{"text": FILLER * 20, "section": "Intro"}]}) + "\n"
    trunc = gzip.compress((s2orc * 50).encode(), mtime=0)
    return good, [
        _write(os.path.join(d, "external-entity.nxml"),
               with_dtd(f'<!DOCTYPE article [<!ENTITY xxe SYSTEM "file://{secret_file}">]>',
                        b"<body><sec><title>Intro</title><p>Secret: &xxe; is here, and the paper goes on.</p>"
                        b"</sec></body>", "external entity")),
        _write(os.path.join(d, "entity-bomb.nxml"),
               with_dtd(_BOMB_DTD.replace("lolz", "article"), b"<body><sec><p>&lol9;</p></sec></body>", "entity bomb")),
        _write(os.path.join(d, "truncated.jsonl.gz"), trunc[:len(trunc) // 2]),
        _write(os.path.join(d, "random.nxml"), _random_bytes(100_000, 4)),
        _write(os.path.join(d, "giant-paragraph.nxml"), with_dtd("", paragraph.encode(), "giant paragraph")),
        _write(os.path.join(d, "no-body.nxml"), with_dtd("", b"", "no body")),
    ]


def build(directory: str) -> Corpus:
    os.makedirs(directory, exist_ok=True)
    secret_file = _write(os.path.join(directory, "secret.txt"), (SECRET + "\n").encode())
    kinds, good = {}, {}
    for kind, builder in (("articles", lambda d: _articles(d, secret_file)), ("history", _history), ("wet", _wet),
                          ("jsonl", _jsonl), ("pairs", _pairs), ("conllu", _conllu),
                          ("papers", lambda d: _papers(d, secret_file))):
        d = os.path.join(directory, kind)
        os.makedirs(d, exist_ok=True)
        g, bad = builder(d)
        kinds[kind], good[kind] = [g] + bad, g
    return Corpus(directory, secret_file, kinds, good)
