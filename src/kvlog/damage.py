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
    ends = [cut]
    if later_segment is not None:
        evidence.append(f"a later segment starts at offset {later_segment}")
    if len(audit.later):
        evidence.append(f"{len(audit.later)} CRC-valid batches follow it in the same file")
        ends.append(_in_order_end(audit.later, cut, seg.base_offset))
    if recovery_point > cut:
        evidence.append(f"the recovery point checkpoint is {recovery_point}")
        ends.append(recovery_point)
    if high_watermark > cut:
        evidence.append(f"the replication checkpoint's high watermark is {high_watermark}")
        ends.append(high_watermark)
    if index is not None:
        # an entry at the damaged batch itself is what a torn append leaves (the index page reached the disk,
        # the log page did not); only entries for batches after it prove later data was written
        past = index[0][index[1] > audit.valid_end]
        if len(past):
            evidence.append(f"the offset index maps offsets up to {int(past.max())} past it")
            ends.append(int(past.max()) + 1)
    # the next segment's own batches start at its base offset; otherwise the furthest evidence is the end
    end = later_segment if later_segment is not None else max(ends)
    if not evidence or end <= cut:
        return None  # a torn tail, or bytes after a segment's last batch that hide no offset
    reasons = [f.text() for f in audit.findings if f.cut and f.position >= audit.valid_end] or [
        f.text() for f in audit.findings if f.cut] or ["the batch there fails its checks"]
    return LogDamage(seg.log_path, audit.valid_end, audit.size - audit.valid_end, cut, end, reasons[0],
                     tuple(evidence))


def _in_order_end(later: np.ndarray, cut: int, base_offset: int) -> int:
    """One past the last offset of the leading run of ``later`` batches whose offsets go on from ``cut`` in
    order (their offsets lie outside the CRC: a batch that breaks the run ends what they prove); ``cut``
    when none does."""
    end = cut
    for first, last in zip(later["base_offset"].tolist(), later["last_offset"].tolist()):
        if first < end or last < first or first > base_offset + INT32_MAX:
            break
        end = last + 1
    return end
