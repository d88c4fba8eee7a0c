"""Typed topics, Avro: kvlog's decoder (``AvroPlan`` + ``ColumnDecoder``, the C kernels) checked against
Confluent's own serializers and deserializers (with their in-process mock registry) and against fastavro.

Both sides are brought to one form by :func:`canon`, driven by the reader schema: general unions as
``(branch, value)``, maps as ``(key, value)`` pairs in order (a key given twice keeping its last value, as
a dict does), dates, times and timestamps as integer ticks (kvlog's columns are viewed as their storage
integers, so every extreme is exact), decimals as exact fractions, durations as ``(months, days,
nanoseconds)``, floats by ``repr`` (NaN, infinities and -0.0 compare), bytes and fixed defaults (latin-1
text in the schema, given raw by fastavro) as bytes.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import random
import struct
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import Context, Decimal
from fractions import Fraction

import fastavro
import pyarrow as pa
import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, header_schema_id_serializer
from confluent_kafka.schema_registry import SchemaReference as ConfluentReference
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from hypothesis import assume, given
from hypothesis import strategies as st

import kvlog
from kvlog.errors import DeserializationError, SchemaError
from kvlog.schemas.decoding import ColumnDecoder
from kvlog.schemas.plans import AvroPlan
from kvlog.schemas.registry import RegisteredSchema, SchemaMapping

TOPIC, SUBJECT = "t", "t-value"
CTX = SerializationContext(TOPIC, MessageField.VALUE)
FIRST_OFFSET = 100  # records' offsets in these tests: 100, 101, ...
PREFIX = b"\x00\x00\x00\x00\x01"  # the registry's wire format, schema id 1


# ------------------------------------------------------------------------------------------ the oracle
def registry() -> SchemaRegistryClient:
    """A fresh in-process registry (every mock URL names its own store)."""
    return SchemaRegistryClient.new_client({"url": f"mock://{uuid.uuid4()}"})


def serialize(client, schema, values) -> list[bytes]:
    """``values`` as Confluent's serializer writes them (registering ``schema`` as the subject's next
    version on first use)."""
    ser = AvroSerializer(client, json.dumps(schema))
    return [ser(v, CTX) for v in values]


def register(client, schema) -> int:
    return client.register_schema(SUBJECT, Schema(json.dumps(schema), "AVRO"))


def deserialize(client, reader, payloads) -> list:
    """What Confluent's deserializer reads, resolving each writer schema to ``reader`` (with fastavro). It
    refuses a payload of the bare 5-byte prefix (a value of no bytes: a null field, an empty record, a
    fixed(0)); its own reader, fastavro, reads that value from no bytes."""
    d = AvroDeserializer(client, json.dumps(reader))
    return [d(p, CTX) if p is None or len(p) > 5 else _read_empty(client, p, reader) for p in payloads]


def _read_empty(client, payload: bytes, reader):
    writer = json.loads(client.get_schema(int.from_bytes(payload[1:5], "big")).schema_str)
    return b"" if writer in ("bytes", {"type": "bytes"}) else fastavro_read(writer, b"", reader)


def source_of(client) -> SchemaMapping:
    """The mock registry's subject as kvlog sees a registry: ids and versions as the mock gave them."""
    ids = [client.get_version(SUBJECT, v).schema_id for v in sorted(client.get_versions(SUBJECT))]
    return SchemaMapping({i: client.get_schema(i).schema_str for i in ids}, subjects={SUBJECT: ids})


def avro_bytes(schema, value) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), value)
    return out.getvalue()


def zz(n: int) -> bytes:
    """A long (a length, a count, a union branch) as Avro writes it."""
    return avro_bytes("long", n)


def fastavro_read(writer, payload: bytes, reader=None):
    """fastavro's value of a bare payload, or the exception it raised; a payload it reads without reaching
    the end is an error (fastavro does not check for trailing bytes, kvlog does)."""
    fo = io.BytesIO(payload)
    try:
        value = fastavro.schemaless_reader(fo, fastavro.parse_schema(writer),
                                           None if reader is None else fastavro.parse_schema(reader))
    except Exception as exc:  # (any failure: IndexError, UnicodeDecodeError, EOFError, ValueError...)
        return exc
    return value if fo.tell() == len(payload) else ValueError("trailing bytes")


# ------------------------------------------------------------------------------------------ kvlog
def decoder(src, errors="raise") -> ColumnDecoder:
    """kvlog's decoder of the subject's payloads, read as its latest version."""
    return ColumnDecoder(AvroPlan(src.version(SUBJECT), src), errors=errors, source=src)


def decode(src, payloads, errors="raise"):
    return decoder(src, errors).decode(
        pa.array(payloads, pa.binary()), offsets=list(range(FIRST_OFFSET, FIRST_OFFSET + len(payloads))),
        topic=TOPIC, partition=0)


def bare_decode(schema, payloads, errors="null"):
    plan = AvroPlan(RegisteredSchema(-1, "AVRO", json.dumps(schema)), None)
    dec = ColumnDecoder(plan, wire="bare", bare_program=plan.bare_program(), errors=errors)
    return dec.decode(pa.array(payloads, pa.binary()))


def _storage(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return pa.int64()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return pa.int32()
    if pa.types.is_map(t):
        return pa.map_(t.key_type, t.item_field.with_type(_storage(t.item_type)))
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_storage(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_storage(f.type)) for f in t])
    return t


def pylist(arr: pa.Array) -> list:
    """kvlog's values as Python, checked in full first (what a consumer would trust), temporal columns as
    their integer ticks."""
    arr.validate(full=True)
    return _py(arr)


def _py(a: pa.Array) -> list:
    # (temporal leaves are viewed one by one: pyarrow 26 loses a list<null>'s child length in a nested view)
    t = a.type
    if _storage(t) == t:
        return a.to_pylist()
    if not pa.types.is_nested(t):
        return a.view(_storage(t)).to_pylist()
    if pa.types.is_struct(t):
        kids = [_py(a.field(i)) for i in range(t.num_fields)]
        rows = [dict(zip([f.name for f in t], values)) for values in zip(*kids)]
    else:  # a list or a map: its items between its offsets
        items = _py(a.values)
        if pa.types.is_map(t):
            items = [(kv["key"], kv["value"]) for kv in items]
        offs = a.offsets.to_pylist()
        rows = [items[offs[i]:offs[i + 1]] for i in range(len(a))]
    return [row if ok else None for row, ok in zip(rows, a.is_valid().to_pylist())]


# ------------------------------------------------------------------------------------------ one form
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
TIMESTAMP_UNITS = {f"{local}timestamp-{u}": u for local in ("", "local-") for u in ("millis", "micros", "nanos")}
TICK = {"millis": timedelta(milliseconds=1), "micros": timedelta(microseconds=1)}


def named_types(schema, out=None, ns: str = "") -> dict:
    """The named types a schema defines, by full name and by short name (no two share one here)."""
    out = {} if out is None else out
    if isinstance(schema, list):
        for b in schema:
            named_types(b, out, ns)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed"):
            name = schema["name"]
            full = name if "." in name else f"{schema.get('namespace', ns)}.{name}".lstrip(".")
            ns = full.rpartition(".")[0]
            out[full] = out[full.rpartition(".")[2]] = schema
        for f in schema.get("fields", ()):
            named_types(f["type"], out, ns)
        for part in ("items", "values", "type"):
            if isinstance(schema.get(part), (dict, list)):
                named_types(schema[part], out, ns)
    return out


def _resolve(t, names):
    while True:
        if isinstance(t, str) and t in names:
            t = names[t]
        elif isinstance(t, dict) and (isinstance(t["type"], (dict, list)) or t["type"] in names):
            t = t["type"] if not isinstance(t["type"], str) else names[t["type"]]
        else:
            return t


def _kind(t) -> tuple[str, str | None]:
    if isinstance(t, list):
        return "union", None
    return (t, None) if isinstance(t, str) else (t["type"], t.get("logicalType"))


def _f32(v) -> float:
    """A float column's value: a long (fastavro gives promoted longs as they are) rounded once to the
    nearest float32, ties to even, as C's ``(float)`` of an int64; a double (a default) through float32."""
    if isinstance(v, int):
        m = abs(v)
        shift = max(m.bit_length() - 24, 0)
        q, r = divmod(m, 1 << shift)
        half = (1 << shift) >> 1
        if shift and (r > half or (r == half and q & 1)):
            q += 1
        return math.copysign(float(q << shift), v) if v else 0.0
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]


def _raw(v) -> bytes:
    return v.encode("latin-1") if isinstance(v, str) else bytes(v)


def canon(schema, v, kv: bool):
    """``v`` (kvlog's value when ``kv``, else the oracle's) of reader type ``schema`` in the one form."""
    return _canon(schema, v, kv, named_types(schema))


