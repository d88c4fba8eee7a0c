"""Kafka's ``SkimpyOffsetMap`` (``LogCleaner``'s key map) with the KIP-280 version slots, and MD5.

One zero-filled C buffer of ``memory`` bytes holds ``slots = memory // bytes_per_entry`` slots. A slot is
``[16-byte MD5 of the key][int64 offset]`` (24 bytes, strategy ``offset``) or
``[16-byte MD5][int64 offset][int64 version]`` (32 bytes, strategies ``timestamp`` / ``header``), integers
big-endian, so a dump of the buffer is byte-for-byte what Kafka's ``ByteBuffer`` would hold.

Probing (Kafka's ``positionOf``): attempt ``i`` reads the big-endian int32 at hash bytes
``[min(i, 12), +4)``, adds ``max(0, i - 12)`` with 32-bit wrap-around, and uses slot
``abs(probe) % slots`` with ``abs(INT32_MIN) = 0``; a slot is empty when its first 24 bytes are zero.
Statistics follow Kafka: every put/get/retain decision is one lookup, every slot examined one probe.

Two tiers as everywhere in ``_core``: ``noexcept nogil`` kernels over a ``Map`` struct, and the
``OffsetMap`` class that validates arguments, releases the GIL for batches and maps failures to
:class:`OffsetMapError` / :class:`OffsetMapFullError` / :class:`kvlog.errors.ConfigError`.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.number cimport PyNumber_Index
from libc.math cimport isfinite
from libc.stdint cimport (INT32_MAX, INT32_MIN, INT64_MAX, int32_t, int64_t, uint8_t, uint32_t, uint64_t,
                          uintptr_t)
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

import numpy as np

cimport numpy as cnp

from kvlog.errors import ConfigError, KvlogError

cnp.import_array()


cdef extern from "kvlog_md5.h" nogil:
    void kvlog_md5(const void *data, size_t len, unsigned char *out)
    void kvlog_md5_many32(const unsigned char *data, const int32_t *off, size_t n, unsigned char *out)
    void kvlog_md5_many64(const unsigned char *data, const int64_t *off, size_t n, unsigned char *out)
    const char *kvlog_md5_kernel()
    const char *kvlog_md5_variant_name(int variant)
    int kvlog_md5_many_variant(int variant, const unsigned char *data, const int64_t *off, size_t n,
                               unsigned char *out)
    enum:
        KVLOG_MD5_NVARIANTS


cdef extern from "kvlog_bytes.h" nogil:
    uint32_t kv_load_be32(const unsigned char *p)
    int64_t kv_load_i64(const unsigned char *p)
    void kv_store_be64(unsigned char *p, uint64_t v)


cdef extern from *:
    """
    /* The map's use word, shared by threads that run without the GIL (always, on a free-threaded build):
       the number of readers inside, plus KV_OM_WRITER once a writer has claimed the map. A writer claims
       it with a compare-and-swap (a second writer, or a reader arriving after the claim, fails at once),
       then waits for the readers already inside to leave (reads are bounded: a probe or a batch), so a
       batch write is never refused because a short read happened to be in progress. The statistics are
       summed with atomic adds. */
    #include <sched.h>
    #define KV_OM_WRITER (1 << 30)
    static int kv_om_enter_read(int *use) {
        int v = __atomic_load_n(use, __ATOMIC_ACQUIRE);
        while (!(v & KV_OM_WRITER))
            if (__atomic_compare_exchange_n(use, &v, v + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return 0;
        return -1;
    }
    static void kv_om_exit_read(int *use) { __atomic_fetch_sub(use, 1, __ATOMIC_RELEASE); }
    /* 0: claimed with no reader inside; 1: claimed, readers to wait for (kv_om_wait_readers); -1: taken */
    static int kv_om_enter_write(int *use) {
        int v = __atomic_load_n(use, __ATOMIC_ACQUIRE);
        while (!(v & KV_OM_WRITER))
            if (__atomic_compare_exchange_n(use, &v, v | KV_OM_WRITER, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return v == 0 ? 0 : 1;
        return -1;
    }
    static void kv_om_wait_readers(int *use) {
        while (__atomic_load_n(use, __ATOMIC_ACQUIRE) != KV_OM_WRITER)
            sched_yield();
    }
    static void kv_om_exit_write(int *use) { __atomic_store_n(use, 0, __ATOMIC_RELEASE); }
    static void kv_om_add(int64_t *p, int64_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
    static int64_t kv_om_load(const int64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static void kv_om_store(int64_t *p, int64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    int kv_om_enter_read(int *use) nogil
    void kv_om_exit_read(int *use) nogil
    int kv_om_enter_write(int *use) nogil
    void kv_om_wait_readers(int *use) nogil
    void kv_om_exit_write(int *use) nogil
    void kv_om_add(int64_t *p, int64_t v) nogil
    int64_t kv_om_load(const int64_t *p) nogil
    void kv_om_store(int64_t *p, int64_t v) nogil


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #  define KV_OM_PREFETCH(p) __builtin_prefetch((const void *)(p), 1, 3)
    #else
    #  define KV_OM_PREFETCH(p) ((void)(p))
    #endif
    """
    void KV_OM_PREFETCH(const void *p) nogil


cdef extern from *:
    """
    #if defined(__linux__)
    #  include <sys/mman.h>
    #endif
    /* Ask for transparent huge pages over the 2 MiB-aligned part of a large map: probes land on random
       slots, so with 4 KiB pages nearly every probe would also miss the TLB. Advice only; harmless if
       refused or unsupported. */
    static void kv_om_advise_huge(void *p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        const uintptr_t huge = (uintptr_t)2 << 20;
        uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
        uintptr_t e = ((uintptr_t)p + n) & ~(huge - 1);
        if (e > a)
            (void)madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
    #else
        (void)p; (void)n;
    #endif
    }
    """
    void kv_om_advise_huge(void *p, size_t n) nogil


cdef extern from *:
    """
    #include <stdint.h>
    /* a % d for 32-bit a and d != 0 without a division instruction: Lemire, Kaser & Kurz, "Faster remainder
       by direct computation" (2019), exact for every 32-bit a and d. The probe loop takes one remainder per
       slot examined, and a hardware divide costs more than the rest of the probe. */
    #if defined(__SIZEOF_INT128__)
    static inline uint64_t kv_om_mod_magic(uint32_t d) { return UINT64_C(0xFFFFFFFFFFFFFFFF) / d + 1; }
    static inline uint32_t kv_om_mod(uint32_t a, uint64_t magic, uint32_t d) {
        uint64_t low = magic * a;
        return (uint32_t)(((unsigned __int128)low * d) >> 64);
    }
    #else
    static inline uint64_t kv_om_mod_magic(uint32_t d) { return d; }
    static inline uint32_t kv_om_mod(uint32_t a, uint64_t magic, uint32_t d) { (void)magic; return a % d; }
    #endif
    """
    uint64_t kv_om_mod_magic(uint32_t d) nogil
    uint32_t kv_om_mod(uint32_t a, uint64_t magic, uint32_t d) nogil


class OffsetMapError(KvlogError, ValueError):
    """Invalid use of an offset map: a bad key, offset, version or column, or a concurrent mutation."""


class OffsetMapFullError(OffsetMapError):
    """A put into a map whose every slot is taken (Kafka: "Attempted to add a new entry to a full offset
    map")."""


OffsetMapError.__module__ = "kvlog.offset_map"
OffsetMapFullError.__module__ = "kvlog.offset_map"

STRATEGIES = ("offset", "timestamp", "header")
HASH_SIZE = 16
MD5_KERNEL = kvlog_md5_kernel().decode("ascii")
MAX_MEMORY = INT32_MAX          # Kafka sizes the map with an int (LogCleaner caps it at Int.MaxValue)

cdef enum:
    HS = 16                 # MD5 digest bytes
    LAST_WINDOW = 12        # hashSize - 4: the last int32 window of the digest
    CHUNK = 64              # rows hashed at a time by the batch kernels (two chunks in flight)
    RING = 128              # 2 * CHUNK, a power of two: per-row pipeline state is indexed by row & (RING - 1)
    DIST0 = 24              # rows ahead whose first probe slot is prefetched
    DIST1 = 14              # rows ahead whose prefetched slot is peeked at to prefetch the next one
    DIST2 = 6               # ... and once more (third probes are common near load factor 0.9)
    GIL_THRESHOLD = 64      # batch size from which the GIL is released
    ALIGN = 64
    HUGE_ALIGN = 2 << 20    # maps of at least HUGE_MIN bytes start on a 2 MiB boundary (huge pages)
    HUGE_MIN = 8 << 20


# ---------------------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------------------

cdef struct Map:
    unsigned char *buf
    int64_t slots
    uint64_t magic          # kv_om_mod_magic(slots)
    int64_t bpe             # bytes per entry: 24 or 32
    bint versioned
    int64_t entries
    int64_t latest          # latest offset put (-1 when none)


cdef struct Stats:
    int64_t lookups
    int64_t probes


cdef inline int64_t probe_slot(const unsigned char *h, int64_t attempt, uint32_t slots,
                               uint64_t magic) noexcept nogil:
    """Kafka's positionOf as a slot number: int32 window of the digest plus the linear step, Java abs."""
    cdef int64_t w = attempt if attempt < LAST_WINDOW else LAST_WINDOW
    cdef int32_t p = <int32_t>(kv_load_be32(h + w) + <uint32_t>(attempt - w))
    cdef uint32_t a
    if p == INT32_MIN:
        a = 0
    elif p < 0:
        a = <uint32_t>(-p)
    else:
        a = <uint32_t>p
    return kv_om_mod(a, magic, slots)       # a % slots (slots < 2**31)


cdef inline bint slot_empty(const unsigned char *s) noexcept nogil:
    cdef uint64_t x, y, z
    memcpy(&x, s, 8)
    memcpy(&y, s + 8, 8)
    memcpy(&z, s + 16, 8)
    return (x | y | z) == 0


cdef inline bint hash_eq(const unsigned char *s, const unsigned char *h) noexcept nogil:
    cdef uint64_t s0, s1, h0, h1
    memcpy(&s0, s, 8)
    memcpy(&s1, s + 8, 8)
    memcpy(&h0, h, 8)
    memcpy(&h1, h + 8, 8)
    return ((s0 ^ h0) | (s1 ^ h1)) == 0


cdef inline unsigned char *slot_at(const Map *m, const unsigned char *h, int64_t attempt) noexcept nogil:
    return m.buf + probe_slot(h, attempt, <uint32_t>m.slots, m.magic) * m.bpe


cdef inline unsigned char *map_find(const Map *m, const unsigned char *h, unsigned char *s0,
                                    Stats *st) noexcept nogil:
    """Kafka's get: the slot holding digest ``h``, or NULL at an empty slot or after slots + 12 attempts.
    ``s0`` is ``slot_at(m, h, 0)``."""
    cdef int64_t attempt = 0, max_attempts = m.slots + LAST_WINDOW
    cdef unsigned char *s = s0
    st.lookups += 1
    while attempt < max_attempts:
        if attempt:
            s = slot_at(m, h, attempt)
        st.probes += 1
        if slot_empty(s):
            return NULL
        if hash_eq(s, h):
            return s
        attempt += 1
    return NULL


cdef inline int map_put(Map *m, const unsigned char *h, unsigned char *s0, int64_t offset, int64_t version,
                        Stats *st) noexcept nogil:
    """Kafka's put (caller has checked ``entries < slots``; ``s0`` is ``slot_at(m, h, 0)``). 1: stored;
    0: kept a higher stored version; -1: no empty slot found (unreachable while entries < slots; a guard,
    not a Kafka rule)."""
    cdef int64_t attempt = 0, limit = 3 * m.slots + 2 * LAST_WINDOW
    cdef unsigned char *s = s0
    st.lookups += 1
    m.latest = offset
    while attempt <= limit:
        if attempt:
            s = slot_at(m, h, attempt)
        st.probes += 1
        if slot_empty(s):
            memcpy(s, h, HS)
            kv_store_be64(s + HS, <uint64_t>offset)
            if m.versioned:
                kv_store_be64(s + HS + 8, <uint64_t>version)
            m.entries += 1
            return 1
        if hash_eq(s, h):
            if m.versioned:
                if kv_load_i64(s + HS + 8) > version:
                    return 0
                kv_store_be64(s + HS + 8, <uint64_t>version)
            kv_store_be64(s + HS, <uint64_t>offset)
            return 1
        attempt += 1
    return -1


cdef inline bint retain_one(const Map *m, const unsigned char *h, unsigned char *s0, int64_t offset,
                            int64_t version, Stats *st) noexcept nogil:
    """Keep a record? Absent key: yes. Versioned map and versions differ: version >= stored version.
    Otherwise: offset >= stored offset (Kafka's cleaner rule)."""
    cdef const unsigned char *s = map_find(m, h, s0, st)
    cdef int64_t stored
    if s == NULL:
        return True
    if m.versioned:
        stored = kv_load_i64(s + HS + 8)
        if stored != version:
            return version >= stored
    return offset >= kv_load_i64(s + HS)


cdef struct Cols:
    const unsigned char *data
    const int32_t *off32        # one of off32 / off64 is set
    const int64_t *off64
    const uint8_t *valid        # NULL: all valid
    bint bitmap                 # valid is an Arrow bitmap (LSB first) instead of one byte per row
    const int64_t *offsets
    const int64_t *versions     # NULL: no versions (-1)
    const unsigned char *digests  # NULL: hash the keys; else the rows' 16-byte MD5 digests, given
    int64_t n


cdef inline void hash_rows(const Cols *c, int64_t start, int64_t count, unsigned char *out) noexcept nogil:
    if c.off32 != NULL:
        kvlog_md5_many32(c.data, c.off32 + start, <size_t>count, out)
    else:
        kvlog_md5_many64(c.data, c.off64 + start, <size_t>count, out)


cdef inline bint row_valid(const Cols *c, int64_t i) noexcept nogil:
    if c.valid == NULL:
        return True
    if c.bitmap:
        return (c.valid[i >> 3] >> (i & 7)) & 1
    return c.valid[i] != 0


cdef int64_t check_offsets(const Cols *c, int64_t size) noexcept nogil:
    """-1 if the key offsets are monotone and inside ``size`` data bytes, else the first bad row."""
    cdef int64_t i, prev, cur
    prev = c.off32[0] if c.off32 != NULL else c.off64[0]
    if prev < 0 or prev > size:
        return 0
    for i in range(1, c.n + 1):
        cur = c.off32[i] if c.off32 != NULL else c.off64[i]
        if cur < prev or cur > size:
            return i - 1
        prev = cur
    return -1


cdef struct Pipe:
    unsigned char h[RING * HS]      # digests of two consecutive chunks
    unsigned char *s0[RING]         # per row: slot of its first probe
    unsigned char *sp[RING]         # per row: slot prefetched last (attempt at[])
    int32_t at[RING]                # per row: attempt whose slot was prefetched last; -1: chain resolved


cdef inline void prefetch_slot(const Map *m, const unsigned char *s) noexcept nogil:
    KV_OM_PREFETCH(s)
    KV_OM_PREFETCH(s + m.bpe - 1)           # 24-byte slots may straddle two cache lines


cdef inline void pipe_hash(const Cols *c, Pipe *p, int64_t k) noexcept nogil:
    """Digest the rows of chunk k into the ring."""
    cdef int64_t start = k * CHUNK, cnt
    if start < c.n:
        cnt = CHUNK if c.n - start > CHUNK else c.n - start
        if c.digests != NULL:  # computed once by the caller for a map build and a recopy of the same rows
            memcpy(p.h + (start & (RING - 1)) * HS, c.digests + start * HS, <size_t>(cnt * HS))
        else:
            hash_rows(c, start, cnt, p.h + (start & (RING - 1)) * HS)


cdef inline void pipe_first(const Map *m, const Cols *c, Pipe *p, int64_t r) noexcept nogil:
    """Prefetch the first probe slot of row r."""
    cdef int64_t x = r & (RING - 1)
    cdef unsigned char *s
    if r < c.n and row_valid(c, r):
        s = slot_at(m, p.h + HS * x, 0)
        prefetch_slot(m, s)
        p.s0[x] = s
        p.sp[x] = s
        p.at[x] = 0
    else:
        p.at[x] = -1


cdef inline void pipe_peek(const Map *m, Pipe *p, int64_t r, int64_t n) noexcept nogil:
    """Look at row r's last prefetched slot (in cache by now): if it is neither empty nor holds the row's
    digest the probe chain goes on, so prefetch the next slot. A guess (earlier rows may still fill slots)
    used for nothing but prefetching."""
    cdef int64_t x = r & (RING - 1)
    cdef int32_t a
    cdef const unsigned char *h
    cdef const unsigned char *s
    cdef unsigned char *nxt
    if r >= n:
        return
    a = p.at[x]
    if a < 0:
        return
    h = p.h + HS * x
    s = p.sp[x]
    if slot_empty(s) or hash_eq(s, h):
        p.at[x] = -1
    else:
        nxt = slot_at(m, h, a + 1)
        prefetch_slot(m, nxt)
        p.sp[x] = nxt
        p.at[x] = a + 1


cdef inline void pipe_start(const Map *m, const Cols *c, Pipe *p) noexcept nogil:
    cdef int64_t r
    pipe_hash(c, p, 0)
    for r in range(DIST0):
        pipe_first(m, c, p, r)


cdef inline void pipe_step(const Map *m, const Cols *c, Pipe *p, int64_t i) noexcept nogil:
    """Before row i is worked on: hash the next chunk when i starts a chunk, and move the rows ahead of
    i through the prefetch stages. Rows are worked on strictly in order; this only hides latency."""
    if (i & (CHUNK - 1)) == 0:
        pipe_hash(c, p, i // CHUNK + 1)
    pipe_first(m, c, p, i + DIST0)
    pipe_peek(m, p, i + DIST1, c.n)
    pipe_peek(m, p, i + DIST2, c.n)


cdef int64_t put_many_kernel(Map *m, const Cols *c, int64_t max_load, Stats *st, Pipe *p) noexcept nogil:
    """Sequential puts of rows 0..n-1 (null keys skipped) until the map holds ``max_load`` entries;
    returns the number of rows consumed. Exactly sequential ``put`` calls; the pipeline (pipe_step) only
    prefetches."""
    cdef int64_t n = c.n, i
    pipe_start(m, c, p)
    for i in range(n):
        pipe_step(m, c, p, i)
        if not row_valid(c, i):
            continue
        if m.entries >= max_load:
            return i
        if map_put(m, p.h + HS * (i & (RING - 1)), p.s0[i & (RING - 1)], c.offsets[i],
                   c.versions[i] if c.versions != NULL else -1, st) < 0:
            return i
    return n


cdef void retain_many_kernel(const Map *m, const Cols *c, Stats *st, Pipe *p, uint8_t *out) noexcept nogil:
    cdef int64_t n = c.n, i
    pipe_start(m, c, p)
    for i in range(n):
        pipe_step(m, c, p, i)
        if not row_valid(c, i):
            out[i] = 1
        else:
            out[i] = retain_one(m, p.h + HS * (i & (RING - 1)), p.s0[i & (RING - 1)], c.offsets[i],
                                c.versions[i] if c.versions != NULL else -1, st)


# ---------------------------------------------------------------------------------------------------
# argument handling
# ---------------------------------------------------------------------------------------------------

cdef inline int64_t _i64(object value, str what) except? -1:
    try:
        value = PyNumber_Index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int, not {type(value).__name__}") from None
    if not (-INT64_MAX - 1 <= value <= INT64_MAX):
        raise OffsetMapError(f"{what} {value} does not fit in a signed 64-bit integer")
    return <int64_t>value


cdef struct Key:
    const unsigned char *p
    Py_ssize_t n
    bint own
    Py_buffer view


cdef inline int key_open(object key, Key *k) except -1:
    if PyBytes_CheckExact(key):
        k.p = <const unsigned char *>PyBytes_AS_STRING(key)
        k.n = PyBytes_GET_SIZE(key)
        k.own = False
        return 0
    if key is None:
        raise OffsetMapError("the offset map holds keyed records only: key must not be None")
    PyObject_GetBuffer(key, &k.view, PyBUF_SIMPLE)
    k.own = True
    k.p = <const unsigned char *>k.view.buf
    k.n = k.view.len
    return 0


cdef inline void key_close(Key *k) noexcept:
    if k.own:
        k.own = False
        PyBuffer_Release(&k.view)


cdef inline void key_digest(object key, unsigned char *h) except *:
    cdef Key k
    key_open(key, &k)
    kvlog_md5(k.p, <size_t>k.n, h)
    key_close(&k)


def _int64_column(obj, str what, Py_ssize_t n):
    arr = np.ascontiguousarray(obj)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or not np.can_cast(arr.dtype, np.int64, "safe"):
        raise OffsetMapError(f"{what} must be a one-dimensional int64 array, got {arr.dtype} with "
                             f"shape {arr.shape}")
    if arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    if arr.shape[0] != n:
        raise OffsetMapError(f"{what} has {arr.shape[0]} entries for {n} keys")
    return arr


cdef unsigned char _NO_BYTES[1]     # key data of a column without a data buffer (all keys empty)


cdef class _Batch:
    """Pinned, validated columns for one put_many / retain_many call."""
    cdef Cols c
    cdef Py_buffer view
    cdef bint held
    cdef object keep

    def __dealloc__(self):
        if self.held:
            PyBuffer_Release(&self.view)


cdef int _given_digests(_Batch b, object digests) except -1:
    """Point the batch at caller-computed digests (kept alive with it), 16 bytes per row."""
    cdef const uint8_t[::1] d
    if digests is None:
        return 0
    arr = np.ascontiguousarray(digests, dtype=np.uint8).reshape(-1)
    if arr.shape[0] != HS * b.c.n:
        raise OffsetMapError(f"digests must hold {HS} bytes per key ({HS * b.c.n}), not {arr.shape[0]}")
    d = arr
    b.keep = (b.keep, arr)
    b.c.digests = &d[0] if b.c.n else NULL
    return 0


cdef _Batch _batch(object key_data, object key_offsets, object key_valid, object offsets, object versions,
                   bint bitmap, bint need_versions):
    cdef _Batch b = _Batch.__new__(_Batch)
    cdef const int32_t[::1] o32
    cdef const int64_t[::1] o64
    cdef const uint8_t[::1] valid
    cdef const int64_t[::1] offs
    cdef const int64_t[::1] vers
    cdef Py_ssize_t n, size
    cdef int64_t bad
    koff = np.ascontiguousarray(key_offsets)
    if koff.ndim != 1 or koff.dtype not in (np.int32, np.int64):
        raise OffsetMapError(f"key_offsets must be a one-dimensional int32 or int64 array (Arrow binary or "
                             f"large_binary offsets), got {koff.dtype} with shape {koff.shape}")
    if koff.shape[0] < 1:
        raise OffsetMapError("key_offsets must have n + 1 entries (at least one)")
    n = koff.shape[0] - 1
    offs_arr = _int64_column(offsets, "offsets", n)
    offs = offs_arr
    keep = [koff, offs_arr, key_data]
    b.c.n = n
    b.c.digests = NULL
    b.c.offsets = &offs[0] if n else NULL
    if key_data is None:
        b.c.data = _NO_BYTES
        size = 0
    else:
        PyObject_GetBuffer(key_data, &b.view, PyBUF_SIMPLE)
        b.held = True
        b.c.data = <const unsigned char *>b.view.buf
        size = b.view.len
    if koff.dtype == np.int32:
        o32 = koff
        b.c.off32 = &o32[0]
        b.c.off64 = NULL
    else:
        o64 = koff
        b.c.off64 = &o64[0]
        b.c.off32 = NULL
    b.c.valid = NULL
    b.c.bitmap = bitmap
    if key_valid is not None:
        varr = np.ascontiguousarray(key_valid)
        if varr.ndim != 1 or varr.dtype not in (np.uint8, np.bool_, np.int8):
            if varr.ndim == 1 and varr.dtype.kind in "iub" and not bitmap:
                varr = (varr != 0).view(np.uint8)
            else:
                raise OffsetMapError(f"key_valid must be a one-dimensional uint8 array, got {varr.dtype}")
        varr = varr.view(np.uint8)
        if varr.shape[0] < ((n + 7) >> 3 if bitmap else n):
            unit = "bytes" if bitmap else "entries"
            raise OffsetMapError(f"key_valid has {varr.shape[0]} {unit} for {n} keys")
        if varr.shape[0]:
            valid = varr
            b.c.valid = &valid[0]
        keep.append(varr)
    b.c.versions = NULL
    if versions is not None:
        vers_arr = _int64_column(versions, "versions", n)
        vers = vers_arr
        b.c.versions = &vers[0] if n else NULL
        keep.append(vers_arr)
    elif need_versions:
        raise OffsetMapError("this map keeps versions (strategy timestamp/header): versions are required")
    b.keep = keep
    with nogil:
        bad = check_offsets(&b.c, size)
    if bad >= 0:
        lo = koff[bad]
        hi = koff[bad + 1] if bad < n else lo
        raise OffsetMapError(f"key {bad}: offsets {lo}..{hi} are decreasing or outside {size} key bytes")
    return b


# ---------------------------------------------------------------------------------------------------
# the map
# ---------------------------------------------------------------------------------------------------

cdef class OffsetMap:
    """Kafka's SkimpyOffsetMap over one zero-filled C buffer (see the module docstring)."""
    cdef Map m
    cdef Stats st
    cdef void *raw
    cdef int64_t _memory
    cdef int _strategy
    cdef double _load_factor
    cdef int64_t _max_load
    cdef bint _dirty
    cdef int _use               # readers inside, plus KV_OM_WRITER once a writer claimed it: kv_om_enter_*

    def __cinit__(self, memory, *, strategy="offset", load_factor=0.9):
        cdef int64_t mem, bpe, slots
        cdef double lf
        try:
            mem = _i64(memory, "memory")
        except (TypeError, OffsetMapError) as exc:
            raise ConfigError(f"offset map memory must be an int of bytes: {exc}") from None
        if not isinstance(strategy, str) or strategy not in STRATEGIES:
            raise ConfigError(f"compaction strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
        try:
            lf = float(load_factor)
        except (TypeError, ValueError):
            raise ConfigError(f"load_factor must be a number, got {load_factor!r}") from None
        if not isfinite(lf) or not (0.0 < lf <= 1.0):
            raise ConfigError(f"load_factor must be in (0, 1], got {load_factor!r}")
        self._strategy = STRATEGIES.index(strategy)
        bpe = HS + 8 if self._strategy == 0 else HS + 16
        if mem < 0 or mem > MAX_MEMORY:
            raise ConfigError(f"offset map memory must be between 0 and {MAX_MEMORY} bytes, got {mem}")
        slots = mem // bpe
        if slots < 2:
            raise ConfigError(f"an offset map of {mem} bytes holds {slots} slots of {bpe} bytes; at least 2 "
                              f"are needed")
        if not (slots * lf > 1.0):
            raise ConfigError(f"offset map too small: {slots} slots x load factor {lf} must exceed 1 "
                              f"(increase the dedupe buffer size)")
        cdef uintptr_t align = HUGE_ALIGN if mem >= HUGE_MIN else ALIGN
        # calloc: large blocks come straight from zero-filled pages, so untouched slots cost no RSS
        self.raw = calloc(<size_t>mem + align, 1)
        if self.raw == NULL:
            raise MemoryError(f"cannot allocate an offset map of {mem} bytes")
        self.m.buf = <unsigned char *>((<uintptr_t>self.raw + align - 1) & ~(align - 1))
        if mem >= HUGE_MIN:
            kv_om_advise_huge(self.m.buf, <size_t>mem)
        self.m.slots = slots
        self.m.magic = kv_om_mod_magic(<uint32_t>slots)
        self.m.bpe = bpe
        self.m.versioned = self._strategy != 0
        self.m.entries = 0
        self.m.latest = -1
        self._memory = mem
        self._load_factor = lf
        self._max_load = <int64_t>(slots * lf)
        self._dirty = False

    def __dealloc__(self):
        free(self.raw)

    # --- guards -----------------------------------------------------------------------------------
    cdef inline int _enter_write(self) except -1:
        cdef int rc = kv_om_enter_write(&self._use)
        if rc < 0:
            raise OffsetMapError("the offset map is being written by a batch running in another thread")
        if rc > 0:
            with nogil:  # readers inside finish (a GIL-build reader leaves only after taking the GIL back)
                kv_om_wait_readers(&self._use)
        return 0

    cdef inline int _enter_read(self) except -1:
        if kv_om_enter_read(&self._use) < 0:
            raise OffsetMapError("the offset map is being written by a batch running in another thread")
        return 0

    cdef inline void _count(self, Stats *st) noexcept nogil:
        kv_om_add(&self.st.lookups, st.lookups)
        kv_om_add(&self.st.probes, st.probes)

    cdef inline int64_t _version(self, object version) except? -1:
        if self.m.versioned:
            if version is None:
                raise OffsetMapError(f"strategy {STRATEGIES[self._strategy]!r} keeps versions: version is "
                                     f"required")
            return _i64(version, "version")
        return -1

    # --- properties -------------------------------------------------------------------------------
    @property
    def memory(self):
        """Bytes of the buffer (Kafka's ``memory``)."""
        return self._memory

    @property
    def bytes_per_entry(self):
        """24 (MD5 + offset) or 32 (MD5 + offset + version)."""
        return self.m.bpe

    @property
    def slots(self):
        return self.m.slots

    @property
    def strategy(self):
        return STRATEGIES[self._strategy]

    @property
    def versioned(self):
        return bool(self.m.versioned)

    @property
    def load_factor(self):
        return self._load_factor

    @property
    def max_load(self):
        """Entries at which ``put_many`` stops: ``int(slots * load_factor)`` (Kafka's maxDesiredMapSize)."""
        return self._max_load

    @property
    def size(self):
        """Entries in the map (distinct digests put since the last clear)."""
        return self.m.entries

    @property
    def utilization(self):
        return self.m.entries / <double>self.m.slots

    @property
    def is_full(self):
        """True once ``size >= max_load``: ``put_many`` consumes no further keyed record."""
        return self.m.entries >= self._max_load

    @property
    def latest_offset(self):
        """Offset of the latest put (-1 after construction or clear)."""
        return self.m.latest

    @property
    def lookups(self):
        """put/get/retain decisions since the last clear."""
        return kv_om_load(&self.st.lookups)

    @property
    def probes(self):
        """Slots examined by those lookups."""
        return kv_om_load(&self.st.probes)

    @property
    def collisions(self):
        """Extra probes: ``probes - lookups``."""
        return kv_om_load(&self.st.probes) - kv_om_load(&self.st.lookups)

    @property
    def collision_rate(self):
        """Kafka's collisionRate, ``(probes - lookups) / lookups`` (0.0 before the first lookup)."""
        cdef int64_t lookups = kv_om_load(&self.st.lookups)
        if lookups == 0:
            return 0.0
        return (kv_om_load(&self.st.probes) - lookups) / <double>lookups

    def __len__(self):
        return self.m.entries

    # --- single records ------------------------------------------------------------------------------
    # Each method enters the map (a reader, or the one writer: kv_om_enter_*) right before touching the
    # buffer and leaves it right after, so no thread can start a batch in between, GIL or not; a conflict
    # raises OffsetMapError instead of waiting (the cleaner never shares a map while it fills it).
    def put(self, key, offset, version=None):
        """Map ``key`` to ``offset`` (and ``version``, required by timestamp/header maps). False when a
        stored higher version kept the entry. OffsetMapFullError when ``size >= slots``."""
        cdef unsigned char h[HS]
        cdef int64_t off = _i64(offset, "offset")
        cdef int64_t ver = self._version(version)
        cdef int rc
        cdef Stats st
        st.lookups = 0
        st.probes = 0
        key_digest(key, h)
        self._enter_write()
        try:
            if self.m.entries >= self.m.slots:
                raise OffsetMapFullError(f"Attempted to add a new entry to a full offset map, entries: "
                                         f"{self.m.entries}, slots: {self.m.slots}")
            self._dirty = True
            rc = map_put(&self.m, h, slot_at(&self.m, h, 0), off, ver, &st)
            self._count(&st)
        finally:
            kv_om_exit_write(&self._use)
        if rc < 0:
            raise OffsetMapFullError(f"no free slot found for a new entry (entries: {self.m.entries}, "
                                     f"slots: {self.m.slots})")
        return rc == 1

    cdef const unsigned char *_find(self, object key) except? NULL:
        """The slot holding ``key``'s digest, or NULL; entered and left as a reader around the probe (a
        slot's bytes are read before anyone may write: callers copy what they need at once)."""
        cdef unsigned char h[HS]
        cdef const unsigned char *slot
        cdef Stats st
        st.lookups = 0
        st.probes = 0
        key_digest(key, h)
        self._enter_read()
        slot = map_find(&self.m, h, slot_at(&self.m, h, 0), &st)
        self._count(&st)
        return slot

    def get(self, key):
        """The offset stored for ``key``, or -1."""
        cdef const unsigned char *s = self._find(key)
        cdef int64_t got = -1 if s == NULL else kv_load_i64(s + HS)
        kv_om_exit_read(&self._use)
        return got

    def get_version(self, key):
        """The version stored for ``key``, or -1 (always -1 for the offset strategy)."""
        cdef const unsigned char *s
        cdef int64_t got
        cdef unsigned char h[HS]
        if not self.m.versioned:
            key_digest(key, h)  # the key is still checked; no lookup is counted
            return -1
        s = self._find(key)
        got = -1 if s == NULL else kv_load_i64(s + HS + 8)
        kv_om_exit_read(&self._use)
        return got

    def __contains__(self, key):
        cdef const unsigned char *s = self._find(key)
        kv_om_exit_read(&self._use)
        return s != NULL

    def should_retain(self, key, offset, version=None):
        """Keep the record at ``offset`` (with ``version``) given the map? See the module docstring."""
        cdef unsigned char h[HS]
        cdef int64_t off = _i64(offset, "offset")
        cdef int64_t ver = self._version(version)
        cdef bint keep
        cdef Stats st
        st.lookups = 0
        st.probes = 0
        key_digest(key, h)
        self._enter_read()
        keep = retain_one(&self.m, h, slot_at(&self.m, h, 0), off, ver, &st)
        self._count(&st)
        kv_om_exit_read(&self._use)
        return keep

    def update_latest_offset(self, offset):
        """Kafka's updateLatestOffset (the cleaner moves it past offset gaps after a whole segment)."""
        cdef int64_t off = _i64(offset, "offset")
        self._enter_write()
        self.m.latest = off
        kv_om_exit_write(&self._use)

    def clear(self):
        """Zero the buffer, entries, statistics and latest offset (Kafka's clear)."""
        self._enter_write()
        try:
            if self._dirty:
                with nogil:
                    memset(self.m.buf, 0, <size_t>(self.m.slots * self.m.bpe))
            self._dirty = False
            self.m.entries = 0
            self.m.latest = -1
            kv_om_store(&self.st.lookups, 0)
            kv_om_store(&self.st.probes, 0)
        finally:
            kv_om_exit_write(&self._use)

    # --- batches ----------------------------------------------------------------------------------
    def put_many(self, key_data, key_offsets, key_valid, offsets, versions=None, *, bint bitmap=False,
                 digests=None):
        """Sequential puts of a binary column of keys (null keys skipped) until ``size >= max_load``;
        returns the number of records consumed. Releases the GIL. See the module docstring.
        ``digests``: the rows' MD5 digests (16 bytes each, as :func:`md5_many` gives) to use instead of
        hashing the keys again."""
        cdef _Batch b
        cdef Stats st
        cdef int64_t done
        cdef Pipe pipe
        b = _batch(key_data, key_offsets, key_valid, offsets, versions, bitmap, self.m.versioned)
        _given_digests(b, digests)
        if not self.m.versioned:
            b.c.versions = NULL
        self._enter_write()
        try:
            if b.c.n == 0:
                return 0
            self._dirty = True
            st.lookups = 0
            st.probes = 0
            if b.c.n >= GIL_THRESHOLD:
                with nogil:
                    done = put_many_kernel(&self.m, &b.c, self._max_load, &st, &pipe)
            else:
                done = put_many_kernel(&self.m, &b.c, self._max_load, &st, &pipe)
            self._count(&st)
        finally:
            kv_om_exit_write(&self._use)
        return done

    def retain_many(self, key_data, key_offsets, key_valid, offsets, versions=None, *, bint bitmap=False,
                    digests=None):
        """One byte per record: 1 keep, 0 drop, by :meth:`should_retain`'s rule (null keys are kept, so
        keys are kept). Releases the GIL; several may run at once. ``digests`` as for :meth:`put_many`."""
        cdef _Batch b
        cdef Stats st
        cdef Pipe pipe
        cdef cnp.ndarray out
        b = _batch(key_data, key_offsets, key_valid, offsets, versions, bitmap, self.m.versioned)
        _given_digests(b, digests)
        if not self.m.versioned:
            b.c.versions = NULL
        out = np.empty(b.c.n, dtype=np.uint8)
        self._enter_read()
        try:
            if b.c.n == 0:
                return out
            st.lookups = 0
            st.probes = 0
            if b.c.n >= GIL_THRESHOLD:
                with nogil:
                    retain_many_kernel(&self.m, &b.c, &st, &pipe, <uint8_t *>cnp.PyArray_DATA(out))
            else:
                retain_many_kernel(&self.m, &b.c, &st, &pipe, <uint8_t *>cnp.PyArray_DATA(out))
            self._count(&st)
        finally:
            kv_om_exit_read(&self._use)
        return out

    # --- raw memory -------------------------------------------------------------------------------
    def memory_view(self):
        """A read-only, live view of the whole ``memory``-byte buffer (for tests and dumps)."""
        cdef _MemoryView v = _MemoryView.__new__(_MemoryView)
        v.owner = self
        return memoryview(v)


cdef class _MemoryView:
    cdef OffsetMap owner
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]

    def __getbuffer__(self, Py_buffer *view, int flags):
        view.buf = <void *>self.owner.m.buf
        view.obj = self
        view.len = <Py_ssize_t>self.owner._memory
        view.readonly = 1
        view.itemsize = 1
        view.format = "B"
        view.ndim = 1
        self.shape[0] = view.len
        self.strides[0] = 1
        view.shape = self.shape
        view.strides = self.strides
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer *view):
        pass


# ---------------------------------------------------------------------------------------------------
# MD5 and probing, exposed for tests and tools
# ---------------------------------------------------------------------------------------------------

def md5(data):
    """MD5 digest (16 bytes) of any bytes-like object, computed by kvlog's C kernel."""
    cdef unsigned char h[HS]
    cdef Key k
    key_open(data, &k)
    if k.n >= 4096:
        with nogil:
            kvlog_md5(k.p, <size_t>k.n, h)
    else:
        kvlog_md5(k.p, <size_t>k.n, h)
    key_close(&k)
    return PyBytes_FromStringAndSize(<char *>h, HS)


def md5_variants():
    """Names of the multi-message MD5 kernels this machine can run (index = variant id)."""
    cdef int v
    cdef unsigned char d[16]
    cdef int64_t off[2]
    off[0] = 0
    off[1] = 0
    return [kvlog_md5_variant_name(v).decode("ascii") for v in range(KVLOG_MD5_NVARIANTS)
            if kvlog_md5_many_variant(v, d, off, 1, d) == 0]


def md5_many(key_data, key_offsets, variant=None):
    """Concatenated 16-byte digests of every row of a binary column (the batched kernel; ``variant``:
    one of :func:`md5_variants`, default the active one)."""
    cdef _Batch b
    cdef Py_ssize_t n
    cdef int v = -1, rc = 0
    koff = np.ascontiguousarray(key_offsets)
    n = koff.shape[0] - 1 if koff.ndim == 1 else 0
    if variant is not None:
        names = [kvlog_md5_variant_name(i).decode("ascii") for i in range(KVLOG_MD5_NVARIANTS)]
        if variant not in names:
            raise OffsetMapError(f"unknown MD5 variant {variant!r}")
        v = names.index(variant)
        koff = koff.astype(np.int64)
    b = _batch(key_data, koff, None, np.zeros(max(n, 0), np.int64), None, False, False)
    out = bytearray(HS * b.c.n)
    cdef unsigned char[::1] o = out
    if b.c.n:
        if v < 0:
            with nogil:
                hash_rows(&b.c, 0, b.c.n, &o[0])
        else:
            with nogil:
                rc = kvlog_md5_many_variant(v, b.c.data, b.c.off64, <size_t>b.c.n, &o[0])
            if rc != 0:
                raise OffsetMapError(f"MD5 variant {variant!r} cannot run on this machine")
    return bytes(out)


def probe_slot_of(digest, attempt, slots):
    """Slot examined by probe ``attempt`` for a 16-byte digest in a map of ``slots`` slots (Kafka's
    positionOf)."""
    cdef Key k
    cdef int64_t a = _i64(attempt, "attempt"), s = _i64(slots, "slots"), r
    if a < 0 or a > INT32_MAX or s <= 0 or s > INT32_MAX:
        raise OffsetMapError("attempt must be in [0, 2**31) and slots in [1, 2**31)")
    key_open(digest, &k)
    if k.n != HS:
        key_close(&k)
        raise OffsetMapError(f"a digest has {HS} bytes, got {k.n}")
    r = probe_slot(k.p, a, <uint32_t>s, kv_om_mod_magic(<uint32_t>s))
    key_close(&k)
    return r
