"""Cross-checks for the fields of a segment that no CRC covers, and where its trustworthy bytes end.

A v2 batch's CRC covers the bytes from ``attributes`` on; its base offset, length, partition leader
epoch and magic lie before it. A legacy message's CRC leaves out its offset and size. A flipped bit
there passes every CRC, so each such field is treated as evidence and checked against what else
the segment says:

- **length and magic** must frame exactly to the next CRC-valid batch header. When they do not,
  the walk resynchronises on the next position where a CRC-valid batch starts; if the damaged
  batch's own CRC then matches over exactly the bytes up to that position (or under the v2 layout),
  the CRC itself proves the true length (or magic);
- **offsets** must increase from batch to batch, start at or above the segment's base offset and
  stay below the next segment's, and fit the 32-bit relative index. In a log whose history is
  dense (never compacted, no gaps elsewhere in the segment) they must also be contiguous. When two
  neighbours disagree, the batch whose removal leaves room for exactly its own record count (a
  CRC-covered field) is the damaged one, and that room proves its true base offset;
- **partition leader epochs** never decrease in a log a leader wrote; one that breaks an
  otherwise steady sequence is reported (its records are intact, so it is not cut).

``audit_segment`` returns the verdict recovery, read-only opens and ``kvlog verify`` all share:
where the trustworthy bytes end (``valid_end``), the headers before it, and every finding with the
field it names. Everything after ``valid_end`` is set aside by a writer, never deleted, unless it
is all zero bytes (which cannot hold a batch).
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field
from collections.abc import Callable, Iterator
from typing import NamedTuple, Protocol

import numpy as np

from kvlog import _files, _io
from kvlog._core import records as _k
from kvlog.checksum import crc32c
from kvlog.errors import CorruptRecordError, KvlogError, StorageError

__all__ = ["REPAIRABLE", "Finding", "SegmentAudit", "audit_segment", "dense_history"]



class AuditedSegment(Protocol):
    """What the audit reads of a segment (a ``kvlog.segment.LogSegment``: the audit sits below it and knows
    nothing else of it)."""

    @property
    def base_offset(self) -> int: ...

    @property
    def size_in_bytes(self) -> int: ...

    def pread(self, position: int, size: int) -> bytes: ...

    def iter_headers(self, start_position: int = 0, *, end_position: int | None = None, with_crc: bool = False,
                     stop_on_crc: bool = False, limit: int | None = None, chunk: int = ...) -> Iterator[np.ndarray]: ...


INT32_MAX = 2**31 - 1
_V2_MIN = 61  # a v2 batch header
_LEGACY_MIN = (26, 34)  # offset + size + the smallest v0 / v1 message
_CHUNK = 4 << 20
# the fields outside every CRC, which ``kvlog repair`` may rewrite once proven
REPAIRABLE = ("base offset", "offset", "wrapper offset", "batch length", "magic", "partition leader epoch")


class Finding(NamedTuple):
    """One field that contradicts the evidence (or one stretch of bytes that frames as no batch).

    ``field`` names it ("base offset", "batch length", "magic", "partition leader epoch", "crc",
    "framing"); ``expected`` is the value the neighbours prove when ``proven`` is true, or the value
    they suggest; ``cut`` is true when the finding ends the trustworthy bytes of the segment.
    """

    position: int
    field: str
    found: int | None
    expected: int | None
    proven: bool
    cut: bool
    detail: str

    def text(self) -> str:
        head = f"{self.field} of the batch at position {self.position}"
        if self.found is not None and self.expected is not None:
            how = "proven" if self.proven else "suggested"
            head += f" contradicts its neighbours: expected {self.expected} ({how}), found {self.found}"
        elif self.found is not None:
            head += f" ({self.found})"
        return f"{head}: {self.detail}" if self.detail else head


@dataclass
class SegmentAudit:
    """The verdict on one segment's ``.log``: bytes ``[0, valid_end)`` are the log, the rest is not."""

    base_offset: int
    size: int
    valid_end: int
    headers: np.ndarray  # BATCH_DTYPE rows of the batches before valid_end
    findings: list[Finding] = field(default_factory=list)
    zero_tail: bool = False  # the bytes after valid_end are all zero (nothing worth setting aside)
    later: np.ndarray = field(default_factory=lambda: np.empty(0, _k.BATCH_DTYPE))
    """BATCH_DTYPE rows of the CRC-valid batches found after the one at ``valid_end`` (evidence that the bytes at the
    cut were written and flushed before later ones, not a torn tail)."""

    @property
    def last_offset(self) -> int:
        return int(self.headers["last_offset"][-1]) if len(self.headers) else self.base_offset - 1

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def clean(self) -> bool:
        return self.valid_end == self.size and not any(f.cut for f in self.findings)

    @property
    def set_aside(self) -> int:
        """Bytes after the cut that a writer keeps in a quarantine file (0 for a zero-filled tail)."""
        return 0 if self.zero_tail else self.size - self.valid_end


