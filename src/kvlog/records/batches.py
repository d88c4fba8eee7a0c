"""Views of record bytes: ``RecordBatch`` (one batch's header and records) and ``MemoryRecords`` (a buffer).

Kafka's ``MemoryRecords`` / ``DefaultRecordBatch``: header fields are read by the framing scan without
decoding; records are decoded on demand, a bounded chunk at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog.compression import DEFAULT_MAX_DECOMPRESSED_BYTES, Compression
from kvlog.errors import ConfigError, CorruptRecordError, UnsupportedCodecError
from kvlog.records.arrow import _chunk_records, _chunk_to_arrow, record_schema
from kvlog.records.decode import _as_view, _decode
from kvlog.records.record import Record, TimestampType


class RecordBatch:
    """One batch (v2) or one top-level message (v0/v1, possibly a compressed wrapper) in a buffer.

    Header fields are read without decompressing; ``records()`` decodes. Legacy compressed wrappers
    learn their first offset and record count only by decompressing, as Kafka's do.
    """

    __slots__ = ("_h", "_view", "_limit", "_inner")

    def __init__(self, header: dict[str, int], view: memoryview, limit: int = DEFAULT_MAX_DECOMPRESSED_BYTES):
        self._h = header
        self._view = view
        self._limit = limit
        self._inner: tuple[int, int] | None = None

    def __repr__(self) -> str:
        codec = self.attributes & 7
        name = Compression(codec).kafka_name if codec <= Compression.ZSTD else f"unknown({codec})"
        return (f"RecordBatch(magic={self.magic}, offsets={self._h['base_offset']}..{self.last_offset}, "
                f"compression={name}, size={self.size_in_bytes}, "
                f"position={self.position})")

    # header fields
    @property
    def position(self) -> int:
        return self._h["position"]

    @property
    def magic(self) -> int:
        return self._h["magic"]

    @property
    def size_in_bytes(self) -> int:
        return self._h["size"]

    @property
    def crc(self) -> int:
        return self._h["crc"]

    @property
    def attributes(self) -> int:
        return self._h["attributes"]

    @property
    def last_offset(self) -> int:
        return self._h["last_offset"]

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def base_offset(self) -> int:
        if self._h["base_offset"] < 0 and self.magic < 2:
            return self._legacy_inner()[0]
        return self._h["base_offset"]

    @property
    def record_count(self) -> int:
        if self._h["record_count"] < 0:
            return self._legacy_inner()[1]
        return self._h["record_count"]

    def _legacy_inner(self) -> tuple[int, int]:
        if self._inner is None:
            recs = list(self.records())
            self._inner = (recs[0].offset, len(recs))
        return self._inner

    @property
    def compression(self) -> Compression:
        """The codec; ``UnsupportedCodecError`` for ids 5-7, which Kafka refuses too."""
        codec = self.attributes & 7
        if codec > Compression.ZSTD:
            raise UnsupportedCodecError(f"unknown compression codec id {codec}", position=self.position,
                                        offsets=(self._h["base_offset"], self.last_offset))
        return Compression(codec)

    @property
    def timestamp_type(self) -> TimestampType:
        if self.magic == 0:
            return TimestampType.NO_TIMESTAMP_TYPE
        return TimestampType.LOG_APPEND_TIME if self.attributes & 0x08 else TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return self.magic == 2 and bool(self.attributes & 0x10)

    @property
    def is_control(self) -> bool:
        return self.magic == 2 and bool(self.attributes & 0x20)

    @property
    def has_delete_horizon(self) -> bool:
        return self.magic == 2 and bool(self.attributes & 0x40)

    @property
    def delete_horizon_ms(self) -> int | None:
        """KIP-534: the cleaner's delete horizon, stored in the base timestamp when the bit is set."""
        return self._h["base_timestamp"] if self.has_delete_horizon else None

    @property
    def base_timestamp(self) -> int:
        return self._h["base_timestamp"]

    @property
    def max_timestamp(self) -> int:
        return self._h["max_timestamp"]

    @property
    def producer_id(self) -> int:
        return self._h["producer_id"]

    @property
    def producer_epoch(self) -> int:
        return self._h["producer_epoch"]

    @property
    def base_sequence(self) -> int:
        return self._h["base_sequence"]

    @property
    def last_sequence(self) -> int:
        seq = self.base_sequence
        if seq < 0:
            return -1
        delta = self.last_offset - self._h["base_offset"]
        return (seq + delta) % (2**31)

    @property
    def partition_leader_epoch(self) -> int:
        return self._h["partition_leader_epoch"]

    def is_valid(self) -> bool:
        """Size and CRC check (Kafka's ``isValid``): CRC-32C for v2, CRC-32 for v0/v1."""
        return bool(self._h["crc_valid"])

    def ensure_valid(self) -> None:
        if not self.is_valid():
            raise CorruptRecordError(
                f"CRC mismatch in magic v{self.magic} batch (stored {self.crc})",
                position=self.position, offsets=(self._h["base_offset"], self.last_offset))

    def buffer(self) -> memoryview:
        """This batch's bytes (a view of the underlying buffer)."""
        return self._view[self.position : self.position + self.size_in_bytes]

    def records(self, *, check_crc: bool = False) -> Iterator[Record]:
        """The batch's records (control records included: this is the batch's own content)."""
        res = _decode(self._view, self.position, self.position + self.size_in_bytes, include_headers=True,
                      check_crc=check_crc, include_control=True, limit=self._limit)
        for chunk in res.chunks:
            yield from _chunk_records(chunk)

    def __iter__(self) -> Iterator[Record]:
        return self.records()


