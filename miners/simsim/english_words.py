"""English words for checking back-translations: the CMU Pronouncing Dictionary and the
system's English word lists.

    words = load()            # a frozenset of lower-case words (about 190,000)
    "photosynthesis" in words

The CMU dictionary ships with the language model SimSim uses by default: the PyPI
`pocketsphinx` package's `en-us/cmudict-en-us.dict`, the same file as Debian's
`pocketsphinx-en-us` (used when the package's copy is missing). A line is
`word[(n)] phones...`; alternative pronunciations (`read(2)`) name the same word.

CMU lists pronunciations, not inflections or British spellings: it lacks "chevrons",
"readiest", "favourable", "generalisation". The word lists of Debian's `wamerican` and
`wbritish` (/usr/share/dict/american-english, british-english: one word per line, with
plurals, inflections and both spellings) fill that in; they are added when installed
(tools/debian-packages.txt installs them) and `sources()` names what was read.
"""
import os
import threading
from typing import FrozenSet, Optional, Tuple

DICTIONARY_FILE = "cmudict-en-us.dict"
WORD_LISTS = ("/usr/share/dict/american-english", "/usr/share/dict/british-english")
_LOADED = {}
_LOCK = threading.Lock()


class DictionaryUnavailable(Exception):
    """No dictionary file: the message names the option and the package."""


def default_path() -> Optional[str]:
    """cmudict-en-us.dict of the pocketsphinx package, else of Debian's pocketsphinx-en-us; None if neither."""
    from miners.simsim.lm import DEBIAN_MODEL_DIR  # pylint: disable=import-outside-toplevel
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


def word_lists() -> Tuple[str, ...]:
    """The installed system word lists of WORD_LISTS."""
    return tuple(p for p in WORD_LISTS if os.path.isfile(p))


def sources(path: Optional[str] = None, lists: bool = True) -> Tuple[str, ...]:
    """The files `load(path, lists)` reads."""
    return ((path or default_path() or DICTIONARY_FILE),) + (word_lists() if lists else ())


def load(path: Optional[str] = None, lists: bool = True) -> FrozenSet[str]:
    """The words of the CMU dictionary at `path` (default: pocketsphinx's), with those of the
    installed system word lists unless `lists` is false; once per process."""
    path = path or default_path()
    if not path or not os.path.isfile(path):
        raise DictionaryUnavailable(
            f"English dictionary {path or DICTIONARY_FILE!r} not found: pip install pocketsphinx (or apt-get install "
            f"pocketsphinx-en-us), or pass --english_dictionary PATH (a CMU dictionary file)")
    extra = word_lists() if lists else ()
    key = (path,) + extra
    with _LOCK:
        if key not in _LOADED:
            with open(path, encoding="utf-8", errors="replace") as f:
                words = set(parse(f))
            for name in extra:
                with open(name, encoding="utf-8", errors="replace") as f:
                    words.update(w.strip().lower() for w in f if w.strip())
            _LOADED[key] = frozenset(words)
        return _LOADED[key]
