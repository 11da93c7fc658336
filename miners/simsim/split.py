"""Simulated splitting (issue 51): one sentence of two coordinated clauses becomes two sentences.

The SimSim paper's third operation came only from WikiSplit seeds; on text seeds s3 could split
nothing. A sentence whose root clause is coordinated with a second clause that has a subject and a
finite verb of its own ("Syllabaries contain 50 to 400 glyphs, and the glyphs of logographic systems
number in the thousands") says the same as two sentences ("... 400 glyphs. The glyphs of ...").
The split is made on the dependency parse (UD v2) only where it proves the two clauses independent:

  - the second clause is a `conj` or `parataxis` of the root, after it, with its own subject (not a
    relative pronoun) and a finite verb, reaching the sentence's end;
  - they are joined by ", and", ", but", ", so" or ";" (no other joining word: "or" and "for" would
    change what is said alone);
  - nothing of the first clause before its subject would scope over the second ("In 1990, he moved and
    she stayed": `fronted_modifier`), and the root is no subordinate clause;
  - each part has at least MIN_SPLIT_WORDS words, balanced brackets and quotes, and (with a parser)
    parses again as a clause.

"and" goes; "but" and "so" open the second sentence ("But ...", "So ..."). Each refusal is a reason
(`SPLIT_REASONS`), counted by the job as `simulate/split:<reason>`.
"""
from typing import Callable, List, Optional, Tuple

from miners.nlp.annotation import Sentence

# The joining words a split may take, and the word that then opens the second sentence ("" : none).
SPLIT_CONJUNCTIONS = {"and": "", "but": "But", "so": "So"}
# Each part of a split has at least this many words (project default: "It rained. He left." splits
# nothing a reader needs split).
MIN_SPLIT_WORDS = 4
SPLIT_REASONS = ("split", "no_second_clause", "subordinate", "joining_word", "fronted_modifier", "list",
                 "word_order", "subject_not_repeatable", "discofuse_declined", "fragment", "too_short", "unbalanced",
                 "no_clause")
# A name the second sentence may repeat as its subject has at most this many words (project default).
MAX_NAME_WORDS = 4
_PRONOUN_SUBJECTS = frozenset("he she it they we i you".split())
_SUBJECTS = frozenset({"nsubj", "nsubj:pass", "csubj", "csubj:pass", "expl", "nsubjpass", "csubjpass"})
_FINITE = frozenset({"VBD", "VBZ", "VBP", "MD"})
_RELATIVE = frozenset("who whom whose which that where when".split())
# Dependents of the root before its subject that scope over a coordinated second clause too.
_SCOPING = frozenset({"advcl", "obl", "advmod", "mark", "obl:tmod", "obl:npmod", "prep", "npadvmod", "ccomp"})


def _finite(sentence: Sentence, k: int) -> bool:
    toks = sentence.tokens
    return toks[k].xpos in _FINITE or any(
        toks[c].xpos in _FINITE and toks[c].deprel.split(":")[0] in ("aux", "cop") for c in sentence.children(k))


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count('"') % 2 == 0 and \
        text.count("\u201c") == text.count("\u201d")


def _words(text: str) -> int:
    return sum(1 for w in text.split() if any(ch.isalnum() for ch in w))


def split_candidates(sentence: Sentence) -> List[int]:
    """Tokens heading a second clause of the root that could stand alone: a `conj` or `parataxis` of
    the root, after it, with a subject of its own that is no relative pronoun, and a finite verb."""
    toks = sentence.tokens
    root = sentence.root()
    if root < 0:
        return []
    out = []
    for k in sentence.children(root):
        if k <= root or toks[k].deprel.split(":")[0] not in ("conj", "parataxis"):
            continue
        subjects = [c for c in sentence.children(k) if toks[c].deprel in _SUBJECTS and c < k]
        if not subjects or any(toks[c].text.lower() in _RELATIVE for c in subjects):
            continue
        if _subordinate(sentence, k):
            continue
        if _finite(sentence, k):
            out.append(k)
    return out


def _subordinate(sentence: Sentence, k: int) -> bool:
    """Whether the clause headed by `k` opens with a subordinator ("..., and that later he would ..."): the
    parser hung a second complement clause on the root, which alone is no sentence (issue 51's held-out
    reading: "X stated that ..., and that later he would ...")."""
    toks = sentence.tokens
    return any(toks[c].deprel == "mark" and c < k for c in sentence.children(k))


