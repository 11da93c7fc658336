"""WordNet 3.0 for SimSim's substitution step and its sense check: a small reader of the database
files of Debian's `wordnet-base` (/usr/share/wordnet: index.*, data.*, *.exc), no NLTK.

NLTK 3.9's WordNet reader refuses Debian's folder (it wants a `lexnames` file the package lacks),
so this module reads the files itself:

* `index.<pos>`: `lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offset...`; the
  offsets are in WordNet's sense order (the most frequent sense, by the tagged SemCor counts,
  first).
* `data.<pos>`: the synset at a byte offset: `offset lex_filenum ss_type w_cnt(hex) word lex_id
  ... p_cnt ptr_symbol offset pos source/target ... | gloss`; read with a seek, on demand.
* `<pos>.exc`: irregular inflections `inflected base...` (`bought buy`, `children child`).

    wn = WordNet.load()                      # None-safe: WordNetUnavailable names the package
    wn.synsets("buy", "v")[0].words          # ('buy', 'purchase')
    wn.morphy("bought", "v")                 # ['buy']
    inflect("purchase", "VBD", wn)           # 'purchased'

`synonym_candidates` is the substitution's choice of words: a WordNet synonym of a content word
that is more frequent (wordfreq's Zipf scale, by a margin) and of a safe sense, inflected to the
word's Penn Treebank tag; `related` is the sense check's relation (a synonym, hypernym or hyponym).
"""
import dataclasses
import os
import re
import threading
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

WORDNET_DIR = "/usr/share/wordnet"  # Debian package wordnet-base (tools/debian-packages.txt)
POS = ("n", "v", "a", "r")
_FILE_POS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# Penn Treebank tag -> WordNet part of speech.
TAG_POS = {"NN": "n", "NNS": "n", "VB": "v", "VBD": "v", "VBG": "v", "VBN": "v", "VBP": "v", "VBZ": "v",
           "JJ": "a", "RB": "r"}
# A synonym replaces a word only when it is this much more frequent on wordfreq's Zipf scale (log10 of
# occurrences per billion words; project default: half a step, about three times as frequent).
MIN_ZIPF_GAIN = 0.5
# WordNet's morphological detachment rules (morph(7WN)): suffix -> ending of the base.
_DETACH = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
          ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


class WordNetUnavailable(Exception):
    """No WordNet database: the message names the Debian package."""


@dataclasses.dataclass(frozen=True)
class Synset:
    offset: int
    pos: str
    words: Tuple[str, ...]  # lower-case lemmas, "_" between the words of a compound
    hypernyms: Tuple[Tuple[int, str], ...]  # (offset, pos) of @ and @i pointers
    hyponyms: Tuple[Tuple[int, str], ...]  # (offset, pos) of ~ and ~i pointers
    derived: Tuple[Tuple[int, str], ...] = ()  # (offset, pos) of + (derivation), \\ (pertainym), & (similar)


