"""Consumer-group offsets replayed from ``__consumer_offsets``, the KRaft cluster-metadata replay, and
failover resume offsets on a mirror. Logs are written with kvlog's own ``Log.append``."""

import uuid

import pyarrow as pa
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import kvlog
from kvlog import Log, Record
from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.consumer_offsets import fast_offset_commit, offsets_schema, replay
from kvlog.internal_topics.decoders import decode_coordinator_record, encode_coordinator_record, encode_metadata_record

T0 = 1_700_000_000_000
CO = "__consumer_offsets"


def commit(group, topic, partition, offset, ts, *, version=3, epoch=5, metadata=""):
    value = {"offset": offset, "leaderEpoch": epoch, "metadata": metadata, "commitTimestamp": ts}
    if version == 1:
        value["expireTimestamp"] = ts + 86_400_000
    k, v = encode_coordinator_record(CO, 1, {"group": group, "topic": topic, "partition": partition}, version, value)
    return Record(k, v, ts)


def tombstone(group, topic, partition, ts):
    k, _ = encode_coordinator_record(CO, 1, {"group": group, "topic": topic, "partition": partition})
    return Record(k, None, ts)


def group_record(group, ts, *, alive=True):
    value = {"protocolType": "consumer", "generation": 1, "protocol": "range", "leader": "m",
             "currentStateTimestamp": ts, "members": []}
    k, v = encode_coordinator_record(CO, 2, {"group": group}, 3, value if alive else None)
    return Record(k, v if alive else None, ts)


def offsets_dir(root, n=0):
    return Log.open(root / f"{CO}-{n}")


def rows(table):
    return [(r["group"], r["topic"], r["partition"], r["committed_offset"]) for r in table.to_pylist()]


def test_latest_commit_per_key_tombstones_and_columns(tmp_path):
    log = offsets_dir(tmp_path)
    log.append([group_record("g", T0), commit("g", "t", 0, 10, T0), commit("g", "t", 1, 20, T0, version=1)])
    log.append([commit("g", "t", 0, 15, T0 + 1000, metadata="m")])
    log.append([commit("h", "t", 1, 7, T0 + 1500, version=0), tombstone("g", "t", 1, T0 + 2000)])
    log.close()
    table = kvlog.consumer_offsets(tmp_path)
    assert table.schema == offsets_schema()
    assert rows(table) == [("g", "t", 0, 15), ("h", "t", 1, 7)]
    first = table.to_pylist()[0]
    assert first["metadata"] == "m" and first["leader_epoch"] == 5 and first["record_offset"] == 3
    assert first["coordinator_partition"] == 0 and first["expire_timestamp"] is None
    assert table.column("commit_timestamp").cast(pa.int64()).to_pylist() == [T0 + 1000, T0 + 1500]
    assert table.column("leader_epoch").to_pylist() == [5, None]  # a v0 value has no leader epoch
    # a v1 value's expire timestamp comes through while the commit lives
    early = kvlog.consumer_offsets(tmp_path, as_of=T0)
    assert early.column("expire_timestamp").cast(pa.int64()).to_pylist() == [None, T0 + 86_400_000]


def test_as_of_replays_only_records_up_to_that_time(tmp_path):
    log = offsets_dir(tmp_path)
    for i in range(5):
        log.append([commit("g", "t", 0, 100 + i, T0 + i * 1000)])
    log.append([tombstone("g", "t", 0, T0 + 5000)])
    log.close()
    assert rows(kvlog.consumer_offsets(tmp_path, as_of=T0 + 2500)) == [("g", "t", 0, 102)]
    assert rows(kvlog.consumer_offsets(tmp_path, as_of=T0 + 4000)) == [("g", "t", 0, 104)]
    assert rows(kvlog.consumer_offsets(tmp_path, as_of=T0 - 1)) == []
    assert rows(kvlog.consumer_offsets(tmp_path)) == []


