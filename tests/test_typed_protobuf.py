"""Typed topics, Protobuf: kvlog's decoder (kvlog.schemas.proto_plan, csrc/proto.c) against Confluent's own
serializers and protobuf's runtime.

Messages are written by confluent-kafka's ProtobufSerializer into its mock registry (which stores the base64
FileDescriptorProto the serializer submits) and read back by its ProtobufDeserializer; kvlog must give the
same values field by field, with the schemas as the mock registry holds them and as ``.proto`` text (what a
real registry keeps in ``_schemas``). Hand-made payloads (repeated occurrences, wire-type mismatches, damage)
are compared with the runtime's ``FromString``. The schemas are tests/data/typed/kvtest_*.proto; their
``_pb2`` modules are generated here by grpc_tools' protoc, never committed.
"""

from __future__ import annotations

import base64
import importlib
import math
import struct
import sys
from itertools import count
from pathlib import Path
from types import SimpleNamespace

import grpc_tools
import pyarrow as pa
import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import (descriptor_pb2, descriptor_pool, message_factory, struct_pb2, unknown_fields,
                             wrappers_pb2)
from google.protobuf.descriptor import FieldDescriptor as FD
from google.protobuf.message import DecodeError
from grpc_tools import protoc
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import LogManager, Record
from kvlog.errors import DeserializationError, SchemaError
from kvlog.schemas.decoding import ColumnDecoder
from kvlog.schemas.plans import ProtobufPlan
from kvlog.schemas.registry import SchemaMapping

DATA = Path(__file__).resolve().parent / "data" / "typed"
WKT_INCLUDE = str(Path(grpc_tools.__file__).parent / "_proto")
PROTOS = {p.name: p.read_text(encoding="utf-8") for p in sorted(DATA.glob("kvtest_*.proto"))}
CTX = SerializationContext("t", MessageField.VALUE)
CONF = {"use.deprecated.format": False}
_registries = count()


# ------------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="session")
def pb(tmp_path_factory):
    """The generated modules: types, legacy, common, order, reading (version 2)."""
    out = tmp_path_factory.mktemp("pb2")
    names = [n for n in PROTOS if n != "kvtest_reading_v1.proto"]  # (v1 shares v2's full names: see v1 below)
    assert protoc.main(["protoc", f"-I{DATA}", f"-I{WKT_INCLUDE}", f"--python_out={out}", *names]) == 0
    sys.path.insert(0, str(out))  # (kvtest_order_pb2 imports kvtest_common_pb2 by module name)
    try:
        mods = {n[len("kvtest_"):-len(".proto")]: importlib.import_module(n[:-len(".proto")] + "_pb2") for n in names}
    finally:
        sys.path.remove(str(out))
    mods["reading"] = mods.pop("reading_v2")
    return SimpleNamespace(**mods)


@pytest.fixture(scope="session")
def reading_v1(tmp_path_factory):
    """Version 1 of kvtest.reading.Reading. It has version 2's full name, which the default pool holds once,
    so it lives in a pool of its own (built from protoc's descriptor set)."""
    out = tmp_path_factory.mktemp("v1") / "v1.pb"
    assert protoc.main(["protoc", f"-I{DATA}", f"--descriptor_set_out={out}", "kvtest_reading_v1.proto"]) == 0
    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("kvtest.reading.Reading"))


# ------------------------------------------------------------------------------------------- helpers
def new_client():
    return SchemaRegistryClient.new_client({"url": f"mock://typed-protobuf-{next(_registries)}"})


def serialize(msgs, client=None):
    """Confluent's framed payloads of ``msgs`` (one serializer per message class), and the client."""
    client = client or new_client()
    sers = {}
    out = []
    for m in msgs:
        cls = type(m)
        ser = sers.get(cls) or sers.setdefault(cls, ProtobufSerializer(cls, client, CONF))
        out.append(ser(m, CTX))
    return out, client


def mapping(client, form):
    """The mock registry's schemas as a SchemaMapping: as it holds them ("base64" descriptors) or ("text") with
    each file's .proto source in place of its descriptor (same ids, subjects and references)."""
    schemas, subjects = {}, {}
    for subject in client.get_subjects():
        for v in sorted(client.get_versions(subject)):  # (the mock lists them in any order)
            r = client.get_version(subject, v)
            text = r.schema.schema_str
            if form == "text":
                text = PROTOS[descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(text)).name]
            refs = [{"name": x.name, "subject": x.subject, "version": x.version} for x in r.schema.references]
            schemas[r.schema_id] = {"schema": text, "schemaType": r.schema.schema_type, "references": refs}
            subjects.setdefault(subject, []).append(r.schema_id)
    return SchemaMapping(schemas, subjects=subjects)


def text_source(name="kvtest_types.proto", sid=1):
    return SchemaMapping({sid: ("PROTOBUF", PROTOS[name])}, subjects={"t-value": [sid]})


def decode(src, payloads, message=None, errors="raise", version="latest"):
    plan = ProtobufPlan(src.version("t-value", version), src, message=message)
    dec = ColumnDecoder(plan, errors=errors, source=src)
    return dec.decode(pa.array(payloads, pa.binary()), offsets=list(range(len(payloads))), topic="t", partition=0)


def _plain(t):
    """``t`` with timestamps and durations as int64 (their nanoseconds survive to_pylist)."""
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return pa.int64()
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_plain(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_plain(t.key_type)), t.item_field.with_type(_plain(t.item_type)))
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_plain(t.value_type)))
    return t


def rows(arr):
    return arr.cast(_plain(arr.type)).to_pylist()


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def tag(num, wt):
    return varint(num << 3 | wt)


def vf(num, n):
    """A varint field."""
    return tag(num, 0) + varint(n)


def lf(num, raw):
    """A length-delimited field."""
    return tag(num, 2) + varint(len(raw)) + raw


def framed(body, sid=1, indexes=(0,)):
    """The registry's wire format: magic 0, the id, the message indexes (zigzag; [0] as one 0 byte)."""
    idx = b"\0" if list(indexes) == [0] else b"".join(varint((i << 1) ^ (i >> 63)) for i in (len(indexes), *indexes))
    return b"\0" + struct.pack(">i", sid) + idx + body


# ---------------------------------------------------------------------------------------- normalisers
WKT_TIME = ("google.protobuf.Timestamp", "google.protobuf.Duration")
WRAPPERS = {f"google.protobuf.{n}Value" for n in ("Int32", "Int64", "UInt32", "UInt64", "Float", "Double", "Bool",
                                                  "String", "Bytes")}
