"""Where a backup's bytes go: a local directory or an object store, behind one small interface.

Both kinds show a file to readers only whole: a local file is written under ``.kvlog-backup/tmp`` and renamed
into place after ``fsync``; an object becomes visible when its upload completes. Paths are relative to the
backup's root and use ``/``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable

from kvlog import storage
from kvlog.errors import KvlogError, ObjectNotFoundError

__all__ = ["Target", "LocalTarget", "RemoteTarget", "open_target", "CHUNK", "META_DIR"]

CHUNK = 8 << 20
META_DIR = ".kvlog-backup"

Chunks = Callable[[], Iterable[bytes | memoryview]]


class Target:
    """The operations a backup run needs; ``chunks()`` is called again by every attempt of a retried write."""

    uri: str

    def write(self, rel: str, chunks: Chunks) -> int:
        raise NotImplementedError

    def put(self, rel: str, data: bytes) -> int:
        return self.write(rel, lambda: [data])

    def read(self, rel: str) -> bytes | None:
        """The whole file, or None when it does not exist."""
        raise NotImplementedError

    def read_range(self, rel: str, start: int, size: int) -> bytes:
        raise NotImplementedError

    def size(self, rel: str) -> int | None:
        raise NotImplementedError

    def listdir(self, rel: str) -> list[str]:
        raise NotImplementedError

    def copy(self, src_rel: str, dst_rel: str) -> None:
        raise NotImplementedError

    def delete(self, rel: str) -> None:
        raise NotImplementedError

    def path(self, rel: str) -> str:
        """The path or URI a reader opens for ``rel``."""
        return storage.join(self.uri, rel) if rel else self.uri

    def requests(self) -> int:
        return 0


class LocalTarget(Target):
    def __init__(self, root: str) -> None:
        self.uri = os.path.abspath(root)
        self._tmp = os.path.join(self.uri, META_DIR, "tmp")
        os.makedirs(self._tmp, exist_ok=True)
        self._dirty: set[str] = set()

    def path(self, rel: str) -> str:
        return os.path.join(self.uri, *rel.split("/")) if rel else self.uri

    def write(self, rel: str, chunks: Chunks) -> int:
        final = self.path(rel)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        tmp = os.path.join(self._tmp, uuid.uuid4().hex)
        n = 0
        try:
            with open(tmp, "wb") as f:
                for chunk in chunks():
                    f.write(chunk)
                    n += len(chunk)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        self._dirty.add(os.path.dirname(final))
        return n

    def sync_dirs(self) -> None:
        """Make the renames durable (once per run, not per file)."""
        for d in sorted(self._dirty):
            fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        self._dirty.clear()

    def read(self, rel: str) -> bytes | None:
        try:
            with open(self.path(rel), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def read_range(self, rel: str, start: int, size: int) -> bytes:
        with open(self.path(rel), "rb") as f:
            f.seek(start)
            return f.read(size)

    def size(self, rel: str) -> int | None:
        try:
            return os.path.getsize(self.path(rel))
        except FileNotFoundError:
            return None

    def listdir(self, rel: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(rel)))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def copy(self, src_rel: str, dst_rel: str) -> None:
        src = self.path(src_rel)

        def chunks() -> Iterable[bytes]:
            with open(src, "rb") as f:
                yield from iter(lambda: f.read(CHUNK), b"")

        self.write(dst_rel, chunks)

    def delete(self, rel: str) -> None:
        try:
            os.unlink(self.path(rel))
            self._dirty.add(os.path.dirname(self.path(rel)))
        except FileNotFoundError:
            pass

    def clear_tmp(self) -> None:
        """Leftovers of a killed run's writes (never visible under their final names)."""
        for name in os.listdir(self._tmp):
            try:
                os.unlink(os.path.join(self._tmp, name))
            except FileNotFoundError:
                pass


class RemoteTarget(Target):
    def __init__(self, uri: str) -> None:
        self.uri = storage.canonical(uri)
        self.store = storage.store_for(uri)
        self._start = self.store.stats.requests

    def write(self, rel: str, chunks: Chunks) -> int:
        return self.store._upload(self.path(rel), lambda: (bytes(c) if isinstance(c, memoryview) else c
                                                           for c in chunks()))

    def read(self, rel: str) -> bytes | None:
        try:
            return self.store.read_all(self.path(rel))
        except ObjectNotFoundError:
            return None
        except FileNotFoundError:
            return None

    def read_range(self, rel: str, start: int, size: int) -> bytes:
        f = self.store.open_ranged(self.path(rel))
        try:
            return bytes(f.pread(size, start))
        finally:
            f.close()

    def size(self, rel: str) -> int | None:
        info = self.store.head(self.path(rel))
        return None if info is None else int(info.size or 0)

    def listdir(self, rel: str) -> list[str]:
        self.store.forget(self.path(rel))
        try:
            return sorted(self.store.listdir(self.path(rel)))
        except (ObjectNotFoundError, FileNotFoundError):
            return []

    def copy(self, src_rel: str, dst_rel: str) -> None:
        src, dst = self.path(src_rel), self.path(dst_rel)
        self.store.call("copying", src, -1, lambda: self.store.fs.copy_file(self.store.fs_path(src),
                                                                          self.store.fs_path(dst)), puts=1)
        self.store.forget(dst.rpartition("/")[0])

    def delete(self, rel: str) -> None:
        self.store.delete(self.path(rel))

    def requests(self) -> int:
        return self.store.stats.requests - self._start


def open_target(uri: str | os.PathLike[str]) -> Target:
    text = os.fspath(uri)
    if storage.is_remote(text):
        return RemoteTarget(text)
    if os.path.exists(text) and not os.path.isdir(text):
        raise KvlogError(f"backup destination {text} exists and is not a directory")
    os.makedirs(text, exist_ok=True)
    return LocalTarget(text)
