"""The headline figures tracked over history (`make bench-history`, plotted by plot_history.py).

Each is a throughput measured inside the benchmark as the best of several timed runs, so one asv sample
(``--quick``) is already a stable number on a shared machine. Workloads are fixed: never change them, or
the history stops being comparable (add a new benchmark instead).
"""

import os
import shutil
import tempfile
import time

import numpy as np

import kvlog
from kvlog.cleaner import LogCleaner
from kvlog.log import Log

from .common import T0, records


def _best(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _scratch():
    # tmpfs where there is one: the figures are about kvlog, not about the disk's writeback
    return tempfile.mkdtemp(prefix="kvlog-asv-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def _chunks(data, per_chunk):
    h = kvlog.MemoryRecords(data).batch_headers()
    ends = h["position"] + h["size"]
    out, start = [], 0
    for cut in range(0, len(h), per_chunk):
        end = int(ends[min(cut + per_chunk - 1, len(h) - 1)])
        out.append(data[start:end])
        start = end
    return out


class TrackHeadline:
    timeout = 900

    def track_decode_records_per_s(self):
        """v2, uncompressed, 1,000 records per batch, decoded to Arrow with every CRC checked."""
        keys, values, stamps = records(200_000)
        data = kvlog.encode_arrays(keys, values, stamps, records_per_batch=1000)
        mr = kvlog.MemoryRecords(data)
        return 200_000 / _best(mr.to_arrow, 15)

    track_decode_records_per_s.unit = "records/s"

    def track_crc32c_gb_per_s(self):
        """CRC-32C of a 1 MiB buffer (the kernel the CPU dispatch picks)."""
        data = os.urandom(1 << 20)

        def run():
            for _ in range(64):
                kvlog.crc32c(data)

        return 64 * len(data) / _best(run, 15) / 1e9

    track_crc32c_gb_per_s.unit = "GB/s"

    def track_append_mb_per_s(self):
        """Pre-built v2 batches of 100 records appended about 1 MiB at a time (validate, assign, index)."""
        _, values, stamps = records(200_000)
        chunks = _chunks(kvlog.encode_arrays(None, values, stamps, records_per_batch=100), 80)
        size = sum(len(c) for c in chunks)
        root = _scratch()
        n = [0]

        def run():
            n[0] += 1
            log = Log.open(os.path.join(root, f"a-{n[0]}"), kvlog.LogConfig())
            try:
                for c in chunks:
                    log.append(c)
            finally:
                log.close()

        try:
            return size / _best(run, 7) / 1e6
        finally:
            shutil.rmtree(root, ignore_errors=True)

    track_append_mb_per_s.unit = "MB/s"

    def track_compaction_mb_per_s(self):
        """One cleaner pass over an uncompressed 200,000-record log with zipf(1.3)-skewed keys."""
        rng = np.random.default_rng(7)
        keys = [b"key-%06d" % k for k in rng.zipf(1.3, 200_000) % 20_000]
        vals = [rng.bytes(100) for _ in range(200_000)]
        chunks = _chunks(kvlog.encode_arrays(keys, vals, T0, records_per_batch=100), 80)
        root = _scratch()
        best = float("inf")
        size = 0
        try:
            for i in range(5):
                log = Log.open(os.path.join(root, f"c-{i}"),
                               kvlog.LogConfig(cleanup_policy="compact", segment_bytes=8 << 20))
                try:
                    for c in chunks:
                        log.append(c)
                    log.roll()
                    size = log.size_in_bytes
                    cleaner = LogCleaner(128 << 20)
                    t = time.perf_counter()
                    cleaner.clean(log)
                    best = min(best, time.perf_counter() - t)
                finally:
                    log.close()
        finally:
            shutil.rmtree(root, ignore_errors=True)
        return size / best / 1e6

    track_compaction_mb_per_s.unit = "MB/s"

    def track_point_append_per_s(self):
        """Appends of one pre-encoded 1-record batch (100 B value) at a time, to a Log on tmpfs."""
        batch = kvlog.encode_batch([kvlog.Record(b"key", b"v" * 100, T0)])
        root = _scratch()
        log = Log.open(os.path.join(root, "p-0"), kvlog.LogConfig(segment_bytes=256 << 20))

        def run():
            for _ in range(2_000):
                log.append(batch)

        try:
            return 2_000 / _best(run, 15)
        finally:
            log.close()
            shutil.rmtree(root, ignore_errors=True)

    track_point_append_per_s.unit = "appends/s"

    def track_point_read_per_s(self):
        """read(offset, 4096) at 2,000 random offsets of a log of 8 MiB segments (200,000 records of 100 B
        in batches of 1-10 records)."""
        rng = np.random.default_rng(11)
        value = rng.bytes(100)
        root = _scratch()
        log = Log.open(os.path.join(root, "r-0"), kvlog.LogConfig(segment_bytes=8 << 20))
        offset = 0
        while offset < 200_000:
            k = int(rng.integers(1, 11))
            log.append(kvlog.encode_batch([kvlog.Record(b"k", value, T0 + offset + j) for j in range(k)]))
            offset += k
        targets = [int(o) for o in rng.integers(0, offset, 2_000)]

        def run():
            for o in targets:
                log.read(o, 4096)

        try:
            return len(targets) / _best(run, 7)
        finally:
            log.close()
            shutil.rmtree(root, ignore_errors=True)

    track_point_read_per_s.unit = "reads/s"
