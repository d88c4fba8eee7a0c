"""``kvlog.iceberg.spark.export``: the export as a Spark job, through Iceberg's own Spark runtime.

The driver plans as :func:`kvlog.iceberg.export` does: the table's newest kvlog snapshot (read through Spark's
``<table>.snapshots`` and ``<table>.refs`` metadata tables) says where each partition stands, the source says
what it has committed. The executors then read exactly those offsets with kvlog's JVM engine
(``format("kvlog")``, typed values decoded in the JVM) and Iceberg's writer writes the data files.

Exactly once on a cluster: the rows are appended, with the offsets reached in the snapshot's summary
(``snapshot-property.kvlog.*``), to a branch of the table created for this job at the snapshot the plan read;
then main is fast-forwarded to that branch, which Iceberg allows only while main is still an ancestor of it.
An export that raced another (kvlog's or any writer's) finds main moved: its branch is dropped, nothing of it
reaches main, and it plans again from the table's new state. (A plain Spark append would instead be retried by
Iceberg on top of the other writer's snapshot and add its records twice.) A job killed before the
fast-forward leaves an orphan branch ``kvlog_export_…`` and its files, never rows on main.

Needs a session with Iceberg's Spark runtime for the session's Spark version and the catalog configured
(``spark.sql.catalog.<name>``), and kvlog's jar (:func:`kvlog.spark.jvm.with_jar`).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from kvlog.errors import ConfigError, IcebergExportError
from kvlog.iceberg.export import GAPS, ExportResult, _check_choice, plan_ranges
from kvlog.iceberg.layout import DEFAULT_PARTITION_BY, METADATA_COLUMNS, parse_partition_by
from kvlog.iceberg.source import TopicSource
from kvlog.iceberg.state import ExportState, state_from_summary, summary_of

__all__ = ["export", "export_stream", "read_state"]

_SPARK_TRANSFORMS = {"hour": "hours", "day": "days", "month": "months", "year": "years"}


def read_state(spark: Any, ident: str) -> ExportState:
    """The export state of Spark table ``ident``: main's newest snapshot with kvlog's properties."""
    return _state_and_main(spark, ident)[0]


def _state_and_main(spark: Any, ident: str) -> tuple[ExportState, int | None]:
    """The export state and the snapshot main points at as it was read (an export's branch starts there, so
    that a commit anyone lands after this read makes its fast-forward fail). Read through Iceberg's Java table
    (its metadata, no Spark job)."""
    if not spark.catalog.tableExists(ident):
        return ExportState(), None
    jtable = _java_table(spark, ident)
    snap = jtable.currentSnapshot()
    head = None if snap is None else int(snap.snapshotId())
    while snap is not None:
        summary = snap.summary()
        found = state_from_summary(ident, summary.get, int(snap.snapshotId()), int(snap.timestampMillis()))
        if found is not None:
            return found, head
        parent = snap.parentId()
        if parent is None:
            break
        snap = jtable.snapshot(parent)
        if snap is None:
            raise IcebergExportError(f"the table's history has no kvlog snapshot among those kept (snapshot "
                                     f"{parent} was expired): the exported offsets are unknown", table=ident)
    return ExportState(), head


def _columns(df: Any, value_typed: bool, rename: Mapping[str, str]) -> list[Any]:
    """The table's columns over the kvlog source's: a typed value's fields first, then the key and Kafka's
    metadata (the layout of :mod:`kvlog.iceberg.layout`)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    cols: list[Any] = []
    reserved = set(METADATA_COLUMNS) | {"key", "keySchemaId", "valueSchemaId"}
    left = dict(rename)
    value_type = df.schema["value"].dataType
    if value_typed and isinstance(value_type, StructType):
        for f in value_type.fields:
            name = left.pop(f.name, f.name)
            if name in reserved:
                raise ConfigError(f"the value field {f.name!r} would be a column named like Kafka's metadata column "
                                  f"{name!r}: give rename={{{f.name!r}: 'another_name'}}")
            cols.append(F.col("value").getField(f.name).alias(name))
        cols.append(F.col("key"))
    else:
        cols += [F.col("key"), F.col("value")]
    if left:
        raise ConfigError(f"rename names value fields the topic does not have: {', '.join(sorted(left))}")
    cols += [F.col(c) for c in ("partition", "offset", "timestamp", "timestampType", "headers")]
    cols += [F.col(c) for c in ("valueSchemaId", "keySchemaId") if c in df.columns]
    return cols


