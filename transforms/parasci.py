"""Beam stages of the ParaSCI miner (rules in miners/parasci/pairs.py, search in miners/parasci/neighbors.py).

    Paper --DedupPapers--> Paper                    (rejects: duplicate_paper)
          --SplitSentences--> PaperSentence         (sentence filters; bulk rejects sampled)
          --Embed--> (PaperSentence, vector)        (model loaded once per worker, batched)
          --GroupSentences--> ((method, group), member)     intra_paper: the paper's six sections;
                                                    definition: field + term; same_citation: cited key
          --FindCandidates--> Candidate             (blocked top-k search; oversized groups cut in
                                                    blocks, one block pair per worker)
          --ResolveCandidates--> SciParaphraseExample   (whole pairs; partial extraction, batched)
          --ScoreAndFilter--> SciParaphraseExample  (BERTScore + length rate, §4.2)
          --KeepBestPairs--> SciParaphraseExample   (a pair is kept when it is the best of both its
                                                    sentences; rejects: sentence_in_a_better_pair)
          --AssignSplits--> (variant, split, record)  by connected components of the pairs'
                                                    sentences (and of a paper's in-paper pairs):
                                                    no pair dropped, no sentence in two splits

Memory: no step holds more than one block pair of one group (2 x `block_size`
members and their vectors) or one batch; the only side input is the list of
oversized groups with their sizes.
"""
import dataclasses
import typing

import apache_beam as beam
from apache_beam import pvalue

from miners.parasci import neighbors
from miners.parasci import pairs as ps
from miners.hashing import stable_hash
from miners.text.segmenter import split_sentences
from schemas.papers import Paper, PaperSentence
from schemas.records import SciParaphraseExample
from transforms.common import COUNTS, REJECTS, DeterministicBatches, MiningDoFn
from transforms.sinks import assign_split

DATASET = ps.DATASET
VARIANT = "base"

# Members per block of an oversized group: one block pair (2 x 2,048 rows of 384 floats plus a
# 2,048 x 2,048 similarity block) is ~30 MB on a worker.
DEFAULT_BLOCK_SIZE = 2048
EMBED_BATCHES_PER_CALL = 8  # encoder batches per EmbedFn call (length sorting happens inside a call)
# Rejects that come in bulk (every short sentence of every paper): counted in full, sampled to rejects/.
BULK_REASONS = ("too_short", "too_long", "low_letter_ratio", "below_similarity", "not_paraphrase",
                "no_summary_section")
# Which copy of a paper read from several formats is kept: the richest text, then this order.
SOURCE_PREFERENCE = ("s2orc", "jats", "grobid_tei", "doc2json")


@dataclasses.dataclass(frozen=True)
class Params:
    """Every option of the ParaSCI stages."""
    thresholds: ps.Thresholds = ps.Thresholds()
    methods: typing.Tuple[str, ...] = ps.DEFAULT_METHODS
    top_k: int = neighbors.DEFAULT_TOP_K
    block_size: int = DEFAULT_BLOCK_SIZE
    chunk: int = neighbors.DEFAULT_CHUNK
    embedding_model: str = ""  # "" = the bundled MiniLM
    embedding_encoder: str = "ct2"  # miners/nlp/embed.py: "ct2" (CTranslate2, one thread) or "torch"
    embed_batch: int = 128
    bertscore_model: str = ""  # "" = the bundled MiniLM
    bertscore_num_layers: typing.Optional[int] = None
    bertscore_batch: int = 64
    bertscore_encoder: str = "ct2"  # miners/quality/scoring.py EmbeddingBertScorer: "ct2" or "torch"
    partial_batch: int = 32
    partial_method: str = "best_clause"  # or "pdbert" (miners/parasci/partial.py)
    pdbert_model: str = ""  # directory written by tools/train_pdbert.py (partial_method "pdbert")
    min_words: int = ps.MIN_WORDS
    max_words: int = ps.MAX_WORDS
    split_ratios: typing.Tuple[float, float, float] = (0.9, 0.05, 0.05)
    bulk_sample_rate: float = 0.01
    max_pairs_per_paper: int = ps.DEFAULT_MAX_PAIRS_PER_PAPER  # in-paper pairs per paper; 0: no cap
    max_paper_sentences: int = ps.MAX_PAPER_SENTENCES  # a paper with more is rejected too_many_sentences


