"""The ParaSCI stages on Beam (transforms/parasci.py): each of the four methods on real sentences.

The sentences are real scientific paraphrase pairs of the ParaSCI-ACL validation split
(../shared/data/parasci/release-acl-val), placed into papers the way the paper finds them: the two
sides of a pair in different sections of one paper (intra-paper), in two papers defining the same
term (definition), in two papers citing the same paper (same citation), and one side inside a
longer sentence (partial).
"""
import collections
import pathlib

import apache_beam as beam
import pytest
from apache_beam.runners.portability.fn_api_runner import FnApiRunner

from miners.parasci import pairs as ps
from schemas.papers import CITATION_PLACEHOLDER, Paper, PaperParagraph
from transforms import parasci as pt
from transforms.common import COUNTS, REJECTS

VAL = pathlib.Path(__file__).resolve().parents[3] / "shared" / "data" / "parasci" / "release-acl-val"


def _val_pairs():
    src = (VAL / "val.src").read_text(encoding="utf-8").splitlines()
    tgt = (VAL / "val.tgt").read_text(encoding="utf-8").splitlines()
    return list(zip(src, tgt))


@pytest.fixture(scope="module")
def chosen():
    """Real pairs the default thresholds and the decision keep (chosen by the models, at test time), one
    per method."""
    from miners.nlp.embed import SentenceEmbedder
    pairs = _val_pairs()
    definitions = []
    for a, b in pairs:
        da, db = ps.find_definition(a), ps.find_definition(b)
        if da and db and ps.normalise_term(da.term) == ps.normalise_term(db.term) and \
                ps.length_rate(a, b) < 1.0 and 8 <= len(ps.words(a)) <= 40:
            definitions.append((a, b))
    head = [(a, b) for a, b in pairs[:400] if 10 <= len(ps.words(a)) <= 30 and ps.length_rate(a, b) < 0.3
            and not ps.find_definition(a) and CITATION_PLACEHOLDER.lower() not in a]
    emb = SentenceEmbedder().load()
    sims = emb.similarity([a for a, _ in head], [b for _, b in head])
    decision = ps.Thresholds().decision  # the committed paraphrase decision must keep them too
    strong = [p for p, s in zip(head, sims) if s >= 0.88 and decision.decide(p[0], p[1], s)[1] is None]
    dsims = emb.similarity([a for a, _ in definitions], [b for _, b in definitions])
    strong_defs = [p for p, s in zip(definitions, dsims) if s >= 0.85 and decision.decide(p[0], p[1], s)[1] is None]
    short = [p for p in strong[2:] if len(ps.words(p[1])) <= 16]
    assert len(strong) >= 3 and short and strong_defs, (len(strong), len(short), len(strong_defs))
    return {"intra": strong[0], "citation": strong[1], "partial": short[0], "definition": strong_defs[0]}


def _paper(pid, field, sections):
    paras = []
    for section, text, keys in sections:
        slots = tuple(range(len(keys)))
        paras.append(PaperParagraph(section=section, heading=section.title(), text=text, cite_keys=tuple(keys),
                                    cite_slots=slots))
    return Paper(id=pid, title=f"Paper {pid}", field=field, year=2019, source="s2orc", path=f"{pid}.json",
                 paragraphs=tuple(paras), title_key=f"paper{pid}")


FILLER = ("we thank the anonymous reviewers for their helpful comments on an earlier draft .",
          "all experiments were run on a single machine with eight processor cores and no gpu .",
          "the remainder of this paper is organized into six sections as described below .")


def _papers(c):
    ia, ib = c["intra"]
    ca, cb = c["citation"]
    pa, pb = c["partial"]
    da, db = c["definition"]
    cite = f"{ca.rstrip(' .')} {CITATION_PLACEHOLDER} ."
    cite2 = f"{cb.rstrip(' .')} {CITATION_PLACEHOLDER} ."
    long_ = (f"{pb.rstrip(' .')} , while the second stage of our system relies on a large hand-built lexicon ; "
             f"in addition , all of the resources used in these experiments are released to the research "
             f"community under an open licence .")
    return [
        _paper("p1", "computational linguistics", [
            ("abstract", ia, []), ("introduction", da, []), ("background", cite, ["s2:424242"]),
            ("conclusion", ib, []), ("experiments", FILLER[1], [])]),
        _paper("p2", "computational linguistics", [
            ("introduction", db, []), ("background", cite2, ["s2:424242"]), ("abstract", FILLER[0], [])]),
        _paper("p3", "computational linguistics", [
            ("abstract", pa, []), ("discussion", long_, []), ("introduction", FILLER[2], [])]),
    ]


