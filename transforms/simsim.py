"""Beam stages of the SimSim miner (rules in miners/simsim/simulate.py; engines in miners/nlp/).

    SegmentedDocument --TextSeedsFn--> Seed              (Discovery's sentence filters, language ID)
    SentencePair      --PairSeedsFn--> Seed              (BERTScore alignment; WikiSplit rows)
    SplitExample      --split_seed-->  Seed              (the `splits` output, in `rewrite-mine all`)
    Seed --BackTranslateFn--> (Seed, {pivot: text}, {pivot: every text})  (one process per batch and pivot)
         --SelectFn--> s1 records, s2 records            (language-model selection, pivot agreement)
                       (s2 record, agreed substitutions) (to the simulation)
         --SimulateFn--> s3 records                      (substitution, dropping, splitting; none: no s3)
    (variant, record) --AlignmentFn--> (variant, record)          (BERTScore F1; s1 sampled)
                      --OperationMetricsFn--> (variant, record)   (the other operation metrics)

Heavy engines (translator, language model, parser, BERTScore, PPDB rules) load
once per worker in `setup()`; every stage works on batches (`BatchElements`).
Every seed is bounded at intake (characters, words) before any engine sees it.
An engine that fails on a batch is retried element by element (`guarded_calls`),
so only the element that breaks it becomes a reject, with the stage and the
engine's message (`translation_failed`, `language_model_failed`,
`simulate_failed`, `bertscore_failed`, `metrics_failed`); a translator that
hangs turns its batch into `translation_timeout` rejects; the job goes on.
"""
import dataclasses
import time
import typing

import apache_beam as beam
from apache_beam import pvalue

from miners.discovery import pairs as disco
from miners.simsim import agreement
from miners.simsim import simulate as simsim
from schemas.records import SegmentedDocument, SimplificationExample, SplitExample
from transforms.common import COUNTS, REJECTS, DeterministicBatches, MiningDoFn, stable_fraction

DATASET = simsim.DATASET
SIMULATE = "simulate"
BULK_REASONS = ("too_short", "too_long", "low_letter_ratio", "unbalanced_parentheses", "odd_quotes",
                "too_much_uppercase", "not_english")


@dataclasses.dataclass(frozen=True)
class Params:
    """Every option of the SimSim stages."""
    translator: str = "apertium"
    pivots: typing.Tuple[str, ...] = ()  # () = every pivot the translator has
    translator_options: typing.Tuple[typing.Tuple[str, typing.Any], ...] = ()
    translate_batch: int = 1000
    lm: str = "default"
    lm_path: str = ""
    lm_batch: int = 64
    ppdb: str = ""
    ppdb_min_score: typing.Optional[float] = None
    # Substitution without PPDB: a content word -> a more frequent WordNet synonym of a safe sense
    # (simsim.wordnet_substitute); on with --wordnet_substitution (off by default: the blind reading of
    # docs/SIMSIM_QUALITY.md found wrong senses among its words); never used when ppdb is given.
    wordnet_substitution: bool = False
    spacy_model: str = "en_core_web_sm"
    parse_batch: int = 64
    seed_config: disco.DiscoveryConfig = disco.DiscoveryConfig(min_words=simsim.SEED_MIN_WORDS,
                                                               max_words=simsim.SEED_MAX_WORDS)
    langid_model: str = ""
    min_seed_alignment: float = simsim.MIN_SEED_ALIGNMENT
    bertscore_model: str = ""
    bertscore_num_layers: typing.Optional[int] = None
    bertscore_batch: int = 64
    seed_max_chars: int = simsim.SEED_MAX_CHARS
    pair_min_words: int = simsim.PAIR_SEED_MIN_WORDS
    pair_max_words: int = simsim.PAIR_SEED_MAX_WORDS
    english_dictionary: str = ""  # CMU pronouncing dictionary (+ system word lists): the untranslated-word check
    s1_alignment_sample: float = 1.0  # share of s1 records whose alignment (BERTScore) is measured
    s1_metrics_sample: float = 1.0  # share of s1 records whose operation metrics are measured
    bertscore_encoder: str = "ct2-int8"  # miners.quality.scoring.EmbeddingBertScorer.ENCODERS
    max_drop_share: float = simsim.MAX_DROP_SHARE
    max_drops: int = simsim.MAX_DROPS
    drop_relations: typing.Tuple[str, ...] = simsim.DEFAULT_DROP_RELATIONS
    drop_checks: typing.Tuple[str, ...] = simsim.DEFAULT_DROP_CHECKS
    seed: int = 0
    # The candidate checks of issue 34 (simsim.CANDIDATE_REASONS, then "no_clause" on the selection).
    candidate_checks: typing.Tuple[str, ...] = simsim.CANDIDATE_CHECK_NAMES
    lm_margin: float = simsim.LM_MARGIN  # a selected candidate's mean NLL may exceed its seed's by this much
    # meaning_drift: a candidate's BERTScore F1 against its seed's base text must reach this
    min_candidate_alignment: float = simsim.MIN_CANDIDATE_ALIGNMENT
    select: str = "fewest_changes"  # simsim.SELECTIONS: how the s2 candidate is chosen
    max_new_bigrams: int = simsim.MAX_NEW_BIGRAMS  # the too_many_changes check's bound
    # the function words a back-translation changed without simplifying anything (an inserted article,
    # a verb's number, a swapped preposition: simsim.RESTORED_KINDS) are put back as the seed has them,
    # before the checks (simsim.restore_function_words); counted translate/restored_<kind>:<pivot>
    restore_function_words: typing.Tuple[str, ...] = simsim.RESTORED_KINDS
    # pivot agreement (issue 51, miners/simsim/agreement.py): a candidate's every changed stretch needs
    # this support from the other pivots' back-translations (check `pivot_unsupported`; 0: none needed)
    min_pivot_support: int = agreement.MIN_PIVOT_SUPPORT
    # s3 makes the one-word substitutions the pivots agree on (agreement.agreed_substitutions)
    agreed_substitution: bool = True
    # s3 splits two coordinated clauses into two sentences (miners/simsim/split.py)
    simulated_split: bool = True
    # an s2 record that no simulated operation changes gives no s3 record (s3 would be s2 again)
    require_operation: bool = True
    # a seed whose back-translations the pivots agree on no change of (no s2 candidate) is simulated on as it is:
    # its s3 record is the seed after a substitution, drop or split (method simulated:seed), as the paper's s3
    # is the selected text after them and the selected text is then the seed's own
    s3_from_seed: bool = True
    variants: typing.Tuple[str, ...] = simsim.VARIANTS
    bulk_sample_rate: float = 0.01


