"""Format plans: a reader schema's Arrow type and column layout, and the programs that read each writer
schema into it, compiled once per schema id and shared by every thread of a scan.

:class:`AvroPlan`, :class:`ProtobufPlan` and :class:`JsonPlan` have one shape: ``arrow_type``, ``root`` and
``specs`` (the layout, :mod:`kvlog.schemas.columns`), ``format`` (the kernel's format code) and
:meth:`FormatPlan.program` (the program for a writer schema id and, for Protobuf, message indexes). A plan
may read only some of the reader's top-level fields (``fields=``): the others are skipped in the kernel,
never decoded.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from kvlog._core import typed as _typed
from kvlog.errors import SchemaError, SchemaNotFoundError
from kvlog.schemas import avro as _avro
from kvlog.schemas import avro_plan, json_plan
from kvlog.schemas.columns import ColumnNode, layout
from kvlog.schemas.registry import RegisteredSchema, SchemaSource

__all__ = ["AvroPlan", "FormatPlan", "JsonPlan", "ProtobufPlan", "failing_program"]

FORMAT_CODES = {"AVRO": 0, "PROTOBUF": 1, "JSON": 2}
E_RESOLVE = 10
E_UNKNOWN = 12


def failing_program(format_code: int, reason: str, code: int = E_RESOLVE) -> _typed.Program:
    """A program every payload of which fails with ``code`` and ``reason`` (a writer schema that cannot be
    found or read: only its records fail, each with the reason)."""
    import numpy as np

    ops = np.array([[26, -1, code, 0, 0, 0, 0, 0]], dtype=np.int32)
    return _typed.Program(format_code, ops, np.zeros(0, np.int32), b"", np.zeros(1, np.int64), code, [reason], 1)


class FormatPlan(ABC):
    """See the module's notes."""

    format: int
    arrow_type: pa.DataType
    root: ColumnNode
    specs: list[tuple[int, int, bool, list[int]]]
    #: the reader schema (None: a schema given as text, not registered)
    reader: RegisteredSchema | None
    #: where writer schemas and references come from (None: nowhere, the bare formats)
    source: SchemaSource | None = None

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._programs: dict[tuple[int, tuple[int, ...]], _typed.Program] = {}

    def _layout(self, arrow_type: pa.DataType) -> None:
        self.arrow_type = arrow_type
        self.root, self.specs = layout(arrow_type)

    def program(self, schema_id: int, indexes: tuple[int, ...] = ()) -> _typed.Program:
        """The program for payloads of writer schema ``schema_id`` (compiled on first use; one that fails every
        payload, with the reason, when the schema cannot be found or read)."""
        key = (schema_id, indexes)
        with self._lock:
            hit = self._programs.get(key)
        if hit is not None:
            return hit
        try:
            prog = self._compile(schema_id, indexes)
        except SchemaNotFoundError as exc:
            prog = failing_program(self.format, f"unknown schema id {schema_id}: {exc.reason}", E_UNKNOWN)
        except SchemaError as exc:
            prog = failing_program(self.format, f"writer schema {schema_id} cannot be read: {exc.reason}")
        with self._lock:
            return self._programs.setdefault(key, prog)

    @abstractmethod
    def _compile(self, schema_id: int, indexes: tuple[int, ...]) -> _typed.Program:
        """The program for a writer schema (raises SchemaError/SchemaNotFoundError)."""

    @abstractmethod
    def bare_program(self) -> _typed.Program:
        """The program for payloads written with the reader schema itself (the bare formats)."""

    def describe(self, program: _typed.Program, op: int) -> str:
        """Where in a value a failure at ``op`` was (a field path), or the reason of a failing program."""
        paths: list[Any] = program.paths
        return str(paths[op]) if 0 <= op < len(paths) else ""


# ------------------------------------------------------------------------------------------------ Avro
def parse_registered(source: SchemaSource | None, schema: RegisteredSchema) -> _avro.AvroType:
    """An Avro schema with the named types of its references (read from ``source``)."""
    named: dict[str, Any] = {}
    if schema.references:
        if source is None:
            raise SchemaError("an Avro schema with references needs a schema source to read them",
                              schema_id=schema.id)
        for _ref, target in source.references(schema):
            if target.schema_type != "AVRO":
                raise SchemaError(f"an Avro schema references {target.subject!r}, a {target.schema_type} schema",
                                  schema_id=schema.id)
            _avro.parse(target.schema, named, into=named)
    try:
        return _avro.parse(schema.schema, named)
    except SchemaError as exc:
        raise SchemaError(exc.reason, schema_id=schema.id if schema.id >= 0 else None, subject=schema.subject,
                          version=schema.version) from None


def _project(reader: _avro.AvroType, fields: Sequence[str] | None) -> _avro.AvroType:
    if fields is None:
        return reader
    if not isinstance(reader, _avro.Record):
        raise SchemaError("only a record's fields can be selected")
    by_name = {f.name: f for f in reader.fields}
    missing = [f for f in fields if f not in by_name]
    if missing:
        raise SchemaError(f"the reader schema {reader.name} has no field(s) {', '.join(map(repr, missing))} "
                          f"(it has {', '.join(by_name)})")
    return _avro.Record(reader.name, [by_name[f] for f in fields], reader.aliases)


