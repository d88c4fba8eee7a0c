"""Every byte of every batch header damaged, then opened as a writer and as a reader (issue 13).

The reference segments cover magic v0, v1 and v2, uncompressed and compressed, and transactional
batches with their control markers. Each damaged copy is opened with and without its indexes, after a
clean and after an unclean shutdown. For every case:

- every record either open returns carries exactly the written offset, timestamp, key, value and
  headers, and what it returns is a prefix of what was written (nothing invented, nothing reordered);
- the read-only open (made first, on the untouched damaged files) and the writer's open agree on
  the records and the log end offset, or the reader's read ends in a ``CorruptRecordError`` (damage it
  found at open, or, in a segment that ends at its recovery point and is trusted at open as Kafka trusts
  it, damage its read reached);
- every byte of the damaged file is either still in the log or in a quarantine file, in order;
- ``kvlog verify`` names a field at the damaged batch whenever records were set aside.

The default run takes a sample of bytes; ``-m slow`` (``make soak``) takes every byte, both damages.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.verify import verify_partition
from kvlog.errors import CorruptRecordError
from kvlog.log import Log
from tests.reliability_report import record

T0 = 1_700_000_000_000
CFG = LogConfig(index_interval_bytes=64)
SEG = f"{0:020d}.log"
# (name, magic, codec, transactional)
FORMATS = [("v2-none", 2, "none", False), ("v2-zstd", 2, "zstd", False), ("v2-txn", 2, "none", True),
           ("v2-txn-gzip", 2, "gzip", True), ("v1-none", 1, "none", False), ("v1-gzip", 1, "gzip", False),
           ("v0-none", 0, "none", False), ("v0-snappy", 0, "snappy", False)]
V2_HEADER, LEGACY_HEADER = 61, {0: 18, 1: 26}


def _records(i: int, magic: int) -> list[Record]:
    headers = [("h", b"%d" % i)] if magic == 2 else []
    return [Record(b"k%d-%d" % (i, j), b"value-%d-%d" % (i, j) * 2, T0 + 10 * i + j, headers) for j in range(3)]


def reference(tmp_path: Path, name: str, magic: int, codec: str, txn: bool) -> Path:
    """One segment of several batches, written as a broker would (leader epochs that never drop)."""
    d = tmp_path / f"ref-{name}" / "t-0"
    d.parent.mkdir(parents=True)
    log = Log.open(d, CFG, time=lambda: T0 + 1000)  # a steady clock: one segment, no time-based roll
    for i in range(6):
        epoch = i // 2 if magic == 2 else -1
        if txn:
            data = kvlog.encode_batch(_records(i, magic), magic=2, compression=codec,
                                      base_offset=log.log_end_offset, producer_id=7, producer_epoch=0,
                                      base_sequence=3 * i, is_transactional=True, partition_leader_epoch=epoch)
            log.append(data, assign_offsets=False)
            if i % 2:
                log.end_transaction(7, 0, commit=i != 3, coordinator_epoch=1)
        else:
            data = kvlog.encode_batch(_records(i, magic), magic=magic, compression=codec,
                                      base_offset=log.log_end_offset, partition_leader_epoch=epoch)
            log.append(data, assign_offsets=False)
    log.close()
    return d


def _header_bytes(data: bytes) -> list[int]:
    """File positions of every header byte of every batch (v2: the 61-byte header; v0/v1: up to the key)."""
    out = []
    for b in kvlog.MemoryRecords(data).batches():
        n = V2_HEADER if b.magic == 2 else LEGACY_HEADER[b.magic]
        out.extend(range(b.position, b.position + n))
    return out


def _rows(log: Log) -> list[tuple]:
    return [(r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in log.records()]


def _rows_until_error(log: Log) -> tuple[list[tuple], bool]:
    """The records a read returns, and whether it ended in a ``CorruptRecordError``."""
    out: list[tuple] = []
    try:
        for r in log.records():
            out.append((r.offset, r.timestamp, r.key, r.value, tuple(r.headers)))
    except CorruptRecordError:
        return out, True
    return out, False


def _quarantined_bytes(d: Path) -> bytes:
    cut = sorted(d.glob(SEG + ".*.quarantined"), key=lambda p: int(p.name.split(".")[2].split("-")[0]))
    return b"".join(p.read_bytes() for p in cut)


def run_case(work: Path, damaged: bytes, written: list[tuple], clean: bool) -> tuple[bool, int]:
    """Open a damaged copy both ways and check the contract; returns (set anything aside, records back)."""
    reader = Log.open(work, CFG, read_only=True, _clean_shutdown=clean)
    try:
        damage = list(reader.damage)
        rows, failed = _rows_until_error(reader)
        # nothing invented, even before an error
        assert rows == written[:len(rows)], "the reader returned a record that was not written exactly so"
        if damage:
            # damage in durable data: never a shorter log in silence, but an error where reads reach it
            assert failed, "the reader reported damage at open and then read past it"
            seen, end = None, damage[0].first_offset
        elif failed:
            # a segment that ends at its recovery point is trusted at open (as Kafka trusts it) and checked as
            # it is read: the damage is a typed error where the read reaches it
            seen, end = None, None
        else:
            seen, end = rows, reader.log_end_offset
    finally:
        reader.close()
    writer = Log.open(work, CFG, _clean_shutdown=clean)
    try:
        got = _rows(writer)
        assert end is None or writer.log_end_offset == end, \
            "writer and reader disagree on where the trustworthy bytes end"
        assert seen is None or got == seen, "writer and reader disagree"
        assert not damage or writer.quarantined, "the reader reported damage the writer did not set aside"
        assert got == written[:len(got)], "a record came back that was not written exactly so"
        for off in range(writer.log_end_offset):
            writer.read(off, 1 << 16)  # every fetch position answers without an error
        writer.offset_for_timestamp(T0)
    finally:
        writer.close()
    kept = (work / SEG).read_bytes()
    aside = _quarantined_bytes(work)
    assert damaged.startswith(kept), "recovery rewrote bytes"
    rest = damaged[len(kept):]
    assert aside == rest or (not aside and rest.count(0) == len(rest)), "damaged bytes were neither kept nor set aside"
    return bool(aside), len(got)


def sweep(tmp_path: Path, fmt: tuple, positions: str, modes: tuple[str, ...]) -> None:
    name, magic, codec, txn = fmt
    src = reference(tmp_path, name, magic, codec, txn)
    original = (src / SEG).read_bytes()
    assert len(list(src.glob("*.log"))) == 1
    probe = Log.open(src, CFG, read_only=True)
    written = _rows(probe)
    probe.close()
    targets = _header_bytes(original)
    if positions == "sample":
        targets = targets[::10] + targets[-3:]
    work = tmp_path / "work" / "t-0"
    cases = aside = intact = named = 0
    for pos in targets:
        for mode in modes:
            damaged = bytearray(original)
            damaged[pos] ^= 0xFF if mode == "xor" else 0x01 << (pos % 8)
            damaged = bytes(damaged)
            for clean in (False, True):
                for indexes in (True, False):
                    if work.parent.exists():
                        shutil.rmtree(work.parent)
                    shutil.copytree(src.parent, work.parent)
                    (work / SEG).write_bytes(damaged)
                    if not indexes:
                        for p in list(work.glob("*.index")) + list(work.glob("*.timeindex")):
                            p.unlink()
                    report = verify_partition(str(work), "t", 0)
                    set_aside, n = run_case(work, damaged, written, clean)
                    cases += 1
                    aside += set_aside
                    intact += n == len(written)
                    if set_aside:
                        assert report.errors, f"verify saw nothing wrong at byte {pos} ({mode})"
                        named += 1
    record("header_sweep", cases=cases, set_aside=aside, nothing_set_aside=cases - aside,
           all_records_back=intact, verify_named=named)


@pytest.mark.parametrize("fmt", FORMATS, ids=[f[0] for f in FORMATS])
def test_header_bytes_sampled(tmp_path, fmt):
    sweep(tmp_path, fmt, "sample", ("bit",))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS, ids=[f[0] for f in FORMATS])
def test_every_header_byte(tmp_path, fmt):
    sweep(tmp_path, fmt, "all", ("bit", "xor"))
