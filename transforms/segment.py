"""Documents -> sentences, with the model-free segmenter of `miners.text`.

    Document --SegmentDocuments--> {"segmented": SegmentedDocument,
                                    "rejects": Reject (reason no_sentences),
                                    "counts": (name, n)}
"""
import apache_beam as beam

from miners.text import segment
from schemas.records import Document, SegmentedDocument
from transforms.common import COUNTS, REJECTS, MiningDoFn

SEGMENTED = "segmented"
STAGE = "segment"


class SegmentDocumentFn(MiningDoFn):
    """Document -> SegmentedDocument; counts `segment/documents`, `segment/sentences`."""

    def __init__(self, dataset: str):
        super().__init__(dataset, STAGE)

    def process(self, doc: Document):
        sentences, paragraphs = segment(doc.text)
        if not sentences:
            yield self.reject("no_sentences", doc.path or doc.source, doc.id, "no sentence in the text", doc.text)
            return
        self.inc("documents")
        self.inc("sentences", len(sentences))
        yield SegmentedDocument(id=doc.id, source=doc.source, sentences=sentences, paragraphs=paragraphs,
                                path=doc.path)


class SegmentDocuments(beam.PTransform):
    """PCollection[Document] -> {"segmented", "rejects", "counts"}."""

    def __init__(self, dataset: str):
        super().__init__()
        self.dataset = dataset

    def expand(self, docs):
        out = docs | "Segment" >> beam.ParDo(SegmentDocumentFn(self.dataset)).with_outputs(
            REJECTS, COUNTS, main=SEGMENTED)
        return {SEGMENTED: out[SEGMENTED], REJECTS: out[REJECTS], COUNTS: out[COUNTS]}
