"""Both Spark engines read a backup directly as the point-in-time directory of its newest run, even while a
later run is half uploaded (issue 28)."""

from __future__ import annotations

import shutil

import pytest

from kvlog.backup.run import backup
from kvlog.backup.target import LocalTarget
from kvlog.manager import LogManager
from test_backup import SMALL, Killed, _fill, _kill_after, _txns


def rows(spark, fmt, root):
    df = spark.read.format(fmt).option("subscribe", "t,x").option("includeHeaders", "true").load(str(root))
    return sorted((r.topic, r.partition, r.offset, r.key, r.value, r.timestamp,
                   tuple(map(tuple, r.headers or ()))) for r in df.collect())


def test_both_engines_read_the_newest_run_while_the_next_is_half_uploaded(jvm, tmp_path, monkeypatch):
    src = tmp_path / "src"
    with LogManager(str(src)) as m:
        m.create_topic("t", 3, SMALL)
        for p in range(3):
            _fill(m.log("t", p), 150, codec="zstd" if p else None)
        m.create_topic("x", 1, SMALL)
        _txns(m.log("x", 0), 6)
    snap = tmp_path / "snap"
    shutil.copytree(src, snap)
    bak = tmp_path / "bak"
    backup(src, bak)
    with LogManager(str(src)) as m:
        for p in range(3):
            _fill(m.log("t", p), 80, start_ts=9_000)
    with monkeypatch.context() as mp:
        _kill_after(mp, LocalTarget, "write", 4)
        with pytest.raises(Killed):
            backup(src, bak, workers=1)
    want = rows(jvm, "kvlog_python", snap)
    assert len(want) == 450 + 12  # run 1: the records of t, and x's transactional records (no markers)
    assert rows(jvm, "kvlog_python", bak) == want
    assert rows(jvm, "kvlog_jvm", bak) == want
    backup(src, bak)  # the killed run finishes: the next run shows everything
    assert rows(jvm, "kvlog_jvm", bak) == rows(jvm, "kvlog_python", bak) == rows(jvm, "kvlog_python", src)