def export(spark: Any, source: str, topic: str, table: str, *, catalog: str = "kvlog", value_format: str | None = None,
           key_format: str | None = None, options: Mapping[str, str] | None = None,
           partition_by: Sequence[str] | str | None = DEFAULT_PARTITION_BY, rename: Mapping[str, str] | None = None,
           gaps: str = "raise", read_committed: bool = True, retries: int = 3,
           before_commit: Any = None) -> ExportResult:
    """Export ``topic`` of ``source`` (a data directory, a backup, a URI the executors can read) into the Iceberg
    table ``catalog.table`` of the session ``spark``; see the module's notes. ``value_format``/``key_format``:
    the JVM engine's (``"registry"``, ``"avro"``...; the schemas from the source's ``_schemas``); ``options``:
    more of the kvlog source's options. ``before_commit()``: called after the rows are written to the job's
    branch, before main is moved to it (tests use it to race another exporter)."""
    _check_choice("gaps", gaps, GAPS)
    if "." not in table:
        raise ConfigError(f"table must be 'namespace.name', got {table!r}")
    ident = f"{catalog}.{table}"
    started = time.monotonic()
    result = ExportResult(table)
    src = TopicSource(source, topic, read_committed=read_committed)
    try:
        for attempt in range(retries + 1):
            state, main_id = _state_and_main(spark, ident)
            if state.topic is not None and state.topic != topic:
                raise IcebergExportError(f"the table holds topic {state.topic!r}, not {topic!r}", table=ident)
            if not result.previous:
                result.previous = dict(state.offsets)
            ranges, offsets, found_gaps = plan_ranges(src, state, gaps, ident)
            if state.snapshot_id is not None and not found_gaps and all(
                    offsets.get(p) == end for p, (_, end) in ranges.items()):
                result.offsets = dict(sorted(offsets.items()))
                break
            if _commit(spark, src, ident, topic, state, main_id, ranges, found_gaps, result, value_format=value_format,
                       key_format=key_format, options=options or {}, partition_by=partition_by,
                       rename=rename or {}, read_committed=read_committed, before_commit=before_commit):
                break
            if attempt == retries:
                raise IcebergExportError(f"another writer moved the table's main branch first, {retries + 1} "
                                         f"times: nothing of this export reached it", table=ident)
            result.retries += 1
    finally:
        src.close()
    result.seconds = time.monotonic() - started
    return result


def export_stream(spark: Any, source: str, topic: str, table: str, *, checkpoint_location: str,
                  catalog: str = "kvlog", value_format: str | None = None, key_format: str | None = None,
                  options: Mapping[str, str] | None = None,
                  partition_by: Sequence[str] | str | None = DEFAULT_PARTITION_BY,
                  rename: Mapping[str, str] | None = None, read_committed: bool = True,
                  available_now: bool = True) -> Any:
    """The export as a Structured Streaming query: ``readStream.format("kvlog")`` of ``topic`` into the table,
    each micro-batch appended exactly once as :func:`export` appends (a branch, then main fast-forwarded).

    The table's state rules, not the stream's checkpoint alone: a new query starts where the table's state
    says; each micro-batch keeps only the records past the state it reads (a batch Spark replays after a
    failure that followed its commit adds nothing), and records the next offset of each partition it covered.
    ``available_now``: ``trigger(availableNow=True)`` (read everything there is, then stop; the default), else a
    continuing stream. Returns the started ``StreamingQuery``."""
    from pyspark.sql import functions as F

    if "." not in table:
        raise ConfigError(f"table must be 'namespace.name', got {table!r}")
    ident = f"{catalog}.{table}"
    src = TopicSource(source, topic, read_committed=read_committed)
    try:
        state, _ = _state_and_main(spark, ident)
        partitions = src.partitions()
        topic_id, cluster_id = src.topic_id, src.cluster_id
        starts = {p: state.offsets.get(p, src.span(p).log_start) for p in partitions}
        root = src.describe()
    finally:
        src.close()
    reader = _reader(spark.readStream, topic, value_format, key_format, options or {}, read_committed) \
        .option("startingOffsets", json.dumps({topic: {str(p): o for p, o in starts.items()}}))
    df = reader.load(root)
    typed = value_format not in (None, "binary")

    def batch(micro: Any, epoch: int) -> None:
        for _ in range(4):
            state, main_id = _state_and_main(spark, ident)
            if state.topic is not None and state.topic != topic:
                raise IcebergExportError(f"the table holds topic {state.topic!r}, not {topic!r}", table=ident)
            done = F.lit(False)
            for p, o in state.offsets.items():  # (what the table holds already: a replayed batch)
                done = done | ((F.col("partition") == p) & (F.col("offset") < o))
            fresh = micro.where(~done)
            reached = {r["partition"]: r["next"] for r in
                       fresh.groupBy("partition").agg((F.max("offset") + 1).alias("next")).collect()}
            if not reached:
                return
            new_state = ExportState(topic, topic_id, cluster_id or state.cluster_id, "append",
                                    {**state.offsets, **reached})
            props = summary_of(new_state, [], f"spark-stream-{epoch}-{uuid.uuid4()}")
            if _append_exactly_once(spark, fresh.select(*_columns(fresh, typed, rename or {})), ident, main_id,
                                    props, partition_by, None) is not None:
                return
        raise IcebergExportError("another writer moved the table's main branch first, 4 times, in a micro-batch",
                                 table=ident)

    writer = df.writeStream.foreachBatch(batch).option("checkpointLocation", checkpoint_location)
    writer = writer.trigger(availableNow=True) if available_now else writer
    return writer.start()