RAW = {"google.protobuf.Struct": struct_pb2.Struct, "google.protobuf.Value": struct_pb2.Value,
       "google.protobuf.ListValue": struct_pb2.ListValue}


def _f(x):
    return "NaN" if isinstance(x, float) and math.isnan(x) else x


def _is_map(fd):
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry


def expected(m):
    """A runtime message as kvlog's documented row: presence fields None when unset, enums by name (an unknown
    number as its digits), Timestamp/Duration in ns, wrappers as their value, Struct/Value/ListValue as the
    message (kvlog's bytes are parsed back), maps as dicts, NaN as "NaN"."""
    name = m.DESCRIPTOR.full_name
    if name in WKT_TIME:
        return m.seconds * 10**9 + m.nanos
    if name in WRAPPERS:
        return _f(m.value)
    if name in RAW:
        return m
    out = {}
    for fd in m.DESCRIPTOR.fields:
        v = getattr(m, fd.name)
        if _is_map(fd):
            out[fd.name] = {k: _expected_value(fd.message_type.fields_by_name["value"], v[k]) for k in v}
        elif fd.is_repeated:
            out[fd.name] = [_expected_value(fd, x) for x in v]
        elif fd.has_presence and not m.HasField(fd.name):
            out[fd.name] = None
        else:
            out[fd.name] = _expected_value(fd, v)
    return out


def _expected_value(fd, v):
    if fd.type == FD.TYPE_ENUM:
        known = fd.enum_type.values_by_number.get(v)
        return known.name if known else str(v)
    if fd.message_type is not None:
        return expected(v)
    return _f(v)


def observed(desc, row):
    """kvlog's row in expected()'s shape (checking the struct's field order and that no map repeats a key)."""
    if row is None:
        return None
    name = desc.full_name
    if name in RAW:
        return RAW[name].FromString(row)
    if name in WKT_TIME or name in WRAPPERS:
        return _f(row)
    assert list(row) == [fd.name for fd in desc.fields]
    out = {}
    for fd in desc.fields:
        v = row[fd.name]
        if _is_map(fd):
            keys = [k for k, _ in v]
            assert len(set(keys)) == len(keys), f"{fd.name}: a map with a key given twice: {keys}"
            out[fd.name] = {k: _observed_value(fd.message_type.fields_by_name["value"], x) for k, x in v}
        elif fd.is_repeated:
            out[fd.name] = [_observed_value(fd, x) for x in v]
        else:
            out[fd.name] = _observed_value(fd, v)
    return out


def _observed_value(fd, v):
    return observed(fd.message_type, v) if fd.message_type is not None else _f(v)


def check_serialized(msgs, form="base64", message=None):
    """msgs through Confluent's serializer and deserializer, and through kvlog: the same values."""
    payloads, client = serialize(msgs)
    src = mapping(client, form)
    cls = type(msgs[0])
    out = decode(src, payloads, message=message or cls.DESCRIPTOR.full_name)
    assert out.failures == 0
    back = [ProtobufDeserializer(cls, CONF)(p, CTX) for p in payloads]
    assert back == list(msgs)  # (the oracle itself round-trips)
    assert [observed(cls.DESCRIPTOR, r) for r in rows(out.values)] == [expected(m) for m in back]
    assert set(out.schema_ids.to_pylist()) == {src.version("t-value").id}
    return out


def indexes_of(desc):
    """A message's indexes in its file, as the wire format names it."""
    path = []
    while desc.containing_type is not None:
        path.insert(0, list(desc.containing_type.nested_types).index(desc))
        desc = desc.containing_type
    return (list(desc.file.message_types_by_name.values()).index(desc), *path)


def upb_dropped_a_map_entry(m):
    """Whether protobuf's Python runtime (upb) moved a map entry holding an unknown field to the message's
    unknown fields: C++, Java and kvlog keep such entries (see test_map_entry_with_unknown_fields_is_kept)."""
    maps = {fd.number for fd in m.DESCRIPTOR.fields if _is_map(fd)}
    return any(u.field_number in maps and u.wire_type == 2 for u in unknown_fields.UnknownFieldSet(m))


def check_like_runtime(cls, bodies, src=None, message=None, strict=True):
    """Hand-made message bodies: kvlog's values are the runtime's ``FromString`` (strict), or, for damaged
    bodies, the runtime's or an error with a reason; a body the runtime refuses must fail in kvlog too
    unless ``strict`` is off (then only no crash and a reason are asked for)."""
    src = src or text_source(f"{cls.DESCRIPTOR.file.name}")
    sid, indexes = src.version("t-value").id, indexes_of(cls.DESCRIPTOR)
    out = decode(src, [framed(b, sid, indexes) for b in bodies], message=message or cls.DESCRIPTOR.full_name,
                 errors="null")
    for body, row, err in zip(bodies, rows(out.values), out.errors.to_pylist()):
        assert (row is None) == (err is not None), (row, err)
        try:
            parsed = cls.FromString(body)
        except DecodeError:
            assert row is None or not strict, f"the runtime refuses {body!r}, kvlog reads {row}"
            continue
        if not strict and upb_dropped_a_map_entry(parsed):
            continue  # (the oracle's quirk: nothing to compare the maps with)
        want = expected(parsed)
        if row is None:
            assert not strict, f"the runtime reads {body!r}, kvlog fails: {err}"
        else:
            assert observed(cls.DESCRIPTOR, row) == want, body
    return out


# -------------------------------------------------------------------------------------------- scalars
I32 = (-(2**31), 2**31 - 1)
I64 = (-(2**63), 2**63 - 1)
F32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
F32_TINY = struct.unpack("<f", b"\x01\x00\x00\x00")[0]
TEXT = "zürich \u0000 日本 😀 \u200b"


