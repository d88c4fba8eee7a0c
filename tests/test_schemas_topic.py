"""The `_schemas` replay (docs/schemas-topic.md): each rule, Karapace's forms, damaged records, and the replay
from a data directory. The records are written as Confluent's registry writes them (compact JSON, the key
field orders of its @JsonPropertyOrder)."""

from __future__ import annotations

import json
import uuid

import pytest

import kvlog
from kvlog.errors import SchemaError, SchemaNotFoundError
from kvlog.schemas.registry import RegisteredSchema, SchemaMapping, SchemaReference, split_context
from kvlog.schemas.schemas_topic import SchemasTopic

AVRO1 = '{"type":"record","name":"U","fields":[{"name":"a","type":"string"}]}'
AVRO2 = '{"type":"record","name":"U","fields":[{"name":"a","type":"string"},{"name":"b","type":"int","default":0}]}'


def _j(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def schema_key(subject: str, version: int, magic: int = 1) -> bytes:
    return _j({"keytype": "SCHEMA", "subject": subject, "version": version, "magic": magic})


def schema_value(subject: str, version: int, sid: int, text: str, *, deleted: bool = False, stype: str | None = None,
                 refs: list[dict[str, object]] | None = None) -> bytes:
    v: dict[str, object] = {"subject": subject, "version": version, "id": sid}
    if stype is not None:
        v["schemaType"] = stype
    if refs:
        v["references"] = refs
    v["schema"] = text
    v["deleted"] = deleted
    return _j(v)


def replay(*records: tuple[bytes | None, bytes | None]) -> SchemasTopic:
    return SchemasTopic.from_records((k, v, i) for i, (k, v) in enumerate(records))


def test_versions_ids_and_latest():
    t = replay(
        (_j({"keytype": "NOOP", "magic": 0}), None),
        (schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1)),
        (schema_key("u-value", 2), schema_value("u-value", 2, 2, AVRO2)),
        (_j({"keytype": "CONFIG", "magic": 0}), _j({"compatibilityLevel": "BACKWARD"})),
        (_j({"keytype": "CONFIG", "subject": "u-value", "magic": 0}),
         _j({"subject": "u-value", "compatibilityLevel": "FULL"})),
    )
    assert t.by_id(1).schema == AVRO1 and t.by_id(1).schema_type == "AVRO"
    assert t.version("u-value").version == 2 and t.version("u-value").id == 2
    assert t.version("u-value", 1).id == 1
    assert t.subjects() == ["u-value"]
    assert t.configs == {None: {"compatibilityLevel": "BACKWARD"},
                         "u-value": {"subject": "u-value", "compatibilityLevel": "FULL"}}
    assert t.problems == []
    with pytest.raises(SchemaNotFoundError, match="no schema with id 3"):
        t.by_id(3)
    with pytest.raises(SchemaNotFoundError, match="no subject 'x-value'"):
        t.version("x-value")


def test_same_schema_under_two_subjects_shares_its_id():
    t = replay((schema_key("a-value", 1), schema_value("a-value", 1, 1, AVRO1)),
               (schema_key("b-value", 1), schema_value("b-value", 1, 1, AVRO1)))
    assert t.version("a-value").id == t.version("b-value").id == 1
    # a hard delete of one version leaves the id resolvable through the other
    t.apply(schema_key("a-value", 1), None, 2)
    assert t.by_id(1).schema == AVRO1
    t.apply(schema_key("b-value", 1), None, 3)
    with pytest.raises(SchemaNotFoundError):
        t.by_id(1)


def test_soft_delete_keeps_the_id_and_drops_the_version_from_latest():
    t = replay((schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1)),
               (schema_key("u-value", 2), schema_value("u-value", 2, 2, AVRO2)),
               (schema_key("u-value", 2), schema_value("u-value", 2, 2, AVRO2, deleted=True)))
    assert t.version("u-value").version == 1
    assert t.by_id(2).schema == AVRO2  # old records still name it
    assert t.versions("u-value") == [1] and t.versions("u-value", deleted=True) == [1, 2]


