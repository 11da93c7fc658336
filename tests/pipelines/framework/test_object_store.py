"""No shared disk: the jobs read their input from s3:// and write their output to s3:// of a real
S3-compatible store, a MinIO server the tests start (tests/conftest.py `minio`: its own data directory, a
free port, random credentials; tools/minio.sh builds it). Beam's S3 filesystem (`apache-beam[aws]`, boto3)
is reached with the options a user gives for any S3-compatible store:

    --s3_endpoint_url http://127.0.0.1:PORT --s3_access_key_id KEY --s3_secret_access_key SECRET
    --s3_region_name us-east-1

Checked: Discovery on the bundled sample, read from and written to the bucket by the local runner's two
worker processes, writes the bytes it writes on local disk (every shard, TSV, rejects file, TFDS metadata,
statistics, card; the manifest apart from where its input lay), TFDS loads the shards back, and nothing
of the staging is left in the bucket. Publication on a store without rename: a driver killed while the
pipeline writes, and one killed in the middle of copying the staged dataset to where readers look, leave
no manifest a reader would take for the new result; the next run publishes it complete.

`pytest -m "not s3"` leaves these out while working; `make test` and CI run them.
"""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ENWIKI, ROOT  # noqa: E402
from pipelines.framework import publication  # noqa: E402

pytestmark = [pytest.mark.s3, pytest.mark.slow]

# Every bulk reject written (no 1% sample): a sampled reject is chosen by a hash of its source, which is the
# input's path, and that path is the one thing the two runs do not share.
ARGS = h.DISCOVERY_ARGS + ["--tsv", "--bulk_reject_rate", "1", "--no_progress"]


def _files(root) -> dict:
    """{relative path: bytes} of every file under a local directory."""
    out = {}
    for base, _, names in os.walk(str(root)):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, str(root))] = f.read()
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _statistics(data: bytes) -> list:
    """A TFDV DatasetFeatureStatisticsList as JSON-like data: features in the order of their paths and floats
    to 12 significant digits (a standard deviation summed in another order differs in its last bit)."""
    from google.protobuf.json_format import MessageToDict  # pylint: disable=import-outside-toplevel
    from tensorflow_metadata.proto.v0 import statistics_pb2  # pylint: disable=import-outside-toplevel
    stats = statistics_pb2.DatasetFeatureStatisticsList()
    stats.ParseFromString(data)

    def rounded(value):
        if isinstance(value, float):
            return float(f"{value:.12g}")
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rounded(v) for v in value]
        return value
    out = []
    for dataset in MessageToDict(stats).get("datasets", []):
        dataset["features"] = sorted(rounded(dataset.get("features", [])), key=lambda f: json.dumps(f.get("path")))
        out.append(rounded(dataset))
    assert out and all(d["features"] for d in out)
    return out


_cli = h.cli  # `rewrite-mine ARGV` of this checkout, in a process of its own


