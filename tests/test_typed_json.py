"""Typed topics, JSON: kvlog's decoder (kvlog.schemas.json_plan, csrc/json.c) against Confluent's JSON Schema
serializer and deserializer, ``json.loads`` and DuckDB's ``read_json_auto``.

Registry payloads are written by confluent-kafka's JSONSerializer (which validates them) into its mock
registry and read back by its JSONDeserializer; schemaless payloads are checked against ``json.loads`` of
their bytes, and the types kvlog infers against DuckDB's on the same documents. Values are compared after one
normalisation each way, guided by the plan's JType (the Arrow types themselves are asserted separately).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import struct
from itertools import count

import duckdb
import pyarrow as pa
import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import LogManager, Record
from kvlog.errors import DeserializationError, SchemaError
from kvlog.schemas import json_plan
from kvlog.schemas.decoding import ColumnDecoder
from kvlog.schemas.plans import JsonPlan
from kvlog.schemas.registry import RegisteredSchema, SchemaMapping

CTX = SerializationContext("t", MessageField.VALUE)
EXTRA = json_plan.EXTRA
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
I64 = (-(2**63), 2**63 - 1)
_registries = count()


# ------------------------------------------------------------------------------------------- helpers
def new_client():
    return SchemaRegistryClient.new_client({"url": f"mock://typed-json-{next(_registries)}"})


def mapping(client):
    """The mock registry's schemas as a SchemaMapping (ids, subjects, references)."""
    schemas, subjects = {}, {}
    for subject in client.get_subjects():
        for v in sorted(client.get_versions(subject)):  # (the mock lists them in any order)
            r = client.get_version(subject, v)
            refs = [{"name": x.name, "subject": x.subject, "version": x.version} for x in r.schema.references]
            schemas[r.schema_id] = {"schema": r.schema.schema_str, "schemaType": "JSON", "references": refs}
            subjects.setdefault(subject, []).append(r.schema_id)
    return SchemaMapping(schemas, subjects=subjects)


def serialize(schema, docs, client=None, references=()):
    """Confluent's framed payloads of ``docs`` (validated against ``schema``), the source and the schema."""
    client = client or new_client()
    sch = Schema(json.dumps(schema), "JSON", references=list(references))
    ser = JSONSerializer(sch, client)
    return [ser(d, CTX) for d in docs], mapping(client), sch, client


def run(plan, payloads, errors="raise", wire="registry", source=None):
    bare = plan.bare_program() if wire == "bare" else None
    dec = ColumnDecoder(plan, wire=wire, errors=errors, bare_program=bare, source=source)
    return dec.decode(pa.array(payloads, pa.binary()), offsets=list(range(len(payloads))), topic="t", partition=0)


def schema_plan(schema, source=None, sid=1):
    return JsonPlan.from_registered(RegisteredSchema(sid, "JSON", json.dumps(schema)), source)


def inferred(docs):
    """The plan inferred from payloads (bytes), as schemaless JSON is read."""
    return JsonPlan(json_plan.infer(docs))


def framed(raw, sid=1):
    return b"\0" + struct.pack(">i", sid) + raw


def rfc3339(s):
    """kvlog's documented reading of an RFC 3339 date-time: 't'/'z'/' ' as 'T'/'Z', a leap second as :59, the
    fraction cut to microseconds (Python 3.11's fromisoformat does the rest)."""
    s = s[:10] + "T" + s[11:].upper()
    if s[17:19] == "60":
        s = s[:17] + "59" + s[19:]
    return dt.datetime.fromisoformat(s).astimezone(dt.timezone.utc)


def expected(v, t):
    """A json.loads value as kvlog's row of JType ``t`` (maps as dicts; raw JSON text as its parsed value)."""
    if v is None:
        return None
    k = t.kind
    if k == "envelope":
        return expected(v["payload"], t.item)
    if k == "object":
        out = {n: expected(v.get(n), ft) for n, ft in t.fields}
        if t.extra:
            out[EXTRA] = {key: x for key, x in v.items() if key not in dict(t.fields)} or None
        return out
    if k == "array":
        return [expected(x, t.item) for x in v]
    if k == "map":
        return {key: expected(x, t.item) for key, x in v.items()}
    if k == "int" and t.unit == "date32":
        return dt.date(1970, 1, 1) + dt.timedelta(days=v)
    if k == "int" and t.unit == "time32[ms]":
        return (dt.datetime.min + dt.timedelta(milliseconds=v)).time()
    if k == "int" and t.unit == "timestamp[ms]":
        return EPOCH + dt.timedelta(milliseconds=v)
    if k == "int":
        return int(v)
    if k == "number":
        return struct.unpack("<f", struct.pack("<f", v))[0] if t.width == 4 else float(v)
    if k == "timestamp":
        return rfc3339(v)
    if k == "date":
        return dt.date.fromisoformat(v)
    if k == "base64":
        return base64.b64decode(v)
    if k == "decimal":
        return decimal.Decimal(int.from_bytes(base64.b64decode(v), "big", signed=True)).scaleb(-t.scale)
    return v  # string, bool, raw


def observed(r, t):
    """kvlog's row in expected()'s shape: struct fields in order, no map key twice, raw text parsed."""
    if r is None:
        return None
    k = t.kind
    if k == "envelope":
        return observed(r, t.item)
    if k == "object":
        names = [n for n, _ in t.fields] + ([EXTRA] if t.extra else [])
        assert list(r) == names
        out = {n: observed(r[n], ft) for n, ft in t.fields}
        if t.extra:
            out[EXTRA] = None if r[EXTRA] is None else json.loads(r[EXTRA])
        return out
    if k == "array":
        return [observed(x, t.item) for x in r]
    if k == "map":
        keys = [key for key, _ in r]
        assert len(set(keys)) == len(keys), f"a map with a key given twice: {keys}"
        return {key: observed(x, t.item) for key, x in r}
    if k == "raw":
        return json.loads(r)
    return r


