"""Point-operation kernels: one call per append, per fetch and per time lookup, over a small window.

The bulk kernels (records.pyx) fill numpy columns for millions of records. A point operation needs a
handful of integers, so these kernels return them as one tuple and stop as early as they can:
``find_batch`` reads only the headers between an index hint and the target batch and cuts the fetch on a
batch boundary in the same walk; ``find_timestamp`` walks headers and decodes the offsets and timestamps of
the one batch that holds the answer; ``prepare_append`` validates, assigns offsets and summarises an
append in two passes over its headers; ``encode_records`` builds a small uncompressed v2 batch straight
from ``Record`` tuples. Whatever a kernel cannot answer on its own (a compressed or legacy batch to decode,
an append that needs conversion, a malformed record) it hands back to the general Python path, which
owns the error messages.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.long cimport PyLong_CheckExact
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject
from cpython.list cimport PyList_GET_ITEM
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.stdint cimport INT64_MAX, INT64_MIN

from kvlog.errors import CorruptRecordError, RecordTooLargeError, UnsupportedCodecError

include "framing.pxi"

kvlog_crc_init()

# statuses (shared by the kernels below)
FOUND = 0     # the answer is in the returned fields (prepare_append: the append was prepared)
NEED = 1      # the entry at ``position`` is not wholly in the buffer: read again from there
DECODE = 2    # the batch at ``position`` may hold the answer but needs the general decoder
SLOW = 3      # prepare_append: the append needs the general path (conversion, recompression, an error)
GROW = 4      # prepare_append: more batches than rows in ``out``

#: no batch header was parsed in the buffer (``first_base`` of find_batch / find_timestamp)
NO_HEADER = -(2**63)

cdef enum:
    LEGACY_V0_HEADER = 18   # offset, size, crc, magic, attributes
    LEGACY_V1_HEADER = 26   # ... and the timestamp


cdef inline int64_t header_bytes(const uint8_t *p) noexcept nogil:
    """Bytes of an entry's header the parser reads without a CRC check (magic at p[16] is present)."""
    if p[16] == 2:
        return V2_HEADER
    if p[16] == 1:
        return LEGACY_V1_HEADER
    return LEGACY_V0_HEADER


cdef int peek(const uint8_t *buf, int64_t pos, int64_t end, BatchInfo *b, int64_t *entry, Err *e) noexcept nogil:
    """Parse the header of the entry at ``pos`` even when its body runs past ``end``.

    ST_OK (``entry`` = its full size), ST_PARTIAL (not even the header is here; ``entry`` = its size
    when the length field is, else -1), or an error from ``parse_header``.
    """
    cdef int64_t remaining = end - pos
    cdef int32_t size
    entry[0] = -1
    if remaining < LOG_OVERHEAD:
        return ST_PARTIAL
    size = kv_load_i32(buf + pos + 8)
    if size >= 14:
        entry[0] = <int64_t>size + LOG_OVERHEAD
    if remaining <= 17:
        return ST_PARTIAL
    if size >= 14 and entry[0] > remaining:
        if remaining < header_bytes(buf + pos):
            return ST_PARTIAL
        # only header bytes are read without a CRC check, so a virtual end past the buffer is safe
        return parse_header(buf, pos, pos + entry[0], b, False, e)
    return parse_header(buf, pos, end, b, False, e)


cdef inline int64_t known_base(const BatchInfo *b, int64_t prev_last) noexcept nogil:
    """The entry's first offset: its own for v2 and plain legacy messages, the one after the previous
    entry for a legacy compressed wrapper (whose header names only its last offset)."""
    if b.base_offset >= 0:
        return b.base_offset
    return prev_last + 1 if prev_last >= 0 else -1


