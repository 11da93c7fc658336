"""Counts of a SimSim run on held-out seeds, without showing a word of its output (issue 51).

A held-out reading (../shared/READING.md) is earned only while nobody tuned on the held-out output:
this prints what may be looked at freely (yields, the share of s3 records whose simple side is their
seed's s2 record's, each check's counts from the manifest) and never a record's text.

    python tools/simsim_heldout.py jsonl ../shared/data/asset/asset.valid-0-999.orig held.jsonl
    rewrite-mine simsim --input held.jsonl --output out/ --no_progress
    python tools/simsim_heldout.py counts out/simplify --lines 1000

`jsonl` writes one JSON-lines document per line of a one-sentence-a-line file (ASSET's `.orig`),
so each line is one text seed (a `.orig` given as it is would be read as a complex-simple release).
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def to_jsonl(lines_path: str, out_path: str, prefix: str = "") -> int:
    """One `{"id", "text"}` document per non-empty line; returns how many."""
    prefix = prefix or os.path.basename(lines_path)
    n = 0
    with open(lines_path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for i, line in enumerate(f):
            if line.strip():
                out.write(json.dumps({"id": f"{prefix}:{i}", "text": line.strip()}, ensure_ascii=False) + "\n")
                n += 1
    return n


def read_records(dataset_dir: str, variant: str):
    """[record] of one variant, every split (sorted: shard order follows the runner)."""
    from pipelines.blind import _records_of
    from pipelines.show import load_manifest, record_class
    manifest = load_manifest(os.path.join(dataset_dir, "manifest.json"))
    splits = manifest.get("splits") or ["train", "validation", "test"]
    records = [r for _, r in _records_of(dataset_dir, variant, splits, record_class(manifest))]
    return sorted(records, key=lambda r: (r.doc_id, r.sentence_index, r.simple))


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def summary(dataset_dir: str, lines: int = 0) -> dict:
    """Yields, the identical-s3 share, s3's operations and the checks' counts of a run (no text)."""
    with open(os.path.join(dataset_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    stages = manifest.get("counts", {}).get("stages", {})
    seeds = sum(v for k, v in stages.get("seeds", {}).items() if isinstance(v, int))
    s2 = read_records(dataset_dir, "s2")
    s3 = read_records(dataset_dir, "s3")
    s2_by_seed = {(r.doc_id, r.sentence_index): _norm(r.simple) for r in s2}
    same = sum(1 for r in s3 if s2_by_seed.get((r.doc_id, r.sentence_index)) == _norm(r.simple))
    ops = collections.Counter(o for r in s3 for o in r.operations if o != "back_translation")
    per = (lambda n: round(1000.0 * n / lines, 1)) if lines else (lambda n: None)
    return {"lines": lines, "seeds": seeds, "s2": len(s2), "s3": len(s3), "s2_per_1000_lines": per(len(s2)),
            "s3_per_1000_lines": per(len(s3)), "s3_same_as_s2": same,
            "s3_same_as_s2_share": round(same / len(s3), 3) if s3 else 0.0,
            "s3_operations": dict(sorted(ops.items())),
            "select": stages.get("select", {}), "simulate": stages.get("simulate", {}),
            "candidate_checks": manifest.get("derived", {}).get("candidate_checks", {}),
            "quality": {k: stages.get(k, {}).get("filtered", {}) for k in ("bleu", "exact_dedup", "near_dedup")},
            "stage_seconds": manifest.get("derived", {}).get("stage_seconds", {})}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    j = sub.add_parser("jsonl", help="a one-sentence-a-line file -> JSON-lines documents, one per line")
    j.add_argument("lines")
    j.add_argument("out")
    j.add_argument("--prefix", default="")
    c = sub.add_parser("counts", help="yields, identical-s3 share and checks of a run's dataset folder")
    c.add_argument("dataset_dir", help="OUTPUT/simplify")
    c.add_argument("--lines", type=int, default=0, help="seed lines of the input (for the per-1,000 yields)")
    args = parser.parse_args(argv)
    if args.command == "jsonl":
        print(to_jsonl(args.lines, args.out, args.prefix))
    else:
        print(json.dumps(summary(args.dataset_dir, args.lines), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