class AvroPlan(FormatPlan):
    """Avro payloads read as ``reader`` (see :mod:`kvlog.schemas.avro_plan`); writer schemas come from
    ``source`` by id (None: every payload is written with the reader schema itself, the bare format)."""

    format = 0

    def __init__(self, reader: RegisteredSchema, source: SchemaSource | None, *,
                 fields: Sequence[str] | None = None) -> None:
        super().__init__()
        self.reader = reader
        self.source = source
        self.reader_type = parse_registered(source, reader)
        self.projected = _project(self.reader_type, fields)
        try:
            self._layout(avro_plan.arrow_type(self.projected))
        except SchemaError as exc:
            raise SchemaError(exc.reason, schema_id=reader.id if reader.id >= 0 else None, subject=reader.subject,
                              version=reader.version) from None
        self.top_bytes = False

    def bare_program(self) -> _typed.Program:
        """The program for the bare format (payloads written with the reader schema itself, a top-level bytes
        value with its length: the raw-bytes rule is the registry serializers')."""
        return avro_plan.compile_program(self.reader_type, self.projected, self.root)

    def _compile(self, schema_id: int, indexes: tuple[int, ...]) -> _typed.Program:
        if self.source is None:
            raise SchemaNotFoundError("no schema source")
        writer = self.source.by_id(schema_id)
        if writer.schema_type != "AVRO":
            raise SchemaError(f"it is a {writer.schema_type} schema, and the reader schema is Avro")
        return self._resolved(parse_registered(self.source, writer))

    def _resolved(self, writer: _avro.AvroType) -> _typed.Program:
        if isinstance(writer, _avro.Primitive) and writer.kind == "bytes" and writer.logical is None:
            # a top-level bytes value is written raw, without Avro's length (Confluent's serializers)
            return avro_plan.raw_bytes_program(self.projected, self.root)
        return avro_plan.compile_program(writer, self.projected, self.root)


# -------------------------------------------------------------------------------------------- Protobuf
class ProtobufPlan(FormatPlan):
    """Protobuf payloads read as message ``message`` of ``reader`` (default: the file's first message);
    a writer schema's payloads are read with the reader's message of the same full name (see
    :mod:`kvlog.schemas.proto_plan`)."""

    format = 1

    def __init__(self, reader: RegisteredSchema, source: SchemaSource | None, *, message: str | None = None,
                 fields: Sequence[str] | None = None) -> None:
        from kvlog.schemas import proto_plan  # (protobuf is imported only where Protobuf is read)

        super().__init__()
        self.reader = reader
        self.source = source
        self.schema = proto_plan.load(source, reader)
        self.message = self.schema.message(message) if message else self.schema.message_at((0,))
        self.fields = fields
        self._layout(proto_plan.arrow_type(self.schema, self.message, fields))
        self._reader_program: _typed.Program | None = None
        self._writers: dict[int, Any] = {}

    def bare_program(self) -> _typed.Program:
        from kvlog.schemas import proto_plan

        if self._reader_program is None:
            self._reader_program = proto_plan.compile_program(self.schema, self.message, self.root, self.fields)
        return self._reader_program

    def _compile(self, schema_id: int, indexes: tuple[int, ...]) -> _typed.Program:
        if self.source is None:
            raise SchemaNotFoundError("no schema source")
        writer = self.source.by_id(schema_id)
        if writer.schema_type != "PROTOBUF":
            raise SchemaError(f"it is a {writer.schema_type} schema, and the reader schema is Protobuf")
        from kvlog.schemas import proto_plan

        wschema = self._writers.get(schema_id)
        if wschema is None:
            wschema = self._writers[schema_id] = proto_plan.load(self.source, writer)
        name = wschema.message_at(indexes)
        if name != self.message:
            raise SchemaError(f"its payload is a {name.lstrip('.')} message, and the reader's is "
                              f"{self.message.lstrip('.')}")
        return self.bare_program()


# ------------------------------------------------------------------------------------------------ JSON
def _json_document(text: str, what: str) -> Any:
    import json

    try:
        return json.loads(text)
    except ValueError as exc:
        raise SchemaError(f"{what} is not JSON: {exc}") from None


class JsonPlan(FormatPlan):
    """JSON payloads typed by ``jtype`` (see :mod:`kvlog.schemas.json_plan`); with the registry's wire format,
    a writer schema id must be a JSON schema the source holds, and every writer is read with the one plan
    (JSON needs no resolution: fields match by name)."""

    format = 2

    def __init__(self, jtype: json_plan.JType, source: SchemaSource | None = None, *,
                 reader: RegisteredSchema | None = None, fields: Sequence[str] | None = None) -> None:
        super().__init__()
        self.reader = reader
        self.source = source
        self.jtype = jtype
        self.projected = json_plan.project(jtype, fields)
        self._layout(json_plan.arrow_type(self.projected))
        self._program: _typed.Program | None = None

    @classmethod
    def from_registered(cls, reader: RegisteredSchema, source: SchemaSource | None, *,
                        fields: Sequence[str] | None = None) -> JsonPlan:
        """A plan typed by a registered JSON Schema (its references read from ``source``)."""
        documents = {}
        if reader.references:
            if source is None:
                raise SchemaError("a JSON Schema with references needs a schema source to read them",
                                  schema_id=reader.id)
            for ref, target in source.references(reader):
                documents[ref.name] = _json_document(target.schema, f"the referenced schema {ref.name!r}")
        doc = _json_document(reader.schema, "the JSON Schema")
        try:
            jtype = json_plan.from_json_schema(doc, documents)
        except SchemaError as exc:
            raise SchemaError(exc.reason, schema_id=reader.id if reader.id >= 0 else None, subject=reader.subject,
                              version=reader.version) from None
        return cls(jtype, source, reader=reader, fields=fields)

    def bare_program(self) -> _typed.Program:
        if self._program is None:
            self._program = json_plan.compile_program(self.projected, self.root)
        return self._program

    def _compile(self, schema_id: int, indexes: tuple[int, ...]) -> _typed.Program:
        if self.source is not None:
            writer = self.source.by_id(schema_id)
            if writer.schema_type != "JSON":
                raise SchemaError(f"it is a {writer.schema_type} schema, and the reader schema is JSON")
        return self.bare_program()
