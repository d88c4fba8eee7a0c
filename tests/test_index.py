"""Offset index and time index: Kafka's OffsetIndexTest / TimeIndexTest scenarios, the reference oracle,
byte layouts, untrusted tails, read-only readers, the warm-section search and the batched kernels."""

import mmap
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlog._core import index as K
from kvlog.errors import ConfigError, CorruptIndexError, InvalidOffsetError, InvalidTimestampError, KvlogError
from kvlog.index import (
    ClosedIndexError,
    IndexFullError,
    OffsetIndex,
    OffsetPosition,
    ReadOnlyIndexError,
    TimeIndex,
    TimestampOffset,
)
from tests.reference import index as ref

BASE = 45
INT32_MAX = 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def oi(tmp_path):
    idx = OffsetIndex(tmp_path / "0.index", BASE, 30 * 8)
    yield idx
    idx.close()


@pytest.fixture
def ti(tmp_path):
    idx = TimeIndex(tmp_path / "0.timeindex", BASE, 30 * 12)
    yield idx
    idx.close()


def monotonic(rng, start, n, max_gap=15):
    return (start + np.cumsum(rng.integers(1, max_gap + 1, n))).tolist()


def fill_time(idx, n):
    for i in range(1, n + 1):
        idx.maybe_append(i * 10, i * 10 + BASE)


# ------------------------------------------------------------------------------------------------------
# files: creation, layout, sizes
# ------------------------------------------------------------------------------------------------------


def test_new_files_are_preallocated_to_a_whole_number_of_entries(tmp_path):
    with OffsetIndex(tmp_path / "a.index", 0, 100) as o, TimeIndex(tmp_path / "a.timeindex", 0, 100) as t:
        assert os.path.getsize(o.path) == o.file_size == 96 and o.max_entries == 12
        assert os.path.getsize(t.path) == t.file_size == 96 and t.max_entries == 8
        assert o.entries == t.entries == 0 and o.size_in_bytes == 0
        assert Path(o.path).read_bytes() == bytes(96)
    with OffsetIndex(tmp_path / "b.index", 0) as o:
        assert o.file_size == 10 * 1024 * 1024 and o.max_entries == 1_310_720
    with TimeIndex(tmp_path / "b.timeindex", 0) as t:
        assert t.file_size == 10_485_756 and t.max_entries == 873_813


@pytest.mark.parametrize("cls,size", [(OffsetIndex, 7), (TimeIndex, 11), (OffsetIndex, -1)])
def test_max_index_size_below_one_entry_is_a_config_error(tmp_path, cls, size):
    p = tmp_path / "x.idx"
    with pytest.raises(ConfigError):
        cls(p, 0, size)
    assert not p.exists()


def test_byte_layout_offset_index(oi):
    pairs = [(BASE + 1, 0x10), (BASE + 300, 0x7000), (BASE + INT32_MAX, INT32_MAX)]
    for o, p in pairs:
        oi.append(o, p)
    oi.flush()
    data = Path(oi.path).read_bytes()
    want = b"".join(struct.pack(">ii", o - BASE, p) for o, p in pairs)
    assert data[: len(want)] == want == ref.encode_offset_index(pairs, BASE)
    assert data[len(want):] == bytes(len(data) - len(want))
    assert K.offset_encode([1, 300, INT32_MAX], [0x10, 0x7000, INT32_MAX]) == want


def test_byte_layout_time_index(ti):
    pairs = [(1, BASE), (1_700_000_000_000, BASE + 7), (INT64_MAX, BASE + INT32_MAX)]
    for t, o in pairs:
        assert ti.maybe_append(t, o)
    data = Path(ti.path).read_bytes()
    want = b"".join(struct.pack(">qi", t, o - BASE) for t, o in pairs)
    assert data[: len(want)] == want == ref.encode_time_index(pairs, BASE)
    assert K.time_encode([t for t, _ in pairs], [o - BASE for _, o in pairs]) == want


def test_decoding_helpers(oi, ti):
    for i in range(5):
        oi.append(BASE + 2 * i + 1, 100 * i + 1)
        ti.maybe_append(10 * i + 3, BASE + 2 * i)
    offs, poss = oi.to_numpy()
    assert offs.dtype == poss.dtype == np.int64
    assert list(zip(offs.tolist(), poss.tolist())) == [tuple(oi.entry(i)) for i in range(5)]
    tss, toffs = ti.to_numpy()
    assert list(zip(tss.tolist(), toffs.tolist())) == [tuple(ti.entry(i)) for i in range(5)]
    assert K.offset_entries(Path(oi.path).read_bytes(), 5, BASE, start=3)[0].tolist() == offs[3:].tolist()


# ------------------------------------------------------------------------------------------------------
# OffsetIndexTest
# ------------------------------------------------------------------------------------------------------


def test_random_lookup(oi):
    assert oi.lookup(92) == OffsetPosition(BASE, 0), "not present should return position 0"
    rng = np.random.default_rng(1)
    offsets = monotonic(rng, BASE + 1, oi.max_entries)
    positions = monotonic(rng, 0, oi.max_entries)
    model = ref.RefOffsetIndex(BASE)
    for o, p in zip(offsets, positions):
        oi.append(o, p)
        model.append(o, p)
    for o, p in zip(offsets, positions):
        assert oi.lookup(o) == (o, p)
    for target in range(BASE - 3, offsets[-1] + 3):
        assert oi.lookup(target) == model.lookup(target)


