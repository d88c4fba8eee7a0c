#!/usr/bin/env python
"""A topic into an Iceberg table: kvlog's export of the broker's files against Spark Structured Streaming reading
``format("kafka")`` from the live broker (issue 51's Spark target: >= 5x), in a PySpark 4.1 environment, the one
Iceberg's Spark runtime supports:

    make test-iceberg-spark                                # once: .venv-spark41 and the Iceberg jars
    tools/spark-jars/fetch.sh build/spark-jars kafka41     # Spark 4.1's Kafka source
    make kafka-jars jar
    .venv-spark41/bin/python asv_bench/iceberg_spark_bench.py [--rows N] [--quick] [--json PATH]

One Kafka 4.4.0 broker (tests/kafka_oracle: KRaft, one node, on this machine); one Spark session, ``local[2]`` in
its default configuration (adaptive execution on; only the UI off), with kvlog's jar, Iceberg's Spark runtime
(and the SQLite JDBC driver: the catalog is kvlog's embedded one, a JDBC catalog to Spark) and Spark's Kafka
jars. N records (12-byte keys, 100-byte values, uncompressed, 4 partitions) are produced through Spark's Kafka
sink, then each side makes a new table of the topic, ``hours(timestamp)``-partitioned, with the columns key,
value, partition, offset, timestamp, timestampType, headers:

* the peer: ``readStream.format("kafka")`` (``startingOffsets=earliest``, ``includeHeaders``) ``.writeStream``
  into the Iceberg table with ``trigger(availableNow=True)``;
* ``kvlog.iceberg.spark.export`` of the running broker's data directory (the JVM engine's scan, Iceberg's writer);
* ``kvlog.iceberg.export`` (Python) of the same directory, no Spark.

Rows/s from the start of each job to its end (the table's row count checked); one run each after a warm-up.
The load average and kvlog's CPU features are printed.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PARTITIONS = 4
BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
COLUMNS = ("key", "value", "partition", "offset", "timestamp", "timestampType", "headers")


def jars(name: str) -> list[str]:
    found = sorted(glob.glob(str(REPO / "build" / "spark-jars" / name / "*.jar")))
    if not found:
        raise SystemExit(f"no build/spark-jars/{name}/*.jar: tools/spark-jars/fetch.sh build/spark-jars {name}")
    return found


def session(lake: Path):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    import pyspark
    from pyspark.sql import SparkSession

    import kvlog.spark

    if not pyspark.__version__.startswith("4.1."):
        raise SystemExit(f"Iceberg's Spark runtime is for Spark 4.1; this is PySpark {pyspark.__version__}: run "
                         f"with .venv-spark41/bin/python (make test-iceberg-spark makes it)")
    jar = kvlog.spark.jar_path()
    if jar is None:
        raise SystemExit("no kvlog-spark.jar: run `make jar` first")
    spark = (SparkSession.builder.master("local[2]").appName("kvlog-iceberg-vs-streaming")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.jars", ",".join([jar, *jars("iceberg"), *jars("kafka41")]))
             .config("spark.sql.catalog.kvlog", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.kvlog.type", "jdbc")
             .config("spark.sql.catalog.kvlog.uri", f"jdbc:sqlite:{lake}/kvlog-catalog.db")
             .config("spark.sql.catalog.kvlog.warehouse", f"file://{lake}").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def produce(spark, bootstrap: str, topic: str, n: int) -> None:
    from pyspark.sql import functions as F

    pad = "x" * 80
    df = spark.range(n, numPartitions=PARTITIONS).select(
        F.format_string("k%011d", F.col("id") % 1000003).cast("binary").alias("key"),
        F.concat(F.format_string("%020d", F.col("id")), F.lit(pad)).cast("binary").alias("value"),
        (F.col("id") % PARTITIONS).cast("int").alias("partition"))
    df.write.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("topic", topic).save()


def streaming(spark, bootstrap: str, topic: str, table: str, checkpoint: str) -> None:
    spark.sql(f"CREATE TABLE {table} (key binary, value binary, partition int, offset bigint, timestamp timestamp, "
              f"timestampType int, headers array<struct<key: string, value: binary>>) USING iceberg "
              f"PARTITIONED BY (hours(timestamp))")
    df = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("subscribe", topic)
          .option("startingOffsets", "earliest").option("includeHeaders", "true").load().select(*COLUMNS))
    (df.writeStream.format("iceberg").outputMode("append").trigger(availableNow=True)
     .option("checkpointLocation", checkpoint).toTable(table).awaitTermination())


def count(spark, table: str) -> int:
    return int(spark.table(table).count())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--quick", action="store_true", help="200 000 rows")
    ap.add_argument("--version", default="4.4.0")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    n = 200_000 if args.quick else args.rows
    import kvlog._core as core
    import kvlog.iceberg as ki
    import kvlog.iceberg.spark as kis
    from tests.kafka_oracle.broker import Broker, KafkaDist
    from tests.kafka_oracle.serve import create_topics

    info = core.build_info()
    print(f"kvlog kernels crc32 {info.get('crc32')}, cpu_features {info.get('cpu_features')}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    os.environ["KVLOG_KAFKA_JARS"] = os.environ.get("KVLOG_KAFKA_JARS", str(REPO / "build" / "kafka-oracle"))
    work = Path(tempfile.mkdtemp(prefix="kvlog-iceberg-spark-bench-"))
    lake = work / "lake"
    ki.catalog(lake)
    dist = KafkaDist.find(args.version)
    if dist is None:
        raise SystemExit(f"Kafka {args.version}'s jars are not fetched: run `make kafka-jars`")
    broker = Broker(dist, work / "broker", extra={"log.retention.ms": "-1", "log.segment.bytes": str(1 << 30)})
    spark = session(lake)
    results = {}
    try:
        broker.start()
        create_topics(broker, {"warm": (PARTITIONS, {}), "events": (PARTITIONS, {})})
        produce(spark, broker.bootstrap, "warm", 20_000)
        produce(spark, broker.bootstrap, "events", n)
        time.sleep(6)  # (the broker checkpoints its high watermarks every 5 s: what kvlog exports ends there)
        spark.sql("CREATE NAMESPACE IF NOT EXISTS kvlog.bench")
        # warm-up of every path
        streaming(spark, broker.bootstrap, "warm", "kvlog.bench.warm_peer", str(work / "ck-warm"))
        kis.export(spark, str(broker.data), "warm", "bench.warm_spark")
        ki.export(broker.data, "warm", "bench.warm_py", warehouse=lake)
        cases = [("Structured Streaming format('kafka') -> Iceberg (availableNow)",
                  lambda: streaming(spark, broker.bootstrap, "events", "kvlog.bench.peer", str(work / "ck")),
                  "kvlog.bench.peer"),
                 ("kvlog.iceberg.spark.export of the broker's directory",
                  lambda: kis.export(spark, str(broker.data), "events", "bench.spark"), "kvlog.bench.spark"),
                 ("kvlog.iceberg.export (Python) of the broker's directory",
                  lambda: ki.export(broker.data, "events", "bench.py", warehouse=lake), "kvlog.bench.py")]
        for name, fn, table in cases:
            t = time.perf_counter()
            fn()
            seconds = time.perf_counter() - t
            rows = count(spark, table)
            results[name] = {"seconds": seconds, "rows": rows, "rows_per_s": rows / seconds}
            print(f"{name:62s} {seconds:7.2f} s  {rows:,} rows  {rows / seconds / 1e6:6.3f} M rows/s")
    finally:
        broker.stop_all()
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    peer = results["Structured Streaming format('kafka') -> Iceberg (availableNow)"]["rows_per_s"]
    for name, r in results.items():
        print(f"| {name} | {r['rows_per_s'] / 1e6:.3f} M rows/s | {r['rows_per_s'] / peer:.2f}x |")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": n, "load": load, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