def test_discovery_from_s3_to_s3_writes_the_local_bytes_and_tfds_reads_them(minio, tmp_path):
    local = tmp_path / "local"
    h.run_job("pipelines.discovery", ARGS + ["--input", str(ENWIKI), "--output", str(local), "--num_workers", "2"])

    source = minio.upload(ENWIKI, f"dumps/{ENWIKI.name}")
    out = f"{minio.url}/out"
    pattern = f"{minio.url}/dumps/enwiki-*-pages-articles*.bz2"
    manifest = h.run_job("pipelines.discovery", ARGS + ["--input", pattern, "--output", out, "--num_workers", "2"]
                         + minio.beam_args())
    assert manifest["_path"] == f"{out}/markers/manifest.json"
    assert manifest["inputs"][0]["path"] == source

    keys = minio.keys("out")
    assert not [k for k in keys if "/_staging/" in k or k.endswith((".tmp", publication.RUNNING_MARKER))
                or "/.tmp-" in k], keys  # staging, temporary names and the rejects' temporary files are gone
    copy = tmp_path / "copy"
    minio.download("out", copy)
    ours, theirs = _files(copy / "markers"), _files(local / "markers")
    assert sorted(ours) == sorted(theirs)
    assert h.examples_written(local / "markers" / "manifest.json") > 0
    differing = sorted(p for p in ours if ours[p] != theirs[p])
    # Only where the input lay: the manifest's inputs and the rejects' `source` (same records otherwise); and
    # TFDV's statistics.pb, whose features come in the order its combiners met them (as between two local
    # runs; a standard deviation summed in another order differs in its last bit): the same statistics.
    assert set(differing) <= {"manifest.json", "rejects/rejects-00000-of-00001.jsonl", "stats/statistics.pb"}, \
        differing
    assert _statistics(ours["stats/statistics.pb"]) == _statistics(theirs["stats/statistics.pb"])
    rejects = theirs["rejects/rejects-00000-of-00001.jsonl"].replace(
        json.dumps(str(ENWIKI))[1:-1].encode(), json.dumps(source)[1:-1].encode())
    assert rejects.count(source.encode()) > 1000  # every bulk reject, each naming the object it came from
    assert ours["rejects/rejects-00000-of-00001.jsonl"] == rejects
    mine, ref = h.comparable_manifest(copy / "markers" / "manifest.json"), h.comparable_manifest(
        local / "markers" / "manifest.json")
    assert [i.pop("path") for i in mine["inputs"]] == [source]
    assert [i.pop("path") for i in ref["inputs"]] == [str(ENWIKI)]
    assert mine["inputs"] == ref["inputs"]  # same size and sha256, read through S3
    mine["options"].pop("input"), ref["options"].pop("input")
    mine["reprocess"].pop("fingerprint"), ref["reprocess"].pop("fingerprint")  # a hash of the inputs' paths too
    assert mine == ref

    # TFDS loads the shards as written (from the bucket's copy: TensorFlow's filesystems know no s3://).
    import tensorflow_datasets as tfds  # pylint: disable=import-outside-toplevel
    written = json.loads(ours["manifest.json"])["counts"]["written"]
    for variant in ("base", "big"):
        builder = tfds.builder_from_directory(str(copy / "markers" / variant))
        for split in ("train", "validation", "test"):
            n = sum(1 for _ in builder.as_dataset(split=split))
            assert n == written[variant][split]["examples"] > 0


def test_one_boto3_client_serves_every_s3_file_operation_of_a_process(minio):
    """Beam's S3 filesystem builds a boto3 session and client for each call (~0.2 s of CPU each): a run that
    writes a few hundred objects paid minutes for it. transforms/s3_clients.py shares one per process and
    settings; the calls still work through it, and other settings still get a client of their own."""
    from apache_beam.io.filesystems import FileSystems  # pylint: disable=import-outside-toplevel
    from apache_beam.options.pipeline_options import PipelineOptions  # pylint: disable=import-outside-toplevel
    from transforms import s3_clients  # pylint: disable=import-outside-toplevel
    assert s3_clients.share() and s3_clients.share()  # on since `transforms` was imported; idempotent
    FileSystems.set_options(PipelineOptions(minio.beam_args()))
    before = s3_clients.built()
    for i in range(5):
        tmp, path = f"{minio.url}/shared/{i}.tmp", f"{minio.url}/shared/{i}.txt"
        with FileSystems.create(tmp) as f:
            f.write(f"object {i}".encode())
        FileSystems.rename([tmp], [path])
        assert FileSystems.exists(path) and not FileSystems.exists(tmp)
        with FileSystems.open(path) as f:
            assert f.read() == f"object {i}".encode()
    assert len(FileSystems.match([f"{minio.url}/shared/*.txt"])[0].metadata_list) == 5
    FileSystems.delete([f"{minio.url}/shared/{i}.txt" for i in range(5)])
    assert minio.keys("shared") == []
    assert s3_clients.built() - before <= 1  # 1 where no earlier test of this process used these settings
    other = PipelineOptions(minio.beam_args() + ["--s3_region_name", "eu-west-3"])
    from apache_beam.io.aws.clients.s3 import boto3_client  # pylint: disable=import-outside-toplevel
    assert boto3_client.Client(other).client.meta.region_name == "eu-west-3"
    assert boto3_client.Client(PipelineOptions(minio.beam_args())).client.meta.region_name != "eu-west-3"


