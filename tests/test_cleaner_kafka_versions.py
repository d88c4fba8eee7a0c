"""The cleaner's rules that Kafka's brokers showed (tests/test_broker_compaction.py), without a broker.

Each test failed before the fix it covers:

- Kafka 4.0's cleaner rewrites every v0/v1 entry it keeps as a v2 batch (KAFKA-13093); before 4.0 in the
  entry's own magic (``LogCleaner(kafka_version=...)``, default the newest);
- a v0/v1 tombstone (no delete horizon of its own) goes once its segment is no newer than the last clean
  segment less ``delete.retention.ms`` (Kafka's ``legacyDeleteHorizonMs``);
- a keyless record before the first uncleanable offset goes, even in the last batch of the pass (Kafka's map
  ends at that offset, not at the last key it mapped);
- which emptied batch a pass keeps to hold the log end offset depends on the version: none before 4.0, the one
  ending at the first uncleanable offset in 4.0-4.3 (KAFKA-17076), the one ending at the high watermark from
  4.4 (KAFKA-20452).
"""

import os

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.cleaner import KAFKA_VERSION, LogCleaner
from kvlog.errors import ConfigError
from kvlog.log import Log

T0 = 1_700_000_000_000
NOW = T0 + 3_600_000


def open_log(path, **cfg):
    return Log.open(path, LogConfig(**{"cleanup_policy": "compact", "delete_retention_ms": 1000, **cfg}),
                    time=lambda: NOW)


def legacy(log, magic, records, codec="none", lat=None):
    kw = {} if lat is None else {"timestamp_type": "LogAppendTime", "log_append_time": lat}
    log.append(kvlog.encode_batch(records, magic=magic, base_offset=log.log_end_offset, compression=codec, **kw),
               assign_offsets=False)


def batches(log):
    return [b for s in log.segments for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches()]


def shape(b):
    return (b.magic, int(b.compression), int(b.timestamp_type), b.base_offset, b.last_offset, b.producer_id,
            b.partition_leader_epoch, b.delete_horizon_ms, b.max_timestamp,
            [(r.offset, r.key, r.value, r.timestamp) for r in b.records()])


def test_default_is_the_newest_kafka():
    assert KAFKA_VERSION == "4.4"
    assert LogCleaner().kafka_version == (4, 4)
    assert LogCleaner(kafka_version="3.7.2").kafka_version == (3, 7)


@pytest.mark.parametrize("bad,error", [("2.8", ConfigError), ("3.0.1", ConfigError), ("four", ConfigError),
                                       ("", ConfigError), (4.4, TypeError)])
def test_kafka_version_is_checked(bad, error):
    with pytest.raises(error) as e:
        LogCleaner(kafka_version=bad)
    if bad in ("2.8", "3.0.1"):
        assert "KIP-534" in str(e.value)


def test_v0_v1_entries_become_v2_batches_as_kafka_4_writes_them(tmp_path):
    log = open_log(tmp_path / "t-0")
    legacy(log, 0, [Record(b"a", b"a0"), Record(b"b", None), Record(None, b"x")])    # 0..2: three v0 messages
    legacy(log, 1, [Record(b"c", b"c3", T0 + 3), Record(b"a", b"a4", T0 + 4), Record(b"d", b"d5", T0 + 5)],
           "gzip", lat=T0 + 9)                                                          # 3..5: a v1 LAT wrapper
    legacy(log, 1, [Record(b"c", b"c6", T0 + 6), Record(b"e", None, T0 + 7)], "snappy")  # 6..7: kept whole
    log.roll()
    log.append([Record(b"z", b"z", T0 + 8)])
    LogCleaner(1 << 20).clean(log, now_ms=NOW)
    hz = NOW + 1000
    assert [shape(b) for b in batches(log)] == [
        # v0 becomes CreateTime with its -1 timestamps; a kept tombstone gets a delete horizon
        (2, 0, 0, 1, 1, -1, -1, hz, -1, [(1, b"b", None, -1)]),
        # the LAT wrapper keeps its time; base and last offset are the first and last kept records'
        (2, 1, 1, 4, 5, -1, -1, None, T0 + 9, [(4, b"a", b"a4", T0 + 9), (5, b"d", b"d5", T0 + 9)]),
        # an entry whose records all stay is rewritten too
        (2, 2, 0, 6, 7, -1, -1, hz, T0 + 7, [(6, b"c", b"c6", T0 + 6), (7, b"e", None, T0 + 7)]),
        (2, 0, 0, 8, 8, -1, -1, None, T0 + 8, [(8, b"z", b"z", T0 + 8)]),
    ]
    log.close()


