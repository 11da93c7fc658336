"""The ParaSCI paraphrase decision: rules with their reasons, features, the committed model."""
import dataclasses
import json

import numpy as np
import pytest

from miners import parasci_decision as pd


def test_rules_reject_repeats_number_only_differences_and_boilerplate():
    a = "Our model improves accuracy by 2.1% over the strongest baseline on both corpora."
    assert pd.rule_reason(a, a.lower().replace(" by", "  by")) == "near_verbatim"
    assert pd.rule_reason(a, a.replace("2.1", "3.4")) == "number_only_difference"
    long_ = ("We show that the proposed neural model for relation extraction from scientific text clearly "
             "outperforms all of the strong feature-based baselines on the two benchmark corpora.")
    assert pd.rule_reason(long_, long_.replace("clearly ", "")) == "near_verbatim"  # one word of 28 dropped
    assert pd.rule_reason("This work was funded by the National Science Foundation under grant 1234.",
                          "The study was supported by grant 42 from the European Research Council.") == "boilerplate"
    assert pd.boilerplate_reason("This article is distributed under the terms of the Creative Commons "
                                 "Attribution License.") == "boilerplate"
    # Real sentences of the shared papers (10042064, eLife 04493) that are no boilerplate.
    assert pd.boilerplate_reason("Thus, in contrast to the case in which firms export only, a conflict of interest "
                                 "between the MNE and the host country government would normally arise.") is None
    assert pd.boilerplate_reason("This idea is supported by a projection neuron hemilineage from the lateral "
                                 "antennal lobe (lAL) NB.") is None
    assert pd.boilerplate_reason("The authors declare no conflict of interest.") == "boilerplate"
    assert pd.boilerplate_reason("This work was supported by the project PID2019 of the ministry.") == "boilerplate"
    assert pd.rule_reason("We propose a neural model for relation extraction from scientific text.",
                          "A neural relation extraction model for scientific text is proposed here.") is None


def test_features_are_case_and_tokenisation_insensitive_and_symmetric():
    paper = "We propose BLEU-based re-ranking [CITATION], which improves translation (by 2 points)."
    release = "we propose bleu-based re-ranking , which improves translation ( by 2 points ) ."
    f = pd.features(paper, release, 0.9)
    assert f["content_jaccard"] == 1.0 and f["bigram_dice"] == 1.0 and f["length_ratio"] == 1.0
    g = pd.features("the cat sat on the mat in 2019", "a dog slept on the mat in 2020", 0.5)
    assert g == pd.features("a dog slept on the mat in 2020", "the cat sat on the mat in 2019", 0.5)
    assert g["numbers_disagree"] == 1.0
    assert g["content_jaccard"] == pytest.approx(1 / 5)  # {cat, sat, mat} vs {dog, slept, mat}


def test_stem_unmatched_counts_new_content_of_the_side_that_adds_less():
    # Word forms change in a restatement: "trained" / "training", "embeddings" / "embedding" are one stem.
    f = pd.features("We trained word embeddings on the news corpus.",
                    "Word embedding training was done on a news corpus.", 0.8)
    assert f["stem_unmatched"] == 0.0
    # Same topic, another statement: each side adds its own content; the first adds {train, corpu},
    # the second {captu, synta, seman, regul}: 2 on the side adding less.
    g = pd.features("We trained word embeddings on the news corpus.",
                    "Word embeddings capture syntactic and semantic regularities of news.", 0.7)
    assert g["stem_unmatched"] == pytest.approx(0.2)


def test_committed_model_keeps_a_restatement_and_rejects_a_same_topic_sentence():
    d = pd.Decision.load()
    # From the issue: same topic, different statements (0.62: the bundled MiniLM's cosine of this pair).
    p, reason = d.decide("These results suggest that environmental factors have significant effects on "
                         "fission-fusion dynamics in this population.",
                         "The aim of our study was to examine key aspects of fission-fusion dynamics in "
                         "wild birds.", 0.62)
    assert reason == "not_paraphrase" and p < d.threshold
    p, reason = d.decide("We found that EGFR signaling is required for the survival of the Rh6 subtype.",
                         "EGFR signaling is thus required for the survival of photoreceptors of the Rh6 "
                         "subtype.", 0.93)
    assert reason is None and p >= d.threshold
    assert d.decide("a b c d e f", "g h i j k l", d.min_cosine - 0.01)[1] == "below_similarity"


def test_an_extracted_part_is_held_to_the_partial_threshold():
    committed = pd.Decision.load()
    assert committed.threshold < committed.partial_threshold < 1
    a = "Primary precursors give rise to the Rh5 subtype of photoreceptors in the eye."
    b = "primary precursors which give rise to photoreceptors of the Rh5 subtype"
    p, _ = committed.decide(a, b, 0.80)
    # Bars just below and just above this pair's probability: a whole pair passes, the same text as
    # an extracted part does not; a partial bar under the whole-pair bar does not lower it.
    d = dataclasses.replace(committed, threshold=p - 1e-6, partial_threshold=p + 1e-6)
    assert d.decide(a, b, 0.80) == (p, None)
    assert d.decide(a, b, 0.80, partial=True) == (p, "not_paraphrase")
    low = dataclasses.replace(committed, threshold=p + 1e-6, partial_threshold=0.0)
    assert low.decide(a, b, 0.80, partial=True) == (p, "not_paraphrase")


def test_model_file_names_known_features_and_a_threshold_in_range(tmp_path):
    d = pd.Decision.load()
    assert 0.5 <= d.threshold < 1 and len(d.weights) == len(d.feature_names)
    assert set(d.feature_names) <= set(pd.FEATURES)
    with open(pd.DEFAULT_MODEL, encoding="utf-8") as f:
        raw = json.load(f)
    bad = dict(raw, features=raw["features"] + ["made_up"], coefficients=dict(raw["coefficients"], made_up=1.0))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="made_up"):
        pd.Decision.load(str(path))
    assert pd.Decision.load().with_threshold(0.2).threshold == 0.2


def test_fit_logistic_recovers_a_separating_direction():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] - 0.5 * x[:, 1] > 0).astype(float)
    w, b = pd.fit_logistic(x, y, l2=0.1)
    assert w[0] > 0 > w[1] and abs(w[0] / w[1] + 2) < 0.5 and abs(b) < 1
    p = 1 / (1 + np.exp(-(x @ w + b)))
    assert np.mean((p > 0.5) == (y == 1)) > 0.97
