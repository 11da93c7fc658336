"""SimSim: complex -> simple pairs by back-translation, language-model selection and simulated edits.

"Divide-and-Conquer Text Simplification by Scalable Data Enhancement" (the
SimSim paper): every simplification operation is simulated on any English text.

  1. Seeds. (a) complex-simple pairs: BERTScore checks their alignment; a badly
     aligned simple side is dropped and the complex sentence alone is the seed;
     (b) sentences of any text (Discovery's sentence filters: length, language,
     letters); (c) WikiSplit pairs: the steps run on their split side, so the
     pair carries the splitting operation.
  2. Back-translation of the seed's `base` (the text the steps run on) through
     every pivot language: one candidate per pivot (variant s1).
  3. Language-model selection: the candidate with the lowest mean per-token
     negative log-likelihood, dropped when it is less natural than the base, or
     identical to it (variant s2).
  4. Simulated substitution: simplifying PPDB rules (with --ppdb), or else a
     content word replaced by a more frequent WordNet synonym of a safe sense,
     inflected to the word's tag (`wordnet_substitute`); each accepted only when
     the language model does not find the result less natural.
  5. Simulated dropping: prepositional, adjective and adverb phrases chosen on
     the dependency parse (Filippova and Altun 2013), with a seeded choice and a
     bound on how much is removed; a removal that would break the sentence (a
     restriction of its subject or under a negation, a pronoun's antecedent,
     one end of a range, a root or clause lost on the re-parse, ...: DROP_CHECKS)
     is refused and counted (variant s3 = s2 after steps 4 and 5).
  6. Splitting comes from the WikiSplit seeds (1c).

Everything here is plain Python over interfaces (a translator, a language
model, an annotator, PPDB rules); transforms/simsim.py runs it on Beam.
"""
import collections
import dataclasses
import difflib
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from miners.hashing import stable_fraction
from miners.nlp.annotation import Sentence
from miners.simsim.pair_files import WIKISPLIT_SEPARATOR

DATASET = "simplify"
VARIANTS = ("s1", "s2", "s3")
SEED_KINDS = ("text", "pair", "pair_misaligned", "wikisplit")

# Seed sentences from running text (Discovery's filters with SimSim's bounds; project defaults: a
# seed worth simplifying has some length, and a very long one is usually a list or a table row).
SEED_MIN_WORDS = 10
SEED_MAX_WORDS = 50
# A complex-simple seed pair is aligned when BERTScore F1(simple, complex) reaches this (project
# default for the bundled MiniLM: its F1 of unrelated English sentences sits around 0.1-0.3, of
# real simplification pairs around 0.6-0.9; see tools and the note).
MIN_SEED_ALIGNMENT = 0.5

# Dropping (Filippova and Altun 2013 delete dependency subtrees): which subtrees may go.
DROPPABLE_RELATIONS = ("obl", "nmod", "amod", "advmod", "parenthetical", "appos", "relcl")
# What is dropped by default: non-restrictive material only (CLAUSE_KINDS, below). In the second blind reading
# (issue 34, docs/SIMSIM_QUALITY.md) 6 of 9 dropped adjectives and 3 of 6 dropped adverbs made the record wrong
# ("front legs" -> "legs", "do not use tones phonemically" -> "do not use tones"), against about 4 of 17
# dropped prepositional phrases; in issue 51's first held-out reading 6 of the 10 records that lost a
# prepositional phrase (obl, nmod) were read broken ("finished in first place [in the East Division]", "a wind
# field 575 miles [in diameter]", "the island's history [in phosphate mining]"), and on the tuning text about
# half of them still were after the new drop checks, against one in twenty of the parentheses dropped.
# `--drop_relations` takes obl, nmod, amod and advmod back.
DEFAULT_DROP_RELATIONS = ("parenthetical", "appos", "relcl")
# Non-restrictive material a simplifier drops whole (issue 51; ASSET's writers drop far more than s3 did:
# dropping 0.31 against 0.11): a parenthesis, an apposition set off by commas after a name ("Galen of
# Pergamum, an anatomist and writer, wrote"), a relative clause set off by a comma ("Paris, which lies
# on the Seine, is"). What they say is said of a thing the rest of the sentence names already, so the
# sentence left is true (`clause_phrases`).
CLAUSE_KINDS = ("parenthetical", "appos", "relcl")
# A clause-like phrase to drop has at most this many words (project default: a longer one is the
# sentence's main news more often than a detail).
MAX_CLAUSE_WORDS = 14
# Never dropped: negation and wh-words change the meaning; "only"/"not" adverbs likewise.
KEEP_WORDS = frozenset("not n't never no only just even also how when where why what who which "
                       "except excluding including especially particularly".split())
# At most this share of the sentence's words is removed (project default: a simplification keeps the
# gist; the paper bounds the deletion without a number in our copy).
MAX_DROP_SHARE = 0.35
# At most this many phrases are dropped from one sentence.
MAX_DROPS = 2
# A phrase to drop has at most this many words.
MAX_PHRASE_WORDS = 8
# Substitution: at most this many PPDB rewrites per sentence.
MAX_SUBSTITUTIONS = 3

# Bounds every seed meets at intake, before any engine sees it (project defaults). A side of a
# complex-simple pair or of a WikiSplit row has at least PAIR_SEED_MIN_WORDS and at most
# PAIR_SEED_MAX_WORDS words (WikiLarge's and WikiSplit's longest real sentences stay well under 100
# words; longer is a run-on list or a broken line); any seed text has at most SEED_MAX_CHARS
# characters (a 50-word sentence is about 300; spaCy refuses texts over 1,000,000).
PAIR_SEED_MIN_WORDS = 3
PAIR_SEED_MAX_WORDS = 120
SEED_MAX_CHARS = 1500


@dataclasses.dataclass(frozen=True)
class Seed:
    """One seed: `complex` is the output pair's complex side, `base` the text the steps run on."""
    id: str
    complex: str
    base: str
    kind: str  # one of SEED_KINDS
    doc_id: str  # document, page or pair id: the split key of every pair made from it
    sentence_index: int = 0
    path: str = ""

    @property
    def splitting(self) -> bool:
        return self.kind == "wikisplit"


def text_seed(doc_id: str, index: int, sentence: str, path: str = "") -> Seed:
    return Seed(id=f"{doc_id}:{index}", complex=sentence, base=sentence, kind="text", doc_id=doc_id,
                sentence_index=index, path=path)


def pair_seed(pair_id: str, complex_: str, simple: str, alignment: float, min_alignment: float = MIN_SEED_ALIGNMENT,
              path: str = "") -> Seed:
    """A complex-simple pair: aligned -> the steps run on its simple side; otherwise on the complex one."""
    if alignment >= min_alignment:
        return Seed(id=pair_id, complex=complex_, base=simple, kind="pair", doc_id=pair_id, path=path)
    return Seed(id=pair_id, complex=complex_, base=complex_, kind="pair_misaligned", doc_id=pair_id, path=path)


def wikisplit_seed(pair_id: str, complex_: str, simple1: str, simple2: str, path: str = "") -> Seed:
    """A WikiSplit pair: the steps run on its split side `simple1 simple2`."""
    return Seed(id=pair_id, complex=complex_, base=f"{simple1} {simple2}", kind="wikisplit", doc_id=pair_id,
                path=path)


# A WikiSplit row's split side may add what the complex sentence does not say: it is a later revision
# ("... was born in Alva, Oklahoma" -> "... and raised in the Cherokee and Dacoma areas. His parents
# are ..."). A SimSim pair joins the complex side to a rewrite of the split side, so a reader finds
# invented content (the second blind reading of issue 34: 4 of 17 broken s2 records). A split side with
# a number, a name (a capitalized word inside a sentence) or more than SPLIT_MAX_NEW_WORDS content words
# the complex side lacks is no seed (project default; on ../shared/data/wikisplit/tune.tsv it rejects 41%
# of the 5,000 rows, 36% before names counted: "... is district of the city of Grevenbroich", "... by
# the Symbolist Emil Isac in Familia magazine"). On the blind-judged records of rounds 2-7
# (docs/simsim_judged/), of the 32 made from WikiSplit seeds 20 were read broken; 15 carry a name or
# number the complex side lacks, 12 of them broken.
SPLIT_MAX_NEW_WORDS = 2
_SPLIT_FUNCTION_WORDS = frozenset("""the a an he she it they his her its their this that these those there is are was
were be been has have had also and but or so then which who whom whose when where as of in on at to for by with from
later""".split())


def split_adds_content(complex_: str, split_text: str, max_new_words: int = SPLIT_MAX_NEW_WORDS) -> bool:
    """Whether the split side has a number, a name (a capitalized word not at a sentence's start), or
    more than `max_new_words` content words (lower-cased, not a pronoun, article, be / have or
    connective), that the complex side does not have."""
    have = {w.lower() for w in _WORD_RE.findall(complex_)}
    new = {w.lower() for w in _WORD_RE.findall(split_text)} - have - _SPLIT_FUNCTION_WORDS
    return any(w.isdigit() for w in new) or len(new) > max_new_words or bool(new_names(complex_, split_text))


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


def new_names(complex_: str, split_text: str) -> List[str]:
    """Capitalized words of the split side, not at a sentence's start, that the complex side lacks
    (compared lower-cased: "New York", "BBC", "Grevenbroich"; "Spain" for "Spanish" too)."""
    have = {w.lower() for w in _WORD_RE.findall(complex_)}
    out = []
    for sentence in _SENTENCE_BREAK.split(split_text.replace(WIKISPLIT_SEPARATOR, " ")):
        words = _WORD_RE.findall(sentence)
        out += [w for w in words[1:] if w[:1].isupper() and w.lower() not in have]
    return out


_WORD_RE = re.compile(r"\w+(?:'\w+)?")


def length_reason(text: str, min_words: int = PAIR_SEED_MIN_WORDS, max_words: int = PAIR_SEED_MAX_WORDS,
                  max_chars: int = SEED_MAX_CHARS) -> Optional[str]:
    """Why a seed text is out of bounds ("too_many_chars", "too_long", "too_short"), or None.

    Cheap on any input (the character bound is checked first): a 2.4 MB line costs one len()."""
    if len(text) > max_chars:
        return "too_many_chars"
    n = len(text.split())
    if n > max_words:
        return "too_long"
    if n < min_words:
        return "too_short"
    return None


def is_wikisplit_row(simple: str) -> bool:
    """A `complex \\t simple` row whose simple side is WikiSplit's `s1 <::::> s2`."""
    return WIKISPLIT_SEPARATOR in simple


# --------------------------------------------------------------------------- selection (step 3)

def normalise(text: str) -> str:
    """Whitespace and case folded: a candidate equal to the seed after this is not a pair."""
    return " ".join(text.lower().split())


@dataclasses.dataclass(frozen=True)
class Selection:
    """The language model's choice for one seed."""
    pivot: str = ""  # "" when nothing was selected
    text: str = ""
    nll: float = 0.0  # mean per-token NLL of the chosen candidate
    base_nll: float = 0.0
    reason: str = ""  # why nothing was selected


# How the s2 candidate is chosen among a seed's back-translations: "lm", the paper's (the lowest mean
# NLL); "fewest_changes" (among those the language model finds no less natural than the seed, the
# one with the fewest new word bigrams, then the lowest NLL): with Apertium the language model does
# not tell garble from fluent English, and the candidate that changes least is the one a reader
# accepts most often (docs/SIMSIM_QUALITY.md).
SELECTIONS = ("fewest_changes", "most_changes", "lm")
# The language model's margin: a chosen candidate's mean NLL may exceed its seed's by this much. Issue
# 51: with pivot agreement (miners/simsim/agreement.py) a candidate keeps only the changes other pivots
# make alike, and the trigram model, which never told broken from fluent candidates (round 1 above),
# turned down most of what was left: on the tuning text (ASSET test 0-199 and 800 sentences of the
# bundled sample) the candidates it refused were 0.11 nats a word less natural than their seeds at the
# median (0.20 at the 75th percentile), and read as the ones it kept ("large" -> "big", "stated" ->
# "declared"). 0.2 keeps three quarters of them; 0 (the paper's "not less natural") is
# `--lm_margin 0`.
LM_MARGIN = 0.2


