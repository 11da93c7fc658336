"""Recall of the ParaSCI job on real papers: plant held-out ParaSCI pairs in them, run the job, look.

    .venv/bin/python tools/plant_parasci.py [--n_intra 50] [--n_citation 50] [--work DIR] [--keep]
                                            [-- extra job options, e.g. --direct_num_workers 1]

The held-out pairs are those tools/fit_parasci_decision.py did not fit on (its `held_out`), in
file order, each sentence in one planted pair only (`planted_pairs`; --all_pairs: every pair).
They are planted in copies of the real S2ORC papers of ../shared/data/scientific that carry
their body as a top-level `body_text` list (the 2020 and 2021 forms), round robin:

  intra_paper     src as an extra abstract paragraph, tgt as an extra "Discussion" paragraph
                  of the same paper (two of the six sections §3.1 compares);
  same_citation   src in an "Introduction" paragraph of paper i, tgt in one of paper i + 1, each
                  citing the same new reference ("Planted reference N", 2001) through a real
                  `cite_spans` entry, so the reader links both to one key.

Every other paper file is copied unchanged, and the job (`python -m pipelines.cli parasci --tsv`)
runs on the whole folder, as a user would run it. A planted pair is found when a written pair has
the same two sentences (compared on lower-cased word tokens, citation markers left out, so the
release's tokenisation and the citation placeholder do not matter). Prints recall per kind, the
pairs written per paper, and the Table 2 figures of the manifest.
"""
import argparse
import copy
import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
DEFAULT_PAPERS = ROOT.parent / "shared" / "data" / "scientific"


def plant(papers_dir, out_dir, intra, citation):
    """Copy papers_dir to out_dir with the pairs planted; returns the host file names used."""
    from fit_parasci_decision import held_out  # noqa: F401  (documented provenance)
    files = sorted(p for p in glob.glob(os.path.join(papers_dir, "**", "*"), recursive=True) if os.path.isfile(p))
    hosts = {}
    for path in files:
        if path.endswith(".json"):
            with open(path, encoding="utf-8") as f:
                obj = json.load(f)
            if isinstance(obj.get("body_text"), list) and isinstance(obj.get("abstract"), list):
                hosts[path] = obj
    names = sorted(hosts)
    if len(names) < 2:
        raise SystemExit(f"need two S2ORC 2020/2021 papers under {papers_dir}, found {len(names)}")
    docs = {p: copy.deepcopy(hosts[p]) for p in names}
    for i, (a, b) in enumerate(intra):
        d = docs[names[i % len(names)]]
        d["abstract"].append({"text": a, "cite_spans": [], "ref_spans": [], "section": "Abstract"})
        d["body_text"].append({"text": b, "cite_spans": [], "ref_spans": [], "section": "Discussion"})
    for i, (a, b) in enumerate(citation):
        ref = f"BIBPLANT{i}"
        for k, text in ((i, a), (i + 1, b)):
            d = docs[names[k % len(names)]]
            d.setdefault("bib_entries", {})[ref] = {"ref_id": ref, "title": f"Planted reference {i}",
                                                     "authors": [{"first": "A", "middle": [], "last": "Planted",
                                                                  "suffix": ""}],
                                                     "year": 2001, "venue": "", "link": None}
            body = text[:-2] if text.endswith(" .") else text
            marker = "(Planted, 2001)"
            full = f"{body} {marker} ."
            start = len(body) + 1
            d["body_text"].append({"text": full, "section": "Introduction", "ref_spans": [],
                                   "cite_spans": [{"start": start, "end": start + len(marker), "text": marker,
                                                   "ref_id": ref}]})
    for path in files:
        rel = os.path.relpath(path, papers_dir)
        dest = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if path in docs:
            with open(dest, "w", encoding="utf-8") as f:
                json.dump(docs[path], f)
        else:
            shutil.copyfile(path, dest)
    return names


def planted_pairs(data, distinct=True):
    """The held-out release pairs in file order, the ones to plant first. With `distinct`, a pair
    sharing a sentence (compared as `key` compares them) with an earlier pair is left out: the
    release is a graph (249 of the 543 held-out pairs share a sentence with another), and the job
    writes each sentence in one pair only, so two planted pairs with one sentence in one paper
    could never both be found."""
    from fit_parasci_decision import held_out
    from miners.parasci.pairs import read_release_pairs
    from miners.parasci.decision import tokens
    out, seen = [], set()
    for a, b in read_release_pairs(data):
        if not held_out(a, b):
            continue
        ka, kb = " ".join(tokens(a)), " ".join(tokens(b))
        if distinct and (ka in seen or kb in seen or ka == kb):
            continue
        seen.update((ka, kb))
        out.append((a, b))
    return out


def key(a, b):
    from miners.parasci.decision import tokens
    return frozenset((" ".join(tokens(a)), " ".join(tokens(b))))