def check_docs(plan, payloads, texts, wire="registry", source=None):
    """Every payload decodes to expected(json.loads(its JSON text)) (a null payload: null)."""
    out = run(plan, payloads, wire=wire, source=source)
    assert out.failures == 0
    got = [observed(r, plan.projected) for r in out.values.to_pylist()]
    assert got == [None if x is None else expected(json.loads(x), plan.projected) for x in texts]
    return out


# --------------------------------------------------------------------------------------- JSON Schema
ORDER = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "definitions": {
        "money": {"type": "object", "properties": {"units": {"type": "integer"},
                                                   "currency": {"type": "string", "enum": ["EUR", "USD"]}}},
    },
    "properties": {
        "id": {"type": "string"},
        "n": {"type": "integer"},
        "x": {"type": "number"},
        "ok": {"type": "boolean"},
        "maybe": {"type": ["string", "null"]},
        "any_of": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
        "one_of": {"oneOf": [{"type": "number"}, {"type": "null"}]},
        "at": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "total": {"$ref": "#/definitions/money"},
        "parts": {"type": "array", "items": {"$ref": "#/definitions/money"}},
        "nested": {"type": "object", "properties": {"deep": {"type": "object", "properties": {
            "v": {"type": "number"}, "w": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}}}},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "free": {"type": "object"},
        "mixed": {"type": ["integer", "string"]},
        "num_or_int": {"type": ["integer", "number"]},
        "kind": {"enum": ["a", "b"]},
        "code": {"const": 3},
        "nothing": {"type": "null"},
        "opt_items": {"type": "array", "items": {"type": ["integer", "null"]}},
        "maybe_at": {"type": ["null", "string"], "format": "date-time"},
    },
    "required": ["id"],
}

ORDER_TYPE = pa.struct([
    ("id", pa.string()), ("n", pa.int64()), ("x", pa.float64()), ("ok", pa.bool_()), ("maybe", pa.string()),
    ("any_of", pa.int64()), ("one_of", pa.float64()), ("at", pa.timestamp("us", tz="UTC")), ("day", pa.date32()),
    ("tags", pa.list_(pa.field("element", pa.string()))),
    ("total", pa.struct([("units", pa.int64()), ("currency", pa.string())])),
    ("parts", pa.list_(pa.field("element", pa.struct([("units", pa.int64()), ("currency", pa.string())])))),
    ("nested", pa.struct([("deep", pa.struct([("v", pa.float64()), ("w", pa.list_(pa.field(
        "element", pa.list_(pa.field("element", pa.int64())))))]))])),
    ("counts", pa.map_(pa.string(), pa.field("value", pa.int64()))), ("free", pa.string()), ("mixed", pa.string()),
    ("num_or_int", pa.float64()), ("kind", pa.string()), ("code", pa.int64()), ("nothing", pa.null()),
    ("opt_items", pa.list_(pa.field("element", pa.int64()))), ("maybe_at", pa.timestamp("us", tz="UTC")),
])

ORDERS = [
    {"id": ""},
    {"id": "zürich 😀 \u0000 \"q\" \\ /", "n": I64[0], "x": -0.0, "ok": False, "maybe": None, "any_of": None,
     "one_of": None, "at": "1969-12-31T23:59:59.999999Z", "day": "0001-01-01", "tags": [], "total": {},
     "parts": [], "nested": {}, "counts": {}, "free": {}, "mixed": 0, "num_or_int": 0, "kind": "a", "code": 3,
     "nothing": None},
    {"id": "x", "n": I64[1], "x": 1.7976931348623157e308, "ok": True, "maybe": "m", "any_of": -1, "one_of": 5,
     "at": "2024-02-29T12:00:00.5+05:30", "day": "2024-02-29", "tags": ["a", "", "😀"],
     "total": {"units": 5, "currency": "EUR"}, "parts": [{"units": 1}, {"currency": "USD"}, {}],
     "nested": {"deep": {"v": 5e-324, "w": [[1, 2], [], [I64[0]]]}}, "counts": {"a": 1, "": I64[1], "é": -2},
     "free": {"k": [1, {"z": None}], "s": "t"}, "mixed": "text", "num_or_int": 2.5, "kind": "b", "code": 3,
     "opt_items": [None, 1, None], "maybe_at": "2024-01-01T00:00:00Z"},
    {"id": "y", "x": 3, "num_or_int": 7, "n": 4.0, "unknown": {"skipped": [1, 2]}, "at": "2000-01-01T00:00:00-00:00",
     "nested": {"deep": {}}, "mixed": 1, "opt_items": [], "maybe_at": None},
]


def test_json_schema_arrow_types():
    assert schema_plan(ORDER).arrow_type == ORDER_TYPE


def test_json_schema_values_like_confluents_deserializer():
    payloads, src, sch, _ = serialize(ORDER, ORDERS)
    plan = JsonPlan.from_registered(src.version("t-value"), src)
    out = run(plan, payloads, source=src)
    back = [JSONDeserializer(sch)(p, CTX) for p in payloads]
    assert back == ORDERS  # (the oracle round-trips)
    assert [observed(r, plan.projected) for r in out.values.to_pylist()] == [expected(d, plan.projected) for d in back]
    assert out.schema_ids.to_pylist() == [1] * len(ORDERS)
    row = out.values.to_pylist()[3]
    # integer 4.0 is an integer, number 3 a float; unknown keys are skipped (no additionalProperties field)
    assert (row["n"], row["x"], row["num_or_int"]) == (4, 3.0, 7.0) and EXTRA not in row


