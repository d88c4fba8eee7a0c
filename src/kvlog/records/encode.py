"""Encoding: columns to batches (``encode_arrays``), records to one batch (``encode_batch``), and
re-encoding batches to another magic (``convert``).

Kafka's ``MemoryRecordsBuilder`` and down-conversion: the kernels write whole batches from column
buffers, so nothing here runs per record except the ``Record``-to-columns step of ``encode_batch``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog._arrow import int64_array, numpy_of, valid_mask
from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog.compression import Compression, compress
from kvlog.errors import ConfigError, InvalidTimestampError, UnsupportedCodecError
from kvlog.records.batches import MemoryRecords, RecordBatch
from kvlog.records.record import (
    DEFAULT_MAX_BATCH_BYTES,
    DEFAULT_RECORDS_PER_BATCH,
    V2_HEADER_SIZE,
    BytesLike,
    Record,
    TimestampType,
    now_ms,
)


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
