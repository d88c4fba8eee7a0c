"""kvlog.offset_map: MD5, Kafka's SkimpyOffsetMap byte layout and probing, KIP-280 versions, batches.

The oracle is tests/reference/offset_map.py (hashlib + a dict of slots reproducing Kafka's probe sequence).
"""

import hashlib
import pathlib
import random
import shutil
import struct
import subprocess
import sys
import threading

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlog._core import offset_map as K
from kvlog.errors import ConfigError, KvlogError
from kvlog.offset_map import OffsetMap, OffsetMapError, OffsetMapFullError, arrow_key_columns, md5
from tests.reference import offset_map as R

REPO = pathlib.Path(__file__).resolve().parents[1]
VERSIONED = ("timestamp", "header")


def key(i):
    return str(i).encode()


def columns(keys, width=np.int32, base=0):
    """Arrow-style binary column of ``keys`` (None = null), data starting ``base`` bytes in."""
    parts = [b"\xee" * base]
    offs = [base]
    valid = []
    for k in keys:
        parts.append(k or b"")
        offs.append(offs[-1] + len(k or b""))
        valid.append(0 if k is None else 1)
    return b"".join(parts), np.array(offs, dtype=width), np.array(valid, dtype=np.uint8)


def bitmap_of(valid):
    return np.packbits(np.asarray(valid, dtype=np.uint8), bitorder="little")


# ---------------------------------------------------------------------------------------------------
# MD5
# ---------------------------------------------------------------------------------------------------

RFC1321 = {
    b"": "d41d8cd98f00b204e9800998ecf8427e",
    b"a": "0cc175b9c0f1b6a831c399e269772661",
    b"abc": "900150983cd24fb0d6963f7d28e17f72",
    b"message digest": "f96b697d7cb7938d525a2f31aaf161d0",
    b"abcdefghijklmnopqrstuvwxyz": "c3fcd3d76192e4007dfb496cca67e13b",
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789": "d174ab98d277d9f5a5611c2c9f419d9f",
    b"1234567890" * 8: "57edf4a22be3c955ac49da2e2107b67a",
}


def test_md5_rfc1321_vectors():
    for msg, want in RFC1321.items():
        assert md5(msg).hex() == want
        assert K.md5(bytearray(msg)).hex() == want
        assert K.md5(memoryview(msg)).hex() == want


def test_md5_every_length_and_block_boundary():
    rng = random.Random(1)
    lengths = list(range(301)) + [b * 64 + d for b in range(1, 20) for d in (-9, -8, -1, 0, 1)] + [100_000]
    for n in lengths:
        data = rng.randbytes(n)
        assert K.md5(data) == hashlib.md5(data).digest(), n
    big = rng.randbytes(1 << 20)
    assert K.md5(np.frombuffer(big, np.uint8)) == hashlib.md5(big).digest()


@pytest.mark.parametrize("width", [np.int32, np.int64])
def test_md5_many_matches_hashlib(width):
    variants = K.md5_variants()
    assert "scalar" in variants and K.MD5_KERNEL in variants
    if K.MD5_KERNEL != "scalar":
        assert K.MD5_KERNEL in ("avx512-x32", "avx2-x16", "sse2-x8", "neon-x8")
    rng = random.Random(2)
    for trial in range(40):
        n = rng.randrange(0, 100)
        top = 56 if trial % 3 else 200          # one-block keys (vector lanes), sometimes longer ones
        keys = [rng.randbytes(rng.randrange(0, top)) for _ in range(n)]
        data, offs, _ = columns(keys, width, base=trial % 5)
        want = b"".join(hashlib.md5(k).digest() for k in keys)
        assert K.md5_many(data, offs) == want
        for v in variants:
            assert K.md5_many(data, offs, v) == want, v
    with pytest.raises(OffsetMapError):
        K.md5_many(b"", np.zeros(1, np.int32), "sse9")


