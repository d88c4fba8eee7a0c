"""Kafka's ``OffsetIndex`` (``.index``): sparse map from offsets to byte positions in the ``.log``."""

from __future__ import annotations

import operator
import struct
from typing import Any, Callable, ClassVar, NamedTuple

from kvlog._core import index as _k
from kvlog.errors import CorruptIndexError, InvalidOffsetError
from kvlog.index.base import (_EMPTY, INT32_MAX, IndexFullError, _AbstractIndex, _as_int, _int64_targets,
                              _new_tuple)
from kvlog.index.entries import OFFSET_ENTRY_DTYPE, I64Array


class OffsetPosition(NamedTuple):
    """An offset-index entry: ``offset`` (absolute) starts at byte ``position`` of the ``.log``."""

    offset: int
    position: int


_new_op: Callable[[type[OffsetPosition], tuple[int, int]], OffsetPosition] = _new_tuple


class OffsetIndex(_AbstractIndex):
    """Sparse map from offsets to byte positions in the segment's ``.log`` (Kafka's ``OffsetIndex``)."""

    ENTRY_SIZE: ClassVar[int] = OFFSET_ENTRY_DTYPE.itemsize
    _KIND: ClassVar[str] = "offset index"
    _PACK = struct.Struct(">ii").pack_into

    _last_offset: int
    _last_position: int

    def _scan(self, n: int) -> int:
        v: int = _k.offset_valid_entries(self._pin, n)
        return v

    def _reload_last(self) -> None:
        if self._n:
            rel, pos = _k.offset_entry(self._pin, self._n, self._n - 1)
            self._last_offset, self._last_position = self._base + rel, pos
        else:
            self._last_offset, self._last_position = self._base, 0

    @property
    def last_offset(self) -> int:
        """Offset of the last entry, or ``base_offset`` when empty."""
        return self._last_offset

    @property
    def last_entry(self) -> OffsetPosition:
        """The last entry, or ``(base_offset, 0)`` when empty."""
        return OffsetPosition(self._last_offset, self._last_position)

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The entry with the largest offset ≤ ``target_offset``; ``(base_offset, 0)`` when the index is
        empty or the target is below the first entry."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.offset_lookup_entry(pin, self._n, target_offset - self._base)
        if hit is None:
            return _new_op(OffsetPosition, (self._base, 0))
        return _new_op(OffsetPosition, (self._base + hit[0], hit[1]))

    def lookup_position(self, target_offset: int) -> int:
        """``lookup(target_offset).position`` without building the tuple (the point operations' hint)."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.offset_lookup_entry(pin, self._n, target_offset - self._base)
        return 0 if hit is None else int(hit[1])

    def lookup_many(self, target_offsets: Any) -> tuple[I64Array, I64Array]:
        """``lookup`` for every element of an integer array: ``(offsets, positions)`` int64 arrays."""
        pin = self._live()
        slots = _k.offset_lookup_many(pin, self._n, self._rel_targets(target_offsets))
        offs: I64Array
        poss: I64Array
        offs, poss = _k.offset_resolve(pin, self._n, slots, self._base)
        return offs, poss

    def lookup_slot(self, target_offset: int) -> int:
        """Slot of the entry ``lookup`` returns, -1 when it returns ``(base_offset, 0)``."""
        s: int = _k.offset_lookup(self._live(), self._n, operator.index(target_offset) - self._base)
        return s

    def entry(self, n: int) -> OffsetPosition:
        """The ``n``-th entry (``InvalidOffsetError`` unless 0 ≤ n < valid_entries)."""
        pin = self._live()
        slot = _as_int(n, "slot")
        if not 0 <= slot < self._n:
            raise InvalidOffsetError(
                f"attempt to fetch entry {slot} from {self._KIND} {self._path}, which has {self._n} entries")
        rel, pos = _k.offset_entry(pin, self._n, slot)
        return OffsetPosition(self._base + rel, pos)

    def to_numpy(self) -> tuple[I64Array, I64Array]:
        """``(offsets, positions)`` of the entries in use, as int64 arrays (copies)."""
        offs: I64Array
        poss: I64Array
        offs, poss = _k.offset_entries(self._live(), self._n, self._base)
        return offs, poss

    def fetch_upper_bound_offset(self, fetch_offset: OffsetPosition, fetch_size: int) -> OffsetPosition | None:
        """The first entry whose position is ≥ ``fetch_offset.position + fetch_size``: an offset surely past
        a fetch of ``fetch_size`` bytes from there (not necessarily the smallest such), or None."""
        pin = self._live()
        slot = _k.offset_position_ceil(pin, self._n, fetch_offset.position + operator.index(fetch_size))
        if slot < 0:
            return None
        rel, pos = _k.offset_entry(pin, self._n, slot)
        return OffsetPosition(self._base + rel, pos)

    def append(self, offset: int, position: int) -> None:
        """Append ``(offset, position)``.

        Raises ``IndexFullError`` when no slot is left, ``InvalidOffsetError`` when ``offset`` is not larger
        than the last offset or does not fit the index (relative offset outside 0..2^31-1), or when
        ``position`` is outside 0..2^31-1 or not larger than the last entry's position (Kafka does not check
        positions; kvlog does, so that everything it writes is trusted when the file is reopened).
        ``ReadOnlyIndexError`` for a read-only instance.
        """
        mm = self._writer()
        off = _as_int(offset, "offset")
        pos = _as_int(position, "position")
        n = self._n
        if n >= self._max_entries:
            raise IndexFullError(
                f"attempt to append to a full {self._KIND} {self._path} (size = {n}, max = {self._max_entries})")
        if n and off <= self._last_offset:
            raise InvalidOffsetError(
                f"attempt to append an offset {off} to position {n} no larger than the last offset appended "
                f"({self._last_offset}) to {self._path}")
        rel = self.relative_offset(off)
        if not 0 <= pos <= INT32_MAX:
            raise InvalidOffsetError(f"position {pos} outside 0..{INT32_MAX} for {self._path}")
        if n and pos <= self._last_position:
            raise InvalidOffsetError(
                f"attempt to append position {pos} for offset {off} no larger than the last position "
                f"({self._last_position}) in {self._path}")
        assert mm is not None  # max_entries > 0 implies a mapping
        self._materialize((n + 1) * 8)
        self._PACK(mm, n * 8, rel, pos)
        self._n = n + 1
        self._last_offset = off
        self._last_position = pos

    def append_many(self, offsets: Any, positions: Any) -> None:
        """``append`` for each ``(offsets[j], positions[j])`` (integer arrays), all or nothing: the same
        rules and errors, checked for every entry before any is written."""
        mm = self._writer()
        offs = _int64_targets(offsets, "offsets")
        poss = _int64_targets(positions, "positions")
        m = len(offs)
        if len(poss) != m:
            raise InvalidOffsetError(f"{m} offsets but {len(poss)} positions")
        if m == 0:
            return
        n = self._n
        prev_off, prev_pos = (self._last_offset, self._last_position) if n else (self._base - 1, -1)
        room = self._max_entries - n
        if m > room:  # the error sequential appends would meet first: a bad entry, or no slot
            bad: int = _k.offset_store_many(_EMPTY, n, self._base, offs[:room], poss[:room], prev_off, prev_pos,
                                            False) if room > 0 else -1
            if bad < 0:
                raise IndexFullError(
                    f"attempt to append {m} entries to {self._KIND} {self._path} holding {n} of "
                    f"{self._max_entries}")
        else:
            assert mm is not None
            self._materialize((n + m) * 8)
            bad = _k.offset_store_many(mm, n, self._base, offs, poss, prev_off, prev_pos)
        if bad >= 0:
            o, p = int(offs[bad]), int(poss[bad])
            before = (int(offs[bad - 1]), int(poss[bad - 1])) if bad else (self._last_offset, self._last_position)
            if n or bad:
                if o <= before[0]:
                    raise InvalidOffsetError(
                        f"attempt to append an offset {o} to position {n + bad} no larger than the last offset "
                        f"appended ({before[0]}) to {self._path}")
                if p <= before[1]:
                    raise InvalidOffsetError(
                        f"attempt to append position {p} for offset {o} no larger than the last position "
                        f"({before[1]}) in {self._path}")
            self.relative_offset(o)
            raise InvalidOffsetError(f"position {p} outside 0..{INT32_MAX} for {self._path}")
        self._n = n + m
        self._last_offset = int(offs[-1])
        self._last_position = int(poss[-1])

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is ≥ ``offset`` (no effect past the last entry)."""
        self._writer()
        keep: int = _k.offset_count_below(self._pin, self._n, operator.index(offset) - self._base)
        self._truncate_entries(keep)

    def _kafka_checks(self) -> None:
        n = self._n + self._untrusted
        if n:
            rel, _ = _k.offset_entry(self._pin, n, n - 1)
            last = self._base + rel
            if last < self._base:
                raise CorruptIndexError(
                    f"corrupt index found, index file {self._path} has non-zero size but the last offset is "
                    f"{last} which is less than the base offset {self._base}")
