#!/usr/bin/env python
"""Exporting a topic into an Iceberg table against writing the same rows as Parquet (issue 51's Python target).

    python asv_bench/iceberg_bench.py            # 4 partitions x 500 000 records, best of 5
    python asv_bench/iceberg_bench.py --quick    # 4 x 100 000, best of 3
    python asv_bench/iceberg_bench.py --json out.json

Cases, each side at its defaults (ratios are rows/s of the export over rows/s of the peer; > 1: the export is
faster):

* ``export``: ``kvlog.iceberg.export`` of an uncompressed topic (random 100-byte values, 16-byte keys, batches
  of 1 000 records, timestamps over one hour) into a new table of the embedded catalog: reading the log,
  Iceberg's layout (``hour(timestamp)``), Parquet files as pyiceberg writes them (zstd) and the commit,
  against ``pyarrow.parquet.write_table`` of the same rows as one Arrow table already in memory (snappy), into
  one file (target: ≥ 0.5x). Also shown: the export unpartitioned, and ``write_table`` with zstd (labelled: not
  a default);
* ``incremental``: after the export, 1 000 more records a partition and an export of just those: what one
  incremental run costs (per run, and per row);
* ``rerun``: an export that finds nothing new: the cost of asking;
* ``upsert``: a keyed topic (50 000 keys a partition, updated over and over, one record in ten a tombstone)
  exported in upsert mode (copy-on-write: the files holding a matched key are rewritten), then rounds of 10 000
  more updates a partition, each an incremental upsert export: what keeping a latest-per-key table costs a
  round, against appending the same records.

The machine, the kernels kvlog chose (``kvlog._core.build_info()``) and the load average are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow.parquet as pq

import kvlog
import kvlog.iceberg as ki

T0 = 1_765_000_000_000


def build(root: Path, partitions: int, per_partition: int, batch: int = 1000, start: int = 0) -> None:
    rng = np.random.default_rng(7 + start)
    with kvlog.LogManager(root) as m:
        if "t" not in m.topics():
            m.create_topic("t", partitions)
        for p in range(partitions):
            log = m.log("t", p)
            for lo in range(0, per_partition, batch):
                n = min(batch, per_partition - lo)
                values = rng.bytes(100 * n)
                log.append([kvlog.Record(b"key-%012d" % (start + lo + i), values[100 * i:100 * i + 100],
                                         T0 + (start + lo + i) * 3_600_000 // max(per_partition, 1) % 3_600_000)
                            for i in range(n)])


def build_keyed(root: Path, partitions: int, per_partition: int, keys: int, start: int) -> None:
    rng = np.random.default_rng(11 + start)
    with kvlog.LogManager(root) as m:
        if "u" not in m.topics():
            m.create_topic("u", partitions)
        for p in range(partitions):
            log = m.log("u", p)
            ks = rng.integers(0, keys, per_partition)
            dead = rng.random(per_partition) < 0.1
            values = rng.bytes(100 * per_partition)
            for lo in range(0, per_partition, 1000):
                log.append([kvlog.Record(b"user-%d-%08d" % (p, ks[i]), None if dead[i] else values[100 * i:100 * i + 100],
                                         T0 + start + i) for i in range(lo, min(per_partition, lo + 1000))])


def upsert_case(tmp: Path, partitions: int, repeat: int) -> dict[str, Any]:
    root = tmp / "keyed"
    keys = 50_000
    build_keyed(root, partitions, keys * 2, keys, 0)
    t = time.perf_counter()
    first = ki.export(root, "u", "b.users", warehouse=tmp / "wh-upsert", mode="upsert", partition_by=None)
    first_s = time.perf_counter() - t
    t = time.perf_counter()
    ki.export(root, "u", "b.users_append", warehouse=tmp / "wh-upsert", partition_by=None)
    append_first_s = time.perf_counter() - t
    rounds, appends = [], []
    for i in range(repeat):
        build_keyed(root, partitions, 10_000, keys, (i + 1) * 1_000_000)
        t = time.perf_counter()
        ki.export(root, "u", "b.users", warehouse=tmp / "wh-upsert", mode="upsert")
        rounds.append(time.perf_counter() - t)
        t = time.perf_counter()
        ki.export(root, "u", "b.users_append", warehouse=tmp / "wh-upsert")
        appends.append(time.perf_counter() - t)
    n = partitions * 10_000
    print(f"upsert: first export of {partitions * keys * 2:,} records ({first.rows:,} live keys, {first.deleted:,} "
          f"deleted) {first_s * 1000:.0f} ms (append of the same {append_first_s * 1000:.0f} ms); a round of {n:,} "
          f"updates {min(rounds) * 1000:.0f} ms (append {min(appends) * 1000:.0f} ms: {min(rounds) / min(appends):.1f}x)")
    return {"first_seconds": first_s, "append_first_seconds": append_first_s, "round_seconds": min(rounds),
            "append_round_seconds": min(appends), "round_records": n}


def best(fn: Callable[[], Any], repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def machine() -> dict[str, Any]:
    info = kvlog._core.build_info()
    return {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version(), "kvlog_kernels": {k: info[k] for k in ("crc32", "crc32c", "md5")
                                                                   if k in info},
            "cpu_features": info.get("cpu_features"), "loadavg": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    partitions, per = (4, 100_000) if args.quick else (4, 500_000)
    repeat = args.repeat or (3 if args.quick else 5)
    tmp = Path(tempfile.mkdtemp(prefix="kvlog-iceberg-bench-", dir=os.environ.get("KVLOG_BENCH_DIR")))
    results: dict[str, Any] = {"machine": machine(), "rows": partitions * per}
    try:
        root = tmp / "d"
        build(root, partitions, per)
        rows = partitions * per
        table = kvlog.scan(root, "t", threads=1).read_all()
        results["arrow_bytes"] = table.nbytes
        n = [0]

        def export(partition_by: Any) -> Callable[[], Any]:
            def go() -> None:
                n[0] += 1
                r = ki.export(root, "t", f"b.t{n[0]}", warehouse=tmp / f"wh{n[0]}", partition_by=partition_by)
                assert r.rows == rows, r

            return go

        def write(compression: str | None) -> Callable[[], Any]:
            def go() -> None:
                n[0] += 1
                kw = {} if compression is None else {"compression": compression}
                pq.write_table(table, tmp / f"w{n[0]}.parquet", **kw)

            return go

        cases = [("export (hour(timestamp), defaults)", export(ki.export.__kwdefaults__["partition_by"])),
                 ("export unpartitioned", export(None)),
                 ("pyarrow.parquet.write_table (defaults: snappy)", write(None)),
                 ("write_table, zstd (not a default)", write("zstd"))]
        times = {name: float("inf") for name, _ in cases}
        for _ in range(repeat):  # alternately
            for name, fn in cases:
                t = time.perf_counter()
                fn()
                times[name] = min(times[name], time.perf_counter() - t)
        peer = times["pyarrow.parquet.write_table (defaults: snappy)"]
        for name, _ in cases:
            print(f"{name:48s} {times[name] * 1000:9.1f} ms  {rows / times[name] / 1e6:6.2f} M rows/s  "
                  f"{peer / times[name]:5.2f}x write_table")
        results["export"] = {name: {"seconds": s, "rows_per_s": rows / s, "vs_write_table": peer / s}
                             for name, s in times.items()}
        # incremental: the table of the first export, 1 000 more records a partition
        wh = tmp / "wh1"
        inc = []
        for i in range(repeat):
            build(root, partitions, 1000, start=per + 1000 * i)
            t = time.perf_counter()
            r = ki.export(root, "t", "b.t1", warehouse=wh)
            inc.append(time.perf_counter() - t)
            assert r.rows == 1000 * partitions, r
        rerun = best(lambda: ki.export(root, "t", "b.t1", warehouse=wh), repeat)
        print(f"incremental run of {1000 * partitions} new rows: {min(inc) * 1000:.1f} ms "
              f"({min(inc) / (1000 * partitions) * 1e6:.1f} us a row); a rerun finding nothing: {rerun * 1000:.1f} ms")
        results["incremental"] = {"rows": 1000 * partitions, "seconds": min(inc), "rerun_seconds": rerun}
        results["upsert"] = upsert_case(tmp, partitions, repeat)
        print(json.dumps(results["machine"]))
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
