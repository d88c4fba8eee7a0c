import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlog._core import records as K
from kvlog.errors import CorruptRecordError
from tests.reference import varint as ref

# (value, encoding) pairs: zigzag base-128 as Kafka's ByteUtils writes them
TABLE32 = [
    (0, "00"), (-1, "01"), (1, "02"), (-64, "7f"), (63, "7e"), (64, "8001"), (-65, "8101"),
    (300, "d804"), (-300, "d704"), (8191, "fe7f"), (8192, "808001"), (-8193, "818001"),
    (2**31 - 1, "feffffff0f"), (-(2**31), "ffffffff0f"),
]
TABLE64 = TABLE32 + [
    (2**31, "8080808010"), (2**63 - 1, "feffffffffffffffff01"), (-(2**63), "ffffffffffffffffff01"),
    (1700000000000, "80a0abfef962"),
]


@pytest.mark.parametrize("value,hexenc", TABLE32)
def test_varint_table(value, hexenc):
    enc = bytes.fromhex(hexenc)
    assert K.write_varint(value) == enc == ref.encode_varint(value)
    assert K.read_varint(enc) == (value, len(enc))


@pytest.mark.parametrize("value,hexenc", TABLE64)
def test_varlong_table(value, hexenc):
    enc = bytes.fromhex(hexenc)
    assert K.write_varlong(value) == enc == ref.encode_varlong(value)
    assert K.read_varlong(enc) == (value, len(enc))


def test_varint_overlong_fifth_byte_rejected():
    with pytest.raises(CorruptRecordError, match="illegal varint"):
        K.read_varint(bytes.fromhex("ffffffff8f01"))


def test_varint_surplus_high_bits_of_fifth_byte_dropped_like_java():
    # 5th byte 0x7f: bits above 32 are discarded by Java's int shift
    assert K.read_varint(bytes.fromhex("ffffffff7f"))[0] == ref.decode_varint(bytes.fromhex("ffffffff7f"))[0]


def test_varlong_overlong_rejected():
    with pytest.raises(CorruptRecordError, match="illegal varlong"):
        K.read_varlong(b"\xff" * 10 + b"\x01")


@pytest.mark.parametrize("enc", ["", "80", "ff", "ffff", "ffffffff"])
def test_varint_truncated(enc):
    with pytest.raises(CorruptRecordError, match="truncated"):
        K.read_varint(bytes.fromhex(enc))


def test_varint_at_position_and_bounds():
    buf = b"\x00\x02\xd8\x04"
    assert K.read_varint(buf, 2) == (300, 4)
    with pytest.raises(CorruptRecordError):
        K.read_varint(buf, 4)
    with pytest.raises(ValueError):
        K.read_varint(buf, 9)


def test_non_minimal_encoding_accepted_like_kafka():
    assert K.read_varint(b"\x82\x00") == (1, 2)


@given(st.integers(-(2**31), 2**31 - 1))
def test_varint_roundtrip_vs_reference(v):
    enc = K.write_varint(v)
    assert enc == ref.encode_varint(v)
    assert len(enc) == ref.size_of_varint(v)
    assert K.read_varint(enc + b"\x00") == (v, len(enc))


@given(st.integers(-(2**63), 2**63 - 1))
def test_varlong_roundtrip_vs_reference(v):
    enc = K.write_varlong(v)
    assert enc == ref.encode_varlong(v)
    assert K.read_varlong(enc) == (v, len(enc))


@given(st.binary(max_size=12))
def test_arbitrary_bytes_decode_like_reference(data):
    try:
        want = ref.decode_varlong(data, 0)
    except ValueError:
        with pytest.raises(CorruptRecordError):
            K.read_varlong(data)
    else:
        assert K.read_varlong(data) == want