cdef inline bint out_of_order(const BatchInfo *b, int64_t prev_last) noexcept nogil:
    """Whether the entry's offsets fail to follow ``prev_last`` (the last offset of the entry before it,
    -1 unknown). Offsets outside the CRC are evidence: an entry that repeats or goes back is damaged
    even when its CRC matches, so a read stops or fails there instead of returning it."""
    if prev_last < 0:
        return False
    return b.last_offset <= prev_last or (b.base_offset >= 0 and b.base_offset <= prev_last)


cdef int order_error(int64_t pos, const BatchInfo *b, int64_t prev_last, Err *e) noexcept nogil:
    e.position = pos
    e.first_offset = b.base_offset
    e.last_offset = b.last_offset
    snprintf(e.msg, sizeof(e.msg),
             "the batch's offsets %lld..%lld do not follow the previous batch's last offset %lld "
             "(a field outside the CRC is damaged)",
             <long long>b.base_offset, <long long>b.last_offset, <long long>prev_last)
    return ST_ERR


cdef int64_t cut_batches(const uint8_t *buf, int64_t pos, int64_t data_end, int64_t hard_end, int64_t max_bytes,
                         int64_t stop_offset, bint check_order, bint *complete, int64_t *last,
                         Err *e) noexcept nogil:
    """End of the whole entries in ``buf[pos:data_end]`` that fit in ``max_bytes`` and end by
    ``hard_end``, before the first entry whose first offset is ≥ ``stop_offset``; ``last`` is the last
    offset of the last entry kept (-1: none). ``complete`` is False when the data ran out before the cut
    was certain (the caller reads more and cuts again).

    With ``check_order``, an entry whose offsets do not follow the one before it (its header is read even
    when its body lies past the data) ends the cut *before that previous entry*, since either of the two
    may carry the damaged field; when that previous entry is the first, -1 is returned with ``e`` filled.
    """
    cdef int64_t q = pos, prev_q = pos, limit = hard_end, prev_last = -1, before_prev = -1, entry
    cdef BatchInfo b
    cdef int rc
    cdef bint judged
    if max_bytes < hard_end - pos:
        limit = pos + max_bytes
    complete[0] = True
    last[0] = -1
    while True:
        rc = peek(buf, q, data_end, &b, &entry, e)
        judged = rc == ST_OK
        if judged and check_order and out_of_order(&b, prev_last):
            if prev_q == pos:
                order_error(q, &b, prev_last, e)
                return -1
            last[0] = before_prev
            return prev_q
        if rc == ST_OK and b.size > data_end - q:
            rc = ST_PARTIAL
        if rc != ST_OK:
            # the data ends here (or damage starts, which a read at that offset reports); the cut is
            # certain once the next header was judged, or nothing can follow
            complete[0] = rc < 0 or data_end >= hard_end or (data_end >= limit and (judged or not check_order))
            return q
        if q != pos and known_base(&b, prev_last) >= stop_offset:
            return q
        if q + b.size > limit:
            return q
        prev_q = q
        q += b.size
        before_prev = prev_last
        prev_last = b.last_offset
        last[0] = prev_last