_OUT = collections.defaultdict(list)  # the in-process runner's workers share this module


class _Keep(beam.DoFn):
    """Appends what it sees to _OUT[name] (a module-level class: pickled by reference)."""

    def __init__(self, name):
        super().__init__()
        self.name = name

    def process(self, element):
        _OUT[self.name].append(element)
        return iter(())


def _run(papers, params):
    _OUT.clear()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        mined = p | beam.Create(papers) | pt.MineSciParaphrases(params)
        _ = mined["presplit"] | "Records" >> beam.Map(lambda e: e[-1]) | "KeepRecords" >> beam.ParDo(_Keep("records"))
        _ = mined[REJECTS] | "KeepRejects" >> beam.ParDo(_Keep("rejects"))
        _ = mined[COUNTS] | "KeepCounts" >> beam.ParDo(_Keep("counts"))
    return {name: list(_OUT[name]) for name in ("records", "rejects", "counts")}


def test_each_method_finds_its_real_pair(chosen):
    out = _run(_papers(chosen), pt.Params(methods=ps.METHODS))
    by_method = {}
    for r in out["records"]:
        by_method.setdefault(r.method, []).append(r)
    assert set(by_method) == {"intra_paper", "definition", "same_citation", "partial"}, \
        [(r.method, r.src, r.tgt) for r in out["records"]]
    ia, ib = chosen["intra"]
    intra = by_method["intra_paper"]
    assert any({r.src, r.tgt} == {ia, ib} and r.paper_id == r.other_paper_id == "p1" and
               {r.section, r.other_section} == {"abstract", "conclusion"} for r in intra)
    da, db = chosen["definition"]
    d = by_method["definition"]
    assert any({r.src, r.tgt} == {da, db} and {r.paper_id, r.other_paper_id} == {"p1", "p2"} for r in d)
    term = ps.find_definition(da).term
    assert any(r.group == ps.definition_group("computational linguistics", term) for r in d), [r.group for r in d]
    cites = by_method["same_citation"]
    assert any({r.paper_id, r.other_paper_id} == {"p1", "p2"} and CITATION_PLACEHOLDER in r.src and
               r.group == "s2:424242" for r in cites)
    pa, pb = chosen["partial"]
    part = by_method["partial"]
    assert any(pa in (r.src, r.tgt) and "hand-built lexicon" not in r.src + r.tgt for r in part), \
        [(r.src, r.tgt) for r in part]
    for r in out["records"]:
        assert r.bertscore > ps.Thresholds().bertscore_floor(r.method)
        assert r.length_rate < ps.Thresholds().length_rate_ceiling(r.method)
        assert (r.paper_id, r.src) != (r.other_paper_id, r.tgt)
    # A pair and its reverse are one pair: no (src, tgt) twice in either order.
    keys = [frozenset((r.src, r.tgt)) for r in out["records"]]
    assert len(keys) == len(set(keys))


def test_the_same_input_gives_the_same_records_and_fillers_are_not_paired(chosen):
    papers = _papers(chosen)
    first = _run(papers, pt.Params())
    again = _run(list(reversed(papers)), pt.Params())
    key = lambda r: (r.method, r.paper_id, r.src, r.tgt)  # noqa: E731
    assert sorted(map(key, first["records"])) == sorted(map(key, again["records"]))
    assert not any(f in r.src + r.tgt for r in first["records"] for f in FILLER)


def test_methods_option_limits_the_finders_and_rejects_carry_reasons(chosen):
    out = _run(_papers(chosen), pt.Params(methods=("definition",)))
    assert {r.method for r in out["records"]} == {"definition"}
    reasons = {r.reason for r in out["rejects"]}
    assert reasons <= {"below_similarity", "too_short", "too_long", "low_letter_ratio", "identical_sentences",
                       "bertscore_too_low", "length_rate_too_high", "no_partial_match", "duplicate_paper",
                       "no_sentences", "not_paraphrase", "near_verbatim", "number_only_difference", "boilerplate",
                       "sentence_in_a_better_pair", "roadmap", "near_copy", "negation_mismatch",
                       "conditional_mismatch", "no_summary_section", "not_a_clause", "forward_reference",
                       "fragment"}, reasons


