"""Avro's writing side: Python values in Avro's binary encoding, and a schema's canonical text.

:func:`encode` takes what Confluent's Python serializer (fastavro) takes: records as dicts, arrays as lists,
maps as dicts, enums as symbols, unions by the value's type (a ``(name, value)`` pair names a record branch),
bytes and fixed as ``bytes``; logical types as Python objects or as their raw values (``Decimal`` or bytes,
``datetime`` or epoch units, ``date`` or days, ``time`` or units of the day, ``UUID`` or text).

:func:`canonical` is the schema text Confluent's registry stores for an Avro schema (``AvroSchema
.canonicalString()``: Avro's Java ``Schema.toString()``): compact JSON, each type's attributes in Java's order,
a named type written in full once and by name after, a namespace only where it changes.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import re
import struct
import uuid
from typing import Any

from kvlog.errors import SchemaError
from kvlog.schemas.avro import Array, AvroType, Enum, Fixed, Map, Primitive, Record, Union_, parse_json

__all__ = ["canonical", "encode"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_EPOCH_DATE = datetime.date(1970, 1, 1)


def _zigzag(v: int) -> bytes:
    u = (v << 1) ^ (v >> 63)
    out = bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def _int_range(v: int, kind: str) -> int:
    lim = 2**31 if kind == "int" else 2**63
    if not -lim <= v < lim:
        raise ValueError(f"{v} is out of range for an Avro {kind}")
    return v


def _logical_number(t: Primitive, v: Any) -> int:
    """A logical type's Python object as its underlying int or long."""
    lt = t.logical
    if isinstance(v, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(v, int):
        return v
    if lt == "date" and isinstance(v, datetime.date):
        return v.toordinal() - _EPOCH_DATE.toordinal()  # (a datetime's date, as fastavro takes it)
    if lt in ("time-millis", "time-micros") and isinstance(v, datetime.time):
        us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
        return us // 1000 if lt == "time-millis" else us
    if lt and "timestamp" in lt and isinstance(v, datetime.datetime):
        if lt.startswith("local-"):
            delta = v.replace(tzinfo=None) - _EPOCH.replace(tzinfo=None)
        else:
            aware = v if v.tzinfo is not None else v.replace(tzinfo=datetime.timezone.utc)
            delta = aware - _EPOCH
        us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        if lt.endswith("millis"):
            return us // 1000
        return us * 1000 if lt.endswith("nanos") else us
    raise TypeError(f"a {lt or t.kind} takes an integer{' or a date/time' if lt else ''}, not {type(v).__name__}")


def _decimal_bytes(v: Any, precision: int, scale: int, size: int | None) -> bytes:
    if isinstance(v, (bytes, bytearray)):
        raw = bytes(v)
    else:
        d = decimal.Decimal(v)
        if not d.is_finite():
            raise ValueError(f"{v} is not a finite decimal")
        exact = decimal.Context(prec=max(precision, len(d.as_tuple().digits)) + scale + 2)  # (no rounding)
        unscaled = int(d.scaleb(scale, exact).to_integral_value(decimal.ROUND_HALF_EVEN, exact))
        if decimal.Decimal(unscaled).scaleb(-scale, exact) != d:
            raise ValueError(f"{v} has more than {scale} digits after the point")
        if abs(unscaled) >= 10**precision:
            raise ValueError(f"{v} does not fit decimal({precision}, {scale})")
        n = max(1, (unscaled.bit_length() + 8) // 8)
        raw = unscaled.to_bytes(n, "big", signed=True)
    if size is not None:
        if len(raw) > size:
            raise ValueError(f"{v} does not fit fixed({size})")
        fill = b"\xff" if raw and raw[0] & 0x80 else b"\x00"
        raw = fill * (size - len(raw)) + raw
    return raw


def _branch(u: Union_, v: Any) -> int:
    """The union branch a Python value is written as, as Confluent's serializer (fastavro) chooses it: a ``(name,
    value)`` pair names its branch; else the first branch the value fits, but of the records it fits the one
    sharing the most field names with it (a later branch of another kind the value fits wins over them), and
    ``double`` over ``float``. Only when no branch fits so, a map given as a list of pairs (an Arrow map) fits."""
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
        for i, b in enumerate(u.branches):
            if isinstance(b, (Record, Enum, Fixed)) and v[0] in (b.name, b.name.rsplit(".", 1)[-1]):
                return i
    found = _choose(u, v, False)
    if found < 0:
        found = _choose(u, v, True)
    if found < 0:
        raise ValueError(f"{v!r:.80} fits no branch of the union")
    return found


def _choose(u: Union_, v: Any, pairs: bool) -> int:
    best, most, floats = -1, -1, False
    for i, b in enumerate(u.branches):
        if floats:
            if b.kind == "double":
                return i
            continue
        if not _fits(b, v, 0, pairs):
            continue
        if isinstance(b, Record):
            shared = len({f.name for f in b.fields} & set(v))
            if shared > most:
                best, most = i, shared
        elif b.kind == "float":
            best, floats = i, True
        else:
            return i
    return best


def _fits(t: AvroType, v: Any, depth: int, pairs: bool) -> bool:
    """Whether ``v`` can be written as ``t`` (what fastavro's ``validate`` checks; with ``pairs``, a map may be a
    list of pairs)."""
    if depth > 100:
        return False
    k = t.kind
    if k == "null":
        return v is None
    if k == "boolean":
        return isinstance(v, bool)
    if k in ("int", "long"):
        if isinstance(v, int) and not isinstance(v, bool):
            return -(2**31) <= v < 2**31 if k == "int" else -(2**63) <= v < 2**63
        lt = t.logical if isinstance(t, Primitive) else None
        if lt == "date":
            return isinstance(v, datetime.date)
        if lt in ("time-millis", "time-micros"):
            return isinstance(v, datetime.time)
        return lt is not None and "timestamp" in lt and isinstance(v, datetime.datetime)
    if k in ("float", "double"):
        return isinstance(v, (float, int)) and not isinstance(v, bool)
    if k == "string":
        return isinstance(v, (str, uuid.UUID))
    if k == "bytes":
        return isinstance(v, (bytes, bytearray)) or (isinstance(t, Primitive) and t.logical == "decimal"
                                                      and isinstance(v, decimal.Decimal))
    if isinstance(t, Fixed):
        return (isinstance(v, (bytes, bytearray)) and len(v) == t.size) or (
            t.logical == "decimal" and isinstance(v, decimal.Decimal))
    if isinstance(t, Enum):
        return isinstance(v, str) and v in t.symbols
    if isinstance(t, Array):
        return isinstance(v, (list, tuple)) and all(_fits(t.items, x, depth + 1, pairs) for x in v)
    if isinstance(t, Map):
        if isinstance(v, list) and pairs:
            return all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str)
                       and _fits(t.values, p[1], depth + 1, pairs) for p in v)
        return isinstance(v, dict) and all(isinstance(key, str) and _fits(t.values, x, depth + 1, pairs)
                                           for key, x in v.items())
    if isinstance(t, Record):
        return isinstance(v, dict) and all(_fits(f.type, v[f.name], depth + 1, pairs) if f.name in v
                                           else f.has_default for f in t.fields)
    if isinstance(t, Union_):
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
            return any(isinstance(b, (Record, Enum, Fixed)) and v[0] in (b.name, b.name.rsplit(".", 1)[-1])
                       and _fits(b, v[1], depth + 1, pairs) for b in t.branches)
        return any(_fits(b, v, depth + 1, pairs) for b in t.branches)
    return False


