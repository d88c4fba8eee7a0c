#!/usr/bin/env python
"""Typed topics against their peers, side by side in one run (issue 49's targets).

    python asv_bench/typed_bench.py            # 300 000 records a case, best of 7 (a few minutes)
    python asv_bench/typed_bench.py --quick    # 60 000 records, best of 3
    python asv_bench/typed_bench.py --json out.json --cases avro,scan

Cases (ratios > 1 mean kvlog is faster; each figure the best of ``--repeat`` runs, the sides of a ratio run
alternately so that a neighbour's load touches both alike):

* ``avro``: Avro payloads in the registry's wire format (``asv_bench/rust_avro/make_input.py``'s ``orders``, an
  11-field record with a decimal, timestamps, an array, a map, an enum, a nullable record and a 3-branch union,
  and ``simple``, 4 scalar fields) decoded into Arrow: kvlog's ``ColumnDecoder`` against fastavro's
  ``schemaless_reader`` per record feeding ``pyarrow.Table.from_pylist`` (target ≥ 50×) and against the Rust
  ``arrow-avro`` crate decoding the same payloads through its own wire-format support (``rust_avro/``, built with
  ``cargo build --release --locked``; target ≥ 1.0×; its batch size and kvlog's are both 8 192 rows here);
* ``protobuf``: an order message (nested, repeated, map, enum, oneof, Timestamp) against protobuf's upb parser
  plus ``MessageToDict`` per record into ``from_pylist`` (target ≥ 20×);
* ``json``: JSON Schema-typed documents against ``pyarrow.json.read_json`` of the same documents, newline-
  delimited, with the same explicit schema (target ≥ 1.0×);
* ``scan``: a typed scan (``value_format="registry"``) of a data directory holding the ``orders`` (and the
  ``simple``) payloads, all of Spark's Kafka-source columns, against the binary scan of the same records, one
  thread and the default (target: the typed scan costs ≤ 1.5× the binary one);
* ``point``: one record decoded at a time (a 1-row column), kvlog against fastavro's ``schemaless_reader`` of one
  payload: the per-call cost.

The machine, the kernels kvlog chose (``kvlog._core.build_info()``) and the load average are printed with the
figures.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import platform
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import pyarrow as pa

HERE = Path(__file__).resolve().parent
RUST = HERE / "rust_avro"
BATCH = 8192


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def alternate(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """The best time of each, the functions run in turn ``repeat`` times."""
    out = {k: float("inf") for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            out[k] = min(out[k], time.perf_counter() - t0)
    return out


# ------------------------------------------------------------------------------------------------ Avro
def avro_input(kind: str, n: int, out: Path) -> tuple[list[bytes], str]:
    subprocess.run([sys.executable, str(RUST / "make_input.py"), str(out), "--records", str(n), "--schema", kind],
                   check=True, capture_output=True)
    raw = (out / "payloads.bin").read_bytes()
    payloads, i = [], 0
    while i < len(raw):
        (m,) = struct.unpack_from("<I", raw, i)
        payloads.append(raw[i + 4:i + 4 + m])
        i += 4 + m
    return payloads, (out / "schema-1.avsc").read_text()


def rust_binary() -> Path | None:
    exe = RUST / "target" / "release" / "kvlog-arrow-avro-bench"
    if exe.exists():
        return exe
    if shutil.which("cargo") is None:
        return None
    r = subprocess.run(["cargo", "build", "--release", "--locked"], cwd=RUST, capture_output=True, text=True)
    return exe if r.returncode == 0 and exe.exists() else None


def avro_case(n: int, repeat: int, work: Path) -> list[dict[str, Any]]:
    import fastavro

    from kvlog.schemas.decoding import ColumnDecoder
    from kvlog.schemas.plans import AvroPlan
    from kvlog.schemas.registry import SchemaMapping

    rows = []
    exe = rust_binary()
    for kind in ("orders", "simple"):
        d = work / f"avro-{kind}"
        payloads, schema = avro_input(kind, n, d)
        col = pa.array(payloads, pa.binary())
        src = SchemaMapping({1: schema}, subjects={"s": [1]})
        plan = AvroPlan(src.version("s"), src)

        def kvlog_decode() -> None:
            dec = ColumnDecoder(plan, source=src)
            for k in range(0, len(col), BATCH):
                dec.decode(col.slice(k, BATCH))

        parsed = fastavro.parse_schema(json.loads(schema))
        sample = payloads[: max(n // 20, 1000)]
        # fastavro's records into the Arrow types kvlog gives (what from_pylist needs to be told: it cannot
        # infer a union of an int and a string), the general union as its member struct
        arrow_type = ColumnDecoder(plan, source=src).decode(col.slice(0, 16)).values.type
        target = pa.schema(list(arrow_type))
        unions = [f.name for f in arrow_type if pa.types.is_struct(f.type) and f.type.num_fields
                  and f.type.field(0).name == "member0"]

        def as_members(v: Any) -> Any:
            if v is None:
                return None
            return {"member0": v if isinstance(v, int) else None, "member1": v if isinstance(v, str) else None}

        def fastavro_decode() -> None:
            rows = [fastavro.schemaless_reader(io.BytesIO(p[5:]), parsed) for p in sample]
            for r in rows:
                for u in unions:
                    r[u] = as_members(r[u])
            pa.Table.from_pylist(rows, schema=target)

        t = alternate({"kvlog": kvlog_decode, "fastavro": fastavro_decode}, repeat)
        kv_rate = n / t["kvlog"]
        fa_rate = len(sample) / t["fastavro"]
        row = {"case": f"avro {kind}", "rows": n, "kvlog_rows_per_s": kv_rate, "fastavro_from_pylist_rows_per_s": fa_rate,
               "vs_fastavro": kv_rate / fa_rate}
        if exe is not None:
            r = subprocess.run([str(exe), "--payloads", str(d / "payloads.bin"), "--schema",
                                f"1={d / 'schema-1.avsc'}", "--repeat", str(repeat), "--batch-size", str(BATCH)],
                               capture_output=True, text=True, check=True)
            rust = json.loads(r.stdout)
            row["arrow_avro_rows_per_s"] = rust["best_rows_per_s"]
            row["arrow_avro_version"] = rust["arrow_avro_version"]
            # kvlog again right after, so that both sides of the ratio see the machine as it is now
            row["kvlog_rows_per_s"] = max(kv_rate, n / best(kvlog_decode, repeat))
            row["vs_arrow_avro"] = row["kvlog_rows_per_s"] / rust["best_rows_per_s"]
        rows.append(row)
    return rows


def point_case(repeat: int, work: Path) -> list[dict[str, Any]]:
    import fastavro

    from kvlog.schemas.decoding import ColumnDecoder
    from kvlog.schemas.plans import AvroPlan
    from kvlog.schemas.registry import SchemaMapping

    payloads, schema = avro_input("orders", 1000, work / "point")
    src = SchemaMapping({1: schema}, subjects={"s": [1]})
    plan = AvroPlan(src.version("s"), src)
    dec = ColumnDecoder(plan, source=src)
    one = [pa.array([p], pa.binary()) for p in payloads]
    parsed = fastavro.parse_schema(json.loads(schema))

    def kv() -> None:
        for c in one:
            dec.decode(c)

    def fa() -> None:
        for p in payloads:
            fastavro.schemaless_reader(io.BytesIO(p[5:]), parsed)

    t = alternate({"kvlog": kv, "fastavro": fa}, repeat)
    return [{"case": "avro one record a call", "kvlog_us_per_call": t["kvlog"] / len(one) * 1e6,
             "fastavro_us_per_call": t["fastavro"] / len(one) * 1e6, "vs_fastavro": t["fastavro"] / t["kvlog"]}]


# -------------------------------------------------------------------------------------------- Protobuf
PROTO = """syntax = "proto3";
package bench;
import "google/protobuf/timestamp.proto";
message Order {
  int64 id = 1;
  string customer = 2;
  double total = 3;
  repeated Line lines = 4;
  map<string, int32> counters = 5;
  Status status = 6;
  oneof payment { string card = 7; int64 voucher = 8; }
  google.protobuf.Timestamp created = 9;
  Address ship = 10;
  message Address { string city = 1; int32 zip = 2; }
}
message Line { string sku = 1; int32 qty = 2; }
enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
"""


def protobuf_case(n: int, repeat: int, work: Path) -> list[dict[str, Any]]:
    import grpc_tools
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from google.protobuf.json_format import MessageToDict
    from grpc_tools import protoc

    from kvlog.schemas.decoding import ColumnDecoder
    from kvlog.schemas.plans import ProtobufPlan
    from kvlog.schemas.registry import SchemaMapping

    d = work / "proto"
    d.mkdir(parents=True, exist_ok=True)
    (d / "bench.proto").write_text(PROTO)
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    assert protoc.main(["protoc", f"-I{d}", f"-I{include}", f"--descriptor_set_out={d / 'set.pb'}", "--include_imports",
                        "bench.proto"]) == 0
    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString((d / "set.pb").read_bytes()).file:
        pool.Add(f)
    order = message_factory.GetMessageClass(pool.FindMessageTypeByName("bench.Order"))
    rng = random.Random(7)
    payloads = []
    for i in range(n):
        o = order(id=i, customer=f"customer-{rng.randrange(10**6)}", total=rng.random() * 1000, status=i % 3)
        for j in range(i % 4):
            o.lines.add(sku=f"sku-{j}", qty=j)
        for j in range(i % 3):
            o.counters[f"c{j}"] = j
        if i % 2:
            o.card = "visa"
        else:
            o.voucher = i
        o.created.FromMilliseconds(1_700_000_000_000 + i)
        if i % 3:
            o.ship.city = "Lyon"
            o.ship.zip = 69000 + i % 100
        payloads.append(b"\x00\x00\x00\x00\x01\x00" + o.SerializeToString())
    col = pa.array(payloads, pa.binary())
    src = SchemaMapping({1: ("PROTOBUF", PROTO)}, subjects={"s": [1]})
    plan = ProtobufPlan(src.version("s"), src)

    def kv() -> None:
        dec = ColumnDecoder(plan, source=src)
        for k in range(0, len(col), BATCH):
            dec.decode(col.slice(k, BATCH))

    sample = payloads[: max(n // 20, 1000)]

    def upb() -> None:
        rows = []
        for p in sample:
            m = order()
            m.ParseFromString(p[6:])
            rows.append(MessageToDict(m, preserving_proto_field_name=True))
        pa.Table.from_pylist(rows)

    t = alternate({"kvlog": kv, "upb": upb}, repeat)
    kv_rate, pb_rate = n / t["kvlog"], len(sample) / t["upb"]
    return [{"case": "protobuf order", "rows": n, "kvlog_rows_per_s": kv_rate,
             "upb_messagetodict_from_pylist_rows_per_s": pb_rate, "vs_upb": kv_rate / pb_rate}]


# ------------------------------------------------------------------------------------------------ JSON
JSON_SCHEMA = {"type": "object", "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "price": {"type": "number"}, "ok": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}}}}


def json_case(n: int, repeat: int, work: Path) -> list[dict[str, Any]]:
    import pyarrow.json as pj

    from kvlog.schemas import json_plan
    from kvlog.schemas.decoding import ColumnDecoder
    from kvlog.schemas.plans import JsonPlan

    rng = random.Random(3)
    docs = [json.dumps({"id": i, "name": f"name-{rng.randrange(10**6)}", "price": rng.random() * 100, "ok": i % 2 == 0,
                        "tags": ["a", "b"][: i % 3], "address": {"city": "Paris", "zip": 75000 + i % 20}}).encode()
            for i in range(n)]
    col = pa.array(docs, pa.binary())
    plan = JsonPlan(json_plan.from_json_schema(JSON_SCHEMA))
    schema = pa.schema(list(plan.arrow_type))
    ndjson = b"\n".join(docs) + b"\n"

    def kv() -> None:
        dec = ColumnDecoder(plan, wire="bare", bare_program=plan.bare_program())
        for k in range(0, len(col), BATCH):
            dec.decode(col.slice(k, BATCH))

    def arrow_json() -> None:
        pj.read_json(io.BytesIO(ndjson), parse_options=pj.ParseOptions(explicit_schema=schema))

    t = alternate({"kvlog": kv, "pyarrow.json": arrow_json}, repeat)
    return [{"case": "json schema", "rows": n, "kvlog_rows_per_s": n / t["kvlog"],
             "pyarrow_json_rows_per_s": n / t["pyarrow.json"], "vs_pyarrow_json": t["pyarrow.json"] / t["kvlog"]}]


# ------------------------------------------------------------------------------------------------ scan
def scan_case(n: int, repeat: int, work: Path) -> list[dict[str, Any]]:
    import kvlog

    out = []
    for kind in ("orders", "simple"):
        payloads, schema = avro_input(kind, n, work / f"scan-input-{kind}")
        root = work / f"scan-{kind}"
        mgr = kvlog.LogManager(root)
        mgr.create_topic("_schemas", 1)
        mgr.create_topic("t", 2)
        key = '{"keytype":"SCHEMA","subject":"t-value","version":1,"magic":1}'.encode()
        value = json.dumps({"subject": "t-value", "version": 1, "id": 1, "schema": schema, "deleted": False},
                           separators=(",", ":")).encode()
        mgr.log("_schemas", 0).append([kvlog.Record(key, value, 0)])
        for p in range(2):
            part = payloads[p::2]
            for k in range(0, len(part), 1000):
                mgr.log("t", p).append([kvlog.Record(None, v, 1_700_000_000_000) for v in part[k:k + 1000]])
        mgr.close()
        for threads in (1, None):
            def binary() -> None:
                kvlog.scan(str(root), "t", threads=threads).read_all()

            def typed() -> None:
                kvlog.scan(str(root), "t", value_format="registry", threads=threads).read_all()

            t = alternate({"binary": binary, "typed": typed}, repeat)
            out.append({"case": f"scan {kind}, {'one thread' if threads == 1 else 'default threads'}", "rows": n,
                        "binary_s": t["binary"], "typed_s": t["typed"], "typed_over_binary": t["typed"] / t["binary"],
                        "binary_rows_per_s": n / t["binary"], "typed_rows_per_s": n / t["typed"]})
    return out


CASES = {"avro": avro_case, "protobuf": protobuf_case, "json": json_case, "scan": scan_case}


def machine() -> dict[str, Any]:
    import kvlog._core

    info = kvlog._core.build_info()
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "build_info": {k: v for k, v in info.items() if k in ("crc32", "crc32c", "cpu_features", "inline_codecs")},
            "load_before": os.getloadavg()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cases", default=",".join(CASES) + ",point")
    ap.add_argument("--json", default=None)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    n = args.records or (60_000 if args.quick else 300_000)
    repeat = args.repeat or (3 if args.quick else 7)
    work = Path(args.dir or tempfile.mkdtemp(prefix="kvlog-typed-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm")
                                            else None))
    out: dict[str, Any] = {"machine": machine(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                           "results": []}
    print(json.dumps(out["machine"]))
    try:
        for name in args.cases.split(","):
            rows = point_case(repeat, work) if name == "point" else CASES[name](n, repeat, work)
            for row in rows:
                print(json.dumps(row))
                out["results"].append(row)
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)
    out["machine"]["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
