"""A log's segments in one ordered collection (Kafka's ``LogSegments``): by base offset, with the
base offsets beside them for the floor lookups every read makes.

A ``list`` subclass so that the read paths index and iterate at C speed (no Python call per read);
its mutators keep the base offsets in step, and the ones that could break the order are refused.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, NoReturn, SupportsIndex

from kvlog.segment import LogSegment


class LogSegments(list[LogSegment]):
    """The segments of one log, ordered by base offset; the last is the active one."""

    __slots__ = ("bases",)
    bases: list[int]
    """The segments' base offsets, in the same order (read-only for callers)."""

    def __init__(self, segments: Iterable[LogSegment] = ()) -> None:
        super().__init__()
        self.bases = []
        for seg in segments:
            self.add(seg)

    def add(self, seg: LogSegment) -> int:
        """Insert ``seg`` at its base offset's place; returns its index. A base offset already held is a
        ``ValueError`` (two files claiming the same offsets)."""
        i = bisect.bisect_left(self.bases, seg.base_offset)
        if i < len(self.bases) and self.bases[i] == seg.base_offset:
            raise ValueError(f"duplicate segment base offset {seg.base_offset}")
        self.bases.insert(i, seg.base_offset)
        list.insert(self, i, seg)
        return i

    def floor_index(self, offset: int) -> int:
        """Index of the segment holding ``offset`` (the last with base offset ≤ it), or 0."""
        return max(0, bisect.bisect_right(self.bases, offset) - 1)

    def lower_base(self, offset: int) -> int | None:
        """The largest base offset below ``offset``, or None."""
        i = bisect.bisect_left(self.bases, offset) - 1
        return self.bases[i] if i >= 0 else None

    def __delitem__(self, key: SupportsIndex | slice) -> None:
        list.__delitem__(self, key)
        del self.bases[key]

    def remove(self, seg: LogSegment) -> None:
        del self[self.index(seg)]

    def pop(self, index: SupportsIndex = -1) -> LogSegment:
        del self.bases[index]
        return list.pop(self, index)

    def clear(self) -> None:
        list.clear(self)
        self.bases.clear()

    def _unordered(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("LogSegments keeps base-offset order: use add() and remove()")

    append = extend = insert = sort = reverse = __setitem__ = __iadd__ = __imul__ = _unordered
