/* md5.c - MD5 (RFC 1321), written for kvlog from the RFC's description of the algorithm.
 *
 * Layout of the code:
 *   md5_block()   the compression function over one 64-byte block (RFC 1321 §3.4), scalar.
 *   kvlog_md5()   one-shot digest: whole blocks straight from the input, the padded tail (§3.1-§3.2) in a
 *                 local block.
 *   kvlog_md5_init/update/final()   incremental interface.
 *   md5_lanes_*() the same compression on one block per vector lane, for many short messages at once
 *                 (<= 55 bytes, i.e. one padded block: what Kafka keys usually are). Variants: SSE2
 *                 (x86-64 baseline) and NEON (aarch64 baseline) with 2 x 4 lanes, AVX2 with 2 x 8 and
 *                 AVX-512F with 2 x 16 (native rotate, one ternary-logic op per round function), the
 *                 variant chosen at run time (kvlog_cpu_has, which honours KVLOG_CPU_DISABLE) and the
 *                 last two compiled with per-function target attributes, so the file needs no -m flags.
 *   kvlog_md5_many32/64()   digests of an Arrow-style binary column through the best variant.
 *
 * Round functions use the usual equivalent forms with fewer operations:
 *   F(x,y,z) = (x & y) | (~x & z)  ==  z ^ (x & (y ^ z))
 *   G(x,y,z) = (x & z) | (y & ~z)  ==  y ^ (z & (x ^ y))
 *   H(x,y,z) = x ^ y ^ z
 *   I(x,y,z) = y ^ (x | ~z)
 * Words are little-endian (§2); loads go through memcpy or byte assembly, never pointer casts.
 */
#include "kvlog_md5.h"
#include "kvlog_cpu.h"

#include <string.h>

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

/* ------------------------------------------------------------------ many messages, in vector lanes */
/* A lanes kernel compresses one padded block per lane for B = 2 * W lanes (two interleaved groups of W
   lanes: the MD5 step chain is latency-bound, so a second independent chain in the same instruction
   stream nearly doubles throughput). Input is lane-major: xs[16 * ... ] with word j of lane l at
   xs[j * B + l]; output words A, B, C, D of lane l at st[0 * B + l], st[1 * B + l], ... (the chaining
   values of a one-block message, i.e. its digest words). Vector ops are macros (V_*) defined per
   instruction set right before each instantiation. */
#define LANE_STEP(f, a, b, c, d, k, s, t)                                                                \
    a##0 = V_ADD(a##0, V_ADD(V##f(b##0, c##0, d##0), V_ADD(V_LOAD(xs + (k) * 2 * W), V_SET1(t))));      \
    a##1 = V_ADD(a##1, V_ADD(V##f(b##1, c##1, d##1), V_ADD(V_LOAD(xs + (k) * 2 * W + W), V_SET1(t))));  \
    a##0 = V_ADD(V_ROTL(a##0, s), b##0);                                                                \
    a##1 = V_ADD(V_ROTL(a##1, s), b##1);

#define DEFINE_LANES_KERNEL(fn, ATTR)                                                                   \
    ATTR static void fn(const uint32_t *xs, uint32_t *st)                                               \
    {                                                                                                   \
        VT a0 = V_SET1(MD5_A0), b0 = V_SET1(MD5_B0), c0 = V_SET1(MD5_C0), d0 = V_SET1(MD5_D0);          \
        VT a1 = a0, b1 = b0, c1 = c0, d1 = d0;                                                          \
        MD5_STEPS(LANE_STEP)                                                                            \
        V_STORE(st, V_ADD(a0, V_SET1(MD5_A0)));                                                         \
        V_STORE(st + W, V_ADD(a1, V_SET1(MD5_A0)));                                                     \
        V_STORE(st + 2 * W, V_ADD(b0, V_SET1(MD5_B0)));                                                 \
        V_STORE(st + 3 * W, V_ADD(b1, V_SET1(MD5_B0)));                                                 \
        V_STORE(st + 4 * W, V_ADD(c0, V_SET1(MD5_C0)));                                                 \
        V_STORE(st + 5 * W, V_ADD(c1, V_SET1(MD5_C0)));                                                 \
        V_STORE(st + 6 * W, V_ADD(d0, V_SET1(MD5_D0)));                                                 \
        V_STORE(st + 7 * W, V_ADD(d1, V_SET1(MD5_D0)));                                                 \
    }

