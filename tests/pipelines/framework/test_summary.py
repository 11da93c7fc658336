"""The console's stage summary prints stages in the order the data flows (issue 52): `read` and
`segment` before `discofuse`, the quality stages after the miner, `rejects` last."""
import io

from pipelines.framework import job


def _summary(stage_names):
    manifest = {"job": "discofuse", "dataset": "fusion-fr", "inputs": [], "rejects_written": 0,
                "rejects_by_reason": {}, "run": {"runner": "local", "elapsed_seconds": 1.0},
                "counts": {"stages": {s: {"passed": 1} for s in stage_names}, "written": {}}}
    out = io.StringIO()
    job.print_summary(manifest, out)
    return [line.split()[0] for line in out.getvalue().splitlines() if line.startswith("  ") and "passed=1" in line]


def test_discofuse_stages_print_in_data_flow_order():
    # as the manifest nests them: alphabetically
    stages = sorted(["read", "segment", "annotate", "discofuse", "check", "exact_dedup", "near_dedup", "rejects"])
    assert _summary(stages) == ["read", "segment", "annotate", "discofuse", "check", "exact_dedup", "near_dedup",
                                "rejects"]


def test_each_jobs_stages_keep_their_flow_and_unknown_ones_come_last():
    assert job.stages_in_flow_order(["select", "pairs", "document", "hard", "read"]) == [
        "read", "document", "pairs", "select", "hard"]  # Discovery
    assert job.stages_in_flow_order(["metrics", "simulate", "translate", "seeds", "bertscore", "select"]) == [
        "seeds", "translate", "select", "simulate", "bertscore", "metrics"]  # SimSim
    assert job.stages_in_flow_order(["zeta", "read", "alpha"]) == ["read", "alpha", "zeta"]
