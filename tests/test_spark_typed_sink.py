"""Typed keys and values written by the Python sink (``format("kvlog_python")`` with ``valueFormat``): struct
rows encoded in the schema registry's wire format, the schema registered into the data directory's
``_schemas`` as the registry would; Confluent's deserializers (given the schemas the sink registered) read the
payloads back to the rows, kvlog's typed scan too; bare Avro, text, schemaless JSON; the JVM sink says the
typed options are the Python sink's; a subject without a version and a row that does not fit say so."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid

import pytest

import kvlog
from kvlog.schemas.schemas_topic import SchemasTopic

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]

AVSC = {"type": "record", "name": "Click", "namespace": "web", "fields": [
    {"name": "id", "type": "long"},
    {"name": "page", "type": "string"},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "ref", "type": ["null", "string"], "default": None},
    {"name": "where", "type": ["null", {"type": "record", "name": "Geo", "fields": [
        {"name": "lat", "type": "double"}, {"name": "lon", "type": "double"}]}], "default": None},
]}
SPARK_SCHEMA = ("id long, page string, at timestamp, day date, price decimal(10,2), tags array<string>, "
                "attrs map<string,long>, ref string, where struct<lat:double,lon:double>")
PROTO = """syntax = "proto3";
package web;
message Click {
  int64 id = 1;
  string page = 2;
  repeated string tags = 3;
  map<string, int64> attrs = 4;
  Geo where = 5;
  message Geo { double lat = 1; double lon = 2; }
}
"""
N = 40
BASE = datetime.datetime(2025, 3, 1, 8, 0, tzinfo=datetime.timezone.utc)


def click(i: int) -> dict[str, object]:
    return {"id": i, "page": f"/p/{i % 7} ☃", "at": BASE + datetime.timedelta(microseconds=i * 1_000_003),
            "day": datetime.date(2025, 3, 1) + datetime.timedelta(days=i), "price": decimal.Decimal(f"{i}.{i % 100:02d}"),
            "tags": [f"t{j}" for j in range(i % 3)], "attrs": {f"k{j}": i * j for j in range(i % 4)},
            "ref": None if i % 2 else f"r{i}", "where": None if i % 3 == 0 else {"lat": i / 3, "lon": -i / 7}}


def frame(spark, n: int = N):
    from pyspark.sql import functions as F

    rows = [(f"user-{i % 5}", click(i)) for i in range(n)]
    df = spark.createDataFrame([(k, json.dumps(v, default=str)) for k, v in rows], "key string, j string")
    return df.select("key", F.from_json("j", SPARK_SCHEMA).alias("value")), rows


def _utc(v):
    return v.astimezone(datetime.timezone.utc) if isinstance(v, datetime.datetime) else v


def test_registry_values_read_by_confluents_deserializer_and_by_kvlog(spark, tmp_path):
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    root = tmp_path / "data"
    df, rows = frame(spark)
    (df.write.format("kvlog_python").mode("append").option("topic", "clicks").option("partitions", "2")
     .option("keyFormat", "string").option("valueFormat", "registry").option("valueSchema", json.dumps(AVSC))
     .save(str(root)))
    # the registry's records: a NOOP, then version 1 with id 1
    registry = SchemasTopic.read(str(root))
    reg = registry.version("clicks-value")
    assert (reg.id, reg.version, reg.schema_type) == (1, 1, "AVRO")
    with kvlog.LogManager(root, read_only=True) as mgr:
        first = list(mgr.log("_schemas", 0).records())[:2]
        records = [r for p in mgr.partitions("clicks") for r in mgr.log("clicks", p).records()]
    assert first[0].key == b'{"keytype":"NOOP","magic":0}' and first[0].value is None
    assert first[1].key == b'{"keytype":"SCHEMA","subject":"clicks-value","version":1,"magic":1}'
    assert json.loads(first[1].value)["id"] == 1
    # Confluent's deserializer, its mock registry holding what the sink registered (ids from 1, as the sink's)
    client = SchemaRegistryClient.new_client({"url": f"mock://typed-sink-{uuid.uuid4()}"})
    from confluent_kafka.schema_registry import Schema

    assert client.register_schema("clicks-value", Schema(reg.schema, "AVRO")) == 1
    de = AvroDeserializer(client)
    ctx = SerializationContext("clicks", MessageField.VALUE)
    want = {json.dumps(v, default=str, sort_keys=True): k for k, v in rows}
    got = {}
    for r in records:
        assert r.value[:5] == b"\x00\x00\x00\x00\x01"
        v = de(r.value, ctx)
        v["at"] = _utc(v["at"])
        got[json.dumps(v, default=str, sort_keys=True)] = r.key.decode()
    assert got == want
    # kvlog's typed scan of what the sink wrote
    t = kvlog.scan(str(root), "clicks", key_format="string", value_format="registry").read_all()
    assert t.num_rows == N and set(t.column("valueSchemaId").to_pylist()) == {1}
    by_id = {r["value"]["id"]: r for r in t.to_pylist()}
    for k, v in rows:
        r = by_id[v["id"]]
        assert r["key"] == k and r["value"]["page"] == v["page"] and r["value"]["price"] == v["price"]
        assert r["value"]["at"] == v["at"] and dict(r["value"]["attrs"]) == v["attrs"]
    # a second write with the same schema registers nothing new; routing hashed the encoded keys
    (df.write.format("kvlog_python").mode("append").option("topic", "clicks").option("keyFormat", "string")
     .option("valueFormat", "registry").option("valueSchema", json.dumps(AVSC)).save(str(root)))
    assert [s.id for s in SchemasTopic.read(str(root)).schemas()] == [1]
    t2 = kvlog.scan(str(root), "clicks", key_format="string").read_all().to_pylist()
    parts = {}
    for r in t2:
        parts.setdefault(r["key"], set()).add(r["partition"])
    assert all(len(p) == 1 for p in parts.values())


def test_latest_version_of_a_registered_subject_and_protobuf(spark, tmp_path):
    from google.protobuf import json_format  # noqa: F401  (protobuf's runtime: the reading side's oracle below)

    from kvlog.schemas.registering import SchemasTopicWriter

    root = tmp_path / "data"
    with SchemasTopicWriter(str(root)) as w:
        reg = w.register("clicks-proto-value", PROTO, "PROTOBUF")
    df = spark.createDataFrame(
        [(i, f"/p/{i}", [f"t{i}"], {"a": i}, (i / 2, -i / 2) if i % 2 else None) for i in range(N)],
        "id long, page string, tags array<string>, attrs map<string,long>, where struct<lat:double,lon:double>")
    from pyspark.sql import functions as F

    (df.select(F.struct(*df.columns).alias("value")).write.format("kvlog_python").mode("append")
     .option("topic", "clicks-proto").option("valueFormat", "registry").save(str(root)))
    t = kvlog.scan(str(root), "clicks-proto", value_format="registry").read_all()
    assert set(t.column("valueSchemaId").to_pylist()) == {reg.id}
    got = sorted(t.column("value").to_pylist(), key=lambda v: v["id"])
    assert [v["id"] for v in got] == list(range(N))
    assert got[3]["where"] == {"lat": 1.5, "lon": -1.5} and got[4]["where"] is None
    assert dict(got[5]["attrs"]) == {"a": 5} and got[5]["tags"] == ["t5"]
    with kvlog.LogManager(root, read_only=True) as mgr:
        raw = next(iter(mgr.log("clicks-proto", 0).records())).value
    assert raw[:6] == b"\x00" + reg.id.to_bytes(4, "big") + b"\x00"  # the first message: index list [0] as 0


def test_bare_avro_text_and_schemaless_json(spark, tmp_path):
    import fastavro

    root = tmp_path / "data"
    df, rows = frame(spark, 12)
    (df.write.format("kvlog_python").mode("append").option("topic", "bare").option("keyFormat", "string")
     .option("valueFormat", "avro").option("valueSchema", json.dumps(AVSC)).save(str(root)))
    (df.write.format("kvlog_python").mode("append").option("topic", "docs").option("valueFormat", "json")
     .save(str(root)))
    with kvlog.LogManager(root, read_only=True) as mgr:
        bare = list(mgr.log("bare", 0).records())
        docs = list(mgr.log("docs", 0).records())
        assert "_schemas" not in mgr.topics()  # (bare payloads register nothing)
    import io

    parsed = fastavro.parse_schema(AVSC)
    got = sorted((fastavro.schemaless_reader(io.BytesIO(r.value), parsed) for r in bare), key=lambda v: v["id"])
    assert [g["page"] for g in got] == [v["page"] for _, v in rows]
    assert [g["price"] for g in got] == [v["price"] for _, v in rows]
    first = json.loads(docs[0].value)
    assert first["id"] == 0 and first["page"] == "/p/0 ☃"


def test_the_jvm_sink_says_typed_writes_are_the_python_sinks(jvm, tmp_path):
    df, _ = frame(jvm, 2)
    (tmp_path / "jvm").mkdir()
    with pytest.raises(Exception, match=r'format\("kvlog_python"\)'):
        (df.write.format("kvlog").mode("append").option("topic", "t").option("valueFormat", "registry")
         .option("valueSchema", json.dumps(AVSC)).save(str(tmp_path / "jvm")))


def test_bad_options_and_rows_that_do_not_fit(spark, tmp_path):
    df, _ = frame(spark, 3)
    root = str(tmp_path / "data")
    w = df.write.format("kvlog_python").mode("append").option("topic", "t")
    with pytest.raises(Exception, match="has none|no subject 't-value'"):
        w.option("valueFormat", "registry").save(root)
    with pytest.raises(Exception, match="give option valueSchema"):
        df.write.format("kvlog_python").mode("append").option("topic", "t").option("valueFormat", "avro").save(root)
    with pytest.raises(Exception, match="a format is one of"):
        df.write.format("kvlog_python").mode("append").option("topic", "t").option("valueFormat", "avr").save(root)
    narrow = {"type": "record", "name": "N", "fields": [{"name": "id", "type": "int"},
                                                        {"name": "missing", "type": "string"}]}
    with pytest.raises(Exception, match=r"no value for field N\.missing"):
        (df.write.format("kvlog_python").mode("append").option("topic", "t").option("valueFormat", "registry")
         .option("valueSchema", json.dumps(narrow)).save(root))
    with kvlog.LogManager(root, read_only=True) as mgr:  # nothing was written to t
        assert "t" not in mgr.topics() or all(mgr.log("t", p).log_end_offset == 0 for p in mgr.partitions("t"))
