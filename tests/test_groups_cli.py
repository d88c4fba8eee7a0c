"""``kvlog groups``, ``kvlog offsets --group/--target`` and ``kvlog dump``'s decoder options.

Expected dump texts are written out from DumpLogSegments' parsers (``{"type":"<id>","data":...}`` keys,
``{"version":"<v>","data":...}`` payloads, ``<DELETE>``, Kafka's skip messages) and the JSON converters'
conventions (camelCase names in spec order, tagged fields only when not default, base64 bytes,
base64url uuids); record bytes of the first case are built with ``struct`` from the spec.
"""

import json
import struct
import uuid

from aiokafka.coordinator.protocol import ConsumerProtocolMemberAssignment, ConsumerProtocolMemberMetadata

from kvlog import Log, Record
from kvlog.cli import main
from kvlog.internal_topics.decoders import encode_coordinator_record

T0 = 1_700_000_000_000
SEG0 = "00000000000000000000.log"


def run(capfd, *argv):
    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out.splitlines(), err.splitlines()


def s16(text):
    return struct.pack(">h", len(text.encode())) + text.encode()


def record_lines(lines):
    return [ln for ln in lines if ln.startswith("|")]


def test_offsets_decoder_prints_kafkas_key_and_payload_texts(tmp_path, capfd):
    key = struct.pack(">h", 1) + s16("g") + s16("t") + struct.pack(">i", 0)
    value = struct.pack(">hqi", 3, 42, 7) + s16("m") + struct.pack(">q", T0)
    sub = ConsumerProtocolMemberMetadata(0, ["orders"], b"").encode()
    asg = ConsumerProtocolMemberAssignment(0, [("orders", [0, 2])], b"ud").encode()
    gk, gv = encode_coordinator_record("__consumer_offsets", 2, {"group": "g"}, 3, {
        "protocolType": "consumer", "generation": 4, "protocol": "range", "leader": "m-1",
        "currentStateTimestamp": T0, "members": [{
            "memberId": "m-1", "groupInstanceId": None, "clientId": "c", "clientHost": "/10.0.0.1",
            "rebalanceTimeout": 300000, "sessionTimeout": 45000, "subscription": sub, "assignment": asg}]})
    log = Log.open(tmp_path / "__consumer_offsets-0")
    log.append([Record(key, value, T0), Record(gk, gv, T0), Record(key, None, T0),
                Record(b"\x00\x12\x00\x01g", b"\x00\x00", T0), Record(key, value[:-3], T0)])
    log.close()
    seg = tmp_path / "__consumer_offsets-0" / SEG0
    rc, out, err = run(capfd, "dump", "--offsets-decoder", "--files", seg)
    assert rc == 0, err
    meta = "CreateTime: 1700000000000 keySize: {} valueSize: {} sequence: -1 headerKeys: []"
    lines = record_lines(out)
    assert lines[0] == ("| offset: 0 " + meta.format(12, 25) + ' key: {"type":"1","data":{"group":"g","topic":"t",'
                        '"partition":0}} payload: {"version":"3","data":{"offset":42,"leaderEpoch":7,"metadata":"m",'
                        '"commitTimestamp":1700000000000}}')
    assert lines[1] == ("| offset: 1 " + meta.format(len(gk), len(gv)) + ' key: {"type":"2","data":{"group":"g"}} '
                        'payload: {"version":"3","data":{"protocolType":"consumer","generation":4,"protocol":"range",'
                        '"leader":"m-1","currentStateTimestamp":1700000000000,"members":[{"memberId":"m-1",'
                        '"groupInstanceId":null,"clientId":"c","clientHost":"/10.0.0.1","rebalanceTimeout":300000,'
                        '"sessionTimeout":45000,"subscription":{"topics":["orders"],"userData":""},'
                        '"assignment":{"assignedPartitions":[{"topic":"orders","partitions":[0,2]}],'
                        '"userData":"dWQ="}}]}}')
    assert lines[2] == ("| offset: 2 " + meta.format(12, -1) + ' key: {"type":"1","data":{"group":"g","topic":"t",'
                        '"partition":0}} payload: <DELETE>')
    assert lines[3] == "| offset: 3 " + meta.format(5, 2) + " key: Unknown record type 18 at offset 3, skipping."
    assert lines[4].startswith("| offset: 4 " + meta.format(12, 22) + " key: Error at offset 4, skipping. ")
    assert "commitTimestamp" in lines[4] and "payload" not in lines[4]
    rc, out, _ = run(capfd, "dump", "--offsets-decoder", "--skip-record-metadata", "--files", seg)
    assert record_lines(out)[2] == '| key: {"type":"1","data":{"group":"g","topic":"t","partition":0}} payload: <DELETE>'


