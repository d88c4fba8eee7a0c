"""Kafka's default partitioner for keyed records: ``toPositive(murmur2(key)) % partitions``.

``murmur2`` is the 32-bit MurmurHash2 variant of Kafka's ``Utils.murmur2`` (seed ``0x9747b28c``, four key
bytes at a time read little-endian, the tail folded in from the highest byte down). ``toPositive`` masks the
sign bit (it is not ``abs``). The many-key form reads an Arrow binary column's offsets and data in place, so a
Spark sink can route a whole Arrow batch without a Python object per row.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

import numpy as np

cimport numpy as cnp

cnp.import_array()

cdef uint32_t M = 0x5bd1e995u
cdef uint32_t SEED = 0x9747b28cu


cdef inline uint32_t _murmur2(const uint8_t *p, Py_ssize_t n) noexcept nogil:
    cdef uint32_t h = SEED ^ <uint32_t>n
    cdef uint32_t k
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t tail = n & ~3
    while i < tail:
        k = p[i] | (<uint32_t>p[i + 1] << 8) | (<uint32_t>p[i + 2] << 16) | (<uint32_t>p[i + 3] << 24)
        k *= M
        k ^= k >> 24
        k *= M
        h *= M
        h ^= k
        i += 4
    cdef Py_ssize_t rest = n & 3
    if rest == 3:
        h ^= <uint32_t>p[tail + 2] << 16
    if rest >= 2:
        h ^= <uint32_t>p[tail + 1] << 8
    if rest >= 1:
        h ^= p[tail]
        h *= M
    h ^= h >> 13
    h *= M
    h ^= h >> 15
    return h


def murmur2(data) -> int:
    """Kafka's ``Utils.murmur2`` of a bytes-like object, as a signed 32-bit int (as Java returns it)."""
    cdef Py_buffer view
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    cdef uint32_t h
    try:
        with nogil:
            h = _murmur2(<const uint8_t *>view.buf, view.len)
    finally:
        PyBuffer_Release(&view)
    return <int32_t>h


def partition_many(offsets, data, Py_ssize_t count, int32_t partitions) -> cnp.ndarray:
    """``toPositive(murmur2(key_i)) % partitions`` for keys laid out as an Arrow binary column.

    ``offsets`` holds ``count + 1`` int32 or int64 positions into ``data`` (an Arrow column's buffers,
    already sliced to the array's offset); the caller routes null keys itself.
    """
    if partitions < 1:
        raise ValueError(f"partitions must be positive, got {partitions}")
    cdef cnp.ndarray offs = np.ascontiguousarray(offsets)
    if offs.ndim != 1 or offs.shape[0] < count + 1:
        raise ValueError(f"offsets need {count + 1} entries, got {offs.shape[0]}")
    if offs.dtype != np.int32 and offs.dtype != np.int64:
        raise TypeError(f"offsets must be int32 or int64, got {offs.dtype}")
    cdef cnp.ndarray out = np.empty(count, dtype=np.int32)
    cdef int32_t[::1] res = out
    cdef Py_buffer view
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    cdef const int32_t *o32 = NULL
    cdef const int64_t *o64 = NULL
    cdef Py_ssize_t i
    cdef int64_t a, b
    cdef bint bad = False
    if offs.dtype == np.int32:
        o32 = <const int32_t *>cnp.PyArray_DATA(offs)
    else:
        o64 = <const int64_t *>cnp.PyArray_DATA(offs)
    try:
        with nogil:
            for i in range(count):
                if o32 != NULL:
                    a = o32[i]
                    b = o32[i + 1]
                else:
                    a = o64[i]
                    b = o64[i + 1]
                if a < 0 or b < a or b > view.len:
                    bad = True
                    break
                res[i] = <int32_t>((_murmur2(<const uint8_t *>view.buf + a, b - a) & 0x7fffffffu)
                                   % <uint32_t>partitions)
    finally:
        PyBuffer_Release(&view)
    if bad:
        raise ValueError(f"key offsets at row {i} ({a}..{b}) do not fit a data buffer of {view.len} bytes")
    return out
