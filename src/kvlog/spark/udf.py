"""Arrow-native decoding of raw Kafka record batches inside Spark (``mapInArrow``).

Input: a binary column whose every value holds whole batches (a Kafka batch mirrored into a topic's
``value``, a segment file read with ``format("binaryFile")``, a tiered-storage object). Each value is
decoded in place from the Arrow data buffer (no copy of the input), and the output columns are built from
the record kernels' buffers, never from per-record Python objects.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute in decode_udf
from pyspark.sql.types import IntegerType, LongType, StructField, StructType, TimestampType

from kvlog.errors import CorruptRecordError
from kvlog.records import MemoryRecords, record_schema
from kvlog.spark._plan import spark_headers_type
from kvlog.spark.source import HEADERS_TYPE



def decoded_schema(include_headers: bool = False, keep: Sequence[StructField] = ()) -> StructType:
    """Spark schema of :func:`decode_batches` output: record columns, then the kept input columns."""
    from pyspark.sql.types import BinaryType

    fields = [StructField("key", BinaryType()), StructField("value", BinaryType()),
              StructField("offset", LongType()), StructField("timestamp", TimestampType()),
              StructField("timestampType", IntegerType())]
    if include_headers:
        fields.append(StructField("headers", HEADERS_TYPE))
    return StructType(fields + list(keep))


def decode_batches(column: str = "value", *, include_headers: bool = False, keep: Sequence[str] = (),
                   check_crc: bool = True) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """A ``mapInArrow`` function: each input row's batches → one output row per record.

    ``keep`` names input columns repeated onto every record decoded from that row (e.g. ``topic``,
    ``partition`` of a Kafka-source DataFrame). Null inputs produce no records; a corrupt value raises
    :class:`kvlog.errors.CorruptRecordError` naming the row.
    """
    keep = tuple(keep)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            out = decode_column(batch.column(column), include_headers=include_headers, check_crc=check_crc,
                                keep=[batch.column(k) for k in keep], keep_names=keep)
            if out.num_rows:
                yield out

    return run


def decode_column(col: pa.Array, *, include_headers: bool = False, check_crc: bool = True,
                  keep: Sequence[pa.Array] = (), keep_names: Sequence[str] = ()) -> pa.RecordBatch:
    """Decode every value of a binary Arrow array; ``keep`` arrays are taken along by parent row."""
    batch, counts = _decode_with_counts(col, include_headers=include_headers, check_crc=check_crc)
    if not keep:
        return batch
    columns = list(batch.columns)
    names = list(batch.schema.names)
    parents = pa.array(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
    for name, arr in zip(keep_names, keep):
        columns.append(arr.take(parents))
        names.append(name)
    return pa.RecordBatch.from_arrays(columns, names=names)


def _decode_with_counts(col: pa.Array, *, include_headers: bool, check_crc: bool) -> tuple[pa.RecordBatch, Any]:
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if not (pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type)):
        raise TypeError(f"decode_batches needs a binary column, not {col.type}")
    n = len(col)
    bufs = col.buffers()
    width = np.int64 if pa.types.is_large_binary(col.type) else np.int32
    offs = np.frombuffer(bufs[1], dtype=width)[col.offset: col.offset + n + 1] if n else np.zeros(1, width)
    data = memoryview(bufs[2]) if bufs[2] is not None else memoryview(b"")
    valid = col.is_valid().to_numpy(zero_copy_only=False) if col.null_count else None
    tables = []
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if valid is not None and not valid[i]:
            continue
        a, b = int(offs[i]), int(offs[i + 1])
        if a == b:
            continue
        try:
            t = MemoryRecords(data[a:b]).to_arrow(include_headers=include_headers, check_crc=check_crc)
        except CorruptRecordError as exc:
            raise CorruptRecordError(f"row {i}: {exc.reason}", position=exc.position) from None
        counts[i] = t.num_rows
        tables.append(t)
    schema = record_schema(include_headers)
    table = pa.concat_tables(tables) if tables else pa.Table.from_batches([], schema=schema)  # no pandas import
    columns = [table.column(j).combine_chunks() for j in range(len(schema))]
    names = list(schema.names)
    if include_headers:
        columns[5] = columns[5].cast(spark_headers_type())
    return pa.RecordBatch.from_arrays(columns, names=names), counts


def decode_udf(include_headers: bool = False, check_crc: bool = True) -> Any:
    """A scalar ``arrow_udf`` (pyspark ≥ 4.1): binary batches → ``array<struct<record columns>>`` per row.

    For SQL-style use where one output row per input row is wanted, e.g.
    ``df.select(F.explode(kvlog.spark.decode_udf()("value")).alias("r")).select("r.*")``. The list is
    built over the decoded column buffers (no per-record objects); a null input gives a null list.
    """
    import pyspark.sql.functions as functions
    from pyspark.sql.types import ArrayType

    arrow_udf = getattr(functions, "arrow_udf", None)  # pyspark >= 4.1
    if arrow_udf is None:
        raise ImportError("decode_udf needs pyspark 4.1 or newer (arrow_udf); use decode() with mapInArrow")

    element = decoded_schema(include_headers)

    def run(col: pa.Array) -> pa.Array:
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        out, counts = _decode_with_counts(col, include_headers=include_headers, check_crc=check_crc)
        offsets = np.zeros(len(col) + 1, dtype=np.int32)
        np.cumsum(counts, out=offsets[1:])
        values = pa.StructArray.from_arrays(list(out.columns), names=out.schema.names)
        validity = col.is_valid() if col.null_count else None
        return pa.ListArray.from_arrays(pa.array(offsets), values, mask=None if validity is None
                                        else pa.compute.invert(validity))

    return arrow_udf(run, ArrayType(element))


def decode(df: Any, column: str = "value", *, include_headers: bool = False, keep: Sequence[str] = (),
           check_crc: bool = True) -> Any:
    """``df.mapInArrow`` with :func:`decode_batches` and its schema: a DataFrame of the decoded records."""
    keep_fields = [df.schema[k] for k in keep]
    return df.mapInArrow(decode_batches(column, include_headers=include_headers, keep=keep, check_crc=check_crc),
                         decoded_schema(include_headers, keep_fields))