def _kill_in_publication_after(copies: int) -> str:
    """Python that runs `rewrite-mine` and SIGKILLs itself once `copies` files of the staged dataset have been
    copied to where readers look (on S3 publication is a copy, object by object, manifest.json last)."""
    return (
        "import os, signal, sys\n"
        "from apache_beam.io.aws.clients.s3 import boto3_client\n"
        "copy, done = boto3_client.Client.copy, []\n"
        "def counted(self, request):\n"
        "    copy(self, request)\n"
        "    if '/_staging/' in request.src_key and '/_staging/' not in request.dest_key:\n"
        "        done.append(request.dest_key)\n"
        f"        if len(done) == {copies}:\n"
        "            open('killed-after-publishing.txt', 'w').write('\\n'.join(done))\n"
        "            os.kill(os.getpid(), signal.SIGKILL)\n"
        "boto3_client.Client.copy = counted\n"
        "from pipelines.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n")


def test_a_run_killed_while_writing_or_publishing_on_s3_leaves_no_manifest_and_the_rerun_publishes_it(
        minio, tmp_path):
    june = minio.upload(h.write_articles(tmp_path, date="20240601"), "in/june.xml.bz2")
    july = minio.upload(h.write_articles(tmp_path, date="20240701"), "in/july.xml.bz2")
    out = f"{minio.url}/out"
    client = minio.server.client()

    def objects(prefix):
        """{key: sha256} of every object under `out/prefix`."""
        return {k: _sha(client.get_object(Bucket=minio.bucket, Key=k)["Body"].read()) for k in minio.keys(prefix)}

    def argv(source):
        return ["discovery"] + h.DISCOVERY_ARGS + ["--input", source, "--output", out, "--num_workers", "1",
                                                   "--no_progress"] + minio.beam_args()

    old = h.run_job("pipelines.discovery", argv(june)[1:])
    published = objects("out/markers/")
    assert "out/markers/manifest.json" in published and len(published) > 50
    assert _sha(b"") in published.values()  # empty shards too (one PUT: Beam's S3 writer cannot write them)

    # 1. Killed while the pipeline writes its shards into the staging prefix.
    proc = _cli(argv(july), tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline, seen = time.time() + 600, []
    while time.time() < deadline and proc.poll() is None and not seen:
        seen = [k for k in minio.keys("out/_staging/") if not k.endswith(publication.RUNNING_MARKER)]
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert seen, "the run finished or never wrote before it could be killed"
    assert objects("out/markers/") == published  # readers still see the old dataset, byte for byte
    assert [k for k in minio.keys("out") if k.endswith("manifest.json") and "/_staging/" not in k] == [
        "out/markers/manifest.json"]

    # 2. Killed in the middle of publication: the old manifest went first, the new one never came.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    killed = subprocess.run([sys.executable, "-c", _kill_in_publication_after(5)] + argv(july), cwd=str(tmp_path),
                            env=env, capture_output=True, text=True, timeout=900, check=False)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert len((tmp_path / "killed-after-publishing.txt").read_text().split()) == 5
    now = minio.keys("out/markers/")
    assert "out/markers/manifest.json" not in now  # no reader takes this for a dataset, old or new
    assert 0 < len(now) < len(published)  # some of the new files were copied ...
    staged = [k for k in minio.keys("out/_staging/") if k.endswith("/markers/manifest.json")]
    assert len(staged) == 1  # ... from the finished staged run, which waits for the next run

    # 3. The next run publishes the staged run as it is (the pipeline does not run again), complete.
    new = h.run_job("pipelines.discovery", argv(july)[1:])
    assert new["reprocess"]["fingerprint"] != old["reprocess"]["fingerprint"]
    final = objects("out/markers/")
    manifest = json.loads(minio.server.read(f"{out}/markers/manifest.json"))
    assert manifest["reprocess"]["fingerprint"] == new["reprocess"]["fingerprint"]
    assert manifest["inputs"][0]["path"] == july
    assert sorted(k[len("out/markers/"):] for k in final) == sorted(k[len("out/markers/"):] for k in published)
    assert not minio.keys("out/_staging/")
    # The records are the local runner's (they name no input path).
    ref = _files(h.reference("discovery"))
    for rel, data in ref.items():
        if rel.endswith((".tfrecord", ".tsv")):
            assert final[f"out/markers/{rel}"] == _sha(data), rel


