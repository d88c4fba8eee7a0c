"""The process-wide budget of descriptors that log segments keep open (an LRU).

A segment holds up to three descriptors: its ``.log`` and, for a writer, one per mapped index (an
``mmap`` keeps a duplicate of the descriptor it was made from). A log of 10,000 segments kept all of
them open and died with ``EMFILE``; Kafka opens indexes lazily and keeps about one descriptor per
segment. kvlog keeps at most :func:`max_open_files` segment descriptors open in the whole process,
however many logs it has open (a ``LogManager`` opens one per partition): past that, the least recently
used segments give theirs back and take them again, transparently, on their next use.

What eviction means:

* A writer's segment keeps all its state in memory (sizes, counts, the last entries); only the ``.log``
  descriptor and the index mappings go. Eviction writes nothing and flushes nothing: written pages stay
  in the OS page cache, and the next ``flush()`` fsyncs the file through a fresh descriptor (``fsync``
  covers the file, not the descriptor).
* The active segment of every writable log is pinned (never evicted); the segment that is opening a
  file is never the one evicted for it.
* A read-only view must keep reading the SAME file it opened, even after its writer deleted or replaced
  it (retention, compaction). Before evicting a reader's segment the budget checks that its path still
  names that file and keeps it open otherwise. On reopening, the file's identity (device and inode) is
  checked against the one closed, under its name and the names a writer renames it to, and so are its
  first bytes (an inode number may be reused once a file is deleted); a different file is never read:
  :class:`kvlog.errors.SegmentReplacedError` says to reopen the log.
* Remote segments (object stores) and a reader's index copies hold no descriptor and cost nothing.

Threads: a segment is evicted only by the thread that used it last (or once that thread has ended), so
a thread never closes a descriptor another thread may be reading from at that moment.

The budget is ``min(512, soft RLIMIT_NOFILE // 2)``: half the process limit is left for everything
else (sockets, Arrow, Spark, lock files). ``KVLOG_MAX_OPEN_FILES`` in the environment or
:func:`set_max_open_files` sets it.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import weakref
from typing import Protocol

from kvlog.errors import ConfigError

__all__ = ["DEFAULT_MAX_OPEN_FILES", "ENV_VAR", "FdBudget", "budget", "max_open_files", "set_max_open_files",
           "default_max_open_files"]

#: the budget where the process limit is high (half of it otherwise)
DEFAULT_MAX_OPEN_FILES = 512
ENV_VAR = "KVLOG_MAX_OPEN_FILES"


class Holder(Protocol):
    """What the budget needs of a segment."""

    _fd_owner: int  # the thread that used it last
    _fd_stamp: int  # when it was used last (a value of ``clock``)
    _fd_ref: "weakref.ref[Holder] | None"  # the budget's weak reference to it, made once
    pinned: bool

    def _fd_cost(self) -> int:
        """Descriptors held now."""

    def _fd_release(self) -> bool:
        """Give back every descriptor (they reopen on next use); False when that cannot be done now."""


#: use stamps: a segment's use is ``seg._fd_stamp = next(clock)`` (one C call, atomic under the GIL)
clock = itertools.count(1)


def default_max_open_files() -> int:
    """``min(512, soft RLIMIT_NOFILE // 2)``, at least 8; ``KVLOG_MAX_OPEN_FILES`` when set."""
    env = os.environ.get(ENV_VAR)
    if env:
        try:
            value = int(env)
        except ValueError:
            raise ConfigError(f"{ENV_VAR}={env!r} is not an integer") from None
        if value < 1:
            raise ConfigError(f"{ENV_VAR}={env!r} must be at least 1")
        return value
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):  # pragma: no cover - platforms without getrlimit
        soft = -1
    if soft < 0 or soft == getattr(resource, "RLIM_INFINITY", -1):
        return DEFAULT_MAX_OPEN_FILES
    return max(8, min(DEFAULT_MAX_OPEN_FILES, soft // 2))


class FdBudget:
    """The segments holding descriptors, kept at or under ``limit`` descriptors in total by evicting the
    least recently used.

    A use only stamps the segment (``_fd_stamp``): the hot paths pay one counter step, not a reordering.
    The order is kept lazily in a heap of ``(stamp, id)``: an entry popped with an old stamp goes back
    with the segment's current one, so what is evicted is exactly the least recently used.

    Segments are held by weak reference: one dropped without ``close`` still closes its files (its
    ``__del__``, which makes the budget forget it; an entry whose segment is gone otherwise is dropped
    when met). The bookkeeping is serialised by a reentrant lock (a garbage collection inside it may
    finalise a segment, which forgets itself here).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: dict[int, tuple[weakref.ref[Holder], int]] = {}  # id → (segment, descriptors)
        self._heap: list[tuple[int, int]] = []  # (stamp, id), lazily up to date
        self._lock = threading.RLock()
        self.held = 0  # descriptors held by the segments listed
        self.evictions = 0
        #: what was held when a pass could evict no more (all pinned or another thread's): uses of
        #: segments do not try again until more is held (a new descriptor always does)
        self._stuck = 0

    def __len__(self) -> int:
        return len(self._held)

    def set_limit(self, limit: int) -> None:
        """A new limit, applied now: the least recently used segments this thread may evict go."""
        with self._lock:
            self.limit = limit
            self._stuck = 0
            if self.held > limit:
                self._shrink(None, threading.current_thread().ident or threading.get_ident())

    def charge(self, seg: Holder) -> None:
        """``seg`` opened something: used now, its descriptors counted again; then evict the least
        recently used others while over the limit."""
        # (current_thread registers a thread Python did not start, so _shrink sees it alive)
        me = threading.current_thread().ident or threading.get_ident()
        with self._lock:
            seg._fd_owner = me
            stamp = seg._fd_stamp = next(clock)
            key = id(seg)
            held = self._held
            old = held.get(key)
            if old is not None and old[0]() is not seg:
                old = None  # an entry left by a dead object whose id was reused
            cost = seg._fd_cost()
            if cost <= 0:
                if old is not None:
                    del held[key]
                    self.held -= old[1]
                return
            ref = seg._fd_ref
            if ref is None:
                ref = seg._fd_ref = weakref.ref(seg)
            held[key] = (ref, cost)
            if old is None:
                heapq.heappush(self._heap, (stamp, key))
                if len(self._heap) > 2 * len(held) + 64:
                    self._rebuild()
            self.held += cost - (old[1] if old is not None else 0)
            if self.held > self.limit:
                self._shrink(seg, me)

    def touch(self, seg: Holder) -> None:
        """``seg`` is used by a thread that did not use it last: it is that thread's now (the caller
        stamps the use). Evicts when over the limit (which a lowered limit makes so)."""
        me = threading.get_ident()
        threading.current_thread()  # registers a thread Python did not start (see charge)
        seg._fd_owner = me
        if self.held > self.limit and self.held > self._stuck:
            with self._lock:
                self._shrink(seg, me)

    def forget(self, seg: Holder) -> None:
        """``seg`` closed its files for good (its heap entry is dropped when met)."""
        with self._lock:
            key = id(seg)
            old = self._held.get(key)
            if old is not None and old[0]() in (seg, None):
                del self._held[key]
                self.held -= old[1]

    def _rebuild(self) -> None:
        """Drop the heap's entries for segments no longer held (forgotten, or evicted for good)."""
        heap = []
        for key, (ref, _) in self._held.items():
            seg = ref()
            if seg is not None:
                heap.append((seg._fd_stamp, key))
        heapq.heapify(heap)
        self._heap = heap

    def _shrink(self, keep: Holder | None, me: int) -> None:
        """Evict the least recently used until within the limit. What cannot go now (pinned, in use by
        another thread, a reader's replaced file) is set aside for this pass."""
        alive: set[int] | None = None
        heap, held = self._heap, self._held
        self._stuck = 0
        aside: list[tuple[int, int]] = []
        try:
            while self.held > self.limit and heap:
                stamp, key = heapq.heappop(heap)
                entry = held.get(key)
                if entry is None:
                    continue  # forgotten, or evicted for good
                seg = entry[0]()
                if seg is None:  # (gone without its __del__ forgetting it)
                    del held[key]
                    self.held -= entry[1]
                    continue
                if seg._fd_stamp != stamp:  # used since this entry was made: where it belongs now
                    heapq.heappush(heap, (seg._fd_stamp, key))
                    continue
                evictable = seg is not keep and not seg.pinned
                if evictable and seg._fd_owner != me:
                    if alive is None:
                        alive = {t.ident for t in threading.enumerate() if t.ident is not None}
                    evictable = seg._fd_owner not in alive  # else another thread may be using it now
                if not evictable or not seg._fd_release():
                    aside.append((stamp, key))
                    continue
                self.evictions += 1
                cost = seg._fd_cost()
                if held.get(key) is entry:
                    self.held -= entry[1] - cost
                    if cost > 0:  # (a mapping still exported elsewhere)
                        held[key] = (entry[0], cost)
                        aside.append((stamp, key))
                    else:
                        del held[key]
        finally:
            for item in aside:
                heapq.heappush(heap, item)
        if self.held > self.limit:
            self._stuck = self.held


budget = FdBudget(default_max_open_files())


def max_open_files() -> int:
    """The process-wide limit on descriptors held by open log segments."""
    return budget.limit


def set_max_open_files(limit: int | None) -> int:
    """Set the process-wide limit on descriptors held by log segments (``None``: the default, see the
    module docstring); returns the previous one. Lowering it closes the least recently used segments
    at once (those other live threads used last: when they are next over it)."""
    if limit is None:
        value = default_max_open_files()
    else:
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise TypeError(f"the open-file limit must be an int, got {type(limit).__name__}")
        if limit < 1:
            raise ConfigError(f"the open-file limit must be at least 1, got {limit}")
        value = limit
    previous = budget.limit
    budget.set_limit(value)
    return previous
