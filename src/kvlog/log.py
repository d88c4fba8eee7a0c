"""Log: one partition's segments, with Kafka's append, read, roll, retention, truncation and recovery.

Offsets are logical and stored in the log; the offset index maps them to file positions sparsely.
Message timestamps (CreateTime from producers, LogAppendTime from the log) drive time-based rolling,
retention and search, never file modification times (those change when a replica copies a file).

One writer per directory (an advisory lock, ``LogLockedError`` for a second); any number of
``read_only=True`` opens, which never write, never recover in place, and read only up to the last
complete batch they can see, so a Spark executor can read a log a writer is appending to. A reader
tells that torn tail from damage in data the directory says is durable (``kvlog.damage``): damage is
an error where a read reaches it, or a reported skip, never a shorter log.
"""

from __future__ import annotations

import bisect
import fcntl
import numbers
import os
import random
import struct
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Concatenate, NamedTuple, ParamSpec, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kvlog import committed_offsets, _files, _io, checkpoint, storage
from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog.batch_audit import ProducerLast, audit_segment, dense_history, snapshot_producers
from kvlog.config import LogConfig
from kvlog.damage import DataLossWarning, LogDamage, check_on_damage, find_damage
from kvlog.errors import (
    ConfigError,
    CorruptRecordError,
    DirectoryNotFoundError,
    InvalidOffsetError,
    InvalidRecordError,
    InvalidTimestampError,
    KvlogError,
    LogIOError,
    OffsetOutOfRangeError,
    RecordTooLargeError,
)
from kvlog.records import (
    Compression,
    ControlRecordType,
    MemoryRecords,
    Record,
    TimestampType,
    convert,
    encode_arrays,
    encode_batch,
    now_ms,
    record_schema,
)
from kvlog.producer_state import (
    CLIENT,
    COORDINATOR,
    REPLICATION,
    BatchMetadata,
    CompletedTxn,
    ProducerAppendInfo,
    ProducerStateEntry,
    ProducerStateManager,
    increment_sequence,
)
from kvlog.segment import LogSegment
from kvlog.txn_index import ENTRY_DTYPE, AbortedTxn, aborted_batch_mask, entries_array

__all__ = ["Log", "AppendInfo", "OffsetAndTimestamp", "LATEST", "EARLIEST", "MAX_TIMESTAMP",
           "READ_UNCOMMITTED", "READ_COMMITTED"]

LATEST = -1
EARLIEST = -2
MAX_TIMESTAMP = -3
INT32_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
READ_UNCOMMITTED = "read_uncommitted"
READ_COMMITTED = "read_committed"


def read_committed(isolation_level: str) -> bool:
    """True for ``"read_committed"``, False for ``"read_uncommitted"`` (Kafka's isolation.level names)."""
    if isolation_level == READ_COMMITTED:
        return True
    if isolation_level == READ_UNCOMMITTED:
        return False
    raise ConfigError(f"isolation_level must be 'read_uncommitted' or 'read_committed', not {isolation_level!r}")


_CODEC_IDS: dict[Any, int] = {}


def _codec_id(value: Any) -> int:
    """Compression id of a ``compression`` argument or ``compression.type``; -1 for "producer"."""
    got = _CODEC_IDS.get(value)
    if got is None:
        got = -1 if value == "producer" else int(Compression.parse(value))
        if len(_CODEC_IDS) < 64:
            _CODEC_IDS[value] = got
    return got


class _AppendRules(NamedTuple):
    """What a point append needs from a LogConfig, computed once per config object."""

    config: LogConfig
    log_append_time: bool
    before_max_ms: int
    after_max_ms: int
    check_timestamps: bool
    max_segment_ms: int

    @classmethod
    def of(cls, cfg: LogConfig) -> "_AppendRules":
        before, after = cfg.effective_timestamp_before_max_ms, cfg.effective_timestamp_after_max_ms
        lat = cfg.message_timestamp_type != TimestampType.CREATE_TIME
        return cls(cfg, lat, before, after, not lat and (before < LONG_MAX or after < LONG_MAX), cfg.max_segment_ms)


class AppendInfo(NamedTuple):
    """What an append stored: its offsets, timestamps and size."""

    first_offset: int
    last_offset: int
    max_timestamp: int
    offset_of_max_timestamp: int
    log_append_time: int
    record_count: int
    valid_bytes: int
    duplicate: bool = False
    """True when the batch was a producer's retry of one already in the log: nothing was written and
    the offsets are those of the original."""


class OffsetAndTimestamp(NamedTuple):
    offset: int
    timestamp: int


