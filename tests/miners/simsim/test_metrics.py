"""The five operation metrics (miners/simsim/metrics.py) on hand-checked real pairs.

Parses with the bundled spaCy model (en_core_web_sm); BERTScore with the bundled MiniLM in
one test only: every other call passes `alignments`, which must keep BERTScore unloaded.
"""
import itertools

import pytest

from miners.simsim import pair_files
from miners.simsim import ppdb
from miners.simsim import metrics as sm
from tests.conftest import SHARED_DATA
from tests.ppdb_fixtures import write_rules

TUNE = SHARED_DATA / "wikisplit" / "tune.tsv"

PP_DROPPED = ("The committee approved the new budget in a closed session on Monday.",
              "The committee approved the new budget on Monday.")
PASSIVE_TO_ACTIVE = ("The bridge was built by the Romans.", "The Romans built the bridge.")
CLAUSE_FRONTED = ("After the war ended, he returned to Paris.", "He returned to Paris after the war ended.")
RELATIVE_SPLIT = ("The bridge, which was built by the Romans, still stands.",
                  "The bridge still stands. It was built by the Romans.")
SUBSTITUTED = ("Approximately 30 villages were destroyed and a large number of residents had to utilize "
               "temporary shelters.",
               "About 30 villages were destroyed. Many residents had to use temporary shelters.")


def metrics(pairs, **kw):
    return sm.compute_metrics(pairs, annotator=sm.metrics_annotator(), alignments=[0.5] * len(pairs), **kw)


def test_dropping_of_a_deleted_prepositional_phrase():
    m, = metrics([PP_DROPPED])
    # 12 non-punctuation lemmas; "in a closed session" (4) is gone
    assert m.dropping == pytest.approx(4 / 12)
    assert m.splitting is False and (m.complex_sentences, m.simple_sentences) == (1, 1)
    # the relations of the PP went with it: 8 of the 12 relations survive, none is new
    assert m.reordering == pytest.approx(8 / 12)


def test_dropping_counts_lemmas_as_a_multiset():
    assert sm.dropping(["the", "cat", "see", "the", "dog"], ["the", "cat", "see", "dog"]) == pytest.approx(1 / 5)
    assert sm.dropping(["a", "b"], ["b", "a"]) == 0.0  # moved, not dropped
    assert sm.dropping([], ["a"]) == 0.0


def test_reordering_is_one_for_identical_and_lower_after_restructuring():
    same, passive, fronted = metrics([(PASSIVE_TO_ACTIVE[0], PASSIVE_TO_ACTIVE[0]), PASSIVE_TO_ACTIVE, CLAUSE_FRONTED])
    assert same.reordering == 1.0 and same.dropping == 0.0
    # passive -> active: the sets share root(build), det(bridge, the), det(romans, the): 3 of 7 + 5 - 3
    assert passive.reordering == pytest.approx(3 / 9)
    assert passive.dropping == pytest.approx(2 / 7)  # "was" and "by"
    # a set of relations has no word order: moving a whole clause keeps every relation (Xu et al.'s
    # measure sees restructuring, not position)
    assert fronted.reordering == 1.0 and fronted.dropping == 0.0
    sents = sm.parse_sides(sm.metrics_annotator(), [PASSIVE_TO_ACTIVE])[0]
    active = sm.relations([p for group in sents[1] for p in group])
    assert active == {("<root>", "root", "build"), ("build", "nsubj", "romans"), ("build", "obj", "bridge"),
                      ("bridge", "det", "the"), ("romans", "det", "the")}
    assert sm.jaccard(set(), set()) == 1.0


def test_splitting_of_a_relative_clause_and_of_wikisplit():
    m, = metrics([RELATIVE_SPLIT])
    assert m.splitting is True and (m.complex_sentences, m.simple_sentences) == (1, 2)
    assert m.dropping == pytest.approx(1 / 10)  # "which" (the subject "it" is new, not a drop)
    pairs = list(itertools.islice(pair_files.read_pairs(str(TUNE)), 200))
    assert len(pairs) == 200
    result = metrics(pairs)
    share = sum(m.splitting for m in result) / len(result)
    assert share > 0.9  # WikiSplit pairs are splits by construction
    singles = metrics([(c, c) for c, _ in pairs[:50]] + [PP_DROPPED, PASSIVE_TO_ACTIVE])
    assert not any(m.splitting for m in singles)
    assert all(m.dropping == 0.0 and m.reordering == 1.0 for m in singles[:50])


def test_substitution_with_ppdb_rules_and_none_without(tmp_path):
    rules = ppdb.load_rules(write_rules(tmp_path / "ppdb-2.0-s-lexical"))
    with_ppdb, plain = metrics([SUBSTITUTED], ppdb=rules)[0], metrics([SUBSTITUTED])[0]
    # simple side: 12 tokens, 3 produced by rules (approximately -> about, a large number of -> many,
    # utilize -> use); had to -> must does not count ("had to" stayed), nor large -> big (no "big")
    assert with_ppdb.substitution == pytest.approx(3 / 12)
    assert with_ppdb.splitting is True
    assert plain.substitution is None
    assert plain.record_fields()["has_substitution_metric"] is False
    assert with_ppdb.record_fields()["substitution"] == pytest.approx(0.25)
    # "in order to -> to": the "to" inside the phrase is not a "to" the complex side already had
    phrasal, = metrics([("They left early in order to catch the train.", "They left early to catch the train.")],
                       ppdb=rules)
    assert phrasal.substitution == pytest.approx(1 / 7) and phrasal.dropping == pytest.approx(2 / 9)
    # an unchanged sentence has nothing substituted, though rules fit it
    same, = metrics([(SUBSTITUTED[0], SUBSTITUTED[0])], ppdb=rules)
    assert same.substitution == 0.0


