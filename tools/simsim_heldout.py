"""Counts of a SimSim run on held-out seeds, without showing a word of its output (issue 51).

A held-out reading (../shared/READING.md) is earned only while nobody tuned on the held-out output:
this prints what may be looked at freely (yields, the share of s3 records whose simple side is their
seed's s2 record's, each check's counts from the manifest) and never a record's text.

    python tools/simsim_heldout.py jsonl ../shared/data/asset/asset.valid-0-999.orig held.jsonl
    rewrite-mine simsim --input held.jsonl --output out/ --no_progress
    python tools/simsim_heldout.py counts out/simplify --lines 1000
    python tools/simsim_heldout.py sheet out/simplify --references ../shared/data/asset/asset.valid-0-999.orig \
        --seed SEED --sheet sheet.tsv --key key.tsv

`jsonl` writes one JSON-lines document per line of a one-sentence-a-line file (ASSET's `.orig`),
so each line is one text seed (a `.orig` given as it is would be read as a complex-simple release).
`sheet` draws a blind sheet (item, SOURCE, OUTPUT; the key apart) with references mixed in unmarked,
none of them of a source the drawn records have; ASSET is CC BY-NC 4.0: sheets and keys that hold its
text stay out of the project.
"""
import argparse
import collections
import json
import os
import sys
import typing

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
    from_seed = sum(1 for r in s3 if r.method == "simulated:seed")
    per = (lambda n: round(1000.0 * n / lines, 1)) if lines else (lambda n: None)
    return {"lines": lines, "seeds": seeds, "s2": len(s2), "s3": len(s3), "s2_per_1000_lines": per(len(s2)),
            "s3_per_1000_lines": per(len(s3)), "s3_same_as_s2": same,
            "s3_same_as_s2_share": round(same / len(s3), 3) if s3 else 0.0,
            "s3_operations": dict(sorted(ops.items())), "s3_from_seed": from_seed,
            "select": stages.get("select", {}), "simulate": stages.get("simulate", {}),
            "candidate_checks": manifest.get("derived", {}).get("candidate_checks", {}),
            "quality": {k: stages.get(k, {}).get("filtered", {}) for k in ("bleu", "exact_dedup", "near_dedup")},
            "stage_seconds": manifest.get("derived", {}).get("stage_seconds", {})}


def _one_line(text: str) -> str:
    return " ".join(str(text).replace("\t", " ").split())  # runs of spaces collapsed: spacing tells nothing


def read_sheet_rows(paths) -> list:
    """[(source, output)] of earlier sheets (item, SOURCE, OUTPUT a line, a header first), normalised."""
    rows = []
    for path in paths or ():
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f):
                parts = line.rstrip("\n").split("\t")
                if n == 0 or len(parts) < 3:
                    continue
                rows.append((_norm(parts[1]), _norm(parts[2])))
    return rows


def _fresh_first(rng, records, n: int, seen_sources: set) -> list:
    """`n` random records (all when fewer), those whose source no earlier sheet showed drawn first."""
    fresh = [r for r in records if _norm(r.complex) not in seen_sources]
    seen = [r for r in records if _norm(r.complex) in seen_sources]
    got = rng.sample(fresh, min(n, len(fresh)))
    return got + rng.sample(seen, min(n - len(got), len(seen)))


def overlap(items: list, earlier_rows: list) -> dict:
    """Per origin: items, items whose (source, output) an earlier sheet showed (judged before), and items
    whose source an earlier sheet showed with another output."""
    pairs, sources = set(earlier_rows), {s for s, _ in earlier_rows}
    out = {}
    for it in items:
        o = out.setdefault(it["origin"], {"items": 0, "same_row_judged_before": 0, "source_seen_before": 0})
        o["items"] += 1
        src, outp = _norm(it["source"]), _norm(it["output"])
        if (src, outp) in pairs:
            o["same_row_judged_before"] += 1
        elif src in sources:
            o["source_seen_before"] += 1
    return out


