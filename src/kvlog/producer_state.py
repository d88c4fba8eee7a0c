"""Producer state: what a log knows about each idempotent or transactional producer.

Kafka's ``ProducerStateManager``, ``ProducerStateEntry`` and ``ProducerAppendInfo`` restated. Per
producer id: its epoch, the sequence numbers and offsets of its last five batches (to recognise a
retried batch), the epoch of the last transaction coordinator that wrote a marker for it, and the
first offset of its open transaction. The open transactions give the last stable offset.

The state is written to ``<20-digit offset>.snapshot`` files (Kafka's layout, version 1): at every
roll (named after the new segment) and at close (named after the log end offset). Opening a log
loads the latest snapshot at or below the log end and replays the batches after it, so recovery
never scans more than the tail. A snapshot keeps only each producer's last batch, as Kafka's does.
"""

from __future__ import annotations

import os
import struct
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from kvlog import _files, _io
from kvlog.checksum import crc32c
from kvlog.errors import (
    CorruptSnapshotError,
    InvalidProducerEpochError,
    InvalidTxnStateError,
    OutOfOrderSequenceError,
    TransactionCoordinatorFencedError,
)

__all__ = [
    "BatchMetadata", "ProducerStateEntry", "ProducerAppendInfo", "ProducerStateManager", "CompletedTxn",
    "read_snapshot", "encode_snapshot", "NUM_BATCHES_TO_RETAIN", "CLIENT", "REPLICATION", "COORDINATOR",
]

NUM_BATCHES_TO_RETAIN = 5
NO_PRODUCER_ID = -1
NO_EPOCH = -1
NO_SEQUENCE = -1
INT32_MAX = 2**31 - 1
SNAPSHOT_VERSION = 1
_HEAD = struct.Struct(">hIi")          # version, crc (over everything after it), entry count
_ENTRY = struct.Struct(">qhiqiqiq")    # pid, epoch, lastSeq, lastOffset, offsetDelta, timestamp, coordEpoch, txnFirst
SNAPSHOT_ENTRY_SIZE = _ENTRY.size      # 46

#: Where an append comes from decides how much is checked (Kafka's AppendOrigin).
CLIENT = "client"              # producers: epochs and sequences checked
REPLICATION = "replication"    # copies of another log (append(assign_offsets=False)) and recovery: trusted
COORDINATOR = "coordinator"    # transaction markers: epochs and coordinator epochs checked


def decrement_sequence(seq: int, dec: int) -> int:
    return INT32_MAX - (dec - seq) + 1 if seq < dec else seq - dec


def increment_sequence(seq: int, inc: int) -> int:
    return inc - (INT32_MAX - seq) - 1 if seq > INT32_MAX - inc else seq + inc


class BatchMetadata(NamedTuple):
    """One remembered batch of a producer: enough to answer a retry of it."""

    last_seq: int
    last_offset: int
    offset_delta: int
    timestamp: int

    @property
    def first_seq(self) -> int:
        return decrement_sequence(self.last_seq, self.offset_delta)

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


