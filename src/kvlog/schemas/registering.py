"""Registering schemas as a registry does, and serializing values in its wire format.

:class:`SchemasTopicWriter` keeps a ``_schemas`` topic the way Confluent's Schema Registry keeps it
(docs/schemas-topic.md): a schema registered under a subject becomes its next version; the same schema (the
same canonical text and references) registered again under that subject writes nothing, and under another
subject reuses its id; a new schema gets the highest id the topic ever held plus one. The records are written
as the registry 8.1+ writes them. :meth:`kvlog.schemas.RestRegistry.register` does the same through a
registry's REST API.

:class:`Serializer` turns Python values into payloads of the wire format (magic byte 0, the 4-byte schema id,
then the Avro encoding, the Protobuf message after its message indexes, or compact JSON), as Confluent's
serializers write them; Confluent's deserializers and a broker's consumers read them unchanged.
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
import re
import struct
import threading
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from kvlog.errors import SchemaError
from kvlog.schemas.registry import DEFAULT_CONTEXT, RegisteredSchema, SchemaReference, SchemaSource, normalize_type
from kvlog.schemas.schemas_topic import SCHEMAS_TOPIC, SchemasTopic

__all__ = ["SchemasTopicWriter", "Serializer", "canonical_text"]


def canonical_text(text: str, schema_type: str) -> str:
    """The text a registry stores: Avro as Java's ``Schema.toString()``, JSON Schema as compact JSON, Protobuf as
    given (the registry re-prints ``.proto`` text with its own printer, which kvlog does not reproduce)."""
    t = normalize_type(schema_type)
    if t == "AVRO":
        from kvlog.schemas.avro_write import canonical

        return canonical(text)
    if t == "JSON":
        try:
            return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
        except ValueError as exc:
            raise SchemaError(f"a JSON Schema that is not JSON: {exc}") from None
    return text


_STRICT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _strict(name: Any, what: str) -> None:
    if not isinstance(name, str) or _STRICT_NAME.fullmatch(name) is None:
        raise SchemaError(f"an Avro schema with an invalid {what} {name!r} (names start with a letter or _ and hold "
                          f"letters, digits and _)")


def _check_props(s: dict[str, Any], reserved: frozenset[str], where: str) -> None:
    """Avro's Java library refuses a record's, an array's or a map's property holding an integer beyond 64 bits
    (it converts those properties to Java values, and has none for such an integer)."""

    def fits(v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, list, dict)):
            return True
        if isinstance(v, int):
            return -(2**63) <= v < 2**63
        return all(fits(x) for x in (v.values() if isinstance(v, dict) else v))

    for k, v in s.items():
        if k not in reserved and not fits(v):
            raise SchemaError(f"{where}: the property {k!r} holds an integer beyond 64 bits")


def _check_names(s: Any, ns: str, depth: int = 0) -> None:
    """Names as the registry's Avro parser checks a new schema's (``NameValidator.STRICT_VALIDATOR``): type names
    and each part of their namespaces, their aliases, field names and enum symbols; fields' sort orders; and
    properties Avro's Java library can hold."""
    from kvlog.schemas.avro_write import _SCHEMA_RESERVED

    if depth > 100:
        raise SchemaError("an Avro schema nested more than 100 levels deep")
    if isinstance(s, list):
        for b in s:
            _check_names(b, ns, depth + 1)
        return
    if not isinstance(s, dict):
        return
    t = s.get("type")
    if t in ("record", "error", "array", "map"):  # (Java keeps other types' and fields' properties as they are)
        _check_props(s, _SCHEMA_RESERVED, f"a {t} type")
    if t in ("array", "map"):
        _check_names(s.get("items" if t == "array" else "values"), ns, depth + 1)
        return
    if t not in ("record", "error", "enum", "fixed"):
        return
    name = s.get("name")
    if not isinstance(name, str):
        raise SchemaError(f"a named Avro type without a name: {json.dumps(s)[:80]}")
    space = s.get("namespace")
    full = name if "." in name else (f"{space}.{name}" if isinstance(space, str) and space else
                                     (name if isinstance(space, str) else (f"{ns}.{name}" if ns else name)))
    for part in full.split("."):
        _strict(part, "name")
    for alias in s.get("aliases") or ():
        for part in str(alias).split("."):
            _strict(part, "alias")
    here = full.rpartition(".")[0]
    if t == "enum":
        for symbol in s.get("symbols") or ():
            _strict(symbol, "enum symbol")
    elif t in ("record", "error"):
        for f in s.get("fields") or ():
            if isinstance(f, dict):
                _strict(f.get("name"), "field name")
                order = f.get("order", "ascending")
                if not isinstance(order, str) or order.lower() not in ("ascending", "descending", "ignore"):
                    raise SchemaError(f"field {f.get('name')}: an invalid order {order!r}")
                _check_names(f.get("type"), here, depth + 1)