# ------------------------------------------------------------------ credentials (issue 50)

def _every_file(*roots) -> dict:
    """{path: bytes} of every file under the given local folders."""
    out = {}
    for root in roots:
        for base, _, names in os.walk(str(root)):
            for name in names:
                path = os.path.join(base, name)
                with open(path, "rb") as f:
                    out[path] = f.read()
    return out


def test_no_file_a_run_writes_nor_its_console_shows_a_credential_whichever_way_it_came_in(minio, tmp_path):
    """The secret (MinIO's, random for the session: recognisable anywhere) reaches the job by each way a user has:
    the flags, AWS's environment variables, the shared credentials file. The local runner's two workers log
    their pipeline options (Beam's SDK worker does, flags among them): no log, manifest, card, report, shard,
    staging file or console line may hold the secret or the access key."""
    source = minio.upload(h.write_articles(tmp_path, date="20240601"), "in/enwiki-20240601-pages-articles1.xml.bz2")
    secret, key = minio.secret_key, minio.access_key
    creds = tmp_path / "aws-credentials"
    creds.write_text(f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    endpoint = ["--s3_endpoint_url", minio.endpoint, "--s3_region_name", minio.region]
    ways = {
        "flags": (minio.beam_args(), {}),
        "environment": (endpoint, {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret}),
        "credentials_file": (endpoint, {"AWS_SHARED_CREDENTIALS_FILE": str(creds)}),
    }
    for way, (extra, env) in ways.items():
        cwd = tmp_path / way
        cwd.mkdir()
        out = cwd / "out"
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", "discovery"] + h.DISCOVERY_ARGS + [
                "--input", source, "--output", str(out), "--num_workers", "2", "--tsv", "--no_progress"] + extra,
            cwd=str(cwd), env={**clean, **env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        console_out, console_err = proc.communicate(timeout=900)
        assert proc.returncode == 0, (way, console_err[-3000:])
        files = _every_file(cwd)
        files = {p: b for p, b in files.items() if p != str(creds)}
        assert any(p.endswith("manifest.json") for p in files) and any("/logs/" in p for p in files), way
        logs = b"".join(b for p, b in files.items() if "/logs/" in p)
        assert b"Pipeline_options" in logs or way != "flags", way  # the workers did log their options
        for needle in (secret, key):
            leaked = sorted(p for p, b in files.items() if needle.encode() in b)
            assert not leaked, (way, leaked)
            assert needle.encode() not in console_out + console_err, way


# ------------------------------------------------------------------ the storage's preflight (issue 50)

def test_a_missing_bucket_refused_credentials_or_local_paths_for_containers_stop_the_run_before_it_starts(
        minio, tmp_path):
    """One line each, exit 2, before any pipeline is built (pipelines/framework/storage.py)."""
    source = minio.upload(h.write_articles(tmp_path, n_pages=8), "in/enwiki-20240601-pages-articles1.xml.bz2")
    wrong = [a if a != minio.secret_key else "not-the-secret-" + "x" * 20 for a in minio.beam_args()]
    cases = {
        "missing bucket": (["--input", source, "--output", "s3://no-such-bucket-here/out"] + minio.beam_args(),
                           f"has no bucket s3://no-such-bucket-here"),
        "refused credentials": (["--input", source, "--output", f"{minio.url}/out"] + wrong,
                                "refused the credentials"),
        "local paths, workers in containers": (
            ["--input", source, "--output", str(tmp_path / "out"), "--runner", "flink", "--flink_master",
             "localhost:1", "--environment_type", "DOCKER", "--environment_config", "rewrite-mining:0.1.0"]
            + minio.beam_args(), "see none of its files"),
    }
    for case, (argv, expected) in cases.items():
        proc = subprocess.run([sys.executable, "-m", "pipelines.cli", "discovery", "--no_progress"] + argv,
                              cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                              text=True, timeout=300, check=False)
        assert proc.returncode == 2, (case, proc.stderr[-2000:])
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "Warning" not in ln and "warn(" not in ln]
        assert len(lines) == 1 and expected in lines[0] and minio.endpoint in lines[0] or \
            case.startswith("local"), (case, lines)
        assert expected in proc.stderr and "Traceback" not in proc.stderr, case
        assert minio.secret_key not in proc.stderr
    assert not minio.keys("out")  # nothing was written


