"""Protobuf messages as Arrow types, and the kernel programs that read them (csrc/proto.c).

A registered Protobuf schema is a ``.proto`` file (:mod:`kvlog.schemas.proto_text` reads its text; a
base64 ``FileDescriptorProto``, as some clients submit it, is read too) whose imports are its references.
A payload names its message by indexes into the writer's file; Protobuf needs no writer-to-reader
resolution (fields match by number), so every writer version is read with the reader's message of the
same full name: one program per message, whatever the schema id.

Arrow types: double, float → float64, float32; int32/sint32/sfixed32 → int32; int64/sint64/sfixed64 →
int64; uint32/fixed32 → uint32; uint64/fixed64 → uint64; bool → bool; string → string; bytes → binary;
enum → string (the value's name; a number the schema does not name, as an open enum keeps it, as its
digits); message → struct; repeated → list; map → map; oneof → its fields, only the set one not null.
Presence: a field with presence (a message, a proto3 ``optional``, a oneof member, a proto2 or editions
field with explicit presence) is null when absent; one without (a proto3 scalar) takes its zero. The
well-known types: Timestamp → timestamp[ns, UTC], Duration → duration[ns], the wrappers (Int32Value…) →
their nullable value, Struct/Value/ListValue → binary (the message's bytes), Any → struct<type_url, value>.
A recursive message has no Arrow type: a SchemaError.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import math
import struct
from collections.abc import Sequence
import numpy as np
import pyarrow as pa
from google.protobuf import descriptor_pb2 as d

from kvlog._core import typed as _typed
from kvlog.errors import SchemaError
from kvlog.schemas.columns import ColumnNode
from kvlog.schemas.proto_text import parse_proto
from kvlog.schemas.registry import RegisteredSchema, SchemaSource

__all__ = ["ProtoSchema", "arrow_type", "compile_program", "load"]

MESSAGE, FIELD, TIMESTAMP, DURATION, WRAPPER, RAW = range(1, 7)
REPEATED, PRESENCE, ZERO, CLOSED, MAP = 1, 2, 4, 8, 16
_FD = d.FieldDescriptorProto
_WRAPPERS = {
    "google.protobuf.DoubleValue": _FD.TYPE_DOUBLE, "google.protobuf.FloatValue": _FD.TYPE_FLOAT,
    "google.protobuf.Int64Value": _FD.TYPE_INT64, "google.protobuf.UInt64Value": _FD.TYPE_UINT64,
    "google.protobuf.Int32Value": _FD.TYPE_INT32, "google.protobuf.UInt32Value": _FD.TYPE_UINT32,
    "google.protobuf.BoolValue": _FD.TYPE_BOOL, "google.protobuf.StringValue": _FD.TYPE_STRING,
    "google.protobuf.BytesValue": _FD.TYPE_BYTES,
}
_RAW = ("google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue")
_SCALAR_TYPES = {
    _FD.TYPE_DOUBLE: pa.float64(), _FD.TYPE_FLOAT: pa.float32(), _FD.TYPE_INT64: pa.int64(),
    _FD.TYPE_SINT64: pa.int64(), _FD.TYPE_SFIXED64: pa.int64(), _FD.TYPE_UINT64: pa.uint64(),
    _FD.TYPE_FIXED64: pa.uint64(), _FD.TYPE_INT32: pa.int32(), _FD.TYPE_SINT32: pa.int32(),
    _FD.TYPE_SFIXED32: pa.int32(), _FD.TYPE_UINT32: pa.uint32(), _FD.TYPE_FIXED32: pa.uint32(),
    _FD.TYPE_BOOL: pa.bool_(), _FD.TYPE_STRING: pa.string(), _FD.TYPE_BYTES: pa.binary(),
    _FD.TYPE_ENUM: pa.string(),
}


class ProtoSchema:
    """A ``.proto`` file with its imports: every message and enum by full name (``pkg.Outer.Inner``)."""

    def __init__(self, main: d.FileDescriptorProto, files: dict[str, d.FileDescriptorProto]) -> None:
        self.main = main
        self.files = files
        self.messages: dict[str, tuple[d.DescriptorProto, d.FileDescriptorProto]] = {}
        self.enums: dict[str, d.EnumDescriptorProto] = {}
        self.closed: set[str] = set()  # enums a proto2 file declares: a number they do not name is unknown
        for f in [*_well_known(), *files.values(), main]:
            prefix = f".{f.package}" if f.package else ""
            for m in f.message_type:
                self._index(m, prefix, f)
            for e in f.enum_type:
                self._enum(e, prefix, f)

    def _enum(self, e: d.EnumDescriptorProto, prefix: str, f: d.FileDescriptorProto) -> None:
        name = f"{prefix}.{e.name}"
        self.enums[name] = e
        closed = f.syntax in ("proto2", "")
        if f.syntax == "editions":
            for opts in (e.options, f.options):
                if opts.HasField("features") and opts.features.HasField("enum_type"):
                    closed = opts.features.enum_type == d.FeatureSet.CLOSED
                    break
        if closed:
            self.closed.add(name)

    def _index(self, m: d.DescriptorProto, prefix: str, f: d.FileDescriptorProto) -> None:
        name = f"{prefix}.{m.name}"
        self.messages[name] = (m, f)
        for e in m.enum_type:
            self._enum(e, name, f)
        for n in m.nested_type:
            self._index(n, name, f)

    def message_named(self, name: str) -> tuple[d.DescriptorProto, d.FileDescriptorProto]:
        found = self.messages.get(name)
        if found is None:
            raise SchemaError(f"no message {name.lstrip('.')} in {self.main.name} or its imports")
        return found

    def message_at(self, indexes: Sequence[int]) -> str:
        """The full name (with a leading dot) of the main file's message at ``indexes`` (a top-level message,
        then nested messages by position), as a payload's message indexes name it."""
        if not indexes:
            indexes = (0,)
        prefix = f".{self.main.package}" if self.main.package else ""
        level: Sequence[d.DescriptorProto] = self.main.message_type
        name = prefix
        for i in indexes:
            if not 0 <= i < len(level):
                raise SchemaError(f"message indexes {list(indexes)} name no message of {self.main.name}")
            m = level[i]
            name = f"{name}.{m.name}"
            level = m.nested_type
        return name

    def message(self, name: str) -> str:
        """The full name of message ``name`` (given with or without its package or leading dot)."""
        if not name.startswith("."):
            for cand in (f".{name}", f".{self.main.package}.{name}" if self.main.package else None):
                if cand is not None and cand in self.messages:
                    return cand
        elif name in self.messages:
            return name
        known = ", ".join(sorted(n.lstrip(".") for n in self.messages if not n.startswith(".google.protobuf")))
        raise SchemaError(f"no message {name!r} in {self.main.name} (it has {known[:300]})")


