"""A log's ``partition.metadata`` and ``leader-epoch-checkpoint`` (:mod:`kvlog.broker_files`), kept as a
broker keeps them (Kafka's ``UnifiedLog`` and ``LogLoader``).

The topic id: a writer given one (by its ``LogManager``, or ``Log.open(topic_id=...)``) writes it when the
directory has none, and refuses a directory that names another (``InconsistentTopicIdError``). A log opened
alone without one takes its topic's id from the data directory (``kvlog-topics.json``, else a sibling
partition's ``partition.metadata``; ``__cluster_metadata`` has Kafka's reserved id) and otherwise makes a
new one and keeps it in the directory: a KRaft broker's logs always have an id. ``topic_id=NO_TOPIC_ID``
writes none (a log for a cluster whose id is not known yet). A reader checks the file when there is one and
never writes.

The leader epochs: every append takes in its batches' partition leader epochs before the batches are
written (Kafka assigns before the write too); ``truncate_to`` cuts the entries at the new end, a moved log
start offset (delete_records, retention) cuts them at the start, ``truncate_fully_and_start_at`` clears
them. Each change is written at once, atomically. A writer's open finishes what a crash interrupted:
the recovered segments' batches are taken in, then entries past the log end and before the log start are
cut (``LogLoader.load``). Without a readable checkpoint (a directory kvlog wrote before it kept one, a
damaged file, or an empty or zero-filled one a crash left) the entries are rebuilt from every segment's batch headers,
once.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from kvlog import _files, _io
from kvlog.broker_files import (
    LEADER_EPOCH_CHECKPOINT,
    METADATA_TOPIC_ID,
    NO_TOPIC_ID,
    PARTITION_METADATA,
    LeaderEpochCache,
    new_topic_id,
    parse_leader_epochs,
    parse_topic_id,
    read_partition_metadata,
    write_leader_epochs,
    write_partition_metadata,
)
from kvlog.checkpoint import CorruptCheckpointError
from kvlog.errors import CorruptRecordError, InconsistentTopicIdError, KvlogError
from kvlog.root_files import TOPICS_FILE, read_topics_file

if TYPE_CHECKING:
    from kvlog.log.log import Log


class PartitionFiles:
    """One log's topic id and, for a writer, its leader-epoch cache (None for a reader)."""

    __slots__ = ("dir", "topic_id", "cache", "write_id")

    def __init__(self, directory: str, topic_id: str | None):
        self.dir = directory
        self.write_id = topic_id != NO_TOPIC_ID
        self.topic_id = parse_topic_id(topic_id) if topic_id else None
        self.cache: LeaderEpochCache | None = None

    @property
    def checkpoint_path(self) -> str:
        return os.path.join(self.dir, LEADER_EPOCH_CHECKPOINT)

    # ----------------------------------------------------------------------------------- opening
    def load_reader(self, names: list[str]) -> None:
        """A read-only open: check ``partition.metadata`` when the listing has it, against the id expected."""
        found = read_partition_metadata(self.dir) if PARTITION_METADATA in names else None
        if found is None:
            return
        self._check_id(found)
        self.topic_id = found

    def load_writer(self, log: Log, names: list[str], recovered: list[np.ndarray]) -> None:
        """A writer's open, after recovery set the segments and offsets: the topic id written when missing,
        the leader epochs brought in line with the batches on disk (and written when they changed)."""
        found = read_partition_metadata(self.dir) if PARTITION_METADATA in names else None
        if found is not None:
            self._check_id(found)
            self.topic_id = found
        elif self.write_id:
            if self.topic_id is None:
                self.topic_id = data_directory_topic_id(os.path.dirname(self.dir), log.topic) or new_topic_id()
            write_partition_metadata(self.dir, self.topic_id)
        stored = _stored_epochs(self.checkpoint_path) if LEADER_EPOCH_CHECKPOINT in names else None
        if stored is None:  # rebuilt from the batches
            cache = self.cache = LeaderEpochCache()
            for seg in log._segments:
                _apply_segment(cache, seg)
        else:
            cache = self.cache = LeaderEpochCache(stored)
            for h in recovered:
                cache.apply_batches(h["magic"], h["partition_leader_epoch"], h["base_offset"])
        cache.truncate_from_end(log._next_offset)
        cache.truncate_from_start(log.log_start_offset)
        if stored != cache.entries:
            self.save()

    def _check_id(self, found: str) -> None:
        if self.topic_id is not None and found != self.topic_id:
            raise InconsistentTopicIdError(
                f"{os.path.join(self.dir, PARTITION_METADATA)} names topic id {found}, but the topic's id is "
                f"{self.topic_id}: this directory belongs to another topic (or cluster)")

    # ---------------------------------------------------------------------------------- changes
    def save(self) -> None:
        assert self.cache is not None
        write_leader_epochs(self.checkpoint_path, self.cache.entries)

    def on_append(self, data: object, rows: np.ndarray | None) -> None:
        """Batches about to be written (``rows`` their header rows, None for the one batch in ``data``)."""
        cache = self.cache
        if cache is None:
            return
        if rows is None:
            view = memoryview(data).cast("B")  # type: ignore[arg-type]
            changed = cache.apply_batch(view[16], int.from_bytes(view[12:16], "big", signed=True),
                                        int.from_bytes(view[0:8], "big", signed=True))
        else:
            changed = cache.apply_batches(rows["magic"], rows["partition_leader_epoch"], rows["base_offset"])
        if changed:
            self.save()

    def truncate_from_end(self, end_offset: int) -> None:
        if self.cache is not None and self.cache.truncate_from_end(end_offset):
            self.save()

    def truncate_from_start(self, start_offset: int) -> None:
        if self.cache is not None and self.cache.truncate_from_start(start_offset):
            self.save()

    def clear(self) -> None:
        if self.cache is not None and self.cache.clear():
            self.save()


