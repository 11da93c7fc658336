"""Discovery: sentence pairs whose second sentence starts with a discourse marker.

Sileo, Van de Cruys, Pradel and Muller, "Mining Discourse Markers for
Unsupervised Sentence Representation Learning", NAACL 2019, section 3:

  * candidates: consecutive sentences (s1, s2) where s2 starts with a
    candidate marker: a PDTB seed marker (Prasad et al. 2008), or a
    sentence-initial adverb followed by a comma ("Surprisingly,"), found
    with a POS tagger;
  * the marker is removed from s2 and the pair is labelled with it;
  * noisy sentences are filtered (length, language, casing, punctuation);
  * markers are kept when frequent enough (10k occurrences) and capped
    (200k for Discovery-big); the base set is balanced.

The released notebook (synapse-developpement/Discovery) adds two things kept
here: "and"/"but" pairs are subsampled to 10%, and pairs without a marker are
kept at 0.2% as the `[no-conn]` class. Its marker test was a plain string
prefix; here word boundaries are enforced ("and" does not match "Andrew",
"so," does not match "Sometimes,").

Everything here is plain Python over `schemas` records; the Beam wrappers are
in `transforms/discovery.py`. Counters go through an `inc(name)` function.
"""
import dataclasses
import importlib.resources
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from miners.hashing import stable_fraction, stable_hash  # noqa: F401 (part of this module's API)
from miners.text import tokens as tokens_lib
from miners.text.segmenter import iter_consecutive_pairs, word_count
from miners.text.tokens import CHARACTER_LANGUAGES
from schemas.records import TEMPLATE_HOLE, MarkerExample, SegmentedDocument, SentencePair, without_template_holes

DATASET = "markers"

# --- Thresholds (paper defaults) -----------------------------------------
# Sileo et al. 2019, section 3 ("heuristics"): sentences of 3 to 32 words.
MIN_WORDS = 3
MAX_WORDS = 32
# Section 3: fastText language identification, English with probability > 0.75.
MIN_ENGLISH_PROB = 0.75
# Section 3: "more than 50% of letters"; measured here as letters / non-space characters.
MIN_LETTER_RATIO = 0.5
# Section 3 asks for "mostly lowercase" sentences without giving a number; we read
# "mostly" literally: at most half of the letters may be upper case. Normal prose is
# far below (about 3-5% on the bundled Wikipedia sample); headlines in capitals are near 1.
MAX_UPPER_RATIO = 0.5
# Released notebook: "and" / "but" are so frequent that they are kept at 10%,
# and pairs without any marker are kept at 0.2% as the `[no-conn]` class.
SUBSAMPLED_MARKERS = ("and", "but")
SUBSAMPLED_MARKER_RATE = 0.1
NO_CONN_RATE = 0.002
NO_CONN_LABEL = "[no-conn]"
# Section 3: markers kept when seen at least 10k times; Discovery-big caps each at
# 200k; the base Discovery set has 10k examples for each of its 174 markers (1.74M pairs).
MIN_MARKER_COUNT = 10_000
MAX_PER_MARKER = 200_000
EXAMPLES_PER_MARKER = 10_000
TOP_MARKERS = 10  # the `top10` variant
# Not from the paper: the document-level check (first characters of a document, run
# before segmentation) is lenient because wiki leftovers lower the score; the
# sentence-level check above is the paper's.
DOCUMENT_LANGID_CHARS = 1000
MIN_DOCUMENT_ENGLISH_PROB = 0.5
# Penn Treebank tags that make a sentence-initial "Word," a discovered marker.
ADVERB_TAGS = frozenset({"RB"})
# Fixed context in which a candidate adverb is tagged: the decision then depends on the
# word form only, so a per-worker cache gives the same answer on every worker and run.
ADVERB_CONTEXT = "{word}, it was done."

# Not from the paper (issue 43): a sentence that ends with a colon announces what follows it, a
# quote, a list or a formula that the wikitext cleaner dropped (a template or a list block), so it is
# no sentence of a pair: "The island is divided into eight districts, which are:", "Вона зазначить, що
# в Лариси:", "...首次為「民族」提出了定義：". The colons of every script: ASCII, full-width (CJK), the
# small and vertical presentation forms, Ethiopic's colon and preface colon. Armenian's full stop `։`
# (U+0589) looks like a colon but ends every Armenian sentence: not one of them.
# A marker followed by one of them is no marker, in any language ("For example: ...", "Наприклад:
# кілобайт ...", "例如：..."): it announces a list or quote, and s2 without it would start with the colon.
COLONS = ":\uff1a\ufe55\ufe13\u1365\u1366"

