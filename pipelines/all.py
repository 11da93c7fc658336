"""rewrite-mine all: one DAG that reads each source once and feeds every requested miner.

    articles (pages-articles dumps)  -> discovery (markers) + discofuse (fusion) + simsim (simplify)
    web text (WET, JSON lines)       -> discovery (markers) + discofuse (fusion) + simsim (simplify)
    sentence pairs (s1<TAB>s2 .tsv)  -> discovery (markers)
    WikiSplit pairs (s1 <::::> s2)   -> simsim (simplify)
    complex-simple pairs (--simplification_input)      -> simsim (simplify)
    edit history (pages-meta-history) -> wikisplit (splits) -> its written pairs -> simsim (simplify)
    papers (--papers_input; .tei.xml, .nxml) -> parasci (sci_para)

Each miner keeps its own options (same names as `rewrite-mine <job>`), its own
quality stage, sinks, rejects and manifest, under OUTPUT/<dataset>/ exactly as
the single job writes them. An option two jobs define alike (e.g. `--langid_model`
of discovery and discofuse, `--seed`) is one shared option here; one they define
differently (another default, other choices) gets each job's own name here:
`--discovery_variants` and `--simsim_variants`, `--discovery_max_words` and
`--parasci_max_words`, each with that job's default. A file is read once:
the documents of one read feed both the marker and the fusion miner. Each
dataset is staged and published atomically, and skipped when its published
manifest already has the same inputs, options and code (pipelines/framework/publication.py).

Local run on the bundled sample (in-process runner, never touches the network):

    rewrite-mine all --preset sample \\
        --input samples/wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2 \\
        --output out/ --tsv

A new dump every month (history and articles of the same date), versioned:

    rewrite-mine all --dump_date auto --checksum metadata --runner DataflowRunner \\
        --input 'gs://BUCKET/enwiki/20240601/enwiki-20240601-pages-articles-multistream.xml.bz2' \\
        --history_input 'gs://BUCKET/enwiki/20240601/enwiki-20240601-pages-meta-history*.bz2' \\
        --output gs://BUCKET/out --project PROJECT --region REGION \\
        --temp_location gs://BUCKET/tmp --sdk_container_image IMAGE
"""
import argparse
import contextlib
import importlib
import logging
import os
import sys
import typing

from pipelines.framework import publication, runners
from pipelines.framework.job import Job, JobFailed, print_summary

LOG = logging.getLogger("rewrite_mine")

# job name -> module; the order is the order of the DAG and of the summaries.
JOB_MODULES = {"discovery": "pipelines.discovery", "discofuse": "pipelines.discofuse",
               "wikisplit": "pipelines.wikisplit", "simsim": "pipelines.simsim", "parasci": "pipelines.parasci"}
ALIASES = {"markers": "discovery", "fusion": "discofuse", "splits": "wikisplit", "simplify": "simsim",
           "sci_para": "parasci"}

# source kind -> the jobs that consume it (ARCHITECTURE.md, "Read once, fan out").
ROUTES = {
    "articles": ("discovery", "discofuse", "simsim"),
    "web": ("discovery", "discofuse", "simsim"),
    "pairs": ("discovery",),
    "split_pairs": ("simsim",),
    "simplification_pairs": ("simsim",),
    "history": ("wikisplit",),
    "papers": ("parasci",),
}
# The datasets one miner reads from another's output when both run: (producer, consumer).
FEEDS = (("wikisplit", "simsim"),)


def load_jobs() -> typing.Dict[str, Job]:
    return {name: importlib.import_module(module).JOB for name, module in JOB_MODULES.items()}


# ------------------------------------------------------------------ options

def _dest_of(flags, kwargs) -> str:
    if kwargs.get("dest"):
        return kwargs["dest"]
    long = [f for f in flags if f.startswith("--")] or list(flags)
    return long[0].lstrip("-").replace("-", "_")


