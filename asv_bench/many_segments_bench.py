#!/usr/bin/env python
"""``Log.to_arrow`` of a log of many small segments: small segments' pieces decoded together (since
``arrow_in`` joins pieces under 256 KiB up to 4 MiB), against one decoder call per segment, alternately.

    python asv_bench/many_segments_bench.py                   # 10,000 segments of one 3-record batch
    python asv_bench/many_segments_bench.py --segments 2000 --rounds 3

The log is written by kvlog on tmpfs (``segment.bytes`` 200, so each append of one batch rolls), then
read whole with a read-only ``Log``, opened once; each figure is the best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time

import kvlog
from kvlog import Log, LogConfig, Record
from kvlog._core import build_info
from kvlog.log import reads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--segments", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kvlog-segments-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        d = os.path.join(work, "many-0")
        t = time.perf_counter()
        with Log.open(d, LogConfig(segment_bytes=200)) as log:
            for i in range(args.segments):
                log.append([Record(b"key-%d" % (3 * i + j), b"value-%d" % (3 * i + j), 1_700_000_000_000 + 3 * i + j)
                            for j in range(3)])
        built = time.perf_counter() - t
        small = reads._SMALL_PIECE
        ways = {"one decode per segment": 0, "small pieces together": small}
        best = {name: float("inf") for name in ways}
        with Log.open(d, read_only=True) as log:
            assert len(log.segments) >= args.segments
            rows = log.to_arrow().num_rows  # warm: every segment opened once
            for _ in range(args.rounds):
                for name, threshold in ways.items():
                    reads._SMALL_PIECE = threshold
                    t = time.perf_counter()
                    assert log.to_arrow().num_rows == rows
                    best[name] = min(best[name], time.perf_counter() - t)
            reads._SMALL_PIECE = small
            out: dict[str, object] = {"build_info": build_info(), "kvlog": kvlog.__version__,
                                      "segments": len(log.segments), "rows": rows, "built_s": round(built, 1)}
        for name, s in best.items():
            out[name] = {"best_s": round(s, 3), "us_per_segment": round(s / args.segments * 1e6, 1)}
        out["speedup"] = round(best["one decode per segment"] / best["small pieces together"], 2)
        print(json.dumps(out, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
