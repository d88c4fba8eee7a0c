"""Typed topics through a live broker: values written by Confluent's own serializers (confluent-kafka, with its
in-process registry), produced with librdkafka into a Kafka 4.4.0 broker, read back by Confluent's
deserializers from the broker (the oracle), and by kvlog **offline** from the broker's data directory after a
clean stop, with the schemas replayed from a ``_schemas`` topic produced into the same broker as Confluent's
registry writes it (docs/schemas-topic.md). Record for record, kvlog must give what the deserializers give.

Covered: an Avro topic with every type and logical type over two schema versions (defaults, aliases,
promotions, enum defaults) and Avro keys; a Protobuf topic with every scalar, nested and repeated messages,
maps, oneofs, enums, proto3 optional, well-known types and an import, over two versions, its schemas as
``.proto`` text with a reference; a Protobuf topic of a nested message (message indexes); a JSON Schema topic;
schemaless JSON; Kafka Connect envelopes; the header form of the wire format (GUIDs in
``__value_schema_id``), its schemas from a third-party :class:`SchemaSource` over the registry client.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import struct
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import kvlog
from kvlog.schemas.registry import DEFAULT_CONTEXT, RegisteredSchema, SchemaReference, SchemaSource
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import Broker, KafkaDist
from kvlog.backup.adopt_new_topic import adopt_new_topic
from tests.kafka_oracle.serve import create_topics

pytestmark = [pytest.mark.broker, pytest.mark.xdist_group("typed-topics")]
VERSION = "4.4.0"

with warnings.catch_warnings():  # kafka-python (the harness's admin client) loads its schemas a deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka  # noqa: F401

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.schema_registry import SchemaRegistryClient, header_schema_id_serializer  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer  # noqa: E402
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer  # noqa: E402
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

# ------------------------------------------------------------------------------------------------ schemas
DEC = {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}
ADDRESS = {"type": "record", "name": "Address", "fields": [
    {"name": "street", "type": "string"}, {"name": "zip", "type": "int"}]}
AVRO_V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": "string"},
    {"name": "price", "type": DEC},
    {"name": "big", "type": {"type": "fixed", "name": "Big", "size": 16, "logicalType": "decimal",
                             "precision": 30, "scale": 4}},
    {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "updated", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "tu", "type": {"type": "long", "logicalType": "time-micros"}},
    {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED", "LOST"]}},
    {"name": "ship", "type": ["null", ADDRESS]},
    {"name": "choice", "type": ["int", "string", "shop.Address", "null"]},
    {"name": "raw", "type": "bytes"},
    {"name": "digest", "type": {"type": "fixed", "name": "Md5", "size": 16}},
    {"name": "flag", "type": "boolean"},
    {"name": "score", "type": "float"},
    {"name": "ratio", "type": "double"},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
        {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
    {"name": "buckets", "type": {"type": "map", "values": {"type": "array", "items": ["null", "long"]}}},
]}
AVRO_V2 = json.loads(json.dumps(AVRO_V1))
AVRO_V2["fields"][1] = {"name": "client", "type": "string", "aliases": ["customer"]}        # renamed, alias
AVRO_V2["fields"][13]["type"]["symbols"] = ["NEW", "PAID", "SHIPPED", "RETURNED"]           # LOST dropped
AVRO_V2["fields"][13]["type"]["default"] = "NEW"                                           # ...read as NEW
AVRO_V2["fields"][19] = {"name": "score", "type": "double"}                                # float -> double
AVRO_V2["fields"].append({"name": "email", "type": ["null", "string"], "default": None})
AVRO_V2["fields"].append({"name": "priority", "type": "int", "default": 3})
AVRO_V2["fields"].append({"name": "note", "type": "string", "default": "none"})
AVRO_V2["fields"].append({"name": "dims", "type": {"type": "array", "items": "int"}, "default": [1, 2]})
AVRO_KEY = {"type": "record", "name": "Key", "namespace": "shop", "fields": [{"name": "k", "type": "long"}]}

COMMON_PROTO = 'syntax = "proto3";\npackage common;\nmessage Money {\n  int64 units = 1;\n  string currency = 2;\n}\n'
SHOP_PROTO = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "common.proto";
message Order {
  int64 id = 1;
  string customer = 2;
  double total = 3;
  float f = 4;
  int32 i32 = 5;
  uint32 u32 = 6;
  uint64 u64 = 7;
  sint32 s32 = 8;
  sint64 s64 = 9;
  fixed32 fx32 = 10;
  fixed64 fx64 = 11;
  sfixed32 sf32 = 12;
  sfixed64 sf64 = 13;
  bool flag = 14;
  bytes blob = 15;
  Status status = 16;
  repeated Item items = 17;
  map<string, int64> counts = 18;
  map<int32, Item> by_id = 19;
  oneof payment {
    string card = 20;
    int64 voucher = 21;
    Item gift = 22;
  }
  optional string note = 23;
  google.protobuf.Timestamp created = 24;
  google.protobuf.Duration ttl = 25;
  google.protobuf.Int64Value maybe = 26;
  google.protobuf.StringValue label = 27;
  common.Money money = 28;
  repeated int32 packed = 29;
  Address ship = 30;
  message Address {
    string street = 1;
    int32 zip = 2;
  }
}
message Item {
  string sku = 1;
  int32 qty = 2;
}
enum Status {
  NEW = 0;
  PAID = 1;
  SHIPPED = 2;
}
"""
SHOP_PROTO_V2 = SHOP_PROTO.replace("  Address ship = 30;\n", "  Address ship = 30;\n  string channel = 31;\n")

