"""Live progress of a running job, worker side: the counters and input positions the DoFns report.

The side channel costs the hot path one dict increment. Any process that runs
our DoFns (the driver with `--num_workers 1`, the local runner's SDK workers,
a Dask LocalCluster's workers, which all inherit the driver's environment)
keeps, while `$REWRITE_MINE_PROGRESS_DIR` is set:

  * a process-wide `Counter` per dataset (`live_counts`) that `MiningDoFn.inc`
    adds to;
  * the readers' open input files (`track_input`), whose positions are polled
    for the bytes read;
  * a daemon thread writing a snapshot `{dataset: {counter: n}}` plus the bytes
    read to `$REWRITE_MINE_PROGRESS_DIR/<pid>.json` every `FLUSH_S` seconds,
    only when it changed.

The driver side (summing the snapshots, the display, Dataflow's metrics) is
pipelines/framework/progress.py.
"""
import collections
import json
import os
import threading
import time
import typing

import apache_beam as beam

ENV_DIR = "REWRITE_MINE_PROGRESS_DIR"
FLUSH_S = 1.0
KEPT = "progress/kept"

_lock = threading.Lock()
_live: typing.Dict[str, typing.Any] = {"dir": None, "counts": {}, "files": {}, "bytes_done": collections.Counter()}


def _current_dir() -> typing.Optional[str]:
    d = os.environ.get(ENV_DIR) or None
    if d != _live["dir"]:
        with _lock:
            if d != _live["dir"]:  # a new run (same process): start from zero
                _live.update(dir=d, counts={}, files={}, bytes_done=collections.Counter())
                if d and not _live.get("thread"):
                    t = threading.Thread(target=_flush_loop, name="rewrite-mine-progress", daemon=True)
                    _live["thread"] = t
                    t.start()
    return d


def live_counts(dataset: str) -> typing.Optional[collections.Counter]:
    """The process-wide Counter of `dataset` to add to, or None when no progress is watched (no env var)."""
    if _current_dir() is None:
        return None
    counts = _live["counts"]
    c = counts.get(dataset)
    if c is None:
        c = counts.setdefault(dataset, collections.Counter())
    return c


class track_input:  # pylint: disable=invalid-name  (a context manager used like a function)
    """`with track_input(dataset, f, start):` the bytes of `f` read so far count as read (polled, not per read)."""

    def __init__(self, dataset: str, f, start: int = 0):
        self.dataset, self.f, self.start = dataset, f, max(start, 0)
        self.on = _current_dir() is not None

    def __enter__(self):
        if self.on:
            _live["files"][id(self)] = self
        return self.f

    def read_so_far(self) -> int:
        try:
            return max(self.f.tell() - self.start, 0)
        except Exception:  # noqa: BLE001 - a closed or unseekable file: nothing to add
            return 0

    def __exit__(self, *exc):
        if self.on:
            self.on = False
            _live["bytes_done"][self.dataset] += self.read_so_far()
            _live["files"].pop(id(self), None)
        return False


def snapshot() -> dict:
    """{"counts": {dataset: {name: n}}, "bytes": {dataset: n}} of this process."""
    counts = {}
    for dataset, c in list(_live["counts"].items()):
        for _ in range(3):  # the Counter may change while copied (another thread); retry
            try:
                counts[dataset] = dict(c)
                break
            except RuntimeError:
                continue
    read = collections.Counter(_live["bytes_done"])
    for t in list(_live["files"].values()):
        read[t.dataset] += t.read_so_far()
    return {"counts": counts, "bytes": dict(read)}


def _flush_loop():
    last = None
    while True:
        time.sleep(FLUSH_S)
        d = _live["dir"]
        if not d or not os.path.isdir(d):
            continue
        snap = snapshot()
        data = json.dumps(snap, sort_keys=True)
        if data == last:
            continue
        path = os.path.join(d, f"{os.getpid()}.json")
        try:
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write(data)
            os.replace(path + ".tmp", path)
            last = data
        except OSError:
            pass


class CountKeptFn(beam.DoFn):
    """Counts the examples that reach the sinks (`progress/kept` of the dataset); outputs nothing."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self._live = None
        self._metric = None

    def start_bundle(self):
        self._live = live_counts(self.dataset)
        if self._metric is None:
            self._metric = beam.metrics.Metrics.counter(self.dataset, KEPT)

    def process(self, element):
        if self._live is not None:
            self._live[KEPT] += 1
        self._metric.inc()
        return ()
