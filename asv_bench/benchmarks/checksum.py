import os
import zlib

import kvlog
from kvlog._core import crc


class TimeCRC:
    params = (["crc32", "crc32c"], [64, 1024, 65536, 1 << 20, 16 << 20])
    param_names = ["algorithm", "size"]

    def setup(self, algorithm, size):
        self.data = os.urandom(size)
        self.fn = getattr(kvlog, algorithm)

    def time_crc(self, algorithm, size):
        self.fn(self.data)

    def track_gbps(self, algorithm, size):
        import time

        n = max(1, (64 << 20) // size)
        t = time.perf_counter()
        for _ in range(n):
            self.fn(self.data)
        return size * n / (time.perf_counter() - t) / 1e9

    track_gbps.unit = "GB/s"


class TimeCRCVariants:
    """Every kernel this CPU can run, at 1 MiB (the portable one included)."""

    params = (["crc32", "crc32c"], list(crc.variants()))
    param_names = ["algorithm", "variant"]

    def setup(self, algorithm, variant):
        self.data = os.urandom(1 << 20)
        if crc.crc_variant(algorithm, variant, b"x") is None:
            raise NotImplementedError("kernel not available on this CPU")

    def time_variant(self, algorithm, variant):
        crc.crc_variant(algorithm, variant, self.data)


class TimeZlibPeer:
    def setup(self):
        self.data = os.urandom(1 << 20)

    def time_zlib_crc32_1mib(self):
        zlib.crc32(self.data)
