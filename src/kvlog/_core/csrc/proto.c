/* Protobuf binary encoding into Arrow columns. See kvlog_typed.h for the ops.
 *
 * Fields come in any order and a singular field may come more than once (the last wins; a message field's
 * occurrences merge), so a message is read in two steps: its bytes are walked once, each singular field's
 * last value (or, for a message field, the list of its occurrences' spans) kept in the field op's slot and
 * each repeated field's items appended at once; then the message's fields are emitted in the struct's order,
 * nested messages read from their spans. Every column path has its own ops and slots (a plan has no recursion), so one
 * message per op is being read at a time and the slots need no stack.
 *
 * As protobuf's own parsers do, a field whose wire type is not its type's is kept as an unknown field
 * (skipped), and so is a field number the plan does not read (fields left out of a projection too).
 */
#include "kvlog_typed.h"
#include "kvlog_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

typedef struct {
    const uint8_t *p;
    int64_t n;
    int32_t next;       /* the next occurrence's span in the pool, or -1 */
} span;

typedef struct {
    int32_t count;      /* occurrences in the message being read */
    int32_t head, tail; /* a message field: its occurrences' spans in the pool (-1: none) */
    union {
        int64_t i;
        double f;
    } v;
    span s;             /* a string or bytes field: its last value */
} slot;

typedef struct {
    kv_decoder *d;
    const kv_prog *p;
    slot *slots;
    int32_t op;
    int rc;
    const uint8_t *at;
} ctx;

/* A span added to the pool (the decoder's, emptied for each payload); its index, or -1 out of memory. */
static int32_t pool_add(ctx *x, const uint8_t *p, int64_t n)
{
    kv_gbuf *g = &x->d->spans;
    if (g->len / sizeof(span) >= (size_t)INT32_MAX) return -1;
    if (kv_gbuf_reserve(g, sizeof(span)) != KV_OK) return -1;
    span sp = {p, n, -1};
    memcpy(g->data + g->len, &sp, sizeof(span));
    g->len += sizeof(span);
    return (int32_t)(g->len / sizeof(span) - 1);
}

static inline span *pool_at(ctx *x, int32_t i)
{
    return (span *)(x->d->spans.data) + i;
}

static int fail(ctx *x, int32_t op, const uint8_t *at, int rc)
{
    if (!x->rc) {
        x->rc = rc;
        x->op = op;
        x->at = at;
    }
    return rc;
}

static inline int varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(*p & 0x80)) {
        *out = *p;
        *pp = p + 1;
        return KV_OK;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= end) return KV_E_TRUNCATED;
        uint8_t b = *p++;
        if (shift == 63 && (b & 0x7e)) return KV_E_VARINT;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            *pp = p;
            return KV_OK;
        }
    }
    return KV_E_VARINT;
}

static int wire_of(int32_t type)
{
    switch (type) {
    case KV_PT_DOUBLE: case KV_PT_FIXED64: case KV_PT_SFIXED64: return WT_I64;
    case KV_PT_FLOAT: case KV_PT_FIXED32: case KV_PT_SFIXED32: return WT_I32;
    case KV_PT_STRING: case KV_PT_BYTES: case KV_PT_MESSAGE: return WT_LEN;
    case KV_PT_GROUP: return WT_SGROUP;
    default: return WT_VARINT;
    }
}

