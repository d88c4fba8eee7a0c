"""Kafka's message-schema wire format, generic over kvlog's schema tables.

Kafka describes every record of its internal topics in JSON message specs (fields, versions,
nullable versions, flexible versions, tagged fields) and generates a Java class per message. kvlog keeps
the same facts as small Python tables (:class:`Message`/:class:`Field`, in the ``schemas_*`` modules)
and reads and writes them with this one codec, so a new version is a table edit, not new code.

Encodings (Kafka's ``Readable``/``Writable``): fixed-width big-endian integers; in *flexible* versions
strings, bytes and arrays carry an unsigned-varint length plus one (0 = null) and every struct ends with
a tagged-field section; in older versions strings have an int16 length, bytes and arrays an int32
length (-1 = null). Every length is checked against the bytes that remain before anything is allocated,
so bad input costs at most its own size and ends in :class:`SchemaError`, never a Python exception.

Decoded values: ints, ``bool``, ``float``, ``str``, ``bytes``, ``uuid.UUID``, ``list`` and ``dict``
keyed by Kafka's JSON field names (the spec name with a lower-case first letter, as Kafka's JSON
converters print them). Tagged fields not on the wire take their defaults; tags the table does not
know are kept, as raw bytes, under :data:`UNKNOWN_TAGS` so that re-encoding gives the same bytes.
"""

from __future__ import annotations

import base64
import math
import struct
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = [
    "Field",
    "Message",
    "SchemaError",
    "UNKNOWN_TAGS",
    "Versions",
    "decode",
    "encode",
    "read_uvarint",
    "uvarint_bytes",
    "f",
    "message",
    "to_json_obj",
]

UNKNOWN_TAGS = "_unknownTaggedFields"
_MAX_VERSION = 0x7FFF
_FIXED = {"bool": 1, "int8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8,
          "float64": 8, "uuid": 16}
_STRUCTS = {"bool": ">?", "int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i", "uint32": ">I",
            "int64": ">q", "float64": ">d"}
_RANGES = {"int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1), "uint16": (0, (1 << 16) - 1),
           "int32": (-(1 << 31), (1 << 31) - 1), "uint32": (0, (1 << 32) - 1),
           "int64": (-(1 << 63), (1 << 63) - 1)}
_ZERO_UUID = uuid.UUID(int=0)


class SchemaError(ValueError):
    """Bytes or a value that do not fit a schema; ``path`` is the dotted field path."""

    def __init__(self, message: str, path: str = "") -> None:
        self.reason = message
        self.path = path
        super().__init__(f"{message} (field {path})" if path else message)


@dataclass(frozen=True)
class Versions:
    """An inclusive version range; ``lo > hi`` is the empty range (Kafka's "none")."""

    lo: int
    hi: int

    @staticmethod
    def parse(text: str) -> "Versions":
        text = text.strip()
        if text == "none":
            return Versions(1, 0)
        if text.endswith("+"):
            return Versions(int(text[:-1]), _MAX_VERSION)
        lo, _, hi = text.partition("-")
        return Versions(int(lo), int(hi or lo))

    def __contains__(self, version: object) -> bool:
        return isinstance(version, int) and self.lo <= version <= self.hi

    def __str__(self) -> str:
        if self.lo > self.hi:
            return "none"
        if self.hi == _MAX_VERSION:
            return f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


_NONE = Versions(1, 0)
_UNSET: Any = object()


@dataclass(frozen=True)
class Field:
    """One field of a message spec. ``type`` is a primitive name, ``"struct"``, or ``"[]"`` + either."""

    name: str
    type: str
    versions: Versions
    nullable: Versions = _NONE
    tagged: Versions = _NONE
    tag: int | None = None
    default: Any = _UNSET
    fields: tuple["Field", ...] = ()

    @property
    def json_name(self) -> str:
        """Kafka's JSON converters name a field by its spec name with the first letter lower-cased."""
        return self.name[:1].lower() + self.name[1:]

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element(self) -> str:
        return self.type[2:] if self.is_array else self.type

    def default_value(self, version: int) -> Any:
        """The value a field has when it is not on the wire (Kafka's spec default or the type's zero)."""
        if self.default is not _UNSET:
            return list(self.default) if isinstance(self.default, list) else self.default
        if self.is_array:
            return []
        return _type_default(self, version)


