"""Opening a log's directory (Kafka's ``LogLoader``): finishing or rolling back an interrupted swap,
removing temporary files, auditing the segments recovery must look at, and a read-only view's load and
``refresh`` beside a writer that keeps changing the directory."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import numpy as np

from kvlog import _files, _io, checkpoint, committed_offsets, storage
from kvlog.broker_files import PARTITION_METADATA
from kvlog.batch_audit import ProducerLast, audit_segment, dense_history, snapshot_producers
from kvlog.damage import find_damage
from kvlog.errors import BackupError, KvlogError
from kvlog.log import producers
from kvlog.log._common import LONG_MAX
from kvlog.segment import LogSegment

if TYPE_CHECKING:
    from kvlog.log.log import Log


def committed_range(log: Log) -> tuple[int, int] | None:
    """The partition's committed (log start, end) when its data directory is governed by a sink's commits
    (:mod:`kvlog.committed_offsets`), else None. A writer may not open a partition a live sink write covers."""
    if log.partition < 0:
        return None
    root = os.path.dirname(log.dir)
    if log._backup_run is not None:  # a reader pinned to an older run of a backup
        pinned, rewritten = committed_offsets.at_backup_run(root, log._backup_run)
        later = rewritten.get((log.topic, log.partition))
        if later is not None:
            raise BackupError(f"{log.dir}: backup run {later} moved aside files of this partition that run "
                              f"{log._backup_run} holds (the source compacted or deleted them), so run "
                              f"{log._backup_run} of it no longer reads in place; read the newest run, or restore "
                              f"it with kvlog restore --run {log._backup_run}")
        return pinned.range_of(log.topic, log.partition)
    found = committed_offsets.latest(root).range_of(log.topic, log.partition)
    if found is not None and not log.read_only:
        committed_offsets.check_no_write_in_progress(root, log.topic)
    return found


def load(log: Log, clean_shutdown: bool, listing: list[str] | None = None) -> None:
    """Load the directory's segments into ``log``, recover what needs it (a writer) or limit the view
    to what is trustworthy (a reader), and set the offsets and producer state from them. ``listing``: the
    directory's sorted listing when the caller just took it."""
    log.damage = []
    names = listing if listing is not None else sorted(_io.fs.listdir(log.dir))
    listed = names  # the directory at open, before a writer finishes an interrupted swap
    if not log.read_only:
        names = resolve_temporary_files(log.dir, names)
        for n in names:  # an interrupted snapshot write (the snapshot itself is replaced atomically)
            if n.endswith(_files.SNAPSHOT + ".tmp") and _files.is_offset_name(n):
                _io.fs.unlink(os.path.join(log.dir, n))
    logs = [n for n in names if n.endswith(_files.LOG) and _files.is_offset_name(n)]
    if not logs and log.read_only:  # (a writer's open checked before taking the lock)
        _files.check_log_directory(log.dir, listed, read_only=True)
    committed = committed_range(log)
    log._governed = committed is not None
    if committed is not None:  # a governed directory: what lies at or past the committed end is not the log
        if not log.read_only:
            names = committed_offsets.set_aside_uncommitted(log.dir, names, committed[1])
        logs = [n for n in logs if _files.offset_from_name(n) < committed[1]]
    if not log.read_only:
        have = {_files.offset_from_name(n) for n in logs}
        for n in names:
            if (n.endswith((_files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX)) and _files.is_offset_name(n)
                    and _files.offset_from_name(n) not in have):
                _io.fs.unlink(os.path.join(log.dir, n))  # orphaned index
    if storage.is_remote(log.dir):
        # an object store answers in milliseconds whatever the size: the files this open reads one
        # after another (indexes, the root's checkpoints) are fetched together now
        root = os.path.dirname(log.dir)
        _io.fs.prefetch_files(
            [os.path.join(root, n) for n in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET,
                                             checkpoint.CLEANER_OFFSET, checkpoint.REPLICATION_OFFSET)]
            + [os.path.join(log.dir, n) for n in names
               if n.endswith((_files.INDEX, _files.TIME_INDEX)) and _files.is_offset_name(n)
               or n == PARTITION_METADATA])
    stored = log._checkpoints.read(log.topic, log.partition)
    if committed is not None:  # published after its bytes were written: evidence of durable data
        stored["high_watermark"] = max(stored.get("high_watermark", -1), committed[1])
        stored["log_start_offset"] = max(stored.get("log_start_offset", 0), committed[0])
    recovery_point = stored.get("recovery_point", 0) if not clean_shutdown else LONG_MAX
    log_start = stored.get("log_start_offset", 0)
    needs_recovery: set[int] = set()
    for n in logs:
        base = _files.offset_from_name(n)
        missing_index = not _io.fs.exists(_files.segment_path(log.dir, base, _files.INDEX))
        seg = log._new_segment(base)
        if missing_index or seg.offset_index.untrusted_tail() or seg.time_index.untrusted_tail():
            needs_recovery.add(base)
        else:
            try:
                seg.offset_index.sanity_check()
                seg.time_index.sanity_check()
            except KvlogError:
                needs_recovery.add(base)
        log._add_segment(seg)
    if log.read_only:
        _add_swapped_segments(log, names)
    recovered: list[np.ndarray] = []
    txn_from = _audit_segments(log, recovery_point, clean_shutdown, needs_recovery, listed, stored, recovered)
    after = names if log.read_only else _io.fs.listdir(log.dir)  # recovery may have set bytes aside
    log.quarantined = sorted(os.path.join(log.dir, n) for n in after
                             if n.endswith(_files.QUARANTINED) and _files.is_offset_name(n)
                             and n.split(".", 2)[1] == "log")
    segments = log._segments
    if log.read_only and log._history is not None:  # older segments kept elsewhere (kvlog.log.history)
        for seg in log._history.segments_below(log, segments[0].base_offset if segments else None, log_start):
            log._add_segment(seg)
    if log.read_only:
        log.log_start_offset = max(log_start, segments[0].base_offset if segments else 0)
        log._next_offset = segments[-1].read_next_offset() if segments else log.log_start_offset
        if log.damage and log.damage[-1].path == segments[-1].log_path:
            log._next_offset = max(log._next_offset, log.damage[-1].end_offset)
        if committed is not None:
            if segments and log._next_offset > committed[1]:
                segments[-1].limit_to_offset(committed[1])  # it grew past the end: not part of the view
            log._next_offset = min(log._next_offset, committed[1])
            log.log_start_offset = min(log.log_start_offset, log._next_offset)
        log.recovery_point = log._next_offset
        log._psm = None  # loaded on first use: most readers never ask (only read_committed does)
        log._txn_from = txn_from
        log._txn_from_checked = False
        log._broker.load_reader(names)
        return
    next_offset = segments[-1].read_next_offset() if segments else 0
    if segments and next_offset < log_start:
        for seg in segments:
            seg.delete()
        segments.clear()
    if not segments:
        log._add_segment(log._new_segment(log_start))
        _io.fs.fsync_dir(log.dir)
        next_offset = log_start
    log.log_start_offset = max(log_start, segments[0].base_offset)
    log._next_offset = next_offset
    log.recovery_point = min(stored.get("recovery_point", 0), next_offset) if not clean_shutdown else next_offset
    active = segments[-1]
    active.pinned = True
    active.offset_index.resize(log.config.segment_index_bytes)
    active.time_index.resize(log.config.segment_index_bytes)
    producers.load_producer_state(log, txn_from)
    log._broker.load_writer(log, names, recovered)


