"""Which remote segment serves which offsets of a partition: the broker's answer, as one plan.

A broker serves a fetch below its local log start from remote storage: it takes the leader epoch of the
offset from its leader-epoch cache, then asks ``__remote_log_metadata`` for the segment holding that
offset in that epoch (``RemoteLogMetadataCache.remoteLogSegmentMetadata(epoch, offset)``). After a
leader change, two leaders may both have copied offsets past the point where their histories diverged
(an *epoch fork*); the epoch cache decides which copy is the log. :func:`plan_remote_pieces` makes that
decision once for the whole partition:

1. the lineage (epoch → first offset) is the partition's ``leader-epoch-checkpoint``, completed by the
   epochs of the remote segments for epochs it no longer holds (the smallest start per epoch); epoch
   ``e`` covers ``[start(e), start(next higher epoch))``;
2. each segment's part for each of its epochs, clipped to that epoch's lineage range, is a piece; pieces
   are sorted by offset, adjacent pieces of one segment merged, and where two still overlap the lower
   keeps its range;
3. the pieces are clipped to ``[log start offset, local log start)``: below the log start the broker
   serves nothing, from the first local segment on it serves its own disk.

What remains must be contiguous: a hole between two pieces, or between the last one and the local log
start, is offsets the broker could not serve either (:class:`~kvlog.errors.RemoteSegmentError`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kvlog.errors import RemoteSegmentError
from kvlog.tiered.base import RemoteSegment

__all__ = ["RemotePiece", "lineage_of", "plan_remote_pieces"]

_NO_END = 1 << 63


@dataclass(frozen=True)
class RemotePiece:
    """Offsets ``[start, end)`` of the log, served by ``segment``."""

    segment: RemoteSegment
    start: int
    end: int


def lineage_of(local_epochs: Sequence[tuple[int, int]], segments: Iterable[RemoteSegment]) -> list[tuple[int, int]]:
    """(epoch, first offset) pairs sorted by epoch: the local checkpoint's entries, then for every epoch it
    does not hold, the smallest start any remote segment gives it."""
    lineage: dict[int, int] = {int(e): int(o) for e, o in local_epochs}
    local = set(lineage)
    for seg in segments:
        for epoch, start in seg.leader_epochs:
            if epoch in local:
                continue
            if epoch not in lineage or start < lineage[epoch]:
                lineage[epoch] = start
    return sorted(lineage.items())


def _segment_epoch_ranges(seg: RemoteSegment) -> list[tuple[int, int, int]]:
    """(epoch, first offset, end offset exclusive) of each epoch in ``seg``, in the segment's order."""
    epochs = sorted(seg.leader_epochs, key=lambda eo: (eo[1], eo[0]))
    out = []
    for i, (epoch, start) in enumerate(epochs):
        end = epochs[i + 1][1] if i + 1 < len(epochs) else seg.end_offset + 1
        out.append((epoch, max(start, seg.start_offset), min(end, seg.end_offset + 1)))
    return out


def plan_remote_pieces(segments: Sequence[RemoteSegment], *, local_epochs: Sequence[tuple[int, int]] = (),
                       log_start_offset: int = 0, local_log_start: int | None = None) -> list[RemotePiece]:
    """The remote pieces of a partition's log, in offset order (see the module's rule).

    ``segments`` are the partition's remote segments that are part of the log (``in_log``);
    ``local_epochs`` the local ``leader-epoch-checkpoint``; ``local_log_start`` the first local segment's
    base offset (None: no local segments)."""
    lineage = lineage_of(local_epochs, segments)
    epochs = [e for e, _ in lineage]
    starts = [o for _, o in lineage]
    raw: list[tuple[int, int, int, RemoteSegment]] = []  # start, end, order, segment
    for seg in segments:
        for epoch, lo, hi in _segment_epoch_ranges(seg):
            i = bisect.bisect_left(epochs, epoch)
            if i == len(epochs) or epochs[i] != epoch:
                continue  # (every segment epoch is in the lineage; kept for safety)
            begin = starts[i]
            until = min((o for o in starts[i + 1:]), default=_NO_END)
            lo, hi = max(lo, begin), min(hi, until)
            if lo < hi:
                raw.append((lo, hi, len(raw), seg))
    raw.sort(key=lambda p: (p[0], p[2]))
    pieces: list[RemotePiece] = []
    for lo, hi, _, seg in raw:
        if pieces:
            last = pieces[-1]
            if last.segment is seg and lo <= last.end:
                pieces[-1] = RemotePiece(seg, last.start, max(last.end, hi))
                continue
            lo = max(lo, last.end)
            if lo >= hi:
                continue
        pieces.append(RemotePiece(seg, lo, hi))
    top = _NO_END if local_log_start is None else local_log_start
    clipped = [RemotePiece(p.segment, max(p.start, log_start_offset), min(p.end, top)) for p in pieces]
    clipped = [p for p in clipped if p.start < p.end]
    for prev, nxt in zip(clipped, clipped[1:]):
        if nxt.start != prev.end:
            raise RemoteSegmentError(
                f"no remote segment in the log holds offsets [{prev.end}, {nxt.start}) of "
                f"{prev.segment.topic}-{prev.segment.partition}, between {prev.segment} and {nxt.segment}: "
                "the broker could not serve them either (a copy that never finished, or segments deleted "
                "out of order)")
    if clipped and local_log_start is not None and clipped[-1].end != local_log_start:
        last = clipped[-1]
        raise RemoteSegmentError(
            f"no remote segment in the log holds offsets [{last.end}, {local_log_start}) of "
            f"{last.segment.topic}-{last.segment.partition}, between {last.segment} and the first local "
            "segment: the broker could not serve them either")
    return clipped