def find_batch(obj, int64_t target, int64_t max_bytes=0, int64_t stop_offset=INT64_MAX,
               int64_t cut_end=INT64_MAX):
    """The first entry in ``obj`` whose last offset is ≥ ``target``, and where a fetch from it ends.

    Returns ``(status, position, base_offset, last_offset, size, max_timestamp, first_base, cut,
    cut_complete, cut_last)``. FOUND: the entry's header fields, and ``cut`` the end of the whole entries
    from it within ``max_bytes`` and ``cut_end`` stopping before the first entry starting at or past
    ``stop_offset`` (``cut == position`` when the first entry itself does not fit), ``cut_last`` the last
    offset of the last entry before the cut. NEED: the entry at
    ``position`` (size ``size``, or -1 when unknown) is not wholly in the buffer. ``first_base`` is the
    first offset of the first entry parsed (-1 unknown, ``NO_HEADER`` none), for the caller to check
    its index hint. Structural damage raises ``CorruptRecordError`` (positions relative to ``obj``).
    """
    cdef _Pinned pin = _Pinned(obj)
    cdef const uint8_t *buf = <const uint8_t *>pin.view.buf
    cdef int64_t end = pin.view.len, pos = 0, entry, first_base = NO_HEADER, cut, last = -1, prev = -1
    cdef BatchInfo b, nb
    cdef Err e
    cdef int rc
    cdef bint complete = False
    try:
        while True:
            rc = peek(buf, pos, end, &b, &entry, &e)
            if rc == ST_PARTIAL or rc == ST_END:
                return (NEED, pos, -1, -1, entry, -1, first_base, -1, False, -1)
            if rc == ST_OK and out_of_order(&b, prev):
                rc = order_error(pos, &b, prev, &e)
            if rc < 0:
                _raise(rc, &e)
            prev = b.last_offset
            if first_base == NO_HEADER:
                first_base = b.base_offset if b.base_offset >= 0 else -1
            if b.last_offset >= target:
                cut = pos
                if b.size <= end - pos and b.size <= max_bytes and pos + b.size <= cut_end:
                    cut = cut_batches(buf, pos, end, cut_end, max_bytes, stop_offset, True, &complete, &last, &e)
                    if cut < 0:
                        _raise(ST_ERR, &e)
                elif b.size < end - pos:
                    # returned alone: its successor's header, where the window holds it, must follow it
                    if peek(buf, pos + b.size, end, &nb, &entry, &e) == ST_OK and out_of_order(&nb, b.last_offset):
                        order_error(pos + b.size, &nb, b.last_offset, &e)
                        _raise(ST_ERR, &e)
                return (FOUND, pos, b.base_offset, b.last_offset, b.size, b.max_timestamp, first_base, cut,
                        complete, last)
            pos += b.size
    finally:
        pin.release()


def whole_batches(obj, int64_t max_bytes, int64_t stop_offset=INT64_MAX):
    """``(end, last_offset)`` of the whole entries at the start of ``obj`` within ``max_bytes``, before
    the first entry starting at or past ``stop_offset`` (the first entry always counts when it is
    complete); ``last_offset`` is -1 when there is none."""
    cdef _Pinned pin = _Pinned(obj)
    cdef bint complete
    cdef int64_t cut, last
    cdef Err e
    try:
        cut = cut_batches(<const uint8_t *>pin.view.buf, 0, pin.view.len, pin.view.len, max_bytes, stop_offset,
                          False, &complete, &last, &e)
    finally:
        pin.release()
    return cut, last


def valid_prefix(obj, int64_t max_timestamp=-1, int64_t shallow_offset=-1):
    """The complete, CRC-valid entries at the start of ``obj`` (what a reader may see of bytes a writer
    appended): ``(end, last_offset, max_timestamp, shallow_offset)``, the running maximum timestamp
    (strictly greater wins) and the last offset of the entry that set it folded in from the arguments.
    Stops at the first partial, damaged or CRC-failing entry; ``last_offset`` is -1 when none is valid."""
    cdef _Pinned pin = _Pinned(obj)
    cdef const uint8_t *buf = <const uint8_t *>pin.view.buf
    cdef int64_t end = pin.view.len, pos = 0, last = -1
    cdef BatchInfo b
    cdef Err e
    try:
        with nogil:
            while parse_header(buf, pos, end, &b, True, &e) == ST_OK and b.crc_valid == 1:
                if b.max_timestamp > max_timestamp:
                    max_timestamp = b.max_timestamp
                    shallow_offset = b.last_offset
                last = b.last_offset
                pos += b.size
    finally:
        pin.release()
    return pos, last, max_timestamp, shallow_offset