def select_candidate(base: str, candidates: Dict[str, str], nll: Dict[str, float], base_nll: float,
                     complex_: Optional[str] = None, margin: float = 0.0, select: str = "lm") -> Selection:
    """The most natural back-translation (lowest mean NLL), unless it is less natural than the base;
    with `select="fewest_changes"`, the one with the fewest new bigrams among those no less natural.

    Args:
      base: the text the candidates were made from.
      candidates: pivot -> back-translation.
      nll: pivot -> mean per-token NLL of that candidate.
      base_nll: mean per-token NLL of the base.
      complex_: the pair's complex side when it differs from the base: a candidate equal to it is
        no simplification either (s1 skips those too).
      margin: the chosen candidate's NLL may exceed the base's by this much (0: not less natural).
      select: "lm" or "fewest_changes" (`SELECTIONS`).
    """
    same = {normalise(base)} | ({normalise(complex_)} if complex_ is not None else set())
    usable = {p: t for p, t in candidates.items() if t.strip() and normalise(t) not in same}
    if not usable:
        return Selection(base_nll=base_nll, reason="no_changed_candidate")
    if select not in SELECTIONS:
        raise ValueError(f"select {select!r}: choose from {SELECTIONS}")
    pivot = min(usable, key=lambda p: (nll[p], p))
    natural = [p for p in usable if nll[p] <= base_nll + margin]
    if select == "fewest_changes" and natural:
        pivot = min(natural, key=lambda p: (new_bigrams(usable[p], base), nll[p], p))
    if select == "most_changes" and natural:
        pivot = min(natural, key=lambda p: (-new_bigrams(usable[p], base), nll[p], p))
    if nll[pivot] > base_nll + margin:
        return Selection(pivot=pivot, text=usable[pivot], nll=nll[pivot], base_nll=base_nll,
                         reason="less_natural_than_seed")
    return Selection(pivot=pivot, text=usable[pivot], nll=nll[pivot], base_nll=base_nll)


# --------------------------------------------------------------------------- dropping (step 5)

def token_offsets(text: str, tokens: Sequence[str]) -> Optional[List[Tuple[int, int]]]:
    """Character span of each token in `text` (tokens are substrings in order), or None."""
    spans, pos = [], 0
    for tok in tokens:
        i = text.find(tok, pos)
        if i < 0:
            return None
        spans.append((i, i + len(tok)))
        pos = i + len(tok)
    return spans


@dataclasses.dataclass(frozen=True)
class Phrase:
    """A droppable subtree: token indices [start, end) and the relation that heads it."""
    start: int
    end: int
    relation: str


# Adjectives and adverbs that carry meaning a simplification must keep: ordinals, "same"/"other",
# comparatives and superlatives (PTB JJR/JJS/RBR/RBS) are never dropped.
KEEP_MODIFIERS = frozenset("first second third last next previous former latter same other such own "
                           "early earlier late later main".split()) | frozenset(
    # How often, how much, how certain, and "rather (than)": dropping them changes what is claimed
    # ("always produced" -> "produced", "approximately 7,500 BC"; "so externally driven rather than"
    # -> "so driven than": the blind reading of issue 34).
    "always usually often sometimes rarely seldom generally typically frequently occasionally mostly "
    "mainly largely partly partially nearly almost approximately roughly about around some many most "
    "still already now once formerly rather instead".split())
# Relational adjectives name a kind, not a degree: "natural gas", "rational egoism", "the musculoskeletal
# system", "sexual maturity" are other things without them (the blind reading of issue 34). An `amod`
# with one of these endings, or capitalized ("Portuguese"), is kept: a heuristic on the form, as no
# lexicon of gradable adjectives installs offline; "large", "heavy", "long" may still go.
RELATIONAL_ADJECTIVE = re.compile(r"(?:al|ic|ical|ar|ary|ian|ean|ese|ish|ist|ous)$")
KEEP_TAGS = frozenset({"JJR", "JJS", "RBR", "RBS", "CD"})


def droppable_phrases(sentence: Sentence, text: Optional[str] = None,
                      max_words: int = MAX_PHRASE_WORDS,
                      relations: Sequence[str] = DROPPABLE_RELATIONS) -> List[Phrase]:
    """Prepositional, adjective and adverb phrases whose removal leaves a sentence (UD v2 parse).

    A candidate is the contiguous subtree of a token attached as `obl` (to a verb) or `nmod` (to a
    noun) with a preposition (`case` child) that is not the verb's complement (right after it) nor
    an "of" argument of the noun, `amod`, or `advmod`; never the root, never holding a
    negation, wh-word, focus adverb, ordinal, comparative or superlative, never a coordination
    (dropping "of Sinope and the Cynics" would drop a subject), at most `max_words` words, and
    (given `text`) starting and ending at word boundaries ("anti" of "anti-authoritarian" is not a
    phrase).
    """
    toks = sentence.tokens
    spans = token_offsets(text, [t.text for t in toks]) if text is not None else None
    out = []
    for i, t in enumerate(toks):
        rel = t.deprel.split(":")[0]
        if rel not in relations or t.head < 0 or t.deprel in ("nmod:poss", "obl:npmod", "obl:tmod"):
            continue
        head = toks[t.head]
        if rel == "obl" and head.upos != "VERB":
            continue
        if rel == "nmod" and head.upos not in ("NOUN", "PROPN"):
            continue
        children = sentence.children(i)
        case = [toks[c].text.lower() for c in children if toks[c].deprel == "case"]
        if rel in ("obl", "nmod") and not case:
            continue  # a bare noun ("met Monday"), not a prepositional phrase
        if rel in ("obl", "nmod") and (t.xpos == "CD" or t.upos == "NUM"):
            continue  # a number's phrase: the end of a range ("from 1817 to 1819") or a quantity
        span = sentence.subtree(i)
        # A prepositional phrase right after its verb is usually its complement ("refer to X",
        # "described as X"), and an "of" phrase the argument of its noun ("the birth of X"): kept.
        if rel == "obl" and span[0] == t.head + 1:
            continue
        if rel == "nmod" and "of" in case:
            continue
        if toks[span[-1]].upos == "PUNCT" and span[-1] == len(toks) - 1:
            span = span[:-1]  # never the final punctuation
        if not span or span[-1] - span[0] + 1 != len(span):
            continue  # not contiguous
        phrase = [toks[k] for k in span]
        words = [x.text.lower() for x in phrase]
        if set(words) & KEEP_WORDS or (rel in ("amod", "advmod") and (set(words) & KEEP_MODIFIERS
                                                                       or t.xpos in KEEP_TAGS)):
            continue
        if any(x.deprel in ("conj", "cc") for x in phrase):
            continue
        if rel == "amod" and any(x.upos == "ADJ" and (RELATIONAL_ADJECTIVE.search(x.text.lower())
                                                       or x.text[:1].isupper()) for x in phrase):
            continue
        if sum(1 for w in words if any(ch.isalnum() for ch in w)) > max_words:
            continue
        if spans is not None and not _at_word_boundaries(text, spans[span[0]][0], spans[span[-1]][1]):
            continue
        out.append(Phrase(span[0], span[-1] + 1, rel))
    # Keep maximal phrases only (a phrase inside another is dropped with it).
    out.sort(key=lambda p: (p.start, -p.end))
    maximal: List[Phrase] = []
    for p in out:
        if maximal and p.start >= maximal[-1].start and p.end <= maximal[-1].end:
            continue
        maximal.append(p)
    return maximal


_NON_RESTRICTIVE_RELATIVES = frozenset("which who whom whose where when".split())


def _trim_punct(sentence: Sentence, span: List[int]) -> List[int]:
    toks = sentence.tokens
    while span and toks[span[0]].upos == "PUNCT":
        span = span[1:]
    while span and toks[span[-1]].upos == "PUNCT" and toks[span[-1]].text not in (")", "\"", "\u201d"):
        span = span[:-1]
    return span


def clause_phrases(sentence: Sentence, text: Optional[str] = None,
                   max_words: int = MAX_CLAUSE_WORDS) -> List[Phrase]:
    """Non-restrictive material (`CLAUSE_KINDS`): a parenthesis "( ... )" after the sentence's first word,
    with no bracket inside; an apposition (`appos`) after a proper noun, set off by a comma before it and
    a comma or the sentence's end after it, without a digit; a relative clause (`acl:relcl`) opened by
    which / who / whom / whose / where / when, set off the same way. Each at most `max_words` words."""
    toks = sentence.tokens
    n = len(toks)
    last = max((k for k, t in enumerate(toks) if t.upos != "PUNCT"), default=-1)
    out = []

    def set_off(span) -> bool:
        if not span or span[-1] - span[0] + 1 != len(span) or span[0] < 2:
            return False
        after = span[-1] + 1
        closes = after < n and (toks[after].text == "," or (after > last and toks[after].text in ".!?;"))
        return toks[span[0] - 1].text == "," and closes

    for i, t in enumerate(toks):
        if t.text == "(" and i > 0:
            j = next((k for k in range(i + 1, n) if toks[k].text in ("(", ")")), None)
            inside = "".join(toks[k].text for k in range(i + 1, j)) if j is not None else ""
            if j is not None and toks[j].text == ")" and j > i + 1 and len(inside) > 4:
                out.append(Phrase(i, j + 1, "parenthetical"))  # not a list's "(i)", "(ii)", "(a)"
            continue
        if t.head < 0 or t.head >= i:
            continue
        if t.deprel == "appos" and toks[t.head].upos == "PROPN":
            span = _trim_punct(sentence, sentence.subtree(i))
            if set_off(span) and not any(ch.isdigit() for k in span for ch in toks[k].text) \
                    and not any(toks[k].text in "()" for k in span):
                out.append(Phrase(span[0], span[-1] + 1, "appos"))
        elif t.deprel == "acl:relcl":
            span = _trim_punct(sentence, sentence.subtree(i))
            if set_off(span) and toks[span[0]].text.lower() in _NON_RESTRICTIVE_RELATIVES \
                    and not any(toks[k].text in "()" for k in span):
                out.append(Phrase(span[0], span[-1] + 1, "relcl"))
    spans = token_offsets(text, [t.text for t in toks]) if text is not None else None
    kept = []
    for p in out:
        words = sum(1 for k in range(p.start, p.end) if any(ch.isalnum() for ch in toks[k].text))
        if words == 0 or words > max_words:
            continue
        if spans is not None and not _at_word_boundaries(text, spans[p.start][0], spans[p.end - 1][1]):
            continue
        kept.append(p)
    return kept


def _at_word_boundaries(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "-'\u2019") and not (after.isalnum() or after in "-'\u2019")


_DANGLING_END = re.compile(r"\b(and|or|but|of|to|in|on|at|by|for|with|from|the|a|an|as|than)\s*[.!?]?\s*$", re.I)
_DEFECTS = re.compile(r",\s*[,.;:!?]|[;:]\s*,|^\s*[,;:.]|\(\s*\)|\s[,.;:!?]")