class ProducerLast(NamedTuple):
    """A producer's last batch as a producer snapshot records it."""

    producer_id: int
    epoch: int
    last_sequence: int
    last_offset: int
    snapshot: str


def snapshot_producers(directory: str) -> list[ProducerLast]:
    """Every producer's last batch from every readable ``.snapshot`` file in ``directory``.

    Snapshots recovery set aside with the bytes after a cut (``.snapshot.quarantined``) count too.

    A (producer, epoch, sequence) that two snapshots place at different offsets is left out: evidence
    that contradicts itself proves nothing.
    """
    from kvlog import _files
    from kvlog.producer_state import read_snapshot

    seen: dict[tuple[int, int, int], ProducerLast | None] = {}
    for name in sorted(_io.fs.listdir(directory)):
        if not (name.endswith((_files.SNAPSHOT, _files.SNAPSHOT + _files.QUARANTINED)) and _files.is_offset_name(name)):
            continue
        try:
            entries = read_snapshot(_io.fs.read_file(os.path.join(directory, name)), name)
        except StorageError:
            raise  # the store failed: not evidence about the snapshot
        except (KvlogError, OSError):
            continue
        for e in entries:
            if not e.batches:
                continue
            b = e.batches[-1]
            key = (e.producer_id, e.producer_epoch, b.last_seq)
            mine = ProducerLast(e.producer_id, e.producer_epoch, b.last_seq, b.last_offset, name)
            old = seen.get(key, mine)
            seen[key] = mine if old is not None and old.last_offset == mine.last_offset else None
    return [p for p in seen.values() if p is not None]


class _Region(NamedTuple):
    start: int
    end: int  # the next CRC-valid batch, or the end of the file


def audit_segment(seg: AuditedSegment, *, prev_last: int = -1, next_base: int | None = None,
                  dense: bool = True, index: tuple[np.ndarray, np.ndarray] | None = None,
                  producers: Callable[[], list[ProducerLast]] | None = None) -> SegmentAudit:
    """Walk every batch of ``seg`` (CRC included) and cross-check the fields no CRC covers.

    ``prev_last`` is the last offset of the segment before (``-1`` when none), ``next_base`` the
    base offset of the one after; ``dense`` says the log's history allows no offset gaps (not
    compacted): gaps then count against a batch, but only where the rest of the segment is dense.
    ``index`` is ``(offsets, positions)`` of an offset index that passed its own checks: an entry
    pointing at a batch says which offset that batch ends at, and a batch that disagrees is corrupt.
    ``producers`` lists, from the producer snapshots (which carry their own CRC), the last batch of
    each producer: a batch with that producer id, epoch and last sequence (all CRC-covered) must end
    at that offset, which proves its base offset. It is called only when a batch has a producer id.
    """
    size = seg.size_in_bytes
    runs, regions, zero_tail = _frame(seg, size)
    findings = [_region_finding(seg, r, size) for r in regions]
    parts = [h for h, _ in runs]
    h = (parts[0] if len(parts) == 1 else np.concatenate(parts)) if parts else np.empty(0, _k.BATCH_DTYPE)
    after_gap = np.zeros(len(h), bool)  # a damaged stretch lies just before this batch
    i = 0
    for run, gap_before in runs:
        if gap_before and len(run):
            after_gap[i] = True
        i += len(run)
    damaged_tail = zero_tail or bool(regions) and (not len(h) or regions[-1].start >= int(h["position"][-1]))
    cut_frame = _judge_offsets(seg, h, after_gap, damaged_tail, prev_last, next_base, dense, findings, index,
                               producers)
    _check_epochs(h, findings, cut_frame)
    valid_end = regions[0].start if regions else (int(h["position"][-1] + h["size"][-1]) if len(h) else 0)
    if cut_frame is not None:
        valid_end = min(valid_end, int(h["position"][cut_frame]))
    # (positions rise along the file: the batches before the cut and after it are slices, not copies)
    keep = h[:int(np.searchsorted(h["position"], valid_end, "left"))]
    later = h[int(np.searchsorted(h["position"], valid_end, "right")):]
    findings.sort(key=lambda f: f.position)
    tail_zero = zero_tail and not regions and cut_frame is None
    return SegmentAudit(seg.base_offset, size, valid_end, keep, findings, tail_zero, later)


