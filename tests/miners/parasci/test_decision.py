"""The ParaSCI paraphrase decision: rules with their reasons, features, the committed model."""
import dataclasses
import json

import numpy as np
import pytest

from miners.parasci import decision as pd


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


def test_near_copies_and_negation_mismatches_are_rejected_with_their_reasons():
    # Pairs of real papers the independent readers judged degenerate copies (docs/PARASCI.md).
    assert pd.rule_reason("EGFR signaling is required for the survival of the Rh6 subtype.",
                          "EGFR signaling is required for the survival of these secondary precursors.") == "near_copy"
    assert pd.rule_reason("Kinesin-1 protein is able to cross-link anti-paralleled MTs in vitro.",
                          "We also provide evidence that kinesin-1 is able to cross-link anti-parallel MTs "
                          "in vitro.") == "near_copy"
    assert pd.rule_reason(
        "Furthermore, PGED-Gd@PGEAs exhibited significantly higher transfection efficiencies than PEI or the "
        "constituent units (PGED-CD-Gd and Ad-PGEA).",
        "Moreover, PGED-Gd@PGEAs exhibited significantly higher transfection efficiencies than PEI (25 kDa) and "
        "the constituent units (PGED-CD-Gd and Ad-PGEA).") == "near_copy"
    # The shorter sentence found almost whole in the longer one is a copy whatever the longer one adds: a
    # clause or a lead-in (fourth round: blind readers judged 14 of the 17 such pairs "not", e.g. these two
    # pairs of held-out PLOS papers, "near-verbatim copy with an added clause" / "... with a lead-in added").
    assert pd.rule_reason("Mutant TTP with an S197 mutation resulted in another major phosphopeptide peak being "
                          "eluted earlier than the wild-type.",
                          "Mutation at S197 resulted in another major phosphopeptide peak being eluted earlier than "
                          "the wild-type, in agreement with the finding that mutation at this site increases the "
                          "electrophoretic mobility on SDS-PAGE [CITATION].") == "near_copy"
    assert pd.rule_reason("There is an increasing need to examine regional patterns of diversity in coral-reef "
                          "systems since their biodiversity is declining globally.",
                          "Recent studies have indicated the need to examine regional patterns of diversity in coral "
                          "reef systems since their biodiversity is declining on a global scale [CITATION].") \
        == "near_copy"
    # Restated with its own words (most tokens not found in order) is no copy.
    assert pd.rule_reason("Kinesin-1 is able to cross-link anti-parallel MTs in vitro.",
                          "In vitro, anti-parallel microtubules can be bundled by kinesin-1, which explains the "
                          "minus-end-out organisation of dendritic microtubules in larval neurons.") is None
    # Opposite claims on one topic (#18); "n't" counts as a negation, in the release's tokenisation too.
    assert pd.rule_reason("This mechanism is now thought to be at the origin of the predicted inhibitory fields "
                          "in the meristem.",
                          "Conversely, this predicts that inhibitory fields in general cannot be explained only "
                          "by auxin-based mechanisms.") == "negation_mismatch"
    assert pd.is_negated(pd.tokens("the model does n't converge .")) and pd.is_negated(pd.tokens("It can't."))
    assert not pd.is_negated(pd.tokens("The note is on the knot."))
    # "not only", "or not" and a "t" that is no "n't" negate nothing.
    assert not pd.is_negated(pd.tokens("It is not only fast but also exact."), "It is not only fast but also exact.")
    assert not pd.is_negated(pd.tokens("We test whether or not it helps."), "We test whether or not it helps.")
    assert not pd.is_negated(pd.tokens("the distance between t and u"), "the distance between t and u")
    assert pd.is_negated(pd.tokens("It doesn't converge."), "It doesn't converge.")
    assert pd.rule_reason("None of the treatments improved the memory deficits of the mice.",
                          "No treatment in this trial improved the memory deficits of the mice at all.") is None
    # A prediction and its finding (#13 of the judged pairs).
    assert pd.rule_reason("The size of the local flock would be influenced by key environmental factors.",
                          "The local flock and its subgroup dynamics were influenced by environmental factors."
                          ) == "conditional_mismatch"


