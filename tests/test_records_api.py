import mmap

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import Compression, ControlRecordType, MemoryRecords, Record, TimestampType
from kvlog._core import records as K
from tests.reference import records as ref
from tests.support import kvlog_decode

T0 = 1_700_000_000_000


def test_record_is_immutable_with_defaults():
    r = Record(b"k", b"v")
    assert r.offset == -1 and r.timestamp is None and r.headers == ()
    with pytest.raises(AttributeError):
        r.key = b"x"


def test_batch_header_fields_roundtrip():
    buf = kvlog.encode_batch(
        [Record(b"a", b"1", T0 + 5), Record(b"b", b"2", T0)], base_offset=42, producer_id=9, producer_epoch=3,
        base_sequence=100, partition_leader_epoch=7, is_transactional=True)
    (b,) = MemoryRecords(buf).batches()
    assert (b.base_offset, b.last_offset, b.next_offset, b.record_count) == (42, 43, 44, 2)
    assert (b.producer_id, b.producer_epoch, b.base_sequence, b.last_sequence) == (9, 3, 100, 101)
    assert b.partition_leader_epoch == 7 and b.is_transactional and not b.is_control
    assert b.base_timestamp == T0 + 5 and b.max_timestamp == T0 + 5
    assert b.timestamp_type == TimestampType.CREATE_TIME and b.compression == Compression.NONE
    assert b.is_valid() and b.size_in_bytes == len(buf) and b.magic == 2
    assert bytes(b.buffer()) == buf
    assert "RecordBatch(magic=2" in repr(b)


def test_last_sequence_wraps_like_kafka():
    buf = kvlog.encode_batch([Record(b"a", b"1", T0)] * 3, producer_id=1, producer_epoch=0, base_sequence=2**31 - 2)
    (b,) = MemoryRecords(buf).batches()
    assert b.last_sequence == 0


def test_sequences_continue_across_batches():
    buf = kvlog.encode_arrays([b"k"] * 10, [b"v"] * 10, T0, records_per_batch=4, producer_id=5, producer_epoch=1,
                              base_sequence=2**31 - 3)
    seqs = [(b.base_sequence, b.record_count) for b in MemoryRecords(buf).batches()]
    assert seqs == [(2**31 - 3, 4), (1, 4), (5, 2)]


def control_batch(kind, epoch=7, base_offset=10):
    key = (0).to_bytes(2, "big") + int(kind).to_bytes(2, "big")
    value = (0).to_bytes(2, "big") + epoch.to_bytes(4, "big")
    return kvlog.encode_batch([Record(key, value, T0)], base_offset=base_offset, is_control=True,
                              is_transactional=True, producer_id=4, producer_epoch=0)


def test_control_batches_decoded_and_skipped_by_default():
    data = kvlog.encode_batch([Record(b"k", b"v", T0)] * 2, producer_id=4, producer_epoch=0,
                              is_transactional=True) + control_batch(ControlRecordType.COMMIT, base_offset=2)
    mr = MemoryRecords(data)
    assert [r.offset for r in mr.records()] == [0, 1]
    assert mr.to_arrow().num_rows == 2
    ctrl = [r for r in mr.records(include_control=True)][-1]
    assert ctrl.control_type == ControlRecordType.COMMIT and ctrl.coordinator_epoch == 7
    assert mr.to_arrow(include_control=True).num_rows == 3
    batches = list(mr.batches())
    assert batches[1].is_control and batches[1].is_transactional
    assert len(control_batch(ControlRecordType.ABORT)) == 78  # the fact sheet's marker batch size
    assert Record(b"\xff\xff\x00\x01").control_type == ControlRecordType.UNKNOWN
    assert Record(b"\x00\x00\x00\x63").control_type == ControlRecordType.UNKNOWN


def test_delete_horizon_batch_from_reference():
    recs = [{"key": b"k", "value": None, "timestamp": T0 + 10}, {"key": b"j", "value": b"x", "timestamp": T0 + 20}]
    buf = ref.encode_v2_batch(recs, delete_horizon_ms=T0 + 86_400_000)
    (b,) = MemoryRecords(buf).batches()
    assert b.has_delete_horizon and b.delete_horizon_ms == T0 + 86_400_000
    assert [r.timestamp for r in b.records()] == [T0 + 10, T0 + 20]


