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
from kvlog.spark.jvm import jar_path, jvm_source_available, with_jar
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
    "jar_path",
    "jvm_source_available",
    "kafka_schema",
    "plan_maintenance",
    "read_consumer_offsets",
    "recover_writes",
    "register",
    "with_jar",
]


def register(spark: Any) -> str:
    """Make ``format("kvlog")`` available in ``spark``'s session; returns which engine serves it.

    ``format("kvlog")`` is the Python source (``"python"``). When the session was started with the jar
    (:func:`with_jar`), the JVM scan is also there as ``format("kvlog_jvm")`` (batch reads, read_uncommitted):
    the return value is then ``"python (kvlog_jvm on the JVM too)"``.

    When ``spark.sql.python.filterPushdown.enabled`` is on (pyspark ≥ 4.1), the reader registered also
    takes pushed-down filters on topic, partition, offset (applied exactly) and timestamp (narrows the scan
    through the time index); with the conf off Spark refuses readers that take filters, so the plain one
    is registered. ``format("kvlog_consumer_offsets")`` (consumer groups' committed offsets) is registered too.
    """
    pushdown = str(spark.conf.get("spark.sql.python.filterPushdown.enabled", "false")).lower() == "true"
    spark.dataSource.register(KvlogPushdownDataSource if pushdown else KvlogDataSource)
    spark.dataSource.register(ConsumerOffsetsDataSource)
    return "python (kvlog_jvm on the JVM too)" if jvm_source_available(spark) else "python"
