"""Rules the broker tests (tests/test_broker_*.py, real Kafka 2.8-4.4 brokers) showed that reading Kafka's
source had missed, each pinned here on files kvlog builds, so the default suite keeps them without a broker."""

from __future__ import annotations

import pathlib
import struct

import numpy as np

from kvlog import Log, LogConfig, Record
from kvlog.verify import MAX_REPORTED, verify_partition

T0 = 1_700_000_000_000


def _txn_log(path, marker_ts: int) -> tuple[Log, int]:
    log = Log.open(path, LogConfig(segment_bytes=1 << 20))
    log.append([Record(b"k%d" % i, b"v", T0 + i) for i in range(10)], producer_id=7, producer_epoch=0,
               base_sequence=0, is_transactional=True)
    info = log.end_transaction(7, 0, commit=True, timestamp=marker_ts)
    return log, info.first_offset


def test_offsets_for_times_answers_a_marker(tmp_path):
    """ListOffsets for a timestamp answers the first entry at or after it, a transaction marker too (every
    broker version: the scenario's txn partitions answered the COMMIT marker's offset; kvlog answered a later
    record or None)."""
    log, marker = _txn_log(tmp_path / "t-0", T0 + 1000)
    with log:
        assert log.offset_for_timestamp(T0 + 10) == (marker, T0 + 1000)
        assert log.offset_for_timestamp(T0 + 1000) == (marker, T0 + 1000)
        assert log.offset_for_timestamp(T0 + 1001) is None
        assert log.offset_for_timestamp(T0 + 3) == (3, T0 + 3)
        log.append([Record(b"after", b"v", T0 + 2000)])
        assert log.offset_for_timestamp(T0 + 10) == (marker, T0 + 1000)
        assert log.offset_for_timestamp(T0 + 1001) == (marker + 1, T0 + 2000)


def _segment_with_index(path, n_batches: int = 40) -> Log:
    """A closed segment with real index entries (index.interval.bytes small), records' timestamps out of order
    inside each batch (the largest on the batch's third record)."""
    log = Log.open(path, LogConfig(segment_bytes=1 << 20, index_interval_bytes=64))
    for b in range(n_batches):
        base = T0 + b * 100
        log.append([Record(b"k", b"x" * 20, base + d) for d in (5, 1, 50, 2)])
    log.roll()
    return log


def _rewrite_time_index(log: Log, rule) -> int:
    seg = log.segments[0]
    path = pathlib.Path(str(seg.log_path)[:-4] + ".timeindex")
    raw = path.read_bytes()
    out = bytearray()
    changed = 0
    for i in range(0, len(raw), 12):
        ts, rel = struct.unpack_from(">qi", raw, i)
        new = rule(ts, seg.base_offset + rel)
        changed += new != seg.base_offset + rel
        out += struct.pack(">qi", ts, new - seg.base_offset)
    path.write_bytes(bytes(out))
    return changed


def test_verify_accepts_the_time_index_rule_before_kafka_3_8(tmp_path):
    """Brokers before 3.8 (KAFKA-16310; seen in 2.8.2's files) index the offset of the record carrying the
    batch's largest timestamp, inside the batch, where later ones index the batch's last offset: both are
    healthy files. An entry inside a batch whose largest timestamp is another stays an error."""
    with _segment_with_index(tmp_path / "t-0") as log:
        pass
    report = verify_partition(str(tmp_path / "t-0"))
    assert not report.errors, report.problems
    log = Log.open(tmp_path / "t-0", read_only=True)
    with log:
        assert _rewrite_time_index(log, lambda ts, off: off - 1) > 3  # last offset - 1: the record with ts+50
    report = verify_partition(str(tmp_path / "t-0"))
    assert not report.errors, [p.text() for p in report.errors]
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        _rewrite_time_index(log, lambda ts, off: off - 4)  # the previous batch's last offset: a wrong batch
    report = verify_partition(str(tmp_path / "t-0"))
    assert any("largest timestamp" in p.message for p in report.errors)


def test_verify_accepts_a_preallocated_zero_filled_index(tmp_path):
    """A running (or killed) broker's active segment has 10 MiB of zeros as its .index and .timeindex, read as
    entries (base offset, position 0) and (timestamp 0, base offset): not errors."""
    log = Log.open(tmp_path / "t-5", LogConfig(segment_bytes=1 << 20))
    log.truncate_fully_and_start_at(5)
    log.append([Record(b"k", b"v" * 100, T0 + i) for i in range(50)])
    log.close()
    d = tmp_path / "t-5"
    for suffix, entry in ((".index", 8), (".timeindex", 12)):  # 10 MiB rounded down to whole entries
        (d / f"{5:020d}{suffix}").write_bytes(bytes((10 << 20) // entry * entry))
    report = verify_partition(str(d))
    assert not report.errors, [p.text() for p in report.errors]
    # an index whose first entry is zeros and a later one is not is still damaged
    raw = bytearray(bytes(80))
    raw[16:24] = struct.pack(">ii", 3, 128)
    (d / f"{5:020d}.index").write_bytes(bytes(raw))
    assert verify_partition(str(d)).errors


def test_verify_counts_every_error_it_summarises(tmp_path):
    """Errors beyond MAX_REPORTED of a kind are summarised in one line; the counts say all of them (a real
    directory summed 21 where 125 were found)."""
    with _segment_with_index(tmp_path / "t-0", n_batches=60) as log:
        pass
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        changed = _rewrite_time_index(log, lambda ts, off: off - 4)
    assert changed > MAX_REPORTED + 5
    report = verify_partition(str(tmp_path / "t-0"))
    wrong = [p for p in report.errors if p.file.endswith(".timeindex")]
    assert len(wrong) == MAX_REPORTED + 1
    assert sum(p.count for p in wrong) == changed
    assert report.error_count >= changed
    assert report.as_dict()["error_count"] == report.error_count
    assert np.int64(report.error_count) == report.error_count


def test_dump_of_a_directory_says_what_to_pass(tmp_path, capfd):
    """``kvlog dump --files <a directory>`` said "no such file"; it names the directory and what --files takes."""
    from kvlog.cli import main

    d = tmp_path / "t-0"
    d.mkdir()
    assert main(["dump", "--files", str(d)]) == 1
    out, err = capfd.readouterr()
    assert out == ""
    assert f"{d} is a directory: --files takes segment files" in err and "no such file" not in err
