"""The JVM sink's building blocks (``RecordBatchV2Encoder``, ``DefaultPartitioner``, ``SegmentWriter``), driven
over py4j through ``io.kvlog.spark.write.WriterBlocksForTests`` in the shared Spark session.

Oracles: kvlog's own decoder, encoder, ``Log`` and ``kvlog verify``; aiokafka's and kafka-python's record
decoders; kafka-python's ``murmur2``; kvlog's Python sink routing; the JVM scan.
"""

from __future__ import annotations

import os
import struct
import warnings

import numpy as np
import pyarrow as pa
import pytest

import kvlog
import kvlog.spark
from kvlog._core.partitioner import murmur2 as kvlog_murmur2
from kvlog.verify import verify_partition
from kvlog.spark._staging import SinkPlan, _route

from tests.oracles import peer_can_decode, peer_decode

pytest.importorskip("pyspark")

from py4j.protocol import Py4JJavaError  # noqa: E402
from pyspark.errors import IllegalArgumentException as SparkIllegalArgument  # noqa: E402

# a Java exception raised through py4j: pyspark converts IllegalArgumentException, the rest stay Py4JJavaError
JVM_ERRORS = (Py4JJavaError, SparkIllegalArgument)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # kafka/__init__ (see tests/oracles.py)
    from kafka.partitioner.default import murmur2 as kp_murmur2

T0 = 1_700_000_000_000
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
CODEC_IDS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


@pytest.fixture(scope="module")
def blocks(spark):
    if not kvlog.spark.jvm_source_available(spark):
        pytest.fail("the kvlog jar is not on the test session's classpath (tests/conftest.py builds it)")
    return spark._jvm.io.kvlog.spark.write.WriterBlocksForTests


# ------------------------------------------------------------------------------------------------ rows
def _lp(b: bytes | None) -> bytes:
    return struct.pack(">i", -1) if b is None else struct.pack(">i", len(b)) + b


def pack_rows(rows) -> bytes:
    out = []
    for key, value, ts, headers in rows:
        out.append(_lp(key) + _lp(value) + struct.pack(">qi", ts, len(headers)))
        for hk, hv in headers:
            out.append(_lp(hk.encode()) + _lp(hv))
    return b"".join(out)


WORDS = [b"alpha", b"beta", b"gamma", b"delta", b"kafka", b"segment", b"offset", b"\x00\x01", b"\xff" * 3]


def make_rows(rng, n, *, headers=True, null_keys=0.1, null_values=0.05, big_every=0, rising=False):
    rows = []
    for i in range(n):
        key = None if rng.random() < null_keys else bytes(rng.integers(0, 256, int(rng.integers(0, 24)), np.uint8))
        if rng.random() < null_values:
            value = None
        else:
            value = b" ".join(WORDS[j] for j in rng.integers(0, len(WORDS), int(rng.integers(0, 60))))
        if big_every and i % big_every == big_every - 1:
            value = bytes(rng.integers(0, 256, 70_000, np.uint8))  # incompressible, larger than an lz4 block
        # out of order within a batch, as producers may send; or rising, as they mostly do
        ts = T0 + 7 * i + int(rng.integers(0, 5)) if rising else T0 + int(rng.integers(-3_600_000, 3_600_000))
        hs = []
        if headers:
            for _ in range(int(rng.integers(0, 3))):
                hs.append((rng.choice(["trace", "ключ", "", "h"]), None if rng.random() < 0.2 else
                           bytes(rng.integers(0, 256, int(rng.integers(0, 9)), np.uint8))))
        rows.append((key, value, ts, hs))
    return rows


def as_records(rows, first=0):
    return [(first + i, k, v, ts, tuple(h)) for i, (k, v, ts, h) in enumerate(rows)]


def kvlog_records(buf):
    return [(r.offset, r.key, r.value, r.timestamp, tuple(r.headers))
            for r in kvlog.MemoryRecords(buf).records(check_crc=True)]