def _type_default(fd: Field, version: int) -> Any:
    t = fd.type
    if t == "bool":
        return False
    if t == "float64":
        return 0.0
    if t == "uuid":
        return _ZERO_UUID
    if t == "string":
        return ""
    if t == "bytes":
        return b""
    if t == "struct":
        return {x.json_name: x.default_value(version) for x in fd.fields if version in x.versions}
    return 0


@dataclass(frozen=True)
class Message:
    """A top-level message spec: its versions, flexible versions, fields and (for typed records) id."""

    name: str
    valid: Versions
    flexible: Versions
    fields: tuple[Field, ...]
    api_key: int = -1


def f(name: str, type_: str, versions: str = "0+", *, nullable: str = "none", tag: int | None = None,
      tagged: str | None = None, default: Any = _UNSET, fields: tuple[Field, ...] | list[Field] = ()) -> Field:
    """A field, written as in the JSON spec (a tagged field's versions default to its tagged versions)."""
    tv = Versions.parse(tagged if tagged is not None else (versions if tag is not None else "none"))
    return Field(name, type_, Versions.parse(versions), Versions.parse(nullable), tv, tag, default, tuple(fields))


def message(name: str, valid: str, flexible: str, fields: list[Field], api_key: int = -1) -> Message:
    """A message spec, versions written as in the JSON spec ("0-4", "4+", "none")."""
    return Message(name, Versions.parse(valid), Versions.parse(flexible), tuple(fields), api_key)


# ============================================================================================ reading
class _Reader:
    __slots__ = ("buf", "pos", "end", "path")

    def __init__(self, buf: bytes | memoryview, pos: int = 0, end: int | None = None) -> None:
        self.buf = buf
        self.pos = pos
        self.end = len(buf) if end is None else end
        self.path: list[str] = []

    def where(self) -> str:
        return ".".join(self.path).replace(".[", "[")

    def fail(self, message: str) -> SchemaError:
        return SchemaError(message, self.where())

    def take(self, n: int, what: str) -> bytes:
        if n > self.end - self.pos:
            raise self.fail(f"{what} needs {n} bytes, {self.end - self.pos} remain")
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def fixed(self, type_: str) -> Any:
        raw = self.take(_FIXED[type_], type_)
        if type_ == "uuid":
            return uuid.UUID(bytes=raw)
        if type_ == "bool":
            return raw != b"\x00"
        return struct.unpack(_STRUCTS[type_], raw)[0]

    def uvarint(self) -> int:
        """Kafka's readUnsignedVarint: at most 5 bytes, a 32-bit value."""
        value = 0
        for i in range(5):
            if self.pos >= self.end:
                raise self.fail("varint runs past the end of the bytes")
            b = self.buf[self.pos]
            self.pos += 1
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                if value >= 1 << 32:
                    raise self.fail("varint is longer than 32 bits")
                return value
        raise self.fail("varint is longer than 5 bytes")

    def length(self, flexible: bool, wide: bool) -> int:
        """A length prefix: -1 for null. ``wide``: int32 in non-flexible versions (bytes, arrays)."""
        if flexible:
            return self.uvarint() - 1
        n: int = self.fixed("int32" if wide else "int16")
        if n < -1:
            raise self.fail(f"negative length {n}")
        return n


def _min_size(fd: Field, version: int, flexible: bool) -> int:
    """The fewest bytes one array element can take (bounds an element count by the bytes left)."""
    t = fd.element
    if t in _FIXED:
        return _FIXED[t]
    if t in ("string", "bytes"):
        return 1 if flexible else (2 if t == "string" else 4)
    if t == "struct":
        return max(1, _struct_min_size(fd.fields, version, flexible))
    return 1


