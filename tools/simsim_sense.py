"""Measure the sense_changed check (issue 42) on blind-judged SimSim records (docs/simsim_judged/).

    .venv/bin/python tools/simsim_sense.py [docs/simsim_judged/*.sheet.txt ...] [--show]

For every judged record (s1, s2 and s3: the earlier runs had no substitution, so an s3 record's new
words are its back-translation's; dropping only removes words), whether miners.simsim.simulate.
sense_changed_words finds a new content word of the output related to none the source lost, and so
how many broken (`b`) records the check would catch and how many acceptable-or-slip (`a`, `s`) it
would drop. The keys hold no reason for a verdict: the records docs/SIMSIM_QUALITY.md names as
broken by a wrong word sense (SENSE_EXAMPLES, matched on the output) are counted apart. The source
shown is the complex side; a WikiSplit record's back-translation was made from its split side, so
its new words are counted against the complex side here. Needs WordNet (wordnet-base).
"""
import argparse
import collections
import glob
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.simsim_judged import judged  # noqa: E402  pylint: disable=wrong-import-position

# Wrong-sense records docs/SIMSIM_QUALITY.md cites from the readings (round 2 and round 3): the seed's
# word and the output's word that replaced it.
SENSE_EXAMPLES = (("coining", "stamp"), ("held", "kept"), ("following", "fan"), ("departed", "gone"),
                  ("atomic", "nuclear"), ("light", "clear"), ("cola", "glue"), ("spacecraft", "aircraft"),
                  ("higher", "taller"))


def _is_sense_example(row) -> bool:
    src, out = row["source"].lower().split(), row["output"].lower().split()
    return any(any(w.strip(".,;:\"'()") == a for w in src) and any(w.strip(".,;:\"'()") == b for w in out)
               and not any(w.strip(".,;:\"'()") == a for w in out) for a, b in SENSE_EXAMPLES)


def main(argv=None):
    from miners.simsim import simulate as simsim
    from miners.simsim.wordnet import WordNet
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sheets", nargs="*", default=sorted(glob.glob(str(ROOT / "docs/simsim_judged/*.sheet.txt"))))
    ap.add_argument("--show", action="store_true", help="print every record the check flags")
    args = ap.parse_args(argv)
    wn = WordNet.load()
    table = collections.defaultdict(collections.Counter)
    examples = collections.Counter()
    for sheet in args.sheets:
        name = pathlib.Path(sheet).name.replace(".sheet.txt", "")
        for row in judged(sheet):
            words = simsim.sense_changed_words(row["output"], row["source"], wn)
            good = row["verdict"] in ("a", "s")
            for key in (row["variant"], "all"):
                table[key]["good" if good else "broken"] += 1
                if words:
                    table[key]["good_dropped" if good else "broken_caught"] += 1
            if _is_sense_example(row):
                examples["n"] += 1
                examples["caught"] += bool(words)
                if args.show:
                    print(f"[sense example] {name} {row['item']} caught={bool(words)} {words}")
            if args.show and words:
                print(f"{name} {row['item']} {row['variant']} {row['verdict']} {words}\n  {row['source']}\n  "
                      f"{row['output']}")
    print(f"{'variant':<8}{'broken':>8}{'caught':>8}{'a+s':>6}{'dropped':>9}")
    for key in sorted(table, key=lambda k: (k == "all", k)):
        c = table[key]
        print(f"{key:<8}{c['broken']:>8}{c['broken_caught']:>8}{c['good']:>6}{c['good_dropped']:>9}")
    print(f"wrong-sense records named in docs/SIMSIM_QUALITY.md: {examples['caught']} of {examples['n']} caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
