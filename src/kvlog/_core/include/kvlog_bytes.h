/* Big-endian loads and stores without pointer casts (memcpy + byte swap), safe on any alignment. */
#ifndef KVLOG_BYTES_H
#define KVLOG_BYTES_H
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define KV_BSWAP16(x) (x)
#define KV_BSWAP32(x) (x)
#define KV_BSWAP64(x) (x)
#else
#define KV_BSWAP16(x) __builtin_bswap16(x)
#define KV_BSWAP32(x) __builtin_bswap32(x)
#define KV_BSWAP64(x) __builtin_bswap64(x)
#endif

static inline uint16_t kv_load_be16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return KV_BSWAP16(v); }
static inline uint32_t kv_load_be32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return KV_BSWAP32(v); }
static inline uint64_t kv_load_be64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return KV_BSWAP64(v); }
static inline int16_t kv_load_i16(const unsigned char *p) { return (int16_t)kv_load_be16(p); }
static inline int32_t kv_load_i32(const unsigned char *p) { return (int32_t)kv_load_be32(p); }
static inline int64_t kv_load_i64(const unsigned char *p) { return (int64_t)kv_load_be64(p); }

static inline void kv_store_be16(unsigned char *p, uint16_t v) { v = KV_BSWAP16(v); memcpy(p, &v, 2); }
static inline void kv_store_be32(unsigned char *p, uint32_t v) { v = KV_BSWAP32(v); memcpy(p, &v, 4); }
static inline void kv_store_be64(unsigned char *p, uint64_t v) { v = KV_BSWAP64(v); memcpy(p, &v, 8); }

/* Copy n bytes between buffers that do not overlap, inlined for the short keys and values of records:
   fixed-size moves (overlapping at the end) instead of a call into the C library per field. */
static inline void kv_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n <= 16) {
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
        } else if (n) {
            d[0] = s[0];
            d[n >> 1] = s[n >> 1];
            d[n - 1] = s[n - 1];
        }
        return;
    }
    if (n <= 256) {
        size_t i;
        for (i = 0; i + 16 < n; i += 16)
            memcpy(d + i, s + i, 16);
        memcpy(d + n - 16, s + n - 16, 16);
        return;
    }
    memcpy(d, s, n);
}

#endif