def python_encode(rows, codec, per_batch, max_bytes, first=0):
    keys = [r[0] for r in rows]
    values = [r[1] for r in rows]
    stamps = [r[2] for r in rows]
    headers = [r[3] for r in rows] if any(r[3] for r in rows) else None
    return kvlog.encode_arrays(keys, values, stamps, headers=headers, compression=codec, base_offset=first,
                               records_per_batch=per_batch, max_batch_bytes=max_bytes)


def java_encode(blocks, rows, codec, per_batch, max_bytes, first=0) -> bytes:
    return bytes(blocks.encode(pack_rows(rows), codec, per_batch, max_bytes, first))


def batch_fields(buf):
    return [(b.base_offset, b.last_offset, b.record_count, b.compression, b.timestamp_type, b.base_timestamp,
             b.max_timestamp, b.producer_id, b.producer_epoch, b.base_sequence, b.partition_leader_epoch,
             b.is_transactional, b.is_control, b.magic) for b in kvlog.MemoryRecords(buf).batches()]


def split_batches(buf) -> list[bytes]:
    out, p = [], 0
    while p < len(buf):
        n = struct.unpack_from(">i", buf, p + 8)[0] + 12
        out.append(buf[p:p + n])
        p += n
    return out


# ------------------------------------------------------------------------------------------------ encoder
@pytest.mark.parametrize("codec", CODECS)
def test_batches_decode_with_kvlog_and_peers(blocks, codec):
    rng = np.random.default_rng(CODEC_IDS[codec])
    rows = make_rows(rng, 3000, big_every=700)
    buf = java_encode(blocks, rows, codec, 400, 48 << 10, first=5)
    mr = kvlog.MemoryRecords(buf)
    mr.validate(deep=True)  # CRC-32C, framing, record fields
    assert kvlog_records(buf) == as_records(rows, 5)
    table = mr.to_arrow()
    assert table.num_rows == 3000
    assert table.column("offset").to_pylist() == list(range(5, 3005))
    assert table.column("value").to_pylist() == [r[1] for r in rows]
    batches = list(mr.batches())
    assert len(batches) > 8  # the byte limit closes batches, not only the 400-record one
    for b in batches:
        assert (b.magic, b.compression, b.timestamp_type, b.producer_id, b.producer_epoch, b.base_sequence,
                b.partition_leader_epoch, b.is_transactional, b.is_control) == \
            (2, CODEC_IDS[codec], 0, -1, -1, -1, -1, False, False)
        recs = list(b.records())
        assert b.base_timestamp == recs[0].timestamp
        assert b.max_timestamp == max(r.timestamp for r in recs)
        assert b.record_count == len(recs) == b.last_offset - b.base_offset + 1
    want = [{"offset": o, "timestamp": ts, "key": k, "value": v, "headers": list(h)}
            for o, k, v, ts, h in as_records(rows, 5)]
    decoded_by = 0
    for peer in ("aiokafka-c", "aiokafka-py", "kafka-python"):
        if not peer_can_decode(peer, 2, CODEC_IDS[codec]):
            continue
        got = peer_decode(peer, buf)
        assert all(b["crc_valid"] for b in got), peer
        assert [b["compression"] for b in got] == [CODEC_IDS[codec]] * len(batches), peer
        assert [r for b in got for r in b["records"]] == want, peer
        decoded_by += 1
    assert decoded_by >= 2  # aiokafka (C and pure Python) read every codec


