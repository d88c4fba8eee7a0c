"""Kafka records in memory: decode any magic (v0, v1, v2) and codec, encode v2 or legacy batches.

Bytes are walked by the C kernels in ``kvlog._core.records``; this module owns the objects users see.
Bulk paths (``MemoryRecords.to_arrow``, ``encode_arrays``) never build a Python object per record:
the kernels fill column buffers that become Arrow arrays without a copy. ``Record`` objects exist
for convenience iteration only.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Union

import numpy as np
import pyarrow as pa

from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog._arrow import int64_array, numpy_of, valid_mask
from kvlog.compression import DEFAULT_MAX_DECOMPRESSED_BYTES, Compression, compress, decompress
from kvlog.errors import ConfigError, CorruptRecordError, InvalidTimestampError, UnsupportedCodecError

__all__ = [
    "TimestampType",
    "Compression",
    "Record",
    "RecordBatch",
    "MemoryRecords",
    "ControlRecordType",
    "encode_batch",
    "encode_arrays",
    "convert",
    "record_schema",
    "NO_TIMESTAMP",
]

NO_TIMESTAMP = -1
V2_HEADER_SIZE = 61
LOG_OVERHEAD = 12
DEFAULT_MAX_BATCH_BYTES = 1 << 20
DEFAULT_RECORDS_PER_BATCH = 16384

BytesLike = Union[bytes, bytearray, memoryview]
Header = tuple[str, Union[bytes, None]]


class TimestampType(enum.IntEnum):
    """KIP-32 timestamp types (``NO_TIMESTAMP_TYPE`` is what magic v0 data reports)."""

    NO_TIMESTAMP_TYPE = -1
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1

    @classmethod
    def parse(cls, value: Union["TimestampType", int, str]) -> "TimestampType":
        if isinstance(value, str):
            key = value.strip().replace("_", "").lower()
            names = {"createtime": cls.CREATE_TIME, "logappendtime": cls.LOG_APPEND_TIME,
                     "notimestamptype": cls.NO_TIMESTAMP_TYPE}
            if key not in names:
                raise ConfigError(f"unknown timestamp type {value!r}; use CreateTime or LogAppendTime")
            return names[key]
        try:
            return cls(int(value))
        except ValueError:
            raise ConfigError(f"unknown timestamp type {value!r}") from None

    @property
    def kafka_name(self) -> str:
        return {-1: "NoTimestampType", 0: "CreateTime", 1: "LogAppendTime"}[int(self)]


class ControlRecordType(enum.IntEnum):
    """Keys of records in control batches (ControlRecordType.java)."""

    UNKNOWN = -1
    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6


class Record(NamedTuple):
    """One record. Immutable; ``offset`` is -1 and ``timestamp`` None until it is read from a log."""

    key: bytes | None = None
    value: bytes | None = None
    timestamp: int | None = None
    headers: tuple[Header, ...] = ()
    offset: int = -1
    timestamp_type: TimestampType = TimestampType.CREATE_TIME

    @property
    def control_type(self) -> ControlRecordType:
        """For a record of a control batch: its type, from the 4-byte control key."""
        if self.key is None or len(self.key) < 4 or int.from_bytes(self.key[:2], "big", signed=True) < 0:
            return ControlRecordType.UNKNOWN
        try:
            return ControlRecordType(int.from_bytes(self.key[2:4], "big", signed=True))
        except ValueError:
            return ControlRecordType.UNKNOWN

    @property
    def coordinator_epoch(self) -> int | None:
        """For a COMMIT/ABORT marker: the transaction coordinator epoch from its value."""
        if self.control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
            return None
        if self.value is None or len(self.value) < 6:
            return None
        return int.from_bytes(self.value[2:6], "big", signed=True)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def record_schema(include_headers: bool = True) -> pa.Schema:
    """Arrow schema of decoded records, named and typed like Spark's Kafka source columns."""
    fields = [
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("offset", pa.int64(), nullable=False),
        pa.field("timestamp", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("timestampType", pa.int32(), nullable=False),
    ]
    if include_headers:
        fields.append(pa.field("headers", _HEADERS_TYPE))
    return pa.schema(fields)


_HEADER_STRUCT = pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])
_HEADERS_TYPE = pa.list_(_HEADER_STRUCT)
_MAX_MS_FOR_US = (2**63 - 1) // 1000


