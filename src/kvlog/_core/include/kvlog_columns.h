/* Arrow column builders for the typed decoders (Avro, Protobuf, JSON).
 *
 * A decoder's output is a tree of columns laid out as Arrow lays them out: a validity bitmap for every
 * column, then by kind a bitmap (BOOL), fixed-width values (FIXED: int32, int64, float, double, decimal128,
 * fixed_size_binary, interval...), int32 offsets and bytes (VAR: string, binary), int32 offsets and one child
 * (LIST: list, map) or children of equal length (STRUCT). The Arrow type of each column is known only to the
 * Python side, which wraps the finished buffers without a copy.
 *
 * Every append checks its capacity and returns KV_E_NOMEM or KV_E_OVERFLOW (an offset past 2^31 - 1)
 * instead of failing; a record that fails half way is undone with kv_cols_rollback to the marks taken
 * before it. A column's validity bitmap is only written once it has a null (until then every slot is
 * valid, and a valid append is a length increment); validity and boolean bits are written both ways (set
 * and cleared), so rolled-back bits need no clearing and grown bitmaps need no zeroing.
 */
#ifndef KVLOG_COLUMNS_H
#define KVLOG_COLUMNS_H
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "kvlog_bytes.h"

enum { KV_COL_NULL = 0, KV_COL_BOOL = 1, KV_COL_FIXED = 2, KV_COL_VAR = 3, KV_COL_LIST = 4, KV_COL_STRUCT = 5 };

/* Status codes shared by the typed decoders (0 is success). */
enum {
    KV_OK = 0,
    KV_E_TRUNCATED = 1,     /* the payload ends inside a value */
    KV_E_VARINT = 2,        /* a varint longer than its type allows, or out of its type's range */
    KV_E_LENGTH = 3,        /* a negative or impossible length or count */
    KV_E_UNION = 4,         /* a union branch index out of range */
    KV_E_ENUM = 5,          /* an enum index or number with no symbol the reader knows */
    KV_E_UTF8 = 6,          /* a string that is not UTF-8 */
    KV_E_DECIMAL = 7,       /* a decimal that does not fit its precision */
    KV_E_TRAILING = 8,      /* bytes left after the value */
    KV_E_NOMEM = 9,
    KV_E_RESOLVE = 10,      /* a writer branch or schema the reader schema cannot read */
    KV_E_OVERFLOW = 11,     /* a column past Arrow's 2^31 - 1 byte offsets */
    KV_E_UNKNOWN_ID = 12,   /* a schema id (or GUID) no source holds */
    KV_E_MAGIC = 13,        /* not the registry's wire format (magic byte, short prefix) */
    KV_E_DEPTH = 14,        /* nesting deeper than the decoder allows */
    KV_E_WIRETYPE = 15,     /* protobuf: a field whose wire type contradicts its declared type */
    KV_E_INDEX = 16,        /* protobuf: message indexes that name no message */
    KV_E_JSON = 17,         /* JSON that does not parse */
    KV_E_TYPE = 18,         /* JSON: a value of another type than the schema says */
    KV_E_DUPLICATE = 19,    /* JSON: a key given twice in one object */
    KV_E_RANGE = 20,        /* a number outside its column's range (or a timestamp out of range) */
    KV_E_LIMIT = 21,        /* a collection of zero-size items past the decoder's limit */
    KV_E_FAIL = 22,         /* a program that stands for a schema that could not be compiled */
    KV_E_CODES,
    KV_NEED = 100           /* not a failure: a schema id with no program yet (the caller adds one, resumes) */
};

typedef struct {
    uint8_t *data;
    size_t len, cap;
    int big;                /* a mapping from kvlog_mem.h, else malloc */
    size_t hint;            /* the size the buffer last grew to: its first allocation takes that much */
} kv_gbuf;

typedef struct {
    int32_t kind, width;    /* FIXED: bytes a value */
    int32_t utf8;           /* VAR: check every value is UTF-8 */
    int32_t nchild;
    int32_t *child;         /* indexes of the children in the column array */
    int32_t child0;         /* child[0], kept here: a list's end offset reads it per value */
    int32_t bitmap;         /* the validity bitmap is written (the column has had a null) */
    int64_t length, nulls;
    kv_gbuf valid, data, offs;
} kv_col;

typedef struct {
    int64_t length, nulls;
    size_t data_len;
} kv_mark;

int kv_gbuf_grow(kv_gbuf *g, size_t need);
void kv_gbuf_free(kv_gbuf *g);

/* Prepare `n` columns (kinds and children already set): zero lengths, one 0 offset for VAR and LIST. */
int kv_cols_init(kv_col *cols, int32_t n);
void kv_cols_free(kv_col *cols, int32_t n);
void kv_cols_mark(const kv_col *cols, int32_t n, kv_mark *marks);
void kv_cols_rollback(kv_col *cols, int32_t n, const kv_mark *marks);
/* Whether rows [from, to) of a VAR or FIXED column (a map's keys) hold the same value twice. */
int kv_col_has_duplicates(const kv_col *c, int64_t from, int64_t to);
/* A null at the end of column `i` (and of its struct children: Arrow wants them as long). */
int kv_col_null(kv_col *cols, int32_t i);
/* A default-valued (zero, empty) non-null slot at the end of column `i` and its struct children. */
int kv_col_zero(kv_col *cols, int32_t i);