def _pairs(v: list[Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for pair in v:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError("a map given as a list takes (key, value) pairs")
        if pair[0] in out:
            raise ValueError(f"the map key {pair[0]!r} is given twice")
        out[pair[0]] = pair[1]
    return out


def encode(t: AvroType, v: Any, out: bytearray | None = None, depth: int = 0) -> bytearray:
    """``v`` in Avro's binary encoding for type ``t`` (see the module's notes); ``ValueError``/``TypeError`` for a
    value that does not fit."""
    if out is None:
        out = bytearray()
    if depth > 200:
        raise ValueError("nested too deep")
    if isinstance(t, Union_):
        i = _branch(t, v)
        out += _zigzag(i)
        b = t.branches[i]
        if isinstance(v, tuple) and len(v) == 2 and isinstance(b, (Record, Enum, Fixed)):
            v = v[1]
        return encode(b, v, out, depth + 1)
    k = t.kind
    if k == "null":
        if v is not None:
            raise TypeError("null expected")
    elif k == "boolean":
        if not isinstance(v, bool):
            raise TypeError(f"a boolean expected, not {type(v).__name__}")
        out.append(1 if v else 0)
    elif k in ("int", "long"):
        assert isinstance(t, Primitive)
        out += _zigzag(_int_range(_logical_number(t, v), k))
    elif k in ("float", "double"):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"a number expected, not {type(v).__name__}")
        num = float(v)
        if k == "float" and not math.isinf(num) and abs(num) >= 3.4028235677973366e38:
            num = math.copysign(math.inf, num)  # (beyond a float's range: infinite, as fastavro and Java write it)
        out += struct.pack("<f" if k == "float" else "<d", num)
    elif k == "string":
        text = str(v) if isinstance(v, uuid.UUID) else v
        if not isinstance(text, str):
            raise TypeError(f"a string expected, not {type(v).__name__}")
        raw = text.encode("utf-8")
        out += _zigzag(len(raw)) + raw
    elif k == "bytes":
        assert isinstance(t, Primitive)
        if t.logical == "decimal":
            raw = _decimal_bytes(v, t.precision, t.scale, None)
        elif isinstance(v, (bytes, bytearray)):
            raw = bytes(v)
        else:
            raise TypeError(f"bytes expected, not {type(v).__name__}")
        out += _zigzag(len(raw)) + raw
    elif isinstance(t, Fixed):
        if t.logical == "decimal":
            out += _decimal_bytes(v, t.precision, t.scale, t.size)
        elif isinstance(v, (bytes, bytearray)) and len(v) == t.size:
            out += v
        else:
            raise ValueError(f"fixed({t.size}) takes {t.size} bytes")
    elif isinstance(t, Enum):
        if v not in t.symbols:
            raise ValueError(f"{v!r} is not a symbol of {t.name}")
        out += _zigzag(t.symbols.index(v))
    elif isinstance(t, Array):
        if not isinstance(v, (list, tuple)):
            raise TypeError(f"a list expected, not {type(v).__name__}")
        if v:
            out += _zigzag(len(v))
            for item in v:
                encode(t.items, item, out, depth + 1)
        out.append(0)
    elif isinstance(t, Map):
        if isinstance(v, list):  # an Arrow map's (key, value) pairs, as a Spark or Arrow row gives it
            v = _pairs(v)
        if not isinstance(v, dict):
            raise TypeError(f"a dict expected, not {type(v).__name__}")
        if v:
            out += _zigzag(len(v))
            for key, item in v.items():
                raw = str(key).encode("utf-8")
                out += _zigzag(len(raw)) + raw
                encode(t.values, item, out, depth + 1)
        out.append(0)
    elif isinstance(t, Record):
        if not isinstance(v, dict):
            raise TypeError(f"a dict expected for record {t.name}, not {type(v).__name__}")
        for f in t.fields:
            if f.name in v:
                encode(f.type, v[f.name], out, depth + 1)
            elif f.has_default:
                from kvlog.schemas.avro import encode_default

                out += encode_default(f.type, f.default, f"field {t.name}.{f.name}")
            else:
                raise ValueError(f"no value for field {t.name}.{f.name} (and no default)")
    return out


# ------------------------------------------------------------------------------------------ canonical
def _java_number(v: Any) -> str:
    """A JSON number as Jackson writes Java's: integers as they are, doubles as Java's ``Double.toString``
    (plain from 10^-3 to 10^7, else d.dddE±n; the shortest digits, as Java 19+ prints them), NaN and the
    infinities quoted."""
    if isinstance(v, bool) or not isinstance(v, float):
        return json.dumps(v)
    if math.isnan(v) or math.isinf(v):
        return json.dumps("NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity"))
    a = abs(v)
    if a == 0 or 1e-3 <= a < 1e7:
        r = repr(v)
        return r if "." in r else f"{r}.0"
    return _sci(v)


