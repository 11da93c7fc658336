"""A conservative resolver for French third-person subject pronouns (il, elle, ils, elles).

The French counterpart of miners/discofuse/coref.py, for the French DiscoFuse rules
(miners/discofuse/french.py). French nouns carry grammatical gender and number, and spaCy's
French model tags them (`Gender=Masc|Fem`, `Number=Sing|Plur` in `Token.feats`), so agreement
does most of the work that English's lists of human nouns do:

* only subject pronouns (`nsubj`, `nsubj:pass`): the object clitics le / la / les / l' stand
  before the verb, where no noun phrase can replace them, and are never resolved;
* never an impersonal "il" (`expl:subj`, "il y a", "il faut", "il s'agit", "il semble",
  "il est difficile de ...");
* the antecedent agrees with the pronoun in gender and number (il: Masc Sing, elle: Fem Sing,
  ils: Plur and not Fem, elles: Fem Plur); a noun without gender or number is never taken;
* within a sentence, the pronoun stands in a later clause (coordinated, subordinate or
  parenthetical) and takes the nominal subject of the sentence's first clause; from the previous
  sentence, the subject of its main clause;
* any other agreeing noun in an argument role (subject, object, `obl:arg`) before the pronoun,
  in the candidate's sentence or the pronoun's, or inside the candidate's own phrase ("le fils
  du roi ..., il"), leaves it unresolved; coordinated subjects are never taken.
"""
import typing

from miners.nlp.annotation import COREF_BUILTIN, CorefChain, Mention, Sentence

PRONOUNS = {  # form -> (number, gender) the antecedent's head noun must have (a mixed group is Masc: ils)
    "il": ("Sing", "Masc"), "elle": ("Sing", "Fem"), "ils": ("Plur", "Masc"), "elles": ("Plur", "Fem"),
}
_SUBJECT_RELS = ("nsubj", "nsubj:pass")
_ARG_RELS = ("nsubj", "nsubj:pass", "obj", "iobj", "obl:arg")
# Verbs whose subject "il" is impersonal (il faut, il s'agit de, il semble que, il existe, il reste).
_IMPERSONAL_VERBS = frozenset("falloir agir sembler paraître exister rester suffire valoir manquer pleuvoir "
                              "neiger importer convenir arriver advenir".split())
# Phrase parts: "Louis Bastien" is one noun (its head), "de" complements stay with their noun.
_NP_KEEP = ("det", "amod", "flat:name", "flat:foreign", "nummod", "fixed")


def feats(tok) -> typing.Dict[str, str]:
    """UD features of a token as a dict ({} when none)."""
    return dict(kv.split("=", 1) for kv in (tok.feats or "").split("|") if "=" in kv)


def agrees(tok, number: str, gender: str) -> bool:
    """The noun `tok` is tagged with this number and this gender (a noun without them agrees with nothing)."""
    f = feats(tok)
    if f.get("Number") != number:
        return False
    return f.get("Gender") == gender


def np_span(sent: Sentence, head: int) -> typing.Optional[typing.Tuple[int, int]]:
    """The core noun phrase of `head`: determiners, adjectives, name parts and a short "de"
    complement ("le président de la République"); None when that is not contiguous."""
    toks = sent.tokens
    keep = {head}
    for c in sent.children(head):
        d = toks[c].deprel
        if d in _NP_KEEP:
            keep.update(k for k in sent.subtree(c) if toks[k].deprel != "punct")
        elif d == "nmod" and c > head:
            sub = sent.subtree(c)
            if len(sub) <= 5 and toks[sub[0]].text.lower() in ("de", "d'", "du", "des") and \
                    sub == list(range(sub[0], sub[-1] + 1)) and \
                    not any(toks[k].upos in ("VERB", "AUX", "PUNCT", "CCONJ", "PRON") for k in sub):
                keep.update(sub)
    lo, hi = min(keep), max(keep) + 1
    if len(keep) != hi - lo or any(toks[k].upos in ("PRON", "VERB", "AUX") for k in keep):
        return None
    return lo, hi


