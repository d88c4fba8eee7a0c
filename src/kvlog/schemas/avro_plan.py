"""Avro reader schemas as Arrow types, and writer-to-reader resolution compiled into kernel programs.

The reader schema (a subject's latest version, or one the user names) fixes the table's columns; every
writer schema a topic holds gets its own program that reads its payloads into those columns, following
Avro's schema resolution: writer fields the reader lacks are skipped, reader fields the writer lacks take
their defaults, fields match by name or the reader's aliases, int/long/float widen, string and bytes
interchange, enum symbols map by name (or to the reader's default), unions choose their branch per value.
What cannot be resolved fails only the records that need it (a writer union branch the reader cannot
read), or every record of that writer schema (a reader field without a default), with the reason kept.

Arrow types: null → null; boolean, int, long, float, double → bool, int32, int64, float32, float64;
string → string; bytes → binary; fixed(n) → fixed_size_binary(n); enum → string (the symbol); record →
struct; array → list; map → map<string, V>; ``["null", T]`` → a nullable T; any other union → a struct
with one field per non-null branch (``member0``, ``member1``… as Spark's ``from_avro`` names them), the
branch read set and the others null. Logical types: decimal → decimal128 (decimal256 past 38 digits),
uuid → string, date → date32, time-millis → time32[ms], time-micros → time64[us],
timestamp-millis/micros/nanos → timestamp[ms/us/ns, UTC], local-timestamp-* → timestamp without a zone,
duration → month_day_nano_interval. A recursive record has no Arrow type: a SchemaError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from kvlog._core import typed as _typed
from kvlog.errors import SchemaError
from kvlog.schemas.avro import Array, AvroType, Enum, Fixed, Map, Primitive, Record, Union_, encode_default, short_name
from kvlog.schemas.columns import ColumnNode

__all__ = ["arrow_type", "compile_program", "skip_program"]

(NULL, BOOL, INT, INT_LONG, INT_FLOAT, INT_DOUBLE, LONG, LONG_FLOAT, LONG_DOUBLE, FLOAT, FLOAT_DOUBLE, DOUBLE,
 BYTES, STRING, FIXED, ENUM, DEC_BYTES, DEC_FIXED, DURATION, RECORD, DEFAULT, UNION, MEMBER, ARRAY, MAP,
 FAIL, REST) = range(1, 28)
E_RESOLVE = 10  # kvlog_columns.h: KV_E_RESOLVE

_TIMESTAMPS = {
    "timestamp-millis": pa.timestamp("ms", tz="UTC"), "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "timestamp-nanos": pa.timestamp("ns", tz="UTC"), "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"), "local-timestamp-nanos": pa.timestamp("ns"),
}
_PRIMITIVE_TYPES = {
    "null": pa.null(), "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
    "double": pa.float64(), "bytes": pa.binary(), "string": pa.string(),
}


def _nullable_branch(u: Union_) -> AvroType | None:
    """T of a union of null and one T."""
    others = [b for b in u.branches if b.kind != "null"]
    if len(others) == 1 and len(u.branches) == 2:
        return others[0]
    return None


def _members(u: Union_) -> list[AvroType]:
    return [b for b in u.branches if b.kind != "null"]


def can_be_null(t: AvroType) -> bool:
    return t.kind == "null" or (isinstance(t, Union_) and any(b.kind == "null" for b in t.branches))


def _decimal(precision: int, scale: int) -> pa.DataType:
    if precision > 76:
        raise SchemaError(f"a decimal of precision {precision}: Arrow's decimals hold 76 digits at most")
    return pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)


def arrow_type(t: AvroType, _stack: tuple[str, ...] = ()) -> pa.DataType:
    """The Arrow type a reader schema's values take (see the module's notes)."""
    if isinstance(t, Primitive):
        if t.logical == "decimal":
            return _decimal(t.precision, t.scale)
        if t.logical in _TIMESTAMPS:
            return _TIMESTAMPS[t.logical]
        if t.logical == "date":
            return pa.date32()
        if t.logical == "time-millis":
            return pa.time32("ms")
        if t.logical == "time-micros":
            return pa.time64("us")
        return _PRIMITIVE_TYPES[t.kind]
    if isinstance(t, Fixed):
        if t.logical == "decimal":
            return _decimal(t.precision, t.scale)
        if t.logical == "duration":
            return pa.month_day_nano_interval()
        return pa.binary(t.size)
    if isinstance(t, Enum):
        return pa.string()
    if isinstance(t, Array):
        return pa.list_(pa.field("element", arrow_type(t.items, _stack), nullable=can_be_null(t.items)))
    if isinstance(t, Map):
        return pa.map_(pa.string(), pa.field("value", arrow_type(t.values, _stack), nullable=can_be_null(t.values)))
    if isinstance(t, Record):
        if t.name in _stack:
            raise SchemaError(f"the record {t.name} contains itself: a recursive Avro type has no Arrow type")
        inner = (*_stack, t.name)
        return pa.struct([pa.field(f.name, arrow_type(f.type, inner), nullable=can_be_null(f.type))
                          for f in t.fields])
    assert isinstance(t, Union_)
    single = _nullable_branch(t)
    if single is not None:
        return arrow_type(single, _stack)
    members = _members(t)
    if not members:
        return pa.null()
    if len(members) == 1 and len(t.branches) == 1:
        return arrow_type(members[0], _stack)
    return pa.struct([pa.field(f"member{i}", arrow_type(m, _stack)) for i, m in enumerate(members)])


# ------------------------------------------------------------------------------------------- matching
def _names(t: Record | Enum | Fixed) -> set[str]:
    return {t.name, short_name(t.name), *t.aliases, *(short_name(a) for a in t.aliases)}


def _same_name(w: Record | Enum | Fixed, r: Record | Enum | Fixed) -> bool:
    return w.name == r.name or short_name(w.name) in _names(r)


_PROMOTIONS = {
    ("int", "long"): INT_LONG, ("int", "float"): INT_FLOAT, ("int", "double"): INT_DOUBLE,
    ("long", "float"): LONG_FLOAT, ("long", "double"): LONG_DOUBLE, ("float", "double"): FLOAT_DOUBLE,
    ("string", "bytes"): BYTES, ("bytes", "string"): STRING,
}


def _exact(w: AvroType, r: AvroType) -> bool:
    if w.kind != r.kind:
        return False
    if isinstance(w, (Record, Enum, Fixed)) and isinstance(r, (Record, Enum, Fixed)):
        return w.name == r.name
    return True


def _matches(w: AvroType, r: AvroType) -> bool:
    if isinstance(w, (Record, Enum, Fixed)) and isinstance(r, (Record, Enum, Fixed)):
        return w.kind == r.kind and _same_name(w, r) and (not isinstance(w, Fixed) or w.size == getattr(r, "size", -1))
    if w.kind == r.kind:
        return True
    return (w.kind, r.kind) in _PROMOTIONS


def _branch_for(w: AvroType, members: list[AvroType]) -> int | None:
    """The reader branch a writer type is read as: the first exact match, else the first that matches by
    name or promotion (as Avro's Java resolver picks it)."""
    for i, r in enumerate(members):
        if _exact(w, r):
            return i
    for i, r in enumerate(members):
        if _matches(w, r):
            return i
    return None


# ------------------------------------------------------------------------------------------- compiling
class _Unresolvable(Exception):
    """A writer schema that cannot be read as the reader schema at all."""


class _Emitter:
    def __init__(self) -> None:
        self.ops: list[list[int]] = []
        self.kids: list[int] = []
        self.blobs: list[bytes] = []
        self.paths: list[str] = []
        self._blob_index: dict[bytes, int] = {}

    def reserve(self, path: str) -> int:
        self.ops.append([FAIL, -1, 0, 0, 0, 0, 0, 0])
        self.paths.append(path)
        return len(self.ops) - 1

    def set(self, i: int, code: int, col: int = -1, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> int:
        self.ops[i] = [code, col, a, b, c, d, 0, 0]
        return i

    def op(self, path: str, code: int, col: int = -1, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> int:
        return self.set(self.reserve(path), code, col, a, b, c, d)

    def kid_range(self, items: list[int]) -> int:
        start = len(self.kids)
        self.kids.extend(items)
        return start

    def blob(self, raw: bytes) -> int:
        if raw not in self._blob_index:
            self._blob_index[raw] = len(self.blobs)
            self.blobs.append(raw)
        return self._blob_index[raw]

    def program(self, fail_code: int = 0) -> _typed.Program:
        blob = b"".join(self.blobs)
        offs = np.zeros(len(self.blobs) + 1, dtype=np.int64)
        if self.blobs:
            offs[1:] = np.cumsum([len(b) for b in self.blobs])
        ops = np.array(self.ops, dtype=np.int32).reshape(-1, 8)
        return _typed.Program(0, ops, np.array(self.kids, dtype=np.int32), blob, offs, fail_code, self.paths)


def _min_size_zero(t: AvroType, stack: tuple[str, ...] = ()) -> bool:
    """Whether a value of ``t`` may take no bytes at all (an array of them needs an item limit)."""
    if isinstance(t, Primitive):
        return t.kind == "null"
    if isinstance(t, Fixed):
        return t.size == 0
    if isinstance(t, Record):
        if t.name in stack:
            return False
        return all(_min_size_zero(f.type, (*stack, t.name)) for f in t.fields)
    return False  # enums, arrays, maps and unions take a byte at least


class _Compiler:
    def __init__(self) -> None:
        self.e = _Emitter()

    def fail_op(self, path: str, why: str) -> int:
        return self.e.op(f"{path}: {why}" if path else why, FAIL, -1, E_RESOLVE)

    def resolve(self, w: AvroType, r: AvroType, node: ColumnNode | None, path: str, stack: tuple[tuple[str, str], ...] = ()) -> int:
        """The op reading a ``w`` value as ``r`` into ``node`` (None: read and discard)."""
        if len(stack) > 200:
            raise SchemaError(f"{path}: nested too deep")
        col = node.index if node is not None else -1
        if isinstance(w, Union_):
            i = self.e.reserve(path)
            branches = [self.resolve(b, r, node, path, stack) for b in w.branches]
            return self.e.set(i, UNION, -1, self.e.kid_range(branches), len(branches))
        if isinstance(r, Union_):
            return self.into_union(w, r, node, path, stack)
        if w.kind == "null":
            if r.kind != "null":
                return self.fail_op(path, f"the writer's null cannot be read as {r.kind}")
            return self.e.op(path, NULL, col)
        if isinstance(w, Primitive) and isinstance(r, Primitive):
            return self.primitive(w, r, col, path)
        if isinstance(w, Record) and isinstance(r, Record):
            if not _same_name(w, r):
                return self.fail_op(path, f"the writer's record {w.name} is not the reader's {r.name}")
            return self.record(w, r, node, path, stack)
        if isinstance(w, Enum) and isinstance(r, Enum):
            if not _same_name(w, r):
                return self.fail_op(path, f"the writer's enum {w.name} is not the reader's {r.name}")
            syms = []
            for s in w.symbols:
                if s in r.symbols:
                    syms.append(self.e.blob(s.encode()))
                elif r.default is not None:
                    syms.append(self.e.blob(r.default.encode()))
                else:
                    syms.append(-1)
            return self.e.op(path, ENUM, col, self.e.kid_range(syms), len(syms))
        if isinstance(w, Fixed) and isinstance(r, Fixed):
            if not _same_name(w, r) or w.size != r.size:
                return self.fail_op(path, f"the writer's fixed {w.name}({w.size}) is not the reader's "
                                          f"{r.name}({r.size})")
            if col >= 0 and r.logical == "decimal":
                return self.e.op(path, DEC_FIXED, col, w.size, self.bound(r.precision, node))
            if col >= 0 and r.logical == "duration":
                return self.e.op(path, DURATION, col)
            return self.e.op(path, FIXED, col, w.size)
        if isinstance(w, Array) and isinstance(r, Array):
            i = self.e.reserve(path)
            item = self.resolve(w.items, r.items, node.children[0] if node else None, f"{path}[]", stack)
            return self.e.set(i, ARRAY, col, item, 0, 0, 1 if _min_size_zero(w.items) else 0)
        if isinstance(w, Map) and isinstance(r, Map):
            i = self.e.reserve(path)
            value = self.resolve(w.values, r.values, node.children[0].children[1] if node else None,
                                 f"{path}{{}}", stack)
            return self.e.set(i, MAP, col, value)
        return self.fail_op(path, f"the writer's {_describe(w)} cannot be read as {_describe(r)}")

    def primitive(self, w: Primitive, r: Primitive, col: int, path: str) -> int:
        if col < 0:  # skipped: how the writer's bytes are walked is all that matters
            code = {"boolean": BOOL, "int": INT, "long": LONG, "float": FLOAT, "double": DOUBLE, "bytes": BYTES,
                    "string": BYTES}[w.kind]
            return self.e.op(path, code, -1)
        time_of_day = 1 if r.logical in ("time-millis", "time-micros") else 0  # (a value out of the day fails)
        if w.kind == r.kind:
            if r.logical == "decimal" and r.kind == "bytes":
                return self.e.op(path, DEC_BYTES, col, self.bound(r.precision, None, r))
            code = {"boolean": BOOL, "int": INT, "long": LONG, "float": FLOAT, "double": DOUBLE, "bytes": BYTES,
                    "string": STRING}[w.kind]
            return self.e.op(path, code, col, 0, 0, 0, time_of_day if code in (INT, LONG) else 0)
        promoted = _PROMOTIONS.get((w.kind, r.kind))
        if promoted is None or (r.logical == "decimal"):
            return self.fail_op(path, f"the writer's {w.kind} cannot be read as {r.kind}")
        return self.e.op(path, promoted, col, 0, 0, 0, time_of_day if promoted == INT_LONG else 0)

    def bound(self, precision: int, node: ColumnNode | None, r: Primitive | None = None) -> int:
        width = 16 if precision <= 38 else 32
        return self.e.blob((10 ** precision).to_bytes(width, "little"))

    def record(self, w: Record, r: Record, node: ColumnNode | None, path: str,
               stack: tuple[tuple[str, str], ...]) -> int:
        key = (w.name, r.name)
        if key in stack and node is not None:
            raise SchemaError(f"{path}: the record {r.name} contains itself")
        if w.name in [s[0] for s in stack] and node is None:
            # a recursive writer record that is only skipped has no finite program
            raise SchemaError(f"{path}: the writer's record {w.name} contains itself and cannot be skipped")
        inner = (*stack, key)
        i = self.e.reserve(path)
        kids = []
        matched: set[int] = set()
        reader_index: dict[str, int] = {}
        for k, f in enumerate(r.fields):
            reader_index.setdefault(f.name, k)
        for k, f in enumerate(r.fields):
            for a in f.aliases:
                reader_index.setdefault(a, k)
        for wf in w.fields:
            found = reader_index.get(wf.name) if node is not None else None
            sub = f"{path}.{wf.name}" if path else wf.name
            if found is None or found in matched:
                kids.append(self.resolve(wf.type, wf.type, None, sub, inner))
                continue
            matched.add(found)
            kids.append(self.resolve(wf.type, r.fields[found].type, node.children[found] if node else None, sub,
                                     inner))
        if node is not None:
            for k, rf in enumerate(r.fields):
                if k in matched:
                    continue
                sub = f"{path}.{rf.name}" if path else rf.name
                if not rf.has_default:
                    raise _Unresolvable(f"the reader's field {sub} has no default and the writer's record "
                                        f"{w.name} has no such field")
                d = self.e.reserve(sub)
                reader = self.resolve(rf.type, rf.type, node.children[k], sub, inner)
                raw = encode_default(rf.type, rf.default, f"field {sub}")
                self.e.set(d, DEFAULT, -1, self.e.blob(raw), reader)
                kids.append(d)
        return self.e.set(i, RECORD, -1 if node is None else node.index, self.e.kid_range(kids), len(kids))

    def into_union(self, w: AvroType, r: Union_, node: ColumnNode | None, path: str,
                   stack: tuple[tuple[str, str], ...]) -> int:
        """A writer value (not a union) read into a reader union."""
        col = node.index if node is not None else -1
        single = _nullable_branch(r)
        if w.kind == "null":
            if not any(b.kind == "null" for b in r.branches):
                return self.fail_op(path, "the writer's null has no branch in the reader's union")
            return self.e.op(path, NULL, col)
        if single is not None:
            if _branch_for(w, [single]) is None:
                return self.fail_op(path, f"the writer's {_describe(w)} has no branch in the reader's union")
            return self.resolve(w, single, node, path, stack)
        members = _members(r)
        k = _branch_for(w, members)
        if k is None:
            return self.fail_op(path, f"the writer's {_describe(w)} has no branch in the reader's union")
        if len(members) == 1 and len(r.branches) == 1:
            return self.resolve(w, members[0], node, path, stack)
        i = self.e.reserve(path)
        sub = self.resolve(w, members[k], node.children[k] if node else None, f"{path}.member{k}", stack)
        return self.e.set(i, MEMBER, col, k, sub)


def _describe(t: AvroType) -> str:
    if isinstance(t, (Record, Enum, Fixed)):
        return f"{t.kind} {t.name}"
    return t.kind


def compile_program(writer: AvroType, reader: AvroType, root: ColumnNode) -> _typed.Program:
    """The program reading payloads written with ``writer`` into the columns of ``reader`` (laid out as
    ``root``). A writer that cannot be read at all gives a program whose every payload fails (its reason in
    ``program.paths[0]``)."""
    c = _Compiler()
    try:
        c.resolve(writer, reader, root, "")
    except (_Unresolvable, SchemaError) as exc:
        e = _Emitter()
        e.op(str(exc), FAIL, -1, E_RESOLVE)
        return e.program(E_RESOLVE)
    return c.e.program()


def raw_bytes_program(reader: AvroType, root: ColumnNode) -> _typed.Program:
    """The program for a writer schema that is a bare ``bytes``: Confluent's serializers write such a value
    raw, without Avro's length prefix, and the payload's rest is the value."""
    e = _Emitter()
    r = reader
    if isinstance(r, Union_):
        r = _nullable_branch(r) or r
    if not isinstance(r, Primitive) or r.kind not in ("bytes", "string") or r.logical == "decimal":
        e.op(f"the writer's bytes cannot be read as {_describe(reader)}", FAIL, -1, E_RESOLVE)
        return e.program(E_RESOLVE)
    e.op("", REST, root.index, 1 if r.kind == "string" else 0)
    return e.program()


def skip_program(writer: AvroType) -> _typed.Program:
    """A program that only walks a ``writer`` payload (a check that it is well formed)."""
    c = _Compiler()
    c.resolve(writer, writer, None, "")
    return c.e.program()


def describe_failure(program: _typed.Program, op: int) -> str:
    """Where in the value a failure happened: the field path of the op."""
    paths: list[Any] = program.paths
    if 0 <= op < len(paths):
        return str(paths[op])
    return ""
