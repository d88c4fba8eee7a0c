/* md5.c - MD5 (RFC 1321), written for kvlog from the RFC's description of the algorithm.
 *
 * Layout of the code:
 *   md5_block()   the compression function over one 64-byte block (RFC 1321 §3.4), scalar.
 *   kvlog_md5()   one-shot digest: whole blocks straight from the input, the padded tail (§3.1-§3.2) in a
 *                 local block.
 *   md5_x4()      the same compression on four independent blocks at once in 128-bit vectors (SSE2 on
 *                 x86-64, NEON on aarch64; both are baseline for their architecture, so no run-time
 *                 dispatch is needed). Used for batches of short messages (<= 55 bytes: one block each),
 *                 which is what Kafka keys usually are.
 *   kvlog_md5_many32/64()   digests of an Arrow-style binary column, four at a time when possible.
 *   kvlog_md5_init/update/final()   incremental interface.
 *
 * Round functions use the usual equivalent forms with fewer operations:
 *   F(x,y,z) = (x & y) | (~x & z)  ==  z ^ (x & (y ^ z))
 *   G(x,y,z) = (x & z) | (y & ~z)  ==  y ^ (z & (x ^ y))
 *   H(x,y,z) = x ^ y ^ z
 *   I(x,y,z) = y ^ (x | ~z)
 * Words are little-endian (§2); loads go through memcpy or byte assembly, never pointer casts.
 */
#include "kvlog_md5.h"

#include <string.h>

#if (defined(__x86_64__) || defined(__amd64__) || defined(_M_X64)) && !defined(KVLOG_MD5_NO_SIMD)
#  include <emmintrin.h>
#  define KVLOG_MD5_SSE2 1
#elif defined(__aarch64__) && defined(__ARM_NEON) && !defined(__AARCH64EB__) && !defined(KVLOG_MD5_NO_SIMD)
#  include <arm_neon.h>
#  define KVLOG_MD5_NEON 1
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#  define KVLOG_MD5_LE 1
#elif defined(_M_X64) || defined(_M_IX86) || defined(_M_ARM64)
#  define KVLOG_MD5_LE 1
#endif

/* Sine table of RFC 1321 §3.4: T[i] = floor(2^32 * |sin(i + 1)|). */
#define T0 0xd76aa478u
#define T1 0xe8c7b756u
#define T2 0x242070dbu
#define T3 0xc1bdceeeu
#define T4 0xf57c0fafu
#define T5 0x4787c62au
#define T6 0xa8304613u
#define T7 0xfd469501u
#define T8 0x698098d8u
#define T9 0x8b44f7afu
#define T10 0xffff5bb1u
#define T11 0x895cd7beu
#define T12 0x6b901122u
#define T13 0xfd987193u
#define T14 0xa679438eu
#define T15 0x49b40821u
#define T16 0xf61e2562u
#define T17 0xc040b340u
#define T18 0x265e5a51u
#define T19 0xe9b6c7aau
#define T20 0xd62f105du
#define T21 0x02441453u
#define T22 0xd8a1e681u
#define T23 0xe7d3fbc8u
#define T24 0x21e1cde6u
#define T25 0xc33707d6u
#define T26 0xf4d50d87u
#define T27 0x455a14edu
#define T28 0xa9e3e905u
#define T29 0xfcefa3f8u
#define T30 0x676f02d9u
#define T31 0x8d2a4c8au
#define T32 0xfffa3942u
#define T33 0x8771f681u
#define T34 0x6d9d6122u
#define T35 0xfde5380cu
#define T36 0xa4beea44u
#define T37 0x4bdecfa9u
#define T38 0xf6bb4b60u
#define T39 0xbebfbc70u
#define T40 0x289b7ec6u
#define T41 0xeaa127fau
#define T42 0xd4ef3085u
#define T43 0x04881d05u
#define T44 0xd9d4d039u
#define T45 0xe6db99e5u
#define T46 0x1fa27cf8u
#define T47 0xc4ac5665u
#define T48 0xf4292244u
#define T49 0x432aff97u
#define T50 0xab9423a7u
#define T51 0xfc93a039u
#define T52 0x655b59c3u
#define T53 0x8f0ccc92u
#define T54 0xffeff47du
#define T55 0x85845dd1u
#define T56 0x6fa87e4fu
#define T57 0xfe2ce6e0u
#define T58 0xa3014314u
#define T59 0x4e0811a1u
#define T60 0xf7537e82u
#define T61 0xbd3af235u
#define T62 0x2ad7d2bbu
#define T63 0xeb86d391u

