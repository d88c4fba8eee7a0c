"""``.proto`` source text to a ``FileDescriptorProto``, the way ``protoc`` reads it.

A schema registry keeps each Protobuf schema in its ``_schemas`` topic as ``.proto`` source text, not as a
compiled descriptor. kvlog decodes values offline from that topic, so it reads the text itself rather than
needing ``protoc`` at run time: :func:`parse_proto` gives the ``FileDescriptorProto`` that ``protoc
--descriptor_set_out`` writes for the same file (``json_name`` filled in, no ``source_code_info``,
source-retention options left out), and raises :class:`~kvlog.errors.SchemaError` (``file:line:column``,
the token) wherever protoc reports an error.

Read: ``syntax = "proto2" | "proto3"`` and ``edition = "2023"``, package, imports (plain, public, weak),
messages (nested as deep as protoc allows, :data:`MAX_DEPTH`), every field type and label, proto3
``optional`` (protoc's synthetic oneofs), maps (their ``…Entry`` messages), groups, oneofs, enums, reserved
ranges and names, extension ranges (with declarations), ``extend`` blocks, services, standard options
everywhere (aggregate values through text format) and field defaults in protoc's spelling. Type and
option names resolve by protoc's scoping rules against the file, the files given as ``dependencies`` and
the well-known types that ``protobuf`` ships; protoc's checks of names, numbers, ranges, JSON names, enum
values, options and edition 2023 features are made.

Not read: the values of custom options (``(my.ext) = …``). They are checked as protoc checks them (the
extension exists and extends the right ``…Options`` message, the value fits its type, an aggregate parses
as text format) and then dropped: the options message is there, without them. Edition 2024 (naming-style
rules, ``export``/``local``, ``import option``) is refused with a SchemaError.
"""

from __future__ import annotations

import bisect
import importlib
import math
import re
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeAlias

from google.protobuf import descriptor_pb2 as d
from google.protobuf import descriptor_pool, message_factory, text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from kvlog.errors import SchemaError

__all__ = ["parse_proto", "MAX_DEPTH"]

#: deepest nesting of messages (groups and map entries included) that protoc accepts
MAX_DEPTH = 31
#: deepest nesting of braces in an option's aggregate value (protoc aborts past it)
_MAX_AGGREGATE_DEPTH = 100
_MAX_FIELD = 536870911
_INT32_MAX = 2**31 - 1
_UINT64_MAX = 2**64 - 1
_FD = d.FieldDescriptorProto
_Type: TypeAlias = d.FieldDescriptorProto.Type.ValueType
_Label: TypeAlias = d.FieldDescriptorProto.Label.ValueType

_SCALARS = {
    "double": _FD.TYPE_DOUBLE, "float": _FD.TYPE_FLOAT, "int64": _FD.TYPE_INT64, "uint64": _FD.TYPE_UINT64,
    "int32": _FD.TYPE_INT32, "fixed64": _FD.TYPE_FIXED64, "fixed32": _FD.TYPE_FIXED32, "bool": _FD.TYPE_BOOL,
    "string": _FD.TYPE_STRING, "group": _FD.TYPE_GROUP, "bytes": _FD.TYPE_BYTES, "uint32": _FD.TYPE_UINT32,
    "sfixed32": _FD.TYPE_SFIXED32, "sfixed64": _FD.TYPE_SFIXED64, "sint32": _FD.TYPE_SINT32,
    "sint64": _FD.TYPE_SINT64,
}
#: (lowest, highest) value of each integer type
_INT_RANGES = {
    _FD.TYPE_INT32: (-(2**31), 2**31 - 1), _FD.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _FD.TYPE_SFIXED32: (-(2**31), 2**31 - 1), _FD.TYPE_INT64: (-(2**63), 2**63 - 1),
    _FD.TYPE_SINT64: (-(2**63), 2**63 - 1), _FD.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    _FD.TYPE_UINT32: (0, 2**32 - 1), _FD.TYPE_FIXED32: (0, 2**32 - 1),
    _FD.TYPE_UINT64: (0, _UINT64_MAX), _FD.TYPE_FIXED64: (0, _UINT64_MAX),
}
_FLOATS = (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE)
_PACKABLE = set(_INT_RANGES) | set(_FLOATS) | {_FD.TYPE_BOOL, _FD.TYPE_ENUM}
_BAD_MAP_KEYS = {_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE, _FD.TYPE_BYTES, _FD.TYPE_MESSAGE, _FD.TYPE_GROUP}

#: import path → module of the well-known types that protobuf ships
_WELL_KNOWN = {f"google/protobuf/{n}.proto": f"google.protobuf.{n}_pb2" for n in (
    "any", "api", "descriptor", "duration", "empty", "field_mask", "source_context", "struct", "timestamp",
    "type", "wrappers", "cpp_features", "java_features", "go_features")}
_WELL_KNOWN["google/protobuf/compiler/plugin.proto"] = "google.protobuf.compiler.plugin_pb2"

_EDITIONS = {"2023": d.EDITION_2023}


# -- tokens ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    kind: str  # "ident", "int", "float", "string", "symbol" or "end"
    text: str
    line: int
    col: int
    data: bytes = b""  # a string literal's value


def _describe(tok: _Token) -> str:
    return "end of input" if tok.kind == "end" else repr(tok.text)


class _Located(Exception):
    """An error at a place of the text (made into a SchemaError with the file name)."""

    def __init__(self, message: str, line: int, col: int, found: str) -> None:
        super().__init__(message)
        self.message, self.line, self.col, self.found = message, line, col, found


def _fail(tok: _Token, message: str) -> NoReturn:
    raise _Located(message, tok.line, tok.col, _describe(tok))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACE = re.compile(r"[ \t\n\r\v\f]+")
_DIGITS = "0123456789"
_HEX = "0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "?": 63, "'": 39,
                   '"': 34}


class _Lexer:
    """protoc's tokenizer: identifiers, numbers, string literals, one-character symbols; comments skipped."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def fail(self, pos: int, message: str) -> NoReturn:
        line, col = self.where(pos)
        raise _Located(message, line, col, repr(self.text[pos:pos + 1]) if pos < len(self.text) else "end of input")

    def tokens(self) -> list[_Token]:
        out: list[_Token] = []
        text, n = self.text, len(self.text)
        i = 1 if text.startswith("\ufeff") else 0  # protoc skips one byte order mark
        if "\0" in text:  # protoc stops at a NUL wherever it is (in a string it is the end of the input)
            self.fail(text.index("\0"), "Invalid control characters encountered in text.")
        while True:
            i = self.skip_blank(i)
            if i >= n:
                line, col = self.where(i)
                out.append(_Token("end", "", line, col))
                return out
            c = text[i]
            if c.isascii() and (c.isalpha() or c == "_"):
                m = _IDENT.match(text, i)
                assert m is not None
                kind, end, data = "ident", m.end(), b""
            elif c in _DIGITS or (c == "." and i + 1 < n and text[i + 1] in _DIGITS):
                kind, end = self.number(i)
                data = b""
            elif c in "\"'":
                end, data = self.string(i)
                kind = "string"
            elif " " <= c <= "\x7f":
                kind, end, data = "symbol", i + 1, b""
            elif c.isascii():
                self.fail(i, "Invalid control characters encountered in text.")
            else:
                self.fail(i, f"Interpreting non ascii codepoint {ord(c)}.")
            line, col = self.where(i)
            out.append(_Token(kind, text[i:end], line, col, data))
            i = end

    def skip_blank(self, i: int) -> int:
        text = self.text
        while True:
            m = _SPACE.match(text, i)
            if m:
                i = m.end()
            if text.startswith("//", i):
                nl = text.find("\n", i)
                i = len(text) if nl < 0 else nl
            elif text.startswith("/*", i):
                close, nested = text.find("*/", i + 2), text.find("/*", i + 2)
                if 0 <= nested and (close < 0 or nested < close):
                    self.fail(nested, '"/*" inside block comment.  Block comments cannot be nested.')
                if close < 0:
                    self.fail(len(text), "End-of-file inside block comment.")
                i = close + 2
            else:
                return i

    def number(self, i: int) -> tuple[str, int]:
        text, n = self.text, len(self.text)
        j, is_float = i, False
        if text.startswith(("0x", "0X"), i):
            j = k = i + 2
            while j < n and text[j] in _HEX:
                j += 1
            if j == k:
                self.fail(j, '"0x" must be followed by hex digits.')
            integral = True
        elif text[i] == "0" and i + 1 < n and text[i + 1] in _DIGITS:
            j = i + 1
            while j < n and text[j] in "01234567":
                j += 1
            if j < n and text[j] in "89":
                self.fail(j, "Numbers starting with leading zero must be in octal.")
            integral = True
        else:
            integral = False
            if text[j] == ".":
                is_float, j = True, j + 1
            j = self.digits(j)
            if not is_float and j < n and text[j] == ".":
                is_float, j = True, self.digits(j + 1)
            if j < n and text[j] in "eE":
                is_float, j = True, j + 1
                if j < n and text[j] in "+-":
                    j += 1
                k, j = j, self.digits(j)
                if j == k:
                    self.fail(j, '"e" must be followed by exponent.')
        if j < n and text[j].isascii() and (text[j].isalpha() or text[j] == "_"):
            self.fail(j, "Need space between number and identifier.")
        if j < n and text[j] == ".":
            self.fail(j, "Hex and octal numbers must be integers." if integral
                      else "Already saw decimal point or exponent; can't have another one.")
        return ("float" if is_float else "int"), j

    def digits(self, j: int) -> int:
        while j < len(self.text) and self.text[j] in _DIGITS:
            j += 1
        return j

    def string(self, i: int) -> tuple[int, bytes]:
        text, n, quote = self.text, len(self.text), self.text[i]
        out = bytearray()
        j = i + 1
        while True:
            if j >= n:
                self.fail(j, "Unexpected end of string.")
            c = text[j]
            if c == quote:
                return j + 1, bytes(out)
            if c == "\n":
                self.fail(j, "String literals cannot cross line boundaries.")
            if c == "\\":
                j = self.escape(j + 1, out)
            else:
                out += c.encode()
                j += 1

    def escape(self, j: int, out: bytearray) -> int:
        """Decodes the escape sequence at ``j`` (after the backslash) into ``out``; returns where it ends."""
        text = self.text
        e = text[j:j + 1]
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            return j + 1
        if e and e in "01234567":
            k = j
            while k < j + 3 and text[k:k + 1] and text[k] in "01234567":
                k += 1
            out.append(int(text[j:k], 8) & 0xFF)
            return k
        if e == "x":
            k = j + 1
            while k < j + 3 and text[k:k + 1] and text[k] in _HEX:
                k += 1
            if k == j + 1:
                self.fail(j, "Expected hex digits for escape sequence.")
            out.append(int(text[j + 1:k], 16))
            return k
        if e == "u":
            code = self.hex_run(j + 1, 4, "Expected four hex digits for \\u escape sequence.")
            end = j + 5
            if 0xD800 <= code < 0xDC00 and text.startswith("\\u", end) and self.is_hex(end + 2, 4):
                low = int(text[end + 2:end + 6], 16)
                if 0xDC00 <= low < 0xE000:
                    code, end = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00), end + 6
            out += chr(code).encode("utf-8", "surrogatepass")
            return end
        if e == "U":
            if not re.fullmatch(r"00[01][0-9a-fA-F]{5}", text[j + 1:j + 9]):
                self.fail(j, "Expected eight hex digits up to 10ffff for \\U escape sequence")
            code = int(text[j + 1:j + 9], 16)
            # protoc keeps a code point past U+10FFFF as the escape's own text
            out += chr(code).encode("utf-8", "surrogatepass") if code <= 0x10FFFF else text[j - 1:j + 9].encode()
            return j + 9
        self.fail(j, "Invalid escape sequence in string literal.")

    def is_hex(self, j: int, count: int) -> bool:
        run = self.text[j:j + count]
        return len(run) == count and all(c in _HEX for c in run)

    def hex_run(self, j: int, count: int, message: str) -> int:
        if not self.is_hex(j, count):
            self.fail(j, message)
        return int(self.text[j:j + count], 16)


def _int_value(text: str) -> int:
    if text[:2] in ("0x", "0X"):
        return int(text[2:], 16)
    return int(text, 8) if len(text) > 1 and text[0] == "0" else int(text)


# -- what the parser keeps for the checks after it ---------------------------------------------------


@dataclass
class _Value:
    """An option's value as written: an identifier, a number, a string or an aggregate ``{…}``."""

    kind: str  # "ident", "int", "float", "string" or "aggregate"
    tok: _Token
    number: float | int = 0
    data: bytes = b""
    text: str = ""  # an aggregate's contents as text format


