"""Column types of the output records, for the columnar and typed loaders (Parquet, TFDS).

One mapping from a record's dataclass annotations to a column type, read by
both the Parquet encoder here (pyarrow, what Hugging Face `datasets` loads)
and the TFDS feature spec (pipelines/framework/loaders.py), so that the three encodings
of a record (`tf.train.Example`, Parquet row, TFDS feature) cannot drift:

    str, str-valued enum.Enum -> "string"      (an enum is written as its value)
    int                       -> "int64"
    bool                      -> "bool"        (int64 0/1 in a tf.train.Example)
    float                     -> "float32"     (records already hold float32 values)
    Tuple[T, ...]             -> a list of T's column type

Parquet files are written with pyarrow's defaults (snappy, one row group up to
64 Mi rows) from rows in the shard's order, so the same records give the same
bytes on every run.
"""
import enum
import io
import typing

from schemas.base import _field_kinds

PARQUET_SUFFIX = ".parquet"


def column_types(record_cls) -> typing.Dict[str, typing.Tuple[str, bool]]:
    """{field name: (base type, is_list)} in field order; base type in string/int64/bool/float32."""
    out = {}
    for name, (kind, tp) in _field_kinds(record_cls).items():
        if tp is bool:
            base = "bool"
        elif tp is int:
            base = "int64"
        elif tp is float:
            base = "float32"
        elif tp is str or (isinstance(tp, type) and issubclass(tp, enum.Enum)):
            base = "string"
        else:  # pragma: no cover - schemas.base only admits the types above
            raise TypeError(f"{record_cls.__name__}.{name}: unsupported field type {tp!r}")
        out[name] = (base, kind == "seq")
    return out


def arrow_schema(record_cls):
    """The pyarrow schema of a record class's Parquet files."""
    import pyarrow as pa  # pylint: disable=import-outside-toplevel
    types = {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_(), "float32": pa.float32()}
    return pa.schema([pa.field(name, pa.list_(types[base]) if is_list else types[base], nullable=False)
                      for name, (base, is_list) in column_types(record_cls).items()])


def to_parquet(records: typing.Sequence, record_cls) -> bytes:
    """Parquet bytes of `records` (in the given order); an empty sequence gives an empty table."""
    import pyarrow as pa  # pylint: disable=import-outside-toplevel
    import pyarrow.parquet as pq  # pylint: disable=import-outside-toplevel
    schema = arrow_schema(record_cls)
    dicts = [r.to_dict() for r in records]  # enums as values, tuples as lists
    columns = [pa.array([d[name] for d in dicts], type=schema.field(name).type) for name in schema.names]
    table = pa.Table.from_arrays(columns, schema=schema)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()

