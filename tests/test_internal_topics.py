"""Schema tables and the generic codec of Kafka's internal-topic records.

Every record type and version in the tables is encoded from a sample value and decoded back; hand-made
byte vectors (written with ``struct`` from the specs' field order) pin the encodings; kafka-python's
protocol types, a second implementation of the same encodings, check the group-metadata records in
both directions; the KRaft fixture is decoded and checked against values read off its bytes.
"""

import struct
import uuid
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics import codec
from kvlog.internal_topics.codec import SchemaError, f, message
from kvlog.internal_topics.decoders import (
    InternalTopic,
    UnknownSchemaError,
    decode_coordinator_record,
    decode_metadata_record,
    encode_coordinator_record,
    encode_metadata_record,
)
from kvlog.internal_topics.schemas_coordinator import (
    CONSUMER_ASSIGNMENT,
    CONSUMER_SUBSCRIPTION,
    GROUP_RECORDS,
    SHARE_STATE_RECORDS,
    TRANSACTION_RECORDS,
)
from kvlog.internal_topics.schemas_metadata import METADATA_RECORDS, metadata_type_name

U1 = uuid.UUID("00000000-0000-4000-8000-000000000091")


# ------------------------------------------------------------------------------------ sample values
def sample_scalar(t, i):
    return {
        "bool": bool(i % 2), "int8": -3 - i, "int16": 300 + i, "uint16": 65000 - i, "int32": -70000 - i,
        "uint32": 4_000_000_000 + i, "int64": -(1 << 40) - i, "float64": 1.5 + i, "uuid": uuid.UUID(int=(1 << 100) + i),
        "string": f"s{i}-é", "bytes": bytes([i, 0, 255]),
    }[t]


def sample(fields, version, i=1):
    """A value with every field of ``version`` set away from its default (so tagged fields are written)."""
    out = {}
    for fd in fields:
        if version not in fd.versions:
            continue
        if fd.is_array:
            if fd.element == "struct":
                out[fd.json_name] = [sample(fd.fields, version, i + k) for k in range(2)]
            else:
                out[fd.json_name] = [sample_scalar(fd.element, i + k) for k in range(3)]
        elif fd.type == "struct":
            out[fd.json_name] = sample(fd.fields, version, i + 7)
        else:
            out[fd.json_name] = sample_scalar(fd.type, i)
        i += 1
    return out


def all_versions(msg):
    return range(msg.valid.lo, msg.valid.hi + 1)


COORDINATOR_CASES = [
    (topic, rt.id, v)
    for topic, table in ((InternalTopic.CONSUMER_OFFSETS, GROUP_RECORDS),
                         (InternalTopic.TRANSACTION_STATE, TRANSACTION_RECORDS),
                         (InternalTopic.SHARE_GROUP_STATE, SHARE_STATE_RECORDS))
    for rt in table.values() for v in all_versions(rt.value)
]
METADATA_CASES = [(m.api_key, v) for m in METADATA_RECORDS.values() for v in all_versions(m)]


@pytest.mark.parametrize("topic,record_type,version", COORDINATOR_CASES,
                         ids=[f"{t.value}-{r}-v{v}" for t, r, v in COORDINATOR_CASES])
def test_every_coordinator_record_type_and_version_round_trips(topic, record_type, version):
    rt = topic.record_types[record_type]
    key, value = sample(rt.key.fields, 0), sample(rt.value.fields, version)
    kb, vb = encode_coordinator_record(topic, record_type, key, version, value)
    assert struct.unpack(">h", kb[:2])[0] == record_type and struct.unpack(">h", vb[:2])[0] == version
    r = decode_coordinator_record(topic, kb, vb)
    assert (r.known, r.record_type, r.type_name, r.version) == (True, record_type, rt.name, version)
    assert r.key == key and r.value == value
    assert encode_coordinator_record(topic, record_type, r.key, version, r.value) == (kb, vb)
    tomb = decode_coordinator_record(topic, kb, None)
    assert tomb.is_tombstone and tomb.key == key and tomb.version is None


@pytest.mark.parametrize("api_key,version", METADATA_CASES, ids=[f"{k}-v{v}" for k, v in METADATA_CASES])
def test_every_metadata_record_type_and_version_round_trips(api_key, version):
    msg = METADATA_RECORDS[api_key]
    data = sample(msg.fields, version)
    raw = encode_metadata_record(api_key, version, data)
    assert raw[:3] == bytes([1, api_key, version])
    r = decode_metadata_record(raw)
    assert (r.api_key, r.version, r.data) == (api_key, version, data)
    assert r.type_name == metadata_type_name(api_key)


