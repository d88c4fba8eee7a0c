"""``format("kvlog_consumer_offsets")``: the consumer-offsets table over many partitions in Spark,
checked against the in-process replay (:func:`kvlog.consumer_offsets`)."""

import datetime

import pytest

from kvlog import Log, Record
from kvlog.internal_topics.decoders import encode_coordinator_record

T0 = 1_700_000_000_000


def commit(group, partition, offset, ts):
    k, v = encode_coordinator_record("__consumer_offsets", 1, {"group": group, "topic": "orders", "partition": partition},
                                     3, {"offset": offset, "leaderEpoch": -1, "metadata": "", "commitTimestamp": ts})
    return Record(k, v, ts)


@pytest.mark.spark
def test_consumer_offsets_data_source(spark, tmp_path):
    import kvlog
    import kvlog.spark

    for n in range(3):
        log = Log.open(tmp_path / f"__consumer_offsets-{n}")
        log.append([commit(f"g{n}", p, 10 * n + p, T0 + p) for p in range(4)])
        log.append([commit(f"g{n}", 0, 99, T0 + 1000)])
        log.close()
    df = spark.read.format("kvlog_consumer_offsets").load(str(tmp_path))
    assert df.rdd.getNumPartitions() == 3
    got = sorted((r.group, r.partition, r.committed_offset, r.leader_epoch, r.commit_timestamp) for r in df.collect())
    expected = kvlog.consumer_offsets(tmp_path).to_pylist()
    assert got == sorted((r["group"], r["partition"], r["committed_offset"], r["leader_epoch"],
                          r["commit_timestamp"].replace(tzinfo=None)) for r in expected)
    assert len(got) == 12 and ("g1", 0, 99, None, datetime.datetime(2023, 11, 14, 22, 13, 21)) in got
    early = kvlog.spark.read_consumer_offsets(spark, str(tmp_path), as_of=T0 + 500, group="g2")
    assert sorted((r.partition, r.committed_offset) for r in early.collect()) == [(0, 20), (1, 21), (2, 22), (3, 23)]
