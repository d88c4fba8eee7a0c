"""The cleaner's offset map: batched put/retain over 1M keys of 16-40 bytes, MD5 kernels, collision rate,
peak memory of a default-sized (128 MiB) map.

Run directly for a one-off comparison with a Python dict insert of the same keys:
    python asv_bench/benchmarks/offset_map.py
"""

import time

import numpy as np

from kvlog._core import offset_map as K
from kvlog.offset_map import OffsetMap

N = 1_000_000
DEFAULT_MAP = 128 << 20        # log.cleaner.dedupe.buffer.size


def key_column(n, seed=42, lo=16, hi=40):
    """Seeded random keys of lo..hi bytes as an Arrow-style binary column (never change: history)."""
    rng = np.random.default_rng(seed)
    lens = rng.integers(lo, hi + 1, n)
    offs = np.zeros(n + 1, np.int32)
    np.cumsum(lens, out=offs[1:])
    data = rng.integers(0, 256, int(offs[-1]), dtype=np.uint8).tobytes()
    return data, offs


def map_for(n, load, strategy="offset"):
    """A map that holds ``n`` keys at utilization ``load`` (put_many never stops early)."""
    bpe = 24 if strategy == "offset" else 32
    return OffsetMap(int(n / load) * bpe + bpe, strategy=strategy, load_factor=1.0)


class PutMany:
    params = ([0.5, 0.9], ["offset", "timestamp"])
    param_names = ["load", "strategy"]
    timeout = 300

    def setup(self, load, strategy):
        self.data, self.offs = key_column(N)
        self.offsets = np.arange(N, dtype=np.int64)
        self.versions = self.offsets if strategy != "offset" else None
        self.map = map_for(N, load, strategy)
        self.map.put_many(self.data, self.offs, None, self.offsets, self.versions)   # touch every page

    def time_put_many(self, load, strategy):
        self.map.clear()
        self.map.put_many(self.data, self.offs, None, self.offsets, self.versions)

    def track_put_many_keys_per_second(self, load, strategy):
        self.map.clear()
        t = time.perf_counter()
        self.map.put_many(self.data, self.offs, None, self.offsets, self.versions)
        return N / (time.perf_counter() - t)

    track_put_many_keys_per_second.unit = "keys/s"

    def track_collision_rate(self, load, strategy):
        self.map.clear()
        self.map.put_many(self.data, self.offs, None, self.offsets, self.versions)
        return self.map.collision_rate

    track_collision_rate.unit = "extra probes/lookup"


class RetainMany:
    params = ([0.5, 0.9], ["offset", "timestamp"])
    param_names = ["load", "strategy"]
    timeout = 300

    def setup(self, load, strategy):
        self.data, self.offs = key_column(N)
        self.offsets = np.arange(N, dtype=np.int64)
        self.versions = self.offsets if strategy != "offset" else None
        self.map = map_for(N, load, strategy)
        self.map.put_many(self.data, self.offs, None, self.offsets, self.versions)

    def time_retain_many(self, load, strategy):
        self.map.retain_many(self.data, self.offs, None, self.offsets, self.versions)

    def track_retain_many_keys_per_second(self, load, strategy):
        t = time.perf_counter()
        self.map.retain_many(self.data, self.offs, None, self.offsets, self.versions)
        return N / (time.perf_counter() - t)

    track_retain_many_keys_per_second.unit = "keys/s"


class PutManyLoadFactorStop:
    """The cleaner's pattern: a default 128 MiB map filled to log.cleaner.io.buffer.load.factor (0.9)."""

    timeout = 300

    def setup(self):
        self.data, self.offs = key_column(N)
        self.offsets = np.arange(N, dtype=np.int64)
        self.map = OffsetMap(DEFAULT_MAP)

    def time_put_many_default_map(self):
        self.map.clear()
        self.map.put_many(self.data, self.offs, None, self.offsets)

    def track_collision_rate_default_map(self):
        self.map.clear()
        self.map.put_many(self.data, self.offs, None, self.offsets)
        return self.map.collision_rate

    track_collision_rate_default_map.unit = "extra probes/lookup"


class PeakMem:
    timeout = 300

    def setup(self):
        self.data, self.offs = key_column(N)
        self.offsets = np.arange(N, dtype=np.int64)

    def peakmem_default_map_1m_keys(self):
        m = OffsetMap(DEFAULT_MAP)
        m.put_many(self.data, self.offs, None, self.offsets)

    def peakmem_default_map_cleared(self):
        # clear() zero-fills the whole buffer (as Kafka does), so every page becomes resident
        m = OffsetMap(DEFAULT_MAP)
        m.put(b"k", 0)
        m.clear()


class MD5:
    params = [K.md5_variants()]
    param_names = ["kernel"]
    timeout = 120

    def setup(self, kernel):
        self.data, self.offs = key_column(N)

    def time_md5_many(self, kernel):
        K.md5_many(self.data, self.offs, kernel)

    def track_md5_keys_per_second(self, kernel):
        t = time.perf_counter()
        K.md5_many(self.data, self.offs, kernel)
        return N / (time.perf_counter() - t)

    track_md5_keys_per_second.unit = "keys/s"


def _best(f, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    data, offs = key_column(N)
    offsets = np.arange(N, dtype=np.int64)
    keys = [data[offs[i]:offs[i + 1]] for i in range(N)]
    print(f"{N} keys of 16-40 bytes; MD5 kernel {K.MD5_KERNEL}")
    for v in K.md5_variants():
        t = _best(lambda: K.md5_many(data, offs, v))
        print(f"  md5_many[{v}]: {N / t / 1e6:6.1f} M keys/s")
    for strategy in ("offset", "timestamp"):
        versions = offsets if strategy != "offset" else None
        for load in (0.5, 0.9):
            m = map_for(N, load, strategy)

            def put():
                m.clear()
                m.put_many(data, offs, None, offsets, versions)

            tp = _best(put)
            rate = m.collision_rate
            tr = _best(lambda: m.retain_many(data, offs, None, offsets, versions))
            print(f"  {strategy:9s} load {load}: put_many {N / tp / 1e6:6.1f} M keys/s, retain_many "
                  f"{N / tr / 1e6:6.1f} M keys/s, collision rate {rate:.3f}")
    m = OffsetMap(DEFAULT_MAP)

    def put_default():
        m.clear()
        m.put_many(data, offs, None, offsets)

    t = _best(put_default)
    print(f"  128 MiB map (clear + put_many): {N / t / 1e6:6.1f} M keys/s")

    def dict_insert():
        fresh = [bytes(k) for k in keys]      # new objects: their hash is not cached yet
        t0 = time.perf_counter()
        d = {}
        for i, k in enumerate(fresh):
            d[k] = i
        return time.perf_counter() - t0

    td = min(dict_insert() for _ in range(3))
    print(f"  Python dict insert of the same keys: {N / td / 1e6:6.1f} M keys/s")


if __name__ == "__main__":
    main()
