"""English words for checking back-translations: the CMU Pronouncing Dictionary.

    words = load()            # a frozenset of lower-case words (about 126,000)
    "photosynthesis" in words

The dictionary ships with the language model SimSim uses by default: the PyPI
`pocketsphinx` package's `en-us/cmudict-en-us.dict`, the same file as Debian's
`pocketsphinx-en-us` (used when the package's copy is missing). A line is
`word[(n)] phones...`; alternative pronunciations (`read(2)`) name the same word.
"""
import os
import threading
from typing import FrozenSet, Optional

DICTIONARY_FILE = "cmudict-en-us.dict"
_LOADED = {}
_LOCK = threading.Lock()


class DictionaryUnavailable(Exception):
    """No dictionary file: the message names the option and the package."""


def default_path() -> Optional[str]:
    """cmudict-en-us.dict of the pocketsphinx package, else of Debian's pocketsphinx-en-us; None if neither."""
    from miners.nlp.lm import DEBIAN_MODEL_DIR  # pylint: disable=import-outside-toplevel
    candidates = []
    try:
        import pocketsphinx  # pylint: disable=import-outside-toplevel
        candidates.append(os.path.join(pocketsphinx.get_model_path(), "en-us", DICTIONARY_FILE))
        candidates.append(os.path.join(pocketsphinx.get_model_path(), DICTIONARY_FILE))
    except ImportError:
        pass
    candidates.append(os.path.join(DEBIAN_MODEL_DIR, DICTIONARY_FILE))
    return next((p for p in candidates if os.path.isfile(p)), None)


def parse(lines) -> FrozenSet[str]:
    """The words of CMU dictionary lines (`word(2) phones` -> `word`), lower-cased."""
    out = set()
    for line in lines:
        head = line.split(" ", 1)[0].strip()
        if not head or head.startswith(";;;"):
            continue
        out.add(head.split("(", 1)[0].lower())
    return frozenset(out)


def load(path: Optional[str] = None) -> FrozenSet[str]:
    """The dictionary's words (once per process and path)."""
    path = path or default_path()
    if not path or not os.path.isfile(path):
        raise DictionaryUnavailable(
            f"English dictionary {path or DICTIONARY_FILE!r} not found: pip install pocketsphinx (or apt-get install "
            f"pocketsphinx-en-us), or pass --english_dictionary PATH (a CMU dictionary file)")
    with _LOCK:
        if path not in _LOADED:
            with open(path, encoding="utf-8", errors="replace") as f:
                _LOADED[path] = parse(f)
        return _LOADED[path]