def _sentence_id(s: PaperSentence) -> str:
    return f"{s.paper_id}#{s.index}"


def _sentence_sort_key(s: PaperSentence) -> str:
    """Orders the sentences of an embedding bucket (the id, then the text: ids are unique after DedupPapers)."""
    return f"{s.paper_id}#{s.index:09d}\t{s.text}"


def _candidate_sort_key(c) -> str:
    """Orders the partial-extraction jobs of a bucket (the clauses are embedded per batch)."""
    return f"{c.method}\t{_sentence_sort_key(c.a)}\t{_sentence_sort_key(c.b)}"


# ------------------------------------------------------------------ papers

def _richness(paper: Paper):
    """Higher is better: more text, then the preferred source, then the smaller id (deterministic)."""
    chars = sum(len(p.text) for p in paper.paragraphs)
    pref = SOURCE_PREFERENCE.index(paper.source) if paper.source in SOURCE_PREFERENCE else len(SOURCE_PREFERENCE)
    return (chars, -pref, tuple(-ord(c) for c in paper.id))


def dedup_key(paper: Paper) -> str:
    """Which papers are one: the title key, or, for a paper without a title (the S2ORC 2020 form),
    its opening text (the first paragraph's letters and digits, case folded, up to 500 characters),
    so the same paper read under two ids is still kept once."""
    if paper.title_key:
        return paper.title_key
    for para in paper.paragraphs:
        text = " ".join(ps.parasci_decision.tokens(para.text))
        if len(text) >= 100:
            return "text:" + text[:500]
    return f"id:{paper.id}"


class KeepOnePaperFn(MiningDoFn):
    """(title key, [Paper]) -> the richest copy; the others are rejected as duplicate_paper."""

    def __init__(self):
        super().__init__(DATASET, "papers")

    def process(self, element):
        _, papers = element
        papers = sorted(papers, key=_richness, reverse=True)
        keep = papers[0]
        self.inc("passed")
        yield keep
        for p in papers[1:]:
            yield self.reject("duplicate_paper", p.path, p.id,
                              f"same title or opening text as {keep.id} from {keep.path} ({keep.source}), "
                              f"which has more text",
                              p.title)


