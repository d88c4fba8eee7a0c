#!/usr/bin/env python
"""Typed topics in Spark against what users run today: ``format("kafka")`` through a live broker plus spark-avro's
``from_avro``, vs kvlog's JVM scan decoding the registry's wire format itself from the broker's data directory.

    make spark-jars kafka-jars jar        # once: Spark's Kafka and Avro jars, Kafka 4.4.0's broker, kvlog's jar
    python asv_bench/spark_typed_bench.py [--rows N] [--quick] [--codec none] [--json PATH]

One Kafka 4.4.0 broker (tests/kafka_oracle, KRaft, one node) and one Spark session in its default configuration
(``local[2]``, adaptive execution on; the UI off) carrying kvlog's jar, spark-sql-kafka-0-10 and spark-avro
(build/spark-jars/kafka/). The topic: N records of ``asv_bench/rust_avro/make_input.py``'s ``orders`` schema (an
11-field record: a decimal, a timestamp, an array, a map, an enum, a nullable record, a 3-branch union) in the
registry's wire format, produced by librdkafka into 4 partitions; its schema in a ``_schemas`` topic of the same
broker, as the registry writes it. Both sides run the same query over the decoded values (count, the sum of
``id``, the count of non-null ``customer``, the maximum ``created_at``) and must agree; each figure is the best of
``--repeat`` runs after a warm-up, the sides alternating. The broker keeps running while kvlog reads its
directory.

Spark's side strips the 5-byte prefix with ``substring(value, 6)`` and decodes with ``from_avro(..., schema)``:
what a user without a registry integration writes (it assumes a single writer schema, which kvlog does not).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "asv_bench"))

from spark_kafka_bench import default_session, spark_kafka_jars  # noqa: E402

PARTITIONS = 4
TOPIC = "orders"


def payloads(n: int, work: Path) -> tuple[list[bytes], str]:
    out = work / "input"
    subprocess.run([sys.executable, str(REPO / "asv_bench" / "rust_avro" / "make_input.py"), str(out), "--records",
                    str(n), "--schema", "orders"], check=True, capture_output=True)
    raw = (out / "payloads.bin").read_bytes()
    got, i = [], 0
    while i < len(raw):
        (m,) = struct.unpack_from("<I", raw, i)
        got.append(raw[i + 4:i + 4 + m])
        i += 4 + m
    return got, (out / "schema-1.avsc").read_text()


def produce(broker, values: list[bytes], schema: str, codec: str) -> None:
    from confluent_kafka import Producer

    from tests.kafka_oracle.serve import create_topics

    create_topics(broker, {TOPIC: (PARTITIONS, {"retention.ms": -1}), "_schemas": (1, {"cleanup.policy": "compact"})})
    prod = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20, "batch.size": 1 << 20,
                     "compression.type": codec, "queue.buffering.max.messages": 2_000_000})
    key = b'{"keytype":"SCHEMA","subject":"orders-value","version":1,"magic":1}'
    value = json.dumps({"subject": "orders-value", "version": 1, "id": 1, "schemaType": "AVRO", "schema": schema,
                        "deleted": False}, separators=(",", ":")).encode()
    prod.produce("_schemas", value=value, key=key)
    for i, v in enumerate(values):
        while True:
            try:
                prod.produce(TOPIC, value=v, partition=i % PARTITIONS)
                break
            except BufferError:
                prod.poll(0.05)
    assert prod.flush(120) == 0


def query(df):
    from pyspark.sql import functions as F

    return tuple(df.agg(F.count("*"), F.sum("value.id"), F.count("value.customer"),
                        F.max("value.created_at")).collect()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--quick", action="store_true", help="200 000 rows")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--codec", default="none", help="the producer's compression.type")
    ap.add_argument("--version", default="4.4.0")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    n = 200_000 if args.quick else args.rows
    import kvlog._core as core

    print(f"kvlog {core.build_info()}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs", flush=True)
    os.environ["KVLOG_KAFKA_JARS"] = os.environ.get("KVLOG_KAFKA_JARS", str(REPO / "build" / "kafka-oracle"))
    from tests.kafka_oracle.broker import Broker, KafkaDist

    dist = KafkaDist.find(args.version)
    if dist is None:
        raise SystemExit(f"Kafka {args.version}'s jars are not fetched: run `make kafka-jars`")
    work = Path(tempfile.mkdtemp(prefix="kvlog-typed-spark-"))
    values, schema = payloads(n, work)
    spark = default_session(spark_kafka_jars())
    broker = Broker(dist, work / "broker", extra={"log.retention.ms": "-1", "log.segment.bytes": str(1 << 30)})
    results = {}
    try:
        broker.start()
        t0 = time.perf_counter()
        produce(broker, values, schema, args.codec)
        print(f"produced {n} records ({args.codec}) in {time.perf_counter() - t0:.1f} s", flush=True)
        del values
        from pyspark.sql import functions as F
        from pyspark.sql.avro.functions import from_avro

        def kafka():
            raw = (spark.read.format("kafka").option("kafka.bootstrap.servers", broker.bootstrap)
                   .option("subscribe", TOPIC).option("startingOffsets", "earliest").load())
            return query(raw.select(from_avro(F.expr("substring(value, 6)"), schema).alias("value")))

        def kvlog_jvm():
            return query(spark.read.format("kvlog").option("subscribe", TOPIC).option("valueFormat", "registry")
                         .load(str(broker.data)))

        def kvlog_python():
            return query(spark.read.format("kvlog_python").option("subscribe", TOPIC).option("valueFormat", "registry")
                         .load(str(broker.data)))

        sides = {"kafka + from_avro": kafka, "kvlog (JVM)": kvlog_jvm, "kvlog_python": kvlog_python}
        answers = {k: fn() for k, fn in sides.items()}  # (the warm-up, and the answers that must agree)
        first = next(iter(answers.values()))
        for k, a in answers.items():
            if a != first:
                raise SystemExit(f"{k} answered {a}, not {first}")
        print(f"answers agree: {first}", flush=True)
        best = {k: float("inf") for k in sides}
        for _ in range(args.repeat):
            for k, fn in sides.items():
                t = time.perf_counter()
                fn()
                best[k] = min(best[k], time.perf_counter() - t)
        for k, s in best.items():
            results[k] = n / s
            print(f"  {k:<20} {n / s / 1e6:7.3f} M rows/s  ({s:.2f} s)")
        base = best["kafka + from_avro"]
        print(f"\nkvlog JVM vs format('kafka') + from_avro: {base / best['kvlog (JVM)']:.2f}x; "
              f"kvlog_python: {base / best['kvlog_python']:.2f}x")
    finally:
        broker.stop_all()
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)"
          + ("  -- measured under load" if load[1] > 1.0 else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": n, "codec": args.codec, "load": load,
                                               "rows_per_s": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
