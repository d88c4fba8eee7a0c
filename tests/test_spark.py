"""The kvlog data source, sink, UDF decoders and maintenance jobs on one shared local[2] SparkSession."""

import datetime
import os
import shutil
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

import kvlog
import kvlog.spark
from kvlog import LogCleaner, LogConfig, LogManager, MemoryRecords, Record
from kvlog.log import Log

pytestmark = pytest.mark.spark
PY = "kvlog_python"  # the Python source by the name it keeps on a session whose format("kvlog") is the JVM scan

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.partitioner.default import murmur2 as kafka_python_murmur2

EPOCH = datetime.datetime(1970, 1, 1)


def _ms(ts):
    """A Row's naive-UTC timestamp as epoch ms, without float rounding."""
    return (ts.replace(tzinfo=None) - EPOCH) // datetime.timedelta(milliseconds=1)


KAFKA_SCHEMA_DDL = ("key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
                    "timestampType int")


def _make_root(path, topics=(("clicks", 3),), n=50, config=None, headers=False):
    with LogManager(path, config or LogConfig(segment_bytes=2048)) as m:
        for topic, parts in topics:
            for p, log in enumerate(m.create_topic(topic, parts)):
                for lo in range(0, n, 10):
                    log.append([Record(b"k%d" % (i % 7), b"%s-%d-%d" % (topic.encode(), p, i), timestamp=1000 + i,
                                       headers=[("h", b"%d" % i)] if headers and i % 2 else [])
                                for i in range(lo, min(n, lo + 10))])
                log.flush()
    return str(path)


def _rows(df):
    return sorted((r.topic, r.partition, r.offset, r.key, r.value) for r in df.collect())


def _expected(root, topics=None):
    out = []
    with LogManager(root, read_only=True) as m:
        for topic, parts in m.topics().items():
            if topics and topic not in topics:
                continue
            for p in range(parts):
                for rec in m.log(topic, p).records():
                    out.append((topic, p, rec.offset, rec.key, rec.value))
    return sorted(out)


# --------------------------------------------------------------------------------------- batch read
def test_schema_is_the_kafka_sources(spark, tmp_path):
    root = _make_root(tmp_path / "d")
    df = spark.read.format(PY).option("subscribePattern", ".*").load(root)
    assert df.schema == spark.createDataFrame([], KAFKA_SCHEMA_DDL).schema
    with_headers = spark.read.format(PY).option("subscribePattern", ".*").option("includeHeaders", "true").load(root)
    assert with_headers.schema == spark.createDataFrame(
        [], KAFKA_SCHEMA_DDL + ", headers array<struct<key:string,value:binary>>").schema


def test_user_schema_is_refused(spark, tmp_path):
    root = _make_root(tmp_path / "d", n=5)
    with pytest.raises(Exception, match="fixed schema"):
        spark.read.format(PY).option("subscribePattern", ".*").schema("value binary").load(root).collect()


def test_full_read_equals_the_logs(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("clicks", 3), ("views", 2)), headers=True)
    df = spark.read.format(PY).option("subscribePattern", ".*").option("includeHeaders", "true").load(root)
    assert _rows(df) == _expected(root)
    got = {(r.topic, r.partition, r.offset): r for r in df.collect()}
    with LogManager(root, read_only=True) as m:
        for rec in m.log("views", 1).records():
            row = got[("views", 1, rec.offset)]
            assert _ms(row.timestamp) == rec.timestamp and row.timestampType == 0
            assert (row.headers is None) == (not rec.headers)  # null, not [], without headers (Spark's rule)
            if rec.headers:
                assert [(h.key, h.value) for h in row.headers] == [(k, v) for k, v in rec.headers]


