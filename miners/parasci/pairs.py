"""ParaSCI: scientific paraphrases found inside papers and across papers (no Beam here).

Dong, Wan and Cao, "ParaSCI: A Large Scientific Paraphrase Dataset for Longer
Paraphrase Generation" (EACL 2021), §3 and §4.2. Four candidate sources:

  intra_paper    two sentences of the same paper, from *different* sections among
                 abstract, introduction, background, discussion, preamble and
                 conclusion (§3.1: authors restate their contribution), whose
                 sentence embeddings are close;
  partial        one sentence much longer than the other: the part of the long
                 one that paraphrases the short one (§3.2; miners/parasci/partial.py);
  definition     definition sentences of the same term ("X is defined as ..."),
                 across papers of one field (§3.3);
  same_citation  sentences of different papers citing the same paper (§3.4).

Candidates are found by blocked nearest-neighbour search inside each group
(miners/parasci/neighbors.py), never by forming all pairs. They are then filtered
(§4.2) by BERTScore and the paraphrase length rate (PLR).

Decisions the paper leaves open, and ours:
  * PLR. The formula did not survive in our copy of the paper; its thresholds
    (PLR < 1.0, and < 2.0 for definitions) fit `|la - lb| / min(la, lb)` in words:
    PLR < 1 means the longer sentence is less than twice the shorter. 96.9% of
    the released ParaSCI-ACL validation pairs have PLR < 1 and 99.85% < 2 under
    this definition (tools/calibrate_parasci.py).
  * Thresholds are tied to models. The paper's 0.931 (cosine of its BERT
    embeddings) and BERTScore 0.7 / 0.6 (SciBERT) do not transfer to the
    default MiniLM-L6 encoder, whose scores are lower; the MiniLM defaults below
    were calibrated on the ParaSCI-ACL validation split (tools/calibrate_parasci.py,
    figures in docs/PARASCI.md). With `--bertscore_model` the paper's values apply.
  * Citation markers are replaced by one placeholder, `[CITATION]`, per citation
    group (schemas.papers.CITATION_PLACEHOLDER), in the mined text and in the
    output: removing them would leave "as shown by ." where a citation was a
    grammatical argument.
  * A pair and its reverse are one pair: `src` is the sentence that comes first in
    (paper id, sentence index) order.
"""
import dataclasses
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from miners.parasci import abbreviations
from miners.parasci import decision as parasci_decision
from schemas.papers import CITATION_PLACEHOLDER, Paper, PaperSentence
from schemas.records import SciParaphraseExample
from schemas.release import citation_as_word

DATASET = "sci_para"
METHODS = ("intra_paper", "partial", "definition", "same_citation")
#: The methods a job runs unless `--methods` says otherwise: not `partial`. Blind readers accepted 16-22%
#: of the extracted partial pairs the job wrote on 40 held-out real papers before issue 16's third round
#: and 20-30% after it, against 59-64% of the whole in-paper pairs (docs/PARASCI.md, "Third round").
DEFAULT_METHODS = ("intra_paper", "definition", "same_citation")

# §3.1: the sections whose sentences are compared inside one paper.
INTRA_SECTIONS = ("abstract", "introduction", "background", "discussion", "preamble", "conclusion")
#: An in-paper pair needs one sentence in a section that summarises the paper: two body sections
#: (introduction and discussion, say) mostly hold two statements on one topic, not one statement twice
#: (of 30 such pairs two independent readers judged 12-14 acceptable, against 38 of the other 54:
#: docs/PARASCI.md).
SUMMARY_SECTIONS = ("abstract", "conclusion")
#: The methods whose two sentences come from one paper: their pairs count against the paper's cap.
IN_PAPER_METHODS = ("intra_paper", "partial")
#: In-paper pairs written per paper (`--max_pairs_per_paper`; 0: no cap, the default), the best by
#: BERTScore F1 (`paper_rank`). ParaSCI's own yield is 0.8 (ACL) and 1.6 (arXiv) pairs per paper, all
#: methods; the cap is for a user who wants at most N pairs from any paper. It is no precision lever: on
#: judged real papers a paper's best pair was acceptable about as often as its others (docs/PARASCI.md,
#: "Fourth round"), and held-out pairs planted in a paper lose to the paper's own pairs.
DEFAULT_MAX_PAIRS_PER_PAPER = 0
#: BERTScore F1 (MiniLM) from which a pair is a copy with a few words changed, not a paraphrase
#: (`--max_bertscore`, reason `bertscore_too_high`): off by default (1.0). The band [0.75, 0.9)
#: (`--min_bertscore 0.75 --max_bertscore 0.9`) halves the pairs per paper; on 68 held-out papers blind
#: readers accepted 22-25 of 30 of its pairs against 20-21 of 30 of the default's, and it finds 0.125 /
#: 0.225 of the planted release pairs against 0.55 / 0.625 (docs/PARASCI.md, "Fourth round").
MAX_BERTSCORE_OFF = 1.0
BAND_MIN_BERTSCORE = 0.75
BAND_MAX_BERTSCORE = 0.9