_WELL_KNOWN: list[d.FileDescriptorProto] = []


def _well_known() -> list[d.FileDescriptorProto]:
    """The well-known types' files (Any, Empty, FieldMask...): imported by name, never registered as references."""
    if not _WELL_KNOWN:
        import importlib

        for n in ("any", "api", "duration", "empty", "field_mask", "source_context", "struct", "timestamp", "type",
                  "wrappers"):
            fd = d.FileDescriptorProto()
            importlib.import_module(f"google.protobuf.{n}_pb2").DESCRIPTOR.CopyToProto(fd)
            _WELL_KNOWN.append(fd)
    return _WELL_KNOWN


def _file(text: str, name: str, deps: dict[str, d.FileDescriptorProto]) -> d.FileDescriptorProto:
    try:
        return parse_proto(text, name, dependencies=deps)
    except SchemaError as exc:
        try:  # a base64 FileDescriptorProto, as confluent-kafka's serializer submits one
            raw = base64.b64decode(text.strip(), validate=True)
            fd = d.FileDescriptorProto()
            fd.ParseFromString(raw)
            if fd.message_type or fd.enum_type or fd.name:
                return fd
        except (binascii.Error, ValueError, Exception):  # noqa: BLE001 - the text error is the one to show
            pass
        raise exc from None


def load(source: SchemaSource | None, schema: RegisteredSchema) -> ProtoSchema:
    """A registered Protobuf schema with its references (imports) read from ``source``."""
    files: dict[str, d.FileDescriptorProto] = {}
    if schema.references:
        if source is None:
            raise SchemaError("a Protobuf schema with imports needs a schema source to read them", schema_id=schema.id)
        for ref, target in source.references(schema):
            if target.schema_type != "PROTOBUF":
                raise SchemaError(f"a Protobuf schema imports {ref.name!r}, a {target.schema_type} schema",
                                  schema_id=schema.id)
            files[ref.name] = _file(target.schema, ref.name, dict(files))
    try:
        main = _file(schema.schema, "schema.proto", dict(files))
    except SchemaError as exc:
        raise SchemaError(exc.reason, schema_id=schema.id if schema.id >= 0 else None, subject=schema.subject,
                          version=schema.version) from None
    return ProtoSchema(main, files)


