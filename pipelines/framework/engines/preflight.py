"""Before a job goes to a Flink session cluster: does the cluster have what a Beam job of this project asks?

A user's own cluster, as the distribution configures it (Flink 1.19.3: one slot, a 1728 MB TaskManager
whose network memory is 10% of its Flink memory, 128 MB = 4,096 buffers of 32 KB), fails Discovery on the
bundled sample some 15 s after submission: "Insufficient number of network buffers: required 512, but only
493 available". A Beam job is ~200 Flink tasks deployed at once in each slot, and every blocking result
partition of Flink's sort-shuffle asks for `taskmanager.network.sort-shuffle.min-buffers` (512) buffers.
Here the cluster's configuration is read over its REST API first and, when its network memory is too small,
the run stops before submission with ONE line naming the keys to set (or the `--parallelism` that fits);
a cluster with no restart strategy gets a one-line warning.

    GET /jobmanager/config          the cluster's configuration (segment size, sort-shuffle buffers, restarts)
    GET /taskmanagers               the TaskManagers and their slots
    GET /taskmanagers/<id>          each one's memory: `memoryConfiguration.networkMemory` (bytes)

What a job asks per slot (`need_per_slot`), measured with the distribution's settings and only the network
memory changed (`taskmanager.memory.network.min` = `max`), Discovery on the bundled sample at parallelism 1
(199 Flink tasks, 84 blocking edges; tests/stock_flink.py), 2026-11-27:

    min-buffers 512:  4,096 buffers (128 MB, stock) fail, 6,144 fail, 8,192 fail, 10,240 (320 MB) pass
    min-buffers  64:  4,096 buffers (128 MB, stock) pass

so a slot needs more than 8,192 and at most 10,240 buffers at 512 per partition (~20 partitions' worth),
and at most 4,096 at 64: `NEED_PER_MIN_BUFFER` = 20 and nothing else fits all five. How the need grows
with the parallelism (input channels take 2 buffers each) was not measured: at parallelism 2 on
`rewrite-mine cluster start flink`'s TaskManager (~16,000 buffers, 2 slots, min-buffers 64) every job runs.
A stock cluster is told to set `taskmanager.network.sort-shuffle.min-buffers: 64` (its 128 MB then suffice);
a smaller network memory is also told the `taskmanager.memory.network.min/max` to set.

`REWRITE_MINE_FLINK_PREFLIGHT=0` skips the check (a cluster whose TaskManagers are configured unlike its
JobManager, say; the network memory itself is read from each TaskManager).
"""
import dataclasses
import json
import logging
import os
import re
import typing
import urllib.request

from pipelines.framework.errors import JobFailed

LOG = logging.getLogger("rewrite_mine")

ENV_SKIP = "REWRITE_MINE_FLINK_PREFLIGHT"
#: Flink's defaults (1.19) for the keys read when the cluster's configuration does not set them.
DEFAULT_SEGMENT = 32 * 1024
DEFAULT_MIN_BUFFERS = 512
DEFAULT_SORT_SHUFFLE_MIN_PARALLELISM = 1
#: Network buffers one slot holds at once for a job of this project: NEED_PER_MIN_BUFFER buffers for every
#: buffer of `sort-shuffle.min-buffers` (blocking partitions deployed together), plus NEED_FIXED per unit of
#: parallelism (pipelined partitions and input channels; not measured, hence 0). From the measurements above.
NEED_PER_MIN_BUFFER = 20
NEED_FIXED = 0
#: What `rewrite-mine cluster start flink` sets, and what the one line proposes (docs/RUNNERS.md).
SUGGESTED_MIN_BUFFERS = 64
NO_RESTART = ("", "none", "off", "disable", "disabled", "norestart")


class PreflightError(JobFailed):
    """The cluster cannot run the job as configured; the message is one line saying what to set."""


_UNITS = {"": 1, "b": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10, "m": 1 << 20,
          "mb": 1 << 20, "mebibytes": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40}


def parse_size(text: typing.Union[str, int, None], default: int) -> int:
    """Flink's MemorySize syntax ("32kb", "64 mb", "1gb", "134217728b", "4096") -> bytes."""
    if text is None or str(text).strip() == "":
        return default
    m = re.match(r"^\s*(\d+)\s*([a-zA-Z]*)\s*$", str(text))
    if not m or m.group(2).lower() not in _UNITS:
        return default
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def need_per_slot(min_buffers: int, parallelism: int) -> int:
    """Network buffers one slot needs for a job of this project (see the module docstring)."""
    return NEED_PER_MIN_BUFFER * min_buffers + NEED_FIXED * max(1, parallelism)


def _mb(n_bytes: float) -> str:
    return f"{n_bytes / (1 << 20):,.0f} MB"


@dataclasses.dataclass
class TaskManager:
    id: str
    slots: int
    network_bytes: int


