"""The JVM ``kvlog`` source against the Python source (``kvlog_python``): the same logs, the same options, the same rows.

Logs are written as raw segment files (every magic × codec, headers, LogAppendTime, transactional batches
with their control markers, several segments and a log start offset in the root's checkpoint), then each
read goes through both engines and the DataFrames are compared row for row.
"""

from __future__ import annotations

import json
import os
import re
import struct

import numpy as np
import pytest

import kvlog
import kvlog.spark
from kvlog import Record, TimestampType, encode_batch

from conftest import TEST_JVM_OPTS

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark

T0 = 1_700_000_000_000
CODECS = {0: ("none", "gzip", "snappy", "lz4"), 1: ("none", "gzip", "snappy", "lz4"),
          2: ("none", "gzip", "snappy", "lz4", "zstd")}


def _records(rng: np.random.Generator, n: int, first_ts: int, headers: bool) -> list[Record]:
    out = []
    for i in range(n):
        key = None if i % 7 == 3 else b"k%05d" % int(rng.integers(0, 99999))
        value = None if i % 11 == 5 else rng.bytes(int(rng.integers(0, 60)))
        hdrs: tuple = ()
        if headers and i % 3:
            hdrs = (("h1", b"x" * (i % 4)), ("h-null", None)) if i % 2 else (("only", b"\x00\xff"),)
        out.append(Record(key=key, value=value, timestamp=first_ts + i * 10, headers=hdrs))
    return out


def _control(offset: int, producer_id: int, commit: bool) -> bytes:
    marker = Record(key=struct.pack(">hh", 0, 1 if commit else 0), value=struct.pack(">hi", 0, 7), timestamp=T0)
    return encode_batch([marker], base_offset=offset, producer_id=producer_id, producer_epoch=0,
                        is_transactional=True, is_control=True)


def _write_partition(root: str, topic: str, partition: int, segments: list[list[bytes]], bases: list[int]) -> None:
    d = os.path.join(root, f"{topic}-{partition}")
    os.makedirs(d)
    for base, batches in zip(bases, segments):
        with open(os.path.join(d, f"{base:020d}.log"), "wb") as f:
            f.write(b"".join(batches))


def _log_of(rng, magic: int, codec: str, *, batches: int, per_batch: int, headers: bool = False,
            log_append_time: bool = False, first: int = 0) -> tuple[list[bytes], int]:
    out, off = [], first
    for b in range(batches):
        tt = TimestampType.LOG_APPEND_TIME if log_append_time and magic > 0 and b % 2 else TimestampType.CREATE_TIME
        recs = _records(rng, per_batch, T0 + off * 10, headers and magic == 2)
        out.append(encode_batch(recs, magic=magic, base_offset=off, compression=codec, timestamp_type=tt,
                                log_append_time=T0 + 999_000 + b if tt == TimestampType.LOG_APPEND_TIME else None))
        off += per_batch
    return out, off


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("jvm-logs"))
    rng = np.random.default_rng(16)
    # every magic x codec, LogAppendTime on every other batch (v1/v2)
    for magic, codecs in CODECS.items():
        for codec in codecs:
            batches, _ = _log_of(rng, magic, codec, batches=6, per_batch=9, log_append_time=True)
            _write_partition(root, f"m{magic}-{codec}", 0, [batches], [0])
    # headers, three segments in two partitions; a log start offset inside the first segment of partition 1
    for p in (0, 1):
        seg1, nxt = _log_of(rng, 2, "none", batches=5, per_batch=20, headers=True)
        seg2, nxt2 = _log_of(rng, 2, "lz4", batches=5, per_batch=20, headers=True, first=nxt)
        seg3, _ = _log_of(rng, 2, "zstd", batches=3, per_batch=20, headers=True, first=nxt2)
        _write_partition(root, "events", p, [seg1, seg2, seg3], [0, nxt, nxt2])
    with open(os.path.join(root, "log-start-offset-checkpoint"), "w") as f:
        f.write("0\n1\nevents 1 37\n")
    # transactions: committed and aborted data, each followed by its control marker (read_uncommitted sees both)
    txn, off = [], 0
    for i, commit in enumerate((True, False, True)):
        recs = _records(rng, 5, T0 + off, False)
        txn.append(encode_batch(recs, base_offset=off, producer_id=40 + i, producer_epoch=0, is_transactional=True))
        off += 5
        txn.append(_control(off, 40 + i, commit))
        off += 1
    plain, _ = _log_of(rng, 2, "none", batches=2, per_batch=4, first=off)
    _write_partition(root, "txn", 0, [txn + plain], [0])
    return root


def _rows(spark, fmt: str, root: str, options: dict[str, str], columns: tuple[str, ...] | None = None) -> list:
    df = spark.read.format(fmt).options(**options).load(root)
    if columns is not None:
        df = df.select(*columns)
    # sorted here, not by orderBy: a range sort runs a sampling job first, which reads the source a second time
    key = [df.columns.index(c) for c in ("topic", "partition", "offset") if c in df.columns]
    rows = [tuple(r) for r in df.collect()]
    return sorted(rows, key=lambda r: tuple(r[i] for i in key)) if key else rows


EVERY_TOPIC = {"subscribePattern": ".*"}  # reads need subscribe, subscribePattern or assign, as Spark's Kafka source


def _same(spark, root: str, options: dict[str, str] | None = None, columns: tuple[str, ...] | None = None) -> list:
    """Both engines' rows for the same read (every topic but internal ones when ``options`` subscribe to none)."""
    options = options or {}
    if not {"subscribe", "subscribePattern", "assign"} & set(options):
        options = {**EVERY_TOPIC, **options}
    py = _rows(spark, "kvlog_python", root, options, columns)
    jvm = _rows(spark, "kvlog", root, options, columns)
    assert len(jvm) == len(py)
    for a, b in zip(jvm, py):
        assert a == b
    return jvm


def test_register_reports_engines(jvm):
    assert kvlog.spark.register(jvm) == "jvm"
    assert kvlog.spark.jar_path() is not None and kvlog.spark.jar_path().endswith("kvlog-spark.jar")


@pytest.mark.parametrize("magic,codec", [(m, c) for m, cs in CODECS.items() for c in cs])
def test_every_magic_and_codec(jvm, logs, magic, codec):
    rows = _same(jvm, logs, {"subscribe": f"m{magic}-{codec}"})
    assert len(rows) == 54
    types = {r[6] for r in rows}
    assert types == ({-1} if magic == 0 else {0, 1})
    _same(jvm, logs, {"subscribe": f"m{magic}-{codec}"}, ("offset",))


def test_whole_directory_with_headers_and_pruning(jvm, logs):
    rows = _same(jvm, logs, {"includeHeaders": "true"})
    assert any(r[7] for r in rows if r[2] == "events")
    for cols in (("offset",), ("value",), ("partition", "offset"), ("timestamp", "key"), ("headers",)):
        _same(jvm, logs, {"includeHeaders": "true", "subscribe": "events"}, cols)
    for fmt in ("kvlog_python", "kvlog"):
        assert jvm.read.format(fmt).option("subscribePattern", ".*").load(logs).count() == len(rows)


