/* JSON (RFC 8259) into Arrow columns, driven by a plan from a JSON Schema, an inferred schema or Kafka
 * Connect's embedded schema. See kvlog_typed.h for the ops.
 *
 * One pass, no tree: each value is parsed where its op says it goes. An object's keys are found through
 * the op's hash table; a field's value is appended to its column as it is met (columns of different
 * fields are independent, so key order does not matter), and fields the object lacks get nulls at its
 * end. A key given twice in one object is refused (its first value is already in the column). Strings are
 * unescaped into the column and checked for UTF-8; numbers are checked against their column's range.
 */
#include "kvlog_typed.h"
#include "kvlog_utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 200

typedef struct {
    kv_decoder *d;
    const kv_prog *p;
    uint64_t *seen;     /* per op: the object instance that last set it */
    uint64_t instance;
    int32_t op;
    int rc;
    const uint8_t *at;
    kv_gbuf tmp;        /* an unescaped key */
} ctx;

static int fail(ctx *x, int32_t op, const uint8_t *at, int rc)
{
    if (!x->rc) {
        x->rc = rc;
        x->op = op;
        x->at = at;
    }
    return rc;
}

static inline const uint8_t *ws(const uint8_t *q, const uint8_t *end)
{
    while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) q++;
    return q;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int hex4(const uint8_t *q, const uint8_t *end, uint32_t *out)
{
    if (end - q < 4) return KV_E_JSON;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(q[i]);
        if (h < 0) return KV_E_JSON;
        v = (v << 4) | (uint32_t)h;
    }
    *out = v;
    return KV_OK;
}

/* The string starting after its opening quote, unescaped onto `out` (NULL: only walked). *pp ends after
   the closing quote. */
