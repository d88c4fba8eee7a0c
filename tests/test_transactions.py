"""Transactions against a model: interleaved producers committing and aborting, retries, fencing,
crashes; read_committed at every offset; the .txnindex bytes in Kafka's layout."""

import os
import random
import struct

import pyarrow as pa
import pytest

import kvlog
from kvlog import LogConfig, MemoryRecords, Record
from kvlog.errors import ConfigError, InvalidProducerEpochError, OutOfOrderSequenceError
from kvlog.log import Log
from kvlog.txn_index import AbortedTxn

T0 = 1_700_000_000_000


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


def kafka_txn_entry(pid, first, last, lso):
    return struct.pack(">hqqqq", 0, pid, first, last, lso)


class Model:
    """What the log must hold: every record with its producer and fate, producers' sequences."""

    def __init__(self):
        self.records = {}      # offset -> (value, producer id or -1)
        self.fate = {}         # offset -> "plain" | "open" | "committed" | "aborted"
        self.open = {}         # pid -> [offsets of the open transaction]
        self.aborted = []      # (pid, first, marker offset)
        self.seq = {}          # pid -> next sequence
        self.epoch = {}
        self.last_batch = {}   # pid -> (first_seq, values, first offset, last offset) of the last batch

    def lso(self, leo):
        firsts = [offs[0] for offs in self.open.values() if offs]
        return min(firsts) if firsts else leo

    def committed(self, start, end):
        return [(o, self.records[o][0]) for o in sorted(self.records)
                if start <= o < end and self.fate[o] in ("plain", "committed")]


def unclean_stop(log):
    for seg in log._segments:
        seg.close_handlers()
    log._release_lock()
    log._closed = True


def check(log, model):
    leo = log.log_end_offset
    lso = model.lso(leo)
    assert log.last_stable_offset == lso
    t = log.to_arrow(isolation_level="read_committed")
    assert list(zip(t.column("offset").to_pylist(), t.column("value").to_pylist())) == model.committed(0, lso)
    got = [(r.offset, r.value) for r in log.records(isolation_level="read_committed")]
    assert got == model.committed(0, lso)
    uncommitted = log.to_arrow(include_headers=False)
    assert uncommitted.column("offset").to_pylist() == sorted(model.records)
    # every start offset (a reader resuming anywhere)
    for s in range(0, leo + 1, 3):
        t = log.to_arrow(s, isolation_level="read_committed", include_headers=False)
        assert t.column("offset").to_pylist() == [o for o, _ in model.committed(s, lso)]
    # the transaction indexes hold exactly the aborted transactions
    found = [(a.producer_id, a.first_offset, a.last_offset) for a in log.aborted_transactions(0, leo + 1)]
    assert found == model.aborted
    for pid, seq in model.seq.items():
        e = log.producer_entry(pid)
        if e is None and seq == 0 and model.epoch[pid] == 0:
            continue  # never wrote
        assert e is not None and e.last_seq == seq - 1 and e.producer_epoch == model.epoch[pid]
        first = model.open[pid][0] if model.open.get(pid) else -1
        assert e.current_txn_first_offset == first


