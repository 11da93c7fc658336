"""A conservative resolver for French third-person subject pronouns (il, elle, ils, elles).

The French counterpart of miners/discofuse/coref.py, for the French DiscoFuse rules
(miners/discofuse/french.py). French nouns carry grammatical gender and number, and spaCy's
French model tags them (`Gender=Masc|Fem`, `Number=Sing|Plur` in `Token.feats`), so agreement
does most of the work that English's lists of human nouns do:

* only subject pronouns (`nsubj`, `nsubj:pass`): the object clitics le / la / les / l' stand
  before the verb, where no noun phrase can replace them, and are never resolved;
* never an impersonal "il" (`expl:subj`, "il y a", "il faut", "il s'agit", "il semble",
  "il est difficile de ...", "il est recommandé de ...": by the parse or by the words after it);
* the antecedent agrees with the pronoun in gender and number (il: Masc Sing, elle: Fem Sing,
  ils: Plur and not Fem, elles: Fem Plur); a noun without gender or number is never taken;
* within a sentence, the pronoun stands in a later clause (coordinated, subordinate or
  parenthetical) and takes the nominal subject of the sentence's first clause; from the previous
  sentence, the subject of its main clause (before its verb, and the verb's only subject);
* any other noun before the pronoun, in any role, in the candidate's sentence or the pronoun's,
  that the pronoun could name (the same number; for il/elle the same gender or none tagged)
  leaves it unresolved: declined, not guessed ("... à l'aide du programme dirvish . Il emploie");
  coordinated subjects are never taken;
* a pronoun in a clause fronted before its sentence's main verb, whose subject is a noun after it,
  may point ahead ("Qu'il soit ... ou non, un shell interactif est ..."): unresolved.

What a subject pronoun of a verb that wants a person may take (`person_antecedent`, read when the
French rules substitute: miners/discofuse/french.py) is checked there, not here: "il reçut la
médaille", "il refusa de croire" need an antecedent that can be a person (`PERSON_VERBS`).
"""
import typing

from miners.nlp.annotation import COREF_BUILTIN, CorefChain, Mention, Sentence

PRONOUNS = {  # form -> (number, gender) the antecedent's head noun must have (a mixed group is Masc: ils)
    "il": ("Sing", "Masc"), "elle": ("Sing", "Fem"), "ils": ("Plur", "Masc"), "elles": ("Plur", "Fem"),
}
_SUBJECT_RELS = ("nsubj", "nsubj:pass")
# Verbs whose subject "il" is impersonal (il faut, il s'agit de, il semble que, il existe, il reste).
_IMPERSONAL_VERBS = frozenset("falloir agir sembler paraître exister rester suffire valoir manquer pleuvoir "
                              "neiger importer convenir arriver advenir".split())
# Phrase parts: "Louis Bastien" is one noun (its head), "de" complements stay with their noun.
_NP_KEEP = ("det", "amod", "flat:name", "flat:foreign", "nummod", "fixed")


# Verbs (lemmas) whose subject is a person: a subject pronoun of one of them needs an antecedent that can
# be a person ("Le chalet fut réduit en cendres. Il reçut la médaille" is no chalet's medal).
PERSON_VERBS = frozenset("""croire penser dire déclarer affirmer avouer décider vouloir refuser souhaiter espérer
promettre épouser naître mourir démissionner""".split())
# recevoir wants a person only with an honour as its object ("il reçut la médaille"; a film receives a prize).
PERSON_OBJECTS = {"recevoir": frozenset("médaille décoration diplôme baptême".split())}
# Common nouns that name a person: the only common nouns such a pronoun may take.
PERSON_NOUNS = frozenset("""homme femme enfant fils fille père mère frère sœur oncle tante neveu nièce cousin
cousine époux épouse mari veuve veuf roi reine prince princesse empereur impératrice duc duchesse comte comtesse
baron baronne chevalier pape évêque prêtre moine abbé président présidente ministre maire député sénateur
général officier soldat capitaine auteur écrivain poète peintre sculpteur acteur actrice chanteur chanteuse
musicien musicienne compositeur joueur joueuse entraîneur professeur élève étudiant étudiante chercheur savant
philosophe architecte ingénieur médecin avocat juge journaliste artiste producteur réalisateur directeur
directrice fondateur fondatrice héros héroïne personnage habitant citoyen garçon dame seigneur""".split())
_PERSON_NER = ("PER", "PERSON")

# Heads of a phrase that points back by position, not by name: "ce dernier" (the latter), "le premier"
# (the former), "celui-ci", "l'un", "l'autre". Written again in a new sentence they point at whatever that
# sentence's context names last ("... contre Richelieu." + "Ce dernier fut exilé" is Richelieu).
POSITIONAL_HEADS = frozenset("dernier dernière derniers dernières premier première premiers premières "
                             "second seconde seconds secondes autre autres un une uns unes".split())