def test_options_select_and_bound(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("clicks", 3), ("views", 2)))
    def read():
        return spark.read.format(PY)

    assert {r.topic for r in read().option("subscribe", "views").load(root).collect()} == {"views"}
    assert {r.topic for r in read().option("subscribePattern", "cl.*").load(root).collect()} == {"clicks"}
    df = (spark.read.format(PY).option("assign", '{"clicks":[1]}')
          .option("startingOffsets", '{"clicks":{"1":5}}').option("endingOffsets", '{"clicks":{"1":9}}').load(root))
    assert [r.offset for r in df.orderBy("offset").collect()] == [5, 6, 7, 8]
    df = spark.read.format(PY).option("subscribe", "views").option("startingTimestamp", "1040").load(root)
    assert sorted((r.partition, r.offset) for r in df.collect()) == [(p, o) for p in (0, 1) for o in range(40, 50)]
    df = (spark.read.format(PY).option("subscribe", "views")
          .option("endingOffsetsByTimestamp", '{"views":{"0":1003,"1":1010}}').load(root))
    assert sorted((r.partition, r.offset) for r in df.collect()) == [(0, i) for i in range(3)] + [
        (1, i) for i in range(10)]


def test_splits_follow_min_partitions_and_max_records(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("t", 1),), n=100)
    df = spark.read.format(PY).option("subscribePattern", ".*").option("maxRecordsPerPartition", "30").load(root)
    assert df.rdd.getNumPartitions() == 4
    assert sorted(r.offset for r in df.collect()) == list(range(100))
    df = spark.read.format(PY).option("subscribePattern", ".*").option("minPartitions", "3").load(root)
    assert df.rdd.getNumPartitions() == 3 and df.count() == 100


def test_data_loss_is_reported_or_skipped(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("t", 1),), n=40)
    with LogManager(root) as m:
        m.log("t", 0).delete_records(15)
    opts = {"subscribe": "t", "startingOffsets": '{"t":{"0":0}}', "endingOffsets": '{"t":{"0":30}}'}
    with pytest.raises(Exception, match="failOnDataLoss"):
        spark.read.format(PY).options(**opts).load(root).collect()
    df = spark.read.format(PY).options(**opts).option("failOnDataLoss", "false").load(root)
    assert sorted(r.offset for r in df.collect()) == list(range(15, 30))


def test_empty_root_reads_as_empty(spark, tmp_path):
    os.makedirs(tmp_path / "empty")
    assert spark.read.format(PY).option("subscribePattern", ".*").load(str(tmp_path / "empty")).count() == 0


def test_filter_pushdown_when_the_conf_allows(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("clicks", 3), ("views", 2)), n=60)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        kvlog.spark.register(spark)
        df = spark.read.format(PY).option("subscribePattern", ".*").load(root)
        q = df.where("topic = 'clicks' and partition in (0, 2) and offset >= 10 and offset < 20 "
                     "and timestamp >= timestamp'1970-01-01 00:00:01.015'")
        got = sorted((r.partition, r.offset) for r in q.collect())
        assert got == [(p, o) for p in (0, 2) for o in range(15, 20)]
        plan = q._jdf.queryExecution().executedPlan().toString()
        assert "offset" in plan  # the scan node reports what was pushed
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
        kvlog.spark.register(spark)
    assert spark.read.format(PY).option("subscribePattern", ".*").load(root).where("offset < 2").count() == 10


