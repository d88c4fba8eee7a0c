"""The Spark source's planning (options, discovery, offset resolution, splitting) and the partitioner,
checked against brute-force models without a JVM."""

import os
import random
import warnings

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlog import LogConfig, LogManager, Record
from kvlog._core.partitioner import murmur2, partition_many
from kvlog.errors import ConfigError, KvlogError, OffsetOutOfRangeError
from kvlog.spark import _plan
from kvlog.spark._plan import OffsetRange, ReadOptions, plan_batch, split_ranges
from kvlog.spark.source import rate_limit


with warnings.catch_warnings():  # kafka-python's package import uses a deprecated importlib API
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.partitioner.default import murmur2 as kafka_python_murmur2


def _signed(x: int) -> int:
    return x - 2**32 if x >= 2**31 else x


# ------------------------------------------------------------------------------------- partitioner
def test_murmur2_matches_kafkas_test_vector():
    # Kafka's UtilsTest: murmur2("21".getBytes()) == -973932308
    assert murmur2(b"21") == -973932308


@given(st.lists(st.binary(max_size=40), min_size=1, max_size=50), st.integers(1, 64))
def test_partition_many_matches_kafka_python(keys, partitions):
    arr = pa.array(keys, type=pa.binary())
    bufs = arr.buffers()
    got = partition_many(np.frombuffer(bufs[1], np.int32), bufs[2] or b"", len(keys), partitions)
    for k, p in zip(keys, got):
        assert murmur2(k) == _signed(kafka_python_murmur2(k))
        assert p == (kafka_python_murmur2(k) & 0x7FFFFFFF) % partitions


def test_partition_many_rejects_offsets_outside_the_data():
    with pytest.raises(ValueError, match="do not fit"):
        partition_many(np.array([0, 10], np.int32), b"abc", 1, 3)
    with pytest.raises(ValueError, match="positive"):
        partition_many(np.array([0, 1], np.int32), b"a", 1, 0)


# ------------------------------------------------------------------------------------------ options
@pytest.mark.parametrize("options, message", [
    ({"subscribe": "a", "assign": '{"a":[0]}'}, "exclude each other"),
    ({"subscribe": " , "}, "names no topic"),
    ({"subscribePattern": "("}, "not a valid regex"),
    ({"assign": "[0]"}, "must be JSON"),
    ({"subscribe": "a", "startingOffsets": "latest"}, "streaming queries only"),
    ({"subscribe": "a", "startingOffsets": '{"a":{"0":-1}}', "endingOffsets": '{"a":{"0":5}}'}, "streaming queries only"),
    ({"subscribe": "a", "endingOffsets": "earliest"}, "not allowed"),
    ({"subscribe": "a", "startingOffsets": '{"a":{"0":5}}', "endingOffsets": '{"a":{"0":3}}'}, "after endingOffsets"),
    ({"subscribe": "a", "startingOffsets": '{"a":{"0":1}}', "endingOffsets": '{"a":{"1":3}}'}, "same partitions"),
    ({"subscribe": "a", "startingOffsets": "{bad"}, "must be JSON"),
    ({"subscribe": "a", "failOnDataLoss": "maybe"}, "true or false"),
    ({"subscribe": "a", "minPartitions": "0"}, "positive integer"),
    ({"subscribe": "a", "maxRecordsPerPartition": "x"}, "positive integer"),
    ({"subscribe": "a", "startingTimestamp": "soon"}, "epoch milliseconds"),
    ({"subscribe": "a", "kafka.isolation.level": "read_dirty"}, "read_committed"),
    ({"subscribe": "a", "startingOffsetsByTimestampStrategy": "closest"}, "error or latest"),
])
def test_bad_options_raise_config_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        ReadOptions.parse(options)


def test_streaming_rejects_batch_only_options():
    with pytest.raises(ConfigError, match="batch queries only"):
        ReadOptions.parse({"subscribe": "t", "endingOffsets": "latest"}, streaming=True)
    assert ReadOptions.parse({"subscribe": "t"}, streaming=True).starting == "latest"
    assert ReadOptions.parse({"subscribe": "t"}).starting == "earliest"