@dataclass
class _Option:
    """A custom option (one whose name has a ``(extension)`` part), checked once every name is known."""

    owner: Message  # the …Options message
    kind: str  # "FileOptions", "FieldOptions", …
    scope: Callable[[], str]  # the full name its extension names are looked up from (known after parsing)
    parts: list[tuple[_Token, bool]]  # (name, is an extension)
    value: _Value
    seen: set[tuple[str, ...]]


@dataclass
class _Field:
    proto: d.FieldDescriptorProto
    name_tok: _Token
    number_tok: _Token
    type_tok: _Token | None = None  # a named type
    extendee_tok: _Token | None = None
    default_tok: _Token | None = None
    label_tok: _Token | None = None
    custom_json: bool = False
    json: str = ""  # its JSON name
    features: d.FeatureSet = field(default_factory=d.FeatureSet)  # in force (after parsing)
    seen: set[tuple[str, ...]] = field(default_factory=set)
    full_name: str = ""
    scope: str = ""  # full name of the message (or the package) it is declared in


@dataclass
class _Enum:
    proto: d.EnumDescriptorProto
    name_tok: _Token
    values: list[tuple[d.EnumValueDescriptorProto, _Token]] = field(default_factory=list)
    reserved_toks: list[_Token] = field(default_factory=list)
    full_name: str = ""


@dataclass
class _Message:
    proto: d.DescriptorProto
    name_tok: _Token
    fields: list[_Field] = field(default_factory=list)
    extensions: list[_Field] = field(default_factory=list)
    messages: list[_Message] = field(default_factory=list)
    enums: list[_Enum] = field(default_factory=list)
    oneof_toks: list[_Token] = field(default_factory=list)
    reserved_toks: list[_Token] = field(default_factory=list)
    range_toks: list[_Token] = field(default_factory=list)
    map_entry_of: _Field | None = None
    #: each ``extensions`` statement: its ranges, its options (source-retention ones too), its keyword
    range_statements: list[tuple[list[Any], d.ExtensionRangeOptions, _Token]] = field(default_factory=list)
    full_name: str = ""
    features: d.FeatureSet = field(default_factory=d.FeatureSet)  # in force (after parsing)


@dataclass
class _Method:
    proto: d.MethodDescriptorProto
    name_tok: _Token
    input_tok: _Token
    output_tok: _Token


@dataclass
class _Service:
    proto: d.ServiceDescriptorProto
    name_tok: _Token
    methods: list[_Method] = field(default_factory=list)


@dataclass
class _File:
    proto: d.FileDescriptorProto
    syntax: str = "proto2"  # "proto2", "proto3" or "editions"
    messages: list[_Message] = field(default_factory=list)
    enums: list[_Enum] = field(default_factory=list)
    extensions: list[_Field] = field(default_factory=list)
    services: list[_Service] = field(default_factory=list)
    imports: list[_Token] = field(default_factory=list)
    options: list[_Option] = field(default_factory=list)  # custom ones, in order


class _Container:
    """Where a message's nested declarations go (a message, or the file for top-level ones)."""

    def __init__(self, messages: list[_Message], protos: Any) -> None:
        self.messages, self.protos = messages, protos


# -- parser --------------------------------------------------------------------------------------------


def _json_name(name: str) -> str:
    """protoc's default JSON name: underscores dropped, the letter after each one upper-cased."""
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _map_entry_name(name: str) -> str:
    """The nested message protoc makes for map field ``name``: ``my_map`` → ``MyMapEntry``."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_")) + "Entry"


def _to_float32(value: float) -> float:
    """``value`` rounded to a float as protoc does (values past the largest float become infinite)."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:  # rounds past the largest float
        return math.copysign(math.inf, value)