JSON_SCHEMA = {"type": "object", "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "price": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}}, "when": {"type": "string", "format": "date-time"},
    "day": {"type": "string", "format": "date"}, "flag": {"type": "boolean"}, "maybe": {"type": ["integer", "null"]},
    "nested": {"$ref": "#/definitions/N"}}, "definitions": {"N": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "array", "items": {"type": "number"}}}}},
    "additionalProperties": True}

TOPICS = {"avro-orders": 2, "proto-orders": 2, "proto-address": 1, "json-orders": 1, "json-free": 2,
          "connect-env": 1, "avro-headers": 1}
N = 24  # records per schema version and topic


# ------------------------------------------------------------------------------------------------ records
def avro_record(i: int, v2: bool) -> dict[str, Any]:
    base = datetime.datetime(2024, 2, 29, 12, 0, tzinfo=datetime.timezone.utc)
    r: dict[str, Any] = {
        "id": (-1) ** i * (2**40 + i), ("client" if v2 else "customer"): f"cliént-{i} ☃",
        "price": decimal.Decimal(f"{(-1) ** i * (i * 1234567)}.{i % 100:02d}"),
        "big": decimal.Decimal(f"{10**25 + i}.{i:04d}"),
        "created": base + datetime.timedelta(milliseconds=i * 1001),
        "updated": base + datetime.timedelta(microseconds=i * 1000003),
        "local": datetime.datetime(2023, 1, 1, 8, 30) + datetime.timedelta(seconds=i),
        "day": datetime.date(1969, 12, 31) + datetime.timedelta(days=i * 40),
        "tm": datetime.time(23, 59, 59, 999000) if i % 5 == 0 else datetime.time(0, 0, i % 60),
        "tu": datetime.time(12, 34, 56, i),
        "ref": uuid.UUID(int=i * 0x1234567890ABCDEF),
        "tags": [f"t{j}" for j in range(i % 4)],
        "attrs": {f"k{j}": -j * i for j in range(i % 3)},
        "status": ["NEW", "PAID", "SHIPPED", "RETURNED" if v2 else "LOST"][i % 4],
        "ship": None if i % 3 == 0 else {"street": f"{i} Main St", "zip": 10000 + i},
        "choice": [i, f"s{i}", {"street": "x", "zip": i}, None][i % 4],
        "raw": bytes(range(i % 7)) if i % 2 else b"",
        "digest": bytes((i + j) % 256 for j in range(16)),
        "flag": i % 2 == 0,
        "score": [1.5, -0.0, math.inf, -3.25e10][i % 4],
        "ratio": [math.pi, -1e-300, 1e308, 0.0][i % 4],
        "lines": [{"sku": f"sku-{j}", "qty": j} for j in range(i % 3)],
        "buckets": {f"b{j}": [None if k % 2 else k for k in range(j)] for j in range(i % 3)},
    }
    if v2:
        r["email"] = None if i % 2 else f"u{i}@example.com"
        r["priority"] = i
        r["note"] = f"n{i}"
        r["dims"] = list(range(i % 3))
    return r


def proto_message(pb: Any, i: int, v2: bool) -> Any:
    o = pb.Order(id=(-1) ** i * 2**50 + i, customer=f"c{i} ✓", total=i * 1.25, f=0.5 * i, i32=-(2**31) + i,
                 u32=2**32 - 1 - i, u64=2**64 - 1 - i, s32=-i, s64=-(2**62) - i, fx32=2**32 - 2 - i,
                 fx64=2**64 - 3 - i, sf32=-(2**31) + 1 + i, sf64=-(2**63) + 1 + i, flag=i % 2 == 1,
                 blob=bytes(range(i % 5)), status=i % 3)
    for j in range(i % 3):
        o.items.add(sku=f"s{j}", qty=j)
        o.counts[f"c{j}"] = -j
        o.by_id[j].sku = f"by{j}"
    if i % 4 == 0:
        o.card = f"card-{i}"
    elif i % 4 == 1:
        o.voucher = i
    elif i % 4 == 2:
        o.gift.sku = "gift"
    if i % 2:
        o.note = ""  # present, and empty
    o.created.FromNanoseconds(1_700_000_000_123_456_789 + i)
    o.ttl.FromNanoseconds(-(i * 1_500_000_001))
    if i % 3:
        o.maybe.value = i - 1  # 0 too: present with the default
    if i % 5 == 0:
        o.label.value = f"l{i}"
    if i % 2 == 0:
        o.money.units = i
        o.money.currency = "EUR"
    o.packed.extend([i, -i, 2**31 - 1])
    if i % 3 != 1:
        o.ship.street = f"st{i}"
    if v2:
        o.channel = f"ch{i}" if i % 2 else ""
    return o


