"""The cluster state a KRaft ``__cluster_metadata`` log holds: topics, topic ids, partitions, configs,
feature levels, brokers, controllers and the producer-id block; and the Raft quorum it runs on: the
``kraft.version`` and voters of its KIP-853 control records, its last leader change and the controller's
``quorum-state`` file.

Replayed the way a broker's metadata loader applies records: the newest snapshot
(``<end offset>-<epoch>.checkpoint``, record batches like a segment) first, then the log from the
snapshot's end offset. A ``PartitionChangeRecord`` changes only the fields it carries (a leader of -2
means "unchanged") and bumps the partition epoch, and the leader epoch when the leader changes; a
``RemoveTopicRecord`` drops the topic, its partitions and its configs; a null ``ConfigRecord`` value
deletes the config; a feature level of 0 removes the feature. A ``ClearElrRecord`` (KIP-966) empties the
eligible leader replicas and last known ELR of every partition of its topic (of every topic when its name is
empty), bumping the partition epoch of each partition that had any, as Kafka's ``TopicDelta`` merges it.
A ``BrokerRegistrationChangeRecord`` changes only what it carries (a fencing or shutdown change of 0, an
empty ``LogDirs`` or a null ``CordonedLogDirs`` mean "unchanged"). Records between a
``BeginTransactionRecord`` and an ``AbortTransactionRecord`` (KIP-868) are dropped, those before an
``EndTransactionRecord`` applied.

Control batches carry the quorum's own records: the newest ``KRaftVersionRecord`` and ``VotersRecord``
(in the snapshot or the log) give ``kraft_version`` and ``voters``; a static quorum (``kraft.version`` 0)
writes neither, and both stay None. The newest ``LeaderChangeMessage`` of the log (also one before the
snapshot's end offset, which the snapshot does not keep) gives ``quorum_leader_id`` and its batch's leader
epoch ``quorum_leader_epoch``. A control record that does not decode is noted in ``problems``, whatever
``errors`` says: it describes the quorum, not the metadata the rest of the state comes from.
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
from kvlog.internal_topics.control_records import decode_control_record
from kvlog.internal_topics.decoders import InternalTopic, MetadataRecord, UnknownSchemaError, decode_metadata_record
from kvlog.internal_topics.layout import partition_batches, partition_dirs
from kvlog.internal_topics.quorum_state import QUORUM_STATE, QuorumState, read_quorum_state
from kvlog.records import ControlRecordType, MemoryRecords, Record, RecordBatch

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
    controllers: dict[int, dict[str, Any]] = field(default_factory=dict)
    next_producer_id: int | None = None
    last_offset: int = -1
    snapshot: str | None = None
    problems: list[str] = field(default_factory=list)
    #: the quorum: ``kraft.version`` and voters of the newest KRaftVersion/Voters control records (None: none
    #: written, a static quorum), the newest LeaderChange's leader and epoch, the ``quorum-state`` file
    kraft_version: int | None = None
    voter_set: list[dict[str, Any]] | None = None
    quorum_leader_id: int | None = None
    quorum_leader_epoch: int | None = None
    quorum_state: QuorumState | None = None

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
                                      "eligibleLeaderReplicas", "lastKnownElr", "directories")}
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
        elif t == "CLEAR_ELR_RECORD":
            self._clear_elr(d["topicName"])
        elif t == "REGISTER_BROKER_RECORD":
            self.brokers[d["brokerId"]] = {
                "epoch": d["brokerEpoch"], "rack": d["rack"], "fenced": d["fenced"],
                "endpoints": [f"{e['name']}://{e['host']}:{e['port']}" for e in d["endPoints"]],
                "in_controlled_shutdown": d.get("inControlledShutdown", False),
                "log_dirs": [topic_id_text(u) for u in d.get("logDirs", [])],
                "cordoned_log_dirs": [topic_id_text(u) for u in d.get("cordonedLogDirs") or []],
            }
        elif t == "UNREGISTER_BROKER_RECORD":
            self.brokers.pop(d["brokerId"], None)
        elif t in ("FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD"):
            if d["id"] in self.brokers:
                self.brokers[d["id"]]["fenced"] = t == "FENCE_BROKER_RECORD"
        elif t == "BROKER_REGISTRATION_CHANGE_RECORD":
            self._change_broker(d)
        elif t == "REGISTER_CONTROLLER_RECORD":
            self.controllers[d["controllerId"]] = {
                "incarnation_id": topic_id_text(d["incarnationId"]),
                "endpoints": [f"{e['name']}://{e['host']}:{e['port']}" for e in d["endPoints"]],
                "features": {x["name"]: (x["minSupportedVersion"], x["maxSupportedVersion"]) for x in d["features"]},
            }
        elif t == "UNREGISTER_CONTROLLER_RECORD":
            self.controllers.pop(d["controllerId"], None)
        elif t == "PRODUCER_IDS_RECORD":
            self.next_producer_id = d["nextProducerId"]

    def _change_broker(self, d: dict[str, Any]) -> None:
        b = self.brokers.get(d["brokerId"])
        if b is None:
            return
        if d["fenced"] != 0:  # BrokerRegistrationFencingChange: 1 fence, -1 unfence, 0 none
            b["fenced"] = d["fenced"] == 1
        if d.get("inControlledShutdown", 0) == 1:
            b["in_controlled_shutdown"] = True
        if d.get("logDirs"):
            b["log_dirs"] = [topic_id_text(u) for u in d["logDirs"]]
        if d.get("cordonedLogDirs") is not None:
            b["cordoned_log_dirs"] = [topic_id_text(u) for u in d["cordonedLogDirs"]]

    def _clear_elr(self, topic: str) -> None:
        if topic:
            ids = [tid for tid, name in self.topic_names.items() if name == topic]
            if not ids:
                self.problems.append(f"ClearElrRecord for unknown topic {topic!r}")
                return
        else:
            ids = list(self.topic_names)
        wanted = set(ids)
        for (tid, _), p in self.partition_state.items():
            if tid in wanted and (p.get("eligibleLeaderReplicas") or p.get("lastKnownElr")):
                p["eligibleLeaderReplicas"] = []
                p["lastKnownElr"] = []
                p["partitionEpoch"] += 1

    def apply_control(self, rec: Record, batch: RecordBatch) -> None:
        """One record of a control batch: the KRaft quorum's records change the quorum's state; transaction
        markers and snapshot headers and footers change nothing here."""
        ctype = rec.control_type
        if ctype not in (ControlRecordType.KRAFT_VERSION, ControlRecordType.KRAFT_VOTERS,
                         ControlRecordType.LEADER_CHANGE):
            return
        r = decode_control_record(rec.key, rec.value, partition=f"{TOPIC}-0", offset=rec.offset)
        if ctype is ControlRecordType.KRAFT_VERSION:
            self.kraft_version = r.data["kRaftVersion"]
        elif ctype is ControlRecordType.KRAFT_VOTERS:
            self.voter_set = r.data["voters"]
        else:
            self.quorum_leader_id = r.data["leaderId"]
            self.quorum_leader_epoch = batch.partition_leader_epoch

    def _change_partition(self, d: dict[str, Any]) -> None:
        p = self.partition_state.get((d["topicId"], d["partitionId"]))
        if p is None:
            self.problems.append(f"PartitionChangeRecord for unknown partition {topic_id_text(d['topicId'])}"
                                 f"-{d['partitionId']}")
            return
        for name in ("isr", "replicas", "removingReplicas", "addingReplicas", "eligibleLeaderReplicas",
                     "lastKnownElr", "directories"):
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
        """``topic, topic_id, partition, leader, leader_epoch, partition_epoch, replicas, isr,
        eligible_leader_replicas, last_known_elr`` (the two KIP-966 lists empty when never set)."""
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
            "eligible_leader_replicas": pa.array([p.get("eligibleLeaderReplicas") or [] for _, p in rows], ints),
            "last_known_elr": pa.array([p.get("lastKnownElr") or [] for _, p in rows], ints),
        })

    def voters(self) -> pa.Table:
        """``voter_id, directory_id, endpoints, min_kraft_version, max_kraft_version``: the quorum's voters
        by id, from the newest ``VotersRecord`` (no rows when none was written: a static quorum's voters are
        only in ``controller.quorum.voters``)."""
        rows = sorted(self.voter_set or [], key=lambda v: v["voterId"])
        return pa.table({
            "voter_id": pa.array([v["voterId"] for v in rows], pa.int32()),
            "directory_id": [topic_id_text(v["voterDirectoryId"]) for v in rows],
            "endpoints": pa.array([[f"{e['name']}://{e['host']}:{e['port']}" for e in v["endpoints"]] for v in rows],
                                  pa.list_(pa.string())),
            "min_kraft_version": pa.array([v["kRaftVersionFeature"]["minSupportedVersion"] for v in rows], pa.int16()),
            "max_kraft_version": pa.array([v["kRaftVersionFeature"]["maxSupportedVersion"] for v in rows], pa.int16()),
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

    def feed_batch(self, batch: RecordBatch, start: int = 0) -> None:
        """One batch from ``start`` on: a control batch's quorum records, or a data batch's metadata records.
        Before ``start`` (what the snapshot holds) only a control batch's leader changes count: a snapshot
        keeps the voters and ``kraft.version``, not who led."""
        if not batch.is_control:
            if batch.last_offset >= start:
                self.feed(batch.records(check_crc=True), start)
            return
        for rec in batch.records(check_crc=True):
            if rec.offset < start:
                if rec.control_type is not ControlRecordType.LEADER_CHANGE:
                    continue
            else:
                self.state.last_offset = rec.offset
            try:
                self.state.apply_control(rec, batch)
            except CorruptInternalRecordError as exc:
                # the quorum's own record, not cluster metadata: noted, never fatal (the JVM engine's replay of
                # the same log skips control batches, and the two must resolve topic configs alike)
                self.state.problems.append(str(exc))

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


def _snapshot_batches(path: str, label: str) -> Iterator[RecordBatch]:
    """The batches of a KRaft snapshot file, one in memory at a time (a snapshot is record batches framed
    like a segment, written whole: a batch running past the end is damage)."""
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
            yield from MemoryRecords(_io.fs.pread(fd, length, pos)).batches()
            pos += length
    finally:
        _io.fs.close(fd)


def cluster_metadata(root: str | os.PathLike[str], *, errors: str = "raise") -> ClusterMetadata:
    """The cluster metadata in ``root`` (a KRaft data or metadata directory holding
    ``__cluster_metadata-0``, or that directory itself), read-only.

    ``errors="skip"`` notes undecodable records in ``problems`` instead of raising
    :class:`~kvlog.errors.CorruptInternalRecordError`; unknown record types and versions are always noted
    and skipped. The ``quorum-state`` file beside the log is read into ``quorum_state``; one Kafka would
    refuse is noted in ``problems`` (it holds the election state, not the metadata) and leaves it None.
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
        for batch in _snapshot_batches(state.snapshot, f"{TOPIC}-{n}"):
            replay.feed_batch(batch)
        start = int(snapshots[-1][:20])
    with partition_batches(path) as batches:
        for batch in batches:
            replay.feed_batch(batch, start)
    quorum_path = storage.join(path, QUORUM_STATE)
    if _io.fs.exists(quorum_path):
        try:
            state.quorum_state = read_quorum_state(quorum_path)
        except CorruptInternalRecordError as exc:  # the election state, not the metadata: noted, never fatal
            state.problems.append(str(exc))
    return state

