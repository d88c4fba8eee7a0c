"""Kafka's offset index (``.index``) and time index (``.timeindex``): memory-mapped, preallocated files.

Byte layouts (big-endian, no header, no checksum; Kafka's ``OffsetIndex`` and ``TimeIndex``):

* ``.index``: 8-byte entries ``relativeOffset int32 | position int32``; relative offsets strictly increase.
* ``.timeindex``: 12-byte entries ``timestamp int64 | relativeOffset int32``; timestamps strictly increase,
  offsets never decrease.

Semantics follow Kafka's ``AbstractIndex`` / ``OffsetIndex`` / ``TimeIndex``: a new file is preallocated to
``max_index_size`` rounded down to the entry size and mapped; lookups use Kafka's warm-section binary search
(compiled, ``kvlog._core.index``); ``trim_to_valid_size`` cuts the file to the entries in use (done by the
segment on roll/close/recovery, not by ``close``).

**Never believe a zero-filled tail.** Kafka opens an existing file with ``entries = length // entry_size``,
so an untrimmed file left by a crash (zeros, or stale entries after a truncation) is believed whole. kvlog
reads the same number into :attr:`entries` but then scans for the trustworthy prefix (keys and positions
strictly increasing, no all-zero entry; see ``valid_entries`` in ``kvlog._core.index``) and uses only that
prefix (:attr:`valid_entries`) for lookups, appends, ``is_full`` and trimming. :meth:`untrusted_tail` says how
many entries Kafka would have believed beyond it, so the segment layer can decide to rebuild. The first
mutation (append, truncation, resize) adopts the trusted prefix: the untrusted slots are zeroed and from
then on ``entries == valid_entries``. Truncations zero the slots they drop, so a later crash can never
resurrect them. Pass ``trust_tail=True`` to get Kafka's exact behaviour instead.

**Concurrency.** An index object is not thread-safe: one writer owns a writable instance. Readers (other
threads or processes) open their own ``writable=False`` instance, which maps the file read-only, never
writes, never resizes, and sees entries appended later after :meth:`~_AbstractIndex.refresh` or a reopen.
A reader maps the file as it was when opened; a writer that later shrinks the file below what the reader
uses (truncate, then trim) would make those pages unreadable (SIGBUS), which Kafka's own life cycle never
does to a live reader (files are trimmed only past their last entry and deleted by unlink/rename).

**mmap life cycle.** The object holds one buffer export of its mapping (``kvlog._core.index.Pinned``) for
fast lookups and gives it back before every remap or close; nothing it returns is a view of the mapping
(decoded arrays are copies), so resizing or closing never meets an outstanding export.

Errors: :class:`kvlog.errors.InvalidOffsetError` for offsets that break ordering or do not fit the index
(relative offset outside 0..2^31-1), for bad positions and out-of-range slots;
:class:`IndexFullError` (an ``InvalidOffsetError``) when no slot is left;
:class:`kvlog.errors.InvalidTimestampError` for a timestamp outside int64;
:class:`kvlog.errors.ConfigError` for bad sizes; :class:`kvlog.errors.CorruptIndexError` from
:meth:`~_AbstractIndex.sanity_check`; :class:`ReadOnlyIndexError` for writes through a read-only instance;
:class:`ClosedIndexError` for use after :meth:`~_AbstractIndex.close`. File-system failures are ``OSError``.
"""

from __future__ import annotations

import io
import mmap
import operator
import os
import struct
from typing import Any, Callable, ClassVar, NamedTuple, Union

import numpy as np
import numpy.typing as npt

from kvlog import _io
from kvlog._core import index as _k
from kvlog.errors import (
    ConfigError,
    CorruptIndexError,
    InvalidOffsetError,
    InvalidTimestampError,
    KvlogError,
    SegmentReplacedError,
)

__all__ = [
    "OffsetPosition",
    "TimestampOffset",
    "OffsetIndex",
    "TimeIndex",
    "IndexFullError",
    "ReadOnlyIndexError",
    "ClosedIndexError",
    "DEFAULT_MAX_INDEX_SIZE",
    "WARM_BYTES",
    "OFFSET_ENTRY_DTYPE",
    "TIME_ENTRY_DTYPE",
    "read_offset_index",
    "read_time_index",
    "kafka_index_end",
]

DEFAULT_MAX_INDEX_SIZE = 10 * 1024 * 1024
WARM_BYTES: int = _k.WARM_BYTES
NO_TIMESTAMP = -1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

PathLike = Union[str, "os.PathLike[str]"]
I64Array = npt.NDArray[np.int64]


class OffsetPosition(NamedTuple):
    """An offset-index entry: ``offset`` (absolute) starts at byte ``position`` of the ``.log``."""

    offset: int
    position: int


class TimestampOffset(NamedTuple):
    """A time-index entry: the largest timestamp seen up to and including ``offset`` is ``timestamp``."""

    timestamp: int
    offset: int


_new_tuple: Any = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot lookup path)
_new_op: Callable[[type[OffsetPosition], tuple[int, int]], OffsetPosition] = _new_tuple
_new_to: Callable[[type[TimestampOffset], tuple[int, int]], TimestampOffset] = _new_tuple


class IndexFullError(InvalidOffsetError):
    """An append found no free slot (Kafka: ``IllegalArgumentException`` "append to a full index")."""


