"""``__remote_log_metadata``: the record codec, ``kvlog dump --remote-log-metadata-decoder`` and the replay.

The records are written by a second encoder, in this file, driven by ``tests/data/remote_log_metadata_specs.json``
(kvlog's rendition of Kafka's ``Remote*Record.json`` specs, transcribed from the spec text independently
of ``schemas_remote.py``), so that the tables kvlog decodes with are checked against the specs rather
than against themselves. Expected dump lines are written out by hand from the Java ``toString`` methods
of ``RemoteLogSegmentMetadata``, ``RemoteLogSegmentMetadataUpdate``, ``RemotePartitionDeleteMetadata``
and ``RemoteLogSegmentMetadataSnapshot``; expected replays follow ``RemoteLogMetadataCache`` and
``RemoteLogLeaderEpochState``.
"""

import struct
import uuid

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvlog
from kvlog import Log, Record
from kvlog.cli import main
from kvlog.errors import CorruptInternalRecordError, DirectoryNotFoundError
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.decoders import (
    InternalTopic,
    UnknownSchemaError,
    decode_remote_log_metadata_record,
    encode_remote_log_metadata_record,
)
from kvlog.internal_topics.dump_format import remote_log_metadata_text
from kvlog.internal_topics.remote_log_metadata import RemoteLogMetadata, replay_remote_log_metadata
from kvlog.internal_topics.schemas_remote import REMOTE_LOG_METADATA_RECORDS, SEGMENT_STATES

TOPIC_ID = uuid.UUID("00000000-0000-4000-8000-0000000000a1")
SEG = [uuid.UUID(int=(7 << 64) + i) for i in range(8)]
T0 = 1_700_000_000_000


# the independent, spec-driven writer (tests/rlmm_spec.py)
from rlmm_spec import SPECS, _default, _in, _json_name, _uvarint, spec_encode  # noqa: E402,F401


# ------------------------------------------------------------------------------ sample records
def tip(partition=0, name="orders"):
    return {"name": name, "id": TOPIC_ID, "partition": partition}


def seg_id(i, partition=0):
    return {"topicIdPartition": tip(partition), "id": SEG[i]}


def segment(i, start, end, state=0, epochs=((0, None),), partition=0, size=1000, custom=None, txn_empty=False,
            version=0, **extra):
    d = {"remoteLogSegmentId": seg_id(i, partition), "startOffset": start, "endOffset": end, "brokerId": 1,
         "maxTimestampMs": T0 + end, "eventTimestampMs": T0 + 10 * i, "segmentSizeInBytes": size,
         "segmentLeaderEpochs": [{"leaderEpoch": e, "offset": start if o is None else o} for e, o in epochs],
         "customMetadata": custom, "remoteLogSegmentState": state, "txnIndexEmpty": txn_empty, **extra}
    return (0, version, d)


def update(i, state, partition=0, custom=None, broker=2, version=0, **extra):
    return (1, version, {"remoteLogSegmentId": seg_id(i, partition), "brokerId": broker,
                         "eventTimestampMs": T0 + 100 + i, "customMetadata": custom,
                         "remoteLogSegmentState": state, **extra})


def partition_delete(state, partition=0, version=0, **extra):
    return (2, version, {"topicIdPartition": tip(partition), "brokerId": 3, "eventTimestampMs": T0 + 500,
                         "remotePartitionDeleteState": state, **extra})


def snapshot(i, version=0, **extra):
    return (3, version, {"segmentId": SEG[i], "startOffset": 0, "endOffset": 99, "brokerId": 1,
                         "maxTimestampMs": T0, "eventTimestampMs": T0 + 1, "segmentSizeInBytes": 4096,
                         "segmentLeaderEpochs": [{"leaderEpoch": 0, "offset": 0}, {"leaderEpoch": 2, "offset": 50}],
                         "customMetadata": b"abc", "remoteLogSegmentState": 1, **extra})


SAMPLES = [
    segment(0, 0, 99),
    segment(1, 100, 199, epochs=((1, 100), (3, 150)), custom=b"\x01\x02", txn_empty=True),
    segment(2, 0, 99, version=1, brokerLeaderEpoch=7, txnIndexEmpty=True),
    update(0, 1),
    update(0, 2, custom=b"xyz", version=1, brokerLeaderEpoch=4, endOffset=99),
    update(0, 3, version=1),
    partition_delete(0),
    partition_delete(2, version=1, brokerLeaderEpoch=5, endOffset=1234),
    snapshot(3),
    snapshot(4, version=1, txnIndexEmpty=True, brokerLeaderEpoch=9),
]


