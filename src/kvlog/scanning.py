"""Lazy scans: partition logs read as a stream of Arrow record batches with Spark's Kafka-source columns.

``kvlog.scan(root, topics=...)`` returns a ``pyarrow.RecordBatchReader``; :class:`Scan` is the same scan as an
object that can be read more than once and exports the Arrow PyCapsule stream protocol
(``__arrow_c_stream__``), so pyarrow, Polars, DuckDB and anything else that speaks it can read kvlog without
a copy through pandas or a whole table in memory. ``kvlog.polars`` and ``kvlog.duckdb`` build on it.

This module is also where reads are planned and decoded for every engine (the Spark sources too), so that a
predicate means the same everywhere:

* **partition**: a log that no predicate can select is never opened;
* **offset**: ``[start, end)`` is found through the offset index (``Log.ranges``): the bytes before the batch
  holding ``start`` and after the one holding ``end - 1`` are never read;
* **timestamp**: a lower bound becomes a start offset through the time index (``Log.offset_for_timestamp``:
  every record before it is older), and inside the range a batch whose header's max timestamp is below the
  bound is skipped without being decompressed or decoded; an upper bound filters decoded rows only (Kafka's
  timestamps need not rise with offsets, so no index bounds them from above);
* **read_committed**: the last stable offset ends the range, and aborted transactions' batches and control
  batches are skipped by their headers (the transaction indexes say which).

Rows outside the bounds are then dropped exactly, so a scan yields only rows that satisfy them (the predicate
tree, its bounds and its evaluation are :mod:`kvlog.scan_predicates`). Memory is
bounded by the read window (``window_bytes``, one reused buffer per scan), the decoder's output for one window,
and ``batch_size`` rows per batch handed on; nothing is held across batches.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Union, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kvlog import _files, storage
from kvlog._walk import BatchWalk
from kvlog.compression import DEFAULT_MAX_DECOMPRESSED_BYTES
from kvlog.errors import ConfigError, CorruptRecordError, UnknownTopicOrPartitionError
from kvlog.records import _chunk_to_arrow, _decode, record_schema
from kvlog.records.arrow import _binary, _headers_array
from kvlog.scan_predicates import And as And, Bounds as Bounds, Cmp as Cmp, Const as Const, In as In, Not as Not
from kvlog.scan_predicates import Or as Or, Predicate as Predicate, timestamp_ns as timestamp_ns
from kvlog.scan_predicates import columns_of, evaluate, ms_bound, partition_excluded

if TYPE_CHECKING:
    from kvlog.cluster import Cluster
    from kvlog.log import Log
    from kvlog.schemas.formats import FormatLike
    from kvlog.schemas.typed_columns import TypedColumns
    from kvlog.manager import LogManager
    from kvlog.tiered.base import RemoteStorage
    from kvlog.tiered.view import RemoteLogMetadataSource

__all__ = [
    "COLUMNS",
    "Bounds",
    "Scan",
    "ScanStats",
    "kafka_schema",
    "scan",
]

#: the columns of a scan, named, typed and ordered as Spark's Kafka source has them
COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers")
#: the columns a predicate can be pushed on (every one is never null)
PUSHABLE = ("topic", "partition", "offset", "timestamp", "timestampType")

DEFAULT_BATCH_SIZE = 65_536


def default_threads() -> int:
    """Threads a scan decodes partitions on by default: one per CPU this process may use (at most 8)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


DEFAULT_WINDOW_BYTES = 4 << 20


# ------------------------------------------------------------------------------------------- schema
def spark_headers_type() -> pa.DataType:
    """The headers column as Spark's ``to_arrow_schema`` writes it (list item named ``element``)."""
    return pa.list_(pa.field("element", record_schema(True).field("headers").type.value_type))


def kafka_schema(include_headers: bool = True) -> pa.Schema:
    """The Arrow schema of Spark's Kafka-source columns (what Spark's ``to_arrow_schema`` yields for them)."""
    fields = [
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        pa.field("timestampType", pa.int32()),
    ]
    if include_headers:
        fields.append(pa.field("headers", spark_headers_type()))
    return pa.schema(fields)


_FIELDS = {f.name: f for f in kafka_schema(True)}


def const_string(value: str, n: int) -> pa.Array:
    """``n`` copies of ``value`` as an Arrow string array (the topic column)."""
    raw = value.encode()
    offsets = np.arange(n + 1, dtype=np.int32) * len(raw)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(raw * n)])


def const_int32(value: int, n: int) -> pa.Array:
    return pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(np.full(n, value, dtype=np.int32))])


