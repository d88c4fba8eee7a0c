import os
import shutil
import tempfile

import numpy as np

import kvlog
from kvlog.log import Log

from .common import T0, records


def _chunks(data, per_chunk=80):
    h = kvlog.MemoryRecords(data).batch_headers()
    ends = h["position"] + h["size"]
    out, start = [], 0
    for cut in range(0, len(h), per_chunk):
        end = int(ends[min(cut + per_chunk - 1, len(h) - 1)])
        out.append(data[start:end])
        start = end
    return out


class TimeAppend:
    """Appending pre-built batches (validate, assign offsets, index) vs a raw write of the same bytes."""

    params = ([1, 100], ["CreateTime", "LogAppendTime"])
    param_names = ["records_per_batch", "timestamp_type"]
    timeout = 300

    def setup(self, per_batch, ttype):
        _, values, stamps = records(100_000)
        self.chunks = _chunks(kvlog.encode_arrays(None, values, stamps, records_per_batch=per_batch))
        self.dir = tempfile.mkdtemp()
        self.n = 0
        self.cfg = kvlog.LogConfig(message_timestamp_type=ttype)

    def teardown(self, per_batch, ttype):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_append(self, per_batch, ttype):
        self.n += 1
        log = Log.open(os.path.join(self.dir, f"t-{self.n}"), self.cfg)
        for c in self.chunks:
            log.append(c)
        log.close()

    def time_raw_write(self, per_batch, ttype):
        self.n += 1
        fd = os.open(os.path.join(self.dir, f"raw-{self.n}"), os.O_WRONLY | os.O_CREAT)
        for c in self.chunks:
            os.write(fd, c)
        os.close(fd)


class TimeLogRead:
    timeout = 300

    def setup(self):
        _, values, stamps = records(200_000)
        self.dir = tempfile.mkdtemp()
        self.log = Log.open(os.path.join(self.dir, "t-0"), kvlog.LogConfig(segment_bytes=4 << 20))
        for c in _chunks(kvlog.encode_arrays(None, values, stamps, records_per_batch=100)):
            self.log.append(c)
        self.rng = np.random.default_rng(3)
        self.targets = T0 + self.rng.integers(0, 200_000, 200)

    def teardown(self):
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_to_arrow_all(self):
        self.log.to_arrow()

    def time_read_1mib_random(self):
        for off in self.rng.integers(0, 200_000, 50):
            self.log.read(int(off))

    def time_offset_for_timestamp(self):
        for t in self.targets:
            self.log.offset_for_timestamp(int(t))
