"""Is a candidate pair of sentences a paraphrase? One calibrated decision (no Beam here).

ParaSCI (Dong, Wan and Cao, EACL 2021) keeps pairs whose BERT sentence cosine
reaches 0.931 (§3.1) and filters them by BERTScore and the length rate (§4.2).
With the bundled MiniLM, cosine alone cannot tell a restatement from another
sentence on the same topic of the same paper: a paper has ~1,000 cross-section
pairs and ~1% of them pass any useful cosine threshold, dozens per paper, while
ParaSCI-ACL holds 0.8 pairs per paper (33,981 pairs from 44,481 papers,
abstract and Table 1) and ParaSCI-arXiv 1.6.

The decision here combines what tells a restatement apart (features below) in a
logistic regression whose coefficients and threshold live in a committed JSON
file (`miners/parasci/resources/decision.json`), fitted by
`tools/fit_parasci_decision.py` from committed data: positives are a held-out
split of the released ParaSCI-ACL validation pairs (lower-cased and tokenised
as released: every feature is computed on lower-cased word tokens, so the
release's spacing does not matter), negatives the cross-section pairs of the
real papers of ../shared/data/scientific. The threshold is chosen on the unit a
user sees, pairs per paper. The model file names the features it uses (a subset
of `FEATURES`); the committed one uses cosine, word-bigram Dice, length ratio,
numbers that disagree and `stem_unmatched` (the content the side adding less adds).
An extracted partial pair must reach `partial_threshold`, higher than a whole
pair's: the extractor keeps the best of many parts, so its scores read high.

Before the model, three rules reject what is never a paraphrase whatever its
score (each a snake_case reason):

  near_verbatim            the same words (case, punctuation and spacing aside), or
                           a word-level similarity of at least NEAR_VERBATIM_RATIO (the
                           abstract sentence repeated in the conclusion);
  number_only_difference   the same words once numbers are removed ("improved by
                           2.1%" / "by 3.4%");
  near_copy                the shorter sentence is copied into the longer one (its word
                           tokens found there in order, NEAR_COPY_COVERAGE of them) and the
                           two differ by at most NEAR_COPY_STEMS content-word stems,
                           connectives aside ("X." / "We also provide evidence that X.";
                           "Furthermore, ..." / "Moreover, ... (25 kDa) ..."), or it is found
                           there almost whole (NEAR_COPY_CONTAINED of its tokens) whatever
                           the longer one adds, or the two share one verbatim run of half the
                           shorter sentence and NEAR_COPY_RUN tokens or more ("There is an
                           increasing need to X" / "Recent studies have indicated the need to
                           X [CITATION]");
  negation_mismatch        one sentence is negated and the other is not ("... explains the
                           inhibitory fields" / "... cannot be explained only by ...");
  conditional_mismatch     one sentence is a prediction or a conditional ("would") and the
                           other is not: a hypothesis and its finding ("The size of the local
                           flock would be influenced by ..." / "... were influenced by ...");
  boilerplate              either sentence is funding, licence, ethics, data-availability
                           or competing-interest text (`boilerplate_reason`, also applied
                           to single sentences before any search).

After the model, `clause_reason` (on a spaCy parse, run by the Beam stages) rejects a side that
is no stand-alone statement: `not_a_clause` (a whole sentence without a verb: a heading, a title;
an extracted part without a finite verb at its root: a fragment),
`forward_reference` (it announces what follows: "... is restricted to the following form",
"... as follows:"), and for an extracted part, `fragment` (it opens as a dependent clause: a
participle, "to", a wh-word or a subordinating conjunction: "suggesting that ...").
"""
import dataclasses
import difflib
import json
import math
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from schemas.papers import CITATION_PLACEHOLDER
from schemas.base import quantize_score

