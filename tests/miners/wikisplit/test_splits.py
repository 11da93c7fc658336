"""The split heuristic, BLEU, noise filters and recall on real-text histories."""
import collections

import pytest
import sacrebleu

from miners.quality import scoring
from miners.wikisplit import splits as wikisplit
from miners.sources import history
from schemas.records import Revision, SplitExample
from schemas.release import detokenize_punct, tokenize_punct
from tests import wikisplit_fixtures as fx


# ----------------------------------------------------------------- facts of the release


def test_release_facts_trigram_and_bleu():
    """SOURCES.md: 99.0% of tune.tsv meet the trigram conditions, 99.2% have BLEU >= 0.2 for both."""
    rows = fx.tune_rows()
    tri = sum(wikisplit.trigram_match(c.split(), s1.split(), s2.split()) for c, s1, s2 in rows)
    bleu = sum(min(wikisplit.sentence_bleu(c, s1), wikisplit.sentence_bleu(c, s2)) >= wikisplit.MIN_BLEU
               for c, s1, s2 in rows)
    assert len(rows) == 5000
    assert round(100 * tri / len(rows), 1) == 99.0
    assert round(100 * bleu / len(rows), 1) == 99.2


def test_sentence_bleu_is_sacrebleus():
    for c, s1, s2 in fx.tune_rows()[:50]:
        assert wikisplit.sentence_bleu(c, s1) == sacrebleu.sentence_bleu(c, [s1]).score / 100.0


def test_tokenization_matches_the_release():
    """Re-tokenizing the detokenized release text gives the release's tokens back for most sentences."""
    sents = [s for row in fx.tune_rows() for s in row]
    same = sum(tokenize_punct(detokenize_punct(s)) == s for s in sents)
    # Measured: 94.2% (the rest are mostly hyphenated words the release kept whole, e.g. "X-Men",
    # while it split most hyphens: "777 - 300ERs").
    assert same / len(sents) > 0.94
    assert tokenize_punct("The U.S., i.e. the state -- he said... it's 3.5% (approx.)") == \
        "The U.S. , i.e. the state -- he said ... it 's 3.5 % ( approx. )"


def test_noise_filters_reject_little_of_the_release():
    flagged = collections.Counter()
    for row in fx.tune_rows():
        for s in row:
            reason = wikisplit.noise_reason(s.split())
            if reason:
                flagged[reason] += 1
                break
    # The released pairs passed the paper's filters; ours flag under 1% of them.
    assert sum(flagged.values()) < 50, flagged


# ----------------------------------------------------------------- the heuristic on literals

C = "The castle was built in 1120 by the Normans and it was destroyed by fire in 1530."
S1 = "The castle was built in 1120 by the Normans."
S2 = "It was destroyed by fire in 1530."


def test_find_splits_exact():
    counts = collections.Counter()
    kept, rejects = wikisplit.find_splits([C], [[S1, S2]], inc=lambda n, k=1: counts.update({n: k}))
    assert rejects == []
    assert [(k.complex, k.simple1, k.simple2) for k in kept] == [(C, S1, S2)]
    assert kept[0].bleu1 == pytest.approx(sacrebleu.sentence_bleu(C, [S1]).score / 100)
    assert kept[0].bleu2 == pytest.approx(sacrebleu.sentence_bleu(C, [S2]).score / 100)
    assert counts == {"trigram_match": 1}


def test_trigram_conditions():
    t = str.split
    assert wikisplit.trigram_match(t("a b c x y z"), t("a b c d ."), t("q x y z"))
    assert not wikisplit.trigram_match(t("a b c x y z"), t("a b e d ."), t("q x y z"))  # prefix differs
    assert not wikisplit.trigram_match(t("a b c x y z"), t("a b c d ."), t("q x y w"))  # suffix differs
    assert not wikisplit.trigram_match(t("a b c x y z"), t("a b c x y z"), t("q x y z"))  # S1, S2 end alike


