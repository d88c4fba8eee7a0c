"""A segment's descriptors and the process-wide open-file budget (``kvlog.segment.budget``): taking the
``.log``'s descriptor (reopening the very file an eviction closed), and giving it back when the budget evicts
the segment. ``LogSegment`` takes these functions as its methods."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING


from kvlog import _files, _io
from kvlog.errors import LogIOError, SegmentReplacedError
from kvlog.segment import _common
from kvlog.segment._common import Evicted, clock, get_ident
from kvlog.storage import REMOTE_FD

if TYPE_CHECKING:
    from kvlog.segment.segment import LogSegment


def fileno(self: LogSegment) -> int:
    """The ``.log``'s descriptor, reopened when the open-file budget closed it; take it right before
    the call that needs it (it stays valid until this thread next opens a segment's files).

    A reopened file must be the one closed (same device and inode, under its name or one a writer
    renames it to, and for a reader the same first bytes): ``SegmentReplacedError`` otherwise;
    ``LogIOError`` (EBADF) after ``close``."""
    fd = self._fd
    if fd < 0 or self._fd_owner != get_ident():
        fd = self._use()
    self._fd_stamp = next(clock)
    return fd


def _use(self: LogSegment) -> int:
    if self._fd >= 0:
        _common.fd_budget.touch(self)  # another thread's until now
        return self._fd
    if self._closed:
        raise LogIOError(errno.EBADF, f"segment {self.log_path} is closed")
    self._reopen()
    _common.fd_budget.charge(self)
    return self._fd


def _charge(self: LogSegment) -> None:
    """An index mapped its file again: count it (and make this the most recently used segment)."""
    if not self._closed:
        _common.fd_budget.charge(self)


def _names(self: LogSegment) -> Iterator[str]:
    """Where the ``.log`` may be now: its name, and for a read-only view the names its writer renames
    segment files to (deleted, swapped in, set aside); the file's identity decides."""
    yield self.log_path
    if self.read_only:
        stem = _files.segment_path(self.directory, self.base_offset, _files.LOG)
        for suffix in ("", _files.SWAP, _files.DELETED, _files.QUARANTINED):
            if stem + suffix != self.log_path:
                yield stem + suffix


def _reopen(self: LogSegment) -> None:
    """Open the ``.log`` again after an eviction: only the very file closed then."""
    flags = os.O_RDONLY if self.read_only else os.O_RDWR
    for path in self._names():
        try:
            fd = _io.fs.open(path, flags)
        except FileNotFoundError:
            continue
        st = os.fstat(fd)
        # an inode number may be reused by a file made after the old one was deleted: a reader also
        # checks the first bytes (a batch header: base offset, CRC) it saw. What its writer truncated
        # away meanwhile (a prefix is left) is simply not there, as through a descriptor held open
        was = self._evicted_as
        assert was is not None  # (only an evicted segment reopens)
        head = was.head
        if (st.st_dev, st.st_ino) == was.identity and (
                head is None or head.startswith(_io.fs.pread(fd, len(head), 0))):
            self._fd = fd
            return
        _io.fs.close(fd)
    raise SegmentReplacedError(
        f"segment {self.log_path} was deleted or replaced while its descriptor was closed to stay within "
        f"the open-file budget ({_common.fd_budget.limit}, kvlog.set_max_open_files); reopen the log to read it as it "
        "is now")


def _fd_cost(self: LogSegment) -> int:
    """Descriptors held now: the ``.log``'s (a remote one is no descriptor) and the mapped indexes'."""
    n = 1 if 0 <= self._fd < REMOTE_FD else 0
    if self.offset_index is not None:
        n += self.offset_index.holds_descriptor + self.time_index.holds_descriptor
    return n


def _fd_release(self: LogSegment) -> bool:
    """The budget evicts this segment: close its descriptors, keeping everything else in memory.

    A read-only view whose path no longer names the file it has open (deleted or replaced by its
    writer) keeps it open: that descriptor is the only way left to read what the view promised.
    Writes nothing: a writer's pages are in the page cache; ``flush`` syncs them later."""
    if self.pinned or self._closed:
        return False
    fd = self._fd
    local = 0 <= fd < REMOTE_FD
    was = None
    if local:
        st = os.fstat(fd)
        identity = (st.st_dev, st.st_ino)
        head = self._evicted_as.head if self._evicted_as is not None else None
        if self.read_only:
            try:
                now = os.stat(self.log_path, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if (now.st_dev, now.st_ino) != identity:
                return False
            if head is None or len(head) < 64:  # (read through the verified descriptor)
                head = _io.fs.pread(fd, 64, 0)
        was = Evicted(identity, st.st_size, head)
    released = False
    if self.offset_index is not None:
        released = self.offset_index.suspend()
        released = self.time_index.suspend() or released
    if was is not None:
        self._evicted_as = was
        self._fd = -1
        _io.fs.close(fd)
        released = True
    return released


def _finished_while_evicted(self: LogSegment) -> bool:
    """An evicted segment whose files are already as ``on_become_inactive`` leaves them (closing a
    log of thousands of segments then reopens none of them just to find nothing to do)."""
    was = self._evicted_as
    if was is None or self._fd >= 0 or was.size != self.size_in_bytes or self.offset_index is None:
        return False
    for idx in (self.offset_index, self.time_index):
        if idx.file_size != idx.size_in_bytes or idx.untrusted_tail():
            return False
    # (a max timestamp never loaded changed nothing since the open: no reason to read the file for it)
    return self.known_max is None or self.known_max.timestamp <= self.time_index.last_entry.timestamp
