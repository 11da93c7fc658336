"""Live progress of a running job, driver side: bytes read of the inputs, documents per second, examples
kept, ETA.

The figures come from a side channel that costs the hot path one dict
increment:

  * worker side (transforms/progress.py): `MiningDoFn.inc` adds to a
    process-wide `Counter` per dataset, the readers register their open input
    file, and a daemon thread writes a snapshot per process to
    `$REWRITE_MINE_PROGRESS_DIR/<pid>.json`.
  * driver side (here, `Monitor`): sums the snapshots and draws one rich progress
    line redrawn in place on a terminal, or logs a plain line every
    `--progress_interval` seconds when the console is not a terminal (CI,
    cron, Airflow). `--no_progress` turns it off.

Dataflow: `dataflow_job_url` / `report_dataflow_submission` print the job id
and its console URL at submission, and `Monitor.from_metrics` feeds the same
display from the job's Beam metrics (the counters `MiningDoFn.inc` also
reports) while `wait_until_finish` polls.
"""
import collections
import json
import logging
import os
import threading
import time
import typing

from transforms.progress import ENV_DIR, KEPT

LOG = logging.getLogger("rewrite_mine")
DEFAULT_INTERVAL_S = 30.0
# Counters read as "documents" (pages, WET records, pair-file lines), in order of preference.
DOC_COUNTERS = ("read/documents", "read/records")

# ------------------------------------------------------------------ figures

def read_snapshots(directory: str) -> dict:
    """Sum of every process's snapshot in `directory`."""
    counts: typing.Dict[str, collections.Counter] = {}
    read = collections.Counter()
    try:
        names = os.listdir(directory)
    except OSError:
        names = []
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                snap = json.load(f)
        except (OSError, ValueError):
            continue
        for dataset, c in snap.get("counts", {}).items():
            counts.setdefault(dataset, collections.Counter()).update(c)
        read.update(snap.get("bytes", {}))
    return {"counts": counts, "bytes": dict(read)}


# Stages left out of "busy": reading has its own figures, and these only count.
_QUIET_STAGES = ("read", "progress")
BUSY_SHOWN = 2
BUSY_WINDOW_S = 5.0  # the terminal display's window for "busy"


def stage_totals(snap: dict) -> typing.Dict[str, int]:
    """{"dataset:stage": sum of that stage's counters} of a snapshot (counter names are "stage/name")."""
    out: typing.Dict[str, int] = collections.Counter()
    for dataset, c in snap.get("counts", {}).items():
        for name, n in c.items():
            stage = name.split("/", 1)[0]
            if stage not in _QUIET_STAGES and dataset:
                out[f"{dataset}:{stage}"] += n
    return dict(out)


def busy_stages(now: typing.Dict[str, int], before: typing.Optional[typing.Dict[str, int]]
                ) -> typing.List[typing.Tuple[str, int]]:
    """The stages whose counters moved most since `before` ([(name, increase)], largest first): what
    the job is doing after the reading is over (a long back-translation or scoring stage, while no
    example has reached the sinks yet)."""
    if before is None:
        return []
    moved = [(k, n - before.get(k, 0)) for k, n in now.items() if n > before.get(k, 0)]
    return sorted(moved, key=lambda kv: (-kv[1], kv[0]))[:BUSY_SHOWN]


def figures(snap: dict, total_bytes: int, elapsed: float, before: typing.Optional[typing.Dict[str, int]] = None
            ) -> dict:
    """Display figures from summed snapshots: bytes read (of the largest reader), docs, docs/s, kept, ETA,
    and the busiest stages since the stage totals `before` (none without)."""
    counts = snap.get("counts", {})
    read = min(max(snap.get("bytes", {}).values(), default=0), total_bytes or 1 << 62)
    docs = 0
    for c in counts.values():
        docs = max(docs, next((c[k] for k in DOC_COUNTERS if c.get(k)), 0))
    kept = {d: c.get(KEPT, 0) for d, c in sorted(counts.items()) if d}
    eta = None
    if total_bytes and read and elapsed > 0 and read < total_bytes:
        eta = elapsed * (total_bytes - read) / read
    totals = stage_totals(snap)
    return {"bytes": read, "total_bytes": total_bytes, "docs": docs,
            "docs_per_s": docs / elapsed if elapsed > 0 else 0.0, "kept": kept, "elapsed": elapsed, "eta": eta,
            "stages": totals, "busy": busy_stages(totals, before)}