#: The committed model (features, coefficients, threshold and the figures of its fit).
DEFAULT_MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resources", "decision.json")
#: Word-level difflib ratio from which two sentences are one sentence repeated (project default:
#: 0.9 = at most one word in ten changed).
NEAR_VERBATIM_RATIO = 0.9
#: `near_copy`: share of the shorter sentence's word tokens found in order in the longer one, and the
#: most content-word stems the two may differ by (project defaults, chosen on the 84 pairs two
#: independent readers judged in docs/PARASCI.md: every pair they catch there was judged not a
#: paraphrase). It counts stems missing on either side, so a one-word swap in a copied sentence is a
#: copy too ("a new model" / "a novel approach"): 4.2% of the released ParaSCI-ACL validation pairs
#: (117 of 2,753) are rejected as such, light edits the release keeps and readers judged "not".
NEAR_COPY_COVERAGE = 0.7
NEAR_COPY_STEMS = 4
#: `near_copy` also when the shorter sentence is found in the longer one almost whole, in order, whatever
#: the longer one adds (NEAR_COPY_CONTAINED of its tokens), or when the two share one verbatim run of at
#: least NEAR_COPY_RUN tokens that is at least NEAR_COPY_RUN_SHARE of the shorter sentence: the same
#: sentence behind a lead-in ("There is an increasing need to X" / "Recent studies have indicated the need
#: to X [CITATION]") or with a clause added. Blind readers judged 21 of the 27 such pairs among 349 pairs
#: of real papers "not" ("near-verbatim copy with a lead-in added"); 4.6% of the released ParaSCI-ACL
#: validation pairs are such copies, most of them `near_copy` before (docs/PARASCI.md, "Fourth round").
NEAR_COPY_CONTAINED = 0.85
NEAR_COPY_RUN = 8
NEAR_COPY_RUN_SHARE = 0.5
#: Words that negate a statement ("n't" is the token "t" after a word ending in "n": "can't", "don't").
NEGATIONS = frozenset("not no never none cannot neither nor nothing nobody unable".split())
#: A prediction or a conditional ("The size of the local flock would be influenced by ...").
_CONDITIONAL_RE = re.compile(r"\bwould\b", re.I)
#: A sentence about the text itself, not the science ("In the next section, we ...").
_ROADMAP_RE = re.compile(
    r"^(?:in|over) (?:the )?(?:next|following|remaining|subsequent|this) (?:section|chapter|part|paragraph)s?\b(?! of\b)"
    r"|^in the following\b|^(?:the )?(?:rest|remainder) of (?:this|the) (?:paper|article)\b|^sections? \d"
    r"|^we (?:now )?(?:discuss|describe|present) (?:in )?(?:this (?:section|chapter)|the following\b)"
    r"|\b(?:is|are) (?:introduced|described|presented|discussed|given|detailed) in sections? \d"
    # a pointer anywhere in the sentence: "Then, in Sec. III, we turn to ...", "In Section 4 we compare ...",
    # "... in the rest of this paper" (issue 32: such sentences paired with results)
    r"|\bin (?:sec(?:tion)?s?\.?|§+|chapter|appendix) ?(?:[\dIVX]+[\w.]*),? we\b"
    r"|\b(?:the )?(?:rest|remainder) of (?:this|the) (?:paper|article|work|manuscript)\b"
    r"|^(?:then|next|finally|first|lastly|thereafter),? in (?:the )?(?:next|following|last|final|subsequent) "
    r"(?:section|chapter)s?,? we\b", re.I)
#: Sentence connectives: a copy that only swaps them ("Furthermore" / "Moreover") is still a copy.
CONNECTIVES = frozenset("""furthermore moreover additionally here finally therefore hence however indeed
importantly interestingly notably together taken overall conversely similarly likewise instead""".split())

_TOKEN_RE = re.compile(r"[^\W_]+")
_NUMBER_RE = re.compile(r"^\d+(?:\.\d+)?$|^\d")
_PLACEHOLDER_RE = re.compile(re.escape(CITATION_PLACEHOLDER))
# English function words (closed classes) and the words every scientific sentence uses: they say
# nothing about what a sentence states.
STOPWORDS = frozenset("""a about above after again against all also although am among an and any are as at
be because been before being below between both but by can could did do does doing down during each either
et al etc few for from further had has have having he her here hers herself him himself his how however i if
in into is it its itself just may me might more most must my myself no nor not now of off on once only or other
our ours ourselves out over own same she should so some such than that the their theirs them themselves then
there these they this those through thus to too under until up upon very via was we were what when where
whereas which while who whom whose why will with within without would yet you your yours i.e e.g eg ie
one two three paper study work we our us show shows shown use used using based also well""".split())