def test_alignments_given_keep_bertscore_unloaded_and_must_match():
    sm._DEFAULTS.pop("bertscorer", None)
    m, = sm.compute_metrics([PP_DROPPED], annotator=sm.metrics_annotator(), alignments=[0.875])
    assert m.alignment == 0.875
    assert "bertscorer" not in sm._DEFAULTS
    with pytest.raises(ValueError, match="2 alignments for 1 pairs"):
        sm.compute_metrics([PP_DROPPED], annotator=sm.metrics_annotator(), alignments=[0.1, 0.2])


def test_alignment_is_bertscore():
    from miners.quality.scoring import BertScorer
    same, dropped, unrelated, empty = sm.compute_metrics(
        [(PP_DROPPED[0], PP_DROPPED[0]), PP_DROPPED, (PP_DROPPED[0], "Penguins cannot fly but swim well."),
         (PP_DROPPED[0], "")], bertscorer=BertScorer(), annotator=sm.metrics_annotator())
    assert same.alignment == pytest.approx(1.0, abs=1e-4)
    assert 0.8 < dropped.alignment < 1.0
    assert unrelated.alignment < dropped.alignment - 0.2
    assert empty.alignment == 0.0 and empty.dropping == 1.0


def test_summary_and_histogram():
    ms = [sm.OperationMetrics(0.9, None, 0.0, 1.0, True, 1, 2), sm.OperationMetrics(0.7, None, 0.5, 0.5, False),
          sm.OperationMetrics(1.0, None, 1.0, 0.25, True, 1, 2), sm.OperationMetrics(0.8, None, 0.25, 0.0, True, 1, 3)]
    s = sm.summarize(ms)
    assert s["pairs"] == 4 and s["split_share"] == 0.75
    assert s["metrics"]["splitting"] == {"count": 4, "splits": 3, "share": 0.75}
    assert "substitution" not in s["metrics"]
    d = s["metrics"]["dropping"]
    assert (d["mean"], d["median"], d["min"], d["max"]) == (0.4375, 0.375, 0.0, 1.0)
    assert d["histogram"]["counts"][0] == 1 and d["histogram"]["counts"][-1] == 1  # 1.0 falls in the last bin
    assert sum(d["histogram"]["counts"]) == 4 and len(d["histogram"]["edges"]) == sm.HISTOGRAM_BINS + 1
    assert d["quantiles"]["0.25"] == 0.1875
    assert sm.summarize([])["pairs"] == 0


def test_parse_cache_gives_the_same_metrics_and_parses_each_text_once_across_batches():
    annotator = sm.metrics_annotator()
    complex_ = "The bridge, which was built in 1890 by the city, was closed in 1990 after a long debate."
    candidates = ["The bridge was built in 1890 by the city. It was closed in 1990 after a long debate.",
                  "The bridge was closed in 1990.",
                  "The city built the bridge in 1890, and it was closed in 1990 after a debate."]
    plain = sm.compute_metrics([(complex_, c) for c in candidates], annotator=annotator,
                               alignments=[0.9] * len(candidates))
    cache = sm.ParseCache(size=100)
    cached = [m for c in candidates  # one batch per record, as a worker sees them spread over batches
              for m in sm.compute_metrics([(complex_, c)], annotator=annotator, alignments=[0.9], parse_cache=cache)]
    assert cached == plain
    # The complex side's sentence is parsed once, then found in the cache by the two later batches.
    assert cache.hits == 2
    assert cache.misses == 1 + sum(len(sm.segment(c)[0]) for c in candidates)


def test_parse_cache_drops_the_least_recently_used_text_first():
    cache = sm.ParseCache(size=2)
    cache.put("a", ["A"])
    cache.put("b", ["B"])
    assert cache.get("a") == ["A"]  # "a" is now the most recent
    cache.put("c", ["C"])
    assert cache.get("b") is None and cache.get("a") == ["A"] and cache.get("c") == ["C"]


def test_substitution_is_measured_with_wordnet_synonyms_without_ppdb():
    import os
    import pytest
    from miners.simsim import wordnet
    if not os.path.isfile(os.path.join(wordnet.WORDNET_DIR, "index.noun")):
        pytest.skip("Debian's wordnet-base is not installed")
    from miners.simsim.metrics import compute_metrics, metrics_annotator
    pairs = [("The physicians purchased the automobiles.", "The doctors bought the cars."),
             ("The physicians purchased the automobiles.", "The physicians purchased the automobiles."),
             ("The physicians purchased the automobiles.", "The nurses sold the automobiles.")]
    m = compute_metrics(pairs, annotator=metrics_annotator(), ppdb=wordnet.SynonymRules(), alignments=[1.0] * 3)
    assert m[0].substitution == pytest.approx(3 / 5)  # doctors, bought, cars of 5 words
    assert m[1].substitution == 0.0 and m[2].substitution == 0.0  # no change; changes that are no synonyms
