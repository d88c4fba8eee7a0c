"""Backup and restore with exact offsets (issue 28): round trips, incremental runs, older runs, interrupted runs,
cuts at a time checked against a brute-force oracle, damage named, object stores."""

from __future__ import annotations

import os
import random
import shutil

import numpy as np
import pytest

from kvlog import LogConfig, Record, checkpoint
from kvlog._core import records as _k
from kvlog.backup import run as run_mod
from kvlog.backup.check import verify_backup
from kvlog.backup.restore import cut_offset, restore
from kvlog.backup.run import backup
from kvlog.cleaner import LogCleaner
from kvlog.cli import main
from kvlog.errors import BackupError, ConfigError
from kvlog.log import Log
from kvlog.manager import LogManager
from kvlog.segment import LogSegment
from kvlog.verify import verify_path
from oracles import peer_encode

TID = "AAAAAAAAAAAAAAAAAAAAAQ"
TID2 = "AAAAAAAAAAAAAAAAAAAAAg"
SMALL = LogConfig(segment_bytes=4096)


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# ----------------------------------------------------------------------------------------- builders
def _fill(log: Log, n: int, *, start_ts: int = 1_000, codec: str | None = None, batch: int = 5) -> None:
    for i in range(0, n, batch):
        log.append([Record(b"k%d" % ((i + j) % 7), b"v%06d" % (i + j) * 3, start_ts + i + j,
                           headers=[("h", b"%d" % j)]) for j in range(batch)], compression=codec)


def _txns(log: Log, rounds: int, ts: int = 5_000) -> None:
    seq = {7: 0, 8: 0}
    for r in range(rounds):
        for pid in (7, 8):
            log.append([Record(b"t%d" % pid, b"x%d" % r, ts + r)], producer_id=pid, producer_epoch=0,
                       base_sequence=seq[pid], is_transactional=True)
            seq[pid] += 1
        log.end_transaction(7, 0, commit=True, coordinator_epoch=0)
        log.end_transaction(8, 0, commit=r % 2 == 0, coordinator_epoch=0)


def writer_dir(root) -> str:
    """A kvlog-written data directory: every codec, transactions (committed and aborted), a compacted topic,
    legacy v0/v1 batches, several segments per partition."""
    root = str(root)
    with LogManager(root) as m:
        m.create_topic("codecs", 5, SMALL)
        for p, codec in enumerate(["none", "gzip", "snappy", "lz4", "zstd"]):
            _fill(m.log("codecs", p), 200, codec=codec)
        m.create_topic("txn", 1, SMALL)
        _txns(m.log("txn", 0), 30)
        m.create_topic("compacted", 1, LogConfig(segment_bytes=2048, cleanup_policy="compact"))
        _fill(m.log("compacted", 0), 300)
        m.create_topic("legacy", 1, SMALL)
        log = m.log("legacy", 0)
        off = 0
        for magic in (0, 1):
            for i in range(20):
                recs = [{"timestamp": 2_000 + off + j, "key": b"k", "value": b"legacy%d" % (off + j)} for j in range(3)]
                log.append(peer_encode("kafka-python", magic, recs, base_offset=off),
                           assign_offsets=False)
                off += 3
    with Log.open(os.path.join(root, "compacted-0"), LogConfig(segment_bytes=2048, cleanup_policy="compact")) as log:
        LogCleaner().clean(log, full=True)
    return root


def batches(directory: str, end: int | None = None, *, epochs: bool = False) -> list[bytes]:
    """Every batch's bytes in a partition directory, in offset order, up to ``end``; a v2 batch's partition
    leader epoch (outside the CRC; a restore sets it to 0) masked unless ``epochs``."""
    out = []
    for name in sorted(n for n in os.listdir(directory) if n.endswith(".log") and len(n) == 24):
        data = _read(os.path.join(directory, name))
        heads = np.empty(100_000, _k.BATCH_DTYPE)
        count, _pos, _st, err = _k.scan(data, 0, len(data), heads, True, False)
        assert err is None
        for h in heads[:count]:
            if end is not None and h["last_offset"] >= end:
                return out
            b = data[h["position"]:h["position"] + h["size"]]
            out.append(b if epochs or h["magic"] < 2 else b[:12] + b"\0\0\0\0" + b[16:])
    return out


def _masked(data: bytes) -> bytes:
    """A segment's bytes with every v2 batch's partition leader epoch zeroed (what a restore writes)."""
    heads = np.empty(100_000, _k.BATCH_DTYPE)
    count, *_ = _k.scan(data, 0, len(data), heads, False, False)
    out = bytearray(data)
    for h in heads[:count]:
        if h["magic"] == 2:
            out[h["position"] + 12:h["position"] + 16] = b"\0\0\0\0"
    return bytes(out)


def rebuilt(directory: str, base: int, interval: int = 4096) -> tuple[bytes, bytes]:
    """What Kafka's recovery rules build for a segment: the indexes of a copy, rebuilt."""
    scratch = directory + ".oracle"
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    shutil.copy(os.path.join(directory, f"{base:020d}.log"), scratch)
    seg = LogSegment(scratch, base, index_interval_bytes=interval)
    seg.recover(dense=False)
    seg.close()
    out = tuple(_read(os.path.join(scratch, f"{base:020d}{s}")) for s in (".index", ".timeindex"))
    shutil.rmtree(scratch)
    return out  # type: ignore[return-value]


def ranges(root: str) -> dict[tuple[str, int], tuple[int, int]]:
    with LogManager(root, read_only=True) as m:
        return {(t, p): (m.log(t, p).log_start_offset, m.log(t, p).log_end_offset)
                for t in m.topics() for p in m.partitions(t)}


