/* crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as
 * java.util.zip.CRC32C and the `crc32c` PyPI package.
 *
 * All kernels work on the internal (non-inverted) state; tables and constants
 * are computed at init from the polynomial (kvlog_crc_tables.h; derivations in
 * tools/gen_crc_constants.py).  Variants (ids from kvlog_crc.h):
 *   SLICE8   portable slicing-by-8.
 *   SSE42    "sse4.2-3way" (SSE4.2 only): crc32 instruction, three interleaved
 *            streams over equal chunks of 4096/512/64 bytes, merged with
 *            "shift the state over L zero bytes" tables; the running state is
 *            shifted off the streams' critical path.  Tail: one stream.
 *   PCLMUL   "pclmul+sse4.2" (AVX2-only and older x86-64): n < 64 one crc32
 *            stream; below 1 KiB blocks of up to 3 KiB cut into 3 (n < 384) or
 *            6 contiguous streams of any whole number of words, merged with one
 *            carry-less multiply per stream (K = x^(64m-33) mod P from a table)
 *            and one crc32.  From 1 KiB: a hybrid loop, 4 x 128-bit PCLMULQDQ
 *            folding beside 4 crc32 streams (crc32c_hybrid128): the crc32 unit
 *            alone caps at 8 bytes a cycle (where the `crc32c` package sits),
 *            the multiplier is a separate unit and adds its own share.
 *   VPCLMUL  "vpclmul-avx512+sse4.2": as PCLMUL below 256 bytes; 256..4095:
 *            the 4 x 512-bit VPCLMULQDQ folding engine of crc32.c (final
 *            128->32 reduction with two crc32 instructions) on the whole
 *            64-byte blocks, with the last n % 64 bytes on a crc32 stream run
 *            alongside; from 4096: a hybrid loop that folds with VPCLMULQDQ and
 *            runs six crc32 streams at the same time (they use different
 *            execution units), merged as above.
 *   VPCLMUL_AVX2 "vpclmul-avx2+sse4.2" (VPCLMULQDQ without AVX-512: Zen 3,
 *            Intel client cores): as PCLMUL below 1 KiB, then the hybrid loop
 *            with 4 x 256-bit folding beside 4 crc32 streams (crc32c_hybrid256).
 *   ARMV8    "armv8-crc": __crc32cd, three streams merged with shift tables.
 *
 * The stream kernels (SSE42, ARMV8) are one template, kvlog_crc_3way.h; the three hybrid loops another,
 * kvlog_crc_hybrid.h; the aarch64 kernel and the dispatch are kvlog_crc_poly.h, shared with crc32.c.
 */
#define KVLOG_CRC_INTERNAL 1
#include "kvlog_crc.h"
#include "kvlog_cpu.h"

#include <string.h>

#include "kvlog_crc_fold.h"
#if defined(KVLOG_HAVE_ARM_KERNELS) && !defined(__clang__)
#include <arm_acle.h>
#endif

/* ------------------------------------------------------------------ tables */
#define CRC_ID crc32c
#define CRC_POLY 0x82F63B78u
#define CRC_HW_REDUCE 1
#if defined(KVLOG_HAVE_X86_KERNELS) || defined(KVLOG_HAVE_ARM_KERNELS)
#define CRC_SHIFT 1
#else
#define CRC_SHIFT 0
#endif
#if defined(KVLOG_HAVE_X86_KERNELS)
#define CRC_COMBINE 1
#else
#define CRC_COMBINE 0
#endif
#include "kvlog_crc_tables.h"
#define CRC32C_COMBINE_BLOCK KVLOG_CRC_COMBINE_BLOCK

/* ------------------------------------------------------------ x86 SSE4.2 */
#if defined(KVLOG_HAVE_X86_KERNELS)
#define KVLOG_TARGET_SSE42 __attribute__((target("sse4.2")))

#ifndef CRC32C_3WAY_MIN
#define CRC32C_3WAY_MIN 64          /* below: one stream */
#endif
#ifndef CRC32C_FOLD512_MIN
#define CRC32C_FOLD512_MIN 256      /* VPCLMUL variant: 512-bit folding from here */
#endif

