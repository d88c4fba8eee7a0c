"""The decoder's own snappy/lz4/zstd decompression (csrc/codec.c, no GIL) against kvlog.compression's.

Whatever the C path accepts must decode to the same columns as the Python path; whatever it does not
accept falls back there, so damaged payloads, cut streams and the decompression budget raise exactly
the errors they always raised. Checked on intact batches of every shape the codecs write (Kafka's
lz4 frame settings, xerial snappy, raw snappy, multi-frame zstd, lz4 with checksums and linked blocks)
and on seeded mutations of their payloads.
"""

from __future__ import annotations

import random
import struct

import cramjam
import lz4.frame
import pytest
import zstandard

from kvlog._core import records as _k
from kvlog.compression import compress
from kvlog.errors import KvlogError
from kvlog.records import MemoryRecords, encode_arrays
from kvlog.records.decode import _decode, _as_view
from kvlog.records.record import V2_HEADER_SIZE

CODECS = {"snappy": 2, "lz4": 3, "zstd": 4}


def _batch(codec: str, n: int = 300, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    keys = [None if i % 7 == 0 else b"k%d" % rng.randrange(1000) for i in range(n)]
    values = [bytes(rng.randrange(97, 101) for _ in range(rng.randrange(0, 300))) for _ in range(n)]
    return encode_arrays(keys, values, list(range(1000, 1000 + n)), compression=codec, records_per_batch=n)


def _rebatch(batch: bytes, payload: bytes) -> bytes:
    """The v2 batch with its records section replaced (length and CRC left stale: decoded unchecked)."""
    out = bytearray(batch[:V2_HEADER_SIZE] + payload)
    struct.pack_into(">i", out, 8, len(out) - 12)
    return bytes(out)


def _outcome(data: bytes, inline: bool, limit: int = 64 << 20) -> object:
    """The decoded columns, or the error's type and text, through the C path or the Python one."""
    view = _as_view(data)
    try:
        if inline:
            got = _decode(view, 0, len(view), include_headers=True, check_crc=False, include_control=False,
                          limit=limit)
        else:
            dec = _k.Decoder(True, False, False, True)  # no budget given: every batch decompressed in Python
            from kvlog.compression import decompress
            from kvlog.records.decode import _inner_payload
            chunks, pos = [], 0
            while True:
                status, pos = dec.run(view, pos, len(view))
                if status != _k.INNER:
                    break
                hdr = dec.current
                dec.inner(decompress(hdr["attributes"] & 7, _inner_payload(view, hdr), hdr["magic"], limit))
                pos += hdr["size"]
            chunks.append(dec.finish())
            got = type("D", (), {"chunks": chunks, "status": status, "stop": pos})
    except (KvlogError, ValueError) as exc:
        return (type(exc).__name__, str(exc).split(" (position")[0])
    return [(c["n"], bytes(c["key_data"]), bytes(c["val_data"]), bytes(c["offsets"]), bytes(c["val_offsets"]),
             bytes(c["key_valid"])) for c in got.chunks if c["n"]], got.status, got.stop


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_intact_batches_decode_alike(codec: str) -> None:
    data = b"".join(_batch(codec, n, seed) for seed, n in enumerate((1, 50, 300, 2000)))
    assert _outcome(data, True) == _outcome(data, False)
    assert MemoryRecords(data).to_arrow().num_rows == 2351


def _variants(codec: str, raw: bytes) -> list[bytes]:
    """Payload encodings other producers write for the same records section."""
    if codec == "lz4":
        return [lz4.frame.compress(raw, block_size=bs, block_linked=linked, content_checksum=cc, block_checksum=bc,
                                   store_size=ss)
                for bs in (lz4.frame.BLOCKSIZE_MAX64KB, lz4.frame.BLOCKSIZE_MAX4MB)
                for linked in (False, True) for cc in (False, True) for bc in (False, True) for ss in (False, True)]
    if codec == "zstd":
        c = zstandard.ZstdCompressor(level=1)
        half = len(raw) // 2
        streamed = c.compressobj()
        return [c.compress(raw), streamed.compress(raw) + streamed.flush(),
                c.compress(raw[:half]) + c.compress(raw[half:]),
                struct.pack("<II", 0x184D2A50, 3) + b"abc" + c.compress(raw)]  # a skippable frame first
    return [bytes(cramjam.snappy.compress_raw(raw)), compress(2, raw)]


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_other_producers_framings(codec: str) -> None:
    batch = _batch(codec, 400, 3)
    plain = MemoryRecords(_batch("none", 400, 3))
    raw = bytes(plain.buffer[V2_HEADER_SIZE:])
    for payload in _variants(codec, raw):
        data = _rebatch(batch, payload)
        assert _outcome(data, True) == _outcome(data, False)
        assert _outcome(data, True)[0][0][0] == 400


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_mutated_payloads_fail_or_decode_alike(codec: str) -> None:
    rng = random.Random(CODECS[codec])
    batch = _batch(codec, 200, 9)
    payload = batch[V2_HEADER_SIZE:]
    for trial in range(300):
        p = bytearray(payload)
        kind = trial % 4
        if kind == 0:  # flip bytes
            for _ in range(rng.randrange(1, 4)):
                p[rng.randrange(len(p))] ^= 1 << rng.randrange(8)
        elif kind == 1:  # cut
            del p[rng.randrange(len(p)):]
        elif kind == 2:  # trailing bytes
            p += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
        else:  # a zeroed stretch
            at = rng.randrange(len(p))
            width = min(rng.randrange(1, 40), len(p) - at)
            p[at:at + width] = bytes(width)
        data = _rebatch(batch, bytes(p))
        assert _outcome(data, True) == _outcome(data, False), (codec, trial)


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_budget_is_kept(codec: str) -> None:
    data = _batch(codec, 300, 5)
    for limit in (0, 100, 5000, 1 << 20):
        assert _outcome(data, True, limit) == _outcome(data, False, limit)
    assert "DecompressionLimitError" in repr(_outcome(data, True, 100))


def test_inline_codecs_are_built() -> None:
    """The builds this project makes (Makefile, wheels: KVLOG_REQUIRE_SYSTEM_CODECS=1) inflate lz4 and zstd in C."""
    import os

    from kvlog._core import build_info

    have = build_info()["inline_codecs"].split(",")
    assert "snappy" in have
    if os.environ.get("KVLOG_REQUIRE_SYSTEM_CODECS") == "1":
        assert have == ["snappy", "lz4", "zstd"]


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_decoder_takes_inline_codecs_itself(codec: str) -> None:
    """With a budget, a batch of an inline codec never stops at INNER (the Python hand-off); gzip does."""
    from kvlog._core import build_info

    if codec not in build_info()["inline_codecs"].split(","):
        pytest.skip(f"this build was made without the system's {codec} library (build_info()['inline_codecs'])")
    data = _batch(codec)
    view = _as_view(data)
    dec = _k.Decoder(True, True, False, True, 64 << 20)
    status, _ = dec.run(view, 0, len(view))
    assert status != _k.INNER
    assert dec.finish()["n"] == 300
    gz = _as_view(_batch("gzip"))
    dec = _k.Decoder(True, True, False, True, 64 << 20)
    assert dec.run(gz, 0, len(gz))[0] == _k.INNER
