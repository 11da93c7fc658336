"""Complex -> simple pairs from the files simplification and rewriting datasets ship in.

Formats (`detect_format` decides by name, then by the first line; `--format` overrides):

* `parallel`: line-aligned files, line i of the complex file against line i of each simple one:
  WikiLarge / Newsela `*.src` + `*.dst`, ASSET `*.orig` + `*.simp.0` ... `*.simp.9`, TurkCorpus
  `*.norm` + `*.turk.0` ... `*.turk.7` (or its Simple Wikipedia side `*.simp`), ParaSCI
  `*.src` + `*.tgt`, any `*.complex` + `*.simple`. Either file may be named: the complex one
  brings every reference, a simple one (`asset.test.simp.3`) only itself. Numbered references
  are the human simplifications and win over an unnumbered partner. With several references,
  `references="all"` (default) makes one pair per reference, so a dataset's profile weighs every
  human simplification; `"first"` keeps reference 0.
* `tsv`: `complex \\t simple` (further columns ignored; WikiLarge-style releases, our own
  `simplify` TSVs).
* `wikisplit`: the WikiSplit release (`complex \\t simple1 <::::> simple2`, tokenized on
  punctuation): detokenized by `SplitExample.from_row`; simple = simple1 + " " + simple2.
* `discofuse`: the DiscoFuse release TSV (header row, 8 columns): complex = the coherent text
  (coherent_first_sentence + coherent_second_sentence), simple = the incoherent pair
  (incoherent_first_sentence + incoherent_second_sentence), both detokenized. DiscoFuse was
  built by UN-fusing coherent Wikipedia text with rules (Geva et al., NAACL 2019), so the
  coherent side is the original, fused (complex) one and the incoherent side its split,
  connective- and anaphora-stripped (simple) rewrite, the direction a simplifier would take.
* `records`: this project's TFRecord output (decoded by the caller, `pipelines/profile.py`).
* `markers`: the Discovery release TSV (`sentence1 \\t sentence2 \\t label`): consecutive
  sentences, not a rewrite: nothing to profile.

Bad lines (blank, too few columns, an empty side, a WikiSplit line without `<::::>`) are
counted by reason and skipped, never fatal; a missing input, or parallel files of different
lengths, raise `PairFileError` with a message naming the file.
"""
import gzip
import io
import os
import re
import zlib
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from schemas.records import FusionExample, SplitExample

Pair = Tuple[str, str]
Inc = Callable[..., None]

FORMATS = ("auto", "parallel", "tsv", "wikisplit", "discofuse", "records", "markers")
# Suffixes of line-aligned releases, complex side and simple side.
COMPLEX_SUFFIXES = (".orig", ".src", ".complex", ".norm")
SIMPLE_SUFFIXES = (".simp", ".dst", ".tgt", ".simple", ".turk")
WIKISPLIT_SEPARATOR = "<::::>"
_NUMBERED = re.compile(r"^(?P<stem>.+)(?P<suffix>\.(?:simp|dst|tgt|simple|turk))\.(?P<n>\d+)$")
_WS = re.compile(r"\s+")


class PairFileError(ValueError):
    """An input cannot be read as pairs; the message names the file and what to do."""


def _noop(_name, _n=1):
    pass


def _open_lines(path: str) -> Iterator[str]:
    """Text lines (gzip when named .gz), undecodable bytes replaced."""
    try:
        raw = open(path, "rb")
    except OSError as e:
        raise PairFileError(f"cannot open {path}: {e.strerror or e}") from e
    with raw:
        stream = gzip.GzipFile(fileobj=raw) if path.endswith(".gz") else raw
        for line in io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="\n"):
            yield line.rstrip("\n").rstrip("\r")


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


# --------------------------------------------------------------------------- format detection

def _strip_gz(path: str) -> str:
    return path[:-3] if path.endswith(".gz") else path


