/* Kafka's zigzag varints (ByteUtils.java), decoded against an end pointer.
 *
 * int32 varint: at most 5 bytes; the 5th byte must have its continuation bit clear (surplus high bits of
 * the 5th byte are dropped, as Java does). int64 varlong: at most 10 bytes, same rule for the 10th byte.
 * Decoders return KV_VARINT_OK, KV_VARINT_TRUNCATED (ran into `end`) or KV_VARINT_OVERLONG.
 */
#ifndef KVLOG_VARINT_H
#define KVLOG_VARINT_H
#include <stdint.h>
#include <stddef.h>

enum { KV_VARINT_OK = 0, KV_VARINT_TRUNCATED = -1, KV_VARINT_OVERLONG = -2 };

static inline int kv_read_varint(const unsigned char **pp, const unsigned char *end, int32_t *out)
{
    const unsigned char *p = *pp;
    uint32_t raw = 0;
    int shift = 0;
    for (;;) {
        if (p >= end) return KV_VARINT_TRUNCATED;
        unsigned char b = *p++;
        raw |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
        if (shift > 28) return KV_VARINT_OVERLONG;
    }
    *pp = p;
    *out = (int32_t)((raw >> 1) ^ (~(raw & 1) + 1));
    return KV_VARINT_OK;
}

static inline int kv_read_varlong(const unsigned char **pp, const unsigned char *end, int64_t *out)
{
    const unsigned char *p = *pp;
    uint64_t raw = 0;
    int shift = 0;
    for (;;) {
        if (p >= end) return KV_VARINT_TRUNCATED;
        unsigned char b = *p++;
        raw |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
        if (shift > 63) return KV_VARINT_OVERLONG;
    }
    *pp = p;
    *out = (int64_t)((raw >> 1) ^ (~(raw & 1) + 1));
    return KV_VARINT_OK;
}

static inline uint32_t kv_zigzag32(int32_t v) { return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31); }
static inline uint64_t kv_zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static inline int kv_varint_size(int32_t v)
{
    uint32_t u = kv_zigzag32(v);
    int n = 1;
    while (u >= 0x80) { u >>= 7; n++; }
    return n;
}

static inline int kv_varlong_size(int64_t v)
{
    uint64_t u = kv_zigzag64(v);
    int n = 1;
    while (u >= 0x80) { u >>= 7; n++; }
    return n;
}

static inline unsigned char *kv_write_varint(unsigned char *p, int32_t v)
{
    uint32_t u = kv_zigzag32(v);
    while (u >= 0x80) { *p++ = (unsigned char)(u | 0x80); u >>= 7; }
    *p++ = (unsigned char)u;
    return p;
}

static inline unsigned char *kv_write_varlong(unsigned char *p, int64_t v)
{
    uint64_t u = kv_zigzag64(v);
    while (u >= 0x80) { *p++ = (unsigned char)(u | 0x80); u >>= 7; }
    *p++ = (unsigned char)u;
    return p;
}

#endif
