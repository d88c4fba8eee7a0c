"""The remote segments a tiered-storage (KIP-405) cluster records in ``__remote_log_metadata``, replayed
the way a broker's ``TopicBasedRemoteLogMetadataManager`` fills its cache.

Every ``__remote_log_metadata-N`` partition under a data directory is read from its start, record by
record, and applied with the rules of Kafka's ``RemotePartitionMetadataStore``,
``RemoteLogMetadataCache`` and ``RemoteLogLeaderEpochState``:

- a segment starts with a ``RemoteLogSegmentMetadataRecord`` in state COPY_SEGMENT_STARTED and moves
  by ``RemoteLogSegmentMetadataUpdateRecord`` s: STARTED → FINISHED or DELETE_SEGMENT_STARTED,
  FINISHED → DELETE_SEGMENT_STARTED, DELETE_SEGMENT_STARTED → DELETE_SEGMENT_FINISHED, and any state to
  itself (a retry). Any other transition, and an update of a segment the cache does not hold, is
  dropped (the broker logs it and goes on); they are listed in ``problems``;
- an update keeps the segment's offsets, leader epochs, size, max timestamp and txn-index flag and
  takes the update's broker id, event time, custom metadata and state;
- per leader epoch, a segment that reaches COPY_SEGMENT_FINISHED takes the epoch's offset slot from
  every finished segment starting at or after it when the epoch's highest offset so far is within the
  new segment's range for that epoch (a new leader re-uploading what a lagging one uploaded): those
  are superseded for that epoch. A segment is part of the log while it is COPY_SEGMENT_FINISHED and
  still holds the slot of at least one of its epochs — which is what the broker's
  ``remoteLogSegmentMetadata(epoch, offset)`` lookup can return;
- a ``RemotePartitionDeleteMetadataRecord`` (DELETE_PARTITION_MARKED, _STARTED, _FINISHED) takes the
  whole partition out of the log; FINISHED drops the partition's cache. Later segment records for it
  find no cache (the broker's store throws on them); here they are dropped and listed in ``problems``.

Records the broker's metadata consumer refuses outright (a segment record not in COPY_SEGMENT_STARTED,
an update to COPY_SEGMENT_STARTED, a snapshot record, which no broker writes to this topic, and what
the Java constructors refuse: a state id Kafka does not define, no leader epochs, a negative start
offset or an end before the start) stop its consumer; here they raise
:class:`~kvlog.errors.CorruptInternalRecordError` naming the partition, offset and field, or with
``errors="skip"`` are listed in ``problems`` and skipped. Unknown record types and versions (a newer
broker) are always listed and skipped.

Not applied here: the broker's check of a segment's leader epochs against the partition's local
leader-epoch checkpoint (that file lives in the user partition's directory, not in this topic).
"""

from __future__ import annotations

import bisect
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from kvlog.errors import CorruptInternalRecordError, DirectoryNotFoundError
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.decoders import (
    InternalTopic,
    RemoteLogMetadataRecord,
    UnknownSchemaError,
    decode_remote_log_metadata_record,
)
from kvlog.internal_topics.layout import partition_batches, partition_dirs
from kvlog.internal_topics.remote_log_text import refusal
from kvlog.internal_topics.schemas_remote import (
    COPY_SEGMENT_FINISHED,
    COPY_SEGMENT_STARTED,
    DELETE_SEGMENT_FINISHED,
    DELETE_SEGMENT_STARTED,
    PARTITION_DELETE_STATES,
    SEGMENT_STATES,
)
from kvlog.records import Record

__all__ = ["RemoteLogMetadata", "remote_log_metadata", "replay_remote_log_metadata", "valid_transition"]

TOPIC = InternalTopic.REMOTE_LOG_METADATA.value
_DELETE_PARTITION_FINISHED = 2

UserPartition = tuple[uuid.UUID, str, int]  # Kafka's TopicIdPartition: topic id, name, partition


def valid_transition(source: int | None, target: int) -> bool:
    """Kafka's ``RemoteLogSegmentState.isValidTransition`` (``source`` None: the segment is new)."""
    if source is None:
        return target == COPY_SEGMENT_STARTED
    if source == target:
        return True
    return (source, target) in {(COPY_SEGMENT_STARTED, COPY_SEGMENT_FINISHED),
                                (COPY_SEGMENT_STARTED, DELETE_SEGMENT_STARTED),
                                (COPY_SEGMENT_FINISHED, DELETE_SEGMENT_STARTED),
                                (DELETE_SEGMENT_STARTED, DELETE_SEGMENT_FINISHED)}


