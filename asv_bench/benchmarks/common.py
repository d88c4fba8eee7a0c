"""Seeded datasets shared by the benchmarks. Append new ones; never change existing ones (history)."""

import numpy as np

T0 = 1_700_000_000_000


def records(n, value_bytes=100, seed=42):
    rng = np.random.default_rng(seed)
    keys = [b"key-%08d" % i for i in range(n)]
    values = [rng.bytes(value_bytes) for _ in range(n)]
    stamps = np.arange(n, dtype=np.int64) + T0
    return keys, values, stamps