cdef int batch_find_timestamp(const uint8_t *p, const BatchInfo *b, int64_t target, int64_t start_offset,
                              int64_t *offset, int64_t *ts) noexcept nogil:
    """Walk an uncompressed v2 batch for its first record with offset ≥ ``start_offset`` and timestamp ≥
    ``target``: 1 found, 0 none, -1 malformed (the general decoder reports it)."""
    cdef const uint8_t *q = p + V2_HEADER
    cdef const uint8_t *end = p + b.size
    cdef const uint8_t *rec_end
    cdef int32_t length, off_delta
    cdef int64_t ts_delta, t, o
    cdef int32_t _i
    cdef bint log_append = (b.attributes & 0x08) != 0
    for _i in range(b.record_count):
        if kv_read_varint(&q, end, &length) != 0 or length < MIN_RECORD_V2 - 1 or length > end - q:
            return -1
        rec_end = q + length
        q += 1  # record attributes
        if kv_read_varlong(&q, rec_end, &ts_delta) != 0 or kv_read_varint(&q, rec_end, &off_delta) != 0:
            return -1
        o = <int64_t>(<uint64_t>b.base_offset + <uint64_t><int64_t>off_delta)
        t = b.max_timestamp if log_append else <int64_t>(<uint64_t>b.base_timestamp + <uint64_t>ts_delta)
        if o >= start_offset and t >= target:
            offset[0] = o
            ts[0] = t
            return 1
        q = rec_end
    return 0


def find_timestamp(obj, int64_t target, int64_t start_offset):
    """The first record in ``obj`` with offset ≥ ``start_offset`` and timestamp ≥ ``target``.

    Returns ``(status, position, offset, timestamp, size, first_base)``. FOUND: ``offset`` and
    ``timestamp``. DECODE: the entry at ``position`` (``size`` bytes, wholly in ``obj``) may hold it but
    is compressed, legacy or malformed: the caller decodes it and continues after it. NEED: the entry at
    ``position`` (``size`` or -1) is needed but not wholly in ``obj``. Control batches match too, as in
    Kafka's ListOffsets (every broker version in the broker tests answers a transaction marker's offset when
    the marker is the first entry at or after the target). Entries whose max timestamp or last offset is
    below the targets are skipped on their headers alone.
    """
    cdef _Pinned pin = _Pinned(obj)
    cdef const uint8_t *buf = <const uint8_t *>pin.view.buf
    cdef int64_t end = pin.view.len, pos = 0, entry, first_base = NO_HEADER, off = -1, ts = -1, prev = -1
    cdef BatchInfo b
    cdef Err e
    cdef int rc, hit
    try:
        while True:
            rc = peek(buf, pos, end, &b, &entry, &e)
            if rc == ST_PARTIAL or rc == ST_END:
                return (NEED, pos, -1, -1, entry, first_base)
            if rc == ST_OK and out_of_order(&b, prev):
                rc = order_error(pos, &b, prev, &e)
            if rc < 0:
                _raise(rc, &e)
            prev = b.last_offset
            if first_base == NO_HEADER:
                first_base = b.base_offset if b.base_offset >= 0 else -1
            if b.last_offset >= start_offset and b.max_timestamp >= target:
                if b.size > end - pos:
                    return (NEED, pos, -1, -1, b.size, first_base)
                if b.magic != 2 or (b.attributes & 7) != 0:
                    return (DECODE, pos, -1, -1, b.size, first_base)
                hit = batch_find_timestamp(buf + pos, &b, target, start_offset, &off, &ts)
                if hit == 1:
                    return (FOUND, pos, off, ts, b.size, first_base)
                if hit < 0:
                    return (DECODE, pos, -1, -1, b.size, first_base)
            pos += b.size
    finally:
        pin.release()


