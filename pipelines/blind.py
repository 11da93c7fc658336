"""`rewrite-mine blind`: a blind reading of a rewriting output, drawn for a reader and scored.

A reader judges pairs without knowing which variant made them or what the job
scored them: `draw` writes a seeded random sample of N records per variant,
shuffled across variants, with only the source (`complex`) and the output
(`simple`) text, to a sheet; the variant, method (pivot), split and record of
every item go to a separate key file the reader does not open. The reader
writes one verdict per item: `a` acceptable, `s` one small slip, `b` broken or
meaning changed. `score` joins the verdicts with the key and prints the counts
per variant.

    rewrite-mine blind draw out/simplify --n s1=8,s2=40,s3=40 --seed 0 --sheet sample.txt --key sample.key.tsv
    rewrite-mine blind score --sheet sample.txt --key sample.key.tsv

Reference pairs (a human simplification corpus, e.g. ASSET's test set) can be mixed in,
shown exactly like the records (source and output only); their origin is only in the key,
as variant `reference`, so `score` reports the share of the references next to s2 and s3:

    rewrite-mine blind draw out/simplify --n s2=40,s3=40 --seed 5 --sheet sample.txt --key sample.key.tsv \
        --references ../shared/data/asset/asset.test-0-199.orig,../shared/data/asset/asset.test-0-199.simp.0 \
        --n_references 20

The second file names the references of each line; when it ends in `.simp.<k>`, every sibling
`.simp.<j>` file is a reference too, and each drawn line takes one of them at random (seeded).
ASSET is CC BY-NC 4.0: use it for evaluation only, never copy it into the project.

The draw reads every split's TFRecord shards of each variant, sorts the records
(shard order follows the runner's bundles) and samples with
random.Random(f"{seed}|{variant}"), so the same output and seed give the same sheet.
"""
import argparse
import hashlib
import os
import random
import re
import sys
import typing

from apache_beam.io.filesystems import FileSystems

VERDICTS = {"a": "acceptable", "s": "small_slip", "b": "broken"}
KEY_COLUMNS = ("item", "variant", "split", "method", "doc_id", "sentence_index", "simple_sha1")
SHEET_HEADER = """\
# Blind reading: {n} pairs. Each pair is a source sentence and a rewrite of it made by a program.
# Judge the output as a reader of English: does it say what the source says (or a simpler part of
# it), in grammatical English? After "verdict:" write one letter:
#   a = acceptable      s = one small slip (one wrong word or mark, meaning kept)
#   b = broken English, or meaning changed (names, numbers, negation, who did what)
# Leave the other lines as they are. Lines starting with # are ignored.
"""
_WORDS = {"acceptable": "a", "small": "s", "slip": "s", "broken": "b"}
_ITEM = re.compile(r"^== (\d+)\s*$")


def _records_of(dataset_dir: str, variant: str, splits: typing.Sequence[str], record_cls):
    from transforms.sinks import iter_tfrecords
    out = []
    for split in splits:
        pattern = FileSystems.join(dataset_dir, variant, split, "*.tfrecord")
        for path in sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list):
            out += [(split, record_cls.from_example(data)) for data in iter_tfrecords(path)]
    return out


def _order(item):
    split, r = item
    return (r.complex, r.simple, getattr(r, "method", ""), getattr(r, "doc_id", ""),
            getattr(r, "sentence_index", 0), split)


