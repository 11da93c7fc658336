"""A conservative built-in resolver for third-person pronouns.

Used when the annotator has no coreference (spaCy's small model, CoNLL-U).
Precision over recall, as DiscoFuse's anaphora examples must be right
(Geva et al. 2019, §3 use a coreference system; we trade recall for safety):

* only he/him/his/she/her/hers/it/its/they/them/their in subject, object or
  possessive position (reflexives are bound locally and never replaced);
* kinds: he/she and their forms take a person (a PERSON entity, an untyped
  name without an article, or a human noun of a compatible gender: never a
  non-person entity nor "the Moon"); it/its a singular non-person; they/them/
  their a plural noun that is not a person entity;
* competitors are counted liberally (a name the tagger typed ORG may be a
  person) over the pronoun's own sentence, before AND after the pronoun
  ("Tall for his age, Lincoln ...": cataphora), except the subject of the
  pronoun's own clause for an object pronoun ("Apollo killed him": binding
  Principle B), the nouns a subject or object pronoun c-commands in its clause
  ("they were reinforced when the Greeks migrated": Principle C) and the noun
  the possessive modifies;
* the antecedent is the single argument of the earlier clause of the same
  sentence when no competitor stands in the pronoun's clause, or else the
  single competitor of the previous sentence when the pronoun's own sentence
  has none at all (so a pronoun whose own subject could be its antecedent is
  never replaced from another sentence);
* a subject pronoun continues a subject: in its own sentence it never takes the
  earlier clause's object when that clause has a nominal subject; from the
  previous sentence it takes that sentence's main subject when it fits (over
  other fitting nouns only for it/they, when none of them is a subject or
  inside the subject's phrase), and nothing when the subject's kind is unsure;
* an antecedent from the previous sentence is an argument of its main clause;
* coordinated nouns are one antecedent, whole, for they/them/their and none for
  a singular pronoun; expletive "it" ("it seems that", "it is likely that",
  "it is uncertain when") is never resolved; role nouns ("the defendant")
  compete for he/she.
"""
import typing

from miners.nlp.annotation import COREF_BUILTIN, CorefChain, Mention, Sentence

PRONOUNS = {  # form -> (number, gender) ; gender "masc" | "fem" | "thing" | "plural"
    "he": ("sg", "masc"), "him": ("sg", "masc"), "his": ("sg", "masc"),
    "she": ("sg", "fem"), "her": ("sg", "fem"), "hers": ("sg", "fem"),
    "it": ("sg", "thing"), "its": ("sg", "thing"),
    "they": ("pl", "plural"), "them": ("pl", "plural"), "their": ("pl", "plural"),
}
POSSESSIVE = {"his", "her", "its", "their", "hers"}
_ARG_RELS = ("nsubj", "nsubj:pass", "obj", "iobj")
_PRONOUN_RELS = _ARG_RELS + ("nmod:poss",)
# Subjects that stand for a plural set without naming it; a plural pronoun after them is theirs.
_VAGUE_PLURAL_SUBJECTS = frozenset("some many others most several both all these those few".split())
_NP_KEEP = ("det", "amod", "compound", "flat", "flat:name", "nmod:poss", "nummod", "case", "det:predet")
# Parts of a name or compound: the head token stands for the whole.
_NAME_PARTS = ("compound", "flat", "flat:name")
# Roles in which a name the tagger typed ORG/NORP is still counted as a possible person
# (spaCy's small model types many person names ORG; a place in an oblique is rarely one).
_SALIENT_RELS = _ARG_RELS + ("nmod:poss", "conj", "appos")
# Entity types that are never persons (OntoNotes labels, as spaCy and stanza emit them).
_NON_PERSON_TYPES = frozenset("""GPE LOC FAC DATE TIME MONEY PERCENT QUANTITY CARDINAL ORDINAL LANGUAGE
EVENT PRODUCT WORK_OF_ART LAW""".split())
# Human nouns by grammatical gender (English lexical gender; "any" takes he or she).
_HUMAN_MASC = frozenset("""man boy father son brother husband king prince emperor duke lord uncle nephew
grandfather grandson monk priest bishop pope sultan tsar czar count baron earl knight gentleman
businessman chairman spokesman actor waiter god""".split())
_HUMAN_FEM = frozenset("""woman girl mother daughter sister wife queen princess empress duchess lady aunt niece
grandmother granddaughter nun priestess countess baroness actress waitress goddess widow bride
businesswoman chairwoman spokeswoman""".split())
_HUMAN_ANY = frozenset("""person child baby kid parent sibling spouse partner friend president leader
minister officer soldier general captain commander author writer poet artist painter composer singer
musician player athlete coach teacher student scientist doctor physician lawyer judge politician
philosopher historian governor senator mayor chief founder owner manager director member citizen
worker farmer merchant ruler monarch heir successor predecessor candidate champion hero victim
individual scholar professor engineer inventor explorer pilot astronaut""".split())


