"""An S3-compatible object store on this machine: a MinIO server process, for the tests and for trying the
`s3://` path of the jobs without a cloud account.

    with MinioServer(workdir) as store:          # own data dir, free port of loopback, random credentials
        store.create_bucket("data")
        rewrite-mine discovery --input s3://data/in/*.bz2 --output s3://data/out ... + store.beam_args()

`beam_args()` are the options Beam's S3 filesystem (`apache-beam[aws]`, boto3) reads, on the driver and
on every SDK worker: `--s3_endpoint_url http://127.0.0.1:PORT --s3_access_key_id ... --s3_secret_access_key
... --s3_region_name us-east-1`. A user with AWS S3 passes none of them (boto3 reads the usual AWS
credentials) or only the last three; another S3-compatible store (Ceph, a MinIO of their own) the same four.

MinIO is AGPL-3.0. It is used unmodified, as a separate server process started from a binary that
tools/minio.sh builds from MinIO's published source into .engines/ (the Go module proxy, once); it is never
linked with, imported by, copied into or shipped with this project or its worker image.
"""
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import typing
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: tools/minio.sh builds MinIO here (REWRITE_MINE_ENGINES moves .engines/; MINIO_BIN names another binary).
MINIO_VERSION = "v0.0.0-20260212201848-7aac2a2c5b7c"
REGION = "us-east-1"  # MinIO's default region; boto3 signs for it


class ObjectStoreError(RuntimeError):
    """MinIO is not built, or did not start; the message says what to do."""


def minio_binary() -> str:
    """The MinIO binary tools/minio.sh builds (or $MINIO_BIN)."""
    if os.environ.get("MINIO_BIN"):
        return os.environ["MINIO_BIN"]
    engines = os.environ.get("REWRITE_MINE_ENGINES") or os.path.join(ROOT, ".engines")
    return os.path.join(engines, f"minio-{MINIO_VERSION}", "minio")


def free_port() -> int:
    """A port of loopback that is free now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the server's process before exec: SIGTERM when the thread that started it ends (a test run or a
    driver that is killed leaves no MinIO behind). Linux only; elsewhere `stop` is the only way."""
    try:
        import ctypes  # pylint: disable=import-outside-toplevel
        ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM
    except Exception:  # noqa: BLE001
        pass


