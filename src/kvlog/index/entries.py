"""Index entry layouts as numpy dtypes, and plain (never mapped) reads of whole index files.

For tools that judge a file rather than use it (``kvlog dump``, :mod:`kvlog.verify`): they read what Kafka
would believe, untrusted tail included, and must not map a file a writer may trim under them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from kvlog import _io

I64Array = npt.NDArray[np.int64]

#: One ``.index`` entry as numpy sees the file (relative offset, position), packed big-endian.
OFFSET_ENTRY_DTYPE = np.dtype([("rel", ">i4"), ("position", ">i4")])
#: One ``.timeindex`` entry as numpy sees the file (timestamp, relative offset), packed big-endian.
TIME_ENTRY_DTYPE = np.dtype([("timestamp", ">i8"), ("rel", ">i4")])


def _read_entries(path: str, dtype: np.dtype) -> tuple[np.ndarray, int]:
    """Every entry Kafka would believe (``file length // entry size``) and the file length.

    Read with plain reads, never mapped: a broker or kvlog writer may trim the file of an active segment
    at any moment, and a mapped page past the new end would kill a read-only checker with SIGBUS.
    """
    data = _io.fs.read_file(path)
    whole = len(data) - len(data) % dtype.itemsize
    return np.frombuffer(data[:whole], dtype=dtype), len(data)


def read_offset_index(path: str, base: int) -> tuple[I64Array, I64Array, int]:
    """``(offsets, positions, file length)`` of every entry of a ``.index`` file, untrusted tail included,
    for tools that judge the file rather than use it (``kvlog dump``, :mod:`kvlog.verify`)."""
    raw, length = _read_entries(path, OFFSET_ENTRY_DTYPE)
    return base + raw["rel"].astype(np.int64), raw["position"].astype(np.int64), length


def read_time_index(path: str, base: int) -> tuple[I64Array, I64Array, int]:
    """``(timestamps, offsets, file length)`` of every entry of a ``.timeindex`` file, as
    :func:`read_offset_index` reads an offset index."""
    raw, length = _read_entries(path, TIME_ENTRY_DTYPE)
    return raw["timestamp"].astype(np.int64), base + raw["rel"].astype(np.int64), length


def kafka_index_end(offsets: np.ndarray, base: int) -> int:
    """DumpLogSegments' end of an index read by :func:`read_offset_index` or :func:`read_time_index`:
    the first entry after the first one that holds the base offset (where a zero-filled tail starts)."""
    hits = np.flatnonzero(offsets[1:] == base)
    return int(hits[0]) + 1 if len(hits) else len(offsets)
