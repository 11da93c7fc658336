"""transforms.common: DeterministicBatches."""
import random

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from conftest import in_process_pipeline
from transforms.common import DeterministicBatches


def _batches(elements, batch_size, per_bucket):
    with in_process_pipeline() as p:
        out = (p | beam.Create(elements)
               | DeterministicBatches(str, batch_size, batches_per_bucket=per_bucket)
               | beam.Map(tuple))
        # Sorted list of batches: one element, so the whole make-up is compared at once.
        assert_that(out | beam.combiners.ToList() | beam.Map(sorted), equal_to([EXPECTED[(batch_size, per_bucket)]]))


EXPECTED = {}


def _expected(elements, batch_size, per_bucket):
    from transforms.common import _bucket_of, _sorted_batches
    buckets = {}
    for e in elements:
        b, _ = _bucket_of(e, len(elements), str, batch_size, per_bucket, "batches")
        buckets.setdefault(b, []).append(e)
    return sorted(tuple(batch) for b in buckets.items() for batch in _sorted_batches(b, str, batch_size))


def test_batches_are_the_same_whatever_the_input_order():
    words = [f"w{i:04d}" for i in range(500)]
    for batch_size, per_bucket in ((7, 3), (64, 16)):
        EXPECTED[(batch_size, per_bucket)] = _expected(words, batch_size, per_bucket)
        for seed in (1, 2):
            shuffled = list(words)
            random.Random(seed).shuffle(shuffled)
            _batches(shuffled, batch_size, per_bucket)
    small = EXPECTED[(7, 3)]
    # 500 elements, 21 per bucket: 24 buckets, each cut into sorted batches of at most 7.
    assert sum(len(b) for b in small) == 500 and max(len(b) for b in small) == 7
    assert all(list(b) == sorted(b) for b in small)
    assert len(small) >= 500 // 7 + 1 and len(small) < 500 // 7 + 25
    assert len(EXPECTED[(64, 16)]) == 8  # one bucket: 7 full batches and the rest


def test_empty_input_gives_no_batch():
    with in_process_pipeline() as p:
        out = p | beam.Create([]) | DeterministicBatches(str, 4)
        assert_that(out, equal_to([]))
