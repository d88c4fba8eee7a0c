"""A segment whose time index holds no entry (the file missing, emptied, or cut before its first entry) still
holds records with timestamps: a time search must look at them, not skip the segment as if it had none.

Found on a copy of a broker directory with one ``.timeindex`` removed: ``offset_for_timestamp`` answered with
the first record of the *next* segment, no error. Kafka itself creates a missing time index empty and trusts
it for segments below the recovery point; kvlog takes such a segment's max timestamp from its batch headers.
Retention keeps the broker's rule for it (its age is the file's mtime) on top of the verified timestamps.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kvlog import LogConfig, Record
from kvlog.log import Log
from kvlog.timestamps import MAX_TIMESTAMP

T0 = 1_700_000_000_000
CFG = LogConfig(segment_bytes=2048, index_interval_bytes=256)


def build(d: Path) -> list[tuple[int, int]]:
    """Several segments of records whose timestamps wander (not monotonic); returns every (offset, ts)."""
    log = Log.open(d, CFG, time=lambda: T0 + 10**9)
    out = []
    for i in range(240):
        ts = T0 + i * 10 + (37 if i % 7 == 3 else 0) - (25 if i % 11 == 5 else 0)
        log.append([Record(b"k%d" % i, b"v" * 20, ts)])
        out.append((i, ts))
    log.close()
    return out


def reference(records: list[tuple[int, int]], target: int) -> tuple[int, int] | None:
    """The first offset whose record timestamp is at least ``target``, and that timestamp."""
    return next(((o, t) for o, t in records if t >= target), None)


def damage(d: Path, base: int, how: str) -> None:
    ti = d / f"{base:020d}.timeindex"
    if how == "missing":
        ti.unlink()
    elif how == "empty":
        ti.write_bytes(b"")
    else:  # a preallocated file nobody wrote: zeros, no entry
        ti.write_bytes(bytes(12 * 8))


@pytest.mark.parametrize("how", ["missing", "empty", "zeros"])
@pytest.mark.parametrize("read_only", [True, False])
def test_a_segment_without_time_entries_is_searched_by_its_batches(tmp_path, how, read_only):
    d = tmp_path / "t-0"
    records = build(d)
    bases = sorted(int(p.name[:20]) for p in d.glob("*.log"))
    assert len(bases) >= 4
    for base in bases[1:-1]:  # inner segments: the answer would otherwise come from a later one
        damage(d, base, how)
    with Log.open(d, CFG, read_only=read_only, time=lambda: T0 + 10**9) as log:
        for target in range(T0 - 5, T0 + 2400, 7):
            got = log.offset_for_timestamp(target)
            want = reference(records, target)
            assert (None if got is None else (got.offset, got.timestamp)) == want, target
        best = max(t for _, t in records)
        got = log.offset_for_timestamp(MAX_TIMESTAMP)
        assert (got.offset, got.timestamp) == reference(records, best)


def test_retention_ages_an_unindexed_segment_by_its_mtime_as_the_broker_does(tmp_path):
    d = tmp_path / "t-0"
    build(d)
    base = sorted(int(p.name[:20]) for p in d.glob("*.log"))[0]
    damage(d, base, "empty")
    cfg = LogConfig(segment_bytes=2048, index_interval_bytes=256, retention_ms=60_000)
    now = T0 + 10**9  # every record is far older than retention.ms
    seg_log = d / f"{base:020d}.log"
    os.utime(seg_log, (now / 1000, now / 1000))  # the broker would see a fresh segment
    with Log.open(d, cfg, time=lambda: now) as log:
        assert log.delete_old_segments() == 0  # kept: by the broker's rule it is young
        assert log.segments[0].base_offset == base
        assert log.offset_for_timestamp(T0).offset == base  # and its records are found by time
    os.utime(seg_log, (T0 / 1000, T0 / 1000))
    with Log.open(d, cfg, time=lambda: now) as log:
        assert log.delete_old_segments() >= 1  # old by both rules: gone
        assert log.segments[0].base_offset > base


@pytest.mark.parametrize("how", ["missing", "empty"])
def test_both_spark_engines_start_at_the_same_offset(jvm, tmp_path, how):
    """The JVM scan reads every segment's batches anyway; the Python source asks the Log: both must agree."""
    root = tmp_path / "root"
    records = build(root / "t-0")
    bases = sorted(int(p.name[:20]) for p in (root / "t-0").glob("*.log"))
    for base in bases[1:-1]:
        damage(root / "t-0", base, how)
    for target in (T0 + 300, T0 + 1111, T0 + 2000):
        want = [o for o, _ in records if o >= reference(records, target)[0]]
        for fmt in ("kvlog_jvm", "kvlog_python"):
            df = (jvm.read.format(fmt).option("subscribe", "t").option("startingTimestamp", str(target))
                  .load(str(root)))
            assert sorted(r[0] for r in df.select("offset").collect()) == want, (fmt, target)