def _subject_copy(sentence: Sentence, text: str, offsets, subject: int) -> Optional[str]:
    """The root's subject as the second sentence may repeat it: a personal pronoun, or a name of at most
    MAX_NAME_WORDS words (proper nouns, "the", "of", "and")."""
    toks = sentence.tokens
    span = sentence.subtree(subject)
    if span != list(range(span[0], span[-1] + 1)):
        return None
    words = [toks[k] for k in span]
    if len(words) == 1 and words[0].text.lower() in _PRONOUN_SUBJECTS:
        return words[0].text[:1].upper() + words[0].text[1:]
    if len(words) <= MAX_NAME_WORDS and any(w.upos == "PROPN" for w in words) and all(
            w.upos == "PROPN" or w.text.lower() in ("the", "of", "and") for w in words):
        name = text[offsets[span[0]][0]:offsets[span[-1]][1]]
        return name[:1].upper() + name[1:]
    return None


def _relative_subject(sentence: Sentence, relcl: int) -> Optional[Tuple[int, str]]:
    """(the relative pronoun, the pronoun that stands for it alone) of a relative clause opened by
    "which" (its noun singular: "It", plural: "They") or "who" (plural noun: "They"), as its subject."""
    toks = sentence.tokens
    noun = toks[relcl].head
    subj = [c for c in sentence.children(relcl) if toks[c].deprel in _SUBJECTS]
    if noun < 0 or len(subj) != 1 or toks[subj[0]].text.lower() not in ("which", "who"):
        return None
    plural = toks[noun].xpos in ("NNS", "NNPS")
    verbs = [relcl] + [c for c in sentence.children(relcl) if toks[c].deprel.split(":")[0] in ("aux", "cop")]
    forms = {toks[v].text.lower() for v in verbs} | {toks[v].xpos for v in verbs}
    says_plural = bool(forms & {"were", "are", "have", "do", "VBP"})
    says_singular = bool(forms & {"was", "is", "has", "does", "VBZ"})
    if (says_plural and not plural) or (says_singular and plural):
        return None  # the verb agrees with another noun than the one the parser hung the clause on
    if toks[subj[0]].text.lower() == "who" and not plural:
        return None  # "he" or "she": the sentence does not say
    if toks[noun].upos not in ("NOUN", "PROPN"):
        return None
    return subj[0], "They" if plural else "It"


def split_sentence(text: str, sentence: Sentence, offsets: List[Tuple[int, int]],
                   reparse: Optional[Callable] = None, is_clause: Optional[Callable] = None
                   ) -> Tuple[str, str]:
    """(two sentences, "split") or (text unchanged, why not: SPLIT_REASONS): two coordinated clauses
    (`split_clauses`), else a verb phrase coordinated with the root's and the root's subject repeated
    ("He was born in Lyon and died in Paris" -> "... Lyon. He died in Paris"), else a relative clause
    that ends the sentence with its pronoun as the new subject ("..., which lies on the Seine." ->
    "... It lies on the Seine.")."""
    out, reason = split_clauses(text, sentence, offsets, reparse, is_clause)
    if reason != "no_second_clause":
        return out, reason
    for attempt in (_split_verb_phrase, _split_relative, _split_discofuse):
        out, why = attempt(text, sentence, offsets, reparse, is_clause)
        if why == "split" or why == "word_order":  # the relative clause DiscoFuse would split is as unfit
            return out, why
        if why != "no_second_clause":
            reason = why
    return text, reason


def render(text: str, sentence: Sentence, offsets: List[Tuple[int, int]], items) -> str:
    """A sentence of `items` (token indices of `sentence`, or inserted words) written as `text` spaces its
    tokens where they stand side by side there, one space elsewhere (none before punctuation), with a capital
    first letter."""
    toks = sentence.tokens
    out = ""
    prev = None
    for item in items:
        word = toks[item].text if isinstance(item, int) else item
        if prev is None:
            sep = ""
        elif isinstance(prev, int) and isinstance(item, int) and item == prev + 1:
            sep = text[offsets[prev][1]:offsets[item][0]]
        else:
            sep = "" if word in (",", ".", ";", ":", ")", "'s", "'", "!", "?") else " "
        out += sep + word
        prev = item
    out = out.strip().lstrip(",;: ")
    return out[:1].upper() + out[1:]


def _antecedent_in_phrase(sentence: Sentence) -> bool:
    """Whether the noun a comma-set relative clause hangs from is a preposition's object ("operating in different
    parts of the country, which not only provide revenues", "winds blowing from the mountains, which can propel
    temperatures"): the clause is as often about the noun before the phrase, and DiscoFuse's rule repeats the
    nearer one (the tuning text)."""
    toks = sentence.tokens
    for k, t in enumerate(toks):
        if t.deprel == "acl:relcl" and 0 <= t.head < k and k > 0:
            n = t.head
            if any(toks[c].deprel == "case" and c < n for c in sentence.children(n)):
                return True
    return False