def json_doc(i: int) -> dict[str, Any]:
    d: dict[str, Any] = {"id": i * 1000003, "name": f"n{i} \"q\" \\ ☃", "price": i / 7, "tags": ["a"] * (i % 3),
                         "when": f"2024-03-{1 + i % 28:02d}T10:{i % 60:02d}:00.{i:06d}+0{i % 9}:30",
                         "day": f"2020-02-{1 + i % 29:02d}", "flag": i % 2 == 0, "maybe": None if i % 2 else i,
                         "nested": {"a": f"a{i}", "b": [i, 0.5]}}
    if i % 3 == 0:
        d["extra"] = {"x": [i, None, True]}
    return d


def free_doc(i: int) -> Any:
    return {"id": i, "score": i * 0.5 if i % 2 else i, "name": None if i % 4 == 0 else f"n{i}",
            "tags": ["x"] * (i % 3), "meta": {"ok": i % 2 == 0, "depth": {"n": i}}, "mixed": [1, "a"][i % 2]}


def connect_doc(i: int) -> dict[str, Any]:
    schema = {"type": "struct", "name": "env.Value", "optional": False, "fields": [
        {"type": "int64", "optional": False, "field": "id"},
        {"type": "string", "optional": True, "field": "name"},
        {"type": "bytes", "optional": True, "field": "blob"},
        {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
         "parameters": {"scale": "2", "connect.decimal.precision": "10"}, "field": "amount"},
        {"type": "int32", "optional": True, "name": "org.apache.kafka.connect.data.Date", "version": 1,
         "field": "day"},
        {"type": "int64", "optional": True, "name": "org.apache.kafka.connect.data.Timestamp", "version": 1,
         "field": "at"},
        {"type": "array", "optional": True, "items": {"type": "int16", "optional": False}, "field": "small"}]}
    unscaled = (-1) ** i * (i * 12345)
    raw = unscaled.to_bytes(8, "big", signed=True).lstrip(b"\x00" if unscaled >= 0 else b"\xff") or b"\x00"
    if (raw[0] & 0x80) != (0x80 if unscaled < 0 else 0):
        raw = (b"\xff" if unscaled < 0 else b"\x00") + raw
    payload = {"id": i, "name": None if i % 3 == 0 else f"n{i}", "blob": base64.b64encode(bytes([i])).decode(),
               "amount": base64.b64encode(raw).decode(), "day": 19000 + i, "at": 1_700_000_000_000 + i,
               "small": [i, -i]}
    return {"schema": schema, "payload": payload}


# ---------------------------------------------------------------------------------------------- the world
@dataclass
class World:
    data: Path
    client: Any
    pb: Any
    pb_v2: Any
    consumed: dict[str, list[Any]] = field(default_factory=dict)  # (partition, offset, key, value, headers)
    kvlog_schemas: Path | None = None  # the data directory of kvlog's own writes (its _schemas stays there)
    schemas_records: list[tuple[bytes, bytes | None]] = field(default_factory=list)


def _protoc(tmp: Path, name: str, text: str, deps: dict[str, str]) -> Any:
    """The messages of ``shop.proto`` as classes of a descriptor pool of their own (two versions of one file
    cannot share the default pool): protoc's descriptor set, loaded into a fresh pool."""
    import grpc_tools
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from grpc_tools import protoc

    src = tmp / name
    src.mkdir(parents=True, exist_ok=True)
    (src / "shop.proto").write_text(text)
    for dep, dep_text in deps.items():
        (src / dep).write_text(dep_text)
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    out = src / "set.pb"
    assert protoc.main(["protoc", f"-I{src}", f"-I{include}", f"--descriptor_set_out={out}", "--include_imports",
                        "shop.proto"]) == 0
    fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)

    class Module:
        Order = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))
        Item = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Item"))

    Module.Order.Address = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order.Address"))
    return Module


