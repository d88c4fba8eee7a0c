"""The JVM sink's segment settings (``segment.bytes``, ``index.interval.bytes``, ``segment.index.bytes``) from a
KRaft broker's metadata log, resolved as ``kvlog.topic_configs`` resolves them.

Oracles: ``kvlog.topic_configs`` (``read_kraft_configs``, ``TopicConfigs.load(root).resolve(topic)``) on
broker-shaped directories written with kvlog's logs and internal-topic encoders and on the real KRaft segment
of tests/data/fixtures, reached over py4j through ``io.kvlog.spark.metadata.KraftConfigsForTests``; and the Python
sink (``kvlog_python``) writing the same rows, for where segments roll.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import uuid

import pytest

import kvlog
from kvlog import Log, LogConfig, Record, committed_offsets
from kvlog.errors import ConfigError, CorruptInternalRecordError, KvlogError
from kvlog.internal_topics.codec import encode
from kvlog.internal_topics.schemas_metadata import METADATA_RECORDS
from kvlog.topic_configs import TopicConfigs, read_kraft_configs
from tests.test_topic_configs import (
    CO,
    ORDERS,
    T0,
    _raw_metadata,
    broker_dir,
    config,
    digest,
    meta,
    topic,
    write_metadata,
    write_old_log,
)

pytest.importorskip("pyspark")

from py4j.protocol import Py4JJavaError  # noqa: E402
from pyspark.errors import IllegalArgumentException as SparkIllegalArgument  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

# a Java exception raised through py4j: pyspark converts IllegalArgumentException, the rest stay Py4JJavaError
JVM_ERRORS = (Py4JJavaError, SparkIllegalArgument)

NAMES = ("segment.bytes", "index.interval.bytes", "segment.index.bytes")
REBORN = uuid.UUID(int=0x9A)
AGAIN = uuid.UUID(int=0x9B)
PLAIN = uuid.UUID(int=0x77)
BROKER = 4


@pytest.fixture(scope="module")
def hooks(jvm):
    return jvm._jvm.io.kvlog.spark.metadata.KraftConfigsForTests


# ------------------------------------------------------------------------------------------------ helpers
def python_view(root, topic_name):
    """{config: (value, source kind)} of the three settings, as kvlog.topic_configs resolves them."""
    resolved = TopicConfigs.load(root).resolve(topic_name)
    return {n: (resolved.values[n].value, resolved.values[n].source.value) for n in NAMES}


def jvm_view(hooks, root, topic_name):
    """The same from the JVM sink's resolution ("name=value (kind: detail)" lines)."""
    out = {}
    for line in hooks.segmentConfigs(str(root), topic_name).splitlines():
        name, _, rest = line.partition("=")
        value, _, source = rest.partition(" (")
        out[name] = (value, source.rstrip(")").split(":")[0])
    return out


def python_replay(root):
    """read_kraft_configs's state in the JVM hook's line format."""
    kraft = read_kraft_configs(root)
    if kraft is None:
        return []
    lines = [f"node\t{'-' if kraft.node_id is None else kraft.node_id}"]
    lines += [f"topic\t{t}" for t in sorted(kraft.topics)]
    lines += [f"config\t{t}\t{k}\t{v}" for t in sorted(kraft.topic_configs)
              for k, v in sorted(kraft.topic_configs[t].items())]
    lines += [f"cluster\t{k}\t{v}" for k, v in sorted(kraft.cluster_default.items())]
    lines += [f"node\t{k}\t{v}" for k, v in sorted(kraft.node.items())]
    return lines


def assert_same_resolution(hooks, root, topics):
    assert hooks.replay(str(root)).splitlines() == python_replay(root)
    for t in topics:
        assert jvm_view(hooks, root, t) == python_view(root, t), t


