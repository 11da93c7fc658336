"""DiscoFuse for French: the rules of Geva et al. (NAACL 2019, Table 14, Appendix A.1) over French parses.

The English rules are in miners/discofuse/rules.py; this module holds French's own (a run's `--language
fr` chooses it: miners/discofuse/languages.py) and shares English's document loop, filters and
record (`discofuse.mine_document(..., rules=RULES)`). It reads UD v2 from spaCy's
`fr_core_news_sm` (or any UD French parse) and gender and number from the morphology
(`Token.feats`).

  SINGLE_CONN_START   "Bien qu'il soit malade, il travaille." -> "Il est malade." + "Il travaille."
  SINGLE_CONN_INNER   "X, car Y." / "X parce que Y." -> "X." + "Y." (+ _ANAPHORA: a pronoun of Y replaced)
  SINGLE_S_COORD      "X, mais Y ..." (own subject) -> "X." + "Y ..." (+ _ANAPHORA)
  SINGLE_VP_COORD     "Le club a gagné A et a perdu B." -> "Le club a gagné A." + "Le club a perdu B."
  SINGLE_RELATIVE     "N, qui V ..., W" -> "N W" + "N V ..."; "N, dont le siège est X" -> "Le siège de N est X";
                      "à N, où X V" -> "À N, X V"; "N, dans lequel X V" -> "Dans N, X V"
  SINGLE_APPOSITION   "X, un film sur Y, V" -> "X V" + "X est un film sur Y."
  PAIR_CONN(_ANAPHORA), PAIR_ANAPHORA, PAIR_NONE as in English, with French connectives and pronouns.

French specifics: a repeated indefinite subject takes the definite article of its gender and number
("une équipe" -> "l' équipe", "des chercheurs" -> "les chercheurs"); "de"/"à" + article contract
("de le" -> "du", "à les" -> "aux") and "le"/"la"/"de"/"que" elide before a vowel in the words a rule
writes (the text it copies stays as written); a subjunctive left standing alone by a connective
("bien qu'il soit") becomes indicative for être and avoir and is declined otherwise; relative and
appositive phrases must agree in number with their noun. Every decline is an Unclean(reason),
counted as `filtered:<reason>` and written to rejects. SINGLE_CATAPHORA (a fronted participle
turned into a finite verb) needs a French conjugator and is not built.
"""
import re
import types
import typing

from miners.discofuse import rules as en
from miners.discofuse.rules import Options, Unclean, _Match  # noqa: F401  (Options is part of this interface)
from miners.discofuse import coref_fr
from miners.nlp.annotation import AnnotatedDocument, Sentence
from schemas.records import DiscourseType as DT
from schemas.records import TEMPLATE_HOLE, FusionExample

MIN_SENTENCE_TOKENS = en.MIN_SENTENCE_TOKENS
PAIR_CONN_WINDOW = en.PAIR_CONN_WINDOW
COORD_WINDOW = en.COORD_WINDOW


def _by_length(phrases):
    return tuple(sorted(set(phrases), key=lambda c: (-len(c.split()), c)))


def _elided(phrases):
    """Each connective ending in "que" / "si" also with its elided form ("bien qu'", "même s'")."""
    out = set(phrases)
    for p in phrases:
        if p.endswith("que"):
            out.add(p[:-1] + "'")
        elif p.endswith(" si"):
            out.add(p[:-1] + "'")
    return out


# C_b: backward connectives opening the second sentence of a pair (French counterparts of Appendix A.1's).
BACKWARD_CONNECTIVES = _by_length({
    "cependant", "toutefois", "pourtant", "néanmoins", "en revanche", "par contre", "par conséquent",
    "donc", "ainsi", "en effet", "de plus", "en outre", "par ailleurs", "d'ailleurs", "de même",
    "au contraire", "en fait", "finalement", "enfin", "ensuite", "puis", "par exemple", "notamment",
    "en particulier", "de fait", "effectivement", "dès lors", "pour autant", "malgré tout", "en conséquence",
    "entre-temps", "aussi", "mais", "et pourtant", "or",
})
# Only connectives whose clause is a fact (factive): split off, it is stated as one. Never those whose clause
# may not hold, hypothetical or conditional (even if, if, unless, provided that, so that): "la réponse sera
# « n'existe pas » même si la ressource existe ..." does not say that the resource exists.
NON_FACTIVE_CONNECTIVES = frozenset({"même si", "si", "à moins que", "pourvu que", "dès lors que", "au cas où",
                                     "quand bien même", "pour que", "afin que", "sans que"})
# C_f: forward connectives opening a single sentence, their clause closed by a comma.
FORWARD_CONNECTIVES = _by_length(_elided({
    "bien que", "alors que", "tandis que", "puisque", "parce que", "quoique", "étant donné que", "vu que",
}))
# C_s: inner connectives opening the second clause of a single sentence.
INNER_CONNECTIVES = _by_length(_elided({
    "car", "parce que", "puisque", "bien que", "alors que", "tandis que", "si bien que", "de sorte que",
    "quoique", "sauf que", "étant donné que", "vu que", "pendant que", "d'autant que",
}))
# Connectives whose clause is in the subjunctive and still a fact (although): standing alone it must become
# indicative. A subjunctive after any other connective ("de sorte qu'il puisse": so that he can) is no fact.
SUBJUNCTIVE_CONNECTIVES = frozenset({"bien que", "quoique"})
COORDINATORS = ("et", "mais", "ou", "puis", "donc", "or", "ni")
DANGLING_COORDINATORS = ("et", "mais", "ou", "ni", "donc", "or", "car", "puis")
# Coordinators whose halves are not two facts ("soit A ou B", "ni A ni B").
_ALTERNATIVE_COORDINATORS = ("ou", "ni")
FINAL_PUNCT = en.FINAL_PUNCT
_SUBJ_RELS = ("nsubj", "nsubj:pass", "csubj", "expl:subj")
_NEGATION = frozenset("ne n' pas jamais plus guère point aucun aucune rien personne".split())

# Subjunctive -> indicative of être and avoir (the subjunctives a "bien que" clause most often holds).
_INDICATIVE = {"soit": "est", "soient": "sont", "sois": "es", "soyons": "sommes", "soyez": "êtes",
               "ait": "a", "aient": "ont", "aie": "ai", "aies": "as", "ayons": "avons", "ayez": "avez",
               "fût": "fut", "fussent": "furent", "eût": "eut", "eussent": "eurent"}

# Words starting with an aspirated h take "le"/"la", never "l'" ("le héros", "la hauteur").
H_ASPIRE = frozenset("""hache haie haine hall halte hameau hamac hanche handicap hangar hardi hareng haricot
harpe hasard hâte hausse haut haute hauteur havre hérisson hernie héron héros hêtre hibou hiérarchie
hockey hollande hongrie honte hoquet hors hotte houblon housse huit hurlement hutte""".split())
_VOWELS = "aeiouyàâäéèêëîïôöùûüœæ"