/* Initial chaining values (§3.3): words A, B, C, D. */
#define MD5_A0 0x67452301u
#define MD5_B0 0xefcdab89u
#define MD5_C0 0x98badcfeu
#define MD5_D0 0x10325476u

/* The 64 steps as one list: ROUND_STEPS(S) expands S(f, a, b, c, d, k, s, t) for every step, where f is the
   round function, k the message word, s the rotation and t the sine constant. Shared by all kernels. */
#define MD5_STEPS(S)                                                                                    \
    S(F, a, b, c, d, 0, 7, T0)    S(F, d, a, b, c, 1, 12, T1)   S(F, c, d, a, b, 2, 17, T2)             \
    S(F, b, c, d, a, 3, 22, T3)   S(F, a, b, c, d, 4, 7, T4)    S(F, d, a, b, c, 5, 12, T5)             \
    S(F, c, d, a, b, 6, 17, T6)   S(F, b, c, d, a, 7, 22, T7)   S(F, a, b, c, d, 8, 7, T8)              \
    S(F, d, a, b, c, 9, 12, T9)   S(F, c, d, a, b, 10, 17, T10) S(F, b, c, d, a, 11, 22, T11)           \
    S(F, a, b, c, d, 12, 7, T12)  S(F, d, a, b, c, 13, 12, T13) S(F, c, d, a, b, 14, 17, T14)           \
    S(F, b, c, d, a, 15, 22, T15)                                                                       \
    S(G, a, b, c, d, 1, 5, T16)   S(G, d, a, b, c, 6, 9, T17)   S(G, c, d, a, b, 11, 14, T18)           \
    S(G, b, c, d, a, 0, 20, T19)  S(G, a, b, c, d, 5, 5, T20)   S(G, d, a, b, c, 10, 9, T21)            \
    S(G, c, d, a, b, 15, 14, T22) S(G, b, c, d, a, 4, 20, T23)  S(G, a, b, c, d, 9, 5, T24)             \
    S(G, d, a, b, c, 14, 9, T25)  S(G, c, d, a, b, 3, 14, T26)  S(G, b, c, d, a, 8, 20, T27)            \
    S(G, a, b, c, d, 13, 5, T28)  S(G, d, a, b, c, 2, 9, T29)   S(G, c, d, a, b, 7, 14, T30)            \
    S(G, b, c, d, a, 12, 20, T31)                                                                       \
    S(H, a, b, c, d, 5, 4, T32)   S(H, d, a, b, c, 8, 11, T33)  S(H, c, d, a, b, 11, 16, T34)           \
    S(H, b, c, d, a, 14, 23, T35) S(H, a, b, c, d, 1, 4, T36)   S(H, d, a, b, c, 4, 11, T37)            \
    S(H, c, d, a, b, 7, 16, T38)  S(H, b, c, d, a, 10, 23, T39) S(H, a, b, c, d, 13, 4, T40)            \
    S(H, d, a, b, c, 0, 11, T41)  S(H, c, d, a, b, 3, 16, T42)  S(H, b, c, d, a, 6, 23, T43)            \
    S(H, a, b, c, d, 9, 4, T44)   S(H, d, a, b, c, 12, 11, T45) S(H, c, d, a, b, 15, 16, T46)           \
    S(H, b, c, d, a, 2, 23, T47)                                                                        \
    S(I, a, b, c, d, 0, 6, T48)   S(I, d, a, b, c, 7, 10, T49)  S(I, c, d, a, b, 14, 15, T50)           \
    S(I, b, c, d, a, 5, 21, T51)  S(I, a, b, c, d, 12, 6, T52)  S(I, d, a, b, c, 3, 10, T53)            \
    S(I, c, d, a, b, 10, 15, T54) S(I, b, c, d, a, 1, 21, T55)  S(I, a, b, c, d, 8, 6, T56)             \
    S(I, d, a, b, c, 15, 10, T57) S(I, c, d, a, b, 6, 15, T58)  S(I, b, c, d, a, 13, 21, T59)           \
    S(I, a, b, c, d, 4, 6, T60)   S(I, d, a, b, c, 11, 10, T61) S(I, c, d, a, b, 2, 15, T62)            \
    S(I, b, c, d, a, 9, 21, T63)

