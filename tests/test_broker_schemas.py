"""kvlog's schema tables against the message specs inside each Kafka version's jars.

kvlog decodes Kafka's internal topics from hand-written tables (``kvlog.internal_topics.schemas_*`` and
``control_records``); Kafka generates its classes from JSON message specs it ships as resources in its
jars. This test reads every spec of a record type kvlog decodes, from the jars of each version the broker
tests run (``make test-broker`` fetches them), and compares it with kvlog's table, version by version:

- which table: coordinator keys and values by their name and ``apiKey`` (4.x ``coordinator-key`` /
  ``coordinator-value`` specs; before 4.0 a key spec's valid versions *are* the record types it serves),
  KRaft and remote-log-metadata records by name and ``apiKey``, the KRaft control records, the consumer
  protocol's subscription and assignment, the transaction marker and the control record key by name;
  a coordinator or metadata spec kvlog has no table for is a mismatch, as is a kvlog table the newest
  version's jars do not have;
- for each version the spec declares valid: that kvlog's table accepts it (and reads what it writes at
  it), flexible or not alike, and the fields present at it in order, each with its type, nullability,
  tag (tagged or not, and the tag number), effective default (the spec's, or the type's zero value, as
  kvlog's codec takes it when a field is absent) and nested struct fields, recursively;
- the newest version (the last of ``VERSIONS``) exactly: same valid versions, no field more or less;
  older versions as a subset of kvlog's table: every version they declare valid is valid in kvlog and
  reads the same fields, and kvlog may only have more *tagged* fields at it (a tagged field can be added
  to an existing version; anything else would misread the older version's records). An older spec's
  defaults are compared for its tagged fields only: an untagged field is always on the wire, so its
  default never reads a record of that version.

The record types and their versions come from the specs, never from kvlog: a spec for a record type kvlog
does not table, or a valid version kvlog refuses, is reported like a wrong field.

Deliberate differences are listed, field by field with the reason, in ``EXCEPTIONS`` (and in
docs/internal-topics.md); an exception that no longer matches a difference fails the test too. Every
mismatch of a version is reported in one assertion message.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import struct
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics import codec, control_records
from kvlog.internal_topics.codec import Field, Message, Versions
from kvlog.internal_topics.schemas_coordinator import (
    CONSUMER_ASSIGNMENT,
    CONSUMER_SUBSCRIPTION,
    GROUP_RECORDS,
    SHARE_STATE_RECORDS,
    TRANSACTION_RECORDS,
)
from kvlog.internal_topics.schemas_metadata import METADATA_RECORDS
from kvlog.internal_topics.schemas_remote import REMOTE_LOG_METADATA_RECORDS
from tests.kafka_oracle.broker import VERSIONS, KafkaDist
from tests.kafka_oracle.fixtures import VERSION_PARAMS, _skip_or_fail, unavailable

pytestmark = pytest.mark.broker

NEWEST = VERSIONS[-1]
_MAX = 0x7FFF
_PRIMITIVES = {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes",
               "uuid", "records"}
_ZERO_UUID = uuid.UUID(int=0)

_KRAFT_28 = ("Kafka 2.8's KRaft mode was early access: 3.0 (KIP-746, KAFKA-13053) bumped the metadata frame "
             "version from 0 to 1 and restarted every record at a flexible version 0, then changed version 0 "
             "again until KRaft was production-ready; kvlog, like Kafka 3.0+, refuses frame version 0, so "
             "no 2.8 record is read with these tables")
_KIP848_37 = ("Kafka 3.7's KIP-848 consumer-group records were early access: 3.8 changed version 0 without a new "
              "version (KAFKA-16249, #15545, #15854), and no later Kafka reads 3.7's; kvlog reads those of 3.8+")
_ELR_38 = ("renamed LastKnownElr in 3.8 (KAFKA-15585): the same tag, type and nullability, so the same bytes; "
           "kvlog's JSON says lastKnownElr, as Kafka 3.8+ prints it")
_TYPE9 = ("record type 9 (share-group partition metadata), which Kafka 4.0 wrote (kvlog's table has the fields of "
          "kafka-group-coordinator-4.0.1.jar's spec) and 4.1 dropped for the group metadata's MetadataHash "
          "(KIP-1101); kvlog still reads it, where Kafka 4.1+ skips it as an unknown record type")
_TRUNK_REMOTE = ("version 1 (tagged BrokerLeaderEpoch and EndOffset) is Kafka trunk's, after 4.4.0; 4.4.0 writes "
                 "version 0, which matches; version 1 adds tagged fields only")

#: Deliberate differences: (Kafka version, spec name, field path or attribute) -> why kvlog differs.
#: A path is the dotted field path (``Voters.VoterDirectoryId``); attributes are ``validVersions``,
#: ``flexibleVersions``, ``apiKey`` and ``table`` (the record type as a whole).
EXCEPTIONS: dict[tuple[str, str, str], str] = {
    # ---- 2.8.2: early-access KRaft (2.8.2 brokers run with ZooKeeper here)
    ("2.8.2", "LeaderChangeMessage", "Version"): "3.0 (KAFKA-12952) made an int16 Version the first field "
                                                 "of version 0; 2.8's early-access KRaft had none. " + _KRAFT_28,
    ("2.8.2", "AccessControlRecord", "table"): "api key 6, dropped by KIP-746 (ACLs are AccessControlEntryRecord, "
                                               "18). " + _KRAFT_28,
    ("2.8.2", "QuotaRecord", "table"): "api key 14, renamed ClientQuotaRecord by KIP-746. " + _KRAFT_28,
    ("2.8.2", "ConfigRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "ConfigRecord", "Value"): "nullable since 3.0 (null deletes the config). " + _KRAFT_28,
    ("2.8.2", "DelegationTokenRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "DelegationTokenRecord", "Requester"): "added in 3.6 (KAFKA-15219), the first release whose KRaft "
                                                     "wrote the record. " + _KRAFT_28,
    ("2.8.2", "FeatureLevelRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "FeatureLevelRecord", "FeatureLevel"): "one level, not a range, since 3.3 (KIP-778). " + _KRAFT_28,
    ("2.8.2", "FeatureLevelRecord", "MinFeatureLevel"): "one level, not a range, since 3.3 (KIP-778). " + _KRAFT_28,
    ("2.8.2", "FeatureLevelRecord", "MaxFeatureLevel"): "one level, not a range, since 3.3 (KIP-778). " + _KRAFT_28,
    ("2.8.2", "FenceBrokerRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "PartitionRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "PartitionRecord", "RemovingReplicas"): "not nullable since 3.1. " + _KRAFT_28,
    ("2.8.2", "PartitionRecord", "AddingReplicas"): "not nullable since 3.1. " + _KRAFT_28,
    ("2.8.2", "RegisterBrokerRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "RegisterBrokerRecord", "Fenced"): "added to version 0 in 3.0. " + _KRAFT_28,
    ("2.8.2", "RemoveTopicRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "TopicRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "UnfenceBrokerRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "UnregisterBrokerRecord", "flexibleVersions"): _KRAFT_28,
    ("2.8.2", "UserScramCredentialRecord", "flexibleVersions"): _KRAFT_28,
    **{("2.8.2", "UserScramCredentialRecord", name): "one record per mechanism since 3.5 (KAFKA-14881; 2.8: a "
                                                     "CredentialInfos list). " + _KRAFT_28
       for name in ("Mechanism", "Salt", "StoredKey", "ServerKey", "Iterations", "CredentialInfos")},
    # ---- 3.7.2: early-access KIP-848 records (3.7.2 brokers run with ZooKeeper here and write none)
    **{("3.7.2", "ConsumerGroupCurrentMemberAssignmentValue", name): _KIP848_37
       for name in ("State", "TargetMemberEpoch", "PartitionsPendingAssignment", "Error", "MetadataVersion",
                    "MetadataBytes")},
    ("3.7.2", "ConsumerGroupMemberMetadataValue", "Assignors"): _KIP848_37,
    ("3.7.2", "ConsumerGroupPartitionMetadataValue", "Epoch"): _KIP848_37,
    **{("3.7.2", "ConsumerGroupTargetAssignmentMemberValue", name): _KIP848_37
       for name in ("Error", "MetadataVersion", "MetadataBytes")},
    ("3.7.2", "PartitionChangeRecord", "LastKnownELR"): _ELR_38,
    ("3.7.2", "PartitionRecord", "LastKnownELR"): _ELR_38,
    # ---- 4.4.0 (the newest): where kvlog reads more than 4.4.0 writes
    ("4.4.0", "EndTxnMarker", "validVersions"): "Kafka reads a transaction marker of any version >= 0 as version 0 "
                                                "(EndTransactionMarker, checked), and so does kvlog",
    ("4.4.0", "ControlRecordTypeSchema", "validVersions"): "Kafka reads a control record key of any version >= 0 as "
                                                           "version 0 (ControlRecordType), and so does kvlog",
    ("4.4.0", "LegacyOffsetCommitValue", "validVersions"): "kvlog reads a type-0 offset commit's value with the "
                                                           "offset-commit value table (versions 0-4), as brokers "
                                                           "before 4.0 did; version 0 matches",
    ("4.4.0", "ConsumerGroupMetadataValue", "CreationTimeMs"): "KIP-1282, in Kafka trunk after 4.4.0 (tag 1, "
                                                               "default -1): a tagged field, so 4.4.0's records "
                                                               "read its default",
    ("4.4.0", "RemoteLogSegmentMetadataRecord", "validVersions"): _TRUNK_REMOTE,
    ("4.4.0", "RemoteLogSegmentMetadataSnapshotRecord", "validVersions"): _TRUNK_REMOTE,
    ("4.4.0", "RemoteLogSegmentMetadataUpdateRecord", "validVersions"): _TRUNK_REMOTE,
    ("4.4.0", "RemotePartitionDeleteMetadataRecord", "validVersions"): _TRUNK_REMOTE,
    ("4.4.0", "ShareGroupPartitionMetadataKey", "table"): _TYPE9,
    ("4.4.0", "ShareGroupPartitionMetadataValue", "table"): _TYPE9,
}


# ============================================================================================ specs
def _strip_comments(text: str) -> str:
    """The JSON text without ``//`` and ``/* */`` comments (Kafka reads its specs with Jackson's
    ALLOW_COMMENTS); text inside strings is kept."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Spec:
    jar: str
    path: str
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def type(self) -> str:
        return str(self.data.get("type", ""))

    @property
    def api_key(self) -> int | None:
        k = self.data.get("apiKey")
        return None if k is None else int(k)

    @property
    def valid(self) -> Versions:
        return _versions(self.data.get("validVersions"), Versions(1, 0))

    @property
    def flexible(self) -> Versions:
        return _versions(self.data.get("flexibleVersions"), Versions(1, 0))

    def where(self) -> str:
        return f"{self.jar}!{self.path}"