static int string_into(const uint8_t **pp, const uint8_t *end, kv_gbuf *out)
{
    const uint8_t *q = *pp;
    for (;;) {
        const uint8_t *run = q;
        while (q < end && *q != '"' && *q != '\\' && *q >= 0x20) q++;
        if (out && q > run) {
            if (kv_gbuf_reserve(out, (size_t)(q - run)) != KV_OK) return KV_E_NOMEM;
            memcpy(out->data + out->len, run, (size_t)(q - run));
            out->len += (size_t)(q - run);
        }
        if (q >= end || *q < 0x20) return KV_E_JSON;
        if (*q == '"') {
            *pp = q + 1;
            return KV_OK;
        }
        q++;  /* a backslash */
        if (q >= end) return KV_E_JSON;
        uint8_t c = *q++, buf[4];
        size_t n = 1;
        switch (c) {
        case '"': case '\\': case '/': buf[0] = c; break;
        case 'b': buf[0] = '\b'; break;
        case 'f': buf[0] = '\f'; break;
        case 'n': buf[0] = '\n'; break;
        case 'r': buf[0] = '\r'; break;
        case 't': buf[0] = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (hex4(q, end, &cp)) return KV_E_JSON;
            q += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - q < 6 || q[0] != '\\' || q[1] != 'u' || hex4(q + 2, end, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return KV_E_UTF8;  /* a lone high surrogate: no UTF-8 for it */
                q += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return KV_E_UTF8;
            }
            if (cp < 0x80) { buf[0] = (uint8_t)cp; n = 1; }
            else if (cp < 0x800) { buf[0] = (uint8_t)(0xC0 | (cp >> 6)); buf[1] = (uint8_t)(0x80 | (cp & 0x3F)); n = 2; }
            else if (cp < 0x10000) {
                buf[0] = (uint8_t)(0xE0 | (cp >> 12)); buf[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
                buf[2] = (uint8_t)(0x80 | (cp & 0x3F)); n = 3;
            } else {
                buf[0] = (uint8_t)(0xF0 | (cp >> 18)); buf[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
                buf[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); buf[3] = (uint8_t)(0x80 | (cp & 0x3F)); n = 4;
            }
            break;
        }
        default:
            return KV_E_JSON;
        }
        if (out) {
            if (kv_gbuf_reserve(out, n) != KV_OK) return KV_E_NOMEM;
            memcpy(out->data + out->len, buf, n);
            out->len += n;
        }
    }
}

/* A JSON number: its extent, and whether it has a fraction or an exponent. */
static int number_span(const uint8_t **pp, const uint8_t *end, int *integral)
{
    const uint8_t *q = *pp;
    *integral = 1;
    if (q < end && *q == '-') q++;
    if (q >= end) return KV_E_JSON;
    if (*q == '0') q++;
    else if (*q >= '1' && *q <= '9') while (q < end && *q >= '0' && *q <= '9') q++;
    else return KV_E_JSON;
    if (q < end && *q == '.') {
        q++;
        if (q >= end || *q < '0' || *q > '9') return KV_E_JSON;
        while (q < end && *q >= '0' && *q <= '9') q++;
        *integral = 0;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (q >= end || *q < '0' || *q > '9') return KV_E_JSON;
        while (q < end && *q >= '0' && *q <= '9') q++;
        *integral = 0;
    }
    *pp = q;
    return KV_OK;
}

static int to_double(const uint8_t *s, const uint8_t *e, double *out)
{
    char buf[512];
    size_t n = (size_t)(e - s);
    if (n >= sizeof buf) return KV_E_RANGE;
    memcpy(buf, s, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);  /* (correctly rounded; Python runs with the C locale's decimal point) */
    return KV_OK;
}

/* An integral number as int64: digits, or a fraction/exponent whose value is a whole number in range. */
static int to_int64(const uint8_t *s, const uint8_t *e, int integral, int64_t *out)
{
    if (integral) {
        const uint8_t *q = s;
        int neg = *q == '-';
        if (neg) q++;
        uint64_t v = 0;
        for (; q < e; q++) {
            uint64_t d = (uint64_t)(*q - '0');
            if (v > (UINT64_MAX - d) / 10) return KV_E_RANGE;
            v = v * 10 + d;
        }
        if (neg) {
            if (v > (uint64_t)INT64_MAX + 1) return KV_E_RANGE;
            *out = (int64_t)(0 - v);
        } else {
            if (v > (uint64_t)INT64_MAX) return KV_E_RANGE;
            *out = (int64_t)v;
        }
        return KV_OK;
    }
    double dv;
    int rc = to_double(s, e, &dv);
    if (rc) return rc;
    if (!(dv == floor(dv)) || dv < -9223372036854775808.0 || dv >= 9223372036854775808.0) return KV_E_TYPE;
    *out = (int64_t)dv;
    return KV_OK;
}

static int skip_value(const uint8_t **pp, const uint8_t *end, int depth);

static int literal(const uint8_t **pp, const uint8_t *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - *pp) < n || memcmp(*pp, word, n)) return KV_E_JSON;
    *pp += n;
    return KV_OK;
}

static int skip_value(const uint8_t **pp, const uint8_t *end, int depth)
{
    const uint8_t *q = ws(*pp, end);
    int rc, integral;
    if (depth > MAX_DEPTH) return KV_E_DEPTH;
    if (q >= end) return KV_E_JSON;
    switch (*q) {
    case '"':
        q++;
        rc = string_into(&q, end, NULL);
        break;
    case '{':
        q = ws(q + 1, end);
        if (q < end && *q == '}') { q++; rc = KV_OK; break; }
        for (;;) {
            q = ws(q, end);
            if (q >= end || *q != '"') return KV_E_JSON;
            q++;
            if ((rc = string_into(&q, end, NULL))) return rc;
            q = ws(q, end);
            if (q >= end || *q != ':') return KV_E_JSON;
            q++;
            if ((rc = skip_value(&q, end, depth + 1))) return rc;
            q = ws(q, end);
            if (q < end && *q == ',') { q++; continue; }
            if (q < end && *q == '}') { q++; break; }
            return KV_E_JSON;
        }
        rc = KV_OK;
        break;
    case '[':
        q = ws(q + 1, end);
        if (q < end && *q == ']') { q++; rc = KV_OK; break; }
        for (;;) {
            if ((rc = skip_value(&q, end, depth + 1))) return rc;
            q = ws(q, end);
            if (q < end && *q == ',') { q++; continue; }
            if (q < end && *q == ']') { q++; break; }
            return KV_E_JSON;
        }
        rc = KV_OK;
        break;
    case 't': rc = literal(&q, end, "true"); break;
    case 'f': rc = literal(&q, end, "false"); break;
    case 'n': rc = literal(&q, end, "null"); break;
    default: rc = number_span(&q, end, &integral);
    }
    if (!rc) *pp = q;
    return rc;
}