FIXTURE_PAYLOADS = [
    '{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}',
    '{"type":"TOPIC_RECORD","version":0,"data":{"name":"saz","topicId":"AAAAAAAAQACAAAAAAAAAkQ"}}',
    *[f'{{"type":"PARTITION_RECORD","version":1,"data":{{"partitionId":{p},"topicId":"AAAAAAAAQACAAAAAAAAAkQ",'
      '"replicas":[1],"isr":[1],"removingReplicas":[],"addingReplicas":[],"leader":1,"leaderEpoch":0,'
      '"partitionEpoch":0,"directories":["EAAAAAAAQACAAAAAAAAAAQ"]}}' for p in (0, 1)],
]


def test_cluster_metadata_decoder_on_the_kraft_fixture(kraft_segment, capfd):
    rc, out, err = run(capfd, "dump", "--cluster-metadata-decoder", "--files", kraft_segment)
    assert rc == 0, err
    lines = record_lines(out)
    sizes = [23, 24, 65, 65]
    stamps = [1726045943832] + [1726045957397] * 3
    assert lines == [f"| offset: {i} CreateTime: {stamps[i]} keySize: -1 valueSize: {sizes[i]} sequence: -1 "
                     f"headerKeys: [] payload: {FIXTURE_PAYLOADS[i]}" for i in range(4)]
    # without metadata and without a key the line starts with "| payload:", as Kafka 4.4's Java tool prints it
    # (4.0-4.2's Scala tool printed the "| " indent only before a key: " payload:")
    rc, out, _ = run(capfd, "dump", "--cluster-metadata-decoder", "--skip-record-metadata", "--files", kraft_segment)
    assert [ln for ln in out if "payload" in ln] == [f"| payload: {p}" for p in FIXTURE_PAYLOADS]


def test_transaction_and_share_state_decoders(tmp_path, capfd):
    tk, tv = encode_coordinator_record("__transaction_state", 0, {"transactionalId": "tx-1"}, 1, {
        "producerId": 1000, "previousProducerId": 999, "producerEpoch": 3, "transactionTimeoutMs": 60000,
        "transactionStatus": 2, "transactionPartitions": [{"topic": "orders", "partitionIds": [0, 1]}],
        "transactionLastUpdateTimestampMs": T0 + 5, "transactionStartTimestampMs": T0})
    log = Log.open(tmp_path / "__transaction_state-0")
    log.append([Record(tk, tv, T0)])
    log.close()
    rc, out, _ = run(capfd, "dump", "--transaction-log-decoder", "--skip-record-metadata", "--files",
                     tmp_path / "__transaction_state-0" / SEG0)
    assert record_lines(out) == [
        '| key: {"type":"0","data":{"transactionalId":"tx-1"}} payload: {"version":"1","data":{"producerId":1000,'
        '"previousProducerId":999,"producerEpoch":3,"transactionTimeoutMs":60000,"transactionStatus":"PrepareCommit",'
        '"transactionPartitions":[{"topic":"orders","partitionIds":[0,1]}],'
        '"transactionLastUpdateTimestampMs":1700000000005,"transactionStartTimestampMs":1700000000000}}']
    tid = uuid.UUID(int=0x91)
    sk, sv = encode_coordinator_record("__share_group_state", 1, {"groupId": "sg", "topicId": tid, "partition": 2}, 0, {
        "snapshotEpoch": 1, "leaderEpoch": 4, "startOffset": 10, "stateBatches": [
            {"firstOffset": 10, "lastOffset": 12, "deliveryState": 2, "deliveryCount": 1}]})
    log = Log.open(tmp_path / "__share_group_state-0")
    log.append([Record(sk, sv, T0)])
    log.close()
    rc, out, _ = run(capfd, "dump", "--share-group-state-decoder", "--skip-record-metadata", "--files",
                     tmp_path / "__share_group_state-0" / SEG0)
    assert record_lines(out) == [
        '| key: {"type":"1","data":{"groupId":"sg","topicId":"AAAAAAAAAAAAAAAAAAAAkQ","partition":2}} payload: '
        '{"version":"0","data":{"snapshotEpoch":1,"leaderEpoch":4,"startOffset":10,"stateBatches":'
        '[{"firstOffset":10,"lastOffset":12,"deliveryState":2,"deliveryCount":1}]}}']


