"""Discourse markers of any language for Discovery (issue 33, item 6): lexicons and their matcher.

Sileo et al. (NAACL 2019, §3) start from the PDTB's English seed markers and add sentence-initial
adverbs followed by a comma found by a POS tagger. English keeps exactly that
(`miners.discovery.pairs.MarkerMatcher`). Every other language gets `LexiconMatcher`:

  * seed markers from a connective lexicon: the one bundled for the language (`BUNDLED`: Ukrainian
    UK_DiMLex, MIT) or a user's list read by path (`--markers FILE`: one marker per line, `#`
    comments, or a DiMLex XML file as published on Connective-Lex.info). The lexicons of the DiMLex
    family under CC BY-NC-SA 4.0 (German, Portuguese, Spanish, Czech, Dutch, Russian, Turkish,
    Hungarian, Chinese, Bangla) are not bundled: docs/LANGUAGES.md says where to get them;
  * a seed matches when s2 starts with it (case-insensitive), followed by a non-word character
    (in Chinese and Japanese, written without spaces, by anything: the longest seed wins); a comma
    after it, in any script (`,` `，` `、` `،`), is part of the marker removed from s2; a one-letter
    seed followed by a full stop is the initial of a name (`А. Козачковський`), no marker; a seed that
    heads a longer connective of `LONGER_FORMS` (`тоді` of `тоді як`) matches the longer form or nothing;
    a marker ending in a preposition (`незважаючи на`) only before a pronoun and a comma (`PREPOSITIONS`);
    a marker followed by a colon (`Наприклад: ...`, any language and English too) is no marker;
  * discovered markers where no tagger exists (`discover=True`): the sentence-initial n-gram
    followed by a comma, as the paper's "Word," adverbs: 1 to 3 words of letters (no digit) before
    `,` `،`, the words after the first in lower case (`Об'єднані провінції Ріо-де-ла-Плати,` is a
    name, not a marker), or in Chinese and Japanese 1 to 4 characters (letters, no digit) before
    `，` `、` `,`.
    Like the paper's discovered adverbs they become labels only when frequent enough
    (`--min_marker_count`, the paper's 10,000): the threshold of the selection stage applies to them
    as to every label.

A DiMLex entry yields its orthographic forms written as one part (`<orth>` with one `<part>`);
forms of several parts (`якщо ... то`, `一...就...`) cannot be matched at the start of s2 and are
left out, and so are the entries that are only subordinating conjunctions or prepositions
(`CLAUSE_INTERNAL_CATEGORIES`): measured on the Ukrainian excerpt before this rule, `після` (after,
a preposition: `Після одужання, ...` left `Одужання, ...`) was the most frequent label, and `коли`,
`якщо`, `хоча` opened a clause of s2 itself.
"""
import functools
import importlib.resources
import re
import typing
import xml.etree.ElementTree as ET

from miners.text.tokens import CHARACTER_LANGUAGES

_RESOURCES = "miners.discovery.resources"
#: Marker lists bundled in the package, by language, with their source (licences in SOURCES.md there).
BUNDLED = {"uk": "uk_dimlex_markers.txt"}
COMMAS = ",\uff0c\u3001\u060c"  # , ， 、 ،
_LATIN_I = re.compile(r"(?<![A-Za-z])i(?![A-Za-z])")

#: Words that start with a one-character seed of a language written without spaces (issue 43): at the
#: start of s2 the seed does not match inside them (`即` of `即是，...` left s2 "是，..."; of `即使是...`,
#: "使是..."). The one-part forms of the Chinese DiMLex that are only subordinating conjunctions, and so
#: no seeds (`CLAUSE_INTERNAL_CATEGORIES`), and words seen or common at the head of a zhwiki sentence.
#: A list, not a segmenter: no Chinese word segmenter is a dependency (jieba is not installed).
SEED_COMPOUNDS = {
    "zh": ("即使", "即便", "即令", "即或", "即如", "即是", "即将", "即將", "即时", "即時", "即刻", "即位", "即可",
           "又称", "又稱", "又名", "但凡"),
}

