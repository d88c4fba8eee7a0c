"""A partition's log: ``Log`` and what its API returns and takes (the names ``kvlog.log`` always had).

The package splits Kafka's storage roles: ``log`` (the ``Log`` API, ``UnifiedLog``), ``loader``
(``LogLoader``), ``segments`` (``LogSegments``), ``append`` (``LogValidator`` and the write),
``producers`` (``ProducerStateManager`` use), ``reads`` and ``retention``.
"""

from kvlog.log._common import (EARLIEST, INT32_MAX, LATEST, LONG_MAX, MAX_TIMESTAMP, READ_COMMITTED, READ_UNCOMMITTED,
                               AppendInfo, OffsetAndTimestamp, read_committed)
from kvlog.log.log import Log
from kvlog.log.segments import LogSegments
from kvlog.root_files import _RootCheckpoints, _RootLock

__all__ = ["Log", "AppendInfo", "OffsetAndTimestamp", "LATEST", "EARLIEST", "MAX_TIMESTAMP",
           "READ_UNCOMMITTED", "READ_COMMITTED", "read_committed", "LogSegments", "INT32_MAX", "LONG_MAX",
           "_RootCheckpoints", "_RootLock"]
