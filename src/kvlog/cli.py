"""The ``kvlog`` command line: ``dump | verify | repair | offsets | retention | compact | mirror | groups | demo``.

``kvlog dump`` prints what Kafka's ``kafka-dump-log.sh`` (``DumpLogSegments``, 4.0) prints, line for line,
so its output can be diffed against the broker tool's; every other command is kvlog's own. Exit status:
0 on success, 1 when a check fails (``verify`` problems, ``dump`` index mismatches or damaged files) or an
operation fails, 2 on usage errors. Expected errors are reported as ``kvlog: <message>`` on stderr.

``verify``, ``offsets`` and ``retention --dry-run`` open logs read-only and never write anything.
``retention`` and ``compact`` take each topic's config from the broker's KRaft metadata, then kvlog's topic
table, then Kafka's defaults (:mod:`kvlog.topic_configs`), print the deciding values and their sources, and
leave Kafka's internal topics alone unless ``--force-internal`` (``__cluster_metadata`` always).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import struct
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from kvlog import _files, _io, checkpoint, cli_groups, storage
from kvlog.batch_audit import REPAIRABLE, ProducerLast, audit_segment, dense_history, snapshot_producers
from kvlog.repair import REPAIRED, repair_partition
from kvlog.compression import Compression, decompress
from kvlog.config import LogConfig
from kvlog.errors import ConfigError, CorruptRecordError, DirectoryNotFoundError, KvlogError, redact
from kvlog.index import OffsetIndex, TimeIndex
from kvlog.internal_topics.dump_format import Parser
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP, Log
from kvlog.manager import LogManager
from kvlog.records import ControlRecordType, MemoryRecords, Record, RecordBatch
from kvlog.segment import LogSegment
from kvlog.topic_configs import ResolvedConfig, TopicConfigs, maintenance_refusal

__all__ = ["build_parser", "main", "parse_timestamp", "verify_partition", "verify_path"]

INT32_MAX = 2**31 - 1
DUMP_CHUNK = 8 << 20
DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024
MAX_REPORTED = 20  # problems of one kind reported per file before summarising


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun}es" if noun.endswith("ch") else f"{n} {noun}s"


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")


# ================================================================================================ dump
@dataclass
class _DumpState:
    """What DumpLogSegments collects while dumping and prints on stderr at the end."""

    index_mismatches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    ts_mismatches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    ts_out_of_order: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    ts_not_found: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    non_consecutive: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    failed: bool = False


def _open_read(path: str) -> int:
    """A descriptor to read ``path``: a local file as named (a symlink is followed, as Kafka's tool
    does), an object of a remote URI through kvlog's storage seam."""
    if storage.is_remote(path):
        return _io.fs.open(storage.normalize(path), os.O_RDONLY)
    return os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))


def _base_offset_of(path: str) -> int:
    head = os.path.basename(path).split(".")[0]
    try:
        return int(head)
    except ValueError:
        raise KvlogError(f"cannot read a base offset from the file name {os.path.basename(path)!r}") from None


def _iter_file_batches(fd: int, limit: int, start: int = 0, chunk: int = DUMP_CHUNK,
                       path: str | None = None) -> Iterator[tuple[int, RecordBatch]]:
    """``(position, batch)`` for the batches in ``[start, limit)`` of a file, read a chunk at a time.

    Stops silently at a trailing partial batch (Kafka's file iterator does); raises
    ``CorruptRecordError`` (positioned in the file) at structural damage.
    """
    pos = start
    while pos < limit:
        want = min(chunk, limit - pos)
        data = _io.fs.pread(fd, want, pos)
        if not data:
            return
        consumed = 0
        try:
            for b in MemoryRecords(data).batches():
                yield pos + b.position, b
                consumed = b.position + b.size_in_bytes
        except CorruptRecordError as exc:
            raise exc.with_context(file=path, base_position=pos) from None
        if consumed:
            pos += consumed
            continue
        if len(data) >= limit - pos:
            return  # what is left is an incomplete batch
        head = _io.fs.pread(fd, 12, pos)
        need = 12 + int.from_bytes(head[8:12], "big", signed=True) if len(head) == 12 else 0
        if need <= len(data) or pos + need > limit:
            return
        # one batch larger than the chunk: read it whole
        data = _io.fs.pread(fd, need, pos)
        try:
            for b in MemoryRecords(data).batches():
                yield pos + b.position, b
                consumed = b.position + b.size_in_bytes
        except CorruptRecordError as exc:
            raise exc.with_context(file=path, base_position=pos) from None
        if not consumed:
            return
        pos += consumed


def _inc_sequence(seq: int, inc: int) -> int:
    """Kafka's DefaultRecordBatch.incrementSequence (wraps past Integer.MAX_VALUE to 0)."""
    if seq > INT32_MAX - inc:
        return inc - (INT32_MAX - seq) - 1
    return seq + inc


def _bool(v: bool) -> str:
    return "true" if v else "false"


def _codec_name(batch: RecordBatch) -> str:
    try:
        return Compression(batch.attributes & 7).kafka_name
    except ValueError:
        return f"unknown({batch.attributes & 7})"


def _batch_line(b: RecordBatch, position: int) -> str:
    tail = (f" position: {position} {b.timestamp_type.kafka_name}: {b.max_timestamp} size: {b.size_in_bytes}"
            f" magic: {b.magic} compresscodec: {_codec_name(b)} crc: {b.crc} isvalid: {_bool(b.is_valid())}")
    if b.magic < 2:
        return f"offset: {b.last_offset}{tail}"
    base = b.base_offset
    bs = b.base_sequence
    last_seq = -1 if bs == -1 else _inc_sequence(bs, b.last_offset - base)
    dh = b.delete_horizon_ms
    horizon = "OptionalLong.empty" if dh is None else f"OptionalLong[{dh}]"
    return (f"baseOffset: {base} lastOffset: {b.last_offset} count: {b.record_count} baseSequence: {bs} "
            f"lastSequence: {last_seq} producerId: {b.producer_id} producerEpoch: {b.producer_epoch} "
            f"partitionLeaderEpoch: {b.partition_leader_epoch} isTransactional: {_bool(b.is_transactional)} "
            f"isControl: {_bool(b.is_control)} deleteHorizonMs: {horizon}{tail}")


def _legacy_inner_checks(b: RecordBatch) -> list[tuple[int, bool]]:
    """``(crc, isValid)`` of each message of a legacy entry: itself, or a compressed wrapper's inner ones."""
    if b.compression == Compression.NONE:
        return [(b.crc, b.is_valid())]
    buf = bytes(b.buffer())
    at = 12 + (6 if b.magic == 0 else 14)
    klen = int.from_bytes(buf[at:at + 4], "big", signed=True)
    at += 4 + max(klen, 0)
    vlen = int.from_bytes(buf[at:at + 4], "big", signed=True)
    at += 4
    inner = decompress(b.compression, buf[at:at + max(vlen, 0)], b.magic)
    return [(m.crc, m.is_valid()) for m in MemoryRecords(inner).batches()]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _record_line(b: RecordBatch, rec: Record, legacy: tuple[int, bool] | None, *, print_data: bool,
                 skip_metadata: bool, parser: Parser | None = None) -> str:
    prefix = "| "
    line = ""
    if not skip_metadata:
        ks = len(rec.key) if rec.key is not None else -1
        vs = len(rec.value) if rec.value is not None else -1
        line = (f"{prefix}offset: {rec.offset} {b.timestamp_type.kafka_name}: {rec.timestamp} "
                f"keySize: {ks} valueSize: {vs}")
        prefix = " "
        if b.magic >= 2:
            bs = b.base_sequence
            seq = _inc_sequence(bs, rec.offset - b.base_offset) if bs >= 0 else -1
            line += f" sequence: {seq} headerKeys: [{','.join(k for k, _ in rec.headers)}]"
        if legacy is not None:
            line += f" isValid: {_bool(legacy[1])} crc: {legacy[0]}}}"
        if b.is_control:
            key = rec.key or b""
            type_id = int.from_bytes(key[2:4], "big", signed=True) if len(key) >= 4 else -1
            ctype = rec.control_type
            if ctype in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
                epoch = rec.coordinator_epoch
                line += f" endTxnMarker: {ctype.name} coordinatorEpoch: {epoch if epoch is not None else -1}"
            else:
                line += f" controlType: {ctype.name}({type_id})"
    if print_data and not b.is_control:
        key_text, value_text = parser(rec) if parser is not None else (
            None if rec.key is None else _text(rec.key), None if rec.value is None else _text(rec.value))
        if key_text is not None:
            line += f"{prefix}key: {key_text}"
            prefix = " "
        if value_text is not None:
            line += f" payload: {value_text}"
    return line