def parallel_files(path: str, references: str = "all") -> Tuple[str, List[str]]:
    """(complex file, [simple files]) for a file of a line-aligned release, or PairFileError."""
    name = _strip_gz(path)
    m = _NUMBERED.match(name)
    if m or name.endswith(SIMPLE_SUFFIXES):  # a simple side: find its complex partner, keep only it
        stem = m.group("stem") if m else os.path.splitext(name)[0]
        for suffix in COMPLEX_SUFFIXES:
            for cand in (stem + suffix, stem + suffix + ".gz"):
                if os.path.isfile(cand):
                    return cand, [path]
        raise PairFileError(f"{path}: no complex-side file beside it ({', '.join(stem + s for s in COMPLEX_SUFFIXES)}); "
                            "name the complex file, or pass --format tsv for a two-column file")
    stem, suffix = os.path.splitext(name)
    if suffix not in COMPLEX_SUFFIXES:
        raise PairFileError(f"{path}: not a line-aligned release file (complex side ends in "
                            f"{', '.join(COMPLEX_SUFFIXES)}, simple side in {', '.join(SIMPLE_SUFFIXES)})")
    folder = os.path.dirname(stem) or "."
    base = os.path.basename(stem)
    numbered = []
    for entry in os.listdir(folder):
        m = _NUMBERED.match(_strip_gz(entry))
        if m and m.group("stem") == base and m.group("suffix") != suffix:
            numbered.append((m.group("suffix"), int(m.group("n")), os.path.join(os.path.dirname(stem), entry)))
    if numbered:
        kind = sorted({s for s, _, _ in numbered})[0]  # one family of references (.simp.N or .turk.N)
        refs = [p for s, _, p in sorted(numbered) if s == kind]
        return path, refs[:1] if references == "first" else refs
    for simple_suffix in SIMPLE_SUFFIXES:
        for cand in (stem + simple_suffix, stem + simple_suffix + ".gz"):
            if os.path.isfile(cand):
                return path, [cand]
    raise PairFileError(f"{path}: no simple-side file beside it ({', '.join(stem + s for s in SIMPLE_SUFFIXES)} "
                        f"or numbered references like {stem}.simp.0)")


def detect_format(path: str) -> str:
    """`records`, `parallel`, `discofuse`, `markers`, `wikisplit` or `tsv` for an input path.

    Raises PairFileError for a missing path or a file whose format cannot be told.
    """
    if not os.path.exists(path):
        raise PairFileError(f"input {path} does not exist")
    name = _strip_gz(path)
    if os.path.isdir(path) or name.endswith(".tfrecord"):
        return "records"
    if name.endswith(COMPLEX_SUFFIXES + SIMPLE_SUFFIXES) or _NUMBERED.match(name):
        return "parallel"
    try:
        for line in _open_lines(path):
            if not line.strip():
                continue
            cols = line.split("\t")
            if cols[0] == FusionExample.RELEASE_COLUMNS[0]:
                return "discofuse"
            if cols[:3] == ["sentence1", "sentence2", "label"]:
                return "markers"
            if len(cols) >= 2 and WIKISPLIT_SEPARATOR in cols[1]:
                return "wikisplit"
            if len(cols) >= 2:
                return "tsv"
            break
    except (EOFError, OSError, zlib.error) as e:  # a corrupt or cut archive: not a pair file we can tell
        raise PairFileError(f"cannot read {path}: {type(e).__name__}: {e}") from e
    raise PairFileError(f"cannot tell the format of {path}: its first line is not `complex<TAB>simple`; "
                        f"pass --format (one of {', '.join(FORMATS[1:])})")


# --------------------------------------------------------------------------- readers

def _tsv_pairs(path: str, inc: Inc, convert: Callable[[List[str]], Optional[Pair]], header: bool,
               min_columns: int) -> Iterator[Pair]:
    for number, line in enumerate(_open_lines(path)):
        if header and number == 0 and line.split("\t")[0] == FusionExample.RELEASE_COLUMNS[0]:
            continue
        if not line.strip():
            inc("bad:blank_line")
            continue
        cols = line.split("\t")
        if len(cols) < min_columns:
            inc("bad:too_few_columns")
            continue
        pair = convert(cols)
        if pair is None:
            continue
        c, s = _clean(pair[0]), _clean(pair[1])
        if not c or not s:
            inc("bad:empty_side")
            continue
        yield c, s


