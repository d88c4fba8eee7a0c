"""Schema tables of KRaft's ``__cluster_metadata`` records (Kafka's ``metadata`` resources, 3.x–4.4).

A metadata record has no key; its value is framed by three unsigned varints (frame version 1, the
record's api key, the record's version) followed by the record, every version flexible. Api keys 6, 13
and 16 were used by record types Kafka removed before 3.0 and are absent here, as they are upstream.
Checked field by field against the specs shipped in the Kafka 4.1.2 and 4.4.0 jars (``common/metadata/*.json``)
and against the records a 4.4.0 broker formatted at metadata.version 4.4-IV2 wrote (RegisterBrokerRecord v4,
BrokerRegistrationChangeRecord v3 with an empty ``CordonedLogDirs``). ``tests/test_broker_schemas.py``
(broker suite) compares the tables with the specs in the jars of each Kafka version the broker tests run.
Kafka 2.8's early-access KRaft records (frame version 0) are not these and are refused, as Kafka 3.0+
refuses them.
"""

from __future__ import annotations

import re

from kvlog.internal_topics.codec import Field, Message, f, message

__all__ = ["METADATA_RECORDS", "metadata_type_name"]


def _m(api_key: int, name: str, valid: str, fields: list[Field]) -> Message:
    return message(name, valid, "0+", fields, api_key)


_ENDPOINTS = [f("Name", "string"), f("Host", "string"), f("Port", "uint16"), f("SecurityProtocol", "int16")]
_FEATURES = [f("Name", "string"), f("MinSupportedVersion", "int16"), f("MaxSupportedVersion", "int16")]

