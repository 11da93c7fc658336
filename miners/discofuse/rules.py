"""DiscoFuse: un-fuse sentences with dependency rules (Geva et al., NAACL 2019).

Each candidate is one sentence or two consecutive sentences of a paragraph.
A rule of the paper's Table 14 / Appendix A.1 rewrites it as two independent
sentences (the "incoherent" input); the original text is the fusion target
(the "coherent" output). Rules read UD v2 annotation
(miners.nlp.annotation), so every backend shares them.

    examples, drops = mine_document(annotated_doc, inc=counter.update)

Rules (first match wins for a single sentence; pair rules per consecutive pair):
  SINGLE_CATAPHORA, SINGLE_CONN_START, SINGLE_RELATIVE, SINGLE_APPOSITION,
  SINGLE_CONN_INNER(_ANAPHORA), SINGLE_S_COORD(_ANAPHORA), SINGLE_VP_COORD;
  PAIR_CONN_ANAPHORA, PAIR_CONN, PAIR_ANAPHORA, and PAIR_NONE controls.
Text is space-tokenized as in the release.

The structural rules (VP_COORD, RELATIVE, APPOSITION, CATAPHORA) decline where a split would
change the meaning (shared complements, "or", scope words, unsure antecedents, lists, dangling
participles, a subject no determiner can repeat): they answer Unclean(reason), counted as
`filtered:<reason>` and written to rejects. A noun phrase repeated in the new sentence is the head
phrase only (no focus adverb or connective), and an indefinite or counting determiner becomes
"the" / "these" (`_repeated_np`).
docs/DISCOFUSE_QUALITY.md judges the output by the paper's criteria (§4.1).
"""
import dataclasses
import typing

from miners.discofuse import coref as coref_lib
from miners.nlp.annotation import AnnotatedDocument, Sentence
from schemas.records import DiscourseType as DT
from schemas.records import TEMPLATE_HOLE, FusionExample

# Filters of the paper (§3 "we discard examples with sentences of 6 tokens or fewer",
# and non-ASCII examples); both are options.
MIN_SENTENCE_TOKENS = 7
# Sentences longer than this are not parsed (parser time is super-linear; such
# "sentences" are nearly always lists or markup left-overs).
MAX_SENTENCE_TOKENS = 120
# Connectives are searched within the first 5 tokens of the second sentence (Table 14, PAIR_CONN).
PAIR_CONN_WINDOW = 5
# S_COORD: cc and conj within 5 tokens with a subject between (Table 14).
COORD_WINDOW = 5

# C_b: backward connectives that open the second sentence of a pair (after Appendix A.1).
BACKWARD_CONNECTIVES = tuple(sorted({
    "however", "therefore", "thus", "hence", "consequently", "as a result", "moreover",
    "furthermore", "in addition", "additionally", "nevertheless", "nonetheless", "meanwhile",
    "instead", "otherwise", "similarly", "likewise", "in contrast", "by contrast",
    "on the other hand", "for example", "for instance", "in fact", "indeed", "afterwards",
    "later", "subsequently", "eventually", "finally", "still", "then", "accordingly",
    "at the same time", "in particular", "as such", "also", "besides", "conversely",
    "in turn", "thereafter", "previously", "in the meantime", "instead of this",
}, key=lambda c: (-len(c.split()), c)))
# C_f: forward connectives opening a single sentence, their clause closed by a comma.
FORWARD_CONNECTIVES = tuple(sorted({
    "although", "though", "even though", "since", "because", "while", "whereas",
    "in addition to", "aside from", "apart from",
}, key=lambda c: (-len(c.split()), c)))
# C_s: inner connectives that open the second clause of a single sentence.
INNER_CONNECTIVES = tuple(sorted({
    "because", "although", "though", "even though", "while", "whereas", "unless", "now that",
    "so that", "meaning", "in order that", "even if", "as long as", "except that",
}, key=lambda c: (-len(c.split()), c)))
COORDINATORS = ("and", "but", "or", "yet", "so", "nor")
# A first half must not end in a coordinator left behind by the split ("..., and .").
DANGLING_COORDINATORS = ("and", "but", "or", "nor", "yet", "so")
THIRD_PERSON = frozenset(coref_lib.PRONOUNS)
FINAL_PUNCT = (".", "!", "?")
_CLAUSE_SUBJ = ("nsubj", "nsubj:pass", "csubj", "expl")


@dataclasses.dataclass(frozen=True)
class Options:
    min_tokens: int = MIN_SENTENCE_TOKENS  # 0 disables the length filter
    ascii_only: bool = True
    pair_none: bool = True


@dataclasses.dataclass(frozen=True)
class Unclean:
    """A rule's trigger is present but the sentence cannot be split cleanly: `reason` is counted."""
    reason: str


@dataclasses.dataclass
class _Match:
    type: DT
    first: list  # items: int (token index of the sentence) or str (literal)
    second: list
    connective: str = ""
    second_sentence: int = 0  # for anaphora: which sentence `second` indexes (pairs)


# --------------------------------------------------------------------------
# Lexical pre-check: can any rule fire? (decides what gets parsed)
# --------------------------------------------------------------------------

def _starts_with(words_lower, phrase_words, at=0):
    return words_lower[at:at + len(phrase_words)] == phrase_words


def _find_phrase(words_lower, phrases, start=0, stop=None):
    stop = len(words_lower) if stop is None else stop
    for i in range(start, stop):
        for p in phrases:
            pw = p.split()
            if _starts_with(words_lower, pw, i):
                return i, p
    return None


def single_may_match(words: typing.Sequence[str]) -> bool:
    """False only when no single-sentence rule can fire: no comma, coordinator or inner connective."""
    low = [w.lower() for w in words]
    if "," in low or any(w in COORDINATORS for w in low):
        return True
    return _find_phrase(low, INNER_CONNECTIVES) is not None


def pair_may_match(second_words: typing.Sequence[str]) -> bool:
    """False only when no pair rule can fire: no backward connective up front and no 3rd-person pronoun."""
    low = [w.lower() for w in second_words]
    if any(w in THIRD_PERSON for w in low):
        return True
    return backward_connective(low) is not None


def backward_connective(low: typing.Sequence[str]):
    """(start, end, connective) of a C_b connective in the first 5 tokens, comma-delimited."""
    for i in range(0, min(PAIR_CONN_WINDOW, len(low))):
        for p in BACKWARD_CONNECTIVES:
            pw = p.split()
            if not _starts_with(list(low), pw, i):
                continue
            end = i + len(pw)
            if end >= len(low) or low[end] != ",":
                continue
            if i > 0 and low[i - 1] != ",":
                continue
            return i, end, p
    return None


# --------------------------------------------------------------------------
# Tree helpers
# --------------------------------------------------------------------------