/* Generic round functions for instruction sets without a ternary-logic op. */
#define VF(x, y, z) V_XOR((z), V_AND((x), V_XOR((y), (z))))
#define VG(x, y, z) V_XOR((y), V_AND((z), V_XOR((x), (y))))
#define VH(x, y, z) V_XOR(V_XOR((x), (y)), (z))
#define VI(x, y, z) V_XOR((y), V_ORNOT((x), (z)))

typedef void (*md5_lanes_fn)(const uint32_t *xs, uint32_t *st);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__amd64__)) && !defined(KVLOG_MD5_NO_SIMD)
#  include <immintrin.h>
#  define HAVE_MD5_X86 1

/* SSE2 (x86-64 baseline): 2 x 4 lanes */
#  define VT __m128i
#  define W 4
#  define V_LOAD(p) _mm_load_si128((const __m128i *)(const void *)(p))
#  define V_STORE(p, v) _mm_store_si128((__m128i *)(void *)(p), (v))
#  define V_SET1(x) _mm_set1_epi32((int)(x))
#  define V_ADD(x, y) _mm_add_epi32((x), (y))
#  define V_AND(x, y) _mm_and_si128((x), (y))
#  define V_XOR(x, y) _mm_xor_si128((x), (y))
#  define V_ROTL(x, s) _mm_or_si128(_mm_slli_epi32((x), (s)), _mm_srli_epi32((x), 32 - (s)))
#  define V_ORNOT(x, y) _mm_or_si128((x), _mm_xor_si128((y), _mm_set1_epi32(-1)))
DEFINE_LANES_KERNEL(md5_lanes_sse2, )
#  undef VT
#  undef W
#  undef V_LOAD
#  undef V_STORE
#  undef V_SET1
#  undef V_ADD
#  undef V_AND
#  undef V_XOR
#  undef V_ROTL
#  undef V_ORNOT

/* AVX2: 2 x 8 lanes */
#  define VT __m256i
#  define W 8
#  define V_LOAD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#  define V_STORE(p, v) _mm256_store_si256((__m256i *)(void *)(p), (v))
#  define V_SET1(x) _mm256_set1_epi32((int)(x))
#  define V_ADD(x, y) _mm256_add_epi32((x), (y))
#  define V_AND(x, y) _mm256_and_si256((x), (y))
#  define V_XOR(x, y) _mm256_xor_si256((x), (y))
#  define V_ROTL(x, s) _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s)))
#  define V_ORNOT(x, y) _mm256_or_si256((x), _mm256_xor_si256((y), _mm256_set1_epi32(-1)))
DEFINE_LANES_KERNEL(md5_lanes_avx2, __attribute__((target("avx2"))))
#  undef VT
#  undef W
#  undef V_LOAD
#  undef V_STORE
#  undef V_SET1
#  undef V_ADD
#  undef V_AND
#  undef V_XOR
#  undef V_ROTL
#  undef V_ORNOT

