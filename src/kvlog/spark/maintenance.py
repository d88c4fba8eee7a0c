"""Compaction and retention over many partitions as Spark jobs: one task per partition log, dirtiest first.

The work is a private data source whose input partitions are log directories, ordered so that Spark
schedules the dirtiest logs first; each task opens its own log (taking that log's lock, so a writer or a
second job on the same log gets a typed error in the statistics instead of a corrupted log) and runs the
same :class:`kvlog.LogCleaner` / retention code as a single process. Both are idempotent: a retried or
duplicated task finds less or nothing to do. The returned DataFrame holds the collected per-partition
statistics, so looking at it twice does not clean twice.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Iterator, Mapping, Sequence

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import DoubleType, IntegerType, LongType, StringType, StructField, StructType

from kvlog import storage
from kvlog.cleaner import LogCleaner
from kvlog.config import LogConfig
from kvlog.errors import KvlogError
from kvlog.log import Log
from kvlog.spark import _plan
from kvlog.topic_configs import TopicConfigs, maintenance_refusal

STATS_SCHEMA = StructType([
    StructField("topic", StringType()),
    StructField("partition", IntegerType()),
    StructField("action", StringType()),
    StructField("dirty_ratio", DoubleType()),
    StructField("segments_before", IntegerType()),
    StructField("segments_after", IntegerType()),
    StructField("bytes_before", LongType()),
    StructField("bytes_after", LongType()),
    StructField("records_read", LongType()),
    StructField("records_retained", LongType()),
    StructField("log_start_offset", LongType()),
    StructField("log_end_offset", LongType()),
    StructField("elapsed_ms", LongType()),
    StructField("error", StringType()),
])
_FIELDS = STATS_SCHEMA.fieldNames()


def _plan_rows(options: dict[str, str]) -> tuple[list[tuple[float, tuple[str, int], str, dict[str, str], str]],
                                                 list[tuple[tuple[str, int], str, str, str]]]:
    """``(work, skipped)``: per partition to work on, most work first, (dirty ratio or size, partition, path,
    final topic properties, deciding configs explained); per partition left alone, (partition, path, why,
    deciding configs explained). Configs are resolved once on the driver (KRaft metadata, kvlog-topics.json,
    Kafka's defaults: kvlog.topic_configs); internal topics follow the rules of maintenance_refusal."""
    root = options["path"]
    action = options["action"]
    wanted = json.loads(options.get("topics", "null"))
    overrides = json.loads(options.get("overrides") or "{}")
    force = options.get("force") == "true"
    force_internal = options.get("force_internal") == "true"
    found = _plan.discover([root])
    tps = sorted(tp for tp in found if wanted is None or tp[0] in wanted)
    configs = TopicConfigs.load(root, metadata_dir=options.get("metadata_dir") or None) if tps else TopicConfigs()
    names = _RETENTION_CONFIGS if action == "retention" else _COMPACT_CONFIGS
    cleaner = LogCleaner()
    work = []
    skipped = []
    for tp in tps:
        rc = configs.resolve(tp[0], overrides, force_internal=force_internal)
        explained = rc.explain(names)
        why = maintenance_refusal(tp[0], action, force_internal=force_internal)
        props = rc.config.to_properties()
        if why is None and action == "compact" and force and (not rc.internal or force_internal):
            props["cleanup.policy"] = "compact"
        cfg = LogConfig.from_properties(props)
        if why is None and action == "compact" and not cfg.compact:
            why = f"cleanup.policy={props['cleanup.policy'] or 'none'} is not compact"
        if why is not None:
            skipped.append((tp, found[tp], why, explained))
            continue
        ratio = 0.0
        try:
            log = Log.open(found[tp], cfg, read_only=True)
            try:
                ratio = cleaner.dirty_ratio(log) if action == "compact" else float(log.size_in_bytes)
            finally:
                log.close()
        except KvlogError:
            ratio = float("inf")  # let the task report what is wrong with it
        work.append((ratio, tp, found[tp], props, explained))
    work.sort(key=lambda w: (-w[0], w[1]))
    return work, skipped


_RETENTION_CONFIGS = ("cleanup.policy", "retention.ms", "retention.bytes")
_COMPACT_CONFIGS = ("cleanup.policy", "min.cleanable.dirty.ratio", "delete.retention.ms", "min.compaction.lag.ms")


def _plan_work(options: dict[str, str]) -> list[InputPartition]:
    return [InputPartition((tp, path, props)) for _, tp, path, props, _ in _plan_rows(options)[0]]


def _shown(path: str) -> str:
    return storage.canonical(path) if storage.is_remote(path) else path


def plan(root: str | os.PathLike[str], action: str = "compact", *, topics: Sequence[str] | None = None,
         force: bool = False, config_overrides: dict[str, str] | None = None, force_internal: bool = False,
         include_skipped: bool = False, metadata_dir: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """What ``compact`` / ``enforce_retention`` would work on, without changing anything: one row per
    partition (``topic``, ``partition``, ``path``, ``dirty_ratio`` for compaction or ``size_in_bytes`` for
    retention, and ``config``: the deciding configs with their sources), most work first. Read-only, so
    ``root`` may be an object-store URI (a backup).

    Topic configs come from the broker's KRaft metadata, then kvlog's topic table, then Kafka's defaults
    (:mod:`kvlog.topic_configs`). ``__cluster_metadata`` is never planned; other internal topics are not
    planned for retention, nor given ``force``/``config_overrides``, unless ``force_internal``.
    ``include_skipped`` adds a row (``skipped``: why) for every partition left alone.
    """
    if action not in ("compact", "retention"):
        raise ValueError(f"action must be 'compact' or 'retention', not {action!r}")
    options = {"path": os.fspath(root), "action": action,
               "topics": json.dumps(list(topics) if topics is not None else None),
               "overrides": json.dumps({str(k): str(v) for k, v in (config_overrides or {}).items()}),
               "force": str(bool(force)).lower(), "force_internal": str(bool(force_internal)).lower(),
               "metadata_dir": "" if metadata_dir is None else os.fspath(metadata_dir)}
    measure = "dirty_ratio" if action == "compact" else "size_in_bytes"
    work, skipped = _plan_rows(options)
    rows: list[dict[str, Any]] = [
        {"topic": tp[0], "partition": tp[1], "path": _shown(path),
         measure: value if action == "compact" else int(value) if value != float("inf") else None,
         "config": explained}
        for value, tp, path, _, explained in work]
    if include_skipped:
        rows += [{"topic": tp[0], "partition": tp[1], "path": _shown(path), measure: None, "config": explained,
                  "skipped": why} for tp, path, why, explained in skipped]
    return rows


def _run(options: dict[str, str], item: tuple[tuple[str, int], str, dict[str, str]]) -> dict[str, Any]:
    (topic, partition), path, props = item
    cfg = LogConfig.from_properties(props)  # resolved, overrides and force applied, on the driver
    now = int(options["now_ms"]) if options.get("now_ms") else None
    row: dict[str, Any] = {k: None for k in _FIELDS}
    row.update(topic=topic, partition=partition, action=options["action"])
    t0 = time.perf_counter()
    try:
        why = maintenance_refusal(topic, options["action"], force_internal=options.get("force_internal") == "true")
        if why is not None:  # the plan never sends one; a hand-made task must not either
            raise KvlogError(why)
        log = Log.open(path, cfg)
        try:
            row.update(segments_before=len(log.segments), bytes_before=log.size_in_bytes)
            if options["action"] == "compact":
                cleaner = LogCleaner(int(options.get("dedupe_buffer_size", 128 << 20)))
                row["dirty_ratio"] = cleaner.dirty_ratio(log)
                stats = cleaner.clean(log, now, full=options.get("full") == "true")
                row.update(records_read=stats.records_read, records_retained=stats.records_retained)
            else:
                deleted = log.delete_old_segments(now)
                row.update(records_read=0, records_retained=0, dirty_ratio=None)
                row["action"] = f"retention ({deleted} segments deleted)"
            log.flush()
            row.update(segments_after=len(log.segments), bytes_after=log.size_in_bytes,
                       log_start_offset=log.log_start_offset, log_end_offset=log.log_end_offset)
        finally:
            log.close()
    except (KvlogError, OSError) as exc:  # one bad partition must not stop the others (KAFKA-7215)
        row["error"] = f"{type(exc).__name__}: {exc}"
    row["elapsed_ms"] = int((time.perf_counter() - t0) * 1000)
    return row


class _MaintenanceReader(DataSourceReader):
    def __init__(self, options: Mapping[str, str]):
        self.options = dict(options)

    def partitions(self) -> list[InputPartition]:
        return _plan_work(self.options)

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        if partition.value is None:
            return
        row = _run(self.options, partition.value)
        yield tuple(row[k] for k in _FIELDS)


class KvlogMaintenanceSource(DataSource):
    """Internal: ``format("kvlog_maintenance")`` runs one maintenance task per partition log."""

    @classmethod
    def name(cls) -> str:
        return "kvlog_maintenance"

    def schema(self) -> StructType:
        return STATS_SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return _MaintenanceReader(self.options)


def _submit(spark: Any, root: str | os.PathLike[str], action: str, topics: Sequence[str] | None,
            options: dict[str, str]) -> Any:
    storage.refuse_remote_writer(os.fspath(root), f"kvlog.spark.maintenance {action}",
                                 "plan() reads a remote directory's work; run the job on a local copy")
    path = os.path.abspath(os.fspath(root))
    if not os.path.isdir(path):
        raise FileNotFoundError(f"no data directory at {path}")
    spark.dataSource.register(KvlogMaintenanceSource)
    reader = spark.read.format("kvlog_maintenance").option("action", action)
    reader = reader.option("topics", json.dumps(list(topics) if topics is not None else None))
    for k, v in options.items():
        reader = reader.option(k, v)
    rows = reader.load(path).collect()
    return spark.createDataFrame(rows, STATS_SCHEMA)


def compact(spark: Any, root: str | os.PathLike[str], *, topics: Sequence[str] | None = None, full: bool = False,
            now_ms: int | None = None, dedupe_buffer_size: int = 128 << 20, force: bool = False,
            config_overrides: dict[str, str] | None = None, force_internal: bool = False,
            metadata_dir: str | os.PathLike[str] | None = None) -> Any:
    """Run the cleaner on every compacted partition log under ``root`` as Spark tasks, dirtiest first.

    Topic configs come from the broker's KRaft metadata (in ``root`` or ``metadata_dir``), then kvlog's
    topic table, then Kafka's defaults (:mod:`kvlog.topic_configs`). ``force`` cleans logs whose topic is
    not configured ``cleanup.policy=compact`` too; ``config_overrides`` replaces topic properties for this
    run (e.g. ``{"compaction.strategy": "timestamp"}``). Neither reaches Kafka's internal topics unless
    ``force_internal``; ``__cluster_metadata`` is never compacted. Returns a DataFrame of per-partition
    statistics (``error`` says why a partition could not be cleaned).
    """
    if config_overrides:
        LogConfig.from_properties({str(k): str(v) for k, v in config_overrides.items()})  # fail fast
    return _submit(spark, root, "compact", topics, {
        "overrides": json.dumps({str(k): str(v) for k, v in (config_overrides or {}).items()}),
        "full": str(bool(full)).lower(), "force": str(bool(force)).lower(),
        "force_internal": str(bool(force_internal)).lower(),
        "metadata_dir": "" if metadata_dir is None else os.fspath(metadata_dir),
        "now_ms": "" if now_ms is None else str(int(now_ms)), "dedupe_buffer_size": str(int(dedupe_buffer_size))})


def enforce_retention(spark: Any, root: str | os.PathLike[str], *, topics: Sequence[str] | None = None,
                      now_ms: int | None = None, force_internal: bool = False,
                      metadata_dir: str | os.PathLike[str] | None = None) -> Any:
    """Apply each topic's ``retention.ms`` / ``retention.bytes`` to every partition log as Spark tasks.

    Configs are resolved as for :func:`compact`. Kafka's internal topics are left alone unless
    ``force_internal``; ``__cluster_metadata`` always.
    """
    return _submit(spark, root, "retention", topics, {
        "now_ms": "" if now_ms is None else str(int(now_ms)), "force_internal": str(bool(force_internal)).lower(),
        "metadata_dir": "" if metadata_dir is None else os.fspath(metadata_dir)})