def _has_presence(f: d.FieldDescriptorProto, file: d.FileDescriptorProto) -> bool:
    if f.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP) or f.HasField("oneof_index") or f.proto3_optional:
        return True
    if file.syntax == "proto3":
        return False
    if file.syntax == "editions":
        for opts in (f.options, file.options):
            if opts.HasField("features") and opts.features.HasField("field_presence"):
                return bool(opts.features.field_presence != d.FeatureSet.IMPLICIT)
        return True  # (edition 2023's default: explicit presence)
    return True  # proto2: explicit presence


def _is_map(schema: ProtoSchema, f: d.FieldDescriptorProto) -> d.DescriptorProto | None:
    if f.label != _FD.LABEL_REPEATED or f.type != _FD.TYPE_MESSAGE:
        return None
    entry = schema.messages.get(f.type_name)
    if entry is not None and entry[0].options.map_entry:
        return entry[0]
    return None


def arrow_type(schema: ProtoSchema, name: str, fields: Sequence[str] | None = None,
               _stack: tuple[str, ...] = ()) -> pa.DataType:
    """The Arrow type of message ``name`` (a full name), only ``fields`` of it when given."""
    if name in ("google.protobuf.Timestamp", ".google.protobuf.Timestamp"):
        return pa.timestamp("ns", tz="UTC")
    key = name.lstrip(".")
    if key == "google.protobuf.Duration":
        return pa.duration("ns")
    if key in _WRAPPERS:
        return _SCALAR_TYPES[_WRAPPERS[key]]
    if key in _RAW:
        return pa.binary()
    if name in _stack:
        raise SchemaError(f"the message {key} contains itself: a recursive message has no Arrow type")
    msg, file = schema.message_named(name)
    inner = (*_stack, name)
    out = []
    for f in _selected(msg, fields):
        out.append(pa.field(f.name, _field_type(schema, f, file, inner), nullable=True))
    return pa.struct(out)


def _selected(msg: d.DescriptorProto, fields: Sequence[str] | None) -> list[d.FieldDescriptorProto]:
    if fields is None:
        return list(msg.field)
    by_name = {f.name: f for f in msg.field}
    missing = [f for f in fields if f not in by_name]
    if missing:
        raise SchemaError(f"the message {msg.name} has no field(s) {', '.join(map(repr, missing))} "
                          f"(it has {', '.join(by_name)})")
    return [by_name[f] for f in fields]


def _value_type(schema: ProtoSchema, f: d.FieldDescriptorProto, file: d.FileDescriptorProto,
                stack: tuple[str, ...]) -> pa.DataType:
    if f.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return arrow_type(schema, f.type_name, None, stack)
    return _SCALAR_TYPES[f.type]


def _field_type(schema: ProtoSchema, f: d.FieldDescriptorProto, file: d.FileDescriptorProto,
                stack: tuple[str, ...]) -> pa.DataType:
    entry = _is_map(schema, f)
    if entry is not None:
        k, v = entry.field[0], entry.field[1]
        return pa.map_(_SCALAR_TYPES[k.type], pa.field("value", _value_type(schema, v, file, stack)))
    t = _value_type(schema, f, file, stack)
    if f.label == _FD.LABEL_REPEATED:
        return pa.list_(pa.field("element", t))
    return t