def scalar_messages(T):
    lo = T.Scalars(
        f_double=-math.inf, f_float=-math.inf, f_int32=I32[0], f_int64=I64[0], f_uint32=0, f_uint64=0,
        f_sint32=I32[0], f_sint64=I64[0], f_fixed32=0, f_fixed64=0, f_sfixed32=I32[0], f_sfixed64=I64[0],
        f_bool=False, f_string="", f_bytes=b"", f_enum=T.NEGATIVE, f_top=-1,
        # presence: a proto3 optional set to its zero is present (not null)
        o_int32=0, o_string="", o_enum=T.COLOR_UNSPECIFIED, o_double=0.0, o_bytes=b"", o_uint64=0)
    hi = T.Scalars(
        f_double=math.inf, f_float=math.nan, f_int32=I32[1], f_int64=I64[1], f_uint32=2**32 - 1,
        f_uint64=2**64 - 1, f_sint32=I32[1], f_sint64=I64[1], f_fixed32=2**32 - 1, f_fixed64=2**64 - 1,
        f_sfixed32=I32[1], f_sfixed64=I64[1], f_bool=True, f_string=TEXT, f_bytes=bytes(range(256)),
        f_enum=T.GREEN, f_top=I32[1], o_int32=-1, o_string=TEXT, o_enum=T.NEGATIVE, o_double=math.nan,
        o_bytes=b"\0\xff", o_uint64=2**64 - 1)
    mid = T.Scalars(f_double=5e-324, f_float=F32_TINY, f_int32=-1, f_int64=-1, f_uint32=2**31, f_uint64=2**63,
                    f_sint32=-1, f_sint64=-1, f_fixed32=1, f_fixed64=2**63, f_sfixed32=-1, f_sfixed64=-1,
                    f_string="\x7f\u07ff\uffff\U0010ffff", f_enum=T.RED)
    reps = T.Scalars(
        r_double=[0.0, -0.0, math.nan, math.inf, -math.inf, 1.7976931348623157e308, 5e-324],
        r_float=[F32_MAX, -F32_MAX, F32_TINY, math.nan, 1.5], r_int32=[*I32, 0, -1, 1],
        r_int64=[*I64, 0, -1], r_uint32=[0, 2**32 - 1, 127, 128], r_uint64=[0, 2**64 - 1, 2**63],
        r_sint32=[*I32, -1, 0, 1], r_sint64=[*I64, -1, 0, 1], r_fixed32=[0, 2**32 - 1], r_fixed64=[0, 2**64 - 1],
        r_sfixed32=[*I32, -1], r_sfixed64=[*I64, -1], r_bool=[True, False, True], r_string=["", TEXT, "a"],
        r_bytes=[b"", b"\0", bytes(range(255, -1, -1))], r_enum=[T.RED, T.NEGATIVE, T.COLOR_UNSPECIFIED],
        u_int32=[*I32, 0], u_sint64=[*I64, 0], u_double=[math.nan, -0.0, 2.5], u_enum=[T.GREEN, T.NEGATIVE])
    return [T.Scalars(), lo, hi, mid, reps]


def test_scalars_arrow_types(pb):
    # proto_plan's documented mapping, field by field
    t = ProtobufPlan(text_source().version("t-value"), text_source()).arrow_type
    want = {"f_double": pa.float64(), "f_float": pa.float32(), "f_int32": pa.int32(), "f_int64": pa.int64(),
            "f_uint32": pa.uint32(), "f_uint64": pa.uint64(), "f_sint32": pa.int32(), "f_sint64": pa.int64(),
            "f_fixed32": pa.uint32(), "f_fixed64": pa.uint64(), "f_sfixed32": pa.int32(), "f_sfixed64": pa.int64(),
            "f_bool": pa.bool_(), "f_string": pa.string(), "f_bytes": pa.binary(), "f_enum": pa.string()}
    for name, typ in want.items():
        assert t.field(name).type == typ, name
        assert t.field("r" + name[1:]).type == pa.list_(pa.field("element", typ)), name
    assert [f.name for f in t] == [f.name for f in pb.types.Scalars.DESCRIPTOR.fields]


@pytest.mark.parametrize("form", ["base64", "text"])
def test_scalars_with_extremes(pb, form):
    msgs = scalar_messages(pb.types)
    # (what the writer's bytes hold: negative int32 and enum values as 10-byte varints, packed and unpacked lists)
    lo, reps = msgs[1].SerializeToString(), msgs[4].SerializeToString()
    assert vf(3, I32[0]) in lo and vf(16, -7) in lo and len(varint(-7)) == 10
    assert vf(50, I32[0]) in reps and lf(33, b"".join(varint(i) for i in msgs[4].r_int32)) in reps
    check_serialized(msgs, form)


def test_open_enum_unknown_numbers_are_their_digits(pb):
    T = pb.types
    m = T.Scalars(f_enum=99, o_enum=-12345, r_enum=[5, T.RED, -(2**31)], u_enum=[2**31 - 1])
    out = check_serialized([m])
    row = out.values.to_pylist()[0]
    assert (row["f_enum"], row["o_enum"], row["r_enum"], row["u_enum"]) == (
        "99", "-12345", ["5", "RED", "-2147483648"], ["2147483647"])


def test_enum_alias_takes_the_first_name(pb):
    T = pb.types
    assert T.CRIMSON == T.RED
    row = check_serialized([T.Scalars(f_enum=T.CRIMSON)]).values.to_pylist()[0]
    assert row["f_enum"] == "RED"


@given(st.data())
def test_random_scalars(pb, data):
    T = pb.types
    ints = {"int32": st.integers(*I32), "int64": st.integers(*I64), "uint32": st.integers(0, 2**32 - 1),
            "uint64": st.integers(0, 2**64 - 1)}
    kinds = {"double": st.floats(), "float": st.floats(width=32), "int32": ints["int32"],
             "int64": ints["int64"], "uint32": ints["uint32"], "uint64": ints["uint64"], "sint32": ints["int32"],
             "sint64": ints["int64"], "fixed32": ints["uint32"], "fixed64": ints["uint64"],
             "sfixed32": ints["int32"], "sfixed64": ints["int64"], "bool": st.booleans(), "string": st.text(),
             "bytes": st.binary(), "enum": st.sampled_from([0, 1, 2, -7, 3, -(2**31), 2**31 - 1])}
    msgs = []
    for _ in range(data.draw(st.integers(1, 4))):
        m = T.Scalars()
        for kind, strat in kinds.items():
            if data.draw(st.booleans()):
                setattr(m, f"f_{kind}", data.draw(strat))
            getattr(m, f"r_{kind}").extend(data.draw(st.lists(strat, max_size=4)))
        msgs.append(m)
    check_serialized(msgs)


# -------------------------------------------------------------------------------------------- messages
def nested_messages(T):
    leaf = T.Leaf(on=True, raw=b"\x00\x01")
    inner = T.Inner(name="in", n=-3, xs=[I64[0], 0, I64[1]], leaf=leaf, leaves=[T.Leaf(), leaf])
    return [
        T.Nested(),
        T.Nested(one=T.Inner()),  # present and empty: a struct of zeros, not null
        T.Nested(one=inner, many=[T.Inner(), inner, T.Inner(name="x")], after=7),
        T.Nested(local=T.Nested.Local(tag="t", inner=inner),
                 locals=[T.Nested.Local(), T.Nested.Local(inner=T.Inner(leaf=T.Leaf()))]),
    ]