def assert_restored_equal(src_root: str, out_root: str, expect: dict[tuple[str, int], tuple[int, int]]) -> None:
    for (topic, part), (start, end) in expect.items():
        d = os.path.join(out_root, f"{topic}-{part}")
        assert batches(d, end) == batches(os.path.join(src_root, f"{topic}-{part}"), end), (topic, part)
        with Log.open(d, read_only=True) as log:
            assert (log.log_start_offset, log.log_end_offset) == (start, end), (topic, part)
        logs = sorted(n for n in os.listdir(d) if n.endswith(".log"))
        for name in logs:
            # each segment's indexes: the source's own (a closed segment copied whole) or exactly what Kafka's
            # recovery builds for the restored bytes (the segment a backup or a restore cut)
            base = int(name[:20])
            got = (_read(os.path.join(d, f"{base:020d}.index")), _read(os.path.join(d, f"{base:020d}.timeindex")))
            theirs = os.path.join(src_root, f"{topic}-{part}", f"{base:020d}")
            same_log = os.path.exists(theirs + ".log") and _masked(_read(theirs + ".log")) == _masked(
                _read(os.path.join(d, name)))
            source = (_read(theirs + ".index"), _read(theirs + ".timeindex")) if same_log and name != logs[-1] else None
            assert got == rebuilt(d, base) or got == source, (topic, part, name)
        assert _read(os.path.join(d, "partition.metadata")).startswith(b"version: 0\ntopic_id: ")
    reports, _ = verify_path(out_root)
    assert not [r.errors for r in reports if r.errors]


# ------------------------------------------------------------------------------------------- round trips
def test_writer_made_directory_round_trips_with_every_offset(tmp_path):
    src = writer_dir(tmp_path / "src")
    expect = ranges(src)
    r = backup(src, tmp_path / "bak")
    assert r.run == 1 and not r.errors
    assert ranges(str(tmp_path / "bak")) == expect  # the backup reads as the directory it copied
    out = str(tmp_path / "broker")
    res = restore(tmp_path / "bak", out, topic_ids={t: TID for t, _ in expect} | {"txn": TID2})
    assert {(p.topic, p.partition): (p.log_start_offset, p.end_offset) for p in res.partitions.values()} == expect
    assert_restored_equal(src, out, expect)
    assert _read(os.path.join(out, "txn-0", "partition.metadata")) == f"version: 0\ntopic_id: {TID2}".encode()
    # read_committed sees the same records (aborted transactions from the restored transaction indexes)
    with Log.open(os.path.join(src, "txn-0"), read_only=True) as a, Log.open(os.path.join(out, "txn-0"),
                                                                          read_only=True) as b:
        assert a.to_arrow(isolation_level="read_committed").equals(b.to_arrow(isolation_level="read_committed"))
        assert len(b.aborted_transactions(0, b.log_end_offset)) == 15
    # no recovery points: the broker recovers the restored partitions fully at its next start
    assert checkpoint.read_offsets(os.path.join(out, checkpoint.RECOVERY_POINT)) == {}
    assert checkpoint.read_offsets(os.path.join(out, checkpoint.LOG_START_OFFSET)) == {k: v[0] for k, v in expect.items()}