def test_lookup_extreme_cases(oi):
    assert oi.lookup(BASE) == (BASE, 0), "lookup on empty file"
    for i in range(oi.max_entries):
        oi.append(BASE + i + 1, i + 1)
    assert oi.lookup(BASE) == (BASE, 0)
    assert oi.lookup(BASE + oi.max_entries) == (BASE + oi.max_entries, oi.max_entries)
    assert oi.lookup(INT64_MAX) == oi.lookup(2**100) == oi.last_entry
    assert oi.lookup(INT64_MIN) == oi.lookup(-(2**100)) == (BASE, 0)


def test_entry_and_entry_overflow(oi):
    with pytest.raises(InvalidOffsetError):
        oi.entry(0)
    for i in range(oi.max_entries):
        oi.append(BASE + i, i + 1)
    for i in range(oi.max_entries):
        assert oi.entry(i) == OffsetPosition(BASE + i, i + 1)
    for bad in (-1, oi.max_entries):
        with pytest.raises(InvalidOffsetError):
            oi.entry(bad)


def test_append_too_many(oi):
    for i in range(oi.max_entries):
        oi.append(BASE + i + 1, i)
    assert oi.is_full()
    with pytest.raises(IndexFullError) as e:
        oi.append(BASE + oi.max_entries + 1, 10_000)
    assert isinstance(e.value, InvalidOffsetError) and isinstance(e.value, KvlogError)


def test_append_out_of_order(oi):
    oi.append(51, 1)
    for off in (50, 51):
        with pytest.raises(InvalidOffsetError):
            oi.append(off, 2)
    with pytest.raises(InvalidOffsetError):
        oi.append(52, 1)  # positions must grow too (kvlog only)
    assert oi.entries == 1


@pytest.mark.parametrize("offset", [BASE - 1, BASE + INT32_MAX + 1, 2**70])
def test_append_relative_offset_overflow(oi, offset):
    with pytest.raises(InvalidOffsetError):
        oi.append(offset, 1)
    assert not oi.can_append_offset(offset)
    assert oi.can_append_offset(BASE) and oi.can_append_offset(BASE + INT32_MAX)


@pytest.mark.parametrize("position", [-1, INT32_MAX + 1])
def test_append_bad_position(oi, position):
    with pytest.raises(InvalidOffsetError):
        oi.append(BASE + 1, position)


def test_fetch_upper_bound_offset(oi):
    first, second, third, fourth = (OffsetPosition(BASE + i, p) for i, p in enumerate((0, 10, 23, 37)))
    assert oi.fetch_upper_bound_offset(first, 5) is None
    for e in (first, second, third, fourth):
        oi.append(*e)
    assert oi.fetch_upper_bound_offset(first, 5) == second
    assert oi.fetch_upper_bound_offset(first, 10) == second
    assert oi.fetch_upper_bound_offset(first, 23) == third
    assert oi.fetch_upper_bound_offset(first, 22) == third
    assert oi.fetch_upper_bound_offset(second, 24) == fourth
    assert oi.fetch_upper_bound_offset(fourth, 1) is None
    assert oi.fetch_upper_bound_offset(first, 200) is None
    assert oi.fetch_upper_bound_offset(second, 200) is None


def test_reopen(oi):
    first, sec = OffsetPosition(51, 1), OffsetPosition(52, 2)
    oi.append(*first)
    oi.append(*sec)
    oi.close()
    with OffsetIndex(oi.path, BASE, writable=False) as ro:
        assert ro.lookup(first.offset) == first and ro.lookup(sec.offset) == sec
        assert ro.last_offset == sec.offset
        assert ro.valid_entries == 2 and ro.entries == 30 and ro.untrusted_tail() == 28  # untrimmed
        with pytest.raises(ReadOnlyIndexError):
            ro.append(53, 3)
        for op in (ro.truncate, ro.trim_to_valid_size, lambda: ro.resize(8), lambda: ro.truncate_to(0)):
            with pytest.raises(ReadOnlyIndexError):
                op()
        assert ro.valid_entries == 2


def test_truncate(tmp_path):
    with OffsetIndex(tmp_path / "t.index", 0, 10 * 8) as idx:
        idx.truncate()
        for i in range(1, 10):
            idx.append(i, i)
        idx.truncate_to(12)
        assert idx.lookup(10) == (9, 9), "unchanged by truncate past the end"
        assert idx.last_offset == 9
        idx.append(10, 10)
        idx.truncate_to(10)
        assert idx.lookup(10) == (9, 9), "unchanged by truncate at the end"
        assert idx.last_offset == 9
        idx.append(10, 10)
        idx.truncate_to(9)
        assert idx.lookup(10) == (8, 8), "truncate off last entry"
        assert idx.last_offset == 8
        idx.append(9, 9)
        idx.truncate_to(5)
        assert idx.lookup(10) == (4, 4) and idx.last_offset == 4
        idx.append(5, 5)
        idx.truncate_to(-5)
        assert idx.entries == 0 and idx.last_entry == (0, 0)
        idx.append(1, 1)
        idx.truncate()
        assert idx.entries == 0, "full truncation should leave no entries"
        idx.append(0, 1)


def test_sanity_last_offset_equal_to_base_offset(tmp_path):
    with OffsetIndex(tmp_path / "s.index", 20, 10 * 8) as idx:
        idx.append(20, 1)
        idx.sanity_check()


# ------------------------------------------------------------------------------------------------------
# TimeIndexTest
# ------------------------------------------------------------------------------------------------------