def _valid_default(t: Any, v: Any, depth: int = 0) -> bool:
    """Whether ``v`` (JSON) is a valid default for Avro type ``t``, as Avro's Java ``Schema.isValidDefault``
    decides it (an enum's or a fixed's default need only be text; a union's, fit any branch)."""
    from kvlog.schemas import avro as _avro

    if depth > 100:
        return False
    if isinstance(t, _avro.Union_):
        return any(_valid_default(b, v, depth + 1) for b in t.branches)
    k = t.kind
    if k == "null":
        return v is None
    if k == "boolean":
        return isinstance(v, bool)
    if k in ("int", "long"):
        lim = 2**31 if k == "int" else 2**63
        return isinstance(v, int) and not isinstance(v, bool) and -lim <= v < lim
    if k in ("float", "double"):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if k in ("string", "bytes", "enum", "fixed"):
        return isinstance(v, str)
    if isinstance(t, _avro.Array):
        return isinstance(v, list) and all(_valid_default(t.items, x, depth + 1) for x in v)
    if isinstance(t, _avro.Map):
        return isinstance(v, dict) and all(_valid_default(t.values, x, depth + 1) for x in v.values())
    if isinstance(t, _avro.Record):
        return isinstance(v, dict) and all(
            _valid_default(f.type, v[f.name], depth + 1) if f.name in v
            else f.has_default and _valid_default(f.type, f.default, depth + 1) for f in t.fields)
    return False


def _check_defaults(t: Any, seen: set[int]) -> None:
    from kvlog.schemas import avro as _avro

    if id(t) in seen:
        return
    seen.add(id(t))
    if isinstance(t, _avro.Union_):
        for b in t.branches:
            _check_defaults(b, seen)
    elif isinstance(t, _avro.Array):
        _check_defaults(t.items, seen)
    elif isinstance(t, _avro.Map):
        _check_defaults(t.values, seen)
    elif isinstance(t, _avro.Record):
        for f in t.fields:
            _check_defaults(f.type, seen)
            # (a float or double field's default given as text is a number: the canonical text holds it as one,
            # or as "NaN"/"Infinity")
            text_number = f.type.kind in ("float", "double") and isinstance(f.default, str)
            if f.has_default and not text_number and not _valid_default(f.type, f.default):
                raise SchemaError(f"the default of field {t.name}.{f.name} ({json.dumps(f.default)[:80]}) does not "
                                  f"fit its type")


