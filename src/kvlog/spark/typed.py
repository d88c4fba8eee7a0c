"""Typed keys and values in the Spark sources: the options, the Spark types of the decoded columns, and the
Arrow conversions that make kvlog's columns what Spark ingests.

Options (case-insensitive, both engines): ``keyFormat``/``valueFormat`` (``binary``, ``string``,
``registry``, ``avro``, ``protobuf``, ``json``), ``keySchema``/``valueSchema`` (a reader schema: its text, or
a path to a file), ``keySubject``/``valueSubject``, ``keyMessage``/``valueMessage`` (Protobuf),
``schemas`` (where registered schemas come from: a data directory or backup holding ``_schemas``, a
registry URL, a folder of schema files; default: the source's own ``_schemas``) and ``errors``
(``raise``, ``null``, or ``deadletter``: null plus the raw bytes of the records that failed, in
``valueBytes``/``keyBytes``, so a job can write them aside).

Spark has no unsigned integers, nanosecond or time-of-day timestamps, or Arrow's intervals; the decoded
columns are converted to what Spark holds: uint32 → long, uint64 → decimal(20, 0), timestamps of any unit →
Spark's microsecond timestamp (with a zone) or timestamp_ntz (without), time32/time64 → long (microseconds
of the day), duration → long (microseconds), month_day_nano_interval → struct<months, days, nanoseconds>,
fixed_size_binary → binary, decimal256 → string (past Spark's 38 digits).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kvlog.errors import ConfigError
from kvlog.schemas.formats import FORMATS, format_of
from kvlog.schemas.typed_columns import TypedColumns

__all__ = ["SparkTyped", "TYPED_OPTIONS", "spark_arrow", "spark_arrow_type", "typed_columns"]

TYPED_OPTIONS: tuple[str, ...] = ("keyFormat", "valueFormat", "keySchema", "valueSchema", "keySubject",
                                  "valueSubject", "keyMessage", "valueMessage", "schemas", "errors")
_ERRORS = ("raise", "null", "deadletter")


def _get(options: Mapping[str, Any], name: str) -> str | None:
    low = {str(k).lower(): v for k, v in options.items()}
    v = low.get(name.lower())
    return None if v is None else str(v)


def errors_mode(options: Mapping[str, Any]) -> str:
    mode = (_get(options, "errors") or "raise").strip().lower()
    if mode not in _ERRORS:
        raise ConfigError(f"option errors={mode!r}: it is one of {', '.join(_ERRORS)}")
    return mode


def typed_columns(options: Mapping[str, Any], own_source: Any, sample: Any) -> TypedColumns | None:
    """The read's formats (None when keys and values stay bytes); see the module's notes."""
    fmts = {}
    for part in ("key", "value"):
        kind = _get(options, f"{part}Format") or "binary"
        if kind.strip().lower() not in FORMATS:
            raise ConfigError(f"option {part}Format={kind!r}: a format is one of {', '.join(FORMATS)}")
        fmts[part] = format_of(kind, schema=_get(options, f"{part}Schema"),
                               subject=_get(options, f"{part}Subject"), message=_get(options, f"{part}Message"),
                               what=f"{part}Format")
    schemas = _get(options, "schemas")
    if not fmts["key"].typed and not fmts["value"].typed:
        if schemas is not None:
            raise ConfigError("option schemas is for typed keys or values: give keyFormat or valueFormat")
        return None
    mode = errors_mode(options)
    return TypedColumns(fmts["key"], fmts["value"], schemas=schemas, errors="raise" if mode == "raise" else "null",
                        own_source=own_source, sample=sample)


def typed_names(typed: TypedColumns, mode: str) -> list[str]:
    """The columns a typed read adds after Spark's Kafka-source columns."""
    names = list(typed.extra_columns())
    if mode == "deadletter":
        names += [f"{p}Bytes" for p in ("key", "value") if typed.formats[p].typed]
    return names


