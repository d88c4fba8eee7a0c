"""Tiered storage (KIP-405) read without a broker: a partition's remote segments, wherever the broker's
remote storage manager put them, joined with its local segments into one log."""

from kvlog.tiered.aiven import AivenTieredStorage
from kvlog.tiered.base import INDEX_KINDS, RemoteSegment, RemoteSegmentFiles, RemoteStorage
from kvlog.tiered.local_tiered import LocalTieredStorage

__all__ = ["AivenTieredStorage", "INDEX_KINDS", "LocalTieredStorage", "RemoteSegment", "RemoteSegmentFiles", "RemoteStorage"]