/* ------------------------------------------------------------------ scalar */
static inline uint32_t load_le32(const unsigned char *p)
{
#ifdef KVLOG_MD5_LE
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
#endif
}

static inline void store_le32(unsigned char *p, uint32_t v)
{
#ifdef KVLOG_MD5_LE
    memcpy(p, &v, 4);
#else
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
#endif
}

#define ROTL32(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
#define SF(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define SG(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define SH(x, y, z) ((x) ^ (y) ^ (z))
#define SI(x, y, z) ((y) ^ ((x) | ~(z)))
#define SCALAR_STEP(f, a, b, c, d, k, s, t)                                                              \
    a += S##f(b, c, d) + X[k] + (t);                                                                    \
    a = ROTL32(a, s) + b;

static void md5_block(uint32_t state[4], const unsigned char *block)
{
    uint32_t X[16];
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    int i;
    for (i = 0; i < 16; i++)
        X[i] = load_le32(block + 4 * i);
    MD5_STEPS(SCALAR_STEP)
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
}

/* The padded tail (§3.1-3.2): the last len % 64 bytes, 0x80, zeros to 56 mod 64, the bit length as a
   little-endian 64-bit word. Writes one or two blocks into `tail` and returns how many. */
static int md5_pad(const unsigned char *rest, size_t nrest, uint64_t total, unsigned char tail[128])
{
    int blocks = nrest < 56 ? 1 : 2;
    uint64_t bits = total << 3;
    int i;
    if (nrest)
        memcpy(tail, rest, nrest);
    tail[nrest] = 0x80;
    memset(tail + nrest + 1, 0, (size_t)(64 * blocks) - nrest - 1);
    for (i = 0; i < 8; i++)
        tail[64 * blocks - 8 + i] = (unsigned char)(bits >> (8 * i));
    return blocks;
}

static void md5_output(const uint32_t state[4], unsigned char *out)
{
    store_le32(out, state[0]);
    store_le32(out + 4, state[1]);
    store_le32(out + 8, state[2]);
    store_le32(out + 12, state[3]);
}

void kvlog_md5(const void *data, size_t len, unsigned char out[16])
{
    const unsigned char *p = (const unsigned char *)data;
    uint32_t state[4] = {MD5_A0, MD5_B0, MD5_C0, MD5_D0};
    unsigned char tail[128];
    size_t whole = len & ~(size_t)63;
    size_t i;
    int blocks;
    if (len == 0)
        p = tail; /* never read: keeps pointer arithmetic off a NULL `data` */
    for (i = 0; i < whole; i += 64)
        md5_block(state, p + i);
    blocks = md5_pad(p + whole, len - whole, (uint64_t)len, tail);
    md5_block(state, tail);
    if (blocks == 2)
        md5_block(state, tail + 64);
    md5_output(state, out);
}

/* ------------------------------------------------------------------ incremental */
void kvlog_md5_init(kvlog_md5_ctx *ctx)
{
    ctx->state[0] = MD5_A0;
    ctx->state[1] = MD5_B0;
    ctx->state[2] = MD5_C0;
    ctx->state[3] = MD5_D0;
    ctx->length = 0;
}

void kvlog_md5_update(kvlog_md5_ctx *ctx, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t have = (size_t)(ctx->length & 63);
    ctx->length += (uint64_t)len;
    if (have) {
        size_t take = 64 - have;
        if (take > len)
            take = len;
        memcpy(ctx->buffer + have, p, take);
        p += take;
        len -= take;
        if (have + take < 64)
            return;
        md5_block(ctx->state, ctx->buffer);
    }
    while (len >= 64) {
        md5_block(ctx->state, p);
        p += 64;
        len -= 64;
    }
    if (len)
        memcpy(ctx->buffer, p, len);
}

void kvlog_md5_final(kvlog_md5_ctx *ctx, unsigned char out[16])
{
    unsigned char tail[128];
    int blocks = md5_pad(ctx->buffer, (size_t)(ctx->length & 63), ctx->length, tail);
    md5_block(ctx->state, tail);
    if (blocks == 2)
        md5_block(ctx->state, tail + 64);
    md5_output(ctx->state, out);
}

/* ------------------------------------------------------------------ four lanes */
#if defined(KVLOG_MD5_SSE2) || defined(KVLOG_MD5_NEON)