cdef int record_ts_range(const uint8_t *p, const BatchInfo *b, int64_t *lo, int64_t *hi) noexcept nogil:
    """Fold the record timestamps of an uncompressed v2 batch (except -1) into ``lo``/``hi``; -1 when
    the records are malformed."""
    cdef const uint8_t *q = p + V2_HEADER
    cdef const uint8_t *end = p + b.size
    cdef const uint8_t *rec_end
    cdef int32_t length, _i
    cdef int64_t ts_delta, t
    for _i in range(b.record_count):
        if kv_read_varint(&q, end, &length) != 0 or length < MIN_RECORD_V2 - 1 or length > end - q:
            return -1
        rec_end = q + length
        q += 1  # record attributes
        if kv_read_varlong(&q, rec_end, &ts_delta) != 0:
            return -1
        q = rec_end
        t = <int64_t>(<uint64_t>b.base_timestamp + <uint64_t>ts_delta)
        if t != -1:
            if t < lo[0]:
                lo[0] = t
            if t > hi[0]:
                hi[0] = t
    if q != end:
        return -1
    return 0


def prepare_append(buf, uint8_t[::1] out, int64_t first_offset, int64_t log_append_time, int64_t max_message_bytes,
                   int want_codec, bint client, bint timestamp_range):
    """Validate an append of v2 batches and assign its offsets in place (a leader append), in one call.

    Pass one parses every header with its CRC into ``out`` (the bytes of BATCH_DTYPE rows: pass
    ``rows.view(np.uint8)``, made once) and checks what the
    leader path checks; nothing is written unless all of it passes. Pass two stores base offsets (and,
    with ``log_append_time`` ≥ 0, LogAppendTime with a new CRC) and fixes the rows' offsets. Returns
    ``(status, batches, bytes, next_offset, max_timestamp, offset_of_max_timestamp, records,
    has_producer, min_record_timestamp, max_record_timestamp)``; the record timestamp range is
    computed only with ``timestamp_range`` (uncompressed batches only). SLOW: something needs the
    general path (legacy input, a codec to change, control batches from a client, any invalid batch:
    that path raises the precise error). GROW: ``out`` has too few rows; nothing was changed.
    """
    cdef Py_buffer view
    cdef BatchInfo *rows = <BatchInfo *>&out[0] if out.shape[0] else NULL
    cdef int64_t cap = out.shape[0] // sizeof(BatchInfo)
    cdef int64_t n = 0, pos = 0, end, i, nxt = first_offset, max_ts = -1, off_max = -1, records = 0
    cdef int64_t lo = INT64_MAX, hi = INT64_MIN
    cdef bint has_producer = False
    cdef uint8_t *p
    cdef BatchInfo *b
    cdef Err e
    cdef int rc
    PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE | PyBUF_WRITABLE)
    try:
        end = view.len
        p = <uint8_t *>view.buf
        while pos < end:
            if n == cap:
                return (GROW, n, 0, first_offset, -1, -1, 0, False, lo, hi)
            b = &rows[n]
            rc = parse_header(p, pos, end, b, True, &e)
            if (rc != ST_OK or b.magic != 2 or b.crc_valid != 1 or b.size > max_message_bytes
                    or b.record_count <= 0 or b.last_offset - b.base_offset + 1 != b.record_count
                    or (client and (b.attributes & 0x20) != 0)
                    or (client and b.producer_id >= 0 and b.base_sequence < 0)
                    or ((b.attributes & 0x10) != 0 and (b.producer_id < 0 or b.producer_epoch < 0))
                    or (want_codec >= 0 and (b.attributes & 7) != want_codec)):
                return (SLOW, n, 0, first_offset, -1, -1, 0, False, lo, hi)
            if timestamp_range and ((b.attributes & 7) != 0 or record_ts_range(p + pos, b, &lo, &hi) != 0):
                return (SLOW, n, 0, first_offset, -1, -1, 0, False, lo, hi)
            pos += b.size
            n += 1
        if n == 0:
            return (SLOW, 0, 0, first_offset, -1, -1, 0, False, lo, hi)
        for i in range(n):
            b = &rows[i]
            kv_store_be64(p + b.position, <uint64_t>nxt)
            b.last_offset = nxt + (b.last_offset - b.base_offset)
            b.base_offset = nxt
            if log_append_time >= 0:
                b.attributes = b.attributes | 0x08
                b.max_timestamp = log_append_time
                kv_store_be16(p + b.position + 21, <uint16_t>b.attributes)
                kv_store_be64(p + b.position + 35, <uint64_t>log_append_time)
                kv_store_be32(p + b.position + 17, kvlog_crc32c(0, p + b.position + 21, <size_t>(b.size - 21)))
            if b.max_timestamp > max_ts or i == 0:
                max_ts = b.max_timestamp
                off_max = b.last_offset
            nxt = b.last_offset + 1
            records += b.record_count
            has_producer = has_producer or b.producer_id >= 0
        return (FOUND, n, end, nxt, max_ts, off_max, records, has_producer, lo, hi)
    finally:
        PyBuffer_Release(&view)