def _struct_min_size(fields: tuple[Field, ...], version: int, flexible: bool) -> int:
    """The fewest bytes a struct can take: its untagged fields at their smallest, and its tag count."""
    total = 1 if flexible else 0
    for x in fields:
        if version not in x.versions or version in x.tagged:
            continue
        if x.is_array:  # an empty (or null) array is its length alone, whatever its elements
            total += 1 if flexible else 4
        elif x.type == "struct":
            total += 1 if version in x.nullable else _struct_min_size(x.fields, version, flexible)
        else:
            total += _min_size(x, version, flexible)
    return total


def _read_scalar(r: _Reader, t: str, nullable: bool, flexible: bool) -> Any:
    if t in _FIXED:
        return r.fixed(t)
    n = r.length(flexible, t == "bytes")
    if n < 0:
        if not nullable:
            raise r.fail(f"null {t} in a non-nullable field")
        return None
    raw = r.take(n, t)
    return raw if t == "bytes" else raw.decode("utf-8", "replace")  # Java's new String(b, UTF_8)


def _read_field(r: _Reader, fd: Field, version: int, flexible: bool, in_tag: bool) -> Any:
    nullable = version in fd.nullable
    if fd.is_array:
        n = r.length(flexible, True)
        if n < 0:
            if not nullable:
                raise r.fail("null array in a non-nullable field")
            return None
        if n * _min_size(fd, version, flexible) > r.end - r.pos:
            raise r.fail(f"array of {n} elements does not fit in the {r.end - r.pos} bytes left")
        out = []
        for i in range(n):
            r.path.append(f"[{i}]")
            if fd.element == "struct":
                out.append(_read_struct(r, fd.fields, version, flexible))
            else:
                out.append(_read_scalar(r, fd.element, False, flexible))
            r.path.pop()
        return out
    if fd.type == "struct":
        if nullable:
            present = r.uvarint() > 0 if in_tag else r.fixed("int8") >= 0
            if not present:
                return None
        return _read_struct(r, fd.fields, version, flexible)
    return _read_scalar(r, fd.type, nullable, flexible)