def _default(f: d.FieldDescriptorProto, schema: ProtoSchema) -> bytes | None:
    """A proto2 field's declared default as the kernel keeps it (int64/double little-endian, or bytes)."""
    if not f.HasField("default_value"):
        if f.type == _FD.TYPE_ENUM:  # an enum's default is its first value
            enum = schema.enums.get(f.type_name)
            if enum is not None and enum.value and enum.value[0].number != 0:
                return struct.pack("<q", enum.value[0].number)
        return None
    v = f.default_value
    if f.type == _FD.TYPE_STRING:
        return v.encode("utf-8")
    if f.type == _FD.TYPE_BYTES:
        return codecs.escape_decode(v.encode("latin-1"))[0]  # protoc's C escapes
    if f.type in (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT):
        x = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(v)
        return struct.pack("<d", float(v) if x is None else x)
    if f.type == _FD.TYPE_BOOL:
        return struct.pack("<q", 1 if v == "true" else 0)
    if f.type == _FD.TYPE_ENUM:
        enum = schema.enums.get(f.type_name)
        numbers = {e.name: e.number for e in enum.value} if enum is not None else {}
        return struct.pack("<q", numbers.get(v, 0))
    n = int(v, 0)
    if n >= 2**63:
        n -= 2**64
    return struct.pack("<q", n)


class _Emitter:
    def __init__(self) -> None:
        self.ops: list[list[int]] = []
        self.kids: list[int] = []
        self.blobs: list[bytes] = []
        self.paths: list[str] = []
        self.groups = 0
        self._group_ops: list[int] = []
        self._blob_index: dict[bytes, int] = {}

    def reserve(self, path: str) -> int:
        self.ops.append([0] * 8)
        self.paths.append(path)
        return len(self.ops) - 1

    def set(self, i: int, *vals: int) -> int:
        self.ops[i] = list(vals) + [0] * (8 - len(vals))
        return i

    def kid_range(self, items: list[int]) -> int:
        start = len(self.kids)
        self.kids.extend(items)
        return start

    def blob(self, raw: bytes) -> int:
        if raw not in self._blob_index:
            self._blob_index[raw] = len(self.blobs)
            self.blobs.append(raw)
        return self._blob_index[raw]

    def group_slot(self, count: int) -> int:
        """``count`` oneof slots (numbered from 0 here; placed after the ops when the program is made)."""
        first = self.groups
        self.groups += count
        return first

    def program(self, oneof_ops: list[tuple[int, int]]) -> _typed.Program:
        n = len(self.ops)
        for i, col in oneof_ops:  # (op, operand column): slots after the ops
            if self.ops[i][col] >= 0:
                self.ops[i][col] += n
        blob = b"".join(self.blobs)
        offs = np.zeros(len(self.blobs) + 1, dtype=np.int64)
        if self.blobs:
            offs[1:] = np.cumsum([len(b) for b in self.blobs])
        ops = np.array(self.ops, dtype=np.int32).reshape(-1, 8)
        return _typed.Program(1, ops, np.array(self.kids, dtype=np.int32), blob, offs, 0, self.paths,
                              n + self.groups)


