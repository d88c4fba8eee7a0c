"""Record-format kernels: framing scan, v0/v1/v2 decode into columns, encode from columns.

Two tiers: ``noexcept nogil`` kernels over (pointer, end) that return a status and fill an ``Err`` on
failure, and thin ``def`` wrappers that own buffers, release the GIL for large inputs and turn a status
into a ``kvlog.errors`` exception in one place (``_raise``). Compression is not done here: a kernel stops
at a compressed batch (``ST_INNER``) and the Python layer feeds the decompressed payload back.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.bytearray cimport PyByteArray_CheckExact
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_CheckExact
from libc.stdint cimport INT32_MAX, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdio cimport snprintf
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import os

import numpy as np

from kvlog.errors import CorruptRecordError, RecordTooLargeError, UnsupportedCodecError


include "framing.pxi"

cdef extern from "kvlog_utf8.h" nogil:
    int kv_utf8_valid(const uint8_t *p, size_t n)

kvlog_crc_init()

# ---------------------------------------------------------------------------------------------------
# status codes, errors
# ---------------------------------------------------------------------------------------------------

OK = ST_OK
END = ST_END
PARTIAL = ST_PARTIAL
INNER = ST_INNER
FULL = ST_FULL

BATCH_DTYPE = np.dtype([
    ("position", "<i8"), ("base_offset", "<i8"), ("last_offset", "<i8"), ("base_timestamp", "<i8"),
    ("max_timestamp", "<i8"), ("producer_id", "<i8"), ("size", "<i4"), ("partition_leader_epoch", "<i4"),
    ("base_sequence", "<i4"), ("record_count", "<i4"), ("crc", "<u4"), ("attributes", "<i2"),
    ("producer_epoch", "<i2"), ("magic", "i1"), ("crc_valid", "i1"),
], align=True)


cdef _check_layout():
    cdef BatchInfo b
    cdef char *base = <char *>&b
    expected = {
        "position": <char *>&b.position - base, "base_offset": <char *>&b.base_offset - base,
        "last_offset": <char *>&b.last_offset - base, "base_timestamp": <char *>&b.base_timestamp - base,
        "max_timestamp": <char *>&b.max_timestamp - base, "producer_id": <char *>&b.producer_id - base,
        "size": <char *>&b.size - base, "partition_leader_epoch": <char *>&b.partition_leader_epoch - base,
        "base_sequence": <char *>&b.base_sequence - base, "record_count": <char *>&b.record_count - base,
        "crc": <char *>&b.crc - base, "attributes": <char *>&b.attributes - base,
        "producer_epoch": <char *>&b.producer_epoch - base, "magic": <char *>&b.magic - base,
        "crc_valid": <char *>&b.crc_valid - base,
    }
    for name, off in expected.items():
        if BATCH_DTYPE.fields[name][1] != off:
            raise ImportError(f"kvlog._core.records: BatchInfo layout mismatch at field {name}")
    if BATCH_DTYPE.itemsize != sizeof(BatchInfo):
        raise ImportError("kvlog._core.records: BatchInfo size mismatch")


_check_layout()


# ---------------------------------------------------------------------------------------------------
# buffers
# ---------------------------------------------------------------------------------------------------

cdef extern from "kvlog_codec.h" nogil:
    ctypedef struct kv_codec:
        unsigned char *buf
    int64_t kv_decompress(kv_codec *c, int codec, const unsigned char *p, size_t n, size_t limit)
    void kv_codec_free(kv_codec *c)
    const char *kv_codec_inline()

# The v2 codecs the decoder inflates itself without the GIL (lz4 and zstd need the system libraries at build).
INLINE_CODECS = kv_codec_inline().decode()


cdef extern from "kvlog_mem.h" nogil:
    size_t KV_BIG_BYTES
    void *kv_big_alloc(size_t need, size_t *cap, int zero)
    void *kv_big_realloc(void *p, size_t old_cap, size_t used, size_t need, size_t *cap, int zero)
    void kv_big_free(void *p, size_t cap)
    size_t kv_pool_set_limit(size_t limit)
    size_t kv_pool_cached()
    void kv_advise_huge(void *p, size_t n)


def set_buffer_cache_limit(limit):
    """Bytes of freed column memory kept for reuse by later decodes (0 disables; None: the automatic limit,
    the default: as much as was in use at once, from 128 MiB to 512 MiB); returns the old limit (None for
    the automatic one)."""
    cdef size_t old = kv_pool_set_limit(<size_t>-1 if limit is None else <size_t>limit)
    return None if old == <size_t>-1 else old


def buffer_cache_bytes():
    return kv_pool_cached()


cdef class OwnedBuffer:
    """A block filled by a kernel, handed to numpy/Arrow without a copy (read-only buffer protocol)."""
    cdef uint8_t *data
    cdef Py_ssize_t size
    cdef size_t cap
    cdef bint big
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]

    def __dealloc__(self):
        if self.big:
            kv_big_free(self.data, self.cap)
        else:
            free(self.data)

    def __len__(self):
        return self.size

    def __getbuffer__(self, Py_buffer *view, int flags):
        view.buf = <void *>(self.data if self.data != NULL else <uint8_t *>&self.shape[0])
        view.obj = self
        view.len = self.size
        view.readonly = 1
        view.itemsize = 1
        view.format = "B"
        view.ndim = 1
        self.shape[0] = self.size
        self.strides[0] = 1
        view.shape = self.shape
        view.strides = self.strides
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer *view):
        pass


cdef extern from "<unistd.h>" nogil:
    ssize_t c_pread "pread"(int fd, void *buf, size_t count, int64_t offset)

cdef extern from "<errno.h>" nogil:
    int errno
    int EINTR


def pread_owned(int fd, Py_ssize_t size, int64_t offset):
    """``os.pread`` into pooled memory (huge pages where the OS gives them, reused once freed).

    A fresh ``bytes`` of several MiB is a fresh mapping: every read page-faults it in, and a pass that
    reads a whole log (the cleaner) ran at a third of the speed of reading into reused memory. Returns a
    read-only buffer of the bytes read (fewer than ``size`` at the end of the file)."""
    cdef OwnedBuffer out = OwnedBuffer.__new__(OwnedBuffer)
    cdef size_t cap = 0
    cdef ssize_t got = 0
    cdef Py_ssize_t done = 0
    cdef int err = 0
    if size <= 0:
        return out
    if <size_t>size >= KV_BIG_BYTES:
        out.data = <uint8_t *>kv_big_alloc(<size_t>size, &cap, 0)
        out.big = True
    else:
        out.data = <uint8_t *>malloc(<size_t>size)
        cap = <size_t>size
    if out.data == NULL:
        raise MemoryError(f"kvlog: cannot allocate {size} bytes for a read")
    out.cap = cap
    with nogil:
        while done < size:
            got = c_pread(fd, out.data + done, <size_t>(size - done), offset + done)
            if got < 0:
                if errno == EINTR:
                    continue
                err = errno
                break
            if got == 0:
                break
            done += got
    if err:
        raise OSError(err, os.strerror(err))
    out.size = done
    return out


cdef struct GrowBuf:
    uint8_t *data
    size_t len
    size_t cap
    bint big        # a mapping from kvlog_mem.h, else malloc
    bint zero       # growth must be zero-filled (validity bitmaps)


cdef int gb_grow(GrowBuf *g, size_t need) noexcept nogil:
    cdef size_t cap = g.cap * 2 if g.cap else 4096
    cdef size_t got = 0
    cdef uint8_t *d
    if cap < need:
        cap = need
    if cap >= KV_BIG_BYTES:
        if g.big:
            d = <uint8_t *>kv_big_realloc(g.data, g.cap, g.len, cap, &got, g.zero)
        else:
            d = <uint8_t *>kv_big_alloc(cap, &got, 0)
            if d != NULL:
                if g.len:
                    memcpy(d, g.data, g.len)
                if g.zero:
                    memset(d + g.len, 0, got - g.len)
                free(g.data)
        if d == NULL:
            return -1
        g.big = True
        cap = got
    else:
        d = <uint8_t *>realloc(g.data, cap)
        if d == NULL:
            return -1
        if g.zero:
            memset(d + g.cap, 0, cap - g.cap)
    g.data = d
    g.cap = cap
    return 0


cdef inline int gb_reserve(GrowBuf *g, size_t extra) noexcept nogil:
    if g.len + extra <= g.cap:
        return 0
    return gb_grow(g, g.len + extra)


cdef inline int gb_append(GrowBuf *g, const uint8_t *src, size_t n) noexcept nogil:
    if g.len + n > g.cap:
        if gb_grow(g, g.len + n) < 0:
            return -1
    if n:  # (g.data may still be NULL: no pointer arithmetic on it)
        kv_copy(g.data + g.len, src, n)
    g.len += n
    return 0


cdef OwnedBuffer gb_take(GrowBuf *g):
    cdef OwnedBuffer out = OwnedBuffer.__new__(OwnedBuffer)
    out.data = g.data
    out.size = <Py_ssize_t>g.len
    out.cap = g.cap
    out.big = g.big
    g.data = NULL
    g.len = 0
    g.cap = 0
    g.big = False
    g.zero = False
    return out


cdef inline void gb_free(GrowBuf *g) noexcept nogil:
    if g.big:
        kv_big_free(g.data, g.cap)
    else:
        free(g.data)
    g.data = NULL
    g.len = 0
    g.cap = 0
    g.big = False


cdef inline void bit_set(GrowBuf *g, int64_t i) noexcept nogil:
    g.data[i >> 3] |= <uint8_t>(1 << (i & 7))


# ---------------------------------------------------------------------------------------------------
# framing
# ---------------------------------------------------------------------------------------------------

cdef int scan_kernel(const uint8_t *buf, int64_t *ppos, int64_t end, BatchInfo *out, int64_t cap,
                     int64_t *count, bint with_crc, bint stop_on_crc, Err *e) noexcept nogil:
    cdef int64_t n = 0
    cdef int rc
    while n < cap:
        rc = parse_header(buf, ppos[0], end, &out[n], with_crc, e)
        if rc != ST_OK:
            count[0] = n
            return rc
        if stop_on_crc and out[n].crc_valid == 0:
            snprintf(e.msg, sizeof(e.msg), "CRC mismatch: stored %u, computed over the batch differs",
                     <unsigned>out[n].crc)
            count[0] = n
            return fail(e, ppos[0], &out[n])
        ppos[0] += out[n].size
        n += 1
    count[0] = n
    return ST_FULL


def scan(obj, int64_t start, int64_t end, out, bint with_crc=True, bint stop_on_crc=False):
    """Fill ``out`` (a BATCH_DTYPE array) with batch headers from ``obj[start:end]``.

    Returns ``(count, next_position, status, error)`` where ``status`` is END, PARTIAL or FULL (``out``
    ran out of room) and ``error`` is None or the exception the caller should raise once it has used
    the ``count`` good headers before the problem.
    """
    cdef _Pinned pin = _Pinned(obj)
    cdef uint8_t[::1] raw = out.view(np.uint8)
    cdef BatchInfo *dst = <BatchInfo *>&raw[0] if raw.shape[0] else NULL
    cdef int64_t cap = raw.shape[0] // sizeof(BatchInfo)
    cdef int64_t pos = start, count = 0
    cdef const uint8_t *buf = <const uint8_t *>pin.view.buf
    cdef Err e
    cdef int rc
    if end > pin.view.len or start < 0 or start > end:
        raise ValueError(f"scan range {start}..{end} outside a buffer of {pin.view.len} bytes")
    if cap == 0:
        return 0, pos, ST_FULL, None
    if end - start > GIL_THRESHOLD:
        with nogil:
            rc = scan_kernel(buf, &pos, end, dst, cap, &count, with_crc, stop_on_crc, &e)
    else:
        rc = scan_kernel(buf, &pos, end, dst, cap, &count, with_crc, stop_on_crc, &e)
    pin.release()
    if rc < 0:
        try:
            _raise(rc, &e)
        except Exception as exc:
            return count, pos, rc, exc
    return count, pos, rc, None


# ---------------------------------------------------------------------------------------------------
# decode into columns
# ---------------------------------------------------------------------------------------------------

cdef struct Columns:
    int64_t n
    int64_t nh
    bint headers
    bint values     # copy value bytes (False: validity only; the cleaner's map pass needs keys alone)
    bint bad_utf8
    GrowBuf offsets       # int64 per record
    GrowBuf timestamps    # int64 ms per record
    GrowBuf ts_types      # int32 per record
    GrowBuf key_offsets   # int32, n + 1
    GrowBuf key_valid     # bitmap
    GrowBuf key_data
    GrowBuf val_offsets
    GrowBuf val_valid
    GrowBuf val_data
    GrowBuf hdr_offsets   # int32, n + 1: each record's first header
    GrowBuf hkey_offsets  # int32, nh + 1
    GrowBuf hkey_data
    GrowBuf hval_offsets
    GrowBuf hval_valid
    GrowBuf hval_data


cdef struct Mark:
    int64_t n, nh
    size_t key_data, val_data, hkey_data, hval_data


cdef inline void col_mark(Columns *c, Mark *m) noexcept nogil:
    m.n = c.n
    m.nh = c.nh
    m.key_data = c.key_data.len
    m.val_data = c.val_data.len
    m.hkey_data = c.hkey_data.len
    m.hval_data = c.hval_data.len


cdef void col_rollback(Columns *c, Mark *m) noexcept nogil:
    """Forget the records appended since ``m`` (a batch that failed half way)."""
    cdef int64_t i
    for i in range(m.n, c.n):
        c.key_valid.data[i >> 3] &= <uint8_t>~(1 << (i & 7))
        c.val_valid.data[i >> 3] &= <uint8_t>~(1 << (i & 7))
    for i in range(m.nh, c.nh):
        c.hval_valid.data[i >> 3] &= <uint8_t>~(1 << (i & 7))
    c.n = m.n
    c.nh = m.nh
    c.offsets.len = <size_t>m.n * 8
    c.timestamps.len = <size_t>m.n * 8
    c.ts_types.len = <size_t>m.n * 4
    c.key_offsets.len = <size_t>(m.n + 1) * 4
    c.val_offsets.len = <size_t>(m.n + 1) * 4
    c.hdr_offsets.len = <size_t>(m.n + 1) * 4
    c.hkey_offsets.len = <size_t>(m.nh + 1) * 4
    c.hval_offsets.len = <size_t>(m.nh + 1) * 4
    c.key_data.len = m.key_data
    c.val_data.len = m.val_data
    c.hkey_data.len = m.hkey_data
    c.hval_data.len = m.hval_data


cdef int col_init(Columns *c, bint headers) noexcept nogil:
    cdef int32_t zero = 0
    memset(c, 0, sizeof(Columns))
    c.headers = headers
    c.values = True
    c.key_valid.zero = True
    c.val_valid.zero = True
    c.hval_valid.zero = True
    if (gb_append(&c.key_offsets, <uint8_t *>&zero, 4) < 0 or gb_append(&c.val_offsets, <uint8_t *>&zero, 4) < 0
            or gb_append(&c.hdr_offsets, <uint8_t *>&zero, 4) < 0
            or gb_append(&c.hkey_offsets, <uint8_t *>&zero, 4) < 0
            or gb_append(&c.hval_offsets, <uint8_t *>&zero, 4) < 0):
        return ST_NOMEM
    return ST_OK


cdef void col_free(Columns *c) noexcept nogil:
    gb_free(&c.offsets)
    gb_free(&c.timestamps)
    gb_free(&c.ts_types)
    gb_free(&c.key_offsets)
    gb_free(&c.key_valid)
    gb_free(&c.key_data)
    gb_free(&c.val_offsets)
    gb_free(&c.val_valid)
    gb_free(&c.val_data)
    gb_free(&c.hdr_offsets)
    gb_free(&c.hkey_offsets)
    gb_free(&c.hkey_data)
    gb_free(&c.hval_offsets)
    gb_free(&c.hval_valid)
    gb_free(&c.hval_data)


cdef int col_reserve(Columns *c, int64_t count) noexcept nogil:
    """Room for ``count`` more records in the fixed-width columns (data columns grow as they go)."""
    cdef size_t k = <size_t>count
    cdef size_t bits = <size_t>((c.n + count + 8) >> 3) + 1
    if (gb_reserve(&c.offsets, k * 8) < 0 or gb_reserve(&c.timestamps, k * 8) < 0
            or gb_reserve(&c.ts_types, k * 4) < 0 or gb_reserve(&c.key_offsets, k * 4) < 0
            or gb_reserve(&c.val_offsets, k * 4) < 0 or gb_reserve(&c.hdr_offsets, k * 4) < 0):
        return ST_NOMEM
    if c.key_valid.cap < bits:
        if gb_reserve(&c.key_valid, bits - c.key_valid.len) < 0:
            return ST_NOMEM
    if c.val_valid.cap < bits:
        if gb_reserve(&c.val_valid, bits - c.val_valid.len) < 0:
            return ST_NOMEM
    return ST_OK


cdef inline bint col_would_overflow(Columns *c, int64_t payload) noexcept nogil:
    """Arrow binary columns use int32 offsets: keep every data column of a chunk under 2 GiB."""
    cdef int64_t limit = INT32_MAX
    return (c.n > 0 and (<int64_t>c.key_data.len + payload > limit or <int64_t>c.val_data.len + payload > limit
            or <int64_t>c.hkey_data.len + payload > limit or <int64_t>c.hval_data.len + payload > limit))


cdef inline void col_push_fixed(Columns *c, int64_t offset, int64_t ts, int32_t ts_type) noexcept nogil:
    cdef int32_t v
    memcpy(c.offsets.data + c.offsets.len, &offset, 8)
    c.offsets.len += 8
    memcpy(c.timestamps.data + c.timestamps.len, &ts, 8)
    c.timestamps.len += 8
    memcpy(c.ts_types.data + c.ts_types.len, &ts_type, 4)
    c.ts_types.len += 4
    v = <int32_t>c.key_data.len
    memcpy(c.key_offsets.data + c.key_offsets.len, &v, 4)
    c.key_offsets.len += 4
    v = <int32_t>c.val_data.len
    memcpy(c.val_offsets.data + c.val_offsets.len, &v, 4)
    c.val_offsets.len += 4
    v = <int32_t>c.nh
    memcpy(c.hdr_offsets.data + c.hdr_offsets.len, &v, 4)
    c.hdr_offsets.len += 4
    c.n += 1


cdef inline int col_push_header(Columns *c, const uint8_t *k, int32_t klen, const uint8_t *v,
                                int32_t vlen) noexcept nogil:
    cdef int32_t off
    if gb_append(&c.hkey_data, k, <size_t>klen) < 0:
        return ST_NOMEM
    if vlen >= 0:
        if gb_append(&c.hval_data, v, <size_t>vlen) < 0:
            return ST_NOMEM
    if gb_reserve(&c.hkey_offsets, 4) < 0 or gb_reserve(&c.hval_offsets, 4) < 0:
        return ST_NOMEM
    if <size_t>((c.nh + 8) >> 3) + 1 > c.hval_valid.cap:
        if gb_reserve(&c.hval_valid, <size_t>((c.nh + 8) >> 3) + 1 - c.hval_valid.len) < 0:
            return ST_NOMEM
    if vlen >= 0:
        bit_set(&c.hval_valid, c.nh)
    if not c.bad_utf8 and not kv_utf8_valid(k, <size_t>klen):
        c.bad_utf8 = True
    off = <int32_t>c.hkey_data.len
    memcpy(c.hkey_offsets.data + c.hkey_offsets.len, &off, 4)
    c.hkey_offsets.len += 4
    off = <int32_t>c.hval_data.len
    memcpy(c.hval_offsets.data + c.hval_offsets.len, &off, 4)
    c.hval_offsets.len += 4
    c.nh += 1
    return ST_OK


cdef int decode_v2_records(Columns *c, const uint8_t *p, const uint8_t *end, const BatchInfo *b,
                           Err *e) noexcept nogil:
    """Decode ``b.record_count`` records from the (uncompressed) records section [p, end)."""
    cdef int32_t count = b.record_count, i, h, length, off_delta, klen, vlen, hcount, hklen, hvlen
    cdef int64_t ts_delta, ts
    cdef const uint8_t *rec_end
    cdef const uint8_t *rec_start
    cdef const uint8_t *hk
    cdef const uint8_t *hv
    cdef bint log_append = (b.attributes & 0x08) != 0
    cdef int32_t ts_type = 1 if log_append else 0
    cdef int rc
    if <int64_t>count * MIN_RECORD_V2 > end - p:
        snprintf(e.msg, sizeof(e.msg), "batch declares %d records, more than %lld bytes can hold",
                 <int>count, <long long>(end - p))
        return fail(e, b.position, b)
    if col_reserve(c, count) < 0:
        return ST_NOMEM
    for i in range(count):
        rec_start = p
        rc = kv_read_varint(&p, end, &length)
        if rc != 0 or length < 0 or length > end - p:
            snprintf(e.msg, sizeof(e.msg), "record %d: bad record length (%d) with %lld bytes left",
                     <int>i, <int>(length if rc == 0 else -1), <long long>(end - p))
            return fail(e, b.position, b)
        rec_end = p + length
        if p >= rec_end:
            snprintf(e.msg, sizeof(e.msg), "record %d: empty record body", <int>i)
            return fail(e, b.position, b)
        p += 1  # attributes, unused
        if kv_read_varlong(&p, rec_end, &ts_delta) != 0:
            snprintf(e.msg, sizeof(e.msg), "record %d: bad timestamp delta varlong", <int>i)
            return fail(e, b.position, b)
        if kv_read_varint(&p, rec_end, &off_delta) != 0:
            snprintf(e.msg, sizeof(e.msg), "record %d: bad offset delta varint", <int>i)
            return fail(e, b.position, b)
        if kv_read_varint(&p, rec_end, &klen) != 0 or klen > rec_end - p:
            snprintf(e.msg, sizeof(e.msg), "record %d: bad key length", <int>i)
            return fail(e, b.position, b)
        if klen >= 0:
            if gb_append(&c.key_data, p, <size_t>klen) < 0:
                return ST_NOMEM
            bit_set(&c.key_valid, c.n)
            p += klen
        if kv_read_varint(&p, rec_end, &vlen) != 0 or vlen > rec_end - p:
            snprintf(e.msg, sizeof(e.msg), "record %d: bad value length", <int>i)
            return fail(e, b.position, b)
        if vlen >= 0:
            if c.values and gb_append(&c.val_data, p, <size_t>vlen) < 0:
                return ST_NOMEM
            bit_set(&c.val_valid, c.n)
            p += vlen
        if kv_read_varint(&p, rec_end, &hcount) != 0 or hcount < 0 or hcount > rec_end - p:
            snprintf(e.msg, sizeof(e.msg), "record %d: invalid number of record headers", <int>i)
            return fail(e, b.position, b)
        for h in range(hcount):
            if kv_read_varint(&p, rec_end, &hklen) != 0 or hklen < 0 or hklen > rec_end - p:
                snprintf(e.msg, sizeof(e.msg), "record %d: header %d: invalid header key size", <int>i, <int>h)
                return fail(e, b.position, b)
            hk = p
            p += hklen
            if kv_read_varint(&p, rec_end, &hvlen) != 0 or hvlen > rec_end - p:
                snprintf(e.msg, sizeof(e.msg), "record %d: header %d: invalid header value size", <int>i, <int>h)
                return fail(e, b.position, b)
            hv = p
            if hvlen > 0:
                p += hvlen
            if c.headers:
                if col_push_header(c, hk, hklen, hv, hvlen) < 0:
                    return ST_NOMEM
        if p != rec_end:
            snprintf(e.msg, sizeof(e.msg), "record %d: declared %d bytes but its fields take %lld",
                     <int>i, <int>length, <long long>(p - rec_start))
            return fail(e, b.position, b)
        if log_append:
            ts = b.max_timestamp
        else:
            ts = <int64_t>(<uint64_t>b.base_timestamp + <uint64_t>ts_delta)
        col_push_fixed(c, <int64_t>(<uint64_t>b.base_offset + <uint64_t><int64_t>off_delta), ts, ts_type)
    if p != end:
        snprintf(e.msg, sizeof(e.msg), "incorrect declared batch size: %lld bytes remain after %d records",
                 <long long>(end - p), <int>count)
        return fail(e, b.position, b)
    return ST_OK


cdef int decode_legacy_message(Columns *c, const uint8_t *entry, const uint8_t *entry_end, int64_t offset,
                               int64_t ts, int32_t ts_type, int64_t position, const BatchInfo *b,
                               Err *e) noexcept nogil:
    """One legacy message (offset, size, crc, magic, attributes, [timestamp], key, value) → a row."""
    cdef int8_t magic = <int8_t>entry[16]
    cdef const uint8_t *p = entry + (18 if magic == 0 else 26)
    cdef int32_t klen, vlen
    if col_reserve(c, 1) < 0:
        return ST_NOMEM
    if entry_end - p < 4:
        snprintf(e.msg, sizeof(e.msg), "legacy message at offset %lld is truncated before its key", <long long>offset)
        return fail(e, position, b)
    klen = kv_load_i32(p)
    p += 4
    if klen >= 0:
        if klen > entry_end - p:
            snprintf(e.msg, sizeof(e.msg), "legacy message at offset %lld: key length %d exceeds the message",
                     <long long>offset, <int>klen)
            return fail(e, position, b)
        if gb_append(&c.key_data, p, <size_t>klen) < 0:
            return ST_NOMEM
        bit_set(&c.key_valid, c.n)
        p += klen
    if entry_end - p < 4:
        snprintf(e.msg, sizeof(e.msg), "legacy message at offset %lld is truncated before its value", <long long>offset)
        return fail(e, position, b)
    vlen = kv_load_i32(p)
    p += 4
    if vlen >= 0:
        if vlen > entry_end - p:
            snprintf(e.msg, sizeof(e.msg), "legacy message at offset %lld: value length %d exceeds the message",
                     <long long>offset, <int>vlen)
            return fail(e, position, b)
        if c.values and gb_append(&c.val_data, p, <size_t>vlen) < 0:
            return ST_NOMEM
        bit_set(&c.val_valid, c.n)
    col_push_fixed(c, offset, ts, ts_type)
    return ST_OK


cdef int decode_legacy_inner(Columns *c, const uint8_t *p, const uint8_t *end, BatchInfo *w,
                             Err *e) noexcept nogil:
    """The decompressed inner message set of a legacy wrapper ``w``.

    v0 inner offsets are absolute; v1 inner offsets are relative, resolved as
    ``wrapper offset - last inner relative offset + inner offset`` (wrapper offset 0 ⇒ base 0).
    A trailing partial inner entry is ignored, as Kafka's reader does.
    """
    cdef const uint8_t *q = p
    cdef int64_t count = 0, last_inner = 0, base = 0, off, ts
    cdef int32_t size, ts_type
    cdef int8_t imagic
    cdef int minimum, rc
    cdef bint log_append = w.magic == 1 and (w.attributes & 0x08) != 0
    while end - q >= LOG_OVERHEAD:
        size = kv_load_i32(q + 8)
        if size < 14:
            snprintf(e.msg, sizeof(e.msg), "inner message %lld: size %d below the minimum (14)",
                     <long long>count, <int>size)
            return fail(e, w.position, w)
        if <int64_t>size > end - q - LOG_OVERHEAD:
            break
        imagic = <int8_t>q[16]
        if imagic != 0 and imagic != 1:
            snprintf(e.msg, sizeof(e.msg), "inner message %lld has magic %d", <long long>count, <int>imagic)
            return fail(e, w.position, w)
        minimum = 14 if imagic == 0 else 22
        if size < minimum:
            snprintf(e.msg, sizeof(e.msg), "inner message %lld: size %d below the v%d minimum (%d)",
                     <long long>count, <int>size, <int>imagic, minimum)
            return fail(e, w.position, w)
        if q[17] & 7:
            snprintf(e.msg, sizeof(e.msg), "inner message %lld is itself compressed", <long long>count)
            return fail(e, w.position, w)
        last_inner = kv_load_i64(q)
        count += 1
        q += LOG_OVERHEAD + size
    if count == 0:
        snprintf(e.msg, sizeof(e.msg), "compressed message set has no inner messages")
        return fail(e, w.position, w)
    if w.magic >= 1:
        if w.last_offset == 0:
            base = 0
        else:
            if last_inner < 0 or last_inner > w.last_offset:  # checked first: the difference could overflow
                snprintf(e.msg, sizeof(e.msg),
                         "wrapper offset %lld is smaller than the last inner relative offset %lld",
                         <long long>w.last_offset, <long long>last_inner)
                return fail(e, w.position, w)
            base = w.last_offset - last_inner
    if col_reserve(c, count) < 0:
        return ST_NOMEM
    q = p
    while count > 0:
        size = kv_load_i32(q + 8)
        imagic = <int8_t>q[16]
        off = kv_load_i64(q)
        if w.magic >= 1:  # inner offsets are not checked (Kafka's reader does not): wrap as Java's long does
            off = <int64_t>(<uint64_t>base + <uint64_t>off)
        if q == p:
            w.base_offset = off
        if log_append:
            ts = w.max_timestamp
            ts_type = 1
        elif imagic >= 1:
            ts = kv_load_i64(q + 18)
            ts_type = ((w.attributes >> 3) & 1) if w.magic >= 1 else ((q[17] >> 3) & 1)
        else:
            ts = -1
            ts_type = -1
        rc = decode_legacy_message(c, q, q + LOG_OVERHEAD + size, off, ts, ts_type, w.position, w, e)
        if rc != ST_OK:
            return rc
        q += LOG_OVERHEAD + size
        count -= 1
    return ST_OK


# A decompressed payload (gzip, legacy wrappers) is decoded without the GIL from this size: a batch of a few
# hundred records takes tens of microseconds, long enough that another thread's Python should run meanwhile.
cdef enum:
    INNER_GIL_THRESHOLD = 4096


cdef class Decoder:
    """Accumulates the records of many batches into columns (one Arrow chunk at a time).

    ``run`` walks uncompressed batches in C and stops at a compressed one (INNER) with its header in
    ``current``; the caller decompresses the payload and hands it to ``inner``, then continues after it.
    With ``limit`` (the decompression budget of one batch, ≥ 0), ``run`` decompresses v2 batches of
    snappy, lz4 and zstd itself, without the GIL (``csrc/codec.c``), and stops at INNER only for gzip,
    legacy wrappers and a batch its decompressor does not accept whole (damage, the budget passed):
    the caller's decompression then raises the documented error or returns the same bytes.
    One decoder is one thread's (it owns its columns, scratch buffer and codec contexts).
    """
    cdef Columns c
    cdef BatchInfo cur
    cdef Err err
    cdef bint with_crc
    cdef bint include_control
    cdef bint headers
    cdef bint values
    cdef int64_t limit
    cdef kv_codec codec

    def __cinit__(self, bint include_headers=True, bint check_crc=True, bint include_control=False,
                  bint include_values=True, int64_t limit=-1):
        self.headers = include_headers
        self.values = include_values
        self.with_crc = check_crc
        self.include_control = include_control
        self.limit = limit
        memset(&self.codec, 0, sizeof(self.codec))
        if col_init(&self.c, include_headers) != ST_OK:
            raise MemoryError()
        self.c.values = include_values

    def __dealloc__(self):
        col_free(&self.c)
        kv_codec_free(&self.codec)

    cdef int _inline(self, const uint8_t *buf, int64_t pos) noexcept nogil:
        """Decompress and decode the v2 batch at ``pos`` here: ST_OK, ST_FULL (finish the chunk, then
        again) or ST_INNER (leave it to the caller's Python path, which reports what is wrong)."""
        cdef int codec = self.cur.attributes & 7
        cdef int64_t n
        cdef Mark m
        cdef int rc
        if self.limit < 0 or self.cur.magic != 2 or codec < 2 or codec > 4 or self.cur.size < V2_HEADER:
            return ST_INNER
        n = kv_decompress(&self.codec, codec, buf + pos + V2_HEADER, <size_t>(self.cur.size - V2_HEADER),
                          <size_t>self.limit)
        if n < 0:
            return ST_INNER
        if col_would_overflow(&self.c, n):
            return ST_FULL if self.c.n > 0 else ST_INNER
        col_mark(&self.c, &m)
        rc = decode_v2_records(&self.c, self.codec.buf, self.codec.buf + n, &self.cur, &self.err)
        if rc != ST_OK:
            col_rollback(&self.c, &m)
            return ST_INNER  # the Python path decodes it again and raises as it always has
        return ST_OK

    @property
    def rows(self):
        return self.c.n

    @property
    def current(self):
        """Header of the batch the last ``run`` stopped at, as a dict (for error messages and INNER)."""
        return <dict>self.cur

    cdef int _run(self, const uint8_t *buf, int64_t *ppos, int64_t end) noexcept nogil:
        cdef int rc
        cdef Mark m
        cdef int64_t pos
        while True:
            pos = ppos[0]
            rc = parse_header(buf, pos, end, &self.cur, self.with_crc, &self.err)
            if rc != ST_OK:
                return rc
            if self.with_crc and self.cur.crc_valid == 0:
                snprintf(self.err.msg, sizeof(self.err.msg),
                         "CRC mismatch in magic v%d batch: stored %u, computed value differs",
                         <int>self.cur.magic, <unsigned>self.cur.crc)
                return fail(&self.err, pos, &self.cur)
            if self.cur.magic == 2 and (self.cur.attributes & 0x20) and not self.include_control:
                ppos[0] = pos + self.cur.size
                continue
            if self.cur.magic == 2 and self.cur.record_count == 0:
                ppos[0] = pos + self.cur.size
                continue
            if self.cur.attributes & 7:
                rc = self._inline(buf, pos)
                if rc != ST_OK:
                    return rc
                ppos[0] = pos + self.cur.size
                continue
            if col_would_overflow(&self.c, self.cur.size):
                return ST_FULL
            col_mark(&self.c, &m)
            if self.cur.magic == 2:
                rc = decode_v2_records(&self.c, buf + pos + V2_HEADER, buf + pos + self.cur.size, &self.cur,
                                       &self.err)
            else:
                rc = decode_legacy_message(
                    &self.c, buf + pos, buf + pos + self.cur.size, self.cur.last_offset, self.cur.max_timestamp,
                    ((self.cur.attributes >> 3) & 1) if self.cur.magic == 1 else -1, pos, &self.cur, &self.err)
            if rc != ST_OK:
                col_rollback(&self.c, &m)
                return rc
            ppos[0] = pos + self.cur.size

    def run(self, obj, int64_t start, int64_t end):
        """Decode from ``start``; returns ``(status, position)`` with status END, PARTIAL, INNER or FULL."""
        cdef _Pinned pin = _Pinned(obj)
        cdef int64_t pos = start
        cdef int rc
        if end > pin.view.len or start < 0 or start > end:
            raise ValueError(f"decode range {start}..{end} outside a buffer of {pin.view.len} bytes")
        # values are most of the bytes of a typical batch: one mapping up front instead of a growth chain
        if end - start > GIL_THRESHOLD and gb_reserve(&self.c.val_data, <size_t>min(end - start, 1 << 30)) < 0:
            raise MemoryError()
        if end - start > GIL_THRESHOLD:
            with nogil:
                rc = self._run(<const uint8_t *>pin.view.buf, &pos, end)
        else:
            rc = self._run(<const uint8_t *>pin.view.buf, &pos, end)
        pin.release()
        if rc < 0:
            _raise(rc, &self.err)
        return rc, pos

    def fits(self, Py_ssize_t payload_len):
        """False when ``payload_len`` more bytes could overflow a column of the current chunk."""
        return not col_would_overflow(&self.c, payload_len)

    def inner(self, payload, int64_t base_position=0):
        """Decode the decompressed payload of the current compressed batch."""
        cdef _Pinned pin = _Pinned(payload)
        cdef const uint8_t *p = <const uint8_t *>pin.view.buf
        cdef Py_ssize_t n = pin.view.len
        cdef Mark m
        cdef int rc
        col_mark(&self.c, &m)
        if n > INNER_GIL_THRESHOLD:
            with nogil:
                if self.cur.magic == 2:
                    rc = decode_v2_records(&self.c, p, p + n, &self.cur, &self.err)
                else:
                    rc = decode_legacy_inner(&self.c, p, p + n, &self.cur, &self.err)
        else:
            if self.cur.magic == 2:
                rc = decode_v2_records(&self.c, p, p + n, &self.cur, &self.err)
            else:
                rc = decode_legacy_inner(&self.c, p, p + n, &self.cur, &self.err)
        pin.release()
        if rc != ST_OK:
            col_rollback(&self.c, &m)
            _raise(rc, &self.err, base_position)

    def finish(self):
        """Hand over the filled columns (as read-only buffers) and start a new, empty chunk."""
        cdef Columns *c = &self.c
        cdef int64_t n = c.n, nh = c.nh
        c.key_valid.len = <size_t>((n + 7) >> 3)
        c.val_valid.len = <size_t>((n + 7) >> 3)
        c.hval_valid.len = <size_t>((nh + 7) >> 3)
        out = {
            "n": n, "nh": nh, "bad_utf8": bool(c.bad_utf8), "headers": bool(c.headers),
            "offsets": gb_take(&c.offsets), "timestamps": gb_take(&c.timestamps), "ts_types": gb_take(&c.ts_types),
            "key_offsets": gb_take(&c.key_offsets), "key_valid": gb_take(&c.key_valid),
            "key_data": gb_take(&c.key_data), "val_offsets": gb_take(&c.val_offsets),
            "val_valid": gb_take(&c.val_valid), "val_data": gb_take(&c.val_data),
            "hdr_offsets": gb_take(&c.hdr_offsets), "hkey_offsets": gb_take(&c.hkey_offsets),
            "hkey_data": gb_take(&c.hkey_data), "hval_offsets": gb_take(&c.hval_offsets),
            "hval_valid": gb_take(&c.hval_valid), "hval_data": gb_take(&c.hval_data),
        }
        col_free(c)
        if col_init(c, self.headers) != ST_OK:
            raise MemoryError()
        c.values = self.values
        return out


# ---------------------------------------------------------------------------------------------------
# encode from columns
# ---------------------------------------------------------------------------------------------------

cdef extern from *:
    """
    /* Rows of a list or tuple that are exact bytes or None, read through borrowed references (no
       reference count written into each object) with the objects' headers prefetched a few rows
       ahead: the items of a Python-built list lie all over the heap, and their cache misses, not
       the filling, set the pace.  Returns the first row that is anything else. */
    #define KV_SEQ_AHEAD 16
    static Py_ssize_t kv_bytes_items(PyObject *seq, const uint8_t **ptr, int64_t *len, Py_ssize_t n)
    {
        PyObject **items = PySequence_Fast_ITEMS(seq);
        Py_ssize_t i;
        for (i = 0; i < n; i++) {
            PyObject *o;
            if (i + KV_SEQ_AHEAD < n)
                __builtin_prefetch((const void *)items[i + KV_SEQ_AHEAD], 0, 3);
            o = items[i];
            if (o == Py_None) {
                ptr[i] = NULL;
                len[i] = -1;
            } else if (PyBytes_CheckExact(o)) {
                ptr[i] = (const uint8_t *)PyBytes_AS_STRING(o);
                len[i] = PyBytes_GET_SIZE(o);
            } else {
                return i;
            }
        }
        return n;
    }

    /* The sequence a column reads its rows from: on a free-threaded build a list, which another thread
       may change meanwhile, is read as a tuple snapshot (PyList_AsTuple copies under the list's lock);
       the column keeps it, so the bytes its rows point into live as long as the column. */
    static PyObject *kv_stable_seq(PyObject *seq)
    {
    #ifdef Py_GIL_DISABLED
        if (PyList_CheckExact(seq))
            return PyList_AsTuple(seq);
    #endif
        Py_INCREF(seq);
        return seq;
    }

    /* The same for a list of exact ints in the int64 range (timestamps); returns the first row that
       is not one (on a free-threaded build under the list's lock, and never past its current end). */
    static Py_ssize_t kv_int64_items_locked(PyObject *seq, int64_t *out, Py_ssize_t n);
    static Py_ssize_t kv_int64_items(PyObject *seq, int64_t *out, Py_ssize_t n)
    {
    #ifdef Py_GIL_DISABLED
        Py_ssize_t r;
        Py_BEGIN_CRITICAL_SECTION(seq);
        r = kv_int64_items_locked(seq, out, n < PyList_GET_SIZE(seq) ? n : PyList_GET_SIZE(seq));
        Py_END_CRITICAL_SECTION();
        return r;
    #else
        return kv_int64_items_locked(seq, out, n);
    #endif
    }

    static Py_ssize_t kv_int64_items_locked(PyObject *seq, int64_t *out, Py_ssize_t n)
    {
        PyObject **items = PySequence_Fast_ITEMS(seq);
        Py_ssize_t i;
        for (i = 0; i < n; i++) {
            PyObject *o;
            int overflow;
            long long v;
            if (i + KV_SEQ_AHEAD < n)
                __builtin_prefetch((const void *)items[i + KV_SEQ_AHEAD], 0, 3);
            o = items[i];
            if (!PyLong_CheckExact(o))
                return i;
            v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                return i;
            }
            out[i] = (int64_t)v;
        }
        return n;
    }
    """
    Py_ssize_t kv_bytes_items(object seq, const uint8_t **ptr, int64_t *len, Py_ssize_t n)
    Py_ssize_t kv_int64_items(object seq, int64_t *out, Py_ssize_t n)
    object kv_stable_seq(object seq)


cdef class Column:
    """Pointer + length per row over caller-owned bytes (length -1 = null); keeps its sources alive."""
    cdef const uint8_t **ptr
    cdef int64_t *len
    cdef Py_ssize_t n
    cdef list keep
    cdef size_t ptr_cap     # > 0: the arrays are pooled mappings (kvlog_mem.h) of these sizes
    cdef size_t len_cap

    def __dealloc__(self):
        if self.ptr_cap:
            kv_big_free(<void *>self.ptr, self.ptr_cap)
        else:
            free(self.ptr)
        if self.len_cap:
            kv_big_free(self.len, self.len_cap)
        else:
            free(self.len)

    def __len__(self):
        return self.n

    cdef int _alloc(self, Py_ssize_t n) except -1:
        # large columns take pooled memory: fresh pages fault at several µs each on a VM, more than
        # filling them costs (200,000 rows: 3 MiB of pointers and lengths)
        cdef size_t bytes_ = <size_t>max(n, 1) * 8
        self.n = n
        if bytes_ >= KV_BIG_BYTES:
            self.ptr = <const uint8_t **>kv_big_alloc(bytes_, &self.ptr_cap, 0)
            self.len = <int64_t *>kv_big_alloc(bytes_, &self.len_cap, 0)
        else:
            self.ptr = <const uint8_t **>malloc(bytes_)
            self.len = <int64_t *>malloc(bytes_)
        if self.ptr == NULL or self.len == NULL:
            raise MemoryError()
        self.keep = []
        return 0

    @staticmethod
    def from_sequence(seq, str what="value"):
        """bytes / bytearray / str (UTF-8) / any bytes-like / None per item."""
        cdef Column col = Column.__new__(Column)
        cdef Py_ssize_t i, start = 0, n
        cdef object item
        seq = kv_stable_seq(seq)
        n = len(seq)
        col._alloc(n)
        if type(seq) is list or type(seq) is tuple:
            start = kv_bytes_items(seq, col.ptr, col.len, n)
        for i in range(start, n):
            item = seq[i]
            if item is None:
                col.ptr[i] = NULL
                col.len[i] = -1
                continue
            if PyBytes_CheckExact(item):
                col.ptr[i] = <const uint8_t *>PyBytes_AS_STRING(item)
                col.len[i] = PyBytes_GET_SIZE(item)
                continue
            if isinstance(item, str):
                item = (<str>item).encode("utf-8")
            elif PyByteArray_CheckExact(item):
                item = bytes(item)
            else:
                try:
                    item = bytes(memoryview(item))
                except TypeError:
                    raise TypeError(
                        f"{what} {i}: expected bytes-like, str or None, got {type(item).__name__}") from None
            col.keep.append(item)
            col.ptr[i] = <const uint8_t *>PyBytes_AS_STRING(item)
            col.len[i] = PyBytes_GET_SIZE(item)
        col.keep.append(seq)
        return col

    @staticmethod
    def from_rows(data, const int64_t[::1] offsets, const uint8_t[::1] valid, const int64_t[::1] rows):
        """Rows ``rows`` of an Arrow-style column (``data``, ``offsets``, ``valid`` as in
        :meth:`from_buffers`), in that order: a gather that copies no bytes."""
        return _gather(data, offsets, valid, &rows[0] if rows.shape[0] else NULL, rows.shape[0])

    @staticmethod
    def from_buffers(data, const int64_t[::1] offsets, const uint8_t[::1] valid=None):
        """Arrow-style columns: ``data[offsets[i]:offsets[i+1]]``, null where ``valid[i] == 0``."""
        return _gather(data, offsets, valid, NULL, offsets.shape[0] - 1)

    @staticmethod
    def nulls(Py_ssize_t n):
        cdef Column col = Column.__new__(Column)
        cdef Py_ssize_t i
        col._alloc(n)
        for i in range(n):
            col.ptr[i] = NULL
            col.len[i] = -1
        return col


cdef Column _gather(data, const int64_t[::1] offsets, const uint8_t[::1] valid, const int64_t *rows,
                    Py_ssize_t n):
    """A column of ``n`` rows of an Arrow-style column: row ``rows[i]`` (``i`` itself where ``rows`` is
    NULL) as a pointer into ``data``, every offset checked against the data; no bytes copied."""
    cdef Column col = Column.__new__(Column)
    cdef Py_ssize_t i, r, m = offsets.shape[0] - 1
    cdef _Pinned pin = _Pinned(data)
    cdef const uint8_t *base = <const uint8_t *>pin.view.buf
    cdef int64_t size = pin.view.len
    if m < 0:
        raise ValueError("offsets must have at least one entry")
    if valid is not None and valid.shape[0] < m:
        raise ValueError("validity shorter than the column")
    col._alloc(n)
    for i in range(n):
        r = rows[i] if rows != NULL else i
        if r < 0 or r >= m:
            raise ValueError(f"row {r} outside a column of {m} rows")
        if offsets[r] < 0 or offsets[r + 1] < offsets[r] or offsets[r + 1] > size:
            raise ValueError(f"row {r}: offsets {offsets[r]}..{offsets[r + 1]} outside {size} data bytes")
        if valid is not None and not valid[r]:
            col.ptr[i] = NULL
            col.len[i] = -1
        else:
            col.ptr[i] = base + offsets[r]
            col.len[i] = offsets[r + 1] - offsets[r]
    col.keep.append(pin)
    col.keep.append(data)
    return col


cdef struct EncIn:
    const uint8_t **kp
    const int64_t *kl
    const uint8_t **vp
    const int64_t *vl
    const int64_t *ts
    const int64_t *offs       # NULL: consecutive from base_offset
    const int64_t *hoff       # NULL: no headers; else n + 1 entries into the header columns
    const uint8_t **hkp
    const int64_t *hkl
    const uint8_t **hvp
    const int64_t *hvl
    int64_t base_offset


cdef inline int64_t rec_offset(const EncIn *x, int64_t i) noexcept nogil:
    return x.offs[i] if x.offs != NULL else x.base_offset + i


cdef inline int64_t v2_body_size(const EncIn *x, int64_t i, int64_t ts_delta, int32_t off_delta) noexcept nogil:
    cdef int64_t s = 1 + kv_varlong_size(ts_delta) + kv_varint_size(off_delta)
    cdef int64_t h, k, v, nh
    k = x.kl[i]
    v = x.vl[i]
    s += kv_varint_size(<int32_t>k if k >= 0 else -1) + (k if k > 0 else 0)
    s += kv_varint_size(<int32_t>v if v >= 0 else -1) + (v if v > 0 else 0)
    if x.hoff != NULL:
        nh = x.hoff[i + 1] - x.hoff[i]
        s += kv_varint_size(<int32_t>nh)
        for h in range(x.hoff[i], x.hoff[i + 1]):
            s += kv_varint_size(<int32_t>x.hkl[h]) + x.hkl[h]
            v = x.hvl[h]
            s += kv_varint_size(<int32_t>v if v >= 0 else -1) + (v if v > 0 else 0)
    else:
        s += 1
    return s


cdef inline uint8_t *v2_write_record(uint8_t *p, const EncIn *x, int64_t i, int64_t ts_delta, int32_t off_delta,
                                     int64_t body) noexcept nogil:
    cdef int64_t h, k, v
    p = kv_write_varint(p, <int32_t>body)
    p[0] = 0
    p += 1
    p = kv_write_varlong(p, ts_delta)
    p = kv_write_varint(p, off_delta)
    k = x.kl[i]
    if k < 0:
        p = kv_write_varint(p, -1)
    else:
        p = kv_write_varint(p, <int32_t>k)
        kv_copy(p, x.kp[i], <size_t>k)
        p += k
    v = x.vl[i]
    if v < 0:
        p = kv_write_varint(p, -1)
    else:
        p = kv_write_varint(p, <int32_t>v)
        kv_copy(p, x.vp[i], <size_t>v)
        p += v
    if x.hoff == NULL:
        p = kv_write_varint(p, 0)
        return p
    p = kv_write_varint(p, <int32_t>(x.hoff[i + 1] - x.hoff[i]))
    for h in range(x.hoff[i], x.hoff[i + 1]):
        p = kv_write_varint(p, <int32_t>x.hkl[h])
        kv_copy(p, x.hkp[h], <size_t>x.hkl[h])
        p += x.hkl[h]
        v = x.hvl[h]
        if v < 0:
            p = kv_write_varint(p, -1)
        else:
            p = kv_write_varint(p, <int32_t>v)
            kv_copy(p, x.hvp[h], <size_t>v)
            p += v
    return p


cdef inline int32_t next_sequence(int32_t seq, int64_t increment) noexcept nogil:
    """Kafka's DefaultRecordBatch.incrementSequence: wraps past Integer.MAX_VALUE to 0."""
    cdef int64_t s = <int64_t>seq + increment
    if seq < 0:
        return seq
    return <int32_t>(s % (<int64_t>INT32_MAX + 1))


cdef EncIn _enc_in(Column keys, Column values, const int64_t[::1] timestamps, const int64_t[::1] offsets,
                   Column hkeys, Column hvals, const int64_t[::1] hoff, int64_t base_offset) except *:
    cdef EncIn x
    cdef Py_ssize_t n = keys.n
    if values.n != n or timestamps.shape[0] != n:
        raise ValueError(f"column lengths differ: keys {n}, values {values.n}, timestamps {timestamps.shape[0]}")
    x.kp = keys.ptr
    x.kl = keys.len
    x.vp = values.ptr
    x.vl = values.len
    x.ts = &timestamps[0] if n else NULL
    x.offs = NULL
    if offsets is not None:
        if offsets.shape[0] != n:
            raise ValueError("offsets column length differs from keys")
        x.offs = &offsets[0] if n else NULL
    x.hoff = NULL
    x.hkp = NULL
    x.hkl = NULL
    x.hvp = NULL
    x.hvl = NULL
    if hoff is not None:
        if hoff.shape[0] != n + 1 or hkeys is None or hvals is None or hkeys.n != hvals.n:
            raise ValueError("header columns are inconsistent")
        if hoff[0] != 0 or hoff[n] != hkeys.n:
            raise ValueError("header offsets must run from 0 to the number of headers")
        for i in range(n):
            if hoff[i + 1] < hoff[i]:
                raise ValueError("header offsets must not decrease")
        for i in range(hkeys.n):
            if hkeys.len[i] < 0:
                raise ValueError(f"header {i} has a null key; Kafka header keys may not be null")
        x.hoff = &hoff[0]
        x.hkp = hkeys.ptr
        x.hkl = hkeys.len
        x.hvp = hvals.ptr
        x.hvl = hvals.len
    x.base_offset = base_offset
    return x


def encode_v2(Column keys, Column values, const int64_t[::1] timestamps, const int64_t[::1] offsets,
              Column hkeys, Column hvals, const int64_t[::1] hoff, *, int64_t base_offset, int compression,
              int timestamp_type, int64_t log_append_time, int64_t producer_id, int producer_epoch,
              int32_t base_sequence, int32_t partition_leader_epoch, bint is_transactional, bint is_control,
              int64_t records_per_batch, int64_t max_batch_bytes, compress,
              const int64_t[::1] batch_ends=None, const int64_t[::1] batch_last_offsets=None,
              const int64_t[::1] batch_horizons=None, const int64_t[::1] batch_base_offsets=None):
    """Encode the rows as consecutive v2 batches; ``compress(bytes) -> bytes`` when ``compression``.

    The cleaner rebuilds many batches in one call: ``batch_ends`` gives each batch's end row (instead
    of the count/size rule), ``batch_base_offsets``/``batch_last_offsets`` keep each original batch's
    offset span (Kafka's cleaner keeps both, so producer sequence numbers stay valid even when the
    first or last records were removed), and ``batch_horizons`` (-1 = none) sets KIP-534's delete
    horizon as the base timestamp, with attribute bit 6.
    """
    cdef EncIn x = _enc_in(keys, values, timestamps, offsets, hkeys, hvals, hoff, base_offset)
    cdef int64_t nb = 0, bi = 0, horizon
    cdef int16_t battrs
    cdef int64_t n = keys.n, i = 0, j, first_ts, max_ts, body, rec_size, batch_bytes, total, lod, off0
    cdef int64_t k
    cdef int16_t attrs = <int16_t>((compression & 7) | ((timestamp_type == 1) << 3)
                                   | (is_transactional << 4) | (is_control << 5))
    cdef int32_t seq = base_sequence
    cdef uint8_t *w = NULL
    cdef uint8_t *pw = NULL
    cdef Py_ssize_t plen
    cdef bytes out, payload
    cdef list parts = []
    cdef list plan = []
    if records_per_batch < 1 or records_per_batch > INT32_MAX:
        raise ValueError("records_per_batch must be between 1 and 2147483647")
    if batch_ends is not None:
        nb = batch_ends.shape[0]
        if (batch_last_offsets is not None and batch_last_offsets.shape[0] != nb) or \
                (batch_horizons is not None and batch_horizons.shape[0] != nb) or \
                (batch_base_offsets is not None and batch_base_offsets.shape[0] != nb):
            raise ValueError("per-batch columns differ in length")
        if nb and batch_ends[nb - 1] != n:
            raise ValueError("batch_ends must end at the number of rows")
        for bi in range(nb):
            j = batch_ends[bi]
            if j <= i or j > n:
                raise ValueError("batch_ends must increase and every batch must have a row")
            first_ts = x.ts[i] if batch_horizons is None or batch_horizons[bi] < 0 else batch_horizons[bi]
            off0 = rec_offset(&x, i) if batch_base_offsets is None else batch_base_offsets[bi]
            batch_bytes = V2_HEADER
            for k in range(i, j):
                if rec_offset(&x, k) - off0 > INT32_MAX or rec_offset(&x, k) < off0:
                    raise ValueError(f"row {k}: offsets must increase within a batch")
                body = v2_body_size(&x, k, <int64_t>(<uint64_t>x.ts[k] - <uint64_t>first_ts),
                                    <int32_t>(rec_offset(&x, k) - off0))
                batch_bytes += kv_varint_size(<int32_t>body) + body
            plan.append((i, j, batch_bytes))
            i = j
    # plan the batches: [first, end) rows and the uncompressed size of each
    while i < n and batch_ends is None:
        first_ts = x.ts[i]
        off0 = rec_offset(&x, i)
        batch_bytes = V2_HEADER
        j = i
        while j < n and j - i < records_per_batch:
            if rec_offset(&x, j) - off0 > INT32_MAX or rec_offset(&x, j) < off0:
                if j == i:
                    raise ValueError(f"row {j}: offsets must increase within a batch")
                break
            body = v2_body_size(&x, j, <int64_t>(<uint64_t>x.ts[j] - <uint64_t>first_ts),
                                <int32_t>(rec_offset(&x, j) - off0))
            if body > INT32_MAX - 16:
                raise RecordTooLargeError(f"row {j}: a record of {body} bytes cannot be encoded")
            rec_size = kv_varint_size(<int32_t>body) + body
            if j > i and batch_bytes + rec_size > max_batch_bytes:
                break
            batch_bytes += rec_size
            j += 1
        if batch_bytes > INT32_MAX:
            raise RecordTooLargeError(f"a batch of {batch_bytes} bytes cannot be encoded")
        plan.append((i, j, batch_bytes))
        i = j
    total = 0
    for (i, j, batch_bytes) in plan:  # no-cython-lint (unpacking a plan tuple)
        total += batch_bytes
    if compression == 0:
        out = PyBytes_FromStringAndSize(NULL, total)
        w = <uint8_t *>PyBytes_AS_STRING(out)
        kv_advise_huge(w, <size_t>total)
    for bi, (i, j, batch_bytes) in enumerate(plan):
        horizon = -1 if batch_horizons is None else batch_horizons[bi]
        first_ts = x.ts[i] if horizon < 0 else horizon
        battrs = attrs | (0x40 if horizon >= 0 else 0)
        off0 = rec_offset(&x, i) if batch_base_offsets is None else batch_base_offsets[bi]
        lod = rec_offset(&x, j - 1) - off0
        if batch_last_offsets is not None:
            if batch_last_offsets[bi] < rec_offset(&x, j - 1) or batch_last_offsets[bi] - off0 > INT32_MAX:
                raise ValueError(f"batch {bi}: last offset {batch_last_offsets[bi]} does not cover its rows")
            lod = batch_last_offsets[bi] - off0
        if timestamp_type == 1:
            max_ts = log_append_time
        else:
            max_ts = x.ts[i]
            for k in range(i, j):
                if x.ts[k] > max_ts:
                    max_ts = x.ts[k]
        # the records and the batch CRC without the GIL (other threads' Python runs meanwhile); only the
        # codec call and the bookkeeping between batches hold it
        if compression == 0:
            if batch_bytes > INNER_GIL_THRESHOLD:
                with nogil:
                    _write_v2_records(w + V2_HEADER, &x, i, j, first_ts, off0)
                    v2_write_header(w, batch_bytes, off0, partition_leader_epoch, battrs, <int32_t>lod, first_ts,
                                    max_ts, producer_id, <int16_t>producer_epoch, seq, <int32_t>(j - i))
            else:
                _write_v2_records(w + V2_HEADER, &x, i, j, first_ts, off0)
                v2_write_header(w, batch_bytes, off0, partition_leader_epoch, battrs, <int32_t>lod, first_ts,
                                max_ts, producer_id, <int16_t>producer_epoch, seq, <int32_t>(j - i))
            w += batch_bytes
        else:
            payload = PyBytes_FromStringAndSize(NULL, batch_bytes - V2_HEADER)
            pw = <uint8_t *>PyBytes_AS_STRING(payload)
            if batch_bytes > INNER_GIL_THRESHOLD:
                with nogil:
                    _write_v2_records(pw, &x, i, j, first_ts, off0)
            else:
                _write_v2_records(pw, &x, i, j, first_ts, off0)
            payload = compress(payload)
            plen = PyBytes_GET_SIZE(payload)
            part = PyBytes_FromStringAndSize(NULL, V2_HEADER + plen)
            w = <uint8_t *>PyBytes_AS_STRING(part)
            pw = <uint8_t *>PyBytes_AS_STRING(payload)
            if plen > INNER_GIL_THRESHOLD:
                with nogil:
                    memcpy(w + V2_HEADER, pw, plen)
                    v2_write_header(w, V2_HEADER + plen, off0, partition_leader_epoch, battrs, <int32_t>lod,
                                    first_ts, max_ts, producer_id, <int16_t>producer_epoch, seq, <int32_t>(j - i))
            else:
                memcpy(w + V2_HEADER, pw, plen)
                v2_write_header(w, V2_HEADER + plen, off0, partition_leader_epoch, battrs, <int32_t>lod,
                                first_ts, max_ts, producer_id, <int16_t>producer_epoch, seq, <int32_t>(j - i))
            parts.append(part)
        seq = next_sequence(seq, j - i)
    if compression == 0:
        return out
    return b"".join(parts)


cdef extern from *:
    """
    #define KV_REC_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 0)
    """
    void KV_REC_PREFETCH(const void *p) noexcept nogil


cdef enum:
    COPY_AHEAD = 16      # rows ahead whose key and value bytes are prefetched while encoding


cdef inline void prefetch_row(const EncIn *x, int64_t k) noexcept nogil:
    """Values from Python lists are separate objects spread over the heap: fetch the bytes of a row a
    few rows before they are copied."""
    cdef int64_t v = x.vl[k]
    if x.kl[k] > 0:
        KV_REC_PREFETCH(x.kp[k])
    if v > 0:
        KV_REC_PREFETCH(x.vp[k])
        if v > 64:
            KV_REC_PREFETCH(x.vp[k] + 64)
            if v > 128:
                KV_REC_PREFETCH(x.vp[k] + 128)


cdef void _write_v2_records(uint8_t *w, const EncIn *x, int64_t i, int64_t j, int64_t first_ts,
                            int64_t off0) noexcept nogil:
    cdef int64_t k, tsd, body
    cdef int32_t offd
    for k in range(i, j):
        if k + COPY_AHEAD < j:
            prefetch_row(x, k + COPY_AHEAD)
        tsd = <int64_t>(<uint64_t>x.ts[k] - <uint64_t>first_ts)
        offd = <int32_t>(rec_offset(x, k) - off0)
        body = v2_body_size(x, k, tsd, offd)
        w = v2_write_record(w, x, k, tsd, offd, body)


def encode_v2_empty(*, int64_t base_offset, int32_t last_offset_delta, int64_t base_timestamp,
                    int64_t max_timestamp, int64_t producer_id, int producer_epoch, int32_t base_sequence,
                    int32_t partition_leader_epoch, int attributes):
    """A v2 batch with no records (the cleaner keeps these for producer state and the log end offset)."""
    cdef bytes out = PyBytes_FromStringAndSize(NULL, V2_HEADER)
    v2_write_header(<uint8_t *>PyBytes_AS_STRING(out), V2_HEADER, base_offset, partition_leader_epoch,
                    <int16_t>attributes, last_offset_delta, base_timestamp, max_timestamp, producer_id,
                    <int16_t>producer_epoch, base_sequence, 0)
    return out


cdef inline int64_t legacy_size(const EncIn *x, int64_t i, int magic) noexcept nogil:
    cdef int64_t k = x.kl[i], v = x.vl[i]
    return LOG_OVERHEAD + (14 if magic == 0 else 22) + (k if k > 0 else 0) + (v if v > 0 else 0)


cdef uint8_t *legacy_write(uint8_t *p, int magic, int attrs, int64_t offset, int64_t ts,
                           const uint8_t *k, int64_t klen, const uint8_t *v, int64_t vlen) noexcept nogil:
    cdef uint8_t *start = p
    cdef int64_t size = (14 if magic == 0 else 22) + (klen if klen > 0 else 0) + (vlen if vlen > 0 else 0)
    kv_store_be64(p, <uint64_t>offset)
    kv_store_be32(p + 8, <uint32_t>size)
    p[16] = <uint8_t>magic
    p[17] = <uint8_t>attrs
    p += 18
    if magic == 1:
        kv_store_be64(p, <uint64_t>ts)
        p += 8
    kv_store_be32(p, <uint32_t>(<int32_t>klen if klen >= 0 else -1))
    p += 4
    if klen > 0:
        memcpy(p, k, <size_t>klen)
        p += klen
    kv_store_be32(p, <uint32_t>(<int32_t>vlen if vlen >= 0 else -1))
    p += 4
    if vlen > 0:
        memcpy(p, v, <size_t>vlen)
        p += vlen
    kv_store_be32(start + 12, kvlog_crc32(0, start + 16, <size_t>(size - 4)))
    return p


def encode_legacy(int magic, Column keys, Column values, const int64_t[::1] timestamps,
                  const int64_t[::1] offsets, *, int64_t base_offset, int compression, int timestamp_type,
                  int64_t log_append_time, int64_t records_per_batch, int64_t max_batch_bytes, compress):
    """Magic v0/v1 message sets: one entry per record, or compressed wrappers of inner message sets."""
    cdef EncIn x = _enc_in(keys, values, timestamps, offsets, None, None, None, base_offset)
    cdef int64_t n = keys.n, i, j, k, total = 0, size, ts, max_ts, wrapper_size, inner_bytes, off0
    cdef int inner_attrs = 0
    cdef bint lat = magic == 1 and timestamp_type == 1
    cdef uint8_t *w
    cdef bytes out, inner, payload
    cdef list parts = []
    if magic not in (0, 1):
        raise ValueError("encode_legacy handles magic 0 and 1")
    if lat:
        inner_attrs = 0x08
    for i in range(n):
        if x.kl[i] > INT32_MAX - 64 or x.vl[i] > INT32_MAX - 64:
            raise RecordTooLargeError(f"row {i}: a key or value too large for a legacy message")
        if x.offs != NULL and i > 0 and x.offs[i] <= x.offs[i - 1]:
            raise ValueError(f"row {i}: offsets must increase")
    if compression == 0:
        for i in range(n):
            total += legacy_size(&x, i, magic)
        out = PyBytes_FromStringAndSize(NULL, total)
        w = <uint8_t *>PyBytes_AS_STRING(out)
        for i in range(n):
            ts = log_append_time if lat else (x.ts[i] if magic == 1 else -1)
            w = legacy_write(w, magic, inner_attrs, rec_offset(&x, i), ts, x.kp[i], x.kl[i], x.vp[i], x.vl[i])
        return out
    if records_per_batch < 1:
        raise ValueError("records_per_batch must be at least 1")
    i = 0
    while i < n:
        inner_bytes = 0
        j = i
        while j < n and j - i < records_per_batch:
            size = legacy_size(&x, j, magic)
            if j > i and inner_bytes + size > max_batch_bytes:
                break
            inner_bytes += size
            j += 1
        if inner_bytes > INT32_MAX - 64:
            raise RecordTooLargeError(f"a legacy message set of {inner_bytes} bytes cannot be encoded")
        inner = PyBytes_FromStringAndSize(NULL, inner_bytes)
        w = <uint8_t *>PyBytes_AS_STRING(inner)
        off0 = rec_offset(&x, i)
        max_ts = -1
        for k in range(i, j):
            ts = log_append_time if lat else (x.ts[k] if magic == 1 else -1)
            if ts > max_ts:
                max_ts = ts
            w = legacy_write(w, magic, inner_attrs, (rec_offset(&x, k) - off0) if magic == 1 else rec_offset(&x, k),
                             ts, x.kp[k], x.kl[k], x.vp[k], x.vl[k])
        payload = compress(inner)
        if PyBytes_GET_SIZE(payload) > INT32_MAX - 64:
            raise RecordTooLargeError("a compressed legacy message set exceeds 2 GiB")
        wrapper_size = LOG_OVERHEAD + (14 if magic == 0 else 22) + PyBytes_GET_SIZE(payload)
        part = PyBytes_FromStringAndSize(NULL, wrapper_size)
        legacy_write(<uint8_t *>PyBytes_AS_STRING(part), magic, (compression & 7) | inner_attrs,
                     rec_offset(&x, j - 1), log_append_time if lat else max_ts, NULL, -1,
                     <const uint8_t *>PyBytes_AS_STRING(payload), PyBytes_GET_SIZE(payload))
        parts.append(part)
        i = j
    return b"".join(parts)


# ---------------------------------------------------------------------------------------------------
# small helpers exposed for tests and the Python layer
# ---------------------------------------------------------------------------------------------------

def int64_list(list seq, int64_t[::1] out):
    """Fill ``out`` from a list of Python ints (numpy's list conversion first infers a dtype, at about
    30 ns an item); False, with ``out`` partly written, at the first item that is not an exact int in
    the int64 range, for the caller's general conversion and its errors."""
    cdef Py_ssize_t i, n = len(seq)
    cdef object item
    cdef int overflow
    cdef long long v
    if out.shape[0] != n:
        raise ValueError(f"expected {n} slots, got {out.shape[0]}")
    if n and kv_int64_items(seq, &out[0], n) == n:
        return True
    for i in range(n):
        item = seq[i]
        if not PyLong_CheckExact(item):
            return False
        v = PyLong_AsLongLongAndOverflow(item, &overflow)
        if overflow:
            return False
        out[i] = v
    return True


def read_varint(obj, Py_ssize_t pos=0):
    """Decode one zigzag int32 varint at ``pos``; returns ``(value, next_pos)``."""
    cdef _Pinned pin = _Pinned(obj)
    cdef const uint8_t *start = <const uint8_t *>pin.view.buf
    cdef const uint8_t *p = start + pos
    cdef int32_t v
    cdef int rc
    if pos < 0 or pos > pin.view.len:
        raise ValueError("position outside the buffer")
    rc = kv_read_varint(&p, start + pin.view.len, &v)
    if rc != 0:
        raise CorruptRecordError("truncated varint" if rc == -1 else "illegal varint: more than 5 bytes",
                                 position=pos)
    return v, p - start


def read_varlong(obj, Py_ssize_t pos=0):
    """Decode one zigzag int64 varlong at ``pos``; returns ``(value, next_pos)``."""
    cdef _Pinned pin = _Pinned(obj)
    cdef const uint8_t *start = <const uint8_t *>pin.view.buf
    cdef const uint8_t *p = start + pos
    cdef int64_t v
    cdef int rc
    if pos < 0 or pos > pin.view.len:
        raise ValueError("position outside the buffer")
    rc = kv_read_varlong(&p, start + pin.view.len, &v)
    if rc != 0:
        raise CorruptRecordError("truncated varlong" if rc == -1 else "illegal varlong: more than 10 bytes",
                                 position=pos)
    return v, p - start


def write_varint(int32_t value):
    cdef uint8_t tmp[5]
    cdef uint8_t *end = kv_write_varint(tmp, value)
    return PyBytes_FromStringAndSize(<char *>tmp, end - tmp)


def write_varlong(int64_t value):
    cdef uint8_t tmp[10]
    cdef uint8_t *end = kv_write_varlong(tmp, value)
    return PyBytes_FromStringAndSize(<char *>tmp, end - tmp)


def patch_v2_header(buf, Py_ssize_t pos, *, base_offset=None, partition_leader_epoch=None, max_timestamp=None,
                    attributes=None, bint recompute_crc=True):
    """Rewrite fields of the v2 batch at ``pos`` in a writable buffer (the log's offset assignment)."""
    cdef Py_buffer view
    cdef uint8_t *p
    cdef int32_t size
    PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE | 0x0001)  # PyBUF_WRITABLE
    try:
        if pos < 0 or pos + V2_HEADER > view.len:
            raise ValueError("no v2 batch header at that position")
        p = <uint8_t *>view.buf + pos
        size = kv_load_i32(p + 8) + LOG_OVERHEAD
        if p[16] != 2 or size < V2_HEADER or pos + size > view.len:
            raise ValueError("no v2 batch at that position")
        if base_offset is not None:
            kv_store_be64(p, <uint64_t><int64_t>base_offset)
        if partition_leader_epoch is not None:
            kv_store_be32(p + 12, <uint32_t><int32_t>partition_leader_epoch)
        if attributes is not None:
            kv_store_be16(p + 21, <uint16_t><int16_t>attributes)
        if max_timestamp is not None:
            kv_store_be64(p + 35, <uint64_t><int64_t>max_timestamp)
        if recompute_crc and (attributes is not None or max_timestamp is not None):
            kv_store_be32(p + 17, kvlog_crc32c(0, p + 21, <size_t>(size - 21)))
    finally:
        PyBuffer_Release(&view)


