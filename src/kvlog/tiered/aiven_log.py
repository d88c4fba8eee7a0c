"""A remote segment's ``.log`` as Kafka wrote it, read from the Aiven plugin's chunked ``.log`` object.

The plugin cuts the ``.log`` into chunks of ``originalChunkSize`` bytes, transforms each one on its own
(zstd, then AES-GCM) and concatenates the results into one object; the manifest's chunk index says where
each transformed chunk lies (``manifest/index/AbstractChunkIndex.java``). The plugin itself fetches a
range of the segment chunk by chunk, one ranged GET per chunk, through its chunk cache
(``fetch/FetchChunkEnumeration.java``, ``fetch/DefaultChunkManager.java``; sources at
``core/src/main/java/io/aiven/kafka/tieredstorage/`` of Aiven-Open/tiered-storage-for-apache-kafka).

Here a read maps its range of the original bytes to whole chunks, and consecutive chunks are one
contiguous range of the object, so:

- a point read (an index hint, a batch header) fetches just the chunks it covers, in one GET;
- a scan (``read_block``, reads that follow each other, or a range announced by ``will_need``) fetches
  groups of chunks of about ``block_size`` original bytes (8 MiB) per GET, and the group after the one
  being read is already in flight on a worker thread;
- decoded chunks are kept for the reads that follow, at most ``max(prefetch + 2, 6)`` groups' worth per
  open file (a group is at least ``block_size`` and one chunk); a scan drops what it has passed first.

A plain segment (neither compressed nor encrypted) is served from the fetched bytes with no copy.
"""

from __future__ import annotations

import threading
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Union

from kvlog.errors import CorruptRemoteObjectError

if TYPE_CHECKING:
    from kvlog.tiered.aiven_crypto import ChunkCipher
    from kvlog.tiered.aiven_manifest import ChunkIndex

__all__ = ["ChunkedLogFile"]

_local = threading.local()
_MAX_SPANS = 64  # cached ranges per open file (point reads of small chunks add one each)


def _decompressor() -> Any:
    """One reusable zstd decompression context per thread (a context is not thread-safe)."""
    dctx = getattr(_local, "dctx", None)
    if dctx is None:
        import zstandard

        dctx = _local.dctx = zstandard.ZstdDecompressor()
    return dctx


@dataclass
class _Span:
    """Decoded chunks ``first..last`` (inclusive): the original bytes from ``start``."""

    first: int
    last: int
    start: int
    data: bytes | memoryview

    @property
    def end(self) -> int:
        return self.start + len(self.data)


_Entry = Union[_Span, "Future[_Span]"]


