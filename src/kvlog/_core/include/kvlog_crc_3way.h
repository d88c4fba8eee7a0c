/* kvlog_crc_3way.h - template: CRC kernels over a CRC instruction (aarch64's crc32[c]{b,h,w,d}, x86's
 * SSE4.2 crc32), private to csrc/crc32.c and csrc/crc32c.c.
 *
 * The instruction's latency is three times its throughput, so long inputs run as three interleaved
 * streams whose states are combined with shift tables (tools/gen_crc_constants.py); short ones, and the
 * tail, as one stream. One body for every instruction set and polynomial, so the three instances
 * (CRC-32 and CRC-32C on aarch64, CRC-32C with SSE4.2) cannot drift apart.
 *
 * No include guard: included once per instance, with these defined (all #undef'd at the end):
 *   W3_NAME(x)          name of this instance's function x (defines 1way, 3way and kernel)
 *   W3_TARGET           the function attribute that enables the instruction
 *   W3_STATE            the instruction's state type (uint64_t for x86's crc32_u64, else uint32_t)
 *   W3_CRC(bits, c, v)  the instruction over `bits` (64, 32, 16 or 8) bits of v
 *   W3_SHIFT(L)         the table that shifts a state over L bytes, L = 4096, 512 or 64
 * States are the internal (non-inverted) ones.
 */
#ifndef KVLOG_CRC_SHIFT_BY_TABLE
#define KVLOG_CRC_SHIFT_BY_TABLE 1
/* c * x^(8L) mod P for the L of the table t (four rows, one per byte of c) */
static inline uint32_t shift_by_table(const uint32_t (*t)[256], uint32_t c)
{
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}
#endif

W3_TARGET static inline uint32_t W3_NAME(1way)(uint32_t c, const unsigned char *p, size_t n)
{
    W3_STATE s = c;
    uint64_t v8;
    uint32_t v4;
    uint16_t v2;
    while (n >= 8) {
        memcpy(&v8, p, 8);
        s = W3_CRC(64, s, v8);
        p += 8;
        n -= 8;
    }
    c = (uint32_t)s;
    if (n & 4) {
        memcpy(&v4, p, 4);
        c = W3_CRC(32, c, v4);
        p += 4;
    }
    if (n & 2) {
        memcpy(&v2, p, 2);
        c = W3_CRC(16, c, v2);
        p += 2;
    }
    if (n & 1)
        c = W3_CRC(8, c, *p);
    return c;
}

/* Three streams over [p, p+L), [p+L, p+2L), [p+2L, p+3L), all started from 0;
   acc (the state before p) is shifted over 3L bytes off the streams' critical path. */
W3_TARGET static inline uint32_t W3_NAME(3way)(uint32_t acc, const unsigned char *p, size_t L,
                                               const uint32_t (*sh)[256])
{
    W3_STATE a = 0, b = 0, c = 0;
    size_t i;
    for (i = 0; i < L; i += 8) {
        uint64_t va, vb, vc;
        memcpy(&va, p + i, 8);
        memcpy(&vb, p + L + i, 8);
        memcpy(&vc, p + 2 * L + i, 8);
        a = W3_CRC(64, a, va);
        b = W3_CRC(64, b, vb);
        c = W3_CRC(64, c, vc);
    }
    return shift_by_table(sh, shift_by_table(sh, shift_by_table(sh, acc) ^ (uint32_t)a) ^ (uint32_t)b) ^
           (uint32_t)c;
}

/* 3-way blocks of L-byte streams while they fit (L a constant, so each loop inlines its own 3way) */
#define W3_BLOCKS(L) \
    for (; n >= 3 * (size_t)(L); p += 3 * (size_t)(L), n -= 3 * (size_t)(L)) \
        s = W3_NAME(3way)(s, p, (L), W3_SHIFT(L))

W3_TARGET static uint32_t W3_NAME(kernel)(uint32_t s, const unsigned char *p, size_t n)
{
    W3_BLOCKS(4096);
    W3_BLOCKS(512);
    W3_BLOCKS(64);
    return W3_NAME(1way)(s, p, n);
}

#undef W3_BLOCKS
#undef W3_NAME
#undef W3_TARGET
#undef W3_STATE
#undef W3_CRC
#undef W3_SHIFT
