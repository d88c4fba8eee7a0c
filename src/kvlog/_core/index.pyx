"""Offset-index and time-index kernels: warm-section searches, valid-prefix scans, batched lookups, decoding.

The loops are the ``static inline`` C99 functions of ``kvlog_index.h`` (no Python in them); this module is
the thin layer over buffers. Every function takes ``buf`` (any contiguous bytes-like object: ``mmap`` in
either access mode, ``bytes``, ``bytearray``, ``memoryview``, or a ``Pinned`` view of one) and ``n``, the
number of entries to consider, which must fit in the buffer. Relative offsets, positions, timestamps and
slots are plain ints; a slot of -1 means "none". Nothing here knows about files or base offsets except the
``*_resolve`` helpers, which turn slots into absolute entries the way ``OffsetIndex.lookup`` /
``TimeIndex.lookup`` do.

``Pinned`` holds one buffer export for as long as the caller wants (saving the acquire/release of every
call on the scalar lookup path). While it is held, the exporter cannot be resized or closed: ``mmap``
refuses with ``BufferError``; call ``release()`` first.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.number cimport PyNumber_Index
from libc.stdint cimport INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, int32_t, int64_t

import numpy as np

cimport numpy as cnp

cnp.import_array()


cdef extern from "kvlog_index.h" nogil:
    enum:
        KV_OI_ENTRY
        KV_TI_ENTRY
        KV_INDEX_WARM_BYTES
    int64_t kv_oi_rel(const unsigned char *b, int64_t i)
    int64_t kv_oi_pos(const unsigned char *b, int64_t i)
    int64_t kv_ti_ts(const unsigned char *b, int64_t i)
    int64_t kv_ti_rel(const unsigned char *b, int64_t i)
    void kv_oi_store(unsigned char *b, int64_t i, int32_t rel, int32_t pos)
    void kv_ti_store(unsigned char *b, int64_t i, int64_t ts, int32_t rel)
    int64_t kv_oi_floor(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_oi_floor_pos(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_ti_floor(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_ti_floor_rel(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_oi_ceil(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_oi_ceil_pos(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_ti_ceil(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_ti_ceil_rel(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_oi_count_below(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_ti_count_below_rel(const unsigned char *b, int64_t n, int64_t target)
    int64_t kv_oi_valid_from(const unsigned char *b, int64_t n, int64_t start)
    int64_t kv_ti_valid_from(const unsigned char *b, int64_t n, int64_t start)
    int kv_oi_floor_many(const unsigned char *b, int64_t n, const int64_t *t, int64_t m, int64_t *out)
    int kv_ti_floor_many(const unsigned char *b, int64_t n, const int64_t *t, int64_t m, int64_t *out)


OFFSET_ENTRY_SIZE = KV_OI_ENTRY
TIME_ENTRY_SIZE = KV_TI_ENTRY
WARM_BYTES = KV_INDEX_WARM_BYTES

cdef enum:
    GIL_THRESHOLD = 2048     # targets per batch above which the GIL is released


# ---------------------------------------------------------------------------------------------------
# buffers
# ---------------------------------------------------------------------------------------------------

cdef class Pinned:
    """One held, contiguous, read-only export of ``obj``'s buffer (released by ``release()`` or on collection)."""
    cdef Py_buffer view
    cdef bint _held
    cdef readonly object obj

    def __cinit__(self, obj):
        PyObject_GetBuffer(obj, &self.view, PyBUF_SIMPLE)
        self._held = True
        self.obj = obj

    def release(self):
        """Give the export back (idempotent). The object is unusable afterwards."""
        if self._held:
            self._held = False
            PyBuffer_Release(&self.view)
        self.obj = None

    @property
    def held(self):
        return self._held

    @property
    def nbytes(self):
        return self.view.len if self._held else 0

    def __dealloc__(self):
        if self._held:
            self._held = False
            PyBuffer_Release(&self.view)


cdef struct Buf:
    const unsigned char *p
    Py_ssize_t len
    bint own
    Py_buffer view


