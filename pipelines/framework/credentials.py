"""Credentials are never written down: what a run logs, records or prints has them replaced by `***`.

Where they come from. Beam's S3 filesystem (`apache-beam[aws]`, boto3) takes `--s3_access_key_id`,
`--s3_secret_access_key` and `--s3_session_token`, or, when they are not given, boto3's standard chain on
each worker: the AWS environment variables, the shared credentials file (`~/.aws/credentials` or
`$AWS_SHARED_CREDENTIALS_FILE`), an instance or pod role. The chain is what a deployment should use: no
flag then carries a secret. A worker started by this machine (the local runner's, the worker pool of an
engine's EXTERNAL environment) inherits the driver's environment; a container of the worker image gets
its own (an instance role, a Kubernetes secret), or the flags, which Beam hands to the workers inside
the pipeline options.

Where they could leak, and what stops it:
  * Beam's SDK worker logs its pipeline options at start ("Pipeline_options: {...}"), the driver logs
    its command line and options: `install()` wraps the logging record factory, so every record of the
    process has the values of credential options and variables replaced before any handler sees it,
    whatever the logger or handler. The driver, the local runner's workers and the engines' worker pool
    call it; the worker image runs it at every Python start (its `sitecustomize`), so Beam's own worker
    in a container is covered too;
  * the manifest, dataset card and report record the options: `redact_options` / `redact_args`.

Redaction is by name (an option or variable whose name says key, secret, token or password) and by value
(every value seen under such a name in this process's arguments and environment is masked wherever it
appears later, e.g. inside a repr of the options).
"""
import json
import logging
import os
import re
import sys
import threading
import typing

MASK = "***"

#: Option and variable names whose values are credentials (compared lower-case, `-` read as `_`).
SECRET_NAMES = frozenset({
    "s3_access_key_id", "s3_secret_access_key", "s3_session_token",
    "aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_security_token",
    "minio_root_password", "minio_secret_key", "minio_access_key", "minio_root_user",
    "google_application_credentials_json",
})
_NAME = re.compile(r"(?:^|_)(?:secret|password|passwd|token|credentials?|access_key(?:_id)?|api_key|secret_key)(?:$|_)")

# key=value, key: value, 'key': 'value', "key": "value"; then --key value (two passes: a value of one form
# may hold the other)
_PAIR = re.compile(r"""(?P<key>["']?(?P<name>[A-Za-z_][\w.-]*)["']?\s*[:=]\s*)(?P<q>["']?)(?P<value>[^\s"',}\]\)]+)(?P=q)""")
_FLAG = re.compile(r"""(?P<key>--(?P<name>[A-Za-z_][\w.-]*)\s+)(?P<q>["']?)(?P<value>(?!--)[^\s"',}\]\)]+)(?P=q)""")

_known: typing.Set[str] = set()
_lock = threading.Lock()
_installed = False


def is_secret_name(name: str) -> bool:
    """Whether an option or variable of this name holds a credential."""
    n = name.strip().lstrip("-").lower().replace("-", "_")
    return n in SECRET_NAMES or bool(_NAME.search(n) and not n.endswith(("_url", "_endpoint", "_file", "_path",
                                                                          "_dir", "_region", "_name")))


def remember(value: str) -> None:
    """Mask `value` wherever it appears from now on (values shorter than 6 characters are too common)."""
    value = str(value or "")
    if len(value) >= 6:
        with _lock:
            _known.add(value)


def learn_from(argv: typing.Sequence[str] = (), environ: typing.Optional[typing.Mapping[str, str]] = None) -> None:
    """Remember the credentials among command-line arguments (`--name value`, `--name=value`) and the
    environment's variables."""
    argv = list(argv)
    for i, a in enumerate(argv):
        if not a.startswith("--"):
            continue
        name, eq, value = a.partition("=")
        if not is_secret_name(name):
            continue
        if eq:
            remember(value)
        elif i + 1 < len(argv):
            remember(argv[i + 1])
    environ = os.environ if environ is None else environ
    for k, v in environ.items():
        if is_secret_name(k):
            remember(v)
    # A Beam SDK worker's options arrive as JSON in PIPELINE_OPTIONS (Beam's boot sets it in a container).
    if environ.get("PIPELINE_OPTIONS"):
        try:
            options = json.loads(environ["PIPELINE_OPTIONS"])
        except ValueError:
            return
        _remember_values(options)


def _remember_values(value, secret: bool = False) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _remember_values(v, secret or is_secret_name(str(k)))
    elif isinstance(value, (list, tuple)):
        for v in value:
            _remember_values(v, secret)
    elif secret and isinstance(value, str):
        remember(value)


def redact(text: str) -> str:
    """`text` with credentials replaced by MASK: known values anywhere, and the value after a secret name."""
    if not text:
        return text
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for v in known:
        if v in text:
            text = text.replace(v, MASK)

    def pair(m):
        if not is_secret_name(m.group("name")) or m.group("value") == MASK:
            return m.group(0)
        return f"{m.group('key')}{m.group('q')}{MASK}{m.group('q')}"
    return _FLAG.sub(pair, _PAIR.sub(pair, text))


def redact_args(argv: typing.Sequence[str]) -> typing.List[str]:
    """A command line with the value of every credential option masked (`--name value` and `--name=value`)."""
    out, hide = [], False
    for a in argv:
        a = str(a)
        if hide:
            out.append(MASK)
            hide = False
            continue
        if a.startswith("--"):
            name, eq, _ = a.partition("=")
            if is_secret_name(name):
                if eq:
                    out.append(f"{name}={MASK}")
                else:
                    out.append(a)
                    hide = True
                continue
        out.append(redact(a))
    return out


def redact_options(options):
    """A JSON-like value (a manifest's options) with every credential masked: by key, then by value."""
    if isinstance(options, dict):
        return {k: (MASK if is_secret_name(str(k)) and v not in (None, "", False) else redact_options(v))
                for k, v in options.items()}
    if isinstance(options, (list, tuple)):
        return type(options)(redact_options(v) for v in options)
    if isinstance(options, str):
        return redact(options)
    return options


def install(argv: typing.Optional[typing.Sequence[str]] = None) -> None:
    """Redact every log record this process makes from now on (idempotent). Learns the credentials of
    `argv` (default: this process's arguments) and of the environment first."""
    global _installed  # pylint: disable=global-statement
    learn_from(sys.argv[1:] if argv is None else argv)
    with _lock:
        if _installed:
            return
        _installed = True
    old = logging.getLogRecordFactory()

    def factory(*args, **kwargs):
        record = old(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # pylint: disable=broad-except
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = str(record.exc_info[1])
            if redact(text) != text:
                record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return record
    logging.setLogRecordFactory(factory)