def impersonal(sent: Sentence, i: int) -> bool:
    """Pronoun i is an impersonal "il" ("il y a", "il faut", "il est difficile de ...")."""
    toks = sent.tokens
    t = toks[i]
    if t.deprel.startswith("expl") or t.text.lower() != "il":
        return t.deprel.startswith("expl")
    h = t.head
    if h < 0:
        return False
    kids = sent.children(h)
    if toks[h].lemma.lower() in _IMPERSONAL_VERBS:
        return True
    if any(toks[c].text.lower() == "y" for c in kids) and toks[h].lemma.lower() == "avoir":
        return True  # il y a
    if any(toks[c].deprel == "cop" for c in kids) and any(
            toks[c].deprel in ("ccomp", "csubj", "xcomp", "advcl") and c > h for c in kids):
        return True  # il est difficile de / que ...
    if any(toks[c].deprel == "expl:comp" and toks[c].text.lower() in ("se", "s'") for c in kids) and \
            toks[h].lemma.lower() in _IMPERSONAL_VERBS:
        return True
    return False


def _clause_start(sent: Sentence, i: int) -> int:
    """Left edge of the nearest clause above token i that is not the main one (conj, advcl, ...)."""
    k = i
    while k != -1:
        t = sent.tokens[k]
        if t.deprel in ("conj", "advcl", "parataxis", "ccomp") and t.upos in ("VERB", "AUX", "ADJ", "NOUN"):
            if t.deprel != "conj" or sent.tokens[t.head].upos in ("VERB", "AUX", "ADJ", "NOUN", "PROPN"):
                return min(sent.subtree(k))
        k = t.head
    return 0


def _main_subject(sent: Sentence) -> typing.Optional[int]:
    root = sent.root()
    if root < 0:
        return None
    for c in sent.children(root):
        if sent.tokens[c].deprel in _SUBJECT_RELS and sent.tokens[c].upos in ("NOUN", "PROPN"):
            return c
    return None


def _competitors(sent: Sentence, stop: int, number: str, gender: str, candidate: int) -> bool:
    """Another agreeing noun before `stop`: an argument anywhere, or any noun inside the candidate's phrase."""
    toks = sent.tokens
    inside = set(sent.subtree(candidate)) if candidate is not None else set()
    for k in range(min(stop, len(toks))):
        t = toks[k]
        if k == candidate or t.upos not in ("NOUN", "PROPN") or t.deprel in ("flat:name", "flat:foreign"):
            continue
        if not agrees(t, number, gender):
            continue
        if t.deprel in _ARG_RELS or k in inside:
            return True
    return False


def _fits(sent: Sentence, c: int, number: str, gender: str) -> bool:
    t = sent.tokens[c]
    if t.upos not in ("NOUN", "PROPN") or not agrees(t, number, gender):
        return False
    return not any(sent.tokens[k].deprel in ("conj", "cc") for k in sent.children(c))


def antecedent(sentences: typing.Sequence[Sentence], s: int, i: int):
    """(sentence, token) of the one antecedent of subject pronoun i of sentence s, or None."""
    sent = sentences[s]
    number, gender = PRONOUNS[sent.tokens[i].text.lower()]
    start = _clause_start(sent, i)
    if start > 0:
        c = _main_subject(sent)
        if c is None or c >= start or not _fits(sent, c, number, gender):
            return None
        if _competitors(sent, i, number, gender, c):
            return None
        return s, c
    if s == 0 or not sentences[s - 1].parsed or any(
            t.upos in ("NOUN", "PROPN") and agrees(t, number, gender) and t.deprel in _ARG_RELS
            for t in sent.tokens[:i]):
        return None
    prev = sentences[s - 1]
    c = _main_subject(prev)
    if c is None or not _fits(prev, c, number, gender) or \
            _competitors(prev, len(prev.tokens), number, gender, c):
        return None
    return s - 1, c


def resolve(sentences: typing.Sequence[Sentence]) -> typing.Tuple[CorefChain, ...]:
    """Chains (antecedent, pronoun) for the subject pronouns that have exactly one agreeing antecedent."""
    chains = []
    for s, sent in enumerate(sentences):
        if not sent.parsed:
            continue
        for i, t in enumerate(sent.tokens):
            if t.text.lower() not in PRONOUNS or t.upos != "PRON" or t.deprel not in _SUBJECT_RELS:
                continue
            if impersonal(sent, i):
                continue
            found = antecedent(sentences, s, i)
            if found is None:
                continue
            cs, ci = found
            span = np_span(sentences[cs], ci)
            if span is None:
                continue
            chains.append(CorefChain((Mention(cs, *span), Mention(s, i, i + 1)), 0, COREF_BUILTIN))
    return tuple(chains)
