"""Log: one partition's segments, with Kafka's append, read, roll, retention, truncation and recovery.

Offsets are logical and stored in the log; the offset index maps them to file positions sparsely.
Message timestamps (CreateTime from producers, LogAppendTime from the log) drive time-based rolling,
retention and search, never file modification times (those change when a replica copies a file).

Threads: a ``Log`` may be shared between threads. Every public method runs under the log's own
reentrant lock, so calls on one log take effect one at a time, each seeing what the ones before it did
(``records()`` takes it for each piece it reads); ``close()`` waits for a call in progress, and calls
after it raise. Work on different logs runs in parallel (the kernels release the GIL, and a
free-threaded CPython runs the Python around them in parallel too); so do read-only views of one
directory, one per reader thread, beside its writer. See docs/log.md, "Threads".

One writer per directory (an advisory lock, ``LogLockedError`` for a second); any number of
``read_only=True`` opens, which never write, never recover in place, and read only up to the last
complete batch they can see, so a Spark executor can read a log a writer is appending to. A reader
tells that torn tail from damage in data the directory says is durable (``kvlog.damage``): damage is
an error where a read reaches it, or a reported skip, never a shorter log.

This module holds the API and its orchestration (Kafka's ``UnifiedLog``); the work is in the package's
other modules: ``loader`` (open, recovery, a reader's refresh), ``append`` (validation, the roll rule,
the write), ``producers`` (producer state, transactions), ``reads`` (scans, damage), ``retention`` (which
segments may go) and ``segments`` (the ordered segment collection).
"""

from __future__ import annotations

import functools
import os
import random
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog import _files, _io, committed_offsets, storage
from kvlog.broker_files import read_leader_epochs
from kvlog._core import records as _k
from kvlog.config import LogConfig
from kvlog.damage import LogDamage, check_on_damage
from kvlog.errors import (
    ConfigError,
    DirectoryNotFoundError,
    InvalidOffsetError,
    InvalidRecordError,
    InvalidTimestampError,
    KvlogError,
    LogIOError,
    OffsetOutOfRangeError,
)
from kvlog.log import append as appending
from kvlog.log import loader, local, producers, reads, retention
from kvlog.log.history import History, open_history
from kvlog.log._common import (
    EARLIEST,
    LATEST,
    LONG_MAX,
    MAX_TIMESTAMP,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    AppendInfo,
    OffsetAndTimestamp,
    _AppendRules,
    _int_arg,
    _io_guard,
    _new_offset_and_timestamp,
    read_committed,
)
from kvlog.log.broker import PartitionFiles
from kvlog.log.segments import LogSegments
from kvlog.producer_state import COORDINATOR, ProducerStateEntry, ProducerStateManager
from kvlog.records import Compression, ControlRecordType, MemoryRecords, Record, encode_batch, now_ms
from kvlog.root_files import _RootCheckpoints
from kvlog.segment import LogSegment
from kvlog.txn_index import AbortedTxn, aborted_batch_mask, entries_array


def _serialized(method: Any) -> Any:
    """The method runs under the log's lock (``Log._mutex``: reentrant, so methods call each other)."""

    def serialized(self: "Log", /, *args: Any, **kwargs: Any) -> Any:
        with self._mutex:
            return method(self, *args, **kwargs)

    functools.update_wrapper(serialized, method)
    return serialized


def _locked_steps(lock: Any, it: Iterator[Any]) -> Iterator[Any]:
    """``it`` with each step taken under ``lock`` (never held while the consumer has the item)."""
    while True:
        with lock:
            try:
                item = next(it)
            except StopIteration:
                return
        yield item


_DEFAULT_CONFIG = LogConfig()  # (immutable: every log opened without a config shares it)


