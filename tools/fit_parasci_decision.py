"""Fit the ParaSCI paraphrase decision (miners/parasci/decision.py) and write its JSON.

    .venv/bin/python tools/fit_parasci_decision.py [--target_per_paper 1.0] [--out FILE] [--dry_run]

Data (committed, in ../shared/data):
  positives  the released ParaSCI-ACL validation pairs (parasci/release-acl-val, 2,753 pairs,
             lower-cased and tokenised as released). A pair is held out when
             stable_hash(src + tgt) % 5 == 0 (about 20%); the model is fitted on the rest, and
             recall is reported on the held-out pairs only.
  negatives  every pair of sentences of one paper from two different intra-paper sections
             (miners.parasci.pairs.INTRA_SECTIONS), over the papers of scientific/ (27 files, a paper
             read from two formats kept once), sentences filtered as the job filters them. A few
             of these are true restatements (an abstract sentence in the conclusion): they count
             as negatives here, so the per-paper yield below is an upper bound of the wrong pairs.

Only pairs the job would ask the model about enter the fit and the figures: cosine >= the
search floor (--min_cosine), length rate < 1.0, and no rule reject (near-verbatim, number-only,
near-copy, negation or conditional mismatch, boilerplate). The negatives are every cross-section
pair, also of two body sections, which the job no longer asks about (`no_summary_section`): the
pairs-per-paper columns are an upper bound of what it writes. Features are computed on lower-cased word tokens (the
release's tokenisation does not change them); the embedding is the bundled MiniLM's (cached as
tools/calibrate_parasci.py caches it). Positives and negatives are weighted to equal total weight.

The threshold is chosen on the unit the user sees: the lowest probability at which the
negatives passing per paper stay <= --target_per_paper. Prints the coefficients, the held-out
recall, pairs per paper and the same figures for the crude rule of issue 16 (cosine >= 0.75 and
content-word Jaccard >= 0.35) for comparison, and writes miners/parasci/resources/decision.json.
"""
import argparse
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"
DEFAULT_PAPERS = ROOT.parent / "shared" / "data" / "scientific"
HELD_OUT_MOD = 5