# What byte identity with kvlog's Python encoder holds, codec by codec (measured, then pinned): the batch split
# and every header field but the CRC always agree, and so do the decompressed records. The compressed bytes agree
# for lz4 (liblz4's fast mode on both sides, when lz4-java runs its JNI build) and zstd (libzstd, level 3, one
# frame with its content size). gzip agrees but for the gzip header's OS byte: the JDK's GZIPOutputStream (what
# Kafka's producer uses) writes 255 (unknown), zlib writes 3 (Unix); the deflate stream and trailer are identical.
# snappy: xerial's C++ snappy and cramjam's Rust snap compress some blocks differently (both valid xerial
# framing), so its bytes are not compared.
BYTE_IDENTICAL = {"none": True, "lz4": True, "zstd": True}
GZIP_OS = 61 + 9  # the OS byte of the gzip header that starts a gzip batch's payload


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("per_batch,max_bytes", [(16384, 1 << 20), (1, 61), (7, 2000), (1000, 61 + 300)])
def test_same_batches_as_the_python_encoder(blocks, codec, per_batch, max_bytes):
    rng = np.random.default_rng(per_batch * 7 + max_bytes + CODEC_IDS[codec])
    rows = make_rows(rng, 600, big_every=250)
    java = java_encode(blocks, rows, codec, per_batch, max_bytes, first=1234)
    py = python_encode(rows, codec, per_batch, max_bytes, first=1234)
    assert batch_fields(java) == batch_fields(py)
    assert kvlog_records(java) == kvlog_records(py) == as_records(rows, 1234)
    if codec == "lz4" and blocks.lz4Implementation() != "LZ4JNICompressor":
        return  # lz4-java's pure-Java fallback (no native library for this platform) may match differently
    if BYTE_IDENTICAL.get(codec):
        assert java == py
    elif codec == "gzip":
        jb, pb = split_batches(java), split_batches(py)
        assert len(jb) == len(pb)
        for a, b in zip(jb, pb):
            assert (a[GZIP_OS], b[GZIP_OS]) == (0xFF, 3)
            assert a[:17] == b[:17] and a[21:GZIP_OS] == b[21:GZIP_OS] and a[GZIP_OS + 1:] == b[GZIP_OS + 1:]


def test_uncompressed_headers_and_nulls_byte_identical(blocks):
    """Edge rows: empty and null keys/values, empty header keys, null header values, no timestamp (-1), huge
    negative and positive timestamp deltas (varlong), a lone record over the byte limit."""
    rows = [
        (None, None, 0, []),
        (b"", b"", -1, [("", None)]),
        (b"k", b"v" * 200, 2**40, [("a", b""), ("b", None), ("ü" * 70, b"x" * 130)]),
        (None, b"v", -1, []),
        (b"k2", None, T0, [("h", b"1")] * 5),
        (b"z" * 5000, b"y" * 100_000, T0 + 1, []),
    ]
    for per_batch, max_bytes in ((16384, 1 << 20), (2, 1 << 20), (16384, 1000), (1, 61)):
        java = java_encode(blocks, rows, "none", per_batch, max_bytes)
        assert java == python_encode(rows, "none", per_batch, max_bytes)
        assert kvlog_records(java) == as_records(rows)
    # encode_batch (one batch, Records) writes the same bytes too
    assert java_encode(blocks, rows, "none", 2**31 - 1, 2**31 - 1) == kvlog.encode_batch(
        [kvlog.Record(k, v, ts, tuple(h)) for k, v, ts, h in rows])


def test_encoder_refuses_bad_settings(blocks):
    rows = pack_rows([(b"k", b"v", T0, [])])
    with pytest.raises(JVM_ERRORS, match="unknown compression brotli; use none, gzip, snappy, lz4 or zstd"):
        blocks.encode(rows, "brotli", 10, 1000, 0)
    with pytest.raises(JVM_ERRORS, match="maxBatchBytes 60 is smaller than a batch header"):
        blocks.encode(rows, "none", 10, 60, 0)
    with pytest.raises(JVM_ERRORS, match="recordsPerBatch must be at least 1"):
        blocks.encode(rows, "none", 0, 1000, 0)
    with pytest.raises(JVM_ERRORS, match="first offset must not be negative"):
        blocks.encode(rows, "none", 10, 1000, -1)
    bad_ts = pack_rows([(b"k", b"v", T0, []), (b"k", b"v", -2, [])])
    with pytest.raises(JVM_ERRORS, match="invalid timestamp -2 for the record at offset 8: must be -1"):
        blocks.encode(bad_ts, "none", 10, 1000, 7)


