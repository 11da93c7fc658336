"""Publication of a run: input fingerprints, versions, staging and atomic publication (scheduled,
incremental reprocessing).

The job framework (`Job.run` in pipelines/framework/job.py, and `rewrite-mine all`) hands
`execute` its units and a `construct` callback; this module imports nothing of
the framework back (the shared error is pipelines/framework/errors.py).

A run is identified by a *fingerprint*: a SHA-256 over the job, the options
that change the data, the code version and every input file (path, size and
checksum). The fingerprint is written into the manifest, so a scheduler can
call the same command every day:

  * same inputs and options as the published dataset -> "up to date", nothing
    runs (`--force` re-runs it; shards are then byte-identical, see
    transforms/sinks.py);
  * a new dump (`--dump_date auto` reads the date from names such as
    `enwiki-20240601-pages-articles.xml.bz2`) -> a new version beside the old:

        OUTPUT/<dataset>/...                  unversioned run (no --dump_date)
        OUTPUT/<YYYYMMDD>/<dataset>/...       versioned run
        OUTPUT/<dataset>.LATEST               versioned runs: the newest published dump date

Atomic publication: the pipeline writes into a staging directory
`OUTPUT/_staging/<dataset>-<fingerprint[:16]>/<dataset>/` and only a run that
finished (pipeline done, manifest written) is moved to where readers look. On
a local or POSIX filesystem that is one directory rename (the old version is
first renamed aside, so a reader sees the old dataset, then briefly none, then
the new one: never a mixture). On object stores (gs://, s3://) "directories"
cannot be renamed atomically: files are copied and `manifest.json` is copied
last, so `manifest.json` (and `<dataset>.LATEST`) is the commit marker readers
must wait for. A run that died leaves only its staging directory behind; the
next run with the same fingerprint starts that staging directory afresh (or,
when the pipeline had finished and only publication was cut short, publishes
it without running again). A Flink cluster keeps a job whose driver was killed
running, writing into that staging directory: the next run cancels it first
(`runners.stop_orphaned_job`, which finds it by the name every run of the same
command gives its engine job).
"""
import dataclasses
import datetime
import hashlib
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import time
import typing

from apache_beam.io.filesystems import FileSystems

from pipelines.framework import runners, storage
from pipelines.framework.errors import JobFailed, failure_cause  # noqa: F401  (failure_cause: publication's API too)

LOG = logging.getLogger("rewrite_mine")

STAGING = "_staging"
RUNNING_MARKER = "_RUNNING.json"
MANIFEST = "manifest.json"
CHECKSUMS = ("sha256", "metadata")

# Options that say how or where a job runs, not what it computes: left out of the fingerprint.
NON_SEMANTIC_OPTIONS = frozenset({
    "runner", "num_workers", "dask_address", "output", "input", "force", "checksum", "split_ratios",
    "dump_date",  # the resolved version is part of the fingerprint instead
    "own_job_server", "progress", "progress_interval",  # how it runs and shows it, not what it writes
})

# Wikimedia dump names: <wiki>-<YYYYMMDD>-<part>, e.g. enwiki-20240601-pages-meta-history1.xml-p1p872.bz2.
_DUMP_DATE = re.compile(r"(?:^|[^a-z0-9])(?P<wiki>[a-z][a-z0-9_]*wik[a-z]+)-(?P<date>\d{8})-")
_READ_CHUNK = 8 << 20


class ReprocessError(JobFailed):
    """Inputs or dump dates that do not allow a versioned run, or a run that failed; the message says what to do."""


# ------------------------------------------------------------------ inputs

def parse_dump_date(path: str) -> str:
    """'.../enwiki-20240601-pages-articles1.xml-p1p30303.bz2' -> '20240601'; '' when the name has none."""
    m = _DUMP_DATE.search(os.path.basename(path).lower())
    if not m:
        return ""
    try:
        datetime.datetime.strptime(m.group("date"), "%Y%m%d")
    except ValueError:
        return ""
    return m.group("date")


