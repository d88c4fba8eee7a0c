"""kvlog for PySpark: the ``kvlog`` data source, Arrow UDF decoders and distributed maintenance.

Install with ``pip install kvlog[spark]`` (pyspark ≥ 4.0, Java 17+). The core ``kvlog`` package never
imports this module, so it costs nothing without Spark::

    import kvlog.spark
    kvlog.spark.register(spark)
    df = spark.read.format("kvlog").option("subscribe", "clicks").load("/data/kvlog")

Executors import kvlog too (classes are pickled by reference), so install kvlog on every worker.
"""

from __future__ import annotations

try:
    import pyspark  # noqa: F401
    from pyspark.sql import datasource as _datasource  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without pyspark
    raise ImportError("kvlog.spark needs PySpark 4.0 or newer: pip install 'kvlog[spark]'") from exc

from typing import Any

from kvlog.spark._staging import recover as recover_writes
from kvlog.spark.internal_topics import ConsumerOffsetsDataSource, read_consumer_offsets
from kvlog.spark.maintenance import compact, enforce_retention
from kvlog.spark.maintenance import plan as plan_maintenance
from kvlog.spark.source import KvlogDataSource, KvlogPushdownDataSource, kafka_schema
from kvlog.spark.udf import decode, decode_batches, decode_udf, decoded_schema

__all__ = [
    "ConsumerOffsetsDataSource",
    "KvlogDataSource",
    "compact",
    "decode",
    "decode_batches",
    "decode_udf",
    "decoded_schema",
    "enforce_retention",
    "kafka_schema",
    "plan_maintenance",
    "read_consumer_offsets",
    "recover_writes",
    "register",
]


def register(spark: Any) -> None:
    """Make ``format("kvlog")`` available in ``spark``'s session.

    When ``spark.sql.python.filterPushdown.enabled`` is on (pyspark ≥ 4.1), the reader registered also
    takes pushed-down filters on topic, partition, offset (applied exactly) and timestamp (narrows the scan
    through the time index); with the conf off Spark refuses readers that take filters, so the plain one
    is registered. ``format("kvlog_consumer_offsets")`` (consumer groups' committed offsets) is registered too.
    """
    pushdown = str(spark.conf.get("spark.sql.python.filterPushdown.enabled", "false")).lower() == "true"
    spark.dataSource.register(KvlogPushdownDataSource if pushdown else KvlogDataSource)
    spark.dataSource.register(ConsumerOffsetsDataSource)
