/* crc32.c - IEEE CRC-32 (reflected polynomial 0xEDB88320, as zlib.crc32),
 * run-time kernel dispatch, and the carry-less-multiply folding engine that
 * crc32c.c shares (it is polynomial-agnostic: all it needs is a constants set).
 *
 * Notation (derivations in tools/gen_crc_constants.py, a pure-Python model of every
 * table and constant, which the builders below compute at init from the polynomial):
 * the internal state is the CRC register without the init/final inversion;
 * kvlog_crc32(crc, ...) works on ~crc and returns ~state.
 *
 * Variants (ids from kvlog_crc.h):
 *   SLICE8   portable slicing-by-8, 8 x 256-entry tables, byte-order independent.
 *   PCLMUL   (SSE4.2+PCLMULQDQ) 4 x 128-bit lanes folded by 512 bits per 64-byte
 *            step, lanes merged with per-distance constants, 16-byte steps, a
 *            pshufb/blend "overlapping last block" for the 1..15 byte tail, then
 *            a 128->64 bit fold and Barrett reduction (for CRC-32C constants:
 *            two crc32 instructions instead).  n < 40 uses slice8.
 *   VPCLMUL  (AVX512F/VL/BW + VPCLMULQDQ) 4 x 512-bit registers (16 lanes)
 *            folded by 2048 bits per 256-byte step, then 512-bit steps, the 4
 *            lanes of the last zmm merged with one lane-wise multiply, and the
 *            128-bit PCLMUL finish above.  n < 256 uses the PCLMUL kernel.
 *   VPCLMUL_AVX2 (AVX2 + VPCLMULQDQ, no AVX-512: Zen 3, Intel client cores)
 *            4 x 256-bit registers folded by 1024 bits per 128-byte step, merged
 *            pairwise, then the 128-bit PCLMUL finish.  n < 128 as PCLMUL.
 *   ARMV8    (aarch64 CRC32) three interleaved __crc32d streams over equal
 *            chunks, merged with "shift by L bytes" tables.
 * SSE42 has no meaning for IEEE CRC-32 (the x86 crc32 instruction is CRC-32C).
 *
 * What the two polynomials share is written once: their tables and constants in the template
 * kvlog_crc_tables.h (computed once, at kvlog_crc_init, by the builders here), the folding steps in
 * kvlog_crc_fold.h, the aarch64 kernel, slice8 variant and dispatch in the template kvlog_crc_poly.h
 * (included at the end of both).
 */
#define KVLOG_CRC_INTERNAL 1
#include <pthread.h>
#include "kvlog_crc.h"
#include "kvlog_cpu.h"

#include <string.h>

#include "kvlog_crc_fold.h"
#if defined(KVLOG_HAVE_ARM_KERNELS) && !defined(__clang__)
#include <arm_acle.h>
#endif

/* ------------------------------------------------------------------ tables */
#define CRC_ID crc32
#define CRC_POLY 0xEDB88320u
#define CRC_HW_REDUCE 0
#if defined(KVLOG_HAVE_ARM_KERNELS)
#define CRC_SHIFT 1
#else
#define CRC_SHIFT 0
#endif
#define CRC_COMBINE 0
#include "kvlog_crc_tables.h"

