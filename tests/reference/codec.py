"""Compression codecs as Kafka frames them (sheet section 4).

``compress(codec_id, data, magic)`` / ``decompress(codec_id, data, magic)``
for 0 none, 1 gzip, 2 snappy (xerial framing), 3 lz4 (Kafka's LZ4 frame
subset), 4 zstd (magic >= 2 only).  Block-level primitives come from
``cramjam`` (snappy), ``lz4.block`` and ``zstandard``/``zlib``; the framing,
the xxHash32 used by the LZ4 frame, and all validation are written here.

Reader behaviour follows Kafka (and, for snappy, xerial snappy-java):

* gzip: RFC 1952, concatenated members accepted, trailing non-gzip bytes after
  a complete member ignored (java.util.zip.GZIPInputStream); truncated -> error.
* snappy: xerial stream if the first 8 bytes are the xerial magic and at least
  16 bytes are present, else the whole payload is one raw snappy block.
  Version / min-compat fields are not checked (kafka-python does the same; some
  producers write them little-endian).  A repeated xerial header in place of a
  chunk length (concatenated streams) is accepted.  Fewer than 4 bytes left
  where a chunk length is expected -> end of stream (snappy-java), a chunk
  running past the end -> error.
* lz4: magic 04 22 4D 18; FLG version 01, block-independence 1, reserved bits
  (0-1) zero; BD reserved bits zero, block-size code 4..7; optional 8-byte
  content size skipped; HC verified for magic >= 1, *not* checked for magic 0
  (Kafka's ``ignoreFlagDescriptorChecksum``); blocks: uint32 LE, bit 31 =
  stored, size 0 = end mark, size > max block size -> error; block checksums
  verified when flagged; a flagged content checksum is skipped, not verified
  (Kafka at the sheet's commit; a later trunk verifies it); bytes after the end
  mark are ignored.
* zstd: one or more standard frames; incomplete frame -> error.

All failures raise ValueError.
"""

import struct
import zlib

import cramjam
import lz4.block
import zstandard

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
CODEC_NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}

# --------------------------------------------------------------------------
# xxHash32 (from the xxHash specification, pure Python)
# --------------------------------------------------------------------------
_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M32 = 0xFFFFFFFF


def _rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & _M32


def _round(acc, lane):
    acc = (acc + lane * _P2) & _M32
    acc = _rotl(acc, 13)
    return (acc * _P1) & _M32


def xxhash32(data, seed=0):
    data = bytes(data)
    n = len(data)
    pos = 0
    if n >= 16:
        v1 = (seed + _P1 + _P2) & _M32
        v2 = (seed + _P2) & _M32
        v3 = seed & _M32
        v4 = (seed - _P1) & _M32
        while pos + 16 <= n:
            l1, l2, l3, l4 = struct.unpack_from("<IIII", data, pos)
            v1, v2, v3, v4 = _round(v1, l1), _round(v2, l2), _round(v3, l3), _round(v4, l4)
            pos += 16
        acc = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M32
    else:
        acc = (seed + _P5) & _M32
    acc = (acc + n) & _M32
    while pos + 4 <= n:
        (lane,) = struct.unpack_from("<I", data, pos)
        acc = (acc + lane * _P3) & _M32
        acc = (_rotl(acc, 17) * _P4) & _M32
        pos += 4
    while pos < n:
        acc = (acc + data[pos] * _P5) & _M32
        acc = (_rotl(acc, 11) * _P1) & _M32
        pos += 1
    acc ^= acc >> 15
    acc = (acc * _P2) & _M32
    acc ^= acc >> 13
    acc = (acc * _P3) & _M32
    acc ^= acc >> 16
    return acc


# --------------------------------------------------------------------------
# gzip
# --------------------------------------------------------------------------
def gzip_compress(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, 31)  # 31 = gzip container
    return c.compress(bytes(data)) + c.flush()