/* AVX-512F: 2 x 16 lanes, with native rotates and one ternary-logic op per round function. */
#  if (defined(__clang__) && __clang_major__ >= 6) || (!defined(__clang__) && __GNUC__ >= 8)
#    define HAVE_MD5_AVX512 1
#    undef VF
#    undef VG
#    undef VH
#    undef VI
#    define VT __m512i
#    define W 16
#    define V_LOAD(p) _mm512_load_si512((const void *)(p))
#    define V_STORE(p, v) _mm512_store_si512((void *)(p), (v))
#    define V_SET1(x) _mm512_set1_epi32((int)(x))
#    define V_ADD(x, y) _mm512_add_epi32((x), (y))
#    define V_ROTL(x, s) _mm512_rol_epi32((x), (s))
/* truth tables over (x, y, z): bit (x << 2 | y << 1 | z) of the immediate */
#    define VF(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0xca)
#    define VG(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0xe4)
#    define VH(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0x96)
#    define VI(x, y, z) _mm512_ternarylogic_epi32((x), (y), (z), 0x39)
DEFINE_LANES_KERNEL(md5_lanes_avx512, __attribute__((target("avx512f"))))
#    undef VT
#    undef W
#    undef V_LOAD
#    undef V_STORE
#    undef V_SET1
#    undef V_ADD
#    undef V_ROTL
#    undef VF
#    undef VG
#    undef VH
#    undef VI
#    define VF(x, y, z) V_XOR((z), V_AND((x), V_XOR((y), (z))))
#    define VG(x, y, z) V_XOR((y), V_AND((z), V_XOR((x), (y))))
#    define VH(x, y, z) V_XOR(V_XOR((x), (y)), (z))
#    define VI(x, y, z) V_XOR((y), V_ORNOT((x), (z)))
#  endif

#elif defined(__aarch64__) && defined(__ARM_NEON) && !defined(__AARCH64EB__) && !defined(KVLOG_MD5_NO_SIMD)
#  include <arm_neon.h>
#  define HAVE_MD5_NEON 1

/* NEON (aarch64 baseline): 2 x 4 lanes, bit-select for F and G, or-not for I. */
#  undef VF
#  undef VG
#  undef VI
#  define VT uint32x4_t
#  define W 4
#  define V_LOAD(p) vld1q_u32(p)
#  define V_STORE(p, v) vst1q_u32((p), (v))
#  define V_SET1(x) vdupq_n_u32((uint32_t)(x))
#  define V_ADD(x, y) vaddq_u32((x), (y))
#  define V_XOR(x, y) veorq_u32((x), (y))
#  define V_ROTL(x, s) vsriq_n_u32(vshlq_n_u32((x), (s)), (x), 32 - (s))
#  define VF(x, y, z) vbslq_u32((x), (y), (z))
#  define VG(x, y, z) vbslq_u32((z), (x), (y))
#  define VI(x, y, z) veorq_u32((y), vornq_u32((x), (z)))
DEFINE_LANES_KERNEL(md5_lanes_neon, )
#  undef VT
#  undef W
#  undef V_LOAD
#  undef V_STORE
#  undef V_SET1
#  undef V_ADD
#  undef V_XOR
#  undef V_ROTL
#endif

#define MAX_LANES 32

/* Packing a message into its padded block costs more than compressing it in a lane, so it is kept free
   of calls and of loads that straddle narrower stores (store-forwarding stalls): each block is built in
   a row of `rows` (row l: the 16 words of lane l's block, little-endian bytes), then the group is
   transposed into the lane-major words the kernels read. */
static inline void pack_copy(uint32_t *row, const unsigned char *p, size_t len)
{
    unsigned char *b = (unsigned char *)row;
    memset(b, 0, 64);
    if (len)
        memcpy(b, p, len);
    b[len] = 0x80;
    store_le32(b + 56, (uint32_t)(len << 3));
}

#if defined(HAVE_MD5_X86)
/* The same block from a 64-byte window that is known to be readable: four loads, bytes from `len` on
   cleared, 0x80 at `len`, the bit length in word 14 (len <= 55 keeps words 14 and 15 clear). */
static inline void pack_window(uint32_t *row, const unsigned char *p, size_t len)
{
    const __m128i lenv = _mm_set1_epi8((char)len);
    const __m128i pad = _mm_set1_epi8((char)0x80);
    const __m128i step = _mm_set1_epi8(16);
    __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int q;
    for (q = 0; q < 4; q++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * q));
        v = _mm_and_si128(v, _mm_cmpgt_epi8(lenv, idx));
        v = _mm_or_si128(v, _mm_and_si128(_mm_cmpeq_epi8(idx, lenv), pad));
        if (q == 3)
            v = _mm_or_si128(v, _mm_slli_si128(_mm_cvtsi32_si128((int)(len << 3)), 8));
        _mm_store_si128((__m128i *)(void *)(row + 4 * q), v);
        idx = _mm_add_epi8(idx, step);
    }
}
#endif

