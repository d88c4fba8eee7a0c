"""Log files in an object store (S3, GCS, Azure Blob/ADLS, HDFS, any fsspec store) read through
``pyarrow.fs``, with reads shaped for object stores.

An object store answers a request in milliseconds whatever its size, so the reads a local disk
serves well (a 4 KiB index probe, a 1 MiB chunk at a time) become the cost. Here:

- a directory is listed once per open (one LIST); sizes come from the listing, and an object is opened
  (one HEAD on S3) only when it is first read;
- a scan reads block-aligned ranges of ``block_size`` (8 MiB, what AWS advises for ranged GETs), and
  while the caller decodes one block the next ``prefetch`` blocks are already being fetched by a small
  thread pool; a scan about to reach the next segment asks for its first blocks (``will_need``);
- a point read (an index hint, a batch header) fetches one ``point_block`` (256 KiB) around it, kept
  for the reads that follow (a fetch after ``offset_for_timestamp`` lands in it);
- small files (indexes, checkpoints, snapshots) fit one request and are read whole;
- transient failures (throttling, 5xx, timeouts, dropped connections) are retried ``retries`` times
  with exponential backoff, on top of the filesystem's own retries (the AWS SDK under
  ``S3FileSystem`` makes 3 attempts by default); then, and for every other failure, a typed
  ``StorageError`` names the object and the position.

:class:`ReadStats` counts the requests so benchmarks and tests can hold the budget
(≤ 2 GETs per MiB scanned, a handful per point operation).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, TypeVar

from kvlog.errors import (
    ObjectNotFoundError,
    StorageAccessError,
    StorageError,
    StorageUnavailableError,
    redact,
)

__all__ = ["ObjectStore", "ObjectFile", "ReadStats"]

_T = TypeVar("_T")
_ACCESS = ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "HTTP status 403", "HTTP status 401",
           "Forbidden", "Unauthorized", "ExpiredToken", "InvalidToken", "ACCESS_DENIED", "INVALID_ACCESS_KEY_ID",
           "SIGNATURE_DOES_NOT_MATCH", "EXPIRED_TOKEN", "INVALID_CLIENT_TOKEN_ID")
_TRANSIENT = ("HTTP status 5", "SlowDown", "Throttl", "TooManyRequests", "HTTP status 429", "timed out",
              "Timeout", "timeout", "curlCode", "Connection", "connection", "RequestTimeout",
              "ServiceUnavailable", "InternalError", "Broken pipe", "reset by peer", "INTERNAL_FAILURE",
              "SERVICE_UNAVAILABLE", "SLOW_DOWN", "THROTTLING", "REQUEST_TIMEOUT", "NETWORK_CONNECTION",
              "REQUEST_TIME_TOO_SKEWED")


@dataclass
class ReadStats:
    """What one store asked of the object store (all threads together)."""

    gets: int = 0
    get_bytes: int = 0
    lists: int = 0
    heads: int = 0
    retries: int = 0
    puts: int = 0
    deletes: int = 0

    @property
    def requests(self) -> int:
        return self.gets + self.lists + self.heads + self.puts + self.deletes

    def as_dict(self) -> dict[str, int]:
        return {"requests": self.requests, "gets": self.gets, "get_bytes": self.get_bytes, "lists": self.lists,
                "heads": self.heads, "retries": self.retries, "puts": self.puts, "deletes": self.deletes}


def _classify(exc: BaseException, what: str, path: str, position: int) -> StorageError:
    """A typed error for a storage library's exception. Raise it outside the ``except`` block that caught
    ``exc``: the library's text may quote the URI with its credentials and query, so only the redacted text
    is kept, and the original is neither the cause nor the context of kvlog's error."""
    text = redact(str(exc))
    where = f" at position {position}" if position >= 0 else ""
    if isinstance(exc, FileNotFoundError) or "NoSuchKey" in text or "NoSuchBucket" in text or "HTTP status 404" in text:
        return ObjectNotFoundError(f"{what} {path}{where}: not found ({text})", path=path, position=position)
    if isinstance(exc, PermissionError) or any(t in text for t in _ACCESS):
        return StorageAccessError(f"{what} {path}{where}: access denied — check the credentials and the "
                                  f"bucket policy ({text})", path=path, position=position)
    return StorageError(f"{what} {path}{where} failed: {text}", path=path, position=position)


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, (FileNotFoundError, PermissionError)):
        return False
    text = str(exc)
    return isinstance(exc, (TimeoutError, ConnectionError)) or (
        isinstance(exc, OSError) and any(t in text for t in _TRANSIENT) and not any(t in text for t in _ACCESS))


