"""Language-model scorers behind one batched interface: mean per-token negative log-likelihood.

    lm = make_language_model("default").load()     # CMU's US English trigram model, offline
    lm.mean_nll(["The cat sat on the mat.", "Mat the on sat cat the."])   # [lower, higher]
    lm.name                                         # "pocketsphinx:en-us.lm.bin"

SimSim ranks the back-translations of one seed by this value (lower = more
natural); the values are natural logs and comparable between candidates scored
by the same model, not between models.

Kinds:

  * `default`: CMU's generic US English trigram model (`en-us.lm.bin`: 72,547
    unigrams, about 2M bigrams), read with `pocketsphinx.NGramModel`. The
    PyPI `pocketsphinx` package ships it (the same bytes as Debian's
    `pocketsphinx-en-us`, which is used when the package's copy is missing), so a
    fresh machine needs nothing else. Limits: it was built for speech
    recognition, so its vocabulary is lower-case words without punctuation or
    digits; text is scored as lower-case words, punctuation ignored, and each
    word outside the vocabulary (digits, rare names, most technical terms)
    costs a flat `OOV_LOGPROB`; a trigram window sees little of a sentence's
    grammar, so it ranks fluency locally, far more coarsely than GPT-2.
  * `kenlm`: any ARPA or KenLM binary file (`--lm_path`), the same words,
    lower-cased, with `<s>` / `</s>`; unknown words get the model's own `<unk>`.
  * `transformers`: a causal LM saved in a local directory (`--lm_path`, e.g.
    GPT-2, as the paper), never downloaded; batched with padding, every token
    after a leading `<|endoftext|>` scored, plus the closing one.
"""
import math
import os
import re
import threading
from typing import List, Optional, Sequence

from miners.nlp.ct2 import MODEL_THREADS
from schemas.base import quantize_score

DEFAULT_MODEL_FILE = "en-us.lm.bin"
DEBIAN_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us"  # Debian package pocketsphinx-en-us
# A word the trigram model does not know: ln(1e-8), below its rare unigrams ("photosynthesis": about ln(4e-7)).
OOV_LOGPROB = math.log(1e-8)
_LOADED = {}  # (path, device) -> (tokenizer, model): one causal LM per process, shared by the stages
_LOCK = threading.Lock()
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


class LanguageModelUnavailable(Exception):
    """The model (or its library) is missing; the message names --lm / --lm_path and what to install."""


def words(text: str) -> List[str]:
    """The n-gram models' tokens: lower-case words, apostrophes kept inside (`don't`), punctuation dropped."""
    return _WORD.findall(str(text).lower().replace("’", "'"))


def default_model_path() -> Optional[str]:
    """en-us.lm.bin from the pocketsphinx package's data, else Debian's pocketsphinx-en-us; None if neither."""
    candidates = []
    try:
        import pocketsphinx  # pylint: disable=import-outside-toplevel
        candidates.append(os.path.join(pocketsphinx.get_model_path(), DEFAULT_MODEL_FILE))
    except ImportError:
        pass
    candidates.append(os.path.join(DEBIAN_MODEL_DIR, DEFAULT_MODEL_FILE))
    return next((p for p in candidates if os.path.isfile(p)), None)


