"""Calibrate the ParaSCI miner's thresholds for a sentence encoder (default: the bundled MiniLM-L6).

    .venv/bin/python tools/calibrate_parasci.py [--max_pairs N] [--json out.json]
                                                [--embedding_model DIR] [--bertscore_model DIR]

ParaSCI (Dong, Wan and Cao, EACL 2021) keeps intra-paper pairs whose BERT-embedding cosine
reaches 0.931 and filters by BERTScore > 0.7 and PLR < 1.0 (§3.1, §4.2); those numbers belong
to its models. This prints what a threshold does with ours, on three sets:

  positives     the real pairs of the released ParaSCI-ACL validation split
                (../shared/data/parasci/release-acl-val, val.src / val.tgt, 2,753 pairs;
                lowercased and tokenised as released).
  negatives A   the same split re-paired at random (seeded derangement: src i with tgt p(i),
                p(i) != i), one negative per positive.
  negatives B   "non-paraphrase pairs from the same papers": every pair of sentences of one
                paper taken from two *different* sections among the six the miner compares
                (miners.parasci.pairs.INTRA_SECTIONS), for each paper of ../shared/data/scientific
                (S2ORC JSON, GROBID TEI, JATS; a paper read from two formats is kept once, the
                richer copy, as the job's DedupPapers does). Sentences are those the job keeps
                (miners.parasci.pairs.paper_sentences + sentence_reason), lowercased to match the
                validation split's casing (its tokenisation is not imitated; citation
                placeholders stay, as in the job). These are exactly the candidates the
                intra_paper method searches. All of them count as negatives: a few are true
                paraphrases (an abstract sentence restated in the conclusion), so the false
                positive rate on B is slightly overestimated.

Tables: (1) cosine alone, for thresholds 0.60 .. 0.95: recall on positives, false-positive
rate (FPR) on A and on B, the B pairs passing per paper, and the precision of intra-paper mining
at an assumed class balance (ParaSCI does not state how many true pairs a paper holds among its
cross-section candidates): with r = recall and f = FPR on B, precision = r / (r + f (N - 1)) for
one true pair among N candidate pairs, N = 100 and N = 1,000. (2) the full chain the job applies
to a whole intra-paper pair: cosine >= t AND BERTScore F1 >= b AND PLR < 1.0 (PLR = |la - lb| /
min(la, lb) in words, miners.parasci.pairs.length_rate), on a grid of t and b. BERTScore is computed
only for pairs that reach the lowest cosine of the grid (the chain needs no other).

(3) the §4.2 filters alone (BERTScore >= b AND PLR < c, no cosine), on the first
--filter_pairs positives and negatives A: what a pair of any method must pass after the search.

Embeddings and BERTScores are cached in /tmp/calibrate_parasci (keyed by model and text), so a
second run takes seconds. Timing, cold cache, on 2 CPU cores shared with other work (load 5-10):
`--max_pairs 200` (200 positives, 200 negatives A, all of B) 1m43s wall, 66 CPU-seconds, i.e.
under 2 minutes; the full run (2,753 pairs) 5m18s wall, 3.1 CPU-minutes.
Figures and the defaults chosen from them: docs/PARASCI.md.
"""
import argparse
import glob
import hashlib
import json
import os
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"
DEFAULT_PAPERS = ROOT.parent / "shared" / "data" / "scientific"
CACHE = pathlib.Path("/tmp/calibrate_parasci")

COSINES = [round(0.6 + 0.05 * i, 2) for i in range(8)]  # 0.60 .. 0.95
BERTSCORES = (0.0, 0.4, 0.5, 0.6, 0.7)  # 0.0 = no BERTScore filter
CHAIN_COSINES = (0.7, 0.75, 0.8)
BALANCES = (100, 1000)  # one true pair among N candidate pairs


def read_pairs(data_dir, max_pairs=None):
    from miners.parasci.pairs import read_release_pairs
    pairs = read_release_pairs(data_dir)
    return pairs[:max_pairs] if max_pairs else pairs


def derangement(n, seed):
    """A seeded permutation with no fixed point (a random re-pairing)."""
    rng = random.Random(seed)
    p = list(range(n))
    rng.shuffle(p)
    for i in range(n):  # swap fixed points with a neighbour
        if p[i] == i:
            j = (i + 1) % n
            p[i], p[j] = p[j], p[i]
    return p


