"""Spark sink figures for ``compare_peers.py``: the JVM sink against ``write.parquet`` and the Python sink.

One local[2] session with kvlog's jar (UI off), each writer run alternately with the others, best of N:

* batch: N rows of (12 B key, 100 B value) from a cached DataFrame, written with ``format("kvlog")``
  (codec none, lz4, zstd), ``format("kvlog_python")`` and ``write.parquet`` (Spark's default snappy),
  4 Kafka partitions, into tmpfs;
* commit: the driver's commit time (``KvlogSource.lastSinkCommitNanos``) for a 16 MB write and a 2 GB one;
* streaming: ``readStream.format("kvlog")`` → ``writeStream.format("kvlog")`` with ``Trigger.AvailableNow``
  (one stream to warm up, reported apart, then the best of N).

    python asv_bench/spark_sink_bench.py [--rows N] [--repeat R] [--big-rows N] [--quick | --one-row]
                                         [--default-session]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from spark_bench import _best  # noqa: E402  (asv_bench/ is on sys.path when these run)

N_ROWS = 2_000_000
KEY_BYTES = 12
VALUE_BYTES = 100


EXTRA_CONF: dict[str, str] = {}  # --spark-conf KEY=VALUE
DEFAULT_SESSION = False  # --default-session


def session():
    import kvlog.spark
    from kvlog.spark.demo import session as local_session

    jar = kvlog.spark.jar_path()
    if jar is None:
        raise SystemExit("no kvlog-spark.jar: run `make jar` first")
    if DEFAULT_SESSION:  # what a new user gets: adaptive execution on, scratch space on the disk, default memory
        from spark_kafka_bench import default_session

        return default_session([])
    spark = local_session("local[2]", {"spark.sql.shuffle.partitions": "4", "spark.driver.memory": "3g",
                                       "spark.jars": jar, **EXTRA_CONF})
    if kvlog.spark.register(spark) != "jvm":
        raise SystemExit("format('kvlog') is not served by the JVM in this session")
    return spark


def source(spark, n: int):
    """n rows: key 'k' + 11 digits (12 B), value 100 B, as binary columns."""
    from pyspark.sql import functions as F

    pad = "x" * (VALUE_BYTES - 20)
    return spark.range(n, numPartitions=4).select(
        F.format_string("k%011d", F.col("id") % 1000003).cast("binary").alias("key"),
        F.concat(F.format_string("%020d", F.col("id")), F.lit(pad)).cast("binary").alias("value"))


def batch_rows(spark, work: str, n: int, repeat: int) -> dict[str, float]:
    src = source(spark, n).cache()
    assert src.count() == n
    out = os.path.join(work, "out")

    def writer(fmt, codec=None, exchange=None):
        def run():
            shutil.rmtree(out, ignore_errors=True)
            if fmt == "parquet":
                src.write.mode("overwrite").parquet(out)
                return
            if fmt == "parquet-shuffled":  # the same exchange the sink asks for (one task per Kafka partition)
                src.repartition(4, "key").write.mode("overwrite").parquet(out)
                return
            w = src.write.format(fmt).mode("append").option("topic", "t").option("partitions", "4")
            if exchange:
                w = w.option("kvlog.sinkExchange", exchange)
            (w.option("compression", codec) if codec else w).save(out)
        return run

    runs = {"parquet": writer("parquet"), "parquet-shuffled": writer("parquet-shuffled"),
            "kvlog_python": writer("kvlog_python")}
    for codec in ("none", "lz4", "zstd"):
        runs[f"kvlog jvm {codec}"] = writer("kvlog", codec)
    runs["kvlog jvm none rows"] = writer("kvlog", "none", "rows")  # Spark's row exchange instead of the batch one
    for fn in runs.values():
        fn()  # warm-up: JIT, Python workers
    best = {k: float("inf") for k in runs}
    for _ in range(repeat):
        for k, fn in runs.items():
            best[k] = min(best[k], _best(fn, 1))
    src.unpersist()
    shutil.rmtree(out, ignore_errors=True)
    return {k: n / t for k, t in best.items()}


def one_row_ms(spark, work: str, n: int = 15) -> dict[str, float]:
    """Median ms of a one-row write (a job's fixed cost: planning, tasks, commit): the JVM sink and Parquet."""
    tiny = spark.createDataFrame([(b"k", b"v")], "key binary, value binary").cache()
    tiny.count()
    out = os.path.join(work, "one-row")

    def kvlog_write():
        tiny.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "4").save(out)

    def parquet_write():
        tiny.write.mode("overwrite").parquet(out)

    times: dict[str, list[float]] = {"kvlog": [], "parquet": []}
    for _ in range(n):
        for label, fn in (("kvlog", kvlog_write), ("parquet", parquet_write)):
            shutil.rmtree(out, ignore_errors=True)
            t = time.perf_counter()
            fn()
            times[label].append((time.perf_counter() - t) * 1e3)
    tiny.unpersist()
    shutil.rmtree(out, ignore_errors=True)
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def commit_times(spark, work: str, small: int, big: int) -> dict[str, float]:
    """The driver's commit in ms for a small and a big write (codec none), each the best of 3."""
    jvm = spark._jvm.io.kvlog.spark.KvlogSource
    out = {}
    for label, n in (("small", small), ("big", big)):
        times = []
        for _ in range(3):
            root = os.path.join(work, f"commit-{label}")
            shutil.rmtree(root, ignore_errors=True)
            source(spark, n).write.format("kvlog").mode("append").option("topic", "t").option("partitions", "4") \
                .save(root)
            times.append(jvm.lastSinkCommitNanos() / 1e6)
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
            shutil.rmtree(root, ignore_errors=True)
        out[label] = min(times)
        out[f"{label}_bytes"] = size
    return out


