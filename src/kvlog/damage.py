"""Damage in a read-only view: bytes that fail their checks inside data the directory says is durable.

A writer recovering after a crash cuts its log at the first invalid batch: what follows was never
acknowledged as flushed, so it is a torn tail (and kvlog sets it aside rather than delete it). A
*reader* must not apply that rule everywhere. Below the recovery point or the high watermark, before
later segments, before CRC-valid batches further on in the same file, or under entries of an offset
index, the bytes were written and flushed; a batch that fails its checks there is damage. Kafka's
broker trusts that data at load and a consumer that reaches the batch gets ``CorruptRecordException``;
a reader that silently ended the log there would give a wrong answer without an error.

So a read-only open records each such stretch as a :class:`LogDamage` (``Log.damage``) and keeps the
log end offset the evidence proves. Reads that reach it raise :class:`~kvlog.errors.CorruptRecordError`
naming file, position and offsets (``on_damage="raise"``, the default), or, where the caller asked for
it (``on_damage="skip"``, Spark's ``failOnDataLoss=false``), go on after it with a
:class:`DataLossWarning` that counts what was skipped. A stretch is skipped whole: from the damaged
batch to the end of its segment file (the offsets up to the next segment or the log end), so both Spark
engines skip exactly the same records; ``kvlog repair`` can recover the batches after the damaged one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from kvlog.errors import CorruptRecordError

if TYPE_CHECKING:
    from kvlog.batch_audit import SegmentAudit
    from kvlog.segment import LogSegment

__all__ = ["ON_DAMAGE", "DataLossWarning", "LogDamage", "check_on_damage", "find_damage"]

ON_DAMAGE = ("raise", "skip")
INT32_MAX = 2**31 - 1


class DataLossWarning(UserWarning):
    """A read skipped damaged records because the caller asked for it (``on_damage="skip"``)."""


class LogDamage(NamedTuple):
    """One damaged stretch of a segment file in a read-only view.

    ``position`` is the first damaged byte of ``path`` and ``size`` the bytes from there to the end of
    the file that the view does not read; ``first_offset``..``end_offset - 1`` are the offsets they
    hide (the next readable offset is ``end_offset``). ``reason`` is what the audit found there and
    ``evidence`` why the bytes count as durable data rather than a torn tail.
    """

    path: str
    position: int
    size: int
    first_offset: int
    end_offset: int
    reason: str
    evidence: tuple[str, ...]

    @property
    def record_count(self) -> int:
        """Offsets hidden by the damage (an upper bound on records: a compacted log has gaps)."""
        return self.end_offset - self.first_offset

    def error(self) -> CorruptRecordError:
        return CorruptRecordError(
            f"damaged data below what the log directory says is durable ({'; '.join(self.evidence)}): "
            f"{self.reason}. Offsets {self.first_offset}..{self.end_offset - 1} cannot be read; open with "
            "on_damage='skip' (Spark: failOnDataLoss=false) to read around them, or see `kvlog verify` and "
            "`kvlog repair`", file=self.path, position=self.position,
            offsets=(self.first_offset, self.end_offset - 1))

    def describe(self) -> str:
        return (f"{self.path} position {self.position}: offsets {self.first_offset}..{self.end_offset - 1} "
                f"({self.size} bytes) skipped: {self.reason}")


def check_on_damage(value: object) -> str:
    """Validate an ``on_damage`` argument."""
    if not isinstance(value, str) or value not in ON_DAMAGE:
        raise ValueError(f"on_damage must be one of {', '.join(map(repr, ON_DAMAGE))}, not {value!r}")
    return value


def find_damage(seg: LogSegment, audit: SegmentAudit, *, later_segment: int | None, recovery_point: int,
                high_watermark: int, index: tuple[np.ndarray, np.ndarray] | None) -> LogDamage | None:
    """The damage a read-only view must report at ``audit``'s cut, or None for a torn tail.

    ``later_segment`` is the base offset of the next segment (None for the last one); the checkpoints'
    ``recovery_point`` and ``high_watermark`` are -1 when the directory has none for this partition;
    ``index`` is a trusted offset index as ``(offsets, positions)``.
    """
    if audit.valid_end >= audit.size:
        return None
    cut = audit.next_offset
    evidence: list[str] = []
    end = cut
    if later_segment is not None:
        evidence.append(f"a later segment starts at offset {later_segment}")
        end = later_segment
    later = audit.later
    if len(later):
        evidence.append(f"{len(later)} CRC-valid batches follow it in the same file")
        # their offsets lie outside the CRC: only a run that goes on from the cut, in order, moves the end
        base, last = later["base_offset"].astype(np.int64), later["last_offset"].astype(np.int64)
        ok = (base >= cut) & (last >= base) & (base <= INT32_MAX + seg.base_offset)
        if later_segment is not None:
            ok &= last < later_segment
        run = int(np.argmin(ok)) if not ok.all() else len(ok)
        if run and (run == 1 or bool((base[1:run] > last[: run - 1]).all())):
            end = max(end, int(last[run - 1]) + 1)
    if recovery_point > cut:
        evidence.append(f"the recovery point checkpoint is {recovery_point}")
        end = max(end, recovery_point)
    if high_watermark > cut:
        evidence.append(f"the replication checkpoint's high watermark is {high_watermark}")
        end = max(end, high_watermark)
    if index is not None and len(index[1]):
        # an entry at the damaged batch itself is what a torn append leaves (the index page reached the disk,
        # the log page did not); only entries for batches after it prove later data was written
        past = index[1] > audit.valid_end
        if past.any():
            evidence.append(f"the offset index maps offsets up to {int(index[0][past].max())} past it")
            end = max(end, int(index[0][past].max()) + 1)
    if not evidence:
        return None
    if later_segment is not None:
        end = later_segment  # the next segment's own batches start there
    reasons = [f.text() for f in audit.findings if f.cut and f.position >= audit.valid_end] or [
        f.text() for f in audit.findings if f.cut] or ["the batch there fails its checks"]
    if end <= cut:
        return None  # bytes after the segment's last batch that hide no offset: the next segment goes on
    return LogDamage(seg.log_path, audit.valid_end, audit.size - audit.valid_end, cut, end, reasons[0],
                     tuple(evidence))
