"""Benchmark of SimSim's engines (miners/simsim/translate.py, miners/simsim/lm.py) against the bare engines.

    .venv/bin/python bench/bench_simsim.py [--sentences 1000] [--translate_batch 1000] [--pivot es]

Input: real sentences (8 to 40 words) of the bundled enwiki sample
(samples/wikipedia), cleaned and split by the project's own code. Each
measurement runs in a fresh Python process, so its peak RSS
(`getrusage(RUSAGE_SELF)`, and RUSAGE_CHILDREN for apertium's processes) is its own:

  * back-translation, English -> pivot -> English in batches of --translate_batch:
      - apertium: `back_translate_batch` (the BackTranslateFn code path) vs the
        bare baseline, an `apertium -u eng-xx` / `apertium -u xx-eng` process fed
        the same lines per batch (subprocess.run, no alignment checks, no mark
        stripping, no process-group handling);
      - ctranslate2: the same with a tiny random Marian model converted to int8
        (built here, as the tests do: a plumbing-overhead figure, not a
        translation-speed figure) vs bare SentencePiece + `translate_batch`;
      - apertium + what the job does to each candidate before the language model
        (`restore_function_words` with every kind, then the cheap candidate checks,
        miners/simsim/simulate.py) vs the same bare baseline;
  * language-model scoring of the same sentences (LM_PASSES times over):
      - default: `mean_nll` vs bare `pocketsphinx.NGramModel.prob` calls over the
        same lower-cased words;
      - kenlm: `mean_nll` vs bare `kenlm.Model.score` on a small ARPA file.

It prints sentences per second, the RATIO of each wrapped path to its bare
baseline measured in the same run (no thresholds), and peak memory of each with
the ratio to its baseline. Start-up (model loading) is excluded from the timings
and included in the memory figures; CPU seconds include apertium's processes.
"""
import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))


LM_PASSES = 20  # the scorers take milliseconds per 1,000 sentences: score them this many times