cdef inline int record_fields(object r, PyObject **key, PyObject **value, PyObject **ts) except -1:
    """The key, value and timestamp of a Record or a (key, value[, timestamp[, headers]]) tuple; 0 when
    it needs the general encoder (headers, str or buffer keys/values, odd shapes)."""
    cdef Py_ssize_t n
    cdef PyObject *h
    if not PyTuple_Check(r):
        return 0
    n = PyTuple_GET_SIZE(r)
    if n < 2:
        return 0
    key[0] = PyTuple_GET_ITEM(r, 0)
    value[0] = PyTuple_GET_ITEM(r, 1)
    ts[0] = PyTuple_GET_ITEM(r, 2) if n > 2 else NULL
    if n > 3:
        h = PyTuple_GET_ITEM(r, 3)
        if h != <PyObject *>None and not (PyTuple_Check(<object>h) and PyTuple_GET_SIZE(<object>h) == 0):
            return 0
    if n > 4 and (type(r) is tuple or n != 6):  # wider than (key, value, timestamp, headers): a Record only
        return 0
    if key[0] != <PyObject *>None and not PyBytes_CheckExact(<object>key[0]):
        return 0
    if value[0] != <PyObject *>None and not PyBytes_CheckExact(<object>value[0]):
        return 0
    if ts[0] != NULL and ts[0] != <PyObject *>None and not PyLong_CheckExact(<object>ts[0]):
        return 0
    return 1


cdef inline int64_t blob_len(PyObject *o) noexcept:
    return -1 if o == <PyObject *>None else PyBytes_GET_SIZE(<object>o)


cdef extern from *:
    """
    #define KV_PT_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 3)
    """
    void KV_PT_PREFETCH(const void *p) noexcept nogil


cdef enum:
    AHEAD_TUPLE = 12        # records ahead whose tuple is prefetched
    AHEAD_FIELDS = 6        # ... and whose key, value and timestamp objects are prefetched


cdef inline void prefetch_record(list records, Py_ssize_t j, Py_ssize_t n, bint fields) noexcept:
    """Pull a record (or its key, value and timestamp objects) into cache ahead of its turn: with
    thousands of small objects spread over the heap the loads, not the encoding, set the pace."""
    cdef PyObject *r
    cdef Py_ssize_t m
    if j >= n:
        return
    r = PyList_GET_ITEM(records, j)
    if not fields:
        KV_PT_PREFETCH(r)
        KV_PT_PREFETCH(<const char *>r + 64)
        return
    if not PyTuple_Check(<object>r):
        return
    m = PyTuple_GET_SIZE(<object>r)
    if m >= 2:
        KV_PT_PREFETCH(PyTuple_GET_ITEM(<object>r, 0))
        KV_PT_PREFETCH(PyTuple_GET_ITEM(<object>r, 1))
        KV_PT_PREFETCH(<const char *>PyTuple_GET_ITEM(<object>r, 1) + 64)
    if m >= 3:
        KV_PT_PREFETCH(PyTuple_GET_ITEM(<object>r, 2))


cdef struct Slot:
    const char *key
    const char *value
    int64_t klen
    int64_t vlen
    int64_t tsd
    int64_t body


