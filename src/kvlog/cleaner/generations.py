"""Generational scheduling of the cleaner's rewrites (kvlog's, not Kafka's): which older segments are worth
recopying."""

from __future__ import annotations

import os
from typing import Any

from kvlog.cleaner.stats import CleanerStats
from kvlog.log import Log
from kvlog.segment import LogSegment

__all__ = ["Generations"]


class Generations:
    """Generational scheduling: rewrite older segments only when they are expected to shrink enough.

    Kafka recopies the whole log below the dirty end on every pass. An old segment that was cleaned
    recently mostly holds records that are still the latest for their keys, so rewriting it is I/O
    with little yield. After each rewrite kvlog records the segment's yield
    ``y = 1 - written/read`` and how many dirty records that pass mapped (``span``). Superseding is then
    modelled as a constant hazard per dirty record, ``1 - y = exp(-lambda * span)``. With ``new`` dirty
    records arrived since the segment was written, its expected yield is ``1 - exp(-lambda * new)``.

    - A segment is rewritten when that estimate reaches ``min_yield``, so younger, higher-yield ranges
      are cleaned more often.
    - Dirty and never-measured segments are always rewritten.
    - Every ``full_every``-th pass rewrites everything, so expired tombstones and rare keys still go.
    - The records live in ``kvlog-cleaner-stats.json`` in the partition directory (brokers ignore
      unknown files).
    """

    FILE = "kvlog-cleaner-stats.json"

    def __init__(self, path: str, data: dict[str, Any]):
        self.path = path
        self.passes = int(data.get("passes", 0))
        self.dirty_total = int(data.get("dirty_total", 0))
        self.segments: dict[str, dict[str, float]] = dict(data.get("segments", {}))
        self._pending: dict[int, dict[str, float]] = {}

    @classmethod
    def load(cls, log: Log) -> "Generations":
        import json

        path = os.path.join(log.dir, cls.FILE)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {}
        return cls(path, data if isinstance(data, dict) else {})

    def expected_yield(self, base: int, new_dirty: int) -> float | None:
        import math

        info = self.segments.get(str(base))
        if info is None:
            return None
        y = min(max(float(info["yield"]), 0.0), 0.999)
        span = max(float(info["span"]), 1.0)
        since = max(new_dirty - float(info["at"]), 0.0)
        lam = -math.log(1 - y) / span
        return 1 - math.exp(-lam * since)

    def choose(self, segs: list[LogSegment], first_dirty: int, dirty_records: int, min_yield: float,
               full: bool, stats: CleanerStats) -> list[LogSegment]:
        self.passes += 1
        now_total = self.dirty_total + dirty_records
        if full:
            stats.extra["generational"] = "full pass"
            return segs
        chosen = []
        skipped = 0
        for seg in segs:
            nxt = seg.read_next_offset()
            est = self.expected_yield(seg.base_offset, now_total)
            if nxt > first_dirty or est is None or est >= min_yield:
                chosen.append(seg)
            else:
                skipped += seg.size_in_bytes
        stats.extra["generational"] = f"skipped {skipped:,} bytes of low-yield segments"
        stats.extra["skipped_bytes"] = skipped
        return chosen

    def record(self, base: int, read: int, written: int, dirty_records: int) -> None:
        y = 0.0 if read <= 0 else max(0.0, 1 - written / read)
        self._pending[base] = {"yield": y, "span": float(max(dirty_records, 1))}

    def finish_pass(self, log: Log, dirty_records: int) -> None:
        import json

        from kvlog import _io

        self.dirty_total += dirty_records
        for base, info in self._pending.items():
            info["at"] = float(self.dirty_total)
            self.segments[str(base)] = info
        alive = {str(s.base_offset) for s in log.segments}
        self.segments = {k: v for k, v in self.segments.items() if k in alive}
        data = {"passes": self.passes, "dirty_total": self.dirty_total, "segments": self.segments}
        _io.fs.write_atomic(self.path, json.dumps(data, sort_keys=True).encode())
