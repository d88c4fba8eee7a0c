"""Aborted transactions in segments without a trustworthy ``.txnindex`` (raw segment files, a copy without
indexes or checkpoints, a damaged index): read_committed must still leave them out, on read-only and
writable opens alike.

A writable open's recovery rebuilds the transaction index of every segment it re-reads (replaying the
producers from a snapshot at or before it, or from the log start); a read-only open derives the same
entries in memory on first read_committed use and writes nothing. The oracle here is a small, obvious
replay over ``MemoryRecords`` batches: per producer, a transaction starts at its first transactional
batch after its previous marker and ends at its next COMMIT/ABORT marker; the last stable offset is the
first offset of the oldest transaction still open, else the log end offset.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import LogConfig, MemoryRecords, Record, encode_batch
from kvlog.log import READ_COMMITTED, Log
from kvlog.segment import LogSegment
from kvlog.txn_index import ENTRY_DTYPE

T0 = 1_700_000_000_000
SUFFIXES = (".index", ".timeindex", ".txnindex")


# ----------------------------------------------------------------------------------------- building
def _data(offset: int, pid: int, n: int, seq: int, compression: str = "none") -> bytes:
    recs = [Record(b"k%d" % (pid % 3), b"p%d@%d" % (pid, offset + j), T0 + offset + j) for j in range(n)]
    return encode_batch(recs, base_offset=offset, producer_id=pid, producer_epoch=0, base_sequence=seq,
                        is_transactional=True, compression=compression)


def _marker(offset: int, pid: int, commit: bool, coordinator_epoch: int = 7) -> bytes:
    rec = Record(key=struct.pack(">hh", 0, 1 if commit else 0), value=struct.pack(">hi", 0, coordinator_epoch),
                 timestamp=T0 + offset)
    return encode_batch([rec], base_offset=offset, producer_id=pid, producer_epoch=0, is_transactional=True,
                        is_control=True)


def _plain(offset: int, n: int) -> bytes:
    return encode_batch([Record(b"plain", b"plain@%d" % (offset + j), T0 + offset + j) for j in range(n)],
                        base_offset=offset)


def _build(ops: list[tuple[str, int, int]]) -> list[list[bytes]]:
    """Batches for ``ops`` (``("data", pid, n)``, ``("plain", 0, n)``, ``("commit"|"abort", pid, 0)``,
    ``("split", 0, 0)`` to start a new segment), grouped by segment."""
    segments: list[list[bytes]] = [[]]
    off, seq = 0, {}
    for kind, pid, n in ops:
        if kind == "split":
            if segments[-1]:
                segments.append([])
            continue
        if kind == "data":
            segments[-1].append(_data(off, pid, n, seq.get(pid, 0), "gzip" if (off + pid) % 4 == 0 else "none"))
            seq[pid] = seq.get(pid, 0) + n
        elif kind == "plain":
            segments[-1].append(_plain(off, n))
        else:
            segments[-1].append(_marker(off, pid, kind == "commit"))
            n = 1
        off += n
    return [s for s in segments if s]


def _write_raw(partition_dir: str, segments: list[list[bytes]]) -> None:
    """Bare ``.log`` files, as a broker's directory copied without its indexes (test_spark_jvm's layout)."""
    os.makedirs(partition_dir)
    for batches in segments:
        base = MemoryRecords(batches[0]).batch_headers(check_crc=False)["base_offset"][0]
        with open(os.path.join(partition_dir, f"{int(base):020d}.log"), "wb") as f:
            f.write(b"".join(batches))


def _tree(root: str) -> dict[str, tuple[int, int]]:
    """Every file under ``root``: (size, mtime_ns), to show that a reader wrote nothing."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            st_ = os.stat(os.path.join(d, n))
            out[os.path.relpath(os.path.join(d, n), root)] = (st_.st_size, st_.st_mtime_ns)
    return out


