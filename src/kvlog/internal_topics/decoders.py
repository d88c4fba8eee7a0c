"""Keys and values of Kafka's internal topics as Python data, and back.

``decode_coordinator_record`` reads a record of ``__consumer_offsets``, ``__transaction_state`` or
``__share_group_state`` (an int16 record type + key fields; an int16 version + value fields, or a null
value for a tombstone); ``decode_metadata_record`` reads a KRaft ``__cluster_metadata`` value and
``decode_remote_log_metadata_record`` a tiered-storage ``__remote_log_metadata`` value (the same
frame: varints frame version 1, api key, version, then the record). All
raise :class:`~kvlog.errors.CorruptInternalRecordError` naming the partition, offset and field when the
bytes do not fit; a record type the tables do not know comes back with ``known=False`` (reported, not
fatal), as Kafka's own decoders report it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import Enum
from typing import Any

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics import codec
from kvlog.internal_topics.schemas_coordinator import (
    GROUP_RECORDS,
    SHARE_STATE_RECORDS,
    TRANSACTION_RECORDS,
    RecordType,
)
from kvlog.internal_topics.schemas_metadata import METADATA_RECORDS, metadata_type_name
from kvlog.internal_topics.schemas_remote import REMOTE_LOG_METADATA_RECORDS, remote_type_name

__all__ = [
    "CoordinatorRecord",
    "InternalTopic",
    "MetadataRecord",
    "RemoteLogMetadataRecord",
    "UnknownSchemaError",
    "decode_coordinator_record",
    "decode_metadata_record",
    "decode_remote_log_metadata_record",
    "encode_coordinator_record",
    "encode_metadata_record",
    "encode_remote_log_metadata_record",
    "topic_kind",
]

METADATA_FRAME_VERSION = 1


class UnknownSchemaError(CorruptInternalRecordError):
    """A record type or version the schema tables do not know (a newer broker): reported, and skipped
    by the replays, never fatal to them."""


class InternalTopic(str, Enum):
    """The internal topics kvlog decodes, by the records they hold."""

    CONSUMER_OFFSETS = "__consumer_offsets"
    TRANSACTION_STATE = "__transaction_state"
    SHARE_GROUP_STATE = "__share_group_state"
    CLUSTER_METADATA = "__cluster_metadata"
    REMOTE_LOG_METADATA = "__remote_log_metadata"

    @property
    def record_types(self) -> dict[int, RecordType]:
        if self is InternalTopic.CONSUMER_OFFSETS:
            return GROUP_RECORDS
        if self is InternalTopic.TRANSACTION_STATE:
            return TRANSACTION_RECORDS
        if self is InternalTopic.SHARE_GROUP_STATE:
            return SHARE_STATE_RECORDS
        raise ValueError(f"{self.value} records have no key types (use decode_metadata_record or "
                         "decode_remote_log_metadata_record)")


def topic_kind(topic: str) -> InternalTopic | None:
    """The internal topic a topic name is, or None for any other topic."""
    try:
        return InternalTopic(topic)
    except ValueError:
        return None


@dataclass(frozen=True)
class CoordinatorRecord:
    """One decoded coordinator record. ``value`` is None for a tombstone (``version`` then None too);
    ``known`` is False for a record type the schema tables do not hold (``key``/``value`` then None)."""

    record_type: int
    type_name: str | None
    key: dict[str, Any] | None
    version: int | None
    value: dict[str, Any] | None
    known: bool = True

    @property
    def is_tombstone(self) -> bool:
        return self.known and self.value is None


@dataclass(frozen=True)
class MetadataRecord:
    """One decoded ``__cluster_metadata`` record: api key, Kafka's type name, version and fields."""

    api_key: int
    type_name: str
    version: int
    data: dict[str, Any]


@dataclass(frozen=True)
class RemoteLogMetadataRecord:
    """One decoded ``__remote_log_metadata`` record: api key (0 segment metadata, 1 segment update,
    2 partition delete, 3 segment snapshot), Kafka's type name, version and fields."""

    api_key: int
    type_name: str
    version: int
    data: dict[str, Any]


def _fail(exc: codec.SchemaError, part: str, partition: str | None, offset: int | None,
          ) -> CorruptInternalRecordError:
    path = exc.path if exc.path.startswith(part) else f"{part}.{exc.path}" if exc.path else part
    return CorruptInternalRecordError(exc.reason, field=path, partition=partition, offset=offset)


def _int16(data: bytes | memoryview, what: str, partition: str | None, offset: int | None) -> int:
    if len(data) < 2:
        raise CorruptInternalRecordError(f"{len(data)} bytes, too short for the int16 {what}", field=what,
                                         partition=partition, offset=offset)
    value: int = struct.unpack_from(">h", data, 0)[0]
    return value


def decode_coordinator_record(topic: InternalTopic | str, key: bytes | memoryview | None,
                              value: bytes | memoryview | None, *, partition: str | None = None,
                              offset: int | None = None) -> CoordinatorRecord:
    """The record type, key fields and (unless a tombstone) value version and fields of one record."""
    kind = InternalTopic(topic)
    if key is None:
        raise CorruptInternalRecordError("a coordinator record without a key", field="key", partition=partition,
                                         offset=offset)
    record_type = _int16(key, "key.type", partition, offset)
    rt = kind.record_types.get(record_type)
    if rt is None:
        return CoordinatorRecord(record_type, None, None, None, None, known=False)
    try:
        key_fields, _ = codec.decode(rt.key, 0, key, offset=2, path="key")
    except codec.SchemaError as exc:
        raise _fail(exc, "key", partition, offset) from None
    if value is None:
        return CoordinatorRecord(record_type, rt.name, key_fields, None, None)
    version = _int16(value, "value.version", partition, offset)
    if version not in rt.value.valid:
        raise UnknownSchemaError(f"unknown version {version} of {rt.value.name} (known: {rt.value.valid})",
                                  field="value.version", partition=partition, offset=offset)
    try:
        fields, _ = codec.decode(rt.value, version, value, offset=2, path="value")
    except codec.SchemaError as exc:
        raise _fail(exc, "value", partition, offset) from None
    return CoordinatorRecord(record_type, rt.name, key_fields, version, fields)


