"""Timestamp options that resolve to an offset, where a control batch is the answer, in both Spark engines.

Kafka's ListOffsets for a timestamp (``UnifiedLog.searchOffsetInLocalLog`` → ``LogSegment.findOffsetByTimestamp``
→ ``FileRecords.searchForTimestamp``) walks every batch whose max timestamp reaches the target, control batches
included, and answers the first record, a control record too, whose timestamp is at or after the target and
whose offset is at or after the log start: a transaction marker (its timestamp is the broker's clock when the
transaction ended) answers when it comes first. Spark's Kafka source starts (or ends) there. For the largest
timestamp (-3, ``UnifiedLog.fetchOffsetByTimestamp``'s MAX_TIMESTAMP branch) Kafka takes the first segment whose
max timestamp is the largest, in it the first batch reaching it and that batch's first record carrying it
(``RecordBatch.offsetOfMaxTimestamp``, a control record's own offset), with no log start check: batches below
the log start offset still in a segment file count, and the answer may lie below it (a read from there then
meets failOnDataLoss).

Each layout is written as raw segment files; the expected offsets are Kafka's rule applied to what was written,
checked against ``kvlog.Log.offset_for_timestamp``, then against both planners (the Python source's and the JVM
scan's, ``PlannerForTests``) and the rows of both engines.
"""

from __future__ import annotations

import json
import os
import struct
import warnings
from typing import Any

import pytest

import kvlog
from kvlog import Record, TimestampType, encode_batch
from kvlog.errors import KvlogError
from kvlog.spark._plan import plan_batch

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark

T0 = 1_700_000_000_000
LAT = TimestampType.LOG_APPEND_TIME


# ------------------------------------------------------------------------------------------ writing
def _data(base: int, stamps: list[int], pid: int = -1, log_append_time: int | None = None) -> bytes:
    recs = [Record(b"k%d" % (base + i), b"v%d" % (base + i), ts) for i, ts in enumerate(stamps)]
    tt = LAT if log_append_time is not None else TimestampType.CREATE_TIME
    return encode_batch(recs, base_offset=base, producer_id=pid, producer_epoch=0 if pid >= 0 else -1,
                        base_sequence=0 if pid >= 0 else -1, is_transactional=pid >= 0, timestamp_type=tt,
                        log_append_time=log_append_time)


def _marker(offset: int, pid: int, commit: bool, ts: int, log_append_time: bool = False) -> bytes:
    rec = Record(struct.pack(">hh", 0, 1 if commit else 0), struct.pack(">hi", 0, 7), ts)
    return encode_batch([rec], base_offset=offset, producer_id=pid, producer_epoch=0, is_transactional=True,
                        is_control=True, timestamp_type=LAT if log_append_time else TimestampType.CREATE_TIME,
                        log_append_time=ts if log_append_time else None)


def _control_pair(offset: int, stamps: tuple[int, int]) -> bytes:
    """A control batch of two records (KRaft writes such batches: KRaftVersion and Voters together); here two
    LeaderChange records, so the batch's base offset and the offset of its record carrying the max differ."""
    value = struct.pack(">hiib", 0, 1, 1, 0) + struct.pack(">b", 0)
    recs = [Record(struct.pack(">hh", 0, 2), value, ts) for ts in stamps]
    return encode_batch(recs, base_offset=offset, is_control=True)