def test_reads_a_kafka_directory_written_by_another_implementation(spark, tmp_path, kraft_segment):
    # the broker's own KRaft segment, in a Kafka partition directory without index files
    d = tmp_path / "broker" / "__cluster_metadata-0"
    d.mkdir(parents=True)
    shutil.copy(kraft_segment, d / "00000000000000000000.log")
    # and a topic written with aiokafka's record builder (gzip), as a broker would store it
    from aiokafka.record.default_records import DefaultRecordBatchBuilder

    topic_dir = tmp_path / "broker" / "orders-0"
    topic_dir.mkdir()
    blob = b""
    offset = 0
    for b in range(3):
        builder = DefaultRecordBatchBuilder(magic=2, compression_type=1, is_transactional=0, producer_id=-1,
                                            producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
        for i in range(5):
            builder.append(i, timestamp=2000 + offset + i, key=b"o%d" % (offset + i), value=b"x" * i, headers=[])
        buf = bytearray(builder.build())
        buf[0:8] = offset.to_bytes(8, "big")  # base offset is outside the CRC
        blob += bytes(buf)
        offset += 5
    (topic_dir / "00000000000000000000.log").write_bytes(blob)
    df = spark.read.format(PY).option("subscribePattern", ".*").option("includeInternalTopics", "true") \
        .load(str(tmp_path / "broker"))
    rows = sorted(df.collect(), key=lambda r: (r.topic, r.offset))
    meta = [r for r in rows if r.topic == "__cluster_metadata"]
    assert [r.offset for r in meta] == [0, 1, 2, 3] and [len(r.value) for r in meta] == [23, 24, 65, 65]
    assert _ms(meta[0].timestamp) == 1726045943832
    orders = [r for r in rows if r.topic == "orders"]
    assert [(r.offset, r.key, r.value) for r in orders] == [(i, b"o%d" % i, b"x" * (i % 5)) for i in range(15)]


def test_read_while_another_process_appends(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("live", 1),), n=10, config=LogConfig(segment_bytes=4096))
    stop = str(tmp_path / "stop")
    script = textwrap.dedent(f"""
        import os, time, kvlog
        from kvlog import LogManager, Record
        with LogManager({root!r}) as m:
            log = m.log("live", 0)
            deadline = time.time() + 60
            i = log.log_end_offset
            while time.time() < deadline and not os.path.exists({stop!r}):
                log.append([Record(b"k", b"live-0-%d" % j, timestamp=1000 + j) for j in range(i, i + 20)])
                i += 20
                if i % 100 == 0:
                    log.flush()
                time.sleep(0.005)  # paced (~4,000 records/s): reads overlap appends without racing a growing log
            log.flush()
        """)
    writer = subprocess.Popen([sys.executable, "-c", script])
    try:
        seen = []
        deadline = time.time() + 60
        # (the writer may not have appended yet when the first reads run: read until the log has grown)
        while writer.poll() is None and time.time() < deadline and not (len(seen) >= 3 and seen[-1] > seen[0]):
            rows = spark.read.format(PY).option("subscribePattern", ".*").load(root).collect()
            offsets = sorted(r.offset for r in rows)
            assert offsets == list(range(len(offsets)))  # a prefix, no gaps or duplicates
            assert all(r.value == b"live-0-%d" % r.offset for r in rows)
            seen.append(len(offsets))
        assert writer.poll() is None, "the writer stopped before the reads were done"
        open(stop, "w").close()
        assert writer.wait(30) == 0
        assert len(seen) >= 3 and seen[-1] > seen[0]  # the reads really overlapped the appends
    finally:
        writer.kill()


# -------------------------------------------------------------------------------------------- sink
def test_write_then_read_with_kafka_partitioner_agreement(spark, tmp_path):
    root = str(tmp_path / "out")
    data = [(b"user-%d" % (i % 37), b"v%d" % i) for i in range(500)] + [(None, b"nokey-%d" % i) for i in range(20)]
    df = spark.createDataFrame(data, "key binary, value binary").repartition(3)
    df.write.format(PY).mode("append").option("topic", "events").option("partitions", "4").save(root)
    back = spark.read.format(PY).option("subscribePattern", ".*").load(root).collect()
    assert sorted((r.key or b"", r.value) for r in back) == sorted((k or b"", v) for k, v in data)
    for r in back:
        if r.key is not None:
            assert r.partition == (kafka_python_murmur2(r.key) & 0x7FFFFFFF) % 4
    per_partition = {}
    for r in back:
        per_partition.setdefault(r.partition, []).append(r.offset)
    assert all(sorted(v) == list(range(len(v))) for v in per_partition.values())
    assert not os.path.exists(os.path.join(root, ".kvlog-staging"))  # nothing staged, not even the directory


def test_write_sink_columns_topic_column_partition_headers_timestamp(spark, tmp_path):
    root = str(tmp_path / "out")
    df = spark.sql("""
        select cast(concat('k', id) as string) as key, cast(concat('v', id) as string) as value,
               if(id % 2 = 0, 'even', 'odd') as topic, cast(if(id < 5, 1, null) as int) as partition,
               array(named_struct('key', 'src', 'value', cast('t' as binary))) as headers,
               timestamp_millis(5000 + id) as timestamp
        from range(20)""")
    df.write.format(PY).mode("append").option("partitions", "2").save(root)
    back = spark.read.format(PY).option("subscribePattern", ".*").option("includeHeaders", "true").load(root).collect()
    assert len(back) == 20
    for r in back:
        i = int(r.key[1:])
        assert r.topic == ("even" if i % 2 == 0 else "odd") and r.value == b"v%d" % i
        assert _ms(r.timestamp) == 5000 + i
        assert [(h.key, h.value) for h in r.headers] == [("src", b"t")]
        if i < 5:
            assert r.partition == 1