cdef inline int buf_open(object obj, Buf *b, int64_t n, int64_t esize, bint hold=False) except -1:
    """Borrow the view of a Pinned, or acquire one. ``hold``: code that releases the GIL takes its own
    export even from a Pinned, so another thread closing the mapping meanwhile gets BufferError, not a
    dangling pointer."""
    cdef Pinned pin
    if type(obj) is Pinned:
        pin = <Pinned>obj
        if not pin._held:
            raise ValueError("kvlog index: the pinned buffer was released (the index was closed)")
        if hold:
            obj = pin.obj
    if type(obj) is Pinned:
        b.p = <const unsigned char *>pin.view.buf
        b.len = pin.view.len
        b.own = False
    else:
        PyObject_GetBuffer(obj, &b.view, PyBUF_SIMPLE)
        b.own = True
        b.p = <const unsigned char *>b.view.buf
        b.len = b.view.len
    if n < 0 or n > b.len // esize:
        buf_close(b)
        raise ValueError(f"kvlog index: {n} entries of {esize} bytes do not fit in a buffer of {b.len} bytes")
    return 0


cdef inline void buf_close(Buf *b) noexcept:
    if b.own:
        b.own = False
        PyBuffer_Release(&b.view)


cdef inline int64_t _clamp(object value) except? -1:
    """A Python int as int64, saturated (targets beyond int64 compare like the int64 extremes)."""
    value = PyNumber_Index(value)
    if value > INT64_MAX:
        return INT64_MAX
    if value < INT64_MIN:
        return INT64_MIN
    return <int64_t>value


# ---------------------------------------------------------------------------------------------------
# offset index (8-byte entries: relativeOffset int32, position int32)
# ---------------------------------------------------------------------------------------------------

def offset_lookup(buf, int64_t n, rel_target):
    """Largest slot whose relative offset is <= ``rel_target`` (Kafka's warm-section search), or -1."""
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t s = kv_oi_floor(b.p, n, _clamp(rel_target))
    buf_close(&b)
    return s


def offset_lookup_entry(buf, int64_t n, rel_target):
    """``(relative_offset, position)`` of the floor entry of ``rel_target``, or None when there is none."""
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t s = kv_oi_floor(b.p, n, _clamp(rel_target))
    cdef int64_t r = 0, p = 0
    if s >= 0:
        r = kv_oi_rel(b.p, s)
        p = kv_oi_pos(b.p, s)
    buf_close(&b)
    return None if s < 0 else (r, p)


def offset_ceil(buf, int64_t n, rel_target):
    """Smallest slot whose relative offset is >= ``rel_target``, or -1 (exact over increasing offsets)."""
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t s = kv_oi_ceil(b.p, n, _clamp(rel_target))
    buf_close(&b)
    return s


def offset_count_below(buf, int64_t n, rel_target):
    """Number of leading entries whose relative offset is < ``rel_target`` (what ``truncateTo`` keeps)."""
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t c = kv_oi_count_below(b.p, n, _clamp(rel_target))
    buf_close(&b)
    return c


def offset_position_floor(buf, int64_t n, position):
    """Largest slot whose position is <= ``position``, or -1."""
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t s = kv_oi_floor_pos(b.p, n, _clamp(position))
    buf_close(&b)
    return s


def offset_position_ceil(buf, int64_t n, position):
    """Smallest slot whose position is >= ``position``, or -1 (``fetchUpperBoundOffset``)."""
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t s = kv_oi_ceil_pos(b.p, n, _clamp(position))
    buf_close(&b)
    return s


def offset_entry(buf, int64_t n, int64_t slot):
    """``(relative_offset, position)`` stored in ``slot`` (0 <= slot < n)."""
    cdef Buf b
    if slot < 0 or slot >= n:
        raise ValueError(f"kvlog index: slot {slot} outside 0..{n - 1}")
    buf_open(buf, &b, n, KV_OI_ENTRY)
    cdef int64_t r = kv_oi_rel(b.p, slot), p = kv_oi_pos(b.p, slot)
    buf_close(&b)
    return r, p


def offset_valid_entries(buf, int64_t n, int64_t start=0):
    """Number of leading trustworthy entries among the first ``n`` (entries before ``start`` are taken as checked).

    Relative offsets and positions must strictly increase; the first entry must be non-negative and not
    all-zero (a zero-filled slot is the preallocated, never-written tail of the file).
    """
    cdef Buf b
    cdef int64_t v
    buf_open(buf, &b, n, KV_OI_ENTRY, True)
    with nogil:
        v = kv_oi_valid_from(b.p, n, start)
    buf_close(&b)
    return v


cdef cnp.ndarray _targets(object targets):
    arr = np.ascontiguousarray(targets, dtype=np.int64)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    return arr


