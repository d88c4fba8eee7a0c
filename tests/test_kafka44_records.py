"""Kafka 4.1-4.4 record formats read as Kafka reads them: KRaft control records, ``quorum-state``, the
metadata records of metadata.version 4.3/4.4, ``OffsetCommitValue.topicId``, ``TransactionLogValue`` tag 3,
the coordinator fields whose spec default is JSON null, and ``kvlog dump`` printing all of them as
Kafka 4.4's ``DumpLogSegments`` does.

Oracles. The ``*_440`` byte strings are record keys and values a Kafka 4.4.0 broker wrote (KRaft combined
mode, a dynamic quorum formatted with ``--standalone``, metadata.version 4.4-IV2, snapshots every few
seconds; a Java 4.4 consumer of each group protocol committing offsets; a transactional producer), and the
expected texts are what Kafka 4.4.0's ``org.apache.kafka.tools.DumpLogSegments`` printed for those same
bytes. Texts for layouts no broker run produced (tag 3 of a transaction, a voter-less leader change at
version 1, an unknown transaction state) were printed by the same tool from segments kvlog encoded. No
broker runs here.
"""

from __future__ import annotations

import json
import struct
import uuid

import pyarrow as pa
import pytest

import kvlog
from kvlog import Log, Record
from kvlog.backup.groups import group_offsets_at_cut, write_offsets_partitions
from kvlog.cli import main
from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics import codec
from kvlog.internal_topics.cluster_metadata import cluster_metadata, topic_id_text
from kvlog.internal_topics.consumer_offsets import fast_offset_commit, offsets_schema
from kvlog.internal_topics.control_records import control_text, decode_control_record, encode_control_record
from kvlog.internal_topics.decoders import (
    InternalTopic,
    decode_coordinator_record,
    decode_metadata_record,
    encode_coordinator_record,
    encode_metadata_record,
)
from kvlog.internal_topics.dump_format import coordinator_texts, metadata_text
from kvlog.internal_topics.quorum_state import CorruptQuorumStateError, parse_quorum_state, read_quorum_state
from kvlog.records import ControlRecordType as C

T0 = 1_700_000_000_000
SEG0 = "00000000000000000000"
CO = "__consumer_offsets"
ZERO = uuid.UUID(int=0)

# ------------------------------------------------------------------------- bytes of a Kafka 4.4.0 broker
SNAPSHOT_HEADER_440 = ("00000003", "0000000001a220f9a70a00")
KRAFT_VERSION_440 = ("00000005", "0000000100")
VOTERS_440 = ("00000006", "000002000000017d2d679a5bf1472299636d771440c962020b434f4e54524f4c4c45520a3132372e302e3"
                          "02e31c5d10000000001000000")
SNAPSHOT_FOOTER_440 = ("00000004", "000000")
LEADER_CHANGE_440 = ("00000002", "00000000000102000000010002000000010000")
CONTROL_TEXTS_440 = {
    SNAPSHOT_HEADER_440: 'SnapshotHeader {"version":0,"lastContainedLogTimestamp":1795849561866}',
    KRAFT_VERSION_440: 'KRaftVersion {"version":0,"kRaftVersion":1}',
    VOTERS_440: ('KRaftVoters {"version":0,"voters":[{"voterId":1,"voterDirectoryId":"fS1nmlvxRyKZY213FEDJYg",'
                 '"endpoints":[{"name":"CONTROLLER","host":"127.0.0.1","port":50641}],'
                 '"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":1}}]}'),
    SNAPSHOT_FOOTER_440: 'SnapshotFooter {"version":0}',
    LEADER_CHANGE_440: 'LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}',
}
FEATURE_LEVEL_440 = "010c00116d657461646174612e76657273696f6e002100"  # metadata.version 33 (4.4-IV2)
REGISTER_BROKER_V4_440 = (
    "0100040000000100e50cb92132b54e519be5c00481e90898000000000000000d020a504c41494e544558540a3132372e302e302e31"
    "ae5b00000008147472616e73616374696f6e2e76657273696f6e00000002001073747265616d732e76657273696f6e000000010"
    "00e67726f75702e76657273696f6e00000001000e6b726166742e76657273696f6e00000001000e73686172652e76657273696f"
    "6e0000000200116d657461646174612e76657273696f6e000700210021656c696769626c652e6c65616465722e7265706c69636"
    "1732e76657273696f6e000000010000010001001102b9d2273fee09bd0a030fa328d25367cb")
