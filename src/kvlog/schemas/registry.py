"""Registered schemas and the sources that hold them.

A schema registry (Confluent's, Karapace, Apicurio's compatible API, Redpanda's) gives each schema it
registers an id, and each subject (``<topic>-value`` by default) a list of versions. Payloads in its wire
format name the id (or the schema's GUID); a reader needs the schema behind it, and the subject's latest
version to read every version as one table. :class:`SchemaSource` is that lookup; its implementations read
the registry's own ``_schemas`` topic (:mod:`kvlog.schemas.schemas_topic`), its REST API
(:mod:`kvlog.schemas.rest`), a folder of schema files (:mod:`kvlog.schemas.files`) or a mapping given in
Python (:class:`SchemaMapping`).
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from kvlog.errors import SchemaError, SchemaNotFoundError

__all__ = ["DEFAULT_CONTEXT", "RegisteredSchema", "SchemaMapping", "SchemaReference", "SchemaSource",
           "SCHEMA_TYPES", "normalize_type", "split_context"]

SCHEMA_TYPES = ("AVRO", "PROTOBUF", "JSON")
DEFAULT_CONTEXT = "."


def normalize_type(t: str | None) -> str:
    """A registry's schema type (absent means Avro); ``JSONSCHEMA`` (Karapace's REST spelling) is ``JSON``."""
    if t is None or t == "":
        return "AVRO"
    up = str(t).upper()
    if up == "JSONSCHEMA":
        up = "JSON"
    if up not in SCHEMA_TYPES:
        raise SchemaError(f"unknown schema type {t!r} (a registry's types are {', '.join(SCHEMA_TYPES)})")
    return up


def split_context(subject: str) -> tuple[str, str]:
    """``(context, subject)`` of a possibly qualified subject: ``:.ctx:orders-value`` is ``(".ctx",
    "orders-value")``; an unqualified subject is in the default context ``.``."""
    if subject.startswith(":.") and ":" in subject[2:]:
        ctx, _, rest = subject[1:].partition(":")
        return ctx, rest
    return DEFAULT_CONTEXT, subject


@dataclass(frozen=True)
class SchemaReference:
    """A named dependency of a schema: another subject's version (an Avro named type, a Protobuf import)."""

    name: str
    subject: str
    version: int


@dataclass(frozen=True)
class RegisteredSchema:
    """One schema as a registry holds it: its id, type (``AVRO``, ``PROTOBUF``, ``JSON``), text and references,
    and, when known, one subject and version it is registered under and whether that version is deleted."""

    id: int
    schema_type: str
    schema: str
    references: tuple[SchemaReference, ...] = ()
    subject: str | None = None
    version: int | None = None
    deleted: bool = False
    context: str = DEFAULT_CONTEXT
    guid: uuid.UUID | None = field(default=None, compare=False)

    def derived_guid(self) -> uuid.UUID:
        """The GUID a registry gives this schema (and payloads in the GUID wire format name): the MD5 of the
        schema text and its references, as Confluent's registry computes it for schemas without metadata or
        rules."""
        if self.guid is not None:
            return self.guid
        h = hashlib.md5(usedforsecurity=False)
        h.update(self.schema.encode("utf-8"))
        for ref in self.references:
            h.update(ref.name.encode("utf-8"))
            h.update(ref.subject.encode("utf-8"))
            h.update(struct.pack(">i", ref.version))
        return uuid.UUID(bytes=h.digest())


SchemaLike = Union[RegisteredSchema, str, tuple[str, str], Mapping[str, Any]]


class SchemaSource(ABC):
    """Where registered schemas come from. Lookups raise :class:`~kvlog.errors.SchemaNotFoundError` for what
    the source does not hold; a source is safe to share between threads."""

    #: what the source is, for messages (a path, a URL without credentials, "a mapping")
    description: str = "a schema source"

    @abstractmethod
    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        """The schema registered with ``schema_id`` (soft-deleted ones too: old records still name them)."""

    @abstractmethod
    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        """A subject's version (``"latest"``: its highest version that is not deleted)."""

    @abstractmethod
    def subjects(self) -> list[str]:
        """The subjects with at least one version that is not deleted."""

    def by_guid(self, guid: uuid.UUID) -> RegisteredSchema:
        """The schema with ``guid`` (the GUID wire format)."""
        raise SchemaNotFoundError(f"{self.description} cannot look schemas up by GUID ({guid})")

    def references(self, schema: RegisteredSchema) -> list[tuple[SchemaReference, RegisteredSchema]]:
        """``schema``'s references, each with the schema it names, depth first (a reference's references
        come before it), each once."""
        out: list[tuple[SchemaReference, RegisteredSchema]] = []
        seen: set[tuple[str, int]] = set()

        def visit(s: RegisteredSchema, depth: int) -> None:
            if depth > 64:
                raise SchemaError("schema references nested more than 64 deep (a cycle?)", schema_id=schema.id)
            for ref in s.references:
                key = (ref.subject, ref.version)
                if key in seen:
                    continue
                seen.add(key)
                try:
                    target = self.version(ref.subject, ref.version)
                except SchemaNotFoundError as exc:
                    raise SchemaNotFoundError(f"the reference {ref.name!r} names {ref.subject!r} version "
                                              f"{ref.version}, which {self.description} does not hold: {exc.reason}",
                                              schema_id=schema.id) from None
                visit(target, depth + 1)
                out.append((ref, target))

        visit(schema, 0)
        return out

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}>"


