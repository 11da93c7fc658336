"""Beam stages of the SimSim miner (rules in miners/simsim.py; engines in miners/nlp/).

    SegmentedDocument --TextSeedsFn--> Seed              (Discovery's sentence filters, language ID)
    SentencePair      --PairSeedsFn--> Seed              (BERTScore alignment; WikiSplit rows)
    SplitExample      --split_seed-->  Seed              (the `splits` output, in `rewrite-mine all`)
    Seed --BackTranslateFn--> (Seed, {pivot: text})      (one translator process per batch and pivot)
         --SelectFn--> s1 records, s2 records            (language-model selection)
         --SimulateFn--> s3 records                      (PPDB substitution, dependency dropping)
    (variant, record) --OperationMetricsFn--> (variant, record)   (the five operation metrics)

Heavy engines (translator, language model, parser, BERTScore, PPDB rules) load
once per worker in `setup()`; every stage works on batches (`BatchElements`).
A translator that crashes or hangs on a batch turns that batch's seeds into
rejects (`translation_failed` / `translation_timeout`, with the pivot) and the
job goes on.
"""
import dataclasses
import typing

import apache_beam as beam
from apache_beam import pvalue

from miners import discovery as disco
from miners import simsim as sm
from schemas.records import SegmentedDocument, SimplificationExample, SplitExample
from transforms.common import COUNTS, REJECTS, MiningDoFn

DATASET = sm.DATASET
SIMULATE = "simulate"
BULK_REASONS = ("too_short", "too_long", "low_letter_ratio", "unbalanced_parentheses", "odd_quotes",
                "too_much_uppercase", "not_english")


@dataclasses.dataclass(frozen=True)
class Params:
    """Every option of the SimSim stages."""
    translator: str = "apertium"
    pivots: typing.Tuple[str, ...] = ()  # () = every pivot the translator has
    translator_options: typing.Tuple[typing.Tuple[str, typing.Any], ...] = ()
    translate_batch: int = 200
    lm: str = "default"
    lm_path: str = ""
    lm_batch: int = 64
    ppdb: str = ""
    ppdb_min_score: typing.Optional[float] = None
    spacy_model: str = "en_core_web_sm"
    parse_batch: int = 64
    seed_config: disco.DiscoveryConfig = disco.DiscoveryConfig(min_words=sm.SEED_MIN_WORDS,
                                                               max_words=sm.SEED_MAX_WORDS)
    langid_model: str = ""
    min_seed_alignment: float = sm.MIN_SEED_ALIGNMENT
    bertscore_model: str = ""
    bertscore_num_layers: typing.Optional[int] = None
    bertscore_batch: int = 64
    max_drop_share: float = sm.MAX_DROP_SHARE
    max_drops: int = sm.MAX_DROPS
    seed: int = 0
    variants: typing.Tuple[str, ...] = sm.VARIANTS
    bulk_sample_rate: float = 0.01


def _key(seed: sm.Seed) -> str:
    return seed.id


def _record(seed: sm.Seed, simple: str, method: str, pivot: str, operations, complex_nll=0.0, simple_nll=0.0,
            lm_name=""):
    ops = list(operations)
    if seed.splitting and "splitting" not in ops:
        ops.append("splitting")
    return SimplificationExample(
        complex=seed.complex, simple=simple, method=method, pivot=pivot, seed_kind=seed.kind,
        operations=tuple(o for o in ("back_translation", "substitution", "dropping", "splitting") if o in ops),
        doc_id=seed.doc_id, sentence_index=seed.sentence_index, source=seed.path, language_model=lm_name,
        complex_nll=max(0.0, complex_nll), simple_nll=max(0.0, simple_nll), splitting=seed.splitting)


# ------------------------------------------------------------------ seeds

