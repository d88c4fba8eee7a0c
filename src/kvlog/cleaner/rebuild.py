"""The retained rows of a rebuilt batch, gathered as row pointers for the encoder."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from kvlog._arrow import numpy_of, valid_mask
from kvlog._core import records as _k
from kvlog.records import binary_parts

__all__ = ["RebuildColumns", "one_array"]


class RebuildColumns:
    """The retained rows of a chunk's rebuilt batches, gathered per run as row pointers into the decoded
    columns: no key, value or header bytes are copied before the encoder writes them (a take per column
    copied every retained row once more)."""

    __slots__ = ("rows", "keys", "values", "timestamps", "offsets", "hstart", "hcount", "hkeys", "hvals")

    def __init__(self, table: pa.Table, rows: np.ndarray, offsets: np.ndarray) -> None:
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        self.keys = binary_parts(one_array(table.column("key")), "key")
        self.values = binary_parts(one_array(table.column("value")), "value")
        self.timestamps = numpy_of(table.column("timestamp"))[self.rows] // 1000
        self.offsets = offsets[self.rows]
        hs = one_array(table.column("headers"))
        self.hstart = None
        if hs.null_count < len(hs):
            hoff = numpy_of(hs.offsets).astype(np.int64)
            # per row: where its header items start in the struct column, and how many (a null list: none)
            self.hstart = hoff[:-1]
            self.hcount = np.where(valid_mask(hs), np.diff(hoff), 0)
            self.hkeys = binary_parts(hs.values.field("key"), "header key")
            self.hvals = binary_parts(hs.values.field("value"), "header value")

    def run(self, lo: int, hi: int) -> tuple[Any, Any, Any]:
        """(keys, values, headers) columns of the gathered rows ``lo:hi`` for one encode call."""
        rows = self.rows[lo:hi]
        keys = _k.Column.from_rows(*self.keys, rows)
        values = _k.Column.from_rows(*self.values, rows)
        if self.hstart is None:
            return keys, values, None
        starts, counts = self.hstart[rows], self.hcount[rows]
        total = int(counts.sum())
        if not total:
            return keys, values, None
        ends = np.cumsum(counts)
        items = np.arange(total, dtype=np.int64) + np.repeat(starts - (ends - counts), counts)
        offs = np.concatenate([[0], ends]).astype(np.int64)
        return keys, values, (_k.Column.from_rows(*self.hkeys, items), _k.Column.from_rows(*self.hvals, items), offs)


def one_array(col: Any) -> Any:
    """A single Arrow array (a take over a one-chunk column gives one chunk)."""
    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col
