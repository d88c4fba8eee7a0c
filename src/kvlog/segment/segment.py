"""LogSegment: one ``.log`` file with its offset index and time index (Kafka's LogSegment).

The ``.log`` is read with ``pread`` into private buffers, never mmapped: another process may truncate
it (a writer's recovery, a cleaner's swap), and a mapped page past the new end would kill the reader
with SIGBUS. Index files are small and are mapped by their owner only.

This module holds the class, its files and their life (open, write, roll, truncate, flush, close, rename,
delete); the rest of its work is in the package's other modules, by lifecycle: ``descriptors`` (the
open-file budget's eviction and reopening), ``reads`` (reads and point searches), ``times`` (max
timestamps, time-index vouching, the search by time), ``views`` (a read-only view's extent) and
``recovery`` (the audit's cut and the rebuilt indexes).
"""

from __future__ import annotations

import os
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from kvlog import _files, _io
from kvlog._core import records as _k
from kvlog.batch_audit import SegmentAudit
from kvlog.errors import InvalidOffsetError, KvlogError
from kvlog.index import OffsetIndex, TimeIndex, TimestampOffset
from kvlog.segment import descriptors, reads, recovery, times, views
from kvlog.segment import _common
from kvlog.segment._common import INT32_MAX, NO_TIMESTAMP, Evicted, clock, get_ident
from kvlog.txn_index import AbortedTxn, TransactionIndex

if TYPE_CHECKING:
    from kvlog.producer_state import CompletedTxn

__all__ = ["LogSegment"]


