"""The SimSim DoFns on their own, on real engines (BERTScore's MiniLM, CMU's trigram model, spaCy),
through Beam's direct runner: intake bounds, selection, simulated edits, alignment, failures."""
import dataclasses
import os

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline

from miners.simsim import agreement
from miners.simsim import simulate as simsim
from schemas.records import SentencePair, SimplificationExample
from transforms import simsim as st
from transforms.common import COUNTS, REJECTS

COMPLEX = ("The band, which had formed in Manchester two years earlier, released their first album in 1995, "
           "and it quickly became a commercial success.")
SIMPLE = "The band released their first album in 1995, and it quickly became a commercial success."


_GOT = {}  # the in-process runner calls the module's own function: outputs land here


def _collect(x, tag):
    _GOT.setdefault(tag, []).append(x)


def _run(elements, fn, tags=("main",)):
    """Outputs of `fn` on `elements` (one bundle), per tag ("main": the untagged ones), and the counts summed."""
    _GOT.clear()
    tagged = tuple(t for t in tags if t != "main")
    with TestPipeline(runner="DirectRunner") as p:
        out = (p | beam.Create([elements]) | beam.ParDo(fn).with_outputs(REJECTS, COUNTS, *tagged, main="main"))
        for tag in ("main",) + tagged + (REJECTS, COUNTS):
            _ = out[tag] | f"Collect{tag}" >> beam.Map(_collect, tag)
    got = dict(_GOT)
    counts = {}
    for name, n in got.get(COUNTS, []):
        counts[name] = counts.get(name, 0) + n
    return got, counts


def test_pair_seeds_bound_every_side_before_bertscore_and_keep_the_good_pairs():
    pairs = [
        SentencePair(id="p:1", s1=COMPLEX, s2=SIMPLE, path="f.tsv"),
        SentencePair(id="p:2", s1=" ".join(["alpha"] * 400000), s2="A short simple side here.", path="f.tsv"),
        SentencePair(id="p:3", s1=COMPLEX, s2="Short.", path="f.tsv"),
        SentencePair(id="and a third column", s1=COMPLEX, s2=SIMPLE, path="f.tsv"),
        SentencePair(id="p:5", s1="The river rises in the mountains and flows to the sea through many towns.",
                     s2="My favourite food is a plate of hot noodles with fresh vegetables.", path="f.tsv"),
        SentencePair(id="p:6", s1="He was born in Paris and he died in Rome in 1990 .",
                     s2="He was born in Paris . <::::> He died in Rome in 1990 .", path="f.tsv"),
    ]
    got, counts = _run(pairs, st.PairSeedsFn(st.Params()), tags=("main",))
    seeds = {s.id: s for s in got["main"]}
    assert seeds["p:1"].kind == "pair" and seeds["p:1"].base == SIMPLE
    assert seeds["p:5"].kind == "pair_misaligned" and seeds["p:5"].base == seeds["p:5"].complex
    assert seeds["p:6"].kind == "wikisplit" and seeds["p:6"].base == "He was born in Paris. He died in Rome in 1990."
    assert counts["seeds/filtered:too_many_chars"] == 1
    assert counts["seeds/filtered:too_short"] == 1
    assert counts["seeds/filtered:wrong_column_count"] == 1
    reasons = sorted(r.reason for r in got[REJECTS])
    assert reasons == ["misaligned_simple_side", "too_many_chars", "too_short", "wrong_column_count"]
    assert all(len(r.payload) < 5000 for r in got[REJECTS])  # the 2.4 MB line is not copied whole


