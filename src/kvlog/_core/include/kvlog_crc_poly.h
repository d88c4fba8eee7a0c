/* kvlog_crc_poly.h - template: what every polynomial's file has in common, private to csrc/crc32.c and
 * csrc/crc32c.c. Included once, at the end of each, after its tables and x86 variants:
 *
 *   - the aarch64 kernel: the CRC instruction (__crc32d or __crc32cd, ...) in kvlog_crc_3way.h's streams;
 *   - the portable slicing-by-8 variant;
 *   - run-time dispatch: the variant table, the pick of the fastest variant this CPU can run, and the
 *     public kvlog_<id>(), kvlog_<id>_kernel(), kvlog_<id>_variant() and the internal kvlog__<id>_init().
 *
 * Define before including:
 *   CRC_ID          crc32 or crc32c (defined for kvlog_crc_tables.h, included first): the prefix of the
 *                   tables (<id>_slice8, <id>_shift4096, ...), of the
 *                   x86 variants the file defines (<id>_v_pclmul, ...) and of the functions made here
 *   CRC_HAS_SSE42   1 when the file defines <id>_v_sse42 (the SSE4.2 crc32 instruction: CRC-32C only)
 *   CRC_NAMES       the names of the variants as kvlog_<id>_kernel() reports them (KVLOG_CRC_NVARIANTS)
 */
#define CRC_FN(x) KVLOG_PASTE(CRC_ID, _##x)

#if defined(KVLOG_HAVE_ARM_KERNELS)
/* the instruction suffix for a width in bits */
#define KVLOG_ARM_W64 d
#define KVLOG_ARM_W32 w
#define KVLOG_ARM_W16 h
#define KVLOG_ARM_W8 b
#if defined(__clang__)
#define W3_TARGET __attribute__((target("crc")))
#define W3_CRC(bits, c, v) KVLOG_PASTE(KVLOG_PASTE(__builtin_arm_, CRC_ID), KVLOG_ARM_W##bits)((c), (v))
#else
#define W3_TARGET __attribute__((target("+crc")))
#define W3_CRC(bits, c, v) KVLOG_PASTE(KVLOG_PASTE(__, CRC_ID), KVLOG_ARM_W##bits)((c), (v))
#endif
#define W3_NAME(x) arm_##x
#define W3_STATE uint32_t
#define W3_SHIFT(L) CRC_FN(shift##L)
#include "kvlog_crc_3way.h"

static uint32_t CRC_FN(v_armv8)(uint32_t crc, const unsigned char *p, size_t n)
{
    return ~arm_kernel(~crc, p, n);
}
#endif /* KVLOG_HAVE_ARM_KERNELS */

static uint32_t CRC_FN(v_slice8)(uint32_t crc, const unsigned char *p, size_t n)
{
    return ~kvlog__crc_slice8(CRC_FN(slice8), ~crc, p, n);
}

/* The variant's function when this build has it and this CPU can run it, else NULL. */
static kvlog_crc_fn CRC_FN(variant_fn)(int v)
{
    static const kvlog_crc_fn fns[KVLOG_CRC_NVARIANTS] = {
        [KVLOG_CRC_SLICE8] = CRC_FN(v_slice8),
#if defined(KVLOG_HAVE_X86_KERNELS)
#if CRC_HAS_SSE42
        [KVLOG_CRC_SSE42] = CRC_FN(v_sse42),
#endif
        [KVLOG_CRC_PCLMUL] = CRC_FN(v_pclmul),
#if defined(KVLOG_HAVE_X86_AVX512_KERNELS)
        [KVLOG_CRC_VPCLMUL] = CRC_FN(v_vpclmul),
        [KVLOG_CRC_VPCLMUL_AVX2] = CRC_FN(v_vpclmul_avx2),
#endif
#endif
#if defined(KVLOG_HAVE_ARM_KERNELS)
        [KVLOG_CRC_ARMV8] = CRC_FN(v_armv8),
#endif
    };
    if (v < 0 || v >= KVLOG_CRC_NVARIANTS || !fns[v] || !kvlog__crc_variant_usable(v))
        return NULL;
    return fns[v];
}

static uint32_t CRC_FN(resolve)(uint32_t crc, const unsigned char *p, size_t n);
static kvlog_crc_fn CRC_FN(active) = CRC_FN(resolve);
static const char *CRC_FN(active_name) = "slice8";

/* The fastest variant first; a polynomial without one of them skips it. */
void KVLOG_PASTE(KVLOG_PASTE(kvlog__, CRC_ID), _init)(void)
{
    static const int order[] = { KVLOG_CRC_VPCLMUL, KVLOG_CRC_VPCLMUL_AVX2, KVLOG_CRC_PCLMUL, KVLOG_CRC_SSE42,
                                 KVLOG_CRC_ARMV8, KVLOG_CRC_SLICE8 };
    size_t i;
    for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        kvlog_crc_fn f = CRC_FN(variant_fn)(order[i]);
        if (f) {
            CRC_FN(active_name) = CRC_NAMES[order[i]];
            /* read without a lock on every CRC (the first calls may race the pick: they resolve) */
            __atomic_store_n(&CRC_FN(active), f, __ATOMIC_RELEASE);
            return;
        }
    }
}

/* The first call, when kvlog_crc_init() has not run yet: pick, then compute. */
static uint32_t CRC_FN(resolve)(uint32_t crc, const unsigned char *p, size_t n)
{
    kvlog_crc_init();
    return __atomic_load_n(&CRC_FN(active), __ATOMIC_ACQUIRE)(crc, p, n);
}

uint32_t KVLOG_PASTE(kvlog_, CRC_ID)(uint32_t crc, const unsigned char *p, size_t n)
{
    return __atomic_load_n(&CRC_FN(active), __ATOMIC_ACQUIRE)(crc, p, n);
}

const char *KVLOG_PASTE(KVLOG_PASTE(kvlog_, CRC_ID), _kernel)(void)
{
    kvlog_crc_init();
    return CRC_FN(active_name);
}

int KVLOG_PASTE(KVLOG_PASTE(kvlog_, CRC_ID), _variant)(int variant, uint32_t crc, const unsigned char *p, size_t n,
                                                       uint32_t *out)
{
    kvlog_crc_fn f;
    kvlog_crc_init();  /* the tables */
    f = CRC_FN(variant_fn)(variant);
    if (!f)
        return -1;
    *out = f(crc, p, n);
    return 0;
}

#undef CRC_FN
#undef CRC_ID
#undef CRC_HAS_SSE42
#undef CRC_NAMES