#: A seed or discovered n-gram that is no connective before what follows it (issue 43), by language:
#: (marker, lower case; the regular expression of s2's text after it that makes it none).
#:  * uk `та` is the conjunction "and, but" of UK_DiMLex and the demonstrative "that (one)": before a
#:    partitive `з`/`зі`/`із` ("Та зі сторін, котрі ..." is "the one of the sides who ...") or `ж`,
#:    `сама` ("the same") it is the pronoun, and s2 without it has no subject. A demonstrative before
#:    its noun ("Та школа, ...") is not told apart: no tagger.
#:  * uk `вже` / `уже` (already) and `ще` (still, yet, more) of UK_DiMLex, anywhere at the start of s2 (a
#:    second blind reading of uk `big` rows: "Вже тоді ..." = already then, "Ще один важливий аспект" =
#:    another important aspect). Read in the excerpt, every sentence after the first of its article that
#:    starts with one: `вже`/`уже` 19, none a connective (a focus particle before a time: "Вже в 1779
#:    р.", "Уже навчаючись ..."); `ще` 42, 2 additive connectives ("Ще легені виконують ..." = the lungs
#:    also ...), the others "ще один/одним/однією" (another), "ще в/у/за/до/з + a time" (as early as),
#:    "ще більше/пізніше/вищий" (even more, later), "ще живі" (still). Refused outright: a rule on the
#:    next word would have left most ("Ще в гімназії ...", "Ще однією ...").
#:  * uk `і` / `й` opening a paired conjunction, "І X й Y" / "І X, і Y" (both X and Y: "І кількість
#:    теплоти й температуру можна вимірювати ...", uk-03 of the second blind reading): a second `і`/`й`
#:    after 1 to 3 words of X, with no punctuation in X but a comma before it. The first is half of the
#:    pair, no "and" tying s2 to s1. Read in the excerpt: of 32 s2 candidates starting with `і`/`й`, 3
#:    are such pairs (all refused), 8 more have a second `і` further on or after other punctuation ("І в
#:    перший же день її роботи Декларація і Договір ...": kept). The cost, not told apart without a
#:    tagger: the emphatic particle after a short X ("І тоді й почалося ...") is refused too.
#:  * ja `これは` / `それは` ... (this, that + topic particle) is s2's subject, not a connective: every
#:    s2 left is "... である" without its topic.
#:  * ja `その他` / `そのほか` / `このほか` (the others; besides) heading a list without a verb
#:    ("その他、ユダヤ教、キリスト教（...）。"): s2 without it is no sentence. Before a clause ending with
#:    its predicate (in kana: "...が継承されている。") it stays a marker; a list ends with a noun, a
#:    bracket or `など`.
#: Longer connectives headed by a seed that are no seeds themselves, by language (a blind reading of uk
#: `big` rows, after issue 43): when s2 starts with one, the seed is only its first half and removing it
#: leaves the second half at the head of s2 ("Тоді як для ..." labelled `тоді` left "Як для ..."), so s2
#: has no marker. A seed that is itself longer wins before (the longest seed first), so a seed matches
#: the longest lexicon form or nothing. A comma may stand between the words ("Так само, як ...").
#:  * uk: the UK_DiMLex forms headed by a seed that are no seeds (`тому що`, `і ще`: subordinating
#:    conjunctions; `а щодо...то`, `так само...як і`: forms of two parts); the compound conjunctions
#:    `тоді як` (whereas; not in UK_DiMLex), `до того як`, `тим часом як`; the preposition
#:    `відповідно до` (according to: "Відповідно до теорії ..." left "До теорії ...").
LONGER_FORMS = {
    "uk": ("тоді як", "до того як", "тим часом як", "так само як", "тому що", "і ще", "а щодо", "відповідно до"),
}