def test_time_lookup(ti):
    assert ti.lookup(100) == TimestampOffset(-1, BASE)
    fill_time(ti, 29)
    assert ti.lookup(9) == (-1, BASE)
    assert ti.lookup(25) == (20, 65)
    assert ti.lookup(30) == (30, 75)
    assert ti.lookup(INT64_MAX) == ti.lookup(2**80) == ti.last_entry == (290, 335)


def test_time_entry(ti):
    with pytest.raises(InvalidOffsetError):
        ti.entry(0)
    fill_time(ti, 29)
    assert [ti.entry(i) for i in range(4)] == [(10, 55), (20, 65), (30, 75), (40, 85)]


def test_time_truncate(ti):
    fill_time(ti, 29)
    ti.truncate()
    assert ti.entries == 0 and ti.last_entry == (-1, BASE)
    fill_time(ti, 29)
    ti.truncate_to(10 + BASE)
    assert ti.entries == 0
    fill_time(ti, 5)
    ti.truncate_to(76)  # drops (40, 85), (50, 95)
    assert ti.entries == 3 and ti.last_entry == (30, 75)
    ti.truncate_to(75)
    assert ti.last_entry == (20, 65)


def test_time_append_one_slot_reserved(ti):
    fill_time(ti, 28)
    assert not ti.is_full()
    assert ti.maybe_append(285, 330)
    assert ti.is_full() and ti.entries == 29 == ti.max_entries - 1
    with pytest.raises(IndexFullError):
        ti.maybe_append(10000, 1000)
    with pytest.raises(InvalidOffsetError):
        ti.maybe_append(10000, (30 - 2) * 10, skip_full_check=True)
    assert ti.maybe_append(10000, 1000, skip_full_check=True)
    assert ti.entries == ti.max_entries == 30
    assert not ti.maybe_append(10000, 1000, skip_full_check=True)  # same entry: ignored
    with pytest.raises(IndexFullError):
        ti.maybe_append(10001, 1001, skip_full_check=True)


def test_time_append_rules(ti):
    assert not ti.maybe_append(-1, BASE)  # v0 data: no timestamps, no entries
    assert not ti.maybe_append(-7, BASE + 3)
    assert ti.entries == 0
    assert ti.maybe_append(100, BASE + 5)
    assert not ti.maybe_append(100, BASE + 6)  # equal timestamp: ignored
    assert ti.maybe_append(101, BASE + 5)  # equal offset, larger timestamp: kept
    with pytest.raises(InvalidOffsetError):
        ti.maybe_append(200, BASE + 4)  # offset goes back
    with pytest.raises(InvalidOffsetError):
        ti.maybe_append(99, BASE + 9)  # timestamp goes back (Kafka: IllegalStateException)
    with pytest.raises(InvalidOffsetError):
        ti.maybe_append(300, BASE + INT32_MAX + 1)
    with pytest.raises(InvalidTimestampError):
        ti.maybe_append(2**63, BASE + 9)
    assert ti.entries == 2 and ti.last_entry == (101, BASE + 5)


def test_time_sanity_check(tmp_path, ti):
    ti.sanity_check()
    fill_time(ti, 5)
    ti.sanity_check()
    ti.trim_to_valid_size()
    ti.close()
    good = Path(ti.path).read_bytes()

    def check(data, base=BASE):
        p = tmp_path / "c.timeindex"
        p.write_bytes(data)
        with TimeIndex(p, base, writable=False) as idx:
            try:
                idx.sanity_check()
            except CorruptIndexError as e:
                return e
            return None

    assert check(good) is None
    assert check(good + struct.pack(">qi", 5, 60)) is not None  # last timestamp < first
    assert check(good[:-12] + struct.pack(">qi", 60, -1)) is not None  # last offset < base offset
    assert check(good + b"\x00") is not None  # length % 12 != 0
    assert check(good + bytes(12)) is not None  # Kafka catches a zero tail here (0 < first timestamp)
    assert check(b"") is None


def test_time_is_full_and_last_entry(ti):
    assert not ti.is_full()
    assert ti.last_entry == TimestampOffset(-1, BASE)
    ti.maybe_append(1, 1 + BASE)
    assert ti.last_entry == (1, BASE + 1) and ti.last_offset == BASE + 1
    fill_time(ti, 27)
    assert not ti.is_full()
    ti.maybe_append(10_000, 1000)
    assert ti.is_full() and ti.entries == 29


@pytest.mark.parametrize("cls", [OffsetIndex, TimeIndex])
def test_resize(tmp_path, cls):
    es = cls.ENTRY_SIZE
    with cls(tmp_path / "r.idx", BASE, 30 * es) as idx:
        assert idx.entry_size == es
        assert not idx.resize(30 * es)
        assert idx.resize(15 * es) and idx.max_entries == 15 and os.path.getsize(idx.path) == 15 * es
        assert idx.resize(60 * es + es - 1) and idx.max_entries == 60 and idx.file_size == 60 * es
        add = idx.append if cls is OffsetIndex else idx.maybe_append
        for i in range(1, 11):
            add(BASE + i, 10 * i) if cls is OffsetIndex else add(10 * i, BASE + i)
        with pytest.raises(ConfigError):
            idx.resize(9 * es)
        assert idx.trim_to_valid_size() and idx.file_size == 10 * es == idx.size_in_bytes
        assert not idx.trim_to_valid_size()
        assert idx.is_full()
        idx.reset()
        assert idx.entries == 0 and idx.file_size == 30 * es