def test_metadata_type_names_follow_kafkas_enum_spelling():
    assert metadata_type_name(2) == "TOPIC_RECORD"
    assert metadata_type_name(17) == "BROKER_REGISTRATION_CHANGE_RECORD"
    assert metadata_type_name(21) == "ZK_MIGRATION_STATE_RECORD"
    assert metadata_type_name(28) == "CLEAR_ELR_RECORD"
    assert {6, 13, 16}.isdisjoint(METADATA_RECORDS)


def test_defaults_fill_fields_a_version_lacks_and_tagged_defaults_are_not_written():
    kb, vb = encode_coordinator_record("__transaction_state", 0, {"transactionalId": "t"}, 1, {
        "producerId": 5, "producerEpoch": 1, "transactionTimeoutMs": 60000, "transactionStatus": 4,
        "transactionPartitions": None, "transactionLastUpdateTimestampMs": 9, "transactionStartTimestampMs": 8})
    # v1: int64, [no tags], int16, int32, int8, compact null array, int64, int64, 0 tagged fields
    assert vb == (struct.pack(">hqhib", 1, 5, 1, 60000, 4) + b"\x00" + struct.pack(">qq", 9, 8) + b"\x00")
    r = decode_coordinator_record("__transaction_state", kb, vb)
    assert r.value["previousProducerId"] == -1 and r.value["clientTransactionVersion"] == 0


# ---------------------------------------------------------------------------------- byte vectors
def s16(text):
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def compact(text):
    raw = text.encode()
    return bytes([len(raw) + 1]) + raw


def test_offset_commit_value_versions_byte_for_byte():
    key = struct.pack(">h", 1) + s16("g") + s16("t") + struct.pack(">i", 3)
    vectors = {
        0: struct.pack(">hq", 0, 42) + s16("m") + struct.pack(">q", 1000),
        1: struct.pack(">hq", 1, 42) + s16("m") + struct.pack(">qq", 1000, 2000),
        2: struct.pack(">hq", 2, 42) + s16("m") + struct.pack(">q", 1000),
        3: struct.pack(">hqi", 3, 42, 7) + s16("m") + struct.pack(">q", 1000),
        4: struct.pack(">hqi", 4, 42, 7) + compact("m") + struct.pack(">q", 1000) + b"\x00",
    }
    for version, raw in vectors.items():
        r = decode_coordinator_record("__consumer_offsets", key, raw)
        assert r.key == {"group": "g", "topic": "t", "partition": 3}
        want = {"offset": 42, "metadata": "m", "commitTimestamp": 1000}
        if version == 1:
            want["expireTimestamp"] = 2000
        if version >= 3:
            want["leaderEpoch"] = 7
        if version == 4:
            want["topicId"] = uuid.UUID(int=0)  # tag 0 absent: Kafka's Uuid.ZERO_UUID, the type's default
        assert r.value == want, version
        assert encode_coordinator_record("__consumer_offsets", 1, r.key, version, r.value)[1] == raw
    # a 4.4 broker's commit of a consumer that names the topic by id: the tagged topicId (tag 0, 16 bytes)
    tagged = vectors[4][:-1] + b"\x01\x00\x10" + U1.bytes
    r = decode_coordinator_record("__consumer_offsets", key, tagged)
    assert r.value["topicId"] == U1 and codec.UNKNOWN_TAGS not in r.value
    assert encode_coordinator_record("__consumer_offsets", 1, r.key, 4, r.value)[1] == tagged


def test_flexible_tagged_fields_byte_for_byte():
    value = {"producerId": 1, "previousProducerId": 2, "nextProducerId": 3, "producerEpoch": 0,
             "transactionTimeoutMs": 1, "transactionStatus": 0, "transactionPartitions": [
                 {"topic": "a", "partitionIds": [0, 2]}],
             "transactionLastUpdateTimestampMs": 0, "transactionStartTimestampMs": 0,
             "clientTransactionVersion": 2}
    _, vb = encode_coordinator_record("__transaction_state", 0, {"transactionalId": "x"}, 1, value)
    tags = b"\x03" + b"\x00\x08" + struct.pack(">q", 2) + b"\x01\x08" + struct.pack(">q", 3) + b"\x02\x02\x00\x02"
    body = (struct.pack(">qhib", 1, 0, 1, 0) + b"\x02" + compact("a") + b"\x03" + struct.pack(">ii", 0, 2) + b"\x00"
            + struct.pack(">qq", 0, 0) + tags)
    assert vb == struct.pack(">h", 1) + body


def test_unknown_tags_are_kept_and_written_back():
    raw = encode_metadata_record(2, 0, {"name": "t", "topicId": U1})
    extra = raw[:-1] + b"\x01" + b"\x09\x02\xab\xcd"  # one unknown tag 9 of 2 bytes
    r = decode_metadata_record(extra)
    assert r.data[codec.UNKNOWN_TAGS] == {9: b"\xab\xcd"}
    assert encode_metadata_record(2, 0, r.data) == extra