REGISTER_BROKER_V4_TEXT = (
    '{"type":"REGISTER_BROKER_RECORD","version":4,"data":{"brokerId":1,"isMigratingZkBroker":false,'
    '"incarnationId":"5Qy5ITK1TlGb5cAEgekImA","brokerEpoch":13,"endPoints":[{"name":"PLAINTEXT",'
    '"host":"127.0.0.1","port":44635,"securityProtocol":0}],"features":[{"name":"transaction.version",'
    '"minSupportedVersion":0,"maxSupportedVersion":2},{"name":"streams.version","minSupportedVersion":0,'
    '"maxSupportedVersion":1},{"name":"group.version","minSupportedVersion":0,"maxSupportedVersion":1},'
    '{"name":"kraft.version","minSupportedVersion":0,"maxSupportedVersion":1},{"name":"share.version",'
    '"minSupportedVersion":0,"maxSupportedVersion":2},{"name":"metadata.version","minSupportedVersion":7,'
    '"maxSupportedVersion":33},{"name":"eligible.leader.replicas.version","minSupportedVersion":0,'
    '"maxSupportedVersion":1}],"rack":null,"fenced":true,"inControlledShutdown":false,'
    '"logDirs":["udInP-4JvQoDD6Mo0lNnyw"]}}')
BROKER_CHANGE_V3_440 = "01110300000001000000000000000d01030101"
CLEAR_ELR_ALL_440 = "011c000100"
CLEAR_ELR_T_440 = "011c00027400"
# an offset commit of a Java 4.4 consumer (classic protocol: OffsetCommit v10 names the topic by id)
OFFSET_KEY_440 = "00010009672d636c617373696300017400000001"
OFFSET_VALUE_440 = "0004000000000000000a0000000001000001a220f9b32e010010f2780b2789194b389561e955c604e2f3"
OFFSET_TEXT_440 = ('{"version":"4","data":{"offset":10,"leaderEpoch":0,"metadata":"","commitTimestamp":1795849564974,'
                   '"topicId":"8ngLJ4kZSziVYelVxgTi8w"}}')
# a consumer-protocol member: its null ClassicMemberMetadata is written as tag 0 holding a null
MEMBER_KEY_440 = "0005000a672d636f6e73756d657200164e6f6a694c484176546d613262375675527131564c51"
MEMBER_VALUE_440 = ("0000000016636f6e73756d65722d672d636f6e73756d65722d320b2f3132372e302e302e3102027401000493e00001"
                    "000100")
MEMBER_TEXT_440 = ('{"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"consumer-g-consumer-2",'
                   '"clientHost":"/127.0.0.1","subscribedTopicNames":["t"],"subscribedTopicRegex":"",'
                   '"rebalanceTimeoutMs":300000,"serverAssignor":null,"classicMemberMetadata":null}}')
# a transactional producer's entry of a producer-state snapshot (__consumer_offsets-0, no batch left)
PRODUCER_SNAPSHOT_440 = ("00019473 5faf0000 00010000 00000000 00010001 ffffffff ffffffff ffffffff 00000000 000001a2"
                         "20f9ba31 00000000 ffffffff ffffffff").replace(" ", "")


def rec(pair, offset=0):
    return Record(bytes.fromhex(pair[0]), bytes.fromhex(pair[1]), T0, offset=offset)


def run(capfd, *argv):
    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out.splitlines(), err.splitlines()


def record_lines(lines):
    return [ln for ln in lines if ln.startswith("|")]


def control_batch(offset, key, value, epoch=-1):
    return kvlog.encode_batch([Record(key, value, T0)], base_offset=offset, is_control=True,
                              partition_leader_epoch=epoch)


def data_batch(offset, values, epoch=-1):
    return kvlog.encode_batch([Record(None, v, T0) for v in values], base_offset=offset,
                              partition_leader_epoch=epoch)


def meta(api_key, version, data):
    return encode_metadata_record(api_key, version, data)


# ============================================================================ KRaft control records
@pytest.mark.parametrize("pair", list(CONTROL_TEXTS_440), ids=lambda p: p[0])
def test_control_records_print_and_round_trip_as_kafka_44(pair):
    r = rec(pair, 3)
    assert control_text(r) == CONTROL_TEXTS_440[pair]
    decoded = decode_control_record(r.key, r.value)
    assert decoded.type is r.control_type and decoded.version == 0
    assert encode_control_record(decoded.type, decoded.data) == (r.key, r.value)