#define W3_NAME(x) sse42_##x
#define W3_TARGET KVLOG_TARGET_SSE42
#define W3_STATE uint64_t
#define W3_CRC(bits, c, v) _mm_crc32_u##bits((c), (v))
#define W3_SHIFT(L) crc32c_shift##L
#include "kvlog_crc_3way.h"

static uint32_t crc32c_v_sse42(uint32_t crc, const unsigned char *p, size_t n)
{
    return ~sse42_kernel(~crc, p, n);
}

/* clmul(rev32(C), K[m-1]) then crc32_u64(0, .) gives C * x^(64m) mod P. */
#define CLMUL_K(c, m) \
    _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)(c)), _mm_cvtsi32_si128((int)crc32c_combine[(m) - 1]), 0x00)

#define NS_MAX 6

/* One block of `words` 8-byte words (ns <= words <= 3*CRC32C_COMBINE_BLOCK/8)
   split into ns contiguous streams of q or q+1 words, run interleaved (ns is
   a compile-time constant at every call site).  first: stream 0 starts from
   acc; otherwise acc is shifted over the whole block separately, off the
   streams' critical path. */
KVLOG_TARGET_PCLMUL static inline uint32_t sse42_nway_clmul(uint32_t acc, const unsigned char *p,
                                                                   size_t words, int first, const int ns)
{
    const size_t q = words / (size_t)ns, r = words % (size_t)ns;
    const unsigned char *ps[NS_MAX];
    uint64_t c[NS_MAX], v8;
    size_t i, after[NS_MAX], off = 0;
    int j;
    __m128i v;

    for (j = 0; j < ns; j++) {
        size_t len = q + ((size_t)j < r);
        ps[j] = p + 8 * off;
        off += len;
        after[j] = words - off;
        c[j] = 0;
    }
    if (first)
        c[0] = acc;
    for (i = 0; i < q; i++) {
        for (j = 0; j < ns; j++) {
            memcpy(&v8, ps[j] + 8 * i, 8);
            c[j] = _mm_crc32_u64(c[j], v8);
        }
    }
    for (j = 0; (size_t)j < r; j++) {
        memcpy(&v8, ps[j] + 8 * q, 8);
        c[j] = _mm_crc32_u64(c[j], v8);
    }
    v = first ? _mm_setzero_si128() : CLMUL_K(acc, words);
    for (j = 0; j < ns - 1; j++)
        v = _mm_xor_si128(v, CLMUL_K(c[j], after[j]));
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(v)) ^ (uint32_t)c[ns - 1];
}

/* mul(x^(a-33), x^(b-33)) = x^(a+b-33) mod P (rev32 operands) */
KVLOG_TARGET_PCLMUL static inline uint32_t kmul(uint32_t a, uint32_t b)
{
    __m128i t = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a), _mm_cvtsi32_si128((int)b), 0x00);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(t));
}

/* rev32(x^(64m - 33) mod P) for any m >= 1 */
KVLOG_TARGET_PCLMUL static uint32_t kpow(size_t m)
{
    uint32_t r = 0;
    int i, have = 0;
    for (i = 0; m; i++, m >>= 1) {
        if (m & 1) {
            r = have ? kmul(r, crc32c_pow2[i]) : crc32c_pow2[i];
            have = 1;
        }
    }
    return r;
}

/* K for a shift over 8m bytes: table for small m, else square-and-multiply */
KVLOG_TARGET_PCLMUL static inline uint32_t kget(size_t m)
{
    return m <= sizeof(crc32c_combine) / sizeof(crc32c_combine[0]) ? crc32c_combine[m - 1] : kpow(m);
}

#ifndef CRC32C_6WAY_MIN
#define CRC32C_6WAY_MIN 384         /* below: three streams, from here: six */
#endif

/* Any n: blocks of 3*CRC32C_COMBINE_BLOCK bytes, then one block of the
   remaining whole words, then < 8 bytes. */
KVLOG_TARGET_PCLMUL static uint32_t sse42_clmul_kernel(uint32_t s, const unsigned char *p, size_t n)
{
    const size_t B = 3 * CRC32C_COMBINE_BLOCK;
    int first = 1;
    while (n >= B) {
        s = sse42_nway_clmul(s, p, B / 8, first, 6);
        first = 0;
        p += B;
        n -= B;
    }
    if (n >= CRC32C_6WAY_MIN) {
        s = sse42_nway_clmul(s, p, n / 8, first, 6);
        p += n & ~(size_t)7;
        n &= 7;
    } else if (n >= 8 * 3) {
        s = sse42_nway_clmul(s, p, n / 8, first, 3);
        p += n & ~(size_t)7;
        n &= 7;
    }
    return sse42_1way(s, p, n);
}

