"""Arrow ↔ numpy for the hot paths, without pyarrow's pandas shim.

pyarrow imports pandas (when installed) the first time ``pa.array`` or ``Array.to_numpy`` runs: about
0.2 s, more than a one-shot ``kvlog compact`` of a 36 MB log spends compacting. These helpers read and
build the buffers of fixed-width arrays directly; they are zero-copy where the layout allows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["int64_array", "numpy_of", "valid_mask"]

_SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def int64_array(values: Any) -> pa.Array:
    """An Arrow int64 array over a numpy integer array (a view when it is already contiguous int64)."""
    v = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(v), [None, pa.py_buffer(v)])


def _one_chunk(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        return arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    return arr


def _bits(buf: pa.Buffer | None, offset: int, n: int, default: bool) -> np.ndarray:
    if buf is None:
        return np.full(n, default, dtype=bool)
    raw = np.frombuffer(buf, dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little", count=offset + n)[offset:].astype(bool)


def numpy_of(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of a fixed-width (integer, timestamp) or boolean array as numpy (nulls give whatever
    the buffer holds: callers mask them with :func:`valid_mask`). Timestamps come as int64 in their unit."""
    a = _one_chunk(arr)
    n, off = len(a), a.offset
    if pa.types.is_boolean(a.type):
        return _bits(a.buffers()[1], off, n, False)
    if not (pa.types.is_integer(a.type) or pa.types.is_timestamp(a.type)):
        raise TypeError(f"numpy_of: {a.type} is not an integer or timestamp type")
    dtype = np.dtype((_UNSIGNED if pa.types.is_unsigned_integer(a.type) else _SIGNED)[a.type.bit_width])
    buf = a.buffers()[1]
    if buf is None:
        return np.zeros(n, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=n, offset=off * dtype.itemsize)


def valid_mask(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``True`` where the array holds a value (its validity bitmap as numpy booleans)."""
    a = _one_chunk(arr)
    if a.null_count == 0:
        return np.ones(len(a), dtype=bool)
    return _bits(a.buffers()[0], a.offset, len(a), True)