# ------------------------------------------------------------------------------------------ types
def spark_arrow_type(t: pa.DataType) -> pa.DataType:
    """The Arrow type Spark ingests for a decoded column of type ``t`` (see the module's notes)."""
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, spark_arrow_type(f.type), True) for f in t])
    if pa.types.is_map(t):
        return pa.map_(spark_arrow_type(t.key_type), pa.field("value", spark_arrow_type(t.item_type), True))
    if pa.types.is_list(t):
        return pa.list_(pa.field("element", spark_arrow_type(t.value_type), True))
    if pa.types.is_uint32(t):
        return pa.int64()
    if pa.types.is_uint64(t):
        return pa.decimal128(20, 0)
    if pa.types.is_timestamp(t):
        return pa.timestamp("us", tz="UTC" if t.tz else None)
    if pa.types.is_time(t) or pa.types.is_duration(t):
        return pa.int64()
    if t == pa.month_day_nano_interval():
        return pa.struct([pa.field("months", pa.int32()), pa.field("days", pa.int32()),
                          pa.field("nanoseconds", pa.int64())])
    if pa.types.is_fixed_size_binary(t):
        return pa.binary()
    if pa.types.is_decimal256(t):
        return pa.string()
    return t


def spark_arrow(arr: pa.Array) -> pa.Array:
    """``arr`` converted to :func:`spark_arrow_type` of its type."""
    t = arr.type
    target = spark_arrow_type(t)
    if target == t:
        return arr
    if pa.types.is_struct(t):
        kids = [spark_arrow(arr.field(i)) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(kids, fields=list(target), mask=pc.is_null(arr) if arr.null_count else None)
    if pa.types.is_map(t):
        keys = spark_arrow(arr.keys)
        items = spark_arrow(arr.items)
        return pa.MapArray.from_arrays(arr.offsets, keys, items, type=target,
                                       mask=pc.is_null(arr) if arr.null_count else None)
    if pa.types.is_list(t):
        return pa.ListArray.from_arrays(arr.offsets, spark_arrow(arr.flatten() if not arr.offset else arr.values),
                                        type=target, mask=pc.is_null(arr) if arr.null_count else None)
    if pa.types.is_timestamp(t):
        return arr.cast(target, safe=False) if t.unit == "ns" else arr.cast(target)
    if pa.types.is_time(t):
        unit = t.unit
        factor = {"s": 1_000_000, "ms": 1000, "us": 1, "ns": None}[unit]
        raw = arr.view(pa.int32() if pa.types.is_time32(t) else pa.int64()).cast(pa.int64())
        return pc.multiply(raw, factor) if factor else pc.divide(raw, 1000)
    if pa.types.is_duration(t):
        raw = arr.view(pa.int64())
        factor = {"s": 1_000_000, "ms": 1000, "us": 1}.get(t.unit)
        return pc.multiply(raw, factor) if factor else pc.divide(raw, 1000)
    if t == pa.month_day_nano_interval():
        values = arr.to_pylist()
        return pa.array([None if v is None else {"months": v.months, "days": v.days, "nanoseconds": v.nanoseconds}
                         for v in values], type=target)
    if pa.types.is_decimal256(t):
        return arr.cast(pa.string())
    return arr.cast(target)


def spark_type(t: pa.DataType) -> Any:
    """The Spark SQL type of a decoded column's Spark Arrow type."""
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(spark_arrow_type(t))


def struct_json(fields: Sequence[tuple[str, pa.DataType]]) -> str:
    """A Spark StructType's JSON for ``fields`` (what the JVM engine is handed)."""
    from pyspark.sql.types import StructField, StructType

    return json.dumps(StructType([StructField(n, spark_type(t), True) for n, t in fields]).jsonValue())


# ------------------------------------------------------------------------------------------ a read
class SparkTyped:
    """A Spark read's typed columns: made from the read's options on the driver and again, once per process,
    on each executor (:func:`for_options`)."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        from kvlog.spark._plan import ReadOptions, discover, input_paths, select

        self.options = dict(options)
        self.mode = errors_mode(options)
        self._paths = input_paths(options)
        self._read = ReadOptions.parse(options)
        self._found: dict[tuple[str, int], str] | None = None
        self._select = select
        self._discover = discover
        self.typed = typed_columns(options, own_source=self._own_source, sample=self._sample)

    def _partitions(self) -> dict[tuple[str, int], str]:
        if self._found is None:
            self._found = self._discover(self._paths)
        return self._found

    def _own_source(self) -> Any:
        from kvlog.errors import SchemaNotFoundError
        from kvlog.schemas.schemas_topic import SCHEMAS_TOPIC, SchemasTopic

        path = self._partitions().get((SCHEMAS_TOPIC, 0))
        if path is None:
            raise SchemaNotFoundError(f"no {SCHEMAS_TOPIC} topic under {', '.join(self._paths)}: give the option "
                                      f"schemas (a data directory or backup holding it, a registry URL, a folder "
                                      f"of schema files)")
        return SchemasTopic.read(path, backup_run=self._read.backup_run)

    def _sample(self, topic: str, part: str, n: int) -> list[bytes | None]:
        from kvlog.scanning import Scan

        dirs = [path for (t, _), path in sorted(self._partitions().items()) if t == topic]
        each = max(1, -(-n // max(len(dirs), 1)))
        out: list[bytes | None] = []
        for d in dirs:
            out += Scan(d, columns=[part], limit=each, threads=1,
                        backup_run=self._read.backup_run).to_table().column(0).to_pylist()
        return out

    def topics(self) -> list[str]:
        chosen = self._select(self._partitions(), self._read, self._paths)
        return sorted({t for t, _ in chosen})

    def arrow_fields(self, include_headers: bool) -> list[pa.Field]:
        """The Spark Arrow fields of the read's columns (Spark's Kafka-source ones typed by the formats)."""
        from kvlog.spark._plan import spark_arrow_schema

        assert self.typed is not None
        base = list(spark_arrow_schema(include_headers))
        topics = self.topics()
        names = [f.name for f in base] + typed_names(self.typed, self.mode)
        out = []
        for f in base:
            if f.name in ("key", "value") and self.typed.formats[f.name].typed:
                t = self.typed.field(f.name, topics, names).type
                out.append(pa.field(f.name, spark_arrow_type(t)))
            else:
                out.append(f)
        for n in typed_names(self.typed, self.mode):
            t = pa.binary() if n.endswith("Bytes") else self.typed.field(n, topics, names).type
            out.append(pa.field(n, t))
        return out

    def batches(self, decoded: pa.RecordBatch, topic: str, partition: int, schema: pa.Schema, decoders: Any,
                max_rows: int) -> Any:
        """Spark batches of one decoded chunk (:func:`typed_batches`)."""
        return typed_batches(decoded, topic, partition, schema, decoders, max_rows)

    def spark_schema(self, include_headers: bool) -> Any:
        from pyspark.sql.pandas.types import from_arrow_schema

        return from_arrow_schema(pa.schema(self.arrow_fields(include_headers)))


@functools.lru_cache(maxsize=16)
def _cached(items: tuple[tuple[str, str], ...]) -> SparkTyped:
    return SparkTyped(dict(items))


def for_options(options: Mapping[str, Any]) -> SparkTyped | None:
    """The read's :class:`SparkTyped` (one per process and set of options), or None for a binary read."""
    if not any(_get(options, f"{p}Format") not in (None, "binary") for p in ("key", "value")) and \
            _get(options, "schemas") is None:
        return None
    st = _cached(tuple(sorted((str(k), str(v)) for k, v in options.items())))
    return st if st.typed is not None else None


