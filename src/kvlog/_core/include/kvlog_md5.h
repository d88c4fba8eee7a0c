/* kvlog_md5.h - MD5 message digest (RFC 1321), written for kvlog from the RFC text.
 *
 * Kafka's log cleaner identifies keys by the MD5 of their bytes (SkimpyOffsetMap), so kvlog hashes every
 * key it maps. Plain C99, no Python headers, no global state; safe to call from any thread.
 * MD5 is used here as Kafka uses it: as a well-spread 128-bit fingerprint, not for security.
 */
#ifndef KVLOG_MD5_H
#define KVLOG_MD5_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KVLOG_MD5_DIGEST_SIZE 16
#define KVLOG_MD5_BLOCK_SIZE 64

/* One-shot digest of `len` bytes at `data` (data may be NULL when len is 0). */
void kvlog_md5(const void *data, size_t len, unsigned char out[16]);

/* Digests of `n` messages: message i is data[offsets[i] .. offsets[i + 1]) (Arrow binary-column layout),
   written to out + 16 * i. Uses the multi-lane kernel when one is compiled in (see kvlog_md5_kernel()). */
void kvlog_md5_many32(const unsigned char *data, const int32_t *offsets, size_t n, unsigned char *out);
void kvlog_md5_many64(const unsigned char *data, const int64_t *offsets, size_t n, unsigned char *out);

/* Four independent messages at once (out + 16 * i is the digest of message i). Same results as four calls
   of kvlog_md5; faster when a SIMD kernel is compiled in and all four fit in one block (len <= 55). */
void kvlog_md5_x4(const unsigned char *const data[4], const size_t len[4], unsigned char *out);

/* Name of the multi-message kernel compiled in: "sse2-x8" / "neon-x8" (two interleaved groups of four
   lanes in 128-bit vectors) or "scalar". */
const char *kvlog_md5_kernel(void);

/* Incremental interface (same digest as the one-shot function over the concatenated input). */
typedef struct kvlog_md5_ctx {
    uint32_t state[4];
    uint64_t length;                          /* bytes seen so far */
    unsigned char buffer[KVLOG_MD5_BLOCK_SIZE];
} kvlog_md5_ctx;

void kvlog_md5_init(kvlog_md5_ctx *ctx);
void kvlog_md5_update(kvlog_md5_ctx *ctx, const void *data, size_t len);
void kvlog_md5_final(kvlog_md5_ctx *ctx, unsigned char out[16]);

#ifdef __cplusplus
}
#endif
#endif /* KVLOG_MD5_H */
