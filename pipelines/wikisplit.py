"""rewrite-mine wikisplit: split-and-rephrase pairs from Wikipedia edit history.

Botha et al., "Learning To Split and Rephrase From Wikipedia Edit History"
(EMNLP 2018), section 2.1: a sentence C of one revision became two consecutive
sentences S1 S2 in the adjacent revision (or the reverse) when C and S1 share
their first three tokens, C and S2 their last three, S1 and S2 end differently
and sentence BLEU(C, S_i) >= 0.2 for both. Reads pages-meta-history dumps
(`.xml`, `.xml.bz2`, `.xml.gz`, `.xml.7z`), skips reverted and vandal edits,
and writes `SplitExample` shards with fixed-size tune / validation / test splits
by page id (5,000 each by default, like the release) and the rest in train.

Local run (in-process runner, never touches the network):

    rewrite-mine wikisplit \\
        --input 'dumps/enwiki-*-pages-meta-history*.xml.bz2' \\
        --output out/ --tsv --split_size 5000

Dataflow:

    rewrite-mine wikisplit --runner DataflowRunner \\
        --input 'gs://BUCKET/enwiki/*pages-meta-history*.7z' --output gs://BUCKET/out \\
        --project PROJECT --region REGION --temp_location gs://BUCKET/tmp \\
        --setup_file ./setup.py
"""
from miners.wikisplit import splits as wikisplit
from miners.sources import history
from pipelines.framework.job import Job, JobOutput
from pipelines.framework.language import add_language_argument, dump_namespaces
from schemas.records import SplitExample
from transforms import wikisplit as wikisplit_transforms


def add_arguments(parser):
    add_language_argument(parser)
    parser.add_argument("--split_size", type=int, default=5000,
                        help="examples reserved for each of tune, validation and test (whole pages, "
                             "chosen by a hash of the page id); the rest goes to train")
    parser.add_argument("--revert_radius", type=int, default=history.REVERT_RADIUS,
                        help="identity reverts are searched this many revisions back")
    parser.add_argument("--max_revision_chars", type=int, default=history.MAX_REVISION_CHARS,
                        help="revisions with more wikitext are rejected as giant_revision")


def miner_min_bleu(args) -> float:
    """The heuristic's BLEU threshold: the shared `--min_bleu` (quality stage) when given, else the
    paper's 0.2; `--no_bleu_filter` keeps every trigram candidate (threshold 0)."""
    if getattr(args, "bleu_filter", True) is False:
        return 0.0
    value = getattr(args, "min_bleu", None)
    return wikisplit.MIN_BLEU if value is None else float(value)


def build(pipeline, args, inputs) -> JobOutput:
    import apache_beam as beam
    min_bleu = miner_min_bleu(args)
    sizes = tuple((s, args.split_size) for s, _ in wikisplit_transforms.DEFAULT_SPLIT_SIZES)
    paths = pipeline | "ListInputs" >> beam.Create(sorted(inputs))
    out = paths | "MineWikiSplit" >> wikisplit_transforms.MineWikiSplit(
        min_bleu=min_bleu, sizes=sizes, revert_radius=args.revert_radius,
        max_revision_chars=args.max_revision_chars,
        noise_sample_rate=getattr(args, "bulk_reject_rate", 0.01), language=getattr(args, "language", "en"),
        hidden_namespaces=dump_namespaces(sorted(inputs)))
    return JobOutput(
        presplit=out["presplit"], rejects=out["rejects"], counts=out["counts"],
        manifest={"method": "wikisplit (Botha et al. 2018, §2.1)", "min_bleu": min_bleu,
                  "split_sizes": dict(sizes), "revert_radius": args.revert_radius,
                  "max_revision_chars": args.max_revision_chars})


JOB = Job(name="wikisplit", dataset="splits", record_cls=SplitExample, variants=(wikisplit_transforms.VARIANT,),
          splits=("train", "tune", "validation", "test"), add_arguments=add_arguments, build=build,
          doc=__doc__,
          example="rewrite-mine wikisplit --input 'history/*.xml.bz2' --output out/ --tsv")


def run(argv=None):
    return JOB.run(argv)


if __name__ == "__main__":
    run()