def _audit_segments(log: Log, recovery_point: int, clean_shutdown: bool, needs_recovery: set[int],
                    listed: list[str], stored: dict[str, int], recovered: list[np.ndarray]) -> int | None:
    """Audit the segments recovery must look at and cut each where its trustworthy bytes end.

    Those are the segments from the one holding the recovery point to the end (after a clean
    shutdown, the active one), and any whose indexes failed their checks. A writer and a read-only
    open reach the same verdict on the same bytes; the writer then acts on it (rebuilt indexes,
    the bytes after a cut set aside and the file truncated, later segments set aside), the reader
    only limits its view. Returns the base offset from which transaction indexes are rebuilt (a
    writer rewrites them at once; a reader derives them in memory on first use, see
    ``producers.reader_txn_from``). A writer adds the batch headers of each segment it recovers to
    ``recovered`` (the leader epochs they carry are taken in afterwards, as ``LogSegment.recover`` does).
    """
    segments = log._segments
    if not segments:
        return None
    txn_from: int | None = None
    denses: list[bool] = []

    def dense() -> bool:  # (read once, and only if a segment is audited)
        if not denses:
            denses.append(dense_history(log.dir, log.topic, log.partition, log.config.cleanup_policy, listed))
        return denses[0]

    snapshots: list[list[ProducerLast]] = []

    def producer_lasts() -> list[ProducerLast]:  # read once, and only if a batch has a producer id
        if not snapshots:
            snapshots.append(snapshot_producers(log.dir))
        return snapshots[0]

    start_idx = segments.floor_index(recovery_point)
    # a reader that skips damage must know it all before the first read; one that raises finds damage
    # in the flushed segments as it reads them (their CRCs are checked on decode), as a broker does
    audit_all = log.read_only and log.on_damage == "skip"
    prev_last = -1
    for i, seg in enumerate(list(segments)):
        recovering = (i >= start_idx and not clean_shutdown) or seg.base_offset in needs_recovery
        if i < start_idx and not recovering and not audit_all:
            if not log.read_only and seg.txn_index.exists():
                try:
                    seg.txn_index.sanity_check()
                except KvlogError:
                    txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
            prev_last = -1  # not read: only its successor's base offset bounds the next one
            continue
        next_base = segments.bases[i + 1] if i + 1 < len(segments) else None
        if (log.read_only and not audit_all and next_base is None and seg.base_offset not in needs_recovery
                and _flushed_to_its_end(seg, stored)):
            # (checked when read, as the sealed segments below the recovery point are). A writer's recovery
            # would still rebuild its transaction index (it holds the recovery point): a reader derives it in
            # memory, from the segment's headers, the first time it needs it (read_committed), not at open
            if not clean_shutdown:
                txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
            continue
        trusted = seg.base_offset not in needs_recovery and seg.offset_index is not None
        audit_index = seg.offset_index.to_numpy() if trusted else None
        audit = audit_segment(seg, prev_last=prev_last, next_base=next_base, dense=dense(),
                              index=audit_index, producers=producer_lasts)
        prev_last = audit.last_offset if len(audit.headers) else prev_last
        cut = audit.valid_end < audit.size
        if log.read_only and cut:
            # a reader tells damage in durable data (an error, or a reported skip) from a torn tail
            damage = find_damage(seg, audit, later_segment=next_base,
                                 recovery_point=stored.get("recovery_point", -1),
                                 high_watermark=stored.get("high_watermark", -1),
                                 index=audit_index if trusted else None)
            if damage is not None:
                log.damage.append(damage)
                prev_last = damage.end_offset - 1
                seg.limit_to(audit)
                txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
                continue
        log._set_aside_now |= cut and not audit.zero_tail
        if recovering or not audit.clean:
            # a writer rebuilds this segment's indexes, its transaction index included; a reader
            # derives the transaction index in memory when it first needs it (read_committed)
            txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
        if log.read_only:
            seg.limit_to(audit)
        elif recovering or not audit.clean:
            seg.recover(audit=audit)
            recovered.append(audit.headers)
        else:
            seg.audit = audit
        if cut and i >= start_idx and i + 1 < len(segments) and not log.read_only:
            # After a damaged region the later segments cannot be part of this log (Kafka deletes
            # them). Their batches may still be intact, and kvlog deletes nothing it cannot prove
            # invalid: a writer sets them aside as <name>.quarantined, a reader stops before them.
            log._set_aside_now = True
            for later in segments[i + 1:]:
                later.close_handlers()
                if not log.read_only:
                    later.change_suffix("", _files.QUARANTINED)
            del segments[i + 1:]
            if not log.read_only:
                _io.fs.fsync_dir(log.dir)
            break
    return txn_from


