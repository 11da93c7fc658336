"""A conservative built-in resolver for third-person pronouns.

Used when the annotator has no coreference (spaCy's small model, CoNLL-U).
Precision over recall, as DiscoFuse's anaphora examples must be right
(Geva et al. 2019, §3 use a coreference system; we trade recall for safety):

* only he/him/his/she/her/hers/it/its/they/them/their in subject, object or
  possessive position;
* candidates are the heads of subject/object noun phrases of the previous
  sentence, or of the earlier clause of the same sentence (left of the
  pronoun's clause), agreeing in number (PTB NNS/NNPS = plural) and gender
  (he/she: a PERSON entity; it: a singular non-PERSON noun; they: a plural
  noun that is not a PERSON entity);
* a pronoun is resolved only when exactly one candidate fits overall and no
  fitting noun stands between it and the candidate in its own sentence.
"""
import typing

from miners.nlp.annotation import COREF_BUILTIN, CorefChain, Mention, Sentence

PRONOUNS = {  # form -> (number, gender) ; gender "person" | "thing" | "any"
    "he": ("sg", "person"), "him": ("sg", "person"), "his": ("sg", "person"),
    "she": ("sg", "person"), "her": ("sg", "person"), "hers": ("sg", "person"),
    "it": ("sg", "thing"), "its": ("sg", "thing"),
    "they": ("pl", "plural"), "them": ("pl", "plural"), "their": ("pl", "plural"),
}
POSSESSIVE = {"his", "her", "its", "their", "hers"}
_ARG_RELS = ("nsubj", "nsubj:pass", "obj", "iobj")
_PRONOUN_RELS = _ARG_RELS + ("nmod:poss",)
_NP_KEEP = ("det", "amod", "compound", "flat", "flat:name", "nmod:poss", "nummod", "case", "det:predet")


def np_span(sent: Sentence, head: int) -> typing.Optional[typing.Tuple[int, int]]:
    """The core noun phrase of `head` (determiners, modifiers, compounds, possessors) as [start, end)."""
    keep = {head}
    for c in sent.children(head):
        if sent.tokens[c].deprel in _NP_KEEP and sent.tokens[c].deprel != "case":
            keep.update(k for k in sent.subtree(c) if sent.tokens[k].deprel != "punct")
    lo, hi = min(keep), max(keep) + 1
    if len(keep) != hi - lo:
        return None
    # an NP should not end in its own possessive clitic
    if sent.tokens[hi - 1].text in ("'s", "'") and sent.tokens[head].deprel != "nmod:poss":
        return None
    return lo, hi


def _fits(sent: Sentence, i: int, number: str, gender: str) -> bool:
    t = sent.tokens[i]
    if t.upos not in ("NOUN", "PROPN") or not t.xpos.startswith("NN"):
        return False
    plural = t.xpos in ("NNS", "NNPS")
    person = t.ner.endswith("PERSON")
    untyped_name = t.upos == "PROPN" and t.ner == "O"
    if number == "sg" and plural or number == "pl" and not plural:
        return False
    if gender == "person":  # a PERSON entity, or a name the tagger left untyped
        return person or untyped_name
    if gender == "thing":  # a common noun, or a name typed as a non-person
        return not person and (t.upos == "NOUN" or t.ner != "O")
    return not person


def _fits_person(t) -> bool:
    return t.upos == "PROPN" and (t.ner.endswith("PERSON") or t.ner == "O") and t.deprel != "compound"


def _candidates(sent: Sentence, lo: int, hi: int, number, gender):
    return [i for i in range(lo, hi)
            if sent.tokens[i].deprel in _ARG_RELS and _fits(sent, i, number, gender)]


def _any_fit(sent: Sentence, lo: int, hi: int, number, gender):
    return [i for i in range(lo, hi) if _fits(sent, i, number, gender)]


def _clause_start(sent: Sentence, i: int) -> int:
    """Start of the clause holding token i: the left edge of its nearest verbal ancestor's conj/advcl subtree."""
    k = i
    while k != -1:
        t = sent.tokens[k]
        if t.deprel in ("conj", "advcl", "parataxis") and t.upos in ("VERB", "AUX"):
            return min(sent.subtree(k))
        k = t.head
    return 0


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
            number, gender = PRONOUNS[form]
            start = _clause_start(sent, i)
            inner = _candidates(sent, 0, start, number, gender) if start > 0 else []
            # any fitting noun between the clause start and the pronoun makes it ambiguous
            between = _any_fit(sent, start, i, number, gender)
            before_clause = _any_fit(sent, 0, start, number, gender)
            previous = []
            if s > 0 and sentences[s - 1].parsed and not before_clause:
                prev = sentences[s - 1]
                previous = _candidates(prev, 0, len(prev.tokens), number, gender)
                if len(_any_fit(prev, 0, len(prev.tokens), number, gender)) != len(previous):
                    previous = previous + [None]  # a fitting noun in another role: ambiguous
            found = [(s, c) for c in inner] + [(s - 1, c) for c in previous]
            if number == "pl":
                # "they" may stand for several people named in the context ("X ..., while Y ..."):
                # with two or more people in view, leave it unresolved.
                context = list(sentences[s - 1].tokens if s > 0 and sentences[s - 1].parsed else ()) + \
                    list(sent.tokens[:i])
                if sum(1 for tok in context if _fits_person(tok)) >= 2:
                    continue
            if between or len(found) != 1 or found[0][1] is None:
                continue
            cs, ci = found[0]
            span = np_span(sentences[cs], ci)
            if span is None:
                continue
            chains.append(CorefChain((Mention(cs, *span), Mention(s, i, i + 1)), 0, COREF_BUILTIN))
    return tuple(chains)