FEATURES = ("cosine", "content_jaccard", "content_containment", "bigram_dice", "length_ratio", "numbers_disagree",
            "stem_unmatched")
#: Letters a content word is cut to for `stem_unmatched`: a crude prefix stemmer, so "trained" /
#: "training" / "train" and "embeddings" / "embedding" are one word (a restatement changes a word's form).
STEM_PREFIX = 5


def tokens(text: str) -> List[str]:
    """Lower-cased word tokens (letters and digits), citation placeholders left out."""
    return _TOKEN_RE.findall(_PLACEHOLDER_RE.sub(" ", text).lower())


def _is_number(tok: str) -> bool:
    return bool(_NUMBER_RE.match(tok))


def content_words(toks: Sequence[str]) -> set:
    return {t for t in toks if t not in STOPWORDS and not _is_number(t) and len(t) > 1}


def numbers(toks: Sequence[str]) -> set:
    return {t for t in toks if _is_number(t)}


_NOT_A_NEGATION_RE = re.compile(r"\bnot only\b|\bor not\b|\bif not all\b", re.I)
_CONTRACTED_NOT_RE = re.compile(r"n\s?['\u2019]\s?t\b", re.I)


def is_negated(toks: Sequence[str], text: Optional[str] = None) -> bool:
    """Whether a sentence holds a negation: a word of `NEGATIONS` among its tokens, or "n't" (with the
    text: only where it is written with an apostrophe, "don't", "do n't"; without it, the token "t"
    after a word ending in "n"). With the text, "not only", "or not" and "if not all" are no negation."""
    if text is not None:
        cleaned = _NOT_A_NEGATION_RE.sub(" ", text)
        return bool(_CONTRACTED_NOT_RE.search(cleaned)) or any(t in NEGATIONS for t in tokens(cleaned))
    return any(t in NEGATIONS or (t == "t" and i and toks[i - 1].endswith("n")) for i, t in enumerate(toks))


def copy_coverage(ta: Sequence[str], tb: Sequence[str]) -> float:
    """Share of the shorter token list found, in order, in the longer one (difflib matching blocks)."""
    short, long_ = (ta, tb) if len(ta) <= len(tb) else (tb, ta)
    if not short:
        return 0.0
    m = difflib.SequenceMatcher(None, short, long_, autojunk=False)
    return sum(block.size for block in m.get_matching_blocks()) / len(short)


def stem_difference(ta: Sequence[str], tb: Sequence[str]) -> int:
    """How many content-word stems (connectives aside) one sentence has that the other lacks, both ways."""
    sa = {w[:STEM_PREFIX] for w in content_words(ta) if w not in CONNECTIVES}
    sb = {w[:STEM_PREFIX] for w in content_words(tb) if w not in CONNECTIVES}
    return len(sa ^ sb)


def features(a: str, b: str, cosine: float) -> Dict[str, float]:
    """The decision's features of a pair (symmetric in a and b)."""
    ta, tb = tokens(a), tokens(b)
    ca, cb = content_words(ta), content_words(tb)
    inter = len(ca & cb)
    union = len(ca | cb)
    ba, bb = set(zip(ta, ta[1:])), set(zip(tb, tb[1:]))
    na, nb = numbers(ta), numbers(tb)
    sa, sb = {w[:STEM_PREFIX] for w in ca}, {w[:STEM_PREFIX] for w in cb}
    return {
        "cosine": float(cosine),
        "content_jaccard": inter / union if union else 0.0,
        "content_containment": inter / min(len(ca), len(cb)) if ca and cb else 0.0,
        "bigram_dice": 2 * len(ba & bb) / (len(ba) + len(bb)) if ba and bb else 0.0,
        "length_ratio": min(len(ta), len(tb)) / max(len(ta), len(tb)) if ta and tb else 0.0,
        "numbers_disagree": 1.0 if na and nb and na != nb else 0.0,
        # What the side with less new content says that the other does not: content-word stems of one
        # sentence missing from the other, the smaller of the two counts, in tens. A restatement
        # leaves few (one sentence says no more than the other, or both say little more); a
        # sentence on the same topic adds its own statement.
        "stem_unmatched": min(len(sa - sb), len(sb - sa)) / 10.0,
    }


