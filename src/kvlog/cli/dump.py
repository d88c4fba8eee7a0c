"""``kvlog dump``: segment, index, transaction index and producer snapshot files printed as Kafka's
``kafka-dump-log.sh`` (``DumpLogSegments``) prints them.

The target is Kafka 4.4's tool (``docs/internal-topics.md`` lists where older versions print otherwise): control records
as their JSON (``LeaderChange: {...}``, ``SnapshotHeader {...}``, ``KRaftVoters {...}``), a file whose name has
no suffix (KRaft's ``quorum-state``) ignored with "Ignoring unknown file" on stderr.

The reports printed on stderr after the last file are 4.4's (``org.apache.kafka.tools.DumpLogSegments``):
each collected in a ``java.util.HashMap`` keyed by the file's absolute path (``File.getAbsolutePath()``: the
working directory and the name as given, not resolved) through ``computeIfAbsent``, and printed in that map's
iteration order (:class:`kvlog._java_order.JavaHashMap` replays it), not in the order the files were dumped:

* ``Mismatches in :<path>``: per ``.index``, its ``  Index offset: i, log offset: l`` lines from the highest
  index offset down (a ``TreeMap`` in reverse order; a repeated index offset keeps its last log offset);
* the time-index errors (``TimeIndexDumpErrors.printErrors``): every ``Found timestamp mismatch in :<path>``,
  then every ``Found out of order timestamp in :<path>``, then every ``The following indexed offsets are not
  found in :<path>`` followed by unindented ``Indexed offset: o, found log offset: l`` lines, each file's pairs
  in the order found;
* ``Non-consecutive offsets in <path>``: per ``.log`` or ``.checkpoint`` read with ``--deep-iteration``,
  ``  a is followed by b`` for each record whose offset is not the previous one's + 1, the previous offset
  starting at -1 (so a segment that does not start at offset 0 reports ``  -1 is followed by <first>``), in
  ascending order of ``a`` (a ``TreeMap``; a repeated ``a`` keeps its last ``b``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

import numpy as np

from kvlog import _files, _io, storage
from kvlog._java_order import JavaHashMap
from kvlog._java_text import java_utf8
from kvlog.cli._common import (
    INT32_MAX,
    _base_offset_of,
    _err,
    _iter_file_batches,
    _open_read,
    _out,
)
from kvlog.cli._remote import aiven_segment_of, remote_storage_from
from kvlog.cli.dump_typed import DecodeFailure, typed_parser
from kvlog.cli.groups import dump_parser
from kvlog.checksum import crc32c
from kvlog.compression import Compression, decompress
from kvlog.errors import CorruptInternalRecordError, CorruptRecordError, KvlogError
from kvlog.index import OffsetIndex, TimeIndex, kafka_index_end, read_offset_index, read_time_index
from kvlog.internal_topics.control_records import control_text
from kvlog.internal_topics.dump_format import Parser
from kvlog.producer_state import increment_sequence
from kvlog.records import MemoryRecords, Record, RecordBatch
from kvlog.tiered.base import RemoteSegment, RemoteStorage
from kvlog.txn_index import ENTRY_SIZE, parse_entries


@dataclass
class _DumpState:
    """What DumpLogSegments collects while dumping and prints on stderr at the end: maps in Java's ``HashMap``
    order, filled as the tool fills them (``computeIfAbsent`` once per pair found)."""

    #: ``.index`` → {index offset: the last offset of the batch at its position}; printed highest first
    index_mismatches: JavaHashMap[dict[int, int]] = field(default_factory=JavaHashMap)
    #: ``.timeindex`` → [(indexed timestamp, the batch's max timestamp)]
    ts_mismatches: JavaHashMap[list[tuple[int, int]]] = field(default_factory=JavaHashMap)
    #: ``.timeindex`` → [(indexed timestamp, the previous entry's)]
    ts_out_of_order: JavaHashMap[list[tuple[int, int]]] = field(default_factory=JavaHashMap)
    #: ``.timeindex`` → [(indexed offset, the last offset of the first batch reaching it, or -1)]
    ts_not_found: JavaHashMap[list[tuple[int, int]]] = field(default_factory=JavaHashMap)
    #: ``.log`` → {offset: the next record's offset}; printed lowest first
    non_consecutive: JavaHashMap[dict[int, int]] = field(default_factory=JavaHashMap)
    failed: bool = False

    def report(self) -> None:
        """The stderr reports, as DumpLogSegments.execute prints them after the last file."""
        for name, by_offset in self.index_mismatches.items():
            _err(f"Mismatches in :{name}")
            for index_offset in sorted(by_offset, reverse=True):
                _err(f"  Index offset: {index_offset}, log offset: {by_offset[index_offset]}")
        for name, pairs in self.ts_mismatches.items():
            _err(f"Found timestamp mismatch in :{name}")
            for a, b in pairs:
                _err(f"  Index timestamp: {a}, log timestamp: {b}")
        for name, pairs in self.ts_out_of_order.items():
            _err(f"Found out of order timestamp in :{name}")
            for a, b in pairs:
                _err(f"  Index timestamp: {a}, Previously indexed timestamp: {b}")
        for name, pairs in self.ts_not_found.items():
            _err(f"The following indexed offsets are not found in :{name}")
            for a, b in pairs:
                _err(f"Indexed offset: {a}, found log offset: {b}")
        for name, followed in self.non_consecutive.items():
            _err(f"Non-consecutive offsets in {name}")
            for a in sorted(followed):
                _err(f"  {a} is followed by {followed[a]}")


#: the suffixes DumpLogSegments reads; any other file is only reported ("Ignoring unknown file")
_KINDS = (_files.LOG, ".checkpoint", _files.INDEX, _files.TIME_INDEX, _files.TXN_INDEX, _files.SNAPSHOT)


def _java_file_path(arg: str) -> str:
    """``new File(arg).getPath()`` on Unix: runs of ``/`` made one, a trailing ``/`` dropped (the tool prints
    this form: "Dumping <it>", "<it> is empty.")."""
    path = re.sub("/{2,}", "/", arg)
    return path[:-1] if len(path) > 1 and path.endswith("/") else path


def _absolute(path: str) -> str:
    """The name a report gives a file: for a local path (in :func:`_java_file_path`'s form) Java's
    ``File.getAbsolutePath()``, the working directory joined to a relative path as it is (``./`` and ``..``
    kept); an object's URI without its query (and a ``file://`` URI's path) as ``storage.normalize`` gives it."""
    if storage.is_remote(path) or path.startswith("file://"):
        return storage.normalize(path)
    if path.startswith("/"):
        return path
    cwd = os.getcwd()
    if not path:
        return cwd
    return cwd + path if cwd == "/" else cwd + "/" + path


def _java_split(files: str) -> list[str]:
    """``files.split(",")`` in Java: empty strings kept, except at the end; no comma at all, one element."""
    if "," not in files:
        return [files]
    parts = files.split(",")
    while parts and not parts[-1]:
        parts.pop()
    return parts


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
    last_seq = -1 if bs == -1 else increment_sequence(bs, b.last_offset - base)
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
    return java_utf8(data)  # Kafka's new String(bytes, UTF_8), U+FFFD where Java puts them


def _control_part(rec: Record) -> tuple[str, str | None]:
    """The text DumpLogSegments (4.4) prints for a control record, and the problem when its value does not
    decode (Kafka's tool stops with an exception there; kvlog prints the type and goes on)."""
    try:
        return control_text(rec), None
    except CorruptInternalRecordError as exc:
        key = rec.key or b""
        type_id = int.from_bytes(key[2:4], "big", signed=True) if len(key) >= 4 else -1
        return f"controlType: {rec.control_type.name}({type_id})", f"control record at offset {rec.offset}: {exc}"


def _record_line(b: RecordBatch, rec: Record, legacy: tuple[int, bool] | None, *, print_data: bool,
                 skip_metadata: bool, parser: Parser | None = None, problems: list[str] | None = None) -> str:
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
            seq = increment_sequence(bs, rec.offset - b.base_offset) if bs >= 0 else -1
            line += f" sequence: {seq} headerKeys: [{','.join(k for k, _ in rec.headers)}]"
        if legacy is not None:
            line += f" isValid: {_bool(legacy[1])} crc: {legacy[0]}"  # (4.0-4.2: "crc: N}")
        if b.is_control:
            text, problem = _control_part(rec)
            line += f" {text}"
            if problem is not None and problems is not None:
                problems.append(problem)
    if print_data and not b.is_control:
        try:
            key_text, value_text = parser(rec) if parser is not None else (
                None if rec.key is None else _text(rec.key), None if rec.value is None else _text(rec.value))
        except DecodeFailure as exc:  # (kvlog dump --decode: a value that does not decode is said, not fatal)
            if problems is not None:
                problems.append(str(exc))
            return f"{line}{prefix}{exc.part}-error: {exc.reason}"
        if key_text is not None:
            line += f"{prefix}key: {key_text}"
            prefix = " "
        if value_text is not None:
            line += f"{prefix}payload: {value_text}"  # 4.4: "| payload:" when neither metadata nor key came first
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
        last_offset = -1  # so a first record other than offset 0 is reported ("-1 is followed by N")
        pairs = state.non_consecutive
        key = _absolute(path)
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
                        if rec.offset != last_offset + 1:
                            pairs.compute_if_absent(key, lambda _: {})[last_offset] = rec.offset
                        last_offset = rec.offset
                        legacy = None
                        if checks is not None:
                            legacy = checks[i] if i < len(checks) else (0, False)
                        problems: list[str] = []
                        _out(_record_line(b, rec, legacy, print_data=print_data, skip_metadata=skip_metadata,
                                          parser=parser, problems=problems))
                        for problem in problems:
                            _err(f"kvlog: {path}: {problem}")
                            state.failed = True
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


def _dump_index(path: str, state: _DumpState, *, sanity_only: bool, verify_only: bool,
                max_message_size: int) -> None:
    base = _base_offset_of(path)
    prefix = os.path.basename(path).split(".")[0]
    fd = _open_read(os.path.join(os.path.dirname(_absolute(path)), prefix + _files.LOG))
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
        key = _absolute(path)
        for i, (off, pos) in enumerate(zip(offsets.tolist(), positions.tolist())):
            if off == base and i > 0:
                return  # the zero-filled (preallocated) tail
            last = _first_batch_last_offset(fd, size, pos, max_message_size)
            if last != off:
                state.index_mismatches.compute_if_absent(key, lambda _: {})[off] = last
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
    directory = os.path.dirname(_absolute(path))
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
            cut = kafka_index_end(hint_offsets, base)
            hint_offsets, hint_positions = hint_offsets[:cut], hint_positions[:cut]
        else:
            hint_offsets = hint_positions = np.empty(0, np.int64)
        stamps, offsets, _ = read_time_index(path, base)
        size = _io.fs.size(fd)
        key = _absolute(path)
        prev = -1
        for i, (ts, off) in enumerate(zip(stamps.tolist(), offsets.tolist())):
            if off == base and i > 0:
                return
            slot = int(np.searchsorted(hint_offsets, off, side="right")) - 1  # the offset index lookup
            position = int(hint_positions[slot]) if slot >= 0 else 0
            batch = _batch_at_or_after(fd, size, position, off)
            if batch is None:
                state.ts_not_found.compute_if_absent(key, lambda _: []).append((off, -1))
            elif batch.last_offset != off:
                state.ts_not_found.compute_if_absent(key, lambda _: []).append((off, batch.last_offset))
            else:
                max_ts = -1
                for rec in batch.records():
                    if rec.timestamp is not None and rec.timestamp > max_ts:
                        max_ts = rec.timestamp
                if max_ts != ts:
                    state.ts_mismatches.compute_if_absent(key, lambda _: []).append((ts, max_ts))
                if prev >= ts:
                    state.ts_out_of_order.compute_if_absent(key, lambda _: []).append((ts, prev))
            if not verify_only:
                _out(f"timestamp: {ts} offset: {off}")
            prev = ts
    finally:
        _io.fs.close(fd)


def _dump_txn_index(path: str, state: _DumpState) -> None:
    """DumpLogSegments.dumpTxnIndex: every entry, read before any is printed. 4.4 prints ``version: 0`` (the one
    version there is) and refuses an entry of another (its 2-byte version field: KafkaException, nothing of the
    file printed); 4.0-4.2 read the first byte only (``00 01`` passed as version 0)."""
    data = _io.fs.read_file(path)
    entries = parse_entries(data)
    bad = entries["version"][entries["version"] != 0]
    if len(bad):
        _err(f"kvlog: {path}: Unexpected aborted transaction version {int(bad[0])} in transaction index "
             f"{_absolute(path)}, supported version range is 0 to 0")
        state.failed = True
        return
    for pid, first, last, lso in zip(entries["producer_id"].tolist(), entries["first_offset"].tolist(),
                                     entries["last_offset"].tolist(), entries["last_stable_offset"].tolist()):
        _out(f"version: 0 producerId: {pid} firstOffset: {first} lastOffset: {last} "
             f"lastStableOffset: {lso}")
    if len(data) % ENTRY_SIZE:
        _err(f"kvlog: {path}: {len(data) % ENTRY_SIZE} bytes after the last {ENTRY_SIZE}-byte "
             "aborted-transaction entry")
        state.failed = True


def _dump_producer_snapshot(path: str, state: _DumpState) -> None:
    """DumpLogSegments.dumpProducerIdSnapshot: one line per producer, its last batch when it has one. A file
    that is not a snapshot gets the message of Kafka's CorruptSnapshotException (the version is checked first,
    the CRC last); a malformed body, kvlog's words for it."""
    from kvlog.producer_state import SNAPSHOT_VERSION, read_snapshot

    data = _io.fs.read_file(path)
    try:
        entries = read_snapshot(data, path)
    except KvlogError as exc:
        version = int.from_bytes(data[:2], "big", signed=True)
        stored, computed = int.from_bytes(data[2:6], "big"), crc32c(bytes(data[6:]))
        if len(data) >= 2 and version != SNAPSHOT_VERSION:
            _err(f"Snapshot contained an unknown file version {version}")
        elif "CRC is no longer valid" in str(exc):
            _err(f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {stored}. Computed crc: {computed}")
        else:
            _err(str(exc))
        state.failed = True
        return
    for e in entries:
        txn = f"OptionalLong[{e.current_txn_first_offset}]" if e.current_txn_first_offset >= 0 else "OptionalLong.empty"
        line = (f"producerId: {e.producer_id} producerEpoch: {e.producer_epoch} coordinatorEpoch: "
                f"{e.coordinator_epoch} currentTxnFirstOffset: {txn} lastTimestamp: {e.last_timestamp}")
        if e.batches:  # (Kafka 4.0-4.2 also end a line without a batch with a space; 4.4 does not)
            b = e.batches[0]
            line += (f" firstSequence: {b.first_seq} lastSequence: {b.last_seq} lastOffset: {b.last_offset} "
                     f"offsetDelta: {b.offset_delta} timestamp: {b.timestamp}")
        _out(line)


def _dump_one(path: str, suffix: str, state: _DumpState, args: argparse.Namespace, *, deep: bool,
              print_data: bool, parser: Parser | None) -> None:
    """One file by its kind (``suffix``); an unknown kind is only reported."""
    if suffix in (_files.LOG, ".checkpoint"):
        _dump_log(path, state, deep=deep, print_data=print_data,
                  skip_metadata=args.skip_record_metadata, max_bytes=args.max_bytes, parser=parser)
    elif suffix == _files.INDEX:
        _dump_index(path, state, sanity_only=args.index_sanity_check,
                    verify_only=args.verify_index_only, max_message_size=args.max_message_size)
    elif suffix == _files.TIME_INDEX:
        _dump_time_index(path, state, sanity_only=args.index_sanity_check, verify_only=args.verify_index_only)
    elif suffix == _files.TXN_INDEX:
        _dump_txn_index(path, state)
    elif suffix == _files.SNAPSHOT:
        _dump_producer_snapshot(path, state)
    else:
        _err(f"Ignoring unknown file {path}")


def _dump_aiven_object(remote: "RemoteStorage", seg: "RemoteSegment", suffix: str, path: str, state: _DumpState,
                       args: argparse.Namespace, *, deep: bool, print_data: bool, parser: Parser | None) -> None:
    """An object of Aiven's plugin, read through its manifest (chunks decompressed and decrypted): the
    ``.log`` as a segment, the ``.indexes`` as the index files it holds."""
    from kvlog.tiered.virtual import VirtualTier

    tier = VirtualTier(remote)
    try:
        stem = _files.segment_path(tier.add(seg), seg.start_offset, "")
        kinds = {"log": [(_files.LOG, "")],
                 "indexes": [(_files.INDEX, " (offset index)"), (_files.TIME_INDEX, " (time index)"),
                             (_files.TXN_INDEX, " (transaction index)")]}.get(suffix)
        if kinds is None:
            _err(f"Ignoring unknown file {path}")
        for ext, what in kinds or []:
            if ext == _files.TXN_INDEX and not _io.fs.exists(stem + ext):
                continue
            _out(f"Dumping {path}{what}")
            _dump_one(stem + ext, ext, state, args, deep=deep, print_data=print_data, parser=parser)
    except BrokenPipeError:
        raise
    except (KvlogError, OSError) as exc:
        _err(f"kvlog: {path}: {exc}")
        state.failed = True
    finally:
        tier.close()


def _is_local_dir(path: str) -> bool:
    if storage.is_remote(path):
        return False
    try:
        return os.path.isdir(path[len("file://"):] if path.startswith("file://") else path)
    except OSError:
        return False


def cmd_dump(args: argparse.Namespace) -> int:
    state = _DumpState()
    parser = dump_parser(args)
    typed = args.decode or args.value_format is not None or args.key_format is not None
    if typed and parser is not None:
        _err("kvlog: --decode and --value-format/--key-format are for topics' records, not with an internal "
             "topic's decoder")
        return 2
    print_data = args.print_data_log or parser is not None or typed  # a decoder implies --print-data-log
    deep = args.deep_iteration or print_data
    remote = remote_storage_from(args)
    for path in _java_split(args.files):
        if remote is not None and remote.name == "aiven":
            found = aiven_segment_of(path)
            if found is not None:
                _dump_aiven_object(remote, found[0], found[1], path, state, args, deep=deep, print_data=print_data,
                                   parser=parser)
                continue
        if storage.is_remote(path):
            path = storage.normalize(path)  # the object's name without the query or credentials
        elif not path.startswith("file://"):
            path = _java_file_path(path)
        name = os.path.basename(path)
        suffix = name[name.rfind("."):] if "." in name else ""
        if name and _is_local_dir(path):  # Kafka's tool ignores it or fails on the name; kvlog says what to pass
            _err(f"kvlog: {path} is a directory: --files takes segment files, comma-separated "
                 f"(e.g. {os.path.join(path, '00000000000000000000.log')}); kvlog verify checks a whole directory")
            state.failed = True
            continue
        if suffix not in _KINDS:  # not opened: no error for a name that is not there (an empty one too)
            _out(f"Dumping {path}")
            _err(f"Ignoring unknown file {path}")
            continue
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
        try:
            file_parser = typed_parser(path, args) if typed and suffix == ".log" else parser
            _dump_one(path, suffix, state, args, deep=deep, print_data=print_data, parser=file_parser)
        except BrokenPipeError:
            raise
        except (KvlogError, OSError) as exc:
            _err(f"kvlog: {path}: {exc}")
            state.failed = True
    sys.stdout.flush()
    state.report()
    # Mismatches are reported, not failures: DumpLogSegments exits 0 after printing them, and a 2.8 broker's
    # healthy time indexes (the pre-3.8 rule) print "indexed offsets are not found" in both tools.
    return 1 if state.failed else 0
