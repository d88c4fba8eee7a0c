"""Spark figures for ``compare_peers.py`` and asv: the kvlog source against Parquet, the sink, UDF decoding.

All in one local[2] session (UI off), kvlog and its peer run alternately so both see the same machine state:

* scan: ``sum(offset), sum(length(value))`` over N Kafka-shaped rows through ``format("kvlog_python")`` vs the
  same rows (same columns) in Parquet files written by pyarrow (its default snappy compression);
* sink: a DataFrame of (key, value) rows written with ``format("kvlog_python")`` vs ``write.parquet``;
* UDF: raw v2 batches (1 000 records of 100 B each, 1 000 rows) in a binary column decoded with ``kvlog.spark.decode`` vs
  aiokafka's C record classes in the same ``mapInArrow`` shape.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N_ROWS = 2_000_000
PARTITIONS = 4
VALUE_BYTES = 100


def session():
    from kvlog.spark.demo import session as local_session

    here = os.path.dirname(os.path.abspath(__file__))  # workers import this module (the ceiling source)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    spark = local_session("local[2]", {"spark.sql.shuffle.partitions": "2", "spark.driver.memory": "3g"})
    import kvlog.spark

    kvlog.spark.register(spark)
    spark.dataSource.register(_ceiling_source())
    return spark


def _ceiling_source():
    """A Python data source doing no work: it yields the same pre-built 10 000-row Arrow batch of the
    kvlog schema over and over. Its rate is what Spark's Python data source path itself allows here."""
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    from kvlog.spark._plan import _const_string, spark_arrow_schema
    from kvlog.spark.source import kafka_schema

    class CeilingReader(DataSourceReader):
        def partitions(self):
            return [InputPartition(i) for i in range(PARTITIONS)]

        def read(self, partition):
            n = 10_000
            rng = np.random.default_rng(partition.value)
            keys = pa.array([b"key-%08d" % i for i in range(n)], pa.binary())
            values = pa.array([rng.bytes(VALUE_BYTES) for _ in range(n)], pa.binary())
            ts = pa.array(np.arange(n, dtype=np.int64) * 1000).view(pa.timestamp("us", tz="UTC"))
            for j in range(N_ROWS // PARTITIONS // n):
                yield pa.RecordBatch.from_arrays(
                    [keys, values, _const_string("bench", n), pa.array(np.full(n, partition.value, np.int32)),
                     pa.array(np.arange(j * n, (j + 1) * n, dtype=np.int64)), ts, pa.array(np.zeros(n, np.int32))],
                    schema=spark_arrow_schema(False))

    class CeilingSource(DataSource):
        @classmethod
        def name(cls):
            return "kvlog_bench_ceiling"

        def schema(self):
            return kafka_schema(False)

        def reader(self, schema):
            return CeilingReader()

    return CeilingSource


def build(workdir: str, n: int = N_ROWS) -> tuple[str, str]:
    """The same rows as a kvlog topic (4 partitions) and as 4 Parquet files."""
    import kvlog
    from kvlog import LogConfig, LogManager

    root = os.path.join(workdir, "kvlog")
    pq_dir = os.path.join(workdir, "parquet")
    os.makedirs(pq_dir)
    rng = np.random.default_rng(1)
    per = n // PARTITIONS
    with LogManager(root, LogConfig(segment_bytes=256 << 20)) as mgr:
        logs = mgr.create_topic("bench", PARTITIONS)
        for p, log in enumerate(logs):
            keys = [b"key-%08d" % i for i in range(per)]
            values = [rng.bytes(VALUE_BYTES) for _ in range(per)]
            stamps = 1_700_000_000_000 + np.arange(per, dtype=np.int64)
            for lo in range(0, per, 100_000):
                log.append(kvlog.encode_arrays(keys[lo:lo + 100_000], values[lo:lo + 100_000],
                                               stamps[lo:lo + 100_000], records_per_batch=1000))
            log.flush()
            table = log.to_arrow(include_headers=False)
            full = pa.table({
                "key": table.column("key"), "value": table.column("value"),
                "topic": pa.array(["bench"] * len(table), pa.string()),
                "partition": pa.array(np.full(len(table), p, np.int32)),
                "offset": table.column("offset"), "timestamp": table.column("timestamp"),
                "timestampType": table.column("timestampType"),
            })
            pq.write_table(full, os.path.join(pq_dir, f"part-{p}.parquet"))
    return root, pq_dir


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _paired(ours, theirs, repeat: int) -> tuple[float, float]:
    ours(), theirs()  # warm-up: Python workers, planning caches
    t_ours = t_theirs = float("inf")
    for _ in range(repeat):
        t_ours = min(t_ours, _best(ours, 1))
        t_theirs = min(t_theirs, _best(theirs, 1))
    return t_ours, t_theirs


def _scan_query(df):
    from pyspark.sql import functions as F

    return df.agg(F.sum("offset"), F.sum(F.length("value"))).collect()


def scan_rows(spark, root: str, pq_dir: str, repeat: int) -> tuple[float, float]:
    query = _scan_query
    kv = spark.read.format("kvlog_python").option("subscribePattern", ".*").load(root)
    par = spark.read.parquet(pq_dir)
    assert query(kv) == query(par), "kvlog and Parquet disagree on the scan"
    t_kv, t_pq = _paired(lambda: query(kv), lambda: query(par), repeat)
    return N_ROWS / t_kv, N_ROWS / t_pq


def ceiling_rows(spark, root: str, repeat: int) -> tuple[float, float]:
    """kvlog against a Python source that does no work at all (the transport's own limit)."""
    query = _scan_query
    kv = spark.read.format("kvlog_python").option("subscribePattern", ".*").load(root)
    ceiling = spark.read.format("kvlog_bench_ceiling").load()
    t_kv, t_c = _paired(lambda: query(kv), lambda: query(ceiling), repeat)
    return N_ROWS / t_kv, N_ROWS / t_c


def sink_rows(spark, pq_dir: str, workdir: str, repeat: int) -> tuple[float, float]:
    src = spark.read.parquet(pq_dir).select("key", "value").cache()
    n = src.count()
    out = os.path.join(workdir, "sink")

    def kv():
        shutil.rmtree(out, ignore_errors=True)
        src.write.format("kvlog_python").mode("append").option("topic", "copy").option("partitions", "4").save(out)

    def par():
        src.write.mode("overwrite").parquet(out + "-pq")

    t_kv, t_pq = _paired(kv, par, repeat)
    src.unpersist()
    return n / t_kv, n / t_pq


def _aiokafka_decode(batches):
    from aiokafka.record import _crecords

    for batch in batches:
        col = batch.column(0)
        keys, values, offsets = [], [], []
        for raw in col.to_pylist():
            b = _crecords.DefaultRecordBatch(raw)
            for rec in b:
                keys.append(rec.key)
                values.append(rec.value)
                offsets.append(rec.offset)
        yield pa.RecordBatch.from_arrays([pa.array(keys, pa.binary()), pa.array(values, pa.binary()),
                                          pa.array(offsets, pa.int64())], names=["key", "value", "offset"])


def udf_rows(spark, workdir: str, repeat: int, n_batches: int = 1000, per_batch: int = 1000) -> tuple[float, float]:
    import kvlog
    import kvlog.spark
    from pyspark.sql import functions as F

    rng = np.random.default_rng(2)
    blobs = [kvlog.encode_arrays([b"k%07d" % i for i in range(per_batch)],
                                 [rng.bytes(VALUE_BYTES) for _ in range(per_batch)], 1_700_000_000_000,
                                 records_per_batch=per_batch) for _ in range(n_batches // 50)]
    path = os.path.join(workdir, "raw-batches")
    pq.write_table(pa.table({"value": pa.array([blobs[i % len(blobs)] for i in range(n_batches)], pa.binary())}),
                   path + ".parquet")
    raw = spark.read.parquet(path + ".parquet").repartition(2).cache()
    raw.count()
    total = n_batches * per_batch

    def kv():
        return kvlog.spark.decode(raw).agg(F.count("*"), F.sum(F.length("value"))).collect()

    def aio():
        return raw.mapInArrow(_aiokafka_decode, "key binary, value binary, offset long") \
            .agg(F.count("*"), F.sum(F.length("value"))).collect()

    assert kv() == aio()
    t_kv, t_aio = _paired(kv, aio, repeat)
    raw.unpersist()
    return total / t_kv, total / t_aio


def spark_rows(repeat: int) -> list[tuple]:
    """Rows for compare_peers' table: (what, peer, ours, theirs, unit, target ratio or None)."""
    work = tempfile.mkdtemp(prefix="kvlog-spark-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    spark = session()
    try:
        root, pq_dir = build(work)
        kv, par = scan_rows(spark, root, pq_dir, repeat)
        rows = [("Spark scan sum(offset),len(value)", "same rows in Parquet", kv / 1e6, par / 1e6, "M rows/s", 0.8)]
        print(rows[-1], flush=True)
        kv, ceiling = ceiling_rows(spark, root, repeat)
        rows.append(("Spark scan, same query", "no-op Python source", kv / 1e6, ceiling / 1e6, "M rows/s", None))
        print(rows[-1], flush=True)
        kv, par = sink_rows(spark, pq_dir, work, max(2, repeat // 2))
        rows.append(("Spark sink, Arrow writer", "write.parquet", kv / 1e6, par / 1e6, "M rows/s", None))
        print(rows[-1], flush=True)
        kv, aio = udf_rows(spark, work, repeat)
        rows.append(("Spark mapInArrow batch decode", "aiokafka C in mapInArrow", kv / 1e6, aio / 1e6, "M rec/s", None))
        return rows
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for row in spark_rows(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
        print(row)
