/* The typed decoders' driver: wire prefix, program lookup, failures. See kvlog_typed.h. */
#include "kvlog_typed.h"
#include "kvlog_bytes.h"

#include <stdlib.h>
#include <string.h>

int kv_dec_init(kv_decoder *d, int32_t format, int32_t wire, int32_t errors_null, kv_col *cols, int32_t ncols)
{
    memset(d, 0, sizeof(*d));
    d->format = format;
    d->wire = wire;
    d->errors_null = errors_null;
    d->cols = cols;
    d->ncols = ncols;
    d->max_items = (int64_t)1 << 20;
    d->sid.kind = KV_COL_FIXED;
    d->sid.width = 4;
    d->marks = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(kv_mark));
    if (!d->marks) return KV_E_NOMEM;
    if (kv_cols_init(cols, ncols) != KV_OK || kv_cols_init(&d->sid, 1) != KV_OK) return KV_E_NOMEM;
    return KV_OK;
}

void kv_dec_free(kv_decoder *d)
{
    free(d->marks);
    free(d->table);
    free(d->guids);
    free(d->guid_ids);
    free(d->scratch);
    d->scratch = NULL;
    kv_cols_free(&d->sid, 1);
    kv_gbuf_free(&d->failures);
    kv_gbuf_free(&d->spans);
    d->marks = NULL;
    d->table = NULL;
    d->guids = NULL;
    d->guid_ids = NULL;
}

static uint32_t entry_hash(int32_t id, const int32_t *idx, int32_t nidx)
{
    uint32_t h = (uint32_t)id * 0x9E3779B1u;
    for (int32_t i = 0; i < nidx; i++)
        h = (h ^ (uint32_t)idx[i]) * 0x85EBCA6Bu + 0x27D4EB2Fu;
    return h ^ (h >> 15);
}

static int entry_is(const kv_entry *e, int32_t id, const int32_t *idx, int32_t nidx)
{
    if (e->id != id || e->nidx != nidx) return 0;
    for (int32_t i = 0; i < nidx; i++)
        if (e->idx[i] != idx[i]) return 0;
    return 1;
}

static const kv_prog *lookup(const kv_decoder *d, int32_t id, const int32_t *idx, int32_t nidx)
{
    if (!d->table_cap) return NULL;
    uint32_t m = (uint32_t)d->table_cap - 1;
    for (uint32_t h = entry_hash(id, idx, nidx) & m;; h = (h + 1) & m) {
        const kv_entry *e = &d->table[h];
        if (!e->prog) return NULL;
        if (entry_is(e, id, idx, nidx)) return e->prog;
    }
}

static void place(kv_entry *table, int32_t cap, const kv_entry *e)
{
    uint32_t m = (uint32_t)cap - 1;
    uint32_t h = entry_hash(e->id, e->idx, e->nidx) & m;
    while (table[h].prog && !entry_is(&table[h], e->id, e->idx, e->nidx)) h = (h + 1) & m;
    table[h] = *e;
}

int kv_dec_add(kv_decoder *d, int32_t id, const int32_t *idx, int32_t nidx, const kv_prog *prog)
{
    if (nidx < 0 || nidx > KV_MAX_INDEXES) return KV_E_INDEX;
    if (d->wire == KV_WIRE_BARE) {
        d->bare = prog;
        return KV_OK;
    }
    if ((d->table_n + 1) * 2 > d->table_cap) {
        int32_t cap = d->table_cap ? d->table_cap * 2 : 16;
        kv_entry *t = calloc((size_t)cap, sizeof(kv_entry));
        if (!t) return KV_E_NOMEM;
        for (int32_t i = 0; i < d->table_cap; i++)
            if (d->table[i].prog) place(t, cap, &d->table[i]);
        free(d->table);
        d->table = t;
        d->table_cap = cap;
    }
    kv_entry e;
    memset(&e, 0, sizeof(e));
    e.id = id;
    e.nidx = nidx;
    if (nidx) memcpy(e.idx, idx, (size_t)nidx * sizeof(int32_t));
    e.prog = prog;
    if (!lookup(d, id, idx, nidx)) d->table_n++;
    place(d->table, d->table_cap, &e);
    return KV_OK;
}

int kv_dec_add_guid(kv_decoder *d, const uint8_t *guid, int32_t id)
{
    uint8_t *g = realloc(d->guids, (size_t)(d->nguids + 1) * 16);
    if (!g) return KV_E_NOMEM;
    d->guids = g;
    int32_t *ids = realloc(d->guid_ids, (size_t)(d->nguids + 1) * sizeof(int32_t));
    if (!ids) return KV_E_NOMEM;
    d->guid_ids = ids;
    memcpy(d->guids + (size_t)d->nguids * 16, guid, 16);
    d->guid_ids[d->nguids++] = id;
    return KV_OK;
}

static int guid_id(const kv_decoder *d, const uint8_t *guid, int32_t *id)
{
    for (int32_t i = d->nguids - 1; i >= 0; i--)
        if (!memcmp(d->guids + (size_t)i * 16, guid, 16)) {
            *id = d->guid_ids[i];
            return 1;
        }
    return 0;
}

