#!/usr/bin/env python
"""A scan of a plain object-store log with its fetches inside the store's blocks, against the same scan
with 64 MiB pieces joined from blocks (how kvlog read before ``e94cab6``), alternately in one process.

    python asv_bench/scan_pieces_bench.py                 # 1 GB, 64 MiB segments, 9 rounds
    python asv_bench/scan_pieces_bench.py --gb 0.25 --rounds 5

The topic is ``remote_bench.py``'s (4 partitions, 12 B keys, 100 B random values, v2 uncompressed), on
tmpfs, served by ``s3_static.py`` from a process of its own. Each round reads every partition whole with
``Log.open("s3://…", read_only=True).to_arrow()``, once each way. Prints the best and median time of each
way and the median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import remote_bench as rb  # noqa: E402

from kvlog import Log  # noqa: E402
from kvlog._core import build_info  # noqa: E402
from kvlog.log import reads  # noqa: E402


def scan(uri) -> int:  # type: ignore[no-untyped-def]
    rows = 0
    for p in range(rb.PARTITIONS):
        with Log.open(uri(f"bench-{p}"), read_only=True) as log:
            rows += log.to_arrow(include_headers=False).num_rows
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--segment-mib", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kvlog-pieces-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    proc = None
    try:
        served = os.path.join(work, rb.BUCKET)
        rows = rb.build(os.path.join(served, "whole"), args.gb, args.segment_mib)
        size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(served) for f in fs if f.endswith(".log"))
        proc, port = rb.start_static(work)

        def uri(key: str) -> str:
            return (f"s3://bench:bench@{rb.BUCKET}/whole/{key}?endpoint_override=127.0.0.1:{port}&scheme=http"
                    "&region=us-east-1")

        inside = reads._piece
        ways = {"64 MiB pieces": lambda seg, pos, chunk: chunk, "inside one block": inside}
        times: dict[str, list[float]] = {name: [] for name in ways}
        assert scan(uri) == rows  # warm
        for _ in range(args.rounds):
            for name, piece in ways.items():
                reads._piece = piece
                t = time.perf_counter()
                assert scan(uri) == rows
                times[name].append(time.perf_counter() - t)
        reads._piece = inside
        out: dict[str, object] = {"build_info": build_info(), "gb": args.gb, "log_bytes": size}
        for name, ts in times.items():
            out[name] = {"best_s": round(min(ts), 3), "median_s": round(statistics.median(ts), 3),
                         "best_MiB_s": round(size / (1 << 20) / min(ts), 1)}
        old, new = times["64 MiB pieces"], times["inside one block"]
        out["paired_median_speedup"] = round(statistics.median(a / b for a, b in zip(old, new)), 3)
        print(json.dumps(out, indent=1))
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