/* Skip one field's value of wire type `wt` (a group: to its end tag, `num` being its field number). */
static int skip(const uint8_t **pp, const uint8_t *end, int wt, uint32_t num, int depth)
{
    uint64_t v;
    int rc;
    switch (wt) {
    case WT_VARINT: return varint(pp, end, &v);
    case WT_I64:
        if (end - *pp < 8) return KV_E_TRUNCATED;
        *pp += 8;
        return KV_OK;
    case WT_I32:
        if (end - *pp < 4) return KV_E_TRUNCATED;
        *pp += 4;
        return KV_OK;
    case WT_LEN:
        if ((rc = varint(pp, end, &v))) return rc;
        if (v > (uint64_t)(end - *pp)) return KV_E_TRUNCATED;
        *pp += v;
        return KV_OK;
    case WT_SGROUP:
        if (depth > MAX_DEPTH) return KV_E_DEPTH;
        for (;;) {
            uint64_t tag;
            if ((rc = varint(pp, end, &tag))) return rc;
            int w = (int)(tag & 7);
            if (w == WT_EGROUP) return (tag >> 3) == num ? KV_OK : KV_E_WIRETYPE;
            if ((rc = skip(pp, end, w, (uint32_t)(tag >> 3), depth + 1))) return rc;
        }
    default:
        return KV_E_WIRETYPE;
    }
}

/* The content of a group whose start tag was just read: [start, end tag), and *pp after the end tag. */
static int group_span(const uint8_t **pp, const uint8_t *end, uint32_t num, span *out)
{
    const uint8_t *start = *pp;
    for (;;) {
        const uint8_t *here = *pp;
        uint64_t tag;
        int rc = varint(pp, end, &tag);
        if (rc) return rc;
        int w = (int)(tag & 7);
        if (w == WT_EGROUP) {
            if ((tag >> 3) != num) return KV_E_WIRETYPE;
            out->p = start;
            out->n = here - start;
            return KV_OK;
        }
        if ((rc = skip(pp, end, w, (uint32_t)(tag >> 3), 1))) return rc;
    }
}

static int32_t field_op(const kv_prog *p, const kv_op *m, uint64_t num)
{
    if (m->b > 0)
        return num < (uint64_t)m->b ? p->kids[m->a + (int64_t)num] : -1;
    int32_t lo = 0, hi = -m->b - 1;
    const int32_t *pairs = p->kids + m->a;
    while (lo <= hi) {
        int32_t mid = (lo + hi) >> 1;
        int64_t at = pairs[2 * mid];
        if (at == (int64_t)num) return pairs[2 * mid + 1];
        if (at < (int64_t)num) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* A scalar's value as it is kept: integers as int64 (unsigned bits for uint64/fixed64), floats as double. */
static int read_scalar(int32_t type, const uint8_t **pp, const uint8_t *end, int64_t *iv, double *fv)
{
    uint64_t u;
    int rc;
    switch (type) {
    case KV_PT_DOUBLE:
        if (end - *pp < 8) return KV_E_TRUNCATED;
        memcpy(fv, *pp, 8);
        *pp += 8;
        return KV_OK;
    case KV_PT_FLOAT: {
        float f;
        if (end - *pp < 4) return KV_E_TRUNCATED;
        memcpy(&f, *pp, 4);
        *fv = f;
        *pp += 4;
        return KV_OK;
    }
    case KV_PT_FIXED64: case KV_PT_SFIXED64:
        if (end - *pp < 8) return KV_E_TRUNCATED;
        memcpy(&u, *pp, 8);
        *iv = (int64_t)u;
        *pp += 8;
        return KV_OK;
    case KV_PT_FIXED32: {
        uint32_t w;
        if (end - *pp < 4) return KV_E_TRUNCATED;
        memcpy(&w, *pp, 4);
        *iv = w;
        *pp += 4;
        return KV_OK;
    }
    case KV_PT_SFIXED32: {
        int32_t w;
        if (end - *pp < 4) return KV_E_TRUNCATED;
        memcpy(&w, *pp, 4);
        *iv = w;
        *pp += 4;
        return KV_OK;
    }
    default:
        if ((rc = varint(pp, end, &u))) return rc;
        switch (type) {
        case KV_PT_INT32: case KV_PT_ENUM: *iv = (int32_t)(uint32_t)u; break;
        case KV_PT_UINT32: *iv = (uint32_t)u; break;
        case KV_PT_SINT32: {
            uint32_t w = (uint32_t)u;
            *iv = (int32_t)((w >> 1) ^ (~(w & 1) + 1));
            break;
        }
        case KV_PT_SINT64: *iv = (int64_t)((u >> 1) ^ (~(u & 1) + 1)); break;
        case KV_PT_BOOL: *iv = u != 0; break;
        default: *iv = (int64_t)u;
        }
        return KV_OK;
    }
}

static int put_enum(const kv_prog *p, kv_col *c, int32_t table, int64_t number)
{
    int32_t n = p->kids[table];
    const int32_t *pairs = p->kids + table + 1;
    int32_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) >> 1;
        if (pairs[2 * mid] == number) {
            int32_t item = pairs[2 * mid + 1];
            if (item < 0 || item >= p->nblobs) return KV_E_FAIL;
            return kv_col_bytes(c, p->blob + p->blob_offs[item],
                                (size_t)(p->blob_offs[item + 1] - p->blob_offs[item]));
        }
        if (pairs[2 * mid] < number) lo = mid + 1;
        else hi = mid - 1;
    }
    char text[24];  /* a number the schema does not name (an open enum): kept as its digits */
    int len = snprintf(text, sizeof text, "%lld", (long long)number);
    return kv_col_bytes(c, (const uint8_t *)text, (size_t)len);
}

