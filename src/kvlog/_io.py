"""Every file-system operation kvlog performs goes through ``fs`` (one object, swappable).

Keeping writes, truncations, fsyncs, renames, unlinks and mkdirs behind one seam lets the reliability
tests count them, stop the process at any one of them, or drop what was never fsynced.
Metadata files are always replaced atomically: tmp → fsync → rename → fsync directory.
"""

from __future__ import annotations

import os
from typing import Any


#: Log data is private by default: files 0600, directories 0700 (before the umask). Kafka's own
#: files are world-readable; set these before opening logs if other users must read them.
FILE_MODE = 0o600
DIR_MODE = 0o700


class FileSystem:
    """The real file system. Tests substitute a subclass that records or fails operations."""

    def open(self, path: str, flags: int, mode: int | None = None) -> int:
        # never follow a symlink planted in place of a log file
        flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
        return os.open(path, flags, FILE_MODE if mode is None else mode)

    def close(self, fd: int) -> None:
        os.close(fd)

    def pwrite(self, fd: int, data: Any, offset: int) -> int:
        done = os.pwrite(fd, data, offset)
        if done < len(data):  # a short write: go on from where it stopped
            view = memoryview(data).cast("B")
            while done < len(view):
                done += os.pwrite(fd, view[done:], offset + done)
        return done

    def pread(self, fd: int, size: int, offset: int) -> bytes:
        return os.pread(fd, size, offset)

    def pread_block(self, fd: int, size: int, offset: int) -> Any:
        """A large read (MiBs) into pooled memory: a read-only buffer, not ``bytes`` (see
        ``kvlog._core.records.pread_owned``). For passes that read whole segments."""
        from kvlog._core.records import pread_owned

        return pread_owned(fd, size, offset)

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