def _busy(f: dict) -> str:
    return ", ".join(f"{name} +{n}" for name, n in f.get("busy", ()))


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000.0
    return str(n)


def _clock(s: typing.Optional[float]) -> str:
    if s is None:
        return "?"
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def format_line(f: dict) -> str:
    """One plain line: `read 1.2 MB of 4.5 MB (27%), 105 docs (52.1/s), kept markers=369,
    busy markers:filter +1200, elapsed 0:00:12, ETA 0:00:32`."""
    parts = []
    if f["total_bytes"]:
        parts.append(f"read {_size(f['bytes'])} of {_size(f['total_bytes'])} "
                     f"({100.0 * f['bytes'] / f['total_bytes']:.0f}%)")
    parts.append(f"{f['docs']} docs ({f['docs_per_s']:.1f}/s)")
    if f["kept"]:
        parts.append("kept " + " ".join(f"{d}={n}" for d, n in f["kept"].items()))
    if f.get("busy"):
        parts.append(f"busy {_busy(f)}")
    parts.append(f"elapsed {_clock(f['elapsed'])}")
    parts.append(f"ETA {_clock(f['eta'])}")
    return ", ".join(parts)


# ------------------------------------------------------------------ driver side

def input_bytes(paths: typing.Iterable[str]) -> int:
    """Total size of the inputs (known before the run; 0 when a size cannot be read)."""
    from apache_beam.io.filesystems import FileSystems
    total = 0
    for p in paths:
        try:
            total += sum(m.size_in_bytes for m in FileSystems.match([p])[0].metadata_list)
        except Exception:  # noqa: BLE001 - a size we cannot read only makes the ETA unknown
            pass
    return total


