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

Split as Kafka's classes are: ``base`` (``AbstractIndex``: file, mapping, sizing, trust, life cycle),
``offset_index`` (``OffsetIndex``), ``time_index`` (``TimeIndex``) and ``entries`` (entry dtypes and plain
reads). Every name stays importable from ``kvlog.index``.
"""

from kvlog.index.base import (DEFAULT_MAX_INDEX_SIZE, WARM_BYTES, ClosedIndexError, IndexFullError,
                              ReadOnlyIndexError)
from kvlog.index.base import (INT32_MAX as INT32_MAX, INT32_MIN as INT32_MIN, INT64_MAX as INT64_MAX,
                              INT64_MIN as INT64_MIN, PathLike as PathLike, _AbstractIndex as _AbstractIndex)
from kvlog.index.entries import (OFFSET_ENTRY_DTYPE, TIME_ENTRY_DTYPE, kafka_index_end, read_offset_index,
                                 read_time_index)
from kvlog.index.entries import I64Array as I64Array
from kvlog.index.offset_index import OffsetIndex, OffsetPosition
from kvlog.index.time_index import NO_TIMESTAMP as NO_TIMESTAMP, TimeIndex, TimestampOffset

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

# The classes keep the module they were always documented (and pickled) under. (Not the index classes, which
# cannot be pickled: get_type_hints resolves their annotations in their own module.)
for _cls in (OffsetPosition, TimestampOffset, IndexFullError, ReadOnlyIndexError, ClosedIndexError):
    _cls.__module__ = __name__
del _cls
