"""Avro schemas as the specification defines them (1.11/1.12): parsed from their JSON text, names resolved.

Why kvlog parses them itself: the decoders need what a schema *means* (full names, aliases, logical types,
field defaults as Avro bytes) to compile writer-to-reader resolution into a program, and a registry's
schemas refer to each other's named types through ``references``. :func:`parse` takes the named types the
references define and returns the schema with every name resolved to its definition (recursive types
stay cyclic; the Arrow mapping refuses them).

An invalid logical type is ignored, as Avro's Java library ignores it (the value is read as its underlying
type); a name that cannot be resolved, a malformed type or a default that does not fit its field is a
:class:`~kvlog.errors.SchemaError`.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from kvlog.errors import SchemaError

__all__ = ["Array", "AvroType", "Enum", "Field", "Fixed", "Map", "Primitive", "Record", "Union_", "encode_default",
           "parse", "parse_json"]

PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
_LOGICAL_ON = {
    "date": ("int",), "time-millis": ("int",), "time-micros": ("long",),
    "timestamp-millis": ("long",), "timestamp-micros": ("long",), "timestamp-nanos": ("long",),
    "local-timestamp-millis": ("long",), "local-timestamp-micros": ("long",), "local-timestamp-nanos": ("long",),
    "uuid": ("string", "fixed"), "decimal": ("bytes", "fixed"), "duration": ("fixed",),
}


@dataclass(eq=False)
class Primitive:
    kind: str
    logical: str | None = None
    precision: int = 0
    scale: int = 0


@dataclass(eq=False)
class Field:
    name: str
    type: AvroType
    has_default: bool = False
    default: Any = None
    aliases: tuple[str, ...] = ()


@dataclass(eq=False)
class Record:
    name: str  # the full name
    fields: list[Field] = field(default_factory=list)
    aliases: tuple[str, ...] = ()
    kind: str = "record"


@dataclass(eq=False)
class Enum:
    name: str
    symbols: tuple[str, ...]
    default: str | None = None
    aliases: tuple[str, ...] = ()
    kind: str = "enum"


@dataclass(eq=False)
class Fixed:
    name: str
    size: int
    aliases: tuple[str, ...] = ()
    logical: str | None = None
    precision: int = 0
    scale: int = 0
    kind: str = "fixed"


@dataclass(eq=False)
class Array:
    items: AvroType
    kind: str = "array"


@dataclass(eq=False)
class Map:
    values: AvroType
    kind: str = "map"


@dataclass(eq=False)
class Union_:
    branches: list[AvroType]
    kind: str = "union"


AvroType = Union[Primitive, Record, Enum, Fixed, Array, Map, Union_]
Named = Union[Record, Enum, Fixed]


def short_name(full: str) -> str:
    return full.rsplit(".", 1)[-1]


def parse_json(text: str) -> Any:
    """A schema's JSON (a bare primitive name like ``string`` is accepted as the registry accepts it)."""
    try:
        return json.loads(text)
    except ValueError as exc:
        stripped = text.strip()
        if stripped in PRIMITIVES:
            return stripped
        raise SchemaError(f"an Avro schema that is not JSON: {exc}") from None


def parse(schema: Any, named: Mapping[str, Named] | None = None, *, into: dict[str, Named] | None = None
          ) -> AvroType:
    """The schema (its JSON text or the parsed JSON) with names resolved. ``named``: types defined by the
    schemas it references (full name → type). ``into``, when given, receives every named type defined here
    (the way a referencing schema learns them)."""
    if isinstance(schema, (str, bytes)) and not (isinstance(schema, str) and schema in PRIMITIVES):
        schema = parse_json(schema.decode() if isinstance(schema, bytes) else schema)
    names: dict[str, Named] = dict(named or {})
    out = _Parser(names).parse(schema, "", 0)
    if into is not None:
        into.update(names)
    return out