def _read_struct(r: _Reader, fields: tuple[Field, ...], version: int, flexible: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    tagged: dict[int, Field] = {}
    for fd in fields:
        if version not in fd.versions:
            continue
        if version in fd.tagged and fd.tag is not None:
            tagged[fd.tag] = fd
            out[fd.json_name] = fd.default_value(version)
            continue
        r.path.append(fd.json_name)
        out[fd.json_name] = _read_field(r, fd, version, flexible, False)
        r.path.pop()
    if flexible:
        count = r.uvarint()
        if count > r.end - r.pos:
            raise r.fail(f"{count} tagged fields do not fit in the {r.end - r.pos} bytes left")
        unknown: dict[int, bytes] = {}
        for _ in range(count):
            tag = r.uvarint()
            size = r.uvarint()
            if size > r.end - r.pos:
                r.path.append(f"tag {tag}")
                raise r.fail(f"tagged field of {size} bytes, {r.end - r.pos} remain")
            stop = r.pos + size
            fd_tag = tagged.get(tag)
            if fd_tag is None:
                unknown[tag] = bytes(r.buf[r.pos:stop])
            else:
                sub = _Reader(r.buf, r.pos, stop)
                sub.path = r.path + [fd_tag.json_name]
                out[fd_tag.json_name] = _read_field(sub, fd_tag, version, flexible, True)
            r.pos = stop
        if unknown:
            out[UNKNOWN_TAGS] = unknown
    return out


def read_uvarint(data: bytes | memoryview, pos: int, path: str = "") -> tuple[int, int]:
    """``(value, next position)`` of an unsigned varint (at most 32 bits) at ``data[pos]``."""
    r = _Reader(data, pos)
    if path:
        r.path.append(path)
    return r.uvarint(), r.pos


def uvarint_bytes(value: int) -> bytes:
    """The unsigned-varint encoding of ``value`` (0 ≤ value < 2**32)."""
    w = _Writer()
    w.uvarint(value)
    return bytes(w.out)


def decode(msg: Message, version: int, data: bytes | memoryview, *, offset: int = 0,
           path: str = "") -> tuple[dict[str, Any], int]:
    """``(fields, end position)`` of one ``msg`` at ``version`` read from ``data[offset:]``.

    Raises :class:`SchemaError` for an unknown version or bytes that do not fit; trailing bytes are the
    caller's to judge.
    """
    if version not in msg.valid:
        raise SchemaError(f"unknown version {version} of {msg.name} (known: {msg.valid})", path)
    r = _Reader(data, offset)
    if path:
        r.path.append(path)
    out = _read_struct(r, msg.fields, version, version in msg.flexible)
    return out, r.pos


# ============================================================================================ writing
class _Writer:
    __slots__ = ("out", "path")

    def __init__(self) -> None:
        self.out = bytearray()
        self.path: list[str] = []

    def fail(self, message: str) -> SchemaError:
        return SchemaError(message, ".".join(self.path).replace(".[", "["))

    def uvarint(self, value: int) -> None:
        if not 0 <= value < 1 << 32:
            raise self.fail(f"{value} does not fit an unsigned 32-bit varint")
        while value >= 0x80:
            self.out.append((value & 0x7F) | 0x80)
            value >>= 7
        self.out.append(value)

    def fixed(self, t: str, value: Any) -> None:
        if t == "uuid":
            if not isinstance(value, uuid.UUID):
                raise self.fail(f"expected a uuid.UUID, got {type(value).__name__}")
            self.out += value.bytes
            return
        if t == "bool":
            self.out.append(1 if value else 0)
            return
        if t == "float64":
            self.out += struct.pack(">d", float(value))
            return
        lo, hi = _RANGES[t]
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise self.fail(f"{value!r} is not an {t}")
        self.out += struct.pack(_STRUCTS[t], value)

    def length(self, n: int, flexible: bool, wide: bool) -> None:
        if flexible:
            self.uvarint(n + 1)
        else:
            self.fixed("int32" if wide else "int16", n)


def _write_scalar(w: _Writer, t: str, value: Any, nullable: bool, flexible: bool) -> None:
    if t in _FIXED:
        w.fixed(t, value)
        return
    if value is None:
        if not nullable:
            raise w.fail(f"null {t} in a non-nullable field")
        w.length(-1, flexible, t == "bytes")
        return
    raw = value.encode("utf-8") if t == "string" else bytes(value)
    if t == "string" and not isinstance(value, str):
        raise w.fail(f"expected a str, got {type(value).__name__}")
    if t == "string" and len(raw) > 0x7FFF:
        raise w.fail(f"string of {len(raw)} bytes is longer than 32767")
    w.length(len(raw), flexible, t == "bytes")
    w.out += raw


def _write_field(w: _Writer, fd: Field, value: Any, version: int, flexible: bool, in_tag: bool) -> None:
    nullable = version in fd.nullable
    if fd.is_array:
        if value is None:
            if not nullable:
                raise w.fail("null array in a non-nullable field")
            w.length(-1, flexible, True)
            return
        w.length(len(value), flexible, True)
        for i, item in enumerate(value):
            w.path.append(f"[{i}]")
            if fd.element == "struct":
                _write_struct(w, fd.fields, item, version, flexible)
            else:
                _write_scalar(w, fd.element, item, False, flexible)
            w.path.pop()
        return
    if fd.type == "struct":
        if nullable:
            if value is None:
                if in_tag:
                    w.uvarint(0)
                else:
                    w.fixed("int8", -1)
                return
            if in_tag:
                w.uvarint(1)
            else:
                w.fixed("int8", 1)
        elif value is None:
            raise w.fail("null struct in a non-nullable field")
        _write_struct(w, fd.fields, value, version, flexible)
        return
    _write_scalar(w, fd.type, value, nullable, flexible)


def _write_struct(w: _Writer, fields: tuple[Field, ...], value: Any, version: int, flexible: bool) -> None:
    if not isinstance(value, dict):
        raise w.fail(f"expected a dict, got {type(value).__name__}")
    tags: dict[int, bytes] = {}
    for fd in fields:
        if version not in fd.versions:
            continue
        item = value.get(fd.json_name, fd.default_value(version))
        w.path.append(fd.json_name)
        if version in fd.tagged and fd.tag is not None:
            if not flexible:
                raise w.fail("a tagged field in a non-flexible version")
            if item != fd.default_value(version):
                sub = _Writer()
                sub.path = list(w.path)
                _write_field(sub, fd, item, version, flexible, True)
                tags[fd.tag] = bytes(sub.out)
        else:
            _write_field(w, fd, item, version, flexible, False)
        w.path.pop()
    if not flexible:
        return
    for tag, raw in value.get(UNKNOWN_TAGS, {}).items():
        tags.setdefault(tag, bytes(raw))
    w.uvarint(len(tags))
    for tag in sorted(tags):
        w.uvarint(tag)
        w.uvarint(len(tags[tag]))
        w.out += tags[tag]


def encode(msg: Message, version: int, value: dict[str, Any]) -> bytes:
    """``value`` (a dict as :func:`decode` returns) as ``msg`` at ``version``; fields missing from the
    dict take their defaults. Raises :class:`SchemaError` for a value that does not fit."""
    if version not in msg.valid:
        raise SchemaError(f"unknown version {version} of {msg.name} (known: {msg.valid})")
    w = _Writer()
    _write_struct(w, msg.fields, value, version, version in msg.flexible)
    return bytes(w.out)


# =============================================================================================== JSON
def java_double(x: float) -> str:
    """Java's Double.toString (what Jackson prints for a float64): 1.0E7, 0.001, NaN, Infinity."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    a = abs(x)
    if a == 0:
        return sign + "0.0"
    if 1e-3 <= a < 1e7:
        s = repr(a)  # shortest round-trip digits, plain notation in this range
        return sign + (s if "." in s else s + ".0")
    t = Decimal(repr(a)).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    exp10 = int(t.exponent) + len(digits) - 1
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp10}"


class _Raw(str):
    """A pre-rendered JSON number (floats follow Java's formatting, not Python's)."""


def _json_value(fd: Field, t: str, value: Any, version: int) -> Any:
    if value is None:
        return None
    if t == "struct":
        return to_json_obj(fd.fields, version, value)
    if t == "uuid":
        return base64.urlsafe_b64encode(value.bytes).rstrip(b"=").decode("ascii")
    if t == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if t == "float64":
        return _Raw(java_double(float(value)))
    return value


def to_json_obj(fields: tuple[Field, ...], version: int, value: dict[str, Any]) -> dict[str, Any]:
    """The fields Kafka's generated JSON converter would write for ``value``, in spec order: fields of
    this version; tagged ones only when they differ from their default."""
    out: dict[str, Any] = {}
    for fd in fields:
        if version not in fd.versions:
            continue
        item = value.get(fd.json_name, fd.default_value(version))
        if version in fd.tagged and item == fd.default_value(version):
            continue
        if fd.is_array and item is not None:
            out[fd.json_name] = [_json_value(fd, fd.element, x, version) for x in item]
        else:
            out[fd.json_name] = _json_value(fd, fd.type, item, version)
    return out


def dumps(obj: Any) -> str:
    """Compact JSON as Jackson's ``ObjectNode.toString()`` prints it (no spaces, UTF-8 kept)."""
    if isinstance(obj, _Raw):
        return str(obj)
    if isinstance(obj, dict):
        return "{" + ",".join(f"{_json_str(k)}:{dumps(v)}" for k, v in obj.items()) + "}"
    if isinstance(obj, list):
        return "[" + ",".join(dumps(v) for v in obj) + "]"
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, str):
        return _json_str(obj)
    if isinstance(obj, float):
        return java_double(obj)
    return str(int(obj))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _json_str(s: str) -> str:
    out = []
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
