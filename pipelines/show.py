"""`rewrite-mine show OUTPUT/<dataset>`: what an existing output holds, without running anything.

Prints the run's summary from `manifest.json` (as at the end of the run, with
the advice for empty or nearly empty stages), a few random examples per
variant and label read back from the TFRecord shards, and the path of the
HTML report; `--open` opens the report in a browser.

    rewrite-mine show out/markers
    rewrite-mine show out/markers --examples 3 --max_labels 5 --seed 1 --open
    rewrite-mine show out/            # every dataset under out/
"""
import argparse
import collections
import json
import os
import random
import sys
import typing

from apache_beam.io.filesystems import FileSystems

MANIFEST = "manifest.json"


def find_manifests(path: str) -> typing.List[str]:
    """The manifest of `path` (a dataset directory), or of every dataset directory under it (an OUTPUT)."""
    direct = FileSystems.join(path, MANIFEST)
    if FileSystems.exists(direct):
        return [direct]
    found = FileSystems.match([FileSystems.join(path, "*", MANIFEST)])[0].metadata_list
    return sorted(m.path for m in found)


def load_manifest(path: str) -> dict:
    with FileSystems.open(path) as f:
        manifest = json.loads(f.read().decode("utf-8"))
    manifest["_path"] = path
    return manifest


def record_class(manifest: dict):
    from schemas import records
    cls = getattr(records, manifest.get("record", ""), None)
    if cls is None:
        raise ValueError(f"unknown record type {manifest.get('record')!r} in the manifest")
    return cls


def sample_examples(dataset_dir: str, manifest: dict, per_label: int = 2, max_labels: int = 8,
                    seed: int = 0) -> typing.Dict[str, typing.Dict[str, list]]:
    """{variant: {label: [record, ...]}}: `per_label` random records of up to `max_labels` random labels.

    Reads every split's TFRecord shards of a variant (the sample is seeded, so the same call shows the same
    examples).
    """
    from transforms.sinks import read_records
    cls = record_class(manifest)
    out: typing.Dict[str, typing.Dict[str, list]] = {}
    for variant in manifest.get("variants", []):
        paths = []
        for split in manifest.get("splits", []):
            pattern = FileSystems.join(dataset_dir, variant, split, "*.tfrecord")
            paths += sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
        by_label: typing.Dict[str, list] = collections.defaultdict(list)
        for record in read_records(paths, cls):
            by_label[str(record.label())].append(record)
        rng = random.Random(f"{seed}|{variant}")
        labels = sorted(by_label)
        if len(labels) > max_labels:
            labels = sorted(rng.sample(labels, max_labels))
        out[variant] = {label: rng.sample(by_label[label], min(per_label, len(by_label[label])))
                        for label in labels}
        out[variant]["_labels_total"] = len(by_label)  # type: ignore[assignment]
    return out


def _clip(text: str, width: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def print_examples(samples, manifest: dict, stream) -> None:
    columns = manifest.get("release_columns") or []
    for variant, labels in samples.items():
        total = labels.pop("_labels_total", len(labels))
        stream.write(f"\n-- {manifest['dataset']}/{variant}: {len(labels)} of {total} label(s) --\n")
        if not labels:
            stream.write("  (no examples)\n")
        for label, records in labels.items():
            stream.write(f"  [{label}]\n")
            for record in records:
                row = record.to_row()
                names = columns if len(columns) == len(row) else [str(i) for i in range(len(row))]
                for name, value in zip(names, row):
                    if name == "label":
                        continue
                    stream.write(f"    {name}: {_clip(value)}\n")
                stream.write("\n")


def show(path: str, per_label: int = 2, max_labels: int = 8, seed: int = 0, open_report: bool = False,
         stream=None) -> int:
    """Print summary, examples and report path of the dataset(s) at `path`; returns an exit status."""
    from pipelines.framework.advice import print_advice
    from pipelines.framework.job import print_summary
    stream = stream or sys.stdout
    manifests = find_manifests(path)
    if not manifests:
        print(f"rewrite-mine show: no {MANIFEST} in {path} or its sub-directories (is it a finished "
              f"rewrite-mine output, OUTPUT/<dataset>?)", file=sys.stderr)
        return 2
    for manifest_path in manifests:
        manifest = load_manifest(manifest_path)
        dataset_dir = os.path.dirname(manifest_path) if "://" not in manifest_path else manifest_path.rsplit("/", 1)[0]
        print_summary(manifest, stream)
        print_advice(manifest, stream)
        try:
            samples = sample_examples(dataset_dir, manifest, per_label, max_labels, seed)
        except Exception as e:  # noqa: BLE001 - the summary is still worth showing
            stream.write(f"examples: cannot read the shards ({type(e).__name__}: {e})\n")
            samples = {}
        print_examples(samples, manifest, stream)
        report = manifest.get("job_info", {}).get("report", "")
        local_report = os.path.join(dataset_dir, "stats", "report.html")
        if os.path.exists(local_report):  # the directory may have been moved since the run
            report = local_report
        stream.write(f"report: {report or '(none: the run had --no_validation)'}\n")
        if open_report and report:
            import webbrowser
            webbrowser.open("file://" + os.path.abspath(report) if "://" not in report else report)
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rewrite-mine show", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("path", help="OUTPUT/<dataset> (or OUTPUT: every dataset under it)")
    parser.add_argument("--examples", type=int, default=2, help="random examples per variant and label")
    parser.add_argument("--max_labels", type=int, default=8, help="labels shown per variant (a random subset)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random choice")
    parser.add_argument("--open", action="store_true", default=False, help="open the HTML report in a browser")
    return parser


def main(argv=None) -> int:
    args = make_parser().parse_args(argv)
    return show(args.path, args.examples, args.max_labels, args.seed, args.open)
