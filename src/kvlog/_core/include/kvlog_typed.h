/* Typed decoding of record keys or values: the schema registry's wire format, then a program per writer
 * schema that turns each payload into Arrow columns (kvlog_columns.h).
 *
 * The Python side compiles a schema into a program once (kvlog.schemas.*_plan) and the kernel runs it over a
 * whole column of payloads without the GIL and without a Python object per record. A program is a flat
 * array of ops: composite ops name their parts through `kids` (op indexes, or table entries), constants
 * (default values, enum symbols, decimal bounds) live in one blob.
 *
 * The driver (typed.c) reads the wire prefix of each payload, finds the program for its schema id (and,
 * for Protobuf, its message indexes), runs it, and keeps the schema id column and the list of failures.
 * A schema id without a program stops the run with KV_NEED: the caller compiles one and resumes
 * at the same record, so only the ids a topic actually uses are ever compiled.
 */
#ifndef KVLOG_TYPED_H
#define KVLOG_TYPED_H
#include "kvlog_columns.h"

enum { KV_FMT_AVRO = 0, KV_FMT_PROTOBUF = 1, KV_FMT_JSON = 2 };
/* How a payload names its schema: not at all (one program, id 0), the registry's wire format (magic 0
   and a 4-byte id, or magic 1 and a 16-byte GUID), or a schema id given per record (headers). */
enum { KV_WIRE_BARE = 0, KV_WIRE_REGISTRY = 1 };

#define KV_MAX_INDEXES 16

/* Avro ops (kvlog.schemas.avro_plan writes them). `col` < 0: read and discard. Operands:
   FIXED a=size; ENUM a=kids start, b=writer symbols (kid: reader symbol's blob item, or -1);
   DEC_BYTES a=blob item of 10^precision (little-endian, the column's width); DEC_FIXED a=size, b=that item;
   RECORD a=kids start, b=fields; DEFAULT a=blob item (the default, Avro-encoded), b=op reading it;
   UNION a=kids start, b=branches; MEMBER a=member (child of the struct column), b=op;
   ARRAY a=item op, d=1 when an item may take no bytes; MAP a=value op; FAIL a=status code;
   REST (the rest of the payload, a top-level bytes value written without its length) a=1: check UTF-8.
   INT, LONG, INT_LONG d=1: a time of the day (time-millis, time-micros): out of the day is an error. A map
   whose keys repeat is an error. */
enum {
    KV_A_NULL = 1, KV_A_BOOL, KV_A_INT, KV_A_INT_LONG, KV_A_INT_FLOAT, KV_A_INT_DOUBLE, KV_A_LONG,
    KV_A_LONG_FLOAT, KV_A_LONG_DOUBLE, KV_A_FLOAT, KV_A_FLOAT_DOUBLE, KV_A_DOUBLE, KV_A_BYTES, KV_A_STRING,
    KV_A_FIXED, KV_A_ENUM, KV_A_DEC_BYTES, KV_A_DEC_FIXED, KV_A_DURATION, KV_A_RECORD, KV_A_DEFAULT,
    KV_A_UNION, KV_A_MEMBER, KV_A_ARRAY, KV_A_MAP, KV_A_FAIL, KV_A_REST
};

typedef struct {
    int32_t code, col, a, b, c, d, e, f;
} kv_op;

typedef struct kv_prog {
    int32_t format;
    const kv_op *ops;
    int32_t nops;
    const int32_t *kids;
    int32_t nkids;
    const uint8_t *blob;
    const int64_t *blob_offs;   /* item i is blob[blob_offs[i] .. blob_offs[i + 1]) */
    int32_t nblobs;
    int32_t fail_code;          /* a program standing for a schema that did not compile: every payload fails */
    int32_t nslots;             /* Protobuf: scratch slots a run needs (one per op, then one per oneof) */
} kv_prog;

typedef struct {
    int64_t index;              /* the record (row of the input column) */
    int32_t code;
    int32_t op;                 /* the op running when it failed (-1: the wire prefix) */
    int64_t pos;                /* byte position in the payload */
    int32_t schema_id;          /* -1: none read */
} kv_failure;

typedef struct {
    int32_t id;
    int32_t nidx;
    int32_t idx[KV_MAX_INDEXES];
    const kv_prog *prog;
} kv_entry;

typedef struct {
    int32_t format, wire;
    int32_t errors_null;        /* a failed payload becomes a null value (and a failure), else the run stops */
    kv_col *cols;               /* the output columns; column 0 is the value */
    int32_t ncols;
    kv_mark *marks;
    kv_col sid;                 /* the schema id column (int32) */
    kv_entry *table;            /* open addressing by (id, indexes) */
    int32_t table_cap, table_n;
    const kv_prog *bare;        /* KV_WIRE_BARE: the one program */
    kv_gbuf failures;           /* kv_failure entries */
    int64_t max_items;          /* zero-size collection items a payload may hold */
    /* where the run stopped (KV_NEED, or the first failure without errors_null) */
    int64_t stop_index;
    int32_t need_id, need_nidx;
    int32_t need_idx[KV_MAX_INDEXES];
    uint8_t need_guid[16];
    int32_t need_is_guid;
    kv_failure last;
    /* GUID -> schema id pairs the caller resolved (magic 1) */
    uint8_t *guids;
    int32_t *guid_ids;
    int32_t nguids;
    void *scratch;              /* Protobuf: the slots of the running program; JSON: fields seen per op */
    size_t scratch_cap;
    uint64_t json_instance;     /* JSON: objects read so far (what `seen` holds) */
    kv_gbuf spans;              /* Protobuf: the spans of the payload's message fields (a linked list a slot) */
} kv_decoder;

