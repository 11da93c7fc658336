"""schemas.release: the release tokenizer keeps what the segmenter keeps whole, and round-trips."""
import pytest

from schemas.release import detokenize_punct, tokenize_punct


@pytest.mark.parametrize("text, tokens", [
    # a degree, a birth date and Latin abbreviations after an opening parenthesis
    ("He studied law and earned an LL.B. (Bachelor of Laws) in 1975.",
     "He studied law and earned an LL.B. ( Bachelor of Laws ) in 1975 ."),
    ("Campbell Walsh (b. 26 November 1977, Glasgow) is a Scottish kayaker.",
     "Campbell Walsh ( b. 26 November 1977 , Glasgow ) is a Scottish kayaker ."),
    ("A constant concern for Allah (i.e. God) results in a careful attitude (e.g. at prayer).",
     "A constant concern for Allah ( i.e. God ) results in a careful attitude ( e.g. at prayer ) ."),
    # a decimal without its leading zero, as in the release ("batting .309", ".45 ACP")
    ("Gwynn finished the season batting .309, ranking sixth.", "Gwynn finished the season batting .309 , ranking sixth ."),
    ("It was significant (p < .05).", "It was significant ( p < .05 ) ."),
    # an abbreviation in the sentence keeps its period; at the end of the sentence the period is the
    # sentence's own (the release writes "et al ." there)
    ("Smith et al. (2019) show it, as in Eq. (2) and Fig. 3.",
     "Smith et al. ( 2019 ) show it , as in Eq. ( 2 ) and Fig. 3 ."),
    ("The perirhinal cortex is involved in both visual perception and memory Murray et al.",
     "The perirhinal cortex is involved in both visual perception and memory Murray et al ."),
    ("The car was made by Acme Holdings S.A. Like its predecessor, it was red.",
     "The car was made by Acme Holdings S.A . Like its predecessor , it was red ."),
    ("The U.S. Army, i.e. the state, it's 3.5% (approx.)", "The U.S. Army , i.e. the state , it 's 3.5 % ( approx. )"),
    # a word-like abbreviation keeps its period before a number only (Wikipedia sample, s2orc paper)
    ("It is the form of a work of art. Spiritual life is in matter.",
     "It is the form of a work of art . Spiritual life is in matter ."),
    ("It shows two isoforms (Fig. 1) and No. 5 is one.", "It shows two isoforms ( Fig. 1 ) and No. 5 is one ."),
    # a period inside a word stays, as in the release ("Amazon.com", "p.224", "internationally.He")
    ("It was sold on Amazon.com (p.224).", "It was sold on Amazon.com ( p.224 ) ."),
])
def test_tokenize_punct(text, tokens):
    assert tokenize_punct(text) == tokens
    assert detokenize_punct(tokens) == text


def test_two_commas_survive_the_round_trip():
    # tune.tsv row 2744 holds "groups but , , the trend": both commas are text.
    release = "has resulted in growth in these population groups but , , the trend is reversing ."
    assert tokenize_punct(detokenize_punct(release)) == release
