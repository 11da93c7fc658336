"""What SimSim's candidate checks (issue 34) would reject of an existing output made without them.

    .venv/bin/python tools/simsim_checks.py OUTPUT/simplify --pairs ../shared/data/wikisplit/tune.tsv \\
        [--show 10] [--seed 0]

Reads the s1 and s2 records of a run (every split), rebuilds each record's seed text (the text the
back-translation was made from: the complex side of a text seed, the split side of a WikiSplit row
found in --pairs by its id `<file>:<line>`), runs the cheap checks of miners/simsim/simulate.py in order
(apertium_mark, entity_changed, broken_sequence) and prints, per variant, how many records each
check rejects (the first failing check counts), `--show` random rejects of each check (seeded), and
the language model's margin (simple_nll - base_nll) of the s2 records each check rejects against
those all checks keep: whether a margin on the trigram model would separate them.
"""
import argparse
import collections
import pathlib
import random
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _seed_texts(pair_files):
    from schemas.records import SplitExample
    out = {}
    for path in pair_files:
        name = pathlib.Path(path).name
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 2 and "<::::>" in cols[1]:
                    try:
                        split = SplitExample.from_row(cols[:2])
                    except Exception:  # noqa: BLE001 - the job rejected it too
                        continue
                    out[f"{name}:{n}"] = f"{split.simple1} {split.simple2}"
    return out


def main(argv=None):
    from miners.simsim import simulate as simsim
    from pipelines.show import load_manifest
    from schemas.records import SimplificationExample
    from transforms.sinks import read_records
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output")
    ap.add_argument("--pairs", action="append", default=[])
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    out = pathlib.Path(args.output)
    manifest = load_manifest(str(out / "manifest.json"))
    bases = _seed_texts(args.pairs)
    for variant in ("s1", "s2"):
        paths = [str(p) for split in manifest["splits"] for p in sorted((out / variant / split).glob("*.tfrecord"))]
        records = sorted(read_records(paths, SimplificationExample), key=lambda r: (r.doc_id, r.simple, r.method))
        rejected = collections.defaultdict(list)
        kept_margin = []
        for r in records:
            base = bases.get(r.doc_id, r.complex) if r.seed_kind == "wikisplit" else r.complex
            reason = simsim.candidate_reason(r.simple, base)
            if reason:
                rejected[reason].append((base, r))
            else:
                kept_margin.append(r.simple_nll - r.base_nll)
        total = len(records)
        n_rej = sum(len(v) for v in rejected.values())
        print(f"\n== {variant}: {total} records; the checks reject {n_rej} ({n_rej / max(1, total):.1%}), keep "
              f"{total - n_rej}")
        for reason in simsim.CANDIDATE_REASONS:
            got = rejected.get(reason, [])
            line = f"  {reason:<16} {len(got):>6} ({len(got) / max(1, total):.1%})"
            if variant == "s2" and got:
                margins = [r.simple_nll - r.base_nll for _, r in got]
                line += f"  margin median {statistics.median(margins):+.3f}"
            print(line)
        if variant == "s2" and kept_margin:
            qs = statistics.quantiles(kept_margin, n=4)
            print(f"  kept: margin median {statistics.median(kept_margin):+.3f}, quartiles {qs[0]:+.3f} / {qs[2]:+.3f}")
        if args.show:
            for reason in simsim.CANDIDATE_REASONS:
                got = rejected.get(reason, [])
                for base, r in random.Random(f"{args.seed}|{variant}|{reason}").sample(got, min(args.show, len(got))):
                    print(f"  [{reason}] {' '.join(base.split())}\n      -> {' '.join(r.simple.split())}")


if __name__ == "__main__":
    main()