def test_resize_keeps_entries_and_lookups(oi):
    for i in range(1, 20):
        oi.append(BASE + 2 * i, 7 * i)
    before = [oi.lookup(t) for t in range(BASE, BASE + 45)]
    oi.lookup_many(np.arange(BASE, BASE + 45))
    oi.trim_to_valid_size()  # no export left behind by lookups (mmap would refuse with BufferError)
    assert [oi.lookup(t) for t in range(BASE, BASE + 45)] == before
    oi.resize(10 * 1024)
    assert [oi.lookup(t) for t in range(BASE, BASE + 45)] == before
    oi.append(BASE + 100, 1000)
    assert oi.last_entry == (BASE + 100, 1000)


# ------------------------------------------------------------------------------------------------------
# oracle: random operation sequences
# ------------------------------------------------------------------------------------------------------

ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 40), st.integers(1, 500)),
        st.tuples(st.just("truncate_to"), st.integers(BASE - 5, BASE + 600), st.just(0)),
        st.tuples(st.just("lookup"), st.integers(BASE - 5, BASE + 700), st.just(0)),
        st.tuples(st.just("reopen"), st.booleans(), st.just(0)),
    ),
    max_size=60,
)


@given(seq=ops)
def test_offset_index_matches_reference(tmp_path_factory, seq):
    path = tmp_path_factory.mktemp("o") / "00000000000000000045.index"
    model = ref.RefOffsetIndex(BASE)
    idx = OffsetIndex(path, BASE, 64 * 8)
    try:
        for op, a, b in seq:
            if op == "append":
                lo, lp = (model.offsets[-1], model.positions[-1]) if model.offsets else (BASE, 0)
                if len(model.offsets) < 64:
                    idx.append(lo + a, lp + b)
                    model.append(lo + a, lp + b)
            elif op == "truncate_to":
                idx.truncate_to(a)
                model.truncate_to(a)
            elif op == "lookup":
                assert idx.lookup(a) == model.lookup(a)
            else:
                if a:
                    idx.trim_to_valid_size()
                idx.close()
                idx = OffsetIndex(path, BASE, 64 * 8)
                assert idx.valid_entries == len(model.offsets)
                idx.resize(64 * 8)
            assert idx.valid_entries == len(model.offsets)
        assert [tuple(idx.entry(i)) for i in range(idx.valid_entries)] == model.entries()
        targets = np.arange(BASE - 3, BASE + 800)
        offs, poss = idx.lookup_many(targets)
        assert list(zip(offs.tolist(), poss.tolist())) == [model.lookup(t) for t in targets.tolist()]
    finally:
        idx.close()


time_ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(-2, 30), st.integers(0, 5)),
        st.tuples(st.just("truncate_to"), st.integers(BASE - 5, BASE + 200), st.just(0)),
        st.tuples(st.just("lookup"), st.integers(-5, 1000), st.just(0)),
        st.tuples(st.just("reopen"), st.booleans(), st.just(0)),
    ),
    max_size=60,
)


@given(seq=time_ops)
def test_time_index_matches_reference(tmp_path_factory, seq):
    path = tmp_path_factory.mktemp("t") / "00000000000000000045.timeindex"
    model = ref.RefTimeIndex(BASE)
    idx = TimeIndex(path, BASE, 64 * 12)
    try:
        for op, a, b in seq:
            if op == "append":
                lt, lo = model.last_entry()
                # the first timestamp is > 0: an entry (0, base_offset) reads as a zero-filled slot on reopen
                ts, off = (lt + a) if model.timestamps else 1000 + a, lo + b
                if len(model.timestamps) < 63:
                    try:
                        got = idx.maybe_append(ts, off)
                    except InvalidOffsetError:
                        got = "error"
                    try:
                        want = model.maybe_append(ts, off)
                    except ValueError:
                        want = "error"
                    assert got == want
            elif op == "truncate_to":
                idx.truncate_to(a)
                model.truncate_to(a)
            elif op == "lookup":
                assert idx.lookup(a) == model.lookup(a)
            else:
                if a:
                    idx.trim_to_valid_size()
                idx.close()
                idx = TimeIndex(path, BASE, 64 * 12)
                idx.resize(64 * 12)
            assert idx.valid_entries == len(model.timestamps)
            assert idx.last_entry == model.last_entry()
        assert [tuple(idx.entry(i)) for i in range(idx.valid_entries)] == model.entries()
        targets = np.arange(-3, 1200)
        tss, offs = idx.lookup_many(targets)
        assert list(zip(tss.tolist(), offs.tolist())) == [model.lookup(t) for t in targets.tolist()]
    finally:
        idx.close()


# ------------------------------------------------------------------------------------------------------
# untrusted tails: crash leftovers are detected and never believed
# ------------------------------------------------------------------------------------------------------


def write_offset_file(path, pairs, tail=b""):
    path.write_bytes(ref.encode_offset_index(pairs, BASE) + tail)
    return path


