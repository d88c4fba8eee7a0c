/* test_varint.c - standalone test of Kafka's zigzag varints (kvlog_varint.h).
 *
 * Build and run (from the repository root), e.g.:
 *   cc -O2 -std=c99 -Wall -Wextra -Isrc/kvlog/_core/include tests/c/test_varint.c -o test_varint && ./test_varint
 * `make test-aarch64` also builds it with aarch64-linux-gnu-gcc and runs it under qemu-aarch64.
 * Checks: byte-exact encodings of fixed values (as Kafka's ByteUtils writes them), the size functions, the
 * truncated/overlong status codes, Java's dropping of surplus bits in the last byte, non-minimal encodings,
 * and write -> read round trips of every length boundary and random values, each input in an exactly sized
 * malloc'ed buffer. Exit status is 0 only if every check passed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvlog_varint.h"

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

struct vec32 { int32_t v; unsigned n; unsigned char b[5]; };
struct vec64 { int64_t v; unsigned n; unsigned char b[10]; };

/* Encodings worked out by hand from the zigzag + base-128 definition (KIP-98 record format). */
static const struct vec32 v32[] = {
    { 0, 1, { 0x00 } },
    { -1, 1, { 0x01 } },
    { 1, 1, { 0x02 } },
    { 63, 1, { 0x7e } },
    { -64, 1, { 0x7f } },
    { 64, 2, { 0x80, 0x01 } },
    { -65, 2, { 0x81, 0x01 } },
    { 300, 2, { 0xd8, 0x04 } },
    { 8191, 2, { 0xfe, 0x7f } },
    { -8193, 3, { 0x81, 0x80, 0x01 } },
    { INT32_MAX, 5, { 0xfe, 0xff, 0xff, 0xff, 0x0f } },
    { INT32_MIN, 5, { 0xff, 0xff, 0xff, 0xff, 0x0f } },
};
static const struct vec64 v64[] = {
    { 0, 1, { 0x00 } },
    { -1, 1, { 0x01 } },
    { 1700000000000LL, 6, { 0x80, 0xa0, 0xab, 0xfe, 0xf9, 0x62 } },
    { INT64_MAX, 10, { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
    { INT64_MIN, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
};

/* Read from an exactly sized heap copy, so a sanitizer build catches any read past `end`. */
static int read32(const unsigned char *src, size_t n, int32_t *out, size_t *used)
{
    unsigned char *buf = malloc(n ? n : 1);
    const unsigned char *p;
    int rc;
    if (!buf) abort();
    memcpy(buf, src, n);
    p = buf;
    rc = kv_read_varint(&p, buf + n, out);
    *used = (size_t)(p - buf);
    free(buf);
    return rc;
}

static int read64(const unsigned char *src, size_t n, int64_t *out, size_t *used)
{
    unsigned char *buf = malloc(n ? n : 1);
    const unsigned char *p;
    int rc;
    if (!buf) abort();
    memcpy(buf, src, n);
    p = buf;
    rc = kv_read_varlong(&p, buf + n, out);
    *used = (size_t)(p - buf);
    free(buf);
    return rc;
}

static void test_vectors(void)
{
    size_t i, used;
    unsigned char out[16];
    for (i = 0; i < sizeof v32 / sizeof v32[0]; i++) {
        int32_t got = 0;
        unsigned char *end = kv_write_varint(out, v32[i].v);
        CHECK((unsigned)(end - out) == v32[i].n && memcmp(out, v32[i].b, v32[i].n) == 0,
              "write varint %" PRId32, v32[i].v);
        CHECK(kv_varint_size(v32[i].v) == (int)v32[i].n, "varint size %" PRId32, v32[i].v);
        CHECK(read32(v32[i].b, v32[i].n, &got, &used) == KV_VARINT_OK && got == v32[i].v && used == v32[i].n,
              "read varint %" PRId32 " got %" PRId32, v32[i].v, got);
        /* every strict prefix is truncated and leaves the cursor where it was */
        for (used = 0; used < v32[i].n; used++) {
            size_t adv = 99;
            CHECK(read32(v32[i].b, used, &got, &adv) == KV_VARINT_TRUNCATED && adv == 0,
                  "prefix %zu of varint %" PRId32, used, v32[i].v);
        }
    }
    for (i = 0; i < sizeof v64 / sizeof v64[0]; i++) {
        int64_t got = 0;
        unsigned char *end = kv_write_varlong(out, v64[i].v);
        CHECK((unsigned)(end - out) == v64[i].n && memcmp(out, v64[i].b, v64[i].n) == 0,
              "write varlong %" PRId64, v64[i].v);
        CHECK(kv_varlong_size(v64[i].v) == (int)v64[i].n, "varlong size %" PRId64, v64[i].v);
        CHECK(read64(v64[i].b, v64[i].n, &got, &used) == KV_VARINT_OK && got == v64[i].v && used == v64[i].n,
              "read varlong %" PRId64 " got %" PRId64, v64[i].v, got);
        for (used = 0; used < v64[i].n; used++) {
            size_t adv = 99;
            CHECK(read64(v64[i].b, used, &got, &adv) == KV_VARINT_TRUNCATED && adv == 0,
                  "prefix %zu of varlong %" PRId64, used, v64[i].v);
        }
    }
}

static void test_edge_rules(void)
{
    static const unsigned char over32[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    static const unsigned char over64[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    static const unsigned char surplus32[] = { 0xff, 0xff, 0xff, 0xff, 0x7f };  /* bits past 32 dropped */
    static const unsigned char surplus64[] = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
    static const unsigned char nonminimal[] = { 0x80, 0x80, 0x00 };            /* 0 in three bytes */
    int32_t g32 = 7;
    int64_t g64 = 7;
    size_t used = 99;

    CHECK(read32(over32, sizeof over32, &g32, &used) == KV_VARINT_OVERLONG && used == 0 && g32 == 7,
          "varint with a 6th byte");
    CHECK(read64(over64, sizeof over64, &g64, &used) == KV_VARINT_OVERLONG && used == 0 && g64 == 7,
          "varlong with an 11th byte");
    CHECK(read32(surplus32, sizeof surplus32, &g32, &used) == KV_VARINT_OK && g32 == INT32_MIN && used == 5,
          "varint surplus bits: got %" PRId32, g32);
    CHECK(read64(surplus64, sizeof surplus64, &g64, &used) == KV_VARINT_OK && g64 == INT64_MAX && used == 10,
          "varlong surplus bits: got %" PRId64, g64);
    CHECK(read32(nonminimal, sizeof nonminimal, &g32, &used) == KV_VARINT_OK && g32 == 0 && used == 3,
          "non-minimal varint");
    CHECK(read64(nonminimal, sizeof nonminimal, &g64, &used) == KV_VARINT_OK && g64 == 0 && used == 3,
          "non-minimal varlong");
    /* the cursor stops right after the value: two back-to-back values */
    {
        unsigned char two[15];
        const unsigned char *p = two;
        unsigned char *e = kv_write_varint(two, -12345);
        e = kv_write_varlong(e, 1LL << 50);
        CHECK(kv_read_varint(&p, e, &g32) == KV_VARINT_OK && g32 == -12345, "first of two");
        CHECK(kv_read_varlong(&p, e, &g64) == KV_VARINT_OK && g64 == (1LL << 50) && p == e, "second of two");
    }
}

static void roundtrip32(int32_t v)
{
    unsigned char out[5];
    int32_t got = 0;
    size_t used;
    size_t n = (size_t)(kv_write_varint(out, v) - out);
    CHECK(n == (size_t)kv_varint_size(v), "size of %" PRId32, v);
    CHECK(read32(out, n, &got, &used) == KV_VARINT_OK && got == v && used == n, "round trip %" PRId32, v);
}

static void roundtrip64(int64_t v)
{
    unsigned char out[10];
    int64_t got = 0;
    size_t used;
    size_t n = (size_t)(kv_write_varlong(out, v) - out);
    CHECK(n == (size_t)kv_varlong_size(v), "size of %" PRId64, v);
    CHECK(read64(out, n, &got, &used) == KV_VARINT_OK && got == v && used == n, "round trip %" PRId64, v);
}

int main(int argc, char **argv)
{
    int k;
    long i;
    if (argc > 1) rng_state = strtoull(argv[1], NULL, 0) | 1u;
    test_vectors();
    test_edge_rules();
    /* around every 7-bit length boundary of the zigzag value, both signs */
    for (k = 0; k <= 63; k++) {
        int64_t b = (int64_t)(((uint64_t)1 << k) >> 1);
        int d;
        for (d = -2; d <= 2; d++) {
            int64_t v = b + d;
            roundtrip64(v);
            roundtrip64(-v);
            if (v >= INT32_MIN && v <= INT32_MAX) {
                roundtrip32((int32_t)v);
                roundtrip32((int32_t)-v);
            }
        }
    }
    for (i = 0; i < 200000; i++) {
        uint64_t r = rnd();
        int shift = (int)(rnd() % 64);
        roundtrip64((int64_t)(r >> shift));
        roundtrip64((int64_t)r);
        roundtrip32((int32_t)(uint32_t)(r >> (shift % 32)));
    }
    printf("varint: %lu checks, %lu failures\n", checks, failures);
    return failures ? 1 : 0;
}