def test_additional_properties_true_keeps_the_extra_keys_as_json():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "o": {"type": "object", "properties": {
        "b": {"type": "string"}}, "additionalProperties": True}}, "additionalProperties": True}
    docs = [{"a": 1}, {"a": 2, "x": [1, {"y": None}], "z": "é \"q\""}, {"o": {"b": "s", "c": 1.5}, "k": True},
            {"x": {}, "w": -0.0}]
    payloads, src, _, _ = serialize(schema, docs)
    plan = JsonPlan.from_registered(src.version("t-value"), src)
    assert plan.arrow_type == pa.struct([("a", pa.int64()), ("o", pa.struct([("b", pa.string()), (EXTRA, pa.string())])),
                                         (EXTRA, pa.string())])
    out = check_docs(plan, payloads, [p[5:] for p in payloads], source=src)
    assert [r[EXTRA] for r in out.values.to_pylist()][:2] == [None, '{"x":[1,{"y":null}],"z":"é \\"q\\""}']


def test_additional_properties_keep_escaped_keys_and_whitespace_as_written():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": True}
    texts = [b'{ "\\u0061" : 1 , "\\ud83d\\ude00" :\t[ 1 , 2 ] ,"b\\"":"\\/"}', b'{"a":1,"\\u00e9":{"x":null}}']
    out = check_docs(schema_plan(schema), [framed(t) for t in texts], texts)
    assert out.values.to_pylist()[0] == {"a": 1, EXTRA: '{"\\ud83d\\ude00" :\t[ 1 , 2 ],"b\\"":"\\/"}'}


def test_additional_properties_must_be_utf8():
    # the extra keys' text goes to a string column: invalid UTF-8 in it is not JSON (RFC 8259 section 8.1)
    # and must fail the record, never reach Arrow as a string that is not UTF-8
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": True}
    texts = [b'{"a":1,"x":"\xff"}', b'{"a":1,"\xfe":2}', b'{"a":1,"x":["\xc3"]}']
    out = run(schema_plan(schema), [framed(t) for t in texts], errors="null")
    out.values.validate(full=True)
    assert out.values.to_pylist() == [None] * 3 and all(out.errors.to_pylist())


def test_skipped_values_must_be_utf8():
    # a key the schema does not name is skipped, but the payload must still be JSON (UTF-8, RFC 8259)
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    texts = [b'{"a":1,"x":"\xff"}', b'{"\xfe":2,"a":1}', b'{"a":1,"x":{"y":["\xc3\x28"]}}']
    for t in texts:
        with pytest.raises(UnicodeDecodeError):
            json.loads(t)
    out = run(schema_plan(schema), [framed(t) for t in texts], errors="null")
    assert out.values.to_pylist() == [None] * 3 and all(out.errors.to_pylist())


def test_all_of_merges_and_refs_in_defs():
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$defs": {"base": {"type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}},
                        "more": {"type": "object", "properties": {"b": {"$ref": "#/$defs/leaf"}}},
                        "leaf": {"type": "array", "items": {"type": "boolean"}}},
              "allOf": [{"$ref": "#/$defs/base"}, {"$ref": "#/$defs/more"},
                        {"type": "object", "properties": {"c": {"type": "number"}}}]}
    docs = [{"a": 1, "b": [True, False], "c": 1}, {"s": "x"}, {}]
    payloads, src, _, _ = serialize(schema, docs)
    plan = JsonPlan.from_registered(src.version("t-value"), src)
    assert [f.name for f in plan.arrow_type] == ["a", "s", "b", "c"]
    assert plan.arrow_type.field("b").type == pa.list_(pa.field("element", pa.bool_()))
    check_docs(plan, payloads, [p[5:] for p in payloads], source=src)


def test_references_to_other_registered_schemas():
    client = new_client()
    money = {"type": "object", "properties": {"units": {"type": "integer"}, "currency": {"type": "string"}}}
    client.register_schema("money", Schema(json.dumps(money), "JSON"))
    schema = {"type": "object", "properties": {"total": {"$ref": "money.json"}, "parts": {
        "type": "array", "items": {"$ref": "money.json#"}}}}
    docs = [{"total": {"units": 5, "currency": "EUR"}, "parts": [{"units": -1}]}, {}]
    payloads, src, sch, _ = serialize(schema, docs, client, [SchemaReference("money.json", "money", 1)])
    plan = JsonPlan.from_registered(src.version("t-value"), src)
    assert plan.arrow_type.field("total").type == pa.struct([("units", pa.int64()), ("currency", pa.string())])
    out = check_docs(plan, payloads, [p[5:] for p in payloads], source=src)
    back = [JSONDeserializer(sch, schema_registry_client=client)(p, CTX) for p in payloads]
    assert [observed(r, plan.projected) for r in out.values.to_pylist()] == [expected(d, plan.projected) for d in back]
    with pytest.raises(SchemaError):  # a $ref to a schema that is not referenced
        schema_plan(schema)


@pytest.mark.parametrize("schema, docs", [
    ({"type": "array", "items": {"type": "number"}}, [[1, 2.5], [], None]),
    ({"type": ["string", "null"]}, ["a", None, ""]),
    ({"type": "integer"}, [0, I64[1], None]),
    ({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "boolean"}}},
     [{"a": [True]}, {}, {"": [], "é": [False, True]}]),
])
def test_top_level_schemas_other_than_objects(schema, docs):
    payloads, src, _, _ = serialize(schema, docs)  # (None: a null payload, as Confluent's serializer writes it)
    check_docs(JsonPlan.from_registered(src.version("t-value"), src), payloads,
               [p and p[5:] for p in payloads], source=src)