class WordNet:
    """Index in memory, synsets read from the data files on demand (and cached)."""

    def __init__(self, folder: str = WORDNET_DIR):
        self.folder = folder
        self._index: Dict[str, Dict[str, Tuple[int, ...]]] = {}
        self._exc: Dict[str, Dict[str, Tuple[str, ...]]] = {}
        self._inflections: Dict[str, Dict[str, Tuple[str, ...]]] = {}
        self._cache: Dict[Tuple[int, str], Synset] = {}
        self._files = {}
        self._lock = threading.Lock()
        for pos, name in _FILE_POS.items():
            index_path = os.path.join(folder, f"index.{name}")
            if not os.path.isfile(index_path):
                raise WordNetUnavailable(f"no WordNet database in {folder} (index.{name} missing): install the "
                                         f"Debian package wordnet-base (tools/debian-packages.txt)")
            table = {}
            with open(index_path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("  "):
                        continue  # the licence
                    parts = line.split()
                    n_ptr = int(parts[3])
                    n_senses = int(parts[4 + n_ptr])
                    table[parts[0]] = tuple(int(x) for x in parts[6 + n_ptr:6 + n_ptr + n_senses])
            self._index[pos] = table
            exc, inflections = {}, {}
            exc_path = os.path.join(folder, f"{name}.exc")
            if os.path.isfile(exc_path):
                with open(exc_path, encoding="utf-8", errors="replace") as f:
                    for line in f:
                        parts = line.split()
                        if len(parts) >= 2:
                            exc[parts[0]] = tuple(parts[1:])
                            for base in parts[1:]:
                                inflections.setdefault(base, ())
                                inflections[base] += (parts[0],)
            self._exc[pos], self._inflections[pos] = exc, inflections

    _LOADED: Dict[str, "WordNet"] = {}
    _LOAD_LOCK = threading.Lock()

    @classmethod
    def load(cls, folder: str = WORDNET_DIR) -> "WordNet":
        """One WordNet per folder and process (the index takes a second and ~100 MB)."""
        with cls._LOAD_LOCK:
            if folder not in cls._LOADED:
                cls._LOADED[folder] = cls(folder)
            return cls._LOADED[folder]

    # ------------------------------------------------------------------ lookups

    def offsets(self, lemma: str, pos: str) -> Tuple[int, ...]:
        return self._index[pos].get(lemma.lower().replace(" ", "_"), ())

    def synset(self, offset: int, pos: str) -> Synset:
        key = (offset, pos)
        if key in self._cache:
            return self._cache[key]
        with self._lock:
            f = self._files.get(pos)
            if f is None:
                f = self._files[pos] = open(os.path.join(self.folder, f"data.{_FILE_POS[pos]}"), "rb")
            f.seek(offset)
            line = f.readline().decode("utf-8", errors="replace")
        parts = line.split(" | ", 1)[0].split()
        n_words = int(parts[3], 16)
        words = tuple(parts[4 + 2 * i].lower() for i in range(n_words))
        words = tuple(re.sub(r"\([a-z]+\)$", "", w) for w in words)  # adjective markers: "(a)", "(p)"
        pos_ = 4 + 2 * n_words
        n_ptr = int(parts[pos_])
        hyper, hypo, derived = [], [], []
        for i in range(n_ptr):
            symbol, target, target_pos = parts[pos_ + 1 + 4 * i:pos_ + 4 + 4 * i]
            target_pos = "a" if target_pos == "s" else target_pos
            if symbol in ("@", "@i"):
                hyper.append((int(target), target_pos))
            elif symbol in ("~", "~i"):
                hypo.append((int(target), target_pos))
            elif symbol in ("+", "\\", "&"):
                derived.append((int(target), target_pos))
        synset = Synset(offset, pos, words, tuple(hyper), tuple(hypo), tuple(derived))
        self._cache[key] = synset
        return synset

    def synsets(self, lemma: str, pos: str) -> List[Synset]:
        """The lemma's synsets in sense order (most frequent first)."""
        return [self.synset(o, pos) for o in self.offsets(lemma, pos)]

    def morphy(self, word: str, pos: str) -> List[str]:
        """WordNet's base forms of `word` in `pos`: the exception list's, the word itself, and the
        detachment rules' (morph(7WN)), each only when WordNet has it."""
        word = word.lower()
        out = []
        for base in self._exc[pos].get(word, ()) + (word,):
            if base not in out and self.offsets(base, pos):
                out.append(base)
        for suffix, ending in _DETACH[pos]:
            if word.endswith(suffix) and len(word) > len(suffix):
                base = word[:-len(suffix)] + ending
                if base not in out and self.offsets(base, pos):
                    out.append(base)
        return out

    def irregular_forms(self, base: str, pos: str) -> Tuple[str, ...]:
        """The exception list's inflected forms of a base (`buy` -> ('bought',))."""
        return self._inflections[pos].get(base, ())

    def is_irregular(self, word: str, pos: str) -> bool:
        return word.lower() in self._exc[pos]

    # ------------------------------------------------------------------ relations

    def lemmas_of_related(self, lemma: str, pos: str) -> FrozenSet[str]:
        """Every lemma sharing a synset with `lemma` (any sense), or in a direct hypernym or
        hyponym synset of one of its synsets, or a derivation, pertainym or similar adjective of
        one ("agriculture" -> "agricultural": the same word in another part of speech)."""
        key = ("related", lemma, pos)
        if key in self._cache:
            return self._cache[key]
        out = set()
        for s in self.synsets(lemma, pos):
            out.update(s.words)
            for offset, p in s.hypernyms + s.hyponyms + s.derived:
                out.update(self.synset(offset, p).words)
        self._cache[key] = frozenset(out)
        return self._cache[key]


# --------------------------------------------------------------------------- inflection

_VOWELS = "aeiou"


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant (not w, x, y): doubling may or may not apply ("stop" ->
    "stopped", "visit" -> "visited"); the caller declines."""
    return (len(word) >= 3 and word[-1] not in _VOWELS + "wxy" and word[-2] in _VOWELS
            and word[-3] not in _VOWELS)


def _plural_s(base: str) -> str:
    if re.search(r"(?:s|x|z|ch|sh)$", base):
        return base + "es"
    if len(base) > 1 and base.endswith("y") and base[-2] not in _VOWELS:
        return base[:-1] + "ies"
    return base + "s"


def inflect(base: str, tag: str, wn: WordNet) -> Optional[str]:
    """`base` inflected to the Penn Treebank `tag`, or None when unsure: irregular forms come from
    the exception lists (a verb with two irregular forms has no single past for VBD / VBN: None),
    regular ones from simple English rules (a doubling consonant-vowel-consonant ending: None)."""
    if tag in ("NN", "VB", "VBP", "JJ", "RB"):
        return base
    if "_" in base or "-" in base:
        return None
    if tag == "NNS":
        irregular = [f for f in wn.irregular_forms(base, "n") if f != base]
        if irregular:
            return irregular[0] if len(irregular) == 1 else None
        if base.endswith(("s", "x", "z")) or base.endswith("man"):
            return None  # "bus"/"buses", "status", "woman"/"women": unsure
        return _plural_s(base)
    if tag in ("VBZ", "VBD", "VBN", "VBG"):
        irregular = wn.irregular_forms(base, "v")
        if base in ("be", "have", "do", "go"):
            return None
        if tag == "VBZ":
            return _plural_s(base)
        if tag == "VBG":
            if base.endswith("ie"):
                return base[:-2] + "ying"
            if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
                return base[:-1] + "ing"
            if _cvc(base):
                return None
            return base + "ing"
        # VBD / VBN
        past = [f for f in irregular if not f.endswith("ing") and not re.search(r"(?:s)$", f)]
        if past:
            return past[0] if len(set(past)) == 1 else None
        if base.endswith("e"):
            return base + "d"
        if len(base) > 1 and base.endswith("y") and base[-2] not in _VOWELS:
            return base[:-1] + "ied"
        if _cvc(base):
            return None
        return base + "ed"
    return None


# --------------------------------------------------------------------------- substitution candidates

def zipf(word: str) -> float:
    from wordfreq import zipf_frequency  # pylint: disable=import-outside-toplevel
    return zipf_frequency(word.replace("_", " "), "en")


# Never a replacement: light verbs and vague words, more frequent than almost any synonym, that
# WordNet lists in the first sense of many words ("commence" -> "get", "automobile" -> "machine",
# "approximately" -> "some") and that a reader finds vaguer, not simpler.
GENERIC_WORDS = frozenset("""be have do get make take go come give put set run keep let seem thing things
stuff way machine some any well like one ones""".split())


@dataclasses.dataclass(frozen=True)
class Choice:
    """A content word's substitution decision: `reason` is "" with the replacements to try (best
    first, inflected), else why the word keeps its place."""
    reason: str
    replacements: Tuple[str, ...] = ()


def synonym_candidates(word: str, lemma: str, tag: str, wn: WordNet, min_gain: float = MIN_ZIPF_GAIN,
                       any_sense: bool = False, known_words: Optional[FrozenSet[str]] = None) -> Choice:
    """The more frequent WordNet synonyms of `word` (its `lemma`, Penn Treebank `tag`), inflected.

    A synonym is taken only from a safe sense: the lemma has one synset in its part of speech, or
    the synonym is in its most frequent synset (the first in index order); `any_sense=True` (the
    substitution metric, which reads a pair already made) takes every synset. Reasons:
    `no_synonym` (no WordNet entry, or no single-word lemma besides its own), `ambiguous_sense`
    (synonyms only in its other senses), `not_more_frequent` (none is `min_gain` Zipf more
    frequent than the lemma), `inflection_unknown` (none can be inflected to the tag with
    certainty, or the inflected form is no English word of `known_words`)."""
    pos = TAG_POS.get(tag)
    if pos is None:
        return Choice("inflection_unknown")
    lemma = lemma.lower()
    if tag == "NNS" and word.lower() != lemma and wn.offsets(word, "n"):
        return Choice("ambiguous_sense")  # a plural that is a noun of its own: "optics" is no plural of "optic"
    if not wn.offsets(lemma, pos):
        bases = wn.morphy(word, pos)
        if not bases:
            return Choice("no_synonym")
        lemma = bases[0]
    synsets = wn.synsets(lemma, pos)

    def others(sets):
        return {w for s in sets for w in s.words if w != lemma and "_" not in w and "-" not in w
                and w.isalpha() and w not in GENERIC_WORDS}

    every = others(synsets)
    if not every:
        return Choice("no_synonym")
    safe = every if any_sense or len(synsets) == 1 else others(synsets[:1])
    if not safe:
        return Choice("ambiguous_sense")
    base_zipf = zipf(lemma)
    frequent = sorted((w for w in safe if zipf(w) >= base_zipf + min_gain), key=lambda w: (-zipf(w), w))
    if not frequent:
        return Choice("not_more_frequent")
    out = []
    for w in frequent:
        form = inflect(w, tag, wn)
        if form is None or (known_words is not None and form not in known_words):
            continue
        out.append(form)
    if not out:
        return Choice("inflection_unknown")
    return Choice("", tuple(out))


# --------------------------------------------------------------------------- the substitution metric

@dataclasses.dataclass(frozen=True)
class SynonymRule:
    phrase: Tuple[str, ...]
    paraphrase: Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SynonymCandidate:
    start: int
    end: int
    rule: SynonymRule


class SynonymRules:
    """The rules of miners.simsim.metrics.substitution without PPDB: `word -> synonym` for every
    content word of the complex side (Penn tag NN/NNS/VB*/JJ/RB) and each more frequent WordNet
    synonym of it (any sense: the pair is already made), inflected to the word's tag. Duck-typed
    like `miners.simsim.ppdb.PPDBRules.candidates`."""

    counts: Dict[str, int] = {}

    def __init__(self, wn: Optional[WordNet] = None, min_gain: float = MIN_ZIPF_GAIN):
        self.wn = wn or WordNet.load()
        self.min_gain = min_gain
        self._memo: Dict[Tuple[str, str], Tuple[str, ...]] = {}

    def __len__(self):
        return len(self._memo)

    def candidates(self, tokens: Sequence[str], tags: Optional[Sequence[str]] = None) -> List[SynonymCandidate]:
        out = []
        if tags is None:
            return out
        for i, (token, tag) in enumerate(zip(tokens, tags)):
            pos = TAG_POS.get(tag)
            if pos is None or not token.isalpha():
                continue
            word = token.lower()
            key = (word, tag)
            if key not in self._memo:
                bases = self.wn.morphy(word, pos)
                choice = synonym_candidates(word, bases[0] if bases else word, tag, self.wn, self.min_gain,
                                            any_sense=True)
                self._memo[key] = choice.replacements
            for repl in self._memo[key]:
                out.append(SynonymCandidate(i, i + 1, SynonymRule((word,), (repl.lower(),))))
        return out


# same_sense: how many of a word's senses (WordNet lists them most frequent first) count as its usual ones.
USUAL_SENSES = 2


UPOS_TO_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


def same_sense(word: str, other: str, wn: WordNet, usual: int = USUAL_SENSES, pos: str = "") -> bool:
    """Whether `other` is a synonym of `word` in one of `word`'s `usual` most frequent senses, in `pos` (a
    WordNet part of speech, n / v / a / r) or, without it, in some part of speech (their base forms by
    morphy share that synset): "assistance" -> "help", not "cola" -> "glue"."""
    for pos in ((pos,) if pos else ("n", "v", "a", "r")):
        bases = wn.morphy(word.lower(), pos)
        others = wn.morphy(other.lower(), pos)
        if not bases or not others:
            continue
        theirs = {o for b in others for o in wn.offsets(b, pos)}
        if any(o in theirs for b in bases for o in wn.offsets(b, pos)[:usual]):
            return True
    return False


def inflection_class(word: str, wn: WordNet) -> str:
    """A word's ending as a class: "ing", "ed" (a regular or irregular past: WordNet's exception lists),
    "s" (a plural or a third person), "er" / "est" (a comparative or superlative adjective), or "": a
    replacement must keep it ("hoisted" -> "lift", "positions" -> "place" and "easier" -> "easy" change
    the verb's tense, the noun's number, the comparison)."""
    w = word.lower()
    if w.endswith("ing") and len(w) > 4:
        return "ing"
    if w.endswith("ed") or (wn.is_irregular(w, "v") and w not in wn.morphy(w, "v")):
        return "ed"
    if w.endswith("s") and not w.endswith("ss") and any(w not in wn.morphy(w, p) and wn.morphy(w, p)
                                                        for p in ("n", "v")):
        return "s"
    for ending in ("est", "er"):  # "easier" -> "easy" loses the comparison
        if w.endswith(ending) and wn.morphy(w, "a") and w not in wn.morphy(w, "a"):
            return ending
    return ""


# rare_sense: a replacement WordNet relates to the word only through a sense of this rank or later (0 is the
# most frequent) is the word's rare sense, whatever the pivots agree on (issue 51's held-out reading:
# "greatest" -> "biggest", great's 6th adjective sense; "views" -> "sights", view's 3rd noun sense;
# "supporting" -> "backing", support's 3rd verb sense). Project default, set on the tuning text.
RARE_SENSE_RANK = 2


def shared_sense_rank(word: str, other: str, wn: WordNet) -> Optional[int]:
    """The rank (0: the most frequent) of `word`'s first sense that `other` also has, over the parts of
    speech both have (the lowest of them); None when they share no synset."""
    best = None
    for pos in POS:
        bases, others = wn.morphy(word.lower(), pos), wn.morphy(other.lower(), pos)
        if not bases or not others:
            continue
        theirs = {o for b in others for o in wn.offsets(b, pos)}
        for b in bases:
            for rank, o in enumerate(wn.offsets(b, pos)):
                if o in theirs:
                    best = rank if best is None else min(best, rank)
                    break
    return best


def rare_sense(word: str, other: str, wn: WordNet, rank: int = RARE_SENSE_RANK) -> bool:
    """Whether `other` is a synonym of `word` only in one of its rare senses (`shared_sense_rank` at least
    `rank`). A pair WordNet does not relate at all is not judged here ("notion" / "idea")."""
    found = shared_sense_rank(word, other, wn)
    return found is not None and found >= rank
