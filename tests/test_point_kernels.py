"""The point-operation kernels (kvlog._core.point) against the bulk kernels and the general paths.

Each fast path must give what the slower path it stands in for gives: ``encode_records`` the bytes of
``encode_batch``, ``find_batch``/``whole_batches``/``find_timestamp`` the answers of a full header scan and
decode, ``Log._append_point`` the same files and ``AppendInfo`` as the general leader path, the
small-chunk ``records()`` the rows of the Arrow path. Arbitrary bytes give results or typed errors only.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import Log, LogConfig, MemoryRecords, Record
from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog.errors import KvlogError

T0 = 1_700_000_000_000

blobs = st.one_of(st.none(), st.binary(max_size=300))
records_st = st.lists(st.tuples(blobs, blobs, st.one_of(st.none(), st.integers(T0 - 10**6, T0 + 10**6))),
                      min_size=1, max_size=40)


@given(records_st, st.sampled_from([(-1, -1, -1, False), (7, 2, 5, False), (9, 0, 2**31 - 3, True)]),
       st.sampled_from([(0, -1), (1234, 7), (2**40, 0)]))
def test_encode_records_is_the_general_encoder(rows, producer, placement):
    """encode_records (and encode_batch, which uses it for plain lists) writes exactly the columnar
    encoder's bytes (missing timestamps become ``now``)."""
    now = T0 + 5
    recs = [Record(k, v, t) for k, v, t in rows]
    pid, epoch, seq, txn = producer
    base, ple = placement
    want = kvlog.encode_arrays(
        [r.key for r in recs], [r.value for r in recs], [now if r.timestamp is None else r.timestamp for r in recs],
        producer_id=pid, producer_epoch=epoch, base_sequence=seq, is_transactional=txn, base_offset=base,
        partition_leader_epoch=ple, records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1)
    assert _p.encode_records(recs, now, pid, epoch, seq, txn, base, ple) == want
    assert _p.encode_records([(k, v, t) for k, v, t in rows], now, pid, epoch, seq, txn, base, ple) == want
    stamped = [r if r.timestamp is not None else r._replace(timestamp=now) for r in recs]
    assert kvlog.encode_batch(stamped, producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                              is_transactional=txn, base_offset=base, partition_leader_epoch=ple) == want


def test_encode_batch_fast_path_keeps_the_general_errors():
    """A timestamp below -1 is refused with the typed error whichever path encodes the list."""
    with pytest.raises(kvlog.InvalidTimestampError):
        kvlog.encode_batch([Record(b"k", b"v", -2)])
    assert _p.encode_records([Record(b"k", b"v", -2)], T0) is None


@pytest.mark.parametrize("odd", [
    [Record("text", b"v", T0)],                        # str key: the general encoder encodes it
    [Record(b"k", b"v", T0, ((b"h", b"x"),))],         # headers
    [Record(b"k", bytearray(b"v"), T0)],               # a buffer value
    [(b"k", b"v", T0, None, 1)],                       # a plain tuple longer than Record's first four
    [b"not a record"],
    [],
])
def test_encode_records_leaves_other_shapes_to_the_general_encoder(odd):
    """Anything but bytes/None keys and values without headers gets None, never a different encoding."""
    assert _p.encode_records(odd, T0) is None


def _batches(n=60, seed=1, big_every=0):
    rng = np.random.default_rng(seed)
    parts, offset = [], 0
    for i in range(n):
        k = int(rng.integers(1, 8))
        size = 20_000 if big_every and i % big_every == 0 else int(rng.integers(0, 200))
        recs = [Record(b"k%d" % j, rng.bytes(size), T0 + int(rng.integers(-500, 500))) for j in range(k)]
        parts.append(kvlog.encode_batch(recs, base_offset=offset))
        offset += k
    return b"".join(parts)


@given(st.integers(0, 500), st.integers(0, 60_000), st.integers(0, 500), st.sampled_from([0, 1, 5]))
def test_find_batch_and_cut_match_a_full_scan(target, max_bytes, stop, big_every):
    """The first batch with last offset >= target, and the cut: whole batches within max_bytes, before the
    first batch starting at or past the stop offset (the found batch always kept)."""
    data = _batches(big_every=big_every)
    h = MemoryRecords(data).batch_headers()
    r = _p.find_batch(data, target, max_bytes, stop, len(data))
    i = int(np.searchsorted(h["last_offset"], target))
    if i == len(h):
        assert r[0] == _p.NEED and r[1] == len(data)
        return
    assert r[0] == _p.FOUND
    assert (r[1], r[2], r[3], r[4], r[5]) == tuple(int(h[f][i]) for f in (
        "position", "base_offset", "last_offset", "size", "max_timestamp"))
    start = int(h["position"][i])
    if h["size"][i] > max_bytes:
        assert r[7] == start
        return
    j = i + 1
    while j < len(h) and h["base_offset"][j] < stop and h["position"][j] + h["size"][j] - start <= max_bytes:
        j += 1
    assert r[7] == int(h["position"][j - 1] + h["size"][j - 1]) and r[8]
    assert r[9] == int(h["last_offset"][j - 1])
    assert _p.whole_batches(memoryview(data)[start:], max_bytes, stop) == (r[7] - start, r[9])