@given(st.lists(st.binary(max_size=130), max_size=40))
def test_md5_many_property(keys):
    data, offs, _ = columns(keys, np.int64)
    assert K.md5_many(data, offs) == b"".join(hashlib.md5(k).digest() for k in keys)


@pytest.mark.skipif(shutil.which("cc") is None or sys.platform == "win32", reason="needs a C compiler")
def test_c_md5(tmp_path):
    exe = tmp_path / "test_md5"
    subprocess.run(
        ["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", f"-I{REPO / 'src/kvlog/_core/include'}",
         str(REPO / "src/kvlog/_core/csrc/cpu.c"), str(REPO / "src/kvlog/_core/csrc/md5.c"),
         str(REPO / "tests/c/test_md5.c"), "-o", str(exe)],
        check=True, capture_output=True, timeout=120)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout


# ---------------------------------------------------------------------------------------------------
# Kafka's OffsetMapTest
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("items", [10, 100, 1000, 5000])
def test_basic_validation(items):
    m = OffsetMap(int(items / 0.5 * 24))
    for i in range(items):
        m.put(key(i), i)
    for i in range(items):
        assert m.get(key(i)) == i
    assert m.size == items and len(m) == items
    assert m.latest_offset == items - 1


def test_clear():
    m = OffsetMap(4000)
    for i in range(10):
        m.put(key(i), i)
    for i in range(10):
        assert m.get(key(i)) == i
    m.clear()
    for i in range(10):
        assert m.get(key(i)) == -1
    assert m.size == 0 and m.latest_offset == -1 and m.lookups == 10
    assert not any(m.memory_view())


@pytest.mark.parametrize("strategy", ["offset", "timestamp"])
def test_get_when_full(strategy):
    m = OffsetMap(4096, strategy=strategy)
    i = 37
    while m.size < m.slots:
        m.put(key(i), i, i)
        i += 1
    assert m.utilization == 1.0
    assert m.get(key(i)) == -1                # terminates after slots + 12 probes
    assert m.get(key(i - 1)) == i - 1
    assert key(i) not in m
    with pytest.raises(OffsetMapFullError):
        m.put(key(i), i, i)
    with pytest.raises(OffsetMapFullError):   # Kafka refuses before looking at the key
        m.put(key(i - 1), i, i)
    before = m.probes
    assert m.get(b"absent") == -1
    assert m.probes - before == m.slots + 12


def test_latest_offset_and_update():
    m = OffsetMap(1024)
    assert m.latest_offset == -1
    m.put(b"a", 10)
    m.put(b"b", 3)
    assert m.latest_offset == 3
    m.update_latest_offset(99)
    assert m.latest_offset == 99


# ---------------------------------------------------------------------------------------------------
# byte layout, probing
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["offset", "timestamp", "header"])
def test_exact_byte_layout(strategy):
    memory = 10_000
    m = OffsetMap(memory, strategy=strategy)
    ref = R.ReferenceOffsetMap(memory, strategy)
    bpe = 24 if strategy == "offset" else 32
    assert m.bytes_per_entry == ref.bytes_per_entry == bpe
    assert m.slots == memory // bpe
    rng = random.Random(3)
    for i in range(150):
        k = rng.randbytes(rng.randrange(0, 50))
        off, ver = rng.randrange(-5, 1 << 62), rng.randrange(-(1 << 63), 1 << 63)
        assert m.put(k, off, ver) == ref.put(k, off, ver)
        slot = ref.slot_of(k)
        raw = bytes(m.memory_view()[slot * bpe:(slot + 1) * bpe])
        want = hashlib.md5(k).digest() + struct.pack(">q", m.get(k))
        if strategy != "offset":
            want += struct.pack(">q", m.get_version(k))
        assert raw == want
    view = m.memory_view()
    assert view.readonly and len(view) == memory
    assert bytes(view) == ref.dump()


