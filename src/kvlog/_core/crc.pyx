"""CRC-32 (IEEE, as zlib) and CRC-32C (Castagnoli, as Kafka's v2 batches) over any bytes-like object.

The C kernels pick the fastest implementation for this CPU once, at import (``kvlog_crc_init``).
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_GET_SIZE
from cpython.long cimport PyLong_AsUnsignedLongLongMask
from libc.stdint cimport uint32_t, uint8_t


cdef extern from "kvlog_crc.h" nogil:
    uint32_t kvlog_crc32(uint32_t crc, const uint8_t *p, size_t n) noexcept
    uint32_t kvlog_crc32c(uint32_t crc, const uint8_t *p, size_t n) noexcept
    void kvlog_crc_init()
    const char *kvlog_crc32_kernel()
    const char *kvlog_crc32c_kernel()
    int kvlog_crc32_variant(int variant, uint32_t crc, const uint8_t *p, size_t n, uint32_t *out)
    int kvlog_crc32c_variant(int variant, uint32_t crc, const uint8_t *p, size_t n, uint32_t *out)
    const char *kvlog_crc_variant_name(int variant)
    int KVLOG_CRC_NVARIANTS

cdef extern from "kvlog_cpu.h" nogil:
    unsigned kvlog_cpu_detected()
    unsigned kvlog_cpu_hidden()
    const char *kvlog_cpu_feature_name(int feature)
    int KVLOG_CPU_NFEATURES

cdef extern from *:
    const char *KVLOG_BUILD_MODE
    const char *KVLOG_CYTHON_VERSION

kvlog_crc_init()

BUILD_MODE = KVLOG_BUILD_MODE.decode()
CYTHON_VERSION = KVLOG_CYTHON_VERSION.decode()

# Releasing the GIL costs more than checksumming a small buffer.
cdef enum:
    NOGIL_BYTES = 16384


ctypedef uint32_t (*crc_fn)(uint32_t crc, const uint8_t *p, size_t n) noexcept nogil


cdef inline object _checksum(crc_fn fn, data, value):
    """``fn`` over ``data`` from ``value``: one body for both polynomials (``fn`` is a constant at each
    call site, so the C compiler calls the kernel directly)."""
    cdef Py_buffer view
    cdef uint32_t v = 0 if value is 0 else <uint32_t>PyLong_AsUnsignedLongLongMask(value)
    if PyBytes_CheckExact(data) and PyBytes_GET_SIZE(data) < NOGIL_BYTES:  # no buffer protocol round trip
        return fn(v, <const uint8_t *>PyBytes_AS_STRING(data), <size_t>PyBytes_GET_SIZE(data))
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    if view.len >= NOGIL_BYTES:
        with nogil:
            v = fn(v, <const uint8_t *>view.buf, <size_t>view.len)
    else:
        v = fn(v, <const uint8_t *>view.buf, <size_t>view.len)
    PyBuffer_Release(&view)
    return v


def crc32(data, value=0):
    """CRC-32 (IEEE 802.3) of ``data``, continuing from ``value``; same results as ``zlib.crc32``."""
    return _checksum(kvlog_crc32, data, value)


def crc32c(data, value=0):
    """CRC-32C (Castagnoli) of ``data``, continuing from ``value`` (zlib-style incremental use)."""
    return _checksum(kvlog_crc32c, data, value)


def kernels():
    """Names of the active CRC-32 and CRC-32C kernels."""
    return {"crc32": kvlog_crc32_kernel().decode(), "crc32c": kvlog_crc32c_kernel().decode()}


def cpu_features():
    """``{feature: (offered by this CPU, used by the kernels)}`` for every feature the dispatcher knows;
    a feature offered but not used is hidden by ``KVLOG_CPU_DISABLE``."""
    cdef unsigned found = kvlog_cpu_detected(), hidden = kvlog_cpu_hidden()
    return {kvlog_cpu_feature_name(i).decode(): (bool(found >> i & 1), bool((found & ~hidden) >> i & 1))
            for i in range(KVLOG_CPU_NFEATURES)}


def variants():
    """Names of every kernel variant compiled in, whether or not this CPU can run it."""
    return {i: kvlog_crc_variant_name(i).decode() for i in range(KVLOG_CRC_NVARIANTS)}


def crc_variant(str algorithm, int variant, data, value=0):
    """Run one specific kernel (tests and benchmarks); None if this CPU or build lacks it."""
    cdef Py_buffer view
    cdef uint32_t out = 0
    cdef uint32_t v = <uint32_t>PyLong_AsUnsignedLongLongMask(value)
    cdef int rc
    if algorithm not in ("crc32", "crc32c"):
        raise ValueError("algorithm must be 'crc32' or 'crc32c'")
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    with nogil:
        if algorithm == "crc32":
            rc = kvlog_crc32_variant(variant, v, <const uint8_t *>view.buf, <size_t>view.len, &out)
        else:
            rc = kvlog_crc32c_variant(variant, v, <const uint8_t *>view.buf, <size_t>view.len, &out)
    PyBuffer_Release(&view)
    return None if rc != 0 else out
