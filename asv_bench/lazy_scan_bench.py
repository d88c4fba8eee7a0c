#!/usr/bin/env python
"""Lazy scans through Polars and DuckDB against a whole ``to_arrow()`` and against Parquet (issue 43's targets),
measured side by side in one run.

    python asv_bench/lazy_scan_bench.py                 # 2 000 000 records, best of 7 (about two minutes)
    python asv_bench/lazy_scan_bench.py --quick         # 500 000 records, best of 3
    python asv_bench/lazy_scan_bench.py --rows 4000000 --repeat 9 --json out.json

The topic: 4 partitions of 12 B keys and 100 B random values, v2 uncompressed, 1 000 records a batch, timestamps
rising 1 ms a record (each partition spans the same time), 256 MiB segments, on tmpfs (``--dir`` to choose).
The same rows, with the same columns (key, value, topic, partition, offset, timestamp, timestampType), are written
as Parquet by Polars' ``write_parquet`` (its defaults: zstd, statistics, row groups of 250 000 rows), one file per
partition. Each figure is the best of ``--repeat`` runs, the two sides of a ratio run alternately (so a drifting
CPU or a neighbour's load affects both alike); ratios > 1 mean kvlog is faster.

* ``polars filter last 10%``: ``kvlog.polars.scan_kafka(mgr, "bench").filter(timestamp >= t90)
  .select("offset", "value").collect()`` against (a) the same query over a full ``Log.to_arrow()`` of every
  partition (``pl.from_arrow`` of the tables), target ≥ 5×, and (b) ``pl.scan_parquet`` of the Parquet files,
  target ≥ 1.0×;
* ``duckdb count+sum``: ``select count(*), sum(octet_length(value))`` over ``kvlog.duckdb.source(mgr, "bench")``
  against the same over ``read_parquet``, target ≥ 1.0×; ``count(*)`` alone is shown too (no target: DuckDB
  answers it from Parquet's footer without reading a row, and asks kvlog for the key column);
* the same two queries ``cold`` (no target): the scan given the data directory's path, so that every query opens
  it; each partition's read-only open reads its active segment's batch headers, as every kvlog reader does.

``mgr`` is a ``LogManager(root, read_only=True)`` opened once, outside the timed sections, as a session keeps it
(each scan refreshes its logs: what a writer appended since is read too); ``to_arrow()`` reads through it too.

The machine's CPU, the kernels kvlog chose (``kvlog._core.build_info()``) and the load average before and after
are printed with the figures: on a shared machine, note the load.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import json
import os
import platform
import shutil
import sys
import tempfile
import time

import numpy as np

PARTITIONS = 4
VALUE_BYTES = 100
PER_BATCH = 1000
T0 = 1_700_000_000_000


def build(workdir: str, n: int) -> tuple[str, str]:
    """The topic ``bench`` in ``workdir/kvlog`` and the same rows as Parquet files in ``workdir/parquet``."""
    import polars as pl

    import kvlog
    from kvlog import LogConfig, LogManager

    root = os.path.join(workdir, "kvlog")
    pq_dir = os.path.join(workdir, "parquet")
    os.makedirs(pq_dir)
    rng = np.random.default_rng(1)
    per = n // PARTITIONS
    with LogManager(root, LogConfig(segment_bytes=256 << 20)) as mgr:
        for p, log in enumerate(mgr.create_topic("bench", PARTITIONS)):
            keys = [b"key-%08d" % i for i in range(per)]
            values = [rng.bytes(VALUE_BYTES) for _ in range(per)]
            stamps = T0 + np.arange(per, dtype=np.int64)
            for lo in range(0, per, 100_000):
                log.append(kvlog.encode_arrays(keys[lo:lo + 100_000], values[lo:lo + 100_000],
                                               stamps[lo:lo + 100_000], records_per_batch=PER_BATCH))
            log.flush()
    for p in range(PARTITIONS):
        table = kvlog.scan(root, "bench", partitions=p, columns=["key", "value", "topic", "partition", "offset",
                                                                  "timestamp", "timestampType"]).read_all()
        df = pl.from_arrow(table)
        assert isinstance(df, pl.DataFrame)
        df.write_parquet(os.path.join(pq_dir, f"part-{p}.parquet"))
    return root, pq_dir


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def paired(ours, theirs, repeat: int) -> tuple[float, float]:
    """Best times of two functions measured alternately (one warm-up each first)."""
    ours()
    theirs()
    a = b = float("inf")
    for _ in range(repeat):
        a = min(a, _time(ours))
        b = min(b, _time(theirs))
    return a, b


def rows(root: str, pq_dir: str, n: int, repeat: int) -> list[tuple[str, str, float, float, str, float]]:
    """``(what, peer, kvlog s, peer s, unit, target)`` rows."""
    import duckdb
    import polars as pl
    import pyarrow as pa

    import kvlog.duckdb
    import kvlog.polars
    from kvlog import LogManager

    per = n // PARTITIONS
    t90 = dt.datetime.fromtimestamp((T0 + per - per // 10) / 1000, dt.timezone.utc)
    expected = PARTITIONS * (per // 10)
    parquet = os.path.join(pq_dir, "*.parquet")
    mgr = LogManager(root, read_only=True)  # (the warm rows: a session that keeps the data directory open)
    schema = kvlog.scanning.kafka_schema(False)

    def polars_kvlog(src) -> None:
        out = (kvlog.polars.scan_kafka(src, "bench").filter(pl.col("timestamp") >= t90)
               .select("offset", "value").collect())
        assert out.height == expected, out.height

    def polars_to_arrow() -> None:
        tables = [kvlog.scanning.to_spark_batch(mgr.log("bench", p).to_arrow(include_headers=False), "bench", p,
                                                schema) for p in range(PARTITIONS)]
        df = pl.from_arrow(pa.Table.from_batches(tables))
        assert isinstance(df, pl.DataFrame)
        out = df.lazy().filter(pl.col("timestamp") >= t90).select("offset", "value").collect()
        assert out.height == expected, out.height

    def polars_parquet() -> None:
        out = pl.scan_parquet(parquet).filter(pl.col("timestamp") >= t90).select("offset", "value").collect()
        assert out.height == expected, out.height

    con = duckdb.connect()
    con.register("kv", kvlog.duckdb.source(mgr, "bench"))
    con.register("kv_cold", kvlog.duckdb.source(root, "bench"))
    both = "select count(*), sum(octet_length(value)) from {}"
    count = "select count(*) from {}"
    want = (PARTITIONS * per, PARTITIONS * per * VALUE_BYTES)

    def duck(sql: str, check: tuple[int, ...]):
        def run() -> None:
            got = con.sql(sql).fetchall()[0]
            assert got == check, got
        return run

    pq_sql = f"read_parquet('{parquet}')"
    out = []
    try:
        a, b = paired(lambda: polars_kvlog(mgr), polars_to_arrow, repeat)
        out.append(("polars filter last 10%", "same query, full to_arrow()", a, b, "s", 5.0))
        a, b = paired(lambda: polars_kvlog(mgr), polars_parquet, repeat)
        out.append(("polars filter last 10%", "pl.scan_parquet", a, b, "s", 1.0))
        a, b = paired(duck(both.format("kv"), want), duck(both.format(pq_sql), want), repeat)
        out.append(("duckdb count(*), sum(len(value))", "DuckDB over Parquet", a, b, "s", 1.0))
        a, b = paired(duck(count.format("kv"), want[:1]), duck(count.format(pq_sql), want[:1]), repeat)
        out.append(("duckdb count(*)", "DuckDB over Parquet (footer)", a, b, "s", 0.0))
        # cold: the data directory opened by every query (each partition's read-only open audits its active
        # segment's batch headers, as kvlog's loader does for every reader)
        a, b = paired(lambda: polars_kvlog(root), polars_parquet, repeat)
        out.append(("polars filter last 10%, cold", "pl.scan_parquet", a, b, "s", 0.0))
        a, b = paired(duck(both.format("kv_cold"), want), duck(both.format(pq_sql), want), repeat)
        out.append(("duckdb count+sum, cold", "DuckDB over Parquet", a, b, "s", 0.0))
    finally:
        mgr.close()
    return out


def describe_machine() -> str:
    import duckdb
    import polars as pl
    import pyarrow as pa

    import kvlog
    from kvlog._core import build_info

    info = build_info()
    cpu = "unknown"
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    return (f"kvlog {kvlog.__version__}  python {platform.python_version()}  polars {pl.__version__}  duckdb "
            f"{duckdb.__version__}  pyarrow {pa.__version__}\n{platform.machine()}  {cpu}  {os.cpu_count()} cpus  "
            f"cpu features: {','.join(info['cpu_features'])}  kernels: crc32c={info['crc32c']} build={info['mode']}")


def load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_000_000, help="records in the topic (default 2 000 000)")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs of each side (best taken)")
    ap.add_argument("--quick", action="store_true", help="500 000 records, best of 3")
    ap.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                    help="where the topic and the Parquet files are written (default tmpfs)")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        args.rows, args.repeat = 500_000, 3
    print(describe_machine())
    print(f"records: {args.rows} x (12 B key, {VALUE_BYTES} B value), {PARTITIONS} partitions, {PER_BATCH} a batch, "
          f"uncompressed; load average before: {load()}")
    work = tempfile.mkdtemp(prefix="kvlog-lazy-bench-", dir=args.dir)
    try:
        t = time.perf_counter()
        root, pq_dir = build(work, args.rows)
        size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(root, "bench-*", "*.log")))
        pq_size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(pq_dir, "*.parquet")))
        print(f"built in {time.perf_counter() - t:.1f} s: log segments {size / 1e6:.0f} MB, Parquet {pq_size / 1e6:.0f} MB")
        got = rows(root, pq_dir, args.rows, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average after: {load()}\n")
    print(f"| {'what':34} | {'peer (same run)':30} | {'kvlog s':>8} | {'peer s':>8} | {'ratio':>6} | target |")
    print(f"|{'-' * 36}|{'-' * 32}|{'-' * 10}|{'-' * 10}|{'-' * 8}|--------|")
    missed = []
    for what, peer, ours, theirs, _unit, target in got:
        ratio = theirs / ours
        mark = "(info)" if not target else f"≥ {target:g}x {'ok' if ratio >= target else 'MISSED'}"
        if target and ratio < target:
            missed.append(f"{what} vs {peer}")
        print(f"| {what:34} | {peer:30} | {ours:8.4f} | {theirs:8.4f} | {ratio:5.2f}x | {mark} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": describe_machine(), "rows": [dict(zip(("what", "peer", "kvlog_s", "peer_s", "unit",
                                                                          "target"), r)) for r in got]}, f, indent=2)
    if missed:
        print("\ntargets missed: " + "; ".join(missed))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
