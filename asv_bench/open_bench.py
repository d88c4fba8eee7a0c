"""What opening a log costs now that every open audits the active segment (issue 13).

Writes one log per size with 16 KiB batches into a scratch directory (tmpfs by default), then times
``Log.open`` four ways, best of five: read-only after a clean shutdown, read-only, writer after a clean
shutdown, writer after an unclean one (full recovery of the active segment).

    python asv_bench/open_bench.py [--dir /dev/shm/kvlog-open] [--sizes 1,64,512]
"""

from __future__ import annotations

import argparse
import os
import shutil
import time

import kvlog
from kvlog import LogConfig, Record
from kvlog.log import Log

T0 = 1_700_000_000_000
CFG = LogConfig(segment_bytes=2**30)


def _clock() -> int:
    return T0 + 1000


def build(d: str, mib: int) -> None:
    log = Log.open(d, CFG, time=_clock)
    batch = [Record(b"k%d" % j, b"v" * 1000, T0) for j in range(16)]
    while log.size_in_bytes < mib << 20:
        log.append(kvlog.encode_batch(batch, base_offset=log.log_end_offset), assign_offsets=False)
    log.close()


def best_ms(d: str, **kw: object) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        log = Log.open(d, CFG, time=_clock, **kw)  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - start)
        log.close()
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/dev/shm/kvlog-open")
    ap.add_argument("--sizes", default="1,64,512", help="active segment sizes in MiB")
    args = ap.parse_args()
    from kvlog._core import build_info

    info = build_info()
    print(f"crc32c {info['crc32c']}, {os.cpu_count()} CPUs")
    print("| active segment | read-only, clean | read-only | writer, clean | writer, unclean |")
    print("|---|---|---|---|---|")
    for mib in (int(x) for x in args.sizes.split(",")):
        root = os.path.join(args.dir, str(mib))
        shutil.rmtree(root, ignore_errors=True)
        d = os.path.join(root, "t-0")
        build(d, mib)
        cells = [best_ms(d, read_only=True, _clean_shutdown=True), best_ms(d, read_only=True),
                 best_ms(d, _clean_shutdown=True), best_ms(d)]
        print(f"| {mib} MiB | " + " | ".join(f"{c:.2f} ms" for c in cells) + " |")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
