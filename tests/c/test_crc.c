/* test_crc.c - standalone test of kvlog's CRC-32 / CRC-32C kernels.
 *
 * Build (from the repository root), e.g.:
 *   cc -O2 -std=c99 -Wall -Wextra -Isrc/kvlog/_core/include \
 *      src/kvlog/_core/csrc/cpu.c src/kvlog/_core/csrc/crc32.c src/kvlog/_core/csrc/crc32c.c \
 *      tests/c/test_crc.c -o test_crc && ./test_crc [seed]
 * `make test-aarch64` cross-compiles it for aarch64 and runs it under qemu-aarch64, once with the CRC
 * instructions and once with tests/c/hwcap_none.c hiding them (KVLOG_TEST_EXPECT_KERNEL names the kernel the
 * dispatcher must pick). Exit status is 0 only if every check passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvlog_cpu.h"
#include "kvlog_crc.h"

static unsigned long failures;
static unsigned long checks;

#define CHECK_EQ(what, got, want, ...)                                                       \
    do {                                                                                     \
        checks++;                                                                            \
        if ((got) != (want)) {                                                               \
            if (failures++ < 30) {                                                           \
                printf("FAIL %s: got 0x%08lx want 0x%08lx  ", (what), (unsigned long)(got),  \
                       (unsigned long)(want));                                               \
                printf(__VA_ARGS__);                                                         \
                printf("\n");                                                                \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* ------------------------------------------------------------------ helpers */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* Independent bit-at-a-time reference (no tables). */
static uint32_t ref_crc(uint32_t poly, uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~crc;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1u) ? poly : 0u);
    }
    return ~c;
}

typedef int (*variant_fn)(int, uint32_t, const unsigned char *, size_t, uint32_t *);
typedef uint32_t (*dispatch_fn)(uint32_t, const unsigned char *, size_t);

struct algo {
    const char *name;
    uint32_t poly;
    variant_fn variant;
    dispatch_fn dispatch;
    const char *(*kernel)(void);
};

static const struct algo algos[2] = {
    { "crc32", 0xEDB88320u, kvlog_crc32_variant, kvlog_crc32, kvlog_crc32_kernel },
    { "crc32c", 0x82F63B78u, kvlog_crc32c_variant, kvlog_crc32c, kvlog_crc32c_kernel },
};

static int available(const struct algo *a, int v)
{
    static const unsigned char x = 0;
    uint32_t out;
    return a->variant(v, 0, &x, 0, &out) == 0;
}

static uint32_t run(const struct algo *a, int v, uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t out = 0xDEADBEEFu;
    if (a->variant(v, crc, p, n, &out) != 0) {
        failures++;
        printf("FAIL %s variant %d unexpectedly unavailable\n", a->name, v);
    }
    return out;
}

/* ------------------------------------------------------------------ tests */
struct vec {
    const char *label;
    uint32_t crc32, crc32c;
};

static void fill_vector(const char *label, unsigned char *buf, size_t *n)
{
    size_t i;
    if (!strcmp(label, "123456789")) {
        memcpy(buf, "123456789", 9);
        *n = 9;
    } else if (!strcmp(label, "zeros32")) {
        memset(buf, 0, 32);
        *n = 32;
    } else if (!strcmp(label, "ff32")) {
        memset(buf, 0xff, 32);
        *n = 32;
    } else if (!strcmp(label, "inc32")) {
        for (i = 0; i < 32; i++) buf[i] = (unsigned char)i;
        *n = 32;
    } else if (!strcmp(label, "dec32")) {
        for (i = 0; i < 32; i++) buf[i] = (unsigned char)(31 - i);
        *n = 32;
    } else if (!strcmp(label, "a")) {
        buf[0] = 'a';
        *n = 1;
    } else if (!strcmp(label, "fox")) {
        static const char fox[] = "The quick brown fox jumps over the lazy dog";
        memcpy(buf, fox, sizeof(fox) - 1);
        *n = sizeof(fox) - 1;
    } else { /* pat100000: (i*i + 7i) mod 256 */
        for (i = 0; i < 100000; i++) buf[i] = (unsigned char)((i * i + 7 * i) & 255);
        *n = 100000;
    }
}

static void test_vectors(void)
{
    /* expected values from zlib.crc32 and the crc32c package (RFC 3720 B.4 for the 32-byte ones) */
    static const struct vec vecs[] = {
        { "123456789", 0xCBF43926u, 0xE3069283u }, { "zeros32", 0x190A55ADu, 0x8A9136AAu },
        { "ff32", 0xFF6CAB0Bu, 0x62A8AB43u },      { "inc32", 0x91267E8Au, 0x46DD794Eu },
        { "dec32", 0x9AB0EF72u, 0x113FDB5Cu },     { "a", 0xE8B7BE43u, 0xC1D04330u },
        { "fox", 0x414FA339u, 0x22620404u },       { "pat100000", 0x6B6DE2DEu, 0x35A12BF6u },
    };
    unsigned char *buf = malloc(100000);
    size_t i, n;
    int ai, v;
    if (!buf) abort();
    for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
        fill_vector(vecs[i].label, buf, &n);
        for (ai = 0; ai < 2; ai++) {
            const struct algo *a = &algos[ai];
            uint32_t want = ai ? vecs[i].crc32c : vecs[i].crc32;
            CHECK_EQ(a->name, ref_crc(a->poly, 0, buf, n), want, "reference, vector %s", vecs[i].label);
            CHECK_EQ(a->name, a->dispatch(0, buf, n), want, "dispatch, vector %s", vecs[i].label);
            for (v = 0; v < KVLOG_CRC_NVARIANTS; v++)
                if (available(a, v))
                    CHECK_EQ(a->name, run(a, v, 0, buf, n), want, "variant %s, vector %s",
                             kvlog_crc_variant_name(v), vecs[i].label);
        }
    }
    free(buf);
}

