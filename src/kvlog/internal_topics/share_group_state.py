"""Share groups' state (KIP-932), replayed from ``__share_group_state`` as the share coordinator loads it:
per (group, topic id, partition) the share-partition start offset, the leader, state and snapshot epochs and
the in-flight state batches -- what ``Admin.listShareGroupOffsets`` (ReadShareGroupStateSummary) answers.

The rules, as Kafka 4.1.2 and 4.4.0's ``ShareCoordinatorShard`` replays records (read from both jars; this
replay gave what 4.4.0's shard holds on random sequences of snapshots, updates and tombstones, and what
4.1.2's holds up to how its batch combiner splits batches, see :func:`combine_batches`):

- a **ShareSnapshot** (type 0) replaces the share partition's state whole: its snapshot, state and leader
  epochs, start offset, delivery-complete count, timestamps and state batches, as written;
- a **ShareSnapshot tombstone** (null value: deleting the group's state, or the cleanup of a deleted topic)
  removes the share partition;
- a **ShareUpdate** (type 1) merges into the state: a start offset or leader epoch of -1 means "unchanged";
  the snapshot epoch, state epoch and timestamps stay the snapshot's (an update carries no state epoch, and
  its snapshot epoch is not read); the delivery-complete count (KIP-1226, Kafka 4.2+) is the update's. The
  batches are combined: the state's and the update's batches lose whatever lies below the new start offset
  (a batch straddling it keeps its part from the start offset on), then every offset takes the state of the
  batch covering it with the highest delivery count, then the highest delivery state (not the newest
  batch), and adjacent offsets with the same count and state form one batch (:func:`combine_batches`);
- a ShareUpdate for a share partition without state starts it from the update alone: state epoch 0, its
  batches as written, no timestamps. A ShareUpdate tombstone is never written (Kafka's coordinator would
  fail loading one): it is reported as a damaged record, and so is a state batch ending before it begins.

Every record applies as it is read: the share coordinator does not write transactions, and its replay
ignores producer ids and transaction markers. ``as_of`` replays only the records whose timestamp is at
most ``as_of``. A start offset of -1 is a share partition initialised without one (the group has not
consumed it): the admin client reports no offset for it, and the table a null ``start_offset``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from kvlog import _files, _io, storage
from kvlog.broker_files import read_partition_metadata
from kvlog.errors import CorruptInternalRecordError, KvlogError
from kvlog.internal_topics.cluster_metadata import cluster_metadata, topic_id_text
from kvlog.internal_topics.decoders import InternalTopic, UnknownSchemaError, decode_coordinator_record
from kvlog.internal_topics.layout import partition_batches, partition_dirs
from kvlog.records import RecordBatch

__all__ = ["DELIVERY_STATES", "ShareStateReplay", "combine_batches", "replay", "share_group_state",
           "share_state_schema", "topic_names"]

TOPIC = InternalTopic.SHARE_GROUP_STATE.value
SNAPSHOT, UPDATE = 0, 1
#: the delivery states a state batch records (``RecordState`` of the share partition; 1, acquired, and 3,
#: archiving, are never persisted)
DELIVERY_STATES = {0: "Available", 1: "Acquired", 2: "Acknowledged", 3: "Archiving", 4: "Archived"}

SharePartitionKey = tuple[str, str, int]    # group, topic id (Kafka's text form), partition
StateBatch = tuple[int, int, int, int]      # first offset, last offset, delivery state, delivery count


def share_state_schema() -> pa.Schema:
    """Columns of :func:`share_group_state` (timestamps in UTC milliseconds, as Kafka keeps them)."""
    ts = pa.timestamp("ms", tz="UTC")
    batch = pa.struct([
        pa.field("first_offset", pa.int64(), nullable=False),
        pa.field("last_offset", pa.int64(), nullable=False),
        pa.field("delivery_state", pa.int8(), nullable=False),   # DELIVERY_STATES
        pa.field("delivery_count", pa.int16(), nullable=False),
    ])
    return pa.schema([
        pa.field("group", pa.string(), nullable=False),
        pa.field("topic", pa.string()),            # null: neither partition.metadata nor the KRaft metadata names it
        pa.field("topic_id", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("start_offset", pa.int64()),      # null: initialised without one (-1), as the admin client says
        pa.field("leader_epoch", pa.int32()),      # null: -1
        pa.field("state_epoch", pa.int32(), nullable=False),
        pa.field("snapshot_epoch", pa.int32(), nullable=False),
        pa.field("delivery_complete_count", pa.int32()),  # KIP-1226 (4.2+); null: not recorded (-1)
        pa.field("state_batches", pa.list_(pa.field("item", batch, nullable=False)), nullable=False),
        pa.field("create_timestamp", ts),          # the snapshot's; null: none (0, a state begun by an update)
        pa.field("write_timestamp", ts),
        pa.field("coordinator_partition", pa.int32(), nullable=False),  # N of __share_group_state-N
        pa.field("record_offset", pa.int64(), nullable=False),          # the last record applied to the row
        pa.field("record_timestamp", ts, nullable=False),               # and its timestamp
    ])


def combine_batches(so_far: Sequence[StateBatch], new: Sequence[StateBatch], start_offset: int,
                    ) -> list[StateBatch]:
    """The share coordinator's ``PersisterStateBatchCombiner``: ``so_far`` and ``new`` pruned below
    ``start_offset`` (-1: no pruning), overlaps resolved per offset by the highest (delivery count,
    delivery state), runs of the same count and state coalesced; sorted by offset.

    This is Kafka 4.4.0's result exactly (its combiner sweeps the offsets; compared on random inputs). Kafka
    4.1.2's (pairs merged in a tree set) gives every offset the same state but can leave two adjacent
    batches of the same count and state apart, where 4.4.0 makes them one.
    """
    pruned: list[StateBatch] = []
    for b in (*so_far, *new):
        if start_offset == -1 or b[0] >= start_offset:
            pruned.append(b)
        elif b[1] >= start_offset:
            pruned.append((start_offset, b[1], b[2], b[3]))
    if len(pruned) < 2:
        return pruned
    # begin at first, end after last; at one offset the ends come first (they only close what came before)
    events = sorted([(b[0], 1, b[3], b[2]) for b in pruned] + [(b[1] + 1, 0, b[3], b[2]) for b in pruned])
    active: Counter[tuple[int, int]] = Counter()
    out: list[StateBatch] = []
    current: tuple[int, int] | None = None   # (count, state) of the highest batch open since `prev`
    prev = -1
    i = 0
    while i < len(events):
        offset = events[i][0]
        if current is not None and offset > prev:
            count, state = current
            if out and out[-1][1] + 1 == prev and out[-1][2] == state and out[-1][3] == count:
                out[-1] = (out[-1][0], offset - 1, state, count)
            else:
                out.append((prev, offset - 1, state, count))
        while i < len(events) and events[i][0] == offset:
            _, begin, count, state = events[i]
            if begin:
                active[(count, state)] += 1
            else:
                active[(count, state)] -= 1
                if not active[(count, state)]:
                    del active[(count, state)]
            i += 1
        current = max(active) if active else None
        prev = offset
    return out


@dataclass
class _State:
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int
    batches: list[StateBatch]
    create_timestamp: int
    write_timestamp: int
    record_offset: int
    record_timestamp: int


def _batches(value: dict[str, Any], label: str, offset: int) -> list[StateBatch]:
    out = []
    for i, b in enumerate(value["stateBatches"]):
        if b["firstOffset"] > b["lastOffset"]:
            # Kafka's combiner fails on one (an end before its begin); the record is damaged
            raise CorruptInternalRecordError(f"a state batch from {b['firstOffset']} to {b['lastOffset']}",
                                             field=f"value.stateBatches[{i}]", partition=label, offset=offset)
        out.append((b["firstOffset"], b["lastOffset"], b["deliveryState"], b["deliveryCount"]))
    return out


@dataclass
class ShareStateReplay:
    """The state of one ``__share_group_state`` partition, fed batch by batch.

    ``errors="raise"`` (default) stops at a record whose bytes do not decode (or that Kafka could not
    replay: a ShareUpdate tombstone, a state batch ending before it begins) with a
    :class:`~kvlog.errors.CorruptInternalRecordError` naming partition, offset and field; ``errors="skip"``
    notes it in ``problems`` and goes on. Record types and versions the tables do not know are always noted
    and skipped.
    """

    partition: int
    as_of: int | None = None
    group: str | None = None
    errors: str = "raise"
    states: dict[SharePartitionKey, _State] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{TOPIC}-{self.partition}"

    def feed(self, batch: RecordBatch) -> None:
        if batch.is_control:   # the share coordinator ignores transaction markers
            return
        for rec in batch.records(check_crc=True):
            timestamp = rec.timestamp or 0
            if self.as_of is not None and timestamp > self.as_of:
                continue
            try:
                self._apply(rec.key, rec.value, rec.offset, timestamp)
            except UnknownSchemaError as exc:
                self.problems.append(str(exc))
            except CorruptInternalRecordError as exc:
                if self.errors == "raise":
                    raise
                self.problems.append(str(exc))

    def _apply(self, key: bytes | None, value: bytes | None, offset: int, timestamp: int) -> None:
        r = decode_coordinator_record(TOPIC, key, value, partition=self.label, offset=offset)
        if not r.known:
            self.problems.append(f"unknown record type {r.record_type} (partition {self.label}, offset {offset})")
            return
        assert r.key is not None
        group = r.key["groupId"]
        if self.group is not None and group != self.group:
            return
        spk = (group, topic_id_text(r.key["topicId"]), r.key["partition"])
        v = r.value
        if r.record_type == SNAPSHOT:
            if v is None:
                self.states.pop(spk, None)
                return
            self.states[spk] = _State(v["snapshotEpoch"], v["stateEpoch"], v["leaderEpoch"], v["startOffset"],
                                      v["deliveryCompleteCount"], _batches(v, self.label, offset),
                                      v["createTimestamp"], v["writeTimestamp"], offset, timestamp)
            return
        if v is None:
            raise CorruptInternalRecordError("a ShareUpdate tombstone (Kafka writes none, and its share "
                                             "coordinator cannot replay one)", field="value",
                                             partition=self.label, offset=offset)
        batches = _batches(v, self.label, offset)
        state = self.states.get(spk)
        if state is None:
            self.states[spk] = _State(v["snapshotEpoch"], 0, v["leaderEpoch"], v["startOffset"],
                                      v["deliveryCompleteCount"], batches, 0, 0, offset, timestamp)
            return
        if v["startOffset"] != -1:
            state.start_offset = v["startOffset"]
        if v["leaderEpoch"] != -1:
            state.leader_epoch = v["leaderEpoch"]
        state.delivery_complete_count = v["deliveryCompleteCount"]
        state.batches = combine_batches(state.batches, batches, state.start_offset)
        state.record_offset, state.record_timestamp = offset, timestamp

    def table(self, names: dict[str, str] | None = None) -> pa.Table:
        """The share partitions as rows of :func:`share_state_schema`; ``names`` maps topic ids to names."""
        return _table(self.states.items(), self.partition, names or {})


def _or_null(value: int, null: int) -> int | None:
    return None if value == null else value


def _table(items: Iterable[tuple[SharePartitionKey, _State]], partition: int | list[int],
           names: dict[str, str]) -> pa.Table:
    rows = list(items)
    parts = partition if isinstance(partition, list) else [partition] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    rows = [rows[i] for i in order]
    parts = [parts[i] for i in order]
    ts = pa.timestamp("ms", tz="UTC")
    schema = share_state_schema()

    def stamps(values: list[int | None]) -> pa.Array:
        return pa.array(values, pa.int64()).cast(ts)

    return pa.table({
        "group": [k[0] for k, _ in rows],
        "topic": pa.array([names.get(k[1]) for k, _ in rows], pa.string()),
        "topic_id": [k[1] for k, _ in rows],
        "partition": pa.array([k[2] for k, _ in rows], pa.int32()),
        "start_offset": pa.array([_or_null(s.start_offset, -1) for _, s in rows], pa.int64()),
        "leader_epoch": pa.array([_or_null(s.leader_epoch, -1) for _, s in rows], pa.int32()),
        "state_epoch": pa.array([s.state_epoch for _, s in rows], pa.int32()),
        "snapshot_epoch": pa.array([s.snapshot_epoch for _, s in rows], pa.int32()),
        "delivery_complete_count": pa.array([_or_null(s.delivery_complete_count, -1) for _, s in rows],
                                            pa.int32()),
        "state_batches": pa.array([[{"first_offset": b[0], "last_offset": b[1], "delivery_state": b[2],
                                     "delivery_count": b[3]} for b in s.batches] for _, s in rows],
                                  schema.field("state_batches").type),
        "create_timestamp": stamps([_or_null(s.create_timestamp, 0) for _, s in rows]),
        "write_timestamp": stamps([_or_null(s.write_timestamp, 0) for _, s in rows]),
        "coordinator_partition": pa.array(parts, pa.int32()),
        "record_offset": pa.array([s.record_offset for _, s in rows], pa.int64()),
        "record_timestamp": stamps([s.record_timestamp for _, s in rows]),
    }, schema=schema)


def replay_partition(path: str | os.PathLike[str], partition: int, *, as_of: int | None = None,
                     group: str | None = None, errors: str = "raise") -> ShareStateReplay:
    """Replay one ``__share_group_state-N`` directory (opened read-only)."""
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    state = ShareStateReplay(partition, as_of=as_of, group=group, errors=errors)
    with partition_batches(path) as batches:
        for batch in batches:
            state.feed(batch)
    return state


def replay(root: str | os.PathLike[str], *, as_of: int | None = None, group: str | None = None,
           partitions: Iterable[int] | None = None, errors: str = "raise") -> list[ShareStateReplay]:
    """One :class:`ShareStateReplay` per ``__share_group_state`` partition under ``root``."""
    wanted = None if partitions is None else set(partitions)
    return [replay_partition(path, n, as_of=as_of, group=group, errors=errors)
            for path, n in partition_dirs(root, TOPIC) if wanted is None or n in wanted]


def topic_names(root: str | os.PathLike[str], topic_ids: Iterable[str] = ()) -> dict[str, str]:
    """Topic id → name, as far as the data directory ``root`` says: the ``partition.metadata`` of its
    partition directories, then (for ids still unnamed among ``topic_ids``) its KRaft ``__cluster_metadata``.

    Best effort, never raising for what it reads: a damaged ``partition.metadata`` names nothing, a damaged
    metadata log names what its readable records name. ``root`` being one partition directory names nothing.
    """
    text = os.fspath(root)
    path = storage.normalize(text)
    names: dict[str, str] = {}
    if _files.parse_partition_dir(storage.split_query(path)[0]) is not None:
        return names
    try:
        entries = _io.fs.listdir(path)
    except OSError:
        return names
    for name in sorted(entries):
        tp = _files.parse_partition_dir(name)
        if tp is None:
            continue
        try:
            topic_id = read_partition_metadata(storage.join(path, name))
        except (OSError, KvlogError):
            continue
        if topic_id is not None:
            names.setdefault(topic_id, tp[0])
    missing = set(topic_ids) - set(names)
    if missing and any(_files.parse_partition_dir(n) == ("__cluster_metadata", 0) for n in entries):
        try:
            topics = cluster_metadata(text, errors="skip").topics()
        except (OSError, KvlogError):
            return names
        for topic, topic_id in zip(topics.column("topic").to_pylist(), topics.column("topic_id").to_pylist()):
            if topic_id in missing:
                names[topic_id] = topic
    return names


def share_group_state(root: str | os.PathLike[str], *, as_of: int | None = None, group: str | None = None,
                      errors: str = "raise") -> pa.Table:
    """Every share group's share-partition state under ``root`` (a broker's data directory, or one
    ``__share_group_state-N`` directory) as an Arrow table (:func:`share_state_schema`), by group, topic id
    and partition.

    The latest state, or the state at ``as_of`` (epoch ms). ``group`` keeps one group. ``topic`` is the
    topic's name when the data directory names its id (:func:`topic_names`), else null. Nothing is written:
    every partition is opened read-only.
    """
    states = replay(root, as_of=as_of, group=group, errors=errors)
    items = [(k, s) for r in states for k, s in r.states.items()]
    parts = [r.partition for r in states for _ in r.states]
    names = topic_names(root, {k[1] for k, _ in items}) if items else {}
    return _table(items, parts, names)