/* ---------------------------------------------------------------- portable */
static uint32_t load32le(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* GF(2) arithmetic on reflected words (bit 31 - i: the coefficient of x^i), for the tables below. */
uint32_t kvlog__crc_mulmod(uint32_t poly, uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    int i;
    for (i = 0; i < 32; i++) {  /* b runs through b * x^i mod P */
        if (a & (UINT32_C(0x80000000) >> i))
            r ^= b;
        b = (b >> 1) ^ (poly & (0u - (b & 1u)));
    }
    return r;
}

uint32_t kvlog__crc_xpow(uint32_t poly, uint64_t n)
{
    uint32_t r = UINT32_C(0x80000000), sq = UINT32_C(0x40000000);  /* x^0, x^1 */
    for (; n; n >>= 1) {
        if (n & 1)
            r = kvlog__crc_mulmod(poly, r, sq);
        sq = kvlog__crc_mulmod(poly, sq, sq);
    }
    return r;
}

/* t[0][b]: the state after byte b from state 0; t[k][b]: then k zero bytes more */
void kvlog__crc_make_slice8(uint32_t poly, uint32_t t[8][256])
{
    int b, k, i;
    for (b = 0; b < 256; b++) {
        uint32_t c = (uint32_t)b;
        for (i = 0; i < 8; i++)
            c = (c >> 1) ^ (poly & (0u - (c & 1u)));
        t[0][b] = c;
    }
    for (k = 1; k < 8; k++)
        for (b = 0; b < 256; b++)
            t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
}

/* row k, entry b: the state (b << 8k) times x^(8 nbytes) mod P (the map is linear: one row per byte) */
void kvlog__crc_make_shift(uint32_t poly, size_t nbytes, uint32_t t[4][256])
{
    const uint32_t xs = kvlog__crc_xpow(poly, 8 * (uint64_t)nbytes);
    int b, k;
    for (k = 0; k < 4; k++)
        for (b = 0; b < 256; b++)
            t[k][b] = kvlog__crc_mulmod(poly, (uint32_t)b << (8 * k), xs);
}

/* rev33(x^e mod P): the reflected word, one bit up */
static uint64_t rev33_xpow(uint32_t poly, uint64_t e)
{
    return (uint64_t)kvlog__crc_xpow(poly, e) << 1;
}

static void fold_pair(uint32_t poly, uint64_t d, uint64_t pair[2])
{
    pair[0] = rev33_xpow(poly, d + 32);
    pair[1] = rev33_xpow(poly, d - 32);
}

void kvlog__crc_make_fold(uint32_t poly, int hw_crc32c, kvlog_crc_fold_consts *k)
{
    uint64_t p33 = ((uint64_t)poly << 1) | 1;  /* rev33(P), P of degree 32 */
    uint64_t pn = 0, r, q = 0;                 /* P and floor(x^64 / P), normal bit order */
    int i;
    fold_pair(poly, 128, k->k128);
    fold_pair(poly, 256, k->k256);
    fold_pair(poly, 384, k->k384);
    fold_pair(poly, 512, k->k512);
    fold_pair(poly, 1024, k->k1024);
    fold_pair(poly, 1536, k->k1536);
    fold_pair(poly, 2048, k->k2048);
    memcpy(k->zlanes, k->k384, 16);  /* the lanes of a zmm: k384 k256 k128 0 */
    memcpy(k->zlanes + 2, k->k256, 16);
    memcpy(k->zlanes + 4, k->k128, 16);
    k->zlanes[6] = k->zlanes[7] = 0;
    k->k96 = rev33_xpow(poly, 96);
    k->k64 = rev33_xpow(poly, 64);
    for (i = 0; i < 33; i++)
        pn |= ((p33 >> i) & 1) << (32 - i);
    /* x^64 / P: the first step leaves (P - x^32) * x^32, then a quotient bit per degree from 63 down to 32 */
    r = (pn ^ (UINT64_C(1) << 32)) << 32;
    q = UINT64_C(1) << 32;
    for (i = 31; i >= 0; i--) {
        if (r >> (32 + i) & 1) {
            q |= UINT64_C(1) << i;
            r ^= pn << i;
        }
    }
    k->mu = 0;
    for (i = 0; i < 33; i++)
        k->mu |= ((q >> i) & 1) << (32 - i);
    k->poly = p33;
    k->hw_crc32c = (uint64_t)hw_crc32c;
}

uint32_t kvlog__crc_slice8(const uint32_t (*t)[256], uint32_t c, const unsigned char *p, size_t n)
{
    while (n >= 8) {
        uint32_t lo = load32le(p) ^ c;
        uint32_t hi = load32le(p + 4);
        c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
            t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
    return c;
}

/* ------------------------------------------------ x86 PCLMULQDQ folding */
#if defined(KVLOG_HAVE_X86_KERNELS)
/* pshufb masks for the partial last block: bytes [t, t+16) and [16+t, 32+t) */
static const unsigned char kvlog_tail_shuf[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

/* x holds the folded data so far; p/n is what is left (any n; at least 16
   bytes precede p).  Folds the remaining whole blocks, the partial block, and
   reduces to the 32-bit state. */
KVLOG_TARGET_PCLMUL static uint32_t fold_finish(const kvlog_crc_fold_consts *k, __m128i x,
                                                const unsigned char *p, size_t n)
{
    const __m128i k128 = LOADU128(k->k128);
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
    __m128i t, kr;

    while (n >= 16) {
        x = fold128x(x, k128, LOADU128(p));
        p += 16;
        n -= 16;
    }
    if (n) {
        /* message = x (16 bytes) || tail (n bytes) = [0^(16-n) x[0..n)] || [x[n..16) tail] */
        __m128i m_hi = LOADU128(kvlog_tail_shuf + 16 + n);  /* byte i <- x[i+n], or 0x80 */
        __m128i m_lo = LOADU128(kvlog_tail_shuf + n);       /* byte i <- x[i-16+n], or 0x80 */
        __m128i last = LOADU128(p + n - 16);                /* ends at the end of the data */
        __m128i w = _mm_blendv_epi8(_mm_shuffle_epi8(x, m_hi), last, m_hi);
        x = fold128x(_mm_shuffle_epi8(x, m_lo), k128, w);
    }
    if (k->hw_crc32c) {
        /* crc32_u64(c, d) = c*x^64 + d*x^32 mod P(CRC-32C): two of them give A*x^32 mod P */
        uint64_t lo = (uint64_t)_mm_cvtsi128_si64(x), hi = (uint64_t)_mm_extract_epi64(x, 1);
        return (uint32_t)_mm_crc32_u64(_mm_crc32_u64(0, lo), hi);
    }
    /* 128 -> 96 -> 64 bits, then Barrett: state = (A * x^32) mod P */
    kr = _mm_set_epi64x((long long)k->k64, (long long)k->k96);
    t = _mm_clmulepi64_si128(x, kr, 0x00);
    x = _mm_xor_si128(t, _mm_srli_si128(x, 8));
    t = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), kr, 0x10);
    x = _mm_xor_si128(t, _mm_srli_si128(x, 4));
    kr = _mm_set_epi64x((long long)k->poly, (long long)k->mu);
    t = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), kr, 0x00);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), kr, 0x10);
    x = _mm_xor_si128(x, t);
    return (uint32_t)_mm_extract_epi32(x, 1);
}