class LogSegment:
    """One segment. Not thread-safe: the Log serialises writers; readers open their own read-only copy.

    Its descriptors may be closed between calls to keep the process within its open-file budget
    (``kvlog.segment.budget``); every method reopens them as needed, so callers never see it. ``pinned``
    (set by the Log on its active segment) keeps them open. ``size_in_bytes`` is where its readable bytes
    end (the file's size for a writer; a view's extent for a reader).
    """

    pinned: bool
    size_in_bytes: int
    known_max: TimestampOffset | None  # (max timestamp, offset of it) once known; ``max_timestamp`` loads it
    offset_index: OffsetIndex  # None when opened with open_indexes=False
    time_index: TimeIndex

    def __init__(
        self,
        directory: str,
        base_offset: int,
        *,
        index_interval_bytes: int = 4096,
        max_index_size: int = 10 * 1024 * 1024,
        read_only: bool = False,
        created_ms: int = 0,
        roll_jitter_ms: int = 0,
        suffix: str = "",
        preallocate_bytes: int = 0,
        open_indexes: bool = True,
    ):
        self.directory = directory
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.max_index_size = max_index_size
        self.read_only = read_only
        self.created_ms = created_ms
        self.roll_jitter_ms = roll_jitter_ms
        self.suffix = suffix
        self.log_path = _files.segment_path(directory, base_offset, _files.LOG + suffix)
        flags = os.O_RDONLY if read_only else os.O_RDWR | os.O_CREAT
        # (few attributes: past 30 an instance's dict stops sharing keys and every access slows down)
        self._closed = True  # until the files are open (__del__ and close_handlers look at it)
        self.pinned = False  # never evicted from the descriptor budget (a writer's active segment)
        self._fd_owner = 0  # the thread that used this segment last (the budget's business)
        self._fd_stamp = 0  # when it was used last (the budget's clock)
        self._fd_ref: Any = None  # the budget's weak reference to this segment
        self._evicted_as: Evicted | None = None  # what the .log was when last evicted
        self._fd = _io.fs.open(self.log_path, flags)
        self._closed = False
        self.size_in_bytes = _io.fs.size(self._fd)
        if preallocate_bytes and self.size_in_bytes == 0 and not read_only and hasattr(os, "posix_fallocate"):
            # Kafka's preallocate=true: the file gets its full length, the logical size stays 0
            os.posix_fallocate(self._fd, 0, preallocate_bytes)
        self.offset_index = None  # type: ignore[assignment]
        self.time_index = None  # type: ignore[assignment]
        if open_indexes:
            try:
                self.offset_index = OffsetIndex(
                    _files.segment_path(directory, base_offset, _files.INDEX + suffix), base_offset,
                    max_index_size, writable=not read_only)
                self.time_index = TimeIndex(
                    _files.segment_path(directory, base_offset, _files.TIME_INDEX + suffix), base_offset,
                    max_index_size, writable=not read_only)
            except BaseException:
                self.close_handlers()  # (a log of thousands of segments must not leak one per failure)
                raise
            self.offset_index.on_resume = self.time_index.on_resume = weakref.WeakMethod(self._charge)
        # the transaction index file exists only once an aborted transaction is recorded (as Kafka's)
        self.txn_index = TransactionIndex(_files.segment_path(directory, base_offset, _files.TXN_INDEX + suffix),
                                          base_offset, writable=not read_only)
        self._bytes_since_last_index_entry = 0
        self.known_max = None  # lazily loaded (max timestamp, shallow offset)
        # the segment held records at open but its time index no entry: its max timestamp is the batches'
        self._max_ts_unindexed = (self.size_in_bytes > 0 and self.time_index is not None
                                  and self.time_index.valid_entries == 0)
        self._rolling_ts: int | None = None
        self._rolling_ts_loaded = False
        # (offset, position) of the batch after the last fetch's: a consumer's next fetch starts there.
        # Valid while the file only grows; whatever shrinks it (recover, truncate_to, a reader's
        # limit_to_valid_prefix) clears it.
        self._fetch_next: tuple[int, int] | None = None
        self._stale_indexes = False  # a reader's index copies predate what refresh() took in
        self._index_vouched: bool | None = None  # the offset index's last entry checked against the .log
        self.audit: SegmentAudit | None = None  # the last audit_segment verdict (recovery, read-only open)
        self.set_aside_paths: list[str] = []  # quarantine files recovery wrote for this segment
        _common.fd_budget.charge(self)

    def __repr__(self) -> str:
        return f"LogSegment(base_offset={self.base_offset}, size={self.size_in_bytes}, path={self.log_path!r})"

    @property
    def evicted(self) -> bool:
        """The ``.log``'s descriptor is closed for the open-file budget (it reopens on next use)."""
        return self._fd < 0 and not self._closed

    @property
    def max_timestamp(self) -> int:
        """Largest batch max timestamp in the segment (-1 if none)."""
        known = self.known_max  # (once known: a time search asks every segment)
        return (known if known is not None else self._max_timestamp_and_offset()).timestamp

    @property
    def shallow_offset_of_max_timestamp(self) -> int:
        return self._max_timestamp_and_offset().offset

    @property
    def largest_timestamp(self) -> int:
        """Kafka's largestTimestamp: the max record timestamp, or the file's mtime when there is none
        (:func:`kvlog.segment.times.largest_timestamp`)."""
        return times.largest_timestamp(self)

    @property
    def rolling_based_timestamp(self) -> int | None:
        """The first batch's max timestamp: the start of the segment's age for time-based rolls."""
        return times.rolling_based_timestamp(self)

    def can_convert_to_relative_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= INT32_MAX

    # the segment's work, by lifecycle, in the package's other modules
    fileno = descriptors.fileno
    _use = descriptors._use
    _charge = descriptors._charge
    _names = descriptors._names
    _reopen = descriptors._reopen
    _fd_cost = descriptors._fd_cost
    _fd_release = descriptors._fd_release
    _finished_while_evicted = descriptors._finished_while_evicted

    pread = reads.pread
    _span = reads._span
    pread_block = reads.pread_block
    iter_headers = reads.iter_headers
    _locate = reads._locate
    _find = reads._find
    _hint = reads._hint
    index_position = reads.index_position
    _vouch_index = reads._vouch_index
    window = reads.window
    translate_offset = reads.translate_offset
    _translate_from = reads._translate_from
    read = reads.read
    read_next_offset = reads.read_next_offset
    _last_offset_from = reads._last_offset_from

    _max_timestamp_and_offset = times._max_timestamp_and_offset
    _vouch_time_index = times._vouch_time_index
    _max_timestamp_from_batches = times._max_timestamp_from_batches
    verified_max_timestamp = times.verified_max_timestamp
    time_waited_for_roll = times.time_waited_for_roll
    find_offset_by_timestamp = times.find_offset_by_timestamp

    limit_to_valid_prefix = views.limit_to_valid_prefix
    limit_to_offset = views.limit_to_offset
    limit_to = views.limit_to
    valid_tail = views.valid_tail
    extend_valid_prefix = views.extend_valid_prefix
    _refresh_indexes = views._refresh_indexes

    recover = recovery.recover
    set_aside = recovery.set_aside

    def append(self, data: bytes | bytearray | memoryview, headers: np.ndarray, *, flush: bool = False) -> None:
        """Write whole validated batches (``headers`` positions relative to ``data``) at the end.

        Offset-index entries follow Kafka ≥ 3.x: before each batch, if more than
        ``index.interval.bytes`` were written since the last entry, map that batch's last offset to its
        start; the time index gets the max timestamp so far at the same moments.
        """
        if not len(headers):
            if self.read_only:
                raise KvlogError(f"segment {self.log_path} is open read-only")
            return
        physical = self._write(data, int(headers["last_offset"][-1]), int(headers["max_timestamp"].max()), flush)
        cur = self._max_timestamp_and_offset()
        offs, poss, tss, tsoffs, since, max_ts, shallow = _k.index_plan(
            np.ascontiguousarray(headers["size"]), np.ascontiguousarray(headers["last_offset"]),
            np.ascontiguousarray(headers["max_timestamp"]), physical, self._bytes_since_last_index_entry,
            self.index_interval_bytes, cur.timestamp, cur.offset, self.time_index.last_entry.timestamp)
        if len(offs):
            self.offset_index.append_many(offs, poss)
        if len(tss):
            self.time_index.append_many(tss, tsoffs)
        self._bytes_since_last_index_entry = since
        self.known_max = TimestampOffset(max_ts, shallow)

    def _write(self, data: bytes | bytearray | memoryview, last_offset: int, max_timestamp: int, flush: bool) -> int:
        """Write batches ending at ``last_offset`` at the end of the file; returns where they start."""
        if self.read_only:
            raise KvlogError(f"segment {self.log_path} is open read-only")
        if not 0 <= last_offset - self.base_offset <= INT32_MAX:
            raise InvalidOffsetError(
                f"offset {last_offset} cannot be stored relative to segment base {self.base_offset}")
        physical = self.size_in_bytes
        if physical == 0 and not self._rolling_ts_loaded:
            self._rolling_ts_loaded = True  # the segment's age for time-based rolls starts here
            self._rolling_ts = max_timestamp if max_timestamp >= 0 else None
        fd = self._fd
        if fd < 0 or self._fd_owner != get_ident():
            fd = self._use()
        if not self.pinned:  # (the active segment is never evicted: its use needs no stamp)
            self._fd_stamp = next(clock)
        _io.fs.pwrite(fd, data, physical)
        if flush:
            _io.fs.fsync(fd)
        self.size_in_bytes = physical + len(data)
        return physical

    def append_batch(self, data: bytes | bytearray | memoryview, last_offset: int, max_timestamp: int, *,
                     flush: bool = False) -> None:
        """``append`` for one validated batch (a point append): the same index rule, decided on three
        integers instead of a kernel over header arrays."""
        physical = self._write(data, last_offset, max_timestamp, flush)
        cur = self._max_timestamp_and_offset()
        if max_timestamp > cur.timestamp:
            cur = self.known_max = TimestampOffset(max_timestamp, last_offset)
        since = self._bytes_since_last_index_entry
        if since > self.index_interval_bytes:
            self.offset_index.append(last_offset, physical)
            if cur.timestamp > self.time_index.last_entry.timestamp:
                self.time_index.maybe_append(cur.timestamp, cur.offset)
            since = 0
        self._bytes_since_last_index_entry = since + len(data)

    def truncate_to(self, offset: int) -> int:
        """Remove every batch whose last offset ≥ ``offset`` (whole batches); returns bytes removed."""
        self._fetch_next = None
        found = self.translate_offset(offset)
        self.offset_index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        self.offset_index.resize(self.max_index_size)
        self.time_index.resize(self.max_index_size)
        if found is None:
            return 0
        removed = self.size_in_bytes - found.position
        _io.fs.truncate(self.fileno(), found.position)
        self.size_in_bytes = found.position
        self._fetch_next = None
        self._bytes_since_last_index_entry = 0
        if self.size_in_bytes == 0:
            self._rolling_ts_loaded = True
            self._rolling_ts = None
        # the max timestamp: the last time-index entry plus whatever follows it
        last = self.time_index.last_entry
        max_ts, shallow = (last.timestamp, last.offset) if last.timestamp >= 0 else (NO_TIMESTAMP, self.base_offset)
        start = self.index_position(last.offset) if last.timestamp >= 0 else 0
        for headers in self.iter_headers(start):
            for h in headers:
                if int(h["max_timestamp"]) > max_ts:
                    max_ts, shallow = int(h["max_timestamp"]), int(h["last_offset"])
        self.known_max = TimestampOffset(max_ts, shallow)
        return removed

    def on_become_inactive(self) -> None:
        """At roll: the final time-index entry (the segment's max timestamp), then trim the files."""
        if self.read_only:
            return
        cur = self._max_timestamp_and_offset()
        # (a time index found without entries and without a slot, an old segment's emptied file, is left as
        # found, as the broker leaves it; the segment's max timestamp came from its batches)
        ti = self.time_index
        if cur.timestamp >= 0 and not (self._max_ts_unindexed and ti.valid_entries >= ti.max_entries):
            self.time_index.maybe_append(cur.timestamp, cur.offset, skip_full_check=True)
        self.offset_index.trim_to_valid_size()
        self.time_index.trim_to_valid_size()
        fd = self.fileno()
        if os.fstat(fd).st_size != self.size_in_bytes:
            _io.fs.truncate(fd, self.size_in_bytes)  # preallocated file

    def flush(self) -> None:
        if self.read_only:
            return
        _io.fs.fsync(self.fileno())
        self.offset_index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def close(self) -> None:
        """Finish the files as a roll does (final time-index entry, trimmed), then close them."""
        if self._closed:
            return
        if not self.read_only and not self._finished_while_evicted():
            self.on_become_inactive()
        self.close_handlers()

    def __del__(self) -> None:
        try:
            if not getattr(self, "_closed", True):
                self.close_handlers()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def close_handlers(self) -> None:
        """Close without touching the files (after they were renamed or are about to be deleted)."""
        if self._closed:
            return
        self._closed = True
        _common.fd_budget.forget(self)
        if self.offset_index is not None:
            self.offset_index.close()
        if self.time_index is not None:
            self.time_index.close()
        fd, self._fd = self._fd, -1
        if fd >= 0:
            _io.fs.close(fd)

    def paths(self) -> list[str]:
        """The segment's files (the transaction index only when it exists)."""
        out = [self.log_path, self.offset_index.path, self.time_index.path]
        if self.txn_index.exists():
            out.append(self.txn_index.path)
        return out

    def update_txn_index(self, done: "CompletedTxn", last_stable_offset: int) -> None:
        """Record an aborted transaction whose marker is in this segment (commits need no entry)."""
        if done.is_aborted:
            self.txn_index.append(AbortedTxn(done.producer_id, done.first_offset, done.last_offset,
                                             last_stable_offset))

    def change_suffix(self, old: str, new: str) -> None:
        """Rename the segment's files from suffix ``old`` to ``new`` (e.g. '' → '.deleted')."""
        for attr in ("log_path",):
            path = getattr(self, attr)
            target = path[: len(path) - len(old)] + new if old else path + new
            if os.path.exists(path):
                _io.fs.rename(path, target)
            setattr(self, attr, target)
        for idx in (self.offset_index, self.time_index):
            path = idx.path
            target = path[: len(path) - len(old)] + new if old else path + new
            idx.rename_to(target)
        path = self.txn_index.path
        self.txn_index.rename_to(path[: len(path) - len(old)] + new if old else path + new)
        self.suffix = new

    def delete(self) -> None:
        """Close and remove the segment's files (the caller fsyncs the directory)."""
        self.close_handlers()
        for path in self.paths():
            try:
                _io.fs.unlink(path)
            except FileNotFoundError:
                pass