def segment_metadata_dir(root):
    """broker_dir's metadata plus what decides the three settings: topic configs set and deleted, a topic
    removed and created again under its old name, a transaction applied and one aborted, broker configs for
    the cluster, for this node (1) and for another node (2), and kvlog-topics.json beneath them."""
    broker_dir(root)
    write_metadata(root, [
        [topic("plain", PLAIN), config("orders", "segment.index.bytes", "65536"),
         config("orders", "segment.bytes", "5000000"), config("orders", "segment.bytes", None)],
        [config("", "log.segment.bytes", "300000000", rtype=BROKER),
         config("1", "log.segment.bytes", "200000000", rtype=BROKER),
         config("2", "log.segment.bytes", "100000000", rtype=BROKER),
         config("", "log.index.interval.bytes", "8192", rtype=BROKER),
         config("2", "log.index.size.max.bytes", "4096", rtype=BROKER),
         config("1", "log.index.size.max.bytes", "2048", rtype=BROKER),
         config("1", "log.index.size.max.bytes", None, rtype=BROKER)],
        # broker_dir removed "gone": created again, given a segment.bytes, removed with it, created a third time
        [topic("gone", REBORN), config("gone", "segment.bytes", "7777777")],
        [meta(9, {"topicId": REBORN}), topic("gone", AGAIN), config("gone", "index.interval.bytes", "100")],
        [meta(23, {"name": "applied"}), config("plain", "segment.bytes", "1048576"), meta(24, {})],
        [meta(23, {}), config("plain", "segment.index.bytes", "999999"), meta(25, {"reason": "aborted"})],
        [config("kvonly", "index.interval.bytes", "2048")],  # after the abort: outside any transaction
        # a transaction the log never ends is not applied either
        [meta(23, {}), config("plain", "index.interval.bytes", "1")],
    ])
    (root / "kvlog-topics.json").write_text(json.dumps({
        "orders": {"partitions": 1, "config": {"segment.bytes": "2097152", "index.interval.bytes": 512}},
        "plain": {"partitions": 1, "config": {"segment.bytes": "3145728"}},
        "kvonly": {"partitions": 1, "config": {"segment.index.bytes": 40960}},
    }))
    return root


TOPICS = ("orders", "plain", "gone", "kvonly", "unlisted", CO, "__transaction_state", "__share_group_state",
          "__cluster_metadata")


# =========================================================================================== resolution
def test_the_jvm_resolves_what_topic_configs_resolves(hooks, tmp_path):
    root = segment_metadata_dir(tmp_path / "data")
    assert_same_resolution(hooks, root, TOPICS)
    # each source decided something, so the comparison above covers every layer
    assert jvm_view(hooks, root, "orders") == {
        "segment.bytes": ("2097152", "kvlog"),  # the metadata's was deleted; kvlog-topics.json's is next
        "index.interval.bytes": ("512", "kvlog"),
        "segment.index.bytes": ("65536", "kraft-metadata")}
    assert jvm_view(hooks, root, "plain") == {
        "segment.bytes": ("1048576", "kraft-metadata"),  # the committed transaction
        "index.interval.bytes": ("8192", "kraft-metadata"),  # cluster default (the unfinished one is dropped)
        "segment.index.bytes": ("10485760", "kafka-default")}  # the aborted one, and node 1's deletion
    # the removed topic's segment.bytes went with it; the new one has its own config
    assert jvm_view(hooks, root, "gone") == {
        "segment.bytes": ("200000000", "kraft-metadata"), "index.interval.bytes": ("100", "kraft-metadata"),
        "segment.index.bytes": ("10485760", "kafka-default")}
    assert jvm_view(hooks, root, "kvonly") == {  # configs of a topic the metadata does not list still apply
        "segment.bytes": ("200000000", "kraft-metadata"), "index.interval.bytes": ("2048", "kraft-metadata"),
        "segment.index.bytes": ("40960", "kvlog")}
    assert jvm_view(hooks, root, "__transaction_state")["segment.bytes"] == ("104857600", "internal-topic-default")
    assert jvm_view(hooks, root, CO)["segment.bytes"] == ("200000000", "kraft-metadata")  # listed: no built-in


