"""PPDB 2.0 paraphrase rules: a streaming reader, filters, a simplifying criterion and a bounded index.

PPDB 2.0 (Pavlick, Rastogi, Ganitkevitch, Van Durme and Callison-Burch, "PPDB 2.0: Better
paraphrase ranking, fine-grained entailment relations, word embeddings, and style
classification", ACL 2015) releases one rule a line, six fields separated by ` ||| `:

    LHS ||| PHRASE ||| PARAPHRASE ||| FEATURES ||| ALIGNMENT ||| ENTAILMENT
    [JJ] ||| approximately ||| about ||| PPDB2.0Score=3.95 PPDB1.0Score=... CharCountDiff=-8 ... ||| 0-0 ||| Equivalence

* LHS: the rule's syntactic category in brackets. Lexical rules carry a Penn Treebank
  preterminal (`[NN]`, `[VBZ]`, `[JJ]`); phrasal rules a constituent (`[NP]`, `[VP]`), a
  SAMT-style category (`[VP/PP]` missing a PP on the right, `[S\\NP]` on the left, `[DT+NN]` a
  concatenation) or `[X]`.
* PHRASE, PARAPHRASE: lower-cased, Penn-Treebank-tokenized text (`n't`, `'s`, `-lrb-`).
  Rules of the syntactic packs hold nonterminal slots (`[NP,1]`); those are not matched here.
* FEATURES: space-separated `Name=value` pairs, `PPDB2.0Score` first (the supervised score that
  predicts a 1-5 human paraphrase rating, §2 of the paper), then PPDB 1.0's features.
* ALIGNMENT: word alignment `i-j` pairs.
* ENTAILMENT: the predicted relation of the paraphrase to the phrase (§3): Equivalence,
  ForwardEntailment (the phrase entails the paraphrase: the paraphrase is more general),
  ReverseEntailment, Exclusion, OtherRelated, Independent.

Lexical (`ppdb-2.0-*-lexical`), phrasal (`-phrasal`, `-o2m`, `-m2o`) and all-in-one (`-all`)
packs share this layout, plain or gzipped. PPDB 1.0 files (five fields, no score, no
entailment) are counted and skipped. Malformed lines are counted by reason, never fatal.

    rules = load_rules("ppdb-2.0-s-lexical.gz")     # simplifying rules only (PPDBRules.from_file)
    for start, end, replacement, rule in rules.candidates(tokens, tags):
        new_tokens = apply(tokens, (start, end, replacement, rule))

Which rules simplify (`simplifying_reason`, None when a rule does): the paraphrase is SHORTER
in characters than the phrase. Word length is one of the two classic signals of lexical
complexity, with frequency (Biran, Brody and Elhadad, "Putting it Simply: a Context-Aware
Approach to Lexical Simplification", ACL 2011, score a word's complexity as its corpus
complexity times its length; Shardlow, "A Comparison of Techniques to Automatically Identify
Complex Words", ACL SRW 2013), and it is the one PPDB 2.0 carries itself (`CharCountDiff`), so
the criterion needs no other resource: `approximately -> about`, `in order to -> to`,
`a large number of -> many`, `utilize -> use` pass; `and -> as well as`, `car -> automobile`
do not. Given a word frequency table (e.g. the unigrams of the language model), a rule must
also not make the rarest word rarer. Rules whose sides are one word sharing its stem
(`companies -> company`, `approximately -> approx`: an inflection or an abbreviation, not a
simpler word) and rules that replace words by digits or symbols are not simplifying either.
The language-model check that a rewrite stays natural is the caller's (miners/simsim/simulate.py).
"""
import dataclasses
import gzip
import heapq
import io
import itertools
import re
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

# Entailment classes of PPDB 2.0 (Pavlick et al. 2015, §3).
ENTAILMENT_CLASSES = ("Equivalence", "ForwardEntailment", "ReverseEntailment", "Exclusion", "OtherRelated",
                      "Independent")
