"""Kafka writes, kvlog reads: every partition a real broker wrote, read by kvlog, equals what Kafka's own
consumer read from that broker (read_uncommitted and read_committed), for each broker version and for the
directory of a running broker, after a clean stop and after SIGKILL."""

from __future__ import annotations

import pyarrow as pa
import pytest

import kvlog
from kvlog.log import Log
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import version_tuple

pytestmark = pytest.mark.broker

TYPE_NAMES = {kvlog.TimestampType.CREATE_TIME: "CreateTime", kvlog.TimestampType.LOG_APPEND_TIME: "LogAppendTime",
              kvlog.TimestampType.NO_TIMESTAMP_TYPE: "NoTimestampType"}
ISOLATIONS = [pytest.param(kvlog.READ_UNCOMMITTED, id="read_uncommitted"),
              pytest.param(kvlog.READ_COMMITTED, id="read_committed")]


def kvlog_tuples(records) -> list[tuple]:
    return [(r.offset, r.key, r.value, -1 if r.timestamp is None else r.timestamp, TYPE_NAMES[r.timestamp_type],
             [(k, v) for k, v in r.headers]) for r in records]


def arrow_tuples(table: pa.Table) -> list[tuple]:
    cols = table.to_pydict()
    out = []
    for i in range(table.num_rows):
        ts = cols["timestamp"][i]
        ms = -1 if ts is None else int(ts.timestamp() * 1000)
        headers = [(h["key"], h["value"]) for h in (cols["headers"][i] or [])]
        out.append((cols["offset"][i], cols["key"][i], cols["value"][i], ms,
                    TYPE_NAMES[kvlog.TimestampType(cols["timestampType"][i])], headers))
    return out


def _same(got: list[tuple], want: list[tuple], where: str) -> None:
    assert len(got) == len(want), f"{where}: kvlog read {len(got)} records, Kafka's consumer {len(want)}"
    for g, w in zip(got, want):
        assert g == w, f"{where}: at offset {w[0]}: kvlog {g!r} != Kafka {w!r}"


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_log_records_equal_consumer(version, state, isolation):
    """``Log.open(read_only=True).records()`` on each partition = the consumer's records, log start and end."""
    data = F.data_dir(version, state)
    for topic, p in F.partitions(version):
        want = F.consumer_records(version, isolation, topic, p)
        where = f"Kafka {version} {state} {topic}-{p} {isolation}"
        with Log.open(data / f"{topic}-{p}", read_only=True) as log:
            assert log.log_start_offset == want["log_start_offset"], where
            end = log.last_stable_offset if isolation == kvlog.READ_COMMITTED else log.high_watermark
            assert end == want["end_offset"], where
            _same(kvlog_tuples(log.records(isolation_level=isolation)), F.as_tuples(want["records"]), where)


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_log_manager_arrow_equal_consumer(version, state, isolation):
    """``LogManager`` on the data directory lists the broker's topics, and ``to_arrow`` of each partition
    equals the consumer's records."""
    data = F.data_dir(version, state)
    with kvlog.LogManager(data, read_only=True) as mgr:
        topics = mgr.topics()
        want_topics = {t: len(d["partitions"]) for t, d in F.truth(version)["metadata"]["topics"].items()}
        assert topics == want_topics
        for topic, p in F.partitions(version):
            want = F.consumer_records(version, isolation, topic, p)
            table = mgr.log(topic, p).to_arrow(isolation_level=isolation)
            _same(arrow_tuples(table), F.as_tuples(want["records"]), f"Kafka {version} {state} {topic}-{p}")


@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_topic_ids_equal_broker(version):
    """The topic id in each partition directory (``partition.metadata``) is the one the broker reports; a
    Kafka 2.8 broker in ZooKeeper mode writes no ``partition.metadata`` (its ids live in ZooKeeper only), and
    kvlog then knows none."""
    data = F.data_dir(version, "clean")
    with kvlog.LogManager(data, read_only=True) as mgr:
        for topic, d in F.truth(version)["metadata"]["topics"].items():
            if topic in F.TIERED_TOPICS and version_tuple(version) < (3, 6):
                continue
            has_file = (data / f"{topic}-0" / "partition.metadata").exists()
            assert has_file == (version_tuple(version) >= (3, 0)), topic
            assert mgr.topic_id(topic) == (d["topic_id"] if has_file else None), topic