def test_low_bleu_is_rejected_and_threshold_is_an_option():
    c = "He was born in Paris in 1900 and became a famous painter of large landscapes in 1930."
    s1 = "He was born in a small house."
    s2 = "Later he moved away and painted landscapes in 1930."
    kept, rejects = wikisplit.find_splits([c], [[s1, s2]])
    assert kept == [] and [r.reason for r in rejects] == ["low_bleu"]
    b2 = sacrebleu.sentence_bleu(c, [s2]).score / 100
    assert rejects[0].detail == f"bleu1={sacrebleu.sentence_bleu(c, [s1]).score / 100:.3f} bleu2={b2:.3f}"
    kept, rejects = wikisplit.find_splits([c], [[s1, s2]], min_bleu=0.0)
    assert len(kept) == 1 and rejects == []


@pytest.mark.parametrize("c, s1, s2, reason", [
    (C.replace("Normans", "Normansssssssssssssssssssssssss"), S1.replace("Normans", "Normansssssssssssssssssssssssss"),
     S2, "long_token"),
    (C.replace("by fire", "by fire fire fire fire"), S1, S2.replace("by fire", "by fire fire fire fire"),
     "repeated_token"),
    (C.replace("Normans", "shit Normans"), S1.replace("Normans", "shit Normans"), S2, "profanity"),
])
def test_noise_filters(c, s1, s2, reason):
    kept, rejects = wikisplit.find_splits([c], [[s1, s2]])
    assert kept == [] and [(r.reason, r.complex) for r in rejects] == [(reason, c)]


def test_three_repeats_are_allowed_four_are_not():
    assert wikisplit.noise_reason("a very very very long day".split()) is None
    assert wikisplit.noise_reason("a very very very very long day".split()) == "repeated_token"
    assert wikisplit.noise_reason(["x" * 25]) is None and wikisplit.noise_reason(["x" * 26]) == "long_token"


def test_best_candidate_per_complex_sentence():
    worse_s2 = "It burned down, destroyed by fire in 1530."
    kept, _ = wikisplit.find_splits([C], [[S1, worse_s2], [S1, S2]])
    assert [(k.simple1, k.simple2) for k in kept] == [(S1, S2)]


def _rev(rid, text, page_id=3, title="Castle"):
    return Revision(page_id=page_id, title=title, namespace=0, revision_id=rid, parent_id=rid - 1,
                    timestamp=f"2010-01-0{rid % 9 + 1}T00:00:00Z", comment="", text=text)


PARA = "The town lies on a river. Its market is old."


def _mine(before, after):
    counts = collections.Counter()
    seg = wikisplit.BlockSegmenter()
    res = wikisplit.mine_revision_pair(history.RevisionPair(before, after), seg,
                                       inc=lambda n, k=1: counts.update({n: k}))
    return res, counts


def test_both_directions_with_provenance():
    one = f"{PARA}\n\n'''Castle''' history. {C} Later events.\n\n== History ==\nMore text here."
    two = f"{PARA}\n\n'''Castle''' history. {S1} {S2} Later events.\n\n== History ==\nMore text here."
    res, _ = _mine(_rev(11, one), _rev(12, two))
    assert res.examples == [SplitExample(
        complex=C, simple1=S1, simple2=S2, page_id=3, title="Castle", revision_before=11, revision_after=12,
        timestamp_before="2010-01-03T00:00:00Z", timestamp_after="2010-01-04T00:00:00Z", direction="forward",
        bleu1=wikisplit.sentence_bleu(C, S1), bleu2=wikisplit.sentence_bleu(C, S2), source="wikipedia_history")]
    res, _ = _mine(_rev(12, two), _rev(13, one))
    assert [(e.direction, e.complex, e.revision_before, e.revision_after) for e in res.examples] == [
        ("backward", C, 12, 13)]


def test_unchanged_text_is_not_examined():
    seen = []

    def cleaner(block):
        seen.append(block)
        return block

    seg = wikisplit.BlockSegmenter(cleaner=cleaner)
    same = f"{C}\n\n{S1} {S2}"  # a split-looking text that does not change between the revisions
    before, after = _rev(1, f"{same}\n\nOld words."), _rev(2, f"{same}\n\nNew words.")
    res = wikisplit.mine_revision_pair(history.RevisionPair(before, after), seg)
    assert res.examples == [] and seen == ["Old words.", "New words."]


def test_non_split_edits_yield_nothing():
    counts = collections.Counter()
    res, counts = _mine(_rev(1, f"{PARA}\n\n{C}"), _rev(2, f"{PARA}\n\n{C} It was rebuilt."))
    assert res.examples == [] and counts == {"no_changed_sentence": 1}
    res, counts = _mine(_rev(1, f"{PARA}\n\n{C}"), _rev(2, f"{PARA}\n\n{C.replace('1530', '1531')}"))
    assert res.examples == [] and counts == {}


