"""WikiSplit: split-and-rephrase pairs from adjacent Wikipedia revisions.

Botha, Faruqui, Alex, Baldridge, Das: "Learning To Split and Rephrase From
Wikipedia Edit History", EMNLP 2018, section 2.1. For a sentence C of one
revision and consecutive sentences S1, S2 of the other revision:
  * C and S1 share their first three tokens (trigram prefix),
  * C and S2 share their last three tokens (trigram suffix),
  * S1 and S2 have different trigram suffixes,
searched in both temporal directions. Candidates are kept when sentence BLEU
with C as hypothesis and each of S1, S2 as reference is >= 0.2 for both (over
the release's tokens, as the trigram conditions: `token_bleu`); the
best candidate per C is kept. Noise filters (the paper's footnote): a token
repeated more than three times in a row, a token longer than 25 characters,
profane vandalism.

Only text that changed is examined: the two revisions' wikitext is cut into
blocks (paragraphs, kept whole across multi-line templates and tables); blocks
present in both revisions are never cleaned or segmented again, and sentences
present in both are not candidates.

Element shapes: `RevisionPair` -> `MineResult(examples=[SplitExample], rejects=[CandidateReject])`.
"""
import collections
import functools
import os
import re
import typing

from miners.text import segmenter as text_lib
from miners.text import tokens as tokens_lib
from miners.sources.history import RevisionPair
from schemas.records import TEMPLATE_HOLE, SplitExample
from schemas.release import tokenize_punct

MIN_BLEU = 0.2  # WikiSplit §2.1: sentence BLEU(C, S_i) >= 0.2 for both simple sentences
NGRAM = 3  # WikiSplit §2.1: shared trigram prefix (C, S1) and suffix (C, S2)
MAX_REPEAT = 3  # WikiSplit §2.1 footnote: drop a token repeated more than three times in a row
MAX_TOKEN_CHARS = 25  # WikiSplit §2.1 footnote: drop a token longer than 25 characters
#: Cache of cleaned blocks per worker (entries); bounds memory on long pages.
BLOCK_CACHE_SIZE = 512

_RESOURCES = os.path.join(os.path.dirname(__file__), "resources")
_BLOCK_SPLIT = re.compile(r"\n[ \t]*\n+")


@functools.lru_cache(maxsize=None)
def profanity() -> frozenset:
    """The profane-vandalism word list (lower-case tokens)."""
    with open(os.path.join(_RESOURCES, "profanity.txt"), encoding="utf-8") as f:
        return frozenset(w.strip().lower() for w in f if w.strip() and not w.startswith("#"))


def tokens(sentence: str, language: str = "en") -> typing.List[str]:
    """Tokens as in the release for English (split on whitespace after punctuation tokenization);
    Unicode words, characters for Chinese and Japanese, in other languages (`miners.text.tokens`)."""
    if language == "en":
        return tokenize_punct(sentence).split()
    return tokens_lib.tokens(sentence, language)


@functools.lru_cache(maxsize=1)
def _bleu():
    import sacrebleu
    # Same settings as sacrebleu.sentence_bleu (13a tokenizer, exp smoothing, effective order),
    # built once: constructing the metric per call dominates its cost.
    return sacrebleu.BLEU(tokenize="13a", smooth_method="exp", effective_order=True)


#: sacrebleu memoises its tokenizer in an LRU of 65,536 sentences; we clear it beyond this
#: many so that a worker's memory does not grow with the number of candidates it has scored.
BLEU_CACHE_ENTRIES = 1024


def sentence_bleu(hypothesis: str, reference: str) -> float:
    """sacrebleu sentence BLEU in [0, 1]."""
    score = _bleu().sentence_score(hypothesis, [reference]).score / 100.0
    caches = _bleu_caches()
    if caches and caches[0].cache_info().currsize > BLEU_CACHE_ENTRIES:
        for cached in caches:
            cached.cache_clear()
    return score


def token_bleu(hypothesis: typing.Sequence[str], reference: typing.Sequence[str]) -> float:
    """`sentence_bleu` of two sentences given as release tokens (`tokens`).

    The heuristic scores the tokens its trigram conditions read, as the release gives them, and
    as the quality stage scores the records (`miners.quality.scoring.sentence_bleu`, the same value):
    13a over raw text keeps `Bread's` and `"Title".` whole where the release has `Bread 's` and
    `'' Title '' .`, so the miner dropped pairs the quality stage keeps. Measured on the 5,000 pairs of ../shared/data/wikisplit/tune.tsv written
    back as plain text: BLEU >= 0.2 for both sides holds for 4,961 on the release's own text,
    4,931 on the plain text, 4,953 on the plain text re-tokenized (`tokens`).
    """
    return sentence_bleu(" ".join(hypothesis), " ".join(reference))


@functools.lru_cache(maxsize=1)
def _bleu_caches():
    """The LRU-cached tokenizer calls inside sacrebleu's BLEU (13a and its regexp post-tokenizer)."""
    tok = _bleu().tokenizer
    found = []
    for obj in [tok] + list(vars(tok).values()):
        call = getattr(type(obj), "__call__", None)
        if hasattr(call, "cache_info") and call not in found:
            found.append(call)
    return tuple(found)