# Determiners that quantify or deny: a subject with them cannot be repeated ("aucun joueur ..." is no
# "aucun joueur ..." + "aucun joueur ..."; "plusieurs élèves" would be other ones). Indefinite
# articles become definite ones.
NEGATIVE_OR_COUNTING = frozenset("""aucun aucune nul nulle chaque plusieurs quelques quelque certains certaines
divers diverses différents différentes beaucoup peu tout toute tous toutes maints""".split())
INDEFINITE = frozenset("un une des".split())
# Nouns of a time: "N, où" after such a noun without its own preposition ("l'année, où") is declined.
TIME_NOUNS = frozenset("""année an jour journée époque moment période siècle date soir soirée nuit saison
mois semaine heure instant matin décennie ère""".split())
# Prepositions a place or time keeps when the "où" clause is fronted with it ("à Paris, où" -> "À Paris,").
_PLACE_PREPOSITIONS = frozenset("à au aux en dans sur chez sous".split())
# Nouns that sum up a clause rather than name the thing before the comma.
SHELL_NOUNS = frozenset("""situation fait phénomène résultat décision geste mesure tendance changement
conséquence effet démarche pratique preuve signe""".split())
_VAGUE_NOUNS = frozenset("autre autres un une certains plusieurs tous".split())
# Clitics that stand before a verb without being its subject.
_OBJECT_CLITICS = frozenset("lui le la les l' leur me m' te t' se s' y en nous vous".split())
# Month names: "le 21 novembre 2008" is a date the parser may hang as an apposition.
MONTHS = frozenset("""janvier février mars avril mai juin juillet août septembre octobre novembre
décembre""".split())


def _starts_with(words_lower, phrase_words, at=0):
    return words_lower[at:at + len(phrase_words)] == phrase_words


def _lower(words):
    return [w.lower().replace("’", "'") for w in words]


def single_may_match(words: typing.Sequence[str]) -> bool:
    """False only when no single-sentence rule can fire: no comma, coordinator or inner connective."""
    low = _lower(words)
    if "," in low or any(w in COORDINATORS for w in low):
        return True
    return any(_starts_with(low, c.split(), i) for i in range(len(low)) for c in INNER_CONNECTIVES)


def pair_may_match(second_words: typing.Sequence[str]) -> bool:
    """False only when no pair rule can fire: no connective up front and no subject pronoun."""
    low = _lower(second_words)
    return any(w in coref_fr.PRONOUNS for w in low) or backward_connective(low) is not None


def backward_connective(low):
    """(start, end, connective) of a C_b connective in the first 5 tokens, comma-delimited."""
    low = list(low)
    for i in range(0, min(PAIR_CONN_WINDOW, len(low))):
        for p in BACKWARD_CONNECTIVES:
            pw = p.split()
            if not _starts_with(low, pw, i):
                continue
            end = i + len(pw)
            if end >= len(low) or low[end] != ",":
                continue
            if i > 0 and low[i - 1] != ",":
                continue
            return i, end, p
    return None


def pair_connective(words):
    """(start, end, connective) of the backward connective of a pair's second sentence, the tokens a
    pair rule drops being start..end: the connective and its comma, and, for an inner connective
    between commas ("Sa gestion , cependant , n'a pas"), the comma before it too, unless that comma
    closes a parenthetical opened before it ("Paris , la capitale , cependant , est"): an odd number
    of commas before it."""
    low = _lower(words)
    conn = backward_connective(low)
    if conn is None:
        return None
    a, b, c = conn
    if a > 0 and low[a - 1] == "," and low[:a - 1].count(",") % 2 == 0:
        return a - 1, b, c
    return conn


# --------------------------------------------------------------------------
# Morphology and the words a rule writes
# --------------------------------------------------------------------------

def _feat(tok, name):
    return coref_fr.feats(tok).get(name, "")


def _plural(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    return _feat(t, "Number") == "Plur" or any(sent.tokens[c].deprel == "conj" for c in sent.children(i))


def _starts_with_vowel(word: str) -> bool:
    w = word.lower()
    if not w:
        return False
    if w[0] == "h":
        return not any(w.startswith(h) for h in H_ASPIRE)
    return w[0] in _VOWELS


def _definite(gender: str, plural: bool, next_word: str) -> str:
    if plural:
        return "les"
    if _starts_with_vowel(next_word):
        return "l'"
    return "la" if gender == "Fem" else "le"


_CONTRACTIONS = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}
# An elided word of the text before a subject a rule wrote in place of a pronoun ("qu'il" -> "que la
# glace", "s'il" -> "si le maire"): its full form when the new word does not start with a vowel.
_UNELIDED = {"qu'": "que", "lorsqu'": "lorsque", "puisqu'": "puisque", "quoiqu'": "quoique", "jusqu'": "jusque",
             "s'": "si"}


def _join(prev: str, word: str):
    """French contraction and elision of two words a rule put side by side: "de le" -> ["du"],
    "à les" -> ["aux"], "de"/"le"/"la" before a vowel -> "d'"/"l'", an elided "qu'"/"s'" before a
    consonant -> "que"/"si"; else both as they are."""
    key = (prev.lower(), word.lower())
    if key in _CONTRACTIONS:
        out = _CONTRACTIONS[key]
        return [out.capitalize() if prev[:1].isupper() else out]
    if key[0] in ("de", "le", "la") and word[:1].isalpha() and _starts_with_vowel(word):
        return [prev[0] + "'", word]
    if key[0] in _UNELIDED and word[:1].isalpha() and not _starts_with_vowel(word):
        full = _UNELIDED[key[0]]
        return [full.capitalize() if prev[:1].isupper() else full, word]
    return [prev, word]


def _render(sent: Sentence, items) -> str:
    """Items (token indices or written words) as text; contraction and elision only where a rule
    wrote one of the two words (the copied text stays as written); the first letter capitalised."""
    words, written = [], []
    for x in items:
        w = sent.tokens[x].text if isinstance(x, int) else x
        if not words and w in (",", ";", ":"):
            continue
        if words and (written[-1] or not isinstance(x, int)):
            joined = _join(words[-1], w)
            words[-1] = joined[0]
            if len(joined) == 1:
                written[-1] = True
                continue
            w = joined[1]
        words.append(w)
        written.append(not isinstance(x, int))
    first = next((x for x in items if not isinstance(x, int) or sent.tokens[x].text not in (",", ";", ":")), None)
    if words and words[0][:1].islower() and not words[0][1:2].isupper() and not _identifier(sent, first, items):
        words[0] = words[0][:1].upper() + words[0][1:]
    return " ".join(words)


_NOUN_LINKS = frozenset("à de d' du des au aux".split())
_APOSTROPHES = ("'", "’")
# pronouns written after an imperative with a hyphen ("placez - le", "donnez - moi", "allez - y")
_IMPERATIVE_CLITICS = frozenset("le la les l' l’ moi toi nous vous lui leur en y".split())


def _french_word(sent: Sentence, x: int) -> bool:
    """Token x is a French word, whatever its tag, never a command kept in lower case: an elided word
    ("l’", "n’", "d'": fr_core_news_sm tags "l’" with the typographic apostrophe NOUN), a verb of
    "vous" ("placez", "consultez": no command ends so) or an imperative with its pronoun ("placez - le")."""
    toks = sent.tokens
    w = toks[x].text
    if len(w) > 1 and w.endswith(_APOSTROPHES):
        return True
    if len(w) >= 5 and w.isalpha() and w.endswith("ez"):
        return True
    return x + 2 < len(toks) and toks[x + 1].text == "-" and toks[x + 2].text.lower() in _IMPERATIVE_CLITICS