@given(st.integers(T0 - 600, T0 + 600), st.integers(0, 400))
def test_find_timestamp_matches_a_full_decode(target, start_offset):
    """The first record with offset >= start and timestamp >= target, walking only one batch's records."""
    data = _batches()
    want = next(((r.offset, r.timestamp) for r in MemoryRecords(data).records()
                 if r.offset >= start_offset and r.timestamp >= target), None)
    got = _p.find_timestamp(data, target, start_offset)
    if want is None:
        assert got[0] == _p.NEED and got[1] == len(data)
    else:
        assert got[0] == _p.FOUND and (got[2], got[3]) == want


def test_find_timestamp_hands_compressed_and_legacy_batches_back():
    """A compressed or legacy batch that may hold the answer is DECODE with its position and size."""
    gz = kvlog.encode_batch([Record(b"k", b"v", T0)], compression="gzip")
    v1 = kvlog.encode_batch([Record(b"k", b"v", T0)], magic=1)
    for data in (gz, v1):
        got = _p.find_timestamp(data, T0, 0)
        assert got[0] == _p.DECODE and got[1] == 0 and got[4] == len(data)


def test_log_append_time_batches_answer_with_the_batch_timestamp():
    """Under LogAppendTime every record's timestamp is the batch's max timestamp."""
    data = bytearray(kvlog.encode_batch([Record(b"k", b"v", T0 - 1000 + i) for i in range(3)]))
    out = np.empty(4, dtype=_k.BATCH_DTYPE)
    got = _p.prepare_append(data, out.view(np.uint8), 10, T0 + 50, 1 << 20, -1, True, False)
    assert got[0] == _p.FOUND and got[4] == T0 + 50
    assert _p.find_timestamp(data, T0 + 50, 11)[:4] == (_p.FOUND, 0, 11, T0 + 50)
    assert [r.timestamp for r in MemoryRecords(data).records()] == [T0 + 50] * 3