def test_select_writes_s1_per_changed_candidate_and_s2_never_equal_to_the_complex_side():
    seed = simsim.pair_seed("p:1", COMPLEX, SIMPLE, 0.9)
    cands = {"es": COMPLEX.lower(),  # a back-translation that restores the complex side
             "ca": "The band released its first album in 1995, and it soon became a commercial success.",
             "gl": SIMPLE}  # unchanged
    got, counts = _run([(seed, cands)], st.SelectFn(st.Params()), tags=("s1", "s2", st.SIMULATE))
    assert [r.pivot for r in got["s1"]] == ["ca"]
    assert counts["select/skipped:unchanged:es"] == 1 and counts["select/skipped:unchanged:gl"] == 1
    for r in got.get("s2", []):
        assert simsim.normalise(r.simple) != simsim.normalise(COMPLEX)
        assert r.simple_nll <= r.base_nll + 1e-9  # never less natural than the text the steps ran on
    assert len(got.get("s2", [])) + counts.get("select/filtered:less_natural_than_seed", 0) == 1


def _s2_record(simple):
    return SimplificationExample(complex=COMPLEX, simple=simple, method="lm_selected:es", pivot="es",
                                 seed_kind="text", operations=("back_translation",), doc_id="d",
                                 base_nll=5.0, simple_nll=1.0)


DROPPABLE = ("In 1995, the band from Manchester quickly released their first album with a small label "
             "in the north of England.")
# prepositional phrases, no longer dropped by default since issue 51 (`--drop_relations obl,nmod`)
PREPOSITIONAL = st.Params(drop_relations=("obl", "nmod"))


def test_simulate_scores_what_it_writes_and_max_drops_zero_drops_nothing():
    from miners.simsim.lm import make_language_model
    lm = make_language_model("default").load()
    got, counts = _run([_s2_record(DROPPABLE)], st.SimulateFn(PREPOSITIONAL), tags=("main",))
    (r,) = got["main"]
    assert "dropping" in r.operations and r.simple != DROPPABLE
    assert r.simple_nll == pytest.approx(lm.mean_nll([r.simple])[0])  # not s2's 1.0
    got, counts = _run([_s2_record(DROPPABLE)], st.SimulateFn(st.Params(max_drops=0, require_operation=False)),
                       tags=("main",))
    (r,) = got["main"]
    assert "dropping" not in r.operations and r.simple == DROPPABLE
    assert "simulate/dropped_phrases" not in counts
    # by default a record no operation changed is no s3 record: it would be s2 again (issue 51)
    got, counts = _run([_s2_record(DROPPABLE)], st.SimulateFn(st.Params(max_drops=0, simulated_split=False)),
                       tags=("main",))
    assert "main" not in got and [r.reason for r in got[REJECTS]] == ["no_simulated_operation"]
    assert counts["simulate/filtered:no_simulated_operation"] == 1


def test_simulate_counts_each_drop_it_refuses_by_reason():
    # Round 5 of the blind reading, item 83 (read broken): "returned to Switzerland without the child, whose
    # real name and fate is unknown" lost "without the child", so "whose" named Switzerland (issue 42).
    text = "Marić returned to Switzerland without the child, whose real name and fate is unknown."
    got, counts = _run([_s2_record(text)], st.SimulateFn(dataclasses.replace(PREPOSITIONAL, require_operation=False)),
                       tags=("main",))
    (r,) = got["main"]
    assert "without the child" in r.simple and counts["simulate/drop:antecedent"] >= 1
    assert all(name.split(":", 1)[1] in simsim.DROP_CHECKS for name in counts if name.startswith("simulate/drop:"))
    got, counts = _run([_s2_record(text)], st.SimulateFn(dataclasses.replace(PREPOSITIONAL, drop_checks=(),
                                                                             require_operation=False)),
                       tags=("main",))
    (r,) = got["main"]
    assert "dropping" in r.operations and "without the child" not in r.simple  # the old step: nothing refused it
    assert not any(name.startswith("simulate/drop:") for name in counts)


def test_drop_budget():
    assert st.drop_budget(0, 1) == 0 and st.drop_budget(0, 3) == 0
    assert st.drop_budget(2, 1) == 2 and st.drop_budget(2, 2) == 1 and st.drop_budget(1, 3) == 1