def _identifier(sent: Sentence, x, items=()) -> bool:
    """Token x, written in lower case, is a command or program name ("echo", "virt - viewer", "dpkg", "bind"):
    the input began its own sentence with it in lower case, or it is a noun with no article, no preposition
    (among `items`, what is written) and no complement after it, which no French common noun starting a
    sentence is. Capitalised it is
    another word ("Echo", "Bind")."""
    if not isinstance(x, int):
        return False
    t = sent.tokens[x]
    if not t.text[:1].islower() or _french_word(sent, x):
        return False
    if x == 0:
        return True
    if t.upos not in ("NOUN", "PROPN", "X", "SYM"):
        return False
    if any(sent.tokens[c].deprel in ("det", "fixed") or sent.tokens[c].deprel == "case" and c in items
           for c in sent.children(x)):
        return False
    nxt = sent.tokens[x + 1] if x + 1 < len(sent.tokens) else None
    # "saint Honoré" (a title before a name), "grâce à", "nombre de", "tout le" start sentences as any word
    return nxt is None or (nxt.text.lower() not in _NOUN_LINKS and nxt.upos != "DET" and not nxt.text[:1].isupper())


# --------------------------------------------------------------------------
# Tree helpers
# --------------------------------------------------------------------------

def _subject(sent: Sentence, v: int):
    for c in sent.children(v):
        if sent.tokens[c].deprel in _SUBJ_RELS:
            return c
    return None


def _is_predicate(sent: Sentence, i: int) -> bool:
    t = sent.tokens[i]
    # a participle tagged ADJ still heads a verb phrase through its auxiliary ("n'était pas fermé")
    return t.upos in ("VERB", "AUX") or any(sent.tokens[c].deprel in ("cop", "aux:pass", "aux:tense")
                                            for c in sent.children(i))


def _is_clause(sent: Sentence, lo: int, hi: int) -> bool:
    """[lo, hi) is a constituent headed by a finite predicate with its own subject inside."""
    if hi - lo < 2:
        return False
    h = en._constituent_head(sent, lo, hi)  # pylint: disable=protected-access
    if h is None or not _is_predicate(sent, h):
        return False
    s = _subject(sent, h)
    return s is not None and lo <= s < hi


def _finite_tokens(sent: Sentence, v: int):
    """The verb v and its auxiliaries and copula: where tense and mood are marked."""
    toks = sent.tokens
    return [v] + [c for c in sent.children(v) if toks[c].deprel.startswith("aux") or toks[c].deprel == "cop"]


def _indicative(sent: Sentence, lo: int, hi: int):
    """Replacements {token: word} making the clause [lo, hi) indicative, {} if it is; None if not possible."""
    h = en._constituent_head(sent, lo, hi)  # pylint: disable=protected-access
    if h is None:
        return None
    out = {}
    for x in _finite_tokens(sent, h):
        if _feat(sent.tokens[x], "Mood") == "Sub":
            word = sent.tokens[x].text.lower()
            if word not in _INDICATIVE:
                return None
            out[x] = _INDICATIVE[word]
    return out


def _end(sent: Sentence):
    return [len(sent.tokens) - 1] if sent.tokens[-1].text in FINAL_PUNCT else ["."]


def _closed(sent: Sentence, items):
    """Items, closed by the sentence's final punctuation; a half that ends with an abbreviation's full stop
    ("une position , etc.") takes no second one ("etc. .")."""
    end = _end(sent)
    last = items[-1] if items else None
    if isinstance(last, int) and len(sent.tokens[last].text) > 1 and sent.tokens[last].text.endswith(".") and (
            end == ["."] or sent.tokens[end[0]].text == "."):
        return list(items)
    return list(items) + end


def _strip(items, sent):
    trail = (",", ";", ":", "--", "-", "—", "–") + DANGLING_COORDINATORS
    while items and isinstance(items[-1], int) and sent.tokens[items[-1]].text.lower() in trail:
        items.pop()
    while items and isinstance(items[0], int) and sent.tokens[items[0]].text in (",", ";", ":"):
        items.pop(0)
    return items


def _subject_span(sent: Sentence, s: int):
    """[lo, hi) of subject s as a phrase that can be repeated, or None."""
    toks = sent.tokens
    span = sent.subtree(s)
    lo, hi = span[0], span[-1] + 1
    if len(span) == hi - lo and not any(toks[k].text in (",", "(", ")", "«", "»", '"') or
                                        toks[k].upos in ("VERB", "AUX", "CCONJ") for k in span):
        return lo, hi
    if any(toks[c].deprel in ("conj", "appos") for c in sent.children(s)):
        return None
    return coref_fr.np_span(sent, s)


def _repeated_np(sent: Sentence, n: int, lo: int, hi: int):
    """Items of the noun phrase [lo, hi) of noun n for a new sentence, or None when no repetition
    names the same thing: an indefinite article becomes the definite one ("une équipe" -> "l'
    équipe", "des chercheurs" -> "les chercheurs"); a counting or negative determiner declines."""
    toks = sent.tokens
    items = list(range(lo, hi))
    if toks[n].upos == "PRON":
        return items if toks[n].text.lower() in ("il", "elle", "ils", "elles", "on", "je", "tu", "nous",
                                                 "vous") else None
    if toks[n].upos == "NUM" or toks[n].lemma.lower() in _VAGUE_NOUNS:
        return None
    dets = [c for c in sent.children(n) if toks[c].deprel in ("det", "nummod") and c < n]
    definite = any(_feat(toks[c], "Definite") == "Def" or _feat(toks[c], "PronType") in ("Dem", "Prs")
                   or _feat(toks[c], "Poss") == "Yes" for c in dets)
    if any(toks[c].text.lower() in NEGATIVE_OR_COUNTING or toks[c].upos == "NUM" and not definite for c in dets):
        return None  # "trois joueurs" would be any three; "les trois lascars" are the ones named
    if toks[lo].text.lower() in ("beaucoup", "peu", "la", "plupart") and any(
            toks[k].text.lower() in ("plupart", "beaucoup", "peu") for k in items[:2]):
        return None
    if toks[lo].text.lower() in ("de", "d'") and lo < n:
        return None  # "de nombreux utilisateurs", "d'autres niveaux": a count, not one set of them
    if lo in dets and toks[lo].text.lower() in INDEFINITE and not (
            lo + 1 < hi and toks[lo + 1].text.lower() in ("tel", "telle", "tels", "telles")):  # "Un tel fichier"
        nxt = toks[lo + 1].text if lo + 1 < hi else ""
        return [_definite(_feat(toks[n], "Gender"), _plural(sent, n), nxt)] + items[1:]
    return items


# A preposition fused with the article ("du bourg" is "de le bourg"): the phrase repeated alone takes the article.
_FUSED_ARTICLES = {"du": "le", "des": "les", "au": "le", "aux": "les"}


def _np_without(sent: Sentence, n: int, drop: int):
    """Noun phrase of n without the subtree of `drop`: [lo, hi), or None when it does not start at
    n itself or at one of its own determiners or modifiers ("du prix Nobel François Mauriac")."""
    np = en._np_without(sent, n, drop)  # pylint: disable=protected-access
    if np is None:
        return None
    first = sent.tokens[np[0]]
    if np[0] != n and not (first.head == n and first.deprel in ("det", "amod", "nummod")):
        return None
    return np