def parse_counts(text: str) -> typing.Dict[str, int]:
    """"s1=8,s2=40,s3=40" -> {"s1": 8, "s2": 40, "s3": 40}."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, n = part.partition("=")
        if not n.strip().isdigit():
            raise ValueError(f"--n {text!r}: expected VARIANT=N[,VARIANT=N...]")
        out[name.strip()] = int(n)
    return out


def draw(dataset_dir: str, counts: typing.Dict[str, int], seed: int = 0,
         references: typing.Optional[str] = None, n_references: int = 0) -> typing.List[dict]:
    """The shuffled items of a blind sheet: [{item, variant, split, record}], `counts[variant]`
    random records per variant (all of them when it has fewer), and `n_references` pairs of
    the reference corpus `references` ("ORIG,SIMP", see draw_references) as variant `reference`."""
    from pipelines.show import load_manifest, record_class
    manifest = load_manifest(FileSystems.join(dataset_dir, "manifest.json"))
    cls = record_class(manifest)
    splits = manifest.get("splits") or ["train", "validation", "test"]
    picked = []
    for variant in sorted(counts):
        records = sorted(_records_of(dataset_dir, variant, splits, cls), key=_order)
        rng = random.Random(f"{seed}|{variant}")
        for split, record in rng.sample(records, min(counts[variant], len(records))):
            picked.append({"variant": variant, "split": split, "record": record})
    if references and n_references:
        picked += draw_references(references, n_references, seed)
    return shuffle_items(picked, seed)


REFERENCE_VARIANT = "reference"
_SIMP_N = re.compile(r"^(.*\.simp)\.(\d+)$")


class ReferencePair(typing.NamedTuple):
    """A pair of a reference corpus, shaped like a record for the sheet and the key."""
    complex: str
    simple: str
    method: str
    doc_id: str
    sentence_index: int


def _reference_files(simple_path: str) -> typing.List[str]:
    """`X.simp.0` -> every existing `X.simp.<k>` (sorted by k); any other path -> [path]."""
    m = _SIMP_N.match(simple_path)
    if not m:
        return [simple_path]
    folder = os.path.dirname(simple_path) or "."
    prefix = os.path.basename(m.group(1)) + "."
    ks = sorted(int(name[len(prefix):]) for name in os.listdir(folder)
                if name.startswith(prefix) and name[len(prefix):].isdigit())
    return [os.path.join(folder, f"{prefix}{k}") for k in ks]


def _lines(path: str) -> typing.List[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def draw_references(spec: str, n: int, seed: int = 0) -> typing.List[dict]:
    """`n` random lines of a reference corpus `ORIG,SIMP` as items of variant `reference`: the
    source of ORIG's line and, as the output, that line of one of SIMP's sibling files (seeded)."""
    orig_path, _, simple_path = spec.partition(",")
    if not orig_path or not simple_path:
        raise ValueError(f"--references {spec!r}: expected ORIGINAL_FILE,SIMPLIFIED_FILE")
    sources = _lines(orig_path)
    files = _reference_files(simple_path)
    outputs = {path: _lines(path) for path in files}
    for path, lines in outputs.items():
        if len(lines) != len(sources):
            raise ValueError(f"{path} has {len(lines)} lines, {orig_path} has {len(sources)}")
    rng = random.Random(f"{seed}|{REFERENCE_VARIANT}")
    picked = []
    for index in sorted(rng.sample(range(len(sources)), min(n, len(sources)))):
        path = rng.choice(files)
        picked.append({"variant": REFERENCE_VARIANT, "split": "",
                       "record": ReferencePair(sources[index], outputs[path][index],
                                               f"reference:{os.path.basename(path)}",
                                               os.path.basename(orig_path), index)})
    return picked


def shuffle_items(items: typing.List[dict], seed: int) -> typing.List[dict]:
    """Shuffles items across variants (seeded) and numbers them from 1."""
    random.Random(f"{seed}|shuffle").shuffle(items)
    for i, item in enumerate(items, 1):
        item["item"] = i
    return items


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def write_sheet(items, sheet_path: str, key_path: str) -> None:
    """The reader's sheet (source and output only) and the key (item -> variant, method, record)."""
    with open(sheet_path, "w", encoding="utf-8") as f:
        f.write(SHEET_HEADER.format(n=len(items)))
        for item in items:
            r = item["record"]
            f.write(f"\n== {item['item']}\nsource: {_one_line(r.complex)}\noutput: {_one_line(r.simple)}\nverdict: \n")
    with open(key_path, "w", encoding="utf-8") as f:
        f.write("\t".join(KEY_COLUMNS) + "\n")
        for item in items:
            r = item["record"]
            row = [str(item["item"]), item["variant"], item["split"], getattr(r, "method", ""),
                   getattr(r, "doc_id", ""), str(getattr(r, "sentence_index", "")),
                   hashlib.sha1(r.simple.encode("utf-8")).hexdigest()[:12]]
            f.write("\t".join(_one_line(c) for c in row) + "\n")


def read_verdicts(sheet_path: str) -> typing.Dict[int, str]:
    """{item: "acceptable" | "small_slip" | "broken" | "unjudged" | "invalid:<text>"} of a filled sheet."""
    out: typing.Dict[int, str] = {}
    current = None
    with open(sheet_path, encoding="utf-8") as f:
        for line in f:
            m = _ITEM.match(line)
            if m:
                current = int(m.group(1))
                out[current] = "unjudged"
            elif current is not None and line.lower().startswith("verdict:"):
                text = line.split(":", 1)[1].strip().lower()
                if not text:
                    continue
                word = text.split()[0].strip(".,;")
                out[current] = VERDICTS.get(_WORDS.get(word, word), f"invalid:{text[:20]}")
    return out


