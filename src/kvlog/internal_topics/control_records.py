"""KRaft's control records: the messages inside the control batches of ``__cluster_metadata`` segments and
``.checkpoint`` snapshots, decoded, encoded and printed as Kafka's ``DumpLogSegments`` prints them.

A control record's key is an int16 key version (0) and an int16 control type; its value is one flexible
message whose first field is an int16 ``Version`` (Kafka's ``clients`` message specs):

=====  ===============  =======================  ==================================================
type   name             message                  fields after ``Version``
=====  ===============  =======================  ==================================================
2      LEADER_CHANGE    LeaderChangeMessage      LeaderId, Voters[], GrantingVoters[] (VoterId)
3      SNAPSHOT_HEADER  SnapshotHeaderRecord     LastContainedLogTimestamp (first record of a snapshot)
4      SNAPSHOT_FOOTER  SnapshotFooterRecord     none (last record of a snapshot)
5      KRAFT_VERSION    KRaftVersionRecord       KRaftVersion (the ``kraft.version`` feature, KIP-853)
6      KRAFT_VOTERS     VotersRecord             Voters[]: VoterId, VoterDirectoryId, Endpoints[],
                                                 KRaftVersionFeature (KIP-853 dynamic quorum)
=====  ===============  =======================  ==================================================

Types 0 and 1 are the transaction markers (ABORT, COMMIT: an int16 version and an int32 coordinator epoch;
Kafka's ``EndTxnMarker`` spec). Kafka reads a key or a marker of any version >= 0 as version 0 and refuses a
negative one; so does :func:`decode_control_record`.

Kafka reads every one of these values at message version 0, whatever its ``Version`` field says
(``ControlRecordUtils``), ignores bytes after the message, and prints it with the generated JSON converter
at the version its ``Version`` field names: a LeaderChangeMessage whose field says 1 prints the voters'
``voterDirectoryId`` too (the zero id, since version 0 does not carry it). kvlog does the same. Checked
against the records Kafka 4.1.2 and 4.4.0 brokers wrote (a dynamic quorum formatted with ``--standalone``,
snapshots every few seconds) and against ``DumpLogSegments`` of both versions.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics import codec
from kvlog.internal_topics.codec import Message, f, message
from kvlog.records import ControlRecordType, Record

__all__ = [
    "CONTROL_MESSAGES",
    "ControlRecord",
    "KRAFT_VERSION_RECORD",
    "LEADER_CHANGE_MESSAGE",
    "SNAPSHOT_FOOTER_RECORD",
    "SNAPSHOT_HEADER_RECORD",
    "VOTERS_RECORD",
    "control_text",
    "decode_control_record",
    "encode_control_record",
]

_VOTER = [f("VoterId", "int32"), f("VoterDirectoryId", "uuid", "1+")]
LEADER_CHANGE_MESSAGE = message("LeaderChangeMessage", "0-1", "0+", [
    f("Version", "int16"),
    f("LeaderId", "int32"),
    f("Voters", "[]struct", fields=_VOTER),
    f("GrantingVoters", "[]struct", fields=_VOTER),
])
SNAPSHOT_HEADER_RECORD = message("SnapshotHeaderRecord", "0", "0+", [
    f("Version", "int16"),
    f("LastContainedLogTimestamp", "int64"),
])
SNAPSHOT_FOOTER_RECORD = message("SnapshotFooterRecord", "0", "0+", [f("Version", "int16")])
KRAFT_VERSION_RECORD = message("KRaftVersionRecord", "0", "0+", [
    f("Version", "int16"),
    f("KRaftVersion", "int16"),
])
VOTERS_RECORD = message("VotersRecord", "0", "0+", [
    f("Version", "int16"),
    f("Voters", "[]struct", fields=[
        f("VoterId", "int32"),
        f("VoterDirectoryId", "uuid"),
        f("Endpoints", "[]struct", fields=[f("Name", "string"), f("Host", "string"), f("Port", "uint16")]),
        f("KRaftVersionFeature", "struct", fields=[
            f("MinSupportedVersion", "int16"), f("MaxSupportedVersion", "int16"),
        ]),
    ]),
])

#: control type → its message spec (the transaction markers are not messages of this kind)
CONTROL_MESSAGES: dict[ControlRecordType, Message] = {
    ControlRecordType.LEADER_CHANGE: LEADER_CHANGE_MESSAGE,
    ControlRecordType.SNAPSHOT_HEADER: SNAPSHOT_HEADER_RECORD,
    ControlRecordType.SNAPSHOT_FOOTER: SNAPSHOT_FOOTER_RECORD,
    ControlRecordType.KRAFT_VERSION: KRAFT_VERSION_RECORD,
    ControlRecordType.KRAFT_VOTERS: VOTERS_RECORD,
}

# DumpLogSegments' label before each message's JSON (4.1+; "LeaderChange:" is the only one with a colon)
_LABELS = {
    ControlRecordType.LEADER_CHANGE: "LeaderChange:",
    ControlRecordType.SNAPSHOT_HEADER: "SnapshotHeader",
    ControlRecordType.SNAPSHOT_FOOTER: "SnapshotFooter",
    ControlRecordType.KRAFT_VERSION: "KRaftVersion",
    ControlRecordType.KRAFT_VOTERS: "KRaftVoters",
}
_READ_VERSION = 0  # ControlRecordUtils reads every control message at version 0
_KEY = struct.Struct(">hh")
_MARKER = struct.Struct(">hi")


@dataclass(frozen=True)
class ControlRecord:
    """One decoded control record: its type, the message's own ``Version`` field and its fields (keyed by
    Kafka's JSON names; ``version`` is among them). A transaction marker's ``data`` is ``{"version",
    "coordinatorEpoch"}``."""

    type: ControlRecordType
    version: int
    data: dict[str, Any]


def _type_of(key: bytes | memoryview | None, partition: str | None, offset: int | None) -> ControlRecordType:
    if key is None or len(key) < 4:
        raise CorruptInternalRecordError(f"a control record key of {0 if key is None else len(key)} bytes; it "
                                         "needs at least 4 (version, type)", field="key", partition=partition,
                                         offset=offset)
    key_version, type_id = _KEY.unpack_from(key, 0)
    if key_version < 0:
        raise CorruptInternalRecordError(f"control record key version {key_version}", field="key.version",
                                         partition=partition, offset=offset)
    try:
        return ControlRecordType(type_id)
    except ValueError:
        raise CorruptInternalRecordError(f"unknown control record type {type_id}", field="key.type",
                                         partition=partition, offset=offset) from None


def decode_control_record(key: bytes | memoryview | None, value: bytes | memoryview | None, *,
                          partition: str | None = None, offset: int | None = None) -> ControlRecord:
    """The type and fields of one control record, read as Kafka reads it (see the module docstring).

    Raises :class:`~kvlog.errors.CorruptInternalRecordError` for a key that names no known type or a value
    that does not hold the message (bytes after it are ignored, as Kafka ignores them).
    """
    ctype = _type_of(key, partition, offset)
    if value is None:
        raise CorruptInternalRecordError(f"a {ctype.name} control record without a value", field="value",
                                         partition=partition, offset=offset)
    if ctype in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        if len(value) < _MARKER.size:
            raise CorruptInternalRecordError(f"a {len(value)}-byte {ctype.name} marker value; it needs "
                                             f"{_MARKER.size}", field="value", partition=partition, offset=offset)
        version, epoch = _MARKER.unpack_from(value, 0)
        if version < 0:  # Kafka's EndTransactionMarker refuses it; it reads any other version as version 0
            raise CorruptInternalRecordError(f"{ctype.name} marker value version {version}", field="value.version",
                                             partition=partition, offset=offset)
        return ControlRecord(ctype, version, {"version": version, "coordinatorEpoch": epoch})
    msg = CONTROL_MESSAGES[ctype]
    try:
        data, _ = codec.decode(msg, _READ_VERSION, value, path="value")
    except codec.SchemaError as exc:
        raise CorruptInternalRecordError(f"{msg.name}: {exc.reason}", field=exc.path or "value",
                                         partition=partition, offset=offset) from None
    return ControlRecord(ctype, data["version"], data)


def encode_control_record(ctype: ControlRecordType, data: dict[str, Any]) -> tuple[bytes, bytes]:
    """``(key, value)`` of a control record: ``data`` as :func:`decode_control_record` returns it (fields
    left out take their defaults; ``version`` is the message's own field, 0 unless given). Written at
    message version 0, as Kafka writes every one of them."""
    ctype = ControlRecordType(ctype)
    if ctype in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        value = _MARKER.pack(data.get("version", 0), data.get("coordinatorEpoch", 0))
    elif ctype in CONTROL_MESSAGES:
        try:
            value = codec.encode(CONTROL_MESSAGES[ctype], _READ_VERSION, data)
        except codec.SchemaError as exc:
            raise CorruptInternalRecordError(exc.reason, field=exc.path or None) from None
    else:
        raise CorruptInternalRecordError(f"no control record of type {ctype.name}", field="key.type")
    return _KEY.pack(0, int(ctype)), value


def _json(r: ControlRecord) -> str:
    msg = CONTROL_MESSAGES[r.type]
    # the converter writes at the version the record's own field names (0 when that is not a version)
    version = r.version if 0 <= r.version <= 0x7FFF else 0
    return codec.dumps(codec.to_json_obj(msg.fields, version, r.data))


def control_text(rec: Record, *, partition: str | None = None) -> str:
    """What ``DumpLogSegments`` (Kafka 4.4) prints after a control record's metadata: ``endTxnMarker: COMMIT
    coordinatorEpoch: 5``, ``LeaderChange: {json}``, ``SnapshotHeader {json}``, ``SnapshotFooter {json}``,
    ``KRaftVersion {json}``, ``KRaftVoters {json}``, or ``controlType: UNKNOWN(7)`` for a type it does not
    know. Raises :class:`~kvlog.errors.CorruptInternalRecordError` for a KRaft message whose value does not
    decode (Kafka's tool stops there with an exception); a marker too short for its epoch prints -1."""
    ctype = rec.control_type
    if ctype is ControlRecordType.UNKNOWN:
        key = rec.key or b""
        type_id = _KEY.unpack_from(key, 0)[1] if len(key) >= 4 else -1
        return f"controlType: {ctype.name}({type_id})"
    if ctype in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        epoch = rec.coordinator_epoch
        return f"endTxnMarker: {ctype.name} coordinatorEpoch: {epoch if epoch is not None else -1}"
    return f"{_LABELS[ctype]} {_json(decode_control_record(rec.key, rec.value, partition=partition, offset=rec.offset))}"