def _check_resolution(s: Any, known: set[str]) -> None:
    """Names resolved as Avro's Java parser (1.12) resolves them: a name in the namespace it is used in, else, when
    that type is complete, the same name in no namespace; a name not found yet (a record's own, or one defined
    later) stays its full name, resolved at the end. ``known``: the names the schema's references define."""
    from kvlog.schemas.avro import PRIMITIVES

    complete, pending = set(known), []

    def use(name: str, ns: str) -> None:
        if name in PRIMITIVES:
            return
        full = name if "." in name or not ns else f"{ns}.{name}"
        if full not in complete and ("." in name or name not in complete):
            pending.append(full)

    def walk(s: Any, ns: str, depth: int) -> None:
        if depth > 200:
            raise SchemaError("an Avro schema nested more than 200 levels deep")
        if isinstance(s, str):
            use(s, ns)
        elif isinstance(s, list):
            for b in s:
                walk(b, ns, depth + 1)
        elif isinstance(s, dict) and isinstance(s.get("type"), str):
            t = s["type"]
            if t in ("array", "map"):
                walk(s.get("items" if t == "array" else "values"), ns, depth + 1)
            elif t in ("record", "error", "enum", "fixed") and isinstance(s.get("name"), str):
                name, space = s["name"], s.get("namespace")
                full = name if "." in name else (f"{space}.{name}" if isinstance(space, str) and space else
                                                 (name if isinstance(space, str) else (f"{ns}.{name}" if ns else name)))
                fields = s.get("fields") if t in ("record", "error") else None
                for f in fields if isinstance(fields, list) else ():
                    if isinstance(f, dict):
                        walk(f.get("type"), full.rpartition(".")[0], depth + 1)
                complete.add(full)
            else:
                use(t, ns)

    walk(s, "", 0)
    for full in pending:
        if full not in complete:
            raise SchemaError(f"an Avro schema names the type {full!r}, which is not defined where it is used")


def _check_avro(source: SchemaSource, given: str, text: str, references: tuple[SchemaReference, ...],
                subject: str) -> None:
    """What the registry refuses of a new Avro schema (``given``, its canonical form ``text``): what Avro's Java
    parser refuses, with strict names and checked defaults (``schema.validate.new.schemas``, on by default)."""
    from kvlog.schemas import avro as _avro
    from kvlog.schemas.plans import parse_registered

    raw = _avro.parse_json(given)
    _check_names(raw, "")
    named: dict[str, Any] = {}
    for _ref, target in source.references(RegisteredSchema(-1, "AVRO", given, references, subject)):
        if target.schema_type == "AVRO":
            _avro.parse(target.schema, named, into=named)
    _check_resolution(raw, set(named))
    parse_registered(source, RegisteredSchema(-1, "AVRO", given, references, subject))  # (a type defined twice)
    _check_defaults(parse_registered(source, RegisteredSchema(-1, "AVRO", text, references, subject)), set())


def _check(source: SchemaSource, stype: str, given: str, text: str, references: tuple[SchemaReference, ...],
           subject: str) -> None:
    """What the registry refuses to register: an empty schema, a reference to a version it does not hold, and a
    schema its parser refuses (Avro as :func:`_check_avro`; Protobuf text that does not compile with its imports;
    JSON Schema that is not an object or a boolean)."""
    if not given.strip():
        raise SchemaError("an empty schema", subject=subject)
    candidate = RegisteredSchema(-1, stype, text, references, subject)
    source.references(candidate)
    if stype == "AVRO":
        _check_avro(source, given, text, references, subject)
    elif stype == "PROTOBUF":
        from kvlog.schemas import proto_plan

        proto_plan.load(source, candidate)
    elif not isinstance(json.loads(text), (dict, bool)):
        raise SchemaError("a JSON Schema is an object or a boolean", subject=subject)