def sheet_items(dataset_dir: str, counts: dict, seed: int, orig: str, n_references: int,
                earlier_rows: typing.Optional[list] = None) -> list:
    """Items of a blind sheet (../shared/READING.md): `counts[variant]` random records of each variant (all of
    them when it has fewer), and `n_references` lines of a reference corpus (`orig` and its `.simp.<k>`
    siblings, one picked per line) whose source is none of the drawn records' sources (a reader who saw one
    sentence twice would know one of them is a program's); shuffled, numbered from 1. Seeded: the same
    output and seed give the same items. `earlier_rows` (read_sheet_rows of earlier sheets): records and
    reference lines of a source those sheets showed are drawn only when too few others are left."""
    import hashlib
    import random
    from pipelines.blind import _reference_files, _lines
    items, sources = [], set()
    seen_sources = {s for s, _ in earlier_rows or ()}
    for variant in sorted(counts):
        records = read_records(dataset_dir, variant)
        rng = random.Random(f"{seed}|{variant}")
        for r in _fresh_first(rng, records, counts[variant], seen_sources):
            items.append({"origin": variant, "source": r.complex, "output": r.simple, "method": r.method,
                          "doc_id": r.doc_id, "sentence_index": str(r.sentence_index)})
            sources.add(_norm(r.complex))
    lines = _lines(orig)
    files = _reference_files(orig[:-len(".orig")] + ".simp.0") if orig.endswith(".orig") else []
    outputs = {path: _lines(path) for path in files}
    free = [i for i, line in enumerate(lines) if line.strip() and _norm(line) not in sources]
    unseen = [i for i in free if _norm(lines[i]) not in seen_sources]
    if len(unseen) >= n_references:
        free = unseen
    rng = random.Random(f"{seed}|reference")
    for i in sorted(rng.sample(free, min(n_references, len(free)))):
        path = rng.choice(files)
        items.append({"origin": "reference", "source": lines[i], "output": outputs[path][i],
                      "method": f"reference:{os.path.basename(path)}", "doc_id": os.path.basename(orig),
                      "sentence_index": str(i)})
    random.Random(f"{seed}|shuffle").shuffle(items)
    for n, item in enumerate(items, 1):
        item["item"] = n
        item["output_sha1"] = hashlib.sha1(item["output"].encode("utf-8")).hexdigest()[:12]
    return items


def write_sheet(items: list, sheet_path: str, key_path: str) -> None:
    """The reader's sheet (item, SOURCE, OUTPUT) and, apart, the key (item -> origin and record)."""
    with open(sheet_path, "w", encoding="utf-8") as f:
        f.write("item\tSOURCE\tOUTPUT\n")
        for it in items:
            f.write(f"{it['item']}\t{_one_line(it['source'])}\t{_one_line(it['output'])}\n")
    cols = ("item", "origin", "method", "doc_id", "sentence_index", "output_sha1")
    with open(key_path, "w", encoding="utf-8") as f:
        f.write("\t".join(cols) + "\n")
        for it in items:
            f.write("\t".join(_one_line(it[c]) for c in cols) + "\n")


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
    d = sub.add_parser("sheet", help="a blind sheet of a run's s2 / s3 records and a reference corpus's lines")
    d.add_argument("dataset_dir", help="OUTPUT/simplify")
    d.add_argument("--references", required=True, help="the seeds' ORIG file; its .simp.<k> siblings are the references")
    d.add_argument("--n", default="s2=40,s3=40", help="records per variant (all of a variant that has fewer)")
    d.add_argument("--n_references", type=int, default=20)
    d.add_argument("--seed", type=int, required=True, help="a seed never used before (../shared/READING.md)")
    d.add_argument("--sheet", required=True)
    d.add_argument("--key", required=True)
    d.add_argument("--earlier_sheet", action="append", default=[],
                   help="a sheet read before (repeatable): sources it showed are drawn last, and the overlap of "
                        "the new sheet with the earlier ones is printed (../shared/READING.md)")
    args = parser.parse_args(argv)
    if args.command == "sheet":
        counts = {k: int(v) for k, v in (part.split("=") for part in args.n.split(",") if part)}
        earlier = read_sheet_rows(args.earlier_sheet)
        items = sheet_items(args.dataset_dir, counts, args.seed, args.references, args.n_references, earlier)
        write_sheet(items, args.sheet, args.key)
        print(f"{len(items)} items: " + ", ".join(f"{o} {sum(1 for i in items if i['origin'] == o)}"
                                                for o in sorted({i['origin'] for i in items})))
        if earlier:
            print("overlap with earlier sheets: " + json.dumps(overlap(items, earlier), sort_keys=True))
        return
    if args.command == "jsonl":
        print(to_jsonl(args.lines, args.out, args.prefix))
    else:
        print(json.dumps(summary(args.dataset_dir, args.lines), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