def _key(seed: simsim.Seed) -> str:
    return seed.id


# Sort keys of SimSim's batches (transforms.common.DeterministicBatches): a batch's make-up follows the
# input, not the runner's bundles, so the language model's and BERTScore's batched scores, and so
# every choice made on them, are the same on every runner (on Flink, BatchElements' batches changed 6
# of the `all` job's 38 SimSim files).
def _translated_key(element) -> str:
    return element[0].id


def record_key(record) -> str:
    return f"{record.doc_id}|{record.sentence_index}|{record.method}|{record.complex}|{record.simple}"


def _simulate_key(element) -> str:
    """Sort key of an s2 record on its way to the simulation ((record, substitutions) or a record)."""
    return record_key(element[0] if isinstance(element, tuple) else element)


def _example_key(element) -> str:
    return "|".join(str(x) for x in element[:-1]) + "|" + record_key(element[-1])


def _group_key(group) -> str:
    return group[0][-1].complex if group else ""


def _record(seed: simsim.Seed, simple: str, method: str, pivot: str, operations, base_nll=0.0, simple_nll=0.0,
            lm_name=""):
    ops = list(operations)
    if seed.splitting and "splitting" not in ops:
        ops.append("splitting")
    return SimplificationExample(
        complex=seed.complex, simple=simple, method=method, pivot=pivot, seed_kind=seed.kind,
        operations=tuple(o for o in ("back_translation", "substitution", "dropping", "splitting") if o in ops),
        doc_id=seed.doc_id, sentence_index=seed.sentence_index, source=seed.path, language_model=lm_name,
        base_nll=max(0.0, base_nll), simple_nll=max(0.0, simple_nll), splitting=seed.splitting)


# ------------------------------------------------------------------ seeds

def _error(e: BaseException) -> str:
    """An engine's failure in one line: its class and its own message."""
    return f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"


def guarded_calls(call, items: typing.Sequence) -> typing.List[typing.Tuple[typing.Any, typing.Optional[BaseException]]]:
    """`call(items)` (a batched engine: one result per item), and when the batch fails, each item
    alone, so one bad element costs only itself: [(result, None) or (None, error)] in order."""
    items = list(items)
    if not items:
        return []
    try:
        out = list(call(items))
        if len(out) != len(items):
            raise RuntimeError(f"{len(out)} results for {len(items)} inputs")
        return [(r, None) for r in out]
    except Exception as e:  # noqa: BLE001 - an engine's failure on a batch: retry its elements one by one
        if len(items) == 1:
            return [(None, e)]
    results = []
    for item in items:
        try:
            out = list(call([item]))
            if len(out) != 1:
                raise RuntimeError(f"{len(out)} results for 1 input")
            results.append((out[0], None))
        except Exception as e:  # noqa: BLE001
            results.append((None, e))
    return results


class TimedFn(MiningDoFn):
    """A SimSim stage that also counts the CPU and wall milliseconds its `_process` takes
    (`_stats/seconds/<stage>:cpu_ms` / `:wall_ms`; the manifest's derived `stage_seconds`): the
    stage breakdown of a run. CPU is the process's (torch's threads included)."""

    def process(self, element):
        gen = self._process(element)
        cpu = wall = 0.0
        while True:
            c, w = time.process_time(), time.perf_counter()
            try:
                out = next(gen)
            except StopIteration:
                break
            finally:
                cpu += time.process_time() - c
                wall += time.perf_counter() - w
            yield out
        self.inc(f"_stats/seconds/{self.stage}:cpu_ms", int(cpu * 1000))
        self.inc(f"_stats/seconds/{self.stage}:wall_ms", int(wall * 1000))


def derive_stage_seconds(counts: typing.Dict[str, int]) -> dict:
    """{stage: {"cpu_s", "wall_s"}} from the TimedFn counters."""
    out: typing.Dict[str, dict] = {}
    for name, n in counts.items():
        if name.startswith("_stats/seconds/"):
            stage, _, kind = name[len("_stats/seconds/"):].partition(":")
            out.setdefault(stage, {})[kind.replace("_ms", "_s")] = round(n / 1000.0, 1)
    return dict(sorted(out.items()))


class TextSeedsFn(MiningDoFn):
    """SegmentedDocument -> a Seed per sentence that passes Discovery's filters (length, letters,
    parentheses, quotes, case), the seed bound on characters and fastText language ID."""

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
            reason = ("too_many_chars" if len(s) > self.params.seed_max_chars
                      else disco.sentence_reason(s, self.params.seed_config))
            if reason:
                r = self.reject(reason, doc.path or doc.source, f"{doc.id}:{i}", "", s[:2000])
                if r is not None:
                    yield r
                continue
            kept.append((i, s))
        probs = [1.0] * len(kept)
        if self._langid and kept:
            try:
                probs = self._langid.probability([s for _, s in kept])
            except Exception as e:  # noqa: BLE001 - language ID failed on this document: its seeds go, counted
                for i, s in kept:
                    yield self.reject("language_id_failed", doc.path or doc.source, f"{doc.id}:{i}", _error(e), s)
                return
        for (i, s), p in zip(kept, probs):
            if p <= self.params.seed_config.min_english_prob:
                r = self.reject("not_english", doc.path or doc.source, f"{doc.id}:{i}", f"p(en)={p:.3f}", s)
                if r is not None:
                    yield r
                continue
            self.inc("text")
            yield simsim.text_seed(doc.id, i, s, doc.path)


