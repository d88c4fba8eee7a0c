"""Edge cases of the small-window search behind Log.read, Log.records and Log.offset_for_timestamp.

Every answer is checked against an oracle that decodes each segment file whole: a fetch returns whole
batches from the first one (in the segment holding the offset) whose last offset is at or past it, at
least one, within ``max_bytes``, never a batch starting at or past ``max_offset``; a time search returns
the earliest offset whose timestamp is at or past the target.
"""

from __future__ import annotations

import os
import shutil
import struct
import threading
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import Log, LogConfig, MemoryRecords, Record

T0 = 1_700_000_000_000


def _segment_batches(log: Log) -> list[list[tuple[int, int, bytes]]]:
    """Per segment: (base offset, last offset, bytes) of every complete batch, from the files alone."""
    out = []
    for seg in log.segments:
        with open(seg.log_path, "rb") as f:
            data = f.read()[: seg.size_in_bytes]
        h = MemoryRecords(data).batch_headers(check_crc=False)
        out.append([(int(r["base_offset"]), int(r["last_offset"]),
                     data[int(r["position"]): int(r["position"] + r["size"])]) for r in h])
    return out


def expected_read(log: Log, offset: int, max_bytes: int, max_offset: int | None = None) -> bytes:
    upper = log.log_end_offset if max_offset is None else min(max_offset, log.log_end_offset)
    if offset >= upper:
        return b""
    bases = [s.base_offset for s in log.segments]
    first = max(0, int(np.searchsorted(bases, offset, side="right")) - 1)
    for batches in _segment_batches(log)[first:]:
        got, size = [], 0
        for base, last, raw in batches:
            if last < offset:
                continue
            if got and (base >= upper or size + len(raw) > max_bytes):
                break
            if not got and base >= upper:
                return b""
            got.append(raw)
            size += len(raw)
        if got:
            return b"".join(got)
    return b""


def expected_time(log: Log, ts: int) -> tuple[int, int] | None:
    best = None
    for rec in log.records():
        if rec.timestamp >= ts and (best is None or rec.offset < best[0]):
            best = (rec.offset, rec.timestamp)
    return best