def _spec(action) -> tuple:
    """What makes two jobs' options with one name the same option: kind, default ('' and None alike), choices,
    type, nargs."""
    default = None if action.default in ("", None) else action.default
    return (type(action).__name__, repr(default), repr(action.choices),
            getattr(action.type, "__name__", repr(action.type)), action.nargs, repr(action.const))


def clashing_dests(jobs: typing.Dict[str, Job]) -> typing.Set[str]:
    """Options that several jobs define differently (e.g. discovery's and simsim's `--variants`, discovery's
    and parasci's `--max_words`): under `all`, each job's gets a name of its own."""
    specs: typing.Dict[str, set] = {}
    for job in jobs.values():
        parser = argparse.ArgumentParser(add_help=False)
        job.add_arguments(parser)
        for action in parser._actions:  # pylint: disable=protected-access
            if action.option_strings:
                specs.setdefault(action.dest, set()).add(_spec(action))
    return {dest for dest, kinds in specs.items() if len(kinds) > 1}


def own_dest(job_name: str, dest: str) -> str:
    return f"{job_name}_{dest}"


class _SharedOptionGroup:  # pylint: disable=too-few-public-methods
    """An argument group that accepts an option a second time (another job's, defined alike): it is then
    shared. A clashing option (`clashing_dests`) is registered under the job's own name instead."""

    def __init__(self, group, job_name, shared, clashing=frozenset()):
        self._group = group
        self._job_name = job_name
        self._shared = shared
        self._clashing = clashing

    def add_argument(self, *flags, **kwargs):
        dest = _dest_of(flags, kwargs)
        if dest in self._clashing:
            flags = [f"--{self._job_name}_{f[2:]}" for f in flags if f.startswith("--")]
            kwargs = dict(kwargs, dest=own_dest(self._job_name, dest),
                          help=f"{self._job_name}'s --{dest}: {kwargs.get('help', '')}")
            return self._group.add_argument(*flags, **kwargs)
        try:
            return self._group.add_argument(*flags, **kwargs)
        except argparse.ArgumentError:
            self._shared.setdefault(flags[0], []).append(self._job_name)
            return None

    def __getattr__(self, name):
        return getattr(self._group, name)


def job_option_dests(job: Job) -> typing.Set[str]:
    """The `dest` of every option a job's `add_arguments` defines."""
    parser = argparse.ArgumentParser(add_help=False)
    job.add_arguments(parser)
    return {a.dest for a in parser._actions}  # pylint: disable=protected-access


ALL_DESTS = ("jobs", "history_input", "papers_input", "simplification_input")


def _add_all_arguments(parser):
    parser.add_argument("--jobs", default=",".join(JOB_MODULES),
                        help="comma-separated miners to run (discovery/markers, discofuse/fusion, "
                             "wikisplit/splits, simsim/simplify, parasci/sci_para); each runs on the sources it "
                             "consumes")
    parser.add_argument("--history_input", action="append", default=[], metavar="GLOB",
                        help="edit-history dump(s) for wikisplit (files named *history* given to "
                             "--input are recognised too); with simsim, its written pairs seed simsim")
    parser.add_argument("--papers_input", action="append", default=[], metavar="GLOB",
                        help="scientific papers for parasci (S2ORC JSON / JSON lines, GROBID TEI, JATS; "
                             "*.tei.xml and *.nxml given to --input are recognised too)")
    parser.add_argument("--simplification_input", action="append", default=[], metavar="GLOB",
                        help="complex<TAB>simple pair files (WikiLarge / Newsela form) that seed simsim "
                             "(WikiSplit TSVs given to --input are recognised by their <::::> separator)")


def _merged_presets(jobs: typing.Dict[str, Job]) -> dict:
    """Every job's presets by name; a clashing option's value under the job's own name."""
    clashing = clashing_dests(jobs)
    presets: dict = {}
    for job in jobs.values():
        for name, values in job.presets.items():
            presets.setdefault(name, {}).update(
                {own_dest(job.name, k) if k in clashing else k: v for k, v in values.items()})
    return presets