class PocketsphinxLM:
    """A CMU Sphinx n-gram model (DMP / binary / ARPA) through `pocketsphinx.NGramModel`."""

    def __init__(self, path: Optional[str] = None, batch_size: int = 64):
        self.path = path or default_model_path()
        self.batch_size = batch_size
        self._model = self._logmath = None

    @property
    def name(self) -> str:
        return f"pocketsphinx:{os.path.basename(self.path or DEFAULT_MODEL_FILE)}"

    def load(self) -> "PocketsphinxLM":
        if self._model is None:
            from pocketsphinx import Config, LogMath, NGramModel  # pylint: disable=import-outside-toplevel
            self._logmath = LogMath()
            self._model = NGramModel(Config(), self._logmath, self.path)
            self._zero = self._logmath.get_zero()
            self._order = self._model.size()
        return self

    def logprob(self, word: str, history: Sequence[str]) -> float:
        """ln P(word | history), history oldest first; OOV_LOGPROB for an unknown word."""
        context = list(history[-(self._order - 1):])[::-1] if self._order > 1 else []
        raw = self._model.prob([word] + context)
        if raw <= self._zero // 2:
            return OOV_LOGPROB
        return self._logmath.log_to_ln(raw)

    def sentence_logprobs(self, text: str) -> List[float]:
        tokens = ["<s>"] + words(text) + ["</s>"]
        return [self.logprob(tokens[i], tokens[:i]) for i in range(1, len(tokens))]

    def mean_nll(self, texts: Sequence[str]) -> List[float]:
        """The same values as `sentence_logprobs`, in one loop per sentence (the hot path: no
        per-word method call or history copy; pocketsphinx's log values are linear in ln)."""
        self.load()
        prob, zero, ln_unit = self._model.prob, self._zero // 2, self._logmath.log_to_ln(1)
        keep = self._order - 1
        out = []
        for text in texts:
            tokens = ["<s>"] + words(text) + ["</s>"]
            total = 0.0
            for i in range(1, len(tokens)):
                raw = prob([tokens[i]] + tokens[max(0, i - keep):i][::-1] if keep else [tokens[i]])
                total += OOV_LOGPROB if raw <= zero else raw * ln_unit
            out.append(quantize_score(-total / (len(tokens) - 1)))
        return out


class KenLM:
    """An ARPA or KenLM binary file through the `kenlm` module."""

    def __init__(self, path: str, batch_size: int = 64):
        self.path = path
        self.batch_size = batch_size
        self._model = None

    @property
    def name(self) -> str:
        return f"kenlm:{os.path.basename(self.path)}"

    def load(self) -> "KenLM":
        if self._model is None:
            import kenlm  # pylint: disable=import-outside-toplevel
            self._model = kenlm.Model(self.path)
        return self

    def mean_nll(self, texts: Sequence[str]) -> List[float]:
        self.load()
        out = []
        score, ln10 = self._model.score, math.log(10)
        for text in texts:
            tokens = words(text)
            # score(): the log10 probability summed in C (full_scores' per-word tuples, summed in Python,
            # gave the same value at 2.3x the cost); one score per word and one for </s>.
            out.append(quantize_score(-score(" ".join(tokens), bos=True, eos=True) * ln10 / (len(tokens) + 1)))
        return out


