"""The ``kvlog`` data source: batch and streaming reads with Spark's Kafka-source schema and options.

Planning (which offsets of which logs) happens on the driver in :mod:`kvlog.spark._plan`; each Spark task
opens its log read-only and yields Arrow batches built from the record kernels' buffers, so a writer may
keep appending while Spark reads.
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import replace
from typing import Any, Iterator, Mapping

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    InputPartition,
)
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from kvlog.errors import ConfigError, OffsetOutOfRangeError
from kvlog.scanning import narrow
from kvlog.spark import _plan
from kvlog.spark._plan import OffsetRange, ReadOptions
from kvlog.spark._tiered import cut_at_pieces

try:  # admission control and availableNow arrived in pyspark 4.2
    from pyspark.sql.streaming.datasource import (
        ReadAllAvailable,
        ReadMaxRows,
        SupportsTriggerAvailableNow,
    )
except ImportError:  # pragma: no cover - pyspark 4.0/4.1
    ReadAllAvailable = ReadMaxRows = None  # type: ignore[assignment,misc]

    class SupportsTriggerAvailableNow:  # type: ignore[no-redef]
        pass


HEADERS_TYPE = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))


def kafka_schema(include_headers: bool = False) -> StructType:
    """Spark's Kafka-source schema (``KafkaRecordToRowConverter``), headers last when asked for."""
    fields = [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
    ]
    if include_headers:
        fields.append(StructField("headers", HEADERS_TYPE))
    return StructType(fields)


def _wants_headers(options: Any) -> bool:
    return str(options.get("includeHeaders", "false")).strip().lower() == "true"


def read_schema(options: Any) -> StructType:
    """The read's schema: Spark's Kafka-source columns, keys and values typed by their formats."""
    from kvlog.spark.typed import for_options

    typed = for_options(options)
    if typed is not None:
        out: StructType = typed.spark_schema(_wants_headers(options))
        return out
    return kafka_schema(_wants_headers(options))


def _typed(options: Any) -> Any:
    from kvlog.spark.typed import for_options

    return for_options(options)


def _check_schema(schema: StructType, options: Any) -> None:
    """The schema is fixed, as for Spark's Kafka source: a user-specified one is refused up front."""
    expected = read_schema(options)
    if schema != expected:
        raise ConfigError(f"the kvlog source has a fixed schema ({expected.simpleString()}); "
                          "drop .schema(...) (use includeHeaders=true for the headers column)")


