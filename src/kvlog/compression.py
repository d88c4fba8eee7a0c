"""Kafka's compression codecs and their framing quirks, with bounded decompression.

The codecs themselves come from well-kept libraries (zlib, lz4, zstandard, cramjam); kvlog adds
Kafka's framing: xerial snappy blocks, the LZ4 frame settings Kafka writes (and the broken header
checksum of magic-0 LZ4 data), and a hard output budget on every decompression so that a hostile batch
cannot inflate into gigabytes (``DecompressionLimitError``, raised as soon as the budget is passed).
"""

from __future__ import annotations

import enum
import threading
import zlib
from typing import Union

import cramjam
import lz4.frame
import zstandard

from kvlog.errors import ConfigError, CorruptRecordError, DecompressionLimitError, UnsupportedCodecError

__all__ = ["Compression", "DEFAULT_MAX_DECOMPRESSED_BYTES", "compress", "decompress"]

#: Default output budget for one batch's decompression. Kafka producers write batches of at most
#: ``max.message.bytes`` (1 MiB by default) compressed; 64 MiB leaves room for 64x ratios on the largest
#: default batch. Raise it per call (``max_decompressed_bytes=``) for unusual data.
DEFAULT_MAX_DECOMPRESSED_BYTES = 64 << 20

_CHUNK = 1 << 20
_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = _XERIAL_MAGIC + (1).to_bytes(4, "big") + (1).to_bytes(4, "big")
_XERIAL_BLOCK = 32 * 1024
_LZ4_MAGIC = b"\x04\x22\x4d\x18"