static inline int kv_gbuf_reserve(kv_gbuf *g, size_t extra)
{
    if (g->len + extra <= g->cap) return KV_OK;
    return kv_gbuf_grow(g, g->len + extra);
}

/* The validity bit of the next slot (`length`), before length is advanced. */
static inline __attribute__((always_inline)) int kv_col_bit(kv_gbuf *bits, int64_t i, int on)
{
    size_t byte = (size_t)(i >> 3);
    if (byte >= bits->cap && kv_gbuf_grow(bits, byte + 1) != KV_OK) return KV_E_NOMEM;
    if (byte >= bits->len) bits->len = byte + 1;
    uint8_t m = (uint8_t)(1u << (i & 7));
    if (on) bits->data[byte] |= m; else bits->data[byte] &= (uint8_t)~m;
    return KV_OK;
}

static inline __attribute__((always_inline)) int kv_col_valid(kv_col *c)
{
    if (c->bitmap) {
        int rc = kv_col_bit(&c->valid, c->length, 1);
        if (rc) return rc;
    }
    c->length++;
    return KV_OK;
}

/* A slot of `w` bytes (the column's width) for a valid value; the caller fills it. */
static inline __attribute__((always_inline)) uint8_t *kv_col_slot_w(kv_col *c, size_t w)
{
    /* (one byte at least: a zero-width slot, fixed(0), still gets a pointer that is not NULL) */
    if (c->data.len + w + 1 > c->data.cap && kv_gbuf_grow(&c->data, c->data.len + w + 1) != KV_OK) return NULL;
    if (kv_col_valid(c) != KV_OK) return NULL;
    uint8_t *p = c->data.data + c->data.len;
    c->data.len += w;
    return p;
}

static inline uint8_t *kv_col_slot(kv_col *c) { return kv_col_slot_w(c, (size_t)c->width); }

static inline int kv_col_put(kv_col *c, const void *v)
{
    uint8_t *p = kv_col_slot(c);
    if (!p) return KV_E_NOMEM;
    memcpy(p, v, (size_t)c->width);
    return KV_OK;
}

/* Fixed-width appends with the width known at compile time (a store, not a call to memcpy). */
#define KV_COL_PUT_N(name, T)                                      \
    static inline int name(kv_col *c, T v)                         \
    {                                                              \
        uint8_t *p = kv_col_slot_w(c, sizeof(T));                  \
        if (!p) return KV_E_NOMEM;                                 \
        memcpy(p, &v, sizeof(T));                                  \
        return KV_OK;                                              \
    }
KV_COL_PUT_N(kv_col_i32, int32_t)
KV_COL_PUT_N(kv_col_i64, int64_t)
KV_COL_PUT_N(kv_col_f32, float)
KV_COL_PUT_N(kv_col_f64, double)
#undef KV_COL_PUT_N

static inline int kv_col_bool(kv_col *c, int v)
{
    int rc = kv_col_bit(&c->data, c->length, v);
    if (rc) return rc;
    return kv_col_valid(c);
}

/* Close a VAR or LIST slot whose bytes or child items were appended: its end offset is `end`. */
static inline int kv_col_end(kv_col *c, int64_t end)
{
    if (end > INT32_MAX) return KV_E_OVERFLOW;
    if (c->offs.len + 4 > c->offs.cap && kv_gbuf_grow(&c->offs, c->offs.len + 4) != KV_OK) return KV_E_NOMEM;
    int32_t e = (int32_t)end;
    memcpy(c->offs.data + c->offs.len, &e, 4);
    c->offs.len += 4;
    return kv_col_valid(c);
}

static inline int kv_col_bytes(kv_col *c, const uint8_t *p, size_t n)
{
    if (n && kv_gbuf_reserve(&c->data, n) != KV_OK) return KV_E_NOMEM;
    if (n) kv_copy(c->data.data + c->data.len, p, n);
    c->data.len += n;
    return kv_col_end(c, (int64_t)c->data.len);
}

/* A null at the end of a flat column whose bitmap is already written: the common null, without a call
   (anything else goes to kv_col_null). */
static inline int kv_col_null_fast(kv_col *cols, int32_t i)
{
    kv_col *c = &cols[i];
    if (!c->bitmap || (c->kind != KV_COL_VAR && c->kind != KV_COL_FIXED)) return kv_col_null(cols, i);
    if (c->kind == KV_COL_VAR) {
        if (c->offs.len + 4 > c->offs.cap && kv_gbuf_grow(&c->offs, c->offs.len + 4) != KV_OK) return KV_E_NOMEM;
        int32_t e = (int32_t)c->data.len;
        memcpy(c->offs.data + c->offs.len, &e, 4);
        c->offs.len += 4;
    } else {
        size_t w = (size_t)c->width;
        if (c->data.len + w > c->data.cap && kv_gbuf_grow(&c->data, c->data.len + w) != KV_OK) return KV_E_NOMEM;
        memset(c->data.data + c->data.len, 0, w);
        c->data.len += w;
    }
    int rc = kv_col_bit(&c->valid, c->length, 0);
    if (rc) return rc;
    c->length++;
    c->nulls++;
    return KV_OK;
}

/* The child's current length: a LIST slot's end offset. */
static inline int kv_col_list_end(kv_col *cols, kv_col *c)
{
    return kv_col_end(c, cols[c->child0].length);
}

#endif