class PairSeedsFn(TimedFn):
    """[SentencePair] (`complex \\t simple` rows) -> Seeds. Every side is bounded first (words and
    characters, `simsim.length_reason`): an out-of-bounds row is a reject before any engine sees it.
    WikiSplit rows (`s1 <::::> s2`) become wikisplit seeds; other pairs are checked for alignment
    with BERTScore: an aligned pair's steps run on its simple side, a misaligned pair's simple side
    is dropped (a reject) and its complex sentence is the seed."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "seeds")
        self.params = params
        self._scorer = None

    def setup(self):
        self._scorer = _alignment_scorer(self.params)

    def _bounds(self, *texts) -> typing.Optional[typing.Tuple[str, str]]:
        for side, text in texts:
            reason = simsim.length_reason(text, self.params.pair_min_words, self.params.pair_max_words,
                                          self.params.seed_max_chars)
            if reason:
                return reason, f"{side}: {len(text.split())} words, {len(text)} characters"
        return None

    def _process(self, batch):
        plain = []
        for pair in batch:
            payload = f"{pair.s1[:500]}\t{pair.s2[:500]}"
            if any(c.isspace() for c in pair.id):  # a third column that is text, not the pair's id
                yield self.reject("wrong_column_count", pair.path, pair.id[:100],
                                  "3 columns: the third is text, not an id (complex<TAB>simple[<TAB>id])", payload)
                continue
            if simsim.is_wikisplit_row(pair.s2):
                bad = self._bounds(("complex", pair.s1), ("simple", pair.s2.replace(simsim.WIKISPLIT_SEPARATOR, " ")))
                if bad:
                    yield self.reject(bad[0], pair.path, pair.id, bad[1], payload)
                    continue
                try:
                    split = SplitExample.from_row([pair.s1, pair.s2])
                except Exception as e:  # noqa: BLE001
                    yield self.reject("bad_wikisplit_row", pair.path, pair.id, _error(e), payload)
                    continue
                if simsim.split_adds_content(split.complex, f"{split.simple1} {split.simple2}"):
                    yield self.reject("split_adds_content", pair.path, pair.id,
                                      "the split side says what the complex side does not", payload)
                    continue
                self.inc("wikisplit")
                yield simsim.wikisplit_seed(pair.id, split.complex, split.simple1, split.simple2, pair.path)
                continue
            bad = self._bounds(("complex", pair.s1), ("simple", pair.s2))
            if bad:
                yield self.reject(bad[0], pair.path, pair.id, bad[1], payload)
                continue
            plain.append(pair)
        if not plain:
            return
        scored = guarded_calls(lambda ps: self._scorer.score([p.s2 for p in ps], [p.s1 for p in ps]), plain)
        for pair, (score, error) in zip(plain, scored):
            if error is not None:
                yield self.reject("bertscore_failed", pair.path, pair.id, _error(error), f"{pair.s1}\t{pair.s2}")
                continue
            seed = simsim.pair_seed(pair.id, pair.s1, pair.s2, score, self.params.min_seed_alignment, pair.path)
            self.inc(seed.kind)
            if seed.kind == "pair_misaligned":
                yield self.reject("misaligned_simple_side", pair.path, pair.id,
                                  f"BERTScore F1(simple, complex) = {score:.3f} < {self.params.min_seed_alignment}; "
                                  f"the complex sentence is kept as a seed", pair.s2)
            yield seed


class ParallelPairsFn(MiningDoFn):
    """A line-aligned release's complex file (WikiLarge / Newsela `*.src` + `*.dst`, ASSET `*.orig` +
    `*.simp.N`, ...: `miners.simsim.pair_files`) -> SentencePairs, its first reference only (one seed per
    complex sentence). A line with an empty side is a reject (`empty_side`); files that are not
    line-aligned end in one `reader_error` reject."""

    def __init__(self):
        super().__init__(DATASET, "read_parallel")

    def process(self, path: str):
        import os
        from miners.simsim import pair_files
        from schemas.records import SentencePair
        bad = []
        base = os.path.basename(path)
        n = 0
        try:
            for complex_, simple in pair_files.read_pairs(path, "parallel", "first",
                                                          inc=lambda name, k=1: bad.append(name)):
                yield from self._bad(bad, path, n)
                n += 1
                self.inc("pairs")
                yield SentencePair(id=f"{base}:{n}", s1=complex_, s2=simple, path=path)
            yield from self._bad(bad, path, n)
        except Exception as e:  # noqa: BLE001 - a file the reader cannot pair up: one reject, the job goes on
            yield self.reject("reader_error", path, path, _error(e))

    def _bad(self, bad, path, n):
        for name in bad:
            if name.startswith("bad:"):
                yield self.reject(name[len("bad:"):], path, f"after pair {n}", "")
        bad.clear()


def split_seed(record: SplitExample) -> simsim.Seed:
    """A WikiSplit output record (the `splits` dataset) as a seed."""
    key = f"splits:{record.page_id}:{record.revision_after}:{record.complex[:40]}"
    return simsim.wikisplit_seed(key, record.complex, record.simple1, record.simple2, record.source)


class SplitSeedsFn(MiningDoFn):
    """(variant, split, SplitExample) of the `splits` dataset (wikisplit's output in `rewrite-mine
    all`) -> a seed each, bounded like the pair seeds and counted like them (seeds/wikisplit)."""

    def __init__(self, params: typing.Optional["Params"] = None):
        super().__init__(DATASET, "seeds")
        self.params = params or Params()

    def process(self, element):
        seed = split_seed(element[-1])
        p = self.params
        for side, text in (("complex", seed.complex), ("simple", seed.base)):
            reason = simsim.length_reason(text, p.pair_min_words, p.pair_max_words, p.seed_max_chars)
            if reason:
                yield self.reject(reason, seed.path, seed.id, f"{side}: {len(text.split())} words",
                                  f"{seed.complex[:500]}\t{seed.base[:500]}")
                return
        if simsim.split_adds_content(seed.complex, seed.base):
            yield self.reject("split_adds_content", seed.path, seed.id,
                              "the split side says what the complex side does not",
                              f"{seed.complex[:500]}\t{seed.base[:500]}")
            return
        self.inc("wikisplit")
        yield seed


# ------------------------------------------------------------------ back-translation

class BackTranslateFn(TimedFn):
    """[Seed] -> (Seed, {pivot: checked back-translation}, {pivot: every back-translation, the
    evidence of pivot agreement}) through every pivot, one translator call per batch
    and pivot. A batch that fails is retried seed by seed, so only the seed that breaks the
    translator becomes a reject (reason, pivot); a batch that times out becomes rejects for its
    seeds; the other pivots go on. A back-translation with a word the translator left untranslated
    (Apertium's marks; for CTranslate2 a word neither the seed nor the English dictionary has) is
    dropped as `untranslated_word`, counted per pivot."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "translate")
        self.params = params
        self._translator = None
        self._pivots = ()
        self._dictionary = None
        self._wordnet = None
        self._wrong_sense = None

    def setup(self):
        from miners.simsim.translate import make_translator
        from miners.simsim import english_words
        self._translator = make_translator(self.params.translator, pivots=self.params.pivots or None,
                                           **dict(self.params.translator_options))
        self._translator.load()
        self._pivots = tuple(self.params.pivots or self._translator.pivots())
        self._dictionary = english_words.load(self.params.english_dictionary or None)
        if "sense_changed" in self.params.candidate_checks or "pivot_unsupported" in self.params.candidate_checks:
            from miners.simsim.wordnet import WordNet
            self._wordnet = WordNet.load()
        # false friends and another inflection; not rare senses (on the tuning text's s2 and s1 that refused
        # "award" -> "prize" and "drop" -> "fall", read fine, for one wrong change: docs/SIMSIM_QUALITY.md)
        self._wrong_sense = agreement.sense_check(self._wordnet, rare=False)

    def teardown(self):
        if self._translator is not None:
            self._translator.close()

    def _one_pivot(self, texts, pivot):
        """[(output, flagged words) or None], [error or None] per text, for one pivot."""
        from miners.simsim.translate import back_translate_checked
        result, flagged, error = back_translate_checked(self._translator, texts, pivot, self._dictionary)
        if error is None:
            return list(zip(result, flagged)), [None] * len(texts)
        if len(texts) == 1 or "timeout" in type(error).__name__.lower():
            return [None] * len(texts), [error] * len(texts)
        outs, errors = [], []
        for text in texts:  # one seed broke the batch: find it, keep the others
            r, f, e = back_translate_checked(self._translator, [text], pivot, self._dictionary)
            outs.append(None if e is not None else (r[0], f[0]))
            errors.append(e)
        return outs, errors

    def _same_lemma(self, x: str, y: str) -> bool:
        """Two forms of one word by WordNet's base forms (pivot agreement never keeps such a change)."""
        wn = self._wordnet
        return wn is not None and any(set(wn.morphy(x, pos)) & set(wn.morphy(y, pos)) for pos in "nvar")

    def _process(self, batch):
        texts = [s.base for s in batch]
        outputs = {s.id: {} for s in batch}
        made = {s.id: {} for s in batch}  # pivot -> (restored text, flagged words)
        for pivot in self._pivots:
            outs, errors = self._one_pivot(texts, pivot)
            for s, out, error in zip(batch, outs, errors):
                if error is not None:
                    reason = "translation_timeout" if "timeout" in type(error).__name__.lower() or \
                        "timed out" in str(error).lower() else "translation_failed"
                    yield self.reject(reason, s.path, s.id, f"pivot {pivot}: {_error(error)}", s.base[:2000])
                    continue
                text, flagged = out
                self.inc(f"candidates:back_translation:{pivot}")
                if self.params.restore_function_words:
                    text, restored = simsim.restore_function_words(text, s.base, self.params.restore_function_words)
                    for kind, n in sorted(restored.items()):
                        self.inc(f"restored_{kind}:{pivot}", n)
                made[s.id][pivot] = (text, flagged)
        consensus = "pivot_unsupported" in self.params.candidate_checks and self.params.min_pivot_support > 0
        for s in batch:
            # every pivot's back-translation, checked or not: the evidence of pivot agreement
            # (miners/simsim/agreement.py)
            evidence = {pivot: text for pivot, (text, _) in made[s.id].items()}
            for pivot in self._pivots:
                if pivot not in made[s.id]:
                    continue
                text, flagged = made[s.id][pivot]
                if consensus and simsim.normalise(text) != simsim.normalise(s.base):
                    # keep only the changes other pivots make alike; put the others back as the seed has them
                    for why in agreement.refusals(text, s.base, self._same_lemma, self._wrong_sense):
                        if why in agreement.SENSE_REASONS + ("initial_word",):
                            self.inc(f"refused_{why}:{pivot}")  # a stretch no support keeps, by its sense
                    text, kept, back = agreement.keep_supported(text, s.base, pivot, evidence,
                                                                self.params.min_pivot_support, self._same_lemma,
                                                                self._wrong_sense)
                    self.inc(f"kept_supported:{pivot}", kept)
                    self.inc(f"reverted_unsupported:{pivot}", back)
                    if not kept:
                        self.inc(f"pivot_unsupported:{pivot}")
                        r = self.reject("pivot_unsupported", s.path, s.id,
                                        f"pivot {pivot}: no change made alike by other pivots", s.base)
                        if r is not None:
                            yield r
                        continue
                    left = set(agreement.tokens(text))
                    flagged = tuple(w for w in flagged if w.lower() in left)
                if flagged:
                    self.inc(f"untranslated_word:{pivot}")
                    yield self.reject("untranslated_word", s.path, s.id,
                                      f"pivot {pivot}: {', '.join(flagged[:5])}", f"{s.base}\n{text}")
                    continue
                reason = simsim.candidate_reason(text, s.base, self.params.candidate_checks,
                                                 self.params.max_new_bigrams)
                if not reason and self._wordnet is not None and "sense_changed" in self.params.candidate_checks:
                    words = simsim.sense_changed_words(text, s.base, self._wordnet)
                    if words:
                        self.inc(f"sense_changed:{pivot}")
                        yield self.reject("sense_changed", s.path, s.id, f"pivot {pivot}: {', '.join(words[:5])}",
                                          f"{s.base}\n{text}")
                        continue
                if reason:
                    self.inc(f"{reason}:{pivot}")
                    yield self.reject(reason, s.path, s.id, f"pivot {pivot}", f"{s.base}\n{text}")
                    continue
                self.inc("passed")  # a candidate kept (the console's drop shares are of candidates)
                outputs[s.id][pivot] = text
            if outputs[s.id] or (self.params.s3_from_seed and evidence and "s3" in self.params.variants):
                yield s, outputs[s.id], evidence  # no candidate left: s3 may still simulate on the seed


# ------------------------------------------------------------------ selection

class SelectFn(TimedFn):
    """[(Seed, {pivot: text})] -> s1 records (every changed back-translation) and s2 records (the one
    the language model finds most natural, unless less natural than the seed's base text). A text
    the language model fails on is a reject (`language_model_failed`), not a failed job."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "select")
        self.params = params
        self._lm = self._annotator = self._scorer = self._wordnet = None

    def setup(self):
        from miners.simsim.lm import make_language_model
        self._lm = make_language_model(self.params.lm, self.params.lm_path or None)
        self._lm.load()
        if "meaning_drift" in self.params.candidate_checks:
            self._scorer = _alignment_scorer(self.params)
        if "no_clause" in self.params.candidate_checks or "pos_changed" in self.params.candidate_checks:
            from miners.simsim.metrics import parser_without_ner
            self._annotator = parser_without_ner(self.params.spacy_model, self.params.parse_batch)
        if "pos_changed" in self.params.candidate_checks:
            from miners.simsim.wordnet import WordNet
            self._wordnet = WordNet.load()

    def _clauseless(self, text: str) -> int:
        """Sentences of `text` without a finite verb and a subject (a parse error counts as one)."""
        from miners.text.segmenter import split_sentences
        pieces = split_sentences(text) or [text]
        return sum(1 for parse in self._annotator.parse(pieces)
                   if isinstance(parse, Exception) or not simsim.is_clause(parse))

    def _tokens(self, text: str):
        """The parser's tokens of every sentence of `text` (None when a sentence fails to parse)."""
        from miners.text.segmenter import split_sentences
        out = []
        for parse in self._annotator.parse(split_sentences(text) or [text]):
            if isinstance(parse, Exception):
                return None
            out.extend(parse.tokens)
        return out

    def _choose(self, seed, usable, by_pivot, base_nll):
        """The language model's choice among the candidates; with the clause check, the most natural
        candidate that has no more clause-less sentences than the seed (`no_clause` when none has), and with
        pos_changed none whose replaced word is of another part of speech or form (`simsim.pos_changed_words`)."""
        margin = self.params.lm_margin
        checks = self.params.candidate_checks
        if "no_clause" not in checks and "pos_changed" not in checks:
            return simsim.select_candidate(seed.base, usable, by_pivot, base_nll, seed.complex, margin,
                                           self.params.select)
        left, base_missing, refused, seed_tokens = dict(usable), None, None, None
        while True:
            choice = simsim.select_candidate(seed.base, left, by_pivot, base_nll, seed.complex, margin,
                                            self.params.select)
            if choice.reason == "no_changed_candidate" and refused is not None:
                return dataclasses.replace(refused[0], reason=refused[1])  # every usable one failed
            if choice.reason:
                return choice
            reason = None
            if "no_clause" in checks:
                if base_missing is None:
                    base_missing = self._clauseless(seed.base)
                if self._clauseless(choice.text) > base_missing:
                    reason = "no_clause"
            if reason is None and "pos_changed" in checks:
                if seed_tokens is None:
                    seed_tokens = self._tokens(seed.base) or []
                if seed_tokens and simsim.pos_changed_words(seed_tokens, choice.text, self._wordnet):
                    reason = "pos_changed"
            if reason is None:
                return choice
            self.inc(f"{reason}:{choice.pivot}")
            refused = (choice, reason)
            del left[choice.pivot]

    def _alignments(self, batch) -> typing.Dict[typing.Tuple[str, str], typing.Optional[float]]:
        """(seed id, pivot) -> BERTScore F1(candidate, seed's base text) of every changed candidate of the
        batch (None when the encoder failed on it: then the check cannot refuse it)."""
        pairs = [(seed.id, pivot, cands[pivot], seed.base) for seed, cands, *_ in batch for pivot in sorted(cands)
                 if cands[pivot].strip() and simsim.normalise(cands[pivot]) != simsim.normalise(seed.base)]
        scored = guarded_calls(lambda ps: self._scorer.score([p[2] for p in ps], [p[3] for p in ps]), pairs)
        return {(p[0], p[1]): (None if error is not None else float(score)) for p, (score, error) in zip(pairs, scored)}

    def _drop_drifted(self, seed, usable, alignments):
        """The candidates that keep their seed's meaning (BERTScore floor), and {pivot: score} of those
        that do not (each counted as meaning_drift:<pivot>)."""
        kept, drifted = {}, {}
        for pivot in sorted(usable):
            score = alignments.get((seed.id, pivot))
            if score is not None and score < self.params.min_candidate_alignment:
                self.inc(f"meaning_drift:{pivot}")
                drifted[pivot] = score
            else:
                kept[pivot] = usable[pivot]
        return kept, drifted

    def _process(self, batch):
        batch = [(e[0], e[1], e[2] if len(e) > 2 else e[1]) for e in batch]
        texts = []
        for seed, cands, _ in batch:
            texts.append(seed.base)
            for pivot in sorted(cands):
                texts.append(cands[pivot])
        scored = guarded_calls(self._lm.mean_nll, texts)
        alignments = self._alignments(batch) if self._scorer is not None else {}
        pos = 0
        lm_name = self._lm.name
        for seed, cands, evidence in batch:
            base_nll, base_error = scored[pos]
            pos += 1
            by_pivot, usable = {}, {}
            for pivot in sorted(cands):
                nll, error = scored[pos]
                pos += 1
                if error is not None:
                    yield self.reject("language_model_failed", seed.path, seed.id, f"pivot {pivot}: {_error(error)}",
                                      cands[pivot][:2000])
                    continue
                by_pivot[pivot], usable[pivot] = nll, cands[pivot]
            if base_error is not None:
                yield self.reject("language_model_failed", seed.path, seed.id, f"seed: {_error(base_error)}",
                                  seed.base[:2000])
                continue
            for pivot in sorted(usable):
                text = usable[pivot]
                if not text.strip() or simsim.normalise(text) in (simsim.normalise(seed.base),
                                                                  simsim.normalise(seed.complex)):
                    self.inc(f"skipped:unchanged:{pivot}")
                    continue
                if "s1" in self.params.variants:
                    yield pvalue.TaggedOutput("s1", _record(seed, text, f"back_translation:{pivot}", pivot,
                                                            ["back_translation"], base_nll, by_pivot[pivot],
                                                            lm_name))
            if self._scorer is not None:
                usable, drifted = self._drop_drifted(seed, usable, alignments)
                same = {simsim.normalise(seed.base), simsim.normalise(seed.complex)}
                if drifted and all(simsim.normalise(t) in same or not t.strip() for t in usable.values()):
                    pivot, score = max(drifted.items(), key=lambda kv: (kv[1], kv[0]))
                    r = self.reject("meaning_drift", seed.path, seed.id,
                                    f"best {pivot} BERTScore {score:.3f} < {self.params.min_candidate_alignment}",
                                    f"{seed.base}\n{cands[pivot]}")
                    if r is not None:
                        yield r
                    continue
            choice = self._choose(seed, usable, by_pivot, base_nll)
            if choice.reason:
                r = self.reject(choice.reason, seed.path, seed.id,
                                f"best {choice.pivot or '-'} nll={choice.nll:.3f} vs seed {base_nll:.3f}",
                                f"{seed.base}\n{choice.text}")
                if r is not None:
                    yield r
                if self.params.s3_from_seed and "s3" in self.params.variants:
                    # no s2 candidate: s3 simulates on the seed itself (SimulateFn; method simulated:seed)
                    self.inc("to_simulate:seed")
                    record = _record(seed, seed.base, "seed", "", [], base_nll, base_nll, lm_name)
                    yield pvalue.TaggedOutput(SIMULATE, (record, self._agreed(seed, evidence)))
                continue
            self.inc(f"selected:{choice.pivot}")
            self.inc("passed")
            record = _record(seed, choice.text, f"lm_selected:{choice.pivot}", choice.pivot, ["back_translation"],
                             base_nll, choice.nll, lm_name)
            if "s2" in self.params.variants:
                yield pvalue.TaggedOutput("s2", record)
            if "s3" in self.params.variants:
                yield pvalue.TaggedOutput(SIMULATE, (record, self._agreed(seed, evidence)))

    def _agreed(self, seed, evidence) -> tuple:
        """The one-word substitutions the pivots make on the seed (agreement.agreed_substitutions), for s3."""
        if not self.params.agreed_substitution:
            return ()
        return tuple(agreement.agreed_substitutions(seed.base, evidence, 0))


# ------------------------------------------------------------------ simulated operations

def _parser_and_rules(params: Params):
    """The spaCy annotator and the PPDB rules (None without --ppdb) of the simulation and metrics stages."""
    from miners.simsim.metrics import parser_without_ner
    annotator = parser_without_ner(params.spacy_model, params.parse_batch)
    if not params.ppdb:
        return annotator, None
    from miners.simsim import ppdb
    options = {"min_score": params.ppdb_min_score} if params.ppdb_min_score is not None else {}
    return annotator, ppdb.load_rules(params.ppdb, **options)


def drop_budget(max_drops: int, pieces: int) -> int:
    """Phrases each sentence of a record may lose: the record's budget shared out, at least one per
    sentence unless the budget is 0 (`--max_drops 0`: nothing is dropped)."""
    if max_drops <= 0:
        return 0
    return max(1, max_drops // max(1, pieces))


class SimulateFn(TimedFn):
    """[(s2 record, pivot-agreed substitutions)] -> s3 record: the paper's simulated operations on the s2
    text, each one that keeps the meaning: substitution (PPDB rules with --ppdb; else the one-word
    substitutions the pivots agree on, miners/simsim/agreement.py, each decision counted as
    simulate/agreed:<reason>; or WordNet synonyms with --wordnet_substitution, simulate/wordnet:<reason>)
    the language model accepts; dropped phrases chosen on the dependency parse (seeded; a removal that
    would break the sentence is refused and counted as simulate/drop:<reason>, miners/simsim/simulate.py's
    DROP_CHECKS); a split of two coordinated clauses (miners/simsim/split.py, simulate/split:<reason>).
    A record none of them changes is no s3 record (`no_simulated_operation`): s3 would be s2 again
    (issue 51). `simple_nll` is the language model's score of the text written. A record the parser or
    the language model fails on is a reject (`simulate_failed`, with the engine's message)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "simulate")
        self.params = params
        self._annotator = self._lm = self._rules = self._wordnet = self._sense_wordnet = None
        self._known_words = None

    def setup(self):
        from miners.simsim.lm import make_language_model
        self._annotator, self._rules = _parser_and_rules(self.params)
        if self._rules is None and self.params.wordnet_substitution:
            from miners.simsim import english_words
            from miners.simsim.wordnet import WordNet
            self._wordnet = WordNet.load()
            self._known_words = english_words.load(self.params.english_dictionary or None)
        if self._rules is None and self.params.agreed_substitution:
            from miners.simsim.wordnet import WordNet
            self._sense_wordnet = WordNet.load()
        self._lm = make_language_model(self.params.lm, self.params.lm_path or None)
        self._lm.load()

    def _reparse(self, text: str):
        """The parse of a text a drop would leave (an exception when the parser fails on it)."""
        return self._annotator.parse([text])[0]

    def _parse_pieces(self, text: str):
        """[(sentence, parse or None)] of a text of one or more sentences (a WikiSplit seed's
        simple side has two: each is edited on its own parse)."""
        from miners.text.segmenter import split_sentences
        pieces = split_sentences(text) or [text]
        parses = self._annotator.parse(pieces)
        out = []
        for piece, parse in zip(pieces, parses):
            if isinstance(parse, Exception):
                self.inc("skipped:parse_error")
                parse = None
            out.append((piece, parse))
        return out

    def _agreed(self, text: str, parse, subs):
        """The pivot-agreed substitutions made on `text` (agreement.apply_agreed_substitutions): made alike by
        pivots whose support reaches --min_pivot_support (since issue 51's second round no longer one pivot
        with a WordNet synonym of a usual sense: on the tuning text those were wrong in about half the cases,
        "atomic radii" -> "nuclear radii", "inheritance and descent" -> "heritage and origin", against none of
        the 13 the pivots agreed on), of the word's inflection and of a part of speech the replacement has
        where the parse puts the word, no false friend nor rare sense, outside quotations."""
        from miners.simsim import wordnet
        wn = self._sense_wordnet
        tags = {}
        for t in parse.tokens:
            tags.setdefault(t.text.lower(), set()).add(wordnet.UPOS_TO_WORDNET.get(t.upos, "x"))

        def same_form(word, repl):
            pos = tags.get(word, set())
            return wordnet.inflection_class(word, wn) == wordnet.inflection_class(repl, wn) and \
                len(pos) == 1 and "x" not in pos and bool(wn.morphy(repl, next(iter(pos))))

        return agreement.apply_agreed_substitutions(
            text, subs, wordnet.zipf, lambda new, old: simsim.sense_changed_words(new, old, wn), self._lm.mean_nll,
            min_support=self.params.min_pivot_support, same_form=same_form,
            protected=simsim.quotation_spans, wrong_sense=agreement.sense_check(wn),
            inc=lambda reason, n=1: self.inc(f"agreed:{reason}", n))

    def _simulate(self, record, subs=()):
        ops = [o for o in record.operations if o != "splitting"]
        text = record.simple
        pieces = self._parse_pieces(text)
        budget = drop_budget(self.params.max_drops, len(pieces))
        edited = []
        for index, (text, parse) in enumerate(pieces):
            if parse is not None and simsim.token_offsets(text, [t.text for t in parse.tokens]) is None:
                self.inc("skipped:no_token_offsets")  # neither substitution nor dropping can place an edit
                parse = None
            if parse is not None and self._rules is None and self._sense_wordnet is not None and subs:
                new, applied = self._agreed(text, parse, subs)
                if applied:
                    self.inc("substituted")
                    self.inc("substitutions", len(applied))
                    ops.append("substitution")
                    text = new
                    reparsed = self._annotator.parse([text])[0]
                    parse = None if isinstance(reparsed, Exception) else reparsed
                    if parse is not None and simsim.token_offsets(text, [t.text for t in parse.tokens]) is None:
                        parse = None
            if parse is not None and self._rules is not None:
                new, applied = simsim.substitute(text, [t.text for t in parse.tokens],
                                                 [t.xpos for t in parse.tokens], self._rules, self._lm.mean_nll)
            elif parse is not None and self._wordnet is not None:
                new, applied = simsim.wordnet_substitute(
                    text, parse, self._wordnet, self._lm.mean_nll, known_words=self._known_words,
                    inc=lambda reason, n=1: self.inc(f"wordnet:{reason}", n))
            else:
                applied = []
            if applied:
                self.inc("substituted")
                self.inc("substitutions", len(applied))
                ops.append("substitution")
                if new != text:
                    text = new
                    reparsed = self._annotator.parse([text])[0]
                    parse = None if isinstance(reparsed, Exception) else reparsed
                    if parse is not None and simsim.token_offsets(text, [t.text for t in parse.tokens]) is None:
                        self.inc("skipped:no_token_offsets")
                        parse = None
            if parse is not None and budget > 0:
                new, dropped = simsim.drop_phrases(text, parse, self.params.seed,
                                                   f"{record.doc_id}|{record.simple}|{index}",
                                                   self.params.max_drop_share, budget,
                                                   self.params.drop_relations, reparse=self._reparse,
                                                   checks=self.params.drop_checks,
                                                   inc=lambda reason: self.inc(f"drop:{reason}"))
                if dropped:
                    self.inc("dropped_phrases", len(dropped))
                    for p in dropped:
                        self.inc(f"dropped_kind:{p.relation}")
                    ops.append("dropping")
                    text = new
                    if self.params.simulated_split:
                        reparsed = self._annotator.parse([text])[0]
                        parse = None if isinstance(reparsed, Exception) else reparsed
            if parse is not None and self.params.simulated_split and "split" not in ops:
                offsets = simsim.token_offsets(text, [t.text for t in parse.tokens])
                if offsets is not None:
                    from miners.simsim import split
                    new, reason = split.split_sentence(text, parse, offsets, self._reparse, simsim.is_clause)
                    self.inc(f"split:{reason}")
                    if reason == "split":
                        ops.append("split")
                        text = new
            edited.append(text)
        if "dropping" in ops:
            self.inc("dropped")
        out_ops = [o for o in ("back_translation", "substitution", "dropping", "splitting")
                   if o in ops or (o == "splitting" and ("split" in ops or record.splitting))]
        return dataclasses.replace(record, simple=" ".join(edited), method=f"simulated:{record.pivot or 'seed'}",
                                   operations=tuple(out_ops),
                                   splitting=record.splitting or "split" in ops), \
            any(o in ops for o in ("substitution", "dropping", "split"))

    def _process(self, batch):
        done = []
        for element in batch:
            record, subs = (element if isinstance(element, tuple) else (element, ()))
            try:
                new, operated = self._simulate(record, subs)
            except Exception as e:  # noqa: BLE001 - an engine failed on this record: a reject, the job goes on
                yield self.reject("simulate_failed", record.source, record.doc_id, _error(e), record.simple[:2000])
                continue
            if self.params.require_operation and (not operated
                                                  or simsim.normalise(new.simple) == simsim.normalise(record.simple)):
                r = self.reject("no_simulated_operation", record.source, record.doc_id,
                                "no substitution, drop or split kept the meaning: s3 would be s2", record.simple[:2000])
                if r is not None:
                    yield r
                continue
            done.append(new)
        scored = guarded_calls(self._lm.mean_nll, [r.simple for r in done])
        for record, (nll, error) in zip(done, scored):
            if error is not None:
                yield self.reject("language_model_failed", record.source, record.doc_id, _error(error),
                                  record.simple[:2000])
                continue
            self.inc("passed")
            yield dataclasses.replace(record, simple_nll=max(0.0, float(nll)))


# ------------------------------------------------------------------ alignment (BERTScore)

def _alignment_scorer(params: Params):
    """BERTScore with each distinct sentence embedded once per worker (miners.quality.scoring.EmbeddingBertScorer)."""
    from miners.quality.scoring import EmbeddingBertScorer
    return EmbeddingBertScorer.for_params(params)


class AlignmentFn(TimedFn):
    """[(variant, record)] -> the same with `alignment` = BERTScore F1(simple, complex) and
    `has_alignment`; a scored record below the floor is a reject (`bertscore_too_low`). s1 records
    are scored for a deterministic sample (`s1_alignment_sample`; the paper's S1 is every
    back-translation, unfiltered), s2 and s3 in full. A pair the encoder fails on is a reject
    (`bertscore_failed`)."""

    def __init__(self, params: Params, min_score: float):
        super().__init__(DATASET, "bertscore")
        self.params = params
        self.min_score = min_score
        self._scorer = None

    def setup(self):
        self._scorer = _alignment_scorer(self.params)

    def _sampled(self, variant, record) -> bool:
        return in_s1_sample(variant, record, self.params.s1_alignment_sample)

    def _process(self, batch):
        todo = []
        for e in batch:
            if self._sampled(e[0], e[-1]):
                todo.append(e)
            else:
                self.inc("unscored:s1_not_in_sample")
                yield e
        scored = guarded_calls(lambda es: self._scorer.score([x[-1].simple for x in es], [x[-1].complex for x in es]),
                               todo)
        for e, (score, error) in zip(todo, scored):
            variant, record = e[0], e[-1]
            if error is not None:
                yield self.reject("bertscore_failed", variant, record.split_key(), _error(error), record.to_json())
                continue
            record = dataclasses.replace(record, alignment=float(score), has_alignment=True)
            if score < self.min_score:
                yield self.reject("bertscore_too_low", variant, record.split_key(),
                                  f"BERTScore F1(simple, complex) = {score:.3f} < {self.min_score}",
                                  record.to_json())
                continue
            self.inc("passed")
            yield e[:-1] + (record,)


def in_s1_sample(variant: str, record, rate: float) -> bool:
    """Whether a record is measured when s1 is measured on a deterministic sample of `rate`: every
    s2 / s3 record; an s1 record by a hash of its seed and text, so the alignment and metrics
    samples of one rate are the same records (those carry all five metrics)."""
    if variant != "s1" or rate >= 1.0:
        return True
    return stable_fraction(f"{record.doc_id}|{record.simple}", "s1-alignment") < rate


class AddAlignment(beam.PTransform):
    """(variant, [split,] record) -> the same with the alignment metric; records that share a complex
    side are batched together (a seed's ~7 records: its complex side is embedded once)."""

    def __init__(self, params: Params, min_score: float):
        super().__init__()
        self.params, self.min_score = params, min_score

    def expand(self, pcoll):
        size = self.params.bertscore_batch
        out = (pcoll
               | "KeyByComplex" >> beam.Map(lambda e: (e[-1].complex, e))
               | "GroupByComplex" >> beam.GroupByKey()
               | "Groups" >> beam.MapTuple(lambda _, elements: sorted(elements, key=_element_order))
               | "Batch" >> DeterministicBatches(_group_key, max(1, size // 4), salt="simsim-alignment")
               | "Ungroup" >> beam.Map(lambda groups: [e for g in groups for e in g])
               | "Score" >> beam.ParDo(AlignmentFn(self.params, self.min_score)).with_outputs(
                   REJECTS, COUNTS, main="examples"))
        return {"examples": out.examples, REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


def _element_order(e):
    return (e[0], e[-1].simple, e[-1].method)


# ------------------------------------------------------------------ metrics

class OperationMetricsFn(TimedFn):
    """[(variant, record)] -> the same with the operation metrics stored (dropping, reordering,
    substitution when PPDB rules are given, splitting) and `has_operation_metrics`; alignment is the
    alignment stage's BERTScore. s1 records are measured on a deterministic sample
    (`s1_metrics_sample`, the alignment sample when the rates agree; the paper's S1 is every
    back-translation, and parsing all of it was a third of the job's CPU), s2 and s3 in full.
    A record the parser fails on is a reject (`metrics_failed`)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "metrics")
        self.params = params
        self._annotator = self._rules = self._cache = None

    def setup(self):
        from miners.simsim.metrics import ParseCache
        # The same rules as SimulateFn used (the same floor), so the metric measures what was applied.
        self._annotator, self._rules = _parser_and_rules(self.params)
        self._cache = ParseCache()

    def _process(self, batch):
        from miners.simsim.metrics import compute_metrics
        todo = []
        for e in batch:
            if in_s1_sample(e[0], e[-1], self.params.s1_metrics_sample):
                todo.append(e)
            else:
                self.inc("unmeasured:s1_not_in_sample")
                yield e
        batch = todo
        records = [e[-1] for e in batch]
        scored = guarded_calls(
            lambda rs: compute_metrics([(r.complex, r.simple) for r in rs], annotator=self._annotator,
                                       ppdb=self._rules, alignments=[r.alignment for r in rs],
                                       parse_cache=self._cache), records)
        for e, r, (m, error) in zip(batch, records, scored):
            if error is not None:
                yield self.reject("metrics_failed", e[0], r.split_key(), _error(error), r.to_json())
                continue
            r = dataclasses.replace(
                r, dropping=float(m.dropping), reordering=float(m.reordering), splitting=bool(m.splitting),
                substitution=float(m.substitution or 0.0), has_substitution_metric=m.substitution is not None,
                has_operation_metrics=True)
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
                      | "BatchSeeds" >> DeterministicBatches(_key, p.translate_batch, salt="simsim-seeds")
                      | "BackTranslate" >> beam.ParDo(BackTranslateFn(p)).with_outputs(REJECTS, COUNTS,
                                                                                      main="translated"))
        rejects.append(translated[REJECTS])
        counts.append(translated[COUNTS])
        selected = (translated.translated
                    | "BatchCandidates" >> DeterministicBatches(_translated_key, p.lm_batch, salt="simsim-select")
                    | "Select" >> beam.ParDo(SelectFn(p)).with_outputs("s1", "s2", SIMULATE, REJECTS, COUNTS))
        rejects.append(selected[REJECTS])
        counts.append(selected[COUNTS])
        parts = [selected.s1 | "TagS1" >> beam.Map(lambda r: ("s1", r)),
                 selected.s2 | "TagS2" >> beam.Map(lambda r: ("s2", r))]
        simulated = (selected[SIMULATE]
                     | "BatchSimulate" >> DeterministicBatches(_simulate_key, p.parse_batch, salt="simsim-simulate")
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
               | "BatchMetrics" >> DeterministicBatches(_example_key, p.parse_batch, salt="simsim-metrics")
               | "Metrics" >> beam.ParDo(OperationMetricsFn(p)).with_outputs(REJECTS, COUNTS, main="examples"))
        return {"examples": out.examples, REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


def split_share_counts(element):
    """(variant, record) -> counters from which the share of pairs that split per variant is derived
    (the SimSim paper's Table 2)."""
    variant, r = element[0], element[-1]
    if not r.has_operation_metrics:  # an s1 record outside the measured sample
        return
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


def derive_check_shares(counts: typing.Dict[str, int]) -> dict:
    """{check: {"rejected", "share_of_candidates"}} of the candidate checks (issue 34): each check's
    rejects over every back-translation made (translate/candidates:*); no_clause counts the language
    model's choices it turned down (select/no_clause:<pivot>), meaning_drift the candidates below the
    BERTScore floor (select/meaning_drift:<pivot>)."""
    candidates = sum(n for name, n in counts.items() if name.startswith("translate/candidates:"))
    out = {}
    for check in simsim.CANDIDATE_CHECK_NAMES:
        if check in ("no_clause", "meaning_drift", "pos_changed"):
            n = sum(v for name, v in counts.items() if name.startswith(f"select/{check}:"))
        else:
            n = counts.get(f"translate/filtered:{check}", 0)
        out[check] = {"rejected": n, "share_of_candidates": round(n / candidates, 4) if candidates else 0.0}
    return out