def typed_batches(decoded: pa.RecordBatch, topic: str, partition: int, schema: pa.Schema, decoders: Any,
                  max_rows: int) -> Any:
    """Spark batches of one decoded chunk, its keys and values typed (``decoders``: the partition's)."""
    from kvlog.scanning import const_int32, const_string

    converted = decoders.apply(decoded, topic, partition)
    n = decoded.num_rows
    names = decoded.schema.names
    cols = []
    for f in schema:
        if f.name in ("key", "value") and f.name in converted:
            cols.append(spark_arrow(converted[f.name]))
        elif f.name in converted:
            cols.append(converted[f.name])
        elif f.name == "topic":
            cols.append(const_string(topic, n))
        elif f.name == "partition":
            cols.append(const_int32(partition, n))
        elif f.name.endswith("Bytes"):
            part = f.name[:-5]
            raw = decoded.column(names.index(part))
            errs = converted.get(f"{part}Error")
            cols.append(pc.if_else(pc.is_valid(errs), raw, pa.scalar(None, pa.binary())) if errs is not None
                        else pa.nulls(n, pa.binary()))
        elif f.name == "headers":
            h = decoded.column(names.index("headers"))
            cols.append(h.cast(f.type) if h.type != f.type else h)
        else:
            cols.append(decoded.column(names.index(f.name)))
    batch = pa.RecordBatch.from_arrays(cols, schema=schema)
    for i in range(0, n, max_rows):
        yield batch.slice(i, max_rows)
