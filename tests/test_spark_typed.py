"""Typed keys and values in both Spark engines: the JVM scan (Avro through Avro's own Java reader) and the
Python source (the C kernels) give the same rows for the same topic, row by row; the JVM scan agrees with
Spark's own ``from_avro`` (spark-avro, fetched by ``make spark-jars``) on each writer version; errors, dead
letters and pruned struct fields; the formats the JVM leaves to the Python source say so."""

from __future__ import annotations

import datetime
import decimal
import json
import math
import uuid

import pytest

import kvlog
from kvlog.schemas.registry import SchemaMapping

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark")]

ADDRESS = {"type": "record", "name": "Address", "fields": [
    {"name": "street", "type": "string"}, {"name": "zip", "type": "int"}]}
V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": "string"},
    {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
    {"name": "big", "type": {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 3}},
    {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "updated", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "nanos", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
    {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "tu", "type": {"type": "long", "logicalType": "time-micros"}},
    {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "span", "type": {"type": "fixed", "name": "Span", "size": 12, "logicalType": "duration"}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
    {"name": "ship", "type": ["null", ADDRESS]},
    {"name": "choice", "type": ["int", "string", "shop.Address", "null"]},
    {"name": "raw", "type": "bytes"},
    {"name": "digest", "type": {"type": "fixed", "name": "Md5", "size": 16}},
    {"name": "flag", "type": "boolean"},
    {"name": "score", "type": "float"},
    {"name": "ratio", "type": "double"},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
        {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
]}
V2 = json.loads(json.dumps(V1))
V2["fields"][1] = {"name": "client", "type": "string", "aliases": ["customer"]}
V2["fields"][21] = {"name": "score", "type": "double"}
V2["fields"].append({"name": "email", "type": ["null", "string"], "default": None})
V2["fields"].append({"name": "priority", "type": "int", "default": 3})
N = 30


def record(i: int, v2: bool) -> dict[str, object]:
    base = datetime.datetime(2024, 2, 29, 12, 0, tzinfo=datetime.timezone.utc)
    r: dict[str, object] = {
        "id": (-1) ** i * (2**40 + i), ("client" if v2 else "customer"): f"c{i} ☃",
        "price": decimal.Decimal(f"{(-1) ** i * i * 1234567}.{i % 100:02d}"),
        "big": decimal.Decimal(f"{10**26 + i}.{i:03d}"),
        "created": base + datetime.timedelta(milliseconds=i * 1001),
        "updated": base + datetime.timedelta(microseconds=i * 1000003),
        "nanos": 1_700_000_000_123_456_789 + i * 1001,
        "local": datetime.datetime(2023, 1, 1, 8, 30) + datetime.timedelta(seconds=i),
        "day": datetime.date(1969, 12, 31) + datetime.timedelta(days=i * 40),
        "tm": datetime.time(23, 59, 59, 999000) if i % 5 == 0 else datetime.time(0, 0, i % 60),
        "tu": datetime.time(12, 34, 56, i),
        "ref": uuid.UUID(int=i * 0x1234567890ABCDEF),
        "span": (i % 13).to_bytes(4, "little") + (i * 3).to_bytes(4, "little") + (i * 1000).to_bytes(4, "little"),
        "tags": [f"t{j}" for j in range(i % 4)],
        "attrs": {f"k{j}": -j * i for j in range(i % 3)},
        "status": ["NEW", "PAID", "SHIPPED"][i % 3],
        "ship": None if i % 3 == 0 else {"street": f"{i} Main St", "zip": 10000 + i},
        "choice": [i, f"s{i}", {"street": "x", "zip": i}, None][i % 4],
        "raw": bytes(range(i % 7)),
        "digest": bytes((i + j) % 256 for j in range(16)),
        "flag": i % 2 == 0,
        "score": [1.5, -0.0, math.inf, -3.25e10][i % 4],
        "ratio": [math.pi, -1e-300, 1e308, 0.0][i % 4],
        "lines": [{"sku": f"sku-{j}", "qty": j} for j in range(i % 3)],
    }
    if v2:
        r["email"] = None if i % 2 else f"u{i}@example.com"
        r["priority"] = i
    return r


@pytest.fixture(scope="module")
def topic(tmp_path_factory):
    """A data directory: ``_schemas`` as Confluent's registry writes it, and ``orders`` (2 partitions) with values
    serialized by Confluent's AvroSerializer over two schema versions, a tombstone and a damaged value."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    root = tmp_path_factory.mktemp("spark-typed")
    client = SchemaRegistryClient.new_client({"url": f"mock://spark-typed-{uuid.uuid4()}"})
    ctx = SerializationContext("orders", MessageField.VALUE)
    mgr = kvlog.LogManager(root)
    mgr.create_topic("_schemas", 1)
    mgr.create_topic("orders", 2)
    texts = {}
    for version, (schema, v2) in enumerate(((V1, False), (V2, True)), start=1):
        ser = AvroSerializer(client, json.dumps(schema))
        for i in range(N):
            value = ser(record(i, v2), ctx)
            key = json.dumps({"k": i}).encode()
            mgr.log("orders", i % 2).append([kvlog.Record(key, value, 1_700_000_000_000 + i)])
        reg = client.get_latest_version("orders-value")
        texts[reg.schema_id] = reg.schema.schema_str
        k = json.dumps({"keytype": "SCHEMA", "subject": "orders-value", "version": version, "magic": 1},
                       separators=(",", ":")).encode()
        v = json.dumps({"subject": "orders-value", "version": version, "id": reg.schema_id,
                        "schema": reg.schema.schema_str, "deleted": False}, separators=(",", ":")).encode()
        mgr.log("_schemas", 0).append([kvlog.Record(k, v, 0)])
    mgr.log("orders", 0).append([kvlog.Record(b"gone", None, 1), kvlog.Record(b"bad", b"\x00\x00\x00\x00\x01\x02", 2)])
    mgr.create_topic("damaged", 1)
    mgr.log("damaged", 0).append([kvlog.Record(str(i).encode(), v, 3) for i, v in enumerate(damaged(texts))])
    mgr.close()
    return root, texts


def damaged(texts: dict[int, str]) -> list[bytes]:
    """Payloads of version 1 cut short at every length, and with bytes that no reader may accept: a magic byte
    of 2, an unknown id, a byte too many, a union branch, an enum symbol, a negative length, a string that is
    not UTF-8, an overlong varint, a boolean of 2."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    client = SchemaRegistryClient.new_client({"url": f"mock://damaged-{uuid.uuid4()}"})
    good = AvroSerializer(client, texts[1])(record(7, False), SerializationContext("orders", MessageField.VALUE))
    out = [good[:n] for n in range(len(good))]
    out += [b"\x02" + good[1:], b"\x00\x00\x00\x00\x63" + good[5:], good + b"\x00", b"\x00\x00"]
    body = bytearray(good[5:])
    # the fields before "customer": id (a long); customer's length byte follows it
    n_id = next(i for i, x in enumerate(body) if not x & 0x80) + 1
    for at, byte in ((n_id, 0x01), (n_id + 1, 0xFF), (n_id, 0xFF)):
        b = bytearray(body)
        b[at] = byte
        out.append(good[:5] + bytes(b))
    out.append(good[:5] + b"\xff" * 11)
    return out


def rows(df):
    return sorted(df.collect(), key=lambda r: (r.partition, r.offset))


def read(spark, fmt, root, **options):
    r = spark.read.format(fmt).option("subscribe", options.pop("subscribe", "orders"))
    for k, v in options.items():
        r = r.option(k, v)
    return r.load(str(root))


def test_both_engines_give_the_same_rows(jvm, topic):
    root, _ = topic
    opts = {"valueFormat": "registry", "keyFormat": "string", "errors": "deadletter"}
    j = read(jvm, "kvlog", root, **opts)
    p = read(jvm, "kvlog_python", root, **opts)
    assert j.schema == p.schema
    got_j, got_p = rows(j), rows(p)
    assert len(got_j) == 2 * N + 2
    assert got_j == got_p
    bad = [r for r in got_j if r.valueError is not None]
    assert [(r.key, r.valueBytes, r.valueSchemaId) for r in bad] == [("bad", b"\x00\x00\x00\x00\x01\x02", 1)]
    assert [r.key for r in got_j if r.value is None] == ["gone", "bad"]


@pytest.mark.parametrize("reader", ["latest", "the writer's"])
def test_both_engines_give_the_same_reasons_for_damaged_payloads(jvm, topic, reader):
    # (read as the latest version, the JVM resolves through Avro's reader; as the writer's own schema it runs
    # its compiled walk: both must say what the kernels say)
    root, texts = topic
    opts = {"subscribe": "damaged", "valueFormat": "registry", "valueSubject": "orders-value", "errors": "null"}
    if reader != "latest":
        opts["valueSchema"] = texts[1]
    j, p = (rows(read(jvm, fmt, root, **opts).select("partition", "offset", "valueSchemaId", "valueError"))
            for fmt in ("kvlog", "kvlog_python"))
    assert len(j) == len(p) > 40
    for a, b in zip(j, p):
        assert a == b
    j, p = (rows(read(jvm, fmt, root, **opts).select("partition", "offset", "value")) for fmt in ("kvlog", "kvlog_python"))
    assert j == p


def test_the_jvm_agrees_with_from_avro_per_writer_version(jvm, topic):
    pytest.importorskip("pyspark.sql.avro.functions")
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    if not jvm.sparkContext._jvm.org.apache.spark.util.Utils.classIsLoadable("org.apache.spark.sql.avro.AvroDataToCatalyst"):
        pytest.fail("spark-avro is not on the test session's classpath: run make spark-jars")
    root, texts = topic
    for sid, text in sorted(texts.items()):
        # the JVM scan with this version as the reader schema; its own records are read as they were written
        ours = read(jvm, "kvlog", root, valueFormat="registry", valueSchema=text, errors="null").select(
            "partition", "offset", "value")
        raw = read(jvm, "kvlog", root).where((F.length("value") > 6)
                                             & (F.substring("value", 2, 4) == F.lit(sid.to_bytes(4, "big"))))
        # (from_avro reads timestamp-nanos as Spark 4.2's timestamp_ltz(9), which PySpark cannot collect)
        spark_side = raw.select("partition", "offset",
                                from_avro(F.expr("substring(value, 6)"), text).dropFields("nanos").alias("value"))
        keyed = {(r.partition, r.offset): r.value for r in spark_side.collect()}
        mine = {(r.partition, r.offset): r.value for r in ours.collect() if (r.partition, r.offset) in keyed}
        assert len(keyed) == N and mine.keys() == keyed.keys()
        for k in keyed:
            assert _from_avro_shape(mine[k]) == _from_avro_shape(keyed[k]), k


def _from_avro_shape(v):
    """A row as both sides can be compared: Spark's from_avro reads time-of-day as int/long of its own unit and
    nanosecond timestamps as long; kvlog as microseconds of the day and timestamps. Those fields are compared on
    their instant; the rest as they are."""
    if v is None:
        return None
    d = v.asDict(recursive=True)
    for name in ("tm", "tu", "nanos", "span", "big"):
        d.pop(name, None)
    return d


def test_pruned_struct_fields_and_projections_agree(jvm, topic):
    root, _ = topic
    a, b = (rows(read(jvm, fmt, root, valueFormat="registry", errors="null").select(
        "partition", "offset", "value.status", "value.ship.zip", "valueError")) for fmt in ("kvlog", "kvlog_python"))
    assert len(a) == 2 * N + 2
    assert a == b
    assert {r.status for r in a} == {"NEW", "PAID", "SHIPPED", None}


def test_errors_raise_name_the_record_in_both_engines(jvm, topic):
    root, _ = topic
    for fmt in ("kvlog", "kvlog_python"):
        with pytest.raises(Exception, match=r"value: the payload ends inside a value .*orders-0, offset 31"):
            read(jvm, fmt, root, valueFormat="registry").collect()


def test_formats_the_jvm_leaves_to_the_python_source_say_so(jvm, topic):
    root, _ = topic
    for opts in ({"valueFormat": "protobuf", "valueSchema": "syntax = \"proto3\"; message M {}"},
                 {"valueFormat": "json"}):
        with pytest.raises(Exception, match='format\\("kvlog_python"\\)'):
            read(jvm, "kvlog", root, **opts).schema


def test_a_mapping_source_is_the_python_sides_own(jvm, topic):
    # (a schema source given in Python reaches the Python scan; Spark's options carry text only)
    root, texts = topic
    src = SchemaMapping(dict(texts), subjects={"orders-value": sorted(texts)})
    t = kvlog.scan(str(root), "orders", value_format="registry", schemas=src, errors="null").read_all()
    assert t.num_rows == 2 * N + 2


def test_a_version_registered_after_a_read_is_known_to_the_next_read(jvm, tmp_path):
    """The JVM engine replays a directory's ``_schemas`` once per content, not once per session: a read after a
    new version was registered decodes its records (it failed with 'unknown schema id 2', the replay of the
    first read kept for the session's life), in both engines alike."""
    from kvlog.schemas.registering import register_and_serializer

    root = tmp_path / "d"
    v1 = {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"}]}
    v2 = {**v1, "fields": v1["fields"] + [{"name": "note", "type": ["null", "string"], "default": None}]}
    with kvlog.LogManager(root) as m:
        m.create_topic("later", 1)
    s1 = register_and_serializer(root, "later-value", json.dumps(v1))
    with kvlog.LogManager(root) as m:
        m.log("later", 0).append([kvlog.Record(b"a", s1({"id": 1}), 1)])
    first = rows(read(jvm, "kvlog", root, subscribe="later", valueFormat="registry"))
    assert [r.value.id for r in first] == [1]
    s2 = register_and_serializer(root, "later-value", json.dumps(v2))
    with kvlog.LogManager(root) as m:
        m.log("later", 0).append([kvlog.Record(b"b", s2({"id": 2, "note": "new"}), 2)])
    for fmt in ("kvlog", "kvlog_python"):
        got = rows(read(jvm, fmt, root, subscribe="later", valueFormat="registry"))
        assert [(r.value.id, r.value.note, r.valueSchemaId) for r in got] == [(1, None, 1), (2, "new", 2)], fmt