# ------------------------------------------------------------------------------------------ framing
def _frame(seg: AuditedSegment, size: int) -> tuple[list[tuple[np.ndarray, bool]], list[_Region], bool]:
    """Runs of CRC-valid batches, the damaged stretches between them, and whether the file ends in zeros."""
    runs: list[tuple[np.ndarray, bool]] = []
    regions: list[_Region] = []
    pos = 0
    gap_before = False
    budget = [4 * size + (64 << 20)]  # CRC bytes the resynchronising search may spend
    while pos < size:
        end = pos
        chunk: list[np.ndarray] = []
        try:
            for h in seg.iter_headers(pos, with_crc=True, stop_on_crc=True):
                chunk.append(h)
                end = int(h["position"][-1] + h["size"][-1])
        except CorruptRecordError as exc:
            if exc.position is not None:
                end = max(end, exc.position)
        if chunk:
            runs.append((chunk[0] if len(chunk) == 1 else np.concatenate(chunk), gap_before))
        if end >= size:
            return runs, regions, False
        if _all_zero(seg, end, size):
            return runs, regions, True
        nxt = _resync(seg, end + 1, size, budget)
        regions.append(_Region(end, size if nxt < 0 else nxt))
        if nxt < 0:
            return runs, regions, False
        pos = nxt
        gap_before = True
    return runs, regions, False


def _all_zero(seg: AuditedSegment, start: int, end: int) -> bool:
    pos = start
    while pos < end:
        data = seg.pread(pos, min(_CHUNK, end - pos))
        if not data:
            return True
        if data.count(0) != len(data):
            return False
        pos += len(data)
    return True


def _resync(seg: AuditedSegment, start: int, size: int, budget: list[int]) -> int:
    """The first position ≥ ``start`` where a whole, CRC-valid batch starts; -1 when there is none.

    Candidates are filtered on the header alone (a magic byte of 0-2 and a length that fits), then
    checked by CRC; ``budget`` bounds the CRC bytes spent, so crafted input cannot make this quadratic.
    """
    pos = start
    while pos + 21 <= size:
        data = seg.pread(pos, min(_CHUNK + 21, size - pos))
        if len(data) < 21:
            return -1
        arr = np.frombuffer(data, np.uint8)
        n = len(arr) - 20  # candidate starts in this chunk whose first 21 bytes are here
        lengths = ((arr[8:8 + n].astype(np.int64) << 24) | (arr[9:9 + n].astype(np.int64) << 16)
                   | (arr[10:10 + n].astype(np.int64) << 8) | arr[11:11 + n].astype(np.int64))
        magic = arr[16:16 + n]
        ends = np.arange(pos, pos + n, dtype=np.int64) + 12 + lengths
        fits = ends <= size
        plausible = fits & (((magic == 2) & (lengths >= _V2_MIN - 12)) | ((magic == 1) & (lengths >= 22))
                            | ((magic == 0) & (lengths >= 14)))
        for k in np.flatnonzero(plausible).tolist():
            q = pos + int(k)
            if budget[0] <= 0:
                return -1
            budget[0] -= int(lengths[k]) + 12
            if _crc_valid_at(seg, q):
                return q
        if pos + n >= size - 20:
            return -1
        pos += n
    return -1


def _crc_valid_at(seg: AuditedSegment, position: int) -> bool:
    """A whole batch with a valid CRC (and a header the framing accepts) starts at ``position``."""
    try:
        for h in seg.iter_headers(position, with_crc=True, stop_on_crc=True, limit=1):
            return bool(len(h)) and int(h["position"][0]) == position
    except CorruptRecordError:
        return False
    return False