# ---------------------------------------------------------------------------------------- reference
def reference(partition_dir: str) -> tuple[list[tuple[int, int, int]], int, list[tuple[int, bytes]]]:
    """(aborted (producer, first offset, marker offset), last stable offset, read_committed (offset, value))
    from the ``.log`` files alone."""
    names = sorted(n for n in os.listdir(partition_dir) if n.endswith(".log"))
    batches = []
    for n in names:
        with open(os.path.join(partition_dir, n), "rb") as f:
            batches.extend(MemoryRecords(f.read()).batches())
    open_txn: dict[int, int] = {}        # producer -> first offset of its open transaction
    members: dict[int, list[int]] = {}   # producer -> offsets of its open transaction's records
    fate: dict[int, str] = {}
    value: dict[int, bytes] = {}
    aborted = []
    end = 0
    for b in batches:
        end = b.last_offset + 1
        recs = list(b.records())
        if b.is_control:
            kind = struct.unpack(">hh", recs[0].key)[1]
            first = open_txn.pop(b.producer_id, None)
            for o in members.pop(b.producer_id, []):
                fate[o] = "committed" if kind == 1 else "aborted"
            if first is not None and kind == 0:
                aborted.append((b.producer_id, first, b.base_offset))
            continue
        for r in recs:
            value[r.offset] = r.value
            if b.is_transactional:
                open_txn.setdefault(b.producer_id, b.base_offset)
                members.setdefault(b.producer_id, []).append(r.offset)
                fate[r.offset] = "open"
            else:
                fate[r.offset] = "plain"
    lso = min(open_txn.values(), default=end)
    committed = [(o, value[o]) for o in sorted(fate) if fate[o] in ("plain", "committed") and o < lso]
    return aborted, lso, committed


def view(log: Log) -> tuple[list[tuple[int, int, int]], int, list[tuple[int, bytes]]]:
    """The same three things as the log answers them, through records(), to_arrow() and read()."""
    lso = log.last_stable_offset
    aborted = [(a.producer_id, a.first_offset, a.last_offset) for a in log.aborted_transactions(0, 2**62)]
    committed = [(r.offset, r.value) for r in log.records(isolation_level=READ_COMMITTED)]
    t = log.to_arrow(isolation_level=READ_COMMITTED)
    assert list(zip(t.column("offset").to_pylist(), t.column("value").to_pylist())) == committed
    fetched, offset = [], log.log_start_offset
    while offset < lso:  # a consumer's fetch loop at read_committed, a segment at most per fetch
        got = log.read(offset, 1 << 20, isolation_level=READ_COMMITTED)
        fetched += [(r.offset, r.value) for r in got.records() if r.offset >= offset]
        # a fetch whose batches were all aborted comes back empty: the same fetch uncommitted says where
        # it ended (a Kafka consumer gets the aborted batches and skips them itself)
        step = got if len(got) else log.read(offset, 1 << 20, max_offset=lso)
        if not len(step):
            break
        offset = int(step.batch_headers(check_crc=False)["last_offset"][-1]) + 1
    assert fetched == committed
    return aborted, lso, committed


def _txn_files(partition_dir: str) -> dict[str, bytes]:
    out = {}
    for n in sorted(os.listdir(partition_dir)):
        if n.endswith(".txnindex"):
            with open(os.path.join(partition_dir, n), "rb") as f:
                out[n] = f.read()
    return out


def _derived_bytes(log: Log) -> dict[str, bytes]:
    """A reader's transaction-index entries per segment, as the files a writer would hold (none when empty)."""
    return {f"{seg.base_offset:020d}.txnindex": seg.txn_index.entries.astype(ENTRY_DTYPE).tobytes()
            for seg in log.segments if len(seg.txn_index.entries)}