def _sci(v: float) -> str:
    """Java's computerized scientific notation: d.ddddE[-]n with the shortest digits that round-trip; when one
    digit would do, the closest decimal of two digits that still reads back as ``v`` (Java's rule: ``4.9E-324``
    for the smallest double, where Python writes ``5e-324``)."""
    sign = "-" if v < 0 else ""
    d = decimal.Decimal(repr(abs(v))).normalize()
    _, digit_tuple, exp = d.as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_tuple))
    e = exp + len(digits) - 1
    if len(digits) == 1:
        exact = decimal.Decimal(abs(v))
        two = exact.scaleb(1 - exact.adjusted()).to_integral_value(decimal.ROUND_HALF_EVEN)
        if 10 <= two < 100 and float(two.scaleb(exact.adjusted() - 1)) == abs(v):
            digits, e = str(two).rstrip("0") or "0", exact.adjusted()
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{e}"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_TO_ESCAPE = re.compile('["\\\\\x00-\x1f]')


def _jstr(s: str) -> str:
    """A JSON string as Jackson writes it: non-ASCII as it is, control characters as ``\\n`` and the like or
    ``\\u001F`` (upper-case hex)."""
    return '"' + _TO_ESCAPE.sub(lambda m: _ESCAPES.get(m.group()) or f"\\u{ord(m.group()):04X}", s) + '"'