REASONS = ("template_hole", "ends_with_colon", "no_marker", "subsampled", "too_short", "too_long", "not_english", "wrong_language",
           "low_letter_ratio", "unbalanced_parentheses", "odd_quotes", "too_much_uppercase")
# Reasons that cover most pairs of a corpus: counted in full, written to rejects as a sample.
BULK_REASONS = ("no_marker", "subsampled")

_RESOURCES = "miners.discovery.resources"


# --- Deterministic sampling (same function as transforms.common, without Beam) ---


def pair_key(doc_id: str, index: int) -> str:
    return f"{doc_id}|{index}"


def example_rank(example: MarkerExample, seed: int = 0, purpose: str = "select") -> int:
    """Rank used for every deterministic cap/sample of examples: lowest first."""
    return stable_hash(pair_key(example.doc_id, example.sentence_index), f"{seed}|{purpose}")


# --- Marker lists ----------------------------------------------------------
def _read_resource(name: str) -> List[str]:
    text = importlib.resources.files(_RESOURCES).joinpath(name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]


def load_release_labels() -> List[str]:
    """The 174 labels of the Discovery release (`[no-conn]` first)."""
    return _read_resource("markers_list.txt")


def load_pdtb_seeds() -> List[str]:
    """PDTB seed markers as written in the release (`in fact,`, `however`, ...)."""
    return _read_resource("pdtb_markers_list.txt")


def label_of(marker: str) -> str:
    """Release label of a marker: spaces as `_`, trailing comma kept."""
    return "_".join(marker.split())


# --- Matching --------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class MarkerMatch:
    label: str  # release label: "in_fact,", "however", "truly,"
    surface: str  # the text removed from s2: "In fact,"
    rest: str  # s2 without the marker, first letter re-capitalised
    discovered: bool = False


_FIRST_WORD = re.compile(r"[A-Za-z]+")
# A title-case first word directly followed by a comma: the cheap test before POS tagging.
_ADVERB_CANDIDATE = re.compile(r"([A-Z][a-z]+),\s+\S")


def _seed_pattern(seed: str) -> "re.Pattern":
    with_comma = seed.endswith(",")
    words = seed.rstrip(",").split()
    first = words[0]
    parts = [f"[{first[0].upper()}{first[0].lower()}]{re.escape(first[1:])}"]
    parts += [re.escape(w) for w in words[1:]]
    body = r"\s+".join(parts)
    if with_comma:
        # Written with a comma: matches only when the comma follows.
        tail = r"\s?,"
    else:
        # Written without: a word boundary, then an optional comma ("However," and "However").
        tail = r"(?![\w'\u2019-])(?:\s?,)?"
    return re.compile(body + tail)


def recapitalise(text: str) -> str:
    """Upper-case the first letter only ("the US..." -> "The US...")."""
    if text and text[0].islower():
        return text[0].upper() + text[1:]
    return text


class AdverbCache:
    """Is `Word,` a sentence-initial adverb? One tagger call per word form, cached.

    Args:
      tagger: object with `tag_first_words(sentences) -> [PTB tag]` (miners.nlp.pos.PosTagger).
    """

    def __init__(self, tagger, tags=ADVERB_TAGS, context: str = ADVERB_CONTEXT):
        self.tagger = tagger
        self.tags = frozenset(tags)
        self.context = context
        self._cache: Dict[str, bool] = {}
        self.tagged = 0  # words sent to the tagger (cost measure)

    def prime(self, words: Iterable[str]):
        """Tag all unseen word forms in one batch (`nlp.pipe`)."""
        todo = sorted({w for w in words if w not in self._cache})
        if not todo:
            return
        tags = self.tagger.tag_first_words([self.context.format(word=w) for w in todo])
        self.tagged += len(todo)
        for w, t in zip(todo, tags):
            self._cache[w] = t in self.tags

    def is_adverb(self, word: str) -> bool:
        if word not in self._cache:
            self.prime([word])
        return self._cache[word]