#: Prepositions, by language (a blind reading of uk `big` rows, after issue 43). A marker ending in one
#: (`незважаючи на`, despite; `незалежно від`; `щодо`, as for; `відповідно до` of `LONGER_FORMS`) governs
#: a noun phrase: before its object, inside s2 ("Незважаючи на посилення ..., мав місце ..."), it is no
#: connective and s2 without it is no sentence. It is one only with an anaphoric pronoun for its object,
#: followed by a comma (`OBJECT_PRONOUNS`: "Незважаючи на це, ..."), removed and labelled with it
#: (`незважаючи_на_це`); not before "що" / "як" / "щоб" ("Незважаючи на те, що ..." opens a clause).
PREPOSITIONS = {
    "uk": frozenset("на з зі із зо в у до від од для по про за під над перед після через при без біля між серед "
                    "крім окрім проти щодо замість навколо попри всупереч завдяки понад поза поміж крізь "
                    "внаслідок протягом".split()),
}
OBJECT_PRONOUNS = {
    "uk": ("це", "цього", "цьому", "цим", "те", "того", "тому", "тим"),
}
_CLAUSE_AFTER_COMMA = {"uk": ("що", "як", "щоб")}

_JA_VERBLESS = r"(?!.*[\u3040-\u309f](?<!など)[\s\u3002\uff0e.!?\uff01\uff1f\u300d\u300f\u201d]*$)"
_UK_WORD = r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*"
_UK_PAIRED = r"(?:" + _UK_WORD + r"\s+){0,2}" + _UK_WORD + r"\s?,?\s+[ій](?![\w'\u2019-])"
NOT_CONNECTIVES = {
    "uk": (("та", r"(?:з|зі|із|ж|сама)(?![\w'\u2019-])"), ("вже", ""), ("уже", ""), ("ще", ""),
           ("і", _UK_PAIRED), ("й", _UK_PAIRED)),
    "ja": (("これは", ""), ("それは", ""), ("これらは", ""), ("それらは", ""), ("これが", ""), ("それが", ""),
           ("その他", _JA_VERBLESS), ("そのほか", _JA_VERBLESS), ("このほか", _JA_VERBLESS)),
}


def _clean(marker: str) -> str:
    marker = " ".join(marker.replace("\u2019", "'").split()).strip().rstrip(",").strip()
    if re.search(r"[\u0400-\u04ff]", marker):  # UK_DiMLex writes "i ще" with a Latin i
        marker = _LATIN_I.sub("\u0456", marker)
    return marker


#: DiMLex syntactic categories of connectives that open a clause or phrase inside their own sentence
#: (`Після війни, ...`, `Коли число протонів ...`, `随着...`): a sentence starting with one is not
#: tied to the sentence before by it. An entry with only these categories is not a seed; the
#: paper's PDTB seeds are likewise adverbials and coordinators (and `although,` only with its comma).
CLAUSE_INTERNAL_CATEGORIES = frozenset(["subord_conj", "csu", "preposition", "prep"])


def parse_dimlex(xml_text: str) -> typing.List[str]:
    """The one-part orthographic forms of a DiMLex XML lexicon, in order, without duplicates, of the
    entries with a category other than `CLAUSE_INTERNAL_CATEGORIES` (adverbs, coordinating
    conjunctions, "other"; an entry without a category is kept)."""
    root = ET.fromstring(xml_text)
    out, seen = [], set()
    orths = []
    for entry in root.iter("entry"):
        cats = {(c.text or "").strip() for c in entry.iter("cat")} - {""}
        if cats and cats <= CLAUSE_INTERNAL_CATEGORIES:
            continue
        orths.extend(entry.iter("orth"))
    for orth in orths:
        parts = [p.text or "" for p in orth.iter("part")]
        if len(parts) != 1 or "..." in parts[0] or "\u2026" in parts[0]:
            continue
        m = _clean(parts[0])
        if m and m.lower() not in seen:
            seen.add(m.lower())
            out.append(m)
    return out


def parse_list(text: str) -> typing.List[str]:
    """Markers of a plain list: one a line, `#` comments and blank lines skipped."""
    out, seen = [], set()
    for line in text.splitlines():
        m = _clean(line.split("#", 1)[0]) if not line.lstrip().startswith("#") else ""
        if m and m.lower() not in seen:
            seen.add(m.lower())
            out.append(m)
    return out


