/* kvlog_cpu.h - run-time CPU feature detection for kvlog's C kernels.
 *
 * Features are detected once (lazily, on the first query) and cached.
 * Builds for other architectures, or with compilers lacking the GNU
 * target attribute, report no features and use only portable code.
 */
#ifndef KVLOG_CPU_H
#define KVLOG_CPU_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KVLOG_CPU_SSE42 = 0,     /* x86: SSE4.2 (crc32 instruction; implies SSSE3/SSE4.1) */
    KVLOG_CPU_PCLMUL = 1,    /* x86: PCLMULQDQ */
    KVLOG_CPU_AVX512 = 2,    /* x86: AVX512 F+VL+BW and the OS saves opmask/ZMM state */
    KVLOG_CPU_VPCLMUL = 3,   /* x86: VPCLMULQDQ and the OS saves YMM state */
    KVLOG_CPU_ARM_CRC32 = 4, /* aarch64: CRC32/CRC32C instructions */
    KVLOG_CPU_ARM_PMULL = 5, /* aarch64: 64x64->128 polynomial multiply */
    KVLOG_CPU_AVX2 = 6,      /* x86: AVX2 and the OS saves YMM state */
    KVLOG_CPU_SSE2 = 7,      /* x86: SSE2 (every x86-64 CPU) */
    KVLOG_CPU_ARM_NEON = 8,  /* aarch64: Advanced SIMD (every aarch64 CPU) */
    KVLOG_CPU_NFEATURES = 9
};

/* 1 if the feature is usable on this CPU/OS and not hidden by KVLOG_CPU_DISABLE, else 0 (also for
   unknown ids).  The environment variable is read once, on the first query: a comma-separated list
   of feature names (kvlog_cpu_feature_name) or "all"; hiding a feature also hides those built on it
   (avx2 -> avx512, vpclmul; pclmul -> vpclmul).  Benchmarks and tests use it to run the lower tiers
   on a machine that has the higher ones. */
int kvlog_cpu_has(int feature);

/* Bit masks over the feature ids: what the CPU/OS offers, and what KVLOG_CPU_DISABLE hides. */
unsigned kvlog_cpu_detected(void);
unsigned kvlog_cpu_hidden(void);

/* The name of a feature id as KVLOG_CPU_DISABLE spells it, or NULL. */
const char *kvlog_cpu_feature_name(int feature);

/* Compile-time capability of this build (which kernels get compiled in). */
#if (defined(__x86_64__) || defined(__amd64__)) && (defined(__GNUC__) || defined(__clang__))
#  define KVLOG_HAVE_X86_KERNELS 1
   /* target("vpclmulqdq,avx512...") needs GCC >= 8 or clang >= 6 */
#  if (defined(__clang__) && __clang_major__ >= 6) || \
      (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8)
#    define KVLOG_HAVE_X86_AVX512_KERNELS 1
#  endif
#endif

#if defined(__aarch64__) && !defined(__AARCH64EB__) && (defined(__GNUC__) || defined(__clang__))
#  define KVLOG_HAVE_ARM_KERNELS 1
#endif

#ifdef __cplusplus
}
#endif
#endif /* KVLOG_CPU_H */