def test_transactional_commits_apply_on_commit_and_vanish_on_abort(tmp_path):
    log = offsets_dir(tmp_path)
    log.append([commit("g", "t", 0, 1, T0)])
    log.append([commit("g", "t", 0, 50, T0 + 1)], producer_id=7, producer_epoch=0, base_sequence=0,
               is_transactional=True)
    log.append([commit("g", "t", 1, 60, T0 + 2)], producer_id=8, producer_epoch=0, base_sequence=0,
               is_transactional=True)
    assert rows(kvlog.consumer_offsets(tmp_path)) == [("g", "t", 0, 1)]  # both still pending
    log.end_transaction(7, 0, True, timestamp=T0 + 3)
    log.end_transaction(8, 0, False, timestamp=T0 + 4)
    log.close()
    assert rows(kvlog.consumer_offsets(tmp_path)) == [("g", "t", 0, 50)]
    assert rows(kvlog.consumer_offsets(tmp_path, as_of=T0 + 2)) == [("g", "t", 0, 1)]


def test_a_plain_commit_appended_after_a_pending_one_wins_at_the_marker(tmp_path):
    log = offsets_dir(tmp_path)
    log.append([commit("g", "t", 0, 50, T0)], producer_id=7, producer_epoch=0, base_sequence=0,
               is_transactional=True)
    log.append([commit("g", "t", 0, 80, T0 + 1)])
    log.end_transaction(7, 0, True, timestamp=T0 + 2)
    log.close()
    assert rows(kvlog.consumer_offsets(tmp_path)) == [("g", "t", 0, 80)]


def test_deleted_group_loses_its_offsets_and_is_marked_deleted(tmp_path):
    log = offsets_dir(tmp_path)
    log.append([group_record("g", T0), commit("g", "t", 0, 5, T0), commit("g", "u", 3, 9, T0),
                commit("keep", "t", 0, 1, T0)])
    # DeleteGroups: a tombstone per offset, then the group's tombstone, in one batch
    log.append([tombstone("g", "t", 0, T0 + 10), tombstone("g", "u", 3, T0 + 10), group_record("g", T0 + 10, alive=False)])
    log.close()
    assert rows(kvlog.consumer_offsets(tmp_path)) == [("keep", "t", 0, 1)]
    (state,) = replay(tmp_path)
    assert state.groups == {"g": False}
    (before,) = replay(tmp_path, as_of=T0)
    assert before.groups == {"g": True} and len(before.offsets) == 3


def test_streams_group_tombstone_marks_the_group_deleted_and_other_streams_records_are_known(tmp_path):
    log = offsets_dir(tmp_path)
    gk, gv = encode_coordinator_record(CO, 17, {"groupId": "app"}, 0, {"epoch": 1, "metadataHash": 7})
    tk, tv = encode_coordinator_record(CO, 20, {"groupId": "app"}, 0, {"assignmentEpoch": 1})
    mk, mv = encode_coordinator_record(CO, 22, {"groupId": "app", "memberId": "m"}, 0, {
        "memberEpoch": 1, "previousMemberEpoch": 0, "state": 0, "activeTasks": [
            {"subtopologyId": "0", "partitions": [0], "assignmentEpochs": [1]}], "standbyTasks": [],
        "warmupTasks": [], "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
        "warmupTasksPendingRevocation": []})
    log.append([Record(gk, gv, T0), Record(tk, tv, T0), Record(mk, mv, T0), commit("app", "in", 0, 5, T0)])
    # DeleteGroups of a streams group: offset tombstones, the member and group records' tombstones
    log.append([tombstone("app", "in", 0, T0 + 10), Record(mk, None, T0 + 10), Record(tk, None, T0 + 10),
                Record(gk, None, T0 + 10)])
    log.close()
    (state,) = replay(tmp_path)
    assert state.groups == {"app": False} and state.problems == [] and rows(state.table()) == []
    (before,) = replay(tmp_path, as_of=T0)
    assert before.groups == {"app": True} and rows(before.table()) == [("app", "in", 0, 5)]
    (other,) = replay(tmp_path, group="other")
    assert other.groups == {}


def test_many_partitions_and_group_filter(tmp_path):
    for n in (0, 1, 2):
        log = offsets_dir(tmp_path, n)
        log.append([commit(f"g{n}", "t", n, n * 10, T0), commit("all", "t", n, n, T0)])
        log.close()
    (tmp_path / "orders-0").mkdir()  # other topics are not read
    table = kvlog.consumer_offsets(tmp_path)
    assert table.column("coordinator_partition").to_pylist() == [0, 0, 1, 1, 2, 2]
    assert rows(kvlog.consumer_offsets(tmp_path, group="all")) == [("all", "t", 0, 0), ("all", "t", 1, 1),
                                                                   ("all", "t", 2, 2)]
    assert rows(kvlog.consumer_offsets(tmp_path / f"{CO}-1")) == [("all", "t", 1, 1), ("g1", "t", 1, 10)]
    assert kvlog.consumer_offsets(tmp_path / "orders-0").num_rows == 0