class ObjectStore:
    """The read side of one object-store filesystem (``kvlog.storage.Storage``), with request counts."""

    def __init__(self, filesystem: Any, *, strip: int, block_size: int = 8 << 20, point_block: int = 256 << 10,
                 prefetch: int = 2, cache_blocks: int = 6, retries: int = 2, backoff_s: float = 0.05,
                 workers: int = 4, cache_bytes: int = 128 << 20) -> None:
        if block_size < 64 << 10 or point_block < 4 << 10 or prefetch < 0 or cache_blocks < prefetch + 2:
            raise ValueError("block_size ≥ 64 KiB, point_block ≥ 4 KiB, prefetch ≥ 0, cache_blocks ≥ prefetch + 2")
        self.fs = filesystem
        self.strip = strip  # characters of a URI before the filesystem's own path ("s3://" for S3)
        self.block_size = block_size
        self.point_block = point_block
        self.prefetch = prefetch
        self.cache_blocks = cache_blocks
        # what every open object of this store keeps, together: a scan over many segments (or a reader
        # of many logs) holds at most this much, the least recently used going first
        self.cache_bytes = cache_bytes
        self._kept: OrderedDict[tuple[int, int], tuple[ObjectFile, int]] = OrderedDict()  # (file, start) → size
        self._kept_bytes = 0
        self.retries = retries
        self.backoff_s = backoff_s
        self.stats = ReadStats()
        self._stats_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._workers = workers
        self._listings: dict[str, dict[str, Any]] = {}  # directory URI → {name: FileInfo}
        self._forgotten = 0  # bumped by every forget(): a LIST that a write overtook is not cached
        self._early: dict[str, tuple[int, Future[bytes]]] = {}  # prefetch_small: path → (size, content)

    @classmethod
    def from_uri(cls, uri: str, canonical: str, **options: Any) -> "ObjectStore":
        """A store for the filesystem ``pyarrow.fs.FileSystem.from_uri`` makes of ``uri`` (its query
        string, credentials and the environment configure it); ``canonical`` is the URI as kvlog names it."""
        import pyarrow.fs as pafs

        failed: StorageError | None = None
        try:
            fs, inner = pafs.FileSystem.from_uri(uri)
        except (OSError, ValueError, TypeError) as exc:
            failed = _classify(exc, "opening the filesystem of", canonical, -1)
        if failed is not None:
            raise failed  # not chained: pyarrow's message quotes the URI (credentials, query)
        inner = inner.rstrip("/")
        if inner and canonical.endswith(inner):
            strip = len(canonical) - len(inner)
        else:
            strip = len(canonical.split("://", 1)[0]) + 3
        return cls(fs, strip=strip, **options)

    # ------------------------------------------------------------------------------- bookkeeping
    def fs_path(self, uri: str) -> str:
        return uri[self.strip:]

    def _count(self, **inc: int) -> None:
        with self._stats_lock:
            for k, v in inc.items():
                setattr(self.stats, k, getattr(self.stats, k) + v)

    def reset_stats(self) -> ReadStats:
        """The counts so far; counting starts again from zero."""
        with self._stats_lock:
            old, self.stats = self.stats, ReadStats()
        return old

    def call(self, what: str, path: str, position: int, fn: Callable[[], _T], **count: int) -> _T:
        """``fn()`` with bounded retries of transient failures; every failure becomes a typed error."""
        for attempt in range(self.retries + 1):
            self._count(**count)
            try:
                return fn()
            except (OSError, ValueError) as exc:  # pyarrow raises OSError for every I/O failure
                if attempt < self.retries and _transient(exc):
                    self._count(retries=1)
                    time.sleep(self.backoff_s * (2**attempt))
                    continue
                err = _classify(exc, what, path, position)
                if _transient(exc):
                    err = StorageUnavailableError(f"{err} (gave up after {attempt + 1} attempts)", path=path,
                                                  position=position)
            raise err  # outside the handler, not chained: the library's text may quote the URI (see _classify)
        raise AssertionError("unreachable")

    def _keep(self, f: "ObjectFile", start: int, size: int) -> None:
        """Count a cached range against ``cache_bytes``; evict the least recently used beyond it."""
        with self._stats_lock:
            key = (id(f), start)
            old = self._kept.pop(key, None)
            self._kept_bytes += size - (old[1] if old is not None else 0)
            self._kept[key] = (f, size)
            while self._kept_bytes > self.cache_bytes and len(self._kept) > 1:
                (_, s), (owner, n) = self._kept.popitem(last=False)
                self._kept_bytes -= n
                owner._forget(s)

    def _unkeep(self, f: "ObjectFile", start: int) -> None:
        with self._stats_lock:
            old = self._kept.pop((id(f), start), None)
            if old is not None:
                self._kept_bytes -= old[1]

    def _release(self, f: "ObjectFile") -> None:
        with self._stats_lock:
            for key in [k for k in self._kept if k[0] == id(f)]:
                self._kept_bytes -= self._kept.pop(key)[1]

    def pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="kvlog-prefetch")
        return self._pool

    # ------------------------------------------------------------------------------- directories
    def listdir(self, path: str, *, asked: str = "") -> list[str]:
        """Names in a directory (one LIST); the answer also serves ``exists``/``getsize`` of its entries
        until the directory is listed again. ``asked``: the entry the listing is for (named in errors)."""
        return sorted(self._list(path, asked))

    def _list(self, path: str, asked: str = "") -> dict[str, Any]:
        import pyarrow.fs as pafs

        sel = pafs.FileSelector(self.fs_path(path), allow_not_found=False, recursive=False)
        what = f"looking up {asked}: listing" if asked else "listing"
        before = self._forgotten
        infos = self.call(what, path, -1, lambda: self.fs.get_file_info(sel), lists=1)
        entries = {info.base_name: info for info in infos}
        if self._forgotten == before:  # else a write of this process may have overtaken the LIST: not kept
            self._listings[path.rstrip("/")] = entries
        for stale in [p for p in self._early if p.rpartition("/")[0] == path.rstrip("/")]:
            del self._early[stale]  # fetched for an earlier view of this directory
        return entries

    def _info(self, path: str) -> Any | None:
        """The listing's entry for ``path``; the parent is listed (one LIST) if it has not been yet: a
        reader asks about several names in a directory (checkpoints, indexes), and one LIST answers all."""
        parent, _, name = path.rstrip("/").rpartition("/")
        listing = self._listings.get(parent)
        if listing is None:
            if "/" not in parent.split("://", 1)[-1]:  # the bucket itself: look the name up directly
                import pyarrow.fs as pafs

                info = self.call("looking up", path, -1, lambda: self.fs.get_file_info(self.fs_path(path)), heads=1)
                return None if info.type == pafs.FileType.NotFound else info
            try:
                listing = self._list(parent, asked=path)
            except ObjectNotFoundError:
                listing = {}
                self._listings[parent] = listing
        return listing.get(name)

    def exists(self, path: str) -> bool:
        return self._info(path) is not None

    def isdir(self, path: str) -> bool:
        import pyarrow.fs as pafs

        info = self._info(path)
        return info is not None and info.type == pafs.FileType.Directory

    def getsize(self, path: str) -> int:
        info = self._info(path)
        if info is None:
            raise ObjectNotFoundError(f"no object {path}", path=path)
        return int(info.size or 0)

    def open_ranged(self, path: str) -> "ObjectFile":
        import pyarrow.fs as pafs

        info = self._info(path)
        if info is None or info.type != pafs.FileType.File:
            raise ObjectNotFoundError(f"no object {path}", path=path)
        f = ObjectFile(self, path, info)
        early = self._early.pop(path, None)
        if early is not None and early[0] == f.size:
            f._point = (0, early[1].result())  # fetched whole by prefetch_small (a failure raises here)
            self._keep(f, -1, f.size)
        return f

    def prefetch_small(self, paths: list[str]) -> None:
        """Fetch these objects whole, in parallel, for their next ``open_ranged``: the index, snapshot and
        checkpoint files an open reads one after another would each cost a round trip (two on S3)."""
        for path in paths:
            info = self._info(path)
            if info is None or path in self._early or not 0 < (info.size or 0) <= self.point_block:
                continue
            f = ObjectFile(self, path, info)
            self._early[path] = (f.size, self.pool().submit(f._get, 0, f.size))

    def read_all(self, path: str) -> bytes:
        f = self.open_ranged(path)
        try:
            return f.pread(f.size, 0)
        finally:
            f.close()


    # ------------------------------------------------------------------------------- writes
    # Only kvlog's sinks write here (``kvlog.spark._remote``): whole objects, each visible once complete
    # (a PUT, or a multipart upload that appears at its completion), never modified in place.
    def forget(self, directory: str) -> None:
        """Drop the cached listing of ``directory``: its next lookup lists it again (after a write). A LIST
        in flight meanwhile (another thread's) is not cached either: it may predate the write."""
        with self._stats_lock:
            self._forgotten += 1
        self._listings.pop(directory.rstrip("/"), None)

    def head(self, path: str) -> Any | None:
        """A fresh lookup of one object (no cached listing): its info, or None."""
        import pyarrow.fs as pafs

        info = self.call("looking up", path, -1, lambda: self.fs.get_file_info(self.fs_path(path)), heads=1)
        return None if info.type == pafs.FileType.NotFound else info

    def put(self, path: str, data: bytes) -> int:
        """Write ``path`` whole from ``data``; returns its size. Readers see the object only complete."""
        return self._upload(path, lambda: [data])

    def upload(self, path: str, local: str) -> int:
        """Write ``path`` whole from the local file ``local``, read afresh by every attempt: a retried upload
        sends the whole file again, never the rest of a stream the failed attempt consumed."""
        def chunks() -> Iterator[bytes]:
            with open(local, "rb") as f:
                yield from iter(lambda: f.read(8 << 20), b"")

        return self._upload(path, chunks)

    def _upload(self, path: str, chunks: Callable[[], Iterable[bytes]]) -> int:
        def write() -> int:
            n = 0
            with self.fs.open_output_stream(self.fs_path(path), metadata={}) as out:
                for chunk in chunks():
                    out.write(chunk)
                    n += len(chunk)
            return n

        size = self.call("writing", path, -1, write, puts=1)
        self.forget(path.rpartition("/")[0])
        return size

    def open_output(self, path: str) -> Any:
        """A stream that writes ``path`` (an upload that becomes visible when the stream closes)."""
        self.forget(path.rpartition("/")[0])
        return self.call("writing", path, -1, lambda: self.fs.open_output_stream(self.fs_path(path), metadata={}),
                         puts=1)

    def delete(self, path: str) -> None:
        """Remove one object; one already gone is not an error."""
        import pyarrow.fs as pafs

        def rm() -> None:
            try:
                self.fs.delete_file(self.fs_path(path))
            except FileNotFoundError:
                pass
            except OSError:
                if self.fs.get_file_info(self.fs_path(path)).type != pafs.FileType.NotFound:
                    raise

        self.call("deleting", path, -1, rm, deletes=1)
        self.forget(path.rpartition("/")[0])

    def delete_tree(self, path: str) -> None:
        """Remove every object under ``path`` (a finished job's staging prefix); one already gone is fine."""
        def rm() -> None:
            try:
                self.fs.delete_dir(self.fs_path(path))
            except FileNotFoundError:
                pass

        self.call("deleting", path, -1, rm, deletes=1)
        self.forget(path.rstrip("/").rpartition("/")[0])

    def make_dir(self, path: str) -> None:
        """A directory marker, so that an empty partition of a new topic is listed."""
        self.call("creating", path, -1, lambda: self.fs.create_dir(self.fs_path(path), recursive=True), puts=1)
        self.forget(path.rstrip("/").rpartition("/")[0])

    def walk(self, path: str) -> list[tuple[str, int, int]]:
        """Every object under ``path`` (one recursive LIST): ``(uri, size, mtime ms)``."""
        import pyarrow.fs as pafs

        sel = pafs.FileSelector(self.fs_path(path), allow_not_found=True, recursive=True)
        infos = self.call("listing", path, -1, lambda: self.fs.get_file_info(sel), lists=1)
        base = path[: self.strip]
        return [(base + i.path, int(i.size or 0), int(i.mtime.timestamp() * 1000) if i.mtime else 0)
                for i in infos if i.type == pafs.FileType.File]


