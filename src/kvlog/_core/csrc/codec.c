/* Decompression of v2 batch payloads (snappy, lz4, zstd) without the GIL; see kvlog_codec.h.
 *
 * The Python path (kvlog.compression) stays the reference and the one that reports: anything this
 * code does not accept whole (damage, a stream cut short, output past the limit, a framing variant it
 * does not know) returns KV_CODEC_FALLBACK and the caller decompresses the batch there, which raises
 * the documented error or returns what the Python libraries return. What this code accepts, those
 * libraries accept with the same output (the formats are deterministic), so the fast path never
 * changes a result.
 */
#include "kvlog_codec.h"

#include <stdlib.h>
#include <string.h>

/* lz4 and zstd come from the system's liblz4 and libzstd (setup.py probes for them); a build without them
   (KVLOG_SYSTEM_CODECS 0) handles snappy here and sends lz4 and zstd batches to the Python path. */
#if KVLOG_SYSTEM_CODECS
#include <lz4frame.h>
#include <zstd.h>
#endif

const char *kv_codec_inline(void)
{
#if KVLOG_SYSTEM_CODECS
    return "snappy,lz4,zstd";
#else
    return "snappy";
#endif
}

/* Grow the scratch buffer to hold at least `need` bytes (doubling from 64 KiB, never past `most`: the
   budget plus one byte, so a bomb costs the budget, not twice it). */
static int grow(kv_codec *c, size_t need, size_t most)
{
    size_t cap = c->cap ? c->cap : (size_t)64 << 10;
    unsigned char *p;
    if (need <= c->cap)
        return 0;
    while (cap < need)
        cap <<= 1;
    if (cap > most && need <= most)
        cap = most;
    p = (unsigned char *)realloc(c->buf, cap);
    if (!p)
        return -1;
    c->buf = p;
    c->cap = cap;
    return 0;
}

/* Room for the next piece of output after `len` bytes: grown by 256 KiB when under 64 KiB are left, never
   past limit + 1 (one byte over the limit tells a bomb from an exact fit). 0 when the memory is refused. */
static size_t room(kv_codec *c, size_t len, size_t limit)
{
    size_t out;
    if (c->cap - len < ((size_t)64 << 10) && c->cap <= limit &&
        grow(c, len + ((size_t)256 << 10) < limit + 1 ? len + ((size_t)256 << 10) : limit + 1, limit + 1) < 0)
        return 0;
    out = c->cap - len;
    return out > limit + 1 - len ? limit + 1 - len : out;
}

