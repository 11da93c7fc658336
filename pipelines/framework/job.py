"""The job framework: what every `rewrite-mine <job>` shares.

A job module (`pipelines/<job>.py`) declares a `Job` and a `run(argv=None)`:

    JOB = Job(name="discovery", dataset="markers", record_cls=MarkerExample,
              variants=("base", "big"), default_split=(0.9, 0.05, 0.05),
              add_arguments=add_arguments, build=build, doc=__doc__)

    def run(argv=None):
        return JOB.run(argv)

`build(pipeline, args, inputs)` reads `inputs` (expanded file paths) and
returns a `JobOutput`. The framework does the rest: options and `--help`,
the runner, split assignment, sharded TFRecord/TSV sinks, rejects, the
manifest and the summary printed at the end.
"""
import dataclasses
import typing

import apache_beam as beam


# Beam options whose values are secrets or keys: a value may begin with "-" (a MinIO or other
# S3-compatible store's generated secret can), which argparse would take for an option and stop with
# "expected one argument".
DASH_VALUE_OPTIONS = ("--s3_access_key_id", "--s3_secret_access_key", "--s3_session_token")


def join_dash_values(argv):
    """`--s3_secret_access_key -abc` as `--s3_secret_access_key=-abc`, for the options that take a key or
    secret; every other argument is left as it is."""
    argv = list(argv)
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in DASH_VALUE_OPTIONS and i + 1 < len(argv) and argv[i + 1].startswith("-") \
                and not argv[i + 1].startswith("--"):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def stray_arguments(beam_args):
    """Arguments left over by the job's parser that are neither an option nor an option's value: a
    path after `--input PATH` (a shell that expanded `--input dir/*` gives `--input dir/a dir/b`).
    Beam would drop them with a warning, and the job would run on the first file only. An argument
    after an option without `=` (`--project NAME`) is taken as that option's value."""
    stray = []
    for i, a in enumerate(beam_args):
        if a.startswith("-"):
            continue
        prev = beam_args[i - 1] if i else ""
        if prev.startswith("-") and "=" not in prev:
            continue
        stray.append(a)
    return stray


@dataclasses.dataclass
class JobOutput:
    """What a job's `build` hands back to the framework.

    Attributes:
      examples: PCollection of `(variant, record)`; the framework assigns the
        split from `record.split_key()` and the split ratios.
      presplit: PCollection of `(variant, split, record)` for jobs that assign
        splits themselves (e.g. WikiSplit's fixed-size tune/validation/test).
      rejects: PCollections of `schemas.records.Reject`.
      counts: PCollections of `(counter_name, n)` (see transforms.common).
      manifest: static facts for the manifest (e.g. which annotator ran).
    """
    examples: typing.Optional[beam.PCollection] = None
    presplit: typing.Optional[beam.PCollection] = None
    rejects: typing.List[beam.PCollection] = dataclasses.field(default_factory=list)
    counts: typing.List[beam.PCollection] = dataclasses.field(default_factory=list)
    manifest: typing.Dict[str, typing.Any] = dataclasses.field(default_factory=dict)
    #: Set by the framework: the (variant, split, record) collection that is written.
    final_examples: typing.Optional[beam.PCollection] = None


# =============================================================================
# The framework
# =============================================================================
import argparse  # noqa: E402
import datetime  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from apache_beam.io.filesystems import FileSystems  # noqa: E402
from apache_beam.options.pipeline_options import PipelineOptions  # noqa: E402

from pipelines.framework import publication, runners  # noqa: E402
from pipelines.framework.errors import JobFailed  # noqa: E402,F401  (job modules raise it from here)
from pipelines.framework.publication import code_version  # noqa: E402
from transforms import sinks  # noqa: E402

LOG = logging.getLogger("rewrite_mine")


