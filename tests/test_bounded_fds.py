"""Bounded descriptors (issue 25, point 5): a log of any number of segments works under ``ulimit -n 256``.

A log used to keep about three descriptors per segment (``.log``, and one per mapped index); a writer
that grew a log to 6,665 segments died with EMFILE and the log could not be opened again. Segments now
share a process-wide LRU budget (``kvlog.segment.budget``): these tests check the whole life cycle of a
10,000-segment log in a child process whose descriptor limit is 256, and the LRU's rules one by one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading

import pytest

import kvlog
from kvlog import Log, LogConfig, Record
from kvlog.segment import budget as _fd_cache
from kvlog.segment import _common as segment_common
from kvlog.cleaner import LogCleaner
from kvlog.errors import ConfigError, SegmentReplacedError
from kvlog.segment import LogSegment

T0 = 1_700_000_000_000
SMALL = dict(segment_bytes=200, index_interval_bytes=16, segment_index_bytes=1024)

# The child: builds a 10,000-segment log (one batch of 3 records per segment, written file by file as
# kvlog writes a rolled segment: .log, empty .index, one-entry .timeindex, and the root's checkpoints),
# then opens, reads, appends, retains and compacts it under RLIMIT_NOFILE 256, counting descriptors.
CHILD = r'''
import os, resource, struct, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))  # before kvlog sizes its budget

import numpy as np
import kvlog
from kvlog import Log, LogConfig, Record, checkpoint
from kvlog.segment.budget import budget, max_open_files
from kvlog.cleaner import LogCleaner
from kvlog.errors import SegmentReplacedError

root, n = sys.argv[1], int(sys.argv[2])
d = os.path.join(root, "big-0")
os.makedirs(d)
T0 = 1_700_000_000_000
PER = 3
total = n * PER
keys = [b"key-%d" % (i % 500) for i in range(total)]
values = [b"value-%d" % i for i in range(total)]
stamps = [T0 + i for i in range(total)]
data = kvlog.encode_arrays(keys, values, stamps, records_per_batch=PER)
h = kvlog.MemoryRecords(data).batch_headers()
for base, pos, size, mts in zip(h["base_offset"].tolist(), h["position"].tolist(), h["size"].tolist(),
                                h["max_timestamp"].tolist()):
    stem = os.path.join(d, "%020d" % base)
    with open(stem + ".log", "wb") as f:
        f.write(data[pos:pos + size])
    open(stem + ".index", "wb").close()
    with open(stem + ".timeindex", "wb") as f:
        f.write(struct.pack(">qi", mts, PER - 1))
checkpoint.write_offsets(os.path.join(root, checkpoint.RECOVERY_POINT), {("big", 0): total})
checkpoint.write_offsets(os.path.join(root, checkpoint.LOG_START_OFFSET), {("big", 0): 0})
del data, h

def fds():
    return len(os.listdir("/proc/self/fd"))

base = fds()
cap = max_open_files()
assert cap == 128, cap  # min(512, 256 // 2): the default follows the process limit
peak = [base]

def check(what):
    now = fds()
    assert budget.held <= cap, (what, budget.held)
    peak[0] = max(peak[0], now)
    # the budget, the writer's lock file and a few transient ones (a checkpoint, a snapshot)
    assert now <= base + cap + 8, (what, now, base, cap)

cfg = LogConfig(segment_bytes=200, cleanup_policy="compact,delete", retention_ms=-1, retention_bytes=-1,
                min_cleanable_dirty_ratio=0.0, segment_index_bytes=1024)
log = Log.open(d, cfg)
check("writer open")
assert len(log.segments) == n and log.log_end_offset == total, (len(log.segments), log.log_end_offset)

ro = Log.open(d, read_only=True)
check("reader open")
assert len(ro.segments) == n
count = 0
for i, rec in enumerate(ro.records()):
    assert rec.offset == i and rec.value == values[i], (i, rec)
    count += 1
assert count == total
check("records")
t = ro.to_arrow()
assert t.num_rows == total
assert t.column("offset").to_pylist() == list(range(total))
check("to_arrow")
rng = np.random.default_rng(5)
for off in rng.integers(0, total, 200).tolist():
    got = next(ro.read(off).batches())
    assert got.base_offset <= off <= got.last_offset
    assert ro.offset_for_timestamp(T0 + off).offset == off
check("point reads")

# append: the writer's active segment is pinned; rolls go on opening new segments
LATE = 40
for i in range(LATE):
    log.append([Record(b"key-%d" % (i % 500), b"late-%d" % i, T0 + total + i)])
values += [b"late-%d" % i for i in range(LATE)]
keys += [b"key-%d" % (i % 500) for i in range(LATE)]
total += LATE
assert log.log_end_offset == total and len(log.segments) > n, (len(log.segments), log.log_end_offset, total)
assert ro.refresh() == total
assert ro.to_arrow(total - LATE).column("value").to_pylist() == values[-LATE:]
log.flush()
check("append")

# retention: nine tenths go (log start offset), deleted under the open reader
start = total * 9 // 10
log.delete_records(start)
deleted_to = log.log_start_offset
assert deleted_to == start and log.segments[0].base_offset <= start < log.segments[1].base_offset
assert n // 10 < len(log.segments) < n // 10 + LATE, len(log.segments)
check("retention")
# the reader's early segments were evicted during its scan and are gone now: a typed error, never
# another file's bytes
try:
    ro.read(0)
except SegmentReplacedError as exc:
    assert "reopen the log" in str(exc)
else:
    raise AssertionError("a deleted, evicted segment was read")
ro.close()
ro = Log.open(d, read_only=True)
assert ro.log_start_offset == deleted_to
assert ro.to_arrow().column("offset").to_pylist() == list(range(deleted_to, total))
ro.close()
check("reopen after retention")

# compaction over the 1,000 segments left (the cleaner groups them under segment.bytes; its
# per-segment transaction-index lookup grows with the square of the segments, so not 10,000 here)
log.close()
log = Log.open(d, cfg.replace(segment_bytes=64 << 10))
check("writer reopen")
before = len(log.segments)
LogCleaner(16 << 20).clean(log)
check("compaction")
after = len(log.segments)
assert after < before // 10, (before, after)
latest = {}
for o in range(deleted_to, total):
    latest[keys[o]] = values[o]
ro = Log.open(d, read_only=True)
seen = {}
for rec in ro.records():
    seen[rec.key] = rec.value
assert seen == latest
ro.close()
log.close()
assert fds() == base, (fds(), base)
print("ok", n, "segments; peak descriptors", peak[0], "base", base, "budget", cap)
'''


def test_ten_thousand_segments_under_ulimit_256(tmp_path):
    """Open (writer and reader), read end to end, append, retain and compact a 10,000-segment log with
    256 descriptors allowed, the descriptors in use staying under the budget all along."""
    # tmpfs where there is one: 30,000 small files on a disk take seconds to create, and the test is
    # about descriptors, not the disk
    scratch = tempfile.mkdtemp(prefix="kvlog-fds-", dir="/dev/shm" if os.path.isdir("/dev/shm") else tmp_path)
    try:
        _run_child(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_child(scratch):
    env = dict(os.environ)
    env.pop(_fd_cache.ENV_VAR, None)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(kvlog.__file__)),
                                         env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", CHILD, scratch, "10000"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.startswith("ok 10000 segments"), proc.stdout


# ------------------------------------------------------------------------------------------ the LRU
@pytest.fixture
def budget(monkeypatch):
    """A private budget for the test (the process-wide one holds whatever other tests left open)."""
    b = _fd_cache.FdBudget(10_000)
    monkeypatch.setattr(segment_common, "fd_budget", b)
    return b


def recs(n, start=0):
    return [Record(b"k%d" % ((start + i) % 7), b"value-%d" % (start + i), T0 + start + i) for i in range(n)]


def build(path, segments, **cfg):
    """A closed log of ``segments`` segments of two batches of three records each."""
    log = Log.open(path, LogConfig(**{**SMALL, **cfg}))
    i = 0
    while len(log.segments) < segments or log.active_segment.size_in_bytes == 0:
        log.append(recs(3, i))
        i += 3
    log.close()
    return i


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_default_budget_follows_the_process_limit(monkeypatch):
    import resource

    monkeypatch.delenv(_fd_cache.ENV_VAR, raising=False)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    expected = 512 if soft == resource.RLIM_INFINITY else max(8, min(512, soft // 2))
    assert _fd_cache.default_max_open_files() == expected
    monkeypatch.setenv(_fd_cache.ENV_VAR, "40")
    assert _fd_cache.default_max_open_files() == 40
    for bad in ("lots", "0", "-3"):
        monkeypatch.setenv(_fd_cache.ENV_VAR, bad)
        with pytest.raises(ConfigError, match=_fd_cache.ENV_VAR):
            _fd_cache.default_max_open_files()


def test_set_max_open_files_checks_and_restores():
    before = kvlog.max_open_files()
    try:
        assert kvlog.set_max_open_files(7) == before
        assert kvlog.max_open_files() == 7
        with pytest.raises(ConfigError):
            kvlog.set_max_open_files(0)
        with pytest.raises(TypeError):
            kvlog.set_max_open_files("9")  # type: ignore[arg-type]
        assert kvlog.max_open_files() == 7
    finally:
        kvlog.set_max_open_files(before)


def test_eviction_order_is_least_recently_used(tmp_path, budget):
    build(tmp_path / "t-0", 6)
    budget.set_limit(3)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    segs = ro.segments
    assert len(segs) >= 6
    # a reader's segment costs one descriptor (its index copies hold none): the last three opened stay
    assert [s.evicted for s in segs] == [True] * (len(segs) - 3) + [False] * 3
    assert budget.held == 3
    first = segs[0].base_offset
    assert ro.read(first).batches()  # the least recently used goes: segs[-3]
    assert not segs[0].evicted and segs[-3].evicted and not segs[-2].evicted
    list(ro.read(segs[-2].base_offset).batches())  # used again: now the most recent
    list(ro.read(segs[1].base_offset).batches())  # evicts segs[-1], the least recent now
    assert [s.evicted for s in (segs[0], segs[1], segs[-2], segs[-1])] == [False, False, False, True]
    assert budget.held == 3
    ro.close()
    assert budget.held == 0 and len(budget) == 0


def test_reads_after_eviction_match_reads_without_it(tmp_path, budget):
    n = build(tmp_path / "t-0", 40)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    expected = ro.to_arrow()
    stamps = [ro.offset_for_timestamp(T0 + o) for o in range(0, n, 5)]
    ro.close()
    budget.set_limit(1)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    assert ro.to_arrow().equals(expected)
    assert [r.value for r in ro.records()] == expected.column("value").to_pylist()
    assert [ro.offset_for_timestamp(T0 + o) for o in range(0, n, 5)] == stamps
    for o in range(n - 1, -1, -7):  # backwards: every read reopens a segment
        assert next(ro.read(o).batches()).base_offset <= o
    assert budget.held == 1 and budget.evictions > 80
    ro.close()


def test_active_segment_is_pinned_and_appends_go_on(tmp_path, budget):
    budget.set_limit(1)
    log = Log.open(tmp_path / "t-0", LogConfig(**SMALL))
    for i in range(0, 90, 3):
        log.append(recs(3, i))
        active = log.active_segment
        assert active.pinned and not active.evicted and not active.offset_index.suspended
        # (the previous active segment goes at the next use of the budget after its roll)
        assert all(s.evicted for s in log.segments[:-2])
    # the old segments are evicted, the active one keeps its three descriptors though over the limit
    # (and the one before it until the budget is next used)
    assert 3 <= budget.held <= 6
    assert [r.offset for r in log.records()] == list(range(90))
    old = log.active_segment
    log.roll()
    assert not old.pinned and log.active_segment.pinned
    log.close()
    assert budget.held == 0


def test_in_process_descriptors_stay_bounded(tmp_path, budget):
    budget.set_limit(30)
    log = Log.open(tmp_path / "t-0", LogConfig(**SMALL))
    log.append(recs(3, 0))
    log.to_arrow()  # (Arrow's first use may open descriptors of its own: counted in the base)
    base = open_fds()
    # the budget, the writer's lock (counted in base) and at most one transient (a checkpoint)
    slack = 30 + 1
    for i in range(3, 900, 3):
        log.append(recs(3, i))
    assert len(log.segments) > 100
    assert budget.held <= 30 and open_fds() - base <= slack
    ro_logs = []
    for _ in range(3):  # several readers share the one budget
        ro = Log.open(tmp_path / "t-0", read_only=True)
        assert ro.to_arrow().num_rows == 900
        ro_logs.append(ro)
    assert budget.held <= 30 and open_fds() - base <= slack
    for ro in ro_logs:
        ro.close()
    # (readers would keep the segments they have open when the writer deletes them: not evictable)
    log.truncate_to(450)
    log.delete_records(300)
    assert [r.offset for r in log.records()] == list(range(300, 450))
    assert budget.held <= 30 and open_fds() - base <= slack
    log.close()
    assert budget.held == 0 and open_fds() < base


def test_evicted_writable_segment_keeps_its_unflushed_state(tmp_path, budget):
    """A segment being written that is not the active one (the cleaner's output) loses nothing when
    evicted between appends: sizes, index entries and the preallocated index files stay exact."""
    d = str(tmp_path / "t-0")
    os.makedirs(d)
    data = kvlog.encode_arrays([b"k%d" % i for i in range(400)], [b"v%d" % i for i in range(400)],
                               [T0 + i for i in range(400)], records_per_batch=4)
    batches = kvlog.MemoryRecords(data).batch_headers()
    other = LogSegment(d, 10_000, index_interval_bytes=64, max_index_size=4096)
    seg = LogSegment(d, 0, index_interval_bytes=64, max_index_size=4096)
    half = len(batches) // 2
    for lo, hi in ((0, half), (half, len(batches))):
        h = batches[lo:hi].copy()
        start = int(h["position"][0])
        end = int(h["position"][-1] + h["size"][-1])
        h["position"] -= start
        before = (seg.size_in_bytes, seg.offset_index.entries, seg.time_index.entries,
                  seg.offset_index.last_entry, seg.time_index.last_entry)
        budget.set_limit(1)  # both give back their three descriptors, this one too, between appends
        other.fileno()
        assert seg.evicted and seg.offset_index.suspended and seg.time_index.suspended
        assert seg._fd_cost() == 0
        assert (seg.size_in_bytes, seg.offset_index.entries, seg.time_index.entries,
                seg.offset_index.last_entry, seg.time_index.last_entry) == before
        assert os.path.getsize(seg.offset_index.path) == 4096  # still preallocated: nothing trimmed
        seg.append(data[start:end], h)
        assert not seg.evicted
    budget.set_limit(1)
    other.fileno()
    assert seg.evicted
    seg.flush()  # through a fresh descriptor (fsync covers the file)
    oi_entries = seg.offset_index.entries
    assert oi_entries > 10
    seg.close()  # finishes the files as a roll does: they reopen to be trimmed
    other.close()
    assert os.path.getsize(seg.offset_index.path) == oi_entries * 8
    again = LogSegment(d, 0, index_interval_bytes=64, max_index_size=4096, read_only=True)
    assert again.offset_index.entries == oi_entries and again.offset_index.untrusted_tail() == 0
    assert again.read_next_offset() == 400
    assert bytes(again.pread(0, len(data))) == data
    again.close_handlers()


def test_compaction_under_a_tiny_budget_writes_the_same_files(tmp_path, budget):
    """The cleaner's output segments are written while the source segments are read: evicting them in
    between changes no byte of the result."""
    results = []
    for limit in (10_000, 2):
        budget.limit = limit
        path = tmp_path / f"c{limit}-0"
        build(path, 30, cleanup_policy="compact")
        log = Log.open(path, LogConfig(**{**SMALL, "segment_bytes": 2000}, cleanup_policy="compact"))
        LogCleaner(1 << 20).clean(log)
        log.close()
        files = {}
        for name in sorted(os.listdir(path)):
            if name.endswith((".log", ".index", ".timeindex", ".txnindex")):
                with open(path / name, "rb") as f:
                    files[name] = f.read()
        results.append(files)
        if limit == 2:
            assert budget.evictions > 30
    assert results[0] == results[1]


def test_reader_keeps_a_deleted_segment_open_rather_than_evict_it(tmp_path, budget):
    build(tmp_path / "t-0", 8)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    first = ro.segments[0]
    budget.set_limit(2)
    assert ro.records(0, 3).__next__().offset == 0  # segment 0 most recently used: 1 to 6 evicted
    assert not first.evicted and ro.segments[1].evicted
    budget.set_limit(10_000)  # (the writer's segments share the budget)
    w = Log.open(tmp_path / "t-0", LogConfig(**SMALL))
    w.delete_records(w.segments[2].base_offset)  # deletes segments 0 and 1 under the reader
    w.close()
    budget.set_limit(1)
    for seg in ro.segments[2:]:  # the reader moves on: everything else gets evicted
        list(ro.read(seg.base_offset).batches())
    assert not first.evicted  # its descriptor is the only way left to that file
    assert ro.segments[1].evicted  # (evicted before the writer deleted it)
    assert all(seg.evicted for seg in ro.segments[2:-1])
    assert [r.offset for r in ro.records(0, 3)] == [0, 1, 2]  # still the same bytes
    with pytest.raises(SegmentReplacedError, match="reopen the log"):
        list(ro.read(ro.segments[1].base_offset).batches())
    ro.close()


def test_reader_never_reads_a_different_file_under_the_same_name(tmp_path, budget):
    build(tmp_path / "t-0", 6)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    first, second = ro.segments[0], ro.segments[1]
    budget.set_limit(1)
    list(ro.read(ro.segments[-2].base_offset).batches())
    assert first.evicted and second.evicted
    # replaced under its name as a compaction's swap does (a new file renamed over it: a new inode)
    with open(first.log_path, "rb") as f:
        data = f.read()
    with open(first.log_path + ".swap", "wb") as f:
        f.write(data)
    os.replace(first.log_path + ".swap", first.log_path)
    with pytest.raises(SegmentReplacedError):
        first.pread(0, 10)
    # deleted, and a new file made under its name (the file system may well give it the same inode
    # number): its first bytes differ
    other = ro.segments[-1].pread(0, 200)
    os.unlink(second.log_path)
    with open(second.log_path, "wb") as f:
        f.write(other)
    with pytest.raises(SegmentReplacedError):
        second.pread(0, 10)
    ro.close()


def test_reader_follows_its_file_to_the_name_a_writer_renames_it_to(tmp_path, budget):
    build(tmp_path / "t-0", 4)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    seg = ro.segments[0]
    expected = list(ro.records(0, 3))
    budget.set_limit(1)
    list(ro.read(ro.segments[-1].base_offset).batches())
    assert seg.evicted
    os.rename(seg.log_path, seg.log_path + ".deleted")  # retention's first step: the same inode
    assert list(ro.records(0, 3)) == expected
    ro.close()


def test_a_segment_another_live_thread_used_last_is_not_evicted(tmp_path, budget):
    build(tmp_path / "t-0", 4)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    mine = Log.open(tmp_path / "t-0", read_only=True)
    theirs = ro.segments[0]
    used, done = threading.Event(), threading.Event()

    def other_thread():
        theirs.pread(0, 10)
        used.set()
        done.wait(10)

    t = threading.Thread(target=other_thread)
    t.start()
    try:
        assert used.wait(10)
        budget.set_limit(1)
        for seg in mine.segments:
            seg.pread(0, 10)
        assert not theirs.evicted  # it may be in the middle of a read over there
        assert mine.segments[0].evicted
    finally:
        done.set()
        t.join()
    mine.segments[1].pread(0, 10)  # that thread has ended: its segment may go now
    assert theirs.evicted
    ro.close()
    mine.close()


def test_closed_segment_is_an_error_not_a_reopen(tmp_path, budget):
    build(tmp_path / "t-0", 2)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    seg = ro.segments[0]
    ro.close()
    with pytest.raises(OSError):
        seg.pread(0, 10)
    assert budget.held == 0


def test_suspended_index_resumes_exactly_and_refuses_a_replaced_file(tmp_path):
    from kvlog.index import OffsetIndex

    path = str(tmp_path / "00000000000000000000.index")
    idx = OffsetIndex(path, 0, 4096)
    for i in range(10):
        idx.append(i * 5, i * 100)
    resumed = []
    idx.on_resume = lambda: resumed.append(True)
    assert idx.holds_descriptor and idx.suspend()
    assert idx.suspended and not idx.closed and not idx.holds_descriptor
    assert idx.entries == 10 and idx.last_entry == (45, 900)  # from memory, no remap
    assert resumed == []
    assert idx.lookup(23) == (20, 400) and resumed == [True]
    idx.append(50, 1000)
    assert idx.suspend()
    idx.flush()  # an fsync through the file; no mapping needed
    assert idx.suspended
    idx.trim_to_valid_size()
    assert os.path.getsize(path) == 11 * 8
    assert idx.suspend()
    with open(path + ".new", "wb") as f:
        f.write(bytes(88))
    os.replace(path + ".new", path)
    with pytest.raises(SegmentReplacedError):
        idx.lookup(3)
    idx.close()


def test_spark_python_scan_reads_through_evicted_segments(tmp_path, budget):
    """The Python Spark source's window reader takes each segment's descriptor through ``fileno()``."""
    from kvlog.spark._plan import _windows

    n = build(tmp_path / "t-0", 30)
    ro = Log.open(tmp_path / "t-0", read_only=True)
    expected = ro.to_arrow()
    budget.set_limit(1)
    got = [t for t in _windows(ro, 0, n, 256, False)]
    assert budget.evictions >= 28
    offsets = [o for t in got for o in t.column("offset").to_pylist()]
    values = [v for t in got for v in t.column("value").to_pylist()]
    assert offsets == expected.column("offset").to_pylist()
    assert values == expected.column("value").to_pylist()
    ro.close()


def test_a_dropped_segment_frees_its_descriptors_without_the_cycle_collector(tmp_path):
    """A segment nobody closed (a reader's open that failed half-way) gives its descriptors back as soon as
    it is unreferenced: it must not sit in a reference cycle until the cyclic collector runs."""
    import gc

    from kvlog.segment import LogSegment

    path = str(tmp_path / "t-0")
    with kvlog.Log.open(path) as log:
        log.append([kvlog.Record(b"k", b"v", 1)])
    before = len(os.listdir("/proc/self/fd"))
    gc.disable()
    try:
        for read_only in (True, False):
            seg = LogSegment(path, 0, read_only=read_only)
            assert len(os.listdir("/proc/self/fd")) > before
            del seg
            assert len(os.listdir("/proc/self/fd")) == before, read_only
    finally:
        gc.enable()