def test_the_tables_hold_every_record_and_version_of_the_specs():
    assert sorted(REMOTE_LOG_METADATA_RECORDS) == sorted(s["apiKey"] for s in SPECS) == [0, 1, 2, 3]
    for s in SPECS:
        msg = REMOTE_LOG_METADATA_RECORDS[s["apiKey"]]
        assert msg.name == s["name"] and str(msg.valid) == s["validVersions"]
        assert str(msg.flexible) == s["flexibleVersions"]

        def same(fields, spec_fields):
            assert [x.name for x in fields] == [y["name"] for y in spec_fields]
            for x, y in zip(fields, spec_fields):
                assert str(x.versions) == y["versions"], x.name
                assert str(x.nullable) == y.get("nullable", "none"), x.name
                assert x.tag == y.get("tag") and str(x.tagged) == y.get("tagged", "none"), x.name
                if "fields" in y:
                    same(x.fields, y["fields"])
                else:
                    assert x.type == y["type"], x.name
        same(msg.fields, s["fields"])


@pytest.mark.parametrize("api_key,version,data", SAMPLES)
def test_every_record_type_and_version_round_trips_against_the_spec_writer(api_key, version, data):
    raw = spec_encode(api_key, version, data)
    assert encode_remote_log_metadata_record(api_key, version, data) == raw
    r = decode_remote_log_metadata_record(raw, partition="__remote_log_metadata-0", offset=5)
    assert (r.api_key, r.version) == (api_key, version)
    spec = next(s for s in SPECS if s["apiKey"] == api_key)
    for fd in spec["fields"]:
        if _in(fd["versions"], version):
            assert r.data[_json_name(fd["name"])] == data.get(_json_name(fd["name"]), _default(fd)), fd["name"]
    assert r.type_name == {0: "REMOTE_LOG_SEGMENT_METADATA_RECORD", 1: "REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD",
                           2: "REMOTE_PARTITION_DELETE_METADATA_RECORD",
                           3: "REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD"}[api_key]


def test_a_segment_record_byte_for_byte():
    raw = encode_remote_log_metadata_record(*segment(0, 5, 9, txn_empty=True))
    body = (b"\x07orders" + TOPIC_ID.bytes + struct.pack(">i", 0) + b"\x00" + SEG[0].bytes + b"\x00"
            + struct.pack(">qqiqq", 5, 9, 1, T0 + 9, T0) + b"\x02" + struct.pack(">iq", 0, 5) + b"\x00"
            + struct.pack(">i", 1000) + b"\x00" + b"\x00" + b"\x01\x00\x01\x01")
    assert raw == b"\x01\x00\x00" + body
    assert InternalTopic("__remote_log_metadata") is InternalTopic.REMOTE_LOG_METADATA


def test_damaged_bytes_are_typed_errors_naming_partition_offset_and_field():
    raw = encode_remote_log_metadata_record(*segment(0, 0, 99))
    for cut in range(len(raw)):
        with pytest.raises(CorruptInternalRecordError) as e:
            decode_remote_log_metadata_record(raw[:cut], partition="__remote_log_metadata-3", offset=17)
        assert e.value.partition == "__remote_log_metadata-3" and e.value.offset == 17
        assert "partition __remote_log_metadata-3" in str(e.value) and "offset 17" in str(e.value)
    with pytest.raises(CorruptInternalRecordError, match="field data.remoteLogSegmentId.topicIdPartition.name"):
        decode_remote_log_metadata_record(raw[:3] + b"\x7f" + raw[4:], partition="p", offset=1)
    with pytest.raises(CorruptInternalRecordError, match="bytes left after"):
        decode_remote_log_metadata_record(raw + b"\x00", partition="p", offset=1)
    with pytest.raises(CorruptInternalRecordError, match="frame version 2"):
        decode_remote_log_metadata_record(b"\x02" + raw[1:])
    with pytest.raises(UnknownSchemaError, match="record type 9"):
        decode_remote_log_metadata_record(b"\x01\x09\x00" + raw[3:])
    with pytest.raises(UnknownSchemaError, match="unknown version 2"):
        decode_remote_log_metadata_record(b"\x01\x00\x02" + raw[3:])
    with pytest.raises(CorruptInternalRecordError, match="without a value"):
        decode_remote_log_metadata_record(None, partition="p", offset=0)


