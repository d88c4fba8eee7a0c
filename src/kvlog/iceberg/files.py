"""An append's data files, written while the export goes on reading.

``pyiceberg``'s ``append`` takes a whole table at the end, splits it by partition (one filtered copy of the
table for each partition value) and only then encodes the Parquet files, so reading the log and encoding the
files take turns. Here the rows go, as each scanned batch arrives, into one bucket per partition value (a
batch of one Kafka partition nearly always falls in one hour: no copy), and a bucket that has gathered
``flush_bytes`` is encoded into a Parquet file by a writer thread while the next batches are read and decoded.
At the commit the remaining buckets are written, every file awaited, and the files appended in one snapshot;
files that were written but never committed (an export killed, a commit lost) are orphans no snapshot
references.

The files are written here rather than by pyiceberg's ``write_file``, with pyiceberg's own pieces (the table's
Parquet properties, location provider and column statistics): its writer rebuilds every list of records from
the list's offsets (``ArrowProjectionVisitor.list``, 0.12), which turns a null list into an empty one, so a
null array of records, and every such field of a tombstone's row, would read back as ``[]``. Here the rows go
into the file as they are, their columns given the table's field ids.
"""

from __future__ import annotations

import uuid
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

__all__ = ["DataFileWriter"]

_MIN_FLUSH = 16 << 20
_FLUSH = 32 << 20


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The data-file writers' threads (Parquet encoding runs without the GIL): one a CPU."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="kvlog-iceberg")
        return _POOL


def _with_field_ids(arrow: pa.Schema, schema: Any) -> pa.Schema:
    """``arrow`` (the rows' schema) with each field, nested ones too, carrying its Iceberg field id, as Iceberg's
    Parquet files name their columns."""
    from pyiceberg.io.pyarrow import PYARROW_PARQUET_FIELD_ID_KEY
    from pyiceberg.types import ListType, MapType, StructType

    def typed(t: pa.DataType, it: Any) -> pa.DataType:
        if isinstance(it, StructType):
            return pa.struct([field(t.field(i), it.field_by_name(t.field(i).name)) for i in range(t.num_fields)])
        if isinstance(it, ListType):
            return pa.list_(with_id(t.value_field, it.element_id, typed(t.value_type, it.element_type)))
        if isinstance(it, MapType):
            return pa.map_(with_id(t.key_field, it.key_id, typed(t.key_type, it.key_type)),
                           with_id(t.item_field, it.value_id, typed(t.item_type, it.value_type)))
        return t

    def with_id(f: pa.Field, field_id: int, t: pa.DataType) -> pa.Field:
        return pa.field(f.name, t, f.nullable, {PYARROW_PARQUET_FIELD_ID_KEY: str(field_id).encode()})

    def field(f: pa.Field, nf: Any) -> pa.Field:
        if nf is None:
            raise ValueError(f"the table has no column {f.name!r}")
        return with_id(f, nf.field_id, typed(f.type, nf.field_type))

    return pa.schema([field(f, schema.find_field(f.name)) for f in arrow])


class DataFileWriter:
    """The data files of one commit of ``layout_schema`` rows into the table whose metadata is ``metadata``."""

    def __init__(self, metadata: Any, io: Any, layout_schema: pa.Schema, commit_bytes: int) -> None:
        from pyiceberg.table.locations import load_location_provider
        from pyiceberg.table import TableProperties
        from pyiceberg.utils.properties import property_as_int

        self.metadata = metadata
        self.io = io
        self.spec = metadata.spec()
        schema = metadata.schema()
        target = property_as_int(metadata.properties, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                                 TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT) or (512 << 20)
        self.flush_bytes = min(target, max(_MIN_FLUSH, min(commit_bytes // 8, _FLUSH)))
        self.fields = [(f, schema.find_column_name(f.source_id), schema.find_field(f.source_id).field_type)
                       for f in self.spec.fields]
        self.buckets: dict[tuple[Any, ...], list[pa.Table]] = {}
        self.sizes: dict[tuple[Any, ...], int] = {}
        self.pending: list[Future[Any]] = []
        self.file_schema = _with_field_ids(layout_schema, schema)
        self.locations = load_location_provider(table_location=metadata.location, table_properties=metadata.properties)
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
        from pyiceberg.partitioning import PartitionFieldValue, PartitionKey

        parts = self.buckets.pop(key)
        self.sizes.pop(key)
        partition_key = None
        if self.fields:
            partition_key = PartitionKey(field_values=[PartitionFieldValue(field=f, value=v)
                                                       for (f, _, _), v in zip(self.fields, key)],
                                         partition_spec=self.spec, schema=self.metadata.schema())
        name = f"00000-{self.task_id}-{self.write_uuid}.parquet"
        self.task_id += 1
        self.pending.append(_pool().submit(self._write, pa.concat_tables(parts), partition_key, name))

    def _write(self, rows: pa.Table, partition_key: Any, name: str) -> Any:
        """One Parquet data file of ``rows`` (the table's field ids on its columns) and its DataFile entry."""
        from pyiceberg.io.pyarrow import (_get_parquet_writer_kwargs, compute_statistics_plan,
                                          data_file_statistics_from_parquet_metadata, parquet_path_to_id_mapping)
        from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
        from pyiceberg.table import TableProperties
        from pyiceberg.typedef import Record
        from pyiceberg.utils.properties import property_as_int

        props = self.metadata.properties
        schema = self.metadata.schema()
        rows = rows.cast(self.file_schema)
        path = self.locations.new_data_location(data_file_name=name, partition_key=partition_key)
        output = self.io.new_output(path)
        row_group = property_as_int(props, TableProperties.PARQUET_ROW_GROUP_LIMIT,
                                    TableProperties.PARQUET_ROW_GROUP_LIMIT_DEFAULT)
        with output.create(overwrite=True) as stream:
            writer = pq.ParquetWriter(stream, schema=rows.schema, store_decimal_as_integer=True,
                                      **_get_parquet_writer_kwargs(props))
            with writer:
                writer.write(rows, row_group_size=row_group)
        stats = data_file_statistics_from_parquet_metadata(
            parquet_metadata=writer.writer.metadata, stats_columns=compute_statistics_plan(schema, props),
            parquet_column_mapping=parquet_path_to_id_mapping(schema))
        return DataFile.from_args(
            content=DataFileContent.DATA, file_path=path, file_format=FileFormat.PARQUET,
            partition=partition_key.partition if partition_key is not None else Record(),
            file_size_in_bytes=len(output), sort_order_id=None, spec_id=self.metadata.default_spec_id,
            equality_ids=None, key_metadata=None, **stats.to_serialized_dict())

    def finish(self) -> list[Any]:
        """Every bucket written; the data files, once all are."""
        for key in list(self.buckets):
            self._flush(key)
        out = [f.result() for f in self.pending]
        self.pending = []
        return out

    def abandon(self) -> None:
        """Wait for the files in flight (nothing will reference them)."""
        for f in self.pending:
            try:
                f.result()
            except Exception:  # (their error is not the one being raised)
                pass
        self.pending = []
        self.buckets.clear()
        self.sizes.clear()