# §4.2 filters, as published (SciBERT BERTScore; PLR as defined above).
PAPER_MIN_BERTSCORE = 0.7
PAPER_MIN_BERTSCORE_DEFINITION = 0.6
MAX_LENGTH_RATE = 1.0
MAX_LENGTH_RATE_DEFINITION = 2.0
# §3.1 with the paper's BERT sentence embeddings.
PAPER_MIN_SIMILARITY = 0.931

# Defaults for the bundled MiniLM-L6 (all-MiniLM-L6-v2), calibrated on the ParaSCI-ACL validation
# split against random re-pairings and against cross-section pairs of real papers
# (tools/calibrate_parasci.py; figures in docs/PARASCI.md).
MINILM_MIN_SIMILARITY = 0.75
# The candidate search's cosine floor with the bundled MiniLM: below it no pair is asked to the
# decision (miners/parasci/decision.py, fitted above this floor).
MINILM_SEARCH_FLOOR = 0.5
# Partial candidates are searched from a higher floor (the old 0.75 - 0.15): each one costs an
# encoder call per run of clauses of its long sentence, and below 0.6 few extractions pass.
MINILM_PARTIAL_FLOOR = 0.6
MINILM_MIN_BERTSCORE = 0.5
MINILM_MIN_BERTSCORE_DEFINITION = 0.45

# A pair whose length rate reaches this is a partial-paraphrase candidate (§3.2): the PLR filter
# would drop it as a whole, so the part of the long sentence that matches the short one is sought.
PARTIAL_MIN_LENGTH_RATE = MAX_LENGTH_RATE
# A long sentence's embedding is diluted by its extra clauses: partial candidates are searched
# with a lower cosine floor than whole pairs (project default), the extracted part must then
# pass the full threshold.
PARTIAL_SIMILARITY_MARGIN = 0.15

# Sentence filters (project defaults; ParaSCI-ACL pairs average 19.1 words, Table 2).
MIN_WORDS = 6
MAX_WORDS = 80
MIN_LETTER_RATIO = 0.6  # letters / non-space characters: drops equations, tables, reference lists
# A paper with more sentences than this is not one paper (a data dump, a paragraph repeated by a
# broken converter): rejected `too_many_sentences` before any is embedded, so that every accepted
# paper is mined in bounded time. The largest of the 29 real papers of ../shared/data/scientific
# (JATS, eLife, S2ORC, GROBID TEI) has 513 sentences; its longest paragraph 10,841 characters.
MAX_PAPER_SENTENCES = 5000

Inc = Callable[..., None]


def _noop(_name, _n=1):
    pass


# --------------------------------------------------------------------------- sentences

_PLACEHOLDER_RE = re.compile(re.escape(CITATION_PLACEHOLDER))
_WORD_RE = re.compile(r"\w+(?:[-']\w+)*")


def words(text: str) -> List[str]:
    """Words of a sentence, citation placeholders left out."""
    return _WORD_RE.findall(_PLACEHOLDER_RE.sub(" ", text))