/* rows (fill rows of 16 words) -> lane-major xs of `lanes` lanes; lanes past `fill` are zeroed */
static inline void transpose_rows(const uint32_t *rows, uint32_t *xs, int fill, int lanes)
{
    int l, j;
    for (l = 0; l < fill; l++) {
        const unsigned char *b = (const unsigned char *)(rows + 16 * l);
        for (j = 0; j < 16; j++)
            xs[j * lanes + l] = load_le32(b + 4 * j);
    }
    for (l = fill; l < lanes; l++)
        for (j = 0; j < 16; j++)
            xs[j * lanes + l] = 0;
}

static inline void store_digests(const uint32_t *st, const size_t *idx, int fill, int lanes, unsigned char *out)
{
    int l;
    for (l = 0; l < fill; l++) {
        unsigned char *o = out + 16 * idx[l];
        store_le32(o, st[l]);
        store_le32(o + 4, st[lanes + l]);
        store_le32(o + 8, st[2 * lanes + l]);
        store_le32(o + 12, st[3 * lanes + l]);
    }
}

/* Digests of n messages; message i is data[off(i) .. off(i+1)) with off from o32 or o64 (one is NULL).
   Messages of at most 55 bytes (one block) go through the lanes kernel `fn` of `lanes` lanes (NULL: none),
   longer ones through kvlog_md5. Bytes up to off(n) are readable (the callers' contract), so a message
   with 64 bytes of data from its start is packed from one window. */
static void md5_many(md5_lanes_fn fn, int lanes, const unsigned char *data, const int32_t *o32,
                     const int64_t *o64, size_t n, unsigned char *out)
{
#if defined(__GNUC__)
    uint32_t xs[16 * MAX_LANES] __attribute__((aligned(64)));
    uint32_t rows[16 * MAX_LANES] __attribute__((aligned(64)));
    uint32_t st[4 * MAX_LANES] __attribute__((aligned(64)));
#else
    uint32_t xs[16 * MAX_LANES];
    uint32_t rows[16 * MAX_LANES];
    uint32_t st[4 * MAX_LANES];
#endif
    size_t idx[MAX_LANES];
#if defined(HAVE_MD5_X86)
    size_t end_all = n ? (o32 ? (size_t)o32[n] : (size_t)o64[n]) : 0;
#endif
    int fill = 0, l;
    size_t i;
    for (i = 0; i < n; i++) {
        size_t start = o32 ? (size_t)o32[i] : (size_t)o64[i];
        size_t len = (o32 ? (size_t)o32[i + 1] : (size_t)o64[i + 1]) - start;
        if (fn == NULL || len > 55) {
            kvlog_md5(data + start, len, out + 16 * i);
            continue;
        }
#if defined(HAVE_MD5_X86)
        if (end_all >= 64 && start <= end_all - 64)
            pack_window(rows + 16 * fill, data + start, len);
        else
#endif
            pack_copy(rows + 16 * fill, data + start, len);
        idx[fill++] = i;
        if (fill == lanes) {
            transpose_rows(rows, xs, fill, lanes);
            fn(xs, st);
            store_digests(st, idx, fill, lanes, out);
            fill = 0;
        }
    }
    if (fill) {
        /* a partial group: one or two messages are cheaper one by one */
        if (fill <= 2) {
            for (l = 0; l < fill; l++) {
                size_t k = idx[l];
                size_t start = o32 ? (size_t)o32[k] : (size_t)o64[k];
                size_t len = (o32 ? (size_t)o32[k + 1] : (size_t)o64[k + 1]) - start;
                kvlog_md5(data + start, len, out + 16 * k);
            }
            return;
        }
        transpose_rows(rows, xs, fill, lanes);
        fn(xs, st);
        store_digests(st, idx, fill, lanes, out);
    }
}