def _is_predicate(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    return t.upos in ("VERB", "AUX") or any(sent.tokens[c].deprel == "cop" for c in sent.children(i))


def _subject(sent: Sentence, v: int):
    for c in sent.children(v):
        if sent.tokens[c].deprel in _CLAUSE_SUBJ:
            return c
    return None


def _final_punct(sent: Sentence) -> int:
    """Length without the sentence-final punctuation."""
    n = len(sent.tokens)
    return n - 1 if n and sent.tokens[-1].text in FINAL_PUNCT else n


def _constituent_head(sent: Sentence, lo: int, hi: int):
    """The single token of [lo, hi) whose head lies outside, or None."""
    ext = [i for i in range(lo, hi) if not lo <= sent.tokens[i].head < hi]
    return ext[0] if len(ext) == 1 else None


def _is_clause(sent: Sentence, lo: int, hi: int) -> bool:
    """[lo, hi) is a constituent headed by a predicate with its own subject inside."""
    if hi - lo < 2:
        return False
    h = _constituent_head(sent, lo, hi)
    if h is None or not _is_predicate(sent, h):
        return False
    s = _subject(sent, h)
    return s is not None and lo <= s < hi


def _subject_span(sent: Sentence, s: int):
    span = sent.subtree(s)
    lo, hi = span[0], span[-1] + 1
    if len(span) != hi - lo or any(sent.tokens[k].text in (",", "(", ")") for k in span):
        if any(sent.tokens[c].deprel in ("conj", "appos") for c in sent.children(s)):
            return None  # "Giant salamanders ..., as well as X frogs": the core is only part of it
        core = coref_lib.np_span(sent, s)
        return core
    return lo, hi


def _strip_commas(items, sent, coordinators=False):
    """Drop punctuation at both ends; with `coordinators`, also a dangling "and"/"but"/"or" at the end."""
    trail = (",", ";", ":", "--", "-") + (DANGLING_COORDINATORS if coordinators else ())
    while items and isinstance(items[-1], int) and sent.tokens[items[-1]].text.lower() in trail:
        items.pop()
    while items and isinstance(items[0], int) and sent.tokens[items[0]].text in (",", ";", ":"):
        items.pop(0)
    return items


def _end(sent: Sentence):
    return [len(sent.tokens) - 1] if sent.tokens[-1].text in FINAL_PUNCT else ["."]


def _plural(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    if t.xpos == "NNPS" and not any(sent.tokens[c].deprel == "det" for c in sent.children(i)):
        # a bare name ending in -s is tagged NNPS ("Thanatos", "Anders"); plural names take
        # "the" ("the Games", "the United States")
        return any(sent.tokens[c].deprel == "conj" for c in sent.children(i))
    return t.xpos in ("NNS", "NNPS") or t.text.lower() in ("they", "we", "you") or \
        any(sent.tokens[c].deprel == "conj" for c in sent.children(i))


def _subject_number(sent: Sentence, verb: int, subj: int) -> bool:
    """True/False if the subject of `verb` is plural/singular by the verb's present-tense agreement, else None."""
    finite = [verb] + [c for c in sent.children(verb) if sent.tokens[c].deprel.startswith("aux")]
    tags = {sent.tokens[x].xpos for x in finite}
    if "VBZ" in tags:
        return False
    if "VBP" in tags and sent.tokens[subj].text.lower() not in ("i", "you"):
        return True
    return None  # not marked (past tense, or a tag without tense): leave the verb alone


def _tense_tag(sent: Sentence, verb: int, plural: bool) -> str:
    """PTB tag for a carried-over finite verb: past if the governing verb is past, else present."""
    t = sent.tokens[verb]
    tags = [t.xpos] + [sent.tokens[c].xpos for c in sent.children(verb) if sent.tokens[c].deprel.startswith("aux")]
    if any(x == "VBD" for x in tags) or t.xpos == "VBN" and not any(x in ("VBZ", "VBP") for x in tags):
        return "VBD"
    if any(x in ("VBZ", "VBP") for x in tags):
        return "VBP" if plural else "VBZ"
    return "VBD"


def inflect(lemma: str, tag: str, plural: bool = False) -> str:
    """Inflect with lemminflect (the maintained inflection library); be agrees in number."""
    from lemminflect import getInflection
    forms = getInflection(lemma, tag=tag)
    if not forms:
        return lemma
    if lemma == "be":
        if tag == "VBD":
            return "were" if plural else "was"
        if tag in ("VBZ", "VBP"):
            return "are" if plural else "is"
    return forms[0]


# --------------------------------------------------------------------------
# Single-sentence rules
# --------------------------------------------------------------------------

# Participles that act as prepositions or adverbs: "According to X, ...", "Beginning in 1913, ...".
NON_CATAPHORIC_PARTICIPLES = frozenset("""according beginning starting following including regarding concerning
considering excluding depending barring pending notwithstanding assuming given speaking judging owing
seeing supposing providing granting failing compared counting""".split())


# Determiners of a quantified subject: "each team" cannot be the one who does what the opening
# participle says ("Using the 2012 schedule as an example, each team ... plays"); the writer is.
QUANTIFIER_DETERMINERS = frozenset("each every all any no some both many most few several".split())


def _implied_subject_is_main_subject(sent: Sentence, root: int, subj: int) -> bool:
    """Whether the parse makes the main clause's subject the doer of the opening participle.

    Only an active main clause (a passive subject is not its verb's doer) whose subject names
    one referent (a pronoun, a name or a definite noun phrase, not a quantified one).
    """
    toks = sent.tokens
    if toks[subj].deprel != "nsubj" or any(toks[c].deprel == "aux:pass" for c in sent.children(root)):
        return False
    if any(toks[c].deprel == "det" and toks[c].text.lower() in QUANTIFIER_DETERMINERS
           for c in sent.children(subj)):
        return False
    if toks[subj].text.lower() in QUANTIFIER_DETERMINERS | {"everyone", "everybody", "nobody", "none"}:
        return False
    return True


def rule_cataphora(sent: Sentence):
    """"Stating that X, Walker rejected Y" -> "Walker stated that X." + "Walker rejected Y."."""
    toks = sent.tokens
    if len(toks) < 4 or toks[0].text.lower() in NON_CATAPHORIC_PARTICIPLES:
        return None
    if toks[0].xpos != "VBG" or toks[0].deprel not in ("advcl", "acl", "csubj") and toks[0].head != sent.root():
        return None
    root = sent.root()
    if toks[0].head != root:
        return None
    sub = sent.subtree(0)
    e = sub[-1]
    if sub != list(range(0, e + 1)) or e + 1 >= len(toks) or toks[e + 1].text != ",":
        return None
    subj = _subject(sent, root)
    if subj is None or subj < e + 1 or toks[subj].upos == "PRON" and toks[subj].text.lower() not in THIRD_PERSON | {"i", "we", "you"}:
        return None
    span = _subject_span(sent, subj)
    if span is None:
        return None
    if not _implied_subject_is_main_subject(sent, root, subj):
        return Unclean("cataphora_dangling_participle")
    plural = _plural(sent, subj)
    verb = inflect(toks[0].lemma.lower(), _tense_tag(sent, root, plural), plural)
    subj_items = list(range(*span))
    first = subj_items + [verb] + list(range(1, e + 1)) + _end(sent)
    second = list(range(e + 2, len(toks)))
    return _Match(DT.SINGLE_CATAPHORA, first, second, "")


def rule_conn_start(sent: Sentence):
    """"Although X, Y." -> "X." + "Y."."""
    low = [w.lower() for w in sent.words()]
    for conn in FORWARD_CONNECTIVES:
        if not _starts_with(low, conn.split()):
            continue
        k = len(conn.split())
        # the comma that closes the connective's clause
        head = sent.tokens[k - 1].head
        if head < k:
            return None
        sub = [i for i in sent.subtree(head) if i >= k]
        e = sub[-1]
        if sub != list(range(k, e + 1)) or e + 1 >= len(low) or low[e + 1] != ",":
            return None
        if not _is_clause(sent, k, e + 1) or not _is_clause(sent, e + 2, _final_punct(sent)):
            return None
        first = list(range(k, e + 1)) + _end(sent)
        second = list(range(e + 2, len(low)))
        return _Match(DT.SINGLE_CONN_START, first, second, conn)
    return None


def _np_without(sent: Sentence, n: int, drop: int):
    """Noun phrase of `n` without the subtree of `drop` and the commas around it: [lo, hi) or None."""
    keep = sent.subtree(n, exclude=[drop])
    # not the punctuation, nor the preposition that governs the noun ("of styles" -> "styles")
    keep = [k for k in keep if sent.tokens[k].deprel != "punct"
            and not (sent.tokens[k].deprel == "case" and sent.tokens[k].head == n and k < n)]
    if n == sent.root() or any(sent.tokens[k].upos in ("VERB", "AUX") for k in keep):
        return None  # a mis-tagged predicate ("The Peace River originates/NOUN ..."), not a noun phrase
    lo, hi = keep[0], keep[-1] + 1
    return (lo, hi) if len(keep) == hi - lo and hi <= min(sent.subtree(drop)) else None


def _after_insertion(sent: Sentence, n: int, hi: int, closing: str):
    """The tokens after a comma-delimited insertion (relative clause, apposition) ending at hi.

    Inside the subject ("Kubler, who retired ..., remained") the closing comma goes with the
    insertion; after the main verb it also separates what follows ("..., a concept ..., but
    his research ..."; "..., which operates ..., allowing them ..."), so it stays.
    """
    if closing != "comma":
        return list(range(hi, len(sent.tokens)))
    root = sent.root()
    subj = _subject(sent, root)
    if n < root and subj is not None and n not in sent.subtree(subj) and hi + 1 == min(sent.subtree(subj)):
        # the insertion ends a fronted phrase ("After receiving the news from Antilochus, the son
        # of Nestor, Achilles grieves"): its closing comma also closes that phrase
        return list(range(hi, len(sent.tokens)))
    nxt = sent.tokens[hi + 1] if hi + 1 < len(sent.tokens) else None
    opens_clause = nxt is not None and (nxt.upos in ("CCONJ", "SCONJ") or nxt.xpos in ("VBG", "VBN"))
    return list(range(hi if n > sent.root() and opens_clause else hi + 1, len(sent.tokens)))


def _comma_delimited(sent: Sentence, x: int):
    """(lo, hi, closing) of the subtree of x when a comma opens it and a comma or the end closes it."""
    sub = sent.subtree(x)
    lo, hi = sub[0], sub[-1] + 1
    if len(sub) != hi - lo:
        # a closing comma attached inside is allowed
        return None
    if lo == 0 or sent.tokens[lo - 1].text != ",":
        return None
    if hi < len(sent.tokens) and sent.tokens[hi].text == ",":
        return lo, hi, "comma"
    if hi == _final_punct(sent):
        return lo, hi, "end"
    return None


# --------------------------------------------------------------------------
# A noun phrase repeated in a new sentence (issue 32)
# --------------------------------------------------------------------------

# Focus adverbs: at the left edge of a noun phrase they are the sentence's, wherever the parser
# hangs them ("only one variety of venomous snake, the prairie rattlesnake": only/advmod -> one).
FOCUS_ADVERBS = frozenset("""only even also just especially particularly mainly notably chiefly primarily
principally mostly largely solely merely exclusively namely specifically""".split())


def _np_core_start(sent: Sentence, n: int, lo: int, hi: int) -> int:
    """Where the noun phrase [lo, hi) of noun n starts without the adverbs, coordinators and
    subordinators at its left edge ("so only lithium", "most famously the salamanders"): they
    belong to the sentence the phrase stands in, not to a new one about the noun. Adverbs of a
    number other than focus ones stay ("about 300,000 atoms")."""
    toks = sent.tokens
    while lo < n:
        a = lo  # the word at the left edge, up to the adverb it modifies ("most" -> "famously")
        while toks[a].head != n and lo <= toks[a].head < n and toks[toks[a].head].upos == "ADV":
            a = toks[a].head
        if toks[a].upos not in ("ADV", "CCONJ", "SCONJ", "PART") or \
                toks[a].deprel not in ("advmod", "cc", "mark", "discourse") or \
                toks[a].head != n and toks[lo].text.lower() not in FOCUS_ADVERBS:
            break
        sub = sent.subtree(a)
        end = sub[-1] + 1
        while end < hi and toks[end].text == ",":
            end += 1
        if sub != list(range(lo, sub[-1] + 1)) or end > n:
            break
        lo = end
    return lo


# Determiners that introduce a referent (an indefinite article, an existential quantifier): the same
# phrase in a second sentence introduces another one ("A force landed there and began moving" is
# no "A force began moving"), so the repetition takes "the" / "these". Universal ones (each, every,
# all, both, most, any) distribute over the halves and are repeated as they are.
INDEFINITE_DETERMINERS = frozenset("a an some several many certain various numerous".split())
# Downward ones: "Few scholars read and accepted it" is no "Few scholars read it" + "These accepted
# it"; "no other species" cannot be replaced at all. The rule declines.
NEGATIVE_DETERMINERS = frozenset("no neither few little".split())
# Quantifiers the tagger reads as adjectives ("many studies", "a few", "certain acids").
_QUANTIFYING_ADJECTIVES = frozenset("few many several numerous various certain".split())
# Heads that count rather than name ("a number of X", "a couple of X"): "the number of X" is another thing.
_COUNTING_NOUNS = frozenset("number lot lots couple handful dozen dozens proportion majority minority percentage "
                            "fraction".split())
# Heads that are the quantifier itself ("Some, such as the spadefoot toads, have ...", "Six of these
# states"): no determiner to replace.
_QUANTIFIER_HEADS = frozenset("some many several few none much".split())
# Entity types of a measure: a number with its unit names an amount, the same amount when repeated
# ("about 1 km per hour, which translates to ...").
_MEASURE_ENTITIES = frozenset("QUANTITY MONEY PERCENT DATE TIME".split())


def _entity(tok) -> str:
    return tok.ner[2:] if tok.ner[:2] in ("B-", "I-") else ""


def _repeated_np(sent: Sentence, n: int, lo: int, hi: int):
    """Items of the noun phrase [lo, hi) of noun n for a new sentence that repeats it, or None when
    no repetition names the same thing (a downward quantifier, a quantifier as the head, "a number
    of"): the caller declines.

    An indefinite article or an existential quantifier or number becomes "the" (singular) or "these"
    (plural), what follows stays: "a small British raiding force" -> "the small British raiding
    force", "some groups" -> "these groups", "about 300,000 neutral atoms" -> "these neutral atoms".
    """
    toks = sent.tokens
    items = list(range(lo, hi))
    if toks[n].text.lower() in _QUANTIFIER_HEADS or toks[n].upos == "NUM":
        return None
    # the quantifier words of n, or of its possessor ("a caecilian 's skin")
    owners = [n] + [c for c in sent.children(n) if toks[c].deprel == "nmod:poss" and c < n]
    quant, owner_of = set(), {}
    for o in owners:
        for c in sent.children(o):
            if c > o:
                continue
            word = toks[c].text.lower()
            if toks[c].deprel == "det" and word in INDEFINITE_DETERMINERS | NEGATIVE_DETERMINERS or \
                    toks[c].deprel == "amod" and word in _QUANTIFYING_ADJECTIVES:
                quant.add(c)
                owner_of[c] = o
            elif toks[c].deprel == "nummod" and toks[c].upos == "NUM":
                sub = sent.subtree(c)
                quant.update(sub)
                owner_of.update((k, o) for k in sub)
    end = lo
    while end < hi and end in quant:
        end += 1
    if end == lo:
        return items  # a definite phrase, or a quantifier inside it ("his two sons"): as it is
    prefix = [toks[k] for k in range(lo, end)]
    if prefix[0].text.lower() in NEGATIVE_DETERMINERS or any(t.text.lower() in ("no", "neither") for t in prefix):
        return None
    owner = owner_of[lo]
    plural = toks[owner].xpos in ("NNS", "NNPS")
    if any(t.upos == "NUM" for t in prefix) and (not plural or _entity(toks[n]) in _MEASURE_ENTITIES or any(
            _entity(t) in _MEASURE_ENTITIES for t in prefix)):
        # a measure ("about 1 km per hour", "about 310 Goilbbl", "five centuries"): the same amount
        return items
    if toks[owner].text.lower() in _COUNTING_NOUNS and any(
            toks[c].deprel == "nmod" and c > owner and toks[sent.subtree(c)[0]].text.lower() == "of"
            for c in sent.children(owner)):
        return None
    return ["these" if plural else "the"] + list(range(end, hi))


# Entity types (OntoNotes) that "who" never stands for.
_NON_PERSON_ENTITIES = frozenset("GPE LOC FAC DATE TIME MONEY PERCENT QUANTITY CARDINAL ORDINAL EVENT PRODUCT "
                                 "WORK_OF_ART LAW LANGUAGE".split())
# Verbs of a "which" clause that comments on the whole preceding clause rather than on the noun
# before the comma ("..., which led to his resignation", "..., which means that ..."): the
# parser attaches such a clause to the nearest noun all the same.
CLAUSAL_WHICH_VERBS = frozenset("""mean lead result cause make allow enable prompt trigger spark provoke occur happen
force help contribute reflect indicate suggest imply show prove demonstrate explain render bring
give create produce permit prevent ensure""".split())


# Heads that stand for an unnamed set ("among others, whose ..."): no sentence can be made of them.
_VAGUE_NOUNS = frozenset("other others one ones many some all most few several both".split())


def _relative_decline(sent: Sentence, n: int, r: int, lo: int, hi: int, closing: str):
    """Why the relative clause r (subtree [lo, hi)) on noun n cannot be split off, or None."""
    toks = sent.tokens
    rel = toks[lo].text.lower()
    if rel == "which" and toks[r].lemma.lower() in CLAUSAL_WHICH_VERBS:
        return "relative_clausal_which"
    finite = [toks[r].xpos] + [toks[c].xpos for c in sent.children(r) if toks[c].deprel.startswith("aux")]
    if rel == "which" and toks[n].xpos in ("NNS", "NNPS") and "VBZ" in finite:
        return "relative_clausal_which"  # "... onto the lowland areas, which occurs most in winter"
    etype = toks[n].ner[2:] if toks[n].ner[:2] in ("B-", "I-") else ""
    if rel == "which" and etype == "PERSON" or rel == "who" and etype in _NON_PERSON_ENTITIES:
        return "relative_pronoun_mismatch"  # "The first was by Charlie Rich, which went to number 22"
    # the noun is the complement of a preposition inside a larger phrase ("the ancient morality
    # of the gift, which ...", "the power innate in a mental state, which ..."): the clause may
    # be about the head of that phrase; or one of coordinated nouns ("X and Y, who ...")
    head = toks[n].head
    if any(toks[c].deprel == "case" and c < n for c in sent.children(n)) and head != -1 and \
            toks[head].upos in ("NOUN", "PROPN", "PRON", "NUM", "ADJ", "ADV"):
        return "relative_antecedent_ambiguous"
    if toks[n].deprel == "conj" or any(toks[c].deprel == "conj" for c in sent.children(n)):
        return "relative_antecedent_ambiguous"
    if toks[n].deprel == "obl" and any(toks[c].deprel == "obj" and c < n for c in sent.children(head)):
        return "relative_antecedent_ambiguous"  # "wrote a treatise in the Arabic language, which was translated"
    if toks[n].lemma.lower() in _VAGUE_NOUNS or toks[n].text.lower() in _VAGUE_NOUNS:
        return "relative_antecedent_ambiguous"  # "..., among others, whose presence .."
    if closing == "comma" and n > sent.root():
        # after the main verb, the comma that closes the clause is also where what follows may
        # belong to it ("..., who became known as colons and later, as Pied-Noirs"; "..., which
        # operates upon X, allowing them to rise"): only a new clause is safe to hand back
        rest = list(range(hi + 1, _final_punct(sent)))
        if not rest or toks[hi + 1].upos != "CCONJ" or not _is_clause(sent, hi + 2, _final_punct(sent)):
            return "relative_tail_ambiguous"
    return None


def rule_relative(sent: Sentence):
    """"Kubler, who retired in 1957, remained ..." -> "Kubler remained ..." + "Kubler retired in 1957.".

    The antecedent is the noun the clause attaches to in the parse; a clause whose antecedent or
    extent is unsure is declined (Unclean, counted): `_relative_decline`.
    """
    toks = sent.tokens
    unclean = None
    for r, t in enumerate(toks):
        if t.deprel != "acl:relcl":
            continue
        n = t.head
        if toks[n].upos not in ("NOUN", "PROPN"):
            continue
        delim = _comma_delimited(sent, r)
        if delim is None:
            continue
        lo, hi, closing = delim
        rel = toks[lo].text.lower()
        if rel not in ("who", "which", "whose"):
            continue
        np = _np_without(sent, n, r)
        if np is None or np[1] != lo - 1:
            continue
        if rel in ("who", "which") and (toks[lo].deprel not in ("nsubj", "nsubj:pass") or toks[lo].head != r):
            continue  # not the relative clause's own subject ("taxes, which they claimed were ...")
        decline = _relative_decline(sent, n, r, lo, hi, closing)
        if decline is not None:
            unclean = unclean or Unclean(decline)
            continue
        np_items = _repeated_np(sent, n, _np_core_start(sent, n, *np), np[1])
        if np_items is None:
            unclean = unclean or Unclean("relative_antecedent_quantified")
            continue
        first = list(range(0, lo - 1)) + _after_insertion(sent, n, hi, closing)
        clitic = [_possessive_clitic(toks[np[1] - 1].text, toks[np[1] - 1].xpos in ("NNS", "NNPS"))]
        second = np_items + (clitic if rel == "whose" else []) + list(range(lo + 1, hi)) + _end(sent)
        return _Match(DT.SINGLE_RELATIVE, first, second, "")
    return unclean


# Nouns that, in an apposition, usually sum up the preceding clause ("..., a situation that ...",
# "..., a move that ..."): Schmid's "shell nouns", the common ones.
SHELL_NOUNS = frozenset("""property situation practice move decision step fact trend phenomenon feat result
development change achievement distinction sign indication gesture attempt effort tactic consequence
outcome effect accomplishment milestone""".split())


def _in_coordination(sent: Sentence, n: int, hi: int) -> bool:
    """The noun n (with an apposition-like phrase ending at hi) stands in a list or coordination."""
    toks = sent.tokens
    if toks[n].deprel == "conj" or any(toks[c].deprel in ("conj", "cc") for c in sent.children(n)):
        return True
    left = min(sent.subtree(n)) - 1
    while left >= 0 and toks[left].upos == "PUNCT":
        left -= 1
    if left >= 0 and toks[left].upos == "CCONJ":
        return True  # "A and, until B, C"
    if min(sent.subtree(n)) > 0 and toks[min(sent.subtree(n)) - 1].text == "," and \
            toks[n].deprel not in ("nsubj", "nsubj:pass"):
        return True  # "... Jordan, Lebanon, Syria, the Red Sea coast of Africa, ...": a list member
    end = _final_punct(sent)
    # "X, the Y, and Z ...": the phrase is followed by a coordinator that opens no clause
    return hi + 1 < end and toks[hi + 1].upos == "CCONJ" and not _is_clause(sent, hi + 2, end)


def rule_apposition(sent: Sentence):
    """"X, the son of Y, did Z." -> "X did Z." + "X was the son of Y.".

    Declined (Unclean, counted) when the phrase sums up the clause (a shell noun at the end), when
    the noun is two phrases deep, inside a list or coordination (`_in_coordination`), or when a
    comma inside leaves its extent unsure.
    """
    toks = sent.tokens
    unclean = None
    for a, t in enumerate(toks):
        if t.deprel != "appos":
            continue
        n = t.head
        if toks[n].upos not in ("NOUN", "PROPN") or n > a:
            continue
        delim = _comma_delimited(sent, a)
        if delim is None:
            continue
        lo, hi, closing = delim
        if toks[lo].deprel not in ("det", "nmod:poss") or toks[lo].head not in sent.subtree(a):
            continue
        if toks[n].deprel == "xcomp" or any(toks[x].deprel == "conj" for x in sent.children(a)):
            continue  # on a predicate noun ("considered X a philosopher, the author ..."), or a list
        if closing == "end" and t.lemma.lower() in SHELL_NOUNS:
            # "salts are soluble in water, a property which ammonium salts share": the phrase sums
            # up the clause, not the noun before it (no "Water is a property ...")
            unclean = unclean or Unclean("apposition_to_clause")
            continue
        if toks[n].deprel == "nmod" and toks[toks[n].head].deprel == "nmod":
            # "the biographies of her parents of their time in China, The Exile and ...": two
            # phrases deep, the description may be of any noun above it
            unclean = unclean or Unclean("apposition_antecedent_ambiguous")
            continue
        if _in_coordination(sent, n, hi):
            # "... Ancient Rome and, until the French Revolution, the Western Christian world": the
            # comma-delimited phrase is a member of a list, not a description of the noun before it
            unclean = unclean or Unclean("apposition_in_coordination")
            continue
        if any(toks[x].text == "," for x in range(lo, hi)):
            # a comma inside: where the apposition ends is a guess ("Kandahar, the last Hotak
            # stronghold, from Shah Hussain Hotak, at which point ...")
            unclean = unclean or Unclean("apposition_extent_unclear")
            continue
        np = _np_without(sent, n, a)
        if np is None or np[1] != lo - 1:
            continue
        np = (_np_core_start(sent, n, *np), np[1])  # "so only lithium, the ...": "Lithium is the ..."
        if toks[np[0]].text.lower() in ("a", "an"):
            continue  # "A dogmatic philosopher was ...": an indefinite subject says nothing
        root = sent.root()
        plural = _plural(sent, n)
        be = inflect("be", _tense_tag(sent, root, plural) if root not in range(lo, hi) else "VBD", plural)
        first = list(range(0, lo - 1)) + _after_insertion(sent, n, hi, closing)
        second = list(range(*np)) + [be] + list(range(lo, hi)) + _end(sent)
        return _Match(DT.SINGLE_APPOSITION, first, second, "")
    return unclean


def rule_conn_inner(sent: Sentence):
    """"X, because Y." -> "X." + "Y." (connective deleted).

    The connective must open the clause that ends the sentence (it is the `mark` of that
    clause's head): in "X, and while Y, Z." "while" opens a clause subordinate to Z, so
    there is no clean split and the rule answers Unclean("connective_not_clause_initial").
    """
    toks = sent.tokens
    low = [w.lower() for w in sent.words()]
    end = _final_punct(sent)
    unclean = None
    for p in range(2, end):
        for conn in INNER_CONNECTIVES:
            cw = conn.split()
            if not _starts_with(low, cw, p):
                continue
            start2 = p + len(cw)
            if conn == "meaning" and start2 < end and low[start2] == "that":
                start2 += 1
            first = _strip_commas(list(range(0, p)), sent, coordinators=True)
            if not first or not _is_clause(sent, start2, end) or not _is_clause(sent, first[0], first[-1] + 1):
                continue
            h = _constituent_head(sent, start2, end)
            if conn != "meaning" and not any(toks[j].head == h for j in range(p, start2)):
                unclean = unclean or Unclean("connective_not_clause_initial")
                continue
            return _Match(DT.SINGLE_CONN_INNER, first + _end(sent), list(range(start2, len(low))), conn)
    return unclean


# VP_COORD declines (issue 18): an alternative is no pair of facts ("must file an answer or
# risk a default judgment" is no obligation to risk it).
_ALTERNATIVE_COORDINATORS = ("or", "nor")
# Adverbs whose scope is the coordination itself: "could not simultaneously defeat A and occupy B"
# says nothing about occupying B alone.
SCOPE_ADVERBS = frozenset("""simultaneously both either neither together jointly respectively alternately
alternatively concurrently collectively mutually""".split())
# Frequency adverbs between the subject and the first verb qualify both verbs ("often could not A
# and B"): they come over with the subject, like the auxiliaries.
FREQUENCY_ADVERBS = frozenset("""often usually always sometimes frequently generally typically rarely seldom
occasionally normally""".split())


_SUBORDINATORS = frozenset("that when where while because if after before since until although though as "
                           "whereas which who whom whose once unless".split())


def _finite(sent: Sentence, x: int) -> bool:
    """The clause headed by x is finite or opened by a subordinator ("when it is oxygenated"), not
    an infinitive ("considered Aristotle to be a philosopher")."""
    toks = sent.tokens
    tags = [toks[x].xpos] + [toks[c].xpos for c in sent.children(x) if toks[c].deprel.startswith("aux")]
    if any(t in ("VBD", "VBZ", "VBP", "MD") for t in tags):
        return True
    return any(toks[c].text.lower() in _SUBORDINATORS for c in sent.children(x) if c < x)


def _vp_coord_decline(sent: Sentence, root: int, c: int, k: int):
    """Why a VP coordination of `root` and its conjunct `c` (coordinator at k) cannot be split, or None.

    The halves must not share anything the split would give to one of them only.
    """
    toks = sent.tokens
    if toks[k].text.lower() in _ALTERNATIVE_COORDINATORS:
        return "vp_coord_alternative"
    kids = sent.children(root)
    # "could read and write in French", "are named and classified as fungal species": nothing of
    # its own between the first verb and the coordinator, so what follows the second verb is
    # (or may be) the first one's too
    if not any(root < x < k and toks[x].deprel not in ("punct", "cc") for x in kids):
        return "vp_coord_shared_complement"
    # a dependent of the first verb after the second conjunct is shared by both
    if any(x > c and toks[x].deprel != "punct" for x in kids):
        return "vp_coord_shared_modifier"
    last = max((x for x in kids if root < x < k and toks[x].deprel != "punct"), default=None)
    if last is not None and toks[last].deprel in ("advcl", "ccomp", "acl", "acl:relcl") and any(
            toks[x].deprel in ("nsubj", "nsubj:pass") for x in sent.subtree(last)) and _finite(sent, last):
        # the first conjunct ends in a clause with its own subject, whose verb the second may
        # continue ("... when Hamilton secured legislation ..., and in addition created a bank")
        return "vp_coord_attachment_ambiguous"
    # or the first conjunct ends inside such a clause ("pumps the blood through the gills where it is
    # oxygenated, and is spread around the body": the blood is spread)
    x = k - 1
    while x > root and toks[x].upos == "PUNCT":
        x -= 1
    while x != root and x != -1:
        if toks[x].deprel in ("advcl", "ccomp", "acl", "acl:relcl") and _subject(sent, x) is not None and \
                _finite(sent, x):
            return "vp_coord_attachment_ambiguous"
        x = toks[x].head
    pre = [x for x in kids if x < root] + [x for x in sent.children(c) if x < c]
    if any(toks[x].text.lower() in SCOPE_ADVERBS for x in pre):
        return "vp_coord_scope_adverb"
    return None


def rule_coordination(sent: Sentence):
    """S_COORD: "X, but Y did Z." -> "X." + "Y did Z."; VP_COORD carries the subject over.

    VP_COORD declines (Unclean, counted) when the halves share something the split would give
    to one only: `_vp_coord_decline`.
    """
    toks = sent.tokens
    root = sent.root()
    end = _final_punct(sent)
    if any(toks[x].deprel == "cc:preconj" for x in sent.subtree(root)):
        return None  # "both X and Y", "either X or Y": the halves share an argument
    unclean = None
    for c in sent.children(root):
        if toks[c].deprel != "conj" or c < root or not _is_predicate(sent, c):
            continue
        ks = [k for k in range(root + 1, c) if toks[k].text.lower() in COORDINATORS
              and toks[k].deprel in ("cc", "advmod") and toks[k].head in (root, c)]
        if not ks:
            continue
        k = ks[-1]
        if _constituent_head(sent, k + 1, end) != c:
            continue
        first = _strip_commas(list(range(0, k)), sent, coordinators=True)
        if not first:
            continue
        subj_c = _subject(sent, c)
        # "and so", "and yet": the coordinator left behind goes with the connective
        conn = " ".join(toks[x].text.lower() for x in range(first[-1] + 1, k + 1) if toks[x].upos != "PUNCT")
        if any(toks[x].deprel == "mark" and x > k for x in sent.children(c)):
            continue  # "ordered X, and that delegates should ...": a conjoined subordinate clause
        if subj_c is not None and (toks[subj_c].xpos in ("WDT", "WP") or toks[subj_c].text.lower() in (
                "that", "which", "who")):
            continue  # "..., and machines ... that used EBCDIC": a relative clause, not a conjunct
        if subj_c is not None and k < subj_c < c and c - k <= COORD_WINDOW:
            if not _is_clause(sent, first[0], first[-1] + 1):
                continue
            if first[-1] == root and toks[root].upos == "VERB" and any(
                    toks[x].deprel == "obj" for x in sent.children(c)):
                # "the Legislature passed, and the Governor signed a resolution": the object is
                # shared, and "The Legislature passed ." says something else
                unclean = unclean or Unclean("s_coord_shared_object")
                continue
            return _Match(DT.SINGLE_S_COORD, first + _end(sent), list(range(k + 1, len(toks))), conn)
        if subj_c is None and toks[c].upos in ("VERB", "AUX"):
            if any(toks[x].deprel == "conj" and root < x < c and _subject(sent, x) is not None
                   for x in sent.children(root)):
                continue  # "X did A, and so Y hung B and flayed C": the verb may be Y's
            subj = _subject(sent, root)
            if subj is None or subj > root or toks[subj].deprel == "expl" or \
                    toks[subj].text.lower() in ("that", "which", "who", "this"):
                continue  # a relative pronoun (mis-parsed relative clause) or a vague "this"
            span = _subject_span(sent, subj)
            if span is None or sum(toks[x].deprel in ("nsubj", "nsubj:pass") for x in sent.children(root)) > 1:
                # "An astute politician ..., Lincoln reached out ...": two subjects, which one?
                unclean = unclean or Unclean("vp_coord_subject_unclear")
                continue
            decline = _vp_coord_decline(sent, root, c, k)
            if decline is not None:
                unclean = unclean or Unclean(decline)
                continue
            carried = _carried_auxiliaries(sent, root, c, conn)
            if carried is None:
                continue
            if any(toks[x].text.lower() in _NEGATION for x in carried):
                # "did not A and B" is not "did not A" + "did not B" (a finite second verb does
                # not share the negation: "do not form X and are insoluble")
                unclean = unclean or Unclean("vp_coord_under_negation")
                continue
            subj_items = _repeated_np(sent, subj, *span)
            if subj_items is None:
                # "no other species", "Some, such as ...", "few scholars": no way to repeat the subject
                unclean = unclean or Unclean("vp_coord_subject_quantified")
                continue
            adverbs = [x for x in sent.children(root) if span[1] <= x < root and toks[x].deprel == "advmod"
                       and toks[x].text.lower() in FREQUENCY_ADVERBS]
            if any(toks[x].deprel == "advmod" and x < c for x in sent.children(c)):
                adverbs = []  # the second verb has its own ("often A and then usually B")
            second = subj_items + sorted(carried + adverbs) + list(range(k + 1, len(toks)))
            if not carried and toks[c].xpos in ("VBZ", "VBP"):
                # the subject comes over without its first verb: the second verb must agree with it.
                # The first verb's agreement tells the subject's number better than the noun's tag.
                plural = _subject_number(sent, root, subj)
                if plural is not None and (toks[c].xpos == "VBP") != plural and toks[c].lemma.lower() != "be":
                    second = [inflect(toks[c].lemma.lower(), "VBP" if plural else "VBZ", plural)
                              if x == c else x for x in second]
            return _Match(DT.SINGLE_VP_COORD, first + _end(sent), second, conn)
    return unclean


# Negation that a base-form second verb shares with the first ("does not drink or smoke"),
# but not across "but" ("must not panic but act calmly").
_NEGATION = ("not", "n't", "never")
_NEGATION_SHARING = ("and", "or", "nor")


def _carried_auxiliaries(sent: Sentence, root: int, c: int, conn: str):
    """Auxiliaries, modals and negation of the first verb phrase that the second one shares.

    "may accept X but argue Y" -> ["may"]; "does not drink or smoke" -> ["does", "not"];
    [] when the second verb is finite on its own ("started ..., yet recovered") or has its
    own auxiliaries; None when it is a bare participle or infinitive with nothing to carry.
    """
    toks = sent.tokens
    own = [x for x in sent.children(c) if toks[x].deprel.startswith("aux")]
    if own:
        # its own auxiliaries must make it finite: "..., or being acted upon" is no sentence
        return [] if any(toks[x].xpos in ("MD", "VBZ", "VBP", "VBD") for x in own) else None
    aux = [x for x in sent.children(root) if toks[x].deprel.startswith("aux") and x < root]
    if toks[c].xpos == "VBN" and toks[root].xpos == "VBD" and not aux:
        return []  # a past-tense verb the tagger read as a participle ("yet recovered")
    # a present-tense tag on a base form after a modal or "do" ("may accept ... but argue"),
    # never a finite "are"/"have" ("do not form ... and are insoluble")
    base = toks[c].xpos in ("VB", "VBN", "VBG") or toks[c].xpos == "VBP" and \
        toks[c].text.lower() == toks[c].lemma.lower() != "be" and any(
            toks[x].xpos == "MD" or toks[x].lemma.lower() == "do" for x in aux)
    if not base:
        return []
    if not aux:
        return None
    # the carried auxiliaries must govern the second verb's form: a bare verb takes a modal, "do"
    # or "to"; a participle "be" or "have"; else the conjunct is no verb phrase of theirs ("are
    # often involved in teaching anatomy, and research into ..." is no "They are research ...")
    lemmas = {toks[x].lemma.lower() for x in aux} | {toks[x].text.lower() for x in aux}
    modal = any(toks[x].xpos == "MD" for x in aux) or lemmas & {"do", "to"}
    takes = {"VB": modal, "VBP": modal, "VBN": lemmas & {"be", "have", "get"}, "VBG": "be" in lemmas}
    if not takes.get(toks[c].xpos, False):
        return None
    neg = [x for x in sent.children(root) if toks[x].text.lower() in _NEGATION
           and toks[x].deprel in ("advmod", "neg") and aux[0] < x < root] if conn in _NEGATION_SHARING else []
    return sorted(aux + neg)


SINGLE_RULES = (rule_cataphora, rule_conn_start, rule_relative, rule_apposition, rule_conn_inner,
                rule_coordination)


# --------------------------------------------------------------------------
# Anaphora
# --------------------------------------------------------------------------

def _antecedents(doc: AnnotatedDocument, pronouns: typing.Optional[typing.AbstractSet[str]] = None):
    """(sentence, token start) of each later mention -> (antecedent Mention, is_pronoun, end); a mention is
    a pronoun when its one word is in `pronouns` (default: English's, coref.PRONOUNS)."""
    pronouns = coref_lib.PRONOUNS if pronouns is None else pronouns
    table = {}
    for chain in doc.chains:
        rep = chain.mentions[chain.representative]
        for m in chain.mentions:
            if m is rep or (m.sentence, m.start) <= (rep.sentence, rep.start):
                continue
            sent = doc.sentences[m.sentence]
            pron = m.end - m.start == 1 and sent.tokens[m.start].text.lower() in pronouns
            table[(m.sentence, m.start)] = (rep, pron, m.end)
    return table


def _substitute(doc, table, s_idx, items, allowed):
    """Replace the first resolvable mention among `items` of sentence s_idx whose antecedent is `allowed`.

    Returns (new_items, kind) with kind "pronoun" | "nominal", or None.
    """
    sent = doc.sentences[s_idx]
    for pos, x in enumerate(items):
        if not isinstance(x, int) or (s_idx, x) not in table:
            continue
        rep, pron, end = table[(s_idx, x)]
        if not allowed(rep):
            continue
        if not all(isinstance(y, int) and y == x + j for j, y in enumerate(items[pos:pos + end - x])):
            continue
        rsent = doc.sentences[rep.sentence]
        words = [t.text for t in rsent.tokens[rep.start:rep.end]]
        if rep.start == 0 and words and rsent.tokens[0].upos == "DET" and pos > 0:
            words[0] = words[0].lower()
        if sent.tokens[x].text.lower() in coref_lib.POSSESSIVE and sent.tokens[x].deprel == "nmod:poss":
            plural = sent.tokens[x].text.lower() == "their" or rsent.tokens[rep.end - 1].xpos in ("NNS", "NNPS")
            words = words + [_possessive_clitic(words[-1], plural)]
        return items[:pos] + words + items[pos + (end - x):], "pronoun" if pron else "nominal"
    return None


# --------------------------------------------------------------------------
# Assembly and filters
# --------------------------------------------------------------------------

def _possessive_clitic(last_word: str, plural: bool) -> str:
    """"'s", or "'" after a plural ending in s ("the school boards ' boundaries", never "boards 's")."""
    return "'" if plural and last_word.lower().endswith("s") else "'s"


def _render(sent: Sentence, items) -> str:
    words = [sent.tokens[x].text if isinstance(x, int) else x for x in items]
    while words and words[0] in (",", ";", ":"):
        words.pop(0)
    if words and words[0][:1].islower() and not words[0][1:2].isupper():
        words[0] = words[0][:1].upper() + words[0][1:]
    return " ".join(words)


# At least half of a sentence's tokens must be words: reference lists, ISBNs
# and tables left over by markup cleaning are not prose.
MIN_WORD_FRACTION = 0.5


def _is_prose(text: str) -> bool:
    toks = text.split()
    return sum(1 for t in toks if any(ch.isalpha() for ch in t)) >= MIN_WORD_FRACTION * len(toks)


def _balanced(text: str) -> bool:
    """Brackets and double quotes pair up: a split inside "( ... )" or a quotation is not kept."""
    depth = 0
    for tok in text.split():
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(tok, 0)
        if depth < 0:
            return False
    return depth == 0 and text.split().count('"') % 2 == 0


def _drop_reason(ex: FusionExample, options: Options):
    texts = [ex.coherent_first_sentence, ex.coherent_second_sentence,
             ex.incoherent_first_sentence, ex.incoherent_second_sentence]
    if any(TEMPLATE_HOLE in t for t in texts):
        return "template_hole"
    if options.min_tokens and any(t and len(t.split()) < options.min_tokens for t in texts):
        return "short_sentence"
    if options.ascii_only and not all(t.isascii() for t in texts):
        return "non_ascii"
    if any(t and not _is_prose(t) for t in texts):
        return "not_prose"
    if any(not _balanced(t) for t in texts):
        return "unbalanced_brackets"
    if any(t and _fragment(t) for t in texts):
        return "fragment"
    return None


def _fragment(text: str) -> bool:
    """A sentence that starts with punctuation or ends in a dangling coordinator or comma
    ("... rife with corruption , and ."), whether a rule or markup cleaning left it so."""
    toks = text.split()
    if toks[0] in (",", ";", ":"):
        return True
    body = toks[:-1] if toks[-1] in FINAL_PUNCT else toks
    return bool(body) and body[-1].lower() in DANGLING_COORDINATORS + (",", ";", ":")


def _example(doc, kind, first, second, coherent, i, connective, pron=0.0, nominal=0.0):
    return FusionExample(
        coherent_first_sentence=coherent[0], coherent_second_sentence=coherent[1],
        incoherent_first_sentence=first, incoherent_second_sentence=second,
        discourse_type=kind, connective_string=connective,
        has_coref_type_pronoun=pron, has_coref_type_nominal=nominal,
        source=doc.source, doc_id=doc.id, sentence_index=i, rule=kind.value.lower())


_ANAPHORA_OF = {DT.SINGLE_CONN_INNER: DT.SINGLE_CONN_INNER_ANAPHORA,
                DT.SINGLE_S_COORD: DT.SINGLE_S_COORD_ANAPHORA}


def match_single(doc: AnnotatedDocument, i: int, table=None, lang=None):
    """(DiscourseType, first, second, connective, pron, nominal) for sentence i.

    None when no rule fires; an Unclean (with its reason) when a rule's trigger is
    there but no rule could split the sentence cleanly. `lang`: another language's rules and
    helpers (`Language`; miners/discofuse_fr.LANGUAGE); None: English's.
    """
    lang = lang or ENGLISH
    sent = doc.sentences[i]
    if not sent.parsed or len(sent.tokens) < 3:
        return None
    unclean = None
    for rule in lang.single_rules:
        try:
            m = rule(sent)
        except lang.rule_errors:  # a malformed tree: no rule
            m = None
        if isinstance(m, Unclean):
            unclean = unclean or m
            continue
        if m is None:
            continue
        pron = nominal = 0.0
        second = m.second
        if m.type in lang.anaphora_of:
            table = lang.antecedents(doc) if table is None else table
            limit = min(x for x in m.second if isinstance(x, int))
            sub = lang.substitute(doc, table, i, m.second,
                                  lambda rep: rep.sentence == i and rep.end <= limit)
            if isinstance(sub, Unclean):  # a language's substitution may decline (French: person verbs)
                return sub
            if sub is not None:
                second, kind = sub
                pron, nominal = (1.0, 0.0) if kind == "pronoun" else (0.0, 1.0)
                m.type = lang.anaphora_of[m.type]
        return m.type, lang.render(sent, m.first), lang.render(sent, second), m.connective, pron, nominal
    return unclean


def match_pair(doc: AnnotatedDocument, i: int, table=None, lang=None):
    """(DiscourseType, s1, s2', connective, pron, nominal) for sentences i, i+1 (PAIR_NONE included);
    `lang` as `match_single`'s. An Unclean when the language's substitution declines (English's never does)."""
    lang = lang or ENGLISH
    s1, s2 = doc.sentences[i], doc.sentences[i + 1]
    items = list(range(len(s2.tokens)))
    conn = lang.pair_connective(s2.words())
    connective = ""
    if conn is not None:
        a, b, connective = conn
        drop = set(range(a, b + 1))  # the connective and its comma; a comma before it stays
        items = [x for x in items if x not in drop]
    pron = nominal = 0.0
    if s1.parsed and s2.parsed:
        table = lang.antecedents(doc) if table is None else table
        sub = lang.substitute(doc, table, i + 1, items, lambda rep: rep.sentence == i)
        if isinstance(sub, Unclean):
            return sub
        if sub is not None:
            items, kind = sub
            pron, nominal = (1.0, 0.0) if kind == "pronoun" else (0.0, 1.0)
    if conn and (pron or nominal):
        kind = DT.PAIR_CONN_ANAPHORA
    elif conn:
        kind = DT.PAIR_CONN
    elif pron or nominal:
        kind = DT.PAIR_ANAPHORA
    else:
        kind = DT.PAIR_NONE
    return kind, s1.text(), lang.render(s2, items), connective, pron, nominal


@dataclasses.dataclass(frozen=True)
class Language:
    """What `match_single` and `match_pair` take from a language: its single-sentence rules (and the
    errors a malformed tree raises in them), which types become anaphora types, the anaphora table and
    substitution, the renderer, and the backward connective opening a second sentence."""
    single_rules: tuple
    rule_errors: tuple
    anaphora_of: dict
    antecedents: typing.Callable
    substitute: typing.Callable
    render: typing.Callable
    pair_connective: typing.Callable  # the second sentence's words -> (start, end, connective) or None


ENGLISH = Language(single_rules=SINGLE_RULES, rule_errors=(IndexError, ValueError), anaphora_of=_ANAPHORA_OF,
                   antecedents=_antecedents, substitute=_substitute, render=_render,
                   pair_connective=lambda words: backward_connective([w.lower() for w in words]))


def mine_document(doc: AnnotatedDocument, options: Options = Options(), inc=None, rules=None):
    """All examples of one annotated document.

    Args:
      doc: sentences annotated in UD v2 (unparsed ones were ruled out by the pre-check).
      options: filters.
      inc: counter increment `inc(name)`; names `passed`, `filtered:<reason>`, `type:<TYPE>`.
      rules: another language's `match_single`, `match_pair`, `antecedents` and `drop_reason`
        (miners/discofuse_fr.RULES); None: English's, this module's.
    Returns:
      (examples, drops): FusionExamples sorted by (sentence_index, type), and
      (reason, sentence_index, text) for each example the filters dropped and each
      sentence a rule could not split cleanly (e.g. `connective_not_clause_initial`).
    """
    inc = inc or (lambda name, n=1: None)
    single, pair, drop_reason = (rules.match_single, rules.match_pair, rules.drop_reason) if rules else \
        (match_single, match_pair, _drop_reason)
    table = rules.antecedents(doc) if rules else _antecedents(doc)
    examples, drops = [], []
    matched = set()

    def keep(ex):
        reason = drop_reason(ex, options)
        if reason:
            inc(f"filtered:{reason}")
            drops.append((reason, ex.sentence_index, ex.coherent_first_sentence + " " + ex.coherent_second_sentence))
            return
        inc("passed")
        inc(f"type:{ex.discourse_type.value}")
        examples.append(ex)

    holes = frozenset(doc.template_holes)
    for i in sorted(holes):  # a template hole: the sentence is not the text (schemas.records.TEMPLATE_HOLE)
        inc("filtered:template_hole")
        drops.append(("template_hole", i, doc.sentences[i].text()))
    for i, sent in enumerate(doc.sentences):
        if i in holes:
            continue
        m = single(doc, i, table)
        if m is None:
            continue
        if isinstance(m, Unclean):
            inc(f"filtered:{m.reason}")
            drops.append((m.reason, i, sent.text()))
            continue
        matched.add(i)
        kind, first, second, connective, pron, nominal = m
        keep(_example(doc, kind, first, second, (sent.text(), ""), i, connective, pron, nominal))
    for i in range(len(doc.sentences) - 1):
        if doc.paragraphs[i] != doc.paragraphs[i + 1] or i in holes or i + 1 in holes:
            continue
        m = pair(doc, i, table)
        if isinstance(m, Unclean):
            inc(f"filtered:{m.reason}")
            drops.append((m.reason, i, doc.sentences[i].text() + " " + doc.sentences[i + 1].text()))
            continue
        kind, first, second, connective, pron, nominal = m
        if kind == DT.PAIR_NONE and (not options.pair_none or i in matched or i + 1 in matched):
            continue
        keep(_example(doc, kind, first, second,
                      (doc.sentences[i].text(), doc.sentences[i + 1].text()), i, connective, pron, nominal))
    examples.sort(key=lambda e: (e.sentence_index, e.discourse_type.value))
    return examples, drops
