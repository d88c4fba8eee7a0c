"""The shared chunked batch walk (``kvlog._walk``): big batches, torn tails, window boundaries."""

import os
import tempfile

import pytest

from kvlog._core import records as _k
from kvlog._walk import BatchWalk
from kvlog.errors import CorruptRecordError
from kvlog.log import Log
from kvlog.records import Record


def _segment(tmp_path, values):
    log = Log.open(str(tmp_path / "t-0"))
    for v in values:
        log.append([Record(key=b"k", value=v)])
    return log


def _frame_all(fd, start, end, chunk, **kw):
    """(position, size) of every batch the walk frames, plus the window sizes it read."""
    import numpy as np
    out = np.empty(1024, dtype=_k.BATCH_DTYPE)
    seen, windows = [], []
    walk = BatchWalk(fd, start, end, chunk, **kw)
    for pos, data in walk:
        windows.append(len(data))
        count, nxt, _, error = _k.scan(data, 0, len(data), out, False, False)
        assert error is None
        seen += [(pos + int(h["position"]), int(h["size"])) for h in out[:count]]
        walk.advance(nxt)
    return seen, windows


def test_a_window_ending_on_a_batch_boundary_goes_on(tmp_path):
    """``iter_headers`` used to stop when a window ended exactly where a batch did (scan status END)."""
    log = _segment(tmp_path, [b"v" * 50] * 10)
    seg = log.segments[0]
    size = int(next(iter(seg.iter_headers()))["size"][0])
    for chunk in (size, 2 * size, 3 * size, size + 1):
        assert sum(len(h) for h in seg.iter_headers(chunk=chunk)) == 10
    log.close()


@pytest.mark.parametrize("reuse", [False, True])
def test_a_batch_larger_than_the_window_is_read_whole(tmp_path, reuse):
    log = _segment(tmp_path, [b"a" * 10, b"b" * 5000, b"c" * 10])
    seg = log.segments[0]
    expected = [(int(h["position"]), int(h["size"])) for hs in seg.iter_headers() for h in hs]
    seen, windows = _frame_all(seg.fileno, 0, seg.size_in_bytes, 100, buffer=bytearray(10) if reuse else None)
    assert seen == expected
    assert max(windows) >= expected[1][1]
    log.close()


@pytest.mark.parametrize("tail", [b"\0" * 5, b"\0" * 8 + (10_000).to_bytes(4, "big") + b"\0" * 20,
                                  b"\0" * 8 + (-1).to_bytes(4, "big", signed=True) + b"\0" * 5])
def test_a_torn_tail_ends_the_walk_or_raises_when_strict(tmp_path, tail):
    log = _segment(tmp_path, [b"v" * 50] * 3)
    seg = log.segments[0]
    expected = [(int(h["position"]), int(h["size"])) for hs in seg.iter_headers() for h in hs]
    good = seg.size_in_bytes
    log.close()
    path = seg.log_path
    with open(path, "ab") as f:
        f.write(tail)
    fd = os.open(path, os.O_RDONLY)
    try:
        end = good + len(tail)
        for chunk in (64, 1 << 20):
            assert _frame_all(fd, 0, end, chunk)[0] == expected
            with pytest.raises(CorruptRecordError, match=f"incomplete batch in x at position {good}"):
                _frame_all(fd, 0, end, chunk, strict=True, path="x", buffer=bytearray())
    finally:
        os.close(fd)


def test_an_empty_range_yields_nothing():
    fd, path = tempfile.mkstemp()
    try:
        assert list(BatchWalk(fd, 0, 0, 1024)) == []
        assert list(BatchWalk(fd, 0, 100, 0)) == []
    finally:
        os.close(fd)
        os.unlink(path)


def test_recovery_keeps_batches_past_a_window_that_ends_on_a_batch_boundary(tmp_path):
    """Batches of exactly 64 KiB put a 1 MiB read window's end on a batch boundary; recovery used to stop
    there and set the rest of the segment aside (16 of 40 records kept)."""
    from kvlog import Log, Record

    path = tmp_path / "t-0"
    log = Log.open(str(path))
    for i in range(40):
        log.append([Record(b"k", bytes([65 + i % 26]) * 65463)])
    sizes = {seg.size_in_bytes for seg in log.segments}
    log.flush()
    log.close()
    assert sizes == {40 * 65536}  # the batches are 64 KiB each, so 1 MiB ends on a boundary
    for name in os.listdir(tmp_path):
        if name.startswith("recovery-point"):
            os.unlink(tmp_path / name)  # an unclean stop: the whole segment is recovered
    for name in os.listdir(path):
        if name.endswith((".index", ".timeindex")):
            os.unlink(path / name)
    with Log.open(str(path)) as log:
        assert log.log_end_offset == 40
        assert [r.value[:1] for r in log.records()] == [bytes([65 + i % 26]) for i in range(40)]
        assert log.quarantined == []
