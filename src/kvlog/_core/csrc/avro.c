/* Avro binary encoding into Arrow columns: one program per (writer schema, reader schema) pair, with
 * Avro's schema resolution (skipped writer fields, reader defaults, promotions, enum and union mapping)
 * compiled into the ops by kvlog.schemas.avro_plan. See kvlog_typed.h for the ops and their operands.
 *
 * Every read is checked against the payload's end; lengths and counts are checked against the bytes left
 * (or, for items that take no bytes, against d->max_items) before anything is appended, so a damaged
 * payload ends in a status code, never a read past its end or an unbounded allocation.
 */
#include "kvlog_typed.h"
#include "kvlog_utf8.h"

#include <string.h>

#define MAX_DEPTH 128

typedef struct {
    kv_decoder *d;
    const kv_prog *p;
    int32_t op;         /* the op that failed (innermost) */
    int rc;             /* its status */
    const uint8_t *at;  /* where */
    int depth;
} ctx;

static inline int read_long(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t raw = 0;
    for (int shift = 0;; shift += 7) {
        if (p >= end) return KV_E_TRUNCATED;
        uint8_t b = *p++;
        if (shift == 63 && (b & 0x7e)) return KV_E_VARINT;
        raw |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        if (shift == 63) return KV_E_VARINT;
    }
    *pp = p;
    *out = (int64_t)((raw >> 1) ^ (~(raw & 1) + 1));
    return KV_OK;
}

static inline int read_int(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    const uint8_t *p = *pp;
    /* the common case: one byte */
    if (p < end && !(*p & 0x80)) {
        uint32_t u = *p;
        *out = (int32_t)((u >> 1) ^ (~(u & 1) + 1));
        *pp = p + 1;
        return KV_OK;
    }
    int64_t v;
    int rc = read_long(pp, end, &v);
    if (rc) return rc;
    if (v < INT32_MIN || v > INT32_MAX) return KV_E_VARINT;
    *out = (int32_t)v;
    return KV_OK;
}

/* A length or count: at least 0, at most what is left (every byte or item takes a byte at least). */
static inline int read_len(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    int rc = read_long(pp, end, out);
    if (rc) return rc;
    if (*out < 0) return KV_E_LENGTH;
    if (*out > end - *pp) return KV_E_TRUNCATED;
    return KV_OK;
}

static int blob_item(const kv_prog *p, int32_t i, const uint8_t **b, size_t *n)
{
    if (i < 0 || i >= p->nblobs) return KV_E_FAIL;
    *b = p->blob + p->blob_offs[i];
    *n = (size_t)(p->blob_offs[i + 1] - p->blob_offs[i]);
    return KV_OK;
}

/* Big-endian two's complement bytes as a little-endian integer of `w` bytes, checked against `bound`
   (10^precision, little-endian, `w` bytes): |v| < bound. */
static int decimal(const uint8_t *src, size_t n, uint8_t *dst, int32_t w, const uint8_t *bound)
{
    if (n <= 8 && w == 16) {  /* the common case: an int64 and its sign */
        int64_t v = 0;
        if (n) v = (int64_t)(int8_t)src[0];
        for (size_t i = 1; i < n; i++) v = (int64_t)((uint64_t)v << 8) | src[i];
        uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        uint64_t lo, hi;
        memcpy(&lo, bound, 8);
        memcpy(&hi, bound + 8, 8);
        if (!hi && mag >= lo) return KV_E_DECIMAL;
        int64_t top = v < 0 ? -1 : 0;
        memcpy(dst, &v, 8);
        memcpy(dst + 8, &top, 8);
        return KV_OK;
    }
    int neg = n && (src[0] & 0x80);
    uint8_t fill = neg ? 0xFF : 0x00;
    /* drop sign-extension bytes beyond the width */
    while (n > (size_t)w) {
        if (src[0] != fill) return KV_E_DECIMAL;
        src++;
        n--;
    }
    if (n == (size_t)w && ((src[0] & 0x80) != 0) != neg) return KV_E_DECIMAL;
    for (int32_t i = 0; i < w; i++)
        dst[i] = (size_t)i < n ? src[n - 1 - (size_t)i] : fill;
    /* the magnitude against the bound, from the top byte */
    uint8_t mag[32];
    int carry = 1;
    for (int32_t i = 0; i < w; i++) {
        if (neg) {
            int v = (uint8_t)~dst[i] + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        } else {
            mag[i] = dst[i];
        }
    }
    for (int32_t i = w - 1; i >= 0; i--) {
        if (mag[i] != bound[i]) return mag[i] < bound[i] ? KV_OK : KV_E_DECIMAL;
    }
    return KV_E_DECIMAL;  /* equal to 10^precision */
}

