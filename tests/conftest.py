"""Shared fixtures: paths to the bundled real samples and an in-process Beam runner."""
import atexit
import contextlib
import fcntl
import os
import pathlib
import shutil
import tempfile

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a model hub from a test
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

#: Every JVM the tests start (Flink's and Spark's daemons, their executors, Beam's job servers; each inherits
#: the environment) compiles with C1 only and collects with the serial collector. On a 2-core machine the
#: tests' engine runs are short and CPU-bound, and C2's compiler threads and G1's are much of their CPU:
#: Discovery on 6 copies on a 2-TaskManager Flink cluster took 139-170 CPU-s and 81-107 with these (the
#: cluster's start 57 and 28), on Spark 159-170 and 100-115 (docs/DEVELOPING.md, Test budget). What a test
#: proves does not depend on how the JVM compiles. A JAVA_TOOL_OPTIONS of the caller's own is kept.
# (A collector of the caller's own is kept too: two would stop every JVM at start.)
JVM_TEST_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _jvm_test_options(given: str) -> str:
    import re  # pylint: disable=import-outside-toplevel
    more = [] if "TieredStopAtLevel" in given else ["-XX:TieredStopAtLevel=1"]
    more += [] if re.search(r"Use\w*GC\b", given) else ["-XX:+UseSerialGC"]
    return " ".join([given.strip()] + more).strip()


os.environ["JAVA_TOOL_OPTIONS"] = _jvm_test_options(os.environ.get("JAVA_TOOL_OPTIONS", ""))

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


def _test_run_work_dir() -> str:
    """One scratch directory for the whole test run. The first process to load this file (pytest itself, or
    pytest-xdist's controller) makes it and removes it at exit; the worker processes it starts inherit it
    through the environment, so what `shared_once` builds is built once for all of them."""
    key = "REWRITE_MINING_TEST_WORK"
    if not os.environ.get(key) or not os.path.isdir(os.environ[key]):
        os.environ[key] = tempfile.mkdtemp(prefix="runner-tests-")
        atexit.register(shutil.rmtree, os.environ[key], True)
    return os.environ[key]


WORK = _test_run_work_dir()


@contextlib.contextmanager
def _locked(path: str):
    with open(path, "a", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def shared_once(name: str, build) -> str:
    """`WORK/name`, made by `build(directory)` once per test run: the first pytest process to ask builds it,
    one that asks meanwhile waits for that build (two processes building the same reference would
    each pay minutes of CPU on a 2-core machine), and a build that raised is retried by the next asker."""
    d = os.path.join(WORK, name)
    with _locked(d + ".lock"):
        if not os.path.exists(d + ".done"):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            build(d)
            with open(d + ".done", "w", encoding="utf-8"):
                pass
    return d


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
def all_reference():
    """`rewrite-mine all` over small real inputs of every kind (test_runners.all_args) with the local runner and
    2 worker processes: the output Spark's every-job test and the worker-count test compare with.
    Computed once per test run, on first use, whichever pytest process asks first (`shared_once`)."""
    import sys  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, str(ROOT / "tests" / "pipelines" / "framework"))
    import test_runners as h  # pylint: disable=import-outside-toplevel

    def build(out):
        manifests = h.run_all(h.all_args() + ["--output", out, "--num_workers", "2", "--no_progress"])
        assert tuple(m["dataset"] for m in manifests) == h.ALL_DATASETS
    return pathlib.Path(shared_once("all-reference", build))


# ------------------------------------------------------------------ the order pytest-xdist hands modules out

#: The modules that take longest, longest first, by their seconds in a full run (docs/DEVELOPING.md). With
#: `--dist loadscope --no-loadscope-reorder` (the Makefile) each process takes a whole module when it is free,
#: in collection order; handing out the longest first keeps one process from starting a 20-minute module
#: while the other has nothing left to do. (xdist's own order, most tests first, put these last.)
LONGEST_MODULES = (
    "tests/pipelines/framework/test_engine_faults.py",
    "tests/pipelines/framework/test_worker_image.py",
    "tests/pipelines/framework/test_engines.py",
    "tests/pipelines/test_all.py",
    "tests/pipelines/framework/test_object_store.py",
    "tests/pipelines/framework/test_flink_preflight.py",
    "tests/pipelines/test_hostile.py",
)


def pytest_collection_modifyitems(session, config, items):
    rank = {m: i for i, m in enumerate(LONGEST_MODULES)}

    def module_rank(item):
        path = pathlib.Path(str(item.fspath)).resolve()
        try:
            rel = path.relative_to(ROOT).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(rel, len(rank))
    items[:] = sorted(items, key=module_rank)  # stable: the rest keep their order


# ------------------------------------------------------------------ per-test timings, when asked for

def pytest_runtest_logreport(report):
    """With REWRITE_MINING_TEST_TIMINGS=FILE, one JSON line per test phase (process, test, phase, start,
    seconds) appended to FILE: where a full run spent its time, per process."""
    path = os.environ.get("REWRITE_MINING_TEST_TIMINGS")
    if not path or getattr(report, "node", None) is not None:  # xdist's controller: its workers wrote it
        return
    import json  # pylint: disable=import-outside-toplevel
    line = json.dumps({"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "test": report.nodeid,
                       "phase": report.when, "start": round(report.start, 1),
                       "seconds": round(report.duration, 2), "outcome": report.outcome})
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
