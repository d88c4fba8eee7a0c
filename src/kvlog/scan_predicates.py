"""The predicates of a lazy scan (:mod:`kvlog.scanning`): a small tree that the Polars and DuckDB adapters
translate their engines' filters into, what it bounds (:class:`Bounds`: topics, partitions, offsets, a
timestamp range, for planning through the indexes), and its exact evaluation over decoded rows.

Only the never-null columns of ``kvlog.scanning.PUSHABLE`` appear in it; a timestamp constant is an int count
of nanoseconds since the epoch (records carry milliseconds, so every comparison is exact in milliseconds).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union, cast

import numpy as np
import pyarrow as pa

from kvlog.errors import ConfigError

__all__ = ["And", "Bounds", "Cmp", "Const", "In", "Not", "Or", "Predicate", "columns_of", "evaluate", "ms_bound",
           "partition_excluded", "timestamp_ns"]

LONG_MAX = 2**63 - 1
_NS_PER_MS = 1_000_000

@dataclass(frozen=True)
class Cmp:
    column: str
    op: str  # == != < <= > >=
    value: Any


@dataclass(frozen=True)
class In:
    column: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class And:
    parts: tuple[Predicate, ...]


@dataclass(frozen=True)
class Or:
    parts: tuple[Predicate, ...]


@dataclass(frozen=True)
class Not:
    part: Predicate


@dataclass(frozen=True)
class Const:
    """A predicate known to be true or false for every row (``IS NOT NULL`` of a never-null column)."""
    value: bool


Predicate = Union[Cmp, In, And, Or, Not, Const]

_FLIP = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def ms_bound(op: str, ns: int) -> tuple[int | None, int | None]:
    """``[lo, hi)`` in milliseconds of the record timestamps ``t`` (ms) with ``t * 1e6 <op> ns``."""
    floor = ns // _NS_PER_MS
    ceil = -(-ns // _NS_PER_MS)
    if op == ">=":
        return ceil, None
    if op == ">":
        return floor + 1, None
    if op == "<":
        return None, ceil
    if op == "<=":
        return None, floor + 1
    if op == "==":
        return ceil, floor + 1
    return None, None


@dataclass(frozen=True)
class Bounds:
    """What a scan can push into kvlog: every row it yields satisfies all of these (``None``: no bound).

    ``topics``/``partitions``: the only ones that can match; ``offsets``: ``[lo, hi)``; ``timestamps``:
    ``[lo, hi)`` in epoch milliseconds. Built from keyword arguments, or as the hull of a predicate tree
    (:meth:`of`): every row satisfying the predicate is within them, so they only narrow what is read.
    """

    topics: frozenset[str] | None = None
    partitions: frozenset[int] | None = None
    partition_lo: int | None = None
    partition_hi: int | None = None  # inclusive
    offset_lo: int | None = None
    offset_hi: int | None = None  # exclusive
    ts_lo: int | None = None  # ms, inclusive
    ts_hi: int | None = None  # ms, exclusive
    empty: bool = False

    def intersect(self, other: Bounds) -> Bounds:
        def lo(a: int | None, b: int | None) -> int | None:
            return b if a is None else a if b is None else max(a, b)

        def hi(a: int | None, b: int | None) -> int | None:
            return b if a is None else a if b is None else min(a, b)

        def sets(a: frozenset[Any] | None, b: frozenset[Any] | None) -> frozenset[Any] | None:
            return b if a is None else a if b is None else a & b

        return Bounds(sets(self.topics, other.topics), sets(self.partitions, other.partitions),
                      lo(self.partition_lo, other.partition_lo), hi(self.partition_hi, other.partition_hi),
                      lo(self.offset_lo, other.offset_lo), hi(self.offset_hi, other.offset_hi),
                      lo(self.ts_lo, other.ts_lo), hi(self.ts_hi, other.ts_hi), self.empty or other.empty)

    def hull(self, other: Bounds) -> Bounds:
        """The smallest bounds holding both (for OR)."""
        if self.empty:
            return other
        if other.empty:
            return self

        def lo(a: int | None, b: int | None) -> int | None:
            return None if a is None or b is None else min(a, b)

        def hi(a: int | None, b: int | None) -> int | None:
            return None if a is None or b is None else max(a, b)

        def sets(a: frozenset[Any] | None, b: frozenset[Any] | None) -> frozenset[Any] | None:
            return None if a is None or b is None else a | b

        return Bounds(sets(self.topics, other.topics), sets(self.partitions, other.partitions),
                      lo(self.partition_lo, other.partition_lo), hi(self.partition_hi, other.partition_hi),
                      lo(self.offset_lo, other.offset_lo), hi(self.offset_hi, other.offset_hi),
                      lo(self.ts_lo, other.ts_lo), hi(self.ts_hi, other.ts_hi))

    @classmethod
    def of(cls, pred: Predicate) -> Bounds:
        """The bounds every row satisfying ``pred`` is within."""
        if isinstance(pred, Const):
            return cls(empty=not pred.value)
        if isinstance(pred, And):
            out = cls()
            for p in pred.parts:
                out = out.intersect(cls.of(p))
            return out
        if isinstance(pred, Or):
            got = cls(empty=True)
            for p in pred.parts:
                got = got.hull(cls.of(p))
            return got
        if isinstance(pred, Not):
            inner = pred.part
            if isinstance(inner, Cmp):
                return cls.of(Cmp(inner.column, _FLIP[inner.op], inner.value))
            if isinstance(inner, Not):
                return cls.of(inner.part)
            if isinstance(inner, Const):
                return cls(empty=inner.value)
            return cls()
        if isinstance(pred, In):
            if pred.column == "topic":
                return cls(topics=frozenset(pred.values))
            if pred.column == "partition":
                return cls(partitions=frozenset(pred.values))
            return cls.of(Or(tuple(Cmp(pred.column, "==", v) for v in pred.values)))
        col, op, v = pred.column, pred.op, pred.value
        if op == "!=":
            return cls()
        if col == "topic":
            return cls(topics=frozenset([v])) if op == "==" else cls()
        if col == "timestamp":
            lo, hi = ms_bound(op, v)
            return cls(ts_lo=lo, ts_hi=hi)
        if col not in ("partition", "offset"):
            return cls()
        lo_i = v if op in ("==", ">=") else v + 1 if op == ">" else None
        hi_x = v + 1 if op in ("==", "<=") else v if op == "<" else None  # exclusive
        if col == "offset":
            return cls(offset_lo=lo_i, offset_hi=hi_x)
        if op == "==":
            return cls(partitions=frozenset([v]))
        return cls(partition_lo=lo_i, partition_hi=None if hi_x is None else hi_x - 1)

    def admits_partition(self, topic: str, partition: int) -> bool:
        if self.empty:
            return False
        if self.topics is not None and topic not in self.topics:
            return False
        if self.partitions is not None and partition not in self.partitions:
            return False
        if self.partition_lo is not None and partition < self.partition_lo:
            return False
        return self.partition_hi is None or partition <= self.partition_hi

    def describe(self) -> str:
        parts = []
        if self.empty:
            return "nothing"
        if self.topics is not None:
            parts.append(f"topic in {sorted(self.topics)}")
        if self.partitions is not None:
            parts.append(f"partition in {sorted(self.partitions)}")
        if self.partition_lo is not None or self.partition_hi is not None:
            parts.append(f"partition in [{self.partition_lo}, {self.partition_hi}]")
        if self.offset_lo is not None or self.offset_hi is not None:
            parts.append(f"offset in [{self.offset_lo}, {self.offset_hi})")
        if self.ts_lo is not None or self.ts_hi is not None:
            parts.append(f"timestamp (ms) in [{self.ts_lo}, {self.ts_hi})")
        return ", ".join(parts) or "everything"


def evaluate(pred: Predicate, batch: pa.RecordBatch, topic: str, partition: int) -> np.ndarray | bool:
    """``pred`` over the rows of ``batch`` (which has every column ``pred`` names but topic and partition, the
    range's own): a boolean mask, or one bool for every row."""
    if isinstance(pred, Const):
        return pred.value
    if isinstance(pred, (And, Or)):
        acc: np.ndarray | bool = isinstance(pred, And)
        for p in pred.parts:
            got = evaluate(p, batch, topic, partition)
            acc = (acc & got) if isinstance(pred, And) else (acc | got)
            if acc is False and isinstance(pred, And) or acc is True and isinstance(pred, Or):
                break
        return acc
    if isinstance(pred, Not):
        got = evaluate(pred.part, batch, topic, partition)
        return not got if isinstance(got, bool) else ~got
    column = pred.column
    if column in ("topic", "partition"):
        value: Any = topic if column == "topic" else partition
        if isinstance(pred, In):
            return value in pred.values
        return bool(_OPS[pred.op](value, pred.value))
    data = _column_numpy(batch, column)
    if isinstance(pred, In):
        if column == "timestamp":
            return np.logical_or.reduce([_ts_mask(data, "==", v) for v in pred.values]) if pred.values else False
        return np.isin(data, np.array(pred.values, dtype=np.int64))
    if column == "timestamp":
        return _ts_mask(data, pred.op, pred.value)
    return cast(np.ndarray, _OPS[pred.op](data, pred.value))


def _column_numpy(batch: pa.RecordBatch, column: str) -> np.ndarray:
    arr = batch.column(batch.schema.get_field_index(column))
    if column == "timestamp":
        arr = arr.view(pa.int64())
    return np.frombuffer(arr.buffers()[1], dtype=np.int64 if column != "timestampType" else np.int32,
                         count=len(arr), offset=arr.offset * (8 if column != "timestampType" else 4))


def _ts_mask(us: np.ndarray, op: str, ns: int) -> np.ndarray:
    lo, hi = ms_bound(op, ns)
    if op == "!=":
        return ~_ts_mask(us, "==", ns)
    mask = np.ones(len(us), dtype=bool)
    if lo is not None:
        mask &= us >= lo * 1000
    if hi is not None:
        mask &= us < hi * 1000
    return mask


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def timestamp_ns(value: Any, name: str = "timestamp") -> int:
    """A timestamp argument as nanoseconds since the epoch: an int is epoch milliseconds (Kafka's unit), a
    ``datetime`` is UTC when naive; numpy's ``datetime64`` and pandas' ``Timestamp`` are taken too."""
    if isinstance(value, bool):
        raise ConfigError(f"{name} must be epoch milliseconds or a datetime, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value) * _NS_PER_MS
    if isinstance(value, np.datetime64):
        return int(value.astype("datetime64[ns]").astype(np.int64))
    if isinstance(value, _dt.datetime):
        extra_ns = int(getattr(value, "nanosecond", 0))  # pandas.Timestamp
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        delta = value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return int((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000 + extra_ns
    if isinstance(value, _dt.date):
        return timestamp_ns(_dt.datetime(value.year, value.month, value.day), name)
    raise ConfigError(f"{name} must be epoch milliseconds or a datetime, got {type(value).__name__}")


def columns_of(pred: Predicate) -> set[str]:
    if isinstance(pred, (Cmp, In)):
        return {pred.column} - {"topic", "partition"}
    if isinstance(pred, (And, Or)):
        return set().union(*(columns_of(p) for p in pred.parts))
    if isinstance(pred, Not):
        return columns_of(pred.part)
    return set()


def partition_excluded(pred: Predicate, topic: str, partition: int) -> bool:
    """Whether ``pred`` is false for every row of this partition, judged on topic and partition alone."""
    if columns_of(pred):
        return False  # (a predicate over rows too is judged per row; Bounds.of has narrowed it already)
    return evaluate(pred, cast(pa.RecordBatch, None), topic, partition) is False
