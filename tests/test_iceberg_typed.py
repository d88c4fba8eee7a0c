"""kvlog.iceberg with typed topics: Avro values written by Confluent's own serializer (the oracle), their schemas
read offline from the directory's ``_schemas`` topic; the table's columns are the value's fields, read back
with pyiceberg; a new compatible schema version evolves the table, an incompatible one stops; records that do
not decode stop the export or go to the dead-letter table."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

import kvlog  # noqa: E402
import kvlog.iceberg as ki  # noqa: E402
from kvlog.errors import ConfigError, DeserializationError, IcebergExportError  # noqa: E402
from kvlog.schemas.registering import SchemasTopicWriter  # noqa: E402
from tests.iceberg_support import NOW_MS  # noqa: E402

T = "kafka.orders"
CTX = SerializationContext("orders", MessageField.VALUE)
V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": "string"},
    {"name": "amount", "type": "double"},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "placed", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
    {"name": "note", "type": ["null", "string"], "default": None},
]}
V2 = {**V1, "fields": V1["fields"] + [{"name": "coupon", "type": ["null", "string"], "default": None}]}


class Topic:
    """A data directory with an ``orders`` topic and its ``_schemas``; values serialized by Confluent's
    AvroSerializer against a mock registry holding the same schemas in the same order (so the same ids)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.mock = SchemaRegistryClient.new_client({"url": f"mock://{uuid.uuid4()}"})
        self.next_id = 0
        with kvlog.LogManager(root) as m:
            m.create_topic("orders", 2)

    def register(self, schema: dict[str, Any], subject: str = "orders-value") -> AvroSerializer:
        with SchemasTopicWriter(self.root) as w:
            w.register(subject, json.dumps(schema))
        return AvroSerializer(self.mock, json.dumps(schema), conf={"auto.register.schemas": True})

    def append(self, partition: int, payloads: list[bytes | None], keys: list[bytes | None] | None = None) -> None:
        keys = keys or [f"o{i}".encode() for i in range(len(payloads))]
        with kvlog.LogManager(self.root) as m:
            m.log("orders", partition).append([kvlog.Record(k, v, NOW_MS + i) for i, (k, v) in
                                               enumerate(zip(keys, payloads))])


def order(i: int, **more: Any) -> dict[str, Any]:
    return {"id": i, "customer": f"c{i % 7}", "amount": i * 1.25, "tags": [f"t{j}" for j in range(i % 3)],
            "placed": dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=i),
            "status": ["NEW", "PAID", "SHIPPED"][i % 3], "note": None if i % 2 else f"n{i}", **more}


def rows(wh: Path, ident: str = T) -> list[dict[str, Any]]:
    t = ki.catalog(wh).load_table(ident).scan().to_arrow()
    return sorted(t.to_pylist(), key=lambda r: (r["partition"], r["offset"]))


def test_typed_values_become_columns(tmp_path: Path):
    topic = Topic(tmp_path / "d")
    ser = topic.register(V1)
    values = {p: [order(i + 100 * p) for i in range(40)] for p in range(2)}
    for p in range(2):
        topic.append(p, [ser(v, CTX) for v in values[p]])
    r = ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry")
    assert r.rows == 80
    t = ki.catalog(tmp_path / "wh").load_table(T)
    assert [f.name for f in t.schema().fields] == ["id", "customer", "amount", "tags", "placed", "status", "note",
                                                  "key", "partition", "offset", "timestamp", "timestampType",
                                                  "headers", "valueSchemaId"]
    assert str(t.schema().find_field("placed").field_type) == "timestamptz"
    got = rows(tmp_path / "wh")
    for row in got:
        want = values[row["partition"]][row["offset"]]
        assert {k: row[k] for k in want} == want
        assert row["key"] == f"o{row['offset']}".encode() and row["valueSchemaId"] == 1


def test_a_compatible_new_version_evolves_the_table(tmp_path: Path):
    topic = Topic(tmp_path / "d")
    s1 = topic.register(V1)
    topic.append(0, [s1(order(i), CTX) for i in range(10)])
    ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry", partition_by=None)
    s2 = topic.register(V2)
    topic.append(0, [s2(order(i, coupon=f"X{i}"), CTX) for i in range(10, 15)])
    r = ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry", partition_by=None)
    assert r.rows == 5
    t = ki.catalog(tmp_path / "wh").load_table(T)
    assert "coupon" in [f.name for f in t.schema().fields] and len(t.schemas()) == 2
    got = rows(tmp_path / "wh")
    assert [row["coupon"] for row in got] == [None] * 10 + [f"X{i}" for i in range(10, 15)]
    assert [row["valueSchemaId"] for row in got] == [1] * 10 + [2] * 5


