"""Polars: partition logs as a ``LazyFrame``, through Polars' IO plugins (``pip install 'kvlog[polars]'``).

``scan_kafka(root, topics=...)`` returns a ``polars.LazyFrame`` of Spark's Kafka-source columns. Nothing is
read until the frame is collected; Polars then hands kvlog its projection, its predicate and its row limit
(``register_io_source``), and kvlog pushes what its indexes can use:

* the projection: headers and values not selected are never decoded;
* comparisons of ``partition``, ``offset`` and ``timestamp`` with constants (``==``, ``!=``, ``<``, ``<=``,
  ``>``, ``>=``, ``is_between``, ``is_in``, and ``&``/``|``/``~`` of them), and of ``topic`` with strings:
  partitions that cannot match are not opened, offsets are found through the offset index, a timestamp lower
  bound through the time index (see :mod:`kvlog.scanning`);
* the row limit (``head``/``limit`` without a filter).

The rest of the predicate (anything on ``key``, ``value`` or ``headers``, any function of a column) is
evaluated by Polars on the batches kvlog yields, so the result is always exactly Polars' own. Collect with
``engine="streaming"`` for a topic larger than memory: batches then flow through and are dropped as Polars
goes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

try:
    import polars as pl
    from polars.io.plugins import register_io_source
except ImportError as exc:  # pragma: no cover - exercised only without polars
    raise ImportError("kvlog.polars needs Polars: pip install 'kvlog[polars]'") from exc

import pyarrow as pa

from kvlog.scanning import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_WINDOW_BYTES,
    And,
    Bounds,
    Cmp,
    Const,
    In,
    Not,
    Or,
    Predicate,
    Scan,
    ScanStats,
    Source,
    kafka_schema,
)

if TYPE_CHECKING:
    from kvlog.tiered.base import RemoteStorage
    from kvlog.tiered.view import RemoteLogMetadataSource

__all__ = ["scan_kafka", "polars_schema", "to_predicate"]


def polars_schema() -> pl.Schema:
    """The Polars schema of a scan: Spark's Kafka-source columns as Polars types them."""
    return pl.from_arrow(kafka_schema(True).empty_table()).schema  # type: ignore[union-attr]


def scan_kafka(source: Source | Scan, topics: str | Sequence[str] | None = None, *, read_committed: bool = False,
               batch_size: int | None = None, window_bytes: int = DEFAULT_WINDOW_BYTES, check_crc: bool = True,
               threads: int | None = None, backup_run: int | None = None, remote_storage: RemoteStorage | None = None,
               remote_log_metadata: RemoteLogMetadataSource | None = None,
               stats: ScanStats | None = None, flatten: bool = False, **formats: Any) -> pl.LazyFrame:
    """Partition logs as a ``polars.LazyFrame`` (Spark's Kafka-source columns), read when collected.

    ``source``, ``topics`` and the options are :func:`kvlog.scan`'s (``source`` may also be a
    :class:`kvlog.Scan`, whose own bounds then apply too), the key and value formats too (``value_format=``,
    ``value_schema=``, ``schemas=``, ``errors=``...: ``formats``). ``flatten``: a typed value's (or key's)
    fields as columns of their own (``value.<field>``), so that selecting some of them decodes only those.
    ``batch_size``: rows per batch handed to Polars (default: Polars' hint). ``stats``: a
    :class:`kvlog.ScanStats` that every collect adds to.
    """
    if isinstance(source, Scan):
        if formats:
            raise TypeError("formats are a Scan's own: give them to kvlog.Scan")
        base = source
        if stats is not None:
            base.stats = stats
    else:
        base = Scan(source, topics, read_committed=read_committed, window_bytes=window_bytes, check_crc=check_crc,
                    threads=threads, backup_run=backup_run, remote_storage=remote_storage, remote_log_metadata=remote_log_metadata,
                    stats=stats, **formats)
    if flatten:
        base = base.flatten()
    columns = list(base.columns)
    schema = pl.from_arrow(base.schema.empty_table()).schema  # type: ignore[union-attr]

    def io_source(with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
                  hint: int | None) -> Iterator[pl.DataFrame]:
        wanted = list(with_columns) if with_columns is not None else list(columns)
        needed = list(wanted)
        s = base
        if predicate is not None:
            for name in predicate.meta.root_names():
                if name in columns and name not in needed:
                    needed.append(name)
            pushed = to_predicate(predicate)
            if pushed is not None:
                # Polars evaluates the whole predicate below; kvlog only narrows what is read by its bounds
                s = s.where(bounds=Bounds.of(pushed))
        s = s.select(needed)
        rows = batch_size or hint or DEFAULT_BATCH_SIZE
        s = s.batched(rows)
        if n_rows is not None and predicate is None:
            s = s.head(n_rows)
        left = n_rows
        for batch in s.batches():
            df = pl.from_arrow(batch)
            assert isinstance(df, pl.DataFrame)
            if predicate is not None:
                df = df.filter(predicate)
            if needed != wanted:
                df = df.select(wanted)
            if left is not None:
                if df.height >= left:
                    yield df.head(left)
                    return
                left -= df.height
            if df.height:
                yield df

    # (what Polars pushes arrives at collect: its PROJECT and SELECTION lines above this one are what kvlog gets)
    detail = (f"{base!r}; at collect kvlog reads only the columns of PROJECT and pushes the SELECTION's "
              "comparisons of partition, offset, timestamp and topic with constants into its indexes (Polars "
              "evaluates the whole SELECTION on what is read)")
    return register_io_source(io_source, schema=schema, explain_name="kvlog", explain_detail=detail)


