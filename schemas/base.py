"""Shared machinery for records: `tf.train.Example` encoding and JSON.

Every record is a frozen dataclass whose fields are typed with one of
`str`, `int`, `bool`, `float`, a `str`-valued `enum.Enum`, or a tuple of
`str` / `int` / `float`. `to_example` and `from_example` are generated from
those annotations, so adding a field to a record is the whole change.
"""
import dataclasses
import enum
import json
import struct
import typing
from functools import lru_cache

from schemas import tf_example

#: Decimals a model's score keeps in a record (a cosine, BERTScore F1, a probability, a language model's
#: mean negative log-likelihood). A model's last float bits follow the machine, not the text: the CPU's
#: vector width, a BLAS library's thread count, what else was in the batch. Rounded to 4 decimals, a score
#: changes only when such noise (about 1e-7 here) crosses a rounding boundary: for one score in a few
#: thousand between two different CPUs, never between two runs on one machine type (the encoders run with
#: fixed threads: miners/nlp/embed.py). Thresholds are decided on the rounded value.
SCORE_DECIMALS = 4


def quantize_score(x: float) -> float:
    """A model's score as records keep it: rounded to SCORE_DECIMALS (never -0.0)."""
    return round(float(x), SCORE_DECIMALS) + 0.0


class Record:
    """Mixin for record dataclasses."""

    #: Name of the dataset this record belongs to (output folder name).
    DATASET: typing.ClassVar[str] = ""
    #: Float fields a model computed (`quantize_score`: rounded to SCORE_DECIMALS when the record is built).
    #: They are left out of the key that places a record in a shard (OutputRecord.shard_key).
    SCORE_FIELDS: typing.ClassVar[typing.Tuple[str, ...]] = ()

    def __post_init__(self):
        # tf.train.Example stores float32: normalise now so that a record equals
        # its own round trip through a shard. A model's score is first rounded to SCORE_DECIMALS.
        scores = self.SCORE_FIELDS
        for name, (kind, tp) in _field_kinds(type(self)).items():
            v = getattr(self, name)
            if tp is float:
                if name in scores:
                    v = tuple(quantize_score(x) for x in v) if kind == "seq" else quantize_score(v)
                v = tuple(_f32(x) for x in v) if kind == "seq" else _f32(v)
            elif kind == "seq" and not isinstance(v, tuple):
                v = tuple(v)
            elif isinstance(tp, type) and issubclass(tp, enum.Enum) and not isinstance(v, tp):
                v = tp(v)
            else:
                continue
            object.__setattr__(self, name, v)

    def to_example(self) -> bytes:
        """Serialised `tf.train.Example` (bytes)."""
        return encode_example(self)

    @classmethod
    def from_example(cls, data: bytes):
        """Inverse of `to_example`; also accepts a parsed `tf.train.Example`."""
        return decode_example(cls, data)

    def to_dict(self) -> dict:
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.value if isinstance(v, enum.Enum) else (list(v) if isinstance(v, tuple) else v)
        return out

    @classmethod
    def from_dict(cls, d: dict):
        kwargs = {}
        for name, (kind, ctor) in _field_kinds(cls).items():
            if name not in d:
                continue
            v = d[name]
            kwargs[name] = tuple(ctor(x) for x in v) if kind == "seq" else ctor(v)
        return cls(**kwargs)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


def _f32(x) -> float:
    return struct.unpack("f", struct.pack("f", float(x)))[0]


@lru_cache(maxsize=None)
def _field_kinds(cls):
    """name -> ("scalar" | "seq", constructor) for each dataclass field."""
    hints = typing.get_type_hints(cls)
    kinds = {}
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if typing.get_origin(tp) is tuple:
            kinds[f.name] = ("seq", typing.get_args(tp)[0])
        else:
            kinds[f.name] = ("scalar", tp)
    return kinds


def _feature_for(value, tp):
    feat = tf_example.Feature()
    if tp is bool or tp is int:
        feat.int64_list.value.extend([int(v) for v in value])
    elif tp is float:
        feat.float_list.value.extend([float(v) for v in value])
    elif tp is str:
        feat.bytes_list.value.extend([v.encode("utf-8") for v in value])
    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        feat.bytes_list.value.extend([v.value.encode("utf-8") for v in value])
    else:  # pragma: no cover - guarded by tests over every record type
        raise TypeError(f"unsupported field type {tp!r}")
    return feat


def encode_example(record) -> bytes:
    ex = tf_example.Example()
    fmap = ex.features.feature
    for name, (kind, tp) in _field_kinds(type(record)).items():
        v = getattr(record, name)
        fmap[name].CopyFrom(_feature_for(v if kind == "seq" else [v], tp))
    return ex.SerializeToString(deterministic=True)


def _values(feat, tp):
    if tp is bool:
        return [bool(v) for v in feat.int64_list.value]
    if tp is int:
        return list(feat.int64_list.value)
    if tp is float:
        return list(feat.float_list.value)
    strings = [v.decode("utf-8") for v in feat.bytes_list.value]
    if tp is str:
        return strings
    return [tp(s) for s in strings]


def decode_example(cls, data):
    if isinstance(data, (bytes, bytearray, memoryview)):
        ex = tf_example.Example.FromString(bytes(data))
    else:  # a tf.train.Example or one of ours: go through bytes
        ex = tf_example.Example.FromString(data.SerializeToString())
    fmap = ex.features.feature
    kwargs = {}
    for name, (kind, tp) in _field_kinds(cls).items():
        if name not in fmap:
            continue
        vals = _values(fmap[name], tp)
        kwargs[name] = tuple(vals) if kind == "seq" else (vals[0] if vals else None)
    return cls(**kwargs)