class MarkerMatcher:
    """Finds the discourse marker that starts a sentence.

    Args:
      seeds: seed markers as in `pdtb_markers_list.txt` (default: that file).
      adverbs: an `AdverbCache` to discover `Word,` adverbs, or None for seeds only.
    """

    def __init__(self, seeds: Optional[Sequence[str]] = None, adverbs: Optional[AdverbCache] = None):
        seeds = list(load_pdtb_seeds() if seeds is None else seeds)
        self.seed_labels = frozenset(label_of(s) for s in seeds)
        by_first: Dict[str, List[Tuple[int, "re.Pattern", str]]] = {}
        for seed in seeds:
            first = seed.rstrip(",").split()[0].lower()
            by_first.setdefault(first, []).append((len(seed.rstrip(",")), _seed_pattern(seed), seed))
        # Longest marker first: "for example" before a hypothetical "for".
        self._by_first = {k: sorted(v, key=lambda t: (-t[0], t[2])) for k, v in by_first.items()}
        self.adverbs = adverbs

    def adverb_candidate(self, s2: str) -> Optional[str]:
        """The first word if s2 starts with `Word,` and no seed matches (before tagging)."""
        m = _ADVERB_CANDIDATE.match(s2)
        if not m or self._match_seed(s2) is not None:
            return None
        return m.group(1)

    def _match_seed(self, s2: str) -> Optional[MarkerMatch]:
        fw = _FIRST_WORD.match(s2)
        if not fw:
            return None
        for _, pattern, seed in self._by_first.get(fw.group(0).lower(), ()):
            m = pattern.match(s2)
            if m and s2[m.end():].lstrip().startswith(tuple(COLONS)):
                return None  # "For example: ..." announces a list: no marker (`COLONS`)
            if m:
                return MarkerMatch(label=label_of(seed), surface=m.group(0).strip(),
                                   rest=recapitalise(s2[m.end():].lstrip()))
        return None

    def match(self, s2: str) -> Optional[MarkerMatch]:
        found = self._match_seed(s2)
        if found is not None or self.adverbs is None:
            return found
        m = _ADVERB_CANDIDATE.match(s2)
        if m and self.adverbs.is_adverb(m.group(1)):
            word = m.group(1)
            return MarkerMatch(label=f"{word.lower()},", surface=f"{word},",
                               rest=recapitalise(s2[m.end(1) + 1:].lstrip()), discovered=True)
        return None


# --- Sentence filters --------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class DiscoveryConfig:
    """Options of the miner; defaults are the paper's."""
    min_words: int = MIN_WORDS
    max_words: int = MAX_WORDS
    min_english_prob: float = MIN_ENGLISH_PROB  # <= 0 disables language ID
    min_letter_ratio: float = MIN_LETTER_RATIO
    max_upper_ratio: float = MAX_UPPER_RATIO
    subsampled_markers: Tuple[str, ...] = SUBSAMPLED_MARKERS
    subsampled_marker_rate: float = SUBSAMPLED_MARKER_RATE
    no_conn_rate: float = NO_CONN_RATE
    seed: int = 0
    cross_paragraph: bool = False
    # The run's language (Wikimedia code): language ID keeps sentences of it, `min_english_prob`
    # being its threshold (`miners.nlp.langid.sentence_threshold`); rejects are `not_english` for
    # English and `wrong_language` for every other language (`wrong_language_reason`).
    language: str = "en"


def sentence_reason(sentence: str, config: DiscoveryConfig = DiscoveryConfig()) -> Optional[str]:
    """Model-free filters of section 3: the reason to drop `sentence`, or None.

    `template_hole` (not the paper's): the wikitext cleaner dropped a template from inside the
    sentence (`schemas.records.TEMPLATE_HOLE`), so the sentence is not the text. `ends_with_colon`
    (not the paper's either): the sentence announces a quote or list that the cleaner dropped
    (`COLONS`)."""
    if TEMPLATE_HOLE in sentence:
        return "template_hole"
    if sentence.rstrip().endswith(tuple(COLONS)):
        return "ends_with_colon"
    n = word_count(sentence) if config.language not in CHARACTER_LANGUAGES else cjk_word_count(sentence)
    if n < config.min_words:
        return "too_short"
    if n > config.max_words:
        return "too_long"
    chars = [c for c in sentence if not c.isspace()]
    letters = [c for c in chars if c.isalpha()]
    if not chars or len(letters) / len(chars) <= config.min_letter_ratio:
        return "low_letter_ratio"
    if not _balanced_parentheses(sentence):
        return "unbalanced_parentheses"
    if (sentence.count('"') + sentence.count("\u201c") + sentence.count("\u201d")) % 2:
        return "odd_quotes"
    upper = sum(1 for c in letters if c.isupper())
    if upper / len(letters) > config.max_upper_ratio:
        return "too_much_uppercase"
    return None


