"""An encoder for ``__remote_log_metadata`` records driven by ``tests/data/remote_log_metadata_specs.json``
(kvlog's rendition of Kafka's ``Remote*Record.json`` specs), independent of ``kvlog.internal_topics``'s
tables: what the tests write partitions of this topic with, so the decoder is checked against the specs."""

import json
import struct
import pathlib

SPECS = json.loads((pathlib.Path(__file__).parent / "data" / "remote_log_metadata_specs.json").read_text())["specs"]


def _in(versions, v):
    if versions == "none":
        return False
    if versions.endswith("+"):
        return v >= int(versions[:-1])
    lo, _, hi = versions.partition("-")
    return int(lo) <= v <= int(hi or lo)


def _uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _json_name(name):
    return name[0].lower() + name[1:]


_PACK = {"int8": ">b", "int16": ">h", "int32": ">i", "int64": ">q", "bool": ">?"}


def _default(fd):
    d = fd.get("default")
    if d == "null":
        return None
    if d is not None:
        return int(d)
    return {"bool": False, "bytes": b"", "string": ""}.get(fd["type"], 0)


def _write_value(fd, value, v):
    t = fd["type"]
    if t.startswith("[]"):
        return _uvarint(len(value) + 1) + b"".join(_write_struct(fd["fields"], x, v) for x in value)
    if "fields" in fd:
        return _write_struct(fd["fields"], value, v)
    if t == "uuid":
        return value.bytes
    if t in ("string", "bytes"):
        if value is None:
            return b"\x00"
        raw = value.encode() if t == "string" else value
        return _uvarint(len(raw) + 1) + raw
    return struct.pack(_PACK[t], value)


def _write_struct(fields, value, v):
    """Every spec here is flexible in all versions: compact lengths and a tagged-field section."""
    out, tags = b"", {}
    for fd in fields:
        if not _in(fd["versions"], v):
            continue
        item = value.get(_json_name(fd["name"]), _default(fd))
        if "tag" in fd and _in(fd["tagged"], v):
            if item != _default(fd):
                tags[fd["tag"]] = _write_value(fd, item, v)
        else:
            out += _write_value(fd, item, v)
    out += _uvarint(len(tags))
    for tag in sorted(tags):
        out += _uvarint(tag) + _uvarint(len(tags[tag])) + tags[tag]
    return out


def spec_encode(api_key, version, data):
    spec = next(s for s in SPECS if s["apiKey"] == api_key)
    assert _in(spec["validVersions"], version)
    return _uvarint(1) + _uvarint(api_key) + _uvarint(version) + _write_struct(spec["fields"], data, version)
