"""DiscoveryHard (miners/discovery/hard.py) on examples mined from the bundled Wikipedia sample.

tests/testdata/discovery/mined_enwiki_sample.jsonl: the 486 MarkerExamples that
miners.discovery.pairs finds in the 206-article enwiki sample without subsampling
(Wikipedia text, CC BY-SA; see tests/testdata/discovery/SOURCES.md).
"""
import collections
import dataclasses
import json
import pathlib

import pytest

from miners.discovery import hard as dh
from schemas.records import MarkerExample

DATA = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "discovery" / "mined_enwiki_sample.jsonl"
CONFIG = dh.HardConfig(bucket=10_000, train_per_marker=200)


@pytest.fixture(scope="module")
def examples():
    return [MarkerExample.from_dict(json.loads(line)) for line in DATA.read_text(encoding="utf-8").splitlines()]


def test_paper_settings_are_the_defaults():
    cfg = dh.HardConfig()
    assert (cfg.folds, cfg.top_k, cfg.epoch, cfg.dim, cfg.word_ngrams, cfg.lr) == (5, 5, 1, 100, 3, 0.5)


def test_training_is_reproducible_and_order_free(examples):
    sample = dh.training_sample(examples, 0, CONFIG)
    first = dh.train_model(sample, CONFIG)
    second = dh.train_model(list(reversed(sample)), CONFIG)
    third = dh.train_model(sample, CONFIG)
    assert first == second == third
    other_seed = dh.train_model(sample, dataclasses.replace(CONFIG, seed=1))
    assert other_seed != first


def test_training_sample_is_bounded_and_outside_the_fold(examples):
    cfg = dataclasses.replace(CONFIG, train_per_marker=3)
    sample = dh.training_sample(examples, 2, cfg)
    per_label = collections.Counter(e.label_name for e in sample)
    assert max(per_label.values()) == 3
    assert all(dh.fold_of(e, cfg.folds, cfg.seed) != 2 for e in sample)
    assert sample == dh.training_sample(list(reversed(examples)), 2, cfg)


def test_hard_filter_removes_examples_guessed_from_s2(examples):
    counts = collections.Counter()
    kept, removed = dh.hard_filter(examples, CONFIG, inc=lambda name, n=1: counts.update({name: n}))
    assert sorted(map(_key, kept + removed)) == sorted(map(_key, examples))
    assert dict(counts) == {"hard/passed": len(kept), "hard/filtered:predictable": len(removed)}
    assert removed and kept
    # Same input, same output.
    kept2, removed2 = dh.hard_filter(list(reversed(examples)), CONFIG)
    assert sorted(map(_key, kept2)) == sorted(map(_key, kept))
    # Each removed example's gold marker is in its fold model's top 5; no kept one's is.
    by_fold = collections.defaultdict(list)
    for ex in examples:
        by_fold[dh.fold_of(ex, CONFIG.folds, CONFIG.seed)].append(ex)
    removed_keys = set(map(_key, removed))
    for fold, fold_examples in by_fold.items():
        clf = dh.HardClassifier(dh.train_model(dh.training_sample(examples, fold, CONFIG), CONFIG))
        tops = clf.top_labels([e.sentence2 for e in fold_examples], 5)
        for ex, top in zip(fold_examples, tops):
            assert (ex.label_name in top) == (_key(ex) in removed_keys)
    # Frequent markers are the guessable ones: "however" (125 of 486) is removed far more often
    # than markers seen fewer than 5 times.
    rate = _removal_rate(examples, removed_keys)
    assert rate(lambda lab, n: lab == "however") > 0.5
    assert rate(lambda lab, n: n < 5) < 0.2


def test_single_fold_input_keeps_everything(examples):
    cfg = dataclasses.replace(CONFIG, folds=1)
    kept, removed = dh.hard_filter(examples[:20], cfg)
    assert (len(kept), removed) == (20, [])


def _key(ex):
    return (ex.doc_id, ex.sentence_index)


def _removal_rate(examples, removed_keys):
    label_counts = collections.Counter(e.label_name for e in examples)

    def rate(pred):
        chosen = [e for e in examples if pred(e.label_name, label_counts[e.label_name])]
        return sum(_key(e) in removed_keys for e in chosen) / len(chosen)
    return rate
