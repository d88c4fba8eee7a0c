/* kvlog_index.h - search and validation kernels for Kafka's offset index (.index) and time index (.timeindex).
 *
 * Plain C99, header only, no Python: the same file is built into the extension and into tests/c/test_index.c,
 * and is meant to cross-compile for aarch64 unchanged.
 *
 * Layouts (every integer big-endian, no header, no checksum):
 *   .index      8-byte entries   relativeOffset int32 | position int32
 *   .timeindex  12-byte entries  timestamp int64      | relativeOffset int32
 *
 * Every kernel takes a pointer and an entry count `n` and reads only entries 0..n-1 (the caller guarantees
 * n * entry_size bytes are readable). Slots are int64_t; -1 means "no such slot".
 *
 * Searches ("floor" = largest slot whose key <= target) follow AbstractIndex.indexSlotRangeFor: look at the
 * first entry of the warm section (the last 8192 bytes of entries) and binary-search only that section when
 * the target is beyond it, so lookups near the tail touch the same few pages every time; otherwise check the
 * first entry and search [0, firstHot]. The midpoint is (lo + hi + 1) >> 1 and an exact match returns at once,
 * so for strictly increasing keys the result is the unique floor, and on any bytes it is the slot Kafka picks.
 * The *_dups variant is for keys that may repeat (time index searched by offset): it returns the largest
 * slot among equal keys and never stops early.
 */
#ifndef KVLOG_INDEX_H
#define KVLOG_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define KV_OI_ENTRY 8
#define KV_TI_ENTRY 12
#define KV_INDEX_WARM_BYTES 8192
#define KV_OI_WARM_ENTRIES (KV_INDEX_WARM_BYTES / KV_OI_ENTRY) /* 1024 */
#define KV_TI_WARM_ENTRIES (KV_INDEX_WARM_BYTES / KV_TI_ENTRY) /* 682 */

/* ----------------------------------------------------------------------------------------------------------- */
/* big-endian loads by shifts (compilers emit a load + byte swap; no alignment assumptions)                    */

static inline int32_t kv_ix_i32(const unsigned char *p)
{
    return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3]);
}

static inline int64_t kv_ix_i64(const unsigned char *p)
{
    uint64_t hi = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
    uint64_t lo = ((uint32_t)p[4] << 24) | ((uint32_t)p[5] << 16) | ((uint32_t)p[6] << 8) | (uint32_t)p[7];
    return (int64_t)((hi << 32) | lo);
}

static inline void kv_ix_put32(unsigned char *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (unsigned char)(u >> 24);
    p[1] = (unsigned char)(u >> 16);
    p[2] = (unsigned char)(u >> 8);
    p[3] = (unsigned char)u;
}

static inline void kv_ix_put64(unsigned char *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    kv_ix_put32(p, (int32_t)(uint32_t)(u >> 32));
    kv_ix_put32(p + 4, (int32_t)(uint32_t)u);
}

/* entry fields */
static inline int64_t kv_oi_rel(const unsigned char *b, int64_t i) { return kv_ix_i32(b + (size_t)i * KV_OI_ENTRY); }
static inline int64_t kv_oi_pos(const unsigned char *b, int64_t i) { return kv_ix_i32(b + (size_t)i * KV_OI_ENTRY + 4); }
static inline int64_t kv_ti_ts(const unsigned char *b, int64_t i) { return kv_ix_i64(b + (size_t)i * KV_TI_ENTRY); }
static inline int64_t kv_ti_rel(const unsigned char *b, int64_t i) { return kv_ix_i32(b + (size_t)i * KV_TI_ENTRY + 8); }

/* entry writers (the caller checks the slot is inside the buffer) */
static inline void kv_oi_store(unsigned char *b, int64_t i, int32_t rel, int32_t pos)
{
    kv_ix_put32(b + (size_t)i * KV_OI_ENTRY, rel);
    kv_ix_put32(b + (size_t)i * KV_OI_ENTRY + 4, pos);
}

static inline void kv_ti_store(unsigned char *b, int64_t i, int64_t ts, int32_t rel)
{
    kv_ix_put64(b + (size_t)i * KV_TI_ENTRY, ts);
    kv_ix_put32(b + (size_t)i * KV_TI_ENTRY + 8, rel);
}

/* ----------------------------------------------------------------------------------------------------------- */
/* warm-section floor search, one function per (key, entry size)                                               */

