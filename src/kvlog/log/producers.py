"""Producer state and transactions of a log (Kafka's ``ProducerStateManager`` use by ``UnifiedLog``):
loading it from the latest snapshot and replaying the batches after it, validating an append's producer
batches, committing their outcome, and the aborted transactions a read_committed read filters."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from kvlog import _files, _io
from kvlog.errors import KvlogError
from kvlog.log._common import LONG_MAX
from kvlog.producer_state import (
    CLIENT,
    REPLICATION,
    BatchMetadata,
    CompletedTxn,
    ProducerAppendInfo,
    ProducerStateManager,
    increment_sequence,
)
from kvlog.records import ControlRecordType, MemoryRecords
from kvlog.segment import LogSegment
from kvlog.txn_index import ENTRY_DTYPE, AbortedTxn

if TYPE_CHECKING:
    from kvlog.log.log import Log


def load_for_reader(log: Log) -> ProducerStateManager:
    """A read-only open's producer state, loaded on first use: replaying producer batches can mean
    reading the whole log, and most readers never ask (only read_committed does)."""
    for d in log.damage:  # transactions whose markers the damage hides cannot be resolved
        log._past_damage(d.first_offset, LONG_MAX)
    load_producer_state(log, reader_txn_from(log))
    psm = log._psm
    assert psm is not None
    return psm


def reader_txn_from(log: Log) -> int | None:
    """Where a writable open of this directory would start rebuilding transaction indexes: the first
    segment its recovery re-reads (from the one holding the recovery point, and any whose offset or
    time index is missing or damaged: raw segment files, a copy without indexes), or an earlier one
    whose ``.txnindex`` fails its checks. A reader derives the same entries, in memory.

    The segments before it keep their ``.txnindex`` as it is, and one without the file has no
    aborted transaction (Kafka creates the file with the first abort; its broker trusts these
    segments the same way), so a log whose recovery point covers its intact segments costs no
    rescan. The checks of the older files run once, at the first use.
    """
    if not log._txn_from_checked:
        log._txn_from_checked = True
        limit = log._txn_from if log._txn_from is not None else LONG_MAX
        for seg in log._segments:
            if seg.base_offset >= limit:
                break
            if seg.txn_index.exists():
                try:
                    seg.txn_index.sanity_check()
                except KvlogError:
                    log._txn_from = seg.base_offset
                    break
    return log._txn_from


def load_producer_state(log: Log, txn_from: int | None) -> None:
    """Latest snapshot at or below the log end (and below ``txn_from``), then the batches after it.

    Snapshots past the log end are stale (a cut tail, a truncation) and are deleted, unless this
    open set bytes aside: then they are set aside with them. Replaying
    from offset S also rebuilds every transaction-index entry from S on; an index that already
    holds exactly those entries is not rewritten. A reader keeps the rebuilt entries in memory
    (its files stay as they are), so it filters exactly what a writer's recovery would.
    """
    leo = log._next_offset
    if log._set_aside_now and not log.read_only:
        # the snapshots past a cut describe the set-aside bytes: evidence kvlog repair may need
        for n in os.listdir(log.dir):
            if n.endswith(_files.SNAPSHOT) and _files.is_offset_name(n) and _files.offset_from_name(n) > leo:
                _io.fs.rename(os.path.join(log.dir, n), os.path.join(log.dir, n + _files.QUARANTINED))
        _io.fs.fsync_dir(log.dir)
    log._set_aside_now = False
    psm = log._psm = ProducerStateManager(log.dir, read_only=log.read_only)
    if not log.read_only and psm.delete_snapshots(lambda o: o <= leo):
        _io.fs.fsync_dir(log.dir)
    limit = leo if txn_from is None else min(leo, txn_from)
    start = psm.load_latest_snapshot(limit, log.log_start_offset)
    replay_producer_state(log, start, leo)


def replay_producer_state(log: Log, start: int, end: int) -> None:
    """Replay the producer batches of ``[start, end)`` into the producer state, rebuilding the
    transaction indexes from ``start`` on (a reader derives them in memory)."""
    psm = log._producer_state
    rebuild = not log.read_only
    segments = log._segments
    # (nothing to replay when the snapshot is at the end: the segment holding it is not read)
    for seg in segments[segments.floor_index(start):] if start < end else ():
        if seg.base_offset >= end:
            break
        found: list[AbortedTxn] = []
        pos = seg.index_position(start) if start > seg.base_offset else 0
        for headers in _replay_headers(log, seg, pos):
            rows = np.nonzero((headers["producer_id"] >= 0) & (headers["magic"] == 2)
                              & (headers["last_offset"] >= start))[0]
            for i in rows:
                h = headers[i]
                infos, done, _ = analyze_producers(log, headers[i : i + 1], None, REPLICATION, seg)
                for info in infos.values():
                    psm.update(info)
                for txn in done:
                    if txn.is_aborted:
                        found.append(AbortedTxn(txn.producer_id, txn.first_offset, txn.last_offset,
                                                psm.last_stable_offset_for(txn)))
                    psm.complete_txn(txn)
                psm.update_map_end_offset(int(h["last_offset"]) + 1)
        if rebuild:
            seg.txn_index.replace_from(start, found)
        else:
            seg.txn_index.derive_from(start, found)  # in memory: a reader writes nothing
    psm.update_map_end_offset(end)


def _replay_headers(log: Log, seg: LogSegment, position: int) -> Iterator[np.ndarray]:
    """The batch headers of ``seg`` from ``position``. A reader's view of an audited segment only grows
    after its open, so the headers its open's audit kept serve as far as they reach (the bytes that
    audit just walked are not read again); the rest comes from the file."""
    audit = seg.audit if log.read_only else None
    if audit is None or audit.valid_end > seg.size_in_bytes:
        yield from seg.iter_headers(position)
        return
    h = audit.headers
    if len(h):
        yield h[h["position"] >= position]
    if seg.size_in_bytes > audit.valid_end:
        yield from seg.iter_headers(max(position, audit.valid_end))


def analyze_producers(log: Log, headers: np.ndarray, data: Any, origin: str, seg: LogSegment | None = None
                      ) -> tuple[dict[int, ProducerAppendInfo], list[CompletedTxn], BatchMetadata | None]:
    """Validate the producer batches of an append against the producer state (Kafka's
    analyzeAndValidateProducerState). Returns the new per-producer states, the transactions the
    append's markers complete, and the original of a retried batch (then nothing is written).

    ``data`` holds the batches at ``headers["position"]``; without it they are read from ``seg``.
    """
    psm = log._producer_state
    infos: dict[int, ProducerAppendInfo] = {}
    done: list[CompletedTxn] = []
    # plain tuples: a few rows' fields read from Python are several times cheaper than numpy scalars
    for (pos, base, last, _bts, max_ts, pid, size, _ple, first_seq, count, _crc, attrs, epoch, magic,
         _valid) in headers.tolist():
        if pid < 0 or magic != 2:
            continue
        last_seq = -1 if first_seq < 0 else increment_sequence(first_seq, last - base)
        control = bool(attrs & 0x20)
        if origin == CLIENT and not control:
            entry = psm.last_entry(pid)
            dup = entry.find_duplicate(epoch, first_seq, last_seq) if entry is not None else None
            if dup is not None:
                return infos, done, dup
        info = infos.get(pid)
        if info is None:
            info = infos[pid] = psm.prepare_update(pid, origin)
        if control:
            if count == 0:
                continue  # an emptied marker: its transaction is gone from the log
            raw = bytes(data[pos : pos + size]) if data is not None else seg.pread(pos, size)  # type: ignore[union-attr]
            marker = next(MemoryRecords(raw).records(check_crc=False, include_control=True), None)
            if marker is None or marker.coordinator_epoch is None:
                continue  # not a COMMIT/ABORT marker
            txn = info.append_end_txn_marker(
                marker.control_type == ControlRecordType.ABORT, marker.coordinator_epoch, epoch, base,
                marker.timestamp if marker.timestamp is not None else -1)
            if txn is not None:
                done.append(txn)
        else:
            info.append_data_batch(epoch, first_seq, last_seq, max_ts, base, last, bool(attrs & 0x10))
    return infos, done, None


def commit_producers(log: Log, infos: dict[int, ProducerAppendInfo], done: list[CompletedTxn]) -> None:
    """After a successful write: the new producer states, and the aborted transactions into the
    transaction index of the segment holding their markers (the active one)."""
    psm = log._producer_state
    for info in infos.values():
        psm.update(info)
    for txn in done:
        log._segments[-1].update_txn_index(txn, psm.last_stable_offset_for(txn))
        psm.complete_txn(txn)
    psm.update_map_end_offset(log._next_offset)


def aborted_array(log: Log, start: int, upper: int) -> np.ndarray:
    """The transaction-index entries (``ENTRY_DTYPE``) of aborted transactions overlapping
    ``[start, upper)``; a reader first derives the entries a writer's recovery would rebuild."""
    if log._psm is None and reader_txn_from(log) is not None:
        _ = log._producer_state  # a reader derives the transaction indexes a writer would rebuild
    parts = []
    segments = log._segments
    for seg in segments[segments.floor_index(start):]:
        hit, complete = seg.txn_index.collect(start, upper)
        if len(hit):
            parts.append(hit)
        if complete:
            break
    return np.concatenate(parts) if parts else np.empty(0, ENTRY_DTYPE)
