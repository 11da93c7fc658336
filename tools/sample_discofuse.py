"""Draw a seeded random sample of DiscoFuse examples from a job's release TSVs, for judging by hand.

    python tools/sample_discofuse.py OUT/fusion/full --seed 18 -n 100 > sample.tsv

Reads every `*.tsv` under the given folder (all splits), keeps the rows whose discourse_type is
not PAIR_NONE (or only --type), sorts them (shard order does not matter) and draws n with
random.Random(seed). Prints: index, discourse_type, coherent, incoherent first | second.

A blind reading (../shared/READING.md) takes `--blind_sheet SHEET --key KEY`: the draw shuffled again with
the same seed, runs of spaces collapsed (spacing tells nothing), and the sheet holds only what the reader
judges (item, the fused input, the two output sentences as the dataset gives them); the key (item, type,
connective, the row's columns) goes to another file.
"""
import argparse
import pathlib
import random
import re


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--type", default="", help="only this discourse_type")
    ap.add_argument("--judge_sheet", action="store_true",
                    help="a sheet for a judge: a header, then item, label (type and connective), original, s1, s2")
    ap.add_argument("--blind_sheet", default="", help="write a blind sheet here (with --key)")
    ap.add_argument("--key", default="", help="the blind sheet's key: item -> type, connective, row")
    args = ap.parse_args(argv)
    rows = set()
    for p in sorted(pathlib.Path(args.folder).rglob("*.tsv")):
        lines = p.read_text(encoding="utf-8").splitlines()
        for line in lines[1:]:
            cols = line.split("\t")
            if cols[4] != "PAIR_NONE" and (not args.type or cols[4] == args.type):
                rows.add(tuple(cols))
    rows = sorted(rows)
    picked = random.Random(args.seed).sample(rows, min(args.n, len(rows)))
    print(f"# {len(rows)} non-PAIR_NONE rows under {args.folder}; seed {args.seed}; n {len(picked)}")
    if args.blind_sheet:
        if not args.key:
            ap.error("--blind_sheet needs --key")
        random.Random(args.seed).shuffle(picked)
        with open(args.blind_sheet, "w", encoding="utf-8") as sheet, open(args.key, "w", encoding="utf-8") as key:
            sheet.write("item\tinput\toutput 1\toutput 2\n")
            key.write("item\tdiscourse_type\tconnective\t" + "\t".join(
                ("coherent_first_sentence", "coherent_second_sentence", "incoherent_first_sentence",
                 "incoherent_second_sentence")) + "\n")
            for i, r in enumerate(picked, 1):
                sheet.write(f"{i}\t{_collapse(r[0] + ' ' + r[1])}\t{_collapse(r[2])}\t{_collapse(r[3])}\n")
                key.write(f"{i}\t{r[4]}\t{r[5]}\t" + "\t".join(r[:4]) + "\n")
        print(f"# sheet {args.blind_sheet}, key {args.key}")
        return
    if args.judge_sheet:
        print("item\tlabel\toriginal\ts1\ts2")
        for i, r in enumerate(picked, 1):
            label = r[4] + (f" ({r[5]})" if r[5] else "")
            print(f"{i}\t{label}\t{(r[0] + ' ' + r[1]).strip()}\t{r[2]}\t{r[3]}")
        return
    for i, r in enumerate(picked, 1):
        coherent = (r[0] + " " + r[1]).strip()
        print(f"{i}\t{r[4]}\t{r[5]}\t{coherent}\t{r[2]} | {r[3]}")


if __name__ == "__main__":
    main()
