from pathlib import Path
import os
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvlog
from kvlog import LogConfig, MemoryRecords, Record
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP, Log

T0 = 1_700_000_000_000


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


def open_log(tmp_path, name="topic-0", clock=None, **cfg):
    return Log.open(tmp_path / name, LogConfig(**cfg), time=clock or Clock())


def recs(n, start=0, ts=T0, size=10):
    return [Record(b"k%d" % (start + i), b"v" * size + b"%d" % (start + i), ts + i) for i in range(n)]


def values(log, start=None, end=None):
    return [(r.offset, r.value) for r in log.records(start, end)]


def test_append_assigns_offsets_and_reads_back(tmp_path):
    log = open_log(tmp_path)
    info = log.append(recs(3))
    assert (info.first_offset, info.last_offset, info.record_count) == (0, 2, 3)
    assert info.max_timestamp == T0 + 2 and info.offset_of_max_timestamp == 2 and info.log_append_time == -1
    prebuilt = kvlog.encode_arrays(None, [b"a", b"b", b"c", b"d"], T0 + 10, records_per_batch=2, base_offset=777)
    info = log.append(prebuilt)
    assert (info.first_offset, info.last_offset, info.valid_bytes) == (3, 6, len(prebuilt))
    assert log.log_end_offset == 7
    assert [o for o, _ in values(log)] == list(range(7))
    assert [b.base_offset for b in log.read(3).batches()] == [3, 5]
    t = log.to_arrow()
    assert t.column("offset").to_pylist() == list(range(7))
    assert log.to_arrow(2, 5).column("offset").to_pylist() == [2, 3, 4]
    assert [o for o, _ in values(log, 4, 6)] == [4, 5]
    log.close()


def test_append_memory_records_and_legacy_input_is_up_converted(tmp_path):
    log = open_log(tmp_path)
    legacy = kvlog.encode_batch(recs(3), magic=1, compression="gzip")
    log.append(MemoryRecords(legacy))
    batches = list(log.read(0).batches())
    assert [b.magic for b in batches] == [2] and batches[0].compression == kvlog.Compression.GZIP
    assert [r.value for r in log.records()] == [r.value for r in recs(3)]