def _registry_records(client: Any) -> list[tuple[bytes, bytes | None]]:
    """The ``_schemas`` records Confluent's registry would have written for what the mock registry holds:
    one SCHEMA record a subject version, Protobuf as ``.proto`` text (the registry stores its text form even
    when a client registers a base64 descriptor), references kept; then a NOOP, a CONFIG, and a soft-deleted
    subject version."""
    out: list[tuple[bytes, bytes | None]] = [
        (b'{"keytype":"NOOP","magic":0}', None),
        (b'{"keytype":"CONFIG","magic":0}', b'{"compatibilityLevel":"BACKWARD"}')]
    texts = {"common.proto": COMMON_PROTO}
    proto_versions = {1: SHOP_PROTO, 2: SHOP_PROTO_V2}
    for subject in sorted(client.get_subjects()):
        for version in client.get_versions(subject):
            reg = client.get_version(subject, version)
            schema = reg.schema
            text = schema.schema_str
            if schema.schema_type == "PROTOBUF":
                text = texts.get(subject) or (SHOP_PROTO if subject == "proto-address-value"
                                              else proto_versions[version])
            key = {"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1}
            value: dict[str, Any] = {"subject": subject, "version": version, "id": reg.schema_id}
            if schema.schema_type != "AVRO":
                value["schemaType"] = schema.schema_type
            if schema.references:
                value["references"] = [{"name": r.name, "subject": r.subject, "version": r.version}
                                       for r in schema.references]
            value["schema"] = text
            value["deleted"] = False
            out.append((json.dumps(key, separators=(",", ":")).encode(),
                        json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()))
    return out


def _consume(bootstrap: str, topic: str, partitions: int) -> list[Any]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"oracle-{topic}", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    try:
        out = []
        for p in range(partitions):
            _, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)
            c.assign([TopicPartition(topic, p, 0)])
            got = 0
            while got < high:
                m = c.poll(10)
                assert m is not None, f"no record from {topic}-{p} after {got} of {high}"
                assert m.error() is None, m.error()
                out.append((m.partition(), m.offset(), m.key(), m.value(), m.headers() or []))
                got += 1
        return out
    finally:
        c.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    reason = F.unavailable(VERSION)
    if reason is not None:
        F._skip_or_fail(reason)
    dist = KafkaDist.find(VERSION)
    assert dist is not None
    root = tmp_path_factory.mktemp("typed-topics")
    pb = _protoc(root, "v1", SHOP_PROTO, {"common.proto": COMMON_PROTO})
    pb_v2 = _protoc(root, "v2", SHOP_PROTO_V2, {"common.proto": COMMON_PROTO})
    client = SchemaRegistryClient.new_client({"url": f"mock://typed-{uuid.uuid4()}"})
    broker = Broker(dist, root / "broker", extra={"log.retention.ms": "-1"})
    with broker:  # (started by the context, stopped by it too when a step fails)
        create_topics(broker, {"_schemas": (1, {"cleanup.policy": "compact"}),
                               **{t: (n, {}) for t, n in TOPICS.items()}})
        prod = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "compression.type": "zstd"})

        def send(topic: str, value: Any, *, key: Any = None, partition: int = 0,
                 headers: list[tuple[str, bytes]] | None = None) -> None:
            prod.produce(topic, value=value, key=key, partition=partition, headers=headers)

        ctx = SerializationContext("avro-orders", MessageField.VALUE)
        kctx = SerializationContext("avro-orders", MessageField.KEY)
        keys = AvroSerializer(client, json.dumps(AVRO_KEY))
        for v2, schema in ((False, AVRO_V1), (True, AVRO_V2)):
            ser = AvroSerializer(client, json.dumps(schema))
            for i in range(N):
                send("avro-orders", ser(avro_record(i, v2), ctx), key=keys({"k": i}, kctx), partition=i % 2)
            send("avro-orders", None, key=keys({"k": -1}, kctx), partition=0)  # a tombstone
        hctx = SerializationContext("avro-headers", MessageField.VALUE, [])
        hser = AvroSerializer(client, json.dumps(AVRO_V1), conf={"schema.id.serializer": header_schema_id_serializer})
        for i in range(N):
            headers: list[tuple[str, bytes]] = []
            hctx.headers = headers
            send("avro-headers", hser(avro_record(i, False), hctx), headers=headers)
        conf = {"use.deprecated.format": False}
        for mod in (pb, pb_v2):
            pctx = SerializationContext("proto-orders", MessageField.VALUE)
            ser = ProtobufSerializer(mod.Order, client, conf)
            for i in range(N):
                send("proto-orders", ser(proto_message(mod, i, mod is pb_v2), pctx), partition=i % 2)
        actx = SerializationContext("proto-address", MessageField.VALUE)
        aser = ProtobufSerializer(pb.Order.Address, client, conf)
        for i in range(N):
            send("proto-address", aser(pb.Order.Address(street=f"s{i}", zip=i), actx))
        jctx = SerializationContext("json-orders", MessageField.VALUE)
        jser = JSONSerializer(json.dumps(JSON_SCHEMA), client)
        for i in range(N):
            send("json-orders", jser(json_doc(i), jctx))
        for i in range(2 * N):
            send("json-free", json.dumps(free_doc(i)).encode(), partition=i % 2)
        send("json-free", b"{not json", partition=0)
        for i in range(N):
            send("connect-env", json.dumps(connect_doc(i)).encode())
        w = World(broker.data, client, pb, pb_v2)
        w.schemas_records = _registry_records(client)
        for k, v in w.schemas_records:
            send("_schemas", v, key=k)
        assert prod.flush(60) == 0
        for t, n in TOPICS.items():
            w.consumed[t] = _consume(broker.bootstrap, t, n)
        w.kvlog_schemas = _kvlog_writes(root / "kvlog-written", pb)  # typed topics kvlog wrote, placed and served
        adopt_new_topic(broker.data, [root / "kvlog-written" / f"{t}-0" for t in KVLOG_TOPICS], move=True,
                        metadata_dir=broker.meta)
        create_topics(broker, {t: (1, {}) for t in KVLOG_TOPICS})
        for t in KVLOG_TOPICS:
            w.consumed[t] = _consume(broker.bootstrap, t, 1)
        broker.stop()
    yield w