void kv_codec_free(kv_codec *c)
{
    free(c->buf);
#if KVLOG_SYSTEM_CODECS
    if (c->lz4)
        LZ4F_freeDecompressionContext((LZ4F_dctx *)c->lz4);
    if (c->zstd)
        ZSTD_freeDCtx((ZSTD_DCtx *)c->zstd);
#endif
    memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------------------------------- snappy */

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* One raw snappy block into out[0, room): its length, or -1. Exact: every input byte used, the output
   exactly as long as the preamble says. */
static int64_t unsnappy_raw(const unsigned char *ip, const unsigned char *end, unsigned char *out, size_t room)
{
    uint64_t want = 0;
    int shift = 0;
    size_t op = 0;
    for (;;) {  /* the preamble: a varint of at most 5 bytes (a uint32) */
        unsigned b;
        if (ip >= end || shift > 28)
            return -1;
        b = *ip++;
        want |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    if (want > 0xffffffffu || want > room)
        return -1;
    while (ip < end) {
        unsigned tag = *ip++;
        size_t len, off;
        switch (tag & 3) {
        case 0:
            len = tag >> 2;
            if (len >= 60) {
                unsigned extra = (unsigned)len - 59, i;
                if ((size_t)(end - ip) < extra)
                    return -1;
                len = 0;
                for (i = 0; i < extra; i++)
                    len |= (size_t)ip[i] << (8 * i);
                ip += extra;
            }
            len += 1;
            if ((size_t)(end - ip) < len || want - op < len)
                return -1;
            memcpy(out + op, ip, len);
            ip += len;
            op += len;
            continue;
        case 1:
            if (ip >= end)
                return -1;
            len = ((tag >> 2) & 7) + 4;
            off = ((size_t)(tag >> 5) << 8) | *ip++;
            break;
        case 2:
            if (end - ip < 2)
                return -1;
            len = (tag >> 2) + 1;
            off = (size_t)ip[0] | ((size_t)ip[1] << 8);
            ip += 2;
            break;
        default:
            if (end - ip < 4)
                return -1;
            len = (tag >> 2) + 1;
            off = load_le32(ip);
            ip += 4;
            break;
        }
        if (off == 0 || off > op || want - op < len)
            return -1;
        if (off >= len) {
            memcpy(out + op, out + op - off, len);
            op += len;
        } else {  /* an overlapping copy repeats the last `off` bytes */
            size_t i;
            for (i = 0; i < len; i++, op++)
                out[op] = out[op - off];
        }
    }
    return op == want ? (int64_t)op : -1;
}

static uint64_t snappy_preamble(const unsigned char *ip, const unsigned char *end)
{
    uint64_t v = 0;
    int shift;
    for (shift = 0; ip < end && shift <= 28; shift += 7) {
        unsigned b = *ip++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    return UINT64_MAX;
}

static const unsigned char XERIAL_MAGIC[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

/* One raw block appended at c->buf + *len. */
static int snappy_block(kv_codec *c, const unsigned char *p, size_t n, size_t *len, size_t limit)
{
    uint64_t want = snappy_preamble(p, p + n);
    int64_t got;
    if (want == UINT64_MAX || want > limit - *len)
        return -1;
    if (grow(c, *len + (size_t)want + 1, limit + 1) < 0)
        return -1;
    got = unsnappy_raw(p, p + n, c->buf + *len, (size_t)want);
    if (got < 0)
        return -1;
    *len += (size_t)got;
    return 0;
}

/* Kafka's xerial framing (magic, version, compatible version, then 4-byte big-endian block lengths),
   or a raw block, as kvlog.compression._unsnappy reads them. */
static int64_t unsnappy(kv_codec *c, const unsigned char *p, size_t n, size_t limit)
{
    size_t pos = 16, len = 0;
    if (n < 8 || memcmp(p, XERIAL_MAGIC, 8) != 0)
        return snappy_block(c, p, n, &len, limit) < 0 ? -1 : (int64_t)len;
    while (pos < n) {
        uint32_t size;
        if (n - pos >= 8 && memcmp(p + pos, XERIAL_MAGIC, 8) == 0) {
            pos += 16;  /* concatenated xerial stream */
            continue;
        }
        if (n - pos < 4)
            return -1;
        size = ((uint32_t)p[pos] << 24) | ((uint32_t)p[pos + 1] << 16) | ((uint32_t)p[pos + 2] << 8) | p[pos + 3];
        pos += 4;
        if (size > 0x7fffffffu || size > n - pos)
            return -1;
        if (snappy_block(c, p + pos, size, &len, limit) < 0)
            return -1;
        pos += size;
    }
    return (int64_t)len;
}

#if KVLOG_SYSTEM_CODECS
/* ---------------------------------------------------------------------------------------------- lz4 */

/* One LZ4 frame, as kvlog.compression._unlz4 reads it (bytes after the frame's end are ignored). */
static int64_t unlz4(kv_codec *c, const unsigned char *p, size_t n, size_t limit)
{
    LZ4F_dctx *d = (LZ4F_dctx *)c->lz4;
    size_t pos = 0, len = 0, hint;
    if (n < 7 || load_le32(p) != 0x184D2204u || (p[4] >> 6) != 1)
        return -1;
    if (!d) {
        if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
            return -1;
        c->lz4 = d;
    }
    LZ4F_resetDecompressionContext(d);
    hint = 1;
    while (hint != 0) {
        size_t in = n - pos, out;
        if (pos >= n)
            return -1;  /* the frame is cut short */
        out = room(c, len, limit);
        if (out == 0)
            return -1;
        hint = LZ4F_decompress(d, c->buf + len, &out, p + pos, &in, NULL);
        if (LZ4F_isError(hint))
            return -1;
        pos += in;
        len += out;
        if (len > limit)
            return -1;
        if (in == 0 && out == 0 && hint != 0 && c->cap - len > 0)
            return -1;  /* no progress */
    }
    return (int64_t)len;
}

/* --------------------------------------------------------------------------------------------- zstd */

/* Whole zstd frames (skippable ones too), nothing after the last: as _unzstd with _zstd_complete. */
static int64_t unzstd(kv_codec *c, const unsigned char *p, size_t n, size_t limit)
{
    ZSTD_DCtx *d = (ZSTD_DCtx *)c->zstd;
    ZSTD_inBuffer in = {p, n, 0};
    size_t len = 0, ret = 0;
    if (!d) {
        d = ZSTD_createDCtx();
        if (!d)
            return -1;
        c->zstd = d;
    }
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    if (n == 0)
        return -1;
    while (in.pos < in.size) {
        ZSTD_outBuffer out;
        out.size = room(c, len, limit);
        if (out.size == 0)
            return -1;
        out.dst = c->buf + len;
        out.pos = 0;
        ret = ZSTD_decompressStream(d, &out, &in);
        if (ZSTD_isError(ret))
            return -1;
        len += out.pos;
        if (len > limit)
            return -1;
    }
    /* input used up: the last frame must be complete and its output all flushed */
    while (ret != 0) {
        ZSTD_outBuffer out;
        out.size = room(c, len, limit);
        if (out.size == 0)
            return -1;
        out.dst = c->buf + len;
        out.pos = 0;
        ret = ZSTD_decompressStream(d, &out, &in);
        if (ZSTD_isError(ret) || out.pos == 0)
            return -1;  /* a frame cut short (no more input to finish it) */
        len += out.pos;
        if (len > limit)
            return -1;
    }
    return (int64_t)len;
}
#endif /* KVLOG_SYSTEM_CODECS */

int64_t kv_decompress(kv_codec *c, int codec, const unsigned char *p, size_t n, size_t limit)
{
    int64_t got;
    if (limit > ((size_t)1 << 40))
        limit = (size_t)1 << 40;
    switch (codec) {
    case 2:
        got = unsnappy(c, p, n, limit);
        break;
#if KVLOG_SYSTEM_CODECS
    case 3:
        got = unlz4(c, p, n, limit);
        break;
    case 4:
        got = unzstd(c, p, n, limit);
        break;
#endif
    default:
        return -1;
    }
    if (got < 0 && c->cap > ((size_t)16 << 20)) {
        /* a batch the Python path now decompresses again (a bomb, damage): give the memory back first */
        free(c->buf);
        c->buf = NULL;
        c->cap = 0;
    }
    return got;
}