def test_broker_shaped_directory_cuts_at_the_checkpointed_high_watermark(tmp_path, kraft_segment):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("orders", 2, SMALL, topic_id=TID)
        for p in (0, 1):
            _fill(m.log("orders", p), 150)
    for p in (0, 1):
        d = src / f"orders-{p}"
        (d / "partition.metadata").write_text(f"version: 0\ntopic_id: {TID}\n")  # as a 4.x broker writes it
        (d / "leader-epoch-checkpoint").write_text("0\n2\n0 0\n3 120\n")
    # the broker checkpointed its high watermarks a moment ago: partition 0 lags its log end
    checkpoint.write_offsets(str(src / checkpoint.REPLICATION_OFFSET), {("orders", 0): 100, ("orders", 1): 150})
    (src / "meta.properties").write_text("version=1\ncluster.id=abc\nnode.id=1\n")
    md = src / "__cluster_metadata-0"
    md.mkdir()
    shutil.copy(kraft_segment, md)
    (md / "quorum-state").write_text('{"leaderId":1}')
    # a torn write past the high watermark at the end of partition 0's active segment
    last = sorted((src / "orders-0").glob("*.log"))[-1]
    with open(last, "ab") as f:
        f.write(b"\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\xff\x01\x02")
    r = backup(src, tmp_path / "bak")
    assert not r.errors, r.errors
    man = run_mod.latest_manifest(run_mod.open_target(str(tmp_path / "bak")))
    assert (man.partitions["orders-0"].end_offset, man.partitions["orders-0"].cut) == (100, "high_watermark")
    assert man.partitions["orders-1"].end_offset == 150
    assert man.partitions["orders-0"].topic_id == TID
    assert "__cluster_metadata-0/00000000000000000000.log" in man.files
    assert "__cluster_metadata-0/quorum-state" in man.files
    assert ".kvlog-backup/runs/00000000000000000001/root/meta.properties" in man.files
    # the epoch entry past the cut goes (Kafka's truncateFromEnd), the one below stays
    assert (tmp_path / "bak/orders-0/leader-epoch-checkpoint").read_text() == "0\n1\n0 0\n"
    assert (tmp_path / "bak/orders-1/leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n3 120\n"
    assert ranges(str(tmp_path / "bak"))[("orders", 0)] == (0, 100)
    out = tmp_path / "broker"
    (out / "orders-0").mkdir(parents=True)  # the topic as the target cluster created it (another id)
    (out / "orders-0" / "partition.metadata").write_text(f"version: 0\ntopic_id: {TID2}\n")
    res = restore(tmp_path / "bak", out)
    assert res.partitions["orders-0"].topic_id == TID2 and res.partitions["orders-1"].topic_id == TID2
    assert "__cluster_metadata-0" not in os.listdir(out)  # the target cluster has its own
    assert (out / "orders-0" / "leader-epoch-checkpoint").read_text() == "0\n1\n0 0\n"
    assert_restored_equal(str(src), str(out), {("orders", 0): (0, 100), ("orders", 1): (0, 150)})
    assert sorted(os.listdir(out)) == [".kvlog-restore-journal", "kvlog-topics.json", "log-start-offset-checkpoint",
                                       "orders-0", "orders-1", "replication-offset-checkpoint"]
    with pytest.raises(ConfigError, match="__cluster_metadata is never restored"):
        restore(tmp_path / "bak", tmp_path / "x", topics=["__cluster_metadata"], keep_topic_ids=True)


# --------------------------------------------------------------------------------------- incremental
def test_incremental_runs_copy_only_what_changed_and_older_runs_restore(tmp_path):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        for p in (0, 1):
            _fill(m.log("t", p), 200)
    first = ranges(str(src))
    snap1 = tmp_path / "snap1"
    shutil.copytree(src, snap1)
    r1 = backup(src, tmp_path / "bak")
    again = backup(src, tmp_path / "bak")
    assert again.run is None and again.files_copied == 0 and again.previous_run == 1
    with LogManager(str(src)) as m:
        _fill(m.log("t", 0), 100, start_ts=9_000)
    r2 = backup(src, tmp_path / "bak")
    assert r2.run == 2
    # partition 1 untouched: nothing of it copied; partition 0: only its grown segment and the new ones
    segs0 = len([n for n in os.listdir(src / "t-0") if n.endswith(".log")])
    assert r2.files_unchanged >= r1.files_copied - 3 * 2 - 2
    assert r2.files_copied <= 3 * (segs0 - len([n for n in os.listdir(snap1 / "t-0") if n.endswith(".log")]) + 1) + 2
    assert ranges(str(tmp_path / "bak")) == ranges(str(src))
    old = restore(tmp_path / "bak", tmp_path / "old", run=1, topic_ids={"t": TID})
    assert {(p.topic, p.partition): (p.log_start_offset, p.end_offset) for p in old.partitions.values()} == first
    assert_restored_equal(str(snap1), str(tmp_path / "old"), first)
    assert not verify_backup(tmp_path / "bak")


def test_a_compacted_partition_rewritten_between_runs_keeps_the_older_run(tmp_path):
    src = tmp_path / "src"
    cfg = LogConfig(segment_bytes=2048, cleanup_policy="compact")
    with LogManager(str(src)) as m:
        m.create_topic("c", 1, cfg)
        _fill(m.log("c", 0), 300)
    snap1 = tmp_path / "snap1"
    shutil.copytree(src, snap1)
    first = ranges(str(src))
    backup(src, tmp_path / "bak")
    with Log.open(str(src / "c-0"), cfg) as log:
        stats = LogCleaner().clean(log, full=True)
    assert stats.records_retained < stats.records_read
    r2 = backup(src, tmp_path / "bak")
    assert r2.run == 2 and r2.files_preserved > 0
    assert not verify_backup(tmp_path / "bak")
    restore(tmp_path / "bak", tmp_path / "old", run=1, topic_ids={"c": TID})
    assert_restored_equal(str(snap1), str(tmp_path / "old"), first)
    restore(tmp_path / "bak", tmp_path / "new", topic_ids={"c": TID})
    assert_restored_equal(str(src), str(tmp_path / "new"), ranges(str(src)))


# ------------------------------------------------------------------------------------------ crashes
class Killed(BaseException):
    """A process killed at this point: nothing after it runs (no except clause catches it)."""


def _kill_after(monkeypatch, cls, name, n):
    orig = getattr(cls, name)
    calls = [0]

    def wrapped(self, *a, **kw):
        calls[0] += 1
        if calls[0] > n:
            raise Killed()
        return orig(self, *a, **kw)

    monkeypatch.setattr(cls, name, wrapped)
    return calls


def test_a_backup_killed_at_every_write_resumes_and_readers_see_the_previous_run(tmp_path, monkeypatch):
    from kvlog.backup.target import LocalTarget

    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        for p in (0, 1):
            _fill(m.log("t", p), 120)
    clean = tmp_path / "clean"
    backup(src, clean)
    base = tmp_path / "base"
    backup(src, base)
    with LogManager(str(src)) as m:
        _fill(m.log("t", 0), 60, start_ts=9_000)
        _fill(m.log("t", 1), 60, start_ts=9_000)
    before = ranges(str(base))
    backup(src, clean)
    total = None
    for k in range(0, 40):
        bak = tmp_path / f"k{k}"
        shutil.copytree(base, bak)
        with monkeypatch.context() as mp:
            calls = _kill_after(mp, LocalTarget, "write", k)
            try:
                backup(src, bak, workers=1)
                total = calls[0]
            except Killed:
                pass
        if total is not None and k >= total:
            shutil.rmtree(bak)
            break
        # what readers see is the previous run, or the new one once published
        assert ranges(str(bak)) in (before, ranges(str(src)))
        r = backup(src, bak)
        assert not r.errors and r.run == 2
        restore(bak, tmp_path / f"r{k}", topic_ids={"t": TID})
        assert_restored_equal(str(src), str(tmp_path / f"r{k}"), ranges(str(src)))
        assert not verify_backup(bak)
        shutil.rmtree(bak)
        shutil.rmtree(tmp_path / f"r{k}")
    assert total is not None and total > 5


def test_a_restore_killed_at_every_step_resumes(tmp_path, monkeypatch):
    import kvlog.backup.restore as restore_mod

    src = writer_dir(tmp_path / "src")
    backup(src, tmp_path / "bak")
    expect = ranges(src)
    ids = {t: TID for t, _ in expect}
    done = None
    for k in range(0, 200, 7):
        out = tmp_path / f"o{k}"
        with monkeypatch.context() as mp:
            orig = restore_mod._write
            n = [0]

            def killing(path, data, _orig=orig, _n=n, _k=k):
                _n[0] += 1
                if _n[0] > _k:
                    raise Killed()
                _orig(path, data)

            mp.setattr(restore_mod, "_write", killing)
            try:
                restore(tmp_path / "bak", out, topic_ids=ids)
                done = n[0]
            except Killed:
                pass
        if done is not None and k >= done:
            break
        restore(tmp_path / "bak", out, topic_ids=ids)  # the same arguments finish it
        assert_restored_equal(src, str(out), expect)
        assert not any(n.endswith("-delete") for n in os.listdir(out))
        again = restore(tmp_path / "bak", out, topic_ids=ids)  # finished: the same command does nothing
        assert any("finished already" in w for w in again.warnings) and len(again.partitions) == len(expect)
        with pytest.raises(BackupError, match="already holds records"):  # another restore may not overwrite it
            restore(tmp_path / "bak", out, topic_ids=ids, as_of=1_000)
        shutil.rmtree(out)
    assert done is not None


# ------------------------------------------------------------------------------------------ cuts
def _oracle_cut(records: list[tuple[int, int, int, bool, bool, int]], end: int, as_of: int | None) -> int:
    """Brute force over records ``(offset, timestamp, producer id, transactional, control, batch base offset)``: the first batch holding a record stamped after ``as_of``; then the largest batch boundary at or
    below it where every producer's transaction has its marker before the boundary."""
    batches_: dict[int, list] = {}
    for rec in records:
        batches_.setdefault(rec[5], []).append(rec)
    firsts = sorted(batches_)
    bounds = firsts + [end]
    limit = end
    if as_of is not None:
        for b in firsts:
            if any(r[1] > as_of for r in batches_[b]):
                limit = b
                break
    for c in sorted((b for b in bounds if b <= limit), reverse=True):
        ok = True
        for pid in {r[2] for r in records if r[3] and not r[4]}:
            last_data = max((r[0] for r in records if r[2] == pid and r[3] and not r[4] and r[0] < c), default=None)
            if last_data is None:
                continue
            if not any(r[2] == pid and r[4] and last_data < r[0] < c for r in records):
                ok = False
        if ok:
            return c
    return firsts[0] if firsts else 0


@pytest.mark.parametrize("seed", range(12))
def test_as_of_cut_matches_a_brute_force_oracle(tmp_path, seed):
    rng = random.Random(seed)
    d = tmp_path / "t-0"
    seq: dict[int, int] = {}
    open_txn: set[int] = set()
    rows = []
    with Log.open(str(d), LogConfig(segment_bytes=rng.choice([1500, 1 << 20]))) as log:
        for i in range(rng.randint(5, 60)):
            ts = rng.randint(0, 1000)
            op = rng.random()
            if op < 0.5:
                info = log.append([Record(b"k", b"v", ts + j) for j in range(rng.randint(1, 3))])
                rows += [(o, ts + o - info.first_offset, -1, False, False, info.first_offset)
                         for o in range(info.first_offset, info.last_offset + 1)]
            elif op < 0.8:
                pid = rng.choice([5, 6, 7])
                info = log.append([Record(b"k", b"t", ts)], producer_id=pid, producer_epoch=0,
                                  base_sequence=seq.get(pid, 0), is_transactional=True)
                seq[pid] = seq.get(pid, 0) + 1
                open_txn.add(pid)
                rows.append((info.first_offset, ts, pid, True, False, info.first_offset))
            elif open_txn:
                pid = rng.choice(sorted(open_txn))
                open_txn.discard(pid)
                info = log.end_transaction(pid, 0, commit=rng.random() < 0.5, coordinator_epoch=0, timestamp=ts)
                rows.append((info.first_offset, ts, pid, True, True, info.first_offset))
        end = log.log_end_offset
    heads = np.concatenate([
        _scan_all(os.path.join(d, n)) for n in sorted(os.listdir(d)) if n.endswith(".log")])
    for as_of in [None, -1, 0, 250, 500, 999, 2000] + [rng.randint(0, 1000) for _ in range(5)]:
        got, _why = cut_offset(heads, 0, end, as_of)
        assert got == _oracle_cut(rows, end, as_of), (seed, as_of)


def _scan_all(path):
    data = _read(path)
    out = np.empty(100_000, _k.BATCH_DTYPE)
    count, *_ = _k.scan(data, 0, len(data), out, False, False)
    return out[:count].copy()


def test_as_of_restore_through_the_files_matches_the_oracle(tmp_path):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 1, SMALL)
        log = m.log("t", 0)
        _fill(log, 100, start_ts=1_000)
        _txns(log, 5, ts=3_000)
        _fill(log, 100, start_ts=2_000)
    backup(src, tmp_path / "bak")
    res = restore(tmp_path / "bak", tmp_path / "o", as_of=3_002, topic_ids={"t": TID})
    p = res.partitions["t-0"]
    # the first batch stamped after 3_002 is the first round's commit marker (markers carry the wall clock):
    # cutting there would leave its transaction open, so the cut moves to the transaction's first batch
    assert (p.end_offset, p.cut) == (100, "transaction")
    with Log.open(str(src / "t-0"), read_only=True) as s:
        tab = s.to_arrow(0, 100)
    assert max(t.timestamp() for t in tab.column("timestamp").to_pylist()) * 1000 <= 3_002
    assert_restored_equal(str(src), str(tmp_path / "o"), {("t", 0): (0, p.end_offset)})


