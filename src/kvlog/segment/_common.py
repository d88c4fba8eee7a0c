"""What the segment package's modules share: sizes of reads and windows, the descriptor budget's handles,
and the small tuples a segment returns or keeps."""

from __future__ import annotations

import threading
from typing import NamedTuple

from kvlog._core import point as _p
from kvlog.segment import budget

READ_CHUNK = 1 << 20
INT32_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
NO_TIMESTAMP = -1
#: a point operation's first window past ``index.interval.bytes``: room for the target's batch header
HEADER_ROOM = 64
#: the largest window a point search grows to before it steps batch by batch
MAX_WINDOW = 8 << 20
#: reads from this size on go to pooled memory (huge pages, reused) instead of a fresh bytes
POOLED_READ = 1 << 20
#: the first window of a fetch bounded by an offset (``stop_offset``): the bound is usually near, so the
#: window grows fourfold from here instead of reading ``max_size`` bytes at once
BOUNDED_WINDOW = 4 << 10
FOUND, NEED, DECODE = _p.FOUND, _p.NEED, _p.DECODE
fd_budget = budget.budget  # (the segments use it as `_common.fd_budget`: a test swaps in its own)
get_ident = threading.get_ident
clock = budget.clock


class Evicted(NamedTuple):
    """What an evicted segment's ``.log`` was, to reopen that very file."""

    identity: tuple[int, int]  # (device, inode)
    size: int  # its length then (nothing changes it until it reopens)
    head: bytes | None  # a reader's: its first bytes (an inode number alone may be reused)


class BatchPosition(NamedTuple):
    """Where a batch sits in its segment: its offsets, byte position and size."""

    base_offset: int
    last_offset: int
    position: int
    size: int
    max_timestamp: int