@dataclasses.dataclass
class Job:
    """One `rewrite-mine <name>` job. See the module docstring."""
    name: str
    dataset: str
    record_cls: type
    variants: typing.Tuple[str, ...]
    build: typing.Callable
    add_arguments: typing.Callable = lambda parser: None
    default_split: typing.Tuple[float, float, float] = (0.9, 0.05, 0.05)
    splits: typing.Tuple[str, ...] = sinks.SPLITS
    presets: typing.Dict[str, typing.Dict[str, typing.Any]] = dataclasses.field(default_factory=dict)
    doc: str = ""
    example: str = ""
    #: True when `build` runs the quality stage itself at the right point (e.g. before balanced
    #: sampling); the framework then does not run it again.
    applies_quality: bool = False
    #: `derive(counts) -> dict`: figures computed from the summed counters once the run is done
    #: (e.g. ParaSCI's Table 2); stored as the manifest's `derived` and printed in the summary.
    derive: typing.Optional[typing.Callable[[dict], dict]] = None
    #: `finalize(args, manifest)`: last files written into the (staged) dataset directory once the
    #: manifest exists, before publication (e.g. ParaSCI's assembled `.src` / `.tgt` release).
    finalize: typing.Optional[typing.Callable[[typing.Any, dict], None]] = None

    # ------------------------------------------------------------------ naming

    def dataset_for(self, args) -> str:
        """The name of the dataset this run writes: `dataset` in English (and for jobs without
        `--language`), `<dataset>-<language>` otherwise (`markers-uk`; schemas.records.dataset_name).
        It names the output folder, the shards, the manifest, the card and the TFDS builder; the
        per-dataset tables (quality, TFDV schema, card texts) stay keyed on `dataset`."""
        from schemas.records import dataset_name  # pylint: disable=import-outside-toplevel
        return dataset_name(self.dataset, getattr(args, "language", "") or "")

    # ------------------------------------------------------------------ options

    def make_parser(self, prog=None) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(
            prog=prog or f"rewrite-mine {self.name}",
            description=(self.doc or "").strip().split("\n\n")[0],
            epilog=("Any option not listed here is passed to Apache Beam (e.g. --temp_location, "
                    "--project, --region, --job_endpoint, --environment_type); see "
                    "`python -m apache_beam.options.pipeline_options` or the README."
                    + (f"\n\nExample:\n  {self.example}" if self.example else "")),
            formatter_class=_HelpFormatter)
        g = parser.add_argument_group("input and output")
        g.add_argument("--input", action="append", required=True, metavar="GLOB",
                       help="input file or glob (local path or any Beam filesystem: gs://, s3://, hdfs://); "
                            "repeat for several")
        g.add_argument("--output", required=True, metavar="DIR", help="output directory (OUTPUT)")
        g.add_argument("--tsv", action="store_true", default=False,
                       help="also write release-format TSV beside each TFRecord shard")
        g.add_argument("--parquet", action="store_true", default=False,
                       help="also write a Parquet file beside each TFRecord shard, and the dataset card's "
                            "configs that Hugging Face datasets.load_dataset reads (pipelines/framework/loaders.py)")
        g.add_argument("--format", default="auto",
                       help="input format: auto (by file name) or one of wiki, wiki_multistream, wet, jsonl, pairs, "
                            "history")
        g.add_argument("--input_license", default="", metavar="LICENCE",
                       help="the licence of inputs that are not Wikimedia dumps (JSON lines, CoNLL-U, WET, pair "
                            "files), as the dataset card should state it: a Hub licence id (cc-by-sa-4.0, "
                            "lgpl-lr, ...) or words; unset: the card says 'unknown, see inputs'. Dumps are "
                            "Wikipedia's (CC BY-SA)")
        g.add_argument("--num_shards", type=int, default=4, help="TFRecord shards per variant for the train split")
        g.add_argument("--num_eval_shards", type=int, default=1,
                       help="TFRecord shards per variant for the other splits")
        g.add_argument("--num_reject_shards", type=int, default=1, help="JSON-lines shards for rejects/")
        g.add_argument("--split", default=",".join(str(x) for x in self.default_split),
                       help="train,validation,test ratios, assigned by a hash of the document/page id")
        g.add_argument("--bulk_reject_rate", type=float, default=0.01,
                       help="fraction of high-volume, expected drops (e.g. sentence pairs with no marker) written "
                            "to rejects/; they are always counted in full")
        g.add_argument("--preset", default=None, choices=sorted(self.presets) or None,
                       help="named set of job options (explicit options still win): "
                            + "; ".join(f"{k}: {_fmt_preset(v)}" for k, v in sorted(self.presets.items())))
        r = parser.add_argument_group("runner")
        r.add_argument("--runner", default="local",
                       help="local (in-process portable runner, multi-process, never touches the network); "
                            "flink (with --flink_master HOST:PORT, a Flink 1.19 session cluster's REST address); "
                            "spark (with --spark_master_url spark://HOST:PORT); dask; or any Beam runner name "
                            "(PortableRunner, DataflowRunner, ...). `rewrite-mine cluster start flink|spark` starts "
                            "a cluster on this machine (docs/RUNNERS.md)")
        r.add_argument("--num_workers", type=int, default=os.cpu_count() or 1,
                       help="worker processes for --runner local (1 = in-process, single worker); they start "
                            "while the pipeline is built (REWRITE_MINE_WARM_WORKERS=0: when it runs)")
        r.add_argument("--own_job_server", action="store_true", default=False,
                       help="--runner flink: start Beam's job server for this run even where the cluster keeps one "
                            "(`rewrite-mine cluster start flink` keeps one beside it and runs use it: a JVM's "
                            "start and a cold translation less a run)")
        r.add_argument("--dask_address", default=None,
                       help="dask.distributed scheduler address for --runner dask (default: a LocalCluster)")
        r.add_argument("--no_progress", dest="progress", action="store_false", default=True,
                       help="no live progress display (bytes read, documents/s, examples kept, ETA) while it runs")
        r.add_argument("--progress_interval", type=float, default=30.0, metavar="SECONDS",
                       help="seconds between progress lines when the console is not a terminal (CI, cron); "
                            "a terminal gets one line redrawn in place")
        v = parser.add_argument_group("reprocessing (see pipelines/framework/publication.py)")
        v.add_argument("--dump_date", default="",
                       help="version the output by dump date: YYYYMMDD, or 'auto' to read it from the input names "
                            "(enwiki-20240601-...); the run is published to OUTPUT/<date>/<dataset> and "
                            "OUTPUT/<dataset>.LATEST names the newest; empty: OUTPUT/<dataset>")
        v.add_argument("--force", action="store_true", default=False,
                       help="run even when the published dataset has the same inputs, options and code")
        v.add_argument("--checksum", default="sha256", choices=("sha256", "metadata"),
                       help="input fingerprint: sha256 of every byte (read at the driver) or size + "
                            "modification time (cheap for terabyte dumps)")
        self.add_arguments(parser.add_argument_group(f"{self.name} options"))
        from transforms.quality import add_quality_arguments
        add_quality_arguments(parser)
        parser.add_argument_group("validation").add_argument(
            "--no_validation", dest="validation", action="store_false", default=True,
            help="skip TFDV statistics, schema validation and the HTML report (on by default)")
        return parser

    def parse_args(self, argv=None):
        parser = self.make_parser()
        argv = join_dash_values(sys.argv[1:] if argv is None else argv)
        args, beam_args = parser.parse_known_args(argv)
        if args.preset:
            if args.preset not in self.presets:  # argparse checks the name only when the job has presets
                parser.error(f"argument --preset: {self.name} has no presets" if not self.presets else
                             f"argument --preset: unknown preset {args.preset!r} (choose from "
                             f"{', '.join(sorted(self.presets))})")
            parser.set_defaults(**self.presets[args.preset])
            args, beam_args = parser.parse_known_args(argv)
        stray = stray_arguments(beam_args)
        if stray:
            parser.error(f"unexpected argument(s) {' '.join(repr(a) for a in stray[:3])}"
                         f"{' ...' if len(stray) > 3 else ''}: every input needs its own --input. If your shell "
                         f"expanded an unquoted glob (--input dir/* gives --input dir/a dir/b ...), quote it: "
                         f"--input 'dir/*'")
        try:
            args.split_ratios = sinks.parse_split_ratios(args.split)
        except ValueError as e:
            parser.error(str(e))
        for flag in ("num_shards", "num_eval_shards", "num_reject_shards", "num_workers"):
            if getattr(args, flag) < 1:
                parser.error(f"--{flag} must be at least 1")
        # The driver matches, checksums and writes files before any pipeline exists: s3:// and gs://
        # need the run's options (endpoint, credentials, project) from here on.
        runners.use_filesystem_options(beam_args)
        # A missing bucket, refused credentials, local paths for workers in containers: one line, now.
        from pipelines.framework import storage
        storage.preflight(args.input, args.output, beam_args, runners.beam_option(beam_args, "environment_type") or "")
        return args, beam_args

    def variants_for(self, args):
        wanted = getattr(args, "variants", None)
        if not wanted:
            return self.variants
        if isinstance(wanted, str):
            wanted = [v.strip() for v in wanted.split(",") if v.strip()]
        unknown = sorted(set(wanted) - set(self.variants))
        if unknown:
            raise JobFailed(f"unknown variant(s) {unknown}; choose from {list(self.variants)} (--variants)")
        return tuple(v for v in self.variants if v in wanted)

    # ------------------------------------------------------------------ running

    def build_pipeline(self, args, beam_args, inputs):
        """Construct (but do not run) the whole pipeline. Returns (pipeline, output paths)."""
        pipeline = runners.make_pipeline(args, beam_args)
        out = self.build(pipeline, args, inputs)
        name = self.dataset_for(args)  # `markers`, or `markers-uk` in a Ukrainian run
        dataset_dir = FileSystems.join(args.output, name)
        variants = self.variants_for(args)

        # Quality stage (dedup, BLEU / BERTScore filters) between the miner and the sinks, for every job.
        from transforms.quality import QualityStage, config_from_args
        quality = config_from_args(self.dataset, args)
        run_quality = not self.applies_quality
        examples = []
        if out.examples is not None and not run_quality:
            examples.append(out.examples | "AssignSplits" >> sinks.AssignSplits(args.split_ratios))
        elif out.examples is not None:
            q = out.examples | "Quality" >> QualityStage(quality, flatten_rejects=False)
            out.rejects.append(q["rejects"])
            out.counts.append(q["counts"])
            examples.append(q["examples"] | "AssignSplits" >> sinks.AssignSplits(args.split_ratios))
        if out.presplit is not None and not run_quality:
            examples.append(out.presplit)
        elif out.presplit is not None:
            q = out.presplit | "QualityPresplit" >> QualityStage(quality, label="QualityStagePresplit", flatten_rejects=False)
            out.rejects.append(q["rejects"])
            out.counts.append(q["counts"])
            examples.append(q["examples"])
        if not examples:
            raise JobFailed(f"job {self.name} produced no example collection")
        split_examples = examples[0] if len(examples) == 1 else tuple(examples) | "MergeExamples" >> beam.Flatten()
        out.final_examples = split_examples  # what is written: `rewrite-mine all` feeds it to other miners
        from transforms.progress import CountKeptFn
        split_examples | "CountKept" >> beam.ParDo(CountKeptFn(self.dataset))  # the live display's "kept"

        written = split_examples | "WriteShards" >> sinks.WriteShards(
            args.output, self.record_cls, variants, self.splits, args.num_shards, args.num_eval_shards,
            write_tsv=args.tsv, write_parquet=getattr(args, "parquet", False), dataset=name)
        # Each rejects collection is written in the stage that produced it (no Flatten: issue 19).
        rejects = out.rejects or [pipeline | "NoRejects" >> beam.Create([])]
        rejects_written = tuple(rejects) | "WriteRejects" >> sinks.WriteRejects(
            args.output, name, args.num_reject_shards)
        counts_path = FileSystems.join(dataset_dir, "_stats", "counts.json")
        if args.validation:
            # The report's step writes the counts file too: its one combine sums the counters with the
            # report's parts (a shuffle and, on Flink, a level of tasks fewer at the end of the job).
            from transforms.validate import ValidateAndReport, report_path
            out.manifest["report"] = report_path(args.output, name)
            split_examples | "ValidateAndReport" >> ValidateAndReport(
                name, self.record_cls, args.output, counts=list(out.counts), other_counts=[written, rejects_written],
                counts_path=counts_path, fail_on_anomalies=args.fail_on_anomalies)
        else:
            counts = tuple(list(out.counts) + [written, rejects_written]) | "FlattenCounts" >> beam.Flatten()
            counts | "WriteCounts" >> sinks.WriteCounts(counts_path)
        return pipeline, out

    def run(self, argv=None) -> dict:
        """Parse options, run the pipeline, write the manifest, print a summary. Returns the manifest."""
        from pipelines.framework import credentials
        credentials.install(sys.argv[1:] if argv is None else argv)  # no log record of this process shows one
        from pipelines.framework import storage
        storage.retry_environment()  # boto3 rides out a store that stops answering a while (workers inherit it)
        args, beam_args = self.parse_args(argv)
        from transforms.read import InputError, expand_inputs
        try:
            inputs = expand_inputs(args.input)
        except InputError as e:
            raise JobFailed(str(e)) from e
        if hasattr(args, "language"):  # the Wikipedia jobs: `--language`, else the dumps' own
            from pipelines.framework.language import resolve_language
            resolve_language(args, inputs)
        LOG.info("%s: %d input file(s) -> %s (runner %s)", self.name, len(inputs), args.output, args.runner)
        # Staged run, published atomically when it finished; skipped when up to date
        # (pipelines/framework/publication.py).
        def construct(units, beam_args_):
            pipeline, out = self.build_pipeline(units[0].args, beam_args_, units[0].inputs)
            return pipeline, [out]

        manifest = publication.execute([publication.Unit(self, args, inputs)], construct, beam_args)[0]
        print_summary(manifest, sys.stdout)
        from pipelines.framework.advice import print_advice
        from pipelines.framework.console import current_log_path
        print_advice(manifest, sys.stdout)
        if current_log_path():
            sys.stdout.write(f"log:      {current_log_path()}  (other libraries' warnings and logs; -v shows them)\n")
        return manifest

    # ------------------------------------------------------------------ manifest

    def write_manifest(self, args, inputs, out, elapsed, plan=None) -> dict:
        """Write OUTPUT/<dataset>/manifest.json (`args.output` is the staging root when `plan` is given)."""
        dataset_dir = FileSystems.join(args.output, self.dataset_for(args))
        counts_path = FileSystems.join(dataset_dir, "_stats", "counts.json")
        with FileSystems.open(counts_path) as f:
            counts = json.loads(f.read().decode("utf-8"))
        from pipelines.framework import credentials
        # No credential in the manifest, nor in what is made from it (the card, the loaders' configs).
        manifest = credentials.redact_options(build_manifest(self, args, inputs, counts, out.manifest, elapsed,
                                                             plan=plan))
        if self.derive is not None:
            manifest["derived"] = self.derive(counts)
            _add_derived_to_report(dataset_dir, manifest["derived"])
        if self.finalize is not None:
            self.finalize(args, manifest)
        # TFDS metadata per variant, Parquet configs and the dataset card (README.md); sets manifest["loaders"].
        from pipelines.framework import loaders
        loaders.write_loaders(self, args, manifest)
        path = FileSystems.join(dataset_dir, "manifest.json")
        sinks._write_atomically(path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))
        manifest["_path"] = path
        return manifest


