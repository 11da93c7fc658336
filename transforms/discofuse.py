"""Beam shell of the DiscoFuse miner (rules in miners/discofuse/rules.py).

    AnnotatedDocument --MineFusionExamplesFn--> FusionExample
    FusionExample --variants--> ("full", ex) and, when kept, ("balanced", ex)

The balanced variant down-samples the dominant classes as Geva et al. (2019,
§3 "balanced" version) describe: examples whose connective is "and" or "but"
and anaphora-only pair examples, with a deterministic hash of the example.
The rates are per language (`balanced_keep_rates`): French down-samples its
frequent coordinators "et" and "mais"; a language without rates of its own
gets English's.
"""
import apache_beam as beam

from miners.discofuse import rules as discofuse
from miners.discofuse import languages as discofuse_languages
from schemas.records import DiscourseType
from schemas.records import Reject
from transforms.common import COUNTS, REJECTS, MiningDoFn, stable_fraction

STAGE = "discofuse"
# Keep-rates of the balanced variant (the paper down-samples these dominant
# classes; the exact rates are ours, chosen so none dominates the mix).
BALANCED_KEEP = {"and": 0.25, "but": 0.5, DiscourseType.PAIR_ANAPHORA.value: 0.25}
# French: "et" and "mais" are its frequent coordinators (SINGLE_VP_COORD, SINGLE_S_COORD), as "and"
# and "but" are English's; the same rates.
BALANCED_KEEP_BY_LANGUAGE = {
    "en": BALANCED_KEEP,
    "fr": {"et": 0.25, "mais": 0.5, DiscourseType.PAIR_ANAPHORA.value: 0.25},
}
BULK_REASONS = ("short_sentence", "non_ascii")


def balanced_keep_rates(language: str = "en") -> dict:
    """The balanced variant's keep rates of a run's language (English's for a language without its own)."""
    return BALANCED_KEEP_BY_LANGUAGE.get(language or "en", BALANCED_KEEP)


def balanced_keep(example, language: str = "en") -> bool:
    """Whether an example stays in the balanced variant (deterministic), by its language's rates."""
    rates = balanced_keep_rates(language)
    rate = 1.0
    if example.connective_string in rates:
        rate = rates[example.connective_string]
    elif example.discourse_type.value in rates:
        rate = rates[example.discourse_type.value]
    return rate >= 1.0 or stable_fraction(example.to_json(), "balanced") < rate


class MineFusionExamplesFn(MiningDoFn):
    def __init__(self, dataset="fusion", options=discofuse.Options(), bulk_sample_rate=0.01, language="en"):
        super().__init__(dataset, STAGE, bulk_reasons=BULK_REASONS, bulk_sample_rate=bulk_sample_rate)
        self.options = options
        self.language = language  # the run's: chooses the rules (miners/discofuse/languages.py)

    def process(self, doc):
        try:
            examples, drops = discofuse_languages.for_language(self.language).mine_document(doc, self.options, self.inc)
        except Exception as e:  # pylint: disable=broad-except
            r = self.reject("rule_error", doc.path or doc.source, doc.id, f"{type(e).__name__}: {e}")
            if r is not None:
                yield r
            return
        self.inc("documents")
        for reason, i, text in drops:
            # filtered:<reason> was counted by the miner; here only the reject record.
            if reason in self.bulk_reasons and stable_fraction(f"{doc.id}|{i}|{text}", reason) >= self.bulk_sample_rate:
                continue
            yield beam.pvalue.TaggedOutput(
                REJECTS, Reject.make(self.dataset, self.stage, reason, doc.path or doc.source, f"{doc.id}#{i}",
                                     "", text))
        yield from examples


class MineFusionExamples(beam.PTransform):
    """PCollection[AnnotatedDocument] -> {"examples": (variant, FusionExample), "rejects", "counts"}."""

    def __init__(self, dataset="fusion", options=discofuse.Options(), variants=("full", "balanced"),
                 bulk_sample_rate=0.01, language="en"):
        super().__init__()
        self.language = language
        self.dataset = dataset
        self.options = options
        self.variants = variants
        self.bulk_sample_rate = bulk_sample_rate

    def expand(self, docs):
        out = docs | "MineFusion" >> beam.ParDo(
            MineFusionExamplesFn(self.dataset, self.options, self.bulk_sample_rate, self.language)).with_outputs(
            REJECTS, COUNTS, main="examples")
        variants, language = self.variants, self.language

        def to_variants(ex):
            if "full" in variants:
                yield "full", ex
            if "balanced" in variants and balanced_keep(ex, language):
                yield "balanced", ex

        examples = out.examples | "Variants" >> beam.FlatMap(to_variants)
        return {"examples": examples, "rejects": out[REJECTS], "counts": out[COUNTS]}
