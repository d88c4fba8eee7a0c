"""The transaction index (``.txnindex``): one segment's aborted transactions, Kafka's 34-byte entries.

Each entry (``AbortedTxn.java``) is ``version int16 (0), producerId int64, firstOffset int64,
lastOffset int64, lastStableOffset int64``, big-endian. An entry goes into the index of the segment
that holds the transaction's ABORT marker (``lastOffset`` is the marker's offset), so a transaction
may start in an earlier segment. The file is not preallocated and is created only when the first
entry is appended, as Kafka's is. A read_committed reader collects the entries overlapping its
range and drops the batches they cover; the helpers at the end do that on columns.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import numpy as np

from kvlog import _io
from kvlog.errors import CorruptIndexError

__all__ = ["AbortedTxn", "TransactionIndex", "ENTRY_DTYPE", "ENTRY_SIZE", "aborted_batch_mask", "entries_array",
           "parse_entries"]

ENTRY_SIZE = 34
CURRENT_VERSION = 0
#: One entry as numpy sees the file: packed, big-endian.
ENTRY_DTYPE = np.dtype([("version", ">i2"), ("producer_id", ">i8"), ("first_offset", ">i8"),
                        ("last_offset", ">i8"), ("last_stable_offset", ">i8")])
assert ENTRY_DTYPE.itemsize == ENTRY_SIZE
_NATIVE = np.dtype([("producer_id", "<i8"), ("first_offset", "<i8"), ("last_offset", "<i8"),
                    ("last_stable_offset", "<i8")])
LONG_MAX = 2**63 - 1


class AbortedTxn(NamedTuple):
    """An aborted transaction: its producer, first data offset, marker offset and the LSO at the abort."""

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int
    version: int = CURRENT_VERSION

    def to_bytes(self) -> bytes:
        a = np.zeros(1, ENTRY_DTYPE)
        a[0] = (self.version, self.producer_id, self.first_offset, self.last_offset, self.last_stable_offset)
        return a.tobytes()


def entries_array(txns: Any) -> np.ndarray:
    """Aborted transactions as a native structured array (``producer_id``, ``first_offset``,
    ``last_offset``, ``last_stable_offset``) from AbortedTxn objects, tuples, or an index array.

    A 2-tuple ``(producer_id, first_offset)`` (what Kafka's fetch response carries) gets
    ``last_offset = -1``: the transaction then ends at that producer's next control batch.
    """
    if isinstance(txns, np.ndarray) and txns.dtype.names and "first_offset" in txns.dtype.names:
        out = np.empty(len(txns), _NATIVE)
        for name in _NATIVE.names or ():
            out[name] = txns[name] if name in txns.dtype.names else -1
        return out
    rows = []
    for t in txns or ():
        if isinstance(t, AbortedTxn):
            rows.append((t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset))
        else:
            t = tuple(t)
            if len(t) == 2:
                rows.append((int(t[0]), int(t[1]), -1, -1))
            elif len(t) >= 3:
                rows.append((int(t[0]), int(t[1]), int(t[2]), int(t[3]) if len(t) > 3 else -1))
            else:
                raise ValueError(f"an aborted transaction needs (producer_id, first_offset[, last_offset]), got {t!r}")
    return np.array(rows, dtype=_NATIVE) if rows else np.empty(0, _NATIVE)


def parse_entries(data: bytes) -> np.ndarray:
    """The whole entries of a ``.txnindex`` file's bytes (``ENTRY_DTYPE``, a read-only view); a partial
    entry at the end is left out, as Kafka's reader leaves it (``len(data) % ENTRY_SIZE`` says if one was)."""
    return np.frombuffer(data[:len(data) - len(data) % ENTRY_SIZE], ENTRY_DTYPE)


class TransactionIndex:
    """One segment's ``.txnindex``. Entries are cached in memory; every write goes through ``_io.fs``."""

    def __init__(self, path: str, start_offset: int, *, writable: bool = True):
        self.path = path
        self.start_offset = start_offset
        self.writable = writable
        self._entries: np.ndarray | None = None  # ENTRY_DTYPE, as on disk
        self._dirty = False
        self.derived = False  # the entries were derived from the batches in memory (a reader's view)

    def __repr__(self) -> str:
        return f"TransactionIndex({self.path!r})"

    # ------------------------------------------------------------------------------------ reading
    def _load(self) -> np.ndarray:
        if self._entries is None:
            try:
                fd = _io.fs.open(self.path, os.O_RDONLY)
            except FileNotFoundError:
                self._entries = np.empty(0, ENTRY_DTYPE)
                return self._entries
            try:
                size = _io.fs.size(fd)
                data = _io.fs.pread(fd, size, 0) if size else b""
            finally:
                _io.fs.close(fd)
            self._entries = parse_entries(data).copy()
        return self._entries

    @property
    def entries(self) -> np.ndarray:
        """Every entry (``ENTRY_DTYPE``), in file order."""
        return self._load()

    def all_aborted_txns(self) -> list[AbortedTxn]:
        return [AbortedTxn(int(e["producer_id"]), int(e["first_offset"]), int(e["last_offset"]),
                           int(e["last_stable_offset"]), int(e["version"])) for e in self._load()]

    @property
    def last_offset(self) -> int | None:
        e = self._load()
        return int(e["last_offset"][-1]) if len(e) else None

    def collect(self, fetch_offset: int, upper_bound: int) -> tuple[np.ndarray, bool]:
        """Entries overlapping ``[fetch_offset, upper_bound)``, and whether the search is complete
        (an entry's LSO reached ``upper_bound``, so later segments cannot hold an overlapping one)."""
        e = self._load()
        if not len(e):
            return e, False
        hit = (e["last_offset"] >= fetch_offset) & (e["first_offset"] < upper_bound)
        done = np.nonzero(e["last_stable_offset"] >= upper_bound)[0]
        if len(done):
            stop = int(done[0]) + 1
            return e[:stop][hit[:stop]], True
        return e[hit], False

    def sanity_check(self) -> None:
        """Kafka's check (every lastOffset ≥ the segment base), plus whole entries and increasing
        last offsets, which a torn or zero-filled tail breaks."""
        if _io.fs.exists(self.path) and _io.fs.getsize(self.path) % ENTRY_SIZE:
            raise CorruptIndexError(f"transaction index {self.path} is not a whole number of {ENTRY_SIZE}-byte entries")
        e = self._load()
        if len(e) and int(e["last_offset"].min()) < self.start_offset:
            raise CorruptIndexError(
                f"last offset of an aborted transaction in {self.path} is below the segment start {self.start_offset}")
        if len(e) > 1 and (np.diff(e["last_offset"]) <= 0).any():
            raise CorruptIndexError(f"last offsets in transaction index {self.path} do not increase")
        if (e["version"] > CURRENT_VERSION).any() or (e["first_offset"] > e["last_offset"]).any():
            raise CorruptIndexError(f"transaction index {self.path} holds an invalid entry")

    # ------------------------------------------------------------------------------------ writing
    def _write_at(self, data: bytes, position: int) -> None:
        fd = _io.fs.open(self.path, os.O_WRONLY | os.O_CREAT)
        try:
            _io.fs.pwrite(fd, data, position)
        finally:
            _io.fs.close(fd)

    def append(self, txn: AbortedTxn) -> None:
        """Add an entry; last offsets must increase (Kafka refuses anything else)."""
        e = self._load()
        if len(e) and int(e["last_offset"][-1]) >= txn.last_offset:
            raise CorruptIndexError(
                f"aborted transaction ending at {txn.last_offset} does not follow {int(e['last_offset'][-1])} "
                f"in {self.path}")
        self._write_at(txn.to_bytes(), len(e) * ENTRY_SIZE)
        row = np.frombuffer(txn.to_bytes(), ENTRY_DTYPE)
        self._entries = np.concatenate([e, row])
        self._dirty = True

    def _cut(self, keep: int) -> None:
        if not _io.fs.exists(self.path):
            self._entries = np.empty(0, ENTRY_DTYPE)
            return
        if _io.fs.getsize(self.path) != keep * ENTRY_SIZE:
            fd = _io.fs.open(self.path, os.O_WRONLY)
            try:
                _io.fs.truncate(fd, keep * ENTRY_SIZE)
            finally:
                _io.fs.close(fd)
        self._entries = self._load()[:keep].copy()
        self._dirty = True

    def prefix_before(self, offset: int) -> int:
        """How many leading entries end below ``offset`` and look genuine (above the segment start,
        increasing, version 0): what ``truncate_to(offset)`` keeps."""
        keep = 0
        prev = -1
        for row in self._load():
            last = int(row["last_offset"])
            if (last >= offset or last < self.start_offset or last <= prev or int(row["version"]) != 0
                    or int(row["first_offset"]) > last):
                break
            prev = last
            keep += 1
        return keep

    def truncate_to(self, offset: int) -> None:
        """Remove the entries from the first one whose last offset ≥ ``offset`` (Kafka's truncateTo),
        or from the first one that cannot be genuine, so a torn tail never survives a rebuild."""
        self._cut(self.prefix_before(offset))

    def replace_from(self, offset: int, txns: list[AbortedTxn]) -> bool:
        """Make the entries from ``offset`` on exactly ``txns``; False (nothing written) when they are."""
        keep = self.prefix_before(offset)
        e = self._load()
        want = b"".join(t.to_bytes() for t in txns)
        if keep * ENTRY_SIZE + len(want) == len(e) * ENTRY_SIZE and e[keep:].tobytes() == want \
                and (not _io.fs.exists(self.path) or _io.fs.getsize(self.path) == len(e) * ENTRY_SIZE):
            return False
        self._cut(keep)
        for t in txns:
            self.append(t)
        return True

    def derive_from(self, offset: int, txns: list[AbortedTxn]) -> None:
        """What ``replace_from`` would leave, in memory only: a read-only log's view of an index a
        writer would rebuild from the batches. Nothing is written (the file may not even exist); reads
        of this object (``collect``, ``entries``) see these entries from now on."""
        keep = self.prefix_before(offset)
        rows = np.frombuffer(b"".join(t.to_bytes() for t in txns), ENTRY_DTYPE)
        # (concatenate gives native byte order: keep the file's, so ``entries`` reads as the file would)
        self._entries = np.concatenate([self._load()[:keep], rows]).astype(ENTRY_DTYPE, copy=False)
        self.derived = True

    def reset(self) -> None:
        self._cut(0)

    def flush(self) -> None:
        if not self._dirty or not _io.fs.exists(self.path):
            return
        fd = _io.fs.open(self.path, os.O_RDONLY)
        try:
            _io.fs.fsync(fd)
        finally:
            _io.fs.close(fd)
        self._dirty = False

    def rename_to(self, path: str) -> None:
        if _io.fs.exists(self.path):
            _io.fs.rename(self.path, path)
        self.path = path

    def delete(self) -> None:
        try:
            _io.fs.unlink(self.path)
        except FileNotFoundError:
            pass
        self._entries = np.empty(0, ENTRY_DTYPE)

    def exists(self) -> bool:
        return _io.fs.exists(self.path)


# ------------------------------------------------------------------------------- column helpers
def aborted_batch_mask(producer_ids: np.ndarray, base_offsets: np.ndarray, attributes: np.ndarray,
                       aborted: np.ndarray, magic: np.ndarray | None = None) -> np.ndarray:
    """Which batches belong to an aborted transaction (numpy, no loop per batch).

    A transactional data batch of producer P starting at offset o is aborted when an entry of P has
    ``first_offset ≤ o < last_offset``. Entries with ``last_offset = -1`` (Kafka fetch-response
    form) end at P's next control batch among these batches. Control batches are never "aborted
    data"; callers drop them separately.
    """
    n = len(producer_ids)
    out = np.zeros(n, dtype=bool)
    if not n or not len(aborted):
        return out
    attrs = attributes.astype(np.int64)
    txn = ((attrs & 0x10) != 0) & ((attrs & 0x20) == 0) & (producer_ids >= 0)
    if magic is not None:
        txn &= magic == 2
    if not txn.any():
        return out
    ab = np.sort(aborted, order=["producer_id", "first_offset"])
    last = ab["last_offset"].copy()
    open_ended = last < 0
    if open_ended.any():
        ctrl = (((attrs & 0x20) != 0) & (producer_ids >= 0))
        if magic is not None:
            ctrl &= magic == 2
        cp, co = producer_ids[ctrl], base_offsets[ctrl]
        order = np.lexsort((co, cp))
        cp, co = cp[order], co[order]
        # the first control batch of the same producer after first_offset
        for i in np.nonzero(open_ended)[0]:
            lo = np.searchsorted(cp, ab["producer_id"][i], side="left")
            hi = np.searchsorted(cp, ab["producer_id"][i], side="right")
            j = lo + np.searchsorted(co[lo:hi], ab["first_offset"][i], side="left")
            last[i] = co[j] if j < hi else LONG_MAX
    pids = np.unique(ab["producer_id"])
    rows = np.nonzero(txn)[0]
    bp, bo = producer_ids[rows], base_offsets[rows]
    rank = np.searchsorted(pids, bp)
    rank_c = np.minimum(rank, len(pids) - 1)
    known = pids[rank_c] == bp
    if not known.any():
        return out
    rows, bo, rank_c = rows[known], bo[known], rank_c[known]
    # entries of one producer never overlap: one searchsorted over (producer rank, first offset)
    ent_rank = np.searchsorted(pids, ab["producer_id"])
    lo_off = min(int(ab["first_offset"].min()), int(bo.min()))
    span = max(int(ab["first_offset"].max()), int(bo.max())) - lo_off + 1
    if span * len(pids) < 2**62:
        ekey = ent_rank.astype(np.int64) * span + (ab["first_offset"] - lo_off)
        bkey = rank_c.astype(np.int64) * span + (bo - lo_off)
        j = np.searchsorted(ekey, bkey, side="right") - 1
        ok = j >= 0
        jj = np.maximum(j, 0)
        hit = ok & (ent_rank[jj] == rank_c) & (bo < last[jj])
        out[rows[hit]] = True
        return out
    for r in range(len(pids)):  # offsets too far apart for one key: per producer
        sel = rank_c == r
        mine = ent_rank == r
        firsts, lasts = ab["first_offset"][mine], last[mine]
        j = np.searchsorted(firsts, bo[sel], side="right") - 1
        jj = np.maximum(j, 0)
        out[rows[sel][(j >= 0) & (bo[sel] < lasts[jj])]] = True
    return out


def committed_ranges(headers: np.ndarray, aborted: np.ndarray, upper: int | None = None
                     ) -> list[tuple[int, int]]:
    """Byte ranges ``[start, end)`` of the batches a read_committed reader keeps: no aborted data,
    no control batches, nothing at or past ``upper`` (the last stable offset)."""
    if not len(headers):
        return []
    attrs = headers["attributes"].astype(np.int64)
    magic = headers["magic"]
    drop = (magic == 2) & ((attrs & 0x20) != 0)
    if len(aborted):
        drop |= aborted_batch_mask(headers["producer_id"], headers["base_offset"], headers["attributes"],
                                   aborted, magic)
    if upper is not None:
        firsts = np.where((magic == 2) | (headers["base_offset"] >= 0), headers["base_offset"],
                          headers["last_offset"])
        drop |= firsts >= upper
    keep = ~drop
    if not keep.any():
        return []
    starts = headers["position"].astype(np.int64)
    ends = starts + headers["size"]
    edges = np.diff(np.concatenate([[0], keep.view(np.int8), [0]]))
    run_start = np.nonzero(edges == 1)[0]
    run_end = np.nonzero(edges == -1)[0] - 1
    return list(zip(starts[run_start].tolist(), ends[run_end].tolist()))