def defects(text: str) -> int:
    """Marks of a badly cut sentence: doubled or stray punctuation, empty parentheses, a dangling
    conjunction or preposition at the end, unbalanced parentheses."""
    return (len(_DEFECTS.findall(text)) + (1 if _DANGLING_END.search(text) else 0)
            + abs(text.count("(") - text.count(")")))


def well_formed(text: str, original: Optional[str] = None) -> bool:
    """True when `text` has no more defects than `original` (none when no original is given)."""
    return bool(text.strip()) and defects(text) <= (defects(original) if original is not None else 0)


# Words after which the comma that closed a removed phrase goes with it ("thought that behind the
# appearance of things, there was" -> "thought that there was", not "that, there": round 4's item 92).
_OPENING_WORDS = frozenset("that and but or because since when while although though if so whereas as".split())
# Words that open a clause set off by a comma: the comma before them stays when a phrase before them goes.
_CLAUSE_OPENERS = frozenset("although though while whereas which who whom whose where unless".split())


def _join(left: str, right: str) -> str:
    """Join the text around a removed phrase, repairing only this junction."""
    left, right = left.rstrip(), right.lstrip()
    if not left:
        return right[:1].upper() + right[1:]
    if not right:
        return left
    if left[-1] == "," and right[0] == ",":  # ", in 1990," set off by commas: both commas go
        nxt = right[1:].split()
        if nxt and nxt[0].lower() in _CLAUSE_OPENERS:  # "Binoculars, for instance, although ..." keeps one
            return left + right[1:]
        return _join(left[:-1], right[1:])
    if left[-1] in ";:" and right[0] == ",":  # "primacy; in other words, the desire" -> "primacy; the desire"
        return _join(left, right[1:])
    if right[0] == "," and left.split()[-1].lower() in _OPENING_WORDS:
        return _join(left, right[1:])
    if left[-1] in ",;:" and right[0] in ".!?)":
        return left[:-1].rstrip() + right
    if left[-1] == "(" and right[0] == ")":
        return _join(left[:-1], right[1:])
    if right[0] in ",.;:!?)" or left[-1] == "(":
        return left + right
    return left + " " + right


# ------------------------------------------------------------------ what a drop may not break (issue 42)
#
# Each removal the dropping step tries is refused, and counted (`simulate/drop:<reason>`), when it would
# leave a sentence that no longer says what its source says or no longer reads as one. The reasons come
# from the blind readings' s3 records broken by a dropped phrase (docs/SIMSIM_QUALITY.md, round 6;
# tools/simsim_drop.py). Checked on the parse the phrase was chosen on:
#   not_constituent      the words to go are not one subtree (a head outside them has a dependent inside)
#   required_argument    the phrase heads a core argument (subject, object, clausal complement)
#   quoted               it is inside a quotation, a title or a gloss ("for his "services to theoretical
#                        physics"" -> "for his "services "") (issue 51)
#   quantified           it holds a quantifier ("in many cases", "in some countries", "for most species"):
#                        without it, what held in some cases is said of all (issue 51)
#   only_complement      a prepositional phrase that is its verb's only complement (no object, clausal
#                        complement or other such phrase): "receive their drinking water from Vättern" keeps
#                        its object, but "were born in Paris" says nothing without it (issue 51)
#   time_or_number       a prepositional phrase with a number, a month, a time word ("century", "period") or
#                        preposition that bounds a time ("since", "until", "before", "after", "between"):
#                        "every coronation since 1066", "(16 May 1894 - 13 April 1962)" (issue 51)
#   measure              it hangs from a measure ("nearly 48 km from Naran Valley"): the number is
#                        measured from it (issue 51)
#   adverb_complement    an adverb of the same head stands right before it ("extending
#                        backwards to 3500 BC"), or a focusing adverb ("is linked mainly to kings of ...",
#                        Quirk et al. 1985, A Comprehensive Grammar of the English Language, 8.116: "mainly",
#                        "only", "especially" single out the phrase after them), or a verb's particle ("all
#                        history up until then" -> "all history up.")
#   object_complement    it follows the verb's object with a preposition that often marks a three-place
#                        verb's second argument ("blamed X for Y", "combining X with Y", "moves X to Y":
#                        Levin 1993, English Verb Classes and Alternations); it costs some adjuncts
#   inversion            it stands before its finite verb and no subject does ("and for the sake of the end
#                        exists potentiality" -> "and exists potentiality")
#   range_end            one end of a range ("of October to May", "from 1817 to 1819")
#   parallel             the sentence compares it with a phrase of the same preposition ("those in
#                        neighbouring Azerbaijan", "as in Greece", "some in the Vietic branch")
#   subject_modifier     it restricts the subject ("the number of Azerbaijanis in Iran", "temperatures in
#                        Alaska", "the search for new elements"): without it the subject is another thing
#   scope                it is under a negation, a superlative, an ordinal, "only" or a universal ("no
#                        counterpart in antiquity", "the first use of X in plant systematics"): dropping a
#                        restriction there does not give a weaker, still true sentence (natural logic's
#                        monotonicity: MacCartney and Manning 2007, "Natural Logic for Textual Inference")
#   antecedent           it holds a noun a later pronoun, a relative clause or a parenthesis right after it
#                        may refer to ("remain stationary near prey but only feed if it moves"; "returned to
#                        Switzerland without the child, whose real name ..."; "to the conjugate form of the
#                        base (the deprotonated form of the acid)")
#   bare_noun            it modifies a noun without determiner ("forces under Massoud", "British policy to
#                        Ireland"): the bare noun says next to nothing
#   definite_noun        it is all that identifies a noun with "the" ("until the day before launch", "the
#                        character at the cursor"): "the day" then names no day
#   elaboration          "e.g.", "i.e.", "including", "such as", ... follow it: they list what it held ("research
#                        in the natural sciences, e.g., botany" -> "research e.g., botany")
#   comparison           it is the second term of a comparison ("as", "than"; after "the same")
#   noun_complement      it hangs from a noun by a preposition that marks a noun's complement, not a place
#                        or time ("its emphasis on the attainment of utopia", "a monopoly on the sale of
#                        alcohol", "a bulwark against state power"): the noun alone says little (Quirk et
#                        al. 1985, 17.39: a noun's complementation follows its verb's or adjective's)
# and on the result, re-parsed (with `reparse`):
#   defect               stray punctuation or a dangling conjunction / preposition at the end (`defects`)
#   unparsed             the parser fails on the result
#   no_clause            the sentence had a finite verb and a subject and the result has not (`is_clause`)
#   root_changed         the result's root is another word than the sentence's
#   dangling_function_word  more prepositions, subordinators, determiners or conjunctions without the word
#                        they introduce (attached to a word on their left, or last) than the sentence had
DROP_CHECKS = ("not_constituent", "required_argument", "quoted", "quantified", "only_complement", "time_or_number",
               "measure",
               "adverb_complement", "object_complement", "inversion", "range_end", "parallel",
               "subject_modifier", "scope", "antecedent", "bare_noun", "definite_noun", "elaboration", "comparison",
               "noun_complement", "apposition", "same_head", "defect", "unparsed", "no_clause", "root_changed",
               "dangling_function_word", "lost_subject")
# What runs by default: every check. object_complement was off until issue 51 (on the judged records of rounds
# 1-6 it refused two acceptable drops for each broken one it alone refused, "condemned Trismegistus for
# idolatry"); precision first, the tuning text's s3 lost what three-place verbs need ("dedicated a portion of
# the spoils to him" -> "dedicated a portion of the spoils", "bring figurines to a very wide market" -> "bring
# figurines").
DEFAULT_DROP_CHECKS = DROP_CHECKS
_CORE_RELATIONS = frozenset({"nsubj", "nsubj:pass", "obj", "iobj", "ccomp", "xcomp", "csubj", "csubj:pass",
                             "expl", "root"})
_OBJECT_COMPLEMENT_PREPOSITIONS = frozenset("with for from into to onto against as".split())
# Focusing adverbs (restrictive and additive subjuncts, Quirk et al. 1985, 8.116-8.118): they point at the
# phrase after them, and stay behind without it ("is linked mainly.").
_FOCUSING_ADVERBS = frozenset("mainly mostly primarily largely chiefly principally predominantly partly "
                              "especially particularly notably specifically exclusively solely only just "
                              "merely purely even also too either simply".split())
_RANGE_PREPOSITIONS = frozenset({"to", "until", "till", "through", "thru"})
_MONTHS = frozenset("january february march april may june july august september october november december".split())
# Words before a preposition that set a phrase beside another: "those in X", "as in X", "than in X".
_PARALLEL_WORDS = frozenset("as than those that these this some others other like unlike both one ones".split())
_SUBJECT_RELATIONS = frozenset({"nsubj", "nsubj:pass", "csubj", "csubj:pass"})
# Determiners, quantifiers and modifiers under which a restriction cannot be dropped (see `scope`).
_SCOPE_WORDS = frozenset("no not n't never neither nor none nobody nothing every each all any only first last "
                         "sole single".split()) | frozenset(
    # adjectives that rank like a superlative: "the main harbour in Norway" is not "the main harbour"
    # (issue 51's reading)
    "main chief principal primary major leading premier foremost largest biggest".split())
# scope: ranks that a phrase beside them bounds ("first place in the East Division")
_RANK_WORDS = frozenset("first second third last top best worst only sole champion champions winner".split())
# quantified: a phrase with one of these says for which part something holds ("in many cases")
_QUANTIFIERS = frozenset("many most some few several certain all every each both various numerous".split())
# time_or_number: what marks a phrase as the time a claim holds at
_TIME_WORDS = frozenset("century centuries decade decades year years era eras period periods age ages dynasty "
                        "reign season seasons morning evening night week weeks day days".split()) | frozenset(
    # "for the first time since World War II", "during this time", "in its history to that point" (issue 51's
    # held-out reading and the tuning text): a phrase that says when, or the how-many-th time
    "time times point moment date then now once first second third fourth fifth last ever".split())
_TIME_PREPOSITIONS = frozenset("since until till before after between from".split())
# measure: words that name what a number measures ("575 miles in diameter", "30 m in length"): the number
# means nothing without them (issue 51's held-out reading)
_DIMENSION_WORDS = frozenset("diameter radius circumference length width breadth height depth thickness area "
                             "volume size weight mass altitude elevation distance span perimeter".split())
_LATER_PRONOUNS = frozenset("it its itself they them their theirs themselves".split())
_RELATIVE_WORDS = frozenset("who whom whose which that where".split())
# noun_complement: prepositions that introduce what a noun is about or aimed at, as its verb's would
# ("emphasize X" -> "emphasis on X", "need X" -> "need for X", "oppose X" -> "opposition against X"); not
# "to", which after a noun is as often the verb's goal the parser hung on the noun ("translated the works of
# Plato to Latin", read acceptable without it in round 5)
_NOUN_COMPLEMENT_PREPOSITIONS = frozenset("on upon for against about over".split())
# definite_noun: modifiers that identify a noun besides the dropped phrase ("the French village of X")
_NOUN_MODIFIERS = frozenset({"amod", "compound", "nummod", "acl", "nmod", "appos", "flat"})
# elaboration: words after the phrase that list or name what it holds ("in the natural sciences, e.g.,
# botany"); what follows them then hangs from the words before the phrase
_ELABORATION_WORDS = frozenset({"e.g.", "e.g", "i.e.", "i.e", "namely", "including", "especially", "particularly",
                                "notably", "such"})
_DETERMINER_RELATIONS = frozenset({"det", "nmod:poss", "nummod", "det:predet", "det:poss"})


def _content_heads(sentence: Sentence, phrase: "Phrase") -> List[int]:
    """Tokens of the phrase (punctuation aside) whose head lies outside it."""
    toks = sentence.tokens
    return [k for k in range(phrase.start, phrase.end)
            if toks[k].upos != "PUNCT" and not phrase.start <= toks[k].head < phrase.end]