# ---------------------------------------------------------------------------------------- replay
def write_partition(root, n, records):
    log = Log.open(root / f"__remote_log_metadata-{n}")
    log.append([Record(None, spec_encode(*r), T0) for r in records])
    log.close()


def replay(tmp_path, records, **kw):
    write_partition(tmp_path, 0, records)
    return [{k: row[k] for k in ("segment_id", "start_offset", "end_offset", "state", "in_log", "reason")}
            for row in kvlog.remote_log_metadata(tmp_path, **kw).to_pylist()]


def sid(i):
    return topic_id_text(SEG[i])


def test_copy_started_only_is_not_part_of_the_log(tmp_path):
    assert replay(tmp_path, [segment(0, 0, 99)]) == [
        {"segment_id": sid(0), "start_offset": 0, "end_offset": 99, "state": "COPY_SEGMENT_STARTED",
         "in_log": False, "reason": "copy not finished"}]


def test_finished_copy_is_part_of_the_log_with_every_column(tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99, epochs=((0, None), (2, 40)), txn_empty=True),
                                  update(0, 1, custom=b"cm")])
    t = kvlog.remote_log_metadata(tmp_path)
    assert t.schema.field("leader_epochs").type == pa.map_(pa.int32(), pa.int64())
    assert t.to_pylist() == [{
        "topic_id": topic_id_text(TOPIC_ID), "topic": "orders", "partition": 0, "segment_id": sid(0),
        "start_offset": 0, "end_offset": 99, "state": "COPY_SEGMENT_FINISHED", "leader_epochs": [(0, 0), (2, 40)],
        "broker_id": 2, "event_timestamp": T0 + 100, "max_timestamp": T0 + 99, "segment_size": 1000,
        "custom_metadata": b"cm", "txn_index_empty": True, "in_log": True, "reason": None,
        "metadata_partition": 0, "metadata_offset": 1}]


def test_delete_started_and_finished_leave_the_log(tmp_path):
    rows = replay(tmp_path, [segment(0, 0, 99), update(0, 1), segment(1, 100, 199), update(1, 1), update(0, 2),
                             segment(2, 200, 299), update(2, 1), update(2, 2), update(2, 3)])
    assert [(r["segment_id"], r["state"], r["in_log"], r["reason"]) for r in rows] == [
        (sid(0), "DELETE_SEGMENT_STARTED", False, "delete started"),
        (sid(1), "COPY_SEGMENT_FINISHED", True, None),
        (sid(2), "DELETE_SEGMENT_FINISHED", False, "deleted")]


def test_a_deleted_partition_leaves_the_log_and_drops_later_records(tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), update(0, 1), segment(1, 0, 9, partition=1),
                                  update(1, 1, partition=1), partition_delete(0), partition_delete(1),
                                  segment(2, 100, 199, partition=1)])
    write_partition(tmp_path, 1, [partition_delete(2, partition=1), segment(3, 100, 199, partition=1)])
    state = replay_remote_log_metadata(tmp_path)
    rows = state.segments().to_pylist()
    assert [(r["partition"], r["segment_id"], r["in_log"], r["reason"]) for r in rows] == [
        (0, sid(0), False, "partition deletion: DELETE_PARTITION_STARTED"),
        (1, sid(1), False, "partition deletion: DELETE_PARTITION_FINISHED"),
        (1, sid(2), False, "partition deletion: DELETE_PARTITION_FINISHED")]
    assert len(state.problems) == 1 and "__remote_log_metadata-1 offset 1" in state.problems[0]
    assert "DELETE_PARTITION_FINISHED" in state.problems[0]


def test_illegal_transitions_are_dropped_as_the_broker_drops_them(tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), update(0, 3), update(0, 1), update(0, 1),
                                  update(5, 1), segment(0, 0, 99)])
    state = replay_remote_log_metadata(tmp_path)
    rows = state.segments().to_pylist()
    assert [(r["state"], r["in_log"], r["metadata_offset"]) for r in rows] == [("COPY_SEGMENT_FINISHED", True, 3)]
    assert [p.split(": ", 1)[1] for p in state.problems] == [
        f"dropped the transition of segment {sid(0)} from COPY_SEGMENT_STARTED to DELETE_SEGMENT_FINISHED "
        "(not allowed)",
        f"dropped the update of segment {sid(5)} to COPY_SEGMENT_FINISHED: no metadata for it in the cache",
        f"dropped the transition of segment {sid(0)} from COPY_SEGMENT_FINISHED to COPY_SEGMENT_STARTED "
        "(not allowed)"]


