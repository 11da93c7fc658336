"""Share of an excerpt's sentences that lid.176 keeps at each threshold (docs/LANGUAGES.md, item 4).

    PYTHONPATH=. python tools/measure_langid.py ../shared/data/wikipedia/multilingual/ukwiki-*.bz2:uk ...

Sentences: the excerpt's articles as the reader cleans them, cut by the language's segmenter
(`miners.text.sentences`), kept when Discovery's model-free filters pass (`miners.discovery.pairs.sentence_reason`;
zh/ja: 10 characters or more and no length bound). Prints the share whose top label is the language,
the share kept at each threshold, the other labels, and `--show` random rejected sentences at 0.75.
"""
import argparse
import collections
import random

from miners.discovery import pairs as discovery
from miners.text import sentences
from miners.nlp.langid import LanguageIdentifier, lid_label
from miners.sources.wiki import iter_wiki_articles
from schemas.records import Document

THRESHOLDS = (0.25, 0.5, 0.6, 0.75, 0.9)


def excerpt_sentences(path, lang):
    loose = discovery.DiscoveryConfig(min_words=1, max_words=10 ** 6)
    out = []
    for doc in iter_wiki_articles(path, path, "markers"):
        if not isinstance(doc, Document):
            continue
        for s in sentences.segment(doc.text, lang)[0]:
            if lang in ("zh", "ja"):
                if len(s) >= 10 and discovery.sentence_reason(s, loose) is None:
                    out.append(s)
            elif discovery.sentence_reason(s) is None:
                out.append(s)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("excerpts", nargs="+", help="PATH:LANG")
    ap.add_argument("--show", type=int, default=6)
    args = ap.parse_args()
    lid = LanguageIdentifier()
    for spec in args.excerpts:
        path, lang = spec.rsplit(":", 1)
        sents = excerpt_sentences(path, lang)
        preds = lid.predict(sents)
        label = lid_label(lang)
        n = max(1, len(sents))
        top = collections.Counter(l for l, _ in preds)
        kept = {t: sum(1 for l, p in preds if l == label and p > t) / n for t in THRESHOLDS}
        print(f"{lang}: {len(sents)} sentences, top label {label} {top[label] / n:.1%}; kept "
              + ", ".join(f"> {t}: {k:.1%}" for t, k in kept.items()) + f"; labels {top.most_common(5)}")
        rejected = [(s, l, p) for s, (l, p) in zip(sents, preds) if not (l == label and p > 0.75)]
        random.Random(0).shuffle(rejected)
        for s, l, p in rejected[:args.show]:
            print(f"   rejected {l} {p:.2f} {s[:150]}")


if __name__ == "__main__":
    main()