/* The ops that read a primitive into a column (or nowhere): inlined into the record loop, where most of them
   run, so a record of scalars is one loop without a call per field. Returns the new position, or NULL with
   x->rc set. */
static inline __attribute__((always_inline)) const uint8_t *leaf(ctx *x, const kv_op *o, kv_col *c, const uint8_t *q, const uint8_t *end)
{
    int rc = KV_OK;
    int32_t iv;
    int64_t lv, n;
    switch (o->code) {
    case KV_A_NULL:
        if (c) rc = kv_col_null_fast(x->d->cols, o->col);
        break;
    case KV_A_BOOL:
        if (q >= end) { rc = KV_E_TRUNCATED; break; }
        if (*q > 1) { rc = KV_E_RANGE; break; }
        if (c) rc = kv_col_bool(c, *q);
        q++;
        break;
    case KV_A_INT:
        if ((rc = read_int(&q, end, &iv))) break;
        if (o->d && (iv < 0 || iv >= 86400000)) { rc = KV_E_RANGE; break; }  /* time-millis: in the day */
        if (c) rc = kv_col_i32(c, iv);
        break;
    case KV_A_LONG:
        if ((rc = read_long(&q, end, &lv))) break;
        if (o->d && (lv < 0 || lv >= 86400000000LL)) { rc = KV_E_RANGE; break; }  /* time-micros: in the day */
        if (c) rc = kv_col_i64(c, lv);
        break;
    case KV_A_FLOAT:
        if (end - q < 4) { rc = KV_E_TRUNCATED; break; }
        if (c) {
            float f;
            memcpy(&f, q, 4);
            rc = kv_col_f32(c, f);
        }
        q += 4;
        break;
    case KV_A_DOUBLE:
        if (end - q < 8) { rc = KV_E_TRUNCATED; break; }
        if (c) {
            double f;
            memcpy(&f, q, 8);
            rc = kv_col_f64(c, f);
        }
        q += 8;
        break;
    case KV_A_BYTES:
    case KV_A_STRING:
        if ((rc = read_len(&q, end, &n))) break;
        if (c) {
            if (o->code == KV_A_STRING && c->utf8 && !kv_utf8_valid(q, (size_t)n)) { rc = KV_E_UTF8; break; }
            rc = kv_col_bytes(c, q, (size_t)n);
        }
        q += n;
        break;
    default:
        rc = KV_E_FAIL;
    }
    if (rc) {
        x->rc = rc;
        x->at = q;
        return NULL;
    }
    return q;
}

static inline int is_leaf(int32_t code)
{
    return code == KV_A_NULL || code == KV_A_BOOL || code == KV_A_INT || code == KV_A_LONG || code == KV_A_FLOAT
        || code == KV_A_DOUBLE || code == KV_A_BYTES || code == KV_A_STRING;
}