def test_append_rejects_bad_input(tmp_path):
    log = open_log(tmp_path, max_message_bytes=500)
    good = kvlog.encode_batch(recs(2))
    with pytest.raises(kvlog.CorruptRecordError, match="after its last complete batch"):
        log.append(good + good[:20])
    bad = bytearray(good)
    bad[-1] ^= 1
    with pytest.raises(kvlog.CorruptRecordError, match="CRC"):
        log.append(bytes(bad))
    with pytest.raises(kvlog.RecordTooLargeError, match="max.message.bytes"):
        log.append([Record(b"k", b"x" * 1000, T0)])
    ctrl = kvlog.encode_batch([Record(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x00", T0)], is_control=True,
                              is_transactional=True, producer_id=1, producer_epoch=0)
    with pytest.raises(kvlog.InvalidOffsetError, match="control"):
        log.append(ctrl)
    with pytest.raises(ValueError):
        log.append([])
    assert log.log_end_offset == 0
    with pytest.raises(kvlog.RecordTooLargeError, match="segment.bytes"):
        open_log(tmp_path, name="t-1", segment_bytes=100).append([Record(b"k", b"x" * 200, T0)])


def test_replica_append_keeps_offsets_and_gaps(tmp_path):
    log = open_log(tmp_path)
    data = kvlog.encode_arrays(None, [b"a", b"b"], T0, offsets=[10, 15])
    log.append(data, assign_offsets=False)
    assert log.log_end_offset == 16
    assert [o for o, _ in values(log)] == [10, 15]
    with pytest.raises(kvlog.InvalidOffsetError):
        log.append(kvlog.encode_batch(recs(1), base_offset=12), assign_offsets=False)
    ctrl = kvlog.encode_batch([Record(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x00", T0)], is_control=True,
                              is_transactional=True, producer_id=1, producer_epoch=0, base_offset=16)
    log.append(ctrl, assign_offsets=False)
    assert log.log_end_offset == 17
    v0 = kvlog.encode_batch(recs(2), magic=0, base_offset=20)
    log.append(v0, assign_offsets=False)
    assert [b.magic for b in log.read(20).batches()] == [0, 0]


def test_log_append_time_is_monotonic(tmp_path):
    clock = Clock(T0 + 1000)
    log = open_log(tmp_path, clock=clock, message_timestamp_type="LogAppendTime")
    a = log.append(recs(2, ts=5))
    assert a.log_append_time == T0 + 1000 and a.max_timestamp == T0 + 1000
    clock.t = T0  # the wall clock steps back
    b = log.append(recs(2, ts=5))
    assert b.log_append_time == T0 + 1000
    ts = [(r.timestamp, r.timestamp_type) for r in log.records()]
    assert ts == [(T0 + 1000, kvlog.TimestampType.LOG_APPEND_TIME)] * 4
    assert all(b.is_valid() for b in log.read(0).batches())


def test_create_time_limits(tmp_path):
    clock = Clock(T0)
    log = open_log(tmp_path, clock=clock, message_timestamp_before_max_ms=1000, message_timestamp_after_max_ms=50)
    log.append([Record(b"k", b"v", T0 - 1000), Record(b"k", b"v", T0 + 50), Record(b"k", b"v", -1)])
    with pytest.raises(kvlog.InvalidTimestampError, match="before.max.ms"):
        log.append([Record(b"k", b"v", T0 - 1001)])
    with pytest.raises(kvlog.InvalidTimestampError, match="after.max.ms"):
        log.append([Record(b"k", b"v", T0 + 51)])
    legacy_limit = open_log(tmp_path, name="t-2", clock=clock, message_timestamp_difference_max_ms=10)
    with pytest.raises(kvlog.InvalidTimestampError):
        legacy_limit.append([Record(b"k", b"v", T0 + 11)])


def test_compression_type_recompresses(tmp_path):
    log = open_log(tmp_path, compression_type="zstd")
    log.append(kvlog.encode_batch(recs(3), compression="gzip"))
    log.append(recs(2))
    assert {b.compression for b in log.read(0, 1 << 20).batches()} == {kvlog.Compression.ZSTD}
    assert [o for o, _ in values(log)] == list(range(5))


# ------------------------------------------------------------------------------------------ rolling
def test_roll_on_size(tmp_path):
    log = open_log(tmp_path, segment_bytes=1000)
    for i in range(20):
        log.append(recs(2, start=2 * i, size=50))
    assert len(log.segments) > 3
    assert all(s.size_in_bytes <= 1000 for s in log.segments)
    assert [s.base_offset for s in log.segments] == sorted(s.base_offset for s in log.segments)
    assert [o for o, _ in values(log)] == list(range(40))
    names = sorted(os.listdir(log.dir))
    assert "00000000000000000000.log" in names and f"{log.segments[1].base_offset:020d}.index" in names


def test_roll_on_time_uses_record_timestamps(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock, segment_ms=1000)
    log.append(recs(1, ts=T0))
    log.append(recs(1, ts=T0 + 999))
    assert len(log.segments) == 1
    log.append(recs(1, ts=T0 + 1001))  # first batch's max timestamp + segment.ms exceeded
    assert [s.base_offset for s in log.segments] == [0, 2]
    # wall-clock time does not matter while records carry timestamps
    clock.t = T0 + 10**9
    log.append(recs(1, ts=T0 + 1100))
    assert len(log.segments) == 2


def test_roll_on_time_without_timestamps_uses_creation_time(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock, segment_ms=1000)
    log.append(kvlog.encode_batch(recs(1), magic=0), assign_offsets=False)
    clock.t = T0 + 2000
    log.append(kvlog.encode_batch(recs(1), magic=0, base_offset=1), assign_offsets=False)
    assert len(log.segments) == 2


def test_roll_jitter_is_bounded(tmp_path):
    log = open_log(tmp_path, segment_ms=1000, segment_jitter_ms=400)
    jitters = {log._new_segment(10**6 + i).roll_jitter_ms for i in range(30)}
    assert all(0 <= j < 400 for j in jitters) and len(jitters) > 1


def test_roll_on_full_index(tmp_path):
    log = open_log(tmp_path, segment_index_bytes=8 * 4, index_interval_bytes=1)
    for i in range(30):
        log.append(recs(1, start=i))
    assert len(log.segments) > 3
    for seg in log.segments[:-1]:
        assert seg.offset_index.entries <= 4
    assert [o for o, _ in values(log)] == list(range(30))


def test_roll_on_offset_overflow(tmp_path):
    log = open_log(tmp_path)
    log.append(kvlog.encode_batch(recs(1)), assign_offsets=False)
    far = 2**31 + 5
    log.append(kvlog.encode_batch(recs(1), base_offset=far), assign_offsets=False)
    assert [s.base_offset for s in log.segments] == [0, far]
    assert [o for o, _ in values(log)] == [0, far]


def test_explicit_roll_and_final_time_index_entry(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(3, ts=T0))
    log.append(recs(3, start=3, ts=T0 - 500))
    old = log.segments[0]
    log.roll()
    assert old.time_index.last_entry.timestamp == T0 + 2  # the segment's max timestamp
    assert os.path.getsize(old.offset_index.path) == old.offset_index.entries * 8
    assert log.roll() is log.active_segment  # rolling an empty active segment is a no-op


# ------------------------------------------------------------------------------------------ reading
def test_read_bounds_and_min_one_batch(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(5, size=200))
    log.append(recs(5, start=5, size=200))
    with pytest.raises(kvlog.OffsetOutOfRangeError) as exc:
        log.read(11)
    assert exc.value.log_end_offset == 10
    assert len(log.read(10)) == 0
    one = log.read(7, max_bytes=10)  # smaller than a batch: still one whole batch
    assert [b.base_offset for b in one.batches()] == [5]
    assert [b.base_offset for b in log.read(0, max_offset=5).batches()] == [0]


def test_records_and_arrow_span_segments(tmp_path):
    log = open_log(tmp_path, segment_bytes=600)
    for i in range(10):
        log.append(recs(3, start=3 * i, size=20))
    assert len(log.segments) > 2
    assert [o for o, _ in values(log, 4, 25)] == list(range(4, 25))
    assert log.to_arrow(4, 25).column("offset").to_pylist() == list(range(4, 25))
    assert log.to_arrow(30, 40).num_rows == 0


# ------------------------------------------------------------------------------- time search
def brute_force(entries, target):
    hits = [(o, t) for o, t in entries if t >= target]
    return min(hits) if hits else None


@settings(max_examples=40)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=120), st.integers(1, 6), st.integers(0, 11_000),
       st.sampled_from([1, 100, 4096]))
def test_offset_for_timestamp_matches_brute_force(tmp_path_factory, stamps, per_batch, target, interval):
    tmp = tmp_path_factory.mktemp("kip33")
    log = open_log(tmp, segment_bytes=700, index_interval_bytes=interval)
    entries = []
    for i in range(0, len(stamps), per_batch):
        chunk = stamps[i : i + per_batch]
        log.append([Record(b"k", b"v" * 30, T0 + t) for t in chunk])
    entries = [(o, T0 + t) for o, t in enumerate(stamps)]
    got = log.offset_for_timestamp(T0 + target)
    want = brute_force(entries, T0 + target)
    assert (tuple(got) if got else None) == want
    mx = log.offset_for_timestamp(MAX_TIMESTAMP)
    assert mx.timestamp == T0 + max(stamps) and mx.offset == stamps.index(max(stamps))
    log.close()


def test_offset_for_timestamp_special_targets_and_log_start(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(10, ts=T0))
    assert log.offset_for_timestamp(LATEST) == (10, -1)
    assert log.offset_for_timestamp(EARLIEST) == (0, -1)
    log.delete_records(4)
    assert log.offset_for_timestamp(EARLIEST) == (4, -1)
    assert log.offset_for_timestamp(T0) == (4, T0 + 4)
    assert log.offset_for_timestamp(T0 + 100) is None
    with pytest.raises(kvlog.InvalidTimestampError):
        log.offset_for_timestamp(-7)


def test_resume_on_mirror_by_timestamp_with_margin(tmp_path):
    """The seeds' failover case: resume at the offset of (last consumed timestamp - margin)."""
    log = open_log(tmp_path, segment_bytes=2000)
    for i in range(50):
        log.append([Record(b"k", b"event %d" % i, T0 + i * 1000)])
    last_consumed = T0 + 30_000
    resume = log.offset_for_timestamp(last_consumed - 5_000)
    assert resume == (25, T0 + 25_000)


# ------------------------------------------------------------------------------------ retention
def test_retention_by_time_uses_record_timestamps(tmp_path):
    clock = Clock(T0)
    log = open_log(tmp_path, clock=clock, segment_bytes=500, retention_ms=10_000)
    for i in range(12):
        log.append([Record(b"k", b"x" * 100, T0 + i * 1000)])
    n = len(log.segments)
    clock.t = T0 + 14_500
    deleted = log.delete_old_segments()
    assert deleted >= 1 and len(log.segments) == n - deleted
    assert log.log_start_offset == log.segments[0].base_offset
    for seg in log.segments[:-1]:
        assert clock.t - seg.max_timestamp <= 10_000
    assert not any(n.endswith(".deleted") for n in os.listdir(log.dir))


def test_retention_everything_expired_keeps_an_active_segment(tmp_path):
    clock = Clock(T0)
    log = open_log(tmp_path, clock=clock, retention_ms=1)
    log.append(recs(5))
    clock.t = T0 + 10_000
    assert log.delete_old_segments() == 1
    assert len(log.segments) == 1 and log.segments[0].size_in_bytes == 0
    assert log.log_start_offset == log.log_end_offset == 5
    log.append(recs(1))
    assert [o for o, _ in values(log)] == [5]


def test_retention_by_size(tmp_path):
    log = open_log(tmp_path, segment_bytes=400, retention_bytes=1000, retention_ms=-1)
    for i in range(20):
        log.append([Record(b"k", b"x" * 100, T0)])
    log.delete_old_segments()
    assert log.size_in_bytes - log.active_segment.size_in_bytes <= 1000
    assert log.size_in_bytes > 1000 - 400


def test_retention_not_applied_to_compacted_logs_except_log_start(tmp_path):
    clock = Clock(T0)
    log = open_log(tmp_path, clock=clock, segment_bytes=300, retention_ms=1, cleanup_policy="compact")
    for i in range(6):
        log.append([Record(b"k", b"x" * 100, T0)])
    clock.t = T0 + 10**6
    assert log.delete_old_segments() == 0
    log.delete_records(log.segments[2].base_offset)
    assert log.segments[0].base_offset == log.log_start_offset


def test_retention_ignores_a_lying_time_index(tmp_path):
    """KAFKA-10207: a bad index timestamp must never make retention delete live data."""
    clock = Clock(T0)
    log = open_log(tmp_path, clock=clock, segment_bytes=300, retention_ms=60_000)
    for i in range(4):
        log.append([Record(b"k", b"x" * 100, T0)])
    victim = log.segments[0]
    victim.known_max = type(victim.known_max)(5, victim.base_offset)  # as if a corrupt index said "1970"
    clock.t = T0 + 1000
    assert log.delete_old_segments() == 0


def test_delete_records(tmp_path):
    log = open_log(tmp_path, segment_bytes=300)
    for i in range(8):
        log.append([Record(b"k", b"x" * 100, T0)])
    assert log.delete_records(5) == 5
    assert log.log_start_offset == 5
    assert [o for o, _ in values(log)] == [5, 6, 7]
    with pytest.raises(kvlog.OffsetOutOfRangeError):
        log.read(4)
    with pytest.raises(kvlog.OffsetOutOfRangeError):
        log.delete_records(100)
    assert log.delete_records(2) == 5  # never backwards


# ----------------------------------------------------------------------------------- truncation
def test_truncate_to_removes_whole_batches(tmp_path):
    log = open_log(tmp_path, segment_bytes=500)
    for i in range(10):
        log.append(recs(3, start=3 * i, size=40))
    assert log.truncate_to(14)  # 14 sits in batch 12..14: the batch goes entirely
    assert log.log_end_offset == 12
    assert [o for o, _ in values(log)] == list(range(12))
    assert not log.truncate_to(50)
    log.append(recs(2))
    assert [o for o, _ in values(log)][-2:] == [12, 13]
    assert log.truncate_to(0)
    assert log.log_end_offset == 0 and len(log.segments) == 1


def test_truncate_fully_and_start_at(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(5))
    log.truncate_fully_and_start_at(100)
    assert (log.log_start_offset, log.log_end_offset) == (100, 100)
    assert log.append(recs(1)).first_offset == 100


# ------------------------------------------------------------------------------- reopen/recovery
def test_reopen_after_clean_close(tmp_path):
    log = open_log(tmp_path, segment_bytes=600)
    for i in range(10):
        log.append(recs(3, start=3 * i, size=20))
    state = (log.log_start_offset, log.log_end_offset, [s.base_offset for s in log.segments], values(log))
    log.close()
    for seg_path in tmp_path.joinpath("topic-0").glob("*.index"):
        assert seg_path.stat().st_size % 8 == 0
    again = open_log(tmp_path, segment_bytes=600)
    assert (again.log_start_offset, again.log_end_offset, [s.base_offset for s in again.segments],
            values(again)) == state
    assert again.recovery_point == again.log_end_offset
    again.append(recs(1))
    assert again.log_end_offset == 31


def log_file(tmp_path, base=0, suffix=".log", name="topic-0"):
    return tmp_path / name / f"{base:020d}{suffix}"


def crash(log):
    """Drop the object without closing it (as if the process died): release fds and the lock only."""
    for seg in log._segments:
        seg.close_handlers()
    log._release_lock()
    log._closed = True


def test_recovery_truncates_garbage_tail(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(3))
    log.flush()
    size = log.active_segment.size_in_bytes
    crash(log)
    with open(log_file(tmp_path), "ab") as f:
        f.write(os.urandom(100))
    again = open_log(tmp_path)
    assert again.log_end_offset == 3 and again.active_segment.size_in_bytes == size
    assert os.path.getsize(log_file(tmp_path)) == size


@pytest.mark.parametrize("damage", ["truncated", "crc", "zeros"])
def test_recovery_stops_at_damage_and_drops_later_segments(tmp_path, damage):
    log = open_log(tmp_path, segment_bytes=400)
    for i in range(12):
        log.append([Record(b"k", b"x" * 100, T0 + i)])
    bases = [s.base_offset for s in log.segments]
    assert len(bases) >= 4
    crash(log)  # recovery point is still 0: everything is recovered
    victim = log_file(tmp_path, bases[1])
    data = bytearray(victim.read_bytes())
    first_batch = struct.unpack(">i", data[8:12])[0] + 12
    if damage == "truncated":
        data = data[: first_batch + 30]
    elif damage == "crc":
        data[first_batch + 40] ^= 0xFF
    else:
        data[first_batch:] = bytes(len(data) - first_batch)
    victim.write_bytes(bytes(data))
    again = open_log(tmp_path, segment_bytes=400)
    assert [s.base_offset for s in again.segments] == bases[:2]
    assert again.log_end_offset == bases[1] + 1
    assert [o for o, _ in values(again)] == list(range(bases[1] + 1))
    assert not log_file(tmp_path, bases[2]).exists()
    # set aside, not deleted: recovery cannot prove those batches invalid
    assert log_file(tmp_path, bases[2], ".log.quarantined").exists()
    assert any(q.endswith(f"{bases[2]:020d}.log.quarantined") for q in again.quarantined)
    # the bytes after the cut inside the damaged segment are set aside too (unless they were all zero)
    cut_files = [q for q in again.quarantined if q.endswith(".quarantined") and f"{bases[1]:020d}.log." in q]
    if damage == "zeros":
        assert cut_files == []
    else:
        assert len(cut_files) == 1 and Path(cut_files[0]).read_bytes() == bytes(data[int(cut_files[0].split(".")[-2]):])


def test_recovery_rebuilds_missing_and_zero_filled_indexes(tmp_path):
    log = open_log(tmp_path, segment_bytes=2000, index_interval_bytes=100)
    for i in range(30):
        log.append([Record(b"k", b"x" * 100, T0 + i)])
    bases = [s.base_offset for s in log.segments]
    expect = {b: (log.segments[i].offset_index.entries) for i, b in enumerate(bases)}
    log.close()
    log_file(tmp_path, bases[0], ".index").unlink()
    idx = log_file(tmp_path, bases[1], ".index")
    idx.write_bytes(idx.read_bytes() + bytes(8 * 50))  # an untrimmed, zero-filled tail
    tidx = log_file(tmp_path, bases[1], ".timeindex")
    tidx.write_bytes(tidx.read_bytes() + bytes(12 * 20))
    again = open_log(tmp_path, segment_bytes=2000, index_interval_bytes=100)
    for seg in again.segments[:-1]:
        assert seg.offset_index.entries == expect[seg.base_offset]
        assert seg.offset_index.untrusted_tail() == 0
    assert [o for o, _ in values(again)] == list(range(30))
    assert again.offset_for_timestamp(T0 + 17) == (17, T0 + 17)


def test_raw_segments_without_indexes_open_and_build_indexes(tmp_path):
    """A directory written by another implementation: only .log files."""
    d = tmp_path / "foreign-3"
    d.mkdir()
    first = kvlog.encode_arrays(None, [b"v%d" % i for i in range(100)], T0, records_per_batch=10)
    second = kvlog.encode_arrays(None, [b"w%d" % i for i in range(50)], T0 + 5, records_per_batch=10, base_offset=100)
    (d / f"{0:020d}.log").write_bytes(first)
    (d / f"{100:020d}.log").write_bytes(second)
    log = Log.open(d, LogConfig(index_interval_bytes=100))
    assert log.log_end_offset == 150 and (log.topic, log.partition) == ("foreign", 3)
    assert (d / f"{0:020d}.index").exists() and log.segments[0].offset_index.entries > 0
    assert [o for o, _ in values(log)] == list(range(150))
    assert log.offset_for_timestamp(T0 + 5) == (100, T0 + 5)


def test_leftover_compaction_files_are_resolved(tmp_path):
    log = open_log(tmp_path, segment_bytes=300)
    for i in range(6):
        log.append([Record(b"k%d" % i, b"x" * 100, T0)])
    bases = [s.base_offset for s in log.segments]
    log.close()
    d = tmp_path / "topic-0"
    # an interrupted clean: a .cleaned file (rolled back) and a .deleted file (finished); a .swap below
    # the smallest .cleaned offset is a finished clean, one at or above it an unfinished split
    (d / f"{bases[4]:020d}.log.cleaned").write_bytes(b"partial")
    (d / f"{bases[1]:020d}.index.deleted").write_bytes(b"old")
    # a finished swap: replaces segments bases[2] and bases[3] with one segment
    merged = b"".join((d / f"{b:020d}.log").read_bytes() for b in bases[2:4])
    (d / f"{bases[2]:020d}.log.swap").write_bytes(merged)
    again = open_log(tmp_path, segment_bytes=300)
    names = os.listdir(d)
    assert not any(n.endswith((".cleaned", ".swap", ".deleted")) for n in names)
    assert f"{bases[3]:020d}.log" not in names
    assert [o for o, _ in values(again)] == list(range(6))


def test_swap_after_cleaned_is_an_unfinished_split_and_is_dropped(tmp_path):
    log = open_log(tmp_path, segment_bytes=300)
    for i in range(4):
        log.append([Record(b"k", b"x" * 100, T0)])
    bases = [s.base_offset for s in log.segments]
    log.close()
    d = tmp_path / "topic-0"
    (d / f"{bases[1]:020d}.log.cleaned").write_bytes(b"")
    (d / f"{bases[1]:020d}.log.swap").write_bytes(b"garbage")
    again = open_log(tmp_path, segment_bytes=300)
    assert [o for o, _ in values(again)] == list(range(4))
    assert not any(n.endswith((".cleaned", ".swap")) for n in os.listdir(d))


# ------------------------------------------------------------------------------ locking/readers
def test_single_writer_lock_and_read_only_readers(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(3))
    with pytest.raises(kvlog.LogLockedError):
        open_log(tmp_path)
    reader = Log.open(tmp_path / "topic-0", read_only=True)
    assert [o for o, _ in values(reader)] == [0, 1, 2]
    log.append(recs(2))
    # a reader sees what existed when it opened; a new reader sees more
    assert Log.open(tmp_path / "topic-0", read_only=True).log_end_offset == 5
    with pytest.raises(kvlog.KvlogError, match="read-only"):
        reader.append(recs(1))
    log.close()
    open_log(tmp_path).close()  # the lock is released on close


def test_read_only_open_never_writes(tmp_path):
    log = open_log(tmp_path)
    log.append(recs(3))
    log.flush()
    crash(log)
    with open(log_file(tmp_path), "ab") as f:
        f.write(b"\x00" * 40)  # a torn tail the writer would cut on recovery
    before = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in (tmp_path / "topic-0").iterdir()}
    reader = Log.open(tmp_path / "topic-0", read_only=True)
    assert [o for o, _ in values(reader)] == [0, 1, 2]
    reader.close()
    after = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in (tmp_path / "topic-0").iterdir()}
    assert before == after


