"""transforms.segment: Documents -> SegmentedDocuments on an in-process portable runner."""
import apache_beam as beam
from apache_beam.runners.portability.fn_api_runner import FnApiRunner
from apache_beam.testing.util import assert_that, equal_to

from miners.sources import iter_wiki_articles
from miners.text.segmenter import segment
from schemas.records import Document, Reject, SegmentedDocument
from tests.testdata.readers import build
from transforms.common import COUNTS, REJECTS
from transforms.segment import SEGMENTED, SegmentDocuments


def test_segment_documents_exact():
    docs = [
        Document(id="1", text="Dr. Smith arrived. He sat down.\n\nLater, it rained! Was it cold?", source="jsonl",
                 path="a.jsonl"),
        Document(id="2", text="   \n\n  ", source="wet", path="b.warc.wet"),
        Document(id="3", text="One sentence without a full stop", source="wikipedia"),
    ]
    with beam.Pipeline(runner=FnApiRunner()) as p:
        out = p | beam.Create(docs) | SegmentDocuments("test")
        assert_that(out[SEGMENTED], equal_to([
            SegmentedDocument(id="1", source="jsonl", path="a.jsonl",
                              sentences=("Dr. Smith arrived.", "He sat down.", "Later, it rained!", "Was it cold?"),
                              paragraphs=(0, 0, 1, 1)),
            SegmentedDocument(id="3", source="wikipedia", sentences=("One sentence without a full stop",),
                              paragraphs=(0,)),
        ]), label="Segmented")
        assert_that(out[REJECTS], equal_to([
            Reject(dataset="test", stage="segment", reason="no_sentences", source="b.warc.wet", key="2",
                   detail="no sentence in the text", payload="   \n\n  ")]), label="Rejects")
        assert_that(out[COUNTS] | beam.CombinePerKey(sum), equal_to([
            ("segment/documents", 2), ("segment/sentences", 5), ("segment/filtered:no_sentences", 1)]),
            label="Counts")


def test_segment_real_articles():
    docs = [d for d in iter_wiki_articles(build.TABLES, build.TABLES, "test") if isinstance(d, Document)]
    expected = []
    for d in docs:
        sentences, paragraphs = segment(d.text)
        expected.append((d.id, len(sentences), max(paragraphs) + 1))
    assert len(expected) == 5 and all(n > 0 for _, n, _ in expected)
    with beam.Pipeline(runner=FnApiRunner()) as p:
        out = p | beam.Create(docs) | SegmentDocuments("test")
        assert_that(out[SEGMENTED] | beam.Map(lambda s: (s.id, len(s.sentences), s.paragraphs[-1] + 1)),
                    equal_to(expected), label="Shapes")
        assert_that(out[REJECTS], equal_to([]), label="NoRejects")
        assert_that(out[COUNTS] | beam.CombinePerKey(sum), equal_to([
            ("segment/documents", 5), ("segment/sentences", sum(n for _, n, _ in expected))]), label="Counts")