def test_malformed_value_is_a_typed_error_naming_partition_offset_field(tmp_path):
    log = offsets_dir(tmp_path, 4)
    good = commit("g", "t", 0, 5, T0)
    log.append([good, Record(good.key, good.value[:-3], T0 + 1), commit("g", "t", 1, 6, T0 + 2)])
    log.close()
    with pytest.raises(CorruptInternalRecordError) as info:
        kvlog.consumer_offsets(tmp_path)
    err = info.value
    assert (err.partition, err.offset, err.field) == (f"{CO}-4", 1, "value.commitTimestamp")
    assert f"partition {CO}-4" in str(err) and "offset 1" in str(err)
    (state,) = replay(tmp_path, errors="skip")
    assert len(state.problems) == 1 and rows(state.table()) == [("g", "t", 0, 5), ("g", "t", 1, 6)]


def test_unknown_types_and_versions_are_noted_and_skipped(tmp_path):
    log = offsets_dir(tmp_path)
    good = commit("g", "t", 0, 5, T0)
    newer = Record(good.key, b"\x00\x07" + good.value[2:], T0 + 1)   # value version 7
    gone = Record(b"\x00\x12\x00\x01g", b"\x00\x00", T0 + 2)   # type 18: early-access streams record, gone upstream
    log.append([good, newer, gone])
    log.close()
    (state,) = replay(tmp_path)
    assert rows(state.table()) == [("g", "t", 0, 5)]
    assert any("unknown version 7" in p and "offset 1" in p for p in state.problems)
    assert any("unknown record type 18" in p for p in state.problems)


# ====================================================================================== cluster metadata
TOPIC_A = uuid.UUID(int=0xA)
TOPIC_B = uuid.UUID(int=0xB)


def meta(api_key, data, ts=T0, version=0):
    return Record(None, encode_metadata_record(api_key, version, data), ts)


def partition(topic_id, pid, leader=1):
    return meta(3, {"partitionId": pid, "topicId": topic_id, "replicas": [1, 2], "isr": [1, 2],
                    "removingReplicas": [], "addingReplicas": [], "leader": leader, "leaderEpoch": 0,
                    "partitionEpoch": 0, "directories": []}, version=1)


def test_cluster_metadata_of_the_kraft_fixture(tmp_path, kraft_segment):
    d = tmp_path / "__cluster_metadata-0"
    d.mkdir()
    (d / kraft_segment.name).write_bytes(kraft_segment.read_bytes())
    m = kvlog.cluster_metadata(tmp_path)
    assert m.topics().to_pylist() == [{"topic": "saz", "topic_id": "AAAAAAAAQACAAAAAAAAAkQ", "partitions": 2}]
    assert [(p["partition"], p["leader"], p["replicas"], p["isr"]) for p in m.partitions().to_pylist()] == [
        (0, 1, [1], [1]), (1, 1, [1], [1])]
    assert m.features == {"metadata.version": 20} and m.last_offset == 3 and m.problems == []