@dataclass
class _Segment:
    """One segment's metadata as the cache holds it, plus where it was last changed."""

    tp: UserPartition
    segment_id: uuid.UUID
    start: int
    end: int
    max_timestamp: int
    size: int
    epochs: dict[int, int]  # leader epoch → its first offset in the segment, epoch order
    txn_index_empty: bool
    broker_id: int
    event_timestamp: int
    custom: bytes | None
    state: int
    where: tuple[int, int]  # metadata partition, offset
    superseded_by: uuid.UUID | None = None

    def epoch_end(self, epoch: int) -> int:
        """The last offset of ``epoch`` in this segment: the next epoch's start - 1, or the segment end."""
        later = [o for e, o in self.epochs.items() if e > epoch]
        return min(later) - 1 if later else self.end


class _EpochState:
    """``RemoteLogLeaderEpochState``: the finished segments of one leader epoch, by start offset."""

    def __init__(self) -> None:
        self.starts: list[int] = []  # sorted keys of by_start
        self.by_start: dict[int, uuid.UUID] = {}
        self.unreferenced: set[uuid.UUID] = set()
        self.highest: int | None = None

    def copy_finished(self, start: int, sid: uuid.UUID, epoch_end: int) -> list[uuid.UUID]:
        """Takes the offset slot; returns the segments it pushed out."""
        pushed = []
        while self.starts and self.starts[-1] >= start and self.highest is not None and self.highest <= epoch_end:
            last = self.starts.pop()
            old = self.by_start.pop(last)
            self.unreferenced.add(old)
            pushed.append(old)
        if start not in self.by_start:
            bisect.insort(self.starts, start)
        elif self.by_start[start] != sid:
            pushed.append(self.by_start[start])  # overwritten in place, as a map put does
        self.by_start[start] = sid
        self.unreferenced.discard(sid)
        if self.highest is None or epoch_end > self.highest:
            self.highest = epoch_end
        return pushed

    def delete_started(self, start: int, sid: uuid.UUID) -> None:
        if self.by_start.get(start) == sid:
            del self.by_start[start]
            self.starts.remove(start)
        self.unreferenced.add(sid)

    def holds(self, start: int, sid: uuid.UUID) -> bool:
        """Whether ``sid`` holds the slot at ``start`` (its first offset in this epoch)."""
        return self.by_start.get(start) == sid


@dataclass
class _PartitionCache:
    """``RemoteLogMetadataCache`` of one user partition; ``gone`` keeps what the broker forgets."""

    segments: dict[uuid.UUID, _Segment] = field(default_factory=dict)
    epochs: dict[int, _EpochState] = field(default_factory=dict)
    gone: dict[uuid.UUID, _Segment] = field(default_factory=dict)

    def epoch(self, e: int) -> _EpochState:
        return self.epochs.setdefault(e, _EpochState())