_DEMONSTRATIVE_PRONOUNS = frozenset("celui celle ceux celles celui-ci celle-ci ceux-ci celles-ci celui-là "
                                    "celle-là ceux-là celles-là".split())


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
    if hi < len(toks) and toks[hi].upos != "PUNCT":
        x, seen = hi, set()
        while toks[x].head not in (head, -1) and x not in seen:
            seen.add(x)
            x = toks[x].head
        if toks[x].head == head and toks[x].deprel in ("nmod", "amod", "nummod", "compound", "fixed", "flat:name"):
            return None  # a complement right after it, left out, would cut the phrase: "Des mises à jour"
    return lo, hi


def positional(sent: Sentence, n: int, lo: int, hi: int) -> bool:
    """The phrase [lo, hi) of head n points back by position ("ce dernier", "le premier", "celui-ci",
    "l'autre"): written again in a new sentence it would name another referent."""
    toks = sent.tokens
    if toks[n].text.lower() in _DEMONSTRATIVE_PRONOUNS or toks[lo].text.lower() in _DEMONSTRATIVE_PRONOUNS:
        return True
    if toks[lo].text.lower() in ("ci", "là") and lo >= 2 and toks[lo - 1].text == "-" and \
            toks[lo - 2].text.lower() in _DEMONSTRATIVE_PRONOUNS:
        return True  # "Celle - ci", cut in three by the tokenizer: the phrase found is its "ci"
    # the positional word heads the phrase, with only determiners before it ("ce dernier", not "ce
    # dernier album", which names the album)
    return hi - lo >= 2 and toks[hi - 1].text.lower() in POSITIONAL_HEADS and all(
        toks[k].upos in ("DET", "ADV") for k in range(lo, hi - 1))


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
    if any(toks[c].deprel in ("cop", "aux:pass") for c in kids) and any(
            toks[c].deprel in ("ccomp", "csubj", "csubj:pass", "xcomp", "advcl") and c > h for c in kids):
        return True  # il est difficile de / que ..., il est recommandé de ...
    if any(toks[c].deprel == "expl:comp" and toks[c].text.lower() in ("se", "s'") for c in kids) and \
            toks[h].lemma.lower() in _IMPERSONAL_VERBS:
        return True
    return _impersonal_words([t.text.lower() for t in toks[i + 1:i + 8]])


# Forms of être and avoir été after an impersonal "il" ("il est recommandé de", "il était possible que").
_ETRE = frozenset("est était sera serait fut fût soit".split())
_CLITICS_AFTER_IL = frozenset("ne n' y en se s' lui leur me m' te t' nous vous l' le la les".split())
_IMPERSONAL_FORMS = frozenset("""faut fallait faudra faudrait fallut fallu agit agissait agira agirait semble semblait
semblera semblerait paraît paraissait suffit suffisait suffira suffirait reste restait restera resterait existe
existait existera existerait convient convenait conviendra conviendrait importe importait vaut valait vaudra
vaudrait manque manquait arrive arrivait arrivera arriverait advient advint pleut pleuvait peut pouvait
pourrait""".split())


def _impersonal_words(after: typing.Sequence[str]) -> bool:
    """The words after "il" make it impersonal whatever the parse: a verb that takes no other subject ("il
    faut", "il s'agit", "il y a", "il se peut") or être, adjectives or participles and then "de" or "que"
    ("il est recommandé d'accepter", "il n'est pas toujours facile de"): the parser hangs the clause anywhere."""
    k = 0
    while k < len(after) and after[k] in _CLITICS_AFTER_IL:
        k += 1
    if k == len(after):
        return False
    w = after[k]
    if w in _IMPERSONAL_FORMS:
        return w not in ("peut", "pouvait", "pourrait") or "se" in after[:k] or "s'" in after[:k]
    if w in ("a", "avait", "aura", "aurait", "eut") and "y" in after[:k]:
        return True  # il y a
    if w not in _ETRE and not (w in ("a", "avait", "aura", "aurait") and after[k + 1:k + 2] == ["été"]):
        return False
    for x in after[k + 1:]:
        if x in ("de", "d'", "que", "qu'"):
            return True
        if x in (",", ".", ";", ":", "(", "un", "une", "le", "la", "les", "l'", "des", "du", "ce", "cet", "cette"):
            return False
    return False


def wants_person(sent: Sentence, i: int) -> bool:
    """Subject pronoun i is the subject of a verb that wants a person (`PERSON_VERBS`, or recevoir
    with an honour as its object)."""
    toks = sent.tokens
    h = toks[i].head
    if h < 0 or toks[i].deprel not in _SUBJECT_RELS:
        return False
    lemma = toks[h].lemma.lower()
    if lemma in PERSON_VERBS or (toks[h].upos == "ADJ" and lemma == "mort"):
        return True
    objects = PERSON_OBJECTS.get(lemma)
    return bool(objects) and any(toks[c].deprel == "obj" and toks[c].lemma.lower() in objects
                                 for c in sent.children(h))


