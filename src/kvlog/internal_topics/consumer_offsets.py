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

import base64
import os
import struct
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyarrow as pa

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.decoders import InternalTopic, UnknownSchemaError, decode_coordinator_record
from kvlog.internal_topics.layout import partition_batches, partition_dirs
from kvlog.records import ControlRecordType, RecordBatch

__all__ = ["OffsetsReplay", "consumer_offsets", "offsets_schema"]

TOPIC = InternalTopic.CONSUMER_OFFSETS.value
_OFFSET_COMMIT_TYPES = (0, 1)
_GROUP_TYPES = (2, 3, 11, 17)  # classic, consumer (KIP-848), share and streams (KIP-1071) group metadata

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
        pa.field("topic_id", pa.string()),  # a v4 value's topicId (Kafka's base64 form); null: none (zero)
    ])


_TOPIC_ID_TAG = b"\x01\x00\x10"  # a v4 value's tag section holding only topicId: 1 field, tag 0, 16 bytes
_ZERO = uuid.UUID(int=0)
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")


def _id_text(raw: bytes) -> str | None:
    """A topic id as Kafka prints it, None for the zero id (Uuid.ZERO_UUID: no id)."""
    return None if raw == bytes(16) else base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _short_string(data: bytes, pos: int) -> tuple[str, int] | None:
    if pos + 2 > len(data):
        return None
    n = _I16.unpack_from(data, pos)[0]
    if n < 0 or pos + 2 + n > len(data):
        return None
    return data[pos + 2:pos + 2 + n].decode("utf-8", "replace"), pos + 2 + n


def fast_offset_commit(key: bytes | None, value: bytes | None,
                       ) -> tuple[GroupTopicPartition, tuple[int, int, str, int, int, str | None] | None] | None:
    """An offset-commit record read with ``struct`` alone (most of ``__consumer_offsets``): ``((group,
    topic, partition), (offset, leader epoch, metadata, commit ms, expire ms, topic id text or None) or
    None for a tombstone)``.

    None for anything it does not read plainly (other record types, unusual lengths, trailing bytes,
    tagged fields other than a v4 value's lone ``topicId``): the schema-table codec then decodes it, and
    reports what is wrong.
    """
    if key is None or len(key) < 10 or _I16.unpack_from(key, 0)[0] not in _OFFSET_COMMIT_TYPES:
        return None
    got = _short_string(key, 2)
    if got is None:
        return None
    group, pos = got
    got = _short_string(key, pos)
    if got is None:
        return None
    topic, pos = got
    if pos + 4 != len(key):
        return None
    gtp = (group, topic, _I32.unpack_from(key, pos)[0])
    if value is None:
        return gtp, None
    if len(value) < 10:
        return None
    version = _I16.unpack_from(value, 0)[0]
    offset = _I64.unpack_from(value, 2)[0]
    epoch, pos = -1, 10
    if version >= 3:
        if len(value) < 14:
            return None
        epoch, pos = _I32.unpack_from(value, 10)[0], 14
    if version == 4:
        if pos >= len(value) or value[pos] & 0x80 or value[pos] == 0:
            return None  # not a one-byte compact length of a non-null string
        n = value[pos] - 1
        end = pos + 1 + n
        topic_id = None
        if end + 27 == len(value) and value[end + 8:end + 11] == _TOPIC_ID_TAG:
            topic_id = _id_text(value[end + 11:end + 27])  # Kafka writes no tag for the zero id
        elif end + 9 != len(value) or value[end + 8] != 0:
            return None
        metadata = value[pos + 1:end].decode("utf-8", "replace")
        return gtp, (offset, epoch, metadata, _I64.unpack_from(value, end)[0], -1, topic_id)
    if version not in (0, 1, 2, 3):
        return None
    got = _short_string(value, pos)
    if got is None:
        return None
    metadata, pos = got
    want = pos + (16 if version == 1 else 8)
    if want != len(value):
        return None
    expire = _I64.unpack_from(value, pos + 8)[0] if version == 1 else -1
    return gtp, (offset, epoch, metadata, _I64.unpack_from(value, pos)[0], expire, None)


@dataclass
class _Commit:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp: int
    expire_timestamp: int
    topic_id: str | None  # a v4 value's topicId in Kafka's text form; None when zero or not written
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
            fast = fast_offset_commit(rec.key, rec.value)
            if fast is not None:
                gtp, fields = fast
                if self.group is None or gtp[0] == self.group:
                    commit = None if fields is None else _Commit(*fields, batch.base_offset, rec.offset)
                    self._apply(gtp, commit, batch.producer_id if txn else None)
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
                                 v.get("expireTimestamp", -1), _id_text(v.get("topicId", _ZERO).bytes),
                                 batch.base_offset, rec.offset)
            self._apply(gtp, commit, batch.producer_id if txn else None)

    def _apply(self, gtp: GroupTopicPartition, commit: _Commit | None, producer_id: int | None) -> None:
        """A commit (None: a tombstone), pending under ``producer_id`` when transactional."""
        if producer_id is not None:
            txn_state = self.pending.setdefault(producer_id, {})
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
            "topic_id": pa.array([c.topic_id for _, c in rows], pa.string()),
        }, schema=offsets_schema())


def replay_partition(path: str | os.PathLike[str], partition: int, *, as_of: int | None = None,
                     group: str | None = None, errors: str = "raise") -> OffsetsReplay:
    """Replay one ``__consumer_offsets-N`` directory (opened read-only)."""
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    state = OffsetsReplay(partition, as_of=as_of, group=group, errors=errors)
    with partition_batches(path) as batches:
        for batch in batches:
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
