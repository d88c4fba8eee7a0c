"""Strict inputs for both Spark sources (issue 25, point 3; point 6's s3 item): misspelt options, a missing
subscription, topics that do not exist and Kafka's internal topics give the same outcome on the JVM scan
(``format("kvlog")`` with the jar) and the Python source (``format("kvlog_python")``), batch and streaming; and
``format("kvlog")`` on ``s3://`` reads through the Python source where the JVM has no Hadoop file system for it."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from kvlog import Record
from kvlog.records import encode_batch
from kvlog.errors import ConfigError
from kvlog.spark import _options, _plan

ENGINES = ("kvlog", "kvlog_python")
T0 = 1_700_000_000_000


# ------------------------------------------------------------------------------------- the rule itself
@pytest.mark.parametrize("key, meant", [
    ("subcribe", ["subscribe"]),
    ("startingOffset", ["startingOffsets"]),
    ("STARTINGOFFSET", ["startingOffsets"]),  # Spark lower-cases keys; the rule compares lower-cased
    ("subscribepatern", ["subscribePattern"]),
    ("asign", ["assign"]),
    ("endingTimestmap", ["endingTimestamp"]),  # two neighbours swapped: one edit
    ("chunkBytes", ["kvlog.chunkBytes"]),  # the kvlog. prefix left out
    ("isolation.level", ["kafka.isolation.level"]),  # the kafka. prefix left out
    ("kafka.startingOffsets", ["startingOffsets"]),  # a prefix added
    ("mixOffsetsPerTrigger", ["maxOffsetsPerTrigger", "minOffsetsPerTrigger"]),
    ("includeInternalTopic", ["includeInternalTopics"]),
])
def test_near_misses_are_named(key, meant):
    assert _options.suggestions(key) == meant
    with pytest.raises(ConfigError, match=f"unknown option '{key.lower()}': did you mean"):
        _plan.ReadOptions.parse({"subscribe": "t", key: "x"})


@pytest.mark.parametrize("key", [
    "subscribe", "SubscribePattern", "path", "paths", "kvlog.verifyChecksums", "includeInternalTopics",
    # far from every known name: ignored, as Spark's sources ignore options they do not know
    "kafka.bootstrap.servers", "kafka.security.protocol", "kafka.sasl.jaas.config", "checkpointLocation", "topic",
    "align",  # two edits from assign, a short name: too far
])
def test_known_and_far_keys_are_not_refused(key):
    assert _options.suggestions(key) == []


def test_edit_distance():
    assert _options.edit_distance("subscribe", "subscribe") == 0
    assert _options.edit_distance("subcribe", "subscribe") == 1
    assert _options.edit_distance("ab", "ba") == 1
    assert _options.edit_distance("", "abc") == 3
    assert _options.edit_distance("kitten", "sitting") == 3


# --------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def broker_dir(tmp_path_factory) -> str:
    """A broker-shaped directory: two ordinary topics and three internal ones."""
    root = tmp_path_factory.mktemp("strict") / "data"
    for topic, parts, n in (("orders", 2, 7), ("clicks", 1, 5), ("__consumer_offsets", 2, 3),
                            ("__transaction_state", 1, 2), ("__cluster_metadata", 1, 4)):
        for p in range(parts):
            d = root / f"{topic}-{p}"
            d.mkdir(parents=True)
            records = [Record(b"k%d" % i, b"%s-%d-%d" % (topic.encode(), p, i), timestamp=T0 + i) for i in range(n)]
            (d / ("0" * 20 + ".log")).write_bytes(encode_batch(records, base_offset=0))  # raw bytes, as a broker's
    return str(root)


def _rows(spark, fmt: str, root: str, options: dict[str, str]) -> list[tuple]:
    df = spark.read.format(fmt).options(**options).load(root)
    return sorted((r.topic, r.partition, r.offset, bytes(r.value)) for r in df.collect())


def _both(spark, root: str, options: dict[str, str]) -> list[tuple]:
    got = {fmt: _rows(spark, fmt, root, options) for fmt in ENGINES}
    assert got["kvlog"] == got["kvlog_python"]
    return got["kvlog"]


def _both_fail(spark, root: str, options: dict[str, str], message: str) -> None:
    for fmt in ENGINES:
        with pytest.raises(Exception, match=message):
            spark.read.format(fmt).options(**options).load(root).collect()


def _stream_rows(spark, fmt: str, root: str, options: dict[str, str], tmp: str) -> list[tuple]:
    name = f"strict_{fmt}_{uuid.uuid4().hex[:8]}"
    q = (spark.readStream.format(fmt).options(**{"startingOffsets": "earliest", **options}).load(root)
         .writeStream.format("memory").queryName(name).option("checkpointLocation", os.path.join(tmp, name))
         .trigger(availableNow=True).start())
    try:
        q.awaitTermination(120)
        if q.exception() is not None:
            raise RuntimeError(str(q.exception()))
    finally:
        q.stop()
    return sorted((r.topic, r.partition, r.offset) for r in spark.table(name).collect())


def _topics(rows: list[tuple]) -> set[str]:
    return {r[0] for r in rows}


# ------------------------------------------------------------------------------ misspelt option names
@pytest.mark.spark
@pytest.mark.parametrize("options, message", [
    ({"subcribe": "orders"}, "unknown option 'subcribe': did you mean subscribe\\?"),
    ({"subscribe": "orders", "startingOffset": "earliest"}, "unknown option 'startingoffset': did you mean startingOffsets"),
    ({"subscribe": "orders", "failOnDataLos": "false"}, "did you mean failOnDataLoss"),
    ({"subscribe": "orders", "chunkBytes": "4096"}, "did you mean kvlog.chunkBytes"),
    ({"subscribe": "orders", "kafka.isolation.levle": "read_committed"}, "did you mean kafka.isolation.level"),
])
def test_misspelt_options_fail_in_both_engines(jvm, broker_dir, options, message):
    _both_fail(jvm, broker_dir, options, message)


@pytest.mark.spark
def test_misspelt_options_fail_streams_too(jvm, broker_dir, tmp_path):
    for fmt in ENGINES:
        with pytest.raises(Exception, match="did you mean subscribe"):
            _stream_rows(jvm, fmt, broker_dir, {"subscrib": "orders"}, str(tmp_path))


@pytest.mark.spark
def test_kafka_source_options_without_a_broker_are_accepted(jvm, broker_dir):
    rows = _both(jvm, broker_dir, {"subscribe": "clicks", "kafka.bootstrap.servers": "broker:9092",
                                   "kafkaConsumer.pollTimeoutMs": "500", "groupIdPrefix": "x",
                                   "kafka.security.protocol": "SSL"})
    assert [r[2] for r in rows] == list(range(5))


@pytest.mark.spark
def test_both_engines_know_the_same_option_names(jvm):
    option_names = jvm.sparkContext._jvm.io.kvlog.spark.read.OptionNames
    assert list(option_names.known()) == list(_options.KNOWN)
    for key in ("subcribe", "startingOffset", "chunkBytes", "mixOffsetsPerTrigger", "kafka.bootstrap.servers",
                "isolation.level", "align", "pathss", "kafka.exclude.internal.topic"):
        assert list(option_names.suggestions(key)) == _options.suggestions(key)


# ------------------------------------------------------------------------------- a subscription is required
@pytest.mark.spark
@pytest.mark.parametrize("options, message", [
    ({}, "one of the options subscribe, subscribePattern or assign must be given"),
    ({"startingOffsets": "earliest"}, "one of the options subscribe, subscribePattern or assign must be given"),
    ({"subscribe": "orders", "subscribePattern": "o.*"}, "exclude each other"),
    ({"subscribe": " , "}, "names no topic"),
    ({"subscribePattern": "  "}, "subscribePattern is empty"),
    ({"assign": "{}"}, "assign names no partition"),
    ({"assign": '{"orders": []}'}, "assign names no partition"),
])
def test_a_subscription_is_required(jvm, broker_dir, options, message):
    _both_fail(jvm, broker_dir, options, message)


@pytest.mark.spark
def test_streams_require_a_subscription(jvm, broker_dir, tmp_path):
    for fmt in ENGINES:
        with pytest.raises(Exception, match="subscribe, subscribePattern or assign must be given"):
            _stream_rows(jvm, fmt, broker_dir, {}, str(tmp_path))


# ------------------------------------------------------------------------------ topics that do not exist
@pytest.mark.spark
@pytest.mark.parametrize("options, message", [
    ({"subscribe": "ordres"}, r"subscribed topic 'ordres' does not exist under .*data; topics there: "
                              r"__cluster_metadata, __consumer_offsets, __transaction_state, clicks, orders"),
    ({"subscribe": "orders,nope,gone"}, r"subscribed topics 'nope', 'gone' do not exist"),
    ({"assign": json.dumps({"nope": [0]})}, r"assigned topic 'nope' does not exist .*topics there: .*orders"),
    ({"assign": json.dumps({"orders": [0, 5]})}, r"assigned partition orders-5 has no log directory .*"
                                                 r"orders has partitions 0, 1"),
])
def test_topics_that_do_not_exist_are_errors(jvm, broker_dir, options, message):
    _both_fail(jvm, broker_dir, options, message)


@pytest.mark.spark
def test_streams_on_topics_that_do_not_exist_fail(jvm, broker_dir, tmp_path):
    for fmt in ENGINES:
        with pytest.raises(Exception, match="subscribed topic 'ordres' does not exist"):
            _stream_rows(jvm, fmt, broker_dir, {"subscribe": "ordres"}, str(tmp_path))


def test_missing_topic_messages_hide_credentials():
    msg = _plan.missing_topics_message("subscribed", ["x"], ["a"], ["s3://KEY:SECRET@bucket/dir?region=eu-west-1"])
    assert "SECRET" not in msg and "KEY" not in msg and "region" not in msg and "s3://bucket/dir" in msg


@pytest.mark.spark
def test_both_engines_show_paths_without_credentials(jvm):
    from kvlog import storage

    for uri in ("s3://KEY:SECRET@bucket/dir?region=eu-west-1", "s3://bucket/dir/", "gs://b/k/", "/local/dir"):
        want = storage.canonical(uri) if storage.is_remote(uri) else uri
        assert jvm.sparkContext._jvm.io.kvlog.spark.read.OptionNames.shownPath(uri) == want == _plan._where([uri])


# ------------------------------------------------------------------------------------- internal topics
@pytest.mark.spark
def test_patterns_skip_internal_topics_unless_asked(jvm, broker_dir):
    assert _topics(_both(jvm, broker_dir, {"subscribePattern": ".*"})) == {"orders", "clicks"}
    assert _both(jvm, broker_dir, {"subscribePattern": "__.*"}) == []
    assert _both(jvm, broker_dir, {"subscribePattern": "no-such-.*"}) == []  # matching nothing reads nothing
    every = {"orders", "clicks", "__consumer_offsets", "__transaction_state", "__cluster_metadata"}
    assert _topics(_both(jvm, broker_dir, {"subscribePattern": ".*", "includeInternalTopics": "true"})) == every
    assert _topics(_both(jvm, broker_dir, {"subscribePattern": ".*", "kafka.exclude.internal.topics": "false"})) \
        == every
    assert _topics(_both(jvm, broker_dir, {"subscribePattern": "__c.*", "includeInternalTopics": "true"})) \
        == {"__consumer_offsets", "__cluster_metadata"}


@pytest.mark.spark
def test_internal_topics_named_explicitly_are_read(jvm, broker_dir):
    rows = _both(jvm, broker_dir, {"subscribe": "__consumer_offsets"})
    assert len(rows) == 6 and _topics(rows) == {"__consumer_offsets"}
    rows = _both(jvm, broker_dir, {"assign": json.dumps({"__transaction_state": [0], "orders": [1]})})
    assert _topics(rows) == {"__transaction_state", "orders"} and len(rows) == 2 + 7


@pytest.mark.spark
def test_contradicting_internal_topic_options_fail(jvm, broker_dir):
    _both_fail(jvm, broker_dir, {"subscribePattern": ".*", "includeInternalTopics": "true",
                                 "kafka.exclude.internal.topics": "true"}, "contradict each other")


@pytest.mark.spark
def test_streams_skip_internal_topics_unless_asked(jvm, broker_dir, tmp_path):
    for fmt in ENGINES:
        rows = _stream_rows(jvm, fmt, broker_dir, {"subscribePattern": ".*"}, str(tmp_path))
        assert {r[0] for r in rows} == {"orders", "clicks"} and len(rows) == 2 * 7 + 5, fmt
        rows = _stream_rows(jvm, fmt, broker_dir, {"subscribePattern": ".*", "includeInternalTopics": "true"},
                            str(tmp_path))
        assert len(rows) == 2 * 7 + 5 + 2 * 3 + 2 + 4, fmt


# ----------------------------------------------------------------------------------- s3:// and the JVM scan
@pytest.fixture(scope="module")
def s3():
    from s3_support import S3Server

    server = S3Server()
    yield server
    server.stop()


@pytest.mark.spark
def test_format_kvlog_reads_s3_through_the_python_source(jvm, s3, broker_dir):
    """PySpark has no Hadoop file system for s3://: format("kvlog") on a session with the jar goes to the Python
    source by itself (same options, same rows, same errors); format("kvlog_jvm") names what to add. A session
    with S3A (hadoop-aws) reads it on the JVM instead, with the same rows and errors (tests/test_spark_s3a.py)."""
    from s3_support import session_has_s3a

    s3a = session_has_s3a(jvm)
    key = s3.new_prefix()
    s3.upload(broker_dir, key)
    uri = s3.uri(key)
    for options in ({"subscribe": "orders"}, {"subscribePattern": ".*", "startingOffsets": json.dumps(
            {"orders": {"0": 2, "1": 0}, "clicks": {"0": 1}}), "endingOffsets": json.dumps(
            {"orders": {"0": 5, "1": 7}, "clicks": {"0": -1}})}):
        local = _rows(jvm, "kvlog_python", broker_dir, options)
        assert local and _rows(jvm, "kvlog", uri, options) == local
    plan = jvm.read.format("kvlog").option("subscribe", "orders").load(uri)._jdf.queryExecution() \
        .executedPlan().toString()
    if s3a:  # KvlogScan, its description without the URI's credentials and query
        assert "columns struct<" in plan and "kvlog_python" not in plan and s3.canonical(key) in plan, plan
        assert "kvlogsecret" not in plan and "endpoint_override" not in plan, plan
    else:
        assert "kvlog_python" in plan and "columns struct<" not in plan, plan  # the Python scan, not KvlogScan
    with pytest.raises(Exception, match="did you mean subscribe"):
        jvm.read.format("kvlog").option("subscrbe", "orders").load(uri).collect()
    with pytest.raises(Exception, match="subscribed topic 'nope' does not exist under s3://"):
        jvm.read.format("kvlog").option("subscribe", "nope").load(uri).collect()


@pytest.mark.spark
def test_format_kvlog_streams_from_s3_through_the_python_source(jvm, s3, broker_dir, tmp_path):
    key = s3.new_prefix()
    s3.upload(broker_dir, key)
    got = _stream_rows(jvm, "kvlog", s3.uri(key), {"subscribePattern": ".*"}, str(tmp_path))
    assert got == _stream_rows(jvm, "kvlog_python", broker_dir, {"subscribePattern": ".*"}, str(tmp_path))


@pytest.mark.spark
def test_kvlog_jvm_on_s3_names_the_connector_and_the_python_source(jvm):
    from s3_support import session_has_s3a

    uri = "s3://AKIAKEY:TOPSECRET@some-bucket/kvlog?endpoint_override=127.0.0.1:1&scheme=http"
    s3a = session_has_s3a(jvm)
    conf = jvm.sparkContext._jsc.hadoopConfiguration()
    fast = {f"fs.s3a.bucket.some-bucket.{k}": v for k, v in (("attempts.maximum", "1"), ("retry.limit", "1"),
                                                              ("retry.interval", "10ms"))}
    if s3a:  # the endpoint refuses connections: fail at once rather than after S3A's and the SDK's retries
        for k, v in fast.items():
            conf.set(k, v)
    try:
        with pytest.raises(Exception) as info:
            jvm.read.format("kvlog_jvm").option("subscribe", "t").load(uri).collect()
    finally:
        for k in fast:
            conf.unset(k)
    msg = str(info.value)
    if s3a:  # S3A serves it: the endpoint refuses the connection, and nothing shows the secret
        assert "TOPSECRET" not in msg and "AKIAKEY" not in msg
        return
    assert "has none for s3:// (s3://some-bucket/kvlog)" in msg
    assert "format(\"kvlog_python\")" in msg and "kvlog.spark.register(spark)" in msg
    assert "org.apache.hadoop:hadoop-aws:" in msg and "spark.hadoop.fs.s3.impl=org.apache.hadoop.fs.s3a.S3AFileSystem" in msg
    assert "TOPSECRET" not in msg and "AKIAKEY" not in msg
    with pytest.raises(Exception, match=r"has none for s3a:// .*hadoop-aws:\d"):
        jvm.read.format("kvlog").option("subscribe", "t").load("s3a://some-bucket/kvlog").collect()
