"""The production shape, run here: the worker image built by the project's own command, Flink's TaskManager
starting SDK workers from it, and the data in an S3-compatible object store (no disk shared with workers).

* The image: `tools/build_image.sh` (what `make image` runs) builds the slim image from a Debian base made
  with debootstrap, Beam's boot program built with Go and a wheelhouse built with pip; nothing is pulled
  from a registry. It answers `rewrite-mine --help` and runs the bundled sample with no network, as a
  user that is not root.
* Flink's DOCKER environment: a Flink 1.19 session cluster started here, the job submitted with
  `--environment_type DOCKER --environment_config IMAGE`: the TaskManager runs `docker run --network=host
  IMAGE --id=... --provision_endpoint=...`, and Beam's boot in the container starts the Python workers.
  The input is read from, and the output written to, a MinIO server started by the tests (the
  containers see no file of this machine). Discovery, DiscoFuse and WikiSplit write the bytes the local
  runner writes from the same `s3://` input.
* The Kubernetes operator's shape: the image started as a worker pool (`--worker_pool`, port 50000) in a
  container of its own, the job submitted with `--environment_type EXTERNAL --environment_config
  localhost:50000`.

Needs a Docker engine (Debian's docker.io, started by tools/docker_engine.sh as root), debootstrap and Go
(`make test` installs the first two) and MinIO (tools/minio.sh). `make test` and CI run them (the image
built from nothing on a fresh machine: debootstrap, Go, pip's wheels, `docker build`); `make test-docker`
runs them alone; `-m "not docker"` leaves them out while working.
"""
import glob
import hashlib
import json
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ENWIKI, ROOT  # noqa: E402
from pipelines.framework.engines.daemons import get_json  # noqa: E402
from pipelines.framework.engines.flink import FlinkCluster  # noqa: E402
from pipelines.framework.workers.external_pool import free_port  # noqa: E402

pytestmark = [pytest.mark.docker, pytest.mark.engines, pytest.mark.s3, pytest.mark.slow]

SAMPLE = "samples/wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
COMPARED = h.COMPARED_SUFFIXES + (".src", ".tgt")


def _docker(*args, timeout=600, check=True):
    proc = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="module")
def docker_engine():
    proc = subprocess.run([str(ROOT / "tools" / "docker_engine.sh"), "start"], capture_output=True, text=True,
                          timeout=180)
    if proc.returncode != 0:
        pytest.fail(f"no Docker engine: {proc.stderr.strip()} (or leave these tests out: -m 'not docker')",
                    pytrace=False)
    try:
        yield
    finally:
        if proc.stdout.strip() == "started":
            subprocess.run([str(ROOT / "tools" / "docker_engine.sh"), "stop"], timeout=120, check=False)


@pytest.fixture(scope="module")
def image(docker_engine):
    """The slim worker image, built by the project's own command (cached layers and files are reused)."""
    proc = subprocess.run([str(ROOT / "tools" / "build_image.sh")], capture_output=True, text=True, timeout=3600,
                          cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-4000:]
    tag = proc.stdout.strip().splitlines()[-1]
    assert tag.startswith("rewrite-mining:") and tag.endswith("-slim"), proc.stdout
    return tag


@pytest.fixture(scope="module")
def flink(tmp_path_factory, image):
    # `cluster start flink`'s restart strategy: a task that could not be deployed on a busy machine is
    # deployed again, as on a user's cluster (a full run beside a heavy job failed DiscoFuse's job on
    # one "TaskManager not responding" with restarts off)
    cluster = FlinkCluster(str(tmp_path_factory.mktemp("flink-docker")), port=free_port(), rpc_port=free_port(),
                           slots=2, restart_attempts=3)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
        # Containers of a TaskManager that was stopped mid-job (a failed test) are nobody's now.
        for container in _containers_of(image):
            _docker("rm", "-f", container, check=False)


def _digest(directory) -> dict:
    out = {}
    for base, _, files in os.walk(str(directory)):
        for name in files:
            if name.endswith(COMPARED):
                path = os.path.join(base, name)
                with open(path, "rb") as f:
                    out[os.path.relpath(path, str(directory))] = hashlib.sha256(f.read()).hexdigest()
    return out