def paper_sentences(paper: Paper, split: Callable[[str], List[str]]) -> List[PaperSentence]:
    """Every sentence of a paper, in order, with the keys of the papers it cites and, for a
    definition, the term it defines (an abbreviation the paper expands keyed by its long form).

    Args:
      paper: a read paper (placeholders in its paragraphs, `cite_slots` naming their keys).
      split: the sentence segmenter for one paragraph (`miners.text.segmenter.split_sentences`).
    """
    out = []
    abbrs = paper_abbreviations(paper)
    for para in paper.paragraphs:
        keys_by_slot: Dict[int, List[str]] = {}
        for key, slot in zip(para.cite_keys, para.cite_slots):
            if key:
                keys_by_slot.setdefault(slot, []).append(key)
        slot = 0
        for text in split(para.text):
            n = len(_PLACEHOLDER_RE.findall(text))
            keys = []
            for s in range(slot, slot + n):
                for key in keys_by_slot.get(s, ()):
                    if key not in keys:
                        keys.append(key)
            slot += n
            out.append(PaperSentence(paper_id=paper.id, index=len(out), section=para.section, text=text,
                                     cite_keys=tuple(keys), field=paper.field, path=paper.path,
                                     term=definition_term(text, abbrs)))
    return out


def sentence_reason(text: str, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS,
                    min_letter_ratio: float = MIN_LETTER_RATIO) -> Optional[str]:
    """Why a sentence cannot be part of a pair (snake_case), or None."""
    n = len(words(text))
    if n < min_words:
        return "too_short"
    if n > max_words:
        return "too_long"
    stripped = _PLACEHOLDER_RE.sub("", text)
    chars = [c for c in stripped if not c.isspace()]
    if not chars or sum(c.isalpha() for c in chars) / len(chars) < min_letter_ratio:
        return "low_letter_ratio"
    if citation_as_word(text):
        return "citation_as_word"
    return parasci_decision.boilerplate_reason(text) or parasci_decision.roadmap_reason(text)


# --------------------------------------------------------------------------- definitions (§3.3)

_TERM = r"(?P<term>[A-Za-z][\w\-/' ]{1,80}?)"
_ABBR = r"(?:\s*\(\s*(?P<abbr>[A-Za-z][\w\-]{0,14})\s*\))?"
_DEFINED = r"(?:is|are|has been|have been|can be|is often|is usually|is commonly) defined as"
# Each pattern names the term; they are tried in order on the sentence start or after "we define".
DEFINITION_PATTERNS = tuple(re.compile(p) for p in (
    r"^(?:the |a |an )?" + _TERM + _ABBR + r",? (?:is|are) (?:the|a|an) (?:task|problem|process) (?:of|to)\b",
    r"^(?:the |a |an )?" + _TERM + _ABBR + r",? " + _DEFINED + r"\b",
    r"^(?:the |a |an )?" + _TERM + _ABBR + r",? refers? to\b",
    r"(?:^|\b)[Ww]e define (?:the |a |an )?" + _TERM + _ABBR + r" (?:as|to be)\b",
    r"^(?:the |a |an )?" + _TERM + r"\s*\(\s*(?P<abbr2>[A-Za-z][\w\-]{0,14})\s*\),? (?:is|are) (?:a|an|the)\b",
    # Term last (the paper's example: "... is known as word sense disambiguation (wsd)").
    r"\b(?:is|are) (?:also |commonly |often |usually )?(?:known as|referred to as|called|termed) "
    r"(?:the |a |an )?" + _TERM + _ABBR + r"\s*(?:\[CITATION\]\s*)?[.;]?\s*$",
    r"(?:^|\b)[Ww]e (?:call|term|refer to) (?:this|these|it|them|such \w+)(?: \w+)? (?:as )?"
    r"(?:the |a |an )?" + _TERM + _ABBR + r"\s*(?:\[CITATION\]\s*)?[.;]?\s*$",
    # Apposition: "X, a N that / which ...".
    r"^(?:the |a |an )?" + _TERM + _ABBR + r", (?:a|an) [a-z][\w\-]* (?:[a-z][\w\-]* )?(?:that|which)\b",
))
# A "term" that is really a pronoun or a generic word is not a definition.
_NOT_TERMS = frozenset("""it this that these those which what there here they we our one another each
such former latter approach method model task problem work paper goal result main contribution contributions
aim purpose objective focus idea key first second last next""".split())
# A term is a noun phrase: one of these words in it means the pattern caught a clause instead.
_NOT_IN_TERMS = frozenset("""can may might will would should could must is are was were be been being also
sometimes often usually then thus hence here now however which that""".split())
_ARTICLES = re.compile(r"^(?:the|a|an)\s+")