def test_recursive_ref_ends_in_json_text():
    # (json_plan's notes say a recursive $ref is its JSON text; the plan unrolls it once, then the text)
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}}
    plan = schema_plan(schema)
    texts = [b'{"name":"a","child":{"name":"b","child":{"child":null}}}', b'{"child":null}']
    check_docs(plan, [framed(t) for t in texts], texts)
    t = plan.arrow_type
    while pa.types.is_struct(t):
        t = t.field("child").type
    assert t == pa.string()


# --------------------------------------------------------------------------------------- wrong input
WRONG = [
    b'{"n":"1"}', b'{"n":1.5}', b'{"n":true}', b'{"x":"1.0"}', b'{"ok":1}', b'{"ok":"true"}', b'{"id":1}',
    b'{"tags":"a"}', b'{"tags":[1]}', b'{"tags":{}}', b'{"total":[]}', b'{"total":{"units":"5"}}', b'[]', b'1',
    b'"s"', b'true', b'{"at":"yesterday"}', b'{"day":"2023-02-29"}', b'{"day":"2024-01-02T00:00:00Z"}',
    b'{"counts":{"a":"b"}}', b'{"counts":[]}', b'{"nested":{"deep":{"w":[1]}}}', b'{"nothing":0}',
    b'{"n":18446744073709551615}', b'{"n":-9223372036854775809}', b'{"n":1e19}',
]
NOT_JSON = [
    b"", b" ", b"{", b"}", b'{"id"}', b'{"id":}', b'{"id":"x",}', b'{,"id":"x"}', b'{"id":"x"} x', b'{"id":"x"}{}',
    b"{'id':'x'}", b'{"id":"x\n"}', b'{"id":"\\x"}', b'{"id":"\\u12"}', b'{"n":01}', b'{"n":1.}', b'{"n":.5}',
    b'{"n":+1}', b'{"n":-}', b'{"n":1e}', b'{"x":NaN}', b'{"x":Infinity}', b'{"ok":tru}', b'{"ok":True}',
    b'{"id":"x"', b'{"tags":["a",]}', b'{"tags":["a" "b"]}', b'{"id":"\xff"}', b'\xef\xbb\xbf{"id":"x"}',
    b'{"id":"\\ud800"}', b'{"id":"\\udc00\\ud800"}', b"nul", b'{"id":"x"}\x00', b"{\"id\":\"x\" /* c */}",
]


@pytest.mark.parametrize("errors", ["raise", "null"])
def test_wrong_types_and_non_json_are_errors(errors):
    plan = schema_plan(ORDER)
    good = framed(b'{"id":"ok"}')
    for bad in WRONG + NOT_JSON:
        if errors == "raise":
            with pytest.raises(DeserializationError) as info:
                run(plan, [good, framed(bad)])
            assert info.value.offset == 1, bad
        else:
            out = run(plan, [good, framed(bad), good], errors="null")
            assert out.values.to_pylist() == [{**dict.fromkeys(ORDER["properties"]), "id": "ok"}, None,
                                              out.values.to_pylist()[0]], bad
            assert out.errors.to_pylist()[0] is None and out.errors.to_pylist()[1], bad


def test_the_oracle_refuses_the_wrong_input_too():
    # (what makes WRONG and NOT_JSON wrong: Confluent's deserializer refuses them as well; its json.loads
    # takes NaN, Infinity and a byte-order mark, and its validator knows no int64 range, no format by default)
    de = JSONDeserializer(json.dumps(ORDER))
    lenient = {b'{"x":NaN}', b'{"x":Infinity}', b'\xef\xbb\xbf{"id":"x"}', b'{"id":"\\ud800"}',
               b'{"id":"\\udc00\\ud800"}', b'{"n":18446744073709551615}', b'{"n":-9223372036854775809}',
               b'{"at":"yesterday"}', b'{"day":"2023-02-29"}', b'{"day":"2024-01-02T00:00:00Z"}', b'{"n":1e19}'}
    for bad in WRONG + NOT_JSON:
        if bad in lenient:
            continue
        with pytest.raises((SerializationError, ValueError)):
            de(framed(bad), CTX)


def test_duplicate_keys_are_refused():
    # json.loads keeps a key's last value; kvlog's documented rule refuses an object that repeats a key
    plan = schema_plan(ORDER)
    texts = [b'{"id":"a","id":"b"}', b'{"total":{"units":1,"units":2}}', b'{"id":"a","\\u0069d":"b"}']
    out = run(plan, [framed(t) for t in texts], errors="null")
    assert out.values.to_pylist() == [None] * 3
    assert all("twice" in e for e in out.errors.to_pylist())


def test_map_key_given_twice_keeps_one_entry():
    # objects typed as maps (additionalProperties: a schema) must not hold a key twice either: the Arrow map
    # keeps one entry per key (json.loads: the last value), or the record fails as an object does
    plan = schema_plan(ORDER)
    out = run(plan, [framed(b'{"counts":{"a":1,"a":2}}')], errors="null")
    row = out.values.to_pylist()[0]
    assert row is None or row["counts"] == [("a", 2)]


def test_integers_at_the_ends_of_int64():
    plan = schema_plan(ORDER)
    texts = [b'{"n":-9223372036854775808}', b'{"n":9223372036854775807}', b'{"n":-0}', b'{"n":1E2}', b'{"n":25e-1}',
             b'{"n":1.0e18}', b'{"n":-0.0}']
    out = run(plan, [framed(t) for t in texts], errors="null")
    assert [r and r["n"] for r in out.values.to_pylist()] == [*I64, 0, 100, None, 10**18, 0]


