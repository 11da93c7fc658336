"""Share of SimSim candidates carrying a word that is in neither side of the seed nor in English.

    python bench/untranslated_share.py OUT_DIR SEEDS.tsv [SEEDS.tsv ...]

OUT_DIR is a `rewrite-mine simsim --output` directory; the seeds are the `complex \\t simple`
(or WikiSplit `complex \\t s1 <::::> s2`) files it was run on. A record is counted when its
`simple` side has a lower-case word (letters only) that neither side of its seed pair nor the
CMU Pronouncing Dictionary (miners/simsim/english_words.py) has: what a back-translation leaves
of its pivot language ("demarç", "laborojde"). Printed per variant: records, flagged, share,
and the flagged words; then the same with the job's English dictionary (CMU and the system word
lists of wamerican / wbritish: CMU lacks many plurals, superlatives and British spellings,
"chevrons", "readiest", "favourable").
"""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def seed_words(paths):
    """complex side (detokenized as the job reads it) -> words of both sides of its seed."""
    from schemas.records import SplitExample
    out = {}
    for path in paths:
        for line in open(path, encoding="utf-8", errors="replace"):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 2:
                continue
            if "<::::>" in cols[1]:
                ex = SplitExample.from_row(cols[:2])
                complex_, simple = ex.complex, f"{ex.simple1} {ex.simple2}"
            else:
                complex_, simple = cols[0].strip(), cols[1].strip()
            out[complex_] = {w.lower() for w in _WORD.findall(f"{complex_} {simple}")}
    return out


def main(out_dir, seed_paths):
    from miners.simsim import english_words
    from schemas.records import SimplificationExample
    from transforms.sinks import read_records
    words = english_words.load(lists=False)
    full = english_words.load()
    seeds = seed_words(seed_paths)
    for variant in ("s1", "s2", "s3"):
        files = sorted(str(p) for p in (pathlib.Path(out_dir) / "simplify" / variant).glob("*/*.tfrecord"))
        records = read_records(files, SimplificationExample) if files else []
        flagged, examples, flagged_lenient = 0, collections.Counter(), collections.Counter()
        n_lenient = 0
        for r in records:
            have = seeds.get(r.complex, set())
            bad = [w for w in _WORD.findall(r.simple) if w[:1].islower() and w.lower() not in have
                   and w.lower() not in words and w.lower().split("'")[0] not in words]
            if bad:
                flagged += 1
                examples.update(bad)
                still = [w for w in bad if w.lower() not in full and w.lower().split("'")[0] not in full]
                if still:
                    n_lenient += 1
                    flagged_lenient.update(still)
        n = len(records)
        if not n:
            print(f"{variant}: no records")
            continue
        print(f"{variant}: {n} records, {flagged} with a word in neither the seed nor the CMU dictionary "
              f"({flagged / n:.1%}): {', '.join(w for w, _ in examples.most_common(30))}")
        print(f"{variant}: the job's dictionary (CMU + {', '.join(english_words.word_lists()) or 'no word lists'}): "
              f"{n_lenient} ({n_lenient / n:.1%}): "
              f"{', '.join(w for w, _ in flagged_lenient.most_common(30))}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