def gzip_decompress(data):
    data = bytes(data)
    if not data:
        raise ValueError("gzip: empty input")
    out = bytearray()
    while True:
        d = zlib.decompressobj(31)
        try:
            out += d.decompress(data)
            out += d.flush()
        except zlib.error as e:
            raise ValueError("gzip: %s" % e) from None
        if not d.eof:
            raise ValueError("gzip: truncated stream")
        data = d.unused_data
        if not data.startswith(b"\x1f\x8b"):
            return bytes(out)  # trailing garbage (if any) is ignored


# --------------------------------------------------------------------------
# snappy, xerial framing
# --------------------------------------------------------------------------
XERIAL_MAGIC = b"\x82SNAPPY\x00"
XERIAL_HEADER = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
XERIAL_BLOCK = 32 * 1024
_XERIAL_HEAD_INT = struct.unpack(">i", XERIAL_MAGIC[:4])[0]


def snappy_compress(data, block_size=XERIAL_BLOCK):
    data = bytes(data)
    out = bytearray(XERIAL_HEADER)
    for i in range(0, len(data), block_size):
        block = bytes(cramjam.snappy.compress_raw(data[i:i + block_size]))
        out += struct.pack(">i", len(block)) + block
    return bytes(out)


def _snappy_raw(block):
    try:
        return bytes(cramjam.snappy.decompress_raw(bytes(block)))
    except Exception as e:  # cramjam.DecompressionError
        raise ValueError("snappy: %s" % e) from None


def snappy_decompress(data):
    data = bytes(data)
    if len(data) < 16 or data[:8] != XERIAL_MAGIC:
        if not data:
            raise ValueError("snappy: empty input")
        return _snappy_raw(data)
    out = bytearray()
    pos = 16
    while len(data) - pos >= 4:
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if length == _XERIAL_HEAD_INT:
            # concatenated xerial stream: the rest of a 16-byte header follows
            if len(data) - pos < 12 or data[pos - 4:pos + 4] != XERIAL_MAGIC:
                raise ValueError("snappy: bad concatenated xerial header")
            pos += 12
            continue
        if length < 0:
            raise ValueError("snappy: negative xerial chunk length %d" % length)
        if pos + length > len(data):
            raise ValueError("snappy: xerial chunk runs past the end")
        out += _snappy_raw(data[pos:pos + length])
        pos += length
    return bytes(out)


# --------------------------------------------------------------------------
# LZ4 frame (Kafka subset)
# --------------------------------------------------------------------------
LZ4_MAGIC = 0x184D2204
LZ4_FLG = 0x60          # version 01, block independence, nothing else
LZ4_BD = 0x40           # max block size code 4 = 64 KiB
LZ4_BLOCK = 64 * 1024
LZ4_STORED = 0x80000000


def lz4_header(magic):
    head = struct.pack("<I", LZ4_MAGIC) + bytes([LZ4_FLG, LZ4_BD])
    covered = head if magic == 0 else head[4:]   # the magic-0 quirk
    return head + bytes([(xxhash32(covered) >> 8) & 0xFF])


def lz4_compress(data, magic=2, block_size=LZ4_BLOCK):
    data = bytes(data)
    out = bytearray(lz4_header(magic))
    for i in range(0, len(data), block_size):
        chunk = data[i:i + block_size]
        comp = lz4.block.compress(chunk, store_size=False)
        if len(comp) >= len(chunk):
            out += struct.pack("<I", len(chunk) | LZ4_STORED) + chunk
        else:
            out += struct.pack("<I", len(comp)) + comp
    out += b"\x00\x00\x00\x00"
    return bytes(out)


