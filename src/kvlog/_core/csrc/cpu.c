/* cpu.c - run-time CPU feature detection (see kvlog_cpu.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif
#include "kvlog_cpu.h"

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
    unsigned f = 0;
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
    unsigned f = 0;
    if (sysctl_flag("hw.optional.armv8_crc32")) f |= 1u << KVLOG_CPU_ARM_CRC32;
    if (sysctl_flag("hw.optional.arm.FEAT_PMULL")) f |= 1u << KVLOG_CPU_ARM_PMULL;
    return f;
}

#else
static unsigned detect_features(void)
{
    unsigned f = 0;
#if defined(KVLOG_HAVE_ARM_KERNELS) && defined(__ARM_FEATURE_CRC32)
    f |= 1u << KVLOG_CPU_ARM_CRC32;   /* the compiler was told every target CPU has it */
#endif
    return f;
}
#endif

/* Bit 31 marks "detected"; a racing first call just computes the same value twice. */
static volatile unsigned kvlog_cpu_features;

int kvlog_cpu_has(int feature)
{
    unsigned f = kvlog_cpu_features;
    if (!(f & 0x80000000u)) {
        f = detect_features() | 0x80000000u;
        kvlog_cpu_features = f;
    }
    if (feature < 0 || feature >= KVLOG_CPU_NFEATURES)
        return 0;
    return (f >> feature) & 1u;
}