def _canon(t, v, kv, names):
    if v is None:
        return None
    t = _resolve(t, names)
    if isinstance(t, list):
        members = [b for b in t if b != "null"]
        if len(members) == 1:
            return _canon(members[0], v, kv, names)
        if kv:  # a struct of members, the branch read set
            chosen = [k for k in range(len(members)) if v[f"member{k}"] is not None]
            assert len(chosen) == 1, f"not one member set: {v}"
            k, v = chosen[0], v[f"member{chosen[0]}"]
        else:
            k = next(k for k, m in enumerate(members) if _fits(m, v, names))
        return k, _canon(members[k], v, kv, names)
    kind, logical = _kind(t)
    if logical == "decimal":
        if isinstance(v, Decimal):
            return Fraction(v)
        return Fraction(int.from_bytes(_raw(v), "big", signed=True), 10 ** t.get("scale", 0))
    if logical in TIMESTAMP_UNITS:
        if isinstance(v, datetime):
            return (v - (EPOCH if v.tzinfo else EPOCH.replace(tzinfo=None))) // TICK[TIMESTAMP_UNITS[logical]]
        return v
    if logical == "date":
        return v if isinstance(v, int) else (v - date(1970, 1, 1)).days
    if logical in ("time-millis", "time-micros"):
        if isinstance(v, int):
            return v
        micros = ((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
        return micros // 1000 if logical == "time-millis" else micros
    if logical == "uuid" and kind == "string":
        return str(v)
    if logical == "duration" and kind == "fixed" and t["size"] == 12:
        if isinstance(v, (bytes, str)):
            months, days, millis = struct.unpack("<3I", _raw(v))
            return months, days, millis * 10**6
        return tuple(v)
    if kind in ("bytes", "fixed"):
        return _raw(v)
    if kind == "float":
        return repr(_f32(float(v) if isinstance(v, str) else v))
    if kind == "double":
        return repr(float(v))
    if kind == "array":
        return [_canon(t["items"], x, kv, names) for x in v]
    if kind == "map":  # (as a dict: a key given twice, which damage can make, keeps its last value)
        pairs = dict(v.items() if isinstance(v, dict) else v)
        return [(k, _canon(t["values"], x, kv, names)) for k, x in pairs.items()]
    if kind in ("record", "error"):
        return {f["name"]: _canon(f["type"], v[f["name"]], kv, names) for f in t["fields"]}
    return v  # null, boolean, int, long, string, enum


_PYCLASS = {"boolean": bool, "int": int, "long": int, "float": float, "double": float, "string": str,
            "enum": str, "bytes": bytes, "fixed": bytes, "record": dict, "map": dict, "array": list}
_PYCLASS_LOGICAL = {"decimal": Decimal, "uuid": uuid.UUID, "date": date, "time-millis": type(datetime.min.time()),
                    "time-micros": type(datetime.min.time()), "timestamp-millis": datetime,
                    "timestamp-micros": datetime, "local-timestamp-millis": datetime,
                    "local-timestamp-micros": datetime}


def _pyclass(t, names) -> type:
    """The Python class fastavro reads a union branch as."""
    kind, logical = _kind(_resolve(t, names))
    return _PYCLASS_LOGICAL.get(logical) or _PYCLASS[kind]


def _fits(t, v, names) -> bool:
    """Whether the oracle's bare union value ``v`` is of branch ``t``: by its Python class, and a record by
    its field names (the unions here have no two branches that fastavro reads alike)."""
    t = _resolve(t, names)
    if type(v) is not _pyclass(t, names):
        return False
    return _kind(t)[0] != "record" or set(v) == {f["name"] for f in t["fields"]}


def check_same(reader, kv_values, oracle_values):
    assert [canon(reader, v, True) for v in kv_values] == [canon(reader, v, False) for v in oracle_values]


def roundtrip(reader, writers_and_values):
    """Every (writer schema, values) written by Confluent's serializer, in order (each writer a version of
    the subject; ``reader``, registered last, the latest), read by kvlog (checking its schema ids) and by
    Confluent's deserializer: kvlog's values, the deserializer's, and the reader schema as registered."""
    client = registry()
    payloads, ids = [], []
    for writer, values in writers_and_values:
        written = serialize(client, writer, values)
        payloads += written
        ids += [None if p is None else int.from_bytes(p[1:5], "big") for p in written]  # (None: a null)
    if reader is not None:
        register(client, reader)
    src = source_of(client)
    reader = json.loads(src.version(SUBJECT).schema)
    out = decode(src, payloads)
    assert out.failures == 0
    assert out.schema_ids.to_pylist() == ids
    return pylist(out.values), deserialize(client, reader, payloads), reader


# ------------------------------------------------------------------------------------------ 1. every type
INTS = [0, 1, -1, 63, -64, 64, -65, 2**31 - 1, -(2**31)]
LONGS = [*INTS, 2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, -(2**63)]
FLOATS = [0.0, -0.0, 1.5, -3.25, math.inf, -math.inf, math.nan, 3.4028234663852886e38, 1.401298464324817e-45,
          1.1754943508222875e-38, 16777217.0]
DOUBLES = [*FLOATS, 5e-324, 1.7976931348623157e308, 0.1, -2.2250738585072014e-308]
STRINGS = ["", "a", "héllo wörld", "日本語テキスト", "🦆🦆", "nul\x00inside", "e\u0301", "\uffff\U0010ffff", "x" * 300]
BYTES = [b"", b"\x00", b"\xff\xfe\xfd", bytes(range(256))]
MS_MIN, MS_MAX = -62135596800000, 253402300799999  # datetime's range (fastavro reads these as datetimes)
US_MIN, US_MAX = MS_MIN * 1000, MS_MAX * 1000 + 999
DAYS_MIN, DAYS_MAX = -719162, 2932896
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def _dec(unscaled: int, scale: int) -> Decimal:
    return Context(prec=100).create_decimal(unscaled).scaleb(-scale, Context(prec=100))


def _decimals(precision: int, scale: int) -> list[Decimal]:
    top = 10**precision - 1
    return [_dec(u, scale) for u in (0, 1, -1, 127, -128, 255, -256, 2**63 - 1, -(2**63), top, -top, top // 7)
            if abs(u) <= top]


def _lt(base, logical, **extra):
    return {"type": base, "logicalType": logical, **extra}


def rec(name, *fields, **extra):
    return {"type": "record", "name": name, "fields": list(fields), **extra}


def fld(name, t, **extra):
    return {"name": name, "type": t, **extra}


def arr(items):
    return {"type": "array", "items": items}


def mp(values):
    return {"type": "map", "values": values}


POINT = {"type": "record", "name": "Point", "fields": [{"name": "x", "type": "int"}, {"name": "y", "type": "double"}]}
SUIT = {"type": "enum", "name": "Suit", "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}

TYPE_CASES = {
    "null": ("null", [None]),
    "boolean": ("boolean", [True, False]),
    "int": ("int", INTS),
    "long": ("long", LONGS),
    "float": ("float", FLOATS),
    "double": ("double", DOUBLES),
    "string": ("string", STRINGS),
    "bytes": ("bytes", BYTES),
    "enum": (SUIT, ["SPADES", "CLUBS", "HEARTS"]),
    "fixed16": ({"type": "fixed", "name": "Md5", "size": 16}, [bytes(16), bytes(range(16)), b"\xff" * 16]),
    "fixed1": ({"type": "fixed", "name": "One", "size": 1}, [b"\x00", b"\x80"]),
    "fixed0": ({"type": "fixed", "name": "Nothing", "size": 0}, [b""]),
    "nullable": (["null", "string"], [None, "", "x"]),
    "nullable-last": (["string", "null"], ["a", None, ""]),
    "union": (["null", "int", "string", POINT, {"type": "array", "items": "long"}],
              [None, 5, -(2**31), "s", "", {"x": 1, "y": 2.5}, [], [I64_MIN, 3]]),
    "union-no-null": (["boolean", "double", "bytes", SUIT], [True, 1.25, b"\x00", "HEARTS", math.nan]),
    "union-of-records": (["null", POINT, {"type": "record", "name": "Named", "fields": [
        {"name": "s", "type": "string"}, {"name": "tags", "type": {"type": "map", "values": "string"}}]}],
        [None, {"x": -1, "y": -0.0}, {"s": "ü", "tags": {}}, {"s": "", "tags": {"k": "v", "": "e"}}]),
    "array": ({"type": "array", "items": "int"}, [[], [0], INTS, list(range(-500, 500))]),
    "array-nullable": ({"type": "array", "items": ["null", "string"]}, [[None], [None, "a", None], []]),
    "array-of-records": ({"type": "array", "items": POINT},
                         [[], [{"x": 1, "y": 1.0}], [{"x": i, "y": i / 3} for i in range(50)]]),
    "array-of-arrays": ({"type": "array", "items": {"type": "array", "items": "string"}},
                        [[], [[]], [[], ["a"], ["b", "c"]]]),
    "map": ({"type": "map", "values": "long"}, [{}, {"a": 1}, {"": I64_MIN, "ü": I64_MAX, "🦆": 0}]),
    "map-of-arrays": ({"type": "map", "values": {"type": "array", "items": "long"}},
                      [{}, {"a": []}, {"a": [1, 2], "b": [], "c": LONGS}]),
    "map-of-nullable": ({"type": "map", "values": ["null", "double"]}, [{"a": None, "b": 1.0}, {}]),
    "map-of-records": ({"type": "map", "values": POINT}, [{"p": {"x": 0, "y": math.inf}}, {}]),
    "nested-records": ({"type": "record", "name": "Outer", "fields": [
        {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
            {"name": "p", "type": POINT}, {"name": "q", "type": "Point"},
            {"name": "deeper", "type": {"type": "record", "name": "Deeper", "fields": [
                {"name": "s", "type": ["null", "string"]}]}}]}},
        {"name": "suit", "type": SUIT}]},
        [{"inner": {"p": {"x": 1, "y": 2.0}, "q": {"x": 3, "y": 4.0}, "deeper": {"s": None}}, "suit": "CLUBS"},
         {"inner": {"p": {"x": -1, "y": -2.0}, "q": {"x": 0, "y": 0.0}, "deeper": {"s": "z"}}, "suit": "SPADES"}]),
    "empty-record": ({"type": "record", "name": "Empty", "fields": []}, [{}]),
    "namespaces": ({"type": "record", "name": "Outer", "namespace": "com.acme", "fields": [
        {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [{"name": "v", "type": "int"}]}},
        {"name": "again", "type": "Inner"}, {"name": "full", "type": "com.acme.Inner"},
        {"name": "other", "type": {"type": "record", "name": "org.x.Other", "fields": [
            {"name": "p", "type": "com.acme.Inner"}, {"name": "e", "type": {"type": "enum", "name": "E",
                                                                           "symbols": ["A", "B"]}}]}},
        {"name": "e2", "type": "org.x.E"},
        {"name": "u", "type": ["null", "Inner", {"type": "record", "name": "Top", "namespace": "", "fields": [
            {"name": "w", "type": "string"}]}]}]},
        [{"inner": {"v": 1}, "again": {"v": 2}, "full": {"v": 3}, "other": {"p": {"v": 4}, "e": "B"}, "e2": "A",
          "u": {"w": "in the null namespace"}},
         {"inner": {"v": 1}, "again": {"v": 2}, "full": {"v": 3}, "other": {"p": {"v": 4}, "e": "A"}, "e2": "B",
          "u": {"v": 5}}]),
    "decimal": (_lt("bytes", "decimal", precision=38, scale=10), _decimals(38, 10)),
    "decimal-9-2": (_lt("bytes", "decimal", precision=9, scale=2), _decimals(9, 2)),
    "decimal-20-0": (_lt("bytes", "decimal", precision=20, scale=0), _decimals(20, 0)),
    "decimal-38-38": (_lt("bytes", "decimal", precision=38, scale=38), _decimals(38, 38)),
    "decimal256": (_lt("bytes", "decimal", precision=76, scale=20), _decimals(76, 20)),
    "decimal-fixed16": ({"type": "fixed", "name": "D16", "size": 16, "logicalType": "decimal", "precision": 38,
                         "scale": 0}, _decimals(38, 0)),
    "decimal-fixed3": ({"type": "fixed", "name": "D3", "size": 3, "logicalType": "decimal", "precision": 6,
                        "scale": 3}, _decimals(6, 3)),
    "decimal-fixed32": ({"type": "fixed", "name": "D32", "size": 32, "logicalType": "decimal", "precision": 70,
                         "scale": 5}, _decimals(70, 5)),
    "uuid": (_lt("string", "uuid"), [uuid.UUID(int=0), uuid.UUID("9f0e3c52-3a6e-4d43-9d2b-5c1f6f1a2b3c"),
                                     uuid.UUID(int=2**128 - 1)]),
    "date": (_lt("int", "date"), [0, 1, -1, 19000, DAYS_MIN, DAYS_MAX]),
    "time-millis": (_lt("int", "time-millis"), [0, 1, 43_200_000, 86_399_999]),
    "time-micros": (_lt("long", "time-micros"), [0, 1, 86_399_999_999]),
    "timestamp-millis": (_lt("long", "timestamp-millis"), [0, -1, 1, 1_700_000_000_123, MS_MIN, MS_MAX]),
    "timestamp-micros": (_lt("long", "timestamp-micros"), [0, -1, 1_700_000_000_123_456, US_MIN, US_MAX]),
    "timestamp-nanos": (_lt("long", "timestamp-nanos"), [0, -1, 1_700_000_000_123_456_789, I64_MIN, I64_MAX]),
    "local-timestamp-millis": (_lt("long", "local-timestamp-millis"), [0, -1, MS_MIN, MS_MAX]),
    "local-timestamp-micros": (_lt("long", "local-timestamp-micros"), [0, -1, US_MIN, US_MAX]),
    "local-timestamp-nanos": (_lt("long", "local-timestamp-nanos"), [0, -1, I64_MIN, I64_MAX]),
    "duration": ({"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"},
                 [struct.pack("<3I", *v) for v in [(0, 0, 0), (1, 2, 3), (2**31 - 1, 2**31 - 1, 2**32 - 1)]]),
    "nullable-timestamp": (["null", _lt("long", "timestamp-micros")], [None, US_MAX, 0]),
    "nullable-decimal": (["null", _lt("bytes", "decimal", precision=5, scale=2)], [None, _dec(-99999, 2)]),
}


@pytest.mark.parametrize("name", list(TYPE_CASES))
def test_every_type_as_a_field_reads_as_the_deserializer_reads_it(name):
    t, values = TYPE_CASES[name]
    writer = {"type": "record", "name": "Row", "fields": [{"name": "v", "type": t}]}
    kv, oracle, reader = roundtrip(None, [(writer, [{"v": v} for v in values])])
    check_same(reader, kv, oracle)


@pytest.mark.parametrize("name", [n for n in TYPE_CASES if n != "null" and not (
    n.startswith(("decimal", "nullable-decimal")) and "fixed" not in n)])
def test_every_type_at_the_top_level_reads_as_the_deserializer_reads_it(name):
    # (Confluent's serializer cannot write a top-level null, nor a top-level decimal on bytes: it takes
    # any top-level bytes schema for raw bytes; a None value is a null record)
    t, values = TYPE_CASES[name]
    kv, oracle, reader = roundtrip(None, [(t, values)])
    check_same(reader, kv, oracle)


@pytest.mark.parametrize("t, value", [("null", None), ({"type": "record", "name": "E", "fields": []}, {}),
                                      ({"type": "record", "name": "N", "fields": [{"name": "n", "type": "null"}]},
                                       {"n": None})])
def test_a_value_of_no_bytes_is_read_from_the_bare_prefix(t, value):
    src = SchemaMapping({3: json.dumps(t)}, subjects={SUBJECT: [3]})
    out = decode(src, [b"\x00\x00\x00\x00\x03"])
    assert pylist(out.values) == [value] and out.schema_ids.to_pylist() == [3]


def test_top_level_bytes_are_the_whole_payload_as_confluent_writes_them():
    # Confluent's serializers write a top-level "bytes" value raw, with no length in front
    client = registry()
    payloads = serialize(client, "bytes", BYTES)
    assert payloads[1] == b"\x00\x00\x00\x00\x01\x00"
    out = decode(source_of(client), payloads)
    assert pylist(out.values) == BYTES
    assert deserialize(client, "bytes", payloads[1:]) == BYTES[1:]  # (an empty value is only 5 bytes)


def test_top_level_bytes_read_as_a_string_or_nullable_bytes():
    src = SchemaMapping({1: '"bytes"', 2: '"string"', 3: '["null", "bytes"]'}, subjects={"s": [1, 2], "n": [1, 3]})
    payloads = [b"\x00\x00\x00\x00\x01" + "ü".encode(), b"\x00\x00\x00\x00\x01\xff"]
    as_string = ColumnDecoder(AvroPlan(src.version("s"), src), errors="null", source=src).decode(
        pa.array(payloads, pa.binary()))
    assert pylist(as_string.values) == ["ü", None] and as_string.errors[1].as_py()
    as_nullable = ColumnDecoder(AvroPlan(src.version("n"), src), source=src).decode(pa.array(payloads, pa.binary()))
    assert pylist(as_nullable.values) == ["ü".encode(), b"\xff"]


def test_a_bare_top_level_bytes_payload_has_its_avro_length():
    # Outside the registry's wire format a payload is plain Avro: a bytes value carries its length
    payloads = [avro_bytes("bytes", b) for b in BYTES]
    out = bare_decode("bytes", payloads)
    assert out.errors.to_pylist() == [None] * len(BYTES)
    assert pylist(out.values) == BYTES


AVRO_TO_ARROW = [
    ("null", pa.null()), ("boolean", pa.bool_()), ("int", pa.int32()), ("long", pa.int64()),
    ("float", pa.float32()), ("double", pa.float64()), ("string", pa.string()), ("bytes", pa.binary()),
    (SUIT, pa.string()), ({"type": "fixed", "name": "F", "size": 7}, pa.binary(7)),
    (["null", "long"], pa.int64()), (["double", "null"], pa.float64()),
    (["null", "int", "string"], pa.struct([("member0", pa.int32()), ("member1", pa.string())])),
    (["int", "string"], pa.struct([("member0", pa.int32()), ("member1", pa.string())])),
    ({"type": "array", "items": ["null", "int"]}, pa.list_(pa.field("element", pa.int32()))),
    ({"type": "array", "items": "int"}, pa.list_(pa.field("element", pa.int32(), nullable=False))),
    ({"type": "map", "values": "string"},
     pa.map_(pa.string(), pa.field("value", pa.string(), nullable=False))),
    (POINT, pa.struct([pa.field("x", pa.int32(), nullable=False), pa.field("y", pa.float64(), nullable=False)])),
    (_lt("bytes", "decimal", precision=38, scale=2), pa.decimal128(38, 2)),
    (_lt("bytes", "decimal", precision=39, scale=2), pa.decimal256(39, 2)),
    ({"type": "fixed", "name": "D", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 4},
     pa.decimal128(18, 4)),
    (_lt("string", "uuid"), pa.string()), (_lt("int", "date"), pa.date32()),
    (_lt("int", "time-millis"), pa.time32("ms")), (_lt("long", "time-micros"), pa.time64("us")),
    (_lt("long", "timestamp-millis"), pa.timestamp("ms", tz="UTC")),
    (_lt("long", "timestamp-micros"), pa.timestamp("us", tz="UTC")),
    (_lt("long", "timestamp-nanos"), pa.timestamp("ns", tz="UTC")),
    (_lt("long", "local-timestamp-millis"), pa.timestamp("ms")),
    (_lt("long", "local-timestamp-micros"), pa.timestamp("us")),
    (_lt("long", "local-timestamp-nanos"), pa.timestamp("ns")),
    ({"type": "fixed", "name": "Du", "size": 12, "logicalType": "duration"}, pa.month_day_nano_interval()),
    # a logical type on the wrong base type is ignored, as Avro's Java library ignores it
    (_lt("string", "date"), pa.string()), (_lt("bytes", "decimal", precision=0), pa.binary()),
]


@pytest.mark.parametrize("t, expected", AVRO_TO_ARROW, ids=[json.dumps(t)[:60] for t, _ in AVRO_TO_ARROW])
def test_avro_types_map_to_the_documented_arrow_types(t, expected):
    assert AvroPlan(RegisteredSchema(-1, "AVRO", json.dumps(t)), None).arrow_type == expected


def test_null_payloads_stay_null_with_no_schema_id():
    client = registry()
    payloads = serialize(client, POINT, [{"x": 1, "y": 2.0}])
    out = decode(source_of(client), [None, payloads[0], None])
    assert pylist(out.values) == [None, {"x": 1, "y": 2.0}, None]
    assert out.schema_ids.to_pylist() == [None, 1, None] and out.failures == 0


def test_a_sliced_column_and_a_reused_decoder_read_the_same_values():
    # (a decoder sizes its buffers from the batch before: big, small and big again)
    schema = rec("S", fld("n", "long"), fld("s", "string"), fld("a", arr(["null", "string"])))
    values = [{"n": i, "s": "ü" * (i % 40), "a": [None, str(i)] * (i % 3)} for i in range(2000)]
    client = registry()
    payloads = serialize(client, schema, values)
    dec = decoder(source_of(client))
    column = pa.array([b"junk", *payloads], pa.binary())[1:]  # (an array with an offset)
    for part, expected in [(column, values), (column[3:5], values[3:5]), (column[7:], values[7:])]:
        out = dec.decode(part)
        assert pylist(out.values) == expected and out.schema_ids.to_pylist() == [1] * len(expected)


@pytest.mark.parametrize("errors", ["raise", "null"])
def test_a_decoder_reads_each_column_afresh_after_a_failure(errors):
    # one decoder per partition reads batch after batch: a batch that failed leaves nothing behind
    src = SchemaMapping({1: json.dumps(POINT)}, subjects={SUBJECT: [1]})
    good = PREFIX + avro_bytes(POINT, {"x": 1, "y": 2.0})
    dec = decoder(src, errors)
    if errors == "raise":
        with pytest.raises(DeserializationError):
            dec.decode(pa.array([good, good, good[:-1]], pa.binary()))
    else:
        assert dec.decode(pa.array([good, good[:-1]], pa.binary())).failures == 1
    out = dec.decode(pa.array([good, None], pa.binary()))
    assert pylist(out.values) == [{"x": 1, "y": 2.0}, None] and out.schema_ids.to_pylist() == [1, None]
    assert out.failures == 0


def test_a_large_batch_of_records_reads_as_the_deserializer_reads_it():
    rows = [{"id": i, "name": f"n{i}" * (i % 5), "tags": {str(k): k for k in range(i % 4)},
             "score": i / 7 if i % 3 else None} for i in range(3000)]
    schema = {"type": "record", "name": "Big", "fields": [
        {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
        {"name": "tags", "type": {"type": "map", "values": "int"}}, {"name": "score", "type": ["null", "double"]}]}
    kv, oracle, reader = roundtrip(None, [(schema, rows)])
    check_same(reader, kv, oracle)


@pytest.mark.parametrize("precision", [5, 19, 38, 76])
def test_decimal_bytes_with_sign_padding_read_as_their_value(precision):
    # Avro's decimal bytes are any two's-complement big-endian form: writers that pad (to a width, as
    # fixed decimals are) give leading 0x00/0xFF bytes, which do not change the value
    t = rec("P", fld("d", _lt("bytes", "decimal", precision=precision, scale=1)))
    unscaled = [0, 1, -1, 10**precision - 1, -(10**precision - 1), 255, -256]
    raw = [u.to_bytes(n, "big", signed=True) for u in unscaled for n in (17, 33, 40) if abs(u).bit_length() < 8 * n - 1]
    payloads = [zz(len(r)) + r for r in raw]
    out = bare_decode(t, payloads, errors="raise")
    check_same(t, pylist(out.values), [fastavro_read(t, p) for p in payloads])
    too_big = [(10**precision).to_bytes(40, "big", signed=True), (1 << 300).to_bytes(40, "big", signed=True)]
    failed = bare_decode(t, [zz(len(r)) + r for r in too_big])
    assert pylist(failed.values) == [None, None] and all("precision" in r for r in failed.errors.to_pylist())


def test_a_fixed_of_size_zero_reads_as_empty_bytes():
    # Avro allows fixed(0); its Arrow column is fixed_size_binary(0) and holds no bytes at all
    t = {"type": "record", "name": "Z", "fields": [{"name": "z", "type": {"type": "fixed", "name": "F0", "size": 0}},
                                                   {"name": "n", "type": "int"}]}
    out = bare_decode(t, [avro_bytes(t, {"z": b"", "n": 3})], errors="raise")
    assert pylist(out.values) == [{"z": b"", "n": 3}]


@pytest.mark.parametrize("t, raw", [(_lt("int", "time-millis"), [-1, 86_400_000, 2**31 - 1]),
                                    (_lt("long", "time-micros"), [-1, 86_400_000_000, 2**62])],
                         ids=["time-millis", "time-micros"])
def test_a_time_of_day_outside_the_day_is_an_error_not_an_invalid_column(t, raw):
    # A time32/time64 column must hold a time of day (Arrow's full validation says so): a value out of the day
    # is a bad record, not a column that fails validation downstream
    out = bare_decode(t, [avro_bytes(t["type"], v) for v in raw] + [avro_bytes(t["type"], 5)])
    assert pylist(out.values) == [None] * len(raw) + [5]
    assert all("outside its column's range" in e for e in out.errors.to_pylist()[:-1])
    out.values.validate(full=True)


@pytest.mark.parametrize("t", [_lt("bytes", "decimal", precision=77, scale=2),
                               {"type": "fixed", "name": "F", "size": 40, "logicalType": "decimal",
                                "precision": 90, "scale": 0}], ids=["bytes-77-digits", "fixed-90-digits"])
def test_a_decimal_wider_than_arrow_allows_is_a_schema_error(t):
    # Avro puts no bound on a decimal's precision; Arrow's decimal256 stops at 76 digits: a SchemaError
    # (kvlog's error for a schema it cannot read), not a stray exception from pyarrow
    with pytest.raises(SchemaError):
        AvroPlan(RegisteredSchema(-1, "AVRO", json.dumps(t)), None)


def test_the_guid_header_form_reads_as_the_deserializer_reads_it():
    # Confluent's header serializer: the payload is bare Avro, the header __value_schema_id is 1 and the
    # schema's GUID (the mock registry's own, a random one: the source knows it)
    client = registry()
    ser = AvroSerializer(client, json.dumps(POINT), conf={"schema.id.serializer": header_schema_id_serializer})
    headers: list = []
    payloads = [ser({"x": 1, "y": 2.0}, SerializationContext(TOPIC, MessageField.VALUE, headers))]
    reg = client.get_version(SUBJECT, 1)
    src = SchemaMapping({1: RegisteredSchema(1, "AVRO", reg.schema.schema_str, guid=uuid.UUID(reg.guid))},
                        subjects={SUBJECT: [1]})
    ids = pa.array([h for _, h in headers], pa.binary())
    out = decoder(src, errors="null").decode(pa.array(payloads, pa.binary()), header_ids=ids)
    assert out.errors.to_pylist() == [None] and out.schema_ids.to_pylist() == [1]
    oracle = AvroDeserializer(client, json.dumps(POINT))(payloads[0], SerializationContext(TOPIC, MessageField.VALUE,
                                                                                          headers))
    check_same(POINT, pylist(out.values), [oracle])


@pytest.mark.parametrize("header", [True, False], ids=["header", "prefix"])
def test_an_unknown_guid_fails_naming_it(header):
    # (as an unknown id's reason names the id: the decoder builds the reason "unknown schema GUID <guid>: ...")
    src = SchemaMapping({1: json.dumps(POINT)}, subjects={SUBJECT: [1]})
    guid = uuid.UUID(int=5)
    payload = avro_bytes(POINT, {"x": 1, "y": 2.0})
    column = pa.array([payload if header else b"\x01" + guid.bytes + payload], pa.binary())
    ids = pa.array([b"\x01" + guid.bytes], pa.binary()) if header else None
    out = decoder(src, errors="null").decode(column, header_ids=ids)
    assert pylist(out.values) == [None] and out.schema_ids.to_pylist() == [None]
    assert str(guid) in out.errors[0].as_py()


@given(st.lists(st.binary(max_size=12) | st.sampled_from([
    b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80",
    b"\xf8\x88\x80\x80\x80", b"\xe2\x82", b"\x80", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf", "é日🦆".encode(), b"abcdefgh"]),
    max_size=6).map(b"".join))
def test_strings_and_map_keys_are_utf8_exactly_when_python_decodes_them(raw):
    # (ASCII runs of every length put a bad sequence at every offset of the kernel's 8-byte steps)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    schema = rec("U", fld("s", "string"), fld("m", mp("int")))
    payload = zz(len(raw)) + raw + zz(1) + zz(len(raw)) + raw + zz(3) + b"\x00"
    out = bare_decode(schema, [payload])
    assert pylist(out.values) == [None if text is None else {"s": text, "m": [(text, 3)]}]
    assert (out.errors[0].as_py() is None) == (text is not None)


# ------------------------------------------------------------------------------------------ 2. versions
V1_ID = rec("R", fld("id", "int"))
WITH_DEFAULTS = rec(
    "R", fld("id", "int"),
    fld("n", ["null", "string"], default=None), fld("i", "int", default=-7), fld("l", "long", default=2**62),
    fld("f", "float", default=1.1), fld("d", "double", default=-0.5), fld("fnan", "double", default="NaN"),
    fld("b", "boolean", default=True), fld("s", "string", default="héllo 🦆"),
    fld("by", "bytes", default="\u00ff\u0000a"), fld("fx", {"type": "fixed", "name": "F2", "size": 2}, default="\u00ab\u00cd"),
    fld("e", SUIT, default="HEARTS"), fld("r", POINT, default={"x": 1, "y": 2.5}),
    fld("a", arr("long"), default=[1, -2]), fld("ea", arr("string"), default=[]),
    fld("m", mp("string"), default={"k": "v", "": ""}), fld("em", mp("Point"), default={}),
    fld("u", ["int", "null"], default=5), fld("u2", ["string", "int"], default="first"),
    fld("ur", ["null", "Point", "string"], default=None), fld("ur2", ["Point", "string"], default={"x": 1, "y": 0.5}),
    fld("fi", "float", default="-Infinity"),
    fld("ts", _lt("long", "timestamp-millis"), default=-1000), fld("dt", _lt("int", "date"), default=-1),
    fld("dec", _lt("bytes", "decimal", precision=5, scale=2), default="\u0001\u0000"),
    fld("nested", rec("Nest", fld("ra", arr("Point")), fld("rm", mp(arr("int")))),
        default={"ra": [{"x": 2, "y": -1.0}], "rm": {"z": [3]}}))
WITH_DEFAULTS_ROW = {
    "id": 9, "n": "n", "i": 1, "l": 2, "f": 0.5, "d": 1.5, "fnan": 0.0, "b": False, "s": "", "by": b"", "fx": b"\x01\x02",
    "e": "SPADES", "r": {"x": 0, "y": 0.0}, "a": [], "ea": ["x"], "m": {}, "em": {"p": {"x": 5, "y": 5.0}},
    "u": None, "u2": 7, "ur": {"x": 3, "y": 3.0}, "ur2": "s", "fi": 1.0, "ts": 0, "dt": 0, "dec": Decimal("1.00"),
    "nested": {"ra": [], "rm": {}}}

EVOLUTIONS = {
    "every-default-kind": ([(V1_ID, [{"id": 1}, {"id": -(2**31)}]), (WITH_DEFAULTS, [WITH_DEFAULTS_ROW])], None),
    "removed-fields-are-skipped": ([(rec(
        "R", fld("id", "long"), fld("gone_s", "string"), fld("gone_a", arr(rec("G", fld("m", mp("bytes"))))),
        fld("gone_m", mp(arr("string"))), fld("gone_u", ["null", "string", POINT]),
        fld("gone_fx", {"type": "fixed", "name": "F3", "size": 3}), fld("gone_e", SUIT), fld("gone_d", "double"),
        fld("gone_f", "float"), fld("gone_b", "boolean"), fld("gone_by", "bytes"), fld("gone_l", "long"),
        fld("gone_dec", _lt("bytes", "decimal", precision=4, scale=1)), fld("keep", "string")), [
            {"id": 1, "gone_s": "s" * 200, "gone_a": [{"m": {"a": b"x" * 130}}, {"m": {}}],
             "gone_m": {"k": ["a", "b"], "j": []}, "gone_u": {"x": 1, "y": 2.0}, "gone_fx": b"abc",
             "gone_e": "CLUBS", "gone_d": 1.0, "gone_f": 2.0, "gone_b": True, "gone_by": b"\x00" * 70,
             "gone_l": I64_MIN, "gone_dec": Decimal("-999.9"), "keep": "kept"},
            {"id": -1, "gone_s": "", "gone_a": [], "gone_m": {}, "gone_u": None, "gone_fx": b"\x00\x00\x00",
             "gone_e": "SPADES", "gone_d": math.nan, "gone_f": -0.0, "gone_b": False, "gone_by": b"",
             "gone_l": 0, "gone_dec": Decimal("0.0"), "keep": ""}]),
        (rec("R", fld("id", "long"), fld("keep", "string")), [{"id": 2, "keep": "v2"}])], None),
    "promotions": ([(rec("R", *(fld(n, t) for n, t in [
        ("a", "int"), ("b", "int"), ("c", "int"), ("d", "long"), ("e", "long"), ("f", "float"), ("g", "string"),
        ("h", "bytes"), ("i", arr("int")), ("j", mp("long")), ("k", ["null", "int"]), ("l", ["null", "float"])])),
        [{"a": a, "b": a, "c": a, "d": d, "e": d, "f": f, "g": g, "h": g.encode(), "i": [a, ~a], "j": {"x": d},
          "k": a, "l": f} for a, d, f, g in zip(INTS, LONGS[-9:], FLOATS, STRINGS)]),
        (rec("R", *(fld(n, t) for n, t in [
            ("a", "long"), ("b", "float"), ("c", "double"), ("d", "float"), ("e", "double"), ("f", "double"),
            ("g", "bytes"), ("h", "string"), ("i", arr("long")), ("j", mp("double")), ("k", ["null", "long"]),
            ("l", ["null", "double"])])), [])], None),
    "aliases": ([(rec("Old", fld("a", "int"), fld("old_name", "string"),
                      fld("inner", rec("OldInner", fld("v", "long"))),
                      fld("e", {"type": "enum", "name": "OldE", "symbols": ["X", "Y"]})),
                  [{"a": 1, "old_name": "o", "inner": {"v": 5}, "e": "Y"}])],
                rec("New", fld("a", "int"), fld("new_name", "string", aliases=["old_name"]),
                    fld("inner", rec("NewInner", fld("v", "long"), aliases=["OldInner"])),
                    fld("e", {"type": "enum", "name": "NewE", "symbols": ["X", "Y"], "aliases": ["OldE"]}),
                    aliases=["Old"])),
    "reordered-fields": ([(rec("R", fld("a", "int"), fld("b", "string"), fld("c", ["null", "double"]),
                               fld("d", POINT)),
                           [{"a": 1, "b": "b", "c": None, "d": {"x": 1, "y": 1.0}},
                            {"a": 2, "b": "", "c": 2.5, "d": {"x": 2, "y": 2.0}}])],
                         rec("R", fld("d", rec("Point", fld("y", "double"), fld("x", "int"))),
                             fld("c", ["null", "double"]), fld("a", "int"), fld("b", "string"))),
    "enum-symbols": ([(rec("R", fld("e", {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}),
                           fld("es", arr("E"))),
                       [{"e": s, "es": ["A", "B", "C", s]} for s in "ABC"])],
                     rec("R", fld("e", {"type": "enum", "name": "E", "symbols": ["D", "B", "A"], "default": "D"}),
                         fld("es", arr("E")))),
    "union-branches": ([(rec("R", fld("u", ["null", "string"]), fld("v", "string"), fld("w", ["null", "int"]),
                             fld("x", "int"), fld("y", ["null", "string", "int"])),
                         [{"u": None, "v": "v", "w": None, "x": 1, "y": 3},
                          {"u": "s", "v": "", "w": -5, "x": -(2**31), "y": "y"}])],
                       rec("R", fld("u", ["null", "string", "int"]), fld("v", ["null", "string"]),
                           fld("w", ["null", "long"]), fld("x", ["null", "string", "long"]),
                           fld("y", ["int", "null", "string", "boolean"]))),
    "nested-evolution": ([(rec("R", fld("items", arr(rec("Item", fld("a", "int"), fld("gone", "string")))),
                               fld("by_key", mp("Item"))),
                           [{"items": [{"a": 1, "gone": "g"}, {"a": 2, "gone": ""}], "by_key": {"k": {"a": 3, "gone": "x"}}},
                            {"items": [], "by_key": {}}])],
                         rec("R", fld("items", arr(rec("Item", fld("a", "long"), fld("added", ["null", "string"],
                                                                                     default=None),
                                                       fld("level", SUIT, default="CLUBS")))),
                             fld("by_key", mp("Item")))),
    "interleaved-versions": ([(V1_ID, [{"id": 1}]), (rec("R", fld("id", "int"), fld("s", "string", default="d")),
                                                     [{"id": 2, "s": "two"}]),
                              (V1_ID, [{"id": 3}]),
                              (rec("R", fld("s", "string", default="e"), fld("id", "long"),
                                   fld("t", ["null", "string"], default=None)), [{"id": 4, "s": "four", "t": "t"}])],
                             None),
}


@pytest.mark.parametrize("name", list(EVOLUTIONS))
def test_every_version_reads_as_the_latest_as_the_deserializer_reads_it(name):
    writers, reader = EVOLUTIONS[name]
    kv, oracle, reader = roundtrip(reader, writers)
    check_same(reader, kv, oracle)


UNRESOLVABLE = {
    "reader-field-without-default": (rec("R", fld("a", "int")), [{"a": 1}, {"a": 2}],
                                     rec("R", fld("a", "int"), fld("b", "string")), {"a": 3, "b": "x"}, "b"),
    "incompatible-type": (rec("R", fld("a", "string")), [{"a": "s"}, {"a": ""}], rec("R", fld("a", "int")),
                          {"a": 7}, "a"),
    "nested-incompatible-type": (rec("R", fld("o", rec("O", fld("p", arr("string"))))), [{"o": {"p": ["x"]}}],
                                 rec("R", fld("o", rec("O", fld("p", arr("boolean"))))), {"o": {"p": [True]}}, "o.p"),
    "different-record": (rec("R", fld("p", POINT)), [{"p": {"x": 1, "y": 1.0}}],
                         rec("R", fld("p", rec("Other", fld("x", "int"), fld("y", "double")))),
                         {"p": {"x": 1, "y": 1.0}}, "p"),
}


def _old_and_new(writer, old_values, reader, new_value):
    client = registry()
    payloads = serialize(client, writer, old_values) + serialize(client, reader, [new_value])
    return client, source_of(client), payloads


@pytest.mark.parametrize("name", list(UNRESOLVABLE))
def test_an_unresolvable_writer_fails_its_records_naming_the_field(name):
    writer, old_values, reader, new_value, field = UNRESOLVABLE[name]
    client, src, payloads = _old_and_new(writer, old_values, reader, new_value)
    n = len(old_values)
    out = decode(src, payloads, errors="null")
    assert [canon(reader, v, True) for v in pylist(out.values)] == [None] * n + [canon(reader, new_value, False)]
    assert out.schema_ids.to_pylist() == [1] * n + [2] and out.failures == n
    reasons = out.errors.to_pylist()
    assert reasons[n] is None and all(field in r for r in reasons[:n]), reasons
    for p in payloads[:n]:  # (the deserializer cannot read them either)
        with pytest.raises(Exception):  # noqa: B017 (fastavro's SchemaResolutionError, or a decoding error)
            deserialize(client, reader, [p])
    with pytest.raises(DeserializationError) as info:
        decode(src, payloads[n:] + payloads)
    e = info.value
    assert (e.topic, e.partition, e.offset, e.schema_id, e.part) == (TOPIC, 0, FIRST_OFFSET + 1, 1, "value")
    assert field in e.reason and e.reason == reasons[0]


def test_a_writer_union_branch_the_reader_lacks_fails_only_its_records():
    client, src, payloads = _old_and_new(rec("R", fld("u", ["int", "string"])), [{"u": 1}, {"u": "s"}, {"u": 2}],
                                         rec("R", fld("u", "string")), {"u": "new"})
    out = decode(src, payloads, errors="null")
    assert pylist(out.values) == [None, {"u": "s"}, None, {"u": "new"}]
    reasons = out.errors.to_pylist()
    assert reasons[1] is None and "u" in reasons[0] and reasons[0] == reasons[2]
    assert deserialize(client, rec("R", fld("u", "string")), payloads[1:2]) == [{"u": "s"}]
    with pytest.raises(DeserializationError) as info:
        decode(src, payloads)
    assert (info.value.offset, info.value.schema_id) == (FIRST_OFFSET, 1)


def test_an_enum_symbol_the_reader_lacks_without_a_default_fails_only_its_records():
    old = {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}
    client, src, payloads = _old_and_new(rec("R", fld("e", old)), [{"e": "A"}, {"e": "C"}],
                                         rec("R", fld("e", {**old, "symbols": ["A", "B"]})), {"e": "B"})
    out = decode(src, payloads, errors="null")
    assert pylist(out.values) == [{"e": "A"}, None, {"e": "B"}]
    assert "e" in out.errors[1].as_py() and "enum" in out.errors[1].as_py()


def test_a_schema_with_references_reads_as_the_deserializer_reads_it():
    client = registry()
    point = {**POINT, "namespace": "geo"}
    client.register_schema("point", Schema(json.dumps(point), "AVRO"))
    shape = rec("Shape", fld("p", "geo.Point"), fld("ps", arr("geo.Point")), fld("u", ["null", "geo.Point"]))
    schema = Schema(json.dumps(shape), "AVRO", references=[ConfluentReference("geo.Point", "point", 1)])
    values = [{"p": {"x": 1, "y": 2.0}, "ps": [{"x": 3, "y": 4.0}], "u": None},
              {"p": {"x": -1, "y": 0.5}, "ps": [], "u": {"x": 0, "y": -0.0}}]
    payloads = [AvroSerializer(client, schema)(v, CTX) for v in values]
    sid = client.get_latest_version(SUBJECT).schema_id
    src = SchemaMapping({1: json.dumps(point), sid: {"schema": json.dumps(shape), "references": [
        {"name": "geo.Point", "subject": "point", "version": 1}]}}, subjects={"point": [1], SUBJECT: [sid]})
    out = decode(src, payloads)
    oracle = [AvroDeserializer(client, schema)(p, CTX) for p in payloads]
    wrap = rec("Wrap", fld("point", ["null", point]), fld("shape", shape))  # (defines geo.Point for canon)
    check_same(wrap, [{"point": None, "shape": v} for v in pylist(out.values)],
               [{"point": None, "shape": v} for v in oracle])


def test_a_writer_id_that_is_not_a_readable_avro_schema_fails_only_its_records():
    src = SchemaMapping({1: json.dumps(POINT), 2: ("PROTOBUF", 'syntax = "proto3"; message M { int32 x = 1; }'),
                         3: '{"type": "record", "name": "Bad", "fields": [{"name": "x"}]}', 4: "not json"},
                        subjects={SUBJECT: [1]})
    good = PREFIX + avro_bytes(POINT, {"x": 1, "y": 1.0})
    out = decode(src, [b"\x00\x00\x00\x00\x02\x08\x01", good, b"\x00\x00\x00\x00\x03\x02",
                       b"\x00\x00\x00\x00\x04\x02", good], errors="null")
    assert pylist(out.values) == [None, {"x": 1, "y": 1.0}, None, None, {"x": 1, "y": 1.0}]
    assert out.schema_ids.to_pylist() == [2, 1, 3, 4, 1]
    reasons = out.errors.to_pylist()
    assert "PROTOBUF" in reasons[0] and "schema 3" in reasons[2] and "schema 4" in reasons[3], reasons


def test_union_branch_choice_prefers_an_exact_type_over_a_promotion():
    # Avro (Java's resolver): a writer's int goes to the reader's int branch, even after a long branch
    src = SchemaMapping({1: '"int"', 2: '["null", "long", "int"]'}, subjects={SUBJECT: [1, 2]})
    out = decode(src, [b"\x00\x00\x00\x00\x01" + avro_bytes("int", 5)])
    assert pylist(out.values) == [{"member0": None, "member1": 5}]


def test_a_top_level_decimal_is_read_as_avro_bytes():
    # Confluent's raw form is for a plain top-level "bytes" (a byte string handed to the serializer); a
    # decimal is never handed over raw (Confluent's Python serializer cannot write one at all, Java's
    # KafkaAvroSerializer writes it with Avro's datum writer, length first)
    t = _lt("bytes", "decimal", precision=5, scale=2)
    src = SchemaMapping({1: json.dumps(t)}, subjects={SUBJECT: [1]})
    values = [_dec(12345, 2), _dec(-1, 2)]
    out = decode(src, [b"\x00\x00\x00\x00\x01" + avro_bytes(t, v) for v in values], errors="null")
    assert out.errors.to_pylist() == [None, None]
    assert pylist(out.values) == values


# ------------------------------------------------------------------------------------------ 3. random schemas
LEAVES = ["null", "boolean", "int", "long", "float", "double", "bytes", "string", _lt("string", "uuid"),
          _lt("int", "date"), _lt("int", "time-millis"), _lt("long", "time-micros"),
          *(_lt("long", k) for k in TIMESTAMP_UNITS)]
RANGES = {"date": (DAYS_MIN, DAYS_MAX), "time-millis": (0, 86_399_999), "time-micros": (0, 86_399_999_999),
          **{k: {"millis": (MS_MIN, MS_MAX), "micros": (US_MIN, US_MAX), "nanos": (I64_MIN, I64_MAX)}[u]
             for k, u in TIMESTAMP_UNITS.items()}}
PRIMITIVE_VALUES = {"null": st.none(), "boolean": st.booleans(), "int": st.integers(-(2**31), 2**31 - 1),
                    "long": st.integers(I64_MIN, I64_MAX), "float": st.floats(width=32), "double": st.floats(),
                    "bytes": st.binary(max_size=40), "string": st.text(max_size=20)}
SYMBOLS = st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True), min_size=1, max_size=5, unique=True)


@st.composite
def avro_schemas(draw, depth=3):
    """Random Avro schemas: every primitive and logical type, enums, fixed, decimals (to 76 digits),
    durations, and records, arrays, maps and unions of them, each named type defined once under its own
    name. A union's branches are of different Avro types and read as different Python classes, so that
    the oracle's bare union value names its branch. (No fixed(0): see its own test.)"""
    return draw(_schema(depth, itertools.count(), False))


def _max_digits(size: int) -> int:
    return len(str(2 ** (8 * size - 1) - 1)) - 1


@st.composite
def _schema(draw, depth, names, in_union):
    kinds = ["leaf", "leaf", "enum", "fixed", "decimal", "duration"]
    if depth:
        kinds += ["record", "record", "array", "map"] + ([] if in_union else ["union", "union"])
    kind = draw(st.sampled_from(kinds))
    if kind == "leaf":
        return draw(st.sampled_from(LEAVES))
    name = f"N{next(names)}"
    if kind == "enum":
        return {"type": "enum", "name": name, "symbols": draw(SYMBOLS)}
    if kind == "fixed":
        return {"type": "fixed", "name": name, "size": draw(st.integers(1, 20))}
    if kind == "duration":
        return {"type": "fixed", "name": name, "size": 12, "logicalType": "duration"}
    if kind == "decimal":
        size = draw(st.none() | st.integers(1, 32))
        precision = draw(st.integers(1, 76 if size is None else _max_digits(size)))
        t = _lt("bytes", "decimal") if size is None else {"type": "fixed", "name": name, "size": size,
                                                          "logicalType": "decimal"}
        return {**t, "precision": precision, "scale": draw(st.integers(0, precision))}
    if kind == "record":
        types = draw(st.lists(_schema(depth - 1, names, False), max_size=4))
        return rec(name, *(fld(f"f{i}", t) for i, t in enumerate(types)))
    if kind == "array":
        return arr(draw(_schema(depth - 1, names, False)))
    if kind == "map":
        return mp(draw(_schema(depth - 1, names, False)))
    members, kinds_seen, classes = [], set(), set()
    for t in draw(st.lists(_schema(depth - 1, names, True), min_size=1, max_size=4)):
        avro_kind = t["name"] if isinstance(t, dict) and "name" in t else _kind(t)[0]
        if t == "null" or avro_kind in kinds_seen or _writer_classes(t) & classes:
            continue
        members.append(t)
        kinds_seen.add(avro_kind)
        classes |= _writer_classes(t)
    if draw(st.booleans()):
        members.insert(draw(st.integers(0, len(members))), "null")
    return members or ["null"]


def _writer_classes(t) -> set[type]:
    """The Python classes fastavro's writer takes for a branch (it picks a union's branch by them): a
    logical type's own class, and its base type's."""
    kind, logical = _kind(t)
    extra = {"decimal": bytes, "uuid": str}.get(logical, int if logical in RANGES else None)
    return {_pyclass(t, {}), extra} - {None}


def avro_values(t) -> st.SearchStrategy:
    """Random values of schema ``t`` as fastavro's writer takes them."""
    if isinstance(t, list):
        return st.one_of([avro_values(b) for b in t])
    kind, logical = _kind(t)
    if logical == "decimal" and "precision" in t:
        top = 10 ** t["precision"] - 1
        return st.integers(-top, top).map(lambda u: _dec(u, t["scale"]))
    if logical in RANGES:
        return st.integers(*RANGES[logical])
    if logical == "uuid":
        return st.uuids()
    if logical == "duration":
        return st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1), st.integers(0, 2**32 - 1)).map(
            lambda v: struct.pack("<3I", *v))
    if kind in PRIMITIVE_VALUES:
        return PRIMITIVE_VALUES[kind]
    if kind == "enum":
        return st.sampled_from(t["symbols"])
    if kind == "fixed":
        return st.binary(min_size=t["size"], max_size=t["size"])
    if kind == "array":
        return st.lists(avro_values(t["items"]), max_size=4)
    if kind == "map":
        return st.dictionaries(st.text(max_size=6), avro_values(t["values"]), max_size=3)
    return st.fixed_dictionaries({f["name"]: avro_values(f["type"]) for f in t["fields"]})