def test_options_are_case_insensitive():
    opts = ReadOptions.parse({"SUBSCRIBE": "t", "STARTINGOFFSETS": '{"t":{"0":3}}', "EndingOffsets": '{"t":{"0":9}}',
                              "includeheaders": "TRUE"})
    assert opts.starting == {("t", 0): 3} and opts.ending == {("t", 0): 9} and opts.include_headers


# ---------------------------------------------------------------------------------------- discovery
def _root(tmp_path, topics=(("clicks", 3), ("views", 2)), n=20, config=None):
    root = tmp_path / "data"
    with LogManager(root, config or LogConfig(segment_bytes=600)) as m:
        for topic, parts in topics:
            for p, log in enumerate(m.create_topic(topic, parts)):
                for lo in range(0, n, 10):
                    log.append([Record(b"k%d" % (i % 7), b"%s-%d-%d" % (topic.encode(), p, i), timestamp=1000 + i)
                                for i in range(lo, min(n, lo + 10))])
                log.flush()
    return root


def test_discover_root_partition_dir_and_skips(tmp_path):
    root = _root(tmp_path)
    (root / "clicks-0.abc123-delete").mkdir()
    (root / "notes").mkdir()
    found = _plan.discover([str(root)])
    assert sorted(found) == [("clicks", 0), ("clicks", 1), ("clicks", 2), ("views", 0), ("views", 1)]
    one = _plan.discover([str(root / "views-1")])
    assert list(one) == [("views", 1)]
    with pytest.raises(ConfigError, match="no directory"):
        _plan.discover([str(tmp_path / "missing")])


def test_discover_refuses_symlinks_out_of_the_root(tmp_path):
    root = _root(tmp_path, topics=(("a", 1),))
    outside = tmp_path / "elsewhere" / "b-0"
    outside.mkdir(parents=True)
    (outside / "00000000000000000000.log").write_bytes(b"")  # a partition's files, kept elsewhere
    os.symlink(outside, root / "b-0")
    with pytest.raises(KvlogError, match="outside"):
        _plan.discover([str(root)])


def test_subscribe_pattern_and_assign_select(tmp_path):
    root = str(_root(tmp_path))
    _, ranges = plan_batch({"path": root, "subscribePattern": "vie.*"})
    assert {(r.topic, r.partition) for r in ranges} == {("views", 0), ("views", 1)}
    _, ranges = plan_batch({"path": root, "assign": '{"clicks":[2],"views":[0]}'})
    assert {(r.topic, r.partition) for r in ranges} == {("clicks", 2), ("views", 0)}
    with pytest.raises(ConfigError, match="has no log directory"):
        plan_batch({"path": root, "assign": '{"clicks":[7]}'})


# ------------------------------------------------------------------------------------- resolution
def test_offsets_json_must_cover_the_assigned_partitions(tmp_path):
    root = str(_root(tmp_path))
    with pytest.raises(ConfigError, match="exactly the assigned partitions"):
        plan_batch({"path": root, "subscribe": "views", "startingOffsets": '{"views":{"0":1}}'})
    _, ranges = plan_batch({"path": root, "subscribe": "views", "startingOffsets": '{"views":{"0":3,"1":-2}}',
                            "endingOffsets": '{"views":{"0":-1,"1":7}}'})
    assert [(r.partition, r.start, r.end) for r in ranges] == [(0, 3, 20), (1, 0, 7)]


def test_fail_on_data_loss(tmp_path):
    root = _root(tmp_path, topics=(("t", 1),))
    with LogManager(root) as m:
        m.log("t", 0).delete_records(5)
        m.log("t", 0).flush()
    opts = {"path": str(root), "subscribe": "t", "startingOffsets": '{"t":{"0":2}}', "endingOffsets": '{"t":{"0":30}}'}
    with pytest.raises(OffsetOutOfRangeError, match="failOnDataLoss"):
        plan_batch(opts)
    with pytest.warns(UserWarning, match="reading what is left"):
        _, ranges = plan_batch({**opts, "failOnDataLoss": "false"})
    assert [(r.start, r.end) for r in ranges] == [(5, 20)]


