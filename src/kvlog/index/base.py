"""What the offset and time indexes share (Kafka's ``AbstractIndex``): the file, its mapping or a reader's
private copy, sizing, the trusted prefix, the descriptor budget and the life cycle.

Subclasses supply the entry layout and the kernels that read it (``_scan``, ``_reload_last``,
``_kafka_checks``); see :mod:`kvlog.index` for the semantics both follow.
"""

from __future__ import annotations

import io
import mmap
import operator
import os
from typing import Any, Callable, ClassVar, Union

import numpy as np

from kvlog import _io
from kvlog._core import index as _k
from kvlog.errors import ConfigError, CorruptIndexError, InvalidOffsetError, KvlogError, SegmentReplacedError
from kvlog.index.entries import I64Array

DEFAULT_MAX_INDEX_SIZE = 10 * 1024 * 1024
WARM_BYTES: int = _k.WARM_BYTES
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

PathLike = Union[str, "os.PathLike[str]"]

_new_tuple: Any = tuple.__new__  # builds a NamedTuple without its Python-level __new__ (hot lookup path)


class IndexFullError(InvalidOffsetError):
    """An append found no free slot (Kafka: ``IllegalArgumentException`` "append to a full index")."""


class ReadOnlyIndexError(KvlogError, io.UnsupportedOperation):
    """A write (append, truncate, resize) through an index opened with ``writable=False``."""


class ClosedIndexError(KvlogError, ValueError):
    """Use of an index after ``close()`` / ``delete()``."""


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
