"""Credentials are masked wherever a run writes or logs (pipelines/framework/credentials.py; issue 50).
The end-to-end check, a secret planted by each way in and searched in every file a run wrote, is in
test_object_store.py."""
import logging

from pipelines.framework import credentials as c


def test_names_that_hold_credentials_and_names_that_do_not():
    for name in ("s3_secret_access_key", "--s3_access_key_id", "AWS_SESSION_TOKEN", "MINIO_ROOT_PASSWORD",
                 "secret_key", "api_key"):
        assert c.is_secret_name(name), name
    for name in ("max_tokens", "AWS_SHARED_CREDENTIALS_FILE", "s3_endpoint_url", "tokenizer", "bertscore_model",
                 "s3_region_name", "keyword"):
        assert not c.is_secret_name(name), name


def test_beams_logged_options_a_command_line_and_a_manifest_have_their_secrets_masked():
    c.learn_from(["--s3_secret_access_key", "Planted-Secret-123", "--tsv"], {})
    line = ("Pipeline_options: {'s3_access_key_id': 'AKIAEXAMPLE', 's3_secret_access_key': 'Planted-Secret-123', "
            "'runner': 'PortableRunner'}")
    masked = c.redact(line)
    assert "Planted-Secret-123" not in masked and "AKIAEXAMPLE" not in masked and "PortableRunner" in masked
    cmd = c.redact("rewrite-mine x --s3_secret_access_key=abcdefgh --s3_access_key_id KEYKEY1 --tsv AWS_SESSION_TOKEN=tok")
    assert cmd == "rewrite-mine x --s3_secret_access_key=*** --s3_access_key_id *** --tsv AWS_SESSION_TOKEN=***"
    assert c.redact_args(["--s3_secret_access_key", "abcdef", "--s3_access_key_id=KEYKEY", "--x", "1"]) == \
        ["--s3_secret_access_key", "***", "--s3_access_key_id=***", "--x", "1"]
    manifest = {"options": {"s3_secret_access_key": "zz", "max_tokens": 5, "note": "uses Planted-Secret-123"}}
    assert c.redact_options(manifest) == {"options": {"s3_secret_access_key": "***", "max_tokens": 5,
                                                      "note": "uses ***"}}


def test_an_sdk_workers_options_in_its_environment_are_learnt_and_every_log_record_is_masked(caplog):
    c.learn_from([], {"PIPELINE_OPTIONS": '{"options": {"s3_secret_access_key": "From-The-Runner-456"}}'})
    c.install([])
    with caplog.at_level(logging.INFO):
        logging.getLogger("apache_beam.runners.worker.sdk_worker_main").info("options %s", "x From-The-Runner-456 y")
        try:
            raise RuntimeError("failed with From-The-Runner-456")
        except RuntimeError:
            logging.getLogger("any").exception("boom")
    text = caplog.text
    assert "From-The-Runner-456" not in text and "x *** y" in text
