"""Retention with Kafka's own as the reference, on the same input and clock.

Each case is one partition of a topic whose config is under test: retention by time (``retention.ms``), by size
(``retention.bytes``), both, with ``compact,delete``, and by log start offset (DeleteRecords through the admin
API). The input is a log kvlog wrote: segments whose record timestamps sit an hour on either side of the cut
(the broker's clock is real time), LogAppendTime batches, v0 segments (no timestamps: their age is the file's
modification time, set here), an empty segment between two others, every segment old. The broker
(``log.retention.check.interval.ms`` 1000) applies retention until nothing changes; kvlog's
``Log.delete_old_segments`` (and ``delete_records``) runs on a copy of the same input at the same ``now``.
Both must keep the same segments, byte for byte, and the same log start offset.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from kvlog import Log, LogConfig, Record, encode_batch
from kvlog.checkpoint import read_offsets
from tests.kafka_oracle import reference as R
from tests.kafka_oracle.broker import version_tuple

pytestmark = pytest.mark.broker

HOUR = 3_600_000
VERSIONS = ("2.8.2", "3.7.2", "4.1.2", "4.4.0")


class Writer:
    def __init__(self, d: Path, now: int, compact: bool = False):
        self.log = Log.open(d, LogConfig(cleanup_policy="compact,delete" if compact else "delete", retention_ms=-1))
        self.now = now
        self.mtimes: dict[int, int] = {}  # segment base offset -> mtime (ms) to set after writing

    @property
    def next(self) -> int:  # after a roll past an offset gap, the new segment's base
        return max(self.log.log_end_offset, self.log.active_segment.base_offset)

    def batch(self, age: int, n: int = 3, lat: bool = False) -> None:
        """``n`` records, the newest ``age`` ms old."""
        t = self.now - age
        recs = [Record(b"k%d" % (self.next + i), b"v" * 40, t - (n - 1 - i)) for i in range(n)]
        kw: dict[str, Any] = {"timestamp_type": "LogAppendTime", "log_append_time": t} if lat else {}
        self.log.append(encode_batch(recs, base_offset=self.next, **kw), assign_offsets=False)

    def v0(self, mtime_age: int, n: int = 3) -> None:
        """v0 messages (no timestamp): the segment ages by its modification time, ``mtime_age`` ms ago."""
        recs = [Record(b"k%d" % (self.next + i), b"v" * 40) for i in range(n)]
        self.mtimes[self.log.active_segment.base_offset] = self.now - mtime_age
        self.log.append(encode_batch(recs, magic=0, base_offset=self.next), assign_offsets=False)

    def roll(self, gap: int = 0) -> None:
        self.log.roll(self.next + gap if gap else None)

    def close(self) -> None:
        self.log.close()
        for base, ms in self.mtimes.items():
            path = self.log.dir + f"/{base:020d}.log"
            os.utime(path, (ms / 1000, ms / 1000))


OLD, NEW = 2 * HOUR, 10 * 60_000  # either side of a one-hour retention.ms, by far more than a test takes


def layout(*segments: str) -> Callable[[Writer], None]:
    """Segments by age: "old"/"new" (two batches each), "lat-old" (LogAppendTime), "v0-old"/"v0-new" (mtime),
    "mixed" (an old batch, then a new one), "empty" (an empty segment: a roll leaving an offset gap), "future"."""
    def build(w: Writer) -> None:
        for i, kind in enumerate(segments):
            if i:
                w.roll(gap=5 if segments[i - 1] == "empty" else 0)
            if kind == "old":
                w.batch(OLD + 1000)
                w.batch(OLD)
            elif kind == "new":
                w.batch(NEW + 1000)
                w.batch(NEW)
            elif kind == "lat-old":
                w.batch(OLD, lat=True)
            elif kind == "v0-old":
                w.v0(OLD)
            elif kind == "v0-new":
                w.v0(NEW)
            elif kind == "mixed":
                w.batch(OLD)
                w.batch(NEW)
            elif kind == "future":
                w.batch(-HOUR)
            elif kind == "empty":
                w.mtimes[w.log.active_segment.base_offset] = w.now - OLD
            else:
                raise ValueError(kind)
    return build


@dataclass
class Topic:
    config: dict[str, Any]
    cases: dict[str, Callable[[Writer], None]]
    delete_records: dict[str, int] | None = None  # case -> DeleteRecords offset


SEG = 420  # bytes of an "old"/"new" segment: two batches of three records (keys of 2-3 bytes, 40-byte values)
TOPICS: dict[str, Topic] = {
    "time": Topic({"retention.ms": HOUR}, {
        "old-old-new": layout("old", "old", "new"),
        "old-new-old": layout("old", "new", "old"),
        "all-old": layout("old", "old", "old"),
        "mixed": layout("mixed", "old", "new"),
        "lat": layout("lat-old", "lat-old", "new"),
        "v0": layout("v0-old", "v0-old", "v0-new", "v0-new"),
        "empty-between": layout("old", "empty", "old", "new"),
        "future": layout("future", "old", "new"),
    }),
    "size": Topic({"retention.bytes": int(2.5 * SEG)}, {
        "four": layout("new", "new", "new", "new"),
        "two": layout("new", "new"),
        "empty-between": layout("new", "empty", "new", "new", "new"),
    }),
    "size0": Topic({"retention.bytes": 0}, {"three": layout("new", "new", "new")}),
    "both": Topic({"retention.ms": HOUR, "retention.bytes": int(2.5 * SEG)}, {
        "old-new": layout("old", "new", "new", "new", "new"),
        "new-old": layout("new", "old", "new", "new", "new"),
    }),
    "compact-delete": Topic({"retention.ms": HOUR, "cleanup.policy": "compact,delete",
                             "min.cleanable.dirty.ratio": "0.99", "min.compaction.lag.ms": 10 * HOUR},
                            {"old-old-new": layout("old", "old", "new")}),
    "start": Topic({}, {"mid-segment": layout("new", "new", "new"), "boundary": layout("new", "new", "new"),
                        "end": layout("new", "new", "new"), "first": layout("new", "new")},
                   delete_records={"mid-segment": 7, "boundary": 6, "end": 18, "first": 2}),
}


def kvlog_config(cfg: dict[str, Any]) -> LogConfig:
    return LogConfig.from_properties({"retention.ms": "-1", **{k: str(v) for k, v in cfg.items()}})


def log_start(data: Path, topic: str, p: int, files: dict[str, bytes]) -> int:
    """The broker's log start offset: its checkpoint's entry, else its first segment's base offset."""
    try:
        table = read_offsets(str(data / "log-start-offset-checkpoint"))
    except (OSError, ValueError):
        table = {}
    first = min((int(n[:20]) for n in files), default=0)
    return max(table.get((topic, p), first), first)