/* The main loop of the folding kernels, for registers of `bits` (128, 256, 512): x0..x3 take the first
   four registers' worth at p (x0 with the state added) and fold forward by k4 (the constant for four
   registers) while four more follow; p and n advance past what was folded. Needs n >= bits / 2. */
#define FOLD_MAIN(bits, k4) \
    do { \
        x0 = start##bits(p, state); \
        KVLOG_LOAD3(LOADU##bits, p, (bits) / 8); \
        kk = KCONST##bits(k4); \
        for (p += (bits) / 2, n -= (bits) / 2; n >= (bits) / 2; p += (bits) / 2, n -= (bits) / 2) \
            KVLOG_FOLD4(fold##bits##x, LOADU##bits, kk, p, (bits) / 8); \
    } while (0)

KVLOG_TARGET_PCLMUL uint32_t kvlog__crc_fold_pclmul(const kvlog_crc_fold_consts *k, uint32_t state,
                                                    const unsigned char *p, size_t n)
{
    __m128i x0, x1, x2, x3, kk;

    if (n >= 64) {
        FOLD_MAIN(128, k->k512);
        x0 = _mm_xor_si128(_mm_xor_si128(fold128(x0, LOADU128(k->k384)), fold128(x1, LOADU128(k->k256))),
                           _mm_xor_si128(fold128(x2, LOADU128(k->k128)), x3));
    } else {
        x0 = start128(p, state);
        p += 16;
        n -= 16;
    }
    return fold_finish(k, x0, p, n);
}

#if defined(KVLOG_HAVE_X86_AVX512_KERNELS)
/* x0..x3: four folded 512-bit registers covering consecutive 64-byte blocks that end
   at p; p/n: the data that follows.  Merges them and finishes with fold_finish. */
KVLOG_TARGET_VPCLMUL static inline uint32_t fold512_finish(const kvlog_crc_fold_consts *k, __m512i x0, __m512i x1,
                                                           __m512i x2, __m512i x3, const unsigned char *p,
                                                           size_t n)
{
    __m512i kk, t, u;
    __m256i h;
    __m128i r;

    /* x0, x1, x2 are 192, 128, 64 bytes before x3 */
    kk = KCONST512(k->k1536);
    t = fold512x(x0, kk, x3);
    kk = KCONST512(k->k1024);
    u = _mm512_xor_si512(_mm512_clmulepi64_epi128(x1, kk, 0x00), _mm512_clmulepi64_epi128(x1, kk, 0x11));
    kk = KCONST512(k->k512);
    x0 = _mm512_xor_si512(fold512x(x2, kk, t), u);
    while (n >= 64) {
        x0 = fold512x(x0, kk, LOADU512(p));
        p += 64;
        n -= 64;
    }
    /* lanes 0, 1, 2 are 48, 32, 16 bytes before lane 3: one multiply by {k384, k256, k128, 0} */
    kk = LOADU512(k->zlanes);
    t = _mm512_xor_si512(_mm512_clmulepi64_epi128(x0, kk, 0x00), _mm512_clmulepi64_epi128(x0, kk, 0x11));
    t = _mm512_mask_xor_epi64(t, 0xC0, t, x0);
    h = _mm256_xor_si256(_mm512_castsi512_si256(t), _mm512_extracti64x4_epi64(t, 1));
    r = _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    /* Leave no dirty upper register state behind: legacy-SSE code (fold_finish, and
       whatever the caller runs next) would otherwise pay for merging it. */
    _mm256_zeroupper();
    return fold_finish(k, r, p, n);
}

KVLOG_TARGET_VPCLMUL uint32_t kvlog__crc_fold_vpclmul(const kvlog_crc_fold_consts *k, uint32_t state,
                                                      const unsigned char *p, size_t n)
{
    __m512i x0, x1, x2, x3, kk;

    if (n < 256)
        return kvlog__crc_fold_pclmul(k, state, p, n);

    FOLD_MAIN(512, k->k2048);
    return fold512_finish(k, x0, x1, x2, x3, p, n);
}

KVLOG_TARGET_VPCLMUL uint32_t kvlog__crc_fold_vpclmul_state(const kvlog_crc_fold_consts *k, const void *zstate)
{
    const unsigned char *z = (const unsigned char *)zstate;
    return fold512_finish(k, LOADU512(z), LOADU512(z + 64), LOADU512(z + 128), LOADU512(z + 192), NULL, 0);
}

/* 256-bit VPCLMULQDQ under AVX2 (no AVX-512): 4 x 256-bit registers folded by 1024 bits per 128-byte
   step, merged pairwise into one register and then into one 128-bit lane for fold_finish.
   fold256_merge: x0..x3 cover 128 consecutive bytes (x0 first): one 128-bit lane holding all of them */
KVLOG_TARGET_VPCLMUL256 static inline __m128i fold256_merge(const kvlog_crc_fold_consts *k, __m256i x0, __m256i x1,
                                                            __m256i x2, __m256i x3)
{
    const __m256i k256 = KCONST256(k->k256);
    __m256i w = fold256x(fold256x(x0, k256, x1), KCONST256(k->k512), fold256x(x2, k256, x3));
    __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    const __m128i k128 = LOADU128(k->k128);
    return fold128x(lo, k128, hi);
}

KVLOG_TARGET_VPCLMUL256 uint32_t kvlog__crc_fold_vpclmul256(const kvlog_crc_fold_consts *k, uint32_t state,
                                                            const unsigned char *p, size_t n)
{
    __m256i x0, x1, x2, x3, kk;
    __m128i r;

    if (n < 128)
        return kvlog__crc_fold_pclmul(k, state, p, n);
    FOLD_MAIN(256, k->k1024);
    r = fold256_merge(k, x0, x1, x2, x3);
    _mm256_zeroupper();
    return fold_finish(k, r, p, n);
}

KVLOG_TARGET_VPCLMUL256 uint32_t kvlog__crc_fold_vpclmul256_state(const kvlog_crc_fold_consts *k, const void *ystate)
{
    const unsigned char *y = (const unsigned char *)ystate;
    __m128i r = fold256_merge(k, LOADU256(y), LOADU256(y + 32), LOADU256(y + 64), LOADU256(y + 96));
    _mm256_zeroupper();
    return fold_finish(k, r, NULL, 0);
}
#endif /* KVLOG_HAVE_X86_AVX512_KERNELS */

/* Below this many bytes the table is faster than setting up the folding. */
#define CRC32_FOLD_MIN 40

static uint32_t crc32_v_pclmul(uint32_t crc, const unsigned char *p, size_t n)
{
    if (n < CRC32_FOLD_MIN)
        return ~kvlog__crc_slice8(crc32_slice8, ~crc, p, n);
    return ~kvlog__crc_fold_pclmul(&crc32_fold, ~crc, p, n);
}

#if defined(KVLOG_HAVE_X86_AVX512_KERNELS)
static uint32_t crc32_v_vpclmul(uint32_t crc, const unsigned char *p, size_t n)
{
    if (n < CRC32_FOLD_MIN)
        return ~kvlog__crc_slice8(crc32_slice8, ~crc, p, n);
    return ~kvlog__crc_fold_vpclmul(&crc32_fold, ~crc, p, n);
}

static uint32_t crc32_v_vpclmul_avx2(uint32_t crc, const unsigned char *p, size_t n)
{
    if (n < CRC32_FOLD_MIN)
        return ~kvlog__crc_slice8(crc32_slice8, ~crc, p, n);
    return ~kvlog__crc_fold_vpclmul256(&crc32_fold, ~crc, p, n);
}
#endif
#endif /* KVLOG_HAVE_X86_KERNELS */

/* ------------------------------------------- aarch64, portable, dispatch */
static const char *const variant_names[KVLOG_CRC_NVARIANTS] = {
    "slice8", "sse4.2", "pclmul", "vpclmul-avx512", "armv8-crc", "vpclmul-avx2"
};

const char *kvlog_crc_variant_name(int variant)
{
    if (variant < 0 || variant >= KVLOG_CRC_NVARIANTS)
        return NULL;
    return variant_names[variant];
}

/* Once per process (module import, or the first CRC before it): both polynomials' variants picked under
   pthread_once, so a thread that returns from here sees the pointers and names of the pick. */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init_once(void)
{
    kvlog__crc32_tables();
    kvlog__crc32c_tables();
    kvlog__crc32_init();
    kvlog__crc32c_init();
}

void kvlog_crc_init(void)
{
    pthread_once(&crc_once, crc_init_once);
}

#define CRC_HAS_SSE42 0
#define CRC_NAMES variant_names
#include "kvlog_crc_poly.h"
