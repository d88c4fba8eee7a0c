"""Point operations of a Log (issue 12), tracked over history: each ``_x1000`` benchmark times 1,000
calls, so its time in ms is the per-call figure in µs.

``asv_bench/point_ops.py`` measures the same operations beside SQLite and the raw syscall. Logs live
on tmpfs (``/dev/shm``) when there is one: these are the cost of the code and its syscalls, not of a disk.

Why a loop of 1,000 inside one benchmark call with ``number = 1`` rather than one operation per call
with ``number = 1000``: asv re-runs ``setup`` between individually timed calls when a class has one
(asv_runner's handling of asv#966), so a per-operation body would rebuild the fixture for every
operation. With ``number = 1`` every sample is 1,000 operations on freshly set-up state, under this
asv_runner and upstream's alike. Workloads are fixed: never change them (add a benchmark instead).
"""

import os
import random
import shutil
import tempfile

import kvlog
from kvlog import Log, LogConfig, Record

from .common import T0

CALLS = 1_000
READ_RECORDS = 300_000
READ_SEGMENT_BYTES = 8 << 20


def _scratch():
    return tempfile.mkdtemp(prefix="kvlog-asv-point-ops-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def build_read_log(path, n_records=READ_RECORDS):
    """The read fixture of ``point_ops.py``: 8 MiB segments, 1-10 records per batch, 100 B values,
    record i stamped ``T0 + 10 * i``. Returns the number of records."""
    rng = random.Random(12)
    values = [rng.randbytes(100) for _ in range(1024)]
    log = Log.open(path, LogConfig(segment_bytes=READ_SEGMENT_BYTES))
    offset = 0
    while offset < n_records:
        k = rng.randint(1, 10)
        log.append(kvlog.encode_batch([Record(b"key-%08d" % (offset + j), values[(offset + j) & 1023],
                                              T0 + 10 * (offset + j)) for j in range(k)]))
        offset += k
    log.close()
    return offset


class TimePointOpsAppend:
    """``Log.append`` of a pre-encoded 1- or 10-record batch, and ``append([Record])`` (encode + append),
    into a fresh Log with the default ``LogConfig()``."""

    number = 1

    def setup(self):
        self.dir = _scratch()
        value = random.Random(1).randbytes(100)
        self.one = kvlog.encode_batch([Record(b"key-00000000", value, T0)])
        self.ten = kvlog.encode_batch([Record(b"key-%08d" % i, value, T0 + i) for i in range(10)])
        self.rec = [Record(b"key-00000000", value, T0)]
        self.log = Log.open(os.path.join(self.dir, "t-0"), LogConfig())

    def teardown(self):
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_append_1_x1000(self):
        append, batch = self.log.append, self.one
        for _ in range(CALLS):
            append(batch)

    def time_append_10_x1000(self):
        append, batch = self.log.append, self.ten
        for _ in range(CALLS):
            append(batch)

    def time_append_record_x1000(self):
        append, rec = self.log.append, self.rec
        for _ in range(CALLS):
            append(rec)


class TimePointOpsRead:
    """``read(offset, 4096)`` and ``offset_for_timestamp`` at 1,000 random points of a 300k-record log of
    five 8 MiB segments, and a consumer loop of ``read(next, 65536)`` over all of it."""

    number = 1
    timeout = 300

    def setup_cache(self):
        # built once per run in asv's scratch directory (the cwd, which asv removes afterwards); each
        # sample works on a tmpfs copy that its teardown removes, so nothing is left in /dev/shm
        path = os.path.abspath("point-ops-read-log")
        build_read_log(path)
        return path

    def setup(self, path):
        self.dir = _scratch()
        shutil.copytree(path, os.path.join(self.dir, "t-0"))
        self.log = Log.open(os.path.join(self.dir, "t-0"), LogConfig(segment_bytes=READ_SEGMENT_BYTES))
        self.end = self.log.log_end_offset
        rng = random.Random(2)
        self.offsets = [rng.randrange(self.end) for _ in range(CALLS)]
        self.stamps = [T0 + rng.randrange(10 * self.end) for _ in range(CALLS)]

    def teardown(self, path):
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_read_4k_x1000(self, path):
        read = self.log.read
        for off in self.offsets:
            read(off, 4096)

    def time_offset_for_timestamp_x1000(self, path):
        search = self.log.offset_for_timestamp
        for ts in self.stamps:
            search(ts)

    def time_consumer_loop_64k_whole_log(self, path):
        """~600 fetches of 64 KiB (~40 MB); next = the fetch's next_offset (last offset + 1)."""
        read, end, nxt = self.log.read, self.end, 0
        while nxt < end:
            nxt = read(nxt, 65536).next_offset
