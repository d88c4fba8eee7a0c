/* test_md5.c - standalone test of kvlog's MD5 (csrc/md5.c).
 *
 * Build and run (from the repository root), e.g.:
 *   cc -O1 -g -std=c99 -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=all \
 *      -Isrc/kvlog/_core/include src/kvlog/_core/csrc/md5.c tests/c/test_md5.c -o test_md5 && ./test_md5 [seed]
 * `make test-aarch64` cross-compiles it for aarch64 (NEON and, with -DKVLOG_MD5_NO_SIMD, scalar only) and
 * runs it under qemu-aarch64.
 * Checks: the RFC 1321 §A.5 test suite, the one-million-'a' vector, and that every entry point (one-shot,
 * incremental with random splits, binary-column batches with 32- and 64-bit offsets, and every multi-message
 * variant this CPU runs) agrees with the one-shot digest on every length 0..300 and on random inputs. Every message lives in its own exactly
 * sized malloc'ed buffer, so the sanitizer catches any read past its end. Exit status 0 only if all pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvlog_md5.h"

static unsigned long failures;
static unsigned long checks;

#define CHECK(cond, ...)                                                                                        \
    do {                                                                                                        \
        checks++;                                                                                               \
        if (!(cond)) {                                                                                          \
            if (failures++ < 30) {                                                                              \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                     \
                printf(__VA_ARGS__);                                                                            \
                printf("\n");                                                                                   \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

static void hex(const unsigned char d[16], char out[33])
{
    static const char digits[] = "0123456789abcdef";
    int i;
    for (i = 0; i < 16; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[32] = 0;
}

/* RFC 1321, appendix A.5 ("test suite") */
static const char *const rfc_inputs[] = {
    "",
    "a",
    "abc",
    "message digest",
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
};
static const char *const rfc_digests[] = {
    "d41d8cd98f00b204e9800998ecf8427e",
    "0cc175b9c0f1b6a831c399e269772661",
    "900150983cd24fb0d6963f7d28e17f72",
    "f96b697d7cb7938d525a2f31aaf161d0",
    "c3fcd3d76192e4007dfb496cca67e13b",
    "d174ab98d277d9f5a5611c2c9f419d9f",
    "57edf4a22be3c955ac49da2e2107b67a",
};

static void test_rfc_vectors(void)
{
    size_t i;
    for (i = 0; i < sizeof rfc_inputs / sizeof rfc_inputs[0]; i++) {
        size_t n = strlen(rfc_inputs[i]);
        unsigned char *copy = (unsigned char *)malloc(n ? n : 1);
        unsigned char d[16];
        char h[33];
        memcpy(copy, rfc_inputs[i], n);
        kvlog_md5(copy, n, d);
        hex(d, h);
        CHECK(strcmp(h, rfc_digests[i]) == 0, "MD5(\"%s\") = %s, want %s", rfc_inputs[i], h, rfc_digests[i]);
        free(copy);
    }
    {
        unsigned char d[16];
        char h[33];
        kvlog_md5(NULL, 0, d);
        hex(d, h);
        CHECK(strcmp(h, rfc_digests[0]) == 0, "MD5(NULL, 0) = %s", h);
    }
}

static void test_million_a(void)
{
    size_t n = 1000000;
    unsigned char *buf = (unsigned char *)malloc(n);
    unsigned char d[16], d2[16];
    char h[33];
    kvlog_md5_ctx ctx;
    size_t pos = 0;
    memset(buf, 'a', n);
    kvlog_md5(buf, n, d);
    hex(d, h);
    CHECK(strcmp(h, "7707d6ae4e027c70eea2a935c2296f21") == 0, "MD5(1e6 x 'a') = %s", h);
    kvlog_md5_init(&ctx);
    while (pos < n) {
        size_t take = 1 + (size_t)(rnd() % 1000);
        if (take > n - pos)
            take = n - pos;
        kvlog_md5_update(&ctx, buf + pos, take);
        pos += take;
    }
    kvlog_md5_final(&ctx, d2);
    CHECK(memcmp(d, d2, 16) == 0, "incremental MD5(1e6 x 'a') differs");
    free(buf);
}

static unsigned char *random_bytes(size_t n)
{
    unsigned char *p = (unsigned char *)malloc(n ? n : 1);
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
    return p;
}