def _flushed_to_its_end(seg: LogSegment, stored: dict[str, int]) -> bool:
    """A read-only open's shortcut for the last segment: whether it ends exactly at the recovery point, every
    byte of it flushed before the checkpoint was written (a cleanly stopped broker, a closed writer). Then it
    is trusted as the sealed segments are, checked when read, and the open reads only the batches after its
    offset index's last entry (CRC included) instead of walking the whole segment.

    Anything else says the segment was still being written, or lost bytes the checkpoints say were there (a
    torn or damaged tail, a truncated copy): it is audited whole, as recovery would."""
    recovery_point = stored.get("recovery_point", -1)
    if recovery_point <= seg.base_offset:
        return False
    valid, last = seg.valid_tail()
    return (valid == seg.size_in_bytes and last + 1 == recovery_point
            and stored.get("high_watermark", -1) <= recovery_point)


def load_read_only(log: Log, clean_shutdown: bool) -> None:
    """A reader's open, beside a writer that may be swapping or deleting segments right now.

    The listing and the opens are not atomic with the writer's renames, so the load is retried
    when a file vanished or the directory changed meanwhile. A ``.log.swap`` counts as what
    recovery would make of it (replacing the segments it covers), so a reader caught mid-swap sees
    the new state. Leftover temporary files that do not change cost nothing.
    """
    if storage.is_remote(log.dir):
        load(log, clean_shutdown)  # an object store has no renames to race with: one listing
        return
    for attempt in range(20):
        before = sorted(os.listdir(log.dir))
        try:
            load(log, clean_shutdown, list(before))
            if sorted(os.listdir(log.dir)) == before or attempt == 19:
                return
        except FileNotFoundError:
            if attempt == 19:
                raise
        for seg in log._segments:
            seg.close_handlers()
        log._segments.clear()
        time.sleep(0.002 * (attempt + 1))


