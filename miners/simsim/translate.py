"""Machine translators behind one batched interface, for SimSim's back-translation (English -> pivot -> English).

    translator = make_translator("apertium").load()           # Debian packages, the offline default
    translator.pivots()                                       # ('ca', 'eo', 'es', 'gl', 'hbs') here
    outputs, error = back_translate_batch(translator, ["The cat sat on the mat."], "es")

Two kinds:

  * `apertium`: rule-based, CPU only, from Debian (`apt-get install apertium
    apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eo-en
    apertium-hbs-eng`). A pivot is any language with a mode in both directions
    (`eng-spa` and `spa-eng`, ...; the US English variant of the way back,
    `spa-eng_US`, where installed). One `apertium` process per batch and
    direction (`-u` on the way out; on the way back without it, so Apertium
    marks each word it could not analyse `*`, translate `@` or generate `#`:
    `back_translate_checked` reports those the seed lacks, SimSim drops their
    candidates): one sentence per line (the text deformatter closes every line
    without final punctuation as a sentence, so lines do not merge; `-f line`
    does too but drops final full stops), newlines inside a sentence become
    spaces, and the output must have exactly as many lines as the input or the
    batch fails. Measured (bench/bench_simsim.py, 2 busy cores): 1,000 enwiki
    sentences (20.7k words) English -> Spanish -> English in about 5 s of CPU,
    processes included; 29 of 1,000 come back unchanged.
  * `ctranslate2`: Marian / OPUS-MT models converted to CTranslate2 (int8 on
    CPU), read from `ct2_model_dir`, one folder per direction (`en-es` and
    `es-en`, ...). Tokenised with the folder's SentencePiece files
    (`source.spm`, `target.spm`, as OPUS-MT ships them) or, failing that, a
    `transformers` tokenizer saved in the folder.

A batch that crashes or runs past `timeout` seconds (per call, one batch in one
direction) comes back from `back_translate_batch` as an error, never an
exception: the Beam stage turns its seeds into rejects and goes on.
"""
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

DEFAULT_TIMEOUT = 300.0  # seconds per call; 1,000 sentences take about 1 s per direction with apertium
DEFAULT_BEAM_SIZE = 4  # CTranslate2 beam; OPUS-MT's own default is larger, 4 keeps CPU cost down

# Debian's English pairs (both directions installed) and the pivot code each is known by.
APERTIUM_PIVOTS = {
    "es": ("eng-spa", "spa-eng"),
    "ca": ("eng-cat", "cat-eng"),
    "gl": ("en-gl", "gl-en"),
    "eo": ("en-eo", "eo-en"),
    "hbs": ("eng-hbs", "hbs-eng"),
}
APERTIUM_PACKAGES = "apertium apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eo-en apertium-hbs-eng"
_ISO3_TO_1 = {"spa": "es", "cat": "ca", "glg": "gl", "epo": "eo", "fra": "fr", "por": "pt", "ita": "it",
              "deu": "de", "nld": "nl", "ron": "ro", "oci": "oc", "arg": "an", "ast": "ast", "eus": "eu"}
# Apertium marks words it could not analyse (*), transfer (@) or generate (#): at a word's start, and
# inside a word that a hyphen or a number begins ("FLEC-*FAC", "the 1850*s": issue 34).
_MARKED = re.compile(r"(?<![^\s(\"'¿¡\-\d])[*@#](?=\w)")


class TranslatorUnavailable(Exception):
    """The translator or a pivot is not installed; the message names the option and what to install."""


class TranslationFailed(RuntimeError):
    """A translator call crashed or returned output that does not line up with its input."""


