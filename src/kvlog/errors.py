"""kvlog's exception vocabulary.

Every error a caller can get from bad bytes, a bad configuration or a bad argument is one of these,
and its message says what was wrong and where (file, byte position, offsets). Errors caused by bad
input subclass ``ValueError`` as well, so generic handlers keep working.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "redact",
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
    "BackupError",
    "RemoteSegmentError",
    "CorruptRemoteObjectError",
    "RemoteDecryptionError",
    "SchemaError",
    "SchemaNotFoundError",
    "SchemaRegistryError",
    "DeserializationError",
    "IcebergExportError",
    "ExportGapError",
]


# scheme://[userinfo@]rest[?query][#fragment] inside any text. The userinfo runs to the *last* "@" before
# the query: an unencoded secret may hold "/" or "@". The rest stops at white space, quotes and brackets.
_URI = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*)://(?:[^\s'\"<>()\[\]{}?#]*@)?([^\s'\"<>()\[\]{}?#@]*)"
                  r"(?:\?[^\s'\"<>()\[\]{}#]*[^\s'\"<>()\[\]{}#:,.;])?(?:#[^\s'\"<>()\[\]{}]*)?")


def redact(text: str) -> str:
    """``text`` with every URI's credentials (``key:secret@``), query string (``?endpoint_override=…&
    secret_key=…``) and fragment removed: ``s3://KEY:SECRET@bucket/p?x=y`` reads ``s3://bucket/p``.

    The one function kvlog passes every message through that may hold a URI: every ``KvlogError``'s
    message (in its constructor), and the text of a storage library's exception before kvlog repeats it.
    """
    if "://" not in text:
        return text
    return _URI.sub(lambda m: f"{m.group(1)}://{m.group(2)}", text)


#: prefixes of virtual paths (a tiered view's remote segments, ``kvlog-tiered://<view>``) → the function that
#: names the object a path stands for (None: unknown)
_path_namers: dict[str, Callable[[str], str | None]] = {}


def shown_path(path: str) -> str:
    """``path`` as a user can find it: a tiered view's virtual path becomes the remote object it reads."""
    if path.startswith("kvlog-tiered://"):
        for prefix, namer in list(_path_namers.items()):
            if path.startswith(prefix + "/"):
                return namer(path) or path
    return path


class KvlogError(Exception):
    """Base class of every error raised by kvlog. Messages never carry credentials or URI query strings
    (:func:`redact` is applied to every string argument)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class CorruptRecordError(KvlogError, ValueError):
    """Bytes that are not a valid Kafka record batch (structure, CRC, codec stream).

    ``position`` is the byte position of the offending batch in the buffer or file (``None`` when
    unknown); ``file`` names the file when the bytes came from one; ``offsets`` is the
    ``(first, last)`` offset range of the batch when its header could be read.
    """

    def __init__(
        self,
        message: str,
        *,
        position: int | None = None,
        file: str | None = None,
        offsets: tuple[int, int] | None = None,
    ) -> None:
        self.reason = message
        self.position = position
        self.file = file = None if file is None else shown_path(file)
        self.offsets = offsets
        where = []
        if file is not None:
            where.append(f"file {file}")
        if position is not None:
            where.append(f"position {position}")
        if offsets is not None:
            where.append(f"offsets {offsets[0]}..{offsets[1]}")
        super().__init__(f"{message} ({', '.join(where)})" if where else message)

    def with_context(self, *, file: str | None = None, base_position: int = 0) -> "CorruptRecordError":
        """A copy located in a file (positions shifted by ``base_position``)."""
        pos = None if self.position is None else self.position + base_position
        err = type(self)(self.reason, position=pos, file=file or self.file, offsets=self.offsets)
        return err


class DecompressionLimitError(CorruptRecordError):
    """A compressed batch inflates past the allowed output budget (a decompression bomb)."""


class UnsupportedCodecError(CorruptRecordError):
    """A batch names a compression codec that its magic does not allow (e.g. zstd in v0/v1)."""


class CorruptIndexError(KvlogError, ValueError):
    """An offset or time index file fails its sanity checks."""


class InvalidOffsetError(KvlogError, ValueError):
    """An offset that breaks an ordering rule (e.g. appending a non-increasing offset)."""


class OffsetOutOfRangeError(KvlogError, ValueError):
    """A requested offset lies outside ``[log_start_offset, log_end_offset]``."""

    def __init__(self, message: str, *, log_start_offset: int = -1, log_end_offset: int = -1) -> None:
        self.log_start_offset = log_start_offset
        self.log_end_offset = log_end_offset
        super().__init__(message)


class RecordTooLargeError(KvlogError, ValueError):
    """A batch or append exceeds ``max.message.bytes`` or ``segment.bytes``."""


class InvalidTimestampError(KvlogError, ValueError):
    """A timestamp outside the allowed range (``message.timestamp.*.max.ms``, or not representable)."""


class LogLockedError(KvlogError):
    """Another writer holds the log directory's lock."""


