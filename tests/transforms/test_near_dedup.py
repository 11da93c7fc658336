"""ExactDedup, NearDedup and ConnectedComponents on the in-process runner, on real sentences."""
import itertools
import pathlib

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

from conftest import in_process_pipeline
from miners.quality import dedup as dd
from schemas.records import SplitExample
from transforms.dedup import ConnectedComponents, ExactDedup, NearDedup

TUNE = pathlib.Path(__file__).resolve().parents[1] / "testdata" / "wikisplit" / "tune.tsv"


def _distinct_long(n, min_words=25):
    """n real WikiSplit examples with long, mutually dissimilar complex sentences."""
    out, sets = [], []
    with open(TUNE, encoding="utf-8") as f:
        for line in itertools.islice(f, 600):
            rec = SplitExample.from_row(line.rstrip("\n").split("\t"))
            sh = set(dd.shingles(rec.complex))
            if len(rec.complex.split()) >= min_words and all(len(sh & o) / len(sh | o) < 0.5 for o in sets):
                out.append(rec)
                sets.append(sh)
            if len(out) == n:
                return out
    raise AssertionError("not enough sentences")


def _reasons(rejects):
    return rejects | beam.Map(lambda r: r.reason)


def test_exact_dedup_keeps_one_per_normalised_key_and_names_it():
    recs = _distinct_long(8)
    # Same sentence re-spaced and re-cased (release tokenization vs running text), page ids differ.
    dupes = [SplitExample(complex=r.complex.upper().replace(",", " , "), simple1=r.simple1, simple2=r.simple2,
                          page_id=7) for r in recs[:3]]
    inputs = [("base", r) for r in recs + dupes] + [("big", recs[0])]  # other variant: not a duplicate
    # The representative is the smallest record by sort_key() (its JSON): deterministic on every runner.
    kept = [min(a, b, key=lambda r: r.sort_key()) for a, b in zip(recs[:3], dupes)]
    dropped = [max(a, b, key=lambda r: r.sort_key()) for a, b in zip(recs[:3], dupes)]
    with in_process_pipeline() as p:
        out = p | beam.Create(inputs) | ExactDedup("splits", ("complex",))
        assert_that(out["examples"], equal_to([("base", r) for r in kept + recs[3:]] + [("big", recs[0])]),
                    label="kept")
        assert_that(out["rejects"] | beam.Map(lambda r: (r.reason, r.source, r.payload, r.detail)),
                    equal_to([("duplicate_exact", "base", d.to_json(), f"kept: {k.complex}"[:500])
                              for k, d in zip(kept, dropped)]), label="rejects")
        assert_that(out["counts"] | beam.CombinePerKey(sum),
                    equal_to([("exact_dedup/passed", 9), ("exact_dedup/filtered:duplicate_exact", 3)]),
                    label="counts")


@pytest.mark.parametrize("partitions,flush_entries", [
    (None, None),  # the defaults: 1,024 partitions, batches flushed at the end of the bundle
    (1, 1),        # one partition; every band entry flushed from process() on its own
    (5, 30),       # a few partitions, flushed every 3 examples
])
def test_near_dedup_removes_perturbed_real_sentences_and_keeps_distinct_ones(partitions, flush_entries):
    """Same kept examples, rejects and counts however the band entries are partitioned and batched."""
    kwargs = {k: v for k, v in (("partitions", partitions), ("flush_entries", flush_entries)) if v is not None}
    recs = _distinct_long(40)
    # Real sentences, perturbed: a word appended, or the last word changed (Jaccard >= 0.85).
    perturbed = [SplitExample(complex=r.complex.rstrip(" .") + " as well.", simple1=r.simple1, simple2=r.simple2,
                              page_id=1000 + i) for i, r in enumerate(recs[:10])]
    perturbed += [SplitExample(complex=" ".join(r.complex.split()[:-1] + ["indeed."]), simple1=r.simple1,
                               simple2=r.simple2, page_id=2000 + i) for i, r in enumerate(recs[10:15])]
    pairs = list(zip(recs[:15], perturbed))
    for a, b in pairs:
        sa, sb = set(dd.shingles(a.complex)), set(dd.shingles(b.complex))
        assert len(sa & sb) / len(sa | sb) >= 0.85
    ids = {r: dd.exact_key(r, ("complex",), "base") for r in recs + perturbed}
    expected_kept = list(recs[15:])
    expected_rejects = []
    for a, b in pairs:  # the representative is the smaller id; the other is dropped into it
        keep, drop = (a, b) if ids[a] < ids[b] else (b, a)
        expected_kept.append(keep)
        expected_rejects.append(("duplicate_near", ids[drop], f"merged into {ids[keep]}: {keep.complex}"[:200]))
    with in_process_pipeline() as p:
        out = p | beam.Create([("base", r) for r in recs + perturbed]) | NearDedup("splits", ("complex",), **kwargs)
        assert_that(out["examples"], equal_to([("base", r) for r in expected_kept]), label="kept")
        assert_that(out["rejects"] | beam.Map(lambda r: (r.reason, r.key, r.detail[:200])),
                    equal_to(expected_rejects), label="rejects")
        assert_that(out["counts"] | beam.CombinePerKey(sum),
                    equal_to([("near_dedup/signatures", 55), ("near_dedup/passed", 40),
                              ("near_dedup/filtered:duplicate_near", 15)]), label="counts")