@pytest.mark.parametrize("form", ["base64", "text"])
def test_nested_and_repeated_messages(pb, form):
    out = check_serialized(nested_messages(pb.types), form, message="kvtest.types.Nested")
    first, empty = out.values.to_pylist()[:2]
    assert first["one"] is None and empty["one"] == {"name": "", "n": 0, "xs": [], "leaf": None, "leaves": []}


def map_messages(T):
    m = T.Maps()
    for k in (*I32, 0, -1):
        m.m_int32[k] = f"i{k}"
        m.m_sint32[k] = f"s{k}"
        m.m_sfixed32[k] = f"f{k}"
    for k in (*I64, 0):
        m.m_int64[k] = f"i{k}"
        m.m_sint64[k] = f"s{k}"
        m.m_sfixed64[k] = str(k)
    for k in (0, 2**32 - 1):
        m.m_uint32[k] = "u"
        m.m_fixed32[k] = "f"
    for k in (0, 2**64 - 1):
        m.m_uint64[k] = "u"
        m.m_fixed64[k] = "f"
    m.m_bool[True] = "yes"
    m.m_bool[False] = "no"
    m.m_string[""] = ""
    m.m_string[TEXT] = TEXT
    m.m_message["empty"].CopyFrom(T.Inner())
    m.m_message["full"].CopyFrom(T.Inner(name="n", xs=[1, 2], leaf=T.Leaf(on=True)))
    m.m_enum["r"] = T.RED
    m.m_enum["neg"] = T.NEGATIVE
    m.m_enum["unknown"] = 77
    m.m_bytes["b"] = bytes(range(256))
    m.m_double[1] = math.nan
    m.m_double[2] = -math.inf
    m.m_ts["epoch"].FromNanoseconds(0)
    m.m_ts["before"].FromNanoseconds(-1_500_000_001)
    m.m_wrapper["zero"].value = 0
    m.m_wrapper["min"].value = I32[0]
    return [T.Maps(), m]


@pytest.mark.parametrize("form", ["base64", "text"])
def test_maps_of_every_key_type(pb, form):
    out = check_serialized(map_messages(pb.types), form, message="Maps")
    assert out.values.type.field("m_message").type == pa.map_(pa.string(), pa.field(
        "value", ProtobufPlan(text_source().version("t-value"), text_source(), message="Inner").arrow_type))


def test_map_entries_missing_key_or_value_take_defaults(pb):
    # an entry without its key or value has the zero key or value (a message value: its empty instance)
    T = pb.types
    bodies = [lf(1, vf(1, 5)), lf(1, b""), lf(13, lf(1, b"k")), lf(14, lf(1, b"e")), lf(17, lf(1, b"t")),
              lf(18, lf(1, b"w")), lf(13, b""),
              lf(1, lf(2, b"v") + vf(1, 3)),  # value before key
              lf(1, vf(1, 1) + vf(1, 2) + lf(2, b"a") + lf(2, b"b"))]  # each given twice: the last wins
    check_like_runtime(T.Maps, bodies)


def test_map_entry_with_unknown_fields_is_kept(pb):
    # An entry holding an unknown field (or its value with another wire type) is skipped by protobuf's Python
    # runtime (upb moves the whole entry to the parent's unknown fields), while the C++ and Java parsers skip
    # the unknown field and keep the entry. kvlog does as C++ and Java: the oracle here is that rule.
    T = pb.types
    bodies = [lf(1, vf(1, 1) + lf(9, b"unknown") + lf(2, b"v")), lf(1, vf(1, 2) + vf(2, 0)),
              lf(13, lf(1, b"k") + vf(2, 1))]
    assert [len(T.Maps.FromString(b).m_int32) + len(T.Maps.FromString(b).m_message) for b in bodies] == [0, 0, 0]
    out = decode(text_source(), [framed(b, indexes=indexes_of(T.Maps.DESCRIPTOR)) for b in bodies], message="Maps")
    vals = out.values.to_pylist()
    assert [vals[0]["m_int32"], vals[1]["m_int32"], vals[2]["m_message"]] == [
        [(1, "v")], [(2, "")], [("k", {"name": "", "n": 0, "xs": [], "leaf": None, "leaves": []})]]


def test_map_key_given_twice_keeps_the_last_entry(pb):
    # protobuf's maps keep one entry per key (the last one parsed); kvlog's Arrow map must not hold the key twice
    T = pb.types
    body = lf(12, lf(1, b"k") + lf(2, b"first")) + lf(12, lf(1, b"k") + lf(2, b"second"))
    assert dict(T.Maps.FromString(body).m_string) == {"k": "second"}
    check_like_runtime(T.Maps, [body])


# --------------------------------------------------------------------------------------------- oneofs
def oneof_messages(T):
    ts = T.Oneofs(plain="p")
    ts.c_ts.FromNanoseconds(123)
    return [T.Oneofs(), T.Oneofs(c_int=0), T.Oneofs(c_string="", o_bool=False), ts,
            T.Oneofs(c_message=T.Inner(), o_bytes=b"x"), T.Oneofs(c_enum=T.NEGATIVE),
            T.Oneofs(c_wrapper=wrappers_pb2.StringValue(value=""))]


@pytest.mark.parametrize("form", ["base64", "text"])
def test_oneofs_only_the_set_member_is_not_null(pb, form):
    out = check_serialized(oneof_messages(pb.types), form, message="Oneofs")
    vals = out.values.to_pylist()
    assert [sum(r[f] is not None for f in ("c_int", "c_string", "c_message", "c_enum", "c_ts", "c_wrapper"))
            for r in vals] == [0, 1, 1, 1, 1, 1, 1]
    assert vals[1]["c_int"] == 0  # (set to its zero: still the set member)


def test_oneof_last_member_wins(pb):
    T = pb.types
    inner_a, inner_b = lf(1, b"a") + vf(2, 1), vf(2, 2) + lf(3, varint(9))
    bodies = [vf(1, 5) + lf(2, b"s"),  # int then string: the string
              lf(2, b"s") + vf(1, 5),  # string then int: the int
              lf(3, inner_a) + vf(1, 5),  # a message member cleared by a scalar
              vf(1, 5) + lf(3, inner_a) + lf(3, inner_b),  # the same message member twice: merged
              lf(3, inner_a) + vf(1, 5) + lf(3, inner_b),  # a message member set again after another: fresh
              vf(4, 2) + lf(5, vf(1, 7)) + vf(6, 1) + lf(7, b"b"),  # both oneofs, each its last member
              vf(1, 5) + tag(2, 0) + varint(3)]  # a wire-type mismatch is an unknown field: it clears nothing
    out = check_like_runtime(T.Oneofs, bodies)
    assert out.values.to_pylist()[4]["c_message"] == {"name": "", "n": 2, "xs": [9], "leaf": None, "leaves": []}


