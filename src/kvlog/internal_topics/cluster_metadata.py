"""The cluster state a KRaft ``__cluster_metadata`` log holds: topics, topic ids, partitions, configs,
feature levels, brokers and the producer-id block.

Replayed the way a broker's metadata loader applies records: the newest snapshot
(``<end offset>-<epoch>.checkpoint``, record batches like a segment) first, then the log from the
snapshot's end offset. A ``PartitionChangeRecord`` changes only the fields it carries (a leader of -2
means "unchanged") and bumps the partition epoch, and the leader epoch when the leader changes; a
``RemoveTopicRecord`` drops the topic, its partitions and its configs; a null ``ConfigRecord`` value
deletes the config; a feature level of 0 removes the feature. Records between a
``BeginTransactionRecord`` and an ``AbortTransactionRecord`` (KIP-868) are dropped, those before an
``EndTransactionRecord`` applied.
"""

from __future__ import annotations

import base64
import os
import re
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from kvlog import _io, storage
from kvlog.errors import CorruptInternalRecordError, DirectoryNotFoundError
from kvlog.internal_topics.decoders import InternalTopic, MetadataRecord, UnknownSchemaError, decode_metadata_record
from kvlog.internal_topics.layout import partition_dirs, read_batches
from kvlog.log import Log
from kvlog.records import MemoryRecords, Record

__all__ = ["ClusterMetadata", "cluster_metadata", "topic_id_text"]

TOPIC = InternalTopic.CLUSTER_METADATA.value
CONFIG_RESOURCE_TYPES = {0: "UNKNOWN", 2: "TOPIC", 4: "BROKER", 8: "BROKER_LOGGER", 16: "CLIENT_METRICS",
                         32: "GROUP"}
_SNAPSHOT = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")
_NO_LEADER_CHANGE = -2


def topic_id_text(topic_id: uuid.UUID) -> str:
    """A topic id as Kafka prints it (``Uuid.toString``: base64url, no padding)."""
    return base64.urlsafe_b64encode(topic_id.bytes).rstrip(b"=").decode("ascii")


@dataclass
class ClusterMetadata:
    """The replayed state. ``topics``/``partitions``/``configs`` give Arrow tables of it."""

    topic_names: dict[uuid.UUID, str] = field(default_factory=dict)
    partition_state: dict[tuple[uuid.UUID, int], dict[str, Any]] = field(default_factory=dict)
    config_state: dict[tuple[int, str, str], str] = field(default_factory=dict)
    features: dict[str, int] = field(default_factory=dict)
    brokers: dict[int, dict[str, Any]] = field(default_factory=dict)
    next_producer_id: int | None = None
    last_offset: int = -1
    snapshot: str | None = None
    problems: list[str] = field(default_factory=list)

    def apply(self, r: MetadataRecord) -> None:
        d = r.data
        t = r.type_name
        if t == "TOPIC_RECORD":
            self.topic_names[d["topicId"]] = d["name"]
        elif t == "REMOVE_TOPIC_RECORD":
            name = self.topic_names.pop(d["topicId"], None)
            for pkey in [k for k in self.partition_state if k[0] == d["topicId"]]:
                del self.partition_state[pkey]
            if name is not None:
                for ckey in [k for k in self.config_state if k[0] == 2 and k[1] == name]:
                    del self.config_state[ckey]
        elif t == "PARTITION_RECORD":
            self.partition_state[(d["topicId"], d["partitionId"])] = {
                k: d.get(k) for k in ("replicas", "isr", "removingReplicas", "addingReplicas", "leader",
                                      "leaderEpoch", "partitionEpoch", "leaderRecoveryState",
                                      "eligibleLeaderReplicas", "lastKnownElr")}
        elif t == "PARTITION_CHANGE_RECORD":
            self._change_partition(d)
        elif t == "CONFIG_RECORD":
            config = (d["resourceType"], d["resourceName"], d["name"])
            if d["value"] is None:
                self.config_state.pop(config, None)
            else:
                self.config_state[config] = d["value"]
        elif t == "FEATURE_LEVEL_RECORD":
            if d["featureLevel"] == 0:
                self.features.pop(d["name"], None)
            else:
                self.features[d["name"]] = d["featureLevel"]
        elif t == "REGISTER_BROKER_RECORD":
            self.brokers[d["brokerId"]] = {"epoch": d["brokerEpoch"], "rack": d["rack"], "fenced": d["fenced"],
                                           "endpoints": [f"{e['name']}://{e['host']}:{e['port']}"
                                                         for e in d["endPoints"]]}
        elif t == "UNREGISTER_BROKER_RECORD":
            self.brokers.pop(d["brokerId"], None)
        elif t in ("FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD"):
            if d["id"] in self.brokers:
                self.brokers[d["id"]]["fenced"] = t == "FENCE_BROKER_RECORD"
        elif t == "BROKER_REGISTRATION_CHANGE_RECORD":
            if d["brokerId"] in self.brokers and d["fenced"] != 0:
                self.brokers[d["brokerId"]]["fenced"] = d["fenced"] == 1
        elif t == "PRODUCER_IDS_RECORD":
            self.next_producer_id = d["nextProducerId"]

    def _change_partition(self, d: dict[str, Any]) -> None:
        p = self.partition_state.get((d["topicId"], d["partitionId"]))
        if p is None:
            self.problems.append(f"PartitionChangeRecord for unknown partition {topic_id_text(d['topicId'])}"
                                 f"-{d['partitionId']}")
            return
        for name in ("isr", "replicas", "removingReplicas", "addingReplicas", "eligibleLeaderReplicas",
                     "lastKnownElr"):
            if d.get(name) is not None:
                p[name] = d[name]
        if d.get("leaderRecoveryState", -1) != -1:
            p["leaderRecoveryState"] = d["leaderRecoveryState"]
        if d["leader"] != _NO_LEADER_CHANGE:
            p["leader"] = d["leader"]
            p["leaderEpoch"] += 1
        p["partitionEpoch"] += 1

    def topics(self) -> pa.Table:
        """``topic, topic_id, partitions`` — one row per topic, by name."""
        counts: dict[uuid.UUID, int] = {}
        for tid, _ in self.partition_state:
            counts[tid] = counts.get(tid, 0) + 1
        rows = sorted((name, tid) for tid, name in self.topic_names.items())
        return pa.table({"topic": [n for n, _ in rows], "topic_id": [topic_id_text(t) for _, t in rows],
                         "partitions": pa.array([counts.get(t, 0) for _, t in rows], pa.int32())})

    def partitions(self) -> pa.Table:
        """``topic, topic_id, partition, leader, leader_epoch, partition_epoch, replicas, isr``."""
        rows = sorted(((self.topic_names.get(tid, ""), tid, pid), p) for (tid, pid), p in self.partition_state.items())
        ints = pa.list_(pa.int32())
        return pa.table({
            "topic": [k[0] for k, _ in rows],
            "topic_id": [topic_id_text(k[1]) for k, _ in rows],
            "partition": pa.array([k[2] for k, _ in rows], pa.int32()),
            "leader": pa.array([p["leader"] for _, p in rows], pa.int32()),
            "leader_epoch": pa.array([p["leaderEpoch"] for _, p in rows], pa.int32()),
            "partition_epoch": pa.array([p["partitionEpoch"] for _, p in rows], pa.int32()),
            "replicas": pa.array([p["replicas"] for _, p in rows], ints),
            "isr": pa.array([p["isr"] for _, p in rows], ints),
        })

    def configs(self) -> pa.Table:
        """``resource_type, resource_name, name, value`` (resource type by Kafka's name: TOPIC, BROKER…)."""
        rows = sorted(self.config_state.items())
        return pa.table({
            "resource_type": [CONFIG_RESOURCE_TYPES.get(k[0], str(k[0])) for k, _ in rows],
            "resource_name": [k[1] for k, _ in rows],
            "name": [k[2] for k, _ in rows],
            "value": [v for _, v in rows],
        })