/* The crc32 side of a hybrid loop: ns contiguous streams over the whole words that follow the folded
   part, each from state 0, merged at the end by one carry-less multiply by x^(64 * words after it).
   ns is a compile-time constant at every call site, so the arrays stay in registers. */
#define HY_STREAMS_MAX 6

typedef struct {
    const unsigned char *p[HY_STREAMS_MAX];
    uint64_t c[HY_STREAMS_MAX];
    uint32_t k[HY_STREAMS_MAX];     /* shift of stream j over the words after it */
    uint32_t kv;                    /* shift of the folded part over all the words */
    size_t q, r;                    /* words per stream; the first r streams take one more */
} hy_streams;

KVLOG_TARGET_PCLMUL static inline void hy_open(hy_streams *h, const unsigned char *base, size_t words,
                                                     const int ns)
{
    size_t off = 0;
    int j;
    h->q = words / (size_t)ns;
    h->r = words % (size_t)ns;
    for (j = 0; j < ns; j++) {
        h->p[j] = base + 8 * off;
        off += h->q + ((size_t)j < h->r);
        h->k[j] = j < ns - 1 ? kget(words - off) : 0;
        h->c[j] = 0;
    }
    h->kv = kget(words);
}

/* word k of every stream */
KVLOG_TARGET_SSE42 static inline void hy_word(hy_streams *h, size_t k, const int ns)
{
    uint64_t v8;
    int j;
    for (j = 0; j < ns; j++) {
        memcpy(&v8, h->p[j] + 8 * k, 8);
        h->c[j] = _mm_crc32_u64(h->c[j], v8);
    }
}

/* Finish the streams from word k on and merge them after vstate, the state of the folded part. */
KVLOG_TARGET_PCLMUL static inline uint32_t hy_close(hy_streams *h, size_t k, uint32_t vstate, const int ns)
{
    uint64_t v8;
    __m128i acc;
    int j;
    for (; k < h->q; k++)
        hy_word(h, k, ns);
    for (j = 0; (size_t)j < h->r; j++) {
        memcpy(&v8, h->p[j] + 8 * h->q, 8);
        h->c[j] = _mm_crc32_u64(h->c[j], v8);
    }
    acc = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)vstate), _mm_cvtsi32_si128((int)h->kv), 0x00);
    for (j = 0; j < ns - 1; j++)
        acc = _mm_xor_si128(acc, _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)h->c[j]),
                                                      _mm_cvtsi32_si128((int)h->k[j]), 0x00));
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(acc)) ^ (uint32_t)h->c[ns - 1];
}


#ifndef HX_S
#define HX_S 4  /* crc32 streams beside the 128-bit folding */
#endif
#ifndef HX_W
#define HX_W 5  /* 8-byte words per stream per 64-byte vector step */
#endif

/* Without VPCLMULQDQ (AVX2-only x86-64, older SSE4.2 cores) the crc32 instruction caps the streams at
   8 bytes a cycle, the ceiling of every crc32-only kernel; the 128-bit carry-less multiplier is a
   separate unit, so crc32c_hybrid128 folds 4 x 128 bits beside HX_S crc32 streams (kvlog_crc_hybrid.h).
   A 64-byte fold is 8 multiplies (2 cycles each on Zen 2-4, 1 on Intel since Skylake) and the streams
   take HX_W words each meanwhile.  The vector state is reduced with two crc32 instructions. */
#define HY_BITS 128
#define HY_TARGET KVLOG_TARGET_PCLMUL
#define HY_K k512
#define HY_STREAMS HX_S
#define HY_WORDS HX_W
#include "kvlog_crc_hybrid.h"

#ifndef CRC32C_HYBRID128_MIN
#define CRC32C_HYBRID128_MIN 1024
#endif

/* The tiers every folding variant shares: one stream for short inputs, streams combined by multiplies
   below hybrid_min, the variant's hybrid kernel from there (a constant: inlined, no indirect call). */