def _registered(schema_id: int, value: SchemaLike, subject: str | None = None,
                version: int | None = None) -> RegisteredSchema:
    if isinstance(value, RegisteredSchema):
        return value
    if isinstance(value, str):
        return RegisteredSchema(schema_id, _guess_type(value), value, (), subject, version)
    if isinstance(value, tuple) and len(value) == 2:
        return RegisteredSchema(schema_id, normalize_type(value[0]), value[1], (), subject, version)
    if isinstance(value, Mapping):
        text = value.get("schema")
        if not isinstance(text, str):
            raise SchemaError(f"schema {schema_id}: a mapping's entry needs its text under 'schema'")
        refs = tuple(SchemaReference(r["name"], r["subject"], int(r["version"])) for r in value.get("references") or ())
        return RegisteredSchema(schema_id, normalize_type(value.get("schemaType")), text, refs,
                                value.get("subject", subject), value.get("version", version))
    raise SchemaError(f"schema {schema_id}: expected schema text, (type, text), a dict or a RegisteredSchema, "
                      f"not {type(value).__name__}")


def _guess_type(text: str) -> str:
    """The type of schema text given without one: ``.proto`` source, else JSON Schema when it says so, else
    Avro."""
    stripped = text.lstrip()
    if stripped.startswith(("syntax", "package", "message", "import", "edition", "option", "//", "/*", "enum")):
        return "PROTOBUF"
    if '"$schema"' in text or ('"properties"' in text and '"fields"' not in text):
        return "JSON"
    return "AVRO"


class SchemaMapping(SchemaSource):
    """Schemas given in Python: ``{id: text | (type, text) | {"schema": ..., "schemaType": ..., ...} |
    RegisteredSchema}``, and optionally ``subjects={subject: [id of version 1, id of version 2, ...]}``."""

    def __init__(self, schemas: Mapping[int, SchemaLike],
                 subjects: Mapping[str, Iterable[int]] | None = None) -> None:
        self.description = "the schemas given"
        self._by_id: dict[int, RegisteredSchema] = {}
        for k, v in schemas.items():
            if not isinstance(k, int) or isinstance(k, bool):
                raise SchemaError(f"schema ids are integers, not {k!r}")
            self._by_id[k] = _registered(k, v)
        self._subjects: dict[str, list[int]] = {}
        for s, ids in (subjects or {}).items():
            self._subjects[s] = list(ids)
            for i in self._subjects[s]:
                if i not in self._by_id:
                    raise SchemaError(f"subject {s!r} names schema id {i}, which is not given")

    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        try:
            return self._by_id[schema_id]
        except KeyError:
            raise SchemaNotFoundError(f"no schema with id {schema_id} in {self.description}",
                                      schema_id=schema_id) from None

    def by_guid(self, guid: uuid.UUID) -> RegisteredSchema:
        for s in self._by_id.values():
            if s.derived_guid() == guid:
                return s
        return super().by_guid(guid)

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        ids = self._subjects.get(subject)
        if not ids:
            raise SchemaNotFoundError(f"no subject {subject!r} in {self.description}", subject=subject)
        if version == "latest" or version == -1:
            n = len(ids)
        elif isinstance(version, int) and 1 <= version <= len(ids):
            n = version
        else:
            raise SchemaNotFoundError(f"subject {subject!r} has no version {version}", subject=subject)
        s = self._by_id[ids[n - 1]]
        return RegisteredSchema(s.id, s.schema_type, s.schema, s.references, subject, n, False, s.context, s.guid)

    def subjects(self) -> list[str]:
        return sorted(self._subjects)