def to_spark_batch(table: pa.RecordBatch | pa.Table, topic: str, partition: int,
                   schema: pa.Schema) -> pa.RecordBatch:
    """Decoded records (``record_schema`` columns) plus topic/partition, in the order and types Spark checks."""
    if isinstance(table, pa.Table):
        table = table.combine_chunks().to_batches()[0] if table.num_rows else pa.RecordBatch.from_pylist(
            [], schema=table.schema)
    n = table.num_rows
    columns = [
        table.column(0), table.column(1), const_string(topic, n), const_int32(partition, n),
        table.column(2), table.column(3), table.column(4),
    ]
    if len(schema) == 8:
        headers = table.column(5)
        if headers.type != schema.field(7).type:
            headers = headers.cast(schema.field(7).type)
        columns.append(headers)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def check_columns(columns: Iterable[str] | None, typed: TypedColumns | None = None) -> tuple[str, ...]:
    """The columns asked for, checked (all of them, in Spark's order, then those the formats add, for None)."""
    extra = typed.extra_columns() if typed is not None else ()
    if columns is None:
        return COLUMNS + extra
    if isinstance(columns, str):
        columns = [columns]
    out = tuple(columns)
    bad = [c for c in out if c not in COLUMNS and not (typed is not None and typed.knows(c))]
    if bad or len(set(out)) != len(out):
        what = f"unknown column(s) {', '.join(map(repr, bad))}" if bad else f"a column named twice in {list(out)}"
        more = f", {', '.join(extra)}" if extra else ""
        fields = " (and value.<field>/key.<field> of a typed value or key)" if typed is not None else ""
        raise ConfigError(f"{what}: a scan has the columns {', '.join(COLUMNS)}{more}{fields}")
    return out


# ----------------------------------------------------------------------------------------- stats
@dataclass
class ScanStats:
    """What a scan did, added up over every read it made (pass one to ``scan(..., stats=)`` to see it).

    ``partitions``: logs opened and read; ``bytes_read``: segment bytes read (a window re-read to hold a
    batch larger than it counts again); ``batches_skipped``: record batches inside a read range passed over by
    their headers (a timestamp below the bound, aborted or control batches); ``bytes_decoded`` and
    ``records_decoded``: what the decoder was handed and produced; ``rows``: rows yielded; ``keys_typed``,
    ``values_typed``, ``key_errors``, ``value_errors``: keys and values a format decoded, and those that
    failed it (``errors="null"``)."""

    partitions: int = 0
    bytes_read: int = 0
    batches_skipped: int = 0
    bytes_decoded: int = 0
    records_decoded: int = 0
    rows: int = 0
    first_decoded_offset: int | None = None  # the lowest offset the decoder produced
    keys_typed: int = 0      # keys decoded by a key format (nulls not counted)
    values_typed: int = 0    # values decoded by a value format
    key_errors: int = 0      # keys that failed their format (errors="null": null, with a reason)
    value_errors: int = 0

    _COUNTS = ("partitions", "bytes_read", "batches_skipped", "bytes_decoded", "records_decoded", "rows",
               "keys_typed", "values_typed", "key_errors", "value_errors")

    def add(self, other: ScanStats) -> None:
        """Add ``other``'s counts to these."""
        for name in self._COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.first_decoded_offset is not None:
            self._decoded(np.array([other.first_decoded_offset]))

    def add_typed(self, part: str, decoded: int, failed: int) -> None:
        """Count a key or value column a format decoded (``failed`` of its payloads did not decode)."""
        setattr(self, f"{part}s_typed", getattr(self, f"{part}s_typed") + decoded - failed)
        setattr(self, f"{part}_errors", getattr(self, f"{part}_errors") + failed)

    def _decoded(self, offsets: np.ndarray) -> None:
        if len(offsets):
            low = int(offsets[0])
            if self.first_decoded_offset is None or low < self.first_decoded_offset:
                self.first_decoded_offset = low


