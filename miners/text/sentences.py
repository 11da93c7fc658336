"""Sentence segmentation for any language: the run's language chooses the rules (no Beam import).

English keeps `miners.text.segmenter.split_sentences` exactly (its abbreviation lexicon and sentence-starter
rule are English). Every other language gets `LanguageSegmenter`, one regular-expression pass
with per-script and per-language data and no English list:

  * stops: `.` `!` `?` `…` in every script, and the full stops of other scripts: CJK `。！？．`
    (no space needed after them), Devanagari / Bengali danda `।` `॥`, Arabic `؟` `۔`, Armenian
    `։` (and `:` used as a full stop in Armenian text, 266 times in the hy excerpt against 40,709
    `։`), Ethiopic `።` `፧`, Myanmar `။`, Khmer `។`, Tibetan `།`, the Greek question mark `;`;
  * the next sentence starts, after the space and any opening quotes or brackets (`«` `„` `“`
    `"` `(` `[` `¿` `¡` `—`), with an upper-case letter, a digit or a letter of a script without
    case (CJK, Devanagari, Arabic, Thai ...): a lower-case word never starts a sentence;
  * the closing quotes and brackets after a stop stay with its sentence (`.»`, `. »`, `.)`,
    `。」`); a straight quote `"` after the stop closes the sentence when the sentence holds an
    odd number of them, else it opens the next one;
  * a stop inside a bracket or CJK quote opened in the same sentence (`(`, `「`, `『`, `（`, `【`)
    and closed later in the paragraph is not a boundary (`彼は「行く。」と言った。` is one sentence);
  * a period after an abbreviation of the language (`ABBREVIATIONS`: titles, `cf.`, `p.`, `м.`,
    `ул.`, `z. B.` ...), after a single letter (an initial, `м. Київ`, `J. R. R.`) or after a
    word holding periods (`J.-C.`, `т.д.`, `इ.स.`) is not a boundary, except the few listed in
    `FINAL` (`etc.`, `т. д.`, `н. е.`, `J.-C.`), which end a sentence before a capital like any word
    (`J.-C.` only after `av.`, `avant`, `apr.`, `après`: elsewhere it is a name's initials, `par J.-C.
    Marchianni`);
  * French: a stop, a dash and a date open an item of a dated list (`sociaux". - avril 2004 : ...`);
  * an abbreviation of up to three lower-case letters after a number is a unit or an era and
    ends a sentence like a word (`висотою 175 м. В Україні`, `1916 г. Въведен`, `XIX ст. Після`);
  * a period after a number of up to three digits is not a boundary in languages that write
    ordinals with a period (German `am 3. Oktober`, Czech, Polish, Hungarian, Finnish, Turkish ...).

Measured with tools/measure_segmenter.py against the gold sentences of Universal Dependencies
treebanks (docs/LANGUAGES.md has the table beside sentencex's and the English segmenter's).
"""
import functools
import re
import typing

from miners.text import segmenter as text_lib

#: Languages segmented by `miners.text.segmenter.split_sentences` (English rules and lexicon).
ENGLISH = frozenset(["en", "simple"])

