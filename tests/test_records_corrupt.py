"""Hostile bytes: truncations, bit flips, random input, decompression bombs, absurd lengths.

The contract: kvlog either decodes or raises a kvlog error carrying the byte position. Never a crash,
a hang, unbounded memory, or a leaked struct.error / IndexError / UnicodeDecodeError.
"""

import contextlib
import io
import random
import resource
import signal
import zlib

import cramjam
import lz4.frame
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import MemoryRecords, Record
from tests.reference import records as ref

T0 = 1_700_000_000_000
COMBOS = [(m, c) for m in (0, 1, 2) for c in range(5) if not (m < 2 and c == 4)]


def sample(magic, codec, n=4):
    recs = [Record(b"key%d" % i, b"value-%d " % i * 6, T0 + i, (("h", b"x"),) if magic == 2 else ()) for i in range(n)]
    return kvlog.encode_batch(recs, magic=magic, compression=codec, base_offset=10)


def exercise(data):
    """Run every read path; return the records read, or the kvlog error raised."""
    mr = MemoryRecords(data)
    try:
        out = [(r.offset, r.key, r.value) for r in mr.records(check_crc=False)]
        mr.to_arrow(check_crc=False)
        for b in mr.batches():
            b.is_valid(), b.base_offset, b.record_count, b.timestamp_type, b.compression
        mr.valid_bytes
        mr.validate()
        return out
    except kvlog.KvlogError as exc:
        assert isinstance(exc, ValueError)
        if isinstance(exc, kvlog.CorruptRecordError):
            assert exc.position is not None, f"no position in {exc!r}"
        return exc


@pytest.mark.parametrize("magic,codec", COMBOS)
def test_every_truncation_point(magic, codec):
    full = sample(magic, 0, 2) + sample(magic, codec)
    first = len(sample(magic, 0, 2))
    whole = [(r.offset, r.key, r.value) for r in MemoryRecords(full).records()]
    ends = [b.position + b.size_in_bytes for b in MemoryRecords(full).batches()]
    assert first in ends
    for cut in range(len(full)):
        got = exercise(full[:cut])
        assert not isinstance(got, Exception), (cut, got)
        # a cut batch is an incomplete tail: silently ignored, earlier batches intact
        assert got == whole[: len(got)]
        assert MemoryRecords(full[:cut]).valid_bytes == max([e for e in ends if e <= cut], default=0)


@pytest.mark.parametrize("magic,codec", COMBOS)
def test_every_byte_flipped(magic, codec):
    """Flip every byte (xor 0xff, then 0x00) of a batch: decode or a typed error, nothing else."""
    base = sample(magic, codec)
    for i in range(len(base)):
        for mode in (0, 1):
            buf = bytearray(base)
            buf[i] = buf[i] ^ 0xFF if mode == 0 else 0
            exercise(bytes(buf))


@pytest.mark.parametrize("magic,codec", COMBOS)
def test_crc_catches_every_single_bit_flip_in_covered_bytes(magic, codec):
    base = sample(magic, codec, 1 if magic < 2 and codec == 0 else 4)  # one entry: every byte after 16 covered
    start = 21 if magic == 2 else 16
    rng = random.Random(magic * 10 + codec)
    for i in rng.sample(range(start, len(base)), min(200, len(base) - start)):
        buf = bytearray(base)
        buf[i] ^= 1 << rng.randrange(8)
        with pytest.raises(kvlog.CorruptRecordError):
            MemoryRecords(bytes(buf)).validate(deep=False)
        assert MemoryRecords(bytes(buf)).valid_bytes == 0


@given(st.binary(max_size=600))
def test_random_bytes(data):
    exercise(data)


@given(st.binary(min_size=0, max_size=200), st.integers(0, 3))
def test_random_bytes_behind_valid_header(tail, magic_choice):
    magic = min(magic_choice, 2)
    size = len(tail) + (49 if magic == 2 else 5)
    head = (0).to_bytes(8, "big") + size.to_bytes(4, "big") + b"\x00\x00\x00\x00" + bytes([magic])
    exercise(head + tail)