# ------------------------------------------------------------------------------------- well-known types
def wkt_messages(T):
    m = T.WellKnown()
    m.ts.FromNanoseconds(-1)  # seconds -1, nanos 999999999
    m.dur.FromNanoseconds(-1_000_000_001)
    m.w_int32.value, m.w_int64.value, m.w_uint32.value, m.w_uint64.value = I32[0], I64[0], 2**32 - 1, 2**64 - 1
    m.w_float.value, m.w_double.value, m.w_bool.value = math.nan, -0.0, True
    m.w_string.value, m.w_bytes.value = TEXT, b"\0\xff"
    m.st.update({"a": 1.5, "b": [True, None, "x"], "c": {"d": {}}})
    m.val.string_value = "v"
    m.lst.extend([1, "two", None])
    for ns in (0, 10**18, -(10**18), I64[1], -1):
        m.tss.add().FromNanoseconds(ns)
    m.ws.add().value = 0
    m.ws.add().value = -1
    m.durs.add().FromNanoseconds(I64[1])
    m.durs.add().FromNanoseconds(-(10**15) - 1)
    zeros = T.WellKnown()  # every wrapper present with its zero value: zero, not null
    for f in ("ts", "dur", "w_int32", "w_int64", "w_uint32", "w_uint64", "w_float", "w_double", "w_bool",
              "w_string", "w_bytes", "st", "val", "lst"):
        getattr(zeros, f).SetInParent()
    return [T.WellKnown(), m, zeros]


@pytest.mark.parametrize("form", ["base64", "text"])
def test_well_known_types(pb, form):
    out = check_serialized(wkt_messages(pb.types), form, message="WellKnown")
    t = out.values.type
    assert (t.field("ts").type, t.field("dur").type, t.field("w_uint64").type, t.field("st").type) == (
        pa.timestamp("ns", tz="UTC"), pa.duration("ns"), pa.uint64(), pa.binary())
    empty, _, zeros = out.values.to_pylist()
    assert empty["w_int32"] is None and zeros["w_int32"] == 0 and zeros["w_string"] == ""


def test_timestamps_at_the_ends_of_nanoseconds(pb):
    # timestamp[ns] holds int64 nanoseconds: both ends are values, one past them is an error (never a wrapped value)
    T = pb.types
    ends = [T.WellKnown(), T.WellKnown(), T.WellKnown(), T.WellKnown()]
    ends[0].ts.FromNanoseconds(I64[1])
    ends[1].ts.FromNanoseconds(I64[0])  # seconds -9223372037, nanos 145224192
    ends[2].ts.seconds = 9223372037  # past the end: not a timestamp[ns]
    ends[3].dur.seconds = -9223372037
    out = decode(text_source(), [framed(m.SerializeToString(), indexes=indexes_of(T.WellKnown.DESCRIPTOR))
                                 for m in ends], message="WellKnown", errors="null")
    got = [r and r["ts"] for r in rows(out.values)]
    assert got == [I64[1], I64[0], None, None], out.errors.to_pylist()
    assert all(out.errors.to_pylist()[2:])


@pytest.mark.parametrize("form", ["base64", "text"])
def test_any_is_a_struct_of_type_url_and_value(pb, form):
    T = pb.types
    m = T.Packed(n=1)
    m.any.Pack(T.Inner(name="packed", xs=[1]))
    m.anys.add().Pack(T.Leaf(on=True))
    m.anys.add()
    out = check_serialized([T.Packed(), m], form)
    assert out.values.type.field("any").type == pa.struct([("type_url", pa.string()), ("value", pa.binary())])


def test_timestamp_fields_given_twice_and_out_of_order(pb):
    T = pb.types
    ts = vf(2, 5) + vf(1, 3) + vf(1, 4)  # nanos first, seconds twice: 4 s 5 ns
    check_like_runtime(T.WellKnown, [lf(1, ts), lf(1, vf(1, 1)) + lf(1, vf(2, 2)),  # two occurrences merge
                                     lf(3, vf(1, 1) + vf(1, 2)), lf(10, lf(1, b"a") + lf(1, b"b"))])


# -------------------------------------------------------------------------------------------------- proto2
def legacy_messages(L):
    full = L.Legacy(req=I64[0], a=0, s="", level=L.LOW, level2=L.HIGH, unpacked=[*I32, 0], packed=[1, -1],
                    b=b"", d=math.nan, levels=[L.HIGH, L.LOW], f=-0.0, u=0)
    full.grp.g, full.grp.gs = -5, "g"
    full.items.add(i=1)
    full.items.add()
    full.sub.x = 0
    full.sub.deeper.w = 3
    bare = L.Legacy(req=1)
    bare.grp.SetInParent()
    bare.sub.SetInParent()
    return [L.Legacy(req=0), full, bare]


@pytest.mark.parametrize("form", ["base64", "text"])
def test_proto2_presence_defaults_and_groups(pb, form):
    L = pb.legacy
    out = check_serialized(legacy_messages(L), form)
    first = out.values.to_pylist()[0]
    # kvlog's rule: a proto2 field without a value is null, where the runtime answers its declared default
    assert (L.Legacy().a, L.Legacy().s, L.Legacy().level, L.Legacy().b) == (42, "hi", L.HIGH, b"\x01\xff")
    assert (first["a"], first["s"], first["level"], first["b"], first["d"], first["u"]) == (None,) * 6
    assert out.values.type.field("grp").type == pa.struct([("g", pa.int32()), ("gs", pa.string())])
    assert out.values.type.field("items").type == pa.list_(pa.field("element", pa.struct([("i", pa.int32())])))


def test_proto2_repeated_fields_packed_or_not(pb):
    # a parser takes a repeated scalar packed or not, whatever the schema says, and mixes them in order
    L = pb.legacy
    req = vf(1, 1)
    packed = lf(6, varint(1) + varint(-2) + varint(300))
    bodies = [req + packed, req + vf(7, 4) + vf(7, 5), req + vf(6, 9) + packed + vf(6, 8) + lf(6, b""),
              req + lf(16, varint(1) + varint(2)) + vf(16, 1)]
    check_like_runtime(L.Legacy, bodies)