def test_kvlog_segment_files_readable_by_aiokafka(tmp_path):
    from aiokafka.record.memory_records import MemoryRecords as AioMemoryRecords

    log = open_log(tmp_path)
    log.append(recs(5))
    log.append(kvlog.encode_batch(recs(3, start=5), compression="lz4"))
    log.close()
    data = log_file(tmp_path).read_bytes()
    mr = AioMemoryRecords(data)
    got = []
    while (batch := mr.next_batch()) is not None:
        assert batch.validate_crc()
        got += [(r.offset, r.value) for r in batch]
    assert got == [(i, r.value) for i, r in enumerate(recs(8))]


def test_index_entries_follow_kafka_rule(tmp_path):
    """One entry per batch when over index.interval.bytes: (batch last offset -> batch start)."""
    log = open_log(tmp_path, index_interval_bytes=150)
    for i in range(20):
        log.append(recs(2, start=2 * i, size=50))
    seg = log.active_segment
    positions = {int(h["position"]): int(h["last_offset"]) for hs in seg.iter_headers() for h in hs}
    n = seg.offset_index.entries
    assert n > 0
    for i in range(n):
        e = seg.offset_index.entry(i)
        assert positions[e.position] == e.offset


def test_read_only_open_of_bare_segments(tmp_path, kraft_segment):
    d = tmp_path / "__cluster_metadata-0"
    d.mkdir()
    os.replace(kraft_segment, d / kraft_segment.name)
    reader = Log.open(d, read_only=True)
    assert [r.offset for r in reader.records()] == [0, 1, 2, 3]
    assert reader.offset_for_timestamp(1726045950000) == (1, 1726045957397)
    assert sorted(os.listdir(d)) == [kraft_segment.name]  # nothing created


