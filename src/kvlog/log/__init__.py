"""A partition's log: ``Log`` and what its API returns and takes (the names ``kvlog.log`` always had).

The package splits Kafka's storage roles: ``log`` (the ``Log`` API, ``UnifiedLog``), ``loader``
(``LogLoader``), ``local`` (segment-list changes, ``LocalLog``), ``segments`` (``LogSegments``), ``append``
(``LogValidator`` and the write), ``producers`` (``ProducerStateManager`` use), ``reads`` and ``retention``.
"""

from kvlog.log._common import (EARLIEST, LATEST, MAX_TIMESTAMP, READ_COMMITTED, READ_UNCOMMITTED, AppendInfo,
                               OffsetAndTimestamp)
from kvlog.log._common import INT32_MAX as INT32_MAX, LONG_MAX as LONG_MAX, read_committed as read_committed
from kvlog.log.log import Log
from kvlog.log.segments import LogSegments as LogSegments
from kvlog.root_files import _RootCheckpoints as _RootCheckpoints, _RootLock as _RootLock

__all__ = ["Log", "AppendInfo", "OffsetAndTimestamp", "LATEST", "EARLIEST", "MAX_TIMESTAMP",
           "READ_UNCOMMITTED", "READ_COMMITTED"]
