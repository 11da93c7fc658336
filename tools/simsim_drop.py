"""What s3's dropping step removed in blind-judged SimSim records, and what the dropping checks say.

    .venv/bin/python tools/simsim_drop.py [docs/simsim_judged/*.sheet.txt ...] [--show]

For every judged s3 record of the sheets (each `X.sheet.txt` has its key `X.key.tsv` beside it), the s2
text the dropping step ran on is rebuilt: the seed's base (the source shown for a text seed; for a
WikiSplit seed, the split side of `--wikisplit`'s row) back-translated through the record's pivot with
Apertium (deterministic; a record whose rebuilt text does not contain the output's words in order,
allowing one-word substitutions, is counted `not_rebuilt`). The words the output lacks are the dropped
phrase(s); each is described on the spaCy parse of that text (miners.nlp, en_core_web_sm, UD v2): the
relation of the phrase's head, its preposition, the head it hung from, and what the removal left behind.
Then miners.simsim.simulate.drop_refusal says whether today's dropping would refuse that removal, and
why. Prints one table per verdict (acceptable, slip, broken) by refusal reason. The checks were written
after reading these verdicts, so what they refuse here is no held-out estimate.
"""
import argparse
import collections
import csv
import difflib
import glob
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.simsim_judged import judged  # noqa: E402  pylint: disable=wrong-import-position

_TOKEN = re.compile(r"\w+(?:['\u2019]\w+)*|[^\w\s]")


def _wikisplit_bases(path):
    from schemas.records import SplitExample
    out = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f):
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 2 and SplitExample.SEPARATOR.strip() in cols[1]:
                ex = SplitExample.from_row(cols)
                out[number] = (ex.complex, f"{ex.simple1} {ex.simple2}")
    return out


def seed_base(row, wikisplit):
    """The text the seed's back-translation was made from, or None."""
    doc = row["doc_id"]
    if doc.startswith("tune.tsv:"):
        got = wikisplit.get(int(doc.split(":", 1)[1]))
        if got is None or got[0] != row["source"]:
            return None
        return got[1]
    return row["source"]


def dropped_spans(before: str, after: str):
    """Character spans of `before` whose words `after` lacks, or None when `after` is not `before`
    less some words (one-word replacements allowed: a substitution)."""
    bt = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(before)]
    at = [m.group() for m in _TOKEN.finditer(after)]
    sm = difflib.SequenceMatcher(a=[t[0] for t in bt], b=at, autojunk=False)
    spans = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if op == "delete":
            spans.append((bt[i1][1], bt[i2 - 1][2]))
        elif op == "replace" and i2 - i1 == j2 - j1 <= 2:
            continue  # a substituted word
        elif op == "replace" and all(not any(c.isalnum() for c in t[0]) for t in bt[i1:i2]):
            continue  # punctuation repaired at a junction
        elif op == "replace" and j2 - j1 < i2 - i1 and all(not any(c.isalnum() for c in w) for w in at[j1:j2]):
            spans.append((bt[i1][1], bt[i2 - 1][2]))  # a phrase and its comma
        elif op == "insert" and all(not any(c.isalnum() for c in w) for w in at[j1:j2]):
            continue
        else:
            return None
    return spans


def phrases_of(sentence, text, spans):
    """The droppable Phrase (token range) of each dropped character span, by the parse's offsets."""
    from miners.simsim import simulate as simsim
    offsets = simsim.token_offsets(text, [t.text for t in sentence.tokens])
    out = []
    for start, end in spans:
        inside = [k for k, (s, e) in enumerate(offsets) if s >= start and e <= end]
        inside = [k for k in inside if any(c.isalnum() for c in sentence.tokens[k].text)] or inside
        if not inside:
            continue
        first, last = inside[0], inside[-1]
        heads = [k for k in range(first, last + 1) if not first <= sentence.tokens[k].head <= last]
        rel = sentence.tokens[heads[0]].deprel.split(":")[0] if heads else "?"
        out.append(simsim.Phrase(first, last + 1, rel))
    return out