def resolve_dump_date(option: str, inputs: typing.Sequence[str]) -> str:
    """The version of a run: '' (unversioned), the explicit YYYYMMDD, or the one date of every input's name.

    Raises:
      ReprocessError: a malformed `--dump_date`, or `auto` with inputs of no or of several dump dates.
    """
    option = (option or "").strip()
    if not option:
        return ""
    if option != "auto":
        try:
            datetime.datetime.strptime(option, "%Y%m%d")
        except ValueError:
            raise ReprocessError(f"--dump_date must be YYYYMMDD or 'auto', got {option!r}") from None
        return option
    dates = {parse_dump_date(p) for p in inputs}
    if "" in dates:
        undated = sorted(p for p in inputs if not parse_dump_date(p))
        raise ReprocessError(f"--dump_date auto: {undated[0]!r} has no dump date in its name "
                             f"(like enwiki-20240601-...); pass --dump_date YYYYMMDD")
    if len(dates) != 1:
        raise ReprocessError(f"--dump_date auto: the inputs come from several dumps {sorted(dates)}; "
                             f"run one dump at a time or pass --dump_date YYYYMMDD")
    return dates.pop()


def checksum(path: str) -> str:
    """SHA-256 of a file's bytes on any Beam filesystem (streamed)."""
    h = hashlib.sha256()
    with FileSystems.open(path, mime_type="application/octet-stream", compression_type="uncompressed") as f:
        while True:
            chunk = f.read(_READ_CHUNK)
            if not chunk:
                break
            h.update(chunk)
    return h.hexdigest()


def describe_input(path: str, mode: str = "sha256") -> dict:
    """{path, size_bytes, sha256 | mtime, dump_date} of one input file.

    Args:
      mode: "sha256" reads every byte at the driver; "metadata" records the size and the
        filesystem's modification time only (cheap for terabyte dumps on object stores).
    """
    meta = FileSystems.match([path])[0].metadata_list[0]
    info = {"path": path, "size_bytes": meta.size_in_bytes, "dump_date": parse_dump_date(path)}
    if mode == "sha256":
        info["sha256"] = checksum(path)
    elif mode == "metadata":
        info["mtime"] = meta.last_updated_in_seconds
    else:
        raise ReprocessError(f"--checksum must be one of {CHECKSUMS}, got {mode!r}")
    return info


def semantic_options(args) -> dict:
    """The options that change what a job writes (JSON-safe)."""
    out = {}
    for k, v in sorted(vars(args).items()):
        if k in NON_SEMANTIC_OPTIONS or k.startswith("_"):
            continue
        out[k] = v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)
    return out


def fingerprint(job_name: str, dataset: str, options: dict, inputs: typing.Sequence[dict], code: dict,
                version: str) -> str:
    payload = {"job": job_name, "dataset": dataset, "options": options, "version": version,
               "code": {k: code.get(k, "") for k in ("package", "git_commit")},
               "inputs": sorted(({k: v for k, v in i.items()} for i in inputs), key=lambda i: i["path"])}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ plan

@dataclasses.dataclass
class RunPlan:
    """Where one dataset of one run is staged and published."""
    dataset: str
    output: str  # --output as given (the root readers know)
    version: str  # "" or YYYYMMDD
    fingerprint: str
    inputs: typing.List[dict]

    @property
    def published_root(self) -> str:
        """The root whose `<dataset>/` readers look at."""
        return FileSystems.join(self.output, self.version) if self.version else self.output

    @property
    def published_dir(self) -> str:
        return FileSystems.join(self.published_root, self.dataset)

    @property
    def staging_root(self) -> str:
        """The `--output` the pipeline writes to; its `<dataset>/` is published when the run finished."""
        return FileSystems.join(self.output, STAGING, f"{self.dataset}-{self.fingerprint[:16]}")

    @property
    def staging_dir(self) -> str:
        return FileSystems.join(self.staging_root, self.dataset)

    @property
    def latest_pointer(self) -> str:
        return FileSystems.join(self.output, f"{self.dataset}.LATEST")


