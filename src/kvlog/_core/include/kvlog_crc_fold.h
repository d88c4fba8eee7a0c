/* kvlog_crc_fold.h - x86 carry-less folding steps, private to csrc/crc32.c and csrc/crc32c.c.
 *
 * A folding step multiplies 128-bit lanes of folded data by x^D mod P (constants kD of a
 * kvlog_crc_fold_consts) and adds the data D bits further on. The steps are the same for every
 * polynomial and register width; only the constants differ. Both files include this one copy so the
 * CRC-32 folding kernels and CRC-32C's hybrid kernels cannot drift apart.
 */
#ifndef KVLOG_CRC_FOLD_H
#define KVLOG_CRC_FOLD_H

#if defined(KVLOG_HAVE_X86_KERNELS)
#include <immintrin.h>

#define KVLOG_TARGET_PCLMUL __attribute__((target("sse4.2,pclmul")))
#define LOADU128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))

/* x (rev128 of A) -> rev128 of a polynomial congruent to A * x^D, k = kD */
KVLOG_TARGET_PCLMUL static inline __m128i fold128(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* fold128, then add the data that follows */
KVLOG_TARGET_PCLMUL static inline __m128i fold128x(__m128i x, __m128i k, __m128i data)
{
    return _mm_xor_si128(fold128(x, k), data);
}

/* The first vector at q with the 32-bit state added (where every folding kernel starts), and a 128-bit
   folding constant in every lane, for each register width. */
KVLOG_TARGET_PCLMUL static inline __m128i start128(const unsigned char *q, uint32_t state)
{
    return _mm_xor_si128(LOADU128(q), _mm_cvtsi32_si128((int)state));
}
#define KCONST128(k) LOADU128(k)

/* Four registers x0..x3 folded forward by kk over the next four w-byte vectors at q (the main loop of
   every folding kernel: four independent multiplies in flight). */
#define KVLOG_FOLD4(fold, load, kk, q, w) \
    (x0 = fold(x0, (kk), load(q)), x1 = fold(x1, (kk), load((q) + (w))), \
     x2 = fold(x2, (kk), load((q) + 2 * (w))), x3 = fold(x3, (kk), load((q) + 3 * (w))))

/* x1..x3 loaded from the vectors after the first at q (x0 takes the state as well) */
#define KVLOG_LOAD3(load, q, w) (x1 = load((q) + (w)), x2 = load((q) + 2 * (w)), x3 = load((q) + 3 * (w)))

#if defined(KVLOG_HAVE_X86_AVX512_KERNELS)
#define KVLOG_TARGET_VPCLMUL \
    __attribute__((target("sse4.2,pclmul,avx2,avx512f,avx512vl,avx512bw,vpclmulqdq")))
#define LOADU512(p) _mm512_loadu_si512((const void *)(p))

KVLOG_TARGET_VPCLMUL static inline __m512i fold512x(__m512i x, __m512i k, __m512i data)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), data, 0x96);
}

KVLOG_TARGET_VPCLMUL static inline __m512i start512(const unsigned char *q, uint32_t state)
{
    return _mm512_xor_si512(LOADU512(q), _mm512_inserti32x4(_mm512_setzero_si512(),
                                                            _mm_cvtsi32_si128((int)state), 0));
}
#define KCONST512(k) _mm512_broadcast_i32x4(LOADU128(k))

/* 256-bit VPCLMULQDQ under AVX2, without AVX-512 (AMD Zen 3, Intel client cores) */
#define KVLOG_TARGET_VPCLMUL256 __attribute__((target("sse4.2,pclmul,avx2,vpclmulqdq")))
#define LOADU256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))

KVLOG_TARGET_VPCLMUL256 static inline __m256i fold256x(__m256i x, __m256i k, __m256i data)
{
    return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
                                             _mm256_clmulepi64_epi128(x, k, 0x11)), data);
}

KVLOG_TARGET_VPCLMUL256 static inline __m256i start256(const unsigned char *q, uint32_t state)
{
    return _mm256_xor_si256(LOADU256(q), _mm256_inserti128_si256(_mm256_setzero_si256(),
                                                                 _mm_cvtsi32_si128((int)state), 0));
}
#define KCONST256(k) _mm256_broadcastsi128_si256(LOADU128(k))
#endif /* KVLOG_HAVE_X86_AVX512_KERNELS */
#endif /* KVLOG_HAVE_X86_KERNELS */
#endif /* KVLOG_CRC_FOLD_H */
