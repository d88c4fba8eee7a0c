"""A key or value column decoded with a format plan: the kernel's run, programs added as schema ids appear,
and the failures turned into a typed error or a reason column.

:class:`ColumnDecoder` is what every engine calls (the scans, Polars, DuckDB, the Spark Python source, the
UDFs): ``decode(column, ...)`` takes an Arrow binary column (and, for the header form of the wire format,
the ``__value_schema_id``/``__key_schema_id`` header values) and returns the typed column, the schema id
column and, with ``errors="null"``, the reasons. One decoder is used by one thread at a time; the plan it
reads is shared.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kvlog._core import typed as _typed
from kvlog.errors import DeserializationError, SchemaNotFoundError
from kvlog.schemas.columns import assemble
from kvlog.schemas.plans import FormatPlan, failing_program

__all__ = ["ColumnDecoder", "Decoded", "REASONS"]

#: what each kernel status means (kvlog_columns.h)
REASONS = {
    1: "the payload ends inside a value (truncated)",
    2: "a malformed varint (too long, or out of its type's range)",
    3: "a negative or impossible length or count",
    4: "a union branch index out of range",
    5: "an enum value with no symbol the reader knows",
    6: "a string that is not UTF-8",
    7: "a decimal that does not fit its precision",
    8: "bytes left after the value",
    10: "the writer schema cannot be read as the reader schema",
    11: "a column past Arrow's 2 GiB of offsets",
    12: "an unknown schema id",
    13: "not the schema registry's wire format (the first byte is neither 0 nor 1, or the payload is shorter "
        "than its prefix)",
    14: "nested deeper than the decoder allows",
    15: "a field whose wire type contradicts its declared type",
    16: "message indexes that name no message",
    17: "not valid JSON",
    18: "a value of another type than the schema says",
    19: "a key given twice in one object or map",
    20: "a number outside its column's range",
    21: "a collection of empty items past the decoder's limit",
    22: "an internal error of the decoder's program",
}


@dataclass
class Decoded:
    """A decoded column: the values, the schema ids (None: the bare format) and the failures' reasons (None
    unless ``errors="null"``; null where decoding succeeded)."""

    values: pa.Array
    schema_ids: pa.Array | None
    errors: pa.Array | None
    failures: int = 0


class ColumnDecoder:
    """Decodes binary columns with ``plan`` (see the module's notes).

    ``wire``: ``"registry"`` (magic byte and schema id or GUID, the header form too) or ``"bare"`` (every
    payload written with the plan's reader schema; ``bare_program`` is its program). ``errors``: ``"raise"``
    (a :class:`DeserializationError` at the first payload that fails) or ``"null"`` (a null value and a
    reason). ``part`` is ``"key"`` or ``"value"``, for messages."""

    def __init__(self, plan: FormatPlan, *, wire: str = "registry", errors: str = "raise", part: str = "value",
                 bare_program: _typed.Program | None = None, source: Any = None) -> None:
        if wire not in ("registry", "bare"):
            raise ValueError(f"wire must be 'registry' or 'bare', not {wire!r}")
        if errors not in ("raise", "null"):
            raise ValueError(f"errors must be 'raise' or 'null', not {errors!r}")
        self.plan = plan
        self.wire = wire
        self.errors = errors
        self.part = part
        self.source = source
        self._dec = _typed.Decoder(plan.format, 1 if wire == "registry" else 0, errors == "null", plan.specs)
        self._programs: dict[tuple[int, tuple[int, ...]], _typed.Program] = {}
        self._guid_ids: dict[bytes, int] = {}
        if wire == "bare":
            if bare_program is None:
                raise ValueError("the bare format needs its program")
            self._dec.add(0, (), bare_program)
            self._programs[(0, ())] = bare_program

    def _add(self, schema_id: int, indexes: tuple[int, ...]) -> None:
        prog = self.plan.program(schema_id, indexes)
        self._dec.add(schema_id, indexes, prog)
        self._programs[(schema_id, indexes)] = prog

    def _add_guid(self, guid: bytes) -> None:
        """A GUID's schema id (the source's lookup; a schema it does not hold fails its records)."""
        synthetic = -2 - len(self._guid_ids)
        sid = synthetic
        if self.source is not None:
            try:
                found = self.source.by_guid(uuid.UUID(bytes=guid))
                sid = found.id if found.id >= 0 else synthetic
            except SchemaNotFoundError as exc:
                reason = f"unknown schema GUID {uuid.UUID(bytes=guid)}: {exc.reason}"
                prog = failing_program(self.plan.format, reason, 12)
                self._dec.add(synthetic, (), prog)
                self._programs[(synthetic, ())] = prog
        self._guid_ids[guid] = sid
        self._dec.add_guid(guid, sid)

    def decode(self, column: pa.Array, *, header_ids: pa.Array | None = None, offsets: Any = None,
               topic: str | None = None, partition: int | None = None) -> Decoded:
        """``column`` (binary) decoded. ``offsets`` (the records' offsets) and ``topic``/``partition`` name a
        failing record in errors."""
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not (pa.types.is_binary(column.type) or pa.types.is_string(column.type)):
            column = column.cast(pa.binary())
        if header_ids is not None and header_ids.null_count < len(header_ids):
            column = self._headers_to_prefix(column, header_ids)
        n = len(column)
        valid, offs, data = column.buffers()[:3]
        if data is None:
            data = pa.py_buffer(b"")
        start = 0
        asked: set[Any] = set()
        while True:
            status, stop = self._dec.run(valid, offs, data, column.offset, n, start)
            if status == 0:
                break
            if status == _typed.NEED:
                need_id, indexes, guid = self._dec.need()
                if (need_id, indexes, guid) in asked:  # (a program was added for it: the kernel must not ask again)
                    raise AssertionError(f"kvlog: the decoder asked twice for schema {need_id} {indexes} {guid!r}")
                asked.add((need_id, indexes, guid))
                if guid is not None:
                    self._add_guid(guid)
                elif need_id is not None:
                    self._add(need_id, indexes)
                start = stop
                continue
            self._raise(status, offsets, topic, partition)
        cols, sid = self._dec.finish()
        values = assemble(self.plan.root, cols)
        ids = None
        if self.wire == "registry":
            sn, snulls, svalid, sdata, _ = sid
            ids = pa.Array.from_buffers(pa.int32(), sn, [pa.py_buffer(svalid) if snulls else None,
                                                         pa.py_buffer(sdata)], null_count=snulls)
            if any(v < 0 for v in self._guid_ids.values()):  # (a GUID no source could name: its id is unknown)
                ids = pc.if_else(pc.less(ids, 0), pa.scalar(None, pa.int32()), ids)
        errors = None
        failures = self._dec.failures() if self.errors == "null" else ()
        if self.errors == "null":
            reasons: list[str | None] = [None] * n
            for f in failures:
                reasons[int(f["index"])] = self._reason(int(f["code"]), int(f["op"]), int(f["pos"]),
                                                         int(f["schema_id"]))
            errors = pa.array(reasons, pa.string())
        return Decoded(values, ids, errors, len(failures))

    def _program_of(self, schema_id: int) -> _typed.Program | None:
        for (sid, _), prog in self._programs.items():
            if sid == schema_id:
                return prog
        return None

    def _reason(self, code: int, op: int, pos: int, schema_id: int) -> str:
        prog = self._program_of(schema_id if self.wire == "registry" else 0)
        if prog is not None and code in (10, 12, 22) and op < 0:
            return str(prog.paths[0]) if prog.paths else REASONS.get(code, f"status {code}")
        what = REASONS.get(code, f"status {code}")
        where = self.plan.describe(prog, op) if prog is not None else ""
        if code == 10 and where:
            return where
        return f"{what}{f' in field {where}' if where else ''} (byte {pos} of the payload)"

    def _raise(self, status: int, offsets: Any, topic: str | None, partition: int | None) -> None:
        index, code, op, pos, schema_id = self._dec.last_failure()
        self._dec.finish()  # (the rows before the failure are dropped: the next column starts afresh)
        self._dec.failures()
        offset = int(offsets[index]) if offsets is not None and 0 <= index < len(offsets) else None
        reason = self._reason(code, op, pos, schema_id)
        raise DeserializationError(reason, topic=topic, partition=partition, offset=offset,
                                   schema_id=schema_id if schema_id >= 0 and self.wire == "registry" else None,
                                   part=self.part)

    @staticmethod
    def _headers_to_prefix(column: pa.Array, header_ids: pa.Array) -> pa.Array:
        """Payloads whose schema id travels in a header (``__value_schema_id``: magic 1 and a GUID, or magic 0
        and an id, then Protobuf's message indexes) as payloads with that prefix in front: the kernel reads
        one form."""
        has = pc.is_valid(header_ids)
        joined = pc.binary_join_element_wise(
            header_ids.cast(pa.binary()), column.cast(pa.binary()), pa.scalar(b"", pa.binary()))
        out = pc.if_else(has, joined, column)
        return out.cast(pa.binary())


def header_values(headers: pa.Array, name: str) -> pa.Array | None:
    """Each row's last header called ``name`` (null where there is none) from a ``list<struct<key, value>>``
    headers column; None when no row has it."""
    if isinstance(headers, pa.ChunkedArray):
        headers = headers.combine_chunks()
    flat = pc.list_flatten(headers)
    if not len(flat):
        return None
    keys = flat.field("key")
    mask = pc.equal(keys, pa.scalar(name, keys.type))
    hits = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    if not len(hits):
        return None
    parents = pc.list_parent_indices(headers).to_numpy()[hits]
    values = flat.field("value").take(pa.array(hits))
    rows = np.full(len(headers), -1, dtype=np.int64)
    rows[parents] = np.arange(len(hits))  # (later hits overwrite earlier: the last header wins)
    return values.take(pa.array(rows, mask=rows < 0))