# ---------------------------------------------------------------------------------- Polars predicates
_OPS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtEq": "<=", "Gt": ">", "GtEq": ">=",
        "EqValidity": "==", "NotEqValidity": "!="}  # (validity variants equal the plain ones on never-null columns)
_SWAP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NS = {"Nanoseconds": 1, "Microseconds": 1000, "Milliseconds": 1_000_000}


def to_predicate(expr: pl.Expr) -> Predicate | None:
    """The part of a Polars predicate kvlog can push, as a :mod:`kvlog.scanning` predicate tree, or None.

    Conjuncts kvlog cannot use are dropped (the result is implied by ``expr``, which is all pushing needs:
    Polars evaluates ``expr`` itself on what kvlog yields)."""
    try:
        tree = json.loads(expr.meta.serialize(format="json"))
    except Exception:  # (an expression Polars cannot write as JSON, or a Polars without that format)
        return None
    return _node(tree)


def _node(node: Any) -> Predicate | None:
    if not isinstance(node, dict) or len(node) != 1:
        return None
    kind, body = next(iter(node.items()))
    if kind == "BinaryExpr":
        op = body.get("op")
        if op in ("And", "LogicalAnd"):
            parts = [p for p in (_node(body["left"]), _node(body["right"])) if p is not None]
            return None if not parts else parts[0] if len(parts) == 1 else And(tuple(parts))
        if op in ("Or", "LogicalOr"):
            left, right = _node(body["left"]), _node(body["right"])
            return None if left is None or right is None else Or((left, right))
        if op in _OPS:
            return _comparison(body["left"], _OPS[op], body["right"])
        return None
    if kind == "Function":
        fn = body.get("function")
        inputs = body.get("input") or []
        boolean = fn.get("Boolean") if isinstance(fn, dict) else None
        if boolean == "Not" and len(inputs) == 1:
            inner = _node(inputs[0])
            return None if inner is None else Not(inner)
        if boolean in ("IsNotNull", "IsNull") and len(inputs) == 1 and _column(inputs[0]) is not None:
            return Const(boolean == "IsNotNull")
        if isinstance(boolean, dict) and "IsBetween" in boolean and len(inputs) == 3:
            closed = (boolean["IsBetween"] or {}).get("closed", "Both")
            lo = _comparison(inputs[0], ">=" if closed in ("Both", "Left") else ">", inputs[1])
            hi = _comparison(inputs[0], "<=" if closed in ("Both", "Right") else "<", inputs[2])
            return None if lo is None or hi is None else And((lo, hi))
        if isinstance(boolean, dict) and "IsIn" in boolean and len(inputs) == 2:
            column = _column(inputs[0])
            values = _list_literal(inputs[1])
            if column is None or values is None:
                return None
            typed = [_value(column, v) for v in values if v is not None]
            if any(v is None for v in typed):
                return None
            return In(column, tuple(typed))
    if kind == "Literal":
        lit = _literal(node)
        if isinstance(lit, bool):
            return Const(lit)
    return None


