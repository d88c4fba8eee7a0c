"""The typed columns of a scan: keys and values decoded by their formats, with their schema ids and errors.

A scan with a key or value format other than binary gets, beside Spark's Kafka-source columns:

* ``key``/``value`` typed by the format (a struct for a record or message, a string for text...);
* ``keySchemaId``/``valueSchemaId`` (int32) with the registry's wire format: the writer schema's id;
* ``keyError``/``valueError`` (string) with ``errors="null"``: why a record's key or value is null (null
  where it decoded);
* ``value.<field>``/``key.<field>`` on request: one top-level field as a column of its own, so that an
  engine's projection reaches the decoder (a query of two fields decodes two fields' worth of columns).

:class:`TypedColumns` holds a scan's formats and plans (built once per topic, shared by every copy and
thread of the scan); :meth:`TypedColumns.decoders` gives the per-partition, per-thread decoders.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from kvlog.errors import ConfigError, SchemaError
from kvlog.schemas.decoding import ColumnDecoder, header_values
from kvlog.schemas.formats import Format, Plan, build, schema_source
from kvlog.schemas.registry import SchemaSource

__all__ = ["ERRORS", "TypedColumns"]

ERRORS = ("raise", "null")
_HEADER = {"key": "__key_schema_id", "value": "__value_schema_id"}


class TypedColumns:
    """See the module's notes. ``own_source()`` opens the scan's own ``_schemas``; ``sample(topic, part, n)``
    reads a topic's first payloads (schemaless JSON)."""

    def __init__(self, key: Format, value: Format, *, schemas: Any, errors: str,
                 own_source: Callable[[], SchemaSource],
                 sample: Callable[[str, str, int], list[bytes | None]]) -> None:
        if errors not in ERRORS:
            raise ConfigError(f"errors must be 'raise' or 'null', not {errors!r}")
        self.formats = {"key": key, "value": value}
        self.errors = errors
        self._schemas = schemas
        self._own = own_source
        self._sample = sample
        self._lock = threading.Lock()
        self._source: SchemaSource | None = None
        self._plans: dict[tuple[str, str, tuple[str, ...] | None], Plan | None] = {}

    # -------------------------------------------------------------------------------------- columns
    def extra_columns(self) -> tuple[str, ...]:
        """The columns the formats add, in their default order."""
        out = []
        for part in ("key", "value"):
            if self.formats[part].kind == "registry":
                out.append(f"{part}SchemaId")
        if self.errors == "null":
            out += [f"{part}Error" for part in ("key", "value") if self.formats[part].typed]
        return tuple(out)

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a column these formats can give."""
        if name in self.extra_columns():
            return True
        part, dot, _ = name.partition(".")
        return bool(dot) and part in ("key", "value") and self.formats[part].typed

    def source(self) -> SchemaSource:
        with self._lock:
            if self._source is None:
                self._source = schema_source(self._schemas, own=self._own)
            return self._source

    def plan(self, topic: str, part: str, fields: tuple[str, ...] | None) -> Plan | None:
        key = (topic, part, fields)
        with self._lock:
            if key in self._plans:
                return self._plans[key]
        try:
            plan = build(self.formats[part], topic=topic, part=part, source=self.source,
                         sample=lambda n: self._sample(topic, part, n), fields=fields)
        except SchemaError as exc:
            raise type(exc)(f"the {part}s of topic {topic!r}: {exc.reason}", subject=exc.subject,
                            version=exc.version, schema_id=exc.schema_id) from None
        with self._lock:
            return self._plans.setdefault(key, plan)

    @staticmethod
    def fields_wanted(part: str, columns: Sequence[str]) -> tuple[str, ...] | None:
        """The top-level fields of ``part`` the columns need (None: all of them)."""
        if part in columns:
            return None
        return tuple(c.split(".", 1)[1] for c in columns if c.startswith(f"{part}."))

    def needed(self, part: str, columns: Sequence[str]) -> bool:
        return self.formats[part].typed and (
            part in columns or any(c.startswith(f"{part}.") for c in columns)
            or f"{part}SchemaId" in columns or f"{part}Error" in columns)

    def field(self, name: str, topics: Sequence[str], columns: Sequence[str]) -> pa.Field:
        """The Arrow field of column ``name`` for a scan of ``topics`` (every topic's must agree)."""
        if name.endswith("SchemaId"):
            return pa.field(name, pa.int32())
        if name.endswith("Error"):
            return pa.field(name, pa.string())
        part, dot, sub = name.partition(".")
        types = []
        for t in topics:
            plan = self.plan(t, part, self.fields_wanted(part, columns))
            assert plan is not None
            at = plan.plan.arrow_type
            if dot:
                if not pa.types.is_struct(at) or at.get_field_index(sub) < 0:
                    raise ConfigError(f"column {name!r}: the {part}s of topic {t!r} have no field {sub!r}")
                at = at.field(sub).type
            types.append((t, at))
        if not types:
            raise ConfigError(f"no topic to type the column {name!r} by")
        first = types[0][1]
        for t, at in types[1:]:
            if at != first:
                raise ConfigError(f"the {part}s of topics {types[0][0]!r} and {t!r} have different types "
                                  f"({first} and {at}): scan them one at a time")
        return pa.field(name, first)

    # ------------------------------------------------------------------------------------- decoding
    def decoders(self, topic: str, columns: Sequence[str]) -> PartitionDecoders:
        """The decoders of one partition's read (one thread uses them)."""
        out: dict[str, ColumnDecoder] = {}
        for part in ("key", "value"):
            if not self.needed(part, columns):
                continue
            plan = self.plan(topic, part, self.fields_wanted(part, columns))
            if plan is None:
                continue
            out[part] = ColumnDecoder(plan.plan, wire=plan.wire, errors=self.errors, part=part,
                                      bare_program=plan.bare_program, source=plan.source)
        return PartitionDecoders(out)


class PartitionDecoders:
    """One partition's key and value decoders: :meth:`apply` decodes a batch's key and value columns."""

    def __init__(self, decoders: dict[str, ColumnDecoder]) -> None:
        self.decoders = decoders

    @property
    def needs_headers(self) -> bool:
        """Whether the batches must carry headers (the header form of the registry's wire format)."""
        return any(d.wire == "registry" for d in self.decoders.values())

    def apply(self, batch: pa.RecordBatch, topic: str, partition: int, stats: Any = None) -> dict[str, pa.Array]:
        """The typed columns of ``batch`` (decoded records: key, value, offset, ..., headers when needed)."""
        out: dict[str, pa.Array] = {}
        offsets = None
        headers = batch.column(batch.schema.get_field_index("headers")) if "headers" in batch.schema.names else None
        for part, dec in self.decoders.items():
            col = batch.column(batch.schema.get_field_index(part))
            hid = header_values(headers, _HEADER[part]) if headers is not None and dec.wire == "registry" else None
            if offsets is None:
                offsets = batch.column(batch.schema.get_field_index("offset")).to_numpy()
            res = dec.decode(col, header_ids=hid, offsets=offsets, topic=topic, partition=partition)
            out[part] = res.values
            if res.schema_ids is not None:
                out[f"{part}SchemaId"] = res.schema_ids
            if res.errors is not None:
                out[f"{part}Error"] = res.errors
            if stats is not None:
                stats.add_typed(part, len(col) - col.null_count, res.failures)
        return out
