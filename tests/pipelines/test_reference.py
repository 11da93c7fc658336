"""docs/CLI.md is generated from the parsers: it must list every option of every job as they are now."""
from conftest import ROOT
from pipelines import cli


def test_cli_reference_is_current():
    committed = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    assert committed == cli.reference_markdown(), "regenerate: rewrite-mine reference > docs/CLI.md"


def test_reference_covers_every_job_and_common_option():
    text = cli.reference_markdown()
    for job in cli.JOBS:
        assert f"## `rewrite-mine {job}`" in text
    for option in ("--input", "--output", "--runner", "--num_workers", "--min_bleu", "--annotator",
                   "--min_marker_count", "--split_size"):
        assert f"`{option}" in text, option
