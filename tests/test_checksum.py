import array
import mmap
import os
import random
import zlib

import crc32c as crc32c_pkg
import google_crc32c
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog._core import build_info, crc
from tests.reference import crc as ref

VARIANTS = crc.variants()


def available(algorithm):
    return [v for v in VARIANTS if crc.crc_variant(algorithm, v, b"x") is not None]


def test_check_values():
    assert kvlog.crc32(b"123456789") == 0xCBF43926
    assert kvlog.crc32c(b"123456789") == 0xE3069283
    assert kvlog.crc32(b"") == 0 and kvlog.crc32c(b"") == 0
    assert kvlog.crc32(b"", 1234) == 1234 and kvlog.crc32c(b"", 1234) == 1234


def test_build_info_names_active_kernels():
    info = build_info()
    assert info["mode"] in ("release", "debug")
    assert info["crc32"] and info["crc32c"]
    machine = os.uname().machine
    flags = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    if machine == "x86_64" and " sse4_2" in flags:
        assert info["crc32c"] != "slice8", "hardware CRC-32C available but not selected"
    if machine == "x86_64" and " pclmulqdq" in flags:
        assert "clmul" in info["crc32"], "PCLMULQDQ available but CRC-32 uses " + info["crc32"]
    if machine == "aarch64" and " crc32" in flags:
        assert info["crc32c"] != "slice8"


def test_portable_kernel_always_available():
    assert 0 in available("crc32") and 0 in available("crc32c")


@pytest.mark.parametrize("algorithm", ["crc32", "crc32c"])
def test_every_variant_matches_reference_on_sizes_and_alignments(algorithm):
    rng = random.Random(7)
    blob = bytes(rng.getrandbits(8) for _ in range(70000))
    oracle = zlib.crc32 if algorithm == "crc32" else crc32c_pkg.crc32c
    sizes = list(range(0, 300)) + [511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 69000]
    variants = available(algorithm)
    assert variants
    for size in sizes:
        for align in (0, 1, 3, 7, 13, 31, 63):
            data = blob[align : align + size]
            want = oracle(data)
            for v in variants:
                got = crc.crc_variant(algorithm, v, data)
                assert got == want, (algorithm, VARIANTS[v], size, align)


@pytest.mark.parametrize("algorithm", ["crc32", "crc32c"])
def test_every_variant_incremental(algorithm):
    data = os.urandom(10000)
    for v in available(algorithm):
        whole = crc.crc_variant(algorithm, v, data)
        for cut in (0, 1, 17, 64, 4999, 9999, 10000):
            first = crc.crc_variant(algorithm, v, data[:cut])
            assert crc.crc_variant(algorithm, v, data[cut:], first) == whole


def test_against_google_crc32c_and_slow_reference():
    for n in (0, 1, 5, 100, 1000, 5000):
        data = os.urandom(n)
        assert kvlog.crc32c(data) == google_crc32c.value(data) == ref.crc32c(data)
        assert kvlog.crc32(data) == zlib.crc32(data) == ref.crc32(data)


@given(st.binary(max_size=3000), st.integers(0, 2**32 - 1))
def test_zlib_semantics_with_start_value(data, start):
    assert kvlog.crc32(data, start) == zlib.crc32(data, start)
    assert kvlog.crc32c(data, start) == crc32c_pkg.crc32c(data, start)


@given(st.binary(max_size=2000), st.integers(0, 2000))
def test_chunked_equals_whole(data, cut):
    cut = min(cut, len(data))
    assert kvlog.crc32c(data[cut:], kvlog.crc32c(data[:cut])) == kvlog.crc32c(data)
    assert kvlog.crc32(data[cut:], kvlog.crc32(data[:cut])) == kvlog.crc32(data)


def test_start_value_is_masked_like_zlib():
    data = b"abc"
    assert kvlog.crc32(data, -1) == zlib.crc32(data, 0xFFFFFFFF)
    assert kvlog.crc32(data, 2**32 + 5) == zlib.crc32(data, 5)


def test_large_buffer_releases_gil_and_matches():
    data = os.urandom(5 << 20)
    assert kvlog.crc32(data) == zlib.crc32(data)
    assert kvlog.crc32c(data) == crc32c_pkg.crc32c(data)


def test_any_bytes_like(tmp_path):
    data = os.urandom(4096)
    want = zlib.crc32(data)
    path = tmp_path / "blob"
    path.write_bytes(data)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        views = [bytearray(data), memoryview(data), memoryview(data)[0:], np.frombuffer(data, np.uint8),
                 array.array("B", data), m]
        for v in views:
            assert kvlog.crc32(v) == want
            assert kvlog.crc32c(v) == crc32c_pkg.crc32c(data)
        assert kvlog.crc32(memoryview(data)[100:200]) == zlib.crc32(data[100:200])


def test_rejects_non_buffers():
    with pytest.raises(TypeError):
        kvlog.crc32("text")
    with pytest.raises(TypeError):
        kvlog.crc32c(None)
    with pytest.raises((BufferError, TypeError)):
        kvlog.crc32(memoryview(b"abcdef")[::2])


def test_variant_out_of_range_is_none():
    assert crc.crc_variant("crc32", 99, b"abc") is None
    with pytest.raises(ValueError):
        crc.crc_variant("md5", 0, b"abc")
