"""The column tree of an Arrow type, as the typed kernels build it, and the Arrow array made from its buffers.

Every format's planner maps its schema to an Arrow type; :func:`layout` numbers that type's columns in
pre-order (column 0 is the whole value) and says how the kernel lays each one out (kvlog_columns.h);
:func:`assemble` wraps what the kernel filled as an Arrow array without a copy, and validates the
structure (lengths and buffer sizes) so that no plan mistake can hand a consumer an array that lies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from kvlog.errors import SchemaError

__all__ = ["ColumnNode", "assemble", "layout"]

NULL, BOOL, FIXED, VAR, LIST, STRUCT = range(6)


@dataclass(eq=False)
class ColumnNode:
    index: int
    type: pa.DataType
    children: list[ColumnNode] = field(default_factory=list)


def _fixed_width(t: pa.DataType) -> int | None:
    if pa.types.is_fixed_size_binary(t) or pa.types.is_decimal(t):
        return int(t.byte_width)
    if pa.types.is_interval(t):
        return 16
    try:
        width = t.bit_width
    except ValueError:
        return None
    return width // 8 if width % 8 == 0 and width >= 8 else None


def layout(t: pa.DataType) -> tuple[ColumnNode, list[tuple[int, int, bool, list[int]]]]:
    """The column tree of ``t`` and the decoder's column specs ``(kind, width, utf8, children)``."""
    specs: list[tuple[int, int, bool, list[int]]] = []

    def visit(t: pa.DataType) -> ColumnNode:
        i = len(specs)
        specs.append((0, 0, False, []))
        node = ColumnNode(i, t)
        if pa.types.is_null(t):
            specs[i] = (NULL, 0, False, [])
        elif pa.types.is_boolean(t):
            specs[i] = (BOOL, 0, False, [])
        elif pa.types.is_string(t) or pa.types.is_binary(t):
            specs[i] = (VAR, 0, pa.types.is_string(t), [])
        elif pa.types.is_map(t):
            entries = pa.struct([pa.field("key", t.key_type, nullable=False), t.item_field])
            node.children = [visit(entries)]
            specs[i] = (LIST, 0, False, [node.children[0].index])
        elif pa.types.is_list(t):
            node.children = [visit(t.value_type)]
            specs[i] = (LIST, 0, False, [node.children[0].index])
        elif pa.types.is_struct(t):
            node.children = [visit(t.field(k).type) for k in range(t.num_fields)]
            specs[i] = (STRUCT, 0, False, [c.index for c in node.children])
        else:
            width = _fixed_width(t)
            if width is None:
                raise SchemaError(f"no column layout for the Arrow type {t}")
            specs[i] = (FIXED, width, False, [])
        return node

    return visit(t), specs


def assemble(node: ColumnNode, columns: list[tuple[int, int, Any, Any, Any]]) -> pa.Array:
    """The Arrow array of ``node`` from a decoder's finished columns ``(length, nulls, validity, data,
    offsets)``, checked (``validate()``: lengths and buffer sizes) before it is handed on."""
    arr = _array(node, columns)
    arr.validate()
    return arr


def _buf(b: Any) -> pa.Buffer | None:
    return None if b is None else pa.py_buffer(b)


def _array(node: ColumnNode, columns: list[tuple[int, int, Any, Any, Any]]) -> pa.Array:
    n, nulls, valid, data, offs = columns[node.index]
    t = node.type
    if pa.types.is_null(t):
        return pa.nulls(n)
    validity = _buf(valid) if nulls else None
    if pa.types.is_struct(t):
        kids = [_array(c, columns) for c in node.children]
        return pa.Array.from_buffers(t, n, [validity], null_count=nulls, children=kids)
    if pa.types.is_map(t) or pa.types.is_list(t):
        kids = [_array(node.children[0], columns)]
        return pa.Array.from_buffers(t, n, [validity, _buf(offs)], null_count=nulls, children=kids)
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return pa.Array.from_buffers(t, n, [validity, _buf(offs), _buf(data)], null_count=nulls)
    return pa.Array.from_buffers(t, n, [validity, _buf(data)], null_count=nulls)