def _partition(root: str, topic: str, partition: int, segments: dict[int, list[bytes]]) -> None:
    d = os.path.join(root, f"{topic}-{partition}")
    os.makedirs(d)
    for base, batches in segments.items():
        with open(os.path.join(d, f"{base:020d}.log"), "wb") as f:
            f.write(b"".join(batches))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("ts-markers"))
    # only-0: the COMMIT marker (offset 1) is the only entry at or after T0+50
    _partition(root, "only", 0, {0: [_data(0, [T0], pid=1), _marker(1, 1, True, T0 + 100)]})
    # then-0: the marker (2), then an older record (3) and a newer one (4)
    _partition(root, "then", 0, {0: [_data(0, [T0, T0 + 1], pid=1), _marker(2, 1, True, T0 + 100),
                                     _data(3, [T0 + 10]), _data(4, [T0 + 200])]})
    # later-0: the marker opens the second segment (5), an older record (6) and a newer one (7) follow
    _partition(root, "later", 0, {0: [_data(0, [T0 + i for i in range(5)], pid=2)],
                                  5: [_marker(5, 2, True, T0 + 100), _data(6, [T0 + 5]), _data(7, [T0 + 300])]})
    # aborted-0: an aborted transaction's ABORT marker (3), then an older record (4) and a newer one (5)
    _partition(root, "aborted", 0, {0: [_data(0, [T0 + 1, T0 + 2, T0 + 3], pid=3), _marker(3, 3, False, T0 + 100),
                                        _data(4, [T0 + 20]), _data(5, [T0 + 300])]})
    # lat-0: LogAppendTime batches, the marker (2) stamped by the broker's clock too
    _partition(root, "lat", 0, {0: [_data(0, [T0, T0], pid=4, log_append_time=T0 + 10),
                                    _marker(2, 4, True, T0 + 100, log_append_time=True),
                                    _data(3, [T0], log_append_time=T0 + 40), _data(4, [T0], log_append_time=T0 + 200)]})
    # tie-0: the marker (1) and a later record (3) both at T0+50: the marker; tie-1: a record (1) before the
    # marker (2), both at T0+50: the record
    _partition(root, "tie", 0, {0: [_data(0, [T0], pid=5), _marker(1, 5, True, T0 + 50), _data(2, [T0 + 5]),
                                    _data(3, [T0 + 50])]})
    _partition(root, "tie", 1, {0: [_data(0, [T0, T0 + 50], pid=5), _marker(2, 5, True, T0 + 50),
                                    _data(3, [T0 + 5])]})
    # maxstart-0: the largest timestamp on offset 0, below the log start offset 2 in the same segment;
    # maxstart-1: on offset 0 of a segment wholly below the log start offset 2 (not yet deleted)
    _partition(root, "maxstart", 0, {0: [_data(0, [T0 + 500]), _data(1, [T0 + 1, T0 + 2, T0 + 3])],
                                     4: [_data(4, [T0 + 10, T0 + 20])]})
    _partition(root, "maxstart", 1, {0: [_data(0, [T0 + 500, T0 + 1])], 2: [_data(2, [T0 + 2, T0 + 3])]})
    # maxctl-0: a two-record control batch (1, 2) whose second record carries the largest timestamp
    _partition(root, "maxctl", 0, {0: [_data(0, [T0]), _control_pair(1, (T0 + 1, T0 + 100)), _data(3, [T0 + 5])]})
    with open(os.path.join(root, "log-start-offset-checkpoint"), "w") as f:
        f.write("0\n2\nmaxstart 0 2\nmaxstart 1 2\n")
    return root


# ----------------------------------------------------------------------------------------- checking
def _kvlog(root: str, topic: str, partition: int, ts: int) -> int | None:
    with kvlog.Log.open(os.path.join(root, f"{topic}-{partition}"), read_only=True) as log:
        found = log.offset_for_timestamp(ts)
    return None if found is None else found.offset


class Refused(Exception):
    """A planner refused the read."""


