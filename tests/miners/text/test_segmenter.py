"""miners.text.segmenter: the shared sentence segmenter on real Wikipedia and scientific sentences.

Wikipedia sentences are from the WikiSplit tune split (tests/testdata/wikisplit/tune.tsv,
detokenized) or the bundled English Wikipedia sample (samples/wikipedia/, CC BY-SA);
the two company/degree sentences are the issue's own examples.
"""
import pytest

from miners.text.segmenter import segment, split_sentences


# ----------------------------------------------------------------- the reported Wikipedia failures


@pytest.mark.parametrize("sentence", [
    # a birth or death date after "b." / "d." / "c." (tune.tsv complex sentences, cut after the letter before)
    "Campbell Walsh (b. 26 November 1977, Glasgow) is a Scottish kayaker who won a Silver Medal in the K1 Single"
    " Class at the 2004 Olympics.",
    "Paul Frank Pelosi (b. April 15, 1940 in San Francisco) is an American businessman and owner of the"
    " Sacramento Mountain Lions of the United Football League.",
    "Martín Fernández de Enciso (c. 1470 -- 1528) was a navigator and geographer from Seville, Spain.",
    "He was a descendant of Sir John Brograve (d. 1613), Attorney - General to the Duchy of Lancaster.",
    "John Smith (b. 12 March 1950 in Leeds) is an English actor.",
    # a degree with two periods, before a parenthesis
    "He studied law and earned an LL.B. (Bachelor of Laws) in 1975.",
    # abbreviations before their complement
    "In '' Showdown '' Pt. 2, Splinter finds out from Shredder that his daughter is still alive.",
    "The U.S. Supreme Court upheld the Sedition Act in '' Abrams v. United States '' (1919).",
    "Water-en Energiebedrijf Aruba, N.V. (W.E.B.) produces potable industrial water at the world's third largest"
    " desalination plant.",
])
def test_one_sentence_stays_whole(sentence):
    assert split_sentences(sentence) == [sentence]


@pytest.mark.parametrize("first, second", [
    # a company suffix ends the sentence when a new sentence starts after it
    ("The car was made by Acme Holdings SA.", "Like its predecessor, it was sold in Europe."),
    ("The car was made by Acme Holdings S.A.", "Like its predecessor, it was sold in Europe."),
    ("In 1914, Claridge's Company entered into a joint venture to produce tar-bound macadam, with materials"
     " manufactured through a subsidiary company called Clarmac Roads Ltd.",
     "Two products resulted, namely Clarmac, and Clarphalte."),
    # an acronym or a degree at the end of a sentence (Wikipedia sample)
    ("Alabama has the second-largest inland waterway system in the U.S.",
     "About three-fifths of the land area is a gentle lowland."),
    ("He holds a Ph.D.", "He lives in Boston."),
    # "etc." closing a list (Wikipedia sample)
    ("Traditional dishes include chakhchoukha, Brik or Bourek, Garantita, Lham'hlou, etc.",
     "Merguez sausage is widely used in Algeria."),
    # a sentence opening with a quotation written as two apostrophes (the release's quote)
    ("The song was the group's second, and most successful single.",
     "'' Painter Man '' later covered by the 1970's pop group Boney M., and reached number 10 in the UK single"
     " charts in 1979."),
])
def test_sentence_ends_after_an_abbreviation(first, second):
    assert split_sentences(f"{first} {second}") == [first, second]


def test_abbreviations_inside_a_paragraph():
    # Wikipedia sample ("Alabama", "Achilles", "Algeria"), cut where a reader cuts.
    text = ("The U.S. Congress selected Huntsville as the site. It was composed after the Iliad, possibly in the"
            " 7th century B.C. The Aethiopis is now lost. A constant concern for Allah (i.e. God) results in a"
            " careful attitude. He was born on Mt. Pelion in c. 1200 BC.")
    assert split_sentences(text) == [
        "The U.S. Congress selected Huntsville as the site.",
        "It was composed after the Iliad, possibly in the 7th century B.C.",
        "The Aethiopis is now lost.",
        "A constant concern for Allah (i.e. God) results in a careful attitude.",
        "He was born on Mt. Pelion in c. 1200 BC.",
    ]


# ----------------------------------------------------------------- scientific text


