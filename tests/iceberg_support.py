"""Helpers of the kvlog.iceberg tests: topics written with known records, and tables read back by pyiceberg
(the oracle: Iceberg's own reader, never kvlog's)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa

import kvlog

NOW_MS = int(time.time() * 1000) // 1000 * 1000
HOUR_MS = 3600 * 1000


def record(i: int, partition: int) -> kvlog.Record:
    """The ``i``-th record of a partition: a key (null every 7th), a value (null every 11th: a tombstone),
    a header every 3rd, timestamps spread over three hours."""
    key = None if i % 7 == 3 else f"k{partition}-{i % 50}".encode()
    value = None if i % 11 == 5 else f"v{partition}-{i}".encode() * (1 + i % 4)
    headers = [("h", f"{i}".encode()), ("n", None)] if i % 3 == 0 else []
    return kvlog.Record(key, value, NOW_MS - HOUR_MS * (i % 3) + i, headers=headers)


def expected_row(r: kvlog.Record, partition: int, offset: int) -> dict[str, Any]:
    return {"partition": partition, "offset": offset, "key": r.key, "value": r.value,
            "timestamp_ms": r.timestamp, "headers": [(h[0], h[1]) for h in r.headers]}


def write_topic(root: Path, topic: str = "clicks", partitions: int = 3, n: int = 300,
                start: int = 0) -> dict[tuple[int, int], dict[str, Any]]:
    """``n`` records more in each partition of ``topic`` (created when missing, several batches each); the rows
    a consumer reads, by (partition, offset)."""
    out = {}
    with kvlog.LogManager(root) as m:
        if topic not in m.topics():
            m.create_topic(topic, partitions)
        for p in range(partitions):
            log = m.log(topic, p)
            recs = [record(start + i, p) for i in range(n)]
            for lo in range(0, n, 40):
                first = log.log_end_offset
                log.append(recs[lo:lo + 40])
                for j, r in enumerate(recs[lo:lo + 40]):
                    out[(p, first + j)] = expected_row(r, p, first + j)
    return out


def table_rows(catalog: Any, ident: str) -> list[dict[str, Any]]:
    """Every row of the table as pyiceberg reads it, in (partition, offset) order."""
    t = catalog.load_table(ident).scan().to_arrow()
    return sorted(t.to_pylist(), key=lambda r: (r["partition"], r["offset"]))


def as_expected(row: dict[str, Any]) -> dict[str, Any]:
    ts = row["timestamp"]
    return {"partition": row["partition"], "offset": row["offset"], "key": row["key"], "value": row["value"],
            "timestamp_ms": int(ts.timestamp() * 1000) if ts is not None else None,
            "headers": [(h["key"], h["value"]) for h in (row["headers"] or [])]}


def assert_exactly(catalog: Any, ident: str, expected: dict[tuple[int, int], dict[str, Any]]) -> None:
    rows = table_rows(catalog, ident)
    keys = [(r["partition"], r["offset"]) for r in rows]
    dupes = len(keys) - len(set(keys))
    assert dupes == 0, f"{dupes} rows twice in {ident}"
    missing = sorted(set(expected) - set(keys))
    extra = sorted(set(keys) - set(expected))
    assert not missing and not extra, f"missing {missing[:5]} ({len(missing)}), extra {extra[:5]} ({len(extra)})"
    for r in rows:
        assert as_expected(r) == expected[(r["partition"], r["offset"])]


def summary(catalog: Any, ident: str) -> dict[str, str]:
    snap = catalog.load_table(ident).current_snapshot()
    return dict(snap.summary.additional_properties) if snap is not None else {}


def arrow_of(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows)