# ------------------------------------------------------------------------------------------------ partitioner
def pack_keys(keys) -> bytes:
    return b"".join(_lp(k) for k in keys)


def test_murmur2_and_partition_match_kafka_python(blocks):
    rng = np.random.default_rng(26)
    keys = [bytes(rng.integers(0, 256, int(rng.integers(0, 41)), np.uint8)) for _ in range(5000)]
    keys += [b"", b"a", b"ab", b"abc", b"abcd", b"\xff" * 7, "ключ".encode()]
    hashes = np.frombuffer(bytes(blocks.murmur2(pack_keys(keys))), ">i4")
    want = np.array([kp_murmur2(k) & 0xFFFFFFFF for k in keys], dtype=np.uint32).view(np.int32)
    np.testing.assert_array_equal(hashes, want)
    assert int(hashes[-3]) == kvlog_murmur2(b"abcd")
    for n in (1, 2, 3, 7, 64, 1000, 2**31 - 1):
        got = np.frombuffer(bytes(blocks.partitions(pack_keys(keys), pack_keys(keys), n)), ">i4")
        np.testing.assert_array_equal(got, [(kp_murmur2(k) & 0x7FFFFFFF) % n for k in keys])


@pytest.mark.parametrize("seed", [0, 12345, 65535])
def test_partition_matches_the_python_sink(blocks, seed):
    """Keyed rows by murmur2 of the key, null keys by murmur2 of the value (null: empty): _route's answer, row
    for row, and kafka-python's partitioner for the keyed ones."""
    rng = np.random.default_rng(seed)
    keys = [None if rng.random() < 0.3 else bytes(rng.integers(0, 256, int(rng.integers(0, 16)), np.uint8))
            for _ in range(3000)]
    values = [None if rng.random() < 0.1 else bytes(rng.integers(0, 256, int(rng.integers(0, 24)), np.uint8))
              for _ in range(3000)]
    plan = SinkPlan("/unused", "job", "t", {"t": 7}, 7, "none")
    batch = pa.record_batch({"key": pa.array(keys, pa.binary()), "value": pa.array(values, pa.binary())})
    _, parts, _ = _route(batch, plan)
    got = np.frombuffer(bytes(blocks.partitions(pack_keys(keys), pack_keys(values), 7)), ">i4")
    np.testing.assert_array_equal(got, parts)
    want = [(kp_murmur2(k if k is not None else (v or b"")) & 0x7FFFFFFF) % 7 for k, v in zip(keys, values)]
    np.testing.assert_array_equal(parts, want)


# ------------------------------------------------------------------------------------------------ segments
def write_segments(blocks, path, rows, codec, *, start=0, per_batch=200, max_bytes=16 << 10,
                   segment_bytes=64 << 10, interval=4096, index_bytes=10 << 20, abort_after=-1):
    answer = blocks.writeSegments(str(path), pack_rows(rows), codec, per_batch, max_bytes, start, segment_bytes,
                                  interval, index_bytes, abort_after)
    return [tuple(int(x) for x in line.split()) for line in answer.splitlines()]


def files_of(path):
    return sorted(os.listdir(path))


def assert_as_kvlog_writes(part, segs, ref, segment_bytes, interval, index_bytes):
    """Byte for byte what kvlog's Log writes for the same batches: the same segments, indexes included."""
    data = b"".join((part / f"{b:020d}.log").read_bytes() for b, *_ in segs)
    kvlog_log_of(ref, split_batches(data), segment_bytes, interval, index_bytes)
    ref_files = [f for f in files_of(ref) if f.endswith((".log", ".index", ".timeindex"))]
    assert ref_files == files_of(part)
    for f in ref_files:
        assert (part / f).read_bytes() == (ref / f).read_bytes(), f


def index_entries(part, base):
    """The (relative offset, position) entries of a segment's .index."""
    data = (part / f"{base:020d}.index").read_bytes()
    return [struct.unpack_from(">ii", data, i) for i in range(0, len(data), 8)]