static __attribute__((noinline)) int rare(ctx *x, const kv_op *o, kv_col *c, const uint8_t **pp, const uint8_t *end)
{
    const kv_prog *p = x->p;
    const uint8_t *q = *pp;
    int rc = KV_OK;
    int32_t iv;
    int64_t lv, n;
    switch (o->code) {
    case KV_A_INT_LONG:
    case KV_A_INT_FLOAT:
    case KV_A_INT_DOUBLE:
        if ((rc = read_int(&q, end, &iv))) break;
        if (o->d && iv < 0) { rc = KV_E_RANGE; break; }  /* (read as a time of the day) */
        if (!c) break;
        if (o->code == KV_A_INT_LONG) rc = kv_col_i64(c, iv);
        else if (o->code == KV_A_INT_FLOAT) rc = kv_col_f32(c, (float)iv);
        else rc = kv_col_f64(c, (double)iv);
        break;
    case KV_A_LONG_FLOAT:
    case KV_A_LONG_DOUBLE:
        if ((rc = read_long(&q, end, &lv))) break;
        if (!c) break;
        rc = o->code == KV_A_LONG_FLOAT ? kv_col_f32(c, (float)lv) : kv_col_f64(c, (double)lv);
        break;
    case KV_A_FLOAT_DOUBLE:
        if (end - q < 4) { rc = KV_E_TRUNCATED; break; }
        if (c) {
            float f;
            memcpy(&f, q, 4);
            rc = kv_col_f64(c, (double)f);
        }
        q += 4;
        break;
    case KV_A_FIXED:
        if (end - q < o->a) { rc = KV_E_TRUNCATED; break; }
        if (c) rc = c->kind == KV_COL_VAR ? kv_col_bytes(c, q, (size_t)o->a) : kv_col_put(c, q);
        q += o->a;
        break;
    case KV_A_ENUM: {
        if ((rc = read_int(&q, end, &iv))) break;
        if (iv < 0 || iv >= o->b) { rc = KV_E_ENUM; break; }
        if (!c) break;
        int32_t sym = p->kids[o->a + iv];
        const uint8_t *s;
        size_t sn;
        if (sym < 0) { rc = KV_E_ENUM; break; }
        if ((rc = blob_item(p, sym, &s, &sn))) break;
        rc = kv_col_bytes(c, s, sn);
        break;
    }
    case KV_A_DEC_BYTES:
    case KV_A_DEC_FIXED: {
        size_t sn;
        int32_t bound_item = o->code == KV_A_DEC_BYTES ? o->a : o->b;
        if (o->code == KV_A_DEC_BYTES) {
            if ((rc = read_len(&q, end, &n))) break;
        } else {
            n = o->a;
            if (end - q < n) { rc = KV_E_TRUNCATED; break; }
        }
        const uint8_t *src = q;
        q += n;
        if (!c) break;
        const uint8_t *bound;
        if ((rc = blob_item(p, bound_item, &bound, &sn))) break;
        if (sn != (size_t)c->width || c->width > 32) { rc = KV_E_FAIL; break; }
        uint8_t *slot = kv_col_slot(c);
        if (!slot) { rc = KV_E_NOMEM; break; }
        rc = decimal(src, (size_t)n, slot, c->width, bound);
        break;
    }
    case KV_A_DURATION: {
        if (end - q < 12) { rc = KV_E_TRUNCATED; break; }
        if (c) {
            uint32_t months, days, millis;
            memcpy(&months, q, 4);  /* little-endian on the wire, as on every host kvlog builds for */
            memcpy(&days, q + 4, 4);
            memcpy(&millis, q + 8, 4);
            if (months > INT32_MAX || days > INT32_MAX) { rc = KV_E_RANGE; break; }
            uint8_t *slot = kv_col_slot(c);
            if (!slot) { rc = KV_E_NOMEM; break; }
            int32_t m = (int32_t)months, dd = (int32_t)days;
            int64_t ns = (int64_t)millis * 1000000;
            memcpy(slot, &m, 4);
            memcpy(slot + 4, &dd, 4);
            memcpy(slot + 8, &ns, 8);
        }
        q += 12;
        break;
    }
    case KV_A_REST:
        if (c) {
            if (o->a && !kv_utf8_valid(q, (size_t)(end - q))) { rc = KV_E_UTF8; break; }
            rc = kv_col_bytes(c, q, (size_t)(end - q));
        }
        q = end;
        break;
    case KV_A_FAIL:
        rc = o->a ? o->a : KV_E_FAIL;
        break;
    default:
        rc = KV_E_FAIL;
    }
    *pp = q;
    return rc;
}

static const uint8_t *exec(ctx *x, int32_t i, const uint8_t *q, const uint8_t *end);
static const uint8_t *step_call(ctx *x, int32_t i, const uint8_t *q, const uint8_t *end);

/* The blocks of an array or a map. Returns a status: 0, or a code with x->rc still 0 (a failure of the
   blocks' own framing), or with x->rc set (a failure inside an item, already located). */
