"""Beam wrappers of the WikiSplit miner on the in-process portable runner, and the job end to end."""
import bz2
import collections
import glob
import json
import os

import apache_beam as beam
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.util import assert_that, equal_to

from pipelines import wikisplit as wikisplit_job
from schemas.records import SplitExample
from tests import wikisplit_fixtures as fx
from transforms import sinks
from transforms import wikisplit as tw


def _pipeline():
    return beam.Pipeline(runner=FnApiRunner())


def _sum_counts(pairs):
    out = collections.Counter()
    for name, n in pairs:
        out[name] += n
    return dict(out)


def test_fill_fixed_splits_whole_pages_in_hash_order():
    pages = [(5, 50, 2), (1, 10, 1), (3, 30, 3), (2, 20, 1), (4, 40, 1), (9, 90, 7)]
    assignment, kept = tw.fill_fixed_splits(pages, (("tune", 2), ("validation", 3), ("test", 1)))
    # hash order: 10(1), 20(1) -> tune; 30(3) -> validation; 40(1) -> test; 50, 90 -> train
    assert assignment == {10: "tune", 20: "tune", 30: "validation", 40: "test"}
    assert kept == [(1, 10, 1), (2, 20, 1), (3, 30, 3), (4, 40, 1)]


def test_assign_fixed_size_splits_in_beam():
    examples = [SplitExample(complex=f"C{i}", simple1="a", simple2="b", page_id=i % 20) for i in range(100)]
    sizes = (("tune", 10), ("validation", 10), ("test", 10))
    expected_table, _ = tw.fill_fixed_splits(
        [(tw.stable_hash(str(p), tw._SPLIT_SALT), p, 5) for p in range(20)], sizes)
    expected = [("base", expected_table.get(e.page_id, "train"), e) for e in examples]
    with _pipeline() as p:
        out = p | beam.Create(examples) | tw.AssignFixedSizeSplits(sizes)
        assert_that(out, equal_to(expected))
    per_split = collections.Counter(s for _, s, _ in expected)
    assert per_split == {"tune": 10, "validation": 10, "test": 10, "train": 70}


def _split_key(e):
    return (e.complex, e.simple1, e.simple2, e.direction, e.page_id)


def test_mine_wikisplit_on_real_text_history(tmp_path):
    fixture = fx.build_fixture(str(tmp_path / "history.xml.bz2"), n_pages=30)
    # The same history once more under another name: every complex sentence is found twice.
    copy = str(tmp_path / "copy-history.xml")
    with bz2.open(fixture.path, "rb") as f, open(copy, "wb") as g:
        g.write(f.read())
    with _pipeline() as p:
        out = (p | beam.Create([fixture.path, copy])
               | tw.MineWikiSplit(sizes=(("tune", 3), ("validation", 3), ("test", 3)), noise_sample_rate=1.0))
        mined = out["presplit"] | beam.MapTuple(lambda v, s, e: _split_key(e))
        splits = out["presplit"] | "Splits" >> beam.MapTuple(lambda v, s, e: (v, s)) | beam.combiners.Count.PerElement()
        counts = (tuple(out["counts"]) | "FlattenCounts" >> beam.Flatten()
                  | beam.CombinePerKey(sum) | beam.combiners.ToDict())
        reasons = (tuple(out["rejects"]) | "FlattenRejects" >> beam.Flatten()
                   | beam.Map(lambda r: (r.stage, r.reason)) | "CountReasons" >> beam.combiners.Count.PerElement())
        # The fixture's woven pairs that meet the paper's conditions on the release text.
        assert_that(mined, equal_to(fx.recoverable(fixture)), label="Mined")
        assert_that(splits, lambda got: _check_splits(dict(got)), label="SplitSizes")
        assert_that(reasons, equal_to([(("read", "identity_revert"), 2 * 21), (("read", "reverted_revision"), 2 * 21),
                                       (("read", "non_article_namespace"), 2 * 2)]), label="Reasons")
        assert_that(counts, lambda got: _check_counts(got[0]), label="Counts")


def _check_splits(got):
    assert set(got) == {("base", "tune"), ("base", "validation"), ("base", "test"), ("base", "train")}
    # One example per page here, so the fixed sizes are exact.
    assert [got[("base", s)] for s in ("tune", "validation", "test")] == [3, 3, 3]


def _check_counts(counts):
    assert counts["read/files"] == 2
    assert counts["dedup/duplicates_dropped"] == 23
    assert counts["dedup/passed"] == 23
    assert counts["mine/passed:forward"] + counts["mine/passed:backward"] == 46
    assert counts["read/filtered:identity_revert"] == 42