def read_papers(papers_dir):
    """The papers of every file under papers_dir, one copy per title (the richest text)."""
    from miners.parasci.papers import iter_papers
    from schemas.papers import Paper
    by_title = {}
    for path in sorted(glob.glob(os.path.join(str(papers_dir), "**", "*"), recursive=True)):
        if not os.path.isfile(path):
            continue
        for p in iter_papers(path, path, "sci_para"):
            if not isinstance(p, Paper):
                continue
            chars = sum(len(x.text) for x in p.paragraphs)
            key = p.title_key or f"id:{p.id}"
            if key not in by_title or chars > by_title[key][0]:
                by_title[key] = (chars, p)
    return [by_title[k][1] for k in sorted(by_title)]


def paper_groups(papers):
    """Per paper: [(section, lowercased sentence)] of the six intra sections, job filters applied."""
    from miners.parasci import pairs as ps
    from miners.text.segmenter import split_sentences
    groups = []
    for paper in papers:
        sents = [(s.section, s.text.lower()) for s in ps.paper_sentences(paper, split_sentences)
                 if s.section in ps.INTRA_SECTIONS and ps.sentence_reason(s.text) is None]
        groups.append((paper.id, sents))
    return groups


def _key(model, texts):
    h = hashlib.sha1(str(model).encode())
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:20]


def embed_cached(embedder, texts):
    """Unique texts -> float32 rows, from the cache when the same model embedded the same texts."""
    import numpy as np
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"emb-{_key(embedder.model_dir or 'minilm', texts)}.npy"
    if path.exists():
        return np.load(path)
    v = embedder.encode(texts)
    np.save(path, v)
    return v


