"""Kafka's ``TimeIndex`` (``.timeindex``): sparse map from timestamps to offsets."""

from __future__ import annotations

import operator
import struct
from typing import Any, Callable, ClassVar, NamedTuple

from kvlog._core import index as _k
from kvlog.errors import CorruptIndexError, InvalidOffsetError, InvalidTimestampError
from kvlog.index.base import (_EMPTY, INT64_MAX, IndexFullError, _AbstractIndex, _as_int, _int64_targets,
                              _new_tuple)
from kvlog.index.entries import TIME_ENTRY_DTYPE, I64Array

NO_TIMESTAMP = -1


class TimestampOffset(NamedTuple):
    """A time-index entry: the largest timestamp seen up to and including ``offset`` is ``timestamp``."""

    timestamp: int
    offset: int


_new_to: Callable[[type[TimestampOffset], tuple[int, int]], TimestampOffset] = _new_tuple


class TimeIndex(_AbstractIndex):
    """Sparse map from timestamps to offsets (Kafka's ``TimeIndex``): entry ``(T, O)`` says the largest
    timestamp seen up to offset ``O`` is ``T``. One slot is kept free for the entry written at roll/close."""

    ENTRY_SIZE: ClassVar[int] = TIME_ENTRY_DTYPE.itemsize
    _KIND: ClassVar[str] = "time index"
    _PACK = struct.Struct(">qi").pack_into

    _last: TimestampOffset

    def _scan(self, n: int) -> int:
        v: int = _k.time_valid_entries(self._pin, n)
        return v

    def _reload_last(self) -> None:
        if self._n:
            ts, rel = _k.time_entry(self._pin, self._n, self._n - 1)
            self._last = TimestampOffset(ts, self._base + rel)
        else:
            self._last = TimestampOffset(NO_TIMESTAMP, self._base)

    def is_full(self) -> bool:
        """True when at most one slot is left: that one is reserved for ``maybe_append(...,
        skip_full_check=True)`` at roll/close (Kafka's ``TimeIndex.isFull``)."""
        return self._n >= self._max_entries - 1

    @property
    def last_entry(self) -> TimestampOffset:
        """The last entry, or ``(-1, base_offset)`` when empty."""
        return self._last

    @property
    def last_offset(self) -> int:
        return self._last.offset

    def lookup(self, timestamp: int) -> TimestampOffset:
        """The entry with the largest timestamp ≤ ``timestamp``; ``(-1, base_offset)`` when there is none."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.time_lookup_entry(pin, self._n, timestamp)
        if hit is None:
            return _new_to(TimestampOffset, (NO_TIMESTAMP, self._base))
        return _new_to(TimestampOffset, (hit[0], self._base + hit[1]))

    def lookup_offset(self, timestamp: int) -> int:
        """``lookup(timestamp).offset`` without building the tuple (the point operations' hint)."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.time_lookup_entry(pin, self._n, timestamp)
        return self._base if hit is None else self._base + int(hit[1])

    def lookup_many(self, timestamps: Any) -> tuple[I64Array, I64Array]:
        """``lookup`` for every element of an integer array: ``(timestamps, offsets)`` int64 arrays."""
        pin = self._live()
        slots = _k.time_lookup_many(pin, self._n, _int64_targets(timestamps, "timestamps"))
        tss: I64Array
        offs: I64Array
        tss, offs = _k.time_resolve(pin, self._n, slots, self._base)
        return tss, offs

    def lookup_slot(self, timestamp: int) -> int:
        """Slot of the entry ``lookup`` returns, -1 when it returns ``(-1, base_offset)``."""
        s: int = _k.time_lookup(self._live(), self._n, timestamp)
        return s

    def entry(self, n: int) -> TimestampOffset:
        """The ``n``-th entry (``InvalidOffsetError`` unless 0 ≤ n < valid_entries)."""
        pin = self._live()
        slot = _as_int(n, "slot")
        if not 0 <= slot < self._n:
            raise InvalidOffsetError(
                f"attempt to fetch entry {slot} from {self._KIND} {self._path}, which has {self._n} entries")
        ts, rel = _k.time_entry(pin, self._n, slot)
        return TimestampOffset(ts, self._base + rel)

    def to_numpy(self) -> tuple[I64Array, I64Array]:
        """``(timestamps, offsets)`` of the entries in use, as int64 arrays (copies)."""
        tss: I64Array
        offs: I64Array
        tss, offs = _k.time_entries(self._live(), self._n, self._base)
        return tss, offs

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> bool:
        """Append ``(timestamp, offset)`` if ``timestamp`` is larger than the last entry's; returns whether
        it did.

        Raises (in Kafka's order) ``IndexFullError`` when ``is_full()`` and not ``skip_full_check`` (the
        roll/close path skips it to use the reserved slot); ``InvalidOffsetError`` when ``offset`` is below the
        last entry's offset, when ``timestamp`` is below the last entry's timestamp (Kafka:
        ``IllegalStateException``), or when the offset does not fit the index; ``InvalidTimestampError`` for
        a timestamp outside int64; ``IndexFullError`` when even the reserved slot is used. An equal
        timestamp is ignored, as is any timestamp ≤ -1 on an empty index (v0 data: no time index).
        """
        mm = self._writer()
        ts = _as_int(timestamp, "timestamp")
        off = _as_int(offset, "offset")
        n = self._n
        last = self._last
        if not skip_full_check and n >= self._max_entries - 1:
            raise IndexFullError(
                f"attempt to append to a full {self._KIND} {self._path} (size = {n}, max = {self._max_entries})")
        if n and off < last.offset:
            raise InvalidOffsetError(
                f"attempt to append an offset ({off}) to slot {n} no larger than the last offset appended "
                f"({last.offset}) to {self._path}")
        if n and ts < last.timestamp:
            raise InvalidOffsetError(
                f"attempt to append a timestamp ({ts}) to slot {n} no larger than the last timestamp appended "
                f"({last.timestamp}) to {self._path}")
        if ts <= last.timestamp:
            return False
        if ts > INT64_MAX:
            raise InvalidTimestampError(f"timestamp {ts} does not fit int64 ({self._path})")
        rel = self.relative_offset(off)
        if n >= self._max_entries:
            raise IndexFullError(
                f"no slot left in {self._KIND} {self._path} (size = {n}, max = {self._max_entries})")
        assert mm is not None
        self._materialize((n + 1) * 12)
        self._PACK(mm, n * 12, ts, rel)
        self._n = n + 1
        self._last = TimestampOffset(ts, off)
        return True

    def append_many(self, timestamps: Any, offsets: Any, skip_full_check: bool = False) -> int:
        """``maybe_append`` for each ``(timestamps[j], offsets[j])`` in turn (integer arrays), all or nothing:
        the same rules and errors, checked for every entry before any is written. Returns how many entries
        were appended (entries whose timestamp does not grow are ignored)."""
        mm = self._writer()
        tss = _int64_targets(timestamps, "timestamps")
        offs = _int64_targets(offsets, "offsets")
        if len(tss) != len(offs):
            raise InvalidOffsetError(f"{len(tss)} timestamps but {len(offs)} offsets")
        n = self._n
        last = self._last
        if mm is not None:
            self._materialize(min(n + len(tss), self._max_entries) * 12)
        status, j, added = _k.time_store_many(
            mm if mm is not None else _EMPTY, n, self._max_entries, self._base, tss, offs, last.timestamp,
            last.offset, skip_full_check)
        if status:
            t, o = int(tss[j]), int(offs[j])
            if status == 1:
                raise IndexFullError(
                    f"attempt to append to a full {self._KIND} {self._path} (entry {j} of the batch, "
                    f"max = {self._max_entries})")
            if status == 4:
                self.relative_offset(o)
            what = "an offset" if status == 2 else "a timestamp"
            raise InvalidOffsetError(
                f"attempt to append {what} ({t}, {o}) (entry {j} of the batch) going back past an earlier "
                f"entry in {self._path} (last entry before the batch: {tuple(last)})")
        if added:
            self._n = n + added
            self._reload_last()
        return int(added)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is ≥ ``offset`` (no effect past the last entry).

        Where several entries share an offset all of them go (Kafka's search may keep some of them).
        """
        self._writer()
        keep: int = _k.time_count_below_offset(self._pin, self._n, operator.index(offset) - self._base)
        self._truncate_entries(keep)

    def _kafka_checks(self) -> None:
        n = self._n + self._untrusted
        if not n:
            return
        first_ts, _ = _k.time_entry(self._pin, n, 0)
        last_ts, rel = _k.time_entry(self._pin, n, n - 1)
        if last_ts < first_ts:
            raise CorruptIndexError(
                f"corrupt time index found, time index file ({self._path}) has non-zero size but the last "
                f"timestamp is {last_ts} which is less than the first timestamp {first_ts}")
        if self._base + rel < self._base:
            raise CorruptIndexError(
                f"corrupt time index found, time index file ({self._path}) has non-zero size but the last "
                f"offset is {self._base + rel} which is less than the first offset {self._base}")