def test_overwrite_replaces_the_topic(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("t", 2),), n=30)
    spark.createDataFrame([(b"a", b"new")], "key binary, value binary").write.format(PY) \
        .mode("overwrite").option("topic", "t").save(root)
    back = spark.read.format(PY).option("subscribePattern", ".*").load(root).collect()
    assert [(r.value, r.offset >= 30) for r in back] == [(b"new", True)]


def test_failed_job_leaves_nothing_visible(spark, tmp_path):
    from pyspark.sql.functions import udf

    root = _make_root(tmp_path / "d", topics=(("t", 2),), n=10)

    @udf("binary")
    def boom(v):
        if v == b"9":
            raise ValueError("task failure on purpose")
        return v

    df = spark.createDataFrame([(b"k", b"%d" % i) for i in range(10)], "key binary, value binary").repartition(2)
    with pytest.raises(Exception, match="task failure on purpose"):
        df.withColumn("value", boom("value")).write.format(PY).mode("append").option("topic", "t").save(root)
    assert _rows(spark.read.format(PY).option("subscribePattern", ".*").load(root)) == _expected(root)
    assert sum(1 for _ in spark.read.format(PY).option("subscribePattern", ".*").load(root).collect()) == 20
    staging = os.path.join(root, ".kvlog-staging")

    def job_dirs():
        return [j for j in os.listdir(staging) if os.path.isdir(os.path.join(staging, j))] if os.path.isdir(staging) \
            else []

    deadline = time.time() + 30  # a task still running when the job failed removes its own files
    tracker = spark.sparkContext.statusTracker()
    while time.time() < deadline and (tracker.getActiveStageIds() or job_dirs()):
        time.sleep(0.2)
    assert all(j.endswith(".aborted") for j in os.listdir(staging) if j not in job_dirs())
    # a task Spark killed with the job cannot clean up after itself: the next commit removes what it left
    spark.createDataFrame([(b"k", b"late")], "key binary, value binary").write.format(PY).mode("append") \
        .option("topic", "t").save(root)
    assert job_dirs() == []


def test_sink_rejects_bad_input(spark, tmp_path):
    root = str(tmp_path / "out")
    df = spark.createDataFrame([(b"k",)], "key binary")
    with pytest.raises(Exception, match="needs a 'value' column"):
        df.write.format(PY).mode("append").option("topic", "t").save(root)
    df = spark.createDataFrame([(b"v",)], "value binary")
    with pytest.raises(Exception, match="target topic"):
        df.write.format(PY).mode("append").save(root)
    with pytest.raises(Exception, match="characters outside"):
        df.write.format(PY).mode("append").option("topic", "no/slash").save(root)


def test_a_failed_micro_batch_is_retried_after_a_restart(spark, tmp_path):
    """A micro-batch whose first attempt failed is retried under the same job name by the restarted query:
    the failed attempt's abort marker must neither remove the retry's staged files nor stay behind."""
    from pyspark.sql.functions import udf

    src = _make_root(tmp_path / "src", topics=(("in", 2),), n=40)
    dst = str(tmp_path / "dst")
    ckpt = str(tmp_path / "ckpt")
    marker = str(tmp_path / "fail")
    open(marker, "w").close()

    @udf("binary")
    def maybe_fail(v):
        if os.path.exists(marker):
            raise ValueError("micro-batch failure on purpose")
        return v

    def run():
        q = (spark.readStream.format(PY).option("subscribePattern", ".*").option("startingOffsets", "earliest")
             .load(src).selectExpr("key", "value", "'copy' as topic").withColumn("value", maybe_fail("value"))
             .writeStream.format(PY).option("checkpointLocation", ckpt).option("partitions", "3")
             .trigger(availableNow=True).start(dst))
        try:
            q.awaitTermination(120)
        finally:
            q.stop()

    with pytest.raises(Exception, match="on purpose"):
        run()
    staging = os.path.join(dst, ".kvlog-staging")
    assert [j for j in os.listdir(staging) if j.endswith(".aborted")]  # the failed attempt's marker
    os.unlink(marker)
    run()
    got = sorted(r.value for r in spark.read.format(PY).option("subscribePattern", ".*").load(dst).collect())
    assert got == sorted([b"in-0-%d" % i for i in range(40)] + [b"in-1-%d" % i for i in range(40)])
    assert not os.path.exists(staging) or not [j for j in os.listdir(staging) if j.endswith(".aborted")]