def test_bad_inputs_are_rejected_and_the_job_goes_on(tmp_path):
    good = fx.build_fixture(str(tmp_path / "good.xml"), n_pages=6)
    data = open(good.path, "rb").read()
    truncated = tmp_path / "truncated.xml.bz2"
    full = bz2.compress(data)
    truncated.write_bytes(full[: len(full) // 2])
    malformed = tmp_path / "malformed.xml"
    malformed.write_bytes(data.replace(b"</title>", b"</titel>", 3))
    missing = str(tmp_path / "missing.xml")
    with _pipeline() as p:
        out = (p | beam.Create([good.path, str(truncated), str(malformed), missing])
               | tw.MineWikiSplit(sizes=(("tune", 1), ("validation", 1), ("test", 1))))
        n = out["presplit"] | beam.combiners.Count.Globally()
        reasons = (tuple(out["rejects"]) | beam.Flatten()
                   | beam.Filter(lambda r: r.reason in ("truncated_archive", "malformed_xml", "unreadable_file"))
                   | beam.Map(lambda r: (r.reason, os.path.basename(r.source))))
        assert_that(n, equal_to([len(good.expected)]), label="GoodFileStillMined")
        assert_that(reasons, equal_to([("truncated_archive", "truncated.xml.bz2"),
                                       ("malformed_xml", "malformed.xml"),
                                       ("unreadable_file", "missing.xml")]), label="Rejects")


def test_a_revision_without_a_valid_timestamp_is_rejected_not_mined(tmp_path):
    """A split made by a revision whose timestamp is empty: issue 32 found such a record
    (`timestamp_after` empty) among the output; the revision is a `bad_timestamp` reject."""
    fixture = fx.build_fixture(str(tmp_path / "history.xml"), n_pages=6)
    xml = open(fixture.path, encoding="utf-8").read()
    # The revision that splits the woven sentence of page 2 (forward): its timestamp is blanked.
    split_at = xml.index("<comment>split long sentence</comment>")
    ts_at = xml.rindex("<timestamp>", 0, split_at)
    ts_end = xml.index("</timestamp>", ts_at) + len("</timestamp>")
    key = xml[xml.rindex("<id>", 0, ts_at) + 4:xml.index("</id>", xml.rindex("<id>", 0, ts_at))]
    page = fixture.expected[1]
    assert page["direction"] == "forward"
    with open(fixture.path, "w", encoding="utf-8") as f:
        f.write(xml[:ts_at] + "<timestamp></timestamp>" + xml[ts_end:])
    with _pipeline() as p:
        out = (p | beam.Create([fixture.path])
               | tw.MineWikiSplit(sizes=(("tune", 1), ("validation", 1), ("test", 1))))
        mined = out["presplit"] | beam.MapTuple(lambda v, s, e: _split_key(e) + (e.timestamp_after,))
        bad = (tuple(out["rejects"]) | beam.Flatten() | beam.Filter(lambda r: r.reason == "bad_timestamp")
               | beam.Map(lambda r: (r.stage, r.key, r.detail)))
        counts = (tuple(out["counts"]) | "FlattenCounts" >> beam.Flatten()
                  | beam.CombinePerKey(sum) | beam.Filter(lambda kv: "bad_timestamp" in kv[0]))
        # Every other woven split comes out, with its timestamps; that page's does not.
        kept = [k for k in fx.recoverable(fixture) if k[4] != page["page_id"]]
        assert_that(mined | "Keys" >> beam.MapTuple(lambda *k: k[:5]), equal_to(kept), label="Mined")
        assert_that(mined | "Stamps" >> beam.MapTuple(lambda *k: bool(k[5])), equal_to([True] * len(kept)),
                    label="Timestamps")
        assert_that(bad, equal_to([("read", f"{page['page_id']}:{key}", "timestamp ''")]), label="Reject")
        assert_that(counts, equal_to([("read/filtered:bad_timestamp", 1)]), label="Counted")


def test_job_end_to_end_writes_shards_that_read_back(tmp_path):
    fixture = fx.build_fixture(str(tmp_path / "enwiki-history.xml.bz2"), n_pages=20)
    out_dir = str(tmp_path / "out")
    argv = ["--input", str(tmp_path / "*.xml.bz2"), "--output", out_dir, "--tsv", "--split_size", "2",
            "--num_workers", "1", "--num_shards", "2"]
    manifest = wikisplit_job.run(argv)
    shards = sorted(glob.glob(os.path.join(out_dir, "splits", "base", "*", "*.tfrecord")))
    records = sinks.read_records(shards, SplitExample)
    got = sorted(_split_key(r) for r in records)
    # 16 recoverable pairs: which release pairs the fixture weaves depends on the shared segmenter
    # (15 before the abbreviation rules of issue 12).
    assert got == fx.recoverable(fixture) and len(got) == 16
    by_split = collections.Counter(p.split(os.sep)[-2] for p in shards for _ in sinks.iter_tfrecords(p))
    assert by_split == {"tune": 2, "validation": 2, "test": 2, "train": 10}
    # Provenance survives the round trip.
    r = min(records, key=lambda r: r.complex)
    assert r.title and r.revision_after > r.revision_before and r.timestamp_after > r.timestamp_before
    assert 0.2 <= r.bleu1 <= 1 and 0.2 <= r.bleu2 <= 1 and r.source == "wikipedia_history"
    # Release TSV rows beside the shards: complex \t simple1 <::::> simple2, tokenized.
    tsv_rows = [line.rstrip("\n").split("\t") for p in glob.glob(os.path.join(out_dir, "splits", "base", "*", "*.tsv"))
                for line in open(p, encoding="utf-8")
                if line.strip() and line.rstrip("\n") != "\t".join(SplitExample.RELEASE_COLUMNS)]
    assert sorted(tsv_rows) == sorted(r.to_row() for r in records)
    assert all(" <::::> " in row[1] for row in tsv_rows)
    with open(os.path.join(out_dir, "splits", "manifest.json"), encoding="utf-8") as f:
        on_disk = json.load(f)
    assert on_disk["job"] == "wikisplit" and on_disk["record"] == "SplitExample"
    assert on_disk["job_info"]["split_sizes"] == {"tune": 2, "validation": 2, "test": 2}
    assert on_disk["counts"]["stages"]["dedup"]["passed"] == 16
    assert on_disk["counts"]["stages"]["read"]["filtered"] == {
        "identity_revert": 14, "reverted_revision": 14, "non_article_namespace": 2}
    assert {k: v["examples"] for k, v in on_disk["counts"]["written"]["base"].items()} == by_split
    assert manifest["job"] == "wikisplit"


def test_filters_and_dedup_inside_one_history(tmp_path):
    """Splits that break a noise filter or the BLEU threshold are rejected with their reason; a
    complex sentence split twice in one page's history (split, merged back, split again) comes out once."""
    (pid, title, base), = fx.articles()[:1]
    c, s1, s2, _ = fx.weavable_pairs()[0]
    long_tok = "Pneumonoultramicroscopicsilicovolcanoconiosis"
    cases = {
        "long_token": ("The castle was built of " + long_tok + " and it burned in 1530.",
                       "The castle was built of " + long_tok + ".", "Then it burned in 1530."),
        "profanity": ("The castle was shit and it burned in 1530.", "The castle was shit.", "Then it burned in 1530."),
        "low_bleu": ("He was born in Paris in 1900 and became a famous painter of large landscapes in 1930.",
                     "He was born in a small house.", "Later he moved away and painted landscapes in 1930."),
    }
    pages = []
    for i, (reason, (cc, t1, t2)) in enumerate(sorted(cases.items())):
        pages.append(fx.Page(100 + i, f"{title} {i}", revisions=[
            (fx._insert_sentence(base, 1, cc), "a"), (fx._insert_sentence(base, 1, f"{t1} {t2}"), "b")]))
    with_c, with_s = fx._insert_sentence(base, 2, c), fx._insert_sentence(base, 2, f"{s1} {s2}")
    pages.append(fx.Page(200, title, revisions=[
        (with_c, "a"), (with_s, "split"), (with_c + "\n\nSee also.", "merge back"), (with_s + "\n\nSee also.", "split")]))
    path = fx.write_history(str(tmp_path / "filters.xml"), pages)
    with _pipeline() as p:
        out = p | beam.Create([path]) | tw.MineWikiSplit(sizes=(("tune", 1), ("validation", 0), ("test", 0)))
        mined = out["presplit"] | beam.MapTuple(lambda v, s, e: (s, e.complex, e.simple1, e.simple2, e.page_id,
                                                                 e.revision_before, e.revision_after))
        reasons = (out["rejects"][1] | beam.Map(lambda r: (r.stage, r.reason, r.payload.split("\t")[0])))
        counts = (tuple(out["counts"]) | beam.Flatten() | beam.CombinePerKey(sum)
                  | beam.Filter(lambda kv: kv[0].startswith("dedup/")))
        # Split, merge back (a backward split of the same C) and split again: three finds of one
        # complex sentence with equal BLEU; the earliest (page 200's first two revisions) is kept.
        first = 1000 + 3 * 10 + 2 * 3
        assert_that(mined, equal_to([("tune", c, s1, s2, 200, first, first + 1)]), label="OnlyTheGoodSplit")
        assert_that(reasons, equal_to([("mine", r, cases[r][0]) for r in cases]), label="FilterReasons")
        assert_that(counts, equal_to([("dedup/passed", 1), ("dedup/duplicates_dropped", 2)]), label="Dedup")


def test_bleu_threshold_follows_the_shared_options():
    import argparse
    parser = wikisplit_job.JOB.make_parser()
    args = lambda *extra: parser.parse_known_args(["--input", "x", "--output", "y", *extra])[0]  # noqa: E731
    assert wikisplit_job.miner_min_bleu(args()) == 0.2
    assert wikisplit_job.miner_min_bleu(args("--min_bleu", "0.35")) == 0.35
    assert wikisplit_job.miner_min_bleu(args("--no_bleu_filter")) == 0.0
    assert args("--split_size", "7").split_size == 7
    assert isinstance(args(), argparse.Namespace)