class TextSeedsFn(MiningDoFn):
    """SegmentedDocument -> a Seed per sentence that passes Discovery's filters (length, letters,
    parentheses, quotes, case) and fastText language ID."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "seeds", bulk_reasons=BULK_REASONS, bulk_sample_rate=params.bulk_sample_rate)
        self.params = params
        self._langid = None

    def setup(self):
        if self.params.seed_config.min_english_prob > 0:
            from miners.nlp.langid import LanguageIdentifier
            self._langid = LanguageIdentifier(self.params.langid_model or None)

    def process(self, doc: SegmentedDocument):
        kept = []
        for i, s in enumerate(doc.sentences):
            reason = disco.sentence_reason(s, self.params.seed_config)
            if reason:
                r = self.reject(reason, doc.path or doc.source, f"{doc.id}:{i}", "", s)
                if r is not None:
                    yield r
                continue
            kept.append((i, s))
        probs = self._langid.probability([s for _, s in kept]) if self._langid and kept else [1.0] * len(kept)
        for (i, s), p in zip(kept, probs):
            if p <= self.params.seed_config.min_english_prob:
                r = self.reject("not_english", doc.path or doc.source, f"{doc.id}:{i}", f"p(en)={p:.3f}", s)
                if r is not None:
                    yield r
                continue
            self.inc("text")
            yield sm.text_seed(doc.id, i, s, doc.path)


class PairSeedsFn(MiningDoFn):
    """[SentencePair] (`complex \\t simple` rows) -> Seeds. WikiSplit rows (`s1 <::::> s2`) become
    wikisplit seeds; other pairs are checked for alignment with BERTScore: an aligned pair's steps
    run on its simple side, a misaligned pair's simple side is dropped (a reject) and its complex
    sentence is the seed."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "seeds")
        self.params = params
        self._scorer = None

    def setup(self):
        from miners.scoring import BertScorer
        self._scorer = BertScorer.for_params(self.params)

    def process(self, batch):
        plain = []
        for pair in batch:
            if sm.is_wikisplit_row(pair.s2):
                split = SplitExample.from_row([pair.s1, pair.s2])
                self.inc("wikisplit")
                yield sm.wikisplit_seed(pair.id, split.complex, split.simple1, split.simple2, pair.path)
            else:
                plain.append(pair)
        if not plain:
            return
        scores = self._scorer.score([p.s2 for p in plain], [p.s1 for p in plain])
        for pair, score in zip(plain, scores):
            seed = sm.pair_seed(pair.id, pair.s1, pair.s2, score, self.params.min_seed_alignment, pair.path)
            self.inc(seed.kind)
            if seed.kind == "pair_misaligned":
                yield self.reject("misaligned_simple_side", pair.path, pair.id,
                                  f"BERTScore F1(simple, complex) = {score:.3f} < {self.params.min_seed_alignment}; "
                                  f"the complex sentence is kept as a seed", pair.s2)
            yield seed


def split_seed(record: SplitExample) -> sm.Seed:
    """A WikiSplit output record (the `splits` dataset) as a seed."""
    key = f"splits:{record.page_id}:{record.revision_after}:{record.complex[:40]}"
    return sm.wikisplit_seed(key, record.complex, record.simple1, record.simple2, record.source)


class SplitSeedsFn(MiningDoFn):
    """(variant, split, SplitExample) of the `splits` dataset (wikisplit's output in `rewrite-mine
    all`) -> a seed each, counted like the other seeds (seeds/wikisplit)."""

    def __init__(self):
        super().__init__(DATASET, "seeds")

    def process(self, element):
        self.inc("wikisplit")
        yield split_seed(element[-1])


# ------------------------------------------------------------------ back-translation

