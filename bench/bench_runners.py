"""Benchmark of the same job on the runners: local with 1 and 2 worker processes, Dask with 2 workers, and a
Flink cluster with 2 slots and a Spark cluster with 2 cores on this machine.

    .venv/bin/python bench/bench_runners.py [--copies 40] [--repeats 3] [--marginal] [--keep DIR] [--no_engines]
        [--warm_workers on|off|both] [--row 'local, 2 workers' ...]

Input: the bundled 206-article enwiki sample (gensim test data, Wikipedia text
CC BY-SA) repeated `--copies` times under dump-style names (one work item each).
Job: `rewrite-mine discovery --preset sample --variants base,big,shuffled,top10,adv`
(no DiscoveryHard: its fastText training is a serial stage that measures the
model, not the runner).

Each run is the real command in a fresh process (`--force`, its own output
directory), so it pays what a user pays: imports, the runner's start-up
(SDK workers / a Dask LocalCluster of 2 processes) and model loading.
Measured in the same run:

  * raw baseline: decompress and split the same files into pages in plain Python;
  * per runner: wall time, documents and examples per second, peak RSS of the
    whole process tree (driver + workers, sampled every 0.2 s), and its CPU time (printed with
    --warm_workers both: on a loaded machine it moves less than the wall time);
  * ratios: each runner / baseline (time and memory; local 2 workers: goal <= 5.0x),
    2 workers / 1 worker (goal >= 1.8x), Dask / local 2 workers (goal: Dask within 1.5x),
    Flink and Spark / local 2 workers (goal: Flink with 2 slots within 1.5x);
  * Flink and Spark (`make engines` first; `--no_engines` leaves them out): a session cluster and a
    standalone cluster started here for the benchmark (rewrite-mine cluster, free ports), the job
    submitted with `--runner flink` / `--runner spark`. Each cluster's first job runs before the rounds,
    its time printed apart (`--count_first_job` counts it in the rounds instead). Their peak RSS adds the
    clusters' JVMs (JobManager and TaskManager; master and worker) to the driver's process tree (the job
    server and the SDK workers are in it);
  * with --warm_workers both: each row whose worker processes start warm (the local runner's 1- and
    2-worker rows: the warm pool, pipelines/framework/workers/warm.py; Flink and Spark: the fork server of
    workers/external_pool.py) again with `REWRITE_MINE_WARM_WORKERS=0` (", cold"), in the same rounds, and
    what starting them warm saves, per row (`off`: only the cold rows). `--row NAME` (repeatable) keeps
    only the rows named (the cold twins follow their row): `--row 'local, 2 workers' --warm_workers both`
    is the with / without measurement of docs/RUNNERS.md;
  * with --worker_image IMAGE (issue 41: the production shape): a MinIO server started here (tools/minio.sh
    builds it) holds the copies, and two rows read them from and write to `s3://`: the local runner
    (2 workers) and Flink whose TaskManager starts the SDK workers from IMAGE (`--environment_type
    DOCKER`; `make image` builds it, a Docker engine runs: tools/docker_engine.sh start). Their shards
    are fetched back and compared with the others'; the containers' memory is not in the peak RSS (they
    are the Docker engine's children, not this tree's);
  * with --marginal: every row run and the baseline again on twice the copies (rows on s3://
    read the doubled input from the same bucket); their differences give the cost per document
    without a run's fixed part (start-up, a job server and the job's submission, model loading,
    the small stages after the read), the figure a whole dump pays, per row and against the
    local runner's.

Two one-worker rows: `--num_workers 1` alone runs the job inside the driver
process (no worker process, no gRPC data plane, imports shared with the
driver: what a user gets by default with one worker), and
`--direct_running_mode multi_processing` runs it in one SDK worker process
like each of the two workers of the 2-worker run. The scaling goal is read
on the second (same runner mode, one worker more); both ratios are printed.
What a run pays besides the work (2-core machine, docs/RUNNERS.md, sixth and
seventh rounds): the workers' imports (Beam's worker, spaCy, TensorFlow for
TFDV: ~1.7 s, done once by the warm pool's zygote and shared by fork) beside
the driver's imports and graph (~1.6 s); ~0.3 s per worker for its models at
the first bundle; ~1.8-2.2 s for the ~55 small stages after the read. On the
default input (40 copies) that is ~4 s of a 20-37 s run; `--marginal` gives
the cost per copy without it.

The shards of every runner must be byte-identical: checked before printing.
"""
import argparse
import bz2
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SAMPLE = os.path.join(ROOT, "samples", "wikipedia",
                      "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
JOB = ["discovery", "--preset", "sample", "--variants", "base,big,shuffled,top10,adv", "--force"]
RUNNERS = (("local, in-process", ["--num_workers", "1"], lambda: ()),
           ("local, 1 worker", ["--num_workers", "1", "--direct_running_mode", "multi_processing"], lambda: ()),
           ("local, 2 workers", ["--num_workers", "2"], lambda: ()),
           ("dask, 2 workers", ["--runner", "dask", "--num_workers", "2"], lambda: ()))
#: Rows on s3:// of a MinIO started for the benchmark (--worker_image); Flink's DOCKER row is an engine row.
S3 = ", s3"
S3_ROWS = [("local, 2 workers" + S3, ["--num_workers", "2"], lambda: ())]
#: Rows whose worker processes start warm, and the environment that starts them cold.
WARM_ROWS = ("local, 1 worker", "local, 2 workers", "flink, 2 slots", "spark, 2 cores")
COLD = ", cold"
COLD_ENV = {"REWRITE_MINE_WARM_WORKERS": "0"}


def make_inputs(directory, copies):
    paths = []
    for i in range(copies):
        path = os.path.join(directory, f"enwiki-20240601-pages-articles{i + 1}.xml-p10p30302.bz2")
        shutil.copyfile(SAMPLE, path)
        paths.append(path)
    return paths


def raw_baseline(paths):
    """Decompress and split into pages: the least any reader must do. Returns (seconds, pages)."""
    start = time.perf_counter()
    pages = 0
    for path in paths:
        with bz2.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip() == "<page>":
                    pages += 1
    return time.perf_counter() - start, pages


def _tree_rss_kib(pid, extra_pids=(), cpu=None):
    """RSS of `pid`'s process tree and of `extra_pids()`, in KiB; with `cpu`, each process of the tree's CPU
    time so far (clock ticks, user + system) recorded there by pid."""
    from pipelines.framework.runners import _descendants  # pylint: disable=import-outside-toplevel
    total = 0
    tree = [pid] + list(_descendants(pid))
    for p in tree if cpu is not None else ():
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                fields = f.read().rsplit(b") ", 1)[1].split()
            cpu[p] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    for p in tree + list(extra_pids()):
        try:
            with open(f"/proc/{p}/status", encoding="utf-8") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def first_jobs(work, paths, runners, store=None):
    """One job on each cluster the rows use (`--flink_master` / `--spark_master_url`), with the first row that
    uses it, before the rounds: {row: seconds}. A cluster just started loads and compiles the engine's classes
    in its first job (docs/RUNNERS.md: 29 s of its JVMs' CPU cold against ~12 s warm); a cluster serves many
    runs, and the rows' medians are what each of them costs."""
    seen, first = set(), {}
    for name, extra, extra_pids in runners:
        cluster = next((extra[i + 1] for i, a in enumerate(extra[:-1])
                        if a in ("--flink_master", "--spark_master_url")), None)
        if cluster is None or cluster in seen:
            continue
        seen.add(cluster)
        out = os.path.join(work, "out-first-" + name.replace(", ", "-").replace(" ", ""))
        shutil.rmtree(out, ignore_errors=True)
        first[name] = run_job(paths, out, extra, extra_pids, COLD_ENV if name.endswith(COLD) else None,
                              store if name.endswith(S3) else None)[0]
        shutil.rmtree(out, ignore_errors=True)
    return first


def run_job(paths, out, extra, extra_pids=lambda: (), env=None, store=None):
    """The real command (`env` added to its environment); returns (seconds, peak tree RSS in MiB (+
    `extra_pids()`'s), manifest, CPU seconds of the process tree: driver, workers, job server; sampled every
    0.2 s, so a process's last 0.2 s and one that lived less are missed). With `store` (an S3Store), the
    inputs are read from and the output written to its bucket, and the output fetched back into `out`
    after the run (not timed)."""
    target = out
    if store is not None:
        paths, target = store.inputs, f"{store.url}/{os.path.basename(out)}"
        extra = extra + store.server.beam_args()
    argv = [sys.executable, "-m", "pipelines.cli"] + JOB + [a for p in paths for a in ("--input", p)] + [
        "--output", target] + extra
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", **(env or {})))
    peak, cpu = [0], {}

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss_kib(proc.pid, extra_pids, cpu))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    elapsed = time.perf_counter() - start
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err[-3000:]}")
    if store is not None:
        store.server.download_tree(f"{target}/markers", os.path.join(out, "markers"))
    with open(os.path.join(out, "markers", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    return elapsed, peak[0] / 1024, manifest, sum(cpu.values()) / os.sysconf("SC_CLK_TCK")


class S3Store:
    """A MinIO server started for the benchmark, a bucket, and the copies uploaded to it."""

    def __init__(self, work, paths, of=None, prefix="in"):
        """A new server, or (`of`) another set of inputs in the bucket of `of`'s, under `prefix`."""
        from pipelines.framework.object_store import MinioServer  # pylint: disable=import-outside-toplevel
        self.server = of.server if of else MinioServer(os.path.join(work, "minio")).start()
        self.url = of.url if of else self.server.create_bucket("bench")
        self.inputs = []
        for path in paths:
            url = f"{self.url}/{prefix}/{os.path.basename(path)}"
            self.server.upload(path, url)
            self.inputs.append(url)

    def stop(self):
        self.server.stop(remove_data=True)


def shard_digest(dataset_dir):
    out = {}
    for base, _, files in os.walk(dataset_dir):
        for name in files:
            if name.endswith((".tfrecord", ".jsonl", "counts.json")):
                with open(os.path.join(base, name), "rb") as f:
                    out[os.path.relpath(os.path.join(base, name), dataset_dir)] = hashlib.sha256(f.read()).hexdigest()
    return out


def marginal(work, copies, base_s, seconds_of, runners, store=None, repeats=1):
    """Every row run (`runners`, their medians on `copies` in `seconds_of`) again on 2 x `copies`:
    seconds per added copy, i.e. the cost per document once the fixed part of a run (driver and worker
    start-up, a job server and the job's submission, model loading, the small stages after the read) is
    paid: what a whole dump costs per GB. Rows on s3:// read the doubled input from the same bucket. With
    `repeats`, medians of interleaved rounds, as for the main rows."""
    paths = make_inputs(work, 2 * copies)
    store2 = S3Store(work, paths, of=store, prefix="in2") if store is not None else None
    runners = [r for r in runners if not r[0].endswith(COLD)]
    bases, rows = [], {name: [] for name, _, _ in runners}
    for _ in range(repeats):
        bases.append(raw_baseline(paths)[0])
        for name, extra, extra_pids in runners:
            out = os.path.join(work, "out2-" + name.replace(", ", "-").replace(" ", ""))
            shutil.rmtree(out, ignore_errors=True)
            rows[name].append(run_job(paths, out, extra, extra_pids, store=store2 if name.endswith(S3) else None)[0])
    if repeats > 1:
        print(f"marginal, {2 * copies} copies, each run (s): baseline " + " ".join(f"{x:.2f}" for x in bases)
              + "; " + "; ".join(f"{k} " + " ".join(f"{x:.1f}" for x in v) for k, v in rows.items()))
    base2 = statistics.median(bases)
    per_row = {k: (statistics.median(v) - seconds_of[k]) / copies for k, v in rows.items()}
    two = per_row.get("local, 2 workers")
    for name, per_copy in per_row.items():
        print(f"marginal, {name}: {per_copy:.3f} s per added copy"
              + (f", {per_copy / two:.2f}x the local runner's (2 workers, local disk)" if two else "")
              + f"; fixed part (intercept) {seconds_of[name] - copies * per_copy:.1f} s")
    if "local, 1 worker" not in rows or not two:
        return
    one_s, two_s = seconds_of["local, 1 worker"], seconds_of["local, 2 workers"]
    one2, two2 = (statistics.median(rows[k]) for k in ("local, 1 worker", "local, 2 workers"))
    per = {k: (b - a) / copies for k, a, b in (("bare", base_s, base2), ("1 worker", one_s, one2),
                                                 ("2 workers", two_s, two2))}
    fixed = {"1 worker": one_s - copies * per["1 worker"], "2 workers": two_s - copies * per["2 workers"]}
    print(f"marginal, {copies} -> {2 * copies} copies: seconds per added copy: bare {per['bare']:.3f}, "
          f"1 worker {per['1 worker']:.3f}, 2 workers {per['2 workers']:.3f}; fixed part of a run "
          f"(intercept): 1 worker {fixed['1 worker']:.1f} s, 2 workers {fixed['2 workers']:.1f} s")
    print(f"marginal, local 2 workers / baseline: {per['2 workers'] / per['bare']:.1f}x; speed-up 2 workers / "
          f"1 worker process: {per['1 worker'] / per['2 workers']:.2f}x  (dump scale: the fixed part vanishes)")
    # A run is F + copies x (cost per copy): with F paid alike by one and two workers, the speed-up on
    # `copies` copies reaches 1.8x only when F <= (W1 - 1.8 W2) / 0.8 (W = copies x cost per copy).
    w1, w2 = copies * per["1 worker"], copies * per["2 workers"]
    print(f"marginal, speed-up 2 workers / 1 worker process on {2 * copies} copies: {one2 / two2:.2f}x; "
          f"1.8x on {copies} copies needs a fixed part <= {(w1 - 1.8 * w2) / 0.8:.1f} s "
          f"(now {statistics.mean(fixed.values()):.1f} s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=40, help="copies of the 206-article sample")
    parser.add_argument("--keep", default=None, help="keep inputs and outputs in this directory")
    parser.add_argument("--marginal", action="store_true",
                        help="also run every row (and the baseline) on twice the copies: the difference is "
                             "the cost per document without the fixed start-up and tail")
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds of the baseline and every runner, interleaved; medians are reported "
                             "(a shared machine's speed drifts between runs: 3 gives figures to quote)")
    parser.add_argument("--no_engines", dest="engines", action="store_false", default=True,
                        help="leave out the Flink and Spark rows (they need `make engines`)")
    parser.add_argument("--warm_workers", choices=("on", "off", "both"), default="on",
                        help="worker processes started warm (the local runner's warm pool, the engines' fork "
                             "server), cold (REWRITE_MINE_WARM_WORKERS=0), or both, in the same rounds")
    parser.add_argument("--worker_image", default=None,
                        help="also the production shape: rows on s3:// of a MinIO started here, the local "
                             "runner and Flink starting its SDK workers from this image (DOCKER environment)")
    parser.add_argument("--row", dest="rows", action="append", default=[],
                        help="only this row, named as printed (repeatable; default: every row)")
    parser.add_argument("--count_first_job", action="store_true",
                        help="count each cluster's first job in its row's rounds; by default it runs once "
                             "before the rounds and its time is printed apart (a cluster is started once and "
                             "serves many runs: its JVMs' class loading and compilation are paid at its start)")
    args = parser.parse_args()
    if args.rows and not any(r.startswith(("flink", "spark")) for r in args.rows):
        args.engines = False  # no cluster to start for rows that are not asked for
    work = args.keep or tempfile.mkdtemp(prefix="bench-runners-")
    os.makedirs(work, exist_ok=True)
    clusters, store = [], None
    containers_before = _image_containers(args.worker_image)
    try:
        engine_rows = start_engines(work, clusters, args.worker_image, args.rows) if args.engines else []
        runners = with_warm_choice(list(RUNNERS) + S3_ROWS * bool(args.worker_image) + engine_rows,
                                   args.warm_workers, args.rows)
        paths = make_inputs(work, args.copies)
        if any(name.endswith(S3) for name, _, _ in runners):
            store = S3Store(work, paths)
        size_mb = sum(os.path.getsize(p) for p in paths) / 1e6
        with open("/proc/loadavg", encoding="utf-8") as f:
            load_before = f.read().split()[:3]
        first = {} if args.count_first_job else first_jobs(work, paths, runners, store)
        # Rounds: the baseline, then every runner, again and again (a slow spell of a shared machine then
        # hits every row alike); each row's median is reported, every run's time printed.
        base_runs, runs, digests = [], {name: [] for name, _, _ in runners}, []
        for _ in range(args.repeats):
            base_s, pages = raw_baseline(paths)
            base_runs.append(base_s)
            for name, extra, extra_pids in runners:
                out = os.path.join(work, "out-" + name.replace(", ", "-").replace(" ", ""))
                shutil.rmtree(out, ignore_errors=True)
                seconds, rss, manifest, cpu_s = run_job(paths, out, extra, extra_pids,
                                                        COLD_ENV if name.endswith(COLD) else None,
                                                        store if name.endswith(S3) else None)
                docs = manifest["counts"]["stages"]["read"]["documents"]
                examples = sum(node["examples"] for splits in manifest["counts"]["written"].values()
                               for node in splits.values())
                runs[name].append((seconds, rss, docs, examples, cpu_s))
                digests.append((name.endswith(S3), shard_digest(os.path.join(out, "markers"))))
        with open("/proc/loadavg", encoding="utf-8") as f:
            load_after = f.read().split()[:3]
        # Records name their input file: rows on s3:// compare with each other, the others with each other.
        same = all(d == next(e for s3, e in digests if s3 == on_s3) for on_s3, d in digests)
        base_s = statistics.median(base_runs)
        rows = []
        for name, _, _ in runners:
            seconds = statistics.median(r[0] for r in runs[name])
            _, _, docs, examples, _ = runs[name][0]
            rows.append((name, seconds, max(r[1] for r in runs[name]), docs, examples))

        print(f"input: {args.copies} x sample = {size_mb:.1f} MB bz2, {pages} pages; cores: {os.cpu_count()}; "
              f"load average before {' '.join(load_before)}, after {' '.join(load_after)}")
        if args.repeats > 1:
            print(f"{args.repeats} rounds, medians below; each run (s): baseline "
                  + " ".join(f"{x:.2f}" for x in base_runs) + "; " + "; ".join(
                      f"{name} " + " ".join(f"{r[0]:.1f}" for r in runs[name]) for name, _, _ in runners))
        if first:
            print("each cluster's first job, run before the rounds and not in its row's median (the JVMs' class "
                  "loading and compilation, once per cluster start): "
                  + "; ".join(f"{name} {seconds:.1f} s" for name, seconds in first.items()))
        print(f"raw baseline (bz2 + page split, 1 process): {base_s:.2f} s, {pages / base_s:,.0f} pages/s")
        print(f"{'runner':<24}{'seconds':>9}{'docs/s':>9}{'examples/s':>12}{'x baseline':>12}"
              f"{'peak RSS MiB':>14}")
        for name, seconds, rss, docs, examples in rows:
            print(f"{name:<24}{seconds:>9.1f}{docs / seconds:>9.2f}{examples / seconds:>12.2f}"
                  f"{seconds / base_s:>12.1f}{rss:>14.0f}")
        seconds_of = {name: seconds for name, seconds, _, _, _ in rows}
        rss_of = {name: rss for name, _, rss, _, _ in rows}
        inproc, one, two, dask = (seconds_of.get(k) for k in ("local, in-process", "local, 1 worker",
                                                               "local, 2 workers", "dask, 2 workers"))
        if two:
            print(f"local 2 workers / baseline: {two / base_s:.1f}x (goal <= 5.0x)")
        if one and two:
            print(f"speed-up, local 2 workers / 1 worker process: {one / two:.2f}x (goal >= 1.8x)")
            print(f"peak memory ratio, local 2 / local 1 worker process: "
                  f"{rss_of['local, 2 workers'] / rss_of['local, 1 worker']:.2f}")
        if inproc and two:
            print(f"speed-up, local 2 workers / in-process (--num_workers 1, no worker process): {inproc / two:.2f}x")
        if dask and two:
            print(f"dask 2 workers time / local 2 workers time: {dask / two:.2f}x (goal <= 1.5x); peak memory "
                  f"dask / local 2: {rss_of['dask, 2 workers'] / rss_of['local, 2 workers']:.2f}")
        for name, seconds, rss, _, _ in rows:
            if name.startswith(("flink", "spark")) and not name.endswith(COLD) and two:
                print(f"{name} time / local 2 workers time: {seconds / two:.2f}x"
                      + (" (goal <= 1.5x)" if name.startswith("flink") else "")
                      + f"; / baseline {seconds / base_s:.1f}x; peak memory / local 2 workers: "
                        f"{rss / rss_of['local, 2 workers']:.2f}")
        for name, seconds, rss, _, _ in rows:
            if name.endswith(S3) and two:
                print(f"{name} time / local 2 workers (local disk) time: {seconds / two:.2f}x; / baseline "
                      f"{seconds / base_s:.1f}x")
        for name, seconds, _, _, _ in rows:
            cold = seconds_of.get(name + COLD)
            if cold and not name.endswith(COLD):
                each = " / ".join(f"{w[0]:.1f}-{c[0]:.1f}" for w, c in zip(runs[name], runs[name + COLD]))
                print(f"warm workers save on {name}: {cold - seconds:.1f} s of {cold:.1f} s = "
                      f"{100 * (cold - seconds) / cold:.0f}% of the cold run (medians; each round warm-cold: {each})")
                cpu_warm, cpu_cold = (statistics.median(r[4] for r in runs[k]) for k in (name, name + COLD))
                each = " / ".join(f"{w[4]:.1f}-{c[4]:.1f}" for w, c in zip(runs[name], runs[name + COLD]))
                print(f"  CPU of the process tree: {cpu_cold - cpu_warm:.1f} s of {cpu_cold:.1f} s = "
                      f"{100 * (cpu_cold - cpu_warm) / cpu_cold:.0f}% (medians; warm-cold: {each})")
        print(f"byte-identical shards on all runners: {same}")
        if not same:
            raise SystemExit("the runners wrote different shards")
        if args.marginal:
            marginal(work, args.copies, base_s, seconds_of, runners, store, args.repeats)
    finally:
        for cluster in clusters:
            cluster.stop()
        if store is not None:
            store.stop()
        # Beam keeps an idle container for --environment_cache_millis and removes it from the TaskManager;
        # a cluster stopped within that minute left it running for good (seen: six after one run).
        # FlinkCluster.stop removes those of its TaskManagers now (their label); this is the check.
        left = sorted(set(_image_containers(args.worker_image)) - set(containers_before))
        if left:
            subprocess.run(["docker", "rm", "-f"] + left, capture_output=True, check=False, timeout=120)
            print(f"removed {len(left)} container(s) of {args.worker_image} the stopped cluster left running")
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def _image_containers(image) -> list:
    """Ids of the containers of `image` (none without an image or a Docker engine)."""
    if not image:
        return []
    try:
        proc = subprocess.run(["docker", "ps", "-a", "-q", "--filter", f"ancestor={image}"], capture_output=True,
                              text=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return proc.stdout.split()


def with_warm_choice(runners, warm, rows=()):
    """The rows to run: `rows` only (all when empty), each row that starts warm workers as it is (`on`),
    cold (`off`: REWRITE_MINE_WARM_WORKERS=0) or both, the cold one right after the warm one."""
    wanted = [r.strip() for r in rows]
    out = []
    for name, extra, extra_pids in runners:
        if wanted and name not in wanted:
            continue
        if name in WARM_ROWS and warm in ("off", "both"):
            if warm == "both":
                out.append((name, extra, extra_pids))
            out.append((name + COLD, extra, extra_pids))
        else:
            out.append((name, extra, extra_pids))
    if not out:
        raise SystemExit(f"no row named {' or '.join(rows)}: rows are {'; '.join(n for n, _, _ in runners)}")
    return out


#: Flink with two TaskManagers of one slot each (the same 2 slots): Beam binds each task of a TaskManager to
#: one of its SDK workers by a counter (options.WORKERS_PER_SLOT), so with one container per slot the two
#: subtasks of the read stage can share one container, one core (inferred from the slow rounds: docs/
#: RUNNERS.md); in TaskManagers of their own they cannot. Three rounds showed no clear gain (2026-11-29).
SPLIT_TMS = "flink, docker, 2 TMs x 1 slot" + S3
#: Flink with a job server started for the run (--own_job_server), beside the cluster's kept one.
OWN_JOB_SERVER = "flink, 2 slots, own job server"


def start_engines(work, clusters, worker_image=None, rows=()):
    """A Flink session cluster (2 slots) and a Spark standalone cluster (2 cores) on free ports; their rows
    (and, with `worker_image`, Flink starting its SDK workers from that image, on s3://; `SPLIT_TMS` on a
    second Flink cluster of two one-slot TaskManagers). With `rows`, only the clusters those rows need."""
    from pipelines.framework.engines.flink import FlinkCluster
    from pipelines.framework.engines.spark import SparkCluster
    from pipelines.framework.workers.external_pool import free_port
    # As `rewrite-mine cluster start flink` starts it: Beam's job server kept beside it, which the runs use
    # (the row "flink, 2 slots, own job server" starts one per run, as every run did before 2026-11-30).
    flink = FlinkCluster(os.path.join(work, "flink"), port=free_port(),
                                 rpc_port=free_port(), slots=2, job_port=free_port())
    if not rows or any(r.startswith("flink") and r != SPLIT_TMS for r in rows):
        flink.start()
        clusters.append(flink)
    spark = SparkCluster(os.path.join(work, "spark"), port=free_port(), ui_port=free_port(),
                                 worker_ui_port=free_port(), cores=2)
    if not rows or any(r.startswith("spark") for r in rows):
        spark.start()
        clusters.append(spark)
        os.environ["REWRITE_MINE_SPARK_UI"] = spark.ui_url
    image = ["--environment_type", "DOCKER", "--environment_config", worker_image]
    # The default (one container per slot: options.DOCKER_WORKERS_PER_SLOT), and two per slot, the default
    # before 2026-11-29: each container is a cold Python that imports Beam and loads the job's models.
    docker = [("flink, docker" + S3, ["--runner", "flink", "--flink_master", flink.master] + image,
               lambda: flink.jobmanager_pids() + flink.taskmanager_pids() + flink.job_server_pids()),
              ("flink, docker, 2 per slot" + S3, ["--runner", "flink", "--flink_master", flink.master] + image +
               ["--sdk_worker_parallelism", "4"],
               lambda: flink.jobmanager_pids() + flink.taskmanager_pids() + flink.job_server_pids())
              ] if worker_image else []
    if worker_image and (not rows or SPLIT_TMS in rows):
        split = FlinkCluster(os.path.join(work, "flink-split"), port=free_port(), rpc_port=free_port(), slots=1,
                             taskmanagers=2, taskmanager_memory="3072m")
        split.start()
        clusters.append(split)
        docker.append((SPLIT_TMS, ["--runner", "flink", "--flink_master", split.master] + image,
                       lambda: split.jobmanager_pids() + split.taskmanager_pids()))
    # The EXTERNAL rows first: a row run right after a Docker row shares the machine with that row's
    # containers (Beam keeps them --environment_cache_millis, 60 s, after the last stage, then removes them).
    # On 2026-11-30 the kept job server's row, run after the Docker row, took 87.8 88.9 64.6 s against
    # 67.4 66.0 73.0 s for its own-job-server twin after it; alternated without the Docker row, the kept one
    # was the faster in 3 of 4 rounds (the cause of the first figures inferred, not watched).
    return [("flink, 2 slots", ["--runner", "flink", "--flink_master", flink.master],
                      lambda: flink.jobmanager_pids() + flink.taskmanager_pids() + flink.job_server_pids()),
                     (OWN_JOB_SERVER, ["--runner", "flink", "--flink_master", flink.master, "--own_job_server"],
                      lambda: flink.jobmanager_pids() + flink.taskmanager_pids()),
            ("spark, 2 cores", ["--runner", "spark", "--spark_master_url", spark.master_url], spark.pids)] + docker


if __name__ == "__main__":
    main()
