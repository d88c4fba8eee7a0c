/* See kvlog_mem.h. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include "kvlog_mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define KV_HAVE_MMAP 1
#endif

#define KV_POOL_SLOTS 64

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static void *pool_ptr[KV_POOL_SLOTS];
static size_t pool_cap[KV_POOL_SLOTS];
static size_t pool_total = 0;
static size_t pool_limit = KV_POOL_DEFAULT;
/* The default limit follows the use: as much as was handed out at once (the peak of `in_use`), from
   KV_POOL_DEFAULT up to four times it. Two threads each decoding a segment hold twice one decoder's
   columns; a cache of one decoder's worth made them map and fault fresh pages on every pass, and the
   kernel serialises those mappings (two decoders ran at 0.85x one). An explicit limit is kept as set. */
static int pool_auto = 1;
static size_t in_use = 0, in_use_peak = 0;

static size_t effective_limit(void)
{
    size_t lim = pool_limit;
    if (pool_auto && in_use_peak > lim)
        lim = in_use_peak < 4 * pool_limit ? in_use_peak : 4 * pool_limit;
    return lim;
}

static void account(size_t add, size_t sub)
{
    pthread_mutex_lock(&pool_lock);
    in_use += add;
    in_use -= sub;
    if (in_use > in_use_peak)
        in_use_peak = in_use;
    pthread_mutex_unlock(&pool_lock);
}

/* Power-of-two size classes make cached mappings easy to match with later requests. */
static size_t round_big(size_t n)
{
    size_t c = KV_BIG_BYTES;
    while (c < n) c <<= 1;
    return c;
}

static void *map_new(size_t cap)
{
#ifdef KV_HAVE_MMAP
    void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, cap, MADV_HUGEPAGE);
#endif
    return p;
#else
    return calloc(1, cap);
#endif
}

static void unmap(void *p, size_t cap)
{
#ifdef KV_HAVE_MMAP
    munmap(p, cap);
#else
    (void)cap;
    free(p);
#endif
}

/* Take the smallest cached mapping of at least `need` bytes (and not wastefully larger). */
static void *pool_take(size_t need, size_t *cap)
{
    int best = -1;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < KV_POOL_SLOTS; i++) {
        if (pool_ptr[i] && pool_cap[i] >= need && pool_cap[i] <= 4 * need &&
            (best < 0 || pool_cap[i] < pool_cap[best]))
            best = i;
    }
    void *p = NULL;
    if (best >= 0) {
        p = pool_ptr[best];
        *cap = pool_cap[best];
        pool_total -= pool_cap[best];
        in_use += pool_cap[best];
        if (in_use > in_use_peak)
            in_use_peak = in_use;
        pool_ptr[best] = NULL;
        pool_cap[best] = 0;
    }
    pthread_mutex_unlock(&pool_lock);
    return p;
}

void *kv_big_alloc(size_t need, size_t *cap, int zero)
{
    size_t c = round_big(need ? need : 1);
    void *p = pool_take(c, cap);
    if (p) {
        if (zero) memset(p, 0, *cap);
        return p;
    }
    p = map_new(c);
    if (p) {
        *cap = c;
        account(c, 0);
    }
    return p;
}

void *kv_big_realloc(void *p, size_t old_cap, size_t used, size_t need, size_t *cap, int zero)
{
    size_t c = round_big(need);
    if (c <= old_cap) {
        *cap = old_cap;
        return p;
    }
    void *q = pool_take(c, cap);
    if (q) {
        memcpy(q, p, used);
        if (zero) memset((char *)q + used, 0, *cap - used);
        kv_big_free(p, old_cap);
        return q;
    }
#if defined(__linux__)
    q = mremap(p, old_cap, c, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) return NULL;
    account(c, old_cap);
#ifdef MADV_HUGEPAGE
    madvise(q, c, MADV_HUGEPAGE);
#endif
    /* mremap growth is fresh zero pages; the old part keeps its contents */
    if (zero && used < old_cap) memset((char *)q + used, 0, old_cap - used);
    *cap = c;
    return q;
#else
    q = map_new(c);
    if (!q) return NULL;
    memcpy(q, p, used);
    unmap(p, old_cap);
    account(c, old_cap);
    *cap = c;
    return q;
#endif
}

void kv_big_free(void *p, size_t cap)
{
    if (!p) return;
    pthread_mutex_lock(&pool_lock);
    in_use -= cap;
    if (pool_total + cap <= effective_limit()) {
        for (int i = 0; i < KV_POOL_SLOTS; i++) {
            if (!pool_ptr[i]) {
                pool_ptr[i] = p;
                pool_cap[i] = cap;
                pool_total += cap;
                pthread_mutex_unlock(&pool_lock);
                return;
            }
        }
    }
    pthread_mutex_unlock(&pool_lock);
    unmap(p, cap);
}

size_t kv_pool_set_limit(size_t limit)
{
    void *drop[KV_POOL_SLOTS];
    size_t drop_cap[KV_POOL_SLOTS];
    int n = 0;
    pthread_mutex_lock(&pool_lock);
    size_t old = pool_auto ? (size_t)-1 : pool_limit;
    pool_auto = limit == (size_t)-1;
    pool_limit = pool_auto ? KV_POOL_DEFAULT : limit;
    limit = effective_limit();
    for (int i = 0; i < KV_POOL_SLOTS && pool_total > limit; i++) {
        if (pool_ptr[i]) {
            drop[n] = pool_ptr[i];
            drop_cap[n++] = pool_cap[i];
            pool_total -= pool_cap[i];
            pool_ptr[i] = NULL;
            pool_cap[i] = 0;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < n; i++) unmap(drop[i], drop_cap[i]);
    return old;
}

size_t kv_pool_cached(void)
{
    pthread_mutex_lock(&pool_lock);
    size_t t = pool_total;
    pthread_mutex_unlock(&pool_lock);
    return t;
}

void kv_advise_huge(void *p, size_t n)
{
#if defined(KV_HAVE_MMAP) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    size_t a, e;
    if (n < KV_ADVISE_MIN)
        return;
    a = ((size_t)p + huge - 1) & ~(huge - 1);
    e = ((size_t)p + n) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}