def test_probe_sequence_matches_reference():
    rng = random.Random(4)
    digests = [rng.randbytes(16) for _ in range(200)]
    # windows at the int32 extremes: INT32_MIN (abs -> 0), INT32_MAX (+1 wraps), -1, 0
    for word in (b"\x80\x00\x00\x00", b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\x00\x00\x00\x00",
                 b"\x80\x00\x00\x01", b"\x7f\xff\xff\xfe"):
        digests.append(rng.randbytes(12) + word)
        digests.append(word * 4)
    for d in digests:
        for slots in (2, 3, 7, 170, 5_592_405, (1 << 31) - 1):
            for attempt in list(range(40)) + [1000, min(slots + 11, (1 << 31) - 1)]:
                want = R.probe_slot(d, attempt, slots)
                assert K.probe_slot_of(d, attempt, slots) == want, (d, attempt, slots)
    assert R.probe_slot(b"\x80\x00\x00\x00" * 4, 0, 7) == 0
    assert R.probe_slot(b"\x00" * 12 + b"\x7f\xff\xff\xff", 13, 1 << 20) == 0   # INT32_MAX + 1 -> MIN -> 0


def test_memory_per_key_is_exactly_one_slot():
    for strategy, bpe in (("offset", 24), ("timestamp", 32), ("header", 32)):
        m = OffsetMap(bpe * 1000 + bpe - 1, strategy=strategy)
        assert m.slots == 1000 and m.bytes_per_entry == bpe and m.memory == bpe * 1000 + bpe - 1
        for i in range(600):
            m.put(key(i), i, i)
        raw = np.frombuffer(m.memory_view(), np.uint8)[:bpe * 1000].reshape(1000, bpe)
        assert int(raw.any(axis=1).sum()) == 600
        assert not np.frombuffer(m.memory_view(), np.uint8)[bpe * 1000:].any()


# ---------------------------------------------------------------------------------------------------
# differential tests against the reference
# ---------------------------------------------------------------------------------------------------

KEYS = st.binary(min_size=0, max_size=3)      # small alphabet: repeated keys


def assert_same(m, ref):
    assert (m.size, m.latest_offset, m.lookups, m.probes) == (ref.entries, ref.latest_offset, ref.lookups,
                                                               ref.probes)
    assert bytes(m.memory_view()) == ref.dump()


OPS = st.lists(
    st.tuples(st.sampled_from(["put", "put", "put", "get", "version", "retain", "in", "clear"]), KEYS,
              st.integers(-3, 40), st.integers(-3, 6)),
    max_size=80)


@given(st.sampled_from(["offset", "timestamp", "header"]), st.integers(64, 400), OPS)
def test_differential_ops(strategy, memory, ops):
    m = OffsetMap(memory, strategy=strategy, load_factor=1.0)
    ref = R.ReferenceOffsetMap(memory, strategy, 1.0)
    for op, k, off, ver in ops:
        if op == "put":
            try:
                want = ref.put(k, off, ver)
            except R.MapFull:
                with pytest.raises(OffsetMapFullError):
                    m.put(k, off, ver)
            else:
                assert m.put(k, off, ver) == want
        elif op == "get":
            assert m.get(k) == ref.get(k)
        elif op == "version":
            assert m.get_version(k) == ref.get_version(k)
        elif op == "retain":
            assert m.should_retain(k, off, ver) == ref.should_retain(k, off, ver)
        elif op == "in":
            assert (k in m) == ref.contains(k)
        else:
            m.clear()
            ref.clear()
    assert_same(m, ref)
    assert m.collision_rate == (0.0 if not ref.lookups else (ref.probes - ref.lookups) / ref.lookups)


@given(st.sampled_from(["offset", "timestamp"]), st.integers(64, 200), st.data())
def test_differential_full_tiny_maps(strategy, memory, data):
    """Tiny maps filled to the last slot: long probe chains, linear-probe tail, wrap-around, full errors."""
    m = OffsetMap(memory, strategy=strategy, load_factor=1.0)
    ref = R.ReferenceOffsetMap(memory, strategy, 1.0)
    keys = data.draw(st.lists(st.binary(min_size=1, max_size=6), min_size=1, max_size=3 * ref.slots))
    for i, k in enumerate(keys):
        try:
            want = ref.put(k, i, i % 3)
        except R.MapFull:
            with pytest.raises(OffsetMapFullError):
                m.put(k, i, i % 3)
            continue
        assert m.put(k, i, i % 3) == want
    for k in keys + [b"absent", b"also-absent"]:
        assert m.get(k) == ref.get(k)
    assert_same(m, ref)