static int exec_items(ctx *x, const kv_op *o, const uint8_t **pp, const uint8_t *end, int map)
{
    kv_col *cols = x->d->cols;
    kv_col *entries = NULL, *keys = NULL;
    int64_t zero_items = 0;
    int rc;
    if (map && o->col >= 0) {
        entries = &cols[cols[o->col].child[0]];
        keys = &cols[entries->child[0]];
    }
    const kv_op *item = (o->a >= 0 && o->a < x->p->nops) ? &x->p->ops[o->a] : NULL;
    int item_leaf = item && is_leaf(item->code);
    kv_col *item_col = item && item->col >= 0 ? &cols[item->col] : NULL;
    for (;;) {
        int64_t count;
        if ((rc = read_long(pp, end, &count))) return rc;
        if (count == 0) break;
        if (count < 0) {
            int64_t size;
            if (count == INT64_MIN) return KV_E_LENGTH;
            count = -count;
            if ((rc = read_len(pp, end, &size))) return rc;
            if (o->col < 0 && !o->d) {  /* a skipped block with its size: jump over it */
                *pp += size;
                continue;
            }
        }
        if (!map && o->d) {
            zero_items += count;
            if (zero_items > x->d->max_items) return KV_E_LIMIT;
        } else if (count > end - *pp) {
            return KV_E_TRUNCATED;
        }
        for (int64_t k = 0; k < count; k++) {
            if (map) {
                int64_t n;
                if ((rc = read_len(pp, end, &n))) return rc;
                if (keys) {
                    if (!kv_utf8_valid(*pp, (size_t)n)) return KV_E_UTF8;
                    if ((rc = kv_col_bytes(keys, *pp, (size_t)n))) return rc;
                }
                *pp += n;
            }
            const uint8_t *r;
            if (item_leaf) {
                if (!(r = leaf(x, item, item_col, *pp, end))) {
                    x->op = o->a;
                    return x->rc;
                }
            } else if (!(r = step_call(x, o->a, *pp, end))) {
                return x->rc;
            }
            *pp = r;
            if (entries && (rc = kv_col_valid(entries))) return rc;
        }
    }
    if (o->col < 0) return KV_OK;
    if (keys) {  /* a key given twice in one map: refused (readers differ on which value wins) */
        int32_t start;
        memcpy(&start, cols[o->col].offs.data + cols[o->col].length * 4, 4);
        int dup = kv_col_has_duplicates(keys, start, entries->length);
        if (dup) return dup < 0 ? KV_E_NOMEM : KV_E_DUPLICATE;
    }
    return kv_col_list_end(cols, &cols[o->col]);
}

static const uint8_t *failed(ctx *x, int32_t i, const uint8_t *q, int rc)
{
    if (!x->rc) {
        x->rc = rc;
        x->at = q;
    }
    if (x->op < 0) x->op = i;
    return NULL;
}

static inline int is_rare(int32_t code)
{
    return code != KV_A_RECORD && code != KV_A_DEFAULT && code != KV_A_UNION && code != KV_A_MEMBER &&
           code != KV_A_ARRAY && code != KV_A_MAP && !is_leaf(code);
}

/* One op where it is met (a record's field, an array's or map's item): a leaf, a union's branch that is a
   leaf, an array or map and the rarer ops run here, without a call into exec; records, members and
   defaults go to exec. */