def test_structural_errors_carry_position():
    good = sample(2, 0)
    bad = bytearray(good)
    bad[8:12] = (5).to_bytes(4, "big")  # batch size below the minimum
    with pytest.raises(kvlog.CorruptRecordError, match="smaller than the minimum") as exc:
        list(MemoryRecords(good + bytes(bad)).records())
    assert exc.value.position == len(good)
    bad = bytearray(good)
    bad[16] = 7
    with pytest.raises(kvlog.CorruptRecordError, match="unknown magic"):
        list(MemoryRecords(bytes(bad)).batches())


@contextlib.contextmanager
def _hang_guard(seconds=60):
    """Fail instead of hanging: a loop over 2**31 phantom records, or a bomb inflated in full, would
    run for minutes. Not a timing assertion: the bound is far above any normal run, loaded or not."""
    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_absurd_record_count_is_rejected_without_walking_it():
    recs = [{"key": b"k", "value": b"v", "timestamp": T0}]
    buf = ref.encode_v2_batch(recs, record_count=2**31 - 1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with _hang_guard(), pytest.raises(kvlog.CorruptRecordError, match="records"):
        MemoryRecords(buf).to_arrow()
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 200


def test_leftover_bytes_after_declared_records():
    recs = [{"key": b"k", "value": b"v", "timestamp": T0}] * 2
    buf = ref.encode_v2_batch(recs, record_count=1)
    with pytest.raises(kvlog.CorruptRecordError, match="remain"):
        MemoryRecords(buf).to_arrow()


def test_empty_batch_with_stray_bytes_is_ignored_like_kafka():
    buf = ref.encode_v2_batch([{"key": b"k", "value": b"v", "timestamp": T0}], record_count=0)
    assert MemoryRecords(buf).to_arrow().num_rows == 0


def test_legacy_inner_problems():
    inner_v1 = kvlog.encode_batch([Record(b"a", b"1", T0)], magic=1)
    nested = kvlog.encode_batch([Record(b"a", b"1", T0)], magic=1, compression="gzip")

    def wrapper(payload, codec=1, offset=0):
        body = b"\x01" + bytes([codec]) + T0.to_bytes(8, "big") + b"\xff\xff\xff\xff"
        body += len(payload).to_bytes(4, "big") + payload
        msg = kvlog.crc32(body).to_bytes(4, "big") + body
        return offset.to_bytes(8, "big") + len(msg).to_bytes(4, "big") + msg

    ok = wrapper(zlib.compress(inner_v1, wbits=31) if False else _gzip(inner_v1))
    assert [r.value for r in MemoryRecords(ok).records()] == [b"1"]
    with pytest.raises(kvlog.CorruptRecordError, match="itself compressed"):
        list(MemoryRecords(wrapper(_gzip(nested))).records())
    with pytest.raises(kvlog.CorruptRecordError, match="no inner messages"):
        list(MemoryRecords(wrapper(_gzip(b""))).records())
    # a partial trailing inner entry is ignored, as Kafka's reader does
    assert [r.value for r in MemoryRecords(wrapper(_gzip(inner_v1 + inner_v1[:20]))).records()] == [b"1"]
    with pytest.raises(kvlog.CorruptRecordError, match="gzip"):
        list(MemoryRecords(wrapper(b"\x1f\x8bnot gzip at all")).records())


def _gzip(data):
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def test_lz4_magic0_quirk_both_ways():
    recs = [Record(b"a", b"1" * 100, T0)]
    v0 = kvlog.encode_batch(recs, magic=0, compression="lz4")
    payload = v0[12 + 14 + 4:]
    at = v0.index(b"\x04\x22\x4d\x18")
    assert v0[at:at + 7] == bytes.fromhex("04224d1860401a")  # the sheet's magic-0 header
    v1 = kvlog.encode_batch(recs, magic=1, compression="lz4")
    at = v1.index(b"\x04\x22\x4d\x18")
    assert v1[at:at + 7] == bytes.fromhex("04224d18604082")
    assert [r.value for r in MemoryRecords(v0).records()] == [b"1" * 100]
    # a v1 frame with a wrong header checksum is rejected (only magic 0 tolerates it)
    bad = bytearray(v1)
    bad[at + 6] ^= 0xFF
    body = bytes(bad[16:])
    bad[12:16] = kvlog.crc32(body).to_bytes(4, "big")
    with pytest.raises(kvlog.CorruptRecordError, match="lz4"):
        list(MemoryRecords(bytes(bad)).records())
    assert payload


def test_raw_snappy_without_xerial_header_is_accepted():
    inner = b"".join(kvlog.encode_batch([Record(b"a", b"v%d" % i, T0)], magic=1, base_offset=i) for i in range(3))
    raw = bytes(cramjam.snappy.compress_raw(inner))
    body = b"\x01\x02" + T0.to_bytes(8, "big") + b"\xff\xff\xff\xff" + len(raw).to_bytes(4, "big") + raw
    msg = kvlog.crc32(body).to_bytes(4, "big") + body
    entry = (2).to_bytes(8, "big") + len(msg).to_bytes(4, "big") + msg
    assert [r.value for r in MemoryRecords(entry).records()] == [b"v0", b"v1", b"v2"]


# ------------------------------------------------------------------ decompression bombs
BOMB = 256 << 20  # 256 MiB of zeros, over the 64 MiB default budget


def _zero_stream(codec):
    chunk = bytes(1 << 20)
    if codec == 1:
        c = zlib.compressobj(9, zlib.DEFLATED, 31)
        return b"".join(c.compress(chunk) for _ in range(BOMB >> 20)) + c.flush()
    if codec == 2:
        block = bytes(cramjam.snappy.compress_raw(bytes(32 * 1024)))
        one = len(block).to_bytes(4, "big") + block
        return b"\x82SNAPPY\x00" + (1).to_bytes(4, "big") * 2 + one * (BOMB // (32 * 1024))
    if codec == 3:
        c = lz4.frame.LZ4FrameCompressor(block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False)
        return c.begin() + b"".join(c.compress(chunk) for _ in range(BOMB >> 20)) + c.flush()
    out = io.BytesIO()
    with zstandard.ZstdCompressor(level=1).stream_writer(out, closefd=False) as w:
        for _ in range(BOMB >> 20):
            w.write(chunk)
    return out.getvalue()


@pytest.fixture(scope="module")
def bombs():
    return {c: _zero_stream(c) for c in (1, 2, 3, 4)}


def v2_bomb(payload, codec):
    head = bytearray(61)
    head[16] = 2
    head[21:23] = codec.to_bytes(2, "big")
    head[57:61] = (100).to_bytes(4, "big")
    buf = bytes(head) + payload
    buf = bytearray(buf)
    buf[8:12] = (len(buf) - 12).to_bytes(4, "big")
    buf[17:21] = kvlog.crc32c(bytes(buf[21:])).to_bytes(4, "big")
    return bytes(buf)


@pytest.mark.parametrize("codec", [1, 2, 3, 4])
def test_decompression_bomb_v2(bombs, codec):
    buf = v2_bomb(bombs[codec], codec)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with _hang_guard(), pytest.raises(kvlog.DecompressionLimitError) as exc:
        MemoryRecords(buf).to_arrow()
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert exc.value.position == 0 and exc.value.offsets == (0, 0)
    assert grown_mib < 200, f"peak memory grew by {grown_mib:.0f} MiB"
    # an explicit, larger budget is honoured
    with pytest.raises(kvlog.DecompressionLimitError, match=str(1 << 20)):
        MemoryRecords(buf, max_decompressed_bytes=1 << 20).to_arrow()


@pytest.mark.parametrize("codec", [1, 2, 3])
def test_decompression_bomb_legacy(bombs, codec):
    payload = bombs[codec]
    body = b"\x01" + bytes([codec]) + T0.to_bytes(8, "big") + b"\xff\xff\xff\xff"
    body += len(payload).to_bytes(4, "big") + payload
    msg = kvlog.crc32(body).to_bytes(4, "big") + body
    entry = (0).to_bytes(8, "big") + len(msg).to_bytes(4, "big") + msg
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with _hang_guard(), pytest.raises(kvlog.DecompressionLimitError):
        list(MemoryRecords(entry).records())
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 200
