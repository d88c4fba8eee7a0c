"""Threads: one ``Log`` shared by writers, readers, a roller and retention (docs/log.md, "Threads"), and the
C kernels run on many threads at once (what ``make tsan`` runs under ThreadSanitizer).

The contract: every public method of a ``Log`` runs under the log's reentrant lock, so concurrent calls take
effect one at a time; ``records()`` takes it per piece; ``close()`` waits for a call in progress and later
calls raise ``KvlogError``. Checked here by what readers see while the log changes under them: every record
intact (its value derived from its key), offsets contiguous, each writer's records in its append order,
``to_arrow`` one consistent cut of the log; and afterwards, the log reopened whole.

Runs for ``KVLOG_STRESS_SECONDS`` (default 2) in the default suite; the ``slow`` variant for 30 seconds.
On a free-threaded CPython the same test runs with the GIL off (``make test-freethreaded``).
"""

from __future__ import annotations

import hashlib
import os
import random
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

import kvlog
from kvlog import LogConfig
from kvlog._core import records as _k
from kvlog.errors import KvlogError, OffsetOutOfRangeError
from kvlog.log import Log
from kvlog.records import MemoryRecords, Record, encode_arrays

T0 = 1_700_000_000_000
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


def _value(key: bytes) -> bytes:
    return hashlib.blake2b(key, digest_size=16).digest() * 3


def _check_rows(offsets: list[int], keys: list[bytes], values: list[bytes]) -> None:
    """Contiguous offsets; each record's value derived from its key; each writer's sequence rising."""
    assert offsets == list(range(offsets[0], offsets[0] + len(offsets))) if offsets else True
    last: dict[bytes, int] = {}
    for k, v in zip(keys, values):
        assert v == _value(k), (k, v)
        writer, seq = k.split(b"-")
        assert int(seq) > last.get(writer, -1), (writer, seq, last)
        last[writer] = int(seq)


class _Run:
    def __init__(self, log: Log, seconds: float) -> None:
        self.log = log
        self.deadline = time.monotonic() + seconds
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def going(self) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def thread(self, name: str, body) -> threading.Thread:
        def run() -> None:
            rng = random.Random(name)
            try:
                while self.going():
                    try:
                        body(rng)
                    except OffsetOutOfRangeError:
                        self.count(name + " out of range")  # retention moved the log start past it
            except KvlogError as exc:
                if "is closed" not in str(exc):
                    self.errors.append(exc)
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                self.errors.append(exc)
                self.stop.set()

        return threading.Thread(target=run, name=name)


def _writer(run: _Run, name: str):
    seq = iter(range(10**9))

    def body(rng: random.Random) -> None:
        n = rng.randrange(1, 60)
        keys = [b"%s-%d" % (name.encode(), next(seq)) for _ in range(n)]
        ts = T0 + int(time.time() * 1000) % 1000
        if rng.random() < 0.5:
            run.log.append([Record(k, _value(k), ts + i) for i, k in enumerate(keys)],
                           compression=rng.choice(CODECS))
        else:
            data = encode_arrays(keys, [_value(k) for k in keys], [ts] * n, compression=rng.choice(CODECS))
            run.log.append(data)
        run.count("append")

    return body


def _reader(run: _Run):
    def body(rng: random.Random) -> None:
        log = run.log
        start, end = log.log_start_offset, log.log_end_offset
        if end <= start:
            return
        at = rng.randrange(start, end)
        what = rng.randrange(4)
        if what == 0:
            got = list(log.read(at, rng.choice((1, 1000, 1 << 16))).records())
            assert got and got[0].offset <= at <= got[-1].offset or not got
            _check_rows([r.offset for r in got], [r.key for r in got], [r.value for r in got])
            run.count("read")
        elif what == 1:
            got = list(log.records(at, at + rng.randrange(1, 500)))
            _check_rows([r.offset for r in got], [r.key for r in got], [r.value for r in got])
            run.count("records")
        elif what == 2:
            t = log.to_arrow(at, at + rng.randrange(1, 3000))
            if t.num_rows:
                off = t.column("offset").to_pylist()
                _check_rows(off, t.column("key").to_pylist(), t.column("value").to_pylist())
            run.count("to_arrow")
        else:
            found = log.offset_for_timestamp(T0 + rng.randrange(0, 1000))
            if found is not None:
                assert found.offset >= 0
            run.count("offset_for_timestamp")

    return body


def _maintainer(run: _Run):
    def body(rng: random.Random) -> None:
        log = run.log
        what = rng.randrange(5)
        if what == 0:
            log.roll()
            run.count("roll")
        elif what == 1:
            log.delete_old_segments()
            run.count("retention")
        elif what == 2:
            hw = log.high_watermark
            if hw > 2000:
                log.delete_records(hw - 2000)
                run.count("delete_records")
        elif what == 3:
            log.flush()
            run.count("flush")
        else:
            time.sleep(0.001)

    return body


REQUIRED = ("append", "read", "records", "to_arrow", "offset_for_timestamp", "roll", "retention")


