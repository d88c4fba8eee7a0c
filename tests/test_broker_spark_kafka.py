"""Spark's own Kafka source (``format("kafka")``, spark-sql-kafka-0-10 from ``make spark-jars``) through a live Kafka
4.4.0 broker and kvlog's JVM scan (``format("kvlog")``) on that broker's data directory return the same rows:
key, value, topic, partition, offset, timestamp, timestampType and headers, for a whole topic and for the options
users pass (offset ranges, ``assign``, ``startingOffsetsByTimestamp``), in batch and as an ``AvailableNow`` stream,
with the broker running and after it stopped. And what ``df.write.format("kafka")`` produced through the broker is
what kvlog's sink writes from the same DataFrame, partition for partition.

The records come from Spark's Kafka sink (every codec, null keys and values, headers with null values and
repeated keys, explicit partitions) and from kafka-python (CreateTime timestamps of the past, a LogAppendTime
topic, a topic the broker recompresses)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
import warnings

import pytest

from tests.kafka_oracle import fixtures as F

with warnings.catch_warnings():  # kafka-python (the harness's admin client) loads its schemas a deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka  # noqa: F401

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.broker, pytest.mark.spark, pytest.mark.xdist_group("spark-kafka")]

VERSION = "4.4.0"
COLUMNS = ("topic", "partition", "offset", "key", "value", "timestamp", "timestampType", "headers")
TOPICS = {"mixed": (3, {}), "appendtime": (2, {"message.timestamp.type": "LogAppendTime"}),
          "recompressed": (1, {"compression.type": "zstd"})}
PATTERN = "mixed|appendtime|recompressed"


def as_tuple(r) -> tuple:
    def b(v):
        return None if v is None else bytes(v)

    headers = None if r["headers"] is None else tuple((h["key"], b(h["value"])) for h in r["headers"])
    return (r["topic"], r["partition"], r["offset"], b(r["key"]), b(r["value"]), r["timestamp"], r["timestampType"],
            headers)


def rows(df) -> list[tuple]:
    return sorted(as_tuple(r) for r in df.select(*COLUMNS).collect())


def spark_records(spark, n: int, seed: int):
    """n rows for Spark's Kafka sink into ``mixed``: some keys and values null, headers (none, empty, a null value,
    a repeated key), an explicit partition for two thirds of them (the producer's partitioner for the rest)."""
    from pyspark.sql import Row

    out = []
    for i in range(n):
        key = None if i % 7 == 3 else b"k-%d-%d" % (seed, i % 13)
        value = None if i % 11 == 5 else (b"v-%d-%d-" % (seed, i)) * (1 + i % 5)
        headers = ([] if i % 4 == 0 else None if i % 4 == 1 else
                   [Row(key="h", value=b"x%d" % i), Row(key="h", value=None), Row(key="\u00e9t\u00e9", value=b"")])
        part = None if i % 3 == 0 else i % 3
        out.append((key, value, headers, part))
    return spark.createDataFrame(
        out, "key binary, value binary, headers array<struct<key:string,value:binary>>, partition int")


@pytest.fixture(scope="module")
def broker(jvm, tmp_path_factory):
    from tests.kafka_oracle.broker import Broker, KafkaDist
    from tests.kafka_oracle.serve import create_topics

    reason = F.unavailable(VERSION)
    if reason:
        F._skip_or_fail(reason)
    try:
        jvm._jvm.java.lang.Class.forName("org.apache.spark.sql.kafka010.KafkaSourceProvider", False,
                                         jvm._jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception:  # noqa: BLE001 - py4j reports a missing class as a Py4JJavaError
        F._skip_or_fail("Spark's Kafka source is not on the test session's classpath: run `make spark-jars`")
    dist = KafkaDist.find(VERSION)
    assert dist is not None
    b = Broker(dist, tmp_path_factory.mktemp("spark-kafka-broker"), extra={"log.retention.ms": "-1"})
    b.start()
    try:
        create_topics(b, {t: (n, {"retention.ms": -1, **cfg}) for t, (n, cfg) in TOPICS.items()})
        for seed, codec in enumerate(("none", "gzip", "snappy", "lz4", "zstd")):
            (spark_records(jvm, 60, seed).write.format("kafka").option("kafka.bootstrap.servers", b.bootstrap)
             .option("topic", "mixed").option("kafka.compression.type", codec).option("kafka.linger.ms", "5").save())
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=b.bootstrap, compression_type="lz4", linger_ms=5)
        now = int(time.time() * 1000)
        for i in range(90):
            ts = now - 86_400_000 + i * 1000 if i % 2 else None  # CreateTime of the past, or the producer's clock
            headers = [("n", b"%d" % i)] if i % 3 else []
            for topic, parts in (("mixed", 3), ("appendtime", 2), ("recompressed", 1)):
                producer.send(topic, key=b"p%d" % (i % 9), value=b"py-%d" % i, partition=i % parts,
                              timestamp_ms=ts, headers=headers)
        producer.flush()
        producer.close()
        yield b
    finally:
        b.stop_all()


@pytest.fixture(scope="module")
def seen(jvm, broker, tmp_path_factory):
    """What each reader returned, gathered once: Spark's Kafka source and kvlog's scan while the broker runs, then
    kvlog's scan of the stopped broker's directory."""
    spark, data, work = jvm, str(broker.data), tmp_path_factory.mktemp("spark-kafka-streams")

    def kafka(**opts):
        r = spark.read.format("kafka").option("kafka.bootstrap.servers", broker.bootstrap).option("includeHeaders",
                                                                                                  "true")
        for k, v in opts.items():
            r = r.option(k, v)
        return r.load()

    def kvlog(**opts):
        r = spark.read.format("kvlog").option("includeHeaders", "true")
        for k, v in opts.items():
            r = r.option(k, v)
        return r.load(data)

    def stream(fmt: str, name: str, **opts):
        r = spark.readStream.format(fmt).option("includeHeaders", "true").option("startingOffsets", "earliest")
        for k, v in opts.items():
            r = r.option(k, v)
        df = r.option("kafka.bootstrap.servers", broker.bootstrap).load() if fmt == "kafka" else r.load(data)
        q = (df.writeStream.format("memory").queryName(name).option("checkpointLocation", str(work / name))
             .trigger(availableNow=True).start())
        try:
            q.awaitTermination(120)
        finally:
            q.stop()
        return rows(spark.table(name))

    mid = rows(kafka(subscribe="mixed", startingOffsets="earliest"))
    stamps = sorted(r[5] for r in mid)
    cut = stamps[len(stamps) // 2]
    cut_ms = round((cut if cut.tzinfo else cut.replace(tzinfo=dt.timezone.utc)).timestamp() * 1000)
    cases = {
        "all": {"subscribePattern": PATTERN, "startingOffsets": "earliest"},
        "ranges": {"subscribe": "mixed", "startingOffsets": json.dumps({"mixed": {"0": 7, "1": -2, "2": 30}}),
                   "endingOffsets": json.dumps({"mixed": {"0": -1, "1": 41, "2": 75}})},
        "assign": {"assign": json.dumps({"mixed": [0, 2], "appendtime": [1]}), "startingOffsets": "earliest"},
        "by-timestamp": {"subscribe": "mixed",
                         "startingOffsetsByTimestamp": json.dumps({"mixed": {str(p): cut_ms for p in range(3)}})},
    }
    out = {"running": {}, "kafka": {}, "stopped": {}}
    for name, opts in cases.items():
        out["kafka"][name] = rows(kafka(**opts))
        out["running"][name] = rows(kvlog(**opts))
    out["kafka"]["stream"] = stream("kafka", "kafka_stream", subscribePattern=PATTERN)
    out["running"]["stream"] = stream("kvlog", "kvlog_stream_running", subscribePattern=PATTERN)
    broker.stop()
    try:
        for name, opts in cases.items():
            out["stopped"][name] = rows(kvlog(**opts))
        out["stopped"]["stream"] = stream("kvlog", "kvlog_stream_stopped", subscribePattern=PATTERN)
    finally:
        broker.start()
    return out


CASES = ["all", "ranges", "assign", "by-timestamp", "stream"]


@pytest.mark.parametrize("state", ["running", "stopped"])
@pytest.mark.parametrize("case", CASES)
def test_kvlog_returns_the_rows_spark_kafka_source_returns(seen, case, state):
    want, got = seen["kafka"][case], seen[state][case]
    assert want, f"{case}: Spark's Kafka source returned no rows"
    assert len(got) == len(want), f"{case}: kvlog {len(got)} rows, format('kafka') {len(want)}"
    for a, b in zip(got, want):
        assert a == b, f"{case}: {b[0]}-{b[1]} offset {b[2]}"


def test_the_rows_cover_what_the_comparison_is_about(seen):
    """Not a vacuous match: the whole read holds both timestamp types, null keys and values, null header values,
    every topic and partition, and the selective reads return strict subsets."""
    rows_all = seen["kafka"]["all"]
    assert {r[6] for r in rows_all} == {0, 1}
    assert any(r[3] is None for r in rows_all) and any(r[4] is None for r in rows_all)
    assert any(h[1] is None for r in rows_all for h in (r[7] or ()))
    assert {(r[0], r[1]) for r in rows_all} == {(t, p) for t, (n, _) in TOPICS.items() for p in range(n)}
    assert len(rows_all) == 5 * 60 + 3 * 90
    for case in ("ranges", "assign", "by-timestamp"):
        assert 0 < len(seen["kafka"][case]) < len(rows_all), case


def test_spark_kafka_sink_and_kvlog_sink_write_the_same_partitions(jvm, broker, tmp_path):
    """The same DataFrame through ``df.write.format("kafka")`` into a new topic and through kvlog's JVM sink into a
    directory: each partition holds the same records (keys, values, headers) in the same numbers."""
    from collections import Counter

    from tests.kafka_oracle.serve import create_topics

    create_topics(broker, {"written": (3, {"retention.ms": -1})})
    df = spark_records(jvm, 300, 99).where("partition is not null")  # both place them where the row says
    df.write.format("kafka").option("kafka.bootstrap.servers", broker.bootstrap).option("topic", "written").save()
    root = str(tmp_path / "sink")
    df.write.format("kvlog").mode("append").option("topic", "written").option("partitions", "3").save(root)

    def content(read):
        return Counter((r[1], r[3], r[4], r[7] or ()) for r in rows(read))

    kafka = content(jvm.read.format("kafka").option("kafka.bootstrap.servers", broker.bootstrap)
                    .option("subscribe", "written").option("includeHeaders", "true").load())
    kvlog = content(jvm.read.format("kvlog").option("subscribe", "written").option("includeHeaders", "true").load(root))
    assert sum(kafka.values()) == df.count() == sum(kvlog.values())
    assert kvlog == kafka
    assert os.path.isdir(os.path.join(root, "written-2"))
