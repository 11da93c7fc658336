"""Discovery-hard: drop the examples whose marker is easy to guess from s2 alone.

Sileo et al., NAACL 2019, section 3 ("DiscoveryHard"): a fastText classifier
(Joulin et al. 2017) predicts the marker from the second sentence only, by
5-fold cross-prediction (each example is predicted by a model that did not
see it); examples whose gold marker is among the top-5 predictions are
removed. Training settings from the paper: 1 epoch, dimension 100, word
n-grams up to 3, learning rate 0.5.

Determinism: fastText's Hogwild SGD is nondeterministic with several threads,
so training uses `thread=1`, a fixed `seed` and training lines sorted by a
stable hash. Measured with fasttext 0.9.3 here: that is enough for the FIRST
model trained in a Python process (byte-identical models over 5 fresh
processes), but a second or third training in the same process gave different
models and, in about half the tries, "RuntimeError: Encountered NaN" (the
same data and settings). Training therefore runs in a fresh interpreter
(`subprocess`), which made it reproducible and NaN-free in every try
(tests/miners/discovery/test_hard.py trains twice and compares the bytes).

For scale, each fold's model is trained on a bounded per-marker sample
(`train_per_marker`), chosen by stable hash, and serialised to bytes so that
a Beam job can broadcast it as a side input.
"""
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from typing import Dict, Iterable, List, Sequence, Tuple

from miners.discovery.pairs import example_rank, pair_key, stable_hash
from schemas.records import MarkerExample

# Section 3 (DiscoveryHard): 5 folds, top-5, fastText 1 epoch / dim 100 / word n-grams 3 / lr 0.5.
HARD_FOLDS = 5
HARD_TOP_K = 5
HARD_EPOCH = 1
HARD_DIM = 100
HARD_WORD_NGRAMS = 3
HARD_LR = 0.5
# Not from the paper: bound the training sample per marker and fold, and the hash
# buckets of the n-gram table (fastText's default 2M buckets x dim 100 is an 800 MB
# model, too big to broadcast; 100k buckets is 40 MB).
HARD_TRAIN_PER_MARKER = 20_000
HARD_BUCKET = 100_000
HARD_SEED = 0

_LABEL = "__label__"

_TRAIN_SCRIPT = """
import json, sys
import fasttext
model = fasttext.train_supervised(**json.loads(sys.argv[1]))
model.save_model(sys.argv[2])
"""


@dataclasses.dataclass(frozen=True)
class HardConfig:
    folds: int = HARD_FOLDS
    top_k: int = HARD_TOP_K
    epoch: int = HARD_EPOCH
    dim: int = HARD_DIM
    word_ngrams: int = HARD_WORD_NGRAMS
    lr: float = HARD_LR
    bucket: int = HARD_BUCKET
    train_per_marker: int = HARD_TRAIN_PER_MARKER
    seed: int = HARD_SEED


def fold_of(example: MarkerExample, folds: int = HARD_FOLDS, seed: int = HARD_SEED) -> int:
    """The example's fold, from a stable hash of (doc id, sentence index)."""
    return stable_hash(pair_key(example.doc_id, example.sentence_index), f"{seed}|fold") % folds


def train_rank(example: MarkerExample, seed: int = HARD_SEED) -> int:
    """Order in which examples enter a training sample (lowest first)."""
    return example_rank(example, seed, "hard_train")


def _text(sentence: str) -> str:
    # fastText reads one example per line and splits on whitespace.
    return " ".join(sentence.lower().split())


def training_line(example: MarkerExample) -> str:
    return f"{_LABEL}{example.label_name} {_text(example.sentence2)}"


