"""Idempotent producers: sequences, retries, fencing, and producer-state snapshots in Kafka's layout."""

import os
import struct

import crc32c
import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.errors import (
    CorruptSnapshotError,
    InvalidProducerEpochError,
    InvalidRecordError,
    InvalidTxnStateError,
    OutOfOrderSequenceError,
    TransactionCoordinatorFencedError,
)
from kvlog.log import Log
from kvlog.producer_state import ProducerStateEntry, encode_snapshot, read_snapshot

T0 = 1_700_000_000_000


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


def open_log(tmp_path, clock=None, **cfg):
    return Log.open(tmp_path / "t-0", LogConfig(**cfg), time=clock or Clock())


def batch(n, tag=b"v", ts=T0):
    return [Record(b"k%d" % i, tag + b"%d" % i, ts + i) for i in range(n)]


def kafka_snapshot(entries):
    """The .snapshot bytes built from the layout alone (ProducerStateManager.writeSnapshot)."""
    body = struct.pack(">i", len(entries)) + b"".join(struct.pack(">qhiqiqiq", *e) for e in entries)
    return struct.pack(">hI", 1, crc32c.crc32c(body)) + body


# ------------------------------------------------------------------------------------- idempotence
def test_sequences_must_follow_each_other(tmp_path):
    log = open_log(tmp_path)
    a = log.append(batch(3), producer_id=7, producer_epoch=0, base_sequence=0)
    b = log.append(batch(2), producer_id=7, producer_epoch=0, base_sequence=3)
    assert (a.first_offset, a.last_offset, b.first_offset, b.last_offset) == (0, 2, 3, 4)
    with pytest.raises(OutOfOrderSequenceError) as e:
        log.append(batch(1), producer_id=7, producer_epoch=0, base_sequence=6)  # gap: 5 is missing
    assert e.value.producer_id == 7 and isinstance(e.value, kvlog.KvlogError)
    assert log.log_end_offset == 5
    entry = log.producer_entry(7)
    assert (entry.producer_epoch, entry.last_seq, entry.last_data_offset) == (0, 4, 4)


def test_retry_of_any_of_the_last_five_batches_returns_the_original(tmp_path):
    log = open_log(tmp_path)
    infos = [log.append(batch(2, b"b%d-" % i), producer_id=1, producer_epoch=3, base_sequence=2 * i)
             for i in range(7)]
    end = log.log_end_offset
    for i in range(2, 7):  # the last five are remembered
        dup = log.append(batch(2, b"retry"), producer_id=1, producer_epoch=3, base_sequence=2 * i)
        assert dup.duplicate and (dup.first_offset, dup.last_offset) == (infos[i].first_offset, infos[i].last_offset)
        assert log.log_end_offset == end
    with pytest.raises(OutOfOrderSequenceError):  # older than five batches: not recognised
        log.append(batch(2, b"retry"), producer_id=1, producer_epoch=3, base_sequence=2)
    assert [r.value for r in log.records()].count(b"retry0") == 0


def test_fencing_and_new_epochs(tmp_path):
    log = open_log(tmp_path)
    log.append(batch(1), producer_id=9, producer_epoch=4, base_sequence=0)
    log.append(batch(1), producer_id=9, producer_epoch=4, base_sequence=1)
    with pytest.raises(OutOfOrderSequenceError):  # a new epoch starts at sequence 0
        log.append(batch(1), producer_id=9, producer_epoch=5, base_sequence=2)
    log.append(batch(1), producer_id=9, producer_epoch=5, base_sequence=0)
    with pytest.raises(InvalidProducerEpochError):  # the zombie of epoch 4 is fenced
        log.append(batch(1), producer_id=9, producer_epoch=4, base_sequence=2)
    assert log.producer_entry(9).producer_epoch == 5
    # a producer the log has never seen may start at any sequence (its state may have expired)
    log.append(batch(1), producer_id=10, producer_epoch=0, base_sequence=42)