def stream_rate(spark, work: str, n: int) -> float:
    src, dst, ckpt = (os.path.join(work, x) for x in ("stream-src", "stream-dst", "stream-ckpt"))
    for p in (src, dst, ckpt):
        shutil.rmtree(p, ignore_errors=True)
    source(spark, n).write.format("kvlog").mode("append").option("topic", "in").option("partitions", "4").save(src)
    t = time.perf_counter()
    q = (spark.readStream.format("kvlog").option("subscribe", "in").option("startingOffsets", "earliest")
         .load(src).select("key", "value").writeStream.format("kvlog").option("topic", "out")
         .option("partitions", "4").option("checkpointLocation", ckpt).trigger(availableNow=True).start(dst))
    q.awaitTermination()
    took = time.perf_counter() - t
    got = spark.read.format("kvlog").option("subscribe", "out").load(dst).count()
    assert got == n, (got, n)
    return n / took


def sink_rows(repeat: int, rows: int = N_ROWS, big_rows: int = 18_000_000, quick: bool = False) -> list[tuple]:
    """compare_peers rows: (what, peer, ours, theirs, unit, target ratio or None)."""
    work = tempfile.mkdtemp(prefix="kvlog-sink-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    spark = session()
    try:
        rates = batch_rows(spark, work, rows, repeat)
        out = []
        for codec, target in (("none", 1.0), ("lz4", 0.8), ("zstd", 0.8)):
            out.append((f"Spark JVM sink [{codec}]", "write.parquet (snappy)", rates[f"kvlog jvm {codec}"] / 1e6,
                        rates["parquet"] / 1e6, "M rows/s", target))
        out.append(("Spark JVM sink [none]", "write.parquet after the same shuffle", rates["kvlog jvm none"] / 1e6,
                    rates["parquet-shuffled"] / 1e6, "M rows/s", None))
        out.append(("Spark JVM sink [none]", "Python sink kvlog_python", rates["kvlog jvm none"] / 1e6,
                    rates["kvlog_python"] / 1e6, "M rows/s", 2.0))
        out.append(("Spark JVM sink [none]", "same, Spark's row exchange", rates["kvlog jvm none"] / 1e6,
                    rates["kvlog jvm none rows"] / 1e6, "M rows/s", None))
        one = one_row_ms(spark, work)
        out.append(("JVM sink, a 1-row write (median)", "write.parquet, 1 row", one["kvlog"], one["parquet"], "ms",
                    None))
        if quick:
            return out
        commits = commit_times(spark, work, 150_000, big_rows)
        out.append((f"JVM sink driver commit, {commits['small_bytes'] / 1e6:.0f} MB written",
                    f"same, {commits['big_bytes'] / 1e9:.1f} GB written", commits["small"], commits["big"], "ms", None))
        # as every writer above: one run to warm up (the session's first stream loads and compiles the streaming
        # path: about half the rate of the later ones), then the best of `repeat`; the first is reported apart
        streams = [stream_rate(spark, work, rows) / 1e6 for _ in range(1 + repeat)]
        out.append(("Spark JVM sink streaming AvailableNow", "(target 1 M rows/s)", max(streams[1:]), 1.0,
                    "M rows/s", 1.0))
        out.append(("  the same, the session's first stream", "(target 1 M rows/s)", streams[0], 1.0, "M rows/s",
                    None))
        return out
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=N_ROWS)
    ap.add_argument("--big-rows", type=int, default=18_000_000, help="rows of the big commit-time write (~2 GB)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--quick", action="store_true", help="the batch rows only (no commit times, no stream)")
    ap.add_argument("--one-row", action="store_true", help="only the one-row write's median time (with the commit's)")
    ap.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting for the session, e.g. spark.shuffle.compress=false")
    ap.add_argument("--default-session", action="store_true",
                    help="Spark's default settings (adaptive execution on, scratch space on the disk; UI off) instead "
                         "of the tuned session (adaptive execution off, 4 shuffle partitions, 3 GB driver)")
    args = ap.parse_args()
    global DEFAULT_SESSION
    DEFAULT_SESSION = args.default_session
    for kv in args.spark_conf:
        key, _, value = kv.partition("=")
        EXTRA_CONF[key] = value
    if args.one_row:
        work = tempfile.mkdtemp(prefix="kvlog-sink-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        spark = session()
        try:
            one = one_row_ms(spark, work)
            print(f"a 1-row write, median of 15: JVM sink {one['kvlog']:.1f} ms (its last commit "
                  f"{spark._jvm.io.kvlog.spark.KvlogSource.lastSinkCommitNanos() / 1e6:.1f} ms), "
                  f"write.parquet {one['parquet']:.1f} ms")
        finally:
            spark.stop()
            shutil.rmtree(work, ignore_errors=True)
        return
    rows = sink_rows(args.repeat, args.rows, args.big_rows, args.quick)
    for r in rows:
        print(f"{r[0]:<45} {r[2]:>9.3f}  vs {r[1]:<28} {r[3]:>9.3f} {r[4]}  ratio {r[2] / r[3]:.2f}"
              + (f" (target {r[5]})" if r[5] else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