def test_probe_collisions_in_a_tiny_map():
    """Keys whose first probe lands on the same slot of a 5-slot map all stay reachable."""
    slots = 5
    groups = {}
    i = 0
    while max((len(v) for v in groups.values()), default=0) < 5:
        d = hashlib.md5(key(i)).digest()
        groups.setdefault(R.probe_slot(d, 0, slots), []).append(key(i))
        i += 1
    same = max(groups.values(), key=len)[:5]
    m = OffsetMap(slots * 24, load_factor=1.0)
    ref = R.ReferenceOffsetMap(slots * 24, "offset", 1.0)
    for j, k in enumerate(same):
        m.put(k, j)
        ref.put(k, j)
    assert [m.get(k) for k in same] == [ref.get(k) for k in same] == list(range(5))
    assert m.collisions > 0 and m.collisions == ref.probes - ref.lookups
    assert_same(m, ref)


# ---------------------------------------------------------------------------------------------------
# KIP-280
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", VERSIONED)
def test_kip280_put_rules(strategy):
    m = OffsetMap(4096, strategy=strategy)
    assert m.versioned and m.bytes_per_entry == 32
    assert m.put(b"k", 10, 100)
    assert (m.get(b"k"), m.get_version(b"k")) == (10, 100)
    assert not m.put(b"k", 11, 99)                      # lower version: kept
    assert (m.get(b"k"), m.get_version(b"k"), m.latest_offset) == (10, 100, 11)
    assert m.put(b"k", 12, 100)                         # tie: later offset wins
    assert (m.get(b"k"), m.get_version(b"k")) == (12, 100)
    assert m.put(b"k", 5, 101)                          # higher version wins whatever the offset
    assert (m.get(b"k"), m.get_version(b"k")) == (5, 101)
    assert m.size == 1
    assert m.get_version(b"absent") == -1


@pytest.mark.parametrize("strategy", VERSIONED)
def test_kip280_retain_rules(strategy):
    m = OffsetMap(4096, strategy=strategy)
    m.put(b"k", 10, 100)
    assert m.should_retain(b"k", 3, 101)        # higher version, older offset
    assert not m.should_retain(b"k", 20, 99)    # lower version, newer offset
    assert m.should_retain(b"k", 10, 100)       # equal version: offset >= stored
    assert m.should_retain(b"k", 11, 100)
    assert not m.should_retain(b"k", 9, 100)
    assert m.should_retain(b"absent", 0, -5)    # absent key: kept (documented)
    assert m.should_retain(b"absent", -7, 0)


def test_offset_strategy_rules():
    m = OffsetMap(4096)
    assert m.bytes_per_entry == 24 and not m.versioned
    m.put(b"k", 10)
    assert m.put(b"k", 4, 1 << 40)              # later put always wins; version ignored
    assert m.get(b"k") == 4 and m.get_version(b"k") == -1
    assert m.should_retain(b"k", 4) and m.should_retain(b"k", 5) and not m.should_retain(b"k", 3)
    assert m.should_retain(b"k", 3, 999) is False
    assert m.should_retain(b"absent", 0)


# ---------------------------------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------------------------------

def sequential_put(m, keys, offsets, versions):
    for i, k in enumerate(keys):
        if k is None:
            continue
        if m.size >= m.max_load:
            return i
        m.put(k, int(offsets[i]), None if versions is None else int(versions[i]))
    return len(keys)


BATCH = st.lists(st.one_of(st.none(), st.binary(max_size=4), st.binary(min_size=50, max_size=70)),
                 max_size=150)


