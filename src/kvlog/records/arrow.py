"""Decoded column chunks as Arrow record batches, or as ``Record`` objects for small iterations.

The decoder fills column buffers; this module wraps them as Arrow arrays without a copy (Spark's Kafka
source schema) and, for a few rows, builds ``Record`` tuples straight from the buffers instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog._arrow import int64_array
from kvlog._java_text import JAVA_UTF8_ERRORS
from kvlog.compression import DEFAULT_MAX_DECOMPRESSED_BYTES
from kvlog.errors import InvalidTimestampError
from kvlog.records.decode import _as_view, _decode
from kvlog.records.record import Record, TimestampType


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
#: the list item named ``element``, as Spark's ``to_arrow_schema`` names it: every Arrow producer of kvlog (records,
#: logs, scans, the engines) gives the headers column this one type
_HEADERS_TYPE = pa.list_(pa.field("element", _HEADER_STRUCT))
_MAX_MS_FOR_US = (2**63 - 1) // 1000


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
        # Header keys are UTF-8 by contract; what is not becomes U+FFFD exactly where Kafka's Utils.utf8 (Java's
        # new String(bytes, UTF_8)) puts them.
        offs = np.frombuffer(c["hkey_offsets"], dtype=np.int32)
        data = bytes(c["hkey_data"])
        keys = pa.array([data[offs[i] : offs[i + 1]].decode("utf-8", JAVA_UTF8_ERRORS) for i in range(nh)],
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
    keys = [k.decode("utf-8", JAVA_UTF8_ERRORS) for k in _blobs(nh, None, c["hkey_offsets"], c["hkey_data"])]
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