static int put_scalar(const kv_prog *p, kv_col *c, const kv_op *f, int64_t iv, double fv)
{
    switch (f->b) {
    case KV_PT_DOUBLE: return kv_col_f64(c, fv);
    case KV_PT_FLOAT: return kv_col_f32(c, (float)fv);
    case KV_PT_BOOL: return kv_col_bool(c, iv != 0);
    case KV_PT_ENUM: return put_enum(p, c, f->d, iv);
    case KV_PT_INT32: case KV_PT_SINT32: case KV_PT_SFIXED32: return kv_col_i32(c, (int32_t)iv);
    case KV_PT_UINT32: case KV_PT_FIXED32: return kv_col_i32(c, (int32_t)(uint32_t)iv);
    default: return kv_col_i64(c, iv);
    }
}

static int put_bytes(kv_col *c, int32_t type, const uint8_t *s, int64_t n)
{
    if (type == KV_PT_STRING && c->utf8 && !kv_utf8_valid(s, (size_t)n)) return KV_E_UTF8;
    return kv_col_bytes(c, s, (size_t)n);
}

static int value_of(ctx *x, int32_t mi, int32_t head, int depth);

/* Whether a closed enum's table names `number`. */
static int enum_names(const kv_prog *p, int32_t table, int64_t number)
{
    int32_t n = p->kids[table];
    const int32_t *pairs = p->kids + table + 1;
    int32_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) >> 1;
        if (pairs[2 * mid] == number) return 1;
        if (pairs[2 * mid] < number) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

/* A field's default: its declared default (a blob item), else zero or empty. */
static int put_default(ctx *x, kv_col *c, const kv_op *f)
{
    const kv_prog *p = x->p;
    const uint8_t *b = NULL;
    int64_t bn = 0;
    if (f->f >= 0 && f->f < p->nblobs) {
        b = p->blob + p->blob_offs[f->f];
        bn = p->blob_offs[f->f + 1] - p->blob_offs[f->f];
    }
    if (f->b == KV_PT_STRING || f->b == KV_PT_BYTES) return put_bytes(c, f->b, b ? b : (const uint8_t *)"", bn);
    int64_t iv = 0;
    double fv = 0;
    if (b && bn == 8) {
        memcpy(&iv, b, 8);
        memcpy(&fv, b, 8);
    }
    return put_scalar(p, c, f, iv, fv);
}