# ------------------------------------------------------------------ per-language data
# Abbreviations (lower case, without the final period; a two-token one with its space) whose period
# does not end a sentence. Common abbreviations of Wikipedia prose in each language; no list is
# shared across languages, so no English word is an abbreviation in French.
_NOT_FINAL = {
    "fr": "mm mme mmes mlle mlles mgr me pr dr st ste cf p pp vol chap fig n° art env ex t av apr "
          "éd coll dir trad réf op ca",
    "de": "z._b. d._h. v._a. u._ä. bzw ca nr dr prof st geb gest vgl s bd hrsg evtl ggf sog mio mrd str abs abb",
    "es": "sr sra srta dr dra ud uds pág p._ej. aprox núm cap vol ed av sto sta gral",
    "it": "sig dott prof ing avv cfr pag vol cap ca n s",
    "pt": "sr sra dr dra prof p._ex. pág av cap vol",
    "nl": "dhr mevr dr prof bijv o.a ca nr blz st",
    "pl": "np m.in tzw ok ul al pl św prof dr hab im w tj",
    "cs": "např tzv tj ul nám sv prof dr ing mgr č str",
    "uk": "м с смт обл ст ім св див напр т._зв. вул пл просп акад проф доц тис грн коп рис табл "
          "ін інш ред вид бл ок пор",
    "ru": "г гг ст им св см напр т._е. т._к. т._н. ул пл пр акад проф доц тыс руб коп рис табл обл "
          "д с пос ок бл ср",
    "bg": "г гр с ул бул пл проф акад доц св вж напр т._нар. хил ок обл общ",
    "be": "г вул пл праф акад св гл напр т._зв. тыс",
    "sr": "нпр тзв ул св проф др бр",
    "el": "π.χ δηλ βλ κ αγ χλμ αρ",
    "vi": "tp ths ts gs pgs bs ks th.s",
    "tr": "dr prof doç yrd bkz örn",
    "hu": "dr prof ifj id kb pl ún",
    "fi": "esim ks mm n noin prof tri",
    "sv": "bl.a t.ex d.v.s dvs ca nr s",
    "da": "f.eks bl.a ca nr s",
    "no": "f.eks bl.a ca nr s",
    "ca": "sr sra dr dra pàg núm vol cap",
    "ro": "dl dna dr prof nr str vol",
    "id": "dr prof no hlm",
    "hy": "թ թթ",
    "mr": "इ.स डॉ",
    "hi": "डॉ",
    "bn": "ড খ্রি",
}
# Abbreviations that may end a sentence: before a capital they end it like any word ("і т. д. Потім").
_FINAL = {
    "fr": "etc j.-c",
    "de": "usw u._a. v._chr. n._chr. etc",
    "es": "etc a._c. d._c. ee._uu.",
    "it": "ecc a.c d.c",
    "pt": "etc a.c d.c",
    "uk": "т._д. т._п. н._е. р рр",
    "ru": "т._д. т._п. н._э. в вв г гг др",
    "bg": "т.н и_др. н._е. пр.н.е сл._хр. сл.хр г в",
    "el": "κ.λπ κ.ά μ.χ π.χ",
    "vi": "v.v",
    "pl": "itd itp r",
    "cs": "atd apod",
    "sv": "osv etc",
    "hu": "stb",
    "tr": "vb",
}
# Final abbreviations that end a sentence only after one of these words; elsewhere they are initials
# ("52 av. J.-C. Elle" ends, "par J.-C. Marchianni" does not).
_FINAL_AFTER = {
    "fr": {"j.-c": "av avant apr après"},
}
# Month names: after a stop, a dash and a date open an item of a dated list ('sociaux". - avril 2004 : ...').
_MONTHS = {
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
}
_DASHES = "-\u2013\u2014"
# Languages that write ordinal numbers with a period ("am 3. Oktober", "3. října", "3. maja").
ORDINAL_PERIOD = frozenset("de da no nb nn fi et is cs sk sl hr sr bs pl hu lv lt tr eu fo".split())


def _words(table: dict, lang: str) -> typing.FrozenSet[str]:
    """A table's entries for `lang`: lower case, without the final period; a two-token entry
    (written `т._д.`) as its two tokens without their periods, joined by a space ("т д")."""
    out = set()
    for entry in table.get(lang, "").split():
        out.add(" ".join(tok.rstrip(".") for tok in entry.split("_")).lower())
    return frozenset(out)


# ------------------------------------------------------------------ characters
_STOPS = ".!?\u2026"                        # . ! ? …
_CJK_STOPS = "\u3002\uff01\uff1f\uff0e\uff61"  # 。！？．｡ (end a sentence with no space after)
_SCRIPT_STOPS = "\u0964\u0965\u061f\u06d4\u0589\u1362\u1367\u104b\u17d4\u0f0d"  # । ॥ ؟ ۔ ։ ። ፧ ။ ។ །
_CLOSERS = "\u201d\u2019\u00bb\u203a)]}\u300d\u300f\u3011\u3009\u300b\uff09\u3015"  # ” ’ » › ) ] } 」』】〉》）〕
_OPENERS = "\"'\u201c\u2018\u201e\u00ab\u2039([{\u00bf\u00a1\u2014\u2013-\u300c\u300e\u3010\u3008\u300a\uff08"
_PAIRED = {"(": ")", "[": "]", "\u300c": "\u300d", "\u300e": "\u300f", "\uff08": "\uff09", "\u3010": "\u3011"}
_ROMAN = re.compile(r"^[IVXLC]+$")
#: A stop inside brackets is no boundary when the bracket closes within this many characters.
BRACKET_REACH = 200