class CompletedTxn(NamedTuple):
    """A transaction ended by a marker: data from ``first_offset``, marker at ``last_offset``."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


@dataclass
class ProducerStateEntry:
    """The state of one producer id (Kafka's ProducerStateEntry)."""

    producer_id: int
    producer_epoch: int = NO_EPOCH
    coordinator_epoch: int = -1
    last_timestamp: int = -1
    current_txn_first_offset: int = -1   # -1: no open transaction
    batches: deque[BatchMetadata] = field(default_factory=lambda: deque(maxlen=NUM_BATCHES_TO_RETAIN))

    @property
    def is_empty(self) -> bool:
        return not self.batches

    @property
    def first_seq(self) -> int:
        return self.batches[0].first_seq if self.batches else NO_SEQUENCE

    @property
    def last_seq(self) -> int:
        return self.batches[-1].last_seq if self.batches else NO_SEQUENCE

    @property
    def last_data_offset(self) -> int:
        return self.batches[-1].last_offset if self.batches else -1

    @property
    def last_offset_delta(self) -> int:
        return self.batches[-1].offset_delta if self.batches else 0

    def maybe_update_producer_epoch(self, epoch: int) -> bool:
        if self.producer_epoch != epoch:
            self.batches.clear()
            self.producer_epoch = epoch
            return True
        return False

    def add_batch(self, epoch: int, last_seq: int, last_offset: int, offset_delta: int, timestamp: int) -> None:
        self.maybe_update_producer_epoch(epoch)
        self.batches.append(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        self.last_timestamp = timestamp

    def find_duplicate(self, epoch: int, first_seq: int, last_seq: int) -> BatchMetadata | None:
        """The remembered batch with exactly this epoch and sequence range (a retry), or None."""
        if epoch != self.producer_epoch:
            return None
        for b in self.batches:
            if b.last_seq == last_seq and b.first_seq == first_seq:  # last_seq is a field, first_seq computed
                return b
        return None

    def copy(self) -> "ProducerStateEntry":
        return ProducerStateEntry(
            self.producer_id, self.producer_epoch, self.coordinator_epoch, self.last_timestamp,
            self.current_txn_first_offset, deque(self.batches, maxlen=NUM_BATCHES_TO_RETAIN))


class ProducerAppendInfo:
    """Validates one producer's batches of an append against its state and builds the new state."""

    def __init__(self, producer_id: int, current: ProducerStateEntry | None, origin: str):
        self.producer_id = producer_id
        self.current = current if current is not None else ProducerStateEntry(producer_id)
        self.origin = origin
        self.entry = self.current.copy()
        self.started_transactions: list[int] = []

    def _check_epoch(self, epoch: int, offset: int) -> None:
        cur = self.entry.producer_epoch
        if epoch < cur and self.origin != REPLICATION:
            raise InvalidProducerEpochError(
                f"epoch {epoch} of producer {self.producer_id} at offset {offset} is older than its current "
                f"epoch {cur} (a fenced producer)", producer_id=self.producer_id, offset=offset)

    def _check_sequence(self, epoch: int, first_seq: int, offset: int) -> None:
        entry, current = self.entry, self.current
        if epoch != entry.producer_epoch:
            if first_seq != 0 and entry.producer_epoch != NO_EPOCH:
                raise OutOfOrderSequenceError(
                    f"producer {self.producer_id} starts its new epoch {epoch} at sequence {first_seq}, not 0 "
                    f"(offset {offset})", producer_id=self.producer_id, offset=offset)
            return
        if not entry.is_empty:
            last = entry.last_seq
        elif epoch == current.producer_epoch:
            last = current.last_seq
        else:
            last = NO_SEQUENCE
        in_sequence = first_seq == last + 1 or (first_seq == 0 and last == INT32_MAX)
        if not (current.producer_epoch == NO_EPOCH or in_sequence):
            raise OutOfOrderSequenceError(
                f"out of order sequence {first_seq} from producer {self.producer_id} at offset {offset}: "
                f"its last sequence is {last}", producer_id=self.producer_id, offset=offset)

    def append_data_batch(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int,
                          first_offset: int, last_offset: int, is_transactional: bool) -> None:
        self._check_epoch(epoch, first_offset)
        if self.origin == CLIENT:
            self._check_sequence(epoch, first_seq, first_offset)
        self.entry.add_batch(epoch, last_seq, last_offset, last_offset - first_offset, last_timestamp)
        open_txn = self.entry.current_txn_first_offset >= 0
        if open_txn and not is_transactional:
            raise InvalidTxnStateError(
                f"non-transactional batch from producer {self.producer_id} at offset {first_offset} while its "
                f"transaction from {self.entry.current_txn_first_offset} is open",
                producer_id=self.producer_id, offset=first_offset)
        if not open_txn and is_transactional:
            self.entry.current_txn_first_offset = first_offset
            self.started_transactions.append(first_offset)

    def append_end_txn_marker(self, is_abort: bool, coordinator_epoch: int, epoch: int, offset: int,
                              timestamp: int) -> CompletedTxn | None:
        """A COMMIT/ABORT marker (legacy transaction-version rules: epoch ≥ current is accepted)."""
        self._check_epoch(epoch, offset)
        if self.entry.coordinator_epoch > coordinator_epoch and self.origin != REPLICATION:
            raise TransactionCoordinatorFencedError(
                f"marker for producer {self.producer_id} at offset {offset} has coordinator epoch "
                f"{coordinator_epoch}, older than {self.entry.coordinator_epoch}",
                producer_id=self.producer_id, offset=offset)
        first = self.entry.current_txn_first_offset
        done = CompletedTxn(self.producer_id, first, offset, is_abort) if first >= 0 else None
        self.entry.maybe_update_producer_epoch(epoch)
        self.entry.coordinator_epoch = coordinator_epoch
        self.entry.current_txn_first_offset = -1
        self.entry.last_timestamp = timestamp
        return done


# ------------------------------------------------------------------------------------- snapshots
def encode_snapshot(entries: Iterable[ProducerStateEntry]) -> bytes:
    """A ``.snapshot`` file: version 1, CRC-32C of everything after the CRC, then the entries."""
    rows = [_ENTRY.pack(e.producer_id, e.producer_epoch, e.last_seq, e.last_data_offset, e.last_offset_delta,
                        e.last_timestamp, e.coordinator_epoch, e.current_txn_first_offset)
            for e in entries]
    body = struct.pack(">i", len(rows)) + b"".join(rows)
    return struct.pack(">hI", SNAPSHOT_VERSION, crc32c(body)) + body


def read_snapshot(data: bytes, name: str = "snapshot") -> list[ProducerStateEntry]:
    """Parse a ``.snapshot`` file (Kafka's readSnapshot); ``CorruptSnapshotError`` when it is not one."""
    if len(data) < _HEAD.size:
        raise CorruptSnapshotError(f"{name}: {len(data)} bytes is too short for a producer snapshot")
    version, crc, count = _HEAD.unpack_from(data, 0)
    if count < 0 or len(data) < _HEAD.size + count * _ENTRY.size:
        raise CorruptSnapshotError(f"{name}: {count} entries do not fit in {len(data)} bytes")
    if version != SNAPSHOT_VERSION:
        raise CorruptSnapshotError(f"{name}: snapshot contained an unknown file version {version}")
    computed = crc32c(bytes(data[6:]))
    if crc != computed:
        raise CorruptSnapshotError(f"{name}: snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. "
                                   f"Computed crc: {computed}")
    out = []
    for i in range(count):
        pid, epoch, seq, offset, delta, ts, coord, txn = _ENTRY.unpack_from(data, _HEAD.size + i * _ENTRY.size)
        e = ProducerStateEntry(pid, epoch, coord, ts, txn if txn >= 0 else -1)
        if offset >= 0:
            e.batches.append(BatchMetadata(seq, offset, delta, ts))
        out.append(e)
    return out


# -------------------------------------------------------------------------------------- manager
class ProducerStateManager:
    """Every producer of one log, its open transactions and its snapshot files."""

    def __init__(self, directory: str, *, read_only: bool = False):
        self.directory = directory
        self.read_only = read_only
        self.producers: dict[int, ProducerStateEntry] = {}
        self.ongoing: dict[int, int] = {}   # first offset of an open transaction -> producer id
        self.last_map_offset = 0
        self.last_snap_offset = 0
        self.snapshots: dict[int, str] = self._list_snapshots()

    def _list_snapshots(self) -> dict[int, str]:
        out = {}
        for n in _io.fs.listdir(self.directory):
            if n.endswith(_files.SNAPSHOT) and _files.is_offset_name(n):
                out[_files.offset_from_name(n)] = os.path.join(self.directory, n)
        return out

    # ------------------------------------------------------------------------------------ queries
    def first_unstable_offset(self) -> int | None:
        return min(self.ongoing) if self.ongoing else None

    def last_stable_offset_for(self, done: CompletedTxn) -> int:
        """The LSO to record with an aborted transaction: the first other open transaction, or after the marker."""
        for first in sorted(self.ongoing):
            if self.ongoing[first] != done.producer_id:
                return first
        return done.last_offset + 1

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self.producers.get(producer_id)

    @property
    def is_empty(self) -> bool:
        return not self.producers

    def latest_snapshot_offset(self) -> int | None:
        return max(self.snapshots) if self.snapshots else None

    # ----------------------------------------------------------------------------------- updates
    def prepare_update(self, producer_id: int, origin: str) -> ProducerAppendInfo:
        return ProducerAppendInfo(producer_id, self.producers.get(producer_id), origin)

    def update(self, info: ProducerAppendInfo) -> None:
        self.producers[info.producer_id] = info.entry
        for first in info.started_transactions:
            self.ongoing[first] = info.producer_id

    def complete_txn(self, done: CompletedTxn) -> None:
        self.ongoing.pop(done.first_offset, None)

    def update_map_end_offset(self, offset: int) -> None:
        self.last_map_offset = offset

    def load_entries(self, entries: Iterable[ProducerStateEntry]) -> None:
        for e in entries:
            self.producers[e.producer_id] = e
            if e.current_txn_first_offset >= 0:
                self.ongoing[e.current_txn_first_offset] = e.producer_id

    def clear(self) -> None:
        self.producers.clear()
        self.ongoing.clear()

    # --------------------------------------------------------------------------------- snapshots
    def take_snapshot(self) -> None:
        """Write ``<last map offset>.snapshot`` unless one already covers this offset or the state is empty."""
        if self.read_only or self.last_map_offset <= self.last_snap_offset:
            return
        path = _files.segment_path(self.directory, self.last_map_offset, _files.SNAPSHOT)
        entries = [self.producers[p] for p in sorted(self.producers)]
        _io.fs.write_atomic(path, encode_snapshot(entries))
        self.snapshots[self.last_map_offset] = path
        self.last_snap_offset = self.last_map_offset

    def load_latest_snapshot(self, max_offset: int, log_start: int) -> int:
        """Load the newest readable snapshot at or below ``max_offset``; returns the offset to replay from.

        A snapshot that fails its CRC or layout is deleted (writable opens) and the one before it is
        tried, as Kafka does; with none the replay starts at ``log_start``.
        """
        self.clear()
        for off in sorted((o for o in self.snapshots if o <= max_offset), reverse=True):
            path = self.snapshots[off]
            try:
                entries = read_snapshot(_io.fs.read_file(path), path)
            except FileNotFoundError:
                self.snapshots.pop(off, None)
                continue
            except CorruptSnapshotError:
                self._remove(off)
                continue
            self.load_entries(entries)
            self.last_map_offset = self.last_snap_offset = off
            return off
        self.last_map_offset = self.last_snap_offset = log_start
        return log_start

    def _remove(self, offset: int) -> None:
        path = self.snapshots.pop(offset, None)
        if path is not None and not self.read_only:
            try:
                _io.fs.unlink(path)
            except FileNotFoundError:
                pass

    def delete_snapshots(self, keep: Callable[[int], bool]) -> bool:
        """Delete every snapshot whose offset ``keep`` rejects; True if any went (fsync the directory)."""
        doomed = [o for o in self.snapshots if not keep(o)]
        for o in doomed:
            self._remove(o)
        return bool(doomed) and not self.read_only

    def truncate_fully_and_start_at(self, offset: int) -> bool:
        self.clear()
        gone = self.delete_snapshots(lambda o: False)
        self.last_snap_offset = 0
        self.last_map_offset = offset
        return gone
