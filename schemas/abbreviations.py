"""Abbreviations: the one lexicon and the one rule for "does this period end a sentence".

Used by the sentence segmenter (`miners.text.segmenter`) and by the release tokenizer
(`schemas.release`), so that a period the segmenter kept inside a sentence is a
period the tokenizer keeps on its word ("LL.B.", "e.g.", "Fig."), and a period
that ends a sentence is split off by both. It lives in `schemas/` because the
release tokenizer is part of the release format and `schemas/` imports nothing
from `miners/`.

A period right after a word `w` (brackets and quotes around `w` removed) and
before the next word `n` ends a sentence unless `w` is an abbreviation and:

  * `w` is in `NOT_FINAL` (titles, `e.g.`, `cf.`, `Eq.`, `Sec.`: always followed by
    what they introduce): never a sentence end;
  * `w` is in `BEFORE_NUMBER` (abbreviations that are also English words: `Fig.`,
    `No.`, `Art.`, `Tab.`): never a sentence end before a number (`Fig. 3`,
    `Fig. S1`, `No. 5`, `Art. IV`, `est. 1850`), else one like a plain word;
  * `w` is in `FINAL_BEFORE_STARTER` (company and name suffixes, `et al.`, months,
    place words), a single letter (an initial, `b.`/`c.`/`d.` before a date) or a
    multi-period acronym (`U.S.`, `Ph.D.`, `LL.B.`, `S.A.`): a sentence end only
    when `n` is a word that opens sentences (`SENTENCE_STARTERS`: "The", "He",
    "However", "We", ...), so "Acme Holdings SA. Like its ..." and "in the U.S. About
    three-fifths ..." are cut, "the U.S. Army", "Smith et al. (2019)",
    "(b. 12 March 1950)" and "J. R. R. Tolkien" are not;
  * `w` is in `FINAL` (`etc.`): a sentence end before any capitalised word, like
    an ordinary word; listed so that the tokenizer keeps "etc.," whole.

Whatever follows in lower case, the segmenter never cuts (its own rule).
"""
import re
import typing

#: Never end a sentence: titles before a name, Latin and reference abbreviations before their
#: complement ("e.g. BERT", "cf. Section 2", "Eq. (2)", "Sec. 4", "approx. 0.5").
#: Lower-case, without the final period. Sources: the segmenter's and the release tokenizer's
#: former lists, the issue's scientific cases, and the abbreviations cut wrongly in tune.tsv
#: ("Pt. 2", "pg. 204", "Cpl. Richard", "Hon. Awori", "Adv. Kutte").
NOT_FINAL = frozenset("""
mr mrs ms messrs mme mlle dr drs prof rev revd hon gen col lt maj capt cpt cmdr cdr adm sgt cpl pvt
gov sen rep pres supt insp fr rt adv
e.g i.e cf viz vs a.k.a approx ca incl esp resp
eq eqs eqn eqns sec secs sect ch chap chs vol vols pp pg pt nr thm lem
""".split())

#: Never end a sentence before a number, else end it like a plain word: abbreviations that are also
#: English words, so that "... the form of a work of art. Spiritual life is ..." (Wikipedia sample)
#: is cut and "Fig. 3", "Figs. 2 and 3", "No. 5", "Art. 12", "Tab. 1", "est. 1850" are not.
BEFORE_NUMBER = frozenset("""
fig figs tab tabs no nos art sat est ref refs
""".split())

#: May end a sentence, but only before a sentence starter: suffixes of company and personal names,
#: "et al.", place words, months.
FINAL_BEFORE_STARTER = frozenset("""
inc ltd co corp llc plc sa ag nv bv gmbh pty bros jr sr esq al
st mt ft ave blvd rd hwy dept univ assn ed eds op var proc conf eng
jan feb mar apr jun jul aug sep sept oct nov dec
""".split())

#: End a sentence before any capitalised word (like a plain word); listed for the tokenizer.
FINAL = frozenset(["etc"])

#: Every word the lexicon knows, lower-case, without the final period.
ABBREVIATIONS = NOT_FINAL | BEFORE_NUMBER | FINAL_BEFORE_STARTER | FINAL

