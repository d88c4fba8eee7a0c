"""Every file-system operation kvlog performs goes through ``fs`` (one object, swappable).

Keeping writes, truncations, fsyncs, renames, unlinks and mkdirs behind one seam lets the reliability
tests count them, stop the process at any one of them, or drop what was never fsynced.
Metadata files are always replaced atomically: tmp → fsync → rename → fsync directory.

The read side (open read-only, ``pread``, ``size``, ``listdir``, ``exists``, …) also serves log
directories in object stores: a path that is a URI (``s3://…``) is routed to ``kvlog.storage``, whose
descriptors start at ``storage.REMOTE_FD``. Writes to such a path are refused.
"""

from __future__ import annotations

import os
from typing import Any

from kvlog import storage as _storage
from kvlog.storage import REMOTE_FD, is_remote


#: Log data is private by default: files 0600, directories 0700 (before the umask). Kafka's own
#: files are world-readable; set these before opening logs if other users must read them.
FILE_MODE = 0o600
DIR_MODE = 0o700


class FileSystem:
    """The real file system. Tests substitute a subclass that records or fails operations."""

    def open(self, path: str, flags: int, mode: int | None = None) -> int:
        if is_remote(path):
            if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC):
                _storage.refuse_remote_writer(path, "writing")
            return _storage.open_fd(path)
        # never follow a symlink planted in place of a log file
        flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
        return os.open(path, flags, FILE_MODE if mode is None else mode)

    def close(self, fd: int) -> None:
        if fd >= REMOTE_FD:
            _storage.close_fd(fd)
            return
        os.close(fd)

    def pwrite(self, fd: int, data: Any, offset: int) -> int:
        done = os.pwrite(fd, data, offset)
        if done < len(data):  # a short write: go on from where it stopped
            view = memoryview(data).cast("B")
            while done < len(view):
                done += os.pwrite(fd, view[done:], offset + done)
        return done

    def pread(self, fd: int, size: int, offset: int) -> bytes:
        if fd >= REMOTE_FD:
            return _storage.handle(fd).pread(size, offset)
        return os.pread(fd, size, offset)

    def pread_block(self, fd: int, size: int, offset: int) -> Any:
        """A large read (MiBs) into pooled memory: a read-only buffer, not ``bytes`` (see
        ``kvlog._core.records.pread_owned``). For passes that read whole segments."""
        if fd >= REMOTE_FD:
            return _storage.handle(fd).read_block(size, offset)
        from kvlog._core.records import pread_owned

        return pread_owned(fd, size, offset)

    def preadinto(self, fd: int, view: memoryview, offset: int) -> int:
        """Fill ``view`` from ``offset``; returns the bytes read (fewer only at the end of the file)."""
        if fd >= REMOTE_FD:
            return _storage.handle(fd).readinto(view, offset)
        return os.preadv(fd, [view], offset)

    # ------------------------------------------------------------------ the read side of the seam
    def prefetch_files(self, paths: list[str]) -> None:
        """These small files will each be read whole soon: an object store fetches them in parallel now."""
        if paths and is_remote(paths[0]):
            _storage.store_for(paths[0]).prefetch_small(paths)

    def will_need(self, fd: int, offset: int, size: int) -> None:
        """A scan will read ``[offset, offset + size)`` next: an object store starts fetching it now.
        Local files need no hint (the kernel reads ahead)."""
        if fd >= REMOTE_FD:
            _storage.handle(fd).will_need(offset, size)

    def scan_block(self, fd: int, offset: int) -> tuple[int, int] | None:
        """The remote block (or chunk group) holding ``offset``, ``(start, end)``: a scan's read inside it
        is served without a copy. None for a local file, or a store that fetches no blocks."""
        if fd >= REMOTE_FD:
            block = getattr(_storage.handle(fd), "scan_block", None)
            if block is not None:
                start, end = block(offset)
                return int(start), int(end)
        return None

    def size(self, fd: int) -> int:
        """The file's current length (``fstat``); a remote object's length as listed."""
        if fd >= REMOTE_FD:
            return _storage.handle(fd).size
        return os.fstat(fd).st_size

    def mtime_ms(self, fd: int) -> int:
        if fd >= REMOTE_FD:
            return _storage.handle(fd).mtime_ms
        return int(os.fstat(fd).st_mtime * 1000)

    def data_end(self, fd: int, length: int) -> int:
        """Where the data before the first hole ends (``SEEK_HOLE``): a preallocated index's written part."""
        if fd >= REMOTE_FD or not hasattr(os, "SEEK_HOLE"):
            return length
        try:
            return min(length, os.lseek(fd, 0, os.SEEK_HOLE))
        except OSError:
            return length

    def listdir(self, path: str) -> list[str]:
        if is_remote(path):
            return _storage.store_for(path).listdir(path)
        return os.listdir(path)

    def exists(self, path: str) -> bool:
        if is_remote(path):
            return _storage.store_for(path).exists(path)
        return os.path.exists(path)

    def isdir(self, path: str) -> bool:
        if is_remote(path):
            return _storage.store_for(path).isdir(path)
        return os.path.isdir(path)

    def getsize(self, path: str) -> int:
        if is_remote(path):
            return _storage.store_for(path).getsize(path)
        return os.path.getsize(path)

    def read_file(self, path: str) -> bytes:
        """A whole small file (checkpoint, snapshot, metadata): one request on an object store."""
        if is_remote(path):
            return _storage.store_for(path).read_all(path)
        with open(path, "rb") as f:
            return f.read()

    def truncate(self, fd: int, size: int) -> None:
        os.ftruncate(fd, size)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def rename(self, src: str, dst: str) -> None:
        os.replace(src, dst)

    def unlink(self, path: str) -> None:
        os.unlink(path)

    def mkdir(self, path: str) -> None:
        os.mkdir(path, DIR_MODE)

    def rmdir(self, path: str) -> None:
        os.rmdir(path)

    def fsync_dir(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def write_atomic(self, path: str, data: bytes) -> None:
        """Replace ``path`` with ``data`` so that a crash leaves either the old or the new file."""
        tmp = path + ".tmp"
        fd = self.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            self.pwrite(fd, data, 0)
            self.fsync(fd)
        finally:
            self.close(fd)
        self.rename(tmp, path)
        self.fsync_dir(os.path.dirname(os.path.abspath(path)))


fs = FileSystem()


def set_filesystem(new: FileSystem) -> FileSystem:
    """Install another FileSystem (tests); returns the previous one."""
    global fs
    old, fs = fs, new
    return old
