"""Self-checks of the test oracles: the pure-Python reference
(tests/reference) against the sheet's vectors and against the peer libraries
wrapped in tests/oracles.py, in both directions."""

import gzip
import os
import random
import struct
import sys
import zlib

import cramjam
import lz4.frame
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import oracles as O  # noqa: E402
from reference import codec as C  # noqa: E402
from reference import records as R  # noqa: E402
from reference.crc import crc32, crc32_bitwise, crc32c, crc32c_bitwise  # noqa: E402
from reference.varint import (  # noqa: E402
    decode_varint,
    decode_varlong,
    encode_varint,
    encode_varlong,
    size_of_varint,
    size_of_varlong,
)

TS = 1700000000000
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# --------------------------------------------------------------------------
# hex vectors from /work/shared/KAFKA_FORMAT.md
# --------------------------------------------------------------------------
SHEET_V2 = bytes.fromhex(
    "00000000000000000000003a0000000002e99b8dd80000000000000000018bcfe568000000018bcfe56800"
    "ffffffffffffffffffffffffffff0000000110000000026b027600")
SHEET_V1 = bytes.fromhex("00000000000000000000001839268c3301000000018bcfe56800000000016b0000000176")
SHEET_V0 = bytes.fromhex("0000000000000000000000101fecd70a0000000000016b0000000176")
SHEET_EMPTY = bytes.fromhex(
    "000000000000000a00000031000000000212f31ad0000000000002ffffffffffffffff0000018bcfe56800"
    "000000000000000500000000000000000000")
KV = [{"timestamp": TS, "key": b"k", "value": b"v", "headers": []}]


def test_sheet_vector_v2():
    out = R.encode_v2_batch(KV, partition_leader_epoch=0)
    assert out == SHEET_V2
    assert len(out) == 70
    (b,) = R.decode(out)
    assert b["crc"] == 3919285720 and b["crc_valid"]
    assert out[61:] == bytes.fromhex("10000000026b027600")  # sheet 3.4 example record


def test_sheet_vector_v1():
    out = R.encode_legacy(1, KV)
    assert out == SHEET_V1 and len(out) == 36
    assert R.decode(out)[0]["crc"] == 958827571


def test_sheet_vector_v0():
    out = R.encode_legacy(0, KV)
    assert out == SHEET_V0 and len(out) == 28
    assert R.decode(out)[0]["crc"] == 535615242


def test_sheet_vector_empty_batch():
    out = R.encode_v2_batch([], base_offset=10, last_offset_delta=2, max_timestamp=TS,
                            producer_id=5, producer_epoch=0, base_sequence=0,
                            partition_leader_epoch=0)
    assert out == SHEET_EMPTY
    (b,) = R.decode(out)
    assert (b["batch_length"], b["base_offset"], b["last_offset"], b["base_timestamp"],
            b["max_timestamp"], b["record_count"], b["records"]) == (49, 10, 12, -1, TS, 0, [])
    for peer in O.PEERS:
        O.assert_same_batches([b], O.peer_decode(peer, out))


def test_sheet_vectors_decoded_by_peers():
    buf = SHEET_V2 + SHEET_V1 + SHEET_V0
    ref = R.decode(buf)
    assert [b["magic"] for b in ref] == [2, 1, 0]
    for peer in O.PEERS:
        O.assert_same_batches(ref, O.peer_decode(peer, buf, split=True))


# --------------------------------------------------------------------------
# CRC
# --------------------------------------------------------------------------
def test_crc_check_values():
    assert crc32(b"123456789") == 0xCBF43926
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32_bitwise(b"123456789") == 0xCBF43926
    assert crc32c_bitwise(b"123456789") == 0xE3069283
    assert crc32(b"") == 0 and crc32c(b"") == 0


def test_crc_incremental_and_against_libraries():
    import crc32c as crc32c_mod
    from aiokafka.record._crecords import crc32c_cython
    rnd = random.Random(1)
    for n in (0, 1, 7, 64, 1000):
        data = bytes(rnd.getrandbits(8) for _ in range(n))
        assert crc32(data) == zlib.crc32(data) == crc32_bitwise(data)
        assert crc32c(data) == crc32c_mod.crc32c(data) == crc32c_cython(data) == crc32c_bitwise(data)
        cut = n // 3
        assert crc32(data[cut:], crc32(data[:cut])) == crc32(data)
        assert crc32c(data[cut:], crc32c(data[:cut])) == crc32c(data)


