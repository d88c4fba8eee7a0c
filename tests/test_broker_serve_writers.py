"""kvlog writes, Kafka serves: a real broker started on partitions kvlog's writers wrote.

For Kafka 3.7.2 (ZooKeeper), 4.1.2 and 4.4.0 (KRaft), one broker per version serves, from one start, a topic
per writer: ``Log`` appends (every codec, headers, null keys and values, out-of-order timestamps, rolled by
size), ``LogManager`` appends (LogAppendTime; rolled by time), batches stamped with a leader epoch,
idempotent and transactional batches with COMMIT/ABORT markers, ``kvlog mirror`` of a broker-written and of
a kvlog-written partition, kvlog's cleaner (offset, timestamp and header strategies, two passes, tombstones
and markers past their horizon) and the two Spark sinks (JVM ``kvlog``, Python ``kvlog_python``).

The procedure (``serve()`` does exactly this):

1. start the cluster and create the topics through the admin API (any configs), so the metadata knows them and
   each partition directory holds ``partition.metadata`` with the topic's id. KRaft keeps its metadata log in
   the data directory (Kafka's default, ``metadata.log.dir`` unset), where kvlog's sinks and ``LogManager``
   take the topics' configs from; kvlog cannot read a ZooKeeper cluster's, so there they go into
   ``kvlog-topics.json``. The broker-written topic the mirror copies is produced now;
2. stop the broker cleanly (SIGTERM: ``.kafka_cleanshutdown`` is left, with the broker epoch on 3.7+);
3. let kvlog write into those partition directories, in place: appends, mirror, cleaner, sinks (no kvlog
   process may still hold a partition, and no sink job be running or have failed leaving files);
4. start the broker again. Nothing of kvlog's is removed or rewritten for it: ``partition.metadata``,
   ``leader-epoch-checkpoint``, the producer snapshots, indexes and root checkpoints kvlog keeps are what the
   broker loads, the clean-shutdown marker kvlog leaves as it found it, and its own files (``kvlog-topics.json``,
   ``kvlog-committed-offsets.*``, ``.kvlog.lock``, ``.kvlog-checkpoints.lock``, ``mirror-checkpoint``) are
   ignored by the broker.

What is checked, per version and writer: the broker loads every partition without recovering, truncating,
renaming or rebuilding anything, and elects it cleanly (its log lines; every ``.log`` file byte for byte after
it stops, and exactly which other files it changed); Kafka's consumer reads what ``Log.records()`` reads, both
isolation levels, with every field; DumpLogSegments shows the producer fields kvlog wrote, and
DescribeProducers the producer state kvlog's snapshots hold; ListOffsets (sampled timestamps, max-timestamp)
answers as ``Log.offset_for_timestamp``; a record produced through the broker lands right after kvlog's last
offset with the broker's leader epoch, and kvlog reads it afterwards; DumpLogSegments' ``--deep-iteration
--index-sanity-check`` and ``--verify-index-only`` pass on every file kvlog wrote (a copy taken before the
broker started).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
import random
import re
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import kvlog
from kvlog import Record
from kvlog.cleaner import LogCleaner
from kvlog.log import Log
from kvlog.records import MemoryRecords, encode_batch
from tests.kafka_oracle import client
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import Broker, KafkaDist, version_tuple
from tests.kafka_oracle.serve import create_topics, suspicious_lines

VERSIONS = ("3.7.2", "4.1.2", "4.4.0")
#: One broker per version for the whole run (see ``served``).
PARAMS = [pytest.param(v, id=f"kafka-{v}", marks=pytest.mark.xdist_group(f"serve-writers-{v}")) for v in VERSIONS]
pytestmark = [pytest.mark.broker, pytest.mark.parametrize("served", PARAMS, indirect=True, scope="module")]

with warnings.catch_warnings():  # kafka-python (the harness's admin client) loads its schemas a deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka  # noqa: F401

DAY = 86_400_000
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
#: kvlog's producer ids: far from the ids a cluster hands out (from 0, a block of 1000 at a time), which a
#: broker would take for the same producer (its next sequence would then be out of order).
PID = 7_000_000


def min_segment_bytes(version: str) -> int:
    return (1 << 20) if version_tuple(version) >= (4, 0) else 16384


@dataclass
class Topic:
    partitions: int
    writer: str
    configs: dict[str, Any] = field(default_factory=dict)
    kvlog: bool = True  # written by kvlog (else by the broker: the mirror's source)


def topics_for(version: str) -> dict[str, Topic]:
    seg = min_segment_bytes(version)
    compact = {"cleanup.policy": "compact", "segment.bytes": seg}
    return {
        "appends": Topic(len(CODECS), "Log.append", {"segment.bytes": seg}),
        "epochs": Topic(1, "Log.append (batches with a leader epoch)"),
        "appends-lat": Topic(1, "LogManager (LogAppendTime)", {"message.timestamp.type": "LogAppendTime"}),
        "rolled-time": Topic(1, "LogManager (segment.ms)", {"segment.ms": 60_000}),
        "txn": Topic(2, "Log.append + end_transaction", {"segment.bytes": seg}),
        "source": Topic(1, "the broker (Java producer)", kvlog=False),
        "mirror-broker": Topic(1, "kvlog mirror (of a broker's partition)"),
        "mirror-kvlog": Topic(1, "kvlog mirror (of a kvlog partition)"),
        "compact-offset": Topic(1, "LogCleaner (offset)", compact),
        "compact-timestamp": Topic(1, "LogCleaner (timestamp)", compact),
        "compact-header": Topic(1, "LogCleaner (header)", compact),
        "jvm-sink": Topic(2, "JVM sink (format kvlog)", {"segment.bytes": seg}),
        "py-sink": Topic(2, "Python sink (format kvlog_python)", {"segment.bytes": seg}),
    }


# ------------------------------------------------------------------------------------------------ writers
def write_appends(data: Path, now: int) -> None:
    """Log appends, a codec per partition: 1-6 records a batch, headers (a null value, a repeated key), null
    keys and values, timestamps a little out of order, segments rolled by size (kvlog's segment.bytes, below
    the broker's minimum: a broker serves segments of any size)."""
    cfg = kvlog.LogConfig(segment_bytes=4096)
    rng = random.Random(7)
    for p, codec in enumerate(CODECS):
        with Log.open(data / f"appends-{p}", cfg) as log:
            i = 0
            for b in range(45):
                recs = []
                for _ in range(1 + b % 6):
                    key = None if i % 9 == 4 else b"key-%d" % (i % 17)
                    value = None if i % 13 == 7 else b"value %d " % i * (1 + i % 5) + rng.randbytes(8)
                    headers = (("h", b"%d" % i), ("n", None), ("h", b"again")) if i % 5 == 0 else ()
                    ts = now - 600_000 + i * 250 - (5_000 if i % 11 == 10 else 0)
                    recs.append(Record(key, value, ts, headers))
                    i += 1
                log.append(recs, compression=codec)


def write_epochs(data: Path, now: int) -> None:
    """Pre-encoded batches stamped with leader epoch 0 (the epoch the topic was created at), as a leader
    stamps them; kvlog's own encodings carry none (-1)."""
    with Log.open(data / "epochs-0", kvlog.LogConfig(segment_bytes=2048)) as log:
        for b in range(20):
            log.append(encode_batch([Record(b"e%d" % b, b"epoch zero " * 8, now - 60_000 + b)],
                                    partition_leader_epoch=0, compression="lz4" if b % 2 else "none"))
        log.append([Record(b"plain", b"no epoch", now - 59_000)])  # then one without


def write_manager(data: Path, now: int) -> None:
    """LogManager appends with each topic's configs as the manager resolves them (the broker's metadata on
    KRaft, kvlog-topics.json on ZooKeeper): LogAppendTime; segment.ms rolls by record time."""
    with kvlog.LogManager(data) as mgr:
        lat = mgr.log("appends-lat", 0)
        assert lat.config.message_timestamp_type == kvlog.TimestampType.LOG_APPEND_TIME
        for b in range(12):
            lat.append([Record(b"l%d" % (b * 3 + k), b"appended at" * 3, now - 500_000, (("b", b"%d" % b),))
                        for k in range(3)], compression="gzip" if b % 3 else "none")
        rolled = mgr.log("rolled-time", 0)
        assert rolled.config.segment_ms == 60_000
        for i in range(40):  # 15 s apart: a segment every five records (a roll once more than segment.ms)
            rolled.append([Record(b"t%d" % i, b"rolled by time", now - 900_000 + i * 15_000)])
        assert len(rolled.segments) == 8


class Producers:
    """Idempotent and transactional appends with the right sequences, markers from a 'coordinator'."""

    def __init__(self, log: Log, now: int):
        self.log, self.now, self.i = log, now, 0
        self.seq: dict[tuple[int, int], int] = {}

    def records(self, n: int) -> list[Record]:
        out = [Record(b"k%d" % ((self.i + k) % 7), b"v%d-" % (self.i + k) * 12, self.now - 300_000 + (self.i + k) * 100,
                      (("i", b"%d" % (self.i + k)),)) for k in range(n)]
        self.i += n
        return out

    def plain(self, n: int) -> None:
        self.log.append(self.records(n))

    def send(self, pid: int, epoch: int, n: int, txn: bool = False, codec: str = "none") -> None:
        s = self.seq.get((pid, epoch), 0)
        self.log.append(self.records(n), producer_id=pid, producer_epoch=epoch, base_sequence=s,
                        is_transactional=txn, compression=codec)
        self.seq[(pid, epoch)] = s + n

    def end(self, pid: int, epoch: int, commit: bool, coordinator_epoch: int) -> None:
        self.log.end_transaction(pid, epoch, commit, coordinator_epoch, timestamp=self.now - 300_000 + self.i * 100)


def write_txn(data: Path, now: int) -> None:
    """txn-0: idempotent batches, interleaved transactions committed and aborted, an epoch bump, ending with
    a COMMIT; txn-1 the same ending with an ABORT, then a marker with the largest timestamp (the broker's
    clock at its end, as a coordinator's)."""
    cfg = kvlog.LogConfig(segment_bytes=4096)
    for p in (0, 1):
        with Log.open(data / f"txn-{p}", cfg) as log:
            w = Producers(log, now)
            a, b, c, idem = PID + 10 * p + 1, PID + 10 * p + 2, PID + 10 * p + 3, PID + 10 * p + 4
            for r in range(4):
                w.plain(2)
                w.send(idem, 0, 3, codec="lz4")
                w.send(a, r // 2, 2, txn=True)
                w.send(b, 0, 1, txn=True, codec="zstd")
                w.send(idem, 0, 2)
                w.send(a, r // 2, 2, txn=True, codec="gzip")
                w.end(a, r // 2, commit=r % 2 == 0, coordinator_epoch=3 + r)
                w.send(b, 0, 2, txn=True)
                w.end(b, 0, commit=r % 2 == 1, coordinator_epoch=3 + r)
            w.send(c, 0, 3, txn=True, codec="snappy")
            w.plain(1)
            w.end(c, 0, commit=p == 0, coordinator_epoch=9)
            if p == 1:
                log.end_transaction(c, 0, True, 9, timestamp=now)  # a marker of no open transaction, last


def compacted(data: Path, topic: str, strategy: str, now: int) -> None:
    """Duplicates, tombstones, a committed and an aborted transaction, cleaned twice: the first pass two days
    ago (delete.retention.ms is a day), so the second removes what the first kept past its horizon."""
    cfg = kvlog.LogConfig(cleanup_policy="compact", segment_bytes=2048, delete_retention_ms=DAY,
                          compaction_strategy=strategy,
                          compaction_strategy_header="version" if strategy == "header" else "")
    clock = [now - 2 * DAY - 60_000]
    with Log.open(data / f"{topic}-0", cfg, time=lambda: clock[0]) as log:
        rng = random.Random(strategy)

        def put(i: int, key: int, value: bytes | None, **producer: Any) -> None:
            version = rng.randrange(0, 50)
            ts = clock[0] + rng.randrange(0, 30_000)
            log.append([Record(b"key-%d" % key, value, ts, (("version", version.to_bytes(8, "big", signed=True)),))],
                       **producer)

        for rnd in range(2):
            for i in range(60):
                key = i % 15
                put(i, key, None if i % 17 == 16 else b"round %d value %d " % (rnd, i) * 4)
            pid = PID + 100 + rnd
            for k in range(3):
                put(100 + k, 20 + k, b"in a transaction", producer_id=pid, producer_epoch=0, base_sequence=k,
                    is_transactional=True)
            log.end_transaction(pid, 0, commit=rnd == 0, coordinator_epoch=1, timestamp=clock[0] + 31_000)
            log.roll()
            LogCleaner().clean(log, now_ms=clock[0] + 60_000)
            clock[0] = now - 60_000


def write_sinks(data: Path, now: int, spark: Any, seg: int) -> None:
    """Two jobs through each Spark sink (codecs, headers, null keys; keyed rows routed by murmur2), the topics'
    segment.bytes from the broker's metadata (KRaft) or kvlog-topics.json (ZooKeeper), so segments roll."""
    from pyspark.sql import types as T

    headers = T.ArrayType(T.StructType([T.StructField("key", T.StringType()),
                                        T.StructField("value", T.BinaryType())]))
    schema = T.StructType([T.StructField("key", T.BinaryType()), T.StructField("value", T.BinaryType()),
                           T.StructField("headers", headers), T.StructField("timestamp", T.DoubleType())])
    rng = random.Random(11)
    for fmt, topic, codecs in (("kvlog", "jvm-sink", ("lz4", "zstd")), ("kvlog_python", "py-sink", ("gzip", "snappy"))):
        for job, codec in enumerate(codecs):
            n = 2 * seg // 1024 // len(codecs) + 40  # values of 1 KiB that do not compress: > 2 segments a partition
            rows = [(None if i % 23 == 5 else b"%s-%d-%d" % (topic.encode(), job, i), rng.randbytes(1024),
                     [("job", b"%d" % job), ("n", None)] if i % 4 == 0 else [],
                     (now - 200_000 + job * 50_000 + i) / 1000.0) for i in range(n)]
            (spark.createDataFrame(rows, schema).coalesce(1).write.format(fmt).mode("append")
             .option("topic", topic).option("compression", codec).save(str(data)))


def kvlog_cli(*args: str) -> None:
    from kvlog.cli import main

    assert main(list(args)) == 0, args


# ------------------------------------------------------------------------------------------------ views
def sampled_timestamps(recs: list[tuple[Any, ...]], markers: list[int]) -> list[int]:
    stamps = sorted({r[3] for r in recs} | set(markers))
    picked = set(stamps[:: max(1, len(stamps) // 12)]) | {stamps[-1]} if stamps else set()
    out = set()
    for t in picked:
        out |= {t - 1, t, t + 1}
    return sorted(out)


@dataclass
class View:
    """What kvlog reads from its own files for one partition."""

    log_start: int
    log_end: int
    read_uncommitted: list[tuple[Any, ...]]
    read_committed: list[tuple[Any, ...]]
    batches: dict[str, list[dict[str, Any]]]  # per .log file name
    epochs: dict[int, int]  # offset -> partition leader epoch (-1: none)
    timestamps: dict[int, tuple[int, int]]
    max_timestamp: tuple[int, int]
    max_timestamp_batch_last: int
    producers: list[dict[str, Any]]
    leader_epochs: list[tuple[int, int]]


def answer(found: Any) -> tuple[int, int]:
    return (-1, -1) if found is None else (found.offset, found.timestamp)


def kvlog_view(path: Path) -> View:
    with Log.open(path, read_only=True) as log:
        ru = F.record_tuples(log.records())
        rc = F.record_tuples(log.records(isolation_level=kvlog.READ_COMMITTED))
        batches: dict[str, list[dict[str, Any]]] = {}
        epochs: dict[int, int] = {}
        markers = []
        for seg in log.segments:
            name = f"{seg.base_offset:020d}.log"
            rows = []
            for b in MemoryRecords((path / name).read_bytes()).batches():
                rows.append({"baseOffset": b.base_offset, "lastOffset": b.last_offset, "count": b.record_count,
                             "baseSequence": b.base_sequence, "lastSequence": b.last_sequence,
                             "producerId": b.producer_id, "producerEpoch": b.producer_epoch,
                             "partitionLeaderEpoch": b.partition_leader_epoch,
                             "isTransactional": b.is_transactional, "isControl": b.is_control,
                             "magic": b.magic, "compresscodec": b.compression.name.lower(),
                             "deleteHorizonMs": b.delete_horizon_ms})
                for o in range(b.base_offset, b.last_offset + 1):
                    epochs[o] = b.partition_leader_epoch
                if b.is_control:
                    markers.append(b.max_timestamp)
            batches[name] = rows
        stamps = sampled_timestamps(ru, markers)
        top = log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)
        top_last = -1
        if top is not None:
            for b in log.read(top.offset, 1 << 20).batches():
                if b.base_offset <= top.offset <= b.last_offset:
                    top_last = b.last_offset
                    break
        producers = [{"producer_id": pid, "producer_epoch": e.producer_epoch, "last_sequence": e.last_seq,
                      "last_timestamp": e.last_timestamp,
                      "coordinator_epoch": None if e.coordinator_epoch < 0 else e.coordinator_epoch,
                      "current_txn_start_offset": None if e.current_txn_first_offset < 0 else e.current_txn_first_offset}
                     for pid, e in sorted(log.producer_state.producers.items())]
        return View(log.log_start_offset, log.log_end_offset, ru, rc, batches, epochs,
                    {t: answer(log.offset_for_timestamp(t)) for t in stamps}, answer(top), top_last, producers,
                    [tuple(e) for e in log.leader_epochs])  # type: ignore[misc]


# ------------------------------------------------------------------------------------------------ serving
def listing(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@dataclass
class Served:
    version: str
    topics: dict[str, Topic]
    partitions: list[str]  # kvlog-written "topic-p"
    load_log: str
    before: dict[str, str]  # data directory listing (relative path -> sha256) before the second start
    after: dict[str, str]  # after the broker stopped
    data: Path
    copy: Path
    sizes: dict[str, int]  # kvlog's .log files' sizes
    views: dict[str, View]
    answers: dict[str, Any]
    leader_epoch: dict[str, int]  # the broker's leader epoch of each partition once it served
    epoch_checkpoints: dict[str, bytes]  # after the stop
    dump: str
    dump_err: str
    verify: str
    verify_err: str
    skipped_sinks: str | None
    seconds: dict[str, float]
    now: int  # when the broker served
    reread: dict[str, list[tuple[Any, ...]]]  # kvlog's Log.records() once the broker stopped


#: A race inside Kafka 4.1's start (seen once in a few runs, on a partition the cleaner has nothing to do with):
#: the retention task, run at once (log.initial.task.delay.ms=0), resumes cleaning it has not paused while the
#: log cleaner starts (LogCleanerManager.resumeCleaning). It concerns no file.
BROKER_RACE = re.compile(r"Compaction for partition \S+ cannot be resumed since it is not paused")
LEADER_LINE = re.compile(r"Leader (\S+) with topic id \S+ starts at leader epoch (\d+)")


def serve(version: str, root: Path, spark: Any) -> Served:
    dist = KafkaDist.find(version)
    assert dist is not None
    kraft = not dist.zookeeper
    topics = topics_for(version)
    t0 = time.monotonic()
    seconds: dict[str, float] = {}
    # KRaft: the metadata log in the data directory (Kafka's default when metadata.log.dir is not set)
    broker = Broker(dist, root, extra={"metadata.log.dir": str(root / "data")} if kraft else {})
    now = int(time.time() * 1000)
    try:
        broker.start()
        ids = create_topics(broker, {t: (d.partitions, d.configs) for t, d in topics.items()})
        src = [["source", 0, client.b64(b"s%d" % i), client.b64(b"broker wrote %d " % i * 5), now - 100_000 + i,
                [["h", client.b64(b"%d" % i)]] if i % 3 else []] for i in range(30)]
        client.run(broker.bootstrap, [
            {"op": "produce", "records": src[:20], "compression": "gzip"},
            {"op": "produce", "name": "txn", "transactional_id": "source-txn", "transactions": [
                {"records": src[20:25], "commit": True}, {"records": src[25:], "commit": False}]}],
            root / "client")
        broker.stop()
        seconds["first life"] = time.monotonic() - t0
        data = broker.data
        t1 = time.monotonic()
        if not kraft:  # kvlog cannot read ZooKeeper: the topics' configs go into kvlog's topic table
            table = {t: {"partitions": d.partitions, "topic_id": ids[t],
                         "config": {k: str(v) for k, v in d.configs.items()}} for t, d in topics.items()}
            (data / "kvlog-topics.json").write_text(json.dumps(table, indent=1, sort_keys=True))
        write_appends(data, now)
        write_epochs(data, now)
        write_manager(data, now)
        write_txn(data, now)
        for strategy in ("offset", "timestamp", "header"):
            compacted(data, f"compact-{strategy}", strategy, now)
        kvlog_cli("mirror", str(data / "source-0"), str(data / "mirror-broker-0"))
        kvlog_cli("mirror", str(data / "appends-4"), str(data / "mirror-kvlog-0"))
        seconds["kvlog writes"] = time.monotonic() - t1
        skipped_sinks = None
        if spark is None:
            skipped_sinks = "pyspark is not installed: the sinks' topics are not written"
            topics = {t: d for t, d in topics.items() if not t.endswith("-sink")}
        else:
            t1 = time.monotonic()
            write_sinks(data, now, spark, min_segment_bytes(version))
            seconds["sinks"] = time.monotonic() - t1
        parts = [f"{t}-{p}" for t, d in topics.items() if d.kvlog for p in range(d.partitions)]
        views = {tp: kvlog_view(data / tp) for tp in parts}
        copy = root / "copy"
        for tp in parts:
            shutil.copytree(data / tp, copy / tp)
        sizes = {f"{tp}/{f.name}": f.stat().st_size for tp in parts for f in (data / tp).glob("*.log")}
        before = listing(data)
        mark = len(broker.log_text())
        t1 = time.monotonic()
        broker.start()
        served_at = int(time.time() * 1000)
        served_parts = [[tp.rpartition("-")[0], int(tp.rpartition("-")[2])] for tp in parts]
        stamps = {tp: list(v.timestamps) for tp, v in views.items()}
        answers = client.run(broker.bootstrap, [
            {"op": "read", "name": "read_uncommitted", "partitions": served_parts},
            {"op": "read", "name": "read_committed", "partitions": served_parts, "isolation": "read_committed"},
            {"op": "offsets", "partitions": served_parts, "timestamps": stamps},
            {"op": "producers", "partitions": served_parts},
            {"op": "produce", "records": [[t, p, client.b64(b"after"), client.b64(b"produced through the broker"),
                                           None, [["by", client.b64(b"kafka")]]] for t, p in served_parts]},
            {"op": "read", "name": "after", "partitions": served_parts},
        ], root / "client")
        (root / "answers.json").write_text(json.dumps(answers))  # for a failure's post-mortem
        load_log = text = broker.log_text()[mark:]  # the second life until the stop: its load, elections, appends
        leader_epoch = {m.group(1): int(m.group(2)) for m in LEADER_LINE.finditer(text)}
        broker.stop()
        seconds["second life"] = time.monotonic() - t1
    finally:
        broker.stop_all(kill=True)
    after = listing(data)
    (root / "listings.json").write_text(json.dumps({"before": before, "after": after}))  # (for a post-mortem)
    epoch_checkpoints = {tp: (data / tp / "leader-epoch-checkpoint").read_bytes() for tp in parts}
    reread = {}
    for tp in parts:  # kvlog reads what the broker served, its record too
        with Log.open(data / tp, read_only=True) as log:
            reread[tp] = F.record_tuples(log.records())
    t1 = time.monotonic()
    files = [str(f) for tp in parts for f in sorted((copy / tp).iterdir())
             if f.suffix in (".log", ".index", ".timeindex", ".txnindex", ".snapshot")]
    dump = dist.run_tool(dist.dump_class, "--deep-iteration", "--index-sanity-check", "--files", ",".join(files))
    indexes = [f for f in files if f.endswith((".index", ".timeindex"))]
    verify = dist.run_tool(dist.dump_class, "--verify-index-only", "--files", ",".join(indexes))
    assert dump.returncode == 0 and verify.returncode == 0, (dump.stderr[-3000:], verify.stderr[-3000:])
    seconds["dumps"] = time.monotonic() - t1
    seconds["total"] = time.monotonic() - t0
    return Served(version, topics, parts, load_log, before, after, data, copy, sizes, views, answers, leader_epoch,
                  epoch_checkpoints, dump.stdout, dump.stderr, verify.stdout, verify.stderr, skipped_sinks, seconds,
                  served_at, reread)


def _spark(request: pytest.FixtureRequest) -> Any:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return None
    return request.getfixturevalue("jvm")  # the shared session (tests/conftest.py), both sinks registered


def _serve_once(version: str, shared: Path, request: pytest.FixtureRequest, *, wait: bool) -> Served | None:
    """``version`` served once for the whole run (its result pickled in ``shared``): None when another worker
    is serving it and ``wait`` is false."""
    done = shared / f"serve-writers-{version}.pickle"
    with open(shared / f"serve-writers-{version}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        if done.exists():
            result: Served = pickle.loads(done.read_bytes())
            return result
        root = shared / f"serve-writers-{version}"
        root.mkdir()
        result = serve(version, root, _spark(request))
        (root / "seconds.json").write_text(json.dumps(result.seconds))
        done.write_bytes(pickle.dumps(result))
        return result


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Served:
    """One broker's life per version for the whole run. xdist_group does not keep a version's tests on one
    worker (pytest 9 ignores the ``item._nodeid`` xdist 3.8's loadgroup sets), so the first worker to need a
    version serves it under a file lock and leaves the result for the others; a worker that finds it being
    served serves another version meanwhile, so that two workers serve two versions at once."""
    version = request.param
    reason = F.unavailable(version)
    if reason:
        F._skip_or_fail(reason)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    result = _serve_once(version, shared, request, wait=False)
    if result is None:
        for other in VERSIONS:
            if other != version and not F.unavailable(other):
                _serve_once(other, shared, request, wait=False)
        result = _serve_once(version, shared, request, wait=True)
    assert result is not None
    return result


# -------------------------------------------------------------------------------------------------- tests
def writers(s: Served) -> dict[str, str]:
    return {tp: s.topics[tp.rpartition("-")[0]].writer for tp in s.partitions}


def test_sinks_were_written(served: Served) -> None:
    if served.skipped_sinks:
        pytest.skip(served.skipped_sinks)
    assert {"jvm-sink-0", "py-sink-0"} <= set(served.partitions)


def test_broker_loads_without_touching(served: Served) -> None:
    """No recovery, truncation, stray directory or rebuilt index in what the broker printed while loading, and
    every partition loaded with kvlog's log start and end offsets."""
    s = served
    assert [line for line in suspicious_lines(s.load_log, s.partitions) if not BROKER_RACE.search(line)] == []
    # the broker registered with the broker epoch of its clean shutdown (kvlog kept .kafka_cleanshutdown's
    # bytes): a KRaft controller elects its partitions cleanly
    unclean = [line for line in s.load_log.splitlines() if "UNCLEAN partition change" in line
               and any(f" {tp} " in line for tp in s.partitions)]
    assert unclean == []
    for tp in s.partitions:
        m = re.search(rf"Completed load of Log\(dir=\S*/{re.escape(tp)}, .*?logStartOffset=(\d+), "
                      rf"logEndOffset=(\d+)\)", s.load_log)
        assert m, f"no 'Completed load' line for {tp}"
        view = s.views[tp]
        assert (int(m.group(1)), int(m.group(2))) == (view.log_start, view.log_end), tp
    assert not [p for p in s.data.iterdir() if p.name.endswith(("-stray", "-delete", "-future"))]


def test_log_files_unchanged(served: Served) -> None:
    """Every .log file kvlog wrote is byte for byte what it was once the broker stopped; the last segment of
    each partition gained exactly the broker's one new batch after kvlog's bytes (unless the broker rolled a
    new segment for it: segment.ms)."""
    s = served
    for name, size in s.sizes.items():
        assert name in s.after, f"{name} is gone"
        before = (s.copy / name).read_bytes()
        now = (s.data / name).read_bytes()
        assert now[:size] == before, f"{name}: kvlog's bytes changed"
        if len(now) > size:
            tail = MemoryRecords(now[size:])
            (batch,) = list(tail.batches())
            assert [r.key for r in batch] == [b"after"], name


def test_index_and_checkpoint_changes(served: Served) -> None:
    """What the broker changed besides appending its batch, exactly: in a partition directory, the last
    segment's ``.timeindex`` gains the entry for that batch (kvlog's entries stay, the file trimmed again at the
    stop: the broker resizes the active segment's indexes to segment.index.bytes while it runs), the
    leader-epoch checkpoint its epoch, and there are new ``.snapshot`` files (at its new end on the stop; where
    kvlog left none, the JVM sink's partitions, empty ones at the last two segments' bases, Kafka's
    'no snapshot after a clean shutdown' case); no ``.index``, ``.txnindex``, kvlog ``.snapshot`` or other file
    changes. At the root: the three offset checkpoints, ``.kafka_cleanshutdown`` (4.x: the new broker epoch) and
    4.x's own ``.lock`` (deleted at the stop); kvlog's files (its topic table, committed offsets, lock files)
    are left as they are."""
    s = served
    mine = tuple(f"{tp}/" for tp in s.partitions)
    changed = sorted(k for k in s.before if k in s.after and s.before[k] != s.after[k])
    gone = sorted(k for k in s.before if k not in s.after)
    new = sorted(k for k in s.after if k not in s.before)
    last = {tp: max(name for name in s.sizes if name.startswith(f"{tp}/")) for tp in s.partitions}
    for k in changed:
        if k.startswith(mine):
            tp, name = k.split("/")
            if name == "leader-epoch-checkpoint":
                continue
            stem = f"{tp}/{name.rsplit('.', 1)[0]}.log"
            assert stem == last[tp] and name.endswith((".log", ".timeindex")), k
            if name.endswith(".timeindex"):
                old, now = (s.copy / k).read_bytes(), (s.data / k).read_bytes()
                assert now[:len(old)] == old and len(now) == len(old) + 12, k
                assert int.from_bytes(now[-4:], "big") + int(name[:20]) >= s.views[tp].log_end, k
        elif "/" not in k:  # (other directories are the broker's own: its metadata log, the mirror's source)
            assert k in ROOT_CHANGES, k
    assert [k for k in gone if not (k == ".lock" and version_tuple(s.version) >= (4, 0))] == []
    for k in new:
        tp, _, name = k.partition("/")
        if tp == "rolled-time-0" and not name.endswith(".snapshot"):  # the broker's record rolled a segment
            assert name.startswith(f"{s.views[tp].log_end:020d}."), k
            continue
        assert name.endswith(".snapshot") or not k.startswith(mine), k


ROOT_CHANGES = {"recovery-point-offset-checkpoint", "log-start-offset-checkpoint", "replication-offset-checkpoint",
                ".kafka_cleanshutdown"}


@pytest.mark.parametrize("isolation", ["read_uncommitted", "read_committed"])
def test_consumer_reads_what_kvlog_reads(served: Served, isolation: str) -> None:
    s = served
    for tp in s.partitions:
        got = s.answers[isolation][tp]
        view = s.views[tp]
        want = view.read_uncommitted if isolation == "read_uncommitted" else view.read_committed
        assert got["log_start_offset"] == view.log_start, tp
        assert got["end_offset"] == (view.log_end if isolation == "read_uncommitted" else got["end_offset"]), tp
        assert F.as_tuples(got["records"]) == want, f"{tp} ({writers(s)[tp]})"
        epochs = [(r["offset"], r["leader_epoch"]) for r in got["records"]]
        assert epochs == [(r[0], None if view.epochs[r[0]] < 0 else view.epochs[r[0]]) for r in want], tp


BATCH_LINE = re.compile(r"^baseOffset: ")
FIELD = re.compile(r"(\w+): (OptionalLong\[\d+\]|OptionalLong\.empty|\S+)")


def dumped_batches(text: str) -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = {}
    current: list[dict[str, str]] | None = None
    for line in text.splitlines():
        if line.startswith("Dumping "):
            path = line[len("Dumping "):].strip()
            current = out.setdefault("/".join(path.split("/")[-2:]), []) if path.endswith(".log") else None
        elif current is not None and BATCH_LINE.match(line):
            current.append(dict(FIELD.findall(line)))
    return out


def test_dump_shows_kvlog_batches(served: Served) -> None:
    """DumpLogSegments --deep-iteration of every .log kvlog wrote shows kvlog's batches with their producer
    ids, epochs, sequences, leader epochs, flags, magic, codec and delete horizon."""
    s = served
    dumped = dumped_batches(s.dump)
    for tp in s.partitions:
        for name, rows in s.views[tp].batches.items():
            got = dumped[f"{tp}/{name}"]
            assert len(got) == len(rows), f"{tp}/{name}"
            for g, w in zip(got, rows):
                for k, v in w.items():
                    if k == "deleteHorizonMs":
                        if "deleteHorizonMs" in g:
                            want = "OptionalLong.empty" if v is None else f"OptionalLong[{v}]"
                            assert g[k] == want, (tp, name, w)
                        continue
                    assert g[k] == str(v).lower() if isinstance(v, bool) else g[k] == str(v), (tp, name, k, g, w)
                assert g["isvalid"] == "true"


def test_broker_producer_state_is_kvlogs(served: Served) -> None:
    """DescribeProducers: the broker's producer state (loaded from kvlog's snapshots) is kvlog's, but for the
    producers whose last write is older than producer.id.expiration.ms (a day): the broker drops those from a
    snapshot it loads (``ProducerStateManager.isProducerExpired``), kvlog keeps every producer."""
    s = served
    for tp in s.partitions:
        live = [p for p in s.views[tp].producers
                if p["current_txn_start_offset"] is not None or s.now - p["last_timestamp"] < DAY]
        assert s.answers["producers"][tp] == live, tp


def test_list_offsets_answer_as_kvlog(served: Served) -> None:
    s = served
    v = version_tuple(s.version)
    wrong = []
    for tp in s.partitions:
        view = s.views[tp]
        got = s.answers["offsets"][tp]
        for ts, want in view.timestamps.items():
            a = got["for_timestamp"][str(ts)]
            if (a["offset"], a["timestamp"]) != want:
                wrong.append(f"{tp} @ {ts}: Kafka {a}, kvlog {want}")
        top = got["max_timestamp"]
        want = view.max_timestamp if v >= (3, 8) else (view.max_timestamp_batch_last, view.max_timestamp[1])
        if (top["offset"], top["timestamp"]) != want:
            wrong.append(f"{tp} max-timestamp: Kafka {top}, kvlog {want}")
        assert got["earliest"]["offset"] == view.log_start and got["latest"]["offset"] == view.log_end, tp
    assert not wrong, "\n".join(wrong)


def test_produce_appends_after_kvlog(served: Served) -> None:
    """One record produced through the broker lands at kvlog's log end offset with the broker's leader
    epoch; kvlog's records keep theirs; the leader-epoch checkpoint holds kvlog's entries, then the
    broker's epoch from kvlog's log end."""
    s = served
    for tp in s.partitions:
        view = s.views[tp]
        recs = s.answers["after"][tp]["records"]
        assert recs[-1]["offset"] == view.log_end and client.unb64(recs[-1]["key"]) == b"after", tp
        epoch = s.leader_epoch[tp]
        assert recs[-1]["leader_epoch"] == epoch, tp
        assert F.as_tuples(recs[:-1]) == view.read_uncommitted, tp
        text = s.epoch_checkpoints[tp].decode()
        lines = text.split("\n")
        entries = [tuple(int(x) for x in line.split()) for line in lines[2:] if line]
        # the broker assigns its epoch from kvlog's end, unless kvlog's last entry already has it (a ZooKeeper
        # broker restarted alone keeps epoch 0, which kvlog's epoch-0 batches carry)
        new = [] if view.leader_epochs and view.leader_epochs[-1][0] == epoch else [(epoch, view.log_end)]
        assert entries == [*view.leader_epochs, *new], (tp, text)


def test_kvlog_reads_what_the_broker_served(served: Served) -> None:
    """Once the broker stopped, kvlog reads every partition as the consumer did after the produce: kvlog's
    records, then the broker's. (The JVM sink governs the directory it writes, kvlog-committed-offsets: the
    broker's high watermark past the committed ends releases the partitions, or kvlog would stop at the old
    end and its writers would cut the broker's record away.)"""
    s = served
    for tp in s.partitions:
        assert s.reread[tp] == F.as_tuples(s.answers["after"][tp]["records"]), tp


def test_dump_index_checks_pass(served: Served) -> None:
    s = served
    failed = [line for line in s.dump.splitlines() if "sanity" in line.lower() and "passed" not in line.lower()]
    assert not failed, failed
    print(s.verify[-3000:], s.verify_err[-3000:])
    assert "mismatch" not in (s.verify + s.verify_err).lower()
    assert "Mismatches" not in s.verify + s.verify_err