#: Words that open sentences and rarely follow an abbreviation inside a name ("U.S. Army",
#: "St. Louis", "Acme Inc. CEO"): closed-class words, sentence adverbs and connectives among the
#: 400 most frequent sentence-initial words of the bundled English Wikipedia sample and of the
#: second sentences of tune.tsv, plus openers of scientific prose ("We", "Our", "Here").
#: Left out on purpose: "I" and "May" (initials, names, months), "No" ("Dr. No"), "Will".
SENTENCE_STARTERS = frozenset("""
A An The This That These Those It Its He She They We You His Her Their Our My There Here
In On At By For From With Without Within To Of As After Before During Since Until Upon Under Over
Between Among Along Around Through Throughout About According Following Despite Unlike Like Due
Prior Beyond Against Besides Outside Inside Toward Towards Across
When While Although Though Because If Once Whereas Whether Unless Where Why How What Which Who Whose
But And Or Nor So Yet Also However Moreover Furthermore Nevertheless Nonetheless Therefore Thus Hence
Meanwhile Instead Indeed Similarly Likewise Additionally Consequently Finally Later Then Now Today
Currently Eventually Originally Previously Subsequently Afterwards Afterward Initially Recently
Ultimately Conversely Alternatively Overall Generally Historically Notably Specifically Still Even
Only Perhaps Soon Often Sometimes Lastly First Second Third Next Further Rather Together Shortly
Nearly Almost Just Much Many Most Some Several Both Each Every Any All Few Other Others Another Such
Neither Either One Two Three Four Five Having Being Given Using Note Not
""".split())

# "U.S", "Ph.D", "LL.B", "e.g", "a.k.a", "S.A" (the final period removed): short letter groups
# joined by periods. Longer groups ("Amazon.com") are names, not abbreviations.
_ACRONYM = re.compile(r"(?:[A-Za-z]{1,3}\.)+[A-Za-z]{1,3}")

NOT_AN_ABBREVIATION, ENDS_NEVER, ENDS_BEFORE_STARTER, ENDS_BEFORE_CAPITAL, ENDS_UNLESS_NUMBER = 0, 1, 2, 3, 4

# A number as the next word: a digit after opening brackets, a currency sign or up to two letters
# ("3", "(2)", "[12]", "$5", "S1", "A2"), or a Roman numeral ("IV", "XII,").
_NUMBER = re.compile(r"[(\[$\u00a3\u20ac#]*(?:[A-Za-z]{0,2}\d|[IVXLC]+(?![^\W\d_]))")

#: Opening brackets and quotes stripped off a word before it is looked up.
OPENERS = "([{\"'\u201c\u2018"
#: Closing punctuation stripped off the next word before it is looked up.
_NEXT_TRAILING = ",;:)]}\"'\u201d\u2019!?"


def kind(word: str) -> int:
    """How a period right after `word` behaves (one of the module's `ENDS_*` constants).

    Args:
      word: the word before the period, without that period and without opening brackets
        or quotes ("al", "U.S", "Fig", "b").

    Returns:
      `NOT_AN_ABBREVIATION` for ordinary words, else the abbreviation's kind.
    """
    low = word.lower()
    if low in NOT_FINAL:
        return ENDS_NEVER
    if low in BEFORE_NUMBER:
        return ENDS_UNLESS_NUMBER
    if low in FINAL_BEFORE_STARTER:
        return ENDS_BEFORE_STARTER
    if low in FINAL:
        return ENDS_BEFORE_CAPITAL
    if len(word) == 1:
        # An initial ("J. R. R. Tolkien") or a dating letter ("b. 1950", "c. 1470", "d. 1613").
        return ENDS_BEFORE_STARTER if word.isalpha() else NOT_AN_ABBREVIATION
    if "." in word and _ACRONYM.fullmatch(word):
        return ENDS_BEFORE_STARTER
    return NOT_AN_ABBREVIATION


def is_starter(next_word: str) -> bool:
    """True if `next_word` (as written, brackets and trailing commas allowed) opens sentences."""
    return next_word.lstrip(OPENERS).rstrip(_NEXT_TRAILING) in SENTENCE_STARTERS


def period_ends_sentence(word: str, next_word: typing.Optional[str]) -> bool:
    """The rule: does a period between `word` and `next_word` end a sentence?

    Args:
      word: the word the period follows, without the period and without opening brackets or
        quotes.
      next_word: the next whitespace-separated token as written; None at the end of the text
        (where any period but that of a `NOT_FINAL` abbreviation ends the sentence).

    Returns:
      True when the period ends the sentence (the segmenter cuts, the tokenizer splits it off).
    """
    k = kind(word)
    if k == NOT_AN_ABBREVIATION:
        return True
    if k == ENDS_NEVER:
        return False
    if next_word is None:
        return True
    if k == ENDS_UNLESS_NUMBER:
        return _NUMBER.match(next_word) is None
    if k == ENDS_BEFORE_CAPITAL:
        first = next_word.lstrip(OPENERS)[:1]
        return first.isupper() or first.isdigit()
    return is_starter(next_word)