class AllJob(Job):
    """`rewrite-mine all`: the common options, `--jobs`, and every job's options (shared when repeated)."""

    def make_parser(self, prog=None) -> argparse.ArgumentParser:
        parser = super().make_parser(prog)
        self.shared_options = {}
        clashing = clashing_dests(self.jobs)
        for name, job in self.jobs.items():
            group = parser.add_argument_group(f"{name} options")
            job.add_arguments(_SharedOptionGroup(group, name, self.shared_options, clashing))
        return parser

    def run(self, argv=None):  # pylint: disable=arguments-differ
        return run(argv)


def make_all_job(jobs: typing.Optional[typing.Dict[str, Job]] = None) -> AllJob:
    jobs = jobs or load_jobs()
    first = next(iter(jobs.values()))
    job = AllJob(name="all", dataset="all", record_cls=first.record_cls, variants=(), build=None,
                 add_arguments=_add_all_arguments, presets=_merged_presets(jobs), doc=__doc__,
                 example="rewrite-mine all --preset sample --input samples/wikipedia/enwiki-*.bz2 --output out/")
    job.jobs = jobs
    job.shared_options = {}
    return job


def job_args(args, job: Job, jobs: typing.Dict[str, Job]):
    """A job's own view of the parsed options: the common ones, its own and the shared ones (a clashing
    option under its plain name again, with this job's value)."""
    mine = job_option_dests(job)
    others = set().union(*(job_option_dests(j) for j in jobs.values() if j is not job)) - mine
    clashing = clashing_dests(jobs)
    renamed = {own_dest(name, dest) for name in jobs for dest in clashing}
    values = {k: v for k, v in vars(args).items() if k not in others and k not in ALL_DESTS and k not in renamed}
    for dest in clashing & mine:
        values[dest] = getattr(args, own_dest(job.name, dest))
    return argparse.Namespace(**values)


# ------------------------------------------------------------------ inputs

def _first_line(path: str) -> str:
    """The first non-blank line of a (possibly compressed) text file, '' when unreadable."""
    from miners import sources  # pylint: disable=import-outside-toplevel
    from transforms.read import open_input  # pylint: disable=import-outside-toplevel
    try:
        with open_input(path) as raw:
            f = sources.decompressed(raw, path)
            for _ in range(50):
                line = f.readline()
                if not line:
                    return ""
                if line.strip():
                    return line.decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - routing only; the reader reports the file properly
        return ""
    return ""


def source_kind(path: str, fmt: str = "auto") -> str:
    """articles, web, pairs, split_pairs, history or papers, from the file name (or --format)."""
    from miners import sources  # pylint: disable=import-outside-toplevel
    name = os.path.basename(path).lower()
    if "history" in name:
        return "history"
    if fmt in ("auto", "", None) and (".tei.xml" in name or name.endswith((".nxml", ".nxml.gz"))):
        return "papers"
    kind = sources.detect_format(path, fmt)
    if kind == "pairs" and "<::::>" in _first_line(path):
        return "split_pairs"  # a WikiSplit release TSV: seeds for simsim, not consecutive sentences
    return {"wiki": "articles", "wiki_multistream": "articles", "wiki_multistream_index": "index",
            "wet": "web", "jsonl": "web", "pairs": "pairs"}[kind]


def route_inputs(inputs, history_inputs, fmt, wanted, papers_inputs=(), simplification_inputs=()
                 ) -> typing.Dict[str, typing.List[str]]:
    """{job name: its input files}, only for wanted jobs that have input.

    A consumer of another miner's output (simsim of wikisplit's) also lists the producer's inputs:
    they are part of what its output depends on (its fingerprint); its build reads the producer's
    collection instead of those files.
    """
    routed: typing.Dict[str, typing.List[str]] = {name: [] for name in wanted}
    for path in inputs:
        kind = source_kind(path, fmt)
        if kind == "index":  # a multistream index travels with its dump
            continue
        for name in ROUTES[kind]:
            if name in routed:
                routed[name].append(path)
    if "wikisplit" in routed:
        routed["wikisplit"].extend(history_inputs)
    if "parasci" in routed:
        routed["parasci"].extend(papers_inputs)
    if "simsim" in routed:
        routed["simsim"].extend(simplification_inputs)
    for producer, consumer in FEEDS:
        if producer in routed and consumer in routed and routed[producer]:
            routed[consumer].extend(routed[producer])
    return {name: sorted(set(paths)) for name, paths in routed.items() if paths}