def _with_article(sent: Sentence, n: int, items):
    """The article a fused preposition held ("du bourg" -> "le bourg"), before the phrase's items."""
    case = [c for c in sent.children(n) if sent.tokens[c].deprel == "case" and c < n]
    word = sent.tokens[case[-1]].text.lower() if case else ""
    if word in _FUSED_ARTICLES and not any(sent.tokens[c].deprel == "det" for c in sent.children(n)):
        nxt = sent.tokens[items[0]].text if items and isinstance(items[0], int) else ""
        art = _FUSED_ARTICLES[word]
        return [art if art == "les" else _definite(_feat(sent.tokens[n], "Gender") or "Masc", False, nxt)] + items
    return items


# --------------------------------------------------------------------------
# Single-sentence rules
# --------------------------------------------------------------------------

def _connective_at(low, at, connectives):
    for c in connectives:
        if _starts_with(low, c.split(), at):
            return c
    return None


def _canonical(conn: str) -> str:
    """ "bien qu'" -> "bien que", "même s'" -> "même si" (the connective string of the record)."""
    if conn.endswith("qu'"):
        return conn[:-1] + "e"
    if conn.endswith(" s'"):
        return conn[:-1] + "i"
    return conn


def _standalone(sent: Sentence, lo: int, hi: int, conn: str):
    """Items [lo, hi) of a connective's clause as a sentence of its own, subjunctive turned indicative;
    None if it cannot be."""
    items = list(range(lo, hi))
    subjunctive = any(_feat(sent.tokens[x], "Mood") == "Sub" for x in _finite_tokens(sent, h)) if (
        h := en._constituent_head(sent, lo, hi)) is not None else False  # pylint: disable=protected-access
    if subjunctive and _canonical(conn) not in SUBJUNCTIVE_CONNECTIVES:
        return None  # "de sorte qu'il puisse ...": a purpose, not a fact
    if _canonical(conn) in SUBJUNCTIVE_CONNECTIVES or any(
            _feat(sent.tokens[x], "Mood") == "Sub" for x in items):
        repl = _indicative(sent, lo, hi)
        if repl is None:
            return None
        items = [repl.get(x, x) for x in items]
    return items


def rule_conn_start(sent: Sentence):
    """"Bien que X, Y." -> "X." + "Y."."""
    low = _lower(sent.words())
    conn = _connective_at(low, 0, FORWARD_CONNECTIVES)
    if conn is None:
        return None
    k = len(conn.split())
    head = sent.tokens[k - 1].head
    if head < k:
        return None
    sub = [i for i in sent.subtree(head) if i >= k]
    e = sub[-1]
    if sub != list(range(k, e + 1)) or e + 1 >= len(low) or low[e + 1] != ",":
        return None
    if not _is_clause(sent, k, e + 1) or not _is_clause(sent, e + 2, en._final_punct(sent)):  # pylint: disable=protected-access
        return None
    first = _standalone(sent, k, e + 1, conn)
    if first is None:
        return Unclean("conn_subjunctive")
    return _Match(DT.SINGLE_CONN_START, _closed(sent, first), list(range(e + 2, len(low))), _canonical(conn))


def rule_conn_inner(sent: Sentence):
    """"X, car Y." / "X parce que Y." -> "X." + "Y." (connective deleted)."""
    toks = sent.tokens
    low = _lower(sent.words())
    end = en._final_punct(sent)  # pylint: disable=protected-access
    unclean = None
    for p in range(2, end):
        conn = _connective_at(low, p, INNER_CONNECTIVES)
        if conn is None:
            continue
        start2 = p + len(conn.split())
        before = p - 1
        while before > 0 and low[before] == ",":
            before -= 1
        if low[before] in COORDINATORS:
            # "..., mais puisque X, Y": the connective's clause is fronted in the next conjunct, whose main
            # clause (Y) follows it: "X, Y" is no sentence
            unclean = unclean or Unclean("connective_after_coordinator")
            continue
        first = _strip(list(range(0, p)), sent)
        if not first or not _is_clause(sent, start2, end) or not _is_clause(sent, first[0], first[-1] + 1):
            continue
        h = en._constituent_head(sent, start2, end)  # pylint: disable=protected-access
        if not any(toks[j].head == h for j in range(p, start2)):
            unclean = unclean or Unclean("connective_not_clause_initial")
            continue
        second = _standalone(sent, start2, len(low), conn)
        if second is None:
            unclean = unclean or Unclean("conn_subjunctive")
            continue
        return _Match(DT.SINGLE_CONN_INNER, _closed(sent, first), second, _canonical(conn))
    return unclean


def _carried_auxiliaries(sent: Sentence, root: int, c: int):
    """Auxiliaries of the first verb the second one shares ("a été élu et réélu" -> ["a", "été"]):
    [] when the second is finite on its own, None when it cannot stand with the subject."""
    toks = sent.tokens
    own = [x for x in sent.children(c) if toks[x].deprel.startswith("aux") or toks[x].deprel == "cop"]
    form = _feat(toks[c], "VerbForm")
    if own or form == "Fin" or any(_feat(toks[x], "VerbForm") == "Fin" for x in own):
        return [] if (form == "Fin" or any(_feat(toks[x], "VerbForm") == "Fin" for x in own)) else None
    if form != "Part":
        return None
    aux = [x for x in sent.children(root) if toks[x].deprel.startswith("aux") and x < root]
    if not aux or not any(_feat(toks[x], "VerbForm") == "Fin" for x in aux):
        return None
    return aux


def _vp_coord_decline(sent: Sentence, root: int, c: int, k: int):
    """Why the VP coordination of root and c (coordinator k) cannot be split, or None."""
    toks = sent.tokens
    if toks[k].text.lower() in _ALTERNATIVE_COORDINATORS:
        return "vp_coord_alternative"
    kids = sent.children(root)
    if not any(root < x < k and toks[x].deprel not in ("punct", "cc") for x in kids):
        return "vp_coord_shared_complement"
    if any(x > c and toks[x].deprel != "punct" for x in kids):
        return "vp_coord_shared_modifier"
    x = k - 1
    while x > root and toks[x].upos == "PUNCT":
        x -= 1
    while x not in (root, -1):
        if _is_predicate(sent, x) and (_subject(sent, x) is not None or _misparsed_subject(sent, x)):
            # the coordinator follows a clause of its own subject (any relation: the parser also hangs
            # "le plus grand mesurait ..." as an object or a parataxis): the second verb may be its
            return "vp_coord_attachment_ambiguous"
        x = toks[x].head
    if any(toks[x].text.lower() in ("à", "la", "fois") and toks[x].deprel == "advmod" for x in kids):
        return "vp_coord_scope_adverb"
    if toks[root].upos in ("NOUN", "PROPN") and not _is_predicate(sent, root) and any(
            toks[x].deprel == "acl" and _feat(toks[x], "VerbForm") == "Fin" for x in kids):
        # "La priorité none désigne ... et peut servir": the parser made the subject's name the root and hung
        # the verb on it; what it took for the subject is not the whole one
        return "vp_coord_root_not_verb"
    own = [x for x in sent.children(c) if toks[x].deprel.startswith("aux") or toks[x].deprel == "cop"]
    if not own and _feat(toks[c], "VerbForm") != "Fin":
        before = k - 1
        while before > 0 and toks[before].upos == "PUNCT":
            before -= 1
        if toks[before].deprel in ("amod", "acl") and toks[toks[before].head].upos in ("NOUN", "PROPN"):
            # "réalisés par des volontaires cooptés et examinés, capables de ...": the bare participle may be
            # the noun's second adjective, not the verb's second conjunct
            return "vp_coord_attachment_ambiguous"
    first = k + 1
    while first < c and toks[first].upos == "PUNCT":
        first += 1
    if toks[first].upos == "ADV" and toks[first].text.lower() not in ("ne", "n'"):
        # "et surtout facilite" would give "Il surtout facilite"; "et beaucoup ont déjà disparu" has a subject
        # of its own
        return "vp_coord_adverb_placement"
    return None