def test_proto2_closed_enum_unknown_numbers_are_unknown_fields(pb):
    # A closed (proto2) enum keeps a number it does not name as an unknown field: the field stays unset and a
    # repeated field drops the item (the runtime's FromString; protobuf's documented enum behaviour).
    L = pb.legacy
    body = vf(1, 1) + vf(4, 5) + vf(16, 5) + vf(16, 2) + lf(16, varint(7) + varint(1))
    m = L.Legacy.FromString(body)
    assert not m.HasField("level") and list(m.levels) == [L.HIGH, L.LOW]
    check_like_runtime(L.Legacy, [body])


def test_groups_by_hand(pb):
    L = pb.legacy
    req = vf(1, 1)
    grp = tag(8, 3) + vf(9, 1) + lf(10, b"x") + tag(8, 4)
    bodies = [req + grp, req + grp + tag(8, 3) + vf(9, 2) + tag(8, 4),  # given twice: merged
              req + tag(11, 3) + vf(12, 1) + tag(11, 4) + tag(11, 3) + tag(11, 4),  # repeated group items
              req + tag(8, 3) + tag(20, 3) + vf(1, 1) + tag(20, 4) + tag(8, 4),  # an unknown group inside
              req + tag(8, 3) + vf(9, 1) + tag(9, 4),  # an end tag of another number
              req + tag(8, 3) + vf(9, 1),  # no end tag
              req + tag(8, 4)]  # an end tag with no start
    check_like_runtime(L.Legacy, bodies)


# ------------------------------------------------------------------------------------------- occurrences
def test_singular_field_given_twice_the_last_wins(pb):
    T = pb.types
    bodies = [vf(3, 1) + vf(3, 2) + vf(3, -3), lf(14, b"a") + lf(14, b"b"), vf(17, 0) + vf(17, 4),
              tag(1, 1) + struct.pack("<d", 1.5) + tag(1, 1) + struct.pack("<d", -2.5),
              vf(16, 1) + vf(16, 99)]
    check_like_runtime(T.Scalars, bodies)


def test_singular_message_field_given_twice_is_merged(pb):
    T = pb.types
    one_a = lf(1, b"a") + vf(3, 1) + lf(4, vf(1, 1)) + lf(5, b"")
    one_b = vf(2, 2) + vf(3, 2) + lf(4, lf(2, b"r")) + lf(5, vf(1, 1))
    local = lf(3, lf(1, b"t") + lf(2, one_a)) + vf(5, 1) + lf(3, lf(2, one_b))
    check_like_runtime(T.Nested, [lf(1, one_a) + lf(1, one_b), lf(1, one_a) + vf(5, 3) + lf(1, one_b) + lf(1, b""),
                                  local])


@pytest.mark.parametrize("times", [8, 9, 40])
def test_singular_message_field_given_many_times_is_merged(pb, times):
    # concatenated serialized messages are a valid message: every occurrence of a message field merges
    T = pb.types
    body = b"".join(lf(1, vf(3, i) + (lf(1, b"n%d" % i) if i % 2 else b"")) for i in range(times))
    check_like_runtime(T.Nested, [body])


def test_unknown_fields_are_skipped(pb):
    T = pb.types
    unknown = (vf(1000, 5) + lf(1001, b"xyz") + tag(1002, 1) + b"8bytes!!" + tag(1003, 5) + b"4byt"
               + tag(1004, 3) + vf(1, 1) + lf(2, b"inner") + tag(1004, 4) + vf(536870910, 1))
    check_like_runtime(T.Nested, [unknown, unknown + vf(5, 4) + unknown, lf(1, unknown + vf(2, 3)) + unknown])


def test_deeply_nested_unknown_groups(pb):
    # both parsers bound nesting at 100 groups (protobuf's default recursion limit)
    bodies = [tag(100, 3) * d + vf(1, 1) + tag(100, 4) * d for d in (1, 99, 100, 101, 1000)]
    out = check_like_runtime(pb.types.Scalars, bodies)
    assert [e is None for e in out.errors.to_pylist()] == [True, True, True, False, False]


def test_projection_keeps_oneof_semantics(pb, tmp_path):
    # A scan of value.<field> decodes only that field (ProtobufPlan(fields=...)). A oneof member followed by
    # another member of its oneof is cleared, whether or not the other member is in the projection: the
    # projected column must equal the same field of the whole value.
    T = pb.types
    bodies = [vf(1, 5) + lf(2, b"s"), lf(2, b"s") + vf(1, 5), vf(1, 5), lf(3, b"") + vf(4, 1)]
    idx = indexes_of(T.Oneofs.DESCRIPTOR)
    root = str(tmp_path / "data")
    with LogManager(root) as mgr:
        (log,) = mgr.create_topic("t", 1)
        log.append([Record(None, framed(b, indexes=idx), 1000) for b in bodies])
    opts = {"value_format": "registry", "schemas": text_source(), "value_message": "Oneofs"}
    whole = kvlog.scan(root, "t", columns=["value"], **opts).read_all().column("value").to_pylist()
    assert [r["c_int"] for r in whole] == [None, 5, 5, None]
    for field in ("c_int", "c_message"):
        part = kvlog.scan(root, "t", columns=[f"value.{field}"], **opts).read_all().column(0).to_pylist()
        assert part == [r[field] for r in whole], field


#: well-formed content of each wire type (varint, 64-bit, length-delimited, 32-bit)
WIRE_CONTENT = {0: varint(300), 1: b"\x01" * 8, 2: varint(3) + b"abc", 5: b"\x02" * 4}


@pytest.mark.parametrize("number", [1, 2, 3, 5, 6, 7, 9, 10, 13, 14, 15, 16, 17, 33, 36, 39, 44, 46, 50])
def test_wire_type_mismatch_is_an_unknown_field(pb, number):
    # each field given with every other wire type (and well-formed content): protobuf keeps it as an unknown
    # field; a valid occurrence before or after is the value
    T = pb.types
    fd = T.Scalars.DESCRIPTOR.fields_by_number[number]
    one = {FD.TYPE_STRING: "s", FD.TYPE_BYTES: b"b"}.get(fd.type, 1)
    good = T.Scalars(**{fd.name: [one] if fd.is_repeated else one}).SerializeToString()
    bodies = []
    for wt, content in WIRE_CONTENT.items():
        odd = tag(number, wt) + content
        bodies += [odd, good + odd, odd + good]
    check_like_runtime(T.Scalars, bodies)


