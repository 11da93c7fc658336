"""A PPDB 2.0 rules file in the release's format, for the tests of miners/simsim/ppdb.py and its consumers.

PPDB 2.0 (Pavlick et al., ACL 2015) is not obtainable here; these 30 rules (lexical, then
phrasal) are written one a line as the release prints them (`ppdb-2.0-*-lexical`, `-phrasal`):
LHS ||| phrase ||| paraphrase ||| features (PPDB2.0Score first, then PPDB 1.0's and 2.0's
features) ||| word alignment ||| entailment class.
"""
import gzip

# (lhs, phrase, paraphrase, PPDB2.0Score, entailment): lexical rules, then phrasal ones.
RULES = [
    ("[RB]", "approximately", "about", 3.95521, "Equivalence"),
    ("[RB]", "approximately", "roughly", 3.61830, "Equivalence"),
    ("[RB]", "approximately", "approx", 3.21004, "Equivalence"),  # an abbreviation: same stem
    ("[VB]", "utilize", "use", 4.21437, "Equivalence"),
    ("[VBD]", "purchased", "bought", 3.88210, "Equivalence"),
    ("[VBD]", "commenced", "began", 3.70442, "Equivalence"),
    ("[VBD]", "commenced", "started", 3.50120, "Equivalence"),
    ("[JJ]", "sufficient", "enough", 3.40711, "Equivalence"),
    ("[NN]", "residence", "home", 3.31052, "ForwardEntailment"),
    ("[NN]", "automobile", "car", 3.83190, "Equivalence"),
    ("[NN]", "car", "automobile", 3.83190, "Equivalence"),  # longer: not simplifying
    ("[CC]", "and", "as well as", 3.03448, "Equivalence"),  # longer: not simplifying
    ("[NNS]", "companies", "company", 3.10933, "Equivalence"),  # inflection: same stem
    ("[NNS]", "residents", "people", 2.41370, "ReverseEntailment"),  # low score and reverse entailment
    ("[NN]", "demand", "need", 3.20418, "OtherRelated"),  # not kept by default
    ("[JJ]", "temporary", "permanent", 3.60021, "Exclusion"),  # contradicts
    ("[NNP]", "paris", "france", 3.50010, "ForwardEntailment"),  # a proper noun
    ("[CD]", "three", "3", 3.90011, "Equivalence"),  # a digit for a word
    ("[JJ]", "large", "big", 3.15500, "Equivalence"),
    ("[VBZ]", "employs", "uses", 3.05031, "Equivalence"),
    ("[VP/NP]", "in order to meet", "to meet", 3.52212, "Equivalence"),
    ("[PP/NP]", "in order to", "to", 3.77614, "Equivalence"),
    ("[X]", "in order to", "so as to", 3.30201, "Equivalence"),  # 6 characters, not 9: counts as shorter
    ("[NP]", "a large number of", "many", 4.01113, "Equivalence"),
    ("[NP/NN]", "a great deal of", "much", 3.87115, "Equivalence"),
    ("[VP]", "had to", "must", 3.25090, "Equivalence"),
    ("[ADVP]", "at this point in time", "now", 4.10221, "Equivalence"),
    ("[PP]", "in the event that", "if", 3.66002, "Equivalence"),
    ("[DT+NN]", "the majority", "most", 3.20010, "ForwardEntailment"),
    ("[VP]", "was able to", "could", 3.45500, "Equivalence"),
]

def release_line(lhs, phrase, paraphrase, score, entailment):
    """One rule with the release's full feature list (PPDB2.0Score first, as PPDB 2.0 prints it)."""
    src, tgt = phrase.split(), paraphrase.split()
    char_diff = len(paraphrase.replace(" ", "")) - len(phrase.replace(" ", ""))
    features = (f"PPDB2.0Score={score:.5f} PPDB1.0Score=3.84028 -logp(LHS|e1)=0.06336 -logp(LHS|e2)=0.09382 "
                f"-logp(e1|LHS)=13.10577 -logp(e1|e2)=2.23711 -logp(e1|e2,LHS)=2.20665 -logp(e2|LHS)=11.33001 "
                f"-logp(e2|e1)=0.46134 -logp(e2|e1,LHS)=0.43088 AGigaSim=0.56681 Abstract=0 Adjacent=0 "
                f"CharCountDiff={char_diff} CharLogCR=-0.31015 ContainsX=0 Equivalence=0.17634 Exclusion=0.00140 "
                f"GlueRule=0 GoogleNgramSim=0.11211 Identity=0 Independent=0.26536 Lex(e1|e2)=3.98327 "
                f"Lex(e2|e1)=3.88138 Lexical={int(len(src) == len(tgt) == 1)} LogCount=2.89037 MVLSASim=NA "
                f"Monotonic=1 OtherRelated=0.44609 PhrasePenalty=1 RarityPenalty=0.00000 ForwardEntailment=0.05318 "
                f"ReverseEntailment=0.05763 SourceTerminalsButNoTarget=0 SourceWords={len(src)} "
                f"TargetTerminalsButNoSource=0 TargetWords={len(tgt)} UnalignedSource=0 UnalignedTarget=0 "
                f"WordCountDiff={len(tgt) - len(src)} WordLenDiff={char_diff:.5f} WordLenLogCR=-0.31015")
    alignment = " ".join(f"{i}-{min(i, len(tgt) - 1)}" for i in range(len(src)))
    return f"{lhs} ||| {phrase} ||| {paraphrase} ||| {features} ||| {alignment} ||| {entailment}"


def write_rules(path, extra=(), gz=False):
    text = "\n".join([release_line(*r) for r in RULES] + list(extra)) + "\n"
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return str(path)
