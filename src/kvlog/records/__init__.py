"""Kafka records in memory: decode any magic (v0, v1, v2) and codec, encode v2 or legacy batches.

Bytes are walked by the C kernels in ``kvlog._core.records``; this package owns the objects users see.
Bulk paths (``MemoryRecords.to_arrow``, ``encode_arrays``) never build a Python object per record:
the kernels fill column buffers that become Arrow arrays without a copy. ``Record`` objects exist
for convenience iteration only.

Split as Kafka splits its record classes, lowest layer first: ``record`` (``Record``, its types and the
framing constants), ``decode`` (the decode loop), ``arrow`` (decoded columns as Arrow or ``Record``),
``batches`` (``RecordBatch``, ``MemoryRecords``) and ``encode`` (``encode_arrays``, ``encode_batch``,
``convert``). Every name stays importable from ``kvlog.records``.
"""

from kvlog.compression import Compression
from kvlog.records.arrow import _chunk_to_arrow as _chunk_to_arrow
from kvlog.records.arrow import key_columns as key_columns
from kvlog.records.arrow import record_schema
from kvlog.records.batches import MemoryRecords, RecordBatch
from kvlog.records.decode import _decode as _decode
from kvlog.records.encode import binary_parts as binary_parts
from kvlog.records.encode import convert, encode_arrays, encode_batch
from kvlog.records.record import (DEFAULT_MAX_BATCH_BYTES as DEFAULT_MAX_BATCH_BYTES,
                                  DEFAULT_RECORDS_PER_BATCH as DEFAULT_RECORDS_PER_BATCH,
                                  LOG_OVERHEAD as LOG_OVERHEAD, V2_HEADER_SIZE as V2_HEADER_SIZE)
from kvlog.records.record import BytesLike as BytesLike, Header as Header, now_ms as now_ms
from kvlog.records.record import NO_TIMESTAMP, ControlRecordType, Record, TimestampType

__all__ = [
    "TimestampType",
    "Compression",
    "Record",
    "RecordBatch",
    "MemoryRecords",
    "ControlRecordType",
    "encode_batch",
    "encode_arrays",
    "convert",
    "record_schema",
    "NO_TIMESTAMP",
]

# The classes keep the module they were always documented (and pickled) under.
for _cls in (TimestampType, ControlRecordType, Record, RecordBatch, MemoryRecords):
    _cls.__module__ = __name__
del _cls