def test_without_metadata_kvlog_topics_and_defaults_decide(hooks, tmp_path):
    root = tmp_path / "data"
    write_old_log(root / "orders-0")
    assert hooks.replay(str(root)) == ""
    assert_same_resolution(hooks, root, ("orders", CO))
    (root / "kvlog-topics.json").write_text(json.dumps({"orders": {"partitions": 1, "config": {
        "segment.bytes": 1048576, "segment.index.bytes": "4096"}}}))
    assert_same_resolution(hooks, root, ("orders", "other", CO))
    assert jvm_view(hooks, root, "orders")["segment.bytes"] == ("1048576", "kvlog")
    # an empty metadata directory lists nothing: Kafka's built-ins for internal topics still apply
    (root / "__cluster_metadata-0").mkdir()
    assert_same_resolution(hooks, root, ("orders", CO))


def test_snapshot_then_the_log_after_it(hooks, tmp_path):
    """The snapshot's end offset is 3: it holds the state of offsets 0-2, so the log's records there are not
    applied again, and offsets 3 on follow it. The snapshot has a header and a footer control batch, as Kafka
    writes them, and a gzip batch."""
    d = tmp_path / "__cluster_metadata-0"
    write_metadata(tmp_path, [[topic("early", ORDERS)], [config("early", "segment.bytes", "1000000")],
                              [config("t", "segment.bytes", "999")]])
    control = struct.pack(">hh", 0, 3), struct.pack(">hq", 0, T0) + b"\x00"
    snap = (kvlog.encode_batch([Record(*control, T0)], is_control=True)
            + kvlog.encode_batch([topic("t", ORDERS), config("t", "segment.bytes", "2000000")], base_offset=1)
            + kvlog.encode_batch([config("t", "segment.index.bytes", "8192"),
                                  config("", "log.index.interval.bytes", "1024", rtype=BROKER)],
                                 base_offset=3, compression="gzip")
            + kvlog.encode_batch([Record(struct.pack(">hh", 0, 4), struct.pack(">h", 0) + b"\x00", T0)],
                                 base_offset=5, is_control=True))
    (d / f"{3:020d}-{1:010d}.checkpoint").write_bytes(snap)
    (d / f"{1:020d}-{1:010d}.checkpoint").write_bytes(b"older snapshots are not read")
    write_metadata(tmp_path, [[config("t", "segment.index.bytes", None)], [config("t", "index.interval.bytes", "64")]])
    assert_same_resolution(hooks, tmp_path, ("t", "early"))
    assert jvm_view(hooks, tmp_path, "t") == {
        "segment.bytes": ("2000000", "kraft-metadata"), "index.interval.bytes": ("64", "kraft-metadata"),
        "segment.index.bytes": ("10485760", "kafka-default")}
    # the log's offset-2 record (segment.bytes=999) lies within the snapshot: not applied again
    assert "config\tt\tsegment.bytes\t2000000" in hooks.replay(str(tmp_path)).splitlines()


def test_the_real_kraft_segment(hooks, tmp_path, kraft_segment):
    root = tmp_path / "data"
    (root / "__cluster_metadata-0").mkdir(parents=True)
    shutil.copyfile(kraft_segment, root / "__cluster_metadata-0" / kraft_segment.name)
    write_old_log(root / "saz-0")
    assert hooks.replay(str(root)).splitlines() == python_replay(root) == ["node\t-", "topic\tsaz"]
    assert_same_resolution(hooks, root, ("saz", "other"))
    assert jvm_view(hooks, root, "saz")["segment.bytes"] == ("1073741824", "kafka-default")


def java_error(call, *args):
    """The Java exception's text (with its causes) of a call over py4j that must fail."""
    with pytest.raises(JVM_ERRORS) as info:
        call(*args)
    return str(info.value)