@pytest.mark.parametrize("text, expected", [
    ("Smith et al. (2019) show that it holds. We agree.", ["Smith et al. (2019) show that it holds.", "We agree."]),
    ("This was shown before (Smith et al., 2019). Next we test it.",
     ["This was shown before (Smith et al., 2019).", "Next we test it."]),
    ("It was proposed by Smith et al. We extend it.", ["It was proposed by Smith et al.", "We extend it."]),
    ("See Fig. 3 for details. Figs. 2 and 3 show it.", ["See Fig. 3 for details.", "Figs. 2 and 3 show it."]),
    ("As in Eq. (2), we get it. Sec. 4 shows it. It is shown in Tab. 1 that it works.",
     ["As in Eq. (2), we get it.", "Sec. 4 shows it.", "It is shown in Tab. 1 that it works."]),
    ("Many models, e.g. BERT, work. Others, i.e. GPT, fail.", ["Many models, e.g. BERT, work.", "Others, i.e. GPT, fail."]),
    ("This holds (cf. Section 2). It is BERT vs. GPT.", ["This holds (cf. Section 2).", "It is BERT vs. GPT."]),
    ("The value is approx. 0.5 here. It was significant (p < .05). Next.",
     ["The value is approx. 0.5 here.", "It was significant (p < .05).", "Next."]),
    ("This was shown [12]. Next we test. This was shown [12, 13]. Next we test.",
     ["This was shown [12].", "Next we test.", "This was shown [12, 13].", "Next we test."]),
    ("as shown [CITATION]. We then test it. [CITATION] proposed a model. It works.",
     ["as shown [CITATION].", "We then test it.", "[CITATION] proposed a model.", "It works."]),
    ("It was proposed by Smith et al. [CITATION] extend it.", ["It was proposed by Smith et al. [CITATION] extend it."]),
])
def test_scientific_abbreviations_and_citations(text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize("sentences", [
    # Real passages of the papers in ../shared/data/scientific (text as the files hold it, some
    # shortened at a clause), given as the sentences a reader cuts them into.
    ("Moreover, different venues and sources use different conventions in reporting the author names, e.g.,"
     " \"first initial, last name\" vs. \"last name, first name\".",  # grobid-tei/N18-3011
     "Inspired by Culotta et al. (2007), we train a supervised binary classifier for merging pairs of author"
     " instances and use it to incrementally create author clusters."),
    ("For training, we use the Adam optimizer (Kingma and Ba, 2014) following the suggested hyperparameters in"
     " Devlin et al. (2019) (LR: 2e-5, Slanted Triangular LR scheduler).",),  # grobid-tei/2020.acl-main.207
    ("In addition, curcumin could inhibit neuroinflammation and reduce amyloid deposition in AD mouse model"
     " [15\u201317].",  # jats/PMC5828200
     "However, curcumin intake failed to reduce the amyloid levels in AD patients in the clinical trial [18].",
     "The major limitation using curcuminoid as a treatment/protective agent is its low bioavailability."),
    ("Based on robust MDPs (e.g., [10] , [11] ), we can complete the proof of part 2) following a similar"
     " procedure as the last portion of proof for [1, Theorem 3.1].",  # s2orc/20200705-18980380
     "We omit the details due to space constraint (see [22] for details).",
     "Part 1) then follows part 2) immediately."),
    ("The performance of the three strategies obtained is presented in Fig. 5 .",  # s2orc/20200705-18980380
     "The corresponding average total discounted rewards and computational times are shown in Table II ."),
    ("All samples analyzed exhibited a characteristic tropomyosin double band at approximately 36 to 38 kDa,"
     " depicting two isoforms of tropomyosin (Fig. 1) .",  # s2orc/20190928-10045593
     "There was no appearance of tropomyosin degradation products or lack of a native band detected in any of"
     " the samples."),
    ("Symmetry implies that all domestic firms will face the same equilibrium wage (i.e. w w i = , \u2200i).",
     "Thus, using (8) and (9), we obtain the reaction functions."),  # s2orc/20190928-10042064
    ("Signals of autophagy (e.g., ER whorls, and organelles inclusion in vacuoles) were seen as described by"
     " others (Prates et al., 2011; Schuck et al., 2014) .",  # s2orc/20190928-10002293
     "YPD (0.5% yeast extract, 1% bacto-peptone, and 2% glucose) was used for C. albicans.",
     "For C. albicans growth it was used YPD broth."),
])
def test_real_scientific_passages(sentences):
    assert split_sentences(" ".join(sentences)) == list(sentences)


@pytest.mark.parametrize("text, expected", [
    # An abbreviation that is also a word ends a sentence unless a number follows (Wikipedia sample).
    ("Plato thought it is the form of a work of art. Spiritual life is incorporated in matter.",
     ["Plato thought it is the form of a work of art.", "Spiritual life is incorporated in matter."]),
    ("It is set out in Art. 12 and Art. IV of the treaty. No. 5 was a hit.",
     ["It is set out in Art. 12 and Art. IV of the treaty.", "No. 5 was a hit."]),
    ("See Fig. S1 and Figs. 2a and 3. The club, est. 1850, is old.",
     ["See Fig. S1 and Figs. 2a and 3.", "The club, est. 1850, is old."]),
])
def test_word_like_abbreviations_hold_only_before_a_number(text, expected):
    assert split_sentences(text) == expected


# ----------------------------------------------------------------- unchanged behaviour


def test_segment_keeps_paragraph_numbers():
    assert segment("Dr. Smith arrived. He sat down.\n\nLater, it rained! Was it cold?") == (
        ("Dr. Smith arrived.", "He sat down.", "Later, it rained!", "Was it cold?"), (0, 0, 1, 1))
    assert segment("J. R. R. Tolkien wrote it. No. 5 was a hit.") == (
        ("J. R. R. Tolkien wrote it.", "No. 5 was a hit."), (0, 0))


def test_whitespace_is_normalised_only_where_it_changes_the_text():
    # The shortcut (look for a run or a non-space whitespace first) gives what replacing every
    # whitespace run gives, on random strings of spaces, tabs, newlines, non-breaking spaces and letters.
    import random
    import re as re_
    from miners.text import segmenter as text
    rng = random.Random(19)
    alphabet = [" ", "  ", "\t", "\n", "\u00a0", "\u2009", "a", "B", ".", "x y"]
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        normalised = (re_.sub(r"\s+", " ", s) if text._WS_CHANGE.search(s) else s).strip()
        assert normalised == re_.sub(r"\s+", " ", s).strip(), repr(s)
        assert text.split_sentences(s) == text.split_sentences(re_.sub(r"\s+", " ", s))