def _format_float(value: float, single: bool) -> str:
    """protoc's spelling of a float or double default (``SimpleFtoa``/``SimpleDtoa``)."""
    short, long_, back = ("%.6g", "%.9g", _to_float32) if single else ("%.15g", "%.17g", float)
    value = back(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = short % value
    return text if back(float(text)) == value else long_ % value


def _c_escape(data: bytes) -> str:
    """Bytes as protoc writes a bytes default: C escapes, octal for what is not printable ASCII."""
    named = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def _text(data: bytes) -> str:
    """A string literal's bytes as text (bytes that are not UTF-8 kept as lone surrogates)."""
    return data.decode("utf-8", "surrogateescape")


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def _store_string(msg: Message, name: str, data: bytes) -> None:
    """Sets (or appends to) string field ``name``; bytes that are not UTF-8 are kept as they are, as protoc
    keeps them (a FileDescriptorProto is proto2: its strings need not be UTF-8)."""
    fd = msg.DESCRIPTOR.fields_by_name[name]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        msg.MergeFromString(_varint(fd.number << 3 | 2) + _varint(len(data)) + data)
        return
    if _is_repeated(fd):
        getattr(msg, name).append(text)
    else:
        setattr(msg, name, text)


class _Parser:
    """Recursive descent over the tokens, filling a FileDescriptorProto and the records the checks use."""

    def __init__(self, tokens: list[_Token], name: str) -> None:
        self.toks, self.pos, self.depth = tokens, 0, 0  # depth: of nested messages
        self.file = _File(d.FileDescriptorProto(name=name))
        self.file_seen: set[tuple[str, ...]] = set()
        self.retain = False  # keep source-retention options (for checks) instead of leaving them out

    # token helpers

    @property
    def tok(self) -> _Token:
        return self.toks[self.pos]

    def peek(self, ahead: int = 1) -> _Token:
        return self.toks[min(self.pos + ahead, len(self.toks) - 1)]

    def at(self, text: str) -> bool:
        tok = self.tok
        return tok.text == text and tok.kind in ("ident", "symbol")

    def next(self) -> _Token:
        tok = self.tok
        if tok.kind != "end":
            self.pos += 1
        return tok

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.pos += 1
            return True
        return False

    def expect(self, text: str, message: str | None = None) -> _Token:
        if not self.at(text):
            _fail(self.tok, message or f'Expected "{text}".')
        return self.next()

    def ident(self, message: str) -> _Token:
        if self.tok.kind != "ident":
            _fail(self.tok, message)
        return self.next()

    def string(self, message: str) -> tuple[bytes, _Token]:
        """One string literal or several adjacent ones (concatenated)."""
        if self.tok.kind != "string":
            _fail(self.tok, message)
        first, data = self.tok, b""
        while self.tok.kind == "string":
            data += self.next().data
        return data, first

    def integer(self, message: str, limit: int) -> tuple[int, _Token]:
        if self.tok.kind != "int":
            _fail(self.tok, message)
        tok = self.next()
        value = _int_value(tok.text)
        if value > limit:
            _fail(tok, "Integer out of range.")
        return value, tok

    def signed(self, message: str, limit: int) -> tuple[int, _Token]:
        """An integer with an optional minus sign, within ``-(limit + 1)..limit``."""
        negative = self.accept("-")
        value, tok = self.integer(message, limit + negative)
        return (-value if negative else value), tok

    def end_statement(self) -> None:
        self.expect(";", 'Expected ";".')

    def block(self) -> None:
        self.expect("{", 'Expected "{".')

    def block_end(self, what: str) -> bool:
        """Whether the block's ``}`` is next (consumed); fails at the end of the input."""
        if self.tok.kind == "end":
            _fail(self.tok, f"Reached end of input in {what} definition (missing '}}').")
        return self.accept("}")

    def nest(self, tok: _Token) -> None:
        """One message deeper (within protoc's recursion limit)."""
        if self.depth >= MAX_DEPTH:
            _fail(tok, f"Reached maximum recursion limit for nested messages ({MAX_DEPTH}).")
        self.depth += 1

    def type_name(self, message: str = "Expected type name.") -> _Token:
        """A message or enum name: ``Foo``, ``foo.Bar`` or ``.pkg.Foo`` (one token made of the parts)."""
        first = self.tok
        text = "." if self.accept(".") else ""
        text += self.ident(message).text
        while self.accept("."):
            text += "." + self.ident(message).text
        return _Token("ident", text, first.line, first.col)

    @property
    def syntax(self) -> str:
        return self.file.syntax

    # file

    def parse(self) -> _File:
        if self.at("syntax") or self.at("edition"):
            self.syntax_statement()
        top = _Container(self.file.messages, self.file.proto.message_type)
        while self.tok.kind != "end":
            if self.accept(";"):
                continue
            if self.at("message"):
                self.message(top)
            elif self.at("enum"):
                self.enum(self.file.enums, self.file.proto.enum_type)
            elif self.at("service"):
                self.service()
            elif self.at("extend"):
                self.extend(top, self.file.extensions, self.file.proto.extension)
            elif self.at("import"):
                self.import_()
            elif self.at("package"):
                self.package()
            elif self.at("option"):
                self.option_statement(self.file.proto.options, "FileOptions", self.file_seen,
                                      lambda: _join(self.file.proto.package, "dummy"))
            else:
                _fail(self.tok, 'Expected top-level statement (e.g. "message").')
        return self.file

    def syntax_statement(self) -> None:
        keyword = self.next()
        self.expect("=")
        data, tok = self.string("Expected syntax identifier." if keyword.text == "syntax"
                                else "Expected edition string.")
        value = _text(data)
        if keyword.text == "syntax":
            if value not in ("proto2", "proto3"):
                _fail(tok, f'Unrecognized syntax identifier "{value}".  This parser only recognizes '
                           '"proto2" and "proto3".')
            self.file.syntax = value
            if value == "proto3":
                self.file.proto.syntax = value
        else:
            if value == "2024":
                _fail(tok, "Edition 2024 is not supported (proto2, proto3 and edition 2023 are).")
            if value not in _EDITIONS:
                _fail(tok, f'Unknown edition "{value}".')
            self.file.syntax = "editions"
            self.file.proto.syntax = "editions"
            self.file.proto.edition = _EDITIONS[value]
        self.end_statement()

    def import_(self) -> None:
        self.next()
        proto = self.file.proto
        index = len(proto.dependency)
        if self.accept("public"):
            proto.public_dependency.append(index)
        elif self.accept("weak"):
            proto.weak_dependency.append(index)
        data, tok = self.string("Expected a string naming the file to import.")
        path = _text(data)
        if path in proto.dependency:
            _fail(tok, f'Import "{path}" was listed twice.')
        proto.dependency.append(path)
        self.file.imports.append(tok)
        self.end_statement()

    def package(self) -> None:
        tok = self.next()
        if self.file.proto.HasField("package"):
            _fail(tok, "Multiple package definitions.")
        name = self.ident("Expected identifier.").text
        while self.accept("."):
            name += "." + self.ident("Expected identifier.").text
        self.file.proto.package = name
        self.end_statement()

    # messages

    def message(self, into: _Container) -> _Message:
        self.next()
        name = self.ident("Expected message name.")
        rec = _Message(into.protos.add(name=name.text), name)
        into.messages.append(rec)
        self.message_body(rec)
        return rec

    def message_body(self, rec: _Message) -> None:
        self.nest(self.tok)
        self.block()
        here = _Container(rec.messages, rec.proto.nested_type)
        seen: set[tuple[str, ...]] = set()
        while not self.block_end("message"):
            if self.accept(";"):
                continue
            if self.at("message"):
                self.message(here)
            elif self.at("enum"):
                self.enum(rec.enums, rec.proto.enum_type)
            elif self.at("extensions"):
                self.extension_ranges(rec)
            elif self.at("reserved"):
                self.message_reserved(rec)
            elif self.at("extend"):
                self.extend(here, rec.extensions, rec.proto.extension)
            elif self.at("option"):
                self.option_statement(rec.proto.options, "MessageOptions", seen, lambda: rec.full_name)
            elif self.at("oneof"):
                self.oneof(rec, here)
            else:
                self.field(here, rec.fields, rec.proto.field)
        self.depth -= 1
        self.finish_message(rec)

    def finish_message(self, rec: _Message) -> None:
        """What protoc does once a message is read: ``max`` in ranges, proto3 optional's oneofs."""
        proto = rec.proto
        top = _INT32_MAX if proto.options.message_set_wire_format else _MAX_FIELD + 1
        for r in list(proto.extension_range) + list(proto.reserved_range):
            if r.end == -1:
                r.end = top
        taken = {f.name for f in proto.field} | {o.name for o in proto.oneof_decl}
        for f in proto.field:
            if f.proto3_optional:
                name = f.name if f.name.startswith("_") else "_" + f.name
                while name in taken:
                    name = "X" + name
                taken.add(name)
                f.oneof_index = len(proto.oneof_decl)
                proto.oneof_decl.add(name=name)

    def oneof(self, rec: _Message, here: _Container) -> None:
        self.next()
        name = self.ident("Expected oneof name.")
        index = len(rec.proto.oneof_decl)
        decl = rec.proto.oneof_decl.add(name=name.text)
        rec.oneof_toks.append(name)
        self.block()
        seen: set[tuple[str, ...]] = set()
        while True:
            if self.at("option"):
                self.option_statement(decl.options, "OneofOptions", seen, lambda: f"{rec.full_name}.{name.text}")
            else:
                self.field(here, rec.fields, rec.proto.field, oneof=index)
            if self.block_end("oneof"):
                return

    def extension_ranges(self, rec: _Message) -> None:
        tok = self.next()
        if self.syntax == "proto3":
            _fail(tok, "Extension ranges are not allowed in proto3.")
        ranges = self.number_ranges(rec, "Expected field number range.")
        every = d.ExtensionRangeOptions()  # with the source-retention options (declarations) too
        if self.at("["):
            start, self.retain = self.pos, True
            self.bracketed_options(lambda: [(every, "ExtensionRangeOptions", set())], lambda: rec.full_name)
            self.pos, self.retain = start, False
            seen: list[set[tuple[str, ...]]] = [set() for _ in ranges]
            self.bracketed_options(lambda: [(r.options, "ExtensionRangeOptions", s) for r, s in zip(ranges, seen)],
                                   lambda: rec.full_name)
        rec.range_statements.append((ranges, every, tok))
        self.end_statement()

    def number_ranges(self, rec: _Message, message: str) -> list[Any]:
        """``1, 5 to 9, 20 to max`` of an ``extensions`` statement, added to the message (end exclusive)."""
        ranges = []
        while True:
            start, tok = self.integer(message, _INT32_MAX)
            end = self.range_end(start)
            r = rec.proto.extension_range.add(start=start, end=end)
            rec.range_toks.append(tok)
            ranges.append(r)
            if not self.accept(","):
                return ranges

    def range_end(self, start: int) -> int:
        """The exclusive end after ``start`` (``-1`` for ``max``, settled when the message is read)."""
        if not self.accept("to"):
            end = start
        elif self.accept("max"):
            return -1
        else:
            end = self.integer("Expected integer.", _INT32_MAX)[0]
        # protoc adds 1 in 32 bits: INT32_MAX wraps to a range that ends before it starts
        return end + 1 if end < _INT32_MAX else -(2**31)

    def message_reserved(self, rec: _Message) -> None:
        self.next()
        if self.tok.kind == "string" or self.tok.kind == "ident":
            self.reserved_names(rec.proto, "Field name")
            return
        while True:
            start, tok = self.integer("Expected field number range.", _INT32_MAX)
            rec.proto.reserved_range.add(start=start, end=self.range_end(start))
            rec.reserved_toks.append(tok)
            if not self.accept(","):
                break
        self.end_statement()

    def reserved_names(self, owner: d.DescriptorProto | d.EnumDescriptorProto, what: str) -> None:
        editions = self.syntax == "editions"
        names: set[str] = set()
        while True:
            if editions and self.tok.kind == "string":
                _fail(self.tok, "Reserved names must be identifiers in editions, not string literals.")
            if not editions and self.tok.kind == "ident":
                _fail(self.tok, "Reserved names must be string literals. (Only editions supports identifiers.)")
            if editions:
                tok = self.ident("Expected name.")
                data = tok.text.encode()
            else:
                data, tok = self.string("Expected field name string literal.")
            name = _text(data)
            if name in names:
                _fail(tok, f'{what} "{name}" is reserved multiple times.')
            names.add(name)
            _store_string(owner, "reserved_name", data)
            if not self.accept(","):
                break
        self.end_statement()

    def extend(self, here: _Container, records: list[_Field], protos: Any) -> None:
        self.next()
        extendee = self.type_name()
        self.block()
        while True:
            self.field(here, records, protos, extendee=extendee)
            if self.block_end("extend"):
                return

    # fields

    def field(self, here: _Container, records: list[_Field], protos: Any, oneof: int | None = None,
              extendee: _Token | None = None) -> None:
        label_tok = self.tok if self.tok.text in ("optional", "required", "repeated") else None
        label = self.label(oneof is not None)
        if self.at("map") and self.peek().text == "<":
            self.map_field(here, records, protos, label_tok, oneof, extendee)
            return
        if label is None:
            if self.syntax == "proto2" and oneof is None:
                _fail(self.tok, 'Expected "required", "optional", or "repeated".')
            label = _FD.LABEL_OPTIONAL
        type_tok = self.tok
        scalar = _SCALARS.get(self.tok.text) if self.tok.kind == "ident" else None
        if scalar is not None:
            self.next()
        elif self.accept("map"):  # protoc takes a type named map as it is, never map.Something
            type_tok = _Token("ident", "map", type_tok.line, type_tok.col)
        else:
            type_tok = self.type_name()
        if scalar == _FD.TYPE_GROUP and self.syntax != "proto2":
            _fail(type_tok, "Groups are not supported in proto3 syntax." if self.syntax == "proto3"
                  else "Group syntax is no longer supported in editions.")
        name = self.ident("Expected field name.")
        self.expect("=", "Missing field number.")
        number, number_tok = self.integer("Expected field number.", _INT32_MAX)
        proto = protos.add(name=name.text, number=number, label=label)
        rec = _Field(proto, name, number_tok, label_tok=label_tok, extendee_tok=extendee)
        records.append(rec)
        if extendee is not None:
            proto.extendee = extendee.text
        if oneof is not None:
            proto.oneof_index = oneof
        if scalar is None:
            proto.type_name = type_tok.text
            rec.type_tok = type_tok
        else:
            proto.type = scalar
        if label_tok is not None and label_tok.text == "optional" and self.syntax == "proto3":
            proto.proto3_optional = True
        self.field_options(rec)
        if scalar == _FD.TYPE_GROUP:
            self.group(here, rec)
        else:
            self.end_statement()

    def label(self, in_oneof: bool) -> _Label | None:
        tok = self.tok
        if tok.kind != "ident" or tok.text not in ("optional", "required", "repeated"):
            return None
        if in_oneof:
            _fail(tok, "Fields in oneofs must not have labels (required / optional / repeated).")
        if self.syntax == "proto3" and tok.text == "required":
            _fail(tok, "Required fields are not allowed in proto3.")
        if self.syntax == "editions" and tok.text != "repeated":
            _fail(tok, f'Label "{tok.text}" is not supported in editions. By default, all singular fields have '
                       "presence unless features.field_presence is set.")
        self.next()
        return {"optional": _FD.LABEL_OPTIONAL, "required": _FD.LABEL_REQUIRED,
                "repeated": _FD.LABEL_REPEATED}[tok.text]

    def group(self, here: _Container, rec: _Field) -> None:
        name = rec.name_tok.text
        if not "A" <= name[0] <= "Z":
            _fail(rec.name_tok, "Group names must start with a capital letter.")
        rec.proto.name = name.lower()
        rec.proto.type_name = name
        rec.type_tok = rec.name_tok
        nested = _Message(here.protos.add(name=name), rec.name_tok)
        here.messages.append(nested)
        self.message_body(nested)

    def map_field(self, here: _Container, records: list[_Field], protos: Any, label_tok: _Token | None,
                  oneof: int | None, extendee: _Token | None) -> None:
        map_tok = self.next()
        if label_tok is not None:
            _fail(label_tok, "Field labels (required/optional/repeated) are not allowed on map fields.")
        if oneof is not None:
            _fail(map_tok, "Map fields are not allowed in oneofs.")
        if extendee is not None:
            _fail(map_tok, "Map fields are not allowed to be extensions.")
        self.expect("<")
        key = self.map_type()
        self.expect(",")
        value = self.map_type()
        self.expect(">")
        name = self.ident("Expected field name.")
        self.expect("=", "Missing field number.")
        number, number_tok = self.integer("Expected field number.", _INT32_MAX)
        if self.depth >= MAX_DEPTH:  # its entry message would be one level too deep
            _fail(map_tok, f"Reached maximum recursion limit for nested messages ({MAX_DEPTH}).")
        entry_name = _map_entry_name(name.text)
        proto = protos.add(name=name.text, number=number, label=_FD.LABEL_REPEATED, type_name=entry_name)
        rec = _Field(proto, name, number_tok, type_tok=_Token("ident", entry_name, name.line, name.col))
        records.append(rec)
        self.field_options(rec)
        self.end_statement()
        entry = _Message(here.protos.add(name=entry_name), name, map_entry_of=rec)
        entry.proto.options.map_entry = True
        here.messages.append(entry)
        for field_name, number, (scalar, tok) in (("key", 1, key), ("value", 2, value)):
            f = entry.proto.field.add(name=field_name, number=number, label=_FD.LABEL_OPTIONAL)
            sub = _Field(f, tok, tok)
            if scalar is None:
                f.type_name, sub.type_tok = tok.text, tok
            else:
                f.type = scalar
            entry.fields.append(sub)

    def map_type(self) -> tuple[_Type | None, _Token]:
        tok = self.tok
        if tok.kind == "ident" and tok.text in _SCALARS:
            self.next()
            if tok.text == "group":
                _fail(tok, "Map fields cannot have group types.")
            return _SCALARS[tok.text], tok
        return None, self.type_name()

    def field_options(self, rec: _Field) -> None:
        if not self.at("["):
            return
        self.next()
        proto = rec.proto
        while True:
            if self.at("default"):
                if rec.default_tok is not None:
                    _fail(self.tok, 'Already set option "default".')
                rec.default_tok = self.next()
                self.expect("=")
                self.default_value(rec)
            elif self.at("json_name"):
                if proto.HasField("json_name"):
                    _fail(self.tok, 'Already set option "json_name".')
                self.next()
                self.expect("=")
                data, tok = self.string("Expected string for JSON name.")
                if b"\0" in data:
                    _fail(tok, "json_name cannot have embedded null characters.")
                _store_string(proto, "json_name", data)
                rec.custom_json, rec.json = True, _text(data)
            else:
                self.option(proto.options, "FieldOptions", rec.seen, lambda: rec.full_name)
            if not self.accept(","):
                break
        self.expect("]")

    def default_value(self, rec: _Field) -> None:
        """``default = …``: checked against the field's type and stored in protoc's spelling."""
        proto, tok = rec.proto, self.tok
        if proto.label == _FD.LABEL_REPEATED:
            _fail(rec.default_tok or tok, "Repeated fields can't have default values.")
        if not proto.HasField("type"):
            # a message or enum: the token is kept as written, checked when the type is known
            if tok.kind == "end":
                _fail(tok, "Expected default value.")
            proto.default_value = self.next().text
            return
        kind = proto.type
        if kind in _FLOATS:
            proto.default_value = _format_float(self.float_default(), kind == _FD.TYPE_FLOAT)
        elif kind in _INT_RANGES:
            low, high = _INT_RANGES[kind]
            negative = self.at("-")
            if negative and low == 0:
                _fail(tok, "Unsigned field can't have negative default value.")
            self.accept("-")
            value, _ = self.integer("Expected integer for field default value.", -low if negative else high)
            proto.default_value = str(-value if negative else value)
        elif kind == _FD.TYPE_BOOL:
            if self.tok.text not in ("true", "false") or self.tok.kind != "ident":
                _fail(tok, 'Expected "true" or "false".')
            proto.default_value = self.next().text
        elif kind in (_FD.TYPE_STRING, _FD.TYPE_BYTES):
            data, stok = self.string("Expected string for field default value.")
            if kind == _FD.TYPE_STRING:
                _store_string(proto, "default_value", data)
            else:
                proto.default_value = _c_escape(data)
        else:
            _fail(tok, "Messages can't have default values.")

    def float_default(self) -> float:
        negative = self.accept("-")
        tok = self.next()
        if tok.kind == "float":
            value = float(tok.text)
        elif tok.kind == "int":
            value_int = _int_value(tok.text)
            if value_int <= _UINT64_MAX:
                value = float(value_int)
            elif tok.text[0] == "0" and len(tok.text) > 1:
                _fail(tok, "Integer out of range.")
            else:
                value = float(tok.text)
        elif tok.kind == "ident" and tok.text in ("inf", "nan"):
            value = float(tok.text)
        else:
            _fail(tok, "Expected number.")
        return -value if negative else value

    # options

    def option_statement(self, owner: Message, kind: str, seen: set[tuple[str, ...]],
                         scope: Callable[[], str]) -> None:
        self.next()
        self.option(owner, kind, seen, scope)
        self.end_statement()

    def bracketed_options(self, targets: Any, scope: Callable[[], str]) -> None:
        """``[a = 1, (b) = 2]`` applied to each (options message, kind, seen) of ``targets()``."""
        self.next()
        while True:
            start = self.pos
            for owner, kind, seen in targets():
                self.pos = start
                self.option(owner, kind, seen, scope)
            if not self.accept(","):
                break
        self.expect("]")

    def option(self, owner: Message, kind: str, seen: set[tuple[str, ...]], scope: Callable[[], str]) -> None:
        """``name = value``: a standard option is set on ``owner`` now, a custom one kept for later."""
        parts: list[tuple[_Token, bool]] = []
        while True:
            if self.at("("):
                self.next()
                parts.append((self.type_name(), True))
                self.expect(")")
            else:
                parts.append((self.ident("Expected identifier."), False))
            if not self.accept("."):
                break
        self.expect("=")
        value = self.option_value()
        if not any(custom for _, custom in parts):
            _set_standard_option(owner, [t for t, _ in parts], value, seen, self.syntax, self.retain)
        elif not self.retain:
            self.file.options.append(_Option(owner, kind, scope, parts, value, seen))

    def option_value(self) -> _Value:
        negative = self.accept("-")
        tok = self.tok
        if tok.kind == "ident":
            self.next()
            if negative:
                if tok.text not in ("inf", "nan"):
                    _fail(tok, "Identifier after '-' symbol must be inf or nan.")
                return _Value("float", tok, -float(tok.text))
            return _Value("ident", tok)
        if tok.kind == "int":
            value, _ = self.integer("Expected integer.", 2**63 if negative else _UINT64_MAX)
            return _Value("int", tok, -value if negative else value)
        if tok.kind == "float":
            self.next()
            return _Value("float", tok, -float(tok.text) if negative else float(tok.text))
        if negative:
            _fail(tok, "Expected number.")
        if tok.kind == "string":
            data, _ = self.string("Expected string.")
            return _Value("string", tok, data=data)
        if self.at("{"):
            return _Value("aggregate", tok, text=self.aggregate())
        _fail(tok, "Expected option value.")

    def aggregate(self) -> str:
        """A ``{…}`` value as text format (its tokens, strings re-escaped)."""
        depth, parts = 0, list[str]()
        while True:
            tok = self.next()
            if tok.kind == "end":
                _fail(tok, "Unexpected end of stream while parsing aggregate value.")
            if tok.text == "{" and tok.kind == "symbol":
                depth += 1
                if depth > _MAX_AGGREGATE_DEPTH:
                    _fail(tok, f"Aggregate value nested deeper than {_MAX_AGGREGATE_DEPTH} levels.")
            elif tok.text == "}" and tok.kind == "symbol":
                depth -= 1
                if depth == 0:
                    return " ".join(parts[1:])
            text = '"' + _c_escape(tok.data) + '"' if tok.kind == "string" else tok.text
            if parts and parts[-1] == "-":
                parts[-1] += text  # a negative number is one token to text format
            else:
                parts.append(text)

    # enums

    def enum(self, records: list[_Enum], protos: Any) -> None:
        self.next()
        name = self.ident("Expected enum name.")
        rec = _Enum(protos.add(name=name.text), name)
        records.append(rec)
        self.block()
        seen: set[tuple[str, ...]] = set()
        while not self.block_end("enum"):
            if self.accept(";"):
                continue
            if self.at("option"):
                self.option_statement(rec.proto.options, "EnumOptions", seen, lambda: rec.full_name)
            elif self.at("reserved"):
                self.enum_reserved(rec)
            else:
                self.enum_value(rec)

    def enum_value(self, rec: _Enum) -> None:
        name = self.ident("Expected enum constant name.")
        self.expect("=", "Missing numeric value for enum constant.")
        number, _ = self.signed("Expected integer.", _INT32_MAX)
        value = rec.proto.value.add(name=name.text, number=number)
        rec.values.append((value, name))
        if self.at("["):
            seen: set[tuple[str, ...]] = set()
            self.bracketed_options(lambda: [(value.options, "EnumValueOptions", seen)],
                                   lambda: _join(rec.full_name.rpartition(".")[0], value.name))
        self.end_statement()

    def enum_reserved(self, rec: _Enum) -> None:
        self.next()
        if self.tok.kind in ("string", "ident"):
            self.reserved_names(rec.proto, "Enum value")
            return
        while True:
            start, tok = self.signed("Expected enum value range.", _INT32_MAX)
            end = start
            if self.accept("to"):
                end = _INT32_MAX if self.accept("max") else self.signed("Expected integer.", _INT32_MAX)[0]
            rec.proto.reserved_range.add(start=start, end=end)
            rec.reserved_toks.append(tok)
            if not self.accept(","):
                break
        self.end_statement()

    # services

    def service(self) -> None:
        self.next()
        name = self.ident("Expected service name.")
        rec = _Service(self.file.proto.service.add(name=name.text), name)
        self.file.services.append(rec)
        self.block()
        seen: set[tuple[str, ...]] = set()
        while not self.block_end("service"):
            if self.accept(";"):
                continue
            if self.at("option"):
                self.option_statement(rec.proto.options, "ServiceOptions", seen,
                                      lambda: _join(self.file.proto.package, rec.proto.name))
            elif self.at("rpc"):
                self.method(rec)
            else:
                _fail(self.tok, 'Expected "rpc".')

    def method(self, service: _Service) -> None:
        self.next()
        name = self.ident("Expected method name.")
        proto = service.proto.method.add(name=name.text)
        self.expect("(")
        if self.accept("stream"):
            proto.client_streaming = True
        input_tok = self.type_name()
        self.expect(")")
        self.expect("returns")
        self.expect("(")
        if self.accept("stream"):
            proto.server_streaming = True
        output_tok = self.type_name()
        self.expect(")")
        proto.input_type, proto.output_type = input_tok.text, output_tok.text
        service.methods.append(_Method(proto, name, input_tok, output_tok))
        if not self.at("{"):
            self.end_statement()
            return
        self.block()
        proto.options.SetInParent()  # protoc gives a method with a body options, even if none are set
        seen: set[tuple[str, ...]] = set()
        while not self.block_end("method"):
            if self.accept(";"):
                continue
            if not self.at("option"):
                _fail(self.tok, 'Expected "option".')
            self.option_statement(proto.options, "MethodOptions", seen,
                                  lambda: _join(self.file.proto.package, f"{service.proto.name}.{proto.name}"))


# -- standard options --------------------------------------------------------------------------------


def _set_standard_option(owner: Message, names: list[_Token], value: _Value, seen: set[tuple[str, ...]],
                         syntax: str, retain: bool) -> None:
    """Sets ``a.b.c = value`` on a descriptor.proto options message, checked as protoc checks it."""
    dotted = ".".join(t.text for t in names)
    first = names[0]
    if first.text == "uninterpreted_option":
        _fail(first, 'Option must not use reserved name "uninterpreted_option".')
    if first.text == "map_entry" and owner.DESCRIPTOR.name == "MessageOptions":
        _fail(first, "map_entry should not be set explicitly. Use map<KeyType, ValueType> instead.")
    if first.text == "features" and syntax != "editions":
        _fail(first, "Features are only valid under editions.")
    key = tuple(t.text for t in names)
    path, message_type = [], owner.DESCRIPTOR
    for i, tok in enumerate(names):
        fd = message_type.fields_by_name.get(tok.text)
        if fd is None:
            _fail(tok, f'Option "{dotted}" unknown.')
        _check_target(fd.GetOptions().targets, owner.DESCRIPTOR.name, tok, dotted)
        if i < len(names) - 1:
            if fd.message_type is None or _is_repeated(fd):
                _fail(tok, f'Option "{".".join(key[:i + 1])}" is an atomic type, not a message.')
            message_type = fd.message_type
        path.append(fd)
    # protoc leaves source-retention options out of descriptor sets: those are only checked
    source = any(fd.GetOptions().retention == d.FieldOptions.RETENTION_SOURCE for fd in path)
    msg = type(owner)() if source and not retain else owner
    msg.SetInParent()
    for fd in path[:-1]:
        msg = getattr(msg, fd.name)
    if not _is_repeated(path[-1]):
        _check_unset(key, seen, names[-1])
    _assign(msg, path[-1], value, dotted, owner.DESCRIPTOR.name)
    if isinstance(msg, d.FeatureSet):
        _check_set_fields(msg, owner.DESCRIPTOR.name, value.tok, dotted)


#: the target type of the options of each kind of declaration
_TARGETS = {"FileOptions": d.FieldOptions.TARGET_TYPE_FILE,
            "ExtensionRangeOptions": d.FieldOptions.TARGET_TYPE_EXTENSION_RANGE,
            "MessageOptions": d.FieldOptions.TARGET_TYPE_MESSAGE, "FieldOptions": d.FieldOptions.TARGET_TYPE_FIELD,
            "OneofOptions": d.FieldOptions.TARGET_TYPE_ONEOF, "EnumOptions": d.FieldOptions.TARGET_TYPE_ENUM,
            "EnumValueOptions": d.FieldOptions.TARGET_TYPE_ENUM_ENTRY,
            "ServiceOptions": d.FieldOptions.TARGET_TYPE_SERVICE, "MethodOptions": d.FieldOptions.TARGET_TYPE_METHOD}


def _check_set_fields(msg: Message, kind: str, tok: _Token, dotted: str) -> None:
    """What an aggregate set (or a feature): each field allowed on ``kind``; features with known values."""
    for fd, value in msg.ListFields():
        _check_target(fd.GetOptions().targets, kind, tok, f"{dotted}.{fd.name}")
        if isinstance(msg, d.FeatureSet) and fd.enum_type is not None and value == 0:
            _fail(tok, f"Feature field `{fd.name}` must resolve to a known value, found "
                       f"{fd.enum_type.values_by_number[0].name}")
        if fd.type == FieldDescriptor.TYPE_MESSAGE and not _is_repeated(fd):
            _check_set_fields(value, kind, tok, f"{dotted}.{fd.name}")


def _check_target(targets: Iterable[int], kind: str, tok: _Token, dotted: str) -> None:
    """An option field that names its targets may be set only on those kinds of declaration."""
    targets = list(targets)
    if targets and _TARGETS[kind] not in targets:
        entity = kind.removesuffix("Options").lower()
        _fail(tok, f"Option {dotted} cannot be set on an entity of type `{entity}`.")


def _is_repeated(fd: Any) -> bool:
    """Whether a runtime FieldDescriptor is repeated (``label`` is gone from newer protobuf releases)."""
    return bool(fd.is_repeated if hasattr(fd, "is_repeated") else fd.label == fd.LABEL_REPEATED)


def _check_unset(key: tuple[str, ...], seen: set[tuple[str, ...]], tok: _Token, aggregate: bool = False) -> None:
    """protoc refuses to set one option twice, or a message option and one of its fields (but a field of a
    custom option set by an ``aggregate`` may be set again)."""
    for other in seen:
        shorter = min(len(key), len(other))
        if key[:shorter] == other[:shorter]:
            _fail(tok, f'Option "{".".join(key)}" was already set.')
    seen.add(key + ("{}",) if aggregate else key)


def _assign(msg: Message, fd: Any, value: _Value, dotted: str, kind: str) -> None:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if value.kind != "aggregate":
            _fail(value.tok, f'Option "{dotted}" is a message. To set the entire message, use syntax like '
                             f'"{dotted} = {{ <proto text format> }}". To set fields within it, use syntax '
                             f'like "{dotted}.foo = value".')
        target = getattr(msg, fd.name).add() if _is_repeated(fd) else getattr(msg, fd.name)
        try:
            text_format.Merge(value.text, target)
        except text_format.ParseError as e:
            _fail(value.tok, f'Error while parsing option value for "{dotted}": {e}')
        _check_set_fields(target, kind, value.tok, dotted)
        return
    result = _scalar_value(_Type(fd.type), value, dotted, lambda name: _enum_number(fd, name))
    if fd.type == FieldDescriptor.TYPE_STRING:
        assert isinstance(result, bytes)
        _store_string(msg, fd.name, result)
    elif _is_repeated(fd):
        getattr(msg, fd.name).append(result)
    else:
        setattr(msg, fd.name, result)


def _enum_number(fd: Any, name: str) -> int | None:
    v = fd.enum_type.values_by_name.get(name)
    return None if v is None else int(v.number)


def _scalar_value(kind: _Type, value: _Value, dotted: str, enum_number: Callable[[str], int | None]) -> object:
    """The value of a scalar or enum option field, or the error protoc gives for it."""
    tok = value.tok
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        type_name = {v: k for k, v in _SCALARS.items()}[kind]
        if value.kind != "int":
            _fail(tok, f'Value must be {"non-negative " if low == 0 else ""}integer for {type_name} option '
                       f'"{dotted}".')
        if not low <= int(value.number) <= high:
            _fail(tok, f'Value out of range for {type_name} option "{dotted}".')
        return int(value.number)
    if kind in _FLOATS:
        if value.kind in ("int", "float"):
            number = float(value.number)
        elif value.kind == "ident" and tok.text in ("inf", "nan"):
            number = float(tok.text)
        else:
            _fail(tok, f'Value must be number for {"float" if kind == _FD.TYPE_FLOAT else "double"} option '
                       f'"{dotted}".')
        return _to_float32(number) if kind == _FD.TYPE_FLOAT else number
    if kind == _FD.TYPE_BOOL:
        if value.kind != "ident" or tok.text not in ("true", "false"):
            _fail(tok, f'Value must be "true" or "false" for boolean option "{dotted}".')
        return tok.text == "true"
    if kind == _FD.TYPE_ENUM:
        if value.kind != "ident":
            _fail(tok, f'Value must be identifier for enum-valued option "{dotted}".')
        named = enum_number(tok.text)
        if named is None:
            _fail(tok, f'Enum type has no value named "{tok.text}" for option "{dotted}".')
        return named
    if value.kind != "string":
        _fail(tok, f'Value must be quoted string for string option "{dotted}".')
    return value.data


# -- the checks and name resolution after parsing ----------------------------------------------------


@dataclass
class _Symbol:
    kind: str  # package, message, enum, enum_value, field, oneof, extension, service, method
    file: str
    proto: Any = None
    syntax: str = "proto2"  # of the file that defines it
    closed: bool = False  # an enum that is closed (proto2's, or editions' enum_type = CLOSED)


_AGGREGATES = ("package", "message", "enum", "service")
_TYPES = ("message", "enum")


def _file_syntax(f: d.FileDescriptorProto) -> str:
    return f.syntax if f.syntax in ("proto3", "editions") else "proto2"


_FS = d.FeatureSet
#: what proto2, proto3 and edition 2023 mean as features
_DEFAULT_FEATURES = {
    "proto2": _FS(field_presence=_FS.EXPLICIT, enum_type=_FS.CLOSED, repeated_field_encoding=_FS.EXPANDED,
                  utf8_validation=_FS.NONE, message_encoding=_FS.LENGTH_PREFIXED, json_format=_FS.LEGACY_BEST_EFFORT),
    "proto3": _FS(field_presence=_FS.IMPLICIT, enum_type=_FS.OPEN, repeated_field_encoding=_FS.PACKED,
                  utf8_validation=_FS.VERIFY, message_encoding=_FS.LENGTH_PREFIXED, json_format=_FS.ALLOW),
    "editions": _FS(field_presence=_FS.EXPLICIT, enum_type=_FS.OPEN, repeated_field_encoding=_FS.PACKED,
                    utf8_validation=_FS.VERIFY, message_encoding=_FS.LENGTH_PREFIXED, json_format=_FS.ALLOW),
}


def _merged(parent: d.FeatureSet, own: d.FeatureSet) -> d.FeatureSet:
    """The features in force in a declaration: its own over its parent's."""
    out = d.FeatureSet()
    out.CopyFrom(parent)
    out.MergeFrom(own)
    return out


class _Builder:
    """protoc's DescriptorBuilder checks over the parsed file, and name resolution."""

    def __init__(self, parsed: _File, deps: Mapping[str, d.FileDescriptorProto]) -> None:
        self.f = parsed
        self.proto = parsed.proto
        self.deps = deps
        self.symbols: dict[str, _Symbol] = {}
        self.visible: set[str] = set()
        self.packages: set[str] = set()
        self.messages: dict[str, _Message] = {}  # this file's, by full name
        self.loaded: list[d.FileDescriptorProto] = []  # the imports' closure, each after its own imports
        self.extensions: list[d.FieldDescriptorProto] | None = None

    def build(self) -> d.FileDescriptorProto:
        self.load_dependencies()
        package = self.proto.package
        self.add_packages(package, self.proto.name)
        self.packages |= _prefixes(package)
        self.features = _merged(_DEFAULT_FEATURES[self.f.syntax], self.proto.options.features)
        for m in self.f.messages:
            self.name_message(m, package, self.features)
        for e in self.f.enums:
            self.name_enum(e, package, self.features)
        for x in self.f.extensions:
            self.name_field(x, package, "extension", self.features)
        for s in self.f.services:
            self.name_service(s, package)
        for m in self.f.messages:
            self.resolve_message(m)
        for x in self.f.extensions:
            self.resolve_field(x)
        for s in self.f.services:
            self.resolve_service(s)
        for m in self.f.messages:
            self.check_message(m)
        for e in self.f.enums:
            self.check_enum(e)
        for x in self.f.extensions:
            self.check_extension(x, None)
        _CustomOptions(self).check_all()
        return self.proto

    # dependencies

    def load_dependencies(self) -> None:
        loaded: dict[str, d.FileDescriptorProto] = {}
        pending = [(p, tok) for p, tok in zip(self.proto.dependency, self.f.imports)]
        while pending:
            path, tok = pending.pop()
            if path in loaded:
                continue
            if path == self.proto.name:
                _fail(tok, f"File recursively imports itself: {path} -> {path}")
            dep = self.deps.get(path)
            dep = _well_known(path) if dep is None else dep
            if dep is None:
                _fail(tok, f'Import "{path}" was not found or had errors.')
            loaded[path] = dep
            pending.extend((p, tok) for p in dep.dependency)
        self.visible = self.visible_files(loaded)
        self.loaded = _in_import_order(loaded)
        for path, dep in loaded.items():
            self.add_file_symbols(dep, path)
            if path in self.visible:
                self.packages |= _prefixes(dep.package)
        lite = d.FileOptions.LITE_RUNTIME
        if self.proto.options.optimize_for != lite:
            for path, tok in zip(self.proto.dependency, self.f.imports):
                if loaded[path].options.optimize_for == lite:
                    _fail(tok, "Files that do not use optimize_for = LITE_RUNTIME cannot import files which do "
                               f'use this option.  This file is not lite, but it imports "{path}" which is.')

    def visible_files(self, loaded: Mapping[str, d.FileDescriptorProto]) -> set[str]:
        """The direct imports and, through them, their public imports."""
        visible: set[str] = set()
        todo = list(self.proto.dependency)
        while todo:
            path = todo.pop()
            if path not in visible:
                visible.add(path)
                dep = loaded[path]
                todo.extend(dep.dependency[i] for i in dep.public_dependency if i < len(dep.dependency))
        return visible

    def add_file_symbols(self, f: d.FileDescriptorProto, path: str) -> None:
        syntax = _file_syntax(f)
        self.add_packages(f.package, path)
        prefix = f.package + "." if f.package else ""
        file_features = _merged(_DEFAULT_FEATURES[syntax], f.options.features)

        def walk_enum(e: d.EnumDescriptorProto, scope: str, features: d.FeatureSet) -> None:
            closed = _merged(features, e.options.features).enum_type == _FS.CLOSED
            self.symbols.setdefault(scope + e.name, _Symbol("enum", path, e, syntax, closed))
            for v in e.value:
                self.symbols.setdefault(scope + v.name, _Symbol("enum_value", path, v, syntax))

        def walk(m: d.DescriptorProto, scope: str, features: d.FeatureSet) -> None:
            full = scope + m.name
            features = _merged(features, m.options.features)
            self.symbols.setdefault(full, _Symbol("message", path, m, syntax))
            for fl in m.field:
                self.symbols.setdefault(f"{full}.{fl.name}", _Symbol("field", path, fl, syntax))
            for o in m.oneof_decl:
                self.symbols.setdefault(f"{full}.{o.name}", _Symbol("oneof", path, o, syntax))
            for x in m.extension:
                self.symbols.setdefault(f"{full}.{x.name}", _Symbol("extension", path, x, syntax))
            for n in m.nested_type:
                walk(n, full + ".", features)
            for e in m.enum_type:
                walk_enum(e, full + ".", features)

        for m in f.message_type:
            walk(m, prefix, file_features)
        for e in f.enum_type:
            walk_enum(e, prefix, file_features)
        for x in f.extension:
            self.symbols.setdefault(prefix + x.name, _Symbol("extension", path, x, syntax))
        for s in f.service:
            self.symbols.setdefault(prefix + s.name, _Symbol("service", path, s, syntax))
            for meth in s.method:
                self.symbols.setdefault(f"{prefix}{s.name}.{meth.name}", _Symbol("method", path, meth, syntax))

    def add_packages(self, package: str, path: str) -> None:
        for name in sorted(_prefixes(package), key=len):
            other = self.symbols.get(name)
            if other is None:
                self.symbols[name] = _Symbol("package", path)
            elif other.kind != "package":
                raise SchemaError(f'{self.proto.name}: "{name}" is already defined (as something other than a '
                                  f"package) in file \"{other.file}\".")

    # names

    def define(self, full: str, kind: str, tok: _Token, proto: Any, closed: bool = False) -> None:
        other = self.symbols.get(full)
        if other is not None:
            scope, _, short = full.rpartition(".")
            if other.file != self.proto.name:
                _fail(tok, f'"{full}" is already defined in file "{other.file}".')
            if kind == "enum_value" and other.kind == "enum_value":
                _fail(tok, f'"{short}" is already defined in "{scope}". Note that enum values use C++ scoping '
                           'rules, meaning that enum values are siblings of their type, not children of it.')
            _fail(tok, f'"{short}" is already defined in "{scope}".' if scope else f'"{short}" is already defined.')
        self.symbols[full] = _Symbol(kind, self.proto.name, proto, self.f.syntax, closed)

    def name_message(self, m: _Message, scope: str, features: d.FeatureSet) -> None:
        m.full_name = _join(scope, m.proto.name)
        m.features = _merged(features, m.proto.options.features)
        self.messages[m.full_name] = m
        self.define(m.full_name, "message", m.name_tok, m.proto)
        for f in m.fields:
            self.name_field(f, m.full_name, "field", m.features)
        for o, tok in zip(m.proto.oneof_decl, m.oneof_toks + [m.name_tok] * len(m.proto.oneof_decl)):
            self.define(f"{m.full_name}.{o.name}", "oneof", tok, o)
        for n in m.messages:
            self.name_message(n, m.full_name, m.features)
        for e in m.enums:
            self.name_enum(e, m.full_name, m.features)
        for x in m.extensions:
            self.name_field(x, m.full_name, "extension", m.features)

    def name_field(self, f: _Field, scope: str, kind: str, features: d.FeatureSet) -> None:
        f.scope, f.full_name = scope, _join(scope, f.proto.name)
        f.features = _merged(features, f.proto.options.features)
        if kind == "extension" and f.custom_json:
            _fail(f.name_tok, "option json_name is not allowed on extension fields.")
        if not f.custom_json:
            f.proto.json_name = f.json = _json_name(f.proto.name)
        self.define(f.full_name, kind, f.name_tok, f.proto)

    def name_enum(self, e: _Enum, scope: str, features: d.FeatureSet) -> None:
        e.full_name = _join(scope, e.proto.name)
        closed = _merged(features, e.proto.options.features).enum_type == _FS.CLOSED
        self.define(e.full_name, "enum", e.name_tok, e.proto, closed)
        for v, tok in e.values:
            self.define(_join(scope, v.name), "enum_value", tok, v)

    def name_service(self, s: _Service, scope: str) -> None:
        full = _join(scope, s.proto.name)
        self.define(full, "service", s.name_tok, s.proto)
        for meth in s.methods:
            self.define(f"{full}.{meth.proto.name}", "method", meth.name_tok, meth.proto)

    # lookups

    def find(self, full: str) -> _Symbol | None:
        sym = self.symbols.get(full)
        if sym is None:
            return None
        if sym.kind == "package":
            return sym if full in self.packages else None
        return sym if sym.file == self.proto.name or sym.file in self.visible else None

    def lookup(self, name: str, relative_to: str, types_only: bool) -> tuple[str, _Symbol | None]:
        """protoc's scoping: ``name`` from the innermost scope of ``relative_to`` outward."""
        if name.startswith("."):
            return name[1:], self.find(name[1:])
        first, dot, rest = name.partition(".")
        scope = relative_to
        while "." in scope:
            scope = scope.rpartition(".")[0]
            sym = self.find(f"{scope}.{first}")
            if sym is None:
                continue
            if dot:
                if sym.kind in _AGGREGATES:
                    return f"{scope}.{name}", self.find(f"{scope}.{name}")
            elif not types_only or sym.kind in _TYPES:
                return f"{scope}.{name}", sym
        return name, self.find(name)

    def resolve(self, tok: _Token, relative_to: str, types_only: bool) -> tuple[str, _Symbol]:
        full, sym = self.lookup(tok.text, relative_to, types_only)
        if sym is None:
            if full != tok.text and not tok.text.startswith("."):
                _fail(tok, f'"{tok.text}" is resolved to "{full}", which is not defined. The innermost scope is '
                           "searched first in name resolution. Consider using a leading '.'(i.e., "
                           f'".{tok.text}") to start from the outermost scope.')
            _fail(tok, f'"{tok.text}" is not defined.')
        return full, sym

    # resolution

    def resolve_message(self, m: _Message) -> None:
        for f in m.fields:
            self.resolve_field(f)
        for n in m.messages:
            self.resolve_message(n)
        for x in m.extensions:
            self.resolve_field(x)

    def resolve_field(self, f: _Field) -> None:
        proto = f.proto
        if f.extendee_tok is not None:
            full, sym = self.resolve(f.extendee_tok, f.full_name, False)
            if sym.kind != "message":
                _fail(f.extendee_tok, f'"{f.extendee_tok.text}" is not a message type.')
            proto.extendee = "." + full
        if f.type_tok is None:
            return
        full, sym = self.resolve(f.type_tok, f.full_name, True)
        if sym.kind not in _TYPES:
            _fail(f.type_tok, f'"{f.type_tok.text}" is not a type.')
        proto.type_name = "." + full
        if proto.type == _FD.TYPE_GROUP:
            return
        proto.type = _FD.TYPE_MESSAGE if sym.kind == "message" else _FD.TYPE_ENUM
        if not proto.HasField("default_value"):
            return
        if sym.kind == "message":
            _fail(f.default_tok or f.name_tok, "Messages can't have default values.")
        if proto.default_value not in {v.name for v in sym.proto.value}:
            _fail(f.default_tok or f.name_tok, f'Enum type "{full}" has no value named "{proto.default_value}" '
                                               f'for option "default".')

    def resolve_service(self, s: _Service) -> None:
        for meth in s.methods:
            relative = f"{_join(self.proto.package, s.proto.name)}.{meth.proto.name}"
            for tok, attr in ((meth.input_tok, "input_type"), (meth.output_tok, "output_type")):
                full, sym = self.resolve(tok, relative, False)
                if sym.kind != "message":
                    _fail(tok, f'"{tok.text}" is not a message type.')
                setattr(meth.proto, attr, "." + full)

    # checks

    def check_message(self, m: _Message) -> None:
        proto = m.proto
        for f in m.fields:
            self.check_field(f, m)
        self.check_numbers(m)
        self.check_declarations(m)
        self.check_json_names(m)
        for index, o in enumerate(proto.oneof_decl):
            if not any(f.HasField("oneof_index") and f.oneof_index == index for f in proto.field):
                _fail(m.oneof_toks[index] if index < len(m.oneof_toks) else m.name_tok,
                      "Oneof must have at least one field.")
        if proto.options.message_set_wire_format and proto.field:
            _fail(m.fields[0].name_tok, "MessageSets cannot have fields, only extensions.")
        for n in m.messages:
            self.check_message(n)
        for e in m.enums:
            self.check_enum(e)
        for x in m.extensions:
            self.check_extension(x, m)

    def check_field(self, f: _Field, owner: _Message | None) -> None:
        proto, syntax = f.proto, self.f.syntax
        number = proto.number
        if number <= 0:
            _fail(f.number_tok, "Field numbers must be positive integers.")
        extendee = self.symbols.get(proto.extendee[1:]) if proto.HasField("extendee") else None
        message_set = extendee is not None and extendee.proto.options.message_set_wire_format
        if number > (_INT32_MAX if message_set else _MAX_FIELD):
            _fail(f.number_tok, f"Field numbers cannot be greater than {_MAX_FIELD}.")
        if 19000 <= number <= 19999:
            _fail(f.number_tok, "Field numbers 19000 through 19999 are reserved for the protocol buffer library "
                                "implementation.")
        if syntax == "proto3" and proto.HasField("default_value"):
            _fail(f.default_tok or f.name_tok, "Explicit default values are not allowed in proto3.")
        self.check_field_options(f)
        if proto.type == _FD.TYPE_ENUM:
            self.check_enum_use(f, owner)
        if syntax == "editions":
            self.check_features(f)
        if owner is not None and owner.map_entry_of is not None and proto.number == 1 and proto.type in (
                _BAD_MAP_KEYS | {_FD.TYPE_ENUM}):
            _fail(f.name_tok, "Key in map fields cannot be enum types." if proto.type == _FD.TYPE_ENUM
                  else "Key in map fields cannot be float/double, bytes or message types.")

    def check_field_options(self, f: _Field) -> None:
        proto = f.proto
        opts = proto.options
        if opts.packed and (proto.label != _FD.LABEL_REPEATED or proto.type not in _PACKABLE):
            _fail(f.name_tok, "[packed = true] can only be specified for repeated primitive fields.")
        if opts.HasField("packed") and self.f.syntax == "editions":
            _fail(f.name_tok, "Field option packed is not allowed under editions.  Use the "
                              "repeated_field_encoding feature to control this behavior.")
        if (opts.lazy or opts.unverified_lazy) and proto.type != _FD.TYPE_MESSAGE:
            _fail(f.name_tok, "[lazy = true] can only be specified for submessage fields.")
        if opts.HasField("jstype") and opts.jstype != d.FieldOptions.JS_NORMAL and proto.type not in (
                _FD.TYPE_INT64, _FD.TYPE_UINT64, _FD.TYPE_SINT64, _FD.TYPE_FIXED64, _FD.TYPE_SFIXED64):
            _fail(f.name_tok, "jstype is only allowed on int64, uint64, sint64, fixed64 or sfixed64 fields.")

    def check_enum_use(self, f: _Field, owner: _Message | None) -> None:
        """Closed enums in proto3 messages, and map values that have no zero first."""
        sym = self.symbols[f.proto.type_name[1:]]
        closed = sym.closed
        if self.f.syntax == "proto3" and closed:
            _fail(f.type_tok or f.name_tok, f'Enum type "{f.proto.type_name[1:]}" is not a proto3 enum, but is '
                                            f'used in "{f.scope}" which is a proto3 message type.')
        if owner is not None and owner.map_entry_of is not None and f.proto.number == 2 and closed and (
                sym.proto.value and sym.proto.value[0].number != 0):
            _fail(f.type_tok or f.name_tok, "Enum value in map must define 0 as the first value.")

    def check_features(self, f: _Field) -> None:
        """Editions: the features a field sets must suit it."""
        proto, own, tok = f.proto, f.proto.options.features, f.name_tok
        repeated = proto.label == _FD.LABEL_REPEATED
        is_message = proto.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP)
        if own.HasField("field_presence"):
            if repeated:
                _fail(tok, "Repeated fields can't specify field presence.")
            if proto.HasField("oneof_index"):
                _fail(tok, "Oneof fields can't specify field presence.")
            if proto.HasField("extendee"):
                _fail(tok, "Extensions can't specify field presence.")
            if is_message and own.field_presence == _FS.IMPLICIT:
                _fail(tok, "Message fields can't specify implicit presence.")
        implicit = f.features.field_presence == _FS.IMPLICIT and not repeated and not is_message
        if implicit and proto.HasField("default_value"):
            _fail(f.default_tok or tok, "Implicit presence fields can't specify defaults.")
        if implicit and proto.type == _FD.TYPE_ENUM and self.symbols[proto.type_name[1:]].closed:
            _fail(tok, "Implicit presence enum fields must always be open.")
        if own.HasField("message_encoding") and not is_message:
            _fail(tok, "Only message fields can specify message encoding.")
        if own.HasField("utf8_validation") and proto.type != _FD.TYPE_STRING:
            _fail(tok, "Only string fields can specify utf8 validation.")
        if own.HasField("repeated_field_encoding"):
            if not repeated:
                _fail(tok, "Only repeated fields can specify repeated field encoding.")
            if proto.type not in _PACKABLE and own.repeated_field_encoding == _FS.PACKED:
                _fail(tok, "Only repeated primitive fields can specify PACKED repeated field encoding.")
        if f.features.message_encoding == _FS.DELIMITED and is_message and proto.options.lazy:
            _fail(tok, "Lazy fields can't specify DELIMITED message encoding.")

    def check_numbers(self, m: _Message) -> None:
        proto = m.proto
        by_number: dict[int, str] = {}
        for f in m.fields:
            other = by_number.setdefault(f.proto.number, f.proto.name)
            if other != f.proto.name:
                _fail(f.number_tok, f'Field number {f.proto.number} has already been used in "{m.full_name}" by '
                                    f'field "{other}".')
        reserved = list(zip(proto.reserved_range, m.reserved_toks))
        ranges = list(zip(proto.extension_range, m.range_toks))
        for r, tok in reserved:
            if r.start <= 0:
                _fail(tok, "Reserved numbers must be positive integers.")
            if r.end <= r.start:
                _fail(tok, "Reserved range end number must be greater than start number.")
        for e, tok in ranges:
            if e.start <= 0:
                _fail(tok, "Extension numbers must be positive integers.")
            limit = _INT32_MAX if proto.options.message_set_wire_format else _MAX_FIELD + 1
            if e.end > limit:
                _fail(tok, f"Extension numbers cannot be greater than {limit - 1}.")
            if e.end <= e.start:
                _fail(tok, "Extension range end number must be greater than start number.")
        _no_overlaps(reserved, "Reserved range {} to {} overlaps with already-defined range {} to {}.")
        _no_overlaps(ranges, "Extension range {} to {} overlaps with already-defined range {} to {}.")
        for e, tok in ranges:
            for q, _ in reserved:
                if e.start < q.end and q.start < e.end:
                    _fail(tok, f"Extension range {e.start} to {e.end - 1} overlaps with reserved range "
                               f"{q.start} to {q.end - 1}.")
        names = set(proto.reserved_name)
        for f in m.fields:
            n = f.proto.number
            for e, _ in ranges:
                if e.start <= n < e.end:
                    _fail(f.number_tok, f'Extension range {e.start} to {e.end - 1} includes field '
                                        f'"{f.proto.name}" ({n}).')
            for q, _ in reserved:
                if q.start <= n < q.end:
                    _fail(f.number_tok, f'Field "{f.proto.name}" uses reserved number {n}.')
            if f.proto.name in names:
                _fail(f.name_tok, f'Field name "{f.proto.name}" is reserved.')

    def check_declarations(self, m: _Message) -> None:
        """Extension declarations (``extensions 4 to 9 [declaration = {…}]``): complete, in range, unique."""
        numbers: set[int] = set()
        names: set[str] = set()
        for ranges, options, tok in m.range_statements:
            if options.declaration and len(ranges) > 1:
                _fail(tok, "Extension declarations are only allowed for extension ranges with a single range.")
            for decl in options.declaration:
                if not decl.HasField("number"):
                    _fail(tok, "Extension declaration must have a number.")
                if not any(r.start <= decl.number < r.end for r in ranges):
                    _fail(tok, f"Extension declaration number {decl.number} is not in the extension range.")
                if decl.number in numbers or (decl.full_name and decl.full_name in names):
                    _fail(tok, f"Extension declaration number {decl.number} or name {decl.full_name!r} is declared "
                               "multiple times.")
                numbers.add(decl.number)
                names.add(decl.full_name)
                if not decl.reserved and not (decl.HasField("full_name") and decl.HasField("type")):
                    _fail(tok, f"Extension declaration #{decl.number} should have both \"full_name\" and \"type\" "
                               "set.")
                if decl.HasField("full_name") and not _qualified(decl.full_name):
                    _fail(tok, f'"{decl.full_name}" is not a valid fully-qualified name.')
                if decl.HasField("type") and not (_qualified(decl.type) or decl.type in _SCALARS and (
                        decl.type != "group")):
                    _fail(tok, f'"{decl.type}" is not a valid type name.')

    def check_declared(self, x: _Field) -> None:
        """An extension of a range with declarations (or verification = DECLARATION) must match its declaration."""
        target = self.messages.get(x.proto.extendee[1:])
        if target is None:  # declarations of other files' messages are not in their descriptors
            return
        number = x.proto.number
        for ranges, options, _ in target.range_statements:
            if not any(r.start <= number < r.end for r in ranges):
                continue
            decl = next((decl for decl in options.declaration if decl.number == number), None)
            if decl is None:
                if options.declaration or options.verification == d.ExtensionRangeOptions.DECLARATION:
                    _fail(x.number_tok, f"Missing extension declaration for field {x.full_name} with number {number} "
                                        f"in extendee message {target.full_name}.")
                return
            if decl.reserved:
                _fail(x.number_tok, f"Cannot use number {number} for extension field {x.full_name}, as it is "
                                    f"reserved in the extension declarations for message {target.full_name}.")
            proto = x.proto
            scalar = {v: k for k, v in _SCALARS.items()}.get(proto.type) if not proto.type_name else None
            if decl.full_name != "." + x.full_name or decl.type != (scalar or proto.type_name) or (
                    decl.repeated != (proto.label == _FD.LABEL_REPEATED)):
                _fail(x.name_tok, f"Extension field {x.full_name} does not match its declaration in "
                                  f"{target.full_name}.")

    def check_json_names(self, m: _Message) -> None:
        """Fields whose JSON names collide: an error, a warning in proto2 when a default name is involved."""
        legacy = m.proto.options.deprecated_legacy_json_field_conflicts
        passes = [False] if legacy and self.f.syntax == "proto3" else [] if legacy else [False, True]
        best_effort = m.features.json_format == _FS.LEGACY_BEST_EFFORT
        for f in m.fields:
            name = f.json
            if f.custom_json and name.startswith("[") and name.endswith("]"):
                _fail(f.name_tok, f'The custom JSON name of field "{f.proto.name}" ("{name}") is invalid: JSON '
                                  "names may not start with '[' and end with ']'.")
        for use_custom in passes:
            taken: dict[str, _Field] = {}
            for f in m.fields:
                custom = use_custom and f.custom_json
                name = f.json if custom else _json_name(f.proto.name)
                other = taken.setdefault(name, f)
                if other is f:
                    continue
                other_custom = use_custom and other.custom_json
                if use_custom and not custom and not other_custom:
                    continue
                if best_effort and not (custom and other_custom):
                    continue
                _fail(f.name_tok, f'The {"custom" if custom else "default"} JSON name of field "{f.proto.name}" '
                                  f'("{name}") conflicts with the {"custom" if other_custom else "default"} JSON '
                                  f'name of field "{other.proto.name}".')

    def check_extension(self, x: _Field, owner: _Message | None) -> None:
        self.check_field(x, owner)
        proto = x.proto
        tok = x.extendee_tok or x.name_tok
        target = self.symbols[proto.extendee[1:]]
        if not any(r.start <= proto.number < r.end for r in target.proto.extension_range):
            _fail(x.number_tok, f'"{proto.extendee[1:]}" does not declare {proto.number} as an extension number.')
        self.check_declared(x)
        if proto.label == _FD.LABEL_REQUIRED:
            _fail(x.name_tok, f"The extension {x.full_name} cannot be required.")
        if self.f.syntax == "proto3" and not _is_options_message(proto.extendee):
            _fail(tok, "Extensions in proto3 are only allowed for defining options.")
        if target.proto.options.message_set_wire_format and (
                proto.type != _FD.TYPE_MESSAGE or proto.label != _FD.LABEL_OPTIONAL):
            _fail(x.name_tok, "Extensions of MessageSets must be optional messages.")
        for other in self.all_extensions():
            if other is not proto and other.extendee == proto.extendee and other.number == proto.number:
                _fail(x.number_tok, f'Extension number {proto.number} has already been used in '
                                    f'"{proto.extendee[1:]}" by extension "{other.name}".')

    def all_extensions(self) -> list[d.FieldDescriptorProto]:
        """The extensions of this file and of every file it imports (directly or not)."""
        if self.extensions is None:
            self.extensions = [s.proto for s in self.symbols.values() if s.kind == "extension"]
        return self.extensions

    def check_enum(self, e: _Enum) -> None:
        proto = e.proto
        if not proto.value:
            _fail(e.name_tok, "Enums must contain at least one value.")
        if not self.symbols[e.full_name].closed and proto.value[0].number != 0:
            _fail(e.values[0][1], "The first enum value must be zero for open enums.")
        numbers: dict[int, str] = {}
        aliased = False
        for v, tok in e.values:
            other = numbers.setdefault(v.number, v.name)
            if other != v.name:
                aliased = True
                if not proto.options.allow_alias:
                    _fail(tok, f'"{_join(e.full_name.rpartition(".")[0], v.name)}" uses the same enum value as '
                               f'"{_join(e.full_name.rpartition(".")[0], other)}". If this is intended, set '
                               "'option allow_alias = true;' to the enum definition.")
        if proto.options.allow_alias and not aliased:
            _fail(e.name_tok, f'"{e.full_name}" declares \'option allow_alias = true;\', but does not have any '
                              "aliases.")
        ranges = list(zip(proto.reserved_range, e.reserved_toks))
        for r, tok in ranges:
            if r.end < r.start:
                _fail(tok, "Reserved range end number must be greater than start number.")
        _no_overlaps([(_Range(r.start, r.end + 1), t) for r, t in ranges],
                     "Reserved range {} to {} overlaps with already-defined range {} to {}.")
        names = set(proto.reserved_name)
        for v, tok in e.values:
            for r, _ in ranges:
                if r.start <= v.number <= r.end:
                    _fail(tok, f'Enum value "{v.name}" uses reserved number {v.number}.')
            if v.name in names:
                _fail(tok, f'Enum value "{v.name}" is reserved.')
        if not (proto.options.deprecated_legacy_json_field_conflicts and self.f.syntax == "proto2"):
            self.check_enum_value_names(e)

    def check_enum_value_names(self, e: _Enum) -> None:
        """Value names must stay distinct once the enum's name is stripped off as a prefix and case ignored."""
        prefix = e.proto.name.replace("_", "").lower()
        seen: dict[str, d.EnumValueDescriptorProto] = {}
        for v, tok in e.values:
            key = _pascal_case(_strip_prefix(v.name, prefix))
            other = seen.setdefault(key, v)
            if other.name != v.name and other.number != v.number:
                _fail(tok, f"Enum name {v.name} has the same name as {other.name} if you ignore case and strip out "
                           "the enum name prefix (if any). (If you are using allow_alias, please assign the same "
                           "number to each enum value name.)")