@dataclass
class RemoteLogMetadata:
    """The replayed cache of every user partition. :meth:`segments` gives it as an Arrow table."""

    partitions: dict[UserPartition, _PartitionCache] = field(default_factory=dict)
    deleted: dict[UserPartition, tuple[int, tuple[int, int]]] = field(default_factory=dict)
    dropped: dict[UserPartition, _PartitionCache] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    records: int = 0

    # ------------------------------------------------------------------------------------- applying
    def apply(self, r: RemoteLogMetadataRecord, where: tuple[int, int], label: str) -> None:
        """One decoded record at ``where`` (metadata partition, offset); raises
        :class:`CorruptInternalRecordError` for a record the broker's consumer would stop on."""
        d = r.data
        self.records += 1
        refused = refusal(r)
        if refused is not None:
            raise CorruptInternalRecordError(f"Kafka refuses this {r.type_name}: {refused[0]}", field=refused[1],
                                             partition=label, offset=where[1])
        if r.api_key == 3:
            raise CorruptInternalRecordError(
                "a RemoteLogSegmentMetadataSnapshotRecord in the topic (brokers only write them to snapshot "
                "files; the broker's consumer refuses it)", field="apiKey", partition=label, offset=where[1])
        if r.api_key == 2:
            self._partition_delete(d, where, label)
            return
        sid_entry = d["remoteLogSegmentId"]
        tp = _tp(sid_entry["topicIdPartition"])
        sid = sid_entry["id"]
        if tp in self.dropped:
            self.problems.append(f"{_where(label, where)}: dropped {r.type_name} for {_tp_text(tp)}: the "
                                 "partition's remote log was deleted (DELETE_PARTITION_FINISHED)")
            return
        cache = self.partitions.setdefault(tp, _PartitionCache())
        if r.api_key == 0:
            self._add_copy_started(cache, tp, sid, d, where, label)
        else:
            self._update(cache, sid, d, where, label)

    def _add_copy_started(self, cache: _PartitionCache, tp: UserPartition, sid: uuid.UUID, d: dict[str, Any],
                          where: tuple[int, int], label: str) -> None:
        state = d["remoteLogSegmentState"]
        if state != COPY_SEGMENT_STARTED:
            raise CorruptInternalRecordError(
                f"a RemoteLogSegmentMetadataRecord in state {SEGMENT_STATES[state]} (the broker adds segments "
                "only as COPY_SEGMENT_STARTED and its consumer stops here)", field="data.remoteLogSegmentState",
                partition=label, offset=where[1])
        existing = cache.segments.get(sid)
        if not valid_transition(None if existing is None else existing.state, state):
            assert existing is not None
            self._illegal(existing, state, sid, where, label)
            return
        epochs = {}
        for entry in d["segmentLeaderEpochs"]:
            epochs[entry["leaderEpoch"]] = entry["offset"]  # a repeated epoch: the last entry wins (a HashMap)
        seg = _Segment(tp, sid, d["startOffset"], d["endOffset"], d["maxTimestampMs"], d["segmentSizeInBytes"],
                       dict(sorted(epochs.items())), d.get("txnIndexEmpty", False), d["brokerId"],
                       d["eventTimestampMs"], d["customMetadata"], state, where)
        for e in seg.epochs:
            cache.epoch(e).unreferenced.add(sid)
        cache.gone.pop(sid, None)
        cache.segments[sid] = seg

    def _update(self, cache: _PartitionCache, sid: uuid.UUID, d: dict[str, Any], where: tuple[int, int],
                label: str) -> None:
        target = d["remoteLogSegmentState"]
        seg = cache.segments.get(sid)
        if seg is None:
            self.problems.append(f"{_where(label, where)}: dropped the update of segment {topic_id_text(sid)} to "
                                 f"{SEGMENT_STATES[target]}: no metadata for it in the cache")
            return
        if not valid_transition(seg.state, target):
            self._illegal(seg, target, sid, where, label)
            return
        if target == COPY_SEGMENT_STARTED:
            raise CorruptInternalRecordError(
                "an update to COPY_SEGMENT_STARTED (the broker's cache refuses it and its consumer stops here)",
                field="data.remoteLogSegmentState", partition=label, offset=where[1])
        seg.broker_id, seg.event_timestamp = d["brokerId"], d["eventTimestampMs"]
        seg.custom, seg.state, seg.where = d["customMetadata"], target, where
        if target == COPY_SEGMENT_FINISHED:
            for e, start in seg.epochs.items():
                for old in cache.epoch(e).copy_finished(start, sid, seg.epoch_end(e)):
                    pushed = cache.segments.get(old)
                    if pushed is not None and old != sid:
                        pushed.superseded_by = sid
        elif target == DELETE_SEGMENT_STARTED:
            for e, start in seg.epochs.items():
                cache.epoch(e).delete_started(start, sid)
        else:  # DELETE_SEGMENT_FINISHED: the broker forgets the segment
            for e in seg.epochs:
                cache.epoch(e).unreferenced.discard(sid)
            cache.gone[sid] = cache.segments.pop(sid)

    def _illegal(self, seg: _Segment, target: int, sid: uuid.UUID, where: tuple[int, int], label: str) -> None:
        self.problems.append(f"{_where(label, where)}: dropped the transition of segment {topic_id_text(sid)} "
                             f"from {SEGMENT_STATES[seg.state]} to {SEGMENT_STATES[target]} (not allowed)")

    def _partition_delete(self, d: dict[str, Any], where: tuple[int, int], label: str) -> None:
        state = d["remotePartitionDeleteState"]
        tp = _tp(d["topicIdPartition"])
        self.deleted[tp] = (state, where)  # the broker checks no transition here: the last state wins
        if state == _DELETE_PARTITION_FINISHED and tp not in self.dropped:
            self.dropped[tp] = self.partitions.pop(tp, _PartitionCache())

    # --------------------------------------------------------------------------------------- output
    def _rows(self) -> Iterable[tuple[_Segment, bool, str | None]]:
        for tp, cache in [*self.partitions.items(), *self.dropped.items()]:
            delete = self.deleted.get(tp)
            for seg in [*cache.segments.values(), *cache.gone.values()]:
                yield seg, *self._verdict(cache, seg, delete)

    @staticmethod
    def _verdict(cache: _PartitionCache, seg: _Segment, delete: tuple[int, tuple[int, int]] | None,
                 ) -> tuple[bool, str | None]:
        if delete is not None:
            return False, f"partition deletion: {PARTITION_DELETE_STATES[delete[0]]}"
        if seg.state == COPY_SEGMENT_STARTED:
            return False, "copy not finished"
        if seg.state == DELETE_SEGMENT_STARTED:
            return False, "delete started"
        if seg.state == DELETE_SEGMENT_FINISHED:
            return False, "deleted"
        if any(e in cache.epochs and cache.epochs[e].holds(o, seg.segment_id) for e, o in seg.epochs.items()):
            return True, None
        by = f" by {topic_id_text(seg.superseded_by)}" if seg.superseded_by is not None else ""
        return False, f"superseded{by}"

    def segments(self) -> pa.Table:
        """One row per remote segment; ``in_log`` says whether it is part of the partition's log and
        ``reason`` why not. Sorted by topic, partition and start offset."""
        rows = sorted(self._rows(), key=lambda r: (r[0].tp[1], r[0].tp[0].bytes, r[0].tp[2], r[0].start, r[0].end,
                                                    r[0].segment_id.bytes))
        segs = [r[0] for r in rows]
        return pa.table({
            "topic_id": pa.array([topic_id_text(s.tp[0]) for s in segs], pa.string()),
            "topic": pa.array([s.tp[1] for s in segs], pa.string()),
            "partition": pa.array([s.tp[2] for s in segs], pa.int32()),
            "segment_id": pa.array([topic_id_text(s.segment_id) for s in segs], pa.string()),
            "start_offset": pa.array([s.start for s in segs], pa.int64()),
            "end_offset": pa.array([s.end for s in segs], pa.int64()),
            "state": pa.array([SEGMENT_STATES[s.state] for s in segs], pa.string()),
            "leader_epochs": pa.array([list(s.epochs.items()) for s in segs], pa.map_(pa.int32(), pa.int64())),
            "broker_id": pa.array([s.broker_id for s in segs], pa.int32()),
            "event_timestamp": pa.array([s.event_timestamp for s in segs], pa.int64()),
            "max_timestamp": pa.array([s.max_timestamp for s in segs], pa.int64()),
            "segment_size": pa.array([s.size for s in segs], pa.int32()),
            "custom_metadata": pa.array([s.custom for s in segs], pa.binary()),
            "txn_index_empty": pa.array([s.txn_index_empty for s in segs], pa.bool_()),
            "in_log": pa.array([r[1] for r in rows], pa.bool_()),
            "reason": pa.array([r[2] for r in rows], pa.string()),
            "metadata_partition": pa.array([s.where[0] for s in segs], pa.int32()),
            "metadata_offset": pa.array([s.where[1] for s in segs], pa.int64()),
        })