# ------------------------------------------------------------------------------------------ damage
def test_damage_in_a_closed_source_segment_fails_that_partition_only(tmp_path, capfd):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        for p in (0, 1):
            _fill(m.log("t", p), 200)
    first = sorted((src / "t-0").glob("*.log"))[0]
    data = bytearray(first.read_bytes())
    data[200] ^= 0xFF
    first.write_bytes(bytes(data))
    assert main(["backup", str(src), str(tmp_path / "bak")]) == 1
    err = capfd.readouterr().err
    assert "t-0: not backed up" in err and str(first) in err and "CRC mismatch" in err
    got = ranges(str(tmp_path / "bak"))
    assert got[("t", 1)] == (0, 200) and got[("t", 0)] == (0, 0)


def test_verify_names_damaged_and_missing_backup_objects(tmp_path, capfd):
    src = writer_dir(tmp_path / "src")
    backup(src, tmp_path / "bak")
    assert main(["verify", str(tmp_path / "bak")]) == 0
    seg = sorted((tmp_path / "bak" / "codecs-1").glob("*.log"))[0]
    data = bytearray(seg.read_bytes())
    data[-3] ^= 1
    seg.write_bytes(bytes(data))
    os.unlink(tmp_path / "bak" / "txn-0" / sorted(os.listdir(tmp_path / "bak" / "txn-0"))[0])
    problems = verify_backup(tmp_path / "bak")
    names = {p.file for p in problems}
    assert f"codecs-1/{seg.name}" in names and any(n.startswith("txn-0/") for n in names)
    assert main(["verify", str(tmp_path / "bak")]) == 1
    assert "CRC-32C" in capfd.readouterr().out
    with pytest.raises(BackupError, match="does not hold the bytes its manifest names"):
        restore(tmp_path / "bak", tmp_path / "o", topics=["codecs"], topic_ids={"codecs": TID})


