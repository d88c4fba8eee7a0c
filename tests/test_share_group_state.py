"""Share groups' state (KIP-932) replayed from ``__share_group_state`` (``kvlog.share_group_state``, ``kvlog groups
--share``): records encoded with kvlog's schema tables and written with ``Log.append``, replayed by the share
coordinator's rules (Kafka 4.1.2/4.4.0's ``ShareCoordinatorShard``); the batch combiner against a per-offset
reference and against outputs of Kafka 4.4.0's own ``PersisterStateBatchCombiner``."""

import json
import uuid

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog import Log, Record
from kvlog.cli import main
from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.decoders import encode_coordinator_record, encode_metadata_record
from kvlog.internal_topics.share_group_state import combine_batches, replay, share_state_schema, topic_names

T0 = 1_700_000_000_000
SGS = "__share_group_state"
ORDERS = uuid.UUID(int=0xA1)
OTHER = uuid.UUID(int=0xB2)
ORDERS_ID = topic_id_text(ORDERS)
OTHER_ID = topic_id_text(OTHER)
AVAILABLE, ACKED, ARCHIVED = 0, 2, 4


def key(group, topic, partition):
    return {"groupId": group, "topicId": topic, "partition": partition}


def batches(*bs):
    return [{"firstOffset": first, "lastOffset": last, "deliveryState": s, "deliveryCount": c} for first, last, s, c in bs]


def snapshot(group, topic, partition, ts, *, start, leader=0, state=1, snap=0, batch=(), done=None,
             created=None):
    value = {"snapshotEpoch": snap, "stateEpoch": state, "leaderEpoch": leader, "startOffset": start,
             "createTimestamp": T0 if created is None else created, "writeTimestamp": ts,
             "stateBatches": batches(*batch)}
    if done is not None:
        value["deliveryCompleteCount"] = done
    k, v = encode_coordinator_record(SGS, 0, key(group, topic, partition), 0, value)
    return Record(k, v, ts)


def update(group, topic, partition, ts, *, start, leader=0, snap=0, batch=(), done=None):
    value = {"snapshotEpoch": snap, "leaderEpoch": leader, "startOffset": start, "stateBatches": batches(*batch)}
    if done is not None:
        value["deliveryCompleteCount"] = done
    k, v = encode_coordinator_record(SGS, 1, key(group, topic, partition), 0, value)
    return Record(k, v, ts)


def tombstone(group, topic, partition, ts, record_type=0):
    k, _ = encode_coordinator_record(SGS, record_type, key(group, topic, partition))
    return Record(k, None, ts)


def write(root, records, n=0):
    log = Log.open(root / f"{SGS}-{n}")
    for r in records:
        log.append([r])   # one record a batch, as the share coordinator writes them
    log.close()


def rows(table):
    return {(r["group"], r["topic_id"], r["partition"]): r for r in table.to_pylist()}


