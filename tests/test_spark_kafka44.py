"""Kafka 4.4 layouts through Spark: ``format("kvlog_consumer_offsets")`` carries a 4.4 commit's topic id, and
the JVM engine's replay of a Kafka 4.4 metadata log (topic configs, for the sink's segment settings)
against ``kvlog.topic_configs``: snapshots that open and close with control records and carry the
``kraft.version`` and voters, a leader change, ``RegisterBrokerRecord`` v4, ``BrokerRegistrationChangeRecord``
v3, ``ClearElrRecord``, ``UnregisterControllerRecord`` (api key 29) and a control record that does not
decode.

The JVM replay decodes only the records that decide configs (topic, config, remove-topic records and the
KIP-868 transaction markers) and skips control batches; the Python replay decodes every record and notes
the quorum's damaged record without failing. Both must resolve the same configs: this holds them together
on the 4.4 layouts (built from the bytes of a Kafka 4.4.0 broker, see test_kafka44_records).
"""

from __future__ import annotations

import pytest

from kvlog import Log, Record
from tests.test_kafka44_records import (
    BROKER_CHANGE_V3_440,
    CLEAR_ELR_ALL_440,
    CLEAR_ELR_T_440,
    OFFSET_KEY_440,
    OFFSET_VALUE_440,
    REGISTER_BROKER_V4_440,
    T0,
    control_batch,
    meta,
    write_44_metadata,
)

pytest.importorskip("pyspark")

from tests.test_jvm_sink_kraft_configs import jvm_view, python_replay, python_view  # noqa: E402


@pytest.fixture(scope="module")
def hooks(jvm):
    return jvm._jvm.io.kvlog.spark.metadata.KraftConfigsForTests


def config(resource, name, value, rtype=2):
    return meta(4, 0, {"resourceType": rtype, "resourceName": resource, "name": name, "value": value})


def test_the_jvm_resolves_a_44_metadata_log_as_python_does(hooks, tmp_path):
    root = tmp_path / "data"
    log = [config("t", "segment.bytes", "5000000"), bytes.fromhex(REGISTER_BROKER_V4_440),
           bytes.fromhex(BROKER_CHANGE_V3_440), bytes.fromhex(CLEAR_ELR_T_440), meta(29, 0, {"controllerId": 1}),
           config("u", "segment.index.bytes", "65536"), bytes.fromhex(CLEAR_ELR_ALL_440),
           config("", "log.segment.bytes", "300000000", rtype=4)]
    damaged_voters = control_batch(6 + len(log), b"\x00\x00\x00\x06", b"\x00\x00\x09")
    write_44_metadata(root, log_values=log, tail=damaged_voters)
    lines = python_replay(root)
    assert hooks.replay(str(root)).splitlines() == lines
    assert "config\tt\tsegment.bytes\t5000000" in lines and "cluster\tlog.segment.bytes\t300000000" in lines
    for topic in ("t", "u"):
        assert jvm_view(hooks, root, topic) == python_view(root, topic), topic


@pytest.mark.spark
def test_the_consumer_offsets_source_carries_the_topic_id(spark, tmp_path):
    with Log.open(tmp_path / "__consumer_offsets-0") as log:
        log.append([Record(bytes.fromhex(OFFSET_KEY_440), bytes.fromhex(OFFSET_VALUE_440), T0)])
    rows = spark.read.format("kvlog_consumer_offsets").load(str(tmp_path)).collect()
    assert [(r.group, r.partition, r.committed_offset, r.topic_id) for r in rows] == [
        ("g-classic", 1, 10, "8ngLJ4kZSziVYelVxgTi8w")]