def make_plan(dataset: str, output: str, version: str, fp: str, inputs) -> RunPlan:
    return RunPlan(dataset=dataset, output=output, version=version, fingerprint=fp, inputs=list(inputs))


def read_manifest(dataset_dir: str) -> typing.Optional[dict]:
    path = FileSystems.join(dataset_dir, MANIFEST)
    try:
        if not FileSystems.exists(path):
            return None
        with FileSystems.open(path) as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def published_manifest_if_current(plan: RunPlan) -> typing.Optional[dict]:
    """The published manifest when it has this run's fingerprint (nothing to do), else None."""
    manifest = read_manifest(plan.published_dir)
    if manifest and manifest.get("reprocess", {}).get("fingerprint") == plan.fingerprint:
        return manifest
    return None


def finished_staging_manifest(plan: RunPlan) -> typing.Optional[dict]:
    """A staged run that finished (manifest written) but was not published: publish it as is."""
    manifest = read_manifest(plan.staging_dir)
    if manifest and manifest.get("reprocess", {}).get("fingerprint") == plan.fingerprint:
        return manifest
    return None


def _is_local(path: str) -> bool:
    return "://" not in path


def _delete_tree(path: str):
    """Remove a directory and everything under it. On object stores a directory is only a key prefix
    (`FileSystems.exists` of it is False while objects lie under it): its files are listed and deleted."""
    if _is_local(path):
        shutil.rmtree(path, ignore_errors=True)
        return
    files = _list_files(path)
    if files:
        FileSystems.delete(files)


def running_marker(plan: RunPlan) -> typing.Optional[dict]:
    """The `_RUNNING.json` an earlier run of the same fingerprint left in the staging directory (its driver's
    pid and host), or None."""
    path = FileSystems.join(plan.staging_root, RUNNING_MARKER)
    try:
        if not FileSystems.exists(path):
            return None
        with FileSystems.open(path) as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def prepare_staging(plan: RunPlan) -> None:
    """Empty the staging directory (a crashed run's leftovers are redone) and mark it running."""
    _delete_tree(plan.staging_root)
    marker = FileSystems.join(plan.staging_root, RUNNING_MARKER)
    with FileSystems.create(marker) as f:
        f.write(json.dumps({"fingerprint": plan.fingerprint, "pid": os.getpid(), "host": socket.gethostname(),
                            "started_utc": _utc_now()}).encode("utf-8"))


def _utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _list_files(root: str) -> typing.List[str]:
    match = FileSystems.match([FileSystems.join(root, "**")])[0]
    return sorted(m.path for m in match.metadata_list if not m.path.endswith("/"))


def publish(plan: RunPlan) -> str:
    """Move the staged dataset to where readers look; returns the published directory."""
    src, dst = plan.staging_dir, plan.published_dir
    started = time.time()
    if not FileSystems.exists(FileSystems.join(src, MANIFEST)):
        raise ReprocessError(f"refusing to publish {src}: the run did not finish (no {MANIFEST})")
    _delete_temporary_files(src)
    if _is_local(dst):
        os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
        aside = f"{plan.staging_root}.old"
        shutil.rmtree(aside, ignore_errors=True)
        if os.path.exists(dst):
            os.rename(dst, aside)  # readers now see no dataset (never a mixture) ...
        os.rename(src, dst)  # ... and then the whole new one
        shutil.rmtree(aside, ignore_errors=True)
    else:
        # Object stores: remove the commit marker first, then the rest, copy, and the marker last. Each
        # object appears whole or not at all (S3, GCS), so a reader that finds `manifest.json` finds every
        # file it names; one cut short here leaves files without it, and the next run publishes again.
        old_manifest = FileSystems.join(dst, MANIFEST)
        if FileSystems.exists(old_manifest):
            FileSystems.delete([old_manifest])
        _delete_tree(dst)
        files = [p for p in _list_files(src) if p != FileSystems.join(src, MANIFEST)]
        FileSystems.copy(files, [dst + p[len(src):] for p in files])
        FileSystems.copy([FileSystems.join(src, MANIFEST)], [old_manifest])
        LOG.info("%s: published %d files by copy (an object store has no rename), manifest last, in %.1f s",
                 dst, len(files) + 1, time.time() - started)
    _delete_tree(plan.staging_root)
    _remove_if_empty(FileSystems.join(plan.output, STAGING))
    if plan.version:
        _update_latest(plan)
    return dst