def test_sequence_wraps_past_int32_max(tmp_path):
    log = open_log(tmp_path)
    log.append(batch(2), producer_id=2, producer_epoch=0, base_sequence=2**31 - 2)
    log.append(batch(1), producer_id=2, producer_epoch=0, base_sequence=0)
    assert log.producer_entry(2).last_seq == 0


def test_batches_carrying_producer_fields_and_refusals(tmp_path):
    log = open_log(tmp_path)
    data = kvlog.encode_batch(batch(2), producer_id=5, producer_epoch=1, base_sequence=0)
    assert log.append(data).last_offset == 1
    assert log.append(data).duplicate  # the same bytes again: a retry
    with pytest.raises(InvalidRecordError):
        log.append(kvlog.encode_batch(batch(1), producer_id=5, producer_epoch=1, base_sequence=-1))
    with pytest.raises(ValueError):
        log.append(data, producer_id=5)
    with pytest.raises(InvalidTxnStateError):  # open transaction, then a plain batch
        log.append(batch(1), producer_id=6, producer_epoch=0, base_sequence=0, is_transactional=True)
        log.append(batch(1), producer_id=6, producer_epoch=0, base_sequence=1)


def test_replica_appends_are_trusted_but_tracked(tmp_path):
    src = open_log(tmp_path)
    src.append(batch(2), producer_id=3, producer_epoch=0, base_sequence=0)
    src.append(batch(2), producer_id=3, producer_epoch=0, base_sequence=2)
    dst = Log.open(tmp_path / "copy-0", LogConfig(), time=Clock())
    dst.append(src.read(0, 1 << 20), assign_offsets=False)
    assert dst.producer_entry(3).last_seq == 3
    assert dst.append(batch(2), producer_id=3, producer_epoch=0, base_sequence=2).duplicate


def test_markers_check_epochs_and_coordinator_epochs(tmp_path):
    log = open_log(tmp_path)
    log.append(batch(1), producer_id=4, producer_epoch=2, base_sequence=0, is_transactional=True)
    with pytest.raises(InvalidProducerEpochError):
        log.end_transaction(4, 1, commit=True, coordinator_epoch=5)
    log.end_transaction(4, 2, commit=True, coordinator_epoch=5)
    log.append(batch(1), producer_id=4, producer_epoch=2, base_sequence=1, is_transactional=True)
    with pytest.raises(TransactionCoordinatorFencedError):
        log.end_transaction(4, 2, commit=False, coordinator_epoch=4)
    assert log.last_stable_offset == 2  # still open
    log.end_transaction(4, 2, commit=False, coordinator_epoch=5)
    assert log.last_stable_offset == log.log_end_offset


# --------------------------------------------------------------------------------------- snapshots
def test_snapshot_bytes_match_kafkas_layout(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock)
    log.append(batch(3, ts=T0), producer_id=11, producer_epoch=2, base_sequence=0)
    log.append(batch(1, ts=T0 + 50), producer_id=5, producer_epoch=0, base_sequence=0, is_transactional=True)
    log.append(batch(2, ts=T0 + 90), producer_id=11, producer_epoch=2, base_sequence=3)
    log.roll()
    path = tmp_path / "t-0" / ("%020d.snapshot" % 6)
    # (pid, epoch, lastSeq, lastOffset, offsetDelta, timestamp, coordinatorEpoch, currentTxnFirstOffset)
    want = kafka_snapshot([(5, 0, 0, 3, 0, T0 + 50, -1, 3), (11, 2, 4, 5, 1, T0 + 91, -1, -1)])
    assert path.read_bytes() == want
    log.end_transaction(5, 0, commit=True, coordinator_epoch=7, timestamp=T0 + 200)
    log.close()
    final = tmp_path / "t-0" / ("%020d.snapshot" % 7)
    assert final.read_bytes() == kafka_snapshot([(5, 0, 0, 3, 0, T0 + 200, 7, -1), (11, 2, 4, 5, 1, T0 + 91, -1, -1)])


