"""Cleaner benchmarks: throughput, and generational scheduling against whole-log cleaning."""

import os
import shutil
import tempfile

import numpy as np

import kvlog
from kvlog.cleaner import LogCleaner
from kvlog.log import Log

from .log import _chunks

T0 = 1_700_000_000_000


def generational_workload(generational, rounds=16, per_round=20_000, keys=40_000, seed=11, root=None,
                          min_yield=0.2):
    """Rounds of skewed-key appends, each followed by a cleaning pass, then one final full pass.

    Returns (cleaner bytes read + written over all passes, final log size in bytes).
    """
    rng = np.random.default_rng(seed)
    own = root is None
    root = root or tempfile.mkdtemp(prefix="kvlog-gen-")
    cfg = kvlog.LogConfig(cleanup_policy="compact", segment_bytes=1 << 20)
    log = Log.open(os.path.join(root, f"g{int(generational)}-0"), cfg)
    cleaner = LogCleaner(64 << 20, generational=generational, full_every=10**9, min_yield=min_yield)
    io = 0
    try:
        for r in range(rounds):
            ks = rng.zipf(1.2, per_round) % keys
            vals = [rng.bytes(100) for _ in range(per_round)]
            data = kvlog.encode_arrays([b"key-%07d" % k for k in ks], vals, T0 + r, records_per_batch=200)
            h = kvlog.MemoryRecords(data).batch_headers()
            ends = h["position"] + h["size"]
            start = 0
            for cut in range(0, len(h), 40):
                end = int(ends[min(cut + 39, len(h) - 1)])
                log.append(data[start:end])
                start = end
            log.roll()
            st = cleaner.clean(log)
            io += st.bytes_read + st.bytes_written
        final = LogCleaner(64 << 20).clean(log, full=True)  # one full pass in both modes: the same end state
        io += final.bytes_read + final.bytes_written
        return io, log.size_in_bytes
    finally:
        log.close()
        if own:
            shutil.rmtree(root, ignore_errors=True)


class TrackGenerational:
    timeout = 600

    def track_io_whole_log(self):
        return generational_workload(False)[0]

    def track_io_generational(self):
        return generational_workload(True)[0]

    track_io_whole_log.unit = "bytes"
    track_io_generational.unit = "bytes"


class TimeClean:
    timeout = 600

    def setup(self):
        rng = np.random.default_rng(7)
        n = 200_000
        self.keys = [b"key-%06d" % k for k in rng.zipf(1.3, n) % 20_000]
        self.vals = [rng.bytes(100) for _ in range(n)]
        self.chunks = _chunks(kvlog.encode_arrays(self.keys, self.vals, T0, records_per_batch=100), 80)
        self.dir = tempfile.mkdtemp()
        self.n = 0

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_clean_uncompressed(self):
        self.n += 1
        log = Log.open(os.path.join(self.dir, f"t-{self.n}"),
                       kvlog.LogConfig(cleanup_policy="compact", segment_bytes=8 << 20))
        for c in self.chunks:  # about 1 MiB per append, below segment.bytes
            log.append(c)
        log.roll()
        LogCleaner(128 << 20).clean(log)
        log.close()
