"""Typed keys and values in the ``kvlog_python`` sink: a struct (or any) column encoded in a schema registry's
wire format, or as a bare Avro/Protobuf/JSON payload, or as text, before the rows are routed and staged.

Options (case-insensitive): ``keyFormat``/``valueFormat`` (``binary``, the default, ``string``, ``registry``,
``avro``, ``protobuf``, ``json``); ``keySchema``/``valueSchema`` (the schema's text or a ``.avsc``/``.proto``/
``.json`` file); ``keySubject``/``valueSubject`` (default ``<topic>-key``/``<topic>-value``, the registry's topic
naming strategy, so a ``topic`` option is needed without them); ``keyMessage``/``valueMessage`` (Protobuf: the
message, default the file's first); ``schemas``: where ``registry`` schemas are registered (a local data
directory whose ``_schemas`` topic kvlog keeps as the registry does, or a registry URL; default the sink's own
directory).

With ``registry`` and a schema, the schema is registered on the driver when the write is planned (as
Confluent's serializers auto-register, the registration stays even when the job then fails); without a
schema, the subject's latest version is used. Routing hashes the encoded key, as a producer with a key
serializer does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kvlog import storage
from kvlog.errors import ConfigError, SchemaError, SchemaNotFoundError
from kvlog.schemas.formats import FORMATS

__all__ = ["TypedSink", "typed_sink"]


def _get(options: Mapping[str, Any], name: str) -> str | None:
    v = {str(k).lower(): v for k, v in options.items()}.get(name.lower())
    return None if v is None else str(v)


def _schema_text(given: str) -> tuple[str, str | None]:
    """A schema option's text, and its type when a file's extension says it."""
    if "\n" not in given and given.endswith((".avsc", ".proto", ".json")) and os.path.isfile(given):
        with open(given, encoding="utf-8") as f:
            text = f.read()
        ext = os.path.splitext(given)[1]
        return text, {".avsc": "AVRO", ".proto": "PROTOBUF", ".json": "JSON"}[ext]
    return given, None


@dataclass
class PartEncoder:
    """One column's encoding: ``string`` (UTF-8 text) or a :class:`~kvlog.schemas.registering.Serializer`."""

    part: str
    kind: str
    serializer: Any = None

    def encode(self, col: pa.Array) -> pa.Array:
        if self.kind == "string":
            if pa.types.is_string(col.type) or pa.types.is_large_string(col.type) or pa.types.is_null(col.type):
                return col.cast(pa.binary())
            raise ConfigError(f"the {self.part} column is {col.type}: the string format writes a string column")
        if self.kind == "json" and self.serializer is None:  # schemaless JSON: the value as a JSON document
            return pa.array([None if v is None else json.dumps(v, separators=(",", ":"), ensure_ascii=False,
                                                               default=str).encode("utf-8")
                             for v in col.to_pylist()], pa.binary())
        try:
            return pa.array(self.serializer.many(col.to_pylist()), pa.binary())
        except SchemaError as exc:
            raise SchemaError(f"a {self.part} of the written rows: {exc.reason}", schema_id=exc.schema_id,
                              subject=exc.subject) from None


@dataclass
class TypedSink:
    """The key and value encoders of a write (None: the column is written as given)."""

    key: PartEncoder | None
    value: PartEncoder | None

    def encode(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        cols = list(batch.columns)
        names = batch.schema.names
        for enc in (self.key, self.value):
            if enc is not None and enc.part in names:
                i = names.index(enc.part)
                cols[i] = enc.encode(batch.column(i))
        return pa.RecordBatch.from_arrays(cols, names=names)


def _target(root: str, schemas: str | None) -> Any:
    """Where ``registry`` schemas are registered and looked up."""
    from kvlog.schemas.registering import SchemasTopicWriter
    from kvlog.schemas.rest import RestRegistry

    where = schemas if schemas is not None else root
    if where.startswith(("http://", "https://")):
        return RestRegistry(where)
    if storage.is_remote(where):
        raise ConfigError("the kvlog sink registers schemas in a local data directory's _schemas topic or at a "
                          "registry URL, not in an object store: give option schemas")
    return SchemasTopicWriter(where)


def _part(part: str, options: Mapping[str, Any], root: str, topic: str | None, targets: dict[str, Any]) -> PartEncoder | None:
    from kvlog.schemas.registering import Serializer

    kind = (_get(options, f"{part}Format") or "binary").strip().lower()
    if kind not in FORMATS:
        raise ConfigError(f"option {part}Format={kind!r}: a format is one of {', '.join(FORMATS)}")
    schema = _get(options, f"{part}Schema")
    subject = _get(options, f"{part}Subject")
    message = _get(options, f"{part}Message")
    if kind == "binary":
        if schema or subject or message:
            raise ConfigError(f"options {part}Schema/{part}Subject/{part}Message need {part}Format")
        return None
    if kind == "string":
        if schema or subject:
            raise ConfigError(f"the string {part}Format takes no schema")
        return PartEncoder(part, "string")
    text, stype = _schema_text(schema) if schema is not None else (None, None)
    if kind != "registry":
        if text is None:
            if kind == "json":
                return PartEncoder(part, "json")
            raise ConfigError(f"{part}Format {kind} writes payloads of a schema: give option {part}Schema")
        return PartEncoder(part, kind, Serializer.bare(text, stype or kind.upper(), message=message))
    if subject is None:
        if topic is None:
            raise ConfigError(f"{part}Format registry with a topic column: give option {part}Subject (the "
                              f"default, <topic>-{part}, needs option topic)")
        subject = f"{topic}-{part}"
    if "target" not in targets:
        targets["target"] = _target(root, _get(options, "schemas"))
    target = targets["target"]
    if text is not None:
        from kvlog.schemas.registry import _guess_type

        reg = target.register(subject, text, stype or _guess_type(text))
    else:
        try:
            reg = target.version(subject)
        except SchemaNotFoundError as exc:
            raise SchemaNotFoundError(f"{part}Format registry without {part}Schema writes with the subject's "
                                      f"latest version, and {target.description} has none: {exc.reason}",
                                      subject=subject) from None
    return PartEncoder(part, "registry", Serializer(reg, target, message=message))


def typed_sink(root: str, options: Mapping[str, Any], topic: str | None) -> TypedSink | None:
    """The write's encoders from its options (None: keys and values are written as given)."""
    targets: dict[str, Any] = {}
    try:
        key = _part("key", options, root, topic, targets)
        value = _part("value", options, root, topic, targets)
    finally:
        t = targets.get("target")
        if t is not None and hasattr(t, "close"):
            t.close()
    if key is None and value is None:
        if _get(options, "schemas") is not None:
            raise ConfigError("option schemas is for typed keys or values: give keyFormat or valueFormat")
        return None
    return TypedSink(key, value)