def test_a_repeated_copy_started_replaces_the_metadata_and_a_later_one_is_dropped(tmp_path):
    rows = replay(tmp_path, [segment(0, 0, 50), segment(0, 0, 99), update(0, 1)])
    assert [(r["end_offset"], r["in_log"]) for r in rows] == [(99, True)]


def test_duplicate_uploads_of_one_epoch_supersede_the_earlier_segment(tmp_path):
    # RemoteLogLeaderEpochState's cases: a new leader re-uploads 0-200 over a lagging leader's 0-100 (S0
    # superseded); an overlapping upload 5-100 takes 10-90's slot; a segment of a later epoch beside them
    rows = replay(tmp_path, [segment(0, 0, 100), update(0, 1), segment(1, 0, 200), update(1, 1),
                             segment(2, 201, 300, epochs=((1, None),)), update(2, 1)])
    assert [(r["segment_id"], r["in_log"], r["reason"]) for r in rows] == [
        (sid(0), False, f"superseded by {sid(1)}"), (sid(1), True, None), (sid(2), True, None)]


def test_a_segment_is_kept_for_an_epoch_it_still_holds(tmp_path):
    # S0 holds epochs 0 (0-49) and 1 (50-99); S1 re-uploads epoch 1 only from 50: S0 keeps epoch 0
    rows = replay(tmp_path, [segment(0, 0, 99, epochs=((0, 0), (1, 50))), update(0, 1),
                             segment(1, 50, 150, epochs=((1, 50),)), update(1, 1)])
    assert [(r["segment_id"], r["in_log"]) for r in rows] == [(sid(0), True), (sid(1), True)]


def test_records_the_broker_refuses_raise_or_are_skipped(tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), segment(1, 0, 9, state=1), snapshot(2), update(0, 7)])
    with pytest.raises(CorruptInternalRecordError) as e:
        kvlog.remote_log_metadata(tmp_path)
    assert (e.value.partition, e.value.offset, e.value.field) == ("__remote_log_metadata-0", 1,
                                                                  "data.remoteLogSegmentState")
    state = replay_remote_log_metadata(tmp_path, errors="skip")
    assert [r["segment_id"] for r in state.segments().to_pylist()] == [sid(0)]
    assert len(state.problems) == 3 and "offset 2" in state.problems[1] and "offset 3" in state.problems[2]


def test_damaged_record_bytes_in_a_partition_name_partition_and_offset(tmp_path):
    good = spec_encode(*segment(0, 0, 99))
    log = Log.open(tmp_path / "__remote_log_metadata-4")
    log.append([Record(None, good, T0), Record(None, good[:20], T0)])
    log.close()
    with pytest.raises(CorruptInternalRecordError) as e:
        kvlog.remote_log_metadata(tmp_path)
    assert (e.value.partition, e.value.offset) == ("__remote_log_metadata-4", 1)
    assert "partition __remote_log_metadata-4, offset 1, field data." in str(e.value)
    state = replay_remote_log_metadata(tmp_path, errors="skip")
    assert len(state.problems) == 1 and state.segments().num_rows == 1


def test_no_partition_directory_is_a_typed_error(tmp_path):
    with pytest.raises(DirectoryNotFoundError):
        kvlog.remote_log_metadata(tmp_path)


# ------------------------------------------------------------------------------------------ dump
def dump_payloads(tmp_path, capfd, records, *extra):
    d = tmp_path / "__remote_log_metadata-0"
    log = Log.open(d)
    log.append([Record(None, v, T0) for v in records])
    log.close()
    rc = main(["dump", "--remote-log-metadata-decoder", *extra, "--files", str(d / "00000000000000000000.log")])
    out, err = capfd.readouterr()
    assert rc == 0, err
    return [ln for ln in out.splitlines() if "payload:" in ln]


TIP_TEXT = "AAAAAAAAQACAAAAAAAAAoQ:orders-0"