def _crc_with(data: bytes, magic: int) -> bool:
    """Whether ``data`` (one entry, as long as it is) carries a valid CRC under ``magic``'s layout."""
    if magic == 2:
        return len(data) >= _V2_MIN and crc32c(data[21:]) == int.from_bytes(data[17:21], "big")
    return len(data) >= _LEGACY_MIN[magic] and zlib.crc32(data[16:]) == int.from_bytes(data[12:16], "big")


def _region_finding(seg: AuditedSegment, r: _Region, size: int) -> Finding:
    """Name what is wrong with the bytes at ``r.start``: a length or magic the CRC proves, or damage."""
    head = seg.pread(r.start, 21)
    whole = r.end - r.start
    if len(head) < 21:
        return Finding(r.start, "framing", None, None, False, True,
                       f"{size - r.start} bytes at the end of the file are too few for a batch header "
                       "(a torn write)")
    length = int.from_bytes(head[8:12], "big", signed=True)
    magic = head[16]
    data = seg.pread(r.start, whole) if whole <= (256 << 20) else b""
    if data:
        if magic in (0, 1, 2) and length != whole - 12 and _crc_with(data, magic):
            return Finding(r.start, "batch length", length, whole - 12, True, True,
                           f"the batch's CRC matches over exactly {whole} bytes, up to "
                           + ("the end of the file" if r.end == size else f"the next valid batch at {r.end}"))
        for m in (2, 1, 0):
            if m != magic and _crc_with(data, m):
                found_len = f" (and its length {length} should be {whole - 12})" if length != whole - 12 else ""
                return Finding(r.start, "magic", magic, m, True, True,
                               f"the batch's CRC matches under the magic v{m} layout{found_len}")
    if magic not in (0, 1, 2):
        detail = f"unknown magic {magic}"
    elif r.start + 12 + length > size or length < 14:
        detail = (f"its length {length} runs past the end of the file" if length >= 14
                  else f"its length {length} is below the smallest entry")
        if r.end == size:
            detail += " (a torn write, or a damaged length)"
    else:
        detail = "CRC mismatch: the bytes the CRC covers are damaged"
    where = "the end of the file" if r.end == size else f"the next valid batch at position {r.end}"
    return Finding(r.start, "crc" if detail.startswith("CRC") else "framing", None, None, False, True,
                   f"{detail}; {whole} bytes up to {where} hold no valid batch")