def test_numbers_as_python_reads_them():
    plan = schema_plan(ORDER)
    nums = ["0.1", "-0.0", "1e308", "1e309", "-1e400", "2.2250738585072014e-308", "4.9e-324", "2e-324",
            "123456789012345678901234567890", "0.30000000000000004", "1E+2", "9007199254740993"]
    texts = [b'{"x":%s}' % n.encode() for n in nums]
    out = run(plan, [framed(t) for t in texts])
    assert out.values.field("x").to_pylist() == [float(n) for n in nums]


RFC3339 = ["2024-01-02T03:04:05Z", "2024-01-02t03:04:05z", "2024-01-02 03:04:05+05:30", "1969-12-31T23:59:59.5Z",
           "2024-01-02T03:04:05.123456789-01:00", "2016-12-31T23:59:60Z", "0001-01-01T00:00:00Z",
           "9999-12-31T23:59:59.999999+23:59", "2024-02-29T00:00:00.1Z"]
NOT_RFC3339 = ["2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-01-02T03:04:05", "2024-01-02T03:04:05.Z",
               "2024-01-02T03:04Z", "2024-01-02T03:04:05+0100", "2024-01-02T24:00:00Z", "2024-1-02T03:04:05Z",
               "2024-01-02T03:04:05+24:00", "2024-01-02", "2024-01-02T03:04:05Zjunk", ""]


def test_date_times_and_dates():
    # RFC 3339 is what kvlog reads; Python's fromisoformat (the expected values) also takes the forms in
    # NOT_RFC3339 without an offset or seconds, which kvlog refuses as its documented rule
    plan = schema_plan(ORDER)
    out = run(plan, [framed(json.dumps({"at": s}).encode()) for s in RFC3339])
    assert out.values.field("at").to_pylist() == [rfc3339(s) for s in RFC3339]
    out = run(plan, [framed(json.dumps({"at": s}).encode()) for s in NOT_RFC3339], errors="null")
    assert out.values.to_pylist() == [None] * len(NOT_RFC3339)
    days = ["2024-02-29", "0001-01-01", "9999-12-31", "1970-01-01", "1969-12-31"]
    out = run(plan, [framed(json.dumps({"day": s}).encode()) for s in days])
    assert out.values.field("day").to_pylist() == [dt.date.fromisoformat(s) for s in days]


def test_strings_with_escapes_and_surrogate_pairs():
    plan = schema_plan(ORDER)
    raw = ['"\\u00e9\\u0000\\n\\t\\r\\b\\f\\/\\\\\\""', '"\\ud83d\\ude00 \\uD83D\\uDE00"', '"\\u20ac\\u0041"',
           '"\u00e9\U0001f600"', '"\\udbff\\udfff"']
    texts = [b'{"id":%s}' % r.encode() for r in raw]
    out = run(plan, [framed(t) for t in texts])
    assert out.values.field("id").to_pylist() == [json.loads(r) for r in raw]


def test_keys_with_escapes_match_their_fields():
    plan = schema_plan(ORDER)
    texts = [b'{"\\u0069\\u0064":"a","\\u006e":1}', b'{"t\\u0061gs":["x"],"to\\u0074al":{"\\u0075nits":2}}']
    check_docs(plan, [framed(t) for t in texts], texts)


# ----------------------------------------------------------------------------------- schemaless JSON
CORPUS = [
    {"id": 1, "name": "a", "score": 1.5, "ok": True, "tags": ["x", "y"], "nested": {"a": 1, "b": {"c": [1, 2]}},
     "items": [{"sku": "s1", "qty": 2}, {"sku": "s2", "price": 9.99}], "mixed": 1, "nothing": None,
     "when": "2024-01-02T03:04:05Z", "day": "2024-01-02", "empty": [], "unicode": "zürich 😀", "big": 2**63,
     "ints_floats": [1, 2]},
    {"id": 2, "score": 2, "ok": False, "tags": [], "nested": {"a": None, "d": "new"}, "items": [], "mixed": "two",
     "nothing": None, "when": "2024-01-03T00:00:00+01:00", "day": "2025-12-31", "empty": [],
     "extra": {"k": [True, None]}, "big": -1, "ints_floats": [0.5]},
    {"id": I64[0], "name": "c\n\"q\"\\", "mixed": {"x": 1}, "tags": None, "items": [{"qty": -1}],
     "num_arr": [1, 2.5, -0.0], "nested": {"b": {"c": [], "e": [[1], [2, 3]]}}},
]


def _duck_broad(t):
    """DuckDB's type in kvlog's broad kinds; where DuckDB legitimately differs it is mapped to kvlog's rule:
    a column only ever null is DuckDB's NULL type and kvlog's JSON text; DuckDB detects dates, times,
    timestamps and UUIDs in strings, kvlog keeps strings. DuckDB's HUGEINT (integers past int64, and also
    non-negative and negative integers together: its UBIGINT and BIGINT widen to HUGEINT) is kvlog's int64
    where every value fits, float64 where one does not (as Spark's JSON reader makes it a double)."""
    if str(t) == "JSON":  # (an alias of VARCHAR in DuckDB's Python types)
        return "raw"
    if t.id == "struct":
        return ("object", [(n, _duck_broad(c)) for n, c in t.children])
    if t.id == "list":
        return ("array", _duck_broad(t.children[0][1]))
    return {"bigint": "int", "double": "number", "varchar": "string", "boolean": "bool", "json": "raw",
            "null": "raw", "date": "string", "time": "string", "timestamp": "string", "timestamp with time zone":
            "string", "uuid": "string", "hugeint": "hugeint"}[t.id]


def _kv_broad(t):
    if t.kind == "object":
        return ("object", [(n, _kv_broad(f)) for n, f in t.fields])
    if t.kind == "array":
        return ("array", _kv_broad(t.item))
    return t.kind