def test_log_start_offset_from_checkpoint(jvm, logs):
    rows = _same(jvm, logs, {"assign": json.dumps({"events": [1]})}, ("offset",))
    assert rows[0] == (37,)


def test_transactions_read_uncommitted_skip_control_batches(jvm, logs):
    rows = _same(jvm, logs, {"subscribe": "txn"})
    offsets = [r[4] for r in rows]
    assert 5 not in offsets and 11 not in offsets and len(offsets) == 15 + 8
    # No .txnindex beside these raw segments: the JVM source replays the markers, the Python source rebuilds the
    # missing index from them (in memory) as recovery would; both drop the aborted transaction (6..10).
    committed = _same(jvm, logs, {"subscribe": "txn", "kafka.isolation.level": "read_committed"})
    assert [r[4] for r in committed] == [*range(0, 5), *range(12, 17), *range(18, 26)]


OPTION_CASES = [
    {"subscribePattern": "m[12]-.*"},
    {"assign": json.dumps({"events": [0], "m2-zstd": [0]})},
    {"subscribe": "events", "startingOffsets": json.dumps({"events": {"0": 15, "1": -2}}),
     "endingOffsets": json.dumps({"events": {"0": 230, "1": -1}})},
    {"subscribe": "events", "startingTimestamp": str(T0 + 1005), "endingTimestamp": str(T0 + 2305)},
    {"subscribe": "events", "startingOffsetsByTimestamp": json.dumps({"events": {"0": T0 + 100, "1": T0 + 700}}),
     "endingOffsetsByTimestamp": json.dumps({"events": {"0": T0 + 2000, "1": T0 + 99_000_000}})},
    {"subscribe": "events", "startingTimestamp": str(T0 + 10**9), "startingOffsetsByTimestampStrategy": "latest"},
    {"subscribe": "events", "startingOffsets": json.dumps({"events": {"0": 0, "1": 0}}), "failOnDataLoss": "false"},
    {"subscribe": "events", "endingOffsets": json.dumps({"events": {"0": 500, "1": 100}}), "failOnDataLoss": "false"},
    {"subscribe": "events", "minPartitions": "7"},
    {"subscribe": "events,txn", "maxRecordsPerPartition": "33"},
    {"subscribe": "m1-gzip", "kvlog.chunkBytes": "4096", "kvlog.maxRowsPerBatch": "5"},
]


@pytest.mark.parametrize("options", OPTION_CASES, ids=range(len(OPTION_CASES)))
def test_batch_options(jvm, logs, options):
    _same(jvm, logs, options)
    _same(jvm, logs, options, ("partition", "offset"))


def test_partitions_follow_min_partitions_and_max_records(jvm, logs):
    for opts in ({"subscribe": "events", "minPartitions": "7"}, {"subscribe": "events", "maxRecordsPerPartition": "33"}):
        n = {fmt: jvm.read.format(fmt).options(**opts).load(logs).rdd.getNumPartitions() for fmt in ("kvlog_python", "kvlog")}
        assert n["kvlog_python"] == n["kvlog"] > 2


def test_pushed_filters(jvm, logs):
    from pyspark.sql import functions as F

    df = jvm.read.format("kvlog").option("subscribePattern", ".*").load(logs)
    py = jvm.read.format("kvlog_python").option("subscribePattern", ".*").load(logs)
    cond = ((F.col("topic") == "events") & (F.col("partition") >= 1) & (F.col("offset") > 40)
            & (F.col("offset") <= 150) & (F.col("timestamp") >= F.lit("2023-11-14 22:13:21").cast("timestamp")))
    got = sorted((tuple(r) for r in df.where(cond).collect()), key=lambda r: (r[2], r[3], r[4]))
    want = sorted((tuple(r) for r in py.where(cond).collect()), key=lambda r: (r[2], r[3], r[4]))
    assert got == want
    assert [r[4] for r in got] == list(range(100, 151))
    # topic, partition and offset are applied by the scan; only the timestamp bound is evaluated again by Spark
    plan = df.where(cond)._jdf.queryExecution().executedPlan().toString()
    spark_filter = next(line for line in plan.splitlines() if "Filter" in line)
    assert re.search(r"timestamp#\d+ >=", spark_filter)
    assert not re.search(r"(topic#\d+ =|partition#\d+ >=|offset#\d+L [<>])", spark_filter), spark_filter


@pytest.mark.parametrize("options,message", [
    ({"failOnDataLoss": "true", "subscribe": "events", "startingOffsets": json.dumps({"events": {"0": 0, "1": 0}})},
     "failOnDataLoss=false"),
    ({"subscribe": "a", "assign": "{}"}, "exclude each other"),
    ({"subscribe": "events", "startingOffsets": "latest"}, "streaming queries only"),
    ({"subscribe": "events", "kafka.isolation.level": "serializable"}, "read_uncommitted or read_committed"),
])
def test_refusals(jvm, logs, options, message):
    with pytest.raises(Exception, match=message):
        jvm.read.format("kvlog").options(**options).load(logs).collect()


@pytest.fixture(scope="module")
def txn_log(tmp_path_factory) -> str:
    """Transactions written through kvlog's own Log (so with .txnindex and producer state): committed, aborted,
    interleaved producers, and one transaction still open at the end."""
    root = str(tmp_path_factory.mktemp("jvm-txn"))
    with kvlog.LogManager(root, kvlog.LogConfig(segment_bytes=2048)) as m:
        for log in m.create_topic("tx", 2):
            seq = {7: 0, 8: 0}
            for i in range(14):
                pid = 7 if i % 2 else 8
                recs = [Record(b"k", b"t%d-%d" % (i, j), timestamp=T0 + i) for j in range(5)]
                log.append(recs, producer_id=pid, producer_epoch=0, base_sequence=seq[pid], is_transactional=True)
                seq[pid] += 5
                if i % 4 != 1:  # every fourth transaction stays open across the next one (interleaving)
                    log.end_transaction(pid, 0, commit=i % 3 != 0)
                log.append([Record(b"k", b"plain-%d" % i, timestamp=T0 + i)])
            for pid in (7, 8):
                log.end_transaction(pid, 0, commit=True)
            log.append([Record(b"k", b"open")], producer_id=9, producer_epoch=0, base_sequence=0, is_transactional=True)
            log.append([Record(b"k", b"after-open")])
            log.flush()
    return root


@pytest.mark.parametrize("extra", [{}, {"maxRecordsPerPartition": "13"},
                                   {"startingOffsets": json.dumps({"tx": {"0": 12, "1": -2}})
                                    , "endingOffsets": json.dumps({"tx": {"0": 60, "1": -1}})}])
