/* kvlog_crc_hybrid.h - template: CRC-32C's hybrid kernels, private to csrc/crc32c.c.
 *
 * The carry-less multiplier and the crc32 instruction are separate units, so a folding engine of four
 * registers runs beside HY_STREAMS crc32 streams (csrc/crc32c.c's hy_streams) in one loop:
 *     [ V = 4 registers * iters: folded ][ HY_STREAMS streams over whole words ][ < 8 ]
 * Each step folds four registers' worth of bytes and advances every stream by HY_WORDS words; the streams
 * then finish their remaining words while the vector state is reduced, and every part is merged by one
 * carry-less multiply by x^(64 * words after it) mod P. One body for the 128-, 256- and 512-bit
 * registers, which differ only in width and constants. Requires n >= 4 * HY_BITS / 8 + 8*HY_STREAMS*HY_WORDS.
 *
 * No include guard: included once per width, with these defined (all #undef'd at the end):
 *   HY_BITS     the register width, 128, 256 or 512: the function is crc32c_hybrid<bits>, and uses
 *               kvlog_crc_fold.h's LOADU<bits>, start<bits>, fold<bits>x and KCONST<bits>
 *   HY_TARGET   the function attribute that enables that width
 *   HY_K        the constant that folds a register forward by four registers (kvlog_crc_fold_consts)
 *   HY_STREAMS  crc32 streams beside the folding (at most HY_STREAMS_MAX)
 *   HY_WORDS    8-byte words each stream takes per folding step
 */
#define HY_BYTES (HY_BITS / 8)
#define HY_VEC KVLOG_PASTE(KVLOG_PASTE(__m, HY_BITS), i)
#define HY_(x) KVLOG_PASTE(x, HY_BITS)

HY_TARGET static uint32_t HY_(crc32c_hybrid)(uint32_t s, const unsigned char *p, size_t n)
{
    const size_t step = 4 * HY_BYTES + 8 * HY_STREAMS * HY_WORDS;
    const size_t iters = n / step, V = 4 * HY_BYTES * iters, words = (n - V) / 8;
    const unsigned char *vp = p + 4 * HY_BYTES;
    hy_streams h;
    HY_VEC x0, x1, x2, x3, kk;
    size_t i, k;
    int w;
    uint32_t vstate;

    hy_open(&h, p + V, words, HY_STREAMS);
    x0 = HY_(start)(p, s);
    KVLOG_LOAD3(HY_(LOADU), p, HY_BYTES);
    kk = HY_(KCONST)(crc32c_fold.HY_K);
    for (i = 1, k = 0; i < iters; i++) {
        KVLOG_FOLD4(KVLOG_PASTE(HY_(fold), x), HY_(LOADU), kk, vp, HY_BYTES);
        vp += 4 * HY_BYTES;
        for (w = 0; w < HY_WORDS; w++, k++)
            hy_word(&h, k, HY_STREAMS);
    }
#if HY_BITS == 128
    /* x0, x1, x2 are 48, 32, 16 bytes before x3 */
    x0 = fold128x(x0, LOADU128(crc32c_fold.k384), fold128x(x1, LOADU128(crc32c_fold.k256),
                                                           fold128x(x2, LOADU128(crc32c_fold.k128), x3)));
    /* crc32_u64(c, d) = c*x^64 + d*x^32 mod P: two of them reduce the 128 folded bits */
    vstate = (uint32_t)_mm_crc32_u64(_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x0)),
                                     (uint64_t)_mm_extract_epi64(x0, 1));
#else
    {
        /* the wide registers' reduction is crc32.c's, from memory; no dirty upper state left behind */
        const union { HY_VEC v[4]; unsigned char b[4 * HY_BYTES]; } st = { { x0, x1, x2, x3 } };
        _mm256_zeroupper();
#if HY_BITS == 512
        vstate = kvlog__crc_fold_vpclmul_state(&crc32c_fold, st.b);
#else
        vstate = kvlog__crc_fold_vpclmul256_state(&crc32c_fold, st.b);
#endif
    }
#endif
    s = hy_close(&h, k, vstate, HY_STREAMS);
    return sse42_1way(s, p + V + 8 * words, (n - V) & 7);
}

#undef HY_
#undef HY_VEC
#undef HY_BYTES
#undef HY_BITS
#undef HY_TARGET
#undef HY_K
#undef HY_STREAMS
#undef HY_WORDS