def _agree(kv, duck):
    if duck == "hugeint":
        return kv in ("int", "number")
    if isinstance(duck, tuple) and isinstance(kv, tuple) and kv[0] == duck[0] == "array":
        return _agree(kv[1], duck[1])
    if isinstance(duck, tuple) and isinstance(kv, tuple) and kv[0] == duck[0] == "object":
        return [n for n, _ in kv[1]] == [n for n, _ in duck[1]] and all(
            _agree(a, b) for (_, a), (_, b) in zip(kv[1], duck[1]))
    return kv == duck


def _duck_types(docs, tmp_path):
    path = tmp_path / "docs.json"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    rel = duckdb.sql(f"SELECT * FROM read_json_auto('{path}')")
    return [(n, _duck_broad(t)) for n, t in zip(rel.columns, rel.types)]


def test_inferred_types_like_duckdb(tmp_path):
    kv = _kv_broad(json_plan.infer([json.dumps(d).encode() for d in CORPUS]))
    duck = ("object", _duck_types(CORPUS, tmp_path))
    assert _agree(kv, duck), (kv, duck)


@pytest.mark.parametrize("docs", [[1, 2], [1, 2.5], ["a"], [True, None], [[1], []], [{"a": 1}, [1]], [1, "a"],
                                  [[{"a": 1}], [{"b": [1.5]}]], [{"a": {"b": {"c": None}}}, {"a": {"b": {"c": 1}}}]])
def test_inferred_column_types_like_duckdb(docs, tmp_path):
    wrapped = [{"c": d} for d in docs]
    kv = _kv_broad(json_plan.infer([json.dumps(d).encode() for d in wrapped]))
    duck = ("object", _duck_types(wrapped, tmp_path))
    assert _agree(kv, duck), (kv, duck)


def test_inferred_arrow_types():
    t = JsonPlan(json_plan.infer([json.dumps(d).encode() for d in CORPUS])).arrow_type
    assert (t.field("id").type, t.field("score").type, t.field("mixed").type, t.field("nothing").type,
            t.field("big").type, t.field("empty").type) == (
        pa.int64(), pa.float64(), pa.string(), pa.string(), pa.float64(), pa.list_(pa.field("element", pa.string())))
    assert t.field("items").type == pa.list_(pa.field("element", pa.struct(
        [("sku", pa.string()), ("qty", pa.int64()), ("price", pa.float64())])))


def test_empty_objects_are_structs_without_fields():
    # DuckDB reads {} as MAP(VARCHAR, JSON); kvlog infers an object with no keys (an empty struct)
    texts = [b'{"c":{}}', b'{"c":{ }}', b'{"c":null}']
    plan = inferred(texts)
    assert plan.arrow_type == pa.struct([("c", pa.struct([]))])
    check_docs(plan, texts, texts, wire="bare")


def test_schemaless_values_like_json_loads():
    texts = [json.dumps(d).encode() for d in CORPUS] + [b"null", b'{"id":3}', b'  {"mixed" : [1, "x"]}  ']
    plan = inferred(texts)
    check_docs(plan, texts, texts, wire="bare")


@pytest.mark.parametrize("docs", [[1, -1, *I64], [1.5, 2], ["a", "é"], [True, False], [[1, 2], []],
                                  [1, "a", None, [1], {"a": 1}], [None]])
def test_schemaless_top_level_values(docs):
    texts = [json.dumps(d).encode() for d in docs]
    check_docs(inferred(texts), texts, texts, wire="bare")


def test_schemaless_record_of_another_type_is_an_error():
    plan = inferred([b'{"a":1}'])
    out = run(plan, [b'{"a":"x"}', b'{"a":1.5}', b"[]", b"{", b'{"a":1}'], errors="null", wire="bare")
    assert out.values.to_pylist() == [None] * 4 + [{"a": 1}]
    assert all(out.errors.to_pylist()[:4])