def spans(row):
    return [(b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"])
            for b in row["state_batches"]]


def ms(value):
    return None if value is None else int(value.timestamp() * 1000)


def test_snapshot_then_updates(tmp_path):
    write(tmp_path, [
        snapshot("g", ORDERS, 0, T0, start=-1, leader=3, state=2, snap=1),          # initialised, no start offset
        update("g", ORDERS, 0, T0 + 10, start=0, leader=3, snap=1,
               batch=[(0, 9, ACKED, 1), (10, 19, AVAILABLE, 1)], done=10),
        update("g", ORDERS, 0, T0 + 20, start=-1, leader=-1, snap=7,              # -1: unchanged
               batch=[(10, 14, ACKED, 1)], done=15),
        update("g", ORDERS, 0, T0 + 30, start=15, leader=4, snap=1, batch=[(20, 24, AVAILABLE, 1)], done=0),
    ])
    table = kvlog.share_group_state(tmp_path)
    assert table.schema == share_state_schema()
    (row,) = table.to_pylist()
    assert (row["group"], row["topic_id"], row["partition"], row["topic"]) == ("g", ORDERS_ID, 0, None)
    assert (row["start_offset"], row["leader_epoch"], row["state_epoch"], row["snapshot_epoch"]) == (15, 4, 2, 1)
    assert row["delivery_complete_count"] == 0
    # offsets below 15 are gone; 15..19 stayed available, 20..24 joined them (same count and state)
    assert spans(row) == [(15, 24, AVAILABLE, 1)]
    assert (row["record_offset"], ms(row["record_timestamp"])) == (3, T0 + 30)
    assert (ms(row["create_timestamp"]), ms(row["write_timestamp"])) == (T0, T0)   # the snapshot's
    assert row["coordinator_partition"] == 0


def test_start_offset_minus_one_and_leader_epoch_minus_one_keep_the_state(tmp_path):
    write(tmp_path, [
        snapshot("g", ORDERS, 0, T0, start=40, leader=5, batch=[(40, 49, AVAILABLE, 1)]),
        update("g", ORDERS, 0, T0 + 1, start=-1, leader=-1, batch=[(45, 49, ACKED, 1)]),
    ])
    (row,) = kvlog.share_group_state(tmp_path).to_pylist()
    assert (row["start_offset"], row["leader_epoch"]) == (40, 5)
    assert spans(row) == [(40, 44, AVAILABLE, 1), (45, 49, ACKED, 1)]
    assert row["delivery_complete_count"] is None   # no KIP-1226 count in these records: -1


def test_batches_trimmed_below_the_start_offset(tmp_path):
    write(tmp_path, [
        snapshot("g", ORDERS, 0, T0, start=0, batch=[(0, 9, ACKED, 1), (10, 29, AVAILABLE, 2), (30, 39, ACKED, 1)]),
        update("g", ORDERS, 0, T0 + 1, start=15, batch=[]),   # 0..9 dropped, 10..29 cut to 15..29
    ])
    (row,) = kvlog.share_group_state(tmp_path).to_pylist()
    assert row["start_offset"] == 15
    assert spans(row) == [(15, 29, AVAILABLE, 2), (30, 39, ACKED, 1)]


def test_overlaps_take_the_highest_delivery_count_then_state_not_the_newest(tmp_path):
    write(tmp_path, [
        snapshot("g", ORDERS, 0, T0, start=0, batch=[(0, 19, AVAILABLE, 3)]),
        # a newer batch with a lower delivery count loses; with the same count, the higher state wins
        update("g", ORDERS, 0, T0 + 1, start=-1, batch=[(5, 9, ACKED, 1), (10, 14, ARCHIVED, 3)]),
    ])
    (row,) = kvlog.share_group_state(tmp_path).to_pylist()
    assert spans(row) == [(0, 9, AVAILABLE, 3), (10, 14, ARCHIVED, 3), (15, 19, AVAILABLE, 3)]


def test_a_snapshot_replaces_the_state_whole(tmp_path):
    write(tmp_path, [
        snapshot("g", ORDERS, 0, T0, start=0, leader=1, state=1, batch=[(0, 9, AVAILABLE, 1)]),
        update("g", ORDERS, 0, T0 + 1, start=-1, batch=[(10, 19, ACKED, 1)]),
        # as written: batches not combined (overlapping, below the start offset), epochs and timestamps its own
        snapshot("g", ORDERS, 0, T0 + 2, start=30, leader=2, state=3, snap=1, done=4, created=T0 + 2,
                 batch=[(20, 35, ACKED, 1), (33, 40, AVAILABLE, 2)]),
    ])
    (row,) = kvlog.share_group_state(tmp_path).to_pylist()
    assert (row["start_offset"], row["leader_epoch"], row["state_epoch"], row["snapshot_epoch"]) == (30, 2, 3, 1)
    assert row["delivery_complete_count"] == 4
    assert spans(row) == [(20, 35, ACKED, 1), (33, 40, AVAILABLE, 2)]
    assert ms(row["create_timestamp"]) == T0 + 2 and row["record_offset"] == 2


def test_deletion_tombstone_removes_the_share_partition(tmp_path):
    write(tmp_path, [
        snapshot("g", ORDERS, 0, T0, start=5, batch=[(5, 9, AVAILABLE, 1)]),
        snapshot("g", ORDERS, 1, T0, start=7),
        snapshot("h", ORDERS, 0, T0, start=1),
        tombstone("g", ORDERS, 0, T0 + 1),           # DeleteShareGroupState of g's partition 0
        update("g", ORDERS, 0, T0 + 2, start=50, leader=1, batch=[(50, 51, ACKED, 1)]),   # begins anew
        tombstone("h", ORDERS, 0, T0 + 3),
    ])
    got = rows(kvlog.share_group_state(tmp_path))
    assert set(got) == {("g", ORDERS_ID, 0), ("g", ORDERS_ID, 1)}
    # a state begun by an update: state epoch 0, batches as written, no timestamps
    row = got[("g", ORDERS_ID, 0)]
    assert (row["start_offset"], row["state_epoch"], row["create_timestamp"], row["write_timestamp"]) == (50, 0, None, None)
    assert spans(row) == [(50, 51, ACKED, 1)]


def test_as_of_group_and_coordinator_partitions(tmp_path):
    write(tmp_path, [snapshot("g", ORDERS, 0, T0, start=0),
                     update("g", ORDERS, 0, T0 + 100, start=10),
                     tombstone("g", ORDERS, 0, T0 + 200)], n=0)
    write(tmp_path, [snapshot("h", OTHER, 3, T0 + 50, start=4),
                     snapshot("g", OTHER, 1, T0 + 50, start=6)], n=2)

    def at(t, **kw):
        return {k: r["start_offset"] for k, r in rows(kvlog.share_group_state(tmp_path, as_of=t, **kw)).items()}

    assert at(T0 - 1) == {}
    assert at(T0) == {("g", ORDERS_ID, 0): 0}
    assert at(T0 + 150) == {("g", ORDERS_ID, 0): 10, ("h", OTHER_ID, 3): 4, ("g", OTHER_ID, 1): 6}
    assert at(T0 + 200) == {("h", OTHER_ID, 3): 4, ("g", OTHER_ID, 1): 6}
    assert at(T0 + 150, group="g") == {("g", ORDERS_ID, 0): 10, ("g", OTHER_ID, 1): 6}
    table = kvlog.share_group_state(tmp_path, as_of=T0 + 150)
    assert [(r["group"], r["coordinator_partition"]) for r in table.to_pylist()] == [("g", 0), ("g", 2), ("h", 2)]
    assert kvlog.share_group_state(tmp_path / f"{SGS}-2").num_rows == 2   # one partition directory as the root
    assert kvlog.share_group_state(tmp_path, group="nobody").num_rows == 0


def test_topic_names_from_partition_metadata_and_the_kraft_metadata(tmp_path):
    write(tmp_path, [snapshot("g", ORDERS, 0, T0, start=0), snapshot("g", OTHER, 0, T0, start=0),
                     snapshot("g", uuid.UUID(int=0xC3), 0, T0, start=0)])
    Log.open(tmp_path / "orders-0", topic_id=ORDERS_ID).close()
    meta = Log.open(tmp_path / "__cluster_metadata-0")
    meta.append([Record(None, encode_metadata_record(2, 0, {"name": "other", "topicId": OTHER}), T0)])
    meta.close()
    got = {r["topic_id"]: r["topic"] for r in kvlog.share_group_state(tmp_path).to_pylist()}
    assert got == {ORDERS_ID: "orders", OTHER_ID: "other", topic_id_text(uuid.UUID(int=0xC3)): None}
    assert topic_names(tmp_path / f"{SGS}-0") == {}   # a partition directory names nothing
    # a damaged partition.metadata names nothing and is not fatal: the name is best effort
    (tmp_path / "orders-0" / "partition.metadata").write_text("version: 0\ntopic_id: nonsense")
    assert {r["topic"] for r in kvlog.share_group_state(tmp_path).to_pylist()} == {None, "other"}


def test_damaged_records_raise_or_are_skipped(tmp_path):
    good = snapshot("g", ORDERS, 0, T0, start=0)
    write(tmp_path, [good, Record(good.key, good.value[:-6], T0), tombstone("g", ORDERS, 1, T0, record_type=1),
                     Record(b"\x00\x07junk", b"\x00\x00", T0),
                     snapshot("g", ORDERS, 2, T0, start=0, batch=[(9, 3, AVAILABLE, 1)]),
                     snapshot("g", ORDERS, 3, T0, start=8)])
    with pytest.raises(CorruptInternalRecordError) as info:
        kvlog.share_group_state(tmp_path)
    assert (info.value.partition, info.value.offset) == (f"{SGS}-0", 1)
    [state] = replay(tmp_path, errors="skip")
    assert sorted(state.states) == [("g", ORDERS_ID, 0), ("g", ORDERS_ID, 3)]
    assert len(state.problems) == 4
    assert "ShareUpdate tombstone" in state.problems[1] and "unknown record type 7" in state.problems[2]
    assert "value.stateBatches[0]" in state.problems[3]
    assert kvlog.share_group_state(tmp_path, errors="skip").num_rows == 2
    with pytest.raises(ValueError, match="errors must be"):
        kvlog.share_group_state(tmp_path, errors="ignore")


def test_no_share_state_topic(tmp_path):
    assert kvlog.share_group_state(tmp_path).equals(share_state_schema().empty_table())
    with pytest.raises(kvlog.DirectoryNotFoundError):
        kvlog.share_group_state(tmp_path / "missing")


# ------------------------------------------------------------------------------------------ the combiner
# inputs and Kafka 4.4.0's PersisterStateBatchCombiner(batchesSoFar, newBatches, startOffset).combineStateBatches()
KAFKA_44 = [
    (-1, [(2, 7, 4, 3), (9, 9, 4, 2), (12, 15, 4, 3), (18, 24, 4, 2), (25, 25, 2, 3)],
     [(11, 15, 4, 2), (10, 20, 4, 2), (3, 13, 2, 2)],
     [(2, 7, 4, 3), (8, 8, 2, 2), (9, 11, 4, 2), (12, 15, 4, 3), (16, 24, 4, 2), (25, 25, 2, 3)]),
    (22, [(24, 32, 4, 3)], [(20, 24, 2, 2), (4, 4, 4, 2), (13, 23, 4, 3)], [(22, 32, 4, 3)]),
    (-1, [(22, 29, 0, 1), (13, 19, 0, 2), (17, 23, 0, 3)],
     [(3, 4, 4, 2), (7, 9, 2, 2), (10, 16, 0, 3), (19, 20, 0, 1), (23, 26, 0, 3)],
     [(3, 4, 4, 2), (7, 9, 2, 2), (10, 26, 0, 3), (27, 29, 0, 1)]),
    (0, [(5, 15, 2, 2), (10, 19, 0, 1), (19, 28, 4, 2), (1, 6, 0, 1)], [(8, 11, 4, 1), (12, 18, 4, 2), (20, 21, 2, 3)],
     [(1, 4, 0, 1), (5, 11, 2, 2), (12, 19, 4, 2), (20, 21, 2, 3), (22, 28, 4, 2)]),
    (10, [(3, 12, 4, 2), (15, 18, 0, 2), (7, 15, 4, 3), (16, 23, 4, 1), (23, 27, 0, 2)], [(23, 23, 4, 3), (24, 31, 4, 3)],
     [(10, 15, 4, 3), (16, 18, 0, 2), (19, 22, 4, 1), (23, 31, 4, 3)]),
    (40, [(3, 12, 4, 2)], [(20, 21, 2, 3)], []),
    (5, [(3, 12, 4, 2)], [], [(5, 12, 4, 2)]),   # one batch left: trimmed, not merged
]


@pytest.mark.parametrize("start, so_far, new, want", KAFKA_44)
def test_combine_batches_equals_kafka_44(start, so_far, new, want):
    assert combine_batches(so_far, new, start) == want


span = st.tuples(st.integers(0, 40), st.integers(0, 8), st.sampled_from([0, 2, 4]), st.integers(1, 3)).map(
    lambda t: (t[0], t[0] + t[1], t[2], t[3]))


@given(st.lists(span, max_size=6), st.lists(span, max_size=6), st.sampled_from([-1, 0, 5, 20, 45]))
def test_combine_batches_per_offset(so_far, new, start):
    """Every offset at or past the start offset takes the highest (count, state) covering it; nothing else
    is covered; neighbours of the same count and state are one batch."""
    got = combine_batches(so_far, new, start)
    want: dict[int, tuple[int, int]] = {}
    for first, last, s, c in [*so_far, *new]:
        for o in range(max(first, start), last + 1):
            want[o] = max(want.get(o, (c, s)), (c, s))
    have = {o: (c, s) for first, last, s, c in got for o in range(first, last + 1)}
    assert have == want and sum(last - first + 1 for first, last, _, _ in got) == len(have)
    assert all(a[1] < b[0] for a, b in zip(got, got[1:]))
    if len(so_far) + len(new) > 1 or not all(f >= start for f, *_ in [*so_far, *new]):
        assert all(a[1] + 1 < b[0] or (a[2], a[3]) != (b[2], b[3]) for a, b in zip(got, got[1:]))


def test_table_types():
    schema = share_state_schema()
    assert schema.field("state_batches").type == pa.list_(pa.field("item", pa.struct([
        pa.field("first_offset", pa.int64(), nullable=False), pa.field("last_offset", pa.int64(), nullable=False),
        pa.field("delivery_state", pa.int8(), nullable=False), pa.field("delivery_count", pa.int16(), nullable=False),
    ]), nullable=False))
    assert [f.name for f in schema][:4] == ["group", "topic", "topic_id", "partition"]


# ---------------------------------------------------------------------------------------- kvlog groups --share
def run(capfd, *argv):
    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out.splitlines(), err.splitlines()


def test_groups_share_cli(tmp_path, capfd):
    write(tmp_path, [
        snapshot("sg", ORDERS, 0, T0, start=-1, state=1),
        snapshot("sg", ORDERS, 1, T0, start=-1, state=1),
        update("sg", ORDERS, 0, T0 + 1, start=4, batch=[(4, 5, ACKED, 1), (6, 9, AVAILABLE, 1)], done=2),
        snapshot("old", OTHER, 0, T0, start=3),
    ])
    log = Log.open(tmp_path / "orders-0", topic_id=ORDERS_ID)
    log.append([Record(None, b"v", T0)] * 12)
    log.close()
    rc, out, err = run(capfd, "groups", tmp_path, "--share")
    assert (rc, err) == (0, [])
    assert [ln.split() for ln in out] == [
        ["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LOG-END-OFFSET", "LAG", "LEADER-EPOCH", "STATE-EPOCH",
         "IN-FLIGHT-BATCHES"],
        ["old", OTHER_ID, "0", "3", "-", "-", "0", "1", "0"],        # no name, no copy of the partition here
        ["sg", "orders", "0", "4", "12", "6", "0", "1", "2"],        # lag: 12 - 4 - 2 delivered
        ["sg", "orders", "1", "-", "-", "-", "0", "1", "0"],         # initialised, never consumed
    ]
    rc, out, _ = run(capfd, "groups", tmp_path, "--share", "--json", "--group", "sg")
    first = json.loads(out[0])
    assert (first["topic"], first["start_offset"], first["log_end_offset"], first["lag"]) == ("orders", 4, 12, 6)
    assert first["state_batches"][0] == {"first_offset": 4, "last_offset": 5, "delivery_state": 2,
                                         "delivery_count": 1, "delivery_state_name": "Acknowledged"}
    assert first["record_timestamp"] == T0 + 1 and len(out) == 2
    rc, out, _ = run(capfd, "groups", tmp_path, "--share", "--as-of", T0)
    assert out[2].split()[3] == "-"   # before the update: no start offset yet
    rc, out, err = run(capfd, "groups", tmp_path, "--share", "--group", "nobody")
    assert (rc, out, err) == (1, [], [f"kvlog: share group 'nobody' has no share-partition state in {tmp_path}"])


def test_groups_names_share_groups_instead_of_calling_them_empty(tmp_path, capfd):
    write(tmp_path, [snapshot("sg", ORDERS, 0, T0, start=0)])
    k, v = encode_coordinator_record("__consumer_offsets", 11, {"groupId": "sg"}, 0, {"epoch": 1, "metadataHash": 0})
    log = Log.open(tmp_path / "__consumer_offsets-0")
    log.append([Record(k, v, T0)])
    log.close()
    rc, out, err = run(capfd, "groups", tmp_path)
    assert (rc, out) == (0, [])
    assert err == ["kvlog: 'sg' is a share group: its state is in __share_group_state (kvlog groups --share)"]