def _header_dict(row: np.void) -> dict[str, int]:
    return {name: int(row[name]) for name in _k.BATCH_DTYPE.names or ()}


class MemoryRecords:
    """Records in a buffer (bytes, bytearray, memoryview, mmap, numpy): any magic, any codec, mixed.

    Walking stops silently at a trailing partial batch, as Kafka's readers do (``valid_bytes`` says
    where); structural damage and CRC mismatches raise ``CorruptRecordError`` with the byte position.
    Decompression of one batch is bounded by ``max_decompressed_bytes``.
    """

    __slots__ = ("_view", "_limit", "_next")

    def __init__(self, buffer: Any, *, max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES):
        self._view = _as_view(buffer)
        if max_decompressed_bytes < 0:
            raise ConfigError("max_decompressed_bytes must be non-negative")
        self._limit = min(int(max_decompressed_bytes), 2**31 - 1024)
        self._next: int | None = None

    @classmethod
    def _fetched(cls, buffer: Any, next_offset: int) -> "MemoryRecords":
        """A log fetch's result, whose next offset the fetch already knows."""
        mr = cls(buffer)
        if next_offset >= 0:
            mr._next = next_offset
        return mr

    @property
    def next_offset(self) -> int | None:
        """The offset after the last complete batch (None when there is none): where a consumer
        fetches next. Read from the batch headers alone (no CRC check, no decoding)."""
        if self._next is None:
            _, last = _p.whole_batches(self._view, len(self._view))
            if last >= 0:
                self._next = last + 1
        return self._next

    def __len__(self) -> int:
        return len(self._view)

    def __repr__(self) -> str:
        return f"MemoryRecords({len(self._view)} bytes)"

    @property
    def size_in_bytes(self) -> int:
        return len(self._view)

    @property
    def buffer(self) -> memoryview:
        return self._view

    def _headers(self, *, with_crc: bool = True, stop_on_crc: bool = False) -> Iterator[dict[str, int]]:
        """Batch headers in order; raises at structural damage after yielding what came before it."""
        pos, end = 0, len(self._view)
        out = np.empty(256, dtype=_k.BATCH_DTYPE)
        while True:
            count, pos, status, error = _k.scan(self._view, pos, end, out, with_crc, stop_on_crc)
            for i in range(count):
                yield _header_dict(out[i])
            if error is not None:
                raise error
            if status != _k.FULL:
                return

    def batch_headers(self, *, check_crc: bool = True) -> np.ndarray:
        """Every batch header as one numpy structured array (fields of ``kvlog._core.records.BATCH_DTYPE``).

        Stops at a trailing partial batch; raises at structural damage or (``check_crc``) a bad CRC.
        """
        parts = []
        pos, end = 0, len(self._view)
        cap = 1024
        while True:
            out = np.empty(cap, dtype=_k.BATCH_DTYPE)
            count, pos, status, error = _k.scan(self._view, pos, end, out, True, check_crc)
            parts.append(out[:count])
            if error is not None:
                raise error
            if status != _k.FULL:
                break
            cap = min(cap * 4, 1 << 20)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def batches(self) -> Iterator[RecordBatch]:
        """Every batch, valid or not (check ``is_valid()``); raises at structural damage."""
        for h in self._headers():
            yield RecordBatch(h, self._view, self._limit)

    def records(self, *, check_crc: bool = True, include_control: bool = False,
                isolation_level: str = "read_uncommitted", aborted_transactions: Any = None) -> Iterator[Record]:
        """Every record in order. Control records (transaction markers) are skipped unless asked for.

        ``isolation_level="read_committed"`` drops the batches of ``aborted_transactions`` (see
        ``to_arrow``) and every control record.
        """
        if _committed(isolation_level):
            ranges = self._committed_ranges(aborted_transactions)
            for i in range(0, len(ranges), 64):  # bounded memory: a group of ranges at a time
                res = _decode(self._view, 0, 0, include_headers=True, check_crc=check_crc, include_control=False,
                              limit=self._limit, ranges=ranges[i : i + 64])
                for chunk in res.chunks:
                    yield from _chunk_records(chunk)
            return
        pos, end = 0, len(self._view)
        step = 4 << 20
        while pos < end:
            # decode a few MiB at a time so iteration of a large mmap stays in bounded memory
            stop = self._chunk_end(pos, step)
            res = _decode(self._view, pos, stop, include_headers=True, check_crc=check_crc,
                          include_control=include_control, limit=self._limit)
            for chunk in res.chunks:
                yield from _chunk_records(chunk)
            if res.stop == pos or stop == pos:
                return
            pos = res.stop

    def _chunk_end(self, pos: int, step: int) -> int:
        """A batch boundary at least ``step`` bytes after ``pos`` (or the end of the buffer)."""
        end = len(self._view)
        if end - pos <= step:
            return end
        out = np.empty(4096, dtype=_k.BATCH_DTYPE)
        while pos < end:
            count, nxt, status, error = _k.scan(self._view, pos, end, out, False, False)
            if count == 0:
                return end  # let the decoder report what is wrong here
            ends = out["position"][:count] + out["size"][:count]
            far = np.searchsorted(ends, pos + step)
            if far < count:
                return int(ends[far])
            pos = int(ends[count - 1])
            if status != _k.FULL:
                return end
        return end

    def to_arrow(
        self,
        *,
        include_headers: bool = True,
        check_crc: bool = True,
        include_control: bool = False,
        isolation_level: str = "read_uncommitted",
        aborted_transactions: Any = None,
    ) -> pa.Table:
        """All records as an Arrow table with Spark's Kafka-source column names and types.

        Columns: ``key``, ``value`` (binary), ``offset`` (int64), ``timestamp`` (timestamp[us, UTC]),
        ``timestampType`` (int32) and, with ``include_headers``, ``headers``
        (list<struct<key: string, value: binary>>, null for a record without headers).

        ``isolation_level="read_committed"`` with ``aborted_transactions`` (``kvlog.txn_index.AbortedTxn``
        entries, ``(producer_id, first_offset, last_offset)`` tuples, or Kafka fetch-response
        ``(producer_id, first_offset)`` pairs, which end at that producer's next marker) leaves out
        the batches of those transactions and every control record, deciding per batch on header
        columns and decoding only the kept byte ranges.
        """
        ranges = None
        if _committed(isolation_level):
            ranges = self._committed_ranges(aborted_transactions)
            include_control = False
        res = _decode(self._view, 0, len(self._view), include_headers=include_headers, check_crc=check_crc,
                      include_control=include_control, limit=self._limit, ranges=ranges)
        batches = [_chunk_to_arrow(c, include_headers) for c in res.chunks if c["n"] or len(res.chunks) == 1]
        return pa.Table.from_batches(batches, schema=record_schema(include_headers))

    def _committed_ranges(self, aborted: Any) -> list[tuple[int, int]]:
        from kvlog.txn_index import committed_ranges, entries_array

        return committed_ranges(_scan_headers(self._view), entries_array(aborted))

    def validate(self, *, deep: bool = True) -> None:
        """Raise ``CorruptRecordError`` unless every batch is intact.

        Shallow: framing and CRC of every batch. Deep (default): also decompress and decode every
        record. A trailing partial batch is not an error here (see ``valid_bytes``).
        """
        if not deep:
            for _ in self._headers(stop_on_crc=True):
                pass
            return
        pos, end = 0, len(self._view)
        while pos < end:
            stop = self._chunk_end(pos, 16 << 20)
            res = _decode(self._view, pos, stop, include_headers=False, check_crc=True, include_control=True,
                          limit=self._limit)
            if res.stop == pos:
                return
            pos = res.stop

    @property
    def valid_bytes(self) -> int:
        """Bytes up to the first invalid (framing or CRC) or incomplete batch."""
        pos = 0
        for h in self._headers_until_invalid():
            pos = h["position"] + h["size"]
        return pos

    def _headers_until_invalid(self) -> Iterator[dict[str, int]]:
        try:
            yield from self._headers(stop_on_crc=True)
        except CorruptRecordError:
            return

    def __iter__(self) -> Iterator[Record]:
        return self.records()


def _committed(isolation_level: str) -> bool:
    if isolation_level == "read_committed":
        return True
    if isolation_level == "read_uncommitted":
        return False
    raise ConfigError(f"isolation_level must be 'read_uncommitted' or 'read_committed', not {isolation_level!r}")


def _scan_headers(view: memoryview) -> np.ndarray:
    """Batch headers without CRC work (the decoder checks the CRC of what it decodes)."""
    parts = []
    pos, end = 0, len(view)
    cap = 4096
    while True:
        out = np.empty(cap, dtype=_k.BATCH_DTYPE)
        count, pos, status, error = _k.scan(view, pos, end, out, False, False)
        parts.append(out[:count])
        if error is not None:
            raise error
        if status != _k.FULL:
            break
        cap = min(cap * 4, 1 << 20)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)