KVLOG_TOPICS = ("kvlog-avro", "kvlog-proto", "kvlog-json")


def _kvlog_writes(root: Path, pb: Any) -> Path:
    """Topics written by kvlog (``Serializer.records`` into ``Log``), their schemas registered into a ``_schemas``
    topic kvlog keeps beside them: Avro values with Avro keys; Protobuf ``Order`` messages (with the reference to
    ``common.proto``) and ``Order.Address`` given as dicts (message indexes [0, 0]); JSON Schema documents."""
    from kvlog.schemas.registering import SchemasTopicWriter
    from kvlog.schemas.registry import SchemaReference

    with kvlog.LogManager(root) as mgr, SchemasTopicWriter(mgr) as reg:
        values = reg.serializer("kvlog-avro-value", json.dumps(AVRO_V1))
        keys = reg.serializer("kvlog-avro-key", json.dumps(AVRO_KEY))
        common = reg.register("common.proto", COMMON_PROTO, "PROTOBUF")
        orders = reg.serializer("kvlog-proto-value", SHOP_PROTO, "PROTOBUF",
                                references=[SchemaReference("common.proto", "common.proto", common.version or 1)])
        address = reg.serializer("kvlog-proto-address", SHOP_PROTO, "PROTOBUF", message="shop.Order.Address",
                                 references=[SchemaReference("common.proto", "common.proto", common.version or 1)])
        docs = reg.serializer("kvlog-json-value", json.dumps(JSON_SCHEMA), "JSON")
        for t in KVLOG_TOPICS:
            mgr.create_topic(t, 1)
        mgr.log("kvlog-avro", 0).append(values.records([avro_record(i, False) for i in range(N)],
                                                       keys=[{"k": i} for i in range(N)], key_serializer=keys))
        msgs = [proto_message(pb, i, False) for i in range(N)]
        mgr.log("kvlog-proto", 0).append(orders.records(msgs) + address.records(
            [{"street": f"s{i}", "zip": i} for i in range(N)]))
        mgr.log("kvlog-json", 0).append(docs.records([json_doc(i) for i in range(N)]))
    return root


# ------------------------------------------------------------------------------------------- comparison
def _plain(v: Any) -> Any:
    """A value as both sides can be compared: floats by their bits (NaN, -0.0), maps as sorted dicts."""
    if isinstance(v, float):
        return ("float", v.hex() if not math.isnan(v) else "nan")
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return {k: _plain(x) for k, x in v}  # an Arrow map's (key, value) pairs
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def kvlog_rows(data: Path, topic: str, **options: Any) -> dict[tuple[int, int], dict[str, Any]]:
    t = kvlog.scan(str(data), topic, threads=1, **options).read_all()
    return {(r["partition"], r["offset"]): r for r in t.to_pylist()}


def test_schemas_topic_replays_what_the_registry_holds(world):
    from kvlog.schemas.schemas_topic import SchemasTopic

    st = SchemasTopic.read(str(world.data))
    assert st.problems == []
    for subject in world.client.get_subjects():
        latest = world.client.get_latest_version(subject)
        assert st.version(subject).id == latest.schema_id
        assert st.version(subject).schema_type == latest.schema.schema_type


AVRO_MAPS = ("attrs", "buckets")


def _kvlog_avro(v: Any) -> Any:
    """kvlog's Avro record as Python, its maps (lists of pairs in Arrow) as dicts."""
    if v is None:
        return None
    return {k: dict(x) if k in AVRO_MAPS else x for k, x in v.items()}


def _avro_normal(v: Any) -> Any:
    """The deserializer's Avro value in the shape kvlog's columns have: the general union ``choice`` as its
    member struct, ``tm``/``tu`` as they are, decimals and timestamps compared as Python values."""
    if v is None:
        return None
    out = dict(v)
    c = v["choice"]
    out["choice"] = None if c is None else {
        "member0": c if isinstance(c, int) else None,
        "member1": c if isinstance(c, str) else None,
        "member2": c if isinstance(c, dict) else None}
    out["ref"] = str(v["ref"])
    out["local"] = v["local"].replace(tzinfo=None) if v["local"].tzinfo else v["local"]
    return _plain(out)