def test_alignment_scores_s2_in_full_and_s1_for_a_sample():
    recs = [("s2", _s2_record(SIMPLE)), ("s2", _s2_record("My favourite food is a plate of hot noodles."))]
    recs += [("s1", dataclasses.replace(_s2_record(f"{SIMPLE[:-1]} number {i}."), method="back_translation:es"))
             for i in range(40)]
    fn = st.AlignmentFn(st.Params(s1_alignment_sample=0.25), min_score=0.5)
    got, counts = _run(recs, fn, tags=("main",))
    kept = got["main"]
    s2 = [r for v, r in kept if v == "s2"]
    assert len(s2) == 1 and s2[0].has_alignment and s2[0].alignment > 0.5
    assert counts["bertscore/filtered:bertscore_too_low"] == 1  # the noodles
    s1 = [r for v, r in kept if v == "s1"]
    scored = [r for r in s1 if r.has_alignment]
    assert len(s1) == 40 and 0 < len(scored) < 40  # a sample, deterministic (a hash of the record)
    assert all(r.alignment == 0.0 for r in s1 if not r.has_alignment)
    assert counts["bertscore/unscored:s1_not_in_sample"] == 40 - len(scored)


def test_metrics_measure_s2_in_full_and_s1_on_the_alignment_sample():
    recs = [("s2", _s2_record(SIMPLE))]
    recs += [("s1", dataclasses.replace(_s2_record(f"{SIMPLE[:-1]} number {i}."), method="back_translation:es"))
             for i in range(40)]
    fn = st.OperationMetricsFn(st.Params(s1_metrics_sample=0.25))
    got, counts = _run(recs, fn)
    kept = got["main"]
    assert len(kept) == 41
    s2 = [r for v, r in kept if v == "s2"]
    assert s2[0].has_operation_metrics and s2[0].dropping > 0.0  # the relative clause is gone
    s1 = [r for v, r in kept if v == "s1"]
    measured = [r for r in s1 if r.has_operation_metrics]
    assert 0 < len(measured) < 40
    assert counts["metrics/unmeasured:s1_not_in_sample"] == 40 - len(measured)
    # the same records as the alignment sample of that rate: those carry all five metrics
    assert {r.simple for r in measured} == {r.simple for _, r in recs[1:] if st.in_s1_sample("s1", r, 0.25)}
    # the splitting shares count the measured records only
    unmeasured = next(("s1", r) for r in s1 if not r.has_operation_metrics)
    assert list(st.split_share_counts(unmeasured)) == []
    assert list(st.split_share_counts(("s1", measured[0])))[0] == ("_stats/splitting/s1:pairs", 1)
    everything, _ = _run(recs, st.OperationMetricsFn(st.Params()))
    assert all(r.has_operation_metrics for _, r in everything["main"])


def test_a_failing_engine_costs_only_its_element():
    def engine(items):
        if any("boom" in x for x in items):
            raise ValueError("[E088] Text of length 2399197 exceeds maximum of 1000000")
        return [len(x) for x in items]
    out = st.guarded_calls(engine, ["a", "boom", "ccc"])
    assert out[0] == (1, None) and out[2] == (3, None)
    assert out[1][0] is None and "E088" in str(out[1][1])


