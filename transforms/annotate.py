"""Annotate segmented documents for the DiscoFuse rules (UD v2, coreference).

    SegmentedDocument --BatchElements--> [docs] --AnnotateDocumentsFn--> AnnotatedDocument
    CoNLL-U file path --ReadConlluDocumentsFn--> AnnotatedDocument   (pre-parsed input)

The model loads once per worker (`setup`). Sentences are parsed in one
`nlp.pipe` call per batch of documents, and only the sentences that a rule
could use: the lexical pre-check (miners.discofuse.rules.single_may_match /
pair_may_match) leaves the rest unparsed. Bad input is counted and rejected:
`sentence_too_long`, `parse_error` (per sentence; the document goes on),
`not_english` (`wrong_language` in a run of another language) and `annotator_error` (per document).
"""
import dataclasses

import apache_beam as beam

from miners.discofuse import rules as discofuse
from miners.discofuse import languages as discofuse_languages
from miners.discofuse import coref as coref_lib
from miners.nlp.langid import lid_label, wrong_language_reason
from miners.nlp.annotation import COREF_ANNOTATOR, COREF_BUILTIN, AnnotatedDocument, unparsed_sentence
from schemas.records import TEMPLATE_HOLE, without_template_holes
from transforms.common import COUNTS, REJECTS, MiningDoFn

STAGE = "annotate"
# Minimum fastText probability of the run's language (English by default) for a document to be annotated.
MIN_ENGLISH_PROB = 0.5


def _reindex(chains, idx):
    """Chains over the parsed subset of sentences -> chains over the document's sentence numbers."""
    from miners.nlp.annotation import CorefChain, Mention
    return tuple(CorefChain(tuple(Mention(idx[m.sentence], m.start, m.end) for m in c.mentions),
                            c.representative, c.source) for c in chains)


