"""Retention rules the brokers showed (tests/test_broker_retention.py), without a broker."""

import os

import pytest

from kvlog import LogConfig, Record, encode_batch
from kvlog.log import Log

NOW = 1_700_000_000_000
HOUR = 3_600_000


@pytest.mark.parametrize("empty_age,deleted", [(2 * HOUR, [0, 3, 8]), (10 * 60_000, [0])])
def test_an_empty_segment_between_others_ages_by_its_mtime(tmp_path, empty_age, deleted):
    """An empty segment left between two others (a roll past an offset gap) has no timestamp: a broker ages it by
    its modification time, deletes it when that is past retention.ms and goes on with the next segment; kvlog
    stopped at it, keeping every older segment after it."""
    log = Log.open(tmp_path / "t-0", LogConfig(retention_ms=HOUR), time=lambda: NOW)
    old = [Record(b"k", b"v", NOW - 2 * HOUR)] * 3
    log.append(old)
    log.roll()                       # the empty segment at 3
    log.roll(8)                      # an offset gap: 3 stays empty
    log.append(encode_batch(old, base_offset=8), assign_offsets=False)
    log.roll()
    log.append([Record(b"k", b"v", NOW - 60_000)])
    t = (NOW - empty_age) / 1000
    os.utime(log.segments[1].log_path, (t, t))
    before = [s.base_offset for s in log.segments]
    assert before == [0, 3, 8, 11]
    assert log.delete_old_segments(NOW) == len(deleted)
    assert [s.base_offset for s in log.segments] == [b for b in before if b not in deleted]
    assert log.log_start_offset == log.segments[0].base_offset
    log.close()
