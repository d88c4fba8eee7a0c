"""CRC-32 (IEEE, zlib / java.util.zip.CRC32) and CRC-32C (Castagnoli,
java.util.zip.CRC32C), computed with a single 256-entry table built from the
reflected polynomials.  Incremental semantics match ``zlib.crc32``:
``crc32(b, crc32(a)) == crc32(a + b)``; ``value`` is the previous *final*
CRC value (0 to start)."""

CRC32_POLY = 0xEDB88320    # reflected 0x04C11DB7
CRC32C_POLY = 0x82F63B78   # reflected 0x1EDC6F41


def _make_table(poly):
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            if c & 1:
                c = (c >> 1) ^ poly
            else:
                c >>= 1
        table.append(c)
    return table


_CRC32_TABLE = _make_table(CRC32_POLY)
_CRC32C_TABLE = _make_table(CRC32C_POLY)


def _crc(table, data, value):
    # Undo the final XOR of the previous value, continue, re-apply the XOR.
    c = (value ^ 0xFFFFFFFF) & 0xFFFFFFFF
    for byte in bytes(data):
        c = table[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc32(data, value=0):
    """CRC-32/ISO-HDLC as used by legacy (v0/v1) messages."""
    return _crc(_CRC32_TABLE, data, value)


def crc32c(data, value=0):
    """CRC-32C/Castagnoli as used by v2 record batches."""
    return _crc(_CRC32C_TABLE, data, value)


def crc32_bitwise(data, value=0):
    """Bit-at-a-time CRC-32 (no table), for cross-checking the table version."""
    return _crc_bitwise(CRC32_POLY, data, value)


def crc32c_bitwise(data, value=0):
    """Bit-at-a-time CRC-32C (no table), for cross-checking the table version."""
    return _crc_bitwise(CRC32C_POLY, data, value)


def _crc_bitwise(poly, data, value):
    c = (value ^ 0xFFFFFFFF) & 0xFFFFFFFF
    for byte in bytes(data):
        c ^= byte
        for _ in range(8):
            c = (c >> 1) ^ (poly if c & 1 else 0)
    return c ^ 0xFFFFFFFF
