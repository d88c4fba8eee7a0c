"""A schema registry's own topic, ``_schemas``, replayed offline into the registry's state.

Confluent's Schema Registry and Karapace keep every schema, subject version and setting as a record of one
compacted, single-partition topic (``docs/schemas-topic.md`` documents the records and where each fact
comes from). Replaying it in offset order, the last record of each key winning, gives what the registry
serves: schema ids, subjects and their versions, soft and hard deletes. Because the topic sits in the same
data directory, backup or tiered copy as the topics it describes, a topic's history can be decoded from the
files alone.

The replay follows the registry's rules: ``SCHEMA`` keys of magic 0 or 1; a soft delete keeps a version's id
resolvable (old records still name it), a hard delete (a tombstone: a null or, as Karapace writes it, an
empty value) removes the version and the id once no version names it; ``DELETE_SUBJECT`` soft-deletes every
version up to the one it names; ``CLEAR_SUBJECT`` drops a subject's deleted versions; ``CONFIG`` and ``MODE``
are kept for display; ``NOOP``, ``CONTEXT`` and key types it does not know are skipped. A second schema under
an id that already names another schema in the same context is ignored, as the registry ignores it. Records
that do not parse are skipped and listed in :attr:`SchemasTopic.problems` (a lookup that misses names them).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kvlog.errors import SchemaError, SchemaNotFoundError
from kvlog.schemas.registry import (
    DEFAULT_CONTEXT,
    RegisteredSchema,
    SchemaReference,
    SchemaSource,
    normalize_type,
    split_context,
)

__all__ = ["SCHEMAS_TOPIC", "SchemasTopic", "replay"]

SCHEMAS_TOPIC = "_schemas"


@dataclass
class _Version:
    schema: RegisteredSchema
    offset: int


class SchemasTopic(SchemaSource):
    """The state of a registry replayed from its ``_schemas`` records (see the module's notes).

    Build one with :meth:`read` (a data directory, backup or URI, a ``LogManager`` or a ``Log``) or
    :meth:`from_records` (``(key, value, offset)`` triples)."""

    def __init__(self, description: str = "a _schemas topic") -> None:
        self.description = description
        self._versions: dict[tuple[str, str, int], _Version] = {}     # (context, subject, version)
        self._ids: dict[tuple[str, int], RegisteredSchema] = {}        # (context, id): its first schema
        self._id_users: dict[tuple[str, int], set[tuple[str, int]]] = {}
        self.configs: dict[str | None, dict[str, Any]] = {}
        self.modes: dict[str | None, str] = {}
        self.problems: list[str] = []
        self.records = 0
        self.end_offset = 0

    # ------------------------------------------------------------------------------------- building
    @classmethod
    def read(cls, source: Any, *, topic: str = SCHEMAS_TOPIC, backup_run: int | None = None,
             remote_storage: Any = None, remote_log_metadata: Any = None) -> SchemasTopic:
        """Replay ``topic`` of ``source``: a data directory, a backup or tiered copy (a path or URI), a
        ``LogManager``, or the topic's ``Log``; ``backup_run``, ``remote_storage``, ``remote_log_metadata`` as for
        ``LogManager``."""
        from kvlog import _files, storage
        from kvlog.errors import UnknownTopicOrPartitionError
        from kvlog.log import Log
        from kvlog.manager import LogManager

        if isinstance(source, (list, tuple)) or hasattr(source, "directories"):  # a cluster's directories
            from kvlog.cluster import Cluster

            cluster = source if isinstance(source, Cluster) else Cluster(source)
            try:
                log = cluster.log(topic, 0)
                table = log.to_arrow(end_offset=cluster.end_offset(topic, 0))
            except UnknownTopicOrPartitionError:
                raise SchemaNotFoundError(f"{cluster.describe()} holds no {topic} topic (a schema registry's own "
                                          f"topic): give schemas= another source") from None
            finally:
                if cluster is not source:
                    cluster.close()
            out = cls(f"the {topic} topic of {cluster.describe()}")
            out.apply_many(zip(table.column("key").to_pylist(), table.column("value").to_pylist(),
                               table.column("offset").to_pylist()))
            return out
        shown = getattr(source, "dir", None) or getattr(source, "root", None) or source
        try:
            shown = os.fspath(shown)
        except TypeError:
            shown = str(shown)
        if storage.is_remote(shown):
            shown = storage.canonical(shown)
        if shown.rstrip("/").endswith(f"/{topic}-0"):  # (the partition itself: named by its data directory)
            shown = shown.rstrip("/")[: -len(f"/{topic}-0")] or "/"
        out = cls(f"the {topic} topic of {shown}")
        missing = SchemaNotFoundError(f"{shown} holds no {topic} topic (a schema registry's own topic): give "
                                      f"schemas= another source (a data directory or backup that holds it, a "
                                      f"registry URL, a folder of schema files or a mapping)")
        opts = {"backup_run": backup_run, "remote_storage": remote_storage, "remote_log_metadata": remote_log_metadata}
        owned: Any = None
        try:
            if isinstance(source, Log):
                if source.topic != topic:
                    raise missing
                log = source
            elif isinstance(source, LogManager):
                log = source.log(topic, 0)
            elif _files.is_partition_dir(storage.normalize(source)):
                owned = log = Log.open(source, read_only=True, **opts)
                if log.topic != topic:
                    raise missing
            else:
                owned = LogManager(source, read_only=True, **opts)
                log = owned.log(topic, 0)
            table = log.to_arrow()  # (an empty topic: a registry that holds nothing yet)
        except UnknownTopicOrPartitionError:
            raise missing from None
        finally:
            if owned is not None:
                owned.close()
        out.apply_many(zip(table.column("key").to_pylist(), table.column("value").to_pylist(),
                           table.column("offset").to_pylist()))
        return out

    @classmethod
    def from_records(cls, records: Iterable[tuple[bytes | None, bytes | None, int]],
                     description: str = "a _schemas topic") -> SchemasTopic:
        out = cls(description)
        out.apply_many(records)
        return out

    def apply_many(self, records: Iterable[tuple[bytes | None, bytes | None, int]]) -> None:
        for key, value, offset in records:
            self.apply(key, value, offset)

    def apply(self, key: bytes | None, value: bytes | None, offset: int) -> None:
        """One record of the topic, in offset order."""
        self.records += 1
        self.end_offset = max(self.end_offset, offset + 1)
        if key is None:
            self.problems.append(f"offset {offset}: a record without a key")
            return
        try:
            k = json.loads(key)
        except ValueError as exc:
            self.problems.append(f"offset {offset}: a key that is not JSON ({exc})")
            return
        if not isinstance(k, dict):
            self.problems.append(f"offset {offset}: a key that is not a JSON object")
            return
        keytype = k.get("keytype")
        if value is not None and len(value) == 0:
            value = None  # Karapace's tombstones are empty values
        try:
            v = None if value is None else json.loads(value)
        except ValueError as exc:
            self.problems.append(f"offset {offset}: a {keytype} value that is not JSON ({exc})")
            return
        if v is not None and not isinstance(v, dict):
            self.problems.append(f"offset {offset}: a {keytype} value that is not a JSON object")
            return
        try:
            if keytype == "SCHEMA":
                self._schema(k, v, offset)
            elif keytype == "DELETE_SUBJECT":
                self._delete_subject(k, v, offset)
            elif keytype == "CLEAR_SUBJECT":
                self._clear_subject(k, v)
            elif keytype == "CONFIG":
                subject = k.get("subject")
                if v is None:
                    self.configs.pop(subject, None)
                else:
                    self.configs[subject] = v
            elif keytype == "MODE":
                subject = k.get("subject")
                if v is None:
                    self.modes.pop(subject, None)
                else:
                    self.modes[subject] = str(v.get("mode"))
            # NOOP, CONTEXT, ASSOC and key types a later registry adds: nothing to replay
        except (KeyError, TypeError, ValueError) as exc:
            self.problems.append(f"offset {offset}: a {keytype} record that cannot be read ({exc})")

    def _schema(self, k: dict[str, Any], v: dict[str, Any] | None, offset: int) -> None:
        magic = k.get("magic")
        if magic not in (0, 1):
            self.problems.append(f"offset {offset}: a SCHEMA key of magic {magic!r} (0 and 1 are known)")
            return
        ctx, subject = split_context(str(k["subject"]))
        slot = (ctx, subject, int(k["version"]))
        if v is None:
            self._drop(slot)
            return
        schema_id = int(v["id"])
        text = v["schema"]
        if not isinstance(text, str):
            raise ValueError("its schema is not a string")
        refs = tuple(SchemaReference(str(r["name"]), str(r["subject"]), int(r["version"]))
                     for r in v.get("references") or ())
        reg = RegisteredSchema(schema_id, normalize_type(v.get("schemaType")), text, refs, subject, slot[2],
                               bool(v.get("deleted", False)), ctx)
        first = self._ids.get((ctx, schema_id))
        if first is not None and (first.schema != reg.schema or first.schema_type != reg.schema_type):
            users = self._id_users.get((ctx, schema_id))
            if users and users != {(subject, slot[2])}:
                self.problems.append(f"offset {offset}: id {schema_id} already names another schema; this record "
                                     f"is ignored, as the registry ignores it")
                return
        old = self._versions.get(slot)
        if old is not None and old.schema.id != schema_id:
            self._release(ctx, old.schema.id, (subject, slot[2]))
        self._versions[slot] = _Version(reg, offset)
        if first is None or not self._id_users.get((ctx, schema_id)):
            self._ids[(ctx, schema_id)] = reg
        self._id_users.setdefault((ctx, schema_id), set()).add((subject, slot[2]))

    def _drop(self, slot: tuple[str, str, int]) -> None:
        old = self._versions.pop(slot, None)
        if old is not None:
            self._release(slot[0], old.schema.id, (slot[1], slot[2]))

    def _release(self, ctx: str, schema_id: int, user: tuple[str, int]) -> None:
        users = self._id_users.get((ctx, schema_id))
        if users is None:
            return
        users.discard(user)
        if not users:
            del self._id_users[(ctx, schema_id)]
            self._ids.pop((ctx, schema_id), None)

    def _delete_subject(self, k: dict[str, Any], v: dict[str, Any] | None, offset: int) -> None:
        if v is None:
            return
        ctx, subject = split_context(str(k["subject"]))
        upto = int(v["version"])
        for (c, s, n), ver in list(self._versions.items()):
            if c == ctx and s == subject and n <= upto and not ver.schema.deleted:
                sch = ver.schema
                self._versions[(c, s, n)] = _Version(
                    RegisteredSchema(sch.id, sch.schema_type, sch.schema, sch.references, s, n, True, c), ver.offset)

    def _clear_subject(self, k: dict[str, Any], v: dict[str, Any] | None) -> None:
        if v is None:
            return
        ctx, subject = split_context(str(k["subject"]))
        for slot, ver in list(self._versions.items()):
            if slot[0] == ctx and slot[1] == subject and ver.schema.deleted:
                self._drop(slot)

    # -------------------------------------------------------------------------------------- lookups
    def _missing(self, what: str) -> str:
        tail = f"; {len(self.problems)} record(s) of it could not be read, the first: {self.problems[0]}" \
            if self.problems else ""
        return f"{what} in {self.description} ({self.records} records replayed){tail}"

    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        found = self._ids.get((context, schema_id))
        if found is None:
            raise SchemaNotFoundError(self._missing(f"no schema with id {schema_id}"), schema_id=schema_id)
        return found

    def by_guid(self, guid: uuid.UUID) -> RegisteredSchema:
        for s in self._ids.values():
            if s.derived_guid() == guid:
                return s
        raise SchemaNotFoundError(self._missing(f"no schema with GUID {guid}"))

    def versions(self, subject: str, *, deleted: bool = False) -> list[int]:
        """A subject's versions in order (with ``deleted``, soft-deleted ones too)."""
        ctx, name = split_context(subject)
        return sorted(n for (c, s, n), v in self._versions.items()
                      if c == ctx and s == name and (deleted or not v.schema.deleted))

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        ctx, name = split_context(subject)
        if version == "latest" or version == -1:
            live = self.versions(subject)
            if not live:
                every = self.versions(subject, deleted=True)
                why = f"every version of subject {subject!r} is deleted" if every else f"no subject {subject!r}"
                raise SchemaNotFoundError(self._missing(why), subject=subject)
            version = live[-1]
        if not isinstance(version, int) or isinstance(version, bool):
            raise SchemaError(f"a subject version is a number or 'latest', not {version!r}")
        ver = self._versions.get((ctx, name, version))
        if ver is None:
            raise SchemaNotFoundError(self._missing(f"no version {version} of subject {subject!r}"),
                                      subject=subject, version=version)
        return ver.schema

    def subjects(self, *, deleted: bool = False) -> list[str]:
        names = {(c, s) for (c, s, _), v in self._versions.items() if deleted or not v.schema.deleted}
        return sorted(s if c == DEFAULT_CONTEXT else f":{c}:{s}" for c, s in names)

    def schemas(self) -> list[RegisteredSchema]:
        """Every (subject, version) held, deleted ones too, in subject and version order."""
        return [v.schema for _, v in sorted(self._versions.items())]


def replay(source: Any, **options: Any) -> SchemasTopic:
    """``SchemasTopic.read(source, **options)``."""
    return SchemasTopic.read(source, **options)