# --------------------------------------------------------------------------
# varints
# --------------------------------------------------------------------------
VARINTS = [
    (0, "00"), (1, "02"), (-1, "01"), (63, "7e"), (64, "8001"), (-64, "7f"), (-65, "8101"),
    (300, "d804"), (-300, "d704"), (INT32_MAX, "feffffff0f"), (INT32_MIN, "ffffffff0f"),
]
VARLONGS = VARINTS + [
    (INT64_MAX, "feffffffffffffffff01"), (INT64_MIN, "ffffffffffffffffff01"),
    (2**31, "8080808010"), (-(2**31) - 1, "8180808010"),
]


@pytest.mark.parametrize("value,hexstr", VARINTS)
def test_varint_table(value, hexstr):
    raw = bytes.fromhex(hexstr)
    assert encode_varint(value) == raw
    assert decode_varint(raw, 0) == (value, len(raw))
    assert decode_varint(b"\xaa" + raw + b"\xbb", 1) == (value, 1 + len(raw))
    assert size_of_varint(value) == len(raw)


@pytest.mark.parametrize("value,hexstr", VARLONGS)
def test_varlong_table(value, hexstr):
    raw = bytes.fromhex(hexstr)
    assert encode_varlong(value) == raw
    assert decode_varlong(raw, 0) == (value, len(raw))
    assert size_of_varlong(value) == len(raw)


def test_varint_errors():
    with pytest.raises(ValueError):
        decode_varint(bytes.fromhex("ffffffff8f"), 0)     # 5th byte continuation bit
    with pytest.raises(ValueError):
        decode_varint(bytes.fromhex("ffffffffff01"), 0)
    for trunc in ("", "80", "ffff", "ffffffff"):
        with pytest.raises(ValueError):
            decode_varint(bytes.fromhex(trunc), 0)
    with pytest.raises(ValueError):
        decode_varlong(bytes.fromhex("ff" * 10 + "01"), 0)  # 11 bytes
    with pytest.raises(ValueError):
        decode_varlong(bytes.fromhex("ff" * 9), 0)
    with pytest.raises(ValueError):
        encode_varint(INT32_MAX + 1)
    with pytest.raises(ValueError):
        encode_varlong(INT64_MIN - 1)
    # Java semantics: non-minimal encodings accepted, surplus 5th-byte bits dropped
    assert decode_varint(bytes.fromhex("8000"), 0) == (0, 2)
    assert decode_varint(bytes.fromhex("feffffff7f"), 0) == (INT32_MAX, 5)


def test_varints_against_peers():
    from aiokafka.record._crecords import decode_varint_cython, encode_varint_cython
    from kafka.record.util import decode_varint as kp_decode  # imported by oracles already
    from kafka.record.util import encode_varint as kp_encode
    rnd = random.Random(2)
    values = [v for v, _ in VARLONGS] + [rnd.randint(INT64_MIN, INT64_MAX) for _ in range(300)]
    values += [rnd.randint(-1000, 1000) for _ in range(100)]
    for v in values:
        ref = encode_varlong(v)
        out = bytearray()
        kp_encode(v, out.append)
        assert bytes(out) == ref
        assert kp_decode(bytearray(ref), 0) == (v, len(ref))
        if INT32_MIN <= v <= INT32_MAX:
            out = bytearray()
            encode_varint_cython(v, out.append)
            assert bytes(out) == encode_varint(v) == ref
            assert decode_varint_cython(bytearray(ref), 0) == (v, len(ref))


# --------------------------------------------------------------------------
# codecs
# --------------------------------------------------------------------------
def test_xxhash32_vectors_and_lz4_headers():
    assert C.xxhash32(b"") == 0x02CC5D05
    assert C.xxhash32(b"a") == 0x550D7456
    assert C.xxhash32(b"abc") == 0x32D153FF
    assert C.xxhash32(b"Nobody inspects the spammish repetition") == 0xE2293B2F
    assert C.lz4_header(1) == C.lz4_header(2) == bytes.fromhex("04224d18604082")
    assert C.lz4_header(0) == bytes.fromhex("04224d1860401a")
    # lz4.frame's own header for the same FLG/BD (its HC is computed by liblz4)
    assert lz4.frame.compress(b"", block_linked=False)[:7] == C.lz4_header(2)


PAYLOADS = [b"", b"x", b"abc" * 30000, os.urandom(70000), bytes(200000)]