def offset_lookup_many(buf, int64_t n, rel_targets):
    """Floor slots (int64 array, -1 for none) of every relative offset in ``rel_targets`` (int64 array).

    Equal to ``offset_lookup`` per element. Large batches release the GIL; over strictly increasing offsets
    they decode the keys once and search them branch-free (or gallop when the targets are sorted).
    """
    cdef cnp.ndarray tg = _targets(rel_targets)
    cdef int64_t m = tg.shape[0]
    cdef cnp.ndarray out = np.empty(m, dtype=np.int64)
    cdef const int64_t *tp = <const int64_t *>cnp.PyArray_DATA(tg)
    cdef int64_t *op = <int64_t *>cnp.PyArray_DATA(out)
    cdef Buf b
    buf_open(buf, &b, n, KV_OI_ENTRY, m > GIL_THRESHOLD)
    if m > GIL_THRESHOLD:
        with nogil:
            kv_oi_floor_many(b.p, n, tp, m, op)
    else:
        kv_oi_floor_many(b.p, n, tp, m, op)
    buf_close(&b)
    return out


def offset_resolve(buf, int64_t n, slots, int64_t base_offset):
    """``(offsets, positions)`` int64 arrays for ``slots``: ``base_offset + relative offset`` and the position,
    and ``(base_offset, 0)`` for a slot of -1 (``OffsetIndex.lookup``'s answer when nothing is <= the target)."""
    cdef cnp.ndarray sl = _targets(slots)
    cdef int64_t m = sl.shape[0], i, s
    cdef cnp.ndarray offs = np.empty(m, dtype=np.int64)
    cdef cnp.ndarray poss = np.empty(m, dtype=np.int64)
    cdef const int64_t *sp = <const int64_t *>cnp.PyArray_DATA(sl)
    cdef int64_t *op = <int64_t *>cnp.PyArray_DATA(offs)
    cdef int64_t *pp = <int64_t *>cnp.PyArray_DATA(poss)
    cdef Buf b
    cdef bint bad = False
    buf_open(buf, &b, n, KV_OI_ENTRY, True)
    with nogil:
        for i in range(m):
            s = sp[i]
            if s < 0:
                op[i] = base_offset
                pp[i] = 0
            elif s < n:
                op[i] = base_offset + kv_oi_rel(b.p, s)
                pp[i] = kv_oi_pos(b.p, s)
            else:
                bad = True
                break
    buf_close(&b)
    if bad:
        raise ValueError(f"kvlog index: a slot outside -1..{n - 1}")
    return offs, poss


def offset_entries(buf, int64_t n, int64_t base_offset=0, int64_t start=0):
    """``(offsets, positions)`` int64 arrays of entries ``start..n-1`` (offsets = base_offset + relative)."""
    cdef Buf b
    cdef int64_t i, k
    if start < 0:
        start = 0
    k = n - start if n > start else 0
    cdef cnp.ndarray offs = np.empty(k, dtype=np.int64)
    cdef cnp.ndarray poss = np.empty(k, dtype=np.int64)
    cdef int64_t *op = <int64_t *>cnp.PyArray_DATA(offs)
    cdef int64_t *pp = <int64_t *>cnp.PyArray_DATA(poss)
    buf_open(buf, &b, n, KV_OI_ENTRY, True)
    with nogil:
        for i in range(k):
            op[i] = base_offset + kv_oi_rel(b.p, start + i)
            pp[i] = kv_oi_pos(b.p, start + i)
    buf_close(&b)
    return offs, poss


# ---------------------------------------------------------------------------------------------------
# time index (12-byte entries: timestamp int64, relativeOffset int32)
# ---------------------------------------------------------------------------------------------------

def time_lookup(buf, int64_t n, timestamp):
    """Largest slot whose timestamp is <= ``timestamp`` (Kafka's warm-section search), or -1."""
    cdef Buf b
    buf_open(buf, &b, n, KV_TI_ENTRY)
    cdef int64_t s = kv_ti_floor(b.p, n, _clamp(timestamp))
    buf_close(&b)
    return s


def time_lookup_entry(buf, int64_t n, timestamp):
    """``(timestamp, relative_offset)`` of the floor entry of ``timestamp``, or None when there is none."""
    cdef Buf b
    buf_open(buf, &b, n, KV_TI_ENTRY)
    cdef int64_t s = kv_ti_floor(b.p, n, _clamp(timestamp))
    cdef int64_t t = 0, r = 0
    if s >= 0:
        t = kv_ti_ts(b.p, s)
        r = kv_ti_rel(b.p, s)
    buf_close(&b)
    return None if s < 0 else (t, r)