def _versions(text: Any, default: Versions) -> Versions:
    return default if text is None else Versions.parse(str(text))


def _read_specs(jars: Path) -> tuple[list[Spec], list[str]]:
    """Every JSON spec in the version's Kafka jars, and the files that did not parse (a few request specs
    of old versions are not valid JSON; Kafka's build never reads them back)."""
    specs: list[Spec] = []
    unparsed: list[str] = []
    for jar in sorted(jars.glob("kafka*.jar")):
        if jar.name.endswith("-test.jar"):
            continue
        with zipfile.ZipFile(jar) as z:
            for name in sorted(z.namelist()):
                if not name.endswith(".json"):
                    continue
                try:
                    data = json.loads(_strip_comments(z.read(name).decode("utf-8")))
                except ValueError:
                    unparsed.append(f"{jar.name}!{name}")
                    continue
                if isinstance(data, dict) and "name" in data and "fields" in data:
                    specs.append(Spec(jar.name, name, data))
    return specs, unparsed


# ===================================================================================== normal form
@dataclass(frozen=True)
class NField:
    """One field of a message at one version, as the wire and kvlog's decoded dicts see it."""

    name: str | None  # None: kvlog's table does not name it (a fixed layout); any spec name matches
    type: str  # a primitive, "struct", or "[]" + either
    nullable: bool
    tag: int | None  # None: not a tagged field at this version
    default: Any
    fields: tuple["NField", ...] = ()

    def describe(self) -> str:
        bits = [self.type]
        if self.nullable:
            bits.append("nullable")
        if self.tag is not None:
            bits.append(f"tag {self.tag}")
        return " ".join(bits)


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def _parse_int(text: str) -> int:
    t = text.strip()
    neg = t.startswith("-")
    body = t[1:] if neg else t
    value = int(body[2:], 16) if body.lower().startswith("0x") else int(body, 10)
    return -value if neg else value


