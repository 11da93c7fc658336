"""One boto3 client per process and S3 settings, instead of one per file operation.

Beam 2.61's S3 filesystem builds `S3IO(options)` for every call it answers (exists, size, open, create,
rename, copy, delete, match), and each `S3IO` builds a boto3 session and a client: ~0.2 s of CPU on this
machine kind (botocore loads and resolves the service model each time), more than the request itself
costs against a store on the same network. A run that writes a few hundred objects (shards, their
staging copies, TSV, rejects, TFDS metadata, statistics, card, manifest) paid minutes for it.

`share()` keeps Beam's `boto3_client.Client` as it is but hands every instance built with the same settings
in the same process the boto3 client built first. A botocore client is thread-safe; what each `Client`
keeps per download (its stream and position) stays its own. The process id is part of the key, so a
worker forked from a warm parent builds its own (a connection pool must not cross a fork).

Called when `transforms` is imported: by the driver before it builds a pipeline, and by every SDK worker
before it unpickles this project's DoFns, so the driver's publication and the workers' reads and writes
both share.
"""
import os
import threading

_LOCK = threading.Lock()
_CLIENTS = {}
_SETTINGS = ("s3_access_key_id", "s3_secret_access_key", "s3_session_token", "s3_endpoint_url",
             "s3_disable_ssl", "s3_region_name", "s3_api_version", "s3_verify")


def _settings(options) -> tuple:
    """The options Beam's Client reads, as a key (the same values it builds its boto3 client from)."""
    from apache_beam.options import pipeline_options  # pylint: disable=import-outside-toplevel
    if isinstance(options, pipeline_options.PipelineOptions):
        s3 = options.view_as(pipeline_options.S3Options)
        return tuple(getattr(s3, name, None) for name in _SETTINGS)
    return tuple(options.get(name) for name in _SETTINGS)


def share() -> bool:
    """Make Beam's S3 client wrapper reuse one boto3 client per process and settings. False where Beam's AWS
    support (boto3) is not installed; idempotent."""
    try:
        from apache_beam.io.aws.clients.s3 import boto3_client  # pylint: disable=import-outside-toplevel
    except ImportError:
        return False
    if boto3_client.boto3 is None:
        return False
    cls = boto3_client.Client
    if getattr(cls, "_shares_boto3_clients", False):
        return True
    build = cls.__init__

    def __init__(self, options):
        key = (os.getpid(), _settings(options))
        with _LOCK:
            client = _CLIENTS.get(key)
        if client is None:
            build(self, options)
            with _LOCK:
                _CLIENTS.setdefault(key, self.client)
            return
        self.client = client
        self._download_request = None
        self._download_stream = None
        self._download_pos = 0

    cls.__init__ = __init__
    cls._shares_boto3_clients = True
    return True


def built() -> int:
    """How many boto3 clients this process has built through Beam's wrapper since `share()` (tests)."""
    with _LOCK:
        return sum(1 for pid, _ in _CLIENTS if pid == os.getpid())