/* A zigzag varint of the Protobuf message indexes (Confluent's framing writes them zigzag-encoded). */
static int index_varint(const uint8_t **pp, const uint8_t *end, int32_t *out)
{
    const uint8_t *p = *pp;
    uint64_t raw = 0;
    for (int shift = 0;; shift += 7) {
        if (p >= end) return KV_E_TRUNCATED;
        if (shift > 28) return KV_E_VARINT;
        uint8_t b = *p++;
        raw |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    if (raw > 0xFFFFFFFFu) return KV_E_VARINT;
    uint32_t u = (uint32_t)raw;
    *out = (int32_t)((u >> 1) ^ (~(u & 1) + 1));
    *pp = p;
    return KV_OK;
}

static int read_indexes(const uint8_t **pp, const uint8_t *end, int32_t *idx, int32_t *nidx)
{
    int32_t count;
    int rc = index_varint(pp, end, &count);
    if (rc) return rc;
    if (count == 0) {  /* the first message of the file, written as one 0 byte */
        idx[0] = 0;
        *nidx = 1;
        return KV_OK;
    }
    if (count < 0 || count > KV_MAX_INDEXES) return KV_E_INDEX;
    for (int32_t i = 0; i < count; i++) {
        if ((rc = index_varint(pp, end, &idx[i]))) return rc;
        if (idx[i] < 0) return KV_E_INDEX;
    }
    *nidx = count;
    return KV_OK;
}

static int fail(kv_decoder *d, int64_t index, int32_t code, int32_t op, int64_t pos, int32_t sid)
{
    kv_failure f = {index, code, op, pos, sid};
    d->last = f;
    if (!d->errors_null) return code;
    if (kv_gbuf_reserve(&d->failures, sizeof(f)) != KV_OK) return KV_E_NOMEM;
    memcpy(d->failures.data + d->failures.len, &f, sizeof(f));
    d->failures.len += sizeof(f);
    return KV_OK;
}

static int run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op)
{
    if (p->fail_code) {
        *op = -1;
        return p->fail_code;
    }
    switch (p->format) {
    case KV_FMT_AVRO: return kv_avro_run(d, p, pp, end, op);
    case KV_FMT_PROTOBUF: return kv_proto_run(d, p, pp, end, op);
    default: return kv_json_run(d, p, pp, end, op);
    }
}

int kv_dec_run(kv_decoder *d, const uint8_t *valid, int64_t bit_offset, const int32_t *offsets,
               const uint8_t *data, int64_t start, int64_t n, const int32_t *ids)
{
    int rc;
    /* the last record's program: a topic's records mostly share one writer schema, so the table is asked only
       when the id (or Protobuf's message indexes) change */
    const kv_prog *last = NULL;
    int32_t last_sid = 0, last_nidx = 0, last_idx[KV_MAX_INDEXES];
    for (int64_t i = start; i < n; i++) {
        int64_t bit = bit_offset + i;
        if (valid && !((valid[bit >> 3] >> (bit & 7)) & 1)) {
            if ((rc = kv_col_null(d->cols, 0)) || (rc = kv_col_null(&d->sid, 0))) return rc;
            continue;
        }
        const uint8_t *base = data + offsets[i], *p = base, *end = data + offsets[i + 1];
        int32_t sid = 0, nidx = 0, idx[KV_MAX_INDEXES];
        const kv_prog *prog;
        if (d->wire == KV_WIRE_BARE) {
            prog = d->bare;
        } else {
            int prefix = KV_OK;
            if (ids && ids[i] >= 0) {
                sid = ids[i];
            } else if (end - p >= 5 && p[0] == 0) {
                sid = (int32_t)kv_load_be32(p + 1);
                p += 5;
            } else if (end - p >= 17 && p[0] == 1) {
                if (!guid_id(d, p + 1, &sid)) {
                    d->stop_index = i;
                    d->need_is_guid = 1;
                    memcpy(d->need_guid, p + 1, 16);
                    return KV_NEED;
                }
                p += 17;
            } else {
                prefix = KV_E_MAGIC;
            }
            if (!prefix && d->format == KV_FMT_PROTOBUF) prefix = read_indexes(&p, end, idx, &nidx);
            if (prefix) {
                if ((rc = fail(d, i, prefix, -1, p - base, prefix == KV_E_MAGIC ? -1 : sid))) {
                    d->stop_index = i;
                    return rc;
                }
                if ((rc = kv_col_null(d->cols, 0))) return rc;
                rc = prefix == KV_E_MAGIC ? kv_col_null(&d->sid, 0) : kv_col_i32(&d->sid, sid);
                if (rc) return rc;
                continue;
            }
            if (last && sid == last_sid && nidx == last_nidx
                && (!nidx || !memcmp(idx, last_idx, (size_t)nidx * sizeof(int32_t)))) {
                prog = last;
            } else if ((prog = lookup(d, sid, idx, nidx))) {
                last = prog;
                last_sid = sid;
                last_nidx = nidx;
                if (nidx) memcpy(last_idx, idx, (size_t)nidx * sizeof(int32_t));
            }
            if (!prog) {
                d->stop_index = i;
                d->need_is_guid = 0;
                d->need_id = sid;
                d->need_nidx = nidx;
                memcpy(d->need_idx, idx, (size_t)nidx * sizeof(int32_t));
                return KV_NEED;
            }
        }
        if (d->errors_null) kv_cols_mark(d->cols, d->ncols, d->marks);
        int32_t op = -1;
        const uint8_t *at = p;
        rc = run(d, prog, &at, end, &op);
        if (!rc && at != end) rc = KV_E_TRAILING;
        if (rc == KV_E_NOMEM) return rc;
        if (rc) {
            int frc = fail(d, i, rc, op, at - base, sid);
            if (frc) {
                d->stop_index = i;
                return frc;
            }
            kv_cols_rollback(d->cols, d->ncols, d->marks);
            if ((rc = kv_col_null(d->cols, 0))) return rc;
            rc = d->wire == KV_WIRE_BARE ? kv_col_null(&d->sid, 0) : kv_col_i32(&d->sid, sid);
            if (rc) return rc;
            continue;
        }
        if ((rc = kv_col_i32(&d->sid, sid))) return rc;
    }
    d->stop_index = n;
    return KV_OK;
}
