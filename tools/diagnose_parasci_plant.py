"""Where planted ParaSCI pairs are lost: the job's stages in memory, counted per planted pair.

    .venv/bin/python tools/diagnose_parasci_plant.py [--n_intra 40] [--n_citation 40] [--show N]

Plants the held-out pairs as tools/plant_parasci.py does (same pairs, same hosts), then runs the
stages of transforms/parasci.py in memory with the miner's own functions on the host papers only
(the five S2ORC 2020/2021 papers; the other papers cannot hold a planted sentence) and prints how
many planted pairs survive each stage:

  segmented   both planted texts come out of the segmenter as one sentence each
  filtered    both pass the sentence filters (length, letters, boilerplate, roadmap)
  searched    the pair is a candidate: in one group, above the search floor, in a top-k
  whole       the candidate is a whole pair (not sent to partial extraction: the extracted part
              would not be the planted text)
  decision    the decision keeps it (rules, then the model)
  filters     both sentences stand alone (a clause, no forward reference), BERTScore and the
              length rate (§4.2)
  best_pair   it is the best pair of both its sentences (among the whole pairs of the same run)

With --show N, prints the first N losses of each stage with their figures.
"""
import argparse
import os
import pathlib
import shutil
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

STAGES = ("planted", "segmented", "filtered", "searched", "whole", "decision", "filters", "best_pair")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"))
    parser.add_argument("--papers", default=str(ROOT.parent / "shared" / "data" / "scientific"))
    parser.add_argument("--n_intra", type=int, default=40)
    parser.add_argument("--n_citation", type=int, default=40)
    parser.add_argument("--top_k", type=int, default=5)
    parser.add_argument("--decision_model", default="")
    parser.add_argument("--decision_threshold", type=float, default=None)
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--all_pairs", action="store_true", help="as tools/plant_parasci.py --all_pairs")
    args = parser.parse_args(argv)

    import numpy as np
    from plant_parasci import key, plant, planted_pairs
    from miners.parasci import neighbors
    from miners.parasci import pairs as ps
    from miners.parasci import decision as pd
    from miners.nlp.embed import SentenceEmbedder
    from miners.parasci.papers.reader import iter_papers
    from miners.quality.scoring import BertScorer
    from miners.text.segmenter import split_sentences
    from schemas.papers import Paper

    decision = pd.Decision.load(args.decision_model)
    if args.decision_threshold is not None:
        decision = decision.with_threshold(args.decision_threshold)
    t = ps.Thresholds(decision=decision)
    test = planted_pairs(args.data, distinct=not args.all_pairs)
    intra = test[:args.n_intra]
    citation = test[args.n_intra:args.n_intra + args.n_citation]
    work = tempfile.mkdtemp(prefix="diagnose_parasci-")
    try:
        hosts = plant(args.papers, work, intra, citation)
        papers = []
        for h in hosts:
            path = os.path.join(work, os.path.relpath(h, args.papers))
            papers += [p for p in iter_papers(path, path, ps.DATASET) if isinstance(p, Paper)]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    sentences = []
    for paper in papers:
        for s in ps.paper_sentences(paper, split_sentences):
            sentences.append((s, ps.sentence_reason(s.text)))
    by_key = {}
    for s, reason in sentences:
        by_key.setdefault((s.paper_id, " ".join(pd.tokens(s.text))), []).append((s, reason))
    kept = [s for s, reason in sentences if reason is None]
    embedder = SentenceEmbedder(None).load()
    vecs = embedder.encode([s.text for s in kept])
    row = {(s.paper_id, s.index): i for i, s in enumerate(kept)}

    # Candidates as FindCandidates makes them: intra_paper per paper (six sections, labelled by
    # section), same_citation per cited key (labelled by paper).
    groups = {}
    for s in kept:
        if s.section in ps.INTRA_SECTIONS:
            groups.setdefault(("intra_paper", s.paper_id), []).append((s, s.section))
        for k in s.cite_keys:
            groups.setdefault(("same_citation", k), []).append((s, s.paper_id))
    candidates = {}
    for (method, group), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        m = np.stack([vecs[row[(s.paper_id, s.index)]] for s, _ in members])
        for i, j, sim in neighbors.self_pairs(m, k=args.top_k, threshold=t.search_floor(),
                                              labels=[lab for _, lab in members], exclude_same=True):
            a, b = ps.order_pair(members[i][0], members[j][0])
            candidates.setdefault((method, a.paper_id, a.index, b.paper_id, b.index),
                                  ps.Candidate(method, a, b, float(sim), group))
    records, by_pair = [], {}
    for ck, c in sorted(candidates.items()):
        action, reason, p = ps.decide_candidate(c, t)
        by_pair[ck] = (c, action, reason, p)
        if action == "pair":
            records.append(ps.make_example(c, probability=p))
    scorer = BertScorer(None).load()
    scores = scorer.score([r.tgt for r in records], [r.src for r in records])
    import dataclasses
    records = [dataclasses.replace(r, bertscore=s) for r, s in zip(records, scores)]
    from miners.nlp.pos import load_tagger_parser
    stand_alone = ps.stand_alone_reasons(load_tagger_parser(), records)
    filter_why = {key(r.src, r.tgt): why or ps.filter_reason(r, t) for r, why in zip(records, stand_alone)}
    passed = [r for r in records if filter_why[key(r.src, r.tgt)] is None]
    best, _ = ps.best_pairs(passed)
    best_keys = {key(r.src, r.tgt) for r in best}
    passed_keys = {key(r.src, r.tgt): r for r in passed}

    def rank_of(r):
        """The better pairs of r's two sentences (what beat it)."""
        out = []
        for sid in ps.sentence_ids(r):
            for o in passed:
                if o is not r and sid in ps.sentence_ids(o) and ps.pair_rank(o) < ps.pair_rank(r):
                    out.append(o)
        return out

    counts = {kind: {st: 0 for st in STAGES} for kind in ("intra", "citation")}
    losses = {st: [] for st in STAGES}
    hosts_ids = [p.id for p in papers]
    for kind, pairs in (("intra", intra), ("citation", citation)):
        for i, (a, b) in enumerate(pairs):
            c = counts[kind]
            c["planted"] += 1
            pa = hosts_ids[i % len(hosts_ids)]
            pb = pa if kind == "intra" else hosts_ids[(i + 1) % len(hosts_ids)]
            sa = by_key.get((pa, " ".join(pd.tokens(a))))
            sb = by_key.get((pb, " ".join(pd.tokens(b))))
            if not sa or not sb:
                losses["segmented"].append((kind, a, b, "missing: " + ("a" if not sa else "b")))
                continue
            c["segmented"] += 1
            (xa, ra), (xb, rb) = sa[0], sb[0]
            if ra or rb:
                losses["filtered"].append((kind, a, b, f"{ra} / {rb}"))
                continue
            c["filtered"] += 1
            x, y = ps.order_pair(xa, xb)
            method = "intra_paper" if kind == "intra" else "same_citation"
            found = by_pair.get((method, x.paper_id, x.index, y.paper_id, y.index))
            if found is None:
                cos = float(vecs[row[(xa.paper_id, xa.index)]] @ vecs[row[(xb.paper_id, xb.index)]])
                losses["searched"].append((kind, a, b, f"cos {cos:.3f} sections {xa.section}/{xb.section}"))
                continue
            c["searched"] += 1
            cand, action, reason, p = found
            if action == "partial":
                losses["whole"].append((kind, a, b, f"partial: plr {ps.length_rate(a, b):.2f} "
                                                    f"cos {cand.similarity:.3f}"))
                continue
            c["whole"] += 1
            if action != "pair":
                feats = pd.features(xa.text, xb.text, cand.similarity)
                losses["decision"].append((kind, a, b, f"{reason} p={p:.3f} " +
                                           " ".join(f"{k}={v:.2f}" for k, v in feats.items())))
                continue
            c["decision"] += 1
            k = key(xa.text, xb.text)
            if k not in passed_keys:
                losses["filters"].append((kind, a, b, filter_why.get(k) or "not scored"))
                continue
            c["filters"] += 1
            if k not in best_keys:
                r = passed_keys[k]
                beat = rank_of(r)
                losses["best_pair"].append((kind, a, b, f"p={r.paraphrase_probability:.3f} beaten by " + " | ".join(
                    f"{o.method} p={o.paraphrase_probability:.3f}: {o.src[:60]!r} / {o.tgt[:60]!r}" for o in beat[:2])))
                continue
            c["best_pair"] += 1
    print("stage".ljust(12) + "".join(k.rjust(10) for k in counts))
    for st in STAGES:
        print(st.ljust(12) + "".join(str(counts[k][st]).rjust(10) for k in counts))
    if args.show:
        for st in STAGES:
            for kind, a, b, why in losses[st][:args.show]:
                print(f"\n[{st}] {kind}: {why}\n  A: {a}\n  B: {b}")
    return counts


if __name__ == "__main__":
    main()