@pytest.mark.parametrize("magic", [0, 1, 2])
@pytest.mark.parametrize("codec_id", [0, 1, 2, 3, 4])
def test_codec_roundtrip(magic, codec_id):
    if codec_id == 4 and magic < 2:
        with pytest.raises(ValueError):
            C.compress(codec_id, b"x", magic)
        return
    for data in PAYLOADS:
        assert C.decompress(codec_id, C.compress(codec_id, data, magic), magic) == data


def test_codec_interop_with_libraries():
    import aiokafka.codec as ac
    for data in PAYLOADS:
        # gzip
        assert gzip.decompress(C.gzip_compress(data)) == data
        assert C.gzip_decompress(gzip.compress(data)) == data
        assert C.gzip_decompress(gzip.compress(data) + gzip.compress(b"tail")) == data + b"tail"
        # snappy: xerial framing identical to aiokafka's; raw snappy accepted
        assert C.snappy_compress(data) == ac.snappy_encode(data)
        if data:   # peer quirk 12: a header-only (empty) xerial stream is misread as raw
            assert ac.snappy_decode(C.snappy_compress(data)) == data
        if data:
            assert C.snappy_decompress(bytes(cramjam.snappy.compress_raw(data))) == data
        # lz4: a standard frame reader accepts our magic>=1 frames (HC verified)
        assert lz4.frame.decompress(C.lz4_compress(data, 1)) == data
        assert bytes(cramjam.lz4.decompress(C.lz4_compress(data, 2))) == data
        for kw in ({}, {"block_checksum": True}, {"content_checksum": True},
                   {"store_size": False}, {"block_size": lz4.frame.BLOCKSIZE_MAX4MB}):
            frame = lz4.frame.compress(data, block_linked=False, **kw)
            assert C.lz4_decompress(frame, 2) == data
        comp = cramjam.lz4.Compressor(level=9, content_checksum=False, block_linked=False)
        comp.compress(data)
        assert C.lz4_decompress(bytes(comp.finish()), 1) == data
        # zstd
        assert zstandard.ZstdDecompressor().decompressobj().decompress(C.zstd_compress(data)) == data
        assert C.zstd_decompress(zstandard.ZstdCompressor().compress(data)) == data
    assert C.snappy_compress(b"") == C.XERIAL_HEADER


def test_snappy_xerial_blocks():
    data = bytes(range(256)) * 300           # 76800 bytes -> 3 chunks of <= 32 KiB
    out = C.snappy_compress(data)
    assert out[:16] == b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    pos, chunks = 16, 0
    while pos < len(out):
        (n,) = struct.unpack_from(">i", out, pos)
        assert len(cramjam.snappy.decompress_raw(out[pos + 4:pos + 4 + n])) <= 32768
        pos += 4 + n
        chunks += 1
    assert chunks == 3
    # concatenated xerial streams
    assert C.snappy_decompress(out + C.snappy_compress(b"more")[0:]) == data + b"more"
    with pytest.raises(ValueError):
        C.snappy_decompress(out[:-3])


def test_lz4_frame_quirks():
    data = b"hello kafka " * 1000
    f0, f1 = C.lz4_compress(data, 0), C.lz4_compress(data, 1)
    assert f0[:7] == bytes.fromhex("04224d1860401a") and f0[7:] == f1[7:]
    assert C.lz4_decompress(f0, 0) == data
    with pytest.raises(ValueError, match="descriptor"):
        C.lz4_decompress(f0, 1)                   # magic-0 HC is wrong for magic >= 1
    assert C.lz4_decompress(f1, 0) == data        # magic 0 does not verify HC at all
    bad = f1[:6] + b"\x00" + f1[7:]
    assert C.lz4_decompress(bad, 0) == data
    with pytest.raises(ValueError):
        C.lz4_decompress(bad, 2)
    # incompressible data is stored with bit 31 set
    rnd = os.urandom(1000)
    frame = C.lz4_compress(rnd, 2)
    (word,) = struct.unpack_from("<I", frame, 7)
    assert word == 0x80000000 | 1000 and frame[11:1011] == rnd and frame[1011:] == b"\0\0\0\0"
    # block larger than 64 KiB: split in two blocks
    assert C.lz4_decompress(C.lz4_compress(bytes(70000)), 2) == bytes(70000)
    # Kafka reader rejections
    for mutate in (lambda f: f[:4] + bytes([0x40]) + f[5:],      # dependent blocks
                   lambda f: f[:4] + bytes([0xA0]) + f[5:],      # version 2
                   lambda f: f[:4] + bytes([0x61]) + f[5:],      # reserved FLG bit
                   lambda f: f[:5] + bytes([0x30]) + f[6:],      # block size code 3
                   lambda f: f[:-4],                              # no end mark
                   lambda f: b"\x05" + f[1:]):                    # bad magic
        with pytest.raises(ValueError):
            C.lz4_decompress(mutate(f1), 0)
    with pytest.raises(ValueError, match="checksum"):
        f = bytearray(lz4.frame.compress(data, block_linked=False, block_checksum=True))
        f[-8] ^= 1                                                # last byte of the block checksum
        C.lz4_decompress(bytes(f), 2)


