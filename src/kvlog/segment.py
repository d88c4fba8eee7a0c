"""LogSegment: one ``.log`` file with its offset index and time index (Kafka's LogSegment).

The ``.log`` is read with ``pread`` into private buffers, never mmapped: another process may truncate
it (a writer's recovery, a cleaner's swap), and a mapped page past the new end would kill the reader
with SIGBUS. Index files are small and are mapped by their owner only.

A segment's descriptors (the ``.log``'s, and one per mapped index) count against the process-wide
budget of ``kvlog._fd_cache``: past it, the least recently used segments close them and reopen them on
their next use, checking that the file is still the one they had (see that module).
"""

from __future__ import annotations

import errno
import os
import threading
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from kvlog import _fd_cache, _files, _io, storage
from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog._walk import BatchWalk
from kvlog.batch_audit import SegmentAudit, audit_segment, quarantine_name
from kvlog.errors import CorruptRecordError, InvalidOffsetError, KvlogError, LogIOError, SegmentReplacedError
from kvlog.index import OffsetIndex, TimeIndex, TimestampOffset
from kvlog.records import MemoryRecords
from kvlog.storage import REMOTE_FD
from kvlog.txn_index import AbortedTxn, TransactionIndex

if TYPE_CHECKING:
    from kvlog.producer_state import CompletedTxn

__all__ = ["LogSegment", "BatchPosition", "READ_CHUNK"]

READ_CHUNK = 1 << 20
INT32_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
NO_TIMESTAMP = -1
#: a point operation's first window past ``index.interval.bytes``: room for the target's batch header
HEADER_ROOM = 64
#: the largest window a point search grows to before it steps batch by batch
MAX_WINDOW = 8 << 20
#: reads from this size on go to pooled memory (huge pages, reused) instead of a fresh bytes
POOLED_READ = 1 << 20
#: the first window of a fetch bounded by an offset (``stop_offset``): the bound is usually near, so the
#: window grows fourfold from here instead of reading ``max_size`` bytes at once
BOUNDED_WINDOW = 4 << 10
_FOUND, _NEED, _DECODE = _p.FOUND, _p.NEED, _p.DECODE
_budget = _fd_cache.budget
_get_ident = threading.get_ident
_clock = _fd_cache.clock


class _Evicted(NamedTuple):
    """What an evicted segment's ``.log`` was, to reopen that very file."""

    identity: tuple[int, int]  # (device, inode)
    size: int  # its length then (nothing changes it until it reopens)
    head: bytes | None  # a reader's: its first bytes (an inode number alone may be reused)


class BatchPosition(NamedTuple):
    """Where a batch sits in its segment: its offsets, byte position and size."""

    base_offset: int
    last_offset: int
    position: int
    size: int
    max_timestamp: int


