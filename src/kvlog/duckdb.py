"""DuckDB: partition logs as a table DuckDB streams from kvlog (``pip install 'kvlog[duckdb]'``).

``source(root, topics=...)`` returns an object DuckDB reads like any Arrow source: name it in a query
(``duckdb.sql("select count(*) from clicks")`` finds a Python variable ``clicks``), or give it a name on a
connection with :func:`register`. DuckDB then asks kvlog for the columns the query uses and offers it the
query's filters; kvlog takes the comparisons of ``partition``, ``offset``, ``timestamp``, ``timestampType`` and
``topic`` with constants (``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, ``BETWEEN``, ``IN``, and ``AND``/``OR``/``NOT``
of them) and applies them exactly itself, through the indexes first (:mod:`kvlog.scanning`): partitions that
cannot match are not opened, offsets are found through the offset index and a timestamp lower bound through
the time index. DuckDB applies every other filter. Batches stream through: a topic larger than memory is
aggregated without holding it.

DuckDB's Arrow scan speaks to a *source* (its ``duckdb._sources`` protocol: ``accepts(filter)`` and
``stream(columns, filters)``); with a DuckDB that has none, the object is still an Arrow stream
(``__arrow_c_stream__``), read whole and filtered by DuckDB.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

try:
    import duckdb as _duckdb
except ImportError as exc:  # pragma: no cover - exercised only without duckdb
    raise ImportError("kvlog.duckdb needs DuckDB: pip install 'kvlog[duckdb]'") from exc

from kvlog.scanning import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_WINDOW_BYTES,
    PUSHABLE,
    And,
    Cmp,
    Const,
    In,
    Not,
    Or,
    Predicate,
    Scan,
    ScanStats,
    Source,
)

if TYPE_CHECKING:
    from kvlog.tiered.base import RemoteStorage
    from kvlog.tiered.view import RemoteLogMetadataSource

try:  # DuckDB's source protocol (duckdb 2.0); absent, the source is a plain Arrow stream
    from duckdb._sources import ArrowScanSource as _Base
    from duckdb._sources import nodes as _nodes

    PUSHDOWN = True
except ImportError:  # pragma: no cover - other DuckDB versions
    _Base = object  # type: ignore[assignment,misc]
    _nodes = None  # type: ignore[assignment]
    PUSHDOWN = False

__all__ = ["KafkaSource", "PUSHDOWN", "register", "source", "to_predicate"]


class KafkaSource(_Base):
    """A :class:`kvlog.Scan` as a DuckDB Arrow source: projection and kvlog's filters pushed into the scan."""

    one_shot = False  # every query reads afresh
    schema_is_stable = True  # the columns never change

    def __init__(self, scan: Scan) -> None:
        if PUSHDOWN:
            super().__init__(scan)
        self.obj = scan
        self.scan = scan

    def __repr__(self) -> str:
        return f"kvlog.duckdb.KafkaSource({self.scan!r})"

    # ------------------------------------------------------------------------- the Arrow protocol
    def __arrow_c_schema__(self) -> object:
        return self.scan.__arrow_c_schema__()

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.scan.__arrow_c_stream__(requested_schema)

    # -------------------------------------------------------------------- DuckDB's source protocol
    def rows(self) -> int | None:
        return None

    def accepts(self, predicate: Any) -> bool:
        """Whether kvlog applies ``predicate`` (a DuckDB filter) exactly: comparisons of its never-null
        columns (topic, partition, offset, timestamp, timestampType) with constants."""
        return to_predicate(predicate) is not None

    def stream(self, columns: Sequence[int] | None, filters: Sequence[Any]) -> tuple[object, bool]:
        """A stream of ``columns`` (declared indexes; None for all) of the rows passing ``filters``."""
        s = self.scan
        preds = [to_predicate(f) for f in filters]
        if any(p is None for p in preds):  # (DuckDB offers only what accepts() took)
            raise ValueError("kvlog was offered a filter it did not accept")
        if preds:
            s = s.where(preds[0] if len(preds) == 1 else And(tuple(p for p in preds if p is not None)))
        narrowed = columns is not None and len(columns) > 0
        if narrowed:
            names = s.columns
            s = s.select([names[i] for i in columns])  # type: ignore[union-attr]
        return s.to_reader().__arrow_c_stream__(), narrowed