def normalise_term(term: str) -> str:
    """'The Named-Entity Recognition' -> 'named entity recognition' (case, articles, punctuation)."""
    t = term.lower().strip()
    t = re.sub(r"\s*\([^)]*\)\s*$", "", t)  # a trailing abbreviation in parentheses
    t = _ARTICLES.sub("", t)
    t = re.sub(r"[\-/_]", " ", t)
    t = re.sub(r"[^\w ]", "", t)
    return " ".join(t.split())


@dataclasses.dataclass(frozen=True)
class Definition:
    term: str  # normalised
    abbreviation: str = ""


def find_definition(text: str, max_term_words: int = 6) -> Optional[Definition]:
    """The term a definition sentence defines, or None."""
    for pattern in DEFINITION_PATTERNS:
        m = pattern.search(text)
        if not m:
            continue
        term = normalise_term(m.group("term"))
        if not term or len(term.split()) > max_term_words or term in _NOT_TERMS \
                or term.split()[0] in _NOT_TERMS or _NOT_IN_TERMS.intersection(term.split()) \
                or CITATION_PLACEHOLDER.lower().strip("[]") in term:
            continue
        abbr = (m.groupdict().get("abbr") or m.groupdict().get("abbr2") or "").strip()
        return Definition(term=term, abbreviation=abbr)
    return None


def paper_abbreviations(paper: Paper) -> Dict[str, str]:
    """{short form key: normalised long form} of the abbreviations a paper defines ("named entity
    recognition (NER)"; `miners.parasci.abbreviations`)."""
    return abbreviations.paper_abbreviations((p.text for p in paper.paragraphs), normalise=normalise_term)


def definition_term(text: str, abbreviations_of_paper: Optional[Dict[str, str]] = None) -> str:
    """The normalised term a definition sentence defines, "" when it is none. A term that is an
    abbreviation the paper expands is replaced by its long form, so "NER is defined as ..." and
    "named entity recognition is the task of ..." define one term."""
    d = find_definition(text)
    if d is None:
        return ""
    long_form = (abbreviations_of_paper or {}).get(abbreviations.normalise_short(d.term))
    if long_form and " " not in d.term:
        return long_form
    return d.term


def definition_group(field: str, term: str) -> str:
    """The group key of a definition: field and normalised term (§3.3 groups by both)."""
    return f"{(field or '').strip().lower()}|{term}"


# --------------------------------------------------------------------------- pair scoring

def length_rate(a: str, b: str) -> float:
    """Paraphrase length rate |la - lb| / min(la, lb) in words (see the module docstring)."""
    la, lb = len(words(a)), len(words(b))
    if min(la, lb) == 0:
        return float("inf")
    return abs(la - lb) / min(la, lb)


def normalise_text(text: str) -> str:
    """Case and whitespace folded, for 'is this the same sentence' checks."""
    return " ".join(text.lower().split())


def _default_decision():
    return parasci_decision.Decision.load()


