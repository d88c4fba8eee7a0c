"""kvlog.iceberg upsert mode: the table holds the latest record of each key and a tombstone deletes it, read
back with pyiceberg and compared with the latest-per-key of the records written (computed here, in order)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest


import kvlog
import kvlog.iceberg as ki
from kvlog.errors import ConfigError, IcebergExportError
from tests.iceberg_support import NOW_MS

T = "kafka.users"


def write(root: Path, rng: random.Random, n: int, state: dict[bytes, tuple[int, int, bytes]], keys: int = 60) -> None:
    """``n`` records into each of two partitions: updates of ``keys`` keys a partition, one in six a tombstone;
    ``state`` becomes the latest (partition, offset, value) of each live key."""
    with kvlog.LogManager(root) as m:
        if "users" not in m.topics():
            m.create_topic("users", 2)
        for p in range(2):
            log = m.log("users", p)
            recs = []
            for _ in range(n):
                k = f"u{p}-{rng.randrange(keys)}".encode()
                v = None if rng.random() < 1 / 6 else f"{k.decode()}@{rng.random():.6f}".encode()
                recs.append(kvlog.Record(k, v, NOW_MS))
            for lo in range(0, n, 25):
                first = log.log_end_offset
                log.append(recs[lo:lo + 25])
                for j, r in enumerate(recs[lo:lo + 25]):
                    if r.value is None:
                        state.pop(r.key, None)
                    else:
                        state[r.key] = (p, first + j, r.value)


def table_state(wh: Path) -> dict[bytes, tuple[int, int, bytes]]:
    rows = ki.catalog(wh).load_table(T).scan().to_arrow().to_pylist()
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)), "a key twice in an upsert table"
    return {r["key"]: (r["partition"], r["offset"], r["value"]) for r in rows}


def test_upsert_table_is_the_latest_of_each_key(tmp_path: Path):
    root, wh = tmp_path / "d", tmp_path / "wh"
    rng = random.Random(7)
    state: dict[bytes, tuple[int, int, bytes]] = {}
    write(root, rng, 300, state)
    r = ki.export(root, "users", T, warehouse=wh, mode="upsert", partition_by=None)
    assert table_state(wh) == state
    assert r.rows == len(state) + 0 and r.deleted >= 0
    for commit_bytes in (4000, 1 << 20, 1500):  # several commits each: later chunks update earlier ones' rows
        write(root, rng, 150, state)
        r = ki.export(root, "users", T, warehouse=wh, mode="upsert", partition_by=None, commit_bytes=commit_bytes)
        assert table_state(wh) == state
    assert r.commits > 1 and r.deleted > 0
    assert ki.export(root, "users", T, warehouse=wh, mode="upsert").commits == 0
    # an upsert table is read by any engine as plain data files: no delete files to merge
    files = ki.catalog(wh).load_table(T).inspect.files()
    assert set(files.column("content").to_pylist()) == {0}


def test_upsert_refuses_keyless_records_and_a_mode_change(tmp_path: Path):
    root, wh = tmp_path / "d", tmp_path / "wh"
    with kvlog.LogManager(root) as m:
        m.create_topic("users", 1)
        m.log("users", 0).append([kvlog.Record(b"a", b"1", NOW_MS), kvlog.Record(None, b"2", NOW_MS)])
    with pytest.raises(IcebergExportError, match="partition 0, offset 1: a record without a key cannot be upserted"):
        ki.export(root, "users", T, warehouse=wh, mode="upsert")
    ki.export(root, "users", "kafka.appended", warehouse=wh)
    with pytest.raises(IcebergExportError, match="exported in append mode, not upsert"):
        ki.export(root, "users", "kafka.appended", warehouse=wh, mode="upsert")
    with pytest.raises(ConfigError, match="mode must be one of"):
        ki.export(root, "users", T, warehouse=wh, mode="merge")
