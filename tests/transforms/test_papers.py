"""transforms.papers: ReadPapers on the bundled papers and the broken files, on the in-process portable runner."""
import collections
import glob
import os

import apache_beam as beam
import pytest
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.util import assert_that, equal_to

from miners.parasci import papers as mp
from schemas.papers import Paper
from schemas.records import Reject
from tests.conftest import ROOT
from transforms.common import COUNTS, REJECTS
from transforms.papers import PAPERS, ReadPaperFileFn, ReadPapers
from transforms.read import InputError

SAMPLES = ROOT / "samples" / "scientific"
BROKEN = ROOT / "tests" / "testdata" / "scientific"


def run(pipeline_fn):
    with beam.Pipeline(runner=FnApiRunner()) as p:
        pipeline_fn(p)


def summed(counts_pcoll):
    return counts_pcoll | "Sum" >> beam.CombinePerKey(sum)


def input_files():
    files = glob.glob(str(SAMPLES / "*" / "*")) + glob.glob(str(BROKEN / "*"))
    return sorted(f for f in files if not f.endswith(".md"))


def test_read_papers_samples_and_broken_files():
    files = input_files()
    expected_papers, expected_rejects, expected_counts = [], [], collections.Counter()
    for f in files:
        for r in mp.iter_papers(f, f, "test", lambda k, n=1: expected_counts.update({k: n})):
            (expected_papers if isinstance(r, Paper) else expected_rejects).append(r)
    # Every bundled paper is read (the 2020 shard holds two), and every broken file is rejected once or more.
    assert sorted(p.source for p in expected_papers if str(SAMPLES) in p.path) == \
        ["doc2json", "grobid_tei", "jats", "s2orc", "s2orc", "s2orc", "s2orc", "s2orc"]
    assert sorted({r.reason for r in expected_rejects}) == [
        "bad_json", "bad_xml", "broken_utf8", "no_body_text", "not_a_paper", "truncated_archive", "unknown_format"]
    assert not [r for r in expected_rejects if str(SAMPLES) in r.source]

    def pipeline(p):
        out = p | ReadPapers(files, "test")
        assert_that(out[PAPERS], equal_to(expected_papers), label="Papers")
        assert_that(out[REJECTS], equal_to(expected_rejects), label="Rejects")
        totals = summed(out[COUNTS])
        assert_that(totals, equal_to(list(expected_counts.items())), label="Counts")

        def balance(actual):
            c = dict(actual)
            filtered = sum(n for k, n in c.items() if k.startswith("read/filtered:"))
            # 8 bundled papers + 1 before the cut of truncated.jsonl.gz + 1 in mixed.jsonl; 11 rejects.
            assert (c["read/records"], c["read/papers"], filtered) == (21, 10, 11), c
        assert_that(totals, balance, label="Balance")
    run(pipeline)


def test_reader_error_is_a_reject_not_a_crash(tmp_path):
    gone = str(tmp_path / "deleted-after-planning.json")

    def pipeline(p):
        out = (p | beam.Create([gone])
               | beam.ParDo(ReadPaperFileFn("test")).with_outputs(REJECTS, COUNTS, main=PAPERS))
        assert_that(out[PAPERS], equal_to([]), label="Papers")
        assert_that(out[REJECTS] | beam.Map(lambda r: (r.reason, r.key, "FileNotFoundError" in r.detail)),
                    equal_to([("reader_error", gone, True)]), label="Rejects")
        assert_that(summed(out[COUNTS]), equal_to([("read/records", 1), ("read/filtered:reader_error", 1)]),
                    label="Counts")
    run(pipeline)


def test_missing_input_fails_at_construction_naming_it(tmp_path):
    missing = str(tmp_path / "nope" / "paper.json")
    with pytest.raises(InputError, match="nope"):
        with beam.Pipeline(runner=FnApiRunner()) as p:
            _ = p | ReadPapers([missing], "test")
    with pytest.raises(InputError):
        with beam.Pipeline(runner=FnApiRunner()) as p:
            _ = p | ReadPapers([], "test")


def test_rejects_name_their_file():
    files = [str(BROKEN / "malformed.tei.xml"), str(BROKEN / "mixed.jsonl")]

    def pipeline(p):
        out = p | ReadPapers(files, "test")
        assert_that(out[REJECTS] | beam.Map(lambda r: (os.path.basename(r.source), r.reason, r.key)),
                    equal_to([("malformed.tei.xml", "bad_xml", files[0]),
                              ("mixed.jsonl", "bad_json", "line 3"), ("mixed.jsonl", "not_a_paper", "line 4"),
                              ("mixed.jsonl", "not_a_paper", "line 5"), ("mixed.jsonl", "broken_utf8", "line 6")]),
                    label="Rejects")
        assert_that(out[PAPERS] | beam.Map(lambda x: x.id), equal_to(["18980380"]), label="Papers")
    run(pipeline)