#define KV_IX_DEFINE_FLOOR(NAME, KEY, WARM, DUPS)                                                               \
    static inline int64_t NAME(const unsigned char *b, int64_t n, int64_t target)                               \
    {                                                                                                           \
        int64_t lo, hi, mid, k, first_hot;                                                                      \
        if (n <= 0)                                                                                             \
            return -1;                                                                                          \
        first_hot = n - 1 - (WARM);                                                                             \
        if (first_hot < 0)                                                                                      \
            first_hot = 0;                                                                                      \
        k = KEY(b, first_hot);                                                                                  \
        if (k < target || ((DUPS) && k == target)) {                                                            \
            lo = first_hot;                                                                                     \
            hi = n - 1;                                                                                         \
        } else {                                                                                                \
            if (KEY(b, 0) > target)                                                                             \
                return -1;                                                                                      \
            lo = 0;                                                                                             \
            hi = first_hot;                                                                                     \
        }                                                                                                       \
        while (lo < hi) {                                                                                       \
            mid = (lo + hi + 1) >> 1;                                                                           \
            k = KEY(b, mid);                                                                                    \
            if (k > target)                                                                                     \
                hi = mid - 1;                                                                                   \
            else if ((DUPS) || k < target)                                                                      \
                lo = mid;                                                                                       \
            else                                                                                                \
                return mid;                                                                                     \
        }                                                                                                       \
        return lo;                                                                                              \
    }

/* offset index: largest slot whose relative offset <= target (OffsetIndex.lookup, truncateTo) */
KV_IX_DEFINE_FLOOR(kv_oi_floor, kv_oi_rel, KV_OI_WARM_ENTRIES, 0)
/* offset index: largest slot whose position <= target */
KV_IX_DEFINE_FLOOR(kv_oi_floor_pos, kv_oi_pos, KV_OI_WARM_ENTRIES, 0)
/* time index: largest slot whose timestamp <= target (TimeIndex.lookup) */
KV_IX_DEFINE_FLOOR(kv_ti_floor, kv_ti_ts, KV_TI_WARM_ENTRIES, 0)
/* time index: largest slot whose relative offset <= target (offsets may repeat) */
KV_IX_DEFINE_FLOOR(kv_ti_floor_rel, kv_ti_rel, KV_TI_WARM_ENTRIES, 1)

/* Smallest slot whose key >= target, -1 if none: floor(target - 1) + 1 over integer keys. Exact for
 * non-decreasing keys (the valid prefix); used for truncateTo ("entries with key < target") and for
 * OffsetIndex.fetchUpperBoundOffset. */
#define KV_IX_DEFINE_CEIL(NAME, FLOOR)                                                                          \
    static inline int64_t NAME(const unsigned char *b, int64_t n, int64_t target)                               \
    {                                                                                                           \
        int64_t s;                                                                                              \
        if (n <= 0)                                                                                             \
            return -1;                                                                                          \
        s = (target == INT64_MIN) ? 0 : FLOOR(b, n, target - 1) + 1;                                            \
        return s < n ? s : -1;                                                                                  \
    }

KV_IX_DEFINE_CEIL(kv_oi_ceil, kv_oi_floor)
KV_IX_DEFINE_CEIL(kv_oi_ceil_pos, kv_oi_floor_pos)
KV_IX_DEFINE_CEIL(kv_ti_ceil, kv_ti_floor)
KV_IX_DEFINE_CEIL(kv_ti_ceil_rel, kv_ti_floor_rel)

/* Number of entries whose key < target (the entry count left by truncateTo(target)). */
static inline int64_t kv_oi_count_below(const unsigned char *b, int64_t n, int64_t target)
{
    int64_t s = kv_oi_ceil(b, n, target);
    return s < 0 ? (n > 0 ? n : 0) : s;
}

static inline int64_t kv_ti_count_below_rel(const unsigned char *b, int64_t n, int64_t target)
{
    int64_t s = kv_ti_ceil_rel(b, n, target);
    return s < 0 ? (n > 0 ? n : 0) : s;
}

/* ----------------------------------------------------------------------------------------------------------- */
/* valid prefix                                                                                                */

/* Offset index: number of leading trustworthy entries, scanning from slot `start` (entries before it are
 * taken as already checked). An entry is trusted when relative offsets and positions both strictly increase;
 * the first entry must be non-negative and not all-zero (an all-zero slot is the preallocated tail; Kafka
 * never writes (baseOffset, 0) because the first append of a segment never creates an entry). */