def test_avro_values_and_keys_equal_confluents_deserializer(world):
    reader = AvroDeserializer(world.client, json.dumps(AVRO_V2))
    keys = AvroDeserializer(world.client)
    ctx = SerializationContext("avro-orders", MessageField.VALUE)
    kctx = SerializationContext("avro-orders", MessageField.KEY)
    got = kvlog_rows(world.data, "avro-orders", value_format="registry", key_format="registry")
    assert len(got) == len(world.consumed["avro-orders"]) == 2 * N + 2
    for p, off, key, value, _ in world.consumed["avro-orders"]:
        row = got[(p, off)]
        want = reader(value, ctx) if value is not None else None
        assert _plain(_kvlog_avro(row["value"])) == _avro_normal(want), (p, off)
        assert row["key"] == keys(key, kctx)
        assert row["valueSchemaId"] == (None if value is None else int.from_bytes(value[1:5], "big"))
        assert row["keySchemaId"] == int.from_bytes(key[1:5], "big")


def test_avro_topic_exported_to_iceberg_equals_confluents_deserializer(world, tmp_path):
    """The broker's directory (stopped), its Avro topic exported into an Iceberg table with the schemas replayed
    offline from _schemas: read back with pyiceberg, each consumed record's value fields are the table's columns,
    as Confluent's deserializer gives them (the tombstones' all null); the key beside them as bytes."""
    import kvlog.iceberg as ki

    r = ki.export(world.data, "avro-orders", "kafka.avro_orders", warehouse=tmp_path / "wh",
                  value_format="registry")
    reader = AvroDeserializer(world.client, json.dumps(AVRO_V2))
    ctx = SerializationContext("avro-orders", MessageField.VALUE)
    import pyarrow.parquet as pq

    scan = ki.catalog(tmp_path / "wh").load_table("kafka.avro_orders").scan()
    # the data files as the table's manifests list them, read by Parquet's own reader; and pyiceberg's read
    files = pa.concat_tables([pq.read_table(t.file.file_path.removeprefix("file://")) for t in scan.plan_files()])
    raw = {(row["partition"], row["offset"]): row for row in files.to_pylist()}
    rows = {(row["partition"], row["offset"]): row for row in scan.to_arrow().to_pylist()}
    assert r.rows == len(rows) == len(raw) == len(world.consumed["avro-orders"]) == 2 * N + 2
    fields = [f["name"] for f in AVRO_V2["fields"]]
    for p, off, key, value, _ in world.consumed["avro-orders"]:
        row = raw[(p, off)]
        assert row["key"] == key
        if value is None:
            assert [(f, row[f]) for f in fields if row[f] is not None] == [] and row["valueSchemaId"] is None
            # pyiceberg 0.12 reads a null list of records as [] (its read projection rebuilds lists from their
            # offsets): every other column as the file holds it
            seen = rows[(p, off)]
            assert {f: seen[f] for f in fields if seen[f] is not None} == {"lines": []}
            assert seen == {**row, "lines": [], "headers": row["headers"] or []}
            continue
        got = {f: row[f] for f in fields}
        assert _plain(_kvlog_avro(got)) == _avro_normal(reader(value, ctx)), (p, off)
        assert row["valueSchemaId"] == int.from_bytes(value[1:5], "big")
        assert rows[(p, off)] == {**row, "headers": row["headers"] or []}  # (the same for an absent header list)


def test_avro_header_form_with_guids_from_a_third_party_source(world):
    reader = AvroDeserializer(world.client, json.dumps(AVRO_V1))
    source = MockRegistrySource(world.client)
    got = kvlog_rows(world.data, "avro-headers", value_format="registry", schemas=source)
    sid = world.client.get_latest_version("avro-headers-value").schema_id
    for p, off, _key, value, headers in world.consumed["avro-headers"]:
        hctx = SerializationContext("avro-headers", MessageField.VALUE, headers)
        want = reader(value, hctx)
        row = got[(p, off)]
        assert headers and headers[0][0] == "__value_schema_id"
        assert _plain(_kvlog_avro(row["value"])) == _avro_normal(want)
        # the id the source names for the header's GUID: a schema with the writer's text (the mock registry
        # registers one text under two ids where a real registry would reuse one)
        assert world.client.get_schema(row["valueSchemaId"]).schema_str == world.client.get_schema(sid).schema_str