def _tp(entry: dict[str, Any]) -> UserPartition:
    return entry["id"], entry["name"], entry["partition"]


def _tp_text(tp: UserPartition) -> str:
    """Kafka's ``TopicIdPartition.toString``: ``<topic id>:<topic>-<partition>``."""
    return f"{topic_id_text(tp[0])}:{tp[1]}-{tp[2]}"


def _where(label: str, where: tuple[int, int]) -> str:
    return f"{label} offset {where[1]}"


def _feed(state: RemoteLogMetadata, records: Iterable[Record], n: int, label: str, errors: str) -> None:
    for rec in records:
        try:
            r = decode_remote_log_metadata_record(rec.value, partition=label, offset=rec.offset)
            state.apply(r, (n, rec.offset), label)
        except UnknownSchemaError as exc:
            state.problems.append(str(exc))
        except CorruptInternalRecordError as exc:
            if errors == "raise":
                raise
            state.problems.append(str(exc))


def replay_remote_log_metadata(root: str | os.PathLike[str], *, errors: str = "raise") -> RemoteLogMetadata:
    """The replayed cache of every ``__remote_log_metadata-N`` partition in ``root`` (a data directory,
    local or an object-store URI, or one such partition directory), read-only, with its ``problems``."""
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    dirs = partition_dirs(root, TOPIC)
    if not dirs:
        raise DirectoryNotFoundError(f"no {TOPIC}-N directory in {os.fspath(root)}")
    state = RemoteLogMetadata()
    for path, n in dirs:
        label = f"{TOPIC}-{n}"
        with partition_batches(path) as batches:
            for batch in batches:
                if not batch.is_control:
                    _feed(state, batch.records(check_crc=True), n, label, errors)
    return state


def remote_log_metadata(root: str | os.PathLike[str], *, errors: str = "raise") -> pa.Table:
    """Every remote segment the ``__remote_log_metadata`` partitions in ``root`` record, one row each, as
    the broker's cache holds it after replaying them (see :meth:`RemoteLogMetadata.segments`).

    ``errors="skip"`` skips records the broker's consumer would stop on instead of raising
    :class:`~kvlog.errors.CorruptInternalRecordError`; :func:`replay_remote_log_metadata` also returns
    the list of skipped and dropped records.
    """
    return replay_remote_log_metadata(root, errors=errors).segments()