def recall_under_cap(out, intra, citation, cap):
    """Share of the planted intra pairs the job would write if each were the only planted pair of its
    host paper: the pair is written (the run had no cap) and survives `cap_per_paper` together with
    the in-paper pairs of the host that hold no planted sentence."""
    from miners.parasci import pairs as ps
    from miners.parasci.decision import tokens
    from schemas.records import SciParaphraseExample
    from transforms.sinks import read_records
    records = list(read_records(sorted(glob.glob(os.path.join(out, "sci_para", "base", "*", "*.tfrecord"))),
                                SciParaphraseExample))
    planted_sentences = {" ".join(tokens(s)) for pair in intra + citation for s in pair}
    own = {}
    for r in records:
        if r.method in ps.IN_PAPER_METHODS and not ({" ".join(tokens(r.src)), " ".join(tokens(r.tgt))}
                                                    & planted_sentences):
            own.setdefault(r.paper_id, []).append(r)
    wanted = {key(a, b) for a, b in intra}
    n = 0
    for r in records:
        if r.method in ps.IN_PAPER_METHODS and key(r.src, r.tgt) in wanted:
            kept, _ = ps.cap_per_paper(own.get(r.paper_id, []) + [r], cap)
            n += any(k is r for k in kept)
    return n / max(1, len(intra))


def read_release(out):
    pairs = []
    for src in sorted(glob.glob(os.path.join(out, "sci_para", "release", "*", "*.src"))):
        with open(src, encoding="utf-8") as f:
            s = f.read().splitlines()
        with open(src[:-4] + ".tgt", encoding="utf-8") as f:
            t = f.read().splitlines()
        pairs += list(zip(s, t))
    return pairs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"))
    parser.add_argument("--papers", default=str(DEFAULT_PAPERS))
    parser.add_argument("--n_intra", type=int, default=50)
    parser.add_argument("--n_citation", type=int, default=50)
    parser.add_argument("--work", default="", help="folder for the planted papers and the output (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--all_pairs", action="store_true",
                        help="plant the held-out pairs in file order even when two share a sentence (the "
                             "first measurements, before the pairs were made distinct)")
    parser.add_argument("--cap", type=int, default=None,
                        help="in-paper pairs per paper to apply (default: the job's default, "
                             "miners.parasci.pairs.DEFAULT_MAX_PAIRS_PER_PAPER; 0: no cap)")
    parser.add_argument("--at", default="",
                        help="comma-separated decision thresholds at or above the run's: also print the recall "
                             "each would give (read from the TFRecords' paraphrase_probability; raising the "
                             "threshold revives no pair lost to a better one, see tools/sample_parasci.py)")
    args, job_args = parser.parse_known_args(argv)
    job_args = [a for a in job_args if a != "--"]
    try:
        at = [float(x) for x in args.at.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--at: comma-separated numbers, got {args.at!r}")

    test = planted_pairs(args.data, distinct=not args.all_pairs)
    intra = test[:args.n_intra]
    citation = test[args.n_intra:args.n_intra + args.n_citation]
    work = args.work or tempfile.mkdtemp(prefix="plant_parasci-")
    papers_out, out = os.path.join(work, "papers"), os.path.join(work, "out")
    shutil.rmtree(work, ignore_errors=True) if args.work else None
    hosts = plant(args.papers, papers_out, intra, citation)
    from miners.parasci import pairs as ps
    cap = ps.DEFAULT_MAX_PAIRS_PER_PAPER if args.cap is None else args.cap
    cmd = [sys.executable, "-m", "pipelines.cli", "parasci", "--input", os.path.join(papers_out, "**", "*"),
           "--output", out, "--tsv"] + job_args + ["--max_pairs_per_paper", "0"]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=str(ROOT))
    written = read_release(out)
    found = {key(a, b) for a, b in written}
    r_intra_uncapped = sum(key(a, b) in found for a, b in intra) / max(1, len(intra))
    r_intra = recall_under_cap(out, intra, citation, cap)
    r_cit = sum(key(a, b) in found for a, b in citation) / max(1, len(citation))
    planted = {key(a, b) for a, b in intra + citation}
    other = [p for p in written if key(*p) not in planted]
    with open(os.path.join(out, "sci_para", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    n_papers = len(glob.glob(os.path.join(papers_out, "**", "*"), recursive=True)) - \
        len([p for p in glob.glob(os.path.join(papers_out, "**", "*"), recursive=True) if os.path.isdir(p)])
    result = {"hosts": [os.path.basename(h) for h in hosts], "intra_planted": len(intra),
              "citation_planted": len(citation), "recall_intra": round(r_intra, 3), "cap": cap,
              "recall_intra_uncapped": round(r_intra_uncapped, 3),
              "recall_citation": round(r_cit, 3), "pairs_written": len(written),
              "pairs_not_planted": len(other), "files": n_papers,
              "table2": manifest.get("derived", {}).get("table2")}
    if at:
        from schemas.records import SciParaphraseExample
        from transforms.sinks import read_records
        shards = sorted(glob.glob(os.path.join(out, "sci_para", "base", "*", "*.tfrecord")))
        records = list(read_records(shards, SciParaphraseExample))
        result["at"] = {}
        for p in at:
            kept = {key(r.src, r.tgt) for r in records if r.paraphrase_probability >= p}
            result["at"][p] = {"recall_intra": round(sum(key(a, b) in kept for a, b in intra) / max(1, len(intra)), 3),
                               "recall_citation": round(sum(key(a, b) in kept for a, b in citation)
                                                        / max(1, len(citation)), 3)}
    print(json.dumps(result, indent=1))
    if not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return result


if __name__ == "__main__":
    main()