def _idempotent_source(root) -> str:
    """``t-0`` and ``t-1``, each with an idempotent producer's batches over two segments (producer snapshots at
    the roll and at the end)."""
    with LogManager(str(root)) as m:
        m.create_topic("t", 2, SMALL)
        for p in (0, 1):
            for i in range(50):
                m.log("t", p).append([Record(b"k", b"v" * 50, 1_000 + i)], producer_id=5, producer_epoch=0,
                                     base_sequence=i)
    return str(root)


def _damage_snapshot(directory) -> str:
    """Flip a bit under the CRC of the newest producer snapshot of ``directory``; returns its name."""
    name = sorted(n for n in os.listdir(directory) if n.endswith(".snapshot"))[-1]
    path = os.path.join(directory, name)
    data = bytearray(_read(path))
    data[-1] ^= 1
    with open(path, "wb") as f:
        f.write(bytes(data))
    return name


def test_verify_warns_of_a_producer_snapshot_whose_crc_fails(tmp_path, capfd):
    src = _idempotent_source(tmp_path / "src")
    name = _damage_snapshot(os.path.join(src, "t-1"))
    reports, _ = verify_path(src)
    by = {r.partition: r for r in reports}
    assert not by[0].problems and not by[1].errors
    (w,) = by[1].warnings  # Kafka deletes such a snapshot when it loads the log and rebuilds the state
    assert w.file == name and "CRC" in w.message and "deletes" in w.message
    assert main(["verify", src]) == 0
    out = capfd.readouterr().out.splitlines()
    assert f"{os.path.join(src, 't-1')}: OK with 1 warning (" in "\n".join(out)
    assert any(line.startswith(f"  warning: {name}: ") and "CRC" in line for line in out)
    assert out[-1] == "verified 2 partitions: 0 with errors"


def test_verify_of_a_backup_counts_a_damaged_file_in_its_partition(tmp_path, capfd):
    import json

    src = _idempotent_source(tmp_path / "src")
    bak = tmp_path / "bak"
    backup(src, bak)
    assert main(["verify", str(bak)]) == 0
    capfd.readouterr()
    name = _damage_snapshot(bak / "t-1")
    assert main(["verify", str(bak)]) == 1
    out = capfd.readouterr().out.splitlines()
    # the partition holding the damaged file is not OK, the summary counts it, each line names the file once
    t0 = [line for line in out if line.startswith(f"{bak / 't-0'}: ")]
    t1 = [line for line in out if line.startswith(f"{bak / 't-1'}: ")]
    assert t0 and t0[0].startswith(f"{bak / 't-0'}: OK")
    assert t1 and t1[0].startswith(f"{bak / 't-1'}: 1 error, 1 warning ("), out
    hits = [line for line in out if name in line]
    assert hits and all(line.count(name) == 1 for line in hits), hits
    error = [line for line in hits if line.startswith(f"  error: {name}: ")]
    assert len(error) == 1 and "backup run 1: " in error[0] and "CRC-32C" in error[0], hits
    assert any(line.startswith(f"  warning: {name}: ") and "CRC is no longer valid" in line for line in hits)
    assert not [line for line in out if line.startswith("backup: ")]  # nothing left outside the partitions
    assert out[-1] == "verified 2 partitions: 1 with errors"
    assert main(["verify", str(bak), "--json"]) == 1
    report = json.loads(capfd.readouterr().out)
    parts = {p["partition"]: p for p in report["partitions"]}
    assert report["ok"] is False and parts[0]["ok"] and not parts[1]["ok"] and parts[1]["error_count"] == 1
    # a problem of no partition (an unreadable manifest) stays a line of its own, counted in the summary
    manifest = sorted((bak / ".kvlog-backup" / "manifests").iterdir())[-1]
    manifest.write_bytes(manifest.read_bytes()[:-5])
    assert main(["verify", str(bak)]) == 1
    out = capfd.readouterr().out.splitlines()
    assert any(line.startswith("backup: run 1: .kvlog-backup/manifests/") for line in out)
    assert out[-1] == "verified 2 partitions: 0 with errors; 1 backup problem outside them", out[-1]