def test_empty_batch():
    buf = kvlog.encode_batch([], base_offset=10, producer_id=5, producer_epoch=0)
    (b,) = MemoryRecords(buf).batches()
    assert b.record_count == 0 and b.base_timestamp == -1 and list(b.records()) == []
    assert MemoryRecords(buf).to_arrow().num_rows == 0
    # the fact sheet's empty-batch vector (cleaner output), produced by the reference encoder
    vec = ("000000000000000a00000031000000000212f31ad0000000000002ffffffffffffffff0000018bcfe568000000000000"
           "00000500000000000000000000")
    (e,) = MemoryRecords(bytes.fromhex(vec)).batches()
    assert (e.base_offset, e.last_offset, e.max_timestamp, e.producer_id, e.record_count) == (10, 12, T0, 5, 0)
    assert e.is_valid()
    assert kvlog.encode_batch([]) == K.encode_v2_empty(
        base_offset=0, last_offset_delta=0, base_timestamp=-1, max_timestamp=-1, producer_id=-1, producer_epoch=-1,
        base_sequence=-1, partition_leader_epoch=-1, attributes=0)


def test_log_append_time_v2_and_v1():
    for magic, codec in [(2, 0), (2, 4), (1, 0), (1, 1)]:
        buf = kvlog.encode_batch([Record(b"a", b"1", T0), Record(b"b", b"2", T0 + 7)], magic=magic, compression=codec,
                                 timestamp_type="LogAppendTime", log_append_time=T0 + 999)
        recs = list(MemoryRecords(buf).records())
        assert [r.timestamp for r in recs] == [T0 + 999] * 2, (magic, codec)
        assert all(r.timestamp_type == TimestampType.LOG_APPEND_TIME for r in recs)
        assert MemoryRecords(buf).to_arrow().column("timestampType").to_pylist() == [1, 1]


def test_v0_has_no_timestamps():
    buf = kvlog.encode_batch([Record(b"a", b"1", T0)], magic=0)
    (r,) = MemoryRecords(buf).records()
    assert r.timestamp == -1 and r.timestamp_type == TimestampType.NO_TIMESTAMP_TYPE
    (b,) = MemoryRecords(buf).batches()
    assert b.timestamp_type == TimestampType.NO_TIMESTAMP_TYPE


def test_legacy_compressed_wrapper_learns_base_offset_lazily():
    buf = kvlog.encode_batch([Record(b"a", b"1", T0)] * 5, magic=1, compression="gzip", base_offset=100)
    (b,) = MemoryRecords(buf).batches()
    assert b.last_offset == 104 and b.base_offset == 100 and b.record_count == 5


def test_v1_relative_offsets_with_gaps_and_wrapper_zero():
    # a compacted v1 wrapper: inner relative offsets 0, 3, 4; wrapper offset 54 → absolute 50, 53, 54
    recs = [{"key": b"a", "value": b"1", "timestamp": T0, "offset_delta": d} for d in (0, 3, 4)]
    buf = bytearray(ref.encode_legacy(1, recs, base_offset=50, compression=1))
    assert [r.offset for r in MemoryRecords(bytes(buf)).records()] == [50, 53, 54]
    buf[0:8] = (0).to_bytes(8, "big")  # old librdkafka produce data: wrapper offset 0 → inner offsets as-is
    assert [r.offset for r in MemoryRecords(bytes(buf)).records()] == [0, 3, 4]
    buf[0:8] = (2).to_bytes(8, "big")  # wrapper below the last inner offset: invalid
    with pytest.raises(kvlog.CorruptRecordError, match="smaller than the last inner"):
        list(MemoryRecords(bytes(buf)).records())


