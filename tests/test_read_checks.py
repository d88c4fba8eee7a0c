"""Reads cross-check offsets too (issue 13): a batch whose offsets do not follow its neighbour's is never
returned, even in a segment the open trusted (below the recovery point, as Kafka trusts it).

Either of two batches that disagree may carry the damaged field, so a fetch stops before both; a fetch
that starts at the first of them fails with a ``CorruptRecordError`` naming the file and position.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog._core import point as _p
from kvlog.errors import CorruptRecordError
from kvlog.log import Log

T0 = 1_700_000_000_000
SEG0 = f"{0:020d}.log"
CFG = LogConfig(segment_bytes=4096)


def clock() -> int:
    return T0 + 60_000


def build(d: Path, codec: str = "none", magic: int = 2) -> None:
    """30 batches of 10 records over several segments, flushed and closed cleanly."""
    log = Log.open(d, CFG, time=clock)
    for b in range(30):
        recs = [Record(b"k%d" % (b * 10 + j), b"value-%d" % (b * 10 + j), T0 + b * 10 + j) for j in range(10)]
        log.append(kvlog.encode_batch(recs, magic=magic, compression=codec, base_offset=log.log_end_offset),
                   assign_offsets=False)
    log.close()
    assert len(list(d.glob("*.log"))) > 1


def flip(path: Path, batch: int, byte: int, mask: int) -> int:
    data = bytearray(path.read_bytes())
    pos = list(kvlog.MemoryRecords(bytes(data)).batches())[batch].position
    data[pos + byte] ^= mask
    path.write_bytes(bytes(data))
    return pos


def read_all(log: Log) -> tuple[list[int], CorruptRecordError | None]:
    """Offsets returned by a records() walk, and the error that stopped it."""
    got: list[int] = []
    try:
        for r in log.records():
            got.append(r.offset)
    except CorruptRecordError as exc:
        return got, exc
    return got, None


def fetch_all(log: Log, max_bytes: int) -> tuple[list[int], CorruptRecordError | None]:
    """Offsets returned by a consumer's fetch loop of ``max_bytes`` fetches."""
    got: list[int] = []
    offset = log.log_start_offset
    try:
        while offset < log.log_end_offset:
            mr = log.read(offset, max_bytes)
            got += [r.offset for r in mr.records()]
            offset = mr.next_offset
    except CorruptRecordError as exc:
        return got, exc
    return got, None


# byte 5 raises the base offset by 65536 (the case); byte 7 mask 8 lowers 50 to 58 (a step back)
@pytest.mark.parametrize("byte,mask", [(5, 1), (7, 8), (7, 1)])
@pytest.mark.parametrize("read_only", [True, False])
def test_reads_never_return_a_batch_that_contradicts_its_neighbour(tmp_path, byte, mask, read_only):
    d = tmp_path / "t-0"
    build(d)
    flip(d / SEG0, 5, byte, mask)
    starts = [b.position for b in kvlog.MemoryRecords((d / SEG0).read_bytes()).batches()]
    log = Log.open(d, CFG, time=clock, read_only=read_only)
    try:
        assert log.recovery_point > 60  # the damaged segment is below it: the open trusts it
        for got, exc in (read_all(log), fetch_all(log, 1 << 20), fetch_all(log, 1)):
            assert exc is not None
            assert exc.file is not None and exc.file.endswith(SEG0)
            assert exc.position in starts[4:7]  # the damaged batch or a neighbour that contradicts it
            assert "outside the CRC" in str(exc)
            # an exact prefix of what was written: never an offset from the damaged field
            assert got == list(range(len(got)))
            assert len(got) >= 40  # batches 0..3 are returned (4 or 5 may be withheld with the damage)
        with pytest.raises(CorruptRecordError, match="outside the CRC"):
            log.read(50, 1 << 20)
        assert list(log.read(0, 1 << 20).records())[-1].offset < 50 + 10
    finally:
        log.close()


def test_time_search_stops_at_a_step_back(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    flip(d / SEG0, 5, 5, 1)
    log = Log.open(d, CFG, time=clock, read_only=True)
    try:
        assert log.offset_for_timestamp(T0 + 20).offset == 20  # before the damage: answered
        with pytest.raises(CorruptRecordError, match="outside the CRC"):
            log.offset_for_timestamp(T0 + 65)
    finally:
        log.close()


def test_an_intact_log_reads_whole_in_every_fetch_size(tmp_path):
    d = tmp_path / "t-0"
    build(d, codec="gzip")
    log = Log.open(d, CFG, time=clock, read_only=True)
    try:
        for size in (1, 200, 1 << 20):
            got, exc = fetch_all(log, size)
            assert exc is None and got == list(range(300))
    finally:
        log.close()


def _batches(*bases: tuple[int, int]) -> bytes:
    return b"".join(kvlog.encode_batch([Record(b"k", b"v", T0)] * n, base_offset=b) for b, n in bases)


def test_kernel_cut_withholds_both_batches_around_a_step_back():
    buf = _batches((0, 2), (2, 2), (100, 2), (6, 2))  # the third's base offset is damaged (or the fourth's)
    sizes = [len(_batches((0, 2)))] * 4
    f = _p.find_batch(buf, 0, len(buf))
    assert f[0] == _p.FOUND and f[7] == 2 * sizes[0] and f[9] == 3  # batches 0 and 1 only
    with pytest.raises(CorruptRecordError, match=r"previous batch's last offset 101") as exc:
        _p.find_batch(buf[f[7]:], 4, len(buf))
    assert exc.value.position == sizes[0]  # the fourth batch, relative to the window
    with pytest.raises(CorruptRecordError, match="outside the CRC"):
        _p.find_batch(buf, 5, len(buf))  # the walk itself passes the step back
    with pytest.raises(CorruptRecordError, match="outside the CRC"):
        _p.find_timestamp(buf, T0 + 1, 5)
    # alone (a fetch smaller than the batch): the successor's header still decides
    with pytest.raises(CorruptRecordError, match="outside the CRC"):
        _p.find_batch(buf[2 * sizes[0]:], 4, 1)
    # the generic helper does not judge: it only frames
    assert _p.whole_batches(buf, len(buf))[1] == 7


def test_kernel_accepts_gaps_of_a_compacted_log():
    buf = _batches((0, 2), (10, 1), (11, 3), (500, 1))
    f = _p.find_batch(buf, 0, len(buf))
    assert f[0] == _p.FOUND and f[7] == len(buf) and f[9] == 500


def test_an_index_hint_at_the_last_fetch_end_is_not_a_continuation(tmp_path):
    """A fetch from inside the batch where the previous fetch ended starts from the index hint, which may
    be that same position: the batch there starts before the offset asked for, as it should (seen as a
    false CorruptRecordError while a writer appended and a reader fetched at random offsets)."""
    log = Log.open(tmp_path / "t-0", LogConfig(index_interval_bytes=1), time=clock)  # every batch indexed
    for b in range(4):
        log.append(kvlog.encode_batch([Record(b"k", b"v%d" % j, T0 + 3 * b + j) for j in range(3)]))
    first = log.read(0, 1)  # exactly the first batch [0..2]: the next fetch would continue at offset 3
    assert first.batch_headers()["last_offset"].tolist() == [2]
    got = log.read(5, 1)  # the index's entry for offset 5 points at the batch [3..5]
    assert got.batch_headers()["base_offset"].tolist() == [3]
    assert log.read(6, 1 << 20).batch_headers()["base_offset"].tolist() == [6, 9]
    log.close()