/* ------------------------------------------------------------------ variants and dispatch */
static const char *const variant_names[KVLOG_MD5_NVARIANTS] = {"scalar", "sse2-x8", "avx2-x16", "avx512-x32",
                                                               "neon-x8"};

/* The lanes kernel of a variant, or -1 if it is not compiled in or this CPU cannot run it. */
static int variant_kernel(int variant, md5_lanes_fn *fn, int *lanes)
{
    switch (variant) {
    case KVLOG_MD5_SCALAR:
        *fn = NULL;
        *lanes = 0;
        return 0;
#if defined(HAVE_MD5_X86)
    case KVLOG_MD5_SSE2:
        if (!kvlog_cpu_has(KVLOG_CPU_SSE2))
            return -1;
        *fn = md5_lanes_sse2;
        *lanes = 8;
        return 0;
    case KVLOG_MD5_AVX2:
        if (!kvlog_cpu_has(KVLOG_CPU_AVX2))
            return -1;
        *fn = md5_lanes_avx2;
        *lanes = 16;
        return 0;
#  if defined(HAVE_MD5_AVX512)
    case KVLOG_MD5_AVX512:
        if (!kvlog_cpu_has(KVLOG_CPU_AVX512))
            return -1;
        *fn = md5_lanes_avx512;
        *lanes = 32;
        return 0;
#  endif
#endif
#if defined(HAVE_MD5_NEON)
    case KVLOG_MD5_NEON:
        if (!kvlog_cpu_has(KVLOG_CPU_ARM_NEON))
            return -1;
        *fn = md5_lanes_neon;
        *lanes = 8;
        return 0;
#endif
    default:
        return -1;
    }
}

/* Best variant, chosen once (a benign race: every thread computes the same answer; atomic, so that
   free-threaded Python's threads and ThreadSanitizer see no data race). */
static int active_variant = -1;

static int best_variant(void)
{
    int v = __atomic_load_n(&active_variant, __ATOMIC_RELAXED);
    if (v < 0) {
        static const int order[] = {KVLOG_MD5_AVX512, KVLOG_MD5_AVX2, KVLOG_MD5_SSE2, KVLOG_MD5_NEON,
                                    KVLOG_MD5_SCALAR};
        md5_lanes_fn fn;
        int lanes;
        size_t k;
        for (k = 0; k < sizeof order / sizeof order[0]; k++)
            if (variant_kernel(order[k], &fn, &lanes) == 0) {
                v = order[k];
                break;
            }
        __atomic_store_n(&active_variant, v, __ATOMIC_RELAXED);
    }
    return v;
}

const char *kvlog_md5_kernel(void)
{
    return variant_names[best_variant()];
}

const char *kvlog_md5_variant_name(int variant)
{
    return variant >= 0 && variant < KVLOG_MD5_NVARIANTS ? variant_names[variant] : NULL;
}

void kvlog_md5_many32(const unsigned char *data, const int32_t *off, size_t n, unsigned char *out)
{
    md5_lanes_fn fn = NULL;
    int lanes = 0;
    variant_kernel(best_variant(), &fn, &lanes);
    md5_many(fn, lanes, data, off, NULL, n, out);
}

void kvlog_md5_many64(const unsigned char *data, const int64_t *off, size_t n, unsigned char *out)
{
    md5_lanes_fn fn = NULL;
    int lanes = 0;
    variant_kernel(best_variant(), &fn, &lanes);
    md5_many(fn, lanes, data, NULL, off, n, out);
}

int kvlog_md5_many_variant(int variant, const unsigned char *data, const int64_t *off, size_t n,
                           unsigned char *out)
{
    md5_lanes_fn fn = NULL;
    int lanes = 0;
    if (variant_kernel(variant, &fn, &lanes) != 0)
        return -1;
    md5_many(fn, lanes, data, NULL, off, n, out);
    return 0;
}