# ------------------------------------------------------------------ the store stops (issue 50)


@pytest.fixture
def own_store(tmp_path):
    """A MinIO server of this test's own (the session's is shared), to stop and start again on its port."""
    from pipelines.framework import object_store  # pylint: disable=import-outside-toplevel
    server = object_store.MinioServer(str(tmp_path / "minio"))
    server.start()
    try:
        yield server
    finally:
        server.stop(remove_data=True)


def _stop_store_mid_run(server, tmp_path, outage_s):
    """Discovery from and to `server` in a process of its own; the store is stopped as soon as the run has
    staged its first object (it is writing), for `outage_s` seconds (None: for good, until the run ends), then
    started again on its port with its data (test_runners.run_with_store_outage). Returns (exit status,
    stderr, the argv to run again)."""
    server.create_bucket("data")
    source = f"s3://data/in/{os.path.basename(h.inputs()['articles'])}"
    server.upload(h.inputs()["articles"], source)
    argv = ["discovery"] + h.DISCOVERY_ARGS + ["--input", source, "--output", "s3://data/out", "--num_workers", "2",
                                               "--no_progress"] + server.beam_args()
    rc, err = h.run_with_store_outage(argv, tmp_path, server, "s3://data/out/_staging/", outage_s, timeout_s=900)
    return rc, err, argv


def _published_records(server) -> dict:
    return {k[len("out/markers/"):]: _sha(server.read(f"s3://data/{k}")) for k in server.keys("s3://data/out/markers/")
            if k.endswith((".tfrecord", ".tsv"))}


def _reference_records() -> dict:
    ref = _files(h.reference("discovery"))
    return {rel: _sha(data) for rel, data in ref.items() if rel.endswith((".tfrecord", ".tsv"))}


def _failed_cleanly(rc, err, server):
    """Exit 2 with one error line naming the store and its endpoint, no traceback, nothing published."""
    h.failed_cleanly_on_store(rc, err, server)
    assert "out/markers/manifest.json" not in server.keys("s3://data/out/")


def test_the_store_stopped_for_20_s_mid_run_costs_retries_or_a_clean_failure_and_the_rerun_publishes(
        own_store, tmp_path):
    """The object store goes away for ~20 s while the run writes its shards: boto3's standard retries (10
    attempts, backoff up to 20 s) carry most requests over the outage; the run then finishes with the clean
    bytes, or fails with one line naming the store, having published nothing. The same command then publishes
    the clean bytes."""
    rc, err, argv = _stop_store_mid_run(own_store, tmp_path, outage_s=20)
    if rc == 0:
        assert _published_records(own_store) == _reference_records()
    else:
        _failed_cleanly(rc, err, own_store)
        rerun = _cli(argv, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = rerun.communicate(timeout=900)
        assert rerun.returncode == 0, err[-3000:]
        assert _published_records(own_store) == _reference_records()
    print(f"\nstore stopped 20 s mid-run: the run {'finished' if rc == 0 else 'failed cleanly'}")


def test_the_store_stopped_for_good_mid_run_fails_the_run_in_one_line_and_the_rerun_publishes(own_store, tmp_path):
    """The object store goes away for good while the run writes: the run fails with one line that names the
    store's endpoint and says nothing was published (no manifest a reader would take); once the store is back,
    the same command publishes the clean bytes."""
    rc, err, argv = _stop_store_mid_run(own_store, tmp_path, outage_s=None)
    _failed_cleanly(rc, err, own_store)
    rerun = _cli(argv, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, err = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, err[-3000:]
    assert _published_records(own_store) == _reference_records()
