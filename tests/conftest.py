"""Shared fixtures: paths to the bundled real samples and an in-process Beam runner."""
import os
import pathlib

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a model hub from a test
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
ENWIKI = SAMPLES / "wikipedia" / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BGWIKI = SAMPLES / "wikipedia" / "bgwiki-latest-pages-articles-shortened.xml.bz2"
ENWIKI_TABLES = SAMPLES / "wikipedia" / "enwiki-table-markup.xml.bz2"
SHARED_DATA = ROOT.parent / "shared" / "data"
#: Small real excerpts of non-English Wikipedia dumps and UD treebanks (tools/make_language_excerpts.py;
#: attribution in tests/testdata/languages/SOURCES.md).
LANGUAGE_DATA = ROOT / "tests" / "testdata" / "languages"


def bundled_wiki(lang: str) -> pathlib.Path:
    """The bundled excerpt of `lang`'s Wikipedia (uk, vi, ja, el, bn, hy, mr, zh): the dump's own header
    and its first few articles."""
    found = sorted(LANGUAGE_DATA.glob(f"{lang}wiki-*-small.xml.bz2"))
    if len(found) != 1:
        raise FileNotFoundError(f"no bundled {lang} excerpt in {LANGUAGE_DATA}")
    return found[0]


@pytest.fixture(scope="session")
def enwiki_path():
    return str(ENWIKI)


@pytest.fixture(scope="session")
def bgwiki_path():
    return str(BGWIKI)


def in_process_pipeline():
    """A Beam pipeline on the in-process portable runner (never the network)."""
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    return beam.Pipeline(runner=FnApiRunner())


# ------------------------------------------------------------------ an S3-compatible object store


@pytest.fixture(scope="session")
def minio_server(tmp_path_factory):
    """One MinIO server for the session (pipelines/framework/object_store.py): its own data directory,
    a free port of loopback, random credentials; stopped at the end. tools/minio.sh builds the binary
    (`make test` runs it); tests that use it are marked `s3` (`-m "not s3"` leaves them out)."""
    from pipelines.framework import object_store
    server = object_store.MinioServer(str(tmp_path_factory.mktemp("minio")))
    try:
        server.start()
    except object_store.ObjectStoreError as e:
        pytest.fail(f"{e} (or leave the object-store tests out: -m 'not s3')", pytrace=False)
    try:
        yield server
    finally:
        server.stop(remove_data=True)


class S3Bucket:
    """A fresh bucket of the session's MinIO: what a job or a test needs to reach it."""

    def __init__(self, server, bucket: str):
        self.server = server
        self.bucket = bucket
        self.url = f"s3://{bucket}"
        self.endpoint = server.endpoint
        self.access_key = server.access_key
        self.secret_key = server.secret_key
        self.region = server.describe()["region"]

    def beam_args(self):
        """`--s3_endpoint_url ... --s3_access_key_id ... --s3_secret_access_key ... --s3_region_name ...`"""
        return self.server.beam_args()

    def env(self):
        """The same as AWS_* environment variables (boto3 and other clients)."""
        return self.server.env()

    def upload(self, local_path, key: str) -> str:
        """Put a local file at `s3://bucket/key`; returns that URL."""
        url = f"{self.url}/{key}"
        self.server.upload(str(local_path), url)
        return url

    def download(self, prefix: str, local_dir) -> list:
        """Every object under `s3://bucket/prefix` into `local_dir`; returns the relative paths."""
        return self.server.download_tree(f"{self.url}/{prefix}", str(local_dir))

    def keys(self, prefix: str = "") -> list:
        """Object keys under `prefix`, sorted."""
        return self.server.keys(f"{self.url}/{prefix}" if prefix else self.url)


@pytest.fixture
def minio(minio_server):
    """A new, empty bucket of the session's MinIO server (S3Bucket: endpoint, credentials, bucket,
    `beam_args()` for a job, upload / download / keys)."""
    import uuid
    bucket = f"test-{uuid.uuid4().hex[:16]}"
    minio_server.create_bucket(bucket)
    return S3Bucket(minio_server, bucket)


# ------------------------------------------------------------------ every job, once, with the local runner


@pytest.fixture(scope="session")
def all_reference(tmp_path_factory):
    """`rewrite-mine all` over small real inputs of every kind (test_runners.all_args) with the local runner and
    2 worker processes: the output the engine tests (Flink, Spark) and the worker-count test compare with.
    Computed once per session, on first use."""
    import sys  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, str(ROOT / "tests" / "pipelines" / "framework"))
    import test_runners as h  # pylint: disable=import-outside-toplevel
    out = tmp_path_factory.mktemp("all-reference")
    manifests = h.run_all(h.all_args() + ["--output", str(out), "--num_workers", "2", "--no_progress"])
    assert tuple(m["dataset"] for m in manifests) == h.ALL_DATASETS
    return out