# --------------------------------------------------------------------------- rules

_BOILERPLATE_RE = re.compile(
    r"\b(?:funded by|funding|grant(?:s|ed)? (?:no|number|from)|supported (?:in part )?by (?:the |a |an )?"
    r"(?:grant|national|nsf|nih|european|foundation|fund|ministry|research council|project)\b"
    r"|this (?:article|work|paper) is (?:distributed|licensed|published) under|creative commons|"
    r"open access article|permits unrestricted use|competing interests?|conflicts? of interests?(?! between)|"
    r"declare(?:s)? (?:that )?(?:they have |there (?:is|are) )?no (?:competing|conflict)|"
    r"acknowledg(?:e|ment|ments)\b|we (?:would like to )?thank|are grateful to|"
    r"data (?:are|is) available|available (?:from|upon|on) (?:the )?(?:corresponding author|request)|"
    r"ethics committee|institutional review board|informed consent|copyright|all rights reserved|"
    r"the funders had no role)", re.I)


def roadmap_reason(text: str) -> Optional[str]:
    """'roadmap' when a sentence announces the text's own organisation ("In the next section, we
    describe ...", "In the following, we discuss ..."): no statement to paraphrase."""
    return "roadmap" if _ROADMAP_RE.search(text.strip()) else None


def boilerplate_reason(text: str) -> Optional[str]:
    """'boilerplate' when a sentence is funding, licence, ethics or acknowledgement text, else None."""
    return "boilerplate" if _BOILERPLATE_RE.search(text) else None


def rule_reason(a: str, b: str) -> Optional[str]:
    """Why a pair is not a paraphrase whatever its scores (see the module docstring), or None."""
    ta, tb = tokens(a), tokens(b)
    if ta == tb:
        return "near_verbatim"
    wa = [t for t in ta if not _is_number(t)]
    wb = [t for t in tb if not _is_number(t)]
    if wa == wb:
        return "number_only_difference"
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    if matcher.ratio() >= NEAR_VERBATIM_RATIO:
        return "near_verbatim"
    coverage = copy_coverage(ta, tb)
    if coverage >= NEAR_COPY_CONTAINED or (coverage >= NEAR_COPY_COVERAGE
                                           and stem_difference(ta, tb) <= NEAR_COPY_STEMS):
        return "near_copy"
    run = matcher.find_longest_match(0, len(ta), 0, len(tb)).size  # the longest verbatim run of both
    if run >= NEAR_COPY_RUN and run >= NEAR_COPY_RUN_SHARE * min(len(ta), len(tb)):
        return "near_copy"
    if is_negated(ta, a) != is_negated(tb, b):
        return "negation_mismatch"
    if bool(_CONDITIONAL_RE.search(a)) != bool(_CONDITIONAL_RE.search(b)):
        return "conditional_mismatch"
    if boilerplate_reason(a) or boilerplate_reason(b):
        return "boilerplate"
    return None


#: Penn Treebank tags of a finite verb or a modal.
FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
#: First-word tags of a part that opens as a dependent clause (participle, "to", wh-word).
FRAGMENT_START_TAGS = frozenset({"VBG", "VBN", "TO", "WDT", "WP", "WP$", "WRB"})
_FORWARD_RE = re.compile(
    r"(?:\bas follows|\bthe following(?:\s+(?:\w+\s+)?(?:forms?|equations?|expressions?|steps?|ways?|manner|"
    r"definitions?|formula|formulas|rules?|properties|conditions?|algorithm|procedure|cases?|questions?))?|:)\W*$",
    re.I)


