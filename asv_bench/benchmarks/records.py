import pyarrow as pa

import kvlog

from .common import records


class TimeDecode:
    params = (["none", "lz4", "zstd", "gzip"], [1, 100, 1000])
    param_names = ["compression", "records_per_batch"]
    timeout = 120

    def setup(self, compression, per_batch):
        keys, values, stamps = records(100_000)
        self.buf = kvlog.encode_arrays(keys, values, stamps, compression=compression, records_per_batch=per_batch)
        self.mr = kvlog.MemoryRecords(self.buf)

    def time_to_arrow(self, compression, per_batch):
        self.mr.to_arrow()

    def time_to_arrow_no_headers(self, compression, per_batch):
        self.mr.to_arrow(include_headers=False)

    def time_batch_headers(self, compression, per_batch):
        self.mr.batch_headers()

    def time_validate_shallow(self, compression, per_batch):
        self.mr.validate(deep=False)

    def track_records_per_second(self, compression, per_batch):
        import time

        t = time.perf_counter()
        self.mr.to_arrow()
        return 100_000 / (time.perf_counter() - t)

    track_records_per_second.unit = "records/s"


class TimeIterate:
    def setup(self):
        keys, values, stamps = records(20_000)
        self.mr = kvlog.MemoryRecords(kvlog.encode_arrays(keys, values, stamps, records_per_batch=500))

    def time_records(self):
        for _ in self.mr.records():
            pass


class TimeEncode:
    params = (["none", "lz4", "zstd", "snappy", "gzip"], ["arrow", "list"])
    param_names = ["compression", "input"]
    timeout = 120

    def setup(self, compression, kind):
        keys, values, stamps = records(100_000)
        if kind == "arrow":
            keys, values = pa.array(keys, pa.binary()), pa.array(values, pa.binary())
        self.args = (keys, values, stamps)

    def time_encode_arrays(self, compression, kind):
        kvlog.encode_arrays(*self.args, compression=compression, records_per_batch=1000)

    def peakmem_encode_arrays(self, compression, kind):
        kvlog.encode_arrays(*self.args, compression=compression, records_per_batch=1000)


class TimeLegacy:
    params = ([0, 1], ["none", "gzip"])
    param_names = ["magic", "compression"]

    def setup(self, magic, compression):
        keys, values, stamps = records(50_000)
        self.buf = kvlog.encode_arrays(keys, values, stamps, magic=magic, compression=compression)

    def time_to_arrow(self, magic, compression):
        kvlog.MemoryRecords(self.buf).to_arrow()