def _column(node: Any) -> str | None:
    if isinstance(node, dict) and set(node) == {"Column"} and node["Column"] in ("topic", "partition", "offset",
                                                                                 "timestamp", "timestampType"):
        return str(node["Column"])
    return None


def _comparison(left: Any, op: str, right: Any) -> Predicate | None:
    column = _column(left)
    if column is None:
        column, op, right = _column(right), _SWAP[op], left
        if column is None:
            return None
    value = _value(column, _literal(right))
    return None if value is None else Cmp(column, op, value)


def _value(column: str, lit: Any) -> Any:
    """A literal as the predicate tree's value for ``column`` (None when it is not one of its type)."""
    if lit is None:
        return None
    if column == "topic":
        return lit if isinstance(lit, str) else None
    if column == "timestamp":
        return lit[0] if isinstance(lit, tuple) and lit[1] == "UTC" else None
    return lit if isinstance(lit, int) and not isinstance(lit, bool) else None


def _literal(node: Any) -> Any:
    """A Polars literal: an int, a str, a bool, or a datetime as ``(nanoseconds, time zone)``."""
    if not isinstance(node, dict) or set(node) != {"Literal"}:
        return None
    lit = node["Literal"]
    if not isinstance(lit, dict) or len(lit) != 1:
        return None
    kind, body = next(iter(lit.items()))
    if kind == "Dyn" and isinstance(body, dict) and len(body) == 1:
        (k, v), = body.items()
        return v if k == "Int" and isinstance(v, int) else v if k == "Str" and isinstance(v, str) else None
    if kind != "Scalar" or not isinstance(body, dict) or len(body) != 1:
        return None
    (k, v), = body.items()
    if k in ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64") and isinstance(v, int):
        return v
    if k in ("String", "Utf8") and isinstance(v, str):
        return v
    if k == "Boolean" and isinstance(v, bool):
        return v
    if k == "Datetime" and isinstance(v, list) and len(v) == 3 and v[1] in _NS:
        tz = v[2]["inner"] if isinstance(v[2], dict) else v[2]
        return (int(v[0]) * _NS[v[1]], tz)
    return None


def _list_literal(node: Any) -> list[Any] | None:
    """The values of an ``is_in`` list (Polars writes them as an Arrow IPC stream)."""
    if not isinstance(node, dict) or set(node) != {"Literal"}:
        return None
    lit = node["Literal"]
    raw = None
    if isinstance(lit, dict):
        scalar = lit.get("Scalar")
        raw = scalar.get("List") if isinstance(scalar, dict) else lit.get("Series")
    if not isinstance(raw, list):
        return None
    try:
        table = pa.ipc.open_stream(bytes(raw)).read_all()
    except (pa.ArrowInvalid, ValueError, TypeError):
        return None
    if table.num_columns != 1:
        return None
    col = table.column(0)
    if pa.types.is_timestamp(col.type):
        if col.type.tz not in ("UTC", "utc", "Etc/UTC"):
            return None
        factor = {"ns": 1, "us": 1000, "ms": 1_000_000, "s": 1_000_000_000}[col.type.unit]
        return [None if v is None else (v * factor, "UTC") for v in col.cast(pa.int64()).to_pylist()]
    if pa.types.is_integer(col.type) or pa.types.is_string(col.type) or pa.types.is_large_string(col.type) or \
            pa.types.is_string_view(col.type):
        return list(col.to_pylist())
    return None