def test_damaged_metadata_is_an_error_in_both_engines(hooks, tmp_path):
    good = encode(METADATA_RECORDS[4], 0, {"resourceType": 2, "resourceName": "t", "name": "segment.bytes",
                                            "value": "1048576"})
    cases = {
        "malformed": ([_raw_metadata(4, 0, good[:-3])], "ConfigRecord"),
        "trailing bytes": ([_raw_metadata(4, 0, good + b"\x00")], "1 bytes left after the ConfigRecord"),
        "unknown ConfigRecord version": ([_raw_metadata(4, 1, good)], "unknown version 1 of ConfigRecord"),
        "unknown frame version": ([Record(None, b"\x02\x04\x00" + good, T0)], "unknown metadata frame version 2"),
        "no value": ([Record(None, None, T0)], "has no value"),
    }
    for name, (records, why) in cases.items():
        root = tmp_path / name.replace(" ", "_")
        write_metadata(root, [[topic("t", ORDERS)], records])
        with pytest.raises(CorruptInternalRecordError):
            TopicConfigs.load(root)
        msg = java_error(hooks.segmentConfigs, str(root), "t")
        assert "__cluster_metadata-0/00000000000000000000.log at position " in msg and why in msg, (name, msg)
    # a record type neither engine knows does not decide configs: skipped by both
    root = tmp_path / "newer"
    write_metadata(root, [[topic("t", ORDERS), _raw_metadata(99, 0, b"\x00"), config("t", "segment.bytes", "3000")]])
    assert_same_resolution(hooks, root, ("t",))
    # a flipped byte under a batch's CRC, with a valid batch after it
    root = tmp_path / "crc"
    write_metadata(root, [[topic("t", ORDERS)], [config("t", "segment.bytes", "3000")], [topic("u", PLAIN)]])
    seg = root / "__cluster_metadata-0" / f"{0:020d}.log"
    data = bytearray(seg.read_bytes())
    data[70] ^= 0x01
    seg.write_bytes(bytes(data))
    with pytest.raises(KvlogError):
        TopicConfigs.load(root)
    msg = java_error(hooks.segmentConfigs, str(root), "t")
    assert f"{seg.name} at position 0: CRC-32C mismatch" in msg, msg
    # a metadata log whose first segments are gone, with no snapshot covering them
    root = tmp_path / "cleaned"
    with Log.open(root / "__cluster_metadata-0", LogConfig(segment_bytes=300)) as log:
        for i in range(20):
            log.append([config("t", "segment.bytes", str(100000 + i))])
        first = log.segments[0].base_offset
    for ext in (".log", ".index", ".timeindex"):
        (root / "__cluster_metadata-0" / f"{first:020d}{ext}").unlink(missing_ok=True)
    with pytest.raises(CorruptInternalRecordError, match="no snapshot covers"):
        TopicConfigs.load(root)
    assert "no snapshot covers the records before it" in java_error(hooks.replay, str(root))
    # a value Kafka would not accept names the topic, the config and its source
    for value, why in (("soon", "must be an integer, got 'soon'"), ("13", "must be at least 14, got 13"),
                       ("2147483648", "must be at most 2147483647, got 2147483648")):
        root = tmp_path / f"bad-{value}"
        write_metadata(root, [[topic("t", ORDERS), config("t", "segment.bytes", value)]])
        with pytest.raises(ConfigError, match=r"segment.bytes.*kraft-metadata"):
            TopicConfigs.load(root).resolve("t")
        msg = java_error(hooks.segmentConfigs, str(root), "t")
        assert f"topic t: segment.bytes {why} (from kraft-metadata: " in msg, msg


# ============================================================================================ the sink
R = 50  # rows per batch: one batch per staged file in the Python sink, kvlog.recordsPerBatch in the JVM one
SLICES = 6
SCHEMA = T.StructType([T.StructField("topic", T.StringType()), T.StructField("partition", T.IntegerType()),
                       T.StructField("key", T.BinaryType()), T.StructField("value", T.BinaryType()),
                       T.StructField("timestamp", T.DoubleType())])


def same_size_rows(spark):
    """SLICES input slices, each with R rows for every (topic, partition) of t and u: rows of one size and one
    timestamp, so every batch of R rows has the same size whichever rows it holds (the JVM sink's shuffle
    order across slices is Spark's)."""
    rows = [(t, p, b"k%07d" % i, b"v" * 100, 1_700_000_000.0)
            for s in range(SLICES) for t in ("t", "u") for p in (0, 1) for i in range(s * R, (s + 1) * R)]
    return spark.createDataFrame(spark.sparkContext.parallelize(rows, SLICES), SCHEMA)


def batch_bytes():
    return len(kvlog.encode_batch([Record(b"k%07d" % i, b"v" * 100, T0) for i in range(R)]))