def test_select_never_takes_a_candidate_without_a_clause_and_falls_back_to_the_next():
    base = "The band released their first album in 1995 with a small label."
    seed = simsim.text_seed("d", 0, base)
    fragment = "The first album of the band in 1995 with a small label."  # no finite verb
    clause = "The band released the first album in 1995 with a small label."
    # the language model's order (fewest_changes would take the clause first); the fragment also drifts from
    # the seed's meaning (BERTScore below the floor), so that check is left out to test this one alone
    lm = st.Params(select="lm", candidate_checks=tuple(c for c in simsim.CANDIDATE_CHECK_NAMES if c != "meaning_drift"))
    got, counts = _run([(seed, {"es": fragment})], st.SelectFn(lm), tags=("s1", "s2", st.SIMULATE))
    assert "s2" not in got and [r.reason for r in got[REJECTS]] == ["no_clause"]
    assert counts["select/no_clause:es"] == 1 and counts["select/filtered:no_clause"] == 1
    assert [r.simple for r in got["s1"]] == [fragment]  # s1 is every candidate the cheap checks kept
    got, counts = _run([(seed, {"es": fragment, "ca": clause})], st.SelectFn(lm),
                       tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [clause]
    assert counts["select/no_clause:es"] == 1  # the fragment was the language model's first choice
    # Without the check the language model takes the fragment.
    params = st.Params(candidate_checks=simsim.CANDIDATE_REASONS, select="lm")
    got, counts = _run([(seed, {"es": fragment, "ca": clause})], st.SelectFn(params), tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [fragment]


def test_select_never_takes_a_candidate_that_drifted_from_its_seeds_meaning_and_falls_back_to_the_next():
    # Round 6's item 70 (Apertium through Spanish): "at 7:22 am" -> "in 7:22 I am", BERTScore 0.91.
    base = "After remaining in a coma for nine hours, Lincoln died at 7:22 am on April 15."
    seed = simsim.text_seed("d", 0, base)
    drifted = "After remaining in a coma for nine hours, Lincoln died in 7:22 I am on April 15."
    kept = "After staying in a coma for nine hours, Lincoln died at 7:22 am on April 15."
    got, counts = _run([(seed, {"es": drifted})], st.SelectFn(st.Params()), tags=("s1", "s2", st.SIMULATE))
    assert "s2" not in got and [r.reason for r in got[REJECTS]] == ["meaning_drift"]
    assert counts["select/meaning_drift:es"] == 1 and counts["select/filtered:meaning_drift"] == 1
    assert "BERTScore 0.9" in got[REJECTS][0].detail and "I am" in got[REJECTS][0].payload
    assert [r.simple for r in got["s1"]] == [drifted]  # s1 is every candidate the cheap checks kept
    got, counts = _run([(seed, {"es": drifted, "gl": kept})], st.SelectFn(st.Params()),
                       tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [kept] and counts["select/meaning_drift:es"] == 1
    assert "select/filtered:meaning_drift" not in counts
    # The floor is an option; without the check the drifted candidate is taken.
    got, _ = _run([(seed, {"es": drifted})], st.SelectFn(st.Params(min_candidate_alignment=0.5)),
                  tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [drifted]
    checks = tuple(c for c in simsim.CANDIDATE_CHECK_NAMES if c != "meaning_drift")
    got, _ = _run([(seed, {"es": drifted})], st.SelectFn(st.Params(candidate_checks=checks)),
                  tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [drifted]


def test_fewest_changes_selection_takes_the_smallest_rewrite_the_language_model_accepts():
    base = "The band released their first album in 1995 with a small label."
    seed = simsim.text_seed("d", 0, base)
    small = "The band released the first album in 1995 with a small label."
    large = "The group released its first record in 1995 with a little label."
    got, counts = _run([(seed, {"es": large, "ca": small})], st.SelectFn(st.Params()), tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [small] and counts["select/selected:ca"] == 1
    assert sorted(r.simple for r in got["s1"]) == sorted([small, large])


def test_back_translation_rejects_a_candidate_that_translates_a_name_per_pivot():
    # Apertium (es, ca) writes "The Brothers of Heath ... in Tyrant" / "at Tirana at 1990" for this seed.
    # (Pivot agreement off: this is about the entity check on what the translator wrote.)
    seed = simsim.text_seed("d", 0, "The Heath Brothers recorded their first album in Tirana in 1990.")
    # as the translator wrote them (by default "Brothers of Heath" is first put back as "Heath Brothers")
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("es", "ca"), restore_function_words=(),
                                                            min_pivot_support=0)))
    ((_, left, _),) = got["main"]
    assert left == {}  # no candidate left: the seed goes on for s3 alone (s3_from_seed)
    assert sorted(r.reason for r in got[REJECTS]) == ["entity_changed", "entity_changed"]
    assert counts["translate/entity_changed:es"] == 1 and counts["translate/entity_changed:ca"] == 1
    assert counts["translate/filtered:entity_changed"] == 2
    assert any("Brothers of Heath" in r.payload for r in got[REJECTS])
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("es", "ca"), candidate_checks=(),
                                                            restore_function_words=())))
    ((_, candidates, _),) = got["main"]
    assert sorted(candidates) == ["ca", "es"] and "Brothers of Heath" in candidates["es"]
    # by default the calque and the prepositions are put back: ca's candidate is the seed again but for "his"
    # (pronoun_changed's), es's keeps "Tyrant" (entity_changed's)
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("es", "ca"), candidate_checks=())))
    ((_, candidates, _),) = got["main"]
    assert candidates["ca"] == seed.base.replace("their", "his") and "Heath Brothers" in candidates["es"] and "Tyrant" in candidates["es"]
    assert counts["translate/restored_noun_order:es"] == counts["translate/restored_noun_order:ca"] == 1