def _spec_default(fd: dict[str, Any], type_: str, version: int, children: tuple[NField, ...]) -> Any:
    """The value Kafka's generated class gives the field when it is not on the wire. ``"default": null``
    (JSON null) is no default at all (Jackson hands the generator a null string)."""
    raw = fd.get("default")
    text = "" if raw is None else (str(raw).lower() if isinstance(raw, bool) else str(raw))
    if text == "null":
        return None
    if type_.startswith("[]"):
        return []
    if type_ == "struct":
        return {_lower_first(c.name or ""): c.default for c in children}
    if type_ in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        return _parse_int(text) if text else 0
    if type_ == "bool":
        return text == "true"
    if type_ == "float64":
        return float(text) if text else 0.0
    if type_ == "string":
        return text
    if type_ == "bytes":
        return b""
    if type_ == "uuid":
        return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "==")) if text else _ZERO_UUID
    return text


def _spec_fields(fields: list[dict[str, Any]], structs: dict[str, list[dict[str, Any]]], version: int,
                 path: str, notes: list[tuple[str, str]]) -> tuple[NField, ...]:
    out: list[NField] = []
    for fd in fields:
        tagged = _versions(fd.get("taggedVersions"), Versions(1, 0))
        versions = _versions(fd.get("versions"), tagged)  # a tagged field's versions default to its tagged ones
        if version not in versions:
            continue
        name = str(fd["name"])
        here = f"{path}.{name}" if path else name
        if "flexibleVersions" in fd:
            notes.append((here, f"the spec gives the field its own flexibleVersions "
                                f"({fd['flexibleVersions']}); kvlog's codec has no such override"))
        raw_type = str(fd["type"])
        elem = raw_type[2:] if raw_type.startswith("[]") else raw_type
        children: tuple[NField, ...] = ()
        if elem in _PRIMITIVES:
            type_ = raw_type
        else:
            sub = fd.get("fields")
            if sub is None:
                sub = structs.get(elem)
            if sub is None:
                notes.append((here, f"struct type {elem} has no fields in the spec"))
                sub = []
            children = _spec_fields(sub, structs, version, here, notes)
            type_ = "[]struct" if raw_type.startswith("[]") else "struct"
        tag = int(fd["tag"]) if version in tagged and "tag" in fd else None
        nullable = version in _versions(fd.get("nullableVersions"), Versions(1, 0))
        out.append(NField(name, type_, nullable, tag, _spec_default(fd, type_, version, children), children))
    return tuple(out)


