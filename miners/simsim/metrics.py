"""The five operation metrics of a complex -> simple pair, and their summary per dataset.

"Divide-and-Conquer Text Simplification by Scalable Data Enhancement" (the SimSim paper)
profiles simplification datasets by the operations their pairs perform (its Figure 1:
histograms per operation; its Table 2: the share of pairs that split). For every pair:

* `alignment`: BERTScore F1 (Zhang et al., ICLR 2020) of the simple side (candidate) against
  the complex side (reference), with `miners.quality.scoring.BertScorer` (the bundled MiniLM by
  default, unrescaled: unrelated English sentences score about 0.1-0.3, a pair with itself 1.0).
  A side without text scores 0.0.
* `substitution`: the share of the simple side's tokens that a simplifying PPDB 2.0 rule
  (Pavlick et al., ACL 2015; `miners.simsim.ppdb`) produced from a phrase of the complex side. A rule
  `phrase -> paraphrase` that fits the complex side (whole tokens, LHS tag agreement) counts
  when the simple side holds the paraphrase more often than the complex side does AND the
  phrase less often: the phrase went, the paraphrase came. Those occurrences of the paraphrase
  in the simple side (each token once) over the simple side's token count. `None` without PPDB
  rules: the substitution step of the paper cannot be measured, and nothing is guessed.
* `dropping`: the share of the complex side's tokens that the simple side discards:
  1 - |C ∩ S| / |C| over MULTISETS of lower-cased lemmas. A multiset, not a longest common
  subsequence, because a word that moved is reordered, not dropped (reordering is measured on
  its own), and a word said twice must survive twice; lemmas, because the tense and number
  changes that a split forces ("..., which was" -> "It was") discard no content. A substituted
  word is discarded too (the complex word is gone). Complex side without tokens: 0.0.
* `reordering`: the Jaccard similarity (Xu et al., as the SimSim paper cites it) of the two
  sides' SETS OF DEPENDENCY RELATIONS, a relation being the triple (head lemma, UD v2 deprel,
  dependent lemma), lower-cased, the root's head written `<root>`; `punct` relations are left
  out (a split changes punctuation, not structure). Every sentence of a multi-sentence side is
  parsed and its relations joined. 1.0 = the same relations (also when both sets are empty),
  lower = more restructuring (reordered clauses, voice changes, substitutions).
* `splitting`: the simple side has more sentences than the complex side
  (`miners.text.segmenter.segment`).

Tokens are the annotator's (spaCy `en_core_web_sm` by default, UD v2 labels through
`miners.nlp.annotators`), punctuation (UPOS `PUNCT`) left out of every count. Sides are
segmented with `miners.text.segmenter.segment`, each sentence parsed on its own; when the parser cuts
one of our sentences into several trees (spaCy's sentence boundaries inside ours, ~3% of
WikiSplit sentences), each piece is converted on its own, so no relation is lost.

    metrics = compute_metrics([(complex, simple), ...], bertscorer=BertScorer(), annotator=metrics_annotator())
    summary = summarize(metrics)            # per-metric mean/median/std/quantiles/histogram, split share

Plain Python, no Beam (ARCHITECTURE.md: reusable by every dataset's report).
"""
import collections
import dataclasses
import math
import threading
from typing import Dict, List, Optional, Sequence, Tuple

from miners.nlp.annotation import Sentence, unparsed_sentence
from miners.text.segmenter import segment

METRICS = ("alignment", "substitution", "dropping", "reordering", "splitting")
# The continuous metrics all live in [0, 1]: one set of bins for every dataset, so histograms overlay.
HISTOGRAM_BINS = 20
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
ROOT_HEAD = "<root>"
_PUNCT_UPOS = "PUNCT"
_PUNCT_DEPREL = "punct"

Pair = Tuple[str, str]


@dataclasses.dataclass(frozen=True)
class OperationMetrics:
    """The five operation metrics of one (complex, simple) pair (module docstring).

    Attributes:
      alignment: BERTScore F1 of simple against complex.
      substitution: share of simple tokens produced by simplifying PPDB rules; None without PPDB.
      dropping: share of complex tokens discarded.
      reordering: Jaccard similarity of the dependency relation sets.
      splitting: the simple side has more sentences.
      complex_sentences, simple_sentences: sentence counts of each side.
    """
    alignment: float
    substitution: Optional[float]
    dropping: float
    reordering: float
    splitting: bool
    complex_sentences: int = 1
    simple_sentences: int = 1

    def record_fields(self) -> dict:
        """The metric fields of `schemas.records.SimplificationExample`, for `dataclasses.replace`."""
        return {"alignment": self.alignment, "substitution": self.substitution or 0.0,
                "has_substitution_metric": self.substitution is not None, "dropping": self.dropping,
                "reordering": self.reordering, "splitting": self.splitting}


