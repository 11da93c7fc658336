"""Figures and a random sample of what `rewrite-mine parasci` wrote, for reading by hand.

    .venv/bin/python tools/sample_parasci.py OUTPUT [--n 30] [--seed 0] [--planted N] [--min_probability P]

Reads OUTPUT/sci_para/base/*/*.tfrecord. With --planted N, pairs with a sentence of the first N
held-out ParaSCI pairs (what tools/plant_parasci.py planted with --n_intra + --n_citation = N)
on either side are left out, so the figures
and the sample describe the pairs mined from the real papers only. Prints the pairs per paper (papers
read, duplicates left out, from the manifest), Self-BLEU of the pairs (corpus BLEU-4 of tgt against
src, as Table 2), the count per method, and N pairs drawn at random (seeded) with their method,
sections, cosine and the decision's probability.
"""
import argparse
import glob
import json
import os
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--planted", type=int, default=0)
    parser.add_argument("--all_pairs", action="store_true", help="the run planted with --all_pairs")
    parser.add_argument("--min_probability", type=float, default=0.0,
                        help="keep the pairs whose decision probability reaches P: what the job writes with "
                             "--decision_threshold P, for any P at or above the run's threshold (a pair lost "
                             "to a better pair of one of its sentences lost to one more probable, so raising "
                             "the threshold revives none)")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"))
    args = parser.parse_args(argv)

    import sacrebleu
    from miners.parasci.decision import tokens
    from schemas.records import SciParaphraseExample
    from transforms.sinks import read_records

    from plant_parasci import planted_pairs
    planted = {" ".join(tokens(t)) for p in planted_pairs(args.data, distinct=not args.all_pairs)[:args.planted]
               for t in p}
    shards = sorted(glob.glob(os.path.join(args.output, "sci_para", "base", "*", "*.tfrecord")))
    # A pair with a planted sentence on either side is left out (two planted sentences can pair up).
    records = [r for r in read_records(shards, SciParaphraseExample)
               if " ".join(tokens(r.src)) not in planted and " ".join(tokens(r.tgt)) not in planted
               and r.paraphrase_probability >= args.min_probability]
    records.sort(key=lambda r: (r.paper_id, r.other_paper_id, r.src, r.tgt))
    with open(os.path.join(args.output, "sci_para", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    papers = manifest["counts"]["stages"]["papers"]["passed"]
    per_method = {}
    for r in records:
        per_method[r.method] = per_method.get(r.method, 0) + 1
    bleu = sacrebleu.corpus_bleu([r.tgt for r in records], [[r.src for r in records]]).score if records else 0.0
    print(f"{len(records)} pairs (planted left out: {args.planted}) from {papers} papers: "
          f"{len(records) / max(papers, 1):.2f} pairs per paper; Self-BLEU {bleu:.1f}; per method {per_method}")
    sample = random.Random(args.seed).sample(records, min(args.n, len(records)))
    for i, r in enumerate(sample, 1):
        print(f"\n[{i}] {r.method} {r.paper_id}:{r.section} / {r.other_paper_id}:{r.other_section} "
              f"cos {r.similarity:.3f} p {r.paraphrase_probability:.3f} bertscore {r.bertscore:.3f}")
        print(f"  A: {r.src}\n  B: {r.tgt}")
    return {"pairs": len(records), "papers": papers, "self_bleu": bleu, "per_method": per_method}


if __name__ == "__main__":
    main()