def test_to_arrow_schema_and_headers_semantics():
    buf = kvlog.encode_arrays([b"a", None, b"c"], [b"1", b"2", None], [T0, T0 + 1, T0 + 2],
                              headers=[[("h1", b"x"), ("h2", None)], [], None])
    t = MemoryRecords(buf).to_arrow()
    assert t.schema == kvlog.record_schema()
    assert t.schema.names == ["key", "value", "offset", "timestamp", "timestampType", "headers"]
    assert t.column("timestamp").type == pa.timestamp("us", tz="UTC")
    assert t.column("timestamp").cast(pa.int64()).to_pylist() == [T0 * 1000, (T0 + 1) * 1000, (T0 + 2) * 1000]
    assert t.column("headers").to_pylist() == [[{"key": "h1", "value": b"x"}, {"key": "h2", "value": None}], None, None]
    assert t.column("key").to_pylist() == [b"a", None, b"c"]
    assert t.column("value").null_count == 1
    t2 = MemoryRecords(buf).to_arrow(include_headers=False)
    assert t2.schema.names == ["key", "value", "offset", "timestamp", "timestampType"]


def test_invalid_utf8_header_key_is_replaced_like_java():
    recs = [{"key": b"k", "value": b"v", "timestamp": T0, "headers": []}]
    good = ref.encode_v2_batch([{**recs[0], "headers": [("ok", b"1")]}])
    # rewrite the header key bytes "ok" to an invalid UTF-8 sequence of the same length, fix the CRC
    buf = bytearray(good)
    at = bytes(buf).index(b"ok")
    buf[at:at + 2] = b"\xff\xfe"
    buf[17:21] = kvlog.crc32c(bytes(buf[21:])).to_bytes(4, "big")
    t = MemoryRecords(bytes(buf)).to_arrow()
    assert t.column("headers").to_pylist() == [[{"key": "\ufffd\ufffd", "value": b"1"}]]


def test_to_arrow_rejects_unrepresentable_timestamp():
    buf = ref.encode_v2_batch([{"key": b"k", "value": b"v", "timestamp": 2**62}])
    with pytest.raises(kvlog.InvalidTimestampError):
        MemoryRecords(buf).to_arrow()
    assert next(MemoryRecords(buf).records()).timestamp == 2**62


@pytest.mark.parametrize("kind", ["list", "tuple", "arrow", "large", "string", "chunked", "numpy", "str"])
def test_encode_arrays_accepts_column_types(kind):
    keys = [b"k0", None, b"k2", b""]
    vals = [b"v0", b"v1", None, b"v3"]
    conv = {
        "list": lambda x: x, "tuple": tuple,
        "arrow": lambda x: pa.array(x, pa.binary()), "large": lambda x: pa.array(x, pa.large_binary()),
        "string": lambda x: pa.array([None if v is None else v.decode() for v in x], pa.string()),
        "chunked": lambda x: pa.chunked_array([pa.array(x[:2], pa.binary()), pa.array(x[2:], pa.binary())]),
        "numpy": lambda x: np.array(x, dtype=object),
        "str": lambda x: [None if v is None else v.decode() for v in x],
    }[kind]
    buf = kvlog.encode_arrays(conv(keys), conv(vals), np.arange(4) + T0, base_offset=3)
    t = MemoryRecords(buf).to_arrow()
    assert t.column("key").to_pylist() == keys and t.column("value").to_pylist() == vals
    assert t.column("offset").to_pylist() == [3, 4, 5, 6]


def test_encode_arrays_sliced_arrow_input():
    arr = pa.array([b"a", b"bb", None, b"dddd", b"e"], pa.binary()).slice(1, 3)
    buf = kvlog.encode_arrays(None, arr, T0)
    assert MemoryRecords(buf).to_arrow().column("value").to_pylist() == [b"bb", None, b"dddd"]


def test_encode_arrays_timestamps_forms():
    n = 3
    expected = [T0, T0 + 1, T0 + 2]
    forms = [expected, np.array(expected), np.array(expected, dtype="datetime64[ms]"),
             pa.array(expected, pa.timestamp("ms")), pa.array([t * 1000 for t in expected], pa.timestamp("us"))]
    for ts in forms:
        buf = kvlog.encode_arrays(None, [b"v"] * n, ts)
        assert [r.timestamp for r in MemoryRecords(buf).records()] == expected
    buf = kvlog.encode_arrays(None, [b"v"] * n, T0)
    assert [r.timestamp for r in MemoryRecords(buf).records()] == [T0] * 3
    with pytest.raises(kvlog.InvalidTimestampError):
        kvlog.encode_arrays(None, [b"v"], [-5])
    with pytest.raises(ValueError):
        kvlog.encode_arrays(None, [b"v"] * 2, [T0])