def test_message_field_given_as_group_or_scalar(pb):
    T = pb.types
    inner = lf(1, b"a")
    bodies = [tag(1, 3) + inner + tag(1, 4), vf(1, 5), tag(1, 5) + b"abcd", lf(1, inner) + vf(1, 5),
              lf(2, inner) + tag(2, 1) + b"12345678"]
    check_like_runtime(T.Nested, bodies)


def test_varint_edges(pb):
    T = pb.types
    five = tag(3, 0) + b"\xff\xff\xff\xff\x0f"  # an int32 -1 written in 5 bytes (some writers do)
    ten = tag(3, 0) + b"\xff" * 9 + b"\x01"
    padded = tag(13, 0) + b"\x81\x80\x80\x80\x00"  # bool 1, padded with zero groups
    wide_bool = tag(13, 0) + varint(256)  # a bool of another value than 0 or 1: true
    wide_u32 = tag(5, 0) + varint(2**40 + 7)  # an uint32 past 32 bits: truncated
    check_like_runtime(T.Scalars, [five, ten, padded, wide_bool, wide_u32])


def test_field_number_zero_and_bad_wire_types_are_refused(pb):
    T = pb.types
    bodies = [vf(0, 1), tag(3, 6) + b"\0", tag(3, 7) + b"\0", tag(3, 4), b"\x80", b"\xff" * 11,
              vf(3, 1) + tag(2**29, 0) + b"\0"]
    out = decode(text_source(), [framed(b) for b in bodies], errors="null")
    assert out.values.to_pylist() == [None] * len(bodies)
    for b in bodies:
        with pytest.raises(DecodeError):
            T.Scalars.FromString(b)


# ---------------------------------------------------------------------------------------- references
@pytest.mark.parametrize("form", ["base64", "text"])
def test_imports_through_references(pb, form):
    Order, C = pb.order.Order, pb.common
    m = Order(id="o1", total=C.Money(currency=C.USD, units=-(2**63), nanos=-999_999_999),
              parts=[C.Money(), C.Money(currency=5, units=1)], currency=C.EUR)
    m.by_name["a"].units = 3
    m.at.FromNanoseconds(1)
    payloads, client = serialize([Order(), m])
    r = client.get_latest_version("t-value")
    assert [x.name for x in r.schema.references] == ["kvtest_common.proto"]
    src = mapping(client, form)
    out = decode(src, payloads)
    back = [ProtobufDeserializer(Order, CONF)(p, CTX) for p in payloads]
    assert [observed(Order.DESCRIPTOR, x) for x in rows(out.values)] == [expected(x) for x in back]


def test_reference_as_a_mapping_entry(pb):
    # the brief's shape: a dict entry with references, the referenced file under a subject of its own
    src = SchemaMapping({7: ("PROTOBUF", PROTOS["kvtest_common.proto"]),
                         8: {"schema": PROTOS["kvtest_order.proto"], "schemaType": "PROTOBUF",
                             "references": [{"name": "kvtest_common.proto", "subject": "common", "version": 1}]}},
                        subjects={"common": [7], "t-value": [8]})
    Order, C = pb.order.Order, pb.common
    body = Order(total=C.Money(currency=C.EUR, units=5)).SerializeToString()
    out = decode(src, [framed(body, 8)])
    assert out.values.to_pylist()[0]["total"] == {"currency": "EUR", "units": 5, "nanos": 0}


def test_missing_reference_is_an_error(pb):
    src = SchemaMapping({8: {"schema": PROTOS["kvtest_order.proto"], "schemaType": "PROTOBUF",
                             "references": [{"name": "kvtest_common.proto", "subject": "common", "version": 1}]}},
                        subjects={"t-value": [8]})
    with pytest.raises(SchemaError):
        ProtobufPlan(src.version("t-value"), src)
    alone = SchemaMapping({8: ("PROTOBUF", PROTOS["kvtest_order.proto"])}, subjects={"t-value": [8]})
    with pytest.raises(SchemaError):  # an import that no reference provides
        ProtobufPlan(alone.version("t-value"), alone)


# ------------------------------------------------------------------------------------------ indexes
def test_message_indexes_select_a_nested_message(pb):
    T = pb.types
    Innermost = T.Outer.Middle.Innermost
    msgs = [Innermost(), Innermost(v=I32[0], s="deep"), Innermost(v=-1)]
    payloads, client = serialize(msgs)
    top = [m.name for m in T.DESCRIPTOR.message_types_by_name.values()].index("Outer")
    assert all(p[5:9] == bytes([6, top * 2, 0, 0]) for p in payloads)  # count 3, then [Outer, Middle, Innermost]
    for form in ("base64", "text"):
        out = decode(mapping(client, form), payloads, message="kvtest.types.Outer.Middle.Innermost")
        assert out.values.to_pylist() == [{"v": 0, "s": ""}, {"v": I32[0], "s": "deep"}, {"v": -1, "s": ""}]


def test_first_message_index_written_either_way(pb):
    # [0] is written as one 0 byte by Confluent's serializers; the long form (count 1, index 0) means the same
    src = text_source()
    body = pb.types.Scalars(f_int32=5).SerializeToString()
    long_form = b"\0" + struct.pack(">i", 1) + b"\x02\x00" + body
    assert decode(src, [framed(body), long_form]).values.field("f_int32").to_pylist() == [5, 5]


def test_payload_of_another_message_than_the_readers(pb):
    T = pb.types
    payloads, client = serialize([T.Outer.Middle.Innermost(v=1)])
    src = mapping(client, "base64")
    with pytest.raises(DeserializationError, match="Innermost"):
        decode(src, payloads)
    out = decode(src, payloads, errors="null")
    assert out.values.to_pylist() == [None] and "Innermost" in out.errors[0].as_py()


@pytest.mark.parametrize("indexes", [(99,), (0, 0), (7, 0, 5), (-1,), (7, -2)])  # (7: Outer)
def test_indexes_naming_no_message(pb, indexes):
    out = decode(text_source(), [framed(b"", indexes=indexes), framed(b"")], errors="null")
    assert out.values.to_pylist()[0] is None and out.errors[0].as_py()
    assert out.values.to_pylist()[1] is not None  # (the next record is read)
    with pytest.raises(DeserializationError):
        decode(text_source(), [framed(b"", indexes=indexes)])


@pytest.mark.parametrize("message", ["Recursive", "Ping", "Pong"])
def test_recursive_message_is_a_schema_error(pb, message):
    src = text_source()
    with pytest.raises(SchemaError, match="contains itself"):
        ProtobufPlan(src.version("t-value"), src, message=message)