def test_check_shares_are_of_every_candidate_made():
    # The counters of the sample command's run (issue 34): 20,839 seeds x 5 pivots.
    counts = {f"translate/candidates:back_translation:{p}": 20839 for p in ("ca", "eo", "es", "gl", "hbs")}
    counts.update({"translate/filtered:entity_changed": 19430, "translate/filtered:apertium_mark": 1135,
                   "translate/filtered:pronoun_changed": 7576, "translate/filtered:broken_sequence": 2113,
                   "translate/filtered:untranslated_word": 29247, "select/no_clause:es": 150, "select/no_clause:gl": 114,
                   "select/filtered:no_clause": 55})
    shares = st.derive_check_shares(counts)
    assert list(shares) == ["apertium_mark", "entity_changed", "pronoun_changed", "pronoun_inserted",
                            "broken_sequence", "negation_changed", "quote_changed", "too_many_changes", "sense_changed",
                            "meaning_drift", "pivot_unsupported", "no_clause", "pos_changed"]
    assert shares["too_many_changes"] == {"rejected": 0, "share_of_candidates": 0.0}
    assert shares["entity_changed"] == {"rejected": 19430, "share_of_candidates": 0.1865}
    assert shares["no_clause"] == {"rejected": 264, "share_of_candidates": 0.0025}


_HAS_WORDNET = os.path.isfile("/usr/share/wordnet/index.noun")


@pytest.mark.skipif(not _HAS_WORDNET, reason="Debian's wordnet-base is not installed")
def test_simulate_substitutes_wordnet_synonyms_without_ppdb_and_counts_each_decision():
    text = "The physicians purchased three automobiles in Paris."
    assert st.Params().wordnet_substitution is False  # opt-in (docs/SIMSIM_QUALITY.md, round 4)
    got, counts = _run([_s2_record(text)], st.SimulateFn(st.Params(max_drops=0, wordnet_substitution=True,
                                                                   agreed_substitution=False)), tags=("main",))
    (r,) = got["main"]
    assert "substitution" in r.operations and "doctors" in r.simple and "Paris" in r.simple
    assert counts["simulate/substituted"] == 1 and counts["simulate/substitutions"] == counts["simulate/wordnet:substituted"]
    # at most MAX_WORDNET_SUBSTITUTIONS words a sentence: the words after the second are left as they are
    assert counts["simulate/wordnet:substituted"] + counts.get("simulate/wordnet:lm_rejected", 0) >= 2
    assert counts["simulate/wordnet:substituted"] <= simsim.MAX_WORDNET_SUBSTITUTIONS
    got, counts = _run([_s2_record(text)], st.SimulateFn(st.Params(max_drops=0, wordnet_substitution=False,
                                                                   require_operation=False)), tags=("main",))
    (r,) = got["main"]
    assert r.simple == text and "substitution" not in r.operations
    assert not any(name.startswith("simulate/wordnet:") for name in counts)