# --------------------------------------------------------------------------
# framing and structural errors
# --------------------------------------------------------------------------
def _recs(n, vlen=40, headers=False, nulls=True):
    out = []
    for i in range(n):
        key = None if (nulls and i % 4 == 1) else b"key-%d" % i
        if nulls and i % 4 == 2:
            value = None
        elif nulls and i % 4 == 3:
            value = b""
        else:
            value = (b"value-%d|" % i) * vlen
        hdrs = [("h%d" % i, b"x" * i), ("null", None), ("\u00e9t\u00e9", b"")] if headers else []
        out.append({"timestamp": TS + 7 * i - (3 if i == 2 else 0), "key": key, "value": value,
                    "headers": hdrs})
    return out


def test_walk_stops_at_partial_entry_and_rejects_small_size():
    v2 = R.encode_v2_batch(_recs(3), base_offset=5)
    v1 = R.encode_legacy(1, _recs(2), base_offset=8, compression=1)
    whole = v2 + v1
    assert len(R.decode(whole)) == 2
    for cut in range(1, len(v1)):
        assert len(R.decode(whole[:len(v2) + cut])) == 1
    assert R.decode(b"") == [] and R.decode(b"\0" * 17) == []
    bad = struct.pack(">qi", 0, 13) + b"\0" * 14
    with pytest.raises(ValueError, match="size 13"):
        R.decode(bad)
    with pytest.raises(ValueError, match="magic"):
        R.decode(v2[:16] + b"\x07" + v2[17:])
    for peer in O.PEERS:
        split = peer == "aiokafka-c"     # quirk 1 (mixed magic)
        O.assert_same_batches(R.decode(whole[:-1]), O.peer_decode(peer, whole[:-1], split=split))


def _v2_with_payload(payload, count):
    """A v2 batch with a hand-made (uncompressed) records section."""
    total = 61 + len(payload)
    hdr = bytearray(R.V2_HEADER.pack(0, total - 12, -1, 2, 0, 0, max(count - 1, 0), TS, TS,
                                     -1, -1, -1, count))
    batch = hdr + payload
    struct.pack_into(">I", batch, 17, crc32c(batch[21:]))
    return bytes(batch)


def _record_body(*parts):
    body = b"".join(parts)
    return encode_varint(len(body)) + body


@pytest.mark.parametrize("name,payload,count,match", [
    ("headers<0", _record_body(b"\0", encode_varlong(0), encode_varint(0), encode_varint(-1),
                               encode_varint(-1), encode_varint(-1)), 1, "headers"),
    ("header key<0", _record_body(b"\0", encode_varlong(0), encode_varint(0), encode_varint(-1),
                                  encode_varint(-1), encode_varint(1), encode_varint(-1),
                                  encode_varint(-1)), 1, "header key"),
    ("length too big", encode_varint(9) + b"\0\0\0\x01\x01\0\0", 1, "size"),
    ("length mismatch", encode_varint(5) + b"\0\0\0\x01\x01\0\0", 1, "size"),
    ("leftover", R.encode_v2_record(0, 0, b"k", b"v") + b"\0", 1, "remaining"),
    ("count too big", R.encode_v2_record(0, 0, b"k", b"v"), 2, "EOF"),
    ("bad varint", encode_varint(8) + b"\0\0\xff\xff\xff\xff\xff\x01", 1, "illegal varint"),
    ("key past end", _record_body(b"\0", encode_varlong(0), encode_varint(0), encode_varint(50)),
     1, "key"),
    ("negative count", b"", -1, "count"),
])
def test_v2_structural_errors(name, payload, count, match):
    buf = _v2_with_payload(payload, count)
    with pytest.raises(ValueError, match=match):
        R.decode(buf)