def _plan_python(options: dict[str, str]) -> list[tuple[str, int, int, int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # failOnDataLoss=false warns about what it skips
        try:
            _, ranges = plan_batch(options)
        except KvlogError as exc:
            raise Refused(str(exc)) from None
    return sorted((r.topic, r.partition, r.start, r.end) for r in ranges)


def _plan_jvm(spark: Any, options: dict[str, str]) -> list[tuple[str, int, int, int]]:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import IllegalArgumentException

    jmap = spark._jvm.java.util.HashMap()
    for k, v in options.items():
        jmap.put(k, v)
    try:
        text = spark._jvm.io.kvlog.spark.read.PlannerForTests.plan(jmap)
    except IllegalArgumentException as exc:
        raise Refused(str(exc).split("\n\nJVM stacktrace:")[0]) from None
    except Py4JJavaError as exc:
        if exc.java_exception.getClass().getName() != "java.lang.IllegalStateException":
            raise
        raise Refused(str(exc.java_exception.getMessage())) from None
    out = []
    for line in text.splitlines():
        topic, partition, start, end = line.rsplit(" ", 3)
        out.append((topic, int(partition), int(start), int(end)))
    return sorted(out)


def _plans(spark, root: str, options: dict[str, str]) -> list[tuple[str, int, int, int]] | str:
    """Both planners' ranges (they must agree), or the refusal both give."""
    options = {**options, "path": root}
    got = {}
    for name, plan in (("python", lambda: _plan_python(options)), ("jvm", lambda: _plan_jvm(spark, options))):
        try:
            got[name] = plan()
        except Refused as exc:
            got[name] = f"refused: {exc}"
    if isinstance(got["python"], str) or isinstance(got["jvm"], str):
        assert isinstance(got["python"], str) and isinstance(got["jvm"], str), got
        return "refused"
    assert got["jvm"] == got["python"]
    return got["jvm"]


def _rows(spark, root: str, options: dict[str, str]) -> list[tuple[str, int, int]]:
    """The rows (topic, partition, offset) both engines read, which must be the same rows, value for value."""
    out = {}
    for fmt in ("kvlog_python", "kvlog"):
        df = spark.read.format(fmt).options(**options).load(root)
        out[fmt] = sorted((tuple(r) for r in df.collect()), key=lambda r: (r[2], r[3], r[4]))
    assert out["kvlog"] == out["kvlog_python"]
    return [(r[2], r[3], r[4]) for r in out["kvlog"]]


def _check(spark, root: str, topic: str, want: dict[int, int | None], target: int,
           extra: dict[str, str] | None = None) -> None:
    """``startingTimestamp`` and ``endingTimestamp`` = ``target`` on ``topic``: kvlog's answer per partition is
    ``want`` (Kafka's), both planners start (end) there and both engines read the same rows."""
    for p, offset in want.items():
        assert _kvlog(root, topic, p, target) == offset, (topic, p)
    extra = extra or {}
    first = {p: _kvlog(root, topic, p, kvlog.EARLIEST) for p in want}
    last = {p: _kvlog(root, topic, p, kvlog.LATEST) for p in want}
    rows = _data_offsets(root, topic, want, extra)
    base = {"subscribe": topic, **extra}
    starting = {**base, "startingTimestamp": str(target)}
    if any(o is None for o in want.values()):
        assert _plans(spark, root, starting) == "refused"
    else:
        assert _plans(spark, root, starting) == sorted(
            (topic, p, s, last[p]) for p, s in want.items() if s < last[p])
        assert _rows(spark, root, starting) == sorted(
            (topic, p, o) for p, s in want.items() for o in rows[p] if o >= s)
    ending = {**base, "endingTimestamp": str(target)}
    ends = {p: last[p] if e is None else e for p, e in want.items()}
    assert _plans(spark, root, ending) == sorted(
        (topic, p, first[p], e) for p, e in ends.items() if e > first[p])
    assert _rows(spark, root, ending) == sorted((topic, p, o) for p, e in ends.items() for o in rows[p] if o < e)


def _data_offsets(root: str, topic: str, want: dict[int, Any], extra: dict[str, str]) -> dict[int, list[int]]:
    """Per partition, the offsets of the data records a read of the whole partition gives (the isolation level
    of ``extra``), by kvlog's log API."""
    iso = extra.get("kafka.isolation.level", "read_uncommitted")
    out = {}
    for p in want:
        with kvlog.Log.open(os.path.join(root, f"{topic}-{p}"), read_only=True) as log:
            out[p] = log.to_arrow(isolation_level=iso).column("offset").to_pylist()
    return out


# ---------------------------------------------------------------------------------------- the layouts
def test_marker_is_the_only_entry_at_or_after_the_target(jvm, data):
    """The reproduction: kvlog_python read 0 rows, the JVM scan raised "no record … at or after"."""
    _check(jvm, data, "only", {0: 1}, T0 + 50)
    _check(jvm, data, "only", {0: 1}, T0 + 100)
    _check(jvm, data, "only", {0: None}, T0 + 101)
    for ts, want in ((T0 + 50, [("only", 0, 1, 2)]), (T0 + 101, [])):  # latest: only when nothing answers
        latest = {"subscribe": "only", "startingTimestamp": str(ts), "startingOffsetsByTimestampStrategy": "latest"}
        assert _plans(jvm, data, latest) == want
        assert _rows(jvm, data, latest) == []


def test_marker_followed_by_data(jvm, data):
    _check(jvm, data, "then", {0: 2}, T0 + 50)
    _check(jvm, data, "then", {0: 2}, T0 + 2)
    _check(jvm, data, "then", {0: 4}, T0 + 101)
    by_ts = {"subscribe": "then", "startingOffsetsByTimestamp": json.dumps({"then": {"0": T0 + 50}}),
             "endingOffsetsByTimestamp": json.dumps({"then": {"0": T0 + 150}})}
    assert _plans(jvm, data, by_ts) == [("then", 0, 2, 4)]
    assert _rows(jvm, data, by_ts) == [("then", 0, 3)]


def test_marker_in_a_later_segment(jvm, data):
    _check(jvm, data, "later", {0: 5}, T0 + 50)
    _check(jvm, data, "later", {0: 7}, T0 + 101)


@pytest.mark.parametrize("isolation", ["read_uncommitted", "read_committed"])
def test_aborted_transaction_marker(jvm, data, isolation):
    _check(jvm, data, "aborted", {0: 3}, T0 + 50, {"kafka.isolation.level": isolation})


def test_log_append_time_marker(jvm, data):
    _check(jvm, data, "lat", {0: 2}, T0 + 50)
    _check(jvm, data, "lat", {0: 2}, T0 + 11)
    _check(jvm, data, "lat", {0: 0}, T0 + 10)
    _check(jvm, data, "lat", {0: 4}, T0 + 101)


def test_ties_go_to_the_first_entry(jvm, data):
    _check(jvm, data, "tie", {0: 1, 1: 1}, T0 + 50)
    _check(jvm, data, "tie", {0: 1, 1: 1}, T0 + 6)


# ------------------------------------------------------------------------------- the largest timestamp
def test_max_timestamp_counts_batches_below_the_log_start(jvm, data):
    """Kafka's MAX_TIMESTAMP answers the record at offset 0 (below the log start offset 2, still in a segment
    file): a read from there meets failOnDataLoss, in both engines alike."""
    for p in (0, 1):
        assert _kvlog(data, "maxstart", p, kvlog.MAX_TIMESTAMP) == 0
        with kvlog.Log.open(os.path.join(data, f"maxstart-{p}"), read_only=True) as log:
            assert log.log_start_offset == 2
            assert tuple(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)) == (0, T0 + 500)
    options = {"subscribe": "maxstart", "startingTimestamp": "-3"}
    refused = _plans(jvm, data, options)
    assert refused == "refused"
    lenient = {**options, "failOnDataLoss": "false"}
    assert _plans(jvm, data, lenient) == [("maxstart", 0, 2, 6), ("maxstart", 1, 2, 4)]
    assert _rows(jvm, data, lenient) == [("maxstart", 0, o) for o in range(2, 6)] + [("maxstart", 1, 2),
                                                                                      ("maxstart", 1, 3)]
    ending = {"subscribe": "maxstart", "endingTimestamp": "-3", "failOnDataLoss": "false"}
    assert _plans(jvm, data, ending) == []
    assert _rows(jvm, data, ending) == []


def test_max_timestamp_answers_the_control_record_not_the_batch(jvm, data):
    """A control batch of two records holding the largest timestamp on its second: Kafka's
    ``offsetOfMaxTimestamp`` answers that record's offset (2), not the batch's base offset (1)."""
    with kvlog.Log.open(os.path.join(data, "maxctl-0"), read_only=True) as log:
        assert tuple(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)) == (2, T0 + 100)
    options = {"subscribe": "maxctl", "startingTimestamp": "-3"}
    assert _plans(jvm, data, options) == [("maxctl", 0, 2, 4)]
    assert _rows(jvm, data, options) == [("maxctl", 0, 3)]
    ending = {"subscribe": "maxctl", "endingTimestamp": "-3"}
    assert _plans(jvm, data, ending) == [("maxctl", 0, 0, 2)]
    assert _rows(jvm, data, ending) == [("maxctl", 0, 0)]
    # an ordinary target inside the batch: its first record at or after the target, the control record at 2
    _check(jvm, data, "maxctl", {0: 2}, T0 + 50)