@dataclasses.dataclass
class Cluster:
    """What the REST API says of a cluster."""
    master: str
    config: typing.Dict[str, str]
    taskmanagers: typing.List[TaskManager]

    @property
    def segment_bytes(self) -> int:
        return parse_size(self.config.get("taskmanager.memory.segment-size"), DEFAULT_SEGMENT)

    @property
    def min_buffers(self) -> int:
        try:
            return int(self.config.get("taskmanager.network.sort-shuffle.min-buffers", DEFAULT_MIN_BUFFERS))
        except ValueError:
            return DEFAULT_MIN_BUFFERS

    def buffers_per_partition(self, parallelism: int) -> int:
        """What one blocking result partition asks: sort-shuffle's minimum, or (below
        `sort-shuffle.min-parallelism`) a hash partition's one buffer per subpartition and one more."""
        try:
            threshold = int(self.config.get("taskmanager.network.sort-shuffle.min-parallelism",
                                            DEFAULT_SORT_SHUFFLE_MIN_PARALLELISM))
        except ValueError:
            threshold = DEFAULT_SORT_SHUFFLE_MIN_PARALLELISM
        return self.min_buffers if parallelism >= threshold else parallelism + 1

    @property
    def restart_strategy(self) -> str:
        return str(self.config.get("restart-strategy.type", self.config.get("restart-strategy", ""))).strip()


def _get_json(url: str, timeout_s: float) -> typing.Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310 - http(s) of the user's cluster
        return json.loads(r.read().decode("utf-8"))


def read_cluster(master: str, timeout_s: float = 5.0) -> Cluster:
    """The configuration and TaskManagers of the cluster whose REST API is at `master` (HOST:PORT)."""
    base = master if master.startswith(("http://", "https://")) else f"http://{master}"
    config = {e["key"]: e["value"] for e in _get_json(f"{base}/jobmanager/config", timeout_s)}
    managers = []
    for tm in _get_json(f"{base}/taskmanagers", timeout_s).get("taskmanagers", []):
        detail = _get_json(f"{base}/taskmanagers/{tm['id']}", timeout_s)
        memory = detail.get("memoryConfiguration") or tm.get("memoryConfiguration") or {}
        managers.append(TaskManager(id=tm["id"], slots=int(detail.get("slotsNumber", tm.get("slotsNumber", 1))),
                                    network_bytes=int(memory.get("networkMemory", 0))))
    return Cluster(master=master, config=config, taskmanagers=managers)


def assess(cluster: Cluster, parallelism: int) -> typing.Tuple[typing.Optional[str], typing.List[str]]:
    """(the one-line problem that stops the run, or None; one-line warnings) for a job of `parallelism`."""
    warnings = []
    if cluster.restart_strategy.lower() in NO_RESTART:
        warnings.append(
            f"the Flink cluster at {cluster.master} has no restart strategy (restart-strategy.type is "
            f"{cluster.restart_strategy or 'not set'}: Flink's default for a batch job): one failed task fails "
            f"the whole run; set restart-strategy.type: fixed-delay, restart-strategy.fixed-delay.attempts: 5, "
            f"restart-strategy.fixed-delay.delay: 5 s in its config.yaml (docs/RUNNERS.md, Faults)")
    if not cluster.taskmanagers:
        return None, warnings
    segment = cluster.segment_bytes
    per_partition = cluster.buffers_per_partition(parallelism)
    need = need_per_slot(per_partition, parallelism)
    short = []
    for tm in cluster.taskmanagers:
        used = max(1, min(tm.slots, parallelism))  # slots of this job one TaskManager may hold
        have = tm.network_bytes // segment
        if have < used * need:
            short.append((tm, used, have))
    if not short:
        return None, warnings
    tm, used, have = min(short, key=lambda s: s[2] / s[1])
    keys = []
    fixed_need = need
    if per_partition > SUGGESTED_MIN_BUFFERS:
        keys.append(f"taskmanager.network.sort-shuffle.min-buffers: {SUGGESTED_MIN_BUFFERS}")
        fixed_need = need_per_slot(SUGGESTED_MIN_BUFFERS, parallelism)
    if have < used * fixed_need:
        per_tm = -(-used * fixed_need * segment // (64 << 20)) * (64 << 20)  # rounded up to 64 MB
        keys.append(f"taskmanager.memory.network.min: {per_tm >> 20}mb, taskmanager.memory.network.max: "
                    f"{max(per_tm, 1 << 30) >> 20}mb")
    fits = have // need
    lower = f", or run with --parallelism {fits}" if 1 <= fits < parallelism else ""
    problem = (
        f"the Flink cluster at {cluster.master} has {_mb(tm.network_bytes)} of network memory on TaskManager "
        f"{tm.id} ({have:,} buffers of {segment >> 10} KB for {used} slot(s) of this job), and a job of this "
        f"project holds ~{need:,} per slot with {per_partition} per blocking partition: it would fail with "
        f"\"Insufficient number of network buffers\". Set {'; '.join(keys)} in the cluster's config.yaml and "
        f"restart its TaskManagers{lower} (docs/RUNNERS.md; {ENV_SKIP}=0 skips this check)")
    return problem, warnings


def check(master: str, parallelism: int) -> None:
    """Read the cluster at `master` and stop a run it cannot take (PreflightError: one line); log warnings.
    A cluster whose REST API does not answer these requests is let through (the submission then says why)."""
    if os.environ.get(ENV_SKIP, "") == "0":
        return
    try:
        cluster = read_cluster(master)
    except Exception as e:  # noqa: BLE001 - an older or restricted REST API: no preflight, not a failure
        LOG.debug("Flink preflight skipped: %s/jobmanager/config or /taskmanagers: %s", master, e)
        return
    problem, warnings = assess(cluster, parallelism)
    for line in warnings:
        LOG.warning("%s", line)
    if problem:
        raise PreflightError(problem)