# Kept by default: the paraphrase means the same, or something more general that the phrase entails
# (`boy -> child`): a simplification may generalise, never contradict or add meaning.
DEFAULT_ENTAILMENTS = ("Equivalence", "ForwardEntailment")
# PPDB2.0Score predicts the 1-5 human rating of a pair (Pavlick et al. 2015, §2); 3.0, the middle
# of that scale, is a project default (raise it for fewer, safer rules).
DEFAULT_MIN_SCORE = 3.0
# Bounded memory (project defaults): at most this many rules in the index (~400 bytes each), the
# lowest-scored evicted first, and at most TOP_K paraphrases per phrase, the best-scored kept.
DEFAULT_MAX_RULES = 500_000
DEFAULT_TOP_K = 10
# Longest phrase indexed, in tokens (PPDB's phrasal packs go up to 6 words on the source side).
DEFAULT_MAX_PHRASE_TOKENS = 6
# One-word sides sharing this many leading characters (or the whole shorter word) are one stem.
SAME_STEM_PREFIX = 4

SCORE_FEATURE = "PPDB2.0Score"
FIELD_SEPARATOR = "|||"

# Penn Treebank part-of-speech tags: an LHS made of these constrains the matched tokens' tags.
PTB_TAGS = frozenset("""CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM
TO UH VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB""".split())
_PROPER_TAGS = frozenset(("NNP", "NNPS"))
_LHS_RE = re.compile(r"^\[[^\[\]\s]+\]$")
_NONTERMINAL_RE = re.compile(r"^\[[^\]]+,\d+\]$")  # [NP,1]: a slot of a syntactic rule
_LETTER_RE = re.compile(r"[^\W\d_]")

Inc = Callable[..., None]


def _noop(_name, _n=1):
    pass


class Rule(NamedTuple):
    """One paraphrase rule. `phrase` and `paraphrase` are lower-cased token tuples."""
    lhs: str
    phrase: Tuple[str, ...]
    paraphrase: Tuple[str, ...]
    score: float  # PPDB2.0Score
    entailment: str

    def __str__(self):
        return f"{self.lhs} {' '.join(self.phrase)} -> {' '.join(self.paraphrase)} ({self.score:g}, {self.entailment})"


class Candidate(NamedTuple):
    """A rule that fits tokens[start:end]; `replacement` is the paraphrase, space-joined."""
    start: int
    end: int
    replacement: str
    rule: Rule


# --------------------------------------------------------------------------- reading

def parse_line(line: str) -> Tuple[Optional[Rule], Optional[str]]:
    """One release line -> (rule, None) or (None, reason).

    Reasons: `ppdb1_format` (five fields: a PPDB 1.0 file), `field_count`, `bad_lhs`, `empty_phrase`,
    `bad_feature`, `no_score`, `bad_entailment`, `syntactic` (a nonterminal slot in a side).
    """
    parts = [p.strip() for p in line.strip().split(FIELD_SEPARATOR)]
    if len(parts) == 5:
        return None, "ppdb1_format"
    if len(parts) != 6:
        return None, "field_count"
    lhs, phrase, paraphrase, features, _alignment, entailment = parts
    if not _LHS_RE.match(lhs):
        return None, "bad_lhs"
    src, tgt = tuple(phrase.lower().split()), tuple(paraphrase.lower().split())
    if not src or not tgt:
        return None, "empty_phrase"
    score = None
    for item in features.split():
        name, eq, value = item.partition("=")
        if not eq or not name:
            return None, "bad_feature"
        if name == SCORE_FEATURE:
            try:
                score = float(value)
            except ValueError:
                return None, "no_score"
    if score is None or score != score:  # missing or NaN
        return None, "no_score"
    if entailment not in ENTAILMENT_CLASSES:
        return None, "bad_entailment"
    if any(_NONTERMINAL_RE.match(t) for t in src + tgt):
        return None, "syntactic"
    return Rule(lhs, src, tgt, score, entailment), None