def _dump_log(path: str, state: _DumpState, *, deep: bool, print_data: bool, skip_metadata: bool,
              max_bytes: int, parser: Parser | None = None) -> None:
    name = os.path.basename(path)
    if name.endswith(_files.LOG):
        _out(f"Log starting offset: {_base_offset_of(path)}")
    elif name == "bootstrap.checkpoint":
        _out("KRaft bootstrap snapshot")
    else:
        m = re.fullmatch(r"(\d+)-(\d+)\.checkpoint", name)
        if m is None:
            raise KvlogError(f"cannot read a snapshot id from the file name {name!r}")
        _out(f"Snapshot end offset: {int(m.group(1))}, epoch: {int(m.group(2))}")
    fd = _open_read(path)
    try:
        limit = min(_io.fs.size(fd), max_bytes)
        valid = 0
        last_offset = -1
        pairs = state.non_consecutive
        key = storage.normalize(path)
        try:
            for _, b in _iter_file_batches(fd, limit, path=path):
                _out(_batch_line(b, valid))
                if deep:
                    try:
                        recs = list(b.records())
                        checks = _legacy_inner_checks(b) if b.magic < 2 else None
                    except KvlogError as exc:
                        _err(f"kvlog: {path}: batch at position {valid}: {exc}")
                        state.failed = True
                        recs, checks = [], None
                    for i, rec in enumerate(recs):
                        if last_offset != -1 and rec.offset != last_offset + 1:
                            pairs.setdefault(key, []).append((last_offset, rec.offset))
                        last_offset = rec.offset
                        legacy = None
                        if checks is not None:
                            legacy = checks[i] if i < len(checks) else (0, False)
                        _out(_record_line(b, rec, legacy, print_data=print_data, skip_metadata=skip_metadata,
                                          parser=parser))
                valid += b.size_in_bytes
        except CorruptRecordError as exc:
            _err(f"kvlog: {exc}")
            state.failed = True
            return
        trailing = limit - valid
        if trailing > 0 and max_bytes == INT32_MAX:
            _out(f"Found {trailing} invalid bytes at the end of {name}")
    finally:
        _io.fs.close(fd)


def _first_batch_last_offset(fd: int, size: int, position: int, max_message_size: int) -> int:
    """Last offset of the batch starting at ``position`` if it fits ``max_message_size`` bytes, else -1."""
    end = min(size, position + max_message_size)
    head = _io.fs.pread(fd, 12, position) if position + 12 <= end else b""
    if len(head) < 12:
        return -1
    need = 12 + int.from_bytes(head[8:12], "big", signed=True)
    if need < 12 or position + need > end:
        return -1
    try:
        for b in MemoryRecords(_io.fs.pread(fd, need, position)).batches():
            return b.last_offset
    except CorruptRecordError:
        return -1
    return -1


_OFFSET_ENTRY = np.dtype([("rel", ">i4"), ("position", ">i4")])
_TIME_ENTRY = np.dtype([("timestamp", ">i8"), ("rel", ">i4")])


def _read_entries(path: str, dtype: np.dtype) -> tuple[np.ndarray, int]:
    """Every entry Kafka would believe (``file length // entry size``) and the file length.

    Read with plain reads, never mapped: a broker or kvlog writer may trim the file of an active segment
    at any moment, and a mapped page past the new end would kill this read-only tool with SIGBUS.
    """
    data = _io.fs.read_file(path)
    whole = len(data) - len(data) % dtype.itemsize
    return np.frombuffer(data[:whole], dtype=dtype), len(data)