class ReadOnlyIndexError(KvlogError, io.UnsupportedOperation):
    """A write (append, truncate, resize) through an index opened with ``writable=False``."""


class ClosedIndexError(KvlogError, ValueError):
    """Use of an index after ``close()`` / ``delete()``."""


#: One ``.index`` entry as numpy sees the file (relative offset, position), packed big-endian.
OFFSET_ENTRY_DTYPE = np.dtype([("rel", ">i4"), ("position", ">i4")])
#: One ``.timeindex`` entry as numpy sees the file (timestamp, relative offset), packed big-endian.
TIME_ENTRY_DTYPE = np.dtype([("timestamp", ">i8"), ("rel", ">i4")])


def _read_entries(path: str, dtype: np.dtype) -> tuple[np.ndarray, int]:
    """Every entry Kafka would believe (``file length // entry size``) and the file length.

    Read with plain reads, never mapped: a broker or kvlog writer may trim the file of an active segment
    at any moment, and a mapped page past the new end would kill a read-only checker with SIGBUS.
    """
    data = _io.fs.read_file(path)
    whole = len(data) - len(data) % dtype.itemsize
    return np.frombuffer(data[:whole], dtype=dtype), len(data)


def read_offset_index(path: str, base: int) -> tuple[I64Array, I64Array, int]:
    """``(offsets, positions, file length)`` of every entry of a ``.index`` file, untrusted tail included,
    for tools that judge the file rather than use it (``kvlog dump``, :mod:`kvlog.verify`)."""
    raw, length = _read_entries(path, OFFSET_ENTRY_DTYPE)
    return base + raw["rel"].astype(np.int64), raw["position"].astype(np.int64), length


def read_time_index(path: str, base: int) -> tuple[I64Array, I64Array, int]:
    """``(timestamps, offsets, file length)`` of every entry of a ``.timeindex`` file, as
    :func:`read_offset_index` reads an offset index."""
    raw, length = _read_entries(path, TIME_ENTRY_DTYPE)
    return raw["timestamp"].astype(np.int64), base + raw["rel"].astype(np.int64), length


def kafka_index_end(offsets: np.ndarray, base: int) -> int:
    """DumpLogSegments' end of an index read by :func:`read_offset_index` or :func:`read_time_index`:
    the first entry after the first one that holds the base offset (where a zero-filled tail starts)."""
    hits = np.flatnonzero(offsets[1:] == base)
    return int(hits[0]) + 1 if len(hits) else len(offsets)


_EMPTY = b""


