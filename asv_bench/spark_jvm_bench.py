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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--codec", default="none")
    ap.add_argument("--workdir", default=None,
                    help="keep the generated logs and Parquet files here and reuse them on the next run")
    ap.add_argument("--query", action="append", default=None, choices=list(_queries()),
                    help="run only these queries (default: all three)")
    args = ap.parse_args()
    import kvlog.spark
    from kvlog.spark.demo import session

    jar = kvlog.spark.jar_path()
    if jar is None:
        raise SystemExit("no kvlog-spark.jar: run `make jar` first")
    spark = session("local[2]", {"spark.sql.shuffle.partitions": "2", "spark.driver.memory": "3g", "spark.jars": jar})
    info = kvlog._core.build_info()
    print("cpu:", {k: info[k] for k in ("cpu_features", "crc32", "crc32c") if k in info})
    engine = kvlog.spark.register(spark)
    if engine != "jvm":
        raise SystemExit(f"format('kvlog') is served by {engine!r}, not the JVM scan")
    with tempfile.TemporaryDirectory() as scratch:
        work = os.path.join(args.workdir, f"{args.codec}-{args.rows}") if args.workdir else scratch
        if args.workdir and os.path.isdir(os.path.join(work, "parquet")):
            root, pq_dir = os.path.join(work, "kvlog"), os.path.join(work, "parquet")
        else:
            os.makedirs(work, exist_ok=True)
            root, pq_dir = _build(work, args.rows, args.codec)
        frames = {"kvlog (jvm)": spark.read.format("kvlog").load(root), "parquet": spark.read.parquet(pq_dir),
                  "kvlog_python": spark.read.format("kvlog_python").load(root)}
        for name, query in _queries().items():
            if args.query and name not in args.query:
                continue
            results = {}
            for engine, df in frames.items():
                query(df)  # warm-up
                best = float("inf")
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    out = query(df)
                    best = min(best, time.perf_counter() - t)
                results[engine] = (args.rows / best, out)
            assert len({str(v[1]) for v in results.values()}) == 1, results
            line = "  ".join(f"{e} {r / 1e6:5.2f} M rows/s" for e, (r, _) in results.items())
            ratio = results["kvlog (jvm)"][0] / results["parquet"][0]
            print(f"[{args.codec}] {name:34s} {line}  jvm/parquet {ratio:4.2f}x")
    spark.stop()


if __name__ == "__main__":
    main()
