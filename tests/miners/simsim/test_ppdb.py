"""PPDB 2.0 rules (miners/simsim/ppdb.py): the release's `|||` format, counts, filters, the index.

The rules file is written by each test (tests/ppdb_fixtures.py) in the layout PPDB 2.0 ships (`ppdb-2.0-*-lexical`,
`-phrasal`): LHS ||| phrase ||| paraphrase ||| features (PPDB2.0Score first, then PPDB 1.0's
and 2.0's features, as in the release) ||| alignment ||| entailment class.
"""
import gzip
import os

import pytest

from miners.simsim import ppdb
from miners.simsim.metrics import metrics_annotator
from tests.ppdb_fixtures import RULES, release_line, write_rules

# A rule of the syntactic pack (nonterminal slots), as the release prints it: counted, not indexed.
SYNTACTIC = ("[S/PP] ||| [NP/NP,1] such activities [VP/PP,2] ||| [NP/NP,1] those activities [VP/PP,2] ||| "
             "PPDB2.0Score=5.36156 PPDB1.0Score=3.840280 -logp(LHS|e1)=0 -logp(LHS|e2)=0 -logp(e1|LHS)=16.57635 "
             "-logp(e1|e2)=2.39790 AGigaSim=0.71152 Abstract=0 Adjacent=0 CharCountDiff=1 CharLogCR=0.05716 "
             "ContainsX=0 Equivalence=0.601220 Lexical=0 MVLSASim=NA Monotonic=1 ||| 0-0 1-1 2-2 3-3 ||| Equivalence")
# Lines that must be counted and skipped, with the reason.
BAD_LINES = [
    ("[RB] ||| approximately ||| about ||| p(e|f)=0.5 p(f|e)=0.4 ||| 0-0", "malformed:ppdb1_format"),
    ("[RB] ||| approximately ||| about", "malformed:field_count"),
    ("RB ||| approximately ||| about ||| PPDB2.0Score=3.9 ||| 0-0 ||| Equivalence", "malformed:bad_lhs"),
    ("[RB] ||| approximately ||| about ||| PPDB1.0Score=3.1 Lexical=1 ||| 0-0 ||| Equivalence", "malformed:no_score"),
    ("[RB] ||| approximately ||| about ||| PPDB2.0Score=high ||| 0-0 ||| Equivalence", "malformed:no_score"),
    ("[RB] ||| approximately ||| about ||| PPDB2.0Score=3.9 ||| 0-0 ||| Synonym", "malformed:bad_entailment"),
    ("[RB] |||  ||| about ||| PPDB2.0Score=3.9 ||| 0-0 ||| Equivalence", "malformed:empty_phrase"),
    (SYNTACTIC, "malformed:syntactic"),
]


def counter():
    counts = {}

    def inc(name, n=1):
        counts[name] = counts.get(name, 0) + n
    return counts, inc


def test_parse_line_reads_every_field_of_a_release_line():
    rule, reason = ppdb.parse_line(release_line("[NP]", "a large number of", "many", 4.01113, "Equivalence"))
    assert reason is None
    assert rule == ppdb.Rule("[NP]", ("a", "large", "number", "of"), ("many",), 4.01113, "Equivalence")
    assert str(rule) == "[NP] a large number of -> many (4.01113, Equivalence)"


@pytest.mark.parametrize("line,reason", BAD_LINES)
def test_parse_line_names_what_is_wrong(line, reason):
    rule, why = ppdb.parse_line(line)
    assert rule is None and f"malformed:{why}" == reason


def test_read_rules_counts_lines_rules_and_malformed_by_reason(tmp_path):
    path = tmp_path / "ppdb-2.0-s-all"
    write_rules(path, [line for line, _ in BAD_LINES] + [""])
    with open(path, "ab") as f:
        f.write(b"[NN] ||| caf\xe9 ||| bar ||| PPDB2.0Score=3.2 ||| 0-0 ||| Equivalence\n")  # Latin-1, not UTF-8
    counts, inc = counter()
    rules = list(ppdb.read_rules(str(path), inc))
    assert len(rules) == len(RULES) == 30
    assert counts == {"lines": 30 + len(BAD_LINES) + 2, "rules": 30, "malformed:ppdb1_format": 1,
                      "malformed:field_count": 1, "malformed:bad_lhs": 1, "malformed:no_score": 2,
                      "malformed:bad_entailment": 1, "malformed:empty_phrase": 1, "malformed:syntactic": 1,
                      "malformed:blank": 1, "malformed:bad_utf8": 1}