def _not_top_bytes(t) -> bool:
    return _kind(t)[0] != "bytes"  # (a bare top-level bytes, or decimal on bytes: their own tests above)


@given(st.data())
def test_random_schemas_and_values_bare_read_as_fastavro_reads_them(data):
    schema = data.draw(avro_schemas().filter(_not_top_bytes), label="schema")
    values = data.draw(st.lists(avro_values(schema), min_size=1, max_size=4), label="values")
    payloads = [avro_bytes(schema, v) for v in values]
    out = bare_decode(schema, payloads, errors="raise")
    assert out.schema_ids is None
    check_same(schema, pylist(out.values), [fastavro_read(schema, p) for p in payloads])


@st.composite
def evolved(draw):
    """A writer record and a reader made from it: some fields dropped (their values skipped), the rest
    reordered and their primitives perhaps promoted, and fields added with defaults."""
    writer = draw(avro_schemas().filter(lambda t: _kind(t)[0] == "record"))
    kept = draw(st.permutations(writer["fields"]))[:draw(st.integers(0, len(writer["fields"])))]
    added = draw(st.lists(st.sampled_from([
        fld("new_null", ["null", "string"], default=None), fld("new_long", "long", default=-3),
        fld("new_str", "string", default="dflt"), fld("new_arr", arr("int"), default=[1, 2]),
        fld("new_map", mp("double"), default={"k": 0.5})]), unique_by=lambda f: f["name"], max_size=3))
    kept = [{**f, "type": draw(st.sampled_from(PROMOTIONS[f["type"]]))}
            if isinstance(f["type"], str) and f["type"] in PROMOTIONS else f for f in kept]
    reader = {**writer, "fields": draw(st.permutations([*kept, *added]))}
    return writer, reader