def describe(sentence, phrase):
    toks = sentence.tokens
    heads = [k for k in range(phrase.start, phrase.end) if not phrase.start <= toks[k].head < phrase.end]
    if not heads:
        return "?"
    h = toks[heads[0]]
    case = [toks[c].text for c in sentence.children(heads[0]) if toks[c].deprel == "case"]
    gov = toks[h.head] if h.head >= 0 else None
    return (f"{h.deprel}{'[' + ' '.join(case) + ']' if case else ''} of {gov.text + '/' + gov.upos if gov else 'ROOT'}"
            f"{' (' + str(len(heads)) + ' heads)' if len(heads) > 1 else ''}")


def _punctuation(text):
    """The marks of a text, words and spaces aside: a junction repaired changes them, a substitution not."""
    return re.sub(r"[\w\s]+", "", text)


def _refusal(text, sentence, offsets, phrase, reparse, checks):
    """Why today's dropping would refuse to drop `phrase` alone from `text`, or None."""
    from miners.simsim import simulate as simsim
    reason = simsim.phrase_refusal(sentence, phrase, checks)
    if reason is None:
        result = simsim._remove(text, offsets, [phrase])  # pylint: disable=protected-access
        reason = simsim.result_refusal(text, sentence, result, reparse, checks)
    return reason


