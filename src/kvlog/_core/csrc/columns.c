/* See kvlog_columns.h. */
#include "kvlog_columns.h"
#include "kvlog_mem.h"

#include <stdlib.h>
#include <string.h>

int kv_gbuf_grow(kv_gbuf *g, size_t need)
{
    size_t cap = g->cap ? g->cap * 2 : (g->hint > 256 ? g->hint : 256);
    size_t got = 0;
    uint8_t *d;
    if (cap < need) cap = need;
    if (cap >= KV_BIG_BYTES) {
        if (g->big) {
            d = kv_big_realloc(g->data, g->cap, g->len, cap, &got, 0);
        } else {
            d = kv_big_alloc(cap, &got, 0);
            if (d && g->len) memcpy(d, g->data, g->len);
            if (d) free(g->data);
        }
        if (!d) return KV_E_NOMEM;
        g->big = 1;
        cap = got;
    } else {
        d = realloc(g->data, cap);
        if (!d) return KV_E_NOMEM;
    }
    g->data = d;
    g->cap = cap;
    return KV_OK;
}

void kv_gbuf_free(kv_gbuf *g)
{
    if (g->big) kv_big_free(g->data, g->cap);
    else free(g->data);
    g->data = NULL;
    g->len = g->cap = 0;
    g->big = 0;
    g->hint = 0;
}

int kv_cols_init(kv_col *cols, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        kv_col *c = &cols[i];
        c->length = c->nulls = 0;
        c->bitmap = 0;
        c->child0 = c->nchild ? c->child[0] : -1;
        c->valid.len = c->data.len = c->offs.len = 0;
        if (c->kind == KV_COL_VAR || c->kind == KV_COL_LIST) {
            if (kv_gbuf_reserve(&c->offs, 4) != KV_OK) return KV_E_NOMEM;
            memset(c->offs.data, 0, 4);
            c->offs.len = 4;
        }
    }
    return KV_OK;
}

void kv_cols_free(kv_col *cols, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        kv_gbuf_free(&cols[i].valid);
        kv_gbuf_free(&cols[i].data);
        kv_gbuf_free(&cols[i].offs);
    }
}

void kv_cols_mark(const kv_col *cols, int32_t n, kv_mark *marks)
{
    for (int32_t i = 0; i < n; i++) {
        marks[i].length = cols[i].length;
        marks[i].nulls = cols[i].nulls;
        marks[i].data_len = cols[i].data.len;
    }
}

void kv_cols_rollback(kv_col *cols, int32_t n, const kv_mark *marks)
{
    for (int32_t i = 0; i < n; i++) {
        kv_col *c = &cols[i];
        c->length = marks[i].length;
        c->nulls = marks[i].nulls;
        c->data.len = marks[i].data_len;
        if (c->bitmap) c->valid.len = (size_t)((c->length + 7) >> 3);
        if (c->kind == KV_COL_VAR || c->kind == KV_COL_LIST)
            c->offs.len = (size_t)(c->length + 1) * 4;
    }
}

/* A slot at the end of column `i`, valid (`on`) or null, with zero or empty contents. */
static int slot(kv_col *cols, int32_t i, int on, int depth)
{
    kv_col *c = &cols[i];
    int rc;
    if (depth > 256) return KV_E_DEPTH;
    switch (c->kind) {
    case KV_COL_NULL:
        c->length++;
        c->nulls++;
        return KV_OK;
    case KV_COL_BOOL:
        if ((rc = kv_col_bit(&c->data, c->length, 0))) return rc;
        break;
    case KV_COL_FIXED:
        if ((rc = kv_gbuf_reserve(&c->data, (size_t)c->width))) return rc;
        memset(c->data.data + c->data.len, 0, (size_t)c->width);
        c->data.len += (size_t)c->width;
        break;
    case KV_COL_VAR:
        if ((rc = kv_gbuf_reserve(&c->offs, 4))) return rc;
        {
            int32_t e = (int32_t)c->data.len;
            memcpy(c->offs.data + c->offs.len, &e, 4);
            c->offs.len += 4;
        }
        break;
    case KV_COL_LIST:
        if ((rc = kv_gbuf_reserve(&c->offs, 4))) return rc;
        {
            int32_t e = (int32_t)cols[c->child0].length;
            memcpy(c->offs.data + c->offs.len, &e, 4);
            c->offs.len += 4;
        }
        break;
    case KV_COL_STRUCT:
        /* a null struct's children hold zero values, not nulls: a field that cannot be null never is */
        for (int32_t k = 0; k < c->nchild; k++)
            if ((rc = slot(cols, c->child[k], 1, depth + 1))) return rc;
        break;
    }
    if (!on && !c->bitmap) {  /* the first null: every slot before it was valid */
        size_t bytes = (size_t)((c->length + 8) >> 3);
        if ((rc = kv_gbuf_reserve(&c->valid, bytes))) return rc;
        memset(c->valid.data, 0xFF, bytes);
        c->valid.len = bytes;
        c->bitmap = 1;
    }
    if (c->bitmap && (rc = kv_col_bit(&c->valid, c->length, on))) return rc;
    c->length++;
    if (!on) c->nulls++;
    return KV_OK;
}

int kv_col_null(kv_col *cols, int32_t i) { return slot(cols, i, 0, 0); }

int kv_col_zero(kv_col *cols, int32_t i) { return slot(cols, i, 1, 0); }

typedef struct {
    uint64_t hash;
    int64_t row;
} keyed;

static int by_hash(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static void value_at(const kv_col *c, int64_t row, const uint8_t **p, size_t *n)
{
    if (c->kind == KV_COL_VAR) {
        int32_t a, b;
        memcpy(&a, c->offs.data + row * 4, 4);
        memcpy(&b, c->offs.data + (row + 1) * 4, 4);
        *p = c->data.data + a;
        *n = (size_t)(b - a);
    } else {
        *p = c->data.data + row * c->width;
        *n = (size_t)c->width;
    }
}

static uint64_t fnv64(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int kv_col_has_duplicates(const kv_col *c, int64_t from, int64_t to)
{
    int64_t n = to - from;
    if (n < 2 || (c->kind != KV_COL_VAR && c->kind != KV_COL_FIXED)) return 0;
    if (n <= 16) {  /* a few keys: every pair */
        for (int64_t i = from; i < to; i++) {
            const uint8_t *a;
            size_t an;
            value_at(c, i, &a, &an);
            for (int64_t j = i + 1; j < to; j++) {
                const uint8_t *b;
                size_t bn;
                value_at(c, j, &b, &bn);
                if (an == bn && (an == 0 || !memcmp(a, b, an))) return 1;
            }
        }
        return 0;
    }
    keyed *k = malloc((size_t)n * sizeof(keyed));
    if (!k) return -1;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *p;
        size_t pn;
        value_at(c, from + i, &p, &pn);
        k[i].hash = fnv64(p, pn);
        k[i].row = from + i;
    }
    qsort(k, (size_t)n, sizeof(keyed), by_hash);
    int dup = 0;
    for (int64_t i = 0; i < n && !dup; i++) {
        for (int64_t j = i + 1; j < n && k[j].hash == k[i].hash; j++) {
            const uint8_t *a, *b;
            size_t an, bn;
            value_at(c, k[i].row, &a, &an);
            value_at(c, k[j].row, &b, &bn);
            if (an == bn && (an == 0 || !memcmp(a, b, an))) {
                dup = 1;
                break;
            }
        }
    }
    free(k);
    return dup;
}