# -------------------------------------------------------------------------------------------- cases
# Producers 1-4 interleaved over three segments: 1 aborts across a segment boundary, 2 aborts inside
# segment 0, 3 commits, 4 aborts twice (the second time inside the last segment), 5 is left open.
CASE = [
    ("data", 1, 2), ("data", 2, 2), ("plain", 0, 1), ("data", 1, 1), ("abort", 2, 0), ("data", 3, 3),
    ("split", 0, 0),
    ("data", 4, 2), ("abort", 1, 0), ("data", 1, 1), ("commit", 3, 0), ("plain", 0, 2), ("abort", 4, 0),
    ("commit", 1, 0), ("split", 0, 0),
    ("data", 2, 1), ("data", 4, 1), ("data", 5, 2), ("commit", 2, 0), ("plain", 0, 1), ("abort", 4, 0),
    ("plain", 0, 1),
]


def test_the_case_itself():
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "t-0")
        _write_raw(d, _build(CASE))
        aborted, lso, committed = reference(d)
    assert aborted == [(2, 2, 6), (1, 0, 12), (4, 10, 17), (4, 20, 25)]  # 1's spans segments 0 and 1
    assert lso == 21  # producer 5's open transaction; the plain record after it is not readable
    assert {v.split(b"@")[0] for _, v in committed} == {b"p3", b"p1", b"p2", b"plain"}


def test_read_only_open_of_raw_segments_derives_aborted_transactions(tmp_path):
    d = str(tmp_path / "t-0")
    _write_raw(d, _build(CASE))
    want = reference(d)
    before = _tree(str(tmp_path))
    with Log.open(d, read_only=True) as log:
        assert len(log.segments) == 3
        assert log.last_stable_offset == want[1]
        assert view(log) == want
        assert all(not seg.txn_index.exists() for seg in log.segments)
        assert [seg.txn_index.derived for seg in log.segments] == [True, True, True]
    assert _tree(str(tmp_path)) == before  # a reader writes nothing: no .txnindex, index, snapshot, checkpoint


def test_aborted_transactions_alone_triggers_the_derivation(tmp_path):
    d = str(tmp_path / "t-0")
    _write_raw(d, _build(CASE))
    with Log.open(d, read_only=True) as log:  # no read, no last_stable_offset first
        got = [(a.producer_id, a.first_offset, a.last_offset) for a in log.aborted_transactions(14, 20)]
    assert got == [(4, 10, 17)]  # (2, 2, 6) and (1, 0, 12) end before 14; (4, 20, 25) starts at 20


def test_writable_open_rebuilds_the_files_the_reader_derived(tmp_path):
    raw = str(tmp_path / "raw" / "t-0")
    _write_raw(raw, _build(CASE))
    want = reference(raw)
    with Log.open(raw, read_only=True) as reader:
        view(reader)
        derived = _derived_bytes(reader)
    rw = str(tmp_path / "rw" / "t-0")
    shutil.copytree(raw, rw)
    with Log.open(rw) as writer:
        assert view(writer) == want
    assert _txn_files(rw) == derived
    assert set(derived) == {f"{base:020d}.txnindex" for base in (0, 10, 19)}
    # with the files (and indexes, snapshot, recovery point) present the answers are unchanged
    with Log.open(rw, read_only=True) as log:
        assert view(log) == want