# --------------------------------------------------------------------------------------- streaming
def _append(root, topic, partition, start, count):
    with LogManager(root) as m:
        if topic not in m.topics():
            m.create_topic(topic, partition + 1)
        log = m.log(topic, partition)
        log.append([Record(b"k", b"%s-%d-%d" % (topic.encode(), partition, i), timestamp=1000 + i)
                    for i in range(start, start + count)])
        log.flush()


def test_streaming_source_available_now_restart_and_new_partitions(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("s", 2),), n=30)
    ckpt = str(tmp_path / "ckpt")
    out = str(tmp_path / "parquet")

    def run():
        q = (spark.readStream.format(PY).option("subscribe", "s").option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", "25").load(root)
             .writeStream.format("parquet").option("path", out).option("checkpointLocation", ckpt)
             .trigger(availableNow=True).start())
        try:
            assert q.awaitTermination(120)
            return [p for p in q.recentProgress if p["numInputRows"]]
        finally:
            q.stop()

    progress = run()
    assert len(progress) >= 3  # 60 records in batches of at most 25
    assert all(p["numInputRows"] <= 25 for p in progress)
    assert spark.read.parquet(out).count() == 60
    _append(root, "s", 1, 30, 7)
    with LogManager(root) as m:  # a partition added while the query was down starts at earliest
        m._topics["s"]["partitions"] = 3
        m._write_topics()
        m.log("s", 2).append([Record(b"k", b"s-2-%d" % i, timestamp=1) for i in range(4)])
        m.log("s", 2).flush()
    run()
    got = sorted((r.partition, r.offset) for r in spark.read.parquet(out).collect())
    want = [(0, i) for i in range(30)] + [(1, i) for i in range(37)] + [(2, i) for i in range(4)]
    assert got == want  # exactly once across the restart


def test_streaming_sink_exactly_once_with_restart(spark, tmp_path):
    src = _make_root(tmp_path / "src", topics=(("in", 2),), n=40)
    dst = str(tmp_path / "dst")
    ckpt = str(tmp_path / "ckpt")

    def run():
        q = (spark.readStream.format(PY).option("subscribePattern", ".*").option("startingOffsets", "earliest").load(src)
             .selectExpr("key", "value", "'copy' as topic")
             .writeStream.format(PY).option("checkpointLocation", ckpt).option("partitions", "3")
             .trigger(availableNow=True).start(dst))
        try:
            assert q.awaitTermination(120)
        finally:
            q.stop()

    run()
    _append(src, "in", 0, 40, 10)
    run()
    got = sorted(r.value for r in spark.read.format(PY).option("subscribePattern", ".*").load(dst).collect())
    want = sorted([b"in-0-%d" % i for i in range(50)] + [b"in-1-%d" % i for i in range(40)])
    assert got == want
    # replaying an already applied batch id is a no-op (Spark re-runs the last batch after a crash)
    from kvlog.spark import _staging

    plan = _staging.plan(dst, {"topic": "copy"}, ["value"], False, job="replay")
    before = spark.read.format(PY).option("subscribePattern", ".*").load(dst).count()
    assert _staging.commit(plan, [], sink=os.listdir(os.path.join(dst, ".kvlog-sinks"))[0][:-5],
                           batch_id=0)["skipped"]
    assert spark.read.format(PY).option("subscribePattern", ".*").load(dst).count() == before


