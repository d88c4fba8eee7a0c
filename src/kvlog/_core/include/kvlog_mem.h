/* Large output buffers for the decode kernels.
 *
 * Decoding a segment writes tens of MiB of fresh column memory, and on virtual machines the page
 * faults for fresh pages cost more than the decoding itself. Buffers of at least KV_BIG_BYTES are
 * anonymous mappings (huge pages advised); when freed they go to a small bounded cache so the next
 * decode reuses pages that are already resident. The cache is bounded (kv_pool_set_limit).
 */
#ifndef KVLOG_MEM_H
#define KVLOG_MEM_H
#include <stddef.h>

#define KV_BIG_BYTES ((size_t)1 << 18)

/* A mapping of at least `need` bytes (rounded up to a power of two); *cap gets its size. Contents are
   zero when `zero` is set, otherwise unspecified. NULL when out of memory. */
void *kv_big_alloc(size_t need, size_t *cap, int zero);
/* Grow `p` (of `old_cap`, `used` bytes meaningful) to at least `need`; NULL on failure (p kept). */
void *kv_big_realloc(void *p, size_t old_cap, size_t used, size_t need, size_t *cap, int zero);
void kv_big_free(void *p, size_t cap);
/* The automatic limit's floor; it rises with the bytes handed out at once, to four times this. */
#define KV_POOL_DEFAULT ((size_t)128 << 20)
/* Set the cache limit in bytes (0 disables caching and releases what is cached; (size_t)-1: the automatic
   limit, the default); returns the old limit ((size_t)-1 when it was the automatic one). */
size_t kv_pool_set_limit(size_t limit);
size_t kv_pool_cached(void);
/* Ask for huge pages over the whole 2 MiB pages inside [p, p + n) of memory that is about to be
   written for the first time (a fresh Python bytes object of many MiB): one fault per 2 MiB instead
   of one per 4 KiB. Does nothing below KV_ADVISE_MIN bytes or where the OS has no such advice. */
#define KV_ADVISE_MIN ((size_t)4 << 20)
void kv_advise_huge(void *p, size_t n);
#endif