/* empty input returns crc unchanged; exact-size heap buffers for every n <= 1100
   and some larger ones, so ASan catches any read outside [p, p+n). */
static void test_exact_buffers(const unsigned char *src)
{
    size_t n;
    int ai, v;
    for (ai = 0; ai < 2; ai++) {
        const struct algo *a = &algos[ai];
        for (v = 0; v < KVLOG_CRC_NVARIANTS; v++) {
            uint32_t c = (uint32_t)rnd();
            if (!available(a, v)) continue;
            CHECK_EQ(a->name, run(a, v, c, NULL, 0), c, "variant %s: empty input (NULL)", kvlog_crc_variant_name(v));
            CHECK_EQ(a->name, run(a, v, c, src, 0), c, "variant %s: empty input", kvlog_crc_variant_name(v));
        }
        for (n = 0; n < 1400; n += (n < 1100 ? 1 : 37)) {
            size_t len = n < 1100 ? n : n * 41; /* up to ~57 KB */
            unsigned char *buf = malloc(len ? len : 1);
            uint32_t c = (uint32_t)rnd(), want;
            if (!buf) abort();
            memcpy(buf, src, len);
            want = ref_crc(a->poly, c, buf, len);
            for (v = 0; v < KVLOG_CRC_NVARIANTS; v++)
                if (available(a, v))
                    CHECK_EQ(a->name, run(a, v, c, buf, len), want, "variant %s, exact buffer n=%zu",
                             kvlog_crc_variant_name(v), len);
            CHECK_EQ(a->name, a->dispatch(c, buf, len), want, "dispatch, exact buffer n=%zu", len);
            free(buf);
        }
    }
}

/* every variant vs slice8: all alignments 0..63, all lengths 0..600, random lengths up to 70000 */
static void test_random(const unsigned char *base, size_t maxlen, int nrandom)
{
    int ai, v, align, r;
    size_t n;
    for (ai = 0; ai < 2; ai++) {
        const struct algo *a = &algos[ai];
        for (align = 0; align < 64; align++) {
            const unsigned char *p = base + align;
            for (r = -601; r < nrandom; r++) {
                uint32_t c = (uint32_t)rnd(), want;
                n = r < 0 ? (size_t)(r + 601) : (size_t)(rnd() % (maxlen + 1));
                want = run(a, KVLOG_CRC_SLICE8, c, p, n);
                if (r % 97 == 0 && n < 20000)
                    CHECK_EQ(a->name, want, ref_crc(a->poly, c, p, n), "slice8 vs reference n=%zu align=%d", n, align);
                for (v = 1; v < KVLOG_CRC_NVARIANTS; v++)
                    if (available(a, v))
                        CHECK_EQ(a->name, run(a, v, c, p, n), want, "variant %s n=%zu align=%d crc=0x%08lx",
                                 kvlog_crc_variant_name(v), n, align, (unsigned long)c);
                CHECK_EQ(a->name, a->dispatch(c, p, n), want, "dispatch n=%zu align=%d", n, align);
            }
        }
    }
}

/* a few large buffers (the long-block and multi-stream paths with big shifts) */
static void test_large(void)
{
    static const size_t sizes[] = { 131072 + 3, 1048576 + 13, 3 * 1048576 + 5 };
    size_t i, k;
    int ai, v;
    unsigned char *buf = malloc(3 * 1048576 + 5);
    if (!buf) abort();
    for (k = 0; k < 3 * 1048576 + 5; k++) buf[k] = (unsigned char)rnd();
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (ai = 0; ai < 2; ai++) {
            const struct algo *a = &algos[ai];
            uint32_t c = (uint32_t)rnd(), want = run(a, KVLOG_CRC_SLICE8, c, buf, sizes[i]);
            for (v = 1; v < KVLOG_CRC_NVARIANTS; v++)
                if (available(a, v))
                    CHECK_EQ(a->name, run(a, v, c, buf, sizes[i]), want, "variant %s large n=%zu",
                             kvlog_crc_variant_name(v), sizes[i]);
            CHECK_EQ(a->name, a->dispatch(c, buf, sizes[i]), want, "dispatch large n=%zu", sizes[i]);
        }
    }
    free(buf);
}