class ObjectFile:
    """One object opened for ranged reads through the store's block cache and prefetch."""

    def __init__(self, store: ObjectStore, path: str, info: Any) -> None:
        self.store = store
        self.path = path
        self.size = int(info.size or 0)
        self.mtime_ms = int(info.mtime_ns // 1_000_000) if info.mtime_ns is not None else 0
        self._info = info
        self._raw: Any = None
        self._lock = threading.Lock()
        self._blocks: OrderedDict[int, bytes | Future[bytes]] = OrderedDict()  # block start → data
        self._point: tuple[int, bytes] | None = None  # the last point read's range
        self._next = -1  # where the previous read ended: a read starting there is a scan

    def _file(self) -> Any:
        if self._raw is None:
            # pyarrow's Python binding takes a path, not the listing's FileInfo: S3 asks a HEAD here
            path = self.store.fs_path(self.path)
            self._raw = self.store.call("opening", self.path, -1, lambda: self.store.fs.open_input_file(path),
                                        heads=1)
        return self._raw

    def _get(self, start: int, size: int) -> bytes:
        raw = self._file()
        data = self.store.call("reading", self.path, start, lambda: raw.read_at(size, start), gets=1)
        got = len(data)
        self.store._count(get_bytes=got)
        if got != size:
            raise StorageError(f"reading {self.path} at position {start}: the object ended after {got} of "
                               f"{size} bytes; it is shorter than its listing said ({self.size} bytes): "
                               "truncated or replaced while being read", path=self.path, position=start + got)
        return bytes(data)

    def _resolve(self, start: int) -> bytes:
        """Block ``start``'s bytes, fetched now unless cached or already in flight."""
        entry = self._blocks.get(start)
        if entry is None:
            entry = self._blocks[start] = self._get(start, min(self.store.block_size, self.size - start))
        elif isinstance(entry, Future):
            entry = self._blocks[start] = entry.result()
        self.store._keep(self, start, len(entry))
        return entry

    def _forget(self, start: int) -> None:
        """The store's budget evicts a block (or, ``start == -1``, the point range)."""
        if start < 0:
            self._point = None
        else:
            self._blocks.pop(start, None)

    def _prefetch_range(self, start: int, stop: int) -> None:
        bs = self.store.block_size
        for s in range(start, min(stop, self.size), bs):
            if s not in self._blocks:
                self._blocks[s] = self.store.pool().submit(self._get, s, min(bs, self.size - s))

    def _evict(self, keep_from: int) -> None:
        """A scan does not come back: blocks before ``keep_from`` go first, then the oldest."""
        blocks = self._blocks
        for s in [s for s in list(blocks) if s < keep_from]:  # a snapshot: the store's budget may evict too
            if len(blocks) <= self.store.cache_blocks:
                break
            old = blocks.pop(s)
            self.store._unkeep(self, s)
            if isinstance(old, Future):
                old.cancel()
        while len(blocks) > self.store.cache_blocks:
            s, old = blocks.popitem(last=False)
            self.store._unkeep(self, s)
            if isinstance(old, Future):
                old.cancel()

    def scan_block(self, offset: int) -> tuple[int, int]:
        """Where the block holding ``offset`` starts and ends: a read inside one block is a view of it,
        where a read across blocks copies them into one buffer."""
        bs = self.store.block_size
        first = offset // bs * bs
        return first, min(self.size, first + bs)

    def will_need(self, offset: int, size: int) -> None:
        """Start fetching ``[offset, offset + size)`` in the background (a scan about to reach it)."""
        if self.size == 0 or offset >= self.size:
            return
        bs = self.store.block_size
        with self._lock:
            first = offset // bs * bs
            stop = min(offset + size, first + bs * self.store.cache_blocks)
            self._prefetch_range(first, stop)

    def pread(self, size: int, offset: int) -> bytes:
        """``size`` bytes from ``offset`` (fewer only at the end of the object), as ``bytes``."""
        got = self._read(size, offset)
        return got if isinstance(got, bytes) else bytes(got)

    def read_block(self, size: int, offset: int) -> memoryview:
        """The same as a read-only buffer: a view of the cached block when the range lies in one."""
        got = self._read(size, offset)
        return memoryview(got)

    def readinto(self, view: memoryview, offset: int) -> int:
        """Fill ``view`` from ``offset``: each block's piece copied straight into place (no joined copy)."""
        n = 0
        for piece in self._pieces(len(view), offset):
            view[n : n + len(piece)] = piece
            n += len(piece)
        return n

    def _read(self, size: int, offset: int) -> bytes | memoryview:
        pieces = self._pieces(size, offset)
        if len(pieces) == 1:
            return pieces[0]
        return b"".join(pieces)  # one copy of each piece, straight into place (no zero-filled buffer first)

    def _pieces(self, size: int, offset: int) -> list[memoryview]:
        """``[offset, offset + size)`` (shorter only at the end of the object) as views of the cached blocks
        (or the point range) it covers, in order."""
        end = min(offset + size, self.size)
        if offset >= end:
            return [memoryview(b"")]
        with self._lock:
            point = self._point
            if point is not None and point[0] <= offset and end <= point[0] + len(point[1]):
                self._next = end
                return [memoryview(point[1])[offset - point[0] : end - point[0]]]
            bs = self.store.block_size
            first = offset // bs * bs
            if first not in self._blocks and offset != self._next and end - offset < self.store.point_block:
                # a point read: one small request, kept for the reads that follow it
                start = max(0, min(offset, self.size - self.store.point_block))
                data = self._get(start, min(self.store.point_block, self.size - start))
                self._point = (start, data)
                self.store._keep(self, -1, len(data))
                self._next = end
                return [memoryview(data)[offset - start : end - start]]
            self._next = end
            last = (end - 1) // bs * bs
            # every block of this read that is neither cached nor in flight, requested in parallel,
            # and the blocks after it, so that the network works while the caller decodes
            self._prefetch_range(first, last + bs)
            self._prefetch_range(last + bs, last + bs * (self.store.prefetch + 1))
            parts = [self._resolve(s) for s in range(first, last + bs, bs)]
            self._evict(last)
        if len(parts) == 1:
            return [memoryview(parts[0])[offset - first : end - first]]
        return [memoryview(part)[offset - first if k == 0 else 0 : min(len(part), end - (first + k * bs))]
                for k, part in enumerate(parts)]

    def close(self) -> None:
        self.store._release(self)
        with self._lock:
            for entry in self._blocks.values():
                if isinstance(entry, Future):
                    entry.cancel()
            self._blocks.clear()
            self._point = None
            raw, self._raw = self._raw, None
        if raw is not None:
            try:
                raw.close()
            except OSError:
                pass
