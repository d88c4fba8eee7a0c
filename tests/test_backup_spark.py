"""Both Spark engines read a backup directly as the point-in-time directory of its newest run, even while a
later run is half uploaded, and any older run in place with ``kvlog.backupRun`` until a later run rewrote
its partition (issue 28)."""

from __future__ import annotations

import os
import re
import shutil
import uuid

import pytest

from kvlog import LogConfig
from kvlog.backup.run import backup
from kvlog.backup.target import LocalTarget
from kvlog.cleaner import LogCleaner
from kvlog.log import Log
from kvlog.manager import LogManager
from test_backup import SMALL, Killed, _fill, _kill_after, _txns

ENGINES = ("kvlog_python", "kvlog_jvm")
COMPACT = LogConfig(segment_bytes=2048, cleanup_policy="compact")


def rows(spark, fmt, root, **options):
    options = options or {"subscribe": "t,x"}
    df = spark.read.format(fmt).options(**options).option("includeHeaders", "true").load(str(root))
    df = df.selectExpr("topic", "partition", "offset", "key", "value", "unix_millis(timestamp) AS ts", "headers")
    return sorted((r.topic, r.partition, r.offset, r.key, r.value, r.ts,
                   tuple(map(tuple, r.headers or ()))) for r in df.collect())


def direct(root, pattern="t|x"):
    """The same rows through ``LogManager`` (no Spark): the oracle for what a source directory holds."""
    out = []
    with LogManager(str(root), read_only=True) as m:
        for topic in sorted(m.topics()):
            if re.fullmatch(pattern, topic):
                for p in m.partitions(topic):
                    out += [(topic, p, r.offset, r.key, r.value, r.timestamp, tuple(map(tuple, r.headers)))
                            for r in m.log(topic, p).records()]
    return sorted(out)


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
    want = direct(snap)
    assert rows(jvm, "kvlog_python", snap) == want  # the oracle read as Spark reads it, once
    assert len(want) == 450 + 12  # run 1: the records of t, and x's transactional records (no markers)
    assert rows(jvm, "kvlog_python", bak) == want
    assert rows(jvm, "kvlog_jvm", bak) == want
    backup(src, bak)  # the killed run finishes: the next run shows everything
    assert rows(jvm, "kvlog_jvm", bak) == rows(jvm, "kvlog_python", bak) == direct(src)


# ------------------------------------------------------------------------------------ older runs in place
@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    """A backup of three runs and the source as each run saw it: run 2 appends to t-0 (its cut segment of run
    1 is copied longer) and creates topic n, run 3 appends to t-1 and follows a compaction of c-0 (it moves
    the replaced segments aside: runs 1 and 2 of c-0 no longer read in place)."""
    tmp = tmp_path_factory.mktemp("runs")
    src, bak = tmp / "src", tmp / "bak"
    with LogManager(str(src)) as m:
        m.create_topic("t", 2, SMALL)
        m.create_topic("c", 1, COMPACT)
        for p in (0, 1):
            _fill(m.log("t", p), 140, codec="zstd" if p else None)  # the last segment has room left
        _fill(m.log("c", 0), 200)
    snaps = {}

    def run(n):
        assert backup(src, bak).run == n
        snaps[n] = tmp / f"snap{n}"
        shutil.copytree(src, snaps[n])

    run(1)
    with LogManager(str(src)) as m:
        _fill(m.log("t", 0), 90, start_ts=9_000)
        m.create_topic("n", 1, SMALL)
        _fill(m.log("n", 0), 20)
    run(2)
    with Log.open(str(src / "c-0"), COMPACT) as log:
        LogCleaner().clean(log, full=True)
    with LogManager(str(src)) as m:
        _fill(m.log("t", 1), 30, start_ts=9_500)
    run(3)
    # what the timestamp checks rely on: run 1's end of t-0 lies inside a segment the backup now holds longer
    last = max(n for n in os.listdir(snaps[1] / "t-0") if n.endswith(".log"))
    assert os.path.getsize(bak / "t-0" / last) > os.path.getsize(snaps[1] / "t-0" / last)
    return bak, snaps