def run_model(tmp_path, seed, steps=160):
    rng = random.Random(seed)
    clock = Clock()
    cfg = LogConfig(segment_bytes=rng.choice([700, 1500, 1 << 20]))
    path = tmp_path / f"s{seed}" / "t-0"
    log = Log.open(path, cfg, time=clock)
    model = Model()
    txn_pids = [10, 11, 12]
    idem_pids = [20]
    for pid in txn_pids + idem_pids:
        model.seq[pid] = 0
        model.epoch[pid] = 0
    coord = 0
    n = 0
    for step in range(steps):
        clock.t += 1
        op = rng.random()
        if op < 0.5:
            pid = rng.choice(txn_pids + idem_pids + [-1])
            k = rng.randint(1, 3)
            vals = [b"v%d" % (n + i) for i in range(k)]
            n += k
            recs = [Record(b"key%d" % rng.randint(0, 9), v, clock.t) for v in vals]
            if pid < 0:
                info = log.append(recs)
            else:
                txn = pid in txn_pids
                info = log.append(recs, producer_id=pid, producer_epoch=model.epoch[pid],
                                  base_sequence=model.seq[pid], is_transactional=txn)
                model.last_batch[pid] = (model.seq[pid], recs, info.first_offset, info.last_offset)
                model.seq[pid] += k
            assert not info.duplicate
            for i, v in enumerate(vals):
                o = info.first_offset + i
                model.records[o] = (v, pid)
                if pid in txn_pids:
                    model.fate[o] = "open"
                    model.open.setdefault(pid, []).append(o)
                else:
                    model.fate[o] = "plain"
        elif op < 0.68:
            pid = rng.choice(txn_pids)
            commit = rng.random() < 0.6
            info = log.end_transaction(pid, model.epoch[pid], commit=commit, coordinator_epoch=coord)
            offs = model.open.pop(pid, [])
            for o in offs:
                model.fate[o] = "committed" if commit else "aborted"
            if offs and not commit:
                model.aborted.append((pid, offs[0], info.first_offset))
        elif op < 0.76 and model.last_batch:
            pid = rng.choice(sorted(model.last_batch))  # a retry of the last batch
            first_seq, recs, first, last = model.last_batch[pid]
            info = log.append(recs, producer_id=pid, producer_epoch=model.epoch[pid], base_sequence=first_seq,
                              is_transactional=pid in txn_pids)
            assert info.duplicate and (info.first_offset, info.last_offset) == (first, last)
        elif op < 0.80:
            pid = rng.choice(txn_pids)  # a new producer instance: the coordinator aborts, bumps the epoch
            old = model.epoch[pid]
            model.epoch[pid] += 1
            coord += rng.randint(0, 1)
            info = log.end_transaction(pid, model.epoch[pid], commit=False, coordinator_epoch=coord)
            offs = model.open.pop(pid, [])
            for o in offs:
                model.fate[o] = "aborted"
            if offs:
                model.aborted.append((pid, offs[0], info.first_offset))
            model.seq[pid] = 0
            model.last_batch.pop(pid, None)
            with pytest.raises(InvalidProducerEpochError):  # the zombie is fenced
                log.append([Record(b"z", b"zombie", clock.t)], producer_id=pid, producer_epoch=old,
                           base_sequence=0, is_transactional=True)
            # Kafka tracks the epoch from the marker; model: next append uses the new epoch from seq 0
            model.seq[pid] = 0
        elif op < 0.84:
            log.roll()
        elif op < 0.90:
            if rng.random() < 0.5:
                log.close()
            else:
                log.flush()
                unclean_stop(log)
            log = Log.open(path, cfg, time=clock)
            model.last_batch = {p: b for p, b in model.last_batch.items()
                                if b[3] == log.producer_entry(p).last_data_offset}  # snapshots keep one batch
        elif op < 0.93 and model.seq[idem_pids[0]]:
            pid = idem_pids[0]
            with pytest.raises(OutOfOrderSequenceError):
                log.append([Record(b"g", b"gap", clock.t)], producer_id=pid, producer_epoch=model.epoch[pid],
                           base_sequence=model.seq[pid] + 1)
        if step % 40 == 39:
            check(log, model)
    check(log, model)
    log.close()
    return model


@pytest.mark.parametrize("seed", range(6))
def test_interleaved_transactions_match_the_model(tmp_path, seed):
    run_model(tmp_path, seed)


def test_txn_index_bytes_match_kafkas_layout(tmp_path):
    log = Log.open(tmp_path / "t-0", LogConfig(), time=Clock())
    log.append([Record(b"a", b"1", T0)], producer_id=1, producer_epoch=0, base_sequence=0, is_transactional=True)
    log.append([Record(b"b", b"2", T0)], producer_id=2, producer_epoch=0, base_sequence=0, is_transactional=True)
    log.append([Record(b"c", b"3", T0)], producer_id=1, producer_epoch=0, base_sequence=1, is_transactional=True)
    log.end_transaction(1, 0, commit=False, coordinator_epoch=0)   # offset 3; producer 2 still open from 1
    log.end_transaction(2, 0, commit=False, coordinator_epoch=0)   # offset 4; nothing else open
    log.append([Record(b"d", b"4", T0)], producer_id=1, producer_epoch=0, base_sequence=2, is_transactional=True)
    log.end_transaction(1, 0, commit=True, coordinator_epoch=0)    # commits get no entry
    data = (tmp_path / "t-0" / ("%020d.txnindex" % 0)).read_bytes()
    assert data == kafka_txn_entry(1, 0, 3, 1) + kafka_txn_entry(2, 1, 4, 5)
    assert log.aborted_transactions(0, 10) == [AbortedTxn(1, 0, 3, 1), AbortedTxn(2, 1, 4, 5)]
    assert [r.value for r in log.records(isolation_level="read_committed")] == [b"4"]
    # the transaction index is rebuilt exactly after losing it
    log.flush()
    unclean_stop(log)
    os.unlink(tmp_path / "t-0" / ("%020d.txnindex" % 0))
    log = Log.open(tmp_path / "t-0", LogConfig(), time=Clock())
    assert (tmp_path / "t-0" / ("%020d.txnindex" % 0)).read_bytes() == data
    # truncation takes entries whose marker goes
    log.truncate_to(4)
    assert (tmp_path / "t-0" / ("%020d.txnindex" % 0)).read_bytes() == kafka_txn_entry(1, 0, 3, 1)
    assert log.last_stable_offset == 1  # producer 2's transaction is open again
    log.close()


