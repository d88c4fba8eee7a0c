"""Retention as a question, not an action: which segments may go (Kafka's ``UnifiedLog.deleteOldSegments``
rules), answered without changing anything, so that ``Log.delete_old_segments`` and the CLI's dry run
(``kvlog retention --dry-run``) cannot disagree.

Each rule deletes a prefix of the segments, in turn: those wholly below the log start offset, then
(cleanup.policy with ``delete``) the oldest beyond retention.bytes, then those older than retention.ms.
A segment is never deleted past the high watermark, nor is an empty active segment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kvlog.config import LogConfig
from kvlog.segment import LogSegment

_Rule = Callable[[LogSegment, "LogSegment | None"], bool]


def _deletable_prefix(segments: Sequence[LogSegment], rule: _Rule, high_watermark: int, log_end_offset: int) -> int:
    """How many leading ``segments`` ``rule(segment, next segment or None)`` deletes."""
    k = 0
    for i, seg in enumerate(segments):
        nxt = segments[i + 1] if i + 1 < len(segments) else None
        upper = nxt.base_offset if nxt is not None else log_end_offset
        if upper > high_watermark or (nxt is None and seg.size_in_bytes == 0) or not rule(seg, nxt):
            break
        k += 1
    return k


def below_log_start(segments: Sequence[LogSegment], log_start_offset: int, high_watermark: int,
                    log_end_offset: int) -> list[LogSegment]:
    """The leading segments wholly below ``log_start_offset`` (its successor starts at or before it)."""
    def below(seg: LogSegment, nxt: LogSegment | None) -> bool:
        return nxt is not None and nxt.base_offset <= log_start_offset

    return list(segments[:_deletable_prefix(segments, below, high_watermark, log_end_offset)])


def deletable_segments(segments: Sequence[LogSegment], config: LogConfig, now_ms: int, *, log_start_offset: int,
                       high_watermark: int, log_end_offset: int) -> list[LogSegment]:
    """The segments retention deletes at ``now_ms``, oldest first.

    A segment's age is its verified max record timestamp (recomputed from CRC-checked batch headers
    before it counts, never taken from an index alone: KAFKA-10207); this reads files, changes none.
    """
    doomed = below_log_start(segments, log_start_offset, high_watermark, log_end_offset)
    remaining = list(segments[len(doomed):])
    if not config.delete:
        return doomed
    rules: list[_Rule] = []
    if config.retention_bytes >= 0:
        excess = [sum(s.size_in_bytes for s in remaining) - config.retention_bytes]

        def over_size(seg: LogSegment, nxt: LogSegment | None) -> bool:
            if excess[0] - seg.size_in_bytes >= 0:
                excess[0] -= seg.size_in_bytes
                return True
            return False

        rules.append(over_size)
    rms = config.retention_ms
    if rms >= 0:
        def expired(seg: LogSegment, nxt: LogSegment | None) -> bool:
            # an empty segment (one left between others) ages by its mtime, as on a broker; the empty active
            # segment is never deleted (_deletable_prefix)
            if now_ms - seg.largest_timestamp <= rms:
                return False
            verified = seg.verified_max_timestamp()
            largest = verified if verified >= 0 else seg.largest_timestamp
            return now_ms - largest > rms

        rules.append(expired)
    for rule in rules:
        k = _deletable_prefix(remaining, rule, high_watermark, log_end_offset)
        doomed += remaining[:k]
        del remaining[:k]
    return doomed