def _nominal_chain(sentence: Sentence, i: int) -> List[int]:
    """`i` and the nouns it hangs from through nmod / conj / appos, up to (and with) the first other head."""
    toks, out = sentence.tokens, [i]
    while toks[out[-1]].head >= 0 and toks[out[-1]].deprel.split(":")[0] in ("nmod", "conj", "appos") \
            and len(out) < len(toks):
        out.append(toks[out[-1]].head)
    return out


def phrase_refusal(sentence: Sentence, phrase: "Phrase", checks: Sequence[str] = DEFAULT_DROP_CHECKS) -> Optional[str]:
    """Why dropping `phrase` from `sentence` would break it, judged on the parse (see DROP_CHECKS), or None."""
    toks = sentence.tokens
    heads = _content_heads(sentence, phrase)
    if "not_constituent" in checks and len(heads) != 1:
        return "not_constituent"
    if not heads:
        return None
    h = heads[0]
    head = toks[h]
    gov = head.head
    words = {toks[k].text.lower() for k in range(phrase.start, phrase.end)}
    case = [toks[c].text.lower() for c in sentence.children(h) if toks[c].deprel == "case"]
    if "required_argument" in checks and head.deprel in _CORE_RELATIONS:
        return "required_argument"
    before = toks[phrase.start - 1] if phrase.start > 0 else None
    after = phrase.end
    while after < len(toks) and toks[after].text in (",", ")"):
        after += 1
    if "adverb_complement" in checks and before is not None and before.upos == "ADV" \
            and before.head in (gov, h) and before.deprel.startswith("advmod") \
            and not before.text.lower().endswith("ly"):  # "backwards to", "away from"; not "officially in"
        return "adverb_complement"
    if "adverb_complement" in checks and before is not None and (
            (before.upos == "ADV" and before.text.lower() in _FOCUSING_ADVERBS)
            or before.deprel == "compound:prt" or before.xpos == "RP"):
        return "adverb_complement"  # "linked mainly to kings", "history up until then"
    if "object_complement" in checks and case and case[0] in _OBJECT_COMPLEMENT_PREPOSITIONS \
            and head.deprel.split(":")[0] == "obl" and gov >= 0:
        objs = [c for c in sentence.children(gov) if toks[c].deprel in ("obj", "iobj")]
        if any(gov < c and max(sentence.subtree(c)) + 1 == phrase.start for c in objs):
            return "object_complement"
    if "inversion" in checks and head.deprel.split(":")[0] == "obl" and gov >= 0 and phrase.end <= gov:
        subjects = [c for c in sentence.children(gov) if toks[c].deprel in _SUBJECT_RELATIONS | {"expl"}]
        if toks[gov].xpos in FINITE_TAGS and all(c > gov for c in subjects):  # none before the finite verb
            return "inversion"
    if "range_end" in checks and case:
        date_before = before is not None and (before.xpos == "CD" or before.upos == "NUM" or before.ner.endswith(
            ("DATE", "TIME")) or before.text.lower() in _MONTHS)
        to_after = after < len(toks) and toks[after].text.lower() in _RANGE_PREPOSITIONS
        if (case[0] in _RANGE_PREPOSITIONS and date_before) or (case[0] in ("from", "between") and to_after):
            return "range_end"
    if "parallel" in checks and case:
        for k in range(1, len(toks)):
            if not phrase.start <= k < phrase.end and toks[k].text.lower() == case[0] \
                    and toks[k - 1].text.lower() in _PARALLEL_WORDS and not phrase.start <= k - 1 < phrase.end:
                return "parallel"
    chain = _nominal_chain(sentence, h)
    if "subject_modifier" in checks and head.deprel.split(":")[0] == "nmod" \
            and any(toks[k].deprel in _SUBJECT_RELATIONS for k in chain[1:]):
        return "subject_modifier"
    if "scope" in checks:
        holders = chain[1:]
        clause = gov if not holders else holders[-1]
        if clause >= 0 and toks[clause].upos not in ("VERB", "AUX", "ADJ"):
            clause = toks[clause].head  # the object's or the oblique's verb
        if clause >= 0 and toks[clause].upos in ("VERB", "AUX", "ADJ"):
            holders = holders + [clause]
            holders += [c for c in sentence.children(clause) if toks[c].deprel in _SUBJECT_RELATIONS]
        for k in holders:
            if toks[k].text.lower() in _SCOPE_WORDS or toks[k].xpos in ("JJS", "RBS"):
                return "scope"
            for c in sentence.children(k):
                if not phrase.start <= c < phrase.end and (toks[c].text.lower() in _SCOPE_WORDS
                                                            or toks[c].xpos in ("JJS", "RBS")):
                    return "scope"
        # a rank beside it under the same verb: "finished in first place in the East Division" is not
        # "finished in first place" (issue 51's held-out reading)
        if head.deprel.split(":")[0] == "obl" and gov >= 0:
            for c in sentence.children(gov):
                if phrase.start <= c < phrase.end or toks[c].deprel.split(":")[0] not in ("obl", "obj", "advmod",
                                                                                         "xcomp", "npadvmod"):
                    continue
                if any(toks[k].text.lower() in _RANK_WORDS or toks[k].xpos in ("JJS", "RBS")
                       for k in sentence.subtree(c)):
                    return "scope"
    if "antecedent" in checks and phrase.relation in CLAUSE_KINDS:
        inside = {toks[k].text.lower() for k in range(phrase.start, phrase.end) if toks[k].text[:1].isupper()}
        if any(toks[k].text.lower() in inside for k in range(phrase.end, len(toks))):
            return "antecedent"  # "the World Health Organization (WHO) ... the WHO"
    if "antecedent" in checks and any(toks[k].upos in ("NOUN", "PROPN") for k in range(phrase.start, phrase.end)):
        if after < len(toks) and toks[after].text.lower() in _RELATIVE_WORDS:
            return "antecedent"
        if phrase.end < len(toks) and toks[phrase.end].text == "(":
            return "antecedent"
        if any(toks[k].text.lower() in _LATER_PRONOUNS for k in range(phrase.end, len(toks))) \
                and not words & _LATER_PRONOUNS:
            return "antecedent"
    if "bare_noun" in checks and head.deprel.split(":")[0] == "nmod" and gov >= 0 and toks[gov].upos == "NOUN" \
            and not any(toks[c].deprel in _DETERMINER_RELATIONS for c in sentence.children(gov)):
        return "bare_noun"
    if "definite_noun" in checks and head.deprel.split(":")[0] == "nmod" and gov >= 0 and toks[gov].upos == "NOUN":
        kids = [c for c in sentence.children(gov) if not phrase.start <= c < phrase.end and toks[c].upos != "PUNCT"]
        if any(toks[c].text.lower() == "the" and toks[c].deprel == "det" for c in kids) and \
                not any(toks[c].deprel.split(":")[0] in _NOUN_MODIFIERS for c in kids):
            return "definite_noun"
        if any(toks[c].deprel == "nmod:poss" for c in kids):
            return "definite_noun"  # "the island's history in phosphate mining": whose history, not which
    if "elaboration" in checks and after < len(toks) and toks[after].text.lower() in _ELABORATION_WORDS:
        return "elaboration"
    if "comparison" in checks and case and (case[0] in ("as", "than") or (
            gov >= 0 and any(toks[c].text.lower() == "same" for c in sentence.children(gov)))):
        return "comparison"  # "as those of Patroclus", "than in 1990", "the same urn like those of ..."
    if "noun_complement" in checks and case and case[0] in _NOUN_COMPLEMENT_PREPOSITIONS \
            and head.deprel.split(":")[0] == "nmod" and gov >= 0 and toks[gov].upos == "NOUN":
        return "noun_complement"
    # issue 51's checks, after the older ones (each refusal is counted under the first reason that holds)
    if "parallel" in checks and phrase.relation == "parenthetical" and any(
            toks[k].text == "(" for k in range(len(toks)) if not phrase.start <= k < phrase.end):
        return "parallel"  # "physicians (1.13 per 1,000), nurses (2.23 ...), and dentists (0.31 ...)": one left
        # behind reads as said of all
    if "apposition" in checks and phrase.relation == "appos":
        inside = [toks[k] for k in range(phrase.start, phrase.end) if toks[k].upos != "PUNCT"]
        if all(t.upos == "PROPN" or t.text.lower() in _NAME_PARTICLE_WORDS for t in inside):
            return "apposition"  # the apposition is the name: "Writer, John Smith, said" -> "Writer said"
        if head.deprel == "conj" or (gov >= 0 and (
                toks[gov].deprel == "conj" or any(toks[c].deprel == "conj" for c in sentence.children(gov)))):
            return "apposition"  # a list's members: "a crew of four, an X, a Y, and a Z, ..."
        if gov >= 0:
            from miners.discofuse.rules import _in_coordination  # pylint: disable=import-outside-toplevel
            if _in_coordination(sentence, gov, phrase.end):
                return "apposition"  # "Ancient Rome and, until the French Revolution, the Western Christian world"
        if gov >= 0 and any(toks[c].deprel == "det" and toks[c].text.lower() in ("a", "an")
                            for c in sentence.children(gov)):
            return "apposition"  # after an indefinite noun, no name
    if "quoted" in checks:
        plain = sum(1 for k in range(phrase.start) if toks[k].text == '"')
        opened = sum(1 for k in range(phrase.start) if toks[k].text in ("\u201c", "``")) - sum(
            1 for k in range(phrase.start) if toks[k].text in ("\u201d", "''"))
        if plain % 2 == 1 or opened > 0:
            return "quoted"
    if "quantified" in checks and words & _QUANTIFIERS:
        return "quantified"
    if "adverb_complement" in checks and phrase.relation == "obl" and (
            (before is not None and before.upos == "ADV" and before.head in (gov, h)
             and before.deprel.startswith("advmod"))
            or (toks[phrase.start].upos == "ADV" and toks[phrase.start].deprel.startswith("advmod"))):
        return "adverb_complement"  # an adverb in -ly too: "receive their water directly from Vättern"
    if phrase.relation in ("obl", "nmod"):
        if "only_complement" in checks and head.deprel.split(":")[0] == "obl" and gov >= 0 \
                and toks[gov].upos in ("VERB", "AUX"):
            others = [c for c in sentence.children(gov) if not phrase.start <= c < phrase.end and (
                toks[c].deprel.split(":")[0] in ("obj", "iobj", "xcomp", "ccomp", "obl"))]
            if not others:
                return "only_complement"
        if "time_or_number" in checks and (any(
                any(ch.isdigit() for ch in toks[k].text) or toks[k].text.lower() in _MONTHS | _TIME_WORDS
                | _TIME_PREPOSITIONS for k in range(phrase.start, phrase.end)) or (case and case[0] in _TIME_PREPOSITIONS)):
            return "time_or_number"
        if "measure" in checks and words & _DIMENSION_WORDS:
            return "measure"  # "575 miles (930 km) in diameter"
        if before is not None and before.text == ")":  # the measure before a parenthesis: "575 miles (930 km)"
            k = phrase.start - 1
            while k > 0 and toks[k].text != "(":
                k -= 1
            before = toks[k - 1] if k > 0 else None
            two_before = toks[k - 2] if k > 1 else None
        else:
            two_before = toks[phrase.start - 2] if phrase.start > 1 else None
        if "measure" in checks and gov >= 0 and (
                any(toks[c].deprel == "nummod" for c in sentence.children(gov))
                or (before is not None and (before.xpos == "CD" or any(ch.isdigit() for ch in before.text)))
                or (before is not None and before.upos == "NOUN" and two_before is not None
                    and (two_before.xpos == "CD" or any(ch.isdigit() for ch in two_before.text)))):
            return "measure"  # "300 metres from the square", "48km from the valley"
    return None


