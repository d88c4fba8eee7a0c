/* test_index.c - standalone test of the offset/time index kernels in kvlog_index.h.
 *
 * Build and run (from the repository root), e.g.:
 *   cc -O1 -g -std=c99 -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=all \
 *      -Isrc/kvlog/_core/include tests/c/test_index.c -o test_index && ./test_index [seed]
 * Every index buffer is malloc'ed to exactly n * entry_size bytes, so the sanitizer catches any read past
 * the last entry. Exit status is 0 only if every check passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvlog_index.h"

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

static int64_t rnd_range(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ------------------------------------------------------------------ independent references */
static void put_be32(unsigned char *p, uint32_t v)
{
    int i;
    for (i = 3; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

static void put_be64(unsigned char *p, uint64_t v)
{
    int i;
    for (i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

static unsigned char *make_oi(const int32_t *rel, const int32_t *pos, int64_t n)
{
    unsigned char *b = malloc(n ? (size_t)n * 8 : 1);
    int64_t i;
    if (!b) abort();
    for (i = 0; i < n; i++) {
        put_be32(b + i * 8, (uint32_t)rel[i]);
        put_be32(b + i * 8 + 4, (uint32_t)pos[i]);
    }
    return b;
}

static unsigned char *make_ti(const int64_t *ts, const int32_t *rel, int64_t n)
{
    unsigned char *b = malloc(n ? (size_t)n * 12 : 1);
    int64_t i;
    if (!b) abort();
    for (i = 0; i < n; i++) {
        put_be64(b + i * 12, (uint64_t)ts[i]);
        put_be32(b + i * 12 + 8, (uint32_t)rel[i]);
    }
    return b;
}

/* largest i with keys[i] <= t over a non-decreasing sequence, -1 if none: a linear scan for small n
 * (obviously right), a textbook upper_bound for large n (checked against the scan in main) */
static int64_t lin_floor32(const int32_t *k, int64_t n, int64_t t)
{
    int64_t i, r = -1, lo = 0, hi = n;
    if (n <= 1500) {
        for (i = 0; i < n; i++)
            if ((int64_t)k[i] <= t) r = i;
        return r;
    }
    while (lo < hi) { /* first index with k > t */
        int64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)k[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static int64_t lin_floor64(const int64_t *k, int64_t n, int64_t t)
{
    int64_t i, r = -1, lo = 0, hi = n;
    if (n <= 1500) {
        for (i = 0; i < n; i++)
            if (k[i] <= t) r = i;
        return r;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (k[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A second, plain transcription of AbstractIndex.indexSlotRangeFor (largest lower bound) over a native
 * array, for comparing slot choices on arbitrary (unsorted) keys. */
static int64_t kafka_floor(const int64_t *k, int64_t n, int64_t t, int64_t warm)
{
    int64_t first_hot, lo, hi, mid;
    if (n == 0) return -1;
    first_hot = n - 1 - warm > 0 ? n - 1 - warm : 0;
    if (k[first_hot] < t) {
        lo = first_hot;
        hi = n - 1;
    } else if (k[0] > t) {
        return -1;
    } else {
        lo = 0;
        hi = first_hot;
    }
    while (lo < hi) {
        mid = (lo + hi + 1) / 2;
        if (k[mid] > t) hi = mid - 1;
        else if (k[mid] < t) lo = mid;
        else return mid;
    }
    return lo;
}

/* ------------------------------------------------------------------ tests */
static void test_loads(void)
{
    unsigned char b[12];
    put_be32(b, 0x80000000u);
    CHECK(kv_ix_i32(b) == INT32_MIN, "i32 min");
    put_be32(b, 0xFFFFFFFFu);
    CHECK(kv_ix_i32(b) == -1, "i32 -1");
    put_be64(b, 0x0102030405060708u);
    CHECK(kv_ix_i64(b) == 0x0102030405060708, "i64");
    put_be64(b, 0x8000000000000000u);
    CHECK(kv_ix_i64(b) == INT64_MIN, "i64 min");
    kv_oi_store(b, 0, 0x01020304, -2);
    CHECK(memcmp(b, "\x01\x02\x03\x04\xff\xff\xff\xfe", 8) == 0, "oi store layout");
    CHECK(kv_oi_rel(b, 0) == 0x01020304 && kv_oi_pos(b, 0) == -2, "oi fields");
    kv_ti_store(b, 0, -3, 7);
    CHECK(memcmp(b, "\xff\xff\xff\xff\xff\xff\xff\xfd\x00\x00\x00\x07", 12) == 0, "ti store layout");
    CHECK(kv_ti_ts(b, 0) == -3 && kv_ti_rel(b, 0) == 7, "ti fields");
}

/* strictly increasing offset index of n entries: floor/ceil/count_below against linear references for
 * every key, key +- 1, and the extremes */
static void check_oi_sorted(int64_t n)
{
    int32_t *rel = malloc((size_t)(n + 1) * 4), *pos = malloc((size_t)(n + 1) * 4);
    int64_t *all, *out, *tg;
    unsigned char *b;
    int64_t i, j, m;
    int32_t r = (int32_t)rnd_range(1, 3), p = (int32_t)rnd_range(1, 100);
    if (!rel || !pos) abort();
    for (i = 0; i < n; i++) {
        rel[i] = r;
        pos[i] = p;
        r += (int32_t)rnd_range(1, 5);
        p += (int32_t)rnd_range(1, 4000);
    }
    b = make_oi(rel, pos, n);
    CHECK(kv_oi_valid_entries(b, n) == n, "sorted oi n=%lld valid=%lld", (long long)n,
          (long long)kv_oi_valid_entries(b, n));
    m = 3 * n + 6;
    tg = malloc((size_t)m * 8);
    out = malloc((size_t)m * 8);
    all = malloc((size_t)m * 8);
    if (!tg || !out || !all) abort();
    for (i = 0; i < n; i++) {
        tg[3 * i] = rel[i] - 1;
        tg[3 * i + 1] = rel[i];
        tg[3 * i + 2] = rel[i] + 1;
    }
    tg[3 * n] = INT64_MIN;
    tg[3 * n + 1] = INT64_MAX;
    tg[3 * n + 2] = INT32_MIN;
    tg[3 * n + 3] = (int64_t)INT32_MAX + 1;
    tg[3 * n + 4] = 0;
    tg[3 * n + 5] = -1;
    for (j = 0; j < m; j++) {
        int64_t t = tg[j], want = lin_floor32(rel, n, t), got = kv_oi_floor(b, n, t), c;
        CHECK(got == want, "oi floor n=%lld t=%lld got %lld want %lld", (long long)n, (long long)t,
              (long long)got, (long long)want);
        all[j] = got;
        c = kv_oi_ceil(b, n, t);
        want = (t == INT64_MIN) ? (n ? 0 : -1) : lin_floor32(rel, n, t - 1) + 1;
        if (want >= n) want = -1;
        CHECK(c == want, "oi ceil n=%lld t=%lld got %lld want %lld", (long long)n, (long long)t, (long long)c,
              (long long)want);
        CHECK(kv_oi_count_below(b, n, t) == (want < 0 ? n : want), "oi count_below n=%lld t=%lld", (long long)n,
              (long long)t);
    }
    /* positions: floor and ceil by position */
    for (i = 0; i < n; i += 1 + n / 64) {
        CHECK(kv_oi_floor_pos(b, n, pos[i]) == i, "oi floor_pos");
        CHECK(kv_oi_floor_pos(b, n, pos[i] - 1) == i - 1, "oi floor_pos - 1");
        CHECK(kv_oi_ceil_pos(b, n, pos[i]) == i, "oi ceil_pos");
        CHECK(kv_oi_ceil_pos(b, n, pos[i] + 1) == (i + 1 < n ? i + 1 : -1), "oi ceil_pos + 1");
    }
    /* batched: unsorted order (shuffle), then sorted */
    for (j = m - 1; j > 0; j--) {
        int64_t k = rnd_range(0, j), tmp = tg[j];
        tg[j] = tg[k];
        tg[k] = tmp;
    }
    kv_oi_floor_many(b, n, tg, m, out);
    for (j = 0; j < m; j++)
        CHECK(out[j] == kv_oi_floor(b, n, tg[j]), "oi many n=%lld t=%lld", (long long)n, (long long)tg[j]);
    qsort(tg, (size_t)m, sizeof(int64_t), cmp_i64);
    kv_oi_floor_many(b, n, tg, m, out);
    for (j = 0; j < m; j++)
        CHECK(out[j] == kv_oi_floor(b, n, tg[j]), "oi many sorted n=%lld t=%lld", (long long)n,
              (long long)tg[j]);
    free(b);
    free(rel);
    free(pos);
    free(tg);
    free(out);
    free(all);
}

static void check_ti_sorted(int64_t n, int dups)
{
    int64_t *ts = malloc((size_t)(n + 1) * 8), *tg, *out, *k64;
    int32_t *rel = malloc((size_t)(n + 1) * 4);
    unsigned char *b;
    int64_t i, j, m, t = rnd_range(0, 2), r = rnd_range(1, 3);
    if (!ts || !rel) abort();
    for (i = 0; i < n; i++) {
        ts[i] = t;
        rel[i] = (int32_t)r;
        t += rnd_range(1, 1000);
        r += dups ? rnd_range(0, 2) : rnd_range(1, 3);
    }
    b = make_ti(ts, rel, n);
    CHECK(kv_ti_valid_entries(b, n) == n, "sorted ti n=%lld valid=%lld", (long long)n,
          (long long)kv_ti_valid_entries(b, n));
    m = 3 * n + 2;
    tg = malloc((size_t)m * 8);
    out = malloc((size_t)m * 8);
    k64 = malloc((size_t)(n + 1) * 8);
    if (!tg || !out || !k64) abort();
    for (i = 0; i < n; i++) {
        tg[3 * i] = ts[i] - 1;
        tg[3 * i + 1] = ts[i];
        tg[3 * i + 2] = ts[i] + 1;
        k64[i] = rel[i];
    }
    tg[3 * n] = INT64_MIN;
    tg[3 * n + 1] = INT64_MAX;
    for (j = 0; j < m; j++) {
        int64_t want = lin_floor64(ts, n, tg[j]), got = kv_ti_floor(b, n, tg[j]);
        CHECK(got == want, "ti floor n=%lld t=%lld got %lld want %lld", (long long)n, (long long)tg[j],
              (long long)got, (long long)want);
    }
    kv_ti_floor_many(b, n, tg, m, out); /* not sorted: the two extremes are at the end */
    for (j = 0; j < m; j++)
        CHECK(out[j] == kv_ti_floor(b, n, tg[j]), "ti many n=%lld", (long long)n);
    qsort(tg, (size_t)m, sizeof(int64_t), cmp_i64);
    kv_ti_floor_many(b, n, tg, m, out);
    for (j = 0; j < m; j++)
        CHECK(out[j] == kv_ti_floor(b, n, tg[j]), "ti many sorted n=%lld", (long long)n);
    /* by relative offset (duplicates allowed): largest slot among equal offsets, count below */
    for (i = 0; i < n; i++) {
        int64_t x, want, got;
        for (x = rel[i] - 1; x <= rel[i] + 1; x++) {
            want = lin_floor64(k64, n, x);
            got = kv_ti_floor_rel(b, n, x);
            CHECK(got == want, "ti floor_rel n=%lld x=%lld got %lld want %lld", (long long)n, (long long)x,
                  (long long)got, (long long)want);
            want = lin_floor64(k64, n, x - 1) + 1; /* entries with rel < x */
            CHECK(kv_ti_count_below_rel(b, n, x) == want, "ti count_below_rel n=%lld x=%lld", (long long)n,
                  (long long)x);
        }
    }
    free(b);
    free(ts);
    free(rel);
    free(tg);
    free(out);
    free(k64);
}

/* arbitrary keys: the kernels pick the same slot as a literal transcription of Kafka's search, stay in
 * range, and the batched path agrees with the scalar one (it must fall back on unsorted keys) */
static void check_garbage(int64_t n)
{
    int32_t *rel = malloc((size_t)(n + 1) * 4), *pos = malloc((size_t)(n + 1) * 4);
    int64_t *k = malloc((size_t)(n + 1) * 8), *tg = malloc(64 * 8), *out = malloc(64 * 8);
    unsigned char *b;
    int64_t i, j;
    if (!rel || !pos || !k || !tg || !out) abort();
    for (i = 0; i < n; i++) {
        rel[i] = (int32_t)rnd_range(-50, 50);
        pos[i] = (int32_t)rnd();
        k[i] = rel[i];
    }
    b = make_oi(rel, pos, n);
    for (j = 0; j < 64; j++) {
        int64_t s;
        tg[j] = rnd_range(-60, 60);
        s = kv_oi_floor(b, n, tg[j]);
        CHECK(s == kafka_floor(k, n, tg[j], KV_OI_WARM_ENTRIES), "garbage floor n=%lld", (long long)n);
        CHECK(s >= -1 && s < n, "garbage floor in range");
    }
    kv_oi_floor_many(b, n, tg, 64, out);
    for (j = 0; j < 64; j++)
        CHECK(out[j] == kv_oi_floor(b, n, tg[j]), "garbage many n=%lld", (long long)n);
    {
        int64_t v = kv_oi_valid_entries(b, n);
        CHECK(v >= 0 && v <= n, "garbage valid in range");
    }
    free(b);
    free(rel);
    free(pos);
    free(k);
    free(tg);
    free(out);
}

static void test_valid_prefix(void)
{
    int32_t rel[8] = { 3, 7, 9, 0, 0, 0, 0, 0 }, pos[8] = { 100, 250, 400, 0, 0, 0, 0, 0 };
    int64_t ts[8] = { 10, 20, 30, 0, 0, 0, 0, 0 };
    int32_t trel[8] = { 1, 1, 5, 0, 0, 0, 0, 0 };
    unsigned char *b;
    int64_t s;

    b = make_oi(rel, pos, 8);
    CHECK(kv_oi_valid_entries(b, 8) == 3, "oi valid then zeros: %lld", (long long)kv_oi_valid_entries(b, 8));
    CHECK(kv_oi_valid_entries(b, 3) == 3, "oi exactly valid");
    CHECK(kv_oi_valid_entries(b, 0) == 0, "oi n=0");
    for (s = 0; s <= 3; s++)
        CHECK(kv_oi_valid_from(b, 8, s) == 3, "oi valid_from %lld", (long long)s);
    CHECK(kv_oi_valid_from(b, 8, 8) == 8, "oi valid_from n");
    free(b);
    b = make_oi(rel + 3, pos + 3, 5); /* all zero */
    CHECK(kv_oi_valid_entries(b, 5) == 0, "oi all zero");
    free(b);
    {
        int32_t r2[3] = { 0, 4, 5 }, p2[3] = { 12, 50, 70 }; /* first offset 0 with a position: fine */
        b = make_oi(r2, p2, 3);
        CHECK(kv_oi_valid_entries(b, 3) == 3, "oi first rel 0");
        free(b);
    }
    {
        int32_t r2[4] = { 1, 4, 4, 9 }, p2[4] = { 12, 50, 70, 90 }; /* repeated offset */
        b = make_oi(r2, p2, 4);
        CHECK(kv_oi_valid_entries(b, 4) == 2, "oi repeated offset");
        free(b);
    }
    {
        int32_t r2[4] = { 1, 4, 6, 9 }, p2[4] = { 12, 50, 50, 90 }; /* repeated position */
        b = make_oi(r2, p2, 4);
        CHECK(kv_oi_valid_entries(b, 4) == 2, "oi repeated position");
        free(b);
    }
    {
        int32_t r2[2] = { -1, 4 }, p2[2] = { 12, 50 };
        b = make_oi(r2, p2, 2);
        CHECK(kv_oi_valid_entries(b, 2) == 0, "oi negative first offset");
        free(b);
    }

    b = make_ti(ts, trel, 8);
    CHECK(kv_ti_valid_entries(b, 8) == 3, "ti valid then zeros: %lld", (long long)kv_ti_valid_entries(b, 8));
    CHECK(kv_ti_valid_from(b, 8, 2) == 3, "ti valid_from");
    free(b);
    b = make_ti(ts + 3, trel + 3, 5);
    CHECK(kv_ti_valid_entries(b, 5) == 0, "ti all zero");
    free(b);
    {
        int64_t t2[3] = { -5, 20, 30 };
        int32_t r2[3] = { 1, 2, 3 };
        b = make_ti(t2, r2, 3);
        CHECK(kv_ti_valid_entries(b, 3) == 0, "ti negative first timestamp");
        free(b);
    }
    {
        int64_t t2[4] = { 0, 20, 20, 30 }; /* timestamp 0 with an offset is a real entry; equal ts stops */
        int32_t r2[4] = { 1, 2, 3, 4 };
        b = make_ti(t2, r2, 4);
        CHECK(kv_ti_valid_entries(b, 4) == 2, "ti equal timestamps");
        free(b);
    }
    {
        int64_t t2[3] = { 5, 20, 30 };
        int32_t r2[3] = { 4, 2, 6 };
        b = make_ti(t2, r2, 3);
        CHECK(kv_ti_valid_entries(b, 3) == 1, "ti decreasing offset");
        free(b);
    }
}

static void test_empty(void)
{
    unsigned char *b = malloc(1);
    int64_t t[2] = { 0, 5 }, out[2] = { 7, 7 };
    if (!b) abort();
    CHECK(kv_oi_floor(b, 0, 5) == -1 && kv_ti_floor(b, 0, 5) == -1 && kv_ti_floor_rel(b, 0, 5) == -1, "empty");
    CHECK(kv_oi_ceil(b, 0, 5) == -1 && kv_oi_count_below(b, 0, 5) == 0, "empty ceil");
    kv_oi_floor_many(b, 0, t, 2, out);
    CHECK(out[0] == -1 && out[1] == -1, "empty many");
    kv_ti_floor_many(b, 0, t, 2, out);
    CHECK(out[0] == -1 && out[1] == -1, "empty many ti");
    free(b);
}

int main(int argc, char **argv)
{
    static const int64_t sizes[] = { 0,    1,    2,    3,    7,    100,  681,  682,  683,  684,  1023,
                                     1024, 1025, 1026, 1027, 2047, 2048, 2049, 4096, 5000, 20000 };
    size_t i;
    if (argc > 1) rng_state = strtoull(argv[1], NULL, 0) | 1u;
    { /* the large-n reference (upper_bound) agrees with the linear scan */
        int32_t k32[4000];
        int64_t k64[4000], t, j, r = 0, lin32, lin64;
        for (j = 0; j < 4000; j++) {
            r += rnd_range(0, 3);
            k32[j] = (int32_t)r;
            k64[j] = r;
        }
        for (t = -2; t <= r + 2; t++) {
            lin32 = -1;
            lin64 = -1;
            for (j = 0; j < 4000; j++)
                if (k32[j] <= t) lin32 = lin64 = j;
            CHECK(lin_floor32(k32, 4000, t) == lin32 && lin_floor64(k64, 4000, t) == lin64, "reference t=%lld",
                  (long long)t);
        }
    }
    test_loads();
    test_empty();
    test_valid_prefix();
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        check_oi_sorted(sizes[i]);
        check_ti_sorted(sizes[i], 0);
        check_ti_sorted(sizes[i], 1);
        check_garbage(sizes[i]);
    }
    for (i = 0; i < 200; i++)
        check_garbage(rnd_range(1, 3000));
    printf("%lu checks, %lu failures\n", checks, failures);
    return failures ? 1 : 0;
}