@dataclass
class _Range:
    start: int
    end: int


def _no_overlaps(ranges: Iterable[tuple[Any, _Token]], message: str) -> None:
    done: list[Any] = []
    for r, tok in ranges:
        for q in done:
            if r.start < q.end and q.start < r.end:
                _fail(tok, message.format(r.start, r.end - 1, q.start, q.end - 1))
        done.append(r)


def _strip_prefix(name: str, prefix: str) -> str:
    """``name`` without ``prefix`` (lower case, no underscores) at its start, matched ignoring case and
    underscores; ``name`` itself when it does not start so or nothing would be left."""
    i = j = 0
    while i < len(name) and j < len(prefix):
        if name[i] != "_":
            if name[i].lower() != prefix[j]:
                return name
            j += 1
        i += 1
    if j < len(prefix):
        return name
    while i < len(name) and name[i] == "_":
        i += 1
    return name[i:] if i < len(name) else name


def _pascal_case(name: str) -> str:
    return "".join(p[:1].upper() + p[1:].lower() for p in name.split("_"))


def _is_options_message(type_name: str) -> bool:
    return type_name.startswith(".google.protobuf.") and type_name.endswith("Options") and type_name.count(".") == 3


def _in_import_order(files: Mapping[str, d.FileDescriptorProto]) -> list[d.FileDescriptorProto]:
    done: dict[str, d.FileDescriptorProto] = {}

    def visit(path: str) -> None:
        if path not in done and path in files:
            done[path] = files[path]  # before its imports: a cycle stops here
            for dep in files[path].dependency:
                visit(dep)
            del done[path]
            done[path] = files[path]

    for path in files:
        visit(path)
    return list(done.values())