def settled(data: Path, parts: list[tuple[str, int]], quiet: float = 3.0, timeout: float = 90) -> None:
    """Wait until no partition's segments changed for ``quiet`` seconds (three retention checks)."""
    def snapshot() -> list[tuple[str, ...]]:
        return [tuple(sorted(f.name for f in (data / f"{t}-{p}").glob("*.log"))) for t, p in parts]

    last, since, deadline = snapshot(), time.monotonic(), time.monotonic() + timeout
    while time.monotonic() - since < quiet:
        if time.monotonic() > deadline:
            raise TimeoutError("the broker's retention kept changing the segments")
        time.sleep(0.25)
        now = snapshot()
        if now != last:
            last, since = now, time.monotonic()


def delete_records(bootstrap: str, deletes: dict[tuple[str, int], int], timeout: float = 60) -> None:
    """DeleteRecords through the admin API, retried while the partitions' leaders are not known yet (ZooKeeper
    brokers serve metadata a moment after they start)."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError
    from kafka.structs import TopicPartition

    deadline = time.monotonic() + timeout
    while True:
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
        try:
            admin.delete_records({TopicPartition(t, p): off for (t, p), off in deletes.items()})
            return
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
        finally:
            admin.close()


def run(version: str, work: Path) -> list[str]:
    dist = R.dist_or_skip(version)
    now = int(time.time() * 1000)
    kv = work / "kvlog"
    parts = [(t, p) for t, topic in TOPICS.items() for p in range(len(topic.cases))]

    def write(data: Path) -> None:
        for t, topic in TOPICS.items():
            for p, build in enumerate(topic.cases.values()):
                w = Writer(data / f"{t}-{p}", now, compact="compact" in str(topic.config.get("cleanup.policy")))
                build(w)
                w.close()
        R.copy_partitions(data, kv)

    topics = {t: (len(topic.cases), {"segment.bytes": 1 << 20, **topic.config}) for t, topic in TOPICS.items()}
    with R.broker_on(dist, work / "broker", topics, write) as broker:
        deletes = {(t, p): off for t, topic in TOPICS.items() for p, name in enumerate(topic.cases)
                   if topic.delete_records and (off := topic.delete_records.get(name)) is not None}
        started = time.monotonic()
        if deletes:
            delete_records(broker.bootstrap, deletes)
        if version_tuple(version) < (3, 8):  # no log.initial.task.delay.ms: the first check is 30 s after start
            time.sleep(max(0.0, 31 - (time.monotonic() - started)))
        settled(broker.data, parts)
        checked_at = int(time.time() * 1000)
    problems = []
    for t, topic in TOPICS.items():
        for p, name in enumerate(topic.cases):
            broker_files = R.log_files(broker.data / f"{t}-{p}")
            broker_start = log_start(broker.data, t, p, broker_files)
            d = kv / f"{t}-{p}"
            with Log.open(d, kvlog_config(topic.config), time=lambda: checked_at) as log:
                if (t, p) in deletes:
                    log.delete_records(deletes[(t, p)])
                log.delete_old_segments(now_ms=checked_at)
                kv_start = log.log_start_offset
            kv_files = R.log_files(d)
            if (broker_files, broker_start) != (kv_files, kv_start):
                problems.append(f"{t}/{name}: broker kept {sorted(broker_files)} from {broker_start}, kvlog "
                                f"{sorted(kv_files)} from {kv_start}")
    return problems


@pytest.mark.parametrize("version", R.versions(*VERSIONS, group="retention"))
def test_retention_deletes_what_the_broker_deletes(version):
    with R.scratch(f"retention-{version}") as work:
        problems = run(version, work)
        assert problems == [], "\n".join(problems)
