"""The log package's parts on their own: the ordered segment collection and retention as a question."""

import pytest

from kvlog import LogConfig, Record
from kvlog.errors import KvlogError
from kvlog.log import Log, LogSegments
from kvlog.log.retention import deletable_segments

T0 = 1_700_000_000_000


class _Seg:
    def __init__(self, base):
        self.base_offset = base


def test_log_segments_keep_base_offset_order_and_floor_lookups():
    segs = LogSegments()
    a, b, c = _Seg(0), _Seg(100), _Seg(50)
    assert [segs.add(s) for s in (a, b, c)] == [0, 1, 1]
    assert list(segs) == [a, c, b] and segs.bases == [0, 50, 100]
    assert [segs.floor_index(o) for o in (-1, 0, 49, 50, 99, 100, 10**9)] == [0, 0, 0, 1, 1, 2, 2]
    assert segs.lower_base(50) == 0 and segs.lower_base(0) is None and segs.lower_base(101) == 100
    with pytest.raises(ValueError):
        segs.add(_Seg(50))
    segs.remove(c)
    assert segs.bases == [0, 100]
    assert segs.pop() is b and segs.bases == [0]
    segs.add(b)
    del segs[1:]
    assert list(segs) == [a] and segs.bases == [0]
    segs.clear()
    assert not segs and segs.bases == []


@pytest.mark.parametrize("change", [lambda s: s.append(_Seg(1)), lambda s: s.insert(0, _Seg(1)),
                                    lambda s: s.extend([_Seg(1)]), lambda s: s.sort(),
                                    lambda s: s.__setitem__(0, _Seg(1))])
def test_log_segments_refuse_changes_that_could_break_the_order(change):
    segs = LogSegments([_Seg(0)])
    with pytest.raises(TypeError):
        change(segs)
    assert segs.bases == [0]


def test_a_log_refuses_a_second_segment_at_the_same_base_offset(tmp_path):
    with Log.open(tmp_path / "t-0") as log:
        with pytest.raises(KvlogError, match="duplicate segment base offset"):
            log._add_segment(log._new_segment(0))


def test_retention_answer_changes_nothing_and_matches_what_deletion_does(tmp_path):
    clock = [T0]
    cfg = LogConfig(segment_bytes=300, retention_ms=10_000, retention_bytes=700)
    log = Log.open(tmp_path / "t-0", cfg, time=lambda: clock[0])
    for i in range(12):
        log.append([Record(b"k", b"x" * 100, T0 + i * 1000)])
    clock[0] = T0 + 14_500
    log.delete_records(log.segments[1].base_offset + 1)
    before = log.segments
    doomed = deletable_segments(before, log.config, clock[0], log_start_offset=log.log_start_offset,
                                high_watermark=log.high_watermark, log_end_offset=log.log_end_offset)
    assert log.segments == before and doomed == before[:len(doomed)] and len(doomed) > 1
    assert log.delete_old_segments(clock[0]) == len(doomed)
    assert log.segments == before[len(doomed):]
    log.close()