/* crc(crc(0, a), b) == crc(0, a + b), for random splits into many chunks */
static void test_chunked(const unsigned char *base, size_t maxlen)
{
    int ai, v, iter;
    for (ai = 0; ai < 2; ai++) {
        const struct algo *a = &algos[ai];
        for (iter = 0; iter < 300; iter++) {
            size_t n = (size_t)(rnd() % (maxlen + 1)), off = 0;
            size_t maxchunk = (size_t)1 << (rnd() % 17);
            const unsigned char *p = base + rnd() % 64;
            uint32_t whole = run(a, KVLOG_CRC_SLICE8, 0, p, n);
            uint32_t inc[KVLOG_CRC_NVARIANTS], d = 0;
            for (v = 0; v < KVLOG_CRC_NVARIANTS; v++) inc[v] = 0;
            while (off < n) {
                size_t k = (size_t)(rnd() % (maxchunk + 1));
                if (k > n - off) k = n - off;
                for (v = 0; v < KVLOG_CRC_NVARIANTS; v++)
                    if (available(a, v)) inc[v] = run(a, v, inc[v], p + off, k);
                d = a->dispatch(d, p + off, k);
                off += k;
            }
            for (v = 0; v < KVLOG_CRC_NVARIANTS; v++)
                if (available(a, v))
                    CHECK_EQ(a->name, inc[v], whole, "variant %s chunked n=%zu maxchunk=%zu",
                             kvlog_crc_variant_name(v), n, maxchunk);
            CHECK_EQ(a->name, d, whole, "dispatch chunked n=%zu", n);
        }
        /* the two-piece identity on the dispatcher, every split of a 300-byte message */
        {
            size_t s;
            uint32_t whole = a->dispatch(0, base, 300);
            for (s = 0; s <= 300; s++)
                CHECK_EQ(a->name, a->dispatch(a->dispatch(0, base, s), base + s, 300 - s), whole,
                         "dispatch split at %zu", s);
        }
    }
}

int main(int argc, char **argv)
{
    const size_t maxlen = 70000;
    unsigned char *buf;
    size_t i;
    int ai, v;
    uint32_t early;
    static const char *const feats[KVLOG_CPU_NFEATURES] = { "sse4.2", "pclmul", "avx512", "vpclmul",
                                                             "arm-crc32", "arm-pmull" };

    if (argc > 1) rng_state = strtoull(argv[1], NULL, 0) | 1u;

    /* dispatch must work before kvlog_crc_init() is called */
    early = kvlog_crc32c(0, (const unsigned char *)"123456789", 9);
    CHECK_EQ("crc32c", early, 0xE3069283u, "call before kvlog_crc_init");
    kvlog_crc_init();
    kvlog_crc_init();

    printf("cpu features:");
    for (i = 0; i < KVLOG_CPU_NFEATURES; i++)
        if (kvlog_cpu_has((int)i)) printf(" %s", feats[i]);
    printf("\n");
    for (ai = 0; ai < 2; ai++) {
        printf("%-6s active kernel: %-22s variants run:", algos[ai].name, algos[ai].kernel());
        for (v = 0; v < KVLOG_CRC_NVARIANTS; v++)
            if (available(&algos[ai], v)) printf(" %s", kvlog_crc_variant_name(v));
        printf("\n");
        {
            uint32_t out;
            CHECK_EQ(algos[ai].name, (uint32_t)algos[ai].variant(-1, 0, NULL, 0, &out), (uint32_t)-1, "variant -1");
            CHECK_EQ(algos[ai].name, (uint32_t)algos[ai].variant(KVLOG_CRC_NVARIANTS, 0, NULL, 0, &out),
                     (uint32_t)-1, "variant NVARIANTS");
        }
    }
    if (kvlog_crc_variant_name(-1) != NULL || kvlog_crc_variant_name(KVLOG_CRC_NVARIANTS) != NULL) {
        failures++;
        printf("FAIL kvlog_crc_variant_name out of range\n");
    }
    if (kvlog_crc32_variant(KVLOG_CRC_SSE42, 0, NULL, 0, &early) != -1) {
        failures++;
        printf("FAIL crc32 has no sse4.2 variant\n");
    }

    buf = malloc(maxlen + 64);
    if (!buf) abort();
    for (i = 0; i < maxlen + 64; i++) buf[i] = (unsigned char)rnd();

    test_vectors();
    test_exact_buffers(buf);
    test_random(buf, maxlen, argc > 2 ? atoi(argv[2]) : 40);
    test_chunked(buf, maxlen);
    test_large();

    free(buf);
    /* `make test-aarch64` runs this twice under qemu: with the CPU's CRC instructions and with them hidden,
     * and says which kernel the dispatcher must have picked each time. */
    {
        const char *want = getenv("KVLOG_TEST_EXPECT_KERNEL");
        if (want)
            for (ai = 0; ai < 2; ai++)
                if (strcmp(algos[ai].kernel(), want) != 0) {
                    failures++;
                    printf("FAIL %s: active kernel %s, expected %s\n", algos[ai].name, algos[ai].kernel(), want);
                }
    }
    printf("%lu checks, %lu failures\n", checks, failures);
    return failures ? 1 : 0;
}