@given(st.sampled_from(["offset", "timestamp", "header"]), st.integers(100, 1500),
       st.sampled_from([0.3, 0.75, 0.9, 1.0]), BATCH, st.sampled_from([np.int32, np.int64]),
       st.sampled_from(["bytes", "bitmap", "none"]), st.integers(0, 3))
def test_put_many_equals_sequential_put(strategy, memory, lf, keys, width, validity, seed):
    rng = np.random.default_rng(seed)
    if validity == "none":
        keys = [b"" if k is None else k for k in keys]
    n = len(keys)
    try:
        a = OffsetMap(memory, strategy=strategy, load_factor=lf)
    except ConfigError:
        return
    b = OffsetMap(memory, strategy=strategy, load_factor=lf)
    ref = R.ReferenceOffsetMap(memory, strategy, lf)
    offsets = np.arange(n, dtype=np.int64) + int(rng.integers(0, 1000))
    versions = rng.integers(-2, 4, n).astype(np.int64) if strategy != "offset" else None
    data, koff, valid = columns(keys, width, base=seed)
    kv = {"bytes": valid, "bitmap": bitmap_of(valid), "none": None}[validity]
    got = a.put_many(data, koff, kv, offsets, versions, bitmap=validity == "bitmap")
    assert got == sequential_put(b, keys, offsets, versions) == ref.put_many(keys, offsets, versions)
    assert bytes(a.memory_view()) == bytes(b.memory_view()) == ref.dump()
    assert (a.size, a.latest_offset, a.lookups, a.probes) == (b.size, b.latest_offset, b.lookups, b.probes)
    if got < n:
        assert a.is_full and a.size == a.max_load and keys[got] is not None
    rest = a.retain_many(data, koff, kv, offsets, versions, bitmap=validity == "bitmap")
    assert rest.dtype == np.uint8 and rest.shape == (n,)
    assert rest.tolist() == [int(x) for x in ref.retain_many(keys, offsets, versions)]


def test_put_many_stops_at_load_factor_and_resumes():
    n = 1000
    keys = [b"key-%d" % i for i in range(n)]
    data, koff, _ = columns(keys)
    offsets = np.arange(n, dtype=np.int64)
    m = OffsetMap(24 * 200, load_factor=0.5)
    assert m.max_load == 100
    done = m.put_many(data, koff, None, offsets)
    assert done == 100 and m.is_full and m.latest_offset == 99
    assert m.put_many(data, koff, None, offsets) == 0     # full: nothing consumed
    total = done
    while total < n:                                        # the cleaner's loop: clean, clear, resume
        m.clear()
        step = m.put_many(data, koff[total:], None, offsets[total:])
        assert step == min(100, n - total)
        assert m.get(keys[total]) == total and m.latest_offset == total + step - 1
        total += step
    # an update of a present key also waits for room once the limit is reached (Kafka checks size first)
    m.clear()
    assert m.put_many(data, koff[:102], None, offsets[:101]) == 100
    assert m.put_many(data, koff[:3], None, offsets[:2]) == 0


@pytest.mark.parametrize("strategy", ["offset", "header"])
def test_put_many_long_batches_equal_sequential_put(strategy):
    """Thousands of rows (many pipeline chunks), repeats, nulls, long keys, a stop deep inside the batch."""
    rng = random.Random(7)
    universe = [rng.randbytes(rng.randrange(0, 70)) for _ in range(4000)]
    keys = [None if rng.random() < 0.05 else rng.choice(universe) for _ in range(9000)]
    offsets = np.arange(9000, dtype=np.int64) * 3
    versions = np.array([rng.randrange(0, 50) for _ in keys], dtype=np.int64)
    data, koff, valid = columns(keys, np.int64, base=3)
    for memory, lf in ((1 << 17, 0.9), (3000 * 32, 0.75), (5000 * 32, 1.0)):
        a = OffsetMap(memory, strategy=strategy, load_factor=lf)
        b = OffsetMap(memory, strategy=strategy, load_factor=lf)
        vers = versions if strategy != "offset" else None
        got = a.put_many(data, koff, bitmap_of(valid), offsets, vers, bitmap=True)
        assert got == sequential_put(b, keys, offsets, vers)
        assert bytes(a.memory_view()) == bytes(b.memory_view())
        stats = (a.size, a.latest_offset, a.lookups, a.probes)
        assert stats == (b.size, b.latest_offset, b.lookups, b.probes)
        keep = a.retain_many(data, koff, valid, offsets, vers)
        want = [1 if k is None else int(b.should_retain(k, int(o), None if vers is None else int(v)))
                for k, o, v in zip(keys, offsets, versions)]
        assert keep.tolist() == want