def test_v2_count_zero_is_not_inspected_unless_strict():
    buf = _v2_with_payload(b"garbage", 0)
    assert R.decode(buf)[0]["records"] == []
    with pytest.raises(ValueError):
        R.decode(buf, strict=True)


def test_crc_invalid_is_reported_not_raised():
    buf = bytearray(R.encode_v2_batch(_recs(2)))
    buf[50] ^= 0xFF                                  # producerId byte, covered by the CRC
    assert R.decode(bytes(buf))[0]["crc_valid"] is False
    for peer in O.PEERS:
        assert O.peer_decode(peer, bytes(buf))[0]["crc_valid"] is False
    leg = bytearray(SHEET_V1)
    leg[-1] ^= 0xFF
    assert R.decode(bytes(leg))[0]["crc_valid"] is False
    # leader epoch and base offset are outside the CRC
    buf = bytearray(SHEET_V2)
    buf[0:8] = struct.pack(">q", 99)
    buf[12:16] = struct.pack(">i", 42)
    assert R.decode(bytes(buf))[0]["crc_valid"] is True


# --------------------------------------------------------------------------
# semantics: legacy
# --------------------------------------------------------------------------
def test_legacy_compressed_offsets_and_timestamps():
    recs = _recs(4)
    v0 = R.encode_legacy(0, recs, compression=1, base_offset=100)
    v1 = R.encode_legacy(1, recs, compression=1, base_offset=100)
    for buf in (v0, v1):
        assert struct.unpack_from(">q", buf, 0)[0] == 103         # wrapper = last inner
    inner0 = C.decompress(1, v0[12 + 4 + 6 + 4:], 0)              # v0: crc magic attr keylen(-1)
    assert struct.unpack_from(">q", inner0, 0)[0] == 100          # absolute
    inner1 = C.decompress(1, v1[12 + 4 + 14 + 4:], 1)
    assert struct.unpack_from(">q", inner1, 0)[0] == 0            # relative
    (b1,) = R.decode(v1)
    assert b1["max_timestamp"] == max(r["timestamp"] for r in recs)
    assert [r["offset"] for r in b1["records"]] == [100, 101, 102, 103]
    assert [r["timestamp"] for r in b1["records"]] == [r["timestamp"] for r in recs]
    (b0,) = R.decode(v0)
    assert b0["timestamp_type"] == -1 and {r["timestamp"] for r in b0["records"]} == {-1}


def test_legacy_v1_log_append_time_and_relative_offset_rules():
    recs = _recs(3)
    buf = R.encode_legacy(1, recs, compression=2, timestamp_type=1, log_append_time=TS + 10**6,
                          base_offset=40)
    (b,) = R.decode(buf)
    assert b["attributes"] == 0x0A and b["timestamp_type"] == 1
    assert {r["timestamp"] for r in b["records"]} == {TS + 10**6}
    # gaps after compaction: relative 0,4,9 with wrapper 49 -> 40,44,49
    gap = R.encode_legacy(1, [dict(r, offset_delta=d) for r, d in zip(recs, (0, 4, 9))],
                          compression=1, base_offset=40)
    assert [r["offset"] for r in R.decode(gap)[0]["records"]] == [40, 44, 49]
    # wrapper offset 0 => inner offsets as-is; 0 < wrapper < last inner => error
    w0 = bytearray(gap)
    w0[0:8] = struct.pack(">q", 0)
    assert [r["offset"] for r in R.decode(bytes(w0))[0]["records"]] == [0, 4, 9]
    w3 = bytearray(gap)
    w3[0:8] = struct.pack(">q", 3)
    with pytest.raises(ValueError, match="less than the last inner"):
        R.decode(bytes(w3))
    for peer in O.PEERS:           # peer quirk 8: they silently use the inner offsets
        assert [r["offset"] for r in O.peer_decode(peer, bytes(w3))[0]["records"]] == [0, 4, 9]
        for good in (buf, gap, bytes(w0)):
            if O.peer_can_decode(peer, 1, R.decode(good)[0]["compression"]):
                O.assert_same_batches(R.decode(good), O.peer_decode(peer, good))


