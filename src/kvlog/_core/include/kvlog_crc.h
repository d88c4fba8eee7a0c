/* kvlog_crc.h - CRC-32 (IEEE, as zlib.crc32) and CRC-32C (Castagnoli, as
 * java.util.zip.CRC32C) with run-time selected SIMD kernels.
 *
 * Both are reflected CRCs with init 0xFFFFFFFF and final xor 0xFFFFFFFF.
 */
#ifndef KVLOG_CRC_H
#define KVLOG_CRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* zlib semantics: `crc` is a previous return value (0 to start); returns the updated CRC. */
uint32_t kvlog_crc32(uint32_t crc, const unsigned char *p, size_t n);
uint32_t kvlog_crc32c(uint32_t crc, const unsigned char *p, size_t n);
void kvlog_crc_init(void);                 /* runtime CPU dispatch, idempotent, cheap; called once at module import */
const char *kvlog_crc32_kernel(void);      /* name of the active kernel, e.g. "vpclmul-avx512", "pclmul", "armv8-crc", "slice8" */
const char *kvlog_crc32c_kernel(void);     /* e.g. "vpclmul-avx512+sse4.2", "sse4.2-3way", "armv8-crc", "slice8" */
/* Every variant, for tests and benchmarks. variant ids below; returns 0 and sets *out, or -1 if the variant
   is not compiled in or not supported by this CPU. */
enum { KVLOG_CRC_SLICE8 = 0, KVLOG_CRC_SSE42 = 1, KVLOG_CRC_PCLMUL = 2, KVLOG_CRC_VPCLMUL = 3, KVLOG_CRC_ARMV8 = 4,
       KVLOG_CRC_VPCLMUL_AVX2 = 5, KVLOG_CRC_NVARIANTS = 6 };
int kvlog_crc32_variant(int variant, uint32_t crc, const unsigned char *p, size_t n, uint32_t *out);
int kvlog_crc32c_variant(int variant, uint32_t crc, const unsigned char *p, size_t n, uint32_t *out);
const char *kvlog_crc_variant_name(int variant);

#ifdef KVLOG_CRC_INTERNAL
/* ---- private: shared between csrc/crc32.c and csrc/crc32c.c, not API ---- */
#include "kvlog_cpu.h"

/* Token pasting after expansion, for the templates kvlog_crc_poly.h and kvlog_crc_hybrid.h */
#define KVLOG_PASTE_(a, b) a##b
#define KVLOG_PASTE(a, b) KVLOG_PASTE_(a, b)

/* Folding constants for one polynomial (kvlog__crc_make_fold; derived in tools/gen_crc_constants.py).
   kD = { rev33(x^(D+32) mod P), rev33(x^(D-32) mod P) } folds a 128-bit lane forward by D bits. */
typedef struct kvlog_crc_fold_consts {
    uint64_t k128[2], k256[2], k384[2], k512[2], k1024[2], k1536[2], k2048[2];
    uint64_t zlanes[8];   /* k384, k256, k128, 0: folds the 4 lanes of a zmm into its top lane */
    uint64_t k96, k64, mu, poly;
    uint64_t hw_crc32c;   /* 1 for CRC-32C: reduce 128 -> 32 bits with two crc32 instructions */
} kvlog_crc_fold_consts;

/* Portable slicing-by-8 on the internal (non-inverted) state. */
uint32_t kvlog__crc_slice8(const uint32_t (*tab)[256], uint32_t state, const unsigned char *p, size_t n);

/* The tables and constants of a reflected polynomial `poly`, computed (csrc/crc32.c; kvlog_crc_tables.h
   fills each polynomial's with them). Words are reflected: bit 31 - i holds the coefficient of x^i. */
