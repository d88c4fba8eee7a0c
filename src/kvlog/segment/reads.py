"""Reading a segment: bytes by position, batch headers a chunk at a time, and the point searches a fetch
makes (the offset index's hint, vouched for by the batch it names, then one small window the kernel cuts).
``LogSegment`` takes these functions as its methods."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from kvlog import _io
from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog._walk import BatchWalk
from kvlog.errors import CorruptRecordError
from kvlog.segment._common import (BOUNDED_WINDOW, FOUND, HEADER_ROOM, LONG_MAX, MAX_WINDOW, POOLED_READ,
                                   READ_CHUNK, BatchPosition, clock, get_ident)

if TYPE_CHECKING:
    from kvlog.segment.segment import LogSegment


def pread(self: LogSegment, position: int, size: int) -> bytes:
    size = max(0, min(size, self.size_in_bytes - position))
    if size == 0:
        return b""
    return _io.fs.pread(self.fileno(), size, position)


def _span(self: LogSegment, position: int, size: int) -> Any:
    """A fetch's bytes: small ones as ``bytes``; from 1 MiB in pooled memory (a one-shot process's
    first bulk read paid a page fault per 4 KiB of a fresh ``bytes``: 15 of 32 ms for 24 MB)."""
    return self.pread(position, size) if size < POOLED_READ else self.pread_block(position, size)


def pread_block(self: LogSegment, position: int, size: int) -> memoryview:
    """Up to ``size`` bytes from ``position`` (never past the readable end) in pooled memory, for
    passes over whole segments; a memoryview of a read-only buffer."""
    size = max(0, min(size, self.size_in_bytes - position))
    return memoryview(_io.fs.pread_block(self.fileno(), size, position))


def iter_headers(
    self: LogSegment,
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
    end = self.size_in_bytes if end_position is None else min(end_position, self.size_in_bytes)
    out = np.empty(4096, dtype=_k.BATCH_DTYPE)
    produced = 0
    walk = BatchWalk(self.fileno, start_position, end, chunk)
    for pos, data in walk:
        nxt = 0
        while True:  # (every batch of the window, ``out`` filled as often as it takes: the window is read once)
            count, nxt, _, error = _k.scan(data, nxt, len(data), out, with_crc, stop_on_crc)
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
            if count < len(out):
                break
        walk.advance(nxt)


def _locate(self: LogSegment, offset: int, extra: int = 0, stop_offset: int = LONG_MAX, limit: int | None = None,
            max_bytes: int | None = None) -> tuple[tuple[int, ...], bytes | memoryview, int] | None:
    """The first batch whose last offset ≥ ``offset``: ``(kernel answer, window, window position)``.

    One small ``pread`` from the offset index's hint (``index.interval.bytes`` + a header + ``extra``,
    the bytes a fetch expects to need), grown geometrically only while the batch is not found. The
    kernel also cuts a fetch of ``max_bytes`` (default ``extra``) in that window; the cut says whether
    the window was enough to be sure. The hint is
    evidence, not fact: when the batch at the hint starts after ``offset`` (a stale or damaged
    index) or lies past the readable end, the search starts again from the segment's start.
    """
    size = self.size_in_bytes
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
        data = self.window(pos, want)
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
        if found[0] == FOUND:
            return found, data, pos
        nxt, need = pos + found[1], found[4]
        if size - nxt <= 17 or (need > 0 and nxt + need > size):
            if nxt < size and offset < stop_offset:
                _past_the_end(self, nxt, need)
            return None  # the end of the segment
        if found[1] == 0:
            # the batch and its successor's header (which a read checks it against)
            want = max(min(want * 2, MAX_WINDOW), need + HEADER_ROOM)
        pos = nxt


def _past_the_end(self: LogSegment, position: int, size: int) -> None:
    """A batch at ``position`` that claims ``size`` bytes (-1: too few bytes left for its header) past the
    view's end. A view ends on a batch boundary (a writer's append position, an audit's cut, the valid prefix
    a reader saw, a sealed segment's file), so that is damage in a field no CRC covers (a length), never the
    end of the data: raised, unless the file is shorter now than the view (it changed under a reader)."""
    end = self.size_in_bytes
    if _io.fs.size(self.fileno()) < end:
        return
    what = f"claims {size} bytes, past" if size > 0 and position + size > end else "is cut short by"
    raise CorruptRecordError(f"the batch at position {position} {what} the end of the segment at {end} (a field "
                             f"outside the CRC is damaged, or the file is not whole)",
                             position=position).with_context(file=self.log_path)


def _find(self: LogSegment, data: bytes | memoryview, position: int, offset: int, max_bytes: int,
          stop_offset: int = LONG_MAX, cut_end: int = LONG_MAX) -> tuple[int, ...]:
    """``find_batch`` over ``data`` read from ``position``, its errors located in this file."""
    try:
        return _p.find_batch(data, offset, max_bytes, stop_offset, cut_end)
    except CorruptRecordError as exc:
        raise exc.with_context(file=self.log_path, base_position=position) from None


def _hint(self: LogSegment, offset: int) -> tuple[int, bool]:
    """Where the offset index says to start looking for ``offset``, and whether that needs no check
    (the segment start). A position past the readable end counts as the start."""
    if self._stale_indexes:
        self._refresh_indexes()
    pos = self.offset_index.lookup_position(offset)
    if pos == 0 or pos >= self.size_in_bytes or not (self._index_vouched or self._vouch_index()):
        return 0, True
    return pos, False


def index_position(self: LogSegment, offset: int) -> int:
    """Where the offset index says the batch holding ``offset`` starts at the latest (0: the segment's
    start), from an index whose last entry names a batch of this file (see :meth:`_vouch_index`)."""
    if self._stale_indexes:
        self._refresh_indexes()
    if self.offset_index is None:
        return 0
    pos = self.offset_index.lookup_position(offset)
    if pos == 0 or pos >= self.size_in_bytes or not (self._index_vouched or self._vouch_index()):
        return 0
    return pos


def _vouch_index(self: LogSegment) -> bool:
    """An offset index lies outside every checksum: before its positions are used, the batch at its last
    entry's position must hold that entry's offset. One that is not this segment's (swapped with a
    neighbour's, copied from elsewhere, garbage of a plausible shape) fails it, and the segment is then
    searched from its start; the entries before the last one lie between it and the start and are checked
    by the searches themselves (a batch found past the target sends them back to the start)."""
    ok = True
    entry = self.offset_index.lookup(LONG_MAX)
    if entry.position > 0:
        head = self.window(entry.position, 61) if entry.position < self.size_in_bytes else b""
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
                ok = head[16] in (0, 1) and 14 <= size <= self.size_in_bytes - entry.position - 12 \
                    and self.base_offset <= entry.offset <= base
    self._index_vouched = ok
    return ok


def window(self: LogSegment, position: int, size: int) -> bytes | memoryview:
    """Up to ``size`` bytes from ``position``, never past the readable end (one ``pread``)."""
    end = self.size_in_bytes
    if position >= end:
        return b""
    size = min(size, end - position)  # point operations: one call down to the syscall
    if size >= POOLED_READ:
        return self.pread_block(position, size)
    fd = self._fd
    if fd < 0 or self._fd_owner != get_ident():
        fd = self._use()
    self._fd_stamp = next(clock)
    return _io.fs.pread(fd, size, position)


def translate_offset(self: LogSegment, offset: int, starting_position: int = 0) -> BatchPosition | None:
    """The first batch whose last offset ≥ ``offset``, searched from the offset index's hint."""
    if starting_position:
        return self._translate_from(offset, starting_position)
    got = self._locate(offset)
    if got is None:
        return None
    f, _, pos = got
    return BatchPosition(f[2], f[3], pos + f[1], f[4], f[5])


