"""One broker's life as the broker tests' input: Kafka writes a data directory, and says what it holds.

:func:`generate` starts a broker of one version, produces every kind of data the version can hold through
kafka-python, aiokafka and Kafka's own Java client (codecs, headers, null keys, batches of many sizes,
LogAppendTime, idempotent and transactional producers with commits and aborts, consumer groups of every
protocol the version has, a compacted topic the broker's cleaner cleaned twice so tombstones are gone, a
topic whose retention deleted segments, DeleteRecords, segments rolled by size and by time, KIP-405 tiered
segments), then asks the broker, through Kafka's Java client, for the truth: every record a consumer reads
(read_uncommitted and read_committed), ListOffsets answers, committed offsets, topics and configs. It
keeps three copies of the directories: ``running`` (copied while the broker runs: preallocated indexes,
open segments), ``clean`` (after a controlled shutdown) and ``unclean`` (restarted, then SIGKILL).

Generating is slow (a broker, several JVMs), so it happens once per version and run, under a file lock,
into a directory shared by pytest's workers; ``truth.json`` and ``info.json`` are written last.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.kafka_oracle import client
from tests.kafka_oracle.broker import Broker, KafkaDist, version_tuple

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
STATES = ("running", "clean", "unclean")
NOW_MS = lambda: int(time.time() * 1000)  # noqa: E731


@dataclass
class Features:
    """What a version's broker can be made to write here."""

    version: str
    kraft: bool
    legacy_formats: bool  # message.format.version < 0.11 topics (on-disk v0/v1), removed in 3.0
    max_timestamp: bool  # ListOffsets MAX_TIMESTAMP (KIP-734, 3.0)
    kip848: bool  # the consumer group protocol (4.0)
    share_groups: bool  # KIP-932 (4.1 preview behind share.version; GA 4.2)
    streams_groups: bool  # KIP-1071 (GA 4.2; 4.1's early access refuses a 4.4 client's StreamsGroupHeartbeat)
    tiered: bool  # KIP-405 (3.6+)
    local_tiered_storage: bool  # Kafka's LocalTieredStorage (its test jar is served), else DirectoryRemoteStorage
    min_segment_bytes: int

    @classmethod
    def of(cls, dist: KafkaDist) -> Features:
        v = version_tuple(dist.version)
        has_lts = any(dist.jars.glob("kafka-storage-*-test.jar"))
        return cls(
            version=dist.version,
            kraft=not dist.zookeeper,
            legacy_formats=v < (3, 0),
            max_timestamp=v >= (3, 0),
            kip848=v >= (4, 0),
            share_groups=v >= (4, 1),
            streams_groups=v >= (4, 2),
            tiered=v >= (3, 6),
            local_tiered_storage=has_lts,
            min_segment_bytes=(1 << 20) if v >= (4, 0) else 16384,
        )


@dataclass
class Info:
    version: str
    cluster_id: str
    features: dict[str, Any]
    topics: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    remote: bool = False


def _headers(rng: random.Random, i: int) -> list[tuple[str, bytes]]:
    n = i % 4
    return [(f"h{j}", rng.randbytes(rng.randint(0, 12))) for j in range(n)]