# ----------------------------------------------------------------------------------- ids, targets, CLI
def test_restore_needs_target_topic_ids_and_refuses_conflicts(tmp_path):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        _fill(m.log("t", 0), 20)
    backup(src, tmp_path / "bak")
    _formatted(tmp_path / "o")  # a broker's directory: the ids are the target cluster's, none given
    with pytest.raises(ConfigError, match="no target topic id for 't'") as exc:
        restore(tmp_path / "bak", tmp_path / "o")
    # the Python API's message names its keywords, not the command's flags
    assert "topic_ids={TOPIC: ID}" in str(exc.value) and "metadata_dir=DIR" in str(exc.value)
    assert "keep_topic_ids=True" in str(exc.value) and "--" not in str(exc.value)
    with pytest.raises(ConfigError, match="no target topic id for 't'"):  # asked not to keep them: refused
        restore(tmp_path / "bak", tmp_path / "o1", keep_topic_ids=False)
    (tmp_path / "o2" / "t-0").mkdir(parents=True)
    (tmp_path / "o2" / "t-0" / "partition.metadata").write_text(f"version: 0\ntopic_id: {TID}\n")
    with pytest.raises(ConfigError, match="already holds 't' with topic id"):
        restore(tmp_path / "bak", tmp_path / "o2", topic_ids={"t": TID2})
    with pytest.raises(ConfigError, match="not a Kafka Uuid"):
        restore(tmp_path / "bak", tmp_path / "o3", topic_ids={"t": "nope"})


def test_cli_backup_and_restore(tmp_path, capfd):
    src = writer_dir(tmp_path / "src")
    assert main(["backup", src, str(tmp_path / "bak")]) == 0
    assert "run 1:" in capfd.readouterr().out
    assert main(["backup", src, str(tmp_path / "bak")]) == 0
    assert "nothing new since run 1" in capfd.readouterr().out
    assert main(["restore", str(tmp_path / "bak"), str(tmp_path / "o"), "--topics", "txn", "--topic-id",
                 f"txn={TID}", "--as-of", "5005"]) == 0
    out = capfd.readouterr().out
    assert "txn-0: offsets 0.." in out and TID in out
    _formatted(tmp_path / "o4")
    assert main(["restore", str(tmp_path / "bak"), str(tmp_path / "o4")]) == 1
    err = capfd.readouterr().err
    assert "no target topic id" in err  # the command's message names its flags, not the Python keywords
    assert "--topic-id TOPIC=ID" in err and "--metadata-dir DIR" in err and "--keep-topic-ids" in err
    assert "topic_ids=" not in err and "keep_topic_ids" not in err