def test_legacy_compressed_errors():
    with pytest.raises(ValueError):
        R.encode_legacy(1, [], compression=1)
    empty_inner = R.legacy_entry(0, R.encode_legacy_message(1, 1, TS, None, C.gzip_compress(b"")))
    with pytest.raises(ValueError, match="no inner"):
        R.decode(empty_inner)
    null_value = R.legacy_entry(0, R.encode_legacy_message(1, 1, TS, None, None))
    with pytest.raises(ValueError, match="null value"):
        R.decode(null_value)
    nested = R.encode_legacy(1, _recs(1), compression=1)
    double = R.legacy_entry(0, R.encode_legacy_message(1, 1, TS, None, C.gzip_compress(nested)))
    with pytest.raises(ValueError, match="compressed"):
        R.decode(double)
    # a partial trailing inner entry is ignored (DataLogInputStream), the peers raise (quirk 11)
    partial = R.legacy_entry(7, R.encode_legacy_message(
        1, 1, TS, None, C.gzip_compress(R.encode_legacy(1, _recs(2)) + b"\0" * 5)))
    assert [r["offset"] for r in R.decode(partial)[0]["records"]] == [6, 7]


# --------------------------------------------------------------------------
# semantics: v2
# --------------------------------------------------------------------------
def test_v2_header_fields_and_log_append_time():
    recs = _recs(5, headers=True)
    buf = R.encode_v2_batch(recs, base_offset=1000, compression=3, timestamp_type=1,
                            max_timestamp=TS + 999, producer_id=77, producer_epoch=3,
                            base_sequence=11, partition_leader_epoch=4, is_transactional=True)
    (b,) = R.decode(buf)
    assert b["attributes"] == 0x03 | 0x08 | 0x10
    assert (b["base_offset"], b["last_offset"], b["record_count"]) == (1000, 1004, 5)
    assert b["base_timestamp"] == TS and b["max_timestamp"] == TS + 999
    assert {r["timestamp"] for r in b["records"]} == {TS + 999}
    assert (b["producer_id"], b["producer_epoch"], b["base_sequence"],
            b["partition_leader_epoch"]) == (77, 3, 11, 4)
    for peer in O.PEERS:
        O.assert_same_batches([b], O.peer_decode(peer, buf))


def test_v2_delete_horizon():
    recs = _recs(3)
    horizon = TS + 86400000
    buf = R.encode_v2_batch(recs, delete_horizon_ms=horizon, compression=4)
    (b,) = R.decode(buf)
    assert b["has_delete_horizon"] and b["base_timestamp"] == horizon
    assert b["attributes"] & 0x40
    assert [r["timestamp"] for r in b["records"]] == [r["timestamp"] for r in recs]
    assert b["max_timestamp"] == max(r["timestamp"] for r in recs)
    for peer in O.PEERS:
        O.assert_same_batches([b], O.peer_decode(peer, buf))


def test_v2_control_batch():
    marker = R.control_record(R.ABORT, timestamp=TS, coordinator_epoch=12)
    buf = R.encode_v2_batch([marker], base_offset=50, is_control=True, is_transactional=True,
                            producer_id=1234, producer_epoch=5, partition_leader_epoch=2)
    assert len(buf) == 78 and len(R.encode_v2_record(0, 0, marker["key"], marker["value"])) == 17
    (b,) = R.decode(buf)
    assert b["is_control"] and b["is_transactional"]
    assert b["records"][0]["control"] == {"type": 0, "version": 0, "coordinator_epoch": 12}
    for peer in O.PEERS:
        O.assert_same_batches([b], O.peer_decode(peer, buf))
    other = R.encode_v2_batch([{"timestamp": TS, "key": R.control_key(R.LEADER_CHANGE),
                                "value": b"\0\0", "headers": []}], is_control=True)
    assert R.decode(other)[0]["records"][0]["control"] == {"type": 2, "version": 0,
                                                           "coordinator_epoch": None}
    for bad_key in (None, b"\0\0\0", struct.pack(">hh", -1, 1)):
        bad = R.encode_v2_batch([{"timestamp": TS, "key": bad_key, "value": b"\0" * 6}],
                                is_control=True)
        with pytest.raises(ValueError):
            R.decode(bad)
    short_value = R.encode_v2_batch([{"timestamp": TS, "key": R.control_key(R.COMMIT),
                                      "value": b"\0\0\0"}], is_control=True)
    with pytest.raises(ValueError, match="6 bytes"):
        R.decode(short_value)


# --------------------------------------------------------------------------
# cross-checks reference <-> peers
# --------------------------------------------------------------------------
ALL = [(p, m, c) for p in O.PEERS for m in (0, 1, 2) for c in (0, 1, 2, 3, 4)]
DECODE_MATRIX = [x for x in ALL if O.peer_can_decode(*x)]
ENCODE_MATRIX = [x for x in ALL if O.peer_supports(*x, headers=x[1] == 2)]