def test_cluster_metadata_replay_rules(tmp_path):
    log = Log.open(tmp_path / "__cluster_metadata-0")
    log.append([meta(2, {"name": "a", "topicId": TOPIC_A}), partition(TOPIC_A, 0), partition(TOPIC_A, 1),
                meta(4, {"resourceType": 2, "resourceName": "a", "name": "retention.ms", "value": "1000"}),
                meta(4, {"resourceType": 2, "resourceName": "a", "name": "cleanup.policy", "value": "compact"}),
                meta(4, {"resourceType": 4, "resourceName": "", "name": "log.retention.ms", "value": "5"})])
    # leader change on partition 1, an ISR-only change on partition 0, a config deleted
    log.append([meta(5, {"partitionId": 1, "topicId": TOPIC_A, "leader": 2}),
                meta(5, {"partitionId": 0, "topicId": TOPIC_A, "isr": [1]}),
                meta(4, {"resourceType": 2, "resourceName": "a", "name": "retention.ms", "value": None})])
    # a metadata transaction that aborts, then topic b created and removed, then a committed one
    log.append([meta(23, {"name": "x"}), meta(2, {"name": "ghost", "topicId": uuid.UUID(int=9)}), meta(25, {})])
    log.append([meta(2, {"name": "b", "topicId": TOPIC_B}), partition(TOPIC_B, 0),
                meta(4, {"resourceType": 2, "resourceName": "b", "name": "x", "value": "y"}),
                meta(9, {"topicId": TOPIC_B})])
    log.append([meta(23, {}), meta(12, {"name": "kraft.version", "featureLevel": 1}), meta(24, {})])
    log.close()
    m = kvlog.cluster_metadata(tmp_path)
    assert m.topics().column("topic").to_pylist() == ["a"]
    parts = {p["partition"]: p for p in m.partitions().to_pylist()}
    assert (parts[0]["isr"], parts[0]["leader"], parts[0]["leader_epoch"], parts[0]["partition_epoch"]) == ([1], 1, 0, 1)
    assert (parts[1]["leader"], parts[1]["leader_epoch"], parts[1]["partition_epoch"]) == (2, 1, 1)
    assert sorted((c["resource_type"], c["resource_name"], c["name"], c["value"]) for c in m.configs().to_pylist()) == [
        ("BROKER", "", "log.retention.ms", "5"), ("TOPIC", "a", "cleanup.policy", "compact")]
    assert m.features == {"kraft.version": 1}


def test_cluster_metadata_starts_from_the_newest_snapshot(tmp_path):
    d = tmp_path / "__cluster_metadata-0"
    log = Log.open(d)
    log.append([meta(2, {"name": "only-in-log-before-snapshot", "topicId": TOPIC_A})])
    log.append([meta(12, {"name": "metadata.version", "featureLevel": 7})])
    log.append([meta(2, {"name": "after", "topicId": TOPIC_B})])
    log.close()
    snap = kvlog.encode_batch([meta(2, {"name": "from-snapshot", "topicId": uuid.UUID(int=5)}),
                               meta(12, {"name": "metadata.version", "featureLevel": 20})])
    (d / f"{2:020d}-{1:010d}.checkpoint").write_bytes(snap)
    (d / f"{1:020d}-{1:010d}.checkpoint").write_bytes(b"older snapshot, never read")
    m = kvlog.cluster_metadata(tmp_path)
    assert sorted(m.topics().column("topic").to_pylist()) == ["after", "from-snapshot"]
    assert m.features == {"metadata.version": 20} and m.snapshot.endswith("00000000000000000002-0000000001.checkpoint")
    (d / f"{2:020d}-{1:010d}.checkpoint").write_bytes(snap + snap[:30])
    with pytest.raises(CorruptInternalRecordError, match="does not fit") as info:
        kvlog.cluster_metadata(tmp_path)
    assert info.value.partition == "__cluster_metadata-0"


def test_cluster_metadata_malformed_record(tmp_path):
    log = Log.open(tmp_path / "__cluster_metadata-0")
    good = meta(2, {"name": "a", "topicId": TOPIC_A})
    log.append([good, Record(None, good.value[:-5], T0), meta(2, {"name": "b", "topicId": TOPIC_B})])
    log.close()
    with pytest.raises(CorruptInternalRecordError) as info:
        kvlog.cluster_metadata(tmp_path)
    assert (info.value.partition, info.value.offset, info.value.field) == ("__cluster_metadata-0", 1, "data.topicId")
    m = kvlog.cluster_metadata(tmp_path, errors="skip")
    assert len(m.problems) == 1 and m.topics().column("topic").to_pylist() == ["a", "b"]


# ============================================================================================ failover
def topic_log(path, timestamps, lead=0):
    log = Log.open(path)
    if lead:
        log.append([Record(b"x", b"lead", T0 - 10_000 + i) for i in range(lead)])
    log.append([Record(b"k%d" % i, b"v%d" % i, ts) for i, ts in enumerate(timestamps)])
    log.close()