def source(root: Source | Scan, topics: str | Sequence[str] | None = None, *, read_committed: bool = False,
           batch_size: int = DEFAULT_BATCH_SIZE, window_bytes: int = DEFAULT_WINDOW_BYTES, check_crc: bool = True,
           threads: int | None = None, backup_run: int | None = None, remote_storage: RemoteStorage | None = None,
           remote_log_metadata: RemoteLogMetadataSource | None = None,
           stats: ScanStats | None = None, flatten: bool = False, **formats: Any) -> KafkaSource:
    """Partition logs as a DuckDB source (Spark's Kafka-source columns); arguments as for :func:`kvlog.scan`
    (``root`` may also be a :class:`kvlog.Scan`, whose own bounds then apply too), the key and value formats
    too (``value_format=``, ``schemas=``...: ``formats``). ``flatten``: a typed value's fields as columns of
    their own (``"value.<field>"``), so that a query of some of them decodes only those."""
    if isinstance(root, Scan):
        if formats:
            raise TypeError("formats are a Scan's own: give them to kvlog.Scan")
        if stats is not None:
            root.stats = stats
        return KafkaSource(root.flatten() if flatten else root)
    scan = Scan(root, topics, read_committed=read_committed, batch_size=batch_size, window_bytes=window_bytes,
                check_crc=check_crc, threads=threads, backup_run=backup_run, remote_storage=remote_storage,
                remote_log_metadata=remote_log_metadata, stats=stats, **formats)
    return KafkaSource(scan.flatten() if flatten else scan)


def register(connection: Any, name: str, root: Source | Scan, topics: str | Sequence[str] | None = None,
             **options: Any) -> KafkaSource:
    """Make ``name`` a table of ``connection`` (a ``duckdb.DuckDBPyConnection``, or None for DuckDB's default
    connection) that reads partition logs; ``options`` as for :func:`source`. Returns the source."""
    src = source(root, topics, **options)
    con = connection if connection is not None else _duckdb.default_connection()
    con.register(name, src)
    return src


# ------------------------------------------------------------------------------------ DuckDB filters
_COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
_TYPES = {"topic": ("VARCHAR",), "partition": ("INTEGER",), "offset": ("BIGINT",),
          "timestamp": ("TIMESTAMP WITH TIME ZONE",), "timestampType": ("INTEGER",)}


def to_predicate(node: Any) -> Predicate | None:
    """A DuckDB filter (``duckdb._sources.nodes``) as a :mod:`kvlog.scanning` predicate tree, or None when
    kvlog cannot evaluate all of it exactly."""
    if _nodes is None:
        return None
    try:
        return _translate(node)
    except RecursionError:
        return None


def _translate(node: Any) -> Predicate | None:
    n = _nodes
    assert n is not None
    if isinstance(node, n.Binary):
        if node.op in ("AND", "OR"):
            left, right = _translate(node.left), _translate(node.right)
            if left is None or right is None:
                return None
            return And((left, right)) if node.op == "AND" else Or((left, right))
        if node.op in _COMPARISONS:
            column = _column(node.left)
            value = _constant(column, node.right)
            if column is None or value is None:
                return None
            return Cmp(column, "==" if node.op == "=" else node.op, value)
        return None
    if isinstance(node, n.Unary) and node.op == "NOT":
        inner = _translate(node.operand)
        return None if inner is None else Not(inner)
    if isinstance(node, n.Postfix) and node.op in ("IS NULL", "IS NOT NULL") and _column(node.operand) is not None:
        return Const(node.op == "IS NOT NULL")  # (none of these columns is ever null)
    if isinstance(node, n.In):
        column = _column(node.operand)
        if column is None or not node.values:
            return None
        values = [_constant(column, v) for v in node.values]
        if any(v is None for v in values):
            return None
        return In(column, tuple(values))
    return None


def _column(node: Any) -> str | None:
    n = _nodes
    assert n is not None
    if isinstance(node, n.Col) and len(node.parts) == 1 and node.parts[0] in PUSHABLE:
        return str(node.parts[0])
    return None


def _constant(column: str | None, node: Any) -> Any:
    """The constant of a comparison with ``column``, as the predicate tree holds it; None when its type is not
    exactly the column's (DuckDB then keeps the filter)."""
    n = _nodes
    assert n is not None
    if column is None or not isinstance(node, n.Lit) or node.type not in _TYPES[column]:
        return None
    value = node.value
    if column == "topic":
        return value if isinstance(value, str) else None
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return value * 1000 if column == "timestamp" else value  # (microseconds to the tree's nanoseconds)