def test_encode_arrays_arrow_headers_and_offsets():
    hdr = pa.array([[{"key": "a", "value": b"1"}], None, [{"key": "b", "value": None}, {"key": "c", "value": b""}]],
                   pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])))
    buf = kvlog.encode_arrays(None, [b"x", b"y", b"z"], T0, headers=hdr, offsets=[10, 15, 16])
    recs = list(MemoryRecords(buf).records())
    assert [r.offset for r in recs] == [10, 15, 16]
    assert [r.headers for r in recs] == [(("a", b"1"),), (), (("b", None), ("c", b""))]
    (b,) = MemoryRecords(buf).batches()
    assert (b.base_offset, b.last_offset, b.record_count) == (10, 16, 3)


def test_batching_by_count_and_bytes():
    buf = kvlog.encode_arrays(None, [b"x" * 100] * 50, T0, records_per_batch=20)
    assert [b.record_count for b in MemoryRecords(buf).batches()] == [20, 20, 10]
    buf = kvlog.encode_arrays(None, [b"x" * 100] * 50, T0, max_batch_bytes=1000)
    counts = [b.record_count for b in MemoryRecords(buf).batches()]
    assert sum(counts) == 50 and max(counts) <= 9
    assert all(b.size_in_bytes <= 1000 for b in MemoryRecords(buf).batches())
    # a record bigger than the limit still gets a batch of its own
    buf = kvlog.encode_arrays(None, [b"x" * 5000, b"y"], T0, max_batch_bytes=1000)
    assert [b.record_count for b in MemoryRecords(buf).batches()] == [1, 1]
    assert [r.offset for r in MemoryRecords(buf).records()] == [0, 1]


def test_legacy_batches_by_count_when_compressed():
    buf = kvlog.encode_arrays(None, [b"x"] * 10, T0, magic=1, compression="lz4", records_per_batch=4)
    assert [b.record_count for b in MemoryRecords(buf).batches()] == [4, 4, 2]
    assert [r.offset for r in MemoryRecords(buf).records()] == list(range(10))


def test_argument_errors_are_typed():
    with pytest.raises(kvlog.ConfigError):
        kvlog.encode_batch([Record(b"k", b"v", T0)], compression="brotli")
    with pytest.raises(kvlog.ConfigError):
        kvlog.encode_batch([Record(b"k", b"v", T0)], magic=3)
    with pytest.raises(kvlog.ConfigError):
        kvlog.encode_batch([Record(b"k", b"v", T0, (("h", b"v"),))], magic=1)
    with pytest.raises(kvlog.UnsupportedCodecError):
        kvlog.encode_batch([Record(b"k", b"v", T0)], magic=1, compression="zstd")
    with pytest.raises(TypeError):
        kvlog.encode_arrays(None, [1, 2], T0)
    with pytest.raises(TypeError):
        kvlog.encode_arrays(None, b"not a column", T0)
    with pytest.raises(ValueError):
        kvlog.encode_arrays([b"k"], [b"v", b"w"], T0)
    with pytest.raises(ValueError, match="may not be null"):
        kvlog.encode_arrays(None, [b"v"], T0, headers=[[(None, b"x")]])
    with pytest.raises(TypeError):
        MemoryRecords(12345)
    assert Compression.parse("uncompressed") == Compression.NONE and Compression.parse("ZSTD") == Compression.ZSTD
    assert TimestampType.parse("LogAppendTime") == TimestampType.LOG_APPEND_TIME


def test_memory_records_over_any_buffer(tmp_path):
    buf = kvlog.encode_arrays(None, [b"v%d" % i for i in range(100)], T0, records_per_batch=7)
    path = tmp_path / "seg.log"
    path.write_bytes(buf)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        for b in (buf, bytearray(buf), memoryview(buf), np.frombuffer(buf, np.uint8), m):
            mr = MemoryRecords(b)
            assert mr.to_arrow().num_rows == 100
            assert [r.value for r in mr.records()][-1] == b"v99"
        del mr  # releases the view so the mmap can close


