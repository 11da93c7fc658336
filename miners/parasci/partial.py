"""Partial paraphrases: the part of a long sentence that paraphrases a short one (no Beam here).

ParaSCI (Dong, Wan and Cao, EACL 2021) §3.2. When one sentence of a candidate
pair is much longer than the other, its extra clauses dilute any whole-pair
score; the part that restates the short sentence is extracted instead. Two
extractors, one interface (`(short, long)` pairs in, one `PartialMatch` or None
per pair out):

  best_clause  (the paper's baseline, our default) the long sentence is cut at
               punctuation (, ; : parentheses, dashes) into clauses; every
               contiguous run of clauses except the whole sentence is embedded
               and the run most similar to the short sentence is kept when its
               cosine reaches the threshold. One `encode` call per batch of pairs.
  pdbert       (the paper's PDBERT) a span-extraction head (SQuAD-style start /
               end logits, "no span" on [CLS]) on the bundled MiniLM encoder,
               fine-tuned on pseudo data built from real paraphrase pairs
               (`pseudo_examples`, tools/train_pdbert.py); `SpanExtractor`.

Pseudo data (§3.2): for a paraphrase pair (A, B) and two random other sentences
C and D, input 1 is A and input 2 is C + B + D, each of C, B and D present with
probability 0.8 / 0.5 / 0.8, and C's and B's end punctuation removed (so the
seams are not marked by a full stop). The label is B's character span in
input 2. Our reading of "50% presence" for B: when B is left out, the example
teaches the model to answer "no span" (SQuAD 2.0's index 0), which is what lets
PDBERT return None like best_clause does. An input 2 that would be empty (no C,
B or D drawn) gets C.

Both extractors clean the span the same way (leading / trailing punctuation
and conjunctions such as "and", "while", "which" are dropped, the result is
still a substring of the long sentence, with its offsets), and both refuse the
whole long sentence and parts shorter than `MIN_WORDS` words.
"""
import dataclasses
import os
import re
from typing import List, Optional, Sequence, Tuple

from miners.parasci import pairs as ps
from schemas.base import SCORE_DECIMALS, quantize_score

# A part shorter than the parasci sentence floor is not a sentence-level paraphrase.
MIN_WORDS = ps.MIN_WORDS
# §3.2 pseudo data: presence of C, B and D in input 2.
PRESENCE = (0.8, 0.5, 0.8)
# Tokens of question + context fed to PDBERT (ParaSCI sentences average 19 words; C + B + D ~ 60).
PDBERT_MAX_LENGTH = 128
# The longest span PDBERT may answer, in tokens.
PDBERT_MAX_ANSWER_TOKENS = 96

# Clause boundaries: , ; : (not inside numbers such as 1,000 or 3:1), parentheses, dashes
# ("--", en / em dash, a hyphen with space on both sides; "phrase-based" is not cut).
_BOUNDARY_RE = re.compile(r"(?<!\d)[,:]|[,:](?!\d)|[;()\u2013\u2014]|--+|(?<=\s)-(?=\s)")
# Debris at the edges of an extracted part.
_EDGE_PUNCT = " \t\n.,;:!?-\u2013\u2014/'\"`"
_EDGE_WORDS = frozenset("""and but or nor so yet while whereas thus hence then therefore
moreover furthermore however also respectively""".split())
_EDGE_WORD_RE = re.compile(r"\w+")


@dataclasses.dataclass(frozen=True)
class PartialMatch:
    """The extracted part of a long sentence: `text == long[start:end]`."""
    text: str
    similarity: float  # cosine to the short sentence (NaN when no embedder scored it)
    start: int
    end: int
    method: str = "best_clause"
    score: float = 0.0  # best_clause: the cosine; pdbert: span logit minus the no-span logit


# --------------------------------------------------------------------------- spans

def split_clauses(text: str) -> List[Tuple[int, int]]:
    """(start, end) offsets of the clauses of a sentence, in order, whitespace trimmed.

    Separators are left out of every clause; a clause without a word character
    (a lone "." or "[CITATION]" is kept: it has letters) is dropped.
    """
    spans, pos = [], 0
    for m in list(_BOUNDARY_RE.finditer(text)) + [None]:
        end = m.start() if m else len(text)
        s, e = pos, end
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e and re.search(r"\w", text[s:e]):
            spans.append((s, e))
        pos = m.end() if m else len(text)
    return spans