def test_dump_prints_the_java_objects_to_string(tmp_path, capfd):
    lines = dump_payloads(tmp_path, capfd, [spec_encode(*r) for r in (
        segment(1, 100, 199, epochs=((3, 150), (1, 100)), custom=b"\x01\x02", txn_empty=True),
        segment(2, 0, 99, version=1, brokerLeaderEpoch=7),
        update(0, 1), update(0, 2, custom=b"xyz", version=1, brokerLeaderEpoch=4, endOffset=99),
        partition_delete(0), partition_delete(2, version=1, brokerLeaderEpoch=5, endOffset=1234),
        snapshot(3))])
    payloads = [ln.split(" payload: ", 1)[1] for ln in lines]
    assert payloads == [
        "RemoteLogSegmentMetadata{remoteLogSegmentId=RemoteLogSegmentId{topicIdPartition="
        "AAAAAAAAQACAAAAAAAAAoQ:orders-0, id=AAAAAAAAAAcAAAAAAAAAAQ}, startOffset=100, endOffset=199, brokerId=1, "
        "maxTimestampMs=1700000000199, eventTimestampMs=1700000000010, segmentLeaderEpochs={1=100, 3=150}, "
        "segmentSizeInBytes=1000, customMetadata=Optional[CustomMetadata{2 bytes}], state=COPY_SEGMENT_STARTED, "
        "txnIdxEmpty=true}",
        "RemoteLogSegmentMetadata{remoteLogSegmentId=RemoteLogSegmentId{topicIdPartition="
        "AAAAAAAAQACAAAAAAAAAoQ:orders-0, id=AAAAAAAAAAcAAAAAAAAAAg}, startOffset=0, endOffset=99, brokerId=1, "
        "maxTimestampMs=1700000000099, eventTimestampMs=1700000000020, segmentLeaderEpochs={0=0}, "
        "segmentSizeInBytes=1000, customMetadata=Optional.empty, state=COPY_SEGMENT_STARTED, txnIdxEmpty=false}",
        "RemoteLogSegmentMetadataUpdate{remoteLogSegmentId=RemoteLogSegmentId{topicIdPartition="
        "AAAAAAAAQACAAAAAAAAAoQ:orders-0, id=AAAAAAAAAAcAAAAAAAAAAA}, customMetadata=Optional.empty, "
        "state=COPY_SEGMENT_FINISHED, eventTimestampMs=1700000000100, brokerId=2}",
        "RemoteLogSegmentMetadataUpdate{remoteLogSegmentId=RemoteLogSegmentId{topicIdPartition="
        "AAAAAAAAQACAAAAAAAAAoQ:orders-0, id=AAAAAAAAAAcAAAAAAAAAAA}, customMetadata=Optional[CustomMetadata{3 bytes}], "
        "state=DELETE_SEGMENT_STARTED, eventTimestampMs=1700000000100, brokerId=2}",
        "RemotePartitionDeleteMetadata{topicPartition=AAAAAAAAQACAAAAAAAAAoQ:orders-0, state=DELETE_PARTITION_MARKED, "
        "eventTimestampMs=1700000000500, brokerId=3}",
        "RemotePartitionDeleteMetadata{topicPartition=AAAAAAAAQACAAAAAAAAAoQ:orders-0, "
        "state=DELETE_PARTITION_FINISHED, eventTimestampMs=1700000000500, brokerId=3}",
        "RemoteLogSegmentMetadataSnapshot{segmentId=AAAAAAAAAAcAAAAAAAAAAw, startOffset=0, endOffset=99, "
        "maxTimestampMs=1700000000000, segmentLeaderEpochs={0=0, 2=50}, segmentSizeInBytes=4096, "
        "customMetadata=Optional[CustomMetadata{3 bytes}], state=COPY_SEGMENT_FINISHED}",
    ]
    assert lines[0].startswith("| offset: 0 CreateTime: 1700000000000 keySize: -1 valueSize: ")
    assert TIP_TEXT in payloads[0]