class _Parser:
    def __init__(self, names: dict[str, Named]) -> None:
        self.names = names

    def parse(self, s: Any, ns: str, depth: int) -> AvroType:
        if depth > 100:
            raise SchemaError("an Avro schema nested more than 100 levels deep")
        if isinstance(s, str):
            return self.reference(s, ns)
        if isinstance(s, list):
            branches = [self.parse(b, ns, depth + 1) for b in s]
            if any(isinstance(b, Union_) for b in branches):
                raise SchemaError("a union directly inside a union")
            seen: set[str] = set()
            for b in branches:
                key = b.name if isinstance(b, (Record, Enum, Fixed)) else b.kind
                if key in seen:
                    raise SchemaError(f"a union with two branches of the same type ({key})")
                seen.add(key)
            return Union_(branches)
        if not isinstance(s, dict):
            raise SchemaError(f"an Avro schema must be a name, an object or a union, not {json.dumps(s)[:80]}")
        t = s.get("type")
        if isinstance(t, (dict, list)):
            return self.parse(t, ns, depth + 1)  # {"type": {"type": ...}} nests a schema
        if not isinstance(t, str):
            raise SchemaError(f"an Avro schema object without a type: {json.dumps(s)[:80]}")
        if t in PRIMITIVES:
            return self.logical(Primitive(t), s)
        if t in ("record", "error"):
            return self.record(s, ns, depth)
        if t == "enum":
            name, space = self.name(s, ns)
            symbols = s.get("symbols")
            if not isinstance(symbols, list) or not all(isinstance(x, str) for x in symbols):
                raise SchemaError(f"enum {name} has no list of symbols")
            if len(set(symbols)) != len(symbols):
                raise SchemaError(f"enum {name} names a symbol twice")
            default = s.get("default")
            if default is not None and default not in symbols:
                raise SchemaError(f"enum {name}'s default {default!r} is not one of its symbols")
            return self.define(Enum(name, tuple(symbols), default, self.aliases(s, space)))
        if t == "fixed":
            name, space = self.name(s, ns)
            size = s.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise SchemaError(f"fixed {name} has no size")
            fixed = Fixed(name, size, self.aliases(s, space))
            self.logical(fixed, s)
            return self.define(fixed)
        if t == "array":
            if "items" not in s:
                raise SchemaError("an array without items")
            return Array(self.parse(s["items"], ns, depth + 1))
        if t == "map":
            if "values" not in s:
                raise SchemaError("a map without values")
            return Map(self.parse(s["values"], ns, depth + 1))
        return self.reference(t, ns)  # {"type": "com.example.Name"}

    def reference(self, name: str, ns: str) -> AvroType:
        if name in PRIMITIVES:
            return Primitive(name)
        full = name if "." in name or not ns else f"{ns}.{name}"
        found = self.names.get(full) or self.names.get(name)
        if found is None:
            raise SchemaError(f"an Avro schema names the type {name!r}, which is not defined (nor referenced)")
        return found

    def name(self, s: dict[str, Any], ns: str) -> tuple[str, str]:
        name = s.get("name")
        if not isinstance(name, str) or not name:
            raise SchemaError(f"a named Avro type without a name: {json.dumps(s)[:80]}")
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        space = s.get("namespace", ns)
        if space is not None and not isinstance(space, str):
            raise SchemaError(f"{name}: a namespace must be a string")
        space = space or ""
        return (f"{space}.{name}" if space else name), space

    @staticmethod
    def aliases(s: dict[str, Any], space: str) -> tuple[str, ...]:
        raw = s.get("aliases") or []
        if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
            raise SchemaError("aliases must be a list of names")
        return tuple(a if "." in a or not space else f"{space}.{a}" for a in raw)

    def define(self, t: Named) -> Named:
        if t.name in PRIMITIVES or short_name(t.name) in PRIMITIVES and "." not in t.name:
            raise SchemaError(f"a named type cannot be called {t.name!r}")
        if t.name in self.names:
            raise SchemaError(f"the type {t.name} is defined twice")
        self.names[t.name] = t
        return t

    def record(self, s: dict[str, Any], ns: str, depth: int) -> Record:
        name, space = self.name(s, ns)
        rec = Record(name, [], self.aliases(s, space))
        self.define(rec)  # before its fields: a field may refer to the record itself
        fields = s.get("fields")
        if not isinstance(fields, list):
            raise SchemaError(f"record {name} has no list of fields")
        seen: set[str] = set()
        for f in fields:
            if not isinstance(f, dict) or not isinstance(f.get("name"), str) or "type" not in f:
                raise SchemaError(f"record {name} has a field without a name or a type")
            if f["name"] in seen:
                raise SchemaError(f"record {name} has two fields called {f['name']!r}")
            seen.add(f["name"])
            aliases = f.get("aliases") or []
            if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
                raise SchemaError(f"field {name}.{f['name']}: aliases must be a list of names")
            rec.fields.append(Field(f["name"], self.parse(f["type"], space, depth + 1), "default" in f,
                                    f.get("default"), tuple(aliases)))
        return rec

    @staticmethod
    def logical(t: Primitive | Fixed, s: dict[str, Any]) -> Primitive | Fixed:
        lt = s.get("logicalType")
        base = "fixed" if isinstance(t, Fixed) else t.kind
        if not isinstance(lt, str) or base not in _LOGICAL_ON.get(lt, ()):
            return t
        if lt == "uuid" and isinstance(t, Fixed) and t.size != 16:
            return t
        if lt == "duration" and isinstance(t, Fixed) and t.size != 12:
            return t
        if lt == "decimal":
            precision, scale = s.get("precision"), s.get("scale", 0)
            if (not isinstance(precision, int) or isinstance(precision, bool) or precision <= 0
                    or not isinstance(scale, int) or isinstance(scale, bool) or not 0 <= scale <= precision):
                return t  # (an invalid decimal is its underlying type, as Avro's Java library reads it)
            if isinstance(t, Fixed) and t.size and precision > math.floor(math.log10(2.0 ** (8 * t.size - 1) - 1)):
                return t
            if isinstance(t, Fixed) and t.size == 0:
                return t
            t.precision, t.scale = precision, scale
        t.logical = lt
        return t