class AnnotateDocumentsFn(MiningDoFn):
    """[SegmentedDocument] -> AnnotatedDocument, rejects and counts."""

    def __init__(self, dataset="fusion", annotator="spacy", spacy_model="en_core_web_sm", stanza_dir="",
                 batch_size=64, max_tokens=discofuse.MAX_SENTENCE_TOKENS, precheck=True,
                 lang_filter=True, langid_model=None, language="en"):
        super().__init__(dataset, STAGE)
        self.annotator_name = annotator
        self.spacy_model = spacy_model
        self.stanza_dir = stanza_dir
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.precheck = precheck
        self.lang_filter = lang_filter
        self.langid_model = langid_model
        self.language = language  # the run's: documents in another language are rejected
        self._annotator = None
        self._rules = None
        self._langid = None

    def setup(self):
        from miners.nlp.annotators import make_annotator
        self._annotator = make_annotator(self.annotator_name, self.spacy_model, self.stanza_dir, self.batch_size,
                                         language=self.language)
        self._rules = discofuse_languages.for_language(self.language)
        if self.lang_filter:
            from miners.nlp.langid import LanguageIdentifier
            self._langid = LanguageIdentifier(self.langid_model)

    def _plan(self, doc):
        """Tokens of each sentence and which to parse; yields rejects for too-long sentences."""
        words = [self._annotator.tokenize(s) for s in doc.sentences]
        paragraphs = list(doc.paragraphs)
        parse = [False] * len(words)
        rejects = []
        for i, w in enumerate(words):
            if len(w) > self.max_tokens:
                rejects.append(self.reject("sentence_too_long", doc.path or doc.source, f"{doc.id}#{i}",
                                           f"{len(w)} tokens", doc.sentences[i]))
                paragraphs[i] = -1 - i  # isolated: no pair with it
        for i, w in enumerate(words):
            if paragraphs[i] < 0:
                continue
            if not self.precheck or self._rules.single_may_match(w):
                parse[i] = True
            if i > 0 and paragraphs[i - 1] == paragraphs[i] and (not self.precheck or self._rules.pair_may_match(w)):
                parse[i] = parse[i - 1] = True
        return words, paragraphs, parse, rejects

    def _annotate(self, doc, words, paragraphs, parse, parsed, chains=None, holes=()):
        sentences = []
        out = []
        for i, w in enumerate(words):
            p = parsed.get(i)
            if p is None:
                sentences.append(unparsed_sentence(w))
            elif isinstance(p, Exception):
                out.append(self.reject("parse_error", doc.path or doc.source, f"{doc.id}#{i}", str(p),
                                       doc.sentences[i]))
                sentences.append(unparsed_sentence(w))
                paragraphs[i] = -1 - i
            else:
                sentences.append(p)
        self.inc("sentences", len(words))
        self.inc("sentences_parsed", sum(1 for v in parsed.values() if not isinstance(v, Exception)))
        self.inc("sentences_skipped_by_precheck", len(words) - len(parsed))
        if chains is not None:
            coref = COREF_ANNOTATOR
        else:
            chains, coref = self._rules.resolve(sentences), COREF_BUILTIN
        out.append(AnnotatedDocument(id=doc.id, source=doc.source, sentences=tuple(sentences),
                                     paragraphs=tuple(paragraphs), chains=tuple(chains), coref=coref,
                                     annotator=self._annotator.name, path=doc.path, template_holes=tuple(holes)))
        return out

    def process(self, batch):
        docs = []
        holes_of = {}
        for doc in batch:
            holes = tuple(i for i, s in enumerate(doc.sentences) if TEMPLATE_HOLE in s)
            if holes:  # annotated without the marks: the parse of every other sentence stays as it was
                doc = dataclasses.replace(doc, sentences=tuple(without_template_holes(s) for s in doc.sentences))
                holes_of[id(doc)] = holes
            if not doc.sentences:
                self.inc("filtered:empty_document")
                continue
            if self._langid is not None:
                (lang, prob), = self._langid.predict([" ".join(doc.sentences[:20])])
                if lang != lid_label(self.language) or prob < MIN_ENGLISH_PROB:
                    yield self.reject(wrong_language_reason(self.language), doc.path or doc.source, doc.id, f"{lang}:{prob:.2f}",
                                      " ".join(doc.sentences[:3]))
                    continue
            try:
                words, paragraphs, parse, rejects = self._plan(doc)
            except Exception as e:  # pylint: disable=broad-except
                r = self.reject("annotator_error", doc.path or doc.source, doc.id, f"{type(e).__name__}: {e}",
                                " ".join(doc.sentences[:3]))
                if r is not None:
                    yield r
                continue
            yield from (r for r in rejects if r is not None)
            docs.append((doc, words, paragraphs, parse))
        # One parser call for the whole batch; on failure fall back to one call per document.
        texts, owners = [], []
        for d, (doc, words, _, parse) in enumerate(docs if not self._annotator.has_coref else ()):
            for i, flag in enumerate(parse):
                if flag:
                    texts.append(doc.sentences[i])
                    owners.append((d, i))
        try:
            results = self._annotator.parse(texts) if texts else []
            per_doc = [{} for _ in docs]
            for (d, i), r in zip(owners, results):
                per_doc[d][i] = r
        except Exception:  # pylint: disable=broad-except
            per_doc = None
        for d, (doc, words, paragraphs, parse) in enumerate(docs):
            try:
                if self._annotator.has_coref:
                    # the annotator's coreference needs the whole document: one pass, every sentence
                    idx = [i for i, w in enumerate(words) if paragraphs[i] >= 0]
                    sents, chains = self._annotator.parse_document([doc.sentences[i] for i in idx])
                    out = self._annotate(doc, words, paragraphs, parse, dict(zip(idx, sents)),
                                         _reindex(chains, idx), holes_of.get(id(doc), ()))
                elif per_doc is None:
                    idx = [i for i, f in enumerate(parse) if f]
                    parsed = dict(zip(idx, self._annotator.parse([doc.sentences[i] for i in idx]) if idx else []))
                    out = self._annotate(doc, words, paragraphs, parse, parsed, holes=holes_of.get(id(doc), ()))
                else:
                    out = self._annotate(doc, words, paragraphs, parse, per_doc[d], holes=holes_of.get(id(doc), ()))
            except Exception as e:  # pylint: disable=broad-except
                r = self.reject("annotator_error", doc.path or doc.source, doc.id, f"{type(e).__name__}: {e}",
                                " ".join(doc.sentences[:3]))
                out = [r] if r is not None else []
            for o in out:
                if o is not None:
                    yield o
            self.inc("passed")


