"""Remote segments as directories kvlog's ordinary read path can open.

Each remote segment of a tiered view gets a virtual directory ``kvlog-tiered://<view>/<topic>-<partition>-
<segment id>/`` holding ``<base offset>.log``, ``.index``, ``.timeindex`` and (when the segment has one)
``.txnindex``, served by the layout's :class:`~kvlog.tiered.base.RemoteSegmentFiles`. The prefix is
registered with :mod:`kvlog.storage` like an object store's, so ``LogSegment``, the indexes and the
transaction index read remote segments through the same descriptors as any ``s3://`` log, and the
layout decides how bytes are fetched (ranged reads, chunks, decryption).

The segment id in the directory's name makes every error about a remote segment name it.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from kvlog import _files, errors, storage
from kvlog.errors import ObjectNotFoundError
from kvlog.tiered.base import BytesFile, RemoteSegment, RemoteSegmentFiles, RemoteStorage

if TYPE_CHECKING:
    from kvlog.object_store import ReadStats
    from kvlog.storage import RangedFile

__all__ = ["VirtualTier", "SCHEME", "tier_pool"]

SCHEME = "kvlog-tiered"
_INDEX_OF = {_files.INDEX: "offset", _files.TIME_INDEX: "timestamp", _files.TXN_INDEX: "transaction"}
_views = itertools.count(1)
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget(prefix: str) -> None:
    storage.unregister_filesystem(prefix)
    errors._path_namers.pop(prefix, None)


def tier_pool() -> ThreadPoolExecutor:
    """The threads that fetch the small objects of many remote segments together (made once per process:
    starting threads for every open cost more than the fetches). Its tasks never wait on one another."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(8, thread_name_prefix="kvlog-tiered")
        return _pool


class VirtualTier:
    """The virtual directories of one tiered view's remote segments (a ``kvlog.storage.Storage``)."""

    def __init__(self, remote: RemoteStorage) -> None:
        self.remote = remote
        self.prefix = f"{SCHEME}://{next(_views)}"
        self._segments: dict[str, RemoteSegmentFiles] = {}  # directory → files
        self._indexes: dict[tuple[str, str], bytes | None] = {}  # (directory, kind) → bytes (kept: small)
        self._lock = threading.Lock()
        storage.register_storage(self.prefix, self)
        ref = weakref.ref(self)  # (the registry must not keep the view's tier alive)
        errors._path_namers[self.prefix] = lambda p: (t.object_of(p) if (t := ref()) is not None else None)
        weakref.finalize(self, _forget, self.prefix)

    # ------------------------------------------------------------------ the view's side
    def directory_of(self, segment: RemoteSegment) -> str:
        return f"{self.prefix}/{segment.topic}-{segment.partition}-{segment.segment_id}"

    def add(self, segment: RemoteSegment) -> str:
        """The virtual directory of ``segment`` (its ``.log`` is ``<dir>/<20-digit start offset>.log``)."""
        directory = self.directory_of(segment)
        self._segments[directory] = self.remote.segment_files(segment)
        return directory

    def files(self, directory: str) -> RemoteSegmentFiles:
        return self._segments[directory]

    def object_of(self, path: str) -> str | None:
        """The remote object a virtual path reads (errors name it): the ``.log``'s object for the segment's
        bytes, ``<object> (<kind> index)`` for an index, which some layouts keep inside another object."""
        directory, _, name = path.rpartition("/")
        files = self._segments.get(directory)
        if files is None:
            return None
        shown = files.log_object()
        ext = name[name.index("."):] if "." in name else ""
        return shown if ext == _files.LOG else f"{shown} ({_INDEX_OF.get(ext, ext)} index)"

    def close(self) -> None:
        _forget(self.prefix)

    @property
    def stats(self) -> "ReadStats":
        return self.remote.stats()

    # ------------------------------------------------------------------ the Storage protocol
    def _split(self, path: str) -> tuple[str, RemoteSegmentFiles, str]:
        path = path.rstrip("/")
        directory, _, name = path.rpartition("/")
        files = self._segments.get(directory)
        if files is None or not _files.is_offset_name(name) or _files.offset_from_name(name) != files.segment.start_offset:
            raise ObjectNotFoundError(f"{path}: no such remote segment file in this tiered view", path=path)
        return directory, files, name[name.index("."):]

    def _index(self, directory: str, files: RemoteSegmentFiles, kind: str) -> bytes | None:
        key = (directory, kind)
        with self._lock:
            if key in self._indexes:
                return self._indexes[key]
        data = files.index(kind)
        with self._lock:
            self._indexes[key] = data
        return data

    def listdir(self, path: str, *, asked: str = "") -> list[str]:
        files = self._segments.get(path.rstrip("/"))
        if files is None:
            raise ObjectNotFoundError(f"{path}: no such remote segment directory in this tiered view", path=path)
        stem = f"{files.segment.start_offset:020d}"
        names = [stem + _files.LOG, stem + _files.INDEX, stem + _files.TIME_INDEX]
        if self._index(path.rstrip("/"), files, "transaction") is not None:
            names.append(stem + _files.TXN_INDEX)
        return names

    def isdir(self, path: str) -> bool:
        return path.rstrip("/") in self._segments

    def exists(self, path: str) -> bool:
        if self.isdir(path):
            return True
        try:
            directory, files, ext = self._split(path)
        except ObjectNotFoundError:
            return False
        if ext == _files.LOG:
            return True
        kind = _INDEX_OF.get(ext)
        return kind is not None and self._index(directory, files, kind) is not None

    def getsize(self, path: str) -> int:
        directory, files, ext = self._split(path)
        if ext == _files.LOG:
            return files.log_size()
        return len(self.read_all(path))

    def read_all(self, path: str) -> bytes:
        directory, files, ext = self._split(path)
        kind = _INDEX_OF.get(ext)
        if ext == _files.LOG:
            f = files.open_log()
            try:
                return f.pread(f.size, 0)
            finally:
                f.close()
        data = None if kind is None else self._index(directory, files, kind)
        if data is None:
            raise ObjectNotFoundError(f"{path}: {files.segment} has no {ext} file", path=path)
        return data

    def open_ranged(self, path: str) -> "RangedFile":
        directory, files, ext = self._split(path)
        if ext == _files.LOG:
            return files.open_log()
        return BytesFile(path, self.read_all(path))

    def prefetch_small(self, paths: list[str]) -> None:
        """Fetch these indexes of many segments together (an object store answers in milliseconds whatever
        the size: one after another, a view of a thousand segments would open for seconds)."""
        todo = []
        for path in paths:
            try:
                directory, files, ext = self._split(path)
            except ObjectNotFoundError:
                continue
            kind = _INDEX_OF.get(ext)
            if kind is not None and (directory, kind) not in self._indexes:
                todo.append((directory, files, kind))
        if len(todo) <= 1:
            return
        # errors surface later, where the index is needed, with that segment's name
        list(tier_pool().map(lambda t: self._try_index(*t), todo))

    def _try_index(self, directory: str, files: RemoteSegmentFiles, kind: str) -> None:
        try:
            self._index(directory, files, kind)
        except Exception:  # noqa: BLE001 (reported where the index is read)
            pass

    def forget(self, directory: str) -> None:
        return None