# ------------------------------------------------------------------------------------------- batch
class KvlogBatchReader(DataSourceReader):
    """Plans one input partition per offset range; reads each range from a read-only open."""

    def __init__(self, options: Mapping[str, str], include_headers: bool):
        self.options = dict(options)
        self.include_headers = include_headers
        self.constraints = _Constraints()

    def partitions(self) -> list[InputPartition]:
        opts, ranges = _plan.plan_batch(self.options)
        ranges = self.constraints.apply(ranges, opts)
        return [InputPartition(r) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        r = partition.value
        if r is None:  # Spark's stand-in for an empty plan
            return iter(())
        opts = ReadOptions.parse(self.options)
        return _plan.read_range(r, include_headers=self.include_headers, read_committed=opts.read_committed,
                                typed=_typed(self.options),
                                chunk_bytes=opts.chunk_bytes, max_rows=opts.max_rows_per_batch,
                                on_damage="raise" if opts.fail_on_data_loss else "skip")


class _Constraints:
    """Pushed-down filters on topic / partition / offset (applied exactly) and timestamp lower bounds."""

    def __init__(self) -> None:
        self.topics: set[str] | None = None
        self.partitions: set[int] | None = None
        self.offset_lo = 0
        self.offset_hi = 2**63 - 1
        self.part_lo = -(2**31)
        self.part_hi = 2**31 - 1
        self.ts_lo: int | None = None  # epoch ms; every record before the resolved offset is older

    def accept(self, f: Any) -> bool:
        """Fold one Spark ``Filter`` in; True when kvlog applies it exactly (Spark then skips it)."""
        from pyspark.sql import datasource as ds

        col = f.attribute[0] if len(f.attribute) == 1 else None
        value: Any = getattr(f, "value", None)
        if col == "topic":
            if isinstance(f, ds.EqualTo) and isinstance(value, str):
                self.topics = {value} if self.topics is None else self.topics & {value}
                return True
            if isinstance(f, ds.In) and all(isinstance(v, str) for v in value):
                self.topics = set(value) if self.topics is None else self.topics & set(value)
                return True
            return False
        if col in ("partition", "offset"):
            if isinstance(f, ds.In):
                if col == "partition" and all(isinstance(v, int) for v in value):
                    self.partitions = set(value) if self.partitions is None else self.partitions & set(value)
                    return True
                return False
            if not isinstance(value, int) or isinstance(value, bool):
                return False
            lo, hi = (None, None)
            if isinstance(f, ds.EqualTo):
                lo, hi = value, value
            elif isinstance(f, ds.GreaterThan):
                lo = value + 1
            elif isinstance(f, ds.GreaterThanOrEqual):
                lo = value
            elif isinstance(f, ds.LessThan):
                hi = value - 1
            elif isinstance(f, ds.LessThanOrEqual):
                hi = value
            else:
                return False
            if col == "offset":
                self.offset_lo = max(self.offset_lo, lo if lo is not None else self.offset_lo)
                self.offset_hi = min(self.offset_hi, hi + 1 if hi is not None else self.offset_hi)
            else:
                self.part_lo = max(self.part_lo, lo if lo is not None else self.part_lo)
                self.part_hi = min(self.part_hi, hi if hi is not None else self.part_hi)
            return True
        if col == "timestamp" and isinstance(value, _dt.datetime):
            us = _micros(value)
            if isinstance(f, ds.GreaterThan | ds.GreaterThanOrEqual | ds.EqualTo):
                ms = us // 1000  # a record at ms*1000 µs ≥ the bound has timestamp ≥ this ms
                self.ts_lo = ms if self.ts_lo is None else max(self.ts_lo, ms)
        return False  # timestamps only narrow the scan: Spark still evaluates them

    def apply(self, ranges: list[OffsetRange], opts: ReadOptions) -> list[OffsetRange]:
        out = []
        for r in ranges:
            if self.topics is not None and r.topic not in self.topics:
                continue
            if self.partitions is not None and r.partition not in self.partitions:
                continue
            if not self.part_lo <= r.partition <= self.part_hi:
                continue
            start, end = max(r.start, self.offset_lo), min(r.end, self.offset_hi)
            if start < end and self.ts_lo is not None:
                with _plan.open_read_only(r.path, backup_run=r.backup_run, remote=r.remote, pieces=r.pieces) as log:
                    start = narrow(log, start, end, self.ts_lo)  # (the scans' own use of the time index)
            if start < end:
                out.append(replace(r, start=start, end=end))
        return out


def _micros(value: _dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    delta = value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


class KvlogPushdownBatchReader(KvlogBatchReader):
    """The reader registered when ``spark.sql.python.filterPushdown.enabled`` is on (pyspark ≥ 4.1)."""

    def pushFilters(self, filters: list[Any]) -> Iterator[Any]:
        for f in filters:
            if not self.constraints.accept(f):
                yield f


# --------------------------------------------------------------------------------------- streaming
def _offsets_json(offsets: dict[tuple[str, int], int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (topic, part), off in sorted(offsets.items()):
        out.setdefault(topic, {})[str(part)] = int(off)
    return out


def _from_json(data: dict[str, Any] | None) -> dict[tuple[str, int], int]:
    return {(t, int(p)): int(o) for t, ps in (data or {}).items() for p, o in ps.items()}


class KvlogStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Tails partition logs: offsets are Kafka's ``{"topic": {"partition": next offset}}``."""

    def __init__(self, options: Mapping[str, str], include_headers: bool):
        self.options = dict(options)
        self.include_headers = include_headers
        self.opts = ReadOptions.parse(self.options, streaming=True)
        self._target: dict[tuple[str, int], int] | None = None
        self._caps: dict[tuple[str, int], int] = {}
        self._clock = time.monotonic
        self._last_trigger = self._clock()

    def _logs(self, strict: bool = False) -> dict[tuple[str, int], str]:
        """The partitions read; ``strict`` (where a query starts) makes a subscribed topic that does not
        exist an error. Later triggers leave a topic that went away to ``failOnDataLoss``. A cluster's
        committed ends are kept in ``self._caps``."""
        paths = _plan.input_paths(self.options)
        found = _plan.discover(paths, self.opts.divergent)
        self._caps = found.caps
        return _plan.select(found, self.opts, paths, strict=strict)

    def _bounds(self) -> dict[tuple[str, int], _plan.LogBounds]:
        cache: dict[str, Any] = {}
        return {tp: _plan.read_bounds(path, self.opts.read_committed, self.opts.remote, cache, self._caps.get(tp))
                for tp, path in self._logs().items()}

    def initialOffset(self) -> dict[str, dict[str, int]]:
        chosen = self._logs(strict=True)
        tps = sorted(chosen)
        how = _plan._pick(self.opts.starting, self.opts.starting_by_timestamp, self.opts.starting_timestamp,
                          tps, "starting")
        offsets = {}
        cache: dict[str, Any] = {}
        for tp in tps:
            with _plan.open_read_only(chosen[tp], remote=self.opts.remote, cache=cache) as log:
                b = _plan.bounds(log, self.opts.read_committed, self._caps.get(tp))
                start = _plan.resolve_start(log, b, how[tp], self.opts, tp)
            offsets[tp] = _plan.check_range(tp, start, max(start, b.end), b, self.opts.fail_on_data_loss)[0]
        return _offsets_json(offsets)

    def _latest(self) -> dict[tuple[str, int], int]:
        latest = {tp: b.end for tp, b in self._bounds().items()}
        if self._target is not None:
            latest = {tp: min(off, self._target[tp]) for tp, off in latest.items() if tp in self._target}
        return latest

    def getDefaultReadLimit(self) -> Any:
        if ReadMaxRows is not None and self.opts.max_offsets_per_trigger is not None:
            return ReadMaxRows(self.opts.max_offsets_per_trigger)
        return ReadAllAvailable() if ReadAllAvailable is not None else None

    def latestOffset(self, start: dict[str, Any] | None = None, limit: Any = None) -> dict[str, dict[str, int]]:
        latest = self._latest()
        if start is None:
            return _offsets_json(latest)
        begin = _from_json(start)
        bounds = None
        new = [tp for tp in latest if tp not in begin]
        if new:
            bounds = self._bounds()
        fresh = {tp: bounds[tp].log_start_offset for tp in new if bounds is not None and tp in bounds}
        if self._skip_trigger(begin, fresh, latest):
            return _offsets_json(begin)
        max_rows = None
        if limit is not None and ReadMaxRows is not None and isinstance(limit, ReadMaxRows):
            max_rows = limit.max_rows
        elif limit is None and self.opts.max_offsets_per_trigger is not None:
            max_rows = self.opts.max_offsets_per_trigger
        if max_rows is not None:
            latest = rate_limit(max_rows, begin, fresh, latest)
        # never move a partition backwards (e.g. a truncated log): Spark would replay or skip
        merged = dict(begin)
        for tp, off in latest.items():
            merged[tp] = max(off, begin.get(tp, off))
        return _offsets_json(merged)

    def _skip_trigger(self, begin: dict[tuple[str, int], int], fresh: dict[tuple[str, int], int],
                      latest: dict[tuple[str, int], int]) -> bool:
        """Kafka's ``minOffsetsPerTrigger``: wait for that many new records, unless ``maxTriggerDelay``
        has passed since the last batch (or availableNow is draining, which must finish)."""
        low = self.opts.min_offsets_per_trigger
        if low is None or self._target is not None:
            return False
        backlog = sum(max(0, off - begin.get(tp, fresh.get(tp, off))) for tp, off in latest.items())
        now = self._clock()
        if backlog < low and (now - self._last_trigger) * 1000 < self.opts.max_trigger_delay_ms:
            return True
        self._last_trigger = now
        return False

    def reportLatestOffset(self) -> dict[str, dict[str, int]]:
        return _offsets_json(self._latest())

    def prepareForTriggerAvailableNow(self) -> None:
        self._target = {tp: b.end for tp, b in self._bounds().items()}

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[InputPartition]:
        begin, until = _from_json(start), _from_json(end)
        chosen = self._logs()
        ranges = []
        cache: dict[str, Any] = {}
        for tp, e in sorted(until.items()):
            path = chosen.get(tp)
            if path is None:
                if self.opts.fail_on_data_loss:
                    raise OffsetOutOfRangeError(
                        f"partition {tp[0]}-{tp[1]} disappeared (set failOnDataLoss=false to go on without it)")
                continue
            b = _plan.read_bounds(path, self.opts.read_committed, self.opts.remote, cache)
            s = begin.get(tp, b.log_start_offset)  # a partition new since the last batch starts at earliest
            s, e = _plan.check_range(tp, s, e, b, self.opts.fail_on_data_loss)
            r = OffsetRange(tp[0], tp[1], path, s, e, remote=self.opts.remote)
            ranges.extend(cut_at_pieces(r, b.pieces) if self.opts.remote is not None else [r])
        ranges = _plan.split_ranges(ranges, self.opts.min_partitions, self.opts.max_records_per_partition)
        return [InputPartition(r) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _plan.read_range(partition.value, include_headers=self.include_headers,
                                read_committed=self.opts.read_committed, chunk_bytes=self.opts.chunk_bytes,
                                max_rows=self.opts.max_rows_per_batch, typed=_typed(self.options),
                                on_damage="raise" if self.opts.fail_on_data_loss else "skip")

    def commit(self, end: dict[str, Any]) -> None:
        """Nothing to release: offsets live in Spark's checkpoint, as for the Kafka source."""


def rate_limit(limit: int, begin: dict[tuple[str, int], int], fresh: dict[tuple[str, int], int],
               until: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    """Spread ``limit`` records over partitions in proportion to their backlog (Kafka's ``rateLimit``)."""
    sizes = {}
    for tp, end in until.items():
        b = begin.get(tp, fresh.get(tp))
        if b is not None and end - b > 0:
            sizes[tp] = end - b
    total = float(sum(sizes.values()))
    if total < 1:
        return dict(until)
    out = {}
    for tp, end in until.items():
        if tp not in sizes:
            out[tp] = end
            continue
        b = begin.get(tp, fresh.get(tp))
        assert b is not None
        prorate = limit * (sizes[tp] / total)
        step = int(prorate // 1) if prorate >= 1 else (1 if prorate > 0 else 0)
        out[tp] = min(end, b + step)
    return out


# -------------------------------------------------------------------------------------- data source
PYTHON_NAME = "kvlog_python"


class KvlogDataSource(DataSource):
    """``spark.read.format("kvlog")``: partition logs under a data directory, as Spark's Kafka source sees a topic."""

    @classmethod
    def name(cls) -> str:
        return "kvlog"

    def schema(self) -> StructType:
        return read_schema(self.options)

    def reader(self, schema: StructType) -> DataSourceReader:
        _check_schema(schema, self.options)
        return KvlogBatchReader(self.options, _wants_headers(self.options))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        _check_schema(schema, self.options)
        return KvlogStreamReader(self.options, _wants_headers(self.options))

    def writer(self, schema: StructType, overwrite: bool) -> Any:
        from kvlog.spark.sink import KvlogBatchWriter

        return KvlogBatchWriter(self.options, schema, overwrite)

    def streamWriter(self, schema: StructType, overwrite: bool) -> Any:
        from kvlog.spark.sink import KvlogStreamWriter

        return KvlogStreamWriter(self.options, schema, overwrite)


class KvlogPushdownDataSource(KvlogDataSource):
    """Same source, with a reader that accepts pushed-down filters (needs the pushdown conf on)."""

    def reader(self, schema: StructType) -> DataSourceReader:
        _check_schema(schema, self.options)
        return KvlogPushdownBatchReader(self.options, _wants_headers(self.options))


class KvlogPythonDataSource(KvlogDataSource):
    """The Python source under a name no JVM source takes: the sink, object-store URIs and the fallback
    stay reachable on a session whose ``format("kvlog")`` is the JVM scan."""

    @classmethod
    def name(cls) -> str:
        return PYTHON_NAME


class KvlogPythonPushdownDataSource(KvlogPushdownDataSource):
    """:class:`KvlogPythonDataSource` with the filter-taking reader."""

    @classmethod
    def name(cls) -> str:
        return PYTHON_NAME