def cjk_word_count(sentence: str) -> int:
    """Words of a Chinese or Japanese sentence, for the paper's 3-32 word bounds: a word per two
    characters of CJK text (not from the paper: text without spaces has no word count; Chinese words
    average under two characters) plus the other word tokens (Latin words, numbers)."""
    from miners.text.tokens import _kind  # pylint: disable=import-outside-toplevel
    cjk = sum(1 for c in sentence if _kind(c) == "c")
    others = sum(1 for t in tokens_lib.unicode_tokens(sentence, characters=True) if _kind(t[0]) == "w")
    return (cjk + 1) // 2 + others


def _balanced_parentheses(text: str) -> bool:
    depth = 0
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def is_english(lang: str, prob: float, min_prob: float) -> bool:
    return lang == "en" and prob > min_prob


def is_language(lang: str, prob: float, min_prob: float, language: str = "en") -> bool:
    """Is a language-ID answer (lang, prob) the run's `language` with probability over `min_prob`?"""
    from miners.nlp.langid import lid_label  # pylint: disable=import-outside-toplevel
    return lang == lid_label(language) and prob > min_prob


def document_language(text: str, langid, chars: int = DOCUMENT_LANGID_CHARS) -> Tuple[str, float]:
    """(language, probability) of the document's first `chars` characters; ("", 0.0) if blank."""
    head = without_template_holes(text)[:chars]
    if not head.strip():
        return "", 0.0
    return langid.predict([head])[0]


def document_language_reason(text: str, langid, min_prob: float = MIN_DOCUMENT_ENGLISH_PROB,
                             chars: int = DOCUMENT_LANGID_CHARS, language: str = "en") -> Optional[str]:
    """`"not_english"` (English runs) or `"wrong_language"` when the document's first `chars`
    characters are not in the run's `language`."""
    from miners.nlp.langid import wrong_language_reason  # pylint: disable=import-outside-toplevel
    lang, prob = document_language(text, langid, chars)
    return None if is_language(lang, prob, min_prob, language) else wrong_language_reason(language)


# --- Mining ----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Rejection:
    """A dropped pair: already counted by the miner."""
    reason: str
    key: str  # "doc_id:index"
    source: str
    detail: str = ""
    payload: str = ""


Inc = Callable[[str], None]


def _noop(_name, _n=1):
    pass