def test_txn_index_entry_goes_to_the_segment_of_the_marker(tmp_path):
    log = Log.open(tmp_path / "t-0", LogConfig(), time=Clock())
    log.append([Record(b"a", b"1", T0)], producer_id=1, producer_epoch=0, base_sequence=0, is_transactional=True)
    log.roll()
    log.end_transaction(1, 0, commit=False)
    assert not (tmp_path / "t-0" / ("%020d.txnindex" % 0)).exists()
    assert (tmp_path / "t-0" / ("%020d.txnindex" % 1)).read_bytes() == kafka_txn_entry(1, 0, 1, 2)
    assert log.to_arrow(isolation_level="read_committed").num_rows == 0
    assert log.to_arrow(0, 1, isolation_level="read_committed").num_rows == 0


def test_lso_bounds_read_committed_and_read(tmp_path):
    log = Log.open(tmp_path / "t-0", LogConfig(), time=Clock())
    log.append([Record(b"p", b"plain", T0)])
    log.append([Record(b"a", b"open", T0)], producer_id=1, producer_epoch=0, base_sequence=0, is_transactional=True)
    log.append([Record(b"q", b"after", T0)])
    assert log.last_stable_offset == 1
    assert log.to_arrow(isolation_level="read_committed").column("value").to_pylist() == [b"plain"]
    assert [r.value for r in log.read(0, isolation_level="read_committed").records()] == [b"plain"]
    assert len(log.read(1, isolation_level="read_committed")) == 0
    log.end_transaction(1, 0, commit=False)
    got = log.read(0, isolation_level="read_committed")
    assert [r.value for r in got.records()] == [b"plain", b"after"]
    assert any(b.is_control for b in got.batches())  # markers stay so a fetcher can move past them
    with pytest.raises(ConfigError):
        log.to_arrow(isolation_level="committed")


def test_memory_records_read_committed_with_fetch_response_pairs():
    parts = [
        kvlog.encode_batch([Record(b"a", b"1", T0)], base_offset=0, producer_id=1, producer_epoch=0,
                           base_sequence=0, is_transactional=True),
        kvlog.encode_batch([Record(b"b", b"2", T0)], base_offset=1, producer_id=2, producer_epoch=0,
                           base_sequence=0, is_transactional=True),
        kvlog.encode_batch([Record(struct.pack(">hh", 0, 0), struct.pack(">hi", 0, 0), T0)], base_offset=2,
                           producer_id=1, producer_epoch=0, is_transactional=True, is_control=True),
        kvlog.encode_batch([Record(b"c", b"3", T0)], base_offset=3, producer_id=1, producer_epoch=0,
                           base_sequence=1, is_transactional=True),
        kvlog.encode_batch([Record(struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 0), T0)], base_offset=4,
                           producer_id=1, producer_epoch=0, is_transactional=True, is_control=True),
    ]
    mr = MemoryRecords(b"".join(parts))
    for aborted in ([(1, 0)], [(1, 0, 2)], [AbortedTxn(1, 0, 2, 1)]):
        t = mr.to_arrow(isolation_level="read_committed", aborted_transactions=aborted)
        assert t.column("value").to_pylist() == [b"2", b"3"]
        assert [r.offset for r in mr.records(isolation_level="read_committed", aborted_transactions=aborted)] == [1, 3]
    assert mr.to_arrow(isolation_level="read_committed").num_rows == 3
    assert mr.to_arrow().num_rows == 3 and mr.to_arrow(include_control=True).num_rows == 5
    assert isinstance(mr.to_arrow(isolation_level="read_committed", aborted_transactions=[(1, 0)]), pa.Table)


# -------------------------------------------------------------------------------------- compaction
def all_batches(log):
    out = []
    for seg in log.segments:
        out.extend(MemoryRecords(seg.pread(0, seg.size_in_bytes)).batches())
    return out