static uint32_t fnv(const uint8_t *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
    return h;
}

static int blob(const kv_prog *p, int32_t i, const uint8_t **b, size_t *n)
{
    if (i < 0 || i >= p->nblobs) return KV_E_FAIL;
    *b = p->blob + p->blob_offs[i];
    *n = (size_t)(p->blob_offs[i + 1] - p->blob_offs[i]);
    return KV_OK;
}

static int value(ctx *x, int32_t i, const uint8_t **pp, const uint8_t *end, int depth);

static int put_string(kv_col *c, const uint8_t **pp, const uint8_t *end)
{
    size_t before = c->data.len;
    int rc = string_into(pp, end, &c->data);
    if (rc) {
        c->data.len = before;
        return rc;
    }
    if (c->utf8 && !kv_utf8_valid(c->data.data + before, c->data.len - before)) {
        c->data.len = before;
        return KV_E_UTF8;
    }
    return kv_col_end(c, (int64_t)c->data.len);
}

static int days_from_civil(int64_t y, int64_t m, int64_t d, int64_t *out)
{
    /* days since 1970-01-01 of a proleptic Gregorian date */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *out = era * 146097 + doe - 719468;
    return KV_OK;
}

static int digits(const uint8_t *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int valid_date(int y, int m, int d)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= mdays[m - 1] + (m == 2 && leap);
}

/* RFC 3339 full-date (YYYY-MM-DD) at s, n bytes of it at least. */
static int parse_date(const uint8_t *s, size_t n, int64_t *days)
{
    int y, m, d;
    if (n < 10 || s[4] != '-' || s[7] != '-' || digits(s, 4, &y) || digits(s + 5, 2, &m) || digits(s + 8, 2, &d))
        return KV_E_TYPE;
    if (!valid_date(y, m, d)) return KV_E_TYPE;
    return days_from_civil(y, m, d, days);
}

/* RFC 3339 date-time: YYYY-MM-DD(T|t| )HH:MM:SS(.fraction)?(Z|z|(+|-)HH:MM), as microseconds (UTC). */
static int parse_timestamp(const uint8_t *s, size_t n, int64_t *us)
{
    int64_t days;
    int hh, mi, ss, oh, om;
    if (parse_date(s, n, &days)) return KV_E_TYPE;
    if (n < 19 || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':' ||
        digits(s + 11, 2, &hh) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &ss))
        return KV_E_TYPE;
    if (hh > 23 || mi > 59 || ss > 60) return KV_E_TYPE;
    size_t i = 19;
    int64_t frac = 0;
    if (i < n && s[i] == '.') {
        i++;
        size_t start = i;
        int64_t scale = 100000;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (scale) { frac += (s[i] - '0') * scale; scale /= 10; }
            i++;
        }
        if (i == start) return KV_E_TYPE;
    }
    int64_t offset = 0;
    if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i + 6 <= n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':' && !digits(s + i + 1, 2, &oh) &&
               !digits(s + i + 4, 2, &om) && oh <= 23 && om <= 59) {
        offset = (s[i] == '+' ? 1 : -1) * ((int64_t)oh * 3600 + om * 60);
        i += 6;
    } else {
        return KV_E_TYPE;
    }
    if (i != n) return KV_E_TYPE;
    if (ss == 60) ss = 59;  /* a leap second, as most readers take it */
    int64_t secs = days * 86400 + hh * 3600 + mi * 60 + ss - offset;
    *us = secs * 1000000 + frac;
    return KV_OK;
}

static int b64val(uint8_t c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Standard base64 (padded) of s..s+n appended to out. */
static int base64_into(const uint8_t *s, size_t n, kv_gbuf *out)
{
    if (n % 4) return KV_E_TYPE;
    if (kv_gbuf_reserve(out, n / 4 * 3) != KV_OK) return KV_E_NOMEM;
    for (size_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=' && i + 4 == n && k >= 2) { v[k] = 0; pad++; continue; }
            if (pad || (v[k] = b64val(s[i + k])) < 0) return KV_E_TYPE;
        }
        uint32_t w = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) | ((uint32_t)v[2] << 6) | (uint32_t)v[3];
        out->data[out->len++] = (uint8_t)(w >> 16);
        if (pad < 2) out->data[out->len++] = (uint8_t)(w >> 8);
        if (pad < 1) out->data[out->len++] = (uint8_t)w;
    }
    return KV_OK;
}