# peer -> magic -> codecs, as found with the installed libraries (see oracles.py quirk 7)
EXPECTED_SUPPORT = {
    "aiokafka-c": {0: {0, 1, 2}, 1: {0, 1, 2, 3}, 2: {0, 1, 2, 3, 4}},
    "aiokafka-py": {0: {0, 1, 2}, 1: {0, 1, 2, 3}, 2: {0, 1, 2, 3, 4}},
    "kafka-python": {0: {0, 1, 2}, 1: {0, 1, 2, 3}, 2: {0, 1, 2, 3, 4}},  # snappy through python-snappy
}


def test_support_matrix():
    for peer, by_magic in EXPECTED_SUPPORT.items():
        for magic, codecs in by_magic.items():
            for c in range(5):
                assert O.peer_supports(peer, magic, c) == (c in codecs), (peer, magic, c)
                assert O.peer_can_decode(peer, magic, c) == (c in codecs), (peer, magic, c)
                assert O.peer_supports(peer, magic, c, headers=True) == (c in codecs and magic == 2)
    for peer, magic, c in ALL:
        if not O.peer_supports(peer, magic, c, headers=magic == 2):
            with pytest.raises(ValueError):
                O.peer_encode(peer, magic, _recs(2, headers=magic == 2), compression=c)
    with pytest.raises(ValueError):
        O.peer_encode("aiokafka-c", 1, _recs(2, headers=True))


def _ref_encode(magic, recs, compression, base_offset):
    if magic == 2:
        return R.encode_v2_batch(recs, compression=compression, base_offset=base_offset)
    return R.encode_legacy(magic, recs, compression=compression, base_offset=base_offset)


def _expected(recs, magic, base_offset):
    return [(base_offset + i, (r["timestamp"] if magic else -1), r["key"], r["value"],
             list(r["headers"]) if magic == 2 else []) for i, r in enumerate(recs)]


@pytest.mark.parametrize("peer,magic,codec_id", DECODE_MATRIX)
def test_reference_encode_peer_decode(peer, magic, codec_id):
    for n, headers in ((1, False), (7, magic == 2)):
        recs = _recs(n, headers=headers)
        buf = _ref_encode(magic, recs, codec_id, 31)
        ref = R.decode(buf)
        assert O.records_of(ref) == _expected(recs, magic, 31)
        got = O.peer_decode(peer, buf)
        O.assert_same_batches(ref, got)
        assert O.records_of(got) == _expected(recs, magic, 31)


@pytest.mark.parametrize("peer,magic,codec_id", ENCODE_MATRIX)
def test_peer_encode_reference_decode(peer, magic, codec_id):
    headers = magic == 2
    for n in (1, 7):
        recs = _recs(n, headers=headers)
        buf = O.peer_encode(peer, magic, recs, compression=codec_id, base_offset=31)
        got = R.decode(buf)
        assert O.records_of(got) == _expected(recs, magic, 31)
        assert all(b["crc_valid"] for b in got)
        assert {b["compression"] for b in got} == {codec_id}      # payloads are compressible
        ref = R.decode(_ref_encode(magic, recs, codec_id, 31))
        ignore = ["crc", "batch_length"]                          # codec output differs
        if magic == 2 and peer == "kafka-python":
            ignore.append("partition_leader_epoch")               # quirk 5
            assert got[0]["partition_leader_epoch"] == 0
        if magic == 1 and codec_id:
            ignore += ["base_timestamp", "max_timestamp"]         # quirk 3
            assert got[0]["max_timestamp"] == 0
        O.assert_same_batches(ref, got, ignore=ignore)
        if codec_id in (0, 2):  # deterministic codecs: byte-identical (leader epoch aside)
            expect = bytearray(_ref_encode(magic, recs, codec_id, 31))
            if magic == 2:
                expect[12:16] = struct.pack(">i", got[0]["partition_leader_epoch"])
            if magic == 1 and codec_id:
                assert len(expect) == len(buf)
            else:
                assert bytes(expect) == buf