#: the reader types a writer's primitive may be read as (bytes to string only where the bytes are UTF-8:
#: not here)
PROMOTIONS = {"int": ["int", "long", "float", "double"], "long": ["long", "float", "double"],
              "float": ["float", "double"], "string": ["string", "bytes"]}


@given(st.data())
def test_random_schemas_registry_wire_with_a_reader_that_drops_reorders_and_adds_fields(data):
    writer, reader = data.draw(evolved(), label="writer, reader")
    values = data.draw(st.lists(avro_values(writer), min_size=1, max_size=4), label="values")
    src = SchemaMapping({7: json.dumps(writer), 70000: json.dumps(reader)}, subjects={SUBJECT: [7, 70000]})
    try:
        payloads = [b"\x00\x00\x00\x00\x07" + avro_bytes(writer, v) for v in values]
    except ValueError:  # (fastavro tries a string as an ISO date when a union has a date branch, and fails)
        assume(False)
    out = decode(src, payloads)
    assert out.schema_ids.to_pylist() == [7] * len(values)
    check_same(reader, pylist(out.values), [fastavro_read(writer, p[5:], reader) for p in payloads])


# ------------------------------------------------------------------------------------------ 4. damage
DAMAGE_SCHEMA = rec(
    "D", fld("i", "int"), fld("l", "long"), fld("s", "string"), fld("b", "bytes"), fld("ok", "boolean"),
    fld("f", "float"), fld("d", "double"), fld("e", SUIT), fld("fx", {"type": "fixed", "name": "F4", "size": 4}),
    fld("dec", _lt("bytes", "decimal", precision=10, scale=2)),
    fld("dfx", {"type": "fixed", "name": "D6", "size": 6, "logicalType": "decimal", "precision": 14, "scale": 3}),
    fld("u", ["null", "string", "long", POINT]), fld("a", arr(["null", "string"])), fld("m", mp(arr("long"))),
    fld("r", arr("Point")), fld("ts", _lt("long", "timestamp-nanos")))