class DedupPapers(beam.PTransform):
    """The same paper read from several formats (S2ORC JSON and GROBID TEI of one PDF) is kept once."""

    def expand(self, papers):
        out = (papers
               | "KeyByTitle" >> beam.Map(lambda p: (dedup_key(p), p))
               | "GroupByTitle" >> beam.GroupByKey()
               | "KeepOne" >> beam.ParDo(KeepOnePaperFn()).with_outputs(REJECTS, COUNTS, main="papers"))
        return {"papers": out.papers, REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


class SplitSentencesFn(MiningDoFn):
    """Paper -> its usable PaperSentences (the shared segmenter; sentence filters)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "sentences", bulk_reasons=BULK_REASONS, bulk_sample_rate=params.bulk_sample_rate)
        self.params = params

    def process(self, paper: Paper):
        sentences = ps.paper_sentences(paper, split_sentences)
        if not sentences:
            yield self.reject("no_sentences", paper.path, paper.id, "no sentence in the paper's paragraphs")
            return
        if len(sentences) > self.params.max_paper_sentences:
            yield self.reject("too_many_sentences", paper.path, paper.id,
                              f"{len(sentences)} sentences > {self.params.max_paper_sentences} "
                              f"(--max_paper_sentences)", sentences[0].text)
            return
        for s in sentences:
            reason = ps.sentence_reason(s.text, self.params.min_words, self.params.max_words)
            if reason:
                r = self.reject(reason, paper.path, _sentence_id(s), "", s.text)
                if r is not None:
                    yield r
                continue
            self.inc("passed")
            yield s


class EmbedFn(MiningDoFn):
    """[PaperSentence] -> (PaperSentence, float32 vector) each; the model loads once per worker."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "embed")
        self.params = params
        self._embedder = None

    def setup(self):
        from miners.nlp.embed import SentenceEmbedder
        self._embedder = SentenceEmbedder(self.params.embedding_model or None, batch_size=self.params.embed_batch,
                                          encoder=self.params.embedding_encoder).load()

    def process(self, batch):
        vectors = self._embedder.encode([s.text for s in batch])
        self.inc("sentences", len(batch))
        for s, v in zip(batch, vectors):
            yield s, v


class Embed(beam.PTransform):
    def __init__(self, params: Params):
        super().__init__()
        self.params = params

    def expand(self, sentences):
        # The encoder sorts what it is given by length and pads per batch of `embed_batch`: handing
        # it several batches at a time keeps padding as low as a bare encode of the whole list. A
        # vector depends in its last float bits on what else is in its batch (padding), and a pair
        # near a threshold on that vector: the batches follow the input, never the runner's bundles
        # (beam.BatchElements' batches did, and Flink wrote other pairs than the local runner).
        n = self.params.embed_batch * EMBED_BATCHES_PER_CALL
        out = (sentences
               | "Batch" >> DeterministicBatches(_sentence_sort_key, n, batches_per_bucket=4, salt="parasci-embed")
               | "Encode" >> beam.ParDo(EmbedFn(self.params)).with_outputs(REJECTS, COUNTS, main="embedded"))
        return {"embedded": out.embedded, REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


class ExtractPartial(beam.PTransform):
    """Candidate (a partial-extraction job) -> {"pairs", REJECTS, COUNTS}: the clauses of a batch are
    embedded together, so batches follow the input (DeterministicBatches), not the runner's bundles."""

    def __init__(self, params: Params):
        super().__init__()
        self.params = params

    def expand(self, candidates):
        p = self.params
        out = (candidates
               | "BatchPartial" >> DeterministicBatches(_candidate_sort_key, p.partial_batch, salt="parasci-partial")
               | "ExtractPartial" >> beam.ParDo(ExtractPartialFn(p)).with_outputs(REJECTS, COUNTS, main="pairs"))
        return {"pairs": out.pairs, REJECTS: out[REJECTS], COUNTS: out[COUNTS]}


# ------------------------------------------------------------------ groups

def group_memberships(embedded, methods) -> typing.Iterator[typing.Tuple[typing.Tuple[str, str], tuple]]:
    """(PaperSentence, vector) -> ((method, group), (sentence, vector, label)) for each group it joins.

    intra_paper (and partial, found by the same search): the sentence's paper, if its section is one
    of the six of §3.1, labelled by section; definition: field + defined term, labelled by paper;
    same_citation: each paper it cites, labelled by paper.
    """
    s, v = embedded
    if ("intra_paper" in methods or "partial" in methods) and s.section in ps.INTRA_SECTIONS:
        yield ("intra_paper", s.paper_id), (s, v, s.section)
    if "definition" in methods:
        # The term as the paper's reader found it (an abbreviation keyed by the long form the paper
        # gives it); a sentence made by hand has none and is looked at here.
        term = s.term or ps.definition_term(s.text)
        if term:
            yield ("definition", ps.definition_group(s.field, term)), (s, v, s.paper_id)
    if "same_citation" in methods or "partial" in methods:
        for key in s.cite_keys:
            yield ("same_citation", key), (s, v, s.paper_id)


def _blocked_keys(element, big: typing.Dict, block_size: int):
    """Key a member by the block pairs it takes part in: ((method, group, i, j), (block, member))."""
    (method, group), member = element
    size = big.get((method, group), 0)
    blocks = neighbors.num_blocks(size, block_size) if size else 1
    if blocks == 1:
        yield (method, group, 0, 0), (0, member)
        return
    block = stable_hash(_sentence_id(member[0]), "parasci-block") % blocks
    for i, j in neighbors.block_pairs(block, blocks):
        yield (method, group, i, j), (block, member)


class SearchBlockFn(MiningDoFn):
    """One block pair of one group -> Candidates (each member's top-k partners above the floor)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "search")
        self.params = params

    def process(self, element):
        import numpy as np
        (method, group, bi, bj), members = element
        members = sorted(members, key=lambda bm: (bm[0], bm[1][0].paper_id, bm[1][0].index))
        floor = self.params.thresholds.search_floor()
        k, chunk = self.params.top_k, self.params.chunk
        if bi == bj:
            sents = [m[1][0] for m in members]
            if len(sents) < 2:
                return
            vecs = np.stack([m[1][1] for m in members])
            stats = {}
            found = neighbors.self_pairs(vecs, k=k, threshold=floor, labels=[m[1][2] for m in members],
                                         exclude_same=True, chunk=chunk, stats=stats)
            # Pairs above the floor that no sentence kept among its --top_k: counted, not silent.
            self.inc(f"beyond_top_k:{method}", stats.get("beyond_top_k", 0))
            pairs = [(sents[i], sents[j], s) for i, j, s in found]
        else:
            left = [m[1] for m in members if m[0] == bi]
            right = [m[1] for m in members if m[0] == bj]
            if not left or not right:
                return
            lv, rv = np.stack([m[1] for m in left]), np.stack([m[1] for m in right])
            ll, rl = [m[2] for m in left], [m[2] for m in right]
            seen, stats = {}, {}
            for (a, b, av, bv, al, bl, flip) in ((left, right, lv, rv, ll, rl, False),
                                                  (right, left, rv, lv, rl, ll, True)):
                topk = neighbors.topk_pairs(av, bv, k=k, threshold=floor, left_labels=al, right_labels=bl,
                                            exclude_same=True, chunk=chunk, stats=stats if not flip else None)
                for i, partners in topk.items():
                    for s, j in partners:
                        x, y = (b[j][0], a[i][0]) if flip else (a[i][0], b[j][0])
                        seen[(_sentence_id(x), _sentence_id(y))] = (x, y, s)
            pairs = [seen[key] for key in sorted(seen)]
            self.inc(f"beyond_top_k:{method}", stats.get("above_threshold", 0) - len(pairs))
        self.inc(f"pairs:{method}", len(pairs))
        for a, b, s in pairs:
            first, second = ps.order_pair(a, b)
            yield ps.Candidate(method=method, a=first, b=second, similarity=float(s), group=group)


class FindCandidates(beam.PTransform):
    """((method, group), (sentence, vector, label)) -> Candidate, deduplicated per (method, pair)."""

    def __init__(self, params: Params):
        super().__init__()
        self.params = params

    def expand(self, members):
        block_size = self.params.block_size
        sizes = (members
                 | "One" >> beam.Map(lambda kv: (kv[0], 1))
                 | "GroupSizes" >> beam.CombinePerKey(sum)
                 | "Oversized" >> beam.Filter(lambda kv: kv[1] > block_size))
        searched = (members
                    | "KeyByBlockPair" >> beam.FlatMap(_blocked_keys, beam.pvalue.AsDict(sizes), block_size)
                    | "GroupBlocks" >> beam.GroupByKey()
                    | "Search" >> beam.ParDo(SearchBlockFn(self.params)).with_outputs(REJECTS, COUNTS,
                                                                                        main="candidates"))
        # A pair found in two groups of one method (two shared citations) is one candidate: the
        # first group in sorted order keeps it.
        unique = (searched.candidates
                  | "KeyByPair" >> beam.Map(lambda c: ((c.method, _sentence_id(c.a), _sentence_id(c.b)), c))
                  | "GroupByPair" >> beam.GroupByKey()
                  | "FirstGroup" >> beam.MapTuple(lambda _, cs: min(cs, key=lambda c: c.group)))
        group_counts = (sizes | "CountOversized" >> beam.Map(lambda kv: (f"search/oversized_groups:{kv[0][0]}", 1)))
        return {"candidates": unique, REJECTS: searched[REJECTS],
                COUNTS: (searched[COUNTS], group_counts) | "FlattenSearchCounts" >> beam.Flatten()}


# ------------------------------------------------------------------ candidates -> records

PARTIAL = "partial"


class ClassifyFn(MiningDoFn):
    """Candidate -> SciParaphraseExample (whole pair) or, tagged PARTIAL, a partial-extraction job."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "candidates", bulk_reasons=BULK_REASONS, bulk_sample_rate=params.bulk_sample_rate)
        self.params = params

    def process(self, c: ps.Candidate):
        action, reason, probability = ps.decide_candidate(c, self.params.thresholds)
        if action == "partial" and PARTIAL in self.params.methods:
            self.inc(f"partial_candidates:{c.method}")
            yield pvalue.TaggedOutput(PARTIAL, c)
            return
        if action == "pair" and c.method in self.params.methods:
            self.inc(f"passed:{c.method}")
            yield ps.make_example(c, probability=probability)
            return
        if action != "drop":  # found by a group searched for another method (--methods): not a drop
            self.inc(f"skipped:{PARTIAL if action == 'partial' else c.method}_not_requested")
            return
        r = self.reject(reason, c.a.path, f"{_sentence_id(c.a)} {_sentence_id(c.b)}",
                        f"{c.method} cos={c.similarity:.3f} plr={ps.length_rate(c.a.text, c.b.text):.2f}",
                        f"{c.a.text}\n{c.b.text}")
        if r is not None:
            yield r


class ExtractPartialFn(MiningDoFn):
    """[Candidate] -> partial pairs (short sentence, the part of the long one that matches), batched."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "partial", bulk_reasons=BULK_REASONS,
                         bulk_sample_rate=params.bulk_sample_rate)
        self.params = params
        self._embedder = None
        self._extractor = None
        self._nlp = None

    def setup(self):
        from miners.nlp.embed import SentenceEmbedder
        from miners.nlp.pos import load_tagger_parser
        self._nlp = load_tagger_parser()
        self._embedder = SentenceEmbedder(self.params.embedding_model or None, batch_size=self.params.embed_batch,
                                          encoder=self.params.embedding_encoder).load()
        if self.params.partial_method == "pdbert":
            from miners.parasci.partial import SpanExtractor
            self._extractor = SpanExtractor(self.params.pdbert_model, embedder=self._embedder,
                                            threshold=self.params.thresholds.similarity).load()

    def process(self, batch):
        from miners.parasci import partial
        jobs = []
        for c in batch:
            short, long_ = (c.a, c.b) if len(ps.words(c.a.text)) <= len(ps.words(c.b.text)) else (c.b, c.a)
            jobs.append((c, short, long_))
        pairs = [(s.text, l.text) for _, s, l in jobs]
        matches = self._extractor.extract(pairs) if self._extractor is not None else \
            partial.best_clauses(pairs, self._embedder, self.params.thresholds.similarity)
        for (c, short, long_), m in zip(jobs, matches):
            key = f"{_sentence_id(c.a)} {_sentence_id(c.b)}"
            if m is None:
                yield self.reject("no_partial_match", c.a.path, key, f"{c.method} cos={c.similarity:.3f}",
                                  f"{short.text}\n{long_.text}")
                continue
            # The extracted part passes the same decision as a whole pair (rules, then the model).
            probability, reason = self.params.thresholds.decision.decide(short.text, m.text, m.similarity,
                                                                         partial=True)
            if not reason:  # the part must read as a statement of its own
                reason = ps.parasci_decision.clause_reason(self._nlp(m.text), part=True)
            if reason:
                r = self.reject(reason, c.a.path, key, f"{c.method} partial cos={m.similarity:.3f}",
                                f"{short.text}\n{m.text}")
                if r is not None:
                    yield r
                continue
            texts = (short.text, m.text) if short is c.a else (m.text, short.text)
            self.inc("passed")
            yield ps.make_example(c, method=PARTIAL, texts=texts, similarity=m.similarity, probability=probability)


class ScoreAndFilterFn(MiningDoFn):
    """[SciParaphraseExample] -> records whose two sentences stand alone (`ps.stand_alone_reasons`: no
    heading, no "... as follows") and that pass §4.2 (BERTScore and length rate per method)."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "filter")
        self.params = params
        self._scorer = None
        self._nlp = None

    def setup(self):
        from miners.nlp.pos import load_tagger_parser
        from miners.quality.scoring import EmbeddingBertScorer
        self._scorer = EmbeddingBertScorer.for_params(self.params)
        self._nlp = load_tagger_parser()

    def process(self, batch):
        # Both sentences must be stand-alone statements (no heading, no "... the following form").
        kept = []
        for r, reason in zip(batch, ps.stand_alone_reasons(self._nlp, batch)):
            if reason:
                yield self.reject(reason, r.source, f"{r.paper_id} {r.other_paper_id}",
                                  f"{r.method} p={r.paraphrase_probability:.3f}", r.to_json())
            else:
                kept.append(r)
        batch = kept
        if not batch:
            return
        scores = self._scorer.score([r.tgt for r in batch], [r.src for r in batch])
        for r, score in zip(batch, scores):
            r = dataclasses.replace(r, bertscore=score)
            reason = ps.filter_reason(r, self.params.thresholds)
            if reason:
                yield self.reject(reason, r.source, f"{r.paper_id} {r.other_paper_id}",
                                  f"{r.method} bertscore={score:.3f} plr={r.length_rate:.2f}", r.to_json())
                continue
            self.inc(f"passed:{r.method}")
            yield r


class BestPairFn(MiningDoFn):
    """(sentence id, [record]) -> (pair id, record) for the sentence's best pair (`ps.pair_rank`)."""

    def __init__(self):
        super().__init__(DATASET, "best_pair")

    def process(self, element):
        _, records = element
        best = min(records, key=ps.pair_rank)
        yield _pair_id(best), best


class KeepIfBestOfBothFn(MiningDoFn):
    """(pair id, [record, ...]) -> the record when both its sentences chose it; else a reject."""

    def __init__(self):
        super().__init__(DATASET, "best_pair")

    def process(self, element):
        _, records = element
        r = records[0]
        if len(records) >= 2 or len(set(ps.sentence_ids(r))) == 1:
            self.inc(f"passed:{r.method}")
            yield r
            return
        yield self.reject("sentence_in_a_better_pair", r.source, f"{r.paper_id} {r.other_paper_id}",
                          f"{r.method} p={r.paraphrase_probability:.3f}", r.to_json())


def _score_sort_key(r: SciParaphraseExample) -> str:
    """Orders the records of a scoring bucket: the record without its model scores (records.shard_key)."""
    return r.shard_key()


def _pair_id(r: SciParaphraseExample) -> str:
    return "\t".join(ps.sentence_ids(r))


class KeepBestPairs(beam.PTransform):
    """Each sentence is kept in its best pair only: a pair survives when it is the best pair of both
    its sentences (a restatement cluster of three sentences yields one pair, not three). The others
    are rejected (`sentence_in_a_better_pair`); `ps.best_pairs` is the same rule in memory."""

    def expand(self, records):
        chosen = (records
                  | "BySentence" >> beam.FlatMap(lambda r: [(sid, r) for sid in ps.sentence_ids(r)])
                  | "GroupBySentence" >> beam.GroupByKey()
                  | "Best" >> beam.ParDo(BestPairFn()).with_outputs(REJECTS, COUNTS, main="chosen"))
        kept = (chosen.chosen
                | "GroupByPair" >> beam.GroupByKey()
                | "BestOfBoth" >> beam.ParDo(KeepIfBestOfBothFn()).with_outputs(REJECTS, COUNTS, main="kept"))
        return {"kept": kept.kept,
                REJECTS: (chosen[REJECTS], kept[REJECTS]) | "FlattenBestRejects" >> beam.Flatten(),
                COUNTS: (chosen[COUNTS], kept[COUNTS]) | "FlattenBestCounts" >> beam.Flatten()}


def split_nodes(r: SciParaphraseExample) -> typing.List[str]:
    """The nodes a record ties together for split assignment: its two sentences (paper id and
    normalised text), and, for a pair inside one paper, that paper (so all of a paper's in-paper
    pairs share a split)."""
    a = f"s|{r.paper_id}|{ps.normalise_text(r.src)}"
    b = f"s|{r.other_paper_id}|{ps.normalise_text(r.tgt)}"
    nodes = [a, b]
    if r.paper_id == r.other_paper_id:
        nodes.append(f"p|{r.paper_id}")
    return nodes


class ComponentsFn(beam.CombineFn):
    """Node lists -> {node: the smallest node of its connected component} (union-find, one pass).

    Holds every node of the written pairs once: the pairs are few (about one per paper), their
    sentences are what is held, not the papers' text."""

    def create_accumulator(self):
        return []

    def add_input(self, acc, nodes):
        acc.append(tuple(nodes))
        return acc

    def merge_accumulators(self, accs):
        out = []
        for a in accs:
            out.extend(a)
        return out

    def extract_output(self, acc):
        parent = {}

        def find(x):
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for nodes in acc:
            roots = sorted({find(n) for n in nodes})
            for other in roots[1:]:
                parent[other] = roots[0]
        return {n: find(n) for n in parent}


class AssignSplitsFn(MiningDoFn):
    """record -> (variant, split, record), the split a hash of the record's connected component:
    no pair is dropped, no sentence is in two splits, a paper's in-paper pairs share one split."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "split")
        self.params = params

    def process(self, r: SciParaphraseExample, components):
        root = components[split_nodes(r)[0]]
        split = assign_split(root, self.params.split_ratios)
        self.inc(f"passed:{split}")
        yield VARIANT, split, r


class AssignSplits(beam.PTransform):
    """records -> (variant, split, record) by connected components of sentences (and papers)."""

    def __init__(self, params: Params):
        super().__init__()
        self.params = params

    def expand(self, records):
        components = (records
                      | "Nodes" >> beam.Map(split_nodes)
                      | "Components" >> beam.CombineGlobally(ComponentsFn()))
        out = records | "Assign" >> beam.ParDo(AssignSplitsFn(self.params),
                                               pvalue.AsSingleton(components)).with_outputs(
            REJECTS, COUNTS, main="presplit")
        return out


class CapPaperFn(MiningDoFn):
    """(paper id, [in-paper record]) -> the paper's `max_pairs_per_paper` best (`ps.paper_rank`); the
    others are rejected `paper_cap`."""

    def __init__(self, params: Params):
        super().__init__(DATASET, "paper_cap")
        self.params = params

    def process(self, element):
        _, records = element
        kept, dropped = ps.cap_per_paper(records, self.params.max_pairs_per_paper)
        for r in kept:
            self.inc(f"passed:{r.method}")
            yield r
        for r in dropped:
            yield self.reject("paper_cap", r.source, f"{r.paper_id} {r.other_paper_id}",
                              f"{r.method} bertscore={r.bertscore:.3f} p={r.paraphrase_probability:.3f} "
                              f"(the paper's best: {kept[0].bertscore:.3f})", r.to_json())


class CapPerPaper(beam.PTransform):
    """At most `max_pairs_per_paper` in-paper pairs (`ps.IN_PAPER_METHODS`) per paper, its best by
    BERTScore F1; cross-paper pairs pass. 0 turns the cap off (the stage is then left out)."""

    def __init__(self, params: Params):
        super().__init__()
        self.params = params

    def expand(self, records):
        if self.params.max_pairs_per_paper <= 0:
            return {"kept": records, REJECTS: records.pipeline | "NoCapRejects" >> beam.Create([]),
                    COUNTS: records.pipeline | "NoCapCounts" >> beam.Create([])}
        parts = records | "InPaper" >> beam.Partition(lambda r, _n: 0 if r.method in ps.IN_PAPER_METHODS else 1, 2)
        capped = (parts[0]
                  | "ByPaper" >> beam.Map(lambda r: (r.paper_id, r))
                  | "GroupByPaper" >> beam.GroupByKey()
                  | "Cap" >> beam.ParDo(CapPaperFn(self.params)).with_outputs(REJECTS, COUNTS, main="kept"))
        kept = (capped.kept, parts[1]) | "FlattenCapped" >> beam.Flatten()
        return {"kept": kept, REJECTS: capped[REJECTS], COUNTS: capped[COUNTS]}


def _tagged(out, main):
    return out[main], out[REJECTS], out[COUNTS]


class MineSciParaphrases(beam.PTransform):
    """PCollection[Paper] -> {"presplit": (variant, split, record), "rejects", "counts"}."""

    def __init__(self, params: Params = Params()):
        super().__init__()
        self.params = params

    def expand(self, papers):
        p = self.params
        rejects, counts = [], []

        def take(out, main):
            rejects.append(out[REJECTS])
            counts.append(out[COUNTS])
            return out[main]

        papers = take(papers | "DedupPapers" >> DedupPapers(), "papers")
        sentences = take(papers | "SplitSentences" >> beam.ParDo(SplitSentencesFn(p)).with_outputs(
            REJECTS, COUNTS, main="sentences"), "sentences")
        embedded = take(sentences | "Embed" >> Embed(p), "embedded")
        members = embedded | "GroupMemberships" >> beam.FlatMap(group_memberships, p.methods)
        candidates = take(members | "FindCandidates" >> FindCandidates(p), "candidates")
        classified = candidates | "Classify" >> beam.ParDo(ClassifyFn(p)).with_outputs(
            PARTIAL, REJECTS, COUNTS, main="pairs")
        rejects.append(classified[REJECTS])
        counts.append(classified[COUNTS])
        partial = take(classified[PARTIAL] | "Partial" >> ExtractPartial(p), "pairs")
        records = (classified.pairs, partial) | "AllPairs" >> beam.Flatten()
        scored = take(records
                      | "BatchScore" >> DeterministicBatches(_score_sort_key, p.bertscore_batch,
                                                             salt="parasci-score")
                      | "ScoreAndFilter" >> beam.ParDo(ScoreAndFilterFn(p)).with_outputs(
                          REJECTS, COUNTS, main="kept"), "kept")
        best = take(scored | "KeepBestPairs" >> KeepBestPairs(), "kept")
        if p.max_pairs_per_paper > 0:  # off by default: no stage at all then
            best = take(best | "CapPerPaper" >> CapPerPaper(p), "kept")
        presplit = take(best | "AssignSplits" >> AssignSplits(p), "presplit")
        return {"presplit": presplit,
                REJECTS: rejects | "FlattenRejects" >> beam.Flatten(),
                COUNTS: counts | "FlattenCounts" >> beam.Flatten()}


# ------------------------------------------------------------------ Table 2 of the output

def table2_counts(element):
    """(variant, split, record) -> counter increments from which Table 2 is derived (see
    `derive_table2`): pairs, words, characters, BLEU statistics, pairs per method."""
    _, split, r = element
    stats = ps.bleu_statistics(r.tgt, r.src)
    yield "_stats/table2/pairs", 1
    yield "_stats/table2/words", len(r.src.split()) + len(r.tgt.split())
    yield "_stats/table2/chars", len(r.src) + len(r.tgt)
    yield f"_stats/table2/method:{r.method}", 1
    for i, x in enumerate(stats):
        yield f"_stats/table2/bleu_{i}", int(x)


def derive_table2(counts: typing.Dict[str, int]) -> dict:
    """ParaSCI Table 2 of the written output, from the summed `table2_counts`."""
    n = counts.get("_stats/table2/pairs", 0)
    stats = [counts.get(f"_stats/table2/bleu_{i}", 0) for i in range(10)]
    per_method = {k.split(":", 1)[1]: v for k, v in counts.items() if k.startswith("_stats/table2/method:")}
    out = ps.summarise_table2(n, counts.get("_stats/table2/words", 0), counts.get("_stats/table2/chars", 0), stats,
                              per_method)
    # Table 2's "Size": the candidates before the §4.2 filters, i.e. the pairs the decision kept (whole
    # pairs and extracted partial pairs) that BERTScore and the length rate then judged.
    size = {k.split(":", 1)[1]: v for k, v in counts.items() if k.startswith("candidates/passed:")}
    if counts.get("partial/passed"):
        size["partial"] = size.get("partial", 0) + counts["partial/passed"]
    out["size_before_filters"] = sum(size.values())
    out["size_before_filters_per_method"] = dict(sorted(size.items()))
    return out
