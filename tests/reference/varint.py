"""Zigzag varints as in Kafka's ``ByteUtils`` (protobuf base-128, little-endian
groups, continuation bit 0x80).

Decoding mirrors Java exactly:
* int32 varint: at most 5 bytes; if the 5th byte still has the continuation bit
  set -> ValueError ("illegal varint").  Surplus high bits of the 5th byte are
  silently dropped (Java shifts them out of the 32-bit int).
* int64 varlong: at most 10 bytes; a 10th byte with the continuation bit set ->
  ValueError.  Surplus bits of the 10th byte are dropped.
* Non-minimal encodings (e.g. ``80 00`` for 0) are accepted, like Java does.
* Running out of input -> ValueError (Java: BufferUnderflowException).
"""

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def zigzag32(n):
    if not INT32_MIN <= n <= INT32_MAX:
        raise ValueError("value %d out of int32 range" % n)
    return ((n << 1) ^ (n >> 31)) & 0xFFFFFFFF


def zigzag64(n):
    if not INT64_MIN <= n <= INT64_MAX:
        raise ValueError("value %d out of int64 range" % n)
    return ((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF


def unzigzag(u):
    return (u >> 1) ^ -(u & 1)


def encode_unsigned(u):
    """Base-128 encoding of a non-negative integer."""
    if u < 0:
        raise ValueError("negative value for unsigned varint")
    out = bytearray()
    while True:
        group = u & 0x7F
        u >>= 7
        if u:
            out.append(group | 0x80)
        else:
            out.append(group)
            return bytes(out)


def encode_varint(n):
    """Zigzag int32 varint (1..5 bytes)."""
    return encode_unsigned(zigzag32(n))


def encode_varlong(n):
    """Zigzag int64 varlong (1..10 bytes)."""
    return encode_unsigned(zigzag64(n))


def _decode_unsigned(buf, pos, max_bytes, bits, what):
    value = 0
    shift = 0
    for i in range(max_bytes):
        if pos >= len(buf):
            raise ValueError("truncated %s at position %d" % (what, pos))
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value & ((1 << bits) - 1), pos
        shift += 7
    raise ValueError("illegal %s: more than %d bytes" % (what, max_bytes))


def decode_varint(buf, pos=0):
    """Decode a zigzag int32 varint at ``pos``; returns ``(value, newpos)``."""
    u, pos = _decode_unsigned(buf, pos, 5, 32, "varint")
    return unzigzag(u), pos


def decode_varlong(buf, pos=0):
    """Decode a zigzag int64 varlong at ``pos``; returns ``(value, newpos)``."""
    u, pos = _decode_unsigned(buf, pos, 10, 64, "varlong")
    return unzigzag(u), pos


def _size_unsigned(u):
    size = 1
    while u >= 0x80:
        u >>= 7
        size += 1
    return size


def size_of_varint(n):
    return _size_unsigned(zigzag32(n))


def size_of_varlong(n):
    return _size_unsigned(zigzag64(n))