def _latest_committed(model_rows):
    latest = {}
    for o, key, value, fate in sorted(model_rows):
        if fate in ("plain", "committed"):
            latest[key] = (o, value)
    return latest


@pytest.mark.parametrize("seed", range(3))
def test_compaction_keeps_committed_latest_and_drops_aborted(tmp_path, seed):
    rng = random.Random(seed)
    clock = Clock()
    cfg = LogConfig(cleanup_policy="compact", segment_bytes=900, delete_retention_ms=1000)
    log = Log.open(tmp_path / "t-0", cfg, time=clock)
    rows = []        # (offset, key, value, fate)
    open_txn = {}    # pid -> [row indexes]
    seq = {1: 0, 2: 0, 3: 0}
    for step in range(120):
        clock.t += 1
        pid = rng.choice([1, 2, 3, -1])
        if pid > 0 and open_txn.get(pid) and rng.random() < 0.3:
            commit = rng.random() < 0.5
            log.end_transaction(pid, 0, commit=commit)
            for i in open_txn.pop(pid):
                rows[i] = rows[i][:3] + ("committed" if commit else "aborted",)
            continue
        key = b"k%d" % rng.randint(0, 11)
        value = b"s%d-%d" % (step, pid)
        if pid < 0:
            info = log.append([Record(key, value, clock.t)])
            rows.append((info.first_offset, key, value, "plain"))
        else:
            info = log.append([Record(key, value, clock.t)], producer_id=pid, producer_epoch=0,
                              base_sequence=seq[pid], is_transactional=True)
            seq[pid] += 1
            rows.append((info.first_offset, key, value, "open"))
            open_txn.setdefault(pid, []).append(len(rows) - 1)
    for pid in list(open_txn):  # finish everything so the whole log is cleanable
        log.end_transaction(pid, 0, commit=False)
        for i in open_txn.pop(pid):
            rows[i] = rows[i][:3] + ("aborted",)
    log.append([Record(b"tail", b"tail", clock.t)])
    rows.append((log.log_end_offset - 1, b"tail", b"tail", "plain"))
    log.roll()
    aborted_values = {v for _, _, v, f in rows if f == "aborted"}
    assert aborted_values
    want = _latest_committed(rows)
    before_markers = sum(b.is_control for b in all_batches(log))

    kvlog.LogCleaner(time=clock).clean(log, now_ms=clock.t)
    got = {r.key: (r.offset, r.value) for r in log.records()}
    assert not aborted_values & {r.value for r in log.records()}       # aborted data is gone
    for k, v in want.items():
        assert got[k] == v                                            # the latest committed value survives
    committed = [(r.offset, r.value) for r in log.records(isolation_level="read_committed")]
    assert committed == sorted((o, v) for o, v in (x for x in got.values()))
    markers = [b for b in all_batches(log) if b.is_control]
    assert len(markers) == before_markers  # every marker's transaction was still there when read
    # every producer's last batch is still there, so its sequence and epoch survive
    spans = [(b.base_offset, b.last_offset) for b in all_batches(log)]
    for pid in seq:
        last = log.producer_entry(pid).last_data_offset
        assert any(lo <= last <= hi for lo, hi in spans)

    # the next pass finds markers whose transactions are gone: they get a delete horizon ...
    kvlog.LogCleaner(time=clock).clean(log, now_ms=clock.t, full=True)
    stamped = [b for b in all_batches(log) if b.is_control and b.has_delete_horizon]
    assert stamped and all(b.delete_horizon_ms == clock.t + 1000 for b in stamped)
    # ... and go once it has passed, unless they are an active producer's last entry
    clock.t += 10_000
    kvlog.LogCleaner(time=clock).clean(log, now_ms=clock.t, full=True)
    markers_after = [b for b in all_batches(log) if b.is_control and b.record_count]
    assert len(markers_after) < before_markers
    for b in markers_after:
        if b.has_delete_horizon:
            last, epoch = log.last_records_of_active_producers()[b.producer_id]
            assert last < 0 and epoch == b.producer_epoch or b.last_offset + 1 == log.segments[-1].base_offset
    got2 = {r.key: r.value for r in log.records()}
    assert got2 == {k: v for k, (_, v) in want.items()}
    for a in log.aborted_transactions(0, log.log_end_offset):  # left: emptied last batches of producers
        assert all(b.record_count == 0 for b in all_batches(log)
                   if b.producer_id == a.producer_id and a.first_offset <= b.base_offset < a.last_offset)
    log.close()
    log = Log.open(tmp_path / "t-0", cfg, time=clock)
    assert {r.key: r.value for r in log.records(isolation_level="read_committed")} == got2
    for pid in seq:
        assert log.producer_entry(pid).last_seq == seq[pid] - 1
    log.close()