# ------------------------------------------------------------------ read once

@contextlib.contextmanager
def read_once():
    """While building: the second `ReadDocuments` of the same files reuses the first one's output.

    The job modules build their reads with `transforms.read.ReadDocuments`; inside this
    block that name makes a reader that remembers its output per (files, format), and a
    later read of the same files becomes a cheap relabelling of those collections (its
    rejects carry the later job's dataset name), so the bytes are read and parsed once.
    """
    import apache_beam as beam  # pylint: disable=import-outside-toplevel
    from transforms import read as read_module  # pylint: disable=import-outside-toplevel
    real = read_module.ReadDocuments
    cache: dict = {}

    class _RememberedRead(real):
        def __init__(self, paths, dataset, fmt="auto", **kwargs):
            super().__init__(paths, dataset, fmt=fmt, **kwargs)
            self._key = (tuple(sorted(paths)), fmt, tuple(sorted(kwargs.items())))

        def expand(self, pbegin):
            out = super().expand(pbegin)
            cache[self._key] = out
            return out

    class _ReusedRead(beam.PTransform):
        def __init__(self, first, dataset):
            super().__init__()
            self.first, self.dataset = first, dataset

        def expand(self, pbegin):
            import dataclasses  # pylint: disable=import-outside-toplevel
            dataset = self.dataset
            return {
                read_module.DOCUMENTS: self.first[read_module.DOCUMENTS] | "SharedDocuments" >> beam.Map(_same),
                read_module.REJECTS: self.first[read_module.REJECTS] | "SharedRejects" >> beam.Map(
                    lambda r: dataclasses.replace(r, dataset=dataset)),
                read_module.COUNTS: self.first[read_module.COUNTS] | "SharedCounts" >> beam.Map(_same),
            }

    def make_read(paths, dataset, fmt="auto", **kwargs):
        key = (tuple(sorted(paths)), fmt, tuple(sorted(kwargs.items())))
        if key in cache:
            return _ReusedRead(cache[key], dataset)
        return _RememberedRead(paths, dataset, fmt=fmt, **kwargs)

    read_module.ReadDocuments = make_read
    try:
        yield cache
    finally:
        read_module.ReadDocuments = real


def _same(x):
    return x


# ------------------------------------------------------------------ DAG

def _stage_label(name: str) -> str:
    return name[:1].upper() + name[1:]


def build_all(units, beam_args):
    """One pipeline for every unit (job, staged args, inputs): `publication.execute`'s `construct`."""
    import apache_beam as beam  # pylint: disable=import-outside-toplevel
    pipeline = runners.make_pipeline(units[0].args, beam_args)
    engine = getattr(units[0].args, "_engine", None)
    if engine is not None:  # one submission for the whole pipeline: every dataset's manifest names its engine
        for unit in units[1:]:
            unit.args._engine = engine  # pylint: disable=protected-access
    outs = []

    class _JobStage(beam.PTransform):
        """A job's whole graph (read, mine, quality, sinks) under one label, e.g. `Discovery/...`."""

        def __init__(self, unit):
            super().__init__()
            self.unit = unit
            self.output = None

        def expand(self, pbegin):
            _, self.output = self.unit.job.build_pipeline(self.unit.args, beam_args, self.unit.inputs)
            return beam.pvalue.PDone(pbegin.pipeline)

    written = {}  # job name -> the (variant, split, record) collection it writes
    with runners.shared_pipeline(pipeline), read_once():
        for unit in units:
            for producer, consumer in FEEDS:
                if unit.job.name == consumer and producer in written:
                    unit.args._splits_feed = written[producer]  # pylint: disable=protected-access
            stage = _JobStage(unit)
            _ = pipeline | _stage_label(unit.job.name) >> stage
            outs.append(stage.output)
            written[unit.job.name] = stage.output.final_examples
    return pipeline, outs