class LogIOError(KvlogError, OSError):
    """The file system failed a write, fsync, rename or truncate (ENOSPC, EIO, ...).

    The log stops accepting changes after this (what reached the disk is unknown) until it is
    reopened, which recovers it; nothing acknowledged before the failure is affected.
    """


class SegmentReplacedError(LogIOError):
    """A segment file whose descriptor was closed to stay within the open-file budget is no longer the
    file this log had open (deleted, or replaced by retention or compaction meanwhile).

    A read-only view never reads a different file in its place: reopen the log to see the directory
    as it is now (see ``kvlog.set_max_open_files``).
    """


class ConfigError(KvlogError, ValueError):
    """An invalid configuration name or value."""


class StorageError(LogIOError):
    """Reading an object of a remote log directory failed (``s3://``, ``gs://``, ``abfs://``, ``hdfs://``).

    ``path`` names the object and ``position`` the byte where the read started (-1: not a ranged read).
    Transient failures (throttling, 5xx, timeouts) have already been retried a bounded number of times.
    """

    def __init__(self, message: str, *, path: str = "", position: int = -1) -> None:
        super().__init__(message)
        self.path = shown_path(path) if path else path
        self.position = position


class ObjectNotFoundError(StorageError, FileNotFoundError):
    """A remote object or directory that should be there is not."""


class StorageAccessError(StorageError, PermissionError):
    """The object store refused the credentials or the request (401/403)."""


class StorageUnavailableError(StorageError):
    """The object store kept failing (throttling, 5xx, timeouts) after every retry."""


class RemoteSegmentError(StorageError):
    """A remote (tiered-storage) segment's object is missing, damaged or disagrees with the segment's
    ``__remote_log_metadata`` entry. ``path`` names the object, ``position`` the byte of it (-1: the
    whole object)."""


class CorruptRemoteObjectError(RemoteSegmentError, ValueError):
    """A remote segment's object does not decode: a manifest that is not the plugin's JSON, a chunk
    shorter than its index says, a compressed chunk that does not decompress, an index of the wrong size."""


class RemoteDecryptionError(RemoteSegmentError, ValueError):
    """An encrypted remote segment that the keys given do not open: an unknown key id, a data key the
    private key does not unwrap, or a chunk whose AES-GCM tag does not verify (a wrong key or damaged bytes)."""


class ReadOnlyStorageError(KvlogError, ValueError):
    """A write was asked of a remote log directory: kvlog reads object stores, it writes only local logs."""


class UnknownTopicOrPartitionError(KvlogError, LookupError):
    """A topic, or a partition of a topic, that the data directory does not hold (Kafka's
    UnknownTopicOrPartitionException). ``topic`` names it; ``partition`` is -1 when the topic is unknown."""

    def __init__(self, message: str, *, topic: str = "", partition: int = -1) -> None:
        super().__init__(message)
        self.topic = topic
        self.partition = partition