def test_dump_prints_kafkas_skip_line_for_records_it_cannot_read(tmp_path, capfd):
    good = spec_encode(*segment(0, 0, 99))
    lines = dump_payloads(tmp_path, capfd, [
        good[:20], spec_encode(*segment(0, 5, 4)), spec_encode(*segment(0, 0, 9, epochs=())),
        spec_encode(*update(0, 9)), spec_encode(*partition_delete(7)), good], "--skip-record-metadata")
    # without metadata or a key a line starts "| payload:", as Kafka 4.4's tool prints it (4.0-4.2: " payload:")
    assert lines[0].startswith("| payload: Error at offset 0, skipping. ") and "offset 0" in lines[0]
    assert lines[1:5] == [
        "| payload: Error at offset 1, skipping. Unexpected end offset = 4. EndOffset for a remote segment cannot "
        "be less than startOffset = 5",
        "| payload: Error at offset 2, skipping. segmentLeaderEpochs can not be null or empty",
        "| payload: Error at offset 3, skipping. state can not be null",
        "| payload: Error at offset 4, skipping. null"]
    assert lines[5].startswith("| payload: RemoteLogSegmentMetadata{")


def test_a_refused_record_stops_the_replay_like_the_broker(tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), update(0, 9)])
    with pytest.raises(CorruptInternalRecordError, match="state can not be null") as e:
        kvlog.remote_log_metadata(tmp_path)
    assert (e.value.offset, e.value.field) == (1, "data.remoteLogSegmentState")


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=120), st.sampled_from([b"", b"\x01\x00\x00", b"\x01\x01\x00", b"\x01\x02\x01",
                                                 b"\x01\x03\x01"]))
def test_arbitrary_bytes_give_only_typed_errors(data, head):
    try:
        r = decode_remote_log_metadata_record(head + data, partition="p", offset=3)
    except CorruptInternalRecordError as exc:
        assert exc.offset == 3
        return
    assert remote_log_metadata_text(Record(None, head + data, T0, offset=3))
    state = RemoteLogMetadata()
    try:  # the replay, too, ends only in typed errors, whatever the field values
        state.apply(r, (0, 3), "p")
        state.apply(r, (0, 4), "p")
    except CorruptInternalRecordError:
        pass
    state.segments()


@st.composite
def record_sequences(draw):
    out = []
    for _ in range(draw(st.integers(1, 25))):
        i = draw(st.integers(0, 4))
        kind = draw(st.sampled_from(["segment", "update", "update", "delete"]))
        if kind == "segment":
            start = draw(st.integers(0, 300))
            epochs = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 50)), min_size=1, max_size=3))
            out.append(segment(i, start, start + draw(st.integers(0, 200)), state=draw(st.sampled_from([0, 0, 0, 1])),
                               epochs=[(e, start + o) for e, o in epochs]))
        elif kind == "update":
            out.append(update(i, draw(st.integers(0, 4))))
        else:
            out.append(partition_delete(draw(st.integers(0, 2)), partition=draw(st.integers(0, 1))))
    return out


