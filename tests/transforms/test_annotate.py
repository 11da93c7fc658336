"""AnnotateDocuments and ReadConlluDocuments on the in-process runner, with the real models."""
import pathlib

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from schemas.records import SegmentedDocument
from tests.conftest import in_process_pipeline
from transforms.annotate import AnnotateDocuments, ReadConlluDocuments

FIXTURE = str(pathlib.Path(__file__).resolve().parents[1] / "testdata" / "discofuse" / "fusion.conllu")

EN = SegmentedDocument(
    id="en1", source="wikipedia",
    sentences=("Hebden Bridge is a popular place to live.",
               "However, space is limited due to the steep valleys and lack of flat land.",
               "The town grew quickly in the nineteenth century.",
               " ".join(["word"] * 130) + "."),
    paragraphs=(0, 0, 0, 0))
# Bulgarian Wikipedia, from the bundled bgwiki sample (CC BY-SA)
BG = SegmentedDocument(id="bg1", source="wikipedia",
                       sentences=("София е столицата и най-големият град на България.",
                                  "Градът е разположен в Софийската котловина."),
                       paragraphs=(0, 0))


def test_annotate_documents():
    with in_process_pipeline() as p:
        out = p | beam.Create([EN, BG]) | AnnotateDocuments("fusion", docs_per_batch=4)
        docs = out["annotated"] | "Shape" >> beam.Map(
            lambda d: (d.id, d.annotator, d.coref, [s.parsed for s in d.sentences], d.paragraphs))
        assert_that(docs, equal_to([("en1", "spacy", "builtin", [True, True, False, False], (0, 0, 0, -4))]))
        rejects = out["rejects"] | "R" >> beam.Map(lambda r: (r.reason, r.key, r.stage))
        assert_that(rejects, equal_to([("sentence_too_long", "en1#3", "annotate"),
                                       ("not_english", "bg1", "annotate")]), label="rejects")
        counts = out["counts"] | beam.CombinePerKey(sum)
        assert_that(counts, equal_to([
            ("annotate/filtered:sentence_too_long", 1), ("annotate/filtered:not_english", 1),
            ("annotate/sentences", 4), ("annotate/sentences_parsed", 2),
            ("annotate/sentences_skipped_by_precheck", 2), ("annotate/passed", 1)]), label="counts")


def test_read_conllu_documents():
    with in_process_pipeline() as p:
        out = p | beam.Create([FIXTURE]) | ReadConlluDocuments("fusion")
        ids = out["annotated"] | beam.Map(lambda d: (d.id, len(d.sentences), d.annotator))
        assert_that(ids, equal_to([("hebden", 2, "conllu"), ("kubler", 1, "conllu"), ("broken", 1, "conllu")]))
        rejects = out["rejects"] | "R" >> beam.Map(lambda r: (r.reason, r.key))
        assert_that(rejects, equal_to([("parse_error", "broken#0")]), label="rejects")


def test_a_document_that_breaks_the_annotator_is_rejected_and_the_batch_goes_on():
    # paragraphs shorter than sentences: malformed upstream output
    broken = SegmentedDocument(id="broken", source="wet", sentences=("One sentence here , really.", "Two."),
                               paragraphs=(0,))
    good = SegmentedDocument(id="good", source="wet",
                             sentences=("Kubler, who retired from cycling in 1957, remained a revered figure.",),
                             paragraphs=(0,))
    with in_process_pipeline() as p:
        out = p | beam.Create([broken, good]) | AnnotateDocuments("fusion", docs_per_batch=2, lang_filter=False)
        assert_that(out["annotated"] | beam.Map(lambda d: d.id), equal_to(["good"]))
        assert_that(out["rejects"] | "R" >> beam.Map(lambda r: (r.reason, r.key)),
                    equal_to([("annotator_error", "broken")]), label="rejects")


def test_template_hole_sentences_are_annotated_without_the_mark_and_listed():
    # Issue 32: a sentence where the cleaner left a hole is parsed from its text without the mark, so
    # every other sentence's annotation is as before, and listed in `template_holes` for the miner.
    hole = "\ufdd1"
    doc = SegmentedDocument(id="h1", source="wikipedia", sentences=(
        "Hebden Bridge is a popular place to live.",
        "However, space is limited" + hole + " due to the steep valleys and lack of flat land."),
        paragraphs=(0, 0))
    with in_process_pipeline() as p:
        out = p | beam.Create([doc]) | AnnotateDocuments("fusion", docs_per_batch=1)
        docs = out["annotated"] | beam.Map(
            lambda d: (d.template_holes, " ".join(t.text for t in d.sentences[1].tokens)))
        assert_that(docs, equal_to([((1,), "However , space is limited due to the steep valleys and lack of flat "
                                           "land .")]))