def test_split_blocks_keep_templates_whole():
    text = "{{Infobox\n| a = 1\n\n| b = 2\n}}\n\nFirst para.\n\n\n{|\n| cell\n\n|}\nLast."
    assert wikisplit.split_blocks(text) == ["{{Infobox\n| a = 1\n\n| b = 2\n}}", "First para.",
                                            "{|\n| cell\n\n|}\nLast."]


def test_best_of_is_deterministic():
    a = SplitExample(complex=C, simple1=S1, simple2=S2, page_id=1, revision_before=5, revision_after=6,
                     bleu1=0.5, bleu2=0.4)
    b = SplitExample(complex=C, simple1=S1, simple2=S2, page_id=1, revision_before=2, revision_after=3,
                     bleu1=0.5, bleu2=0.4)
    c = SplitExample(complex=C, simple1=S1, simple2=S2, page_id=1, revision_before=9, revision_after=10,
                     bleu1=0.6, bleu2=0.3)
    assert wikisplit.best_of([a, b, c]) == b and wikisplit.best_of([c, b, a]) == b


# ----------------------------------------------------------------- recall on real-text histories


def _mine_file(path):
    seg = wikisplit.BlockSegmenter()
    examples, rejects, skips = [], [], collections.Counter()
    with open(path, "rb") as f:
        for item in history.iter_history(f, path):
            if isinstance(item, history.Skip):
                skips[item.reason] += 1
                continue
            res = wikisplit.mine_revision_pair(item, seg)
            examples += res.examples
            rejects += res.rejects
    return examples, rejects, skips


def test_recall_on_woven_release_pairs(tmp_path):
    fixture = fx.build_fixture(str(tmp_path / "history.xml"), n_pages=60)
    examples, rejects, skips = _mine_file(fixture.path)
    got = {(e.complex, e.simple1, e.simple2, e.direction, e.page_id) for e in examples}
    woven = {(d["complex"], d["simple1"], d["simple2"], d["direction"], d["page_id"]) for d in fixture.expected}
    recoverable = set(fx.recoverable(fixture))
    # Precision: everything mined is a woven split; nothing from ordinary edits, reverted
    # vandalism, the talk page or the profane vandal edits.
    assert got <= woven
    assert not {(c, s1, s2) for c, s1, s2, _, _ in got} & set(fixture.unexpected)
    # Recall: every woven pair that meets the paper's conditions on the release text is found.
    assert got == recoverable
    recall = len(got) / len(woven)
    print(f"recall {len(got)}/{len(woven)} = {recall:.3f}")
    # Which release pairs are woven depends on the segmenter (`fx.weavable_pairs`); with the shared
    # segmenter of issue 12, 3 of the 48 fail the paper's conditions on the release's own tokens
    # (a changed capital, a low BLEU), so no faithful miner finds them: 45/48 (it was 46/48 before).
    assert len(woven) == 48 and recall > 0.93
    # The noise that the history carried was skipped and counted.
    assert skips["non_article_namespace"] == 2
    assert skips["identity_revert"] == 12 + 30  # 12 vandal splits reverted, 30 profane edits reverted
    assert skips["revert_comment"] == 0 and skips["reverted_revision"] == 42



