"""Benchmark: the whole DiscoFuse pipeline against the bare annotator, in one run.

Sentences come from the bundled English Wikipedia sample (real reader and
segmenter). Each measurement runs in its own subprocess, so peak memory
(ru_maxrss) is per worker:

  * bare      : load spaCy, `nlp.pipe(all sentences, batch_size=B)`;
  * pipeline  : in-process Beam (FnApiRunner, one worker): SegmentedDocuments ->
                AnnotateDocuments (pre-check on) -> MineFusionExamples;
  * no_precheck: the same pipeline parsing every sentence.

Both include model loading. Printed as ratios against the bare annotator
(the goal is a pipeline rate >= 0.8x the bare rate), by wall-clock time and
by CPU time of the worker process (user + sys, less sensitive to other load on
a shared machine); the modes run interleaved `--repeats` times and the median
is shown.

    .venv/bin/python bench/bench_discofuse.py [--docs 40] [--batch_size 64] [--repeats 1]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "samples", "wikipedia",
                      "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
sys.path.insert(0, ROOT)


def load_documents(n_docs):
    from miners import sources
    from miners.text.segmenter import segment
    from schemas.records import Document, SegmentedDocument
    docs = []
    for d in sources.iter_wiki_articles(SAMPLE, SAMPLE, "fusion"):
        if not isinstance(d, Document):
            continue
        sentences, paragraphs = segment(d.text)
        if sentences:
            docs.append(SegmentedDocument(id=d.id, source=d.source, sentences=sentences, paragraphs=paragraphs,
                                          path=SAMPLE))
        if len(docs) >= n_docs:
            break
    return docs


def run_bare(docs, batch_size):
    from miners.nlp.annotators import load_spacy
    sentences = [s for d in docs for s in d.sentences]
    t0 = time.perf_counter()
    nlp = load_spacy("en_core_web_sm")
    n = sum(1 for _ in nlp.pipe(sentences, batch_size=batch_size))
    return {"sentences": n, "seconds": time.perf_counter() - t0}


def run_pipeline(docs, batch_size, precheck):
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    from transforms.annotate import AnnotateDocuments
    from transforms.discofuse import MineFusionExamples
    out_path = f"/tmp/bench_discofuse_{os.getpid()}.txt"
    t0 = time.perf_counter()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        ann = (p | beam.Create(docs)
               | AnnotateDocuments("fusion", docs_per_batch=16, batch_size=batch_size, precheck=precheck,
                                   lang_filter=True))
        mined = ann["annotated"] | MineFusionExamples("fusion")
        (mined["examples"] | beam.Filter(lambda kv: kv[0] == "full") | beam.combiners.Count.Globally()
         | beam.Map(lambda n: open(out_path, "w").write(str(n))))
    seconds = time.perf_counter() - t0
    examples = int(open(out_path).read())
    os.remove(out_path)
    return {"sentences": sum(len(d.sentences) for d in docs), "seconds": seconds, "examples": examples}


def child(mode, n_docs, batch_size):
    docs = load_documents(n_docs)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_at_start = usage.ru_utime + usage.ru_stime
    if mode == "bare":
        r = run_bare(docs, batch_size)
    else:
        r = run_pipeline(docs, batch_size, precheck=(mode == "pipeline"))
    r["cpu_at_start"] = cpu_at_start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    r["peak_rss_mib"] = usage.ru_maxrss / 1024
    r["cpu_seconds"] = usage.ru_utime + usage.ru_stime - r.pop("cpu_at_start")
    print("RESULT " + json.dumps(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--batch_size", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--child", default=None)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.docs, args.batch_size)
    import statistics
    runs = {"bare": [], "pipeline": [], "no_precheck": []}
    for _ in range(args.repeats):
        for mode in runs:
            proc = subprocess.run([sys.executable, __file__, "--child", mode, "--docs", str(args.docs),
                                   "--batch_size", str(args.batch_size)], capture_output=True, text=True, cwd=ROOT,
                                  env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore"))
            line = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
            if proc.returncode or not line:
                sys.stderr.write(proc.stderr[-3000:])
                raise SystemExit(f"{mode} failed")
            runs[mode].append(json.loads(line[-1][7:]))

    def med(mode, key):
        return statistics.median(r[key] for r in runs[mode])

    n = runs["bare"][0]["sentences"]
    bare_wall, bare_cpu, bare_mem = n / med("bare", "seconds"), n / med("bare", "cpu_seconds"), med("bare", "peak_rss_mib")
    print(f"sentences: {n} from {args.docs} documents of the bundled enwiki sample; batch size {args.batch_size}; "
          f"median of {args.repeats} interleaved run(s); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'run':<13}{'sent/s wall':>12}{'ratio':>7}{'sent/s cpu':>12}{'ratio':>7}{'peak MiB':>10}{'ratio':>7}"
          f"{'examples':>10}")
    for mode in runs:
        wall, cpu, mem = n / med(mode, "seconds"), n / med(mode, "cpu_seconds"), med(mode, "peak_rss_mib")
        print(f"{mode:<13}{wall:>12.1f}{wall / bare_wall:>7.2f}{cpu:>12.1f}{cpu / bare_cpu:>7.2f}{mem:>10.0f}"
              f"{mem / bare_mem:>7.2f}{runs[mode][0].get('examples', ''):>10}")


if __name__ == "__main__":
    main()