def clean_span(text: str, start: int, end: int) -> Tuple[int, int]:
    """The span with leading / trailing punctuation and conjunctions removed (may become empty)."""
    changed = True
    while changed and start < end:
        changed = False
        while start < end and text[start] in _EDGE_PUNCT:
            start, changed = start + 1, True
        while end > start and text[end - 1] in _EDGE_PUNCT:
            end, changed = end - 1, True
        m = _EDGE_WORD_RE.match(text, start, end)
        if m and m.group().lower() in _EDGE_WORDS and m.end() < end and not text[m.end()].isalnum():
            start, changed = m.end(), True
        m = re.search(r"\w+$", text[start:end])
        if m and m.group().lower() in _EDGE_WORDS and start + m.start() > start \
                and not text[start + m.start() - 1].isalnum():
            end, changed = start + m.start(), True
    return start, end


def _balanced(part: str) -> bool:
    return part.count("(") == part.count(")") and part.count("[") == part.count("]")


def _acceptable(long_text: str, span: Tuple[int, int], whole: Tuple[int, int], min_words: int) -> bool:
    s, e = span
    if s >= e or span == whole:
        return False
    part = long_text[s:e]
    return len(ps.words(part)) >= min_words and _balanced(part) \
        and ps.normalise_text(part) != ps.normalise_text(long_text[whole[0]:whole[1]])


def candidate_spans(long_text: str, min_words: int = MIN_WORDS) -> List[Tuple[int, int]]:
    """Every cleaned contiguous run of clauses that may be extracted (not the whole sentence), in order."""
    clauses = split_clauses(long_text)
    whole = clean_span(long_text, 0, len(long_text))
    out, seen = [], set()
    for i in range(len(clauses)):
        for j in range(i, len(clauses)):
            if i == 0 and j == len(clauses) - 1:
                continue
            span = clean_span(long_text, clauses[i][0], clauses[j][1])
            if span not in seen and _acceptable(long_text, span, whole, min_words):
                seen.add(span)
                out.append(span)
    return out


# --------------------------------------------------------------------------- best clause (baseline)

def best_clauses(pairs: Sequence[Tuple[str, str]], embedder, threshold: float,
                 min_words: int = MIN_WORDS) -> List[Optional[PartialMatch]]:
    """The run of clauses of each long sentence most similar to its short sentence, or None.

    Args:
      pairs: (short_text, long_text) per pair.
      embedder: a `miners.nlp.embed.SentenceEmbedder` (or anything with `encode(texts)` returning
        L2-normalised rows); called once for the whole batch.
      threshold: the cosine the extracted part must reach.
      min_words: the shortest part kept, in words.

    Returns:
      One entry per pair: a `PartialMatch` (highest cosine; ties go to the earlier, then shorter
      span) or None when no run of clauses other than the whole sentence passes.
    """
    import numpy as np
    spans_per_pair = [candidate_spans(long_text or "", min_words) for _, long_text in pairs]
    texts, owners = [], []
    for k, ((short, long_text), spans) in enumerate(zip(pairs, spans_per_pair)):
        if not spans or not (short or "").strip():
            continue
        texts.append(short)
        texts.extend(long_text[s:e] for s, e in spans)
        owners.append(k)
    out: List[Optional[PartialMatch]] = [None] * len(pairs)
    if not texts:
        return out
    vectors = np.asarray(embedder.encode(texts), dtype=np.float32)
    row = 0
    for k in owners:
        long_text, spans = pairs[k][1], spans_per_pair[k]
        sims = np.round(vectors[row + 1:row + 1 + len(spans)] @ vectors[row], SCORE_DECIMALS)
        row += 1 + len(spans)
        best = int(np.argmax(sims))  # first maximum: spans are in (start, end) order
        if float(sims[best]) >= threshold:
            s, e = spans[best]
            out[k] = PartialMatch(text=long_text[s:e], similarity=quantize_score(sims[best]), start=s, end=e,
                                  method="best_clause", score=quantize_score(sims[best]))
    return out


# --------------------------------------------------------------------------- PDBERT pseudo data