def _schema_key(subject: str, version: int) -> dict[str, Any]:
    return {"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1}


def _compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


_COMPATIBILITY = ("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE")


def _max_id(log: Any) -> int:
    """The highest id any ``SCHEMA`` record of the topic ever named: the registry's id counter counts every value
    it replays, also of versions hard-deleted since (while their records stay in the log)."""
    table = log.to_arrow()
    top = 0
    for key, value in zip(table.column("key").to_pylist(), table.column("value").to_pylist()):
        if not key or not value or b'"SCHEMA"' not in key:
            continue
        try:
            k, v = json.loads(key), json.loads(value)
            if isinstance(k, dict) and k.get("keytype") == "SCHEMA" and isinstance(v, dict):
                top = max(top, int(v["id"]))
        except (ValueError, TypeError, KeyError):
            continue  # (SchemasTopic lists the records it cannot read)
    return top


def _schema_value(s: RegisteredSchema, subject: str, version: int, deleted: bool) -> dict[str, Any]:
    """A ``SCHEMA`` value, its fields in the order the registry (8.1+) writes them."""
    value: dict[str, Any] = {"subject": subject, "version": version, "id": s.id, "schemaType": s.schema_type}
    if s.references:
        value["references"] = [{"name": r.name, "subject": r.subject, "version": r.version} for r in s.references]
    value["schema"] = s.schema
    value["deleted"] = deleted
    return value


class SchemasTopicWriter(SchemaSource):
    """A ``_schemas`` topic in a data directory (created, compacted, when missing), written as the registry
    writes it, and read back as a schema source. ``target``: a data directory's path or a ``LogManager``."""

    def __init__(self, target: Any, *, topic: str = SCHEMAS_TOPIC) -> None:
        from kvlog.config import LogConfig
        from kvlog.errors import UnknownTopicOrPartitionError
        from kvlog.manager import LogManager

        self._owned = not isinstance(target, LogManager)
        self.manager = LogManager(target) if self._owned else target
        self.topic = topic
        try:
            self.manager.partitions(topic)
        except UnknownTopicOrPartitionError:
            self.manager.create_topic(topic, 1, LogConfig(cleanup_policy="compact"))
        self.log = self.manager.log(topic, 0)
        self.description = f"the {topic} topic of {self.manager.root}"
        self._lock = threading.Lock()
        self._started = False
        self.state = SchemasTopic.read(self.log)
        self.max_id = _max_id(self.log)

    def close(self) -> None:
        if self._owned:
            self.manager.close()

    def __enter__(self) -> SchemasTopicWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------ as a source
    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        return self.state.by_id(schema_id, context)

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        return self.state.version(subject, version)

    def subjects(self) -> list[str]:
        return self.state.subjects()

    def by_guid(self, guid: uuid.UUID) -> RegisteredSchema:
        return self.state.by_guid(guid)

    # ---------------------------------------------------------------------------------------- writing
    def _append(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        from kvlog.records import Record

        if not self._started:  # a registry instance writes a NOOP at start-up, before its first write
            self._started = True
            self._append({"keytype": "NOOP", "magic": 0}, None)
        k = _compact(key)
        v = None if value is None else _compact(value)
        offset = self.log.log_end_offset
        self.log.append([Record(k, v, int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000))])
        self.state.apply(k, v, offset)

    def register(self, subject: str, schema: str, schema_type: str = "AVRO",
                 references: Sequence[SchemaReference] = ()) -> RegisteredSchema:
        """``schema`` under ``subject`` (see the module's notes): the registered schema, its id and version."""
        stype = normalize_type(schema_type)
        text = canonical_text(schema, stype)
        refs = tuple(references)
        with self._lock:
            for s in self.state.schemas():
                if s.subject == subject and not s.deleted and s.schema == text and s.references == refs:
                    return s
            _check(self.state, stype, schema, text, refs, subject)
            same = [s for s in self.state.schemas() if s.schema == text and s.references == refs]
            sid = same[0].id if same else self.max_id + 1
            versions = [s for s in self.state.schemas() if s.subject == subject]
            version = max((s.version or 0 for s in versions), default=0) + 1
            # the registry hard-deletes the subject's soft-deleted versions of the same id as it registers it anew
            for old in versions:
                if old.deleted and old.id == sid and old.version is not None:
                    self._append(_schema_key(subject, old.version), None)
            new = RegisteredSchema(sid, stype, text, refs)
            self._append(_schema_key(subject, version), _schema_value(new, subject, version, False))
            self.max_id = max(self.max_id, sid)
            return self.state.version(subject, version)

    def serializer(self, subject: str, schema: str, schema_type: str = "AVRO", *,
                   references: Sequence[SchemaReference] = (), message: str | None = None) -> Serializer:
        """``schema`` registered under ``subject`` (:meth:`register`) and its :class:`Serializer`."""
        return Serializer(self.register(subject, schema, schema_type, references), self, message=message)

    def _not_referenced(self, subject: str, version: int) -> None:
        """Refuses to delete a version that a live version references, as the registry refuses (42206)."""
        for s in self.state.schemas():
            if not s.deleted and any(r.subject == subject and r.version == version for r in s.references):
                raise SchemaError(f"version {version} of {subject!r} is referenced by version {s.version} of "
                                  f"{s.subject!r}", subject=subject, version=version)

    def delete_version(self, subject: str, version: int, *, permanent: bool = False) -> None:
        """A version's soft delete (its value rewritten with ``deleted: true``) or, once soft-deleted, its hard
        delete (a tombstone; the subject's compatibility and mode go with its last version), as the registry
        writes them. A version soft-deleted already, or referenced by a live one, is refused as the registry
        refuses it."""
        with self._lock:
            s = self.state.version(subject, version)
            key = _schema_key(subject, version)
            if permanent:
                if not s.deleted:
                    raise SchemaError(f"version {version} of {subject!r} must be soft-deleted first", subject=subject,
                                      version=version)
                self._not_referenced(subject, version)
                self._append(key, None)
                if not self.state.versions(subject, deleted=True):
                    if subject in self.state.modes:
                        self._append({"keytype": "MODE", "subject": subject, "magic": 0}, None)
                    if subject in self.state.configs:
                        self._append({"keytype": "CONFIG", "subject": subject, "magic": 0}, None)
                return
            if s.deleted:
                raise SchemaError(f"version {version} of {subject!r} is soft-deleted already", subject=subject,
                                  version=version)
            self._not_referenced(subject, version)
            self._append(key, _schema_value(s, subject, version, True))

    def delete_subject(self, subject: str) -> None:
        """A subject's soft delete: one ``DELETE_SUBJECT`` record naming its highest version."""
        with self._lock:
            live = self.state.versions(subject)
            if not live:
                self.state.version(subject)  # (the registry's "not found")
            for v in live:
                self._not_referenced(subject, v)
            self._append({"keytype": "DELETE_SUBJECT", "subject": subject, "magic": 0},
                         {"subject": subject, "version": live[-1]})

    def set_compatibility(self, level: str, subject: str | None = None) -> None:
        """The global (``subject`` None) or a subject's compatibility level: a ``CONFIG`` record."""
        name = str(level).upper()
        if name not in _COMPATIBILITY:
            raise SchemaError(f"unknown compatibility level {level!r} (one of {', '.join(_COMPATIBILITY)})",
                              subject=subject)
        key: dict[str, Any] = {"keytype": "CONFIG"}
        if subject is not None:
            key["subject"] = subject
        key["magic"] = 0
        value: dict[str, Any] = {} if subject is None else {"subject": subject}
        value["compatibilityLevel"] = name
        with self._lock:
            self._append(key, value)


# ------------------------------------------------------------------------------------------ serializing
class _References(SchemaSource):
    """The schemas a schema references, by subject and version: what a pickled serializer carries."""

    description = "the references of a serializer's schema"

    def __init__(self, refs: Iterable[tuple[SchemaReference, RegisteredSchema]]) -> None:
        self._versions = {(r.subject, r.version): s for r, s in refs}

    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        for s in self._versions.values():
            if s.id == schema_id:
                return s
        from kvlog.errors import SchemaNotFoundError

        raise SchemaNotFoundError(f"no schema with id {schema_id} in {self.description}", schema_id=schema_id)

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        from kvlog.errors import SchemaNotFoundError

        found = self._versions.get((subject, version)) if isinstance(version, int) else None
        if found is None:
            raise SchemaNotFoundError(f"no version {version} of {subject!r} in {self.description}", subject=subject)
        return found

    def subjects(self) -> list[str]:
        return sorted({s for s, _ in self._versions})


def _json_default(v: Any) -> Any:
    if isinstance(v, datetime.datetime):
        return v.isoformat().replace("+00:00", "Z")
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, (decimal.Decimal, uuid.UUID)):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(v)).decode()
    raise TypeError(f"{type(v).__name__} is not JSON")