DAMAGE_VALUES = [
    {"i": -5, "l": 2**40, "s": "héllo", "b": b"\x00\x01", "ok": True, "f": 1.5, "d": -2.5, "e": "CLUBS",
     "fx": b"abcd", "dec": Decimal("-12345678.90"), "dfx": Decimal("12.345"), "u": {"x": 1, "y": 2.0},
     "a": [None, "x", ""], "m": {"k": [1, -1], "": []}, "r": [{"x": 3, "y": 4.0}], "ts": -1},
    {"i": 0, "l": 0, "s": "", "b": b"", "ok": False, "f": 0.0, "d": 0.0, "e": "SPADES", "fx": b"\x00" * 4,
     "dec": Decimal("0.00"), "dfx": Decimal("-1.000"), "u": None, "a": [], "m": {}, "r": [], "ts": I64_MAX},
    {"i": 2**31 - 1, "l": I64_MIN, "s": "🦆" * 20, "b": bytes(range(40)), "ok": True, "f": math.nan,
     "d": math.inf, "e": "HEARTS", "fx": b"\xff" * 4, "dec": Decimal("99999999.99"), "dfx": Decimal("0.001"),
     "u": "str", "a": ["a" * 50], "m": {"x" * 10: [I64_MAX] * 5}, "r": [{"x": -1, "y": -0.0}] * 3, "ts": 0},
]