def main(argv=None):
    from miners.nlp.annotators import SpacyAnnotator
    from miners.simsim import simulate as simsim
    from miners.simsim.translate import back_translate_batch, make_translator
    from miners.text.segmenter import split_sentences
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sheets", nargs="*", default=sorted(glob.glob(str(ROOT / "docs/simsim_judged/*.sheet.txt"))))
    ap.add_argument("--wikisplit", default=str(ROOT.parent / "shared/data/wikisplit/tune.tsv"))
    ap.add_argument("--show", action="store_true", help="print every s3 record with a dropped phrase")
    ap.add_argument("--no_restore", dest="restore", action="store_false",
                    help="rebuild s2 without restore_function_words (the sheets of rounds 1-7b were made so)")
    ap.add_argument("--checks", default=",".join(simsim.DEFAULT_DROP_CHECKS),
                    help="the dropping checks measured together (default: the job's default)")
    ap.add_argument("--causes", default=str(ROOT / "docs/simsim_judged/drop_causes.tsv"),
                    help="sheet, item, cause of each broken s3 record whose drop (today a candidate) was read as "
                         "the fault, or 'other' when its s2 text was broken as it is")
    args = ap.parse_args(argv)
    checks = tuple(c for c in args.checks.split(",") if c and c != "none")
    wikisplit = _wikisplit_bases(args.wikisplit) if pathlib.Path(args.wikisplit).exists() else {}
    rows = []
    for sheet in args.sheets:
        name = pathlib.Path(sheet).name.replace(".sheet.txt", "")
        rows += [dict(r, sheet=name) for r in judged(sheet) if r["variant"] == "s3"]
    translator = make_translator("apertium").load()
    by_pivot = collections.defaultdict(list)
    for r in rows:
        r["base"] = seed_base(r, wikisplit)
        if r["base"] is not None:
            by_pivot[r["method"].split(":", 1)[1]].append(r)
    for pivot, rs in sorted(by_pivot.items()):
        outs, error = back_translate_batch(translator, [r["base"] for r in rs], pivot)
        if error is not None:
            raise SystemExit(f"apertium {pivot}: {error}")
        for r, out in zip(rs, outs):
            r["s2"] = simsim.restore_function_words(out, r["base"])[0] if args.restore else out
    annotator = SpacyAnnotator()
    causes = {}
    if pathlib.Path(args.causes).exists():
        with open(args.causes, encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                causes[(row["sheet"], row["item"])] = row["cause"]
    by_cause = collections.defaultdict(collections.Counter)
    offered = collections.defaultdict(collections.Counter)
    table = collections.defaultdict(collections.Counter)
    per_check = collections.defaultdict(collections.Counter)

    def reparse(t):
        return annotator.parse([t])[0]

    for r in rows:
        verdict = r["verdict"]
        if r.get("s2") is None:
            table["not_rebuilt"][verdict] += 1
            continue
        pieces = split_sentences(r["s2"]) or [r["s2"]]
        outs = split_sentences(r["output"]) or [r["output"]]
        if len(pieces) != len(outs):
            table["not_rebuilt"][verdict] += 1
            continue
        found, refusal, notes, fired, candidate_today = False, None, [], set(), True
        rebuilt_pieces = []
        for piece, out in zip(pieces, outs):
            spans = dropped_spans(piece, out)
            if spans is not None:
                rebuilt_pieces.append(out if not spans else None)
            if spans is None:
                refusal = refusal or "?"
                notes.append("not rebuilt")
                found = None
                break
            if not spans:
                continue
            parse = annotator.parse([piece])[0]
            if isinstance(parse, Exception):
                continue
            phrases = phrases_of(parse, piece, spans)
            if not phrases:
                continue
            found = True
            offsets = simsim.token_offsets(piece, [t.text for t in parse.tokens])
            today = simsim.droppable_phrases(parse, piece, relations=simsim.DEFAULT_DROP_RELATIONS)
            for p in phrases:
                if not any(q.start <= p.start and p.end <= q.end for q in today):
                    candidate_today = False
                for check in simsim.DROP_CHECKS:
                    if _refusal(piece, parse, offsets, p, reparse, (check,)):
                        fired.add(check)
                reason = _refusal(piece, parse, offsets, p, reparse, checks)
                refusal = refusal or reason
            notes += [f"{describe(parse, p)}: {parse.span_text(p.start, p.end)!r}" for p in phrases]
            rebuilt_pieces[-1] = simsim._remove(piece, offsets, phrases)  # pylint: disable=protected-access
        rebuilt = " ".join(p or "" for p in rebuilt_pieces)
        if found is None:
            table["not_rebuilt"][verdict] += 1
            if args.show:
                print(f"{r['sheet']} {r['item']} {verdict} NOT REBUILT\n  s2:     {r['s2']}\n  output: {r['output']}")
            continue
        if not found:
            table["no_drop"][verdict] += 1
            continue
        table[f"refused:{refusal}" if refusal else "kept"][verdict] += 1
        if candidate_today:
            cause = causes.get((r["sheet"], r["item"]), "") if verdict == "b" else ""
            group = {"a": "acceptable", "s": "one slip"}.get(verdict) or (
                "broken, other fault" if cause == "other" else "broken by the drop" if cause else "broken, not read")
            repaired = not refusal and _punctuation(r["output"]) != _punctuation(rebuilt)
            outcome = f"refused:{refusal}" if refusal else "repaired junction" if repaired else "still dropped"
            offered[group][outcome] += 1
            offered[group]["n"] += 1
            if cause and cause != "other":
                by_cause[cause]["n"] += 1
                by_cause[cause][outcome] += 1
        for check in fired:
            per_check[check][verdict] += 1
        if not candidate_today:
            table["(not a candidate of today's droppable_phrases)"][verdict] += 1
        if args.show:
            print(f"{r['sheet']} {r['item']} {verdict} {'REFUSED ' + refusal if refusal else 'kept'}"
                  f"{'' if candidate_today else ' (no candidate today)'} {sorted(fired)}\n"
                  f"  s2:     {r['s2']}\n  output: {r['output']}\n  " + "\n  ".join(notes))
    print(f"{'s3 records':<40}{'a':>5}{'s':>5}{'b':>5}")
    for key in sorted(table, key=lambda k: (not k.startswith("refused"), k)):
        c = table[key]
        print(f"{key:<40}{c['a']:>5}{c['s']:>5}{c['b']:>5}")
    print("each check alone (a record counts under every check that refuses one of its dropped phrases):")
    for check in simsim.DROP_CHECKS:
        c = per_check[check]
        print(f"  {check:<38}{c['a']:>5}{c['s']:>5}{c['b']:>5}")
    print("s3 records whose dropped phrases today's droppable_phrases still offers (obl, nmod), by reading:")
    for group in ("acceptable", "one slip", "broken by the drop", "broken, other fault", "broken, not read"):
        c = offered[group]
        if c["n"]:
            print(f"  {group:<22}{c['n']:>4}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k != "n"))
    print("broken by the drop, by cause read:")
    for cause, c in sorted(by_cause.items(), key=lambda kv: -kv[1]["n"]):
        print(f"  {cause:<22}{c['n']:>4}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k != "n"))
    refused = sum((c for k, c in table.items() if k.startswith("refused")), collections.Counter())
    dropped = refused + table["kept"]
    print(f"with a dropped phrase: a {dropped['a']}, s {dropped['s']}, b {dropped['b']}; refused: "
          f"a {refused['a']}, s {refused['s']}, b {refused['b']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