def _dangling_function_words(sentence: Sentence) -> int:
    """Prepositions, subordinators, determiners and conjunctions attached to a word on their left (English
    puts them before the word they introduce) or standing last, a determiner before a preposition, a
    punctuation mark, a conjunction or an auxiliary, an article parsed as a noun, a preposition before a
    punctuation mark; a possessive
    's is none of them."""
    toks = sentence.tokens
    last = max((k for k, t in enumerate(toks) if t.upos != "PUNCT"), default=-1)
    n = 0
    for k, t in enumerate(toks):
        nxt = toks[k + 1].upos if k + 1 < len(toks) else "PUNCT"
        if t.upos == "ADP" and t.deprel == "obl" and nxt == "PUNCT":
            n += 1  # a preposition left without its object ("Tadashi Abe in, who"): obl after clear_to_ud
            continue
        if t.text.lower() in ("the", "a", "an") and t.deprel != "det":
            n += 1  # an article standing for a noun ("followed by the in 1952")
            continue
        if t.deprel.split(":")[0] not in ("case", "mark", "det", "cc") or t.xpos == "POS":
            continue
        if t.deprel.startswith("det:predet") or t.text.lower() in ("all", "both", "each", "alone"):
            continue
        if k == last or 0 <= t.head < k or (t.deprel == "det" and nxt in ("ADP", "PUNCT", "CCONJ", "AUX")):
            n += 1
    return n


def result_refusal(original: str, sentence: Sentence, result: str, reparse: Optional[Callable] = None,
                   checks: Sequence[str] = DEFAULT_DROP_CHECKS, phrases: Sequence["Phrase"] = ()) -> Optional[str]:
    """Why the text left by a drop is broken (see DROP_CHECKS), or None; `reparse(text)` -> Sentence or an
    exception (the job's parser); without it only the defects are checked. `phrases`: what was dropped (for
    lost_subject)."""
    if "defect" in checks and not well_formed(result, original):
        return "defect"
    if reparse is None or not set(checks) & {"unparsed", "no_clause", "root_changed", "dangling_function_word",
                                             "lost_subject"}:
        return None
    new = reparse(result)
    if isinstance(new, Exception) or new is None:
        return "unparsed" if "unparsed" in checks else None
    if "no_clause" in checks and is_clause(sentence) and not is_clause(new):
        return "no_clause"
    if "lost_subject" in checks:
        # subjects of the verbs left (their head outside what was dropped, wherever the parser put them)
        kept = sum(1 for t in sentence.tokens if t.deprel in SUBJECT_RELATIONS and t.head >= 0
                   and not any(p.start <= t.head < p.end for p in phrases))
        if sum(1 for t in new.tokens if t.deprel in SUBJECT_RELATIONS) < kept:
            return "lost_subject"  # "... was thriving and [in those years plots of ground] were granted"
    if "root_changed" in checks:
        old_root, new_root = sentence.root(), new.root()
        if old_root < 0 or new_root < 0 or \
                sentence.tokens[old_root].text.lower() != new.tokens[new_root].text.lower():
            return "root_changed"
    if "dangling_function_word" in checks and _dangling_function_words(new) > _dangling_function_words(sentence):
        return "dangling_function_word"
    return None


def drop_phrases(text: str, sentence: Sentence, seed: int, key: str, max_share: float = MAX_DROP_SHARE,
                 max_drops: int = MAX_DROPS,
                 relations: Sequence[str] = DROPPABLE_RELATIONS, reparse: Optional[Callable] = None,
                 checks: Sequence[str] = DEFAULT_DROP_CHECKS,
                 inc: Optional[Callable] = None) -> Tuple[str, List[Phrase]]:
    """Remove up to `max_drops` droppable phrases (seeded choice), at most `max_share` of the words.

    Args:
      text: the sentence as written (the parse's tokens are substrings of it, in order).
      sentence: its UD parse.
      seed, key: the choice is a hash of (seed, key, phrase): the same input gives the same output.
      reparse: the parser, text -> Sentence (or an exception): each result is parsed again and checked
        (`result_refusal`); None checks the parse of `text` only.
      checks: the DROP_CHECKS to apply (`defect` is how a badly cut sentence was always refused).
      inc: `inc(reason)` for each removal refused (the job counts `simulate/drop:<reason>`).

    Returns:
      (new text, phrases removed); the text unchanged and [] when nothing can go or every removal
      would leave the sentence broken.
    """
    spans = token_offsets(text, [t.text for t in sentence.tokens])
    if spans is None:
        return text, []
    n_words = sum(1 for t in sentence.tokens if t.upos != "PUNCT")
    budget = int(max_share * n_words)
    phrases = droppable_phrases(sentence, text, relations=[r for r in relations if r not in CLAUSE_KINDS])
    if set(relations) & set(CLAUSE_KINDS):
        phrases += [p for p in clause_phrases(sentence, text) if p.relation in relations]
    order = sorted(phrases, key=lambda p: stable_fraction(f"{key}|{p.start}|{p.end}", f"drop-{seed}"))
    chosen: List[Phrase] = []
    used = 0
    for p in order:
        if len(chosen) >= max_drops:
            break
        if any(p.start < c.end and c.start < p.end for c in chosen):
            continue  # inside or around a phrase already dropped
        size = sum(1 for k in range(p.start, p.end) if sentence.tokens[k].upos != "PUNCT")
        if size == 0 or used + size > budget:
            continue
        reason = phrase_refusal(sentence, p, checks)
        if reason is None and "same_head" in checks and chosen and _governor(sentence, p) in {
                _governor(sentence, c) for c in chosen}:
            reason = "same_head"
        trial = chosen + [p]
        if reason is None:
            reason = result_refusal(text, sentence, _remove(text, spans, trial), reparse,
                                    tuple(checks) + ("defect",), trial)
        if reason is not None:
            if inc is not None:
                inc(reason)
            continue
        chosen, used = trial, used + size
    if not chosen:
        return text, []
    return _remove(text, spans, chosen), sorted(chosen, key=lambda p: p.start)


def _governor(sentence: Sentence, phrase: Phrase) -> int:
    """The word a phrase hangs from (-1: none, or more than one)."""
    heads = _content_heads(sentence, phrase)
    return sentence.tokens[heads[0]].head if len(heads) == 1 else -1


def _remove(text: str, spans, phrases: Sequence[Phrase]) -> str:
    """`text` without the phrases, each junction repaired by `_join`."""
    pieces, pos = [], 0
    for start, end in sorted((spans[p.start][0], spans[p.end - 1][1]) for p in phrases):
        pieces.append(text[pos:max(pos, start)])
        pos = max(pos, end)
    pieces.append(text[pos:])
    result = pieces[0]
    for piece in pieces[1:]:
        result = _join(result, piece)
    return result


# --------------------------------------------------------------------------- substitution (step 4)

def substitute(text: str, tokens: Sequence[str], pos_tags: Sequence[str], rules, score_nll: Callable,
               max_substitutions: int = MAX_SUBSTITUTIONS) -> Tuple[str, List[str]]:
    """Apply simplifying PPDB rewrites, each accepted only when the language model does not find
    the sentence less natural (mean NLL not higher).

    Args:
      text: the sentence; `tokens` its tokens (substrings in order) and `pos_tags` their PTB tags.
      rules: a `miners.simsim.ppdb.PPDBRules` (candidates(tokens, tags) -> [(start, end, replacement, rule)]).
      score_nll: texts -> mean NLL per text (the language model).

    Returns:
      (new text, the rules applied as "source -> target" strings).
    """
    spans = token_offsets(text, tokens)
    if spans is None:
        return text, []
    candidates = rules.candidates(list(tokens), list(pos_tags))
    if not candidates:
        return text, []
    current, applied = text, []
    current_nll = score_nll([text])[0]
    taken: List[Tuple[int, int]] = []
    shift_spans = list(spans)
    for start, end, replacement, rule in candidates:
        if len(applied) >= max_substitutions:
            break
        if any(not (end <= a or start >= b) for a, b in taken):
            continue
        a, b = shift_spans[start][0], shift_spans[end - 1][1]
        repl = replacement
        if start == 0 and current[a:a + 1].isupper():
            repl = repl[:1].upper() + repl[1:]
        trial = current[:a] + repl + current[b:]
        trial_nll = score_nll([trial])[0]
        if trial_nll > current_nll:
            continue
        delta = len(repl) - (b - a)
        shift_spans = [(x + delta, y + delta) if x >= b else (x, y) for x, y in shift_spans]
        shift_spans[start] = (a, a + len(repl))
        for k in range(start + 1, end):
            shift_spans[k] = (a + len(repl), a + len(repl))
        current, current_nll = trial, trial_nll
        taken.append((start, end))
        applied.append(f"{' '.join(tokens[start:end])} -> {replacement}")
    return current, applied



# WordNet substitution (the paper's first s3 operation without PPDB): at most this many words per
# sentence (project default: each replaced word is a chance of a wrong sense).
MAX_WORDNET_SUBSTITUTIONS = 2
# How many of a word's replacements (best first) the language model is asked about.
MAX_WORDNET_TRIES = 3
WORDNET_REASONS = ("substituted", "no_synonym", "ambiguous_sense", "not_more_frequent", "inflection_unknown",
                   "lm_rejected", "proper_noun", "number", "in_name")
_CONTENT_UPOS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})


def _in_name(sentence: Sentence, i: int) -> bool:
    """A token of a multi-word name: capitalized after the sentence's first token, or joined to a
    proper noun by compound / flat, or the head of a proper noun's compound ("Battle" of "Hastings
    Battle" is a PROPN; "River" in "Mississippi River" is tagged NOUN at times)."""
    toks = sentence.tokens
    t = toks[i]
    if i > 0 and t.text[:1].isupper():
        return True
    if t.deprel.split(":")[0] in ("compound", "flat") and t.head >= 0 and toks[t.head].upos == "PROPN":
        return True
    return any(toks[c].upos == "PROPN" and toks[c].deprel.split(":")[0] in ("compound", "flat")
               for c in sentence.children(i))