int kv_dec_init(kv_decoder *d, int32_t format, int32_t wire, int32_t errors_null, kv_col *cols, int32_t ncols);
void kv_dec_free(kv_decoder *d);
int kv_dec_add(kv_decoder *d, int32_t id, const int32_t *idx, int32_t nidx, const kv_prog *prog);
int kv_dec_add_guid(kv_decoder *d, const uint8_t *guid, int32_t id);
/* Decode rows [start, n) of a binary column (`valid` may be NULL; `bit_offset` is the array's offset into
   its validity bitmap; offsets are int32 and already shifted). `ids`, when not NULL, gives each row's schema
   id (< 0: read it from the payload's prefix). Returns KV_OK when every row was decoded, KV_NEED
   when a program is needed (stop_index, need_*), or a failure's code without errors_null (last). */
int kv_dec_run(kv_decoder *d, const uint8_t *valid, int64_t bit_offset, const int32_t *offsets,
               const uint8_t *data, int64_t start, int64_t n, const int32_t *ids);

/* Protobuf ops (kvlog.schemas.proto_plan writes them).
   MESSAGE: col a struct (or -1), a=lookup kids start, b=lookup size (> 0: a table indexed by field number,
     kid = field op or -1; < 0: -b (number, field op) pairs sorted by number), c=fields kids start (in the
     struct's child order), d=fields, e=first oneof slot, f=oneofs.
   FIELD: col (a list column when repeated), a=field number, b=type (descriptor.proto's numbering, KV_PT_*),
     c=flags (KV_PF_*), d=the value's op for TYPE_MESSAGE/TYPE_GROUP, or the enum table's kids start (kid
     d is the count, then (number, blob item of the name) pairs sorted by number), e=oneof slot or -1,
     f=default (a blob item: int64 or double little-endian, or the bytes; -1: zero or empty). Flags: CLOSED,
     a closed (proto2) enum: a number it does not name is an unknown field; MAP, a map field: a key given
     twice in one message is refused.
   TIMESTAMP, DURATION: col int64 (nanoseconds). WRAPPER (google.protobuf.*Value): col, b=the value's type.
   RAW: col binary, the message's serialized bytes. */
enum { KV_P_MESSAGE = 1, KV_P_FIELD, KV_P_TIMESTAMP, KV_P_DURATION, KV_P_WRAPPER, KV_P_RAW };
enum {
    KV_PT_DOUBLE = 1, KV_PT_FLOAT, KV_PT_INT64, KV_PT_UINT64, KV_PT_INT32, KV_PT_FIXED64, KV_PT_FIXED32,
    KV_PT_BOOL, KV_PT_STRING, KV_PT_GROUP, KV_PT_MESSAGE, KV_PT_BYTES, KV_PT_UINT32, KV_PT_ENUM,
    KV_PT_SFIXED32, KV_PT_SFIXED64, KV_PT_SINT32, KV_PT_SINT64
};
enum { KV_PF_REPEATED = 1, KV_PF_PRESENCE = 2, KV_PF_ZERO = 4, KV_PF_CLOSED = 8, KV_PF_MAP = 16 };

/* JSON ops (kvlog.schemas.json_plan writes them). A JSON null is a null of any op's column.
   OBJECT: col a struct (or -1), a=key table kids start, b=its size (a power of two; kid = field position or
     -1, by FNV-1a of the key), c=fields kids start (the struct's child order: each a value op; the keys'
     blob items follow at c+d), d=fields, e=a string column for the keys no field names (their JSON, as an
     object) or -1: such keys are skipped.
   ARRAY: col a list, a=item op. MAP: col a map (list of struct<key, value>), a=value op.
   STRING: col string. INT: col int8/16/32/64 (its width), the number must be integral. NUMBER: col float32
   or float64. BOOL. NULL (a null-typed column). TIMESTAMP: col int64, an RFC 3339 date-time as
   microseconds since the epoch (UTC). DATE: col int32, an RFC 3339 full-date as days. RAW: col string, the
   value's JSON text. BASE64: col binary, a base64 string's bytes. DECIMAL: col decimal128, a=blob item of
   10^precision, b=scale: a base64 string of the unscaled big-endian bytes (Kafka Connect's Decimal).
   ENVELOPE: Kafka Connect's {"schema": ..., "payload": ...}: a=the payload's op. */
enum {
    KV_J_OBJECT = 1, KV_J_ARRAY, KV_J_MAP, KV_J_STRING, KV_J_INT, KV_J_NUMBER, KV_J_BOOL, KV_J_NULL,
    KV_J_TIMESTAMP, KV_J_DATE, KV_J_RAW, KV_J_BASE64, KV_J_DECIMAL, KV_J_ENVELOPE
};

/* The format interpreters: decode one payload with `p`, appending one value to column 0. */
int kv_avro_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op);
int kv_proto_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op);
int kv_json_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op);

#endif
