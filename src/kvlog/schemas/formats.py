"""Key and value formats: what a scan, a Spark read or a dump turns a record's bytes into.

``"binary"`` (the default: the bytes), ``"string"`` (UTF-8 text), ``"registry"`` (a schema registry's wire
format: magic byte, schema id or GUID, then Avro, Protobuf or JSON by the schema's type), or a bare
``"avro"``/``"protobuf"``/``"json"`` payload with a schema given (JSON without one is schemaless: its types
are inferred from the records). :class:`Format` carries the options: the reader schema's subject (default
``<topic>-value``/``<topic>-key``, the registry's topic naming strategy; for the record or topic-record
strategies, name the subject), a version, an explicit reader schema (text, a file, a
:class:`~kvlog.schemas.registry.RegisteredSchema`), a Protobuf message name.

:func:`schema_source` turns what the user gave as ``schemas=`` into a :class:`SchemaSource`; :func:`build`
turns a format into the plan a :class:`~kvlog.schemas.decoding.ColumnDecoder` runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Union

import numpy as np

from kvlog._core import typed as _typed
from kvlog.errors import ConfigError, SchemaError
from kvlog.schemas import json_plan
from kvlog.schemas.plans import AvroPlan, FormatPlan, JsonPlan, ProtobufPlan
from kvlog.schemas.registry import RegisteredSchema, SchemaMapping, SchemaSource, normalize_type

__all__ = ["FORMATS", "Format", "Plan", "build", "format_of", "schema_source", "StringPlan"]

FORMATS = ("binary", "string", "registry", "avro", "protobuf", "json")
#: records sampled from each topic to infer schemaless JSON's types
DEFAULT_INFER_ROWS = 10_000


@dataclass(frozen=True)
class Format:
    """A key or value format and its options (see the module's notes)."""

    kind: str = "binary"
    schema: Any = None          # the reader schema: text, a path to a file, a RegisteredSchema
    subject: str | None = None  # registry: the reader's subject (default <topic>-value / <topic>-key)
    version: int | str = "latest"
    message: str | None = None  # Protobuf: the message (default: the file's first)
    infer_rows: int = DEFAULT_INFER_ROWS

    def __post_init__(self) -> None:
        if self.kind not in FORMATS:
            raise ConfigError(f"unknown format {self.kind!r}: a format is one of {', '.join(FORMATS)}")
        if self.kind in ("avro", "protobuf") and self.schema is None:
            raise ConfigError(f"the {self.kind} format reads payloads written with a schema given to it: "
                              f"give schema= (its text, a file, or a subject with format 'registry')")
        if self.kind in ("binary", "string") and (self.schema is not None or self.subject is not None):
            raise ConfigError(f"the {self.kind} format takes no schema")
        if not isinstance(self.infer_rows, int) or self.infer_rows < 1:
            raise ConfigError(f"infer_rows must be a positive integer, not {self.infer_rows!r}")

    @property
    def typed(self) -> bool:
        return self.kind != "binary"


FormatLike = Union[str, Format, None]


def format_of(value: FormatLike, *, schema: Any = None, subject: str | None = None, message: str | None = None,
              what: str = "value_format") -> Format:
    """A :class:`Format` from a name (or a Format) and the loose options a scan takes beside it."""
    if value is None:
        value = "binary"
    if isinstance(value, Format):
        fmt = value
    elif isinstance(value, str):
        kind = value.strip().lower()
        if kind not in FORMATS:
            raise ConfigError(f"{what}={value!r}: a format is one of {', '.join(FORMATS)}")
        fmt = Format(kind, schema=schema, subject=subject, message=message)
        schema = subject = message = None
    else:
        raise ConfigError(f"{what} must be a format name or a kvlog.schemas.Format, not {type(value).__name__}")
    if schema is not None or subject is not None or message is not None:
        fmt = replace(fmt, schema=schema if schema is not None else fmt.schema,
                      subject=subject if subject is not None else fmt.subject,
                      message=message if message is not None else fmt.message)
    return fmt


# -------------------------------------------------------------------------------------- sources
def schema_source(schemas: Any, *, own: Callable[[], SchemaSource] | None = None) -> SchemaSource:
    """What ``schemas=`` names as a source: a :class:`SchemaSource`; a mapping (``{id: text}``); a registry URL
    (``http(s)://``); a folder of schema files; a data directory, backup or URI that holds a ``_schemas``
    topic. None: ``own()`` (the scan's own source's ``_schemas``)."""
    from kvlog.schemas.files import SchemaFiles, looks_like_schema_folder
    from kvlog.schemas.rest import RestRegistry
    from kvlog.schemas.schemas_topic import SchemasTopic

    if schemas is None:
        if own is None:
            raise ConfigError("no schema source: give schemas= (a data directory or backup holding a _schemas "
                              "topic, a registry URL, a folder of schema files or a mapping)")
        return own()
    if isinstance(schemas, SchemaSource):
        return schemas
    if isinstance(schemas, Mapping):
        return SchemaMapping(schemas)
    if isinstance(schemas, (str, os.PathLike)):
        text = os.fspath(schemas)
        if text.startswith(("http://", "https://")):
            return RestRegistry(text)
        if "://" not in text and looks_like_schema_folder(text):
            return SchemaFiles(text)
        return SchemasTopic.read(text)
    raise ConfigError(f"schemas= takes a schema source, a mapping, a registry URL or a path, "
                      f"not {type(schemas).__name__}")


def _schema_text(schema: Any, kind: str) -> RegisteredSchema:
    """An explicit schema (text, a file, a RegisteredSchema) as a RegisteredSchema of ``kind``'s type."""
    if isinstance(schema, RegisteredSchema):
        return schema
    if isinstance(schema, Path) or (isinstance(schema, str) and "\n" not in schema and len(schema) < 4096
                                    and schema.endswith((".avsc", ".avro", ".proto", ".json"))
                                    and os.path.isfile(schema)):
        path = Path(schema)
        text = path.read_text(encoding="utf-8")
        stype = {".avsc": "AVRO", ".avro": "AVRO", ".proto": "PROTOBUF", ".json": "JSON"}[path.suffix]
        return RegisteredSchema(-1, stype, text)
    if isinstance(schema, Mapping):
        import json

        return RegisteredSchema(-1, "AVRO" if kind in ("avro", "registry") else "JSON", json.dumps(schema))
    if isinstance(schema, str):
        from kvlog.schemas.registry import _guess_type

        stype = {"avro": "AVRO", "protobuf": "PROTOBUF", "json": "JSON"}.get(kind) or _guess_type(schema)
        return RegisteredSchema(-1, stype, schema)
    raise ConfigError(f"a schema is its text, a file or a RegisteredSchema, not {type(schema).__name__}")


# ------------------------------------------------------------------------------------------ plans
@dataclass
class Plan:
    """What a column decoder runs: the format plan, the wire form, and the program of a bare payload."""

    plan: FormatPlan
    wire: str                   # "registry" or "bare"
    bare_program: _typed.Program | None
    source: SchemaSource | None


class StringPlan(FormatPlan):
    """UTF-8 text: the payload's bytes, checked, as a string."""

    format = 0
    reader = None

    def __init__(self) -> None:
        import pyarrow as pa

        super().__init__()
        self._layout(pa.string())
        ops = np.array([[27, self.root.index, 1, 0, 0, 0, 0, 0]], dtype=np.int32)  # Avro's REST op, UTF-8 checked
        self.program_ = _typed.Program(0, ops, np.zeros(0, np.int32), b"", np.zeros(1, np.int64), 0, [""])

    def _compile(self, schema_id: int, indexes: tuple[int, ...]) -> _typed.Program:
        return self.program_

    def bare_program(self) -> _typed.Program:
        return self.program_


def _registered_reader(fmt: Format, source: SchemaSource, topic: str, part: str) -> RegisteredSchema:
    if fmt.schema is not None:
        if isinstance(fmt.schema, (tuple, list)) and len(fmt.schema) == 2:
            return source.version(str(fmt.schema[0]), fmt.schema[1])
        return _schema_text(fmt.schema, "registry")
    subject = fmt.subject or f"{topic}-{part}"
    return source.version(subject, fmt.version)


def build(fmt: Format, *, topic: str, part: str, source: Callable[[], SchemaSource],
          sample: Callable[[int], list[bytes | None]], fields: Sequence[str] | None = None) -> Plan | None:
    """The plan for ``fmt`` of ``topic``'s ``part`` (``"key"``/``"value"``); None for binary. ``source()`` gives
    the schema source (called only when one is needed); ``sample(n)`` the first payloads of the topic, for
    schemaless JSON. ``fields``: the top-level fields to read (None: all)."""
    kind = fmt.kind
    if kind == "binary":
        return None
    if kind == "string":
        if fields is not None:
            raise ConfigError(f"a {part} in the string format has no fields to select")
        sp = StringPlan()
        return Plan(sp, "bare", sp.program_, None)
    if kind == "registry":
        src = source()
        reader = _registered_reader(fmt, src, topic, part)
        return Plan(_plan_of(reader, src, fmt, fields), "registry", None, src)
    if kind == "json" and fmt.schema is None:
        jtype = json_plan.infer(sample(fmt.infer_rows))
        plan = JsonPlan(jtype, None, fields=fields)
        return Plan(plan, "bare", plan.bare_program(), None)
    reader = _schema_text(fmt.schema, kind)
    want = {"avro": "AVRO", "protobuf": "PROTOBUF", "json": "JSON"}[kind]
    if normalize_type(reader.schema_type) != want:
        raise SchemaError(f"the {kind} format was given a {reader.schema_type} schema")
    fp = _plan_of(reader, source() if reader.references else None, fmt, fields)
    return Plan(fp, "bare", fp.bare_program(), fp.source)


def _plan_of(reader: RegisteredSchema, source: SchemaSource | None, fmt: Format,
             fields: Sequence[str] | None) -> FormatPlan:
    if reader.schema_type == "AVRO":
        return AvroPlan(reader, source, fields=fields)
    if reader.schema_type == "PROTOBUF":
        return ProtobufPlan(reader, source, message=fmt.message, fields=fields)
    return JsonPlan.from_registered(reader, source, fields=fields)