def test_near_dedup_is_per_variant_and_skips_wordless_text():
    recs = _distinct_long(3)
    inputs = [("base", recs[0]), ("big", recs[0]), ("base", recs[1]),
              ("base", SplitExample(complex=" ... ", simple1="a", simple2="b"))]
    with in_process_pipeline() as p:
        out = p | beam.Create(inputs) | NearDedup("splits", ("complex",))
        assert_that(out["examples"], equal_to(inputs), label="kept")
        assert_that(out["rejects"], equal_to([]), label="rejects")


def test_connected_components_match_union_find():
    chain = [(f"n{i:02d}", f"n{i + 1:02d}") for i in range(12)]
    star = [("s00", f"s{i:02d}") for i in range(1, 6)]
    pair = [("z1", "z2")]
    edges = chain + star + pair
    expected = [(v, root) for v, root in dd.components(edges).items() if v != root]
    with in_process_pipeline() as p:
        got = p | beam.Create(edges) | ConnectedComponents(rounds=4)
        assert_that(got, equal_to(expected))


def test_near_dedup_rejects_bad_partition_count():
    with pytest.raises(ValueError, match="partitions must be >= 1"):
        NearDedup("splits", ("complex",), partitions=0)


def test_a_single_sentence_example_is_no_copy_of_a_pair_that_starts_with_its_sentence():
    # issue 52: a SINGLE_S_COORD example was dropped as a near copy of a PAIR_CONN example, only because
    # the pair's first sentence was the single example's sentence (the key fields: both coherent sentences)
    from schemas.records import DiscourseType, FusionExample
    first = ("Le club a remporté le championnat régional en 1998 , et ses joueurs ont ensuite rejoint la "
             "première division nationale après une longue saison de matches difficiles .")
    single = FusionExample(coherent_first_sentence=first, coherent_second_sentence="",
                           incoherent_first_sentence="Le club a remporté le championnat régional en 1998 .",
                           incoherent_second_sentence="Ses joueurs ont ensuite rejoint la première division .",
                           discourse_type=DiscourseType.SINGLE_S_COORD, connective_string="et")
    pair = FusionExample(coherent_first_sentence=first, coherent_second_sentence="Cependant , il a perdu .",
                         incoherent_first_sentence=first, incoherent_second_sentence="Il a perdu .",
                         discourse_type=DiscourseType.PAIR_CONN, connective_string="cependant")
    fields = ("coherent_first_sentence", "coherent_second_sentence")
    a, b = set(dd.shingles(dd.key_text(single, fields))), set(dd.shingles(dd.key_text(pair, fields)))
    assert len(a & b) / len(a | b) >= 0.85  # one text with the other's first sentence: near copies by Jaccard
    assert dd.key_shape(single, fields) != dd.key_shape(pair, fields) and dd.key_shape(pair, fields) is None
    with in_process_pipeline() as p:
        out = p | beam.Create([("full", single), ("full", pair)]) | NearDedup("fusion", fields)
        assert_that(out["examples"], equal_to([("full", single), ("full", pair)]), label="kept")
        assert_that(out["rejects"], equal_to([]), label="rejects")