def test_read_committed(jvm, txn_log, extra):
    rows = _same(jvm, txn_log, {"kafka.isolation.level": "read_committed", **extra})
    values = [r[1] for r in rows]
    assert b"open" not in values and b"after-open" not in values  # nothing at or past the last stable offset
    assert not any(v.startswith(b"t0-") or v.startswith(b"t3-") for v in values)  # aborted transactions
    _same(jvm, txn_log, {"kafka.isolation.level": "read_committed", **extra}, ("offset",))
    uncommitted = _same(jvm, txn_log, extra)
    assert len(uncommitted) > len(rows)


def test_torn_tail_and_zero_filled_tail(jvm, tmp_path):
    rng = np.random.default_rng(5)
    for p, tail in ((0, b"\x00" * 300), (1, None)):
        batches, _ = _log_of(rng, 2, "none", batches=4, per_batch=6)
        if tail is None:
            tail = batches[-1][: len(batches[-1]) // 2]  # a writer caught in the middle of an append
        _write_partition(str(tmp_path), "torn", p, [batches + [tail]], [0])
    rows = _same(jvm, str(tmp_path))
    assert len(rows) == 48


def _drain(spark, fmt: str, root: str, options: dict[str, str], checkpoint: str, name: str) -> tuple[list, int]:
    """Run an availableNow stream into a memory table; its rows (by topic, partition, offset) and batch count."""
    q = (spark.readStream.format(fmt).options(**options).load(root).writeStream.format("memory").queryName(name)
         .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    try:
        assert q.awaitTermination(120)
        batches = sum(1 for p in q.recentProgress if p["numInputRows"] > 0)
    finally:
        q.stop()
    rows = [tuple(r) for r in spark.table(name).orderBy("topic", "partition", "offset").collect()]
    return rows, batches


@pytest.mark.parametrize("options", [
    {"subscribe": "events", "startingOffsets": "earliest", "failOnDataLoss": "false"},
    {"subscribePattern": "m2-.*", "startingOffsets": "earliest", "maxOffsetsPerTrigger": "40"},
    {"subscribe": "events", "startingOffsets": json.dumps({"events": {"0": 100, "1": -2}}), "failOnDataLoss": "false",
     "includeHeaders": "true"},
    {"subscribe": "txn", "startingOffsets": "earliest", "kafka.isolation.level": "read_uncommitted"},
], ids=range(4))
def test_streaming_available_now(jvm, logs, tmp_path, options):
    tag = abs(hash(json.dumps(options, sort_keys=True))) % 10**8
    py, py_batches = _drain(jvm, "kvlog_python", logs, options, str(tmp_path / "py"), f"py_{tag}")
    got, jvm_batches = _drain(jvm, "kvlog", logs, options, str(tmp_path / "jvm"), f"jvm_{tag}")
    assert got == py and got
    assert jvm_batches == py_batches


def test_streaming_picks_up_appends(jvm, tmp_path):
    root = str(tmp_path / "grow")
    with kvlog.LogManager(root) as m:
        log = m.create_topic("grow", 1)[0]
        log.append([Record(b"k", b"v%d" % i, timestamp=T0 + i) for i in range(10)])
        log.flush()
    q = (jvm.readStream.format("kvlog").option("subscribePattern", ".*").option("startingOffsets", "earliest").load(root).writeStream
         .format("memory").queryName("jvm_grow").option("checkpointLocation", str(tmp_path / "cp")).start())
    try:
        q.processAllAvailable()
        assert jvm.table("jvm_grow").count() == 10
        with kvlog.LogManager(root) as m:
            m.log("grow", 0).append([Record(b"k", b"w%d" % i, timestamp=T0 + i) for i in range(5)])
        q.processAllAvailable()
        assert sorted(r.offset for r in jvm.table("jvm_grow").collect()) == list(range(15))
    finally:
        q.stop()


def test_streaming_refuses_batch_only_options(jvm, logs):
    with pytest.raises(Exception, match="batch queries only"):
        jvm.readStream.format("kvlog").option("subscribePattern", ".*").option("endingOffsets", "latest").load(logs).writeStream.format(
            "memory").queryName("jvm_refused").start().processAllAvailable()


def test_corrupt_batch_names_file_and_position(jvm, tmp_path):
    batches, _ = _log_of(np.random.default_rng(3), 2, "none", batches=3, per_batch=5)
    _write_partition(str(tmp_path), "bad", 0, [batches], [0])
    seg = tmp_path / "bad-0" / f"{0:020d}.log"
    data = bytearray(seg.read_bytes())
    second = len(batches[0])
    data[second + 70] ^= 0xFF  # a byte inside the second batch's records: its CRC no longer matches
    seg.write_bytes(bytes(data))
    with pytest.raises(Exception, match=rf"corrupt record batch in .*bad-0/{0:020d}\.log at position {second}: CRC"):
        jvm.read.format("kvlog").option("subscribePattern", ".*").load(str(tmp_path)).collect()


def test_decompression_bomb_is_refused(jvm, tmp_path):
    import zstandard

    rec = Record(key=None, value=b"\x00" * (80 << 20), timestamp=T0)
    plain = encode_batch([rec])
    undeclared = _with_payload(plain, 4, zstandard.ZstdCompressor(write_content_size=False).compress(plain[61:]))
    for name, batch in (("declared", encode_batch([rec], compression="zstd")), ("undeclared", undeclared)):
        _write_partition(str(tmp_path / name), "bomb", 0, [[batch]], [0])
        with pytest.raises(Exception, match="budget"):
            jvm.read.format("kvlog").option("subscribePattern", ".*").load(str(tmp_path / name)).select("value").collect()


def test_damaged_bytes_fail_cleanly(jvm, tmp_path):
    """Flipped bytes anywhere (headers included, which no CRC covers) either still read or fail with the
    source's error naming file and position: never an index, allocation or codec exception of its own."""
    rng = np.random.default_rng(34917)
    parts, off = [], 0
    for magic, codec in ((2, "none"), (2, "gzip"), (1, "lz4"), (2, "zstd"), (0, "snappy"), (2, "snappy"), (2, "lz4")):
        batch, off = _log_of(rng, magic, codec, batches=1, per_batch=7, headers=True, first=off)
        parts += batch
    clean = b"".join(parts)
    failures = 0
    for i in range(24):
        data = bytearray(clean)
        where = int(rng.integers(0, len(data)))
        if i % 2:  # aim at a batch header: offsets, lengths, magic, CRC, attributes, counts
            starts = np.cumsum([0] + [len(p) for p in parts[:-1]])
            where = int(starts[i % len(parts)]) + int(rng.integers(0, 61))
        data[where] ^= int(rng.integers(1, 256))
        root = tmp_path / f"m{i}"
        _write_partition(str(root), "dmg", 0, [[bytes(data)]], [0])
        try:
            jvm.read.format("kvlog").option("subscribePattern", ".*").option("includeHeaders", "true").load(str(root)).collect()
        except Exception as exc:  # noqa: BLE001 - the assertion below is the check
            text = str(exc)
            assert "corrupt record batch in" in text or "offsets up to" in text or "start offset" in text, text[:2000]
            failures += 1
    assert failures >= 12  # most damage is caught (CRC, lengths); a changed offset field alone still reads


def test_partition_directory_and_several_paths(jvm, logs, tmp_path):
    one = os.path.join(logs, "events-0")
    _same(jvm, one)
    other = str(tmp_path / "other")
    batches, _ = _log_of(np.random.default_rng(8), 2, "gzip", batches=2, per_batch=5)
    _write_partition(other, "more", 3, [batches], [0])
    rows = {fmt: sorted(tuple(r) for r in jvm.read.format(fmt).option("subscribePattern", ".*").load([one, other]).select(
        "topic", "partition", "offset", "value").collect()) for fmt in ("kvlog_python", "kvlog")}
    assert rows["kvlog"] == rows["kvlog_python"]
    assert {(r[0], r[1]) for r in rows["kvlog"]} == {("events", 0), ("more", 3)}


def test_assigned_partition_without_a_log_is_refused(jvm, logs):
    for fmt in ("kvlog_python", "kvlog"):
        with pytest.raises(Exception, match="assigned partition events-9 has no log directory"):
            jvm.read.format(fmt).option("assign", json.dumps({"events": [9]})).load(logs).collect()


def test_partition_directory_outside_the_root_is_refused(jvm, logs, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(os.path.join(logs, "events-0"), root / "escape-0")
    for fmt in ("kvlog_python", "kvlog"):
        with pytest.raises(Exception, match=r"resolves outside .* \(a symlink\?\)"):
            jvm.read.format(fmt).option("subscribePattern", ".*").load(str(root)).collect()


def test_kvlog_is_the_jvm_scan_and_kvlog_jvm_its_alias(jvm, logs):
    plans = {fmt: jvm.read.format(fmt).option("subscribePattern", ".*").load(logs).select("offset")._jdf.queryExecution().executedPlan().toString()
             for fmt in ("kvlog", "kvlog_jvm", "kvlog_python")}
    assert "BatchScan kvlog" in plans["kvlog"] and "BatchScan kvlog_jvm" in plans["kvlog_jvm"]
    assert "columns struct<offset:bigint>" in plans["kvlog"]  # pruned on the JVM
    assert "(Python)" in plans["kvlog_python"] and "(Python)" not in plans["kvlog"]
    assert _rows(jvm, "kvlog_jvm", logs, {"subscribe": "events"}) == _rows(jvm, "kvlog", logs, {"subscribe": "events"})


def test_both_names_write_on_the_jvm_and_the_python_sink_stays(jvm, tmp_path):
    df = jvm.createDataFrame([(b"k", b"v")], "key binary, value binary")
    for fmt in ("kvlog", "kvlog_jvm", "kvlog_python"):
        df.write.format(fmt).mode("append").option("topic", "t").save(str(tmp_path / "out"))
    plan = df.write.format("kvlog").mode("append").option("topic", "t")
    assert [tuple(r) for r in jvm.read.format("kvlog").option("subscribePattern", ".*").load(str(tmp_path / "out")).select("key", "value").collect()] \
        == [(b"k", b"v")] * 3
    del plan


FALLBACK_SCRIPT = """
import json, os, sys
from pyspark.sql import SparkSession
import kvlog.spark
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.driver.extraJavaOptions", sys.argv[2])
         .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1").getOrCreate())
engine = kvlog.spark.register(spark)
every = {"subscribePattern": ".*"}
rows = sorted(r.offset for r in spark.read.format("kvlog").options(**every).load(sys.argv[1]).select("offset")
              .collect())
same = rows == sorted(r.offset for r in spark.read.format("kvlog_python").options(**every).load(sys.argv[1])
                      .collect())
try:
    spark.read.format("kvlog_jvm").options(**every).load(sys.argv[1]).collect()
    alias = "read"
except Exception as exc:
    alias = type(exc).__name__ + ": " + str(exc)[:200]
print(json.dumps({"engine": engine, "rows": rows, "same": same, "alias": alias}))
spark.stop()
"""


def test_without_the_jar_kvlog_is_the_python_source(tmp_path):
    """A session started without the jar (a plain pip install, a Connect client's own session): register()
    says "python", format("kvlog") reads through the Python source, and the JVM-only alias fails loudly."""
    import subprocess
    import sys

    batches, _ = _log_of(np.random.default_rng(3), 2, "none", batches=2, per_batch=4)
    _write_partition(str(tmp_path / "root"), "t", 0, [batches], [0])
    env = {k: v for k, v in os.environ.items() if k not in ("KVLOG_SPARK_JAR", "PYSPARK_SUBMIT_ARGS")}
    env.update(PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    jvm_opts = os.environ.get("KVLOG_TEST_JVM_OPTS", TEST_JVM_OPTS)  # as the shared session's (conftest.py)
    done = subprocess.run([sys.executable, "-c", FALLBACK_SCRIPT, str(tmp_path / "root"), jvm_opts], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["engine"] == "python"
    assert out["rows"] == list(range(8)) and out["same"]
    assert out["alias"] != "read" and "kvlog_jvm" in out["alias"]


# ---------------------------------------------------------------- headers-only reads of large batches
BIG = 40  # records of ~120-600 bytes: batches well over SegmentStream.SKIP_MIN (16 KiB)


def _big_batch(rng, off: int, codec: str = "none", **kw) -> bytes:
    recs = [Record(key=b"k%06d" % (off + i), value=rng.bytes(int(rng.integers(400, 600))), timestamp=T0 + (off + i) * 10)
            for i in range(BIG)]
    return encode_batch(recs, base_offset=off, compression=codec, **kw)


@pytest.fixture(scope="module")
def big_logs(tmp_path_factory) -> str:
    """Large v2 batches (served from their headers by offset-only queries) mixed with small ones and legacy ones,
    over two segments; a transactional partition whose markers sit between large data batches."""
    root = str(tmp_path_factory.mktemp("jvm-big"))
    rng = np.random.default_rng(21)
    for p, codec in ((0, "none"), (1, "none"), (2, "lz4")):
        seg1, off = [], 0
        for b in range(6):
            seg1.append(_big_batch(rng, off, codec))
            off += BIG
            if b % 3 == 1:  # a small batch between large ones
                small, off = _log_of(rng, 2, "none", batches=1, per_batch=3, first=off)
                seg1 += small
        seg2, base2 = [], off
        for _ in range(4):
            seg2.append(_big_batch(rng, off, codec))
            off += BIG
        _write_partition(root, "big", p, [seg1, seg2], [0, base2])
    txn, off = [], 0
    for i, commit in enumerate((True, False, True, False)):
        txn.append(_big_batch(rng, off, producer_id=70 + i % 2, producer_epoch=0, is_transactional=True))
        off += BIG
        txn.append(_control(off, 70 + i % 2, commit))
        off += 1
    txn.append(_big_batch(rng, off, producer_id=99, producer_epoch=0, is_transactional=True))  # still open
    off += BIG
    txn.append(_big_batch(rng, off))
    _write_partition(root, "bigtxn", 0, [txn], [0])
    return root


def test_offset_only_queries_over_large_batches(jvm, big_logs):
    assert len(encode_batch([Record(key=b"k", value=b"v" * 16384)])) >= 16 << 10  # the size SKIP_MIN is about
    full = _same(jvm, big_logs, {"subscribe": "big"})
    assert len(full) == 3 * (10 * BIG + 2 * 3)
    index = {c: i for i, c in enumerate(("key", "value", "topic", "partition", "offset", "timestamp", "timestampType"))}
    for cols in (("offset",), ("partition", "offset"), ("topic", "partition", "offset", "timestampType")):
        rows = _same(jvm, big_logs, {"subscribe": "big"}, cols)
        assert sorted(rows) == sorted(tuple(r[index[c]] for c in cols) for r in full)
    for opts in ({"subscribe": "big", "startingOffsets": json.dumps({"big": {"0": 45, "1": 200, "2": -2}}),
                  "endingOffsets": json.dumps({"big": {"0": 300, "1": -1, "2": 41}})},
                 {"subscribe": "big", "startingTimestamp": str(T0 + 123 * 10), "endingTimestamp": str(T0 + 300 * 10)},
                 {"subscribe": "big", "maxRecordsPerPartition": "77"}):
        _same(jvm, big_logs, opts, ("partition", "offset"))
        _same(jvm, big_logs, opts)
    assert jvm.read.format("kvlog").option("subscribePattern", ".*").load(big_logs).where("topic = 'big'").count() == len(full)


def test_transactions_over_large_batches(jvm, big_logs):
    uncommitted = _same(jvm, big_logs, {"subscribe": "bigtxn"}, ("offset",))
    assert len(uncommitted) == 6 * BIG
    committed = [r[0] for r in _same(jvm, big_logs, {"subscribe": "bigtxn", "kafka.isolation.level": "read_committed"},
                                     ("offset",))]
    step = BIG + 1
    # committed: txn 0 and 2; aborted 1 and 3; producer 99's transaction is open, so reads stop before it
    assert committed == [*range(0, BIG), *range(2 * step, 2 * step + BIG)]
    full = _same(jvm, big_logs, {"subscribe": "bigtxn", "kafka.isolation.level": "read_committed"})
    assert [r[4] for r in full] == committed


def _flip(path: str, position: int) -> None:
    with open(path, "r+b") as f:
        f.seek(position)
        byte = f.read(1)
        f.seek(position)
        f.write(bytes([byte[0] ^ 0x55]))


def test_damaged_records_of_a_large_batch(jvm, tmp_path):
    """Offset-only queries serve large batches from their headers, so a damaged record inside one is not read:
    the offsets come back; any query that reads the records, or kvlog.verifyChecksums=true, fails on the CRC."""
    rng = np.random.default_rng(4)
    batches = [_big_batch(rng, i * BIG) for i in range(3)]
    _write_partition(str(tmp_path), "d", 0, [batches], [0])
    seg = str(tmp_path / "d-0" / ("0" * 20 + ".log"))
    _flip(seg, len(batches[0]) + 5000)  # a value byte in the second batch
    df = jvm.read.format("kvlog").option("subscribePattern", ".*").load(str(tmp_path))
    assert [r.offset for r in df.select("offset").orderBy("offset").collect()] == list(range(3 * BIG))
    crc = rf"corrupt record batch in .*d-0.*{'0' * 20}\.log at position {len(batches[0])}.*CRC"
    for cols in (("value",), ("timestamp",), ("offset", "key")):
        with pytest.raises(Exception, match=crc):
            df.select(*cols).collect()
    with pytest.raises(Exception, match=crc):
        jvm.read.format("kvlog").option("subscribePattern", ".*").option("kvlog.verifyChecksums", "true").load(str(tmp_path)).select("offset").collect()
    for fmt in ("kvlog", "kvlog_python"):
        with pytest.raises(Exception, match="(?i)kvlog.verifyChecksums must be true or false"):
            jvm.read.format(fmt).option("subscribePattern", ".*").option("kvlog.verifyChecksums", "maybe").load(str(tmp_path)).collect()


def test_overlapping_batch_offsets_are_refused(jvm, tmp_path):
    """A batch's base offset is outside its CRC: a batch that starts at or before the previous one's last offset
    is damage (or a spliced file), reported with its position rather than returned as duplicate offsets."""
    rng = np.random.default_rng(6)
    a, b = _big_batch(rng, 0), _big_batch(rng, BIG - 1)
    _write_partition(str(tmp_path), "o", 0, [[a, b]], [0])
    for cols in (("offset",), ("offset", "value")):
        with pytest.raises(Exception, match=rf"at position {len(a)}.*batch offsets {BIG - 1}\.\.{2 * BIG - 2} do not "
                                            rf"follow the previous batch's last offset {BIG - 1}"):
            jvm.read.format("kvlog").option("subscribePattern", ".*").load(str(tmp_path)).select(*cols).collect()


def _with_payload(batch: bytes, codec: int, payload: bytes) -> bytes:
    """``batch`` (uncompressed v2) with its records replaced by ``payload`` under ``codec``, length and CRC redone."""
    import crc32c

    attributes = (struct.unpack_from(">h", batch, 21)[0] & ~0x07) | codec
    body = struct.pack(">h", attributes) + batch[23:61] + payload
    return batch[:8] + struct.pack(">i", 4 + 1 + 4 + len(body)) + batch[12:17] \
        + struct.pack(">I", crc32c.crc32c(body)) + body


def test_zstd_frames_as_kafka_producers_write_them(jvm, tmp_path):
    """Kafka's producers stream zstd frames, so the content size is absent; payloads that inflate far past the
    first guess (four times the input) and payloads of several frames decode the same on both engines."""
    import zstandard

    rng = np.random.default_rng(12)
    streaming = zstandard.ZstdCompressor(write_content_size=False)
    batches, off = [], 0
    for n, value_bytes in ((50, 4000), (3, 10), (200, 900)):
        recs = [Record(key=b"%d" % i, value=bytes([65 + i % 3]) * value_bytes + rng.bytes(4), timestamp=T0 + off + i)
                for i in range(n)]
        plain = encode_batch(recs, base_offset=off)
        records = plain[61:]
        batches.append(_with_payload(plain, 4, streaming.compress(records)))
        off += n
        half = len(records) // 2
        again = encode_batch(recs, base_offset=off)
        frames = streaming.compress(again[61:][:half]) + zstandard.ZstdCompressor().compress(again[61:][half:])
        batches.append(_with_payload(again, 4, frames))
        off += n
    _write_partition(str(tmp_path), "z", 0, [batches], [0])
    rows = _same(jvm, str(tmp_path))
    assert len(rows) == 2 * (50 + 3 + 200) and rows[5][1][:4000] == b"C" * 4000
    _same(jvm, str(tmp_path), columns=("offset", "value"))


def test_a_swap_in_progress_reads_as_recovery_would_leave_it(jvm, tmp_path):
    """A compaction caught between its renames: the .log.swap replaces the segments whose base offsets it covers,
    in both engines (the Python source's read-only open does the same); the .cleaned leftover is ignored."""
    rng = np.random.default_rng(9)
    seg1, n1 = _log_of(rng, 2, "none", batches=3, per_batch=20)
    seg2, n2 = _log_of(rng, 2, "lz4", batches=3, per_batch=20, first=n1)
    seg3, _ = _log_of(rng, 2, "none", batches=1, per_batch=10, first=n2)
    _write_partition(str(tmp_path), "s", 0, [seg1, seg2, seg3], [0, n1, n2])
    d = tmp_path / "s-0"
    swap = [encode_batch([Record(key=b"k%d" % i, value=b"compacted", timestamp=T0 + i) for i in range(40)],
                         base_offset=0),
            encode_batch([Record(key=b"last", value=b"compacted", timestamp=T0 + 99)], base_offset=n2 - 1)]
    (d / ("0" * 20 + ".log.swap")).write_bytes(b"".join(swap))
    (d / (f"{n2:020d}.log.cleaned")).write_bytes(b"\x00" * 100)
    # no cleaner-offset-checkpoint yet (a log's first compaction writes it after the swap): the leftovers
    # themselves show the offsets may have gaps, so the Python source's audit does not hold it to dense offsets
    rows = _same(jvm, str(tmp_path))
    assert [r[4] for r in rows] == [*range(40), n2 - 1, *range(n2, n2 + 10)]
    assert {r[1] for r in rows[:41]} == {b"compacted"}
    (tmp_path / "cleaner-offset-checkpoint").write_text("0\n1\ns 0 0\n")
    assert _same(jvm, str(tmp_path)) == rows


def test_a_file_system_the_cluster_lacks_is_named(jvm):
    # format("kvlog") hands s3:// to the Python source (tests/test_spark_strict_options.py); the JVM-only name says
    # what to add. A session with S3A (build/spark-jars/s3a/) has one for s3:// (tests/test_spark_s3a.py), not gs://.
    from s3_support import session_has_s3a

    if not session_has_s3a(jvm):
        with pytest.raises(Exception, match=r"has none for s3:// .*kvlog_python.*hadoop-aws"):
            jvm.read.format("kvlog_jvm").option("subscribePattern", ".*").load("s3://some-bucket/kvlog").collect()
    with pytest.raises(Exception, match=r"has none for gs:// .*kvlog_python.*gcs-connector"):
        jvm.read.format("kvlog_jvm").option("subscribePattern", ".*").load("gs://some-bucket/kvlog").collect()


def test_a_marker_the_cleaner_emptied_ends_nothing(jvm, tmp_path):
    """A control batch with no record left does not end a transaction (Kafka's producer state skips it), in both
    engines; the transaction that was open stays open, so read_committed stops before it."""
    import crc32c

    rng = np.random.default_rng(2)
    data = encode_batch(_records(rng, 5, T0, False), base_offset=0, producer_id=50, producer_epoch=0,
                        is_transactional=True)
    marker = bytearray(_control(5, 50, True))
    empty = marker[:57] + struct.pack(">i", 0)
    body = bytes(empty[21:])
    empty = empty[:8] + struct.pack(">i", len(empty) - 12) + empty[12:17] + struct.pack(">I", crc32c.crc32c(body)) \
        + body
    committed_other = encode_batch(_records(rng, 3, T0, False), base_offset=6, producer_id=51, producer_epoch=0,
                                   is_transactional=True)
    plain, _ = _log_of(rng, 2, "none", batches=1, per_batch=4, first=10)
    _write_partition(str(tmp_path), "e", 0, [[data, bytes(empty), committed_other, _control(9, 51, True), *plain]], [0])
    assert len(_same(jvm, str(tmp_path))) == 5 + 3 + 4
    assert _same(jvm, str(tmp_path), {"kafka.isolation.level": "read_committed"}) == []


# ---------------------------------------------------------------- aggregates answered from batch headers
def _agg_queries():
    from pyspark.sql import functions as F

    return {
        "count": lambda df: [(df.count(),)],
        "by partition": lambda df: df.groupBy("topic", "partition").agg(
            F.count("*"), F.min("offset"), F.max("offset"), F.sum("offset"), F.count("timestamp")),
        "by partition only": lambda df: df.groupBy("partition").agg(F.max("offset"), F.count("topic")),
        # filters kvlog applies exactly while planning: the aggregates are still pushed
        "exact filters": lambda df: df.where("partition >= 1 and offset >= 10 and offset < 200")
        .groupBy("topic").agg(F.count("*"), F.min("offset"), F.sum("offset")),
        "not pushed": lambda df: df.groupBy("topic").agg(F.count("key"), F.avg("offset"),
                                                         F.countDistinct("timestampType")),
    }


def _collected(result) -> list:
    rows = result if isinstance(result, list) else [tuple(r) for r in result.collect()]
    return sorted(rows, key=repr)


@pytest.mark.parametrize("which", ["logs", "big_logs"])
@pytest.mark.parametrize("options", [
    {},
    {"kafka.isolation.level": "read_committed"},
    {"subscribe": "events,big", "startingOffsets": json.dumps({"events": {"0": 7, "1": -2}, "big": {"0": 45, "1": -2,
     "2": 300}}), "endingOffsets": json.dumps({"events": {"0": 55, "1": -1}, "big": {"0": 301, "1": 2, "2": -1}}),
     "failOnDataLoss": "false"},
    {"maxRecordsPerPartition": "29"},
], ids=["all", "read_committed", "offset ranges", "split ranges"])
def test_pushed_aggregates_equal_the_rows(jvm, logs, big_logs, which, options):
    root = logs if which == "logs" else big_logs
    if "subscribe" in options:
        options = {**options, "subscribe": "events" if which == "logs" else "big"}
        topic = options["subscribe"]
        options["startingOffsets"] = json.dumps({topic: json.loads(options["startingOffsets"])[topic]})
        options["endingOffsets"] = json.dumps({topic: json.loads(options["endingOffsets"])[topic]})
    narrowed = bool(options)  # offsets or isolation given: not every partition is over the budget
    if "subscribe" not in options:
        options = {**EVERY_TOPIC, **options}
    # answered whole while planning (these logs are small), as partial results per task, and not pushed at all
    modes = {"whole": {}, "partial": {"kvlog.completeAggregateBatches": "0"},
             "budget": {"kvlog.completeAggregateBatches": "3"}, "unpushed": {"kvlog.aggregatePushdown": "false"}}
    # the oracle: the Python source's rows, read once and aggregated by Spark as a local relation
    python = jvm.read.format("kvlog_python").options(**options).load(root) \
        .select("topic", "partition", "offset", "timestamp", "key", "timestampType")
    rows = jvm.createDataFrame(python.collect(), python.schema)
    for name, query in _agg_queries().items():
        want = _collected(query(rows))
        for mode, extra in modes.items():
            if mode == "unpushed" and name != "by partition":
                continue  # the switch is shown on one query; the others' unpushed answers are Spark's own
            result = query(jvm.read.format("kvlog").options(**options, **extra).load(root))
            assert _collected(result) == want, (name, mode)
            if name in ("count", "not pushed"):
                continue
            plan = result._jdf.queryExecution().executedPlan().toString()  # the plan that ran, not planned again
            assert ("(aggregates from batch headers)" in plan) == (mode != "unpushed"), (name, mode, plan)
            if mode == "budget":  # whole when the ranges hold at most 3 batches, else partial
                whole = "answered while planning" in plan
                assert whole != ("Exchange" in plan), (name, plan)
                assert not whole or narrowed or name != "by partition", plan  # every partition is over it
                continue
            assert ("answered while planning" in plan) == (mode == "whole"), (name, mode, plan)
            assert ("Exchange" in plan) == (mode != "whole"), (name, mode, plan)


def test_a_global_aggregate_over_no_rows(jvm, logs):
    from pyspark.sql import functions as F

    options = {"subscribe": "events", "startingOffsets": json.dumps({"events": {"0": 40, "1": 40}}),
               "endingOffsets": json.dumps({"events": {"0": 40, "1": 40}})}
    for extra in ({}, {"kvlog.completeAggregateBatches": "0"}):
        rows = {fmt: [tuple(r) for r in jvm.read.format(fmt).options(**options, **extra).load(logs)
                      .agg(F.count("*"), F.min("offset"), F.sum("offset")).collect()]
                for fmt in ("kvlog", "kvlog_python")}
        assert rows["kvlog"] == rows["kvlog_python"] == [(0, None, None)]


def _varint(n: int) -> bytes:
    z, out = (n << 1) ^ (n >> 63), bytearray()
    while True:
        byte = z & 0x7F
        z >>= 7
        out.append(byte | (0x80 if z else 0))
        if not z:
            return bytes(out)


def _compacted_batch(base: int, deltas: list[int]) -> bytes:
    """An uncompressed v2 batch whose records keep only the offset deltas given, as the cleaner leaves them."""
    import crc32c

    records = b""
    for d in deltas:
        body = b"\x00" + _varint(d) + _varint(d) + _varint(2) + b"k%d" % (d % 10) + _varint(1) + b"v" + _varint(0)
        records += _varint(len(body)) + body
    tail = struct.pack(">hiqqqhii", 0, deltas[-1], T0, T0 + deltas[-1], -1, -1, -1, len(deltas)) + records
    return struct.pack(">qiib", base, 4 + 1 + 4 + len(tail), 0, 2) + struct.pack(">I", crc32c.crc32c(tail)) + tail


def test_pushed_aggregates_over_gaps_and_filters(jvm, tmp_path):
    """Compacted batches (offsets with gaps, so the record count differs from the offset span) are walked, not
    counted from the header; filters Spark must apply after the scan keep aggregates from being pushed."""
    from pyspark.sql import functions as F

    plain = encode_batch([Record(key=b"k%d" % i, value=b"v", timestamp=T0 + i) for i in range(6)], base_offset=100)
    _write_partition(str(tmp_path), "g", 0, [[_compacted_batch(0, [0, 4, 9]), _compacted_batch(10, [3]), plain]],
                     [0])
    (tmp_path / "cleaner-offset-checkpoint").write_text("0\n1\ng 0 13\n")  # compacted: gaps are expected
    def q(df):
        return df.groupBy("partition").agg(F.count("*"), F.min("offset"), F.max("offset"), F.sum("offset"))
    frames = {fmt: jvm.read.format(fmt).option("subscribePattern", ".*").load(str(tmp_path)) for fmt in ("kvlog", "kvlog_python")}
    assert _collected(q(frames["kvlog"])) == _collected(q(frames["kvlog_python"])) \
        == [(0, 10, 0, 105, 0 + 4 + 9 + 13 + sum(range(100, 106)))]
    def filtered(df):
        return q(df.where(F.col("timestamp") > F.lit("2023-11-14 22:13:20.002").cast("timestamp")))
    assert _collected(filtered(frames["kvlog"])) == _collected(filtered(frames["kvlog_python"]))
    assert "(aggregates from batch headers)" not in \
        filtered(frames["kvlog"])._jdf.queryExecution().executedPlan().toString()


def test_a_sum_past_the_long_range_overflows_as_spark_does(jvm, tmp_path):
    """Answered whole (while planning), as partial results, or not pushed: the same overflow error under ANSI
    mode, the same wrapped-around sum without it."""
    from pyspark.sql import functions as F

    big = 2**62
    batch = encode_batch([Record(key=None, value=b"v", timestamp=T0 + i) for i in range(3)], base_offset=big)
    _write_partition(str(tmp_path), "o", 0, [[batch]], [big])
    modes = {"whole": {}, "partial": {"kvlog.completeAggregateBatches": "0"},
             "unpushed": {"kvlog.aggregatePushdown": "false"}}
    for ansi in ("true", "false"):
        jvm.conf.set("spark.sql.ansi.enabled", ansi)
        try:
            outcomes = {}
            for mode, extra in modes.items():
                try:
                    df = jvm.read.format("kvlog").option("subscribe", "o").options(**extra).load(str(tmp_path)) \
                        .select("offset")
                    outcomes[mode] = df.agg(F.sum("offset")).collect()[0][0]
                except Exception as exc:  # noqa: BLE001 - compared below
                    outcomes[mode] = "overflow" if "overflow" in str(exc).lower() else str(exc)[:300]
            assert len(set(outcomes.values())) == 1, (ansi, outcomes)
            assert outcomes["whole"] == ("overflow" if ansi == "true" else 3 * big - 2**64 + 3), outcomes
        finally:
            jvm.conf.unset("spark.sql.ansi.enabled")


@pytest.mark.parametrize("fmt", ["kvlog", "kvlog_python"])
def test_streaming_restarts_from_its_checkpoint(jvm, tmp_path, fmt):
    """A stream stopped and started again on the same checkpoint resumes after the last committed offsets: every
    record once, across the restart, with maxOffsetsPerTrigger splitting the backlog."""
    root = str(tmp_path / "src")
    with kvlog.LogManager(root) as m:
        for p, log in enumerate(m.create_topic("r", 2)):
            log.append([Record(b"k", b"p%d-%d" % (p, i), timestamp=T0 + i) for i in range(12)])
            log.flush()

    def run() -> None:
        q = (jvm.readStream.format(fmt).option("subscribePattern", ".*").option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", "7")
             .load(root).select("partition", "offset", "value").writeStream.format("parquet")
             .option("path", str(tmp_path / "out")).option("checkpointLocation", str(tmp_path / "cp"))
             .trigger(availableNow=True).start())
        try:
            assert q.awaitTermination(120)
        finally:
            q.stop()

    run()
    with kvlog.LogManager(root) as m:
        m.log("r", 1).append([Record(b"k", b"late-%d" % i, timestamp=T0 + 100 + i) for i in range(5)])
    run()
    got = sorted((r.partition, r.offset) for r in jvm.read.parquet(str(tmp_path / "out")).collect())
    assert got == [(0, o) for o in range(12)] + [(1, o) for o in range(17)]


def test_a_record_count_no_batch_can_hold_is_refused(jvm, tmp_path):
    """A CRC-valid header claiming a billion records in a few bytes (crafted, so the CRC proves nothing) must not
    size the offsets of a header-served batch: both engines refuse it, and nothing allocates a billion rows."""
    import crc32c

    plain = bytearray(encode_batch([Record(key=b"k", value=b"v", timestamp=T0)], base_offset=0))
    struct.pack_into(">i", plain, 23, 10**9 - 1)
    struct.pack_into(">i", plain, 57, 10**9)
    struct.pack_into(">I", plain, 17, crc32c.crc32c(bytes(plain[21:])))
    _write_partition(str(tmp_path), "n", 0, [[bytes(plain)]], [0])
    for fmt in ("kvlog", "kvlog_python"):
        for cols in (("offset",), ("offset", "value")):
            with pytest.raises(Exception, match=r"(?i)record count|records|offset"):
                jvm.read.format(fmt).option("subscribePattern", ".*").load(str(tmp_path)).select(*cols).collect()
    with pytest.raises(Exception, match=r"record count 1000000000 cannot fit in a batch of \d+ bytes"):
        jvm.read.format("kvlog").option("subscribePattern", ".*").load(str(tmp_path)).select("offset").collect()


def test_damaged_headers_of_large_batches_fail_cleanly(jvm, tmp_path):
    """The header-served paths (offsets only, counts, pushed aggregates, read_committed replays) on large batches
    whose header bytes are flipped: each query reads or fails with the source's error naming file and position."""
    from pyspark.sql import functions as F

    rng = np.random.default_rng(61)
    # plain (none, lz4), then a transactional batch its ABORT marker closes
    parts = [_big_batch(rng, 0), _big_batch(rng, BIG, "lz4"),
             _big_batch(rng, 2 * BIG, producer_id=80, producer_epoch=0, is_transactional=True), _control(3 * BIG, 80, False)]
    clean = b"".join(parts)
    starts = np.cumsum([0] + [len(p) for p in parts[:3]])
    queries = {
        "offsets": lambda df: df.select("offset").collect(),
        "count": lambda df: df.count(),
        "aggregates": lambda df: df.groupBy("partition").agg(F.min("offset"), F.max("offset"), F.sum("offset"))
        .collect(),
    }
    failures = 0
    for i in range(18):
        data = bytearray(clean)
        where = int(starts[i % 3]) + int(rng.integers(0, 61))
        data[where] ^= int(rng.integers(1, 256))
        root = tmp_path / f"h{i}"
        _write_partition(str(root), "dmg", 0, [[bytes(data)]], [0])
        for name, query in queries.items():
            for level in ("read_uncommitted", "read_committed"):
                df = jvm.read.format("kvlog").option("subscribePattern", ".*").option("kafka.isolation.level", level).load(str(root))
                try:
                    query(df)
                except Exception as exc:  # noqa: BLE001 - the assertion below is the check
                    text = str(exc)
                    assert "corrupt record batch in" in text or "offsets up to" in text \
                        or "start offset" in text, (name, level, text[:2000])
                    failures += 1
    # headers-only queries leave the CRC unchecked, so a flip in a field they do not use goes unseen; lengths,
    # magic, counts and offsets that contradict their neighbours are still caught
    assert failures >= 6


@pytest.fixture(scope="module")
def indexed_logs(tmp_path_factory) -> str:
    """Logs a writer made (offset and time indexes beside every segment): small batches over many segments,
    CreateTime stamps that wander back and forth, so the time index's entries are what a search starts from."""
    root = str(tmp_path_factory.mktemp("jvm-indexed"))
    rng = np.random.default_rng(33)
    config = kvlog.LogConfig(segment_bytes=6 << 10, index_interval_bytes=300)
    with kvlog.LogManager(root, config) as m:
        for p, log in enumerate(m.create_topic("ti", 2, config)):
            t = T0
            for b in range(150):
                recs = []
                for _ in range(int(rng.integers(1, 6))):
                    t += int(rng.integers(-30, 60))
                    recs.append(Record(key=b"k", value=rng.bytes(int(rng.integers(10, 120))), timestamp=t))
                log.append(recs)
            log.flush()
    return root


def test_timestamp_options_start_from_the_time_index(jvm, indexed_logs):
    segments = [n for n in os.listdir(os.path.join(indexed_logs, "ti-0")) if n.endswith(".timeindex")]
    assert len(segments) > 5
    for target in (T0 - 5, T0 + 700, T0 + 2_345, T0 + 6_000, T0 + 9_999, T0 + 10**6):
        for options in ({"startingTimestamp": str(target), "startingOffsetsByTimestampStrategy": "latest"},
                        {"endingTimestamp": str(target)},
                        {"startingOffsetsByTimestamp": json.dumps({"ti": {"0": target, "1": target + 77}}),
                         "startingOffsetsByTimestampStrategy": "latest"}):
            _same(jvm, indexed_logs, {"subscribe": "ti", **options}, ("partition", "offset", "timestamp"))


def test_session_hadoop_settings_reach_the_executors(jvm, logs):
    """Settings made on the session (not in SparkConf) must reach the tasks' file systems: a viewfs mount table
    set with spark.conf.set, uncached, resolves on the driver and in every task."""
    mount = "fs.viewfs.mounttable.kvlogtest.link./logs"
    keys = {mount: "file://" + logs, "fs.viewfs.impl.disable.cache": "true"}
    for k, v in keys.items():
        jvm.conf.set(k, v)
    try:
        got = _rows(jvm, "kvlog", "viewfs://kvlogtest/logs", {"subscribe": "events"})
        count = jvm.read.format("kvlog").option("subscribePattern", ".*").load("viewfs://kvlogtest/logs").where("topic = 'events'").count()
    finally:
        for k in keys:
            jvm.conf.unset(k)
    assert got == _rows(jvm, "kvlog_python", logs, {"subscribe": "events"})
    assert count == len(got) > 0