# ------------------------------------------------------------------------------------------- decoding
def _as_view(buffer: Any) -> memoryview:
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"expected a bytes-like object, got {type(buffer).__name__}") from None
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    return view


def _inner_payload(view: memoryview, hdr: dict[str, int]) -> memoryview:
    """The compressed bytes of the batch at ``hdr['position']``: v2 records section, or a wrapper's value."""
    pos = hdr["position"]
    end = pos + hdr["size"]
    if hdr["magic"] == 2:
        return view[pos + V2_HEADER_SIZE : end]
    at = pos + LOG_OVERHEAD + (6 if hdr["magic"] == 0 else 14)
    klen = int.from_bytes(view[at : at + 4], "big", signed=True)
    at += 4 + max(klen, 0)
    if at + 4 > end:
        raise CorruptRecordError("compressed wrapper message is truncated before its value", position=pos)
    vlen = int.from_bytes(view[at : at + 4], "big", signed=True)
    at += 4
    if vlen < 0 or at + vlen > end:
        raise CorruptRecordError(f"compressed wrapper value length {vlen} does not fit the message", position=pos)
    return view[at : at + vlen]


class _Decoded(NamedTuple):
    chunks: list[dict[str, Any]]
    stop: int        # position after the last complete batch that was read
    status: int      # END or PARTIAL


def _decode(
    view: memoryview,
    start: int,
    end: int,
    *,
    include_headers: bool,
    check_crc: bool,
    include_control: bool,
    limit: int,
    include_values: bool = True,
    ranges: Sequence[tuple[int, int]] | None = None,
) -> _Decoded:
    """Decode ``[start, end)``, or with ``ranges`` each of those byte ranges into the same chunks
    (how read_committed skips aborted batches without a copy or a chunk per range)."""
    dec = _k.Decoder(include_headers, check_crc, include_control, include_values)
    chunks = []
    pos, status = start, _k.END
    for lo, hi in ranges if ranges is not None else ((start, end),):
        pos = lo
        while True:
            status, pos = dec.run(view, pos, hi)
            if status == _k.INNER:
                hdr = dec.current
                codec = hdr["attributes"] & 7
                try:
                    data = decompress(codec, _inner_payload(view, hdr), hdr["magic"], limit)
                except CorruptRecordError as exc:
                    if exc.position is None:
                        raise type(exc)(exc.reason, position=pos,
                                        offsets=(hdr["base_offset"], hdr["last_offset"])) from None
                    raise
                if not dec.fits(len(data)):
                    chunks.append(dec.finish())
                dec.inner(data)
                pos += hdr["size"]
            elif status == _k.FULL:
                chunks.append(dec.finish())
            else:
                break
    chunks.append(dec.finish())
    return _Decoded(chunks, pos, status)


def _binary(n: int, valid: Any, offsets: Any, data: Any, typ: pa.DataType = pa.binary()) -> pa.Array:
    return pa.Array.from_buffers(typ, n, [pa.py_buffer(valid) if valid is not None else None,
                                          pa.py_buffer(offsets), pa.py_buffer(data)])


def _chunk_to_arrow(c: dict[str, Any], include_headers: bool) -> pa.RecordBatch:
    n = c["n"]
    ts = np.frombuffer(c["timestamps"], dtype=np.int64)
    if n and (ts.min() < -_MAX_MS_FOR_US or ts.max() > _MAX_MS_FOR_US):
        bad = int(ts[(ts < -_MAX_MS_FOR_US) | (ts > _MAX_MS_FOR_US)][0])
        raise InvalidTimestampError(f"timestamp {bad} ms cannot be represented in microseconds")
    columns = [
        _binary(n, c["key_valid"], c["key_offsets"], c["key_data"]),
        _binary(n, c["val_valid"], c["val_offsets"], c["val_data"]),
        pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(c["offsets"])]),
        int64_array(ts * 1000).view(pa.timestamp("us", tz="UTC")),
        pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(c["ts_types"])]),
    ]
    if include_headers:
        columns.append(_headers_array(c))
    return pa.RecordBatch.from_arrays(columns, schema=record_schema(include_headers))