class MinioServer:
    """One MinIO server: its own data directory under `workdir`, a free port, random credentials.

    Args:
      workdir: a directory of its own (data/ and the server's log go there).
      port: the S3 API's port (default: a free one).
      binary: the MinIO binary (default: `minio_binary()`).
    """

    def __init__(self, workdir: str, port: typing.Optional[int] = None, binary: typing.Optional[str] = None):
        self.workdir = os.path.abspath(workdir)
        self.data_dir = os.path.join(self.workdir, "data")
        self.log_path = os.path.join(self.workdir, "minio.log")
        self.binary = binary or minio_binary()
        self.port = port or free_port()
        self.console_port = free_port()
        self.access_key = "rm" + secrets.token_hex(8)
        # A letter first: a secret that began with "-" was taken by argparse for an option in CI
        # (the CLI now joins such a value to its option: pipelines/framework/job.py join_dash_values).
        self.secret_key = "S" + secrets.token_urlsafe(24)
        self.process: typing.Optional[subprocess.Popen] = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def beam_args(self) -> typing.List[str]:
        """The options Beam's S3 filesystem needs to reach this store (driver and workers)."""
        return ["--s3_endpoint_url", self.endpoint, "--s3_access_key_id", self.access_key,
                "--s3_secret_access_key", self.secret_key, "--s3_region_name", REGION]

    def env(self) -> typing.Dict[str, str]:
        """The same as AWS environment variables (for boto3, the AWS CLI, s3fs ... run beside it)."""
        return {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key,
                "AWS_DEFAULT_REGION": REGION, "AWS_ENDPOINT_URL": self.endpoint}

    def describe(self) -> dict:
        return {"endpoint": self.endpoint, "access_key": self.access_key, "secret_key": self.secret_key,
                "region": REGION, "data_dir": self.data_dir, "pid": self.process.pid if self.process else None}

    # ------------------------------------------------------------------ life cycle

    def start(self, timeout_s: float = 60.0) -> "MinioServer":
        if not (os.path.isfile(self.binary) and os.access(self.binary, os.X_OK)):
            raise ObjectStoreError(f"MinIO is not built ({self.binary}): run tools/minio.sh (needs Go 1.24+; "
                                   f"`make test` runs it), or set MINIO_BIN to a minio binary")
        os.makedirs(self.data_dir, exist_ok=True)
        env = dict(os.environ, MINIO_ROOT_USER=self.access_key, MINIO_ROOT_PASSWORD=self.secret_key,
                   MINIO_BROWSER="off", MINIO_UPDATE="off", MINIO_CI_CD="1")
        # a config directory of its own (MinIO would otherwise write ~/.minio)
        cmd = [self.binary, "server", self.data_dir, "--address", f"127.0.0.1:{self.port}",
               "--console-address", f"127.0.0.1:{self.console_port}",
               "--config-dir", os.path.join(self.workdir, "config"), "--quiet"]
        log = open(self.log_path, "ab")  # pylint: disable=consider-using-with
        try:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                cmd, stdout=log, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=_die_with_parent)
        finally:
            log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ObjectStoreError(f"MinIO exited with status {self.process.returncode} at start: "
                                       f"{self._log_tail()}")
            if self._ready():
                return self
            time.sleep(0.2)
        self.stop()
        raise ObjectStoreError(f"MinIO did not answer on {self.endpoint} within {timeout_s:.0f} s: {self._log_tail()}")

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.endpoint}/minio/health/ready", timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def _log_tail(self, n: int = 800) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace").strip() or "(no output)"
        except OSError:
            return "(no log)"

    def stop(self, remove_data: bool = False):
        """Stop the server (SIGTERM, then SIGKILL after 10 s); optionally remove its data."""
        p, self.process = self.process, None
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        if remove_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ------------------------------------------------------------------ buckets and objects

    def client(self):
        """A boto3 S3 client of this store."""
        import boto3  # pylint: disable=import-outside-toplevel
        return boto3.session.Session().client(
            "s3", endpoint_url=self.endpoint, aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key, region_name=REGION)

    def create_bucket(self, name: str) -> str:
        """Create bucket `name`; returns `s3://name`."""
        self.client().create_bucket(Bucket=name)
        return f"s3://{name}"

    def upload(self, local_path: str, url: str):
        """Copy one local file to `s3://bucket/key`."""
        bucket, key = split_url(url)
        self.client().upload_file(local_path, bucket, key)

    def download_tree(self, url: str, local_dir: str) -> typing.List[str]:
        """Copy every object under `s3://bucket/prefix` into `local_dir` (keys relative to the prefix);
        returns the relative paths."""
        bucket, prefix = split_url(url)
        prefix = prefix.rstrip("/") + "/" if prefix else ""
        client = self.client()
        names = []
        for key in self.keys(url):
            rel = key[len(prefix):]
            dest = os.path.join(local_dir, *rel.split("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            client.download_file(bucket, key, dest)
            names.append(rel)
        return names

    def keys(self, url: str) -> typing.List[str]:
        """Every object key under `s3://bucket/prefix`, sorted."""
        bucket, prefix = split_url(url)
        prefix = prefix.rstrip("/") + "/" if prefix else ""
        out = []
        for page in self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            out += [o["Key"] for o in page.get("Contents", [])]
        return sorted(out)

    def read(self, url: str) -> bytes:
        bucket, key = split_url(url)
        return self.client().get_object(Bucket=bucket, Key=key)["Body"].read()


def split_url(url: str) -> typing.Tuple[str, str]:
    """'s3://bucket/a/b' -> ('bucket', 'a/b')."""
    if not url.startswith("s3://"):
        raise ValueError(f"not an s3:// URL: {url!r}")
    bucket, _, key = url[len("s3://"):].partition("/")
    return bucket, key


def main(argv=None) -> int:
    """`python -m pipelines.framework.object_store WORKDIR [BUCKET]`: start MinIO in the foreground, create the
    bucket, print the endpoint, credentials and the Beam options as JSON; Ctrl-C stops it."""
    import argparse  # pylint: disable=import-outside-toplevel
    import signal  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("workdir")
    parser.add_argument("bucket", nargs="?", default="rewrite-mining")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = MinioServer(args.workdir, port=args.port or None).start()
    try:
        server.create_bucket(args.bucket)
        print(json.dumps(dict(server.describe(), bucket=args.bucket, beam_args=server.beam_args())), flush=True)
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        while server.process is not None and server.process.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