def assign_offsets(buf, const int64_t[::1] positions, int64_t first_offset, int64_t log_append_time=-1):
    """Leader-side offset assignment for v2 batches in a writable buffer, in place.

    Each batch at ``positions[i]`` gets base offset ``next``, then ``next += lastOffsetDelta + 1``.
    With ``log_append_time >= 0`` the batch also becomes LogAppendTime: attribute bit 3 set and
    maxTimestamp = log_append_time, CRC recomputed. Base offsets and leader epochs sit outside the
    CRC, so plain assignment rewrites 8 bytes per batch. Returns the next offset.
    """
    cdef Py_buffer view
    cdef uint8_t *p
    cdef Py_ssize_t i
    cdef int64_t nxt = first_offset, pos
    cdef int32_t size
    cdef uint16_t attrs
    PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE | 0x0001)  # PyBUF_WRITABLE
    try:
        for i in range(positions.shape[0]):
            pos = positions[i]
            if pos < 0 or pos + V2_HEADER > view.len:
                raise ValueError(f"no v2 batch header at position {pos}")
            p = <uint8_t *>view.buf + pos
            size = kv_load_i32(p + 8) + LOG_OVERHEAD
            if p[16] != 2 or size < V2_HEADER or pos + size > view.len:
                raise ValueError(f"no v2 batch at position {pos}")
            kv_store_be64(p, <uint64_t>nxt)
            if log_append_time >= 0:
                attrs = kv_load_be16(p + 21) | 0x08
                kv_store_be16(p + 21, attrs)
                kv_store_be64(p + 35, <uint64_t>log_append_time)
                kv_store_be32(p + 17, kvlog_crc32c(0, p + 21, <size_t>(size - 21)))
            nxt += <int64_t>kv_load_i32(p + 23) + 1
    finally:
        PyBuffer_Release(&view)
    return nxt