_new_offset_and_timestamp = tuple.__new__  # an OffsetAndTimestamp from a (offset, timestamp) pair, no checks
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _int_arg(name: str, value: Any, what: str = "an offset") -> int:
    """``value`` as an int, or a ``TypeError`` that says what the argument takes (never a comparison error
    from deep inside a read)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} takes {what} (int), not {type(value).__name__} {value!r}")
    return int(value)


def _located(exc: CorruptRecordError, where: list[Any]) -> CorruptRecordError:
    """The error with the segment file and its position in it, when the decoder only knew a buffer."""
    if exc.file is None and where:
        return exc.with_context(file=where[0], base_position=where[1])
    return exc


def _io_guard(method: Callable[Concatenate[Log, _P], _R]) -> Callable[Concatenate[Log, _P], _R]:
    """File-system failures during a change become ``LogIOError`` and fence the log until reopened."""
    import functools

    def guarded(self: Log, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except LogIOError:
            raise
        except OSError as exc:
            self._failed = exc
            raise LogIOError(f"{method.__name__} on log {self.dir} failed: {exc}") from exc

    functools.update_wrapper(guarded, method)
    return guarded


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
    _checkpoints: "_RootCheckpoints"
    _lock_fd: int
    _segments: list[LogSegment]
    _bases: list[int]
    _closed: bool
    _last_log_append_time: int
    _last_flush_ms: int
    _rng: random.Random
    _failed: OSError | None
    _psm: ProducerStateManager | None
    _txn_from: int | None
    _txn_from_checked: bool
    _rows: np.ndarray
    _rows_raw: np.ndarray
    _roll_probe: tuple[int, str]
    _rules: "_AppendRules | None"
    _set_aside_now: bool
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
        _clean_shutdown: bool = False,
        _checkpoints: "_RootCheckpoints | None" = None,
    ) -> "Log":
        """Open (and after an unclean stop, recover) the log in ``path``; create it when missing.

        ``time`` is a zero-argument callable returning epoch milliseconds (tests inject a clock).
        ``on_damage`` (read-only opens) says what a read does at damaged durable data (``Log.damage``):
        ``"raise"`` a ``CorruptRecordError``, or ``"skip"`` it with a counted ``DataLossWarning``.
        """
        check_on_damage(on_damage)
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Log.open takes a directory path (str or os.PathLike), not {type(path).__name__}")
        if config is not None and not isinstance(config, LogConfig):
            raise TypeError(f"config must be a kvlog.LogConfig, not {type(config).__name__}")
        if not read_only:
            storage.refuse_remote_writer(path, "Log.open without read_only=True")
        self = object.__new__(cls)
        self.dir = storage.normalize(path)
        self.config = config if config is not None else LogConfig()
        self.read_only = read_only
        self._time = time or now_ms
        tp = _files.parse_partition_dir(self.dir)
        self.topic, self.partition = tp if tp else (os.path.basename(self.dir), -1)
        self._checkpoints = _checkpoints or _RootCheckpoints(os.path.dirname(self.dir))
        self._lock_fd = -1
        self._segments = []
        self._bases = []
        self._closed = False
        self._last_log_append_time = -1
        self._last_flush_ms = self._time()
        self._rng = random.Random()
        self.quarantined = []
        self._set_aside_now = False  # this open's recovery set bytes aside
        self.on_damage = on_damage
        self.damage = []
        self._failed = None
        self._txn_from = None  # a reader's: where a writer would start rebuilding transaction indexes
        self._txn_from_checked = True
        self._rows = np.empty(16, dtype=_k.BATCH_DTYPE)  # reused by every point append
        self._rows_raw = self._rows.view(np.uint8)
        self._roll_probe = (-1, "")
        self._rules = None
        if not _io.fs.isdir(self.dir):
            if read_only or not create:
                raise DirectoryNotFoundError(f"no log directory at {self.dir}")
            os.makedirs(os.path.dirname(self.dir), mode=_io.DIR_MODE, exist_ok=True)
            _io.fs.mkdir(self.dir)
            _io.fs.fsync_dir(os.path.dirname(self.dir))
        if not read_only:
            self._lock()
        try:
            if read_only:
                self._load_read_only(_clean_shutdown)
            else:
                self._load(_clean_shutdown)
                committed = self._committed_range()
                if committed is not None and self._next_offset > committed[1]:
                    self.truncate_to(committed[1])  # appended but never committed (never flushed)
        except BaseException as exc:
            self._release_lock()
            if isinstance(exc, OSError) and not isinstance(exc, KvlogError):
                raise LogIOError(f"opening log {self.dir} failed: {exc}") from exc
            raise
        return self

    def _committed_range(self) -> tuple[int, int] | None:
        """This partition's committed (log start, end) when its data directory is governed by a sink's
        commits (:mod:`kvlog.committed_offsets`), else None."""
        if self.partition < 0:
            return None
        root = os.path.dirname(self.dir)
        found = committed_offsets.latest(root).range_of(self.topic, self.partition)
        if found is not None and not self.read_only:
            committed_offsets.check_no_write_in_progress(root, self.topic)
        return found

    def _lock(self) -> None:
        self._lock_fd = _files.lock_file(os.path.join(self.dir, _files.LOCK), f"log {self.dir}")

    def _release_lock(self) -> None:
        if self._lock_fd >= 0:
            _files.unlock_file(self._lock_fd)
            self._lock_fd = -1

    def _new_segment(self, base_offset: int, *, suffix: str = "", read_only: bool | None = None) -> LogSegment:
        cfg = self.config
        jitter = 0
        if cfg.segment_jitter_ms > 0:
            jitter = self._rng.randrange(2**31) % min(cfg.segment_jitter_ms, cfg.segment_ms)
        return LogSegment(
            self.dir, base_offset, index_interval_bytes=cfg.index_interval_bytes,
            max_index_size=cfg.segment_index_bytes, read_only=self.read_only if read_only is None else read_only,
            created_ms=self._time(), roll_jitter_ms=jitter, suffix=suffix,
            preallocate_bytes=cfg.segment_bytes if cfg.preallocate else 0)

    def _load(self, clean_shutdown: bool) -> None:
        self.damage = []
        names = sorted(_io.fs.listdir(self.dir))
        listed = names  # the directory at open, before a writer finishes an interrupted swap
        if not self.read_only:
            names = self._resolve_temporary_files(names)
            for n in names:  # an interrupted snapshot write (the snapshot itself is replaced atomically)
                if n.endswith(_files.SNAPSHOT + ".tmp") and _files.is_offset_name(n):
                    _io.fs.unlink(os.path.join(self.dir, n))
        logs = [n for n in names if n.endswith(_files.LOG) and _files.is_offset_name(n)]
        committed = self._committed_range()
        if committed is not None:  # a governed directory: what lies at or past the committed end is not the log
            if not self.read_only:
                names = committed_offsets.remove_uncommitted(self.dir, names, committed[1])
            logs = [n for n in logs if _files.offset_from_name(n) < committed[1]]
        if not self.read_only:
            have = {_files.offset_from_name(n) for n in logs}
            for n in names:
                if (n.endswith((_files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX)) and _files.is_offset_name(n)
                        and _files.offset_from_name(n) not in have):
                    _io.fs.unlink(os.path.join(self.dir, n))  # orphaned index
        if storage.is_remote(self.dir):
            # an object store answers in milliseconds whatever the size: the files this open reads one
            # after another (indexes, the root's checkpoints) are fetched together now
            root = os.path.dirname(self.dir)
            _io.fs.prefetch_files(
                [os.path.join(root, n) for n in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET,
                                                 checkpoint.CLEANER_OFFSET, checkpoint.REPLICATION_OFFSET)]
                + [os.path.join(self.dir, n) for n in names
                   if n.endswith((_files.INDEX, _files.TIME_INDEX)) and _files.is_offset_name(n)])
        stored = self._checkpoints.read(self.topic, self.partition)
        if committed is not None:  # published after its bytes were written: evidence of durable data
            stored["high_watermark"] = max(stored.get("high_watermark", -1), committed[1])
            stored["log_start_offset"] = max(stored.get("log_start_offset", 0), committed[0])
        recovery_point = stored.get("recovery_point", 0) if not clean_shutdown else LONG_MAX
        log_start = stored.get("log_start_offset", 0)
        needs_recovery: set[int] = set()
        for n in logs:
            base = _files.offset_from_name(n)
            missing_index = not _io.fs.exists(_files.segment_path(self.dir, base, _files.INDEX))
            seg = self._new_segment(base)
            if missing_index or seg.offset_index.untrusted_tail() or seg.time_index.untrusted_tail():
                needs_recovery.add(base)
            else:
                try:
                    seg.offset_index.sanity_check()
                    seg.time_index.sanity_check()
                except KvlogError:
                    needs_recovery.add(base)
            self._add_segment(seg)
        if self.read_only:
            self._add_swapped_segments(names)
        txn_from = self._audit_segments(recovery_point, clean_shutdown, needs_recovery, listed, stored)
        after = names if self.read_only else _io.fs.listdir(self.dir)  # recovery may have set bytes aside
        self.quarantined = sorted(os.path.join(self.dir, n) for n in after
                                  if n.endswith(_files.QUARANTINED) and _files.is_offset_name(n)
                                  and n.split(".", 2)[1] == "log")
        if self.read_only:
            self.log_start_offset = max(log_start, self._segments[0].base_offset if self._segments else 0)
            self._next_offset = self._segments[-1].read_next_offset() if self._segments else self.log_start_offset
            if self.damage and self.damage[-1].path == self._segments[-1].log_path:
                self._next_offset = max(self._next_offset, self.damage[-1].end_offset)
            if committed is not None:
                self._next_offset = min(self._next_offset, committed[1])
                self.log_start_offset = min(self.log_start_offset, self._next_offset)
            self.recovery_point = self._next_offset
            self._psm = None  # loaded on first use: most readers never ask (only read_committed does)
            self._txn_from = txn_from
            self._txn_from_checked = False
            return
        next_offset = self._segments[-1].read_next_offset() if self._segments else 0
        if self._segments and next_offset < log_start:
            for seg in self._segments:
                seg.delete()
            self._segments.clear()
            self._bases.clear()
        if not self._segments:
            self._add_segment(self._new_segment(log_start))
            _io.fs.fsync_dir(self.dir)
            next_offset = log_start
        self.log_start_offset = max(log_start, self._segments[0].base_offset)
        self._next_offset = next_offset
        self.recovery_point = min(stored.get("recovery_point", 0), next_offset) if not clean_shutdown else next_offset
        active = self._segments[-1]
        active.pinned = True
        active.offset_index.resize(self.config.segment_index_bytes)
        active.time_index.resize(self.config.segment_index_bytes)
        self._load_producer_state(txn_from)

    def _audit_segments(self, recovery_point: int, clean_shutdown: bool, needs_recovery: set[int],
                        listed: list[str], stored: dict[str, int]) -> int | None:
        """Audit the segments recovery must look at and cut each where its trustworthy bytes end.

        Those are the segments from the one holding the recovery point to the end (after a clean
        shutdown, the active one), and any whose indexes failed their checks. A writer and a read-only
        open reach the same verdict on the same bytes; the writer then acts on it (rebuilt indexes,
        the bytes after a cut set aside and the file truncated, later segments set aside), the reader
        only limits its view. Returns the base offset from which transaction indexes are rebuilt (a
        writer rewrites them at once; a reader derives them in memory on first use, see
        ``_reader_txn_from``).
        """
        if not self._segments:
            return None
        txn_from: int | None = None
        dense = dense_history(self.dir, self.topic, self.partition, self.config.cleanup_policy, listed)
        snapshots: list[list[ProducerLast]] = []

        def producers() -> list[ProducerLast]:  # read once, and only if a batch has a producer id
            if not snapshots:
                snapshots.append(snapshot_producers(self.dir))
            return snapshots[0]

        start_idx = max(0, bisect.bisect_right(self._bases, recovery_point) - 1)
        # a reader that skips damage must know it all before the first read; one that raises finds damage
        # in the flushed segments as it reads them (their CRCs are checked on decode), as a broker does
        audit_all = self.read_only and self.on_damage == "skip"
        prev_last = -1
        for i, seg in enumerate(list(self._segments)):
            recovering = (i >= start_idx and not clean_shutdown) or seg.base_offset in needs_recovery
            if i < start_idx and not recovering and not audit_all:
                if not self.read_only and seg.txn_index.exists():
                    try:
                        seg.txn_index.sanity_check()
                    except KvlogError:
                        txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
                prev_last = -1  # not read: only its successor's base offset bounds the next one
                continue
            next_base = self._bases[i + 1] if i + 1 < len(self._segments) else None
            trusted = seg.base_offset not in needs_recovery and seg.offset_index is not None
            audit_index = seg.offset_index.to_numpy() if trusted else None
            audit = audit_segment(seg, prev_last=prev_last, next_base=next_base, dense=dense,
                                  index=audit_index, producers=producers)
            prev_last = audit.last_offset if len(audit.headers) else prev_last
            cut = audit.valid_end < audit.size
            if self.read_only and cut:
                # a reader tells damage in durable data (an error, or a reported skip) from a torn tail
                damage = find_damage(seg, audit, later_segment=next_base,
                                     recovery_point=stored.get("recovery_point", -1),
                                     high_watermark=stored.get("high_watermark", -1),
                                     index=audit_index if trusted else None)
                if damage is not None:
                    self.damage.append(damage)
                    prev_last = damage.end_offset - 1
                    seg.limit_to(audit)
                    txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
                    continue
            self._set_aside_now |= cut and not audit.zero_tail
            if recovering or not audit.clean:
                # a writer rebuilds this segment's indexes, its transaction index included; a reader
                # derives the transaction index in memory when it first needs it (read_committed)
                txn_from = seg.base_offset if txn_from is None else min(txn_from, seg.base_offset)
            if self.read_only:
                seg.limit_to(audit)
            elif recovering or not audit.clean:
                seg.recover(audit=audit)
            else:
                seg.audit = audit
            if cut and i >= start_idx and i + 1 < len(self._segments) and not self.read_only:
                # After a damaged region the later segments cannot be part of this log (Kafka deletes
                # them). Their batches may still be intact, and kvlog deletes nothing it cannot prove
                # invalid: a writer sets them aside as <name>.quarantined, a reader stops before them.
                self._set_aside_now = True
                for later in self._segments[i + 1:]:
                    later.close_handlers()
                    if not self.read_only:
                        later.change_suffix("", _files.QUARANTINED)
                del self._segments[i + 1:]
                del self._bases[i + 1:]
                if not self.read_only:
                    _io.fs.fsync_dir(self.dir)
                break
        return txn_from

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
        self._check_open()
        if not self.read_only:
            return self._next_offset
        while True:
            last = self._segments[-1].extend_valid_prefix()
            if last is not None:
                self._next_offset = last + 1
                self.recovery_point = self._next_offset
            nxt = self._next_offset
            probe = self._roll_probe
            if probe[0] != nxt:  # the name a segment rolled at this end would have
                probe = self._roll_probe = (nxt, _files.segment_path(self.dir, nxt, _files.LOG))
            if nxt <= self._bases[-1] or not _io.fs.exists(probe[1]):
                break
            try:
                seg = self._new_segment(nxt)
            except FileNotFoundError:
                break  # deleted again before we opened it
            seg.limit_to_valid_prefix()
            self._add_segment(seg)
            self._next_offset = seg.read_next_offset()
            self.recovery_point = self._next_offset
        if self._psm is not None:
            self._psm = None  # producer state follows the new end on next use
        return self._next_offset

    # ------------------------------------------------------------------------------ producer state
    @property
    def _producer_state(self) -> ProducerStateManager:
        psm = self._psm
        if psm is None:
            for d in self.damage:  # transactions whose markers the damage hides cannot be resolved
                self._past_damage(d.first_offset, LONG_MAX)
            # a read-only open defers this: replaying producer batches can mean reading the whole log
            self._load_producer_state(self._reader_txn_from())
            psm = self._psm
            assert psm is not None
        return psm

    def _reader_txn_from(self) -> int | None:
        """Where a writable open of this directory would start rebuilding transaction indexes: the first
        segment its recovery re-reads (from the one holding the recovery point, and any whose offset or
        time index is missing or damaged: raw segment files, a copy without indexes), or an earlier one
        whose ``.txnindex`` fails its checks. A reader derives the same entries, in memory.

        The segments before it keep their ``.txnindex`` as it is, and one without the file has no
        aborted transaction (Kafka creates the file with the first abort; its broker trusts these
        segments the same way), so a log whose recovery point covers its intact segments costs no
        rescan. The checks of the older files run once, at the first use.
        """
        if not self._txn_from_checked:
            self._txn_from_checked = True
            limit = self._txn_from if self._txn_from is not None else LONG_MAX
            for seg in self._segments:
                if seg.base_offset >= limit:
                    break
                if seg.txn_index.exists():
                    try:
                        seg.txn_index.sanity_check()
                    except KvlogError:
                        self._txn_from = seg.base_offset
                        break
        return self._txn_from

    def _load_producer_state(self, txn_from: int | None) -> None:
        """Latest snapshot at or below the log end (and below ``txn_from``), then the batches after it.

        Snapshots past the log end are stale (a cut tail, a truncation) and are deleted, unless this
        open set bytes aside: then they are set aside with them. Replaying
        from offset S also rebuilds every transaction-index entry from S on; an index that already
        holds exactly those entries is not rewritten. A reader keeps the rebuilt entries in memory
        (its files stay as they are), so it filters exactly what a writer's recovery would.
        """
        leo = self._next_offset
        if self._set_aside_now and not self.read_only:
            # the snapshots past a cut describe the set-aside bytes: evidence kvlog repair may need
            for n in os.listdir(self.dir):
                if n.endswith(_files.SNAPSHOT) and _files.is_offset_name(n) and _files.offset_from_name(n) > leo:
                    _io.fs.rename(os.path.join(self.dir, n), os.path.join(self.dir, n + _files.QUARANTINED))
            _io.fs.fsync_dir(self.dir)
        self._set_aside_now = False
        psm = self._psm = ProducerStateManager(self.dir, read_only=self.read_only)
        if not self.read_only and psm.delete_snapshots(lambda o: o <= leo):
            _io.fs.fsync_dir(self.dir)
        limit = leo if txn_from is None else min(leo, txn_from)
        start = psm.load_latest_snapshot(limit, self.log_start_offset)
        self._replay_producer_state(start, leo)

    def _replay_producer_state(self, start: int, end: int) -> None:
        psm = self._producer_state
        rebuild = not self.read_only
        first = self._segment_for(start)
        for seg in self._segments[first:]:
            if seg.base_offset >= end:
                break
            found: list[AbortedTxn] = []
            pos = seg.offset_index.lookup(start).position if start > seg.base_offset else 0
            for headers in self._replay_headers(seg, pos):
                rows = np.nonzero((headers["producer_id"] >= 0) & (headers["magic"] == 2)
                                  & (headers["last_offset"] >= start))[0]
                for i in rows:
                    h = headers[i]
                    infos, done, _ = self._analyze_producers(headers[i : i + 1], None, REPLICATION, seg)
                    for info in infos.values():
                        psm.update(info)
                    for txn in done:
                        if txn.is_aborted:
                            found.append(AbortedTxn(txn.producer_id, txn.first_offset, txn.last_offset,
                                                    psm.last_stable_offset_for(txn)))
                        psm.complete_txn(txn)
                    psm.update_map_end_offset(int(h["last_offset"]) + 1)
            if rebuild:
                seg.txn_index.replace_from(start, found)
            else:
                seg.txn_index.derive_from(start, found)  # in memory: a reader writes nothing
        psm.update_map_end_offset(end)

    def _replay_headers(self, seg: LogSegment, position: int) -> Iterator[np.ndarray]:
        """The batch headers of ``seg`` from ``position``. A reader's view of an audited segment only grows
        after its open, so the headers its open's audit kept serve as far as they reach (the bytes that
        audit just walked are not read again); the rest comes from the file."""
        audit = seg.audit if self.read_only else None
        if audit is None or audit.valid_end > seg.size_in_bytes:
            yield from seg.iter_headers(position)
            return
        h = audit.headers
        if len(h):
            yield h[h["position"] >= position]
        if seg.size_in_bytes > audit.valid_end:
            yield from seg.iter_headers(max(position, audit.valid_end))

    def _analyze_producers(self, headers: np.ndarray, data: Any, origin: str, seg: LogSegment | None = None
                           ) -> tuple[dict[int, ProducerAppendInfo], list[CompletedTxn], BatchMetadata | None]:
        """Validate the producer batches of an append against the producer state (Kafka's
        analyzeAndValidateProducerState). Returns the new per-producer states, the transactions the
        append's markers complete, and the original of a retried batch (then nothing is written).

        ``data`` holds the batches at ``headers["position"]``; without it they are read from ``seg``.
        """
        psm = self._producer_state
        infos: dict[int, ProducerAppendInfo] = {}
        done: list[CompletedTxn] = []
        # plain tuples: a few rows' fields read from Python are several times cheaper than numpy scalars
        for (pos, base, last, _bts, max_ts, pid, size, _ple, first_seq, count, _crc, attrs, epoch, magic,
             _valid) in headers.tolist():
            if pid < 0 or magic != 2:
                continue
            last_seq = -1 if first_seq < 0 else increment_sequence(first_seq, last - base)
            control = bool(attrs & 0x20)
            if origin == CLIENT and not control:
                entry = psm.last_entry(pid)
                dup = entry.find_duplicate(epoch, first_seq, last_seq) if entry is not None else None
                if dup is not None:
                    return infos, done, dup
            info = infos.get(pid)
            if info is None:
                info = infos[pid] = psm.prepare_update(pid, origin)
            if control:
                if count == 0:
                    continue  # an emptied marker: its transaction is gone from the log
                raw = bytes(data[pos : pos + size]) if data is not None else seg.pread(pos, size)  # type: ignore[union-attr]
                marker = next(MemoryRecords(raw).records(check_crc=False, include_control=True), None)
                if marker is None or marker.coordinator_epoch is None:
                    continue  # not a COMMIT/ABORT marker
                txn = info.append_end_txn_marker(
                    marker.control_type == ControlRecordType.ABORT, marker.coordinator_epoch, epoch, base,
                    marker.timestamp if marker.timestamp is not None else -1)
                if txn is not None:
                    done.append(txn)
            else:
                info.append_data_batch(epoch, first_seq, last_seq, max_ts, base, last, bool(attrs & 0x10))
        return infos, done, None

    def _commit_producers(self, infos: dict[int, ProducerAppendInfo], done: list[CompletedTxn]) -> None:
        """After a successful write: the new producer states, and the aborted transactions into the
        transaction index of the segment holding their markers (the active one)."""
        psm = self._producer_state
        for info in infos.values():
            psm.update(info)
        for txn in done:
            self._segments[-1].update_txn_index(txn, psm.last_stable_offset_for(txn))
            psm.complete_txn(txn)
        psm.update_map_end_offset(self._next_offset)

    @property
    def last_stable_offset(self) -> int:
        """The first offset of the oldest open transaction, or the high watermark when none is open.

        read_committed readers see nothing at or after it: the outcome of what lies there is unknown.
        """
        fuo = self._producer_state.first_unstable_offset()
        hw = self.high_watermark
        return hw if fuo is None or fuo >= hw else fuo

    @property
    def producer_state(self) -> ProducerStateManager:
        """Every producer id's state (``producers``), open transactions (``ongoing``) and snapshots."""
        return self._producer_state

    def producer_entry(self, producer_id: int) -> ProducerStateEntry | None:
        """The state of one producer (epoch, last five batches, open transaction), or None."""
        return self._producer_state.last_entry(producer_id)

    def last_records_of_active_producers(self) -> dict[int, tuple[int, int]]:
        """``{producer_id: (last data offset or -1, epoch)}``: the batches compaction must keep."""
        return {pid: (e.last_data_offset, e.producer_epoch) for pid, e in self._producer_state.producers.items()}

    def aborted_transactions(self, start_offset: int, upper_bound: int) -> list[AbortedTxn]:
        """Aborted transactions overlapping ``[start_offset, upper_bound)`` from the transaction
        indexes (Kafka's collectAbortedTransactions: what a read_committed fetch needs). A segment that
        recovery would re-read (see ``_reader_txn_from``) has its entries derived from the batches, as
        a writer's recovery rebuilds them; a read-only open keeps those in memory."""
        e = self._aborted_array(start_offset, upper_bound)
        return [AbortedTxn(int(r["producer_id"]), int(r["first_offset"]), int(r["last_offset"]),
                           int(r["last_stable_offset"]), int(r["version"])) for r in e]

    def _aborted_array(self, start: int, upper: int) -> np.ndarray:
        if self._psm is None and self._reader_txn_from() is not None:
            _ = self._producer_state  # a reader derives the transaction indexes a writer would rebuild
        parts = []
        for seg in self._segments[self._segment_for(start):]:
            hit, complete = seg.txn_index.collect(start, upper)
            if len(hit):
                parts.append(hit)
            if complete:
                break
        return np.concatenate(parts) if parts else np.empty(0, ENTRY_DTYPE)

    def _load_read_only(self, clean_shutdown: bool) -> None:
        """A reader's open, beside a writer that may be swapping or deleting segments right now.

        The listing and the opens are not atomic with the writer's renames, so the load is retried
        when a file vanished or the directory changed meanwhile. A ``.log.swap`` counts as what
        recovery would make of it (replacing the segments it covers), so a reader caught mid-swap sees
        the new state. Leftover temporary files that do not change cost nothing.
        """
        import time as _t

        if storage.is_remote(self.dir):
            self._load(clean_shutdown)  # an object store has no renames to race with: one listing
            return
        for attempt in range(20):
            before = sorted(os.listdir(self.dir))
            try:
                self._load(clean_shutdown)
                if sorted(os.listdir(self.dir)) == before or attempt == 19:
                    return
            except FileNotFoundError:
                if attempt == 19:
                    raise
            for seg in self._segments:
                seg.close_handlers()
            self._segments.clear()
            self._bases.clear()
            _t.sleep(0.002 * (attempt + 1))

    def _add_swapped_segments(self, names: list[str]) -> None:
        """Read-only view of an unfinished swap: the ``.swap`` segments replace what they cover."""
        for n in names:
            if not (n.endswith(_files.LOG + _files.SWAP) and _files.is_offset_name(n)):
                continue
            base = _files.offset_from_name(n)
            seg = LogSegment(self.dir, base, suffix=_files.SWAP, read_only=True,
                             max_index_size=self.config.segment_index_bytes)
            nxt = seg.read_next_offset()
            for i in range(len(self._segments) - 1, -1, -1):
                if base <= self._bases[i] < nxt:
                    self._segments[i].close_handlers()
                    del self._segments[i]
                    del self._bases[i]
            self._add_segment(seg)

    def _resolve_temporary_files(self, names: list[str]) -> list[str]:
        """Finish or roll back an interrupted compaction/split swap.

        As Kafka's ``LogLoader.removeTempFilesAndCollectSwapFiles`` does.
        """
        d = self.dir
        cleaned, swaps = [], []
        for n in names:
            if n.endswith(_files.DELETED) and _files.is_offset_name(n):
                _io.fs.unlink(os.path.join(d, n))
            elif n.endswith(_files.CLEANED) and _files.is_offset_name(n):
                cleaned.append(n)
            elif n.endswith(_files.SWAP) and _files.is_offset_name(n):
                swaps.append(n)
        if cleaned:
            min_cleaned = min(_files.offset_from_name(n) for n in cleaned)
            for n in list(swaps):
                if _files.offset_from_name(n) >= min_cleaned:
                    _io.fs.unlink(os.path.join(d, n))
                    swaps.remove(n)
            for n in cleaned:
                _io.fs.unlink(os.path.join(d, n))
        log_swaps = [n for n in swaps if n.endswith(_files.LOG + _files.SWAP)]
        if log_swaps:
            lo, hi = LONG_MAX, -1
            for n in log_swaps:
                base = _files.offset_from_name(n)
                seg = LogSegment(d, base, suffix=_files.SWAP, read_only=True, open_indexes=False)
                try:
                    nxt = seg.read_next_offset()
                finally:
                    seg.close_handlers()
                lo, hi = min(lo, base), max(hi, nxt)
            for n in os.listdir(d):
                if (_files.is_offset_name(n) and not n.endswith(_files.SWAP)
                        and n.endswith(_files.SEGMENT_SUFFIXES) and lo <= _files.offset_from_name(n) < hi):
                    _io.fs.unlink(os.path.join(d, n))
            for n in swaps:
                _io.fs.rename(os.path.join(d, n), os.path.join(d, n[: -len(_files.SWAP)]))
            _io.fs.fsync_dir(d)
        elif swaps:
            for n in swaps:
                _io.fs.rename(os.path.join(d, n), os.path.join(d, n[: -len(_files.SWAP)]))
            _io.fs.fsync_dir(d)
        if cleaned or swaps:
            _io.fs.fsync_dir(d)
        return sorted(os.listdir(d))

    def _add_segment(self, seg: LogSegment) -> None:
        i = bisect.bisect_left(self._bases, seg.base_offset)
        if i < len(self._bases) and self._bases[i] == seg.base_offset:
            raise KvlogError(f"duplicate segment base offset {seg.base_offset} in {self.dir}")
        self._bases.insert(i, seg.base_offset)
        self._segments.insert(i, seg)
        if i == len(self._segments) - 1 and not self.read_only:
            # a writer's active segment keeps its descriptors (the open-file budget never evicts it)
            if i:
                self._segments[i - 1].pinned = False
            seg.pinned = True

    # ---------------------------------------------------------------------------------- properties
    def __del__(self) -> None:
        # dropped without close(): give back descriptors and the lock (no flush, no writes), as a
        # file object does, so the directory can be opened again
        try:
            if not getattr(self, "_closed", True):
                for seg in self._segments:
                    seg.close_handlers()
                self._release_lock()
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
        return list(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    @property
    def size_in_bytes(self) -> int:
        return sum(s.size_in_bytes for s in self._segments)

    def _check_open(self, writing: bool = False) -> None:
        if self._closed:
            raise KvlogError(f"log {self.dir} is closed")
        if writing and self.read_only:
            raise KvlogError(f"log {self.dir} is open read-only")
        if writing and self._failed is not None:
            raise LogIOError(f"log {self.dir} failed earlier ({self._failed}); reopen it to recover") from None

    def _segment_for(self, offset: int) -> int:
        """Index of the segment holding ``offset`` (floor by base offset), or 0."""
        return max(0, bisect.bisect_right(self._bases, offset) - 1)

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
            return self._append(records, compression, assign_offsets, producer_id, producer_epoch, base_sequence,
                                is_transactional)
        except LogIOError:
            raise
        except OSError as exc:
            self._failed = exc
            raise LogIOError(f"append on log {self.dir} failed: {exc}") from exc

    def _append(self, records: Any, compression: Any, assign_offsets: bool, producer_id: int, producer_epoch: int,
                base_sequence: int, is_transactional: bool) -> AppendInfo:
        if self._closed or self.read_only or self._failed is not None:
            self._check_open(writing=True)
        cfg = self.config
        producer_fields = producer_id != -1 or producer_epoch != -1 or base_sequence != -1 or is_transactional
        if isinstance(records, MemoryRecords):
            data: Any = records.buffer
        elif isinstance(records, (bytes, bytearray, memoryview)):
            data = records
        else:
            codec = compression
            if codec is None:
                codec = "none" if cfg.compression_type == "producer" else cfg.compression_type
            recs = records if type(records) is list else list(records)
            if not recs:
                raise ValueError("nothing to append")
            now = self._time()
            data = None
            if _codec_id(codec) == 0:  # the record-at-a-time path: one kernel call, no columns
                data = _p.encode_records(recs, now, producer_id, producer_epoch, base_sequence, is_transactional)
            if data is None:
                recs = [r if r.timestamp is not None else r._replace(timestamp=now) for r in recs]
                data = encode_batch(recs, compression=codec, producer_id=producer_id, producer_epoch=producer_epoch,
                                    base_sequence=base_sequence, is_transactional=is_transactional)
            producer_fields = False
        if producer_fields:
            raise ValueError("producer_id/producer_epoch/base_sequence/is_transactional apply to Records; "
                             "encoded batches carry their own")
        if assign_offsets:
            info = self._append_point(data, compression)
            if info is not None:
                return info
        headers = MemoryRecords(data).batch_headers(check_crc=True)
        total = int(headers["size"].sum()) if len(headers) else 0
        if not len(headers):
            raise CorruptRecordError("append contains no complete batch", position=0)
        if total != len(data):
            raise CorruptRecordError(
                f"append has {len(data) - total} bytes after its last complete batch", position=total)
        too_big = headers["size"] > cfg.max_message_bytes
        if too_big.any():
            i = int(np.argmax(too_big))
            raise RecordTooLargeError(
                f"batch at position {int(headers['position'][i])} is {int(headers['size'][i])} bytes, "
                f"over max.message.bytes={cfg.max_message_bytes}")
        if total > cfg.segment_bytes:
            raise RecordTooLargeError(f"append of {total} bytes exceeds segment.bytes={cfg.segment_bytes}")
        if assign_offsets:
            return self._append_as_leader(data, headers, compression)
        return self._append_as_replica(data, headers)

    def _append_point(self, data: Any, compression: Any) -> AppendInfo | None:
        """A client's leader append in one kernel call (validate, assign offsets, summarise), then the
        roll check and one write. None when the append needs the general path (legacy input, a codec
        to change, anything invalid: ``_append_as_leader`` raises the precise error), having changed
        nothing."""
        cfg = self.config
        rules = self._rules
        if rules is None or rules.config is not cfg:
            rules = self._rules = _AppendRules.of(cfg)
        want = _codec_id(cfg.compression_type if compression is None else compression)
        now = self._time()
        lat = max(now, self._last_log_append_time) if rules.log_append_time else -1
        buf = bytearray(data)
        out = self._rows
        first = self._next_offset
        got = _p.prepare_append(buf, self._rows_raw, first, lat, cfg.max_message_bytes, want, True,
                                rules.check_timestamps)
        if got[0] == _p.GROW:
            out = np.empty(len(buf) // 61 + 1, dtype=_k.BATCH_DTYPE)
            got = _p.prepare_append(buf, out.view(np.uint8), first, lat, cfg.max_message_bytes, want, True,
                                    rules.check_timestamps)
        status, n, size, nxt, max_ts, off_max, count, has_producer, lo, hi = got
        if status != _p.FOUND or size > cfg.segment_bytes:
            return None
        if rules.check_timestamps and lo <= hi and (now - lo > rules.before_max_ms or hi - now > rules.after_max_ms):
            return None
        if has_producer:
            infos, done, dup = self._analyze_producers(out[:n], buf, CLIENT)
            if dup is not None:
                return AppendInfo(dup.first_offset, dup.last_offset, dup.timestamp, dup.last_offset,
                                  dup.timestamp if lat >= 0 else -1, dup.offset_delta + 1, 0, duplicate=True)
        if lat >= 0:
            self._last_log_append_time = lat
        seg = self._segments[-1]
        used = seg._size
        if (used > cfg.segment_bytes - size or seg.offset_index.is_full() or seg.time_index.is_full()
                or not 0 <= nxt - 1 - seg.base_offset <= INT32_MAX
                or (used > 0 and seg.time_waited_for_roll(now, max_ts) > rules.max_segment_ms - seg.roll_jitter_ms)):
            seg = self._maybe_roll(size, first, nxt - 1, max_ts)  # the same checks, then the roll
        if n == 1:
            seg.append_batch(buf, nxt - 1, max_ts, flush=cfg.fsync_per_append)
        else:
            seg.append(buf, out[:n], flush=cfg.fsync_per_append)
        self._next_offset = nxt
        self._producer_state.update_map_end_offset(nxt)
        if cfg.fsync_per_append:
            self.recovery_point = nxt
            self._write_recovery_point()
        elif (nxt - self.recovery_point >= cfg.flush_messages
              or (cfg.flush_ms < LONG_MAX and self._time() - self._last_flush_ms >= cfg.flush_ms)):
            self.flush()
        if has_producer:
            self._commit_producers(infos, done)
        return AppendInfo(first, nxt - 1, max_ts, off_max, lat, count, size)

    def _append_as_leader(self, data: Any, headers: np.ndarray, compression: Any, origin: str = CLIENT) -> AppendInfo:
        cfg = self.config
        if (headers["magic"] < 2).any():
            data = convert(MemoryRecords(data), 2)
            headers = MemoryRecords(data).batch_headers(check_crc=True)
        if origin == CLIENT and (headers["attributes"] & 0x20).any():
            raise InvalidOffsetError("clients may not append control batches; use end_transaction(), or "
                                     "assign_offsets=False to copy them")
        pids = headers["producer_id"]
        if origin == CLIENT and ((pids >= 0) & (headers["base_sequence"] < 0)).any():
            raise InvalidRecordError("a batch with a producer id must carry a base sequence")
        if (((headers["attributes"] & 0x10) != 0) & ((pids < 0) | (headers["producer_epoch"] < 0))).any():
            raise InvalidRecordError("a transactional batch must carry a producer id and epoch")
        counts = headers["record_count"].astype(np.int64)
        deltas = headers["last_offset"] - headers["base_offset"]
        bad = (counts <= 0) | (deltas + 1 != counts)
        if bad.any():
            i = int(np.argmax(bad))
            raise CorruptRecordError(
                f"batch declares {int(counts[i])} records but spans {int(deltas[i]) + 1} offsets",
                position=int(headers["position"][i]))
        target = cfg.compression_type if compression is None else compression
        if target != "producer":
            want = int(Compression.parse(target))
            if ((headers["attributes"] & 7) != want).any():
                data = _recompress(data, want, cfg.compression_level)
                headers = MemoryRecords(data).batch_headers(check_crc=True)
                counts = headers["record_count"].astype(np.int64)
        ttype = cfg.message_timestamp_type
        now = self._time()
        if ttype == TimestampType.CREATE_TIME:
            self._validate_timestamps(data, headers, now)
            lat = -1
        else:
            lat = max(now, self._last_log_append_time)
        buf = bytearray(data)
        first = self._next_offset
        nxt = _k.assign_offsets(buf, np.ascontiguousarray(headers["position"]), first, lat)
        headers = headers.copy()
        headers["base_offset"] = first + np.concatenate([[0], np.cumsum(counts)[:-1]])
        headers["last_offset"] = headers["base_offset"] + counts - 1
        if lat >= 0:
            headers["max_timestamp"] = lat
            headers["attributes"] |= 0x08
        infos, done, dup = self._analyze_producers(headers, buf, origin)
        if dup is not None:
            return AppendInfo(dup.first_offset, dup.last_offset, dup.timestamp, dup.last_offset,
                              dup.timestamp if lat >= 0 else -1, dup.offset_delta + 1, 0, duplicate=True)
        if lat >= 0:
            self._last_log_append_time = lat
        info = self._store(buf, headers, first, nxt - 1, lat)
        self._commit_producers(infos, done)
        return info

    def _append_as_replica(self, data: Any, headers: np.ndarray) -> AppendInfo:
        firsts = np.where(headers["base_offset"] >= 0, headers["base_offset"], headers["last_offset"])
        lasts = headers["last_offset"]
        if int(firsts[0]) < self._next_offset:
            raise InvalidOffsetError(
                f"first offset {int(firsts[0])} is below the log end offset {self._next_offset}")
        if len(headers) > 1 and (firsts[1:] <= lasts[:-1]).any():
            raise InvalidOffsetError("batch offsets must increase within an append")
        if (lasts < firsts).any():
            raise InvalidOffsetError("a batch's last offset is below its base offset")
        infos, done, _ = self._analyze_producers(headers, data, REPLICATION)
        info = self._store(data, headers, int(firsts[0]), int(lasts[-1]), -1)
        self._commit_producers(infos, done)
        return info

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
        return self._append_as_leader(data, MemoryRecords(data).batch_headers(check_crc=True), "producer",
                                      origin=COORDINATOR)

    def _validate_timestamps(self, data: Any, headers: np.ndarray, now: int) -> None:
        before = self.config.effective_timestamp_before_max_ms
        after = self.config.effective_timestamp_after_max_ms
        if before >= LONG_MAX and after >= LONG_MAX:
            return
        table = MemoryRecords(data).to_arrow(include_headers=False, check_crc=False)
        ts = table.column("timestamp").cast(pa.int64()).to_numpy() // 1000
        ts = ts[ts != -1]
        if not len(ts):
            return
        if before < LONG_MAX and (now - ts > before).any():
            bad = int(ts[now - ts > before][0])
            raise InvalidTimestampError(
                f"timestamp {bad} is {now - bad} ms before the log's time {now}, "
                f"over message.timestamp.before.max.ms={before}")
        if after < LONG_MAX and (ts - now > after).any():
            bad = int(ts[ts - now > after][0])
            raise InvalidTimestampError(
                f"timestamp {bad} is {bad - now} ms after the log's time {now}, "
                f"over message.timestamp.after.max.ms={after}")

    def _store(self, data: Any, headers: np.ndarray, first: int, last: int, lat: int) -> AppendInfo:
        cfg = self.config
        size = len(data)
        max_ts = int(headers["max_timestamp"].max())
        i_max = int(np.argmax(headers["max_timestamp"]))
        seg = self._maybe_roll(size, first, last, max_ts)
        rel = headers.copy()
        rel["position"] -= rel["position"][0]
        seg.append(data, rel, flush=cfg.fsync_per_append)
        self._next_offset = last + 1
        self._producer_state.update_map_end_offset(self._next_offset)
        count = int(np.where(headers["record_count"] >= 0, headers["record_count"], 0).sum())
        if cfg.fsync_per_append:
            self.recovery_point = self._next_offset
            self._write_recovery_point()
        elif (self._next_offset - self.recovery_point >= cfg.flush_messages
              or (cfg.flush_ms < LONG_MAX and self._time() - self._last_flush_ms >= cfg.flush_ms)):
            self.flush()
        return AppendInfo(first, last, max_ts, int(headers["last_offset"][i_max]), lat, count, size)

    # ---------------------------------------------------------------------------------------- roll
    def _maybe_roll(self, size: int, first: int, last: int, max_ts: int) -> LogSegment:
        seg: LogSegment = self._segments[-1]
        cfg = self.config
        now = self._time()
        if (seg.size_in_bytes > cfg.segment_bytes - size
                or (seg.size_in_bytes > 0
                    and seg.time_waited_for_roll(now, max_ts) > cfg.max_segment_ms - seg.roll_jitter_ms)
                or seg.offset_index.is_full() or seg.time_index.is_full()
                or not seg.can_convert_to_relative_offset(last)):
            if seg.size_in_bytes > 0 or seg.base_offset != max(first, self._next_offset):
                return self.roll(max(first, self._next_offset))
        return seg

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
            aborted = self._aborted_array(offset, int(headers["last_offset"][-1]) + 1)
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
        for i in range(self._segment_for(offset), len(segments)):
            got = segments[i].read(offset, max_bytes, None, min_one_batch, stop)
            if got is not None and len(got[1]):
                return MemoryRecords._fetched(got[1], got[2])
            if self.damage:
                offset = self._past_damage(offset, upper)
                if offset >= upper:
                    break
        return MemoryRecords(b"")

    def _damage_at(self, offset: int) -> LogDamage | None:
        for d in self.damage:
            if d.first_offset <= offset < d.end_offset:
                return d
        return None

    def _past_segment_damage(self, seg: LogSegment) -> None:
        for d in self.damage:
            if d.path == seg.log_path:
                self._past_damage(d.first_offset, LONG_MAX)

    def _past_damage(self, offset: int, end: int) -> int:
        """A read at ``offset`` (wanting offsets below ``end``) found no batch where it looked: when damage
        hides ``offset``, raise (``on_damage="raise"``) or warn and return where reading goes on."""
        d = self._damage_at(offset)
        if d is None or offset >= end:
            return offset
        if self.on_damage == "raise":
            raise d.error()
        warnings.warn(DataLossWarning(f"{self.dir}: {d.describe()}"), stacklevel=3)
        return d.end_offset

    def _ranges(self, start: int, end: int) -> Iterator[tuple[LogSegment, int, int]]:
        """(segment, start position, end position) covering offsets [start, end)."""
        i = self._segment_for(start)
        for seg in self._segments[i:]:
            if seg.base_offset >= end:
                return
            first = seg.translate_offset(start)
            if first is not None:
                stop = seg.translate_offset(end) if end < self._next_offset else None
                end_pos = seg.size_in_bytes if stop is None else stop.position
                if stop is not None and stop.base_offset < end:
                    end_pos = stop.position + stop.size  # the batch straddling `end` is read, then filtered
                if end_pos > first.position:
                    yield seg, first.position, end_pos
            if self.damage:
                start = self._past_damage(max(start, seg.read_next_offset()), end)
        if self.damage:
            self._past_damage(start, end)  # damage at the end of the last segment

    def _bounds(self, start: int | None, end: int | None) -> tuple[int, int]:
        """``[start, end)`` clamped to the log (a start below the log start offset reads from it, as a
        consumer resetting to earliest would); a start past the log end offset is out of range, as for
        ``read()``."""
        if start is not None:
            start = _int_arg("start_offset", start)
            if start > self._next_offset:
                raise OffsetOutOfRangeError(
                    f"start offset {start} is past the log end offset {self._next_offset} of {self.dir}",
                    log_start_offset=self.log_start_offset, log_end_offset=self._next_offset)
        if end is not None:
            end = _int_arg("end_offset", end)
        s = self.log_start_offset if start is None else max(start, self.log_start_offset)
        e = self._next_offset if end is None else min(end, self._next_offset)
        return s, e

    def _chunks(self, start: int, end: int, chunk: int, where: list[Any] | None = None) -> Iterator[Any]:
        """The bytes of offsets [start, end) in pieces of about ``chunk`` bytes, cut on batch boundaries
        (the batch straddling ``end`` included, for the caller to filter): a fetch loop over segments.
        ``where`` is set to ``[file, position]`` of the piece being yielded (for errors)."""
        segments = self._segments
        i, offset = self._segment_for(start), start
        stop = end if end < self._next_offset else LONG_MAX
        ahead = -1
        while offset < end and i < len(segments):
            if ahead != i:
                ahead = self._read_ahead(i, offset)
            got = segments[i].read(offset, chunk, None, True, stop)
            if got is None or not len(got[1]) or got[2] < 0:
                if self.damage:
                    offset = self._past_damage(offset, end)
                i += 1
                continue
            if where is not None:
                where[:] = [segments[i].log_path, got[0]]
            yield got[1]
            offset = got[2]

    def _read_ahead(self, i: int, offset: int) -> int:
        """A scan reaches segment ``i`` at ``offset``: the rest of it and the next segment are wanted
        soon. An object store starts fetching them (in parallel, while this one is decoded); a local
        file ignores the hint (the kernel reads ahead). Returns ``i``."""
        segments = self._segments
        if storage.is_remote(self.dir):
            seg = segments[i]
            pos = seg.offset_index.lookup(offset).position if seg.offset_index is not None else 0
            _io.fs.will_need(seg.fileno(), pos, seg.size_in_bytes - pos)
            if i + 1 < len(segments):
                _io.fs.will_need(segments[i + 1].fileno(), 0, segments[i + 1].size_in_bytes)
        return i

    def records(self, start_offset: int | None = None, end_offset: int | None = None, *,
                include_control: bool = False, isolation_level: str = READ_UNCOMMITTED) -> Iterator[Record]:
        """Records with ``start_offset ≤ offset < end_offset`` (default: the whole log).

        ``isolation_level="read_committed"``: only up to the last stable offset, without the records
        of aborted transactions and without control records.
        """
        self._check_open()
        start, end = self._bounds(start_offset, end_offset)
        committed = read_committed(isolation_level)
        extra: dict[str, Any] = {"include_control": include_control}
        if committed:
            end = min(end, self.last_stable_offset)
            extra = {"isolation_level": READ_COMMITTED, "aborted_transactions": self._aborted_array(start, end)}
        where: list[Any] = []
        try:
            yield from self._records_in(start, end, where, extra)
        except CorruptRecordError as exc:
            raise _located(exc, where) from None

    def _records_in(self, start: int, end: int, where: list[Any], extra: dict[str, Any]) -> Iterator[Record]:
        for data in self._chunks(start, end, 4 << 20, where):
            for rec in MemoryRecords(data).records(**extra):
                if rec.offset >= end:
                    return
                if rec.offset >= start:
                    yield rec

    def to_arrow(self, start_offset: int | None = None, end_offset: int | None = None, *,
                 include_headers: bool = True, check_crc: bool = True,
                 isolation_level: str = READ_UNCOMMITTED) -> pa.Table:
        """Records with ``start_offset ≤ offset < end_offset`` as an Arrow table (Kafka-source columns).

        ``isolation_level="read_committed"`` (Kafka's consumer setting): the table stops at the last
        stable offset and leaves out aborted transactions (from the transaction indexes) and control
        records; the choice is made per batch on header columns, so it costs little over a plain read.
        """
        self._check_open()
        start, end = self._bounds(start_offset, end_offset)
        extra: dict[str, Any] = {}
        if read_committed(isolation_level):
            end = min(end, self.last_stable_offset)
            extra = {"isolation_level": READ_COMMITTED, "aborted_transactions": self._aborted_array(start, end)}
        tables = []
        where: list[Any] = []
        try:
            for data in self._chunks(start, end, 64 << 20, where):
                t = MemoryRecords(data).to_arrow(include_headers=include_headers, check_crc=check_crc, **extra)
                off = t.column("offset")
                if len(t) and (pc.min(off).as_py() < start or pc.max(off).as_py() >= end):
                    t = t.filter(pc.and_(pc.greater_equal(off, start), pc.less(off, end)))
                tables.append(t)
        except CorruptRecordError as exc:
            raise _located(exc, where) from None
        if not tables:
            return pa.Table.from_batches([], schema=record_schema(include_headers))  # (empty_table imports pandas)
        return pa.concat_tables(tables)

    # ------------------------------------------------------------------------------ time search
    def offset_for_timestamp(self, timestamp: int) -> OffsetAndTimestamp | None:
        """The earliest offset whose record timestamp is ≥ ``timestamp`` (KIP-79 / KIP-33).

        Special targets: ``LATEST`` (-1) → the log end offset, ``EARLIEST`` (-2) → the log start
        offset, ``MAX_TIMESTAMP`` (-3) → the first record carrying the largest timestamp.
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
                return self._max_timestamp_offset()
            raise InvalidTimestampError(f"invalid target timestamp {timestamp}")
        start = self.log_start_offset
        for seg in self._segments:
            largest = seg._max_ts  # the segment's max timestamp once known (skips the property chain)
            if seg._size == 0 or (largest.timestamp if largest is not None else seg.max_timestamp) < timestamp:
                if self.damage:  # the damaged bytes may hold the answer
                    self._past_segment_damage(seg)
                continue
            found = seg.find_offset_by_timestamp(timestamp, start)
            if found is not None:
                return _new_offset_and_timestamp(OffsetAndTimestamp, found)
            if self.damage:
                self._past_segment_damage(seg)
        return None

    def _max_timestamp_offset(self) -> OffsetAndTimestamp | None:
        for d in self.damage:  # the damaged bytes may hold the largest timestamp
            self._past_damage(d.first_offset, LONG_MAX)
        best: LogSegment | None = None
        for seg in self._segments:
            if seg.size_in_bytes and (best is None or seg.max_timestamp > best.max_timestamp):
                best = seg
        if best is None or best.max_timestamp < 0:
            return None
        target = best.max_timestamp
        found = best.find_offset_by_timestamp(target, self.log_start_offset)
        return OffsetAndTimestamp(*found) if found else None

    # ------------------------------------------------------------------------ flush / checkpoints
    @_io_guard
    def flush(self, offset: int | None = None) -> None:
        """fsync everything below ``offset`` (default: the log end offset) and checkpoint it."""
        self._check_open(writing=True)
        upto = self._next_offset if offset is None else min(offset, self._next_offset)
        if upto <= self.recovery_point:
            return
        i = self._segment_for(self.recovery_point)
        for seg in self._segments[i:]:
            if seg.base_offset >= upto and seg is not self._segments[-1]:
                break
            seg.flush()
        _io.fs.fsync_dir(self.dir)
        self.recovery_point = upto
        self._last_flush_ms = self._time()
        self._write_recovery_point()
        self._delete_old_snapshots()

    def _delete_old_snapshots(self) -> None:
        """After a recovery-point checkpoint: keep snapshots from the segment before the recovery
        point and from the last two segments on (Kafka's deleteSnapshotsAfterRecoveryPointCheckpoint)."""
        def lower_base(offset: int) -> int | None:
            i = bisect.bisect_left(self._bases, offset) - 1
            return self._bases[i] if i >= 0 else None

        active = self._bases[-1]
        two = lower_base(active)
        rp = lower_base(self.recovery_point)
        keep_from = min(rp if rp is not None else self.recovery_point, two if two is not None else active)
        if self._producer_state.delete_snapshots(lambda o: o >= keep_from):
            _io.fs.fsync_dir(self.dir)

    def _write_recovery_point(self) -> None:
        self._checkpoints.write(self.topic, self.partition, recovery_point=self.recovery_point,
                                log_start_offset=self.log_start_offset)
        if self.partition >= 0:  # in a directory a sink governs, what is flushed becomes visible to readers
            committed_offsets.commit_partition(os.path.dirname(self.dir), self.topic, self.partition,
                                               self.log_start_offset, self.recovery_point)

    # --------------------------------------------------------------------------------- retention
    @_io_guard
    def delete_old_segments(self, now_ms: int | None = None) -> int:
        """Apply retention: log start offset always; time and size when cleanup.policy has delete.

        Returns the number of segments deleted. A segment's age is its verified max record timestamp
        (recomputed from CRC-checked batch headers before deleting, never taken from an index alone).
        """
        self._check_open(writing=True)
        now = self._time() if now_ms is None else now_ms
        deleted = self._delete_while(lambda seg, nxt: nxt is not None and nxt.base_offset <= self.log_start_offset)
        if self.config.delete:
            rb = self.config.retention_bytes
            if rb >= 0:
                excess = [self.size_in_bytes - rb]

                def over_size(seg: LogSegment, nxt: LogSegment | None) -> bool:
                    if excess[0] - seg.size_in_bytes >= 0:
                        excess[0] -= seg.size_in_bytes
                        return True
                    return False

                deleted += self._delete_while(over_size)
            rms = self.config.retention_ms
            if rms >= 0:
                def expired(seg: LogSegment, nxt: LogSegment | None) -> bool:
                    if seg.size_in_bytes == 0:
                        return False
                    if now - seg.largest_timestamp <= rms:
                        return False
                    verified = seg.verified_max_timestamp()  # KAFKA-10207: never trust the index alone
                    largest = verified if verified >= 0 else seg.largest_timestamp
                    return now - largest > rms

                deleted += self._delete_while(expired)
        return deleted

    def _delete_while(self, predicate: Callable[[LogSegment, LogSegment | None], bool]) -> int:
        doomed = []
        for i, seg in enumerate(self._segments):
            nxt = self._segments[i + 1] if i + 1 < len(self._segments) else None
            upper = nxt.base_offset if nxt is not None else self._next_offset
            if upper > self.high_watermark or (nxt is None and seg.size_in_bytes == 0):
                break
            if not predicate(seg, nxt):
                break
            doomed.append(seg)
        if not doomed:
            return 0
        if len(doomed) == len(self._segments):
            self.roll()  # keep an (empty) active segment
        for seg in doomed:
            seg.close_handlers()
            seg.change_suffix("", _files.DELETED)
            self._segments.remove(seg)
            self._bases.remove(seg.base_offset)
        self.log_start_offset = max(self.log_start_offset, self._segments[0].base_offset)
        self.recovery_point = max(self.recovery_point, self.log_start_offset)
        self._write_recovery_point()
        for seg in doomed:
            seg.delete()
        gone = {seg.base_offset for seg in doomed}  # their snapshots go with them (Kafka)
        self._producer_state.delete_snapshots(lambda o: o not in gone)
        _io.fs.fsync_dir(self.dir)
        return len(doomed)

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
            self._delete_while(lambda seg, nxt: nxt is not None and nxt.base_offset <= self.log_start_offset)
        return self.log_start_offset

    # -------------------------------------------------------------------------------- truncation
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
        while len(self._segments) > 1 and self._segments[-1].base_offset > offset:
            seg = self._segments.pop()
            self._bases.pop()
            seg.delete()
        active = self._segments[-1]
        active.pinned = True
        active.truncate_to(offset)
        self._next_offset = active.read_next_offset()
        # producer state: snapshots past the new end are stale; reload from the latest one before it
        leo = self._next_offset
        psm = self._producer_state
        psm.delete_snapshots(lambda o: o <= leo)
        _io.fs.fsync_dir(self.dir)
        if psm.last_map_offset != leo:
            self._replay_producer_state(psm.load_latest_snapshot(leo, self.log_start_offset), leo)
        self.log_start_offset = min(self.log_start_offset, offset)
        self.recovery_point = min(self.recovery_point, self._next_offset)
        self._write_recovery_point()
        return True

    @_io_guard
    def truncate_fully_and_start_at(self, new_offset: int) -> None:
        """Drop every segment and start empty at ``new_offset``."""
        self._check_open(writing=True)
        old = list(self._segments)
        self._segments.clear()
        self._bases.clear()
        for seg in old:
            seg.delete()
        self._producer_state.truncate_fully_and_start_at(new_offset)
        self._add_segment(self._new_segment(new_offset))
        _io.fs.fsync_dir(self.dir)
        self._next_offset = new_offset
        self.log_start_offset = new_offset
        self.recovery_point = new_offset
        self._write_recovery_point()

    # ------------------------------------------------------------------------- segment replacement
    def new_cleaned_segment(self, base_offset: int) -> LogSegment:
        """A fresh ``.cleaned`` segment for the cleaner (not part of the log until ``replace_segments``)."""
        self._check_open(writing=True)
        for suffix in (_files.LOG, _files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX):
            stale = _files.segment_path(self.dir, base_offset, suffix + _files.CLEANED)
            if os.path.exists(stale):
                _io.fs.unlink(stale)
        return self._new_segment(base_offset, suffix=_files.CLEANED)

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
            self._swap(new, old)
        except BaseException:
            # the files on disk are resolvable (Log.open completes or rolls back the swap), but this
            # object's view of them is not: close it so the next open recovers
            for seg in self._segments + new + old:
                seg.close_handlers()
            self._closed = True
            self._release_lock()
            raise

    def _swap(self, new: list[LogSegment], old: list[LogSegment]) -> None:
        for seg in sorted(new, key=lambda s: -s.base_offset):
            seg.change_suffix(_files.CLEANED, _files.SWAP)
        _io.fs.fsync_dir(self.dir)
        for seg in old:
            seg.close_handlers()
            seg.change_suffix(seg.suffix, _files.DELETED)
            i = self._segments.index(seg)
            del self._segments[i]
            del self._bases[i]
        _io.fs.fsync_dir(self.dir)
        for seg in new:
            seg.change_suffix(_files.SWAP, "")
            self._add_segment(seg)
        _io.fs.fsync_dir(self.dir)
        for seg in old:
            for path in seg.paths():
                try:
                    _io.fs.unlink(path)
                except FileNotFoundError:
                    pass
        # snapshots named after segments that no longer start one (Kafka deletes them with those)
        gone = {s.base_offset for s in old} - {s.base_offset for s in new}
        self._producer_state.delete_snapshots(lambda o: o not in gone)
        _io.fs.fsync_dir(self.dir)

    # ------------------------------------------------------------------------------------- close
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
            self._release_lock()

    def delete(self) -> None:
        """Close and remove the whole log directory and its checkpoint entries."""
        self._check_open(writing=True)
        for seg in self._segments:
            seg.delete()
        self._segments.clear()
        self._closed = True
        for name in os.listdir(self.dir):
            _io.fs.unlink(os.path.join(self.dir, name))
        self._release_lock()
        _io.fs.rmdir(self.dir)
        _io.fs.fsync_dir(os.path.dirname(self.dir))
        self._checkpoints.remove(self.topic, self.partition)


def _recompress(data: Any, codec: int, level: int | None = None) -> bytes:
    """Rebuild every batch with ``codec`` (compression.type other than 'producer'), keeping its fields."""
    parts = []
    for b in MemoryRecords(data).batches():
        if b.compression == codec:
            parts.append(bytes(b.buffer()))
            continue
        recs = list(b.records())
        hdrs = [r.headers for r in recs]
        parts.append(encode_arrays(
            [r.key for r in recs], [r.value for r in recs], [r.timestamp for r in recs],
            headers=hdrs if any(hdrs) else None, offsets=[r.offset for r in recs], base_offset=b.base_offset,
            compression=codec, timestamp_type=b.timestamp_type, log_append_time=b.max_timestamp,
            producer_id=b.producer_id, producer_epoch=b.producer_epoch, base_sequence=b.base_sequence,
            partition_leader_epoch=b.partition_leader_epoch, is_transactional=b.is_transactional,
            records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1, compression_level=level))
    return b"".join(parts)


class _RootCheckpoints:
    """The data directory's recovery-point and log-start-offset checkpoint files (Kafka's layout)."""

    def __init__(self, root: str):
        self.root = root

    def read(self, topic: str, partition: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, key in ((checkpoint.RECOVERY_POINT, "recovery_point"),
                          (checkpoint.LOG_START_OFFSET, "log_start_offset"),
                          (checkpoint.REPLICATION_OFFSET, "high_watermark")):
            try:
                table = checkpoint.read_offsets(os.path.join(self.root, name))
            except checkpoint.CorruptCheckpointError:
                table = {}  # Kafka's fallback: full recovery
            if (topic, partition) in table:
                out[key] = table[(topic, partition)]
        return out

    def write(self, topic: str, partition: int, *, recovery_point: int, log_start_offset: int) -> None:
        lock = _RootLock(self.root)
        with lock:
            checkpoint.update_offsets(os.path.join(self.root, checkpoint.RECOVERY_POINT),
                                      {(topic, partition): recovery_point})
            checkpoint.update_offsets(os.path.join(self.root, checkpoint.LOG_START_OFFSET),
                                      {(topic, partition): log_start_offset})

    def remove(self, topic: str, partition: int) -> None:
        with _RootLock(self.root):
            for name in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.CLEANER_OFFSET):
                path = os.path.join(self.root, name)
                if _io.fs.exists(path):
                    checkpoint.update_offsets(path, {(topic, partition): None})


class _RootLock:
    """Serialises read-modify-write of the root checkpoint files between logs and processes."""

    def __init__(self, root: str):
        self.path = os.path.join(root, ".kvlog-checkpoints.lock")
        self.fd = -1

    def __enter__(self) -> "_RootLock":
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                          0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)