def _starts_sentence(ch: str) -> bool:
    """An upper-case letter, a digit, or a letter of a script without case."""
    return ch.isupper() or ch.istitle() or ch.isdigit() or (ch.isalpha() and ch.lower() == ch.upper())


class LanguageSegmenter:
    """`segmenter(paragraph) -> [sentences]` for one language (see the module docstring)."""

    def __init__(self, lang: str):
        self.lang = lang
        base = lang.split("-")[0]
        self.not_final = _words(_NOT_FINAL, base)
        self.final = _words(_FINAL, base)
        self.ordinal_period = base in ORDINAL_PERIOD
        self.final_after = {k: frozenset(v.split()) for k, v in _FINAL_AFTER.get(base, {}).items()}
        self.months = frozenset(_MONTHS.get(base, "").split())
        spaced = _STOPS + _SCRIPT_STOPS + (";" if base == "el" else "") + (":" if base == "hy" else "")
        closers = re.escape(_CLOSERS)
        # A stop (run), its closers (a space may come before `»`), then whitespace or, after a CJK stop,
        # anything.
        self._boundary = re.compile(
            rf"(?:([{re.escape(spaced)}]+(?:[{closers}]|\s?\u00bb|\")*)(\s+)"
            rf"|([{re.escape(_CJK_STOPS + _STOPS)}]*[{re.escape(_CJK_STOPS)}][{re.escape(_STOPS + _CJK_STOPS)}]*"
            rf"[{closers}\"]*)(\s*))")

    def __reduce__(self):
        return (LanguageSegmenter, (self.lang,))

    # -------------------------------------------------------------- rules

    def _next_starts(self, paragraph: str, i: int) -> bool:
        """Does a sentence start at `i`: openers, maybe a space, then `_starts_sentence`."""
        n = len(paragraph)
        k = 0
        while i < n and paragraph[i] in _OPENERS and k < 3:
            i += 1
            k += 1
        if i < n and paragraph[i] == " " and k:
            i += 1
        return i < n and _starts_sentence(paragraph[i])

    def _dated_item_starts(self, paragraph: str, i: int) -> bool:
        """Does a dated list item start at `i`: a dash, a space, then a month ("- avril 2004 :"), a day and
        a month ("- 3 mai 2004 :") or a year and a colon ("- 2004 :")? Only languages with `_MONTHS`."""
        if not self.months or i + 2 >= len(paragraph) or paragraph[i] not in _DASHES or paragraph[i + 1] != " ":
            return False
        words = paragraph[i + 2:i + 40].split()
        if not words:
            return False
        first = words[0].lower()
        if first in self.months:
            return True
        if first.isdigit() and len(words) > 1:
            return (len(first) <= 2 and words[1].lower() in self.months) or (len(first) == 4 and words[1] == ":")
        return False

    def _period_ends(self, paragraph: str, start: int, dot: int) -> bool:
        """May the single period at `dot` end the sentence begun at `start` (abbreviations, initials)?"""
        space = paragraph.rfind(" ", start, dot)
        word = paragraph[space + 1:dot].lstrip(_OPENERS)
        if not word:
            return True
        low = word.lower()
        prev_space = paragraph.rfind(" ", start, space) if space > start else -1
        two = (paragraph[prev_space + 1:space].lstrip(_OPENERS).rstrip(".").lower() + " " + low) if space > start else ""
        if low in self.final_after:
            before_word = paragraph[prev_space + 1:space].lstrip(_OPENERS).rstrip(".").lower() if space > start else ""
            return before_word in self.final_after[low]  # "av. J.-C." ends; "par J.-C. Marchianni": initials
        if two in self.final or low in self.final:
            return True
        before = paragraph[prev_space + 1:space] if space > start else ""
        if (len(word) <= 3 and word.islower() and before and (before.isdigit() or _ROMAN.match(before))
                and (len(word) == 1 or low not in self.not_final)):
            return True  # a unit or era after a number ends a sentence like a word: "175 м. В Україні", "1916 г. Въведен"
        if two in self.not_final or low in self.not_final:
            return False
        if len(word) == 1 and word.isalpha():
            return False  # an initial ("J. R. R. Tolkien", "V. Prebeg") or a one-letter abbreviation ("м. Київ")
        if "." in word.strip("."):
            return False  # "U.S.", "т.д.", "इ.स.", "p.ex."
        if self.ordinal_period and word.isdigit() and len(word) <= 3:
            return False
        return True

    def _inside_brackets(self, paragraph: str, start: int, stop: int) -> bool:
        """Is `stop` inside a bracket opened in the sentence (since `start`) and closed soon after
        (`BRACKET_REACH` characters: an unclosed bracket must not swallow the rest of the paragraph)?"""
        for opener, closer in _PAIRED.items():
            i = paragraph.rfind(opener, start, stop)
            if i >= 0 and paragraph.find(closer, i, stop) < 0 and 0 <= paragraph.find(
                    closer, stop, stop + BRACKET_REACH):
                return True
        return False

    def __call__(self, paragraph: str) -> typing.List[str]:
        paragraph = text_lib.one_line(paragraph)
        if not paragraph:
            return []
        sentences = []
        start = 0
        for m in self._boundary.finditer(paragraph):
            spaced = m.group(1) is not None
            stop = m.group(1) if spaced else m.group(3)
            stop_start = m.start(1) if spaced else m.start(3)
            end = m.end(1) if spaced else m.end(3)
            if stop_start < start or not stop:
                continue
            after = m.end()
            if after >= len(paragraph):
                break
            if spaced and not self._next_starts(paragraph, after) and not self._dated_item_starts(paragraph, after):
                continue
            if self._inside_brackets(paragraph, start, stop_start):
                continue
            if stop.endswith('"'):
                # A straight quote closes the sentence only if the sentence opened one.
                if paragraph.count('"', start, stop_start) % 2 == 0:
                    stripped = stop.rstrip('"')
                    end -= len(stop) - len(stripped)
                    stop = stripped
                    if not stop:
                        continue
            core = stop.rstrip(_CLOSERS + " \"")
            if spaced and core == ".":
                if not self._period_ends(paragraph, start, stop_start):
                    continue
            sentence = paragraph[start:end].strip()
            if sentence:
                sentences.append(sentence)
            start = end
            while start < len(paragraph) and paragraph[start] == " ":
                start += 1
        tail = paragraph[start:].strip()
        if tail:
            sentences.append(tail)
        return sentences


@functools.lru_cache(maxsize=None)
def _segmenter(lang: str) -> LanguageSegmenter:
    return LanguageSegmenter(lang)


def splitter_for(lang: str) -> typing.Callable[[str], typing.List[str]]:
    """The paragraph -> sentences function of a language (English: `miners.text.segmenter.split_sentences`)."""
    lang = (lang or "en").lower()
    if lang in ENGLISH:
        return text_lib.split_sentences
    return _segmenter(lang)


def segment(text: str, lang: str = "en") -> typing.Tuple[typing.Tuple[str, ...], typing.Tuple[int, ...]]:
    """Sentences of a document in `lang` and, for each, its paragraph number (`miners.text.segmenter.segment` for English)."""
    if (lang or "en").lower() in ENGLISH:
        return text_lib.segment(text)
    split = splitter_for(lang)
    sentences, paragraphs = [], []
    for i, para in enumerate(text_lib.split_paragraphs(text)):
        for s in split(para):
            sentences.append(s)
            paragraphs.append(i)
    return tuple(sentences), tuple(paragraphs)
