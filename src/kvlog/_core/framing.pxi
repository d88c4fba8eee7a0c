# Batch framing shared by the record kernels (records.pyx) and the point-operation kernels (point.pyx):
# byte loads/stores, varints, CRCs, status codes, the header parser and the v2 header writer.
# Included textually (``include "framing.pxi"``) so both modules inline the same code; the including
# module imports CorruptRecordError, RecordTooLargeError and UnsupportedCodecError for ``_raise``.

from libc.stdint cimport INT32_MAX, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdio cimport snprintf

cdef extern from "kvlog_bytes.h" nogil:
    uint16_t kv_load_be16(const uint8_t *p)
    uint32_t kv_load_be32(const uint8_t *p)
    int16_t kv_load_i16(const uint8_t *p)
    int32_t kv_load_i32(const uint8_t *p)
    int64_t kv_load_i64(const uint8_t *p)
    void kv_store_be16(uint8_t *p, uint16_t v)
    void kv_store_be32(uint8_t *p, uint32_t v)
    void kv_store_be64(uint8_t *p, uint64_t v)
    void kv_copy(uint8_t *d, const uint8_t *s, size_t n)

cdef extern from "kvlog_varint.h" nogil:
    int kv_read_varint(const uint8_t **pp, const uint8_t *end, int32_t *out)
    int kv_read_varlong(const uint8_t **pp, const uint8_t *end, int64_t *out)
    int kv_varint_size(int32_t v)
    int kv_varlong_size(int64_t v)
    uint8_t *kv_write_varint(uint8_t *p, int32_t v)
    uint8_t *kv_write_varlong(uint8_t *p, int64_t v)

cdef extern from "kvlog_crc.h" nogil:
    uint32_t kvlog_crc32(uint32_t crc, const uint8_t *p, size_t n)
    uint32_t kvlog_crc32c(uint32_t crc, const uint8_t *p, size_t n)
    void kvlog_crc_init()

cdef enum:
    ST_OK = 0
    ST_END = 1        # no bytes left
    ST_PARTIAL = 2    # a trailing entry is incomplete (Kafka stops silently here)
    ST_INNER = 3      # a compressed batch: the caller must decompress and call back
    ST_FULL = 4       # an output column would pass 2 GiB: finish this chunk first
    ST_ERR = -1       # corrupt bytes, Err filled in
    ST_CODEC = -2     # codec not allowed for this magic, Err filled in
    ST_NOMEM = -3
    ST_TOO_LARGE = -4

cdef enum:
    V2_HEADER = 61
    LOG_OVERHEAD = 12
    MIN_RECORD_V2 = 7   # length, attributes, ts delta, offset delta, key len, value len, header count
    GIL_THRESHOLD = 65536

cdef struct Err:
    int64_t position
    int64_t first_offset
    int64_t last_offset
    char msg[240]

cdef struct BatchInfo:
    int64_t position
    int64_t base_offset
    int64_t last_offset
    int64_t base_timestamp
    int64_t max_timestamp
    int64_t producer_id
    int32_t size
    int32_t partition_leader_epoch
    int32_t base_sequence
    int32_t record_count
    uint32_t crc
    int16_t attributes
    int16_t producer_epoch
    int8_t magic
    int8_t crc_valid

cdef int fail(Err *e, int64_t position, const BatchInfo *b) noexcept nogil:
    e.position = position
    if b != NULL:
        e.first_offset = b.base_offset
        e.last_offset = b.last_offset
    else:
        e.first_offset = -1
        e.last_offset = -1
    return ST_ERR


cdef _raise(int status, Err *e, int64_t base_position=0):
    msg = e.msg.decode("utf-8", "replace")
    offsets = None
    if e.last_offset >= 0 or e.first_offset >= 0:
        offsets = (e.first_offset, e.last_offset)
    if status == ST_NOMEM:
        raise MemoryError("kvlog: out of memory while decoding records")
    if status == ST_TOO_LARGE:
        raise RecordTooLargeError(msg)
    cls = UnsupportedCodecError if status == ST_CODEC else CorruptRecordError
    raise cls(msg, position=e.position + base_position, offsets=offsets)


