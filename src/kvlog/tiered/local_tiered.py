"""Kafka's ``LocalTieredStorage`` layout: the remote storage manager Kafka's own tests and quick starts use
(``org.apache.kafka.server.log.remote.storage.LocalTieredStorage``), on a path or any object store.

Sources: Kafka's ``storage/src/test/java/org/apache/kafka/server/log/remote/storage/``
``RemoteTopicPartitionDirectory.java`` (a partition's directory is ``<topic>-<partition>-<topic id>``) and
``RemoteLogSegmentFileset.java`` (a segment's files are ``<start offset>-<segment id><suffix>``; suffixes
``.log``, ``.index``, ``.timeindex``, ``.txnindex`` (optional), ``.leader_epoch_checkpoint``, ``.snapshot``).
The brokers write the start offset zero-padded to 20 digits, as a segment's own file names are (seen from
Kafka 3.7.2 and 4.1.2 in the broker tests; the source read before suggested plain decimal); plain decimal and
the ``<segment id><suffix>`` of releases before the start offset was added to the name are read too. The files
are Kafka's own segment files, unchanged.

A partition directory is listed once (one LIST on an object store) and the listing kept; each file is
then read with the store's ranged, prefetching reads.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

from kvlog import _io, storage
from kvlog.errors import ObjectNotFoundError
from kvlog.object_store import ReadStats
from kvlog.tiered.base import RemoteSegment

if TYPE_CHECKING:
    from kvlog.storage import RangedFile

__all__ = ["LocalTieredStorage"]

SUFFIXES = {"offset": ".index", "timestamp": ".timeindex", "transaction": ".txnindex",
            "producer_snapshot": ".snapshot", "leader_epoch": ".leader_epoch_checkpoint"}


class _LocalFile:
    """A local file as a :class:`~kvlog.storage.RangedFile` (large reads go through the pooled kernel read)."""

    def __init__(self, path: str, stats: ReadStats, lock: threading.Lock) -> None:
        self.path = path
        try:
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            raise ObjectNotFoundError(f"remote segment file {path}: not found", path=path) from None
        st = os.fstat(self._fd)
        self.size = st.st_size
        self.mtime_ms = int(st.st_mtime * 1000)
        self._stats, self._lock = stats, lock

    def _count(self, n: int) -> None:
        with self._lock:
            self._stats.gets += 1
            self._stats.get_bytes += n

    def pread(self, size: int, offset: int) -> bytes:
        data = os.pread(self._fd, size, offset)
        self._count(len(data))
        return data

    def read_block(self, size: int, offset: int) -> memoryview:
        from kvlog._core.records import pread_owned

        block: Any = pread_owned(self._fd, size, offset)  # (pooled memory, released with the view)
        self._count(len(block))
        return memoryview(block)

    def readinto(self, view: memoryview, offset: int) -> int:
        n = os.preadv(self._fd, [view], offset)
        self._count(n)
        return n

    def will_need(self, offset: int, size: int) -> None:
        return None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()


class LocalTieredSegmentFiles:
    """One segment's files in a ``LocalTieredStorage`` directory."""

    def __init__(self, owner: "LocalTieredStorage", segment: RemoteSegment) -> None:
        self.segment = segment
        self._owner = owner
        self._dir = owner.partition_dir(segment)
        self._names: dict[str, str] | None = None

    def _files(self) -> dict[str, str]:
        """suffix → file name of this segment (from the partition directory's one listing)."""
        if self._names is None:
            listing = self._owner.listing(self._dir)
            sid = self.segment.segment_id
            found: dict[str, str] = {}
            for stem in (f"{self.segment.start_offset:020d}-{sid}", f"{self.segment.start_offset}-{sid}", sid):
                for suffix in (".log", *SUFFIXES.values()):
                    if stem + suffix in listing and suffix not in found:
                        found[suffix] = stem + suffix
            self._names = found
        return self._names

    def _stem(self) -> str:
        """The name a broker gives the segment's files (before the suffix)."""
        return f"{self.segment.start_offset:020d}-{self.segment.segment_id}"

    def _path(self, suffix: str) -> str | None:
        name = self._files().get(suffix)
        return None if name is None else storage.join(self._dir, name)

    def log_object(self) -> str:
        path = self._path(".log") or storage.join(self._dir, self._stem() + ".log")
        return storage.redact(path)

    def log_size(self) -> int:
        path = self._path(".log")
        if path is None:
            raise self._missing(".log")
        return _io.fs.getsize(path)

    def _missing(self, suffix: str) -> ObjectNotFoundError:
        where = storage.redact(storage.join(self._dir, self._stem() + suffix))
        return ObjectNotFoundError(f"{self.segment}: its file {where} is not in the LocalTieredStorage directory "
                                   f"{storage.redact(self._dir)}", path=where)

    def open_log(self) -> "RangedFile":
        path = self._path(".log")
        if path is None:
            raise self._missing(".log")
        if storage.is_remote(path):
            return storage.store_for(path).open_ranged(path)
        return _LocalFile(path, self._owner._local_stats, self._owner._lock)

    def index(self, kind: str) -> bytes | None:
        suffix = SUFFIXES[kind]
        path = self._path(suffix)
        if path is None:
            if kind == "transaction":
                return None  # written only when the segment has aborted transactions
            raise self._missing(suffix)
        data = _io.fs.read_file(path)
        if not storage.is_remote(path):
            with self._owner._lock:
                self._owner._local_stats.gets += 1
                self._owner._local_stats.get_bytes += len(data)
        return data


class LocalTieredStorage:
    """Segments copied by Kafka's ``LocalTieredStorage`` under ``root`` (its ``dir`` setting): a path or
    an object-store URI."""

    name = "LocalTieredStorage"

    def __init__(self, root: str | os.PathLike[str]) -> None:
        text = os.fspath(root)
        # (a URI's credentials and options configure its bucket's store here; the root keeps neither)
        self.root = storage.normalize(text)
        self._listings: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()
        self._list_lock = threading.Lock()
        self._local_stats = ReadStats()

    def __repr__(self) -> str:
        return f"LocalTieredStorage({storage.redact(self.root)!r})"

    def partition_dir(self, segment: RemoteSegment) -> str:
        return storage.join(self.root, f"{segment.topic}-{segment.partition}-{segment.topic_id}")

    def listing(self, directory: str) -> frozenset[str]:
        """The partition directory's names, listed once (the first of several threads lists, the rest wait)."""
        got = self._listings.get(directory)
        if got is None:
            with self._list_lock:
                got = self._listings.get(directory)
                if got is None:
                    try:
                        got = frozenset(_io.fs.listdir(directory))
                    except FileNotFoundError:
                        got = frozenset()
                    if not storage.is_remote(directory):
                        with self._lock:
                            self._local_stats.lists += 1
                    self._listings[directory] = got
        return got

    def segment_files(self, segment: RemoteSegment) -> LocalTieredSegmentFiles:
        return LocalTieredSegmentFiles(self, segment)

    def stats(self) -> ReadStats:
        if storage.is_remote(self.root):
            return storage.store_for(self.root).stats
        return self._local_stats