def test_hard_delete_removes_the_version_and_its_id():
    t = replay((schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1)),
               (schema_key("u-value", 2), schema_value("u-value", 2, 2, AVRO2, deleted=True)),
               (schema_key("u-value", 2), None))
    with pytest.raises(SchemaNotFoundError):
        t.by_id(2)
    assert t.versions("u-value", deleted=True) == [1]


def test_delete_subject_soft_deletes_up_to_its_version():
    t = replay((schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1)),
               (schema_key("u-value", 2), schema_value("u-value", 2, 2, AVRO2)),
               (_j({"keytype": "DELETE_SUBJECT", "subject": "u-value", "magic": 0}),
                _j({"subject": "u-value", "version": 2})))
    with pytest.raises(SchemaNotFoundError, match="every version of subject 'u-value' is deleted"):
        t.version("u-value")
    assert t.by_id(1).schema == AVRO1 and t.by_id(2).schema == AVRO2
    assert t.subjects() == [] and t.subjects(deleted=True) == ["u-value"]
    # a version registered after the delete is live again
    t.apply(schema_key("u-value", 3), schema_value("u-value", 3, 3, AVRO2 + " "), 3)
    assert t.version("u-value").version == 3


def test_clear_subject_drops_deleted_versions_only():
    t = replay((schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1, deleted=True)),
               (schema_key("u-value", 2), schema_value("u-value", 2, 2, AVRO2)),
               (_j({"keytype": "CLEAR_SUBJECT", "subject": "u-value", "magic": 0}), _j({"subject": "u-value"})))
    assert t.versions("u-value", deleted=True) == [2]
    with pytest.raises(SchemaNotFoundError):
        t.by_id(1)


def test_an_id_reused_for_another_schema_is_ignored_as_the_registry_ignores_it():
    t = replay((schema_key("a-value", 1), schema_value("a-value", 1, 1, AVRO1)),
               (schema_key("b-value", 1), schema_value("b-value", 1, 1, AVRO2)))
    assert t.by_id(1).schema == AVRO1
    assert len(t.problems) == 1 and "already names another schema" in t.problems[0]
    with pytest.raises(SchemaNotFoundError):
        t.version("b-value")


def test_schema_types_references_and_magic_zero_keys():
    refs = [{"name": "money.proto", "subject": "money", "version": 1}]
    t = replay((schema_key("money", 1, magic=0), _j({"subject": "money", "version": 1, "id": 1,
                                                      "schemaType": "PROTOBUF", "schema": "syntax = \"proto3\";"})),
               (schema_key("o-value", 1), schema_value("o-value", 1, 2, "syntax = \"proto3\";", stype="PROTOBUF",
                                                       refs=refs)),
               (schema_key("j-value", 1), schema_value("j-value", 1, 3, '{"type":"object"}', stype="JSON")),
               (schema_key("a-value", 1), schema_value("a-value", 1, 4, AVRO1, stype="AVRO")))
    assert [t.by_id(i).schema_type for i in (1, 2, 3, 4)] == ["PROTOBUF", "PROTOBUF", "JSON", "AVRO"]
    assert t.by_id(2).references == (SchemaReference("money.proto", "money", 1),)
    assert [target.id for _, target in t.references(t.by_id(2))] == [1]


def test_karapace_forms_deprecated_key_order_empty_tombstones_and_headers_free():
    # Karapace's deprecated key order, its global config key with "subject": null, and b"" as a tombstone
    key = b'{"subject":"u-value","version":1,"magic":1,"keytype":"SCHEMA"}'
    t = replay((key, b'{"subject":"u-value","version":1,"id":1,"schema":"\\"string\\"","deleted":false}'),
               (b'{"keytype":"CONFIG","subject":null,"magic":0}', b'{"compatibilityLevel":"NONE"}'),
               (key, b""))
    assert t.configs == {None: {"compatibilityLevel": "NONE"}}
    with pytest.raises(SchemaNotFoundError):
        t.by_id(1)


