"""Flink and other portable runners: `--runner PortableRunner --job_endpoint HOST:PORT`.

Tested against Beam's own job service (`local_job_service_main`), started here as
a separate process, with a LOOPBACK environment (the SDK harness runs in the
submitting process): the job goes through the same Job API a Flink job server
exposes, and must write the local runner's bytes.
"""
import os
import socket
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port, proc, timeout_s=120.0):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the job service exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"the job service did not listen on {port} within {timeout_s} s")


@pytest.fixture(scope="module")
def job_endpoint(tmp_path_factory):
    port = _free_port()
    log = open(tmp_path_factory.mktemp("jobservice") / "job_service.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "apache_beam.runners.portability.local_job_service_main",
                             "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, proc)
        yield f"localhost:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.mark.slow
def test_markers_job_through_the_job_api_writes_the_local_runners_bytes(job_endpoint, tmp_path):
    manifest = h.run_job("pipelines.discovery", h.DISCOVERY_ARGS + [
        "--input", h.inputs()["articles"], "--output", str(tmp_path),
        "--runner", "PortableRunner", "--job_endpoint", job_endpoint, "--environment_type", "LOOPBACK"])
    assert manifest["run"]["runner"] == "PortableRunner"
    ref = h.reference("discovery")
    assert h.examples_written(os.path.join(ref, "manifest.json")) > 0
    assert h.digest(tmp_path / "markers") == h.digest(ref)
    assert h.comparable_manifest(tmp_path / "markers" / "manifest.json") == h.comparable_manifest(
        os.path.join(ref, "manifest.json"))
