"""Crash and power loss at every file operation of a transactional workload (the shims of
test_crash_points): the reopened log's producer state, transaction index and read_committed view
must be exactly what its surviving batches say, and flushed data must survive."""

import os
import struct

import pytest

from kvlog import LogConfig, MemoryRecords, Record, _io
from kvlog.cli import main as cli_main
from kvlog.log import Log

from test_crash_points import CountingFS, PowerLossFS, SimulatedCrash, _release_everything, _track_logs  # noqa: F401

T0 = 1_700_000_000_000
CFG = dict(segment_bytes=700, index_interval_bytes=64)


def workload(path, flushed):
    clock = [T0]
    log = Log.open(path, LogConfig(**CFG), time=lambda: clock[0])
    seq = {1: 0, 2: 0, 3: 0}
    n = 0

    def append(pid, txn):
        nonlocal n
        recs = [Record(b"k%d" % (n % 5), b"v%d" % n, clock[0])]
        n += 1
        if pid:
            log.append(recs, producer_id=pid, producer_epoch=0, base_sequence=seq[pid], is_transactional=txn)
            seq[pid] += 1
        else:
            log.append(recs)

    for round_ in range(3):
        append(1, True)
        append(2, True)
        append(3, False)
        append(0, False)
        append(1, True)
        log.end_transaction(1, 0, commit=round_ != 1)
        log.end_transaction(2, 0, commit=round_ == 1)
        if round_ == 1:
            log.roll()
        log.flush()
        flushed.update((r.offset, r.value) for r in log.records())
    append(2, True)  # left open
    log.close()


def oracle(log):
    """read_committed, aborted transactions and producer sequences from the batches alone."""
    batches = []
    for seg in log.segments:
        batches.extend(MemoryRecords(seg.pread(0, seg.size_in_bytes)).batches())
    open_txn, aborted, fate, value, last_seq = {}, [], {}, {}, {}
    for b in batches:
        recs = list(b.records())
        if b.is_control:
            kind = struct.unpack(">hh", recs[0].key)[1]
            offs = open_txn.pop(b.producer_id, [])
            for o in offs:
                fate[o] = "committed" if kind == 1 else "aborted"
            if offs and kind == 0:
                aborted.append((b.producer_id, offs[0], b.base_offset))
            continue
        if b.producer_id >= 0:
            last_seq[b.producer_id] = b.base_sequence + b.last_offset - b.base_offset
        for r in recs:
            value[r.offset] = r.value
            if b.is_transactional:
                open_txn.setdefault(b.producer_id, []).append(r.offset)
                fate[r.offset] = "open"
            else:
                fate[r.offset] = "plain"
    lso = min((offs[0] for offs in open_txn.values()), default=log.log_end_offset)
    committed = [(o, value[o]) for o in sorted(fate) if fate[o] in ("plain", "committed") and o < lso]
    return committed, aborted, lso, last_seq


def check(path, flushed):
    log = Log.open(path, LogConfig(**CFG), time=lambda: T0)
    try:
        got = {r.offset: r.value for r in log.records()}
        lost = [o for o, v in flushed if got.get(o) != v]
        assert not lost, f"flushed offsets lost: {lost}"
        committed, aborted, lso, last_seq = oracle(log)
        assert log.last_stable_offset == lso
        assert [(r.offset, r.value) for r in log.records(isolation_level="read_committed")] == committed
        assert [(a.producer_id, a.first_offset, a.last_offset) for a in log.aborted_transactions(0, 10**9)] == aborted
        for pid, seq in last_seq.items():
            assert log.producer_entry(pid).last_seq == seq
    finally:
        log.close()
    assert cli_main(["verify", path]) == 0


def run(tmp_path, k, shim_cls, **kw):
    path = str(tmp_path / f"k{k}" / "t-0")
    flushed = set()
    shim = shim_cls(k, **kw)
    old = _io.set_filesystem(shim)
    crashed = False
    try:
        workload(path, flushed)
    except SimulatedCrash:
        crashed = True
    finally:
        _io.set_filesystem(old)
    _release_everything()
    if crashed and hasattr(shim, "power_loss"):
        shim.power_loss()
    if os.path.isdir(path):
        check(path, flushed)
    return crashed, shim.n


@pytest.mark.parametrize("stride", [pytest.param(1, marks=pytest.mark.slow), 2])
def test_crash_at_every_operation_of_a_transactional_workload(tmp_path, stride):
    crashed, total = run(tmp_path, None, CountingFS)
    assert not crashed and total > 50
    for k in range(1, total + 1, stride):
        assert run(tmp_path, k, CountingFS)[0]


@pytest.mark.parametrize("mode,stride", [("drop", 7), ("zeros", 7), pytest.param("drop", 1, marks=pytest.mark.slow),
                                         pytest.param("zeros", 1, marks=pytest.mark.slow)])
def test_power_loss_during_a_transactional_workload(tmp_path, mode, stride):
    _, total = run(tmp_path, None, CountingFS)
    for k in range(1, total + 1, stride):
        assert run(tmp_path, k, PowerLossFS, mode=mode)[0]
