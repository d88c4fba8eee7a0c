"""LogSegment: one ``.log`` file with its offset index and time index (Kafka's LogSegment), by lifecycle.

``segment`` the class, its files and their life; ``descriptors`` and ``budget`` the process-wide open-file
budget (an LRU of segment descriptors) and a segment's eviction; ``reads`` reads and point searches;
``times`` max timestamps, time-index vouching and the search by time; ``views`` a read-only view's extent;
``recovery`` the audit's cut and the rebuilt indexes. Nothing outside the package uses a private member.
"""

from kvlog.segment._common import HEADER_ROOM as HEADER_ROOM, READ_CHUNK, BatchPosition
from kvlog.segment.segment import LogSegment

__all__ = ["LogSegment", "BatchPosition", "READ_CHUNK"]