@dataclasses.dataclass(frozen=True)
class PseudoExample:
    """One §3.2 training example: `question` is A, `context` is C + B + D, B at [start, end) or absent."""
    question: str
    context: str
    start: int = -1  # -1: B not in the context ("no span")
    end: int = -1
    parts: str = ""  # which of C, B, D are present, e.g. "CBD", "B", "CD"

    @property
    def answer(self) -> str:
        return self.context[self.start:self.end] if self.start >= 0 else ""


_END_PUNCT_RE = re.compile(r"[\s.!?;:,]+$")


def strip_end_punctuation(text: str) -> str:
    """'we use bleu .' -> 'we use bleu' (the seam between stitched sentences is left unmarked)."""
    return _END_PUNCT_RE.sub("", text.strip())


def pseudo_examples(pairs: Sequence[Tuple[str, str]], others: Sequence[str], rng,
                    presence: Tuple[float, float, float] = PRESENCE) -> List[PseudoExample]:
    """§3.2 pseudo data: A as input 1; C + B + D (presence 0.8 / 0.5 / 0.8) as input 2, B's span the label.

    Args:
      pairs: real paraphrase pairs (A, B).
      others: the pool C and D are drawn from (uniformly; a draw equal to A or B is drawn again).
      rng: a `random.Random` (seeded by the caller: the output is a function of it).
      presence: probabilities that C, B and D are in input 2.

    Returns:
      One example per pair, in order; pairs with an empty side are skipped.
    """
    out = []
    pool = [o.strip() for o in others if o and o.strip()]
    if not pool:
        raise ValueError("pseudo_examples needs at least one other sentence to draw C and D from")
    for a, b in pairs:
        a, b = (a or "").strip(), (b or "").strip()
        if not a or not b:
            continue
        keep_c, keep_b, keep_d = (rng.random() < p for p in presence)
        if not (keep_c or keep_b or keep_d):
            keep_c = True

        def draw():
            for _ in range(10):
                s = pool[rng.randrange(len(pool))]
                if s not in (a, b):
                    return s
            return s

        c, d = draw(), draw()  # always drawn: the random stream does not depend on presence
        pieces, start, end, pos = [], -1, -1, 0
        for name, text, keep in (("C", strip_end_punctuation(c), keep_c),
                                 ("B", strip_end_punctuation(b), keep_b), ("D", d, keep_d)):
            if not keep or not text:
                continue
            if pieces:
                pos += 1  # the joining space
            if name == "B":
                start, end = pos, pos + len(text)
            pieces.append(text)
            pos += len(text)
        parts = "".join(n for n, k in (("C", keep_c), ("B", keep_b), ("D", keep_d)) if k)
        out.append(PseudoExample(question=a, context=" ".join(pieces), start=start, end=end, parts=parts))
    return out


# --------------------------------------------------------------------------- PDBERT inference