def spec_at(spec: Spec, version: int, notes: list[tuple[str, str]]) -> tuple[NField, ...]:
    structs = {str(s["name"]): list(s.get("fields", [])) for s in spec.data.get("commonStructs", [])}
    return _spec_fields(list(spec.data["fields"]), structs, version, "", notes)


def _kvlog_fields(fields: tuple[Field, ...], version: int, path: str,
                  notes: list[tuple[str, str]]) -> tuple[NField, ...]:
    out: list[NField] = []
    for fd in fields:
        if version not in fd.versions:
            continue
        here = f"{path}.{fd.name}" if path else fd.name
        if version in fd.tagged and fd.tag is None:
            notes.append((here, "kvlog's table has tagged versions but no tag number"))
        tag = fd.tag if version in fd.tagged else None
        children = _kvlog_fields(fd.fields, version, here, notes) if fd.element == "struct" else ()
        out.append(NField(fd.name or None, fd.type, version in fd.nullable, tag, fd.default_value(version),
                          children))
    return tuple(out)


def kvlog_at(msg: Message, version: int, notes: list[tuple[str, str]]) -> tuple[NField, ...]:
    return _kvlog_fields(msg.fields, version, "", notes)


_STRUCT_CODES = {"b": "int8", "h": "int16", "i": "int32", "q": "int64"}


def _accepts(key_version: int, marker_version: int) -> bool:
    """Whether kvlog's control-record decoder reads a COMMIT marker with this key and value version."""
    try:
        control_records.decode_control_record(struct.pack(">hh", key_version, 1),
                                              struct.pack(">hi", marker_version, 7))
    except CorruptInternalRecordError:
        return False
    return True