# ---------------------------------------------------------------------------------------- decoding
def decode_range(log: Log, start: int, end: int, window: int, include_headers: bool, *,
                 include_values: bool = True, check_crc: bool = True, read_committed: bool = False,
                 ts_lo: int | None = None, ts_hi: int | None = None,
                 stats: ScanStats | None = None) -> Iterator[pa.RecordBatch]:
    """The records with ``start ≤ offset < end`` (and ``ts_lo ≤ timestamp < ts_hi``, in ms) as record batches of
    ``record_schema(include_headers)``: the one decode path of the scans and the Spark sources.

    The range's bytes are found through the offset index and read through one reused buffer of about
    ``window`` bytes (grown to hold a larger batch whole; a torn batch raises, as a range planned to end on a
    batch must not tear). The decoder copies keys and values into its own column buffers, so the read buffer
    is filled again at once: no fresh memory (and no page faults) per window, each byte read once.

    With ``read_committed`` (the caller has ended the range at the last stable offset) or ``ts_lo``, each
    window's batch headers are read first and only the batches that can hold wanted records are decoded.
    ``include_values=False`` leaves the value column empty (the decoder skips copying values)."""
    from kvlog.records.batches import _scan_headers
    from kvlog.txn_index import aborted_batch_mask

    if read_committed:
        end = min(end, log.last_stable_offset)  # (a writer may have moved it since the range was planned)
    if start >= end:
        return
    aborted = log.aborted_array(start, end) if read_committed else None
    by_headers = read_committed or ts_lo is not None
    buf = bytearray(window)
    for seg, lo, hi in log.ranges(start, end):
        log.read_ahead(log.segment_index_for(seg.base_offset), seg.base_offset, end)  # an object store fetches ahead
        walk = BatchWalk(seg.fileno, lo, hi, window, buffer=buf, strict=True, path=seg.log_path)
        for pos, data in walk:
            view = cast(memoryview, data)
            if stats is not None:
                stats.bytes_read += len(view)
            try:
                ranges = None
                if by_headers:
                    headers = _scan_headers(view)
                    if not len(headers):
                        continue  # no whole batch in the window: the walk reads a larger one
                    walk.advance(int(headers["position"][-1]) + int(headers["size"][-1]))
                    keep = np.ones(len(headers), dtype=bool)
                    if read_committed:
                        magic = headers["magic"]
                        keep &= ~((magic == 2) & ((headers["attributes"].astype(np.int64) & 0x20) != 0))
                        if aborted is not None and len(aborted):
                            keep &= ~aborted_batch_mask(headers["producer_id"], headers["base_offset"],
                                                        headers["attributes"], aborted, magic)
                    if ts_lo is not None:
                        keep &= headers["max_timestamp"] >= ts_lo
                    if stats is not None:
                        stats.batches_skipped += int(len(keep) - keep.sum())
                    if not keep.any():
                        continue
                    ranges = _runs(headers, keep)
                    res = _decode(view, 0, len(view), include_headers=include_headers, check_crc=check_crc,
                                  include_control=False, limit=DEFAULT_MAX_DECOMPRESSED_BYTES,
                                  include_values=include_values, ranges=ranges)
                else:
                    res = _decode(view, 0, len(view), include_headers=include_headers, check_crc=check_crc,
                                  include_control=False, limit=DEFAULT_MAX_DECOMPRESSED_BYTES,
                                  include_values=include_values)
                    walk.advance(res.stop)
            except CorruptRecordError as exc:
                raise exc.with_context(file=seg.log_path, base_position=pos) from None
            if stats is not None:
                stats.bytes_decoded += sum(b - a for a, b in ranges) if ranges is not None else res.stop
            for c in res.chunks:
                n = c["n"]
                if not n:
                    continue
                offsets = np.frombuffer(c["offsets"], dtype=np.int64, count=n)
                if stats is not None:
                    stats.records_decoded += n
                    stats._decoded(offsets)
                batch = _chunk_to_arrow(c, include_headers) if include_values else _valueless(c, include_headers)
                mask = None
                if offsets[0] < start or offsets[-1] >= end:
                    mask = (offsets >= start) & (offsets < end)
                if ts_lo is not None or ts_hi is not None:
                    stamps = np.frombuffer(c["timestamps"], dtype=np.int64, count=n)
                    in_time = np.ones(n, dtype=bool) if ts_lo is None else stamps >= ts_lo
                    if ts_hi is not None:
                        in_time &= stamps < ts_hi
                    mask = in_time if mask is None else mask & in_time
                if mask is not None and not mask.all():
                    if not mask.any():
                        continue
                    batch = batch.filter(pa.array(mask))
                yield batch
        buf = walk.buffer or buf


def _runs(headers: np.ndarray, keep: np.ndarray) -> list[tuple[int, int]]:
    """Byte ranges of the runs of kept batches."""
    starts = headers["position"].astype(np.int64)
    ends = starts + headers["size"]
    edges = np.diff(np.concatenate([[0], keep.view(np.int8), [0]]))
    run_start = np.nonzero(edges == 1)[0]
    run_end = np.nonzero(edges == -1)[0] - 1
    return list(zip(starts[run_start].tolist(), ends[run_end].tolist()))


_EMPTY = pa.py_buffer(b"")


def _valueless(c: dict[str, Any], include_headers: bool) -> pa.RecordBatch:
    """A decoded chunk without its values (``include_values=False``): the value column is all empty."""
    n = c["n"]
    columns = [
        _binary(n, c["key_valid"], c["key_offsets"], c["key_data"]),
        pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(np.zeros(n + 1, np.int32)), _EMPTY]),
        pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(c["offsets"])]),
        pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(np.frombuffer(c["timestamps"], np.int64, n) * 1000)])
        .view(pa.timestamp("us", tz="UTC")),
        pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(c["ts_types"])]),
    ]
    if include_headers:
        columns.append(_headers_array(c))
    return pa.RecordBatch.from_arrays(columns, schema=record_schema(include_headers))