def _stress(tmp_path, seconds: float) -> dict[str, int]:
    path = tmp_path / "stress-0"
    cfg = LogConfig(segment_bytes=64 << 10, retention_bytes=512 << 10, index_interval_bytes=1024)
    log = Log.open(path, cfg)
    run = _Run(log, seconds)
    threads = [run.thread("wa", _writer(run, "wa")), run.thread("wb", _writer(run, "wb")),
               run.thread("r1", _reader(run)), run.thread("r2", _reader(run)),
               run.thread("maint", _maintainer(run))]
    for t in threads:
        t.start()
    time.sleep(seconds * 0.9)
    # a slow run (ThreadSanitizer: 5-15x) goes on until every operation ran at least once, 120 s at most
    until = time.monotonic() + 120
    while not all(run.counts.get(w, 0) for w in REQUIRED) and time.monotonic() < until and not run.errors:
        run.deadline = max(run.deadline, time.monotonic() + 1)
        time.sleep(0.05)
    log.close()  # while the others still call: they finish or see "closed"
    for t in threads:
        t.join(60)
        assert not t.is_alive(), f"{t.name} did not stop after close()"
    if run.errors:
        raise run.errors[0]
    with pytest.raises(KvlogError, match="is closed"):
        log.append([Record(b"x-0", _value(b"x-0"), T0)])
    with Log.open(path, cfg) as again:
        t = again.to_arrow()
        assert t.num_rows == again.log_end_offset - again.log_start_offset
        _check_rows(t.column("offset").to_pylist(), t.column("key").to_pylist(), t.column("value").to_pylist())
    for what in REQUIRED:
        assert run.counts.get(what, 0) > 0, (what, run.counts)
    return run.counts


def test_log_shared_between_threads(tmp_path):
    _stress(tmp_path, float(os.environ.get("KVLOG_STRESS_SECONDS", "2")))


@pytest.mark.slow
def test_log_shared_between_threads_long(tmp_path):
    _stress(tmp_path, 30.0)


def test_read_only_views_beside_the_writer(tmp_path):
    """One read-only view per reader thread, reading while the writer appends and rolls."""
    path = tmp_path / "views-0"
    log = Log.open(path, LogConfig(segment_bytes=32 << 10))
    stop = threading.Event()
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            with Log.open(path, read_only=True) as view:
                while not stop.is_set():
                    view.refresh()
                    t = view.to_arrow()
                    if t.num_rows:
                        _check_rows(t.column("offset").to_pylist(), t.column("key").to_pylist(),
                                    t.column("value").to_pylist())
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    log.append([Record(b"w-0", _value(b"w-0"), T0)])
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for t in readers:
        t.start()
    for i in range(1, 400):
        k = b"w-%d" % i
        log.append([Record(k, _value(k), T0 + i)], compression=CODECS[i % 5])
    stop.set()
    for t in readers:
        t.join(60)
    log.close()
    if errors:
        raise errors[0]


# ------------------------------------------------------------------------------------------ kernels
def _kernel_inputs() -> dict[str, bytes]:
    rng = np.random.default_rng(7)
    n = 4000
    keys = [b"key-%06d" % i for i in range(n)]
    values = [rng.bytes(20).hex().encode() for _ in range(n)]
    return {c: encode_arrays(keys, values, list(range(T0, T0 + n)), compression=c, records_per_batch=250)
            for c in CODECS}


def test_kernels_on_threads():
    """Each kernel on 4 threads at once gives what it gives on one (decode of every codec with the
    decoder's own decompression, CRC, encode, the offset map, index search, the buffer pool); the
    ThreadSanitizer build (`make tsan`) runs this on the free-threaded interpreter."""
    from kvlog._core import index as _ix
    from kvlog.offset_map import OffsetMap

    inputs = _kernel_inputs()
    expect = {c: MemoryRecords(d).to_arrow() for c, d in inputs.items()}
    crcs = {c: kvlog.crc32c(d) for c, d in inputs.items()}

    def encode(c: str) -> bytes:
        t = expect[c]
        return encode_arrays(t.column("key").combine_chunks(), t.column("value").combine_chunks(),
                             t.column("timestamp").combine_chunks().cast(pa.int64()), compression=c,
                             records_per_batch=250, log_append_time=T0)

    encoded = {c: encode(c) for c in ("none", "lz4")}
    entries = np.zeros(4096 * 2, dtype=">i4")
    entries[0::2] = np.arange(4096) * 3
    entries[1::2] = np.arange(4096) * 100
    idx = entries.tobytes()
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def work(t: int) -> None:
        try:
            barrier.wait()
            for rounds in range(3):
                for c, d in inputs.items():
                    got = MemoryRecords(d).to_arrow()
                    assert got.equals(expect[c]), c
                    assert kvlog.crc32c(d) == crcs[c]
                    if c in encoded:
                        assert encode(c) == encoded[c]
                m = OffsetMap(1 << 20)
                keys = [b"t%d-%d" % (t, i) for i in range(2000)]
                for i, k in enumerate(keys):
                    m.put(k, i)
                assert all(m.get(k) == i for i, k in enumerate(keys[::97]) for i in [keys.index(k)])
                assert _ix.offset_lookup(idx, 4096, 300 + t) is not None
                _k.set_buffer_cache_limit((64 + t) << 20)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _k.set_buffer_cache_limit(None)  # the automatic limit again
    if errors:
        raise errors[0]


def test_gil_stays_off_on_free_threaded_builds():
    """On a free-threaded CPython, importing kvlog (and everything it imports) leaves the GIL off."""
    import sysconfig

    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        pytest.skip("not a free-threaded CPython")
    if os.environ.get("PYTHON_GIL") == "1":
        pytest.skip("PYTHON_GIL=1 turned the GIL on")
    import kvlog.compression  # noqa: F401  (lz4, zstandard, cramjam)
    assert not sys._is_gil_enabled()
