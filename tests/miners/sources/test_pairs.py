"""miners/sources/pairs.py: sentence-pair TSV files, good and bad lines."""
from miners.sources import iter_sentence_pairs
from schemas.records import SentencePair
from tests.sources_fixtures import read


# ------------------------------ sentence pairs ----------------------------

def test_sentence_pairs():
    data = ("It rained.\tHowever, we went out.\n"
            "One column only\n"
            "A.\tB.\tpair-7\n"
            "\n"
            "a\tb\tc\td\n"
            "\tEmpty first.\n").encode("utf-8") + b"Bad \xff.\tx\r\n"
    pairs, rejects, counts = read(iter_sentence_pairs, data, "dir/p.tsv")
    assert pairs == [SentencePair(id="p.tsv:1", s1="It rained.", s2="However, we went out.", path="dir/p.tsv"),
                     SentencePair(id="pair-7", s1="A.", s2="B.", path="dir/p.tsv")]
    assert [(r.reason, r.key) for r in rejects] == [("wrong_column_count", "line 2"),
                                                    ("wrong_column_count", "line 5"),
                                                    ("empty_sentence", "line 6"), ("broken_utf8", "line 7")]
    assert counts == {"read/records": 7, "read/pairs": 2, "read/skipped:blank_line": 1,
                      "read/filtered:wrong_column_count": 2, "read/filtered:empty_sentence": 1,
                      "read/filtered:broken_utf8": 1}