def test_put_many_null_keys_skipped():
    keys = [None, b"a", None, None, b"b", None]
    data, koff, valid = columns(keys)
    m = OffsetMap(24 * 10, load_factor=0.2)        # max_load 2
    assert m.put_many(data, koff, valid, np.arange(6)) == 6     # trailing nulls consumed too
    assert m.size == 2 and m.get(b"a") == 1 and m.get(b"b") == 4 and m.get(b"") == -1
    m.clear()
    keys = [b"a", b"b", None, b"c"]
    data, koff, valid = columns(keys)
    assert m.put_many(data, koff, valid, np.arange(4)) == 3     # stops at c, after consuming the null
    assert m.retain_many(data, koff, valid, np.zeros(4, np.int64)).tolist() == [1, 0, 1, 1]


@pytest.mark.parametrize("strategy", ["offset", "timestamp"])
def test_retain_many_equals_should_retain(strategy):
    rng = random.Random(5)
    m = OffsetMap(1 << 16, strategy=strategy)
    universe = [rng.randbytes(rng.randrange(1, 40)) for _ in range(300)]
    for i in range(1000):
        m.put(rng.choice(universe), i, rng.randrange(0, 10))
    keys = [None if rng.random() < 0.1 else rng.choice(universe + [b"new-%d" % i]) for i in range(2000)]
    offsets = np.array([rng.randrange(0, 1100) for _ in keys], dtype=np.int64)
    versions = np.array([rng.randrange(-1, 11) for _ in keys], dtype=np.int64)
    data, koff, valid = columns(keys, np.int64)
    lookups = m.lookups
    got = m.retain_many(data, koff, valid, offsets, versions)
    assert m.lookups == lookups + sum(k is not None for k in keys)
    want = [1 if k is None else int(m.should_retain(k, int(o), int(v)))
            for k, o, v in zip(keys, offsets, versions)]
    assert got.tolist() == want


def test_batches_large_match_dict():
    """100k keys with repeats: every key maps to its last offset (MD5 collisions do not occur)."""
    rng = np.random.default_rng(6)
    ids = rng.integers(0, 40_000, 100_000)
    keys = [b"user-%08d-%s" % (i, b"x" * int(i % 17)) for i in ids]
    data, koff, _ = columns(keys)
    m = OffsetMap(24 * 100_000)
    assert m.put_many(data, koff, None, np.arange(len(keys), dtype=np.int64)) == len(keys)
    last = {k: i for i, k in enumerate(keys)}
    assert m.size == len(last)
    assert all(m.get(k) == v for k, v in list(last.items())[:2000])
    keep = m.retain_many(data, koff, None, np.arange(len(keys), dtype=np.int64))
    assert int(keep.sum()) == len(last)
    assert np.flatnonzero(keep).tolist() == sorted(last.values())


