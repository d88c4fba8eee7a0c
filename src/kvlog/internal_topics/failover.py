"""Failover offsets: where a consumer group should resume on a mirror of the cluster it consumed from.

Offsets do not carry over to a mirror (the mirror assigns its own), timestamps do. For each partition
the group had committed, the resume point on the mirror is the earliest offset whose timestamp is at
least the *anchor* timestamp minus a safety margin (KIP-33's time index, ``offset_for_timestamp``), as
``kafka-consumer-groups --reset-offsets --to-datetime`` would find it:

* anchor ``record`` (default): the timestamp of the record at the committed offset, i.e. the next
  record the group had not consumed, read from the source's copy of the partition. This does not skip
  records a lagging group had not reached yet when it committed.
* anchor ``commit`` (or when the source partition is not there, or the group had consumed everything
  it holds): the commit timestamp of the offset commit.

A margin makes the resume earlier: records are then delivered again rather than lost (at-least-once).
When the mirror holds no record that recent, the resume point is its log end offset.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa

from kvlog.errors import ConfigError
from kvlog.internal_topics.consumer_offsets import consumer_offsets
from kvlog.internal_topics.layout import partition_dirs
from kvlog.log import Log

__all__ = ["ResumeOffset", "failover_offsets"]

ANCHORS = ("record", "commit")


@dataclass(frozen=True)
class ResumeOffset:
    """The resume point of one partition of a group on the mirror.

    ``target_offset`` is None when the mirror has no such partition; ``target_timestamp`` is -1 when
    the resume point is the mirror's log end offset (no record at or after the search time).
    """

    group: str
    topic: str
    partition: int
    committed_offset: int
    commit_timestamp: int
    anchor: str
    anchor_timestamp: int
    search_timestamp: int
    target_topic: str
    target_offset: int | None
    target_timestamp: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _partition_path(root: str | os.PathLike[str], topic: str, partition: int) -> str | None:
    for path, n in partition_dirs(root, topic):
        if n == partition:
            return path
    return None


def _record_timestamp(path: str | None, offset: int) -> int | None:
    """The timestamp of the first record at or after ``offset`` in a source partition, if it holds one."""
    if path is None:
        return None
    with Log.open(path, read_only=True) as log:
        if not log.log_start_offset <= offset < log.log_end_offset:
            return None
        for n, rec in enumerate(log.records(offset)):
            if rec.timestamp is not None and rec.timestamp >= 0:
                return rec.timestamp
            if n >= 1000:  # v0 records carry no timestamp: give up rather than scan the log
                break
    return None


def failover_offsets(source_root: str | os.PathLike[str], group: str, target_root: str | os.PathLike[str], *,
                     as_of: int | None = None, margin_ms: int = 0, anchor: str = "record",
                     topic_map: dict[str, str] | None = None) -> list[ResumeOffset]:
    """The resume offset on ``target_root`` of every partition ``group`` had committed in
    ``source_root`` (at ``as_of``, epoch ms, or latest), by partition. Both roots are opened read-only.

    ``topic_map`` renames source topics to their mirror names (as ``kvlog mirror --topic-map`` did).
    """
    if anchor not in ANCHORS:
        raise ConfigError(f"anchor must be one of {', '.join(ANCHORS)}, not {anchor!r}")
    if margin_ms < 0:
        raise ConfigError(f"margin must be >= 0 ms, got {margin_ms}")
    names = topic_map or {}
    table = consumer_offsets(source_root, as_of=as_of, group=group)
    out = []
    commit_ms = table.column("commit_timestamp").cast(pa.int64()).to_pylist()
    for row, commit_ts in zip(table.select(["topic", "partition", "committed_offset"]).to_pylist(), commit_ms):
        topic, partition, committed = row["topic"], row["partition"], row["committed_offset"]
        used, anchor_ts = "commit", commit_ts
        if anchor == "record":
            found = _record_timestamp(_partition_path(source_root, topic, partition), committed)
            if found is not None:
                used, anchor_ts = "record", found
        search = max(0, anchor_ts - margin_ms)
        target_topic = names.get(topic, topic)
        path = _partition_path(target_root, target_topic, partition)
        target_offset: int | None = None
        target_ts = -1
        if path is not None:
            with Log.open(path, read_only=True) as log:
                hit = log.offset_for_timestamp(search)
                if hit is None:
                    target_offset = log.log_end_offset
                else:
                    target_offset, target_ts = hit.offset, hit.timestamp
        out.append(ResumeOffset(group, topic, partition, committed, commit_ts, used, anchor_ts, search,
                                target_topic, target_offset, target_ts))
    return out