def damage_source():
    return SchemaMapping({1: json.dumps(DAMAGE_SCHEMA)}, subjects={SUBJECT: [1]})


def check_damaged(schema, out, payloads, avro_part):
    """A damaged column: each value is null with a reason, or the value fastavro reads from the same bytes
    (``avro_part(payload)``: the Avro bytes of a payload, None where the prefix itself is not valid)."""
    values, reasons = pylist(out.values), out.errors.to_pylist()
    assert out.failures == sum(r is not None for r in reasons)
    for payload, value, reason in zip(payloads, values, reasons):
        if reason is not None:
            assert value is None, (payload, value, reason)
            continue
        avro = avro_part(payload)
        assert avro is not None, payload
        oracle = fastavro_read(schema, avro)
        assert not isinstance(oracle, Exception), (payload, value, oracle)
        assert canon(schema, value, True) == canon(schema, oracle, False), payload


def test_every_truncation_of_a_payload_fails_with_a_reason():
    payloads = [PREFIX + avro_bytes(DAMAGE_SCHEMA, v) for v in DAMAGE_VALUES]
    cut = [p[:k] for p in payloads for k in range(len(p))]
    out = decode(damage_source(), cut, errors="null")
    assert pylist(out.values) == [None] * len(cut) and out.failures == len(cut)
    reasons = out.errors.to_pylist()
    assert all(reasons), [c for c, r in zip(cut, reasons) if not r]
    assert all("wire format" in r for c, r in zip(cut, reasons) if len(c) < 5)
    assert all("truncated" in r for c, r in zip(cut, reasons) if len(c) > 5 and not c[5:].startswith(b"\x00"))
    with pytest.raises(DeserializationError) as info:
        decode(damage_source(), payloads + cut[10:])
    assert info.value.offset == FIRST_OFFSET + len(payloads) and info.value.reason == reasons[10]