# ---------------------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class PartitionRange:
    """The part of one partition a scan reads: offsets ``[start, end)`` (``end`` at most the log end offset,
    or the last stable offset for read_committed)."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return max(self.end - self.start, 0)


def narrow(log: Log, start: int, end: int, ts_lo: int | None) -> int:
    """The start offset of ``[start, end)`` with a timestamp lower bound (ms) applied through the time index:
    every record before ``log.offset_for_timestamp(ts_lo)`` is older than it (``end`` when none is as new)."""
    if ts_lo is None or ts_lo < 0 or start >= end:  # (negative targets are ListOffsets' special values)
        return start
    found = log.offset_for_timestamp(ts_lo)
    return end if found is None else max(start, min(found.offset, end))


def plan_range(log: Log, topic: str, partition: int, bounds: Bounds, read_committed: bool,
               end_cap: int | None = None) -> PartitionRange:
    """The offsets of ``log`` a scan with ``bounds`` reads, found through its indexes (nothing decoded);
    ``end_cap``: where a replica of a cluster stops (what the cluster committed, :mod:`kvlog.cluster`)."""
    end = log.last_stable_offset if read_committed else log.log_end_offset
    if end_cap is not None:
        end = min(end, end_cap)
    start = log.log_start_offset
    if bounds.offset_lo is not None:
        start = max(start, bounds.offset_lo)
    if bounds.offset_hi is not None:
        end = min(end, bounds.offset_hi)
    start = narrow(log, start, end, bounds.ts_lo)
    return PartitionRange(topic, partition, start, max(start, end))


Source = Union[str, "os.PathLike[str]", "Log", "LogManager", "Cluster", Sequence[Union[str, "os.PathLike[str]"]]]


class OpenedSource:
    """The partition logs of a scan's source (see :func:`scan`), opened as needed and closed with it: exactly one
    of ``cluster``, ``manager`` and ``log`` is set. kvlog.iceberg's export opens its sources through it too."""

    def __init__(self, source: Source, *, backup_run: int | None, remote_storage: RemoteStorage | None,
                 remote_log_metadata: RemoteLogMetadataSource | None) -> None:
        from kvlog.log import Log
        from kvlog.manager import LogManager

        from kvlog.cluster import Cluster

        self.log: Log | None = None
        self.manager: LogManager | None = None
        self.cluster: Cluster | None = None
        self._owned = False
        self._open_logs: list[Log] = []
        if isinstance(source, Cluster):
            self.cluster = source
        elif isinstance(source, (list, tuple)):
            if backup_run is not None or remote_storage is not None or remote_log_metadata is not None:
                raise ConfigError("several data directories are read as one cluster: backup_run and "
                                  "remote_storage apply to one directory")
            self._owned = True
            self.cluster = Cluster(source)
        elif isinstance(source, Log):
            self.log = source
        elif isinstance(source, LogManager):
            self.manager = source
        elif isinstance(source, (str, os.PathLike)):
            path = storage.normalize(source)
            self._owned = True
            if _files.is_partition_dir(path):
                self.log = Log.open(source, read_only=True, backup_run=backup_run, remote_storage=remote_storage,
                                    remote_log_metadata=remote_log_metadata)
            else:
                self.manager = LogManager(source, read_only=True, backup_run=backup_run,
                                          remote_storage=remote_storage, remote_log_metadata=remote_log_metadata)
        else:
            raise TypeError(f"a scan reads a data directory, a partition directory (a path or a URI), several "
                            f"brokers' data directories (a list), a LogManager, a Cluster or a Log, not "
                            f"{type(source).__name__}")

    def partitions(self, topics: tuple[str, ...] | None) -> list[tuple[str, int]]:
        if self.cluster is not None:
            names = ([t for t in self.cluster.topics() if not t.startswith("__")] if topics is None
                     else list(dict.fromkeys(topics)))
            return [(t, p) for t in names for p in self.cluster.partitions(t)]
        if self.log is not None:
            if topics is not None and self.log.topic not in topics:
                raise UnknownTopicOrPartitionError(f"no topic {topics[0]!r} in {self.log.dir} (it holds "
                                                   f"{self.log.topic}-{self.log.partition})", topic=topics[0])
            return [(self.log.topic, self.log.partition)]
        assert self.manager is not None
        if topics is None:
            names = [t for t in self.manager.topics() if not t.startswith("__")]
        else:
            names = list(dict.fromkeys(topics))
        return [(t, p) for t in names for p in self.manager.partitions(t)]

    def open(self, topic: str, partition: int) -> Log:
        if self.cluster is not None:
            return self.cluster.log(topic, partition)
        log = self.log if self.log is not None else cast("LogManager", self.manager).log(topic, partition)
        if not self._owned and log.read_only:
            log.refresh()  # a log the caller keeps open: what its writer appended since is read too
        return log

    def end_cap(self, topic: str, partition: int) -> int | None:
        """Where a cluster's partition stops (None: a single directory's log is read to its end)."""
        return None if self.cluster is None else self.cluster.end_offset(topic, partition)

    def close(self) -> None:
        if not self._owned:
            return
        if self.cluster is not None:
            self.cluster.close()
        if self.log is not None:
            self.log.close()
        if self.manager is not None:
            self.manager.close()


# -------------------------------------------------------------------------------------------- scans
@dataclass(frozen=True)
class _Options:
    topics: tuple[str, ...] | None
    columns: tuple[str, ...]
    bounds: Bounds
    predicate: Predicate | None
    read_committed: bool
    batch_size: int
    window_bytes: int
    check_crc: bool
    limit: int | None
    threads: int | None
    backup_run: int | None
    remote_storage: Any
    remote_log_metadata: Any
    typed: TypedColumns | None = None