def test_timestamp_options_match_a_brute_force_model(tmp_path):
    rng = random.Random(5)
    root = tmp_path / "data"
    stamps = {}
    with LogManager(root, LogConfig(segment_bytes=700, index_interval_bytes=64)) as m:
        for p, log in enumerate(m.create_topic("t", 2)):
            ts = [1000 + i * 10 + rng.randint(-25, 25) for i in range(120)]  # not monotonic
            for i in range(0, 120, 6):
                log.append([Record(b"k", b"v%d" % j, timestamp=ts[j]) for j in range(i, i + 6)])
            log.flush()
            stamps[p] = ts

    def model_first_at_or_after(p, t):
        hits = [o for o, s in enumerate(stamps[p]) if s >= t]
        return hits[0] if hits else None

    for target in [0, 999, 1000, 1333, 1500, 2100, 2190, 2300, 99999]:
        for p in (0, 1):
            want = model_first_at_or_after(p, target)
            opts = {"path": str(root), "assign": f'{{"t":[{p}]}}', "startingTimestamp": str(target)}
            if want is None:
                with pytest.raises(OffsetOutOfRangeError, match="no record"):
                    plan_batch(opts)
                _, ranges = plan_batch({**opts, "startingOffsetsByTimestampStrategy": "latest"})
                assert ranges == []
            else:
                _, ranges = plan_batch(opts)
                assert ranges[0].start == want and ranges[0].end == 120
            _, ranges = plan_batch({"path": str(root), "assign": f'{{"t":[{p}]}}',
                                    "endingOffsetsByTimestamp": f'{{"t":{{"{p}":{target}}}}}'})
            end = 120 if want is None else want
            assert (ranges[0].start, ranges[0].end) == (0, end) if end else ranges == []
    # *Timestamp wins over *OffsetsByTimestamp, which wins over *Offsets
    _, ranges = plan_batch({"path": str(root), "subscribe": "t", "startingTimestamp": "1500",
                            "startingOffsetsByTimestamp": '{"t":{"0":0,"1":0}}',
                            "startingOffsets": '{"t":{"0":0,"1":0}}'})
    assert [r.start for r in ranges] == [model_first_at_or_after(0, 1500), model_first_at_or_after(1, 1500)]


# ---------------------------------------------------------------------------------------- splitting
def _r(p, s, e):
    return OffsetRange("t", p, "/x", s, e)


def test_split_ranges_follows_kafkas_calculator():
    assert split_ranges([_r(0, 0, 100), _r(1, 0, 0)], None, None) == [_r(0, 0, 100)]
    assert split_ranges([_r(0, 0, 100)], None, 30) == [_r(0, 0, 25), _r(0, 25, 50), _r(0, 50, 75), _r(0, 75, 100)]
    got = split_ranges([_r(0, 0, 300), _r(1, 0, 100)], 4, None)
    assert got == [_r(0, 0, 100), _r(0, 100, 200), _r(0, 200, 300), _r(1, 0, 100)]
    # enough ranges already: no split
    assert split_ranges([_r(0, 0, 300), _r(1, 0, 100)], 2, None) == [_r(0, 0, 300), _r(1, 0, 100)]


@given(st.lists(st.integers(0, 500), min_size=1, max_size=6), st.integers(1, 12), st.integers(1, 200))
def test_split_ranges_covers_every_offset_once(sizes, min_parts, max_records):
    ranges = [_r(p, 10, 10 + s) for p, s in enumerate(sizes)]
    out = split_ranges(ranges, min_parts, max_records)
    for p, s in enumerate(sizes):
        covered = sorted(o for r in out if r.partition == p for o in range(r.start, r.end))
        assert covered == list(range(10, 10 + s))