def test_random_byte_flips_give_a_reason_or_the_value_fastavro_reads():
    rnd = random.Random(20240607)
    payloads = [PREFIX + avro_bytes(DAMAGE_SCHEMA, v) for v in DAMAGE_VALUES]
    damaged = []
    for p in payloads:
        for _ in range(400):
            b = bytearray(p)
            for _ in range(rnd.choice((1, 1, 2, 3))):
                b[rnd.randrange(5 if rnd.random() < 0.95 else 0, len(b))] ^= rnd.randrange(1, 256)
            damaged.append(bytes(b))
    t0 = time.perf_counter()
    out = decode(damage_source(), damaged, errors="null")
    assert time.perf_counter() - t0 < 5
    check_damaged(DAMAGE_SCHEMA, out, damaged, lambda p: p[5:] if p[:5] == PREFIX else None)
    assert 0 < out.failures < len(damaged)  # (some flips land in bytes any value may hold)
    failing = next(i for i, r in enumerate(out.errors.to_pylist()) if r)
    with pytest.raises(DeserializationError) as info:
        decode(damage_source(), damaged)
    assert info.value.offset == FIRST_OFFSET + failing


DAMAGE_LEAVES = [t for t in LEAVES if _kind(t)[1] not in RANGES or _kind(t)[1].endswith("nanos")]


@given(st.data())
def test_random_schemas_with_damaged_payloads_give_a_reason_or_what_fastavro_reads(data):
    # (no dates, times, uuids nor milli/microsecond timestamps: fastavro cannot represent every value of
    # their base types, which damage makes; time values out of their range have their own test)
    schema = data.draw(avro_schemas().filter(_not_top_bytes).filter(_no_range_types), label="schema")
    values = data.draw(st.lists(avro_values(schema), min_size=1, max_size=3), label="values")
    payloads = []
    for v in values:
        raw = bytearray(avro_bytes(schema, v))
        for at, x in data.draw(st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=3)):
            if raw:
                raw[at % len(raw)] ^= x
        payloads.append(bytes(raw[:data.draw(st.integers(0, len(raw)))] if data.draw(st.booleans()) else raw))
    check_damaged(schema, bare_decode(schema, payloads), payloads, lambda p: p)


def _no_range_types(t) -> bool:
    text = json.dumps(t)
    return not any(f'"{k}"' in text for k in (*RANGES, "uuid") if not k.endswith("nanos"))


@pytest.mark.parametrize("payload, why", [
    (PREFIX[:0], "wire format"), (b"\x00", "wire format"), (b"\x00\x00\x00\x00", "wire format"),
    (b"\x02" + PREFIX[1:] + b"\x00", "wire format"), (b"\xff" * 12, "wire format"),
    (b"\x01" + bytes(15), "wire format"),  # (the GUID form is 1 and 16 bytes)
], ids=["empty", "one-byte", "four-bytes", "magic-2", "magic-ff", "short-guid"])
def test_payloads_not_in_the_wire_format_fail_without_a_schema_id(payload, why):
    src = SchemaMapping({1: '"long"'}, subjects={SUBJECT: [1]})
    out = decode(src, [payload, PREFIX + zz(7)], errors="null")
    assert pylist(out.values) == [None, 7] and out.schema_ids.to_pylist() == [None, 1]
    assert why in out.errors[0].as_py()
    with pytest.raises(DeserializationError) as info:
        decode(src, [PREFIX + zz(7), payload])
    assert (info.value.offset, info.value.schema_id) == (FIRST_OFFSET + 1, None)


def test_an_unknown_schema_id_fails_its_records_only():
    src = SchemaMapping({1: '"long"'}, subjects={SUBJECT: [1]})
    unknown = b"\x00\x00\x00\x00\x63" + zz(1)
    out = decode(src, [PREFIX + zz(1), unknown, PREFIX + zz(2), unknown], errors="null")
    assert pylist(out.values) == [1, None, 2, None]
    assert out.schema_ids.to_pylist() == [1, 99, 1, 99]
    assert "unknown schema id 99" in out.errors[1].as_py() and out.errors[3] == out.errors[1]
    with pytest.raises(DeserializationError) as info:
        decode(src, [PREFIX + zz(1), unknown])
    assert (info.value.offset, info.value.schema_id, info.value.topic) == (FIRST_OFFSET + 1, 99, TOPIC)


@pytest.mark.parametrize("schema, value", [("long", 5), (POINT, {"x": 1, "y": 1.0}), (arr("int"), [1]),
                                           ("string", "s")])
def test_bytes_after_the_value_are_an_error(schema, value):
    src = SchemaMapping({1: json.dumps(schema)}, subjects={SUBJECT: [1]})
    good = PREFIX + avro_bytes(schema, value)
    out = decode(src, [good + b"\x00", good, good + b"junk"], errors="null")
    assert [v is None for v in pylist(out.values)] == [True, False, True]
    assert "bytes left after the value" in out.errors[0].as_py()
    bare = bare_decode(schema, [good[5:] + b"\x00"])
    assert "bytes left after the value" in bare.errors[0].as_py()


