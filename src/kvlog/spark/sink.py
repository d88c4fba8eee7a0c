"""``df.write.format("kvlog_python")`` and ``writeStream``: Spark's Kafka-sink columns into partition logs.

Tasks only stage encoded batches (:mod:`kvlog.spark._staging`); the driver's commit appends them, one log
at a time, so a failed job leaves nothing visible and a streaming batch id is applied exactly once.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, cast

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from kvlog import storage
from kvlog.errors import ConfigError
from kvlog.spark import _remote, _staging
from kvlog.spark._plan import lowered

try:
    from pyspark.sql.datasource import DataSourceStreamArrowWriter as _StreamBase
except ImportError:  # pragma: no cover - pyspark 4.0 has only the Row stream writer
    from pyspark.sql.datasource import DataSourceStreamWriter as _StreamBase  # type: ignore[assignment]


@dataclass
class StagedCommitMessage(WriterCommitMessage):
    """What one task staged: files per (topic, partition) with their record counts."""

    files: list[_staging.StagedFile] = field(default_factory=list)


def _root(options: Mapping[str, str]) -> str:
    root = options.get("path")
    if not root:
        raise ConfigError("give the data directory to save()/start(), e.g. df.write.format('kvlog').save('/data')")
    if storage.is_remote(root):
        return root  # kept whole: its credentials and query configure the store on the executors too
    return os.path.abspath(root)


def _task_dir(plan: _staging.SinkPlan) -> str:
    """The task's staging directory (on an object store: the name of its prefix under the job's)."""
    ctx = TaskContext.get()
    # unique per attempt: a micro-batch's retry reuses the job's name, and must not share a file with a task
    # of the failed attempt that is still running
    tag = uuid.uuid4().hex[:12]
    name = f"task-{ctx.partitionId()}-{ctx.attemptNumber()}-{tag}" if ctx is not None else f"task-{os.getpid()}-{tag}"
    if storage.is_remote(plan.root):
        return name
    return os.path.join(_staging.job_dir(plan.root, plan.job), name)


def _commit(plan: _staging.SinkPlan, staged: list[_staging.StagedFile], **stream: Any) -> None:
    if storage.is_remote(plan.root):
        _remote.commit(plan, staged, **stream)
    else:
        _staging.commit(plan, staged, **stream)


def _abort(root: str, job: str) -> None:
    if storage.is_remote(root):
        _remote.abort(root, job)
    else:
        _staging.abort(root, job)


class KvlogBatchWriter(DataSourceArrowWriter):
    """Batch sink: ``mode("append")`` adds records; ``mode("overwrite")`` first empties the written topics
    (their log start offset moves to the old end, so offsets never go backwards)."""

    def __init__(self, options: Mapping[str, str], schema: StructType, overwrite: bool):
        self.plan = _staging.plan(_root(options), options, schema.fieldNames(), overwrite)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> StagedCommitMessage:
        return StagedCommitMessage(_staging.stage_batches(self.plan, iterator, _task_dir(self.plan)))

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        staged = [f for m in messages if isinstance(m, StagedCommitMessage) for f in m.files]
        _commit(self.plan, staged)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        _abort(self.plan.root, self.plan.job)


class KvlogStreamWriter(_StreamBase):
    """Streaming sink, exactly once per micro-batch id.

    Spark builds a new writer for every micro-batch and another for its commit, so nothing is shared
    through ``__init__``: the staging directory is derived from the sink id (option ``kvlog.sinkId``,
    default the query's checkpoint location's name) and the batch id, and the last applied batch id is
    kept under ``<root>/.kvlog-sinks``.
    """

    def __init__(self, options: Mapping[str, str], schema: StructType, overwrite: bool):
        self.options = dict(options)
        opts = lowered(self.options)
        sink = opts.get("kvlog.sinkid") or opts.get("checkpointlocation")
        if not sink:
            raise ConfigError("the kvlog streaming sink needs option kvlog.sinkId (a stable name for this query) "
                              "so that replayed micro-batches are recognised")
        self.sink = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(sink).strip("/"))[-120:]
        self.columns = schema.fieldNames()
        _staging.plan(_root(self.options), self.options, self.columns, False)  # fail fast on bad columns

    def _plan(self, batch_id: int) -> _staging.SinkPlan:
        return _staging.plan(_root(self.options), self.options, self.columns, False,
                             job=_staging.stream_job(self.sink, batch_id))

    def write(self, iterator: Iterator[pa.RecordBatch]) -> StagedCommitMessage:
        ctx = TaskContext.get()
        batch_id = int(cast(str, ctx.getLocalProperty("streaming.sql.batchId"))) if ctx is not None else 0
        plan = self._plan(batch_id)
        return StagedCommitMessage(_staging.stage_batches(plan, iterator, _task_dir(plan)))

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        staged = [f for m in messages if isinstance(m, StagedCommitMessage) for f in m.files]
        _commit(self._plan(batchId), staged, sink=self.sink, batch_id=batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        _abort(_root(self.options), _staging.stream_job(self.sink, batchId))