# ------------------------------------------------------------------------------------------- defaults
def _zigzag(v: int) -> bytes:
    u = (v << 1) ^ (v >> 63)
    out = bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def encode_default(t: AvroType, value: Any, where: str) -> bytes:
    """A field default (its JSON value, as the schema gives it) in Avro's binary encoding for type ``t``:
    the bytes the decoder reads for a field the writer did not have."""
    try:
        return bytes(_encode(t, value, 0))
    except (TypeError, ValueError, OverflowError, KeyError, struct.error) as exc:
        raise SchemaError(f"the default of {where} ({json.dumps(value)[:80]}) does not fit its type: {exc}") from None


def _encode(t: AvroType, v: Any, depth: int) -> bytearray:
    if depth > 100:
        raise ValueError("nested too deep")
    out = bytearray()
    k = t.kind
    if isinstance(t, Union_):
        # Avro 1.11: a union's default is of its first branch; later versions allow any branch that fits
        errors = []
        for i, b in enumerate(t.branches):
            try:
                return bytearray(_zigzag(i)) + _encode(b, v, depth + 1)
            except (TypeError, ValueError, OverflowError, KeyError, struct.error) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors) or "an empty union")
    if k == "null":
        if v is not None:
            raise ValueError("null expected")
    elif k == "boolean":
        if not isinstance(v, bool):
            raise TypeError("a boolean expected")
        out.append(1 if v else 0)
    elif k in ("int", "long"):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError("an integer expected")
        lim = 2**31 if k == "int" else 2**63
        if not -lim <= v < lim:
            raise OverflowError(f"{v} is out of range for {k}")
        out += _zigzag(v)
    elif k in ("float", "double"):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            if v in ("NaN", "Infinity", "-Infinity"):
                v = float(v.replace("Infinity", "inf"))
            else:
                raise TypeError("a number expected")
        out += struct.pack("<f" if k == "float" else "<d", float(v))
    elif k in ("bytes", "string"):
        if not isinstance(v, str):
            raise TypeError("a string expected")
        raw = v.encode("utf-8") if k == "string" else v.encode("latin-1")
        out += _zigzag(len(raw)) + raw
    elif isinstance(t, Fixed):
        if not isinstance(v, str):
            raise TypeError("a string expected")
        raw = v.encode("latin-1")
        if len(raw) != t.size:
            raise ValueError(f"{len(raw)} bytes for fixed({t.size})")
        out += raw
    elif isinstance(t, Enum):
        if v not in t.symbols:
            raise ValueError(f"{v!r} is not a symbol of {t.name}")
        out += _zigzag(t.symbols.index(v))
    elif isinstance(t, Array):
        if not isinstance(v, list):
            raise TypeError("a list expected")
        if v:
            out += _zigzag(len(v))
            for item in v:
                out += _encode(t.items, item, depth + 1)
        out.append(0)
    elif isinstance(t, Map):
        if not isinstance(v, dict):
            raise TypeError("an object expected")
        if v:
            out += _zigzag(len(v))
            for key, item in v.items():
                raw = str(key).encode("utf-8")
                out += _zigzag(len(raw)) + raw + _encode(t.values, item, depth + 1)
        out.append(0)
    elif isinstance(t, Record):
        if not isinstance(v, dict):
            raise TypeError("an object expected")
        for f in t.fields:
            if f.name in v:
                out += _encode(f.type, v[f.name], depth + 1)
            elif f.has_default:
                out += _encode(f.type, f.default, depth + 1)
            else:
                raise KeyError(f"no value for field {f.name}")
    return out