def test_gzip_reads_the_same_and_a_truncated_stream_is_counted(tmp_path):
    plain = list(ppdb.read_rules(write_rules(tmp_path / "ppdb-2.0-s-lexical")))
    # the .gz suffix is not needed: the reader looks at the magic bytes
    gz_path = write_rules(tmp_path / "ppdb-2.0-s-lexical.gz", gz=True)
    assert list(ppdb.read_rules(gz_path)) == plain
    # a download cut in half (a big file: the reader decompresses in 8 KiB blocks, the last one is lost)
    big = [release_line(*r) for r in RULES] * 300
    data = gzip.compress(("\n".join(big) + "\n").encode("utf-8"), mtime=0)
    cut = tmp_path / "cut.gz"
    cut.write_bytes(data[:len(data) // 2])
    counts, inc = counter()
    partial = list(ppdb.read_rules(str(cut), inc))
    assert counts["malformed:truncated_gzip"] == 1
    assert len(big) // 4 < len(partial) < len(big) and partial == (plain * 300)[:len(partial)]


def test_missing_file_raises_naming_it(tmp_path):
    missing = str(tmp_path / "ppdb-2.0-xl-lexical.gz")
    with pytest.raises(OSError, match="ppdb-2.0-xl-lexical.gz"):
        ppdb.load_rules(missing)


def test_simplifying_filter_keeps_shorter_plainer_words_only(tmp_path):
    rules = ppdb.load_rules(write_rules(tmp_path / "rules"))
    kept = {(" ".join(r.phrase), " ".join(r.paraphrase)) for r in rules.rules()}
    assert kept == {
        ("approximately", "about"), ("approximately", "roughly"), ("utilize", "use"), ("purchased", "bought"),
        ("commenced", "began"), ("commenced", "started"), ("sufficient", "enough"), ("residence", "home"),
        ("automobile", "car"), ("large", "big"), ("employs", "uses"), ("in order to meet", "to meet"),
        ("in order to", "to"), ("in order to", "so as to"), ("a large number of", "many"), ("a great deal of", "much"), ("had to", "must"),
        ("at this point in time", "now"), ("in the event that", "if"), ("the majority", "most"),
        ("was able to", "could")}
    assert rules.counts["filtered:not_shorter"] == 2  # car -> automobile, and -> as well as
    assert rules.counts["filtered:same_stem"] == 2  # approximately -> approx, companies -> company
    assert rules.counts["filtered:low_score"] == 1
    assert rules.counts["filtered:entailment:OtherRelated"] == 1
    assert rules.counts["filtered:entailment:Exclusion"] == 1
    assert rules.counts["filtered:proper_noun"] == 1
    assert rules.counts["filtered:not_words"] == 1
    assert rules.counts["kept"] == len(rules) == 21
    assert [r.paraphrase for r in rules.lookup(["Approximately"])] == [("about",), ("roughly",)]  # best first
    # every rule, simplifying or not, when the criterion is switched off
    everything = ppdb.load_rules(str(tmp_path / "rules"), simplifying_only=False, min_score=0.0,
                                 entailments=ppdb.ENTAILMENT_CLASSES)
    assert len(everything) == 29  # all but the NNP rule


def test_simplifying_reason_with_a_frequency_table():
    freq = {"about": 5.9, "approximately": 4.1, "circa": 2.0}
    assert ppdb.simplifying_reason(["approximately"], ["about"], freq) is None
    assert ppdb.simplifying_reason(["approximately"], ["circa"], freq) == "rarer"
    assert ppdb.simplifying_reason(["approximately"], ["approximately"]) == "identity"


def test_min_score_and_bounds(tmp_path):
    path = write_rules(tmp_path / "rules")
    strict = ppdb.load_rules(path, min_score=3.9)
    assert sorted(" ".join(r.phrase) + " -> " + " ".join(r.paraphrase) for r in strict.rules()) == [
        "a large number of -> many", "approximately -> about", "at this point in time -> now", "utilize -> use"]
    assert strict.counts["filtered:low_score"] == 25  # five rules score 3.9 or more; three -> 3 is no word
    top1 = ppdb.load_rules(path, top_k=1)
    assert [r.paraphrase for r in top1.lookup(["commenced"])] == [("began",)]
    assert top1.counts["evicted:top_k"] == 3  # roughly, started, so as to
    small = ppdb.load_rules(path, max_rules=3)
    assert len(small) == 3 and small.counts["evicted:max_rules"] == 18
    assert {r.score for r in small.rules()} == {4.21437, 4.10221, 4.01113}  # the three best survive
    with pytest.raises(ValueError, match="Synonym"):
        ppdb.PPDBRules(entailments=("Synonym",))


def parse(text):
    sent = metrics_annotator().parse([text])[0]
    return [t.text for t in sent.tokens], [t.xpos for t in sent.tokens]


def test_candidates_on_parsed_sentences(tmp_path):
    rules = ppdb.load_rules(write_rules(tmp_path / "rules"))
    tokens, tags = parse("Approximately 30 villages were destroyed, and a large number of residents had to "
                         "utilize temporary shelters.")
    found = [(c.start, c.end, c.replacement) for c in rules.candidates(tokens, tags)]
    # best score first: utilize -> use (4.21), a large number of -> many (4.01), approximately -> about ...
    assert found == [(14, 15, "use"), (7, 11, "many"), (0, 1, "about"), (0, 1, "roughly"), (12, 14, "must"),
                     (8, 9, "big")]
    assert " ".join(ppdb.apply(tokens, rules.candidates(tokens, tags)[2])).startswith("About 30 villages")
    assert ppdb.apply(tokens, (7, 11, "many", None))[7:9] == ["many", "residents"]

    tokens, tags = parse("The company employs approximately 300 people in order to meet the demand for its products.")
    found = {(c.start, c.end, c.replacement) for c in rules.candidates(tokens, tags)}
    assert found == {(2, 3, "uses"), (3, 4, "about"), (3, 4, "roughly"), (6, 9, "to"), (6, 9, "so as to"),
                     (6, 10, "to meet")}

    # the LHS must agree with the tags: "large" as a noun ("at large") does not take [JJ] large -> big
    assert rules.candidates(["at", "large"], ["IN", "NN"]) == []
    assert [c.replacement for c in rules.candidates(["at", "large"], None)] == ["big"]  # no tags: no check
    # proper nouns are left alone
    tokens, tags = parse("He purchased a house in Paris and commenced work on the novel.")
    assert [(c.start, c.replacement) for c in rules.candidates(tokens, tags)] == [(1, "bought"), (7, "began"),
                                                                                   (7, "started")]
    with pytest.raises(ValueError, match="2 tags for 3 tokens"):
        rules.candidates(["a", "b", "c"], ["DT", "NN"])


def test_substitute_of_simsim_uses_the_candidates(tmp_path):
    """The consumer (miners/simsim/simulate.py substitute) takes `load_rules`' index as is."""
    from miners.simsim.simulate import substitute
    rules = ppdb.load_rules(write_rules(tmp_path / "rules"))
    text = "Approximately 30 villages were destroyed, and a large number of residents had to utilize shelters."
    tokens, tags = parse(text)

    def every_rewrite_is_as_natural(texts):  # a language model that never objects: shows the rule side only
        return [0.0] * len(texts)
    new, applied = substitute(text, tokens, tags, rules, every_rewrite_is_as_natural)
    assert new == "About 30 villages were destroyed, and many residents had to use shelters."  # at most 3 (MAX_SUBSTITUTIONS)
    assert applied == ["utilize -> use", "a large number of -> many", "Approximately -> about"]

    def longer_is_worse(texts):  # the gate: a rewrite that the model finds less natural is refused
        return [-len(t) for t in texts]
    new, applied = substitute(text, tokens, tags, rules, longer_is_worse)
    assert (new, applied) == (text, [])


def test_rules_file_fixture_is_real_format(tmp_path):
    path = write_rules(tmp_path / "rules")
    first = open(path, encoding="utf-8").readline()
    fields = first.split(" ||| ")
    assert len(fields) == 6 and fields[3].startswith("PPDB2.0Score=") and fields[5].strip() == "Equivalence"
    assert os.path.getsize(path) > 30 * 800  # full feature lists, as the release
