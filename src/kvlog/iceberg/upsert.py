"""Upsert mode: the table holds the latest record of each key, and a tombstone (a null value) deletes the key.

Copy-on-write, through pyiceberg: each commit first keeps, of the chunk's records, the last of each key (in
offset order: a key lives in one partition, as Kafka's partitioner puts it); then, in one transaction, deletes
the rows of the keys whose last record is a tombstone, and upserts the others (pyiceberg rewrites the data
files holding a matched key without its old row, and appends the new rows). Readers of any Iceberg engine see
plain data files, no delete files to merge. The cost of a commit grows with the data files its keys touch, not
with the table.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kvlog.errors import IcebergExportError

__all__ = ["KEY", "latest_per_key", "apply"]

KEY = "key"
# the rows whose key an upsert matches are deleted by a filter listing the keys: at most this many a filter
_KEYS_PER_FILTER = 10_000


def latest_per_key(rows: pa.Table, tombstones: pa.Array, table: str) -> tuple[pa.Table, pa.Array]:
    """The last row of each key (and whether it is a tombstone), in their order in ``rows``."""
    keys = rows.column(KEY)
    if keys.null_count:
        at = pc.index(pc.is_null(keys), True).as_py()
        raise IcebergExportError(f"partition {rows.column('partition')[at]}, offset {rows.column('offset')[at]}: a "
                                 f"record without a key cannot be upserted (mode='upsert' is for keyed topics)",
                                 table=table)
    order = pa.array(np.arange(rows.num_rows, dtype=np.int64))
    last = pa.table({"k": keys, "i": order}).group_by("k", use_threads=False).aggregate([("i", "max")])
    keep = pc.sort_indices(last.column("i_max"))
    chosen = pc.take(last.column("i_max"), keep)
    return rows.take(chosen), pc.take(tombstones, chosen)


def apply(tx: Any, rows: pa.Table, tombstones: pa.Array, properties: dict[str, str]) -> tuple[int, int]:
    """Stage in ``tx`` the deletes and upserts of ``rows`` (latest per key); (rows written, keys deleted)."""
    from pyiceberg.expressions import In

    dead = rows.filter(tombstones).column(KEY).to_pylist()
    live = rows.filter(pc.invert(tombstones))
    for lo in range(0, len(dead), _KEYS_PER_FILTER):
        with warnings.catch_warnings():  # (a tombstone of a key the table never held deletes nothing: fine)
            warnings.filterwarnings("ignore", "Delete operation did not match any records")
            tx.delete(In(KEY, set(dead[lo:lo + _KEYS_PER_FILTER])),  # type: ignore[call-arg, arg-type]
                      snapshot_properties=properties)
    if live.num_rows:
        tx.upsert(live, join_cols=[KEY], snapshot_properties=properties)
    return live.num_rows, len(dead)