def test_valid_bytes_and_trailing_partial_batch():
    one = kvlog.encode_batch([Record(b"k", b"v", T0)])
    two = kvlog.encode_batch([Record(b"k", b"w", T0)], base_offset=1)
    data = one + two[:-3]
    mr = MemoryRecords(data)
    assert mr.valid_bytes == len(one)
    assert [r.offset for r in mr.records()] == [0]
    assert len(list(mr.batches())) == 1
    mr.validate()  # a partial tail is not an error
    bad = bytearray(one + two)
    bad[len(one) + 30] ^= 0xFF  # inside the second batch's CRC-covered bytes
    mr = MemoryRecords(bytes(bad))
    assert mr.valid_bytes == len(one)
    assert [b.is_valid() for b in mr.batches()] == [True, False]
    with pytest.raises(kvlog.CorruptRecordError, match="CRC") as exc:
        mr.validate(deep=False)
    assert exc.value.position == len(one) and exc.value.offsets[0] == 1
    assert f"position {len(one)}" in str(exc.value)


def test_batch_headers_array():
    buf = kvlog.encode_arrays(None, [b"v"] * 3000, T0, records_per_batch=1)
    h = MemoryRecords(buf).batch_headers()
    assert len(h) == 3000 and h["last_offset"][-1] == 2999 and h["crc_valid"].all()
    assert (h["position"][1:] == np.cumsum(h["size"])[:-1]).all()


def test_records_iteration_spans_chunks():
    vals = [bytes([i % 251]) * 1000 for i in range(12000)]  # ~12 MB: several 4 MiB decode steps
    buf = kvlog.encode_arrays(None, vals, T0, records_per_batch=100)
    got = [r.value for r in MemoryRecords(buf).records()]
    assert got == vals


def test_convert_down_and_up():
    recs = [Record(b"a", b"1", T0, (("h", b"x"),)), Record(None, b"2", T0 + 1)]
    v2 = kvlog.encode_batch(recs, base_offset=5, compression="gzip") + control_batch(ControlRecordType.COMMIT, base_offset=7)
    v1 = kvlog.convert(v2, 1)
    b1 = list(MemoryRecords(v1).batches())
    assert [b.magic for b in b1] == [1] and b1[0].compression == Compression.GZIP
    assert [(r.offset, r.timestamp, r.headers) for r in MemoryRecords(v1).records()] == [(5, T0, ()), (6, T0 + 1, ())]
    v0 = kvlog.convert(v1, 0, compression="none")
    assert [(r.offset, r.timestamp) for r in MemoryRecords(v0).records()] == [(5, -1), (6, -1)]
    up = kvlog.convert(v0, 2)
    assert [b.magic for b in MemoryRecords(up).batches()] == [2]
    assert [(r.offset, r.timestamp, r.key, r.value) for r in MemoryRecords(up).records()] == [
        (5, -1, b"a", b"1"), (6, -1, None, b"2")]
    assert kvlog.convert(v2, 2) == v2
    zs = kvlog.encode_batch(recs, compression="zstd")
    with pytest.raises(kvlog.UnsupportedCodecError):
        kvlog.convert(zs, 1)
    assert MemoryRecords(kvlog.convert(zs, 1, compression="lz4")).to_arrow().num_rows == 2


def test_convert_keeps_offsets_with_gaps():
    buf = kvlog.encode_arrays(None, [b"a", b"b", b"c"], T0, offsets=[3, 9, 20])
    assert [r.offset for r in MemoryRecords(kvlog.convert(buf, 1)).records()] == [3, 9, 20]
    assert [r.offset for r in MemoryRecords(kvlog.convert(buf, 0)).records()] == [3, 9, 20]
    assert [r.offset for r in MemoryRecords(kvlog.convert(kvlog.convert(buf, 1, compression="snappy"), 2)).records()] == [3, 9, 20]


def test_decoded_matches_reference_for_kafka_shaped_control_and_txn_data():
    data = (kvlog.encode_batch([Record(b"k", b"v", T0)] * 3, producer_id=4, producer_epoch=0, is_transactional=True)
            + control_batch(ControlRecordType.ABORT, base_offset=3))
    got = kvlog_decode(data)
    want = ref.decode(data)
    for g, w in zip(got, want):
        assert [r["offset"] for r in g["records"]] == [r["offset"] for r in w["records"]]
        assert g["is_control"] == w["is_control"] and g["is_transactional"] == w["is_transactional"]


