"""JSON values as Arrow columns: typed by a JSON Schema, by Kafka Connect's embedded schema, or by a schema
inferred from the records themselves; and the kernel programs that read them (csrc/json.c).

Every source of types becomes a :class:`JType` tree first, then one Arrow type and one program:

* **JSON Schema** (a registry's ``JSON`` schemas): ``object`` with ``properties`` → struct (a key the schema
  does not name is skipped, or, where ``additionalProperties`` is ``true`` or a schema, kept with the others
  as a JSON object in a string field ``additionalProperties``; an object with no ``properties`` whose
  ``additionalProperties`` is a schema → map); ``array`` → list; ``integer`` → int64; ``number`` → float64;
  ``string`` → string, with ``format: date-time`` → timestamp[us, UTC] and ``format: date`` → date32;
  ``boolean``; ``null``. ``["T", "null"]`` and ``anyOf``/``oneOf`` of null and one schema are a nullable T;
  ``allOf`` of objects merges them; ``$ref`` resolves in the document (``#/definitions/…``, ``#/$defs/…``) and
  in referenced schemas. What has no single type (other unions, a schema with no type, a recursive
  ``$ref``) is its JSON text in a string column.
* **Kafka Connect's JsonConverter envelope** (``{"schema": …, "payload": …}``, as Debezium writes it with
  ``schemas.enable``): the payload typed by the Connect schema (int8…int64, float, double, boolean, string,
  bytes as base64, array, map, struct; Decimal, Date, Time, Timestamp).
* **Inference** (schemaless JSON): sampled records merged as DuckDB's ``read_json_auto`` and Spark's JSON
  reader do: integers and numbers widen to float64, objects merge their keys (in the order first seen),
  arrays merge their items, nulls take the other side's type; values that disagree otherwise, and fields
  that were only ever null, become JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog._core import typed as _typed
from kvlog.errors import SchemaError
from kvlog.schemas.columns import ColumnNode

__all__ = ["JType", "arrow_type", "compile_program", "from_connect", "from_json_schema", "infer", "merge"]

(OBJECT, ARRAY, MAP, STRING, INT, NUMBER, BOOL, NULL, TIMESTAMP, DATE, RAW, BASE64, DECIMAL,
 ENVELOPE) = range(1, 15)
EXTRA = "additionalProperties"


@dataclass
class JType:
    kind: str  # object array map string int number bool null timestamp date raw base64 decimal envelope
    fields: list[tuple[str, JType]] = field(default_factory=list)
    item: JType | None = None
    extra: bool = False
    width: int = 8
    precision: int = 0
    scale: int = 0
    unit: str = ""  # int: an Arrow type it stands for (date32, time32[ms], timestamp[ms])


RAW_T = JType("raw")


# ------------------------------------------------------------------------------------------ Arrow
def arrow_type(t: JType) -> pa.DataType:
    k = t.kind
    if k == "object":
        fields = [pa.field(n, arrow_type(f)) for n, f in t.fields]
        if t.extra:
            fields.append(pa.field(EXTRA, pa.string()))
        return pa.struct(fields)
    if k == "array":
        assert t.item is not None
        return pa.list_(pa.field("element", arrow_type(t.item)))
    if k == "map":
        assert t.item is not None
        return pa.map_(pa.string(), pa.field("value", arrow_type(t.item)))
    if k == "envelope":
        assert t.item is not None
        return arrow_type(t.item)
    if k == "int":
        if t.unit == "date32":
            return pa.date32()
        if t.unit == "time32[ms]":
            return pa.time32("ms")
        if t.unit == "timestamp[ms]":
            return pa.timestamp("ms", tz="UTC")
        return {1: pa.int8(), 2: pa.int16(), 4: pa.int32(), 8: pa.int64()}[t.width]
    if k == "number":
        return pa.float32() if t.width == 4 else pa.float64()
    if k == "decimal":
        return pa.decimal128(t.precision, t.scale)
    return {"string": pa.string(), "bool": pa.bool_(), "null": pa.null(), "timestamp": pa.timestamp("us", tz="UTC"),
            "date": pa.date32(), "raw": pa.string(), "base64": pa.binary()}[k]


def project(t: JType, fields: Sequence[str] | None) -> JType:
    """Only ``fields`` of a top-level object (the others are skipped, not kept as additional properties)."""
    if fields is None:
        return t
    inner = t.item if t.kind == "envelope" else t
    if inner is None or inner.kind != "object":
        raise SchemaError("only an object's fields can be selected")
    by_name = dict(inner.fields)
    missing = [f for f in fields if f not in by_name and not (f == EXTRA and inner.extra)]
    if missing:
        raise SchemaError(f"the JSON values have no field(s) {', '.join(map(repr, missing))} "
                          f"(they have {', '.join(by_name)})")
    out = JType("object", [(f, by_name[f]) for f in fields if f in by_name], extra=EXTRA in fields)
    return JType("envelope", item=out) if t.kind == "envelope" else out


# --------------------------------------------------------------------------------------- programs
def _fnv(raw: bytes) -> int:
    h = 2166136261
    for b in raw:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


class _Emitter:
    def __init__(self) -> None:
        self.ops: list[list[int]] = []
        self.kids: list[int] = []
        self.blobs: list[bytes] = []
        self.paths: list[str] = []

    def reserve(self, path: str) -> int:
        self.ops.append([0] * 8)
        self.paths.append(path)
        return len(self.ops) - 1

    def set(self, i: int, *vals: int) -> int:
        self.ops[i] = list(vals) + [0] * (8 - len(vals))
        return i

    def blob(self, raw: bytes) -> int:
        self.blobs.append(raw)
        return len(self.blobs) - 1

    def op(self, t: JType, node: ColumnNode, path: str) -> int:
        i = self.reserve(path)
        k = t.kind
        if k == "object":
            children = node.children
            ops = [self.op(f, children[n], f"{path}.{name}" if path else name) for n, (name, f) in enumerate(t.fields)]
            names = [self.blob(name.encode()) for name, _ in t.fields]
            size = 1
            while size < 2 * max(len(ops), 1):
                size *= 2
            table = [-1] * size
            for pos, (name, _) in enumerate(t.fields):
                h = _fnv(name.encode()) & (size - 1)
                while table[h] >= 0:
                    h = (h + 1) & (size - 1)
                table[h] = pos
            start = len(self.kids)
            self.kids += table
            fields_start = len(self.kids)
            self.kids += ops + names
            extra = children[len(t.fields)].index if t.extra else -1
            return self.set(i, OBJECT, node.index, start, size, fields_start, len(ops), extra)
        if k in ("array", "map"):
            assert t.item is not None
            child = node.children[0] if k == "array" else node.children[0].children[1]
            item = self.op(t.item, child, f"{path}[]" if k == "array" else f"{path}{{}}")
            return self.set(i, ARRAY if k == "array" else MAP, node.index, item)
        if k == "envelope":
            assert t.item is not None
            return self.set(i, ENVELOPE, -1, self.op(t.item, node, path))
        if k == "decimal":
            return self.set(i, DECIMAL, node.index, self.blob((10 ** t.precision).to_bytes(16, "little")), t.scale)
        code = {"string": STRING, "int": INT, "number": NUMBER, "bool": BOOL, "null": NULL, "timestamp": TIMESTAMP,
                "date": DATE, "raw": RAW, "base64": BASE64}[k]
        return self.set(i, code, node.index)

    def program(self) -> _typed.Program:
        blob = b"".join(self.blobs)
        offs = np.zeros(len(self.blobs) + 1, dtype=np.int64)
        if self.blobs:
            offs[1:] = np.cumsum([len(b) for b in self.blobs])
        ops = np.array(self.ops, dtype=np.int32).reshape(-1, 8)
        return _typed.Program(2, ops, np.array(self.kids, dtype=np.int32), blob, offs, 0, self.paths)


def compile_program(t: JType, root: ColumnNode) -> _typed.Program:
    e = _Emitter()
    e.op(t, root, "")
    return e.program()


# ------------------------------------------------------------------------------------- JSON Schema
class _Resolver:
    def __init__(self, root: Any, documents: dict[str, Any]) -> None:
        self.root = root
        self.documents = documents

    def ref(self, ref: str, doc: Any) -> tuple[Any, Any]:
        """The schema ``ref`` names and the document it is in."""
        base, _, pointer = ref.partition("#")
        if base:
            if base not in self.documents:
                raise SchemaError(f"$ref {ref!r} names a schema that is not referenced")
            doc = self.documents[base]
        node = doc
        for part in [p for p in pointer.split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise SchemaError(f"$ref {ref!r} names nothing")
        return node, doc


def from_json_schema(schema: Any, documents: dict[str, Any] | None = None) -> JType:
    """The JType of a JSON Schema (parsed JSON); ``documents``: referenced schemas by their reference name."""
    r = _Resolver(schema, documents or {})
    return _schema(schema, schema, r, (), 0)


def _nullable_one(options: list[Any], doc: Any, r: _Resolver, stack: tuple[int, ...], depth: int) -> JType | None:
    rest = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
    if len(rest) == 1:
        return _schema(rest[0], doc, r, stack, depth + 1)
    return None


def _schema(s: Any, doc: Any, r: _Resolver, stack: tuple[int, ...], depth: int) -> JType:
    if depth > 64:
        return RAW_T
    if s is True or s == {}:
        return RAW_T
    if not isinstance(s, dict):
        raise SchemaError(f"a JSON Schema must be an object, not {json.dumps(s)[:60]}")
    if "$ref" in s:
        if id(s) in stack:
            return RAW_T  # (a recursive schema: its JSON text)
        target, tdoc = r.ref(str(s["$ref"]), doc)
        return _schema(target, tdoc, r, (*stack, id(s)), depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in s and isinstance(s[key], list):
            one = _nullable_one(s[key], doc, r, stack, depth)
            if one is not None:
                return one
            parts = [_schema(o, doc, r, stack, depth + 1) for o in s[key]
                     if not (isinstance(o, dict) and o.get("type") == "null")]
            if parts and all(p.kind == "object" for p in parts):
                return _merge_all(parts)
            return RAW_T
    if "allOf" in s and isinstance(s["allOf"], list):
        parts = [_schema(o, doc, r, stack, depth + 1) for o in s["allOf"]]
        base = {k: v for k, v in s.items() if k != "allOf"}
        if base.get("properties") or base.get("type"):
            parts.insert(0, _schema(base, doc, r, stack, depth + 1))
        if parts and all(p.kind == "object" for p in parts):
            return _merge_all(parts)
        return parts[0] if len(parts) == 1 else RAW_T
    t = s.get("type")
    if isinstance(t, list):
        kinds = [k for k in t if k != "null"]
        if len(kinds) == 1:
            return _schema({**s, "type": kinds[0]}, doc, r, stack, depth + 1)
        if sorted(kinds) == ["integer", "number"]:
            return JType("number")
        return RAW_T
    if t is None:
        if "properties" in s:
            t = "object"
        elif "items" in s:
            t = "array"
        elif "enum" in s or "const" in s:
            values = s.get("enum", [s.get("const")])
            if values and all(isinstance(v, str) for v in values):
                return JType("string")
            if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                return JType("int")
            return RAW_T
        else:
            return RAW_T
    if t == "object":
        props = s.get("properties") or {}
        if not isinstance(props, dict):
            raise SchemaError("properties must be an object")
        extra = s.get("additionalProperties")
        if not props:
            if isinstance(extra, dict) and extra:
                return JType("map", item=_schema(extra, doc, r, stack, depth + 1))
            return RAW_T  # a free-form object: its JSON
        fields = [(str(k), _schema(v, doc, r, stack, depth + 1)) for k, v in props.items()]
        keep = extra is True or (isinstance(extra, dict)) or bool(s.get("patternProperties"))
        return JType("object", fields, extra=keep)
    if t == "array":
        items = s.get("items")
        if isinstance(items, list):  # a tuple: its items' JSON unless they agree
            return RAW_T
        return JType("array", item=_schema(items if items is not None else {}, doc, r, stack, depth + 1))
    if t == "string":
        fmt = s.get("format")
        if fmt == "date-time":
            return JType("timestamp")
        if fmt == "date":
            return JType("date")
        return JType("string")
    if t == "integer":
        return JType("int")
    if t == "number":
        return JType("number")
    if t == "boolean":
        return JType("bool")
    if t == "null":
        return JType("null")
    raise SchemaError(f"unknown JSON Schema type {t!r}")


def _merge_all(parts: list[JType]) -> JType:
    out = parts[0]
    for p in parts[1:]:
        out = merge(out, p)
    return out


# ------------------------------------------------------------------------------------------ inference
def infer_value(v: Any, depth: int = 0) -> JType:
    """The JType of one parsed JSON value."""
    if depth > 64:
        return RAW_T
    if v is None:
        return JType("null")
    if isinstance(v, bool):
        return JType("bool")
    if isinstance(v, int):
        return JType("int") if -(2**63) <= v < 2**63 else JType("number")
    if isinstance(v, float):
        return JType("number")
    if isinstance(v, str):
        return JType("string")
    if isinstance(v, list):
        item = JType("null")
        for x in v:
            item = merge(item, infer_value(x, depth + 1))
        return JType("array", item=item)
    if isinstance(v, dict):
        return JType("object", [(str(k), infer_value(x, depth + 1)) for k, x in v.items()])
    return RAW_T


def merge(a: JType, b: JType) -> JType:
    """The widest JType both values fit (see the module's notes)."""
    if a.kind == "null":
        return b
    if b.kind == "null":
        return a
    if a.kind == b.kind:
        if a.kind == "object":
            fields = dict(a.fields)
            order = [n for n, _ in a.fields]
            for n, t in b.fields:
                if n in fields:
                    fields[n] = merge(fields[n], t)
                else:
                    fields[n] = t
                    order.append(n)
            return JType("object", [(n, fields[n]) for n in order], extra=a.extra or b.extra)
        if a.kind in ("array", "map"):
            assert a.item is not None and b.item is not None
            return JType(a.kind, item=merge(a.item, b.item))
        return a
    if {a.kind, b.kind} == {"int", "number"}:
        return JType("number")
    return RAW_T


def _finish(t: JType) -> JType:
    """Fields that were only ever null (and empty arrays' items) become JSON text."""
    if t.kind == "null":
        return RAW_T
    if t.kind == "object":
        return JType("object", [(n, _finish(f)) for n, f in t.fields], extra=t.extra)
    if t.kind in ("array", "map", "envelope"):
        assert t.item is not None
        return JType(t.kind, item=_finish(t.item))
    return t


def infer(values: Iterable[bytes | None]) -> JType:
    """The JType of sampled JSON payloads (those that do not parse are left out: they are bad records when
    read). Connect envelopes (every object a ``{"schema", "payload"}`` pair) are typed by their schema."""
    docs = []
    for raw in values:
        if raw is None or not len(raw):
            continue
        try:
            docs.append(json.loads(raw))
        except (ValueError, UnicodeDecodeError):
            continue
    if docs and all(isinstance(d, dict) and set(d) == {"schema", "payload"} and isinstance(d["schema"], dict)
                    for d in docs):
        t = JType("null")
        for d in docs:
            t = merge(t, from_connect(d["schema"]))
        return JType("envelope", item=_finish(t))
    t = JType("null")
    for d in docs:
        t = merge(t, infer_value(d))
    return _finish(t)


# ------------------------------------------------------------------------------------------ Connect
_CONNECT = {"int8": ("int", 1), "int16": ("int", 2), "int32": ("int", 4), "int64": ("int", 8),
            "float": ("number", 4), "float32": ("number", 4), "double": ("number", 8), "float64": ("number", 8)}


def from_connect(s: Any, depth: int = 0) -> JType:
    """The JType of a Kafka Connect schema (as JsonConverter embeds it)."""
    if depth > 64 or not isinstance(s, dict):
        return RAW_T
    t = s.get("type")
    name = s.get("name")
    if name == "org.apache.kafka.connect.data.Decimal":
        params = s.get("parameters") or {}
        try:
            scale = int(params.get("scale", 0))
            precision = int(params.get("connect.decimal.precision", 38))
        except (TypeError, ValueError):
            return RAW_T
        if not 0 < precision <= 38 or not 0 <= scale <= precision:
            return RAW_T
        return JType("decimal", precision=precision, scale=scale)
    if name == "org.apache.kafka.connect.data.Date" and t == "int32":
        return JType("int", width=4, unit="date32")
    if name == "org.apache.kafka.connect.data.Time" and t == "int32":
        return JType("int", width=4, unit="time32[ms]")
    if name == "org.apache.kafka.connect.data.Timestamp" and t == "int64":
        return JType("int", width=8, unit="timestamp[ms]")
    if t in _CONNECT:
        kind, width = _CONNECT[t]
        return JType(kind, width=width)
    if t == "boolean":
        return JType("bool")
    if t == "string":
        return JType("string")
    if t == "bytes":
        return JType("base64")
    if t == "array":
        return JType("array", item=from_connect(s.get("items"), depth + 1))
    if t == "map":
        keys = s.get("keys")
        if isinstance(keys, dict) and keys.get("type") == "string":
            return JType("map", item=from_connect(s.get("values"), depth + 1))
        return RAW_T  # (other keys are written as [key, value] pairs)
    if t == "struct":
        fields = s.get("fields") or []
        return JType("object", [(str(f.get("field")), from_connect(f, depth + 1)) for f in fields
                                if isinstance(f, dict)])
    return RAW_T
