"""The JVM ``kvlog`` scan against Parquet and the Python source (``kvlog_python``): the issue-16 target queries.

    python asv_bench/spark_jvm_bench.py [--rows N] [--repeat R] [--codec none|lz4|zstd] [--workdir DIR]
                                        [--query NAME ...]

Rows as in ``spark_bench.build`` (4 partitions, 12-byte keys, 100-byte values, 1 000 records a batch), one
local[2] session with the jar on ``spark.jars``; the same rows in Parquet (pyarrow's default, snappy); each figure
is the best of ``--repeat`` runs, in rows/s, with ``kvlog._core.build_info()``'s CPU features printed first.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _queries():
    from pyspark.sql import functions as F

    cols = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]
    return {
        "sum(offset)+sum(length(value))": lambda df: df.agg(F.sum("offset"), F.sum(F.length("value"))).collect(),
        "select(offset)": lambda df: df.select("offset").agg(F.sum("offset")).collect(),
        "sum(hash(all seven))": lambda df: df.agg(F.sum(F.hash(*cols))).collect(),
    }


def _build(workdir: str, rows: int, codec: str) -> tuple[str, str]:
    import spark_bench

    if codec == "none":
        return spark_bench.build(workdir, rows)
    import kvlog
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from kvlog import LogConfig, LogManager

    root, pq_dir = os.path.join(workdir, "kvlog"), os.path.join(workdir, "parquet")
    os.makedirs(pq_dir)
    rng = np.random.default_rng(1)
    per = rows // spark_bench.PARTITIONS
    with LogManager(root, LogConfig(segment_bytes=256 << 20)) as mgr:
        for p, log in enumerate(mgr.create_topic("bench", spark_bench.PARTITIONS)):
            keys = [b"key-%08d" % i for i in range(per)]
            values = [rng.bytes(spark_bench.VALUE_BYTES) for _ in range(per)]
            stamps = 1_700_000_000_000 + np.arange(per, dtype=np.int64)
            for lo in range(0, per, 100_000):
                log.append(kvlog.encode_arrays(keys[lo:lo + 100_000], values[lo:lo + 100_000], stamps[lo:lo + 100_000],
                                               records_per_batch=1000, compression=codec))
            log.flush()
            t = log.to_arrow(include_headers=False)
            pq.write_table(pa.table({
                "key": t.column("key"), "value": t.column("value"), "topic": pa.array(["bench"] * len(t), pa.string()),
                "partition": pa.array(np.full(len(t), p, np.int32)), "offset": t.column("offset"),
                "timestamp": t.column("timestamp"), "timestampType": t.column("timestampType")}),
                os.path.join(pq_dir, f"part-{p}.parquet"))
    return root, pq_dir


ENGINES = ("kvlog (jvm)", "parquet", "kvlog_python", "jvm no agg pushdown")
# the issue-16 targets, JVM scan over Parquet: (query, codec) -> ratio
TARGETS = {("sum(offset)+sum(length(value))", "none"): 1.0, ("sum(offset)+sum(length(value))", "lz4"): 0.8,
           ("sum(offset)+sum(length(value))", "zstd"): 0.8, ("select(offset)", "none"): 1.5,
           ("sum(hash(all seven))", "none"): 0.8}


def measure(spark, root: str, pq_dir: str, rows: int, repeat: int, only=None) -> dict[str, dict[str, float]]:
    """Best rows/s per query and engine, engines interleaved so a noisy moment hits all of them; every engine's
    result is checked equal first."""
    frames = {"kvlog (jvm)": spark.read.format("kvlog").option("subscribePattern", ".*").load(root), "parquet": spark.read.parquet(pq_dir),
              "kvlog_python": spark.read.format("kvlog_python").option("subscribePattern", ".*").load(root),
              # the pruned scan alone, without answering aggregates from batch headers
              "jvm no agg pushdown": spark.read.format("kvlog").option("subscribePattern", ".*").option("kvlog.aggregatePushdown", "false").load(root)}
    out = {}
    for name, query in _queries().items():
        if only and name not in only:
            continue
        times: dict[str, list[float]] = {engine: [] for engine in frames}
        results = {engine: query(df) for engine, df in frames.items()}  # warm-up, and the results to compare
        assert len({str(v) for v in results.values()}) == 1, results
        for _ in range(repeat):
            for engine, df in frames.items():
                t = time.perf_counter()
                query(df)
                times[engine].append(time.perf_counter() - t)
        out[name] = {e: rows / min(ts) for e, ts in times.items()}
    return out


def jvm_session():
    import kvlog.spark
    from kvlog.spark.demo import session

    jar = kvlog.spark.jar_path()
    if jar is None:
        raise SystemExit("no kvlog-spark.jar: run `make jar` first")
    spark = session("local[2]", {"spark.sql.shuffle.partitions": "2", "spark.driver.memory": "3g", "spark.jars": jar})
    engine = kvlog.spark.register(spark)
    if engine != "jvm":
        raise SystemExit(f"format('kvlog') is served by {engine!r}, not the JVM scan")
    return spark


def jvm_rows(repeat: int, rows: int = 2_000_000) -> list[tuple]:
    """compare_peers rows: (what, peer, ours, theirs, unit, target); each codec in its own process and JVM."""
    import json
    import subprocess

    out = []
    for codec in ("none", "lz4", "zstd"):
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--codec", codec, "--rows", str(rows),
                               "--repeat", str(repeat), "--json"], capture_output=True, text=True, check=True)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        for query, by_engine in figures.items():
            ours = by_engine["kvlog (jvm)"] / 1e6
            out.append((f"Spark JVM scan [{codec}] {query}", "same rows in Parquet", ours,
                        by_engine["parquet"] / 1e6, "M rows/s", TARGETS.get((query, codec))))
            out.append((f"Spark JVM scan [{codec}] {query}", "kvlog_python (same session)", ours,
                        by_engine["kvlog_python"] / 1e6, "M rows/s", None))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--codec", default="none")
    ap.add_argument("--workdir", default=None,
                    help="keep the generated logs and Parquet files here and reuse them on the next run")
    ap.add_argument("--query", action="append", default=None, choices=list(_queries()),
                    help="run only these queries (default: all three)")
    ap.add_argument("--json", action="store_true", help="print one JSON line of rows/s per query and engine")
    args = ap.parse_args()
    import kvlog

    spark = jvm_session()
    info = kvlog._core.build_info()
    if not args.json:
        print("cpu:", {k: info[k] for k in ("cpu_features", "crc32", "crc32c") if k in info})
    with tempfile.TemporaryDirectory() as scratch:
        work = os.path.join(args.workdir, f"{args.codec}-{args.rows}") if args.workdir else scratch
        if args.workdir and os.path.isdir(os.path.join(work, "parquet")):
            root, pq_dir = os.path.join(work, "kvlog"), os.path.join(work, "parquet")
        else:
            os.makedirs(work, exist_ok=True)
            root, pq_dir = _build(work, args.rows, args.codec)
        figures = measure(spark, root, pq_dir, args.rows, args.repeat, args.query)
    spark.stop()
    if args.json:
        import json

        print(json.dumps(figures))
        return
    for name, best in figures.items():
        line = "  ".join(f"{e} {r / 1e6:5.2f}" for e, r in best.items())
        print(f"[{args.codec}] {name:30s} M rows/s: {line}  jvm/parquet {best['kvlog (jvm)'] / best['parquet']:4.2f}x"
              f" (no agg pushdown {best['jvm no agg pushdown'] / best['parquet']:4.2f}x)"
              f"  jvm/python {best['kvlog (jvm)'] / best['kvlog_python']:4.2f}x")


if __name__ == "__main__":
    main()
