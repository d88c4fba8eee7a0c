/* kvlog_crc_tables.h - template: one polynomial's tables and constants, private to csrc/crc32.c and
 * csrc/crc32c.c. Included once, near the top of each, before its kernels:
 *
 *   <id>_slice8[8][256]                   the portable slicing-by-8 tables
 *   <id>_fold                             the x86 folding constants (kvlog_crc_fold_consts)
 *   <id>_shift4096/_shift512/_shift64     "shift the state over L zero bytes" tables of the 3-stream
 *                                         CRC-instruction kernels (kvlog_crc_3way.h), when CRC_SHIFT says so
 *   <id>_combine[384], <id>_pow2[64]      CRC-32C's carry-less combine constants (CRC_COMBINE)
 *
 * and kvlog__<id>_tables(), which computes all of them from the polynomial alone (the builders in
 * csrc/crc32.c; the derivations and a pure-Python model in tools/gen_crc_constants.py). They are filled once
 * per process, under the pthread_once of kvlog_crc_init(), before a variant is picked: every kernel is
 * reached through the dispatch (kvlog_<id>(), kvlog_<id>_variant()), which runs that first.
 *
 * Define before including:
 *   CRC_ID          crc32 or crc32c (the prefix of every name made here)
 *   CRC_POLY        the reflected polynomial (0xEDB88320u, 0x82F63B78u)
 *   CRC_HW_REDUCE   1 when the x86 crc32 instruction computes this CRC (the folding kernels' final reduction
 *                   then takes two of them: CRC-32C), else 0
 *   CRC_SHIFT       1 when this build has a 3-stream CRC-instruction kernel for the polynomial, else 0
 *   CRC_COMBINE     1 when it has CRC-32C's carry-less combining streams (x86), else 0
 */
#define CRC_T(x) KVLOG_PASTE(CRC_ID, _##x)

/* (the kernels read the 2-D tables through const pointers: <id>_slice8 for <id>_slice8_, ...) */
static uint32_t CRC_T(slice8_)[8][256];
static const uint32_t (*const CRC_T(slice8))[256] = (const uint32_t (*)[256])CRC_T(slice8_);
#if defined(KVLOG_HAVE_X86_KERNELS)
static kvlog_crc_fold_consts CRC_T(fold);
#endif
#if CRC_SHIFT
static uint32_t CRC_T(shift4096_)[4][256], CRC_T(shift512_)[4][256], CRC_T(shift64_)[4][256];
static const uint32_t (*const CRC_T(shift4096))[256] = (const uint32_t (*)[256])CRC_T(shift4096_);
static const uint32_t (*const CRC_T(shift512))[256] = (const uint32_t (*)[256])CRC_T(shift512_);
static const uint32_t (*const CRC_T(shift64))[256] = (const uint32_t (*)[256])CRC_T(shift64_);
#endif
#if CRC_COMBINE
/* K[m-1] = rev32(x^(64*m - 33) mod P): shift a state over 8*m bytes with crc32_u64(0, clmul(state, K)),
   m = 1..3*KVLOG_CRC_COMBINE_BLOCK/8; P2[i] = rev32(x^(64*2^i - 33) mod P): K for any m as their product */
static uint32_t CRC_T(combine)[3 * KVLOG_CRC_COMBINE_BLOCK / 8];
static uint32_t CRC_T(pow2)[64];
#endif

void KVLOG_PASTE(KVLOG_PASTE(kvlog__, CRC_ID), _tables)(void)
{
    kvlog__crc_make_slice8(CRC_POLY, CRC_T(slice8_));
#if defined(KVLOG_HAVE_X86_KERNELS)
    kvlog__crc_make_fold(CRC_POLY, CRC_HW_REDUCE, &CRC_T(fold));
#endif
#if CRC_SHIFT
    kvlog__crc_make_shift(CRC_POLY, 4096, CRC_T(shift4096_));
    kvlog__crc_make_shift(CRC_POLY, 512, CRC_T(shift512_));
    kvlog__crc_make_shift(CRC_POLY, 64, CRC_T(shift64_));
#endif
#if CRC_COMBINE
    {
        const uint32_t x64 = kvlog__crc_xpow(CRC_POLY, 64), x33 = kvlog__crc_xpow(CRC_POLY, 33);
        size_t m;
        CRC_T(combine)[0] = kvlog__crc_xpow(CRC_POLY, 31);
        for (m = 1; m < sizeof(CRC_T(combine)) / sizeof(CRC_T(combine)[0]); m++)
            CRC_T(combine)[m] = kvlog__crc_mulmod(CRC_POLY, CRC_T(combine)[m - 1], x64);
        CRC_T(pow2)[0] = CRC_T(combine)[0];
        for (m = 1; m < 64; m++)  /* x^(2e + 33) from x^e, e = 64*2^(m-1) - 33 */
            CRC_T(pow2)[m] = kvlog__crc_mulmod(CRC_POLY, kvlog__crc_mulmod(CRC_POLY, CRC_T(pow2)[m - 1],
                                                                           CRC_T(pow2)[m - 1]), x33);
    }
#endif
}

#undef CRC_T
#undef CRC_POLY
#undef CRC_HW_REDUCE
#undef CRC_SHIFT
#undef CRC_COMBINE
