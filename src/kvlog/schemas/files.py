"""A folder of schema files as a schema source.

The layout (``docs/typed-topics.md``):

* ``<id>.avsc``, ``<id>.proto``, ``<id>.json`` — the schema registered with that id (payloads in the wire
  format name it);
* ``<subject>/<version>.<ext>`` — a subject's versions (``orders-value/1.avsc``, ``orders-value/2.avsc``), the
  highest being its latest; a subject's schemas get the ids of id-named files with the same text, else none;
* Protobuf imports resolve against the folder (``import "common/money.proto"`` reads ``common/money.proto``),
  as ``protoc -I <folder>`` would; the well-known types need no file.

The extension gives the type: ``.avsc`` (or ``.avro``) Avro, ``.proto`` Protobuf, ``.json`` JSON Schema.
Files are read once, when the source is made.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from kvlog.errors import SchemaError, SchemaNotFoundError
from kvlog.schemas.registry import DEFAULT_CONTEXT, RegisteredSchema, SchemaReference, SchemaSource

__all__ = ["EXTENSIONS", "SchemaFiles", "looks_like_schema_folder"]

EXTENSIONS = {".avsc": "AVRO", ".avro": "AVRO", ".proto": "PROTOBUF", ".json": "JSON"}
_IMPORT = re.compile(r'^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;', re.M)
_MAX_FILE = 16 << 20


def looks_like_schema_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder of schema files (and not a Kafka data directory)."""
    from kvlog._files import partition_dirs

    p = Path(path)
    if not p.is_dir():
        return False
    try:
        if partition_dirs(str(p))[0]:  # a data directory (its own kvlog-topics.json is not a schema)
            return False
    except (OSError, ValueError):
        pass
    for entry in p.iterdir():
        if entry.is_file() and entry.suffix in EXTENSIONS:
            return True
        if entry.is_dir() and any(f.suffix in EXTENSIONS and f.stem.isdigit() for f in entry.iterdir()):
            return True
    return False


def _read(path: Path) -> str:
    if path.stat().st_size > _MAX_FILE:
        raise SchemaError(f"{path}: a schema file larger than {_MAX_FILE >> 20} MiB")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{path}: not UTF-8 text ({exc})") from None


class SchemaFiles(SchemaSource):
    """The schemas of a folder laid out as the module's notes say."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.root = Path(folder)
        if not self.root.is_dir():
            raise SchemaNotFoundError(f"no folder {self.root}")
        self.description = f"the schema files in {self.root}"
        self._by_id: dict[int, RegisteredSchema] = {}
        self._subjects: dict[str, dict[int, RegisteredSchema]] = {}
        self._texts: dict[str, int] = {}
        for entry in sorted(self.root.iterdir()):
            if entry.is_file() and entry.suffix in EXTENSIONS and entry.stem.isdigit():
                text = _read(entry)
                sid = int(entry.stem)
                self._by_id[sid] = RegisteredSchema(sid, EXTENSIONS[entry.suffix], text, self._imports(entry, text))
                self._texts.setdefault(text, sid)
        for entry in sorted(self.root.iterdir()):
            if not entry.is_dir():
                continue
            versions = {}
            for f in sorted(entry.iterdir()):
                if f.is_file() and f.suffix in EXTENSIONS and f.stem.isdigit():
                    text = _read(f)
                    n = int(f.stem)
                    versions[n] = RegisteredSchema(self._texts.get(text, -1), EXTENSIONS[f.suffix], text,
                                                   self._imports(f, text), entry.name, n)
            if versions:
                self._subjects[entry.name] = versions

    def _imports(self, path: Path, text: str) -> tuple[SchemaReference, ...]:
        """A ``.proto`` file's imports as references to the folder's files (subject = the import path)."""
        if path.suffix != ".proto":
            return ()
        refs = []
        for name in _IMPORT.findall(text):
            if name.startswith("google/protobuf/"):
                continue
            refs.append(SchemaReference(name, name, 1))
        return tuple(refs)

    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        try:
            return self._by_id[schema_id]
        except KeyError:
            raise SchemaNotFoundError(f"no file {schema_id}.avsc, .proto or .json in {self.root}",
                                      schema_id=schema_id) from None

    def by_guid(self, guid: object) -> RegisteredSchema:
        for s in self._by_id.values():
            if s.derived_guid() == guid:
                return s
        raise SchemaNotFoundError(f"no schema with GUID {guid} in {self.description}")

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        versions = self._subjects.get(subject)
        if versions is None:
            # an import path, as a Protobuf reference names it
            path = self.root / subject
            if path.is_file() and path.suffix in EXTENSIONS and path.resolve().is_relative_to(self.root.resolve()):
                text = _read(path)
                return RegisteredSchema(-1, EXTENSIONS[path.suffix], text, self._imports(path, text), subject, 1)
            raise SchemaNotFoundError(f"no folder {subject}/ of versions (nor a file {subject}) in {self.root}",
                                      subject=subject)
        if version == "latest" or version == -1:
            version = max(versions)
        if version not in versions:
            raise SchemaNotFoundError(f"no file {subject}/{version}.* in {self.root}", subject=subject)
        return versions[int(version)]

    def subjects(self) -> list[str]:
        return sorted(self._subjects)