METADATA_RECORDS: dict[int, Message] = {m.api_key: m for m in [
    _m(0, "RegisterBrokerRecord", "0-4", [
        f("BrokerId", "int32"),
        f("IsMigratingZkBroker", "bool", "2+", default=False),
        f("IncarnationId", "uuid"),
        f("BrokerEpoch", "int64"),
        f("EndPoints", "[]struct", fields=_ENDPOINTS),
        f("Features", "[]struct", fields=_FEATURES),
        f("Rack", "string", nullable="0+"),
        f("Fenced", "bool", default=True),
        f("InControlledShutdown", "bool", "1+", default=False),
        f("LogDirs", "[]uuid", "3+", tag=0),
        f("CordonedLogDirs", "[]uuid", "4+", nullable="4+", tag=1, default=None),  # KIP-1066, MV 4.3-IV0
    ]),
    _m(1, "UnregisterBrokerRecord", "0", [f("BrokerId", "int32"), f("BrokerEpoch", "int64")]),
    _m(2, "TopicRecord", "0", [f("Name", "string"), f("TopicId", "uuid")]),
    _m(3, "PartitionRecord", "0-2", [
        f("PartitionId", "int32", default=-1),
        f("TopicId", "uuid"),
        f("Replicas", "[]int32"),
        f("Isr", "[]int32"),
        f("RemovingReplicas", "[]int32"),
        f("AddingReplicas", "[]int32"),
        f("Leader", "int32", default=-1),
        f("LeaderRecoveryState", "int8", tag=0, default=0),
        f("LeaderEpoch", "int32", default=-1),
        f("PartitionEpoch", "int32", default=-1),
        f("Directories", "[]uuid", "1+"),
        f("EligibleLeaderReplicas", "[]int32", "2+", nullable="2+", tag=1, default=None),
        f("LastKnownElr", "[]int32", "2+", nullable="2+", tag=2, default=None),
    ]),
    _m(4, "ConfigRecord", "0", [
        f("ResourceType", "int8"), f("ResourceName", "string"), f("Name", "string"),
        f("Value", "string", nullable="0+"),
    ]),
    _m(5, "PartitionChangeRecord", "0-2", [
        f("PartitionId", "int32", default=-1),
        f("TopicId", "uuid"),
        f("Isr", "[]int32", nullable="0+", tag=0, default=None),
        f("Leader", "int32", tag=1, default=-2),
        f("Replicas", "[]int32", nullable="0+", tag=2, default=None),
        f("RemovingReplicas", "[]int32", nullable="0+", tag=3, default=None),
        f("AddingReplicas", "[]int32", nullable="0+", tag=4, default=None),
        f("LeaderRecoveryState", "int8", tag=5, default=-1),
        f("Directories", "[]uuid", "1+", nullable="1+", tag=8, default=None),
        f("EligibleLeaderReplicas", "[]int32", "2+", nullable="2+", tag=6, default=None),
        f("LastKnownElr", "[]int32", "2+", nullable="2+", tag=7, default=None),
    ]),
    _m(7, "FenceBrokerRecord", "0", [f("Id", "int32"), f("Epoch", "int64")]),
    _m(8, "UnfenceBrokerRecord", "0", [f("Id", "int32"), f("Epoch", "int64")]),
    _m(9, "RemoveTopicRecord", "0", [f("TopicId", "uuid")]),
    _m(10, "DelegationTokenRecord", "0", [
        f("Owner", "string"), f("Requester", "string"), f("Renewers", "[]string"), f("IssueTimestamp", "int64"),
        f("MaxTimestamp", "int64"), f("ExpirationTimestamp", "int64"), f("TokenId", "string"),
    ]),
    _m(11, "UserScramCredentialRecord", "0", [
        f("Name", "string"), f("Mechanism", "int8"), f("Salt", "bytes"), f("StoredKey", "bytes"),
        f("ServerKey", "bytes"), f("Iterations", "int32"),
    ]),
    _m(12, "FeatureLevelRecord", "0", [f("Name", "string"), f("FeatureLevel", "int16")]),
    _m(14, "ClientQuotaRecord", "0", [
        f("Entity", "[]struct", fields=[f("EntityType", "string"), f("EntityName", "string", nullable="0+")]),
        f("Key", "string"), f("Value", "float64"), f("Remove", "bool"),
    ]),
    _m(15, "ProducerIdsRecord", "0", [
        f("BrokerId", "int32"), f("BrokerEpoch", "int64", default=-1), f("NextProducerId", "int64"),
    ]),
    _m(17, "BrokerRegistrationChangeRecord", "0-3", [
        f("BrokerId", "int32"),
        f("BrokerEpoch", "int64"),
        f("Fenced", "int8", tag=0),
        f("InControlledShutdown", "int8", "1+", tag=1),
        f("LogDirs", "[]uuid", "2+", tag=2),
        f("CordonedLogDirs", "[]uuid", "3+", nullable="3+", tag=3, default=None),  # KIP-1066: null = unchanged
    ]),
    _m(18, "AccessControlEntryRecord", "0", [
        f("Id", "uuid"), f("ResourceType", "int8"), f("ResourceName", "string"), f("PatternType", "int8"),
        f("Principal", "string"), f("Host", "string"), f("Operation", "int8"), f("PermissionType", "int8"),
    ]),
    _m(19, "RemoveAccessControlEntryRecord", "0", [f("Id", "uuid")]),
    _m(20, "NoOpRecord", "0", []),
    _m(21, "ZkMigrationStateRecord", "0", [f("ZkMigrationState", "int8")]),
    _m(22, "RemoveUserScramCredentialRecord", "0", [f("Name", "string"), f("Mechanism", "int8")]),
    _m(23, "BeginTransactionRecord", "0", [f("Name", "string", nullable="0+", tag=0, default=None)]),
    _m(24, "EndTransactionRecord", "0", []),
    _m(25, "AbortTransactionRecord", "0", [f("Reason", "string", nullable="0+", tag=0, default=None)]),
    _m(26, "RemoveDelegationTokenRecord", "0", [f("TokenId", "string")]),
    _m(27, "RegisterControllerRecord", "0", [
        f("ControllerId", "int32"), f("IncarnationId", "uuid"), f("ZkMigrationReady", "bool"),
        f("EndPoints", "[]struct", fields=_ENDPOINTS), f("Features", "[]struct", fields=_FEATURES),
    ]),
    _m(28, "ClearElrRecord", "0", [f("TopicName", "string")]),  # "" clears every topic's ELR
    _m(29, "UnregisterControllerRecord", "0", [f("ControllerId", "int32")]),  # KIP-1312, MV 4.4-IV2
]}


def metadata_type_name(api_key: int) -> str:
    """Kafka's MetadataRecordType constant name: ``TopicRecord`` → ``TOPIC_RECORD``."""
    msg = METADATA_RECORDS.get(api_key)
    if msg is None:
        return f"UNKNOWN_{api_key}"
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", msg.name).upper()