def _commit(spark: Any, src: TopicSource, ident: str, topic: str, state: ExportState, main_id: int | None,
            ranges: dict[int, tuple[int, int]], gaps: list[tuple[int, int, int, str]], result: ExportResult, *,
            value_format: str | None, key_format: str | None, options: Mapping[str, str],
            partition_by: Sequence[str] | str | None, rename: Mapping[str, str], read_committed: bool,
            before_commit: Any) -> bool:
    """One attempt: the planned offsets read and appended to the job's branch, then main fast-forwarded to it.
    False: main moved since the plan read it."""
    reader = _reader(spark.read, topic, value_format, key_format, options, read_committed) \
        .option("startingOffsets", json.dumps({topic: {str(p): a for p, (a, _) in ranges.items()}})) \
        .option("endingOffsets", json.dumps({topic: {str(p): b for p, (_, b) in ranges.items()}}))
    df = reader.load(src.describe())
    rows = df.select(*_columns(df, value_format not in (None, "binary"), rename))
    offsets = {p: end for p, (_, end) in ranges.items()}
    new_state = ExportState(topic, src.topic_id, src.cluster_id or state.cluster_id, "append",
                            {**state.offsets, **offsets})
    added = _append_exactly_once(spark, rows, ident, main_id, summary_of(new_state, gaps, f"spark-{uuid.uuid4()}"),
                                 partition_by, before_commit)
    if added is None:
        return False
    result.rows += added[0]
    result.commits += 1
    result.snapshot_id = added[1]
    result.offsets = dict(sorted(new_state.offsets.items()))
    result.gaps += gaps
    return True


def _reader(read: Any, topic: str, value_format: str | None, key_format: str | None, options: Mapping[str, str],
            read_committed: bool) -> Any:
    reader = read.format("kvlog").option("subscribe", topic).option("includeHeaders", "true") \
        .option("kafka.isolation.level", "read_committed" if read_committed else "read_uncommitted")
    if value_format:
        reader = reader.option("valueFormat", value_format)
    if key_format:
        reader = reader.option("keyFormat", key_format)
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader


def _append_exactly_once(spark: Any, rows: Any, ident: str, main_id: int | None, props: Mapping[str, str],
                         partition_by: Sequence[str] | str | None,
                         before_commit: Any) -> tuple[int, int | None] | None:
    """``rows`` appended, with ``props`` in the snapshot's summary, to a branch made at ``main_id`` (main as the
    plan read it), then main fast-forwarded to the branch; (rows added, main's new snapshot), or None when main
    is no longer at ``main_id`` (another writer's commit: nothing of these rows reaches main)."""
    created = not spark.catalog.tableExists(ident) and _create(spark, rows, ident, partition_by)
    jtable = _java_table(spark, ident)
    if not created:
        _evolve(spark, jtable, rows, ident)
    head = jtable.currentSnapshot()
    if created and main_id is None and head is not None and head.summary().get("kvlog.offsets") is None and \
            int(head.summary().get("total-records") or 0) == 0:
        main_id = int(head.snapshotId())  # (the empty snapshot the table's creation itself committed)
    if (None if head is None else head.snapshotId()) != main_id:
        return None
    branch = f"kvlog_export_{uuid.uuid4().hex[:12]}"
    manage = jtable.manageSnapshots()
    (manage.createBranch(branch, main_id) if main_id is not None else manage.createBranch(branch)).commit()
    try:
        # each task writes its own rows' files: a Kafka partition's records are already in time order, so the
        # shuffle Iceberg's default distribution (hash by partition value) makes buys nothing
        writer = rows.writeTo(f"{ident}.branch_{branch}").option("distribution-mode", "none") \
            .option("fanout-enabled", "true")
        for k, v in props.items():
            writer = writer.option(f"snapshot-property.{k}", v)
        writer.append()
        if before_commit is not None:
            before_commit()
        jtable.refresh()
        head = jtable.currentSnapshot()
        if (None if head is None else head.snapshotId()) != main_id:
            return None
        try:
            jtable.manageSnapshots().fastForwardBranch("main", branch).commit()
        except Exception as exc:  # (Py4JJavaError: main moved between the check and the fast-forward)
            if "ancestor" in str(exc) or "CommitFailed" in str(exc) or "ValidationException" in str(exc):
                return None
            raise
    finally:
        try:
            jtable.refresh()
            jtable.manageSnapshots().removeBranch(branch).commit()
        except Exception:  # (the branch stays: nothing on main refers to it)
            pass
    jtable.refresh()
    head = jtable.currentSnapshot()
    added = head.summary().get("added-records") if head is not None else None
    return (int(added) if added is not None else 0), (head.snapshotId() if head is not None else None)


def _evolve(spark: Any, jtable: Any, rows: Any, ident: str) -> None:
    """The table's schema made to follow the rows' (a compatible new version of the topic's schema: added fields,
    promoted types), by Iceberg's own union by name, before the rows are written; a change the table cannot
    follow stops the export with Iceberg's reason. A schema change moves no branch: the plan's check of main's
    snapshot still holds."""
    from pyspark.sql.types import StructType

    def shape(t: Any) -> Any:  # (types without nullability: Iceberg adds new fields as optional)
        if isinstance(t, StructType):
            return tuple((f.name, shape(f.dataType)) for f in t.fields)
        return t.simpleString()

    have = {f.name: shape(f.dataType) for f in spark.table(ident).schema.fields}
    if all(have.get(f.name) == shape(f.dataType) for f in rows.schema.fields):
        return
    jvm = spark._jvm
    wanted = jvm.org.apache.iceberg.spark.SparkSchemaUtil.convert(rows._jdf.schema())
    try:
        jtable.updateSchema().unionByNameWith(wanted).commit()
    except Exception as exc:  # (Py4JJavaError around Iceberg's IllegalArgumentException)
        text = str(exc)
        reason = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                       if "IllegalArgumentException" in line or "ValidationException" in line), text[:300])
        raise IcebergExportError(f"the topic's schema changed in a way the table cannot follow: {reason}",
                                 table=ident) from None
    jtable.refresh()  # (the catalog's cached table: the branch write that follows sees the new schema)


def _create(spark: Any, rows: Any, ident: str, partition_by: Sequence[str] | str | None) -> bool:
    """The table made with the rows' columns (False: another exporter made it first)."""
    from pyspark.sql import functions as F

    parts = []
    for column, transform in parse_partition_by(partition_by):
        name = transform.split("[")[0]
        if name in _SPARK_TRANSFORMS:
            parts.append(getattr(F.partitioning, _SPARK_TRANSFORMS[name])(F.col(column)))
        elif name == "identity":
            parts.append(F.col(column))
        elif name == "bucket":
            parts.append(F.partitioning.bucket(int(transform.split("[")[1].rstrip("]")), F.col(column)))
        else:
            raise ConfigError(f"partition_by: {transform} is not offered by the Spark export")
    writer = rows.limit(0).writeTo(ident).using("iceberg")
    if parts:
        writer = writer.partitionedBy(*parts)
    try:
        writer.create()
    except Exception as exc:  # (another exporter created it first)
        if "already exists" not in str(exc).lower():
            raise
        return False
    return True


def _java_table(spark: Any, ident: str) -> Any:
    return spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, ident)