class DirectoryNotFoundError(KvlogError, FileNotFoundError):
    """A data directory or partition directory that is not there (or holds no Kafka partition)."""


class WrongDirectoryKindError(KvlogError, ValueError):
    """A directory of the other kind: a data directory (a broker's ``log.dirs`` entry) or a directory that is
    no Kafka partition given to ``Log.open``, or a partition directory given to ``LogManager``. The message
    says what the directory looks like and what to pass instead."""


class InvalidRecordError(KvlogError, ValueError):
    """A batch that is well formed but not allowed here (Kafka's InvalidRecordException), e.g. a
    producer id without a sequence number."""


class ProducerStateError(KvlogError, ValueError):
    """An append that the producer state refuses (sequence, epoch or transaction rules).

    ``producer_id`` names the producer; ``offset`` is where the refused batch would have gone.
    """

    def __init__(self, message: str, *, producer_id: int = -1, offset: int = -1) -> None:
        self.producer_id = producer_id
        self.offset = offset
        super().__init__(message)


class OutOfOrderSequenceError(ProducerStateError):
    """A batch whose first sequence does not follow the producer's last one (Kafka's
    OutOfOrderSequenceException): a gap, or a retry too old to be recognised as a duplicate."""


class InvalidProducerEpochError(ProducerStateError):
    """A batch or marker from an older epoch than the producer's current one: a fenced zombie
    (Kafka's InvalidProducerEpochException, what the log raises since 2.7)."""


class InvalidTxnStateError(ProducerStateError):
    """A non-transactional batch from a producer with an open transaction (InvalidTxnStateException)."""


class TransactionCoordinatorFencedError(ProducerStateError):
    """A COMMIT/ABORT marker from an older coordinator epoch than one already seen
    (TransactionCoordinatorFencedException)."""


class CorruptSnapshotError(KvlogError, ValueError):
    """A producer-state ``.snapshot`` file with a bad version, CRC or layout."""


class CorruptPartitionMetadataError(KvlogError, ValueError):
    """A ``partition.metadata`` file (or a topic id) that Kafka's reader would refuse: not the
    ``version: 0`` / ``topic_id: <id>`` lines, or an id that is not 16 bytes of base64url, or the zero id."""


class InconsistentTopicIdError(KvlogError, ValueError):
    """A partition directory whose ``partition.metadata`` names another topic id than the topic has
    (Kafka's InconsistentTopicIdException): a directory of another topic, or of another cluster."""


class CorruptInternalRecordError(KvlogError, ValueError):
    """A key or value of an internal topic (``__consumer_offsets``, ``__cluster_metadata``,
    ``__transaction_state``, ``__share_group_state``, ``__remote_log_metadata``) that does not decode with
    its schema.

    ``field`` is the dotted path of the field being read (``value.members[2].clientId``); ``partition``
    (``topic-N``) and ``offset`` say which record, when known. ``reason`` is the bare message.
    """

    def __init__(self, message: str, *, field: str | None = None, partition: str | None = None,
                 offset: int | None = None) -> None:
        self.reason = message
        self.field = field
        self.partition = partition
        self.offset = offset
        where = []
        if partition is not None:
            where.append(f"partition {partition}")
        if offset is not None:
            where.append(f"offset {offset}")
        if field is not None:
            where.append(f"field {field}")
        super().__init__(f"{message} ({', '.join(where)})" if where else message)

    def located(self, *, partition: str | None = None, offset: int | None = None) -> "CorruptInternalRecordError":
        """A copy that also names the partition and record offset."""
        return type(self)(self.reason, field=self.field,
                          partition=partition if partition is not None else self.partition,
                          offset=offset if offset is not None else self.offset)


class BackupError(KvlogError):
    """A backup or restore that cannot go on (a damaged source segment, a backup object that does not match
    its manifest, a restore target that holds data): the message names the file and position."""


