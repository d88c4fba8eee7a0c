"""Recovery sets aside what it cannot trust; ``kvlog repair`` rewrites only proven fields (issue 13).

The first cases are the issue's own: 400 records in 20 batches of 20, one bit flipped in byte 5 (or
7) of batch 5's base offset, magic 2 and magic 1 gzip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
from pathlib import Path

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.cli import main
from kvlog.verify import verify_partition
from kvlog.damage import DataLossWarning
from kvlog.errors import CorruptRecordError, LogLockedError
from kvlog.log import Log
from kvlog.repair import repair_partition

T0 = 1_700_000_000_000
SEG0 = f"{0:020d}.log"


def clock() -> int:
    return T0 + 60_000


def build(d: Path, magic: int = 2, codec: str = "none", batches: int = 20, cfg: LogConfig | None = None) -> None:
    log = Log.open(d, cfg or LogConfig(), time=clock)
    for b in range(batches):
        recs = [Record(b"k%d" % (b * 20 + j), b"value-%d" % (b * 20 + j), T0 + b, [("h", b"%d" % b)] if magic == 2 else [])
                for j in range(20)]
        log.append(kvlog.encode_batch(recs, magic=magic, compression=codec, base_offset=log.log_end_offset,
                                      partition_leader_epoch=b // 5 if magic == 2 else -1), assign_offsets=False)
    log.close()


def rows(d: Path, **kw) -> list[tuple]:
    log = Log.open(d, LogConfig(), time=clock, **kw)
    try:
        return [(r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in log.records()]
    finally:
        log.close()


def rows_around_damage(d: Path) -> list[tuple]:
    """A reader of durable data with a damaged batch: an error by default (found at open, or, in a segment that
    ends at its recovery point and is trusted at open, where the read reaches it), the rows before it when
    asked (a skipping reader audits every segment at open)."""
    with pytest.raises(CorruptRecordError, match="below what the log directory says is durable|a field outside "
                                                 "the CRC is damaged"):
        rows(d, read_only=True)
    with pytest.warns(DataLossWarning):
        return rows(d, read_only=True, on_damage="skip")


def flip(path: Path, batch: int, byte: int, mask: int = 1) -> int:
    data = bytearray(path.read_bytes())
    pos = list(kvlog.MemoryRecords(bytes(data)).batches())[batch].position
    data[pos + byte] ^= mask
    path.write_bytes(bytes(data))
    return pos


def tree(d: Path) -> dict[str, str]:
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(d.iterdir()) if p.is_file()}


@pytest.mark.parametrize("magic,codec,byte", [(2, "none", 5), (2, "none", 7), (1, "gzip", 5), (1, "none", 7)])
def test_issue_case_sets_aside_then_repair_restores_every_record(tmp_path, magic, codec, byte):
    d = tmp_path / "t-0"
    build(d, magic, codec)
    written = rows(d, read_only=True)
    assert len(written) == 400
    # magic 1 uncompressed: one message per "batch"; damage message 100 (the first of batch 5)
    pos = flip(d / SEG0, 100 if (magic, codec) == (1, "none") else 5, byte)
    # the reader, before any writer touched the files, raises at the damage (or skips it when asked); the
    # writer sets the bytes from there aside and sees the same 100 records the skipping reader does
    ro = rows_around_damage(d)
    assert ro == written[:100]
    rw = rows(d)
    assert rw == ro
    q = d / f"{SEG0}.{pos}.quarantined"
    assert q.exists() and (d / SEG0).stat().st_size == pos  # cut there, and nothing deleted
    log = Log.open(d, LogConfig(), read_only=True)
    assert log.quarantined == [str(q)] and log.log_end_offset == 100
    log.close()
    rep = verify_partition(str(d), "t", 0)
    assert not rep.errors and any("set aside from position" in w.message for w in rep.warnings)
    # repair: the neighbours prove the base offset; the set-aside bytes rejoin the segment
    before = tree(d)
    dry = repair_partition(str(d), "t", 0, dry_run=True)
    assert tree(d) == before and dry.restored and dry.patched
    done = repair_partition(str(d), "t", 0)
    assert done.ok and done.patched == dry.patched and len(done.restored) == 1
    assert any(k.endswith(".repaired") for k in done.kept)
    assert rows(d) == written
    assert not verify_partition(str(d), "t", 0).errors


def test_verify_names_the_field_and_the_proven_value(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    pos = flip(d / SEG0, 5, 5)
    rep = verify_partition(str(d), "t", 0)
    msgs = [p.message for p in rep.errors if p.position == pos]
    assert any(f"base offset of the batch at position {pos} contradicts its neighbours: expected 100 (proven), "
               "found 65636" in m for m in msgs), msgs
    assert rep.next_offset == 100  # what a log open would see, not the damaged batch's offsets


def test_repair_in_place_before_any_writer_open(tmp_path, capfd):
    """A broker's backup: nothing has been cut yet; repair patches the segment itself."""
    d = tmp_path / "t-0"
    build(d)
    written = rows(d, read_only=True)
    flip(d / SEG0, 3, 7, 0x04)
    flip(d / SEG0, 12, 6, 0x10)
    assert main(["repair", str(d)]) == 0
    out = capfd.readouterr().out
    assert "rewrite" in out and "base offset" in out and "kept the original bytes" in out
    assert rows(d, read_only=True) == written and rows(d) == written
    assert (d / f"{SEG0}.repaired").exists()