def test_nullable_tagged_struct_uses_a_presence_varint():
    rt = GROUP_RECORDS[5]
    value = sample(rt.value.fields, 0)
    value["classicMemberMetadata"] = {"sessionTimeoutMs": 5, "supportedProtocols": []}
    raw = codec.encode(rt.value, 0, value)
    # the value ends with its tag section: 1 field, tag 0, size 7 = presence 1 + int32 + empty compact
    # array + the inner struct's own (empty) tag section
    assert raw.endswith(b"\x01\x00\x07" + b"\x01" + struct.pack(">i", 5) + b"\x01" + b"\x00")


def test_array_bound_counts_an_inner_array_by_its_length_prefix():
    # element bound of a struct holding an array: the array's length (1 byte when flexible, 4 when not),
    # not one element of it; a last element with an empty []int32 must fit in what is left
    value = {"memberEpoch": 1, "previousMemberEpoch": 0, "state": 0, "assignedPartitions": [],
             "partitionsPendingRevocation": [{"topicId": U1, "partitions": [], "assignmentEpochs": []}]}
    key, raw = encode_coordinator_record("__consumer_offsets", 8, {"groupId": "g", "memberId": "m"}, 0, value)
    assert raw.endswith(U1.bytes + b"\x01\x00\x00")
    assert decode_coordinator_record("__consumer_offsets", key, raw).value == value
    nested = message("Outer", "0", "none", [f("a", "[]struct", fields=[f("b", "[]int64"), f("c", "int8")])])
    raw = struct.pack(">iib", 1, 0, 7)  # one element: an empty int64 array (4-byte length) and an int8
    assert codec.decode(nested, 0, raw) == ({"a": [{"b": [], "c": 7}]}, len(raw))


# ----------------------------------------------------------------------- streams groups (KIP-1071)
STREAMS_TYPES = {17: "StreamsGroupMetadata", 19: "StreamsGroupMemberMetadata",
                 20: "StreamsGroupTargetAssignmentMetadata", 21: "StreamsGroupTargetAssignmentMember",
                 22: "StreamsGroupCurrentMemberAssignment", 23: "StreamsGroupTopology"}


def i32s(*values):
    return bytes([len(values) + 1]) + b"".join(struct.pack(">i", v) for v in values)


def test_streams_group_record_types_are_tabled_and_18_stays_unknown():
    assert {n: GROUP_RECORDS[n].name for n in STREAMS_TYPES} == STREAMS_TYPES
    for n in STREAMS_TYPES:
        rt = GROUP_RECORDS[n]
        assert (rt.value.valid.lo, rt.value.valid.hi) == (0, 0) and 0 in rt.value.flexible
        assert [fd.json_name for fd in rt.key.fields] == (
            ["groupId", "memberId"] if n in (19, 21, 22) else ["groupId"])
    for gone in (18, 24):  # 18: early-access partition metadata, dropped upstream; 24: not in Kafka's specs
        r = decode_coordinator_record("__consumer_offsets", struct.pack(">h", gone) + s16("app"), b"\x00\x00")
        assert not r.known and r.record_type == gone


def test_streams_group_metadata_value_byte_for_byte():
    key = struct.pack(">h", 17) + s16("app")
    config = b"\x02" + compact("num.standby.replicas") + compact("1") + b"\x00"
    tags = (b"\x03" + b"\x00\x04" + struct.pack(">i", 2) + bytes([1, len(config)]) + config
            + b"\x02\x04" + struct.pack(">i", 3))
    raw = struct.pack(">hiq", 0, 5, 1_234_567_890_123) + tags
    r = decode_coordinator_record("__consumer_offsets", key, raw)
    assert (r.type_name, r.key, r.version) == ("StreamsGroupMetadata", {"groupId": "app"}, 0)
    assert r.value == {"epoch": 5, "metadataHash": 1_234_567_890_123, "validatedTopologyEpoch": 2,
                       "lastAssignmentConfigs": [{"key": "num.standby.replicas", "value": "1"}],
                       "storedDescriptionTopologyEpoch": 3, "failedDescriptionTopologyEpoch": -1}
    assert encode_coordinator_record("__consumer_offsets", 17, r.key, 0, r.value) == (key, raw)
    # a record written before the tagged fields existed (4.1): they take their defaults
    # (LastAssignmentConfigs' spec default is JSON null, which Kafka's generator takes as no default: an
    # absent tag reads as the empty list, as the generated class initialises it)
    plain = struct.pack(">hiq", 0, 1, 0) + b"\x00"
    assert decode_coordinator_record("__consumer_offsets", key, plain).value == {
        "epoch": 1, "metadataHash": 0, "validatedTopologyEpoch": -1, "lastAssignmentConfigs": [],
        "storedDescriptionTopologyEpoch": -1, "failedDescriptionTopologyEpoch": -1}


