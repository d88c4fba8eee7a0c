"""kvlog: Apache Kafka's commit-log storage layer, byte-compatible with Kafka log directories."""

from kvlog._version import __version__
from kvlog.checksum import crc32, crc32c
from kvlog.compression import Compression
from kvlog.config import LogConfig
from kvlog.cleaner import CleanerStats, LogCleaner
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP, AppendInfo, Log, OffsetAndTimestamp
from kvlog.manager import LogManager
from kvlog.offset_map import OffsetMap, OffsetMapError, OffsetMapFullError
from kvlog.errors import (
    ConfigError,
    CorruptIndexError,
    CorruptRecordError,
    DecompressionLimitError,
    InvalidOffsetError,
    InvalidTimestampError,
    KvlogError,
    LogIOError,
    LogLockedError,
    OffsetOutOfRangeError,
    RecordTooLargeError,
    UnsupportedCodecError,
)
from kvlog.records import (
    ControlRecordType,
    MemoryRecords,
    Record,
    RecordBatch,
    TimestampType,
    convert,
    encode_arrays,
    encode_batch,
    record_schema,
)

__all__ = [
    "__version__",
    "crc32",
    "crc32c",
    "Compression",
    "LogConfig",
    "Log",
    "LogManager",
    "AppendInfo",
    "OffsetAndTimestamp",
    "EARLIEST",
    "LATEST",
    "MAX_TIMESTAMP",
    "OffsetMap",
    "LogCleaner",
    "CleanerStats",
    "OffsetMapError",
    "OffsetMapFullError",
    "TimestampType",
    "ControlRecordType",
    "Record",
    "RecordBatch",
    "MemoryRecords",
    "encode_batch",
    "encode_arrays",
    "convert",
    "record_schema",
    "KvlogError",
    "CorruptRecordError",
    "DecompressionLimitError",
    "UnsupportedCodecError",
    "CorruptIndexError",
    "InvalidOffsetError",
    "OffsetOutOfRangeError",
    "RecordTooLargeError",
    "InvalidTimestampError",
    "LogLockedError",
    "LogIOError",
    "ConfigError",
]