def _rec(pa, a, pb, b, p, method="intra_paper"):
    return ps.SciParaphraseExample(src=a, tgt=b, method=method, paper_id=pa, other_paper_id=pb,
                                   paraphrase_probability=p, source=f"{pa}.json")


def _run_stage(records, stage):
    _OUT.clear()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        out = p | beam.Create(records) | stage
        main = out["kept"] if "kept" in out else out["presplit"]
        _ = main | "KeepMain" >> beam.ParDo(_Keep("records"))
        _ = out[REJECTS] | "KeepRejects" >> beam.ParDo(_Keep("rejects"))
    return list(_OUT["records"]), list(_OUT["rejects"])


def test_a_sentence_is_kept_in_its_best_pair_only():
    recs = [_rec("p1", "s one", "p1", "s two", 0.99), _rec("p1", "s one", "p1", "s three", 0.97),
            _rec("p1", "s four", "p1", "s five", 0.96)]
    kept, rejects = _run_stage(recs, pt.KeepBestPairs())
    assert sorted(r.tgt for r in kept) == ["s five", "s two"]
    assert [(r.reason, r.detail) for r in rejects] == [("sentence_in_a_better_pair", "intra_paper p=0.970")]
    assert ps.best_pairs(recs) == ([recs[0], recs[2]], [recs[1]])


def test_each_paper_keeps_its_best_in_paper_pairs_by_bertscore_and_rejects_the_rest():
    import dataclasses
    recs = [dataclasses.replace(_rec("p1", "a one", "p1", "a two", 0.99), bertscore=0.71),
            dataclasses.replace(_rec("p1", "a three", "p1", "a four", 0.90), bertscore=0.83),
            dataclasses.replace(_rec("p1", "a five", "p1", "a six", 0.95), bertscore=0.64, method="partial"),
            dataclasses.replace(_rec("p2", "b one", "p2", "b two", 0.91), bertscore=0.70),
            # cross-paper pairs are not capped, whatever their score
            dataclasses.replace(_rec("p1", "c one", "p2", "c two", 0.95, method="same_citation"), bertscore=0.60),
            dataclasses.replace(_rec("p1", "d one", "p3", "d two", 0.95, method="definition"), bertscore=0.61)]
    kept, rejects = _run_stage(recs, pt.CapPerPaper(pt.Params(max_pairs_per_paper=1)))
    assert sorted((r.paper_id, r.src) for r in kept) == [("p1", "a three"), ("p1", "c one"), ("p1", "d one"),
                                                          ("p2", "b one")]
    assert sorted((r.reason, r.detail) for r in rejects) == [
        ("paper_cap", "intra_paper bertscore=0.710 p=0.990 (the paper's best: 0.830)"),
        ("paper_cap", "partial bertscore=0.640 p=0.950 (the paper's best: 0.830)")]
    kept2, rejects2 = _run_stage(recs, pt.CapPerPaper(pt.Params(max_pairs_per_paper=2)))
    assert sorted((r.paper_id, r.src) for r in kept2 if r.paper_id == "p1" and r.method == "intra_paper") == [
        ("p1", "a one"), ("p1", "a three")]
    assert [r.reason for r in rejects2] == ["paper_cap"]
    kept0, rejects0 = _run_stage(recs, pt.CapPerPaper(pt.Params(max_pairs_per_paper=0)))
    assert len(kept0) == len(recs) and not rejects0
    # the in-memory form agrees, and ties on BERTScore fall to the probability, then the texts
    assert sorted(r.src for r in ps.cap_per_paper(recs, 1)[0]) == sorted(r.src for r in kept)
    tie = [dataclasses.replace(_rec("p9", t, "p9", t + " b", p), bertscore=0.8) for t, p in (("x", 0.9), ("y", 0.95))]
    assert [r.src for r in ps.cap_per_paper(tie, 1)[0]] == ["y"]
    assert [r.src for r in ps.cap_per_paper(list(reversed(tie)), 1)[0]] == ["y"]


