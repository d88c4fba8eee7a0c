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
from kvlog.schemas import avro_plan
from kvlog.schemas.columns import ColumnNode, layout
from kvlog.schemas.registry import RegisteredSchema, SchemaSource

__all__ = ["AvroPlan", "FormatPlan", "failing_program"]

FORMAT_CODES = {"AVRO": 0, "PROTOBUF": 1, "JSON": 2}
E_RESOLVE = 10
E_UNKNOWN = 12


def failing_program(format_code: int, reason: str, code: int = E_RESOLVE) -> _typed.Program:
    """A program every payload of which fails with ``code`` and ``reason`` (a writer schema that cannot be
    found or read: only its records fail, each with the reason)."""
    import numpy as np

    ops = np.array([[26, -1, code, 0, 0, 0]], dtype=np.int32)
    return _typed.Program(format_code, ops, np.zeros(0, np.int32), b"", np.zeros(1, np.int64), code, [reason])


class FormatPlan(ABC):
    """See the module's notes."""

    format: int
    arrow_type: pa.DataType
    root: ColumnNode
    specs: list[tuple[int, int, bool, list[int]]]
    #: the reader schema (None: a schema given as text, not registered)
    reader: RegisteredSchema | None

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
        """The program for the bare format (payloads written with the reader schema itself)."""
        return self._resolved(self.reader_type)

    def _compile(self, schema_id: int, indexes: tuple[int, ...]) -> _typed.Program:
        if self.source is None:
            raise SchemaNotFoundError("no schema source")
        writer = self.source.by_id(schema_id)
        if writer.schema_type != "AVRO":
            raise SchemaError(f"it is a {writer.schema_type} schema, and the reader schema is Avro")
        return self._resolved(parse_registered(self.source, writer))

    def _resolved(self, writer: _avro.AvroType) -> _typed.Program:
        if isinstance(writer, _avro.Primitive) and writer.kind == "bytes":
            # a top-level bytes value is written raw, without Avro's length (Confluent's serializers)
            return avro_plan.raw_bytes_program(self.projected, self.root)
        return avro_plan.compile_program(writer, self.projected, self.root)