def read_offset_index(path: str, base: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(offsets, positions, file length)`` of every entry of a ``.index`` file (int64 arrays)."""
    raw, length = _read_entries(path, _OFFSET_ENTRY)
    return base + raw["rel"].astype(np.int64), raw["position"].astype(np.int64), length


def read_time_index(path: str, base: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(timestamps, offsets, file length)`` of every entry of a ``.timeindex`` file (int64 arrays)."""
    raw, length = _read_entries(path, _TIME_ENTRY)
    return raw["timestamp"].astype(np.int64), base + raw["rel"].astype(np.int64), length


def _index_cut(offsets: np.ndarray, base: int) -> int:
    """DumpLogSegments' end of an index: the first entry after the first one that holds the base offset."""
    hits = np.flatnonzero(offsets[1:] == base)
    return int(hits[0]) + 1 if len(hits) else len(offsets)


def _dump_index(path: str, state: _DumpState, *, sanity_only: bool, verify_only: bool,
                max_message_size: int) -> None:
    base = _base_offset_of(path)
    prefix = os.path.basename(path).split(".")[0]
    fd = _open_read(os.path.join(os.path.dirname(storage.normalize(path)), prefix + _files.LOG))
    try:
        offsets, positions, length = read_offset_index(path, base)
        if sanity_only and length:
            # before the emptiness test: a file shorter than one entry is corrupt, not empty (Kafka's tool
            # says "is empty" here; the broker's own check, run on load, rejects the file)
            with OffsetIndex(path, base, writable=False, trust_tail=True) as index:
                index.sanity_check()
            _out(f"{path} passed sanity check.")
            return
        if len(offsets) == 0:
            _out(f"{path} is empty.")
            return
        size = _io.fs.size(fd)
        key = storage.normalize(path)
        for i, (off, pos) in enumerate(zip(offsets.tolist(), positions.tolist())):
            if off == base and i > 0:
                return  # the zero-filled (preallocated) tail
            last = _first_batch_last_offset(fd, size, pos, max_message_size)
            if last != off:
                state.index_mismatches.setdefault(key, []).append((off, last))
            if not verify_only:
                _out(f"offset: {off} position: {pos}")
    finally:
        _io.fs.close(fd)


def _batch_at_or_after(fd: int, size: int, position: int, offset: int) -> RecordBatch | None:
    """The first batch from ``position`` on whose last offset is ≥ ``offset``."""
    for _, b in _iter_file_batches(fd, size, position, chunk=64 << 10):
        if b.last_offset >= offset:
            return b
    return None


def _dump_time_index(path: str, state: _DumpState, *, sanity_only: bool, verify_only: bool) -> None:
    base = _base_offset_of(path)
    prefix = os.path.basename(path).split(".")[0]
    directory = os.path.dirname(storage.normalize(path))
    fd = _open_read(os.path.join(directory, prefix + _files.LOG))
    try:
        if sanity_only:
            with TimeIndex(path, base, writable=False, trust_tail=True) as index:
                index.sanity_check()
            _out(f"{path} passed sanity check.")
            return
        index_path = os.path.join(directory, prefix + _files.INDEX)
        if _io.fs.exists(index_path):
            hint_offsets, hint_positions, _ = read_offset_index(index_path, base)
            cut = _index_cut(hint_offsets, base)
            hint_offsets, hint_positions = hint_offsets[:cut], hint_positions[:cut]
        else:
            hint_offsets = hint_positions = np.empty(0, np.int64)
        stamps, offsets, _ = read_time_index(path, base)
        size = _io.fs.size(fd)
        key = storage.normalize(path)
        prev = -1
        for i, (ts, off) in enumerate(zip(stamps.tolist(), offsets.tolist())):
            if off == base and i > 0:
                return
            slot = int(np.searchsorted(hint_offsets, off, side="right")) - 1  # the offset index lookup
            position = int(hint_positions[slot]) if slot >= 0 else 0
            batch = _batch_at_or_after(fd, size, position, off)
            if batch is None:
                state.ts_not_found.setdefault(key, []).append((off, -1))
            elif batch.last_offset != off:
                state.ts_not_found.setdefault(key, []).append((off, batch.last_offset))
            else:
                max_ts = -1
                for rec in batch.records():
                    if rec.timestamp is not None and rec.timestamp > max_ts:
                        max_ts = rec.timestamp
                if max_ts != ts:
                    state.ts_mismatches.setdefault(key, []).append((ts, max_ts))
                if prev >= ts:
                    state.ts_out_of_order.setdefault(key, []).append((ts, prev))
            if not verify_only:
                _out(f"timestamp: {ts} offset: {off}")
            prev = ts
    finally:
        _io.fs.close(fd)


def _dump_txn_index(path: str, state: _DumpState) -> None:
    data = _io.fs.read_file(path)
    whole = len(data) - len(data) % 34
    for _, pid, first, last, lso in struct.iter_unpack(">hqqqq", data[:whole]):
        version = struct.unpack_from(">b", data, 0)[0]  # AbortedTxn.version() reads the first byte only
        _out(f"version: {version} producerId: {pid} firstOffset: {first} lastOffset: {last} "
             f"lastStableOffset: {lso}")
    if whole != len(data):
        _err(f"kvlog: {path}: {len(data) - whole} bytes after the last 34-byte aborted-transaction entry")
        state.failed = True


def _dump_producer_snapshot(path: str, state: _DumpState) -> None:
    """DumpLogSegments.dumpProducerIdSnapshot: one line per producer, its last batch when it has one."""
    from kvlog.producer_state import read_snapshot

    data = _io.fs.read_file(path)
    try:
        entries = read_snapshot(data, path)
    except KvlogError as exc:
        _err(str(exc))
        state.failed = True
        return
    for e in entries:
        txn = f"OptionalLong[{e.current_txn_first_offset}]" if e.current_txn_first_offset >= 0 else "OptionalLong.empty"
        line = (f"producerId: {e.producer_id} producerEpoch: {e.producer_epoch} coordinatorEpoch: "
                f"{e.coordinator_epoch} currentTxnFirstOffset: {txn} lastTimestamp: {e.last_timestamp} ")
        if e.batches:
            b = e.batches[0]
            line += (f"firstSequence: {b.first_seq} lastSequence: {b.last_seq} lastOffset: {b.last_offset} "
                     f"offsetDelta: {b.offset_delta} timestamp: {b.timestamp}")
        _out(line)


def cmd_dump(args: argparse.Namespace) -> int:
    state = _DumpState()
    parser = cli_groups.dump_parser(args)
    print_data = args.print_data_log or parser is not None  # a decoder implies --print-data-log
    deep = args.deep_iteration or print_data
    for path in args.files.split(","):
        if not path:
            continue
        if storage.is_remote(path):
            path = storage.normalize(path)  # the object's name without the query or credentials
        try:
            present = _io.fs.exists(path) and not _io.fs.isdir(path)
        except (KvlogError, OSError) as exc:
            _err(f"kvlog: {path}: {exc}")
            state.failed = True
            continue
        if not present:  # only the error: no "Dumping" header for a file that is not there
            _err(f"kvlog: {path}: no such file")
            state.failed = True
            continue
        _out(f"Dumping {path}")
        name = os.path.basename(path)
        suffix = name[name.rfind("."):] if "." in name else ""
        try:
            if suffix in (_files.LOG, ".checkpoint"):
                _dump_log(path, state, deep=deep, print_data=print_data,
                          skip_metadata=args.skip_record_metadata, max_bytes=args.max_bytes, parser=parser)
            elif suffix == _files.INDEX:
                _dump_index(path, state, sanity_only=args.index_sanity_check,
                            verify_only=args.verify_index_only, max_message_size=args.max_message_size)
            elif suffix == _files.TIME_INDEX:
                _dump_time_index(path, state, sanity_only=args.index_sanity_check,
                                 verify_only=args.verify_index_only)
            elif suffix == _files.TXN_INDEX:
                _dump_txn_index(path, state)
            elif suffix == _files.SNAPSHOT:
                _dump_producer_snapshot(path, state)
            else:
                _err(f"Ignoring unknown file {path}")
        except BrokenPipeError:
            raise
        except (KvlogError, OSError) as exc:
            _err(f"kvlog: {path}: {exc}")
            state.failed = True
    sys.stdout.flush()
    # DumpLogSegments prepends to these lists, so they come out newest first
    for name, pairs in state.index_mismatches.items():
        _err(f"Mismatches in :{name}")
        for index_offset, log_offset in reversed(pairs):
            _err(f"  Index offset: {index_offset}, log offset: {log_offset}")
    for name, pairs in state.ts_mismatches.items():
        _err(f"Found timestamp mismatch in :{name}")
        for a, b in pairs:
            _err(f"  Index timestamp: {a}, log timestamp: {b}")
    for name, pairs in state.ts_out_of_order.items():
        _err(f"Found out of order timestamp in :{name}")
        for a, b in pairs:
            _err(f"  Index timestamp: {a}, Previously indexed timestamp: {b}")
    for pairs in state.ts_not_found.values():
        _err("The following indexed offsets are not found in the log.")
        for a, b in pairs:
            _err(f"Indexed offset: {a}, found log offset: {b}")
    for name, pairs in state.non_consecutive.items():
        _err(f"Non-consecutive offsets in {name}")
        for a, b in reversed(pairs):
            _err(f"  {a} is followed by {b}")
    bad = state.failed or state.index_mismatches or state.ts_mismatches or state.ts_out_of_order \
        or state.ts_not_found
    return 1 if bad else 0


# ============================================================================================== verify
@dataclass
class Problem:
    """One finding of ``kvlog verify``: ``severity`` is "error" (the check fails) or "warning"."""

    severity: str
    file: str
    message: str
    position: int | None = None

    def text(self) -> str:
        where = f" position {self.position}" if self.position is not None else ""
        return f"{self.severity}: {self.file}{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "file": self.file, "position": self.position,
                "message": self.message}


@dataclass
class PartitionReport:
    path: str
    topic: str | None
    partition: int | None
    segments: int = 0
    batches: int = 0
    bytes: int = 0
    first_offset: int | None = None
    next_offset: int | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    def error(self, file: str, message: str, position: int | None = None) -> None:
        self.problems.append(Problem("error", file, message, position))

    def warn(self, file: str, message: str, position: int | None = None) -> None:
        self.problems.append(Problem("warning", file, message, position))

    def many(self, file: str, hits: np.ndarray, describe: Callable[[int], tuple[str, int | None]]) -> None:
        """Report ``describe(i)`` for the first hits, then summarise the rest."""
        for i in hits[:MAX_REPORTED].tolist():
            msg, pos = describe(i)
            self.error(file, msg, pos)
        if len(hits) > MAX_REPORTED:
            self.error(file, f"... and {len(hits) - MAX_REPORTED} more like the above")

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "topic": self.topic, "partition": self.partition, "ok": not self.errors,
            "segments": self.segments, "batches": self.batches, "bytes": self.bytes,
            "first_offset": self.first_offset, "next_offset": self.next_offset,
            "errors": [p.as_dict() for p in self.errors], "warnings": [p.as_dict() for p in self.warnings],
        }


def _is_partition_dir(path: str) -> bool:
    """True for a partition directory, False for a data directory holding partition directories;
    ``DirectoryNotFoundError`` ("no Kafka partitions found") for anything else (``kvlog verify /etc``)."""
    names = _io.fs.listdir(path)
    if any(n.endswith(_files.LOG) and _files.is_offset_name(n) for n in names):
        return True
    found, skipped = _files.partition_dirs(path)
    if found:
        return False
    if _files.parse_partition_dir(path) is not None and _files.looks_like_partition(names):
        return True
    also = (f"; {', '.join(skipped[:5])}{', …' if len(skipped) > 5 else ''} "
            f"{'is' if len(skipped) == 1 else 'are'} named like partitions but hold no Kafka partition files"
            if skipped else "")
    raise DirectoryNotFoundError(f"no Kafka partitions found in {path}: it holds neither log segments nor "
                                 f"<topic>-<partition> directories with Kafka partition files{also}")