@given(st.lists(st.one_of(st.just(-1), st.integers(0, 2**63 - 1)), min_size=1, max_size=50))
def test_encode_arrays_list_timestamps_match_numpy(stamps):
    """A list of ints (converted in the kernel) encodes exactly like the same int64 array."""
    keys = [b"k%d" % i for i in range(len(stamps))]
    want = kvlog.encode_arrays(keys, keys, np.asarray(stamps, dtype=np.int64), records_per_batch=7)
    assert kvlog.encode_arrays(keys, keys, list(stamps), records_per_batch=7) == want


@pytest.mark.parametrize("stamps,error", [([5, None], kvlog.InvalidTimestampError),
                                          ([5, -2], kvlog.InvalidTimestampError)])
def test_encode_arrays_list_timestamps_keep_their_errors(stamps, error):
    with pytest.raises(error):
        kvlog.encode_arrays([b"a", b"b"], [b"a", b"b"], stamps)


_items = st.one_of(st.none(), st.binary(max_size=12), st.text(max_size=6),
                   st.binary(max_size=12).map(bytearray), st.binary(max_size=12).map(memoryview))


@given(st.lists(_items, max_size=60), st.booleans())
def test_python_sequences_of_mixed_items_encode_each_row(items, as_tuple):
    """Lists and tuples take a fast path for exact bytes and None and hand the rest to the general
    conversion from the first other item on: every row keeps its own bytes."""
    seq = tuple(items) if as_tuple else list(items)
    want = [None if v is None else v.encode() if isinstance(v, str) else bytes(v) for v in items]
    buf = kvlog.encode_arrays(seq, seq, list(range(len(seq))), records_per_batch=7)
    got = [(r.key, r.value, r.timestamp) for r in MemoryRecords(buf).records()]
    assert got == [(w, w, i) for i, w in enumerate(want)]


@given(st.lists(st.one_of(st.integers(-1, 2**63 - 1), st.integers(2**63, 2**70), st.just(True),
                          st.floats(0, 10)), min_size=1, max_size=40))
def test_list_timestamps_convert_or_fail_as_a_whole(stamps):
    """The C conversion of a timestamp list gives up on the first item that is not an exact int64
    and the general conversion decides (an error, or numpy's reading of bools and floats)."""
    try:
        want = np.asarray(stamps, dtype=np.int64) if all(type(t) is int and t < 2**63 for t in stamps) else None
    except OverflowError:
        want = None
    out = np.zeros(len(stamps), dtype=np.int64)
    assert K.int64_list(stamps, out) == (want is not None)
    if want is not None:
        assert out.tolist() == want.tolist()


def test_every_field_length_is_copied_whole():
    """Keys, values and headers of every length from 0 to 300 bytes (and a few past the inlined copy's
    range) come out of the encoders as aiokafka reads them and back out of kvlog's decoder unchanged."""
    from tests.oracles import peer_decode, records_of

    lengths = list(range(0, 301)) + [511, 4096, 70_000]
    vals = [bytes((i * 7 + j) & 0xFF for j in range(n)) for i, n in enumerate(lengths)]
    keys = [v[: len(v) // 3] or None for v in vals]
    hdrs = [(("h", v[: len(v) // 5]),) for v in vals]
    stamps = [T0 + i for i in range(len(vals))]
    from_lists = kvlog.encode_arrays(keys, vals, stamps, headers=hdrs, records_per_batch=37)
    from_records = kvlog.encode_batch([Record(k, v, t, h) for k, v, t, h in zip(keys, vals, stamps, hdrs)])
    want = [(k, v, [(hk, hv) for hk, hv in h]) for k, v, h in zip(keys, vals, hdrs)]
    for buf in (from_lists, from_records):
        assert [(r[2], r[3], r[4]) for r in records_of(peer_decode("aiokafka-c", buf))] == want
        t = MemoryRecords(buf).to_arrow()
        assert t.column("key").to_pylist() == keys and t.column("value").to_pylist() == vals