def test_an_incompatible_change_stops_with_the_reason(tmp_path: Path):
    topic = Topic(tmp_path / "d")
    s1 = topic.register(V1)
    topic.append(0, [s1(order(i), CTX) for i in range(5)])
    ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry")
    changed = {**V1, "fields": [dict(f, type="string") if f["name"] == "amount" else f for f in V1["fields"]]}
    s3 = topic.register(changed)  # (a registry with compatibility NONE lets this through)
    topic.append(0, [s3(dict(order(9), amount="12.5"), CTX)])
    with pytest.raises(IcebergExportError, match="schema changed in a way the table cannot follow.*amount"):
        ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry")
    assert len(rows(tmp_path / "wh")) == 5


def test_undecodable_records_stop_or_go_to_the_dead_letter_table(tmp_path: Path):
    topic = Topic(tmp_path / "d")
    ser = topic.register(V1)
    good = [ser(order(i), CTX) for i in range(6)]
    payloads = good[:2] + [b"\x00\x00\x00\x00\x63junk", b"plain text"] + good[2:] + [None]
    topic.append(0, payloads)
    with pytest.raises(DeserializationError, match="orders-0, offset 2"):
        ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry")
    r = ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry", on_error="dlq")
    assert (r.rows, r.dead_letters) == (7, 2)  # (a null value is a tombstone: a row of nulls, not an error)
    got = rows(tmp_path / "wh")
    assert [row["offset"] for row in got] == [0, 1, 4, 5, 6, 7, 8]
    assert got[-1]["id"] is None and got[-1]["customer"] is None  # the tombstone
    dead = rows(tmp_path / "wh", T + "_dlq")
    assert [(d["offset"], d["value"], d["key"]) for d in dead] == [(2, payloads[2], b"o2"), (3, payloads[3], b"o3")]
    assert "99" in dead[0]["reason"] and dead[1]["reason"]
    again = ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry",
                      on_error="dlq")
    assert (again.rows, again.dead_letters) == (0, 0)
    assert len(rows(tmp_path / "wh", T + "_dlq")) == 2


def test_a_field_named_like_a_metadata_column_is_refused_or_renamed(tmp_path: Path):
    topic = Topic(tmp_path / "d")
    schema = {"type": "record", "name": "E", "fields": [{"name": "offset", "type": "long"},
                                                         {"name": "body", "type": "string"}]}
    ser = topic.register(schema)
    topic.append(0, [ser({"offset": 1000 + i, "body": f"b{i}"}, CTX) for i in range(3)])
    with pytest.raises(ConfigError, match="value field 'offset'.*rename="):
        ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry")
    ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry",
              rename={"offset": "event_offset"})
    got = rows(tmp_path / "wh")
    assert [(r["event_offset"], r["offset"], r["body"]) for r in got] == [(1000, 0, "b0"), (1001, 1, "b1"),
                                                                          (1002, 2, "b2")]
    with pytest.raises(ConfigError, match="does not have: nope"):
        ki.export(tmp_path / "d", "orders", "kafka.other", warehouse=tmp_path / "wh", value_format="registry",
                  rename={"offset": "o2", "nope": "x"})


ROW = {"type": "record", "name": "Value", "namespace": "db.public.users", "fields": [
    {"name": "id", "type": "long"}, {"name": "email", "type": ["null", "string"], "default": None}]}
ENVELOPE = {"type": "record", "name": "Envelope", "namespace": "db.public.users", "fields": [
    {"name": "before", "type": ["null", ROW], "default": None},
    {"name": "after", "type": ["null", "db.public.users.Value"], "default": None},
    {"name": "op", "type": "string"},
    {"name": "ts_ms", "type": ["null", "long"], "default": None}]}


def test_debezium_change_events_unwrapped_into_an_upsert_table(tmp_path: Path):
    """Debezium's envelope (before, after, op): the table holds each key's after state; op 'd' deletes the key
    (and the tombstone Debezium writes after it deletes nothing more)."""
    topic = Topic(tmp_path / "d")
    ser = topic.register(ENVELOPE)

    def ev(op: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> bytes:
        return ser({"before": before, "after": after, "op": op, "ts_ms": 1}, CTX)

    u1, u2, u3 = ({"id": i, "email": f"u{i}@x"} for i in (1, 2, 3))
    keys = [b"1", b"2", b"3", b"1", b"2", b"2"]
    topic.append(0, [ev("r", None, u1), ev("c", None, u2), ev("c", None, u3),
                     ev("u", u1, {"id": 1, "email": "new@x"}), ev("d", u2, None), None], keys=keys)
    r = ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry",
                  mode="upsert", unwrap="debezium", partition_by=None)
    got = {row["key"]: (row["id"], row["email"], row["offset"]) for row in rows(tmp_path / "wh")}
    assert got == {b"1": (1, "new@x", 3), b"3": (3, "u3@x", 2)}
    assert r.deleted == 1
    t = ki.catalog(tmp_path / "wh").load_table(T)
    assert [f.name for f in t.schema().fields][:2] == ["id", "email"]
    topic.append(0, [ev("c", None, {"id": 2, "email": "back@x"}), ev("d", u3, None)], keys=[b"2", b"3"])
    ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry", mode="upsert",
              unwrap="debezium")
    got = {row["key"]: (row["id"], row["email"]) for row in rows(tmp_path / "wh")}
    assert got == {b"1": (1, "new@x"), b"2": (2, "back@x")}
    with pytest.raises(ConfigError, match="give mode='upsert'"):
        ki.export(tmp_path / "d", "orders", "kafka.x", warehouse=tmp_path / "wh", value_format="registry",
                  unwrap="debezium")