def _partitions(path: str) -> tuple[bool, list[tuple[str, str | None, int | None]]]:
    """(is one partition, [(path, topic, partition)]) for a partition directory or a data directory."""
    path = storage.normalize(path)
    if not _io.fs.isdir(path):
        raise DirectoryNotFoundError(f"no such directory: {path}")
    if _is_partition_dir(path):
        tp = _files.parse_partition_dir(path)
        return True, [(path, tp[0] if tp else None, tp[1] if tp else None)]
    found = _files.partition_dirs(path)[0]
    return False, [(full, t, p) for (t, p), full in sorted(found.items())]


def _check_leader_epochs(report: PartitionReport, path: str, name: str) -> None:
    try:
        lines = _io.fs.read_file(path).decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        report.error(name, f"cannot read: {exc}")
        return
    if lines == [""]:
        return  # an empty file: no entries, as Kafka's checkpoint reader sees it
    if lines and lines[-1] == "":
        lines.pop()
    try:
        version, count = int(lines[0]), int(lines[1])
    except (IndexError, ValueError):
        report.error(name, "malformed checkpoint header (expected a version line and an entry count)")
        return
    if version != 0:
        report.error(name, f"unknown checkpoint version {version}")
        return
    if len(lines) - 2 != count:
        report.error(name, f"header says {count} entries, found {len(lines) - 2}")
        return
    prev: tuple[int, int] | None = None
    for i, line in enumerate(lines[2:], start=3):
        parts = line.split()
        try:
            epoch, start = int(parts[0]), int(parts[1])
            if len(parts) != 2:
                raise ValueError
        except (IndexError, ValueError):
            report.error(name, f"line {i} is not '<epoch> <start offset>'")
            return
        if prev is not None and (epoch <= prev[0] or start < prev[1]):
            report.error(name, f"line {i}: epoch {epoch} at offset {start} does not follow epoch {prev[0]} "
                               f"at offset {prev[1]}")
        prev = (epoch, start)


def _check_partition_metadata(report: PartitionReport, path: str, name: str) -> None:
    try:
        fields = dict(line.split(":", 1) for line in _io.fs.read_file(path).decode("utf-8").splitlines()
                      if line.strip())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        report.error(name, f"cannot parse: {exc}")
        return
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    if fields.get("version") != "0" or not fields.get("topic_id"):
        report.error(name, "expected 'version: 0' and 'topic_id: <id>' lines")