/* One message's bytes walked into its fields' slots (singular) and columns (repeated). */
static int walk(ctx *x, int32_t mi, const uint8_t *q, const uint8_t *end, int depth)
{
    const kv_prog *p = x->p;
    const kv_op *m = &p->ops[mi];
    kv_col *cols = x->d->cols;
    int rc;
    while (q < end) {
        const uint8_t *tag_at = q;
        uint64_t tag;
        if ((rc = varint(&q, end, &tag))) return fail(x, mi, tag_at, rc);
        uint64_t num = tag >> 3;
        int wt = (int)(tag & 7);
        if (num == 0 || num > 536870911) return fail(x, mi, tag_at, KV_E_WIRETYPE);
        int32_t fi = field_op(p, m, num);
        const kv_op *f = (fi >= 0 && fi < p->nops) ? &p->ops[fi] : NULL;
        int want = f ? wire_of(f->b) : -1;
        int packed = f && (f->c & KV_PF_REPEATED) && wt == WT_LEN && want != WT_LEN && want != WT_SGROUP;
        if (!f || (wt != want && !packed)) {  /* unknown, or a wire type that is not the field's: skipped */
            if ((rc = skip(&q, end, wt, (uint32_t)num, depth + 1))) return fail(x, mi, tag_at, rc);
            continue;
        }
        slot *s = &x->slots[fi];
        kv_col *c = f->col >= 0 ? &cols[f->col] : NULL;
        if (f->c & KV_PF_REPEATED) {
            kv_col *item = c ? &cols[c->child[0]] : NULL;
            if (packed) {
                uint64_t len;
                if ((rc = varint(&q, end, &len))) return fail(x, fi, q, rc);
                if (len > (uint64_t)(end - q)) return fail(x, fi, q, KV_E_TRUNCATED);
                const uint8_t *pe = q + len;
                while (q < pe) {
                    int64_t iv = 0;
                    double fv = 0;
                    if ((rc = read_scalar(f->b, &q, pe, &iv, &fv))) return fail(x, fi, q, rc);
                    if ((f->c & KV_PF_CLOSED) && !enum_names(p, f->d, iv)) continue;  /* an unknown field */
                    if (item && (rc = put_scalar(p, item, f, iv, fv))) return fail(x, fi, q, rc);
                }
                continue;
            }
            if (want == WT_LEN || want == WT_SGROUP) {
                span sp;
                if (want == WT_SGROUP) {
                    if ((rc = group_span(&q, end, (uint32_t)num, &sp))) return fail(x, fi, q, rc);
                } else {
                    uint64_t len;
                    if ((rc = varint(&q, end, &len))) return fail(x, fi, q, rc);
                    if (len > (uint64_t)(end - q)) return fail(x, fi, q, KV_E_TRUNCATED);
                    sp.p = q;
                    sp.n = (int64_t)len;
                    q += len;
                }
                if (!item) continue;
                if (f->c & KV_PF_MAP) {  /* entries kept until the message ends: a key given twice keeps its last */
                    int32_t node = pool_add(x, sp.p, sp.n);
                    if (node < 0) return fail(x, fi, sp.p, KV_E_NOMEM);
                    if (s->count == 0 || s->head < 0) s->head = node;
                    else pool_at(x, s->tail)->next = node;
                    s->tail = node;
                    s->count++;
                } else if (f->b == KV_PT_STRING || f->b == KV_PT_BYTES) {
                    if ((rc = put_bytes(item, f->b, sp.p, sp.n))) return fail(x, fi, sp.p, rc);
                } else {
                    int32_t one = pool_add(x, sp.p, sp.n);
                    if (one < 0) return fail(x, fi, sp.p, KV_E_NOMEM);
                    if ((rc = value_of(x, f->d, one, depth + 1))) return rc;
                }
                continue;
            }
            int64_t iv = 0;
            double fv = 0;
            if ((rc = read_scalar(f->b, &q, end, &iv, &fv))) return fail(x, fi, q, rc);
            if ((f->c & KV_PF_CLOSED) && !enum_names(p, f->d, iv)) continue;  /* an unknown field */
            if (item && (rc = put_scalar(p, item, f, iv, fv))) return fail(x, fi, q, rc);
            continue;
        }
        if (want == WT_LEN || want == WT_SGROUP) {
            span sp;
            if (want == WT_SGROUP) {
                if ((rc = group_span(&q, end, (uint32_t)num, &sp))) return fail(x, fi, q, rc);
            } else {
                uint64_t len;
                if ((rc = varint(&q, end, &len))) return fail(x, fi, q, rc);
                if (len > (uint64_t)(end - q)) return fail(x, fi, q, KV_E_TRUNCATED);
                sp.p = q;
                sp.n = (int64_t)len;
                q += len;
            }
            if (f->b == KV_PT_MESSAGE || f->b == KV_PT_GROUP) {  /* occurrences merge: every span kept */
                int32_t node = pool_add(x, sp.p, sp.n);
                if (node < 0) return fail(x, fi, sp.p, KV_E_NOMEM);
                if (s->count == 0 || s->head < 0) s->head = node;
                else pool_at(x, s->tail)->next = node;
                s->tail = node;
            } else {
                s->s = sp;
            }
        } else {
            int64_t iv = 0;
            double fv = 0;
            if ((rc = read_scalar(f->b, &q, end, &iv, &fv))) return fail(x, fi, q, rc);
            if ((f->c & KV_PF_CLOSED) && !enum_names(p, f->d, iv)) continue;  /* an unknown field */
            if (f->b == KV_PT_DOUBLE || f->b == KV_PT_FLOAT) s->v.f = fv;
            else s->v.i = iv;
        }
        s->count++;
        if (f->e >= 0) {
            slot *g = &x->slots[f->e];
            if (g->count && g->v.i != fi) {  /* another member of the oneof was set before: it is cleared */
                slot *other = &x->slots[g->v.i];
                other->count = 0;
                other->head = other->tail = -1;
            }
            g->v.i = fi;
            g->count = 1;
        }
    }
    return KV_OK;
}