def _json(v: Any) -> str:
    """Compact JSON as Jackson writes it (non-ASCII as is, numbers as Java prints them)."""
    if isinstance(v, dict):
        return "{" + ",".join(f"{_jstr(str(k))}:{_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_json(x) for x in v) + "]"
    if isinstance(v, str):
        return _jstr(v)
    if isinstance(v, float):
        return _java_number(v)
    return json.dumps(v)


# the attributes Avro's Java parser reads itself; every other one is a property, kept and printed in the order given
_SCHEMA_RESERVED = frozenset({"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type",
                              "aliases"})
_ENUM_RESERVED = _SCHEMA_RESERVED | {"default"}
_FIELD_RESERVED = frozenset({"default", "doc", "name", "order", "type", "aliases"})
_ORDERS = ("ascending", "descending", "ignore")
# what Java's Double.valueOf reads (a float or double field's default given as text is read as that number)
_JAVA_DOUBLE = re.compile(r"[\x00-\x20]*[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)[\x00-\x20]*")


def canonical(text: str) -> str:
    """The text Confluent's registry stores for an Avro schema (Avro's Java ``Schema.toString()``)."""
    raw = parse_json(text) if isinstance(text, str) else text
    c = _Canonical()
    c.collect(raw, "", 0)
    return c.schema(raw, "")


def _unique(items: list[Any]) -> list[Any]:
    return list(dict.fromkeys(items))  # (Java keeps aliases in a set: each once, in order)


def _text_double(v: str, where: str) -> float:
    """A float or double field's default given as text, read as Java's ``Double.valueOf`` reads it."""
    if _JAVA_DOUBLE.fullmatch(v) is None:
        raise SchemaError(f"the default of {where} ({v!r}) is not a number")
    body = v.strip("".join(map(chr, range(0x21)))).rstrip("fFdD")
    return float(body.replace("Infinity", "inf"))