static void test_incremental_every_length(void)
{
    size_t n;
    for (n = 0; n <= 300; n++) {
        unsigned char *msg = random_bytes(n);
        unsigned char d[16], d2[16];
        int trial;
        kvlog_md5(msg, n, d);
        for (trial = 0; trial < 4; trial++) {
            kvlog_md5_ctx ctx;
            size_t pos = 0;
            kvlog_md5_init(&ctx);
            while (pos < n) {
                size_t take = (size_t)(rnd() % 80);
                if (take > n - pos)
                    take = n - pos;
                kvlog_md5_update(&ctx, msg + pos, take);
                pos += take;
            }
            kvlog_md5_update(&ctx, msg, 0);
            kvlog_md5_final(&ctx, d2);
            CHECK(memcmp(d, d2, 16) == 0, "incremental differs at length %zu", n);
        }
        free(msg);
    }
}

static unsigned long variants_run[KVLOG_MD5_NVARIANTS];

static void test_many(void)
{
    int round, v;
    for (round = 0; round < 400; round++) {
        size_t n = (size_t)(rnd() % 120), i, total = 0;
        int32_t *off32 = (int32_t *)malloc((n + 1) * sizeof(int32_t));
        int64_t *off64 = (int64_t *)malloc((n + 1) * sizeof(int64_t));
        unsigned char *out32 = (unsigned char *)malloc(16 * n + 1), *out64 = (unsigned char *)malloc(16 * n + 1);
        unsigned char *data;
        size_t base = (size_t)(rnd() % 5); /* columns sliced from a larger buffer start past 0 */
        size_t *lens = (size_t *)malloc((n + 1) * sizeof(size_t));
        for (i = 0; i < n; i++) {
            /* mostly one-block messages (the lanes kernels), sometimes longer ones mixed in */
            lens[i] = (size_t)(rnd() % ((round & 3) ? 56 : 150));
            total += lens[i];
        }
        data = random_bytes(base + total);
        off32[0] = (int32_t)base;
        off64[0] = (int64_t)base;
        for (i = 0; i < n; i++) {
            off32[i + 1] = off32[i] + (int32_t)lens[i];
            off64[i + 1] = off64[i] + (int64_t)lens[i];
        }
        kvlog_md5_many32(data, off32, n, out32);
        kvlog_md5_many64(data, off64, n, out64);
        for (i = 0; i < n; i++) {
            unsigned char want[16];
            kvlog_md5(data + off64[i], lens[i], want);
            CHECK(memcmp(out32 + 16 * i, want, 16) == 0, "many32 row %zu of %zu differs", i, n);
            CHECK(memcmp(out64 + 16 * i, want, 16) == 0, "many64 row %zu of %zu differs", i, n);
        }
        for (v = 0; v < KVLOG_MD5_NVARIANTS; v++) {
            memset(out64, 0, 16 * n + 1);
            if (kvlog_md5_many_variant(v, data, off64, n, out64) != 0)
                continue;
            variants_run[v]++;
            for (i = 0; i < n; i++) {
                unsigned char want[16];
                kvlog_md5(data + off64[i], lens[i], want);
                CHECK(memcmp(out64 + 16 * i, want, 16) == 0, "variant %s row %zu of %zu (length %zu) differs",
                      kvlog_md5_variant_name(v), i, n, lens[i]);
            }
        }
        free(off32);
        free(off64);
        free(out32);
        free(out64);
        free(data);
        free(lens);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng_state = strtoull(argv[1], NULL, 0) | 1u;
    test_rfc_vectors();
    test_million_a();
    test_incremental_every_length();
    test_many();
    {
        int v;
        CHECK(kvlog_md5_variant_name(KVLOG_MD5_NVARIANTS) == NULL, "unknown variant has a name");
        CHECK(variants_run[KVLOG_MD5_SCALAR] > 0, "scalar variant did not run");
        printf("variants run:");
        for (v = 0; v < KVLOG_MD5_NVARIANTS; v++)
            if (variants_run[v])
                printf(" %s", kvlog_md5_variant_name(v));
        printf("\n");
    }
    {
        const char *want = getenv("KVLOG_TEST_EXPECT_KERNEL");   /* set by `make test-aarch64` */
        CHECK(!want || strcmp(kvlog_md5_kernel(), want) == 0, "active kernel %s, expected %s", kvlog_md5_kernel(),
              want);
    }
    printf("%s: %lu checks, %lu failures (kernel %s)\n", failures ? "FAILED" : "ok", checks, failures,
           kvlog_md5_kernel());
    return failures ? 1 : 0;
}