def clause_reason(doc, part: bool = False) -> Optional[str]:
    """Why a parsed sentence (a spaCy `Doc`: tokens with `tag_`, `pos_`, `dep_`) is no stand-alone
    statement, or None.

    `forward_reference`: it announces what follows ("... as follows:", "... the following form"; not
    "on the following day"). `not_a_clause`: for a whole sentence, no verb at
    all (a heading: "Index Terms-Distributional robustness, Markov decision processes, ..."); for an
    extracted part (`part`), no finite verb at its root (nor a finite auxiliary of the root, nor a
    root verb that is no participle): "in order to identify ...", "during the evolution of ...", "as
    well as plant volatiles which convey ..." (the finite verb is in a relative clause). The small tagger reads some verbs after a
    noun-heavy subject as plural nouns ("BMP signaling patterns the DV axis", "LDHs packs with"), so
    whole sentences are held only to the weaker test; a part so misread is lost. `fragment`: a part
    that opens as a dependent clause (a participle, "to", a wh-word, a subordinating conjunction:
    "suggesting that ...", "Although ...").
    """
    words = [t for t in doc if not (t.is_punct or t.is_space)]
    if not words:
        return "not_a_clause"
    if _FORWARD_RE.search(_PLACEHOLDER_RE.sub(" ", doc.text).rstrip()):
        return "forward_reference"
    if not part:
        return None if any(t.pos_ in ("VERB", "AUX") for t in words) else "not_a_clause"
    roots = [t for t in words if t.dep_ == "ROOT"]
    if not any(t.tag_ in FINITE_TAGS or (t.pos_ in ("VERB", "AUX") and t.tag_ not in ("VBG", "VBN"))
               or any(c.dep_ in ("aux", "auxpass") and c.tag_ in FINITE_TAGS for c in t.children) for t in roots):
        return "not_a_clause"
    if words[0].tag_ in FRAGMENT_START_TAGS or words[0].dep_ == "mark":
        return "fragment"
    return None


# --------------------------------------------------------------------------- the model

@dataclasses.dataclass(frozen=True)
class Decision:
    """A logistic regression over `FEATURES`: P(paraphrase) = sigmoid(intercept + sum w_i x_i)."""
    weights: Tuple[float, ...]
    intercept: float
    threshold: float  # minimum probability of a kept pair
    feature_names: Tuple[str, ...] = FEATURES
    min_cosine: float = 0.5  # the candidate search's floor (the model was fitted above it)
    # Minimum probability of an extracted partial pair (never below `threshold`): the extractor keeps
    # the part of the long sentence most similar to the short one among many, so the part's scores
    # are the best of many tries and read higher than a whole pair's (see docs/PARASCI.md).
    partial_threshold: float = 0.0

    def probability(self, feats: Dict[str, float]) -> float:
        z = self.intercept + sum(w * feats[name] for w, name in zip(self.weights, self.feature_names))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def decide(self, a: str, b: str, cosine: float, partial: bool = False) -> Tuple[float, Optional[str]]:
        """(probability, None) for a paraphrase, (probability, reason) otherwise. `partial`: b is a
        part extracted from a longer sentence, held to `partial_threshold`."""
        reason = rule_reason(a, b)
        if reason:
            return 0.0, reason
        cosine = quantize_score(cosine)
        if cosine < self.min_cosine:
            return 0.0, "below_similarity"
        p = quantize_score(self.probability(features(a, b, cosine)))
        bar = max(self.threshold, self.partial_threshold) if partial else self.threshold
        return p, (None if p >= bar else "not_paraphrase")

    @classmethod
    def load(cls, path: str = "") -> "Decision":
        with open(path or DEFAULT_MODEL, encoding="utf-8") as f:
            d = json.load(f)
        names = tuple(d["features"])
        unknown = set(names) - set(FEATURES)
        if unknown:
            raise ValueError(f"{path or DEFAULT_MODEL}: unknown features {sorted(unknown)}")
        return cls(weights=tuple(float(d["coefficients"][n]) for n in names), intercept=float(d["intercept"]),
                   threshold=float(d["threshold"]), feature_names=names, min_cosine=float(d["min_cosine"]),
                   partial_threshold=float(d.get("partial_threshold", 0.0)))

    def with_threshold(self, threshold: float) -> "Decision":
        return dataclasses.replace(self, threshold=threshold)


def fit_logistic(x, y, l2: float = 1.0, iterations: int = 50, sample_weight=None):
    """(weights, intercept) of an L2-regularised logistic regression by Newton's method (numpy only,
    deterministic). x: (n, d) features, y: (n,) 0/1 labels; the intercept is not regularised."""
    import numpy as np
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    reg = np.full(xb.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -50, 50)))
        grad = xb.T @ (sw * (p - y)) + reg * w
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w[:-1], float(w[-1])