class Compression(enum.IntEnum):
    """Codec ids as stored in the low three attribute bits of every batch; a member compares equal to its id
    and prints as Kafka names it (``lz4``; ``format(c, "d")`` and ``int(c)`` give the id)."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4

    @classmethod
    def parse(cls, value: Union["Compression", int, str, None]) -> "Compression":
        """Accept a member, its id, or a name (``"zstd"``, ``"uncompressed"`` and ``"none"`` alike)."""
        if value is None:
            return cls.NONE
        if isinstance(value, str):
            name = value.strip().lower()
            if name in ("none", "uncompressed", ""):
                return cls.NONE
            try:
                return cls[name.upper()]
            except KeyError:
                raise ConfigError(
                    f"unknown compression {value!r}; use none, gzip, snappy, lz4 or zstd"
                ) from None
        try:
            return cls(int(value))
        except ValueError:
            raise ConfigError(f"unknown compression codec id {value!r}") from None

    @property
    def kafka_name(self) -> str:
        return self.name.lower()

    def __str__(self) -> str:
        return self.kafka_name


# ------------------------------------------------------------------------------------------- xxHash32
# Needed only for LZ4 frame header checksums (a few bytes), so plain Python is fine.
_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def _xxh32(data: bytes, seed: int = 0) -> int:
    n = len(data)
    i = 0
    if n >= 16:
        v = [(seed + _P1 + _P2) & _M32, (seed + _P2) & _M32, seed & _M32, (seed - _P1) & _M32]
        while i + 16 <= n:
            for lane in range(4):
                word = int.from_bytes(data[i : i + 4], "little")
                v[lane] = (_rotl((v[lane] + word * _P2) & _M32, 13) * _P1) & _M32
                i += 4
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M32
    else:
        h = (seed + _P5) & _M32
    h = (h + n) & _M32
    while i + 4 <= n:
        h = (_rotl((h + int.from_bytes(data[i : i + 4], "little") * _P3) & _M32, 17) * _P4) & _M32
        i += 4
    while i < n:
        h = (_rotl((h + data[i] * _P5) & _M32, 11) * _P1) & _M32
        i += 1
    h ^= h >> 15
    h = (h * _P2) & _M32
    h ^= h >> 13
    h = (h * _P3) & _M32
    h ^= h >> 16
    return h


# --------------------------------------------------------------------------------------------- codecs
_local = threading.local()


def _zstd_compressor(level: int) -> zstandard.ZstdCompressor:
    cache = getattr(_local, "zc", None)
    if cache is None:
        cache = _local.zc = {}
    comp = cache.get(level)
    if comp is None:
        comp = cache[level] = zstandard.ZstdCompressor(level=level)
    return comp


def _zstd_decompressor() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "zd", None)
    if d is None:
        d = _local.zd = zstandard.ZstdDecompressor()
    return d


def compress(codec: Compression | int, data: bytes, magic: int = 2, level: int | None = None) -> bytes:
    """Compress a batch payload exactly as Kafka frames it for ``codec`` and ``magic``."""
    codec = Compression(codec)
    if codec == Compression.NONE:
        return bytes(data)
    if codec == Compression.GZIP:
        c = zlib.compressobj(6 if level in (None, -1) else level, zlib.DEFLATED, 31)
        return c.compress(data) + c.flush()
    if codec == Compression.SNAPPY:
        parts = [_XERIAL_HEADER]
        view = memoryview(data)
        for i in range(0, len(view), _XERIAL_BLOCK):
            block = bytes(cramjam.snappy.compress_raw(view[i : i + _XERIAL_BLOCK]))
            parts.append(len(block).to_bytes(4, "big"))
            parts.append(block)
        return b"".join(parts)
    if codec == Compression.LZ4:
        # Kafka's frame: independent 64 KiB blocks, no checksums, no content size (FLG 0x60, BD 0x40).
        out: bytes = lz4.frame.compress(
            data,
            compression_level=0 if level in (None, 9) else level,
            block_size=lz4.frame.BLOCKSIZE_MAX64KB,
            block_linked=False,
            content_checksum=False,
            block_checksum=False,
            store_size=False,
        )
        if magic == 0:
            # Kafka's magic-0 quirk: the header checksum covers the magic number too.
            out = out[:6] + bytes([(_xxh32(out[:6]) >> 8) & 0xFF]) + out[7:]
        return out
    if codec == Compression.ZSTD:
        if magic < 2:
            raise UnsupportedCodecError(f"zstd requires magic v2, not v{magic}")
        return _zstd_compressor(3 if level is None else level).compress(data)
    raise UnsupportedCodecError(f"unknown compression codec {codec}")  # pragma: no cover


def _too_big(limit: int) -> DecompressionLimitError:
    return DecompressionLimitError(f"decompressed batch exceeds the limit of {limit} bytes")


def _gunzip(data: memoryview, limit: int) -> bytes:
    out = bytearray()
    rest: bytes | memoryview = data
    while True:
        d = zlib.decompressobj(31)
        chunk = d.decompress(rest, limit + 1 - len(out))
        out += chunk
        while len(out) <= limit and d.unconsumed_tail and not d.eof:
            out += d.decompress(d.unconsumed_tail, limit + 1 - len(out))
        if len(out) > limit:
            raise _too_big(limit)
        if not d.eof:
            raise CorruptRecordError("truncated gzip stream")
        rest = d.unused_data
        if not rest or rest[:2] != b"\x1f\x8b":
            return bytes(out)  # Java's GZIPInputStream also stops at trailing garbage


def _uvarint(data: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    for i in range(pos, min(pos + 5, len(data))):
        b = data[i]
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i + 1
        shift += 7
    raise CorruptRecordError("bad snappy length preamble")


def _unsnappy_block(block: memoryview, budget: int, limit: int) -> bytes:
    size, _ = _uvarint(block, 0)
    if size > budget:
        raise _too_big(limit)
    try:
        out = bytes(cramjam.snappy.decompress_raw(block))
    except cramjam.DecompressionError as exc:
        raise CorruptRecordError(f"invalid snappy block: {exc}") from None
    if len(out) != size:
        raise CorruptRecordError("snappy block length does not match its preamble")
    return out


def _unsnappy(data: memoryview, limit: int) -> bytes:
    if bytes(data[:8]) != _XERIAL_MAGIC:
        return _unsnappy_block(data, limit, limit)  # raw snappy, as the xerial reader accepts
    parts = []
    total = 0
    pos = 16
    n = len(data)
    while pos < n:
        if n - pos >= 8 and bytes(data[pos : pos + 8]) == _XERIAL_MAGIC:
            pos += 16  # concatenated xerial stream
            continue
        if n - pos < 4:
            raise CorruptRecordError("truncated xerial snappy block header")
        size = int.from_bytes(data[pos : pos + 4], "big", signed=True)
        pos += 4
        if size < 0 or size > n - pos:
            raise CorruptRecordError(f"xerial snappy block length {size} exceeds the remaining {n - pos} bytes")
        block = _unsnappy_block(data[pos : pos + size], limit - total, limit)
        total += len(block)
        parts.append(block)
        pos += size
    return b"".join(parts)


def _unlz4(data: memoryview, magic: int, limit: int) -> bytes:
    if len(data) < 7 or bytes(data[:4]) != _LZ4_MAGIC:
        raise CorruptRecordError("lz4 payload does not start with the LZ4 frame magic")
    flg = data[4]
    hc_at = 6 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
    if len(data) <= hc_at:
        raise CorruptRecordError("truncated lz4 frame header")
    if (flg >> 6) != 1:
        raise CorruptRecordError(f"unsupported lz4 frame version {flg >> 6}")
    d = lz4.frame.LZ4FrameDecompressor()
    head = bytes(data[: hc_at + 1])
    if magic == 0:
        # Old Kafka clients wrote a wrong header checksum for magic 0; Kafka does not verify it there.
        head = head[:hc_at] + bytes([(_xxh32(head[4:hc_at]) >> 8) & 0xFF])
    out = bytearray()
    try:
        out += d.decompress(head, limit + 1)
        out += d.decompress(data[hc_at + 1 :], limit + 1 - len(out))
        while len(out) <= limit and not d.eof and not d.needs_input:
            out += d.decompress(b"", limit + 1 - len(out))
    except RuntimeError as exc:
        raise CorruptRecordError(f"invalid lz4 frame: {exc}") from None
    if len(out) > limit:
        raise _too_big(limit)
    if not d.eof:
        raise CorruptRecordError("truncated lz4 frame")
    return bytes(out)


_ZSTD_FRAME = 0xFD2FB528


def _zstd_complete(data: memoryview) -> bool:
    """Whether ``data`` is whole zstd frames, judged from frame and block headers only.

    The streaming reader stops quietly at a cut frame; Kafka's reader (zstd-jni) refuses one.
    """
    n, pos = len(data), 0
    while pos < n:
        if n - pos < 8:  # no frame or skippable frame is this short
            return False
        magic = int.from_bytes(data[pos : pos + 4], "little")
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # skippable frame
            pos += 8 + int.from_bytes(data[pos + 4 : pos + 8], "little")
            continue
        if magic != _ZSTD_FRAME:
            return False
        fhd = data[pos + 4]
        single = (fhd >> 5) & 1
        fcs = (0, 2, 4, 8)[fhd >> 6] or single  # a 1-byte size only in single-segment frames
        pos += 5 + (1 - single) + (0, 1, 2, 4)[fhd & 3] + fcs
        last = 0
        while not last:
            if pos + 3 > n:
                return False
            bh = int.from_bytes(data[pos : pos + 3], "little")
            last, btype, bsize = bh & 1, (bh >> 1) & 3, bh >> 3
            pos += 3 + (1 if btype == 1 else bsize)
        pos += 4 * ((fhd >> 2) & 1)  # content checksum
    return pos == n


def _unzstd(data: memoryview, limit: int) -> bytes:
    out = bytearray()
    try:
        with _zstd_decompressor().stream_reader(data, read_across_frames=True, read_size=_CHUNK) as r:
            while True:
                chunk = r.read(min(_CHUNK, limit + 1 - len(out)))
                if not chunk:
                    break
                out += chunk
                if len(out) > limit:
                    raise _too_big(limit)
    except zstandard.ZstdError as exc:
        raise CorruptRecordError(f"invalid zstd stream: {exc}") from None
    if not _zstd_complete(data):
        raise CorruptRecordError("zstd stream ends inside a frame")
    return bytes(out)


def decompress(
    codec: Compression | int,
    data: bytes | memoryview,
    magic: int = 2,
    limit: int = DEFAULT_MAX_DECOMPRESSED_BYTES,
) -> bytes:
    """Inflate one batch payload; never produces more than ``limit`` bytes.

    Raises ``DecompressionLimitError`` when the output would pass ``limit`` and ``CorruptRecordError``
    for a damaged stream (callers add the batch position).
    """
    view = memoryview(data).cast("B")
    codec = int(codec)
    if codec == Compression.NONE:
        return bytes(view)
    if codec == Compression.GZIP:
        try:
            return _gunzip(view, limit)
        except zlib.error as exc:
            raise CorruptRecordError(f"invalid gzip stream: {exc}") from None
    if codec == Compression.SNAPPY:
        return _unsnappy(view, limit)
    if codec == Compression.LZ4:
        return _unlz4(view, magic, limit)
    if codec == Compression.ZSTD:
        if magic < 2:
            raise UnsupportedCodecError(f"zstd is not allowed with magic v{magic}")
        return _unzstd(view, limit)
    raise UnsupportedCodecError(f"unknown compression codec id {codec}")