def test_peer_v2_producer_fields():
    recs = _recs(3, headers=True)
    for peer in O.PEERS:
        buf = O.peer_encode(peer, 2, recs, compression=1, producer_id=42, producer_epoch=7,
                            base_sequence=100, is_transactional=True, base_offset=5)
        (b,) = R.decode(buf)
        assert (b["producer_id"], b["producer_epoch"], b["base_sequence"]) == (42, 7, 100)
        assert b["is_transactional"] and b["crc_valid"] and b["last_offset"] == 7
        ref = R.encode_v2_batch(recs, compression=1, producer_id=42, producer_epoch=7,
                                base_sequence=100, is_transactional=True, base_offset=5)
        O.assert_same_batches(R.decode(ref), [b], ignore=("crc", "batch_length",
                                                         "partition_leader_epoch"))


def _mixed_buffer():
    parts = [
        R.encode_v2_batch(_recs(3, headers=True), base_offset=0, compression=1),
        R.encode_legacy(1, _recs(2), base_offset=3),
        R.encode_legacy(0, _recs(2), base_offset=5, compression=1),
        R.encode_v2_batch(_recs(4), base_offset=7, compression=3, partition_leader_epoch=9),
        R.encode_legacy(1, _recs(3), base_offset=11, compression=2),
        R.encode_v2_batch([R.control_record(R.COMMIT, timestamp=TS, coordinator_epoch=3)],
                          base_offset=14, is_control=True, is_transactional=True,
                          producer_id=8, producer_epoch=0),
        R.encode_v2_batch([], base_offset=15, last_offset_delta=4, max_timestamp=TS),
    ]
    return b"".join(parts)


def test_mixed_magic_buffer():
    buf = _mixed_buffer()
    ref = R.decode(buf)
    assert [b["magic"] for b in ref] == [2, 1, 1, 0, 2, 1, 2, 2]
    offsets = [r["offset"] for b in ref for r in b["records"]]
    assert offsets == list(range(15))
    O.assert_same_batches(ref, O.peer_decode("aiokafka-py", buf))
    O.assert_same_batches(ref, O.peer_decode("aiokafka-c", buf, split=True))   # quirk 1
    # kafka-python cannot read snappy here: drop the snappy wrapper (legacy attrs at byte 17)
    no_snappy = b"".join(e for _, e in R.iter_entries(buf) if not (e[16] < 2 and e[17] & 7 == 2))
    assert len(R.decode(no_snappy)) == len(ref) - 1
    O.assert_same_batches(R.decode(no_snappy), O.peer_decode("kafka-python", no_snappy))


def test_aiokafka_c_mixed_magic_bug_still_present():
    """Quirk 1 of tests/oracles.py; if this starts failing, aiokafka fixed it."""
    v2 = R.encode_v2_batch(_recs(2), base_offset=0)
    v1 = R.encode_legacy(1, _recs(2), base_offset=2)
    for buf in (v2 + v1, v1 + v2, SHEET_V0 + SHEET_V2):
        try:
            got = O.peer_decode("aiokafka-c", buf)
        except Exception:   # CorruptRecordException, UnsupportedCodecError, SystemError...
            continue
        assert O.batch_differences(R.decode(buf), got), "aiokafka-c decoded a mixed buffer"
    O.assert_same_batches(R.decode(v1 + v2), O.peer_decode("aiokafka-py", v1 + v2))


# --------------------------------------------------------------------------
# property test: reference encode -> peer decode == input
# --------------------------------------------------------------------------
_bytes_or_none = st.one_of(st.none(), st.binary(max_size=40))
_record = st.fixed_dictionaries({
    "timestamp": st.integers(min_value=0, max_value=2**45),
    "key": _bytes_or_none,
    "value": st.one_of(st.none(), st.binary(max_size=60), st.just(b"z" * 300)),
    "headers": st.lists(st.tuples(st.text(max_size=8), _bytes_or_none), max_size=3),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recs=st.lists(_record, min_size=1, max_size=6),
       magic=st.sampled_from([0, 1, 2, 2, 2]),
       codec_id=st.sampled_from([0, 1, 2, 3, 4]),
       base_offset=st.integers(min_value=0, max_value=2**40))
def test_property_reference_encode_peer_decode(recs, magic, codec_id, base_offset):
    if magic < 2:
        recs = [dict(r, headers=[]) for r in recs]
        if codec_id == 4:
            codec_id = 1
    buf = _ref_encode(magic, recs, codec_id, base_offset)
    ref = R.decode(buf)
    expected = _expected(recs, magic, base_offset)
    assert O.records_of(ref) == expected
    for peer in O.PEERS:
        if O.peer_can_decode(peer, magic, codec_id):
            got = O.peer_decode(peer, buf)
            O.assert_same_batches(ref, got)
            assert O.records_of(got) == expected