def noise_reason(toks: typing.Sequence[str]) -> typing.Optional[str]:
    """Return the paper's noise-filter reason for a tokenized sentence, or None."""
    run = 1
    bad_words = profanity()
    for i, t in enumerate(toks):
        if len(t) > MAX_TOKEN_CHARS:
            return "long_token"
        if i and t == toks[i - 1]:
            run += 1
            if run > MAX_REPEAT:
                return "repeated_token"
        else:
            run = 1
        if t.lower() in bad_words:
            return "profanity"
    return None


def trigram_match(c: typing.Sequence[str], s1: typing.Sequence[str], s2: typing.Sequence[str]) -> bool:
    """The paper's trigram conditions over token lists."""
    return (len(c) >= NGRAM and len(s1) >= NGRAM and len(s2) >= NGRAM
            and c[:NGRAM] == s1[:NGRAM] and c[-NGRAM:] == s2[-NGRAM:] and s1[-NGRAM:] != s2[-NGRAM:])


class CandidateReject(typing.NamedTuple):
    """A candidate that met the trigram conditions but failed a filter."""
    reason: str  # "template_hole", "low_bleu", "long_token", "repeated_token", "profanity"
    complex: str
    simple1: str
    simple2: str
    detail: str = ""


class Candidate(typing.NamedTuple):
    complex: str
    simple1: str
    simple2: str
    bleu1: float
    bleu2: float


def find_splits(complex_sentences: typing.Iterable[str], simple_sequences: typing.Iterable[typing.Sequence[str]],
                min_bleu: float = MIN_BLEU, inc=None, language: str = "en"):
    """Split candidates of one direction.

    Args:
      complex_sentences: candidate C sentences (only in the C-side revision).
      simple_sequences: runs of consecutive sentences of the other revision that are
        not in the C-side revision; S1, S2 are taken from adjacent positions.
      min_bleu: BLEU threshold for both simple sentences.
      inc: counter increment function `inc(name)`.
      language: the text's (Wikimedia code): chooses the tokens the trigram and BLEU tests read
        (`tokens`: the release's for English, Unicode words or CJK characters otherwise).

    Returns:
      (candidates, rejects): the best kept candidate per C, and the rejected ones.
    """
    inc = inc or (lambda name, n=1: None)
    by_prefix = collections.defaultdict(list)  # first trigram of S1 -> [(s1, s2, s1 toks, s2 toks)]
    for seq in simple_sequences:
        toks = [tokens(s, language) for s in seq]
        for i in range(len(seq) - 1):
            if len(toks[i]) >= NGRAM:
                by_prefix[tuple(toks[i][:NGRAM])].append((seq[i], seq[i + 1], toks[i], toks[i + 1]))
    kept, rejects = [], []
    if not by_prefix:
        return kept, rejects
    for c in complex_sentences:
        ct = tokens(c, language)
        if len(ct) < NGRAM:
            continue
        best = None
        for s1, s2, t1, t2 in by_prefix.get(tuple(ct[:NGRAM]), ()):
            if not trigram_match(ct, t1, t2):
                continue
            inc("trigram_match")
            if TEMPLATE_HOLE in c or TEMPLATE_HOLE in s1 or TEMPLATE_HOLE in s2:
                # the wikitext cleaner dropped a template from inside a sentence: not the text
                rejects.append(CandidateReject("template_hole", c, s1, s2))
                continue
            reason = noise_reason(ct) or noise_reason(t1) or noise_reason(t2)
            if reason:
                rejects.append(CandidateReject(reason, c, s1, s2))
                continue
            b1, b2 = token_bleu(ct, t1), token_bleu(ct, t2)
            if b1 < min_bleu or b2 < min_bleu:
                rejects.append(CandidateReject("low_bleu", c, s1, s2, f"bleu1={b1:.3f} bleu2={b2:.3f}"))
                continue
            cand = Candidate(c, s1, s2, b1, b2)
            if best is None or _rank(cand) > _rank(best):
                best = cand
        if best is not None:
            kept.append(best)
    return kept, rejects


def _rank(c: Candidate):
    # Best candidate per C: the higher worse-of-two BLEU, then the higher sum, then text order.
    return (min(c.bleu1, c.bleu2), c.bleu1 + c.bleu2, c.simple1, c.simple2)


def split_blocks(wikitext: str) -> typing.List[str]:
    """Cut wikitext at blank lines, keeping templates and tables that span blank lines whole."""
    out, pending, depth = [], [], 0
    for part in _BLOCK_SPLIT.split(wikitext):
        pending.append(part)
        if "{" in part or "}" in part:  # most paragraphs have no braces: skip the counting
            depth += part.count("{{") - part.count("}}") + part.count("{|") - part.count("|}")
        if depth <= 0:
            out.append("\n\n".join(pending))
            pending, depth = [], 0
    if pending:
        out.append("\n\n".join(pending))
    return [b for b in (b.strip() for b in out) if b]