class MockRegistrySource(SchemaSource):
    """The registry client as a kvlog schema source (GUIDs as the mock registry hands them out)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.description = "the mock registry"

    def _reg(self, sid: int, schema: Any, subject: str | None = None, version: int | None = None) -> RegisteredSchema:
        refs = tuple(SchemaReference(r.name, r.subject, r.version) for r in schema.references or ())
        return RegisteredSchema(sid, schema.schema_type, schema.schema_str, refs, subject, version)

    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        return self._reg(schema_id, self.client.get_schema(schema_id))

    def by_guid(self, guid: uuid.UUID) -> RegisteredSchema:
        schema = self.client.get_schema_by_guid(str(guid))
        for s in self.client.get_subjects():
            for v in self.client.get_versions(s):
                reg = self.client.get_version(s, v)
                if reg.schema.schema_str == schema.schema_str:
                    return self._reg(reg.schema_id, schema, s, v)
        raise AssertionError(guid)

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        reg = (self.client.get_latest_version(subject) if version == "latest"
               else self.client.get_version(subject, version))
        return self._reg(reg.schema_id, reg.schema, subject, reg.version)

    def subjects(self) -> list[str]:
        return list(self.client.get_subjects())


def _proto_expected(msg: Any) -> dict[str, Any]:
    """A deserialized message in kvlog's shape: presence fields null when absent, enums by name, maps as
    dicts, Timestamp and Duration as nanoseconds, wrappers as their value."""
    out: dict[str, Any] = {}
    for f in msg.DESCRIPTOR.fields:
        v = getattr(msg, f.name)
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            vf = f.message_type.fields_by_name["value"]
            out[f.name] = {k: (_proto_expected(x) if vf.message_type is not None else x) for k, x in v.items()}
            continue
        if f.is_repeated:
            out[f.name] = [_proto_expected(x) if f.message_type is not None else x for x in v]
            continue
        present = msg.HasField(f.name) if f.has_presence else True
        if not present:
            out[f.name] = None
        elif f.message_type is not None:
            name = f.message_type.full_name
            if name == "google.protobuf.Timestamp" or name == "google.protobuf.Duration":
                out[f.name] = v.ToNanoseconds()
            elif name.startswith("google.protobuf.") and name.endswith("Value"):
                out[f.name] = v.value
            else:
                out[f.name] = _proto_expected(v)
        elif f.enum_type is not None:
            out[f.name] = f.enum_type.values_by_number[v].name
        else:
            out[f.name] = v
    return out


def _kvlog_proto(v: Any, desc: Any) -> Any:
    """kvlog's Arrow message as plain values, walked with the message's descriptor: maps as dicts,
    Timestamp and Duration (pandas' Timestamp and Timedelta for nanosecond types) as nanoseconds."""
    if v is None:
        return None
    out = {}
    for f in desc.fields:
        x = v[f.name]
        mt = f.message_type
        if x is None:
            pass
        elif mt is not None and mt.GetOptions().map_entry:
            vt = mt.fields_by_name["value"].message_type
            x = {a: _kvlog_proto(b, vt) if vt is not None else b for a, b in x}
        elif isinstance(x, list):
            x = [_kvlog_proto(e, mt) if mt is not None else e for e in x]
        elif mt is not None and mt.full_name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
            x = x.value  # pandas' Timestamp/Timedelta: nanoseconds
        elif mt is not None and not mt.full_name.startswith("google.protobuf."):
            x = _kvlog_proto(x, mt)
        out[f.name] = x
    return out


def test_protobuf_values_equal_confluents_deserializer(world):
    deser = ProtobufDeserializer(world.pb_v2.Order, {"use.deprecated.format": False})
    ctx = SerializationContext("proto-orders", MessageField.VALUE)
    got = kvlog_rows(world.data, "proto-orders", value_format="registry")
    assert len(got) == 2 * N
    for p, off, _key, value, _ in world.consumed["proto-orders"]:
        want = _proto_expected(deser(value, ctx))
        row = got[(p, off)]
        assert _plain(_kvlog_proto(row["value"], world.pb_v2.Order.DESCRIPTOR)) == _plain(want), (p, off)


def test_protobuf_message_indexes_name_a_nested_message(world):
    deser = ProtobufDeserializer(world.pb.Order.Address, {"use.deprecated.format": False})
    ctx = SerializationContext("proto-address", MessageField.VALUE)
    got = kvlog_rows(world.data, "proto-address", value_format="registry", value_message="shop.Order.Address")
    for p, off, _key, value, _ in world.consumed["proto-address"]:
        assert value[5:7] == b"\x04\x00"  # indexes [0, 0]: the first message's first nested message
        desc = world.pb.Order.Address.DESCRIPTOR
        assert _kvlog_proto(got[(p, off)]["value"], desc) == _proto_expected(deser(value, ctx))
    # read as the file's first message, every record fails, saying which message it is
    bad = kvlog.scan(str(world.data), "proto-address", value_format="registry", errors="null").read_all()
    assert all("shop.Order.Address message" in e for e in bad.column("valueError").to_pylist())


def test_json_schema_values_equal_confluents_deserializer(world):
    deser = JSONDeserializer(json.dumps(JSON_SCHEMA))
    ctx = SerializationContext("json-orders", MessageField.VALUE)
    got = kvlog_rows(world.data, "json-orders", value_format="registry")
    for p, off, _key, value, _ in world.consumed["json-orders"]:
        want = deser(value, ctx)
        row = dict(got[(p, off)]["value"])
        extra = row.pop("additionalProperties")
        assert row.pop("when") == datetime.datetime.fromisoformat(want.pop("when"))
        assert row.pop("day") == datetime.date.fromisoformat(want.pop("day"))
        assert (json.loads(extra) if extra else {}) == {k: want.pop(k) for k in list(want) if k not in row}
        want["price"] = float(want["price"])  # (numbers are float64 columns: JSON's 0 is 0.0 there)
        want["nested"]["b"] = [float(x) for x in want["nested"]["b"]]
        assert _plain(row) == _plain(want)


def test_schemaless_json_equals_json_loads_and_bad_records_say_so(world):
    got = kvlog_rows(world.data, "json-free", value_format="json", errors="null")
    for p, off, _key, value, _ in world.consumed["json-free"]:
        row = got[(p, off)]
        try:
            want = json.loads(value)
        except ValueError:
            assert row["value"] is None and "not valid JSON" in row["valueError"]
            continue
        v = dict(row["value"])
        assert json.loads(v.pop("mixed")) == want.pop("mixed")  # (a number and a string: kept as JSON text)
        want["score"] = float(want["score"])  # (integers and numbers: float64)
        assert _plain(v) == _plain(want)


def test_connect_envelopes_typed_by_their_schema(world):
    got = kvlog_rows(world.data, "connect-env", value_format="json")
    for p, off, _key, value, _ in world.consumed["connect-env"]:
        payload = json.loads(value)["payload"]
        v = got[(p, off)]["value"]
        raw = base64.b64decode(payload["amount"])
        assert v["amount"] == decimal.Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-2)
        assert v["day"] == datetime.date(1970, 1, 1) + datetime.timedelta(days=payload["day"])
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        assert v["at"] == epoch + datetime.timedelta(milliseconds=payload["at"])
        assert v["blob"] == base64.b64decode(payload["blob"])
        assert (v["id"], v["name"], v["small"]) == (payload["id"], payload["name"], payload["small"])


