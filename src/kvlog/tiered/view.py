"""A read-only log's remote history: the remote segments below its local log start, as segments of the log.

The tiered view composes a local ``Log`` with remote pieces, above the log package (``docs/layout.md``), as
Kafka's ``UnifiedLog`` composes the ``LocalLog`` with the ``RemoteLogManager``: importing this module registers
:class:`TieredState` with :mod:`kvlog.log.history`, so ``Log.open(path, read_only=True, remote_storage=...)``
makes one, and its loader asks it for :meth:`TieredState.segments_below` once the local segments are loaded.
The partition's remote segments come from ``__remote_log_metadata`` (replayed from
the data directory, or from the directory given as ``remote_log_metadata``), filtered to this topic's
id when ``partition.metadata`` names one; :func:`kvlog.tiered.lineage.plan_remote_pieces` decides which
segment serves which offsets; each piece becomes a read-only ``LogSegment`` over the layout's objects
(:mod:`kvlog.tiered.virtual`), ending where its piece ends.

The metadata's offsets are evidence from outside the segment's checksums: a segment whose first batch
does not start at its metadata's start offset, or whose offset index does not belong to it, is refused
with :class:`~kvlog.errors.RemoteSegmentError` naming the object when it is first read (see
:func:`check_segment`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Union, cast

from kvlog import _files, _io, broker_files, storage
from kvlog.errors import ConfigError, KvlogError, RemoteSegmentError, shown_path
from kvlog.internal_topics.layout import partition_dirs
from kvlog.internal_topics.remote_log_metadata import TOPIC, RemoteLogMetadata, replay_remote_log_metadata
from kvlog.log.history import register_history
from kvlog.segment import LogSegment
from kvlog.tiered.base import RemoteSegment, RemoteStorage
from kvlog.tiered.lineage import RemotePiece, plan_remote_pieces
from kvlog.tiered.virtual import VirtualTier, tier_pool

if TYPE_CHECKING:
    from kvlog.log.log import Log

__all__ = ["RemoteLogMetadataSource", "remote_segments_of", "remote_pieces", "TieredState"]

#: where the remote segments come from: a directory holding ``__remote_log_metadata-N`` partitions (or one
#: such partition), a replay already made, or the segments themselves
RemoteLogMetadataSource = Union[str, "os.PathLike[str]", "RemoteLogMetadata", Sequence[RemoteSegment]]


class TieredState:
    """What a tiered view keeps: the layout, its virtual directories and the plan (a ``kvlog.log.history.History``)."""

    __slots__ = ("remote", "tier", "pieces", "metadata", "planned")

    def __init__(self, remote: RemoteStorage, metadata: RemoteLogMetadataSource | None,
                 planned: Sequence[RemotePiece] | None = None) -> None:
        self.remote = remote
        self.tier = VirtualTier(remote)
        self.pieces: list[RemotePiece] = []
        self.metadata = metadata
        self.planned = None if planned is None else list(planned)  # a Spark task's pieces, planned by the driver

    @classmethod
    def opened(cls, remote: object, metadata: object, planned: object) -> "TieredState":
        """``Log.open``'s ``remote_storage``, ``remote_log_metadata`` and ``_remote_pieces``, as given."""
        return cls(cast(RemoteStorage, remote), cast("RemoteLogMetadataSource | None", metadata),
                   cast("Sequence[RemotePiece] | None", planned))

    def segments_below(self, log: "Log", local_start: int | None, log_start: int) -> list[LogSegment]:
        return _remote_segments(log, self, local_start, log_start)

    def close(self) -> None:
        self.tier.close()


def remote_pieces(log: "Log") -> tuple[RemotePiece, ...]:
    """The remote pieces a tiered view of ``log`` reads, by offset; none for a log opened without remote storage."""
    state = log.history
    return tuple(state.pieces) if isinstance(state, TieredState) else ()


_REPLAYS: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]]]] = {}  # local directory → (signature, rows)
_REPLAYS_LOCK = threading.Lock()


def _signature(path: str) -> tuple[Any, ...] | None:
    """What the local ``__remote_log_metadata`` partitions under ``path`` hold now: each file's name, size and
    modification time (a partition directory itself, or a data directory of them). None: do not cache."""
    if storage.is_remote(path):
        return None
    try:
        sig = []
        for d, _ in partition_dirs(path, TOPIC):
            for name in sorted(os.listdir(d)):
                st = os.stat(os.path.join(d, name))
                sig.append((d, name, st.st_size, st.st_mtime_ns))
        return tuple(sig)
    except (OSError, KvlogError):
        return None


def _replayed_rows(source: Any) -> list[dict[str, Any]]:
    """The replay's rows; a local directory's replay is kept while its files do not change (every partition
    of a data directory opened one after another would replay the same records again)."""
    if isinstance(source, RemoteLogMetadata):
        rows: list[dict[str, Any]] = source.segments().to_pylist()
        return rows
    path = storage.normalize(os.fspath(source))
    sig = _signature(path)
    if sig is not None:
        with _REPLAYS_LOCK:
            kept = _REPLAYS.get(path)
        if kept is not None and kept[0] == sig:
            return kept[1]
    rows = replay_remote_log_metadata(os.fspath(source)).segments().to_pylist()
    if sig is not None:
        with _REPLAYS_LOCK:
            if len(_REPLAYS) > 16:
                _REPLAYS.clear()
            _REPLAYS[path] = (sig, rows)
    return rows