class SpanExtractor:
    """PDBERT: a fine-tuned question-answering head; `extract(pairs)` like `best_clauses`.

    Cheap to construct and pickle; `load()` (DoFn.setup) reads the model directory once.
    With an `embedder`, every extracted part is scored by cosine to its short sentence
    (one `encode` call per batch) and, with a `threshold`, parts below it become None.
    """

    def __init__(self, model_dir: str, embedder=None, threshold: Optional[float] = None,
                 min_words: int = MIN_WORDS, max_length: int = PDBERT_MAX_LENGTH,
                 max_answer_tokens: int = PDBERT_MAX_ANSWER_TOKENS, batch_size: int = 32):
        self.model_dir = model_dir
        self.embedder = embedder
        self.threshold = threshold
        self.min_words = min_words
        self.max_length = max_length
        self.max_answer_tokens = max_answer_tokens
        self.batch_size = batch_size
        self._model = None
        self._tokenizer = None

    def load(self) -> "SpanExtractor":
        if self._model is not None:
            return self
        if not self.model_dir or not os.path.isfile(os.path.join(self.model_dir, "config.json")):
            raise RuntimeError(f"PDBERT model directory {self.model_dir!r} not found or has no config.json; "
                               f"train one with tools/train_pdbert.py --output DIR and pass it with "
                               f"--pdbert_model DIR (the hub is never used)")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from transformers import AutoModelForQuestionAnswering, AutoTokenizer
        self._tokenizer = AutoTokenizer.from_pretrained(self.model_dir, use_fast=True)
        self._model = AutoModelForQuestionAnswering.from_pretrained(self.model_dir).eval()
        return self

    def spans(self, pairs: Sequence[Tuple[str, str]]) -> List[Optional[Tuple[int, int, float]]]:
        """The raw answer per pair: (start, end, span score - no-span score) in the long text, or None."""
        import torch
        from miners.nlp.ct2 import MODEL_THREADS  # pylint: disable=import-outside-toplevel
        self.load()
        torch.set_num_threads(MODEL_THREADS)  # a span's score the same on any worker count
        out: List[Optional[Tuple[int, int, float]]] = []
        for i in range(0, len(pairs), self.batch_size):
            chunk = [((s or "").strip() or ".", l or "") for s, l in pairs[i:i + self.batch_size]]
            enc = self._tokenizer([s for s, _ in chunk], [l for _, l in chunk], truncation="only_second",
                                  max_length=self.max_length, padding=True, return_offsets_mapping=True,
                                  return_tensors="pt")
            offsets = enc.pop("offset_mapping")
            with torch.no_grad():
                res = self._model(**{k: v for k, v in enc.items() if k in ("input_ids", "attention_mask",
                                                                          "token_type_ids")})
            for row in range(len(chunk)):
                out.append(self._best_span(res.start_logits[row], res.end_logits[row], offsets[row],
                                           enc.sequence_ids(row), chunk[row][1]))
        return out

    def _best_span(self, start_logits, end_logits, offsets, sequence_ids, long_text):
        import torch
        ctx = torch.tensor([sid == 1 for sid in sequence_ids])
        if not bool(ctx.any()):
            return None
        null = float(start_logits[0] + end_logits[0])
        neg = torch.finfo(start_logits.dtype).min / 4
        st = torch.where(ctx, start_logits, torch.full_like(start_logits, neg))
        en = torch.where(ctx, end_logits, torch.full_like(end_logits, neg))
        n = st.shape[0]
        scores = st[:, None] + en[None, :]
        idx = torch.arange(n)
        valid = (idx[None, :] >= idx[:, None]) & (idx[None, :] - idx[:, None] < self.max_answer_tokens)
        scores = torch.where(valid, scores, torch.full_like(scores, neg * 2))
        flat = int(torch.argmax(scores))
        s_tok, e_tok = divmod(flat, n)
        best = float(scores[s_tok, e_tok])
        if best <= null:
            return None
        s, e = int(offsets[s_tok][0]), int(offsets[e_tok][1])
        # Whole words: a span that starts or ends inside a word is widened to it.
        while s > 0 and long_text[s - 1].isalnum() and long_text[s].isalnum():
            s -= 1
        while e < len(long_text) and long_text[e - 1].isalnum() and long_text[e].isalnum():
            e += 1
        return s, e, best - null

    def extract(self, pairs: Sequence[Tuple[str, str]]) -> List[Optional[PartialMatch]]:
        """One `PartialMatch` (method "pdbert") or None per (short, long) pair, same rules as best_clauses."""
        import numpy as np
        raw = self.spans(pairs)
        found: List[Optional[Tuple[int, int, float]]] = []
        for (_, long_text), r in zip(pairs, raw):
            if r is None:
                found.append(None)
                continue
            span = clean_span(long_text, r[0], r[1])
            whole = clean_span(long_text, 0, len(long_text))
            found.append((span[0], span[1], r[2]) if _acceptable(long_text, span, whole, self.min_words) else None)
        sims = [float("nan")] * len(pairs)
        keep = [k for k, f in enumerate(found) if f is not None]
        if self.embedder is not None and keep:
            texts = []
            for k in keep:
                texts += [pairs[k][0], pairs[k][1][found[k][0]:found[k][1]]]
            v = np.asarray(self.embedder.encode(texts), dtype=np.float32)
            for j, k in enumerate(keep):
                sims[k] = quantize_score(v[2 * j] @ v[2 * j + 1])
        out: List[Optional[PartialMatch]] = []
        for k, f in enumerate(found):
            if f is None or (self.threshold is not None and not sims[k] >= self.threshold):
                out.append(None)
                continue
            out.append(PartialMatch(text=pairs[k][1][f[0]:f[1]], similarity=sims[k], start=f[0], end=f[1],
                                    method="pdbert", score=f[2]))
        return out