def _as_int(value: Any, what: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidOffsetError(f"{what} must be an integer, got {type(value).__name__}") from None


def _int64_targets(targets: Any, what: str) -> I64Array:
    arr = np.asarray(targets)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype.kind == "u":
        if arr.size and arr.dtype.itemsize >= 8:
            arr = np.minimum(arr, np.uint64(INT64_MAX))
        return arr.astype(np.int64)
    if arr.dtype.kind != "i":
        if arr.size == 0:
            return np.empty(0, dtype=np.int64)
        raise InvalidOffsetError(f"{what} must be an integer array, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


#: below this size a reader's copy of an index file is read whole; above, only up to the first hole
_SPARSE_COPY_MIN = 1 << 20


def _private_copy(fd: int, length: int) -> Any:
    """A reader's private copy of an index file (never a shared mapping: the writer may trim it).

    A writer's active index is preallocated to ``segment.index.bytes`` and mostly a hole: zeros it has
    not written yet. Only the bytes before the first hole are read; the rest of the copy stays
    anonymous zero pages that are never touched, so opening a log read-only does not read (and fault in)
    megabytes of zeros per active segment. Where the file system reports no holes, the file is read whole.
    """
    if length <= 0:
        return _EMPTY
    data_end = _io.fs.data_end(fd, length) if length >= _SPARSE_COPY_MIN else length
    if data_end >= length:
        return _io.fs.pread(fd, length, 0)
    copy = mmap.mmap(-1, length)  # anonymous and private: zero-filled until written
    head = _io.fs.pread(fd, data_end, 0) if data_end > 0 else b""
    copy[: len(head)] = head
    return copy


class _AbstractIndex:
    """What the two indexes share (Kafka's ``AbstractIndex``): file, mapping, sizing, trust, life cycle."""

    ENTRY_SIZE: ClassVar[int]
    _KIND: ClassVar[str]

    def __init__(
        self,
        path: PathLike,
        base_offset: int,
        max_index_size: int = DEFAULT_MAX_INDEX_SIZE,
        writable: bool = True,
        *,
        trust_tail: bool = False,
    ) -> None:
        """Open (``writable``: create if missing) the index file at ``path``.

        A missing file is created with length ``max_index_size`` rounded down to the entry size
        (``ConfigError`` when that is 0); an existing file keeps its length and ``max_entries`` follows from
        it. ``writable=False`` reads a private copy of the file (a missing file is an empty index): a
        reader never maps a file that its writer may trim or truncate, which would be SIGBUS.
        """
        base = _as_int(base_offset, "base_offset")
        if not 0 <= base <= INT64_MAX:
            raise InvalidOffsetError(f"base offset {base} outside 0..{INT64_MAX}")
        size = operator.index(max_index_size)
        if not 0 <= size <= INT32_MAX:
            raise ConfigError(f"max index size {size} outside 0..{INT32_MAX} bytes")
        self._path = os.fspath(path)
        self._base = base
        self._max_index_size = size
        self._writable = bool(writable)
        self._trust_tail = bool(trust_tail)
        self._mm: mmap.mmap | None = None
        self._pin: Any = None
        self._length = 0
        self._max_entries = 0
        self._n = 0
        self._untrusted = 0
        self._suspended = False  # mapping given back to the descriptor budget; remapped on next use
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file mapped last
        #: called after a suspended index maps its file again (the owning segment counts the descriptor)
        # a weak reference to its segment's hook: a strong one would make every segment a reference cycle,
        # freed (and its descriptors closed) only by the cyclic collector
        self.on_resume: Callable[[], Callable[[], None] | None] | None = None
        created = self._open_file()
        self._load(0 if created else self._length // self.ENTRY_SIZE)

    # ------------------------------------------------------------------------------------ file / mmap
    def _open_file(self) -> bool:
        """Open and map the file; returns True if it was created here."""
        fs = _io.fs
        es = self.ENTRY_SIZE
        created = False
        if self._writable:
            try:
                fd = fs.open(self._path, os.O_RDWR)
            except FileNotFoundError:
                if self._max_index_size < es:
                    raise ConfigError(
                        f"invalid max index size {self._max_index_size} for new {self._KIND} {self._path}: "
                        f"smaller than one {es}-byte entry") from None
                try:
                    fd = fs.open(self._path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
                    created = True
                except FileExistsError:
                    fd = fs.open(self._path, os.O_RDWR)
        else:
            try:
                fd = fs.open(self._path, os.O_RDONLY)
            except FileNotFoundError:
                self._pin = _k.Pinned(_EMPTY)
                return False
        try:
            if created:
                fs.truncate(fd, self._max_index_size // es * es)
            self._map(fd)
        finally:
            fs.close(fd)
        return created

    def _map(self, fd: int) -> None:
        if not self._writable:
            length = _io.fs.size(fd)
            data = _private_copy(fd, length)
            length = len(data)
            self._pin = _k.Pinned(data)
            self._length = length
            self._max_entries = length // self.ENTRY_SIZE
            return
        st = os.fstat(fd)  # (a writable index is always a local file)
        length = st.st_size
        self._identity = (st.st_dev, st.st_ino)
        self._mm = mmap.mmap(fd, length, access=mmap.ACCESS_WRITE) if length > 0 else None
        self._pin = _k.Pinned(self._mm if self._mm is not None else _EMPTY)
        self._length = length
        self._max_entries = length // self.ENTRY_SIZE

    def _unmap(self) -> None:
        """Give back our export and close the mapping. If someone else still exports it (``BufferError``:
        a memoryview, or a batched lookup running in another thread) the object stays open and usable."""
        if self._pin is not None:
            self._pin.release()
            self._pin = None
        if self._mm is not None:
            try:
                self._mm.close()
            except BufferError:
                self._pin = _k.Pinned(self._mm)
                raise
            self._mm = None

    def _load(self, kafka_entries: int) -> None:
        """Set the entry counts from what Kafka would believe and the trustworthy prefix."""
        valid = kafka_entries if self._trust_tail else self._scan(kafka_entries)
        self._zeroed_to = kafka_entries * self.ENTRY_SIZE
        self._n = valid
        self._untrusted = kafka_entries - valid
        self._reload_last()

    # ------------------------------------------------------------------------------------ subclass hooks
    def _scan(self, n: int) -> int:
        raise NotImplementedError

    def _reload_last(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------ guards
    def _live(self) -> Any:
        pin = self._pin
        if pin is None:
            if self._suspended:
                return self._resume()
            raise ClosedIndexError(f"{self._KIND} {self._path} is closed")
        return pin

    # ------------------------------------------------------------------------------------ descriptor budget
    @property
    def holds_descriptor(self) -> bool:
        """True while a writable mapping is held: ``mmap`` keeps its own duplicate of the descriptor
        (a reader's private copy holds none)."""
        return self._mm is not None

    def suspend(self) -> bool:
        """Give back the mapping (and the descriptor it holds), keeping every count and the last entry
        in memory: the next use maps the file again, exactly as it was. Writes nothing (the mapped
        pages stay in the page cache; :meth:`flush` syncs them through the file). False when the
        mapping is exported elsewhere right now (a ``BufferError``), or there is nothing to give back."""
        if self._mm is None or self._suspended:
            return False
        try:
            self._unmap()
        except BufferError:
            return False
        self._suspended = True
        return True

    @property
    def suspended(self) -> bool:
        """The mapping was given back to the descriptor budget (see :meth:`suspend`)."""
        return self._suspended

    def _resume(self) -> Any:
        """Map the file again after :meth:`suspend`; ``SegmentReplacedError`` if it is no longer the file
        (or the length) this index had."""
        fs = _io.fs
        try:
            fd = fs.open(self._path, os.O_RDWR)
        except FileNotFoundError:
            raise SegmentReplacedError(
                f"{self._KIND} {self._path} was removed while its mapping was closed (open-file budget)") from None
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self._identity or st.st_size != self._length:
                raise SegmentReplacedError(
                    f"{self._KIND} {self._path} was replaced or resized by someone else while its mapping was "
                    f"closed (open-file budget): expected {self._length} bytes, found {st.st_size}")
            length = self._length
            self._mm = mmap.mmap(fd, length, access=mmap.ACCESS_WRITE)
            self._pin = _k.Pinned(self._mm)
        finally:
            fs.close(fd)
        self._suspended = False
        ref = self.on_resume
        hook = ref() if ref is not None else None
        if hook is not None:
            hook()
        return self._pin

    def _writer(self) -> mmap.mmap | None:
        """Check the index may be written; adopt the trusted prefix (zero the untrusted slots)."""
        self._live()
        if not self._writable:
            raise ReadOnlyIndexError(f"{self._KIND} {self._path} was opened read-only")
        if self._untrusted:
            self._zero(self._n, self._n + self._untrusted)
            self._untrusted = 0
        return self._mm

    _ZERO_AHEAD = 64 * 1024

    def _materialize(self, end_byte: int) -> None:
        """Write zeros with pwrite ahead of the mapped writes that will reach ``end_byte``.

        The first store into a page of a shared file mapping makes the file system allocate its block
        inside a page fault, which costs hundreds of microseconds on ext4; a pwrite does the same
        allocation cheaply. Zeroing 64 KiB at a time keeps index appends off that path.
        """
        if end_byte <= self._zeroed_to:
            return
        stop = min(self._length, max(end_byte, self._zeroed_to + self._ZERO_AHEAD))
        start = self._zeroed_to
        if stop > start:
            fd = _io.fs.open(self._path, os.O_WRONLY)
            try:
                _io.fs.pwrite(fd, bytes(stop - start), start)
            finally:
                _io.fs.close(fd)
        self._zeroed_to = stop

    def _zero(self, first: int, stop: int) -> None:
        es = self.ENTRY_SIZE
        if self._mm is not None and stop > first:
            self._mm[first * es: stop * es] = bytes((stop - first) * es)

    # ------------------------------------------------------------------------------------ properties
    @property
    def path(self) -> str:
        """The file backing this index (follows :meth:`rename_to`)."""
        return self._path

    @property
    def base_offset(self) -> int:
        return self._base

    @property
    def entries(self) -> int:
        """Entries Kafka would believe: ``file length // entry size`` at open (0 for a new file), then the
        entries in use once this object has written. ``entries - valid_entries == untrusted_tail()``."""
        return self._n + self._untrusted

    @property
    def valid_entries(self) -> int:
        """Entries in use: the trustworthy prefix (what lookups, appends and trimming see)."""
        return self._n

    def untrusted_tail(self) -> int:
        """Entries Kafka would believe beyond the trustworthy prefix (zero-filled or garbage slots)."""
        return self._untrusted

    @property
    def max_entries(self) -> int:
        """Slots in the mapped file (``file length // entry size``)."""
        return self._max_entries

    @property
    def max_index_size(self) -> int:
        """The configured maximum size in bytes (``segment.index.bytes``); :meth:`reset` resizes to it."""
        return self._max_index_size

    @property
    def entry_size(self) -> int:
        return self.ENTRY_SIZE

    @property
    def writable(self) -> bool:
        return self._writable

    @property
    def closed(self) -> bool:
        return self._pin is None and not self._suspended

    @property
    def size_in_bytes(self) -> int:
        """Bytes used by the entries in use (``valid_entries * entry_size``)."""
        return self._n * self.ENTRY_SIZE

    @property
    def file_size(self) -> int:
        """Length of the file as mapped (``length`` in Kafka)."""
        return self._length

    def is_full(self) -> bool:
        """No slot left for an append (Kafka's ``isFull``, over the entries in use)."""
        return self._n >= self._max_entries

    # ------------------------------------------------------------------------------------ offsets
    def relative_offset(self, offset: int) -> int:
        """``offset - base_offset``; ``InvalidOffsetError`` unless it fits 0..2^31-1 (Kafka's
        ``IndexOffsetOverflowException``)."""
        rel = _as_int(offset, "offset") - self._base
        if not 0 <= rel <= INT32_MAX:
            raise InvalidOffsetError(
                f"offset {offset} does not fit {self._KIND} {self._path} with base offset {self._base} "
                f"(relative offset {rel} outside 0..{INT32_MAX})")
        return rel

    def can_append_offset(self, offset: int) -> bool:
        rel = operator.index(offset) - self._base
        return 0 <= rel <= INT32_MAX

    def _rel_targets(self, offsets: Any) -> I64Array:
        """Absolute offsets → relative, saturated so no int64 arithmetic wraps (keys are int32)."""
        arr = _int64_targets(offsets, "offsets")
        lo = max(INT64_MIN, self._base + INT32_MIN - 1)
        hi = min(INT64_MAX, self._base + INT32_MAX)
        rel: I64Array = np.clip(arr, lo, hi) - np.int64(self._base)
        return rel

    # ------------------------------------------------------------------------------------ sizing
    def resize(self, new_size: int) -> bool:
        """Set the file (and mapping) to ``new_size`` rounded down to the entry size; True if it changed.

        Growing adds zero-filled slots; shrinking below the entries in use is refused (``ConfigError``;
        truncate first).
        """
        self._writer()
        size = operator.index(new_size)
        es = self.ENTRY_SIZE
        if not 0 <= size <= INT32_MAX:
            raise ConfigError(f"index size {size} outside 0..{INT32_MAX} bytes")
        rounded = size // es * es
        if rounded == self._length:
            return False
        if rounded < self._n * es:
            raise ConfigError(
                f"cannot resize {self._KIND} {self._path} to {rounded} bytes: {self._n} entries "
                f"({self._n * es} bytes) are in use")
        fs = _io.fs
        self._unmap()
        fd = fs.open(self._path, os.O_RDWR)
        try:
            try:
                fs.truncate(fd, rounded)
            finally:
                self._map(fd)  # whatever length the file has now
                self._zeroed_to = min(self._zeroed_to, self._length)
        finally:
            fs.close(fd)
        return True

    def trim_to_valid_size(self) -> bool:
        """Cut the file to the entries in use (Kafka's ``trimToValidSize``); True if it changed."""
        self._writer()
        return self.resize(self._n * self.ENTRY_SIZE)

    def reset(self) -> None:
        """Drop every entry and grow the file back to ``max_index_size`` (Kafka's ``reset``)."""
        self.truncate()
        self.resize(self._max_index_size)

    def truncate(self) -> None:
        """Drop every entry (the file keeps its length; dropped slots are zeroed)."""
        self._truncate_entries(0)

    def _truncate_entries(self, n: int) -> None:
        self._writer()
        if n < self._n:
            self._zero(n, self._n)
            self._n = n
            self._reload_last()

    # ------------------------------------------------------------------------------------ life cycle
    def flush(self) -> None:
        """Write the mapped pages to disk (``msync``) and fsync the file (a suspended index: only the fsync,
        which covers the pages written through its earlier mapping)."""
        if not self._suspended:
            self._live()
        if self._writable and (self._mm is not None or self._suspended):
            if self._mm is not None:
                self._mm.flush()
            fs = _io.fs
            fd = fs.open(self._path, os.O_RDWR)
            try:
                fs.fsync(fd)
            finally:
                fs.close(fd)

    def refresh(self) -> int:
        """Read-only instances: pick up what a writer changed since (file length, entries); returns
        ``valid_entries``. A writable instance owns its state: nothing to do."""
        self._live()
        if self._writable:
            return self._n
        fs = _io.fs
        fd = fs.open(self._path, os.O_RDONLY)
        try:
            self._unmap()
            self._map(fd)  # a fresh private copy: contents may change at the same length
        finally:
            fs.close(fd)
        self._load(self._length // self.ENTRY_SIZE)
        return self._n

    def close(self) -> None:
        """Unmap the file (idempotent). Does not trim: the segment trims on roll/close, as in Kafka."""
        self._unmap()
        self._suspended = False

    def delete(self) -> bool:
        """Close and remove the file; False if it did not exist (Kafka's ``deleteIfExists``)."""
        self.close()
        try:
            _io.fs.unlink(self._path)
        except FileNotFoundError:
            return False
        return True

    def rename_to(self, path: PathLike) -> None:
        """Atomically rename the file (the mapping stays valid); ``path`` follows."""
        target = os.fspath(path)
        _io.fs.rename(self._path, target)
        self._path = target

    def sanity_check(self, strict: bool = False) -> None:
        """Kafka's ``sanityCheck`` over the entries Kafka would believe; ``CorruptIndexError`` on failure.

        ``strict=True`` also fails when an untrusted tail was found (something Kafka ≥ 2.0 does not
        notice for the offset index).
        """
        self._live()
        if self._length % self.ENTRY_SIZE != 0:
            raise CorruptIndexError(
                f"{self._KIND} file {self._path} is corrupt, found {self._length} bytes which is neither "
                f"positive nor a multiple of {self.ENTRY_SIZE}")
        self._kafka_checks()
        if strict and self._untrusted:
            raise CorruptIndexError(
                f"{self._KIND} file {self._path} has {self._untrusted} untrusted entries after its "
                f"{self._n} valid ones (an untrimmed or overwritten tail)")

    def _kafka_checks(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = ("suspended" if self._suspended else "closed") if self._pin is None else (
            "rw" if self._writable else "ro")
        return (f"{type(self).__name__}(path={self._path!r}, base_offset={self._base}, "
                f"valid_entries={self._n}, max_entries={self._max_entries}, untrusted={self._untrusted}, {state})")


class OffsetIndex(_AbstractIndex):
    """Sparse map from offsets to byte positions in the segment's ``.log`` (Kafka's ``OffsetIndex``)."""

    ENTRY_SIZE: ClassVar[int] = OFFSET_ENTRY_DTYPE.itemsize
    _KIND: ClassVar[str] = "offset index"
    _PACK = struct.Struct(">ii").pack_into

    _last_offset: int
    _last_position: int

    def _scan(self, n: int) -> int:
        v: int = _k.offset_valid_entries(self._pin, n)
        return v

    def _reload_last(self) -> None:
        if self._n:
            rel, pos = _k.offset_entry(self._pin, self._n, self._n - 1)
            self._last_offset, self._last_position = self._base + rel, pos
        else:
            self._last_offset, self._last_position = self._base, 0

    @property
    def last_offset(self) -> int:
        """Offset of the last entry, or ``base_offset`` when empty."""
        return self._last_offset

    @property
    def last_entry(self) -> OffsetPosition:
        """The last entry, or ``(base_offset, 0)`` when empty."""
        return OffsetPosition(self._last_offset, self._last_position)

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The entry with the largest offset ≤ ``target_offset``; ``(base_offset, 0)`` when the index is
        empty or the target is below the first entry."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.offset_lookup_entry(pin, self._n, target_offset - self._base)
        if hit is None:
            return _new_op(OffsetPosition, (self._base, 0))
        return _new_op(OffsetPosition, (self._base + hit[0], hit[1]))

    def lookup_position(self, target_offset: int) -> int:
        """``lookup(target_offset).position`` without building the tuple (the point operations' hint)."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.offset_lookup_entry(pin, self._n, target_offset - self._base)
        return 0 if hit is None else int(hit[1])

    def lookup_many(self, target_offsets: Any) -> tuple[I64Array, I64Array]:
        """``lookup`` for every element of an integer array: ``(offsets, positions)`` int64 arrays."""
        pin = self._live()
        slots = _k.offset_lookup_many(pin, self._n, self._rel_targets(target_offsets))
        offs: I64Array
        poss: I64Array
        offs, poss = _k.offset_resolve(pin, self._n, slots, self._base)
        return offs, poss

    def lookup_slot(self, target_offset: int) -> int:
        """Slot of the entry ``lookup`` returns, -1 when it returns ``(base_offset, 0)``."""
        s: int = _k.offset_lookup(self._live(), self._n, operator.index(target_offset) - self._base)
        return s

    def entry(self, n: int) -> OffsetPosition:
        """The ``n``-th entry (``InvalidOffsetError`` unless 0 ≤ n < valid_entries)."""
        pin = self._live()
        slot = _as_int(n, "slot")
        if not 0 <= slot < self._n:
            raise InvalidOffsetError(
                f"attempt to fetch entry {slot} from {self._KIND} {self._path}, which has {self._n} entries")
        rel, pos = _k.offset_entry(pin, self._n, slot)
        return OffsetPosition(self._base + rel, pos)

    def to_numpy(self) -> tuple[I64Array, I64Array]:
        """``(offsets, positions)`` of the entries in use, as int64 arrays (copies)."""
        offs: I64Array
        poss: I64Array
        offs, poss = _k.offset_entries(self._live(), self._n, self._base)
        return offs, poss

    def fetch_upper_bound_offset(self, fetch_offset: OffsetPosition, fetch_size: int) -> OffsetPosition | None:
        """The first entry whose position is ≥ ``fetch_offset.position + fetch_size``: an offset surely past
        a fetch of ``fetch_size`` bytes from there (not necessarily the smallest such), or None."""
        pin = self._live()
        slot = _k.offset_position_ceil(pin, self._n, fetch_offset.position + operator.index(fetch_size))
        if slot < 0:
            return None
        rel, pos = _k.offset_entry(pin, self._n, slot)
        return OffsetPosition(self._base + rel, pos)

    def append(self, offset: int, position: int) -> None:
        """Append ``(offset, position)``.

        Raises ``IndexFullError`` when no slot is left, ``InvalidOffsetError`` when ``offset`` is not larger
        than the last offset or does not fit the index (relative offset outside 0..2^31-1), or when
        ``position`` is outside 0..2^31-1 or not larger than the last entry's position (Kafka does not check
        positions; kvlog does, so that everything it writes is trusted when the file is reopened).
        ``ReadOnlyIndexError`` for a read-only instance.
        """
        mm = self._writer()
        off = _as_int(offset, "offset")
        pos = _as_int(position, "position")
        n = self._n
        if n >= self._max_entries:
            raise IndexFullError(
                f"attempt to append to a full {self._KIND} {self._path} (size = {n}, max = {self._max_entries})")
        if n and off <= self._last_offset:
            raise InvalidOffsetError(
                f"attempt to append an offset {off} to position {n} no larger than the last offset appended "
                f"({self._last_offset}) to {self._path}")
        rel = self.relative_offset(off)
        if not 0 <= pos <= INT32_MAX:
            raise InvalidOffsetError(f"position {pos} outside 0..{INT32_MAX} for {self._path}")
        if n and pos <= self._last_position:
            raise InvalidOffsetError(
                f"attempt to append position {pos} for offset {off} no larger than the last position "
                f"({self._last_position}) in {self._path}")
        assert mm is not None  # max_entries > 0 implies a mapping
        self._materialize((n + 1) * 8)
        self._PACK(mm, n * 8, rel, pos)
        self._n = n + 1
        self._last_offset = off
        self._last_position = pos

    def append_many(self, offsets: Any, positions: Any) -> None:
        """``append`` for each ``(offsets[j], positions[j])`` (integer arrays), all or nothing: the same
        rules and errors, checked for every entry before any is written."""
        mm = self._writer()
        offs = _int64_targets(offsets, "offsets")
        poss = _int64_targets(positions, "positions")
        m = len(offs)
        if len(poss) != m:
            raise InvalidOffsetError(f"{m} offsets but {len(poss)} positions")
        if m == 0:
            return
        n = self._n
        prev_off, prev_pos = (self._last_offset, self._last_position) if n else (self._base - 1, -1)
        room = self._max_entries - n
        if m > room:  # the error sequential appends would meet first: a bad entry, or no slot
            bad: int = _k.offset_store_many(_EMPTY, n, self._base, offs[:room], poss[:room], prev_off, prev_pos,
                                            False) if room > 0 else -1
            if bad < 0:
                raise IndexFullError(
                    f"attempt to append {m} entries to {self._KIND} {self._path} holding {n} of "
                    f"{self._max_entries}")
        else:
            assert mm is not None
            self._materialize((n + m) * 8)
            bad = _k.offset_store_many(mm, n, self._base, offs, poss, prev_off, prev_pos)
        if bad >= 0:
            o, p = int(offs[bad]), int(poss[bad])
            before = (int(offs[bad - 1]), int(poss[bad - 1])) if bad else (self._last_offset, self._last_position)
            if n or bad:
                if o <= before[0]:
                    raise InvalidOffsetError(
                        f"attempt to append an offset {o} to position {n + bad} no larger than the last offset "
                        f"appended ({before[0]}) to {self._path}")
                if p <= before[1]:
                    raise InvalidOffsetError(
                        f"attempt to append position {p} for offset {o} no larger than the last position "
                        f"({before[1]}) in {self._path}")
            self.relative_offset(o)
            raise InvalidOffsetError(f"position {p} outside 0..{INT32_MAX} for {self._path}")
        self._n = n + m
        self._last_offset = int(offs[-1])
        self._last_position = int(poss[-1])

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is ≥ ``offset`` (no effect past the last entry)."""
        self._writer()
        keep: int = _k.offset_count_below(self._pin, self._n, operator.index(offset) - self._base)
        self._truncate_entries(keep)

    def _kafka_checks(self) -> None:
        n = self._n + self._untrusted
        if n:
            rel, _ = _k.offset_entry(self._pin, n, n - 1)
            last = self._base + rel
            if last < self._base:
                raise CorruptIndexError(
                    f"corrupt index found, index file {self._path} has non-zero size but the last offset is "
                    f"{last} which is less than the base offset {self._base}")


class TimeIndex(_AbstractIndex):
    """Sparse map from timestamps to offsets (Kafka's ``TimeIndex``): entry ``(T, O)`` says the largest
    timestamp seen up to offset ``O`` is ``T``. One slot is kept free for the entry written at roll/close."""

    ENTRY_SIZE: ClassVar[int] = TIME_ENTRY_DTYPE.itemsize
    _KIND: ClassVar[str] = "time index"
    _PACK = struct.Struct(">qi").pack_into

    _last: TimestampOffset

    def _scan(self, n: int) -> int:
        v: int = _k.time_valid_entries(self._pin, n)
        return v

    def _reload_last(self) -> None:
        if self._n:
            ts, rel = _k.time_entry(self._pin, self._n, self._n - 1)
            self._last = TimestampOffset(ts, self._base + rel)
        else:
            self._last = TimestampOffset(NO_TIMESTAMP, self._base)

    def is_full(self) -> bool:
        """True when at most one slot is left: that one is reserved for ``maybe_append(...,
        skip_full_check=True)`` at roll/close (Kafka's ``TimeIndex.isFull``)."""
        return self._n >= self._max_entries - 1

    @property
    def last_entry(self) -> TimestampOffset:
        """The last entry, or ``(-1, base_offset)`` when empty."""
        return self._last

    @property
    def last_offset(self) -> int:
        return self._last.offset

    def lookup(self, timestamp: int) -> TimestampOffset:
        """The entry with the largest timestamp ≤ ``timestamp``; ``(-1, base_offset)`` when there is none."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.time_lookup_entry(pin, self._n, timestamp)
        if hit is None:
            return _new_to(TimestampOffset, (NO_TIMESTAMP, self._base))
        return _new_to(TimestampOffset, (hit[0], self._base + hit[1]))

    def lookup_offset(self, timestamp: int) -> int:
        """``lookup(timestamp).offset`` without building the tuple (the point operations' hint)."""
        pin = self._pin
        if pin is None:
            pin = self._live()
        hit = _k.time_lookup_entry(pin, self._n, timestamp)
        return self._base if hit is None else self._base + int(hit[1])

    def lookup_many(self, timestamps: Any) -> tuple[I64Array, I64Array]:
        """``lookup`` for every element of an integer array: ``(timestamps, offsets)`` int64 arrays."""
        pin = self._live()
        slots = _k.time_lookup_many(pin, self._n, _int64_targets(timestamps, "timestamps"))
        tss: I64Array
        offs: I64Array
        tss, offs = _k.time_resolve(pin, self._n, slots, self._base)
        return tss, offs

    def lookup_slot(self, timestamp: int) -> int:
        """Slot of the entry ``lookup`` returns, -1 when it returns ``(-1, base_offset)``."""
        s: int = _k.time_lookup(self._live(), self._n, timestamp)
        return s

    def entry(self, n: int) -> TimestampOffset:
        """The ``n``-th entry (``InvalidOffsetError`` unless 0 ≤ n < valid_entries)."""
        pin = self._live()
        slot = _as_int(n, "slot")
        if not 0 <= slot < self._n:
            raise InvalidOffsetError(
                f"attempt to fetch entry {slot} from {self._KIND} {self._path}, which has {self._n} entries")
        ts, rel = _k.time_entry(pin, self._n, slot)
        return TimestampOffset(ts, self._base + rel)

    def to_numpy(self) -> tuple[I64Array, I64Array]:
        """``(timestamps, offsets)`` of the entries in use, as int64 arrays (copies)."""
        tss: I64Array
        offs: I64Array
        tss, offs = _k.time_entries(self._live(), self._n, self._base)
        return tss, offs

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> bool:
        """Append ``(timestamp, offset)`` if ``timestamp`` is larger than the last entry's; returns whether
        it did.

        Raises (in Kafka's order) ``IndexFullError`` when ``is_full()`` and not ``skip_full_check`` (the
        roll/close path skips it to use the reserved slot); ``InvalidOffsetError`` when ``offset`` is below the
        last entry's offset, when ``timestamp`` is below the last entry's timestamp (Kafka:
        ``IllegalStateException``), or when the offset does not fit the index; ``InvalidTimestampError`` for
        a timestamp outside int64; ``IndexFullError`` when even the reserved slot is used. An equal
        timestamp is ignored, as is any timestamp ≤ -1 on an empty index (v0 data: no time index).
        """
        mm = self._writer()
        ts = _as_int(timestamp, "timestamp")
        off = _as_int(offset, "offset")
        n = self._n
        last = self._last
        if not skip_full_check and n >= self._max_entries - 1:
            raise IndexFullError(
                f"attempt to append to a full {self._KIND} {self._path} (size = {n}, max = {self._max_entries})")
        if n and off < last.offset:
            raise InvalidOffsetError(
                f"attempt to append an offset ({off}) to slot {n} no larger than the last offset appended "
                f"({last.offset}) to {self._path}")
        if n and ts < last.timestamp:
            raise InvalidOffsetError(
                f"attempt to append a timestamp ({ts}) to slot {n} no larger than the last timestamp appended "
                f"({last.timestamp}) to {self._path}")
        if ts <= last.timestamp:
            return False
        if ts > INT64_MAX:
            raise InvalidTimestampError(f"timestamp {ts} does not fit int64 ({self._path})")
        rel = self.relative_offset(off)
        if n >= self._max_entries:
            raise IndexFullError(
                f"no slot left in {self._KIND} {self._path} (size = {n}, max = {self._max_entries})")
        assert mm is not None
        self._materialize((n + 1) * 12)
        self._PACK(mm, n * 12, ts, rel)
        self._n = n + 1
        self._last = TimestampOffset(ts, off)
        return True

    def append_many(self, timestamps: Any, offsets: Any, skip_full_check: bool = False) -> int:
        """``maybe_append`` for each ``(timestamps[j], offsets[j])`` in turn (integer arrays), all or nothing:
        the same rules and errors, checked for every entry before any is written. Returns how many entries
        were appended (entries whose timestamp does not grow are ignored)."""
        mm = self._writer()
        tss = _int64_targets(timestamps, "timestamps")
        offs = _int64_targets(offsets, "offsets")
        if len(tss) != len(offs):
            raise InvalidOffsetError(f"{len(tss)} timestamps but {len(offs)} offsets")
        n = self._n
        last = self._last
        if mm is not None:
            self._materialize(min(n + len(tss), self._max_entries) * 12)
        status, j, added = _k.time_store_many(
            mm if mm is not None else _EMPTY, n, self._max_entries, self._base, tss, offs, last.timestamp,
            last.offset, skip_full_check)
        if status:
            t, o = int(tss[j]), int(offs[j])
            if status == 1:
                raise IndexFullError(
                    f"attempt to append to a full {self._KIND} {self._path} (entry {j} of the batch, "
                    f"max = {self._max_entries})")
            if status == 4:
                self.relative_offset(o)
            what = "an offset" if status == 2 else "a timestamp"
            raise InvalidOffsetError(
                f"attempt to append {what} ({t}, {o}) (entry {j} of the batch) going back past an earlier "
                f"entry in {self._path} (last entry before the batch: {tuple(last)})")
        if added:
            self._n = n + added
            self._reload_last()
        return int(added)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is ≥ ``offset`` (no effect past the last entry).

        Where several entries share an offset all of them go (Kafka's search may keep some of them).
        """
        self._writer()
        keep: int = _k.time_count_below_offset(self._pin, self._n, operator.index(offset) - self._base)
        self._truncate_entries(keep)

    def _kafka_checks(self) -> None:
        n = self._n + self._untrusted
        if not n:
            return
        first_ts, _ = _k.time_entry(self._pin, n, 0)
        last_ts, rel = _k.time_entry(self._pin, n, n - 1)
        if last_ts < first_ts:
            raise CorruptIndexError(
                f"corrupt time index found, time index file ({self._path}) has non-zero size but the last "
                f"timestamp is {last_ts} which is less than the first timestamp {first_ts}")
        if self._base + rel < self._base:
            raise CorruptIndexError(
                f"corrupt time index found, time index file ({self._path}) has non-zero size but the last "
                f"offset is {self._base + rel} which is less than the first offset {self._base}")