def wordnet_substitute(text: str, sentence: Sentence, wn, score_nll: Callable,
                       max_substitutions: int = MAX_WORDNET_SUBSTITUTIONS, min_gain: Optional[float] = None,
                       known_words=None, inc: Callable = lambda name, n=1: None) -> Tuple[str, List[str]]:
    """Replace content words by more frequent WordNet synonyms of a safe sense (miners.simsim.wordnet.
    synonym_candidates), each accepted only when the language model does not find the sentence less
    natural (mean NLL not higher); at most `max_substitutions` words.

    Every content word (NOUN, VERB, ADJ, ADV with a Penn tag WordNet inflection knows) and every
    proper noun and number is one decision, counted with `inc(reason)` (`WORDNET_REASONS`): never a
    proper noun, a number or a word of a multi-word name, nor a word inside a hyphenated compound.

    Returns:
      (new text, the substitutions as "word -> replacement" strings).
    """
    from miners.simsim import wordnet as wordnet_lib  # pylint: disable=import-outside-toplevel
    gain = wordnet_lib.MIN_ZIPF_GAIN if min_gain is None else min_gain
    toks = sentence.tokens
    spans = token_offsets(text, [t.text for t in toks])
    if spans is None:
        return text, []
    current, applied, current_nll = text, [], None
    delta = 0  # characters the earlier replacements added
    for i, t in enumerate(toks):
        if len(applied) >= max_substitutions:
            break
        if t.upos == "PROPN":
            inc("proper_noun")
            continue
        if t.upos == "NUM" or any(ch.isdigit() for ch in t.text):
            inc("number")
            continue
        if (t.upos not in _CONTENT_UPOS or t.text.lower() in KEEP_WORDS or t.text.lower() in KEEP_MODIFIERS
                or not t.text.isalpha()):
            continue  # a function word, or a modifier whose meaning a replacement would move ("later")
        a, b = spans[i]
        if (a > 0 and text[a - 1] == "-") or text[b:b + 1] == "-":
            continue  # a piece of "sun-loving"
        if _in_name(sentence, i):
            inc("in_name")
            continue
        choice = wordnet_lib.synonym_candidates(t.text, t.lemma or t.text, t.xpos, wn, gain, known_words=known_words)
        if choice.reason:
            inc(choice.reason)
            continue
        if current_nll is None:
            current_nll = score_nll([current])[0]
        done = False
        for repl in choice.replacements[:MAX_WORDNET_TRIES]:
            if t.text[:1].isupper():
                repl = repl[:1].upper() + repl[1:]
            trial = current[:a + delta] + repl + current[b + delta:]
            trial_nll = score_nll([trial])[0]
            if trial_nll > current_nll:
                continue
            current, current_nll = trial, trial_nll
            delta += len(repl) - (b - a)
            applied.append(f"{t.text} -> {repl}")
            done = True
            break
        inc("substituted" if done else "lm_rejected")
    return current, applied


# --------------------------------------------------------------------------- word sense (issue 42)
#
# Apertium picks one sense per word ("cola" -> "glue", "light rail" -> "clear rail"): a back-translation
# whose new content word is neither an inflection, a WordNet synonym nor a direct hypernym / hyponym of a
# content word the seed lost has most likely taken another sense of it.

_SENSE_WORD = re.compile(r"[A-Za-z]+")
# Words WordNet lists as nouns, verbs or adverbs that are function words here: modals, quantifiers,
# prepositions and connectives ("may" -> "can", "approximately" -> "around", "furthermore" -> "besides").
SENSE_FUNCTION_WORDS = frozenset("""can could may might must shall should will would any some all each every
one ones other others another way around about besides between among like lot lots less more most least much
many few several while whereas although though however moreover furthermore thus therefore hence also too
often mostly usually last first next top well still yet ever even very quite rather up down out off over""".split())
# A shared stem: a new word and a lost one that begin with this many letters in common (and share at
# least 60% of the shorter one) are taken for one word in two forms ("continually" / "continuously").
SENSE_MIN_STEM = 5


def _same_stem(a: str, b: str) -> bool:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= SENSE_MIN_STEM and n >= 0.6 * min(len(a), len(b))


def _content_lemmas(word: str, wn) -> Dict[str, List[str]]:
    """pos -> WordNet base forms of a word (empty: a function word or unknown to WordNet)."""
    return {pos: bases for pos in ("n", "v", "a", "r") if (bases := wn.morphy(word, pos))}


def _related(new: Dict[str, List[str]], lost: Dict[str, List[str]], wn) -> bool:
    for pos, bases in new.items():
        lost_bases = lost.get(pos, [])
        if not lost_bases:
            continue
        if set(bases) & set(lost_bases):
            return True  # an inflection of the same lemma
        for base in lost_bases:
            related = wn.lemmas_of_related(base, pos)
            if any(b in related for b in bases):
                return True
    return False


def sense_changed_words(candidate: str, seed: str, wn) -> List[str]:
    """The candidate's new content words (lower-cased words it has and the seed lacks, known to
    WordNet, not a KEEP_WORDS / function word) related to none of the content words the seed lost."""
    seed_words = {w.lower() for w in _SENSE_WORD.findall(seed)}
    cand_words = {w.lower() for w in _SENSE_WORD.findall(candidate)}
    skip = _SPLIT_FUNCTION_WORDS | KEEP_WORDS | SENSE_FUNCTION_WORDS

    def content(words):
        out = {}
        for w in sorted(words - skip):
            lemmas = _content_lemmas(w, wn)
            if lemmas and len(w) > 2:
                out[w] = lemmas
        return out

    new, lost = content(cand_words - seed_words), content(seed_words - cand_words)
    return [w for w, lemmas in new.items()
            if not any(_same_stem(w, x) or _related(lemmas, lost[x], wn) for x in lost)]


def sense_changed_reason(candidate: str, seed: str, wn) -> Optional[str]:
    """"sense_changed" when a new content word of the candidate is no inflection, synonym, hypernym or
    hyponym (WordNet) of a content word of the seed it replaced (`sense_changed_words`)."""
    return "sense_changed" if sense_changed_words(candidate, seed, wn) else None


# --------------------------------------------------------------------------- candidate filters (issue 34)
#
# Apertium (the offline translator) calques, translates names and garbles function words; the trigram
# language model does not see it (on issue 34's examples the garbled candidate scores a lower mean NLL
# than its seed in 6 of 7). These checks reject such candidates before the language model chooses,
# cheapest first; each returns a snake_case reason or None.

# Apertium's marks: `*` unknown to the analyser, `@` no transfer, `#` generation error; `^` a leaked
# stream-format bracket. A candidate may carry one only as often as its seed does.
APERTIUM_MARKS = "*@#^"


def apertium_mark_reason(candidate: str, seed: str) -> Optional[str]:
    """"apertium_mark" when the candidate has a `*`, `@`, `#` or `^` more often than the seed (the
    untranslated-word check strips a mark only at a word's start: "FLEC-*FAC", "1850*s" keep it)."""
    if any(candidate.count(m) > seed.count(m) for m in APERTIUM_MARKS):
        return "apertium_mark"
    return None


_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
_CAP_WORD = r"[A-Z][\w]*(?:[-'’.&][\w]+)*"
# A name's lower-case particle between two capitalized words ("Alonso de Ojeda", "Admiral de Grasse", "Ludwig
# van Beethoven"): part of the name, which Apertium translates ("Alonso of Ojeda": read broken, rounds 8-9).
_NAME_PARTICLES = "de|da|del|della|di|du|des|van|von|der|den|ter|la|le|y|bin|ibn|al|dos|das"
_CAP_SPAN = re.compile(rf"(?<![\w'’-]){_CAP_WORD}(?:(?:\s+(?:{_NAME_PARTICLES}))?\s+{_CAP_WORD})*")  # at a word's start ("superHILAC": none)
# Capitalized words that are no names: "I", and a span's sentence-initial word (checked apart).
_NOT_NAMES = frozenset({"I"})
_NAME_PARTICLE_WORDS = frozenset(_NAME_PARTICLES.split("|")) | {"of", "the", "and", "&"}


def _at_sentence_start(text: str, index: int) -> bool:
    before = text[:index].rstrip(" \t\"'“‘`(([")
    return not before or before[-1] in ".!?:;" or before.endswith("''")


def seed_entities(seed: str) -> Tuple[List[str], List[str]]:
    """(numbers, capitalized spans) of the seed that a rewrite must keep as they are: every number
    ("70", "1,000", "2001"), every maximal run of capitalized words not at a sentence's start
    ("Heath Brothers", "The Coup", "Party Music"); a run that starts a sentence keeps its words
    after the first ("New York" -> "York"); "I" and a possessive "'s" are left out."""
    numbers = sorted(set(_NUMBER.findall(seed)))
    spans = set()
    for m in _CAP_SPAN.finditer(seed):
        words = m.group(0).split()
        if _at_sentence_start(seed, m.start()):
            words = words[1:]
        # A possessive ends a name: "NASA's Advanced Technology Center" is "NASA" and the rest.
        part: List[str] = []
        for w in words + [""]:
            if w and not re.search(r"['’]s?$", w):
                part.append(w)
                continue
            if w:
                part.append(re.sub(r"['’]s?$", "", w))
            while part and part[0] in _NOT_NAMES:
                part = part[1:]
            if part:
                spans.add(" ".join(part))
            part = []
    return numbers, sorted(spans)


# A number with the preposition before it: "from 1483" is not "of 1483", "until 1975" not "to 1975".
# Only the prepositions that bound a time or a range ("on 75 Ark" -> "at 75 Ark" keeps the meaning).
_LED_NUMBER = re.compile(r"\b((?:from|to|until|till|since|between|in|by|after|before|through)\s+\d+(?:[.,:/]\d+)*)")


def entity_changed_reason(candidate: str, seed: str) -> Optional[str]:
    """"entity_changed" when a number or a capitalized span of the seed (`seed_entities`) is not in
    the candidate as it was (Tirana -> "Tyrant", "Heath Brothers" -> "Brothers of Heath"), or when
    the candidate has a capitalized word, not at a sentence's start, that the seed does not have
    ("Avenue of Tall Park", "Pickens Was born", "Estrich It grew": Apertium capitalizes the word
    after a sentence-initial name), or when a number of the seed lost the preposition before it
    ("from 1483" -> "of 1483")."""
    numbers, spans = seed_entities(seed)
    have_numbers = set(_NUMBER.findall(candidate))
    if any(n not in have_numbers for n in numbers):
        return "entity_changed"
    have_led = {" ".join(led.split()) for led in _LED_NUMBER.findall(candidate.lower())}
    if any(" ".join(led.split()) not in have_led for led in _LED_NUMBER.findall(seed.lower())):
        return "entity_changed"  # "from 1817 to 1819" -> "of 1817 to 1819"
    for span in spans:
        if not re.search(rf"(?<![\w]){re.escape(span)}(?![\w])", candidate):
            return "entity_changed"
    tokens = re.findall(r"[\w'’.&-]+", seed)
    seed_words = set(tokens) | {re.sub(r"(?:['’]s?|\.)$", "", w) for w in tokens}
    for span in seed_entities(candidate)[1]:
        if any(w not in seed_words for w in span.split()):
            return "entity_changed"
    return None


# Function-word sequences English does not write: a determiner before a determiner or possessive ("the
# his", "a the"), a doubled function word ("to to", "of of"), a sentence that ends on a verb "be", an
# article, a preposition or a conjunction ("occupied by NASA is. The ATDC"; not "on" or "in": "later on."),
# "at" before a year or a month.
_DETERMINERS = "the|a|an"
_POSSESSIVE_OR_DET = "the|a|an|his|her|its|their|my|our|your|this|these|those"
_FUNCTION = ("the|a|an|to|of|in|on|at|by|for|with|from|and|or|but|is|are|was|were|be|been|has|have|had|"
             "his|her|its|their|that|this|as|than|not")
_BROKEN = (
    re.compile(rf"\b(?:{_DETERMINERS})\s+(?:{_POSSESSIVE_OR_DET})\b", re.I),
    re.compile(rf"\b({_FUNCTION})\s+\1\b", re.I),
    re.compile(r"\b(?:is|are|was|were|the|a|an|of|to|by|with|for|from|and|or|at)\s*[.!?](?:\s|$)", re.I),
    # "at" before a year or a month: Catalan / Galician "a" / "en" ("at 1990", "at March 1897")
    re.compile(r"\bat\s+(?:1\d{3}|20\d{2})(?![\d,.]\d)|\bat\s+(?:January|February|March|April|May|June|July|"
               r"August|September|October|November|December)\b", re.I),
)


def broken_sequences(text: str) -> int:
    """How many broken function-word sequences (`_BROKEN`) `text` has."""
    return sum(len(p.findall(text)) for p in _BROKEN)


def broken_sequence_reason(candidate: str, seed: str) -> Optional[str]:
    """"broken_sequence" when the candidate has more broken function-word sequences than its seed."""
    if broken_sequences(candidate) > broken_sequences(seed):
        return "broken_sequence"
    return None


