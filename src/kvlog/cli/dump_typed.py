"""``kvlog dump --decode``: keys and values printed decoded by their formats (a schema registry's wire
format, bare Avro/Protobuf/JSON, text), as compact JSON, instead of their bytes.

The schemas come from the dumped segment's data directory (its ``_schemas`` topic, two levels up from the
segment file) unless ``--schemas`` names another source; a segment's topic is its directory's name. A
record whose key or value does not decode prints ``key-error:``/``value-error:`` and the reason, and makes
the exit code 1.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import decimal
import json
import os
import re
import uuid
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from kvlog.errors import KvlogError
from kvlog.records import Record
from kvlog.schemas.formats import FORMATS, format_of
from kvlog.schemas.typed_columns import TypedColumns

__all__ = ["DecodeFailure", "add_typed_options", "typed_parser"]

_PARTITION_DIR = re.compile(r"(.+)-(\d+)$")


def add_typed_options(d: argparse.ArgumentParser) -> None:
    d.add_argument("--decode", action="store_true",
                   help="print values decoded from a schema registry's wire format (Avro, Protobuf, JSON Schema), "
                        "with the schemas of the data directory's _schemas topic (or --schemas); "
                        "same as --value-format registry")
    d.add_argument("--value-format", choices=FORMATS, metavar="FORMAT",
                   help=f"print values decoded as FORMAT ({', '.join(FORMATS)})")
    d.add_argument("--key-format", choices=FORMATS, metavar="FORMAT", help="print keys decoded as FORMAT")
    d.add_argument("--value-schema", metavar="SCHEMA", help="the reader schema of the values (a file or its text)")
    d.add_argument("--key-schema", metavar="SCHEMA", help="the reader schema of the keys")
    d.add_argument("--schemas", metavar="SOURCE",
                   help="where registered schemas come from: a data directory or backup holding _schemas, a "
                        "registry URL, a folder of schema files (default: the segment's own data directory)")


def _json_default(v: Any) -> Any:
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode()
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, (decimal.Decimal, uuid.UUID)):
        return str(v)
    if isinstance(v, datetime.timedelta):
        return v.total_seconds()
    return str(v)


def _text(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v, default=_json_default, ensure_ascii=False, separators=(",", ":"))


def typed_parser(path: str, args: argparse.Namespace) -> Callable[[Record], tuple[str | None, str | None]] | None:
    """The key/payload printer of segment ``path`` for the formats asked for (None: none was)."""
    value_kind = "registry" if getattr(args, "decode", False) else getattr(args, "value_format", None)
    key_kind = getattr(args, "key_format", None)
    if value_kind is None and key_kind is None:
        return None
    part_dir = os.path.dirname(os.path.abspath(path))
    m = _PARTITION_DIR.match(os.path.basename(part_dir))
    if m is None:
        raise KvlogError(f"{path}: not in a <topic>-<partition> directory, so its topic (and subject) is unknown")
    topic = m.group(1)
    root = os.path.dirname(part_dir)

    def own() -> Any:
        from kvlog.schemas.schemas_topic import SchemasTopic

        return SchemasTopic.read(root)

    typed = TypedColumns(format_of(key_kind, schema=getattr(args, "key_schema", None), what="--key-format"),
                         format_of(value_kind, schema=getattr(args, "value_schema", None), what="--value-format"),
                         schemas=getattr(args, "schemas", None), errors="null", own_source=own,
                         sample=lambda t, part, n: _sample(root, t, part, n))
    decoders = typed.decoders(topic, ["key", "value"]).decoders

    def parse(rec: Record) -> tuple[str | None, str | None]:
        out: list[str | None] = []
        for part, raw in (("key", rec.key), ("value", rec.value)):
            dec = decoders.get(part)
            if raw is None:
                out.append(None)
                continue
            if dec is None:
                from kvlog._java_text import java_utf8

                out.append(java_utf8(raw))
                continue
            hid = None
            if dec.wire == "registry":
                header = f"__{part}_schema_id"
                found = [v for k, v in rec.headers if k == header]
                hid = pa.array([found[-1]], pa.binary()) if found else None
            res = dec.decode(pa.array([raw], pa.binary()), header_ids=hid)
            if res.errors is not None and res.errors[0].is_valid:
                raise DecodeFailure(part, rec.offset, str(res.errors[0].as_py()))
            text = _text(res.values[0].as_py())
            if res.schema_ids is not None and res.schema_ids[0].is_valid:
                text = f"{text} schemaId: {res.schema_ids[0].as_py()}"
            out.append(text)
        return out[0], out[1]

    return parse


class DecodeFailure(KvlogError):
    """A record's key or value that does not decode (printed as such by kvlog dump)."""

    def __init__(self, part: str, offset: int, reason: str) -> None:
        self.part = part
        self.reason = reason
        super().__init__(f"the {part} at offset {offset} does not decode: {reason}")


def _sample(root: str, topic: str, part: str, n: int) -> list[bytes | None]:
    from kvlog.scanning import sample_payloads

    return sample_payloads(root, topic, part, n, {})
