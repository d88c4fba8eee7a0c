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

#endif