def _translate_from(self: LogSegment, offset: int, starting_position: int) -> BatchPosition | None:
    hint = max(self.index_position(offset), starting_position)
    for headers in self.iter_headers(hint):
        i = int(np.searchsorted(headers["last_offset"], offset, side="left"))
        # last offsets increase along a segment, so the first ≥ offset is found by bisection
        if i < len(headers):
            h = headers[i]
            return BatchPosition(int(h["base_offset"]), int(h["last_offset"]), int(h["position"]),
                                 int(h["size"]), int(h["max_timestamp"]))
    return None


def read(self: LogSegment, start_offset: int, max_size: int, max_position: int | None = None,
         min_one_message: bool = True, stop_offset: int = LONG_MAX) -> tuple[int, Any, int] | None:
    """Whole batches from the batch holding ``start_offset``: ``(position, data, next_offset)`` or None.

    At most ``max_size`` bytes (but the first batch whole with ``min_one_message``), ending before
    ``max_position`` and before the first batch starting at or past ``stop_offset``; ``next_offset``
    follows the last batch returned. Usually one ``pread``: the search window also covers the fetch,
    and the kernel cuts it on a batch boundary in the same walk. ``data`` may be a memoryview of
    that window. A fetch that continues where the previous one ended starts at its position.
    """
    limit = self.size_in_bytes if max_position is None else min(max_position, self.size_in_bytes)
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
    if position + size > self.size_in_bytes:
        _past_the_end(self, position, size)
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
            if f[0] != FOUND:
                return None  # the file changed under a reader
            if piece >= want:
                break
        nxt = f[9] + 1
        if start or f[7] != len(data):
            data = memoryview(data)[start : f[7]]
    self._fetch_next = (nxt, position + len(data))
    return position, data, nxt


def read_next_offset(self: LogSegment) -> int:
    """The offset after the last batch (the segment's contribution to the log end offset)."""
    if self.offset_index is not None and self.offset_index.entries:
        entry = self.offset_index.lookup(LONG_MAX)
        if 0 < entry.position < self.size_in_bytes and (self._index_vouched or self._vouch_index()):
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


def _last_offset_from(self: LogSegment, start: int, holds: int | None) -> int | None:
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