# Words that open a relative clause: after a coordinator they continue the one before ("et où", "et qui").
_RELATIVE_WORDS = frozenset("""où qui que qu' dont lequel laquelle lesquels lesquelles auquel auxquels auxquelles
duquel desquels desquelles""".split())
# What stands between a subject and its verb: auxiliaries, clitics, negation, adverbs (and a noun predicate's
# own article and adjectives: "Il est le fils ...").
_BEFORE_VERB_RELS = frozenset("aux cop advmod expl obj iobj det amod nummod".split())


def _misparsed_subject(sent: Sentence, v: int) -> bool:
    """Verb v has a noun phrase's words as its own dependents before it ("et le plus grand mesurait":
    det "le", amod "grand" hung on the verb): a subject the parser did not label as one."""
    toks = sent.tokens
    return toks[v].upos in ("VERB", "AUX") and any(
        toks[c].deprel in ("det", "amod", "nummod") and c < v for c in sent.children(v))


_CLITIC_PERSON = {"nous": "1", "vous": "2"}


def _clitic_subject(sent: Sentence, s: int, c: int):
    """Is the clitic s the parser made subject of conjunct c its subject? "nous"/"vous" are, when c's
    finite verb is of their person ("et nous devons"): True; of the third person ("et nous propose"):
    False; unmarked: None. Other clitics (le, lui, se, y, en ...) never are: False."""
    person = _CLITIC_PERSON.get(sent.tokens[s].text.lower())
    if person is None:
        return False
    marked = {_feat(sent.tokens[x], "Person") for x in _finite_tokens(sent, c)} - {""}
    if marked == {person}:
        return True
    return False if marked == {"3"} else None


def rule_coordination(sent: Sentence):
    """S_COORD: "X, mais Y fait Z." -> "X." + "Y fait Z."; VP_COORD repeats the subject."""
    toks = sent.tokens
    root = sent.root()
    end = en._final_punct(sent)  # pylint: disable=protected-access
    if root < 0 or any(toks[x].text.lower() in ("soit", "ni") and toks[x].deprel == "cc" and x < root
                       for x in range(len(toks))):
        return None
    if any(toks[x].deprel == "mark" for x in sent.children(root)):
        return None  # the root opens a subordinate clause ("Bien qu'il ait eu ..., Satan est ..."): a misparse
    unclean = None
    for c in sent.children(root):
        if toks[c].deprel != "conj" or c < root or not _is_predicate(sent, c):
            continue
        ks = [k for k in range(root + 1, c) if toks[k].text.lower() in COORDINATORS
              and toks[k].deprel in ("cc", "advmod") and toks[k].head in (root, c)]
        if not ks:
            continue
        k = ks[-1]
        if en._constituent_head(sent, k + 1, end) != c:  # pylint: disable=protected-access
            continue
        if any(toks[x].text in FINAL_PUNCT for x in range(root + 1, k)):
            # "... des doigtés . \voiceOne et \voiceThree font ...": a full stop between the two conjuncts is a
            # sentence boundary the segmenter missed; what was coordinated across it is a misparse
            unclean = unclean or Unclean("coord_across_sentences")
            continue
        first = _strip(list(range(0, k)), sent)
        if not first:
            continue
        conn = " ".join(toks[x].text.lower() for x in range(first[-1] + 1, k + 1) if toks[x].upos != "PUNCT")
        if any(toks[x].deprel == "mark" and x > k for x in sent.children(c)):
            continue  # a conjoined subordinate clause ("que ... et que ...")
        subj_c = _subject(sent, c)
        if subj_c is not None and toks[subj_c].text.lower() in ("qui", "que", "lequel", "laquelle"):
            continue  # a relative clause, not a conjunct
        if subj_c is not None and toks[subj_c].text.lower() in _OBJECT_CLITICS:
            own = _clitic_subject(sent, subj_c, c)
            if own is None:
                unclean = unclean or Unclean("vp_coord_own_subject")
                continue
            if not own:
                subj_c = None  # "et lui proposera": an object clitic the parser took for the subject
                if toks[c].upos not in ("VERB", "AUX"):
                    continue
        if subj_c is not None and k < subj_c < c and c - k <= COORD_WINDOW:
            if not _is_clause(sent, first[0], first[-1] + 1):
                continue
            after = k + 1
            while after < c and toks[after].upos == "PUNCT":
                after += 1
            if toks[after].text.lower() in _RELATIVE_WORDS:
                # "..., au public beaucoup plus vaste, et où il subira ...": a second relative clause, not a
                # sentence ("Où il subira ...")
                unclean = unclean or Unclean("s_coord_relative")
                continue
            if any(toks[x].deprel == "conj" and x < k and toks[x].upos in ("NOUN", "PROPN") and
                   not _is_predicate(sent, x) and max(sent.subtree(x)) >= k - 2 and
                   any(toks[y].deprel == "cc" for y in sent.children(x)) for x in sent.children(root)):
                # "... sera installé et les files d'impression réseau, et les imprimantes modernes pourront ...":
                # a noun coordinated with the first clause's verb is a misparse of a list; where it ends is unclear
                unclean = unclean or Unclean("s_coord_list")
                continue
            if first[-1] == root and any(toks[x].deprel == "obj" for x in sent.children(c)) and not any(
                    toks[x].deprel == "obj" for x in sent.children(root)):
                unclean = unclean or Unclean("s_coord_shared_object")
                continue
            return _Match(DT.SINGLE_S_COORD, _closed(sent, first), list(range(k + 1, len(toks))), conn)
        if subj_c is None and toks[c].upos in ("VERB", "AUX") or subj_c is None and _is_predicate(sent, c):
            subj = _subject(sent, root)
            if subj is None or subj > root or toks[subj].deprel == "expl:subj" or toks[subj].text.lower() in (
                    "qui", "que", "ce", "c'", "cela", "ça", "ceci", "celui", "celle", "ceux", "celles"):
                continue
            if any(toks[x].deprel == "conj" and root < x < c and _subject(sent, x) is not None
                   for x in sent.children(root)):
                continue
            if _misparsed_subject(sent, c) or any(toks[x].deprel in ("expl", "expl:subj") for x in sent.children(c)):
                # "et il faut ...", "et le plus grand mesurait ...": a clause of its own
                unclean = unclean or Unclean("vp_coord_own_subject")
                continue
            span = _subject_span(sent, subj)
            gap = range(span[1], root) if span is not None else ()
            if span is None or not any(toks[x].text in (",", "(") for x in gap) and any(
                    toks[x].head != root or toks[x].deprel.split(":")[0] not in _BEFORE_VERB_RELS for x in gap):
                # a word between the subject and its verb hung elsewhere ("la formule u = rwx , ... donne"):
                # the phrase repeated would not be the whole subject
                unclean = unclean or Unclean("vp_coord_subject_unclear")
                continue
            if coref_fr.positional(sent, subj, *span):
                unclean = unclean or Unclean("vp_coord_subject_positional")  # "Ce dernier ... et fut exilé"
                continue
            decline = _vp_coord_decline(sent, root, c, k)
            if decline is not None:
                unclean = unclean or Unclean(decline)
                continue
            carried = _carried_auxiliaries(sent, root, c)
            if carried is None:
                continue
            if carried and any(toks[x].text.lower() in _NEGATION for x in sent.children(root)):
                unclean = unclean or Unclean("vp_coord_under_negation")
                continue
            subj_items = _repeated_np(sent, subj, *span)
            if subj_items is None:
                unclean = unclean or Unclean("vp_coord_subject_quantified")
                continue
            # clitics and negation that stand before the second verb are in its own subtree
            second = subj_items + sorted(carried) + list(range(k + 1, len(toks)))
            return _Match(DT.SINGLE_VP_COORD, _closed(sent, first), second, conn)
    return unclean