def test_rate_limit_prorates_by_backlog():
    begin = {("t", 0): 0, ("t", 1): 0}
    until = {("t", 0): 900, ("t", 1): 100, ("t", 2): 50}
    got = rate_limit(100, begin, {("t", 2): 0}, until)
    assert got == {("t", 0): 85, ("t", 1): 9, ("t", 2): 4}
    assert rate_limit(10_000, begin, {("t", 2): 0}, until) == until
    # a tiny share rounds up so no partition starves
    assert rate_limit(1, {("t", 0): 0, ("t", 1): 0}, {}, {("t", 0): 1000, ("t", 1): 1})[("t", 1)] == 1


# ------------------------------------------------------------------------------------------ reading
def test_read_range_equals_the_log(tmp_path):
    root = _root(tmp_path, topics=(("t", 1),), n=200)
    path = str(root / "t-0")
    batches = list(_plan.read_range(OffsetRange("t", 0, path, 17, 151), include_headers=True, chunk_bytes=256))
    assert all(b.schema == _plan.spark_arrow_schema(True) for b in batches)
    table = pa.Table.from_batches(batches)
    assert table.column("offset").to_pylist() == list(range(17, 151))
    assert table.column("value").to_pylist() == [b"t-0-%d" % i for i in range(17, 151)]
    assert set(table.column("topic").to_pylist()) == {"t"} and set(table.column("partition").to_pylist()) == {0}
    assert table.column("headers").null_count == len(table)


@pytest.mark.parametrize("window", [64, 700, 1 << 20])
def test_read_range_with_batches_larger_than_the_window(tmp_path, window):
    root = _root(tmp_path, topics=(("t", 1),), n=100)
    path = str(root / "t-0")
    table = pa.Table.from_batches(list(_plan.read_range(OffsetRange("t", 0, path, 3, 97), include_headers=False,
                                                        chunk_bytes=window)))
    assert table.column("offset").to_pylist() == list(range(3, 97))


def test_read_range_reports_a_damaged_segment(tmp_path):
    root = _root(tmp_path, topics=(("t", 1),), n=100, config=LogConfig(segment_bytes=1000))
    path = root / "t-0"
    segs = sorted(path.glob("*.log"))
    assert len(segs) > 2
    data = bytearray(segs[0].read_bytes())  # a closed segment: read-only opens trust it, reads check CRCs
    data[data.index(b"t-0-25") + 4] ^= 0x10  # inside a record, under the batch CRC
    segs[0].write_bytes(bytes(data))
    from kvlog.errors import CorruptRecordError

    with pytest.raises(CorruptRecordError):
        list(_plan.read_range(OffsetRange("t", 0, str(path), 0, 100), include_headers=False, chunk_bytes=256))


# ------------------------------------------------------------------------------------- UDF decoding
@given(st.lists(st.one_of(st.none(), st.binary(max_size=300)), max_size=6), st.booleans())
def test_decode_column_on_arbitrary_bytes_raises_only_typed_errors(rows, headers):
    from kvlog.errors import KvlogError
    from kvlog.spark.udf import decode_column

    try:
        out = decode_column(pa.array(rows, pa.binary()), include_headers=headers)
    except KvlogError:
        return
    assert out.num_rows >= 0


@given(st.lists(st.integers(0, 40), min_size=1, max_size=5), st.sampled_from(["none", "gzip", "zstd", "lz4"]))
def test_decode_column_equals_memory_records(sizes, codec):
    import kvlog
    from kvlog.spark.udf import decode_column

    blobs = [kvlog.encode_arrays([b"k%d" % i for i in range(n)], [b"v%d" % i for i in range(n)], 1000 + n,
                                 compression=codec, records_per_batch=7) if n else None for n in sizes]
    first = 1 if len(blobs) > 1 else 0  # a sliced array shares its parent's buffers
    col = pa.array(blobs, pa.binary()).slice(first)
    out = decode_column(col, keep=[pa.array(range(first, len(blobs))).slice(0)], keep_names=["row"])
    want = []
    for i, b in list(enumerate(blobs))[first:]:
        if b is not None:
            t = kvlog.MemoryRecords(b).to_arrow(include_headers=False)
            want += [(v, o, i) for v, o in zip(t.column("value").to_pylist(), t.column("offset").to_pylist())]
    got = list(zip(out.column("value").to_pylist(), out.column("offset").to_pylist(), out.column("row").to_pylist()))
    assert got == want