def _add_derived_to_report(dataset_dir: str, derived: dict) -> None:
    """The job's derived figures (e.g. ParaSCI's Table 2) as a section of stats/report.html."""
    from miners.quality import report as report_lib  # pylint: disable=import-outside-toplevel
    path = FileSystems.join(dataset_dir, "stats", "report.html")
    if not derived or not FileSystems.exists(path):
        return
    with FileSystems.open(path) as f:
        page = f.read().decode("utf-8")
    sinks._write_atomically(path, report_lib.add_derived(page, derived).encode("utf-8"))


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass


def _fmt_preset(values):
    return " ".join(f"--{k}={v}" for k, v in sorted(values.items()))


def describe_input(path: str, checksum: str = "sha256") -> dict:
    """{path, size_bytes, sha256 (or mtime), dump_date} of an input (see pipelines/framework/publication.py)."""
    try:
        return publication.describe_input(path, checksum)
    except Exception:  # noqa: BLE001 - best effort; the job already opened it
        return {"path": path}


def nest_counts(counts: dict) -> dict:
    """{"read/filtered:x": 3} -> {"read": {"filtered": {"x": 3}}, ...}; written/ counts nest by variant/split."""
    stages: dict = {}
    written: dict = {}
    for name, n in sorted(counts.items()):
        if name.startswith("_stats/"):
            continue
        stage, _, rest = name.partition("/")
        if stage == "written":
            parts = rest.split("/")
            variant, split = parts[0], parts[1]
            node = written.setdefault(variant, {}).setdefault(split, {"examples": 0, "labels": {}})
            if len(parts) == 2:
                node["examples"] = n
            else:
                node["labels"][parts[2].partition(":")[2]] = n
            continue
        bucket = stages.setdefault(stage, {})
        if ":" in rest:
            kind, _, reason = rest.partition(":")
            node = bucket.get(kind)
            if not isinstance(node, dict):  # "x" counted both as a total and by reason: keep both
                node = bucket[kind] = {} if node is None else {"total": node}
            node[reason] = n
        elif isinstance(bucket.get(rest), dict):
            bucket[rest]["total"] = n
        else:
            bucket[rest] = n
    return {"stages": stages, "written": written}


