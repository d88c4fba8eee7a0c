"""The columns of a topic's Iceberg table, and how it is partitioned.

A binary topic's table has ``key`` and ``value`` (bytes); a typed topic's has the value's top-level fields as
columns of their own, ``key`` beside them (bytes, or typed by ``key_format``). Either way the Kafka metadata
follows as top-level columns: ``partition``, ``offset``, ``timestamp`` (Iceberg ``timestamptz``),
``timestampType``, ``headers`` and, with a registry's wire format, ``valueSchemaId``/``keySchemaId``. A value
field whose name is one of those is refused, unless ``rename`` gives it another name. Types Iceberg does
not have are written as the nearest it does (a dictionary as its values, ``time32`` and non-microsecond
timestamps as microseconds, small unsigned integers widened); an unsigned 64-bit integer is refused.
Default partitioning: ``hour(timestamp)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kvlog.errors import ConfigError

__all__ = ["DEFAULT_PARTITION_BY", "METADATA_COLUMNS", "TableLayout", "layout_for", "parse_partition_by"]

METADATA_COLUMNS = ("partition", "offset", "timestamp", "timestampType", "headers")
DEFAULT_PARTITION_BY = ("hour(timestamp)",)
_TRANSFORM = re.compile(r"^\s*(identity|year|month|day|hour|bucket|truncate|void)\s*\(\s*(?:(\d+)\s*,\s*)?"
                        r"([A-Za-z_][\w.]*)\s*\)\s*$")
_BARE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*$")


@dataclass(frozen=True)
class TableLayout:
    """What a scan reads (``scan_columns``) and how the table's columns come from it: ``sources[i]`` is
    (scan column, path of struct field indexes: empty for the column itself) of the table's column
    ``schema[i]`` (Iceberg types)."""

    scan_columns: tuple[str, ...]
    sources: tuple[tuple[str, tuple[int, ...]], ...]
    schema: pa.Schema
    error_column: str | None = None  # the scan's valueError/keyError column: read, not written

    @property
    def table_names(self) -> tuple[str, ...]:
        return tuple(self.schema.names)

    def to_table(self, batch: pa.RecordBatch) -> pa.Table:
        """A scan's batch as the table's rows (a struct value's fields as columns, a null value's as nulls;
        cast where Iceberg's types differ)."""
        flat: dict[tuple[Any, ...], list[pa.Array]] = {}
        cols = []
        for name, path in self.sources:
            array = batch.column(name)
            for depth, index in enumerate(path):
                key = (name, *path[:depth])
                if key not in flat:
                    flat[key] = array.flatten()  # (the struct's nulls pushed into its fields)
                array = flat[key][index]
            cols.append(array)
        out = pa.Table.from_arrays(cols, names=list(self.schema.names))
        if out.schema != self.schema:
            out = out.cast(self.schema)
        return out


def iceberg_type(t: pa.DataType, where: str) -> pa.DataType:
    """``t`` as a type Iceberg can hold (the same when it already is)."""
    if pa.types.is_dictionary(t):
        return iceberg_type(t.value_type, where)
    if pa.types.is_time32(t) or (pa.types.is_time64(t) and t.unit != "us"):
        return pa.time64("us")
    if pa.types.is_timestamp(t):
        return t if t.unit == "us" else pa.timestamp("us", tz=t.tz)
    if pa.types.is_date64(t):
        return pa.date32()
    if t in (pa.uint8(), pa.uint16(), pa.int8(), pa.int16()):
        return pa.int32()
    if t == pa.uint32():
        return pa.int64()
    if t == pa.uint64():
        raise ConfigError(f"column {where!r}: unsigned 64-bit integers have no Iceberg type")
    if pa.types.is_float16(t):
        return pa.float32()
    if pa.types.is_null(t):
        return pa.string()
    if pa.types.is_string_view(t) or pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_binary_view(t) or pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_duration(t):
        raise ConfigError(f"column {where!r}: durations have no Iceberg type")
    if pa.types.is_decimal(t) and t.precision > 38:
        raise ConfigError(f"column {where!r}: decimals of precision {t.precision} have no Iceberg type (38 at most)")
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, iceberg_type(f.type, f"{where}.{f.name}"), f.nullable)
                          for f in (t.field(i) for i in range(t.num_fields))])
    if pa.types.is_map(t):
        return pa.map_(iceberg_type(t.key_type, f"{where}.key"),
                       pa.field("value", iceberg_type(t.item_type, f"{where}.value"), t.item_field.nullable))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) or \
            pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return pa.list_(pa.field("element", iceberg_type(t.value_type, f"{where}[]"), t.value_field.nullable))
    return t