def _delete_temporary_files(src: str) -> None:
    """Files under a `.tmp-*` directory are never part of a dataset: the rejects writer's temporary files
    (transforms/sinks.py) that a task attempt wrote after the run had removed its temporary directory (a
    retried or zombie attempt on an engine: a full test run found two in a dataset the Spark driver-kill
    test's rerun published). They go before the dataset is published, each named in the log."""
    leftovers = [p for p in _list_files(src) if re.search(r"[/\\]\.tmp-[^/\\]*[/\\]", p[len(src):])]
    if not leftovers:
        return
    LOG.warning("%s: %d temporary file(s) a task attempt left are not published: %s", src, len(leftovers),
                ", ".join(leftovers[:5]))
    FileSystems.delete(leftovers)
    if _is_local(src):
        for root, dirs, _ in os.walk(src, topdown=False):
            for d in dirs:
                if d.startswith(".tmp-"):
                    shutil.rmtree(os.path.join(root, d), ignore_errors=True)


def _remove_if_empty(path: str):
    if _is_local(path):
        try:
            os.rmdir(path)
        except OSError:
            pass


def latest_version(output: str, dataset: str) -> str:
    path = FileSystems.join(output, f"{dataset}.LATEST")
    if not FileSystems.exists(path):
        return ""
    with FileSystems.open(path) as f:
        return f.read().decode("utf-8").strip()


def _update_latest(plan: RunPlan):
    """Point `<dataset>.LATEST` at this version unless a newer dump is already published (backfills)."""
    current = latest_version(plan.output, plan.dataset)
    if current and current >= plan.version:  # a newer dump, or this one already
        return
    from transforms.sinks import _write_atomically  # pylint: disable=import-outside-toplevel
    _write_atomically(plan.latest_pointer, (plan.version + "\n").encode("utf-8"))


def code_version() -> dict:
    """Package version and, when run from a git checkout, the commit."""
    from importlib import metadata
    try:
        version = metadata.version("rewrite-mining")
    except metadata.PackageNotFoundError:
        version = "unknown"
    commit = ""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return {"package": version, "git_commit": commit}


def plan_for(job, args, inputs) -> RunPlan:
    """Describe the inputs (checksums), resolve the version and fingerprint one job's run."""
    version = resolve_dump_date(getattr(args, "dump_date", ""), inputs)
    described = [describe_input(p, getattr(args, "checksum", "sha256")) for p in inputs]
    name = job.dataset_for(args)  # `markers`, or `markers-uk`: published to OUTPUT/markers-uk
    fp = fingerprint(job.name, name, semantic_options(args), described, code_version(), version)
    return make_plan(name, args.output, version, fp, described)


@dataclasses.dataclass
class Unit:
    """One job of a run: its options, its expanded inputs and, once planned, its RunPlan."""
    job: typing.Any
    args: typing.Any
    inputs: typing.List[str]
    plan: typing.Optional[RunPlan] = None