class Monitor:
    """Draws progress while a run is in flight: a redrawn rich line on a terminal, else a log line per interval.

    Args:
      total_bytes: the inputs' total size.
      interval_s: seconds between plain log lines when the console is not a terminal.
      stream: the console (default: `pipelines.framework.console.console_stream()`).
      source: `source() -> snapshot`; default: the side-channel files of this run's directory.
    """

    def __init__(self, total_bytes: int, interval_s: float = DEFAULT_INTERVAL_S, stream=None, source=None,
                 directory: typing.Optional[str] = None):
        from pipelines.framework import console
        self.total_bytes = total_bytes
        self.interval_s = max(float(interval_s), 0.1)
        self.stream = stream or console.console_stream()
        self.directory = directory
        self._files = source is None  # the side-channel files of this run (else e.g. a job's metrics)
        self.source = source or (lambda: read_snapshots(self.directory))
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.lines: typing.List[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rewrite-mine-monitor", daemon=True)
        self._started = 0.0
        self._saved_env = None

    def __enter__(self):
        import tempfile
        if self._files and self.directory is None:
            self.directory = tempfile.mkdtemp(prefix="rewrite-mine-progress-")
            self._saved_env = os.environ.get(ENV_DIR)
            os.environ[ENV_DIR] = self.directory  # workers started from now on inherit it
        self._started = time.time()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
        if not self.tty and exc[0] is None:
            # Where the run ended: a run shorter than the interval past its last read (warm workers, a small
            # input) would otherwise leave no line with everything read.
            try:
                line = format_line(self.current())
                self.lines.append(line)
                LOG.info("progress: %s", line)
            except Exception:  # noqa: BLE001 - the display never fails a run
                LOG.debug("final progress line", exc_info=True)
        if self._files and self.directory and os.environ.get(ENV_DIR) == self.directory:
            if self._saved_env is None:
                os.environ.pop(ENV_DIR, None)
            else:
                os.environ[ENV_DIR] = self._saved_env
            import shutil
            shutil.rmtree(self.directory, ignore_errors=True)
        return False

    def current(self, before: typing.Optional[typing.Dict[str, int]] = None) -> dict:
        return figures(self.source(), self.total_bytes, time.time() - self._started, before)

    def _loop(self):
        if self.tty:
            self._loop_tty()
            return
        before = None
        while not self._stop.wait(self.interval_s):
            f = self.current(before)
            before = f["stages"]
            line = format_line(f)
            self.lines.append(line)
            LOG.info("progress: %s", line)

    def _loop_tty(self):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        console = Console(file=self.stream)
        columns = (TextColumn("[bold]{task.description}"), BarColumn(),
                   TextColumn("{task.fields[read]}"), TextColumn("{task.fields[rate]}"),
                   TextColumn("{task.fields[kept]}"), TextColumn("{task.fields[busy]}"), TimeElapsedColumn(),
                   TextColumn("ETA {task.fields[eta]}"))
        from pipelines.framework import console as console_routing
        handler = console_routing._state.get("console_handler")  # pylint: disable=protected-access
        with Progress(*columns, console=console, transient=True, refresh_per_second=2) as bar:
            task = bar.add_task("mining", total=self.total_bytes or None, read="", rate="", kept="", busy="",
                                eta="?")
            # Our log lines are printed above the redrawn line instead of through it.
            previous = handler.setStream(_LinesThrough(console)) if handler is not None else None
            try:
                self._draw(bar, task)
            finally:
                if previous is not None:
                    handler.setStream(previous)

    def _draw(self, bar, task):
        before, busy, last = None, "", 0.0
        while not self._stop.wait(0.5):
            if time.time() - last >= BUSY_WINDOW_S:  # redrawn twice a second; "busy" over a few seconds
                f = self.current(before)
                before, busy, last = f["stages"], _busy(f), time.time()
            else:
                f = self.current()
            bar.update(task, completed=f["bytes"], busy=busy,
                       read=(f"{_size(f['bytes'])}/{_size(f['total_bytes'])}" if f["total_bytes"] else ""),
                       rate=f"{f['docs']} docs {f['docs_per_s']:.1f}/s",
                       kept=" ".join(f"{d}={n}" for d, n in f["kept"].items()), eta=_clock(f["eta"]))


class _LinesThrough:
    """A text stream printing whole lines through a rich Console (above its live display)."""

    def __init__(self, console):
        self.console, self._pending = console, ""

    def write(self, text):
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        return len(text)

    def flush(self):
        pass


def metrics_source(result):
    """`source()` reading a running job's Beam metrics (Dataflow): the counters MiningDoFn also reports.

    They are `Metrics.counter(dataset, "<stage>/<name>")`: the namespace is the dataset.
    """

    def source():
        counts: typing.Dict[str, collections.Counter] = {}
        try:
            for c in result.metrics().query()["counters"]:
                ns, name = c.key.metric.namespace, c.key.metric.name
                if "/" in name:
                    value = c.committed if c.committed is not None else c.attempted
                    counts.setdefault(ns, collections.Counter())[name] += value or 0
        except Exception:  # noqa: BLE001 - metrics not available yet
            pass
        return {"counts": counts, "bytes": {}}
    return source


def dataflow_job_url(job_id: str, region: str, project: str) -> str:
    return (f"https://console.cloud.google.com/dataflow/jobs/{region}/{job_id}"
            f"?project={project}")


def report_dataflow_submission(result, options) -> typing.Optional[str]:
    """Log the Dataflow job id and its console URL; returns the URL (None when `result` is no Dataflow job)."""
    from apache_beam.options.pipeline_options import GoogleCloudOptions, StandardOptions
    runner = options.view_as(StandardOptions).runner
    runner = runner if isinstance(runner, str) else type(runner).__name__
    if "dataflow" not in (runner or "").lower():
        return None
    job_id = getattr(result, "job_id", None)
    job_id = job_id() if callable(job_id) else job_id
    if not job_id:
        return None
    gcp = options.view_as(GoogleCloudOptions)
    url = dataflow_job_url(job_id, gcp.region or "", gcp.project or "")
    LOG.info("Dataflow job %s submitted: %s", job_id, url)
    return url