#if defined(KVLOG_MD5_SSE2)
typedef __m128i v4u;
#  define V_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#  define V_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#  define V_SET1(x) _mm_set1_epi32((int)(x))
#  define V_ADD(x, y) _mm_add_epi32((x), (y))
#  define V_AND(x, y) _mm_and_si128((x), (y))
#  define V_OR(x, y) _mm_or_si128((x), (y))
#  define V_XOR(x, y) _mm_xor_si128((x), (y))
#  define V_ROTL(x, s) _mm_or_si128(_mm_slli_epi32((x), (s)), _mm_srli_epi32((x), 32 - (s)))
#  define V_ORNOT(x, y) _mm_or_si128((x), _mm_xor_si128((y), _mm_set1_epi32(-1))) /* x | ~y */
#  define V_ZIPLO32(x, y) _mm_unpacklo_epi32((x), (y))
#  define V_ZIPHI32(x, y) _mm_unpackhi_epi32((x), (y))
#  define V_ZIPLO64(x, y) _mm_unpacklo_epi64((x), (y))
#  define V_ZIPHI64(x, y) _mm_unpackhi_epi64((x), (y))
#  define MD5_X4_NAME "sse2-x8"
#else
typedef uint32x4_t v4u;
#  define V_LOAD(p) vreinterpretq_u32_u8(vld1q_u8((const uint8_t *)(p)))
#  define V_STORE(p, v) vst1q_u8((uint8_t *)(p), vreinterpretq_u8_u32(v))
#  define V_SET1(x) vdupq_n_u32((uint32_t)(x))
#  define V_ADD(x, y) vaddq_u32((x), (y))
#  define V_AND(x, y) vandq_u32((x), (y))
#  define V_OR(x, y) vorrq_u32((x), (y))
#  define V_XOR(x, y) veorq_u32((x), (y))
#  define V_ROTL(x, s) vsriq_n_u32(vshlq_n_u32((x), (s)), (x), 32 - (s))
#  define V_ORNOT(x, y) vornq_u32((x), (y))
#  define V_ZIPLO32(x, y) vzip1q_u32((x), (y))
#  define V_ZIPHI32(x, y) vzip2q_u32((x), (y))
#  define V_ZIPLO64(x, y) \
      vreinterpretq_u32_u64(vzip1q_u64(vreinterpretq_u64_u32(x), vreinterpretq_u64_u32(y)))
#  define V_ZIPHI64(x, y) \
      vreinterpretq_u32_u64(vzip2q_u64(vreinterpretq_u64_u32(x), vreinterpretq_u64_u32(y)))
#  define MD5_X4_NAME "neon-x8"
#endif