def np_span(sent: Sentence, head: int) -> typing.Optional[typing.Tuple[int, int]]:
    """The core noun phrase of `head` (determiners, modifiers, compounds, possessors) as [start, end)."""
    keep = {head}
    for c in sent.children(head):
        if sent.tokens[c].deprel in _NP_KEEP and sent.tokens[c].deprel != "case":
            keep.update(k for k in sent.subtree(c) if sent.tokens[k].deprel != "punct")
        elif sent.tokens[c].deprel == "nmod" and c > head and _of_complement(sent, c):
            # "the molecular structure of the alkanes": without it the phrase names something else
            keep.update(sent.subtree(c))
    lo, hi = min(keep), max(keep) + 1
    if len(keep) != hi - lo:
        return None
    # an NP should not end in its own possessive clitic
    if sent.tokens[hi - 1].text in ("'s", "'") and sent.tokens[head].deprel != "nmod:poss":
        return None
    return lo, hi


def _of_complement(sent: Sentence, c: int) -> bool:
    """Noun c is a short "of" complement (no clause, comma or bracket inside)."""
    sub = sent.subtree(c)
    first = sent.tokens[sub[0]]
    return first.text.lower() == "of" and first.head == c and len(sub) <= 6 and sub == list(
        range(sub[0], sub[-1] + 1)) and not any(sent.tokens[k].upos in ("VERB", "AUX", "PUNCT", "CCONJ")
                                                for k in sub)


def _entity_type(t) -> str:
    return t.ner[2:] if t.ner[:2] in ("B-", "I-") else ""


def _has_article(sent: Sentence, i: int) -> bool:
    return any(sent.tokens[c].deprel == "det" and sent.tokens[c].text.lower() in ("the", "a", "an")
               for c in sent.children(i))


# Role nouns that name people without being in the human lists above ("the defendant ... he"):
# liberal competitors only (never copied in for he/she), so that a person named by a role in the
# pronoun's own sentence keeps the pronoun from being resolved to someone else.
_ROLE_NOUNS = frozenset("""defendant plaintiff appellant appellee respondent petitioner claimant party tenant
landlord employer employee customer client patient user buyer seller speaker reader viewer narrator
protagonist character villain opponent rival ally enemy prisoner suspect witness juror jury voter resident
citizen immigrant refugee pupil apprentice servant slave master employee heir""".split())
# Agent-noun endings ("appellant", "commentator", "novelist", "trustee"); counted as possible
# persons only in argument roles, where they most often are.
_ROLE_SUFFIXES = ("ant", "ent", "ist", "ian", "ee", "iff", "er", "or")