def _batches(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def _cpu():
    """CPU seconds of this process and its finished subprocesses (apertium's pipeline runs there)."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def run_one(kind, work, pivot, batch):
    """One measurement in this process; prints a JSON line with its figures."""
    if kind == "setup":  # in its own process, so that the parent stays small (forked children inherit its peak)
        import nlp_models
        sentences = nlp_models.wikipedia_sentences(batch)
        with open(os.path.join(work, "sentences.json"), "w", encoding="utf-8") as f:
            json.dump(sentences, f)
        nlp_models.tiny_ct2_pair(os.path.join(work, "ct2"), "xx")
        nlp_models.write_arpa(os.path.join(work, "small.arpa"))
        print(json.dumps({"kind": kind, "n": len(sentences), "words": sum(len(s.split()) for s in sentences)}))
        return
    with open(os.path.join(work, "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    if kind.startswith("lm_"):
        sentences = sentences * LM_PASSES
    ct2_dir, arpa = os.path.join(work, "ct2"), os.path.join(work, "small.arpa")
    checksum = 0.0
    if kind == "bt_bare_apertium":
        from miners.simsim.translate import APERTIUM_PIVOTS
        fwd, back = APERTIUM_PIVOTS[pivot]
        start, cpu0 = time.perf_counter(), _cpu()
        for chunk in _batches(sentences, batch):
            mid = subprocess.run(["apertium", "-u", fwd], input="\n".join(chunk) + "\n", capture_output=True,
                                 text=True, check=True).stdout
            out = subprocess.run(["apertium", "-u", back], input=mid, capture_output=True, text=True,
                                 check=True).stdout.split("\n")
            checksum += len(out) - 1
    elif kind in ("bt_apertium", "bt_ct2"):
        from miners.simsim.translate import back_translate_batch, make_translator
        translator = (make_translator("apertium", pivots=[pivot]) if kind == "bt_apertium" else
                      make_translator("ctranslate2", pivots=["xx"], ct2_model_dir=ct2_dir,
                                      translate_batch=batch, max_decoding_length=64)).load()
        start, cpu0 = time.perf_counter(), _cpu()
        for chunk in _batches(sentences, batch):
            out, error = back_translate_batch(translator, chunk, pivot if kind == "bt_apertium" else "xx")
            if error is not None:
                raise SystemExit(f"{kind}: {error!r}")
            checksum += len(out)
        translator.close()
    elif kind == "bt_apertium_checked":
        # what the job does to each back-translation before the language model: the function words the
        # pivot changed put back (restore_function_words, every kind) and the cheap candidate checks
        from miners.simsim.simulate import CANDIDATE_CHECKS, restore_function_words
        from miners.simsim.translate import back_translate_batch, make_translator
        translator = make_translator("apertium", pivots=[pivot]).load()
        start, cpu0 = time.perf_counter(), _cpu()
        for chunk in _batches(sentences, batch):
            out, error = back_translate_batch(translator, chunk, pivot)
            if error is not None:
                raise SystemExit(f"{kind}: {error!r}")
            for candidate, seed in zip(out, chunk):
                restored, _ = restore_function_words(candidate, seed)
                checksum += sum(check(restored, seed) is None for check in CANDIDATE_CHECKS.values())
        translator.close()
    elif kind == "bt_bare_ct2":
        import ctranslate2
        import sentencepiece
        models = {}
        for name in ("en-xx", "xx-en"):
            path = os.path.join(ct2_dir, name)
            models[name] = (ctranslate2.Translator(path, device="cpu", compute_type="int8"),
                            sentencepiece.SentencePieceProcessor(model_file=os.path.join(path, "source.spm")),
                            sentencepiece.SentencePieceProcessor(model_file=os.path.join(path, "target.spm")))
        start, cpu0 = time.perf_counter(), _cpu()
        for chunk in _batches(sentences, batch):
            for name in ("en-xx", "xx-en"):
                model, src, tgt = models[name]
                res = model.translate_batch([src.encode(s, out_type=str) + ["</s>"] for s in chunk],
                                            max_batch_size=min(batch, 64), beam_size=4, max_decoding_length=64)
                chunk = [tgt.decode([t for t in r.hypotheses[0] if t != "</s>"]) for r in res]
            checksum += len(chunk)
    elif kind in ("lm_default", "lm_kenlm"):
        from miners.simsim.lm import make_language_model
        model = make_language_model("default" if kind == "lm_default" else "kenlm",
                                    None if kind == "lm_default" else arpa).load()
        start, cpu0 = time.perf_counter(), _cpu()
        for chunk in _batches(sentences, batch):
            checksum += sum(model.mean_nll(chunk))
    elif kind == "lm_bare_pocketsphinx":
        from pocketsphinx import Config, LogMath, NGramModel
        from miners.simsim.lm import default_model_path
        logmath = LogMath()
        model = NGramModel(Config(), logmath, default_model_path())
        start, cpu0 = time.perf_counter(), _cpu()
        for s in sentences:
            words = ["<s>"] + s.lower().split() + ["</s>"]
            checksum += sum(logmath.log_to_ln(model.prob([words[i]] + words[max(0, i - 2):i][::-1]))
                            for i in range(1, len(words)))
    elif kind == "lm_bare_kenlm":
        import kenlm
        model = kenlm.Model(arpa)
        start, cpu0 = time.perf_counter(), _cpu()
        for s in sentences:
            checksum += model.score(s.lower(), bos=True, eos=True) * math.log(10)
    else:
        raise SystemExit(f"unknown measurement {kind}")
    elapsed, cpu = time.perf_counter() - start, _cpu() - cpu0
    print(json.dumps({"kind": kind, "seconds": elapsed, "cpu_seconds": cpu, "n": len(sentences), "checksum": checksum,
                      "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "children_maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))


def measure(kind, work, pivot, batch):
    cmd = [sys.executable, "-W", "ignore", os.path.abspath(__file__), "--one", kind, "--work", work,
           "--pivot", pivot, "--translate_batch", str(batch)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{kind} failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", type=int, default=1000, help="real enwiki sentences to translate and score")
    ap.add_argument("--translate_batch", type=int, default=1000, help="sentences per translator call")
    ap.add_argument("--pivot", default="es", help="apertium pivot")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--work", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        run_one(args.one, args.work, args.pivot, args.translate_batch)
        return

    work = tempfile.mkdtemp(prefix="bench_simsim_")
    setup = measure("setup", work, args.pivot, args.sentences)
    n, words = setup["n"], setup["words"]
    print(f"cpus: {os.cpu_count()}  input: {n} enwiki sentences ({words} words), "
          f"batches of {args.translate_batch}, pivot {args.pivot}")
    print(f"load average before: {os.getloadavg()[0]:.1f} (other processes on the machine distort the figures)")
    pairs = [("back-translation apertium", "bt_bare_apertium", "bt_apertium"),
             ("back-translation apertium + restore + candidate checks", "bt_bare_apertium", "bt_apertium_checked"),
             ("back-translation ctranslate2 (tiny random model)", "bt_bare_ct2", "bt_ct2"),
             ("LM default (pocketsphinx en-us)", "lm_bare_pocketsphinx", "lm_default"),
             ("LM kenlm (small ARPA)", "lm_bare_kenlm", "lm_kenlm")]
    for title, bare_kind, kind in pairs:
        bare = measure(bare_kind, work, args.pivot, args.translate_batch)
        ours = measure(kind, work, args.pivot, args.translate_batch)
        print(f"\n[{title}]")
        for r in (bare, ours):
            sub = f", largest subprocess {r['children_maxrss_mb']:.0f} MB" if r["children_maxrss_mb"] else ""
            print(f"  {r['kind']:<22}: {r['n'] / r['seconds']:9.0f} sentences/s  ({r['seconds']:.2f} s, "
                  f"{r['cpu_seconds']:.2f} s CPU)  peak {r['maxrss_mb']:.0f} MB{sub}")
        print(f"  RATIO {kind} time / {bare_kind} time: {ours['seconds'] / bare['seconds']:.2f}x "
              f"(CPU {ours['cpu_seconds'] / bare['cpu_seconds']:.2f}x); "
              f"memory {ours['maxrss_mb'] / bare['maxrss_mb']:.2f}x")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
