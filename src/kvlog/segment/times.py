"""A segment's timestamps: its max timestamp (from the time index once the batches vouch for its last entry,
else from the batch headers), its age for retention and rolling, and the search by timestamp.
``LogSegment`` takes these functions as its methods."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kvlog import _io, storage
from kvlog._core import point as _p
from kvlog.errors import CorruptRecordError
from kvlog.index import TimestampOffset
from kvlog.records import MemoryRecords
from kvlog.segment._common import DECODE, FOUND, HEADER_ROOM, LONG_MAX, MAX_WINDOW, NO_TIMESTAMP

if TYPE_CHECKING:
    from kvlog.segment.segment import LogSegment


def _max_timestamp_and_offset(self: LogSegment) -> TimestampOffset:
    if self.known_max is None:
        last = self.time_index.last_entry
        # (on an object store each check is a request: there the index is trusted as Kafka trusts it)
        if last.timestamp >= 0 and (self.size_in_bytes == 0 or storage.is_remote(self.log_path)
                                    or self._vouch_time_index(last)):
            self.known_max = TimestampOffset(last.timestamp, last.offset)
        elif self._max_ts_unindexed or last.timestamp >= 0:
            # a time index without an entry (missing, emptied, or a small segment's) says nothing about
            # records the segment held at open: taken as "no timestamps", time searches skipped it; one
            # whose last entry the batches contradict (cut short, another segment's, garbage) neither
            self._max_ts_unindexed = True
            self.known_max = self._max_timestamp_from_batches(checked=False)
        else:
            self.known_max = TimestampOffset(NO_TIMESTAMP, self.base_offset)
    return self.known_max


def _vouch_time_index(self: LogSegment, last: TimestampOffset) -> bool:
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


def _max_timestamp_from_batches(self: LogSegment, *, checked: bool) -> TimestampOffset:
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


def largest_timestamp(self: LogSegment) -> int:
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


def verified_max_timestamp(self: LogSegment) -> int:
    """The max timestamp recomputed from CRC-checked batch headers (never from an index)."""
    return self._max_timestamp_from_batches(checked=True).timestamp


def rolling_based_timestamp(self: LogSegment) -> int | None:
    """The first batch's max timestamp: the start of the segment's age for time-based rolls."""
    if not self._rolling_ts_loaded:
        self._rolling_ts_loaded = True
        self._rolling_ts = None
        for headers in self.iter_headers(with_crc=False, limit=1):
            if len(headers) and headers["max_timestamp"][0] >= 0:
                self._rolling_ts = int(headers["max_timestamp"][0])
            break
    return self._rolling_ts


def time_waited_for_roll(self: LogSegment, now_ms: int, max_timestamp_in_append: int) -> int:
    rts = rolling_based_timestamp(self)  # (the function: no property frame on every append)
    if rts is not None and rts >= 0:
        return max_timestamp_in_append - rts
    return now_ms - self.created_ms


def find_offset_by_timestamp(self: LogSegment, timestamp: int, starting_offset: int) -> tuple[int, int] | None:
    """Earliest record at or after ``starting_offset`` whose timestamp ≥ ``timestamp``: (offset, ts).

    Time index → offset index → one small window; the kernel skips batches on their headers and
    walks only the records of the batch that holds the answer (a compressed or legacy one is decoded
    here). The offset-index hint is checked as in ``_locate``.
    """
    if self._stale_indexes:
        self._refresh_indexes()
    # entries with a timestamp below the target prove everything up to their offset is earlier (when the
    # batches do not contradict the index: _vouch_time_index)
    if self.known_max is None:
        self._max_timestamp_and_offset()
    if timestamp > 0 and not self._max_ts_unindexed:
        known = self.time_index.lookup_offset(timestamp - 1)
    else:
        known = self.base_offset
    target = known if known > starting_offset else starting_offset
    size = self.size_in_bytes
    pos, checked = self._hint(target)
    # the time entry's offset can precede its offset-index entry by one interval: two intervals cover it
    want = 2 * self.index_interval_bytes + HEADER_ROOM
    while True:
        data = self.window(pos, want)
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
        if st == FOUND:
            return off, ts
        nxt = pos + at
        if st == DECODE:
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