def _formatted(root) -> None:
    """A formatted broker's log directory (``meta.properties``): a cluster's, whose topic ids a restore must use."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "meta.properties"), "w") as f:
        f.write("version=1\ncluster.id=x\nnode.id=1\n")


def _source_ids(root) -> dict[str, str]:
    with LogManager(str(root), read_only=True) as m:
        return {t: m.log(t, 0).topic_id for t in m.topics()}


def test_restore_into_a_directory_without_cluster_metadata_keeps_the_backups_topic_ids(tmp_path, capfd):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        m.create_topic("u", 1, SMALL)
        _fill(m.log("t", 0), 20)
        _fill(m.log("u", 0), 10)
    ids = _source_ids(src)
    backup(src, tmp_path / "bak")
    # no meta.properties, no __cluster_metadata-0, no metadata_dir: the backup's ids, and the result says so
    res = restore(tmp_path / "bak", tmp_path / "o")
    assert {k: p.topic_id for k, p in res.partitions.items()} == {"t-0": ids["t"], "t-1": ids["t"], "u-0": ids["u"]}
    kept = [w for w in res.warnings if "kept the backup's topic ids" in w]
    assert len(kept) == 1 and "'t', 'u'" in kept[0] and "topic_ids={TOPIC: ID}" in kept[0] and "--" not in kept[0]
    assert_restored_equal(str(src), str(tmp_path / "o"), ranges(str(src)))
    # a given id still wins, and the other topics keep theirs
    res = restore(tmp_path / "bak", tmp_path / "o2", topic_ids={"t": TID})
    assert res.partitions["t-0"].topic_id == TID and res.partitions["u-0"].topic_id == ids["u"]
    assert any("kept the backup's topic ids of 'u' (" in w for w in res.warnings)
    # the command: exit 0, the partitions with their ids, the summary, and the warning in the command's words
    assert main(["restore", str(tmp_path / "bak"), str(tmp_path / "o3")]) == 0
    out, err = capfd.readouterr()
    assert f"t-1: offsets 0..-1, topic id {ids['t']}" in out and "restored 3 partitions of run 1" in out
    assert "kvlog: warning:" in err and "kept the backup's topic ids of 't', 'u'" in err
    assert "--topic-id TOPIC=ID" in err and "topic_ids=" not in err
    # a directory with cluster metadata: as before, the ids come from that cluster or are refused
    _formatted(tmp_path / "o4")
    with pytest.raises(ConfigError, match="no target topic id for 't', 'u'"):
        restore(tmp_path / "bak", tmp_path / "o4")
    os.makedirs(tmp_path / "o5" / "__cluster_metadata-0")
    with pytest.raises(ConfigError, match="no target topic id"):
        restore(tmp_path / "bak", tmp_path / "o5")
    res = restore(tmp_path / "bak", tmp_path / "o4", keep_topic_ids=True)
    assert res.partitions["t-0"].topic_id == ids["t"] and not any("kept the backup" in w for w in res.warnings)


def test_groups_csv_of_a_backup_without_group_offsets_warns_and_restores(tmp_path, capfd):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 1, SMALL)
        _fill(m.log("t", 0), 20)
    backup(src, tmp_path / "bak")
    res = restore(tmp_path / "bak", tmp_path / "o", keep_topic_ids=True, groups_csv=tmp_path / "csv")
    assert res.partitions["t-0"].end_offset == 20
    assert res.groups["groups"] == res.groups["offsets"] == 0
    assert any("holds no __consumer_offsets" in w for w in res.warnings)
    assert os.listdir(tmp_path / "csv") == ["reset-offsets.sh"]  # what there is: no group, no reset file
    assert main(["restore", str(tmp_path / "bak"), str(tmp_path / "o2"), "--keep-topic-ids", "--groups-csv",
                 str(tmp_path / "csv2")]) == 0
    out, err = capfd.readouterr()
    assert "restored 1 partitions of run 1" in out and "consumer groups: 0 groups, 0 offsets" in out
    assert "kvlog: warning:" in err and "holds no __consumer_offsets" in err


def test_backup_to_an_object_store_and_restore_from_it(tmp_path, s3):
    src = writer_dir(tmp_path / "src")
    uri = s3.uri(s3.new_prefix())
    r = backup(src, uri)
    assert r.run == 1 and not r.errors and r.requests > 0
    assert ranges(uri) == ranges(src)  # every reader reads the run as a data directory
    again = backup(src, uri)
    assert again.run is None
    assert again.requests <= 12, again.requests  # the lease, the manifests, the published version: never per file
    assert not verify_backup(uri)
    res = restore(uri, tmp_path / "o", keep_topic_ids=False, topic_ids={t: TID for t, _ in ranges(src)})
    assert_restored_equal(src, str(tmp_path / "o"), ranges(src))
    assert len(res.partitions) == len(ranges(src))


# ---------------------------------------------------------------------------------------- consumer groups
def test_restore_writes_group_offsets_as_of_the_cut_as_reset_files_and_partitions(tmp_path):
    from kvlog.backup.groups import group_offsets_at_cut
    from kvlog.internal_topics.consumer_offsets import consumer_offsets
    from test_backup_groups import T0, build

    src = tmp_path / "src"
    build(src)
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        m.create_topic("u", 1, SMALL)
        for p in (0, 1):
            _fill(m.log("t", p), 120)
        _fill(m.log("u", 0), 40)
    backup(src, tmp_path / "bak")
    co_id = "AAAAAAAAAAAAAAAAAAAAAw"
    res = restore(tmp_path / "bak", tmp_path / "o", as_of=T0 + 10, topic_ids={"t": TID, "u": TID2,
                                                                             "__consumer_offsets": co_id},
                  groups_csv=tmp_path / "csv", groups_partitions=5)
    assert "__consumer_offsets-0" not in res.partitions  # internal topics are not copied: their state is rebuilt
    ranges_ = {(p.topic, p.partition): (p.log_start_offset, p.end_offset) for p in res.partitions.values()}
    # the oracle: the same question asked of the source directory, not of the backup
    want = group_offsets_at_cut(src, as_of=T0 + 10, log_ranges=ranges_)
    assert res.groups["offsets"] == want.num_rows > 0 and res.groups["clamped"] >= 1
    got = consumer_offsets(tmp_path / "o")
    key = ["group", "topic", "partition"]
    assert sorted(zip(*[got.column(c).to_pylist() for c in key + ["committed_offset"]])) == \
        sorted(zip(*[want.column(c).to_pylist() for c in key + ["offset"]]))
    files = sorted(os.listdir(tmp_path / "csv"))
    assert "reset-offsets.sh" in files and len(files) == len(set(want.column("group").to_pylist())) + 1
    g1 = (tmp_path / "csv" / [f for f in files if f.startswith("g1")][0]).read_text()
    rows = [r for r in zip(*[want.column(c).to_pylist() for c in ["group", "topic", "partition", "offset"]])
            if r[0] == "g1"]
    assert g1 == "".join(f"{t},{p},{o}\n" for _g, t, p, o in rows)
    assert _read(os.path.join(tmp_path, "o", "__consumer_offsets-0", "partition.metadata")) == \
        f"version: 0\ntopic_id: {co_id}".encode()


# ------------------------------------------------------------------------------- older runs, read in place
def test_older_runs_read_in_place_until_a_later_run_rewrites_their_files(tmp_path, capfd):
    src = tmp_path / "src"
    cfg = LogConfig(segment_bytes=2048, cleanup_policy="compact")
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        m.create_topic("c", 1, cfg)
        for p in (0, 1):
            _fill(m.log("t", p), 150)
        _fill(m.log("c", 0), 200)
    snap1 = tmp_path / "snap1"
    shutil.copytree(src, snap1)
    backup(src, tmp_path / "bak")
    with LogManager(str(src)) as m:
        _fill(m.log("t", 0), 90, start_ts=9_000)
    snap2 = tmp_path / "snap2"
    shutil.copytree(src, snap2)
    backup(src, tmp_path / "bak")
    with Log.open(str(src / "c-0"), cfg) as log:
        LogCleaner().clean(log, full=True)
    with LogManager(str(src)) as m:
        _fill(m.log("t", 1), 30, start_ts=9_500)
    assert backup(src, tmp_path / "bak").run == 3

    def view(run):
        with LogManager(str(tmp_path / "bak"), read_only=True, backup_run=run) as b:
            return {(t, p): b.log(t, p).to_arrow() for t in ("t",) for p in (0, 1)}

    def source(root):
        with LogManager(str(root), read_only=True) as s:
            return {(t, p): s.log(t, p).to_arrow() for t in ("t",) for p in (0, 1)}

    for run, snap in ((1, snap1), (2, snap2), (3, src)):
        got, want = view(run), source(snap)
        assert all(got[k].equals(want[k]) for k in want), run
    # run 3 moved aside the segments the cleaner replaced: runs 1 and 2 of c-0 refuse, naming run 3
    with pytest.raises(BackupError, match="backup run 3 moved aside files of this partition that run 1 holds"):
        Log.open(str(tmp_path / "bak" / "c-0"), read_only=True, backup_run=1)
    with Log.open(str(tmp_path / "bak" / "c-0"), read_only=True, backup_run=3) as log:
        assert log.log_end_offset == 200
    with pytest.raises(BackupError, match="no backup run 9"):
        Log.open(str(tmp_path / "bak" / "t-0"), read_only=True, backup_run=9)
    with pytest.raises(ConfigError, match="read-only"):
        Log.open(str(tmp_path / "bak" / "t-0"), backup_run=1)
    assert main(["offsets", str(tmp_path / "bak" / "t-0"), "--timestamp", "9000", "--backup-run", "1"]) == 0
    assert capfd.readouterr().out.strip() == "-1 -1"  # run 1 had nothing that recent
    assert main(["offsets", str(tmp_path / "bak" / "t-0"), "--timestamp", "9000", "--backup-run", "2"]) == 0
    assert capfd.readouterr().out.strip() == "150 9000"


def test_a_pinned_run_is_refused_once_a_later_run_rewrites_it_even_in_a_process_that_read_it_before(tmp_path):
    """A run's committed offsets never change, but the next run may mark a partition rewritten at any time: a
    long-lived reader (a Spark worker) that opened run 1 before must not go on reading it in place after."""
    src, bak = tmp_path / "src", tmp_path / "bak"
    cfg = LogConfig(segment_bytes=2048, cleanup_policy="compact")
    with LogManager(str(src)) as m:
        m.create_topic("c", 1, cfg)
        _fill(m.log("c", 0), 200)
    backup(src, bak)
    with Log.open(str(bak / "c-0"), read_only=True, backup_run=1) as log:
        assert log.log_end_offset == 200
    with Log.open(str(src / "c-0"), cfg) as log:
        LogCleaner().clean(log, full=True)
    assert backup(src, bak).run == 2
    with pytest.raises(BackupError, match="backup run 2 moved aside files of this partition that run 1 holds"):
        Log.open(str(bak / "c-0"), read_only=True, backup_run=1)


def test_a_run_killed_between_its_manifest_and_its_publish_is_published_by_the_next(tmp_path, monkeypatch):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 1, SMALL)
        _fill(m.log("t", 0), 50)
    backup(src, tmp_path / "bak")
    with LogManager(str(src)) as m:
        _fill(m.log("t", 0), 50, start_ts=5_000)

    def killed(*a, **kw):
        raise Killed()

    with monkeypatch.context() as mp:
        mp.setattr(run_mod, "_publish", killed)
        with pytest.raises(Killed):
            backup(src, tmp_path / "bak")
    assert ranges(str(tmp_path / "bak")) == {("t", 0): (0, 50)}  # run 2 is not visible yet
    r = backup(src, tmp_path / "bak")
    assert r.run is None and any("published it" in w for w in r.warnings)
    assert ranges(str(tmp_path / "bak")) == {("t", 0): (0, 100)}


def test_a_backup_into_its_own_source_is_refused(tmp_path):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 1, SMALL)
    for dst in (src, src / "backups"):
        with pytest.raises(BackupError, match="is inside the data directory"):
            backup(src, dst)
    assert not (src / ".kvlog-backup").exists() and not (src / "backups").exists()


def test_a_restore_into_its_backup_is_refused(tmp_path):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 1, SMALL)
        _fill(m.log("t", 0), 10)
    backup(src, tmp_path / "bak")
    for dst in (tmp_path / "bak", tmp_path / "bak" / "data", tmp_path):
        with pytest.raises(BackupError, match="overlap"):
            restore(tmp_path / "bak", dst, topic_ids={"t": TID})


@pytest.mark.parametrize("seed", range(8))
def test_indexes_built_from_headers_equal_what_recovery_builds(tmp_path, seed, monkeypatch):
    """``recovered_indexes`` (a backup's cut segment, from the headers of one windowed scan) against
    ``LogSegment.recover`` rebuilding the same segment: byte for byte, timestamps in any order, batches
    across window edges."""
    from kvlog.backup import source as source_mod
    from kvlog.backup.source import recovered_indexes, scan_prefix

    rng = random.Random(seed)
    d = tmp_path / "t-0"
    with Log.open(str(d), LogConfig(segment_bytes=1 << 30)) as log:
        for _ in range(rng.randint(1, 300)):
            n = rng.randint(1, 20)
            log.append([Record(b"k", b"v" * rng.randint(0, 400), rng.randint(0, 5_000)) for _ in range(n)],
                       compression=rng.choice([None, "lz4"]))
    path = os.path.join(d, "00000000000000000000.log")
    interval = rng.choice([64, 512, 4096])
    monkeypatch.setattr(source_mod, "_WINDOW", rng.choice([61, 1000, 1 << 20]))
    size, end, heads, why = scan_prefix(path, 2**63 - 1)
    assert not why and size == os.path.getsize(path)
    assert heads["position"].tolist() == _scan_all(path)["position"].tolist()
    assert recovered_indexes(heads, 0, interval) == rebuilt(str(d), 0, interval)
    cut = int(heads["base_offset"][len(heads) // 2])  # stopping at an offset: the batches before it
    size2, end2, heads2, why2 = scan_prefix(path, cut)
    assert (end2, why2) == (cut if len(heads) > 1 else -1, "") and len(heads2) == len(heads) // 2


def test_an_active_segment_growing_above_an_unmoved_high_watermark_is_not_copied_again(tmp_path):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 1, LogConfig(segment_bytes=1 << 20))
        _fill(m.log("t", 0), 100)
    checkpoint.write_offsets(str(src / checkpoint.REPLICATION_OFFSET), {("t", 0): 60})
    assert backup(src, tmp_path / "bak").run == 1
    with LogManager(str(src)) as m:  # the broker appends; its high watermark has not moved
        _fill(m.log("t", 0), 50, start_ts=7_000)
    again = backup(src, tmp_path / "bak")
    assert again.run is None and again.files_copied == 0
    checkpoint.write_offsets(str(src / checkpoint.REPLICATION_OFFSET), {("t", 0): 150})
    moved = backup(src, tmp_path / "bak")
    assert moved.run == 2 and ranges(str(tmp_path / "bak")) == {("t", 0): (0, 150)}
