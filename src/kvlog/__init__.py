"""kvlog: Apache Kafka's commit-log storage layer, byte-compatible with Kafka log directories."""

from kvlog._version import __version__
from kvlog.segment.budget import max_open_files, set_max_open_files
from kvlog.checksum import crc32, crc32c
from kvlog.compression import Compression
from kvlog.config import LogConfig
from kvlog.cleaner import CleanerStats, LogCleaner
from kvlog.log import (
    EARLIEST,
    LATEST,
    MAX_TIMESTAMP,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    AppendInfo,
    Log,
    OffsetAndTimestamp,
)
from kvlog.txn_index import AbortedTxn
from kvlog.manager import LogManager
from kvlog.tiered import view as _tiered_view  # noqa: F401  (registers with Log.open(remote_storage=...))
from kvlog.scanning import Scan, ScanStats, scan
from kvlog.offset_map import OffsetMap, OffsetMapError, OffsetMapFullError
from kvlog.errors import (
    ConfigError,
    CorruptIndexError,
    CorruptInternalRecordError,
    CorruptPartitionMetadataError,
    CorruptRecordError,
    CorruptSnapshotError,
    DecompressionLimitError,
    DirectoryNotFoundError,
    InconsistentTopicIdError,
    InvalidOffsetError,
    InvalidProducerEpochError,
    InvalidRecordError,
    InvalidTimestampError,
    InvalidTxnStateError,
    KvlogError,
    LogIOError,
    LogLockedError,
    OffsetOutOfRangeError,
    SegmentReplacedError,
    OutOfOrderSequenceError,
    ProducerStateError,
    RecordTooLargeError,
    TransactionCoordinatorFencedError,
    UnknownTopicOrPartitionError,
    UnsupportedCodecError,
    WrongDirectoryKindError,
)
from kvlog.internal_topics.cluster_metadata import ClusterMetadata, cluster_metadata
from kvlog.internal_topics.consumer_offsets import consumer_offsets
from kvlog.internal_topics.failover import ResumeOffset, failover_offsets
from kvlog.internal_topics.remote_log_metadata import remote_log_metadata
from kvlog.internal_topics.share_group_state import share_group_state
from kvlog.internal_topics.transaction_state import transaction_state
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
    "Scan",
    "ScanStats",
    "scan",
    "AppendInfo",
    "OffsetAndTimestamp",
    "EARLIEST",
    "LATEST",
    "MAX_TIMESTAMP",
    "READ_COMMITTED",
    "READ_UNCOMMITTED",
    "AbortedTxn",
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
    "SegmentReplacedError",
    "ConfigError",
    "InvalidRecordError",
    "ProducerStateError",
    "OutOfOrderSequenceError",
    "InvalidProducerEpochError",
    "InvalidTxnStateError",
    "TransactionCoordinatorFencedError",
    "CorruptSnapshotError",
    "CorruptInternalRecordError",
    "CorruptPartitionMetadataError",
    "InconsistentTopicIdError",
    "UnknownTopicOrPartitionError",
    "DirectoryNotFoundError",
    "WrongDirectoryKindError",
    "consumer_offsets",
    "cluster_metadata",
    "ClusterMetadata",
    "failover_offsets",
    "remote_log_metadata",
    "share_group_state",
    "ResumeOffset",
    "transaction_state",
    "max_open_files",
    "set_max_open_files",
]
