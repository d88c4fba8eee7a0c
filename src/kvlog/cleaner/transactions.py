"""Transaction state through a cleaning pass: which transactional batches are aborted data, which markers
go (Kafka's ``CleanedTransactionMetadata``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kvlog.txn_index import AbortedTxn, TransactionIndex

__all__ = ["CleanedTransactionMetadata", "control_batches"]


def control_batches(hdrs: np.ndarray) -> np.ndarray:
    """Per batch header: a v2 control batch (transaction markers)."""
    control: np.ndarray = (hdrs["magic"] == 2) & ((hdrs["attributes"].astype(np.int64) & 0x20) != 0)
    return control


class CleanedTransactionMetadata:
    """Transaction state carried through one cleaning pass (Kafka's CleanedTransactionMetadata).

    Fed the aborted transactions overlapping each segment before it is read; decides, in offset
    order, which transactional batches are aborted data and which markers are no longer needed.
    """

    def __init__(self) -> None:
        self._pending: list[tuple[int, int, int, int]] = []   # aborted (first, pid, last, lso), by first offset
        self._seen: set[tuple[int, int]] = set()
        self._aborted: dict[int, list[Any]] = {}               # pid -> [AbortedTxn, data seen?]
        self._committed: set[int] = set()
        self.cleaned_index: TransactionIndex | None = None

    def add_aborted(self, entries: np.ndarray) -> None:
        import heapq

        for e in entries:
            key = (int(e["producer_id"]), int(e["first_offset"]))
            if key not in self._seen:
                self._seen.add(key)
                heapq.heappush(self._pending, (key[1], key[0], int(e["last_offset"]), int(e["last_stable_offset"])))

    def _consume_up_to(self, offset: int) -> None:
        import heapq

        while self._pending and self._pending[0][0] <= offset:
            first, pid, last, lso = heapq.heappop(self._pending)
            self._aborted.setdefault(pid, [AbortedTxn(pid, first, last, lso), False])

    def decide(self, hdrs: np.ndarray, control: np.ndarray, bidx: np.ndarray, keys: Any) -> np.ndarray:
        """Per batch: True for aborted data and for markers that may be discarded."""
        nb = len(hdrs)
        out = np.zeros(nb, dtype=bool)
        attrs = hdrs["attributes"].astype(np.int64)
        rows = np.nonzero((hdrs["magic"] == 2) & (hdrs["producer_id"] >= 0) & (((attrs & 0x10) != 0) | control))[0]
        if not len(rows):
            return out
        firsts = np.searchsorted(bidx, rows, side="left")
        for b, r in zip(rows.tolist(), firsts.tolist()):
            h = hdrs[b]
            pid, last = int(h["producer_id"]), int(h["last_offset"])
            self._consume_up_to(last)
            if control[b]:
                if r >= len(bidx) or bidx[r] != b:
                    out[b] = True  # an already emptied marker
                    continue
                key = keys[r].as_py()
                kind = int.from_bytes(key[2:4], "big", signed=True) if key is not None and len(key) >= 4 else -1
                if kind == 0:  # ABORT
                    meta = self._aborted.pop(pid, None)
                    if meta is not None and meta[1]:
                        if self.cleaned_index is not None:
                            self.cleaned_index.append(meta[0])
                        continue
                    out[b] = True
                elif kind == 1:  # COMMIT
                    out[b] = pid not in self._committed
                    self._committed.discard(pid)
            else:
                meta = self._aborted.get(pid)
                if meta is not None:
                    meta[1] = True
                    out[b] = True
                else:
                    self._committed.add(pid)
        return out
