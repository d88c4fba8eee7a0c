"""Typed topics: schemas from wherever the user keeps them, and the plans that decode record values with them.

A schema registry's wire format (magic byte, schema id, payload) is read against schemas found in the
registry's own ``_schemas`` topic (replayed offline from a data directory, a backup or a tiered copy), a
registry's REST API, a folder of schema files, or a mapping given in Python. The other way,
:class:`SchemasTopicWriter` registers schemas into a ``_schemas`` topic as the registry does and
:class:`Serializer` writes values in the wire format.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Format", "RegisteredSchema", "RestRegistry", "SchemaFiles", "SchemaMapping", "SchemaReference",
           "SchemaSource", "SchemasTopic", "SchemasTopicWriter", "Serializer"]

_WHERE = {"Format": "formats", "RegisteredSchema": "registry", "SchemaMapping": "registry",
          "SchemaReference": "registry", "SchemaSource": "registry", "RestRegistry": "rest", "SchemaFiles": "files",
          "SchemasTopic": "schemas_topic", "SchemasTopicWriter": "registering", "Serializer": "registering"}


def __getattr__(name: str) -> Any:  # (loaded when first named: a scan of bytes imports none of this)
    if name in _WHERE:
        return getattr(importlib.import_module(f"kvlog.schemas.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'kvlog.schemas' has no attribute {name!r}")