@dataclasses.dataclass(frozen=True)
class Thresholds:
    """Every threshold of the miner (defaults: MiniLM-calibrated; `paper()` for the published ones).

    `similarity` is the cosine floor of the candidate search and of a partial extraction; whether a
    candidate above it is a paraphrase is the `decision`'s call (miners/parasci/decision.py).
    """
    similarity: float = MINILM_SEARCH_FLOOR
    partial_similarity: float = MINILM_PARTIAL_FLOOR
    min_bertscore: float = MINILM_MIN_BERTSCORE
    min_bertscore_definition: float = MINILM_MIN_BERTSCORE_DEFINITION
    max_bertscore: float = MAX_BERTSCORE_OFF  # a pair at or above it is a copy (`bertscore_too_high`)
    max_length_rate: float = MAX_LENGTH_RATE
    max_length_rate_definition: float = MAX_LENGTH_RATE_DEFINITION
    partial_min_length_rate: float = PARTIAL_MIN_LENGTH_RATE
    decision: parasci_decision.Decision = dataclasses.field(default_factory=_default_decision)

    @classmethod
    def paper(cls) -> "Thresholds":
        """ParaSCI's published values (BERT cosine 0.931; SciBERT BERTScore 0.7 / 0.6)."""
        return cls(similarity=PAPER_MIN_SIMILARITY,
                   partial_similarity=PAPER_MIN_SIMILARITY - PARTIAL_SIMILARITY_MARGIN,
                   min_bertscore=PAPER_MIN_BERTSCORE, min_bertscore_definition=PAPER_MIN_BERTSCORE_DEFINITION)

    def search_floor(self) -> float:
        """The cosine floor of the candidate search (whole pairs and partial candidates)."""
        return min(self.similarity, self.partial_similarity)

    def bertscore_floor(self, method: str) -> float:
        return self.min_bertscore_definition if method == "definition" else self.min_bertscore

    def length_rate_ceiling(self, method: str) -> float:
        return self.max_length_rate_definition if method == "definition" else self.max_length_rate


@dataclasses.dataclass(frozen=True)
class Candidate:
    """Two sentences a finder paired (before partial extraction and filters)."""
    method: str
    a: PaperSentence
    b: PaperSentence
    similarity: float
    group: str = ""


def order_pair(a: PaperSentence, b: PaperSentence) -> Tuple[PaperSentence, PaperSentence]:
    """A pair and its reverse are one pair: the first in (paper id, sentence index) order is src."""
    return (a, b) if (a.paper_id, a.index) <= (b.paper_id, b.index) else (b, a)


def classify(c: Candidate, t: Thresholds) -> Tuple[str, Optional[str]]:
    """What to do with a candidate: ("pair", None), ("partial", None), or ("drop", reason)."""
    action, reason, _ = decide_candidate(c, t)
    return action, reason


def decide_candidate(c: Candidate, t: Thresholds) -> Tuple[str, Optional[str], float]:
    """`classify` with the decision's probability of a whole pair (0.0 when not asked).

    A whole pair must pass the decision (rules, then the fitted model: `parasci_decision`); a pair
    whose length rate reaches the partial bound goes to extraction, and the extracted part must pass
    the same decision (transforms.parasci.ExtractPartialFn).
    """
    if normalise_text(c.a.text) == normalise_text(c.b.text):
        return "drop", "identical_sentences", 0.0
    if c.method == "intra_paper" and c.a.section not in SUMMARY_SECTIONS and c.b.section not in SUMMARY_SECTIONS:
        return "drop", "no_summary_section", 0.0
    rate = length_rate(c.a.text, c.b.text)
    if rate < t.length_rate_ceiling(c.method):
        if c.similarity < t.similarity:
            return "drop", "below_similarity", 0.0
        p, reason = t.decision.decide(c.a.text, c.b.text, c.similarity)
        return ("pair", None, p) if reason is None else ("drop", reason, p)
    if rate >= t.partial_min_length_rate and c.similarity >= t.partial_similarity and c.method != "definition":
        return "partial", None, 0.0
    if c.similarity < t.similarity:
        return "drop", "below_similarity", 0.0
    return "drop", "length_rate_too_high", 0.0


def make_example(c: Candidate, method: Optional[str] = None, texts: Optional[Tuple[str, str]] = None,
                 similarity: Optional[float] = None, probability: float = 0.0) -> SciParaphraseExample:
    """The output record of a candidate (texts replaced for a partial extraction)."""
    first, second = order_pair(c.a, c.b)
    src, tgt = (first.text, second.text)
    if texts is not None:  # partial: texts are (short sentence, extracted part) in a/b order
        by_sentence = {(c.a.paper_id, c.a.index): texts[0], (c.b.paper_id, c.b.index): texts[1]}
        src, tgt = by_sentence[(first.paper_id, first.index)], by_sentence[(second.paper_id, second.index)]
    return SciParaphraseExample(
        src=src, tgt=tgt, method=method or c.method, paper_id=first.paper_id, other_paper_id=second.paper_id,
        section=first.section, other_section=second.section, field=first.field, group=c.group,
        source=first.path, similarity=c.similarity if similarity is None else similarity,
        length_rate=length_rate(src, tgt), paraphrase_probability=probability)