def test_unwrap_of_values_that_are_not_change_events_is_refused(tmp_path: Path):
    topic = Topic(tmp_path / "d")
    ser = topic.register(V1)
    topic.append(0, [ser(order(1), CTX)])
    with pytest.raises(ConfigError, match="not Debezium change events"):
        ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry", mode="upsert",
                  unwrap="debezium")


def test_null_lists_of_records_stay_null_in_the_data_files(tmp_path: Path):
    """A null array of records (and a tombstone's) is null in the Parquet files kvlog writes, not an empty list
    (pyiceberg's own writer rebuilds such lists from their offsets, which loses the nulls; pyiceberg 0.12's
    reader does the same on its way out, so the files are read here with Parquet's reader)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = {"type": "record", "name": "B", "fields": [
        {"name": "id", "type": "long"},
        {"name": "lines", "type": ["null", {"type": "array", "items": {
            "type": "record", "name": "Line", "fields": [{"name": "sku", "type": "string"}]}}], "default": None}]}
    topic = Topic(tmp_path / "d")
    ser = topic.register(schema)
    topic.append(0, [ser({"id": 1, "lines": [{"sku": "a"}]}, CTX), ser({"id": 2, "lines": None}, CTX),
                     ser({"id": 3, "lines": []}, CTX), None])
    ki.export(tmp_path / "d", "orders", T, warehouse=tmp_path / "wh", value_format="registry")
    scan = ki.catalog(tmp_path / "wh").load_table(T).scan()
    files = pa.concat_tables([pq.read_table(t.file.file_path.removeprefix("file://")) for t in scan.plan_files()])
    got = sorted((r["offset"], r["id"], r["lines"]) for r in files.to_pylist())
    assert got == [(0, 1, [{"sku": "a"}]), (1, 2, None), (2, 3, []), (3, None, None)]


def test_protobuf_and_json_schema_values_become_columns(tmp_path: Path):
    """Protobuf values (kvlog's serializer, checked against Confluent's deserializer in test_schema_writes.py) and
    JSON Schema values (Confluent's JSONSerializer) exported typed: their fields are the columns."""
    from confluent_kafka.schema_registry.json_schema import JSONSerializer

    proto = 'syntax = "proto3";\npackage shop;\nmessage Order {\n  int64 id = 1;\n  string who = 2;\n' \
            '  repeated string tags = 3;\n}\n'
    schema = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    root = tmp_path / "d"
    mock = SchemaRegistryClient.new_client({"url": f"mock://{uuid.uuid4()}"})
    with kvlog.LogManager(root) as m, SchemasTopicWriter(m) as reg:
        m.create_topic("events", 1)
        reg.register("events-value", json.dumps(schema), "JSON")  # id 1, as the mock registry gives it
        orders = reg.serializer("orders-value", proto, "PROTOBUF")  # id 2
        m.create_topic("orders", 1)
        m.log("orders", 0).append(orders.records([{"id": i, "who": f"w{i}", "tags": ["t"] * (i % 3)}
                                                  for i in range(6)]))
        js = JSONSerializer(json.dumps(schema), mock)
        ctx = SerializationContext("events", MessageField.VALUE)
        m.log("events", 0).append([kvlog.Record(None, js({"id": i, "name": f"n{i}"}, ctx), NOW_MS + i)
                                   for i in range(4)])
    ki.export(root, "orders", "kafka.orders", warehouse=tmp_path / "wh", value_format="registry")
    ki.export(root, "events", "kafka.events", warehouse=tmp_path / "wh", value_format="registry")
    got = rows(tmp_path / "wh", "kafka.orders")
    assert [(r["id"], r["who"], r["tags"], r["valueSchemaId"]) for r in got] == \
        [(i, f"w{i}", ["t"] * (i % 3), 2) for i in range(6)]
    got = rows(tmp_path / "wh", "kafka.events")
    assert [(r["id"], r["name"], r["valueSchemaId"]) for r in got] == [(i, f"n{i}", 1) for i in range(4)]