def _open_text_lines(path: str) -> Iterator[bytes]:
    with open(path, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        yield from (io.BufferedReader(gzip.GzipFile(fileobj=raw)) if gzipped else raw)


def read_rules(path: str, inc: Inc = _noop) -> Iterator[Rule]:
    """Stream every well-formed rule of a PPDB 2.0 file (plain or gzip, told by its first bytes).

    Counts `lines`, `rules` and `malformed:<reason>` through `inc(name, n=1)`; a malformed line
    (including one that is not UTF-8) is skipped, a truncated gzip stream ends the file with
    `malformed:truncated_gzip`. A missing or unreadable file raises OSError naming it.
    """
    lines = _open_text_lines(path)
    while True:
        try:
            raw = next(lines)
        except StopIteration:
            return
        except (FileNotFoundError, PermissionError, IsADirectoryError):
            raise
        except (EOFError, OSError):  # gzip.BadGzipFile is an OSError
            inc("malformed:truncated_gzip")
            return
        inc("lines")
        if not raw.strip():
            inc("malformed:blank")
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            inc("malformed:bad_utf8")
            continue
        rule, reason = parse_line(line)
        if rule is None:
            inc(f"malformed:{reason}")
            continue
        inc("rules")
        yield rule


# --------------------------------------------------------------------------- the simplifying criterion

def _chars(tokens: Sequence[str]) -> int:
    return sum(len(t) for t in tokens)


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def simplifying_reason(phrase: Sequence[str], paraphrase: Sequence[str],
                       frequencies: Optional[Mapping[str, float]] = None) -> Optional[str]:
    """None when `phrase -> paraphrase` simplifies (module docstring), otherwise why not.

    Args:
      phrase, paraphrase: lower-cased tokens.
      frequencies: optional word -> frequency (any monotone scale: counts, Zipf, log-probability);
        words it lacks count as rarest.

    Returns:
      None, or one of `identity`, `not_words` (the paraphrase has no letters where the phrase
      has), `same_stem`, `not_shorter`, `rarer`.
    """
    phrase, paraphrase = tuple(phrase), tuple(paraphrase)
    if phrase == paraphrase:
        return "identity"
    if any(_LETTER_RE.search(t) for t in phrase) and not all(_LETTER_RE.search(t) for t in paraphrase):
        return "not_words"
    if len(phrase) == 1 and len(paraphrase) == 1:
        a, b = phrase[0], paraphrase[0]
        if _common_prefix(a, b) >= min(SAME_STEM_PREFIX, len(a), len(b)):
            return "same_stem"
    if _chars(paraphrase) >= _chars(phrase):
        return "not_shorter"
    if frequencies is not None:
        rarest = lambda toks: min(frequencies.get(t, float("-inf")) for t in toks)  # noqa: E731
        if rarest(paraphrase) < rarest(phrase):
            return "rarer"
    return None


# --------------------------------------------------------------------------- the index

def _lhs_tags(lhs: str, length: int) -> Optional[Tuple[str, ...]]:
    """The tags an LHS imposes on `length` tokens, or None when it names no preterminals.

    `[JJ]` on one token -> ("JJ",); `[DT+NN]` on two -> ("DT", "NN"); `[NP]`, `[VP/PP]`, `[X]`,
    or a preterminal count that differs from the phrase length -> None (nothing to check).
    """
    body = lhs[1:-1]
    parts = tuple(body.split("+"))
    if len(parts) == length and all(p in PTB_TAGS for p in parts):
        return parts
    return None


@dataclasses.dataclass
class _Entry:
    score: float
    seq: int
    rule: Rule

    def __lt__(self, other):  # heap order: lowest score first, then the later-read rule
        return (self.score, -self.seq) < (other.score, -other.seq)


class PPDBRules:
    """Simplifying PPDB 2.0 rules indexed by source phrase, in bounded memory.

    Args:
      min_score: lowest PPDB2.0Score kept.
      entailments: entailment classes kept.
      max_rules: most rules held; past it the lowest-scored rule is evicted (counted).
      top_k: most paraphrases kept per source phrase (the best-scored).
      max_phrase_tokens: longest source phrase indexed.
      frequencies: optional word frequency table for the simplifying criterion.
      simplifying_only: False keeps every rule that passes the other filters (for tests and for
        measuring the criterion).
    """

    def __init__(self, min_score: float = DEFAULT_MIN_SCORE, entailments: Iterable[str] = DEFAULT_ENTAILMENTS,
                 max_rules: int = DEFAULT_MAX_RULES, top_k: int = DEFAULT_TOP_K,
                 max_phrase_tokens: int = DEFAULT_MAX_PHRASE_TOKENS,
                 frequencies: Optional[Mapping[str, float]] = None, simplifying_only: bool = True):
        unknown = sorted(set(entailments) - set(ENTAILMENT_CLASSES))
        if unknown:
            raise ValueError(f"unknown PPDB entailment class(es) {unknown}; choose from {list(ENTAILMENT_CLASSES)}")
        if max_rules < 1 or top_k < 1:
            raise ValueError("max_rules and top_k must be at least 1")
        self.min_score = float(min_score)
        self.entailments = frozenset(entailments)
        self.max_rules = int(max_rules)
        self.top_k = int(top_k)
        self.max_phrase_tokens = int(max_phrase_tokens)
        self.frequencies = frequencies
        self.simplifying_only = simplifying_only
        self.counts: Dict[str, int] = {}
        self.source = ""
        self._by_phrase: Dict[Tuple[str, ...], List[_Entry]] = {}  # min-heaps of at most top_k
        self._all: List[Tuple[float, int, Tuple[str, ...]]] = []  # global min-heap, lazily pruned
        self._alive: set = set()
        self._seq = itertools.count()
        self._longest = 0

    # ------------------------------------------------------------------ building

    def _inc(self, name, n=1):
        self.counts[name] = self.counts.get(name, 0) + n

    def filter_reason(self, rule: Rule) -> Optional[str]:
        """None when `rule` passes the filters, otherwise `low_score`, `entailment:<class>`,
        `too_long`, `proper_noun` or a `simplifying_reason`."""
        if rule.score < self.min_score:
            return "low_score"
        if rule.entailment not in self.entailments:
            return f"entailment:{rule.entailment}"
        if len(rule.phrase) > self.max_phrase_tokens:
            return "too_long"
        if rule.lhs[1:-1] in _PROPER_TAGS:
            return "proper_noun"
        if self.simplifying_only:
            return simplifying_reason(rule.phrase, rule.paraphrase, self.frequencies)
        return "identity" if rule.phrase == rule.paraphrase else None

    def add(self, rule: Rule) -> Optional[str]:
        """Index `rule` if it passes the filters; returns the reason it was not, else None."""
        reason = self.filter_reason(rule)
        if reason is not None:
            self._inc(f"filtered:{reason}")
            return reason
        heap = self._by_phrase.setdefault(rule.phrase, [])
        if any(e.rule.paraphrase == rule.paraphrase and e.rule.lhs == rule.lhs for e in heap):
            self._inc("filtered:duplicate")
            return "duplicate"
        entry = _Entry(rule.score, next(self._seq), rule)
        if len(heap) >= self.top_k:
            if not heap[0] < entry:
                self._inc("evicted:top_k")
                return "top_k"
            dropped = heapq.heapreplace(heap, entry)
            self._alive.discard(dropped.seq)
            self._inc("evicted:top_k")
        else:
            heapq.heappush(heap, entry)
        self._alive.add(entry.seq)
        heapq.heappush(self._all, (entry.score, -entry.seq, rule.phrase))
        self._longest = max(self._longest, len(rule.phrase))
        while len(self._alive) > self.max_rules:
            self._evict_lowest()
        if len(self._all) > 2 * len(self._alive) + 1024:  # drop the entries of evicted rules
            self._all = [(e.score, -e.seq, phrase) for phrase, heap_ in self._by_phrase.items() for e in heap_]
            heapq.heapify(self._all)
        self._inc("kept")
        return None

    def _evict_lowest(self):
        while self._all:
            _score, neg_seq, phrase = heapq.heappop(self._all)
            if -neg_seq not in self._alive:
                continue  # already gone (top-k eviction)
            heap = self._by_phrase[phrase]
            heap[:] = [e for e in heap if e.seq != -neg_seq]
            heapq.heapify(heap)
            if not heap:
                del self._by_phrase[phrase]
            self._alive.discard(-neg_seq)
            self._inc("evicted:max_rules")
            return

    def load(self, path: str, inc: Inc = _noop) -> "PPDBRules":
        """Add every rule of a release file (streamed); counts go to `self.counts` and `inc`."""
        def both(name, n=1):
            self._inc(name, n)
            inc(name, n)
        for rule in read_rules(path, both):
            self.add(rule)
        self.source = path
        return self

    @classmethod
    def from_file(cls, path: str, inc: Inc = _noop, **options) -> "PPDBRules":
        """`PPDBRules(**options).load(path)`."""
        return cls(**options).load(path, inc)

    # ------------------------------------------------------------------ lookup

    def __len__(self):
        return len(self._alive)

    def phrases(self) -> int:
        return len(self._by_phrase)

    def lookup(self, phrase: Sequence[str]) -> List[Rule]:
        """Rules for a phrase (any case), best score first."""
        heap = self._by_phrase.get(tuple(t.lower() for t in phrase), ())
        return [e.rule for e in sorted(heap, key=lambda e: (-e.score, e.seq))]

    def rules(self) -> Iterator[Rule]:
        """Every indexed rule, phrases in sorted order, best score first."""
        for phrase in sorted(self._by_phrase):
            yield from self.lookup(phrase)

    def candidates(self, tokens: Sequence[str], tags: Optional[Sequence[str]] = None) -> List[Candidate]:
        """Rules that fit the tokens, best first.

        A rule fits tokens[start:end] when its phrase equals them (whole tokens, case-insensitive),
        when its LHS names Penn Treebank preterminals (`[JJ]`, `[DT+NN]`) and `tags` are given, the
        tags agree, and no matched token is a proper noun (tagged NNP/NNPS; without tags: a
        capitalised token that does not start the sentence).

        Args:
          tokens: one sentence's tokens.
          tags: their Penn Treebank tags (spaCy's `tag_`), or None.

        Returns:
          [Candidate(start, end, replacement, rule)] sorted by rule score (highest first), then
          position, then longer spans first. Candidates may overlap: apply one, or choose
          non-overlapping ones in this order.
        """
        if tags is not None and len(tags) != len(tokens):
            raise ValueError(f"{len(tags)} tags for {len(tokens)} tokens")
        lowered = [t.lower() for t in tokens]
        proper = [(tags[i] in _PROPER_TAGS) if tags is not None else (i > 0 and tokens[i][:1].isupper())
                  for i in range(len(tokens))]
        out = []
        for start in range(len(tokens)):
            for end in range(start + 1, min(len(tokens), start + self._longest) + 1):
                if proper[end - 1]:
                    break
                heap = self._by_phrase.get(tuple(lowered[start:end]))
                if not heap:
                    continue
                for e in heap:
                    want = _lhs_tags(e.rule.lhs, end - start) if tags is not None else None
                    if want is not None and tuple(tags[start:end]) != want:
                        continue
                    out.append((e.score, e.seq, Candidate(start, end, " ".join(e.rule.paraphrase), e.rule)))
        out.sort(key=lambda x: (-x[0], x[2].start, -(x[2].end - x[2].start), x[1]))
        return [c for _, _, c in out]


def load_rules(path: str, min_score: float = DEFAULT_MIN_SCORE, inc: Inc = _noop, **options) -> PPDBRules:
    """The simplifying rules of a PPDB 2.0 release file, indexed: what SimSim's stages load.

    `PPDBRules.from_file(path, inc, min_score=min_score, **options)`; `options` are the other
    `PPDBRules` arguments (entailments, max_rules, top_k, max_phrase_tokens, frequencies).
    Used by transforms/simsim.py (SimulateFn, OperationMetricsFn) and pipelines/profile.py.
    A missing or unreadable file raises OSError naming it.
    """
    return PPDBRules.from_file(path, inc, min_score=min_score, **options)


def apply(tokens: Sequence[str], candidate: Sequence) -> List[str]:
    """tokens with tokens[start:end] replaced by the candidate's paraphrase.

    The paraphrase is lower-case (as PPDB is); when it replaces a capitalised sentence-initial
    word, its first word is capitalised ("Approximately 30 ..." -> "About 30 ...").
    """
    start, end, replacement = candidate[0], candidate[1], candidate[2]
    new = replacement.split() if isinstance(replacement, str) else list(replacement)
    if start == 0 and tokens and tokens[0][:1].isupper() and new:
        new[0] = new[0][:1].upper() + new[0][1:]
    return list(tokens[:start]) + new + list(tokens[end:])