@pytest.mark.skipif(not _HAS_WORDNET, reason="Debian's wordnet-base is not installed")
def test_back_translation_rejects_a_candidate_whose_word_took_another_sense():
    # Apertium through Catalan: "spacecraft" -> "aircraft" (issue 34's round 3, item 84)
    seed = simsim.text_seed("d", 0, "At 68 hours and 58 minutes, the spacecraft went behind the Moon and out of "
                                    "radio contact with the Earth.")
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("ca",), min_pivot_support=0, s3_from_seed=False)))
    assert "main" not in got  # without s3_from_seed a seed with no candidate left yields nothing
    (reject,) = got[REJECTS]
    assert reject.reason == "sense_changed" and "aircraft" in reject.detail
    assert counts["translate/sense_changed:ca"] == 1 and counts["translate/filtered:sense_changed"] == 1
    checks = tuple(c for c in simsim.CANDIDATE_CHECK_NAMES if c != "sense_changed")
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("ca",), candidate_checks=checks,
                                                            min_pivot_support=0)))
    ((_, candidates, _),) = got["main"]
    assert "aircraft" in candidates["ca"]


def test_back_translation_puts_back_the_function_words_a_romance_pivot_changed_and_counts_them():
    # Round 7b, item 20 (read broken): Apertium's Catalan gives "The schools were scarce among ...": the
    # generic article comes back and "between" became "among". Both put back, nothing of the rewrite is
    # left (selection then skips it as unchanged); with the article only, the rewording stays.
    seed = simsim.text_seed("d", 0, "Schools were scarce between World War I and World War II.")
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("ca",), candidate_checks=())))
    ((_, candidates, _),) = got["main"]
    assert candidates["ca"] == seed.base
    assert counts["translate/restored_article:ca"] == 1 and counts["translate/restored_preposition:ca"] == 1
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("ca",), candidate_checks=(),
                                                            restore_function_words=("article",))))
    ((_, candidates, _),) = got["main"]
    assert candidates["ca"] == "Schools were scarce among World War I and World War II."
    assert counts["translate/restored_article:ca"] == 1 and "translate/restored_preposition:ca" not in counts
    got, counts = _run([seed], st.BackTranslateFn(st.Params(pivots=("ca",), candidate_checks=(),
                                                            restore_function_words=())))
    ((_, candidates, _),) = got["main"]
    assert candidates["ca"].startswith("The schools were scarce among"), candidates
    assert not [k for k in counts if "restored_" in k]


def test_back_translation_keeps_only_the_changes_other_pivots_make_alike():
    # Issue 51: every pivot's back-translation is evidence; a change no other pivot makes is put back as
    # the seed wrote it, and a candidate with no change left is a reject (pivot_unsupported).
    seed = simsim.text_seed("d", 0, "Despite this, Farrenc was paid less than her male counterparts for nearly a decade.")
    got, counts = _run([seed], st.BackTranslateFn(st.Params()))
    ((_, kept, evidence),) = got["main"]
    made = sum(n for k, n in counts.items() if k.startswith("translate/candidates:"))
    assert len(evidence) == made >= 2  # every pivot's back-translation, checked or not
    for pivot, text in kept.items():
        assert text != seed.base
        others = {p: t for p, t in evidence.items() if p != pivot}
        assert all(n >= agreement.MIN_PIVOT_SUPPORT for n in agreement.support(text, seed.base, pivot, others))
    assert sum(n for k, n in counts.items() if k.startswith("translate/kept_supported:")) >= len(kept)
    assert counts.get("translate/filtered:pivot_unsupported", 0) == sum(
        n for k, n in counts.items() if k.startswith("translate/pivot_unsupported:"))
    # without the check, the translator's own wording stays
    assert any("almost a decade" in t for t in kept.values())  # "nearly" -> "almost": several pivots write it