def read_key(key_path: str) -> typing.Dict[int, dict]:
    with open(key_path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        return {int(row["item"]): row for row in (dict(zip(header, line.rstrip("\n").split("\t")))
                                                   for line in f if line.strip())}


def tally(verdicts: typing.Dict[int, str], key: typing.Dict[int, dict]) -> typing.Dict[str, typing.Dict[str, int]]:
    """{variant: {"n", "acceptable", "small_slip", "broken", "unjudged", "invalid"}}; an item of the
    key missing from the sheet is unjudged; an item of the sheet missing from the key is an error."""
    extra = sorted(set(verdicts) - set(key))
    if extra:
        raise ValueError(f"items {extra[:5]} of the sheet are not in the key (another draw's key?)")
    out: typing.Dict[str, typing.Dict[str, int]] = {}
    for item, row in sorted(key.items()):
        counts = out.setdefault(row["variant"], dict.fromkeys(
            ("n", "acceptable", "small_slip", "broken", "unjudged", "invalid"), 0))
        verdict = verdicts.get(item, "unjudged")
        counts["n"] += 1
        counts["invalid" if verdict.startswith("invalid") else verdict] += 1
    return dict(sorted(out.items()))


def print_tally(table, stream) -> None:
    stream.write(f"{'variant':<10}{'n':>5}{'accept':>8}{'slip':>6}{'broken':>8}{'unjudged':>10}{'invalid':>9}"
                 f"{'  accept+slip':>14}{'share':>7}\n")
    for variant, c in table.items():
        judged = c["acceptable"] + c["small_slip"] + c["broken"]
        ok = c["acceptable"] + c["small_slip"]
        share = f"{ok}/{judged}" if judged else "-"
        percent = f"{100 * ok / judged:.0f}%" if judged else "-"
        stream.write(f"{variant:<10}{c['n']:>5}{c['acceptable']:>8}{c['small_slip']:>6}{c['broken']:>8}"
                     f"{c['unjudged']:>10}{c['invalid']:>9}{share:>14}{percent:>7}\n")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rewrite-mine blind", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="write a blind sheet and its key from an output directory")
    d.add_argument("path", help="OUTPUT/<dataset> (its manifest.json and <variant>/<split>/*.tfrecord)")
    d.add_argument("--n", default="s1=8,s2=40,s3=40", help="records per variant: VARIANT=N[,VARIANT=N...]")
    d.add_argument("--seed", type=int, default=0, help="seed of the draw and of the shuffle")
    d.add_argument("--sheet", required=True, help="the reader's file (source and output of each item)")
    d.add_argument("--key", required=True, help="the key file (item -> variant, method, record); keep it from the reader")
    d.add_argument("--references", default=None,
                   help="ORIG,SIMP: a reference corpus (line i of SIMP simplifies line i of ORIG; SIMP ending in "
                        ".simp.<k> takes one of its .simp.* siblings per line, seeded) mixed into the sheet unmarked, "
                        "variant 'reference' in the key; e.g. ../shared/data/asset/asset.test-0-199.orig,"
                        "../shared/data/asset/asset.test-0-199.simp.0 (CC BY-NC: evaluation only)")
    d.add_argument("--n_references", type=int, default=20, help="reference pairs drawn with --references")
    s = sub.add_parser("score", help="counts of the verdicts of a filled sheet per variant")
    s.add_argument("--sheet", required=True)
    s.add_argument("--key", required=True)
    return parser


def main(argv=None) -> int:
    args = make_parser().parse_args(argv)
    if args.command == "draw":
        if not os.path.exists(os.path.join(args.path, "manifest.json")) and "://" not in args.path:
            print(f"rewrite-mine blind: no manifest.json in {args.path} (OUTPUT/<dataset>?)", file=sys.stderr)
            return 2
        items = draw(args.path, parse_counts(args.n), args.seed, args.references,
                     args.n_references if args.references else 0)
        write_sheet(items, args.sheet, args.key)
        by_variant: typing.Dict[str, int] = {}
        for item in items:
            by_variant[item["variant"]] = by_variant.get(item["variant"], 0) + 1
        print(f"{len(items)} items ({', '.join(f'{v} {n}' for v, n in sorted(by_variant.items()))}) -> "
              f"{args.sheet}; key -> {args.key}")
        return 0
    print_tally(tally(read_verdicts(args.sheet), read_key(args.key)), sys.stdout)
    return 0