# Third-person pronouns by gender: Apertium renders the Romance possessive ("su", "seu") as "his" whatever
# it stands for ("their first album" -> "his first album", "her death" -> "his death").
_PRONOUNS = {"masculine": re.compile(r"\b(?:he|him|his|himself)\b", re.I),
             "feminine": re.compile(r"\b(?:she|her|hers|herself)\b", re.I)}


def pronoun_changed_reason(candidate: str, seed: str) -> Optional[str]:
    """"pronoun_changed" when the candidate has a masculine or feminine third-person pronoun and the
    seed has none of that gender, or the other way round ("He will coordinate" -> "It will coordinate":
    Romance languages drop the subject pronoun and Apertium restores it as "it")."""
    for pattern in _PRONOUNS.values():
        if bool(pattern.search(candidate)) != bool(pattern.search(seed)):
            return "pronoun_changed"
    return None


# Apertium restores a Romance language's dropped subject as "it", also where English has a subject
# already ("Tarkovsky directed" -> "Tarkovsky it directed", "Apollo 8 it took", "Why it is development")
# or none ("Observe that" -> "It observes that"). On the blind-judged s2 records of rounds 2-6
# (docs/simsim_judged/) a new "it" marks 10 of 79 broken records and 1 of 121 acceptable-or-slip ones.
_IT = re.compile(r"\bit\b", re.I)


def inserted_words(candidate: str, seed: str) -> List[str]:
    """Lower-cased words the candidate adds where it differs from its seed (difflib over word tokens):
    each word of an inserted or replaced stretch, less the words the seed's replaced stretch had."""
    a = [w.lower() for w in _WORD.findall(seed)]
    b = [w.lower() for w in _WORD.findall(candidate)]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("insert", "replace"):
            had = collections.Counter(a[i1:i2])
            for w in b[j1:j2]:
                if had[w]:
                    had[w] -= 1
                else:
                    out.append(w)
    return out


# Function words a back-translation changes without simplifying anything (Apertium's Romance pivots):
#   article      a generic article carried back ("Schools were scarce" -> "The schools were scarce",
#                "the video arraignment process" -> "the video arraignment the process", "For decades,
#                political power" -> "For decades, the political power")
#   of           an "of" after a quantifier ("most foothills" -> "most of foothills")
#   agreement    a verb's number, an article's a/an, a superlative ("74,000 were literate" -> "74,000 was
#                literate", "an Arrhenius" -> "a Arrhenius", "most desirable" -> "more desirable")
#   number       a noun's or a verb's number ("primary schools" -> "primary school", "often maintain" ->
#                "often maintains")
#   relative     "which" -> "that" ("the sponges, which have" -> "the sponges, that has")
#   preposition  one basic preposition for another, by the pivot's own ("on Lake Athabasca" -> "in Lake
#                Athabasca", "modified into flippers" -> "modified in flippers")
# On the blind-judged s2 / s3 records of rounds 2-7b (560: 218 read broken, 199 with one slip, 143
# acceptable), 256 have at least one of these (91 broken, 130 one slip, 35 acceptable): an inserted article
# 128 (47 / 57 / 24), a swapped preposition 69 (29 / 31 / 9), agreement 55 (16 / 38 / 1), number 21
# (7 / 12 / 2), relative 8, of 3; docs/SIMSIM_QUALITY.md, round 8. Each is put back as the seed had it:
# what is left of the change is the translator's rewording.
#   noun_order   a Romance noun-of-noun calque of the seed's compound, put back in the seed's order ("sea
#                lions" -> "lions of sea", "ABC islands" -> "the islands of ABC", "state court system" ->
#                "system of state court"): a head word, "of" (and an article), and the one or two words
#                the seed had before that head, side by side, with the word before or after the stretch
#                as in the seed. On every judged round (2-9), 64 s2 / s3 records have one: 28 read broken,
#                22 with one slip (the readers name the calque: "'lions of sea'", "'tissues of plant'"),
#                14 acceptable ("atoms of carbon"), which keep their meaning in the seed's order.
#   possessive   a possessive the pivot lost ("Agrippa's occult tradition" -> "Agrippa occult tradition")
#   conjunction  "as" / "such as" / "than" the pivot rendered by its own "como" / "que" ("as an ally" ->
#                "like an ally", "such as phases" -> "as phases", "so severe that" -> "so severe than")
#   punctuation  a space the pivot put before , . ; : ! ? that the seed does not have, and a lower-case
#                first letter where the seed's is a capital ("the capital of Angola , Luanda, lies")
# Each added after round 9: of the 98 s2 / s3 records read with a slip or broken in rounds 8-9 that
# noun_order leaves, the readers name one of these in 30 ("missing possessive", "'one' for 'an'", "'given
# on' for 'given above'", "'like an ally'", "lowercase 'the', space before comma").
RESTORED_KINDS = ("article", "of", "agreement", "number", "relative", "preposition", "noun_order", "possessive",
                  "conjunction", "punctuation")
_INSERTED = {"the": "article", "a": "article", "an": "article", "of": "of"}
_AGREEMENT = frozenset(frozenset(p) for p in (("is", "are"), ("was", "were"), ("has", "have"), ("does", "do"),
                                              ("a", "an"), ("most", "more"), ("this", "these"), ("that", "those")))
# an article the pivot made a numeral, or the other way ("In an uncharged atom" -> "In one uncharged atom")
_ARTICLE_SWAPS = frozenset(frozenset(p) for p in (("a", "one"), ("an", "one")))
# Prepositions a pivot swaps for one another (Romance "en", "a", "de", "sobre" each stand for several):
# none is a simpler word for another ("towards" -> "to", "upon" -> "on", "within" -> "in" are, and stay).
_BASIC_PREPOSITIONS = frozenset("in on at to of for from with by into onto about over under through during since "
                                "until among between against before after around above below".split())
# Spanish "arriba" / "abajo" / "en adelante" come back as "on", "up", "down" ("the graph above" -> "the
# graph on", "below 19 °C" -> "down 19 °C", "from 1767 onwards" -> "from 1767 down")
_DIRECTION_CALQUES = frozenset("on up down".split())
_CONJUNCTION_SWAPS = frozenset(frozenset(p) for p in (("as", "like"), ("than", "that"), ("as", "and")))


def _stems(w: str) -> set:
    out = {w}
    if w.endswith("ies"):
        out.add(w[:-3] + "y")
    if w.endswith("es"):
        out.add(w[:-2])
    if w.endswith("s"):
        out.add(w[:-1])
    return out


def _plural_variant(x: str, y: str) -> bool:
    """"body" and "bodies", "tax" and "taxes": one word in two numbers."""
    return x != y and bool(_stems(x) & _stems(y))


def _swap_kind(x: str, y: str, number_kept: bool) -> Optional[str]:
    """Which RESTORED_KINDS a seed word `x` the candidate wrote as `y` is, or None."""
    if frozenset((x, y)) in _AGREEMENT and not number_kept:
        return "agreement"
    if _plural_variant(x, y):
        return "number"
    if x == "which" and y == "that":
        return "relative"
    if x != y and x in _BASIC_PREPOSITIONS and y in _BASIC_PREPOSITIONS:
        return "preposition"
    if x in ("above", "below", "onwards") and y in _DIRECTION_CALQUES:
        return "preposition"
    if frozenset((x, y)) in _ARTICLE_SWAPS:
        return "article"
    if x in (y + "'s", y + "’s"):
        return "possessive"
    if frozenset((x, y)) in _CONJUNCTION_SWAPS:
        return "conjunction"
    return None


_SPACE_BEFORE_PUNCTUATION = re.compile(r"(?<=\w) +([,.;:!?])")


def _restore_punctuation(candidate: str, seed: str) -> Tuple[str, int]:
    """The candidate without the spaces before , . ; : ! ? its seed does not have (a tokenized seed
    keeps them), with the seed's capital first letter; and how many such fixes."""
    n = 0

    def fix(m):
        nonlocal n
        if " " + m.group(1) in seed:
            return m.group(0)
        n += 1
        return m.group(1)
    candidate = _SPACE_BEFORE_PUNCTUATION.sub(fix, candidate)
    first_c = next((k for k, ch in enumerate(candidate) if ch.isalpha()), None)
    first_s = next((ch for ch in seed if ch.isalpha()), "")
    if first_c is not None and first_s.isupper() and candidate[first_c].islower():
        candidate = candidate[:first_c] + candidate[first_c].upper() + candidate[first_c + 1:]
        n += 1
    return candidate, n


_CALQUE_ARTICLES = frozenset(("the", "a", "an"))


def _restore_noun_order(candidate: str, seed: str) -> Tuple[str, int]:
    """The candidate with each "A of [the] B" (B one or two words) put back as its seed's "B A" where
    the seed has those words side by side, nothing but spaces, quotes, hyphens or an apostrophe between
    them, and the candidate has the word before or after the stretch where the seed has it; and how many."""
    seed_words = list(_WORD.finditer(seed))
    a = [m.group().lower() for m in seed_words]
    n_done, j = 0, 0
    while True:
        words = list(_WORD.finditer(candidate))
        b = [m.group().lower() for m in words]
        found = None
        for j in range(j, len(b) - 2):
            if b[j + 1] != "of" or candidate[words[j].end():words[j + 1].start()].strip(' "'):
                continue
            k = j + 3 if b[j + 2] in _CALQUE_ARTICLES and j + 3 < len(b) else j + 2
            for n in (2, 1):
                if k + n > len(b):
                    continue
                seq = b[k:k + n] + [b[j]]
                for i in range(len(a) - n):
                    if a[i:i + n + 1] != seq:
                        continue
                    if any(seed[seed_words[x].end():seed_words[x + 1].start()].translate(_CALQUE_GAPS)
                           for x in range(i, i + n)):
                        continue  # "Alaska Anchorage, University": not one compound
                    before = (i == 0 and j == 0) or (i > 0 and j > 0 and a[i - 1] == b[j - 1])
                    after = (i + n + 1 == len(a) and k + n == len(b)) or \
                        (i + n + 1 < len(a) and k + n < len(b) and a[i + n + 1] == b[k + n])
                    if not (before or after) or (i == 0 and j > 0):
                        continue  # elsewhere in the sentence; or the seed's first word, whose case is the sentence's
                    found = (i, n, k)
                    break
                if found:
                    break
            if found:
                break
        if not found:
            return candidate, n_done
        i, n, k = found
        text = seed[seed_words[i].start():seed_words[i + n].end()]
        if j == 0 and text[:1].islower():
            text = text[0].upper() + text[1:]
        candidate = candidate[:words[j].start()] + text + candidate[words[k + n - 1].end():]
        n_done += 1
        j += 1


_CALQUE_GAPS = str.maketrans("", "", " \"'’-")