@pytest.fixture
def clusters(tmp_path):
    src, dst = tmp_path / "source", tmp_path / "mirror"
    ts = [T0 + i * 1000 for i in range(10)]
    topic_log(src / "orders-0", ts)
    topic_log(src / "orders-1", ts)
    topic_log(dst / "orders-0", ts, lead=3)   # the mirror's offsets are 3 ahead
    log = Log.open(src / f"{CO}-0")
    log.append([commit("g", "orders", 0, 3, T0 + 10_000), commit("g", "orders", 1, 10, T0 + 10_000)])
    log.append([commit("g", "orders", 0, 6, T0 + 20_000), commit("g", "gone", 0, 1, T0 + 20_000)])
    log.close()
    return src, dst


def test_failover_resumes_from_the_record_at_the_committed_offset(clusters):
    src, dst = clusters
    got = {(r.topic, r.partition): r for r in kvlog.failover_offsets(src, "g", dst)}
    r = got[("orders", 0)]
    # record 6 of the source has T0+6000; on the mirror it is offset 9
    assert (r.committed_offset, r.anchor, r.anchor_timestamp, r.target_offset, r.target_timestamp) == (
        6, "record", T0 + 6000, 9, T0 + 6000)
    assert got[("gone", 0)].target_offset is None
    # orders-1 is not mirrored, and its committed offset is the source's end: the commit time is the anchor
    assert got[("orders", 1)].anchor == "commit" and got[("orders", 1)].target_offset is None


def test_failover_margin_anchor_as_of_and_topic_map(clusters, tmp_path):
    src, dst = clusters
    (r,) = [x for x in kvlog.failover_offsets(src, "g", dst, margin_ms=1500) if x.topic == "orders" and x.partition == 0]
    assert (r.search_timestamp, r.target_offset, r.target_timestamp) == (T0 + 4500, 8, T0 + 5000)
    (r,) = [x for x in kvlog.failover_offsets(src, "g", dst, anchor="commit") if x.partition == 0 and x.topic == "orders"]
    assert (r.anchor_timestamp, r.target_offset, r.target_timestamp) == (T0 + 20_000, 13, -1)  # nothing that new
    (r,) = [x for x in kvlog.failover_offsets(src, "g", dst, as_of=T0 + 15_000) if x.topic == "orders" and x.partition == 0]
    assert (r.committed_offset, r.target_offset) == (3, 6)
    renamed = tmp_path / "renamed"
    topic_log(renamed / "dc2.orders-0", [T0 + i * 1000 for i in range(10)])
    (r,) = [x for x in kvlog.failover_offsets(src, "g", renamed, topic_map={"orders": "dc2.orders"})
            if x.partition == 0 and x.topic == "orders"]
    assert (r.target_topic, r.target_offset) == ("dc2.orders", 6)
    with pytest.raises(kvlog.ConfigError):
        kvlog.failover_offsets(src, "g", dst, anchor="wallclock")


# ================================================================ struct fast path vs the schema tables


def generic(key, value):
    r = decode_coordinator_record(CO, key, value)
    gtp = (r.key["group"], r.key["topic"], r.key["partition"])
    if r.value is None:
        return gtp, None
    v = r.value
    topic_id = v.get("topicId", uuid.UUID(int=0))
    return gtp, (v["offset"], v.get("leaderEpoch", -1), v["metadata"], v["commitTimestamp"],
                 v.get("expireTimestamp", -1), None if topic_id.int == 0 else topic_id_text(topic_id))


@given(st.integers(0, 4), st.sampled_from([0, 1]), st.text(max_size=70), st.text(max_size=5),
       st.integers(-(2**31), 2**31 - 1), st.integers(-(2**63), 2**63 - 1), st.text(max_size=140),
       st.booleans(), st.binary(max_size=6), st.integers(0, 40), st.sampled_from([0, 1, 2**128 - 1, 0x1234 << 64]))
@example(4, 1, "g", "t", 0, 1, "m" * 200, False, b"", 3, 0)
@example(4, 1, "g", "t", 0, 1, "m", False, b"", 29, 0x1234 << 64)
def test_fast_path_agrees_with_the_schema_tables(version, key_type, group, topic, partition, offset, metadata,
                                                 tomb, junk, cut, topic_id):
    value = {"offset": offset, "leaderEpoch": partition, "metadata": metadata, "commitTimestamp": offset ^ 5,
             "expireTimestamp": offset ^ 9, "topicId": uuid.UUID(int=topic_id)}
    k, v = encode_coordinator_record(CO, key_type, {"group": group, "topic": topic, "partition": partition},
                                     version, None if tomb else value)
    fast = fast_offset_commit(k, v)
    if fast is None:  # only a flexible value whose metadata needs a two-byte compact length
        assert version == 4 and not tomb and len(metadata.encode()) > 126
    else:
        assert fast == generic(k, v)
    # damaged or extended bytes: the fast path declines or agrees with the generic decoder
    for kk, vv in ((k, None if v is None else v + junk), (k, None if v is None else v[:cut]), (k[:cut], v)):
        got = fast_offset_commit(kk, vv)
        if got is None:
            continue
        assert got == generic(kk, vv)