def _agree_number(sent: Sentence, n: int, r: int) -> bool:
    """The relative or appositive phrase headed by r agrees in number with noun n (when both say)."""
    toks = sent.tokens
    want = "Plur" if _plural(sent, n) else "Sing"
    marked = [x for x in _finite_tokens(sent, r) if _feat(toks[x], "Number")]
    if toks[r].upos in ("NOUN", "PROPN") and not any(toks[c].deprel == "cop" for c in sent.children(r)):
        marked = [r] if _feat(toks[r], "Number") else []  # an apposition: the noun's own number
    return all(_feat(toks[x], "Number") == want for x in marked)


def _nested(sent: Sentence, n: int) -> bool:
    """Noun n stands inside another relative clause or an apposition (its own deprel or an ancestor's):
    "David Gamson, un producteur qui faisait partie du groupe X, qui a fini par ..." - the clause
    after it may be about the noun that clause or apposition describes."""
    toks = sent.tokens
    k, seen = n, set()
    while k != -1 and k not in seen:
        seen.add(k)
        if toks[k].deprel in ("acl:relcl", "acl", "appos"):
            return True
        if k != n and any(toks[c].deprel in _SUBJ_RELS and toks[c].text.lower() in ("qui", "que", "qu'")
                          for c in sent.children(k)):
            return True  # "un paquet installé depuis Stable et qui en est à la version 1, dont ...": the parser
            # made the second relative clause a conjunct, its subject "qui" says what it is
        k = toks[k].head
    return False


_FUSED_CASES = frozenset("du des au aux".split())


def _competing_antecedent(sent: Sentence, x: int, r: int) -> bool:
    """Token x, inside the noun phrase before a relative clause headed by r, is a noun the clause could
    describe: a complement introduced by a preposition ("du projet", "de la station NoMa") with its own
    article (a bare "de Normandie", "de football" classifies the noun before it), and not refused by
    the clause verb's number ("les adeptes du Wimax, qui perdent": Wimax is singular). A name without
    a preposition is the noun's own ("la station NoMa, qui")."""
    toks = sent.tokens
    if toks[x].upos not in ("NOUN", "PROPN", "PRON"):
        return False
    kids = sent.children(x)
    case = [c for c in kids if toks[c].deprel == "case"]
    if not case:
        return False
    if not (any(toks[c].deprel == "det" for c in kids) or any(toks[c].text.lower() in _FUSED_CASES for c in case)):
        return False
    # a name has no number of its own: its article's ("du Wimax" is singular)
    number = _feat(toks[x], "Number") or next((_feat(toks[c], "Number") for c in kids if _feat(toks[c], "Number") and (
        toks[c].deprel == "det" or toks[c].text.lower() in _FUSED_CASES)), "")
    verb = {_feat(toks[v], "Number") for v in _finite_tokens(sent, r)} - {""}
    return not (number and len(verb) == 1 and number not in verb)


def _relative_decline(sent: Sentence, n: int, r: int, lo: int, hi: int, closing: str):
    toks = sent.tokens
    if any(toks[x].text == "?" for x in range(lo, len(toks))):
        # ", qui pourrait le blâmer ?": an interrogative "qui" (who?) the parser hung on the noun; a
        # relative clause in a question would make a question of the new sentence too
        return "relative_interrogative"
    if _nested(sent, n):
        return "relative_antecedent_nested"
    if any(toks[c].deprel == "case" and toks[c].text.lower() == "entre" for c in sent.children(n)):
        # "entre le marketing de Canonical, qui ..., et leurs pratiques": the first of two terms, the second
        # after the clause; the new first sentence would keep one
        return "relative_antecedent_coordinated"
    if any(_competing_antecedent(sent, x, r) for x in range(n + 1, lo - 1)):
        # "la supervision du projet de Wang, qui consistait à ...": the clause may describe any noun of
        # the phrase (here "le projet"), not only the one the parser hung it on
        return "relative_antecedent_ambiguous"
    head = toks[n].head
    if any(toks[c].deprel == "case" and c < n for c in sent.children(n)) and head != -1 and \
            toks[head].upos in ("NOUN", "PROPN", "PRON", "NUM", "ADJ", "ADV"):
        return "relative_antecedent_ambiguous"  # "la vie de Hughes, qui ...": Hughes or the life?
    if toks[n].deprel == "conj" or any(toks[c].deprel == "conj" for c in sent.children(n)):
        return "relative_antecedent_ambiguous"
    if toks[lo].text.lower() != "où" and toks[n].deprel == "nmod" and any(
            toks[c].deprel == "case" for c in sent.children(n)):
        # "à l'est du bourg, qui est la reproduction d'un château": the clause may be about any
        # noun of the phrase ("château", "est"), not only the last one
        return "relative_antecedent_ambiguous"
    if toks[n].lemma.lower() in _VAGUE_NOUNS:
        return "relative_antecedent_ambiguous"
    if toks[lo].text.lower() == "qui" and not _agree_number(sent, n, r):
        return "relative_agreement"  # the verb's number is not the noun's: another antecedent
    if closing == "comma" and n > sent.root():
        rest = list(range(hi + 1, en._final_punct(sent)))  # pylint: disable=protected-access
        if not rest or toks[hi + 1].upos != "CCONJ" or not _is_clause(sent, hi + 2, en._final_punct(sent)):  # pylint: disable=protected-access
            return "relative_tail_ambiguous"
    return None


def _definite_np(sent: Sentence, n: int, lo: int, hi: int):
    """The phrase with a definite article for an indefinite one ("un milieu" -> "le milieu")."""
    return _repeated_np(sent, n, lo, hi)


