"""An append's data files, written while the export goes on reading.

``pyiceberg``'s ``append`` takes a whole table at the end, splits it by partition (one filtered copy of the
table for each partition value) and only then encodes the Parquet files, so reading the log and encoding the
files take turns. Here the rows go, as each scanned batch arrives, into one bucket per partition value (a
batch of one Kafka partition nearly always falls in one hour: no copy), and a bucket that has gathered
``flush_bytes`` is handed to pyiceberg's own file writer (``write_file``: its thread pool, its Parquet
settings, its statistics), which encodes it while the next batches are read and decoded. At the commit the
remaining buckets are written, every file awaited, and the files appended in one snapshot; files that were
written but never committed (an export killed, a commit lost) are orphans no snapshot references.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["DataFileWriter"]

_MIN_FLUSH = 16 << 20
_FLUSH = 32 << 20


class DataFileWriter:
    """The data files of one commit of ``layout_schema`` rows into the table whose metadata is ``metadata``."""

    def __init__(self, metadata: Any, io: Any, layout_schema: pa.Schema, commit_bytes: int) -> None:
        from pyiceberg.io.pyarrow import pyarrow_to_schema
        from pyiceberg.table import TableProperties
        from pyiceberg.utils.properties import property_as_int

        self.metadata = metadata
        self.io = io
        self.spec = metadata.spec()
        schema = metadata.schema()
        self.task_schema = pyarrow_to_schema(layout_schema, name_mapping=schema.name_mapping,
                                             format_version=metadata.format_version)
        target = property_as_int(metadata.properties, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                                 TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT) or (512 << 20)
        self.flush_bytes = min(target, max(_MIN_FLUSH, min(commit_bytes // 8, _FLUSH)))
        self.fields = [(f, schema.find_column_name(f.source_id), schema.find_field(f.source_id).field_type)
                       for f in self.spec.fields]
        self.buckets: dict[tuple[Any, ...], list[pa.Table]] = {}
        self.sizes: dict[tuple[Any, ...], int] = {}
        self.pending: list[Iterator[Any]] = []
        self.write_uuid = uuid.uuid4()
        self.task_id = 0

    def add(self, rows: pa.Table) -> None:
        """Rows of the table (its layout), into their partitions' buckets."""
        if rows.num_rows == 0:
            return
        if not self.fields:
            self._into((), rows)
            return
        values = [f.transform.pyarrow_transform(t)(rows.column(name)) for f, name, t in self.fields]
        if all(v.null_count == 0 for v in values):
            bounds = [pc.min_max(v).as_py() for v in values]
            if all(b["min"] == b["max"] for b in bounds):  # (the common case: a batch within one hour)
                self._into(tuple(b["min"] for b in bounds), rows)
                return
        keys = pa.table({str(i): v for i, v in enumerate(values)})
        combos = keys.group_by(list(keys.column_names), use_threads=False).aggregate([]).to_pylist()
        if len(combos) == 1:
            self._into(tuple(combos[0][str(i)] for i in range(len(values))), rows)
            return
        for combo in combos:
            mask = None
            for i, v in enumerate(values):
                m = pc.is_null(v) if combo[str(i)] is None else pc.equal(v, pa.scalar(combo[str(i)], v.type))
                mask = m if mask is None else pc.and_(mask, m)
            self._into(tuple(combo[str(i)] for i in range(len(values))), rows.filter(mask))

    def _into(self, key: tuple[Any, ...], rows: pa.Table) -> None:
        self.buckets.setdefault(key, []).append(rows)
        self.sizes[key] = self.sizes.get(key, 0) + rows.nbytes
        if self.sizes[key] >= self.flush_bytes:
            self._flush(key)

    def _flush(self, key: tuple[Any, ...]) -> None:
        from pyiceberg.io.pyarrow import write_file
        from pyiceberg.partitioning import PartitionFieldValue, PartitionKey
        from pyiceberg.table import WriteTask

        parts = self.buckets.pop(key)
        self.sizes.pop(key)
        batches = [b for t in parts for b in t.to_batches()]
        partition_key = None
        if self.fields:
            partition_key = PartitionKey(field_values=[PartitionFieldValue(field=f, value=v)
                                                       for (f, _, _), v in zip(self.fields, key)],
                                         partition_spec=self.spec, schema=self.metadata.schema())
        task = WriteTask(write_uuid=self.write_uuid, task_id=self.task_id, record_batches=batches,
                         partition_key=partition_key, schema=self.task_schema)
        self.task_id += 1
        # (executor.map inside submits the task to pyiceberg's pool at once; the iterator waits for its file)
        self.pending.append(write_file(self.io, self.metadata, iter([task])))

    def finish(self) -> list[Any]:
        """Every bucket written; the data files, once all are."""
        for key in list(self.buckets):
            self._flush(key)
        out: list[Any] = []
        for files in self.pending:
            out += list(files)
        self.pending = []
        return out

    def abandon(self) -> None:
        """Wait for the files in flight (nothing will reference them)."""
        for files in self.pending:
            try:
                list(files)
            except Exception:  # (their error is not the one being raised)
                pass
        self.pending = []
        self.buckets.clear()
        self.sizes.clear()