# =================================================================================== transaction state
def txn(tid, status, ts, pid=1000, partitions=(("orders", [0, 1]),), *, version=1):
    k, v = encode_coordinator_record("__transaction_state", 0, {"transactionalId": tid}, version, {
        "producerId": pid, "previousProducerId": pid - 1, "producerEpoch": 2, "transactionTimeoutMs": 60000,
        "transactionStatus": status, "transactionPartitions": [{"topic": t, "partitionIds": p} for t, p in partitions],
        "transactionLastUpdateTimestampMs": ts, "transactionStartTimestampMs": ts - 5})
    return Record(k, v, ts)


def test_transaction_state_latest_per_id_tombstones_and_as_of(tmp_path):
    log = Log.open(tmp_path / "__transaction_state-2")
    log.append([txn("a", 1, T0), txn("b", 1, T0, pid=7, version=0)])
    log.append([txn("a", 2, T0 + 10), txn("a", 4, T0 + 20, partitions=())])
    k, _ = encode_coordinator_record("__transaction_state", 0, {"transactionalId": "b"})
    log.append([Record(k, None, T0 + 30)])
    log.close()
    rows_now = kvlog.transaction_state(tmp_path).to_pylist()
    assert [(r["transactional_id"], r["state"], r["partitions"]) for r in rows_now] == [("a", "CompleteCommit", [])]
    assert rows_now[0]["previous_producer_id"] == 999 and rows_now[0]["coordinator_partition"] == 2
    early = kvlog.transaction_state(tmp_path, as_of=T0 + 15).to_pylist()
    assert [(r["transactional_id"], r["state"], r["previous_producer_id"]) for r in early] == [
        ("a", "PrepareCommit", 999), ("b", "Ongoing", -1)]  # a v0 value has no tagged fields
    assert early[0]["partitions"] == [{"topic": "orders", "partition": 0}, {"topic": "orders", "partition": 1}]


# ==================================================================== roots in an object store (URIs)
def test_internal_topics_read_through_an_object_store_uri(tmp_path, kraft_segment, clusters):
    import pyarrow.fs as pafs

    from kvlog import storage

    src, dst = clusters
    meta_dir = src / "__cluster_metadata-0"
    meta_dir.mkdir()
    (meta_dir / kraft_segment.name).write_bytes(kraft_segment.read_bytes())
    (meta_dir / f"{0:020d}-{1:010d}.checkpoint").write_bytes(kvlog.encode_batch([
        meta(12, {"name": "metadata.version", "featureLevel": 19})]))
    bucket = f"s3://{tmp_path.name}"  # the object store: tmp_path's parent directory, read through pyarrow.fs
    storage.register_filesystem(bucket, pafs.SubTreeFileSystem(str(tmp_path.parent), pafs.LocalFileSystem()))
    try:
        src_uri, dst_uri = f"{bucket}/source", f"{bucket}/mirror"
        assert kvlog.consumer_offsets(src_uri).equals(kvlog.consumer_offsets(src))
        assert kvlog.consumer_offsets(f"{src_uri}/{CO}-0").equals(kvlog.consumer_offsets(src / f"{CO}-0"))
        assert kvlog.failover_offsets(src_uri, "g", dst_uri) == kvlog.failover_offsets(src, "g", dst)
        remote, local = kvlog.cluster_metadata(src_uri), kvlog.cluster_metadata(src)
        assert remote.topics().equals(local.topics()) and remote.features == local.features == {"metadata.version": 20}
        assert remote.snapshot == f"{src_uri}/__cluster_metadata-0/{0:020d}-{1:010d}.checkpoint"
    finally:
        storage.unregister_filesystem(bucket)