# --------------------------------------------------------------------------------------- Kafka Connect
def java_bytes(n):
    """BigInteger.toByteArray: minimal big-endian two's complement (Connect's Decimal), base64."""
    return base64.b64encode(n.to_bytes((n.bit_length() + 8) // 8, "big", signed=True)).decode()


ROW = {"type": "struct", "name": "server1.inventory.customers.Value", "optional": True, "fields": [
    {"field": "id", "type": "int32", "optional": False},
    {"field": "tiny", "type": "int8", "optional": True},
    {"field": "small", "type": "int16", "optional": True},
    {"field": "big", "type": "int64", "optional": True},
    {"field": "ratio", "type": "float", "optional": True},
    {"field": "score", "type": "double", "optional": True},
    {"field": "active", "type": "boolean", "optional": True},
    {"field": "name", "type": "string", "optional": True},
    {"field": "blob", "type": "bytes", "optional": True},
    {"field": "price", "type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal",
     "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"}},
    {"field": "born", "type": "int32", "optional": True, "name": "org.apache.kafka.connect.data.Date", "version": 1},
    {"field": "updated", "type": "int64", "optional": True, "name": "org.apache.kafka.connect.data.Timestamp",
     "version": 1},
    {"field": "opens", "type": "int32", "optional": True, "name": "org.apache.kafka.connect.data.Time", "version": 1},
    {"field": "tags", "type": "array", "items": {"type": "string", "optional": False}, "optional": True},
    {"field": "attrs", "type": "map", "keys": {"type": "string", "optional": False},
     "values": {"type": "int64", "optional": True}, "optional": True},
    {"field": "codes", "type": "map", "keys": {"type": "int32", "optional": False},
     "values": {"type": "string", "optional": True}, "optional": True},
    {"field": "address", "type": "struct", "optional": True, "fields": [
        {"field": "city", "type": "string", "optional": True}, {"field": "zip", "type": "int32", "optional": True}]},
]}
ENVELOPE = {"type": "struct", "name": "server1.inventory.customers.Envelope", "optional": False, "fields": [
    {**ROW, "field": "before"}, {**ROW, "field": "after"},
    {"field": "op", "type": "string", "optional": False}, {"field": "ts_ms", "type": "int64", "optional": True}]}

ROWS = [
    {"id": 1, "tiny": -128, "small": 32767, "big": I64[0], "ratio": 1.1, "score": -2.5e-300, "active": True,
     "name": "é😀", "blob": base64.b64encode(bytes(range(256))).decode(), "price": java_bytes(-12345),
     "born": -719162, "updated": 1_700_000_000_123, "opens": 86_399_999, "tags": ["a", ""], "attrs": {"x": 1, "y": None},
     "codes": [[1, "a"], [-2, None]], "address": {"city": "Z", "zip": None}},
    {"id": 2, "tiny": None, "small": None, "big": None, "ratio": None, "score": None, "active": None, "name": None,
     "blob": "", "price": java_bytes(9_999_999_999), "born": 0, "updated": -1, "opens": 0, "tags": [], "attrs": {},
     "address": None},
    {"id": 3, "price": java_bytes(0)},
    {"id": 4, "price": java_bytes(-9_999_999_999), "blob": "AA==", "big": I64[1]},
]


def connect_docs():
    return [{"schema": ENVELOPE, "payload": {"before": b, "after": a, "op": op, "ts_ms": 5}}
            for b, a, op in [(None, ROWS[0], "c"), (ROWS[0], ROWS[1], "u"), (ROWS[1], None, "d"),
                             (None, ROWS[2], "r"), (ROWS[3], ROWS[3], "u")]] + [{"schema": ENVELOPE, "payload": None}]


def test_connect_envelope_types():
    t = JsonPlan(json_plan.infer([json.dumps(d).encode() for d in connect_docs()])).arrow_type
    row = t.field("after").type
    assert [(f.name, f.type) for f in row] == [
        ("id", pa.int32()), ("tiny", pa.int8()), ("small", pa.int16()), ("big", pa.int64()), ("ratio", pa.float32()),
        ("score", pa.float64()), ("active", pa.bool_()), ("name", pa.string()), ("blob", pa.binary()),
        ("price", pa.decimal128(10, 2)), ("born", pa.date32()), ("updated", pa.timestamp("ms", tz="UTC")),
        ("opens", pa.time32("ms")), ("tags", pa.list_(pa.field("element", pa.string()))),
        ("attrs", pa.map_(pa.string(), pa.field("value", pa.int64()))), ("codes", pa.string()),
        ("address", pa.struct([("city", pa.string()), ("zip", pa.int32())]))]
    assert [f.name for f in t] == ["before", "after", "op", "ts_ms"]


def test_connect_envelope_values():
    texts = [json.dumps(d).encode() for d in connect_docs()]
    out = check_docs(inferred(texts), texts, texts, wire="bare")
    first = out.values.to_pylist()[0]["after"]
    assert (first["price"], first["born"], first["updated"], first["opens"]) == (
        decimal.Decimal("-123.45"), dt.date(1, 1, 1), dt.datetime(2023, 11, 14, 22, 13, 20, 123000, dt.timezone.utc),
        dt.time(23, 59, 59, 999000))
    assert out.values.to_pylist()[-1] is None


def test_connect_schema_versions_merge():
    # a field added in a later record's schema: the union of both, the older records' new field null
    v2 = {**ROW, "fields": [*ROW["fields"], {"field": "email", "type": "string", "optional": True}]}
    docs = [{"schema": ROW, "payload": ROWS[2]}, {"schema": v2, "payload": {**ROWS[3], "email": "a@b"}}]
    texts = [json.dumps(d).encode() for d in docs]
    out = check_docs(inferred(texts), texts, texts, wire="bare")
    assert [r["email"] for r in out.values.to_pylist()] == [None, "a@b"]


def test_connect_bad_payloads_are_errors():
    texts = [json.dumps(d).encode() for d in connect_docs()]
    plan = inferred(texts)
    one = ROWS[2]
    bad = [{**one, "tiny": 128}, {**one, "small": -32769}, {**one, "id": 2**31}, {**one, "blob": "not base64!"},
           {**one, "blob": "AAA"}, {**one, "price": java_bytes(10**10)}, {**one, "price": java_bytes(-(10**10))},
           {**one, "born": "2024-01-01"}, {**one, "attrs": {"a": "b"}}, {**one, "id": 1.5}]
    payloads = [json.dumps({"schema": ENVELOPE, "payload": {"after": b, "op": "c"}}).encode() for b in bad]
    payloads += [json.dumps({"schema": ENVELOPE}).encode(), b'{"payload":{"op":"c"},"payload":{"op":"d"}}',
                 b'{"payload":{"op":"c"}', b"[]", b'{"payload":{"op":1}}', b'{"payload":[]}']
    out = run(plan, payloads, errors="null", wire="bare")
    assert out.values.to_pylist() == [None] * len(payloads)
    assert all(out.errors.to_pylist())


def test_connect_envelope_must_be_json():
    # the envelope's own keys and values are JSON too: a trailing comma, or a schema that is not UTF-8, is not
    # JSON (json.loads, and Connect's Jackson, refuse them)
    plan = inferred([json.dumps(d).encode() for d in connect_docs()])
    bad = [b'{"payload":{"op":"c"},}', b'{"payload":{"op":"c"} , }', b'{"schema":{},"payload":{"op":"c"},}',
           b'{"schema":"\xff","payload":{"op":"c"}}', b'{"schema":{"x":"\\ud800"},"payload":{"op":"c"}}']
    for b in bad[:4]:
        with pytest.raises(ValueError):
            json.loads(b)
    out = run(plan, bad, errors="null", wire="bare")
    assert out.values.to_pylist() == [None] * len(bad)


def test_connect_envelope_key_with_escapes():
    # "pay\u006coad" is the key payload (json.loads and Connect's Jackson unescape keys before looking)
    plan = inferred([json.dumps(d).encode() for d in connect_docs()])
    texts = [b'{"schema":{},"pay\\u006coad":{"op":"c","ts_ms":1}}']
    check_docs(plan, texts, texts, wire="bare")


# --------------------------------------------------------------------------------------------- scans
def test_scans_of_json_topics(tmp_path):
    root = str(tmp_path / "data")
    texts = [json.dumps(d).encode() for d in CORPUS]
    payloads, src, _, _ = serialize(ORDER, ORDERS)
    with LogManager(root) as mgr:
        (plain,) = mgr.create_topic("plain", 1)
        plain.append([Record(None, t, 1000) for t in texts] + [Record(None, b"{oops", 1001), Record(None, None, 1002)])
        (reg,) = mgr.create_topic("t", 1)
        reg.append([Record(None, p, 1000) for p in payloads])
    jt = json_plan.infer(texts)
    got = kvlog.scan(root, "plain", value_format="json", errors="null").read_all()
    assert [observed(r, jt) for r in got.column("value").to_pylist()] == [expected(json.loads(t), jt)
                                                                         for t in texts] + [None, None]
    assert [e is None for e in got.column("valueError").to_pylist()] == [True] * len(texts) + [False, True]
    with pytest.raises(DeserializationError):
        kvlog.scan(root, "plain", value_format="json").read_all()
    got = kvlog.scan(root, "t", value_format="registry", schemas=src).read_all()
    plan = JsonPlan.from_registered(src.version("t-value"), src)
    assert [observed(r, plan.projected) for r in got.column("value").to_pylist()] == [
        expected(d, plan.projected) for d in ORDERS]
    got = kvlog.scan(root, "plain", value_format="json", value_schema=json.dumps(ORDER), errors="null").read_all()
    assert got.column("value").type == ORDER_TYPE


# ----------------------------------------------------------------------------------------- hypothesis
_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(st.characters(exclude_categories=("Cs",))))
_json = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(st.text(max_size=4), kids, max_size=4), max_leaves=25)