def build_manifest(job, args, inputs, counts, extra, elapsed, plan=None) -> dict:
    nested = nest_counts(counts)
    options = {k: v for k, v in sorted(vars(args).items()) if k != "split_ratios" and not k.startswith("_")}
    if plan is not None:
        options["output"] = plan.output  # where readers look, not the staging directory
        extra = _restage_paths(extra, plan.staging_root, plan.published_root)
    rejects_by_reason: dict = {}
    for stage, bucket in nested["stages"].items():
        for reason, n in bucket.get("filtered", {}).items():
            rejects_by_reason[f"{stage}:{reason}"] = n
    language = {"language": args.language} if getattr(args, "language", None) else {}
    name = job.dataset_for(args)
    return {
        "dataset": name,
        **language,
        "job": job.name,
        "variants": list(job.variants_for(args)),
        "splits": list(job.splits),
        "record": job.record_cls.__name__,
        "release_columns": list(job.record_cls.RELEASE_COLUMNS),
        "layout": f"{name}/<variant>/<split>/{name}-SSSSS-of-NNNNN.tfrecord",
        "counts": nested,
        "rejects_by_reason": rejects_by_reason,
        "rejects_written": counts.get("rejects/written", 0),
        "options": options,
        "inputs": plan.inputs if plan is not None else [describe_input(p, getattr(args, "checksum", "sha256"))
                                                        for p in inputs],
        "reprocess": ({"fingerprint": plan.fingerprint, "version": plan.version,
                       "published": plan.published_dir} if plan is not None else {}),
        "code_version": code_version(),
        "job_info": extra or {},
        "run": {"finished_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "elapsed_seconds": round(elapsed, 1), "runner": args.runner,
                **({"engine": args._engine.info} if getattr(args, "_engine", None) is not None else {})},
    }