def lz4_decompress(data, magic=2):
    data = bytes(data)
    if len(data) < 6:
        raise ValueError("lz4: stream ended prematurely")
    if struct.unpack_from("<I", data, 0)[0] != LZ4_MAGIC:
        raise ValueError("lz4: invalid magic")
    flg, bd = data[4], data[5]
    if flg & 0x03:
        raise ValueError("lz4: FLG reserved bits must be 0")
    if not flg & 0x20:
        raise ValueError("lz4: dependent block stream is unsupported")
    if flg >> 6 != 1:
        raise ValueError("lz4: FLG version %d is unsupported" % (flg >> 6))
    if bd & 0x8F:
        raise ValueError("lz4: BD reserved bits must be 0")
    code = (bd >> 4) & 7
    if not 4 <= code <= 7:
        raise ValueError("lz4: block size code must be 4..7")
    max_block = 1 << (2 * code + 8)
    content_checksum = bool(flg & 0x04)
    content_size = bool(flg & 0x08)
    block_checksum = bool(flg & 0x10)
    pos = 6
    if content_size:
        if len(data) - pos < 8:
            raise ValueError("lz4: stream ended prematurely")
        pos += 8
    if pos >= len(data):
        raise ValueError("lz4: missing header checksum")
    if magic != 0:
        expect = (xxhash32(data[4:pos]) >> 8) & 0xFF
        if data[pos] != expect:
            raise ValueError("lz4: stream frame descriptor corrupted")
    pos += 1
    out = bytearray()
    while True:
        if len(data) - pos < 4:
            raise ValueError("lz4: stream ended prematurely")
        (word,) = struct.unpack_from("<I", data, pos)
        pos += 4
        stored = bool(word & LZ4_STORED)
        size = word & ~LZ4_STORED
        if size == 0:
            if content_checksum:
                if len(data) - pos < 4:
                    raise ValueError("lz4: stream ended prematurely")
                pos += 4
            return bytes(out)
        if size > max_block:
            raise ValueError("lz4: block size %d exceeded max %d" % (size, max_block))
        if len(data) - pos < size:
            raise ValueError("lz4: stream ended prematurely")
        block = data[pos:pos + size]
        pos += size
        if stored:
            out += block
        else:
            try:
                out += lz4.block.decompress(block, uncompressed_size=max_block)
            except Exception as e:  # lz4.block.LZ4BlockError
                raise ValueError("lz4: %s" % e) from None
        if block_checksum:
            if len(data) - pos < 4:
                raise ValueError("lz4: stream ended prematurely")
            if struct.unpack_from("<I", data, pos)[0] != xxhash32(block):
                raise ValueError("lz4: block checksum mismatch")
            pos += 4


# --------------------------------------------------------------------------
# zstd
# --------------------------------------------------------------------------
def zstd_compress(data, level=3):
    # zstd-jni's streaming ZstdOutputStream does not know the content size.
    c = zstandard.ZstdCompressor(level=level, write_content_size=False)
    return c.compress(bytes(data))


def zstd_decompress(data):
    data = bytes(data)
    if not data:
        raise ValueError("zstd: empty input")
    out = bytearray()
    while data:
        d = zstandard.ZstdDecompressor().decompressobj()
        try:
            out += d.decompress(data)
        except zstandard.ZstdError as e:
            raise ValueError("zstd: %s" % e) from None
        if not d.eof:
            raise ValueError("zstd: truncated frame")
        data = d.unused_data
    return bytes(out)


# --------------------------------------------------------------------------
def _check(codec_id, magic):
    if codec_id not in CODEC_NAMES:
        raise ValueError("invalid compression codec id %d" % codec_id)
    if magic not in (0, 1, 2):
        raise ValueError("invalid magic %d" % magic)
    if codec_id == ZSTD and magic < 2:
        raise ValueError("zstd requires magic >= 2")


def compress(codec_id, data, magic=2):
    _check(codec_id, magic)
    if codec_id == NONE:
        return bytes(data)
    if codec_id == GZIP:
        return gzip_compress(data)
    if codec_id == SNAPPY:
        return snappy_compress(data)
    if codec_id == LZ4:
        return lz4_compress(data, magic)
    return zstd_compress(data)


def decompress(codec_id, data, magic=2):
    _check(codec_id, magic)
    if codec_id == NONE:
        return bytes(data)
    if codec_id == GZIP:
        return gzip_decompress(data)
    if codec_id == SNAPPY:
        return snappy_decompress(data)
    if codec_id == LZ4:
        return lz4_decompress(data, magic)
    return zstd_decompress(data)