class DiscoveryMiner:
    """Mines `MarkerExample`s from consecutive sentences.

    Args:
      config: thresholds and rates.
      matcher: a `MarkerMatcher` (default: PDTB seeds, no discovery).
      langid: object with `predict(texts) -> [(lang, prob)]`; required unless
        `config.min_english_prob <= 0`.
    """

    def __init__(self, config: DiscoveryConfig = DiscoveryConfig(), matcher: Optional[MarkerMatcher] = None,
                 langid=None):
        if langid is None and config.min_english_prob > 0:
            raise ValueError("DiscoveryMiner needs a language identifier (or min_english_prob=0)")
        self.config = config
        self.matcher = matcher or MarkerMatcher()
        self.langid = langid
        self._subsampled = frozenset(config.subsampled_markers)
        from miners.nlp.langid import wrong_language_reason  # pylint: disable=import-outside-toplevel
        self._wrong_language = wrong_language_reason(config.language)

    def mine_document(self, doc: SegmentedDocument, inc: Inc = _noop) -> List[Union[MarkerExample, Rejection]]:
        pairs = [(doc.id, i, s1, s2, doc.path or doc.source)
                 for i, s1, s2 in iter_consecutive_pairs(doc.sentences, doc.paragraphs,
                                                         self.config.cross_paragraph)]
        return self.mine_pairs(pairs, inc, source_name=doc.source)

    def mine_sentence_pair(self, pair: SentencePair, inc: Inc = _noop) -> List[Union[MarkerExample, Rejection]]:
        return self.mine_pairs([(pair.id, 0, pair.s1, pair.s2, pair.path or pair.source)], inc,
                               source_name=pair.source)

    def mine_pairs(self, pairs: Sequence[Tuple[str, int, str, str, str]], inc: Inc = _noop,
                   source_name: str = "") -> List[Union[MarkerExample, Rejection]]:
        """Mine `(doc_id, index, s1, s2, source)` tuples; results in input order.

        Counters: `pairs/passed`, `pairs/filtered:<reason>`.
        """
        cfg = self.config
        adverbs = self.matcher.adverbs
        if adverbs is not None:  # one batched tagger call for the unseen candidate words
            adverbs.prime(w for w in (self.matcher.adverb_candidate(p[3]) for p in pairs) if w)
        results: List[Union[MarkerExample, Rejection, None]] = []
        pending = []  # (position, s1, s2') waiting for language ID
        for doc_id, index, s1, s2, source in pairs:
            key = pair_key(doc_id, index)
            rkey = f"{doc_id}:{index}"
            payload = f"{s1}\t{s2}"
            m = self.matcher.match(s2)
            if m is None:
                if stable_fraction(key, f"{cfg.seed}|no_conn") >= cfg.no_conn_rate:
                    inc("pairs/filtered:no_marker")
                    results.append(Rejection("no_marker", rkey, source, "", payload))
                    continue
                m = MarkerMatch(label=NO_CONN_LABEL, surface="", rest=s2)
            elif m.label in self._subsampled and \
                    stable_fraction(key, f"{cfg.seed}|subsample") >= cfg.subsampled_marker_rate:
                inc("pairs/filtered:subsampled")
                results.append(Rejection("subsampled", rkey, source, m.label, payload))
                continue
            reason, which = sentence_reason(s1, cfg), "s1"
            if reason is None:
                reason, which = sentence_reason(m.rest, cfg), "s2"
            if reason is not None:
                inc(f"pairs/filtered:{reason}")
                results.append(Rejection(reason, rkey, source, f"{which} marker={m.label}", payload))
                continue
            ex = MarkerExample(sentence1=s1, sentence2=m.rest, label_name=m.label, marker=m.surface,
                               discovered=m.discovered, doc_id=doc_id, sentence_index=index,
                               source=source_name or source)
            pending.append((len(results), ex, payload, source))
            results.append(ex)
        if pending and cfg.min_english_prob > 0:
            texts = []
            for _, ex, _, _ in pending:
                texts += [ex.sentence1, ex.sentence2]
            preds = self.langid.predict(texts)
            for j, (pos, ex, payload, source) in enumerate(pending):
                for which, (lang, prob) in zip(("s1", "s2"), preds[2 * j:2 * j + 2]):
                    if not is_language(lang, prob, cfg.min_english_prob, cfg.language):
                        results[pos] = Rejection(self._wrong_language, f"{ex.doc_id}:{ex.sentence_index}", source,
                                                 f"{which} lang={lang} p={prob:.3f}", payload)
                        break
        for r in results:
            if isinstance(r, MarkerExample):
                inc("pairs/passed")
            elif r.reason == self._wrong_language:
                inc(f"pairs/filtered:{self._wrong_language}")
        return results


# --- Selection and variants (pure helpers used by the Beam stage) -----------
VARIANTS = ("big", "base", "hard", "shuffled", "top10", "adv")


def select_markers(counts: Dict[str, int], min_count: int) -> List[str]:
    """Labels seen at least `min_count` times, sorted."""
    return sorted(label for label, n in counts.items() if n >= min_count)


def top_labels(counts: Dict[str, int], k: int = TOP_MARKERS, eligible: Optional[Iterable[str]] = None) -> List[str]:
    """The k most frequent labels (ties by label), among `eligible` when given."""
    pool = counts if eligible is None else {l: counts.get(l, 0) for l in eligible}
    return [l for l, _ in sorted(pool.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def derange_second_sentences(examples: Sequence[MarkerExample], seed: int = 0) -> List[MarkerExample]:
    """`shuffled` variant: each example gets the s2 of another example of the same label.

    Examples are ordered by a stable rank and s2 is rotated by one, a derangement
    whenever there are at least two examples (fewer: nothing can be shuffled).
    """
    if len(examples) < 2:
        return []
    ordered = sorted(examples, key=lambda e: (example_rank(e, seed, "shuffle"), e.doc_id, e.sentence_index))
    out = []
    for i, ex in enumerate(ordered):
        donor = ordered[(i + 1) % len(ordered)]
        out.append(dataclasses.replace(ex, sentence2=donor.sentence2))
    return out