def _restage_paths(value, staging_root: str, published_root: str):
    """Paths a job reports under its staging directory, as they read once published."""
    if not staging_root.endswith("/") and len(published_root) > 1:
        published_root = published_root.rstrip("/") or published_root  # --output out/: not out//simplify
    if isinstance(value, str):
        return value.replace(staging_root, published_root)
    if isinstance(value, dict):
        return {k: _restage_paths(v, staging_root, published_root) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_restage_paths(v, staging_root, published_root) for v in value)
    return value


def _breakdown(name: str, counts: dict) -> str:
    """One line of a counter broken down by kind: `anomalies` per variant/split slice that TFDV validated
    ("no anomalies (18 slices checked)"), anything else by its kinds ("candidates: 94 kinds, total 526")."""
    kinds = {k: n for k, n in counts.items() if k != "total"}
    total = counts.get("total", sum(kinds.values()))
    if name == "anomalies":
        if not total:
            return f"no anomalies ({len(kinds)} slice{'s' if len(kinds) != 1 else ''} checked)"
        bad = sum(1 for n in kinds.values() if n)
        return f"anomalies: {total} in {bad} of {len(kinds)} slices checked (stats/anomalies.json)"
    return f"{name}: {len(kinds)} kinds, total {total}"


# Stages of every job in the order the data flows through them (reading, mining, quality, sinks): the
# summary prints a run's stages in this order. A stage not listed prints after the listed ones.
STAGE_ORDER = (
    "read", "read_conllu", "read_parallel", "papers", "seeds", "document", "segment", "sentences", "annotate",
    "discofuse", "mine", "pairs", "embed", "search", "candidates", "partial", "filter", "best_pair", "translate",
    "select", "simulate", "hard", "split", "paper_cap", "check", "exact_dedup", "dedup", "near_dedup", "bleu",
    "bertscore", "metrics", "progress", "validate", "rejects")