def read_pairs(path: str, fmt: str = "auto", references: str = "all", inc: Inc = _noop) -> Iterator[Pair]:
    """(complex, simple) pairs of one input file, in file order (`records`: see pipelines/profile.py).

    Args:
      path: the input file (for `parallel`: the complex or one simple file).
      fmt: one of FORMATS; `auto` calls `detect_format`.
      references: `all` or `first` (several simple files, e.g. ASSET's ten).
      inc: counter increment `inc(name, n=1)`: `pairs`, `bad:<reason>`.
    """
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt not in FORMATS[1:]:
        raise PairFileError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if not os.path.exists(path):
        raise PairFileError(f"input {path} does not exist")
    if fmt == "records":
        raise PairFileError(f"{path}: TFRecord output is decoded by pipelines.profile.read_record_pairs")
    if fmt == "markers":
        return
    if fmt == "parallel":
        yield from _parallel_pairs(path, references, inc)
        return

    def wikisplit(cols):
        if WIKISPLIT_SEPARATOR not in cols[1]:
            inc("bad:no_separator")
            return None
        ex = SplitExample.from_row(cols)
        return ex.complex, f"{ex.simple1} {ex.simple2}"

    def discofuse(cols):
        try:
            ex = FusionExample.from_row(cols + [""] * (8 - len(cols)))
        except ValueError:
            inc("bad:bad_row")
            return None
        from schemas.release import detokenize_punct
        return (detokenize_punct(f"{ex.coherent_first_sentence} {ex.coherent_second_sentence}"),
                detokenize_punct(f"{ex.incoherent_first_sentence} {ex.incoherent_second_sentence}"))

    convert, header, columns = {
        "tsv": (lambda cols: (cols[0], cols[1]), False, 2),
        "wikisplit": (wikisplit, False, 2),
        "discofuse": (discofuse, True, 5),
    }[fmt]
    for pair in _tsv_pairs(path, inc, convert, header, columns):
        inc("pairs")
        yield pair


def _parallel_pairs(path: str, references: str, inc: Inc) -> Iterator[Pair]:
    complex_path, simple_paths = parallel_files(path, references)
    complex_lines = list(_open_lines(complex_path))
    sides: Dict[str, List[str]] = {}
    for p in simple_paths:
        lines = list(_open_lines(p))
        if len(lines) != len(complex_lines):
            raise PairFileError(f"{p} has {len(lines)} lines but {complex_path} has {len(complex_lines)}: "
                                "the files are not line-aligned")
        sides[p] = lines
    for i, c in enumerate(complex_lines):  # pairs of one complex sentence together
        for p in simple_paths:
            c_text, s_text = _clean(c), _clean(sides[p][i])
            if not c_text or not s_text:
                inc("bad:empty_side")
                continue
            inc("pairs")
            yield c_text, s_text


def describe_input(path: str, fmt: str, references: str = "all") -> str:
    """One line naming the files a parallel input reads (for progress messages)."""
    if fmt != "parallel":
        return path
    complex_path, simple_paths = parallel_files(path, references)
    more = f" (+{len(simple_paths) - 1} more references)" if len(simple_paths) > 1 else ""
    return f"{complex_path} -> {simple_paths[0]}{more}"


def record_pair(record) -> Optional[Pair]:
    """(complex, simple) of an output record of this project, None for `markers` (no rewrite).

    splits: complex -> simple1 + simple2; fusion: coherent -> incoherent (detokenized, as in
    the release reader); simplify: complex -> simple; sci_para: src -> tgt.
    """
    dataset = getattr(record, "DATASET", "")
    if dataset == "splits":
        return record.complex, f"{record.simple1} {record.simple2}"
    if dataset == "fusion":
        from schemas.release import detokenize_punct
        return (detokenize_punct(_clean(f"{record.coherent_first_sentence} {record.coherent_second_sentence}")),
                detokenize_punct(_clean(f"{record.incoherent_first_sentence} {record.incoherent_second_sentence}")))
    if dataset == "simplify":
        return record.complex, record.simple
    if dataset == "sci_para":
        return record.src, record.tgt
    return None


def reservoir(items: Iterator, k: int, seed: int) -> Tuple[List, int]:
    """(a seeded uniform sample of at most k items in their input order, how many there were).

    Algorithm R (Vitter 1985) in O(k) memory; k <= 0 keeps everything.
    """
    import random
    if k <= 0:
        kept = list(items)
        return kept, len(kept)
    rng = random.Random(seed)
    sample: List[Tuple[int, object]] = []
    n = 0
    for n, item in enumerate(items, 1):
        if len(sample) < k:
            sample.append((n, item))
        else:
            j = rng.randrange(n)
            if j < k:
                sample[j] = (n, item)
    sample.sort(key=lambda x: x[0])
    return [item for _, item in sample], n
