"""``__remote_log_metadata``: the record codec, ``kvlog dump --remote-log-metadata-decoder`` and the replay.

The records are written by a second encoder, in this file, driven by ``tests/data/remote_log_metadata_specs.json``
(kvlog's rendition of Kafka's ``Remote*Record.json`` specs, transcribed from the spec text independently
of ``schemas_remote.py``), so that the tables kvlog decodes with are checked against the specs rather
than against themselves. Expected dump lines are written out by hand from the Java ``toString`` methods
of ``RemoteLogSegmentMetadata``, ``RemoteLogSegmentMetadataUpdate``, ``RemotePartitionDeleteMetadata``
and ``RemoteLogSegmentMetadataSnapshot``; expected replays follow ``RemoteLogMetadataCache`` and
``RemoteLogLeaderEpochState``.
"""

import json
import pathlib
import struct
import uuid

import pytest

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.decoders import (
    InternalTopic,
    UnknownSchemaError,
    decode_remote_log_metadata_record,
    encode_remote_log_metadata_record,
)
from kvlog.internal_topics.schemas_remote import REMOTE_LOG_METADATA_RECORDS

SPECS = json.loads((pathlib.Path(__file__).parent / "data" / "remote_log_metadata_specs.json").read_text())["specs"]
TOPIC_ID = uuid.UUID("00000000-0000-4000-8000-0000000000a1")
SEG = [uuid.UUID(int=(7 << 64) + i) for i in range(8)]
T0 = 1_700_000_000_000


# ------------------------------------------------------------- an independent, spec-driven writer
def _in(versions, v):
    if versions == "none":
        return False
    if versions.endswith("+"):
        return v >= int(versions[:-1])
    lo, _, hi = versions.partition("-")
    return int(lo) <= v <= int(hi or lo)


def _uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _json_name(name):
    return name[0].lower() + name[1:]


_PACK = {"int8": ">b", "int16": ">h", "int32": ">i", "int64": ">q", "bool": ">?"}


def _default(fd):
    d = fd.get("default")
    if d == "null":
        return None
    if d is not None:
        return int(d)
    return {"bool": False, "bytes": b"", "string": ""}.get(fd["type"], 0)


def _write_value(fd, value, v):
    t = fd["type"]
    if t.startswith("[]"):
        return _uvarint(len(value) + 1) + b"".join(_write_struct(fd["fields"], x, v) for x in value)
    if "fields" in fd:
        return _write_struct(fd["fields"], value, v)
    if t == "uuid":
        return value.bytes
    if t in ("string", "bytes"):
        if value is None:
            return b"\x00"
        raw = value.encode() if t == "string" else value
        return _uvarint(len(raw) + 1) + raw
    return struct.pack(_PACK[t], value)


def _write_struct(fields, value, v):
    """Every spec here is flexible in all versions: compact lengths and a tagged-field section."""
    out, tags = b"", {}
    for fd in fields:
        if not _in(fd["versions"], v):
            continue
        item = value.get(_json_name(fd["name"]), _default(fd))
        if "tag" in fd and _in(fd["tagged"], v):
            if item != _default(fd):
                tags[fd["tag"]] = _write_value(fd, item, v)
        else:
            out += _write_value(fd, item, v)
    out += _uvarint(len(tags))
    for tag in sorted(tags):
        out += _uvarint(tag) + _uvarint(len(tags[tag])) + tags[tag]
    return out


def spec_encode(api_key, version, data):
    spec = next(s for s in SPECS if s["apiKey"] == api_key)
    assert _in(spec["validVersions"], version)
    return _uvarint(1) + _uvarint(api_key) + _uvarint(version) + _write_struct(spec["fields"], data, version)


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