def kvlog_log_of(path, batches, segment_bytes, interval, index_bytes):
    """The same batches appended one at a time (replica appends keep their offsets) by kvlog's own Log."""
    cfg = kvlog.LogConfig(segment_bytes=segment_bytes, index_interval_bytes=interval,
                          segment_index_bytes=index_bytes)
    with kvlog.Log.open(str(path), cfg) as log:
        for b in batches:
            log.append(b, assign_offsets=False)


SEGMENT_CASES = {
    # name: (codec, rows, rising timestamps, settings)
    "size-rolls": ("none", 4000, False, dict(segment_bytes=64 << 10, interval=4096)),
    # batches of ~1.5 KB against 4 KiB between entries: most segments end with batches not yet indexed
    "size-rolls-rising": ("none", 4000, True, dict(segment_bytes=64 << 10, interval=4096, per_batch=10)),
    "lz4-dense-index": ("lz4", 4000, False, dict(segment_bytes=32 << 10, interval=0, per_batch=50)),
    # 15 offset-index entries, 10 time-index entries (one kept for the final entry): rising timestamps fill the
    # time index first (nine entries: each batch past the first gets one that already holds its max timestamp,
    # so the final entry adds nothing), out-of-order ones the offset index
    "index-full-rolls": ("zstd", 3000, True, dict(segment_bytes=1 << 30, interval=100, per_batch=20,
                                                  index_bytes=120)),
    "offset-index-full-rolls": ("none", 3000, False, dict(segment_bytes=1 << 30, interval=100, per_batch=20,
                                                          index_bytes=120)),
    "one-segment": ("gzip", 500, True, dict(segment_bytes=1 << 30, interval=4096)),
}


@pytest.mark.parametrize("case", sorted(SEGMENT_CASES))
def test_segment_writer_directory_matches_kvlog_log(blocks, tmp_path, case):
    codec, n, rising, settings = SEGMENT_CASES[case]
    rng = np.random.default_rng(len(case))
    rows = make_rows(rng, n, rising=rising)
    part = tmp_path / "jvm" / "events-0"
    segs = write_segments(blocks, part, rows, codec, **settings)
    # the segments: contiguous, sizes add up, each within segment.bytes, max timestamps right
    assert segs[0][0] == 0 and segs[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(segs, segs[1:]))
    seg_bytes = settings["segment_bytes"]
    for base, nxt, size, max_ts in segs:
        name = f"{base:020d}"
        assert os.path.getsize(part / f"{name}.log") == size <= seg_bytes
        assert max_ts == max(r[2] for r in rows[base:nxt])
    if case == "one-segment":
        assert len(segs) == 1
    else:
        assert len(segs) >= 4
    assert files_of(part) == sorted(f"{b:020d}{ext}" for b, *_ in segs for ext in (".log", ".index", ".timeindex"))
    # readable by kvlog, clean by kvlog verify
    with kvlog.Log.open(str(part), read_only=True) as log:
        assert log.log_start_offset == 0 and log.log_end_offset == n
        got = [(r.offset, r.key, r.value, r.timestamp, tuple(r.headers)) for r in log.records()]
        assert log.to_arrow().num_rows == n
    assert got == as_records(rows)
    report = verify_partition(str(part), "events", 0)
    assert report.errors == [] and report.warnings == []
    assert report.segments == len(segs) and report.next_offset == n
    assert_as_kvlog_writes(part, segs, tmp_path / "py" / "events-0", seg_bytes, settings["interval"],
                           settings.get("index_bytes", 10 << 20))
    if case == "lz4-dense-index":  # index.interval.bytes=0: an entry for every batch but each segment's first
        for b, *_ in segs:
            entries = os.path.getsize(part / f"{b:020d}.index") // 8
            assert entries == len(split_batches((part / f"{b:020d}.log").read_bytes())) - 1
        assert sum(os.path.getsize(part / f"{b:020d}.index") for b, *_ in segs) // 8 >= 2 * len(segs)
    if case == "index-full-rolls":
        assert [os.path.getsize(part / f"{b:020d}.timeindex") for b, *_ in segs[:-1]] == [108] * (len(segs) - 1)
    if case == "offset-index-full-rolls":
        assert [os.path.getsize(part / f"{b:020d}.index") for b, *_ in segs[:-1]] == [120] * (len(segs) - 1)
    if rising:  # the last entry of every time index is its segment's max timestamp at its last batch's offset
        if case == "size-rolls-rising":  # ... thanks to the final entry written at close: in most segments the
            # offset index's last entry is not the last batch's
            ends = [(index_entries(part, b) or [(-1, 0)])[-1][0] for b, *_ in segs]
            assert sum(e < nxt - 1 - b for e, (b, nxt, *_) in zip(ends, segs)) >= len(segs) // 2
        for base, nxt, _, max_ts in segs:
            last = (part / f"{base:020d}.timeindex").read_bytes()[-12:]
            assert struct.unpack(">qi", last) == (max_ts, nxt - 1 - base)