def test_a_reader_trusts_the_files_of_a_clean_log_and_rescans_nothing(tmp_path, monkeypatch):
    """A log whose recovery point vouches for its segments: read_committed reads no segment twice (the
    segments before the active one are not scanned at all; the active one, which a writer's recovery would
    re-read since it holds the recovery point, is read once, on the first read_committed use: its open is
    trusted and reads only its tail)."""
    root = str(tmp_path)
    with kvlog.LogManager(root, LogConfig(segment_bytes=600)) as m:
        (log,) = m.create_topic("t", 1)
        seq = {7: 0, 8: 0}
        for i in range(30):
            pid = 7 + i % 2
            log.append([Record(b"k", b"v%d" % i, T0 + i)], producer_id=pid, producer_epoch=0,
                       base_sequence=seq[pid], is_transactional=True)
            seq[pid] += 1
            if i % 3 == 2:
                log.end_transaction(pid, 0, commit=i % 2 == 0)
        for pid in (7, 8):
            log.end_transaction(pid, 0, commit=False)
        log.append([Record(b"k", b"tail", T0)])
    d = os.path.join(root, "t-0")
    want = reference(d)
    assert len(_txn_files(d)) >= 2 and want[0]
    scanned: list[int] = []
    real = LogSegment.iter_headers

    def counting(self, *a, **kw):
        scanned.append(self.base_offset)
        return real(self, *a, **kw)

    with Log.open(d, read_only=True) as reader:
        monkeypatch.setattr(LogSegment, "iter_headers", counting)
        assert view(reader) == want
        assert len(reader.segments) > 3
        assert scanned in ([], [reader.segments[-1].base_offset])
        assert not any(seg.txn_index.derived for seg in reader.segments[:-1])


@pytest.mark.parametrize("victim_of", ["first", "last"])
def test_some_segments_with_a_txnindex_and_some_without(tmp_path, victim_of):
    """Segments whose offset index is gone are re-read by recovery: their transaction index is derived (a
    reader in memory, a writer on disk), the others keep their files. A transaction that starts in a kept
    segment and is aborted in a derived one gets its true first offset: the producers are replayed from
    the log start ("first": no snapshot at or before that segment), or from the snapshot named after the
    segment, which carries the open transaction's first offset ("last")."""
    root = str(tmp_path / "w")
    with kvlog.LogManager(root, LogConfig(segment_bytes=500)) as m:
        (log,) = m.create_topic("t", 1)
        seq = {1: 0, 2: 0, 3: 0}

        def data(pid, i):
            log.append([Record(b"k", b"p%d-%d" % (pid, i), T0 + i)], producer_id=pid, producer_epoch=0,
                       base_sequence=seq[pid], is_transactional=True)
            seq[pid] += 1

        for i in range(40):
            data(1 + i % 3, i)
            if i % 5 == 4:
                log.end_transaction(1 + i % 3, 0, commit=i % 10 == 4)
            if i % 7 == 6:
                log.end_transaction(1 + (i + 1) % 3, 0, commit=False)
        log.append([Record(b"k", b"tail", T0)])
    d = os.path.join(root, "t-0")
    want = reference(d)
    files = _txn_files(d)
    with Log.open(d, read_only=True) as log:
        bases = [seg.base_offset for seg in log.segments]
    assert len(bases) > 4 and len(files) >= 3
    # an aborted transaction whose data starts in an earlier segment than its marker
    spanning = [a for a in want[0] if bases.index(max(b for b in bases if b <= a[1]))
                < bases.index(max(b for b in bases if b <= a[2]))]
    assert len(spanning) >= 2
    txn = spanning[0] if victim_of == "first" else spanning[-1]
    victim = max(b for b in bases if b <= txn[2])  # the segment holding that marker
    for sfx in (".index", ".txnindex"):
        os.unlink(os.path.join(d, f"{victim:020d}{sfx}"))
    snapshots = sorted(int(n[:20]) for n in os.listdir(d) if n.endswith(".snapshot"))
    assert (victim in snapshots) == (victim_of == "last") and min(snapshots) > txn[1]
    before = _tree(root)
    with Log.open(d, read_only=True) as log:
        assert view(log) == want
        derived = _derived_bytes(log)
        flags = {seg.base_offset: seg.txn_index.derived for seg in log.segments}
    assert _tree(root) == before
    assert flags[victim] and derived == files  # byte for byte what the writer had written
    with Log.open(d) as writer:
        assert view(writer) == want
    assert _txn_files(d) == files


