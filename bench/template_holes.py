"""Template holes (issue 32): sentences where the wikitext cleaner dropped a template from inside.

Detector: a template the cleaner shows no text for, that is not of the silent kinds (footnotes,
citations, maintenance tags, anchors, icons: `miners.text.wikitext._is_silent`) and not alone on its
line(s), leaves a hole when the text before it in its paragraph does not end a sentence (`.`, `!`,
`?`, closing quotes or brackets after it), or when it opens a sentence that goes on in lower case.
Inline `<math>`, `<chem>`, `<ce>`, `<hiero>` count as such templates. The cleaner marks each hole
(`schemas.records.TEMPLATE_HOLE`); a sentence holding the mark is a hole sentence.

"before" runs today's cleaner as it was before issue 32 rendered templates: each template that
`_RENDER`, `formatnum:` or the pronunciation branch now renders is dropped instead (under the same
detector).

Counts, for each dump given (pages-articles, namespace 0, redirects skipped):
  * per template name: occurrences inside a sentence (probe: the one template replaced by an
    unknown template, the count of hole marks compared with it replaced by a silent one);
  * sentences (`miners.text.segmenter.segment` of the reader's Documents, what Discovery, DiscoFuse and
    SimSim read) with a hole, before and after;
  * WikiSplit: sentences of `wikisplit.BlockSegmenter` over the articles' blocks, before and after.

    python bench/template_holes.py DUMP.bz2 [DUMP.bz2 ...] [--names] [--sentences N]
"""
import argparse
import bz2
import collections
import contextlib
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mwparserfromhell  # noqa: E402

from miners.text import segmenter as text_lib  # noqa: E402
from miners.text import wikitext as w  # noqa: E402
from miners.sources import history, iter_wiki_articles  # noqa: E402
from miners.wikisplit.splits import BlockSegmenter, split_blocks  # noqa: E402
from schemas.records import TEMPLATE_HOLE, Document  # noqa: E402


@contextlib.contextmanager
def before_issue_32():
    """The cleaner with the templates issue 32 renders dropped again (same hole detector)."""
    orig = w._template_text

    def old(tpl, depth, out):
        name = w._template_name(tpl)
        n = len(out)
        orig(tpl, depth, out)
        new = name in w._RENDER or name.startswith("formatnum:") or (w._is_pronunciation(name) and len(out) > n)
        if new:  # dropped: a hole where it sat inside a sentence
            del out[n:]
            out.append(TEMPLATE_HOLE)
    w._template_text = old
    try:
        yield
    finally:
        w._template_text = orig


def wikitexts(path):
    with bz2.open(path, "rb") as f:
        for rev in history.iter_revisions(f, path):
            if isinstance(rev, history.Skip) or rev.namespace != 0 or w.is_redirect(rev.text):
                continue
            yield rev.title, rev.text


def documents(path):
    for item in iter_wiki_articles(path, path, "bench"):
        if isinstance(item, Document):
            yield item


def hole_sentences(paths):
    sents = []
    for path in paths:
        for doc in documents(path):
            sentences, _ = text_lib.segment(doc.text)
            sents.extend((doc.title, s) for s in sentences)
    return sents


def wikisplit_sentences(paths):
    seg = BlockSegmenter()
    sents = []
    for path in paths:
        for title, text in wikitexts(path):
            for block in split_blocks(text):
                try:
                    sents.extend((title, s) for s in seg(block))
                except w.WikitextError:
                    pass
    return sents


def per_name(paths):
    """{name: occurrences inside a sentence} by the probe (top-level templates of each page)."""
    counts, total = collections.Counter(), collections.Counter()
    for path in paths:
        for _, text in wikitexts(path):
            code = mwparserfromhell.parse(text, skip_style_tags=True)
            for tpl in code.filter_templates(recursive=False):
                name = w._template_name(tpl)
                if name.startswith("infobox") or name.startswith(("cite ", "citation")):
                    continue
                s = str(tpl)
                at = text.find(s)
                if at < 0:
                    continue
                total[name] += 1
                probe = text[:at] + "{{zz probe}}" + text[at + len(s):]
                silent = text[:at] + "{{cn}}" + text[at + len(s):]
                try:
                    if w.clean_wikitext(probe).count(TEMPLATE_HOLE) > w.clean_wikitext(silent).count(TEMPLATE_HOLE):
                        counts[name] += 1
                except w.WikitextError:
                    pass
    return counts, total


def kind(name):
    if w._is_silent(name):
        return "silent"
    if name in w._KEEP_TEMPLATES or name.startswith("lang-"):
        return "rendered before"
    if name in w._RENDER or name.startswith("formatnum:"):
        return "rendered now"
    if w._is_pronunciation(name):
        return "pronunciation"
    return "hole"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--names", action="store_true", help="the per-name table (slow: two cleans per template)")
    ap.add_argument("--sentences", type=int, default=0, help="print this many hole sentences (after)")
    args = ap.parse_args()
    if args.names:
        counts, total = per_name(args.dumps)
        print(f"templates inside a sentence: {sum(counts.values())} of {sum(total.values())} top-level templates")
        for name, c in counts.most_common():
            print(f"  {c:5d} {name!r:40} {kind(name)}")
    for label, fn in (("Discovery/DiscoFuse/SimSim (segment)", hole_sentences),
                      ("WikiSplit (BlockSegmenter)", wikisplit_sentences)):
        with before_issue_32():
            before = fn(args.dumps)
        after = fn(args.dumps)
        hb = sum(TEMPLATE_HOLE in s for _, s in before)
        ha = sum(TEMPLATE_HOLE in s for _, s in after)
        print(f"{label}: sentences with a hole: before {hb} of {len(before)} ({hb / max(1, len(before)):.2%}), "
              f"after {ha} of {len(after)} ({ha / max(1, len(after)):.2%})")
        if args.sentences and label.startswith("Discovery"):
            holes = [(t, s) for t, s in after if TEMPLATE_HOLE in s]
            for t, s in random.Random(0).sample(holes, min(args.sentences, len(holes))):
                print(f"    [{t}] {s.replace(TEMPLATE_HOLE, '{{…}}')}")


if __name__ == "__main__":
    main()