def sink_broker_dir(root):
    """A broker's directory whose metadata gives t a segment.bytes of 2.5 batches (topic config), u one of 3.5
    (this node's log.segment.bytes, over the cluster default's 1.5 and node 2's), and both an
    index.interval.bytes of 1.35 batches (the cluster default's log.index.interval.bytes)."""
    b = batch_bytes()
    write_metadata(root, [
        [topic("t", ORDERS), topic("u", PLAIN), config("t", "segment.bytes", str(int(b * 2.5)))],
        [config("", "log.segment.bytes", str(int(b * 1.5)), rtype=BROKER),
         config("1", "log.segment.bytes", str(int(b * 3.5)), rtype=BROKER),
         config("2", "log.segment.bytes", str(int(b * 1.2)), rtype=BROKER),
         config("", "log.index.interval.bytes", str(int(b * 1.35)), rtype=BROKER)],
    ])
    (root / "meta.properties").write_text("version=1\ncluster.id=abc\nnode.id=1\n")
    return root


def segments(root, tp):
    """Per segment of a partition: base offset and its offset index's entries (to the first empty one)."""
    d = root / tp
    out = []
    for name in sorted(n for n in os.listdir(d) if n.endswith(".log")):
        index = (d / (name[:20] + ".index")).read_bytes()
        entries = [struct.unpack_from(">ii", index, p) for p in range(0, len(index) - 7, 8)]
        out.append((int(name[:20]), entries[:entries.index((0, 0))] if (0, 0) in entries else entries))
    return out


def test_the_jvm_sink_rolls_where_the_python_sink_does(jvm, tmp_path):
    df = same_size_rows(jvm)
    jvm_root = sink_broker_dir(tmp_path / "jvm")
    py_root = tmp_path / "py"
    shutil.copytree(jvm_root, py_root)
    df.write.format("kvlog").mode("append").option("partitions", "2").option("kvlog.recordsPerBatch", str(R)) \
        .save(str(jvm_root))
    df.write.format("kvlog_python").mode("append").option("partitions", "2").save(str(py_root))
    for tp in ("t-0", "t-1", "u-0", "u-1"):
        jvm_segs, py_segs = segments(jvm_root, tp), segments(py_root, tp)
        assert jvm_segs == py_segs, tp
        # t rolls every 2 batches, u every 3; an index entry once 1.35 batches were written since the last
        assert [base for base, _ in jvm_segs] == ([0, 2 * R, 4 * R] if tp[0] == "t" else [0, 3 * R]), tp
        assert [len(entries) for _, entries in jvm_segs] == ([0, 0, 0] if tp[0] == "t" else [1, 1]), tp
    with kvlog.LogManager(str(jvm_root), read_only=True) as mgr:
        assert [mgr.log("t", p).log_end_offset for p in (0, 1)] == [SLICES * R] * 2


def test_damaged_metadata_fails_the_write_and_nothing_is_visible(jvm, tmp_path):
    root = sink_broker_dir(tmp_path / "data")
    write_metadata(root, [[config("t", "segment.index.bytes", "4096")]])
    seg = root / "__cluster_metadata-0" / f"{0:020d}.log"
    data = bytearray(seg.read_bytes())
    data[80] ^= 0x40  # inside the first batch's records, under its CRC; later batches are intact
    seg.write_bytes(bytes(data))
    before = {name: digest(root / name) if (root / name).is_dir() else (root / name).read_bytes()
              for name in os.listdir(root)}
    df = same_size_rows(jvm)
    for writer in (df.write.format("kvlog").mode("append").option("partitions", "2"),
                   df.write.format("kvlog").mode("append").option("partitions", "2").option("topic", "t")):
        with pytest.raises(Py4JJavaError) as info:
            writer.save(str(root))
        msg = str(info.value)
        assert f"KRaft metadata log file:{root}/__cluster_metadata-0: corrupt record batch in file:{seg}" in msg, msg
        assert "at position 0: CRC-32C mismatch" in msg, msg
        after = {name: digest(root / name) if (root / name).is_dir() else (root / name).read_bytes()
                 for name in os.listdir(root)}
        assert after == before  # no partition, no committed offsets, no lease: nothing visible, nothing left
        assert committed_offsets.latest(str(root)).version == 0