def test_an_empty_txnindex_of_a_trusted_segment_is_not_rescanned(tmp_path, monkeypatch):
    root = str(tmp_path)
    with kvlog.LogManager(root, LogConfig(segment_bytes=400)) as m:
        (log,) = m.create_topic("t", 1)
        for i in range(20):
            log.append([Record(b"k", b"v%d" % i, T0 + i)], producer_id=4, producer_epoch=0, base_sequence=i,
                       is_transactional=True)
            log.end_transaction(4, 0, commit=True)
    d = os.path.join(root, "t-0")
    for n in os.listdir(d):
        if n.endswith(".log"):
            open(os.path.join(d, n[:-4] + ".txnindex"), "wb").close()  # Kafka-style empty files
    scanned: list[int] = []
    real = LogSegment.iter_headers
    monkeypatch.setattr(LogSegment, "iter_headers",
                        lambda self, *a, **kw: (scanned.append(self.base_offset), real(self, *a, **kw))[1])
    with Log.open(d, read_only=True) as reader:
        scanned.clear()
        assert view(reader) == reference(d)
        assert scanned in ([], [reader.segments[-1].base_offset])  # (the active one: once, see above)


def test_a_dropped_txnindex_of_a_vouched_for_segment_goes_unnoticed_as_in_kafka(tmp_path):
    """The documented limit: a segment the recovery point vouches for, with its offset index intact and a
    snapshot after it, keeps its files' word, and no file means no aborts (how Kafka writes and reads
    them; rescanning such segments would make every read_committed read scan the log). Reader and writer
    agree, and without the recovery-point checkpoint both rebuild it."""
    root = str(tmp_path / "w")
    with kvlog.LogManager(root, LogConfig(segment_bytes=300)) as m:
        (log,) = m.create_topic("t", 1)
        for i in range(12):
            log.append([Record(b"k", b"v%d" % i, T0 + i)], producer_id=3, producer_epoch=0, base_sequence=i,
                       is_transactional=True)
            log.end_transaction(3, 0, commit=i != 1)
    d = os.path.join(root, "t-0")
    want = reference(d)
    (dropped,) = _txn_files(d)
    os.unlink(os.path.join(d, dropped))
    with Log.open(d, read_only=True) as reader:
        got = view(reader)
    assert got != want and got[0] == [] and (2, b"v1") in got[2]  # the aborted record is read
    copy = str(tmp_path / "copy")
    shutil.copytree(root, copy)
    with Log.open(os.path.join(copy, "t-0")) as writer:
        assert view(writer) == got
    os.unlink(os.path.join(root, "recovery-point-offset-checkpoint"))
    with Log.open(d, read_only=True) as reader:
        assert view(reader) == want
    assert dropped not in os.listdir(d)


def test_read_only_last_stable_offset_without_snapshot_or_txnindex(tmp_path):
    d = str(tmp_path / "t-0")
    segments = _build([("data", 1, 2), ("data", 2, 1), ("commit", 1, 0), ("split", 0, 0), ("plain", 0, 2),
                       ("data", 3, 1), ("abort", 2, 0), ("split", 0, 0), ("plain", 0, 1)])
    _write_raw(d, segments)
    with Log.open(d, read_only=True) as log:
        assert log.last_stable_offset == 6  # producer 3, still open (2 aborted at 7, 1 committed at 3)
        assert log.high_watermark == log.log_end_offset == 9
    shutil.rmtree(d)
    _write_raw(d, _build([("data", 1, 2), ("abort", 1, 0), ("split", 0, 0), ("plain", 0, 2)]))
    with Log.open(d, read_only=True) as log:
        assert log.last_stable_offset == log.log_end_offset == 5  # nothing open: the high watermark


OPS = st.one_of(
    st.tuples(st.just("data"), st.integers(1, 4), st.integers(1, 3)),
    st.tuples(st.just("plain"), st.just(0), st.integers(1, 2)),
    st.tuples(st.sampled_from(["commit", "abort"]), st.integers(1, 4), st.just(0)),
    st.tuples(st.just("split"), st.just(0), st.just(0)),
)