/* A map entry's key (field 1) as it compares: a number's value, or a string's bytes. */
typedef struct {
    int64_t number;
    const uint8_t *p;
    int64_t n;
} map_key;

static int entry_key(const kv_op *kf, const span *sp, map_key *out)
{
    const uint8_t *q = sp->p, *end = sp->p + sp->n;
    out->number = 0;
    out->p = (const uint8_t *)"";
    out->n = 0;
    int want = wire_of(kf->b);
    while (q < end) {
        uint64_t tag;
        int rc = varint(&q, end, &tag);
        if (rc) return rc;
        int wt = (int)(tag & 7);
        if ((tag >> 3) == 1 && wt == want) {  /* (the last key of an entry wins, as the value's last does) */
            if (want == WT_LEN) {
                uint64_t len;
                if ((rc = varint(&q, end, &len))) return rc;
                if (len > (uint64_t)(end - q)) return KV_E_TRUNCATED;
                out->p = q;
                out->n = (int64_t)len;
                q += len;
            } else {
                double unused;
                if ((rc = read_scalar(kf->b, &q, end, &out->number, &unused))) return rc;
            }
        } else if ((rc = skip(&q, end, wt, (uint32_t)(tag >> 3), 1))) {
            return rc;
        }
    }
    return KV_OK;
}

static int same_key(const map_key *a, const map_key *b)
{
    return a->number == b->number && a->n == b->n && (a->n == 0 || !memcmp(a->p, b->p, (size_t)a->n));
}

typedef struct {
    uint64_t hash;
    int32_t i;
} hashed;

