"""Python values into Protobuf messages (the writing side of :mod:`kvlog.schemas.proto_plan`'s mapping), and the
message indexes a payload names its message by.

A message is filled from a dict whose keys are field names: scalars as Python numbers, strings and bytes, enums
as names or numbers, messages as dicts (or messages), repeated fields as lists, maps as dicts, Timestamp from a
``datetime`` (or nanoseconds), Duration from a ``timedelta`` (or nanoseconds), a wrapper from its plain value;
None leaves a field unset. What does not fit raises ``TypeError``/``ValueError``.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from kvlog.schemas.proto_plan import ProtoSchema

__all__ = ["encode_indexes", "fill", "index_path"]

_WRAPPERS = {"google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
             "google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
             "google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue"}


def _special(m: Any, v: Any) -> bool:
    """Fills a well-known type from its natural Python value; False when ``m`` is not one."""
    name = m.DESCRIPTOR.full_name
    if name == "google.protobuf.Timestamp" and not isinstance(v, dict):
        if isinstance(v, datetime.datetime):
            m.FromDatetime(v if v.tzinfo is not None else v.replace(tzinfo=datetime.timezone.utc))
        else:
            m.FromNanoseconds(int(v))
        return True
    if name == "google.protobuf.Duration" and not isinstance(v, dict):
        if isinstance(v, datetime.timedelta):
            m.FromTimedelta(v)
        else:
            m.FromNanoseconds(int(v))
        return True
    if name in _WRAPPERS and not isinstance(v, dict):
        m.value = v
        return True
    return False


def fill(m: Any, v: Any) -> None:
    """``m`` (a message) set from ``v`` (see the module's notes)."""
    if hasattr(v, "SerializeToString"):
        m.CopyFrom(v)
        return
    if _special(m, v):
        return
    if not isinstance(v, dict):
        raise TypeError(f"{m.DESCRIPTOR.full_name} takes a dict, not {type(v).__name__}")
    fields = m.DESCRIPTOR.fields_by_name
    for name, x in v.items():
        f = fields.get(name)
        if f is None:
            raise ValueError(f"{m.DESCRIPTOR.full_name} has no field {name!r}")
        if x is None:
            continue
        target = getattr(m, name)
        mt = f.message_type
        if mt is not None and mt.GetOptions().map_entry:
            vt = mt.fields_by_name["value"]
            for key, item in dict(x).items():
                if vt.message_type is not None:
                    fill(target[key], item)
                else:
                    target[key] = _enum(vt, item)
        elif f.is_repeated:
            for item in x:
                if mt is not None:
                    fill(target.add(), item)
                else:
                    target.append(_enum(f, item))
        elif mt is not None:
            target.SetInParent()  # (a message given, if empty, is present, as protobuf's constructor sets it)
            fill(target, x)
        else:
            setattr(m, name, _enum(f, x))


def _enum(f: Any, v: Any) -> Any:
    if f.enum_type is not None and isinstance(v, str):
        value = f.enum_type.values_by_name.get(v)
        if value is None:
            raise ValueError(f"{v!r} is not a value of {f.enum_type.full_name}")
        return value.number
    return v


def index_path(schema: ProtoSchema, name: str) -> list[int]:
    """The message indexes of message ``name`` (a full name) in the schema's main file."""
    prefix = f".{schema.main.package}" if schema.main.package else ""
    level: Sequence[Any] = schema.main.message_type
    path: list[int] = []
    here = prefix
    while True:
        for i, m in enumerate(level):
            full = f"{here}.{m.name}"
            if name == full or name.startswith(full + "."):
                path.append(i)
                if name == full:
                    return path
                here, level = full, m.nested_type
                break
        else:
            raise ValueError(f"{name.lstrip('.')} is not a message of {schema.main.name}")


def _zigzag(v: int) -> bytes:
    u = (v << 1) ^ (v >> 31)
    out = bytearray()
    while u >= 0x80:
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def encode_indexes(path: Sequence[int]) -> bytes:
    """Confluent's message indexes: the first message, ``[0]``, as one 0 byte; else the count and the indexes as
    zigzag varints."""
    if list(path) == [0]:
        return b"\x00"
    return _zigzag(len(path)) + b"".join(_zigzag(i) for i in path)