class _Replay:
    def __init__(self, state: ClusterMetadata, label: str, errors: str) -> None:
        self.state = state
        self.label = label
        self.errors = errors
        self.txn: list[MetadataRecord] | None = None

    def feed(self, records: Iterable[Record], start: int = 0) -> None:
        for rec in records:
            if rec.offset < start:
                continue
            self.state.last_offset = rec.offset
            try:
                r = decode_metadata_record(rec.value, partition=self.label, offset=rec.offset)
            except UnknownSchemaError as exc:
                self.state.problems.append(str(exc))
                continue
            except CorruptInternalRecordError as exc:
                if self.errors == "raise":
                    raise
                self.state.problems.append(str(exc))
                continue
            if r.type_name == "BEGIN_TRANSACTION_RECORD":
                self.txn = []
            elif r.type_name == "END_TRANSACTION_RECORD":
                for pending in self.txn or []:
                    self.state.apply(pending)
                self.txn = None
            elif r.type_name == "ABORT_TRANSACTION_RECORD":
                self.txn = None
            elif self.txn is not None:
                self.txn.append(r)
            else:
                self.state.apply(r)


def _snapshot_records(path: str, label: str) -> Iterator[Record]:
    """The data records of a KRaft snapshot file, one batch in memory at a time (a snapshot is record
    batches framed like a segment, written whole: a batch running past the end is damage)."""
    fd = _io.fs.open(storage.normalize(path), os.O_RDONLY)
    try:
        size = _io.fs.size(fd)
        pos = 0
        while pos + 12 <= size:
            head = _io.fs.pread(fd, 12, pos)
            length = 12 + int.from_bytes(head[8:12], "big", signed=True)
            if length < 12 + 14 or pos + length > size:
                raise CorruptInternalRecordError(f"a batch of {length} bytes at position {pos} does not fit the "
                                                 f"{size}-byte snapshot {path.rsplit('/', 1)[-1]}", partition=label)
            yield from MemoryRecords(_io.fs.pread(fd, length, pos)).records()
            pos += length
    finally:
        _io.fs.close(fd)


def cluster_metadata(root: str | os.PathLike[str], *, errors: str = "raise") -> ClusterMetadata:
    """The cluster metadata in ``root`` (a KRaft data or metadata directory holding
    ``__cluster_metadata-0``, or that directory itself), read-only.

    ``errors="skip"`` notes undecodable records in ``problems`` instead of raising
    :class:`~kvlog.errors.CorruptInternalRecordError`; unknown record types and versions are always noted
    and skipped.
    """
    dirs = partition_dirs(root, TOPIC)
    if not dirs:
        raise DirectoryNotFoundError(f"no {TOPIC}-0 directory in {os.fspath(root)}")  # redacted: a KvlogError
    path, n = dirs[0]
    state = ClusterMetadata()
    replay = _Replay(state, f"{TOPIC}-{n}", errors)
    snapshots = sorted(name for name in _io.fs.listdir(storage.normalize(path)) if _SNAPSHOT.match(name))
    start = 0
    if snapshots:
        state.snapshot = storage.join(path, snapshots[-1])
        replay.feed(_snapshot_records(state.snapshot, f"{TOPIC}-{n}"))
        start = int(snapshots[-1][:20])
    with Log.open(path, read_only=True) as log:
        for batch in read_batches(log):
            if batch.last_offset < start or batch.is_control:
                continue
            replay.feed(batch.records(check_crc=True), start)
    return state

