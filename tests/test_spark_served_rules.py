"""The JVM side of the rules a real broker showed when it served what kvlog wrote (tests/test_broker_serve_writers.py;
the Python side is tests/test_kafka_served_rules.py): each test failed before its fix."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

import kvlog
from kvlog import LogConfig, LogManager, Record
from kvlog.cleaner import LogCleaner
from kvlog.log import Log
from tests.test_kafka_served_rules import T0, _served_after_a_sink

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark


def _plan_jvm(spark: Any, options: dict[str, str]) -> list[tuple[str, int, int, int]] | str:
    """The JVM scan's offset ranges for a batch read with ``options`` (``PlannerForTests``), or its refusal."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import IllegalArgumentException

    jmap = spark._jvm.java.util.HashMap()
    for k, v in options.items():
        jmap.put(k, v)
    try:
        text = spark._jvm.io.kvlog.spark.read.PlannerForTests.plan(jmap)
    except IllegalArgumentException as exc:
        return "refused: " + str(exc).split("\n")[0]
    except Py4JJavaError as exc:
        if exc.java_exception.getClass().getName() != "java.lang.IllegalStateException":
            raise
        return "refused: " + str(exc.java_exception.getMessage())
    return [(t, int(p), int(s), int(e)) for t, p, s, e in (line.rsplit(" ", 3) for line in text.splitlines())]


def test_jvm_sink_batches_fit_segment_bytes(jvm, tmp_path):
    """The JVM sink encoded batches up to kvlog.maxBatchBytes (1 MiB) whatever the topic's segment.bytes, and
    its writer refused one larger than segment.bytes, failing the job: Kafka 3.7.2's smallest segment.bytes
    (16384) with rows of 1000 bytes. Batches now close where the topic's segment.bytes allows."""
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 1, LogConfig(segment_bytes=16384))
    rng = random.Random(5)
    rows = [(b"k%d" % i, rng.randbytes(1000)) for i in range(120)]
    (jvm.createDataFrame(rows, "key binary, value binary").coalesce(1).write.format("kvlog").mode("append")
     .option("topic", "t").option("compression", "lz4").save(str(tmp_path)))
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        assert [r.value for r in log.records()] == [v for _, v in rows]
        assert len(log.segments) >= 8
        assert all(b.size_in_bytes <= 16384 for s in log.segments for b in log.read(s.base_offset).batches())


def test_jvm_timestamp_search_ends_at_the_first_segment_reaching_it(jvm, tmp_path):
    """As Kafka's ListOffsets and Log.offset_for_timestamp: the first segment whose largest timestamp reaches
    the target answers, an empty one (compaction leaves them) by its file's mtime. The JVM scan searched on to
    the next segment."""
    cfg = LogConfig(cleanup_policy="compact", segment_bytes=1024)
    with Log.open(tmp_path / "t-0", cfg) as log:
        for i in range(10):
            log.append([Record(b"k%d" % (i % 5), b"old" * 20, T0 + i)])
        log.roll()
        for i in range(5):
            log.append([Record(b"k%d" % i, b"new", T0 + 100 + i)])
        log.roll()
        LogCleaner().clean(log, now_ms=T0 + 1000)
        first = log.segments[0].log_path
        end = log.log_end_offset
    base = {"path": str(tmp_path), "subscribe": "t"}
    os.utime(first, ((T0 - 1000) / 1000,) * 2)
    assert _plan_jvm(jvm, {**base, "startingTimestamp": str(T0 + 50)}) == [("t", 0, 10, end)]
    os.utime(first, ((T0 + 101) / 1000,) * 2)
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        assert log.offset_for_timestamp(T0 + 50) is None
    assert _plan_jvm(jvm, {**base, "startingTimestamp": str(T0 + 50)}) == (
        f"refused: no record in t-0 has a timestamp at or after {T0 + 50} (set "
        "startingOffsetsByTimestampStrategy=latest to start at the end instead)")
    assert _plan_jvm(jvm, {**base, "endingTimestamp": str(T0 + 50)}) == [("t", 0, 0, end)]  # none: to the end
    assert _plan_jvm(jvm, {**base, "startingTimestamp": str(T0 + 102)}) == [("t", 0, 12, end)]


def test_jvm_engines_read_and_append_after_a_broker(jvm, tmp_path):
    """A broker that served a directory after a kvlog sink governed it appended past the committed ends: the JVM
    scan stopped at the old end, and the JVM sink's next job planned from it (deleting the broker's segments
    there, or writing its records at offsets the broker's hold). Its high watermark past the committed end
    releases the partition (kvlog.committed_offsets.released_by_broker)."""
    _served_after_a_sink(tmp_path, hw=8)
    df = jvm.read.format("kvlog").option("subscribe", "t").load(str(tmp_path))
    assert sorted(r.offset for r in df.collect()) == list(range(8))
    (jvm.createDataFrame([(b"s1", b"sink"), (b"s2", b"sink")], "key binary, value binary").coalesce(1)
     .write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path)))
    with Log.open(tmp_path / "t-0", read_only=True) as log:
        assert [(r.offset, r.value) for r in log.records()] == (
            [(i, b"kvlog") for i in range(5)] + [(i, b"broker") for i in range(5, 8)] + [(8, b"sink"), (9, b"sink")])
    assert kvlog.committed_offsets.latest(str(tmp_path)).range_of("t", 0) == (0, 10)