def encode_coordinator_record(topic: InternalTopic | str, record_type: int, key: dict[str, Any],
                              version: int | None = None, value: dict[str, Any] | None = None,
                              ) -> tuple[bytes, bytes | None]:
    """``(key bytes, value bytes or None)`` of a coordinator record; ``value=None`` is a tombstone."""
    rt = InternalTopic(topic).record_types.get(record_type)
    if rt is None:
        raise CorruptInternalRecordError(f"unknown record type {record_type} of {InternalTopic(topic).value}",
                                         field="key.type")
    try:
        key_bytes = struct.pack(">h", record_type) + codec.encode(rt.key, 0, key)
        if value is None:
            return key_bytes, None
        if version is None:
            version = rt.value.valid.hi
        return key_bytes, struct.pack(">h", version) + codec.encode(rt.value, version, value)
    except codec.SchemaError as exc:
        raise CorruptInternalRecordError(exc.reason, field=exc.path or None) from None


def _uvarint(data: bytes | memoryview, pos: int, what: str, partition: str | None,
             offset: int | None) -> tuple[int, int]:
    try:
        return codec.read_uvarint(data, pos, what)
    except codec.SchemaError as exc:
        raise _fail(exc, what, partition, offset) from None


def decode_metadata_record(value: bytes | memoryview | None, *, partition: str | None = None,
                           offset: int | None = None) -> MetadataRecord:
    """One KRaft metadata record value: frame version 1, api key, version, then the record.

    An unknown api key or version, or bytes left over after the record, raise
    :class:`~kvlog.errors.CorruptInternalRecordError` (Kafka's MetadataRecordSerde refuses them too).
    """
    api_key, version, data = _decode_framed(value, METADATA_RECORDS, "metadata", partition, offset)
    return MetadataRecord(api_key, metadata_type_name(api_key), version, data)


def decode_remote_log_metadata_record(value: bytes | memoryview | None, *, partition: str | None = None,
                                      offset: int | None = None) -> RemoteLogMetadataRecord:
    """One ``__remote_log_metadata`` record value, framed as a KRaft metadata record (Kafka's
    ``RemoteLogMetadataSerde`` reads it with the same ``AbstractApiMessageSerde``); the same errors."""
    api_key, version, data = _decode_framed(value, REMOTE_LOG_METADATA_RECORDS, "remote log metadata",
                                            partition, offset)
    return RemoteLogMetadataRecord(api_key, remote_type_name(api_key), version, data)


def _decode_framed(value: bytes | memoryview | None, table: dict[int, codec.Message], what: str,
                   partition: str | None, offset: int | None) -> tuple[int, int, dict[str, Any]]:
    if value is None:
        raise CorruptInternalRecordError(f"a {what} record without a value", field="value",
                                         partition=partition, offset=offset)
    frame, pos = _uvarint(value, 0, "frameVersion", partition, offset)
    if frame != METADATA_FRAME_VERSION:
        raise CorruptInternalRecordError(f"unknown metadata frame version {frame}", field="frameVersion",
                                         partition=partition, offset=offset)
    api_key, pos = _uvarint(value, pos, "apiKey", partition, offset)
    version, pos = _uvarint(value, pos, "version", partition, offset)
    msg = table.get(api_key)
    if msg is None:
        raise UnknownSchemaError(f"unknown {what} record type {api_key}", field="apiKey",
                                 partition=partition, offset=offset)
    if version not in msg.valid:
        raise UnknownSchemaError(f"unknown version {version} of {msg.name} (known: {msg.valid})",
                                  field="version", partition=partition, offset=offset)
    try:
        data, end = codec.decode(msg, version, value, offset=pos, path="data")
    except codec.SchemaError as exc:
        raise _fail(exc, "data", partition, offset) from None
    if end != len(value):
        raise CorruptInternalRecordError(f"{len(value) - end} bytes left after the {msg.name}", field="data",
                                         partition=partition, offset=offset)
    return api_key, version, data


def encode_metadata_record(api_key: int, version: int, data: dict[str, Any]) -> bytes:
    """The value bytes of one KRaft metadata record."""
    return _encode_framed(METADATA_RECORDS, "metadata", api_key, version, data)


def encode_remote_log_metadata_record(api_key: int, version: int, data: dict[str, Any]) -> bytes:
    """The value bytes of one ``__remote_log_metadata`` record (its key is null)."""
    return _encode_framed(REMOTE_LOG_METADATA_RECORDS, "remote log metadata", api_key, version, data)


def _encode_framed(table: dict[int, codec.Message], what: str, api_key: int, version: int,
                   data: dict[str, Any]) -> bytes:
    msg = table.get(api_key)
    if msg is None:
        raise CorruptInternalRecordError(f"unknown {what} record type {api_key}", field="apiKey")
    try:
        head = b"".join(codec.uvarint_bytes(n) for n in (METADATA_FRAME_VERSION, api_key, version))
        return head + codec.encode(msg, version, data)
    except codec.SchemaError as exc:
        raise CorruptInternalRecordError(exc.reason, field=exc.path or None) from None