def test_arrow_columns():
    pa_keys = pa.array([b"a", None, b"bb", b"", None, b"ccc", b"a", b"d", b"e", b"f"], pa.binary())
    for arr in (pa_keys, pa_keys.slice(1), pa_keys.slice(8 - 8), pa_keys.cast(pa.large_binary()).slice(3),
                pa.chunked_array([pa_keys.slice(0, 4), pa_keys.slice(4)])):
        flat = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        pylist = flat.to_pylist()
        n = len(pylist)
        a = OffsetMap(4096)
        b = OffsetMap(4096)
        assert a.put_arrow(arr, np.arange(n)) == sequential_put(b, pylist, np.arange(n), None) == n
        assert bytes(a.memory_view()) == bytes(b.memory_view())
        assert a.retain_arrow(arr, np.arange(n)).tolist() == [
            1 if k is None else int(b.should_retain(k, i)) for i, k in enumerate(pylist)]
    sliced = pa.array([None] * 8 + [b"x", None, b"y"]).slice(8)       # byte-aligned bitmap slice
    data, koff, valid, bitmap = arrow_key_columns(sliced)
    assert bitmap and koff.tolist()[0] == 0
    assert arrow_key_columns(pa.array([], pa.binary()))[1].tolist() == [0]


# ---------------------------------------------------------------------------------------------------
# configuration, errors, API
# ---------------------------------------------------------------------------------------------------

def test_config_errors():
    with pytest.raises(ConfigError):
        OffsetMap(47)                           # one slot
    OffsetMap(48, load_factor=1.0)              # two slots x 1.0 > 1
    with pytest.raises(ConfigError):
        OffsetMap(48, load_factor=0.5)          # 2 x 0.5 is not > 1 (Kafka's startup check)
    with pytest.raises(ConfigError):
        OffsetMap(63, strategy="timestamp")
    with pytest.raises(ConfigError):
        OffsetMap(4096, strategy="latest")
    with pytest.raises(ConfigError):
        OffsetMap(4096, strategy=None)          # type: ignore[arg-type]
    for lf in (0, -0.1, 1.01, float("nan"), float("inf"), "x"):
        with pytest.raises(ConfigError):
            OffsetMap(4096, load_factor=lf)     # type: ignore[arg-type]
    for mem in (-1, 1 << 31, 1.5, "4096"):
        with pytest.raises(ConfigError):
            OffsetMap(mem)                      # type: ignore[arg-type]
    assert issubclass(ConfigError, KvlogError)


def test_argument_errors():
    m = OffsetMap(4096, strategy="timestamp")
    with pytest.raises(OffsetMapError):
        m.put(b"k", 1)                          # version required
    with pytest.raises(OffsetMapError):
        m.put(None, 1, 1)                       # type: ignore[arg-type]
    with pytest.raises(OffsetMapError):
        m.put(b"k", 1 << 63, 1)
    with pytest.raises(TypeError):
        m.put("k", 1, 1)                        # type: ignore[arg-type]
    with pytest.raises(TypeError):
        m.put(b"k", 1.5, 1)                     # type: ignore[arg-type]
    data, koff, valid = columns([b"a", b"b"])
    with pytest.raises(OffsetMapError):
        m.put_many(data, koff, None, np.arange(2))          # versions required
    with pytest.raises(OffsetMapError):
        m.put_many(data, koff, None, np.arange(3), np.arange(3))
    with pytest.raises(OffsetMapError):
        m.put_many(data, koff.astype(np.float64), None, np.arange(2), np.arange(2))
    with pytest.raises(OffsetMapError):
        m.put_many(data, np.array([0, 2, 1], np.int32), None, np.arange(2), np.arange(2))
    with pytest.raises(OffsetMapError):
        m.put_many(data, np.array([0, 1, 3], np.int32), None, np.arange(2), np.arange(2))
    with pytest.raises(OffsetMapError):
        m.put_many(data, np.array([-1, 1, 2], np.int64), None, np.arange(2), np.arange(2))
    with pytest.raises(OffsetMapError):
        m.retain_many(data, koff, valid[:1], np.arange(2), np.arange(2))
    with pytest.raises(OffsetMapError):
        m.put_many(data, koff, None, np.arange(2, dtype=np.uint64), np.arange(2))
    with pytest.raises(OffsetMapError):
        m.put_many(data, np.array([], np.int32), None, np.arange(0), np.arange(0))
    assert m.size == 0 and not any(m.memory_view())     # nothing half-done
    assert m.put_many(None, np.zeros(3, np.int32), None, np.arange(2), np.arange(2)) == 2
    assert m.get(b"") == 1
    full = OffsetMap(48, load_factor=1.0)
    full.put(b"a", 1)
    full.put(b"b", 2)
    with pytest.raises(OffsetMapFullError) as info:
        full.put(b"c", 3)
    assert isinstance(info.value, KvlogError) and "full" in str(info.value)
    with pytest.raises(OffsetMapError):
        K.probe_slot_of(b"short", 0, 5)