def restore_function_words(candidate: str, seed: str,
                           kinds: Sequence[str] = RESTORED_KINDS) -> Tuple[str, Dict[str, int]]:
    """The candidate with the function words it changed put back as its seed has them (see
    RESTORED_KINDS): a noun-of-noun calque of the seed's compound, in the seed's order; an article or "of" it inserted between two words its seed has side by side (or
    before the seed's first word, which then takes the seed's case); an agreement word, a word's number,
    a relative pronoun or a basic preposition it swapped, word for word, between words its seed has;
    and {kind: how many}. Without `number`, an agreement word stays when the candidate changed a word's
    number ("bodies ... are" -> "body ... is")."""
    counts = collections.Counter()
    if "noun_order" in kinds:
        candidate, n = _restore_noun_order(candidate, seed)
        if n:
            counts["noun_order"] = n
    if "punctuation" in kinds:
        candidate, n = _restore_punctuation(candidate, seed)
        if n:
            counts["punctuation"] = n
    seed_words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(seed)]
    a = [w.lower() for w, _, _ in seed_words]
    spans = [(m.start(), m.end()) for m in _WORD.finditer(candidate)]
    b = [candidate[i:j].lower() for i, j in spans]
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    number_kept = "number" not in kinds and any(
        op == "replace" and _plural_variant(x, y) for op, i1, i2, j1, j2 in opcodes for x in a[i1:i2] for y in b[j1:j2])
    cuts = []  # (start, end, replacement) of the candidate
    for op, i1, i2, j1, j2 in opcodes:
        if op == "insert" and j2 - j1 == 1 and j2 < len(b) and _INSERTED.get(b[j1]) in kinds:
            if i1 == 0 and j1 == 0 and a and a[0] == b[1] and not candidate[:spans[0][0]].strip() \
                    and not seed[:seed_words[0][1]].strip():
                # "The schools were" -> "Schools were": the seed's first word, in the seed's case
                cuts.append((spans[0][0], spans[1][1], seed_words[0][0]))
                counts[_INSERTED[b[j1]]] += 1
            elif 0 < i1 < len(a) and j1 > 0 and a[i1 - 1] == b[j1 - 1] and a[i1] == b[j2] \
                    and candidate[spans[j1 - 1][1]:spans[j1][0]].strip() == \
                    seed[seed_words[i1 - 1][2]:seed_words[i1][1]].strip() \
                    and not candidate[spans[j1][1]:spans[j2][0]].strip():
                cuts.append((spans[j1][0], spans[j2][0], ""))  # the word and the space after it
                counts[_INSERTED[b[j1]]] += 1
        elif op == "delete" and i2 - i1 == 1 and 0 < i1 and j1 > 0 and i2 < len(a) and j1 < len(b) \
                and a[i1 - 1] == b[j1 - 1] and a[i2] == b[j1] \
                and seed[seed_words[i1][2]:seed_words[i2][1]] == " " \
                and seed[seed_words[i1 - 1][2]:seed_words[i1][1]] == candidate[spans[j1 - 1][1]:spans[j1][0]] \
                and (_INSERTED.get(a[i1]) if a[i1] in ("the", "a", "an") else
                     "conjunction" if (a[i1], a[i2]) == ("such", "as") else None) in kinds:
            # "established a library" -> "established library", "such as phases" -> "as phases"
            kind = "conjunction" if a[i1] == "such" else "article"
            word = seed_words[i1][0]
            cuts.append((spans[j1][0], spans[j1][0], word + " "))
            counts[kind] += 1
        elif op == "replace" and a[i1:i2] == ["such", "as"] and b[j1:j2] == ["like"] and "conjunction" in kinds:
            text = seed[seed_words[i1][1]:seed_words[i1 + 1][2]]
            if candidate[spans[j1][0]].isupper():
                text = text[0].upper() + text[1:]
            cuts.append((spans[j1][0], spans[j1][1], text))
            counts["conjunction"] += 1  # "such as the sturgeon" -> "like the sturgeon"
        elif op == "replace" and i2 - i1 == j2 - j1 <= 3:
            # word for word, and only where every word of the stretch is such a swap: a preposition that
            # follows a changed content word belongs to it ("derived from" -> "derivative of")
            pairs = [(k, _swap_kind(a[i1 + k], b[j1 + k], number_kept)) for k in range(i2 - i1)]
            if any(kind is None for _, kind in pairs):
                continue
            for k, kind in pairs:
                if kind not in kinds:
                    continue
                word, (start, end) = seed_words[i1 + k][0], spans[j1 + k]
                if candidate[start].isupper() and not word[0].isupper():
                    word = word[0].upper() + word[1:]
                cuts.append((start, end, word))
                counts[kind] += 1
    for start, end, text in reversed(cuts):
        candidate = candidate[:start] + text + candidate[end:]
    return candidate, dict(counts)


def pronoun_inserted_reason(candidate: str, seed: str) -> Optional[str]:
    """"pronoun_inserted" when the candidate adds an "it" that its seed does not have at that place."""
    if _IT.search(candidate) and "it" in inserted_words(candidate, seed):
        return "pronoun_inserted"
    return None


# Negation: Apertium renders Romance "ningún" / "cap" / "ni ... ni" as "any" / "or ... or" ("No visas are
# needed" -> "Any visa is needed", "Neither X nor Y can be taken" -> "Or X or Y can be taken"): the
# blind reading of issue 34 found meaning reversed this way after every other check.
_NEGATION = re.compile(r"\b(?:no|not|never|neither|nor|none|nobody|nothing|nowhere|without|cannot)\b|n['’]t\b", re.I)


def negations(text: str) -> int:
    """How many negative words `text` has (no, not, n't, never, neither, nor, none, without, ...)."""
    return len(_NEGATION.findall(text))


def negation_changed_reason(candidate: str, seed: str) -> Optional[str]:
    """"negation_changed" when the candidate has fewer or more negative words than its seed."""
    if negations(candidate) != negations(seed):
        return "negation_changed"
    return None


# How much a back-translation may change: word bigrams (lower-cased word tokens) of the candidate that
# its seed does not have. Apertium's garble is a long run of changes; what a reader accepts is mostly
# a few words changed (project default, measured on the 176 blind-judged records of issue 34: among
# the after-check s2 records, 10 of 13 with at most 4 new bigrams read acceptable or with one slip,
# against 14 of 40 of all; docs/SIMSIM_QUALITY.md).
MAX_NEW_BIGRAMS = 4
_WORD = re.compile(r"\w+(?:['’]\w+)?")


def _bigrams(text: str) -> set:
    words = [w.lower() for w in _WORD.findall(text)]
    return set(zip(words, words[1:]))


def new_bigrams(candidate: str, seed: str) -> int:
    """How many word bigrams of the candidate (lower-cased word tokens) the seed does not have."""
    return len(_bigrams(candidate) - _bigrams(seed))


def too_many_changes_reason(candidate: str, seed: str, max_new_bigrams: int = MAX_NEW_BIGRAMS) -> Optional[str]:
    """"too_many_changes" when the candidate has more than `max_new_bigrams` word bigrams its seed
    lacks (a negative bound: no limit)."""
    if 0 <= max_new_bigrams < new_bigrams(candidate, seed):
        return "too_many_changes"
    return None


# quote_changed: words inside quotation marks are someone's words, a title, a term or a gloss ("from ager,
# "field""; "the "epoch of date""; Jay wrote that the taxes were "the price of liberty ..."): a rewrite keeps
# them word for word. On the judged s2 / s3 records of rounds 2-10b, 13 have a seed's quotation changed, 9
# read broken and 4 with one slip ("'engine' for 'motor' in quotation", "'period to date' for 'epoch of date'").
_QUOTATION = re.compile(r'"([^"\n]{1,300})"|“([^”\n]{1,300})”|\'\'\s*([^\'\n]{1,300}?)\s*\'\'')


def quotation_spans(text: str) -> List[Tuple[int, int]]:
    """Character spans of the quotations of `text` ("...", “...”, '' ... ''), their marks included."""
    return [(m.start(), m.end()) for m in _QUOTATION.finditer(text)]


def quote_changed_reason(candidate: str, seed: str) -> Optional[str]:
    """"quote_changed" when a quotation of the seed ("...", “...”, '' ... '') is not in the candidate word
    for word (case aside)."""
    if not _QUOTATION.search(seed):
        return None
    words = " " + " ".join(w.lower() for w in _WORD.findall(candidate)) + " "
    for m in _QUOTATION.finditer(seed):
        quoted = " ".join(w.lower() for w in _WORD.findall(next(g for g in m.groups() if g is not None)))
        if quoted and f" {quoted} " not in words:
            return "quote_changed"
    return None


CANDIDATE_CHECKS = {"apertium_mark": apertium_mark_reason, "entity_changed": entity_changed_reason,
                    "pronoun_changed": pronoun_changed_reason, "pronoun_inserted": pronoun_inserted_reason,
                    "broken_sequence": broken_sequence_reason,
                    "negation_changed": negation_changed_reason, "quote_changed": quote_changed_reason,
                    "too_many_changes": too_many_changes_reason}
CANDIDATE_REASONS = tuple(CANDIDATE_CHECKS)
# Every check by name, cheapest first: the cheap ones on each candidate, the word-sense check (WordNet,
# on each candidate; `sense_changed_reason`, issue 42), the meaning check (BERTScore against the seed,
# on each candidate the language model scored), pivot agreement (every change made by other pivots
# too, miners/simsim/agreement.py, issue 51), then the clause check (a parse) on the language model's
# choice.
CANDIDATE_CHECK_NAMES = CANDIDATE_REASONS + ("sense_changed", "meaning_drift", "pivot_unsupported", "no_clause",
                                             "pos_changed")

# meaning_drift: a back-translation whose BERTScore F1 against the text it was translated from (the
# alignment scorer of the job, MiniLM) is below this floor is no candidate. Project default, measured on
# the blind-judged s2 records of rounds 2-6 (docs/simsim_judged/, tools/simsim_judged.py --drift): a
# wrong-sense word or a garbled clause costs a few hundredths of F1 where a rewording that keeps the
# sense costs less; docs/SIMSIM_QUALITY.md (round 7) gives the table this floor was read from.
MIN_CANDIDATE_ALIGNMENT = 0.94


def candidate_reason(candidate: str, seed: str, checks: Sequence[str] = CANDIDATE_REASONS,
                     max_new_bigrams: int = MAX_NEW_BIGRAMS) -> Optional[str]:
    """The first of the cheap checks named in `checks` that a back-translation of `seed` fails, or None."""
    for name, check in CANDIDATE_CHECKS.items():
        if name in checks:
            reason = (check(candidate, seed, max_new_bigrams) if name == "too_many_changes"
                      else check(candidate, seed))
            if reason:
                return reason
    return None


# A clause: a finite verb (PTB VBD / VBZ / VBP / MD) and a subject (UD nsubj, nsubj:pass, csubj, expl).
FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
SUBJECT_RELATIONS = frozenset({"nsubj", "nsubj:pass", "nsubjpass", "csubj", "csubj:pass", "csubjpass", "expl"})


def is_clause(sentence: Sentence) -> bool:
    """Whether a parsed sentence has a finite verb and a subject."""
    toks = sentence.tokens
    return (any(t.xpos in FINITE_TAGS for t in toks)
            and any(t.deprel in SUBJECT_RELATIONS for t in toks))


# pos_changed (issue 51): a content word the back-translation replaced one for one must be able to stand in the
# seed word's part of speech (the parse of the seed; WordNet's parts of speech of the new word): "The Kindle 2
# features a display" -> "The Kindle 2 characteristics a display" (a verb replaced by a noun only). A new word
# WordNet does not know is not judged.
_UPOS_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


def pos_changed_words(seed_tokens: Sequence, candidate: str, wn) -> List[str]:
    """The candidate's words that replace a seed word one for one (difflib over lower-cased words) and that
    WordNet knows only in other parts of speech than the one the seed's parse gives the word it replaced
    (`seed_tokens`: the job's parser's tokens of the seed)."""
    a = [t.text.lower() for t in seed_tokens]
    b = [w.lower() for w in _WORD.findall(candidate)]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "replace" or i2 - i1 != j2 - j1:
            continue
        for i, j in zip(range(i1, i2), range(j1, j2)):
            pos = _UPOS_WORDNET.get(seed_tokens[i].upos)
            if pos is None or not a[i].isalpha() or not b[j].isalpha():
                continue
            known = [p for p in "nvar" if wn.morphy(b[j], p)]
            if known and pos not in known:
                out.append(b[j])
    return out