def test_reader_survives_writer_rolling_and_trimming(tmp_path):
    """KAFKA-19390's lesson: a reader must not crash when the writer trims or truncates files it uses."""
    log = open_log(tmp_path, segment_bytes=2000, index_interval_bytes=64)
    log.append(recs(5, size=100))
    reader = Log.open(tmp_path / "topic-0", read_only=True)
    for i in range(60):
        log.append(recs(3, start=5 + 3 * i, size=100))  # rolls: old indexes trimmed, files shrink
        assert reader.to_arrow().num_rows == 5
        assert reader.offset_for_timestamp(T0) == (0, T0)
    log.truncate_to(2)  # removes the whole first batch (offsets 0..4) under the reader
    assert [r.offset for r in reader.records()] == []  # what vanished is not seen; no crash, no garbage
    late = Log.open(tmp_path / "topic-0", read_only=True)
    assert late.log_end_offset == 0


def test_read_only_open_sees_an_unfinished_swap_as_finished(tmp_path, monkeypatch):
    log = open_log(tmp_path, segment_bytes=300)
    for i in range(6):
        log.append([Record(b"k%d" % i, b"x" * 100, T0)])
    bases = [s.base_offset for s in log.segments]
    log.close()
    d = tmp_path / "topic-0"
    # mid-swap: the old segment already renamed to .deleted, its replacement still .swap
    merged = (d / f"{bases[1]:020d}.log").read_bytes()
    (d / f"{bases[1]:020d}.log.swap").write_bytes(merged)
    os.rename(d / f"{bases[1]:020d}.log", d / f"{bases[1]:020d}.log.deleted")
    before = sorted(os.listdir(d))
    reader = Log.open(d, read_only=True)
    assert [o for o, _ in values(reader)] == list(range(6))
    reader.close()
    assert sorted(os.listdir(d)) == before  # a reader never resolves it on disk
    # leftover .deleted files alone (a broker's asynchronous delete) never make a reader wait
    import time

    slept = []
    monkeypatch.setattr(time, "sleep", lambda s: slept.append(s))
    Log.open(d, read_only=True).close()
    assert slept == []


