"""Both Spark engines (the JVM scan ``kvlog`` and the Python source ``kvlog_python``) on a real broker's data
directory give the rows Kafka's consumer read from that broker, read_uncommitted and read_committed."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.kafka_oracle import fixtures as F

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.broker, pytest.mark.spark]

TYPES = {-1: "NoTimestampType", 0: "CreateTime", 1: "LogAppendTime"}
NOT_TIERED = "^(?!tiered$).*"  # the tiered topic's older records are remote: tests/test_broker_tiered.py


def spark_rows(spark, fmt: str, data, isolation: str) -> dict[tuple[str, int], list[tuple]]:
    df = (spark.read.format(fmt).option("subscribePattern", NOT_TIERED).option("includeHeaders", "true")
          .option("kafka.isolation.level", isolation).load(str(data)))
    out: dict[tuple[str, int], list[tuple]] = {}
    for r in df.collect():
        ts = r["timestamp"]
        ms = -1 if ts is None else round(ts.replace(tzinfo=dt.timezone.utc).timestamp() * 1000) \
            if ts.tzinfo is None else round(ts.timestamp() * 1000)
        headers = [(h["key"], None if h["value"] is None else bytes(h["value"])) for h in (r["headers"] or [])]
        out.setdefault((r["topic"], r["partition"]), []).append((
            r["offset"], None if r["key"] is None else bytes(r["key"]),
            None if r["value"] is None else bytes(r["value"]), ms, TYPES[r["timestampType"]], headers))
    for rows in out.values():
        rows.sort(key=lambda t: t[0])
    return out


CASES = [pytest.param(s, i, id=f"{s}-{i}") for s, i in
         (("running", "read_uncommitted"), ("clean", "read_uncommitted"), ("clean", "read_committed"),
          ("unclean", "read_uncommitted"))]


@pytest.mark.parametrize("engine", [pytest.param("kvlog", id="jvm"), pytest.param("kvlog_python", id="python")])
@pytest.mark.parametrize("state,isolation", CASES)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_spark_rows_equal_consumer(jvm, version, state, isolation, engine):
    got = spark_rows(jvm, engine, F.data_dir(version, state), isolation)
    wanted = [(t, p) for t, p in F.partitions(version, internal=False)]
    assert sorted(got) == sorted(tp for tp in wanted if F.consumer_records(version, isolation, *tp)["records"])
    for topic, p in wanted:
        want = F.as_tuples(F.consumer_records(version, isolation, topic, p)["records"])
        rows = got.get((topic, p), [])
        assert len(rows) == len(want), f"{topic}-{p}: {len(rows)} rows, Kafka's consumer read {len(want)}"
        for a, b in zip(rows, want):
            assert a == b, f"{topic}-{p} offset {b[0]}"