def _headers_array(c: dict[str, Any]) -> pa.Array:
    n, nh = c["n"], c["nh"]
    if c["bad_utf8"]:
        # Header keys are UTF-8 by contract; like Java's String decoding, replace what is not.
        offs = np.frombuffer(c["hkey_offsets"], dtype=np.int32)
        data = bytes(c["hkey_data"])
        keys = pa.array([data[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(nh)],
                        type=pa.string())
    else:
        keys = _binary(nh, None, c["hkey_offsets"], c["hkey_data"], pa.string())
    values = _binary(nh, c["hval_valid"], c["hval_offsets"], c["hval_data"])
    items = pa.StructArray.from_arrays([keys, values], fields=list(_HEADER_STRUCT))
    list_offsets = np.frombuffer(c["hdr_offsets"], dtype=np.int32)
    has = np.diff(list_offsets) > 0
    validity = pa.py_buffer(np.packbits(has, bitorder="little")) if n else None
    return pa.Array.from_buffers(_HEADERS_TYPE, n, [validity, pa.py_buffer(list_offsets)], children=[items])


#: up to this many rows, ``records()`` builds Python objects straight from the decoder's buffers: for a
#: few records that is several times cheaper than building Arrow arrays to convert them back
_SMALL_CHUNK = 256


def _blobs(n: int, valid: Any, offsets: Any, data: Any) -> list[Any]:
    """A decoded binary column (int32 offsets, LSB-first validity bitmap) as bytes/None, without Arrow."""
    offs = memoryview(offsets).cast("i")
    raw = bytes(data)
    if valid is None:
        return [raw[offs[i] : offs[i + 1]] for i in range(n)]
    bits = bytes(valid)
    return [raw[offs[i] : offs[i + 1]] if bits[i >> 3] >> (i & 7) & 1 else None for i in range(n)]


def _chunk_headers(c: dict[str, Any]) -> list[Any]:
    n, nh = c["n"], c["nh"]
    if n > _SMALL_CHUNK:
        return [tuple((d["key"], d["value"]) for d in h) if h else () for h in _headers_array(c).to_pylist()]
    keys = [k.decode("utf-8", "replace") for k in _blobs(nh, None, c["hkey_offsets"], c["hkey_data"])]
    values = _blobs(nh, c["hval_valid"], c["hval_offsets"], c["hval_data"])
    lo = memoryview(c["hdr_offsets"]).cast("i")
    return [tuple(zip(keys[lo[i] : lo[i + 1]], values[lo[i] : lo[i + 1]])) for i in range(n)]


_TIMESTAMP_TYPES = (TimestampType.NO_TIMESTAMP_TYPE, TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME)


def _chunk_records(c: dict[str, Any]) -> Iterator[Record]:
    n = c["n"]
    if not n:
        return
    offsets = memoryview(c["offsets"]).cast("q")[:n].tolist()
    stamps = memoryview(c["timestamps"]).cast("q")[:n].tolist()
    types = memoryview(c["ts_types"]).cast("i")[:n].tolist()
    if n <= _SMALL_CHUNK:
        keys = _blobs(n, c["key_valid"], c["key_offsets"], c["key_data"])
        values = _blobs(n, c["val_valid"], c["val_offsets"], c["val_data"])
    else:
        keys = _binary(n, c["key_valid"], c["key_offsets"], c["key_data"]).to_pylist()
        values = _binary(n, c["val_valid"], c["val_offsets"], c["val_data"]).to_pylist()
    headers: list[Any] = _chunk_headers(c) if c["headers"] and c["nh"] else [()] * n
    new, tt = tuple.__new__, _TIMESTAMP_TYPES
    for i in range(n):
        yield new(Record, (keys[i], values[i], stamps[i], headers[i], offsets[i], tt[types[i] + 1]))


# ---------------------------------------------------------------------------------------------- batches
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


# -------------------------------------------------------------------------------------------- encoding
def binary_parts(obj: pa.Array, what: str = "value") -> tuple[Any, np.ndarray, np.ndarray | None]:
    """``(data, offsets as int64, validity as one byte per row or None)`` of a binary or string Arrow
    array, the form :class:`kvlog._core.records.Column` takes."""
    t = obj.type
    if t in (pa.binary(), pa.string()):
        width = np.int32
    elif t in (pa.large_binary(), pa.large_string()):
        width = np.int64
    else:
        raise TypeError(f"{what} must be a binary or string Arrow array, not {t}")
    _, offsets_buf, data = obj.buffers()[:3]
    offsets: np.ndarray = np.frombuffer(offsets_buf, dtype=width)[obj.offset : obj.offset + len(obj) + 1]
    offsets = offsets.astype(np.int64, copy=True)
    valid = None if obj.null_count == 0 else valid_mask(obj).astype(np.uint8)
    return data if data is not None else b"", offsets, valid


def _column(obj: Any, n: int, what: str) -> Any:
    if obj is None:
        return _k.Column.nulls(n)
    if isinstance(obj, _k.Column):  # built by a caller inside kvlog (the cleaner's gathered rows)
        return obj
    if isinstance(obj, pa.ChunkedArray):
        obj = obj.combine_chunks()
    if isinstance(obj, pa.Array):
        if pa.types.is_null(obj.type):
            return _k.Column.nulls(len(obj))
        return _k.Column.from_buffers(*binary_parts(obj, what))
    if isinstance(obj, (bytes, bytearray, str)):
        raise TypeError(f"{what} must be a sequence of values, not a single {type(obj).__name__}")
    if not isinstance(obj, (list, tuple)):
        obj = list(obj)
    return _k.Column.from_sequence(obj, what)


def _timestamps(ts: Any, n: int) -> np.ndarray:
    if ts is None:
        return np.full(n, now_ms(), dtype=np.int64)
    if isinstance(ts, (int, np.integer)):
        return np.full(n, int(ts), dtype=np.int64)
    if isinstance(ts, pa.ChunkedArray):
        ts = ts.combine_chunks()
    if isinstance(ts, pa.Array):
        if pa.types.is_timestamp(ts.type):
            ts = ts.cast(pa.timestamp("ms", tz=ts.type.tz))
            ts = ts.view(pa.int64())
        if ts.null_count:
            raise InvalidTimestampError("timestamps may not contain nulls (use -1 for 'no timestamp')")
        ts = numpy_of(ts) if pa.types.is_integer(ts.type) else ts.to_numpy(zero_copy_only=False)
    if type(ts) is list and len(ts) == n:
        out = np.empty(n, dtype=np.int64)
        if _k.int64_list(ts, out):
            ts = out
    arr = np.asarray(ts)
    if arr.dtype.kind == "M":
        arr = arr.astype("datetime64[ms]").astype(np.int64)
    if arr.dtype == object:
        if any(t is None for t in arr):
            raise InvalidTimestampError("timestamps may not contain None (use -1 for 'no timestamp')")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.shape != (n,):
        raise ValueError(f"expected {n} timestamps, got {arr.shape[0] if arr.ndim else 'a scalar array'}")
    if n and arr.min() < -1:
        raise InvalidTimestampError(f"invalid timestamp {int(arr.min())}: must be -1 or non-negative")
    return arr


def _headers(headers: Any, n: int) -> tuple[Any, Any, np.ndarray | None]:
    if headers is None:
        return None, None, None
    if isinstance(headers, tuple) and len(headers) == 3 and isinstance(headers[0], _k.Column):
        return headers  # (keys, values, offsets) columns built inside kvlog (the cleaner)
    if isinstance(headers, pa.ChunkedArray):
        headers = headers.combine_chunks()
    if isinstance(headers, pa.Array):
        if not (pa.types.is_list(headers.type) or pa.types.is_large_list(headers.type)):
            raise TypeError("headers must be a list<struct<key, value>> Arrow array")
        if len(headers) != n:
            raise ValueError(f"expected {n} header lists, got {len(headers)}")
        offs = numpy_of(headers.offsets).astype(np.int64)
        if headers.null_count and not (np.diff(offs)[~valid_mask(headers)] == 0).all():
            counts = np.where(valid_mask(headers), np.diff(offs), 0)
            flat_idx = np.concatenate([np.arange(offs[i], offs[i] + counts[i]) for i in range(n)]
                                      or [np.empty(0, np.int64)])
            items = headers.values.take(int64_array(flat_idx))
            offs = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        else:
            items = headers.values.slice(offs[0], offs[-1] - offs[0])
            offs = offs - offs[0]
        keys = items.field("key")
        if keys.null_count:
            raise ValueError("Kafka header keys may not be null")
        return _column(keys, len(items), "header key"), _column(items.field("value"), len(items), "header value"), offs
    if len(headers) != n:
        raise ValueError(f"expected {n} header lists, got {len(headers)}")
    hkeys: list[Any] = []
    hvals: list[Any] = []
    offs = np.zeros(n + 1, dtype=np.int64)
    for i, hs in enumerate(headers):
        if hs:
            for item in hs:
                if isinstance(item, dict):
                    k, v = item["key"], item.get("value")
                else:
                    k, v = item
                if k is None:
                    raise ValueError(f"record {i}: Kafka header keys may not be null")
                hkeys.append(k)
                hvals.append(v)
        offs[i + 1] = len(hkeys)
    return _k.Column.from_sequence(hkeys, "header key"), _k.Column.from_sequence(hvals, "header value"), offs


def encode_arrays(
    keys: Any,
    values: Any,
    timestamps: Any = None,
    *,
    headers: Any = None,
    offsets: Any = None,
    magic: int = 2,
    base_offset: int = 0,
    compression: Compression | int | str = Compression.NONE,
    timestamp_type: TimestampType | int | str = TimestampType.CREATE_TIME,
    log_append_time: int | None = None,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    partition_leader_epoch: int = -1,
    is_transactional: bool = False,
    is_control: bool = False,
    records_per_batch: int = DEFAULT_RECORDS_PER_BATCH,
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
    compression_level: int | None = None,
    _batches: tuple[Any, ...] | None = None,
) -> bytes:
    """Encode columns into consecutive batches (the columnar fast path).

    ``keys``/``values``: sequences of bytes/str/None, numpy object arrays, or Arrow binary/string
    arrays (zero-copy); ``keys=None`` means null keys. ``timestamps``: None (now), an int, a
    sequence, numpy int64 (ms) or datetime64, or an Arrow timestamp array. ``headers``: None, a
    sequence (one per record) of ``(key, value)`` pairs, or an Arrow list<struct<key, value>>.
    Offsets run consecutively from ``base_offset`` unless ``offsets`` gives them (increasing).
    A batch closes at ``records_per_batch`` records or before passing ``max_batch_bytes`` (uncompressed).
    """
    n = len(values) if values is not None else (len(keys) if keys is not None else 0)
    kcol = _column(keys, n, "key")
    vcol = _column(values, n, "value")
    if len(kcol) != len(vcol):
        raise ValueError(f"{len(kcol)} keys but {len(vcol)} values")
    n = len(vcol)
    ts = _timestamps(timestamps, n)
    codec = Compression.parse(compression)
    ttype = TimestampType.parse(timestamp_type)
    if ttype == TimestampType.NO_TIMESTAMP_TYPE:
        raise ConfigError("batches are written with CreateTime or LogAppendTime")
    lat = now_ms() if log_append_time is None else int(log_append_time)
    offs = None if offsets is None else np.ascontiguousarray(offsets, dtype=np.int64)
    if offs is not None and offs.shape != (n,):
        raise ValueError(f"expected {n} offsets")
    if max_batch_bytes < V2_HEADER_SIZE:
        raise ConfigError("max_batch_bytes is smaller than a batch header")

    def _compress(data: bytes) -> bytes:
        return compress(codec, data, magic, compression_level)

    if magic == 2:
        hk, hv, hoff = _headers(headers, n)
        return bytes(_k.encode_v2(
            kcol, vcol, ts, offs, hk, hv, hoff, base_offset=base_offset, compression=int(codec),
            timestamp_type=int(ttype), log_append_time=lat, producer_id=producer_id,
            producer_epoch=producer_epoch, base_sequence=base_sequence,
            partition_leader_epoch=partition_leader_epoch, is_transactional=is_transactional,
            is_control=is_control, records_per_batch=records_per_batch, max_batch_bytes=max_batch_bytes,
            compress=_compress, batch_ends=None if _batches is None else _batches[0],
            batch_last_offsets=None if _batches is None else _batches[1],
            batch_horizons=None if _batches is None else _batches[2],
            batch_base_offsets=None if _batches is None or len(_batches) < 4 else _batches[3]))
    if magic in (0, 1):
        if codec == Compression.ZSTD:
            raise UnsupportedCodecError(f"zstd requires magic v2, not v{magic}")
        if headers is not None and any(_has_headers(h) for h in _iter_header_lists(headers)):
            raise ConfigError(f"magic v{magic} cannot carry record headers")
        if is_transactional or is_control or producer_id != -1:
            raise ConfigError(f"magic v{magic} has no producer, transaction or control fields")
        return bytes(_k.encode_legacy(
            magic, kcol, vcol, ts, offs, base_offset=base_offset, compression=int(codec),
            timestamp_type=int(ttype), log_append_time=lat, records_per_batch=records_per_batch,
            max_batch_bytes=max_batch_bytes, compress=_compress))
    raise ConfigError(f"unsupported magic {magic}; use 0, 1 or 2")


def _iter_header_lists(headers: Any) -> Iterable[Any]:
    lists: Iterable[Any] = headers.to_pylist() if isinstance(headers, (pa.Array, pa.ChunkedArray)) else headers
    return lists


def _has_headers(h: Any) -> bool:
    return bool(h)


def _records_to_columns(records: Iterable[Any]) -> tuple[list[Any], list[Any], list[int], list[Any], bool]:
    keys: list[Any] = []
    values: list[Any] = []
    stamps: list[int] = []
    headers: list[Any] = []
    any_headers = False
    now = None
    for r in records:
        if isinstance(r, Record):
            k, v, t, h = r.key, r.value, r.timestamp, r.headers
        elif isinstance(r, tuple) and 1 <= len(r) <= 4:
            k, v, t, h = (tuple(r) + (None, None, None))[:4]
        else:
            raise TypeError(f"expected Record or (key, value[, timestamp[, headers]]) tuples, got {type(r).__name__}")
        if t is None:
            if now is None:
                now = now_ms()
            t = now
        keys.append(k)
        values.append(v)
        stamps.append(t)
        headers.append(h or ())
        any_headers = any_headers or bool(h)
    return keys, values, stamps, headers, any_headers


def encode_batch(
    records: Iterable[Record | tuple[Any, ...]],
    *,
    magic: int = 2,
    base_offset: int = 0,
    compression: Compression | int | str = Compression.NONE,
    timestamp_type: TimestampType | int | str = TimestampType.CREATE_TIME,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    partition_leader_epoch: int = -1,
    is_transactional: bool = False,
    is_control: bool = False,
    log_append_time: int | None = None,
    compression_level: int | None = None,
) -> bytes:
    """Encode records into one batch (v2) or one message set (v0/v1; one wrapper when compressed).

    Records without a timestamp get the current time. Offsets run from ``base_offset``.
    An empty ``records`` gives an empty v2 batch (Kafka's cleaner writes those) or, for v0/v1, b"".
    """
    if (magic == 2 and type(records) is list and not is_control and Compression.parse(compression) == 0
            and TimestampType.parse(timestamp_type) == TimestampType.CREATE_TIME):
        # the common case in one kernel call: bytes keys and values, no headers (else None: general path)
        data = _p.encode_records(records, now_ms(), producer_id, producer_epoch, base_sequence, is_transactional,
                                 base_offset, partition_leader_epoch)
        if data is not None:
            return data
    keys, values, stamps, headers, any_headers = _records_to_columns(records)
    if not keys and magic == 2:
        ttype = TimestampType.parse(timestamp_type)
        return _k.encode_v2_empty(
            base_offset=base_offset, last_offset_delta=0, base_timestamp=-1, max_timestamp=-1,
            producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=base_sequence,
            partition_leader_epoch=partition_leader_epoch,
            attributes=(int(ttype == TimestampType.LOG_APPEND_TIME) << 3) | (int(is_transactional) << 4)
            | (int(is_control) << 5))
    return encode_arrays(
        keys, values, stamps, headers=headers if any_headers else None, magic=magic, base_offset=base_offset,
        compression=compression, timestamp_type=timestamp_type, log_append_time=log_append_time,
        producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=base_sequence,
        partition_leader_epoch=partition_leader_epoch, is_transactional=is_transactional,
        is_control=is_control, records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1,
        compression_level=compression_level)


def convert(
    records: MemoryRecords | BytesLike,
    magic: int,
    *,
    compression: Compression | int | str | None = None,
) -> bytes:
    """Up- or down-convert every batch to ``magic`` (KIP-32's migration path), keeping offsets.

    Losses are those of the target format: v0 has no timestamps (they become -1); v0/v1 have no
    headers, producer ids, transactions or control batches (headers are dropped, control batches are
    skipped, as Kafka's down-conversion does). Each batch keeps its codec unless ``compression`` is
    given; zstd cannot be written below v2. Batches already at ``magic`` are copied unchanged.
    """
    if magic not in (0, 1, 2):
        raise ConfigError(f"unsupported magic {magic}")
    mr = records if isinstance(records, MemoryRecords) else MemoryRecords(records)
    forced = None if compression is None else Compression.parse(compression)
    parts: list[bytes] = []
    # (batch, codec, records) units; runs of uncompressed legacy messages merge into one v2 batch
    units: list[tuple[RecordBatch, Compression, list[Record]]] = []
    for batch in mr.batches():
        batch.ensure_valid()
        if batch.magic == magic and forced in (None, batch.compression):
            units.append((batch, batch.compression, []))
            continue
        if batch.is_control and magic < 2:
            continue
        recs = list(batch.records())
        if not recs:
            continue
        codec = forced if forced is not None else batch.compression
        if magic < 2 and codec == Compression.ZSTD:
            raise UnsupportedCodecError(
                f"batch at offset {batch.base_offset} is zstd-compressed, which magic v{magic} cannot carry; "
                "pass compression= to convert it")
        prev = units[-1] if units else None
        if (magic == 2 and batch.magic < 2 and batch.compression == Compression.NONE and prev is not None
                and prev[2] and prev[0].magic < 2 and prev[0].compression == Compression.NONE
                and prev[0].timestamp_type == batch.timestamp_type and prev[1] == codec
                and batch.timestamp_type != TimestampType.LOG_APPEND_TIME):
            prev[2].extend(recs)
            continue
        units.append((batch, codec, recs))
    for batch, codec, recs in units:
        if not recs:
            parts.append(bytes(batch.buffer()))
            continue
        ttype = batch.timestamp_type
        if ttype == TimestampType.NO_TIMESTAMP_TYPE:
            ttype = TimestampType.CREATE_TIME
        stamps = [r.timestamp if r.timestamp is not None else -1 for r in recs]
        common: dict[str, Any] = dict(
            offsets=[r.offset for r in recs], magic=magic, compression=codec, timestamp_type=ttype,
            log_append_time=batch.max_timestamp, records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1)
        if magic == 2:
            hdrs = [r.headers for r in recs]
            common.update(headers=hdrs if any(hdrs) else None, base_offset=recs[0].offset)
            if batch.magic == 2:
                common.update(producer_id=batch.producer_id, producer_epoch=batch.producer_epoch,
                              base_sequence=batch.base_sequence,
                              partition_leader_epoch=batch.partition_leader_epoch,
                              is_transactional=batch.is_transactional, is_control=batch.is_control)
        parts.append(encode_arrays([r.key for r in recs], [r.value for r in recs], stamps, **common))
    return b"".join(parts)


def key_columns(buffer: Any, *, max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES
                ) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Keys (Arrow binary), offsets and timestamps (ms) of every non-control record, values not copied.

    The cleaner's map pass needs only these; skipping the value bytes halves its memory traffic.
    """
    view = _as_view(buffer)
    res = _decode(view, 0, len(view), include_headers=False, check_crc=False, include_control=False,
                  limit=max_decompressed_bytes, include_values=False)
    keys, offsets, stamps = [], [], []
    for c in res.chunks:
        n = c["n"]
        keys.append(_binary(n, c["key_valid"], c["key_offsets"], c["key_data"]))
        offsets.append(np.frombuffer(c["offsets"], dtype=np.int64))
        stamps.append(np.frombuffer(c["timestamps"], dtype=np.int64))
    if len(keys) == 1:
        return keys[0], offsets[0], stamps[0]
    return (pa.concat_arrays(keys) if keys else pa.array([], pa.binary()),
            np.concatenate(offsets) if offsets else np.empty(0, np.int64),
            np.concatenate(stamps) if stamps else np.empty(0, np.int64))