def test_segments_filled_exactly_to_segment_bytes(blocks, tmp_path):
    """Batches of one size S and segment.bytes = 3 S: three batches a segment (a batch that fits exactly stays).
    Every batch has the same max timestamp: the time index keeps the first batch that reached it."""
    rows = [(b"k%05d" % i, bytes([i % 251]) * 100, T0 + i % 10, []) for i in range(300)]
    size = len(python_encode(rows[:10], "none", 10, 1 << 20))
    part = tmp_path / "x-0"
    segs = write_segments(blocks, part, rows, "none", per_batch=10, segment_bytes=3 * size, interval=size - 1)
    assert [(b, nxt, n) for b, nxt, n, _ in segs] == [(b, b + 30, 3 * size) for b in range(0, 300, 30)]
    assert [(part / f"{b:020d}.timeindex").read_bytes() for b, *_ in segs] == [struct.pack(">qi", T0 + 9, 9)] * 10
    assert_as_kvlog_writes(part, segs, tmp_path / "py" / "x-0", 3 * size, size - 1, 10 << 20)


def test_segment_writer_from_a_later_offset_reads_in_the_jvm_scan(blocks, spark, tmp_path):
    rng = np.random.default_rng(7)
    rows = make_rows(rng, 2500)
    start = 10_000_000_000  # past 2^32: file names and relative offsets stay right
    part = tmp_path / "root" / "late-3"
    segs = write_segments(blocks, part, rows, "snappy", start=start, segment_bytes=48 << 10, interval=2048)
    assert len(segs) >= 3 and segs[0][0] == start and segs[-1][1] == start + 2500
    assert files_of(part)[0] == f"{start:020d}.index"
    with kvlog.Log.open(str(part), read_only=True) as log:
        got = [(r.offset, r.key, r.value, r.timestamp, tuple(r.headers)) for r in log.records()]
    assert got == as_records(rows, start)
    assert verify_partition(str(part), "late", 3).errors == []
    df = (spark.read.format("kvlog").option("subscribe", "late").option("includeHeaders", "true").load(str(tmp_path / "root"))
          .selectExpr("partition", "offset", "key", "value", "unix_millis(timestamp) AS ts", "timestampType",
                      "headers"))
    scanned = sorted(tuple(r) for r in df.collect())
    assert [(r[0], r[5]) for r in scanned] == [(3, 0)] * 2500
    assert [(r[1], r[2], r[3], r[4], tuple((h["key"], h["value"]) for h in r[6] or ())) for r in scanned] == \
        as_records(rows, start)


def test_abort_leaves_no_files(blocks, tmp_path):
    rng = np.random.default_rng(3)
    rows = make_rows(rng, 2000)
    part = tmp_path / "t-0"
    # 16 KiB batches into 40 KiB segments: two segments closed (with indexes) and a third open at the abort
    assert write_segments(blocks, part, rows, "none", segment_bytes=40 << 10, abort_after=6) == []
    assert files_of(part) == []