def _fixed_layout(name: str, fmt: str, accepts: Callable[[int], bool]) -> Message:
    """kvlog reads the transaction markers' value and every control record's key with a fixed ``struct``
    layout: an int16 version, then the fields (unnamed). Its versions are those kvlog's decoder reads:
    from -1 (it reads a negative version) or 0, to 32767 (it reads every later one as version 0) or 0."""
    codes = fmt.lstrip("<>!=@")
    assert codes[0] == "h", fmt
    fields = tuple(Field("", _STRUCT_CODES[c], Versions(0, _MAX)) for c in codes[1:])
    valid = Versions(-1 if accepts(-1) else 0, _MAX if accepts(_MAX) else 0)
    return Message(name, valid, Versions(1, 0), fields)


# ========================================================================================= targets
@dataclass(frozen=True)
class Target:
    """What a spec of this name is compared with: kvlog's table for each record type it serves (a
    coordinator key spec before 4.0 serves the record types its valid versions name)."""

    family: str
    role: str  # "key": a coordinator record key; "value": a coordinator value; "record": anything else
    tables: dict[int, Message]  # record type (or api key) -> kvlog's table; -1 when there is none

    @property
    def table(self) -> Message:
        return next(iter(self.tables.values()))


def _targets() -> dict[str, Target]:
    out: dict[str, Target] = {}

    def add(name: str, family: str, role: str, ident: int, msg: Message) -> None:
        t = out.setdefault(name, Target(family, role, {}))
        assert (t.family, t.role) == (family, role), name
        t.tables[ident] = msg

    for family, records in (("__consumer_offsets", GROUP_RECORDS), ("__transaction_state", TRANSACTION_RECORDS),
                            ("__share_group_state", SHARE_STATE_RECORDS)):
        for rt in records.values():
            add(rt.key.name, family, "key", rt.id, rt.key)
            add(rt.value.name, family, "value", rt.id, rt.value)
    # Kafka 4.x specs type 0 (the offset-commit key of brokers before 0.10) on its own; kvlog reads it
    # with the offset commit's key and value tables, as brokers before 4.0 did
    add("LegacyOffsetCommitKey", "__consumer_offsets", "key", 0, GROUP_RECORDS[0].key)
    add("LegacyOffsetCommitValue", "__consumer_offsets", "value", 0, GROUP_RECORDS[0].value)
    for msg in METADATA_RECORDS.values():
        add(msg.name, "__cluster_metadata", "record", msg.api_key, msg)
    for msg in REMOTE_LOG_METADATA_RECORDS.values():
        add(msg.name, "__remote_log_metadata", "record", msg.api_key, msg)
    for msg in control_records.CONTROL_MESSAGES.values():
        add(msg.name, "control", "record", -1, msg)
    add("EndTxnMarker", "control", "record", -1,
        _fixed_layout("EndTxnMarker", control_records._MARKER.format, lambda v: _accepts(0, v)))
    add("ControlRecordTypeSchema", "control", "record", -1,
        _fixed_layout("ControlRecordTypeSchema", control_records._KEY.format, lambda v: _accepts(v, 0)))
    for msg in (CONSUMER_SUBSCRIPTION, CONSUMER_ASSIGNMENT):
        add(msg.name, "consumer protocol", "record", -1, msg)
    return out


TARGETS = _targets()
_COORDINATOR_JARS = ("kafka_2.", "kafka-group-coordinator", "kafka-share-coordinator",
                     "kafka-transaction-coordinator")


def _must_be_tabled(spec: Spec) -> bool:
    """Specs of record types kvlog must decode: every coordinator and metadata record type, and the
    key and value specs the coordinator jars of older versions keep as plain data."""
    if spec.type in ("coordinator-key", "coordinator-value", "metadata"):
        return True
    return (spec.type == "data" and spec.jar.startswith(_COORDINATOR_JARS)
            and spec.name.endswith(("Key", "Value")))


# ======================================================================================== compare
@dataclass(frozen=True)
class Mismatch:
    record: str
    where: str  # field path or attribute
    text: str