def person_antecedent(sent: Sentence, start: int, end: int) -> typing.Optional[str]:
    """None when the mention [start, end) can be a person (a proper noun tagged PER by NER, or a noun of
    `PERSON_NOUNS`); else why not: "not_person" (an other common noun, or a proper noun tagged as
    something else) or "person_unknown" (a proper noun without a named-entity tag: all the resolver
    had was its gender and number)."""
    toks = sent.tokens
    heads = [k for k in range(start, end) if not start <= toks[k].head < end]
    if len(heads) != 1:
        return "person_unknown"
    t = toks[heads[0]]
    tag = (t.ner or "O").split("-", 1)[-1]
    if t.upos == "PROPN":
        if tag in _PERSON_NER:
            return None
        return "person_unknown" if tag == "O" else "not_person"
    if t.upos == "NOUN" and t.lemma.lower() in PERSON_NOUNS:
        return None
    return "not_person"


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
    """The nominal subject of the main clause: before its verb, and the verb's only subject ("Pour cela, il
    modifiera le fichier ...": the parser also hangs "le fichier", the object, as a subject)."""
    root = sent.root()
    if root < 0:
        return None
    subjects = [c for c in sent.children(root) if sent.tokens[c].deprel in _SUBJECT_RELS + ("expl:subj",)]
    if len(subjects) != 1 or subjects[0] > root or sent.tokens[subjects[0]].upos not in ("NOUN", "PROPN"):
        return None
    return subjects[0]


def _genders(sent: Sentence, k: int) -> typing.Set[str]:
    """Genders noun k is tagged with, by itself and by its determiners and adjectives (the tagger gave "des
    modules associés" Fem, "associés" says Masc)."""
    toks = sent.tokens
    return {feats(toks[x]).get("Gender") for x in [k] + [c for c in sent.children(k) if toks[c].deprel in (
        "det", "amod")]} - {None}


def _may_corefer(sent: Sentence, k: int, number: str, gender: str) -> bool:
    """Noun k could be what a pronoun of this number and gender names, as far as its tags tell: the same
    number (a name without one counts as singular) and the same gender, or no gender tagged."""
    t = sent.tokens[k]
    tagged = feats(t).get("Number") or ("Sing" if t.upos == "PROPN" else None)
    if tagged != number:
        return False
    genders = _genders(sent, k)
    return not genders or gender in genders


def _competitors(sent: Sentence, stop: int, number: str, gender: str, candidate: int) -> bool:
    """Another noun before `stop`, in any role, that the pronoun could name (`_may_corefer`): "Ce mécanisme
    ... à l'aide du programme dirvish . Il emploie" (il: the program), "Les noyaux intègrent ... la
    panoplie des modules associés . Ils sont nombreux" (ils: the modules). Not counted: the candidate's
    own phrase but its complements ("Le clavier Français proposé"; "le fils du roi": roi counts), and a
    noun the main verb's copula makes the subject's predicate ("Les ftpmasters sont les responsables")."""
    toks = sent.tokens
    own = set()
    if candidate is not None:
        span = np_span(sent, candidate)
        own = {candidate}
        if span is not None:
            own |= {k for k in range(*span) if toks[k].deprel != "nmod"}
    root = sent.root()
    if root >= 0 and toks[root].upos in ("NOUN", "PROPN") and any(
            toks[c].deprel == "cop" for c in sent.children(root)):
        own.add(root)
    for k in range(min(stop, len(toks))):
        t = toks[k]
        if k in own or t.upos not in ("NOUN", "PROPN") or t.deprel in ("flat:name", "flat:foreign"):
            continue
        if _may_corefer(sent, k, number, gender):
            return True
    return False


def _cataphoric(sent: Sentence, i: int, number: str) -> bool:
    """Pronoun i stands in a clause fronted before its sentence's main verb, whose subject is a noun after
    the pronoun that it could name: "Qu'il soit un shell de connexion ou non, un shell interactif est ..."
    (il: the interactive shell, named after it)."""
    root = sent.root()
    if root < 0 or i > root or sent.tokens[i].head == root:
        return False
    return any(sent.tokens[c].deprel in _SUBJECT_RELS and i < c and sent.tokens[c].upos in ("NOUN", "PROPN") and
               feats(sent.tokens[c]).get("Number", number) == number for c in sent.children(root))


def _fits(sent: Sentence, c: int, number: str, gender: str) -> bool:
    t = sent.tokens[c]
    if t.upos not in ("NOUN", "PROPN") or not agrees(t, number, gender):
        return False
    return not any(sent.tokens[k].deprel in ("conj", "cc") for k in sent.children(c))


def antecedent(sentences: typing.Sequence[Sentence], s: int, i: int):
    """(sentence, token) of the one antecedent of subject pronoun i of sentence s, or None."""
    sent = sentences[s]
    number, gender = PRONOUNS[sent.tokens[i].text.lower()]
    if _cataphoric(sent, i, number):
        return None
    start = _clause_start(sent, i)
    if start > 0:
        c = _main_subject(sent)
        if c is None or c >= start or not _fits(sent, c, number, gender):
            return None
        if _competitors(sent, i, number, gender, c):
            return None
        return s, c
    if s == 0 or not sentences[s - 1].parsed or _competitors(sent, i, number, gender, None):
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
            if span is None or positional(sentences[cs], ci, *span):
                continue  # "Ce dernier" written for "il" would point at the last noun before it
            chains.append(CorefChain((Mention(cs, *span), Mention(s, i, i + 1)), 0, COREF_BUILTIN))
    return tuple(chains)