def _fill(log: Log, sizes: list[int], *, seed: int = 0, codec: str = "none", shuffle_ts: bool = False) -> None:
    rng = np.random.default_rng(seed)
    t = T0
    for size in sizes:
        n = int(rng.integers(1, 6))
        recs = []
        for _ in range(n):
            t += 1
            ts = t - int(rng.integers(0, 50)) if shuffle_ts else t
            recs.append(Record(b"k", rng.bytes(size // n), ts))
        log.append(kvlog.encode_batch(recs, compression=codec))


def test_batches_larger_than_the_window(tmp_path):
    """index.interval.bytes of 128 with batches of 10-200 KiB between tiny ones: reads inside, at the end of
    and right after big batches; max_bytes below a batch still returns that batch whole."""
    log = Log.open(tmp_path / "t-0", LogConfig(index_interval_bytes=128, segment_bytes=4 << 20))
    _fill(log, [60, 200_000, 40, 10_000, 30, 150_000, 20, 20, 90_000, 50] * 3)
    spans = [(b, last) for batches in _segment_batches(log) for b, last, _ in batches]
    probes = {o for b, last in spans for o in (b, last, last + 1, (b + last) // 2)} & set(range(log.log_end_offset))
    for offset in sorted(probes):
        for max_bytes in (1, 4096, 100_000, 1 << 20):
            got = bytes(log.read(offset, max_bytes).buffer)
            assert got == expected_read(log, offset, max_bytes), (offset, max_bytes)
    assert not len(log.read(log.log_end_offset, 4096))


def _rewrite_entry(index_path: str, slot: int, position: int) -> None:
    with open(index_path, "r+b") as f:
        f.seek(slot * 8 + 4)
        f.write(struct.pack(">i", position))


@pytest.mark.parametrize("read_only", [False, True])
def test_an_index_hint_past_the_target_is_not_trusted(tmp_path, read_only):
    """An offset-index entry whose position lies past its batch (or past the file) sends the search back
    to the segment start: every read and time search still gives the oracle's answer."""
    path = tmp_path / "t-0"
    log = Log.open(path, LogConfig(index_interval_bytes=200))
    _fill(log, [300] * 200)
    log.close()
    index = os.path.join(path, "00000000000000000000.index")
    entries = os.path.getsize(index) // 8
    assert entries > 20
    with open(index, "rb") as f:
        raw = f.read()
    positions = [struct.unpack_from(">i", raw, 8 * i + 4)[0] for i in range(entries)]
    _rewrite_entry(index, 5, positions[9])          # a real batch boundary, but four entries later
    _rewrite_entry(index, 12, 1 << 30)              # past the end of the file
    reopened = Log.open(path, read_only=read_only)
    for offset in range(reopened.log_end_offset):
        assert bytes(reopened.read(offset, 700).buffer) == expected_read(reopened, offset, 700), offset
    for ts in range(T0, T0 + 700, 7):
        assert reopened.offset_for_timestamp(ts) == (expected_time(reopened, ts) or None), ts
    reopened.close()


def test_empty_active_segment_and_a_half_written_tail(tmp_path):
    """After a roll the empty active segment reads as the end; a reader never sees a half-written batch."""
    path = tmp_path / "t-0"
    log = Log.open(path)
    _fill(log, [500] * 30)
    log.roll()
    end = log.log_end_offset
    assert not len(log.read(end, 4096))
    assert bytes(log.read(end - 1, 4096).buffer) == expected_read(log, end - 1, 4096)
    assert log.offset_for_timestamp(T0 + 10**9) is None
    log.append(kvlog.encode_batch([Record(b"k", b"v" * 40, T0 + 10**6)] * 3))
    log.close()
    copy = tmp_path / "copy" / "t-0"
    shutil.copytree(path, copy)
    active = sorted(n for n in os.listdir(copy) if n.endswith(".log"))[-1]
    with open(copy / active, "r+b") as f:
        f.truncate(os.path.getsize(copy / active) - 30)  # cut the last batch in half
    reader = Log.open(copy, read_only=True)
    assert reader.log_end_offset == end
    assert bytes(reader.read(end - 1, 1 << 20).buffer) == expected_read(reader, end - 1, 1 << 20)
    assert [r.offset for r in reader.records(end - 3)] == [end - 3, end - 2, end - 1]
    assert reader.offset_for_timestamp(T0 + 10**6) is None  # the cut batch's timestamp is not seen


def test_reads_while_a_writer_appends(tmp_path):
    """A writer thread appends while readers (reopened, and refreshed) fetch at random offsets below the
    end they see: every fetch is exactly the bytes written, whole batches, no gap."""
    path = tmp_path / "t-0"
    writer = Log.open(path, LogConfig(segment_bytes=64 << 10, index_interval_bytes=256))
    written: dict[int, bytes] = {}
    stop = threading.Event()

    errors: list[BaseException] = []

    def write() -> None:
        try:
            append_all()
        except BaseException as exc:  # surfaced by the test below, not lost with the thread
            errors.append(exc)

    def append_all() -> None:
        i = 0
        while not stop.is_set() and i < 20_000:
            recs = [Record(b"k%d" % i, b"v" * (i % 300), T0 + i)] * (1 + i % 4)
            # recorded before the append: a reader may see the batch before append() returns
            first = writer.log_end_offset
            written[first] = kvlog.encode_batch(recs, base_offset=first)
            assert writer.append(kvlog.encode_batch(recs)).first_offset == first
            i += 1

    thread = threading.Thread(target=write)
    thread.start()
    rng = np.random.default_rng(7)
    checked = 0
    deadline = time.monotonic() + 120  # a bound for a stuck reader only: the loop ends by count, not time
    tail = Log.open(path, read_only=True)
    try:
        while checked < 100 and time.monotonic() < deadline:
            reader = Log.open(path, read_only=True) if checked % 2 else tail
            if reader is tail:
                tail.refresh()
            end = reader.log_end_offset
            if end == 0:
                continue
            offset = int(rng.integers(0, end))
            got = reader.read(offset, int(rng.integers(100, 20_000)))
            h = got.batch_headers()  # CRC-checked
            assert len(h) and int(h["base_offset"][0]) <= offset <= int(h["last_offset"][0])
            assert int(h["last_offset"][-1]) < end
            view = bytes(got.buffer)
            for r in h:
                assert view[int(r["position"]): int(r["position"] + r["size"])] == written[int(r["base_offset"])]
            assert np.array_equal(h["base_offset"][1:], h["last_offset"][:-1] + 1)
            if reader is not tail:
                reader.close()
            checked += 1
    finally:
        stop.set()
        thread.join()
        tail.close()
        writer.close()
    assert not errors, errors
    assert checked == 100


@given(
    st.lists(st.integers(0, 6_000), min_size=1, max_size=40),  # a batch fits the smallest segment
    st.sampled_from([64, 512, 4096]),
    st.sampled_from([8 << 10, 64 << 10, 1 << 20]),
    st.sampled_from(["none", "gzip"]),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 70_000)), min_size=1, max_size=15),
)
def test_reads_and_time_searches_match_the_oracle(tmp_path_factory, sizes, interval, segment_bytes, codec, probes):
    """Random appends (several segments, gzip or not, out-of-order timestamps), then random fetches,
    ranges of a few records and time searches, each against the oracle."""
    path = tmp_path_factory.mktemp("p") / "t-0"
    log = Log.open(path, LogConfig(index_interval_bytes=interval, segment_bytes=segment_bytes))
    _fill(log, sizes, seed=len(sizes), codec=codec, shuffle_ts=True)
    end = log.log_end_offset
    for a, max_bytes in probes:
        offset = a % end
        assert bytes(log.read(offset, max_bytes).buffer) == expected_read(log, offset, max_bytes)
        cap = offset + 1 + a % 5
        assert bytes(log.read(offset, max_bytes, max_offset=cap).buffer) == expected_read(
            log, offset, max_bytes, cap)
        assert [r.offset for r in log.records(offset, cap)] == list(range(offset, min(cap, end)))
        ts = T0 + a % (end + 60) - 30
        assert log.offset_for_timestamp(ts) == (expected_time(log, ts) or None)
    log.close()