static inline uint32_t crc32c_tiers(uint32_t crc, const unsigned char *p, size_t n, size_t hybrid_min,
                                    uint32_t (*hybrid)(uint32_t, const unsigned char *, size_t))
{
    if (n < CRC32C_3WAY_MIN)
        return ~sse42_1way(~crc, p, n);
    if (n < hybrid_min)
        return ~sse42_clmul_kernel(~crc, p, n);
    return ~hybrid(~crc, p, n);
}

static uint32_t crc32c_v_pclmul(uint32_t crc, const unsigned char *p, size_t n)
{
    return crc32c_tiers(crc, p, n, CRC32C_HYBRID128_MIN, crc32c_hybrid128);
}

#if defined(KVLOG_HAVE_X86_AVX512_KERNELS)
#define HY_S 6  /* crc32 streams */
#ifndef HY_W
#define HY_W 4  /* 8-byte words per stream per 256-byte vector step */
#endif

/* Larger inputs: crc32c_hybrid512, the VPCLMULQDQ folding (bound by the carry-less multiplier) beside
   HY_S crc32 streams (bound by the crc32 unit), 256 bytes folded per step.  The merge constants come
   from the table, or are computed from crc32c_pow2; either way independent of the data, so they
   overlap the loop. */
#define HY_BITS 512
#define HY_TARGET KVLOG_TARGET_VPCLMUL
#define HY_K k2048
#define HY_STREAMS HY_S
#define HY_WORDS HY_W
#include "kvlog_crc_hybrid.h"

/* 512-bit folding over the whole 64-byte blocks; the last n % 64 bytes go to a
   crc32 stream that starts from 0 and runs alongside, merged by one multiply. */
KVLOG_TARGET_PCLMUL static uint32_t fold512_sse_tail(uint32_t s, const unsigned char *p, size_t n)
{
    const size_t nv = n & ~(size_t)63, tw = (n - nv) / 8;
    uint32_t ct = tw ? sse42_1way(0, p + nv, 8 * tw) : 0;
    s = kvlog__crc_fold_vpclmul(&crc32c_fold, s, p, nv);
    if (tw)
        s = (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(CLMUL_K(s, tw))) ^ ct;
    return sse42_1way(s, p + nv + 8 * tw, n & 7);
}

#ifndef CRC32C_HYBRID_MIN
#define CRC32C_HYBRID_MIN 4096
#endif

/* VPCLMULQDQ under AVX2 (no AVX-512: Zen 3, Intel client cores): crc32c_hybrid256, as crc32c_hybrid128
   with 4 x 256-bit registers, 128 bytes folded per step beside HX_S crc32 streams of HX2_W words each. */
#ifndef HX2_W
#define HX2_W 6
#endif

#define HY_BITS 256
#define HY_TARGET KVLOG_TARGET_VPCLMUL256
#define HY_K k1024
#define HY_STREAMS HX_S
#define HY_WORDS HX2_W
#include "kvlog_crc_hybrid.h"

#ifndef CRC32C_HYBRID256_MIN
#define CRC32C_HYBRID256_MIN 1024
#endif

static uint32_t crc32c_v_vpclmul_avx2(uint32_t crc, const unsigned char *p, size_t n)
{
    return crc32c_tiers(crc, p, n, CRC32C_HYBRID256_MIN, crc32c_hybrid256);
}

static uint32_t crc32c_v_vpclmul(uint32_t crc, const unsigned char *p, size_t n)
{
    if (n >= CRC32C_FOLD512_MIN && n < CRC32C_HYBRID_MIN)
        return ~fold512_sse_tail(~crc, p, n);
    return crc32c_tiers(crc, p, n, CRC32C_HYBRID_MIN, crc32c_hybrid512);
}
#endif
#endif /* KVLOG_HAVE_X86_KERNELS */

/* ------------------------------------------- aarch64, portable, dispatch */
static const char *const kernel_names[KVLOG_CRC_NVARIANTS] = {
    "slice8", "sse4.2-3way", "pclmul+sse4.2", "vpclmul-avx512+sse4.2", "armv8-crc", "vpclmul-avx2+sse4.2"
};

#define CRC_HAS_SSE42 1
#define CRC_NAMES kernel_names
#include "kvlog_crc_poly.h"
