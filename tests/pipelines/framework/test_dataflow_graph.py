"""Dataflow: the README's options and the job graph, built offline (`--dry_run true`: nothing is submitted).

Beam's DataflowRunner translates the pipeline into the Dataflow job (pipeline proto,
environment, options) and returns before it would stage files or call the service.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

IMAGE = "us-central1-docker.pkg.dev/my-project/beam/rewrite-mining:0.1.0"
DATAFLOW = ["--runner", "DataflowRunner", "--project", "my-project", "--region", "us-central1",
            "--temp_location", "gs://my-bucket/tmp", "--sdk_container_image", IMAGE, "--dry_run", "true"]
URNS = {"beam:transform:impulse:v1", "beam:transform:pardo:v1", "beam:transform:group_by_key:v1",
        "beam:transform:flatten:v1",
        "beam:transform:window_into:v1"}  # TFDV's statistics; a ParDo in the Python SDK (global windows only)


def _leaves(proto):
    transforms = proto.components.transforms
    return {t.unique_name: t.spec.urn for t in transforms.values() if not t.subtransforms}


def _dry_run(pipeline):
    result = pipeline.run()
    assert str(result.state).endswith("DONE")
    return result.job


@pytest.mark.slow
def test_markers_job_graph_for_dataflow_is_built_offline():
    from apache_beam.options.pipeline_options import GoogleCloudOptions
    from pipelines import discovery
    args, beam_args = discovery.JOB.parse_args(["--input", "unused", "--output", "gs://my-bucket/out",
                                                "--preset", "sample"] + DATAFLOW)
    pipeline, _ = discovery.JOB.build_pipeline(
        args, beam_args, ["gs://my-bucket/enwiki/enwiki-20240601-pages-articles1.xml-p1p41242.bz2"])
    assert type(pipeline.runner).__name__ == "DataflowRunner"
    job = _dry_run(pipeline)
    cloud = job.options.view_as(GoogleCloudOptions)
    assert (cloud.project, cloud.region) == ("my-project", "us-central1")
    assert cloud.temp_location.startswith("gs://my-bucket/tmp/" + cloud.job_name)  # Beam adds the job's folder
    assert job.proto.type.name == "JOB_TYPE_BATCH"
    envs = [e.payload for e in job.proto_pipeline.components.environments.values()]
    assert any(IMAGE.encode() in payload for payload in envs)
    leaves = _leaves(job.proto_pipeline)
    for step in ("ReadDocuments/WorkItems/Impulse", "ReadDocuments/Parse/ParDo(ReadFileFn)",
                 "AssignSplits/AssignSplit", "WriteShards/WriteShard", "WriteRejects/WriteRejectShard",
                 "ValidateAndReport/WriteReport"):  # the report writes the counts file too
        assert step in leaves, step
    # Only the four primitives every runner has (Dask included): no Read / splittable DoFn / state.
    assert set(leaves.values()) <= URNS, set(leaves.values()) - URNS


@pytest.mark.slow
def test_all_dag_for_dataflow_reads_articles_once_and_writes_three_datasets():
    from pipelines import all as all_job
    units, beam_args, _ = all_job.plan_units([
        "--input", h.inputs()["articles"], "--input", h.inputs()["history"],
        "--output", "gs://my-bucket/out", "--preset", "sample", "--jobs", "discovery,discofuse,wikisplit"] + DATAFLOW)
    assert [u.job.name for u in units] == ["discovery", "discofuse", "wikisplit"]
    pipeline, outs = all_job.build_all(units, beam_args)
    assert len(outs) == 3 and all(o.examples is not None or o.presplit is not None for o in outs)
    leaves = _leaves(_dry_run(pipeline).proto_pipeline)
    parses = sorted(name for name in leaves if name.endswith("ParDo(ReadFileFn)"))
    assert parses == ["Discovery/ReadDocuments/Parse/ParDo(ReadFileFn)"]
    assert "Discofuse/ReadDocuments/SharedDocuments" in leaves
    for job in ("Discovery", "Discofuse", "Wikisplit"):
        assert f"{job}/WriteShards/WriteShard" in leaves, job
        assert f"{job}/ValidateAndReport/WriteReport" in leaves, job  # the report and the counts file
    assert set(leaves.values()) <= URNS, set(leaves.values()) - URNS