static inline __attribute__((always_inline)) const uint8_t *step(ctx *x, int32_t i, const uint8_t *q,
                                                                const uint8_t *end)
{
    const kv_prog *p = x->p;
    if ((uint32_t)i >= (uint32_t)p->nops) return failed(x, i, q, KV_E_FAIL);
    const kv_op *o = &p->ops[i];
    int rc;
    if (o->code == KV_A_UNION) {
        int64_t lv;
        if (q < end && !(*q & 0x80)) {  /* a one-byte branch index, as every union short of 64 branches has */
            lv = (int64_t)((*q >> 1) ^ (~(*q & 1) + 1));
            q++;
        } else if ((rc = read_long(&q, end, &lv))) {
            return failed(x, i, q, rc);
        }
        if (lv < 0 || lv >= o->b) return failed(x, i, q, KV_E_UNION);
        i = p->kids[o->a + lv];
        if ((uint32_t)i >= (uint32_t)p->nops) return failed(x, i, q, KV_E_FAIL);
        o = &p->ops[i];
    }
    kv_col *c = o->col >= 0 ? &x->d->cols[o->col] : NULL;
    if (is_leaf(o->code)) {
        const uint8_t *r = leaf(x, o, c, q, end);
        return r ? r : failed(x, i, x->at, x->rc);
    }
    if (o->code == KV_A_ARRAY || o->code == KV_A_MAP) {
        if ((rc = exec_items(x, o, &q, end, o->code == KV_A_MAP))) return x->rc ? NULL : failed(x, i, q, rc);
        return q;
    }
    if (is_rare(o->code)) {
        if ((rc = rare(x, o, c, &q, end))) return failed(x, i, q, rc);
        return q;
    }
    return exec(x, i, q, end);
}

static const uint8_t *exec(ctx *x, int32_t i, const uint8_t *q, const uint8_t *end)
{
    const kv_prog *p = x->p;
    kv_col *cols = x->d->cols;
    if (i < 0 || i >= p->nops) return failed(x, i, q, KV_E_FAIL);
    const kv_op *o = &p->ops[i];
    kv_col *c = o->col >= 0 ? &cols[o->col] : NULL;
    int rc = KV_OK;
    int64_t lv;
    if (is_leaf(o->code)) {
        const uint8_t *r = leaf(x, o, c, q, end);
        return r ? r : failed(x, i, x->at, x->rc);
    }
    if (++x->depth > MAX_DEPTH) return failed(x, i, q, KV_E_DEPTH);
    switch (o->code) {
    case KV_A_RECORD: {
        const int32_t *k = p->kids + o->a;
        for (int32_t j = 0; j < o->b; j++)
            if (!(q = step(x, k[j], q, end))) return NULL;
        if (c && (rc = kv_col_valid(c))) return failed(x, i, q, rc);
        break;
    }
    case KV_A_DEFAULT: {
        const uint8_t *b;
        size_t bn;
        if ((rc = blob_item(p, o->a, &b, &bn))) return failed(x, i, q, rc);
        const uint8_t *r = exec(x, o->b, b, b + bn);
        if (!r || r != b + bn) {  /* a default that does not decode: the plan is wrong */
            x->rc = 0;
            x->op = -1;
            return failed(x, i, q, KV_E_FAIL);
        }
        break;
    }
    case KV_A_UNION:
        if ((rc = read_long(&q, end, &lv))) return failed(x, i, q, rc);
        if (lv < 0 || lv >= o->b) return failed(x, i, q, KV_E_UNION);
        if (!(q = step(x, p->kids[o->a + lv], q, end))) return NULL;
        break;
    case KV_A_MEMBER:
        if (c) {
            for (int32_t k = 0; k < c->nchild; k++)
                if (k != o->a && (rc = kv_col_null(cols, c->child[k]))) return failed(x, i, q, rc);
        }
        if (!(q = exec(x, o->b, q, end))) return NULL;
        if (c && (rc = kv_col_valid(c))) return failed(x, i, q, rc);
        break;
    case KV_A_ARRAY:
    case KV_A_MAP:
        if ((rc = exec_items(x, o, &q, end, o->code == KV_A_MAP))) return x->rc ? NULL : failed(x, i, q, rc);
        break;
    default:
        if ((rc = rare(x, o, c, &q, end))) return failed(x, i, q, rc);
    }
    x->depth--;
    return q;
}

static const uint8_t *step_call(ctx *x, int32_t i, const uint8_t *q, const uint8_t *end)
{
    return step(x, i, q, end);
}

int kv_avro_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op)
{
    ctx x = {d, p, -1, KV_OK, NULL, 0};
    const uint8_t *q = exec(&x, 0, *pp, end);
    *op = x.op;
    if (!q) {
        *pp = x.at ? x.at : *pp;
        return x.rc ? x.rc : KV_E_FAIL;
    }
    *pp = q;
    return KV_OK;
}