static inline int64_t kv_oi_valid_from(const unsigned char *b, int64_t n, int64_t start)
{
    int64_t i, r, p, pr, pp;
    if (n <= 0)
        return 0;
    if (start <= 0) {
        pr = kv_oi_rel(b, 0);
        pp = kv_oi_pos(b, 0);
        if (pr < 0 || pp < 0 || (pr == 0 && pp == 0))
            return 0;
        start = 1;
    } else {
        if (start >= n)
            return n;
        pr = kv_oi_rel(b, start - 1);
        pp = kv_oi_pos(b, start - 1);
    }
    for (i = start; i < n; i++) {
        r = kv_oi_rel(b, i);
        p = kv_oi_pos(b, i);
        if (r <= pr || p <= pp)
            return i;
        pr = r;
        pp = p;
    }
    return n;
}

/* Time index: timestamps strictly increase, relative offsets never decrease; the first entry must have a
 * timestamp >= 0 (maybeAppend only writes timestamps > -1) and a relative offset >= 0, and an all-zero entry
 * (timestamp 0, offset 0) ends the prefix wherever it appears. */
static inline int64_t kv_ti_valid_from(const unsigned char *b, int64_t n, int64_t start)
{
    int64_t i, t, r, pt, pr;
    if (n <= 0)
        return 0;
    if (start <= 0) {
        pt = kv_ti_ts(b, 0);
        pr = kv_ti_rel(b, 0);
        if (pt < 0 || pr < 0 || (pt == 0 && pr == 0))
            return 0;
        start = 1;
    } else {
        if (start >= n)
            return n;
        pt = kv_ti_ts(b, start - 1);
        pr = kv_ti_rel(b, start - 1);
    }
    for (i = start; i < n; i++) {
        t = kv_ti_ts(b, i);
        r = kv_ti_rel(b, i);
        if (t <= pt || r < pr || (t == 0 && r == 0))
            return i;
        pt = t;
        pr = r;
    }
    return n;
}

static inline int64_t kv_oi_valid_entries(const unsigned char *b, int64_t n) { return kv_oi_valid_from(b, n, 0); }
static inline int64_t kv_ti_valid_entries(const unsigned char *b, int64_t n) { return kv_ti_valid_from(b, n, 0); }

/* ----------------------------------------------------------------------------------------------------------- */
/* batched floor lookups                                                                                       */

/* Largest i with keys[i] <= t over a native, strictly increasing array (keys[0] <= t checked by the caller);
 * branch-free halving so the compiler emits conditional moves, with both candidates of the next step
 * prefetched. */
#if defined(__GNUC__) || defined(__clang__)
#define KV_IX_PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#define KV_IX_PREFETCH(p) ((void)0)
#endif

#define KV_IX_DEFINE_BRANCHLESS(NAME, T)                                                                        \
    static inline int64_t NAME(const T *keys, int64_t n, T t)                                                   \
    {                                                                                                           \
        const T *base = keys;                                                                                   \
        int64_t len = n, half;                                                                                  \
        while (len > 1) {                                                                                       \
            half = len >> 1;                                                                                    \
            KV_IX_PREFETCH(base + (half >> 1));                                                                 \
            KV_IX_PREFETCH(base + half + ((len - half) >> 1));                                                  \
            base = (base[half] <= t) ? base + half : base;                                                      \
            len -= half;                                                                                        \
        }                                                                                                       \
        return (int64_t)(base - keys);                                                                          \
    }

KV_IX_DEFINE_BRANCHLESS(kv_ix_bl32, int32_t)
KV_IX_DEFINE_BRANCHLESS(kv_ix_bl64, int64_t)

/* Decode the keys of entries 0..n-1 into a native array; returns 1 when they strictly increase. */
static inline int kv_oi_decode_rel(const unsigned char *b, int64_t n, int32_t *out)
{
    int64_t i;
    int inc = 1;
    for (i = 0; i < n; i++) {
        out[i] = kv_ix_i32(b + (size_t)i * KV_OI_ENTRY);
        if (i && out[i] <= out[i - 1])
            inc = 0;
    }
    return inc;
}

static inline int kv_ti_decode_ts(const unsigned char *b, int64_t n, int64_t *out)
{
    int64_t i;
    int inc = 1;
    for (i = 0; i < n; i++) {
        out[i] = kv_ix_i64(b + (size_t)i * KV_TI_ENTRY);
        if (i && out[i] <= out[i - 1])
            inc = 0;
    }
    return inc;
}

/* Are targets[0..m-1] non-decreasing? */
static inline int kv_ix_sorted(const int64_t *t, int64_t m)
{
    int64_t i;
    for (i = 1; i < m; i++)
        if (t[i] < t[i - 1])
            return 0;
    return 1;
}

/* Floor for non-decreasing targets over a native strictly increasing array (keys[0] <= t[0] not assumed):
 * gallop forward from the previous answer, O(m log(n/m)) probes, each near the last one. */
