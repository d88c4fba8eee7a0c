"""Corruption sweeps over real segment files: every byte damaged, every length cut, then recovery.

Recovery must keep at least the batches before the first damaged one, return only records exactly as
written, raise nothing but typed errors, and keep every byte it cuts in a quarantine file.
"""

import os
import shutil

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.log import Log
from tests.reliability_report import record

T0 = 1_700_000_000_000
FORMATS = [(2, "none"), (2, "gzip"), (2, "zstd"), (1, "none"), (1, "gzip"), (0, "none")]


def reference_segment(tmp_path, magic, codec):
    """One segment of several batches in the given format, written by kvlog as a broker would."""
    d = tmp_path / f"ref-{magic}-{codec}" / "t-0"
    d.parent.mkdir(parents=True)
    log = Log.open(d, LogConfig(index_interval_bytes=64))
    for i in range(6):
        data = kvlog.encode_batch([Record(b"k%d" % j, b"value-%d-%d" % (i, j) * 3, T0 + i) for j in range(3)],
                                  magic=magic, compression=codec, base_offset=log.log_end_offset)
        log.append(data, assign_offsets=False)
    log.close()
    seg = d / f"{0:020d}.log"
    data = seg.read_bytes()
    ends = [b.position + b.size_in_bytes for b in kvlog.MemoryRecords(data).batches()]
    offsets = {b.position: b.last_offset for b in kvlog.MemoryRecords(data).batches()}
    return d, data, ends, offsets


def expected_prefix(ends, damaged_at):
    """Bytes of whole batches that end before the first damaged byte."""
    return max([e for e in ends if e <= damaged_at], default=0)


def rows(records):
    return [(r.offset, r.timestamp, r.key, r.value, tuple(r.headers)) for r in records]


def reopen_and_check(d, ends, damaged_at, damaged, written):
    log = Log.open(d, LogConfig(index_interval_bytes=64))
    try:
        size = log.active_segment.size_in_bytes
        # everything before the damaged batch stays; recovery only ever cuts, never rewrites
        assert size >= expected_prefix(ends, damaged_at)
        assert damaged[:size] == (d / f"{0:020d}.log").read_bytes()
        # what comes back is exactly what was written: offsets, timestamps, keys, values, headers
        got = rows(log.records())
        assert got == written[:len(got)]
        log.to_arrow()
    finally:
        log.close()
    # and every damaged byte after the cut is kept in a quarantine file (unless it was all zeros)
    aside = b"".join(p.read_bytes() for p in sorted(d.glob(f"{0:020d}.log.*.quarantined")))
    rest = damaged[size:]
    assert aside == rest or (not aside and rest.count(0) == len(rest))


@pytest.mark.parametrize("magic,codec", FORMATS)
def test_bytes_damaged_sampled(tmp_path, magic, codec):
    sweep(tmp_path, magic, codec, step=13)


@pytest.mark.slow
@pytest.mark.parametrize("magic,codec", FORMATS)
def test_every_byte_damaged(tmp_path, magic, codec):
    sweep(tmp_path, magic, codec, step=1)


def sweep(tmp_path, magic, codec, step):
    src, original, ends, _ = reference_segment(tmp_path, magic, codec)
    written = rows(kvlog.MemoryRecords(original).records())
    work = tmp_path / "work" / "t-0"
    cases = 0
    for pos in range(0, len(original), step):
        for mode in ("xor", "zero", "ff"):
            if work.parent.exists():
                shutil.rmtree(work.parent)
            shutil.copytree(src, work)
            buf = bytearray(original)
            buf[pos] = buf[pos] ^ 0xFF if mode == "xor" else (0 if mode == "zero" else 0xFF)
            if bytes(buf) == original:
                continue
            (work / f"{0:020d}.log").write_bytes(bytes(buf))
            for idx in work.glob("*.index"):
                idx.unlink()  # force a full recovery of the segment (the recovery point is its end)
            reopen_and_check(work, ends, pos, bytes(buf), written)
            cases += 1
    record("corrupt_bytes" if step == 1 else "corrupt_bytes_sampled", cases=cases)


@pytest.mark.parametrize("magic,codec", FORMATS)
def test_length_cuts_sampled(tmp_path, magic, codec):
    """Every cut within two bytes of a batch boundary and in the first header, every eleventh elsewhere."""
    cut_sweep(tmp_path, magic, codec, every=11)


@pytest.mark.slow
@pytest.mark.parametrize("magic,codec", FORMATS)
def test_every_length_cut(tmp_path, magic, codec):
    cut_sweep(tmp_path, magic, codec, every=1)


def cut_sweep(tmp_path, magic, codec, every):
    src, original, ends, _ = reference_segment(tmp_path, magic, codec)
    work = tmp_path / "work" / "t-0"
    near = {e + d for e in [0, *ends] for d in range(-2, 3)}
    cuts = [c for c in range(len(original)) if c % every == 0 or c < 70 or c in near]
    for cut in cuts:
        if work.parent.exists():
            shutil.rmtree(work.parent)
        shutil.copytree(src, work)
        (work / f"{0:020d}.log").write_bytes(original[:cut])
        (work / f"{0:020d}.index").unlink()
        log = Log.open(work, LogConfig(index_interval_bytes=64))
        assert log.active_segment.size_in_bytes == expected_prefix(ends, cut)
        log.close()
    record("corrupt_cuts" if every == 1 else "corrupt_cuts_sampled", cases=len(cuts))


def test_index_and_checkpoint_damage(tmp_path):
    src, original, ends, offsets = reference_segment(tmp_path, 2, "none")
    root = src.parent
    cases = {
        "wrong length": lambda d: (d / f"{0:020d}.index").write_bytes((d / f"{0:020d}.index").read_bytes() + b"\x01\x02\x03"),
        "non-monotonic": lambda d: (d / f"{0:020d}.index").write_bytes(bytes.fromhex("0000000a000000400000000300000020")),
        "past the end": lambda d: (d / f"{0:020d}.index").write_bytes(bytes.fromhex("00000005007fffff")),
        "missing index": lambda d: (d / f"{0:020d}.index").unlink(),
        "missing timeindex": lambda d: (d / f"{0:020d}.timeindex").unlink(),
        "garbage timeindex": lambda d: (d / f"{0:020d}.timeindex").write_bytes(os.urandom(36)),
        "bad checkpoint": lambda d: (d.parent / "recovery-point-offset-checkpoint").write_text("7\nnonsense\n"),
        "unknown files": lambda d: ((d / "notes.txt").write_text("hi"), (d / "12345.log").write_bytes(b"x")),
    }
    want = [(r.offset, r.value) for r in kvlog.MemoryRecords(original).records()]
    for name, damage in cases.items():
        work = tmp_path / name.replace(" ", "-") / "t-0"
        shutil.copytree(root, work.parent, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, work)
        damage(work)
        log = Log.open(work, LogConfig(index_interval_bytes=64))
        assert [(r.offset, r.value) for r in log.records()] == want, name
        assert log.offset_for_timestamp(T0 + 3) == (9, T0 + 3), name
        for off in range(18):
            assert next(log.read(off).batches()).last_offset >= off, name
        log.close()
    record("corrupt_index_checkpoint", cases=len(cases))