def test_control_messages_are_read_at_version_0_and_printed_at_their_own_version():
    # LeaderChangeMessage whose Version field says 1: read at 0 (no directory ids on the wire), printed at
    # 1, so each voter shows the zero directory id -- as Kafka 4.4.0's tool printed this very record
    key, value = encode_control_record(C.LEADER_CHANGE, {"version": 1, "leaderId": 3, "voters": [{"voterId": 3}],
                                                         "grantingVoters": []})
    assert control_text(Record(key, value, T0)) == (
        'LeaderChange: {"version":1,"leaderId":3,"voters":[{"voterId":3,"voterDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA"}],'
        '"grantingVoters":[]}')
    # bytes after the message and tags it does not know are ignored, as Kafka ignores them
    for tail in (b"junk", b""):
        raw = bytes.fromhex("0000000100") + tail
        assert control_text(Record(b"\x00\x00\x00\x05", raw, T0)) == 'KRaftVersion {"version":0,"kRaftVersion":1}'
    tagged = bytes.fromhex("00000001" "01" "05" "02abcd")  # one unknown tag 5 of 2 bytes
    assert control_text(Record(b"\x00\x00\x00\x05", tagged, T0)) == 'KRaftVersion {"version":0,"kRaftVersion":1}'
    assert decode_control_record(b"\x00\x00\x00\x05", tagged).data[codec.UNKNOWN_TAGS] == {5: b"\xab\xcd"}
    # an unknown type prints its id; markers keep their text
    assert control_text(Record(b"\x00\x00\x00\x07", b"\x00\x00\x00", T0)) == "controlType: UNKNOWN(7)"
    assert control_text(Record(b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x07", T0)) == \
        "endTxnMarker: COMMIT coordinatorEpoch: 7"


@pytest.mark.parametrize("key,value,field", [
    (b"\x00\x00\x00\x02", b"\x00\x00", "value.leaderId"),
    (b"\x00\x00\x00\x06", b"\x00\x00\x05", "value.voters"),
    (b"\x00\x00\x00\x03", None, "value"),
    (b"\x00\x00", b"\x00\x00", "key"),
    (b"\xff\xff\x00\x02", b"", "key.version"),
])
def test_undecodable_control_records_are_typed_errors(key, value, field):
    with pytest.raises(CorruptInternalRecordError) as info:
        decode_control_record(key, value, partition="__cluster_metadata-0", offset=9)
    assert info.value.field == field and info.value.offset == 9


def test_dump_prints_control_records_and_goes_on_past_a_bad_one(tmp_path, capfd):
    good = control_batch(0, *map(bytes.fromhex, LEADER_CHANGE_440), epoch=1)
    bad = control_batch(1, b"\x00\x00\x00\x02", b"\x00\x00")   # a LeaderChangeMessage cut after its version
    more = control_batch(2, *map(bytes.fromhex, KRAFT_VERSION_440))
    path = tmp_path / f"{SEG0}.log"
    path.write_bytes(good + bad + more)
    rc, out, err = run(capfd, "dump", "--files", path, "--deep-iteration")
    lines = record_lines(out)
    head = "| offset: {} CreateTime: 1700000000000 keySize: 4 valueSize: {} sequence: -1 headerKeys: [] "
    assert lines == [head.format(0, 19) + CONTROL_TEXTS_440[LEADER_CHANGE_440],
                     head.format(1, 2) + "controlType: LEADER_CHANGE(2)",
                     head.format(2, 5) + CONTROL_TEXTS_440[KRAFT_VERSION_440]]
    # Kafka's tool dies on the bad record (BufferUnderflowException, status 1); kvlog says why and goes on
    assert rc == 1 and len(err) == 1 and "control record at offset 1" in err[0] and "value.leaderId" in err[0]


def test_dump_of_a_kraft_snapshot_prints_header_voters_records_and_footer(tmp_path, capfd):
    d = tmp_path / "__cluster_metadata-0"
    d.mkdir()
    path = d / "00000000000000000060-0000000001.checkpoint"
    path.write_bytes(b"".join([
        control_batch(0, *map(bytes.fromhex, SNAPSHOT_HEADER_440)),
        control_batch(1, *map(bytes.fromhex, KRAFT_VERSION_440)),
        control_batch(2, *map(bytes.fromhex, VOTERS_440)),
        data_batch(3, [bytes.fromhex(FEATURE_LEVEL_440), bytes.fromhex(REGISTER_BROKER_V4_440)]),
        control_batch(5, *map(bytes.fromhex, SNAPSHOT_FOOTER_440)),
    ]))
    rc, out, err = run(capfd, "dump", "--files", path, "--cluster-metadata-decoder", "--skip-record-metadata")
    assert rc == 0 and err == []
    assert out[1] == "Snapshot end offset: 60, epoch: 1"
    # without metadata a control record's line is empty; a record without a key prints "| payload:" (4.4)
    texts = [ln for ln in out if ln.startswith("| payload")]
    assert out.count("") == 4
    assert texts == ['| payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version",'
                     '"featureLevel":33}}', "| payload: " + REGISTER_BROKER_V4_TEXT]
    rc, out, _ = run(capfd, "dump", "--files", path, "--cluster-metadata-decoder")
    controls = [ln.split("headerKeys: [] ", 1)[1] for ln in record_lines(out) if "keySize: 4" in ln]
    assert controls == [CONTROL_TEXTS_440[p] for p in (SNAPSHOT_HEADER_440, KRAFT_VERSION_440, VOTERS_440,
                                                      SNAPSHOT_FOOTER_440)]


# ============================================================================== quorum-state files
QUORUM_V1_440 = '{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}'
QUORUM_V0_440 = ('{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,'
                 '"currentVoters":[{"voterId":1}],"data_version":0}')


def test_quorum_state_files_of_both_versions():
    v1 = parse_quorum_state(QUORUM_V1_440 + "\n")
    assert (v1.data_version, v1.leader_id, v1.leader_epoch, v1.voted_id, v1.voted_directory_id) == (1, 1, 1, -1, ZERO)
    assert (v1.cluster_id, v1.applied_offset, v1.current_voters) == (None, None, None)
    assert v1.has_leader and not v1.has_voted
    v0 = parse_quorum_state(QUORUM_V0_440.encode())
    assert (v0.data_version, v0.cluster_id, v0.applied_offset, v0.current_voters, v0.voted_directory_id) == (
        0, "", 0, (1,), None)
    voted = parse_quorum_state('{"leaderId":-1,"leaderEpoch":7,"votedId":2,"votedDirectoryId":"fS1nmlvxRyKZY213FEDJYg",'
                               '"data_version":1}')
    assert voted.has_voted and not voted.has_leader and topic_id_text(voted.voted_directory_id) == "fS1nmlvxRyKZY213FEDJYg"
    nulls = parse_quorum_state(QUORUM_V0_440.replace('[{"voterId":1}]', "null"))
    assert nulls.current_voters is None
    # only the first line counts, as FileQuorumStateStore reads it
    assert parse_quorum_state(QUORUM_V1_440 + "\nnot json") == v1


@pytest.mark.parametrize("text,field", [
    ("", None),
    ("[1]", None),
    ("{not json", None),
    ('{"leaderId":1,"leaderEpoch":1,"votedId":-1}', "data_version"),
    ('{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":2}', "data_version"),
    ('{"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}', "leaderId"),
    ('{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":1}', "votedDirectoryId"),
    ('{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"short","data_version":1}', "votedDirectoryId"),
    ('{"leaderId":"1","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
     "leaderId"),
    ('{"leaderId":4294967296,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
     "leaderId"),
    (QUORUM_V0_440.replace('"appliedOffset":0,', ""), "appliedOffset"),
    (QUORUM_V0_440.replace('"clusterId":""', '"clusterId":5'), "clusterId"),
    (QUORUM_V0_440.replace('[{"voterId":1}]', '[{"id":1}]'), "voterId"),
    (QUORUM_V0_440.replace('[{"voterId":1}]', '"1"'), "currentVoters"),
])
def test_quorum_state_kafka_would_refuse_is_a_typed_error(text, field):
    with pytest.raises(CorruptQuorumStateError) as info:
        parse_quorum_state(text)
    assert info.value.field == field


def test_dump_ignores_quorum_state_as_kafka_44_does(tmp_path, capfd):
    d = tmp_path / "__cluster_metadata-0"
    d.mkdir()
    (d / "quorum-state").write_text(QUORUM_V1_440)
    rc, out, err = run(capfd, "dump", "--files", d / "quorum-state")
    # Kafka 4.4: "Dumping <file>" and "Ignoring unknown file <file>" on stderr, status 0 (4.1 threw on the name)
    assert (rc, out, err) == (0, [f"Dumping {d / 'quorum-state'}"], [f"Ignoring unknown file {d / 'quorum-state'}"])
    assert read_quorum_state(d) == read_quorum_state(d / "quorum-state") == parse_quorum_state(QUORUM_V1_440)


# ========================================================== the metadata records of MV 4.3 and 4.4
def test_metadata_records_of_44_print_as_kafka_44():
    texts = {
        REGISTER_BROKER_V4_440: REGISTER_BROKER_V4_TEXT,
        BROKER_CHANGE_V3_440: ('{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":3,"data":{"brokerId":1,'
                               '"brokerEpoch":13,"cordonedLogDirs":[]}}'),
        CLEAR_ELR_ALL_440: '{"type":"CLEAR_ELR_RECORD","version":0,"data":{"topicName":""}}',
        CLEAR_ELR_T_440: '{"type":"CLEAR_ELR_RECORD","version":0,"data":{"topicName":"t"}}',
    }
    for raw, text in texts.items():
        r = Record(None, bytes.fromhex(raw), T0, offset=13)
        assert metadata_text(r) == text
        m = decode_metadata_record(r.value)
        assert encode_metadata_record(m.api_key, m.version, m.data) == r.value
    # UnregisterControllerRecord (api key 29, KIP-1312) and the cordoned dirs, as Kafka 4.4.0's tool printed
    # them from records kvlog encoded
    u = uuid.UUID(int=0x1234 << 64 | 5)
    assert metadata_text(Record(None, meta(29, 0, {"controllerId": 3}), T0)) == \
        '{"type":"UNREGISTER_CONTROLLER_RECORD","version":0,"data":{"controllerId":3}}'
    assert metadata_text(Record(None, meta(17, 3, {"brokerId": 1, "brokerEpoch": 2}), T0)) == \
        '{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":3,"data":{"brokerId":1,"brokerEpoch":2}}'
    assert decode_metadata_record(meta(17, 3, {"brokerId": 1, "brokerEpoch": 2, "cordonedLogDirs": [u]})).data[
        "cordonedLogDirs"] == [u]


PARTITION_T = uuid.UUID(int=0x7A)
PARTITION_U = uuid.UUID(int=0x7B)
DIR = uuid.UUID(int=0xD1)


def partition(tid, pid, elr):
    return meta(3, 2, {"partitionId": pid, "topicId": tid, "replicas": [1], "isr": [1], "removingReplicas": [],
                       "addingReplicas": [], "leader": 1, "leaderEpoch": 0, "partitionEpoch": 0,
                       "directories": [DIR], "eligibleLeaderReplicas": elr, "lastKnownElr": elr})


def write_44_metadata(root, *, log_values=(), quorum=QUORUM_V1_440, tail=b""):
    """A 4.4 metadata directory: a snapshot at offset 6 (header, kraft.version, voters, records, footer) and
    the log from offset 0 (a leader change at epoch 1, data before and after the snapshot); ``tail``: batch
    bytes after them."""
    d = root / "__cluster_metadata-0"
    d.mkdir(parents=True)
    snapshot = [
        meta(2, 0, {"name": "t", "topicId": PARTITION_T}), meta(2, 0, {"name": "u", "topicId": PARTITION_U}),
        partition(PARTITION_T, 0, [1]), partition(PARTITION_T, 1, None), partition(PARTITION_U, 0, [1]),
        meta(27, 0, {"controllerId": 1, "incarnationId": DIR, "zkMigrationReady": False, "endPoints": [],
                     "features": []}),
        bytes.fromhex(REGISTER_BROKER_V4_440),
    ]
    (d / "00000000000000000006-0000000001.checkpoint").write_bytes(b"".join([
        control_batch(0, *map(bytes.fromhex, SNAPSHOT_HEADER_440)),
        control_batch(1, *map(bytes.fromhex, KRAFT_VERSION_440)),
        control_batch(2, *map(bytes.fromhex, VOTERS_440)),
        data_batch(3, snapshot),
        control_batch(3 + len(snapshot), *map(bytes.fromhex, SNAPSHOT_FOOTER_440)),
    ]))
    log = (control_batch(0, *map(bytes.fromhex, LEADER_CHANGE_440), epoch=1)
           + data_batch(1, [meta(12, 0, {"name": "metadata.version", "featureLevel": 33})] * 5, epoch=1))
    if log_values:
        log += data_batch(6, list(log_values), epoch=1)
    (d / f"{SEG0}.log").write_bytes(log + tail)
    if quorum is not None:
        (d / "quorum-state").write_text(quorum)
    return d


def test_a_44_cluster_keeps_its_brokers_quorum_and_controllers(tmp_path):
    write_44_metadata(tmp_path, log_values=[bytes.fromhex(BROKER_CHANGE_V3_440),
                                            meta(17, 3, {"brokerId": 1, "brokerEpoch": 13, "fenced": -1,
                                                         "cordonedLogDirs": [DIR]})])
    state = cluster_metadata(tmp_path)
    assert state.problems == []
    b = state.brokers[1]
    assert (b["epoch"], b["fenced"], b["endpoints"], b["log_dirs"]) == (
        13, False, ["PLAINTEXT://127.0.0.1:44635"], ["udInP-4JvQoDD6Mo0lNnyw"])
    assert b["cordoned_log_dirs"] == [topic_id_text(DIR)]
    assert state.kraft_version == 1
    assert state.voters().to_pylist() == [{"voter_id": 1, "directory_id": "fS1nmlvxRyKZY213FEDJYg",
                                           "endpoints": ["CONTROLLER://127.0.0.1:50641"],
                                           "min_kraft_version": 0, "max_kraft_version": 1}]
    # the leader change is before the snapshot's end offset: the snapshot does not hold it, the log does
    assert (state.quorum_leader_id, state.quorum_leader_epoch) == (1, 1)
    assert state.quorum_state == parse_quorum_state(QUORUM_V1_440)
    assert list(state.controllers) == [1]
    assert kvlog.cluster_metadata(tmp_path).brokers.keys() == {1}


def test_unregister_controller_and_a_static_quorum(tmp_path):
    write_44_metadata(tmp_path, log_values=[meta(29, 0, {"controllerId": 1})], quorum=QUORUM_V0_440)
    state = cluster_metadata(tmp_path)
    assert state.controllers == {} and state.problems == []
    assert state.quorum_state.current_voters == (1,)
    # a static quorum writes no KRaftVersion/Voters records: no kraft.version, no voters
    d = tmp_path / "static" / "__cluster_metadata-0"
    d.mkdir(parents=True)
    (d / f"{SEG0}.log").write_bytes(control_batch(0, *map(bytes.fromhex, LEADER_CHANGE_440), epoch=4)
                                    + data_batch(1, [meta(2, 0, {"name": "t", "topicId": PARTITION_T})], epoch=4))
    static = cluster_metadata(tmp_path / "static")
    assert (static.kraft_version, static.voters().num_rows, static.quorum_leader_epoch) == (None, 0, 4)
    assert static.quorum_state is None


def test_clear_elr_clears_one_topic_or_all_and_bumps_the_partition_epoch(tmp_path):
    write_44_metadata(tmp_path / "one", log_values=[bytes.fromhex(CLEAR_ELR_T_440)])
    rows = {(r["topic"], r["partition"]): r for r in cluster_metadata(tmp_path / "one").partitions().to_pylist()}
    assert (rows[("t", 0)]["eligible_leader_replicas"], rows[("t", 0)]["last_known_elr"],
            rows[("t", 0)]["partition_epoch"]) == ([], [], 1)
    assert rows[("t", 1)]["partition_epoch"] == 0          # had no ELR: untouched
    assert (rows[("u", 0)]["eligible_leader_replicas"], rows[("u", 0)]["partition_epoch"]) == ([1], 0)
    write_44_metadata(tmp_path / "all", log_values=[bytes.fromhex(CLEAR_ELR_ALL_440)])
    rows = cluster_metadata(tmp_path / "all").partitions().to_pylist()
    assert [(r["topic"], r["eligible_leader_replicas"], r["partition_epoch"]) for r in rows] == [
        ("t", [], 1), ("t", [], 0), ("u", [], 1)]
    write_44_metadata(tmp_path / "gone", log_values=[meta(28, 0, {"topicName": "nope"})])
    assert cluster_metadata(tmp_path / "gone").problems == ["ClearElrRecord for unknown topic 'nope'"]


def test_a_damaged_quorum_state_is_noted_not_fatal(tmp_path):
    write_44_metadata(tmp_path, quorum='{"leaderId":1}')
    state = cluster_metadata(tmp_path)
    assert state.quorum_state is None and state.brokers.keys() == {1}
    assert len(state.problems) == 1 and "data_version" in state.problems[0]


def test_a_damaged_voters_record_is_noted_and_the_metadata_still_read(tmp_path):
    d = tmp_path / "__cluster_metadata-0"
    d.mkdir()
    (d / f"{SEG0}.log").write_bytes(control_batch(0, b"\x00\x00\x00\x06", b"\x00\x00\x09")
                                    + data_batch(1, [meta(2, 0, {"name": "t", "topicId": PARTITION_T})]))
    with pytest.raises(CorruptInternalRecordError, match="VotersRecord"):
        decode_control_record(b"\x00\x00\x00\x06", b"\x00\x00\x09")
    state = cluster_metadata(tmp_path)  # errors="raise": the quorum's record is still only noted
    assert state.topic_names == {PARTITION_T: "t"} and state.voters().num_rows == 0
    assert len(state.problems) == 1 and "VotersRecord" in state.problems[0] and "offset 0" in state.problems[0]


# =========================================================== __consumer_offsets and __transaction_state
def test_offset_commit_topic_id_decodes_prints_and_reaches_the_table(tmp_path):
    key, value = bytes.fromhex(OFFSET_KEY_440), bytes.fromhex(OFFSET_VALUE_440)
    r = decode_coordinator_record(CO, key, value)
    assert r.value["topicId"] == uuid.UUID("f2780b27-8919-4b38-9561-e955c604e2f3")
    assert codec.UNKNOWN_TAGS not in r.value
    _, payload = coordinator_texts(InternalTopic.CONSUMER_OFFSETS, Record(key, value, T0, offset=2))
    assert payload == OFFSET_TEXT_440
    assert fast_offset_commit(key, value) == (("g-classic", "t", 1), (10, 0, "", 1795849564974, -1,
                                                                      "8ngLJ4kZSziVYelVxgTi8w"))
    # one commit read by the fast path, one (a second tag) by the schema tables: the same column
    other = encode_coordinator_record(CO, 1, {"group": "g2", "topic": "t", "partition": 0}, 4, {
        "offset": 3, "metadata": "m", "commitTimestamp": T0, "topicId": r.value["topicId"],
        codec.UNKNOWN_TAGS: {9: b"\x01"}})
    assert fast_offset_commit(*other) is None
    plain = encode_coordinator_record(CO, 1, {"group": "g3", "topic": "t", "partition": 0}, 4, {
        "offset": 4, "metadata": "", "commitTimestamp": T0})
    with Log.open(tmp_path / f"{CO}-0") as log:
        log.append([Record(key, value, T0), Record(*other, T0), Record(*plain, T0)])
    table = kvlog.consumer_offsets(tmp_path)
    assert dict(zip(table.column("group").to_pylist(), table.column("topic_id").to_pylist())) == {
        "g-classic": "8ngLJ4kZSziVYelVxgTi8w", "g2": "8ngLJ4kZSziVYelVxgTi8w", "g3": None}


def test_consumer_protocol_member_null_classic_metadata_is_a_written_tag():
    key, value = bytes.fromhex(MEMBER_KEY_440), bytes.fromhex(MEMBER_VALUE_440)
    r = decode_coordinator_record(CO, key, value)
    assert r.value["classicMemberMetadata"] is None
    assert coordinator_texts(InternalTopic.CONSUMER_OFFSETS, Record(key, value, T0))[1] == MEMBER_TEXT_440
    assert encode_coordinator_record(CO, 5, r.key, 0, r.value) == (key, value)
    # the spec's JSON-null default is no default: an absent tag is the empty struct, printed by no one
    absent = value[:-4] + b"\x00"
    r = decode_coordinator_record(CO, key, absent)
    assert r.value["classicMemberMetadata"] == {"sessionTimeoutMs": 0, "supportedProtocols": []}
    assert '"classicMemberMetadata"' not in coordinator_texts(InternalTopic.CONSUMER_OFFSETS, Record(key, absent, T0))[1]
    # the same rule for the assignment epochs and streams' last assignment configs (Kafka 4.4.0's tool)
    k17, v17 = encode_coordinator_record(CO, 17, {"groupId": "s"}, 0, {"epoch": 1, "metadataHash": 2,
                                                                        "lastAssignmentConfigs": None})
    assert coordinator_texts(InternalTopic.CONSUMER_OFFSETS, Record(k17, v17, T0))[1] == \
        '{"version":"0","data":{"epoch":1,"metadataHash":2,"lastAssignmentConfigs":null}}'
    assert decode_coordinator_record(CO, k17, v17[:-4] + b"\x00").value["lastAssignmentConfigs"] == []


def test_share_group_state_partition_metadata_as_a_44_broker_writes_it():
    # two records of a 4.4.0 broker whose share group "sg" initialised topic "s": no per-topic
    # CreateTimestamp (a development spec's untagged field kvlog's table had; 4.1.2 and 4.4.0 lack it)
    key = bytes.fromhex("000f00027367")
    texts = {
        "00000250baec3f9c48484b821d2c65ff597a940273020000000000010100":
            '{"version":"0","data":{"initializingTopics":[{"topicId":"ULrsP5xISEuCHSxl_1l6lA","topicName":"s",'
            '"partitions":[0]}],"initializedTopics":[],"deletingTopics":[]}}',
        "0000010250baec3f9c48484b821d2c65ff597a9402730200000000000100":
            '{"version":"0","data":{"initializingTopics":[],"initializedTopics":[{"topicId":"ULrsP5xISEuCHSxl_1l6lA",'
            '"topicName":"s","partitions":[0]}],"deletingTopics":[]}}',
    }
    for raw, text in texts.items():
        value = bytes.fromhex(raw)
        assert coordinator_texts(InternalTopic.CONSUMER_OFFSETS, Record(key, value, T0)) == (
            '{"type":"15","data":{"groupId":"sg"}}', text)
        r = decode_coordinator_record(CO, key, value)
        assert encode_coordinator_record(CO, 15, r.key, 0, r.value) == (key, value)


def test_share_group_target_assignment_timestamp():
    k, v = encode_coordinator_record(CO, 12, {"groupId": "sg"}, 0, {"assignmentEpoch": 3, "assignmentTimestamp": T0})
    assert v == struct.pack(">hi", 0, 3) + b"\x01\x00\x08" + struct.pack(">q", T0)
    assert coordinator_texts(InternalTopic.CONSUMER_OFFSETS, Record(k, v, T0))[1] == \
        '{"version":"0","data":{"assignmentEpoch":3,"assignmentTimestamp":1700000000000}}'


def txn_value(status, next_epoch=-1, version=1):
    return {"producerId": 5, "previousProducerId": 4, "nextProducerId": 6, "producerEpoch": 3,
            "nextProducerEpoch": next_epoch, "transactionTimeoutMs": 1000, "transactionStatus": status,
            "transactionPartitions": None, "transactionLastUpdateTimestampMs": T0,
            "transactionStartTimestampMs": -1, "clientTransactionVersion": 2}


def test_transaction_log_next_producer_epoch_and_state_names(tmp_path):
    key, value = encode_coordinator_record("__transaction_state", 0, {"transactionalId": "x"}, 1, txn_value(1, 4))
    # the tag section: 4 fields by tag number; tag 3 (NextProducerEpoch) is the int16 4
    assert value.endswith(b"\x04" + b"\x00\x08" + struct.pack(">q", 4) + b"\x01\x08" + struct.pack(">q", 6)
                          + b"\x02\x02\x00\x02" + b"\x03\x02\x00\x04")
    r = decode_coordinator_record("__transaction_state", key, value)
    assert r.value["nextProducerEpoch"] == 4 and codec.UNKNOWN_TAGS not in r.value
    # the texts Kafka 4.4.0's tool printed for these values: the state by name, an unknown one as a string
    text = coordinator_texts(InternalTopic.TRANSACTION_STATE, Record(key, value, T0))[1]
    assert text == ('{"version":"1","data":{"producerId":5,"previousProducerId":4,"nextProducerId":6,"producerEpoch":3,'
                    '"nextProducerEpoch":4,"transactionTimeoutMs":1000,"transactionStatus":"Ongoing",'
                    '"transactionPartitions":null,"transactionLastUpdateTimestampMs":1700000000000,'
                    '"transactionStartTimestampMs":-1,"clientTransactionVersion":2}}')
    names = {}
    for status in (0, 1, 2, 3, 4, 5, 6, 7, 9):
        k, v = encode_coordinator_record("__transaction_state", 0, {"transactionalId": "x"}, 1, txn_value(status))
        names[status] = json.loads(coordinator_texts(InternalTopic.TRANSACTION_STATE, Record(k, v, T0))[1])[
            "data"]["transactionStatus"]
    assert names == {0: "Empty", 1: "Ongoing", 2: "PrepareCommit", 3: "PrepareAbort", 4: "CompleteCommit",
                     5: "CompleteAbort", 6: "Dead", 7: "PrepareEpochFence", 9: "9"}
    with Log.open(tmp_path / "__transaction_state-0") as log:
        log.append([Record(key, value, T0)])
    table = kvlog.transaction_state(tmp_path)
    assert table.column("next_producer_epoch").to_pylist() == [4]


def test_producer_snapshot_entry_without_a_batch_ends_its_line(tmp_path, capfd):
    path = tmp_path / "00000000000000000022.snapshot"
    path.write_bytes(bytes.fromhex(PRODUCER_SNAPSHOT_440))
    rc, out, _ = run(capfd, "dump", "--files", path)
    assert rc == 0 and out[1:] == ["producerId: 1 producerEpoch: 1 coordinatorEpoch: 0 currentTxnFirstOffset: "
                                   "OptionalLong.empty lastTimestamp: 1795849566769"]


# ==================================================================== backup and restore of topic ids
SOURCE_ID = uuid.UUID("f2780b27-8919-4b38-9561-e955c604e2f3")
TARGET_ID = uuid.UUID(int=0x7E57)


def test_restored_commits_carry_the_targets_topic_id_never_the_sources(tmp_path):
    src = tmp_path / "src"
    commits = [("with-id", SOURCE_ID), ("without-id", ZERO)]
    with Log.open(src / f"{CO}-0") as log:
        log.append([Record(*encode_coordinator_record(CO, 1, {"group": g, "topic": "t", "partition": 0}, 4, {
            "offset": 5, "metadata": "", "commitTimestamp": T0, "topicId": tid}), T0) for g, tid in commits])
    table = group_offsets_at_cut(src, as_of=None, log_ranges={("t", 0): (0, 100)})
    assert dict(zip(table.column("group").to_pylist(), table.column("topic_id").to_pylist())) == {
        "with-id": topic_id_text(SOURCE_ID), "without-id": None}

    def written(target, **kw):
        write_offsets_partitions(table, target, num_partitions=1, topic_id=topic_id_text(uuid.UUID(int=0x99)),
                                 now=T0, **kw)
        out = {}
        for batch in kvlog.MemoryRecords((target / f"{CO}-0" / f"{SEG0}.log").read_bytes()).batches():
            for r in batch.records():
                d = decode_coordinator_record(CO, r.key, r.value)
                out[d.key["group"]] = (d.version, d.value["topicId"])
        return out

    # version 4, as a 4.1+ coordinator writes a commit without an expire timestamp
    assert written(tmp_path / "a", topic_ids={"t": topic_id_text(TARGET_ID)}) == {
        "with-id": (4, TARGET_ID), "without-id": (4, ZERO)}
    assert written(tmp_path / "b") == {"with-id": (4, ZERO), "without-id": (4, ZERO)}
    assert written(tmp_path / "c", topic_ids={"other": TARGET_ID}) == {"with-id": (4, ZERO), "without-id": (4, ZERO)}
    assert kvlog.consumer_offsets(tmp_path / "a").column("topic_id").to_pylist() == [topic_id_text(TARGET_ID), None]


def test_consumer_offsets_schema_carries_topic_id():
    schema = offsets_schema()
    assert schema.field("topic_id").type == pa.string() and schema.field("topic_id").nullable
    pytest.importorskip("pyspark")
    from kvlog.spark.internal_topics import consumer_offsets_schema

    assert consumer_offsets_schema().fieldNames() == schema.names  # format("kvlog_consumer_offsets") too