def test_streams_group_member_metadata_value_byte_for_byte():
    key = struct.pack(">h", 19) + s16("app") + s16("m-1")
    head = (b"\x00" + compact("r1") + compact("c") + compact("/10.0.0.1") + struct.pack(">ii", 300000, 1)
            + compact("p-1"))
    tags = b"\x02" + compact("zone") + compact("a") + b"\x00" + b"\x00"
    endpoint = b"\x01" + compact("h") + struct.pack(">H", 8080) + b"\x00"  # a non-tagged nullable struct: int8 1
    want = {"instanceId": None, "rackId": "r1", "clientId": "c", "clientHost": "/10.0.0.1",
            "rebalanceTimeoutMs": 300000, "topologyEpoch": 1, "processId": "p-1",
            "userEndpoint": {"host": "h", "port": 8080}, "clientTags": [{"key": "zone", "value": "a"}]}
    for ep, value in ((endpoint, want), (b"\xff", dict(want, userEndpoint=None))):
        raw = struct.pack(">h", 0) + head + ep + tags
        r = decode_coordinator_record("__consumer_offsets", key, raw)
        assert r.key == {"groupId": "app", "memberId": "m-1"} and r.value == value
        assert encode_coordinator_record("__consumer_offsets", 19, r.key, 0, r.value) == (key, raw)


def test_streams_group_assignment_values_byte_for_byte():
    key = struct.pack(">h", 22) + s16("app") + s16("m-1")
    epochs = i32s(5, 6)
    active = b"\x02" + compact("0") + i32s(0, 1) + b"\x01\x00" + bytes([len(epochs)]) + epochs
    standby = b"\x02" + compact("1") + i32s(2) + b"\x00"
    raw = struct.pack(">hiib", 0, 7, 6, 2) + active + standby + b"\x01" * 4 + b"\x00"
    r = decode_coordinator_record("__consumer_offsets", key, raw)
    assert r.value == {
        "memberEpoch": 7, "previousMemberEpoch": 6, "state": 2,
        "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1], "assignmentEpochs": [5, 6]}],
        "standbyTasks": [{"subtopologyId": "1", "partitions": [2], "assignmentEpochs": []}],  # absent tag
        "warmupTasks": [], "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
        "warmupTasksPendingRevocation": []}
    assert encode_coordinator_record("__consumer_offsets", 22, r.key, 0, r.value) == (key, raw)
    # the target assignment's tasks have no assignment epochs; its metadata a tagged timestamp
    target = struct.pack(">h", 0) + b"\x02" + compact("0") + i32s(0, 1) + b"\x00" + b"\x01\x01" + b"\x00"
    r = decode_coordinator_record("__consumer_offsets", struct.pack(">h", 21) + s16("app") + s16("m-1"), target)
    assert r.value == {"activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}], "standbyTasks": [],
                       "warmupTasks": []}
    meta_key = struct.pack(">h", 20) + s16("app")
    meta = struct.pack(">hi", 0, 9) + b"\x01\x00\x08" + struct.pack(">q", 1_700_000_000_000)
    assert decode_coordinator_record("__consumer_offsets", meta_key, meta).value == {
        "assignmentEpoch": 9, "assignmentTimestamp": 1_700_000_000_000}
    assert decode_coordinator_record("__consumer_offsets", meta_key, struct.pack(">hi", 0, 9) + b"\x00").value == {
        "assignmentEpoch": 9, "assignmentTimestamp": 0}