class ChunkedLogFile:
    """A :class:`kvlog.storage.RangedFile` over a chunked ``.log`` object.

    ``fetch(start, size)`` reads that range of the object (one request; shorter only if the object
    ends); ``object_size()`` is the object's length (known once it is opened); ``pool`` runs prefetches.
    """

    def __init__(self, path: str, index: "ChunkIndex", *, compression: bool, cipher: "ChunkCipher | None",
                 fetch: Callable[[int, int], bytes | memoryview], object_size: Callable[[], int], pool: Callable[[], Executor],
                 close: Callable[[], None], block_size: int = 8 << 20, prefetch: int = 1) -> None:
        self.path = path
        self.size = index.original_file_size
        self.mtime_ms = 0
        self._index = index
        self._offsets = index.offsets
        self._cs = index.original_chunk_size
        self._n = index.count
        self._compression = compression
        self._cipher = cipher
        self._fetch_range = fetch
        self._object_size = object_size
        self._pool = pool
        self._close = close
        self._group = max(1, -(-block_size // self._cs))  # chunks per scan request: at least block_size
        self._prefetch = max(0, prefetch)
        # decoded bytes kept at most: as many groups as an object store keeps blocks (6), so that a segment
        # read's growing windows from one position (8 KiB, 120 KiB, ... then 64 MiB) find their chunks again
        self._budget = max(self._prefetch + 2, 6) * self._group * self._cs
        self._spans: dict[tuple[int, int], _Entry] = {}  # (first, last) → span or its fetch in flight
        self._lock = threading.Lock()
        self._next = -1  # where the previous read ended: a read starting there is a scan
        self._scan = (0, 0)  # the range the last will_need announced
        self._closed = False

    # ------------------------------------------------------------------------------- fetch and decode
    def _present(self, first: int, last: int) -> int:
        """The last chunk of ``first..last`` that the object holds whole; raises if ``first`` is cut."""
        have = self._object_size()
        end = last
        while end >= first and self._offsets[end + 1] > have:
            end -= 1
        if end < first:
            raise CorruptRemoteObjectError(
                f"{self.path}: chunk {first} (bytes {self._offsets[first]}..{self._offsets[first + 1]} of the object) "
                f"is cut short: the object is {have} bytes, its manifest's chunk index says "
                f"{self._index.transformed_size} (a truncated upload, or another object under this key)",
                path=self.path, position=min(have, self._offsets[first]))
        return end

    def _load(self, first: int, last: int) -> _Span:
        """Fetch chunks ``first..last`` in one request and decode them."""
        offsets = self._offsets
        t0 = offsets[first]
        data = self._fetch_range(t0, offsets[last + 1] - t0)
        if len(data) < offsets[last + 1] - t0:  # the object shrank since it was opened
            got = t0 + len(data)
            cut = next(i for i in range(first, last + 1) if offsets[i + 1] > got)
            raise CorruptRemoteObjectError(
                f"{self.path}: chunk {cut} (bytes {offsets[cut]}..{offsets[cut + 1]} of the object) is cut short: "
                f"the object ends at byte {got}", path=self.path, position=offsets[cut])
        start = first * self._cs
        if self._cipher is None and not self._compression:
            expected = min(self.size, (last + 1) * self._cs) - start
            if len(data) != expected:
                raise CorruptRemoteObjectError(
                    f"{self.path}: chunks {first}..{last} at byte {t0} are {len(data)} bytes; uncompressed and "
                    f"unencrypted they must be the original {expected}", path=self.path, position=t0)
            return _Span(first, last, start, data)
        view = memoryview(data)
        parts = [self._decode(i, view[offsets[i] - t0:offsets[i + 1] - t0]) for i in range(first, last + 1)]
        return _Span(first, last, start, parts[0] if len(parts) == 1 else b"".join(parts))

    def _decode(self, i: int, chunk: memoryview) -> bytes:
        position = self._offsets[i]
        out: bytes | memoryview = chunk
        if self._cipher is not None:
            out = self._cipher.decrypt(chunk, f"chunk {i}", self.path, position)
        want = self._index.original_size(i)
        if self._compression:
            import zstandard

            try:
                out = _decompressor().decompress(out, max_output_size=want)
            except zstandard.ZstdError as exc:
                raise CorruptRemoteObjectError(
                    f"{self.path}: chunk {i} at byte {position} does not decompress (zstd: {exc})", path=self.path,
                    position=position) from None
        if len(out) != want:
            raise CorruptRemoteObjectError(
                f"{self.path}: chunk {i} at byte {position} decodes to {len(out)} bytes, not the {want} of the "
                "original chunk", path=self.path, position=position)
        return bytes(out)

    # ------------------------------------------------------------------------------- the chunk cache
    def _find(self, chunk: int) -> tuple[tuple[int, int], _Entry] | None:
        found = None
        for key, entry in self._spans.items():
            if key[0] <= chunk <= key[1]:
                if isinstance(entry, _Span):
                    return key, entry
                found = (key, entry)
        return found

    def _settle(self, key: tuple[int, int], entry: _Entry) -> _Span:
        if isinstance(entry, _Span):
            return entry
        try:
            span = entry.result()
        except BaseException:
            self._spans.pop(key, None)  # the next read asks again
            raise
        if key in self._spans:
            self._spans[key] = span
        return span

    def _want_group(self, group: int) -> None:
        """Start fetching scan group ``group`` unless it is cached or in flight."""
        first = group * self._group
        if first >= self._n:
            return
        last = min(first + self._group, self._n) - 1
        while first <= last:  # chunks a point read already holds (the open's first batch) are not fetched again
            held = next((k for k in self._spans if k[0] <= first <= k[1]), None)
            if held is None:
                break
            first = held[1] + 1
        if first > last:
            return
        try:
            last = self._present(first, last)
        except CorruptRemoteObjectError:
            return  # a cut object: the read that needs this chunk reports it
        if (first, last) not in self._spans:
            self._spans[(first, last)] = self._pool().submit(self._load, first, last)

    def _evict(self, reading: int) -> None:
        """Keep the decoded bytes under budget: spans wholly before chunk ``reading`` go first, then the oldest."""
        def size(key: tuple[int, int]) -> int:
            return (key[1] - key[0] + 1) * self._cs

        total = sum(size(k) for k in self._spans)
        for key in [k for k in self._spans if k[1] < reading] + list(self._spans):
            if total <= self._budget and len(self._spans) <= _MAX_SPANS:
                break
            entry = self._spans.pop(key, None)
            if entry is None:
                continue
            total -= size(key)
            if isinstance(entry, Future):
                entry.cancel()

    # ------------------------------------------------------------------------------- RangedFile
    def scan_block(self, offset: int) -> tuple[int, int]:
        """Where the scan group holding ``offset`` starts and ends (see ``ObjectFile.scan_block``)."""
        span = self._group * self._cs
        first = offset // span * span
        return first, min(self.size, first + span)

    def will_need(self, offset: int, size: int) -> None:
        """A scan of ``[offset, offset + size)`` is coming: fetch its first groups in the background."""
        if offset >= self.size or size <= 0:
            return
        with self._lock:
            self._scan = (offset, offset + size)
            c = offset // self._cs
            last = (min(offset + size, self.size) - 1) // self._cs
            for g in range(c // self._group, min(last // self._group, c // self._group + self._prefetch) + 1):
                self._want_group(g)

    def _read(self, size: int, offset: int, scan: bool) -> bytes | memoryview:
        end = min(offset + size, self.size)
        if offset < 0:
            raise ValueError(f"{self.path}: negative read position {offset}")
        if offset >= end:
            return b""
        cs = self._cs
        with self._lock:
            if self._closed:
                raise ValueError(f"{self.path}: read after close")
            scan = scan or offset == self._next or self._scan[0] <= offset < self._scan[1]
            self._next = end
            first, last = offset // cs, (end - 1) // cs
            if scan:
                for g in range(first // self._group, last // self._group + self._prefetch + 1):
                    self._want_group(g)
            pieces: list[memoryview] = []
            pos = offset
            while pos < end:
                c = pos // cs
                found = self._find(c)
                if found is None:  # a point read: just the chunks it covers, up to the next cached one
                    stop = c
                    while stop < last and self._find(stop + 1) is None:
                        stop += 1
                    stop = self._present(c, stop)
                    span = self._load(c, stop)
                    self._spans[(c, stop)] = span
                else:
                    span = self._settle(*found)
                take = min(end, span.end)
                pieces.append(memoryview(span.data)[pos - span.start:take - span.start])
                pos = take
            self._evict(first)
        if len(pieces) == 1:
            return pieces[0]
        return b"".join(pieces)

    def pread(self, size: int, offset: int) -> bytes:
        got = self._read(size, offset, False)
        return got if isinstance(got, bytes) else bytes(got)

    def read_block(self, size: int, offset: int) -> memoryview:
        return memoryview(self._read(size, offset, True))

    def readinto(self, view: memoryview, offset: int) -> int:
        got = self._read(len(view), offset, len(view) > self._cs)
        view[:len(got)] = got
        return len(got)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for entry in self._spans.values():
                if isinstance(entry, Future):
                    entry.cancel()
            self._spans.clear()
        self._close()

    def __repr__(self) -> str:
        return f"ChunkedLogFile({self.path!r}, {self.size} bytes in {self._n} chunks)"