def execute(units: typing.Sequence[Unit], construct, beam_args) -> typing.List[dict]:
    """Run the jobs of `units` that are not up to date in ONE pipeline, staged, then publish each.

    Args:
      units: the jobs (one for `rewrite-mine <job>`, several for `rewrite-mine all`).
      construct: `construct(units_to_run, beam_args) -> (pipeline, [JobOutput])`; each unit's
        `args.output` is already its staging root.
      beam_args: options passed through to Beam.

    Returns:
      One manifest per unit (the published one; `_up_to_date` is True when nothing ran for it).

    Raises:
      ReprocessError: the pipeline failed; nothing of this run was published.
    """
    import argparse  # pylint: disable=import-outside-toplevel
    manifests: typing.List[typing.Optional[dict]] = [None] * len(units)
    todo = []
    for i, unit in enumerate(units):
        unit.plan = unit.plan or plan_for(unit.job, unit.args, unit.inputs)
        plan = unit.plan
        force = getattr(unit.args, "force", False)
        current = None if force else published_manifest_if_current(plan)
        if current is not None:
            LOG.info("%s: up to date (%s has fingerprint %s); nothing to do (--force re-runs it)",
                     unit.job.name, plan.published_dir, plan.fingerprint[:16])
            manifests[i] = dict(current, _path=FileSystems.join(plan.published_dir, MANIFEST), _up_to_date=True)
            if plan.version:  # a run cut short between publication and the pointer: point it now
                _update_latest(plan)
            continue
        staged = None if force else finished_staging_manifest(plan)
        if staged is not None:
            LOG.info("%s: publishing the finished staged run %s", unit.job.name, plan.staging_dir)
            manifests[i] = dict(staged, _path=FileSystems.join(publish(plan), MANIFEST), _up_to_date=False)
            continue
        todo.append(i)
    if not todo:
        return manifests

    started = time.time()
    run_units = []
    for i in todo:
        unit = units[i]
        # An earlier run of this command whose driver was killed may have left its job running on an engine,
        # still writing here: it is stopped before the staging directory is emptied (runners.py).
        runners.stop_orphaned_job(unit.args, beam_args, unit.plan.staging_root, running_marker(unit.plan))
        prepare_staging(unit.plan)
        run_args = argparse.Namespace(**vars(unit.args))
        run_args.output = unit.plan.staging_root
        run_units.append(Unit(unit.job, run_args, unit.inputs, unit.plan))
    pipeline, outs = construct(run_units, beam_args)
    paths = [p for u in run_units for p in list(u.inputs) + [u.plan.published_dir]]
    try:
        state = runners.run_and_wait(pipeline, run_units[0].args)
    except Exception as e:  # noqa: BLE001 - any runner's failure: say what it means for the output
        store = storage.store_failure(e, beam_args, paths)  # the object store stopped answering: named
        raise ReprocessError(_failure_message(run_units, store or f"{type(e).__name__}: {e}", plain=bool(store))) \
            from e
    if state is not None and str(state).split(".")[-1] not in ("DONE", "UNKNOWN"):
        raise ReprocessError(_failure_message(run_units, f"the runner ended in state {state}"))
    elapsed = time.time() - started
    try:
        written = [(i, u, u.job.write_manifest(u.args, u.inputs, out, elapsed, plan=u.plan))
                   for i, u, out in zip(todo, run_units, outs)]
        for i, unit, manifest in written:  # publish only once every dataset of the run is complete
            manifest["_path"] = FileSystems.join(publish(unit.plan), MANIFEST)
            manifest["_up_to_date"] = False
            manifests[i] = manifest
    except Exception as e:  # noqa: BLE001
        store = storage.store_failure(e, beam_args, paths)
        if store is None:
            raise
        where = "; ".join(u.plan.published_dir for u in run_units)
        raise ReprocessError(f"the run finished, then {store.split(': nothing was published')[0]} while its "
                             f"dataset was written out: {where} has no new manifest.json (readers take no dataset "
                             f"without one). Re-run the same command once the store answers: it publishes the "
                             f"staged run without running it again.") from e
    return manifests


def _failure_message(run_units, cause: str, plain: bool = False) -> str:
    where = "; ".join(f"{u.plan.published_dir} (staged in {u.plan.staging_root})" for u in run_units)
    first_line = (cause.split(": nothing was published")[0] if plain else failure_cause(cause)[:500]).rstrip(". ")
    return (f"the pipeline failed: {first_line}. Nothing was published: readers still see the previous "
            f"version (if any) of {where}. Re-run the same command to redo the run.")