@pytest.mark.parametrize("what", ["length-short", "length-long", "length-past-eof", "magic", "last-length"])
def test_lengths_and_magic_are_proven_by_the_crc(tmp_path, what):
    d = tmp_path / "t-0"
    build(d)
    written = rows(d, read_only=True)
    batch, byte, mask = {"length-short": (7, 11, 0x01), "length-long": (7, 10, 0x01),
                         "length-past-eof": (7, 9, 0x40), "magic": (7, 16, 0x01), "last-length": (19, 10, 0x02)}[what]
    pos = flip(d / SEG0, batch, byte, mask)
    field = "magic" if what == "magic" else "batch length"
    rep = verify_partition(str(d), "t", 0)
    assert any(p.position == pos and p.message.startswith(field) and "(proven)" in p.message for p in rep.errors)
    assert rows(d) == written[:batch * 20]
    assert repair_partition(str(d), "t", 0).ok
    assert rows(d) == written


def test_epoch_flip_keeps_the_records_and_is_repaired(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    written = rows(d, read_only=True)
    pos = flip(d / SEG0, 7, 13, 0x20)  # epoch 1 -> 8193, between two batches of epoch 1
    assert rows(d) == written  # the records themselves are intact: nothing is cut
    rep = verify_partition(str(d), "t", 0)
    assert any(p.position == pos and p.message.startswith("partition leader epoch") for p in rep.errors)
    assert repair_partition(str(d), "t", 0).ok
    log = Log.open(d, LogConfig(), read_only=True)
    assert [b.partition_leader_epoch for b in log.read(140).batches()][0] == 1
    log.close()
    assert not verify_partition(str(d), "t", 0).errors


def test_unproven_damage_stays_set_aside(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    written = rows(d, read_only=True)
    pos = flip(d / SEG0, 5, 40)  # inside the CRC-covered header: no value can be proven
    assert rows(d) == written[:100]
    q = d / f"{SEG0}.{pos}.quarantined"
    before = q.read_bytes()
    rep = repair_partition(str(d), "t", 0)
    assert not rep.ok and rep.remaining and not rep.restored
    assert q.read_bytes() == before
    assert main(["repair", str(d)]) == 1


def test_repair_refuses_an_open_writer_and_a_log_that_moved_on(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    pos = flip(d / SEG0, 5, 5)
    log = Log.open(d, LogConfig(), time=clock)  # recovery cuts at pos
    with pytest.raises(LogLockedError):
        repair_partition(str(d), "t", 0)
    log.append([Record(b"new", b"after recovery", T0 + 50)])
    log.close()
    rep = repair_partition(str(d), "t", 0)
    assert not rep.ok and any("moved on" in r for r in rep.remaining)
    assert (d / f"{SEG0}.{pos}.quarantined").exists()


def test_whole_segments_set_aside_after_a_cut_come_back(tmp_path):
    d = tmp_path / "t-0"
    build(d, cfg=LogConfig(segment_bytes=3000))
    written = rows(d, read_only=True)
    segs = sorted(d.glob("*.log"))
    assert len(segs) >= 4
    # an unclean shutdown with the recovery point at 0: every segment is recovered
    (tmp_path / "recovery-point-offset-checkpoint").write_text("0\n1\nt 0 0\n")
    flip(segs[1], 1, 6, 0x02)
    got = rows(d)
    assert got == written[:len(got)] and len(got) < 400
    assert list(d.glob("*.log.quarantined"))
    rep = repair_partition(str(d), "t", 0)
    assert rep.ok and len(rep.restored) >= 2
    assert rows(d) == written


def test_compacted_logs_allow_gaps(tmp_path):
    """A log that may have been compacted keeps batches after an offset gap: a gap is not damage there."""
    d = tmp_path / "t-0"
    log = Log.open(d, LogConfig(cleanup_policy="compact"), time=clock)
    for base in (0, 10, 11, 40):
        log.append(kvlog.encode_batch([Record(b"k", b"v", T0)], base_offset=base), assign_offsets=False)
    log.close()
    log = Log.open(d, LogConfig(cleanup_policy="compact"), time=clock)
    assert [r.offset for r in log.records()] == [0, 10, 11, 40]
    log.close()
    # under the default (delete) policy the same gaps are not one isolated anomaly either: kept
    assert [r[0] for r in rows(d)] == [0, 10, 11, 40]
    assert not os.listdir(d) or not list(d.glob("*.quarantined"))


def test_dense_log_tail_gap_is_set_aside(tmp_path):
    """The last batch's base offset flipped upward: a never-compacted log has no gaps, so it is cut."""
    d = tmp_path / "t-0"
    build(d)
    written = rows(d, read_only=True)
    pos = flip(d / SEG0, 19, 3, 0x01)
    rep = verify_partition(str(d), "t", 0)
    assert any(p.position == pos and p.message.startswith("base offset") for p in rep.errors)
    assert rows_around_damage(d) == written[:380] == rows(d)
    assert (d / f"{SEG0}.{pos}.quarantined").exists()


def test_set_aside_bytes_are_never_counted(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    flip(d / SEG0, 10, 5)
    log = Log.open(d, LogConfig(), time=clock)
    assert log.log_end_offset == 200 and log.size_in_bytes == (d / SEG0).stat().st_size
    log.append([Record(b"x", b"y", T0 + 30)])
    assert [r.offset for r in log.records()][-1] == 200
    log.close()
    shutil.rmtree(d)


def test_legacy_offset_field_is_eight_bytes(tmp_path):
    """v0/v1: the offset and size before each message are outside its CRC, and are checked the same way."""
    d = tmp_path / "t-0"
    build(d, magic=0, batches=3)
    written = rows(d, read_only=True)
    data = bytearray((d / SEG0).read_bytes())
    pos = list(kvlog.MemoryRecords(bytes(data)).batches())[30].position
    data[pos:pos + 8] = struct.pack(">q", 31)
    (d / SEG0).write_bytes(bytes(data))
    assert rows(d) == written[:30]
    assert repair_partition(str(d), "t", 0).ok
    assert rows(d) == written


def test_offset_index_entry_is_evidence_in_a_compacted_log(tmp_path):
    """Gaps are legal after compaction; an offset index entry at the batch still says where it ends."""
    d = tmp_path / "t-0"
    cfg = LogConfig(cleanup_policy="compact", index_interval_bytes=1)
    log = Log.open(d, cfg, time=clock)
    for base in (0, 10, 20, 40, 45):
        log.append(kvlog.encode_batch([Record(b"k", b"v", T0)] * 2, base_offset=base), assign_offsets=False)
    log.close()
    pos = flip(d / SEG0, 4, 4, 0x01)  # the last batch: 45 -> 45 + 2**24, a gap a compacted log may have
    with Log.open(d, cfg, read_only=True, time=clock) as log, pytest.raises(CorruptRecordError):
        list(log.records())  # a reader: damage in durable data is an error...
    with Log.open(d, cfg, read_only=True, on_damage="skip", time=clock) as log, pytest.warns(DataLossWarning):
        assert [r.offset for r in log.records()] == [0, 1, 10, 11, 20, 21, 40, 41]  # ...or a reported skip
    with Log.open(d, cfg, time=clock) as log:
        assert [r.offset for r in log.records()] == [0, 1, 10, 11, 20, 21, 40, 41]  # a writer sets it aside
    assert (d / f"{SEG0}.{pos}.quarantined").exists()
    # without the index nothing contradicts that batch in a compacted log (the README's stated limit)
    shutil.rmtree(tmp_path / "u", ignore_errors=True)
    u = tmp_path / "u" / "t-0"
    log = Log.open(u, cfg, time=clock)
    for base in (0, 10, 20, 40, 45):
        log.append(kvlog.encode_batch([Record(b"k", b"v", T0)] * 2, base_offset=base), assign_offsets=False)
    log.close()
    flip(u / SEG0, 4, 4, 0x01)
    (u / f"{0:020d}.index").unlink()
    log = Log.open(u, cfg, read_only=True, time=clock)
    assert [r.offset for r in log.records()][-2:] == [45 + 2**24, 46 + 2**24]
    log.close()


def test_producer_snapshot_is_evidence(tmp_path):
    """An idempotent producer's last batch: the snapshot (CRC-protected) records where it ends."""
    d = tmp_path / "t-0"
    cfg = LogConfig(cleanup_policy="compact")
    log = Log.open(d, cfg, time=clock)
    for i, base in enumerate((0, 10, 20, 40)):
        log.append(kvlog.encode_batch([Record(b"k", b"v%d" % i, T0)] * 2, base_offset=base, producer_id=9,
                                      producer_epoch=0, base_sequence=2 * i), assign_offsets=False)
    log.close()  # a clean close snapshots the producer state at the log end (42)
    assert (d / f"{42:020d}.snapshot").exists()
    for p in list(d.glob("*.index")) + list(d.glob("*.timeindex")):
        p.unlink()  # no index to help: only the snapshot knows
    pos = flip(d / SEG0, 3, 3, 0x01)  # 40 -> 40 + 2**32: a gap a compacted log could have
    rep = verify_partition(str(d), "t", 0)
    assert any(p.position == pos and "producer snapshot" in p.message and "expected 40 (proven)" in p.message
               for p in rep.errors), [p.message for p in rep.errors]
    with Log.open(d, cfg, read_only=True, time=clock) as log, pytest.raises(CorruptRecordError):
        list(log.records())  # a reader: damage in durable data is an error...
    with Log.open(d, cfg, read_only=True, on_damage="skip", time=clock) as log, pytest.warns(DataLossWarning):
        assert [r.offset for r in log.records()] == [0, 1, 10, 11, 20, 21]  # ...or a reported skip
    with Log.open(d, cfg, time=clock) as log:
        assert [r.offset for r in log.records()] == [0, 1, 10, 11, 20, 21]  # a writer sets it aside
    assert repair_partition(str(d), "t", 0).ok
    log = Log.open(d, cfg, time=clock)
    assert [r.offset for r in log.records()] == [0, 1, 10, 11, 20, 21, 40, 41]
    log.close()