# -------------------------------------------------------------------------------------------- UDFs
def test_udf_decode_equals_memory_records(spark, tmp_path):
    blobs = [kvlog.encode_arrays([b"k%d" % i for i in range(n)], [b"v%d" % i for i in range(n)],
                                 [7000 + i for i in range(n)], compression=codec, records_per_batch=13,
                                 headers=[[("a", b"b")] if i % 3 == 0 else [] for i in range(n)])
             for n, codec in ((50, "none"), (1, "gzip"), (77, "zstd"), (20, "lz4"), (33, "snappy"))]
    df = spark.createDataFrame([(b, i) for i, b in enumerate(blobs)] + [(None, 99)], "value binary, source int")
    out = kvlog.spark.decode(df, "value", include_headers=True, keep=["source"]).collect()
    for i, blob in enumerate(blobs):
        want = MemoryRecords(blob).to_arrow(include_headers=True).to_pylist()
        got = sorted((r for r in out if r.source == i), key=lambda r: r.offset)
        assert [(r.key, r.value, r.offset, _ms(r.timestamp)) for r in got] == [
            (w["key"], w["value"], w["offset"], _ms(w["timestamp"])) for w in want]
        assert [None if r.headers is None else [(h.key, h.value) for h in r.headers] for r in got] == [
            None if w["headers"] is None else [(h["key"], h["value"]) for h in w["headers"]] for w in want]


def test_udf_decode_of_segment_files_read_as_binary_files(spark, tmp_path):
    root = _make_root(tmp_path / "d", topics=(("t", 2),), n=60, config=LogConfig(segment_bytes=1024))
    files = spark.read.format("binaryFile").option("pathGlobFilter", "*.log").option("recursiveFileLookup", "true") \
        .load(root)
    got = kvlog.spark.decode(files, "content", keep=["path"]).collect()
    assert sorted((r.path.split("/")[-2], r.offset, r.value) for r in got) == sorted(
        (f"t-{p}", o, v) for t, p, o, k, v in _expected(root))


def test_udf_decode_reports_corrupt_rows(spark):
    good = kvlog.encode_arrays([b"k"], [b"v"])
    bad = bytearray(good)
    bad[-1] ^= 0xFF
    df = spark.createDataFrame([(good,), (bytes(bad),)], "value binary").coalesce(1)
    with pytest.raises(Exception, match="row 1"):
        kvlog.spark.decode(df).collect()


# ------------------------------------------------------------------------------------- maintenance
def _dirty_compacted_root(path):
    cfg = LogConfig(segment_bytes=1500, cleanup_policy="compact", min_cleanable_dirty_ratio=0.01)
    with LogManager(path, cfg) as m:
        for p, log in enumerate(m.create_topic("state", 3, cfg)):
            for i in range(0, 300, 10):
                log.append([Record(b"key-%d" % (j % (5 + p * 3)), b"v%d" % j, timestamp=1000 + j)
                            for j in range(i, i + 10)])
            log.flush()
    return str(path)


def test_distributed_compaction_equals_single_process(spark, tmp_path):
    a = _dirty_compacted_root(tmp_path / "a")
    b = str(tmp_path / "b")
    shutil.copytree(a, b)
    stats = kvlog.spark.compact(spark, a, now_ms=10**13).collect()
    assert len(stats) == 3 and all(s.error is None for s in stats)
    assert all(s.records_retained < s.records_read for s in stats)
    with LogManager(b) as m:
        cleaner = LogCleaner()
        for log in m.logs():
            cleaner.clean(log, now_ms=10**13)
    assert _expected(a) == _expected(b)
    # latest value per key survives
    with LogManager(a, read_only=True) as m:
        for p in range(3):
            latest = {}
            for rec in m.log("state", p).records():
                latest[rec.key] = rec.value
            assert latest == {b"key-%d" % k: b"v%d" % max(j for j in range(300) if j % (5 + p * 3) == k)
                              for k in range(5 + p * 3)}
    again = kvlog.spark.compact(spark, a, now_ms=10**13).collect()  # idempotent
    assert _expected(a) == _expected(b) and all(s.error is None for s in again)


def test_maintenance_reports_a_locked_partition_and_goes_on(spark, tmp_path):
    root = _dirty_compacted_root(tmp_path / "a")
    holder = Log.open(os.path.join(root, "state-1"), LogConfig(cleanup_policy="compact"))
    try:
        stats = {s.partition: s for s in kvlog.spark.compact(spark, root, now_ms=10**13).collect()}
    finally:
        holder.close()
    assert "LogLockedError" in stats[1].error
    assert stats[0].error is None and stats[2].error is None