class TranslationTimeout(RuntimeError):
    """A translator call ran past its time limit (the process was killed)."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def split_marks(output: str, source: str) -> Tuple[str, Tuple[str, ...]]:
    """(output without apertium's marks, the marked words): `*` unknown to the analyser, `@` no
    translation of the lemma, `#` a generation error. A mark that the source itself had (`#hashtag`)
    is kept and not reported. Also repairs a leaked tag: eng-hbs writes a double quote as the word
    `parquote` (`"hi"` -> `parquotehajparquote`)."""
    marked = []

    def keep(m):
        word = re.match(r"\w+", output[m.end():]).group(0)
        if (m.group(0) + word) in source:
            return m.group(0)
        marked.append(word)
        return ""
    if "parquote" in output and "parquote" not in source:
        output = output.replace("parquote", '"')
    return _MARKED.sub(keep, output).strip(), tuple(marked)


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def words_of(text: str) -> set:
    """Lower-cased words of `text`: letter words with inner apostrophes ("zappa's"), their parts
    ("zappa", "s") and every run of word characters ("1950s")."""
    low = text.lower()
    return {w for w in _WORD.findall(low)} | set(re.findall(r"\w+", low))


def untranslated(words: Sequence[str], seed: str) -> Tuple[str, ...]:
    """The words among `words` that the seed does not have: a marked word the seed has is a name
    or a term carried through unchanged, which is fine."""
    have = words_of(seed)
    return tuple(w for w in words if w.lower() not in have)


def unknown_words(output: str, seed: str, dictionary) -> Tuple[str, ...]:
    """Lower-case words of `output` that neither the seed nor `dictionary` (a set of lower-case
    English words) has: what a neural translator leaves of its pivot language ("predsjedateljski").
    Capitalised words are left alone (names), so are words with digits."""
    have = words_of(seed)
    out = []
    for w in _WORD.findall(output):
        if not w[:1].islower():
            continue
        low = w.lower().replace("’", "'")
        if low in have or low in dictionary or low.split("'")[0] in dictionary:
            continue
        out.append(w)
    return tuple(out)


# ------------------------------------------------------------------ apertium

def apertium_modes(datadir: Optional[str] = None) -> Tuple[str, ...]:
    """Installed apertium modes (`apertium -l`); () when apertium is missing."""
    exe = shutil.which("apertium")
    if exe is None:
        return ()
    cmd = [exe] + (["-d", datadir] if datadir else []) + ["-l"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(sorted(set(out.split())))


def apertium_pivot_modes(modes: Sequence[str]) -> Dict[str, Tuple[str, str]]:
    """pivot -> (English -> pivot mode, pivot -> English mode) for every language with both directions."""
    installed = set(modes)
    found = {p: pair for p, pair in APERTIUM_PIVOTS.items() if pair[0] in installed and pair[1] in installed}
    # US English where the pair has it (spa-eng_US, cat-eng_US): the default language model and the
    # CMU dictionary are US English, and British forms ("favourable", "utilise") cost the LM an OOV.
    found = {p: (fwd, f"{back}_US" if f"{back}_US" in installed else back) for p, (fwd, back) in found.items()}
    known = {m for pair in found.values() for m in pair}
    for mode in sorted(installed - known):
        m = re.fullmatch(r"(en|eng)-([a-z]{2,3})", mode)
        if not m:
            continue
        back = [b for b in (f"{m.group(2)}-en", f"{m.group(2)}-eng") if b in installed]
        pivot = _ISO3_TO_1.get(m.group(2), m.group(2))
        if back and pivot not in found:
            found[pivot] = (mode, back[0])
    return dict(sorted(found.items()))


class ApertiumTranslator:
    """Apertium through one `apertium` process per batch and direction. Cheap to pickle; `load()` lists modes.

    `modes` adds or overrides pivots: {"ca": ("eng-cat_valencia", "cat-eng")}."""

    kind = "apertium"

    def __init__(self, pivots: Optional[Sequence[str]] = None, timeout: Optional[float] = None,
                 datadir: Optional[str] = None, modes: Optional[Dict[str, Tuple[str, str]]] = None, **_):
        self.requested = tuple(pivots) if pivots else None
        self.timeout = float(timeout) if timeout else DEFAULT_TIMEOUT
        self.datadir = datadir
        self.extra_modes = dict(modes or {})
        self._modes = None  # pivot -> (forward, back)

    def load(self) -> "ApertiumTranslator":
        if self._modes is None:
            found = apertium_pivot_modes(apertium_modes(self.datadir))
            found.update(self.extra_modes)
            self._modes = found
        return self

    def pivots(self) -> Tuple[str, ...]:
        self.load()
        return tuple(p for p in (self.requested or sorted(self._modes)) if p in self._modes)

    def mode(self, src: str, tgt: str) -> str:
        self.load()
        if src == "en" and tgt in self._modes:
            return self._modes[tgt][0]
        if tgt == "en" and src in self._modes:
            return self._modes[src][1]
        raise TranslationFailed(f"apertium has no mode for {src} -> {tgt} (pivots: {', '.join(self._modes)})")

    def translate(self, texts: Sequence[str], src: str, tgt: str) -> List[str]:
        """One batch in one process: one line per text, as many lines back or TranslationFailed."""
        return [text for text, _ in self.translate_marked(texts, src, tgt, marks=False)]

    def translate_marked(self, texts: Sequence[str], src: str, tgt: str,
                         marks: bool = True) -> List[Tuple[str, Tuple[str, ...]]]:
        """(text, words apertium marked as not translated) per text; `marks=False` runs `apertium -u`
        (nothing marked). The marks are removed from the text; a mark the source itself had is kept."""
        if not texts:
            return []
        lines = [_one_line(t) for t in texts]
        cmd = (["apertium"] + (["-d", self.datadir] if self.datadir else []) + ([] if marks else ["-u"])
               + [self.mode(src, tgt)])
        stdout = _run_process(cmd, "\n".join(lines) + "\n", self.timeout)
        out = stdout.split("\n")
        if out and out[-1] == "":
            out.pop()
        if len(out) != len(lines):
            raise TranslationFailed(f"apertium {cmd[-1]}: {len(out)} output lines for {len(lines)} input lines")
        return [split_marks(o, s) for o, s in zip(out, lines)]

    def close(self):
        pass


def _run_process(cmd: List[str], stdin: str, timeout: float) -> str:
    """Runs a pipeline command in its own process group; kills the whole group on timeout."""
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as e:
        raise TranslationFailed(f"{cmd[0]}: {e}") from e
    try:
        out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired as e:
        _kill_group(proc)
        raise TranslationTimeout(f"{' '.join(cmd)} timed out after {timeout:g} s") from e
    except BaseException:
        _kill_group(proc)
        raise
    if proc.returncode != 0:
        raise TranslationFailed(f"{' '.join(cmd)} exited with {proc.returncode}: "
                                f"{err.decode('utf-8', 'replace').strip()[:300]}")
    return out.decode("utf-8", "replace")


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.communicate()


# ------------------------------------------------------------------ ctranslate2

def ct2_pivots(model_dir: str) -> Tuple[str, ...]:
    """Pivots with a converted model in both directions: `en-xx/model.bin` and `xx-en/model.bin`."""
    if not model_dir or not os.path.isdir(model_dir):
        return ()
    names = set(os.listdir(model_dir))
    out = []
    for name in sorted(names):
        m = re.fullmatch(r"en-([A-Za-z_]+)", name)
        if m and f"{m.group(1)}-en" in names and all(
                os.path.isfile(os.path.join(model_dir, d, "model.bin")) for d in (name, f"{m.group(1)}-en")):
            out.append(m.group(1))
    return tuple(out)


class _Direction:
    """One converted model folder: the CTranslate2 translator and its tokenisation."""

    def __init__(self, path: str, compute_type: str, threads: int):
        import ctranslate2
        self.translator = ctranslate2.Translator(path, device="cpu", compute_type=compute_type,
                                                 intra_threads=threads)
        src, tgt = os.path.join(path, "source.spm"), os.path.join(path, "target.spm")
        if os.path.isfile(src) and os.path.isfile(tgt):
            import sentencepiece
            self._src = sentencepiece.SentencePieceProcessor(model_file=src)
            self._tgt = sentencepiece.SentencePieceProcessor(model_file=tgt)
            self._tok = None
        else:
            from transformers import AutoTokenizer
            self._tok = AutoTokenizer.from_pretrained(path, local_files_only=True)

    def encode(self, text: str) -> List[str]:
        if self._tok is not None:
            return self._tok.convert_ids_to_tokens(self._tok.encode(text))
        return self._src.encode(text, out_type=str) + ["</s>"]

    def decode(self, tokens: List[str]) -> str:
        if self._tok is not None:
            return self._tok.decode(self._tok.convert_tokens_to_ids(tokens), skip_special_tokens=True)
        return self._tgt.decode([t for t in tokens if t not in ("</s>", "<pad>", "<unk>")])


class CTranslate2Translator:
    """Marian / OPUS-MT models converted to CTranslate2, one folder per direction under `ct2_model_dir`.

    The time limit runs the call in a helper thread: a call past it is reported as TranslationTimeout,
    but CTranslate2 cannot be interrupted, so the thread finishes its work in the background."""

    kind = "ctranslate2"

    def __init__(self, pivots: Optional[Sequence[str]] = None, ct2_model_dir: str = "",
                 timeout: Optional[float] = None, translate_batch: int = 32, beam_size: int = DEFAULT_BEAM_SIZE,
                 compute_type: Optional[str] = None, threads: int = 0, max_decoding_length: int = 256, **_):
        self.requested = tuple(pivots) if pivots else None
        self.model_dir = ct2_model_dir
        self.timeout = float(timeout) if timeout else DEFAULT_TIMEOUT
        self.max_batch_size = max(1, min(int(translate_batch), 64))
        self.beam_size = int(beam_size)
        self.compute_type = compute_type
        self.threads = int(threads)
        self.max_decoding_length = int(max_decoding_length)
        self._directions = {}
        self._pool = None

    def load(self) -> "CTranslate2Translator":
        if self._directions:
            return self
        import ctranslate2
        supported = ctranslate2.get_supported_compute_types("cpu")
        self.compute_type = self.compute_type or ("int8" if "int8" in supported else "default")
        for pivot in self.pivots():
            for name in (f"en-{pivot}", f"{pivot}-en"):
                self._directions[name] = _Direction(os.path.join(self.model_dir, name), self.compute_type,
                                                   self.threads)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        return self

    def pivots(self) -> Tuple[str, ...]:
        have = ct2_pivots(self.model_dir)
        return tuple(p for p in (self.requested or have) if p in have)

    def _translate(self, direction, texts):
        lines = [_one_line(t) for t in texts]
        todo = [i for i, line in enumerate(lines) if line]  # an empty sentence stays empty
        results = direction.translator.translate_batch([direction.encode(lines[i]) for i in todo],
                                                       max_batch_size=self.max_batch_size,
                                                       beam_size=self.beam_size,
                                                       max_decoding_length=self.max_decoding_length)
        out = [""] * len(lines)
        for i, r in zip(todo, results):
            out[i] = direction.decode(r.hypotheses[0])
        return out

    def translate(self, texts: Sequence[str], src: str, tgt: str) -> List[str]:
        if not texts:
            return []
        self.load()
        direction = self._directions.get(f"{src}-{tgt}")
        if direction is None:
            raise TranslationFailed(f"no CTranslate2 model for {src}-{tgt} in {self.model_dir}")
        future = self._pool.submit(self._translate, direction, list(texts))
        try:
            out = future.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError as e:
            self._pool.shutdown(wait=False)  # the next batch must not queue behind the stuck one
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
            raise TranslationTimeout(f"ctranslate2 {src}-{tgt} timed out after {self.timeout:g} s") from e
        if len(out) != len(texts):
            raise TranslationFailed(f"ctranslate2 {src}-{tgt}: {len(out)} outputs for {len(texts)} inputs")
        return out

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        self._pool = None
        self._directions = {}


# ------------------------------------------------------------------ the interface

def make_translator(kind: str, pivots: Optional[Sequence[str]] = None, **opts):
    """A translator of `kind` ("apertium" or "ctranslate2"), not loaded yet (call `.load()` in setup)."""
    if kind == "apertium":
        return ApertiumTranslator(pivots=pivots, **opts)
    if kind == "ctranslate2":
        return CTranslate2Translator(pivots=pivots, **opts)
    raise TranslatorUnavailable(f"--translator {kind!r}: unknown; choose apertium or ctranslate2")


def back_translate_batch(translator, texts: Sequence[str], pivot: str):
    """English -> pivot -> English for one batch: (outputs, None), or (None, error) when a call crashed,
    timed out (an error whose class name holds "Timeout") or did not line up. Never raises."""
    try:
        forward = translator.translate(list(texts), "en", pivot)
        back = translator.translate(forward, pivot, "en")
        if len(back) != len(texts):
            raise TranslationFailed(f"{len(back)} back-translations for {len(texts)} sentences")
        return back, None
    except Exception as e:  # pylint: disable=broad-except
        return None, e


def back_translate_checked(translator, texts: Sequence[str], pivot: str, dictionary=None):
    """English -> pivot -> English for one batch with the words left untranslated:
    (outputs, flagged, None) or (None, None, error); never raises. `flagged[i]` holds the words of
    output i the translator did not translate and that seed i does not have: for Apertium, the words
    it marks in the pivot -> English direction (run without `-u`); for every translator, lower-case
    words that neither the seed nor `dictionary` (a set of English words; None: no check) has:
    Apertium leaves words of its pivot unmarked too ("emptyness", "annuled", "sselmonde")."""
    try:
        forward = translator.translate(list(texts), "en", pivot)
        if hasattr(translator, "translate_marked"):
            back = translator.translate_marked(forward, pivot, "en", marks=True)
            outputs = [t for t, _ in back]
            flagged = [_merge(untranslated(words, seed),
                              unknown_words(out, seed, dictionary) if dictionary else ())
                       for (out, words), seed in zip(back, texts)]
        else:
            outputs = translator.translate(forward, pivot, "en")
            flagged = [unknown_words(o, seed, dictionary) if dictionary else () for o, seed in zip(outputs, texts)]
        if len(outputs) != len(texts):
            raise TranslationFailed(f"{len(outputs)} back-translations for {len(texts)} sentences")
        return outputs, flagged, None
    except Exception as e:  # pylint: disable=broad-except
        return None, None, e


def _merge(a: Tuple[str, ...], b: Tuple[str, ...]) -> Tuple[str, ...]:
    seen = {w.lower() for w in a}
    return a + tuple(w for w in b if w.lower() not in seen)


def check_translator(kind: str, pivots: Optional[Sequence[str]] = None, **opts) -> Tuple[str, ...]:
    """The pivots the job will use; raises TranslatorUnavailable (naming the option and what to install)."""
    if kind == "apertium":
        if shutil.which("apertium") is None:
            raise TranslatorUnavailable(f"--translator apertium: the apertium command is not installed; "
                                        f"apt-get install {APERTIUM_PACKAGES}")
        have = ApertiumTranslator(pivots=None, **opts).load().pivots()
        missing = [p for p in (pivots or ()) if p not in have]
        if missing or not have:
            raise TranslatorUnavailable(
                f"--pivots: apertium has no pair in both directions for {', '.join(missing) or 'any language'} "
                f"(installed pivots: {', '.join(have) or 'none'}); apt-get install {APERTIUM_PACKAGES}, "
                f"or another apertium-eng-xx pair with both directions")
        return tuple(pivots) if pivots else have
    if kind == "ctranslate2":
        try:
            import ctranslate2  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
            import sentencepiece  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        except ImportError as e:
            raise TranslatorUnavailable(f"--translator ctranslate2: {e.name} is not installed; "
                                        f"pip install ctranslate2 sentencepiece") from e
        model_dir = opts.get("ct2_model_dir") or ""
        layout = ("one converted model per direction, <dir>/en-xx and <dir>/xx-en, each with model.bin and "
                  "source.spm / target.spm (ct2-transformers-converter --model Helsinki-NLP/opus-mt-en-xx "
                  "--output_dir <dir>/en-xx --quantization int8 --copy_files source.spm target.spm)")
        if not model_dir or not os.path.isdir(model_dir):
            raise TranslatorUnavailable(f"--ct2_model_dir {model_dir!r}: not a directory; expected {layout}")
        have = ct2_pivots(model_dir)
        missing = [p for p in (pivots or ()) if p not in have]
        if missing or not have:
            raise TranslatorUnavailable(
                f"--ct2_model_dir {model_dir}: no model pair for {', '.join(missing) or 'any pivot'} "
                f"(found: {', '.join(have) or 'none'}); expected {layout}")
        return tuple(pivots) if pivots else have
    raise TranslatorUnavailable(f"--translator {kind!r}: unknown; choose apertium or ctranslate2")