cdef int parse_header(const uint8_t *buf, int64_t pos, int64_t end, BatchInfo *b, bint with_crc,
                      Err *e) noexcept nogil:
    """Read the entry at ``pos``; ST_OK, ST_END, ST_PARTIAL, or an error."""
    cdef int64_t remaining = end - pos
    cdef const uint8_t *p
    cdef int32_t size, lod
    cdef int codec, minimum
    cdef int8_t magic
    if remaining <= 0:
        return ST_END
    if remaining <= 17:   # FileLogInputStream: position + 17 >= end means no more batches
        return ST_PARTIAL
    p = buf + pos
    size = kv_load_i32(p + 8)
    b.position = pos
    b.last_offset = kv_load_i64(p)
    b.base_offset = -1
    if size < 14:
        snprintf(e.msg, sizeof(e.msg), "batch size %d is smaller than the minimum record overhead (14)",
                 <int>size)
        return fail(e, pos, NULL)
    if <int64_t>size > remaining - LOG_OVERHEAD or size > INT32_MAX - LOG_OVERHEAD:
        # an entry that does not fit here, or could not fit any int32-sized buffer (size + 12 would overflow)
        return ST_PARTIAL
    magic = <int8_t>p[16]
    b.magic = magic
    b.size = size + LOG_OVERHEAD
    if magic == 2:
        if b.size < V2_HEADER:
            snprintf(e.msg, sizeof(e.msg), "v2 batch size %d is smaller than the batch header (61)", <int>b.size)
            return fail(e, pos, NULL)
        b.base_offset = kv_load_i64(p)
        b.partition_leader_epoch = kv_load_i32(p + 12)
        b.crc = kv_load_be32(p + 17)
        b.attributes = kv_load_i16(p + 21)
        lod = kv_load_i32(p + 23)
        b.last_offset = <int64_t>(<uint64_t>b.base_offset + <uint64_t>lod)
        b.base_timestamp = kv_load_i64(p + 27)
        b.max_timestamp = kv_load_i64(p + 35)
        b.producer_id = kv_load_i64(p + 43)
        b.producer_epoch = kv_load_i16(p + 51)
        b.base_sequence = kv_load_i32(p + 53)
        b.record_count = kv_load_i32(p + 57)
        b.crc_valid = (kvlog_crc32c(0, p + 21, <size_t>(b.size - 21)) == b.crc) if with_crc else -1
        if lod < 0:
            snprintf(e.msg, sizeof(e.msg), "v2 batch has a negative lastOffsetDelta %d", <int>lod)
            return fail(e, pos, b)
        if b.record_count < 0:
            snprintf(e.msg, sizeof(e.msg), "v2 batch has a negative record count %d", <int>b.record_count)
            return fail(e, pos, b)
        codec = b.attributes & 7
        if codec > 4 and b.record_count > 0:   # Kafka never looks at the codec of an empty batch
            snprintf(e.msg, sizeof(e.msg), "unknown compression codec id %d", codec)
            fail(e, pos, b)
            return ST_CODEC
        return ST_OK
    if magic == 0 or magic == 1:
        minimum = 14 if magic == 0 else 22
        if size < minimum:
            snprintf(e.msg, sizeof(e.msg), "magic v%d message size %d is smaller than its minimum (%d)",
                     <int>magic, <int>size, minimum)
            return fail(e, pos, NULL)
        b.crc = kv_load_be32(p + 12)
        b.attributes = p[17]
        b.partition_leader_epoch = -1
        b.producer_id = -1
        b.producer_epoch = -1
        b.base_sequence = -1
        if magic == 1:
            b.base_timestamp = kv_load_i64(p + 18)
        else:
            b.base_timestamp = -1
        b.max_timestamp = b.base_timestamp
        codec = b.attributes & 7
        if codec == 0:
            b.base_offset = b.last_offset
            b.record_count = 1
        else:
            b.record_count = -1
        b.crc_valid = (kvlog_crc32(0, p + 16, <size_t>(size - 4)) == b.crc) if with_crc else -1
        if codec > 3:
            snprintf(e.msg, sizeof(e.msg), "compression codec id %d is not allowed with magic v%d",
                     codec, <int>magic)
            fail(e, pos, b)
            return ST_CODEC
        return ST_OK
    snprintf(e.msg, sizeof(e.msg), "unknown magic byte %d", <int>magic)
    return fail(e, pos, NULL)


cdef void v2_write_header(uint8_t *p, int64_t total, int64_t base_offset, int32_t ple, int16_t attrs,
                          int32_t lod, int64_t base_ts, int64_t max_ts, int64_t pid, int16_t epoch,
                          int32_t seq, int32_t count) noexcept nogil:
    kv_store_be64(p, <uint64_t>base_offset)
    kv_store_be32(p + 8, <uint32_t>(total - LOG_OVERHEAD))
    kv_store_be32(p + 12, <uint32_t>ple)
    p[16] = 2
    kv_store_be16(p + 21, <uint16_t>attrs)
    kv_store_be32(p + 23, <uint32_t>lod)
    kv_store_be64(p + 27, <uint64_t>base_ts)
    kv_store_be64(p + 35, <uint64_t>max_ts)
    kv_store_be64(p + 43, <uint64_t>pid)
    kv_store_be16(p + 51, <uint16_t>epoch)
    kv_store_be32(p + 53, <uint32_t>seq)
    kv_store_be32(p + 57, <uint32_t>count)
    kv_store_be32(p + 17, kvlog_crc32c(0, p + 21, <size_t>(total - 21)))


cdef class _Pinned:
    """A contiguous read-only view of any bytes-like object (bytes, bytearray, memoryview, mmap)."""
    cdef Py_buffer view
    cdef bint held

    def __cinit__(self, obj):
        PyObject_GetBuffer(obj, &self.view, PyBUF_SIMPLE)
        self.held = True

    cdef void release(self):
        if self.held:
            PyBuffer_Release(&self.view)
            self.held = False

    def __dealloc__(self):
        self.release()