def held_out(src: str, tgt: str) -> bool:
    """The held-out fifth of the release pairs (tools/plant_parasci.py plants these)."""
    from miners.hashing import stable_hash
    return stable_hash(f"{src}\t{tgt}", "parasci-decision") % HELD_OUT_MOD == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--papers", default=str(DEFAULT_PAPERS))
    parser.add_argument("--min_cosine", type=float, default=0.5, help="the candidate search's floor")
    parser.add_argument("--target_per_paper", type=float, default=2.5,
                        help="in-paper pairs written per paper (each sentence in its most probable pair "
                             "only, as the job writes them) at the chosen threshold")
    parser.add_argument("--partial_threshold", type=float, default=0.98,
                        help="minimum probability of an extracted partial pair (written to the model file; "
                             "chosen by reading extracted pairs on real papers, docs/PARASCI.md)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="write this threshold instead of the one --target_per_paper picks")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--features", default="", help="comma-separated subset of the decision's features "
                                                       "(default: all of miners.parasci.decision.FEATURES)")
    parser.add_argument("--out", default="", help="default: miners/parasci/resources/decision.json")
    parser.add_argument("--dry_run", action="store_true", help="print, write nothing")
    args = parser.parse_args(argv)

    import numpy as np
    from calibrate_parasci import embed_cached, paper_groups, read_pairs, read_papers
    from miners.parasci import pairs as ps
    from miners.parasci import decision as pd
    from miners.nlp.embed import SentenceEmbedder

    t0 = time.time()
    names = tuple(n for n in args.features.split(",") if n) if args.features else pd.FEATURES
    unknown = set(names) - set(pd.FEATURES)
    if unknown:
        raise SystemExit(f"unknown features {sorted(unknown)}; known: {', '.join(pd.FEATURES)}")
    pos = read_pairs(args.data)
    groups = paper_groups(read_papers(args.papers))
    embedder = SentenceEmbedder(None).load()
    texts = sorted({t for p in pos for t in p} | {t for _, ss in groups for _, t in ss})
    vecs = embed_cached(embedder, texts)
    row = {t: i for i, t in enumerate(texts)}

    def usable(a, b, c):
        return c >= args.min_cosine and ps.length_rate(a, b) < ps.MAX_LENGTH_RATE and pd.rule_reason(a, b) is None

    pos_rows = []  # (features, held_out, usable)
    for a, b in pos:
        c = float(vecs[row[a]] @ vecs[row[b]])
        pos_rows.append((pd.features(a, b, c), held_out(a, b), usable(a, b, c), (a, b)))
    neg_rows, neg_paper, rules = [], [], {}
    for pid, sents in groups:
        if len(sents) < 2:
            continue
        m = vecs[[row[t] for _, t in sents]]
        sims = m @ m.T
        for i in range(len(sents)):
            for j in range(i + 1, len(sents)):
                if sents[i][0] == sents[j][0] or sims[i, j] < args.min_cosine:
                    continue
                a, b = sents[i][1], sents[j][1]
                reason = pd.rule_reason(a, b)
                if reason:
                    rules[reason] = rules.get(reason, 0) + 1
                    continue
                if ps.length_rate(a, b) >= ps.MAX_LENGTH_RATE:
                    continue
                neg_rows.append((pd.features(a, b, float(sims[i, j])), (a, b)))
                neg_paper.append(pid)
    n_papers = sum(1 for _, ss in groups if ss)

    def matrix(rows):
        return np.array([[f[n] for n in names] for f in rows], dtype=np.float64)

    train = [r for r in pos_rows if not r[1] and r[2]]
    x_pos, x_neg = matrix([r[0] for r in train]), matrix([r[0] for r in neg_rows])
    x = np.vstack([x_pos, x_neg])
    y = np.concatenate([np.ones(len(x_pos)), np.zeros(len(x_neg))])
    sw = np.concatenate([np.full(len(x_pos), len(x) / (2 * len(x_pos))), np.full(len(x_neg), len(x) / (2 * len(x_neg)))])
    w, b0 = pd.fit_logistic(x, y, l2=args.l2, sample_weight=sw)
    model = pd.Decision(weights=tuple(float(v) for v in w), intercept=b0, threshold=0.5, feature_names=names,
                        min_cosine=args.min_cosine)

    test = [r for r in pos_rows if r[1]]
    p_test = np.array([model.probability(r[0]) if r[2] else -1.0 for r in test])
    p_neg = np.array([model.probability(r[0]) for r in neg_rows])

    def at(threshold):
        return float(np.mean(p_test >= threshold)), float(np.sum(p_neg >= threshold)) / n_papers

    def mutual_best(threshold):
        """In-paper pairs per paper once each sentence keeps only its most probable partner and a
        pair is kept when it is the best of both its sentences (what the job writes)."""
        best = {}
        for i in np.nonzero(p_neg >= threshold)[0]:
            a, b = neg_rows[i][1]
            for sid in ((neg_paper[i], a), (neg_paper[i], b)):
                if sid not in best or (p_neg[i], -i) > (p_neg[best[sid]], -best[sid]):
                    best[sid] = i
        kept = [i for i in set(best.values())
                if best[(neg_paper[i], neg_rows[i][1][0])] == i and best[(neg_paper[i], neg_rows[i][1][1])] == i]
        return len(kept) / n_papers

    grid = sorted({round(t, 3) for t in np.linspace(0.2, 0.999, 800)})
    chosen = next((t for t in grid if mutual_best(t) <= args.target_per_paper), grid[-1])
    if args.threshold is not None:
        chosen = args.threshold
    recall, per_paper = at(chosen)
    # The crude rule of issue 16, on the same pairs.
    crude_test = np.array([r[2] and r[0]["cosine"] >= 0.75 and r[0]["content_jaccard"] >= 0.35 for r in test])
    crude_neg = np.array([r[0]["cosine"] >= 0.75 and r[0]["content_jaccard"] >= 0.35 for r in neg_rows])
    usable_recall = float(np.mean([r[2] for r in test]))

    print(f"positives {len(pos)} (fit {len(train)} usable of {len(pos) - len(test)}; held out {len(test)}, "
          f"{usable_recall:.3f} of them usable: cosine >= {args.min_cosine}, PLR < 1, no rule reject)")
    print(f"negatives {len(neg_rows)} in-paper cross-section pairs over {n_papers} papers (cosine >= "
          f"{args.min_cosine}, PLR < 1); rule rejects among in-paper pairs above the floor: {rules}")
    print("coefficients: " + ", ".join(f"{n} {v:+.3f}" for n, v in zip(names, w)) + f", intercept {b0:+.3f}")
    print(f"{'p >=':>6} {'held-out recall':>16} {'in-paper pairs/paper':>21} {'mutual best/paper':>18}")
    for t in sorted({0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99, chosen}):
        r, n = at(t)
        print(f"{t:>6.3f} {r:>16.3f} {n:>21.2f} {mutual_best(t):>18.2f}" + ("   <- chosen" if t == chosen else ""))
    print(f"crude rule (cosine >= 0.75 and Jaccard >= 0.35): held-out recall {float(np.mean(crude_test)):.3f}, "
          f"in-paper pairs/paper {float(np.sum(crude_neg)) / n_papers:.2f}")
    order = np.argsort(-p_neg, kind="stable")[:12]
    print("in-paper pairs with the highest probability:")
    for i in order:
        a, b = neg_rows[i][1]
        print(f"  {p_neg[i]:.3f} cos {neg_rows[i][0]['cosine']:.3f}\n    {a[:160]}\n    {b[:160]}")
    out = {"features": list(names), "coefficients": {n: float(v) for n, v in zip(names, w)},
           "intercept": b0, "threshold": chosen, "partial_threshold": args.partial_threshold,
           "min_cosine": args.min_cosine,
           "fit": {"command": "tools/fit_parasci_decision.py" + (f" --target_per_paper {args.target_per_paper}"
                                                                  if args.target_per_paper != 2.5 else "")
                              + (f" --features {','.join(names)}" if args.features else "")
                              + (f" --threshold {args.threshold}" if args.threshold is not None else ""),
                   "positives_fit": len(train), "positives_held_out": len(test),
                   "negatives": len(neg_rows), "papers": n_papers, "l2": args.l2,
                   "target_per_paper": args.target_per_paper,
                   "held_out_recall": round(recall, 4), "in_paper_pairs_per_paper": round(per_paper, 3),
                   "in_paper_pairs_per_paper_mutual_best": round(mutual_best(chosen), 3),
                   "crude_rule_recall": round(float(np.mean(crude_test)), 4),
                   "crude_rule_pairs_per_paper": round(float(np.sum(crude_neg)) / n_papers, 3)}}
    print(f"chosen threshold {chosen}: held-out recall {recall:.3f} (of all held-out pairs), "
          f"{per_paper:.2f} in-paper pairs per paper; {time.time() - t0:.0f}s")
    if not args.dry_run:
        path = pathlib.Path(args.out or pd.DEFAULT_MODEL)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
