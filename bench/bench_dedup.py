"""Near-duplicate dedup throughput against bare datasketch signatures, same examples, same run.

    .venv/bin/python bench/bench_dedup.py [--n 5000] [--num_perm 128]

Examples: the 5,000 real pairs of WikiSplit's tune split (tests/testdata), plus
10% perturbed copies (a word appended) so that the dedup has real work.
Baseline: `datasketch.MinHash(num_perm).update_batch(shingles)` per example,
a plain Python loop. Measured: `transforms.dedup.NearDedup` (signatures, LSH
bands, GroupByKey, connected components, joins) on the in-process
FnApiRunner. Each side runs in its own child process so that its peak RSS
is its own, and imports its libraries (datasketch: 0.5 s with the scipy it
pulls in) before its clock starts; the report is examples/s and peak RSS of each, and the ratios.

The pipeline builds its records inside the pipeline from the TSV (4 source
shards), as a reader would; it is also run without the dedup (same source,
same count): the "raw pipeline" cost of getting 5,500 records through the
runner, which the bare loop does not pay. Ratios are given end to end and for the dedup
stage alone (pipeline minus raw pipeline), in CPU seconds (the fair measure
on a shared machine: this one has 2 cores for 5 people) and in wall seconds.
"""
import argparse
import functools
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
ROUNDS = int(os.environ.get("BENCH_CC_ROUNDS", "0")) or None  # None: the NearDedup default


@functools.lru_cache(maxsize=2)
def load(n):
    import dataclasses
    from schemas.records import SplitExample
    with open(TUNE, encoding="utf-8") as f:
        recs = [dataclasses.replace(SplitExample.from_row(line.rstrip("\n").split("\t")), page_id=i + 1)
                for i, line in enumerate(itertools.islice(itertools.cycle(f.readlines()), n))]
    extra = [dataclasses.replace(r, complex=r.complex.rstrip(" .") + " as well.", page_id=100_000 + i)
             for i, r in enumerate(recs[: n // 10])]
    return recs + extra


def bare(n, num_perm):
    from datasketch import MinHash
    from miners.quality.dedup import shingles
    recs = load(n)
    t, c = time.perf_counter(), time.process_time()
    sigs = []
    for r in recs:
        m = MinHash(num_perm=num_perm)
        m.update_batch(shingles(r.complex))
        sigs.append(m.hashvalues)
    return len(recs), time.perf_counter() - t, time.process_time() - c


SOURCE_SHARDS = 4


def _load_shard(shard, n):
    """Shard `shard` of the examples, made inside the pipeline (not pickled into its graph).

    The parsed TSV is cached per process, so the reading cost is the same
    (nothing) in the raw and the dedup pipeline: what is compared is moving
    and deduplicating records.
    """
    return [("base", r) for r in load(n)[shard::SOURCE_SHARDS]]


def _pipeline(n, num_perm, dedup, kept_file=None):
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from transforms.dedup import DEFAULT_CC_ROUNDS, NearDedup
    global ROUNDS
    ROUNDS = ROUNDS or DEFAULT_CC_ROUNDS
    t, c = time.perf_counter(), time.process_time()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        pcoll = p | beam.Create(range(SOURCE_SHARDS)) | beam.FlatMap(_load_shard, n)
        if dedup:
            pcoll = (pcoll | NearDedup("splits", ("complex",), num_perm=num_perm, rounds=ROUNDS))["examples"]
        counted = pcoll | "Kept" >> beam.combiners.Count.Globally()
        if kept_file:
            _ = counted | beam.Map(lambda k: open(kept_file, "w").write(str(k)))
    return time.perf_counter() - t, time.process_time() - c


def ours(n, num_perm):
    import tempfile
    import datasketch  # noqa: F401  imported before the clocks start, as in bare()
    kept_file = os.path.join(tempfile.mkdtemp(), "kept")
    raw_wall, raw_cpu = _pipeline(n, num_perm, dedup=False)
    wall, cpu = _pipeline(n, num_perm, dedup=True, kept_file=kept_file)
    return len(load(n)), wall, cpu, raw_wall, raw_cpu, int(open(kept_file).read())


def reference_kept(n, num_perm):
    """Examples an in-memory union-find over the same LSH buckets keeps (the correctness check)."""
    from miners.quality import dedup as dd
    bands, rows = dd.optimal_bands(dd.DEFAULT_THRESHOLD, num_perm, dd.FALSE_POSITIVE_WEIGHT,
                                   dd.FALSE_NEGATIVE_WEIGHT)
    hasher = dd.MinHasher(num_perm)
    buckets, ids = {}, set()
    for r in load(n):
        node = dd.exact_key(r, ("complex",), "base")
        ids.add(node)
        sig = hasher.signature_bytes(r.complex)
        for band in dd.band_slices(sig, bands, rows):
            buckets.setdefault(band, []).append((node, sig))
    edges = [e for m in buckets.values() if len(m) > 1 for e in dd.bucket_edges(m, dd.DEFAULT_THRESHOLD)]
    roots = dd.components(edges)
    return sum(1 for node in ids if roots.get(node, node) == node)


def child(which, n, num_perm):
    res = {"bare": bare, "ours": ours}[which](n, num_perm)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    keys = ["examples", "wall", "cpu", "raw_wall", "raw_cpu", "kept"]
    print(json.dumps({**dict(zip(keys, res)), "peak_rss_mib": peak_kib / 1024}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--num_perm", type=int, default=128)
    ap.add_argument("--child", choices=["bare", "ours"])
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.n, a.num_perm)
    res = {}
    for which in ("bare", "ours"):
        out = subprocess.run([sys.executable, __file__, "--child", which, "--n", str(a.n), "--num_perm",
                              str(a.num_perm)], check=True, capture_output=True, text=True,
                             env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
        res[which] = json.loads(out.stdout.strip().splitlines()[-1])
    b, o = res["bare"], res["ours"]
    n = o["examples"]
    ref = reference_kept(a.n, a.num_perm)
    print(f"examples: {n} ({a.n} real + {a.n // 10} perturbed copies); kept by NearDedup: {o['kept']} "
          f"(in-memory union-find over the same buckets: {ref}{'' if ref == o['kept'] else ' -- MISMATCH'})")
    for clock in ("cpu", "wall"):
        eps_b = n / b[clock]
        eps_o = n / o[clock]
        eps_stage = n / max(o[clock] - o[f"raw_{clock}"], 1e-9)
        print(f"[{clock}] bare datasketch signatures: {eps_b:,.0f} ex/s | NearDedup pipeline: {eps_o:,.0f} ex/s "
              f"(ratio {eps_o / eps_b:.2f}) | dedup stage alone (minus raw pipeline): {eps_stage:,.0f} ex/s "
              f"(ratio {eps_stage / eps_b:.2f}; goal >= 0.7)")
    print(f"peak RSS: bare {b['peak_rss_mib']:.0f} MiB, pipeline {o['peak_rss_mib']:.0f} MiB "
          f"(ratio {o['peak_rss_mib'] / b['peak_rss_mib']:.2f}; the pipeline child also holds Beam, TF-free)")


if __name__ == "__main__":
    main()