def rule_relative(sent: Sentence):
    """"N, qui V ..., W" -> "N W" + "N V ..."; "dont", "où" and "prep + lequel" as the module docstring shows."""
    toks = sent.tokens
    unclean = None
    for r, t in enumerate(toks):
        if t.deprel != "acl:relcl":
            continue
        n = t.head
        if toks[n].upos not in ("NOUN", "PROPN"):
            continue
        delim = en._comma_delimited(sent, r)  # pylint: disable=protected-access
        if delim is None:
            continue
        lo, hi, closing = delim
        rel = toks[lo].text.lower()
        prep = None
        if rel in ("dans", "sur", "par", "pour", "avec", "sous", "selon", "parmi", "entre") and lo + 1 < hi and \
                toks[lo + 1].text.lower() in ("lequel", "laquelle", "lesquels", "lesquelles"):
            prep, rel = toks[lo].text.lower(), "lequel"
        if rel not in ("qui", "dont", "où", "lequel"):
            continue
        np = _np_without(sent, n, r)
        if np is None or np[1] != lo - 1:
            continue
        if rel == "qui" and (toks[lo].deprel not in ("nsubj", "nsubj:pass") or toks[lo].head != r):
            continue
        decline = _relative_decline(sent, n, r, lo, hi, closing)
        if decline is None and coref_fr.positional(sent, n, *np):
            decline = "relative_antecedent_positional"  # "Ce dernier, qui ...": another referent alone
        if decline is not None:
            unclean = unclean or Unclean(decline)
            continue
        np_items = _repeated_np(sent, n, *np)
        if np_items is None:
            unclean = unclean or Unclean("relative_antecedent_quantified")
            continue
        np_items = _with_article(sent, n, np_items)
        if any(toks[x].upos == "CCONJ" and toks[x - 1].text == "," for x in range(lo + 1, hi - 1)):
            # ", et par Matthew, qui ...", "la différence entre le marketing de Canonical, qui laissait entendre
            # ..., et leurs pratiques réelles": a coordination after a comma inside may belong to the main clause
            unclean = unclean or Unclean("relative_extent_unclear")
            continue
        first = list(range(0, lo - 1)) + en._after_insertion(sent, n, hi, closing)  # pylint: disable=protected-access
        body = list(range(lo + 1, hi))
        if rel == "qui":
            second = np_items + body
        elif rel == "dont":
            # "dont la spécialité était X": dont complements the relative clause's subject
            m = toks[lo].head
            if toks[lo].deprel != "nmod" or toks[m].deprel not in ("nsubj", "nsubj:pass") or \
                    toks[m].head != r or not lo < m < r:
                unclean = unclean or Unclean("relative_dont_complement")
                continue
            after = m
            while after + 1 < r and toks[after + 1].deprel == "amod" and toks[after + 1].head == m:
                after += 1
            lowered = [toks[x].text.lower() if x == np_items[0] and isinstance(x, int) and toks[x].upos == "DET"
                       else x for x in np_items]
            ins = body.index(after) + 1
            second = body[:ins] + ["de"] + lowered + body[ins:]
        else:  # où, prep + lequel: the place (or time) fronted with its preposition
            if rel == "où":
                case = [c for c in sent.children(n) if toks[c].deprel == "case" and c < n]
                if case:
                    word = " ".join(toks[c].text for c in case).lower()
                    if word not in _PLACE_PREPOSITIONS:
                        unclean = unclean or Unclean("relative_ou_preposition")
                        continue
                    words = [word]
                elif toks[n].upos == "NOUN" and toks[n].lemma.lower() not in TIME_NOUNS:
                    words = ["dans"]
                else:
                    unclean = unclean or Unclean("relative_ou_preposition")
                    continue
            else:
                words = [prep]
                body = body[1:]
            lowered = [toks[x].text.lower() if x == np_items[0] and isinstance(x, int) and toks[x].upos == "DET"
                       else x for x in np_items]
            second = words + lowered + [","] + body
        return _Match(DT.SINGLE_RELATIVE, first, _closed(sent, second), "")
    return unclean


def _in_coordination(sent: Sentence, n: int, hi: int) -> bool:
    toks = sent.tokens
    if toks[n].deprel == "conj" or any(toks[c].deprel in ("conj", "cc") for c in sent.children(n)):
        return True
    left = min(sent.subtree(n)) - 1
    while left >= 0 and toks[left].upos == "PUNCT":
        left -= 1
    if left >= 0 and toks[left].upos == "CCONJ":
        return True
    if min(sent.subtree(n)) > 0 and toks[min(sent.subtree(n)) - 1].text == "," and \
            toks[n].deprel not in ("nsubj", "nsubj:pass"):
        return True
    end = en._final_punct(sent)  # pylint: disable=protected-access
    return hi + 1 < end and toks[hi + 1].upos == "CCONJ" and not _is_clause(sent, hi + 2, end)


def _copula(sent: Sentence, plural: bool) -> str:
    """"est"/"sont" when the main clause is in the present, else "était"/"étaient"."""
    root = sent.root()
    fin = _finite_tokens(sent, root)
    tenses = {_feat(sent.tokens[x], "Tense") for x in fin if _feat(sent.tokens[x], "VerbForm") == "Fin"}
    past = bool(tenses & {"Past", "Imp"}) or any(sent.tokens[x].deprel == "aux:tense" for x in fin)
    if past:
        return "étaient" if plural else "était"
    return "sont" if plural else "est"


def rule_apposition(sent: Sentence):
    """"X, un film sur Y, V." -> "X V." + "X est un film sur Y."."""
    toks = sent.tokens
    unclean = None
    for a, t in enumerate(toks):
        if t.deprel != "appos":
            continue
        n = t.head
        if toks[n].upos not in ("NOUN", "PROPN") or n > a or toks[a].upos not in ("NOUN", "PROPN"):
            continue
        if any(toks[x].lemma.lower() in MONTHS or toks[x].upos == "NUM" for x in (n, a) + tuple(
                sent.children(n)) + tuple(sent.children(a))):
            continue  # a date or a number, not a description
        delim = en._comma_delimited(sent, a)  # pylint: disable=protected-access
        if delim is None:
            continue
        lo, hi, closing = delim
        if not (toks[lo].deprel == "det" and toks[lo].head == a):
            continue  # a bare noun ("Lodz, ville d'origine de son père") takes no article after "est"
        if toks[n].deprel == "xcomp" or any(toks[x].deprel == "conj" for x in sent.children(a)):
            continue
        if closing == "end" and t.lemma.lower() in SHELL_NOUNS:
            unclean = unclean or Unclean("apposition_to_clause")
            continue
        if toks[n].deprel == "nmod" and toks[toks[n].head].deprel == "nmod":
            unclean = unclean or Unclean("apposition_antecedent_ambiguous")
            continue
        if _in_coordination(sent, n, hi):
            unclean = unclean or Unclean("apposition_in_coordination")
            continue
        if any(toks[x].text in (",", "(", ")") for x in range(lo, hi)):
            unclean = unclean or Unclean("apposition_extent_unclear")
            continue
        if closing == "comma" and hi + 1 < len(toks) and toks[hi + 1].upos == "DET":
            # "les informations correspondant à la couche physique, la couche Ethernet, les informations du
            # paquet IP, puis ...": a third noun phrase after it makes a list, not an apposition
            unclean = unclean or Unclean("apposition_in_list")
            continue
        if not _agree_number(sent, n, a):
            unclean = unclean or Unclean("apposition_agreement")
            continue
        np = _np_without(sent, n, a)
        if np is None or np[1] != lo - 1:
            continue
        if toks[np[0]].text.lower() in INDEFINITE | NEGATIVE_OR_COUNTING:
            continue
        if coref_fr.positional(sent, n, *np):
            unclean = unclean or Unclean("apposition_antecedent_positional")
            continue
        plural = _plural(sent, n)
        be = _copula(sent, plural)
        first = list(range(0, lo - 1)) + en._after_insertion(sent, n, hi, closing)  # pylint: disable=protected-access
        second = _closed(sent, list(range(*np)) + [be] + list(range(lo, hi)))
        return _Match(DT.SINGLE_APPOSITION, first, second, "")
    return unclean


SINGLE_RULES = (rule_conn_start, rule_relative, rule_apposition, rule_conn_inner, rule_coordination)