def plan_units(argv=None):
    """Parse `rewrite-mine all` options; returns (units, beam_args) with inputs routed per job."""
    jobs = load_jobs()
    all_job = make_all_job(jobs)
    args, beam_args = all_job.parse_args(argv)
    shared = all_job.shared_options
    wanted = []
    for name in (n.strip() for n in args.jobs.split(",") if n.strip()):
        name = ALIASES.get(name, name)
        if name not in jobs:
            raise JobFailed(f"unknown job {name!r} in --jobs; choose from {sorted(jobs)}")
        if name not in wanted:
            wanted.append(name)
    wanted.sort(key=list(JOB_MODULES).index)  # a miner fed by another is built after it (FEEDS)
    from transforms.read import InputError, expand_inputs  # pylint: disable=import-outside-toplevel
    try:
        inputs = expand_inputs(args.input)
        history = expand_inputs(args.history_input) if args.history_input else []
        papers = expand_inputs(args.papers_input) if args.papers_input else []
        simplification = expand_inputs(args.simplification_input) if args.simplification_input else []
    except InputError as e:
        raise JobFailed(str(e)) from e
    try:
        routed = route_inputs(inputs, history, args.format, wanted, papers, simplification)
    except ValueError as e:
        raise JobFailed(str(e)) from e
    for name in wanted:
        if name not in routed:
            LOG.warning("all: no input for %s (it reads %s); skipped", name,
                        " or ".join(k for k, v in ROUTES.items() if name in v))
    if not routed:
        raise JobFailed(f"no input for any of {wanted}")
    units = [publication.Unit(jobs[name], job_args(args, jobs[name], jobs), routed[name])
             for name in wanted if name in routed]
    from pipelines.framework.language import resolve_language  # pylint: disable=import-outside-toplevel
    for unit in units:
        if hasattr(unit.args, "language"):  # each Wikipedia job: `--language`, else its own inputs' dumps
            resolve_language(unit.args, unit.inputs)
    for unit in units:
        fed = [routed[producer] for producer, consumer in FEEDS if consumer == unit.job.name and producer in routed]
        # Files the unit depends on through another miner's output, not files it reads itself.
        unit.args._fed_inputs = sorted({p for paths in fed for p in paths})  # pylint: disable=protected-access
    return units, beam_args, shared


def run(argv=None) -> typing.List[dict]:
    """Run every requested miner in one pipeline; returns one manifest per dataset."""
    from pipelines.framework import credentials  # pylint: disable=import-outside-toplevel
    credentials.install(sys.argv[1:] if argv is None else argv)
    from pipelines.framework import storage  # pylint: disable=import-outside-toplevel
    storage.retry_environment()
    units, beam_args, shared = plan_units(argv)
    if shared:
        LOG.info("all: shared options %s", ", ".join(f"{flag} ({', '.join(names)})" for flag, names in
                                                   sorted(shared.items())))
    LOG.info("all: %s", "; ".join(f"{u.job.name} <- {len(u.inputs)} file(s)" for u in units))
    manifests = publication.execute(units, build_all, beam_args)
    from pipelines.framework.advice import print_advice  # pylint: disable=import-outside-toplevel
    for manifest in manifests:
        print_summary(manifest, sys.stdout)
        print_advice(manifest, sys.stdout)
    return manifests


JOB = make_all_job()


def main(argv=None) -> int:
    """`python -m pipelines.all ...`: exactly `rewrite-mine all ...`."""
    from pipelines import cli  # pylint: disable=import-outside-toplevel  (cli imports this module by name)
    return cli.main(["all"] + list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
