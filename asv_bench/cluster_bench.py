#!/usr/bin/env python
"""Reading a cluster's brokers' directories against reading one broker's copy (issue 50's target: ≤ 1.1×).

    python asv_bench/cluster_bench.py            # best of 7 (about two minutes)
    python asv_bench/cluster_bench.py --quick    # smaller, best of 3
    python asv_bench/cluster_bench.py --json out.json

Three brokers' data directories, as a cluster of replication factor 3 leaves them: every partition on every
broker, byte-identical replicas, each broker's ``meta.properties`` (its node id, one cluster id),
``leader-epoch-checkpoint`` and ``replication-offset-checkpoint``. Each case times ``kvlog.scan`` of all three
directories (kvlog.cluster chooses one replica a partition and its committed end, cross-checking the others'
leader epochs) against ``kvlog.scan`` of broker 1's directory alone, the same partitions and rows, run
alternately (a ratio > 1: the cluster read costs more):

* ``bulk``: 6 partitions of 400 000 records (100-byte values, 12-byte keys, batches of 500), all of Spark's
  Kafka-source columns, the default threads;
* ``many``: 600 partitions of 200 records: what choosing a replica costs a partition, where a partition's rows
  cost little;
* ``point``: one partition's first record (``limit=1``), per call: the cost a single read pays.

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

import kvlog
from kvlog import LogManager, Record, checkpoint
from kvlog.broker_files import write_leader_epochs

CLUSTER_ID = "kvlogBenchClusterId00A"
T0 = 1_700_000_000_000


def build(root: Path, partitions: int, per_partition: int, value_size: int = 100, batch: int = 500) -> list[Path]:
    """Broker 1's directory written, then copied for brokers 2 and 3 (replicas are byte-identical up to the high
    watermark); returns the three directories."""
    one = root / "broker-1"
    value = (b"v" * value_size)
    ends = {}
    with LogManager(one) as m:
        m.create_topic("t", partitions)
        for p in range(partitions):
            log = m.log("t", p)
            for lo in range(0, per_partition, batch):
                log.append([Record(b"key-%08d" % (i % 9973), value, T0 + i)
                            for i in range(lo, min(per_partition, lo + batch))])
            ends[("t", p)] = log.log_end_offset
    for p in range(partitions):
        write_leader_epochs(str(one / f"t-{p}" / "leader-epoch-checkpoint"), [(0, 0)])
    checkpoint.write_offsets(str(one / "replication-offset-checkpoint"), ends)
    dirs = [one]
    for node in (1, 2, 3):
        d = root / f"broker-{node}"
        if node > 1:
            shutil.copytree(one, d)
        (d / "meta.properties").write_text(f"version=1\nnode.id={node}\ncluster.id={CLUSTER_ID}\n")
        if node > 1:
            dirs.append(d)
    return dirs


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def pair(a: Callable[[], Any], b: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Best of ``repeat`` for each, run alternately."""
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(best(a, 1))
        tb.append(best(b, 1))
    return min(ta), min(tb)


def case_scan(dirs: list[Path], repeat: int, rows: int) -> dict[str, Any]:
    one = [str(dirs[0])]
    every = [str(d) for d in dirs]

    def scan(src: list[str]) -> Callable[[], Any]:
        def go() -> None:
            n = kvlog.scan(src if len(src) > 1 else src[0], "t").read_all().num_rows
            assert n == rows, (n, rows)
        return go

    t_one, t_all = pair(scan(one), scan(every), repeat)
    return {"one_broker_s": t_one, "cluster_s": t_all, "ratio": t_all / t_one, "rows": rows,
            "rows_per_s_cluster": rows / t_all, "rows_per_s_one": rows / t_one}


def case_point(dirs: list[Path], repeat: int, calls: int = 200) -> dict[str, Any]:
    one = str(dirs[0])
    every = [str(d) for d in dirs]

    def point(src: Any) -> Callable[[], Any]:
        def go() -> None:
            for _ in range(calls):
                assert kvlog.scan(src, "t", partitions=0, limit=1, threads=1).read_all().num_rows == 1
        return go

    t_one, t_all = pair(point(one), point(every), repeat)
    return {"one_broker_us": t_one / calls * 1e6, "cluster_us": t_all / calls * 1e6, "ratio": t_all / t_one}


def machine() -> dict[str, Any]:
    info = kvlog._core.build_info()
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model or platform.processor(), "cores": os.cpu_count(), "python": sys.version.split()[0],
            "kvlog": kvlog.__version__, "build_info": {k: info[k] for k in sorted(info) if "crc" in k or
                                                        "cpu" in k or "md5" in k},
            "loadavg": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int)
    ap.add_argument("--json")
    ap.add_argument("--cases", default="bulk,many,point")
    args = ap.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 7)
    cases = args.cases.split(",")
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    out: dict[str, Any] = {"machine": machine(), "repeat": repeat}
    with tempfile.TemporaryDirectory(dir=base, prefix="kvlog-cluster-bench-") as tmp:
        if "bulk" in cases or "point" in cases:
            n = 80_000 if args.quick else 400_000
            dirs = build(Path(tmp) / "bulk", 6, n)
            if "bulk" in cases:
                out["bulk"] = case_scan(dirs, repeat, 6 * n)
            if "point" in cases:
                out["point"] = case_point(dirs, repeat)
        if "many" in cases:
            parts = 150 if args.quick else 600
            dirs = build(Path(tmp) / "many", parts, 200, batch=200)
            out["many"] = case_scan(dirs, repeat, parts * 200)
    print(json.dumps(out["machine"], indent=1))
    for name in ("bulk", "many"):
        if name in out:
            r = out[name]
            print(f"{name:5s} {r['rows']:>9,} rows: one broker {r['one_broker_s'] * 1e3:8.1f} ms "
                  f"({r['rows_per_s_one'] / 1e6:5.2f} M rows/s), three brokers as a cluster "
                  f"{r['cluster_s'] * 1e3:8.1f} ms: {r['ratio']:.3f}x")
    if "point" in out:
        r = out["point"]
        print(f"point first record of a partition: one broker {r['one_broker_us']:.0f} us, cluster "
              f"{r['cluster_us']:.0f} us: {r['ratio']:.3f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