@given(st.binary(max_size=400), st.integers(0, 2**40))
def test_kernels_on_arbitrary_bytes_give_results_or_typed_errors(data, target):
    """No struct.error, IndexError or crash: an answer or a kvlog error."""
    for call in (lambda: _p.find_batch(data, target, 100, target + 1),
                 lambda: _p.find_timestamp(data, target, target // 3),
                 lambda: _p.whole_batches(data, 1000, target)):
        try:
            call()
        except KvlogError:
            pass
    buf = bytearray(data)
    got = _p.prepare_append(buf, np.empty(2, dtype=_k.BATCH_DTYPE).view(np.uint8), 0, -1, 1 << 20, -1, True, True)
    assert got[0] in (_p.FOUND, _p.SLOW, _p.GROW)
    if got[0] != _p.FOUND:
        assert buf == data


def test_prepare_append_refuses_without_changing_anything():
    """Each case the general path owns comes back SLOW (or GROW) with the buffer untouched."""
    good = kvlog.encode_batch([Record(b"k", b"v", T0)])
    bad_crc = bytearray(good)
    bad_crc[-1] ^= 1
    cases = {
        "crc": bytes(bad_crc),
        "legacy": kvlog.encode_batch([Record(b"k", b"v", T0)], magic=1),
        "trailing": good + b"\x00" * 5,
        "control": kvlog.encode_batch([Record(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x00", T0)],
                                      producer_id=1, producer_epoch=0, is_transactional=True, is_control=True),
        "no sequence": kvlog.encode_batch([Record(b"k", b"v", T0)], producer_id=3, producer_epoch=0),
        "codec": kvlog.encode_batch([Record(b"k", b"v", T0)], compression="gzip"),
        "empty": kvlog.encode_batch([]),
    }
    for name, data in cases.items():
        buf = bytearray(data)
        got = _p.prepare_append(buf, np.empty(4, dtype=_k.BATCH_DTYPE).view(np.uint8), 5, -1, 1 << 20, 0, True, False)
        assert got[0] == _p.SLOW, name
        assert buf == data, name
    many = b"".join(kvlog.encode_batch([Record(b"k", b"v", T0)], base_offset=i) for i in range(5))
    buf = bytearray(many)
    assert _p.prepare_append(buf, np.empty(4, dtype=_k.BATCH_DTYPE).view(np.uint8), 5, -1, 1 << 20, -1, True, False)[0] == _p.GROW
    assert buf == many


def _files(path):
    out = {}
    for n in sorted(os.listdir(path)):
        if n.endswith((".log", ".index", ".timeindex", ".txnindex", ".snapshot")):
            with open(os.path.join(path, n), "rb") as f:
                out[n] = f.read()
    return out


def _workload(rng):
    """Appends of every shape the point path takes or hands on: 1-10 record batches, multi-batch
    appends, idempotent producers (with a retry), legacy input, a compressed batch, Records."""
    out, seq = [], 0
    for i in range(120):
        kind = i % 7
        recs = [Record(b"k%d" % j, rng.bytes(int(rng.integers(0, 900))), T0 + int(rng.integers(-50, 50)))
                for j in range(int(rng.integers(1, 11)))]
        if kind == 0:
            out.append(b"".join(kvlog.encode_batch(recs[:2]) for _ in range(3)))
        elif kind == 1:
            batch = kvlog.encode_batch(recs, producer_id=42, producer_epoch=1, base_sequence=seq)
            seq += len(recs)
            out.extend([batch, batch])  # the second is a producer retry
        elif kind == 2:
            out.append(kvlog.encode_batch(recs, magic=1))
        elif kind == 3:
            out.append(kvlog.encode_batch(recs, compression="gzip"))
        elif kind == 4:
            out.append(recs)
        else:
            out.append(kvlog.encode_batch(recs))
    return out


@pytest.mark.parametrize("config", [
    dict(),
    dict(message_timestamp_type="LogAppendTime"),
    dict(compression_type="uncompressed", index_interval_bytes=256),
    dict(message_timestamp_after_max_ms=10**12, message_timestamp_before_max_ms=10**12, segment_bytes=64 << 10),
])
def test_point_append_writes_what_the_general_path_writes(tmp_path, monkeypatch, config):
    """Same files, byte for byte, and the same AppendInfo with the point path on and off."""
    infos = {}
    for mode in ("point", "general"):
        if mode == "general":
            monkeypatch.setattr(Log, "_append_point", lambda self, data, compression: None)
        now = [T0]  # the clock moves per append, not per call: the paths read it a different number of times
        log = Log.open(tmp_path / mode / "t-0", LogConfig(**config), time=lambda now=now: now[0])
        infos[mode] = []
        for item in _workload(np.random.default_rng(3)):
            now[0] += 7
            infos[mode].append(log.append(item))
        log.close()
    assert infos["point"] == infos["general"]
    assert any(i.duplicate for i in infos["point"])
    assert _files(tmp_path / "point" / "t-0") == _files(tmp_path / "general" / "t-0")


def test_point_append_refuses_what_the_general_path_refuses(tmp_path):
    """Errors come from the general path, with its messages."""
    log = Log.open(tmp_path / "t-0", LogConfig(max_message_bytes=200, message_timestamp_after_max_ms=1000),
                   time=lambda: T0)
    with pytest.raises(kvlog.RecordTooLargeError, match="over max.message.bytes=200"):
        log.append(kvlog.encode_batch([Record(b"k", b"v" * 300, T0)]))
    with pytest.raises(kvlog.InvalidTimestampError, match="after the log's time"):
        log.append(kvlog.encode_batch([Record(b"k", b"v", T0 + 5000)]))
    bad = bytearray(kvlog.encode_batch([Record(b"k", b"v", T0)]))
    bad[-1] ^= 1
    with pytest.raises(kvlog.CorruptRecordError):
        log.append(bytes(bad))
    assert log.log_end_offset == 0
    assert log.append([Record(b"k", b"v", T0)]).first_offset == 0


def test_fetch_continuation_survives_truncation(tmp_path):
    """The (next offset, position) a fetch remembers is dropped when the segment shrinks."""
    log = Log.open(tmp_path / "t-0", LogConfig(index_interval_bytes=1 << 20))
    for i in range(50):
        log.append(kvlog.encode_batch([Record(b"k", b"a" * 37, T0 + i)] * 2))
    mr = log.read(40, 400)
    assert mr.next_offset is not None and mr.next_offset > 40
    log.truncate_to(30)
    for i in range(30):
        log.append(kvlog.encode_batch([Record(b"k", b"b" * (i + 1), T0 + i)]))
    got = log.read(mr.next_offset, 1 << 20)
    want = [r for r in log.records() if r.offset >= mr.next_offset]
    assert list(got.records())[: len(want)] == want


def test_next_offset_of_a_fetch_and_of_plain_buffers(tmp_path):
    """next_offset is the offset after the last complete batch, from a fetch or from headers alone."""
    log = Log.open(tmp_path / "t-0")
    for i in range(20):
        log.append(kvlog.encode_batch([Record(b"k", b"v", T0)] * 3))
    nxt, seen = 0, []
    while nxt < log.log_end_offset:
        mr = log.read(nxt, 300)
        seen += [r.offset for r in mr.records()]
        assert mr.next_offset == MemoryRecords(bytes(mr.buffer)).next_offset
        nxt = mr.next_offset
    assert seen == list(range(60))
    assert MemoryRecords(b"").next_offset is None
    one = kvlog.encode_batch([Record(b"k", b"v", T0)] * 4, base_offset=9)
    assert MemoryRecords(one + one[:20]).next_offset == 13


@given(st.lists(st.tuples(blobs, blobs, st.lists(st.tuples(st.text(max_size=5), blobs), max_size=3)),
                min_size=1, max_size=300))
def test_small_chunk_records_equal_the_arrow_rows(rows):
    """records() builds small chunks without Arrow: same keys, values, headers and offsets as to_arrow()."""
    data = kvlog.encode_arrays([k for k, _, _ in rows], [v for _, v, _ in rows], T0,
                               headers=[tuple(h) for _, _, h in rows], records_per_batch=7)
    got = list(MemoryRecords(data).records())
    table = MemoryRecords(data).to_arrow().to_pylist()
    assert [r.key for r in got] == [t["key"] for t in table]
    assert [r.value for r in got] == [t["value"] for t in table]
    assert [r.offset for r in got] == [t["offset"] for t in table] == list(range(len(rows)))
    assert [r.headers for r in got] == [tuple((h["key"], h["value"]) for h in t["headers"] or ()) for t in table]
    assert all(r.timestamp_type == kvlog.TimestampType.CREATE_TIME for r in got)


def test_refresh_lets_a_read_only_log_tail_its_writer(tmp_path):
    """refresh() makes a reader see appends and rolls without reopening; every offset once, in order."""
    path = tmp_path / "t-0"
    writer = Log.open(path, LogConfig(segment_bytes=4000, index_interval_bytes=100))
    reader = Log.open(path, read_only=True)
    nxt, seen = 0, []
    for i in range(400):
        writer.append(kvlog.encode_batch([Record(b"k", b"v%d" % i, T0 + i)] * (1 + i % 3)))
        if i % 11 == 0:
            reader.refresh()
            while nxt < reader.log_end_offset:
                mr = reader.read(nxt, 700)
                seen += [r.offset for r in mr.records()]
                nxt = mr.next_offset
    assert reader.refresh() == writer.log_end_offset
    seen += [r.offset for r in reader.records(nxt)]
    assert seen == list(range(writer.log_end_offset))
    assert [s.base_offset for s in reader.segments] == [s.base_offset for s in writer.segments]
    for ts in (T0, T0 + 123, T0 + 399, T0 + 400):
        assert reader.offset_for_timestamp(ts) == writer.offset_for_timestamp(ts)
    assert writer.refresh() == writer.log_end_offset  # a writer is always current


def test_refresh_ignores_a_half_written_batch(tmp_path):
    """A torn tail stays invisible to refresh, as at open; the complete batches before it show."""
    path = tmp_path / "t-0"
    writer = Log.open(path)
    writer.append(kvlog.encode_batch([Record(b"k", b"v", T0)] * 3))
    reader = Log.open(path, read_only=True)
    batch = kvlog.encode_batch([Record(b"k", b"w", T0)] * 2, base_offset=3)
    with open(writer.active_segment.log_path, "ab") as f:
        f.write(batch[:30])
    assert reader.refresh() == 3
    with open(writer.active_segment.log_path, "ab") as f:
        f.write(batch[30:])
    assert reader.refresh() == 5
    assert [r.value for r in reader.records()] == [b"v"] * 3 + [b"w"] * 2


def test_a_reader_copies_only_the_written_part_of_a_preallocated_index(tmp_path):
    """The reader's private index copy (read up to the first hole) answers like the writer's mapping."""
    from kvlog.index import OffsetIndex, TimeIndex

    path = tmp_path / "t-0"
    writer = Log.open(path, LogConfig(index_interval_bytes=64))
    for i in range(3000):
        writer.append(kvlog.encode_batch([Record(b"k", b"v" * 50, T0 + i)]))
    seg = writer.active_segment
    assert os.path.getsize(seg.offset_index.path) == LogConfig().segment_index_bytes  # preallocated
    for cls, idx in ((OffsetIndex, seg.offset_index), (TimeIndex, seg.time_index)):
        copy = cls(idx.path, seg.base_offset, writable=False)
        assert copy.valid_entries == idx.valid_entries > 1000
        assert all(np.array_equal(a, b) for a, b in zip(copy.to_numpy(), idx.to_numpy()))
        copy.close()