#define VF(x, y, z) V_XOR((z), V_AND((x), V_XOR((y), (z))))
#define VG(x, y, z) V_XOR((y), V_AND((z), V_XOR((x), (y))))
#define VH(x, y, z) V_XOR(V_XOR((x), (y)), (z))
#define VI(x, y, z) V_XOR((y), V_ORNOT((x), (z)))
#define VECTOR_STEP(f, a, b, c, d, k, s, t)                                                              \
    a = V_ADD(a, V_ADD(V##f(b, c, d), V_ADD(X[k], V_SET1(t))));                                         \
    a = V_ADD(V_ROTL(a, s), b);

/* 4x4 transpose of 32-bit words: rows r0..r3 become columns. */
#define TRANSPOSE4(r0, r1, r2, r3, o0, o1, o2, o3)                                                      \
    do {                                                                                                \
        v4u t0_ = V_ZIPLO32(r0, r1), t1_ = V_ZIPLO32(r2, r3);                                           \
        v4u t2_ = V_ZIPHI32(r0, r1), t3_ = V_ZIPHI32(r2, r3);                                           \
        o0 = V_ZIPLO64(t0_, t1_);                                                                       \
        o1 = V_ZIPHI64(t0_, t1_);                                                                       \
        o2 = V_ZIPLO64(t2_, t3_);                                                                       \
        o3 = V_ZIPHI64(t2_, t3_);                                                                       \
    } while (0)

/* Compresses block i of each lane (blocks are 64 bytes, little-endian words: both SIMD targets are
   little-endian) into the digest of a one-block message, written to out + 16 * lane. */
static void md5_x4_blocks(const unsigned char *b0, const unsigned char *b1, const unsigned char *b2,
                          const unsigned char *b3, unsigned char *out)
{
    v4u X[16];
    v4u a, b, c, d;
    int g;
    for (g = 0; g < 4; g++) {
        v4u r0 = V_LOAD(b0 + 16 * g), r1 = V_LOAD(b1 + 16 * g);
        v4u r2 = V_LOAD(b2 + 16 * g), r3 = V_LOAD(b3 + 16 * g);
        TRANSPOSE4(r0, r1, r2, r3, X[4 * g], X[4 * g + 1], X[4 * g + 2], X[4 * g + 3]);
    }
    a = V_SET1(MD5_A0);
    b = V_SET1(MD5_B0);
    c = V_SET1(MD5_C0);
    d = V_SET1(MD5_D0);
    MD5_STEPS(VECTOR_STEP)
    a = V_ADD(a, V_SET1(MD5_A0));
    b = V_ADD(b, V_SET1(MD5_B0));
    c = V_ADD(c, V_SET1(MD5_C0));
    d = V_ADD(d, V_SET1(MD5_D0));
    {
        v4u o0, o1, o2, o3;
        TRANSPOSE4(a, b, c, d, o0, o1, o2, o3);
        V_STORE(out, o0);
        V_STORE(out + 16, o1);
        V_STORE(out + 32, o2);
        V_STORE(out + 48, o3);
    }
}

/* Eight lanes as two interleaved groups of four: the MD5 step chain is latency-bound, so a second
   independent chain in the same instruction stream nearly doubles throughput. blocks[i] is lane i. */
#define VECTOR_STEP2(f, a, b, c, d, k, s, t)                                                             \
    a##0 = V_ADD(a##0, V_ADD(V##f(b##0, c##0, d##0), V_ADD(X0[k], V_SET1(t))));                         \
    a##1 = V_ADD(a##1, V_ADD(V##f(b##1, c##1, d##1), V_ADD(X1[k], V_SET1(t))));                         \
    a##0 = V_ADD(V_ROTL(a##0, s), b##0);                                                                \
    a##1 = V_ADD(V_ROTL(a##1, s), b##1);

static void md5_x8_blocks(const unsigned char (*blocks)[64], unsigned char *out)
{
    v4u X0[16], X1[16];
    v4u a0, b0, c0, d0, a1, b1, c1, d1;
    int g;
    for (g = 0; g < 4; g++) {
        v4u r0 = V_LOAD(blocks[0] + 16 * g), r1 = V_LOAD(blocks[1] + 16 * g);
        v4u r2 = V_LOAD(blocks[2] + 16 * g), r3 = V_LOAD(blocks[3] + 16 * g);
        v4u r4 = V_LOAD(blocks[4] + 16 * g), r5 = V_LOAD(blocks[5] + 16 * g);
        v4u r6 = V_LOAD(blocks[6] + 16 * g), r7 = V_LOAD(blocks[7] + 16 * g);
        TRANSPOSE4(r0, r1, r2, r3, X0[4 * g], X0[4 * g + 1], X0[4 * g + 2], X0[4 * g + 3]);
        TRANSPOSE4(r4, r5, r6, r7, X1[4 * g], X1[4 * g + 1], X1[4 * g + 2], X1[4 * g + 3]);
    }
    a0 = a1 = V_SET1(MD5_A0);
    b0 = b1 = V_SET1(MD5_B0);
    c0 = c1 = V_SET1(MD5_C0);
    d0 = d1 = V_SET1(MD5_D0);
    MD5_STEPS(VECTOR_STEP2)
    a0 = V_ADD(a0, V_SET1(MD5_A0));
    b0 = V_ADD(b0, V_SET1(MD5_B0));
    c0 = V_ADD(c0, V_SET1(MD5_C0));
    d0 = V_ADD(d0, V_SET1(MD5_D0));
    a1 = V_ADD(a1, V_SET1(MD5_A0));
    b1 = V_ADD(b1, V_SET1(MD5_B0));
    c1 = V_ADD(c1, V_SET1(MD5_C0));
    d1 = V_ADD(d1, V_SET1(MD5_D0));
    {
        v4u o0, o1, o2, o3;
        TRANSPOSE4(a0, b0, c0, d0, o0, o1, o2, o3);
        V_STORE(out, o0);
        V_STORE(out + 16, o1);
        V_STORE(out + 32, o2);
        V_STORE(out + 48, o3);
        TRANSPOSE4(a1, b1, c1, d1, o0, o1, o2, o3);
        V_STORE(out + 64, o0);
        V_STORE(out + 80, o1);
        V_STORE(out + 96, o2);
        V_STORE(out + 112, o3);
    }
}

/* One padded block for a message of n <= 55 bytes. */
static inline void md5_short_block(unsigned char block[64], const unsigned char *p, size_t n)
{
    uint64_t bits = (uint64_t)n << 3;
    int i;
    memset(block, 0, 64);
    if (n)
        memcpy(block, p, n);
    block[n] = 0x80;
    for (i = 0; i < 8; i++)
        block[56 + i] = (unsigned char)(bits >> (8 * i));
}

#define HAVE_MD5_X4 1
#endif /* SIMD */

void kvlog_md5_x4(const unsigned char *const data[4], const size_t len[4], unsigned char *out)
{
#ifdef HAVE_MD5_X4
    if (len[0] <= 55 && len[1] <= 55 && len[2] <= 55 && len[3] <= 55) {
        unsigned char blocks[4][64];
        int i;
        for (i = 0; i < 4; i++)
            md5_short_block(blocks[i], data[i], len[i]);
        md5_x4_blocks(blocks[0], blocks[1], blocks[2], blocks[3], out);
        return;
    }
#endif
    kvlog_md5(data[0], len[0], out);
    kvlog_md5(data[1], len[1], out + 16);
    kvlog_md5(data[2], len[2], out + 32);
    kvlog_md5(data[3], len[3], out + 48);
}

const char *kvlog_md5_kernel(void)
{
#ifdef HAVE_MD5_X4
    return MD5_X4_NAME;
#else
    return "scalar";
#endif
}

/* Eight messages (pointers and lengths), digests to out + 16 * i. */
static void md5_group8(const unsigned char *const ptr[8], const size_t len[8], unsigned char *out)
{
#ifdef HAVE_MD5_X4
    size_t longest = 0;
    int i;
    for (i = 0; i < 8; i++)
        longest = len[i] > longest ? len[i] : longest;
    if (longest <= 55) {
        unsigned char blocks[8][64];
        for (i = 0; i < 8; i++)
            md5_short_block(blocks[i], ptr[i], len[i]);
        md5_x8_blocks((const unsigned char (*)[64])blocks, out);
        return;
    }
    kvlog_md5_x4(ptr, len, out);
    kvlog_md5_x4(ptr + 4, len + 4, out + 64);
#else
    int i;
    for (i = 0; i < 8; i++)
        kvlog_md5(ptr[i], len[i], out + 16 * i);
#endif
}

/* Binary column: n messages, message i = data[off[i] .. off[i+1]). Offsets are trusted (callers check). */
#define MD5_MANY_BODY                                                                                   \
    size_t i = 0;                                                                                       \
    int j;                                                                                              \
    const unsigned char *ptr[8];                                                                        \
    size_t len[8];                                                                                      \
    for (; i + 8 <= n; i += 8) {                                                                        \
        for (j = 0; j < 8; j++) {                                                                       \
            ptr[j] = data + off[i + (size_t)j];                                                         \
            len[j] = (size_t)(off[i + (size_t)j + 1] - off[i + (size_t)j]);                             \
        }                                                                                               \
        md5_group8(ptr, len, out + 16 * i);                                                             \
    }                                                                                                   \
    for (; i + 4 <= n; i += 4) {                                                                        \
        for (j = 0; j < 4; j++) {                                                                       \
            ptr[j] = data + off[i + (size_t)j];                                                         \
            len[j] = (size_t)(off[i + (size_t)j + 1] - off[i + (size_t)j]);                             \
        }                                                                                               \
        kvlog_md5_x4(ptr, len, out + 16 * i);                                                           \
    }                                                                                                   \
    for (; i < n; i++)                                                                                  \
        kvlog_md5(data + off[i], (size_t)(off[i + 1] - off[i]), out + 16 * i);

void kvlog_md5_many32(const unsigned char *data, const int32_t *off, size_t n, unsigned char *out)
{
    MD5_MANY_BODY
}

void kvlog_md5_many64(const unsigned char *data, const int64_t *off, size_t n, unsigned char *out)
{
    MD5_MANY_BODY
}