def test_unknown_message_name_is_a_schema_error(pb):
    with pytest.raises(SchemaError, match="no message"):
        ProtobufPlan(text_source().version("t-value"), text_source(), message="Nope")


# ------------------------------------------------------------------------------------------ versions
@pytest.mark.parametrize("form", ["base64", "text"])
def test_two_versions_read_with_the_latest(pb, reading_v1, form):
    V2 = pb.reading.Reading
    v1 = [reading_v1(sensor="a", value=1.5, retired=-4), reading_v1()]
    v2 = [V2(sensor="b", value=-0.5, unit="C", note="n"), V2(unit="")]
    p1, client = serialize(v1)
    p2, _ = serialize(v2, client)
    src = mapping(client, form)
    assert [x.id for x in (src.version("t-value", 1), src.version("t-value", 2))] == [1, 2]
    payloads = p1 + p2
    out = decode(src, payloads)
    assert out.schema_ids.to_pylist() == [1, 1, 2, 2]
    # v1's field 4 (an int32) is a wire-type mismatch for v2's string note: unknown, so note is empty
    back = [ProtobufDeserializer(V2, CONF)(p, CTX) for p in payloads]
    assert [observed(V2.DESCRIPTOR, r) for r in rows(out.values)] == [expected(m) for m in back]
    assert out.values.to_pylist()[0] == {"sensor": "a", "value": 1.5, "unit": None, "note": ""}
    # and version 1 as the reader: v2's unit is unknown, its note a mismatch
    old = decode(src, payloads, version=1)
    back = [ProtobufDeserializer(reading_v1, CONF)(p, CTX) for p in payloads]
    assert [observed(reading_v1.DESCRIPTOR, r) for r in rows(old.values)] == [expected(m) for m in back]


def test_unknown_schema_id(pb):
    out = decode(text_source(), [framed(b"", sid=99), framed(b"")], errors="null")
    assert out.values.to_pylist()[0] is None and "unknown schema id 99" in out.errors[0].as_py()
    with pytest.raises(DeserializationError, match="99") as info:
        decode(text_source(), [framed(b""), framed(b"", sid=99)])
    assert (info.value.offset, info.value.schema_id) == (1, 99)


# -------------------------------------------------------------------------------------------- damage
def rich_bodies(pb):
    T, L = pb.types, pb.legacy
    return {T.Scalars: scalar_messages(T)[2].SerializeToString() + scalar_messages(T)[4].SerializeToString(),
            T.Nested: nested_messages(T)[2].SerializeToString() + nested_messages(T)[3].SerializeToString(),
            T.Maps: map_messages(T)[1].SerializeToString(), T.Oneofs: oneof_messages(T)[3].SerializeToString(),
            T.WellKnown: wkt_messages(T)[1].SerializeToString(), L.Legacy: legacy_messages(L)[1].SerializeToString()}


def test_every_truncation(pb):
    for cls, body in rich_bodies(pb).items():
        check_like_runtime(cls, [body[:n] for n in range(len(body))], strict=False)


def test_truncated_prefix(pb):
    # the magic byte, id and message indexes cut short (or another magic byte): a null and a reason
    Innermost = pb.types.Outer.Middle.Innermost
    whole = framed(Innermost(v=1).SerializeToString(), indexes=indexes_of(Innermost.DESCRIPTOR))
    payloads = [whole[:n] for n in range(9)] + [b"\x02" + whole[1:], whole]
    out = decode(text_source(), payloads, message="Outer.Middle.Innermost", errors="null")
    assert out.values.to_pylist() == [None] * 10 + [{"v": 1, "s": ""}]
    assert all(out.errors.to_pylist()[:10])


@given(st.data())
def test_random_damage(pb, data):
    bodies = rich_bodies(pb)
    cls = data.draw(st.sampled_from(sorted(bodies, key=lambda c: c.DESCRIPTOR.full_name)))
    body = bytearray(bodies[cls])
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(body) - 1))
        how = data.draw(st.sampled_from(["flip", "byte", "insert", "delete"]))
        if how == "flip":
            body[at] ^= 1 << data.draw(st.integers(0, 7))
        elif how == "byte":
            body[at] = data.draw(st.integers(0, 255))
        elif how == "insert":
            body[at:at] = data.draw(st.binary(min_size=1, max_size=4))
        elif len(body) > 1:
            del body[at]
    check_like_runtime(cls, [bytes(body)], strict=False)


def test_errors_raise_names_the_record(pb):
    body = pb.types.Scalars(f_string="x").SerializeToString()
    payloads = [framed(body), framed(body[:-1])]
    with pytest.raises(DeserializationError) as info:
        decode(text_source(), payloads)
    assert (info.value.topic, info.value.partition, info.value.offset) == ("t", 0, 1)
    out = decode(text_source(), payloads, errors="null")
    assert out.failures == 1 and "truncated" in out.errors[1].as_py()


# ------------------------------------------------------------------------------------------- scans
def test_scan_registry_and_bare_protobuf(pb, tmp_path):
    T = pb.types
    msgs = nested_messages(T)
    payloads, client = serialize(msgs)
    src = mapping(client, "text")
    root = str(tmp_path / "data")
    bare = [m.SerializeToString() for m in msgs]
    with LogManager(root) as mgr:
        (framed_log,) = mgr.create_topic("t", 1)
        framed_log.append([Record(None, p, 1000 + i) for i, p in enumerate(payloads)])
        framed_log.append([Record(None, b"junk", 2000), Record(None, None, 2001)])
        (bare_log,) = mgr.create_topic("b", 1)
        bare_log.append([Record(None, p, 1000) for p in bare])
    want = [expected(m) for m in msgs]
    got = kvlog.scan(root, "t", value_format="registry", schemas=src, value_message="Nested",
                     errors="null").read_all()
    assert [observed(T.Nested.DESCRIPTOR, r) for r in rows(got.column("value").combine_chunks())] == [
        *want, None, None]
    assert got.column("valueSchemaId").to_pylist()[:4] == [1] * 4
    assert [e is None for e in got.column("valueError").to_pylist()] == [True] * 4 + [False, True]
    with pytest.raises(DeserializationError):
        kvlog.scan(root, "t", value_format="registry", schemas=src, value_message="Nested").read_all()
    got = kvlog.scan(root, "b", value_format="protobuf", value_schema=PROTOS["kvtest_types.proto"],
                     value_message="kvtest.types.Nested").read_all()
    assert [observed(T.Nested.DESCRIPTOR, r) for r in rows(got.column("value").combine_chunks())] == want