def remote_segments_of(source: RemoteLogMetadataSource, topic: str, partition: int,
                       topic_id: str | None) -> list[RemoteSegment]:
    """The remote segments of one partition that are part of its log (``in_log``), by start offset."""
    if isinstance(source, (list, tuple)) and all(isinstance(s, RemoteSegment) for s in source):
        segs = [s for s in source if s.topic == topic and s.partition == partition]
    else:
        rows = [r for r in _replayed_rows(source) if r["in_log"] and r["topic"] == topic
                and r["partition"] == partition]
        segs = [RemoteSegment.from_row(r) for r in rows]
    if topic_id is not None:
        segs = [s for s in segs if s.topic_id == topic_id]  # other ids: a deleted incarnation of the topic
    else:
        ids = sorted({s.topic_id for s in segs})
        if len(ids) > 1:
            raise ConfigError(f"{topic}-{partition}: __remote_log_metadata holds remote segments of {len(ids)} "
                              f"topics of this name ({', '.join(ids)}: the topic was deleted and created again), and "
                              "the partition directory has no partition.metadata to say which is this one; pass "
                              "topic_id= to Log.open")
    return sorted(segs, key=lambda s: (s.start_offset, s.end_offset))


def _metadata_default(log: "Log") -> str:
    return os.path.dirname(log.dir)


def _remote_segments(log: "Log", state: TieredState, local_start: int | None, log_start: int) -> list[LogSegment]:
    """The remote pieces below ``log``'s first local segment (at ``local_start``), as read-only segments."""
    if state.planned is not None:
        pieces = state.planned
    else:
        topic_id = log.topic_id or broker_files.read_partition_metadata(log.dir)
        source = state.metadata if state.metadata is not None else _metadata_default(log)
        segs = remote_segments_of(source, log.topic, log.partition, topic_id)
        epochs_path = os.path.join(log.dir, broker_files.LEADER_EPOCH_CHECKPOINT)
        local_epochs = broker_files.read_leader_epochs(epochs_path) if _io.fs.exists(epochs_path) else []
        pieces = plan_remote_pieces(segs, local_epochs=local_epochs, log_start_offset=log_start,
                                    local_log_start=local_start)
    for prev, nxt in zip(pieces, pieces[1:]):
        if nxt.start != nxt.segment.start_offset and nxt.segment is not prev.segment:
            raise RemoteSegmentError(
                f"{nxt.segment} overlaps {prev.segment} in the lineage and would be read from offset {nxt.start}, "
                "past its first batch: kvlog reads a remote segment from its start only")
    state.pieces = pieces
    tier = state.tier
    dirs = [tier.add(p.segment) for p in pieces]
    _io.fs.prefetch_files([_files.segment_path(d, p.segment.start_offset, ext) for d, p in zip(dirs, pieces)
                           for ext in (_files.INDEX, _files.TIME_INDEX)])
    cfg = log.config
    opened = []
    try:
        for d, piece in zip(dirs, pieces):
            opened.append(LogSegment(d, piece.segment.start_offset, index_interval_bytes=cfg.index_interval_bytes,
                                     max_index_size=cfg.segment_index_bytes, read_only=True))
        if len(opened) > 1:  # one small read each: together, not one round trip after another
            list(tier_pool().map(check_segment, opened, [p.segment for p in pieces]))
        elif opened:
            check_segment(opened[0], pieces[0].segment)
        for seg, piece in zip(opened, pieces):
            if piece.end <= piece.segment.end_offset:
                seg.limit_to_offset(piece.end)  # the lineage or the local log takes over from here
    except BaseException:
        close_pieces(opened)
        raise
    return opened


def check_segment(seg: LogSegment, remote: RemoteSegment) -> None:
    """The metadata's offsets against the segment's own bytes: its first batch's base offset (one small
    read, kept for the scan that follows) and its offset index's last entry must lie within the
    segment's offsets, or the object is not the segment the metadata describes."""
    where = f"{remote} ({shown_path(seg.log_path)})"
    for index in (seg.offset_index, seg.time_index):
        if index is None:
            continue
        try:
            index.sanity_check(strict=True)
        except KvlogError as exc:
            raise RemoteSegmentError(f"{remote}: its {index.path.rsplit('.', 1)[-1]} file "
                                     f"({shown_path(index.path)}) is damaged ({exc}); the "
                                     "broker could not use it either", path=index.path) from None
    if seg.size_in_bytes >= 12:
        head = seg.pread(0, 12)
        first = int.from_bytes(head[:8], "big", signed=True)
        if not remote.start_offset <= first <= remote.end_offset:
            raise RemoteSegmentError(
                f"{where}: its first batch starts at offset {first}, outside the segment's offsets in "
                "__remote_log_metadata (the object is not this segment, or the metadata is damaged)",
                path=seg.log_path, position=0)
    index = seg.offset_index
    if index is not None and index.entries:
        last = index.last_entry
        if not remote.start_offset <= last.offset <= remote.end_offset or last.position >= seg.size_in_bytes:
            raise RemoteSegmentError(
                f"{where}: its offset index's last entry (offset {last.offset}, position {last.position}) is "
                "not within the segment (the index is not this segment's, or the metadata is damaged)",
                path=seg.log_path)


def close_pieces(segments: Iterable[LogSegment]) -> None:
    for seg in segments:
        seg.close_handlers()


register_history(TieredState.opened)