def index_plan(const int32_t[::1] sizes, const int64_t[::1] last_offsets, const int64_t[::1] max_timestamps,
               int64_t start_position, int64_t bytes_since_last_entry, int64_t interval, int64_t max_ts,
               int64_t shallow_offset, int64_t last_time_entry_ts):
    """Kafka's per-batch index rule for one append, as arrays (LogSegment.append).

    Before each batch: the segment's max timestamp so far is updated from the batch; then, if more
    than ``interval`` bytes were written since the last entry, the batch's last offset maps to its
    start position and the time index gets (max timestamp so far, its shallow offset) when that
    timestamp grew. Returns ``(offsets, positions, ts, ts_offsets, bytes_since, max_ts, shallow)``.
    """
    cdef Py_ssize_t n = sizes.shape[0], i, k = 0, t = 0
    cdef int64_t pos = start_position, since = bytes_since_last_entry
    out_off = np.empty(n, dtype=np.int64)
    out_pos = np.empty(n, dtype=np.int64)
    out_ts = np.empty(n, dtype=np.int64)
    out_tso = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] oo = out_off, op = out_pos, ot = out_ts, oto = out_tso
    if last_offsets.shape[0] != n or max_timestamps.shape[0] != n:
        raise ValueError("index_plan: column lengths differ")
    with nogil:
        for i in range(n):
            if max_timestamps[i] > max_ts:
                max_ts = max_timestamps[i]
                shallow_offset = last_offsets[i]
            if since > interval:
                oo[k] = last_offsets[i]
                op[k] = pos
                k += 1
                if max_ts > last_time_entry_ts:
                    ot[t] = max_ts
                    oto[t] = shallow_offset
                    t += 1
                    last_time_entry_ts = max_ts
                since = 0
            pos += sizes[i]
            since += sizes[i]
    return out_off[:k], out_pos[:k], out_ts[:t], out_tso[:t], since, max_ts, shallow_offset