def _role_noun(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    lemma = t.lemma.lower()
    return lemma in _ROLE_NOUNS or t.deprel in _ARG_RELS and lemma.endswith(_ROLE_SUFFIXES)


def _human_gender(lemma: str) -> str:
    lemma = lemma.lower()
    if lemma in _HUMAN_MASC:
        return "masc"
    if lemma in _HUMAN_FEM:
        return "fem"
    return "any" if lemma in _HUMAN_ANY else ""


def _name_part(sent: Sentence, i: int) -> bool:
    """Token i is a non-final part of a name or compound ("Hebden" of "Hebden Bridge"); a name
    compounded with a common noun ("gave Aristotle cause") still names someone."""
    t = sent.tokens[i]
    if t.deprel not in _NAME_PARTS:
        return False
    return t.upos != "PROPN" or t.head == -1 or sent.tokens[t.head].upos == "PROPN"


def _may_be_person(sent: Sentence, i: int, gender: str) -> bool:
    """Liberal: could token i name a person of this gender? (a competitor)"""
    t = sent.tokens[i]
    if t.upos not in ("NOUN", "PROPN") or _name_part(sent, i):
        return False
    etype = _entity_type(t)
    if etype == "PERSON":
        return True
    if t.upos == "NOUN":
        g = _human_gender(t.lemma)
        return t.xpos == "NN" and (g in ("any", gender) or not g and _role_noun(sent, i))
    if etype in _NON_PERSON_TYPES or t.ner.startswith("I-") or _has_article(sent, i):
        return False  # inside a non-person entity ("the Temple of Apollo"), or "the Moon"
    # (a name left here in a compound modifies a common noun: "gave Aristotle cause")
    return etype == "" or t.deprel in _SALIENT_RELS + _NAME_PARTS


def _is_person(sent: Sentence, i: int, gender: str) -> bool:
    """Strict: token i may be copied in for he/she (a candidate)."""
    t = sent.tokens[i]
    if not _may_be_person(sent, i, gender):
        return False
    if t.upos == "NOUN":
        return _human_gender(t.lemma) in ("any", gender)  # a singular human noun of a compatible gender
    return t.xpos == "NNP" and not _has_article(sent, i) and _entity_type(t) in ("PERSON", "")


def _may_be_thing(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    if t.upos not in ("NOUN", "PROPN") or _name_part(sent, i) or t.xpos in ("NNS", "NNPS"):
        return False
    return _entity_type(t) != "PERSON" and not (t.upos == "NOUN" and _human_gender(t.lemma))


def _is_thing(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    return _may_be_thing(sent, i) and (t.upos == "NOUN" or _entity_type(t) not in ("", "PERSON"))


def _may_be_plural(sent: Sentence, i: int) -> bool:
    """A plural noun, or the first of coordinated ones ("North Carolina and Georgia ... their"), or
    a people named by "the" and a nationality ("the British", whatever the tagger made of it)."""
    t = sent.tokens[i]
    if _entity_type(t) == "NORP" and i > 0 and sent.tokens[i - 1].text.lower() == "the" and \
            not t.text.lower().endswith("s"):
        return True
    if t.upos not in ("NOUN", "PROPN") or _name_part(sent, i) or t.deprel == "conj":
        return False
    return t.xpos in ("NNS", "NNPS") or any(sent.tokens[c].deprel == "conj" for c in sent.children(i))


def _is_plural_thing(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    return t.xpos in ("NNS", "NNPS") and _may_be_plural(sent, i) and _entity_type(t) != "PERSON"


def _competitor(sent: Sentence, i: int, gender: str) -> bool:
    if gender in ("masc", "fem"):
        return _may_be_person(sent, i, gender)
    return _may_be_thing(sent, i) if gender == "thing" else _may_be_plural(sent, i)


def _candidate(sent: Sentence, i: int, gender: str) -> bool:
    if sent.tokens[i].deprel not in _ARG_RELS:
        return False
    if gender in ("masc", "fem"):
        return _is_person(sent, i, gender)
    return _is_thing(sent, i) if gender == "thing" else _is_plural_thing(sent, i)


def _fits_person(t) -> bool:
    return t.upos == "PROPN" and (t.ner.endswith("PERSON") or t.ner == "O") and t.deprel != "compound"


def _clause_start(sent: Sentence, i: int) -> int:
    """Start of the clause holding token i: the left edge of its nearest verbal ancestor's conj/advcl subtree."""
    k = i
    while k != -1:
        t = sent.tokens[k]
        if t.deprel in ("conj", "advcl", "parataxis") and t.upos in ("VERB", "AUX"):
            return min(sent.subtree(k))
        k = t.head
    return 0


def _not_antecedents(sent: Sentence, i: int) -> typing.Set[int]:
    """Tokens that cannot be the antecedent of pronoun i: itself, the nouns its possessive
    phrase hangs from ("its industry"), and for an object pronoun its clause-mate subject
    ("Apollo killed him": Principle B)."""
    t = sent.tokens[i]
    out = {i}
    k = t.head
    while k != -1 and sent.tokens[k].upos in ("NOUN", "PROPN"):
        out.add(k)
        k = sent.tokens[k].head
    if t.deprel in ("obj", "iobj") and t.head != -1:
        out.update(c for c in sent.children(t.head) if sent.tokens[c].deprel in ("nsubj", "nsubj:pass"))
        # Principle C: nouns the object pronoun c-commands (later in its clause)
        out.update(k for k in sent.subtree(t.head) if k > i)
    if t.deprel in ("nsubj", "nsubj:pass") and t.head != -1:
        # Principle C: a subject pronoun c-commands its whole clause ("they were reinforced
        # when the Greeks migrated": "they" is not "the Greeks")
        # (only what follows it: "When Lincoln arrived, he ..." may corefer)
        out.update(k for k in sent.subtree(t.head) if k > i)
    return out


def _coordinated(sent: Sentence, i: int) -> bool:
    """Pronoun i is coordinated with something ("his or her", "him and his wife")."""
    t = sent.tokens[i]
    if t.deprel == "conj" or any(sent.tokens[c].deprel in ("cc", "conj") for c in sent.children(i)):
        return True
    # "his or her" parsed as two possessives of one noun
    for cc, other in ((i - 1, i - 2), (i + 1, i + 2)):
        if 0 <= min(cc, other) and max(cc, other) < len(sent.tokens) and \
                sent.tokens[cc].text.lower() in ("and", "or", "/") and sent.tokens[other].upos == "PRON":
            return True
    return False


def _same_class(t, number: str, gender: str) -> bool:
    return t.text.lower() in PRONOUNS and PRONOUNS[t.text.lower()] == (number, gender)


def _antecedent(sentences, s: int, i: int):
    """(sentence, token) of the single antecedent of pronoun i of sentence s, or None."""
    sent = sentences[s]
    number, gender = PRONOUNS[sent.tokens[i].text.lower()]
    excluded = _not_antecedents(sent, i)
    own = [k for k in range(len(sent.tokens)) if k not in excluded and _competitor(sent, k, gender)]
    start = _clause_start(sent, i)
    if number == "pl":
        # "they" may stand for several people named in the context ("X ..., while Y ..."):
        # with two or more people in view, leave it unresolved.
        context = list(sentences[s - 1].tokens if s > 0 and sentences[s - 1].parsed else ()) + \
            list(sent.tokens[:i])
        if sum(1 for tok in context if _fits_person(tok)) >= 2:
            return None
    if own:
        # within the sentence: the one argument of an earlier clause, nothing that fits in the
        # pronoun's own clause, and no other fitting noun before it unless subject picks up
        # subject ("English is spoken among the population, though it is understood ...")
        if start == 0:
            return None
        inner = [k for k in range(0, start) if k not in excluded and _candidate(sent, k, gender)]
        rest = [k for k in own if k >= start]
        if len(inner) != 1 or rest:
            return None
        c = inner[0]
        subjects = ("nsubj", "nsubj:pass")
        parallel = sent.tokens[c].deprel in subjects and sent.tokens[i].deprel in subjects
        if len(own) != 1 and not parallel:
            return None
        if any(c < k < i and (sent.tokens[k].deprel in _ARG_RELS or _entity_type(sent.tokens[k]) == "NORP")
               for k in own):
            return None  # a nearer argument fits too ("... the Americans ... the British retreat because they")
        if sent.tokens[i].deprel in subjects and not parallel and any(
                sent.tokens[k].deprel in subjects and sent.tokens[k].upos in ("NOUN", "PROPN")
                for k in range(0, start)):
            # a subject pronoun continues the earlier clause's subject, not its object ("The aardwolf
            # has not seen decreasing numbers and they are widespread" is no "Numbers are ...")
            return None
        if any(_same_class(sent.tokens[k], number, gender) for k in range(c + 1, i)):
            return None  # another pronoun of the same kind in between may start another chain
        return s, c
    if s == 0 or not sentences[s - 1].parsed:
        return None
    if number == "pl" and any(t.deprel in ("nsubj", "nsubj:pass") and t.text.lower() in _VAGUE_PLURAL_SUBJECTS
                              for t in sent.tokens[:i]):
        return None  # "Some use inertial feeding to help them swallow": "them" are the "Some"
    prev = sentences[s - 1]
    fits = [k for k in range(len(prev.tokens)) if _competitor(prev, k, gender)]
    subject = _main_subject(prev)
    if sent.tokens[i].deprel in ("nsubj", "nsubj:pass") and subject is not None:
        # a subject pronoun continues the previous sentence's subject ("Caecilians resemble
        # earthworms ... . They burrow ..."): take it when it fits, and when the parse cannot
        # tell whether it fits, take nothing rather than a nearer noun
        others = [k for k in fits if k != subject]
        # over other fitting nouns only for it/they, only when none of them is a subject too ("X
        # reported that Algeria had ... . It also ranks" is Algeria's) and none stands inside the
        # subject's own phrase ("the population of the Corridor ... . It is a region"); a name's
        # gender is unknown, so "she" never prefers a name over "a woman named ..."
        preferred = not others or gender in ("thing", "plural") and not any(
            prev.tokens[k].deprel in ("nsubj", "nsubj:pass") or k in prev.subtree(subject) or k < subject
            for k in others)  # nor after another fitting noun ("With these telescopes, ... the mechanics")
        if subject in fits and _candidate(prev, subject, gender) and preferred:
            fits = [subject]
        elif subject not in fits and not _incompatible(prev, subject, gender):
            return None
    if len(fits) != 1 or not _candidate(prev, fits[0], gender) or not _in_main_clause(prev, fits[0]):
        return None
    if any(_same_class(prev.tokens[k], number, gender) for k in range(fits[0])):
        # A pronoun of the same kind opens the previous sentence before its one candidate ("they
        # tend to be more active ... bright or dark nights" + "they will retreat"): both pronouns
        # most likely continue a chain whose name is out of view.
        return None
    return s - 1, fits[0]


# Predicates whose subject "it" is mostly a dummy ("it seems that", "it happened that").
_RAISING = frozenset("seem appear happen follow transpire turn".split())


def _expletive(sent: Sentence, i: int) -> bool:
    """Subject "it" of a predicate with a clausal complement ("it may be asserted that ...",
    "it is likely that ...", "it is easy to see ...") or of a raising verb: no referent."""
    t = sent.tokens[i]
    if t.deprel not in ("nsubj", "nsubj:pass", "expl") or t.head == -1:
        return t.deprel == "expl"
    h = t.head
    if t.deprel == "expl" or sent.tokens[h].lemma.lower() in _RAISING:
        return True
    heads = [h] + [c for c in sent.children(h) if sent.tokens[c].deprel == "xcomp"]
    # after an adjective ("it is uncertain when ...", "it is unclear whether ...") a wh-clause too
    adjectival = any(sent.tokens[x].upos == "ADJ" for x in heads)
    openers = ("to", "that") + (_WH_OPENERS if adjectival else ())
    for x in heads:
        for c in sent.children(x):
            d = sent.tokens[c].deprel
            if d in ("ccomp", "csubj", "csubj:pass") and c > i:
                return True
            if d in ("xcomp", "advcl") and c > i and sent.tokens[c].upos in ("VERB", "AUX") and any(
                    sent.tokens[m].text.lower() in openers and m < c for m in sent.subtree(c)
                    if sent.tokens[m].head in (c,) or sent.tokens[sent.tokens[m].head].head == c):
                return True
    return False


_WH_OPENERS = ("whether", "if", "when", "where", "why", "how", "what", "who", "which")


def _in_main_clause(sent: Sentence, i: int) -> bool:
    """Token i is an argument of the root or of a verb coordinated with it, not of a subordinate
    clause ("..., as was Nostalghia in 1983. His last film ..." is not Nostalghia's)."""
    h = sent.tokens[i].head
    while h != -1 and sent.tokens[h].deprel == "conj":
        h = sent.tokens[h].head
    return h != -1 and sent.tokens[h].head == -1


def _main_subject(sent: Sentence):
    """The nominal subject of the sentence's root (the head of the last part of a name), or None."""
    root = next((k for k, t in enumerate(sent.tokens) if t.head == -1), None)
    if root is None:
        return None
    for c in sent.children(root):
        if sent.tokens[c].deprel in ("nsubj", "nsubj:pass") and sent.tokens[c].upos in ("NOUN", "PROPN"):
            return c
    return None


def _incompatible(sent: Sentence, i: int, gender: str) -> bool:
    """Token i (a noun the parse did not count as a competitor) surely cannot be this pronoun's."""
    t = sent.tokens[i]
    conj = any(sent.tokens[c].deprel == "conj" for c in sent.children(i))
    if gender == "plural":
        # a name tagged singular may be a plural ("Caecilians/NNP")
        return not conj and (t.xpos == "NN" or t.xpos == "NNP" and not t.text.lower().endswith("s"))
    if gender == "thing":
        return conj or t.xpos in ("NNS", "NNPS") or _entity_type(t) == "PERSON" or \
            t.upos == "NOUN" and bool(_human_gender(t.lemma))
    # he / she: a plural, a coordination or a non-person entity
    return conj or t.xpos in ("NNS", "NNPS") or _entity_type(t) in _NON_PERSON_TYPES or \
        t.upos == "NOUN" and _human_gender(t.lemma) not in ("", "any", gender) or \
        t.upos == "NOUN" and not _human_gender(t.lemma) and not _role_noun(sent, i)


def coordinated_span(sent: Sentence, head: int):
    """[start, end) of a noun coordinated with its conjuncts ("municipal governments and school
    boards"), each conjunct as its core noun phrase; None when that is not one contiguous phrase."""
    first = np_span(sent, head)
    if first is None:
        return None
    keep = set(range(*first))
    for c in sent.children(head):
        d = sent.tokens[c].deprel
        if d == "conj":
            span = np_span(sent, c)
            if span is None or sent.tokens[c].upos not in ("NOUN", "PROPN"):
                return None
            keep.update(range(*span))
        elif d in ("cc", "punct") and c > head:
            keep.add(c)
    lo, hi = min(keep), max(keep) + 1
    return (lo, hi) if len(keep) == hi - lo else None


def resolve(sentences: typing.Sequence[Sentence]) -> typing.Tuple[CorefChain, ...]:
    """Chains (antecedent, pronoun) for the pronouns that have exactly one fitting antecedent."""
    chains = []
    for s, sent in enumerate(sentences):
        if not sent.parsed:
            continue
        for i, t in enumerate(sent.tokens):
            form = t.text.lower()
            if form not in PRONOUNS or t.upos != "PRON" and form not in POSSESSIVE:
                continue
            if form == "her" and t.deprel != "nmod:poss" and t.deprel not in ("obj", "iobj"):
                continue
            if t.deprel not in _PRONOUN_RELS:
                continue
            if _coordinated(sent, i):
                continue  # "his or her": not one entity
            if form == "it" and _expletive(sent, i):
                continue  # "it may be asserted that ...", "it seems likely that ...
            found = _antecedent(sentences, s, i)
            if found is None:
                continue
            cs, ci = found
            csent = sentences[cs]
            if any(csent.tokens[c].deprel == "conj" for c in csent.children(ci)):
                # coordinated nouns: all of them for "they" (number agreement), none for a singular
                if PRONOUNS[form][0] != "pl":
                    continue
                span = coordinated_span(csent, ci)
            else:
                span = np_span(csent, ci)
            if span is None or any(tok.upos == "PRON" for tok in sentences[cs].tokens[span[0]:span[1]]):
                continue  # copying "their states" would only move the problem
            chains.append(CorefChain((Mention(cs, *span), Mention(s, i, i + 1)), 0, COREF_BUILTIN))
    return tuple(chains)