def time_ceil(buf, int64_t n, timestamp):
    """Smallest slot whose timestamp is >= ``timestamp``, or -1."""
    cdef Buf b
    buf_open(buf, &b, n, KV_TI_ENTRY)
    cdef int64_t s = kv_ti_ceil(b.p, n, _clamp(timestamp))
    buf_close(&b)
    return s


def time_slot_for_offset(buf, int64_t n, rel_offset):
    """Largest slot whose relative offset is <= ``rel_offset`` (the last one among equal offsets), or -1."""
    cdef Buf b
    buf_open(buf, &b, n, KV_TI_ENTRY)
    cdef int64_t s = kv_ti_floor_rel(b.p, n, _clamp(rel_offset))
    buf_close(&b)
    return s


def time_count_below_offset(buf, int64_t n, rel_offset):
    """Number of leading entries whose relative offset is < ``rel_offset`` (what ``truncateTo`` keeps)."""
    cdef Buf b
    buf_open(buf, &b, n, KV_TI_ENTRY)
    cdef int64_t c = kv_ti_count_below_rel(b.p, n, _clamp(rel_offset))
    buf_close(&b)
    return c


def time_entry(buf, int64_t n, int64_t slot):
    """``(timestamp, relative_offset)`` stored in ``slot`` (0 <= slot < n)."""
    cdef Buf b
    if slot < 0 or slot >= n:
        raise ValueError(f"kvlog index: slot {slot} outside 0..{n - 1}")
    buf_open(buf, &b, n, KV_TI_ENTRY)
    cdef int64_t t = kv_ti_ts(b.p, slot), r = kv_ti_rel(b.p, slot)
    buf_close(&b)
    return t, r


def time_valid_entries(buf, int64_t n, int64_t start=0):
    """Number of leading trustworthy entries among the first ``n`` (entries before ``start`` are taken as checked).

    Timestamps must strictly increase and relative offsets never decrease; the first entry needs a timestamp
    >= 0 and a relative offset >= 0, and an all-zero entry (the preallocated tail) ends the prefix anywhere.
    """
    cdef Buf b
    cdef int64_t v
    buf_open(buf, &b, n, KV_TI_ENTRY, True)
    with nogil:
        v = kv_ti_valid_from(b.p, n, start)
    buf_close(&b)
    return v


def time_lookup_many(buf, int64_t n, timestamps):
    """Floor slots (int64 array, -1 for none) of every timestamp in ``timestamps``; equal to ``time_lookup``
    per element."""
    cdef cnp.ndarray tg = _targets(timestamps)
    cdef int64_t m = tg.shape[0]
    cdef cnp.ndarray out = np.empty(m, dtype=np.int64)
    cdef const int64_t *tp = <const int64_t *>cnp.PyArray_DATA(tg)
    cdef int64_t *op = <int64_t *>cnp.PyArray_DATA(out)
    cdef Buf b
    buf_open(buf, &b, n, KV_TI_ENTRY, m > GIL_THRESHOLD)
    if m > GIL_THRESHOLD:
        with nogil:
            kv_ti_floor_many(b.p, n, tp, m, op)
    else:
        kv_ti_floor_many(b.p, n, tp, m, op)
    buf_close(&b)
    return out


def time_resolve(buf, int64_t n, slots, int64_t base_offset):
    """``(timestamps, offsets)`` int64 arrays for ``slots``, ``(-1, base_offset)`` for a slot of -1
    (``TimeIndex.lookup``'s answer when every entry is later than the target)."""
    cdef cnp.ndarray sl = _targets(slots)
    cdef int64_t m = sl.shape[0], i, s
    cdef cnp.ndarray tss = np.empty(m, dtype=np.int64)
    cdef cnp.ndarray offs = np.empty(m, dtype=np.int64)
    cdef const int64_t *sp = <const int64_t *>cnp.PyArray_DATA(sl)
    cdef int64_t *tp = <int64_t *>cnp.PyArray_DATA(tss)
    cdef int64_t *op = <int64_t *>cnp.PyArray_DATA(offs)
    cdef Buf b
    cdef bint bad = False
    buf_open(buf, &b, n, KV_TI_ENTRY, True)
    with nogil:
        for i in range(m):
            s = sp[i]
            if s < 0:
                tp[i] = -1
                op[i] = base_offset
            elif s < n:
                tp[i] = kv_ti_ts(b.p, s)
                op[i] = base_offset + kv_ti_rel(b.p, s)
            else:
                bad = True
                break
    buf_close(&b)
    if bad:
        raise ValueError(f"kvlog index: a slot outside -1..{n - 1}")
    return tss, offs