def sentence_ids(r: SciParaphraseExample) -> Tuple[str, str]:
    """The two sentences of a record, as (paper id, normalised text) keys."""
    return f"{r.paper_id}|{normalise_text(r.src)}", f"{r.other_paper_id}|{normalise_text(r.tgt)}"


def pair_rank(r: SciParaphraseExample):
    """Order of the pairs a sentence takes part in, best first when sorted: the decision's
    probability, then BERTScore, then the texts (deterministic)."""
    return (-r.paraphrase_probability, -r.bertscore, r.paper_id, r.src, r.other_paper_id, r.tgt)


def paper_rank(r: SciParaphraseExample):
    """Order of a paper's in-paper pairs for its cap, best first when sorted: BERTScore F1, then the
    decision's probability, then the texts (deterministic). On the judged pairs of 40 held-out papers
    (docs/parasci_judged/round3.jsonl) a paper's best pair by BERTScore was acceptable to 77% of the
    readers' votes, its best by probability to 74% (docs/PARASCI.md, fourth round)."""
    return (-round(r.bertscore, 6), -r.paraphrase_probability, r.src, r.tgt, r.section, r.other_section)


def cap_per_paper(records: Iterable[SciParaphraseExample], n: int) -> Tuple[List[SciParaphraseExample],
                                                                            List[SciParaphraseExample]]:
    """(kept, dropped): of one paper's in-paper pairs (`IN_PAPER_METHODS`), the `n` best by `paper_rank`
    (n <= 0: all); pairs of other methods are kept. In-memory form of the Beam stage
    transforms.parasci.CapPerPaper (every record here is one paper's when used from there)."""
    records = list(records)
    if n <= 0:
        return records, []
    by_paper: Dict[str, List[SciParaphraseExample]] = {}
    kept, dropped = [], []
    for r in records:
        if r.method in IN_PAPER_METHODS:
            by_paper.setdefault(r.paper_id, []).append(r)
        else:
            kept.append(r)
    for rs in by_paper.values():
        rs.sort(key=paper_rank)
        kept += rs[:n]
        dropped += rs[n:]
    return kept, dropped


def best_pairs(records: Iterable[SciParaphraseExample]) -> Tuple[List[SciParaphraseExample],
                                                                  List[SciParaphraseExample]]:
    """(kept, dropped): a pair is kept when it is the best pair (`pair_rank`) of both its sentences,
    so a sentence restated three times yields one pair, not three (in-memory form of the Beam stage
    transforms.parasci.KeepBestPairs, for tests and tools)."""
    records = list(records)
    best: Dict[str, SciParaphraseExample] = {}
    for r in records:
        for sid in sentence_ids(r):
            if sid not in best or pair_rank(r) < pair_rank(best[sid]):
                best[sid] = r
    kept, dropped = [], []
    for r in records:
        (kept if all(best[sid] is r for sid in sentence_ids(r)) else dropped).append(r)
    return kept, dropped


def filter_reason(record: SciParaphraseExample, t: Thresholds) -> Optional[str]:
    """§4.2: BERTScore above the floor and PLR below the ceiling of the record's method; and, when a
    ceiling is set (`max_bertscore` < 1), BERTScore below it (a copy with a few words changed)."""
    if record.bertscore <= t.bertscore_floor(record.method):
        return "bertscore_too_low"
    if t.max_bertscore < MAX_BERTSCORE_OFF and record.bertscore >= t.max_bertscore:
        return "bertscore_too_high"
    if record.length_rate >= t.length_rate_ceiling(record.method):
        return "length_rate_too_high"
    return None


def stand_alone_reasons(nlp, records: Sequence[SciParaphraseExample]) -> List[Optional[str]]:
    """For each record, why one of its two sentences is no stand-alone statement
    (`parasci_decision.clause_reason` on a spaCy parse by `nlp`: `not_a_clause`, `forward_reference`),
    or None. One `nlp.pipe` call for the batch."""
    docs = list(nlp.pipe([t for r in records for t in (r.src, r.tgt)], batch_size=256))
    return [parasci_decision.clause_reason(docs[2 * i]) or parasci_decision.clause_reason(docs[2 * i + 1])
            for i in range(len(records))]