def test_cleaning_stops_at_the_last_stable_offset(tmp_path):
    clock = Clock()
    cfg = LogConfig(cleanup_policy="compact", segment_bytes=300)
    log = Log.open(tmp_path / "t-0", cfg, time=clock)
    for i in range(5):
        log.append([Record(b"k", b"old%d" % i, T0)])
    log.append([Record(b"k", b"open", T0)], producer_id=1, producer_epoch=0, base_sequence=0, is_transactional=True)
    first_open = log.log_end_offset - 1
    for i in range(10):
        log.append([Record(b"k", b"new%d" % i, T0)])
    log.roll()
    assert log.last_stable_offset == first_open
    stats = kvlog.LogCleaner(time=clock).clean(log, now_ms=T0)
    assert stats.end_offset <= first_open
    assert b"open" in {r.value for r in log.records()}
    assert [r.value for r in log.records(isolation_level="read_committed")][-1] == b"old4"
    log.close()


def test_dump_snapshot_and_txn_index_like_dumplogsegments(tmp_path, capfd):
    from kvlog.cli import main

    log = Log.open(tmp_path / "t-0", LogConfig(), time=Clock())
    log.append([Record(b"a", b"1", T0), Record(b"b", b"2", T0 + 5)], producer_id=3, producer_epoch=1,
               base_sequence=7)
    log.append([Record(b"c", b"3", T0 + 9)], producer_id=4, producer_epoch=0, base_sequence=0, is_transactional=True)
    log.roll()
    log.end_transaction(4, 0, commit=False, coordinator_epoch=2, timestamp=T0 + 20)
    log.close()
    snap = str(tmp_path / "t-0" / ("%020d.snapshot" % 3))
    txn = str(tmp_path / "t-0" / ("%020d.txnindex" % 3))
    capfd.readouterr()
    assert main(["dump", "--files", f"{snap},{txn}"]) == 0
    out = capfd.readouterr().out.splitlines()
    assert out == [
        f"Dumping {snap}",
        f"producerId: 3 producerEpoch: 1 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty "
        f"lastTimestamp: {T0 + 5} firstSequence: 7 lastSequence: 8 lastOffset: 1 offsetDelta: 1 timestamp: {T0 + 5}",
        f"producerId: 4 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong[2] "
        f"lastTimestamp: {T0 + 9} firstSequence: 0 lastSequence: 0 lastOffset: 2 offsetDelta: 0 timestamp: {T0 + 9}",
        f"Dumping {txn}",
        "version: 0 producerId: 4 firstOffset: 2 lastOffset: 3 lastStableOffset: 4",
    ]
    with open(snap, "r+b") as f:
        f.seek(12)
        f.write(b"\xff")
    assert main(["dump", "--files", snap]) == 1
    assert "CRC is no longer valid" in capfd.readouterr().err


def test_an_emptied_batch_goes_once_its_producer_has_moved_on(tmp_path):
    """Kafka keeps an emptied batch only while it is its producer's last one (§10.7); a later pass drops it."""
    from kvlog.cleaner import LogCleaner

    cfg = LogConfig(cleanup_policy="compact", min_cleanable_dirty_ratio=0.01)
    log = Log.open(tmp_path / "t-0", cfg)

    def producer_batches():
        data = log.read(log.log_start_offset, 1 << 20, max_offset=log.log_end_offset)
        return [(b.base_offset, b.record_count) for b in data.batches() if b.producer_id == 5]

    log.append([Record(b"k", b"p1", timestamp=1)], producer_id=5, producer_epoch=0, base_sequence=0)
    log.append([Record(b"k", b"plain", timestamp=2)])
    log.roll()
    LogCleaner().clean(log, now_ms=10**12, full=True)
    assert producer_batches() == [(0, 0)]  # emptied, kept: the producer's last batch
    log.append([Record(b"x", b"p2", timestamp=3)], producer_id=5, producer_epoch=0, base_sequence=1)
    log.append([Record(b"x", b"plain2", timestamp=4)])
    log.roll()
    LogCleaner().clean(log, now_ms=10**12, full=True)
    assert producer_batches() == [(2, 0)]  # the old emptied batch is gone, the new last one stays
    assert [r.value for r in log.records()] == [b"plain", b"plain2"]
    log.close()