def _split_discofuse(text, sentence, offsets, reparse, is_clause) -> Tuple[str, str]:
    """A relative clause or an apposition set off by commas made a sentence of its own by DiscoFuse's rules
    (miners/discofuse/rules.py, `rule_relative`, `rule_apposition`: judged A, meaning kept, in 92% of a
    blind sample there; docs/DISCOFUSE_QUALITY.md): "Kubler, who retired in 1957, remained ..." -> "Kubler
    remained .... Kubler retired in 1957."; "Prometheus, the fore-thinker, warned Zeus" -> "Prometheus warned
    Zeus. Prometheus was the fore-thinker." Where a rule declines (an unsure antecedent or extent), the
    sentence is not split ("discofuse_declined")."""
    from miners.discofuse import rules
    declined = False
    for rule in (rules.rule_relative, rules.rule_apposition):
        try:
            match = rule(sentence)
        except (IndexError, ValueError):
            match = None
        if isinstance(match, rules.Unclean):
            declined = True
            continue
        if match is None:
            continue
        if rule is rules.rule_relative and _antecedent_in_phrase(sentence):
            return text, "discofuse_declined"
        left = render(text, sentence, offsets, match.first)
        right = render(text, sentence, offsets, match.second)
        out, why = _finish(text, left, right, reparse, is_clause)
        if why == "split" and not rules._fragment(left) and not rules._fragment(right):
            return out, why
        return text, why if why != "split" else "fragment"
    return text, "discofuse_declined" if declined else "no_second_clause"


def _finish(text, left, opener_rest, reparse, is_clause) -> Tuple[str, str]:
    right = opener_rest
    if left[-1:] not in ".!?":
        left += "."
    if right[-1:] not in ".!?\"'\u201d)":
        right += "."
    if _words(left) < MIN_SPLIT_WORDS or _words(right) < MIN_SPLIT_WORDS:
        return text, "too_short"
    if not (_balanced(left) and _balanced(right)):
        return text, "unbalanced"
    if reparse is not None and is_clause is not None:
        for part in (left, right):
            parsed = reparse(part)
            if isinstance(parsed, Exception) or parsed is None or not is_clause(parsed):
                return text, "no_clause"
    return f"{left} {right}", "split"


def _root_and_subject(sentence: Sentence):
    toks = sentence.tokens
    root = sentence.root()
    if root < 0:
        return None
    subject = min((c for c in sentence.children(root) if toks[c].deprel in _SUBJECTS), default=None)
    if subject is None or subject > root:
        return None
    if any(c < subject and toks[c].deprel in _SCOPING for c in sentence.children(root)):
        return None
    return root, subject


def _split_verb_phrase(text, sentence, offsets, reparse, is_clause) -> Tuple[str, str]:
    toks = sentence.tokens
    found = _root_and_subject(sentence)
    if found is None:
        return text, "no_second_clause"
    root, subject = found
    last = max(i for i, t in enumerate(toks) if t.upos != "PUNCT")
    for k in sentence.children(root):
        if k <= root or toks[k].deprel != "conj" or toks[k].upos not in ("VERB", "AUX"):
            continue
        if any(toks[c].deprel in _SUBJECTS for c in sentence.children(k)) or not _finite(sentence, k) \
                or _subordinate(sentence, k):
            continue
        sub = sentence.subtree(k)
        if max(sub) < last or sub != list(range(sub[0], sub[-1] + 1)):
            continue
        # the words between the first verb phrase and the second: [","] "and"
        cc = [c for c in sentence.children(k) if toks[c].deprel == "cc" and c < k] + \
             [c for c in sentence.children(root) if toks[c].deprel == "cc" and root < c < k]
        if len(cc) != 1 or toks[cc[0]].text.lower() != "and":
            return text, "joining_word"
        start = cc[0]
        body = start + 1
        left_end = start - 1
        while left_end >= 0 and toks[left_end].text == "," and toks[left_end].upos == "PUNCT":
            left_end -= 1
        if any(t.upos != "PUNCT" for t in toks[left_end + 1:start]) or body != min(j for j in sub if j > start):
            return text, "joining_word"
        if any(toks[c].text in (",", ";") and root < c < left_end for c in sentence.children(root)):
            # a comma of the root's own before the last predicate: a list of them ("Algae are prominent in
            # water, common on land and are found on snow" -> "Algae are prominent in water, common on land.")
            return text, "list"
        name = _subject_copy(sentence, text, offsets, subject)
        if name is None:
            return text, "subject_not_repeatable"
        left = text[:offsets[left_end][1]].rstrip()
        return _finish(text, left, f"{name} {text[offsets[body][0]:].strip()}", reparse, is_clause)
    return text, "no_second_clause"


