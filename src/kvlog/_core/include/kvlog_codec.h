/* kvlog_codec.h - decompression of v2 batch payloads (snappy, lz4, zstd) callable without the GIL.
 *
 * Each decoder owns one kv_codec (its scratch output buffer and the lz4/zstd contexts, made on first
 * use): nothing is shared between threads. kv_decompress returns the decompressed length (the bytes
 * are at c->buf), or -1 for anything it does not accept whole, and then the caller decompresses the
 * batch with kvlog.compression, which returns the same bytes or raises the documented error.
 */
#ifndef KVLOG_CODEC_H
#define KVLOG_CODEC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    unsigned char *buf;  /* output of the last call */
    size_t cap;
    void *lz4;           /* LZ4F_dctx */
    void *zstd;          /* ZSTD_DCtx */
} kv_codec;

/* codec: Kafka's id (2 snappy, 3 lz4, 4 zstd; others return -1); at most `limit` bytes of output */
int64_t kv_decompress(kv_codec *c, int codec, const unsigned char *p, size_t n, size_t limit);
void kv_codec_free(kv_codec *c);
/* which codecs kv_decompress handles in this build: "snappy,lz4,zstd", or "snappy" without liblz4/libzstd */
const char *kv_codec_inline(void);

#endif
