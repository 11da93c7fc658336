"""Abbreviation <-> long form (Schwartz-Hearst style) on real sentences of the shared papers."""
import pytest

from conftest import SHARED_DATA
from miners.parasci import abbreviations as ab
from miners.parasci import pairs as ps
from miners.parasci.papers.reader import iter_papers
from miners.text.segmenter import split_sentences
from schemas.papers import Paper

PAPERS = SHARED_DATA / "scientific"


def _paper(rel):
    path = str(PAPERS / rel)
    papers = [p for p in iter_papers(path, path, "sci_para") if isinstance(p, Paper)]
    assert len(papers) == 1
    return papers[0]


@pytest.mark.parametrize("sentence, expected", [
    # Real sentences of ../shared/data/scientific (N18-3011, elife-02833, elife00005, PMC5828200).
    ("Unlike most formulations of named entity recognition problems (NER), we do not identify the entity "
     "type (e.g., protein, drug, chemical, disease) for each mention.", [("NER", "named entity recognition")]),
    ("The bithorax complex (BX-C) in Drosophila melanogaster is a cluster of homeotic genes that determine body "
     "segment identity.", [("BX-C", "bithorax complex")]),
    ("Polycomb Repressive Complex 2 (PRC2) is essential for gene silencing.",
     [("PRC2", "Polycomb Repressive Complex 2")]),
    ("Alzheimer's disease (AD) is the most prevalent neurodegenerative disorder and is triggered via abnormal "
     "accumulation of amyloid-β peptide (Aβ).", [("AD", "Alzheimer's disease"), ("Aβ", "amyloid-β peptide")]),
    # The released form, tokenised and lower-cased.
    ("identifying the meaning of a word in its context is known as word sense disambiguation ( wsd ) .",
     [("wsd", "word sense disambiguation")]),
    # Reverse form.
    ("We train an NER (named entity recognition) model.", [("NER", "named entity recognition")]),
    # Not abbreviations: Latin, a gloss word, a parenthesis whose letters the text before does not hold.
    ("Variants (e.g. record linkage) exist.", []),
    ("The lateral thigh muscle (muscle) was sampled.", []),
    ("The samples were stored at low temperature (XYZ).", []),
    ("We use the tool (the one of the first study) here.", []),  # reverse form needs a capital
])
def test_find_abbreviations(sentence, expected):
    assert ab.find_abbreviations(sentence) == expected


def test_a_paper_maps_each_short_form_to_its_long_form():
    abbrs = ps.paper_abbreviations(_paper("grobid-tei/N18-3011.tei.xml"))
    assert abbrs["ner"] == "named entity recognition"
    assert abbrs["kb"] == "knowledge base"
    assert abbrs["rdf"] == "resource description framework"
    elife = ps.paper_abbreviations(_paper("jats-elife/elife-02833-v2.xml"))
    assert elife["bxc"] == "bithorax complex" and elife["pcg"] == "polycomb group"


def test_a_definition_of_an_abbreviation_is_keyed_by_the_long_form():
    # A real definition: "ADDs are defined as ..." in a paper that writes "accumulated degree-days (ADDs)".
    paper = _paper("s2orc/20190928-10045593.json")
    defs = {s.text: s.term for s in ps.paper_sentences(paper, split_sentences) if s.term}
    assert defs["ADDs are defined as the product of time and ambient temperature."] == "accumulated degree days"
    # Both forms of one term land in one group.
    abbrs = {"ner": "named entity recognition"}
    a = ps.definition_term("NER is the task of finding the names of people and places in text.", abbrs)
    b = ps.definition_term("Named entity recognition (NER) is the task of locating names in text.", abbrs)
    assert a == b == "named entity recognition"
    assert ps.definition_group("cs", a) == ps.definition_group("cs", b)
    # Without the paper's expansion the abbreviation stays the term.
    assert ps.definition_term("NER is the task of finding the names of people and places in text.") == "ner"
    assert ps.definition_term("We evaluate our model on three benchmark datasets.", abbrs) == ""


def _whole_prefix_reference(text):
    """find_abbreviations as it was before the look-back window: every lookup reads all of text[:end]."""
    import re
    out = []
    for m in ab._PAREN_RE.finditer(text):
        inside = m.group(1).strip()
        first = re.split(r"[;,]\s", inside)[0].strip()
        if ab._is_short_form(first):
            n = min(len(first) + 5, 2 * len(first))
            before = text[:m.start()]
            cut = 0
            for b in ab._BOUNDARY_RE.finditer(before):
                cut = b.end()
            words = ab._WORD_RE.findall(before[cut:])
            long_form = ab.match_long_form(first, " ".join(words[-n:]) if words else "")
            long_form = ab.trim_long_form(first, long_form) if long_form else None
            if long_form and (len(long_form.split()) > 1 or len(long_form) > 2 * len(first)):
                out.append((first, long_form))
            continue
        words_inside = inside.split()
        prev = ab._WORD_RE.findall(text[:m.start()])
        short = prev[-1].strip(",;:") if prev else ""
        if len(words_inside) >= 2 and ab._is_short_form(short) and any(c.isupper() for c in short):
            long_form = ab.match_long_form(short, inside)
            if long_form and long_form == inside:
                out.append((short, long_form))
    return out


def test_the_look_back_window_finds_what_reading_the_whole_paragraph_found():
    # The window keeps a thesis' one-paragraph body linear in its length (issue 39: an 11 MB paragraph
    # stalled the job); it must not change a single abbreviation. Texts: the bundled papers' paragraphs
    # and random ones with words longer than the window, no boundary for thousands of characters,
    # parentheses at the start, and reverse forms.
    import random
    from conftest import ROOT
    from miners.parasci.papers.reader import iter_papers
    texts = []
    for path in sorted((ROOT / "samples" / "scientific").rglob("*")):
        if path.is_file() and path.suffix in (".json", ".gz", ".xml", ".nxml"):
            for paper in iter_papers(str(path), str(path), "sci_para"):
                texts += [p.text for p in getattr(paper, "paragraphs", ())]
    rnd = random.Random(39)
    parts = ["word", "(NER)", "named", "entity", "recognition", ",", ", ", ";", " ", "x" * 1500, "(ab cd)", "ABC",
             "(", ")", ".", "Part Of Speech", "(POS)", "y" * 230, "long " * 300]
    for _ in range(1500):
        texts.append("".join(rnd.choice(parts) + rnd.choice(["", " "]) for _ in range(rnd.randint(1, 120))))
    found = 0
    for text in texts:
        expected = _whole_prefix_reference(text)
        assert ab.find_abbreviations(text) == expected, text[:300]
        found += len(expected)
    assert found > 1000