def _records(rng: random.Random, n: int, base_ts: int, *, null_keys: bool = True,
             value_size: tuple[int, int] = (0, 200)) -> list[tuple[bytes | None, bytes, int, list]]:
    """Records with some null keys, empty and partly random values, non-monotonic timestamps, 0-3 headers."""
    out = []
    for i in range(n):
        key = None if null_keys and i % 5 == 0 else f"key-{rng.randint(0, 40)}".encode()
        n = rng.randint(*value_size)
        # part random bytes (invalid UTF-8 for the dumps), part text, so that every codec compresses it (a
        # producer may send a batch plain when compression does not shrink it)
        value = (rng.randbytes(n // 4) + (b"value %d of %d; " % (i, n)) * n)[:n]
        ts = base_ts + i * 10 + rng.randint(-40, 40)
        out.append((key, value, ts, _headers(rng, i)))
    return out


class _CheckedProducer:
    """A kafka-python producer whose ``flush`` fails when a send failed (a send only returns a future)."""

    def __init__(self, producer: Any) -> None:
        self._p = producer
        self._sent: list[Any] = []

    def send(self, *args: Any, **kwargs: Any) -> Any:
        fut = self._p.send(*args, **kwargs)
        self._sent.append(fut)
        return fut

    def flush(self) -> None:
        self._p.flush()
        for fut in self._sent:
            fut.get(timeout=60)
        self._sent.clear()

    def close(self) -> None:
        self.flush()
        self._p.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._p, name)


class Workload:
    """The writes of one version's scenario (run while the broker serves)."""

    def __init__(self, broker: Broker, features: Features, info: Info, work: Path):
        from kafka import KafkaAdminClient

        self.b = broker
        self.f = features
        self.info = info
        self.work = work
        self.admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=30000)
        self.rng = random.Random(f"kvlog-{features.version}")
        self.base_ts = NOW_MS() - 30 * 60_000

    def close(self) -> None:
        self.admin.close()

    # -- helpers ---------------------------------------------------------------------------------------
    def topic(self, name: str, partitions: int = 1, **configs: Any) -> None:
        from kafka.admin import NewTopic

        cfg = {k.replace("_", "."): str(v) for k, v in configs.items()}
        self.admin.create_topics([NewTopic(name, partitions, 1, topic_configs=cfg)])
        self.info.topics[name] = {"partitions": partitions, "configs": cfg}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all((self.b.data / f"{name}-{p}").is_dir() for p in range(partitions)):
                return
            time.sleep(0.1)
        raise TimeoutError(f"topic {name} has no directories")

    def kafka_python(self, **cfg: Any) -> _CheckedProducer:
        from kafka import KafkaProducer

        return _CheckedProducer(KafkaProducer(bootstrap_servers=self.b.bootstrap, acks="all", linger_ms=20,
                                              request_timeout_ms=30000, **cfg))

    def java(self, *steps: dict[str, Any]) -> dict[str, Any]:
        return client.run(self.b.bootstrap, list(steps), self.work)

    @staticmethod
    def java_record(topic: str, partition: int, key: bytes | None, value: bytes | None, ts: int | None,
                    headers: list[tuple[str, bytes | None]] = ()) -> list[Any]:
        return [topic, partition, client.b64(key), client.b64(value), ts,
                [[k, client.b64(v)] for k, v in headers]]

    def note(self, text: str) -> None:
        self.info.notes.append(text)

    def wait(self, what: str, cond, timeout: float = 60.0, step: float = 0.2) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond():
                return
            time.sleep(step)
        raise TimeoutError(f"Kafka {self.f.version}: {what} did not happen in {timeout} s")

    # -- the data --------------------------------------------------------------------------------------
    def codecs(self) -> None:
        """codec-<c>: partition 0 from kafka-python in flushes of 1-250 records, partition 1 from aiokafka."""
        for codec in CODECS:
            name = f"codec-{codec}"
            self.topic(name, 2)
            p = self.kafka_python(compression_type=None if codec == "none" else codec)
            recs = _records(self.rng, 420, self.base_ts)
            i = 0
            for chunk in (1, 2, 7, 50, 110, 250):
                for key, value, ts, headers in recs[i:i + chunk]:
                    p.send(name, key=key, value=value, timestamp_ms=ts, headers=headers, partition=0)
                p.flush()
                i += chunk
            p.close()
            asyncio.run(self._aiokafka(name, codec, _records(self.rng, 300, self.base_ts)))

    async def _aiokafka(self, topic: str, codec: str, recs) -> None:
        from aiokafka import AIOKafkaProducer

        prod = AIOKafkaProducer(bootstrap_servers=self.b.bootstrap, acks="all", linger_ms=10,
                                compression_type=None if codec == "none" else codec)
        await prod.start()
        try:
            futs = []
            for j, (key, value, ts, headers) in enumerate(recs):
                futs.append(await prod.send(topic, value=value, key=key, partition=1, timestamp_ms=ts,
                                            headers=headers))
                if j % 97 == 96:
                    await prod.flush()
            await asyncio.gather(*futs)
        finally:
            await prod.stop()

    def java_records(self) -> None:
        """java-headers: Kafka's own producer, with null header values and null values."""
        self.topic("java-headers", 1)
        recs = []
        for i in range(120):
            headers = [("n", None), ("e", b""), (f"x{i % 3}", bytes([i % 256]) * (i % 7))][: i % 4]
            value = None if i % 11 == 0 else f"value-{i}".encode() * (i % 5)
            recs.append(self.java_record("java-headers", 0, None if i % 3 == 0 else f"k{i}".encode(), value,
                                         self.base_ts + i * 7, headers))
        self.java({"op": "produce", "records": recs, "compression": "lz4", "linger_ms": 30})

    def log_append_time(self) -> None:
        self.topic("log-append-time", 1, message_timestamp_type="LogAppendTime")
        p = self.kafka_python(compression_type="gzip")
        for key, value, ts, headers in _records(self.rng, 200, self.base_ts):
            p.send("log-append-time", key=key, value=value, timestamp_ms=ts, headers=headers)
        p.flush()
        p.close()

    def legacy(self) -> None:
        """On-disk v0 and v1 (message.format.version 0.9.0 / 0.10.2: the broker down-converts)."""
        for name, fmt in (("legacy-v0", "0.9.0"), ("legacy-v1", "0.10.2")):
            self.topic(name, 1, message_format_version=fmt)
            for codec in ("none", "gzip", "snappy", "lz4"):
                # (kafka-python 3 is idempotent by default, which magic v0/v1 cannot hold)
                p = self.kafka_python(compression_type=None if codec == "none" else codec, enable_idempotence=False)
                for key, value, ts, _h in _records(self.rng, 60, self.base_ts):
                    p.send(name, key=key, value=value, timestamp_ms=ts)
                p.flush()
                p.close()

    def idempotent(self) -> None:
        self.topic("idempotent", 2)
        p = self.kafka_python(enable_idempotence=True, compression_type="zstd")
        for part in (0, 1):
            for key, value, ts, headers in _records(self.rng, 150, self.base_ts):
                p.send("idempotent", key=key, value=value, timestamp_ms=ts, headers=headers, partition=part)
            p.flush()
        p.close()

    def transactions(self) -> None:
        """txn: commits and aborts from kafka-python, aiokafka and Java (TV2 on 4.x), interleaved with
        an idempotent producer's records inside an open transaction; the last batch is a COMMIT marker."""
        self.topic("txn", 2)
        recs = lambda n: _records(self.rng, n, self.base_ts, value_size=(1, 60))  # noqa: E731
        p = self.kafka_python(transactional_id="tx-python", compression_type="lz4")
        p.init_transactions()
        for commit in (True, False, True):
            p.begin_transaction()
            for part in (0, 1):
                for key, value, ts, headers in recs(25):
                    p.send("txn", key=key, value=value, timestamp_ms=ts, headers=headers, partition=part)
            p.flush()
            (p.commit_transaction if commit else p.abort_transaction)()
        # An aborted transaction with another producer's records in the middle of it.
        p.begin_transaction()
        for key, value, ts, headers in recs(10):
            p.send("txn", key=key, value=value, timestamp_ms=ts, headers=headers, partition=0)
        p.flush()
        self.java({"op": "produce", "records": [self.java_record("txn", 0, k, v, t) for k, v, t, _ in recs(6)]})
        for key, value, ts, headers in recs(10):
            p.send("txn", key=key, value=value, timestamp_ms=ts, headers=headers, partition=0)
        p.flush()
        p.abort_transaction()
        p.close()
        asyncio.run(self._aiokafka_txn(recs(40)))
        txns = []
        for commit in (True, False, True):
            txns.append({"commit": commit, "records": [self.java_record("txn", part, k, v, t, h)
                                                       for part in (0, 1) for k, v, t, h in recs(15)]})
        self.java({"op": "produce", "transactional_id": "tx-java", "transactions": txns, "compression": "zstd"})

    async def _aiokafka_txn(self, recs) -> None:
        from aiokafka import AIOKafkaProducer

        prod = AIOKafkaProducer(bootstrap_servers=self.b.bootstrap, transactional_id="tx-aiokafka",
                                enable_idempotence=True, compression_type="snappy")
        await prod.start()
        try:
            for commit in (True, False):
                await prod.begin_transaction()
                for key, value, ts, headers in recs[:20] if commit else recs[20:]:
                    await prod.send("txn", value=value, key=key, partition=1, timestamp_ms=ts, headers=headers)
                await prod.flush()
                if commit:
                    await prod.commit_transaction()
                else:
                    await prod.abort_transaction()
        finally:
            await prod.stop()

    def rolled(self) -> None:
        """rolled-size: segments rolled by segment.bytes; rolled-time: by segment.ms."""
        seg = self.f.min_segment_bytes
        self.topic("rolled-size", 1, segment_bytes=seg)
        p = self.kafka_python(compression_type=None)
        n = 0
        rng = self.rng
        while n < 2.6 * seg:
            value = rng.randbytes(900)
            p.send("rolled-size", key=f"k{n}".encode(), value=value, timestamp_ms=self.base_ts + n // 100)
            n += 960
        p.flush()
        p.close()
        self.topic("rolled-time", 1, segment_ms=100)
        p = self.kafka_python(compression_type="lz4")
        for burst in range(5):
            for key, value, ts, headers in _records(rng, 40, self.base_ts + burst * 60_000):
                p.send("rolled-time", key=key, value=value, timestamp_ms=ts, headers=headers)
            p.flush()
            time.sleep(0.25)
        p.close()

    def retention(self) -> None:
        """retention-time: segments of records 3 h old deleted by retention.ms = 1 h; delete-records: the
        log start offset moved into a segment by DeleteRecords."""
        from kafka.structs import TopicPartition

        self.topic("retention-time", 1, retention_ms=3_600_000, segment_ms=100)
        p = self.kafka_python()
        old = NOW_MS() - 3 * 3_600_000
        for burst in range(3):
            for key, value, _ts, headers in _records(self.rng, 30, old):
                p.send("retention-time", key=key, value=value, timestamp_ms=old + burst * 1000, headers=headers)
            p.flush()
            time.sleep(0.2)
        for key, value, ts, headers in _records(self.rng, 30, self.base_ts):
            p.send("retention-time", key=key, value=value, timestamp_ms=ts, headers=headers)
        p.flush()
        self.topic("delete-records", 1, segment_bytes=self.f.min_segment_bytes)
        for key, value, ts, headers in _records(self.rng, 200, self.base_ts):
            p.send("delete-records", key=key, value=value, timestamp_ms=ts, headers=headers)
        p.flush()
        p.close()
        self.admin.delete_records({TopicPartition("delete-records", 0): 77})
        self.wait("retention of retention-time's old segments",
                  lambda: not (self.b.data / "retention-time-0" / "00000000000000000000.log").exists(), 90)

    def _cleaner_offset(self, topic: str) -> int:
        path = self.b.data / "cleaner-offset-checkpoint"
        try:
            for line in path.read_text().splitlines()[2:]:
                t, p, off = line.split()
                if t == topic and p == "0":
                    return int(off)
        except (FileNotFoundError, ValueError):
            pass
        return -1

    def _active_base(self, topic: str) -> int:
        logs = sorted((self.b.data / f"{topic}-0").glob("*.log"))
        return int(logs[-1].name[:20])

    def compacted(self) -> None:
        """compacted: overwritten keys and tombstones, cleaned twice (the second pass drops the tombstones
        past their delete horizon); with transactions in it too."""
        name = "compacted"
        self.topic(name, 1, cleanup_policy="compact", segment_ms=100, min_cleanable_dirty_ratio="0.01",
                   delete_retention_ms=0, min_compaction_lag_ms=0)
        p = self.kafka_python(compression_type="gzip")
        rng = self.rng
        for round_ in range(4):
            for i in range(60):
                k = f"user-{rng.randint(0, 25)}".encode()
                p.send(name, key=k, value=f"v{round_}-{i}".encode(), timestamp_ms=self.base_ts + round_ * 1000 + i)
            for k in (b"user-1", b"user-2", b"user-3"):
                p.send(name, key=k, value=None, timestamp_ms=self.base_ts + round_ * 1000 + 99)
            p.flush()
            time.sleep(0.15)
        for attempt in range(3):
            time.sleep(0.15)
            # (a time-based roll compares record timestamps with the segment's first: they must be segment.ms apart)
            p.send(name, key=b"roll", value=f"roll-{attempt}".encode(),
                   timestamp_ms=self.base_ts + 9000 + attempt * 1000)
            p.flush()
            active = self._active_base(name)
            self.wait(f"cleaning pass {attempt} of {name}", lambda a=active: self._cleaner_offset(name) >= a, 90)
        p.close()

    def groups(self) -> None:
        """Committed offsets of every kind of group the version has."""
        from kafka import KafkaConsumer, TopicPartition
        from kafka.structs import OffsetAndMetadata

        c = KafkaConsumer("codec-none", bootstrap_servers=self.b.bootstrap, group_id="py-classic",
                          auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=3000)
        n = 0
        for _m in c:
            n += 1
            if n >= 500:
                break
        c.commit()
        c.close()
        # A group that joined and never committed.
        c = KafkaConsumer("codec-gzip", bootstrap_servers=self.b.bootstrap, group_id="never-committed",
                          auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=2000)
        for _m in c:
            break
        c.close(autocommit=False)
        # Offsets committed beyond the log end (negative lag) and with metadata, through the admin API.
        self.admin.alter_group_offsets("ahead", {
            TopicPartition("codec-lz4", 0): OffsetAndMetadata(100_000, "far ahead", -1),
            TopicPartition("codec-lz4", 1): OffsetAndMetadata(3, "", -1)})
        asyncio.run(self._aiokafka_group())
        self.java({"op": "consume", "group": "java-classic", "protocol": "classic", "topics": ["idempotent"],
                   "count": 300, "metadata": "java classic"})
        if self.f.kip848:
            self.java({"op": "consume", "group": "java-consumer", "protocol": "consumer",
                       "topics": ["txn", "codec-zstd"], "count": 200, "metadata": "kip-848"})

    async def _aiokafka_group(self) -> None:
        from aiokafka import AIOKafkaConsumer

        c = AIOKafkaConsumer("codec-snappy", bootstrap_servers=self.b.bootstrap, group_id="aio-classic",
                             auto_offset_reset="earliest", enable_auto_commit=False)
        await c.start()
        try:
            got = 0
            while got < 400:
                batch = await c.getmany(timeout_ms=2000)
                if not batch:
                    break
                got += sum(len(v) for v in batch.values())
            await c.commit()
        finally:
            await c.stop()

    def share_and_streams(self) -> None:
        if self.f.share_groups:
            self.java({"op": "share", "group": "share-group", "topics": ["codec-lz4"], "count": 300})
        if self.f.streams_groups:
            self.topic("streams-out", 1)
            self.java({"op": "streams", "group": "streams-app", "source": "codec-none", "sink": "streams-out",
                       "count": 720, "state_dir": str(self.work / "streams-state")})

    def tiered(self) -> None:
        """tiered: remote.storage.enable, local.retention.ms 1 s: closed segments copied to
        LocalTieredStorage, then deleted locally."""
        self.topic("tiered", 1, remote_storage_enable="true", local_retention_ms=1000, retention_ms=-1,
                   segment_ms=100, file_delete_delay_ms=500)
        p = self.kafka_python(compression_type="zstd")
        for burst in range(4):
            for key, value, ts, headers in _records(self.rng, 50, self.base_ts + burst * 1000):
                p.send("tiered", key=key, value=value, timestamp_ms=ts, headers=headers)
            p.flush()
            time.sleep(0.2)
        p.send("tiered", key=b"last", value=b"last", timestamp_ms=self.base_ts + 9999)
        p.flush()
        p.close()
        self.wait("tiered segments deleted locally",
                  lambda: not (self.b.data / "tiered-0" / "00000000000000000000.log").exists(), 120, 0.5)

    def run(self) -> None:
        steps = [self.codecs, self.java_records, self.log_append_time, self.idempotent, self.transactions,
                 self.rolled, self.retention, self.compacted, self.groups, self.share_and_streams]
        if self.f.legacy_formats:
            steps.append(self.legacy)
        if self.f.tiered:
            steps.append(self.tiered)
        for step in steps:
            t = time.monotonic()
            step()
            self.info.timings[step.__name__] = round(time.monotonic() - t, 2)


def broker_settings(features: Features, root: Path) -> dict[str, str]:
    extra: dict[str, str] = {}
    if features.tiered:
        extra.update({
            "remote.log.storage.system.enable": "true",
            "remote.log.storage.manager.class.name":
                "org.apache.kafka.server.log.remote.storage.LocalTieredStorage" if features.local_tiered_storage
                else "io.kvlog.oracle.DirectoryRemoteStorage",
            "rsm.config.dir": str(root / "remote"),
            "remote.log.metadata.manager.listener.name": "PLAINTEXT",
            "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
            "rlmm.config.remote.log.metadata.topic.num.partitions": "1",
            "remote.log.manager.task.interval.ms": "500",
        })
    if features.kraft:  # KRaft snapshots (.checkpoint) during the scenario, as a long-running cluster has them
        extra["metadata.log.max.snapshot.interval.ms"] = "2000"
    if features.share_groups and version_tuple(features.version) < (4, 2):
        extra["group.share.enable"] = "true"
    return extra


def _partitions(metadata: dict[str, Any]) -> list[list[Any]]:
    return [[t, p["partition"]] for t, d in sorted(metadata["topics"].items()) for p in d["partitions"]]


def _sample_timestamps(records: list[dict[str, Any]], rng: random.Random) -> list[int]:
    stamps = sorted({r["timestamp"] for r in records if r["timestamp"] >= 0})  # (v0 records: -1)
    if not stamps:
        return [0, NOW_MS() - 3_600_000, NOW_MS()]
    picks = {stamps[0] - 1, stamps[0], stamps[-1], stamps[-1] + 1, stamps[len(stamps) // 2]}
    picks.update(rng.sample(stamps, min(6, len(stamps))))
    picks.update(s + 1 for s in rng.sample(stamps, min(3, len(stamps))))
    return sorted(picks)


def capture_truth(broker: Broker, work: Path) -> dict[str, Any]:
    """What the broker serves, through Kafka's Java client."""
    first = client.run(broker.bootstrap, [{"op": "metadata"}, {"op": "groups"}], work)
    parts = _partitions(first["metadata"])
    reads = client.run(broker.bootstrap, [
        {"op": "read", "name": "read_uncommitted", "partitions": parts, "isolation": "read_uncommitted"},
        {"op": "read", "name": "read_committed", "partitions": parts, "isolation": "read_committed"},
    ], work)
    rng = random.Random(7)
    stamps = {k: _sample_timestamps(v["records"], rng) for k, v in reads["read_uncommitted"].items()}
    offsets = client.run(broker.bootstrap, [{"op": "offsets", "partitions": parts, "timestamps": stamps}], work)
    return {**first, **reads, **offsets}


def _copy_state(broker: Broker, dest: Path) -> None:
    dest.mkdir(parents=True)
    for name in ("data", "meta", "remote", "zk"):
        src = broker.root / name
        if src.exists():
            shutil.copytree(src, dest / name, symlinks=True)


def generate(version: str, out: Path) -> Path:
    """Run the scenario of ``version`` into ``out`` (``out/<state>/``, truth.json, info.json)."""
    dist = KafkaDist.find(version)
    if dist is None:
        raise FileNotFoundError(f"Kafka {version}'s jars are not fetched")
    features = Features.of(dist)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    live = out / "live"
    work = out / "work"
    plugins = () if not features.tiered or features.local_tiered_storage else (
        str(client.compiled(client.RSM_SOURCE, version)),)
    broker = Broker(dist, live, extra=broker_settings(features, live), classpath=plugins)
    info = Info(version=version, cluster_id=broker.cluster_id, features=asdict(features), remote=features.tiered)
    t0 = time.monotonic()
    try:
        broker.start()
        info.timings["start"] = round(time.monotonic() - t0, 2)
        w = Workload(broker, features, info, work)
        try:
            w.run()
        finally:
            w.close()
        t = time.monotonic()
        truth = capture_truth(broker, work)
        info.timings["truth"] = round(time.monotonic() - t, 2)
        _copy_state(broker, out / "running")
        broker.stop()
        if not (broker.data / ".kafka_cleanshutdown").exists():
            raise RuntimeError(f"Kafka {version} stopped without .kafka_cleanshutdown")
        _copy_state(broker, out / "clean")
        t = time.monotonic()
        broker.start()
        again = client.run(broker.bootstrap, [
            {"op": "read", "name": "read_uncommitted", "partitions": _partitions(truth["metadata"]),
             "isolation": "read_uncommitted"}], work)
        if again["read_uncommitted"] != truth["read_uncommitted"]:
            raise RuntimeError(f"Kafka {version} served other records after a restart")
        broker.stop(kill=True)
        info.timings["restart_and_kill"] = round(time.monotonic() - t, 2)
        _copy_state(broker, out / "unclean")
    except BaseException:
        broker.stop_all(kill=True)
        (out / "FAILED").write_text(broker.log_text()[-20000:])
        raise
    broker.stop_all(kill=True)
    shutil.copy(broker.log_path, out / "broker.log")
    shutil.rmtree(live, ignore_errors=True)
    info.timings["total"] = round(time.monotonic() - t0, 2)
    (out / "truth.json").write_text(json.dumps(truth))
    (out / "info.json").write_text(json.dumps(asdict(info), indent=1))
    return out


_failed: dict[str, str] = {}


def ensure(version: str, base: Path) -> Path:
    """The scenario of ``version`` under ``base``, generated once for all processes (a file lock), in a child
    process of its own (the clients' threads and warnings stay out of the caller, pytest's worker)."""
    import fcntl
    import subprocess
    import sys

    if version in _failed:
        raise RuntimeError(f"Kafka {version}'s scenario failed in this process:\n{_failed[version]}")
    base.mkdir(parents=True, exist_ok=True)
    out = base / version
    with open(base / f".{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (out / "info.json").is_file():
            return out
        r = subprocess.run([sys.executable, "-m", "tests.kafka_oracle.scenario", "--one", str(base), version],
                           capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[2])
        if r.returncode != 0 or not (out / "info.json").is_file():
            _failed[version] = f"{r.stderr[-6000:]}\n(the broker's log: {out / 'FAILED'})"
            raise RuntimeError(f"Kafka {version}'s scenario failed:\n{_failed[version]}")
        return out


def main(argv: list[str]) -> int:
    """``python -m tests.kafka_oracle.scenario OUT [VERSION ...] [-j N]``: generate the scenarios (every
    version with fetched jars by default) into ``OUT/<version>``, N at a time (default 2); skip those done."""
    import argparse
    import concurrent.futures
    import subprocess
    import sys

    from tests.kafka_oracle.broker import VERSIONS

    ap = argparse.ArgumentParser(prog="python -m tests.kafka_oracle.scenario")
    ap.add_argument("out", type=Path)
    ap.add_argument("versions", nargs="*")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: generate one version
    args = ap.parse_args(argv)
    if args.one:
        t = time.monotonic()
        generate(args.versions[0], args.out / args.versions[0])
        print(f"scenario {args.versions[0]}: {time.monotonic() - t:.1f} s", file=sys.stderr)
        return 0
    versions = args.versions or [v for v in VERSIONS if KafkaDist.find(v) is not None]

    def one(v: str) -> int:
        if (args.out / v / "info.json").is_file():
            return 0
        return subprocess.run([sys.executable, "-m", "tests.kafka_oracle.scenario", "--one", str(args.out), v],
                              check=False).returncode

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        codes = list(pool.map(one, versions))
    for v, c in zip(versions, codes):
        if c:
            print(f"scenario {v} failed (exit {c}): see {args.out / v / 'FAILED'}", file=sys.stderr)
    return max(codes, default=0)


if __name__ == "__main__":
    import sys

    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # kafka-python's and aiokafka's threads must not hold the exit
