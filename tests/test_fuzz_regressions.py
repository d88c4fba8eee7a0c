"""Fuzzing findings and hostile length fields, replayed in the normal suite.

- Every file in ``tests/fuzz_regressions/`` (crash reproducers and interesting inputs from ``make fuzz``)
  goes through every fuzz target (``fuzz/targets.py``): each must decode or raise a typed kvlog error.
- Every seed of every target decodes, so the targets can tell good input from bad.
- Hostile length fields, enumerated: each gives the typed error (or the partial-tail reading) named here.
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard
from fuzz import seeds as seedmod
from fuzz import targets
from fuzz.targets import TARGETS, _legacy_message, _v2_batch

import kvlog
from kvlog import MemoryRecords, compression
from kvlog.errors import CorruptRecordError, DecompressionLimitError, UnsupportedCodecError

REGRESSIONS = sorted(p for p in (Path(__file__).parent / "fuzz_regressions").iterdir() if p.is_file())
T0 = 1_700_000_000_000


def test_there_are_regressions_to_replay():
    assert len(REGRESSIONS) >= 1


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.name)
def test_replay_through_every_target(path):
    data = path.read_bytes()
    for name, fn in TARGETS.items():
        assert fn(data) in ("ok", "error"), name


@pytest.fixture(scope="module")
def all_seeds():
    return seedmod.seeds()


@pytest.mark.parametrize("name", list(TARGETS))
def test_every_seed_decodes(all_seeds, name):
    items = all_seeds[name]
    assert items, f"no seeds for {name}"
    assert [TARGETS[name](d) for d in items] == ["ok"] * len(items)


def test_targets_report_errors():
    assert targets.framing(b"\0" * 11 + b"\x05" + b"\0" * 60) == "error"
    assert targets.codec_zstd(b"\x02not zstd") == "error"
    assert targets.checkpoint_file(b"7\n") == "error"


def test_guard_page_catches_a_read_past_the_input():
    code = ("import ctypes; from fuzz.targets import guarded\n"
            "v = guarded(b'abc'); a = ctypes.addressof(ctypes.c_char.from_buffer(v))\n"
            "print(ctypes.string_at(a, 3)); ctypes.string_at(a, 4)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[1], capture_output=True, check=False)
    assert r.stdout.strip() == b"b'abc'"
    assert r.returncode == -11  # SIGSEGV on the guard page


def test_unknown_codec_id_is_a_typed_error():
    """Found by the framing target: RecordBatch.compression leaked a bare ValueError for codec id 7."""
    for codec in (5, 6, 7):
        buf = _v2(b"", count=0, last_delta=0, codec=codec)  # an empty batch: the scan does not refuse it
        (b,) = MemoryRecords(buf).batches()
        assert f"unknown({codec})" in repr(b)
        with pytest.raises(UnsupportedCodecError, match=f"codec id {codec}") as exc:
            _ = b.compression
        assert exc.value.position == 0
        with pytest.raises(UnsupportedCodecError):
            kvlog.convert(buf, magic=2)


# ------------------------------------------------------------------------------------------ hostile lengths
def _varint(v: int) -> bytes:
    u = ((v << 1) ^ (v >> 63)) & (2**64 - 1)
    out = bytearray()
    while True:
        b, u = u & 0x7F, u >> 7
        out.append(b | (0x80 if u else 0))
        if not u:
            return bytes(out)


def _record(*, length=None, klen=None, vlen=None, hcount=0, headers=b"", ts=b"\x00") -> bytes:
    key, value = b"k", b"v"
    body = b"\x00" + ts + b"\x00"
    body += _varint(len(key) if klen is None else klen) + (key if klen != -1 else b"")
    body += _varint(len(value) if vlen is None else vlen) + value
    body += _varint(hcount) + headers
    return (length if isinstance(length, bytes) else _varint(len(body) if length is None else length)) + body


def _v2(records: bytes, *, count=1, last_delta=None, codec=0) -> bytes:
    head = bytearray(61)
    head[21:23] = codec.to_bytes(2, "big")
    head[23:27] = struct.pack(">i", count - 1 if last_delta is None else last_delta)
    head[43:61] = struct.pack(">qhii", -1, -1, -1, count)
    payload = compression.compress(codec, records, 2) if 1 <= codec <= 4 else records
    return _v2_batch(bytes(head), payload)


def _with_size(buf: bytes, size: int) -> bytes:
    b = bytearray(buf)
    b[8:12] = struct.pack(">i", size)
    return bytes(b)


def _legacy(magic: int, key_field: bytes, value_field: bytes, attributes: int = 0) -> bytes:
    body = bytes([magic, attributes]) + (struct.pack(">q", T0) if magic else b"") + key_field + value_field
    msg = struct.pack(">I", kvlog.crc32(body)) + body
    return struct.pack(">qi", 0, len(msg)) + msg


def _i32(v: int) -> bytes:
    return struct.pack(">i", v)


GOOD = _v2(_record())
CORRUPT, TAIL = CorruptRecordError, "tail"

# (name, buffer, expected): an exception class, ("ok", records) or TAIL (a partial batch: nothing read, no error)
V2_CASES = [
    ("batch length -1", _with_size(GOOD, -1), CORRUPT),
    ("batch length 0", _with_size(GOOD, 0), CORRUPT),
    ("batch length 13", _with_size(GOOD, 13), CORRUPT),
    ("batch length 48 (below the v2 header)", _with_size(GOOD, 48), CORRUPT),
    ("batch length 2^31-1", _with_size(GOOD, 2**31 - 1), TAIL),
    ("batch length remaining+1", _with_size(GOOD, len(GOOD) - 11), TAIL),
    ("magic -1", GOOD[:16] + b"\xff" + GOOD[17:], CORRUPT),
    ("magic 3", GOOD[:16] + b"\x03" + GOOD[17:], CORRUPT),
    ("magic 127", GOOD[:16] + b"\x7f" + GOOD[17:], CORRUPT),
    ("record count -1", _v2(_record(), count=-1, last_delta=0), CORRUPT),
    ("record count 2^31-1", _v2(_record(), count=2**31 - 1, last_delta=0), CORRUPT),
    ("record count above the records present", _v2(_record(), count=2), CORRUPT),
    ("record count 0 with stray bytes (Kafka ignores them)", _v2(_record(), count=0, last_delta=0), ("ok", 0)),
    ("lastOffsetDelta -1", _v2(_record(), count=1, last_delta=-1), CORRUPT),
    ("record length -1", _v2(_record(length=-1)), CORRUPT),
    ("record length 0", _v2(_record(length=0)), CORRUPT),
    ("record length remaining+1", _v2(_record(length=9)), CORRUPT),
    ("record length 2^31-1", _v2(_record(length=2**31 - 1)), CORRUPT),
    ("record length as a 6-byte varint", _v2(b"\x80\x80\x80\x80\x80\x01" + _record()[1:]), CORRUPT),
    ("record length as a padded 5-byte varint", _v2(b"\x90\x80\x80\x80\x00" + _record()[1:]), ("ok", 1)),
    ("timestamp delta as a padded 10-byte varlong", _v2(_record(ts=b"\x80" * 9 + b"\x00")), ("ok", 1)),
    ("timestamp delta as an 11-byte varlong", _v2(_record(ts=b"\xff" * 10 + b"\x01")), CORRUPT),
    ("key length -1 (null)", _v2(_record(klen=-1)), ("ok", 1)),
    ("key length -2 (null in Kafka; the rest no longer parses)", _v2(_record(klen=-2)), CORRUPT),
    ("key length remaining+1", _v2(_record(klen=3)), CORRUPT),
    ("key length 2^31-1", _v2(_record(klen=2**31 - 1)), CORRUPT),
    ("key length 2^63-1", _v2(_record(klen=2**63 - 1)), CORRUPT),
    ("value length remaining+1", _v2(_record(vlen=5)), CORRUPT),
    ("value length 2^31-1", _v2(_record(vlen=2**31 - 1)), CORRUPT),
    ("header count -1", _v2(_record(hcount=-1)), CORRUPT),
    ("header count above the bytes left", _v2(_record(hcount=1)), CORRUPT),
    ("header count 2^31-1", _v2(_record(hcount=2**31 - 1)), CORRUPT),
    ("header key length -1", _v2(_record(hcount=1, headers=_varint(-1) + _varint(0))), CORRUPT),
    ("header key length remaining+1", _v2(_record(hcount=1, headers=_varint(9) + b"ab")), CORRUPT),
    ("header value length -2 (null, as Kafka reads it)", _v2(_record(hcount=1, headers=_varint(1) + b"a" + _varint(-2))),
     ("ok", 1)),
    ("header value length remaining+1", _v2(_record(hcount=1, headers=_varint(1) + b"a" + _varint(7))), CORRUPT),
    *[(f"codec id {c}", _v2(_record(), codec=c), UnsupportedCodecError) for c in (5, 6, 7)],
    *[(f"key length remaining+1 inside codec {c}", _v2(_record(klen=3), codec=c), CORRUPT) for c in (1, 2, 3, 4)],
    *[(f"header count 2^31-1 inside codec {c}", _v2(_record(hcount=2**31 - 1), codec=c), CORRUPT)
      for c in (1, 2, 3, 4)],
]

LEGACY_CASES = []
for _m in (0, 1):
    _good = _legacy(_m, _i32(1) + b"k", _i32(1) + b"v")
    _inner = kvlog.encode_batch([kvlog.Record(b"a", b"1", T0)], magic=_m)
    LEGACY_CASES += [
        (f"v{_m} message size -1", _with_size(_good, -1), CORRUPT),
        (f"v{_m} message size 13", _with_size(_good, 13), CORRUPT),
        (f"v{_m} message size 2^31-1", _with_size(_good, 2**31 - 1), TAIL),
        (f"v{_m} key length -2 (null, as Java reads it)", _legacy(_m, _i32(-2), _i32(1) + b"v"), ("ok", 1)),
        (f"v{_m} key length remaining+1", _legacy(_m, _i32(9) + b"k", _i32(1) + b"v"), CORRUPT),
        (f"v{_m} key length 2^31-1", _legacy(_m, _i32(2**31 - 1) + b"k", _i32(1) + b"v"), CORRUPT),
        (f"v{_m} value length remaining+1", _legacy(_m, _i32(1) + b"k", _i32(2) + b"v"), CORRUPT),
        (f"v{_m} value length 2^31-1", _legacy(_m, _i32(1) + b"k", _i32(2**31 - 1)), CORRUPT),
        (f"v{_m} codec id 4 (zstd)", _legacy(_m, _i32(-1), _i32(1) + b"v", 4), UnsupportedCodecError),
        *[(f"v{_m} codec id {c}", _legacy(_m, _i32(-1), _i32(1) + b"v", c), UnsupportedCodecError) for c in (5, 7)],
        (f"v{_m} compressed wrapper with a null value", _legacy(_m, _i32(-1), _i32(-1), 1), CORRUPT),
        *[(f"v{_m} inner message size {s}",
           _legacy(_m, _i32(-1), _i32(len(z := compression.compress(1, _with_size(_inner, s), _m))) + z, 1), CORRUPT)
          for s in (-1, 0, 2**31 - 1)],
    ]
if _m:
    LEGACY_CASES.append(("v1 message size 21 (below the v1 minimum)", _with_size(_good, 21), CORRUPT))


@pytest.mark.parametrize("name,buf,expected", V2_CASES + LEGACY_CASES, ids=[c[0] for c in V2_CASES + LEGACY_CASES])
def test_hostile_length_field(name, buf, expected):
    mr = MemoryRecords(buf)
    if expected == TAIL:
        assert list(mr.records()) == [] and mr.valid_bytes == 0
        mr.validate()
    elif isinstance(expected, tuple):
        assert len(list(mr.records())) == expected[1]
        assert len(mr.to_arrow()) == expected[1]
    else:
        with pytest.raises(expected) as exc:
            list(mr.records())
        assert exc.value.position == 0
        with pytest.raises(expected):
            mr.to_arrow(check_crc=False)
    # whatever the outcome, every decoder entry point agrees it is typed
    assert targets.framing(buf) in ("ok", "error")
    assert targets._decode_all(buf) in ("ok", "error")


_XERIAL = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
_ZSTD = zstandard.ZstdCompressor().compress(b"x" * 100)
CODEC_CASES = [
    ("xerial block length -1", 2, 2, _XERIAL + _i32(-1) + b"abc", CORRUPT),
    ("xerial block length remaining+1", 2, 2, _XERIAL + _i32(4) + b"abc", CORRUPT),
    ("xerial block length 2^31-1", 2, 2, _XERIAL + _i32(2**31 - 1) + b"abc", CORRUPT),
    ("xerial block header cut", 2, 2, _XERIAL + b"\0\0", CORRUPT),
    ("raw snappy preamble of 4 GiB", 2, 2, b"\xff\xff\xff\xff\x0f\x00", DecompressionLimitError),
    ("raw snappy preamble as a 6-byte varint", 2, 2, b"\xff\xff\xff\xff\xff\x01\x00", CORRUPT),
    ("xerial block preamble of 4 GiB", 2, 2, _XERIAL + _i32(6) + b"\xff\xff\xff\xff\x0f\x00", DecompressionLimitError),
    ("lz4 frame content size 2^40 (a lie)", 3, 0,
     bytes.fromhex("04224d18") + b"\x68\x40" + (2**40).to_bytes(8, "little") + b"\0" + bytes(4), CORRUPT),
    ("lz4 block size 2^31-1", 3, 0, bytes.fromhex("04224d18604082") + (2**31 - 1).to_bytes(4, "little") + b"abc",
     CORRUPT),
    ("zstd frame content size that lies", 4, 2, _ZSTD[:5] + b"\xff" + _ZSTD[6:], CORRUPT),
    ("zstd window needing too much memory", 4, 2, bytes.fromhex("28b52ffd00f8010000"), CORRUPT),
    # the streaming reader returned what it had for a cut frame (Kafka's zstd-jni refuses it)
    *[(f"zstd frame cut {c} bytes short", 4, 2, _ZSTD[:-c], CORRUPT) for c in (1, 3, len(_ZSTD) - 6)],
    ("gzip ISIZE trailer that lies", 1, 2, compression.compress(1, b"hello")[:-4] + b"\xff\xff\xff\xff", CORRUPT),
    ("gzip stream cut short", 1, 2, compression.compress(1, b"hello" * 100)[:-10], CORRUPT),
]


@pytest.mark.parametrize("name,codec,magic,payload,expected", CODEC_CASES, ids=[c[0] for c in CODEC_CASES])
def test_hostile_codec_field(name, codec, magic, payload, expected):
    with pytest.raises(expected):
        compression.decompress(codec, payload, magic, 1 << 20)
    # the same stream inside a batch of its magic: the typed error carries the batch position
    if magic == 2:
        buf = _v2_batch(bytes(21) + codec.to_bytes(2, "big") + bytes(34) + _i32(1), payload)
    else:
        buf = _legacy_message(magic, codec, T0, None, payload, 0)
    with pytest.raises(expected) as exc:
        MemoryRecords(b"" + buf, max_decompressed_bytes=1 << 20).to_arrow()
    assert exc.value.position == 0


def test_recovery_of_a_short_tail_with_a_negative_size_ends():
    """Found by the segment_recovery target: a 17-byte tail declaring size -1 made ``iter_headers`` loop
    forever (the scan calls it partial, and a longer read could never show more)."""
    tail = (REGRESSIONS[0].parent / "segment_recovery-17-byte-tail-size-minus-1-hang").read_bytes()
    code = ("import os, sys, tempfile; from kvlog.log import Log\n"
            "d = os.path.join(tempfile.mkdtemp(), 't-0'); os.makedirs(d)\n"
            "open(os.path.join(d, '00000000000000000000.log'), 'wb').write(sys.stdin.buffer.read())\n"
            "log = Log.open(d); print(log.log_end_offset, log.active_segment.size_in_bytes); log.close()\n")
    r = subprocess.run([sys.executable, "-c", code], input=tail, capture_output=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == [b"0", b"0"]  # the tail is cut, as Kafka treats < 18 bytes as the end


def test_legacy_inner_offsets_near_the_int64_limits():
    """Found by the legacy target under UBSan: ``wrapper offset - last inner offset`` overflowed int64
    (undefined in C, even if the release build's -fwrapv hid it). Now the bound is checked first, and
    unchecked inner offsets wrap as Java's long arithmetic does."""
    r = targets.legacy((REGRESSIONS[0].parent / "legacy-inner-offset-overflow-ubsan").read_bytes())
    assert r in ("ok", "error")

    def wrapper(inner_offsets, wrapper_offset):
        entry = _legacy(1, _i32(-1), _i32(1) + b"v")[8:]  # size and message, after the offset
        inner = b"".join(struct.pack(">q", o) + entry for o in inner_offsets)
        return _legacy_message(1, 1, T0, None, compression.compress(1, inner, 1), wrapper_offset)

    with pytest.raises(CorruptRecordError, match="smaller than the last inner"):
        list(MemoryRecords(wrapper([0, -(2**63) + 1], 4)).records())
    with pytest.raises(CorruptRecordError, match="smaller than the last inner"):
        list(MemoryRecords(wrapper([0, 5], 4)).records())
    recs = list(MemoryRecords(wrapper([2**63 - 1, 0], 2**63 - 1)).records())
    assert [r.offset for r in recs] == [-2, 2**63 - 1]  # base 2^63-1 plus 2^63-1 wraps to -2