def test_splits_drop_no_pair_and_put_no_sentence_in_two_splits():
    # 40 cross-paper pairs chained through shared sentences and 40 in-paper pairs: by paper id alone
    # about half of the cross-paper pairs would straddle two splits (and were dropped).
    recs = []
    for i in range(40):
        recs.append(_rec(f"a{i}", f"cited sentence {i // 4}", f"b{i}", f"citing sentence {i}", 0.9,
                         method="same_citation"))
        recs.append(_rec(f"a{i}", f"claim {i}", f"a{i}", f"restated claim {i}", 0.9))
    params = pt.Params(split_ratios=(0.5, 0.25, 0.25))
    presplit, rejects = _run_stage(recs, pt.AssignSplits(params))
    assert not rejects and len(presplit) == len(recs)
    split_of = {}
    for _, split, r in presplit:
        for sid in ps.sentence_ids(r):
            assert split_of.setdefault(sid, split) == split, sid
    in_paper = {}
    for _, split, r in presplit:
        if r.paper_id == r.other_paper_id:
            assert in_paper.setdefault(r.paper_id, split) == split
    assert len({split for _, split, _ in presplit}) == 3  # components spread over the splits


def test_a_paper_without_title_read_twice_under_two_ids_is_kept_once():
    text = ("Marine group I Crenarchaeota represents a ubiquitous and numerically predominant microbial "
            "population in marine environments [CITATION].")
    one = Paper(id="18980380", title="", field="", year=0, source="s2orc", path="a.json", title_key="",
                paragraphs=(PaperParagraph(section="abstract", heading="Abstract", text=text),
                            PaperParagraph(section="introduction", heading="Introduction", text=text + " More.")))
    two = Paper(id="pdfhash", title="", field="", year=0, source="doc2json", path="b.json", title_key="",
                paragraphs=(PaperParagraph(section="abstract", heading="Abstract", text=text.upper()),))
    other = Paper(id="x", title="", field="", year=0, source="s2orc", path="c.json", title_key="",
                  paragraphs=(PaperParagraph(section="abstract", heading="Abstract", text="Short."),))
    _OUT.clear()
    with beam.Pipeline(runner=FnApiRunner()) as p:
        out = p | beam.Create([one, two, other]) | pt.DedupPapers()
        _ = out["papers"] | "KeepPapers" >> beam.ParDo(_Keep("records"))
        _ = out[REJECTS] | "KeepRejects" >> beam.ParDo(_Keep("rejects"))
    assert sorted(p.id for p in _OUT["records"]) == ["18980380", "x"]
    assert [(r.reason, r.key) for r in _OUT["rejects"]] == [("duplicate_paper", "pdfhash")]


def test_table2_reports_the_size_before_the_filters():
    counts = {"_stats/table2/pairs": 2, "candidates/passed:intra_paper": 5, "candidates/passed:same_citation": 1,
              "partial/passed": 3, "search/pairs:intra_paper": 400}
    t2 = pt.derive_table2(counts)
    assert (t2["pairs"], t2["size_before_filters"]) == (2, 9)
    assert t2["size_before_filters_per_method"] == {"intra_paper": 5, "partial": 3, "same_citation": 1}


class _ScoreAndFilter(beam.PTransform):
    """The job's ScoreAndFilterFn on one batch (the stage as `MineSciParaphrases` wires it)."""

    def __init__(self, params):
        super().__init__()
        self.params = params

    def expand(self, records):
        out = (records | beam.combiners.ToList()
               | beam.ParDo(pt.ScoreAndFilterFn(self.params)).with_outputs(REJECTS, COUNTS, main="kept"))
        return {"kept": out.kept, REJECTS: out[REJECTS]}


def test_score_and_filter_rejects_a_pair_whose_sentence_does_not_stand_alone():
    good = _rec("p1", "We show that kinesin-1 is critical for the minus-end-out organization of dendritic "
                "microtubules.", "p1", "Kinesin-1 organizes dendritic microtubules minus-end-out, as we report "
                "here in vivo.", 0.99)
    heading = _rec("p2", "Index Terms-Distributional robustness, Markov decision processes, parameter uncertainty.",
                   "p2", "In this note we study Markov decision processes under parameter uncertainty.", 0.95)
    forward = _rec("p3", "The state-wise ambiguity set is restricted to the following form:", "p3",
                   "Our formulation restricts the state-wise ambiguity set as in earlier work.", 0.95)
    kept, rejects = _run_stage([good, heading, forward], _ScoreAndFilter(pt.Params()))
    assert [r.paper_id for r in kept] == ["p1"] and kept[0].bertscore > 0
    assert sorted((r.reason, r.key) for r in rejects) == [("forward_reference", "p3 p3"), ("not_a_clause", "p2 p2")]
    # A batch whose every record is rejected writes the rejects and scores nothing.
    kept, rejects = _run_stage([heading, forward], _ScoreAndFilter(pt.Params()))
    assert kept == [] and len(rejects) == 2