def test_python_api_surface():
    m = OffsetMap(2400, strategy="header", load_factor=0.9)
    assert isinstance(m, K.OffsetMap)
    assert (m.memory, m.slots, m.strategy, m.load_factor, m.max_load) == (2400, 75, "header", 0.9, 67)
    assert not m.is_full and m.utilization == 0.0 and m.collision_rate == 0.0
    m.put(bytearray(b"k"), 1, 2)
    assert memoryview(b"k") in m and b"zz" not in m and len(m) == 1
    assert "OffsetMap(memory=2400" in repr(m)
    assert OffsetMapError.__module__ == "kvlog.offset_map"
    assert m.put_many(b"", np.zeros(1, np.int32), None, np.zeros(0, np.int64), np.zeros(0, np.int64)) == 0


def test_concurrent_batches_guarded():
    """Batches release the GIL; a conflicting call from another thread gets OffsetMapError, never a race."""
    n = 300_000
    keys = [b"k%d" % i for i in range(n)]
    data, koff, _ = columns(keys)
    offsets = np.arange(n, dtype=np.int64)
    m = OffsetMap(24 * n * 2)
    errors = []
    done = threading.Event()

    def writer():
        m.put_many(data, koff, None, offsets)
        done.set()

    t = threading.Thread(target=writer)
    t.start()
    while not done.is_set():
        try:
            m.get(b"k1")
        except OffsetMapError as exc:
            errors.append(exc)
    t.join()
    assert m.size == n and m.get(keys[-1]) == n - 1
    assert all("another thread" in str(e) for e in errors)
    results = []
    threads = [threading.Thread(target=lambda: results.append(m.retain_many(data, koff, None, offsets)))
               for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(results) == 2 and all(bool(r.all()) for r in results)


@given(st.lists(st.one_of(st.none(), st.binary(max_size=20)), min_size=1, max_size=300),
       st.sampled_from(["offset", "timestamp"]))
def test_given_digests_act_as_the_keys(keys, strategy):
    """A map built and queried with digests computed once (md5_arrow) holds the same bytes and gives
    the same verdicts as one that hashes the keys itself; digests of another length are refused."""
    from kvlog.offset_map import md5_arrow

    arr = pa.array(keys, pa.binary())
    offsets = np.arange(len(keys), dtype=np.int64) * 3
    versions = np.array([(i * 7919) % 50 for i in range(len(keys))], dtype=np.int64)
    vers = versions if strategy == "timestamp" else None
    digests = md5_arrow(arr)
    assert digests.shape == (len(keys), 16)
    assert all(bytes(digests[i]) == hashlib.md5(k).digest() for i, k in enumerate(keys) if k is not None)
    plain, given_ = OffsetMap(1 << 16, strategy=strategy), OffsetMap(1 << 16, strategy=strategy)
    assert plain.put_arrow(arr, offsets, vers) == given_.put_arrow(arr, offsets, vers, digests)
    assert bytes(plain.memory_view()) == bytes(given_.memory_view())
    probe = offsets[::-1].copy()
    assert plain.retain_arrow(arr, probe, vers).tolist() == given_.retain_arrow(arr, probe, vers, digests).tolist()
    with pytest.raises(OffsetMapError, match="16 bytes per key"):
        given_.retain_arrow(arr, probe, vers, digests[:-1])