# ------------------------------------------------------------------------------------ what kvlog writes
def test_what_kvlog_wrote_is_served_and_read_by_confluents_deserializers(world):
    """kvlog's typed topics, placed into the running broker: its consumer reads them, Confluent's deserializers
    decode them (Avro through a registry client holding the schemas kvlog registered, in kvlog's order, so the ids
    must agree), and kvlog reads them back offline with the schemas of the _schemas topic it wrote."""
    from confluent_kafka.schema_registry import Schema

    from kvlog.schemas.schemas_topic import SchemasTopic

    written = SchemasTopic.read(str(world.kvlog_schemas))
    client = SchemaRegistryClient.new_client({"url": f"mock://kvlog-written-{uuid.uuid4()}"})
    for sid in (1, 2):  # kvlog-avro-value, kvlog-avro-key: ids 1 and 2 in a registry that starts empty
        s = written.by_id(sid)
        assert client.register_schema(s.subject, Schema(s.schema, "AVRO")) == sid
    ctx = SerializationContext("kvlog-avro", MessageField.VALUE)
    kctx = SerializationContext("kvlog-avro", MessageField.KEY)
    de = AvroDeserializer(client)
    consumed = world.consumed["kvlog-avro"]
    assert len(consumed) == N
    for (_, off, key, value, _), i in zip(consumed, range(N)):
        assert off == i and value[:5] == b"\x00\x00\x00\x00\x01" and key[:5] == b"\x00\x00\x00\x00\x02"
        want = avro_record(i, False)
        want["score"] = struct.unpack("<f", struct.pack("<f", want["score"]))[0]  # (an Avro float: 32 bits)
        assert _avro_normal(de(value, ctx)) == _avro_normal(want)
        assert de(key, kctx) == {"k": i}
    proto = world.consumed["kvlog-proto"]
    orders = ProtobufDeserializer(world.pb.Order, {"use.deprecated.format": False})
    address = ProtobufDeserializer(world.pb.Order.Address, {"use.deprecated.format": False})
    pctx = SerializationContext("kvlog-proto", MessageField.VALUE)
    for i, (_, _, _, value, _) in enumerate(proto[:N]):
        assert orders(value, pctx) == proto_message(world.pb, i, False)
    for i, (_, _, _, value, _) in enumerate(proto[N:]):
        assert value[5:7] == b"\x04\x00"
        assert address(value, pctx) == world.pb.Order.Address(street=f"s{i}", zip=i)
    jde = JSONDeserializer(json.dumps(JSON_SCHEMA))
    jctx = SerializationContext("kvlog-json", MessageField.VALUE)
    for i, (_, _, _, value, _) in enumerate(world.consumed["kvlog-json"]):
        assert jde(value, jctx) == json.loads(json.dumps(json_doc(i), default=str))
    # and kvlog reads its own writes from the broker's directory, with the schemas it registered
    got = kvlog_rows(world.data, "kvlog-avro", value_format="registry", key_format="registry",
                     schemas=str(world.kvlog_schemas))
    for (p, off, _, value, _) in consumed:
        row = got[(p, off)]
        assert row["key"] == {"k": off} and row["value"]["customer"] == avro_record(off, False)["customer"]