class LogSegment:
    """One segment. Not thread-safe: the Log serialises writers; readers open their own read-only copy.

    Its descriptors may be closed between calls to keep the process within its open-file budget
    (``kvlog._fd_cache``); every method reopens them as needed, so callers never see it. ``pinned``
    (set by the Log on its active segment) keeps them open.
    """

    pinned: bool
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
        self._evicted_as: _Evicted | None = None  # what the .log was when last evicted
        self._fd = _io.fs.open(self.log_path, flags)
        self._closed = False
        self._size = _io.fs.size(self._fd)
        if preallocate_bytes and self._size == 0 and not read_only and hasattr(os, "posix_fallocate"):
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
        self._max_ts: TimestampOffset | None = None  # lazily loaded (max timestamp, shallow offset)
        # the segment held records at open but its time index no entry: its max timestamp is the batches'
        self._max_ts_unindexed = self._size > 0 and self.time_index is not None and self.time_index.valid_entries == 0
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
        _budget.charge(self)

    def __repr__(self) -> str:
        return f"LogSegment(base_offset={self.base_offset}, size={self._size}, path={self.log_path!r})"

    # ---------------------------------------------------------------------------------- descriptors
    def fileno(self) -> int:
        """The ``.log``'s descriptor, reopened when the open-file budget closed it; take it right before
        the call that needs it (it stays valid until this thread next opens a segment's files).

        A reopened file must be the one closed (same device and inode, under its name or one a writer
        renames it to, and for a reader the same first bytes): ``SegmentReplacedError`` otherwise;
        ``LogIOError`` (EBADF) after ``close``."""
        fd = self._fd
        if fd < 0 or self._fd_owner != _get_ident():
            fd = self._use()
        self._fd_stamp = next(_clock)
        return fd

    def _use(self) -> int:
        if self._fd >= 0:
            _budget.touch(self)  # another thread's until now
            return self._fd
        if self._closed:
            raise LogIOError(errno.EBADF, f"segment {self.log_path} is closed")
        self._reopen()
        _budget.charge(self)
        return self._fd

    def _charge(self) -> None:
        """An index mapped its file again: count it (and make this the most recently used segment)."""
        if not self._closed:
            _budget.charge(self)

    def _names(self) -> Iterator[str]:
        """Where the ``.log`` may be now: its name, and for a read-only view the names its writer renames
        segment files to (deleted, swapped in, set aside); the file's identity decides."""
        yield self.log_path
        if self.read_only:
            stem = _files.segment_path(self.directory, self.base_offset, _files.LOG)
            for suffix in ("", _files.SWAP, _files.DELETED, _files.QUARANTINED):
                if stem + suffix != self.log_path:
                    yield stem + suffix

    def _reopen(self) -> None:
        """Open the ``.log`` again after an eviction: only the very file closed then."""
        flags = os.O_RDONLY if self.read_only else os.O_RDWR
        for path in self._names():
            try:
                fd = _io.fs.open(path, flags)
            except FileNotFoundError:
                continue
            st = os.fstat(fd)
            # an inode number may be reused by a file made after the old one was deleted: a reader also
            # checks the first bytes (a batch header: base offset, CRC) it saw. What its writer truncated
            # away meanwhile (a prefix is left) is simply not there, as through a descriptor held open
            was = self._evicted_as
            assert was is not None  # (only an evicted segment reopens)
            head = was.head
            if (st.st_dev, st.st_ino) == was.identity and (
                    head is None or head.startswith(_io.fs.pread(fd, len(head), 0))):
                self._fd = fd
                return
            _io.fs.close(fd)
        raise SegmentReplacedError(
            f"segment {self.log_path} was deleted or replaced while its descriptor was closed to stay within "
            f"the open-file budget ({_budget.limit}, kvlog.set_max_open_files); reopen the log to read it as it "
            "is now")

    def _fd_cost(self) -> int:
        """Descriptors held now: the ``.log``'s (a remote one is no descriptor) and the mapped indexes'."""
        n = 1 if 0 <= self._fd < REMOTE_FD else 0
        if self.offset_index is not None:
            n += self.offset_index.holds_descriptor + self.time_index.holds_descriptor
        return n

    def _fd_release(self) -> bool:
        """The budget evicts this segment: close its descriptors, keeping everything else in memory.

        A read-only view whose path no longer names the file it has open (deleted or replaced by its
        writer) keeps it open: that descriptor is the only way left to read what the view promised.
        Writes nothing: a writer's pages are in the page cache; ``flush`` syncs them later."""
        if self.pinned or self._closed:
            return False
        fd = self._fd
        local = 0 <= fd < REMOTE_FD
        was = None
        if local:
            st = os.fstat(fd)
            identity = (st.st_dev, st.st_ino)
            head = self._evicted_as.head if self._evicted_as is not None else None
            if self.read_only:
                try:
                    now = os.stat(self.log_path, follow_symlinks=False)
                except FileNotFoundError:
                    return False
                if (now.st_dev, now.st_ino) != identity:
                    return False
                if head is None or len(head) < 64:  # (read through the verified descriptor)
                    head = _io.fs.pread(fd, 64, 0)
            was = _Evicted(identity, st.st_size, head)
        released = False
        if self.offset_index is not None:
            released = self.offset_index.suspend()
            released = self.time_index.suspend() or released
        if was is not None:
            self._evicted_as = was
            self._fd = -1
            _io.fs.close(fd)
            released = True
        return released

    @property
    def evicted(self) -> bool:
        """The ``.log``'s descriptor is closed for the open-file budget (it reopens on next use)."""
        return self._fd < 0 and not self._closed

    # ----------------------------------------------------------------------------------- properties
    @property
    def size_in_bytes(self) -> int:
        return self._size

    @property
    def max_timestamp(self) -> int:
        """Largest batch max timestamp in the segment (-1 if none)."""
        return self._max_timestamp_and_offset().timestamp

    @property
    def shallow_offset_of_max_timestamp(self) -> int:
        return self._max_timestamp_and_offset().offset

    def _max_timestamp_and_offset(self) -> TimestampOffset:
        if self._max_ts is None:
            last = self.time_index.last_entry
            # (on an object store each check is a request: there the index is trusted as Kafka trusts it)
            if last.timestamp >= 0 and (self._size == 0 or storage.is_remote(self.log_path)
                                        or self._vouch_time_index(last)):
                self._max_ts = TimestampOffset(last.timestamp, last.offset)
            elif self._max_ts_unindexed or last.timestamp >= 0:
                # a time index without an entry (missing, emptied, or a small segment's) says nothing about
                # records the segment held at open: taken as "no timestamps", time searches skipped it; one
                # whose last entry the batches contradict (cut short, another segment's, garbage) neither
                self._max_ts_unindexed = True
                self._max_ts = self._max_timestamp_from_batches(checked=False)
            else:
                self._max_ts = TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self._max_ts

    def _vouch_time_index(self, last: TimestampOffset) -> bool:
        """A time index lies outside every checksum. Its last entry is the segment's max timestamp and the
        last offset of the batch that reached it: that batch must carry exactly that max timestamp, and the
        segment's last batch none larger (two small reads). A time index cut short, another segment's, or
        garbage of a plausible shape fails, and time searches then go by the batches."""
        try:
            holder = None
            for headers in self.iter_headers(self.index_position(last.offset), chunk=HEADER_ROOM * 64):
                i = int(np.searchsorted(headers["last_offset"], last.offset, side="left"))
                if i < len(headers):
                    holder = headers[i]
                    break
            if holder is None or not holder["base_offset"] <= last.offset <= holder["last_offset"] \
                    or int(holder["max_timestamp"]) != last.timestamp:
                return False
            tail = NO_TIMESTAMP
            for headers in self.iter_headers(self.index_position(LONG_MAX), chunk=HEADER_ROOM * 64):
                if len(headers):
                    tail = max(tail, int(headers["max_timestamp"].max()))
            return tail <= last.timestamp
        except CorruptRecordError:
            return False

    def _max_timestamp_from_batches(self, *, checked: bool) -> TimestampOffset:
        """The largest batch max timestamp and the last offset of the first batch that reached it, from the
        batch headers (Kafka's recovery rebuilds a segment's max timestamp the same way); ``checked`` stops
        at the first batch whose CRC fails."""
        best = TimestampOffset(NO_TIMESTAMP, self.base_offset)
        for headers in self.iter_headers(with_crc=checked, stop_on_crc=checked):
            if len(headers):
                i = int(np.argmax(headers["max_timestamp"]))
                ts = int(headers["max_timestamp"][i])
                if ts > best.timestamp:
                    best = TimestampOffset(ts, int(headers["last_offset"][i]))
        return best

    @property
    def largest_timestamp(self) -> int:
        """Kafka's largestTimestamp: the max record timestamp, or the file's mtime when there is none.

        A segment whose time index held no entry at open ages by its mtime on the broker, whose max timestamp
        comes from that index; searches take its max from the batches. Here it is the later of the two: it
        expires only when both say it is old."""
        ts = self.max_timestamp
        if self._max_ts_unindexed and self.time_index.last_entry.timestamp < 0:
            return max(ts, _io.fs.mtime_ms(self.fileno()))
        if ts >= 0:
            return ts
        return _io.fs.mtime_ms(self.fileno())

    def verified_max_timestamp(self) -> int:
        """The max timestamp recomputed from CRC-checked batch headers (never from an index)."""
        return self._max_timestamp_from_batches(checked=True).timestamp

    @property
    def rolling_based_timestamp(self) -> int | None:
        """The first batch's max timestamp: the start of the segment's age for time-based rolls."""
        if not self._rolling_ts_loaded:
            self._rolling_ts_loaded = True
            self._rolling_ts = None
            for headers in self.iter_headers(with_crc=False, limit=1):
                if len(headers) and headers["max_timestamp"][0] >= 0:
                    self._rolling_ts = int(headers["max_timestamp"][0])
                break
        return self._rolling_ts

    def time_waited_for_roll(self, now_ms: int, max_timestamp_in_append: int) -> int:
        rts = self.rolling_based_timestamp
        if rts is not None and rts >= 0:
            return max_timestamp_in_append - rts
        return now_ms - self.created_ms

    def can_convert_to_relative_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= INT32_MAX

    # --------------------------------------------------------------------------------------- reading
    def pread(self, position: int, size: int) -> bytes:
        size = max(0, min(size, self._size - position))
        if size == 0:
            return b""
        return _io.fs.pread(self.fileno(), size, position)

    def _span(self, position: int, size: int) -> Any:
        """A fetch's bytes: small ones as ``bytes``; from 1 MiB in pooled memory (a one-shot process's
        first bulk read paid a page fault per 4 KiB of a fresh ``bytes``: 15 of 32 ms for 24 MB)."""
        return self.pread(position, size) if size < POOLED_READ else self.pread_block(position, size)

    def pread_block(self, position: int, size: int) -> memoryview:
        """Up to ``size`` bytes from ``position`` (never past the readable end) in pooled memory, for
        passes over whole segments; a memoryview of a read-only buffer."""
        size = max(0, min(size, self._size - position))
        return memoryview(_io.fs.pread_block(self.fileno(), size, position))

    def iter_headers(
        self,
        start_position: int = 0,
        *,
        end_position: int | None = None,
        with_crc: bool = False,
        stop_on_crc: bool = False,
        limit: int | None = None,
        chunk: int = READ_CHUNK,
    ) -> Iterator[np.ndarray]:
        """Batch headers (``BATCH_DTYPE``, positions absolute in the file), a chunk at a time.

        Stops silently at a trailing partial batch; raises ``CorruptRecordError`` (with this file
        and the absolute position) at structural damage or, with ``stop_on_crc``, a bad CRC.
        """
        end = self._size if end_position is None else min(end_position, self._size)
        out = np.empty(1024, dtype=_k.BATCH_DTYPE)
        produced = 0
        walk = BatchWalk(self.fileno, start_position, end, chunk)
        for pos, data in walk:
            count, nxt, _, error = _k.scan(data, 0, len(data), out, with_crc, stop_on_crc)
            if count:
                h = out[:count].copy()
                h["position"] += pos
                produced += count
                yield h
                if limit is not None and produced >= limit:
                    return
            if error is not None:
                raise error.with_context(file=self.log_path, base_position=pos) if isinstance(
                    error, CorruptRecordError) else error
            walk.advance(nxt)

    def _locate(self, offset: int, extra: int = 0, stop_offset: int = LONG_MAX, limit: int | None = None,
                max_bytes: int | None = None) -> tuple[tuple[int, ...], bytes | memoryview, int] | None:
        """The first batch whose last offset ≥ ``offset``: ``(kernel answer, window, window position)``.

        One small ``pread`` from the offset index's hint (``index.interval.bytes`` + a header + ``extra``,
        the bytes a fetch expects to need), grown geometrically only while the batch is not found. The
        kernel also cuts a fetch of ``max_bytes`` (default ``extra``) in that window; the cut says whether
        the window was enough to be sure. The hint is
        evidence, not fact: when the batch at the hint starts after ``offset`` (a stale or damaged
        index) or lies past the readable end, the search starts again from the segment's start.
        """
        size = self._size
        want = self.index_interval_bytes + HEADER_ROOM + extra
        cont = self._fetch_next
        # a fetch from the offset where the previous one ended starts at its end position
        cont_pos = cont[1] if cont is not None and cont[0] == offset and cont[1] < size else -1
        if cont_pos >= 0:
            pos, checked, want = cont_pos, True, HEADER_ROOM + extra
        else:
            pos, checked = self._hint(offset)
        cut_end = (size if limit is None else limit)
        while True:
            data = self._window(pos, want)
            if not data:
                return None
            found = self._find(data, pos, offset, extra if max_bytes is None else max_bytes, stop_offset,
                               cut_end - pos)
            if pos == cont_pos and 0 <= found[6] < offset:  # (an index hint may land there too)
                raise CorruptRecordError(
                    f"the batch at position {pos} starts at offset {found[6]}, before offset {offset} where "
                    "the previous fetch ended (a field outside the CRC is damaged)",
                    position=pos, offsets=(found[6], found[3])).with_context(file=self.log_path)
            if not checked and found[6] != _p.NO_HEADER:
                checked = True
                if found[6] > offset:  # the batch at the hint starts past the target
                    pos = 0
                    continue
            if found[0] == _FOUND:
                return found, data, pos
            nxt, need = pos + found[1], found[4]
            if size - nxt <= 17 or (need > 0 and nxt + need > size):
                return None  # the end of the segment, or a batch still being written past it
            if found[1] == 0:
                # the batch and its successor's header (which a read checks it against)
                want = max(min(want * 2, MAX_WINDOW), need + HEADER_ROOM)
            pos = nxt

    def _find(self, data: bytes | memoryview, position: int, offset: int, max_bytes: int, stop_offset: int = LONG_MAX,
              cut_end: int = LONG_MAX) -> tuple[int, ...]:
        """``find_batch`` over ``data`` read from ``position``, its errors located in this file."""
        try:
            return _p.find_batch(data, offset, max_bytes, stop_offset, cut_end)
        except CorruptRecordError as exc:
            raise exc.with_context(file=self.log_path, base_position=position) from None

    def _hint(self, offset: int) -> tuple[int, bool]:
        """Where the offset index says to start looking for ``offset``, and whether that needs no check
        (the segment start). A position past the readable end counts as the start."""
        if self._stale_indexes:
            self._refresh_indexes()
        pos = self.offset_index.lookup_position(offset)
        if pos == 0 or pos >= self._size or not (self._index_vouched or self._vouch_index()):
            return 0, True
        return pos, False

    def index_position(self, offset: int) -> int:
        """Where the offset index says the batch holding ``offset`` starts at the latest (0: the segment's
        start), from an index whose last entry names a batch of this file (see :meth:`_vouch_index`)."""
        if self._stale_indexes:
            self._refresh_indexes()
        if self.offset_index is None:
            return 0
        pos = self.offset_index.lookup_position(offset)
        if pos == 0 or pos >= self._size or not (self._index_vouched or self._vouch_index()):
            return 0
        return pos

    def _vouch_index(self) -> bool:
        """An offset index lies outside every checksum: before its positions are used, the batch at its last
        entry's position must hold that entry's offset. One that is not this segment's (swapped with a
        neighbour's, copied from elsewhere, garbage of a plausible shape) fails it, and the segment is then
        searched from its start; the entries before the last one lie between it and the start and are checked
        by the searches themselves (a batch found past the target sends them back to the start)."""
        ok = True
        entry = self.offset_index.lookup(LONG_MAX)
        if entry.position > 0:
            head = self._window(entry.position, 61) if entry.position < self._size else b""
            if len(head) < 17:
                ok = False
            else:
                base = int.from_bytes(head[:8], "big", signed=True)
                if head[16] == 2 and len(head) >= 27:
                    ok = base <= entry.offset <= base + int.from_bytes(head[23:27], "big", signed=True)
                else:  # a legacy message: its offset is its last (a compressed set's wrapper); old brokers
                    # indexed a set by its first offset, which only decoding tells: a plausible message
                    # (magic 0 or 1, a length inside the file) at or past the entry's offset
                    size = int.from_bytes(head[8:12], "big", signed=True)
                    ok = head[16] in (0, 1) and 14 <= size <= self._size - entry.position - 12 \
                        and self.base_offset <= entry.offset <= base
        self._index_vouched = ok
        return ok

    def _window(self, position: int, size: int) -> bytes | memoryview:
        """Up to ``size`` bytes from ``position``, never past the readable end (one ``pread``)."""
        end = self._size
        if position >= end:
            return b""
        size = min(size, end - position)  # point operations: one call down to the syscall
        if size >= POOLED_READ:
            return self.pread_block(position, size)
        fd = self._fd
        if fd < 0 or self._fd_owner != _get_ident():
            fd = self._use()
        self._fd_stamp = next(_clock)
        return _io.fs.pread(fd, size, position)

    def translate_offset(self, offset: int, starting_position: int = 0) -> BatchPosition | None:
        """The first batch whose last offset ≥ ``offset``, searched from the offset index's hint."""
        if starting_position:
            return self._translate_from(offset, starting_position)
        got = self._locate(offset)
        if got is None:
            return None
        f, _, pos = got
        return BatchPosition(f[2], f[3], pos + f[1], f[4], f[5])

    def _translate_from(self, offset: int, starting_position: int) -> BatchPosition | None:
        hint = max(self.index_position(offset), starting_position)
        for headers in self.iter_headers(hint):
            i = int(np.searchsorted(headers["last_offset"], offset, side="left"))
            # last offsets increase along a segment, so the first ≥ offset is found by bisection
            if i < len(headers):
                h = headers[i]
                return BatchPosition(int(h["base_offset"]), int(h["last_offset"]), int(h["position"]),
                                     int(h["size"]), int(h["max_timestamp"]))
        return None

    def read(self, start_offset: int, max_size: int, max_position: int | None = None,
             min_one_message: bool = True, stop_offset: int = LONG_MAX) -> tuple[int, Any, int] | None:
        """Whole batches from the batch holding ``start_offset``: ``(position, data, next_offset)`` or None.

        At most ``max_size`` bytes (but the first batch whole with ``min_one_message``), ending before
        ``max_position`` and before the first batch starting at or past ``stop_offset``; ``next_offset``
        follows the last batch returned. Usually one ``pread``: the search window also covers the fetch,
        and the kernel cuts it on a batch boundary in the same walk. ``data`` may be a memoryview of
        that window. A fetch that continues where the previous one ended starts at its position.
        """
        limit = self._size if max_position is None else min(max_position, self._size)
        bounded = stop_offset < LONG_MAX
        extra = min(max_size, BOUNDED_WINDOW) if bounded else (max_size if 0 < max_size <= MAX_WINDOW else 0)
        got = self._locate(start_offset, extra, stop_offset, limit, max_size)
        if got is None:
            return None
        f, window, wpos = got
        data: Any = window
        position, base, size = wpos + f[1], f[2], f[4]
        if position >= limit or 0 <= stop_offset <= base:
            return None
        want = min(max_size, limit - position)
        if size > want:
            if not min_one_message:
                return position, b"", -1
            data = self.pread(position, size + HEADER_ROOM)
            if len(data) < size or limit - position < size:
                # cut short by max_position: no batch boundary to continue from
                return position, data[: min(size, limit - position)], -1
            self._find(data, position, start_offset, 0)  # its successor's header must follow it
            data = memoryview(data)[:size]
            nxt = f[3] + 1
        else:
            piece, start = max(extra, 1), f[1]
            while not (f[8] and f[7] > f[1]):
                # the window ended before the cut was certain: read on from the batch, all that is
                # allowed at once, or fourfold while an offset bound may end the fetch early
                piece = want if not bounded else min(want, max(piece * 4, size))
                data, start = self._span(position, piece + HEADER_ROOM), 0  # and the next header
                f = self._find(data, position, start_offset, want, stop_offset, limit - position)
                if f[0] != _FOUND:
                    return None  # the file changed under a reader
                if piece >= want:
                    break
            nxt = f[9] + 1
            if start or f[7] != len(data):
                data = memoryview(data)[start : f[7]]
        self._fetch_next = (nxt, position + len(data))
        return position, data, nxt

    def limit_to_valid_prefix(self) -> int:
        """Read-only use: stop this view at the last complete batch with a valid CRC (nothing is written).

        A concurrent writer's half-written append, or a crashed writer's torn tail, is simply not seen.
        """
        valid = 0
        start = 0
        if self.offset_index.entries:
            start = self.index_position(LONG_MAX)
        indexed = self.time_index.last_entry
        for attempt in (start, 0) if start else (0,):
            valid = attempt
            max_ts, shallow = (indexed.timestamp, indexed.offset) if attempt else (NO_TIMESTAMP, self.base_offset)
            try:
                for headers in self.iter_headers(attempt, with_crc=True, stop_on_crc=True):
                    if len(headers):
                        valid = int(headers["position"][-1] + headers["size"][-1])
                        i = int(np.argmax(headers["max_timestamp"]))
                        if int(headers["max_timestamp"][i]) > max_ts:
                            max_ts, shallow = int(headers["max_timestamp"][i]), int(headers["last_offset"][i])
            except CorruptRecordError:
                pass
            if valid > attempt or attempt == 0:
                break
        self._size = valid
        self._fetch_next = None
        self._max_ts = TimestampOffset(max_ts, shallow)
        return valid

    def limit_to_offset(self, end: int) -> None:
        """Read-only use: end this view before the batch holding offset ``end``.

        For a governed directory's committed end inside a segment that grew past it (a backup's re-copied cut
        segment, a local writer's appends not yet committed). The largest timestamp is recomputed from the
        batches below it, so neither reads nor searches by time answer from past the end; that reads the
        segment's headers once, and only in this case.
        """
        found = self.translate_offset(end)
        if found is None:
            return
        max_ts, shallow = NO_TIMESTAMP, self.base_offset
        for headers in self.iter_headers(0, end_position=found.position):
            if len(headers):
                i = int(np.argmax(headers["max_timestamp"]))
                if int(headers["max_timestamp"][i]) > max_ts:
                    max_ts, shallow = int(headers["max_timestamp"][i]), int(headers["last_offset"][i])
        self._size = found.position
        self._fetch_next = None
        self._max_ts = TimestampOffset(max_ts, shallow)

    def limit_to(self, audit: SegmentAudit) -> None:
        """Read-only use: end this view where ``audit`` says the trustworthy bytes end (nothing is written)."""
        self.audit = audit
        self._size = min(self._size, audit.valid_end)
        self._fetch_next = None
        h = audit.headers
        if len(h):
            i = int(np.argmax(h["max_timestamp"]))
            self._max_ts = TimestampOffset(int(h["max_timestamp"][i]), int(h["last_offset"][i]))
        else:
            self._max_ts = TimestampOffset(NO_TIMESTAMP, self.base_offset)

    def extend_valid_prefix(self) -> int | None:
        """Read-only use: take in the complete, CRC-valid batches a writer appended past this view's end.

        One ``fstat``, then only the new bytes are read and checked (one kernel call). The private
        index copies are refreshed later, when a search first needs them. Returns the last offset now
        visible when the view grew, else None."""
        old = self._size
        fd = self._fd  # (fileno() inlined: a reader polling its writer calls this once per refresh)
        if fd < 0 or self._fd_owner != _get_ident():
            fd = self._use()
        self._fd_stamp = next(_clock)
        size = _io.fs.size(fd)
        if size <= old:
            return None
        cur = self._max_timestamp_and_offset()
        end, last, max_ts, shallow = _p.valid_prefix(_io.fs.pread(fd, size - old, old), cur.timestamp,
                                                     cur.offset)
        if last < 0:
            return None  # a torn or damaged tail stays invisible, as at open
        self._size = old + end
        self._max_ts = TimestampOffset(max_ts, shallow)
        self._stale_indexes = self.offset_index is not None
        return last

    def _refresh_indexes(self) -> None:
        """Fresh private copies of the indexes, after the view grew (read-only segments only)."""
        self._stale_indexes = False
        self._index_vouched = None
        for name in ("offset_index", "time_index"):
            stale = getattr(self, name)
            setattr(self, name, type(stale)(stale.path, self.base_offset, self.max_index_size, writable=False))
            stale.close()

    def read_next_offset(self) -> int:
        """The offset after the last batch (the segment's contribution to the log end offset)."""
        if self.offset_index is not None and self.offset_index.entries:
            entry = self.offset_index.lookup(LONG_MAX)
            if 0 < entry.position < self._size and (self._index_vouched or self._vouch_index()):
                # a hint, outside any checksum: the batch found there must hold the entry's offset, or the
                # index is not this segment's (swapped, damaged) and the scan starts over from the start
                try:
                    last = self._last_offset_from(entry.position, entry.offset)
                except CorruptRecordError:
                    last = None
                if last is not None:
                    return last + 1
        last = self._last_offset_from(0, None)
        return self.base_offset if last is None else last + 1

    def _last_offset_from(self, start: int, holds: int | None) -> int | None:
        """The last offset of the batches from ``start``; None when none is there, or when the first batch
        does not hold offset ``holds``."""
        last = None
        first = True
        for headers in self.iter_headers(start):
            if not len(headers):
                continue
            if first and holds is not None and not headers["base_offset"][0] <= holds <= headers["last_offset"][0]:
                return None
            first = False
            last = int(headers["last_offset"][-1])
        return last

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int) -> tuple[int, int] | None:
        """Earliest record at or after ``starting_offset`` whose timestamp ≥ ``timestamp``: (offset, ts).

        Time index → offset index → one small window; the kernel skips batches on their headers and
        walks only the records of the batch that holds the answer (a compressed or legacy one is decoded
        here). The offset-index hint is checked as in ``_locate``.
        """
        if self._stale_indexes:
            self._refresh_indexes()
        # entries with a timestamp below the target prove everything up to their offset is earlier (when the
        # batches do not contradict the index: _vouch_time_index)
        if self._max_ts is None:
            self._max_timestamp_and_offset()
        if timestamp > 0 and not self._max_ts_unindexed:
            known = self.time_index.lookup_offset(timestamp - 1)
        else:
            known = self.base_offset
        target = known if known > starting_offset else starting_offset
        size = self._size
        pos, checked = self._hint(target)
        # the time entry's offset can precede its offset-index entry by one interval: two intervals cover it
        want = 2 * self.index_interval_bytes + HEADER_ROOM
        while True:
            data = self._window(pos, want)
            if not data:
                return None
            try:
                st, at, off, ts, need, first_base = _p.find_timestamp(data, timestamp, starting_offset)
            except CorruptRecordError as exc:
                raise exc.with_context(file=self.log_path, base_position=pos) from None
            if not checked and first_base != _p.NO_HEADER:
                checked = True
                if first_base > target:
                    pos = 0
                    continue
            if st == _FOUND:
                return off, ts
            nxt = pos + at
            if st == _DECODE:
                for rec in MemoryRecords(memoryview(data)[at : at + need]).records(check_crc=False,
                                                                                include_control=True):
                    if rec.timestamp is not None and rec.timestamp >= timestamp and rec.offset >= starting_offset:
                        return rec.offset, rec.timestamp
                pos = nxt + need
                continue
            if size - nxt <= 17 or (need > 0 and nxt + need > size):
                return None
            if need > 0 and at == 0:
                want = max(want, need + HEADER_ROOM)
            elif at == 0:
                want = min(want * 2, MAX_WINDOW)
            pos = nxt

    # --------------------------------------------------------------------------------------- writing
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
        self._max_ts = TimestampOffset(max_ts, shallow)

    def _write(self, data: bytes | bytearray | memoryview, last_offset: int, max_timestamp: int, flush: bool) -> int:
        """Write batches ending at ``last_offset`` at the end of the file; returns where they start."""
        if self.read_only:
            raise KvlogError(f"segment {self.log_path} is open read-only")
        if not 0 <= last_offset - self.base_offset <= INT32_MAX:
            raise InvalidOffsetError(
                f"offset {last_offset} cannot be stored relative to segment base {self.base_offset}")
        physical = self._size
        if physical == 0 and not self._rolling_ts_loaded:
            self._rolling_ts_loaded = True  # the segment's age for time-based rolls starts here
            self._rolling_ts = max_timestamp if max_timestamp >= 0 else None
        fd = self._fd
        if fd < 0 or self._fd_owner != _get_ident():
            fd = self._use()
        if not self.pinned:  # (the active segment is never evicted: its use needs no stamp)
            self._fd_stamp = next(_clock)
        _io.fs.pwrite(fd, data, physical)
        if flush:
            _io.fs.fsync(fd)
        self._size = physical + len(data)
        return physical

    def append_batch(self, data: bytes | bytearray | memoryview, last_offset: int, max_timestamp: int, *,
                     flush: bool = False) -> None:
        """``append`` for one validated batch (a point append): the same index rule, decided on three
        integers instead of a kernel over header arrays."""
        physical = self._write(data, last_offset, max_timestamp, flush)
        cur = self._max_timestamp_and_offset()
        if max_timestamp > cur.timestamp:
            cur = self._max_ts = TimestampOffset(max_timestamp, last_offset)
        since = self._bytes_since_last_index_entry
        if since > self.index_interval_bytes:
            self.offset_index.append(last_offset, physical)
            if cur.timestamp > self.time_index.last_entry.timestamp:
                self.time_index.maybe_append(cur.timestamp, cur.offset)
            since = 0
        self._bytes_since_last_index_entry = since + len(data)

    def recover(self, *, prev_last: int = -1, next_base: int | None = None, dense: bool = True,
                audit: SegmentAudit | None = None) -> int:
        """Rebuild both indexes from the ``.log``; cut it where its trustworthy bytes end. Returns bytes cut.

        The cut is where ``audit_segment`` says (framing, CRC, and the fields no CRC covers checked
        against the neighbours). The bytes after it are set aside in ``<name>.log.<position>.quarantined``
        before the file is truncated, unless they are all zero (which cannot hold a batch).
        """
        a = audit if audit is not None else audit_segment(self, prev_last=prev_last, next_base=next_base,
                                                          dense=dense)
        self.audit = a
        self.offset_index.truncate()
        self.time_index.truncate()
        self.offset_index.resize(self.max_index_size)
        self.time_index.resize(self.max_index_size)
        last_indexed = 0
        max_ts, shallow = NO_TIMESTAMP, self.base_offset
        interval = self.index_interval_bytes
        valid = 0
        for pos, size, lastoff, m in zip(a.headers["position"].tolist(), a.headers["size"].tolist(),
                                          a.headers["last_offset"].tolist(), a.headers["max_timestamp"].tolist()):
            if m > max_ts:
                max_ts, shallow = m, lastoff
            if pos - last_indexed > interval:
                self.offset_index.append(lastoff, pos)
                self.time_index.maybe_append(max_ts, shallow)
                last_indexed = pos
            valid = pos + size
        valid = a.valid_end if a.valid_end < self._size else valid
        truncated = self._size - valid
        self._fetch_next = None
        if truncated > 0:
            if not a.zero_tail:
                self.set_aside(valid)
            _io.fs.truncate(self.fileno(), valid)
            self._size = valid
        self._max_ts = TimestampOffset(max_ts, shallow)
        self._bytes_since_last_index_entry = valid - last_indexed
        self._rolling_ts_loaded = False
        if max_ts >= 0:
            self.time_index.maybe_append(max_ts, shallow, skip_full_check=True)
        self.offset_index.trim_to_valid_size()
        self.time_index.trim_to_valid_size()
        return truncated

    def set_aside(self, position: int) -> str:
        """Copy the bytes from ``position`` to the end into a quarantine file (synced) and return its path."""
        path = quarantine_name(self.log_path, position)
        tmp = path + ".tmp"
        fd = _io.fs.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            pos = position
            while pos < self._size:
                chunk = _io.fs.pread(self.fileno(), min(8 << 20, self._size - pos), pos)
                if not chunk:
                    break
                _io.fs.pwrite(fd, chunk, pos - position)
                pos += len(chunk)
            _io.fs.fsync(fd)
        finally:
            _io.fs.close(fd)
        _io.fs.rename(tmp, path)
        _io.fs.fsync_dir(os.path.dirname(path))
        self.set_aside_paths.append(path)
        return path

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
        removed = self._size - found.position
        _io.fs.truncate(self.fileno(), found.position)
        self._size = found.position
        self._fetch_next = None
        self._bytes_since_last_index_entry = 0
        if self._size == 0:
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
        self._max_ts = TimestampOffset(max_ts, shallow)
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
        if os.fstat(fd).st_size != self._size:
            _io.fs.truncate(fd, self._size)  # preallocated file

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

    def _finished_while_evicted(self) -> bool:
        """An evicted segment whose files are already as ``on_become_inactive`` leaves them (closing a
        log of thousands of segments then reopens none of them just to find nothing to do)."""
        was = self._evicted_as
        if was is None or self._fd >= 0 or was.size != self._size or self.offset_index is None:
            return False
        for idx in (self.offset_index, self.time_index):
            if idx.file_size != idx.size_in_bytes or idx.untrusted_tail():
                return False
        # (a max timestamp never loaded changed nothing since the open: no reason to read the file for it)
        return self._max_ts is None or self._max_ts.timestamp <= self.time_index.last_entry.timestamp

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
        _budget.forget(self)
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


