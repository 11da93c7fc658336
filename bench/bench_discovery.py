"""Benchmark of the Discovery job against a bare read-and-split of the same input.

    .venv/bin/python bench/bench_discovery.py [--copies 5] [--keep DIR]

Inputs: the bundled 206-article enwiki sample, and the same file repeated
`--copies` times (copies under different names: one work item each). Each
measurement runs in a fresh Python process (so peak memory is its own) on the
local portable runner in multi-process mode
(`FnApiRunner` + `direct_running_mode=multi_processing`, N SDK worker processes):

  * split: ReadDocuments + SegmentDocuments (read, wikitext cleaning, sentence
    splitting) and a count of consecutive sentence pairs: the raw baseline;
  * mine: the same plus the document language filter, marker matching, POS
    discovery, filters, language ID, marker selection and the base / big /
    shuffled / top10 / adv variants (the `sample` preset's counts);
  * mine+hard: as mine, plus the DiscoveryHard filter (fastText training per fold).

It prints sentence pairs per second, the RATIO of each miner to the baseline
measured in the same run, the speed-up of 2 workers over 1, and the peak RSS
of the largest worker process (`getrusage(RUSAGE_CHILDREN).ru_maxrss`) and of
the driver, with the miner / baseline memory ratio. Timings include the
runner's and the models' start-up (fixed costs a larger input amortises).
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SAMPLE = os.path.join(ROOT, "samples", "wikipedia",
                      "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")


def _write_total(path):
    def write(n):
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(n))
    return write


def run_one(kind, workers, paths, result_path):
    """One pipeline in this process; prints a JSON line with its figures."""
    import apache_beam as beam
    from apache_beam.options.pipeline_options import PipelineOptions
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner

    from miners.text.segmenter import iter_consecutive_pairs
    from pipelines.discovery import PRESETS
    from transforms import discovery as dt
    from transforms.read import ReadDocuments
    from transforms.segment import SegmentDocuments

    options = PipelineOptions(direct_running_mode="multi_processing", direct_num_workers=workers,
                              save_main_session=False)
    start = time.perf_counter()
    with beam.Pipeline(runner=FnApiRunner(), options=options) as p:
        docs = (p | "Read" >> ReadDocuments(paths, dataset="markers"))["documents"]
        if kind == "split":
            seg = (docs | "Segment" >> SegmentDocuments("markers"))["segmented"]
            total = seg | "Pairs" >> beam.Map(
                lambda d: sum(1 for _ in iter_consecutive_pairs(d.sentences, d.paragraphs)))
        else:
            preset = PRESETS["sample"]
            variants = ("big", "base", "shuffled", "top10", "adv") + (("hard",) if kind == "mine+hard" else ())
            from miners.discovery import hard as dhard
            params = dt.DiscoveryParams(
                min_marker_count=preset["min_marker_count"], max_per_marker=preset["max_per_marker"],
                examples_per_marker=preset["examples_per_marker"], variants=variants,
                hard=dhard.HardConfig(train_per_marker=preset["hard_train_per_marker"],
                                      bucket=preset["hard_bucket"]))
            docs = (docs | "Language" >> dt.FilterDocumentLanguage(params))["main"]
            seg = (docs | "Segment" >> SegmentDocuments("markers"))["segmented"]
            mined = seg | "Mine" >> dt.MineDiscovery(params)
            total = mined["examples"] | "One" >> beam.Map(lambda _: 1)
        _ = total | "Sum" >> beam.CombineGlobally(sum) | "Write" >> beam.Map(_write_total(result_path))
    elapsed = time.perf_counter() - start
    with open(result_path, encoding="utf-8") as f:
        total_n = int(f.read())
    print(json.dumps({"kind": kind, "workers": workers, "files": len(paths), "seconds": elapsed,
                      "total": total_n,
                      "worker_maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                      "driver_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def measure(kind, workers, paths, work):
    result = os.path.join(work, f"result-{kind}-{workers}-{len(paths)}.txt")
    cmd = [sys.executable, "-W", "ignore", os.path.abspath(__file__), "--one", kind, "--workers", str(workers),
           "--result", result, "--paths", *paths]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{kind} x{workers} failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=5, help="repetitions of the sample for the larger input")
    ap.add_argument("--keep", default=None, help="directory for the copies (kept)")
    ap.add_argument("--no_hard", action="store_true", help="skip the mine+hard measurement")
    ap.add_argument("--scaling_only", action="store_true", help="only the 1-vs-2-worker measurement")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--result", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--paths", nargs="*", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        run_one(args.one, args.workers, args.paths, args.result)
        return

    work = args.keep or tempfile.mkdtemp(prefix="bench_discovery_")
    os.makedirs(work, exist_ok=True)
    copies = []
    for i in range(args.copies):
        dst = os.path.join(work, f"enwiki-copy{i}-pages-articles.xml.bz2")
        shutil.copyfile(SAMPLE, dst)
        copies.append(dst)
    inputs = {"sample (1x)": [SAMPLE], f"sample x{args.copies}": copies}
    print(f"cpus: {os.cpu_count()}  input: {os.path.basename(SAMPLE)} ({os.path.getsize(SAMPLE) / 1e6:.1f} MB bz2)")

    print(f"load average before: {os.getloadavg()[0]:.1f} (other processes on the machine distort the figures)")
    for name, paths in ({} if args.scaling_only else inputs).items():
        base = measure("split", 1, paths, work)
        pairs = base["total"]
        print(f"\n[{name}] {pairs} sentence pairs, 1 worker")
        print(f"  split (read+clean+segment): {pairs / base['seconds']:8.0f} pairs/s  ({base['seconds']:.1f} s)  "
              f"worker peak {base['worker_maxrss_mb']:.0f} MB, driver {base['driver_maxrss_mb']:.0f} MB")
        kinds = ["mine"] + ([] if args.no_hard else ["mine+hard"])
        for kind in kinds:
            r = measure(kind, 1, paths, work)
            print(f"  {kind:<26}: {pairs / r['seconds']:8.0f} pairs/s  ({r['seconds']:.1f} s, {r['total']} examples)"
                  f"  worker peak {r['worker_maxrss_mb']:.0f} MB, driver {r['driver_maxrss_mb']:.0f} MB")
            print(f"  RATIO {kind} time / split time: {r['seconds'] / base['seconds']:.2f}x (goal <= 2x); "
                  f"worker memory {r['worker_maxrss_mb'] / base['worker_maxrss_mb']:.2f}x")

    paths = copies
    print(f"\n[scaling on sample x{args.copies}]")
    for kind in ("split", "mine"):
        one = measure(kind, 1, paths, work)
        two = measure(kind, 2, paths, work)
        assert one["total"] == two["total"], (one, two)
        print(f"  {kind:<5} 1 worker {one['seconds']:.1f} s, 2 workers {two['seconds']:.1f} s: "
              f"SPEED-UP {one['seconds'] / two['seconds']:.2f}x (goal >= 1.7x); "
              f"peak per worker {one['worker_maxrss_mb']:.0f} / {two['worker_maxrss_mb']:.0f} MB")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