def test_reopen_untrimmed_and_trimmed(tmp_path):
    p = tmp_path / "u.index"
    with OffsetIndex(p, BASE, 30 * 8) as idx:
        for i in range(1, 6):
            idx.append(BASE + i, 10 * i)
    with OffsetIndex(p, BASE, 30 * 8) as idx:  # untrimmed, as after a crash
        assert (idx.entries, idx.valid_entries, idx.untrusted_tail()) == (30, 5, 25)
        assert idx.lookup(BASE + 100) == (BASE + 5, 50) and idx.last_offset == BASE + 5
        assert not idx.is_full() and idx.size_in_bytes == 40
        idx.sanity_check()  # what Kafka ≥ 2.0 concludes: fine
        with pytest.raises(CorruptIndexError):
            idx.sanity_check(strict=True)
        idx.trim_to_valid_size()
        assert idx.entries == idx.valid_entries == 5 and os.path.getsize(p) == 40
    with OffsetIndex(p, BASE, 30 * 8) as idx:  # trimmed: Kafka and kvlog agree
        assert idx.entries == idx.valid_entries == 5 and idx.untrusted_tail() == 0
        assert idx.is_full()
        idx.sanity_check(strict=True)


def test_zero_filled_file_is_empty(tmp_path):
    p = tmp_path / "z.index"
    p.write_bytes(bytes(8 * 100))
    with OffsetIndex(p, BASE, writable=False) as idx:
        assert idx.entries == 100 and idx.valid_entries == 0
        assert idx.lookup(BASE + 5) == (BASE, 0)
        assert idx.last_entry == (BASE, 0)
    q = tmp_path / "z.timeindex"
    q.write_bytes(bytes(12 * 100))
    with TimeIndex(q, BASE, writable=False) as idx:
        assert idx.entries == 100 and idx.valid_entries == 0
        assert idx.lookup(10**12) == (-1, BASE)
        with pytest.raises(CorruptIndexError):  # Kafka would notice nothing here: last ts 0 == first ts 0
            idx.sanity_check(strict=True)


@pytest.mark.parametrize(
    "tail",
    [
        struct.pack(">ii", 3, 10),  # offset goes back
        struct.pack(">ii", 9, 30),  # position goes back
        struct.pack(">ii", 8, 40),  # repeated offset
        struct.pack(">ii", -5, 99),  # negative offset
        bytes(8),  # zero fill
        bytes(range(200, 216)),  # garbage
    ],
)
def test_garbage_after_valid_entries_is_not_believed(tmp_path, tail):
    pairs = [(BASE + 1, 10), (BASE + 4, 20), (BASE + 8, 40)]
    p = write_offset_file(tmp_path / "g.index", pairs, tail + struct.pack(">ii", 50, 5000))
    with OffsetIndex(p, BASE, writable=False) as idx:
        assert idx.valid_entries == 3 and idx.untrusted_tail() == idx.entries - 3 > 0
        assert idx.lookup(BASE + 10_000) == (BASE + 8, 40)
        assert idx.lookup_many([BASE + 10_000])[0].tolist() == [BASE + 8]
    with OffsetIndex(p, BASE, trust_tail=True, writable=False) as kafka:  # Kafka's view: believes it all
        assert kafka.valid_entries == kafka.entries == idx.entries


def test_time_index_garbage_tail(tmp_path):
    pairs = [(10, BASE + 1), (20, BASE + 1), (30, BASE + 4)]
    for tail in (struct.pack(">qi", 25, 9), struct.pack(">qi", 40, 0), bytes(12), struct.pack(">qi", 30, 5)):
        p = tmp_path / "g.timeindex"
        p.write_bytes(ref.encode_time_index(pairs, BASE) + tail + struct.pack(">qi", 99, 99))
        with TimeIndex(p, BASE, writable=False) as idx:
            assert idx.valid_entries == 3 and idx.untrusted_tail() == 2
            assert idx.lookup(10**9) == (30, BASE + 4) and idx.last_entry == (30, BASE + 4)


def test_first_mutation_adopts_the_trusted_prefix(tmp_path):
    pairs = [(BASE + 1, 10), (BASE + 4, 20)]
    stale = ref.encode_offset_index([(BASE + 9, 90), (BASE + 12, 120)], BASE)
    p = write_offset_file(tmp_path / "m.index", pairs, bytes(8) + stale + bytes(16))
    with OffsetIndex(p, BASE, 8 * 8) as idx:
        assert (idx.entries, idx.valid_entries) == (7, 2)
        idx.append(BASE + 5, 25)
        assert idx.entries == idx.valid_entries == 3 and idx.untrusted_tail() == 0
    data = p.read_bytes()
    assert data[:24] == ref.encode_offset_index(pairs + [(BASE + 5, 25)], BASE)
    assert data[24:] == bytes(len(data) - 24), "stale entries were zeroed, never to be resurrected"


def test_truncation_zeroes_dropped_slots(tmp_path):
    p = tmp_path / "d.index"
    with OffsetIndex(p, BASE, 30 * 8) as idx:
        for i in range(1, 10):
            idx.append(BASE + i, 10 * i)
        idx.truncate_to(BASE + 4)
    with OffsetIndex(p, BASE, 30 * 8) as idx:  # untrimmed after "crash": the dropped entries stay dropped
        assert idx.valid_entries == 3 and idx.lookup(BASE + 9) == (BASE + 3, 30)
    q = tmp_path / "d.timeindex"
    with TimeIndex(q, BASE, 30 * 12) as t:
        fill_time(t, 9)
        t.truncate_to(BASE + 40)
    with TimeIndex(q, BASE, 30 * 12) as t:
        assert t.valid_entries == 3 and t.last_entry == (30, BASE + 30)