def test_select_sends_the_pivot_agreed_substitutions_to_the_simulation():
    seed = simsim.text_seed("d", 0, "The physicians attempted to save the patient after the accident.")
    cands = {"es": "The physicians tried to save the patient after the accident."}
    evidence = dict(cands, ca="The doctors tried to save the patient after the accident.",
                    eo="The doctors attempted to save the patient after the accident.")
    got, _ = _run([(seed, cands, evidence)], st.SelectFn(st.Params(lm_margin=5.0)), tags=("s1", "s2", st.SIMULATE))
    ((record, subs),) = got[st.SIMULATE]
    assert record.simple == cands["es"]
    assert ("physicians", "doctors") in [(s.word, s.replacement) for s in subs]


def test_simulate_splits_two_clauses_and_makes_agreed_substitutions():
    text = "He was born in Lyon and died in Paris after a long illness."
    got, counts = _run([(_s2_record(text), ())], st.SimulateFn(st.Params()), tags=("main",))
    (r,) = got["main"]
    assert r.simple == "He was born in Lyon. He died in Paris after a long illness."
    assert "splitting" in r.operations and counts["simulate/split:split"] == 1
    text = "The physicians attempted to save the patient after the accident."
    subs = (agreement.Substitution("physicians", "doctors", "the", "attempted", 4),)
    got, counts = _run([(_s2_record(text), subs)], st.SimulateFn(st.Params(max_drops=0)), tags=("main",))
    (r,) = got["main"]
    assert r.simple == "The doctors attempted to save the patient after the accident."
    assert r.operations == ("back_translation", "substitution") and counts["simulate/agreed:substituted"] == 1


def test_select_refuses_a_word_of_another_part_of_speech_and_falls_back_to_the_next():
    # Issue 51's tuning text: "The Kindle 2 features ..." -> "The Kindle 2 characteristics ..." (a verb replaced by a
    # noun only; the pivots agreed on it)
    base = "The new reader features a grayscale display and a longer battery life than the old one."
    seed = simsim.text_seed("d", 0, base)
    noun = "The new reader characteristics a grayscale display and a longer battery life than the old one."
    verb = "The new reader has a grayscale display and a longer battery life than the old one."
    checks = tuple(c for c in simsim.CANDIDATE_CHECK_NAMES if c != "meaning_drift")
    params = st.Params(candidate_checks=checks, lm_margin=5.0, s3_from_seed=False)
    got, counts = _run([(seed, {"es": noun})], st.SelectFn(params), tags=("s1", "s2", st.SIMULATE))
    assert "s2" not in got and [r.reason for r in got[REJECTS]] == ["pos_changed"]
    assert counts["select/pos_changed:es"] == 1 and counts["select/filtered:pos_changed"] == 1
    got, counts = _run([(seed, {"es": noun, "ca": verb})], st.SelectFn(params), tags=("s1", "s2", st.SIMULATE))
    assert [r.simple for r in got["s2"]] == [verb]
    assert simsim.pos_changed_words.__doc__  # the rule itself: miners/simsim/simulate.py


def test_a_seed_without_an_s2_candidate_is_simulated_on_as_it_is():
    # Issue 51: with pivot agreement few seeds keep an s2 candidate; s3 simulates on the others' own text
    base = "He was born in Lyon and died in Paris after a long illness."
    seed = simsim.text_seed("d", 0, base)
    evidence = {"es": base, "eo": base}
    got, counts = _run([(seed, {}, evidence)], st.SelectFn(st.Params()), tags=("s1", "s2", st.SIMULATE))
    assert "s2" not in got and [r.reason for r in got[REJECTS]] == ["no_changed_candidate"]
    ((record, _),) = got[st.SIMULATE]
    assert record.simple == base and record.method == "seed" and counts["select/to_simulate:seed"] == 1
    got, _ = _run([(record, ())], st.SimulateFn(st.Params()), tags=("main",))
    (r,) = got["main"]
    assert r.simple == "He was born in Lyon. He died in Paris after a long illness."
    assert r.method == "simulated:seed" and r.operations == ("splitting",)
    # without it, no s3 from such a seed
    got, _ = _run([(seed, {}, evidence)], st.SelectFn(st.Params(s3_from_seed=False)),
                  tags=("s1", "s2", st.SIMULATE))
    assert st.SIMULATE not in got
