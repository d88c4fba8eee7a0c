"""A read-only view's extent: where it stops (the last valid batch, a committed end, an audit's verdict) and
how it takes in what its writer appended since. ``LogSegment`` takes these functions as its methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kvlog import _io
from kvlog._core import point as _p
from kvlog.batch_audit import SegmentAudit
from kvlog.errors import CorruptRecordError
from kvlog.index import TimestampOffset
from kvlog.segment._common import LONG_MAX, NO_TIMESTAMP, clock, get_ident

if TYPE_CHECKING:
    from kvlog.segment.segment import LogSegment


def limit_to_valid_prefix(self: LogSegment) -> int:
    """Read-only use: stop this view at the last complete batch with a valid CRC (nothing is written).

    A concurrent writer's half-written append, or a crashed writer's torn tail, is simply not seen.
    """
    valid, _, max_ts, shallow = _walk_tail(self)
    self.size_in_bytes = valid
    self._fetch_next = None
    self.known_max = TimestampOffset(max_ts, shallow)
    return valid


def valid_tail(self: LogSegment) -> tuple[int, int]:
    """Where the complete, CRC-valid batches from the offset index's last entry end, and their last offset
    (``base_offset - 1`` when there are none): the view is left as it is."""
    valid, last, _, _ = _walk_tail(self)
    return valid, last


def _walk_tail(self: LogSegment) -> tuple[int, int, int, int]:
    """The batches from the offset index's last entry (from the start when it finds none): where the valid
    ones end, the last offset, and the largest timestamp with its offset (the time index's last entry's
    counted, when the walk starts there)."""
    start = 0
    if self.offset_index.entries:
        start = self.index_position(LONG_MAX)
    indexed = self.time_index.last_entry
    valid, last = 0, self.base_offset - 1
    max_ts, shallow = NO_TIMESTAMP, self.base_offset
    for attempt in (start, 0) if start else (0,):
        valid, last = attempt, self.base_offset - 1
        max_ts, shallow = (indexed.timestamp, indexed.offset) if attempt else (NO_TIMESTAMP, self.base_offset)
        try:
            for headers in self.iter_headers(attempt, with_crc=True, stop_on_crc=True):
                if len(headers):
                    valid = int(headers["position"][-1] + headers["size"][-1])
                    last = int(headers["last_offset"][-1])
                    i = int(np.argmax(headers["max_timestamp"]))
                    if int(headers["max_timestamp"][i]) > max_ts:
                        max_ts, shallow = int(headers["max_timestamp"][i]), int(headers["last_offset"][i])
        except CorruptRecordError:
            pass
        if valid > attempt or attempt == 0:
            break
    return valid, last, max_ts, shallow


def limit_to_offset(self: LogSegment, end: int) -> None:
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
    self.size_in_bytes = found.position
    self._fetch_next = None
    self.known_max = TimestampOffset(max_ts, shallow)


def limit_to(self: LogSegment, audit: SegmentAudit) -> None:
    """Read-only use: end this view where ``audit`` says the trustworthy bytes end (nothing is written)."""
    self.audit = audit
    self.size_in_bytes = min(self.size_in_bytes, audit.valid_end)
    self._fetch_next = None
    h = audit.headers
    if len(h):
        i = int(np.argmax(h["max_timestamp"]))
        self.known_max = TimestampOffset(int(h["max_timestamp"][i]), int(h["last_offset"][i]))
    else:
        self.known_max = TimestampOffset(NO_TIMESTAMP, self.base_offset)


def extend_valid_prefix(self: LogSegment) -> int | None:
    """Read-only use: take in the complete, CRC-valid batches a writer appended past this view's end.

    One ``fstat``, then only the new bytes are read and checked (one kernel call). The private
    index copies are refreshed later, when a search first needs them. Returns the last offset now
    visible when the view grew, else None."""
    old = self.size_in_bytes
    fd = self._fd  # (fileno() inlined: a reader polling its writer calls this once per refresh)
    if fd < 0 or self._fd_owner != get_ident():
        fd = self._use()
    self._fd_stamp = next(clock)
    size = _io.fs.size(fd)
    if size <= old:
        return None
    cur = self._max_timestamp_and_offset()
    end, last, max_ts, shallow = _p.valid_prefix(_io.fs.pread(fd, size - old, old), cur.timestamp,
                                                 cur.offset)
    if last < 0:
        return None  # a torn or damaged tail stays invisible, as at open
    self.size_in_bytes = old + end
    self.known_max = TimestampOffset(max_ts, shallow)
    self._stale_indexes = self.offset_index is not None
    return last


def _refresh_indexes(self: LogSegment) -> None:
    """Fresh private copies of the indexes, after the view grew (read-only segments only)."""
    self._stale_indexes = False
    self._index_vouched = None
    for name in ("offset_index", "time_index"):
        stale = getattr(self, name)
        setattr(self, name, type(stale)(stale.path, self.base_offset, self.max_index_size, writable=False))
        stale.close()