@given(ops=st.lists(OPS, min_size=1, max_size=40), drop=st.lists(st.booleans(), max_size=8),
       drop_txn_only=st.booleans(), keep_snapshots=st.booleans())
def test_random_interleavings_against_the_reference(ops, drop, drop_txn_only, keep_snapshots):
    """Random producers, commits, aborts and segment splits as raw files: the reader (in memory), the
    writer (files rebuilt) and a reader of the writer's result all match the reference. Then indexes
    are dropped at random from the written log: a reader always answers what a writer's recovery of the
    same files answers, and here that is the reference."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw", "t-0")
        _write_raw(raw, _build(ops))
        want = reference(raw)
        before = _tree(os.path.join(tmp, "raw"))
        with Log.open(raw, read_only=True) as log:
            assert view(log) == want
            derived = _derived_bytes(log)
        assert _tree(os.path.join(tmp, "raw")) == before
        rw = os.path.join(tmp, "rw", "t-0")
        shutil.copytree(raw, rw)
        with Log.open(rw) as log:
            assert view(log) == want
        assert _txn_files(rw) == derived
        with Log.open(rw, read_only=True) as log:
            assert view(log) == want
        # damage: per segment, drop its offset index (recovery re-reads it) or only its .txnindex
        logs = sorted(n for n in os.listdir(rw) if n.endswith(".log"))
        for name, hit in zip(logs, drop):
            if hit:
                for sfx in ((".txnindex",) if drop_txn_only else (".index", ".txnindex")):
                    p = os.path.join(rw, name[:-4] + sfx)
                    if os.path.exists(p):
                        os.unlink(p)
        if not keep_snapshots:
            for n in os.listdir(rw):
                if n.endswith(".snapshot"):
                    os.unlink(os.path.join(rw, n))
        copy = os.path.join(tmp, "copy", "t-0")
        shutil.copytree(os.path.dirname(rw), os.path.dirname(copy))
        before = _tree(os.path.dirname(rw))
        with Log.open(rw, read_only=True) as log:
            got = view(log)
        assert _tree(os.path.dirname(rw)) == before
        with Log.open(copy) as log:
            assert view(log) == got  # a reader sees what a writer's recovery of the same files leaves
        # the writer took no snapshot at a segment base (it found bare .log files and never rolled), so
        # every replay starts at the log start and rebuilds every segment's entries
        assert got == want


# ------------------------------------------------------------------------------------------- Spark
@pytest.mark.spark
def test_spark_python_source_read_committed_on_raw_segments(spark, tmp_path):
    pytest.importorskip("pyspark")
    import kvlog.spark
    from kvlog.spark import _plan

    root = str(tmp_path / "root")
    d = os.path.join(root, "t-0")
    _write_raw(d, _build(CASE))
    aborted, lso, committed = reference(d)
    # the plan layer an executor runs, over two ranges
    rows = []
    for lo, hi in ((0, 11), (11, 40)):
        r = _plan.OffsetRange("t", 0, d, lo, hi)
        for b in _plan.read_range(r, include_headers=False, read_committed=True):
            rows += list(zip(b.column(b.schema.get_field_index("offset")).to_pylist(),
                             b.column(b.schema.get_field_index("value")).to_pylist()))
    assert rows == committed
    # the Python source through Spark, by the name it registers under
    fmt = kvlog.spark.KvlogDataSource.name()
    for extra in ({}, {"maxRecordsPerPartition": "4"}):
        df = (spark.read.format(fmt).option("subscribe", "t").option("kafka.isolation.level", "read_committed")
              .options(**extra)
              .load(root))
        got = [(r.offset, bytes(r.value)) for r in df.orderBy("offset").collect()]
        assert got == committed
    assert sorted(os.listdir(d)) == [f"{base:020d}.log" for base in (0, 10, 19)]  # executors wrote nothing