def test_recall_on_the_tune_split_woven_into_a_history(tmp_path):
    """Every other pair of the release's tune split that plain wikitext can hold (2,484 of the
    4,967), woven into real articles' histories as in `test_recall_on_woven_release_pairs`: among
    copyedits, reverted vandal splits, profane edits and a talk page.

    Measured (issue 32) on all 4,967: 4,839 of the 4,885 that meet the paper's conditions on the
    release's own text are found (0.991; 0.966 before: sentences woven into infoboxes, and BLEU
    over raw text), and nothing else comes out but 6 of them less a sentence the release's C
    repeats from S2 or S1. Of the 46 not found: 29 the release segmented where the text has no
    stop, or did not where it has one (20 complex sentences holding two sentences, 9 simple
    sentences cut after "Mt.", "et al.", ...), 5 our segmenter cuts or joins otherwise
    ('"Alive!" (1975)', "inv. MC1141", "either a or a."), 8 BLEU just under 0.2 where the
    release keeps "post-medieval", "O’Connor" whole and we split them, 3 our noise filters (2
    profane song titles, "face!!!!"), 1 a trigram ("(633/km²)" is one token in the release).
    On these 2,484 (placed on other pages): 2,416 of 2,445 (0.988; 2,409 with BLEU over raw
    text), and one wrong output (below).
    """
    pairs = fx.release_pairs_in_wikitext()[::2]
    fixture = fx.build_release_history(str(tmp_path / "history.xml"), pairs)
    examples, _, skips = _mine_file(fixture.path)
    got = {(e.complex, e.simple1, e.simple2, e.direction, e.page_id) for e in examples}
    woven = {(d["complex"], d["simple1"], d["simple2"], d["direction"], d["page_id"]): d["row"]
             for d in fixture.expected}
    achievable = {k for k, row in woven.items() if fx.release_conditions_hold(row)}
    by_page = {k[4]: k for k in woven}
    trimmed = {g for g in got - set(woven) if g[4] in by_page and fx.shared_sentence_removed(by_page[g[4]], g)}
    wrong = sorted(got - set(woven) - trimmed)
    # Nothing from reverted splits, copyedits, profane edits or the talk page; every record is a woven
    # pair, on its page and in its direction, or one of them less a sentence the release repeats in
    # C and S2 (or S1) -- but one: the woven C and S2 end in "m.p.h." and the article's next
    # sentence starts with "Errors", a word after which our segmenter (schemas.abbreviations) does
    # not cut after an abbreviation, so that unchanged sentence rides on both C and S2.
    assert len(trimmed) == 5 and len(wrong) == 1
    (c, s1, s2, _, page), = wrong
    woven_c, woven_s1, woven_s2, _, _ = by_page[page]
    tail = c[len(woven_c):]
    assert woven_c.endswith(" m.p.h.") and tail.startswith(" Errors in publication may be corrected")
    assert (c, s1, s2) == (woven_c + tail, woven_s1, woven_s2 + tail)
    assert got & set(woven) <= achievable
    found = len(got & achievable)
    print(f"tune split: {found}/{len(achievable)} = {found / len(achievable):.4f} ({len(woven)} woven)")
    assert (len(woven), len(achievable)) == (2484, 2445)
    assert found >= 2416 and found / len(achievable) >= 0.98
    assert skips["non_article_namespace"] == 2 and skips["revert_comment"] == 0


def test_bleu_is_taken_over_the_release_tokens():
    """A release pair (tune.tsv) that BLEU over raw text puts under 0.2: 13a keeps `Bread's` and
    `"Guitar Man".` whole where the release (and the trigram conditions) split them."""
    c, s1, s2 = (fx.release_to_plain(s) for s in fx.tune_rows()[6])
    assert s2 == 'It appeared on Bread\'s 1972 album "Guitar Man".'
    assert wikisplit.sentence_bleu(c, s2) < wikisplit.MIN_BLEU  # 0.180 over the raw text
    kept, rejects = wikisplit.find_splits([c], [[s1, s2]])
    assert rejects == [] and [(k.complex, k.simple1, k.simple2) for k in kept] == [(c, s1, s2)]
    # The score the quality stage gives the record (it re-scores splits the same way).
    assert (kept[0].bleu1, kept[0].bleu2) == (scoring.sentence_bleu(c, s1), scoring.sentence_bleu(c, s2))
    assert kept[0].bleu2 >= wikisplit.MIN_BLEU


def test_template_hole_candidates_are_rejected():
    # A sentence where the wikitext cleaner dropped a template from inside (issue 32) is not the text:
    # the split candidate it belongs to is rejected as `template_hole`, before any other filter.
    hole = "\ufdd1"
    c = C.replace("by fire", "by fire" + hole)
    kept, rejects = wikisplit.find_splits([c], [[S1, S2.replace("by fire", "by fire" + hole)]])
    assert kept == [] and [(r.reason, r.complex) for r in rejects] == [("template_hole", c)]
    # From wikitext, through the block segmenter: {{RailGauge}} (bundled sample, "Albania") leaves a hole.
    seg = wikisplit.BlockSegmenter()
    assert seg("It operates a {{RailGauge|1435mm}} gauge rail system in Albania.") == (
        "It operates a" + hole + " gauge rail system in Albania.",)
