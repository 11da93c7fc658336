"""The production shape, run here: the worker image built by the project's own command, Flink's TaskManager
starting SDK workers from it, and the data in an S3-compatible object store (no disk shared with workers).

* The image: `tools/build_image.sh` (what `make image` runs) builds the image of every job from a Debian
  base made with debootstrap, Beam's boot program built with Go, a wheelhouse built with pip and the
  models converted for CTranslate2; nothing is pulled from a registry. An image of the same content is
  reused (`make test` builds it before the tests, so here it is seconds). It answers `rewrite-mine --help`
  and runs the bundled sample with no network, as a user that is not root.
* Flink's DOCKER environment: a Flink 1.19 session cluster started here, the job submitted with
  `--environment_type DOCKER --environment_config IMAGE`: the TaskManager runs `docker run --network=host
  IMAGE --id=... --provision_endpoint=...`, and Beam's boot in the container starts the Python workers.
  The input is read from, and the output written to, a MinIO server started by the tests (the
  containers see no file of this machine). `rewrite-mine all` (Discovery, DiscoFuse, WikiSplit, SimSim fed
  WikiSplit's pairs, ParaSCI) writes the bytes the local runner writes from the same `s3://` input.
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

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ROOT  # noqa: E402
from pipelines.framework.engines.daemons import get_json, port_taken, wait_until  # noqa: E402
from pipelines.framework.engines.flink import CONTAINER_LABEL, FlinkCluster  # noqa: E402
from pipelines.framework.workers.external_pool import free_fixed_port, free_port  # noqa: E402

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
    """The worker image of every job, built by the project's own command; `make test` built it before the
    tests, and an image of the same content is not built again (its label `rewrite-mining.content`)."""
    proc = subprocess.run([str(ROOT / "tools" / "build_image.sh")], capture_output=True, text=True, timeout=3600,
                          cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-4000:]
    tag = proc.stdout.strip().splitlines()[-1]
    assert tag.startswith("rewrite-mining:") and not tag.endswith("-slim"), proc.stdout
    return tag


@pytest.fixture(scope="module")
def flink(tmp_path_factory, image):
    # `cluster start flink`'s restart strategy: a task that could not be deployed on a busy machine is
    # deployed again, as on a user's cluster (a full run beside a heavy job failed DiscoFuse's job on
    # one "TaskManager not responding" with restarts off); and its kept job server, which the runs use
    # (a JVM's start and a cold translation less a run)
    cluster = FlinkCluster(str(tmp_path_factory.mktemp("flink-docker")), port=free_port(), rpc_port=free_port(),
                           slots=2, restart_attempts=3, job_port=free_fixed_port())
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


@pytest.fixture(scope="module")
def s3_all(minio_server, tmp_path_factory):
    """A bucket holding `rewrite-mine all`'s small inputs (test_runners.all_args) and the local runner's output
    of them, read from and written to the bucket: what the image's runs must write. One in-process worker: the
    models load once, not in two processes (1 worker and 2 write the same bytes: test_all; 2 workers on S3:
    test_object_store)."""
    import uuid  # pylint: disable=import-outside-toplevel
    from conftest import S3Bucket  # pylint: disable=import-outside-toplevel
    bucket = S3Bucket(minio_server, f"image-{uuid.uuid4().hex[:12]}")
    minio_server.create_bucket(bucket.bucket)
    ins = h.inputs()
    bucket.upload(ins["articles"], "in/articles/" + os.path.basename(ins["articles"]))
    bucket.upload(ins["history"], "in/history/" + os.path.basename(ins["history"]))
    for path in sorted(glob.glob(str(h.PAPERS / "**" / "*"), recursive=True)):
        if os.path.isfile(path) and not path.endswith(".md"):
            bucket.upload(path, "in/papers/" + os.path.basename(path))
    inputs_of = {"articles": [f"{bucket.url}/in/articles/*"], "history": [f"{bucket.url}/in/history/*"],
                 "papers": [f"{bucket.url}/in/papers/*"]}
    argv = h.all_args(inputs_of) + bucket.beam_args() + ["--no_progress"]
    output = f"{bucket.url}/out/local"
    manifests = h.run_all(argv + ["--output", output, "--num_workers", "1"])
    assert tuple(m["dataset"] for m in manifests) == h.ALL_DATASETS
    local = tmp_path_factory.mktemp("s3-local")
    for dataset in h.ALL_DATASETS:
        assert bucket.download(f"out/local/{dataset}", local / dataset)
    return bucket, argv, output, local


def test_flink_starts_the_image_and_every_job_reads_and_writes_s3_with_the_local_runners_bytes(
        image, flink, s3_all, minio_server, tmp_path, request):
    """All five jobs in one `rewrite-mine all` on Flink, its Python workers in containers of the image, the data
    in MinIO. (It replaces one run per job: each paid a job server, containers and a local reference.)

    Issue 50, the storage's faults on the production shape: the object store is stopped for ~20 s as soon as
    the run has staged its first object. The run finishes with the local runner's bytes and counts (boto3's
    retries in the workers, AWS_* of the image, or Flink's restarts carry it over), or it fails with one line
    naming the store, publishing nothing, and the same command then publishes those bytes. (Over 60 s: five
    jobs on two cold containers that load every job's models, plus the outage: ~7 min of a full run.)"""
    bucket, argv, local_out, local = s3_all
    flink_out = f"{bucket.url}/out/flink"
    before = set(_containers_of(image))
    # Every container created while the job runs: its image, and the cluster's label if it has one.
    events = subprocess.Popen(["docker", "events", "--filter", "type=container", "--filter", "event=create",
                               "--format", '{{.ID}} {{.From}} {{index .Actor.Attributes "%s"}}' % CONTAINER_LABEL],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    request.addfinalizer(events.kill)
    # The default for DOCKER: one container per slot (options.DOCKER_WORKERS_PER_SLOT; each container imports
    # Beam and loads every job's models cold).
    command = ["all"] + argv + ["--output", flink_out, "--runner", "flink", "--flink_master", flink.master,
                                "--environment_type", "DOCKER", "--environment_config", image]
    rc, err = h.run_with_store_outage(command, tmp_path, minio_server, f"{flink_out}/_staging/", outage_s=20)
    print(f"\nstore stopped 20 s mid-run on Flink + the image: the run {'finished' if rc == 0 else 'failed cleanly'}")
    if rc != 0:
        h.failed_cleanly_on_store(rc, err, minio_server)
        assert not [k for k in bucket.keys("out/flink/") if k.endswith("/manifest.json") and "/_staging/" not in k]
        rerun = h.cli(command, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = rerun.communicate(timeout=1500)
        assert rerun.returncode == 0, err[-3000:]
    h.assert_ran_on_both_slots(flink)  # work done in both slots, not one
    # The job ran on the cluster, and its Python workers ran in containers of the image (Flink's TaskManager
    # log names the image it started).
    jobs = sorted(flink.jobs(), key=lambda j: j["start-time"])
    assert get_json(f"{flink.rest_url}/jobs/{jobs[-1]['jid']}")["state"] == "FINISHED"
    # What carried the run over the outage: boto3's retries alone (no entry), or Flink's restarts.
    restarts = get_json(f"{flink.rest_url}/jobs/{jobs[-1]['jid']}/exceptions").get("exceptionHistory", {})
    print(f"Flink's exception history of the job: {len(restarts.get('entries', []))} entries")
    assert image in _taskmanager_logs(flink)
    # No container is left when the cluster is stopped, even within the minute Beam keeps a finished job's
    # containers for its next one (--environment_cache_millis) or when Beam's close lost its race with the
    # container's own exit (an exited container: docs/RUNNERS.md, Worker image). Every container the
    # TaskManager started carries the cluster's label (its `docker` shim), and `stop` removes those left.
    events.terminate()
    created = [line.split(" ", 2) for line in events.communicate(timeout=30)[0].splitlines() if line.strip()]
    of_image = [c for c in created if c[1] == image]
    assert of_image and all(c[2:] == [flink.container_label.split("=", 1)[1]] for c in of_image), created
    left = set(_docker("ps", "-a", "-q", "--filter", f"label={flink.container_label}").stdout.split())
    try:
        removed = flink.stop()
        # Beam may remove some itself meanwhile (its cache's minute ends while the TaskManager stops)
        assert removed <= len(left)
        assert not set(_containers_of(image)) - before
    finally:
        flink.start()  # for the module's next test
    print(f"{len(of_image)} container(s) of the image started, {len(left)} still there when the cluster was "
          f"stopped, {removed} removed by its stop")
    manifests = []
    for dataset in h.ALL_DATASETS:
        assert bucket.download(f"out/flink/{dataset}", tmp_path / dataset)
        manifests.append(json.loads((tmp_path / dataset / "manifest.json").read_text(encoding="utf-8")))
    assert {m["run"]["engine"]["environment"] for m in manifests} == {"DOCKER"}
    for m in manifests:
        engine = m["run"]["engine"]
        assert engine["name"] == "flink" and str(engine["version"]).startswith("1.19.")
        assert engine["job_server"].startswith("beam-runners-flink")
        assert engine["job_server"].endswith(f"kept by the cluster at {flink.job_endpoint}"), engine
        assert (engine["parallelism"], engine["slots"]) == (2, 2)
    for dataset in h.ALL_DATASETS:
        h.same_dataset(tmp_path / dataset, local / dataset,
                       manifests=(lambda path: _comparable_manifest(path, flink_out),
                                  lambda path: _comparable_manifest(path, local_out)))


def test_the_image_as_a_worker_pool_in_its_own_container_serves_a_flink_job(
        image, flink, s3_all, minio_server, tmp_path):
    """The Kubernetes operator's shape: a sidecar container of the image started with `--worker_pool`
    (Beam's boot serves worker_pool_main on port 50000), the job's environment EXTERNAL localhost:50000.
    Discovery on the articles in the bucket writes the records `all` wrote from them with the local runner.

    Issue 50, the storage's faults on the production shape: the first run loses the object store for good as
    soon as it has staged its first object, and fails with one line naming the store, publishing nothing;
    the same command, the store back, publishes the clean bytes. (Over 60 s: two Flink runs, one of them
    through boto3's retries and Flink's restarts; the pool's boto3 makes 3 attempts, not the image's 10, so
    that a store gone for good fails each restart in seconds.)"""
    probe = subprocess.run(["python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 50000))"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("port 50000 (the worker pool's, fixed by Beam's boot) is taken on this machine")
    bucket, _, _, local = s3_all
    name = f"rewrite-mining-pool-{os.getpid()}"
    _docker("run", "-d", "--rm", "--name", name, "--network", "host", "-e", "AWS_MAX_ATTEMPTS=3", image,
            "--worker_pool")
    try:
        # Ready when its port accepts. (Not its "Listening for workers at" line: Beam logs it at INFO, which the
        # pool does not print, so a wait for it always took its whole 120 s.)
        assert wait_until(lambda: port_taken(50000), 120), _pool_log(name)[-3000:]
        # One worker of the pool for the job's two slots (a run asks for two per slot by default): each worker
        # the pool starts is a cold Python importing Beam in the container; four of them made this test
        # ~300 s in a full run, for Discovery on 4 articles (85 s alone).
        command = ["discovery", "--input", f"{bucket.url}/in/articles/*"] + h.DISCOVERY_ARGS + ["--tsv"] + \
            bucket.beam_args() + ["--no_progress", "--output", f"{bucket.url}/out/pool", "--runner", "flink",
                                  "--flink_master", flink.master, "--environment_type", "EXTERNAL",
                                  "--environment_config", "localhost:50000", "--sdk_worker_parallelism", "1"]
        rc, err = h.run_with_store_outage(command, tmp_path, minio_server, f"{bucket.url}/out/pool/_staging/",
                                          outage_s=None)
        h.failed_cleanly_on_store(rc, err, minio_server)
        assert "out/pool/markers/manifest.json" not in bucket.keys("out/pool/")
        rerun = h.cli(command, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = rerun.communicate(timeout=900)
        assert rerun.returncode == 0, err[-3000:]
        bucket.download("out/pool/markers", tmp_path / "pool")
        manifest = json.loads((tmp_path / "pool" / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["run"]["engine"]["environment"] == "EXTERNAL"
        assert b"Starting worker with command" in _pool_log(name) or b"worker" in _pool_log(name)
        ours, theirs = _digest(tmp_path / "pool"), _digest(local / "markers")
        assert len(ours) >= 5 and ours == theirs
    finally:
        _docker("rm", "-f", name, check=False)


def _pool_log(name) -> bytes:
    proc = subprocess.run(["docker", "logs", name], capture_output=True, timeout=60, check=False)
    return proc.stdout + proc.stderr