/* A string value's raw bytes (no escapes allowed: dates, base64), or KV_E_TYPE. */
static int plain_string(const uint8_t **pp, const uint8_t *end, const uint8_t **s, size_t *n)
{
    const uint8_t *q = *pp;
    if (q >= end || *q != '"') return KV_E_TYPE;
    q++;
    const uint8_t *start = q;
    while (q < end && *q != '"' && *q != '\\' && *q >= 0x20) q++;
    if (q >= end || *q != '"') return KV_E_TYPE;
    *s = start;
    *n = (size_t)(q - start);
    *pp = q + 1;
    return KV_OK;
}

static int object(ctx *x, int32_t i, const kv_op *o, const uint8_t **pp, const uint8_t *end, int depth)
{
    const kv_prog *p = x->p;
    kv_col *cols = x->d->cols;
    kv_col *extra = o->e >= 0 ? &cols[o->e] : NULL;
    size_t extra_start = extra ? extra->data.len : 0;
    int extra_n = 0;
    uint64_t me = ++x->instance;
    const uint8_t *q = ws(*pp + 1, end);
    int rc;
    if (extra && kv_gbuf_reserve(&extra->data, 1) == KV_OK) extra->data.data[extra->data.len++] = '{';
    else if (extra) return KV_E_NOMEM;
    if (q < end && *q == '}') {
        q++;
    } else {
        for (;;) {
            q = ws(q, end);
            if (q >= end || *q != '"') return fail(x, i, q, KV_E_JSON);
            const uint8_t *key_at = q;
            q++;
            const uint8_t *k = q;
            while (q < end && *q != '"' && *q != '\\' && *q >= 0x20) q++;
            size_t kn;
            if (q < end && *q == '"') {
                kn = (size_t)(q - k);
                q++;
            } else {  /* a key with escapes: unescaped into the scratch buffer */
                q = key_at + 1;
                x->tmp.len = 0;
                if ((rc = string_into(&q, end, &x->tmp))) return fail(x, i, q, rc);
                k = x->tmp.data ? x->tmp.data : (const uint8_t *)"";
                kn = x->tmp.len;
            }
            q = ws(q, end);
            if (q >= end || *q != ':') return fail(x, i, q, KV_E_JSON);
            q = ws(q + 1, end);
            int32_t pos = -1;
            if (o->b > 0) {
                uint32_t m = (uint32_t)o->b - 1;
                for (uint32_t h = fnv(k, kn) & m, probes = 0; probes < (uint32_t)o->b; h = (h + 1) & m, probes++) {
                    int32_t cand = p->kids[o->a + (int32_t)h];
                    if (cand < 0) break;
                    const uint8_t *name;
                    size_t nn;
                    if ((rc = blob(p, p->kids[o->c + o->d + cand], &name, &nn))) return fail(x, i, q, rc);
                    if (nn == kn && !memcmp(name, k, kn)) { pos = cand; break; }
                }
            }
            if (pos >= 0) {
                int32_t fi = p->kids[o->c + pos];
                if (x->seen[fi] == me) return fail(x, fi, key_at, KV_E_DUPLICATE);
                x->seen[fi] = me;
                if ((rc = value(x, fi, &q, end, depth + 1))) return rc;
            } else {
                const uint8_t *vstart = q;
                if ((rc = skip_value(&q, end, depth + 1))) return fail(x, i, q, rc);
                if (extra) {  /* "key":value, as it was written */
                    size_t n = (size_t)(q - key_at);
                    if (kv_gbuf_reserve(&extra->data, n + 1) != KV_OK) return fail(x, i, q, KV_E_NOMEM);
                    if (extra_n++) extra->data.data[extra->data.len++] = ',';
                    memcpy(extra->data.data + extra->data.len, key_at, n);
                    extra->data.len += n;
                    (void)vstart;
                }
            }
            q = ws(q, end);
            if (q < end && *q == ',') { q++; continue; }
            if (q < end && *q == '}') { q++; break; }
            return fail(x, i, q, KV_E_JSON);
        }
    }
    for (int32_t k = 0; k < o->d; k++) {
        int32_t fi = p->kids[o->c + k];
        if (x->seen[fi] != me && p->ops[fi].col >= 0 && (rc = kv_col_null(cols, p->ops[fi].col)))
            return fail(x, fi, q, rc);
    }
    if (extra) {
        if (extra_n) {
            if (kv_gbuf_reserve(&extra->data, 1) != KV_OK) return fail(x, i, q, KV_E_NOMEM);
            extra->data.data[extra->data.len++] = '}';
            if ((rc = kv_col_end(extra, (int64_t)extra->data.len))) return fail(x, i, q, rc);
        } else {
            extra->data.len = extra_start;
            if ((rc = kv_col_null(cols, o->e))) return fail(x, i, q, rc);
        }
    }
    if (o->col >= 0 && (rc = kv_col_valid(&cols[o->col]))) return fail(x, i, q, rc);
    *pp = q;
    return KV_OK;
}