def test_empty_log_rolls_write_empty_snapshots_as_kafka(tmp_path):
    log = open_log(tmp_path)
    log.append(batch(2))
    log.roll()
    assert (tmp_path / "t-0" / ("%020d.snapshot" % 2)).read_bytes() == kafka_snapshot([])


def test_read_snapshot_rejects_damage():
    good = encode_snapshot([ProducerStateEntry(1, 0, 3, T0)])
    assert read_snapshot(good)[0].coordinator_epoch == 3
    for bad in (good[:-1], good[:5], b"\x00\x02" + good[2:], good[:20] + bytes([good[20] ^ 1]) + good[21:],
                good[:6] + b"\xff\xff\xff\xff" + good[10:], good + b"\x00"):
        with pytest.raises(CorruptSnapshotError):
            read_snapshot(bad)


def test_state_survives_clean_and_unclean_reopen(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock, segment_bytes=300)
    for i in range(12):
        log.append(batch(2), producer_id=1, producer_epoch=0, base_sequence=2 * i)
    assert len(log.segments) > 2
    log.close()
    log = open_log(tmp_path, clock=clock, segment_bytes=300)
    assert log.producer_entry(1).last_seq == 23
    assert log.append(batch(2), producer_id=1, producer_epoch=0, base_sequence=22).duplicate
    log.append(batch(2), producer_id=1, producer_epoch=0, base_sequence=24)
    log.flush()
    log._release_lock()  # an unclean stop: no close snapshot
    for seg in log._segments:
        seg.close_handlers()
    log._closed = True
    again = open_log(tmp_path, clock=clock, segment_bytes=300)
    e = again.producer_entry(1)
    assert (e.last_seq, e.last_data_offset) == (25, again.log_end_offset - 1)
    with pytest.raises(OutOfOrderSequenceError):
        again.append(batch(1), producer_id=1, producer_epoch=0, base_sequence=27)


def test_corrupt_latest_snapshot_falls_back_to_an_older_one(tmp_path):
    log = open_log(tmp_path, segment_bytes=400)
    for i in range(10):
        log.append(batch(2), producer_id=1, producer_epoch=0, base_sequence=2 * i)
    active = log.active_segment.base_offset
    log.close()
    snaps = sorted(n for n in os.listdir(tmp_path / "t-0") if n.endswith(".snapshot"))
    assert len(snaps) >= 3
    # the open recovers the active segment, so it starts from the snapshot named after it
    latest = tmp_path / "t-0" / ("%020d.snapshot" % active)
    latest.write_bytes(latest.read_bytes()[:-3])
    log = open_log(tmp_path, segment_bytes=400)
    assert log.producer_entry(1).last_seq == 19
    assert not latest.exists()  # a corrupt snapshot is deleted, as Kafka does


def test_truncation_and_retention_take_snapshots_with_them(tmp_path):
    clock = Clock()
    log = open_log(tmp_path, clock=clock, segment_bytes=400, retention_ms=1000)
    for i in range(10):
        log.append(batch(2), producer_id=1, producer_epoch=0, base_sequence=2 * i)
    snaps = lambda: sorted(int(n[:20]) for n in os.listdir(log.dir) if n.endswith(".snapshot"))  # noqa: E731
    assert snaps() and max(snaps()) <= log.log_end_offset
    cut = log.segments[-2].base_offset + 1
    log.truncate_to(cut)
    assert all(o <= log.log_end_offset for o in snaps())
    assert log.producer_entry(1).last_data_offset == log.log_end_offset - 1
    first_bases = [s.base_offset for s in log.segments[:-1]]
    clock.t += 10_000
    log.append(batch(1, ts=clock.t), producer_id=1, producer_epoch=0,
               base_sequence=log.producer_entry(1).last_seq + 1)
    log.delete_old_segments()
    assert not set(snaps()) & set(first_bases[:1])
    log.truncate_fully_and_start_at(100)
    assert snaps() == [] and log.producer_entry(1) is None
