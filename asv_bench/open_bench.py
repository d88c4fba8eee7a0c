#!/usr/bin/env python
"""What opening costs: one partition, by the size and shape of its active segment, and a scan that selects
nothing over a directory of many partitions (issue 52's "opening costs nothing").

    python asv_bench/open_bench.py                     # 512 MiB segments, 2 000 partitions
    python asv_bench/open_bench.py --mib 1024 --partitions 20000
    python asv_bench/open_bench.py --quick             # 64 MiB, 500 partitions

Partitions, written into a scratch directory (tmpfs by default, ``--dir``) as a closed writer leaves them (the
recovery-point checkpoint at the log's end, as a cleanly stopped broker's):

* ``small``: 100 records;
* ``1000-record batches``: an active segment of ``--mib`` MiB of 1 000-record batches of 100-byte values;
* ``one-record batches``: the same size of one-record batches (the most batches a segment can hold);
* ``unflushed``: the one-record segment with its recovery point at the segment's base offset (a running or
  crashed broker's: every batch above the recovery point is audited at open, as recovery would).

Each is timed as ``Log.open(path, read_only=True)`` and ``close`` (per operation: the best and the median of
``--repeat``), with the files in the page cache and, where the machine lets this process drop it
(``posix_fadvise(DONTNEED)`` on each file), cold. The many-partition case: ``kvlog.scan(root, topic,
partitions=[])``-like selection of nothing (a filter on an offset past every end), timed whole and per
partition. The machine, its CPU features (``kvlog._core.build_info()``) and the load average are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import kvlog
from kvlog import LogConfig, Record
from kvlog.log import Log

T0 = 1_765_000_000_000


def _one_record_segment(d: Path, mib: int) -> None:
    """``mib`` MiB of one-record v2 batches, written as one file of copies of one batch (the base offset and
    the partition leader epoch lie outside the CRC: each copy gets its own offset), then indexed by a writer's
    recovery and closed."""
    d.mkdir(parents=True)
    template = bytes(kvlog.encode_batch([Record(b"key-0001", b"v" * 40, T0)], base_offset=0))
    n = (mib << 20) // len(template)
    data = np.frombuffer(template * n, np.uint8).reshape(n, len(template)).copy()
    data[:, :8] = np.arange(n, dtype=">i8").view(np.uint8).reshape(n, 8)
    (d / "00000000000000000000.log").write_bytes(data.tobytes())
    with Log.open(d, LogConfig(segment_bytes=2**30)):
        pass  # (a writer's open of a directory without checkpoints recovers it: indexes rebuilt, closed clean)


def _batched_segment(d: Path, mib: int) -> None:
    rng = np.random.default_rng(3)
    with Log.open(d, LogConfig(segment_bytes=2**30)) as log:
        while log.size_in_bytes < mib << 20:
            values = rng.bytes(100_000)
            base = log.log_end_offset
            log.append([Record(b"key-%08d" % (base + i), values[100 * i:100 * i + 100], T0 + base + i)
                        for i in range(1000)])


def _small(d: Path) -> None:
    with Log.open(d) as log:
        log.append([Record(b"k%d" % i, b"v" * 100, T0 + i) for i in range(100)])


def _drop_cache(d: Path) -> bool:
    if not hasattr(os, "posix_fadvise"):
        return False
    for f in d.iterdir():
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return True


def _set_recovery_point(root: Path, name: str, offset: int) -> None:
    path = root / "recovery-point-offset-checkpoint"
    lines = path.read_text().splitlines()
    topic, _, part = name.rpartition("-")
    out = [ln if ln.split()[:2] != [topic, part] else f"{topic} {part} {offset}" for ln in lines[2:]]
    path.write_text("\n".join(lines[:2] + out) + "\n")


def per_open(d: Path, repeat: int, cold: bool) -> list[float]:
    times = []
    for _ in range(repeat):
        if cold and not _drop_cache(d):
            return []
        t = time.perf_counter()
        log = Log.open(d, read_only=True)
        times.append(time.perf_counter() - t)
        log.close()
    return times


def many(root: Path, partitions: int, repeat: int) -> dict[str, float]:
    if not root.exists():
        with kvlog.LogManager(root) as m:
            m.create_topic("many", partitions)
            for p in range(partitions):
                m.log("many", p).append([Record(b"k", b"v" * 100, T0 + p)])
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        n = kvlog.scan(root, "many", start_offset=10**12).read_all().num_rows
        best = min(best, time.perf_counter() - t)
        assert n == 0
    return {"partitions": partitions, "seconds": best, "per_partition_us": best / partitions * 1e6}


def machine() -> dict[str, Any]:
    info = kvlog._core.build_info()
    return {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version(), "crc32c": info.get("crc32c"),
            "cpu_features": info.get("cpu_features"), "loadavg": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default="/dev/shm/kvlog-open-bench")
    ap.add_argument("--mib", type=int, default=512)
    ap.add_argument("--partitions", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    mib, partitions = (64, 500) if args.quick else (args.mib, args.partitions)
    root = Path(args.dir)
    shutil.rmtree(root, ignore_errors=True)
    data = root / "d"
    results: dict[str, Any] = {"machine": machine(), "mib": mib}
    try:
        builders: dict[str, Callable[[Path], None]] = {
            "small": _small,
            "1000-record batches": lambda d: _batched_segment(d, mib),
            "one-record batches": lambda d: _one_record_segment(d, mib),
        }
        dirs = {}
        for i, (name, build) in enumerate(builders.items()):
            d = data / f"t{i}-0"
            t = time.perf_counter()
            build(d)
            dirs[name] = d
            print(f"built {name}: {sum(f.stat().st_size for f in d.iterdir()) / 2**20:.1f} MiB in "
                  f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
        rows = []
        for name, d in dirs.items():
            rows.append((name, per_open(d, args.repeat, False), per_open(d, 3, True)))
        _set_recovery_point(data, dirs["one-record batches"].name, 0)
        rows.append(("unflushed (one-record, recovery point 0)", per_open(dirs["one-record batches"], 3, False),
                     per_open(dirs["one-record batches"], 3, True)))
        print(f"| partition (active segment of {mib} MiB) | open, cached: best | median | cold: best |")
        print("|---|---|---|---|")
        for name, hot, cold in rows:
            c = f"{min(cold) * 1e3:.2f} ms" if cold else "n/a"
            print(f"| {name} | {min(hot) * 1e6:,.0f} us | {statistics.median(hot) * 1e6:,.0f} us | {c} |")
            results[name] = {"best_s": min(hot), "median_s": statistics.median(hot),
                             "cold_best_s": min(cold) if cold else None}
        m = many(root / "many", partitions, 3)
        print(f"scan selecting nothing over {partitions:,} partitions: {m['seconds'] * 1e3:,.0f} ms "
              f"({m['per_partition_us']:.0f} us a partition)")
        results["many"] = m
        print(json.dumps(results["machine"]))
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