def test_kafka_3_keeps_the_magic_and_drops_old_v0_v1_tombstones(tmp_path):
    """Before 4.0 the entries keep their magic; their tombstones have no delete horizon and go once their segment
    is no newer than the last clean one less delete.retention.ms."""
    cleaner = LogCleaner(1 << 20, kafka_version="3.7")
    log = open_log(tmp_path / "t-0", delete_retention_ms=0)
    legacy(log, 1, [Record(b"a", b"a0", T0), Record(b"b", None, T0 + 1)])
    legacy(log, 1, [Record(b"a", b"a2", T0 + 2)])
    log.roll()
    legacy(log, 1, [Record(b"c", None, T0 + 3)])
    log.roll()
    mtimes = [T0 // 1000 + 10, T0 // 1000 + 20, T0 // 1000 + 30]
    for seg, t in zip(log.segments, mtimes):
        os.utime(seg.log_path, (t, t))
    cleaner.clean(log, now_ms=NOW)  # no clean segment yet: every tombstone that is the latest stays
    assert [(b.magic, [(r.offset, r.value) for r in b.records()]) for b in batches(log)] == [
        (1, [(1, None)]), (1, [(2, b"a2")]), (1, [(3, None)])]
    legacy(log, 1, [Record(b"d", b"d4", T0 + 4), Record(b"e", None, T0 + 5)])
    log.roll()
    os.utime(log.segments[-2].log_path, (mtimes[2] + 10, mtimes[2] + 10))
    # the clean segment (modified at 20, its last source's time) is the horizon: its tombstones (1 and 3) go;
    # the one in the newer dirty segment (modified at 40) stays
    cleaner.clean(log, now_ms=NOW)
    assert [(b.magic, [(r.offset, r.value) for r in b.records()]) for b in batches(log)] == [
        (1, [(2, b"a2")]), (1, [(4, b"d4")]), (1, [(5, None)])]
    log.close()


@pytest.mark.parametrize("kafka_version,empty_kept", [("4.4", False), ("4.1", True), ("3.7", False)])
def test_keyless_records_before_the_first_uncleanable_offset_go(tmp_path, kafka_version, empty_kept):
    log = open_log(tmp_path / "t-0")
    log.append([Record(b"a", b"a0", T0), Record(b"b", b"b1", T0 + 1)])
    log.append([Record(None, b"x2", T0 + 2), Record(None, b"x3", T0 + 3)])  # ends the pass
    log.roll()
    log.append([Record(b"c", b"c4", T0 + 4)])
    LogCleaner(1 << 20, kafka_version=kafka_version).clean(log, now_ms=NOW)
    assert [(r.offset, r.key) for r in log.records()] == [(0, b"a"), (1, b"b"), (4, b"c")]
    spans = [(b.base_offset, b.last_offset, b.record_count) for b in batches(log)]
    assert spans == [(0, 1, 2)] + ([(2, 3, 0)] if empty_kept else []) + [(4, 4, 1)]
    assert log.log_end_offset == 5
    log.close()


# ------------------------------------------------------------------------------------------ which log is cleaned
def test_bytes_held_back_by_the_compaction_lag_are_not_dirty(tmp_path):
    """Kafka's cleanable ratio counts only what a pass may clean: a log whose dirty segments are all younger than
    min.compaction.lag.ms is not picked (kvlog counted every non-active byte past the checkpoint as dirty, picked
    it, and its pass removed tombstones whose horizon had passed, which the broker's never ran to remove)."""
    log = open_log(tmp_path / "t-0", min_compaction_lag_ms=600_000, min_cleanable_dirty_ratio=0.01,
                   delete_retention_ms=0)
    log.append([Record(b"a", b"a0", NOW - 7_200_000), Record(b"a", None, NOW - 7_200_000)])
    log.roll()
    log.append([Record(b"b", b"b2", NOW - 60_000)])  # younger than the lag
    log.roll()
    log.append([Record(b"c", b"c3", NOW - 1000)])
    cleaner = LogCleaner(1 << 20)
    assert cleaner.clean_filthiest([log], now_ms=NOW) is not None  # the old segment: cleaned up to the young one
    assert [(r.offset, r.value) for r in log.records()] == [(1, None), (2, b"b2"), (3, b"c3")]
    assert cleaner.dirty_ratio(log, NOW) == 0.0
    assert cleaner.clean_filthiest([log], now_ms=NOW + 1) is None  # the tombstone's horizon passed: not picked
    assert [(r.offset, r.value) for r in log.records()] == [(1, None), (2, b"b2"), (3, b"c3")]
    log.close()


def test_a_ratio_equal_to_the_minimum_is_not_picked(tmp_path):
    """Kafka cleans a log whose cleanable ratio is above min.cleanable.dirty.ratio, not at it."""
    log = open_log(tmp_path / "t-0", min_cleanable_dirty_ratio=0.5)
    log.append([Record(b"a", b"0123456789", NOW)])
    log.roll()
    LogCleaner(1 << 20).clean(log, now_ms=NOW)
    clean = log.segments[0].size_in_bytes
    log.append([Record(b"a", b"0123456789", NOW)])  # a dirty segment exactly as large as the clean one
    log.roll()
    log.append([Record(b"z", b"z", NOW)])
    assert log.segments[1].size_in_bytes == clean
    cleaner = LogCleaner(1 << 20)
    assert cleaner.dirty_ratio(log, NOW) == 0.5
    assert cleaner.clean_filthiest([log], now_ms=NOW) is None
    log.close()


def test_max_compaction_lag_looks_at_every_dirty_segment(tmp_path):
    """Kafka's maxCompactionDelay takes the earliest first-batch timestamp of all dirty non-active segments, not
    only the first one's."""
    log = open_log(tmp_path / "t-0", min_cleanable_dirty_ratio=0.99, max_compaction_lag_ms=3_600_000)
    for i in range(20):
        log.append([Record(b"k%d" % i, b"v", NOW - 60_000)])
    log.roll()
    LogCleaner(1 << 20).clean(log, now_ms=NOW)
    log.append([Record(b"a", b"a", NOW - 60_000)])    # the first dirty segment: young
    log.roll()
    log.append([Record(b"b", b"b", NOW - 7_200_000)])  # a later dirty segment: past max.compaction.lag.ms
    log.roll()
    log.append([Record(b"z", b"z", NOW)])
    assert LogCleaner(1 << 20).clean_filthiest([log], now_ms=NOW) is not None
    log.close()


@pytest.mark.parametrize("flag,magics", [([], {2}), (["--kafka-version", "3.7"], {1, 2})])
def test_kvlog_compact_kafka_version(tmp_path, flag, magics):
    from kvlog.cli import main as cli_main

    log = open_log(tmp_path / "t-0")
    legacy(log, 1, [Record(b"a", b"a0", T0), Record(b"b", b"b1", T0 + 1)], "gzip")
    legacy(log, 1, [Record(b"a", b"a2", T0 + 2)])
    log.roll()
    log.append([Record(b"z", b"z", T0 + 3)])
    log.close()
    assert cli_main(["compact", str(tmp_path / "t-0"), "--config", "cleanup.policy=compact", "--now", str(NOW),
                     *flag]) == 0
    with open_log(tmp_path / "t-0") as log:
        assert {b.magic for b in batches(log)} == magics
        assert [(r.offset, r.value) for r in log.records()] == [(1, b"b1"), (2, b"a2"), (3, b"z")]


def test_kvlog_compact_refuses_a_kafka_version_before_kip_534(tmp_path, capfd):
    from kvlog.cli import main as cli_main

    assert cli_main(["compact", str(tmp_path), "--kafka-version", "2.8"]) == 2  # a usage error
    assert "KIP-534" in capfd.readouterr().err