def test_roadmap_sentences_are_no_statements():
    for text in ("In the next section, we start by describing our symbolic representation of the literature.",
                 "In the following, we discuss these three points and their implications for DV patterning.",
                 "The remainder of this paper is organised as follows.",
                 "Some necessary preliminary work and our improved IBOWAKE protocol and AMRIBE scheme are "
                 "introduced in Section 2.",
                 # pointers inside the sentence (issue 32: they were paired with results)
                 "Then, in Sec. III, we turn to a detailed study of the phase diagram.",
                 "In Section 4 we compare our approach with the previous ones.",
                 "Finally, in the last section, we conclude.",
                 "These extensions are left to the rest of the paper.",
                 "In § 5, we derive the bound."):
        assert pd.roadmap_reason(text) == "roadmap", text
    assert pd.roadmap_reason("In section 3 of the tissue, we observed more dividing cells.") is None
    assert pd.roadmap_reason("In summary, we have shown that the phase diagram has three regions.") is None
    assert pd.roadmap_reason("In this section of the meristem, organs are initiated in a spiral.") is None
    assert pd.roadmap_reason("We describe the genetic mechanisms underlying the specification of PR subtypes.") is None
    assert pd.roadmap_reason("We present this framework as a general tool for protein design.") is None
    assert pd.roadmap_reason("Neurons of the second section 2 mm from the tip fired more.") is None


def test_clause_reason_on_the_real_parser():
    from miners.nlp.pos import load_tagger_parser
    nlp = load_tagger_parser()
    # The judge's pairs: a heading taken as a part (#24), a sentence announcing an equation (#13), a
    # participle clause (#29); a keyword line of a real paper (18980380) read as a sentence.
    heading = "Defining a new F-actin network in the immunological synapse, and its molecular regulation"
    assert pd.clause_reason(nlp(heading), part=True) == "not_a_clause"
    assert pd.clause_reason(nlp("Index Terms-Distributional robustness, Markov decision processes, parameter "
                                "uncertainty.")) == "not_a_clause"
    assert pd.clause_reason(nlp("In [CITATION] the state-wise ambiguity set is restricted to the following "
                                "form")) == "forward_reference"
    assert pd.clause_reason(nlp("The loss is defined as follows:")) == "forward_reference"
    assert pd.clause_reason(nlp("Mice were sacrificed on the following day.")) is None  # a time, no announcement
    part = "suggesting that the improvement in both memory acquisition and retention of AD mouse model was real"
    assert pd.clause_reason(nlp(part), part=True) in ("fragment", "not_a_clause")  # its root is the participle
    assert pd.clause_reason(nlp("Although development of the adult Drosophila compound eye is very well "
                                "understood"), part=True) == "fragment"
    assert pd.clause_reason(nlp("which leads to a BMP signaling gradient with peak levels at the dorsal side"),
                            part=True) == "fragment"
    assert pd.clause_reason(nlp("In order to identify the mechanisms responsible for pyruvate specificity"),
                            part=True) == "not_a_clause"
    # The finite verb of a part must be its own, not a relative clause's (#84 of the judged pairs).
    assert pd.clause_reason(nlp("as well as herbivory-induced plant volatiles (HIPVs) which convey information "
                                "about feeding herbivores [CITATION]"), part=True) == "not_a_clause"
    # Statements pass, as whole sentences and as parts; a sentence may open with a participle.
    for text in ("We show here that the larval eye is composed of 12 PRs",
                 "Using a new corpus, we trained the parser on the development set.",
                 "mikolov et al propose two log-linear models to induce word embeddings ."):
        assert pd.clause_reason(nlp(text)) is None, text
    assert pd.clause_reason(nlp("the neutral Gln in canonical enzymes binds the C3 methyl of pyruvate"),
                            part=True) is None


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
    # A restatement in a real paper (eLife 00133, abstract / discussion; 0.908 its MiniLM cosine).
    p, reason = d.decide("Here, we show that kinesin-1 is critical in generating the characteristic minus-end-out "
                         "MT organization of the dendrite in vivo.",
                         "We report a new function of kinesin-1 to promote the minus-end-out MT organization in "
                         "the dendrite.", 0.908)
    assert reason is None and p >= d.threshold
    assert d.decide("a b c d e f", "g h i j k l", d.min_cosine - 0.01)[1] == "below_similarity"


def test_an_extracted_part_is_held_to_the_partial_threshold():
    committed = pd.Decision.load()
    assert committed.threshold < committed.partial_threshold < 1
    a = "Primary precursors give rise to the Rh5 subtype of photoreceptors in the eye."
    b = "the Rh5 photoreceptor subtype arises from primary precursors"
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
