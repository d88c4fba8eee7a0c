"""Consumer groups' committed offsets, replayed from ``__consumer_offsets`` as the group coordinator
loads them.

The coordinator rebuilds its state by reading each ``__consumer_offsets-N`` partition from the start:
an offset-commit record (types 0 and 1) sets the committed offset of (group, topic, partition), a
tombstone removes it; a transactional commit (TxnOffsetCommit) stays pending under its producer id
until the COMMIT marker applies it (unless a newer plain commit of the same partition was appended
after it) or the ABORT marker drops it. Deleting a group (DeleteGroups, or the expiry of an empty
group) writes a tombstone for each of its offsets and one for the group, so the replay needs no rule
of its own for it: a group tombstone marks the group deleted and the offset tombstones remove the rows.

``as_of`` replays only the records whose timestamp is at most ``as_of``: the state the coordinator
had then (what a failover to a mirror taken at that time needs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyarrow as pa

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.decoders import InternalTopic, UnknownSchemaError, decode_coordinator_record
from kvlog.internal_topics.layout import partition_dirs, read_batches
from kvlog.log import Log
from kvlog.records import ControlRecordType, RecordBatch

__all__ = ["OffsetsReplay", "consumer_offsets", "offsets_schema"]

TOPIC = InternalTopic.CONSUMER_OFFSETS.value
_OFFSET_COMMIT_TYPES = (0, 1)
_GROUP_TYPES = (2, 3, 11)  # classic group, consumer group (KIP-848), share group metadata

GroupTopicPartition = tuple[str, str, int]


def offsets_schema() -> pa.Schema:
    """Columns of :func:`consumer_offsets` (timestamps in UTC milliseconds, as Kafka keeps them)."""
    ts = pa.timestamp("ms", tz="UTC")
    return pa.schema([
        pa.field("group", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("committed_offset", pa.int64(), nullable=False),
        pa.field("leader_epoch", pa.int32()),          # null: not recorded (value < v3, or -1)
        pa.field("metadata", pa.string(), nullable=False),
        pa.field("commit_timestamp", ts, nullable=False),
        pa.field("expire_timestamp", ts),              # null unless a v1 value set it
        pa.field("coordinator_partition", pa.int32(), nullable=False),  # N of __consumer_offsets-N
        pa.field("record_offset", pa.int64(), nullable=False),          # where the commit is in it
    ])


@dataclass
class _Commit:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp: int
    expire_timestamp: int
    batch_offset: int    # base offset of the batch that carried it (Kafka compares these)
    record_offset: int


@dataclass
class OffsetsReplay:
    """The state of one ``__consumer_offsets`` partition, fed batch by batch.

    ``errors="raise"`` (default) stops at a record whose bytes do not decode, with a
    :class:`~kvlog.errors.CorruptInternalRecordError` naming partition, offset and field;
    ``errors="skip"`` notes it in ``problems`` and goes on. Record types and versions the tables do not
    know are always noted and skipped.
    """

    partition: int
    as_of: int | None = None
    group: str | None = None
    errors: str = "raise"
    offsets: dict[GroupTopicPartition, _Commit] = field(default_factory=dict)
    pending: dict[int, dict[GroupTopicPartition, _Commit | None]] = field(default_factory=dict)
    groups: dict[str, bool] = field(default_factory=dict)   # group → alive (False: tombstoned)
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{TOPIC}-{self.partition}"

    def feed(self, batch: RecordBatch) -> None:
        as_of = self.as_of
        if batch.is_control:
            for rec in batch.records(check_crc=True):
                if as_of is not None and (rec.timestamp or 0) > as_of:
                    continue
                if rec.control_type == ControlRecordType.COMMIT:
                    self._commit_pending(batch.producer_id)
                elif rec.control_type == ControlRecordType.ABORT:
                    self.pending.pop(batch.producer_id, None)
            return
        txn = batch.is_transactional
        for rec in batch.records(check_crc=True):
            if as_of is not None and (rec.timestamp or 0) > as_of:
                continue
            try:
                r = decode_coordinator_record(TOPIC, rec.key, rec.value, partition=self.label, offset=rec.offset)
            except UnknownSchemaError as exc:
                self.problems.append(str(exc))
                continue
            except CorruptInternalRecordError as exc:
                if self.errors == "raise":
                    raise
                self.problems.append(str(exc))
                continue
            if not r.known:
                self.problems.append(f"unknown record type {r.record_type} (partition {self.label}, "
                                     f"offset {rec.offset})")
                continue
            assert r.key is not None
            if r.record_type in _GROUP_TYPES:
                gid = r.key.get("group", r.key.get("groupId"))
                if self.group is None or gid == self.group:
                    self.groups[str(gid)] = r.value is not None
                continue
            if r.record_type not in _OFFSET_COMMIT_TYPES:
                continue
            gtp = (r.key["group"], r.key["topic"], r.key["partition"])
            if self.group is not None and gtp[0] != self.group:
                continue
            commit = None
            if r.value is not None:
                v = r.value
                commit = _Commit(v["offset"], v.get("leaderEpoch", -1), v["metadata"], v["commitTimestamp"],
                                 v.get("expireTimestamp", -1), batch.base_offset, rec.offset)
            if txn:
                txn_state = self.pending.setdefault(batch.producer_id, {})
                if commit is None:
                    txn_state.pop(gtp, None)
                else:
                    txn_state[gtp] = commit
            elif commit is None:
                self.offsets.pop(gtp, None)
            else:
                self.offsets[gtp] = commit

    def _commit_pending(self, producer_id: int) -> None:
        for gtp, commit in self.pending.pop(producer_id, {}).items():
            if commit is None:
                continue
            current = self.offsets.get(gtp)
            if current is None or current.batch_offset < commit.batch_offset:
                self.offsets[gtp] = commit

    def table(self) -> pa.Table:
        rows = sorted(self.offsets.items())
        ms = [c.commit_timestamp for _, c in rows]
        return pa.table({
            "group": [g for (g, _, _), _ in rows],
            "topic": [t for (_, t, _), _ in rows],
            "partition": pa.array([p for (_, _, p), _ in rows], pa.int32()),
            "committed_offset": pa.array([c.offset for _, c in rows], pa.int64()),
            "leader_epoch": pa.array([c.leader_epoch if c.leader_epoch >= 0 else None for _, c in rows],
                                     pa.int32()),
            "metadata": [c.metadata for _, c in rows],
            "commit_timestamp": pa.array(ms, pa.int64()).cast(pa.timestamp("ms", tz="UTC")),
            "expire_timestamp": pa.array([c.expire_timestamp if c.expire_timestamp >= 0 else None
                                          for _, c in rows], pa.int64()).cast(pa.timestamp("ms", tz="UTC")),
            "coordinator_partition": pa.array([self.partition] * len(rows), pa.int32()),
            "record_offset": pa.array([c.record_offset for _, c in rows], pa.int64()),
        }, schema=offsets_schema())


def replay_partition(path: str | os.PathLike[str], partition: int, *, as_of: int | None = None,
                     group: str | None = None, errors: str = "raise") -> OffsetsReplay:
    """Replay one ``__consumer_offsets-N`` directory (opened read-only)."""
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    state = OffsetsReplay(partition, as_of=as_of, group=group, errors=errors)
    with Log.open(path, read_only=True) as log:
        for batch in read_batches(log):
            state.feed(batch)
    return state


def replay(root: str | os.PathLike[str], *, as_of: int | None = None, group: str | None = None,
           partitions: Iterable[int] | None = None, errors: str = "raise") -> list[OffsetsReplay]:
    """One :class:`OffsetsReplay` per ``__consumer_offsets`` partition under ``root``."""
    wanted = None if partitions is None else set(partitions)
    return [replay_partition(path, n, as_of=as_of, group=group, errors=errors)
            for path, n in partition_dirs(root, TOPIC) if wanted is None or n in wanted]


def consumer_offsets(root: str | os.PathLike[str], *, as_of: int | None = None, group: str | None = None,
                     errors: str = "raise") -> pa.Table:
    """Every consumer group's committed offsets under ``root`` (a broker's data directory, or one
    ``__consumer_offsets-N`` directory) as an Arrow table (:func:`offsets_schema`).

    The latest state per (group, topic, partition), or the state at ``as_of`` (epoch ms). ``group``
    keeps one group. Nothing is written: every partition is opened read-only.
    """
    tables = [r.table() for r in replay(root, as_of=as_of, group=group, errors=errors)]
    if not tables:
        return offsets_schema().empty_table()
    return pa.concat_tables(tables)