class Serializer:
    """Values of one registered schema as wire-format payloads (see the module's notes).

    ``schema``: a registered schema (with its id), e.g. what :meth:`SchemasTopicWriter.register` returns;
    ``source``: where its references are read from; ``message``: the Protobuf message (default: the file's
    first). Calling it on a value gives the payload (None stays None)."""

    def __init__(self, schema: RegisteredSchema, source: SchemaSource | None = None, *,
                 message: str | None = None, wire: bool = True) -> None:
        if wire and schema.id < 0:
            raise SchemaError("a serializer needs a registered schema (with an id)")
        self.schema = schema
        self.wire = wire
        self.message = message
        self._source = source
        self.prefix = struct.pack(">bI", 0, schema.id) if wire else b""
        self._encode: Any
        #: what the schema is, for messages (its record's, enum's or fixed's name, its message, its title)
        self.name = f"the {schema.schema_type.lower()} schema"
        if schema.schema_type == "AVRO":
            from kvlog.schemas.avro_write import encode
            from kvlog.schemas.plans import parse_registered

            avro_type = parse_registered(source, schema)
            raw_bytes = getattr(avro_type, "kind", "") == "bytes" and getattr(avro_type, "logical", None) is None
            if hasattr(avro_type, "name"):
                self.name = f"{avro_type.kind} {avro_type.name}"

            def avro(v: Any) -> bytes:
                if raw_bytes and wire:  # top-level bytes are written raw, as Confluent's serializers write them
                    if not isinstance(v, (bytes, bytearray, memoryview)):
                        raise TypeError(f"bytes expected, not {type(v).__name__}")
                    return bytes(v)
                return bytes(encode(avro_type, v))

            self._encode = avro
        elif schema.schema_type == "PROTOBUF":
            self._encode = self._protobuf(source, message)
        else:
            try:
                title = json.loads(schema.schema).get("title")
            except (ValueError, AttributeError):
                title = None
            if isinstance(title, str):
                self.name = f"JSON Schema {title}"
            self._encode = lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False,
                                                default=_json_default).encode("utf-8")

    def _protobuf(self, source: SchemaSource | None, message: str | None) -> Any:
        from google.protobuf import descriptor_pool, message_factory

        from kvlog.schemas import proto_plan
        from kvlog.schemas.proto_fill import fill, index_path

        ps = proto_plan.load(source, self.schema)
        pool = descriptor_pool.DescriptorPool()
        for fd in [*proto_plan._well_known(), *ps.files.values(), ps.main]:
            try:
                pool.Add(fd)
            except (TypeError, ValueError):
                pass  # (a well-known file the pool holds already)
        name = ps.message(message) if message else ps.message_at((0,))
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(name.lstrip(".")))
        self.name = f"message {name.lstrip('.')}"
        indexes = index_path(ps, name)
        from kvlog.schemas.proto_fill import encode_indexes

        if self.wire:
            self.prefix += encode_indexes(indexes)

        from google.protobuf.message import Error as ProtobufError

        def proto(v: Any) -> bytes:
            if hasattr(v, "SerializeToString"):
                if getattr(getattr(v, "DESCRIPTOR", None), "full_name", None) != cls.DESCRIPTOR.full_name:
                    raise TypeError(f"a {type(v).__name__} message is not a {cls.DESCRIPTOR.full_name}")
                m = v
            else:
                m = cls()
                fill(m, v)
            try:
                return bytes(m.SerializeToString())
            except ProtobufError as exc:  # (a proto2 message missing a required field)
                raise ValueError(str(exc)) from None

        return proto

    def __call__(self, value: Any) -> bytes | None:
        if value is None:
            return None
        try:
            return self.prefix + bytes(self._encode(value))
        except (TypeError, ValueError, OverflowError, KeyError) as exc:
            raise SchemaError(f"a value that does not fit {self.name}: {exc}",
                              schema_id=self.schema.id if self.schema.id >= 0 else None,
                              subject=self.schema.subject, version=self.schema.version) from None

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its schema, the schemas it references and its options (what a Spark task rebuilds it
        from)."""
        refs = _References(self._source.references(self.schema)) if self._source is not None else None
        return (_rebuild, (self.schema, refs, self.message, self.wire))

    @classmethod
    def bare(cls, schema: str, schema_type: str = "AVRO", *, message: str | None = None,
             source: SchemaSource | None = None) -> Serializer:
        """Values as bare payloads of ``schema`` (its text), with no wire-format prefix: what a topic read with
        the ``avro``/``protobuf``/``json`` formats holds."""
        stype = normalize_type(schema_type)
        return cls(RegisteredSchema(-1, stype, schema), source, message=message, wire=False)

    def many(self, values: Iterable[Any]) -> list[bytes | None]:
        return [self(v) for v in values]

    def records(self, values: Iterable[Any], *, keys: Iterable[Any] | None = None,
                key_serializer: Serializer | None = None, timestamps: Iterable[int] | None = None,
                headers: Iterable[Sequence[tuple[str, bytes]]] | None = None) -> list[Any]:
        """:class:`kvlog.Record` s for ``Log.append``: each value serialized, with its key (serialized by
        ``key_serializer`` when given, else bytes or None), timestamp (default: now) and headers."""
        from kvlog.records import Record

        vals = list(values)
        n = len(vals)
        ks = [None] * n if keys is None else list(keys)
        now = int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000)
        ts = [now] * n if timestamps is None else [int(t) for t in timestamps]
        hs: list[Sequence[tuple[str, bytes]]] = [()] * n if headers is None else list(headers)
        if not len(ks) == len(ts) == len(hs) == n:
            raise SchemaError(f"{n} values but {len(ks)} keys, {len(ts)} timestamps and {len(hs)} header lists")
        return [Record(key_serializer(k) if key_serializer is not None else k, self(v), t, tuple(h))
                for v, k, t, h in zip(vals, ks, ts, hs)]


def register_and_serializer(target: Any, subject: str, schema: str, schema_type: str = "AVRO", *,
                            message: str | None = None) -> Serializer:
    """Registers ``schema`` under ``subject`` in ``target`` (a data directory, a ``LogManager``, a
    :class:`SchemasTopicWriter` or a :class:`~kvlog.schemas.rest.RestRegistry`) and gives its serializer."""
    from kvlog.schemas.rest import RestRegistry

    if isinstance(target, (SchemasTopicWriter, RestRegistry)):
        writer: Any = target
        reg = writer.register(subject, schema, schema_type)
        return Serializer(reg, writer, message=message)
    if isinstance(target, (str, os.PathLike)) and str(target).startswith(("http://", "https://")):
        rest = RestRegistry(str(target))
        return Serializer(rest.register(subject, schema, schema_type), rest, message=message)
    with SchemasTopicWriter(target) as w:
        reg = w.register(subject, schema, schema_type)
        return Serializer(reg, w.state, message=message)


def _rebuild(schema: RegisteredSchema, refs: SchemaSource | None, message: str | None, wire: bool) -> Serializer:
    return Serializer(schema, refs, message=message, wire=wire)