def test_contexts_scope_ids():
    t = replay((schema_key(":.staging:u-value", 1), schema_value(":.staging:u-value", 1, 1, AVRO2)),
               (schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1)))
    assert t.by_id(1).schema == AVRO1
    assert t.by_id(1, ".staging").schema == AVRO2
    assert t.version(":.staging:u-value").schema == AVRO2
    assert t.subjects() == [":.staging:u-value", "u-value"]
    assert split_context(":.staging:u-value") == (".staging", "u-value")


@pytest.mark.parametrize("key,value,what", [
    (None, b"{}", "without a key"),
    (b"{not json", b"{}", "not JSON"),
    (b"[1]", b"{}", "not a JSON object"),
    (schema_key("u", 1), b"{bad", "not JSON"),
    (schema_key("u", 1), b'{"subject":"u","version":1}', "cannot be read"),
    (schema_key("u", 1), b'{"subject":"u","version":1,"id":1,"schema":5}', "cannot be read"),
    (schema_key("u", 1, magic=7), schema_value("u", 1, 1, AVRO1), "magic 7"),
    (schema_key("u", 1), b'{"subject":"u","version":1,"id":1,"schema":"x","schemaType":"XML"}', "cannot be read"),
])
def test_records_that_cannot_be_read_are_listed_and_named_by_a_miss(key, value, what):
    t = replay((key, value))
    assert len(t.problems) == 1 and what in t.problems[0]
    with pytest.raises(SchemaNotFoundError, match="could not be read"):
        t.by_id(1)


def test_unknown_key_types_are_skipped_silently():
    t = replay((_j({"keytype": "CONTEXT", "tenant": "default", "context": ".x", "magic": 0}),
                _j({"tenant": "default", "context": ".x"})),
               (_j({"keytype": "SOMETHING_NEW", "magic": 0}), b"{}"),
               (_j({"keytype": "MODE", "magic": 0}), _j({"mode": "IMPORT"})))
    assert t.problems == [] and t.modes == {None: "IMPORT"}


def test_guid_is_the_md5_of_the_text_and_references():
    import hashlib
    import struct

    ref = SchemaReference("n", "s", 2)
    s = RegisteredSchema(1, "AVRO", AVRO1, (ref,))
    h = hashlib.md5(AVRO1.encode() + b"n" + b"s" + struct.pack(">i", 2)).digest()
    assert s.derived_guid() == uuid.UUID(bytes=h)
    t = replay((schema_key("u", 1), schema_value("u", 1, 9, AVRO1)))
    assert t.by_guid(uuid.UUID(bytes=hashlib.md5(AVRO1.encode()).digest())).id == 9


def test_replayed_from_a_data_directory_and_missing_topic_said(tmp_path):
    mgr = kvlog.LogManager(tmp_path)
    mgr.create_topic("_schemas", 1)
    mgr.create_topic("other", 1)
    mgr.log("_schemas", 0).append([kvlog.Record(schema_key("u-value", 1), schema_value("u-value", 1, 1, AVRO1), 0)])
    mgr.close()
    t = SchemasTopic.read(str(tmp_path))
    assert t.by_id(1).schema == AVRO1 and t.records == 1 and t.end_offset == 1
    assert "_schemas topic" in t.description
    with pytest.raises(SchemaNotFoundError, match="holds no _schemas topic"):
        SchemasTopic.read(str(tmp_path / "other-0"))


def test_mapping_source_checks_what_it_is_given():
    with pytest.raises(SchemaError, match="integers"):
        SchemaMapping({"1": AVRO1})  # type: ignore[dict-item]
    with pytest.raises(SchemaError, match="names schema id 2"):
        SchemaMapping({1: AVRO1}, subjects={"u": [1, 2]})
    m = SchemaMapping({1: AVRO1, 2: ("PROTOBUF", "syntax = \"proto3\";")}, subjects={"u": [1]})
    assert m.by_id(2).schema_type == "PROTOBUF" and m.version("u").version == 1
    with pytest.raises(SchemaNotFoundError):
        m.version("u", 2)