def _comparable_manifest(path, output_url):
    with open(str(path), encoding="utf-8") as f:
        text = f.read().replace(output_url, "OUTPUT")
    m = json.loads(text)
    m.pop("run", None)
    m.get("reprocess", {}).pop("published", None)
    for key in ("runner", "num_workers", "output", "force", "environment_type", "environment_config",
                "flink_master", "parallelism"):
        m["options"].pop(key, None)
    return m


def _taskmanager_logs(flink) -> str:
    text = ""
    for path in sorted(glob.glob(os.path.join(flink.workdir, "log", "*taskexecutor*"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            text += f.read()
    return text


def _containers_of(image_tag, running=False) -> list:
    return _docker("ps", "-q", "--filter", f"ancestor={image_tag}").stdout.split() if running else \
        _docker("ps", "-a", "-q", "--filter", f"ancestor={image_tag}").stdout.split()


def test_the_image_runs_the_cli_and_the_bundled_sample_offline_as_a_user_that_is_not_root(image, tmp_path):
    assert _docker("run", "--rm", "--network", "none", image, "id", "-u").stdout.strip() != "0"
    helped = _docker("run", "--rm", "--network", "none", image, "rewrite-mine", "--help").stdout
    assert "rewrite-mine <job>" in helped and "discovery" in helped
    # Beam's boot program answers runners' flags (here: none of the endpoints it needs -> its own message).
    boot = _docker("run", "--rm", "--network", "none", image, "--id=1", check=False)
    assert boot.returncode != 0 and "No provision endpoint provided" in boot.stderr
    # The bundled sample, as the README's first command runs it, inside the image with no network; the same
    # relative input path as a run from the checkout, so the records (which name their input) compare.
    cmd = (f"rewrite-mine discovery --input {SAMPLE} --output /tmp/out --tsv --preset sample --no_progress "
           ">&2 && tar -C /tmp/out -cf - markers")  # the summary to stderr: stdout carries the tar only
    proc = subprocess.run(["docker", "run", "--rm", "--network", "none", image, "sh", "-c", cmd],
                          capture_output=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    inside = tmp_path / "inside"
    inside.mkdir()
    subprocess.run(["tar", "-C", str(inside), "-xf", "-"], input=proc.stdout, check=True)
    here = tmp_path / "here"
    cwd = os.getcwd()
    os.chdir(str(ROOT))
    try:
        h.run_job("pipelines.discovery", ["--input", SAMPLE, "--output", str(here), "--tsv", "--preset", "sample",
                                          "--no_progress"])
    finally:
        os.chdir(cwd)
    ours, theirs = _digest(inside / "markers"), _digest(here / "markers")
    assert len(ours) > 30 and ours == theirs


JOBS = {
    # job: (dataset, inputs to upload {name: local path}, extra arguments)
    "discovery": ("markers", {"in/discovery/" + os.path.basename(str(ENWIKI)): str(ENWIKI)},
                  h.DISCOVERY_ARGS + ["--tsv"]),
    "discofuse": ("fusion", {"in/discofuse/" + os.path.basename(h.inputs()["articles"]): h.inputs()["articles"]},
                  ["--tsv"]),
    "wikisplit": ("splits", {"in/wikisplit/" + os.path.basename(h.inputs()["history"]): h.inputs()["history"]},
                  ["--num_shards", "2", "--tsv"]),
}


@pytest.mark.parametrize("job", sorted(JOBS))
def test_flink_starts_the_image_and_the_job_reads_and_writes_s3_with_the_local_runners_bytes(
        job, image, flink, minio, tmp_path):
    dataset, uploads, extra = JOBS[job]
    for key, path in uploads.items():
        minio.upload(path, key)
    argv = ["--input", f"{minio.url}/in/{job}/*"] + extra + minio.beam_args() + ["--no_progress"]
    local_out, flink_out = f"{minio.url}/out/local", f"{minio.url}/out/flink"
    h.run_job(f"pipelines.{job}", argv + ["--output", local_out, "--num_workers", "2"])
    before = set(_containers_of(image))
    manifest = h.run_job(f"pipelines.{job}", argv + [
        "--output", flink_out, "--runner", "flink", "--flink_master", flink.master,
        "--environment_type", "DOCKER", "--environment_config", image])
    assert manifest["run"]["engine"]["environment"] == "DOCKER"
    # The job ran on the cluster, and its Python workers ran in containers of the image (Beam removes them
    # when the job ends; Flink's TaskManager log names the image it started).
    jobs = sorted(flink.jobs(), key=lambda j: j["start-time"])
    assert get_json(f"{flink.rest_url}/jobs/{jobs[-1]['jid']}")["state"] == "FINISHED"
    # Beam keeps the containers for the job's next stage (--environment_cache_millis), then kills and removes
    # them: no worker is left running. (Beam's close races the container's own exit: when the SDK harness
    # has already ended, `docker kill` fails, "is not running", and Beam never runs `docker rm`; an exited
    # container, no process, can stay listed: docs/RUNNERS.md, Worker image.)
    deadline = time.time() + 240
    while set(_containers_of(image, running=True)) - before and time.time() < deadline:
        time.sleep(2)
    assert not set(_containers_of(image, running=True)) - before
    exited = set(_containers_of(image)) - before
    if exited:
        print(f"\n{job}: {len(exited)} exited container(s) Beam did not remove: {sorted(exited)}")
        _docker("rm", *sorted(exited), check=False)
    assert image in _taskmanager_logs(flink)
    local_dir, flink_dir = tmp_path / "local", tmp_path / "flink"
    assert minio.download(f"out/local/{dataset}", local_dir) and minio.download(f"out/flink/{dataset}", flink_dir)
    ours, theirs = _digest(flink_dir), _digest(local_dir)
    assert len(ours) >= 5 and ours == theirs
    assert _comparable_manifest(flink_dir / "manifest.json", flink_out) == \
        _comparable_manifest(local_dir / "manifest.json", local_out)


def test_the_image_as_a_worker_pool_in_its_own_container_serves_a_flink_job(image, flink, minio, tmp_path):
    """The Kubernetes operator's shape: a sidecar container of the image started with `--worker_pool`
    (Beam's boot serves worker_pool_main on port 50000), the job's environment EXTERNAL localhost:50000."""
    probe = subprocess.run(["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 50000))"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("port 50000 (the worker pool's, fixed by Beam's boot) is taken on this machine")
    name = f"rewrite-mining-pool-{os.getpid()}"
    _docker("run", "-d", "--rm", "--name", name, "--network", "host", image, "--worker_pool")
    try:
        deadline = time.time() + 120
        while b"Listening for workers at" not in _pool_log(name) and time.time() < deadline:
            time.sleep(1)
        dataset, uploads, extra = JOBS["discovery"]
        for key, path in uploads.items():
            minio.upload(path, key)
        argv = ["--input", f"{minio.url}/in/discovery/*"] + extra + minio.beam_args() + ["--no_progress"]
        h.run_job("pipelines.discovery", argv + ["--output", f"{minio.url}/out/local", "--num_workers", "2"])
        manifest = h.run_job("pipelines.discovery", argv + [
            "--output", f"{minio.url}/out/pool", "--runner", "flink", "--flink_master", flink.master,
            "--environment_type", "EXTERNAL", "--environment_config", "localhost:50000"])
        assert manifest["run"]["engine"]["environment"] == "EXTERNAL"
        assert b"Starting worker with command" in _pool_log(name) or b"worker" in _pool_log(name)
        minio.download(f"out/local/{dataset}", tmp_path / "local")
        minio.download(f"out/pool/{dataset}", tmp_path / "pool")
        ours, theirs = _digest(tmp_path / "pool"), _digest(tmp_path / "local")
        assert len(ours) >= 5 and ours == theirs
    finally:
        _docker("rm", "-f", name, check=False)


def _pool_log(name) -> bytes:
    proc = subprocess.run(["docker", "logs", name], capture_output=True, timeout=60, check=False)
    return proc.stdout + proc.stderr