def _sane_offset_index(directory: str, base: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The offset index's entries as evidence for the audit, when the file passes Kafka's own checks."""
    path = _files.segment_path(directory, base, _files.INDEX)
    if not _io.fs.exists(path):
        return None
    offsets, pos, length = read_offset_index(path, base)
    cut = _index_cut(offsets, base)
    offsets, pos = offsets[:cut], pos[:cut]
    if length % 8 or (len(offsets) > 1 and ((np.diff(offsets) <= 0).any() or (np.diff(pos) <= 0).any())):
        return None
    return offsets, pos


def _verify_segment(report: PartitionReport, directory: str, base: int, last_segment: bool,
                    prev_last: int, next_base: int | None, dense: bool,
                    producers: Callable[[], list[ProducerLast]]) -> int:
    """Check one segment's ``.log`` and its indexes; returns the last offset seen (or ``prev_last``).

    The batches are judged by ``audit_segment``, the same verdict recovery and read-only opens reach:
    each finding names the field, and the value the neighbours (or the CRC) prove where they do.
    """
    seg = LogSegment(directory, base, read_only=True, open_indexes=False)
    log_name = os.path.basename(seg.log_path)
    try:
        size = seg.size_in_bytes
        report.segments += 1
        report.bytes += size
        audit = audit_segment(seg, prev_last=prev_last, next_base=next_base, dense=dense,
                              index=_sane_offset_index(directory, base), producers=producers)
        h = audit.headers
        for f in audit.findings:
            repair = " (kvlog repair can rewrite it)" if f.proven and f.field in REPAIRABLE else ""
            report.error(log_name, f.text() + repair, f.position)
        if audit.valid_end < size:
            if audit.zero_tail:
                report.warn(log_name, f"{size - audit.valid_end} zero bytes after the last batch (a preallocated "
                                      "file)", audit.valid_end)
            else:
                report.error(log_name, f"recovery would set aside the {size - audit.valid_end} bytes from here to "
                                       "the end of the file (they are not log data until repaired)", audit.valid_end)
        if len(h):
            firsts = np.where((h["magic"] < 2) & (h["base_offset"] < 0), h["last_offset"], h["base_offset"])
            if report.first_offset is None:
                report.first_offset = int(firsts[0])
            prev_last = int(h["last_offset"][-1])
            report.next_offset = prev_last + 1
        report.batches += len(h)
        pos_a = h["position"].astype(np.int64)
        last_a = h["last_offset"].astype(np.int64)
        max_a = h["max_timestamp"].astype(np.int64)
        if audit.valid_end == size:  # after a cut the index entries past it point at set-aside bytes
            _verify_offset_index(report, directory, base, log_name, pos_a, last_a)
            _verify_time_index(report, directory, base, log_name, pos_a, last_a, max_a, last_segment)
        txn = _files.segment_path(directory, base, _files.TXN_INDEX)
        if _io.fs.exists(txn) and _io.fs.getsize(txn) % 34:
            report.error(os.path.basename(txn), f"size {_io.fs.getsize(txn)} is not a multiple of the "
                                                "34-byte aborted-transaction entry")
        return prev_last
    finally:
        seg.close_handlers()


def _index_prelude(report: PartitionReport, name: str, length: int, entry: int, offsets: np.ndarray,
                   other: np.ndarray, base: int, describe: Callable[[int], str]) -> int:
    """Checks both index kinds share: whole entries, and nothing after the zero-filled end.

    Returns the number of entries before that end (the ones the other checks look at).
    """
    if length % entry:
        report.error(name, f"file size {length} is not a multiple of the {entry}-byte entry")
    cut = _index_cut(offsets, base)
    tail = np.flatnonzero((offsets[cut:] != base) | (other[cut:] != 0))
    if len(tail):
        k = cut + int(tail[0])
        report.error(name, f"entry {k} ({describe(k)}) follows the zero-filled end of the index at entry {cut}",
                     k * entry)
    return cut


def _verify_offset_index(report: PartitionReport, directory: str, base: int, log_name: str,
                         positions: np.ndarray, lasts: np.ndarray) -> None:
    path = _files.segment_path(directory, base, _files.INDEX)
    name = os.path.basename(path)
    if not _io.fs.exists(path):
        report.warn(name, "missing offset index (Kafka rebuilds it when it loads the log)")
        return
    offsets, pos, length = read_offset_index(path, base)
    cut = _index_prelude(report, name, length, 8, offsets, pos, base,
                         lambda k: f"offset {int(offsets[k])}, position {int(pos[k])}")
    offsets, pos = offsets[:cut], pos[:cut]
    report.many(name, np.flatnonzero(np.diff(offsets) <= 0) + 1, lambda i: (
        f"entry {i}: offset {int(offsets[i])} is not above the previous entry's {int(offsets[i - 1])}",
        i * 8))
    report.many(name, np.flatnonzero(np.diff(pos) <= 0) + 1, lambda i: (
        f"entry {i}: log position {int(pos[i])} is not above the previous entry's {int(pos[i - 1])}", i * 8))
    if not len(offsets):
        return
    j = np.searchsorted(positions, pos)
    jc = np.minimum(j, max(len(positions) - 1, 0))
    starts = (j < len(positions)) & (positions[jc] == pos) if len(positions) else np.zeros(len(pos), bool)
    report.many(name, np.flatnonzero(~starts), lambda i: (
        (f"entry {i} (offset {int(offsets[i])}) points at position {int(pos[i])} of {log_name}, where no "
         "batch starts"), i * 8))
    if len(positions):
        wrong = starts & (lasts[jc] != offsets)
        report.many(name, np.flatnonzero(wrong), lambda i: (
            (f"entry {i} (offset {int(offsets[i])}) points at position {int(pos[i])} of {log_name}, "
             f"where the batch ends at offset {int(lasts[jc[i]])}"), i * 8))


def _verify_time_index(report: PartitionReport, directory: str, base: int, log_name: str,
                       positions: np.ndarray, lasts: np.ndarray, maxes: np.ndarray,
                       last_segment: bool) -> None:
    path = _files.segment_path(directory, base, _files.TIME_INDEX)
    name = os.path.basename(path)
    if not _io.fs.exists(path):
        report.warn(name, "missing time index (Kafka creates an empty one when it loads the log)")
        return
    stamps, offsets, length = read_time_index(path, base)
    cut = _index_prelude(report, name, length, 12, offsets, stamps, base,
                         lambda k: f"timestamp {int(stamps[k])}, offset {int(offsets[k])}")
    stamps, offsets = stamps[:cut], offsets[:cut]
    report.many(name, np.flatnonzero(np.diff(stamps) <= 0) + 1, lambda i: (
        (f"entry {i}: timestamp {int(stamps[i])} is not above the previous entry's {int(stamps[i - 1])} "
         "(time index timestamps must increase)"), i * 12))
    report.many(name, np.flatnonzero(np.diff(offsets) < 0) + 1, lambda i: (
        f"entry {i}: offset {int(offsets[i])} is below the previous entry's {int(offsets[i - 1])}", i * 12))
    if not len(stamps):
        return
    cummax = np.maximum.accumulate(maxes) if len(maxes) else maxes
    j = np.searchsorted(lasts, offsets)
    jc = np.minimum(j, max(len(lasts) - 1, 0))
    found = (j < len(lasts)) & (lasts[jc] == offsets) if len(lasts) else np.zeros(len(offsets), bool)
    report.many(name, np.flatnonzero(~found), lambda i: (
        (f"entry {i} (timestamp {int(stamps[i])}, offset {int(offsets[i])}): no batch of {log_name} ends at "
         f"offset {int(offsets[i])}"), i * 12))
    if len(lasts):
        wrong = found & (cummax[jc] != stamps)
        report.many(name, np.flatnonzero(wrong), lambda i: (
            (f"entry {i}: timestamp {int(stamps[i])} at offset {int(offsets[i])}, but the largest "
             f"timestamp up to that offset is {int(cummax[jc[i]])} (batch at position "
             f"{int(positions[jc[i]])} of {log_name})"),
            i * 12))
        top = int(cummax[-1])
        if not last_segment and top >= 0 and int(stamps[-1]) != top:
            report.warn(name, f"the last entry's timestamp {int(stamps[-1])} is not the segment's largest "
                              f"timestamp {top} (Kafka writes that entry when it rolls the segment)")


def verify_partition(path: str, topic: str | None = None, partition: int | None = None) -> PartitionReport:
    """Check one partition directory without writing anything (see ``kvlog verify``)."""
    from kvlog.mirror import CHECKPOINT_FILE, read_checkpoint

    report = PartitionReport(path, topic, partition)
    names = sorted(_io.fs.listdir(path))
    bases = sorted(_files.offset_from_name(n) for n in names
                   if _files.is_offset_name(n) and n.split(".", 1)[1] == "log")
    have = set(bases)
    for n in names:
        full = os.path.join(path, n)
        if _io.fs.isdir(full):
            report.warn(n, "unexpected directory in a partition directory")
        elif _files.is_offset_name(n):
            ext = "." + n.split(".", 1)[1]
            if ext in (_files.LOG, _files.SNAPSHOT):
                continue
            if ext in (_files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX):
                if _files.offset_from_name(n) not in have:
                    report.error(n, "orphan index file: there is no .log for this base offset")
            elif ext.endswith((_files.SWAP, _files.CLEANED)):
                report.error(n, "leftover temporary file of an interrupted compaction or segment split "
                                "(Kafka finishes or rolls it back when it loads the log)")
            elif ext.endswith(_files.DELETED):
                report.warn(n, "segment file awaiting asynchronous deletion")
            elif ext.endswith(REPAIRED):
                report.warn(n, "original bytes kept by kvlog repair (not part of the log)")
            elif ext.endswith(_files.QUARANTINED):
                parts = n.split(".")
                if parts[1] == "snapshot":
                    report.warn(n, "producer snapshot past the log end, set aside by recovery with the bytes it "
                                   "describes (evidence for kvlog repair)")
                elif len(parts) == 4 and parts[1] == "log":
                    report.warn(n, f"bytes recovery set aside from position {parts[2].split('-')[0]} of "
                                   f"{parts[0]}.log, where they stopped being trustworthy (not part of the "
                                   "log; kept for inspection and kvlog repair)")
                else:
                    report.warn(n, "segment set aside by recovery after a damaged segment before it "
                                   "(not part of the log; kept for inspection)")
            else:
                report.warn(n, "unknown file")
        elif n == "leader-epoch-checkpoint":
            _check_leader_epochs(report, full, n)
        elif n == "partition.metadata":
            _check_partition_metadata(report, full, n)
        elif n == CHECKPOINT_FILE:
            try:
                read_checkpoint(path)
            except KvlogError as exc:
                report.error(n, str(exc))
        elif n.endswith(".tmp"):
            report.warn(n, "leftover temporary file (an interrupted checkpoint write)")
        elif n in (_files.LOCK, "quorum-state") or n.endswith(_KRAFT_SUFFIXES):
            continue
        else:
            report.warn(n, "unknown file")
    prev_last = -1
    dense = dense_history(path, topic, partition)
    snapshots: list[list[ProducerLast]] = []

    def producers() -> list[ProducerLast]:
        if not snapshots:
            snapshots.append(snapshot_producers(path))
        return snapshots[0]

    for i, base in enumerate(bases):
        if base <= prev_last:
            report.error(_files.prefix(base) + _files.LOG, f"segment base offset {base} is not above the "
                                                           f"previous segment's last offset {prev_last}")
        nxt = bases[i + 1] if i + 1 < len(bases) else None
        prev_last = _verify_segment(report, path, base, i == len(bases) - 1, prev_last, nxt, dense, producers)
    if report.next_offset is None and bases:
        report.next_offset = bases[-1]
    return report


_KRAFT_SUFFIXES = (".checkpoint", ".checkpoint.part", ".checkpoint.deleted")
_ROOT_CHECKPOINTS = (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.CLEANER_OFFSET,
                     checkpoint.REPLICATION_OFFSET)


def verify_path(path: str) -> tuple[list[PartitionReport], list[Problem]]:
    """Reports for every partition under ``path`` (a partition or data directory) and root-level problems."""
    single, parts = _partitions(path)
    reports = [verify_partition(p, t, n) for p, t, n in parts]
    root_problems: list[Problem] = []
    if not single:
        root = storage.normalize(path)
        for name in _files.partition_dirs(root)[1]:
            root_problems.append(Problem("warning", name, "named like a partition directory but holds no Kafka "
                                                          "partition files; not verified"))
        by_tp = {(r.topic, r.partition): r for r in reports}
        for name in _ROOT_CHECKPOINTS:
            full = os.path.join(root, name)
            if not _io.fs.exists(full):
                continue
            try:
                table = checkpoint.read_offsets(full)
            except checkpoint.CorruptCheckpointError as exc:
                root_problems.append(Problem("error", name, str(exc)))
                continue
            if name == checkpoint.LOG_START_OFFSET:
                for (t, p), off in sorted(table.items()):
                    r = by_tp.get((t, p))
                    if r is not None and r.next_offset is not None and off > r.next_offset:
                        r.error(name, f"log start offset {off} of {t}-{p} is past its log end offset "
                                      f"{r.next_offset}: loading the log would delete every segment")
        topics = os.path.join(root, "kvlog-topics.json")
        if _io.fs.exists(topics):
            try:
                json.loads(_io.fs.read_file(topics).decode("utf-8"))
            except (OSError, ValueError) as exc:
                root_problems.append(Problem("error", "kvlog-topics.json", f"cannot parse: {exc}"))
    return reports, root_problems


def cmd_verify(args: argparse.Namespace) -> int:
    reports, root_problems = verify_path(args.path)
    bad = [r for r in reports if r.errors]
    ok = not bad and not any(p.severity == "error" for p in root_problems)
    if args.json:
        _out(json.dumps({"ok": ok, "path": storage.normalize(args.path),
                         "partitions": [r.as_dict() for r in reports],
                         "problems": [p.as_dict() for p in root_problems]}, indent=1))
        return 0 if ok else 1
    for p in root_problems:
        _out(p.text())
    for r in reports:
        offsets = (f", offsets {r.first_offset}..{r.next_offset - 1}"
                   if r.first_offset is not None and r.next_offset is not None else "")
        summary = (f"{_count(r.segments, 'segment')}, {_count(r.batches, 'batch')}, "
                   f"{_count(r.bytes, 'byte')}{offsets}")
        if r.errors:
            status = f"{_count(len(r.errors), 'error')}, {_count(len(r.warnings), 'warning')}"
        else:
            status = f"OK with {_count(len(r.warnings), 'warning')}" if r.warnings else "OK"
        _out(f"{r.path}: {status} ({summary})")
        for p in r.problems:
            _out(f"  {p.text()}")
    _out(f"verified {_count(len(reports), 'partition')}: {len(bad)} with errors")
    return 0 if ok else 1


# ============================================================================================== repair
def cmd_repair(args: argparse.Namespace) -> int:
    """Rewrite only proven fields (``kvlog.repair``); exit 1 while anything unproven remains."""
    _, parts = _partitions(args.path)
    reports = []
    for i, (p, t, n) in enumerate(parts):
        if len(parts) > 1:
            _err(f"repair: partition {i + 1}/{len(parts)} {os.path.basename(p)}")
        reports.append(repair_partition(p, t, n, dry_run=args.dry_run))
    if args.json:
        _out(json.dumps({"ok": all(r.ok for r in reports), "dry_run": args.dry_run,
                         "partitions": [r.as_dict() for r in reports]}, indent=1))
        return 0 if all(r.ok for r in reports) else 1
    verb = "would " if args.dry_run else ""
    for r in reports:
        if not (r.patched or r.restored or r.remaining):
            continue
        _out(f"{r.path}:")
        for line in r.patched:
            _out(f"  {verb}rewrite {line}")
        for line in r.restored:
            _out(f"  {verb}restore {line}")
        for line in r.kept:
            _out(f"  kept the original bytes in {line}")
        for line in r.remaining:
            _out(f"  not repaired: {line}")
    changed = sum(1 for r in reports if r.patched or r.restored)
    _out(f"repair{' (dry run)' if args.dry_run else ''}: {_count(len(reports), 'partition')}, "
         f"{changed} {'would change' if args.dry_run else 'changed'}, "
         f"{sum(1 for r in reports if not r.ok)} with unproven damage left")
    return 0 if all(r.ok for r in reports) else 1


# ============================================================================================= offsets
_SPECIAL = {"earliest": EARLIEST, "latest": LATEST, "max": MAX_TIMESTAMP, "max-timestamp": MAX_TIMESTAMP}


def parse_timestamp(text: str, *, special: bool = True) -> int:
    """Epoch milliseconds, an ISO-8601 time (naive means UTC) or, with ``special``, earliest/latest/max."""
    s = text.strip()
    if special and s.lower() in _SPECIAL:
        return _SPECIAL[s.lower()]
    if re.fullmatch(r"-?\d+", s):
        value = int(s)
        if value < 0 and not (special and value in (EARLIEST, LATEST, MAX_TIMESTAMP)):
            raise ConfigError(f"invalid timestamp {value}")
        return value
    iso = s[:-1] + "+00:00" if s[-1:] in ("Z", "z") else s
    # Python 3.10's fromisoformat wants 3 or 6 fraction digits
    iso = re.sub(r"(T\d\d:\d\d:\d\d)\.(\d+)", lambda m: f"{m.group(1)}.{(m.group(2) + '000000')[:6]}", iso)
    try:
        when = _dt.datetime.fromisoformat(iso)
    except ValueError:
        raise ConfigError(f"cannot read {text!r} as epoch milliseconds or an ISO-8601 time"
                          + (" (or earliest/latest/max)" if special else "")) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return (when - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)) // _dt.timedelta(milliseconds=1)


def cmd_offsets(args: argparse.Namespace) -> int:
    if args.group is not None:
        return cli_groups.cmd_failover(args)
    cli_groups.refuse_failover_options(args)
    if args.timestamp is None:
        raise ConfigError("offsets needs --timestamp T (or --group G --target MIRROR_ROOT)")
    target = args.timestamp
    if target >= 0:
        target = max(0, target - args.margin)
    single, parts = _partitions(args.path)
    for path, topic, partition in parts:
        with Log.open(path, read_only=True) as log:
            found = log.offset_for_timestamp(target)
        offset, ts = (found.offset, found.timestamp) if found is not None else (-1, -1)
        _out(f"{offset} {ts}" if single else f"{topic} {partition} {offset} {ts}")
    return 0


# =========================================================================================== retention
def _topic_config(partition_dir: str, overrides: dict[str, str]) -> LogConfig:
    """The partition's topic configuration (kvlog's topic table in the parent, if any) plus overrides."""
    props: dict[str, object] = {}
    tp = _files.parse_partition_dir(partition_dir)
    table = os.path.join(os.path.dirname(storage.normalize(partition_dir)), "kvlog-topics.json")
    if tp is not None and _io.fs.exists(table):
        try:
            entry = json.loads(_io.fs.read_file(table).decode("utf-8")).get(tp[0]) or {}
            props.update(entry.get("config") or {})
        except (OSError, ValueError, AttributeError) as exc:
            raise KvlogError(f"cannot read {table}: {exc}") from None
    props.update(overrides)
    return LogConfig.from_properties(props)


def _plan_retention(log: Log, now: int) -> list[LogSegment]:
    """The segments ``delete_old_segments(now)`` would delete, worked out without changing anything."""
    cfg = log.config
    remaining = log.segments
    leo = log.log_end_offset
    start = [log.log_start_offset]
    doomed: list[LogSegment] = []

    def delete_while(pred: Callable[[LogSegment, LogSegment | None], bool]) -> None:
        k = 0
        for i, seg in enumerate(remaining):
            nxt = remaining[i + 1] if i + 1 < len(remaining) else None
            upper = nxt.base_offset if nxt is not None else leo
            if upper > leo or (nxt is None and seg.size_in_bytes == 0) or not pred(seg, nxt):
                break
            k += 1
        doomed.extend(remaining[:k])
        del remaining[:k]
        if k:
            start[0] = max(start[0], remaining[0].base_offset if remaining else leo)

    delete_while(lambda seg, nxt: nxt is not None and nxt.base_offset <= start[0])
    if cfg.delete:
        if cfg.retention_bytes >= 0:
            excess = [sum(s.size_in_bytes for s in remaining) - cfg.retention_bytes]

            def over(seg: LogSegment, nxt: LogSegment | None) -> bool:
                if excess[0] - seg.size_in_bytes >= 0:
                    excess[0] -= seg.size_in_bytes
                    return True
                return False

            delete_while(over)
        if cfg.retention_ms >= 0:
            def expired(seg: LogSegment, nxt: LogSegment | None) -> bool:
                if seg.size_in_bytes == 0 or now - seg.largest_timestamp <= cfg.retention_ms:
                    return False
                verified = seg.verified_max_timestamp()
                age = now - (verified if verified >= 0 else seg.largest_timestamp)
                return bool(age > cfg.retention_ms)

            delete_while(expired)
    return doomed


def _describe_deletion(label: str, verb: str, gone: list[tuple[int, int]], start_before: int,
                       start_after: int) -> str:
    if not gone:
        return f"{label}: nothing to delete (log start offset {start_before})"
    size = sum(s for _, s in gone)
    bases = ", ".join(str(b) for b, _ in gone)
    return (f"{label}: {verb} {_count(len(gone), 'segment')} ({_count(size, 'byte')}; base offsets {bases}); "
            f"log start offset {start_before} -> {start_after}")


def _apply_retention(log: Log, label: str, now: int, explained: str) -> None:
    before = {s.base_offset: s.size_in_bytes for s in log.segments}
    start = log.log_start_offset
    log.delete_old_segments(now)
    left = {s.base_offset for s in log.segments}
    gone = [(b, s) for b, s in sorted(before.items()) if b not in left]
    _out(f"{_describe_deletion(label, 'deleted', gone, start, log.log_start_offset)} [{explained}]")


_RETENTION_CONFIGS = ("cleanup.policy", "retention.ms", "retention.bytes")
_COMPACT_CONFIGS = ("cleanup.policy", "min.cleanable.dirty.ratio", "delete.retention.ms", "min.compaction.lag.ms")


@dataclass
class _Maintenance:
    """One retention or compaction run's partitions with their resolved configs (KRaft metadata, then
    kvlog's topic table, then Kafka's defaults; see kvlog.topic_configs) and the internal-topic rules."""

    action: str
    single: bool
    parts: list[tuple[str, str | None, int | None]]
    configs: TopicConfigs
    overrides: dict[str, str]
    force_internal: bool

    @classmethod
    def of(cls, action: str, args: argparse.Namespace) -> "_Maintenance":
        single, parts = _partitions(args.path)
        root = os.path.dirname(parts[0][0]) if single else storage.normalize(args.path)
        configs = TopicConfigs.load(root, metadata_dir=args.metadata_dir)
        return cls(action, single, parts, configs, dict(args.config or []), args.force_internal)

    def label(self, path: str) -> str:
        return path if self.single else os.path.basename(path)

    def resolve(self, topic: str | None) -> ResolvedConfig:
        return self.configs.resolve(topic or "", self.overrides, force_internal=self.force_internal)

    def refused(self, path: str, topic: str | None, rc: ResolvedConfig) -> bool:
        """Print why a partition is skipped and return True, when the internal-topic rules forbid it."""
        why = maintenance_refusal(topic or "", self.action, force_internal=self.force_internal)
        if why is None:
            return False
        names = _RETENTION_CONFIGS if self.action == "retention" else _COMPACT_CONFIGS
        _out(f"{self.label(path)}: skipped ({why}) [{rc.explain(names)}]")
        return True


def cmd_retention(args: argparse.Namespace) -> int:
    run = _Maintenance.of("retention", args)
    now = args.now if args.now is not None else int(time.time() * 1000)
    if args.dry_run:
        for path, topic, _ in run.parts:
            rc = run.resolve(topic)
            if run.refused(path, topic, rc):
                continue
            with Log.open(path, rc.config, read_only=True) as log:
                doomed = _plan_retention(log, now)
                gone = [(s.base_offset, s.size_in_bytes) for s in doomed]
                remaining = [s for s in log.segments if s not in doomed]
                first_left = remaining[0].base_offset if remaining else log.log_end_offset
                after = max(log.log_start_offset, first_left)
                line = _describe_deletion(run.label(path), "would delete", gone, log.log_start_offset, after)
                _out(f"{line} [{rc.explain(_RETENTION_CONFIGS)}]")
        return 0
    if run.single:
        path, topic, _ = run.parts[0]
        rc = run.resolve(topic)
        if not run.refused(path, topic, rc):
            with Log.open(path, rc.config) as log:
                _apply_retention(log, path, now, rc.explain(_RETENTION_CONFIGS))
        return 0
    # a data directory: through a LogManager, which takes the directory's lock and its shutdown marker
    with LogManager(args.path) as manager:
        for path, topic, partition in run.parts:
            assert topic is not None and partition is not None
            rc = run.resolve(topic)
            if run.refused(path, topic, rc):
                continue
            log = manager.log(topic, partition)
            log.config = rc.config
            _apply_retention(log, os.path.basename(path), now, rc.explain(_RETENTION_CONFIGS))
    return 0


# ============================================================================================= compact
def cmd_compact(args: argparse.Namespace) -> int:
    """One cleaning pass over every compacted partition (or, with --filthiest, the dirtiest one)."""
    from kvlog.cleaner import LogCleaner

    tty = sys.stderr.isatty()

    def progress(line: str) -> None:
        if tty:
            _err(line)

    cleaner = LogCleaner(args.dedupe_buffer_size, generational=args.generational, progress=progress)
    run = _Maintenance.of("compact", args)
    now = args.now if args.now is not None else int(time.time() * 1000)

    def clean(log: Log, label: str, rc: ResolvedConfig) -> None:
        explained = rc.explain(_COMPACT_CONFIGS)
        if not log.config.compact:
            policy = rc.values["cleanup.policy"]
            _out(f"{label}: skipped (cleanup.policy={policy.value or 'none'} is not compact) [{explained}]")
            return
        stats = cleaner.clean(log, now_ms=now)
        _out(f"{label}: {stats.summary()} [{explained}]")

    if run.single:
        path, topic, _ = run.parts[0]
        rc = run.resolve(topic)
        if not run.refused(path, topic, rc):
            with Log.open(path, rc.config) as log:
                clean(log, path, rc)
        return 0
    with LogManager(args.path) as manager:
        logs = []
        for path, topic, partition in run.parts:
            assert topic is not None and partition is not None
            rc = run.resolve(topic)
            if run.refused(path, topic, rc):
                continue
            log = manager.log(topic, partition)
            log.config = rc.config
            logs.append((log, os.path.basename(path), rc))
        if args.filthiest:
            stats = cleaner.clean_filthiest([lg for lg, _, _ in logs], now_ms=now)
            _out(stats.summary() if stats else "nothing is dirty enough to clean (min.cleanable.dirty.ratio)")
            return 0
        for log, label, rc in logs:
            clean(log, label, rc)
    return 0


# ============================================================================================== mirror
class _Progress:
    """Records/s and bytes on stderr, redrawn in place at most a few times a second."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.t0 = time.monotonic()
        self.last = 0.0
        self.totals: dict[str, tuple[int, int]] = {}
        self.shown = False

    def __call__(self, stats: Any) -> None:
        self.totals[stats.source] = (stats.records, stats.bytes)
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        records = sum(r for r, _ in self.totals.values())
        nbytes = sum(b for _, b in self.totals.values())
        rate = records / max(now - self.t0, 1e-9)
        self.stream.write(f"\rkvlog mirror: {records:,} records, {nbytes / 1e6:,.1f} MB, "
                          f"{rate:,.0f} records/s   ")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def cmd_mirror(args: argparse.Namespace) -> int:
    from kvlog.mirror import mirror_directory, mirror_log

    overrides = dict(args.config or [])
    topic_map = dict(args.topic_map or [])
    from_ts = args.from_timestamp
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    source = storage.normalize(args.source)
    if not _io.fs.isdir(source):
        raise DirectoryNotFoundError(f"no such directory: {source}")
    try:
        if _is_partition_dir(source):
            if topic_map:
                raise ConfigError("--topic-map applies when mirroring data directories")
            with Log.open(args.target, _topic_config(args.target, overrides)) as target:
                results = {("", 0): mirror_log(source, target, from_timestamp=from_ts, progress=progress,
                                               batch_bytes=args.batch_bytes, compression=args.compression)}
        else:
            results = mirror_directory(source, args.target, topic_map=topic_map, config=overrides or None,
                                       from_timestamp=from_ts, progress=progress,
                                       batch_bytes=args.batch_bytes, compression=args.compression)
    finally:
        if progress is not None:
            progress.finish()
    for stats in results.values():
        if stats.skipped:
            _err(f"kvlog: {os.path.basename(stats.source)}: skipped: {stats.skipped}")
            continue
        label = f"{os.path.basename(stats.source)} -> {os.path.basename(stats.target)}"
        if stats.records:
            _out(f"{label}: {stats.records} records, {stats.bytes} bytes; source offsets "
                 f"{stats.source_start_offset}..{stats.source_end_offset - 1} -> target offsets "
                 f"{stats.target_start_offset}..{stats.target_end_offset - 1}")
        else:
            _out(f"{label}: nothing new (source offset {stats.source_end_offset})")
        for w in stats.warnings:
            _err(f"kvlog: {label}: {w}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from kvlog import demo

    demo.main()
    return 0


# ============================================================================================== parser
class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(2, f"kvlog: {message}\n")


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive integer")
    return value


def _timestamp_arg(text: str) -> int:
    try:
        return parse_timestamp(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _plain_timestamp_arg(text: str) -> int:
    try:
        return parse_timestamp(text, special=False)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return key.strip(), value.strip()


def _add_topic_config_options(p: argparse.ArgumentParser, force_help: str) -> None:
    p.add_argument("--metadata-dir", metavar="DIR",
                   help="where the broker's __cluster_metadata-0 is, when not in the data directory "
                        "(its metadata.log.dir)")
    p.add_argument("--force-internal", action="store_true", help=force_help)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kvlog",
                description="Kafka log directories: dump, verify, search by time, retention, mirroring.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("dump", help="print segment files as Kafka's kafka-dump-log.sh does",
                       description="Print .log/.index/.timeindex/.txnindex files like Kafka's "
                                   "DumpLogSegments.")
    d.add_argument("--files", required=True, metavar="FILE1,FILE2,...", help="comma-separated files to dump")
    d.add_argument("--deep-iteration", action="store_true", help="print every record of every batch")
    d.add_argument("--print-data-log", action="store_true",
                   help="print keys and values (implies --deep-iteration)")
    d.add_argument("--skip-record-metadata", action="store_true", help="omit per-record metadata")
    d.add_argument("--verify-index-only", action="store_true",
                   help="check index entries against the log, print only mismatches")
    d.add_argument("--index-sanity-check", action="store_true",
                   help="run the broker's index sanity check only")
    d.add_argument("--max-message-size", type=_positive, default=DEFAULT_MAX_MESSAGE_SIZE, metavar="N",
                   help="largest batch looked at when checking index entries (default %(default)s)")
    d.add_argument("--max-bytes", type=_non_negative, default=INT32_MAX, metavar="N",
                   help="read only the first N bytes of each .log")
    cli_groups.add_decoder_options(d)
    d.set_defaults(func=cmd_dump)

    v = sub.add_parser("verify", help="check every batch, index and checkpoint (read-only)",
                       description="Check a partition directory or every partition of a data "
                                   "directory: batch framing and CRCs, offset order, offset/time index "
                                   "entries, leftover files, checkpoint files. Nothing is written. Exit "
                                   "status 1 when anything is wrong.")
    v.add_argument("path", help="a partition directory or a data directory")
    v.add_argument("--json", action="store_true", help="print a JSON report")
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser("repair", help="rewrite fields the evidence proves, keeping the original bytes",
                       description="Rewrite only the header fields outside every CRC (base offset, "
                                   "length, magic, leader epoch) whose true value the neighbouring batches "
                                   "or the batch's own CRC prove, and put back bytes recovery set aside "
                                   "when they then continue the log cleanly. Original bytes are kept as "
                                   "*.repaired; indexes of changed segments are rebuilt on the next open. "
                                   "Refused while a writer holds the log. Exit status 1 when unproven "
                                   "damage remains.")
    r.add_argument("path", help="a partition directory or a data directory")
    r.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    r.add_argument("--json", action="store_true", help="print a JSON report")
    r.set_defaults(func=cmd_repair)

    o = sub.add_parser("offsets", help="find the offset for a timestamp (read-only)",
                       description="Print the earliest offset whose timestamp is >= T - MARGIN, and "
                                   "its timestamp (-1 -1 when no record is that recent). For a data "
                                   "directory one line per partition: topic partition offset timestamp.")
    o.add_argument("path", help="a partition directory or a data directory")
    o.add_argument("--timestamp", metavar="T", type=_timestamp_arg,
                   help="epoch milliseconds, ISO-8601 (2024-05-01T12:00:00Z), earliest, latest or max")
    o.add_argument("--margin", type=_non_negative, default=0, metavar="MS",
                   help="search from T minus this many milliseconds (failover safety margin)")
    cli_groups.add_failover_options(o)
    o.set_defaults(func=cmd_offsets)

    r = sub.add_parser("retention", help="delete segments past retention",
                       description="Apply retention (log start offset, retention.bytes, retention.ms) to a "
                                   "partition or every partition of a data directory. Topic configs come from "
                                   "the broker's KRaft metadata, then kvlog-topics.json, then Kafka's defaults; "
                                   "each line ends with the deciding values and their sources. Kafka's internal "
                                   "topics are skipped unless --force-internal; __cluster_metadata always.")
    r.add_argument("path", help="a partition directory or a data directory")
    r.add_argument("--now", type=_non_negative, metavar="MS",
                   help="the current time in epoch ms (default: now)")
    r.add_argument("--dry-run", action="store_true", help="report what would be deleted; change nothing")
    r.add_argument("--config", type=_pair, nargs="+", action="extend", metavar="KEY=VALUE",
                   help="topic configs to apply over the resolved ones (Kafka names, e.g. retention.ms=86400000); "
                        "not to internal topics unless --force-internal")
    _add_topic_config_options(r, "delete segments of Kafka's internal topics too (__consumer_offsets, "
                                 "__transaction_state, __share_group_state, __remote_log_metadata), and apply "
                                 "--config to them; __cluster_metadata is never touched")
    r.set_defaults(func=cmd_retention)

    c = sub.add_parser("compact", help="run the log cleaner (key-based compaction)",
                       description="One cleaning pass over a compacted partition or every compacted partition "
                                   "of a data directory (compaction.strategy offset|timestamp|header). Topic "
                                   "configs are resolved as for retention; __cluster_metadata is never compacted.")
    c.add_argument("path", help="a partition directory or a data directory")
    c.add_argument("--filthiest", action="store_true",
                   help="clean only the dirtiest log at or above min.cleanable.dirty.ratio")
    c.add_argument("--generational", action="store_true",
                   help="rewrite only the segments whose expected yield justifies it (see README)")
    c.add_argument("--dedupe-buffer-size", type=_non_negative, default=128 << 20, metavar="BYTES",
                   help="offset map memory (default 128 MiB: 24 bytes per key, 32 with a version)")
    c.add_argument("--now", type=_non_negative, metavar="MS", help="the current time in epoch ms")
    c.add_argument("--config", type=_pair, nargs="+", action="extend", metavar="KEY=VALUE",
                   help="topic configs to apply over the resolved ones (Kafka names, e.g. cleanup.policy=compact); "
                        "not to internal topics unless --force-internal")
    _add_topic_config_options(c, "apply --config to Kafka's internal topics too (they are otherwise compacted "
                                 "only as their own configs say); __cluster_metadata is never touched")
    c.set_defaults(func=cmd_compact)

    m = sub.add_parser("mirror", help="copy a log or a data directory into another",
                       description="Copy records (keys, values, headers, timestamps) into a target log or "
                                   "data directory, which assigns its own offsets. Resumable: a second run "
                                   "copies only what is new.")
    m.add_argument("source", help="a partition directory or a data directory (opened read-only)")
    m.add_argument("target", help="the target partition directory or data directory")
    m.add_argument("--topic-map", type=_pair, nargs="+", action="extend", metavar="SRC=DST",
                   help="rename topics in the target")
    m.add_argument("--from-timestamp", metavar="T", type=_plain_timestamp_arg,
                   help="on the first run, start at this time (epoch ms or ISO-8601)")
    m.add_argument("--config", type=_pair, nargs="+", action="extend", metavar="KEY=VALUE",
                   help="configs of created target topics (Kafka names)")
    m.add_argument("--compression", metavar="CODEC",
                   help="codec of the target batches (default: the source's)")
    m.add_argument("--batch-bytes", type=_positive, default=8 << 20, metavar="N",
                   help="bytes read from the source at a time (default %(default)s)")
    m.set_defaults(func=cmd_mirror)

    cli_groups.add_groups_parser(sub)

    demo = sub.add_parser("demo", help="a tour of kvlog on generated data")
    demo.set_defaults(func=cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # the reader went away (kvlog dump ... | head): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except (KvlogError, OSError) as exc:
        sys.stdout.flush()
        _err(f"kvlog: {redact(str(exc))}")  # an OSError from a library may quote a URI with credentials
        return 1
    except KeyboardInterrupt:
        _err("kvlog: interrupted")
        return 130