def train_model(examples: Iterable[MarkerExample], config: HardConfig = HardConfig()) -> bytes:
    """Train the s2 -> marker classifier; returns the model file's bytes.

    Examples are sorted by their stable rank first, so the model does not
    depend on the order in which a runner delivered them.
    """
    ordered = sorted(examples, key=lambda e: (train_rank(e, config.seed), e.doc_id, e.sentence_index))
    if not ordered:
        raise ValueError("no training examples for the hard filter")
    with tempfile.TemporaryDirectory(prefix="discovery_hard_") as tmp:
        train_path = os.path.join(tmp, "train.txt")
        with open(train_path, "w", encoding="utf-8") as f:
            for ex in ordered:
                f.write(training_line(ex) + "\n")
        model_path = os.path.join(tmp, "model.bin")
        settings = dict(input=train_path, epoch=config.epoch, dim=config.dim, wordNgrams=config.word_ngrams,
                        lr=config.lr, bucket=config.bucket, thread=1, seed=config.seed, verbose=0, minCount=1)
        # A fresh interpreter per training: see the module docstring (fastText 0.9.3
        # is only reproducible for the first model trained in a process).
        proc = subprocess.run([sys.executable, "-c", _TRAIN_SCRIPT, json.dumps(settings), model_path],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"fastText training failed: {proc.stderr.strip()[-1000:]}")
        with open(model_path, "rb") as f:
            return f.read()


class HardClassifier:
    """A trained model (bytes from `train_model`): top-k markers of s2."""

    def __init__(self, model_bytes: bytes):
        import fasttext  # pylint: disable=import-outside-toplevel
        fd, path = tempfile.mkstemp(prefix="discovery_hard_", suffix=".bin")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(model_bytes)
            self._model = fasttext.load_model(path)
        finally:
            os.unlink(path)

    def top_labels(self, sentences: Sequence[str], k: int = HARD_TOP_K) -> List[List[str]]:
        if not sentences:
            return []
        labels, _ = self._model.predict([_text(s) for s in sentences], k=k)
        return [[l[len(_LABEL):] for l in labs] for labs in labels]

    def predictable(self, examples: Sequence[MarkerExample], k: int = HARD_TOP_K) -> List[bool]:
        """True where the gold marker is among the top-k predictions (the example is dropped)."""
        tops = self.top_labels([e.sentence2 for e in examples], k)
        return [e.label_name in top for e, top in zip(examples, tops)]


def training_sample(examples: Iterable[MarkerExample], fold: int, config: HardConfig = HardConfig()
                    ) -> List[MarkerExample]:
    """Examples outside `fold`, at most `train_per_marker` per label (lowest rank first)."""
    by_label: Dict[str, List[Tuple[int, MarkerExample]]] = {}
    for ex in examples:
        if fold_of(ex, config.folds, config.seed) != fold:
            by_label.setdefault(ex.label_name, []).append((train_rank(ex, config.seed), ex))
    out = []
    for label in sorted(by_label):
        out += [ex for _, ex in sorted(by_label[label], key=lambda t: t[0])[:config.train_per_marker]]
    return out


def hard_filter(examples: Sequence[MarkerExample], config: HardConfig = HardConfig(),
                inc=None) -> Tuple[List[MarkerExample], List[MarkerExample]]:
    """In-memory cross-prediction: (kept, removed). The Beam stage does the same per fold.

    Counters: `hard/passed`, `hard/filtered:predictable`.
    """
    kept, removed = [], []
    folds: Dict[int, List[MarkerExample]] = {}
    for ex in examples:
        folds.setdefault(fold_of(ex, config.folds, config.seed), []).append(ex)
    for fold in sorted(folds):
        sample = training_sample(examples, fold, config)
        if not sample:  # nothing to learn from: nothing is predictable
            kept += folds[fold]
            continue
        clf = HardClassifier(train_model(sample, config))
        for ex, easy in zip(folds[fold], clf.predictable(folds[fold], config.top_k)):
            (removed if easy else kept).append(ex)
    if inc is not None:
        if kept:
            inc("hard/passed", len(kept))
        if removed:
            inc("hard/filtered:predictable", len(removed))
    return kept, removed
