"""Measure SimSim's candidate checks on blind-judged records (docs/simsim_judged/).

    .venv/bin/python tools/simsim_judged.py [docs/simsim_judged/round1-*.sheet.txt ...] [--bounds 2,3,4,5,6,8]
    .venv/bin/python tools/simsim_judged.py docs/simsim_judged/round{2,3,4,5,6}.sheet.txt --drift 0.93,0.94,0.95,0.96

Each sheet (`rewrite-mine blind draw`, verdicts written by a reader who did not write the checks) has
its key beside it (`X.sheet.txt` -> `X.key.tsv`). For every judged s1 / s2 record (a back-translation
and its source), prints per sheet and variant how many of the acceptable-or-slip (`a`, `s`) and of the
broken (`b`) records today's cheap checks (miners/simsim.CANDIDATE_REASONS) keep, and for each bound
on new word bigrams (the too_many_changes check) the share of good records among those kept. s3
records are left out of the checks (their text also carries the dropping step) but counted by new
bigrams. `--drift` prints, for each floor on BERTScore F1(output, source) (the meaning_drift check,
the job's own scorer), how many s2 / s3 records it keeps and the share of good ones among them, with
and without the pronoun_inserted check. The source shown to the reader is the complex side; for WikiSplit seeds the back-translation
was made from the split side, so their new-bigram counts are against the complex side here.
"""
import argparse
import collections
import csv
import glob
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def read_sheet(path):
    items, cur = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"== (\d+)", line)
            if m:
                cur = int(m.group(1))
                items[cur] = {}
                continue
            if cur is None:
                continue
            for field in ("source", "output", "verdict"):
                if line.startswith(field + ":"):
                    items[cur][field] = line[len(field) + 1:].strip()
            if line.startswith("verdict:"):  # "b # why": the letter, and the reader's words apart
                letter, _, why = items[cur]["verdict"].partition("#")
                items[cur]["verdict"], items[cur]["why"] = letter.strip(), why.strip()
    return items


def judged(sheet):
    key = sheet.replace(".sheet.txt", ".key.tsv")
    items = read_sheet(sheet)
    with open(key, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            it = items.get(int(row["item"]), {})
            if it.get("verdict") in ("a", "s", "b"):
                yield dict(row, **it)


def main(argv=None):
    from miners.simsim import simulate as simsim
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sheets", nargs="*", default=sorted(glob.glob(str(ROOT / "docs/simsim_judged/*.sheet.txt"))))
    ap.add_argument("--bounds", default="2,3,4,5,6,8")
    ap.add_argument("--drift", default="", help="floors of the meaning_drift check to measure, e.g. 0.94,0.95")
    args = ap.parse_args(argv)
    if args.drift:
        return drift_table(args.sheets, [float(x) for x in args.drift.split(",")])
    bounds = [int(b) for b in args.bounds.split(",")]
    for sheet in args.sheets:
        rows = list(judged(sheet))
        print(f"== {pathlib.Path(sheet).name}: {len(rows)} judged")
        for variant in ("s1", "s2", "s3"):
            vr = [r for r in rows if r["variant"] == variant]
            if not vr:
                continue
            good = sum(r["verdict"] in "as" for r in vr)
            line = [f"  {variant}: good {good}/{len(vr)}"]
            if variant != "s3":
                kept = [r for r in vr if simsim.candidate_reason(r["output"], r["source"]) is None]
                reasons = collections.Counter(simsim.candidate_reason(r["output"], r["source"]) or "kept"
                                              for r in vr if r["verdict"] == "b")
                line.append(f"| today's checks keep {sum(r['verdict'] in 'as' for r in kept)}/{len(kept)} good "
                            f"| broken ones by first failing check: {dict(sorted(reasons.items()))}")
            print(" ".join(line))
            for b in bounds:
                sel = [r for r in vr if simsim.new_bigrams(r["output"], r["source"]) <= b]
                g = sum(r["verdict"] in "as" for r in sel)
                print(f"    new bigrams <= {b}: {g}/{len(sel)} good ({g / len(sel):.0%})" if sel else
                      f"    new bigrams <= {b}: none")


def drift_table(sheets, floors):
    """Per variant and floor: records kept and good among them, with and without pronoun_inserted."""
    from miners.simsim import simulate as simsim
    from transforms.simsim import Params, _alignment_scorer
    rows = [r for sheet in sheets for r in judged(sheet) if r["variant"] in ("s2", "s3")]
    scores = _alignment_scorer(Params()).score([r["output"] for r in rows], [r["source"] for r in rows])
    for variant in ("s2", "s3"):
        vr = [(r, f) for r, f in zip(rows, scores) if r["variant"] == variant]
        good = sum(r["verdict"] in "as" for r, _ in vr)
        print(f"{variant}: {good}/{len(vr)} good ({good / len(vr):.0%}) in {len(sheets)} sheets")
        for floor in [0.0] + floors:
            for inserted in (False, True):
                sel = [r for r, f in vr if f >= floor and not (inserted and simsim.pronoun_inserted_reason(
                    r["output"], r["source"]))]
                g = sum(r["verdict"] in "as" for r in sel)
                print(f"  floor {floor:.2f}{' + pronoun_inserted' if inserted else ''}: keeps {len(sel)}/{len(vr)}, "
                      f"good {g} ({g / len(sel):.0%})" if sel else f"  floor {floor:.2f}: none kept")


if __name__ == "__main__":
    main()
