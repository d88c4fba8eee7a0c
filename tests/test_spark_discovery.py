"""Both Spark engines take the same directories for partitions: a name a broker writes and Kafka files in it."""

from __future__ import annotations

import shutil

import pytest

import kvlog
import kvlog.spark

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark


def _root(tmp_path):
    root = tmp_path / "data"
    with kvlog.Log.open(root / "orders-0") as log:
        log.append([kvlog.Record(b"k%d" % i, b"v%d" % i, 1_700_000_000_000 + i) for i in range(5)])
    (root / "dbus-1").mkdir()  # named like a partition, holds none of a partition's files
    (root / "dbus-1" / "system.conf").write_text("<busconfig/>")
    shutil.copytree(root / "orders-0", root / "orders-007")  # Kafka files, but no broker writes that name
    (root / "polkit-1").mkdir()  # empty
    return str(root)


@pytest.mark.parametrize("fmt", ["kvlog", "kvlog_python"])
def test_only_kafka_partitions_are_discovered(jvm, tmp_path, fmt):
    root = _root(tmp_path)
    df = jvm.read.format(fmt).option("subscribePattern", ".*").load(root)
    rows = sorted((r.topic, r.partition, r.offset) for r in df.select("topic", "partition", "offset").collect())
    assert rows == [("orders", 0, i) for i in range(5)]
    for topic in ("dbus", "polkit"):
        with pytest.raises(Exception, match="does not exist"):
            jvm.read.format(fmt).option("subscribe", topic).load(root).collect()