def _compare_fields(spec: tuple[NField, ...], kv: tuple[NField, ...], path: str, version: int,
                    exact: bool) -> Iterator[Mismatch]:
    def at(name: str | None) -> str:
        return f"{path}.{name}" if path and name else (name or path or "<fields>")

    if any(f.name is None for f in kv):  # a fixed layout: compare position by position
        if len(spec) != len(kv):
            yield Mismatch("", path or "<fields>", f"v{version}: spec fields "
                           f"{[(f.name, f.type) for f in spec]}, kvlog's fixed layout {[f.type for f in kv]}")
            return
        for s, k in zip(spec, kv):
            yield from _compare_one(s, k, at(s.name), version, exact)
        return
    # a field Kafka renamed (same tag, or the same name but for case) is one mismatch, then compared
    spec_names = [f.name for f in spec]
    kv_by_name = {f.name: f for f in kv}
    renamed: dict[str | None, NField] = {}
    for s in spec:
        if s.name in kv_by_name:
            continue
        for k in kv:
            if k.name in spec_names or any(k is r for r in renamed.values()):
                continue
            if (s.tag is not None and s.tag == k.tag) or (s.name or "").lower() == (k.name or "").lower():
                renamed[s.name] = k
                yield Mismatch("", at(s.name), f"v{version}: name: spec {s.name}, kvlog {k.name}")
                break
    if renamed:
        names = {k.name: s for s, k in renamed.items()}
        kv = tuple(dataclasses.replace(f, name=names[f.name]) if f.name in names else f for f in kv)
    kv_names = [f.name for f in kv]
    for f in kv:
        if f.name not in spec_names and (exact or f.tag is None):
            why = "" if exact else " (untagged: the spec's records of this version do not have it)"
            yield Mismatch("", at(f.name), f"v{version}: kvlog has {f.name} ({f.describe()}), the spec does "
                                           f"not{why}")
    for f in spec:
        if f.name not in kv_names:
            yield Mismatch("", at(f.name), f"v{version}: the spec has {f.name} ({f.describe()}), kvlog does not")
    common_spec = [n for n in spec_names if n in kv_names]
    common_kv = [n for n in kv_names if n in spec_names]
    if common_spec != common_kv:
        yield Mismatch("", path or "<fields>", f"v{version}: field order: spec {common_spec}, kvlog {common_kv}")
    spec_tags = {f.tag: f.name for f in spec if f.tag is not None}
    for f in kv:
        if f.name not in spec_names and f.tag is not None and f.tag in spec_tags:
            yield Mismatch("", at(f.name), f"v{version}: kvlog's tag {f.tag} of {f.name} is the spec's "
                                           f"{spec_tags[f.tag]}")
    by_name = {f.name: f for f in kv}
    for s in spec:
        k = by_name.get(s.name)
        if k is not None:
            yield from _compare_one(s, k, at(s.name), version, exact)


def _compare_one(s: NField, k: NField, where: str, version: int, exact: bool) -> Iterator[Mismatch]:
    if s.type != k.type:
        yield Mismatch("", where, f"v{version}: type: spec {s.type}, kvlog {k.type}")
        return
    if s.nullable != k.nullable:
        yield Mismatch("", where, f"v{version}: nullable: spec {s.nullable}, kvlog {k.nullable}")
    if s.tag != k.tag:
        yield Mismatch("", where, f"v{version}: tag: spec {s.tag}, kvlog {k.tag}")
    s_default, k_default = s.default, k.default
    if s.type.endswith("struct"):
        yield from _compare_fields(s.fields, k.fields, where, version, exact)
        # a struct's default is its fields' (compared above), or null
        s_default, k_default = s_default is None, k_default is None
    # (an older version's untagged field is always on the wire: its default never reads a record)
    if (exact or s.tag is not None) and (s_default != k_default or type(s_default) is not type(k_default)):
        yield Mismatch("", where, f"v{version}: default: spec {s.default!r}, kvlog {k.default!r}")


def _roundtrip(msg: Message, version: int) -> str | None:
    """kvlog writes a record of this version (every field at its default) and reads it back."""
    try:
        raw = codec.encode(msg, version, {})
        value, end = codec.decode(msg, version, raw)
    except codec.SchemaError as exc:
        return str(exc)
    if end != len(raw):
        return f"read {end} of the {len(raw)} bytes it wrote"
    again = codec.encode(msg, version, value)
    return None if again == raw else "wrote other bytes after reading its own"