class _Compiler:
    def __init__(self, schema: ProtoSchema) -> None:
        self.schema = schema
        self.e = _Emitter()
        self.patches: list[tuple[int, int]] = []

    def value(self, type_name: str, node: ColumnNode, path: str, zero: bool = False) -> int:
        key = type_name.lstrip(".")
        if key in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
            code = TIMESTAMP if key.endswith("Timestamp") else DURATION
            return self.e.set(self.e.reserve(path), code, node.index)
        if key in _WRAPPERS:
            return self.e.set(self.e.reserve(path), WRAPPER, node.index, 0, int(_WRAPPERS[key]))
        if key in _RAW:
            return self.e.set(self.e.reserve(path), RAW, node.index)
        return self.message(type_name, node, path)

    def message(self, name: str, node: ColumnNode, path: str, fields: Sequence[str] | None = None) -> int:
        msg, file = self.schema.message_named(name)
        i = self.e.reserve(path)
        selected = _selected(msg, fields)
        field_ops = []
        for k, f in enumerate(selected):
            sub = f"{path}.{f.name}" if path else f.name
            field_ops.append(self.field(f, file, node.children[k], sub, msg))
        # a projection keeps the other members of a selected field's oneof, read but not emitted (col -1): a
        # member set after the selected one still clears it
        chosen = {f.name for f in selected}
        groups = {f.oneof_index for f in selected if f.HasField("oneof_index")}
        hidden = [f for f in msg.field if f.name not in chosen and f.HasField("oneof_index")
                  and f.oneof_index in groups]
        for f in hidden:
            field_ops.append(self.field(f, file, None, f"{path}.{f.name}" if path else f.name, msg, parent_op=i))
        everything = [*selected, *hidden]
        numbers = [int(f.number) for f in everything]
        oneofs = len(msg.oneof_decl)
        first_group = self.e.group_slot(oneofs)
        for fi, f in zip(field_ops, everything):
            if f.HasField("oneof_index"):
                self.e.ops[fi][6] = first_group + f.oneof_index
                self.patches.append((fi, 6))
        top = max(numbers, default=0)
        if top < 64 or top <= 4 * len(numbers):
            table = [-1] * (top + 1)
            for num, fi in zip(numbers, field_ops):
                table[num] = fi
            lookup, size = self.e.kid_range(table), len(table)
        else:
            pairs = sorted(zip(numbers, field_ops))
            lookup, size = self.e.kid_range([x for p in pairs for x in p]), -len(pairs)
        fields_start = self.e.kid_range(field_ops)
        self.e.set(i, MESSAGE, node.index, lookup, size, fields_start, len(field_ops), first_group, oneofs)
        self.patches.append((i, 6))
        return i

    def field(self, f: d.FieldDescriptorProto, file: d.FileDescriptorProto, node: ColumnNode | None, path: str,
              parent: d.DescriptorProto, parent_op: int = -1) -> int:
        """A field's op; ``node`` None: a field read only for its oneof (a projection's hidden member)."""
        i = self.e.reserve(path)
        flags = 0
        sub = 0
        t = int(f.type)
        entry = _is_map(self.schema, f)
        repeated = f.label == _FD.LABEL_REPEATED
        value_node = (node.children[0] if repeated else node) if node is not None else None
        if entry is not None:
            flags |= REPEATED | MAP
            assert value_node is not None
            sub = self.map_entry(entry, value_node, path)
        else:
            if repeated:
                flags |= REPEATED
            elif _has_presence(f, file):
                flags |= PRESENCE
            if t in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
                sub = self.value(f.type_name, value_node, path) if value_node is not None else parent_op
            elif t == _FD.TYPE_ENUM:
                sub = self.enum_table(f.type_name)
                if f.type_name in self.schema.closed:
                    flags |= CLOSED
        default = _default(f, self.schema) if not repeated else None
        blob = self.e.blob(default) if default is not None else -1
        oneof = -1  # (set by the message, which knows its oneof slots)
        col = node.index if node is not None else -1
        return self.e.set(i, FIELD, col, int(f.number), t, flags, sub, oneof, blob)

    def map_entry(self, entry: d.DescriptorProto, node: ColumnNode, path: str) -> int:
        """A map's entry message: key and value without presence, a message value zero when absent."""
        i = self.e.reserve(f"{path}{{}}")
        ops = []
        for k, f in enumerate(entry.field[:2]):
            fi = self.e.reserve(f"{path}.{f.name}")
            t = int(f.type)
            sub = 0
            flags = 0
            if t in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
                sub = self.value(f.type_name, node.children[k], f"{path}.{f.name}")
                flags = ZERO
            elif t == _FD.TYPE_ENUM:
                sub = self.enum_table(f.type_name)
                if f.type_name in self.schema.closed:
                    flags |= CLOSED
            self.e.set(fi, FIELD, node.children[k].index, int(f.number), t, flags, sub, -1, -1)
            ops.append(fi)
        table = [-1, ops[0], ops[1]]
        self.e.set(i, MESSAGE, node.index, self.e.kid_range(table), 3, self.e.kid_range(ops), 2, 0, 0)
        return i

    def enum_table(self, type_name: str) -> int:
        enum = self.schema.enums.get(type_name)
        if enum is None:
            raise SchemaError(f"no enum {type_name.lstrip('.')}")
        names: dict[int, str] = {}
        for v in enum.value:
            names.setdefault(int(v.number), v.name)  # (an alias: the first name of a number)
        pairs = sorted(names.items())
        flat = [len(pairs)]
        for num, name in pairs:
            flat += [num, self.e.blob(name.encode())]
        return self.e.kid_range(flat)


def compile_program(schema: ProtoSchema, message: str, root: ColumnNode,
                    fields: Sequence[str] | None = None) -> _typed.Program:
    """The program reading payloads of ``message`` (a full name) into the columns laid out as ``root``."""
    c = _Compiler(schema)
    key = message.lstrip(".")
    if key in _WRAPPERS or key in _RAW or key in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
        c.value(message, root, "")
    else:
        c.message(message, root, "", fields)
    return c.e.program(c.patches)

