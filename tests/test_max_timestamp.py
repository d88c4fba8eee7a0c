"""``offset_for_timestamp(MAX_TIMESTAMP)`` as Kafka's ListOffsets answers the max-timestamp target (-3).

Kafka (``UnifiedLog.fetchOffsetByTimestamp``, 3.8+): the first segment whose max timestamp is the largest
(strictly greater wins, so the first one reaching it), in it the first batch whose max timestamp is that one,
control batches included (a transaction's COMMIT/ABORT marker, a KRaft ``LeaderChange``), then the first
record of that batch carrying it (``RecordBatch.offsetOfMaxTimestamp``). The expected answers here come
from that rule applied to what each test wrote, not from kvlog.
"""

from __future__ import annotations

import struct

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.cli import main
from kvlog.log import MAX_TIMESTAMP, Log

T0 = 1_700_000_000_000
PID = 7


def _txn(log: Log, stamps: list[int], seq: int = 0) -> None:
    log.append([Record(b"k%d" % i, b"v", ts) for i, ts in enumerate(stamps)], producer_id=PID,
               producer_epoch=0, base_sequence=seq, is_transactional=True)


def _leader_change(offset: int, ts: int) -> bytes:
    """A KRaft LeaderChange control batch (control type 2), as a replica appends it."""
    value = struct.pack(">hiib", 0, 1, 1, 0) + struct.pack(">b", 0)  # version, leader, voters (empty), tags
    return kvlog.encode_batch([Record(struct.pack(">hh", 0, 2), value, ts)], base_offset=offset, is_control=True)


def _both(d, want) -> None:
    """The writer's answer and a read-only reopen's are ``want`` (offset, timestamp)."""
    for ro in (False, True):
        with Log.open(d, read_only=ro) if ro else Log.open(d) as log:
            got = log.offset_for_timestamp(MAX_TIMESTAMP)
            assert (None if got is None else tuple(got)) == want, f"read_only={ro}"


@pytest.mark.parametrize("commit", [True, False])
def test_a_marker_holding_the_largest_timestamp_answers(tmp_path, commit):
    d = tmp_path / "t-0"
    with Log.open(d) as log:
        _txn(log, [T0, T0 + 1, T0 + 2])
        log.end_transaction(PID, 0, commit=commit, timestamp=T0 + 100)
    _both(d, (3, T0 + 100))


def test_a_leader_change_holding_the_largest_timestamp_answers(tmp_path):
    d = tmp_path / "t-0"
    with Log.open(d) as log:
        log.append(kvlog.encode_arrays(None, [b"a", b"b"], [T0, T0 + 5]), assign_offsets=False)
        log.append(_leader_change(2, T0 + 50), assign_offsets=False)
        log.append(kvlog.encode_batch([Record(b"k", b"c", T0 + 6)], base_offset=3), assign_offsets=False)
    _both(d, (2, T0 + 50))


def test_ties_go_to_the_first_batch_reaching_the_maximum(tmp_path):
    # a data batch first, then a marker with the same timestamp: the data record
    d = tmp_path / "a-0"
    with Log.open(d) as log:
        _txn(log, [T0, T0 + 100, T0 + 3])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 100)
        log.append([Record(b"k", b"later", T0 + 100)])
    _both(d, (1, T0 + 100))
    # a marker first, then data with the same timestamp: the marker
    d = tmp_path / "b-0"
    with Log.open(d) as log:
        _txn(log, [T0, T0 + 1])
        log.end_transaction(PID, 0, commit=False, timestamp=T0 + 100)
        log.append([Record(b"k", b"x", T0 + 2), Record(b"k", b"y", T0 + 100)])
    _both(d, (2, T0 + 100))


def test_the_first_segment_reaching_the_maximum_answers(tmp_path):
    d = tmp_path / "t-0"
    with Log.open(d, LogConfig(segment_bytes=10_000)) as log:
        _txn(log, [T0, T0 + 1])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 500)   # offset 2, segment 0
        log.roll()
        for i in range(20):
            log.append([Record(b"k", b"x" * 30, T0 + 10 + i)])
        log.append([Record(b"k", b"tie", T0 + 500)])                    # same maximum, a later segment
        log.roll()
        for i in range(5):
            log.append([Record(b"k", b"y", T0 + 20 + i)])
        assert len(log.segments) == 3
    _both(d, (2, T0 + 500))


def test_a_marker_behind_many_batches_in_a_rolled_segment(tmp_path):
    # the rolled segment's max timestamp comes from its time index; the batch is found from the offset index
    d = tmp_path / "t-0"
    with Log.open(d, LogConfig(index_interval_bytes=100)) as log:
        for i in range(50):
            log.append([Record(b"k", b"x" * 40, T0 + i)])
        _txn(log, [T0 + 60, T0 + 61])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 900)    # offset 52
        for i in range(30):
            log.append([Record(b"k", b"z" * 40, T0 + 70 + i)])
        log.roll()
        log.append([Record(b"k", b"after", T0 + 80)])
    _both(d, (52, T0 + 900))


def test_data_batches_keep_the_first_record_carrying_the_maximum(tmp_path):
    d = tmp_path / "t-0"
    with Log.open(d) as log:
        log.append([Record(b"k", b"a", T0), Record(b"k", b"b", T0 + 9), Record(b"k", b"c", T0 + 9)])
        _txn(log, [T0 + 1])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 8)
    _both(d, (1, T0 + 9))


def test_cli_offsets_max_prints_the_marker(tmp_path, capfd):
    d = tmp_path / "t-0"
    with Log.open(d) as log:
        _txn(log, [T0, T0 + 1])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 77)
    assert main(["offsets", str(d), "--timestamp", "max"]) == 0
    out, err = capfd.readouterr()
    assert (out.splitlines(), err) == ([f"2 {T0 + 77}"], "")
    assert main(["offsets", str(d), "--timestamp", "-3"]) == 0
    assert capfd.readouterr().out.splitlines() == [f"2 {T0 + 77}"]


@pytest.mark.spark
@pytest.mark.parametrize("fmt", ["kvlog_python", "kvlog_jvm"])
def test_spark_starting_timestamp_max_lands_on_the_marker(jvm, tmp_path, fmt):
    root = tmp_path / "data"
    with Log.open(root / "t-0") as log:
        log.append([Record(b"k", b"first", T0)])
        _txn(log, [T0 + 1, T0 + 2])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 500)   # offset 3
        log.append([Record(b"k", b"after", T0 + 4)])                     # offset 4
    with Log.open(root / "t-1") as log:                                  # a tie: the marker first
        _txn(log, [T0, T0 + 1])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 500)   # offset 2
        log.append([Record(b"k", b"tie", T0 + 500), Record(b"k", b"next", T0 + 6)])   # offsets 3, 4
    with Log.open(root / "u-0") as log:                                  # a data record, then a later marker tie
        _txn(log, [T0, T0 + 500, T0 + 1])
        log.end_transaction(PID, 0, commit=True, timestamp=T0 + 500)   # offset 3
        log.append([Record(b"k", b"z", T0 + 2)])                        # offset 4
    df = jvm.read.format(fmt).option("subscribe", "t,u").option("startingTimestamp", "-3").load(str(root))
    got = sorted((r.topic, r.partition, r.offset) for r in df.select("topic", "partition", "offset").collect())
    # from the marker at 3 of t-0: offset 4; from the marker at 2 of t-1: 3 and 4; from the record at 1 of u-0
    assert got == [("t", 0, 4), ("t", 1, 3), ("t", 1, 4), ("u", 0, 1), ("u", 0, 2), ("u", 0, 4)]