uint32_t kvlog__crc_mulmod(uint32_t poly, uint32_t a, uint32_t b);   /* a * b mod P */
uint32_t kvlog__crc_xpow(uint32_t poly, uint64_t n);                 /* x^n mod P */
void kvlog__crc_make_slice8(uint32_t poly, uint32_t tab[8][256]);
void kvlog__crc_make_shift(uint32_t poly, size_t nbytes, uint32_t tab[4][256]);  /* state -> state * x^(8 nbytes) */
void kvlog__crc_make_fold(uint32_t poly, int hw_crc32c, kvlog_crc_fold_consts *k);
void kvlog__crc32_tables(void);
void kvlog__crc32c_tables(void);
/* bytes per stream in the big-block loop of CRC-32C's carry-less combining streams */
#define KVLOG_CRC_COMBINE_BLOCK 1024

#if defined(KVLOG_HAVE_X86_KERNELS)
/* Internal state in, internal state out; require n >= 16 and the CPU features
   of the corresponding variant (SSE4.2+PCLMUL, resp. AVX512+VPCLMUL as well). */
uint32_t kvlog__crc_fold_pclmul(const kvlog_crc_fold_consts *k, uint32_t state, const unsigned char *p, size_t n);
#if defined(KVLOG_HAVE_X86_AVX512_KERNELS)
uint32_t kvlog__crc_fold_vpclmul(const kvlog_crc_fold_consts *k, uint32_t state, const unsigned char *p, size_t n);
/* Reduce a VPCLMUL folding state (4 x 64 bytes: the folded registers for 256
   consecutive bytes, in message order) to the 32-bit internal state. */
uint32_t kvlog__crc_fold_vpclmul_state(const kvlog_crc_fold_consts *k, const void *zstate);
/* The same with 256-bit registers (VPCLMULQDQ with AVX2, no AVX-512: AMD Zen 3, Intel client cores):
   fold, and reduce a state of 4 x 32 bytes (the folded registers for 128 consecutive bytes). */
uint32_t kvlog__crc_fold_vpclmul256(const kvlog_crc_fold_consts *k, uint32_t state, const unsigned char *p, size_t n);
uint32_t kvlog__crc_fold_vpclmul256_state(const kvlog_crc_fold_consts *k, const void *ystate);
#endif
#endif

/* One variant: zlib semantics, as kvlog_crc32(). */
typedef uint32_t (*kvlog_crc_fn)(uint32_t, const unsigned char *, size_t);

/* Whether this CPU can run a variant (that the build has it is the variant table's business). */
static inline int kvlog__crc_variant_usable(int variant)
{
    switch (variant) {
    case KVLOG_CRC_SLICE8:
        return 1;
    case KVLOG_CRC_SSE42:
        return kvlog_cpu_has(KVLOG_CPU_SSE42);
    case KVLOG_CRC_PCLMUL:
        return kvlog_cpu_has(KVLOG_CPU_SSE42) && kvlog_cpu_has(KVLOG_CPU_PCLMUL);
    case KVLOG_CRC_VPCLMUL:
        return kvlog_cpu_has(KVLOG_CPU_SSE42) && kvlog_cpu_has(KVLOG_CPU_PCLMUL) &&
               kvlog_cpu_has(KVLOG_CPU_AVX512) && kvlog_cpu_has(KVLOG_CPU_VPCLMUL);
    case KVLOG_CRC_VPCLMUL_AVX2:
        return kvlog_cpu_has(KVLOG_CPU_SSE42) && kvlog_cpu_has(KVLOG_CPU_PCLMUL) &&
               kvlog_cpu_has(KVLOG_CPU_AVX2) && kvlog_cpu_has(KVLOG_CPU_VPCLMUL);
    case KVLOG_CRC_ARMV8:
        return kvlog_cpu_has(KVLOG_CPU_ARM_CRC32);
    default:
        return 0;
    }
}

/* Pick each polynomial's fastest usable variant (kvlog_crc_poly.h); kvlog_crc_init() calls both. */
void kvlog__crc32_init(void);
void kvlog__crc32c_init(void);
#endif /* KVLOG_CRC_INTERNAL */

#ifdef __cplusplus
}
#endif
#endif /* KVLOG_CRC_H */