class BlockSegmenter:
    """Wikitext block -> tuple of sentences (cleaned, segmented), with a bounded LRU cache."""

    def __init__(self, cleaner=None, cache_size: int = BLOCK_CACHE_SIZE, language: str = "en",
                 hidden_namespaces=None):
        """`language`: the segmenter's (`miners.text.sentences`); `hidden_namespaces`: the dumps' file and
        category link prefixes, for the default cleaner (`miners.text.wikitext.clean_wikitext`)."""
        if cleaner is None:
            from miners.text.wikitext import clean_wikitext
            cleaner = clean_wikitext if hidden_namespaces is None else functools.partial(
                clean_wikitext, hidden_namespaces=hidden_namespaces)
        self._clean = cleaner
        from miners.text import sentences as sentences_lib
        self._segment = text_lib.segment if sentences_lib.splitter_for(language) is text_lib.split_sentences \
            else functools.partial(sentences_lib.segment, lang=language)
        self.language = language or "en"
        self._cache = collections.OrderedDict()
        self._cache_size = cache_size
        self._recent_blocks = []

    def blocks(self, wikitext: str) -> typing.List[str]:
        """`split_blocks`, memoised for the last two texts (each revision is in two adjacent pairs)."""
        for text, blocks in self._recent_blocks:
            if text is wikitext:
                return blocks
        blocks = split_blocks(wikitext)
        self._recent_blocks = [self._recent_blocks[-1], (wikitext, blocks)] if self._recent_blocks \
            else [(wikitext, blocks)]
        return blocks

    def __call__(self, block: str) -> typing.Tuple[str, ...]:
        hit = self._cache.get(block)
        if hit is not None:
            self._cache.move_to_end(block)
            return hit
        # A cleaner error propagates: the caller rejects the revision pair.
        sentences, _ = self._segment(self._clean(block))
        self._cache[block] = sentences
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return sentences


class MineResult(typing.NamedTuple):
    examples: typing.List[SplitExample]
    rejects: typing.List[CandidateReject]


def mine_revision_pair(pair: RevisionPair, segmenter: BlockSegmenter, min_bleu: float = MIN_BLEU,
                       inc=None, source: str = "wikipedia_history") -> MineResult:
    """Split examples of one pair of adjacent revisions, both directions.

    The text's language is the segmenter's (`BlockSegmenter.language`): it chooses the tokens.
    Raises whatever the cleaner raises (e.g. `miners.text.wikitext.WikitextError`).
    """
    inc = inc or (lambda name, n=1: None)
    language = getattr(segmenter, "language", "en")
    before, after = pair
    blocks_b, blocks_a = segmenter.blocks(before.text), segmenter.blocks(after.text)
    set_b, set_a = set(blocks_b), set(blocks_a)
    changed_b = [segmenter(b) for b in blocks_b if b not in set_a]
    changed_a = [segmenter(b) for b in blocks_a if b not in set_b]
    if not changed_b or not changed_a:
        inc("no_changed_text")
        return MineResult([], [])
    sents_b = {s for seq in changed_b for s in seq}
    sents_a = {s for seq in changed_a for s in seq}
    only_b = sents_b - sents_a
    only_a = sents_a - sents_b
    if not only_b or not only_a:
        inc("no_changed_sentence")
        return MineResult([], [])
    examples, rejects = [], []
    for direction, c_side, other_seqs, other_only in (
            ("forward", only_b, changed_a, only_a), ("backward", only_a, changed_b, only_b)):
        runs = _runs(other_seqs, other_only)
        kept, rej = find_splits(sorted(c_side), runs, min_bleu=min_bleu, inc=inc, language=language)
        rejects.extend(rej)
        for cand in kept:
            examples.append(SplitExample(
                complex=cand.complex, simple1=cand.simple1, simple2=cand.simple2,
                page_id=after.page_id, title=after.title,
                revision_before=before.revision_id, revision_after=after.revision_id,
                timestamp_before=before.timestamp, timestamp_after=after.timestamp,
                direction=direction, bleu1=cand.bleu1, bleu2=cand.bleu2, source=source))
    return MineResult(examples, rejects)


def _runs(sequences, only):
    """Maximal runs of consecutive sentences that all belong to `only`."""
    runs = []
    for seq in sequences:
        run = []
        for s in seq:
            if s in only:
                run.append(s)
            else:
                if len(run) >= 2:
                    runs.append(run)
                run = []
        if len(run) >= 2:
            runs.append(run)
    return runs


def best_of(examples: typing.Iterable[SplitExample]) -> SplitExample:
    """The one example kept for a complex sentence found in several revision pairs.

    Deterministic: highest worse-of-two BLEU, then earliest revision, then text.
    """
    return min(examples, key=lambda e: (-min(e.bleu1, e.bleu2), -(e.bleu1 + e.bleu2),
                                        e.revision_before, e.revision_after, e.page_id,
                                        e.direction, e.simple1, e.simple2))