def _add_swapped_segments(log: Log, names: list[str]) -> None:
    """Read-only view of an unfinished swap: the ``.swap`` segments replace what they cover."""
    segments = log._segments
    for n in names:
        if not (n.endswith(_files.LOG + _files.SWAP) and _files.is_offset_name(n)):
            continue
        base = _files.offset_from_name(n)
        seg = LogSegment(log.dir, base, suffix=_files.SWAP, read_only=True,
                         max_index_size=log.config.segment_index_bytes)
        nxt = seg.read_next_offset()
        for i in range(len(segments) - 1, -1, -1):
            if base <= segments.bases[i] < nxt:
                segments[i].close_handlers()
                del segments[i]
        log._add_segment(seg)


def resolve_temporary_files(d: str, names: list[str]) -> list[str]:
    """Finish or roll back an interrupted compaction/split swap in directory ``d``; returns its new
    listing, sorted.

    As Kafka's ``LogLoader.removeTempFilesAndCollectSwapFiles`` does.
    """
    cleaned, swaps = [], []
    for n in names:
        if n.endswith(_files.DELETED) and _files.is_offset_name(n):
            _io.fs.unlink(os.path.join(d, n))
        elif n.endswith(_files.CLEANED) and _files.is_offset_name(n):
            cleaned.append(n)
        elif n.endswith(_files.SWAP) and _files.is_offset_name(n):
            swaps.append(n)
    if cleaned:
        min_cleaned = min(_files.offset_from_name(n) for n in cleaned)
        for n in list(swaps):
            if _files.offset_from_name(n) >= min_cleaned:
                _io.fs.unlink(os.path.join(d, n))
                swaps.remove(n)
        for n in cleaned:
            _io.fs.unlink(os.path.join(d, n))
    log_swaps = [n for n in swaps if n.endswith(_files.LOG + _files.SWAP)]
    if log_swaps:
        lo, hi = LONG_MAX, -1
        for n in log_swaps:
            base = _files.offset_from_name(n)
            seg = LogSegment(d, base, suffix=_files.SWAP, read_only=True, open_indexes=False)
            try:
                nxt = seg.read_next_offset()
            finally:
                seg.close_handlers()
            lo, hi = min(lo, base), max(hi, nxt)
        for n in os.listdir(d):
            if (_files.is_offset_name(n) and not n.endswith(_files.SWAP)
                    and n.endswith(_files.SEGMENT_SUFFIXES) and lo <= _files.offset_from_name(n) < hi):
                _io.fs.unlink(os.path.join(d, n))
    if swaps:
        for n in swaps:
            _io.fs.rename(os.path.join(d, n), os.path.join(d, n[: -len(_files.SWAP)]))
        _io.fs.fsync_dir(d)
    if cleaned or swaps:
        _io.fs.fsync_dir(d)
    return sorted(os.listdir(d))


def refresh(log: Log) -> int:
    """A read-only view's catching up with its writer (``Log.refresh``): the new complete, CRC-valid
    batches of the last segment, then any segment rolled at the view's end."""
    segments = log._segments
    # a governed directory: the view goes no further than what is committed. A sink's job only ever adds
    # new segment files, so a view of an ungoverned directory looks again only before it takes one in
    committed = committed_range(log) if log._governed else None
    end = committed[1] if committed is not None else LONG_MAX
    while True:
        last = segments[-1].extend_valid_prefix()
        if last is not None:
            if last + 1 > end:
                segments[-1].limit_to_offset(end)
            log._next_offset = min(last + 1, end)
            log.recovery_point = log._next_offset
        nxt = log._next_offset
        if nxt >= end:
            break
        probe = log._roll_probe
        if probe[0] != nxt:  # the name a segment rolled at this end would have
            probe = log._roll_probe = (nxt, _files.segment_path(log.dir, nxt, _files.LOG))
        if nxt <= segments.bases[-1] or not _io.fs.exists(probe[1]):
            break
        if committed is None and not log._governed:
            committed = committed_range(log)
            log._governed = committed is not None
            if committed is not None:
                end = committed[1]
                log._next_offset = min(log._next_offset, end)
                if log._next_offset >= end:
                    break
        try:
            seg = log._new_segment(nxt)
        except FileNotFoundError:
            break  # deleted again before we opened it
        seg.limit_to_valid_prefix()
        log._add_segment(seg)
        log._next_offset = min(seg.read_next_offset(), end)
        log.recovery_point = log._next_offset
    if committed is not None and committed[0] > log.log_start_offset:
        log.log_start_offset = min(committed[0], log._next_offset)  # an overwrite moved it
    if log._psm is not None:
        log._psm = None  # producer state follows the new end on next use
    return log._next_offset