static int value(ctx *x, int32_t i, const uint8_t **pp, const uint8_t *end, int depth)
{
    const kv_prog *p = x->p;
    if (i < 0 || i >= p->nops) return fail(x, i, *pp, KV_E_FAIL);
    if (depth > MAX_DEPTH) return fail(x, i, *pp, KV_E_DEPTH);
    const kv_op *o = &p->ops[i];
    kv_col *cols = x->d->cols;
    kv_col *c = o->col >= 0 ? &cols[o->col] : NULL;
    const uint8_t *q = ws(*pp, end);
    int rc = KV_OK, integral;
    if (q >= end) return fail(x, i, q, KV_E_JSON);
    if (*q == 'n') {  /* null, whatever the type */
        if ((rc = literal(&q, end, "null"))) return fail(x, i, q, rc);
        int32_t target = o->col;
        if (o->code == KV_J_ENVELOPE && o->a >= 0 && o->a < p->nops) target = p->ops[o->a].col;
        if (target >= 0 && (rc = kv_col_null(cols, target))) return fail(x, i, q, rc);
        *pp = q;
        return KV_OK;
    }
    if (!c && o->code != KV_J_ENVELOPE) {
        if ((rc = skip_value(&q, end, depth))) return fail(x, i, q, rc);
        *pp = q;
        return KV_OK;
    }
    switch (o->code) {
    case KV_J_OBJECT:
        if (*q != '{') return fail(x, i, q, KV_E_TYPE);
        *pp = q;
        return object(x, i, o, pp, end, depth);
    case KV_J_ENVELOPE: {
        if (*q != '{') return fail(x, i, q, KV_E_TYPE);
        q = ws(q + 1, end);
        int found = 0;
        if (q < end && *q == '}') {
            q++;
        } else {
            for (;;) {
                if (q >= end || *q != '"') return fail(x, i, q, KV_E_JSON);
                q++;
                x->tmp.len = 0;  /* the key unescaped: "pay\u006coad" is payload too */
                if ((rc = string_into(&q, end, &x->tmp))) return fail(x, i, q, rc);
                int is_payload = x->tmp.len == 7 && !memcmp(x->tmp.data, "payload", 7);
                q = ws(q, end);
                if (q >= end || *q != ':') return fail(x, i, q, KV_E_JSON);
                q = ws(q + 1, end);
                if (is_payload) {
                    if (found) return fail(x, i, q, KV_E_DUPLICATE);
                    found = 1;
                    if ((rc = value(x, o->a, &q, end, depth + 1))) return rc;
                } else if ((rc = skip_value(&q, end, depth + 1))) {
                    return fail(x, i, q, rc);
                }
                q = ws(q, end);
                if (q < end && *q == ',') {
                    q = ws(q + 1, end);
                    continue;
                }
                if (q < end && *q == '}') {
                    q++;
                    break;
                }
                return fail(x, i, q, KV_E_JSON);
            }
        }
        if (!found) return fail(x, i, q, KV_E_TYPE);
        break;
    }
    case KV_J_ARRAY:
    case KV_J_MAP: {
        int map = o->code == KV_J_MAP;
        if (*q != (map ? '{' : '[')) return fail(x, i, q, KV_E_TYPE);
        kv_col *entries = map ? &cols[c->child[0]] : NULL;
        kv_col *keys = map ? &cols[entries->child[0]] : NULL;
        q = ws(q + 1, end);
        if (q < end && *q == (map ? '}' : ']')) {
            q++;
        } else {
            for (;;) {
                if (map) {
                    q = ws(q, end);
                    if (q >= end || *q != '"') return fail(x, i, q, KV_E_JSON);
                    q++;
                    if ((rc = put_string(keys, &q, end))) return fail(x, i, q, rc);
                    q = ws(q, end);
                    if (q >= end || *q != ':') return fail(x, i, q, KV_E_JSON);
                    q++;
                }
                if ((rc = value(x, o->a, &q, end, depth + 1))) return rc;
                if (map && (rc = kv_col_valid(entries))) return fail(x, i, q, rc);
                q = ws(q, end);
                if (q < end && *q == ',') { q++; continue; }
                if (q < end && *q == (map ? '}' : ']')) { q++; break; }
                return fail(x, i, q, KV_E_JSON);
            }
        }
        if (map) {  /* a key given twice: refused, as in an object */
            int32_t start;
            memcpy(&start, c->offs.data + c->length * 4, 4);
            int dup = kv_col_has_duplicates(keys, start, entries->length);
            if (dup) return fail(x, i, q, dup < 0 ? KV_E_NOMEM : KV_E_DUPLICATE);
        }
        if ((rc = kv_col_list_end(cols, c))) return fail(x, i, q, rc);
        break;
    }
    case KV_J_STRING:
        if (*q != '"') return fail(x, i, q, KV_E_TYPE);
        q++;
        if ((rc = put_string(c, &q, end))) return fail(x, i, q, rc);
        break;
    case KV_J_INT: {
        const uint8_t *s = q;
        if (*q != '-' && (*q < '0' || *q > '9')) return fail(x, i, q, KV_E_TYPE);
        if ((rc = number_span(&q, end, &integral))) return fail(x, i, q, rc);
        int64_t v;
        if ((rc = to_int64(s, q, integral, &v))) return fail(x, i, s, rc);
        switch (c->width) {
        case 1: if (v < INT8_MIN || v > INT8_MAX) return fail(x, i, s, KV_E_RANGE);
            { int8_t b = (int8_t)v; rc = kv_col_put(c, &b); } break;
        case 2: if (v < INT16_MIN || v > INT16_MAX) return fail(x, i, s, KV_E_RANGE);
            { int16_t b = (int16_t)v; rc = kv_col_put(c, &b); } break;
        case 4: if (v < INT32_MIN || v > INT32_MAX) return fail(x, i, s, KV_E_RANGE);
            rc = kv_col_i32(c, (int32_t)v); break;
        default: rc = kv_col_i64(c, v);
        }
        if (rc) return fail(x, i, q, rc);
        break;
    }
    case KV_J_NUMBER: {
        const uint8_t *s = q;
        if (*q != '-' && (*q < '0' || *q > '9')) return fail(x, i, q, KV_E_TYPE);
        if ((rc = number_span(&q, end, &integral))) return fail(x, i, q, rc);
        double v;
        if ((rc = to_double(s, q, &v))) return fail(x, i, s, rc);
        rc = c->width == 4 ? kv_col_f32(c, (float)v) : kv_col_f64(c, v);
        if (rc) return fail(x, i, q, rc);
        break;
    }
    case KV_J_BOOL: {
        int truth = *q == 't';
        if (*q != 't' && *q != 'f') return fail(x, i, q, KV_E_TYPE);
        if ((rc = literal(&q, end, truth ? "true" : "false")) || (rc = kv_col_bool(c, truth)))
            return fail(x, i, q, rc);
        break;
    }
    case KV_J_NULL:
        return fail(x, i, q, KV_E_TYPE);  /* (a null was taken above) */
    case KV_J_TIMESTAMP:
    case KV_J_DATE: {
        const uint8_t *s;
        size_t n;
        int64_t v;
        if ((rc = plain_string(&q, end, &s, &n))) return fail(x, i, q, rc);
        if (o->code == KV_J_DATE) {
            if (n != 10 || (rc = parse_date(s, n, &v))) return fail(x, i, s, KV_E_TYPE);
            if (v < INT32_MIN || v > INT32_MAX) return fail(x, i, s, KV_E_RANGE);
            rc = kv_col_i32(c, (int32_t)v);
        } else {
            if ((rc = parse_timestamp(s, n, &v))) return fail(x, i, s, rc);
            rc = kv_col_i64(c, v);
        }
        if (rc) return fail(x, i, q, rc);
        break;
    }
    case KV_J_RAW: {
        const uint8_t *s = q;
        if ((rc = skip_value(&q, end, depth))) return fail(x, i, q, rc);
        if (!kv_utf8_valid(s, (size_t)(q - s))) return fail(x, i, s, KV_E_UTF8);
        if ((rc = kv_col_bytes(c, s, (size_t)(q - s)))) return fail(x, i, q, rc);
        break;
    }
    case KV_J_BASE64: {
        const uint8_t *s;
        size_t n;
        if ((rc = plain_string(&q, end, &s, &n))) return fail(x, i, q, rc);
        size_t before = c->data.len;
        if ((rc = base64_into(s, n, &c->data))) {
            c->data.len = before;
            return fail(x, i, s, rc);
        }
        if ((rc = kv_col_end(c, (int64_t)c->data.len))) return fail(x, i, q, rc);
        break;
    }
    case KV_J_DECIMAL: {
        const uint8_t *s, *bound;
        size_t n, bn;
        if ((rc = plain_string(&q, end, &s, &n))) return fail(x, i, q, rc);
        kv_gbuf raw = x->tmp;
        raw.len = 0;
        if ((rc = base64_into(s, n, &raw))) {
            x->tmp = raw;
            return fail(x, i, s, rc);
        }
        x->tmp = raw;
        if ((rc = blob(p, o->a, &bound, &bn)) || bn != 16 || c->width != 16) return fail(x, i, s, KV_E_FAIL);
        /* big-endian two's complement into 16 little-endian bytes, |v| < 10^precision */
        const uint8_t *b = raw.data;
        size_t len = raw.len;
        int neg = len && (b[0] & 0x80);
        uint8_t fill = neg ? 0xFF : 0;
        while (len > 16) {
            if (b[0] != fill) return fail(x, i, s, KV_E_DECIMAL);
            b++;
            len--;
        }
        uint8_t *slot = kv_col_slot(c);
        if (!slot) return fail(x, i, s, KV_E_NOMEM);
        for (size_t k = 0; k < 16; k++) slot[k] = k < len ? b[len - 1 - k] : fill;
        uint8_t mag[16];
        int carry = 1;
        for (int k = 0; k < 16; k++) {
            if (neg) { int v = (uint8_t)~slot[k] + carry; mag[k] = (uint8_t)v; carry = v >> 8; }
            else mag[k] = slot[k];
        }
        int below = 0;
        for (int k = 15; k >= 0; k--) {
            if (mag[k] != bound[k]) { below = mag[k] < bound[k]; break; }
        }
        if (!below) return fail(x, i, s, KV_E_DECIMAL);
        break;
    }
    default:
        return fail(x, i, q, KV_E_FAIL);
    }
    *pp = q;
    return KV_OK;
}

int kv_json_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op)
{
    size_t need = (size_t)(p->nops > 0 ? p->nops : 1) * sizeof(uint64_t);
    if (need > d->scratch_cap) {
        void *s = realloc(d->scratch, need);
        if (!s) return KV_E_NOMEM;
        memset(s, 0, need);
        d->scratch = s;
        d->scratch_cap = need;
    }
    ctx x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.p = p;
    x.seen = (uint64_t *)d->scratch;
    x.op = -1;
    /* object instances count on from the decoder's last run, so `seen` never needs clearing */
    memcpy(&x.instance, &d->json_instance, sizeof x.instance);
    const uint8_t *q = *pp;
    if (!kv_utf8_valid(q, (size_t)(end - q))) {  /* JSON text is UTF-8 (RFC 8259), skipped parts too */
        *op = -1;
        return KV_E_UTF8;
    }
    int rc = value(&x, 0, &q, end, 0);
    d->json_instance = x.instance;
    kv_gbuf_free(&x.tmp);
    *op = x.op;
    if (rc) {
        if (x.at) *pp = x.at;
        return x.rc ? x.rc : rc;
    }
    q = ws(q, end);
    *pp = q;
    return KV_OK;
}