def test_writer_never_overwrites_and_its_failure_keeps_the_others_files(blocks, tmp_path):
    rng = np.random.default_rng(4)
    rows = make_rows(rng, 300)
    part = tmp_path / "t-0"
    segs = write_segments(blocks, part, rows, "none")
    before = {f: (part / f).read_bytes() for f in files_of(part)}
    with pytest.raises(JVM_ERRORS, match="already exists"):
        write_segments(blocks, part, rows, "none")
    assert {f: (part / f).read_bytes() for f in files_of(part)} == before
    assert len(segs) == 1


def test_writer_refuses_batches_that_do_not_continue(blocks, tmp_path):
    rows = make_rows(np.random.default_rng(5), 20, headers=False)
    first = python_encode(rows[:10], "none", 100, 1 << 20, first=0)
    gap = python_encode(rows[10:], "none", 100, 1 << 20, first=11)
    with pytest.raises(JVM_ERRORS, match=r"batch with offsets 11\.\.20 does not continue the segments of .* at "
                                            r"offset 10"):
        blocks.appendBatches(str(tmp_path / "a-0"), first + gap, 0, 1 << 20, 4096, 1 << 20)
    assert files_of(tmp_path / "a-0") == []  # the failed writer removed what it had written
    with pytest.raises(JVM_ERRORS, match="batch of .* bytes at offset 0 exceeds segment.bytes=100"):
        blocks.appendBatches(str(tmp_path / "b-0"), first, 0, 100, 4096, 1 << 20)
    with pytest.raises(JVM_ERRORS, match="segment.index.bytes=11 cannot hold one index entry"):
        blocks.appendBatches(str(tmp_path / "c-0"), first, 0, 1 << 20, 4096, 11)
    assert blocks.appendBatches(str(tmp_path / "d-0"), first, 0, 1 << 20, 4096, 1 << 20).split() == \
        ["0", "10", str(len(first)), str(max(r[2] for r in rows[:10]))]


def test_writer_needs_no_rename_append_or_truncate(blocks, tmp_path):
    """Through a file system that only creates files (rename, append and truncate throw, as on object stores):
    the same files as on the local disk, an abort included."""
    rows = make_rows(np.random.default_rng(9), 2500, rising=True)
    settings = dict(segment_bytes=40 << 10, interval=1024)
    local = tmp_path / "local" / "t-0"
    create_only = tmp_path / "create-only" / "t-0"
    segs = write_segments(blocks, local, rows, "lz4", **settings)
    assert write_segments(blocks, f"createonly://{create_only}", rows, "lz4", **settings) == segs
    assert len(segs) >= 3 and files_of(create_only) == files_of(local)
    for f in files_of(local):
        assert (create_only / f).read_bytes() == (local / f).read_bytes(), f
    aborted = tmp_path / "create-only" / "u-0"
    assert write_segments(blocks, f"createonly://{aborted}", rows, "lz4", abort_after=5, **settings) == []
    assert files_of(aborted) == []


def test_local_files_are_created_exclusively_synced_and_with_the_umask(blocks, tmp_path):
    """The sink opens local files itself (Hadoop's create would fork a chmod per file without its native
    library): the create is still exclusive, the stream still fsyncs, and the mode is the process umask's."""
    path = tmp_path / "00000000000000000000.log"
    assert blocks.localCreate(str(path), b"abc")
    assert path.read_bytes() == b"abc"
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    with pytest.raises(Exception, match="already exists"):
        blocks.localCreate(str(path), b"other")
    assert path.read_bytes() == b"abc"
    meta = tmp_path / "new-partition" / "deeper" / "partition.metadata"  # directories made, as Hadoop's would be
    blocks.localOverwrite(str(meta), b"version: 0\n")
    for made in (meta.parent, meta.parent.parent):  # with the process's umask: no chmod child process per directory
        assert made.stat().st_mode & 0o777 == 0o777 & ~umask
    blocks.localOverwrite(str(meta), b"v1")
    assert meta.read_bytes() == b"v1"