class TransformersLM:
    """A causal LM (GPT-2 or similar) saved in a local directory; batched, right-padded, no gradients.
    Loaded once per process (SimSim's selection and substitution stages share it)."""

    def __init__(self, path: str, batch_size: int = 64, device: str = "cpu", max_tokens: int = 512):
        self.path = path
        self.batch_size = max(1, int(batch_size))
        self.device = device
        self.max_tokens = max_tokens
        self._model = self._tok = None

    @property
    def name(self) -> str:
        return f"transformers:{os.path.basename(os.path.normpath(self.path))}"

    def load(self) -> "TransformersLM":
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from transformers import AutoModelForCausalLM, AutoTokenizer  # pylint: disable=import-outside-toplevel
            key = (os.path.abspath(self.path), self.device)
            with _LOCK:
                if key not in _LOADED:
                    tok = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
                    model = AutoModelForCausalLM.from_pretrained(self.path, local_files_only=True).to(self.device)
                    _LOADED[key] = (tok, model.eval())
                self._tok, self._model = _LOADED[key]
            if self._tok.bos_token_id is None and self._tok.eos_token_id is None:
                raise LanguageModelUnavailable(f"--lm_path {self.path}: the tokenizer has neither a BOS nor an EOS "
                                               f"token, so the first and last words cannot be scored")
        return self

    def _ids(self, text: str) -> List[int]:
        tok = self._tok
        bos = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        eos = tok.eos_token_id if tok.eos_token_id is not None else bos
        ids = tok.encode(str(text), add_special_tokens=False)[: self.max_tokens - 2]
        return [bos] + ids + [eos]

    def mean_nll(self, texts: Sequence[str]) -> List[float]:
        import torch  # pylint: disable=import-outside-toplevel
        self.load()
        torch.set_num_threads(MODEL_THREADS)
        encoded = [self._ids(t) for t in texts]
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))  # similar lengths share a batch
        out = [0.0] * len(encoded)
        with torch.no_grad():
            for start in range(0, len(order), self.batch_size):
                chunk = order[start:start + self.batch_size]
                width = max(len(encoded[i]) for i in chunk)
                ids = torch.zeros((len(chunk), width), dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for row, i in enumerate(chunk):
                    ids[row, :len(encoded[i])] = torch.tensor(encoded[i])
                    mask[row, :len(encoded[i])] = 1
                logits = self._model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device)).logits
                logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
                target = ids[:, 1:].to(self.device)
                token_lp = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1) * mask[:, 1:].to(self.device)
                sums = token_lp.sum(dim=1).cpu().tolist()
                for row, i in enumerate(chunk):
                    out[i] = quantize_score(-sums[row] / (len(encoded[i]) - 1))
        return out


def make_language_model(kind: str, path: Optional[str] = None, batch_size: int = 64):
    """A scorer of `kind` ("default", "kenlm", "transformers"), not loaded yet (call `.load()` in setup)."""
    if kind == "default":
        return PocketsphinxLM(path, batch_size=batch_size)
    if kind == "kenlm":
        return KenLM(path or "", batch_size=batch_size)
    if kind == "transformers":
        return TransformersLM(path or "", batch_size=batch_size)
    raise LanguageModelUnavailable(f"--lm {kind!r}: unknown; choose default, transformers or kenlm")


def check_language_model(kind: str, path: Optional[str] = None) -> str:
    """The model's name for the manifest; raises LanguageModelUnavailable naming the option and the fix."""
    if kind == "default":
        try:
            import pocketsphinx  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        except ImportError as e:
            raise LanguageModelUnavailable("--lm default: the pocketsphinx module is not installed; "
                                           "pip install pocketsphinx (it ships en-us.lm.bin)") from e
        found = path or default_model_path()
        if not found or not os.path.isfile(found):
            raise LanguageModelUnavailable(
                f"--lm default: {found or DEFAULT_MODEL_FILE} not found; pip install pocketsphinx (ships it) "
                f"or apt-get install pocketsphinx-en-us ({DEBIAN_MODEL_DIR}), or set --lm_path to an n-gram file")
        return make_language_model(kind, found).name
    if kind == "kenlm":
        try:
            import kenlm  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        except ImportError as e:
            raise LanguageModelUnavailable("--lm kenlm: the kenlm module is not installed; pip install kenlm") from e
        if not path or not os.path.isfile(path):
            raise LanguageModelUnavailable(f"--lm_path {path or ''!r}: --lm kenlm needs an ARPA or KenLM binary file")
        return make_language_model(kind, path).name
    if kind == "transformers":
        try:
            import torch  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
            import transformers  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        except ImportError as e:
            raise LanguageModelUnavailable(f"--lm transformers: {e.name} is not installed; "
                                           f"pip install torch transformers") from e
        if not path or not os.path.isfile(os.path.join(path, "config.json")):
            raise LanguageModelUnavailable(
                f"--lm_path {path or ''!r}: --lm transformers needs a directory with config.json, the weights and the "
                f"tokenizer of a causal LM (e.g. GPT-2 saved with save_pretrained; nothing is downloaded)")
        return make_language_model(kind, path).name
    raise LanguageModelUnavailable(f"--lm {kind!r}: unknown; choose default, transformers or kenlm")