def read_markers(path: str, opener: typing.Callable = None) -> typing.List[str]:
    """A user's marker list (`--markers FILE`): DiMLex XML when it starts with `<`, else one per line.

    `opener(path)` opens it for binary reading (the job passes Beam's, for gs:// and the like; a
    local file by default: miners import no Beam)."""
    with (opener or (lambda p: open(p, "rb")))(path) as f:
        text = f.read().decode("utf-8-sig")
    markers = parse_dimlex(text) if text.lstrip().startswith("<") else parse_list(text)
    if not markers:
        raise ValueError(f"no marker in {path}")
    return markers


@functools.lru_cache(maxsize=None)
def bundled_markers(language: str) -> typing.Tuple[str, ...]:
    """The list bundled for `language` (`BUNDLED`), or () when none is."""
    name = BUNDLED.get(language)
    if not name:
        return ()
    text = importlib.resources.files(_RESOURCES).joinpath(name).read_text(encoding="utf-8")
    return tuple(parse_list(text))


def label_of(marker: str) -> str:
    """Label of a marker: lower case, spaces as `_` (as the release writes `for_example`)."""
    return "_".join(marker.lower().split())


class LexiconMatcher:
    """Finds the marker that starts s2 in a language other than English (module docstring).

    Args:
      markers: seed markers (a lexicon's forms).
      language: Wikimedia code (chooses the word boundary and the n-gram rule).
      discover: also label sentence-initial n-grams followed by a comma (discovered markers).
    """

    adverbs = None  # DiscoveryMiner's interface: no POS tagger

    def __init__(self, markers: typing.Sequence[str], language: str, discover: bool = True):
        from miners.discovery.pairs import COLONS, MarkerMatch  # pylint: disable=import-outside-toplevel
        self._match_cls = MarkerMatch
        self._colons = tuple(COLONS)
        self.language = language
        self.characters = language in CHARACTER_LANGUAGES
        self.discover = discover
        # longest first: "а саме" before "а"
        self.markers = sorted({_clean(m) for m in markers if _clean(m)}, key=lambda m: (-len(m), m))
        self.seed_labels = frozenset(label_of(m) for m in self.markers)
        self._by_first: typing.Dict[str, typing.List[str]] = {}
        for m in self.markers:
            self._by_first.setdefault(m[0].lower(), []).append(m)
        comma = "[" + re.escape(COMMAS) + "]"
        if self.characters:
            self._ngram = re.compile(r"((?:(?![\d_])\w){1,4})\s?[,\uff0c\u3001]\s*(?=\S)")
        else:
            self._ngram = re.compile(r"((?:(?![\d_])\w)+(?:[-'](?:(?![\d_])\w)+)*"
                                     r"(?:\s+(?:(?![\d_])\w)+(?:[-'](?:(?![\d_])\w)+)*){0,2})\s?" + comma + r"\s+(?=\S)")
        self._comma = re.compile(r"\s?" + comma)
        self._compounds = tuple(w.lower() for w in SEED_COMPOUNDS.get(language, ()))
        self._not_connectives = {m: re.compile(rest, re.I | re.S) for m, rest in NOT_CONNECTIVES.get(language, ())}
        # seed (lower case) -> patterns of the longer forms it heads (`LONGER_FORMS`), longest first
        self._longer: typing.Dict[str, typing.List[typing.Tuple[str, "re.Pattern"]]] = {}
        for form in sorted(LONGER_FORMS.get(language, ()), key=lambda f: (-len(f), f)):
            words = form.split()
            pattern = re.compile((r"\s?" + comma + r"?\s+").join(map(re.escape, words)) + r"(?![\w'\u2019-])", re.I)
            for k in range(1, len(words)):
                self._longer.setdefault(" ".join(words[:k]), []).append((form, pattern))
        self._prepositions = PREPOSITIONS.get(language, frozenset())
        pronouns = "|".join(map(re.escape, OBJECT_PRONOUNS.get(language, ())))
        clause = "|".join(map(re.escape, _CLAUSE_AFTER_COMMA.get(language, ())))
        self._pronoun_object = re.compile(
            r"\s+(" + pronouns + r")\s?" + comma + r"\s+" + (r"(?!(?:" + clause + r")(?![\w'\u2019-]))" if clause else "")
            + r"(?=\S)", re.I) if pronouns else None

    def _no_connective(self, marker: str, rest: str) -> bool:
        """Is `marker` no connective before `rest` (s2's text after it; `NOT_CONNECTIVES`)?"""
        pattern = self._not_connectives.get(" ".join(marker.lower().split()))
        return pattern is not None and pattern.match(rest) is not None

    @staticmethod
    def _initial(s2: str, marker: str) -> bool:
        """Is a one-letter seed the initial of a name (`А. Козачковський`, `I. Franko`): followed by a full
        stop? A connective is never: s2 without it would start with "." (a blind reading of uk `big` rows)."""
        return len(marker) == 1 and marker.isalpha() and s2[1:2] == "."

    def _before_colon(self, s2: str, end: int) -> bool:
        """Is the marker that ends at `end` followed by a colon (`pairs.COLONS`)? "Наприклад: ..." announces a
        list; s2 without it would start with ":" (a blind reading of uk `big` rows, uk-08; any language)."""
        return s2[end:].lstrip().startswith(self._colons)

    def _longer_form(self, s2: str, marker: str):
        """(form, end) of the longer connective whose first half is the seed `marker` at the start of s2
        (`LONGER_FORMS`), or None."""
        for form, pattern in self._longer.get(" ".join(marker.lower().split()), ()):
            g = pattern.match(s2)
            if g:
                return form, g.end()
        return None

    def _ends_in_preposition(self, marker: str) -> bool:
        return marker.lower().split()[-1] in self._prepositions

    def _with_pronoun(self, s2: str, marker: str, end: int):
        """A marker ending in a preposition, with its pronoun object and comma (`PREPOSITIONS`): the match,
        or None when its object is no pronoun followed by a comma."""
        g = self._pronoun_object.match(s2, end) if self._pronoun_object else None
        if g is None:
            return None
        return self._match_cls(label=label_of(f"{marker} {g.group(1)}"), surface=s2[:g.end()].strip(),
                               rest=self._rest(s2, g.end()))

    def _inside_compound(self, low: str, marker: str) -> bool:
        """Is a one-character seed the head of a longer word at the start of s2 (`SEED_COMPOUNDS`)?"""
        return len(marker) == 1 and any(low.startswith(w) for w in self._compounds if w[0] == marker.lower())

    def adverb_candidate(self, s2: str) -> None:  # DiscoveryMiner's interface
        return None

    def _boundary(self, s2: str, end: int) -> bool:
        if self.characters or end >= len(s2):
            return True
        ch = s2[end]
        return not (ch.isalnum() or ch in "-'_" or ch.isdigit())

    def _rest(self, s2: str, end: int) -> str:
        from miners.discovery.pairs import recapitalise  # pylint: disable=import-outside-toplevel
        return recapitalise(s2[end:].lstrip())

    def match(self, s2: str):
        if not s2:
            return None
        low = s2.lower()
        for m in self._by_first.get(low[0], ()):
            if low.startswith(m.lower()) and self._boundary(s2, len(m)) and not self._inside_compound(low, m):
                if self._initial(s2, m):
                    return None
                longer = self._longer_form(s2, m)
                if longer is not None:  # the longer form, when it is a connective; else nothing
                    form, end = longer
                    return self._with_pronoun(s2, form, end) if self._ends_in_preposition(form) else None
                if self._ends_in_preposition(m):
                    return self._with_pronoun(s2, m, len(m))
                end = len(m)
                c = self._comma.match(s2, end)
                if c:
                    end = c.end()
                rest = self._rest(s2, end)
                if not rest or self._before_colon(s2, end) or self._no_connective(m, s2[end:].lstrip()):
                    return None
                return self._match_cls(label=label_of(m), surface=s2[:end].strip(), rest=rest)
        if self.discover:
            g = self._ngram.match(s2)
            if g and not any(w[0].isupper() for w in g.group(1).split()[1:]):
                words = g.group(1)
                if self._before_colon(s2, g.end()) or self._no_connective(words, s2[g.end():]):
                    return None
                return self._match_cls(label=label_of(words) + ",", surface=s2[:g.end()].strip(),
                                       rest=self._rest(s2, g.end()), discovered=True)
        return None