def time_entries(buf, int64_t n, int64_t base_offset=0, int64_t start=0):
    """``(timestamps, offsets)`` int64 arrays of entries ``start..n-1`` (offsets = base_offset + relative)."""
    cdef Buf b
    cdef int64_t i, k
    if start < 0:
        start = 0
    k = n - start if n > start else 0
    cdef cnp.ndarray tss = np.empty(k, dtype=np.int64)
    cdef cnp.ndarray offs = np.empty(k, dtype=np.int64)
    cdef int64_t *tp = <int64_t *>cnp.PyArray_DATA(tss)
    cdef int64_t *op = <int64_t *>cnp.PyArray_DATA(offs)
    buf_open(buf, &b, n, KV_TI_ENTRY, True)
    with nogil:
        for i in range(k):
            tp[i] = kv_ti_ts(b.p, start + i)
            op[i] = base_offset + kv_ti_rel(b.p, start + i)
    buf_close(&b)
    return tss, offs


# ---------------------------------------------------------------------------------------------------
# encoding (used by tests and by writers that build whole index files in memory)
# ---------------------------------------------------------------------------------------------------

def offset_encode(rel_offsets, positions):
    """The bytes of an offset index holding these entries (no ordering checks: the caller's job)."""
    cdef cnp.ndarray r = _targets(rel_offsets)
    cdef cnp.ndarray p = _targets(positions)
    cdef int64_t m = r.shape[0], i
    if p.shape[0] != m:
        raise ValueError("kvlog index: offsets and positions differ in length")
    cdef const int64_t *rp = <const int64_t *>cnp.PyArray_DATA(r)
    cdef const int64_t *pp = <const int64_t *>cnp.PyArray_DATA(p)
    for i in range(m):
        if rp[i] < INT32_MIN or rp[i] > INT32_MAX or pp[i] < INT32_MIN or pp[i] > INT32_MAX:
            raise ValueError(f"kvlog index: entry {i} does not fit in int32")
    out = bytearray(m * KV_OI_ENTRY)
    cdef unsigned char[::1] o = out
    with nogil:
        for i in range(m):
            kv_oi_store(&o[0], i, <int32_t>rp[i], <int32_t>pp[i])
    return bytes(out)


def time_encode(timestamps, rel_offsets):
    """The bytes of a time index holding these entries (no ordering checks: the caller's job)."""
    cdef cnp.ndarray t = _targets(timestamps)
    cdef cnp.ndarray r = _targets(rel_offsets)
    cdef int64_t m = t.shape[0], i
    if r.shape[0] != m:
        raise ValueError("kvlog index: timestamps and offsets differ in length")
    cdef const int64_t *tp = <const int64_t *>cnp.PyArray_DATA(t)
    cdef const int64_t *rp = <const int64_t *>cnp.PyArray_DATA(r)
    for i in range(m):
        if rp[i] < INT32_MIN or rp[i] > INT32_MAX:
            raise ValueError(f"kvlog index: entry {i} offset does not fit in int32")
    out = bytearray(m * KV_TI_ENTRY)
    cdef unsigned char[::1] o = out
    with nogil:
        for i in range(m):
            kv_ti_store(&o[0], i, tp[i], <int32_t>rp[i])
    return bytes(out)


# ---------------------------------------------------------------------------------------------------
# bulk appends into a writable buffer (the mapped file): validate everything, then write, or write nothing
# ---------------------------------------------------------------------------------------------------

cdef inline int wbuf_open(object obj, Py_buffer *view, int64_t need) except -1:
    PyObject_GetBuffer(obj, view, PyBUF_WRITABLE)
    if need > view.len:
        PyBuffer_Release(view)
        raise ValueError(f"kvlog index: writing {need} bytes into a buffer of {view.len}")
    return 0


