"""Kafka writes, kvlog exports: every topic a real broker wrote (each version; its directory while running, after a
clean stop and after SIGKILL) exported into an Iceberg table, read back with pyiceberg, equals what Kafka's own
consumer read with read_committed — up to what the broker had checkpointed as committed, for a running broker."""

from __future__ import annotations

from pathlib import Path

import pytest


import kvlog  # noqa: E402
import kvlog.iceberg as ki  # noqa: E402
from tests.kafka_oracle import fixtures as F  # noqa: E402

pytestmark = pytest.mark.broker
TYPES = {-1: "NoTimestampType", 0: "CreateTime", 1: "LogAppendTime"}


def _rows(wh: Path, ident: str) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = {}
    for r in ki.catalog(wh).load_table(ident).scan().to_arrow().to_pylist():
        ms = -1 if r["timestamp"] is None else int(r["timestamp"].timestamp() * 1000)
        out.setdefault(r["partition"], []).append(
            (r["offset"], r["key"], r["value"], ms, TYPES[r["timestampType"]],
             [(h["key"], h["value"]) for h in (r["headers"] or [])]))
    return {p: sorted(v) for p, v in out.items()}


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_exported_tables_equal_the_read_committed_consumer(version, state, tmp_path):
    data = F.data_dir(version, state)
    topics = sorted({t for t, _ in F.partitions(version, internal=False)})
    assert topics
    for topic in topics:
        ident = f"kafka.{topic.replace('.', '_').replace('-', '_')}"
        r = ki.export(data, topic, ident, warehouse=tmp_path / "wh")
        got = _rows(tmp_path / "wh", ident)
        for t, p in F.partitions(version, internal=False):
            if t != topic:
                continue
            want = F.consumer_records(version, kvlog.READ_COMMITTED, topic, p)
            where = f"Kafka {version} {state} {topic}-{p}"
            reached = r.offsets[p]
            # what was exported ends at the committed end, or (a running broker's copy) at the high watermark its
            # broker had checkpointed, never past what the consumer could read
            assert reached <= want["end_offset"], where
            if state != "running":
                assert reached == want["end_offset"], where
            expected = [w for w in F.as_tuples(want["records"]) if w[0] < reached]
            assert got.get(p, []) == expected, where
        again = ki.export(data, topic, ident, warehouse=tmp_path / "wh")
        assert (again.rows, again.commits) == (0, 0), topic
