"""`--runner dask` on a real dask.distributed LocalCluster of 2 worker processes: same bytes as the local runner.

Beam's own DaskRunner (2.61-2.74) loses the DoFn lifecycle, tagged outputs and
finish_bundle outputs (pipelines/framework/dask_runner.py); these tests run the project's
runner end to end on the markers (discovery) and splits (wikisplit) jobs.
"""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ROOT  # noqa: E402

distributed = pytest.importorskip("distributed")


def _pin(name):
    text = (ROOT / "constraints.txt").read_text()
    return re.search(rf"^{re.escape(name)}==(\S+)$", text, re.M).group(1)


def test_installed_dask_and_distributed_are_the_pinned_ones_that_work_with_beam():
    import apache_beam
    import dask
    assert dask.__version__ == _pin("dask")
    assert distributed.__version__ == _pin("distributed")
    assert apache_beam.__version__ == _pin("apache-beam")


@pytest.fixture(scope="module")
def cluster():
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        yield c
    finally:
        c.close()


def _assert_same_as_local_runner(job, dataset_dir):
    """The dataset written on Dask has the local runner's bytes and manifest counts (reference run of `job`)."""
    ref = h.reference(job)
    assert h.examples_written(os.path.join(ref, "manifest.json")) > 0
    assert h.digest(dataset_dir) == h.digest(ref)
    assert h.comparable_manifest(dataset_dir / "manifest.json") == h.comparable_manifest(
        os.path.join(ref, "manifest.json"))


@pytest.mark.slow
def test_markers_job_on_dask_writes_the_local_runners_bytes(cluster, tmp_path):
    with distributed.Client(cluster.scheduler_address) as client:
        assert len(client.scheduler_info()["workers"]) == 2
    h.run_job("pipelines.discovery", h.DISCOVERY_ARGS + [
        "--input", h.inputs()["articles"], "--output", str(tmp_path),
        "--runner", "dask", "--dask_address", cluster.scheduler_address])
    _assert_same_as_local_runner("discovery", tmp_path / "markers")


@pytest.mark.slow
def test_splits_job_on_dask_writes_the_local_runners_bytes(cluster, tmp_path):
    h.run_job("pipelines.wikisplit", ["--input", h.inputs()["history"], "--output", str(tmp_path), "--num_shards", "2",
                                      "--runner", "dask", "--dask_address", cluster.scheduler_address])
    _assert_same_as_local_runner("wikisplit", tmp_path / "splits")


@pytest.mark.slow
def test_local_runner_with_two_worker_processes_writes_the_same_bytes(tmp_path):
    h.run_job("pipelines.discovery", h.DISCOVERY_ARGS + ["--input", h.inputs()["articles"],
                                                         "--output", str(tmp_path), "--num_workers", "2"])
    ref = h.reference("discovery")
    assert h.digest(tmp_path / "markers") == h.digest(ref)


class _LogEachElement:
    """A DoFn body that appends one line per element it processes to a file (visible from every worker)."""

    def __init__(self, path):
        self.path = path

    def __call__(self, x):
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(f"{x}\n")
        return x


def test_a_collection_used_as_main_and_side_input_is_computed_once(cluster, tmp_path):
    # Regression: the side input's graph was optimised on its own (`Bag.to_delayed()`), which renamed its
    # tasks, so everything upstream of a side input ran twice (the whole read stage of a markers job).
    import apache_beam as beam
    from pipelines.framework.dask_runner import DaskRunner

    log = tmp_path / "calls.txt"
    out = tmp_path / "out.txt"

    def write(values):
        out.write_text(",".join(str(v) for v in sorted(values)))

    with beam.Pipeline(runner=DaskRunner(address=cluster.scheduler_address)) as p:
        xs = p | beam.Create(list(range(6))) | "Log" >> beam.Map(_LogEachElement(str(log)))
        # As in the markers job: the side input is an aggregate (after a GroupByKey) of the main input.
        sums = xs | "ByParity" >> beam.Map(lambda x: (x % 2, x)) | "Sum" >> beam.CombinePerKey(sum)
        shifted = xs | "AddSum" >> beam.Map(lambda x, sums: x + sums[x % 2], beam.pvalue.AsDict(sums))
        _ = (shifted | beam.combiners.ToList()
             | beam.Map(write))
    assert out.read_text() == "6,8,10,10,12,14"
    assert sorted(log.read_text().split()) == ["0", "1", "2", "3", "4", "5"]


def test_the_runners_own_workers_import_what_every_step_needs_with_the_collector_off_and_freeze_it(cluster):
    import argparse

    from pipelines.framework import dask_runner, runners
    args = argparse.Namespace(runner="dask", num_workers=2, dask_address=None, validation=True)
    preload = runners.make_dask_runner(args).preload
    assert "tensorflow_data_validation" in preload and "miners.nlp.pos:import_spacy" in preload
    assert not any(m.startswith("apache_beam.runners.worker") for m in preload)
    args.validation = False
    assert "tensorflow_data_validation" not in runners.make_dask_runner(args).preload
    # What the runner runs on each worker of its own LocalCluster (here on the shared fixture's workers,
    # which the test then leaves as it found them): imports made with the collector off, then frozen.
    with distributed.Client(cluster) as client:
        client.run(dask_runner._warm_up, ["transforms.sinks"])
        state = client.run(lambda: (__import__("gc").get_freeze_count(), __import__("gc").isenabled(),
                                    "transforms.sinks" in __import__("sys").modules))
        client.run(lambda: __import__("gc").unfreeze())
    assert all(frozen > 1000 and enabled and imported for frozen, enabled, imported in state.values()), state