def test_decoder_options_exclude_each_other(kraft_segment, capfd):
    rc, _, err = run(capfd, "dump", "--offsets-decoder", "--cluster-metadata-decoder", "--files", kraft_segment)
    assert rc == 2 and "not allowed with" in err[-1]


# ============================================================================================== groups
def commit(group, topic, partition, offset, ts, metadata=""):
    k, v = encode_coordinator_record("__consumer_offsets", 1, {"group": group, "topic": topic, "partition": partition},
                                     3, {"offset": offset, "leaderEpoch": 2, "metadata": metadata,
                                         "commitTimestamp": ts})
    return Record(k, v, ts)


def data_dir(tmp_path):
    root = tmp_path / "data"
    log = Log.open(root / "orders-0")
    log.append([Record(b"k", b"v", T0 + i * 1000) for i in range(10)])
    log.close()
    log = Log.open(root / "__consumer_offsets-0")
    log.append([commit("billing", "orders", 0, 4, T0 + 5000, "m1"), commit("audit", "orders", 1, 2, T0 + 5000)])
    log.append([commit("billing", "orders", 0, 7, T0 + 9000)])
    log.close()
    return root


def test_groups_table_lag_and_as_of(tmp_path, capfd):
    root = data_dir(tmp_path)
    rc, out, err = run(capfd, "groups", root)
    assert rc == 0 and err == []
    assert out == [
        "GROUP   TOPIC  PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG LEADER-EPOCH COMMIT-TIME              METADATA",
        "audit   orders 1         2              -              -   2            2023-11-14T22:13:25.000Z -",
        "billing orders 0         7              10             3   2            2023-11-14T22:13:29.000Z -",
    ]
    rc, out, _ = run(capfd, "groups", root, "--group", "billing", "--as-of", "2023-11-14T22:13:26Z", "--json")
    (row,) = [json.loads(x) for x in out]
    assert (row["committed_offset"], row["metadata"], row["log_end_offset"], row["lag"]) == (4, "m1", 7, 3)
    assert row["commit_timestamp"] == T0 + 5000 and row["coordinator_partition"] == 0
    rc, out, err = run(capfd, "groups", root, "--group", "nobody")
    assert rc == 1 and out == [] and "nobody" in err[-1]
    rc, _, err = run(capfd, "groups", tmp_path / "data" / "orders-0")
    assert rc == 1 and "no __consumer_offsets partitions" in err[-1]


def test_offsets_failover_lines(tmp_path, capfd):
    root = data_dir(tmp_path)
    mirror = tmp_path / "mirror"
    log = Log.open(mirror / "orders-0")
    log.append([Record(b"k", b"v", T0 + i * 1000) for i in range(2, 10)])  # the mirror began at T0+2000
    log.close()
    rc, out, err = run(capfd, "offsets", root, "--group", "billing", "--target", mirror, "--margin", "1000")
    assert rc == 0, err
    # committed 7 → source record 7 at T0+7000, minus 1 s → mirror offset of T0+6000 = 4
    assert out == [f"orders 0 4 {T0 + 6000} committed=7 anchor=record:{T0 + 7000}"]
    rc, out, err = run(capfd, "offsets", root, "--group", "audit", "--target", mirror)
    assert rc == 1 and out == [] and err == [f"kvlog: orders-1 is not in {mirror}"]
    rc, out, _ = run(capfd, "offsets", root, "--group", "billing", "--target", mirror, "--anchor", "commit",
                     "--as-of", str(T0 + 6000))
    assert out == [f"orders 0 3 {T0 + 5000} committed=4 anchor=commit:{T0 + 5000}"]
    rc, _, err = run(capfd, "offsets", root, "--group", "billing")
    assert rc == 2 and err[0].startswith("usage: kvlog offsets") and "--target" in err[-1]
    rc, _, err = run(capfd, "offsets", root / "orders-0")
    assert rc == 2 and err[0].startswith("usage: kvlog offsets") and "--timestamp" in err[-1]
    rc, _, err = run(capfd, "offsets", root / "orders-0", "--timestamp", "earliest", "--target", mirror)
    assert rc == 2 and "--target only apply with --group" in err[-1]