_OPTION_NAMES = ["subscribe", "subscribePattern", "assign", "startingOffsets", "endingOffsets", "startingTimestamp",
                 "endingTimestamp", "startingOffsetsByTimestamp", "endingOffsetsByTimestamp", "failOnDataLoss",
                 "minPartitions", "maxRecordsPerPartition", "includeHeaders", "kafka.isolation.level",
                 "startingOffsetsByTimestampStrategy", "kvlog.chunkBytes", "minOffsetsPerTrigger",
                 "maxOffsetsPerTrigger", "maxTriggerDelay"]


@given(st.dictionaries(st.sampled_from(_OPTION_NAMES),
                       st.one_of(st.text(max_size=30), st.sampled_from(['{"t":{"0":1}}', '{"t":[0]}', "-1", "7",
                                                                        '{"t":{"x":1}}', "{}", "[]", "null"])),
                       max_size=4), st.booleans())
def test_any_option_values_give_config_errors_not_crashes(options, streaming):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # streaming-only options in a batch query warn
        try:
            ReadOptions.parse(options, streaming=streaming)
        except ConfigError:
            pass


# --------------------------------------------------------------------------------- trigger admission
def test_min_offsets_per_trigger_waits_for_records_or_the_delay(tmp_path):
    from kvlog.spark.source import KvlogStreamReader

    root = _root(tmp_path, topics=(("s", 2),), n=10)
    reader = KvlogStreamReader({"path": str(root), "subscribe": "s", "startingOffsets": "earliest", "minOffsetsPerTrigger": "30",
                                "maxTriggerDelay": "5s"}, False)
    now = [1000.0]
    reader._clock = lambda: now[0]
    reader._last_trigger = now[0]
    start = reader.initialOffset()
    assert start == {"s": {"0": 0, "1": 0}}
    assert reader.latestOffset(start, None) == start  # 20 new records < 30: skip this trigger
    now[0] += 6  # maxTriggerDelay passed: run with what there is
    assert reader.latestOffset(start, None) == {"s": {"0": 10, "1": 10}}
    end = {"s": {"0": 10, "1": 10}}
    with LogManager(root) as m:
        for p in (0, 1):
            m.log("s", p).append([Record(b"k", b"v%d" % i, timestamp=1) for i in range(20)])
    now[0] += 1
    assert reader.latestOffset(end, None) == {"s": {"0": 30, "1": 30}}  # 40 >= 30: no wait
    reader.prepareForTriggerAvailableNow()  # availableNow never waits: it has to finish
    assert reader.latestOffset({"s": {"0": 29, "1": 30}}, None) == {"s": {"0": 30, "1": 30}}


@pytest.mark.parametrize("options, message", [
    ({"subscribe": "a", "minOffsetsPerTrigger": "50", "maxOffsetsPerTrigger": "10"}, "larger than maxOffsetsPerTrigger"),
    ({"subscribe": "a", "maxTriggerDelay": "soon"}, "duration"),
    ({"subscribe": "a", "maxTriggerDelay": "5 fortnights"}, "duration"),
])
def test_trigger_options_are_checked(options, message):
    with pytest.raises(ConfigError, match=message):
        ReadOptions.parse(options, streaming=True)


def test_durations_parse_like_spark():
    assert ReadOptions.parse({"subscribe": "t", "maxTriggerDelay": "15m"}, streaming=True).max_trigger_delay_ms == 900_000
    assert ReadOptions.parse({"subscribe": "t", "maxTriggerDelay": "30 s"}, streaming=True).max_trigger_delay_ms == 30_000
    assert ReadOptions.parse({"subscribe": "t", "maxTriggerDelay": "250"}, streaming=True).max_trigger_delay_ms == 250
    assert ReadOptions.parse({"subscribe": "t"}, streaming=True).max_trigger_delay_ms == 900_000