class Scan:
    """A lazy scan of partition logs: nothing is opened until it is read, and each read reads afresh.

    ``to_reader()`` gives a ``pyarrow.RecordBatchReader``; the scan itself exports ``__arrow_c_stream__``
    (and ``__arrow_c_schema__``), so ``pyarrow.table(scan)``, ``polars.DataFrame(scan)`` or DuckDB read it.
    Build one with :func:`scan`'s arguments (``Scan(root, topics=...)``); :meth:`where` and :meth:`select`
    narrow it further (the Polars and DuckDB adapters push their engines' predicates and projections this way).
    """

    def __init__(self, source: Source, topics: str | Sequence[str] | None = None, *,
                 columns: Sequence[str] | None = None, partitions: int | Iterable[int] | None = None,
                 start_offset: int | None = None, end_offset: int | None = None,
                 start_timestamp: Any = None, end_timestamp: Any = None, read_committed: bool = False,
                 batch_size: int = DEFAULT_BATCH_SIZE, window_bytes: int = DEFAULT_WINDOW_BYTES,
                 check_crc: bool = True, limit: int | None = None, threads: int | None = None,
                 backup_run: int | None = None, remote_storage: RemoteStorage | None = None,
                 remote_log_metadata: RemoteLogMetadataSource | None = None,
                 stats: ScanStats | None = None, key_format: FormatLike = None, value_format: FormatLike = None,
                 key_schema: Any = None, value_schema: Any = None, key_subject: str | None = None,
                 value_subject: str | None = None, key_message: str | None = None,
                 value_message: str | None = None, schemas: Any = None, errors: str = "raise") -> None:
        if isinstance(topics, str):
            topics = (topics,)
        elif topics is not None:
            topics = tuple(topics)
            if not all(isinstance(t, str) for t in topics):
                raise ConfigError(f"topics must be topic names, got {topics!r:.200}")
        bounds = Bounds(topics=frozenset(topics) if topics is not None else None)
        if partitions is not None:
            parts = frozenset([partitions] if isinstance(partitions, int) else partitions)
            if not all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
                raise ConfigError(f"partitions must be partition numbers, got {partitions!r:.200}")
            bounds = replace(bounds, partitions=parts)
        for name, value in (("start_offset", start_offset), ("end_offset", end_offset)):
            if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool)):
                raise ConfigError(f"{name} must be an offset (an int), got {value!r}")
        bounds = replace(bounds, offset_lo=None if start_offset is None else int(start_offset),
                         offset_hi=None if end_offset is None else int(end_offset))
        if start_timestamp is not None:
            bounds = replace(bounds, ts_lo=ms_bound(">=", timestamp_ns(start_timestamp, "start_timestamp"))[0])
        if end_timestamp is not None:
            bounds = replace(bounds, ts_hi=ms_bound("<", timestamp_ns(end_timestamp, "end_timestamp"))[1])
        for name, value in (("batch_size", batch_size), ("window_bytes", window_bytes)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
            raise ConfigError(f"limit must be a non-negative integer, got {limit!r}")
        if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
            raise ConfigError(f"threads must be a positive integer, got {threads!r}")
        self._source = source
        typed = self._typed_columns(key_format, value_format, key_schema, value_schema, key_subject, value_subject,
                                    key_message, value_message, schemas, errors, backup_run, remote_storage,
                                    remote_log_metadata)
        self._opts = _Options(topics, check_columns(columns, typed), bounds, None, bool(read_committed),
                              batch_size, window_bytes, bool(check_crc), limit, threads, backup_run,
                              remote_storage, remote_log_metadata, typed)
        self.stats = stats if stats is not None else ScanStats()

    def _typed_columns(self, key_format: FormatLike, value_format: FormatLike, key_schema: Any, value_schema: Any,
                       key_subject: str | None, value_subject: str | None, key_message: str | None,
                       value_message: str | None, schemas: Any, errors: str, backup_run: int | None,
                       remote_storage: Any, remote_log_metadata: Any) -> TypedColumns | None:
        """The scan's formats (None when keys and values stay bytes)."""
        from kvlog.schemas.formats import format_of
        from kvlog.schemas.typed_columns import TypedColumns

        key = format_of(key_format, schema=key_schema, subject=key_subject, message=key_message, what="key_format")
        value = format_of(value_format, schema=value_schema, subject=value_subject, message=value_message)
        if not key.typed and not value.typed:
            if schemas is not None:
                raise ConfigError("schemas= is for typed keys or values: give key_format= or value_format=")
            return None
        source, scan_options = self._source, {"backup_run": backup_run, "remote_storage": remote_storage,
                                              "remote_log_metadata": remote_log_metadata}

        def own_source() -> Any:
            from kvlog.schemas.schemas_topic import SchemasTopic

            return SchemasTopic.read(source, **scan_options)

        def sample(topic: str, part: str, n: int) -> list[bytes | None]:
            return sample_payloads(source, topic, part, n, scan_options)

        return TypedColumns(key, value, schemas=schemas, errors=errors, own_source=own_source, sample=sample)

    def _with(self, **changes: Any) -> Scan:
        out = object.__new__(Scan)
        out._source = self._source
        out._opts = replace(self._opts, **changes)
        out.stats = self.stats
        return out

    # ------------------------------------------------------------------------------------- narrowing
    def select(self, columns: Sequence[str]) -> Scan:
        """The same scan with only ``columns``, in that order."""
        return self._with(columns=check_columns(columns, self._opts.typed))

    def where(self, predicate: Predicate | None = None, bounds: Bounds | None = None) -> Scan:
        """The same scan with only the rows satisfying ``predicate`` (a tree of :class:`Cmp`, :class:`In`,
        :class:`And`, :class:`Or`, :class:`Not` over the columns topic, partition, offset, timestamp and
        timestampType) and within ``bounds``. What the indexes can use is pushed into planning and decoding
        (:meth:`Bounds.of`); the predicate is then evaluated exactly on the decoded rows."""
        opts = self._opts
        new_bounds = opts.bounds
        if bounds is not None:
            new_bounds = new_bounds.intersect(bounds)
        new_pred = opts.predicate
        if predicate is not None:
            new_bounds = new_bounds.intersect(Bounds.of(predicate))
            new_pred = predicate if new_pred is None else And((new_pred, predicate))
        return self._with(bounds=new_bounds, predicate=new_pred)

    def flatten(self) -> Scan:
        """The same scan with each typed key or value struct replaced by its top-level fields, as columns of
        their own (``value.<field>``): a projection of some of them decodes only those (what the Polars and
        DuckDB adapters' ``flatten=True`` reads)."""
        o = self._opts
        if o.typed is None:
            return self
        out: list[str] = []
        for c in o.columns:
            t = self.schema.field(c).type if c in ("key", "value") and o.typed.formats[c].typed else None
            if t is not None and pa.types.is_struct(t):
                out += [f"{c}.{t.field(i).name}" for i in range(t.num_fields)]
            else:
                out.append(c)
        return self._with(columns=tuple(out))

    def batched(self, batch_size: int) -> Scan:
        """The same scan yielding batches of at most ``batch_size`` rows."""
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")
        return self._with(batch_size=batch_size)

    def head(self, n: int) -> Scan:
        """The same scan stopping after ``n`` rows."""
        limit = n if self._opts.limit is None else min(n, self._opts.limit)
        return self._with(limit=limit)

    # ----------------------------------------------------------------------------------------- shape
    @property
    def columns(self) -> tuple[str, ...]:
        return self._opts.columns

    @property
    def bounds(self) -> Bounds:
        """What is pushed into planning and decoding."""
        return self._opts.bounds

    @functools.cached_property
    def schema(self) -> pa.Schema:
        """The schema of the batches, before any is read (typed keys and values: their plans are made, the
        schemas they need read, once per scan)."""
        o = self._opts
        if o.typed is None:
            return pa.schema([_FIELDS[c] for c in o.columns])
        typed_names = [c for c in o.columns if c not in _FIELDS or (c in ("key", "value") and o.typed.needed(c, o.columns))]
        topics: list[str] = []
        if typed_names:
            opened = self._open()
            try:
                topics = list(dict.fromkeys(t for t, _ in opened.partitions(o.topics)))
            finally:
                opened.close()
        return pa.schema([o.typed.field(c, topics, o.columns) if c in typed_names else _FIELDS[c]
                          for c in o.columns])

    def __arrow_c_schema__(self) -> object:
        return self.schema.__arrow_c_schema__()

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream protocol: a fresh read of the scan."""
        return self.to_reader().__arrow_c_stream__(requested_schema)

    def __repr__(self) -> str:
        o = self._opts
        if isinstance(self._source, (list, tuple)) or hasattr(self._source, "directories"):
            roots = ([d.root for d in self._source.directories] if hasattr(self._source, "directories")
                     else [os.fspath(r) for r in self._source])
            shown: Any = [storage.canonical(r) if storage.is_remote(r) else r for r in roots]
        else:
            src = getattr(self._source, "dir", None) or getattr(self._source, "root", None) or os.fspath(
                cast(Any, self._source))
            shown = storage.canonical(src) if storage.is_remote(src) else src
        return (f"kvlog.Scan({shown!r}, topics={list(o.topics) if o.topics else 'all'}, columns={list(o.columns)}, "
                f"pushed: {o.bounds.describe()}{', read_committed' if o.read_committed else ''})")

    # ------------------------------------------------------------------------------------------- plan
    def plan(self) -> list[PartitionRange]:
        """Each partition's offset range this scan would read, found through the indexes (nothing decoded)."""
        opened = self._open()
        try:
            out = []
            for topic, partition in opened.partitions(self._opts.topics):
                if self._opts.bounds.admits_partition(topic, partition):
                    out.append(plan_range(opened.open(topic, partition), topic, partition, self._opts.bounds,
                                          self._opts.read_committed, opened.end_cap(topic, partition)))
            return out
        finally:
            opened.close()

    def _open(self) -> OpenedSource:
        o = self._opts
        return OpenedSource(self._source, backup_run=o.backup_run, remote_storage=o.remote_storage,
                       remote_log_metadata=o.remote_log_metadata)

    # ------------------------------------------------------------------------------------------- read
    def to_reader(self) -> pa.RecordBatchReader:
        """A ``pyarrow.RecordBatchReader`` over a fresh read (the logs are opened when the first batch is
        pulled and closed when the last one was, or when the reader is closed)."""
        return pa.RecordBatchReader.from_batches(self.schema, self.batches())

    def to_table(self) -> pa.Table:
        return self.to_reader().read_all()

    def batches(self) -> Iterator[pa.RecordBatch]:
        """The scan's record batches, at most ``batch_size`` rows each: each partition's in offset order; with
        more than one thread, the partitions' batches interleave as their threads produce them."""
        o = self._opts
        if o.bounds.empty or o.limit == 0:
            return
        left = o.limit
        opened = self._open()
        try:
            work = [tp for tp in opened.partitions(o.topics) if o.bounds.admits_partition(*tp)
                    and (o.predicate is None or not partition_excluded(o.predicate, *tp))]
            threads = min(len(work), o.threads if o.threads is not None else default_threads())
            if left is not None:
                threads = 1  # (a row limit: no partition is decoded ahead of need)
            produced = self._parallel(opened, work, threads) if threads > 1 else self._serial(opened, work)
            try:
                for batch in produced:
                    if left is not None:
                        if batch.num_rows >= left:
                            yield batch.slice(0, left)
                            return
                        left -= batch.num_rows
                    yield batch
            finally:
                produced.close()
        finally:
            opened.close()

    def _serial(self, opened: OpenedSource, work: list[tuple[str, int]]) -> Generator[pa.RecordBatch, None, None]:
        o = self._opts
        for topic, partition in work:
            log = opened.open(topic, partition)
            r = plan_range(log, topic, partition, o.bounds, o.read_committed, opened.end_cap(topic, partition))
            self.stats.partitions += 1
            for batch in self._read(log, r, self.stats):
                self.stats.rows += batch.num_rows
                yield batch

    def _parallel(self, opened: OpenedSource, work: list[tuple[str, int]],
                  threads: int) -> Generator[pa.RecordBatch, None, None]:
        """Partitions decoded on ``threads`` threads (one partition at a time each: a ``Log`` is read by one
        thread), their batches handed over through a queue of a few batches (the memory bound)."""
        o = self._opts
        handed: queue.Queue[Any] = queue.Queue(maxsize=2 * threads)
        stop = threading.Event()
        lock = threading.Lock()
        todo = iter(work)
        done = object()

        def put(item: Any) -> bool:
            while not stop.is_set():
                try:
                    handed.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False

        def worker() -> None:
            stats = ScanStats()
            try:
                while not stop.is_set():
                    with lock:  # (a LogManager opens one log at a time)
                        tp = next(todo, None)
                        if tp is None:
                            break
                        log = opened.open(*tp)
                    r = plan_range(log, tp[0], tp[1], o.bounds, o.read_committed, opened.end_cap(*tp))
                    stats.partitions += 1
                    for batch in self._read(log, r, stats):
                        stats.rows += batch.num_rows
                        if not put(batch):
                            return
            except BaseException as exc:  # handed to the consumer, raised there
                put(exc)
            finally:
                with lock:
                    self.stats.add(stats)
                put(done)

        pool = [threading.Thread(target=worker, name=f"kvlog-scan-{i}", daemon=True) for i in range(threads)]
        for t in pool:
            t.start()
        try:
            finished = 0
            while finished < threads:
                item = handed.get()
                if item is done:
                    finished += 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
        finally:
            stop.set()
            for t in pool:
                t.join()

    def _read(self, log: Log, r: PartitionRange, stats: ScanStats) -> Iterator[pa.RecordBatch]:
        o = self._opts
        want = set(o.columns)
        pred_cols = columns_of(o.predicate) if o.predicate is not None else set()
        typed = o.typed.decoders(r.topic, o.columns) if o.typed is not None else None
        headers = "headers" in want or (typed is not None and typed.needs_headers)
        values = "value" in want or (typed is not None and "value" in typed.decoders)
        window = o.window_bytes if o.limit is None else min(o.window_bytes, 256 << 10)  # (a few rows: a small read)
        schema = self.schema
        for decoded in decode_range(log, r.start, r.end, window, headers, include_values=values,
                                    check_crc=o.check_crc, read_committed=o.read_committed, ts_lo=o.bounds.ts_lo,
                                    ts_hi=o.bounds.ts_hi, stats=stats):
            if o.predicate is not None and pred_cols:
                mask = evaluate(o.predicate, decoded, r.topic, r.partition)
                if mask is False:
                    continue
                if mask is not True:
                    m = mask
                    if not m.any():
                        continue
                    if not m.all():
                        decoded = decoded.filter(pa.array(m))
            n = decoded.num_rows
            converted = typed.apply(decoded, r.topic, r.partition, stats) if typed is not None else {}
            out = []
            for c in o.columns:
                if c in converted:
                    out.append(converted[c])
                elif c == "topic":
                    out.append(const_string(r.topic, n))
                elif c == "partition":
                    out.append(const_int32(r.partition, n))
                elif c == "headers":
                    h = decoded.column(5)
                    out.append(h.cast(_FIELDS["headers"].type) if h.type != _FIELDS["headers"].type else h)
                elif c in _RECORD_INDEX:
                    out.append(decoded.column(_RECORD_INDEX[c]))
                else:  # value.<field>, key.<field>
                    part, _, sub = c.partition(".")
                    out.append(pc.struct_field(converted[part], [sub]) if part in converted else
                               pa.nulls(n, schema.field(c).type))
            batch = pa.RecordBatch.from_arrays(out, schema=schema)
            if n <= o.batch_size:
                yield batch
            else:
                for i in range(0, n, o.batch_size):
                    yield batch.slice(i, o.batch_size)


_RECORD_INDEX = {"key": 0, "value": 1, "offset": 2, "timestamp": 3, "timestampType": 4, "headers": 5}


def scan(source: Source, topics: str | Sequence[str] | None = None, *, columns: Sequence[str] | None = None,
         partitions: int | Iterable[int] | None = None, start_offset: int | None = None,
         end_offset: int | None = None, start_timestamp: Any = None, end_timestamp: Any = None,
         read_committed: bool = False, batch_size: int = DEFAULT_BATCH_SIZE,
         window_bytes: int = DEFAULT_WINDOW_BYTES, check_crc: bool = True, limit: int | None = None,
         threads: int | None = None, backup_run: int | None = None, remote_storage: RemoteStorage | None = None,
         remote_log_metadata: RemoteLogMetadataSource | None = None,
         stats: ScanStats | None = None, key_format: FormatLike = None, value_format: FormatLike = None,
         key_schema: Any = None, value_schema: Any = None, key_subject: str | None = None,
         value_subject: str | None = None, key_message: str | None = None, value_message: str | None = None,
         schemas: Any = None, errors: str = "raise") -> pa.RecordBatchReader:
    """Partition logs as a ``pyarrow.RecordBatchReader`` of Spark's Kafka-source columns, read lazily.

    ``source``: a data directory (a path or a URI: local, an object store, a ``kvlog backup``, a tiered
    cluster's with ``remote_storage``), a partition directory, a ``LogManager`` or a ``Log``. ``topics``: a
    name or names (default: every topic but Kafka's internal ``__`` ones).

    ``columns``: of ``key, value, topic, partition, offset, timestamp, timestampType, headers`` (default all);
    headers and values not asked for are never decoded. ``partitions``, ``start_offset``/``end_offset``
    (``[start, end)`` in every partition) and ``start_timestamp``/``end_timestamp`` (``[start, end)``; epoch
    milliseconds or datetimes, naive ones UTC) are applied through the indexes before anything is decoded (see
    the module's notes). ``read_committed``: Kafka's isolation level of that name. ``batch_size`` rows at most
    per batch and ``window_bytes`` read at a time bound the memory a scan holds. ``limit``: stop after that
    many rows. ``threads``: partitions decoded at once (default: one per CPU, at most 8; with more than one, the
    partitions' batches interleave, each partition's in offset order; ``threads=1`` reads them one after the
    other, in partition order). ``backup_run``, ``remote_storage``, ``remote_log_metadata``: as for
    ``LogManager``. ``stats``: a :class:`ScanStats` to add what the scan read and decoded to.

    Typed keys and values (``docs/typed-topics.md``): ``key_format``/``value_format`` is ``"binary"`` (the
    default), ``"string"``, ``"registry"`` (a schema registry's wire format), ``"avro"``, ``"protobuf"`` or
    ``"json"`` (a bare payload; JSON without a schema has its types inferred), or a
    :class:`kvlog.schemas.Format`. ``value_schema``: the reader schema (text, a file, a registered schema;
    the registry format defaults to the latest version of ``value_subject``, itself defaulting to
    ``<topic>-value``); ``value_message``: a Protobuf message; ``key_*`` likewise. ``schemas``: where registered
    schemas come from (None: the source's own ``_schemas`` topic; another data directory or backup, a
    registry URL, a folder of schema files, a mapping ``{id: text}``, a
    :class:`kvlog.schemas.SchemaSource`). ``errors``: ``"raise"`` (a :class:`kvlog.DeserializationError`
    naming the record) or ``"null"`` (a null value and a ``valueError`` column saying why).
    """
    return Scan(source, topics, columns=columns, partitions=partitions, start_offset=start_offset,
                end_offset=end_offset, start_timestamp=start_timestamp, end_timestamp=end_timestamp,
                read_committed=read_committed, batch_size=batch_size, window_bytes=window_bytes,
                check_crc=check_crc, limit=limit, threads=threads, backup_run=backup_run,
                remote_storage=remote_storage, remote_log_metadata=remote_log_metadata, stats=stats,
                key_format=key_format, value_format=value_format, key_schema=key_schema, value_schema=value_schema,
                key_subject=key_subject, value_subject=value_subject, key_message=key_message,
                value_message=value_message, schemas=schemas, errors=errors).to_reader()


def sample_payloads(source: Source, topic: str, part: str, n: int, options: dict[str, Any]) -> list[bytes | None]:
    """The first payloads (``part``: ``"key"`` or ``"value"``) of each partition of ``topic``, about ``n`` in
    all, spread over the partitions (schemaless JSON infers its types from them)."""
    opened = OpenedSource(source, backup_run=options.get("backup_run"), remote_storage=options.get("remote_storage"),
                     remote_log_metadata=options.get("remote_log_metadata"))
    try:
        parts = [p for t, p in opened.partitions((topic,))]
    finally:
        opened.close()
    each = max(1, -(-n // max(len(parts), 1)))
    out: list[bytes | None] = []
    for p in parts:
        table = Scan(source, topic, columns=[part], partitions=p, limit=each, threads=1, **options).to_table()
        out += table.column(0).to_pylist()
    return out