def stages_in_flow_order(stages: typing.Iterable[str]) -> typing.List[str]:
    """Stage names in data-flow order (`STAGE_ORDER`), unknown ones after, alphabetically."""
    rank = {name: i for i, name in enumerate(STAGE_ORDER)}
    return sorted(stages, key=lambda name: (rank.get(name, len(rank)), name))


def print_summary(manifest: dict, stream) -> None:
    w = stream.write
    w(f"\n== rewrite-mine {manifest['job']}: {manifest['dataset']} ==\n")
    if manifest.get("_up_to_date"):
        w(f"up to date: the published dataset has the same inputs, options and code "
          f"(fingerprint {manifest.get('reprocess', {}).get('fingerprint', '')[:16]}); nothing ran "
          f"(--force runs it again)\n")
    if manifest.get("reprocess", {}).get("version"):
        w(f"version: dump {manifest['reprocess']['version']} -> {manifest['reprocess']['published']}\n")
    w(f"inputs: {len(manifest['inputs'])} file(s); runner {manifest['run']['runner']}; "
      f"{manifest['run']['elapsed_seconds']} s\n")
    stages = manifest["counts"]["stages"]
    for stage in stages_in_flow_order(stages):
        bucket = stages[stage]
        flat = [f"{k}={v}" for k, v in bucket.items() if not isinstance(v, dict)]
        # Other breakdowns (e.g. markers/candidates:<label>, validate/anomalies:<slice>): size and total.
        flat += [_breakdown(k, v) for k, v in bucket.items() if isinstance(v, dict) and k not in ("skipped", "filtered")]
        w(f"  {stage:<11} {', '.join(flat)}\n")
        for kind in ("skipped", "filtered"):
            for reason, n in sorted(bucket.get(kind, {}).items(), key=lambda kv: -kv[1]):
                w(f"  {'':<11}   {kind}:{reason} = {n}\n")
    w("written examples:\n")
    for variant, splits in manifest["counts"]["written"].items():
        line = ", ".join(f"{s}={node['examples']}" for s, node in splits.items())
        labels = sum(len(node["labels"]) for node in splits.values())
        w(f"  {variant:<11} {line}  ({labels} label/split cells)\n")
    for name, value in manifest.get("derived", {}).items():
        w(f"{name}: {json.dumps(value, sort_keys=True)}\n")
    w(f"rejects written: {manifest['rejects_written']}  "
      f"(reasons: {len(manifest['rejects_by_reason'])})\n")
    path = manifest.get("_path", "")
    w(f"manifest: {path}\n")
    report = manifest.get("job_info", {}).get("report")
    if report:
        w(f"report:   {report}\n")
