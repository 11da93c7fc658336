"""Documents -> sentences, with the model-free segmenter of the run's language (`miners.text.sentences`:
`miners.text.segmenter`'s for English).

    Document --SegmentDocuments--> {"segmented": SegmentedDocument,
                                    "rejects": Reject (reason no_sentences),
                                    "counts": (name, n)}
"""
import apache_beam as beam

from miners.text import sentences
from schemas.records import Document, SegmentedDocument
from transforms.common import COUNTS, REJECTS, MiningDoFn

SEGMENTED = "segmented"
STAGE = "segment"


class SegmentDocumentFn(MiningDoFn):
    """Document -> SegmentedDocument; counts `segment/documents`, `segment/sentences`."""

    def __init__(self, dataset: str, language: str = "en"):
        super().__init__(dataset, STAGE)
        self.language = language or "en"

    def process(self, doc: Document):
        sents, paragraphs = sentences.segment(doc.text, self.language)
        if not sents:
            yield self.reject("no_sentences", doc.path or doc.source, doc.id, "no sentence in the text", doc.text)
            return
        self.inc("documents")
        self.inc("sentences", len(sents))
        yield SegmentedDocument(id=doc.id, source=doc.source, sentences=sents, paragraphs=paragraphs,
                                path=doc.path)


class SegmentDocuments(beam.PTransform):
    """PCollection[Document] -> {"segmented", "rejects", "counts"}; `language`: the run's (`--language`)."""

    def __init__(self, dataset: str, language: str = "en"):
        super().__init__()
        self.dataset = dataset
        self.language = language or "en"

    def expand(self, docs):
        out = docs | "Segment" >> beam.ParDo(SegmentDocumentFn(self.dataset, self.language)).with_outputs(
            REJECTS, COUNTS, main=SEGMENTED)
        return {SEGMENTED: out[SEGMENTED], REJECTS: out[REJECTS], COUNTS: out[COUNTS]}
