"""Typed topics (issue 49): wire-format payloads decoded into Arrow columns, a typed scan beside the binary scan
of the same records, and one payload a call. The payloads are written by kvlog's own ``Serializer`` from
seeded rows (the peers, fastavro, arrow-avro, upb and pyarrow.json, are in ``asv_bench/typed_bench.py``).
"""

import datetime
import decimal
import json
import os
import random
import shutil
import tempfile

import pyarrow as pa

import kvlog
from kvlog.schemas.decoding import ColumnDecoder
from kvlog.schemas.plans import AvroPlan, JsonPlan, ProtobufPlan
from kvlog.schemas.registering import SchemasTopicWriter, Serializer
from kvlog.schemas.registry import RegisteredSchema, SchemaMapping

from .common import T0

N = 50_000
BATCH = 8192
ORDERS = {"type": "record", "name": "Order", "namespace": "bench", "fields": [
    {"name": "id", "type": "long"},
    {"name": "customer", "type": ["null", "string"]},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
    {"name": "created_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "counters", "type": {"type": "map", "values": "int"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
    {"name": "shipping", "type": ["null", {"type": "record", "name": "Address", "fields": [
        {"name": "city", "type": "string"}, {"name": "zip", "type": "int"}]}]},
    {"name": "ref", "type": ["int", "string", "null"]},
    {"name": "score", "type": "float"},
    {"name": "ship_date", "type": {"type": "int", "logicalType": "date"}},
]}
SIMPLE = {"type": "record", "name": "Simple", "namespace": "bench", "fields": [
    {"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "price", "type": "double"},
    {"name": "qty", "type": "int"}]}
PROTO = """syntax = "proto3";
package bench;
message Order {
  int64 id = 1;
  string customer = 2;
  double total = 3;
  repeated string tags = 4;
  map<string, int32> counters = 5;
  Status status = 6;
  Address ship = 7;
  message Address { string city = 1; int32 zip = 2; }
}
enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
"""
JSON_SCHEMA = {"type": "object", "properties": {
    "id": {"type": "integer"}, "customer": {"type": "string"}, "total": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}}, "paid": {"type": "boolean"},
    "ship": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}}}}
CITIES = ["Lisboa", "Porto", "Berlin", "Zürich", "Osaka"]


def _order(rng, i):
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    return {"id": i, "customer": None if i % 5 == 0 else f"c{rng.randrange(10**6)}",
            "amount": decimal.Decimal(rng.randrange(10**8)) / 100,
            "created_at": base + datetime.timedelta(milliseconds=rng.randrange(10**10)),
            "tags": [f"t{rng.randrange(9)}" for _ in range(rng.randrange(4))],
            "counters": {f"k{j}": rng.randrange(1000) for j in range(rng.randrange(3))},
            "status": rng.choice(["NEW", "PAID", "SHIPPED"]),
            "shipping": None if i % 3 == 0 else {"city": rng.choice(CITIES), "zip": rng.randrange(99999)},
            "ref": [i, f"r{i}", None][i % 3], "score": rng.random(), "ship_date": datetime.date(2024, 1, 1)}


def _column(schema, schema_type, rows):
    reg = RegisteredSchema(1, schema_type, schema)
    ser = Serializer(reg)
    return pa.array([ser(r) for r in rows], pa.binary()), SchemaMapping({1: reg}, subjects={"s": [1]})


def _datasets():
    rng = random.Random(49)
    orders = [_order(rng, i) for i in range(N)]
    simple = [{"id": i, "name": f"n{rng.randrange(10**6)}", "price": rng.random() * 100, "qty": rng.randrange(50)}
              for i in range(N)]
    protos = [{"id": i, "customer": f"c{i}", "total": rng.random() * 100, "tags": ["a", "b"][: i % 3],
               "counters": {"x": i % 7}, "status": ["NEW", "PAID", "SHIPPED"][i % 3],
               "ship": {"city": rng.choice(CITIES), "zip": i % 99999}} for i in range(N)]
    docs = [{"id": i, "customer": f"c{i}", "total": rng.random() * 100, "tags": ["a"] * (i % 3), "paid": i % 2 == 0,
             "ship": {"city": rng.choice(CITIES), "zip": i % 99999}} for i in range(N)]
    return {"avro-orders": (json.dumps(ORDERS), "AVRO", orders), "avro-simple": (json.dumps(SIMPLE), "AVRO", simple),
            "protobuf": (PROTO, "PROTOBUF", protos), "json": (json.dumps(JSON_SCHEMA), "JSON", docs)}


_PLANS = {"AVRO": AvroPlan, "PROTOBUF": ProtobufPlan, "JSON": JsonPlan.from_registered}


class TimeDecodeColumns:
    """N payloads of the wire format decoded into Arrow, 8 192 rows a call."""

    params = ["avro-orders", "avro-simple", "protobuf", "json"]
    param_names = ["payloads"]
    timeout = 300

    def setup_cache(self):
        return {k: _column(*v) for k, v in _datasets().items()}

    def setup(self, cache, which):
        self.col, self.src = cache[which]
        self.plan = _PLANS[self.src.by_id(1).schema_type](self.src.version("s"), self.src)

    def time_decode(self, cache, which):
        dec = ColumnDecoder(self.plan, source=self.src)
        for k in range(0, len(self.col), BATCH):
            dec.decode(self.col.slice(k, BATCH))


class TimeDecodeOne:
    """One Avro payload a call, 1 000 calls (the per-call cost: divide by 1 000)."""

    def setup(self):
        rng = random.Random(7)
        col, self.src = _column(json.dumps(ORDERS), "AVRO", [_order(rng, i) for i in range(1000)])
        self.one = [col.slice(i, 1) for i in range(len(col))]
        self.dec = ColumnDecoder(AvroPlan(self.src.version("s"), self.src), source=self.src)

    def time_decode_one_x1000(self):
        for c in self.one:
            self.dec.decode(c)


class TimeTypedScan:
    """A data directory holding N Avro orders in two partitions and its ``_schemas``: the binary scan and the
    typed scan (``value_format="registry"``) of the same records, one thread and the default."""

    params = [1, None]
    param_names = ["threads"]
    timeout = 300

    def setup_cache(self):
        rng = random.Random(11)
        root = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        with kvlog.LogManager(root) as mgr, SchemasTopicWriter(mgr) as reg:
            ser = reg.serializer("orders-value", json.dumps(ORDERS))
            mgr.create_topic("orders", 2)
            for p in range(2):
                rows = [_order(rng, i) for i in range(N // 2)]
                for k in range(0, len(rows), 1000):
                    mgr.log("orders", p).append(ser.records(rows[k:k + 1000], timestamps=[T0] * len(rows[k:k + 1000])))
        return root

    def teardown_cache(self, root):  # (asv has no such hook; the directory is small and on tmpfs)
        shutil.rmtree(root, ignore_errors=True)

    def time_binary_scan(self, root, threads):
        kvlog.scan(root, "orders", threads=threads).read_all()

    def time_typed_scan(self, root, threads):
        kvlog.scan(root, "orders", value_format="registry", threads=threads).read_all()