def test_scanner_oracle_random_bytes():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(0, 12))
        rel = np.cumsum(rng.integers(-1, 4, n)).astype(np.int64)
        pos = np.cumsum(rng.integers(-1, 4, n)).astype(np.int64)
        if rng.random() < 0.3 and n:
            rel[rng.integers(0, n):] = 0
            pos[rng.integers(0, n):] = 0
        data = K.offset_encode(rel, pos)
        assert K.offset_valid_entries(data, n) == ref.offset_valid_prefix(zip(rel.tolist(), pos.tolist()))
        ts = np.cumsum(rng.integers(-1, 4, n)).astype(np.int64)
        tdata = K.time_encode(ts, rel)
        assert K.time_valid_entries(tdata, n) == ref.time_valid_prefix(zip(ts.tolist(), rel.tolist()))
        for start in range(0, K.offset_valid_entries(data, n) + 1):
            assert K.offset_valid_entries(data, n, start) == K.offset_valid_entries(data, n)


# ------------------------------------------------------------------------------------------------------
# sanity checks (offset index)
# ------------------------------------------------------------------------------------------------------


def test_offset_sanity_check_failures(tmp_path):
    p = tmp_path / "s.index"
    good = ref.encode_offset_index([(BASE + 1, 10), (BASE + 5, 30)], BASE)

    def sanity(data):
        p.write_bytes(data)
        with OffsetIndex(p, BASE, writable=False) as idx:
            idx.sanity_check()

    sanity(good)
    sanity(b"")
    with pytest.raises(CorruptIndexError):
        sanity(good + struct.pack(">ii", -3, 40))  # last offset < base offset
    with pytest.raises(CorruptIndexError, match="multiple of 8"):
        sanity(good + b"\x01\x02\x03")


# ------------------------------------------------------------------------------------------------------
# readers
# ------------------------------------------------------------------------------------------------------


def test_read_only_reader_of_a_file_being_appended(tmp_path):
    p = tmp_path / "00000000000000000045.index"
    q = tmp_path / "00000000000000000045.timeindex"
    with OffsetIndex(p, BASE, 100 * 8) as w, TimeIndex(q, BASE, 100 * 12) as tw:
        for i in range(1, 6):
            w.append(BASE + i, 10 * i)
            tw.maybe_append(100 * i, BASE + i)
        r = OffsetIndex(p, BASE, writable=False)
        tr = TimeIndex(q, BASE, writable=False)
        assert r.valid_entries == 5 and r.lookup(BASE + 50) == (BASE + 5, 50)
        assert tr.valid_entries == 5 and tr.lookup(10**6) == (500, BASE + 5)
        for i in range(6, 11):
            w.append(BASE + i, 10 * i)
            tw.maybe_append(100 * i, BASE + i)
        assert r.lookup(BASE + 50) == (BASE + 5, 50), "a reader sees its snapshot until refresh"
        assert r.refresh() == 10 and r.lookup(BASE + 50) == (BASE + 10, 100)
        assert tr.refresh() == 10 and tr.lookup(10**6) == (1000, BASE + 10)
        r.close()
        tr.close()
        w.trim_to_valid_size()
        with OffsetIndex(p, BASE, writable=False) as r2:
            assert r2.entries == r2.valid_entries == 10
            assert r2.lookup_many([BASE + 7])[1].tolist() == [70]


def test_read_only_reads_a_private_copy(tmp_path):
    """Readers never map the file: a writer trimming it must not SIGBUS them (KAFKA-19390)."""
    p = tmp_path / "ro.index"
    w = OffsetIndex(p, BASE, 10 * 8)
    w.append(BASE + 1, 1)
    w.append(BASE + 2, 9)
    before = p.read_bytes()
    with OffsetIndex(p, BASE, writable=False) as r:
        assert r._mm is None
        with pytest.raises(ReadOnlyIndexError):
            r.append(BASE + 3, 20)
        r.flush()  # a no-op for readers
        w.truncate_to(BASE + 2)
        w.trim_to_valid_size()  # the file shrinks under the reader
        assert r.lookup(BASE + 5) == (BASE + 2, 9)  # the reader's copy is unaffected
        assert r.refresh() == 1 and r.lookup(BASE + 5) == (BASE + 1, 1)
    w.close()
    assert p.read_bytes() != before and len(p.read_bytes()) == 8


def test_empty_files(tmp_path):
    p = tmp_path / "e.index"
    p.write_bytes(b"")
    with OffsetIndex(p, BASE, writable=False) as r:
        assert r.entries == r.max_entries == 0 and r.lookup(BASE + 3) == (BASE, 0)
        assert r.lookup_many([1, 2])[0].tolist() == [BASE, BASE]
        assert r.refresh() == 0
    with OffsetIndex(p, BASE, 10 * 8) as w:  # an existing 0-byte file keeps its length (Kafka: full)
        assert w.is_full()
        with pytest.raises(IndexFullError):
            w.append(BASE + 1, 1)
        w.resize(w.max_index_size)
        w.append(BASE + 1, 1)
        assert w.entries == 1
    with OffsetIndex(tmp_path / "missing.index", BASE, writable=False) as r:  # a reader of bare segments
        assert r.entries == 0 and r.lookup(BASE + 7) == (BASE, 0)
    assert not (tmp_path / "missing.index").exists()
    t = tmp_path / "e.timeindex"
    t.write_bytes(b"")
    with TimeIndex(t, BASE, writable=False) as r:
        assert r.lookup(5) == (-1, BASE) and r.last_entry == (-1, BASE)


