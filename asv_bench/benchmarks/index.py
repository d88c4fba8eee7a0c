"""Offset/time index lookups: scalar (Kafka's warm-section search), batched, and numpy.searchsorted as the
reference point on the same entries.

Run directly for a one-off comparison (1.3M entries, 1M random targets):
    python asv_bench/benchmarks/index.py
"""

import os
import shutil
import tempfile
import time

import numpy as np

from kvlog._core import index as K
from kvlog.index import OffsetIndex, TimeIndex

T0 = 1_700_000_000_000
BATCH = 100_000
MAX_OFFSET_ENTRIES = 1_310_720  # a full default 10 MiB offset index


def offset_entries(n, seed=42):
    """Seeded (relative offsets, positions) of n entries, both strictly increasing (never change: history)."""
    rng = np.random.default_rng(seed)
    rel = np.cumsum(rng.integers(1, 20, n)).astype(np.int64)
    pos = np.cumsum(rng.integers(1, 1600, n)).astype(np.int64)
    return rel, pos


def targets(rel, pattern, m, seed=7):
    """Targets near the tail (inside the warm section: what in-sync consumers ask) or uniform over the index."""
    rng = np.random.default_rng(seed)
    lo = int(rel[max(0, len(rel) - 1000)]) if pattern == "tail" else int(rel[0]) - 1
    return rng.integers(lo, int(rel[-1]) + 2, m).astype(np.int64)


class _Files:
    def make(self, n, time_index=False):
        self.dir = tempfile.mkdtemp(prefix="kvlog-bench-")
        self.rel, self.pos = offset_entries(n)
        path = os.path.join(self.dir, "00000000000000000000.index")
        with open(path, "wb") as f:
            f.write(K.offset_encode(self.rel, self.pos))
        self.index = OffsetIndex(path, 0, writable=False)
        if time_index:
            self.ts = self.rel * 3 + T0
            tpath = os.path.join(self.dir, "00000000000000000000.timeindex")
            with open(tpath, "wb") as f:
                f.write(K.time_encode(self.ts, self.rel))
            self.tindex = TimeIndex(tpath, 0, writable=False)

    def teardown(self, *args):
        self.index.close()
        if hasattr(self, "tindex"):
            self.tindex.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class TimeLookup(_Files):
    params = ([1_000, 100_000, MAX_OFFSET_ENTRIES], ["tail", "random"])
    param_names = ["entries", "pattern"]
    timeout = 120

    def setup(self, n, pattern):
        self.make(n)
        self.batch = targets(self.rel, pattern, BATCH)
        self.scalars = self.batch[:1000].tolist()
        self.one = self.scalars[0]

    def time_lookup(self, n, pattern):
        self.index.lookup(self.one)

    def time_lookup_1000_scalar(self, n, pattern):
        lookup = self.index.lookup
        for t in self.scalars:
            lookup(t)

    def time_lookup_many_100k(self, n, pattern):
        self.index.lookup_many(self.batch)

    def time_searchsorted_100k(self, n, pattern):
        np.searchsorted(self.rel, self.batch, side="right")

    def track_lookup_many_vs_searchsorted(self, n, pattern):
        a = _best(lambda: self.index.lookup_many(self.batch))
        b = _best(lambda: np.searchsorted(self.rel, self.batch, side="right"))
        return b / a

    track_lookup_many_vs_searchsorted.unit = "x"


class TimeTimeIndexLookup(_Files):
    params = ([1_000, 873_813], ["tail", "random"])
    param_names = ["entries", "pattern"]
    timeout = 120

    def setup(self, n, pattern):
        self.make(n, time_index=True)
        self.batch = targets(self.ts, pattern, BATCH)
        self.one = int(self.batch[0])

    def time_lookup(self, n, pattern):
        self.tindex.lookup(self.one)

    def time_lookup_many_100k(self, n, pattern):
        self.tindex.lookup_many(self.batch)

    def time_searchsorted_100k(self, n, pattern):
        np.searchsorted(self.ts, self.batch, side="right")


class TimeOpen(_Files):
    """Opening an existing index: mapping plus the valid-prefix scan over every entry."""

    params = [MAX_OFFSET_ENTRIES]
    param_names = ["entries"]

    def setup(self, n):
        self.make(n)

    def time_open_and_scan(self, n):
        OffsetIndex(self.index.path, 0, writable=False).close()


class TimeAppend:
    params = [10_000]
    param_names = ["entries"]

    def setup(self, n):
        self.dir = tempfile.mkdtemp(prefix="kvlog-bench-")
        self.rel, self.pos = offset_entries(n)
        self.offs = self.rel.tolist()
        self.poss = self.pos.tolist()
        self.k = 0

    def teardown(self, n):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_append_offset_index(self, n):
        self.k += 1
        with OffsetIndex(os.path.join(self.dir, f"{self.k}.index"), 0, n * 8) as idx:
            append = idx.append
            for o, p in zip(self.offs, self.poss):
                append(o, p)

    def time_maybe_append_time_index(self, n):
        self.k += 1
        with TimeIndex(os.path.join(self.dir, f"{self.k}.timeindex"), 0, (n + 1) * 12) as idx:
            append = idx.maybe_append
            for o in self.offs:
                append(T0 + o, o)


def _best(fn, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def compare(n=MAX_OFFSET_ENTRIES, m=1_000_000):
    """Print lookup_many throughput against numpy.searchsorted on the same keys."""
    files = _Files()
    files.make(n, time_index=True)
    try:
        rows = []
        for pattern in ("random", "tail"):
            t = targets(files.rel, pattern, m)
            ts = targets(files.ts, pattern, m)
            srt = np.sort(t)
            rows += [
                (f"offset lookup_many, {pattern}", _best(lambda: files.index.lookup_many(t)),
                 _best(lambda: np.searchsorted(files.rel, t, side="right"))),
                (f"offset kernel slots only, {pattern}", _best(lambda: K.offset_lookup_many(files.index._pin, n, t)),
                 _best(lambda: np.searchsorted(files.rel, t, side="right"))),
                (f"offset lookup_many, {pattern}, sorted targets", _best(lambda: files.index.lookup_many(srt)),
                 _best(lambda: np.searchsorted(files.rel, srt, side="right"))),
                (f"time lookup_many, {pattern}", _best(lambda: files.tindex.lookup_many(ts)),
                 _best(lambda: np.searchsorted(files.ts, ts, side="right"))),
            ]
        print(f"{n:,} entries, {m:,} targets (best of 5)")
        print(f"{'':44} {'kvlog':>9} {'searchsorted':>13} {'ratio':>6}  kvlog M lookups/s")
        for name, a, b in rows:
            print(f"{name:44} {a * 1e3:7.1f}ms {b * 1e3:11.1f}ms {b / a:5.1f}x  {m / a / 1e6:6.1f}")
        one = int(files.rel[-5])
        k = 200_000
        t = time.perf_counter()
        for _ in range(k):
            files.index.lookup(one)
        print(f"scalar OffsetIndex.lookup (tail): {(time.perf_counter() - t) / k * 1e9:.0f} ns")
    finally:
        files.teardown()


if __name__ == "__main__":
    compare()