class Log:
    """A partition log in a directory of ``<20-digit base offset>.log/.index/.timeindex`` files."""

    dir: str
    topic: str
    partition: int
    config: LogConfig
    read_only: bool
    log_start_offset: int
    recovery_point: int
    _next_offset: int
    _time: Callable[[], int]
    _checkpoints: _RootCheckpoints
    _lock_fd: int
    _segments: LogSegments
    _closed: bool
    _last_log_append_time: int
    _last_flush_ms: int
    _rng: random.Random | None = None  # (made when a segment's roll jitter first needs it)
    _failed: OSError | None
    _psm: ProducerStateManager | None
    _txn_from: int | None
    _txn_from_checked: bool
    _rows: tuple[np.ndarray, np.ndarray]  # the point append's batch rows, and the same as bytes
    _roll_probe: tuple[int, str]
    _governed: bool
    _backup_run: int | None = None  # a reader pinned to an older run of a backup (loader.committed_range)
    _history: History | None = None  # a reader's older segments kept elsewhere (kvlog.log.history)
    _rules: _AppendRules | None
    _set_aside_now: bool
    _broker: PartitionFiles
    _mutex: threading.RLock  # every public method's (see the module docstring: Threads)
    # (at most 30 instance attributes: past that CPython stops sharing an instance dict's keys and every
    # attribute access of the hot paths slows down; what only the load needs is passed, not kept)
    on_damage: str
    damage: list[LogDamage]
    """A read-only view's damaged stretches (see ``kvlog.damage``): bytes that fail their checks where
    the directory's own evidence says the data is durable. Reads that reach one raise
    ``CorruptRecordError`` (``on_damage="raise"``) or skip it with a ``DataLossWarning``
    (``on_damage="skip"``). Empty for a writer, whose recovery sets such bytes aside instead."""
    quarantined: list[str]
    """Log data set aside by recovery, kept for inspection and ``kvlog repair``: whole segments after a
    damaged one (``<segment>.log.quarantined``) and the bytes after a cut inside a segment
    (``<segment>.log.<position>.quarantined``). Never counted as log data."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("use Log.open(path, config, ...)")

    # ------------------------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        config: LogConfig | None = None,
        *,
        read_only: bool = False,
        time: Callable[[], int] | None = None,
        create: bool = True,
        on_damage: str = "raise",
        backup_run: int | None = None,
        topic_id: str | None = None,
        remote_storage: object | None = None,
        remote_log_metadata: object | None = None,
        _remote_pieces: object | None = None,
        _clean_shutdown: bool = False,
        _checkpoints: _RootCheckpoints | None = None,
    ) -> "Log":
        """Open (and after an unclean stop, recover) the log in ``path``; create it when missing.

        ``time`` is a zero-argument callable returning epoch milliseconds (tests inject a clock).
        ``on_damage`` (read-only opens) says what a read does at damaged durable data (``Log.damage``):
        ``"raise"`` a ``CorruptRecordError``, or ``"skip"`` it with a counted ``DataLossWarning``.
        ``backup_run`` (read-only opens of a partition of a ``kvlog backup``): read that run rather than the
        newest (:mod:`kvlog.backup`); ``BackupError`` when a later run moved its files aside.
        ``topic_id`` (Kafka's base64url text) is the id the topic has: a directory whose
        ``partition.metadata`` names another raises ``InconsistentTopicIdError``; a writer writes it where
        there is none (without one, it takes the data directory's or makes one: ``kvlog.log.broker``;
        ``kvlog.broker_files.NO_TOPIC_ID`` writes none).
        ``remote_storage`` (read-only opens of a tiered topic's partition, KIP-405): where the broker's
        remote storage manager put the partition's older segments (``kvlog.tiered.LocalTieredStorage``,
        ``kvlog.tiered.AivenTieredStorage``); the log then starts at its remote history. The remote segments
        come from ``__remote_log_metadata`` in the data directory, or in ``remote_log_metadata`` (a
        directory, a replay, or a list of ``kvlog.tiered.RemoteSegment``). The log package reads neither: it
        hands them to the tiered view (``kvlog.log.history``), which puts the remote segments below the local ones.
        """
        check_on_damage(on_damage)
        if backup_run is not None and (not read_only or isinstance(backup_run, bool) or not isinstance(backup_run, int)
                                       or backup_run < 1):
            raise ConfigError(f"backup_run must be a run number (≥ 1) of a read-only open, not {backup_run!r}")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Log.open takes a directory path (str or os.PathLike), not {type(path).__name__}")
        if config is not None and not isinstance(config, LogConfig):
            raise TypeError(f"config must be a kvlog.LogConfig, not {type(config).__name__}")
        if not read_only:
            storage.refuse_remote_writer(path, "Log.open without read_only=True")
        if (remote_storage is not None or remote_log_metadata is not None) and not read_only:
            raise ConfigError("remote_storage and remote_log_metadata take a read-only open (read_only=True): "
                              "kvlog reads tiered storage, it does not copy segments to it")
        if remote_log_metadata is not None and remote_storage is None:
            raise ConfigError("remote_log_metadata says which remote segments there are; remote_storage, where "
                              "they are, is needed too")
        self = object.__new__(cls)
        self._mutex = threading.RLock()
        self.dir = storage.normalize(path)
        self.config = config if config is not None else _DEFAULT_CONFIG
        self.read_only = read_only
        self._time = time or now_ms
        tp = _files.parse_partition_dir(self.dir)
        self.topic, self.partition = tp if tp else (os.path.basename(self.dir), -1)
        self._checkpoints = _checkpoints or _RootCheckpoints(os.path.dirname(self.dir))
        self._lock_fd = -1
        self._segments = LogSegments()
        self._closed = False
        self._last_log_append_time = -1
        self._last_flush_ms = self._time()
        self.quarantined = []
        self._set_aside_now = False  # this open's recovery set bytes aside
        self.on_damage = on_damage
        self.damage = []
        self._failed = None
        self._txn_from = None  # a reader's: where a writer would start rebuilding transaction indexes
        self._txn_from_checked = True
        rows = np.empty(16, dtype=_k.BATCH_DTYPE)  # reused by every point append (under the log's lock)
        self._rows = (rows, rows.view(np.uint8))  # (one attribute for both: see the note on attributes)
        self._roll_probe = (-1, "")
        self._governed = False  # the data directory is governed by a sink's committed offsets (loader)
        if backup_run is not None:  # (an instance attribute only then: see the note on attributes above)
            self._backup_run = backup_run
        if remote_storage is not None:
            self._history = open_history(remote_storage, remote_log_metadata, _remote_pieces)
        self._rules = None
        self._broker = PartitionFiles(self.dir, topic_id)
        if not _io.fs.isdir(self.dir):
            if read_only or not create:
                raise DirectoryNotFoundError(f"no log directory at {self.dir}")
            os.makedirs(os.path.dirname(self.dir), mode=_io.DIR_MODE, exist_ok=True)
            _io.fs.mkdir(self.dir)
            _io.fs.fsync_dir(os.path.dirname(self.dir))
        elif not read_only:  # (before the lock file goes in: not into a data directory's root; a reader's load checks)
            _files.check_log_directory(self.dir, os.listdir(self.dir), read_only=False)
        if not read_only:
            self._lock()
        try:
            if read_only:
                loader.load_read_only(self, _clean_shutdown)
            else:
                loader.load(self, _clean_shutdown)
                committed = loader.committed_range(self)
                if committed is not None and self._next_offset > committed[1]:
                    self.truncate_to(committed[1])  # appended but never committed (never flushed)
        except BaseException as exc:
            self.release_lock()
            if isinstance(exc, OSError) and not isinstance(exc, KvlogError):
                raise LogIOError(f"opening log {self.dir} failed: {exc}") from exc
            raise
        return self

    def _lock(self) -> None:
        self._lock_fd = _files.lock_file(os.path.join(self.dir, _files.LOCK), f"log {self.dir}")
        if self.partition >= 0:  # a Spark job's planning cannot see the flock: it reads the root's lease
            try:
                committed_offsets.hold_local_lease(os.path.dirname(self.dir))
            except BaseException:
                _files.unlock_file(self._lock_fd)
                self._lock_fd = -1
                raise

    def release_lock(self) -> None:
        """Internal (the demos, tests): give the directory's lock back without closing, as a process
        that dies does; the log must not be written after it."""
        if self._lock_fd >= 0:
            _files.unlock_file(self._lock_fd)
            self._lock_fd = -1
            if self.partition >= 0:
                committed_offsets.release_local_lease(os.path.dirname(self.dir))

    _release_lock = release_lock

    def _new_segment(self, base_offset: int, *, suffix: str = "", read_only: bool | None = None) -> LogSegment:
        cfg = self.config
        jitter = 0
        if cfg.segment_jitter_ms > 0:
            if self._rng is None:
                self._rng = random.Random()
            jitter = self._rng.randrange(2**31) % min(cfg.segment_jitter_ms, cfg.segment_ms)
        return LogSegment(
            self.dir, base_offset, index_interval_bytes=cfg.index_interval_bytes,
            max_index_size=cfg.segment_index_bytes, read_only=self.read_only if read_only is None else read_only,
            created_ms=self._time(), roll_jitter_ms=jitter, suffix=suffix,
            preallocate_bytes=cfg.segment_bytes if cfg.preallocate else 0)

    def _add_segment(self, seg: LogSegment) -> None:
        try:
            i = self._segments.add(seg)
        except ValueError:
            raise KvlogError(f"duplicate segment base offset {seg.base_offset} in {self.dir}") from None
        if i == len(self._segments) - 1 and not self.read_only:
            # a writer's active segment keeps its descriptors (the open-file budget never evicts it)
            if i:
                self._segments[i - 1].pinned = False
            seg.pinned = True

    def refresh(self) -> int:
        """A read-only log catches up with its writer; returns the log end offset it now sees.

        What the writer appended since this view was opened (or last refreshed) becomes visible, as
        at open: complete, CRC-valid batches only. A segment the writer rolled to at this view's end is
        opened too. It costs one ``fstat`` of the last segment and one ``stat`` for a rolled one, and
        reads only the new bytes; nothing is listed or reopened. What the writer deleted or replaced
        meanwhile (retention, compaction) stays readable here from the files this view holds open,
        until the log is reopened (one whose descriptor the open-file budget had closed before raises
        ``SegmentReplacedError``). A writer's own log is always current: this returns its end.
        """
        with self._mutex:
            self._check_open()
            if not self.read_only:
                return self._next_offset
            return loader.refresh(self)

    # ------------------------------------------------------------------------------ producer state
    @property
    def _producer_state(self) -> ProducerStateManager:
        psm = self._psm
        return psm if psm is not None else producers.load_for_reader(self)  # a reader's, on first use

    @property
    def last_stable_offset(self) -> int:
        """The first offset of the oldest open transaction, or the high watermark when none is open.

        read_committed readers see nothing at or after it: the outcome of what lies there is unknown.
        """
        with self._mutex:
            fuo = self._producer_state.first_unstable_offset()
            hw = self.high_watermark
            return hw if fuo is None or fuo >= hw else fuo

    @property
    def producer_state(self) -> ProducerStateManager:
        """Every producer id's state (``producers``), open transactions (``ongoing``) and snapshots."""
        return self._producer_state

    @_serialized
    def producer_entry(self, producer_id: int) -> ProducerStateEntry | None:
        """The state of one producer (epoch, last five batches, open transaction), or None."""
        return self._producer_state.last_entry(producer_id)

    @_serialized
    def last_records_of_active_producers(self) -> dict[int, tuple[int, int]]:
        """``{producer_id: (last data offset or -1, epoch)}``: the batches compaction must keep."""
        return {pid: (e.last_data_offset, e.producer_epoch) for pid, e in self._producer_state.producers.items()}

    @_serialized
    def aborted_transactions(self, start_offset: int, upper_bound: int) -> list[AbortedTxn]:
        """Aborted transactions overlapping ``[start_offset, upper_bound)`` from the transaction
        indexes (Kafka's collectAbortedTransactions: what a read_committed fetch needs). A segment that
        recovery would re-read (see ``producers.reader_txn_from``) has its entries derived from the batches, as
        a writer's recovery rebuilds them; a read-only open keeps those in memory."""
        e = self.aborted_array(start_offset, upper_bound)
        return [AbortedTxn(int(r["producer_id"]), int(r["first_offset"]), int(r["last_offset"]),
                           int(r["last_stable_offset"]), int(r["version"])) for r in e]

    aborted_array = _serialized(producers.aborted_array)
    """Internal (the cleaner, the Spark source): ``aborted_transactions`` as transaction-index entries."""

    # ---------------------------------------------------------------------------------- properties
    def __del__(self) -> None:
        # dropped without close(): give back descriptors and the lock (no flush, no writes), as a
        # file object does, so the directory can be opened again
        try:
            if not getattr(self, "_closed", True):
                for seg in self._segments:
                    seg.close_handlers()
                self.release_lock()
                self._closed = True
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def __enter__(self) -> "Log":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"Log({self.dir!r}, offsets {self.log_start_offset}..{self._next_offset}, "
                f"{len(self._segments)} segments{', read-only' if self.read_only else ''})")

    @property
    def log_end_offset(self) -> int:
        return self._next_offset

    @property
    def high_watermark(self) -> int:
        """A single-node log: everything appended is 'replicated'."""
        return self._next_offset

    @property
    def segments(self) -> list[LogSegment]:
        with self._mutex:
            return list(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    @property
    def topic_id(self) -> str | None:
        """The topic's id as Kafka writes it (22 base64url characters), from ``partition.metadata``; None when
        the directory has no such file (a reader's, or a writer's opened with ``topic_id=NO_TOPIC_ID``)."""
        return self._broker.topic_id

    @property
    def history(self) -> History | None:
        """The older segments a layer above put below this read-only log's local ones (a tiered view's remote
        history, ``Log.open(remote_storage=...)``: see ``kvlog.log.history``), or None."""
        return self._history

    @property
    def leader_epochs(self) -> list[tuple[int, int]]:
        """``(epoch, start offset)`` entries of the leader-epoch cache (``leader-epoch-checkpoint``): from
        which offset on the batches carry each partition leader epoch. A reader reads the file each time."""
        cache = self._broker.cache
        if cache is not None:
            return list(cache.entries)
        return read_leader_epochs(self._broker.checkpoint_path)

    def clock_ms(self) -> int:
        """Internal (the cleaner): the log's clock in epoch milliseconds (``Log.open(time=...)``)."""
        return self._time()

    @property
    def size_in_bytes(self) -> int:
        with self._mutex:
            return sum(s.size_in_bytes for s in self._segments)

    def _check_open(self, writing: bool = False) -> None:
        if self._closed:
            raise KvlogError(f"log {self.dir} is closed")
        if writing and self.read_only:
            raise KvlogError(f"log {self.dir} is open read-only")
        if writing and self._failed is not None:
            raise LogIOError(f"log {self.dir} failed earlier ({self._failed}); reopen it to recover") from None

    # the internal read API of other kvlog modules (the cleaner, the Spark source): see ``reads``
    segment_index_for = reads.segment_index_for

    def ranges(self, start: int, end: int) -> Iterator[tuple[LogSegment, int, int]]:
        return _locked_steps(self._mutex, reads.ranges(self, start, end))

    def chunks(self, start: int, end: int, chunk: int, where: list[Any] | None = None) -> Iterator[Any]:
        return _locked_steps(self._mutex, reads.chunks(self, start, end, chunk, where))

    ranges.__doc__, chunks.__doc__ = reads.ranges.__doc__, reads.chunks.__doc__
    read_ahead = reads.read_ahead
    _past_damage = reads.past_damage

    # -------------------------------------------------------------------------------------- append
    def append(
        self,
        records: Iterable[Record] | bytes | bytearray | memoryview | MemoryRecords,
        *,
        compression: Compression | str | int | None = None,
        assign_offsets: bool = True,
        producer_id: int = -1,
        producer_epoch: int = -1,
        base_sequence: int = -1,
        is_transactional: bool = False,
    ) -> AppendInfo:
        """Validate and store a set of batches (or Records, encoded here) as one append.

        Leader semantics (``assign_offsets=True``): offsets are assigned from the log end offset,
        legacy v0/v1 input is up-converted to v2 (as Kafka ≥ 3.0 brokers store it), control batches
        are refused, the topic's timestamp type and limits apply. Replica semantics
        (``assign_offsets=False``): batches keep their offsets (which must be ≥ the log end offset
        and increasing) and their format, so a log can be copied exactly.

        Idempotent and transactional producers: Records are encoded with ``producer_id``,
        ``producer_epoch``, ``base_sequence`` and ``is_transactional`` (pre-encoded batches carry
        their own). A leader append checks them as a broker does: a sequence that does not follow
        the producer's last one raises ``OutOfOrderSequenceError``, an older epoch
        ``InvalidProducerEpochError``, and a retry of one of the producer's last five batches writes
        nothing and returns the original offsets (``AppendInfo.duplicate``).

        A file-system failure becomes ``LogIOError`` and fences the log until it is reopened (the
        ``_io_guard`` rule, written out here: the decorator's frame is a tenth of a point append).
        """
        try:
            with self._mutex:
                return self._append(records, compression, assign_offsets, producer_id, producer_epoch,
                                    base_sequence, is_transactional)
        except LogIOError:
            raise
        except OSError as exc:
            self._failed = exc
            raise LogIOError(f"append on log {self.dir} failed: {exc}") from exc

    _append = appending.append
    _append_point = appending.append_point

    @_serialized
    @_io_guard
    def end_transaction(self, producer_id: int, producer_epoch: int, commit: bool, coordinator_epoch: int = 0, *,
                        timestamp: int | None = None) -> AppendInfo:
        """Write a COMMIT or ABORT marker for the producer's open transaction (what a transaction
        coordinator sends). An abort is recorded in the transaction index; either way the last
        stable offset moves past the transaction.

        The marker's epoch must not be older than the producer's (``InvalidProducerEpochError``) and
        its coordinator epoch not older than the last marker's (``TransactionCoordinatorFencedError``).
        A marker for a producer without an open transaction is written and changes nothing else.
        """
        self._check_open(writing=True)
        if producer_id < 0 or producer_epoch < 0:
            raise InvalidRecordError("a transaction marker needs a producer id and epoch")
        ts = self._time() if timestamp is None else int(timestamp)
        marker = Record(struct.pack(">hh", 0, int(ControlRecordType.COMMIT if commit else ControlRecordType.ABORT)),
                        struct.pack(">hi", 0, coordinator_epoch), ts)
        data = encode_batch([marker], producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=-1,
                            is_transactional=True, is_control=True)
        return appending.append_as_leader(self, data, MemoryRecords(data).batch_headers(check_crc=True), "producer",
                                          origin=COORDINATOR)

    @_serialized
    @_io_guard
    def roll(self, new_base_offset: int | None = None) -> LogSegment:
        """Close the active segment (final time-index entry, trimmed indexes) and start a new one."""
        self._check_open(writing=True)
        if new_base_offset is not None:
            new_base_offset = _int_arg("roll()", new_base_offset)
        new_base = self._next_offset if new_base_offset is None else max(new_base_offset, self._next_offset)
        old = self._segments[-1]
        if old.base_offset == new_base and old.size_in_bytes == 0:
            return old
        if old.base_offset >= new_base:
            raise InvalidOffsetError(f"cannot roll to {new_base}: the active segment starts at {old.base_offset}")
        old.on_become_inactive()
        old.flush()  # Kafka flushes the old segment (asynchronously); the recovery point moves with it
        seg = self._new_segment(new_base)
        self._add_segment(seg)
        _io.fs.fsync_dir(self.dir)
        self.recovery_point = max(self.recovery_point, old.base_offset)
        # Kafka's roll snapshot: named after the new segment, so recovering it starts from there
        self._producer_state.update_map_end_offset(new_base)
        self._producer_state.take_snapshot()
        return seg

    # ---------------------------------------------------------------------------------------- read
    @_serialized
    def read(self, offset: int, max_bytes: int = 1 << 20, *, max_offset: int | None = None,
             min_one_batch: bool = True, isolation_level: str = READ_UNCOMMITTED) -> MemoryRecords:
        """Whole batches from the one holding ``offset``, up to ``max_bytes`` (at least one batch).

        ``isolation_level="read_committed"`` (a Kafka fetch at that level): nothing at or past the
        last stable offset, and the batches of aborted transactions left out. Control batches stay,
        so the offsets a caller continues from still advance past markers; their records are never
        decoded by ``records()``/``to_arrow()``.
        """
        self._check_open()
        if type(offset) is not int or type(max_bytes) is not int or max_bytes < 0 or max_offset is not None:
            offset, max_bytes = _int_arg("read()", offset), _int_arg("read() max_bytes", max_bytes, "a size")
            if max_bytes < 0:
                raise ValueError(f"read() max_bytes must not be negative, got {max_bytes}")
            if max_offset is not None:
                max_offset = _int_arg("read() max_offset", max_offset)
        committed = read_committed(isolation_level)
        if offset < self.log_start_offset or offset > self._next_offset:
            raise OffsetOutOfRangeError(
                f"offset {offset} is outside {self.log_start_offset}..{self._next_offset} of {self.dir}",
                log_start_offset=self.log_start_offset, log_end_offset=self._next_offset)
        upper = self._next_offset if max_offset is None else min(max_offset, self._next_offset)
        if committed:
            upper = min(upper, self.last_stable_offset)
            got = self._read(offset, max_bytes, upper, min_one_batch)
            if not len(got):
                return got
            headers = got.batch_headers(check_crc=False)
            aborted = self.aborted_array(offset, int(headers["last_offset"][-1]) + 1)
            attrs = headers["attributes"].astype(np.int64)
            marker = (headers["magic"] == 2) & ((attrs & 0x20) != 0)
            keep = ~aborted_batch_mask(headers["producer_id"], headers["base_offset"], headers["attributes"],
                                       entries_array(aborted), headers["magic"]) | marker
            if keep.all():
                return got
            view = got.buffer
            return MemoryRecords(b"".join(bytes(view[int(h["position"]) : int(h["position"]) + int(h["size"])])
                                          for h in headers[keep]))
        return self._read(offset, max_bytes, upper, min_one_batch)

    def _read(self, offset: int, max_bytes: int, upper: int, min_one_batch: bool) -> MemoryRecords:
        if offset >= upper:
            return MemoryRecords(b"")
        segments = self._segments
        stop = upper if upper < self._next_offset else LONG_MAX
        for i in range(segments.floor_index(offset), len(segments)):
            got = segments[i].read(offset, max_bytes, None, min_one_batch, stop)
            if got is not None and len(got[1]):
                return MemoryRecords._fetched(got[1], got[2])
            if self.damage:
                offset = self._past_damage(offset, upper)
                if offset >= upper:
                    break
        return MemoryRecords(b"")

    def records(self, start_offset: int | None = None, end_offset: int | None = None, *,
                include_control: bool = False, isolation_level: str = READ_UNCOMMITTED) -> Iterator[Record]:
        """Records with ``start_offset ≤ offset < end_offset`` (default: the whole log).

        ``isolation_level="read_committed"``: only up to the last stable offset, without the records
        of aborted transactions and without control records.
        """
        with self._mutex:
            self._check_open()
            start, end = reads.bounds(self, start_offset, end_offset)
            committed = read_committed(isolation_level)
            extra: dict[str, Any] = {"include_control": include_control}
            if committed:
                end = min(end, self.last_stable_offset)
                extra = {"isolation_level": READ_COMMITTED, "aborted_transactions": self.aborted_array(start, end)}
        yield from _locked_steps(self._mutex, reads.records_in(self, start, end, extra))

    @_serialized
    def to_arrow(self, start_offset: int | None = None, end_offset: int | None = None, *,
                 include_headers: bool = True, check_crc: bool = True,
                 isolation_level: str = READ_UNCOMMITTED) -> pa.Table:
        """Records with ``start_offset ≤ offset < end_offset`` as an Arrow table (Kafka-source columns).

        ``isolation_level="read_committed"`` (Kafka's consumer setting): the table stops at the last
        stable offset and leaves out aborted transactions (from the transaction indexes) and control
        records; the choice is made per batch on header columns, so it costs little over a plain read.
        """
        self._check_open()
        start, end = reads.bounds(self, start_offset, end_offset)
        extra: dict[str, Any] = {}
        if read_committed(isolation_level):
            end = min(end, self.last_stable_offset)
            extra = {"isolation_level": READ_COMMITTED, "aborted_transactions": self.aborted_array(start, end)}
        return reads.arrow_in(self, start, end, include_headers, check_crc, extra)
    # ------------------------------------------------------------------------------ time search
    @_serialized
    def offset_for_timestamp(self, timestamp: int) -> OffsetAndTimestamp | None:
        """The earliest offset whose record timestamp is ≥ ``timestamp`` (KIP-79 / KIP-33).

        Special targets: ``LATEST`` (-1) → the log end offset, ``EARLIEST`` (-2) → the log start
        offset, ``MAX_TIMESTAMP`` (-3) → the first record carrying the largest timestamp, as Kafka's
        ListOffsets finds it: the first batch reaching it decides, a control batch (a transaction marker, a
        KRaft ``LeaderChange``) too.
        None when no record is that recent.
        """
        if self._closed:
            self._check_open()
        if type(timestamp) is not int:
            timestamp = _int_arg("offset_for_timestamp()", timestamp,
                                 "epoch milliseconds or LATEST/EARLIEST/MAX_TIMESTAMP")
        if timestamp < 0:
            if timestamp == LATEST:
                return OffsetAndTimestamp(self._next_offset, -1)
            if timestamp == EARLIEST:
                return OffsetAndTimestamp(self.log_start_offset, -1)
            if timestamp == MAX_TIMESTAMP:
                return reads.max_timestamp_offset(self)
            raise InvalidTimestampError(f"invalid target timestamp {timestamp}")
        # Kafka's ListOffsets (UnifiedLog.searchOffsetInLocalLog): the first segment whose largest timestamp
        # reaches the target answers, or nothing does. A segment without a timestamp (an empty one, which
        # compaction leaves, or one of magic v0) counts by its file's mtime (LogSegment.largestTimestamp), so
        # it can end the search with no answer although a later segment holds a record at or after the target.
        start = self.log_start_offset
        for seg in self._segments:
            largest = seg.known_max  # the segment's max timestamp once known (skips the property chain)
            top = -1 if seg.size_in_bytes == 0 else largest.timestamp if largest is not None else seg.max_timestamp
            if top < 0 and seg is not self._segments[-1]:
                top = _io.fs.mtime_ms(seg.fileno())
            if top < timestamp:
                if self.damage:  # the damaged bytes may hold the answer
                    reads.past_segment_damage(self, seg)
                continue
            found = seg.find_offset_by_timestamp(timestamp, start) if seg.size_in_bytes else None
            if found is not None:
                # (a view's segment never reaches past the log end; the check keeps it that way if one did)
                return _new_offset_and_timestamp(OffsetAndTimestamp, found) if found[0] < self._next_offset else None
            if not self.damage:
                return None
            reads.past_segment_damage(self, seg)
        return None

    # ------------------------------------------------------------------------ flush / checkpoints
    @_serialized
    @_io_guard
    def flush(self, offset: int | None = None) -> None:
        """fsync everything below ``offset`` (default: the log end offset) and checkpoint it."""
        self._check_open(writing=True)
        upto = self._next_offset if offset is None else min(offset, self._next_offset)
        if upto <= self.recovery_point:
            return
        segments = self._segments
        for seg in segments[segments.floor_index(self.recovery_point):]:
            if seg.base_offset >= upto and seg is not self._segments[-1]:
                break
            seg.flush()
        _io.fs.fsync_dir(self.dir)
        self.recovery_point = upto
        self._last_flush_ms = self._time()
        self._write_recovery_point()
        local.delete_old_snapshots(self)

    def _write_recovery_point(self) -> None:
        self._checkpoints.write(self.topic, self.partition, recovery_point=self.recovery_point,
                                log_start_offset=self.log_start_offset)
        if self.partition >= 0:  # in a directory a sink governs, what is flushed becomes visible to readers
            committed_offsets.commit_partition(os.path.dirname(self.dir), self.topic, self.partition,
                                               self.log_start_offset, self.recovery_point)

    # --------------------------------------------------------------------------------- retention
    @_serialized
    @_io_guard
    def delete_old_segments(self, now_ms: int | None = None) -> int:
        """Apply retention: log start offset always; time and size when cleanup.policy has delete.

        Returns the number of segments deleted. A segment's age is its verified max record timestamp
        (recomputed from CRC-checked batch headers before deleting, never taken from an index alone).
        """
        self._check_open(writing=True)
        now = self._time() if now_ms is None else now_ms
        return local.delete_segments(self, retention.deletable_segments(
            self._segments, self.config, now, log_start_offset=self.log_start_offset,
            high_watermark=self.high_watermark, log_end_offset=self._next_offset))

    @_serialized
    @_io_guard
    def delete_records(self, before_offset: int) -> int:
        """Move the log start offset forward to ``before_offset`` (Kafka's DeleteRecords); returns it."""
        self._check_open(writing=True)
        before_offset = _int_arg("delete_records()", before_offset)
        if before_offset > self.high_watermark:
            raise OffsetOutOfRangeError(
                f"cannot delete records before {before_offset}: past the high watermark {self.high_watermark}",
                log_start_offset=self.log_start_offset, log_end_offset=self._next_offset)
        if before_offset > self.log_start_offset:
            self.log_start_offset = before_offset
            self._write_recovery_point()
            self._broker.truncate_from_start(before_offset)
            local.delete_segments(self, retention.below_log_start(self._segments, self.log_start_offset,
                                                                  self.high_watermark, self._next_offset))
        return self.log_start_offset

    # -------------------------------------------------------------------------------- truncation
    @_serialized
    @_io_guard
    def truncate_to(self, offset: int) -> bool:
        """Remove every batch holding an offset ≥ ``offset`` (whole batches). True if anything went."""
        self._check_open(writing=True)
        offset = _int_arg("truncate_to()", offset)
        if offset < 0:
            raise InvalidOffsetError(f"cannot truncate to a negative offset {offset}")
        if offset >= self._next_offset:
            return False
        if self._segments[0].base_offset > offset:
            self.truncate_fully_and_start_at(offset)
            return True
        local.truncate_tail(self, offset)
        return True

    @_serialized
    @_io_guard
    def truncate_fully_and_start_at(self, new_offset: int) -> None:
        """Drop every segment and start empty at ``new_offset``."""
        self._check_open(writing=True)
        local.start_at(self, new_offset)

    # ------------------------------------------------------------------------- segment replacement
    @_serialized
    def new_cleaned_segment(self, base_offset: int) -> LogSegment:
        """A fresh ``.cleaned`` segment for the cleaner (not part of the log until ``replace_segments``)."""
        self._check_open(writing=True)
        for suffix in (_files.LOG, _files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX):
            stale = _files.segment_path(self.dir, base_offset, suffix + _files.CLEANED)
            if os.path.exists(stale):
                _io.fs.unlink(stale)
        return self._new_segment(base_offset, suffix=_files.CLEANED)

    @_serialized
    @_io_guard
    def replace_segments(self, new: list[LogSegment], old: list[LogSegment]) -> None:
        """Swap cleaned segments in for ``old`` by Kafka's crash-safe ``LocalLog.replaceSegments``.

        ``.cleaned`` → flush → ``.swap`` (highest base first) → old files to ``.deleted`` → ``.swap`` to
        final names, with a directory fsync after each step. A crash anywhere leaves files that
        ``Log.open`` resolves to either the complete old or the complete new state.
        """
        self._check_open(writing=True)
        for seg in new:
            seg.on_become_inactive()
            seg.flush()
        _io.fs.fsync_dir(self.dir)
        try:
            local.swap(self, new, old)
        except BaseException:
            # the files on disk are resolvable (Log.open completes or rolls back the swap), but this
            # object's view of them is not: close it so the next open recovers
            for seg in self._segments + new + old:
                seg.close_handlers()
            self._closed = True
            self.release_lock()
            raise

    # ------------------------------------------------------------------------------------- close
    @_serialized
    def close(self) -> None:
        """Flush, finish the active segment's indexes, checkpoint, release the lock."""
        if self._closed:
            return
        try:
            if not self.read_only:
                self.flush()
                self._write_recovery_point()
                self._producer_state.update_map_end_offset(self._next_offset)
                self._producer_state.take_snapshot()  # Kafka's close snapshot, at the log end
            for seg in self._segments:
                seg.close()
        finally:
            self._closed = True
            self.release_lock()
            if self._history is not None:
                self._history.close()

    @_serialized
    def delete(self) -> None:
        """Close and remove the whole log directory and its checkpoint entries."""
        self._check_open(writing=True)
        for seg in self._segments:
            seg.delete()
        self._segments.clear()
        self._closed = True
        for name in os.listdir(self.dir):
            _io.fs.unlink(os.path.join(self.dir, name))
        self.release_lock()
        _io.fs.rmdir(self.dir)
        _io.fs.fsync_dir(os.path.dirname(self.dir))
        self._checkpoints.remove(self.topic, self.partition)