def test_streams_group_topology_value_byte_for_byte():
    key = struct.pack(">h", 23) + s16("app")
    info = b"\x02" + compact("app-store-changelog") + struct.pack(">ih", 0, 3) + (
        b"\x02" + compact("cleanup.policy") + compact("compact") + b"\x00") + b"\x00"
    copartition = b"\x02" + b"\x02" + struct.pack(">h", 0) + b"\x01" + b"\x01" + b"\x00"
    sub = (compact("0") + b"\x02" + compact("in") + b"\x01" + info + b"\x01" + b"\x01" + copartition + b"\x00")
    raw = struct.pack(">hi", 0, 4) + b"\x02" + sub + b"\x00"
    r = decode_coordinator_record("__consumer_offsets", key, raw)
    assert r.value == {"epoch": 4, "subtopologies": [{
        "subtopologyId": "0", "sourceTopics": ["in"], "sourceTopicRegex": [],
        "stateChangelogTopics": [{"name": "app-store-changelog", "partitions": 0, "replicationFactor": 3,
                                  "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}]}],
        "repartitionSinkTopics": [], "repartitionSourceTopics": [],
        "copartitionGroups": [{"sourceTopics": [0], "sourceTopicRegex": [], "repartitionSourceTopics": []}]}]}
    assert encode_coordinator_record("__consumer_offsets", 23, r.key, 0, r.value) == (key, raw)


@pytest.mark.parametrize("record_type", sorted(STREAMS_TYPES))
def test_streams_group_tombstones_and_truncations(record_type):
    rt = GROUP_RECORDS[record_type]
    key, value = encode_coordinator_record("__consumer_offsets", record_type, sample(rt.key.fields, 0), 0,
                                           sample(rt.value.fields, 0))
    tomb = decode_coordinator_record("__consumer_offsets", key, None)
    assert tomb.is_tombstone and tomb.type_name == rt.name and tomb.version is None
    for cut in range(len(value)):
        with pytest.raises(CorruptInternalRecordError) as info:
            decode_coordinator_record("__consumer_offsets", key, value[:cut], partition="__consumer_offsets-7",
                                      offset=3)
        assert info.value.field.startswith("value") and info.value.partition == "__consumer_offsets-7"
    for cut in range(2, len(key)):
        with pytest.raises(CorruptInternalRecordError):
            decode_coordinator_record("__consumer_offsets", key[:cut], value)


def test_streams_group_huge_lengths_are_typed_errors():
    key = struct.pack(">h", 23) + s16("app")
    huge_array = struct.pack(">hi", 0, 4) + b"\xff\xff\xff\xff\x07"  # a subtopology count of 2**31 - 2
    with pytest.raises(CorruptInternalRecordError, match="does not fit") as info:
        decode_coordinator_record("__consumer_offsets", key, huge_array)
    assert info.value.field == "value.subtopologies"
    member_key = struct.pack(">h", 19) + s16("app") + s16("m")
    huge_string = struct.pack(">h", 0) + b"\x00\x00" + b"\xf0\xff\xff\xff\x07" + b"c"  # clientId length
    with pytest.raises(CorruptInternalRecordError) as info:
        decode_coordinator_record("__consumer_offsets", member_key, huge_string)
    assert info.value.field == "value.clientId"
    tag_key = struct.pack(">h", 17) + s16("app")
    huge_tag = struct.pack(">hiq", 0, 1, 0) + b"\x01\x01\xff\xff\xff\x0f"  # tag 1 of 4 GB
    with pytest.raises(CorruptInternalRecordError, match="tagged field"):
        decode_coordinator_record("__consumer_offsets", tag_key, huge_tag)
    with pytest.raises(UnknownSchemaError, match="unknown version 1"):
        decode_coordinator_record("__consumer_offsets", tag_key, struct.pack(">hiq", 1, 1, 0) + b"\x00")


TASKS = st.lists(st.fixed_dictionaries({
    "subtopologyId": st.text(max_size=4), "partitions": st.lists(st.integers(0, 2**31 - 1), max_size=4)}),
    max_size=3)


@given(st.integers(-(2**31), 2**31 - 1), st.integers(-(2**31), 2**31 - 1), st.integers(-128, 127),
       st.lists(TASKS, min_size=6, max_size=6), st.lists(st.none() | st.lists(st.integers(0, 99), max_size=3),
                                                           min_size=18, max_size=18))
def test_streams_current_assignment_round_trips(epoch, previous, state, roles, epochs):
    names = [fd.json_name for fd in GROUP_RECORDS[22].value.fields[3:]]
    value = {"memberEpoch": epoch, "previousMemberEpoch": previous, "state": state}
    for k, (name, tasks) in enumerate(zip(names, roles)):
        value[name] = [dict(t, assignmentEpochs=epochs[(3 * k + j) % 18]) for j, t in enumerate(tasks)]
    key = {"groupId": "g", "memberId": "m"}
    kb, vb = encode_coordinator_record("__consumer_offsets", 22, key, 0, value)
    r = decode_coordinator_record("__consumer_offsets", kb, vb)
    assert r.key == key and r.value == value
    assert encode_coordinator_record("__consumer_offsets", 22, key, 0, r.value) == (kb, vb)


@given(st.integers(-(2**31), 2**31 - 1), st.integers(-(2**63), 2**63 - 1), st.integers(-(2**31), 2**31 - 1),
       st.none() | st.lists(st.fixed_dictionaries({"key": st.text(max_size=6), "value": st.text(max_size=6)}),
                            max_size=3),
       st.integers(-(2**31), 2**31 - 1), st.integers(-(2**31), 2**31 - 1))
def test_streams_group_metadata_round_trips(epoch, metadata_hash, validated, configs, stored, failed):
    value = {"epoch": epoch, "metadataHash": metadata_hash, "validatedTopologyEpoch": validated,
             "lastAssignmentConfigs": configs, "storedDescriptionTopologyEpoch": stored,
             "failedDescriptionTopologyEpoch": failed}
    kb, vb = encode_coordinator_record("__consumer_offsets", 17, {"groupId": "g"}, 0, value)
    assert decode_coordinator_record("__consumer_offsets", kb, vb).value == value


# -------------------------------------------------------------------------------------- hypothesis
NESTED = message("Nested", "0-3", "2+", [
    f("a", "int32"), f("b", "string", nullable="1+"), f("c", "bytes", "1+", nullable="1+"),
    f("d", "[]struct", fields=[f("x", "int64"), f("y", "[]string", "3+"), f("z", "uuid", "0+")]),
    f("e", "int16", "2+", tag=1, default=7), f("g", "[]int32", "3+", nullable="3+", tag=0, default=None),
    f("h", "float64"), f("i", "bool"), f("j", "uint16"), f("k", "uint32"), f("l", "int8"),
    f("m", "struct", "1+", nullable="1+", fields=[f("n", "string")]),
])


@st.composite
def nested_values(draw):
    version = draw(st.integers(0, 3))
    text = st.text(max_size=8)
    v = {"a": draw(st.integers(-(2**31), 2**31 - 1)),
         "b": draw(text | st.none()) if version >= 1 else draw(text),
         "d": [{"x": draw(st.integers(-(2**63), 2**63 - 1)), "z": uuid.UUID(int=draw(st.integers(0, 2**128 - 1))),
                **({"y": draw(st.lists(text, max_size=3))} if version >= 3 else {})}
               for _ in range(draw(st.integers(0, 3)))],
         "h": draw(st.floats(allow_nan=False)), "i": draw(st.booleans()), "j": draw(st.integers(0, 65535)),
         "k": draw(st.integers(0, 2**32 - 1)), "l": draw(st.integers(-128, 127))}
    if version >= 1:
        v["c"] = draw(st.binary(max_size=8) | st.none())
        v["m"] = draw(st.none() | st.builds(lambda s: {"n": s}, text))
    if version >= 2:
        v["e"] = draw(st.integers(-(2**15), 2**15 - 1))
    if version >= 3:
        v["g"] = draw(st.none() | st.lists(st.integers(-(2**31), 2**31 - 1), max_size=4))
    return version, v


@given(nested_values())
def test_codec_round_trips_every_type_nullable_and_tagged(case):
    version, value = case
    raw = codec.encode(NESTED, version, value)
    back, end = codec.decode(NESTED, version, raw)
    assert end == len(raw) and back == value
    assert codec.encode(NESTED, version, back) == raw


@given(st.integers(0, 3), st.binary(max_size=80))
def test_codec_never_leaks_a_python_error_on_arbitrary_bytes(version, data):
    try:
        codec.decode(NESTED, version, data)
    except SchemaError as exc:
        assert exc.path is not None


@given(st.binary(max_size=64))
def test_decoders_raise_only_typed_errors(data):
    for topic in (InternalTopic.CONSUMER_OFFSETS, InternalTopic.TRANSACTION_STATE, InternalTopic.SHARE_GROUP_STATE):
        try:
            decode_coordinator_record(topic, data[:12], data[12:])
        except CorruptInternalRecordError:
            pass
    try:
        decode_metadata_record(data)
    except CorruptInternalRecordError:
        pass


# -------------------------------------------------------------------------------------- malformed
def offset_commit(version=3):
    return encode_coordinator_record("__consumer_offsets", 1, {"group": "grp", "topic": "t", "partition": 0},
                                     version, {"offset": 1, "leaderEpoch": 2, "metadata": "meta",
                                               "commitTimestamp": 3})


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_every_truncation_of_an_offset_commit_is_a_typed_error(version):
    key, value = offset_commit(version)
    for cut in range(len(value)):
        with pytest.raises(CorruptInternalRecordError) as info:
            decode_coordinator_record("__consumer_offsets", key, value[:cut], partition="__consumer_offsets-3",
                                      offset=17)
        assert info.value.partition == "__consumer_offsets-3" and info.value.offset == 17
        assert info.value.field.startswith("value")
    for cut in range(len(key)):
        with pytest.raises(CorruptInternalRecordError):
            decode_coordinator_record("__consumer_offsets", key[:cut], value)


def test_wrong_and_huge_lengths_name_the_field():
    key, value = offset_commit(3)
    bad = value[:14] + struct.pack(">h", 30000) + value[16:]  # metadata length far past the end
    with pytest.raises(CorruptInternalRecordError, match=r"field value\.metadata") as info:
        decode_coordinator_record("__consumer_offsets", key, bad, partition="__consumer_offsets-0", offset=5)
    assert "partition __consumer_offsets-0" in str(info.value) and "offset 5" in str(info.value)
    rt = GROUP_RECORDS[2]
    raw = codec.encode(rt.value, 3, {"protocolType": "consumer", "generation": 1, "protocol": None,
                                     "leader": None, "members": []})
    huge = raw[:-4] + struct.pack(">i", 0x7FFFFFFF)  # a member count no input could hold
    with pytest.raises(CorruptInternalRecordError, match="does not fit") as info:
        decode_coordinator_record("__consumer_offsets", struct.pack(">h", 2) + s16("g"), struct.pack(">h", 3) + huge)
    assert info.value.field == "value.members"
    with pytest.raises(CorruptInternalRecordError, match="negative length"):
        decode_coordinator_record("__consumer_offsets", key, value[:14] + struct.pack(">h", -5) + value[16:])
    flexible = offset_commit(4)[1]
    with pytest.raises(CorruptInternalRecordError, match="varint"):
        decode_coordinator_record("__consumer_offsets", key, flexible[:14] + b"\xff" * 6)


def test_unknown_versions_and_types_are_reported_not_fatal():
    key, value = offset_commit(3)
    with pytest.raises(UnknownSchemaError, match="unknown version 9"):
        decode_coordinator_record("__consumer_offsets", key, struct.pack(">h", 9) + value[2:])
    r = decode_coordinator_record("__consumer_offsets", struct.pack(">h", 40) + b"xyz", b"\x00\x00")
    assert not r.known and r.record_type == 40
    with pytest.raises(UnknownSchemaError, match="unknown metadata record type 99"):
        decode_metadata_record(b"\x01\x63\x00")
    with pytest.raises(CorruptInternalRecordError, match="frame version 2"):
        decode_metadata_record(b"\x02\x02\x00")
    raw = encode_metadata_record(12, 0, {"name": "x", "featureLevel": 1})
    with pytest.raises(CorruptInternalRecordError, match="1 bytes left after the FeatureLevelRecord"):
        decode_metadata_record(raw + b"\x00")


# ---------------------------------------------------------------------------------- KRaft fixture
def test_kraft_fixture_records_decode_to_the_values_in_their_bytes(kraft_segment):
    import kvlog

    recs = list(kvlog.MemoryRecords(kraft_segment.read_bytes()).records())
    decoded = [decode_metadata_record(r.value, partition="__cluster_metadata-0", offset=r.offset) for r in recs]
    assert [(d.type_name, d.version) for d in decoded] == [
        ("FEATURE_LEVEL_RECORD", 0), ("TOPIC_RECORD", 0), ("PARTITION_RECORD", 1), ("PARTITION_RECORD", 1)]
    assert decoded[0].data == {"name": "metadata.version", "featureLevel": 20}
    # topic id: the 16 bytes after the compact string "saz" at file position 0xa5
    topic_id = uuid.UUID(bytes=kraft_segment.read_bytes()[0xA5:0xB5])
    assert topic_id == U1 and decoded[1].data == {"name": "saz", "topicId": U1}
    for pid, d in enumerate(decoded[2:]):
        assert d.data["partitionId"] == pid and d.data["topicId"] == U1
        assert (d.data["replicas"], d.data["isr"], d.data["leader"], d.data["leaderEpoch"]) == ([1], [1], 1, 0)
        assert d.data["directories"] == [uuid.UUID("10000000-0000-4000-8000-000000000001")]
        assert encode_metadata_record(3, 1, d.data) == bytes(recs[2 + pid].value)


# --------------------------------------------------------------- kafka-python as a second implementation
with warnings.catch_warnings():  # kafka-python's protocol package reads its JSON with a deprecated API
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka.protocol.old.types as T  # the test extra's second implementation of the encodings
KP_OFFSET_KEY = T.Schema(("group", T.String()), ("topic", T.String()), ("partition", T.Int32))
KP_OFFSET_VALUE = {
    0: T.Schema(("offset", T.Int64), ("metadata", T.String()), ("commitTimestamp", T.Int64)),
    1: T.Schema(("offset", T.Int64), ("metadata", T.String()), ("commitTimestamp", T.Int64),
                ("expireTimestamp", T.Int64)),
    2: T.Schema(("offset", T.Int64), ("metadata", T.String()), ("commitTimestamp", T.Int64)),
    3: T.Schema(("offset", T.Int64), ("leaderEpoch", T.Int32), ("metadata", T.String()),
                ("commitTimestamp", T.Int64)),
    4: T.Schema(("offset", T.Int64), ("leaderEpoch", T.Int32), ("metadata", T.CompactString()),
                ("commitTimestamp", T.Int64), ("tags", T.TaggedFields)),
}


def kp_member(version):
    s, b = (T.CompactString(), T.CompactBytes) if version >= 4 else (T.String(), T.Bytes)
    fields = [("memberId", s)]
    if version >= 3:
        fields.append(("groupInstanceId", s))
    fields += [("clientId", s), ("clientHost", s)]
    if version >= 1:
        fields.append(("rebalanceTimeout", T.Int32))
    fields += [("sessionTimeout", T.Int32), ("subscription", b), ("assignment", b)]
    if version >= 4:
        fields.append(("tags", T.TaggedFields))
    return T.Schema(*fields)


def kp_group_value(version):
    s = T.CompactString() if version >= 4 else T.String()
    arr = T.CompactArray if version >= 4 else T.Array
    fields = [("protocolType", s), ("generation", T.Int32), ("protocol", s), ("leader", s)]
    if version >= 2:
        fields.append(("currentStateTimestamp", T.Int64))
    fields.append(("members", arr(kp_member(version))))
    if version >= 4:
        fields.append(("tags", T.TaggedFields))
    return T.Schema(*fields)


def _kp_tuple(schema, value):
    return [({} if name == "tags" else value[name]) for name in schema.names]


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_offset_commit_against_kafka_python(version):
    import io

    key = {"group": "g-é", "topic": "orders", "partition": 7}
    value = {"offset": 123456789012, "metadata": "meta", "commitTimestamp": 1_700_000_000_123}
    if version == 1:
        value["expireTimestamp"] = 1_700_000_600_000
    if version >= 3:
        value["leaderEpoch"] = 11
    schema = KP_OFFSET_VALUE[version]
    theirs_key = T.Int16.encode(1) + KP_OFFSET_KEY.encode(_kp_tuple(KP_OFFSET_KEY, key))
    theirs_value = T.Int16.encode(version) + schema.encode(_kp_tuple(schema, value))
    mine = encode_coordinator_record("__consumer_offsets", 1, key, version, value)
    assert mine == (theirs_key, theirs_value)
    r = decode_coordinator_record("__consumer_offsets", theirs_key, theirs_value)
    # kafka-python's v4 has no topicId: absent, it reads as the zero id
    assert r.key == key and r.value == (dict(value, topicId=uuid.UUID(int=0)) if version == 4 else value)
    back = schema.decode(io.BytesIO(mine[1][2:]))
    assert dict(zip([n for n in schema.names if n != "tags"], back)) == value


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_group_metadata_against_kafka_python(version):
    import io

    from aiokafka.coordinator.protocol import ConsumerProtocolMemberAssignment, ConsumerProtocolMemberMetadata

    subscription = ConsumerProtocolMemberMetadata(0, ["orders", "clicks"], b"").encode()
    assignment = ConsumerProtocolMemberAssignment(0, [("orders", [0, 2])], b"ud").encode()
    member = {"memberId": "m-1", "clientId": "c", "clientHost": "/10.0.0.1", "sessionTimeout": 45000,
              "subscription": subscription, "assignment": assignment}
    if version >= 1:
        member["rebalanceTimeout"] = 300000
    if version >= 3:
        member["groupInstanceId"] = None
    value = {"protocolType": "consumer", "generation": 4, "protocol": "range", "leader": "m-1",
             "members": [member, dict(member, memberId="m-2")]}
    if version >= 2:
        value["currentStateTimestamp"] = 1_700_000_000_000
    schema = kp_group_value(version)
    mschema = kp_member(version)
    theirs = schema.encode([
        ({} if n == "tags" else [_kp_tuple(mschema, m) for m in value["members"]] if n == "members" else value[n])
        for n in schema.names])
    key = T.Int16.encode(2) + T.String().encode("grp")
    mine_key, mine_value = encode_coordinator_record("__consumer_offsets", 2, {"group": "grp"}, version, value)
    assert (mine_key, mine_value) == (key, T.Int16.encode(version) + theirs)
    r = decode_coordinator_record("__consumer_offsets", key, T.Int16.encode(version) + theirs)
    assert r.key == {"group": "grp"} and r.value == value
    decoded = schema.decode(io.BytesIO(mine_value[2:]))
    assert decoded[0] == "consumer" and decoded[1] == 4
    # the member bytes are the consumer protocol: kvlog reads aiokafka's encoding
    sub, _ = codec.decode(CONSUMER_SUBSCRIPTION, 0, subscription, offset=2)
    assert sub == {"topics": ["orders", "clicks"], "userData": b""}
    asg, _ = codec.decode(CONSUMER_ASSIGNMENT, 0, assignment, offset=2)
    assert asg == {"assignedPartitions": [{"topic": "orders", "partitions": [0, 2]}], "userData": b"ud"}