@settings(max_examples=300, deadline=None)
@given(record_sequences())
def test_replays_of_random_sequences_keep_the_caches_invariants(records):
    state = RemoteLogMetadata()
    for n, rec in enumerate(records):
        r = decode_remote_log_metadata_record(encode_remote_log_metadata_record(*rec))
        try:
            state.apply(r, (0, n), "__remote_log_metadata-0")
        except CorruptInternalRecordError as exc:
            assert exc.offset == n
    rows = state.segments().to_pylist()
    assert len({r["segment_id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["in_log"] == (row["reason"] is None)
        if row["in_log"]:
            assert row["state"] == "COPY_SEGMENT_FINISHED"
    for cache in state.partitions.values():  # every slot holds a finished segment of that epoch and start
        for e, slots in cache.epochs.items():
            assert slots.starts == sorted(slots.by_start)
            for start, sid_ in slots.by_start.items():
                seg = cache.segments[sid_]
                assert seg.state == 1 and seg.epochs[e] == start


class JavaCacheModel:
    """A line-by-line model of Kafka's RemoteLogMetadataCache + RemoteLogLeaderEpochState for one
    partition (plain dicts, the TreeMap's lastEntry as max()), to check the replay against."""

    ALLOWED = {(None, 0), (0, 1), (0, 2), (1, 2), (2, 3)}

    def __init__(self):
        self.id_to_meta = {}  # segment id → dict(start, end, epochs, state)
        self.offset_to_id = {}  # epoch → {start offset: segment id}
        self.unreferenced = {}  # epoch → set
        self.highest = {}  # epoch → highest log offset

    def valid(self, src, dst):
        return src == dst or (src, dst) in self.ALLOWED

    def add(self, sid_, start, end, epochs):
        existing = self.id_to_meta.get(sid_)
        if not self.valid(existing and existing["state"], 0):
            return
        for e in epochs:
            self.unreferenced.setdefault(e, set()).add(sid_)
        self.id_to_meta[sid_] = {"start": start, "end": end, "epochs": dict(epochs), "state": 0}

    def update(self, sid_, target):
        meta = self.id_to_meta.get(sid_)
        if meta is None or not self.valid(meta["state"], target):
            return
        meta["state"] = target
        for e, start in sorted(meta["epochs"].items()):
            later = [o for k, o in meta["epochs"].items() if k > e]
            epoch_end = min(later) - 1 if later else meta["end"]
            slots = self.offset_to_id.setdefault(e, {})
            unref = self.unreferenced.setdefault(e, set())
            if target == 1:
                while slots and max(slots) >= start and self.highest[e] <= epoch_end:
                    unref.add(slots.pop(max(slots)))
                slots[start] = sid_
                unref.discard(sid_)
                if e not in self.highest or epoch_end > self.highest[e]:
                    self.highest[e] = epoch_end
            elif target == 2:
                if slots.get(start) == sid_:
                    del slots[start]
                unref.add(sid_)
            else:
                unref.discard(sid_)
        if target == 3:
            del self.id_to_meta[sid_]

    def in_log(self):
        return {s for slots in self.offset_to_id.values() for s in slots.values()
                if self.id_to_meta[s]["state"] == 1}


@st.composite
def one_partition_sequences(draw):
    out = []
    for _ in range(draw(st.integers(1, 30))):
        i = draw(st.integers(0, 5))
        if draw(st.booleans()):
            start = draw(st.integers(0, 100))
            firsts = draw(st.lists(st.integers(0, 40), min_size=1, max_size=3))
            epochs = [(e, start + o) for e, o in enumerate(sorted(firsts))]
            out.append(segment(i, start, start + 40 + draw(st.integers(0, 60)), epochs=epochs))
        else:
            out.append(update(i, draw(st.sampled_from([1, 1, 2, 3]))))
    return out


@settings(max_examples=400, deadline=None)
@given(one_partition_sequences())
def test_the_replay_agrees_with_a_model_of_the_java_cache(records):
    state, model = RemoteLogMetadata(), JavaCacheModel()
    for n, (api_key, version, d) in enumerate(records):
        state.apply(decode_remote_log_metadata_record(encode_remote_log_metadata_record(api_key, version, d)),
                    (0, n), "p")
        sid_ = d["remoteLogSegmentId"]["id"]
        if api_key == 0:
            model.add(sid_, d["startOffset"], d["endOffset"],
                      [(x["leaderEpoch"], x["offset"]) for x in d["segmentLeaderEpochs"]])
        else:
            model.update(sid_, d["remoteLogSegmentState"])
    rows = state.segments().to_pylist()
    names = {topic_id_text(s): s for s in SEG}
    assert {names[r["segment_id"]] for r in rows if r["in_log"]} == model.in_log()
    live = {names[r["segment_id"]]: r["state"] for r in rows if r["state"] != "DELETE_SEGMENT_FINISHED"}
    assert live == {s: SEGMENT_STATES[m["state"]] for s, m in model.id_to_meta.items()}


def test_a_partition_directory_is_a_root_and_partitions_are_replayed_together(tmp_path):
    write_partition(tmp_path, 0, [segment(0, 0, 99), update(0, 1)])
    write_partition(tmp_path, 7, [segment(1, 0, 9, partition=1), update(1, 1, partition=1)])
    both = kvlog.remote_log_metadata(tmp_path).to_pylist()
    assert [(r["partition"], r["metadata_partition"], r["in_log"]) for r in both] == [(0, 0, True), (1, 7, True)]
    one = kvlog.remote_log_metadata(tmp_path / "__remote_log_metadata-7").to_pylist()
    assert [(r["partition"], r["metadata_partition"]) for r in one] == [(1, 7)]


def test_dump_of_a_record_without_a_value(tmp_path, capfd):
    lines = dump_payloads(tmp_path, capfd, [None], "--skip-record-metadata")
    assert lines == ["| payload: Error at offset 0, skipping. a remote log metadata record without a value "
                     "(offset 0, field value)"]