def _stored_epochs(path: str) -> list[tuple[int, int]] | None:
    """The checkpoint's entries; None for a damaged file, and for one of no bytes or only zero bytes: what a
    crash can leave of an atomic replace whose data never reached the disk (neither Kafka nor kvlog writes
    one, so it says nothing; Kafka would read a 0-byte file as no entries)."""
    try:
        data = _io.fs.read_file(path)
    except FileNotFoundError:
        return None
    if not data.strip(b"\0"):
        return None
    try:
        return parse_leader_epochs(data, path)
    except CorruptCheckpointError:
        return None


def _apply_segment(cache: LeaderEpochCache, seg: object) -> None:
    """Take in one segment's batches (headers only), up to the first damaged one."""
    try:
        for h in seg.iter_headers():  # type: ignore[attr-defined]
            cache.apply_batches(h["magic"], h["partition_leader_epoch"], h["base_offset"])
    except CorruptRecordError:
        pass  # recovery judged this segment trustworthy; a read will raise where it is not


def data_directory_topic_id(root: str, topic: str) -> str | None:
    """The id the data directory ``root`` gives ``topic``: kvlog's topic table, else the ``partition.metadata``
    of one of its partition directories (Kafka's reserved id for ``__cluster_metadata``); None when none has
    one. A log opened without a manager takes its id from here."""
    if topic == _files.CLUSTER_METADATA:
        return METADATA_TOPIC_ID
    try:
        entry = read_topics_file(os.path.join(root, TOPICS_FILE)).get(topic)
    except KvlogError:
        entry = None
    if entry is not None and isinstance(entry.get("topic_id"), str):
        return str(entry["topic_id"])
    try:
        names = sorted(_io.fs.listdir(root))
    except OSError:
        return None
    for name in names:
        if _files.parse_partition_dir(name) is not None and name.rpartition("-")[0] == topic:
            try:
                found = read_partition_metadata(os.path.join(root, name))
            except (KvlogError, OSError):
                continue
            if found is not None:
                return found
    return None