def offset_store_many(buf, int64_t slot, int64_t base_offset, offsets, positions, int64_t prev_offset,
                      int64_t prev_position, bint write=True):
    """Write ``(offsets[j] - base_offset, positions[j])`` into slots ``slot, slot + 1, ...`` of a writable buffer.

    Every offset must exceed the one before it (``prev_offset`` for the first; pass ``base_offset - 1`` for
    an empty index) and fit ``base_offset .. base_offset + 2^31 - 1``; every position must exceed the one
    before it (``prev_position``; -1 for an empty index) and be at most 2^31 - 1. Returns -1 once all were
    written, or the index of the first entry that breaks a rule, having written nothing. ``write=False``
    only checks (``buf`` is not touched).
    """
    cdef cnp.ndarray o = _targets(offsets)
    cdef cnp.ndarray p = _targets(positions)
    cdef int64_t m = o.shape[0], j, off, pos, bad = -1
    if p.shape[0] != m:
        raise ValueError("kvlog index: offsets and positions differ in length")
    if m == 0:
        return -1
    cdef const int64_t *op = <const int64_t *>cnp.PyArray_DATA(o)
    cdef const int64_t *pp = <const int64_t *>cnp.PyArray_DATA(p)
    cdef Py_buffer view
    if slot < 0:
        raise ValueError("kvlog index: negative slot")
    cdef unsigned char *dst = NULL
    if write:
        wbuf_open(buf, &view, (slot + m) * KV_OI_ENTRY)
        dst = <unsigned char *>view.buf
    with nogil:
        for j in range(m):
            off = op[j]
            pos = pp[j]
            if off <= prev_offset or off < base_offset or off - base_offset > INT32_MAX \
                    or pos <= prev_position or pos > INT32_MAX:
                bad = j
                break
            prev_offset = off
            prev_position = pos
        if bad < 0 and write:
            for j in range(m):
                kv_oi_store(dst, slot + j, <int32_t>(op[j] - base_offset), <int32_t>pp[j])
    if write:
        PyBuffer_Release(&view)
    return bad


def time_store_many(buf, int64_t n, int64_t max_entries, int64_t base_offset, timestamps, offsets,
                    int64_t last_timestamp, int64_t last_offset, bint skip_full_check=False):
    """``TimeIndex.maybe_append`` for each ``(timestamps[j], offsets[j])`` in turn, all or nothing.

    ``n`` entries are in use, the last being ``(last_timestamp, last_offset)`` (``(-1, base_offset)`` when
    ``n == 0``). Per entry, in Kafka's order: full (``n >= max_entries - 1`` unless ``skip_full_check``),
    offset below the last one, timestamp below the last one (both only when ``n > 0``); then an entry with
    a larger timestamp is appended (its offset must fit ``base_offset .. base_offset + 2^31 - 1``, and a slot
    must exist) and anything else is ignored. Returns ``(status, j, appended)``: status 0 (everything
    written), or 1 full / 2 offset goes back / 3 timestamp goes back / 4 offset does not fit, at entry ``j``,
    with nothing written.
    """
    cdef cnp.ndarray t = _targets(timestamps)
    cdef cnp.ndarray o = _targets(offsets)
    cdef int64_t m = t.shape[0], j, ts, off, k = n, status = 0, bad = -1
    if o.shape[0] != m:
        raise ValueError("kvlog index: timestamps and offsets differ in length")
    if m == 0:
        return 0, -1, 0
    cdef const int64_t *tp = <const int64_t *>cnp.PyArray_DATA(t)
    cdef const int64_t *op = <const int64_t *>cnp.PyArray_DATA(o)
    cdef int64_t lt = last_timestamp, lo = last_offset
    with nogil:
        for j in range(m):
            ts = tp[j]
            off = op[j]
            if not skip_full_check and k >= max_entries - 1:
                status = 1
            elif k > 0 and off < lo:
                status = 2
            elif k > 0 and ts < lt:
                status = 3
            elif ts > lt:
                if off < base_offset or off - base_offset > INT32_MAX:
                    status = 4
                elif k >= max_entries:
                    status = 1
                else:
                    k += 1
                    lt = ts
                    lo = off
            if status:
                bad = j
                break
    if status:
        return status, bad, 0
    if k == n:
        return 0, -1, 0
    cdef Py_buffer view
    wbuf_open(buf, &view, k * KV_TI_ENTRY)
    cdef unsigned char *dst = <unsigned char *>view.buf
    k = n
    lt = last_timestamp
    with nogil:
        for j in range(m):
            if tp[j] > lt:
                kv_ti_store(dst, k, tp[j], <int32_t>(op[j] - base_offset))
                lt = tp[j]
                k += 1
    PyBuffer_Release(&view)
    return 0, -1, k - n