class AnnotateDocuments(beam.PTransform):
    """PCollection[SegmentedDocument] -> {"annotated", "rejects", "counts"}."""

    def __init__(self, dataset="fusion", docs_per_batch=16, **annotator_kwargs):
        super().__init__()
        self.dataset = dataset
        self.docs_per_batch = docs_per_batch
        self.kwargs = annotator_kwargs

    def expand(self, docs):
        out = (docs
               | "BatchDocuments" >> beam.BatchElements(min_batch_size=1, max_batch_size=self.docs_per_batch)
               | "Annotate" >> beam.ParDo(AnnotateDocumentsFn(self.dataset, **self.kwargs)).with_outputs(
                   REJECTS, COUNTS, main="annotated"))
        return {"annotated": out.annotated, "rejects": out[REJECTS], "counts": out[COUNTS]}


class ReadConlluDocumentsFn(MiningDoFn):
    """CoNLL-U file path -> AnnotatedDocument per `# newdoc` (parsing skipped)."""

    def __init__(self, dataset="fusion", max_tokens=discofuse.MAX_SENTENCE_TOKENS, source="conllu"):
        super().__init__(dataset, "read_conllu")
        self.max_tokens = max_tokens
        self.source = source

    def process(self, path):
        from apache_beam.io.filesystems import FileSystems
        from miners.nlp.annotators import read_conllu
        try:
            with FileSystems.open(path) as f:
                text = f.read().decode("utf-8")
        except Exception as e:  # pylint: disable=broad-except
            r = self.reject("unreadable_input", path, path, f"{type(e).__name__}: {e}")
            if r is not None:
                yield r
            return
        for doc_id, sentences in read_conllu(text):
            sents, paragraphs = [], []
            for i, s in enumerate(sentences):
                bad = isinstance(s, Exception)
                if bad or len(s.tokens) > self.max_tokens:
                    r = self.reject("parse_error" if bad else "sentence_too_long", path, f"{doc_id}#{i}",
                                    str(s) if bad else f"{len(s.tokens)} tokens", "" if bad else s.text())
                    if r is not None:
                        yield r
                    sents.append(unparsed_sentence([]) if bad else unparsed_sentence(s.words()))
                    paragraphs.append(-1 - i)
                else:
                    sents.append(s)
                    paragraphs.append(0)
            self.inc("passed")
            yield AnnotatedDocument(id=doc_id, source=self.source, sentences=tuple(sents),
                                    paragraphs=tuple(paragraphs), chains=coref_lib.resolve(sents),
                                    coref=COREF_BUILTIN, annotator="conllu", path=path)


class ReadConlluDocuments(beam.PTransform):
    """PCollection[path] -> {"annotated", "rejects", "counts"}."""

    def __init__(self, dataset="fusion", **kwargs):
        super().__init__()
        self.dataset = dataset
        self.kwargs = kwargs

    def expand(self, paths):
        out = paths | "ReadConllu" >> beam.ParDo(ReadConlluDocumentsFn(self.dataset, **self.kwargs)).with_outputs(
            REJECTS, COUNTS, main="annotated")
        return {"annotated": out.annotated, "rejects": out[REJECTS], "counts": out[COUNTS]}