@pytest.mark.spark
def test_both_engines_read_each_backup_run_in_place_until_a_later_run_rewrites_a_partition(jvm, three_runs):
    bak, snaps = three_runs
    for run, pattern in ((1, "t|n"), (2, "t|n"), (3, ".*")):
        want = direct(snaps[run], pattern)
        got = [rows(jvm, fmt, bak, subscribePattern=pattern, **{"kvlog.backupRun": str(run)}) for fmt in ENGINES]
        assert got[0] == got[1] == want, run
        if run == 1:  # topic n is not in run 1: its partition reads as empty
            assert len(want) == 280 and not any(r[0] == "n" for r in got[0])
    moved = "backup run 3 moved aside files of this partition that run {} holds"
    for run in (1, 2):
        for fmt in ENGINES:
            with pytest.raises(Exception, match=moved.format(run)) as e:
                rows(jvm, fmt, bak, subscribe="c", **{"kvlog.backupRun": str(run)})
            assert "c-0" in str(e.value)
    for fmt in ENGINES:
        with pytest.raises(Exception, match="holds no backup run 9 that reads in place"):
            rows(jvm, fmt, bak, subscribe="t", **{"kvlog.backupRun": "9"})
        with pytest.raises(Exception, match="kvlog.backupRun must be a positive integer"):
            rows(jvm, fmt, bak, subscribe="t", **{"kvlog.backupRun": "0"})
        with pytest.raises(Exception, match="holds no backup run 1 that reads in place"):
            rows(jvm, fmt, snaps[3], subscribe="t", **{"kvlog.backupRun": "1"})  # not a backup


@pytest.mark.spark
def test_timestamp_searches_of_a_pinned_run_end_at_its_end(jvm, three_runs):
    """Run 1's last segment of t-0 is held longer (run 2 copied it again): the records past run 1's end, all
    later than 9000, must not answer a search by time of run 1."""
    bak, snaps = three_runs
    one, t0 = {"kvlog.backupRun": "1"}, {"assign": '{"t":[0]}'}
    for fmt in ENGINES:
        with pytest.raises(Exception, match="no record in t-0 has a timestamp at or after 9000"):
            rows(jvm, fmt, bak, startingTimestamp="9000", **t0, **one)
        assert rows(jvm, fmt, bak, startingTimestamp="9000", startingOffsetsByTimestampStrategy="latest",
                    **t0, **one) == []
    # the largest timestamp (-3) of run 1 is its last record's, not one of the records past its end
    latest = [rows(jvm, fmt, bak, startingOffsetsByTimestamp='{"t":{"0":-3}}', **t0, **one) for fmt in ENGINES]
    assert latest[0] == latest[1] == rows(jvm, "kvlog_python", snaps[1], subscribe="t")[139:140]
    ranged = [rows(jvm, fmt, bak, startingTimestamp="1100", endingTimestamp="9050", **t0, **one) for fmt in ENGINES]
    assert ranged[0] == ranged[1] == [r for r in rows(jvm, "kvlog_python", snaps[1], subscribe="t")
                                      if r[1] == 0 and r[2] >= 100]
    two = [rows(jvm, fmt, bak, startingTimestamp="9000", **t0, **{"kvlog.backupRun": "2"}) for fmt in ENGINES]
    assert two[0] == two[1] and [r[2] for r in two[0]] == list(range(140, 230))


@pytest.mark.spark
def test_a_stream_of_a_pinned_backup_run_is_refused(jvm, three_runs, tmp_path):
    bak, _snaps = three_runs
    for fmt in ENGINES:
        name = f"pinned_{fmt}_{uuid.uuid4().hex[:8]}"
        with pytest.raises(Exception, match="kvlog.backupRun \\(1\\) is for batch queries only"):
            q = (jvm.readStream.format(fmt).option("subscribe", "t").option("kvlog.backupRun", "1").load(str(bak))
                 .writeStream.format("memory").queryName(name)
                 .option("checkpointLocation", str(tmp_path / name)).trigger(availableNow=True).start())
            try:
                q.awaitTermination(120)
                if q.exception() is not None:
                    raise RuntimeError(str(q.exception()))
            finally:
                q.stop()