def test_life_cycle(tmp_path):
    p = tmp_path / "l.index"
    idx = OffsetIndex(p, BASE, 10 * 8)
    idx.append(BASE + 1, 1)
    idx.flush()
    idx.rename_to(tmp_path / "l.index.deleted")
    assert idx.path == str(tmp_path / "l.index.deleted") and not p.exists()
    assert idx.lookup(BASE + 1) == (BASE + 1, 1)
    idx.close()
    idx.close()
    assert idx.closed
    for op in (lambda: idx.lookup(1), lambda: idx.append(BASE + 5, 5), idx.flush, lambda: idx.lookup_many([1])):
        with pytest.raises(ClosedIndexError):
            op()
    assert idx.delete() and not Path(idx.path).exists()
    assert not idx.delete()
    with OffsetIndex(p, BASE, 10 * 8) as ctx:
        pass
    assert ctx.closed
    with pytest.raises(InvalidOffsetError):
        OffsetIndex(p, -1, 80)


# ------------------------------------------------------------------------------------------------------
# search kernels: warm section, batches
# ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 682, 683, 684, 1024, 1025, 1026, 1027, 5000])
def test_warm_section_search_equals_plain_binary_search(n):
    rng = np.random.default_rng(n)
    rel = np.cumsum(rng.integers(1, 6, n)).astype(np.int64)
    pos = np.cumsum(rng.integers(1, 900, n)).astype(np.int64)
    data = K.offset_encode(rel, pos)
    targets = np.arange(-2, int(rel[-1]) + 3, dtype=np.int64)
    plain = np.searchsorted(rel, targets, side="right") - 1
    scalar = np.array([K.offset_lookup(data, n, int(t)) for t in targets])
    assert (scalar == plain).all()
    assert (K.offset_lookup_many(data, n, targets) == plain).all()
    ts = np.cumsum(rng.integers(1, 6, n)).astype(np.int64) + 1_700_000_000_000
    tdata = K.time_encode(ts, rel)
    ttargets = np.arange(int(ts[0]) - 2, int(ts[-1]) + 3, dtype=np.int64)
    tplain = np.searchsorted(ts, ttargets, side="right") - 1
    assert (np.array([K.time_lookup(tdata, n, int(t)) for t in ttargets]) == tplain).all()
    assert (K.time_lookup_many(tdata, n, ttargets) == tplain).all()


def test_warm_section_large_index_every_target():
    n = 200_000
    rng = np.random.default_rng(3)
    rel = np.cumsum(rng.integers(1, 4, n)).astype(np.int64)
    data = K.offset_encode(rel, np.arange(1, n + 1) * 100)
    targets = np.arange(-1, int(rel[-1]) + 2, dtype=np.int64)
    plain = np.searchsorted(rel, targets, side="right") - 1
    assert (K.offset_lookup_many(data, n, targets) == plain).all()  # sorted targets: galloping path
    shuffled = rng.permutation(targets)
    assert (K.offset_lookup_many(data, n, shuffled) == np.searchsorted(rel, shuffled, side="right") - 1).all()
    sample = targets[:: 97].tolist() + targets[-3000:].tolist()  # scalar: the warm section, densely
    want = (np.searchsorted(rel, sample, side="right") - 1).tolist()
    assert [K.offset_lookup(data, n, t) for t in sample] == want


@given(
    gaps=st.lists(st.integers(1, 1000), min_size=0, max_size=3000),
    targets=st.lists(st.integers(-(2**64), 2**64), max_size=50),
)
def test_batched_lookups_equal_scalar(gaps, targets):
    n = len(gaps)
    rel = np.cumsum(np.array(gaps, dtype=np.int64)) if n else np.empty(0, np.int64)
    rel = np.minimum(rel, INT32_MAX - 3000 + np.arange(n)) if n else rel
    data = K.offset_encode(rel, np.arange(1, n + 1))
    tdata = K.time_encode(rel * 1000, rel)
    extra = rel.tolist()[:20] + [int(x) + 1 for x in rel.tolist()[-20:]]
    all_t = [max(INT64_MIN, min(INT64_MAX, t)) for t in targets] + extra
    arr = np.array(all_t, dtype=np.int64)
    assert K.offset_lookup_many(data, n, arr).tolist() == [K.offset_lookup(data, n, t) for t in all_t]
    assert K.time_lookup_many(tdata, n, arr).tolist() == [K.time_lookup(tdata, n, t) for t in all_t]
    arr.sort()
    assert K.offset_lookup_many(data, n, arr).tolist() == [K.offset_lookup(data, n, int(t)) for t in arr]
    for t in targets:  # unbounded Python ints saturate like the int64 extremes
        assert K.offset_lookup(data, n, t) == K.offset_lookup(data, n, max(INT64_MIN, min(INT64_MAX, t)))


def test_lookup_many_api(tmp_path):
    with OffsetIndex(tmp_path / "b.index", BASE, 4000 * 8) as o, TimeIndex(tmp_path / "b.timeindex", BASE) as t:
        for i in range(1, 3001):
            o.append(BASE + 3 * i, 11 * i)
            t.maybe_append(5 * i, BASE + 3 * i)
        targets = np.concatenate([np.arange(BASE - 5, BASE + 9100), [INT64_MIN, INT64_MAX, 0]])
        offs, poss = o.lookup_many(targets)
        assert list(zip(offs.tolist(), poss.tolist())) == [tuple(o.lookup(int(x))) for x in targets]
        as_u64 = o.lookup_many(np.array([2**64 - 1, BASE + 4], dtype=np.uint64))[0].tolist()
        assert as_u64 == [o.last_offset, BASE + 3]
        assert o.lookup_many([])[0].shape == (0,)
        with pytest.raises(InvalidOffsetError):
            o.lookup_many(np.array([1.5]))
        tss, toffs = t.lookup_many(np.arange(-5, 15_100, 7))
        assert list(zip(tss.tolist(), toffs.tolist())) == [tuple(t.lookup(int(x))) for x in range(-5, 15_100, 7)]
        assert o.lookup_slot(BASE + 4) == 0 and o.lookup_slot(BASE) == -1
        assert t.lookup_slot(5) == 0 and t.lookup_slot(4) == -1


