"""Sentence-boundary accuracy of the segmenters against gold sentences of Universal Dependencies treebanks.

    PYTHONPATH=. python tools/measure_segmenter.py ../shared/data/ud/fr_gsd-ud-test.conllu:fr \\
        ../shared/data/ud/fr_gsd-ud-test.conllu:fr:5 ../shared/data/ud/uk_iu-ud-test.conllu:uk \\
        --wikisplit ../shared/data/wikisplit/tune.tsv

Documents are rebuilt from the treebank: the `# text =` sentences of one paragraph (`# newpar`,
`# newdoc`) joined by one space. A treebank without paragraph marks (French-GSD: its sentences
come from many documents, in no reading order) is one paragraph, or with `:N` paragraphs of N
consecutive sentences. Each paragraph is segmented on its own (the pipelines cut paragraphs
first), so only boundaries inside a paragraph are scored.

English has no gold treebank here; `--wikisplit tune.tsv` scores the English proxy: each pair of
the WikiSplit tuning split, detokenized, gives the paragraph "simple1 simple2" (one boundary) and
the paragraph "complex" (none). Its sentences were cut by a machine, not by annotators. Printed per segmenter: boundary precision, recall and F1 (a boundary
is the character offset where a sentence ends, whitespace ignored), and exact sentences (gold
sentences reproduced character for character, as a share of the gold sentences).

Segmenters: `current` (miners.text.segmenter.split_sentences, the English segmenter), `language`
(miners.text.sentences.splitter_for(LANG)) and, when the package is importable, `sentencex`
(Wikimedia's; `pip install sentencex`; not a dependency of the project).
"""
import bz2
import sys
from typing import Callable, Dict, List, Sequence, Tuple


def read_paragraphs(path: str) -> List[List[str]]:
    """Gold sentences grouped by paragraph, in file order (`.conllu`, or `.conllu.bz2` as bundled)."""
    paragraphs: List[List[str]] = []
    current: List[str] = []
    opener = bz2.open if path.endswith(".bz2") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("# newdoc") or line.startswith("# newpar"):
                if current:
                    paragraphs.append(current)
                current = []
            elif line.startswith("# text = "):
                current.append(line[len("# text = "):].strip())
    if current:
        paragraphs.append(current)
    return paragraphs


def _ends(sentences: Sequence[str]) -> Tuple[set, str]:
    """Offsets (in the text without whitespace) where each sentence but the last ends."""
    ends, n = set(), 0
    for s in sentences[:-1]:
        n += len("".join(s.split()))
        ends.add(n)
    return ends, "".join("".join(sentences).split())


def score(paragraphs: List[List[str]], split: Callable[[str], List[str]]) -> Dict[str, float]:
    tp = fp = fn = exact = gold_total = 0
    for gold in paragraphs:
        text = " ".join(gold)
        pred = [s.strip() for s in split(text) if s.strip()]
        g, g_chars = _ends(gold)
        p, p_chars = _ends(pred)
        if g_chars != p_chars:
            raise ValueError(f"segmenter changed the text: {text[:80]!r}")
        tp += len(g & p)
        fp += len(p - g)
        fn += len(g - p)
        exact += len(set(gold) & set(pred))
        gold_total += len(gold)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"boundaries": tp + fn, "precision": precision, "recall": recall, "f1": f1,
            "exact": exact / gold_total if gold_total else 1.0, "sentences": gold_total, "fp": fp, "fn": fn}


_ANY_STOP = ".!?\u2026\u3002\uff01\uff1f\u0964\u0589"


def _grouped(paragraphs: List[List[str]], group: str) -> List[List[str]]:
    if not group:
        return paragraphs
    n = int(group)
    return [p[i:i + n] for p in paragraphs for i in range(0, len(p), n)]


def segmenters(lang: str) -> Dict[str, Callable[[str], List[str]]]:
    from miners.text import sentences  # pylint: disable=import-outside-toplevel
    from miners.text import segmenter as text  # pylint: disable=import-outside-toplevel
    out = {"current": text.split_sentences, "language": sentences.splitter_for(lang)}
    try:
        import sentencex  # pylint: disable=import-outside-toplevel
        out["sentencex"] = lambda t: list(sentencex.segment(lang, t))
    except ImportError:
        pass
    return out


def read_wikisplit(path: str) -> List[List[str]]:
    """English proxy paragraphs from WikiSplit pairs: [simple1, simple2] and [complex] per line."""
    from schemas.release import detokenize_punct  # pylint: disable=import-outside-toplevel
    paragraphs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            complex_, _, simple = line.rstrip("\n").partition("\t")
            s1, _, s2 = simple.partition(" <::::> ")
            if complex_ and s1 and s2:
                paragraphs.append([detokenize_punct(s1), detokenize_punct(s2)])
                paragraphs.append([detokenize_punct(complex_)])
    return paragraphs


def main(argv=None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    jobs = []
    while args:
        arg = args.pop(0)
        if arg == "--wikisplit":
            jobs.append((args.pop(0), "en", read_wikisplit))
            continue
        path, lang, group = (arg.split(":") + [""])[:3]
        jobs.append((arg, lang, lambda p, path=path, group=group: _grouped(read_paragraphs(path), group)))
    for name, lang, read in jobs:
        path = name.split(":")[0]
        paragraphs = read(path)
        bare = sum(1 for p in paragraphs for s in p[:-1] if not s.rstrip("\"'\u00bb\u201d)]\u300d ")[-1:] in _ANY_STOP)
        print(f"{name} ({lang}): {sum(map(len, paragraphs))} sentences in {len(paragraphs)} paragraphs; "
              f"{bare} gold boundaries follow no stop (. ! ? 。 ...), out of reach of a punctuation rule")
        for name, split in segmenters(lang).items():
            r = score(paragraphs, split)
            print(f"  {name:<10} P {r['precision']:.3f}  R {r['recall']:.3f}  F1 {r['f1']:.3f}  "
                  f"exact {r['exact']:.3f}  ({r['boundaries']} gold boundaries, {r['fp']} false, {r['fn']} missed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
