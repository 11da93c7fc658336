"""The object store a run reads and writes: checked before the run, retried through an outage, named when it fails.

    preflight(paths, beam_args)        # a missing bucket, refused credentials, a store that does not
                                       # answer, local paths for workers in containers: one line, before
                                       # anything runs (JobFailed)
    retry_environment()                # boto3's retries for every process of the run (see RETRY_ENV)
    store_failure(error, beam_args)    # a run that failed on the store: one line naming it and its endpoint

Beam's S3 filesystem (`apache-beam[aws]`) talks to the store through boto3 on the driver and on every SDK
worker, with the options `--s3_endpoint_url`, `--s3_region_name`, credentials by flags or boto3's standard
chain (pipelines/framework/credentials.py). boto3's own retries are what carries a run through a store that
stops answering for a while: RETRY_ENV sets its standard mode with 10 attempts (exponential backoff, at most
20 s between two, about a minute in all), for the driver and the local runner's workers here, and for the
workers of the image (the Dockerfile sets the same). A store that is gone for longer fails the run; nothing
is published then (publication comes after the pipeline, manifest last), and the same command publishes the
run once the store is back.
"""
import os
import typing

from pipelines.framework.errors import JobFailed

#: boto3's retries (read from the environment by every boto3 client; a user's own setting wins).
RETRY_ENV = {"AWS_RETRY_MODE": "standard", "AWS_MAX_ATTEMPTS": "10"}

_S3_OPTIONS = ("s3_endpoint_url", "s3_region_name", "s3_access_key_id", "s3_secret_access_key", "s3_session_token",
               "s3_verify", "s3_disable_ssl")


def retry_environment() -> None:
    """Set RETRY_ENV in this process's environment (children inherit it) unless the user set them."""
    for k, v in RETRY_ENV.items():
        os.environ.setdefault(k, v)


def s3_options(beam_args) -> dict:
    """The S3 options among Beam's arguments ({} for none given)."""
    from apache_beam.options.pipeline_options import PipelineOptions  # pylint: disable=import-outside-toplevel
    opts = PipelineOptions(list(beam_args)).get_all_options()
    return {k: opts.get(k) for k in _S3_OPTIONS if opts.get(k) not in (None, "")}


def endpoint(beam_args) -> str:
    """Where the run's s3:// paths live: `--s3_endpoint_url`, $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL, or AWS."""
    return (s3_options(beam_args).get("s3_endpoint_url") or os.environ.get("AWS_ENDPOINT_URL_S3")
            or os.environ.get("AWS_ENDPOINT_URL") or "AWS S3")


def _client(beam_args, attempts: int = 2):
    import boto3  # pylint: disable=import-outside-toplevel
    from botocore.config import Config  # pylint: disable=import-outside-toplevel
    o = s3_options(beam_args)
    return boto3.session.Session().client(
        "s3", endpoint_url=o.get("s3_endpoint_url"), region_name=o.get("s3_region_name"),
        aws_access_key_id=o.get("s3_access_key_id"), aws_secret_access_key=o.get("s3_secret_access_key"),
        aws_session_token=o.get("s3_session_token"), use_ssl=not o.get("s3_disable_ssl"),
        verify=o.get("s3_verify"),
        config=Config(retries={"max_attempts": attempts, "mode": "standard"}, connect_timeout=5, read_timeout=20))


def _bucket(url: str) -> str:
    return url[len("s3://"):].split("/", 1)[0]


def preflight(inputs: typing.Sequence[str], output: str, beam_args, environment_type: str = "") -> None:
    """Raise JobFailed with one line when the run cannot work with its storage:
      * `--environment_type DOCKER` with a local input or output: the workers in the image's containers see
        no file of this machine;
      * an s3:// bucket that does not exist, credentials the store refuses, a store that does not answer."""
    paths = [p for p in list(inputs) + [output] if p]
    if (environment_type or "").upper() == "DOCKER":
        local = [p for p in paths if "://" not in p]
        if local:
            raise JobFailed(
                f"{local[0]!r} is a path of this machine, and with --environment_type DOCKER the workers run in "
                f"containers of the worker image, which see none of its files: put the inputs and --output on an "
                f"object store the workers reach (s3://BUCKET/..., gs://...), or run with --environment_type "
                f"EXTERNAL / PROCESS on this machine")
    buckets = sorted({_bucket(p) for p in paths if p.startswith("s3://")})
    if not buckets:
        return
    from botocore import exceptions as bx  # pylint: disable=import-outside-toplevel
    where = endpoint(beam_args)
    client = _client(beam_args)
    for bucket in buckets:
        try:
            client.head_bucket(Bucket=bucket)
        except bx.ClientError as e:
            code = str(e.response.get("Error", {}).get("Code", ""))
            status = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if code in ("404", "NoSuchBucket", "NotFound"):
                raise JobFailed(f"the object store at {where} has no bucket s3://{bucket}: create it, or correct "
                                f"--input / --output") from None
            if status in (401, 403) or code in ("403", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch",
                                                "InvalidToken", "ExpiredToken"):
                raise JobFailed(f"the object store at {where} refused the credentials for s3://{bucket} ({code}): "
                                f"check the AWS credentials (environment, ~/.aws/credentials, instance role) or "
                                f"--s3_access_key_id / --s3_secret_access_key, and --s3_endpoint_url") from None
            raise JobFailed(f"the object store at {where} answered {code or status} for s3://{bucket}: "
                            f"{_short(e)}") from None
        except bx.NoCredentialsError:
            raise JobFailed(f"no credentials for the object store at {where} (s3://{bucket}): set AWS's environment "
                            f"variables or ~/.aws/credentials, use an instance role, or pass --s3_access_key_id "
                            f"and --s3_secret_access_key") from None
        except (bx.EndpointConnectionError, bx.ConnectTimeoutError, bx.ReadTimeoutError) as e:
            raise JobFailed(f"the object store at {where} does not answer (s3://{bucket}): {_short(e)}; check "
                            f"--s3_endpoint_url and that the store runs") from None


def _short(e: BaseException) -> str:
    return " ".join(str(e).split())[:200]


#: Words of an error that come from talking to an object store (botocore's and Beam's S3 client's messages).
_STORE_ERRORS = ("EndpointConnectionError", "Could not connect to the endpoint URL", "ConnectTimeoutError",
                 "ReadTimeoutError", "Connection was closed before we received a valid response",
                 "S3ClientError", "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout",
                 "Max retries exceeded", "reached max retries")


def store_failure(error: BaseException, beam_args, paths: typing.Sequence[str] = ()) -> typing.Optional[str]:
    """One line for a run that failed on its object store (None when the error is something else)."""
    text = f"{type(error).__name__}: {error}"
    if not any(s3 in " ".join(paths) for s3 in ("s3://",)) and "s3://" not in text:
        return None
    if not any(word in text for word in _STORE_ERRORS):
        return None
    where = endpoint(beam_args)
    reason = next((word for word in _STORE_ERRORS if word in text), "an error")
    return (f"the object store at {where} failed during the run ({reason}; boto3 retried "
            f"{os.environ.get('AWS_MAX_ATTEMPTS', RETRY_ENV['AWS_MAX_ATTEMPTS'])} times): nothing was published; "
            f"re-run the same command once the store answers")