def _qualified(name: str) -> bool:
    """Whether ``name`` is a fully-qualified name as extension declarations spell them (``.pkg.Name``)."""
    return re.fullmatch(r"(\.[A-Za-z0-9_]+)+", name) is not None


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _prefixes(package: str) -> set[str]:
    parts = package.split(".") if package else []
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def _well_known(path: str) -> d.FileDescriptorProto | None:
    module = _WELL_KNOWN.get(path)
    if module is None:
        return None
    try:
        descriptor = importlib.import_module(module).DESCRIPTOR
    except ImportError:
        return None
    proto = d.FileDescriptorProto()
    descriptor.CopyToProto(proto)
    return proto


class _CustomOptions:
    """Custom options: each name part resolved, the value checked against its field's type; then dropped."""

    def __init__(self, builder: _Builder) -> None:
        self.b = builder
        self._descriptor_types: dict[str, d.DescriptorProto] | None = None
        self.aggregates: list[tuple[str, _Value, str]] = []  # (message type, value, option name)

    def check_all(self) -> None:
        for opt in self.b.f.options:
            self.check(opt)
        if self.aggregates:
            self.check_aggregates()

    def check_aggregates(self) -> None:
        """``(opt) = { … }``: the text format parsed against the option's message type (in a pool of this file
        and its imports)."""
        pool = descriptor_pool.DescriptorPool()
        try:
            for f in self.b.loaded + [self.b.proto]:
                pool.Add(f)
        except TypeError:  # the protobuf runtime refuses what protoc accepted: the values stay unchecked
            return
        for type_name, value, dotted in self.aggregates:
            message = message_factory.GetMessageClass(pool.FindMessageTypeByName(type_name))()
            try:
                text_format.Merge(value.text, message, descriptor_pool=pool)
            except text_format.ParseError as e:
                _fail(value.tok, f'Error while parsing option value for "{dotted}": {e}')

    def check(self, opt: _Option) -> None:
        type_name = "google.protobuf." + opt.kind
        key: list[str] = []
        first = opt.parts[0][0]
        if first.text == "features" and not opt.parts[0][1] and self.b.f.syntax != "editions":
            _fail(first, "Features are only valid under editions.")
        present: Message | None = opt.owner  # the standard part of the name, made present as protoc does
        for i, (tok, is_ext) in enumerate(opt.parts):
            dotted = ".".join(f"({t.text})" if x else t.text for t, x in opt.parts[:i + 1])
            fd = self.extension(tok, type_name, opt, dotted) if is_ext else self.field(type_name, tok, dotted)
            key.append(fd.extendee + "." + fd.name if is_ext else fd.name)
            _check_target(fd.options.targets, opt.kind, tok, dotted)
            if fd.options.retention == d.FieldOptions.RETENTION_SOURCE:
                present = None  # left out of descriptor sets
            elif i == 0:
                opt.owner.SetInParent()
            if present is not None and not is_ext and fd.name in present.DESCRIPTOR.fields_by_name:
                present = getattr(present, fd.name)
                present.SetInParent()
            else:
                present = None
            repeated = fd.label == _FD.LABEL_REPEATED
            if i < len(opt.parts) - 1:
                if fd.type not in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP) or repeated:
                    _fail(tok, f'Option "{dotted}" is an atomic type, not a message.')
                type_name = fd.type_name[1:]
                continue
            if not repeated:
                # protoc lets fields of a custom option set by an aggregate be set again one by one
                _check_unset(tuple(key), opt.seen, tok, aggregate=opt.value.kind == "aggregate")
            self.check_value(fd, opt.value, dotted)

    def extension(self, tok: _Token, type_name: str, opt: _Option, dotted: str) -> d.FieldDescriptorProto:
        _, sym = self.b.lookup(tok.text, opt.scope(), False)
        if sym is None:
            _fail(tok, f'Option "{dotted}" unknown. Ensure that your proto definition file imports the proto '
                       "which defines the option.")
        if sym.kind != "extension":
            _fail(tok, f'Option "{dotted}" is not a field or extension of message "{type_name}".')
        proto: d.FieldDescriptorProto = sym.proto
        if proto.extendee[1:] != type_name:
            _fail(tok, f'Option "{dotted}" is not a field or extension of message "{type_name}".')
        return proto

    def field(self, type_name: str, tok: _Token, dotted: str) -> d.FieldDescriptorProto:
        message = self.message_type(type_name)
        for f in message.field if message is not None else ():
            if f.name == tok.text:
                return f
        _fail(tok, f'Option "{dotted}" unknown.')

    def message_type(self, full: str) -> d.DescriptorProto | None:
        sym = self.b.symbols.get(full)
        if sym is not None and sym.kind == "message":
            proto: d.DescriptorProto = sym.proto
            return proto
        if self._descriptor_types is None:
            self._descriptor_types = {}
            files = _well_known("google/protobuf/descriptor.proto")
            assert files is not None
            for m in files.message_type:
                self._descriptor_types["google.protobuf." + m.name] = m
                for n in m.nested_type:
                    self._descriptor_types[f"google.protobuf.{m.name}.{n.name}"] = n
        return self._descriptor_types.get(full)

    def check_value(self, fd: d.FieldDescriptorProto, value: _Value, dotted: str) -> None:
        if fd.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
            if value.kind != "aggregate":
                _fail(value.tok, f'Option "{dotted}" is a message. To set the entire message, use syntax like '
                                 f'"{dotted} = {{ <proto text format> }}". To set fields within it, use syntax '
                                 f'like "{dotted}.foo = value".')
            self.aggregates.append((fd.type_name[1:], value, dotted))
            return
        if fd.type == _FD.TYPE_ENUM:
            sym = self.b.symbols.get(fd.type_name[1:])
            names = {v.name: v.number for v in sym.proto.value} if sym is not None else {}
            _scalar_value(fd.type, value, dotted, names.get)
            return
        _scalar_value(fd.type, value, dotted, lambda name: None)


def parse_proto(text: str, name: str = "schema.proto", *,
                dependencies: Mapping[str, d.FileDescriptorProto] | None = None) -> d.FileDescriptorProto:
    """The ``FileDescriptorProto`` of the ``.proto`` source ``text``, named ``name`` (its import path).

    ``dependencies`` maps import paths to the files ``text`` imports (and those they import): their types
    and extensions can be used by name. The well-known types (``google/protobuf/timestamp.proto``, …) need
    not be given. Raises :class:`~kvlog.errors.SchemaError` for text that protoc refuses.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise SchemaError(f"{name}: not valid Unicode text (a lone surrogate at character {e.start})") from None
    try:
        parsed = _Parser(_Lexer(text).tokens(), name).parse()
        return _Builder(parsed, dependencies or {}).build()
    except _Located as e:
        raise SchemaError(f"{name}:{e.line}:{e.col}: {e.message} (at {e.found})") from None
