"""The topic an export reads: its partitions, each one's exportable range, and the source's identity.

A partition's range ends at what its cluster committed, never past it: a broker's data directory (stopped or
running) at the high watermark its broker last checkpointed (``replication-offset-checkpoint``; records past
it may still be truncated by a leader change), several brokers' directories at what :class:`kvlog.Cluster`
finds committed, a ``kvlog backup`` at its run's cut, a directory without a checkpoint (kvlog's own) at the
log end; with ``read_committed`` also at the last stable offset (no open transaction's records). The
cleaner's checkpoint (``cleaner-offset-checkpoint``) says how far compaction has gone: records the table had
not reached may be gone there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kvlog import checkpoint, storage
from kvlog.errors import ConfigError, UnknownTopicOrPartitionError

__all__ = ["PartitionSpan", "TopicSource"]

_CLEANER_CHECKPOINT = "cleaner-offset-checkpoint"


@dataclass(frozen=True)
class PartitionSpan:
    """One partition: ``[log_start, end)`` may be exported; ``log_end`` is where its log ends (past ``end``:
    not yet committed); ``cleaned_to`` is where the cleaner's checkpoint says compaction reached (None: never)."""

    partition: int
    log_start: int
    end: int
    log_end: int
    cleaned_to: int | None


class TopicSource:
    """``source`` opened once for an export of ``topic`` (see :func:`kvlog.scan` for what a source may be)."""

    def __init__(self, source: Any, topic: str, *, read_committed: bool = True, backup_run: int | None = None,
                 remote_storage: Any = None, remote_log_metadata: Any = None) -> None:
        from kvlog.cluster import LogDirectory
        from kvlog.scanning import OpenedSource

        self.topic = topic
        self.read_committed = read_committed
        self._opened = OpenedSource(source, backup_run=backup_run, remote_storage=remote_storage,
                                    remote_log_metadata=remote_log_metadata)
        self.cluster, self.manager, self.log = self._opened.cluster, self._opened.manager, self._opened.log
        self._hw: dict[tuple[str, int], int] = {}
        self._cleaned: dict[tuple[str, int], int] = {}
        self.cluster_id: str | None = None
        if self.cluster is not None:
            ids = {d.cluster_id for d in self.cluster.directories if d.cluster_id}
            self.cluster_id = ids.pop() if len(ids) == 1 else None
            for d in self.cluster.directories:
                self._cleaned_from(d.root)
        elif self.manager is not None:
            from kvlog.backup.check import is_backup

            root = self.manager.root
            d = LogDirectory.read(root)
            self.cluster_id = d.cluster_id
            if self.manager.backup_run is None and not is_backup(root):
                self._hw = dict(d.high_watermarks)
            self._cleaned_from(root)
        if self.log is not None and self.log.topic != topic:
            self._opened.close()
            raise UnknownTopicOrPartitionError(f"{self.log.dir} holds {self.log.topic}-{self.log.partition}, "
                                               f"not a partition of {topic!r}", topic=topic)

    def _cleaned_from(self, root: str) -> None:
        try:
            table = checkpoint.read_offsets(storage.join(root, _CLEANER_CHECKPOINT))
        except (checkpoint.CorruptCheckpointError, OSError):
            return
        for tp, offset in table.items():
            self._cleaned[tp] = max(offset, self._cleaned.get(tp, offset))

    @property
    def scan_source(self) -> Any:
        """What each partition's scan is given (opened once, kept open by the scans)."""
        return self.cluster if self.cluster is not None else (self.manager if self.manager is not None else self.log)

    def describe(self) -> str:
        if self.cluster is not None:
            return self.cluster.describe()
        if self.manager is not None:
            return self.manager.root
        assert self.log is not None
        return self.log.dir

    def partitions(self) -> list[int]:
        if self.cluster is not None:
            found = self.cluster.partitions(self.topic)
        elif self.manager is not None:
            found = self.manager.partitions(self.topic)
        else:
            assert self.log is not None
            found = [self.log.partition]
        if not found:
            raise UnknownTopicOrPartitionError(f"{self.describe()} holds no topic {self.topic!r}", topic=self.topic)
        return sorted(found)

    @property
    def topic_id(self) -> str | None:
        if self.manager is not None:
            return self.manager.topic_id(self.topic)
        if self.cluster is not None:
            return self.cluster.log(self.topic, self.partitions()[0]).topic_id
        assert self.log is not None
        return self.log.topic_id

    def open(self, partition: int) -> Any:
        if self.cluster is not None:
            return self.cluster.log(self.topic, partition)
        if self.manager is not None:
            return self.manager.log(self.topic, partition)
        assert self.log is not None
        if partition != self.log.partition:
            raise ConfigError(f"{self.log.dir} holds partition {self.log.partition} only")
        return self.log

    def span(self, partition: int) -> PartitionSpan:
        log = self.open(partition)
        end = log.last_stable_offset if self.read_committed else log.log_end_offset
        if self.cluster is not None:
            end = min(end, self.cluster.end_offset(self.topic, partition))
        hw = self._hw.get((self.topic, partition))
        if hw is not None:
            end = min(end, hw)
        start = log.log_start_offset
        return PartitionSpan(partition, start, max(start, end), log.log_end_offset,
                             self._cleaned.get((self.topic, partition)))

    def close(self) -> None:
        self._opened.close()
