"""A log's scans and what a read does at damage (Kafka's ``LocalLog.read`` side beyond the point read):
byte ranges and chunks of an offset range across segments, the object store's read-ahead, Records and
Arrow tables of a range, the largest-timestamp search, and stepping past a read-only view's damage.

The functions that take the ``Log`` first are bound as its methods (no wrapper frame); those named
without an underscore there are the small internal read API other kvlog modules use (the cleaner, the
Spark source), named so that nothing outside this package reaches into ``Log``'s private state.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from kvlog import _io, storage
from kvlog.damage import DataLossWarning, LogDamage
from kvlog.errors import CorruptRecordError, OffsetOutOfRangeError
from kvlog.log._common import LONG_MAX, OffsetAndTimestamp, _int_arg, _located
from kvlog.records import MemoryRecords, Record, record_schema
from kvlog.segment import HEADER_ROOM, LogSegment

if TYPE_CHECKING:
    from kvlog.log.log import Log


def segment_index_for(log: Log, offset: int) -> int:
    """Internal (the Spark source): index in ``log.segments`` of the segment holding ``offset`` (floor
    by base offset), or 0."""
    return log._segments.floor_index(offset)


def ranges(log: Log, start: int, end: int) -> Iterator[tuple[LogSegment, int, int]]:
    """Internal (the Spark source): ``(segment, start position, end position)`` covering offsets
    ``[start, end)``, the batch straddling ``end`` included (the caller filters it); at damage, raises
    or warns and goes on as ``on_damage`` says."""
    segments = log._segments
    for seg in segments[segments.floor_index(start):]:
        if seg.base_offset >= end:
            return
        first = seg.translate_offset(start)
        if first is not None:
            stop = seg.translate_offset(end) if end < log._next_offset else None
            end_pos = seg.size_in_bytes if stop is None else stop.position
            if stop is not None and stop.base_offset < end:
                end_pos = stop.position + stop.size  # the batch straddling `end` is read, then filtered
            if end_pos > first.position:
                yield seg, first.position, end_pos
        if log.damage:
            start = past_damage(log, max(start, seg.read_next_offset()), end)
    if log.damage:
        past_damage(log, start, end)  # damage at the end of the last segment


def chunks(log: Log, start: int, end: int, chunk: int, where: list[Any] | None = None) -> Iterator[Any]:
    """Internal (the cleaner, the Spark source): the bytes of offsets ``[start, end)`` in pieces of about
    ``chunk`` bytes, cut on batch boundaries (the batch straddling ``end`` included, for the caller to
    filter): a fetch loop over segments. ``where`` is set to ``[file, position]`` of the piece being
    yielded (for errors). Not a ``kvlog._walk.BatchWalk``: it walks by offset, and the fetch kernel
    finds, cuts and frames each piece in one call (a batch larger than ``chunk`` comes whole, as a fetch
    returns at least one batch), where a position walk would add a framing pass per piece.

    On an object store the pieces follow the store's blocks: a piece inside one fetched block is a view
    of it, where a piece across blocks would copy every byte once more (a third of a scan's time)."""
    segments = log._segments
    i, offset = segments.floor_index(start), start
    stop = end if end < log._next_offset else LONG_MAX
    ahead, pos = -1, -1
    while offset < end and i < len(segments):
        seg = segments[i]
        if ahead != i:
            ahead, pos = read_ahead(log, i, offset, end)
        got = seg.read(offset, chunk if pos < 0 else _piece(seg, pos, chunk), None, True, stop)
        if got is None or not len(got[1]) or got[2] < 0:
            if log.damage:
                offset = past_damage(log, offset, end)
            i += 1
            continue
        if where is not None:
            where[:] = [seg.log_path, got[0]]
        yield got[1]
        offset = got[2]
        if pos >= 0:
            pos = got[0] + len(got[1])


def _piece(seg: LogSegment, pos: int, chunk: int) -> int:
    """The size of a fetch from ``pos`` of a remote segment that stays inside the block holding it (with
    the room a fetch reads beyond its size: an index interval and a header). Near the block's end the
    fetch crosses into the next block by a 32nd of a block (256 KiB of 8 MiB), so that only that much is
    copied (a batch straddling the boundary that is larger comes whole, as a fetch returns one at least)."""
    block = _io.fs.scan_block(seg.fileno(), pos)
    if block is None:
        return chunk
    start, end = block
    crossing = max(4 << 10, (end - start) // 32)
    room = end - pos - seg.index_interval_bytes - HEADER_ROOM
    return min(chunk, room if room >= crossing else end - pos + crossing)


def read_ahead(log: Log, i: int, offset: int, end: int = LONG_MAX) -> tuple[int, int]:
    """Internal (the Spark source): a scan of offsets up to ``end`` reaches segment ``i`` at ``offset``,
    so the rest of it, and the next segment if the scan goes on there, are wanted soon. An object store
    starts fetching them (in parallel, while this one is decoded); a local file ignores the hint (the
    kernel reads ahead). Returns ``(i, the position the fetch starts from at the latest)``, the position
    -1 for a local segment."""
    segments = log._segments
    seg = segments[i]
    if not storage.is_remote(seg.log_path):  # (a tiered view's remote segments below a local directory too)
        return i, -1
    pos = seg.index_position(offset)
    _io.fs.will_need(seg.fileno(), pos, seg.size_in_bytes - pos)
    if i + 1 < len(segments) and segments[i + 1].base_offset < end and storage.is_remote(segments[i + 1].log_path):
        _io.fs.will_need(segments[i + 1].fileno(), 0, segments[i + 1].size_in_bytes)
    return i, pos


def bounds(log: Log, start: int | None, end: int | None) -> tuple[int, int]:
    """``[start, end)`` clamped to the log (a start below the log start offset reads from it, as a
    consumer resetting to earliest would); a start past the log end offset is out of range, as for
    ``read()``."""
    if start is not None:
        start = _int_arg("start_offset", start)
        if start > log._next_offset:
            raise OffsetOutOfRangeError(
                f"start offset {start} is past the log end offset {log._next_offset} of {log.dir}",
                log_start_offset=log.log_start_offset, log_end_offset=log._next_offset)
    if end is not None:
        end = _int_arg("end_offset", end)
    s = log.log_start_offset if start is None else max(start, log.log_start_offset)
    e = log._next_offset if end is None else min(end, log._next_offset)
    return s, e


def records_in(log: Log, start: int, end: int, extra: dict[str, Any]) -> Iterator[Record]:
    """The Records of ``[start, end)``, decoded with ``extra``; a decode error names its file and position."""
    where: list[Any] = []
    try:
        for data in chunks(log, start, end, 4 << 20, where):
            for rec in MemoryRecords(data).records(**extra):
                if rec.offset >= end:
                    return
                if rec.offset >= start:
                    yield rec
    except CorruptRecordError as exc:
        raise _located(exc, where) from None


_SMALL_PIECE = 256 << 10  # pieces below this (small segments' whole contents) are decoded together
_HELD_BYTES = 4 << 20


def arrow_in(log: Log, start: int, end: int, include_headers: bool, check_crc: bool,
             extra: dict[str, Any]) -> pa.Table:
    """The Records of ``[start, end)`` as one Arrow table, decoded in 64 MiB chunks with ``extra``.

    A fetch never crosses a segment, so a log of many small segments yields as many small pieces; those
    are joined (whole batches one after another) and decoded together up to 4 MiB: one decoder call and
    one table each, not one per segment (10,000 one-batch segments: 0.4 ms of fixed cost each)."""
    import pyarrow.compute as pc  # here, not at the top: it is a seventh of `import kvlog` (45 of ~300 ms)

    tables: list[pa.Table] = []
    where: list[Any] = []
    held: list[tuple[Any, list[Any]]] = []  # small pieces waiting, each with its [file, position]
    held_bytes = 0  # their total, kept as they come (summing them per piece would be quadratic)

    def decode(data: Any, at: list[Any]) -> None:
        try:
            t = MemoryRecords(data).to_arrow(include_headers=include_headers, check_crc=check_crc, **extra)
        except CorruptRecordError as exc:
            raise _located(exc, at) from None
        off = t.column("offset")
        if len(t) and (pc.min(off).as_py() < start or pc.max(off).as_py() >= end):
            t = t.filter(pc.and_(pc.greater_equal(off, start), pc.less(off, end)))
        tables.append(t)

    def flush() -> None:
        nonlocal held_bytes
        if len(held) > 1:
            try:
                decode(b"".join(d for d, _ in held), held[0][1])
            except CorruptRecordError:
                for data, at in held:  # the piece at fault raises again, with its own file and position
                    decode(data, at)
                raise
        elif held:
            decode(*held[0])
        held.clear()
        held_bytes = 0

    try:
        for data in chunks(log, start, end, 64 << 20, where):
            if len(data) >= _SMALL_PIECE:
                flush()
                decode(data, where)
                continue
            held.append((data, list(where)))
            held_bytes += len(data)
            if held_bytes >= _HELD_BYTES:
                flush()
        flush()
    except CorruptRecordError as exc:
        raise _located(exc, where) from None  # (a fetch's own errors; a decoder's are located already)
    if not tables:
        return pa.Table.from_batches([], schema=record_schema(include_headers))  # (empty_table imports pandas)
    return pa.concat_tables(tables)


def max_timestamp_offset(log: Log) -> OffsetAndTimestamp | None:
    """``offset_for_timestamp(MAX_TIMESTAMP)``, as Kafka's ListOffsets answers it (``UnifiedLog``, 3.8+).

    The first segment holding the log's largest batch max timestamp; in it, the first batch reaching that
    timestamp, control batches included (a transaction marker, a KRaft ``LeaderChange``); then the first
    record of that batch carrying it (``RecordBatch.offsetOfMaxTimestamp``: a control batch's answer is its
    record's offset). The log start offset plays no part, as in Kafka's (no check there): the batches below it
    still in a segment file count, and the answer may lie below it (a broker answers so until retention deletes
    the segment; a read from there meets the log start)."""
    for d in log.damage:  # the damaged bytes may hold the largest timestamp
        past_damage(log, d.first_offset, LONG_MAX)
    best: LogSegment | None = None
    for seg in log._segments:
        if seg.size_in_bytes and (best is None or seg.max_timestamp > best.max_timestamp):
            best = seg  # (strictly greater: the first segment reaching the maximum, as Kafka's maxBy)
    if best is None or best.max_timestamp < 0:
        return None
    target = best.max_timestamp
    holder = _first_batch_reaching(best, target)
    if holder is not None and int(holder["magic"]) >= 2 and int(holder["attributes"]) & 0x20:
        data = best.window(int(holder["position"]), int(holder["size"]))
        try:
            for rec in MemoryRecords(data).records(check_crc=False, include_control=True):
                if rec.timestamp == target:
                    return OffsetAndTimestamp(rec.offset, target)
        except CorruptRecordError as exc:
            raise exc.with_context(file=best.log_path, base_position=int(holder["position"])) from None
        return None  # (Kafka's offsetOfMaxTimestamp: no record carries the batch's max timestamp)
    found = best.find_offset_by_timestamp(target, best.base_offset if holder is None else int(holder["base_offset"]))
    return OffsetAndTimestamp(*found) if found else None


def _first_batch_reaching(seg: LogSegment, target: int) -> Any:
    """The header of the first batch of ``seg`` whose max timestamp is ``target``, searched from where the
    offset index places the batch that set the segment's max timestamp (Kafka's lookup); None when the walk
    finds none or meets damage (the time search then answers alone)."""
    shallow = seg.shallow_offset_of_max_timestamp
    pos = seg.index_position(shallow)
    try:
        while True:
            first = True
            for headers in seg.iter_headers(pos, chunk=HEADER_ROOM * 1024):
                if not len(headers):
                    continue
                if first:
                    first = False
                    if pos and int(headers["base_offset"][0]) > shallow:
                        break  # an index entry past the batch it should precede: from the start instead
                hit = np.flatnonzero(headers["max_timestamp"] == target)
                if len(hit):
                    return headers[int(hit[0])]
            else:
                return None
            pos = 0
    except CorruptRecordError:
        return None


def _damage_at(log: Log, offset: int) -> LogDamage | None:
    for d in log.damage:
        if d.first_offset <= offset < d.end_offset:
            return d
    return None


def past_segment_damage(log: Log, seg: LogSegment) -> None:
    """A search skipped or missed in ``seg``: any damage in it raises or warns, as ``on_damage`` says."""
    for d in log.damage:
        if d.path == seg.log_path:
            past_damage(log, d.first_offset, LONG_MAX)


def past_damage(log: Log, offset: int, end: int) -> int:
    """A read at ``offset`` (wanting offsets below ``end``) found no batch where it looked: when damage
    hides ``offset``, raise (``on_damage="raise"``) or warn and return where reading goes on."""
    d = _damage_at(log, offset)
    if d is None or offset >= end:
        return offset
    if log.on_damage == "raise":
        raise d.error()
    warnings.warn(DataLossWarning(f"{log.dir}: {d.describe()}"), stacklevel=3)
    return d.end_offset