HUGE = [
    (arr("long"), zz(2**62) + b"\x02"), (arr("long"), zz(-(2**62)) + zz(4) + b"\x02"),
    (arr("string"), zz(2**40) + b"\x00"), (mp("long"), zz(2**62) + b"\x02a\x02"),
    (arr("null"), zz(2**40)), (arr(rec("E0", )), zz(2**40)), (arr("null"), (zz(2**19) * 5) + b"\x00"),
    (arr(arr("null")), zz(1) + zz(2**40)), ("string", zz(2**62) + b"ab"), (rec("B", fld("b", "bytes")), zz(2**40)),
    (arr("long"), zz(-(2**62)) + zz(2**62) + b"\x02"), (arr("long"), zz(I64_MIN) + b"\x02"),
    (rec("R", fld("gone", arr("long")), fld("keep", "int")), zz(-3) + zz(2**40) + b"\x02"),
]


@pytest.mark.parametrize("schema, avro", HUGE, ids=[f"{json.dumps(s)[:30]}-{i}" for i, (s, _) in enumerate(HUGE)])
def test_a_huge_count_or_length_in_a_few_bytes_fails_fast(schema, avro):
    reader = rec("R", fld("keep", "int")) if isinstance(schema, dict) and schema.get("name") == "R" else schema
    src = SchemaMapping({1: json.dumps(schema), 2: json.dumps(reader)}, subjects={SUBJECT: [1, 2]})
    t0 = time.perf_counter()
    out = decode(src, [PREFIX + avro] * 3, errors="null")
    assert time.perf_counter() - t0 < 1
    assert pylist(out.values) == [None] * 3 and all(out.errors.to_pylist())


def _blocked(items: list[bytes], count_sign: int) -> bytes:
    """An array or map block as Avro's other writers write it: a negative count and the block's size."""
    body = b"".join(items)
    return (zz(-len(items)) + zz(len(body)) if count_sign < 0 else zz(len(items))) + body + b"\x00"


def test_blocks_with_their_byte_size_read_and_skip():
    writer = rec("R", fld("a", arr("long")), fld("m", mp("string")), fld("gone", arr("string")),
                 fld("gone_m", mp(arr("int"))), fld("keep", "int"))
    reader = rec("R", fld("a", arr("long")), fld("m", mp("string")), fld("keep", "int"))
    payload = (_blocked([zz(1), zz(-2)], -1)[:-1] + _blocked([zz(3)], 1)
               + _blocked([zz(1) + b"a" + zz(1) + b"x", zz(0) + zz(0)], -1)
               + _blocked([zz(2) + b"ab", zz(0)], -1)
               + _blocked([zz(1) + b"k" + _blocked([zz(5), zz(6)], -1)], -1) + zz(42))
    src = SchemaMapping({1: json.dumps(writer), 2: json.dumps(reader)}, subjects={SUBJECT: [1, 2]})
    out = decode(src, [PREFIX + payload])
    expected = fastavro_read(writer, payload, reader)
    assert expected == {"a": [1, -2, 3], "m": {"a": "x", "": ""}, "keep": 42}
    check_same(reader, pylist(out.values), [expected])


def test_nesting_as_deep_as_the_schema_parser_allows_decodes():
    deepest = "int"
    for _ in range(100):
        deepest = arr(deepest)
    value = 7
    for _ in range(100):
        value = [value]
    out = bare_decode(deepest, [avro_bytes(deepest, value), avro_bytes(deepest, [])], errors="raise")
    assert pylist(out.values) == [value, []]
    with pytest.raises(SchemaError):
        AvroPlan(RegisteredSchema(-1, "AVRO", json.dumps(arr(deepest))), None)


def test_unions_nested_as_deep_as_the_schema_parser_allows_decode():
    # 45 levels of ["int", array] are 90 levels of schema (the parser takes 100); a value at the deepest
    # level is an ordinary value of an accepted schema, and fastavro reads it
    t, value = "int", 7
    for _ in range(45):
        t, value = ["int", arr(t)], [value]
    payload = avro_bytes(t, value)
    out = bare_decode(t, [payload])
    assert out.errors.to_pylist() == [None]
    check_same(t, pylist(out.values), [fastavro_read(t, payload)])


# ------------------------------------------------------------------------------------------ 5. scans
def compact(doc) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def schemas_records(client) -> list[kvlog.Record]:
    """The subject's versions as Confluent's registry keeps them in ``_schemas`` (with a NOOP first, as a
    registry writes at start-up)."""
    out = [kvlog.Record(compact({"keytype": "NOOP", "magic": 0}), None, 1000)]
    for version in sorted(client.get_versions(SUBJECT)):
        sid = client.get_version(SUBJECT, version).schema_id
        text = compact(json.loads(client.get_schema(sid).schema_str)).decode()
        key = {"keytype": "SCHEMA", "subject": SUBJECT, "version": version, "magic": 1}
        value = {"subject": SUBJECT, "version": version, "id": sid, "schema": text, "deleted": False}
        out.append(kvlog.Record(compact(key), compact(value), 1000))
    return out


SCAN_V1 = rec("Order", fld("id", "long"), fld("item", "string"), fld("qty", "int"))
SCAN_V2 = rec("Order", fld("id", "long"), fld("item", "string"), fld("qty", "long"),
              fld("price", ["null", _lt("bytes", "decimal", precision=9, scale=2)], default=None),
              fld("at", _lt("long", "timestamp-millis"), default=0), fld("tags", arr("string"), default=[]))


@pytest.fixture
def orders(tmp_path):
    """A data directory with a ``_schemas`` topic and topic ``t`` (two partitions) of orders written with
    two versions of the value schema, a tombstone, and (partition 1, offset 3) a damaged value."""
    client = registry()
    v1 = serialize(client, SCAN_V1, [{"id": i, "item": f"i{i}", "qty": i} for i in range(3)])
    v2 = serialize(client, SCAN_V2, [{"id": 10 + i, "item": "ü" * i, "qty": 2**40, "price": _dec(i * 101, 2),
                                      "at": MS_MAX - i, "tags": ["a"] * i} for i in range(3)])
    bad = v2[0][:-3]
    root = str(tmp_path / "data")
    with kvlog.LogManager(root) as mgr:
        mgr.create_topic("_schemas", 1)
        mgr.log("_schemas", 0).append(schemas_records(client))
        mgr.create_topic("t", 2)
        mgr.log("t", 0).append([kvlog.Record(b"k", p, 2000) for p in [v1[0], v2[0], None, v1[1]]])
        mgr.log("t", 1).append([kvlog.Record(b"k", p, 2000) for p in [v2[1], v1[2], v2[2], bad]])
    written = {(0, 0): v1[0], (0, 1): v2[0], (0, 2): None, (0, 3): v1[1], (1, 0): v2[1], (1, 1): v1[2],
               (1, 2): v2[2], (1, 3): bad}
    return root, client, written


def _rows(table: pa.Table) -> list[dict]:
    """A scan's rows by (partition, offset), kvlog's values in their plain Python form."""
    cols = {name: (pylist(table.column(name).combine_chunks()) if name.startswith("value") else
                   table.column(name).to_pylist()) for name in table.column_names}
    rows = [dict(zip(cols, r)) for r in zip(*cols.values())]
    return sorted(rows, key=lambda r: (r["partition"], r["offset"]))


@pytest.mark.parametrize("own", [True, False], ids=["its-own-_schemas", "a-mapping"])
def test_a_scan_reads_values_as_the_deserializer_reads_them(orders, own):
    root, client, written = orders
    src = None if own else source_of(client)
    stats = kvlog.ScanStats()
    table = kvlog.scan(root, "t", value_format="registry", schemas=src, errors="null", stats=stats).read_all()
    rows = _rows(table)
    assert [(r["partition"], r["offset"]) for r in rows] == list(written)
    good = {k: p for k, p in written.items() if k != (1, 3)}
    expected = dict(zip(good, deserialize(client, SCAN_V2, list(good.values()))))
    for r in rows:
        key = (r["partition"], r["offset"])
        if key == (1, 3):
            assert r["value"] is None and "truncated" in r["valueError"] and r["valueSchemaId"] == 2
            continue
        assert canon(SCAN_V2, r["value"], True) == canon(SCAN_V2, expected[key], False), key
        assert r["valueError"] is None
        assert r["valueSchemaId"] == (None if written[key] is None else int.from_bytes(written[key][1:5], "big"))
    assert (stats.values_typed, stats.value_errors) == (6, 1)


def test_a_scan_raises_at_the_damaged_value(orders):
    root, _, _ = orders
    with pytest.raises(DeserializationError) as info:
        kvlog.scan(root, "t", value_format="registry").read_all()
    e = info.value
    assert (e.topic, e.partition, e.offset, e.schema_id, e.part) == ("t", 1, 3, 2, "value")
    assert "truncated" in e.reason


def test_a_scan_of_value_fields_decodes_them_as_the_whole_value(orders):
    root, client, written = orders
    full = _rows(kvlog.scan(root, "t", value_format="registry", errors="null").read_all())
    fields = ["value.qty", "value.at", "value.tags"]
    got = _rows(kvlog.scan(root, "t", columns=["partition", "offset", *fields, "valueSchemaId", "valueError"],
                           value_format="registry", errors="null").read_all())
    assert list(got[0]) == ["partition", "offset", *fields, "valueSchemaId", "valueError"]
    for whole, part in zip(full, got):
        assert part["valueSchemaId"] == whole["valueSchemaId"] and part["valueError"] == whole["valueError"]
        for f in fields:
            assert part[f] == (None if whole["value"] is None else whole["value"][f.split(".")[1]])
    table = kvlog.scan(root, "t", columns=["value.at"], value_format="registry", errors="null").read_all()
    assert table.schema.field("value.at").type == pa.timestamp("ms", tz="UTC")


def test_a_scan_of_a_topic_with_no_registered_subject_fails_with_a_schema_error(orders):
    root, _, _ = orders
    with pytest.raises(kvlog.errors.SchemaNotFoundError):
        kvlog.scan(root, "t", value_format="registry", value_subject="other-value").read_all()
