"""``kvlog verify``'s cross-check of a partition's ``leader-epoch-checkpoint`` against the batches on disk.

Kafka's cache says from which offset on the batches carry each partition leader epoch; the batches carry
the epoch in their header. The two agree when every batch that carries an epoch (v2, epoch ≥ 0, not
lower than an earlier batch's: ``batch_audit`` reports those) lies in its epoch's range by the
checkpoint, and every entry starts where a batch of its epoch starts (or at the log start, or at the log
end: a leader elected since the last write). What no check can hold against the batches is let be:

- entries below the log start offset (Kafka cuts them at its next load); the log start is the root's
  ``log-start-offset-checkpoint`` (or a sink's committed start), else the checkpoint's first entry (a
  KRaft metadata log moves its start with its snapshots and has no entry in the root's file);
- everything before the last magic v0/v1 batch (Kafka clears the cache when one is appended);
- an entry whose first batch is gone where compaction may have removed it (a warning, not an error).

The batches are taken in a segment at a time (:meth:`EpochTrace.add`) as runs of one epoch, so memory
grows with the number of epochs, not of batches.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

__all__ = ["EpochTrace", "EpochProblem"]


@dataclass
class EpochProblem:
    severity: str
    file: str
    message: str
    position: int | None = None


@dataclass
class _Run:
    """Consecutive batches carrying one epoch: from the first's base offset to the last's last offset."""

    epoch: int
    base: int
    file: str
    position: int
    last: int


class EpochTrace:
    """The epochs a partition's batches carry, gathered segment by segment."""

    def __init__(self) -> None:
        self.runs: list[_Run] = []
        self.latest = -1  # the highest epoch since the last legacy batch
        self.legacy_end = -1  # the last offset of the last magic v0/v1 batch

    def add(self, headers: np.ndarray, file: str) -> None:
        """Take in one segment's valid batch headers (``BATCH_DTYPE`` rows, in order)."""
        if not len(headers):
            return
        magic = headers["magic"]
        legacy = np.flatnonzero(magic < 2)
        if len(legacy):
            k = int(legacy[-1])
            self.legacy_end = int(headers["last_offset"][k])
            self.runs.clear()
            self.latest = -1
            headers = headers[k + 1:]
            if not len(headers):
                return
        epochs = headers["partition_leader_epoch"].astype(np.int64)
        top = np.maximum.accumulate(np.maximum(epochs, self.latest))
        checked = np.flatnonzero((epochs >= 0) & (epochs == top))
        if not len(checked):
            return
        self.latest = int(top[-1])
        e = epochs[checked]
        starts = np.flatnonzero(np.concatenate(([True], e[1:] != e[:-1])))
        ends = np.concatenate((starts[1:], [len(checked)])) - 1
        bases, lasts, positions = headers["base_offset"], headers["last_offset"], headers["position"]
        for s, t in zip(starts.tolist(), ends.tolist()):
            i, j = int(checked[s]), int(checked[t])
            epoch = int(e[s])
            if self.runs and self.runs[-1].epoch == epoch:
                self.runs[-1].last = int(lasts[j])
                continue
            self.runs.append(_Run(epoch, int(bases[i]), file, int(positions[i]), int(lasts[j])))

    def check(self, entries: list[tuple[int, int]], log_end: int, log_start: int | None,
              dense: bool, name: str) -> list[EpochProblem]:
        """The checkpoint ``entries`` (named ``name``) held against the batches; ``log_start`` is the log
        start offset when known, ``dense`` whether the log was never compacted."""
        out: list[EpochProblem] = []
        starts = [s for _, s in entries]
        floor = log_start if log_start is not None else (starts[0] if entries and starts[0] <= log_end else -1)
        floor = max(floor, self.legacy_end + 1)

        def entry_at(offset: int) -> tuple[int, int] | None:
            k = bisect.bisect_right(starts, offset) - 1
            return entries[k] if k >= 0 else None

        for run in self.runs:
            if run.last < floor:
                continue
            probe = max(run.base, floor)
            where = f"the batch at offset {run.base} (position {run.position} of {run.file})"
            found = entry_at(probe)
            if found is None or found[0] != run.epoch:
                own = [s for e, s in entries if e == run.epoch]
                if own and own[0] > probe:
                    msg = (f"epoch {run.epoch} starts at offset {own[0]} here, but {where} already carries "
                           "it")
                elif found is None:
                    msg = f"no entry for epoch {run.epoch}, which {where} carries"
                else:
                    msg = (f"{where} carries epoch {run.epoch}, but this puts offset {probe} in epoch "
                           f"{found[0]} (from offset {found[1]})")
                out.append(EpochProblem("error", name, msg))
                continue
            for e, s in entries:
                if probe < s <= run.last and e != run.epoch:
                    out.append(EpochProblem("error", name, (
                        f"entry '{e} {s}' starts inside the batches of epoch {run.epoch} from offset {run.base} "
                        f"to {run.last} ({run.file} from position {run.position})")))
        run_starts = {r.base for r in self.runs}
        inside = [(r.base, r.last) for r in self.runs]
        for e, s in entries:
            if s > log_end:
                out.append(EpochProblem("error", name, (
                    f"entry '{e} {s}' starts past the log end offset {log_end} (Kafka cuts it when it "
                    "loads the log)")))
            elif s <= self.legacy_end:
                out.append(EpochProblem("error", name, (
                    f"entry '{e} {s}' lies before the magic v0/v1 batch that ends at offset "
                    f"{self.legacy_end} (appending one clears the cache)")))
            elif floor < s < log_end and s not in run_starts and not any(b < s <= t for b, t in inside):
                if dense:
                    out.append(EpochProblem("error", name, (
                        f"entry '{e} {s}': no batch carrying an epoch starts at offset {s}")))
                else:
                    out.append(EpochProblem("warning", name, (
                        f"entry '{e} {s}': no batch carrying an epoch starts at offset {s} (compaction may "
                        "have removed the one that did)")))
        return out