def test_a_first_compactions_swap_with_gaps_is_not_damage(tmp_path):
    """A log's first compaction, cut between its renames: the .swap holds offsets with gaps and the cleaner's
    checkpoint does not name the log yet. Readers and a recovering writer take the gaps as compaction's, not as
    damage: nothing is set aside, every kept record reads."""
    from kvlog import Record, encode_batch

    d = tmp_path / "t-0"
    d.mkdir()
    old = [encode_batch([Record(key=b"k%d" % i, value=b"old", timestamp=1000 + i) for i in range(b, b + 20)],
                        base_offset=b) for b in (0, 20, 40)]
    (d / ("0" * 20 + ".log")).write_bytes(b"".join(old[:2]))
    (d / f"{40:020d}.log").write_bytes(old[2])
    kept = [encode_batch([Record(key=b"k%d" % i, value=b"new", timestamp=1000 + i) for i in range(10)]),
            encode_batch([Record(key=b"k39", value=b"new", timestamp=1039)], base_offset=39)]
    (d / ("0" * 20 + ".log.swap")).write_bytes(b"".join(kept))
    with Log.open(str(d), read_only=True) as log:
        assert log.to_arrow().column("offset").to_pylist() == [*range(10), 39, *range(40, 60)]
    with Log.open(str(d)) as log:
        assert log.to_arrow().column("offset").to_pylist() == [*range(10), 39, *range(40, 60)]
        assert log.quarantined == []
    assert not [n for n in os.listdir(d) if n.endswith((".swap", ".quarantined"))]


def test_a_log_keeps_at_most_30_instance_attributes(tmp_path):
    """CPython shares an instance dict's keys only up to 30 of them; past that every attribute access on
    the append and read paths slows down (measured: point operations several percent slower)."""
    writer = Log.open(tmp_path / "t-0")
    reader = Log.open(tmp_path / "t-0", read_only=True)
    try:
        assert len(vars(writer)) <= 30 and len(vars(reader)) <= 30, sorted(vars(writer))
        assert len(vars(writer.segments[0])) <= 30, sorted(vars(writer.segments[0]))
    finally:
        reader.close()
        writer.close()