def test_distributed_retention(spark, tmp_path):
    cfg = LogConfig(segment_bytes=600, retention_ms=1000)
    root = str(tmp_path / "r")
    with LogManager(root, cfg) as m:
        for log in m.create_topic("old", 2, cfg):
            for i in range(0, 60, 5):
                log.append([Record(b"k", b"v%d" % j, timestamp=1000 + j) for j in range(i, i + 5)])
            log.flush()
    stats = kvlog.spark.enforce_retention(spark, root, now_ms=10_000).collect()
    assert len(stats) == 2 and all(s.error is None and s.log_start_offset > 0 for s in stats)
    assert all(s.segments_after < s.segments_before for s in stats)
    with LogManager(root, read_only=True) as m:
        assert all(m.log("old", p).log_start_offset == s.log_start_offset
                   for p, s in sorted((s.partition, s) for s in stats))


# -------------------------------------------------------------------------------------------- demo
def test_demo_pipeline_shows_kip280(spark, tmp_path, capfd):
    from kvlog.spark import demo

    result = demo.run(str(tmp_path), keys=1500, rounds=2, spark=spark)
    out = capfd.readouterr().out
    assert result["stale_timestamp"] == 0 and result["stale_offset"] > 0
    assert "matches groupBy" in out and "Report" in out


# ----------------------------------------------------------------------------------- transactions
def test_read_committed_matches_the_log(spark, tmp_path):
    root = str(tmp_path / "tx")
    committed_values = []
    with LogManager(root) as m:
        log = m.create_topic("tx", 1)[0]
        seq = {7: 0, 8: 0}
        for i in range(12):
            pid = 7 if i % 2 else 8
            vals = [b"t%d-%d" % (i, j) for j in range(5)]
            log.append([Record(b"k", v, timestamp=1000 + i) for v in vals], producer_id=pid, producer_epoch=0,
                       base_sequence=seq[pid], is_transactional=True)
            seq[pid] += 5
            commit = i % 3 != 0
            log.end_transaction(pid, 0, commit=commit)
            if commit:
                committed_values += vals
        log.append([Record(b"k", b"plain")])
        log.append([Record(b"k", b"open")], producer_id=9, producer_epoch=0, base_sequence=0, is_transactional=True)
        log.flush()
    rc = spark.read.format(PY).option("subscribePattern", ".*").option("kafka.isolation.level", "read_committed").load(root)
    got = [r.value for r in rc.orderBy("offset").collect()]
    assert got == committed_values + [b"plain"]  # no aborted data, no markers, nothing past the open txn
    with LogManager(root, read_only=True) as m:
        want = m.log("tx", 0).to_arrow(isolation_level="read_committed").column("value").to_pylist()
    assert got == want
    ru = spark.read.format(PY).option("subscribePattern", ".*").load(root)
    assert ru.count() == 12 * 5 + 2  # read_uncommitted sees aborted and open data, never markers


def test_arrow_udf_decode_gives_one_list_per_row(spark):
    from pyspark.sql import functions as F

    blobs = [kvlog.encode_arrays([b"k%d" % i for i in range(n)], [b"v%d" % i for i in range(n)], 9000,
                                 compression="zstd", records_per_batch=7) for n in (3, 20)]
    df = spark.createDataFrame([(blobs[0],), (None,), (blobs[1],)], "value binary").coalesce(1)
    lists = df.select(kvlog.spark.decode_udf()("value").alias("records")).collect()
    assert lists[1].records is None
    assert [[(r.key, r.value, r.offset) for r in row.records] for row in (lists[0], lists[2])] == [
        [(b"k%d" % i, b"v%d" % i, i) for i in range(n)] for n in (3, 20)]
    exploded = df.select(F.explode(kvlog.spark.decode_udf()("value")).alias("r")).select("r.*")
    assert sorted((r.key, r.offset) for r in exploded.collect()) == sorted(
        (r.key, r.offset) for r in kvlog.spark.decode(df).collect())