def _split_relative(text, sentence, offsets, reparse, is_clause) -> Tuple[str, str]:
    toks = sentence.tokens
    if _root_and_subject(sentence) is None:
        return text, "no_second_clause"
    last = max(i for i, t in enumerate(toks) if t.upos != "PUNCT")
    for k, t in enumerate(toks):
        if t.deprel != "acl:relcl":
            continue
        sub = [j for j in sentence.subtree(k) if not (toks[j].upos == "PUNCT" and j > last)]
        if max(sub) < last or sub != list(range(sub[0], sub[-1] + 1)):
            continue
        if sub[0] < 2 or toks[sub[0] - 1].text != ",":
            continue  # restrictive ("the house that Jack built"): not a statement of its own
        found = _relative_subject(sentence, k)
        if found is None or found[0] != sub[0]:
            return text, "subject_not_repeatable"
        nxt = sub[0] + 1
        if nxt != k and not (toks[nxt].head == k and toks[nxt].deprel.split(":")[0] in ("aux", "cop", "advmod")):
            # a phrase between the pronoun and its verb: "..., which at a rate of 4.4 million barrels a day would
            # last 200 years" -> "It at a rate of ... would last" (the tuning text)
            return text, "word_order"
        pronoun = found[1]
        left = text[:offsets[sub[0] - 2][1]].rstrip()
        rest = text[offsets[sub[0]][1]:].strip()
        return _finish(text, left, f"{pronoun} {rest}", reparse, is_clause)
    return text, "no_second_clause"


def split_clauses(text: str, sentence: Sentence, offsets: List[Tuple[int, int]],
                  reparse: Optional[Callable] = None, is_clause: Optional[Callable] = None
                  ) -> Tuple[str, str]:
    """(two sentences, "split") or (text unchanged, why not: SPLIT_REASONS).

    Args:
      text: the sentence as written; `offsets` each token's character span in it.
      sentence: its UD parse.
      reparse, is_clause: the parser (text -> Sentence or an exception) and the clause test; with
        both, each part must parse as a clause again.
    """
    toks = sentence.tokens
    root = sentence.root()
    candidates = split_candidates(sentence)
    if root < 0 or not candidates:
        if root >= 0 and any(k > root and toks[k].deprel.split(":")[0] in ("conj", "parataxis")
                             and _subordinate(sentence, k) for k in sentence.children(root)):
            return text, "subordinate"
        return text, "no_second_clause"
    if toks[root].deprel != "root" and toks[root].head != -1:
        return text, "no_second_clause"
    k = candidates[-1]
    sub = sentence.subtree(k)
    last = max(i for i, t in enumerate(toks) if t.upos != "PUNCT")
    if max(sub) < last or sub != list(range(sub[0], sub[-1] + 1)):
        return text, "no_second_clause"
    first = sub[0]
    # the joining tokens: [","] [cc] or [";"], then the second clause's first word
    body = first
    while body < len(toks) and (toks[body].upos in ("PUNCT", "CCONJ") or toks[body].deprel == "cc") \
            and toks[body].text not in ('"', "(", "\u201c"):
        body += 1
    joint = [toks[i].text.lower() for i in range(first, body)]
    left_end = first - 1
    while left_end >= 0 and ((toks[left_end].text in (",", ";") and toks[left_end].upos == "PUNCT")
                             or toks[left_end].upos == "CCONJ" or toks[left_end].deprel == "cc"):
        joint.insert(0, toks[left_end].text.lower())
        left_end -= 1
    if left_end < 0 or body >= len(toks):
        return text, "no_second_clause"
    words = [w for w in joint if w not in (",", ";")]
    if joint == [";"]:
        opener = ""
    elif joint and joint[0] == "," and len(words) == 1 and words[0] in SPLIT_CONJUNCTIONS and len(joint) == 2:
        opener = SPLIT_CONJUNCTIONS[words[0]]
    else:
        return text, "joining_word"
    subject = min((c for c in sentence.children(root) if toks[c].deprel in _SUBJECTS), default=None)
    if subject is None or subject > root:
        return text, "fronted_modifier"  # no subject before the root: an inversion or a fragment
    if any(c < subject and toks[c].deprel in _SCOPING for c in sentence.children(root)):
        return text, "fronted_modifier"
    left = text[:offsets[left_end][1]].rstrip()
    rest = text[offsets[body][0]:].strip()
    if opener:
        right = f"{opener} {rest}"
    else:
        right = rest[:1].upper() + rest[1:]
    if left[-1:] not in ".!?":
        left += "."
    if right[-1:] not in ".!?\"'\u201d)":
        right += "."
    if _words(left) < MIN_SPLIT_WORDS or _words(rest) < MIN_SPLIT_WORDS:
        return text, "too_short"
    if not (_balanced(left) and _balanced(right)):
        return text, "unbalanced"
    if reparse is not None and is_clause is not None:
        for part in (left, right):
            parsed = reparse(part)
            if isinstance(parsed, Exception) or parsed is None or not is_clause(parsed):
                return text, "no_clause"
    return f"{left} {right}", "split"