class BackTranslateFn(MiningDoFn):
    """[Seed] -> (Seed, {pivot: back-translation}) through every pivot, one translator call per batch
    and pivot. A failed batch becomes rejects for its seeds (reason, pivot) and the other pivots go on."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "translate")
        self.params = params
        self._translator = None
        self._pivots = ()

    def setup(self):
        from miners.nlp.translate import make_translator
        self._translator = make_translator(self.params.translator, pivots=self.params.pivots or None,
                                           **dict(self.params.translator_options))
        self._translator.load()
        self._pivots = tuple(self.params.pivots or self._translator.pivots())

    def teardown(self):
        if self._translator is not None:
            self._translator.close()

    def process(self, batch):
        from miners.nlp.translate import back_translate_batch
        texts = [s.base for s in batch]
        outputs = {s.id: {} for s in batch}
        for pivot in self._pivots:
            result, error = back_translate_batch(self._translator, texts, pivot)
            if error is not None:
                reason = "translation_timeout" if "timeout" in type(error).__name__.lower() or \
                    "timed out" in str(error).lower() else "translation_failed"
                for s in batch:
                    yield self.reject(reason, s.path, s.id, f"pivot {pivot}: {type(error).__name__}: {error}",
                                      s.base)
                continue
            self.inc(f"candidates:back_translation:{pivot}", len(batch))
            for s, text in zip(batch, result):
                outputs[s.id][pivot] = text
        for s in batch:
            if outputs[s.id]:
                yield s, outputs[s.id]


# ------------------------------------------------------------------ selection

class SelectFn(MiningDoFn):
    """[(Seed, {pivot: text})] -> s1 records (every changed back-translation) and s2 records (the one
    the language model finds most natural, unless less natural than the seed's base text)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "select")
        self.params = params
        self._lm = None

    def setup(self):
        from miners.nlp.lm import make_language_model
        self._lm = make_language_model(self.params.lm, self.params.lm_path or None)
        self._lm.load()

    def process(self, batch):
        texts, index = [], []
        for seed, cands in batch:
            texts.append(seed.base)
            for pivot in sorted(cands):
                texts.append(cands[pivot])
        nlls = self._lm.mean_nll(texts)
        pos = 0
        lm_name = self._lm.name
        for seed, cands in batch:
            base_nll = nlls[pos]
            pos += 1
            by_pivot = {}
            for pivot in sorted(cands):
                by_pivot[pivot] = nlls[pos]
                pos += 1
            for pivot in sorted(cands):
                text = cands[pivot]
                if not text.strip() or sm.normalise(text) in (sm.normalise(seed.base), sm.normalise(seed.complex)):
                    self.inc(f"skipped:unchanged:{pivot}")
                    continue
                if "s1" in self.params.variants:
                    yield pvalue.TaggedOutput("s1", _record(seed, text, f"back_translation:{pivot}", pivot,
                                                            ["back_translation"], base_nll, by_pivot[pivot],
                                                            lm_name))
            choice = sm.select_candidate(seed.base, cands, by_pivot, base_nll)
            if choice.reason:
                r = self.reject(choice.reason, seed.path, seed.id,
                                f"best {choice.pivot or '-'} nll={choice.nll:.3f} vs seed {base_nll:.3f}",
                                f"{seed.base}\n{choice.text}")
                if r is not None:
                    yield r
                continue
            self.inc(f"selected:{choice.pivot}")
            self.inc("passed")
            record = _record(seed, choice.text, f"lm_selected:{choice.pivot}", choice.pivot, ["back_translation"],
                             base_nll, choice.nll, lm_name)
            if "s2" in self.params.variants:
                yield pvalue.TaggedOutput("s2", record)
            if "s3" in self.params.variants:
                yield pvalue.TaggedOutput(SIMULATE, record)


# ------------------------------------------------------------------ simulated operations

def _parser_and_rules(params: Params):
    """The spaCy annotator and the PPDB rules (None without --ppdb) of the simulation and metrics stages."""
    from miners.simplification_metrics import parser_without_ner
    annotator = parser_without_ner(params.spacy_model, params.parse_batch)
    if not params.ppdb:
        return annotator, None
    from miners import ppdb
    options = {"min_score": params.ppdb_min_score} if params.ppdb_min_score is not None else {}
    return annotator, ppdb.load_rules(params.ppdb, **options)


class SimulateFn(MiningDoFn):
    """[s2 record] -> s3 record: simplifying PPDB rewrites the language model accepts, then dropped
    phrases chosen on the dependency parse (seeded)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "simulate")
        self.params = params
        self._annotator = self._lm = self._rules = None

    def setup(self):
        from miners.nlp.lm import make_language_model
        self._annotator, self._rules = _parser_and_rules(self.params)
        if self._rules is not None:
            self._lm = make_language_model(self.params.lm, self.params.lm_path or None)
            self._lm.load()

    def _parse_pieces(self, text: str):
        """[(sentence, parse or None)] of a text of one or more sentences (a WikiSplit seed's
        simple side has two: each is edited on its own parse)."""
        from miners.text import split_sentences
        pieces = split_sentences(text) or [text]
        parses = self._annotator.parse(pieces)
        out = []
        for piece, parse in zip(pieces, parses):
            if isinstance(parse, Exception):
                self.inc("skipped:parse_error")
                parse = None
            out.append((piece, parse))
        return out

    def process(self, batch):
        for record in batch:
            ops = list(record.operations)
            pieces = self._parse_pieces(record.simple)
            budget = max(1, self.params.max_drops // len(pieces))
            edited = []
            for index, (text, parse) in enumerate(pieces):
                if parse is not None and self._rules is not None:
                    new, applied = sm.substitute(text, [t.text for t in parse.tokens],
                                                 [t.xpos for t in parse.tokens], self._rules, self._lm.mean_nll)
                    if applied:
                        self.inc("substituted")
                        self.inc("substitutions", len(applied))
                        ops.append("substitution")
                        if new != text:
                            text = new
                            reparsed = self._annotator.parse([text])[0]
                            parse = None if isinstance(reparsed, Exception) else reparsed
                if parse is not None:
                    new, dropped = sm.drop_phrases(text, parse, self.params.seed,
                                                   f"{record.doc_id}|{record.simple}|{index}",
                                                   self.params.max_drop_share, budget)
                    if dropped:
                        self.inc("dropped_phrases", len(dropped))
                        ops.append("dropping")
                        text = new
                edited.append(text)
            if "dropping" in ops:
                self.inc("dropped")
            self.inc("passed")
            yield dataclasses.replace(record, simple=" ".join(edited), method=f"simulated:{record.pivot}",
                                      operations=tuple(o for o in ("back_translation", "substitution", "dropping",
                                                                   "splitting") if o in ops))


# ------------------------------------------------------------------ metrics

class OperationMetricsFn(MiningDoFn):
    """[(variant, record)] -> the same with the operation metrics stored (dropping, reordering,
    substitution when PPDB rules are given, splitting); alignment is the quality stage's BERTScore."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "metrics")
        self.params = params
        self._annotator = self._rules = self._cache = None

    def setup(self):
        from miners.simplification_metrics import ParseCache
        # The same rules as SimulateFn used (the same floor), so the metric measures what was applied.
        self._annotator, self._rules = _parser_and_rules(self.params)
        self._cache = ParseCache()

    def process(self, batch):
        from miners.simplification_metrics import compute_metrics
        records = [e[-1] for e in batch]
        metrics = compute_metrics([(r.complex, r.simple) for r in records], annotator=self._annotator,
                                  ppdb=self._rules, alignments=[r.alignment for r in records],
                                  parse_cache=self._cache)
        for e, r, m in zip(batch, records, metrics):
            r = dataclasses.replace(
                r, dropping=float(m.dropping), reordering=float(m.reordering), splitting=bool(m.splitting),
                substitution=float(m.substitution or 0.0), has_substitution_metric=m.substitution is not None)
            self.inc(f"split:{e[0]}" if r.splitting else f"unsplit:{e[0]}")
            yield e[:-1] + (r,)


class MineSimplifications(beam.PTransform):
    """PCollection[Seed] -> {"examples": (variant, record), "rejects", "counts"}."""

    def __init__(self, params: Params = Params()):
        super().__init__()
        self.params = params

    def expand(self, seeds):
        p = self.params
        rejects, counts = [], []
        translated = (seeds
                      | "BatchSeeds" >> beam.BatchElements(min_batch_size=p.translate_batch,
                                                           max_batch_size=p.translate_batch)
                      | "BackTranslate" >> beam.ParDo(BackTranslateFn(p)).with_outputs(REJECTS, COUNTS,
                                                                                      main="translated"))
        rejects.append(translated[REJECTS])
        counts.append(translated[COUNTS])
        selected = (translated.translated
                    | "BatchCandidates" >> beam.BatchElements(min_batch_size=p.lm_batch, max_batch_size=p.lm_batch)
                    | "Select" >> beam.ParDo(SelectFn(p)).with_outputs("s1", "s2", SIMULATE, REJECTS, COUNTS))
        rejects.append(selected[REJECTS])
        counts.append(selected[COUNTS])
        parts = [selected.s1 | "TagS1" >> beam.Map(lambda r: ("s1", r)),
                 selected.s2 | "TagS2" >> beam.Map(lambda r: ("s2", r))]
        simulated = (selected[SIMULATE]
                     | "BatchSimulate" >> beam.BatchElements(min_batch_size=p.parse_batch, max_batch_size=p.parse_batch)
                     | "Simulate" >> beam.ParDo(SimulateFn(p)).with_outputs(REJECTS, COUNTS, main="s3"))
        rejects.append(simulated[REJECTS])
        counts.append(simulated[COUNTS])
        parts.append(simulated.s3 | "TagS3" >> beam.Map(lambda r: ("s3", r)))
        return {"examples": parts | "FlattenVariants" >> beam.Flatten(),
                REJECTS: rejects | "FlattenRejects" >> beam.Flatten(),
                COUNTS: counts | "FlattenCounts" >> beam.Flatten()}


class AddOperationMetrics(beam.PTransform):
    """(variant, [split,] record) -> the same with the operation metrics stored, batched."""

    def __init__(self, params: Params):
        super().__init__()
        self.params = params

    def expand(self, examples):
        p = self.params
        out = (examples
               | "BatchMetrics" >> beam.BatchElements(min_batch_size=p.parse_batch, max_batch_size=p.parse_batch)
               | "Metrics" >> beam.ParDo(OperationMetricsFn(p)).with_outputs(REJECTS, COUNTS, main="examples"))
        return {"examples": out.examples, REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


def split_share_counts(element):
    """(variant, record) -> counters from which the share of pairs that split per variant is derived
    (the SimSim paper's Table 2)."""
    variant, r = element[0], element[-1]
    yield f"_stats/splitting/{variant}:pairs", 1
    if r.splitting:
        yield f"_stats/splitting/{variant}:split", 1


def derive_split_shares(counts: typing.Dict[str, int]) -> dict:
    out = {}
    for name, n in counts.items():
        if name.startswith("_stats/splitting/") and name.endswith(":pairs"):
            variant = name[len("_stats/splitting/"):-len(":pairs")]
            split = counts.get(f"_stats/splitting/{variant}:split", 0)
            out[variant] = {"pairs": n, "split": split, "share_split": round(split / n, 4) if n else 0.0}
    return dict(sorted(out.items()))