# --------------------------------------------------------------------------- the pure measures

def dropping(complex_lemmas: Sequence[str], simple_lemmas: Sequence[str]) -> float:
    """1 - |C ∩ S| / |C| over multisets (lower-cased lemmas, punctuation already removed)."""
    if not complex_lemmas:
        return 0.0
    kept = collections.Counter(complex_lemmas) & collections.Counter(simple_lemmas)
    return (len(complex_lemmas) - sum(kept.values())) / len(complex_lemmas)


def relations(sentences: Sequence[Sentence]) -> set:
    """{(head lemma, deprel, dependent lemma)} of parsed sentences, `punct` left out."""
    out = set()
    for s in sentences:
        if not s.parsed:
            continue
        for t in s.tokens:
            if t.deprel == _PUNCT_DEPREL:
                continue
            head = ROOT_HEAD if t.head < 0 else s.tokens[t.head].lemma.lower()
            out.add((head, t.deprel, t.lemma.lower()))
    return out


def jaccard(a: set, b: set) -> float:
    """|A ∩ B| / |A ∪ B|; 1.0 when both are empty."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _count(seq: Sequence[str], sub: Tuple[str, ...]) -> List[int]:
    """Start positions of `sub` in `seq`."""
    n = len(sub)
    return [i for i in range(len(seq) - n + 1) if tuple(seq[i:i + n]) == sub]


def _cut(seq: Sequence[str], starts: Sequence[int], length: int) -> List[str]:
    """seq with the non-overlapping spans [start, start + length) replaced by one empty token each."""
    out, pos = [], 0
    for start in starts:
        if start < pos:
            continue
        out += list(seq[pos:start]) + [""]
        pos = start + length
    return out + list(seq[pos:])


def substitution(complex_sentences: Sequence[Sentence], simple_sentences: Sequence[Sentence], ppdb) -> float:
    """Share of the simple side's non-punctuation tokens produced by simplifying PPDB rules.

    Args:
      complex_sentences, simple_sentences: annotated sentences of each side (tags used for the
        rules' LHS agreement).
      ppdb: a `miners.simsim.ppdb.PPDBRules`.
    """
    c_words = [t.text.lower() for s in complex_sentences for t in s.tokens]
    s_tokens = [t for s in simple_sentences for t in s.tokens]
    s_words = [t.text.lower() for t in s_tokens]
    content = [t.upos != _PUNCT_UPOS for t in s_tokens]
    if not any(content):
        return 0.0
    covered = [False] * len(s_words)
    seen = set()
    for sent in complex_sentences:
        tags = [t.xpos for t in sent.tokens] if sent.parsed and all(t.xpos for t in sent.tokens) else None
        for cand in ppdb.candidates(sent.words(), tags):
            rule = cand.rule
            if (rule.phrase, rule.paraphrase) in seen:
                continue
            seen.add((rule.phrase, rule.paraphrase))
            phrase_in_complex = _count(c_words, rule.phrase)
            if len(_count(s_words, rule.phrase)) >= len(phrase_in_complex):
                continue  # the phrase did not go
            # the paraphrase must be new: more often in the simple side than in the complex side
            # outside the phrase ("in order to -> to": the "to" of the phrase does not count)
            residual = _cut(c_words, phrase_in_complex, len(rule.phrase))
            para_in_simple = _count(s_words, rule.paraphrase)
            surplus = len(para_in_simple) - len(_count(residual, rule.paraphrase))
            if surplus <= 0:
                continue
            for start in para_in_simple:
                span = range(start, start + len(rule.paraphrase))
                if any(covered[i] for i in span):
                    continue
                for i in span:
                    covered[i] = True
                surplus -= 1
                if surplus == 0:
                    break
    return sum(c and k for c, k in zip(covered, content)) / sum(content)


# --------------------------------------------------------------------------- parsing

_DEFAULT_LOCK = threading.Lock()
_DEFAULTS: Dict[str, object] = {}


def metrics_annotator(spacy_model: str = "en_core_web_sm"):
    """The spaCy annotator of `miners.nlp.annotators`, its NER off (the metrics use none: ~40% faster).

    One per process (cached): build it once per worker (DoFn.setup) and pass it to `compute_metrics`.
    """
    key = f"annotator:{spacy_model}"
    with _DEFAULT_LOCK:
        if key not in _DEFAULTS:
            _DEFAULTS[key] = parser_without_ner(spacy_model)
        return _DEFAULTS[key]


def parser_without_ner(spacy_model: str = "en_core_web_sm", batch_size: int = 64):
    """A new spaCy annotator with its NER off: the metrics and SimSim's simulated edits read the
    parse, tags and lemmas only, which come before NER in the pipeline and do not depend on it."""
    from miners.nlp.annotators import make_annotator
    annotator = make_annotator("spacy", spacy_model=spacy_model, batch_size=batch_size)
    if "ner" in annotator.nlp.pipe_names:
        annotator.nlp.disable_pipe("ner")
    return annotator


def _default_bertscorer():
    with _DEFAULT_LOCK:
        if "bertscorer" not in _DEFAULTS:
            from miners.quality.scoring import BertScorer
            _DEFAULTS["bertscorer"] = BertScorer()
        return _DEFAULTS["bertscorer"]


def _reparse_pieces(annotator, text: str) -> List[Sentence]:
    """Sentences of a text the parser cut in several trees: each spaCy sentence converted alone."""
    from miners.nlp.annotators import ParseError, sentence_from_spacy
    nlp = getattr(annotator, "nlp", None)
    if nlp is None or not hasattr(nlp, "pipe_names"):  # not spaCy: keep the tokens, no relations
        return [unparsed_sentence(annotator.tokenize(text))]
    out = []
    for span in nlp(text).sents:
        try:
            out.append(sentence_from_spacy(span.as_doc()))
        except ParseError:
            out.append(unparsed_sentence([t.text for t in span if not t.is_space]))
    return out


class ParseCache:
    """The last `size` parsed sentences (text -> Sentence pieces), least recently used dropped first.

    A seed's complex side comes back in every record made from it (each back-translation, the
    selected one, the simulated one), sometimes in the next batch: a worker keeps one cache across
    batches so such a text is parsed once. Parses are deterministic, so a hit gives what a re-parse
    would. (The quality stage hands SimSim's records over grouped by complex side, so a small
    cache suffices.)
    """

    def __init__(self, size: int = 4096):
        self.size = size
        self._items: "collections.OrderedDict[str, List[Sentence]]" = collections.OrderedDict()
        self.hits = self.misses = 0

    def get(self, text: str) -> Optional[List[Sentence]]:
        pieces = self._items.get(text)
        if pieces is None:
            self.misses += 1
            return None
        self._items.move_to_end(text)
        self.hits += 1
        return pieces

    def put(self, text: str, pieces: List[Sentence]) -> None:
        self._items[text] = pieces
        self._items.move_to_end(text)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


def parse_sides(annotator, pairs: Sequence[Pair], cache: Optional[ParseCache] = None
                ) -> List[Tuple[List[List[Sentence]], List[List[Sentence]]]]:
    """Segment both sides of every pair and parse each distinct sentence once (once per worker
    with a `cache` kept across batches).

    Returns, per pair, (complex sentences, simple sentences), each sentence a list of Sentence
    pieces (one, unless the parser cut it).
    """
    from miners.nlp.annotators import ParseError
    sides = [(segment(c)[0], segment(s)[0]) for c, s in pairs]
    distinct = sorted({sent for c, s in sides for sent in c + s})
    parsed = {}
    if cache is not None:
        for text in distinct:
            pieces = cache.get(text)
            if pieces is not None:
                parsed[text] = pieces
    todo = [text for text in distinct if text not in parsed]
    for text, result in zip(todo, annotator.parse(todo) if todo else []):
        parsed[text] = _reparse_pieces(annotator, text) if isinstance(result, ParseError) else [result]
        if cache is not None:
            cache.put(text, parsed[text])
    return [([parsed[x] for x in c], [parsed[x] for x in s]) for c, s in sides]


# --------------------------------------------------------------------------- the batch

def compute_metrics(pairs: Sequence[Pair], *, bertscorer=None, annotator=None, ppdb=None,
                    alignments: Optional[Sequence[float]] = None,
                    parse_cache: Optional[ParseCache] = None) -> List[OperationMetrics]:
    """The five operation metrics of each (complex, simple) pair, in order.

    Args:
      pairs: (complex, simple) texts; a side may hold several sentences.
      bertscorer: a `miners.quality.scoring.BertScorer` (default: the bundled MiniLM, loaded once per process).
      annotator: a `miners.nlp.annotators.Annotator` (default: `metrics_annotator()`).
      ppdb: a `miners.simsim.ppdb.PPDBRules`, or None: substitution is then None.
      alignments: BERTScore F1 per pair already computed (e.g. by a quality filter): used as is,
        nothing is re-scored and `bertscorer` is not loaded.
      parse_cache: parses kept across calls (one per worker); None parses every sentence of the batch.

    Returns:
      One OperationMetrics per pair.
    """
    pairs = [(c or "", s or "") for c, s in pairs]
    if alignments is not None:
        alignments = [float(a) for a in alignments]
        if len(alignments) != len(pairs):
            raise ValueError(f"{len(alignments)} alignments for {len(pairs)} pairs")
    else:
        scorable = [i for i, (c, s) in enumerate(pairs) if c.strip() and s.strip()]
        alignments = [0.0] * len(pairs)
        if scorable:
            scorer = bertscorer or _default_bertscorer()
            f1 = scorer.score([pairs[i][1] for i in scorable], [pairs[i][0] for i in scorable])
            for i, x in zip(scorable, f1):
                alignments[i] = x
    annotator = annotator or metrics_annotator()
    out = []
    for (c_groups, s_groups), align in zip(parse_sides(annotator, pairs, parse_cache), alignments):
        c_sents = [p for g in c_groups for p in g]
        s_sents = [p for g in s_groups for p in g]
        c_lemmas = [t.lemma.lower() for s in c_sents for t in s.tokens if t.upos != _PUNCT_UPOS]
        s_lemmas = [t.lemma.lower() for s in s_sents for t in s.tokens if t.upos != _PUNCT_UPOS]
        out.append(OperationMetrics(
            alignment=align,
            substitution=None if ppdb is None else substitution(c_sents, s_sents, ppdb),
            dropping=dropping(c_lemmas, s_lemmas),
            reordering=jaccard(relations(c_sents), relations(s_sents)),
            splitting=len(s_groups) > len(c_groups),
            complex_sentences=len(c_groups), simple_sentences=len(s_groups)))
    return out


# --------------------------------------------------------------------------- summaries

def _round(x: float) -> float:
    return round(float(x), 6)


def histogram(values: Sequence[float], bins: int = HISTOGRAM_BINS) -> dict:
    """Counts and fractions of values in `bins` equal bins over [0, 1] (values clipped to it)."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, max(0, int(math.floor(min(1.0, max(0.0, v)) * bins))))] += 1
    n = len(values)
    return {"edges": [_round(i / bins) for i in range(bins + 1)], "counts": counts,
            "fractions": [_round(c / n) if n else 0.0 for c in counts]}


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (numpy's default) of sorted values."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def describe(values: Sequence[float]) -> dict:
    """count, mean, std (population), min, max, median, quantiles and histogram of values in [0, 1]."""
    values = [float(v) for v in values]
    n = len(values)
    if not n:
        return {"count": 0}
    s = sorted(values)
    mean = sum(s) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in s) / n)
    return {"count": n, "mean": _round(mean), "std": _round(std), "min": _round(s[0]), "max": _round(s[-1]),
            "median": _round(_quantile(s, 0.5)),
            "quantiles": {f"{q:g}": _round(_quantile(s, q)) for q in QUANTILES},
            "histogram": histogram(s)}


def summarize(metrics: Sequence[OperationMetrics]) -> dict:
    """Per-metric summaries of a dataset's pairs and the share of pairs that split.

    Returns:
      {"pairs": n, "split_share": share, "metrics": {name: describe(...)}}; `splitting` holds
      {"count", "splits", "share"}; `substitution` is absent when no pair has it (no PPDB).
    """
    n = len(metrics)
    splits = sum(m.splitting for m in metrics)
    share = _round(splits / n) if n else 0.0
    out = {"alignment": describe([m.alignment for m in metrics])}
    subs = [m.substitution for m in metrics if m.substitution is not None]
    if subs:
        out["substitution"] = describe(subs)
    out["dropping"] = describe([m.dropping for m in metrics])
    out["reordering"] = describe([m.reordering for m in metrics])
    out["splitting"] = {"count": n, "splits": splits, "share": share}
    return {"pairs": n, "split_share": share, "metrics": out}
