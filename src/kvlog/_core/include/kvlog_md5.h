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

/* Digests of `n` messages: message i is data[offsets[i] .. offsets[i + 1]) (Arrow binary-column layout;
   offsets must be non-decreasing and inside data, which callers check), written to out + 16 * i.
   Messages of at most 55 bytes are hashed many at a time in vector lanes by the best kernel this CPU
   supports (see kvlog_md5_kernel()); longer ones one by one. */
void kvlog_md5_many32(const unsigned char *data, const int32_t *offsets, size_t n, unsigned char *out);
void kvlog_md5_many64(const unsigned char *data, const int64_t *offsets, size_t n, unsigned char *out);

/* Multi-message kernels ("variants"); each gives the same digests. */
enum {
    KVLOG_MD5_SCALAR = 0, /* one message at a time */
    KVLOG_MD5_SSE2 = 1,   /* x86-64: 2 x 4 lanes of 128 bits ("sse2-x8") */
    KVLOG_MD5_AVX2 = 2,   /* x86-64 with AVX2, run-time checked: 2 x 8 lanes ("avx2-x16") */
    KVLOG_MD5_AVX512 = 3, /* x86-64 with AVX-512F, run-time checked: 2 x 16 lanes ("avx512-x32") */
    KVLOG_MD5_NEON = 4,   /* aarch64: 2 x 4 lanes ("neon-x8") */
    KVLOG_MD5_NVARIANTS = 5
};

/* Name of the variant kvlog_md5_many32/64 use on this machine, e.g. "avx512-x32", "neon-x8", "scalar". */
const char *kvlog_md5_kernel(void);
const char *kvlog_md5_variant_name(int variant); /* NULL for an unknown id */

/* kvlog_md5_many64 through one given variant (for tests and benchmarks): 0, or -1 if the variant is not
   compiled in or this CPU cannot run it. */
int kvlog_md5_many_variant(int variant, const unsigned char *data, const int64_t *offsets, size_t n,
                           unsigned char *out);

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