def compare(spec: Spec, target: Target, exact: bool) -> Iterator[Mismatch]:
    """Every difference between one spec and kvlog's tables for it."""
    valid = spec.valid
    if valid.lo > valid.hi:
        yield Mismatch(spec.name, "validVersions", "the spec has no valid version")
        return
    for msg in target.tables.values():
        if msg.valid.lo < 0:  # Kafka's readers refuse a negative version of every message
            yield Mismatch(spec.name, "negativeVersions",
                           f"kvlog reads version {msg.valid.lo}, which Kafka refuses")
    tables: list[tuple[int, int, Message]]  # (spec version, kvlog version, kvlog table)
    if target.role == "key" and spec.type != "coordinator-key":
        # before 4.0 a key's version is the record type; kvlog reads every key at version 0
        tables = []
        for v in range(valid.lo, valid.hi + 1):
            if v in target.tables:
                tables.append((v, 0, target.tables[v]))
            else:
                yield Mismatch(spec.name, "table", f"key version {v} (a record type): kvlog has no "
                                                   f"{target.family} record type {v}")
    else:
        if spec.type in ("coordinator-key", "coordinator-value", "metadata"):
            if spec.api_key not in target.tables:
                yield Mismatch(spec.name, "apiKey", f"spec apiKey {spec.api_key}, kvlog's {target.family} "
                                                    f"tables it for {sorted(target.tables)}")
                return
            msg = target.tables[spec.api_key]
        else:
            msg = target.table
        if exact and msg.valid != valid:
            yield Mismatch(spec.name, "validVersions", f"spec {valid}, kvlog {msg.valid}")
        tables = [(v, v, msg) for v in range(valid.lo, valid.hi + 1)]
    for sv, kv, msg in tables:
        if kv not in msg.valid:
            yield Mismatch(spec.name, "validVersions", f"v{sv}: the spec's version is not valid in kvlog "
                                                       f"(kvlog {msg.valid})")
            continue
        if (sv in spec.flexible) != (kv in msg.flexible):
            yield Mismatch(spec.name, "flexibleVersions", f"v{sv}: flexible: spec {sv in spec.flexible}, "
                                                          f"kvlog {kv in msg.flexible}")
        notes: list[tuple[str, str]] = []
        spec_fields = spec_at(spec, sv, notes)
        kv_fields = kvlog_at(msg, kv, notes)
        for where, text in notes:
            yield Mismatch(spec.name, where, f"v{sv}: {text}")
        for m in _compare_fields(spec_fields, kv_fields, "", sv, exact):
            yield Mismatch(spec.name, m.where, m.text)
        if all(fd.name for fd in msg.fields):  # a table, not a fixed layout
            problem = _roundtrip(msg, kv)
            if problem:
                yield Mismatch(spec.name, "validVersions", f"v{sv}: kvlog cannot write and read it: {problem}")


def check_version(version: str, jars: Path) -> tuple[list[Mismatch], int]:
    """The mismatches of one Kafka version's specs (and of kvlog's tables the newest one lacks), and how
    many specs were compared."""
    specs, unparsed = _read_specs(jars)
    exact = version == NEWEST
    out: list[Mismatch] = []
    seen: set[str] = set()
    compared = 0
    for spec in specs:
        target = TARGETS.get(spec.name)
        if target is None:
            if _must_be_tabled(spec):
                out.append(Mismatch(spec.name, "table", f"{spec.type} spec (apiKey {spec.api_key}, versions "
                                                        f"{spec.valid}, {spec.where()}): kvlog has no table"))
            continue
        if spec.name in seen:
            out.append(Mismatch(spec.name, "table", f"a second spec of this name: {spec.where()}"))
            continue
        seen.add(spec.name)
        compared += 1
        out.extend(compare(spec, target, exact))
    for path in unparsed:
        stem = Path(path.split("!", 1)[1]).stem
        if stem in TARGETS or not path.startswith(("kafka-clients", "kafka-streams")):
            out.append(Mismatch(stem, "table", f"{path} is not JSON kvlog's test can read"))
    if exact:
        for name in sorted(set(TARGETS) - seen):
            out.append(Mismatch(name, "table", f"kvlog has a table for {name} ({TARGETS[name].family}); "
                                               f"Kafka {version}'s jars have no such spec"))
    return out, compared