@st.composite
def encoded(draw, value):
    """``value`` as JSON text, each string character written as itself or as a \\u escape (a surrogate pair
    past the BMP), with random whitespace: a writer that is obviously correct."""
    space = st.sampled_from(["", " ", "\n", "\t ", "\r\n"])

    def text(s):
        out = []
        for ch in s:
            if ch in '"\\' or ord(ch) < 0x20 or draw(st.booleans()):
                n = ord(ch)
                out.append(f"\\u{n:04x}" if n < 0x10000 else "\\u{:04x}\\u{:04x}".format(
                    0xD800 + ((n - 0x10000) >> 10), 0xDC00 + ((n - 0x10000) & 0x3FF)))
            else:
                out.append(ch)
        return '"' + "".join(out) + '"'

    def enc(v):
        w = draw(space)
        if isinstance(v, str):
            return w + text(v)
        if isinstance(v, list):
            return w + "[" + ",".join(enc(x) for x in v) + draw(space) + "]"
        if isinstance(v, dict):
            return w + "{" + ",".join(text(k) + draw(space) + ":" + enc(x) for k, x in v.items()) + draw(space) + "}"
        return w + json.dumps(v)

    return (enc(value) + draw(space)).encode()


@given(st.data())
def test_random_documents_like_json_loads(data):
    docs = data.draw(st.lists(_json, min_size=1, max_size=5))
    texts = [data.draw(encoded(d)) for d in docs]
    assert [json.loads(t) for t in texts] == docs  # (the writer is right)
    check_docs(inferred(texts), texts, texts, wire="bare")


@given(st.data())
def test_random_damage_never_reads_what_json_loads_does_not(data):
    docs = data.draw(st.lists(_json, min_size=1, max_size=3))
    texts = [data.draw(encoded(d)) for d in docs]
    plan = inferred(texts)
    damaged = []
    for t in texts:
        b = bytearray(t)
        for _ in range(data.draw(st.integers(1, 4))):
            at = data.draw(st.integers(0, max(len(b) - 1, 0)))
            how = data.draw(st.sampled_from(["byte", "insert", "delete", "cut"]))
            if how == "byte" and b:
                b[at] = data.draw(st.sampled_from(b'{}[]",:\\ 0-1eE.tfn\xff\xc3\x80u'))
            elif how == "insert":
                b[at:at] = data.draw(st.binary(min_size=1, max_size=3))
            elif how == "delete" and b:
                del b[at]
            elif how == "cut":
                del b[at:]
        damaged.append(bytes(b))
    out = run(plan, damaged, errors="null", wire="bare")
    out.values.validate(full=True)
    for raw, row, err in zip(damaged, out.values.to_pylist(), out.errors.to_pylist()):
        if err is not None:
            assert row is None
            continue
        try:
            value = json.loads(raw)
        except UnicodeDecodeError:
            # (bytes that are not UTF-8 inside a skipped value are test_skipped_values_must_be_utf8's bug, which
            # a random search finds only in some runs: this test keeps to the rest)
            continue
        except ValueError:
            pytest.fail(f"kvlog reads {raw!r}, which is not JSON")
        assert observed(row, plan.projected) == expected(value, plan.projected), raw
