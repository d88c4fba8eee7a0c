/* cpu.c - run-time CPU feature detection (see kvlog_cpu.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif
#include "kvlog_cpu.h"

#include <stdlib.h>
#include <string.h>

#if defined(KVLOG_HAVE_X86_KERNELS)
#include <cpuid.h>
#elif defined(KVLOG_HAVE_ARM_KERNELS) && defined(__linux__)
#include <sys/auxv.h>
#elif defined(KVLOG_HAVE_ARM_KERNELS) && defined(__APPLE__)
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#if defined(KVLOG_HAVE_X86_KERNELS)
static unsigned long long kvlog_xgetbv0(void)
{
    unsigned int lo, hi;
    /* xgetbv with ecx = 0 (XCR0); only executed when CPUID.1:ECX.OSXSAVE = 1 */
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static unsigned detect_features(void)
{
    unsigned a, b, c, d, f = 0;
    unsigned long long xcr0 = 0;
    int ymm_ok, zmm_ok;

    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (d & (1u << 26)) f |= 1u << KVLOG_CPU_SSE2;
    if (c & (1u << 20)) f |= 1u << KVLOG_CPU_SSE42;
    if (c & (1u << 1))  f |= 1u << KVLOG_CPU_PCLMUL;
    if (c & (1u << 27)) xcr0 = kvlog_xgetbv0();     /* OSXSAVE */
    ymm_ok = (xcr0 & 0x6) == 0x6;                   /* XMM + YMM state */
    zmm_ok = (xcr0 & 0xE6) == 0xE6;                 /* + opmask, ZMM_Hi256, Hi16_ZMM */

    if (__get_cpuid_max(0, 0) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (zmm_ok && (b & (1u << 16)) && (b & (1u << 30)) && (b & (1u << 31)))
            f |= 1u << KVLOG_CPU_AVX512;            /* F, BW, VL */
        if (ymm_ok && (c & (1u << 10)))
            f |= 1u << KVLOG_CPU_VPCLMUL;
        if (ymm_ok && (b & (1u << 5)))
            f |= 1u << KVLOG_CPU_AVX2;
    }
    return f;
}

#elif defined(KVLOG_HAVE_ARM_KERNELS) && defined(__linux__)
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1UL << 4)
#endif
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1UL << 7)
#endif
static unsigned detect_features(void)
{
    unsigned long hw = getauxval(AT_HWCAP);
    unsigned f = 1u << KVLOG_CPU_ARM_NEON;   /* Advanced SIMD is part of every aarch64 CPU */
    if (hw & HWCAP_CRC32) f |= 1u << KVLOG_CPU_ARM_CRC32;
    if (hw & HWCAP_PMULL) f |= 1u << KVLOG_CPU_ARM_PMULL;
    return f;
}

#elif defined(KVLOG_HAVE_ARM_KERNELS) && defined(__APPLE__)
static int sysctl_flag(const char *name)
{
    int v = 0;
    size_t len = sizeof(v);
    if (sysctlbyname(name, &v, &len, NULL, 0) != 0)
        return 0;
    return v != 0;
}
static unsigned detect_features(void)
{
    unsigned f = 1u << KVLOG_CPU_ARM_NEON;
    if (sysctl_flag("hw.optional.armv8_crc32")) f |= 1u << KVLOG_CPU_ARM_CRC32;
    if (sysctl_flag("hw.optional.arm.FEAT_PMULL")) f |= 1u << KVLOG_CPU_ARM_PMULL;
    return f;
}

#else
static unsigned detect_features(void)
{
    unsigned f = 0;
#if defined(KVLOG_HAVE_ARM_KERNELS)
    f |= 1u << KVLOG_CPU_ARM_NEON;
#endif
#if defined(KVLOG_HAVE_ARM_KERNELS) && defined(__ARM_FEATURE_CRC32)
    f |= 1u << KVLOG_CPU_ARM_CRC32;   /* the compiler was told every target CPU has it */
#endif
    return f;
}
#endif

static const char *const feature_names[KVLOG_CPU_NFEATURES] = {
    "sse42", "pclmul", "avx512", "vpclmul", "arm-crc32", "arm-pmull", "avx2", "sse2", "neon"
};

const char *kvlog_cpu_feature_name(int feature)
{
    return feature >= 0 && feature < KVLOG_CPU_NFEATURES ? feature_names[feature] : NULL;
}

/* The features KVLOG_CPU_DISABLE names, with those built on them.  Unknown names are ignored here;
   the Python package checks the variable at import and refuses a name it does not know. */
static unsigned hidden_features(void)
{
    const char *env = getenv("KVLOG_CPU_DISABLE");
    unsigned h = 0;
    int i;
    while (env && *env) {
        size_t len = strcspn(env, ", ");
        if (len == 3 && strncmp(env, "all", 3) == 0)
            h = (1u << KVLOG_CPU_NFEATURES) - 1;
        for (i = 0; i < KVLOG_CPU_NFEATURES; i++)
            if (len == strlen(feature_names[i]) && strncmp(env, feature_names[i], len) == 0)
                h |= 1u << i;
        env += len;
        env += strspn(env, ", ");
    }
    if (h & (1u << KVLOG_CPU_AVX2))
        h |= (1u << KVLOG_CPU_AVX512) | (1u << KVLOG_CPU_VPCLMUL);
    if (h & (1u << KVLOG_CPU_PCLMUL))
        h |= 1u << KVLOG_CPU_VPCLMUL;
    return h;
}

/* Bit 31 marks "read". A racing first call computes the same values twice; the release store of
   kvlog_cpu_raw publishes kvlog_cpu_off with it (free-threaded Python runs first calls on several
   threads at once; ThreadSanitizer checks it in `make tsan`). */
static unsigned kvlog_cpu_raw, kvlog_cpu_off;

static unsigned features(void)
{
    unsigned f = __atomic_load_n(&kvlog_cpu_raw, __ATOMIC_ACQUIRE);
    if (!(f & 0x80000000u)) {
        __atomic_store_n(&kvlog_cpu_off, hidden_features(), __ATOMIC_RELAXED);
        f = detect_features() | 0x80000000u;
        __atomic_store_n(&kvlog_cpu_raw, f, __ATOMIC_RELEASE);
    }
    return f & ~__atomic_load_n(&kvlog_cpu_off, __ATOMIC_RELAXED);
}

unsigned kvlog_cpu_detected(void)
{
    features();
    return __atomic_load_n(&kvlog_cpu_raw, __ATOMIC_ACQUIRE) & 0x7fffffffu;
}

unsigned kvlog_cpu_hidden(void)
{
    features();
    return __atomic_load_n(&kvlog_cpu_off, __ATOMIC_RELAXED);
}

int kvlog_cpu_has(int feature)
{
    if (feature < 0 || feature >= KVLOG_CPU_NFEATURES)
        return 0;
    return (features() >> feature) & 1u;
}