def layout_for(scan_schema: pa.Schema, *, value_typed: bool, rename: Mapping[str, str] | None = None,
               error_column: str | None = None, unwrap: str | None = None) -> TableLayout:
    """The table layout of a scan whose schema is ``scan_schema`` (``key``, ``value``, the metadata columns,
    schema ids, and ``error_column``): a typed struct value's fields become columns of their own, first (with
    ``unwrap="debezium"``: the fields of its ``after`` state)."""
    rename = dict(rename or {})
    reserved = set(METADATA_COLUMNS) | {"key", "keySchemaId", "valueSchemaId"}
    sources: list[tuple[str, tuple[int, ...]]] = []
    fields: list[pa.Field] = []
    used: dict[str, str] = {}

    def add(name: str, origin: str, source: tuple[str, tuple[int, ...]], t: pa.DataType) -> None:
        if name in used:
            raise ConfigError(f"two columns would be named {name!r} (from {used[name]!r} and {origin!r}): rename one")
        used[name] = origin
        sources.append(source)
        fields.append(pa.field(name, iceberg_type(t, name), True))

    vt = scan_schema.field("value").type if "value" in scan_schema.names else None
    expand = value_typed and vt is not None and pa.types.is_struct(vt)
    prefix: tuple[int, ...] = ()
    if unwrap is not None:
        if not expand or vt is None or vt.get_field_index("after") < 0 or vt.get_field_index("op") < 0 or \
                not pa.types.is_struct(vt.field("after").type):
            raise ConfigError(f"unwrap={unwrap!r}: the values are not Debezium change events (a record with an "
                              f"'after' record and an 'op'){'' if vt is None else f': {vt}'}")
        prefix = (vt.get_field_index("after"),)
        vt = vt.field("after").type
    if expand:
        assert vt is not None
        for i in range(vt.num_fields):
            field_name = vt.field(i).name
            name = rename.pop(field_name, field_name)
            if name in reserved:
                raise ConfigError(
                    f"the value field {field_name!r} would be a column named like Kafka's metadata column "
                    f"{name!r}: give rename={{{field_name!r}: 'another_name'}} (--rename {field_name}=NAME)")
            add(name, f"value.{field_name}", ("value", (*prefix, i)), vt.field(i).type)
    for f in scan_schema:
        if f.name == error_column or (expand and f.name == "value"):
            continue
        add(f.name, f.name, (f.name, ()), f.type)
    if rename:
        raise ConfigError(f"rename names value fields the topic does not have: {', '.join(sorted(rename))}")
    return TableLayout(tuple(scan_schema.names), tuple(sources), pa.schema(fields), error_column)


def parse_partition_by(spec: Sequence[str] | str | None) -> list[tuple[str, str]]:
    """``partition_by`` (``"hour(timestamp)"``, ``"bucket(16, key)"``, ``"partition"``...) as (column,
    Iceberg transform) pairs; None or empty: unpartitioned."""
    if spec is None:
        return []
    if isinstance(spec, str):
        spec = [spec]
    out = []
    for item in spec:
        m = _TRANSFORM.match(item)
        if m is not None:
            name, arg, column = m.groups()
            if name in ("bucket", "truncate"):
                if arg is None:
                    raise ConfigError(f"partition_by {item!r}: {name} takes a number first, as in {name}(16, {column})")
                out.append((column, f"{name}[{int(arg)}]"))
            else:
                if arg is not None:
                    raise ConfigError(f"partition_by {item!r}: {name} takes one column")
                out.append((column, name))
            continue
        m = _BARE.match(item)
        if m is None:
            raise ConfigError(f"partition_by {item!r}: give a column or a transform of one (hour(timestamp), "
                              f"day(timestamp), bucket(16, key), truncate(4, name), identity(partition))")
        out.append((m.group(1), "identity"))
    return out