def encode_records(list records, int64_t now, int64_t producer_id=-1, int producer_epoch=-1,
                   int32_t base_sequence=-1, bint is_transactional=False, int64_t base_offset=0,
                   int32_t partition_leader_epoch=-1):
    """One uncompressed CreateTime v2 batch from a list of records, byte for byte what
    ``encode_batch`` writes; ``now`` stands in for missing timestamps. None when a record needs the
    general encoder (headers, non-bytes keys or values, a timestamp below -1, which it rejects with
    the proper error) or the list is empty.

    One pass reads the Python objects into a slot per record (sizes, pointers, timestamp delta); the
    second writes from the slots alone. The list holds its records, and they their bytes, throughout."""
    cdef Py_ssize_t n = len(records), i
    cdef PyObject *k
    cdef PyObject *v
    cdef PyObject *t
    cdef int64_t first_ts = 0, max_ts = 0, ts, klen, vlen, body, total = V2_HEADER
    cdef uint8_t *w
    cdef bytes out
    cdef Slot small[16]
    cdef Slot *sl = small
    cdef Slot *x
    if n == 0 or n > 100_000:
        return None
    if n > 16:
        sl = <Slot *>PyMem_Malloc(<size_t>n * sizeof(Slot))
        if sl == NULL:
            raise MemoryError()
    try:
        for i in range(n):
            prefetch_record(records, i + AHEAD_TUPLE, n, False)
            prefetch_record(records, i + AHEAD_FIELDS, n, True)
            if not record_fields(records[i], &k, &v, &t):
                return None
            if t == NULL or t == <PyObject *>None:
                ts = now
            else:
                ts = <int64_t><object>t
                if ts < -1:
                    return None
            if i == 0:
                first_ts = ts
                max_ts = ts
            elif ts > max_ts:
                max_ts = ts
            klen = blob_len(k)
            vlen = blob_len(v)
            if klen > INT32_MAX // 2 or vlen > INT32_MAX // 2:
                return None
            x = &sl[i]
            x.key = PyBytes_AS_STRING(<object>k) if klen >= 0 else NULL
            x.value = PyBytes_AS_STRING(<object>v) if vlen >= 0 else NULL
            x.klen = klen
            x.vlen = vlen
            x.tsd = <int64_t>(<uint64_t>ts - <uint64_t>first_ts)
            body = (1 + kv_varlong_size(x.tsd) + kv_varint_size(<int32_t>i) + kv_varint_size(<int32_t>klen)
                    + (klen if klen > 0 else 0) + kv_varint_size(<int32_t>vlen) + (vlen if vlen > 0 else 0) + 1)
            x.body = body
            total += kv_varint_size(<int32_t>body) + body
            if total > INT32_MAX:
                return None
        out = PyBytes_FromStringAndSize(NULL, total)
        w = <uint8_t *>PyBytes_AS_STRING(out) + V2_HEADER
        for i in range(n):
            x = &sl[i]
            w = kv_write_varint(w, <int32_t>x.body)
            w[0] = 0
            w = kv_write_varlong(w + 1, x.tsd)
            w = kv_write_varint(w, <int32_t>i)
            w = kv_write_varint(w, <int32_t>x.klen)
            if x.klen > 0:
                kv_copy(w, <const uint8_t *>x.key, <size_t>x.klen)
                w += x.klen
            w = kv_write_varint(w, <int32_t>x.vlen)
            if x.vlen > 0:
                kv_copy(w, <const uint8_t *>x.value, <size_t>x.vlen)
                w += x.vlen
            w[0] = 0
            w += 1
    finally:
        if sl != small:
            PyMem_Free(sl)
    v2_write_header(<uint8_t *>PyBytes_AS_STRING(out), total, base_offset, partition_leader_epoch,
                    <int16_t>(0x10 if is_transactional else 0),
                    <int32_t>(n - 1), first_ts, max_ts, producer_id, <int16_t>producer_epoch, base_sequence,
                    <int32_t>n)
    return out