# ------------------------------------------------------------------------------------------ offsets
def _firsts(seg: AuditedSegment, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First offsets and record counts: v2 from the header; legacy wrappers by inflating them."""
    first = h["base_offset"].astype(np.int64)
    count = (h["last_offset"] - h["base_offset"] + 1).astype(np.int64)
    wrappers = np.flatnonzero((h["magic"] < 2) & (h["base_offset"] < 0))
    if len(wrappers):
        from kvlog.records import MemoryRecords

        for i in wrappers.tolist():
            data = seg.pread(int(h["position"][i]), int(h["size"][i]))
            try:
                batch = next(MemoryRecords(data).batches())
                count[i] = batch.record_count
                first[i] = int(h["last_offset"][i]) - count[i] + 1
            except (CorruptRecordError, StopIteration, ValueError):
                count[i] = 1
                first[i] = int(h["last_offset"][i])
    return first, count


def _judge_offsets(seg: AuditedSegment, h: np.ndarray, after_gap: np.ndarray, damaged_tail: bool, prev_last: int,
                   next_base: int | None, dense: bool, findings: list[Finding],
                   index: tuple[np.ndarray, np.ndarray] | None = None,
                   producers: Callable[[], list[ProducerLast]] | None = None) -> int | None:
    """Index of the first batch whose offsets contradict the evidence (appending its finding), or None."""
    n = len(h)
    if n == 0:
        return None
    base = seg.base_offset
    first, count = _firsts(seg, h)
    last = h["last_offset"].astype(np.int64)
    lower = max(prev_last, base - 1)  # the first batch must start above this
    upper = next_base if next_base is not None else 2**63 - 1
    before = np.concatenate([[lower], last[:-1]])
    alone = (last >= upper) | (last - base > INT32_MAX) | (first < base)  # wrong whatever its neighbours say
    alone[0] |= first[0] <= lower
    indexed = np.full(n, -1, np.int64)  # the last offset the offset index records for the batch, or -1
    if index is not None and len(index[1]):
        positions = h["position"].astype(np.int64)
        j = np.searchsorted(positions, index[1])
        ok = j < n
        jc = np.minimum(j, n - 1)
        hit = ok & (positions[jc] == index[1])
        indexed[jc[hit]] = index[0][hit]
        # a batch contiguous with both neighbours outvotes an index entry (then the entry is what is damaged)
        confirmed = (first == before + 1) & np.append(first[1:] == last[:-1] + 1, True)
        alone |= (indexed >= 0) & (indexed != last) & ~confirmed
    snapped = np.full(n, -1, np.int64)  # the last offset a producer snapshot records for the batch, or -1
    snap_names: dict[int, str] = {}
    has_pid = (h["producer_id"] >= 0) & (h["magic"] == 2) & (h["base_sequence"] >= 0)
    if producers is not None and has_pid.any():
        last_seq = (h["base_sequence"].astype(np.int64) + (last - first)) % (2**31)
        for p in producers():
            hit = np.flatnonzero(has_pid & (h["producer_id"] == p.producer_id) & (h["producer_epoch"] == p.epoch)
                                 & (last_seq == p.last_sequence))
            for k in hit.tolist():
                snapped[k] = p.last_offset
                snap_names[k] = p.snapshot
        alone |= (snapped >= 0) & (snapped != last)
    hard = (first <= before) | alone
    gaps = (first != before + 1)
    gaps[0] = first[0] != base  # a dense segment starts at its base offset
    gaps &= ~after_gap  # a damaged stretch may hold the missing offsets
    tail_gap = next_base is not None and not damaged_tail and int(last[-1]) + 1 != next_base
    if dense:
        # gaps that no contradiction explains: not a link to a batch wrong on its own, nor a link next
        # to a link whose offsets overlap (its culprit may be the batch this gap leads to)
        link_hard = first <= before
        prev_alone = np.concatenate([[False], alone[:-1]])
        next_link_hard = np.concatenate([link_hard[1:], [False]])
        quiet = ~(alone | prev_alone | link_hard | next_link_hard)
        dense = int(np.count_nonzero(gaps & quiet)) + int(tail_gap) <= 1 and n + int(next_base is not None) >= 2
    soft = gaps if dense else np.zeros(n, bool)
    sites = np.flatnonzero(hard | soft)
    if dense and tail_gap and not len(sites):
        sites = np.array([n])  # only the end disagrees with the next segment's base
    if not len(sites):
        return None
    v = int(sites[0])
    if v >= n:  # the last batch does not reach the next segment's base offset
        v = n - 1
        return _blame(findings, h, first, count, v, int(last[v - 1]) + 1 if v else base, None,
                      "the next segment starts at {}, so a dense log's last batch ends right before it"
                      .format(next_base))

    def room_fits(lo: int, hi: int, k: int) -> tuple[bool, bool]:
        """Whether batch k fits strictly between offsets lo and hi (plausible, and exactly)."""
        room = hi - lo - 1
        return room >= count[k], room == count[k]

    left = int(last[v - 2]) if v >= 2 else lower
    if v >= 1:
        a_fit, a_exact = room_fits(left, int(first[v]), v - 1)
    else:
        a_fit, a_exact = False, False
    prev = int(last[v - 1]) if v >= 1 else lower
    nxt = int(first[v + 1]) if v + 1 < n else (upper if next_base is not None else None)
    if nxt is not None:
        b_fit, b_exact = room_fits(prev, nxt, v)
    else:
        b_fit, b_exact = True, False
    if alone[v]:
        pick_a = False
    elif v >= 1 and a_exact:
        pick_a = True
    elif b_exact or not hard[v]:
        pick_a = False  # a gap alone: the batch after it moved (the one before would overlap its own next)
    else:
        pick_a = v >= 1 and (a_fit or not b_fit)  # when unsure, cut at the earlier one: it is set aside, not lost
    if pick_a:
        k, exact, expected = v - 1, a_exact, left + 1
    else:
        k, exact, expected = v, b_exact, prev + 1
    if int(snapped[k]) >= 0 and int(snapped[k]) != int(last[k]):
        exact, expected = True, int(snapped[k]) - int(count[k]) + 1
        why = "the producer snapshot {} says producer {}'s batch with these sequence numbers ends at offset {}".format(
            snap_names[k], int(h["producer_id"][k]), int(snapped[k]))
    elif not exact and int(indexed[k]) >= 0 and int(indexed[k]) != int(last[k]):
        expected = int(indexed[k]) - int(count[k]) + 1
        why = "the offset index entry for this position says the batch ends at offset {}".format(int(indexed[k]))
    elif dense and not exact and k == v and nxt is None:
        why = "a dense log continues at {}, and nothing after this batch says otherwise".format(prev + 1)
    elif exact:
        why = "the neighbours leave room for exactly its {} records there".format(int(count[k]))
    elif int(first[k]) <= (int(last[k - 1]) if k else lower):
        why = "it does not follow the batch before it"
    elif int(last[k]) >= upper:
        why = "it reaches the next segment's base offset {}".format(upper)
    elif int(last[k]) - base > INT32_MAX:
        why = "its offsets cannot be stored relative to the segment base {}".format(base)
    else:
        why = "the batches around it disagree with it"
    return _blame(findings, h, first, count, k, expected, exact, why)


def _blame(findings: list[Finding], h: np.ndarray, first: np.ndarray, count: np.ndarray, k: int, expected: int,
           exact: bool | None, why: str) -> int:
    found = int(first[k])
    legacy = int(h["magic"][k]) < 2
    name = "offset" if legacy else "base offset"
    if legacy and int(h["base_offset"][k]) < 0:  # a compressed wrapper carries its last offset
        found, expected, name = int(h["last_offset"][k]), expected + int(count[k]) - 1, "wrapper offset"
    findings.append(Finding(int(h["position"][k]), name, found, expected, bool(exact), True, why))
    return k


def _check_epochs(h: np.ndarray, findings: list[Finding], cut: int | None) -> None:
    """Report a v2 batch whose partition leader epoch breaks the steady sequence around it."""
    end = len(h) if cut is None else cut
    if end < 2:
        return
    e = h["partition_leader_epoch"][:end].astype(np.int64)
    v2 = h["magic"][:end] == 2
    for k in np.flatnonzero(v2[1:] & v2[:-1] & (e[1:] < e[:-1])).tolist():
        # a drop between k and k+1: the batch that differs from its other neighbour is the odd one
        lo, hi = k, k + 1
        before = int(e[lo - 1]) if lo >= 1 else None
        after = int(e[hi + 1]) if hi + 1 < end else None
        if after is not None and int(e[lo]) == after and (before is None or before <= after):
            odd, expected = hi, after
        elif before is not None and int(e[hi]) == before:
            odd, expected = lo, before
        else:
            odd, expected = hi, int(e[lo])
        proven = (odd >= 1 and odd + 1 < end and int(e[odd - 1]) == int(e[odd + 1]))
        findings.append(Finding(int(h["position"][odd]), "partition leader epoch", int(e[odd]), expected, proven,
                                False, "leader epochs never decrease along a log; its records are kept"))


def dense_history(directory: str, topic: str | None, partition: int | None,
                  cleanup_policy: tuple[str, ...] = ("delete",), names: list[str] | None = None) -> bool:
    """Whether a partition's offsets can have no gaps: never compacted, by config and by the cleaner's record.

    The cleaner's record is ``cleaner-offset-checkpoint`` beside the partition directory; an unreadable
    one counts as "may have been compacted" (gaps allowed: the weaker, safer assumption), and so do a
    compaction's ``.cleaned`` / ``.swap`` leftovers (the first compaction of a log writes its checkpoint
    entry only after its swap). ``names`` is the directory's listing when the caller has it (a writer's,
    taken before it finished a swap).
    """
    from kvlog import checkpoint

    if "compact" in cleanup_policy:
        return False
    try:  # a compaction caught between its renames: it ran, though its checkpoint may not name the log yet
        listing = _io.fs.listdir(directory) if names is None else names
    except OSError:
        return False
    if any(n.endswith((_files.SWAP, _files.CLEANED)) and _files.is_offset_name(n) for n in listing):
        return False
    try:
        cleaned = checkpoint.read_offsets(os.path.join(os.path.dirname(directory), checkpoint.CLEANER_OFFSET))
    except (ValueError, OSError):
        return False
    return (topic, partition) not in cleaned


def quarantine_name(log_path: str, position: int) -> str:
    """``<segment>.log.<position>.quarantined`` (numbered when that name is taken)."""
    name = f"{log_path}.{position}"
    k = 0
    candidate = name + ".quarantined"
    while os.path.exists(candidate):
        k += 1
        candidate = f"{name}-{k}.quarantined"
    return candidate
