"""A user's own Flink cluster, as the distribution configures it: before the job is submitted, its REST API
is read (pipelines/framework/engines/preflight.py) and a cluster whose network memory a job of this project
would exhaust is told, in one line, which key to set.

The cluster is real: Flink 1.19.3 with the distribution's own conf/config.yaml (1 slot, a 1728 MB
TaskManager, 128 MB of network memory, no restart strategy), on free ports (tests/stock_flink.py). Checked:
the line names `taskmanager.network.sort-shuffle.min-buffers: 64` and no job reaches the cluster; the job
sent anyway (the check skipped) dies of "Insufficient number of network buffers", as the line says; with
the key the line names set in config.yaml, the check passes and the job writes the local runner's bytes.
"""
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ROOT  # noqa: E402
from pipelines.framework.engines import preflight as fp  # noqa: E402
from stock_flink import StockFlinkCluster  # noqa: E402


def _tm(slots, network_mb):
    return fp.TaskManager(id="tm", slots=slots, network_bytes=network_mb << 20)


def test_sizes_are_read_as_flink_writes_them():
    assert fp.parse_size("32kb", 0) == 32 << 10
    assert fp.parse_size("64 mb", 0) == 64 << 20
    assert fp.parse_size("134217728b", 0) == 134217728
    assert fp.parse_size("1gb", 0) == 1 << 30
    assert fp.parse_size("", 7) == 7 and fp.parse_size("lots", 7) == 7


def test_what_the_check_asks_of_a_cluster():
    stock = fp.Cluster("h:8081", {}, [_tm(1, 128)])
    problem, warnings = fp.assess(stock, 1)
    assert "taskmanager.network.sort-shuffle.min-buffers: 64" in problem
    assert "taskmanager.memory.network.min" not in problem  # 128 MB suffice at 64 buffers per partition
    assert "\n" not in problem and len(warnings) == 1 and "restart-strategy.type: fixed-delay" in warnings[0]
    # What `rewrite-mine cluster start flink` configures (3 GB TaskManager, 20% network, 64 per partition,
    # restarts): nothing to say.
    ours = fp.Cluster("h:8081", {"taskmanager.network.sort-shuffle.min-buffers": "64",
                                 "restart-strategy.type": "fixed-delay"}, [_tm(2, 502)])
    assert fp.assess(ours, 2) == (None, [])
    # Too little network memory even at 64 per partition: the memory keys too.
    tiny = fp.Cluster("h:8081", {"taskmanager.network.sort-shuffle.min-buffers": "64",
                                 "restart-strategy.type": "fixed-delay"}, [_tm(4, 64)])
    problem, _ = fp.assess(tiny, 4)
    assert "min-buffers" not in problem and "taskmanager.memory.network.min: 192mb" in problem
    assert "or run with --parallelism 1" in problem  # one slot's worth fits in 64 MB
    # Below sort-shuffle.min-parallelism a blocking partition is a hash partition: parallelism + 1 buffers.
    hashed = fp.Cluster("h:8081", {"taskmanager.network.sort-shuffle.min-parallelism": "100",
                                   "restart-strategy.type": "exponential-delay"}, [_tm(1, 128)])
    assert fp.assess(hashed, 1) == (None, [])


def _cli(argv, env=None):
    return subprocess.run([sys.executable, "-m", "pipelines.cli"] + argv, cwd=str(ROOT), capture_output=True,
                          text=True, timeout=1200, env=dict(os.environ, **(env or {})), check=False)


@pytest.mark.engines
@pytest.mark.slow
def test_a_stock_cluster_is_told_the_key_before_submission_and_runs_the_job_once_it_is_set(tmp_path):
    articles = h.inputs()["articles"]
    argv = ["discovery"] + h.DISCOVERY_ARGS + ["--input", articles, "--no_progress", "--runner", "flink"]
    stock = StockFlinkCluster(str(tmp_path / "stock"))
    stock.start()
    try:
        cluster = fp.read_cluster(stock.master)
        assert [(tm.slots, tm.network_bytes >> 20) for tm in cluster.taskmanagers] == [(1, 128)]
        assert "restart-strategy.type" not in cluster.config

        run = _cli(argv + ["--output", str(tmp_path / "out1"), "--flink_master", stock.master])
        assert run.returncode == 2, run.stderr[-3000:]
        error = [line for line in run.stderr.splitlines() if "error:" in line]
        assert len(error) == 1 and "taskmanager.network.sort-shuffle.min-buffers: 64" in error[0], run.stderr[-3000:]
        assert "4,096 buffers" in error[0] and "Insufficient number of network buffers" in error[0]
        assert stock.jobs() == []  # stopped before submission

        # What the line foretells: sent anyway, the job dies of it.
        run = _cli(argv + ["--output", str(tmp_path / "out2"), "--flink_master", stock.master],
                   env={fp.ENV_SKIP: "0"})
        assert run.returncode == 2
        assert "Insufficient number of network buffers" in run.stderr, run.stderr[-3000:]
    finally:
        stock.stop()

    # The key the line names, in the cluster's config.yaml: the check passes and the job runs.
    key, value = re.search(r"Set (taskmanager\.network\.sort-shuffle\.min-buffers): (\d+)", error[0]).groups()
    fixed = StockFlinkCluster(str(tmp_path / "fixed"), overrides={key: value})
    fixed.start()
    try:
        assert fp.assess(fp.read_cluster(fixed.master), 1)[0] is None
        run = _cli(argv + ["--output", str(tmp_path / "out3"), "--flink_master", fixed.master])
        assert run.returncode == 0, run.stderr[-3000:]
        assert h.digest(tmp_path / "out3" / "markers") == h.digest(h.reference("discovery"))
    finally:
        fixed.stop()