# ============================================================================================ tests
@pytest.mark.parametrize("version", VERSION_PARAMS)
def test_schema_tables_match_the_kafka_specs(version):
    dist = KafkaDist.find(version)
    if dist is None:
        _skip_or_fail(unavailable(version) or f"Kafka {version}'s jars are not fetched")
        return
    mismatches, compared = check_version(version, dist.jars)
    assert compared >= 10, f"only {compared} specs of kvlog's record types in {dist.jars}"
    used: set[tuple[str, str, str]] = set()
    unexpected: list[str] = []
    for m in mismatches:
        key = (version, m.record, m.where)
        if key in EXCEPTIONS:
            used.add(key)
        else:
            unexpected.append(f"{m.record} {m.where}: {m.text}")
    stale = [f"{k[1]} {k[2]}: {EXCEPTIONS[k]}" for k in EXCEPTIONS if k[0] == version and k not in used]
    problems = unexpected + [f"exception no longer needed: {s}" for s in stale]
    assert not problems, (f"Kafka {version}: {len(unexpected)} mismatches between kvlog's schema tables and the "
                          f"specs in {dist.jars}, {len(stale)} stale exceptions:\n  " + "\n  ".join(problems))


def test_the_check_reports_each_kind_of_difference():
    """The comparison itself, on a made-up spec and a table that differs from it in every way it checks."""
    spec = Spec("made-up.jar", "X.json", json.loads(_strip_comments("""
        // a comment line, and one after a value: both go
        {"type": "coordinator-value", "apiKey": 7, "name": "XValue", "validVersions": "0-1",
         "flexibleVersions": "1+", "fields": [
          {"name": "A", "type": "int32", "versions": "0+", "about": "a // not a comment"},
          {"name": "B", "type": "string", "versions": "0+", "nullableVersions": "1+"},  // trailing
          {"name": "C", "type": "[]Item", "versions": "0+", "fields": [
            {"name": "D", "type": "int64", "versions": "0+", "default": "-1"}]},
          {"name": "E", "type": "int64", "taggedVersions": "1+", "tag": 0, "default": -1},
          {"name": "F", "type": "Ref", "versions": "1+"},
          {"name": "N", "type": "Ref", "versions": "0+", "nullableVersions": "0+", "default": "null"}],
         "commonStructs": [{"name": "Ref", "versions": "0+", "fields": [
          {"name": "G", "type": "uuid", "versions": "0+"}]}]}""")))
    assert spec.data["fields"][0]["about"] == "a // not a comment"
    table = codec.message("XValue", "0-1", "1+", [
        codec.f("A", "int32"),
        codec.f("B", "string", nullable="0+"),
        codec.f("C", "[]struct", fields=[codec.f("D", "int64")]),
        codec.f("E", "int64", "1+", tag=1, default=-1),
        codec.f("F", "struct", "1+", fields=[codec.f("G", "string")]),
        codec.f("N", "struct", nullable="0+", fields=[codec.f("G", "uuid")]),
        codec.f("H", "int8"),
    ])

    def found(target: Target, exact: bool) -> set[tuple[str, str]]:
        return {(m.where, m.text.split(":")[0] if m.text.startswith("v") else m.text)
                for m in compare(spec, target, exact)}

    target = Target("__consumer_offsets", "value", {7: table})
    assert found(target, exact=True) == {
        ("B", "v0"), ("C.D", "v0"), ("C.D", "v1"), ("E", "v1"), ("F.G", "v1"), ("N", "v0"), ("N", "v1"),
        ("H", "v0"), ("H", "v1")}
    texts = [m.text for m in compare(spec, target, True)]
    assert "v0: nullable: spec False, kvlog True" in texts
    assert "v1: default: spec -1, kvlog 0" in texts
    assert "v1: tag: spec 0, kvlog 1" in texts
    assert "v1: type: spec uuid, kvlog string" in texts
    # an older version: an untagged field's default does not matter, an untagged extra field does
    assert ("C.D", "v0") not in found(target, exact=False)
    assert ("H", "v0") in found(target, exact=False)
    wrong_key = Target("__consumer_offsets", "value", {8: table})
    assert [m.where for m in compare(spec, wrong_key, True)] == ["apiKey"]
    narrower = Target("__consumer_offsets", "value", {7: dataclasses.replace(table, valid=Versions(0, 0))})
    assert ("validVersions", "v1") in found(narrower, exact=False)