#define KV_IX_DEFINE_SORTED(NAME, T)                                                                            \
    static inline void NAME(const T *keys, int64_t n, const int64_t *t, int64_t m, int64_t *out)                \
    {                                                                                                           \
        int64_t j, cur = -1, step, lo, hi, mid, x;                                                              \
        for (j = 0; j < m; j++) {                                                                               \
            x = t[j];                                                                                           \
            /* invariant: cur == -1 or keys[cur] <= x */                                                        \
            if (cur < 0) {                                                                                      \
                if ((int64_t)keys[0] > x) {                                                                     \
                    out[j] = -1;                                                                                \
                    continue;                                                                                   \
                }                                                                                               \
                cur = 0;                                                                                        \
            }                                                                                                   \
            step = 1;                                                                                           \
            lo = cur;                                                                                           \
            while (lo + step < n && (int64_t)keys[lo + step] <= x) {                                            \
                lo += step;                                                                                     \
                step <<= 1;                                                                                     \
            }                                                                                                   \
            hi = lo + step < n ? lo + step - 1 : n - 1; /* keys[hi + 1] > x, or hi == n - 1 */                  \
            while (lo < hi) {                                                                                   \
                mid = (lo + hi + 1) >> 1;                                                                       \
                if ((int64_t)keys[mid] <= x)                                                                    \
                    lo = mid;                                                                                   \
                else                                                                                            \
                    hi = mid - 1;                                                                               \
            }                                                                                                   \
            cur = lo;                                                                                           \
            out[j] = cur;                                                                                       \
        }                                                                                                       \
    }

KV_IX_DEFINE_SORTED(kv_ix_sorted32, int32_t)
KV_IX_DEFINE_SORTED(kv_ix_sorted64, int64_t)

/* A batch worth decoding the keys for: large next to the index. Decoding reads every entry once; then the
 * keys are contiguous and native (half the cache lines of the 8-byte entry layout for the offset index). */
#define KV_IX_DECODE_WORTH(n, m) ((n) >= 2048 && (m) >= ((n) >> 5))

/* out[j] = floor slot of targets[j] (-1 when below the first entry, or the index is empty): the same values
 * as kv_oi_floor for each target. Large batches over strictly increasing keys (where the floor is unique)
 * decode the keys and search them branch-free, or gallop when the targets are sorted; anything else, or a
 * failed allocation, uses kv_oi_floor per target. Returns 1 when the decoded path ran, 0 otherwise. */
static inline int kv_oi_floor_many(const unsigned char *b, int64_t n, const int64_t *t, int64_t m, int64_t *out)
{
    int64_t j;
    if (n <= 0) {
        for (j = 0; j < m; j++)
            out[j] = -1;
        return 0;
    }
    if (KV_IX_DECODE_WORTH(n, m)) {
        int32_t *keys = (int32_t *)malloc((size_t)n * sizeof(int32_t));
        if (keys != NULL && kv_oi_decode_rel(b, n, keys)) {
            if (kv_ix_sorted(t, m)) {
                kv_ix_sorted32(keys, n, t, m, out);
            } else {
                int64_t k0 = keys[0];
                for (j = 0; j < m; j++) {
                    int64_t x = t[j];
                    out[j] = x < k0 ? -1 : kv_ix_bl32(keys, n, x > INT32_MAX ? INT32_MAX : (int32_t)x);
                }
            }
            free(keys);
            return 1;
        }
        free(keys);
    }
    for (j = 0; j < m; j++)
        out[j] = kv_oi_floor(b, n, t[j]);
    return 0;
}

static inline int kv_ti_floor_many(const unsigned char *b, int64_t n, const int64_t *t, int64_t m, int64_t *out)
{
    int64_t j;
    if (n <= 0) {
        for (j = 0; j < m; j++)
            out[j] = -1;
        return 0;
    }
    if (KV_IX_DECODE_WORTH(n, m)) {
        int64_t *keys = (int64_t *)malloc((size_t)n * sizeof(int64_t));
        if (keys != NULL && kv_ti_decode_ts(b, n, keys)) {
            if (kv_ix_sorted(t, m)) {
                kv_ix_sorted64(keys, n, t, m, out);
            } else {
                int64_t k0 = keys[0];
                for (j = 0; j < m; j++)
                    out[j] = t[j] < k0 ? -1 : kv_ix_bl64(keys, n, t[j]);
            }
            free(keys);
            return 1;
        }
        free(keys);
    }
    for (j = 0; j < m; j++)
        out[j] = kv_ti_floor(b, n, t[j]);
    return 0;
}

#endif /* KVLOG_INDEX_H */