def test_undecodable_member_bytes_stay_base64_and_a_keyless_record_stops_the_file(tmp_path, capfd):
    gk, gv = encode_coordinator_record("__consumer_offsets", 2, {"group": "g"}, 1, {
        "protocolType": "consumer", "generation": 1, "protocol": None, "leader": None, "members": [{
            "memberId": "m", "clientId": "c", "clientHost": "h", "rebalanceTimeout": 1, "sessionTimeout": 2,
            "subscription": b"\x00", "assignment": b"\x00\x09abc"}]})
    log = Log.open(tmp_path / "__consumer_offsets-1")
    log.append([Record(gk, gv, T0), Record(None, b"v", T0), Record(gk, gv, T0)])
    log.close()
    rc, out, err = run(capfd, "dump", "--offsets-decoder", "--skip-record-metadata", "--files",
                       tmp_path / "__consumer_offsets-1" / SEG0)
    assert record_lines(out) == [
        '| key: {"type":"2","data":{"group":"g"}} payload: {"version":"1","data":{"protocolType":"consumer",'
        '"generation":1,"protocol":null,"leader":null,"members":[{"memberId":"m","clientId":"c","clientHost":"h",'
        '"rebalanceTimeout":1,"sessionTimeout":2,"subscription":"AA==","assignment":"AAlhYmM="}]}}']
    assert rc == 1 and "Failed to decode message at offset 1 using the specified decoder (message had a missing key)" \
        in err[-1]


def test_offsets_decoder_prints_streams_group_records(tmp_path, capfd):
    gk, gv = encode_coordinator_record("__consumer_offsets", 17, {"groupId": "app"}, 0, {
        "epoch": 5, "metadataHash": 42, "validatedTopologyEpoch": 2,
        "lastAssignmentConfigs": [{"key": "num.standby.replicas", "value": "1"}]})
    mk, mv = encode_coordinator_record("__consumer_offsets", 19, {"groupId": "app", "memberId": "m"}, 0, {
        "instanceId": None, "rackId": None, "clientId": "c", "clientHost": "/10.0.0.1", "rebalanceTimeoutMs": 300000,
        "topologyEpoch": 1, "processId": "p", "userEndpoint": {"host": "h", "port": 8080}, "clientTags": []})
    tk, _ = encode_coordinator_record("__consumer_offsets", 23, {"groupId": "app"})
    log = Log.open(tmp_path / "__consumer_offsets-2")
    log.append([Record(gk, gv, T0), Record(mk, mv, T0), Record(tk, None, T0)])
    log.close()
    rc, out, err = run(capfd, "dump", "--offsets-decoder", "--skip-record-metadata", "--files",
                       tmp_path / "__consumer_offsets-2" / SEG0)
    assert rc == 0, err
    # tagged fields at their defaults (the two description epochs) are not printed
    assert record_lines(out) == [
        '| key: {"type":"17","data":{"groupId":"app"}} payload: {"version":"0","data":{"epoch":5,"metadataHash":42,'
        '"validatedTopologyEpoch":2,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"1"}]}}',
        '| key: {"type":"19","data":{"groupId":"app","memberId":"m"}} payload: {"version":"0","data":'
        '{"instanceId":null,"rackId":null,"clientId":"c","clientHost":"/10.0.0.1","rebalanceTimeoutMs":300000,'
        '"topologyEpoch":1,"processId":"p","userEndpoint":{"host":"h","port":8080},"clientTags":[]}}',
        '| key: {"type":"23","data":{"groupId":"app"}} payload: <DELETE>']


def test_cluster_metadata_decoder_on_a_snapshot_file(tmp_path, capfd):
    import kvlog
    from kvlog.internal_topics.decoders import encode_metadata_record

    snap = tmp_path / "00000000000000000002-0000000001.checkpoint"
    snap.write_bytes(kvlog.encode_batch([Record(None, encode_metadata_record(12, 0, {"name": "kraft.version",
                                                                                      "featureLevel": 1}), T0)]))
    rc, out, err = run(capfd, "dump", "--cluster-metadata-decoder", "--files", snap)
    assert rc == 0, err
    assert out[1] == "Snapshot end offset: 2, epoch: 1"
    assert out[3].endswith(' payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"kraft.version",'
                           '"featureLevel":1}}')