class SchemaError(KvlogError, ValueError):
    """A schema that cannot be read or used: text that does not parse (Avro JSON, a ``.proto`` file, a JSON
    Schema), a type kvlog cannot turn into Arrow columns (a recursive Avro record), a reference that names
    nothing, or a writer schema that cannot be resolved against the reader schema. ``subject``,
    ``version`` and ``schema_id`` say which schema, when known; ``reason`` is the bare message."""

    def __init__(self, message: str, *, subject: str | None = None, version: int | None = None,
                 schema_id: int | None = None) -> None:
        self.reason = message
        self.subject = subject
        self.version = version
        self.schema_id = schema_id
        where = []
        if schema_id is not None:
            where.append(f"schema id {schema_id}")
        if subject is not None:
            where.append(f"subject {subject!r}" + (f" version {version}" if version is not None else ""))
        super().__init__(f"{message} ({', '.join(where)})" if where else message)


class SchemaNotFoundError(SchemaError, LookupError):
    """A schema id, subject or version that the schema source does not hold (or holds only as deleted)."""


class SchemaRegistryError(KvlogError):
    """A schema registry's REST API that cannot be reached or answers with an error other than "not found"
    (the status and the registry's own ``error_code`` and message are kept: ``status``, ``error_code``)."""

    def __init__(self, message: str, *, status: int | None = None, error_code: int | None = None) -> None:
        self.status = status
        self.error_code = error_code
        super().__init__(message)


class DeserializationError(KvlogError, ValueError):
    """A record key or value that does not decode with its schema: an unknown schema id, a truncated or
    malformed payload, a Protobuf message index that names no message, JSON that does not parse.

    ``topic``, ``partition``, ``offset`` and ``schema_id`` say which record, ``part`` is ``"key"`` or
    ``"value"``; ``reason`` is the bare message (what a scan with ``errors="null"`` puts in ``valueError``).
    """

    def __init__(self, message: str, *, topic: str | None = None, partition: int | None = None,
                 offset: int | None = None, schema_id: int | None = None, part: str = "value") -> None:
        self.reason = message
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.schema_id = schema_id
        self.part = part
        where = []
        if topic is not None:
            where.append(f"{topic}-{partition}" if partition is not None else topic)
        if offset is not None:
            where.append(f"offset {offset}")
        if schema_id is not None:
            where.append(f"schema id {schema_id}")
        super().__init__(f"{part}: {message} ({', '.join(where)})" if where else f"{part}: {message}")


class DivergentReplicasError(KvlogError, ValueError):
    """Replicas of one partition whose histories part (an unclean leader election, a replica restored from an
    older copy): they hold different records at the same offsets, so no one answer is the partition's.
    ``topic``, ``partition`` and ``replicas`` (their partition directories, the one a read would choose
    first) say which; the message says from which offset each parts."""

    def __init__(self, message: str, *, topic: str, partition: int, replicas: list[str]) -> None:
        self.topic = topic
        self.partition = partition
        self.replicas = replicas
        super().__init__(message)


class IcebergExportError(KvlogError):
    """An export of a topic into an Iceberg table that cannot go on: the table was written from another topic
    or cluster, a schema change the table cannot follow, a commit lost to another exporter more times than it
    retries. ``table`` names the table."""

    def __init__(self, message: str, *, table: str | None = None) -> None:
        self.reason = message
        self.table = table
        super().__init__(f"{table}: {message}" if table else message)


class ExportGapError(IcebergExportError):
    """Records of a partition that were never exported and can no longer be: retention moved the log start
    past the table's offset, the cleaner compacted records the table had not reached, or the topic was
    recreated (a new topic id). ``gaps`` lists ``(partition, from_offset, to_offset, why)``; an export with
    ``gaps="accept"`` goes on past them and records them in the snapshot's summary."""

    def __init__(self, message: str, *, table: str | None = None,
                 gaps: list[tuple[int, int, int, str]] | None = None) -> None:
        self.gaps = list(gaps or [])
        super().__init__(message, table=table)