static int by_hash_then_index(const void *a, const void *b)
{
    const hashed *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* superseded[i] = 1 for each key that comes again later (every pair for a few keys, else through a sort). */
static int mark_superseded(const map_key *keys, int32_t n, uint8_t *superseded)
{
    if (n <= 32) {
        for (int32_t i = 0; i < n; i++)
            for (int32_t j = i + 1; j < n && !superseded[i]; j++)
                superseded[i] = (uint8_t)same_key(&keys[i], &keys[j]);
        return KV_OK;
    }
    hashed *h = malloc((size_t)n * sizeof(hashed));
    if (!h) return KV_E_NOMEM;
    for (int32_t i = 0; i < n; i++) {
        uint64_t v = 1469598103934665603ull ^ (uint64_t)keys[i].number;
        for (int64_t k = 0; k < keys[i].n; k++) v = (v ^ keys[i].p[k]) * 1099511628211ull;
        h[i].hash = v * 1099511628211ull;
        h[i].i = i;
    }
    qsort(h, (size_t)n, sizeof(hashed), by_hash_then_index);
    for (int32_t a = 0; a < n; a++)
        for (int32_t b = a + 1; b < n && h[b].hash == h[a].hash && !superseded[h[a].i]; b++)
            if (same_key(&keys[h[a].i], &keys[h[b].i])) superseded[h[a].i] = 1;  /* (b comes later: sorted by index) */
    free(h);
    return KV_OK;
}

/* A map field's entries, each read once its key's last occurrence is known: the entries whose key comes again
   later are left out (protobuf keeps a map key's last entry); the others keep their order. */
static int map_entries(ctx *x, int32_t fi, const kv_op *f, int depth)
{
    const kv_prog *p = x->p;
    const slot *s = &x->slots[fi];
    int32_t n = 0;
    for (int32_t k = s->head; k >= 0; k = pool_at(x, k)->next) n++;
    if (!n) return KV_OK;
    const kv_op *entry = &p->ops[f->d];
    const kv_op *kf = &p->ops[p->kids[entry->c]];  /* the entry's first field: its key */
    int32_t *nodes = malloc((size_t)n * sizeof(int32_t));
    map_key *keys = malloc((size_t)n * sizeof(map_key));
    int rc = (!nodes || !keys) ? KV_E_NOMEM : KV_OK;
    int32_t m = 0;
    for (int32_t k = s->head; !rc && k >= 0; k = pool_at(x, k)->next) {
        nodes[m] = k;
        rc = entry_key(kf, pool_at(x, k), &keys[m]);
        m++;
    }
    uint8_t *superseded = rc ? NULL : calloc((size_t)n, 1);
    if (!rc && !superseded) rc = KV_E_NOMEM;
    if (!rc) rc = mark_superseded(keys, n, superseded);
    for (int32_t i = 0; !rc && i < n; i++) {
        if (superseded[i]) continue;
        span *sp = pool_at(x, nodes[i]);
        int32_t next = sp->next;
        sp->next = -1;  /* (one entry: its own list for the moment it is read) */
        rc = value_of(x, f->d, nodes[i], depth + 1);
        pool_at(x, nodes[i])->next = next;
    }
    free(nodes);
    free(keys);
    free(superseded);
    if (rc == KV_E_NOMEM) return fail(x, fi, NULL, rc);
    if (rc && !x->rc) return fail(x, fi, NULL, rc);
    return rc;
}

/* The message's fields in the struct's order, from its slots. */
static int emit(ctx *x, int32_t mi, int depth)
{
    const kv_prog *p = x->p;
    const kv_op *m = &p->ops[mi];
    kv_col *cols = x->d->cols;
    int rc;
    for (int32_t k = 0; k < m->d; k++) {
        int32_t fi = p->kids[m->c + k];
        const kv_op *f = &p->ops[fi];
        kv_col *c = f->col >= 0 ? &cols[f->col] : NULL;
        if (!c) continue;
        if (f->c & KV_PF_REPEATED) {
            if ((f->c & KV_PF_MAP) && (rc = map_entries(x, fi, f, depth))) return rc;
            if ((rc = kv_col_list_end(cols, c))) return fail(x, fi, NULL, rc);
            continue;
        }
        const slot *s = &x->slots[fi];
        if (s->count == 0) {
            if ((f->c & KV_PF_ZERO) && (f->b == KV_PT_MESSAGE || f->b == KV_PT_GROUP)) {
                if ((rc = value_of(x, f->d, -1, depth + 1))) return rc;
            } else if ((f->c & KV_PF_PRESENCE) || f->e >= 0 || f->b == KV_PT_MESSAGE || f->b == KV_PT_GROUP) {
                if ((rc = kv_col_null(cols, f->col))) return fail(x, fi, NULL, rc);
            } else if ((rc = put_default(x, c, f))) {
                return fail(x, fi, NULL, rc);
            }
            continue;
        }
        switch (f->b) {
        case KV_PT_MESSAGE:
        case KV_PT_GROUP:
            if ((rc = value_of(x, f->d, s->head, depth + 1))) return rc;
            break;
        case KV_PT_STRING:
        case KV_PT_BYTES:
            if ((rc = put_bytes(c, f->b, s->s.p, s->s.n))) return fail(x, fi, s->s.p, rc);
            break;
        default:
            if ((rc = put_scalar(p, c, f, s->v.i, s->v.f))) return fail(x, fi, NULL, rc);
        }
    }
    if (m->col >= 0 && (rc = kv_col_valid(&cols[m->col]))) return fail(x, mi, NULL, rc);
    return KV_OK;
}

static void reset(ctx *x, const kv_op *m)
{
    const kv_prog *p = x->p;
    for (int32_t k = 0; k < m->d; k++) {
        slot *s = &x->slots[p->kids[m->c + k]];
        s->count = 0;
        s->head = s->tail = -1;
        s->v.i = 0;
    }
    for (int32_t g = 0; g < m->f; g++) {
        x->slots[m->e + g].count = 0;
        x->slots[m->e + g].v.i = -1;
    }
}

/* A well-known type's fields 1 and 2 (as int64) from its spans (the last occurrence wins). */
static int two_fields(ctx *x, int32_t mi, int32_t head, int32_t t1, int32_t t2, int64_t *v1, double *f1, int64_t *v2)
{
    for (int32_t k = head; k >= 0; k = pool_at(x, k)->next) {
        const uint8_t *q = pool_at(x, k)->p, *end = q + pool_at(x, k)->n;
        while (q < end) {
            uint64_t tag;
            int rc = varint(&q, end, &tag);
            if (rc) return fail(x, mi, q, rc);
            uint64_t num = tag >> 3;
            int wt = (int)(tag & 7);
            double dummy;
            if (num == 1 && t1 && wt == wire_of(t1) && t1 != KV_PT_STRING && t1 != KV_PT_BYTES) {
                if ((rc = read_scalar(t1, &q, end, v1, f1))) return fail(x, mi, q, rc);
            } else if (num == 2 && t2 && wt == wire_of(t2)) {
                if ((rc = read_scalar(t2, &q, end, v2, &dummy))) return fail(x, mi, q, rc);
            } else if ((rc = skip(&q, end, wt, (uint32_t)num, 1))) {
                return fail(x, mi, q, rc);
            }
        }
    }
    return KV_OK;
}

static int nanos(int64_t seconds, int64_t ns, int64_t *out)
{
    if (ns <= -1000000000 || ns >= 1000000000) return KV_E_RANGE;
    __int128 v = (__int128)seconds * 1000000000 + ns;  /* (the smallest timestamp[ns] needs the wide sum) */
    if (v < INT64_MIN || v > INT64_MAX) return KV_E_RANGE;
    *out = (int64_t)v;
    return KV_OK;
}

/* A message value from its spans (a list in the pool from `head`, merged; none: the default instance) into
   the op's column. */
static int value_of(ctx *x, int32_t mi, int32_t head, int depth)
{
    const kv_prog *p = x->p;
    if (mi < 0 || mi >= p->nops) return fail(x, mi, NULL, KV_E_FAIL);
    if (depth > MAX_DEPTH) return fail(x, mi, NULL, KV_E_DEPTH);
    const kv_op *m = &p->ops[mi];
    kv_col *c = m->col >= 0 ? &x->d->cols[m->col] : NULL;
    int rc;
    switch (m->code) {
    case KV_P_MESSAGE:
        reset(x, m);
        for (int32_t k = head; k >= 0; k = pool_at(x, k)->next) {
            const span *sp = pool_at(x, k);  /* (re-read after walking: the pool may have grown and moved) */
            const uint8_t *from = sp->p;
            int64_t n = sp->n;
            if ((rc = walk(x, mi, from, from + n, depth))) return rc;
        }
        return emit(x, mi, depth);
    case KV_P_TIMESTAMP:
    case KV_P_DURATION: {
        int64_t seconds = 0, ns = 0, v;
        double unused = 0;
        if ((rc = two_fields(x, mi, head, KV_PT_INT64, KV_PT_INT32, &seconds, &unused, &ns))) return rc;
        if ((rc = nanos(seconds, ns, &v))) return fail(x, mi, NULL, rc);
        return c ? (kv_col_i64(c, v) ? fail(x, mi, NULL, KV_E_NOMEM) : KV_OK) : KV_OK;
    }
    case KV_P_WRAPPER: {
        if (m->b == KV_PT_STRING || m->b == KV_PT_BYTES) {
            span last = {(const uint8_t *)"", 0, -1};
            for (int32_t k = head; k >= 0; k = pool_at(x, k)->next) {
                const uint8_t *q = pool_at(x, k)->p, *end = q + pool_at(x, k)->n;
                while (q < end) {
                    uint64_t tag, len;
                    if ((rc = varint(&q, end, &tag))) return fail(x, mi, q, rc);
                    if ((tag >> 3) == 1 && (tag & 7) == WT_LEN) {
                        if ((rc = varint(&q, end, &len))) return fail(x, mi, q, rc);
                        if (len > (uint64_t)(end - q)) return fail(x, mi, q, KV_E_TRUNCATED);
                        last.p = q;
                        last.n = (int64_t)len;
                        q += len;
                    } else if ((rc = skip(&q, end, (int)(tag & 7), (uint32_t)(tag >> 3), 1))) {
                        return fail(x, mi, q, rc);
                    }
                }
            }
            if (c && (rc = put_bytes(c, m->b, last.p, last.n))) return fail(x, mi, last.p, rc);
            return KV_OK;
        }
        int64_t iv = 0, unused = 0;
        double fv = 0;
        if ((rc = two_fields(x, mi, head, m->b, 0, &iv, &fv, &unused))) return rc;
        if (c) {
            kv_op as_field = *m;  /* put_scalar reads the type from b, as a field op holds it */
            if ((rc = put_scalar(p, c, &as_field, iv, fv))) return fail(x, mi, NULL, rc);
        }
        return KV_OK;
    }
    case KV_P_RAW: {
        if (!c) return KV_OK;
        size_t total = 0;
        for (int32_t k = head; k >= 0; k = pool_at(x, k)->next) total += (size_t)pool_at(x, k)->n;
        if (kv_gbuf_reserve(&c->data, total) != KV_OK) return fail(x, mi, NULL, KV_E_NOMEM);
        for (int32_t k = head; k >= 0; k = pool_at(x, k)->next) {
            memcpy(c->data.data + c->data.len, pool_at(x, k)->p, (size_t)pool_at(x, k)->n);
            c->data.len += (size_t)pool_at(x, k)->n;
        }
        if ((rc = kv_col_end(c, (int64_t)c->data.len))) return fail(x, mi, NULL, rc);
        return KV_OK;
    }
    default:
        return fail(x, mi, NULL, KV_E_FAIL);
    }
}

int kv_proto_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op)
{
    size_t need = (size_t)(p->nslots > 0 ? p->nslots : 1) * sizeof(slot);
    if (need > d->scratch_cap) {
        void *s = realloc(d->scratch, need);
        if (!s) return KV_E_NOMEM;
        d->scratch = s;
        d->scratch_cap = need;
    }
    ctx x = {d, p, (slot *)d->scratch, -1, KV_OK, NULL};
    d->spans.len = 0;
    int32_t whole = pool_add(&x, *pp, end - *pp);
    if (whole < 0) return KV_E_NOMEM;
    int rc = value_of(&x, 0, whole, 0);
    *op = x.op;
    if (rc) {
        if (x.at) *pp = x.at;
        return x.rc ? x.rc : rc;
    }
    *pp = end;
    return KV_OK;
}
