"""Output never depends on how a runner bundles work (issue 39).

A model's output can depend in its last float bits on what else is in its batch (padding to the
batch's longest sentence, the shapes BLAS is given), and a pair near a threshold on those bits. Batches
cut from the runner's bundles (`beam.BatchElements`) change with the input's arrival order, the
workers and the load of the machine: on a busy machine ParaSCI on Flink wrote other pairs than the
local runner. Every batching stage whose output is a float or a choice on one batches with
`DeterministicBatches`; here each gets the same input in other orders and split over other bundles
(several Creates flattened: one bundle each), and must give bit-identical output.
"""
import random

import apache_beam as beam
import numpy as np
import pytest

from conftest import in_process_pipeline
from schemas.papers import PaperSentence

_OUT = []


class _Keep(beam.DoFn):
    def process(self, element):
        _OUT.append(element)
        return iter(())


def _run(elements, stage, chunks=1):
    """`stage` applied to `elements` given as `chunks` Creates (bundles) flattened; its main output."""
    _OUT.clear()
    with in_process_pipeline() as p:
        size = -(-len(elements) // chunks)
        parts = [p | f"Create{i}" >> beam.Create(elements[i * size:(i + 1) * size]) for i in range(chunks)]
        pcoll = parts | "Flatten" >> beam.Flatten() if chunks > 1 else parts[0]
        _ = stage(pcoll) | "Keep" >> beam.ParDo(_Keep())
    return list(_OUT)


def _orders(elements):
    """(elements, chunks): the input as given, reversed in 3 bundles, shuffled in 7."""
    shuffled = list(elements)
    random.Random(39).shuffle(shuffled)
    return [(list(elements), 1), (list(reversed(elements)), 3), (shuffled, 7)]


def _sentences():
    """Real sentences of the bundled papers, of many lengths (padding differs from batch to batch)."""
    from conftest import ROOT
    from miners.parasci.papers.reader import iter_papers
    from miners.parasci import pairs as ps
    from miners.text.segmenter import split_sentences
    out = []
    path = str(ROOT / "samples" / "scientific" / "s2orc" / "20200705-18980380.json")
    for paper in iter_papers(path, path, "sci_para"):
        out += ps.paper_sentences(paper, split_sentences)
    return out[:120]


def test_parasci_vectors_are_the_same_bits_whatever_the_bundles():
    pytest.importorskip("torch")
    from transforms import parasci as pt
    sentences = _sentences()
    assert len(sentences) >= 100 and len({len(s.text) for s in sentences}) > 50
    params = pt.Params(embed_batch=4)  # 32 sentences a call: several calls, each with its own padding
    runs = []
    for elements, chunks in _orders(sentences):
        out = _run(elements, lambda pcoll: (pcoll | "Embed" >> pt.Embed(params))["embedded"], chunks)
        runs.append({f"{s.paper_id}#{s.index}": np.asarray(v).tobytes() for s, v in out})
    assert len(runs[0]) == len(sentences)
    assert runs[1] == runs[0] and runs[2] == runs[0]


def test_parasci_partial_pairs_are_the_same_whatever_the_bundles():
    pytest.importorskip("torch")
    from conftest import SHARED_DATA
    from miners.parasci import pairs as ps
    from transforms import parasci as pt
    val = SHARED_DATA / "parasci" / "release-acl-val"
    src = (val / "val.src").read_text(encoding="utf-8").splitlines()
    tgt = (val / "val.tgt").read_text(encoding="utf-8").splitlines()
    filler = [s.text for s in _sentences()]
    # A real ParaSCI pair, its target inside a longer sentence: the part is what extraction must find.
    # The clauses of a batch are embedded together, so the similarity of a part depends on its batch.
    candidates = []
    for i, (a, b) in enumerate(list(zip(src, tgt))[:40]):
        long_text = filler[i].rstrip(" .") + ", whereas " + b[0].lower() + b[1:]
        candidates.append(ps.Candidate(
            method="intra_paper", similarity=0.8, group="g",
            a=PaperSentence(paper_id="p1", index=i, section="introduction", text=a),
            b=PaperSentence(paper_id="p2", index=i, section="introduction", text=long_text)))
    params = pt.Params(partial_batch=4)
    runs = []
    for elements, chunks in _orders(candidates):
        out = _run(elements, lambda pcoll: (pcoll | "Partial" >> pt.ExtractPartial(params))["pairs"], chunks)
        runs.append(sorted(r.to_json() for r in out))
    assert len(runs[0]) > 10, "too few partial pairs were extracted to prove anything"
    assert runs[1] == runs[0] and runs[2] == runs[0]


def test_bertscore_scores_and_verdicts_are_the_same_bits_whatever_the_bundles():
    pytest.importorskip("torch")
    from schemas.records import SimplificationExample
    from transforms.filters import BertScoreCheck, BertScoreFilter
    sentences = [s.text for s in _sentences()]
    # Seven records share each complex side (a SimSim seed's records), simple sides of many lengths.
    records = [("s2", SimplificationExample(sentences[i], sentences[(i * 7 + j) % len(sentences)], "x",
                                            doc_id=f"d{i}", sentence_index=j))
               for i in range(0, 60, 5) for j in range(7)]  # 84 records: batches of 8 cut through groups
    for grouped in (True, False):
        check = BertScoreCheck("simple", "complex", "alignment", min_score=0.5, group_by_reference=grouped)
        runs = []
        for elements, chunks in _orders(records):
            out = _run(elements, lambda pcoll: (pcoll | "Score" >> BertScoreFilter("simplify", check,
                                                                                    batch_size=8))["examples"],
                       chunks)
            runs.append(sorted((r.doc_id, r.sentence_index, np.float64(r.alignment).tobytes()) for _, r in out))
        assert 0 < len(runs[0]) < len(records)  # the floor keeps some and drops some
        assert runs[1] == runs[0] and runs[2] == runs[0], f"group_by_reference={grouped}"


def test_simsim_selection_under_its_meaning_floor_is_the_same_whatever_the_bundles():
    # SelectFn scores every candidate against its seed (meaning_drift, BERTScore floor) in the batch
    # DeterministicBatches gives it: which candidate each seed keeps may not follow the bundles.
    pytest.importorskip("torch")
    from miners.simsim import simulate as simsim
    from transforms import simsim as st
    from transforms.common import DeterministicBatches
    sentences = [s.text for s in _sentences() if 8 <= len(s.text.split()) <= 40][:40]

    def edits(text):
        w = text.split()
        return {"es": " ".join(w[:2] + w[3:]),  # a word dropped
                "ca": " ".join(w[:-3] + [w[-2], w[-3], w[-1]]),  # two words swapped
                "gl": " ".join(["It"] + w[1:]),  # the subject replaced
                "eo": " ".join(w[: len(w) // 2] + ["the"] + w[len(w) // 2:])}  # a word inserted

    elements = [(simsim.text_seed(f"d{i}", 0, t), edits(t)) for i, t in enumerate(sentences)]
    runs = []
    for items, chunks in _orders(elements):
        def stage(pcoll):
            return (pcoll | "Batch" >> DeterministicBatches(st._translated_key, 8, salt="simsim-select")
                    | "Select" >> beam.ParDo(st.SelectFn(st.Params())).with_outputs(
                        "s1", "s2", st.SIMULATE, "rejects", "counts", main="main"))["s2"]
        out = _run(items, stage, chunks)
        runs.append(sorted((r.doc_id, r.simple, r.method) for r in out))
    assert 0 < len(runs[0]) < len(elements)
    assert runs[1] == runs[0] and runs[2] == runs[0]
    # the floor decides here: without it more seeds keep a candidate
    no_floor = st.Params(min_candidate_alignment=0.0)
    out = _run(elements, lambda pcoll: (pcoll | DeterministicBatches(st._translated_key, 8, salt="s")
                                        | beam.ParDo(st.SelectFn(no_floor)).with_outputs(
                                            "s1", "s2", st.SIMULATE, "rejects", "counts", main="main"))["s2"])
    assert sorted((r.doc_id, r.simple, r.method) for r in out) != runs[0]


def test_spacy_annotations_do_not_depend_on_the_batch_they_were_parsed_in():
    # The parse is batched by beam.BatchElements (no shuffle of whole documents before it): that is
    # only sound while spaCy gives each document the same annotation whatever else is in its batch.
    from miners.text.segmenter import segment
    from schemas.records import SegmentedDocument
    from transforms.annotate import AnnotateDocuments
    texts = [s.text for s in _sentences()]
    docs = []
    for i in range(0, 100, 4):
        sents, paras = segment(" ".join(texts[i:i + 4]))
        docs.append(SegmentedDocument(id=f"doc{i}", source="test", sentences=sents, paragraphs=paras))
    runs = []
    for elements, chunks in _orders(docs):
        out = _run(elements, lambda pcoll: (pcoll | "Annotate" >> AnnotateDocuments("fusion", docs_per_batch=8))
                   ["annotated"], chunks)
        runs.append(sorted(repr(d) for d in out))
    assert len(runs[0]) == len(docs)
    assert runs[1] == runs[0] and runs[2] == runs[0]
