"""Consumer groups' committed offsets as a Spark DataFrame: ``format("kvlog_consumer_offsets")``.

A group's records all live in one ``__consumer_offsets`` partition (Kafka places a group by the hash of
its id), so each partition replays on its own: one Spark task per ``__consumer_offsets-N`` directory,
each opening its log read-only and yielding the final state of that partition. The rows are those of
:func:`kvlog.consumer_offsets`, for data directories of any size::

    kvlog.spark.register(spark)
    df = spark.read.format("kvlog_consumer_offsets").option("asOf", "2024-05-01T12:00:00Z").load(root)

Options: ``asOf`` (epoch ms or ISO-8601), ``group`` (one group), ``errors`` (``raise`` or ``skip``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType, TimestampType

from kvlog.errors import ConfigError
from kvlog.internal_topics.consumer_offsets import TOPIC, replay_partition
from kvlog.internal_topics.layout import partition_dirs

__all__ = ["ConsumerOffsetsDataSource", "consumer_offsets_schema", "read_consumer_offsets"]


def consumer_offsets_schema() -> StructType:
    """The Spark schema of :func:`kvlog.internal_topics.consumer_offsets.offsets_schema`."""
    return StructType([
        StructField("group", StringType(), False),
        StructField("topic", StringType(), False),
        StructField("partition", IntegerType(), False),
        StructField("committed_offset", LongType(), False),
        StructField("leader_epoch", IntegerType()),
        StructField("metadata", StringType(), False),
        StructField("commit_timestamp", TimestampType(), False),
        StructField("expire_timestamp", TimestampType()),
        StructField("coordinator_partition", IntegerType(), False),
        StructField("record_offset", LongType(), False),
        StructField("topic_id", StringType()),
    ])


def _as_of(options: Mapping[str, str]) -> int | None:
    text = options.get("asOf") or options.get("asof")
    if not text:
        return None
    from kvlog.timestamps import parse_timestamp

    return parse_timestamp(str(text), special=False)


def _for_spark(table: pa.Table) -> pa.Table:
    """Spark's timestamps are microseconds; the replay keeps Kafka's milliseconds."""
    us = pa.timestamp("us", tz="UTC")
    for name in ("commit_timestamp", "expire_timestamp"):
        i = table.schema.get_field_index(name)
        table = table.set_column(i, pa.field(name, us, table.schema.field(i).nullable), table.column(i).cast(us))
    return table


class ConsumerOffsetsReader(DataSourceReader):
    """One input partition per ``__consumer_offsets-N`` directory under the root."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = dict(options)
        self.root = self.options.get("path")
        if not self.root:
            raise ConfigError("kvlog_consumer_offsets needs a data directory: .load(root)")
        self.as_of = _as_of(self.options)
        self.group = self.options.get("group") or None
        self.errors = self.options.get("errors", "raise")
        if self.errors not in ("raise", "skip"):
            raise ConfigError(f"errors must be raise or skip, not {self.errors!r}")

    def partitions(self) -> list[InputPartition]:
        return [InputPartition((path, n)) for path, n in partition_dirs(str(self.root), TOPIC)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        value = partition.value
        if value is None:  # Spark's stand-in for an empty plan
            return iter(())
        path, n = value
        state = replay_partition(path, n, as_of=self.as_of, group=self.group, errors=self.errors)
        return iter(_for_spark(state.table()).to_batches())


class ConsumerOffsetsDataSource(DataSource):
    """``spark.read.format("kvlog_consumer_offsets").load(root)``."""

    @classmethod
    def name(cls) -> str:
        return "kvlog_consumer_offsets"

    def schema(self) -> StructType:
        return consumer_offsets_schema()

    def reader(self, schema: StructType) -> DataSourceReader:
        if schema != consumer_offsets_schema():
            raise ConfigError("kvlog_consumer_offsets has a fixed schema; drop .schema(...)")
        return ConsumerOffsetsReader(self.options)


def read_consumer_offsets(spark: Any, root: str, *, as_of: int | str | None = None,
                          group: str | None = None) -> Any:
    """The DataFrame of every group's committed offsets under ``root`` (registers the source)."""
    spark.dataSource.register(ConsumerOffsetsDataSource)
    reader = spark.read.format("kvlog_consumer_offsets")
    if as_of is not None:
        reader = reader.option("asOf", str(as_of))
    if group is not None:
        reader = reader.option("group", group)
    return reader.load(root)
