"""Schema tables of ``__remote_log_metadata``, the topic in which tiered storage (KIP-405) records
which remote segments make up each partition's log.

Transcribed from Kafka's ``storage/src/main/resources/message/Remote*Record.json`` (apache/kafka trunk,
commit 1acb523, checked against the 3.9 snapshot 1eb7644): four record types, every version flexible.
Version 0 is what 3.9 and 4.x brokers write (4.0 added the tagged ``TxnIndexEmpty`` of KIP-1058 to the
segment and snapshot records); version 1 adds the tagged ``BrokerLeaderEpoch`` and ``EndOffset`` fields
(trunk). A record's value is framed as a ``__cluster_metadata`` value is (Kafka's
``AbstractApiMessageSerde``): unsigned varints frame version 1, api key, version, then the message; the
key is null.

Segment states (``RemoteLogSegmentState``) and partition-delete states (``RemotePartitionDeleteState``)
are int8 ids; their names are here as Kafka's enums spell them.
"""

from __future__ import annotations

import re

from kvlog.internal_topics.codec import Field, Message, f, message

__all__ = [
    "COPY_SEGMENT_FINISHED",
    "COPY_SEGMENT_STARTED",
    "DELETE_SEGMENT_FINISHED",
    "DELETE_SEGMENT_STARTED",
    "PARTITION_DELETE_STATES",
    "REMOTE_LOG_METADATA_RECORDS",
    "SEGMENT_STATES",
    "remote_type_name",
]

COPY_SEGMENT_STARTED, COPY_SEGMENT_FINISHED, DELETE_SEGMENT_STARTED, DELETE_SEGMENT_FINISHED = 0, 1, 2, 3
SEGMENT_STATES = {0: "COPY_SEGMENT_STARTED", 1: "COPY_SEGMENT_FINISHED", 2: "DELETE_SEGMENT_STARTED",
                  3: "DELETE_SEGMENT_FINISHED"}
PARTITION_DELETE_STATES = {0: "DELETE_PARTITION_MARKED", 1: "DELETE_PARTITION_STARTED",
                           2: "DELETE_PARTITION_FINISHED"}

SEGMENT_METADATA, SEGMENT_UPDATE, PARTITION_DELETE, SEGMENT_SNAPSHOT = 0, 1, 2, 3


def _topic_id_partition() -> Field:
    return f("TopicIdPartition", "struct", fields=[f("Name", "string"), f("Id", "uuid"), f("Partition", "int32")])


def _segment_id() -> Field:
    return f("RemoteLogSegmentId", "struct", fields=[_topic_id_partition(), f("Id", "uuid")])


def _leader_epochs() -> Field:
    return f("SegmentLeaderEpochs", "[]struct", fields=[f("LeaderEpoch", "int32"), f("Offset", "int64")])


def _m(api_key: int, name: str, fields: list[Field]) -> Message:
    return message(name, "0-1", "0+", fields, api_key)


def _segment_body() -> list[Field]:
    """The fields a segment's record and its snapshot record share, after the segment's id."""
    return [
        f("StartOffset", "int64"),
        f("EndOffset", "int64"),
        f("BrokerId", "int32"),
        f("MaxTimestampMs", "int64"),
        f("EventTimestampMs", "int64"),
        _leader_epochs(),
        f("SegmentSizeInBytes", "int32"),
        f("CustomMetadata", "bytes", nullable="0+", default=None),
        f("RemoteLogSegmentState", "int8"),
        f("TxnIndexEmpty", "bool", tag=0),
        f("BrokerLeaderEpoch", "int32", "1+", tag=1),
    ]


REMOTE_LOG_METADATA_RECORDS: dict[int, Message] = {m.api_key: m for m in [
    _m(SEGMENT_METADATA, "RemoteLogSegmentMetadataRecord", [
        _segment_id(), *_segment_body(),
    ]),
    _m(SEGMENT_UPDATE, "RemoteLogSegmentMetadataUpdateRecord", [
        _segment_id(),
        f("BrokerId", "int32"),
        f("EventTimestampMs", "int64"),
        f("CustomMetadata", "bytes", nullable="0+", default=None),
        f("RemoteLogSegmentState", "int8"),
        f("BrokerLeaderEpoch", "int32", "1+", tag=0, default=-1),
        f("EndOffset", "int64", "1+", tag=1, default=-1),
    ]),
    _m(PARTITION_DELETE, "RemotePartitionDeleteMetadataRecord", [
        _topic_id_partition(),
        f("BrokerId", "int32"),
        f("EventTimestampMs", "int64"),
        f("RemotePartitionDeleteState", "int8"),
        f("BrokerLeaderEpoch", "int32", "1+", tag=0),
        f("EndOffset", "int64", "1+", tag=1),
    ]),
    _m(SEGMENT_SNAPSHOT, "RemoteLogSegmentMetadataSnapshotRecord", [
        f("SegmentId", "uuid"), *_segment_body(),
    ]),
]}


def remote_type_name(api_key: int) -> str:
    """The constant name of Kafka's generated ``MetadataRecordType`` for the storage module:
    ``RemoteLogSegmentMetadataRecord`` → ``REMOTE_LOG_SEGMENT_METADATA_RECORD``."""
    msg = REMOTE_LOG_METADATA_RECORDS.get(api_key)
    if msg is None:
        return f"UNKNOWN_{api_key}"
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", msg.name).upper()