# --------------------------------------------------------------------------
# Anaphora, assembly, filters
# --------------------------------------------------------------------------

def antecedents(doc: AnnotatedDocument):
    """(sentence, token start) of each later mention -> (antecedent Mention, is_pronoun, end), French's pronouns."""
    return en._antecedents(doc, coref_fr.PRONOUNS)  # pylint: disable=protected-access


def _substitute(doc, table, s_idx, items, allowed):
    """Replace the first resolved subject pronoun among `items` by its antecedent's phrase; an
    Unclean when the pronoun's verb wants a person (`coref_fr.wants_person`: "il reçut la médaille",
    "il refusa de croire") and the antecedent is not one a person can be (`coref_fr.person_antecedent`):
    `anaphora_not_person` (an inanimate noun, a place) or `anaphora_person_unknown` (a proper noun
    without a named-entity tag: gender and number are all the resolver had)."""
    for pos, x in enumerate(items):
        if not isinstance(x, int) or (s_idx, x) not in table:
            continue
        rep, pron, end = table[(s_idx, x)]
        if not allowed(rep) or end != x + 1:
            continue
        rsent = doc.sentences[rep.sentence]
        if pron and coref_fr.wants_person(doc.sentences[s_idx], x):
            why = coref_fr.person_antecedent(rsent, rep.start, rep.end)
            if why is not None:
                return Unclean(f"anaphora_{why}")
        heads = [k for k in range(rep.start, rep.end) if not rep.start <= rsent.tokens[k].head < rep.end]
        phrase = _repeated_np(rsent, heads[0], rep.start, rep.end) if len(heads) == 1 else None
        if phrase is None:
            # "de nombreux utilisateurs", "aucun paquet": written for "ils" it names others, or none
            return Unclean("anaphora_antecedent_quantified")
        # "Un témoin ... Il donne" -> "Le témoin donne": the indefinite article took the definite one
        words = [rsent.tokens[k].text if isinstance(k, int) else k for k in phrase]
        first = rsent.tokens[rep.start]
        if rep.start == 0 and pos > 0 and first.upos != "PROPN" and not words[0][1:2].isupper():
            words[0] = words[0].lower()  # "Loin d'être isolés, tous ces mécanismes", not "Tous"
        return items[:pos] + words + items[pos + 1:], "pronoun" if pron else "nominal"
    return None


_ANAPHORA_OF = {DT.SINGLE_CONN_INNER: DT.SINGLE_CONN_INNER_ANAPHORA,
                DT.SINGLE_S_COORD: DT.SINGLE_S_COORD_ANAPHORA}


def match_single(doc: AnnotatedDocument, i: int, table=None):
    """As `discofuse.match_single`, with the French rules."""
    return en.match_single(doc, i, table, lang=LANGUAGE)


def match_pair(doc: AnnotatedDocument, i: int, table=None):
    """As `discofuse.match_pair`, with French connectives and pronouns."""
    return en.match_pair(doc, i, table, lang=LANGUAGE)


_BRACKET_DEPTH = {"(": 1, ")": -1, "[": 1, "]": -1}


def _balanced(text: str) -> bool:
    """Brackets pair up, counted as characters (the tokenizer leaves some glued to a word: "[ 1].",
    "bjórr(un", which English's token check took for unbalanced), double quotes pair up, and French
    quotes « » too."""
    depth = 0
    for ch in text:
        depth += _BRACKET_DEPTH.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0 and text.count('"') % 2 == 0 and text.count("«") == text.count("»")


# A reference or list entry, not prose: "- Christine Deviers-Joncour , Opération Bravo , Pocket ( 2000 ) ." (lid.176
# calls it French, 0.47: its title is). Mostly capitalised words, and a list dash up front or a year at the end.
_LIST_MARKS = ("-", "–", "—", "•", "*", "·")
_YEAR_AT_END = re.compile(r"[12]\d{3}\s*\)?\s*[.;]?\s*$")
MIN_CAPITALISED_SHARE = 0.6  # ours: no GSD dev/test sentence (1,892) reaches it with a dash or a final year


def reference_entry(text: str) -> bool:
    """The text is a bibliography or list entry (names, a title, a publisher, a year), not a sentence."""
    toks = text.split()
    listed = bool(toks) and toks[0] in _LIST_MARKS
    words = [t for t in toks[1 + listed:] if t[:1].isalpha()]
    if not words or "," not in toks:
        return False
    capitalised = sum(1 for t in words if t[:1].isupper()) / len(words)
    return capitalised >= MIN_CAPITALISED_SHARE and (listed or bool(_YEAR_AT_END.search(text)))


_NO_START = (".", "..", "...", "…", "—", "–", "-")


def _cut_start(ex: FusionExample) -> bool:
    """An output sentence starts where no sentence starts, and its input sentence did not: with a stop or a dash
    (". est un synonyme ...": a split at "nommé .. tandis que ."), or the second with a coordinator ("Et après
    que ..." once "Ensuite ," is gone)."""
    for out in (ex.incoherent_first_sentence, ex.incoherent_second_sentence):
        if out and out.split()[0] in _NO_START:
            return True
    second = ex.incoherent_second_sentence.split()
    original = ex.coherent_second_sentence.split() or [""]
    return bool(second) and second[0].lower() in DANGLING_COORDINATORS and original[0].lower() != second[0].lower()


def _fragment(text: str) -> bool:
    toks = text.split()
    if toks[0] in (",", ";", ":"):
        return True
    body = toks[:-1] if toks[-1] in FINAL_PUNCT else toks
    return bool(body) and body[-1].lower() in DANGLING_COORDINATORS + (",", ";", ":")


def drop_reason(ex: FusionExample, options: Options):
    """English's filters (`discofuse._drop_reason`) with French quotes and coordinators."""
    texts = [ex.coherent_first_sentence, ex.coherent_second_sentence,
             ex.incoherent_first_sentence, ex.incoherent_second_sentence]
    if any(TEMPLATE_HOLE in t for t in texts):
        return "template_hole"
    if options.min_tokens and any(t and len(t.split()) < options.min_tokens for t in texts):
        return "short_sentence"
    if options.ascii_only and not all(t.isascii() for t in texts):
        return "non_ascii"
    if any(t and (not en._is_prose(t) or reference_entry(t)) for t in texts):  # pylint: disable=protected-access
        return "not_prose"
    if any(not _balanced(t) for t in texts):
        return "unbalanced_brackets"
    if any(t and _fragment(t) for t in texts) or _cut_start(ex):
        return "fragment"
    return None


#: French's rules and helpers for `discofuse.match_single` and `discofuse.match_pair`.
LANGUAGE = en.Language(single_rules=SINGLE_RULES, rule_errors=(IndexError, ValueError, KeyError),
                       anaphora_of=_ANAPHORA_OF, antecedents=antecedents, substitute=_substitute, render=_render,
                       pair_connective=pair_connective)

#: What `discofuse.mine_document` calls for a French document.
RULES = types.SimpleNamespace(match_single=match_single, match_pair=match_pair, antecedents=antecedents,
                              drop_reason=drop_reason)


def mine_document(doc: AnnotatedDocument, options: Options = Options(ascii_only=False), inc=None):
    """All French examples of one annotated document (as `discofuse.mine_document`)."""
    return en.mine_document(doc, options, inc, rules=RULES)
