"""``make demo`` / ``kvlog demo``: a tour of the record layer and the partition log, then the Spark pipeline.

The tour writes the same records in every Kafka format kvlog supports (magic v0/v1/v2 × codecs), reads them
back through the C kernels, checks them, converts between formats and shows the Arrow table that the
Spark source builds on. The pipeline (:mod:`kvlog.spark.demo`, needs ``kvlog[spark]``) runs two racing
producers, timestamp search and both compaction strategies on an embedded local Spark. Everything printed
is measured in this run.
"""

from __future__ import annotations

import time

import numpy as np

import kvlog
from kvlog._core import build_info


def _rate(n: int, seconds: float) -> str:
    return f"{n / seconds / 1e6:6.1f} M rec/s"


def tour() -> None:
    info = build_info()
    print(f"kvlog {kvlog.__version__}: CRC-32 kernel {info['crc32']}, CRC-32C kernel {info['crc32c']} "
          f"({info['mode']} build)\n")
    n = 100_000
    rng = np.random.default_rng(7)
    keys = [b"user-%05d" % rng.integers(0, 5000) for _ in range(n)]
    values = [b'{"clicks": %d, "page": "/p/%d"}' % (i, i % 97) for i in range(n)]
    stamps = 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 10
    headers = [[("source", b"demo")] if i % 10 == 0 else [] for i in range(n)]

    print(f"{n} keyed records, ~{sum(map(len, values)) // n} B values, every 10th with a header\n")
    print(f"{'format':16} {'bytes':>10} {'encode':>16} {'decode to Arrow':>18}  check   (best of 3)")
    for magic, codecs in ((2, ["none", "gzip", "snappy", "lz4", "zstd"]), (1, ["none", "gzip", "lz4"]),
                          (0, ["none", "snappy"])):
        for codec in codecs:
            t_enc = t_dec = float("inf")
            for _ in range(3):  # best of three: the first run also pays for fresh memory
                t = time.perf_counter()
                buf = kvlog.encode_arrays(keys, values, stamps, headers=headers if magic == 2 else None,
                                          magic=magic, compression=codec, records_per_batch=2000)
                t_enc = min(t_enc, time.perf_counter() - t)
                t = time.perf_counter()
                table = kvlog.MemoryRecords(buf).to_arrow()
                t_dec = min(t_dec, time.perf_counter() - t)
            ok = (table.num_rows == n and table.column("offset")[n - 1].as_py() == n - 1
                  and table.column("value")[12345].as_py() == values[12345])
            print(f"v{magic} {codec:13} {len(buf):10,} {_rate(n, t_enc):>16} {_rate(n, t_dec):>18}  "
                  f"{'ok' if ok else 'MISMATCH'}")

    buf = kvlog.encode_arrays(keys, values, stamps, headers=headers, compression="zstd", records_per_batch=2000)
    mr = kvlog.MemoryRecords(buf)
    first = next(mr.batches())
    print(f"\nfirst batch: {first!r}")
    print(f"  CRC-32C valid: {first.is_valid()}, producer id {first.producer_id}, "
          f"timestamps {first.base_timestamp}..{first.max_timestamp}")
    rec = next(mr.records())
    print(f"first record: offset {rec.offset}, key {rec.key!r}, value {rec.value!r}, headers {rec.headers}")

    down = kvlog.convert(buf, 1, compression="lz4")
    print(f"\ndown-converted to magic v1 (KIP-32): {len(down):,} bytes, headers dropped, "
          f"{sum(1 for _ in kvlog.MemoryRecords(down).batches())} batches")
    damaged = bytearray(buf)
    damaged[len(buf) // 2] ^= 0x40
    mr_bad = kvlog.MemoryRecords(bytes(damaged))
    try:
        mr_bad.validate()
    except kvlog.CorruptRecordError as exc:
        print(f"one flipped bit is caught: {exc}")
    print(f"  valid prefix: {mr_bad.valid_bytes:,} of {len(damaged):,} bytes")

    log_tour()
    print("\nArrow table (Spark Kafka-source columns):")
    print(mr.to_arrow().slice(0, 3).to_pandas().to_string() if _has_pandas() else mr.to_arrow().slice(0, 3))


def log_tour() -> None:
    """A partition log: appends, rolls, time search, retention and recovery after a torn write."""
    import os
    import tempfile

    from kvlog.log import Log

    print("\n--- the partition log ---")
    root = tempfile.mkdtemp(prefix="kvlog-demo-")
    clock = [1_700_000_000_000]
    cfg = kvlog.LogConfig(segment_bytes=256 * 1024, retention_ms=3_600_000)
    log = Log.open(os.path.join(root, "clicks-0"), cfg, time=lambda: clock[0])
    n, per = 50_000, 500
    t = time.perf_counter()
    for i in range(0, n, per):
        # an event every ~143 ms of producer time (CreateTime), spanning the last two hours
        stamps = clock[0] - 7_200_000 + np.arange(i, i + per, dtype=np.int64) * 1000 // 7
        log.append(kvlog.encode_arrays([b"user-%d" % (j % 977) for j in range(i, i + per)],
                                       [b"click %d" % j for j in range(i, i + per)], stamps))
    log.flush()
    dt = time.perf_counter() - t
    print(f"encoded and appended {n} records into {len(log.segments)} segments of <= 256 KiB "
          f"({n / dt / 1e6:.2f} M rec/s incl. encoding), offsets {log.log_start_offset}..{log.log_end_offset}")
    target = clock[0] - 5_400_000
    hit = log.offset_for_timestamp(target)
    assert hit is not None, "the demo log has records after T-90min"
    print(f"first record at or after T-90min: offset {hit.offset} (timestamp {hit.timestamp})")
    deleted = log.delete_old_segments()
    print(f"retention.ms=1h removed {deleted} segments by record time; log now starts at {log.log_start_offset}")
    path = log.active_segment.log_path
    end = log.log_end_offset
    for seg in log.segments:
        seg.close_handlers()
    log.release_lock()
    with open(path, "ab") as f:
        f.write(b"\x00\x00\x00\x00\x00\x00\x30\x39\x00\x00\x10\x00" + os.urandom(300))  # a torn append
    log = Log.open(os.path.join(root, "clicks-0"), cfg, time=lambda: clock[0])
    print(f"after a crash with a torn write: recovered to offset {log.log_end_offset} (was {end}), "
          f"{sum(1 for _ in log.records(end - 3))} of the last 3 records intact")
    log.close()


def _has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    tour()
    print("\n--- the Spark pipeline ---")
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("PySpark is not installed: pip install 'kvlog[spark]' (and Java 17+) for the Spark pipeline")
        return 0
    from kvlog.spark import demo as spark_demo

    return spark_demo.main([] if argv is None else argv)


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