# --------------------------------------------------------------------------- BERTScore layer

def bertscore_layer_for(model_dir: str) -> Optional[int]:
    """The layer bert-score uses for a model it knows, matched on the directory's name (a local copy
    of `allenai/scibert_scivocab_uncased` -> 8, bert-score's table), or None (then the last layer).
    ParaSCI's BERTScore thresholds (§4.2) belong to the scorer's default layer, not the last."""
    import os
    from bert_score.utils import model2layers
    name = os.path.basename(os.path.normpath(model_dir or "")).lower().replace("-", "_")
    for model, layer in sorted(model2layers.items()):
        if model.split("/")[-1].lower().replace("-", "_") == name:
            return int(layer)
    return None


# --------------------------------------------------------------------------- Table 2 statistics

_BLEU = []  # one sacrebleu BLEU object per process (its tokenizer is built once)


def bleu_statistics(hypothesis: str, reference: str) -> List[float]:
    """sacrebleu's sufficient statistics of one pair, summable over a corpus:
    [hypothesis length, reference length, matches of 1-4-grams, totals of 1-4-grams]."""
    if not _BLEU:
        from sacrebleu.metrics import BLEU
        _BLEU.append(BLEU())
    score = _BLEU[0].corpus_score([hypothesis], [[reference]])
    return [float(score.sys_len), float(score.ref_len)] + [float(x) for x in score.counts] + \
        [float(x) for x in score.totals]


def corpus_bleu_from_statistics(stats: Sequence[float]) -> float:
    """Corpus BLEU-4 (0-100) from summed `bleu_statistics`."""
    from sacrebleu.metrics import BLEU
    sys_len, ref_len = stats[0], stats[1]
    if sys_len == 0:
        return 0.0
    return float(BLEU.compute_bleu(correct=[int(x) for x in stats[2:6]], total=[int(x) for x in stats[6:10]],
                                   sys_len=int(sys_len),
                                   ref_len=int(ref_len)).score)


def table2(records: Iterable[SciParaphraseExample]) -> dict:
    """ParaSCI Table 2 figures of a set of pairs: count, average words and characters per sentence,
    Self-BLEU (corpus BLEU-4 of tgt against src), and the count per method."""
    n, n_words, n_chars = 0, 0, 0
    stats = [0.0] * 10
    per_method: Dict[str, int] = {}
    for r in records:
        n += 1
        n_words += len(r.src.split()) + len(r.tgt.split())
        n_chars += len(r.src) + len(r.tgt)
        stats = [x + y for x, y in zip(stats, bleu_statistics(r.tgt, r.src))]
        per_method[r.method] = per_method.get(r.method, 0) + 1
    return summarise_table2(n, n_words, n_chars, stats, per_method)


def summarise_table2(n, n_words, n_chars, stats, per_method) -> dict:
    return {"pairs": n, "avg_words": round(n_words / (2 * n), 2) if n else 0.0,
            "avg_chars": round(n_chars / (2 * n), 2) if n else 0.0,
            "self_bleu": round(corpus_bleu_from_statistics(stats), 2) if n else 0.0,
            "per_method": dict(sorted(per_method.items()))}


def read_release_pairs(data_dir: str) -> List[Tuple[str, str]]:
    """(src, tgt) of a ParaSCI release folder's val.src / val.tgt (line-aligned), blank lines left out."""
    import pathlib
    data_dir = pathlib.Path(data_dir)
    with open(data_dir / "val.src", encoding="utf-8") as f:
        src = [line.strip() for line in f]
    with open(data_dir / "val.tgt", encoding="utf-8") as f:
        tgt = [line.strip() for line in f]
    if len(src) != len(tgt):
        raise ValueError(f"{data_dir}: val.src has {len(src)} lines, val.tgt {len(tgt)}")
    return [(a, b) for a, b in zip(src, tgt) if a and b]