class _Canonical:
    """Java's printer: a named type written in full where the walk first meets it (a name used before its
    definition, as Avro 1.12 allows, is where it is written), by name after."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.defs: dict[str, tuple[dict[str, Any], str]] = {}  # full name -> (definition, namespace it is in)

    def collect(self, s: Any, ns: str, depth: int) -> None:
        """The named types ``s`` defines."""
        if depth > 200:
            raise SchemaError("an Avro schema nested more than 200 levels deep")
        if isinstance(s, list):
            for b in s:
                self.collect(b, ns, depth + 1)
            return
        if not isinstance(s, dict):
            return
        t = s.get("type")
        if t in ("record", "error", "enum", "fixed") and isinstance(s.get("name"), str):
            full, space = self._full(s, ns)
            self.defs.setdefault(full, (s, ns))
            if t in ("record", "error") and isinstance(s.get("fields"), list):
                for f in s["fields"]:
                    if isinstance(f, dict):
                        self.collect(f.get("type"), space, depth + 1)
        elif t in ("array", "map"):
            self.collect(s.get("items" if t == "array" else "values"), ns, depth + 1)

    @staticmethod
    def _full(s: dict[str, Any], ns: str) -> tuple[str, str]:
        name = s.get("name")
        if not isinstance(name, str):
            raise SchemaError("a named Avro type without a name")
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        space = s.get("namespace")
        if not isinstance(space, str):  # (Java reads a namespace that is not text as none given)
            space = ns
        return (f"{space}.{name}" if space else name), space

    @staticmethod
    def _name_parts(full: str, enclosing: str) -> str:
        space, _, short = full.rpartition(".")
        out = f'"name":{_jstr(short)}'
        if space != enclosing:
            out += f',"namespace":{_jstr(space)}'
        return out

    @staticmethod
    def _props(s: dict[str, Any], reserved: frozenset[str]) -> str:
        return "".join(f",{_jstr(k)}:{_json(v)}" for k, v in s.items() if k not in reserved)

    @staticmethod
    def _doc(s: dict[str, Any]) -> str:
        doc = s.get("doc")
        return f',"doc":{_jstr(doc)}' if isinstance(doc, str) else ""  # (Java drops a doc that is not text)

    @staticmethod
    def _aliases(s: dict[str, Any], space: str) -> str:
        al = s.get("aliases")
        if not isinstance(al, list) or not al:
            return ""
        names = [a if "." in a or not space else f"{space}.{a}" for a in al if isinstance(a, str)]
        shown = [a.rsplit(".", 1)[-1] if a.rsplit(".", 1)[0] == space and "." in a else a for a in names]
        return f',"aliases":{_json(_unique(shown))}'

    def _named(self, s: dict[str, Any], ns: str, at: str) -> tuple[str | None, str, str]:
        """``(the type's opening, its full name, its namespace)``, defined in namespace ``at`` and written in
        ``ns``; no opening when it was written already."""
        full, space = self._full(s, at)
        if full in self.seen:
            return None, full, space
        self.seen.add(full)
        return f'{{"type":{_jstr(s["type"])},{self._name_parts(full, ns)}{self._doc(s)}', full, space

    def _field(self, f: Any, space: str) -> str:
        if not isinstance(f, dict) or not isinstance(f.get("name"), str) or "type" not in f:
            raise SchemaError("a record field without a name or a type")
        ftype = f["type"]
        out = f'{{"name":{_jstr(f["name"])},"type":{self.schema(ftype, space)}{self._doc(f)}'
        if "default" in f:
            default = f["default"]
            base = ftype.get("type") if isinstance(ftype, dict) else ftype
            if base in ("float", "double") and isinstance(default, str):
                default = _text_double(default, f"field {f['name']}")
            out += f',"default":{_json(default)}'
        order = f.get("order")
        if isinstance(order, str) and order.lower() in _ORDERS and order.lower() != "ascending":
            out += f',"order":{_jstr(order.lower())}'
        aliases = f.get("aliases")
        if isinstance(aliases, list) and aliases:
            out += f',"aliases":{_json(_unique(aliases))}'
        return out + self._props(f, _FIELD_RESERVED) + "}"

    def schema(self, s: Any, ns: str, at: str | None = None) -> str:
        """``s`` written in namespace ``ns`` (``at``: the namespace it is defined in, when not there)."""
        if at is None:
            at = ns
        if isinstance(s, str):
            from kvlog.schemas.avro import PRIMITIVES

            if s in PRIMITIVES:
                return _jstr(s)
            full = s if "." in s or not ns else f"{ns}.{s}"
            if full not in self.defs and "." not in s and s in self.defs:
                full = s  # (a name in no namespace, used in one)
            if full in self.defs and full not in self.seen:
                definition, where = self.defs[full]
                return self.schema(definition, ns, where)  # (used before it is defined: written here)
            space, _, short = full.rpartition(".")
            return _jstr(short if not space or space == ns else full)
        if isinstance(s, list):
            return "[" + ",".join(self.schema(b, ns) for b in s) + "]"
        if not isinstance(s, dict):
            raise SchemaError(f"not an Avro schema: {json.dumps(s)[:80]}")
        t = s.get("type")
        if not isinstance(t, str):  # (Java's parser takes no schema object as an object's type)
            raise SchemaError(f"an Avro schema object whose type is not a name: {json.dumps(s)[:80]}")
        if t in ("record", "error"):
            head, full, space = self._named(s, ns, at)
            if head is None:
                return self.schema(full, ns)
            fields = s.get("fields")
            if not isinstance(fields, list):
                raise SchemaError(f"record {full} has no list of fields")
            body = ",".join(self._field(f, space) for f in fields)
            return f'{head},"fields":[{body}]' + self._props(s, _SCHEMA_RESERVED) + self._aliases(s, space) + "}"
        if t == "enum":
            head, full, space = self._named(s, ns, at)
            if head is None:
                return self.schema(full, ns)
            out = f'{head},"symbols":{_json(s.get("symbols", []))}'
            if isinstance(s.get("default"), str):
                out += f',"default":{_jstr(s["default"])}'
            return out + self._props(s, _ENUM_RESERVED) + self._aliases(s, space) + "}"
        if t == "fixed":
            head, full, space = self._named(s, ns, at)
            if head is None:
                return self.schema(full, ns)
            out = f'{head},"size":{_json(s.get("size"))}'
            return out + self._props(s, _SCHEMA_RESERVED) + self._aliases(s, space) + "}"
        if t in ("array", "map"):
            inner = "items" if t == "array" else "values"
            return f'{{"type":"{t}","{inner}":{self.schema(s.get(inner), ns)}' + self._props(s, _SCHEMA_RESERVED) + "}"
        from kvlog.schemas.avro import PRIMITIVES

        if t not in PRIMITIVES:
            return self.schema(t, ns)  # a named type's reference (Java ignores the other attributes)
        extra = self._props(s, _SCHEMA_RESERVED)
        return f'{{"type":{_jstr(t)}{extra}}}' if extra else _jstr(t)