def bertscore_cached(scorer, pairs):
    """BERTScore F1 of (candidate = tgt, reference = src) as the job scores it, cached per pair."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"bs-{_key(scorer.model_dir or 'minilm', ['x'])}.json"
    cache = json.loads(path.read_text()) if path.exists() else {}
    todo = sorted({(a, b) for a, b in pairs if f"{a}\t{b}" not in cache})
    if todo:
        scores = scorer.score([b for _, b in todo], [a for a, _ in todo])
        for (a, b), s in zip(todo, scores):
            cache[f"{a}\t{b}"] = s
        path.write_text(json.dumps(cache))
    return [cache[f"{a}\t{b}"] for a, b in pairs]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder with val.src / val.tgt")
    parser.add_argument("--papers", default=str(DEFAULT_PAPERS), help="folder of papers (negatives B)")
    parser.add_argument("--max_pairs", type=int, default=None, help="use the first N validation pairs")
    parser.add_argument("--embedding_model", default="", help="sentence-transformers dir (default: MiniLM)")
    parser.add_argument("--bertscore_model", default="", help="BERTScore model dir (default: MiniLM)")
    parser.add_argument("--filter_pairs", type=int, default=1000,
                        help="positives and negatives A scored by BERTScore for table (3) (the first N)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", default="", help="also write every figure to this file")
    parser.add_argument("--show", type=int, default=5, help="print the N most similar in-paper pairs")
    args = parser.parse_args(argv)

    import numpy as np
    from miners.parasci import pairs as ps  # pylint: disable=import-outside-toplevel
    from miners.nlp.embed import SentenceEmbedder
    from miners.quality.scoring import BertScorer

    t0 = time.time()
    pos = read_pairs(args.data, args.max_pairs)
    perm = derangement(len(pos), args.seed)
    neg_a = [(pos[i][0], pos[perm[i]][1]) for i in range(len(pos))]
    groups = paper_groups(read_papers(args.papers))

    embedder = SentenceEmbedder(args.embedding_model or None).load()
    texts = sorted({t for p in pos for t in p} | {t for _, ss in groups for _, t in ss})
    vecs = embed_cached(embedder, texts)
    row = {t: i for i, t in enumerate(texts)}

    def cos(pairs):
        if not pairs:
            return np.zeros(0)
        a = vecs[[row[x] for x, _ in pairs]]
        b = vecs[[row[y] for _, y in pairs]]
        return np.einsum("ij,ij->i", a, b)

    # Negatives B: every cross-section pair of each paper (cosine from one matrix per paper).
    neg_b, neg_b_cos, per_paper, n_identical = [], [], [], 0
    for pid, sents in groups:
        if len(sents) < 2:
            per_paper.append((pid, len(sents), 0))
            continue
        m = vecs[[row[t] for _, t in sents]]
        sims = m @ m.T
        secs = np.array([s for s, _ in sents])
        norm = [ps.normalise_text(t) for _, t in sents]
        iu, ju = np.triu_indices(len(sents), k=1)
        keep = secs[iu] != secs[ju]
        same = np.array([norm[i] == norm[j] for i, j in zip(iu, ju)], dtype=bool)
        n_identical += int((keep & same).sum())
        keep &= ~same  # the job drops identical sentences before any score (identical_sentences)
        iu, ju = iu[keep], ju[keep]
        neg_b += [(sents[i][1], sents[j][1]) for i, j in zip(iu, ju)]
        neg_b_cos.append(sims[iu, ju])
        per_paper.append((pid, len(sents), int(keep.sum())))
    neg_b_cos = np.concatenate(neg_b_cos) if neg_b_cos else np.zeros(0)
    n_papers = sum(1 for _, _, n in per_paper if n)
    sets = {"pos": (pos, cos(pos)), "A": (neg_a, cos(neg_a)), "B": (neg_b, neg_b_cos)}
    # Near-copies: the same words, only spacing or punctuation differs (an S2ORC body that repeats
    # the abstract). Not paraphrases, and the job keeps them: counted apart in the tables.
    copy_b = np.array([ps.words(a) == ps.words(b) for a, b in neg_b], dtype=bool)
    t_embed = time.time() - t0

    # BERTScore only where the chain can still pass: cosine >= the grid's lowest and PLR < 1.
    floor = min(CHAIN_COSINES)
    scorer = BertScorer(args.bertscore_model or None).load()
    plr, bs = {}, {}
    for name, (pairs, c) in sets.items():
        plr[name] = np.array([ps.length_rate(a, b) for a, b in pairs]) if pairs else np.zeros(0)
        need = [i for i in range(len(pairs)) if c[i] >= floor and plr[name][i] < ps.MAX_LENGTH_RATE]
        scores = bertscore_cached(scorer, [pairs[i] for i in need])
        full = np.full(len(pairs), -1.0)
        full[need] = scores
        bs[name] = full
    # Table (3): the §4.2 filters alone (what a pair of any method must pass after the search).
    nf = min(args.filter_pairs, len(pos))
    bs_filter = {name: np.array(bertscore_cached(scorer, sets[name][0][:nf])) for name in ("pos", "A")}
    t_total = time.time() - t0

    out = {"positives": len(pos), "negatives_a": len(neg_a), "negatives_b": len(neg_b),
           "papers": n_papers, "per_paper": [{"paper": p, "sentences": s, "cross_section_pairs": n}
                                              for p, s, n in per_paper],
           "embedding_model": embedder.model_dir, "bertscore_model": scorer.model_dir, "seed": args.seed,
           "cosine": [], "chain": [], "plr": {}}
    print(f"positives {len(pos)} (val pairs) | negatives A {len(neg_a)} (val re-paired, seed {args.seed}) | "
          f"negatives B {len(neg_b)} (cross-section pairs of {n_papers} papers, "
          f"{sum(s for _, s, _ in per_paper)} sentences; {n_identical} identical pairs left out as the job "
          f"drops them, {int(copy_b.sum())} near-copies kept)")
    out["identical_b_left_out"], out["near_copies_b"] = n_identical, int(copy_b.sum())
    for name in sets:
        for ceiling in (ps.MAX_LENGTH_RATE, ps.MAX_LENGTH_RATE_DEFINITION):
            out["plr"][f"{name}<{ceiling}"] = float(np.mean(plr[name] < ceiling)) if len(plr[name]) else 0.0
    for ceiling in (ps.MAX_LENGTH_RATE, ps.MAX_LENGTH_RATE_DEFINITION):
        print(f"PLR < {ceiling} keeps: " + "  ".join(f"{name} {out['plr'][f'{name}<{ceiling}']:.3f}"
                                                    for name in sets))

    print("\n(1) cosine alone")
    head = f"{'cos>=':>6} {'recall':>7} {'FPR A':>7} {'FPR B':>8} {'B/paper':>8} {'copies':>6}" + \
        "".join(f" {'prec 1:' + str(n):>11}" for n in BALANCES)
    print(head)
    for t in COSINES:
        r = float(np.mean(sets["pos"][1] >= t))
        fa = float(np.mean(sets["A"][1] >= t))
        nb = int(np.sum(sets["B"][1] >= t))
        fb = nb / len(neg_b) if neg_b else 0.0
        prec = {n: (r / (r + fb * (n - 1)) if r + fb else 0.0) for n in BALANCES}
        nc = int(np.sum((sets["B"][1] >= t) & copy_b))
        out["cosine"].append({"threshold": t, "recall": r, "fpr_a": fa, "fpr_b": fb, "b_pass": nb, "b_copies": nc,
                              "b_pass_per_paper": nb / max(n_papers, 1),
                              "precision": {f"1:{n}": p for n, p in prec.items()}})
        print(f"{t:>6.2f} {r:>7.3f} {fa:>7.4f} {fb:>8.5f} {nb / max(n_papers, 1):>8.2f} {nc:>6}" +
              "".join(f" {prec[n]:>11.3f}" for n in BALANCES))

    print(f"\n(2) chain: cosine >= t AND BERTScore F1 >= b AND PLR < {ps.MAX_LENGTH_RATE} "
          f"(b = 0: no BERTScore filter)")
    print(f"{'t':>5} {'b':>4} {'recall':>7} {'FPR A':>7} {'FPR B':>8} {'B pass':>6} {'copies':>6}" +
          "".join(f" {'prec 1:' + str(n):>11}" for n in BALANCES))
    for t in CHAIN_COSINES:
        for b in BERTSCORES:
            res = {}
            for name, (pairs, c) in sets.items():
                ok = (c >= t) & (plr[name] < ps.MAX_LENGTH_RATE) & (bs[name] >= b)
                res[name] = (int(ok.sum()), len(pairs))
                if name == "B":
                    nc = int((ok & copy_b).sum())
            r = res["pos"][0] / res["pos"][1]
            fa = res["A"][0] / res["A"][1]
            fb = res["B"][0] / res["B"][1] if res["B"][1] else 0.0
            prec = {n: (r / (r + fb * (n - 1)) if r + fb else 0.0) for n in BALANCES}
            default = t == ps.MINILM_MIN_SIMILARITY and b == ps.MINILM_MIN_BERTSCORE
            out["chain"].append({"cosine": t, "bertscore": b, "recall": r, "fpr_a": fa, "fpr_b": fb,
                                 "b_pass": res["B"][0], "b_copies": nc, "default": default,
                                 "precision": {f"1:{n}": p for n, p in prec.items()}})
            print(f"{t:>5.2f} {b:>4.1f} {r:>7.3f} {fa:>7.4f} {fb:>8.5f} {res['B'][0]:>6} {nc:>6}" +
                  "".join(f" {prec[n]:>11.3f}" for n in BALANCES) + ("   <- job default" if default else ""))

    out["filters"] = []
    print(f"\n(3) the filters alone, BERTScore F1 >= b AND PLR < c, on the first {nf} positives and "
          f"negatives A (keep rate)")
    print(f"{'b':>5} {'c':>4} {'pos':>7} {'A':>7}")
    for b in (0.4, ps.MINILM_MIN_BERTSCORE_DEFINITION, ps.MINILM_MIN_BERTSCORE, 0.6, 0.7):
        for ceiling in (ps.MAX_LENGTH_RATE, ps.MAX_LENGTH_RATE_DEFINITION):
            keep = {name: float(np.mean((bs_filter[name] >= b) & (plr[name][:nf] < ceiling))) if nf else 0.0
                    for name in ("pos", "A")}
            out["filters"].append({"bertscore": b, "max_length_rate": ceiling, "keep_pos": keep["pos"],
                                   "keep_a": keep["A"]})
            print(f"{b:>5.2f} {ceiling:>4.1f} {keep['pos']:>7.3f} {keep['A']:>7.4f}")

    if args.show and neg_b:
        print(f"\nthe {args.show} most similar in-paper cross-section pairs, near-copies left out "
              f"(cosine, BERTScore or -1 when not computed, PLR):")
        order = np.argsort(-neg_b_cos, kind="stable")
        top = [i for i in order if not copy_b[i]][:args.show]
        for i in top:
            a, b = neg_b[i]
            print(f"  {neg_b_cos[i]:.3f} {bs['B'][i]:.3f} {plr['B'][i]:.2f}\n    {a[:150]}\n    {b[:150]}")
        out["top_b"] = [{"cosine": float(neg_b_cos[i]), "bertscore": float(bs["B"][i]),
                         "plr": float(plr["B"][i]), "a": neg_b[i][0], "b": neg_b[i][1]} for i in top]

    out["seconds"] = {"embedding": round(t_embed, 1), "total": round(t_total, 1)}
    print(f"\n{len(texts)} sentences embedded in {t_embed:.1f}s (cache {CACHE}); total {t_total:.1f}s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
