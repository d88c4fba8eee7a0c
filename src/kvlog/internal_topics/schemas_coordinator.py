"""Schema tables of the coordinator topics: ``__consumer_offsets``, ``__transaction_state``,
``__share_group_state``.

Facts restated from Kafka's message specs (``group-coordinator``, ``transaction-coordinator`` and
``share-coordinator`` resources, 3.x–4.x): a record key is an int16 *record type* followed by that type's
key fields (never flexible); a value is an int16 *version* followed by the value fields, or null for a
tombstone. Type 0 of ``__consumer_offsets`` is the offset-commit key as brokers before 0.10 wrote it; its
values share the offset-commit value versions.

Streams-group records (KIP-1071, Kafka 4.1+): types 17 and 19 to 23, as the ``apiKey`` of the
``StreamsGroup*Key`` coordinator-key specs numbers them; each value has one version, 0, flexible. Their
later additions are tagged fields of that version 0 (``ValidatedTopologyEpoch``, ``LastAssignmentConfigs``
and KIP-1331's two topology-description epochs of the group metadata value, KIP-1263's
``AssignmentTimestamp``, KIP-1251's per-partition ``AssignmentEpochs`` of the current assignment), so a
record written before them decodes with their defaults. Type 18 (``StreamsGroupPartitionMetadata`` of the
early-access specs) is gone upstream, replaced by the group's metadata hash: it is not tabled and reads as
an unknown record type, as in Kafka's own tools.

Compared field by field with the specs inside the Kafka 4.1.2 and 4.4.0 jars (the group, share and
transaction coordinators' ``common/message/*.json``) and decoded from what 4.1.2 and 4.4.0 brokers wrote
(classic, consumer-protocol, share and streams groups, transactions): every record printed as those
versions' ``DumpLogSegments`` printed it. Fields newer than 4.4.0 (``CreationTimeMs``) are tagged, so
records without them read with their defaults. ``tests/test_broker_schemas.py`` (broker suite) compares
every table with the specs in the jars of each Kafka version the broker tests run; docs/internal-topics.md
lists where kvlog differs on purpose.

Type 9 (``ShareGroupPartitionMetadata``) is Kafka 4.0's: 4.1 dropped it for the share group metadata's
``MetadataHash`` (KIP-1101) and skips it as an unknown type; kvlog still reads it (its fields are those of
the 4.0.1 jar's spec).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvlog.internal_topics.codec import Field, Message, f, message

__all__ = ["GROUP_RECORDS", "RecordType", "SHARE_STATE_RECORDS", "TRANSACTION_RECORDS"]


@dataclass(frozen=True)
class RecordType:
    """One coordinator record type: the id in the first two key bytes, its key and value specs."""

    id: int
    name: str
    key: Message
    value: Message


def _key(name: str, *fields: tuple[str, str]) -> Message:
    return message(name, "0", "none", [f(n, t, "0") for n, t in fields])


def _group_key(name: str) -> Message:
    return _key(name, ("GroupId", "string"))


def _member_key(name: str) -> Message:
    return _key(name, ("GroupId", "string"), ("MemberId", "string"))


def _v0(name: str, fields: list[Field]) -> Message:
    """A value spec whose only version, 0, is flexible (every KIP-848/KIP-932 record)."""
    return message(name, "0", "0+", fields)


_TOPIC_PARTITIONS = (f("TopicId", "uuid"), f("Partitions", "[]int32"))
_PARTITION_METADATA = [
    f("Topics", "[]struct", fields=[
        f("TopicId", "uuid"), f("TopicName", "string"), f("NumPartitions", "int32"),
        f("PartitionMetadata", "[]struct", fields=[f("Partition", "int32"), f("Racks", "[]string")]),
    ]),
]

OFFSET_COMMIT_KEY = _key("OffsetCommitKey", ("group", "string"), ("topic", "string"), ("partition", "int32"))
OFFSET_COMMIT_VALUE = message("OffsetCommitValue", "0-4", "4+", [
    f("offset", "int64"),
    f("leaderEpoch", "int32", "3+", default=-1),
    f("metadata", "string"),
    f("commitTimestamp", "int64"),
    f("expireTimestamp", "int64", "1", default=-1),
    f("topicId", "uuid", "4+", tag=0),  # KAFKA-19141 (4.1): set by commits that name the topic by id (4.4)
])
GROUP_METADATA_KEY = _key("GroupMetadataKey", ("group", "string"))
GROUP_METADATA_VALUE = message("GroupMetadataValue", "0-4", "4+", [
    f("protocolType", "string"),
    f("generation", "int32"),
    f("protocol", "string", nullable="0+"),
    f("leader", "string", nullable="0+"),
    f("currentStateTimestamp", "int64", "2+", default=-1),
    f("members", "[]struct", fields=[
        f("memberId", "string"),
        f("groupInstanceId", "string", "3+", nullable="3+", default=None),
        f("clientId", "string"),
        f("clientHost", "string"),
        f("rebalanceTimeout", "int32", "1+", default=-1),
        f("sessionTimeout", "int32"),
        f("subscription", "bytes"),
        f("assignment", "bytes"),
    ]),
])

_CONSUMER_MEMBER_METADATA = _v0("ConsumerGroupMemberMetadataValue", [
    f("InstanceId", "string", nullable="0+"),
    f("RackId", "string", nullable="0+"),
    f("ClientId", "string"),
    f("ClientHost", "string"),
    f("SubscribedTopicNames", "[]string"),
    f("SubscribedTopicRegex", "string", nullable="0+"),
    f("RebalanceTimeoutMs", "int32", default=-1),
    f("ServerAssignor", "string", nullable="0+"),
    # "default": null in the spec is no default at all: an absent tag reads as the empty struct, a consumer-
    # protocol member's null is written as a tag (generated code: the field starts as a new struct)
    f("ClassicMemberMetadata", "struct", nullable="0+", tag=0, fields=[
        f("SessionTimeoutMs", "int32"),
        f("SupportedProtocols", "[]struct", fields=[f("Name", "string"), f("Metadata", "bytes")]),
    ]),
])
# AssignmentEpochs (and LastAssignmentConfigs below) have the spec's JSON-null default, i.e. none: absent
# reads as an empty list, and null is written as a tag of its own
_CONSUMER_ASSIGNED = (*_TOPIC_PARTITIONS, f("AssignmentEpochs", "[]int32", nullable="0+", tag=0))

# Streams groups: a task is a (subtopology, partition) pair; assignments list them per subtopology.
_KEY_VALUE = (f("Key", "string"), f("Value", "string"))
_TASK_IDS = (f("SubtopologyId", "string"), f("Partitions", "[]int32"))
_ASSIGNED_TASK_IDS = (*_TASK_IDS, f("AssignmentEpochs", "[]int32", nullable="0+", tag=0))
_TOPIC_INFO = [
    f("Name", "string"), f("Partitions", "int32"), f("ReplicationFactor", "int16"),
    f("TopicConfigs", "[]struct", fields=[f("key", "string"), f("value", "string")]),
]

GROUP_RECORDS: dict[int, RecordType] = {rt.id: rt for rt in [
    RecordType(0, "LegacyOffsetCommit", OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE),
    RecordType(1, "OffsetCommit", OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE),
    RecordType(2, "GroupMetadata", GROUP_METADATA_KEY, GROUP_METADATA_VALUE),
    RecordType(3, "ConsumerGroupMetadata", _group_key("ConsumerGroupMetadataKey"),
               _v0("ConsumerGroupMetadataValue", [
                   f("Epoch", "int32"),
                   f("MetadataHash", "int64", tag=0, default=0),
                   f("CreationTimeMs", "int64", tag=1, default=-1),
               ])),
    RecordType(4, "ConsumerGroupPartitionMetadata", _group_key("ConsumerGroupPartitionMetadataKey"),
               _v0("ConsumerGroupPartitionMetadataValue", _PARTITION_METADATA)),
    RecordType(5, "ConsumerGroupMemberMetadata", _member_key("ConsumerGroupMemberMetadataKey"),
               _CONSUMER_MEMBER_METADATA),
    RecordType(6, "ConsumerGroupTargetAssignmentMetadata", _group_key("ConsumerGroupTargetAssignmentMetadataKey"),
               _v0("ConsumerGroupTargetAssignmentMetadataValue", [
                   f("AssignmentEpoch", "int32"),
                   f("AssignmentTimestamp", "int64", tag=0, default=0),
               ])),
    RecordType(7, "ConsumerGroupTargetAssignmentMember", _member_key("ConsumerGroupTargetAssignmentMemberKey"),
               _v0("ConsumerGroupTargetAssignmentMemberValue", [
                   f("TopicPartitions", "[]struct", fields=_TOPIC_PARTITIONS),
               ])),
    RecordType(8, "ConsumerGroupCurrentMemberAssignment", _member_key("ConsumerGroupCurrentMemberAssignmentKey"),
               _v0("ConsumerGroupCurrentMemberAssignmentValue", [
                   f("MemberEpoch", "int32"),
                   f("PreviousMemberEpoch", "int32"),
                   f("State", "int8"),
                   f("AssignedPartitions", "[]struct", fields=_CONSUMER_ASSIGNED),
                   f("PartitionsPendingRevocation", "[]struct", fields=_CONSUMER_ASSIGNED),
               ])),
    RecordType(9, "ShareGroupPartitionMetadata", _group_key("ShareGroupPartitionMetadataKey"),  # Kafka 4.0 only
               _v0("ShareGroupPartitionMetadataValue", _PARTITION_METADATA)),
    RecordType(10, "ShareGroupMemberMetadata", _member_key("ShareGroupMemberMetadataKey"),
               _v0("ShareGroupMemberMetadataValue", [
                   f("RackId", "string", nullable="0+"),
                   f("ClientId", "string"),
                   f("ClientHost", "string"),
                   f("SubscribedTopicNames", "[]string"),
               ])),
    RecordType(11, "ShareGroupMetadata", _group_key("ShareGroupMetadataKey"),
               _v0("ShareGroupMetadataValue", [f("Epoch", "int32"), f("MetadataHash", "int64")])),
    RecordType(12, "ShareGroupTargetAssignmentMetadata", _group_key("ShareGroupTargetAssignmentMetadataKey"),
               _v0("ShareGroupTargetAssignmentMetadataValue", [
                   f("AssignmentEpoch", "int32"),
                   f("AssignmentTimestamp", "int64", tag=0, default=0),  # Kafka 4.4
               ])),
    RecordType(13, "ShareGroupTargetAssignmentMember", _member_key("ShareGroupTargetAssignmentMemberKey"),
               _v0("ShareGroupTargetAssignmentMemberValue", [
                   f("TopicPartitions", "[]struct", fields=_TOPIC_PARTITIONS),
               ])),
    RecordType(14, "ShareGroupCurrentMemberAssignment", _member_key("ShareGroupCurrentMemberAssignmentKey"),
               _v0("ShareGroupCurrentMemberAssignmentValue", [
                   f("MemberEpoch", "int32"),
                   f("PreviousMemberEpoch", "int32"),
                   f("State", "int8"),
                   f("AssignedPartitions", "[]struct", fields=_TOPIC_PARTITIONS),
               ])),
    RecordType(15, "ShareGroupStatePartitionMetadata", _group_key("ShareGroupStatePartitionMetadataKey"),
               # (a development spec had an untagged CreateTimestamp per topic; neither 4.1.2 nor 4.4.0 has it,
               # and a 4.4.0 broker's records end after Partitions)
               _v0("ShareGroupStatePartitionMetadataValue", [
                   f("InitializingTopics", "[]struct", fields=[
                       f("TopicId", "uuid"), f("TopicName", "string"), f("Partitions", "[]int32")]),
                   f("InitializedTopics", "[]struct", fields=[
                       f("TopicId", "uuid"), f("TopicName", "string"), f("Partitions", "[]int32")]),
                   f("DeletingTopics", "[]struct", fields=[f("TopicId", "uuid"), f("TopicName", "string")]),
               ])),
    RecordType(16, "ConsumerGroupRegularExpression",
               _key("ConsumerGroupRegularExpressionKey", ("GroupId", "string"), ("RegularExpression", "string")),
               _v0("ConsumerGroupRegularExpressionValue", [
                   f("Topics", "[]string"), f("Version", "int64"), f("Timestamp", "int64"),
               ])),
    RecordType(17, "StreamsGroupMetadata", _group_key("StreamsGroupMetadataKey"),
               _v0("StreamsGroupMetadataValue", [
                   f("Epoch", "int32"),
                   f("MetadataHash", "int64"),
                   f("ValidatedTopologyEpoch", "int32", tag=0, default=-1),
                   f("LastAssignmentConfigs", "[]struct", nullable="0+", tag=1, fields=_KEY_VALUE),
                   f("StoredDescriptionTopologyEpoch", "int32", tag=2, default=-1),
                   f("FailedDescriptionTopologyEpoch", "int32", tag=3, default=-1),
               ])),
    RecordType(19, "StreamsGroupMemberMetadata", _member_key("StreamsGroupMemberMetadataKey"),
               _v0("StreamsGroupMemberMetadataValue", [
                   f("InstanceId", "string", nullable="0+"),
                   f("RackId", "string", nullable="0+"),
                   f("ClientId", "string"),
                   f("ClientHost", "string"),
                   f("RebalanceTimeoutMs", "int32", default=-1),
                   f("TopologyEpoch", "int32"),
                   f("ProcessId", "string"),
                   f("UserEndpoint", "struct", nullable="0+", default=None,
                     fields=[f("Host", "string"), f("Port", "uint16")]),
                   f("ClientTags", "[]struct", fields=_KEY_VALUE),
               ])),
    RecordType(20, "StreamsGroupTargetAssignmentMetadata", _group_key("StreamsGroupTargetAssignmentMetadataKey"),
               _v0("StreamsGroupTargetAssignmentMetadataValue", [
                   f("AssignmentEpoch", "int32"),
                   f("AssignmentTimestamp", "int64", tag=0, default=0),
               ])),
    RecordType(21, "StreamsGroupTargetAssignmentMember", _member_key("StreamsGroupTargetAssignmentMemberKey"),
               _v0("StreamsGroupTargetAssignmentMemberValue", [
                   f("ActiveTasks", "[]struct", fields=_TASK_IDS),
                   f("StandbyTasks", "[]struct", fields=_TASK_IDS),
                   f("WarmupTasks", "[]struct", fields=_TASK_IDS),
               ])),
    RecordType(22, "StreamsGroupCurrentMemberAssignment", _member_key("StreamsGroupCurrentMemberAssignmentKey"),
               _v0("StreamsGroupCurrentMemberAssignmentValue", [
                   f("MemberEpoch", "int32"),
                   f("PreviousMemberEpoch", "int32"),
                   f("State", "int8"),
                   f("ActiveTasks", "[]struct", fields=_ASSIGNED_TASK_IDS),
                   f("StandbyTasks", "[]struct", fields=_ASSIGNED_TASK_IDS),
                   f("WarmupTasks", "[]struct", fields=_ASSIGNED_TASK_IDS),
                   f("ActiveTasksPendingRevocation", "[]struct", fields=_ASSIGNED_TASK_IDS),
                   f("StandbyTasksPendingRevocation", "[]struct", fields=_ASSIGNED_TASK_IDS),
                   f("WarmupTasksPendingRevocation", "[]struct", fields=_ASSIGNED_TASK_IDS),
               ])),
    RecordType(23, "StreamsGroupTopology", _group_key("StreamsGroupTopologyKey"),
               _v0("StreamsGroupTopologyValue", [
                   f("Epoch", "int32"),
                   f("Subtopologies", "[]struct", fields=[
                       f("SubtopologyId", "string"),
                       f("SourceTopics", "[]string"),
                       f("SourceTopicRegex", "[]string"),
                       f("StateChangelogTopics", "[]struct", fields=_TOPIC_INFO),
                       f("RepartitionSinkTopics", "[]string"),
                       f("RepartitionSourceTopics", "[]struct", fields=_TOPIC_INFO),
                       f("CopartitionGroups", "[]struct", fields=[
                           f("SourceTopics", "[]int16"), f("SourceTopicRegex", "[]int16"),
                           f("RepartitionSourceTopics", "[]int16"),
                       ]),
                   ]),
               ])),
]}

TRANSACTION_RECORDS: dict[int, RecordType] = {0: RecordType(
    0, "TransactionLog", _key("TransactionLogKey", ("TransactionalId", "string")),
    message("TransactionLogValue", "0-1", "1+", [
        f("ProducerId", "int64"),
        f("PreviousProducerId", "int64", "1+", tag=0, default=-1),
        f("NextProducerId", "int64", "1+", tag=1, default=-1),
        f("ProducerEpoch", "int16"),
        f("NextProducerEpoch", "int16", "1+", tag=3, default=-1),  # KIP-939 (4.1 specs)
        f("TransactionTimeoutMs", "int32"),
        f("TransactionStatus", "int8"),
        f("TransactionPartitions", "[]struct", nullable="0+", fields=[
            f("Topic", "string"), f("PartitionIds", "[]int32"),
        ]),
        f("TransactionLastUpdateTimestampMs", "int64"),
        f("TransactionStartTimestampMs", "int64"),
        f("ClientTransactionVersion", "int16", "1+", tag=2, default=0),
    ]),
)}

_SHARE_KEY = (("GroupId", "string"), ("TopicId", "uuid"), ("Partition", "int32"))
_STATE_BATCHES = f("StateBatches", "[]struct", fields=[
    f("FirstOffset", "int64"), f("LastOffset", "int64"), f("DeliveryState", "int8"), f("DeliveryCount", "int16"),
])
SHARE_STATE_RECORDS: dict[int, RecordType] = {rt.id: rt for rt in [
    RecordType(0, "ShareSnapshot", _key("ShareSnapshotKey", *_SHARE_KEY), _v0("ShareSnapshotValue", [
        f("SnapshotEpoch", "int32"),
        f("StateEpoch", "int32"),
        f("LeaderEpoch", "int32"),
        f("StartOffset", "int64"),
        f("DeliveryCompleteCount", "int32", tag=0, default=-1),
        f("CreateTimestamp", "int64"),
        f("WriteTimestamp", "int64"),
        _STATE_BATCHES,
    ])),
    RecordType(1, "ShareUpdate", _key("ShareUpdateKey", *_SHARE_KEY), _v0("ShareUpdateValue", [
        f("SnapshotEpoch", "int32"),
        f("LeaderEpoch", "int32"),
        f("StartOffset", "int64"),
        f("DeliveryCompleteCount", "int32", tag=0, default=-1),
        _STATE_BATCHES,
    ])),
]}

# The consumer protocol's subscription and assignment, the bytes inside a classic group's members
# (clients' ConsumerProtocolSubscription/Assignment specs): an int16 version, then the fields.
CONSUMER_SUBSCRIPTION = message("ConsumerProtocolSubscription", "0-3", "none", [
    f("Topics", "[]string"),
    f("UserData", "bytes", nullable="0+", default=None),
    f("OwnedPartitions", "[]struct", "1+", fields=[f("Topic", "string", "1+"), f("Partitions", "[]int32", "1+")]),
    f("GenerationId", "int32", "2+", default=-1),
    f("RackId", "string", "3+", nullable="3+", default=None),
])
CONSUMER_ASSIGNMENT = message("ConsumerProtocolAssignment", "0-3", "none", [
    f("AssignedPartitions", "[]struct", fields=[f("Topic", "string"), f("Partitions", "[]int32")]),
    f("UserData", "bytes", nullable="0+", default=None),
])