def test_time_slot_for_offset_with_repeated_offsets():
    ts = [10, 20, 30, 40, 50]
    rel = [1, 5, 5, 5, 9]
    data = K.time_encode(ts, rel)
    assert [K.time_slot_for_offset(data, 5, x) for x in (0, 1, 4, 5, 8, 9, 100)] == [-1, 0, 0, 3, 3, 4, 4]
    assert [K.time_count_below_offset(data, 5, x) for x in (0, 1, 2, 5, 6, 9, 10)] == [0, 0, 1, 1, 4, 4, 5]


def test_core_argument_checks():
    data = K.offset_encode([1, 2], [3, 4])
    with pytest.raises(ValueError):
        K.offset_lookup(data, 3, 1)  # more entries than the buffer holds
    with pytest.raises(ValueError):
        K.offset_entry(data, 2, 2)
    with pytest.raises(ValueError):
        K.offset_resolve(data, 2, np.array([5]), 0)
    pin = K.Pinned(data)
    assert pin.held and pin.nbytes == 16 and K.offset_lookup(pin, 2, 1) == 0
    pin.release()
    with pytest.raises(ValueError):
        K.offset_lookup(pin, 2, 1)
    m = mmap.mmap(-1, 16)
    m[:] = data
    pin = K.Pinned(m)
    with pytest.raises(BufferError):
        m.close()
    pin.release()
    m.close()


@pytest.mark.skipif(shutil.which("cc") is None or sys.platform == "win32", reason="needs a C compiler")
def test_c_kernels(tmp_path):
    exe = tmp_path / "test_index"
    subprocess.run(
        ["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", f"-I{REPO / 'src/kvlog/_core/include'}",
         str(REPO / "tests/c/test_index.c"), "-o", str(exe)], check=True, capture_output=True, timeout=120)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout


def test_outside_export_blocks_close_but_leaves_the_index_usable(tmp_path):
    with OffsetIndex(tmp_path / "x.index", BASE, 10 * 8) as idx:
        idx.append(BASE + 1, 1)
        view = memoryview(idx._mm)  # someone else's export of the mapping
        with pytest.raises(BufferError):
            idx.close()
        with pytest.raises(BufferError):
            idx.resize(20 * 8)
        assert not idx.closed and idx.lookup(BASE + 5) == (BASE + 1, 1) and idx.file_size == 80
        view.release()
        idx.close()
        assert idx.closed


def _outcome(fn):
    try:
        return fn()
    except IndexFullError:
        return "full"
    except InvalidOffsetError:
        return "invalid"


@given(
    start=st.integers(0, 3),
    batch=st.lists(st.tuples(st.integers(-2, 6), st.integers(-2, 6)), max_size=12),
    skip=st.booleans(),
)
def test_append_many_equals_sequential_appends_or_writes_nothing(tmp_path_factory, start, batch, skip):
    d = tmp_path_factory.mktemp("m")
    with OffsetIndex(d / "a.index", BASE, 10 * 8) as a, OffsetIndex(d / "b.index", BASE, 10 * 8) as b, \
            TimeIndex(d / "a.timeindex", BASE, 10 * 12) as ta, TimeIndex(d / "b.timeindex", BASE, 10 * 12) as tb:
        for i in range(start):
            for idx in (a, b):
                idx.append(BASE + 5 * i + 1, 10 * i + 10)
            for idx in (ta, tb):
                idx.maybe_append(100 * i + 100, BASE + 5 * i)
        offs, poss, tss = [], [], []
        o, p, t = a.last_offset, a.last_entry.position, ta.last_entry.timestamp
        for do, dp in batch:
            o, p, t = o + do, p + dp, t + do
            offs.append(o)
            poss.append(p)
            tss.append(t)
        before = (Path(a.path).read_bytes(), a.entries)
        got = _outcome(lambda: a.append_many(np.array(offs, dtype=np.int64), np.array(poss, dtype=np.int64)))

        def sequential():
            for x, y in zip(offs, poss):
                b.append(x, y)

        want = _outcome(sequential)
        assert got == want
        if got is None:
            assert Path(a.path).read_bytes() == Path(b.path).read_bytes() and a.last_entry == b.last_entry
        else:
            assert (Path(a.path).read_bytes(), a.entries) == before

        tbefore = (Path(ta.path).read_bytes(), ta.entries)
        tgot = _outcome(lambda: ta.append_many(tss, offs, skip_full_check=skip))

        def tsequential():
            return sum(tb.maybe_append(x, y, skip) for x, y in zip(tss, offs))

        twant = _outcome(tsequential)
        assert tgot == twant
        if isinstance(tgot, int):
            assert Path(ta.path).read_bytes() == Path(tb.path).read_bytes() and ta.last_entry == tb.last_entry
        else:
            assert (Path(ta.path).read_bytes(), ta.entries) == tbefore
