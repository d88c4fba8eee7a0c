"""Point operations of a Log, one call at a time (issue 12): each benchmark times 1,000 calls.

Divide by 1,000 for the per-call figure. ``asv_bench/point_bench.py`` prints the same operations
beside SQLite and the raw syscall. Logs live on tmpfs (``/dev/shm``) when there is one.
"""

import os
import random
import shutil
import tempfile

import kvlog
from kvlog import Log, LogConfig, Record

from .common import T0

CALLS = 1_000


def _scratch():
    return tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


class TimePointAppend:
    """append of a pre-encoded 1- or 10-record batch, and append([Record]) one record per call."""

    def setup(self):
        self.dir = _scratch()
        value = random.Random(1).randbytes(100)
        self.one = kvlog.encode_batch([Record(b"key", value, T0)])
        self.ten = kvlog.encode_batch([Record(b"key-%d" % i, value, T0 + i) for i in range(10)])
        self.rec = Record(b"key", value, T0)
        self.log = Log.open(os.path.join(self.dir, "t-0"), LogConfig(segment_bytes=256 << 20))

    def teardown(self):
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_append_1_record_batch_x1000(self):
        for _ in range(CALLS):
            self.log.append(self.one)

    def time_append_10_record_batch_x1000(self):
        for _ in range(CALLS):
            self.log.append(self.ten)

    def time_append_record_x1000(self):
        rec = [self.rec]
        for _ in range(CALLS):
            self.log.append(rec)


class TimePointRead:
    """read(offset, 4 KiB) and offset_for_timestamp at random points of a log of 8 MiB segments (1-10
    records per batch, 100 B values, increasing timestamps), and a consumer loop of 64 KiB fetches."""

    timeout = 300

    def setup(self):
        self.dir = _scratch()
        rng = random.Random(2)
        value = rng.randbytes(100)
        self.log = Log.open(os.path.join(self.dir, "t-0"), LogConfig(segment_bytes=8 << 20))
        offset = 0
        while offset < 200_000:
            k = rng.randint(1, 10)
            self.log.append(kvlog.encode_batch([Record(b"k", value, T0 + 10 * (offset + j)) for j in range(k)]))
            offset += k
        self.end = offset
        self.offsets = [rng.randrange(offset) for _ in range(CALLS)]
        self.stamps = [T0 + rng.randrange(10 * offset) for _ in range(CALLS)]

    def teardown(self):
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_read_4k_random_x1000(self):
        for off in self.offsets:
            self.log.read(off, 4096)

    def time_offset_for_timestamp_random_x1000(self):
        for ts in self.stamps:
            self.log.offset_for_timestamp(ts)

    def time_consumer_loop_64k(self):
        nxt = 0
        while nxt < self.end:
            nxt = self.log.read(nxt, 65536).next_offset


class TimePointReadOnly:
    """A read-only open beside an active writer, and refresh() after each of 1,000 appends."""

    def setup(self):
        self.dir = _scratch()
        self.path = os.path.join(self.dir, "t-0")
        self.writer = Log.open(self.path, LogConfig(segment_bytes=1 << 20))
        batch = kvlog.encode_batch([Record(b"k", b"v" * 100, T0)] * 3)
        for _ in range(20_000):
            self.writer.append(batch)
        self.batch = batch

    def teardown(self):
        self.writer.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_open_read_only(self):
        Log.open(self.path, read_only=True).close()

    def time_append_then_refresh_x1000(self):
        reader = Log.open(self.path, read_only=True)
        for _ in range(CALLS):
            self.writer.append(self.batch)
            reader.refresh()
        reader.close()
