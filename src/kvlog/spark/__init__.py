"""kvlog for PySpark: the ``kvlog`` data source, Arrow UDF decoders and distributed maintenance.

Install with ``pip install kvlog[spark]`` (pyspark ≥ 4.0, Java 17+). The core ``kvlog`` package never
imports this module, so it costs nothing without Spark::

    import kvlog.spark
    spark = kvlog.spark.with_jar(SparkSession.builder).getOrCreate()  # the JVM scan (optional)
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
from kvlog.spark.source import (
    KvlogDataSource,
    KvlogPushdownDataSource,
    KvlogPythonDataSource,
    KvlogPythonPushdownDataSource,
    kafka_schema,
)
from kvlog.spark.jvm import jar_path, jvm_source_available, with_jar
from kvlog.spark.udf import decode, decode_batches, decode_udf, decoded_schema

__all__ = [
    "ConsumerOffsetsDataSource",
    "KvlogDataSource",
    "KvlogPythonDataSource",
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


def _workers_missing_kvlog(spark: Any) -> str | None:
    """Why the session's Python workers cannot import kvlog (one tiny job: a Python UDF over one row), or None.
    PySpark starts its workers with ``PYSPARK_PYTHON`` / ``spark.pyspark.python``, else ``python3`` from ``PATH``:
    not the interpreter running the driver, unless a virtualenv is activated."""
    from pyspark.sql.functions import udf

    def probe(_: int) -> str:
        import sys as worker_sys
        try:
            import kvlog as worker_kvlog
        except ImportError as exc:
            return f"!{worker_sys.executable}: {exc}"
        return f"{worker_sys.executable} {worker_kvlog.__version__}"

    try:
        row = spark.range(1).select(udf(probe, "string")("id").alias("v")).first()
    except Exception as exc:  # a worker that cannot start, or cannot unpickle the probe (it names kvlog's module)
        import os
        import re

        text = str(exc)
        found = re.findall(r"((?:ModuleNotFoundError|ImportError): [^\n]*)", text)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        why = found[-1] if found else (lines[-1] if lines else type(exc).__name__)
        try:
            python = spark.sparkContext.pythonExec
        except Exception:  # Spark Connect: no SparkContext here
            python = os.environ.get("PYSPARK_PYTHON", "python3")
        return f"{python}: {why}"
    answer = str(row["v"]) if row is not None else "!no answer"
    return answer[1:] if answer.startswith("!") else None


def register(spark: Any, *, check_workers: bool = True) -> str:
    """Make ``format("kvlog")`` available in ``spark``'s session; returns which engine serves it.

    When the session was started with kvlog's jar (:func:`with_jar`, ``spark-submit --jars``), ``format("kvlog")``
    is the JVM scan (column pruning, columnar batches) and this returns ``"jvm"``: Spark resolves a JVM source
    before a Python one of the same name. Otherwise the Python source takes the name and this returns
    ``"python"``. Either way the Python source is also ``format("kvlog_python")``: the sink (the JVM source reads
    only), object-store URIs read through pyarrow, and a fallback. On a ``"jvm"`` session, ``format("kvlog")`` of
    ``s3://``, ``gs://`` or ``abfs://`` URIs that the JVM has no Hadoop file system for goes to that Python source
    by itself (so call this before such reads); ``format("kvlog_jvm")`` instead fails naming the connector to add.

    When ``spark.sql.python.filterPushdown.enabled`` is on (pyspark ≥ 4.1), the Python reader registered also
    takes pushed-down filters on topic, partition, offset (applied exactly) and timestamp (narrows the scan
    through the time index); with the conf off Spark refuses readers that take filters, so the plain one
    is registered. ``format("kvlog_consumer_offsets")`` (consumer groups' committed offsets) is registered too.

    When the Python source serves ``format("kvlog")`` (``"python"``), ``check_workers`` first runs one tiny job to
    check that the session's Python workers can import kvlog, and raises ``ConfigError`` with the fix when they
    cannot: a first read would otherwise fail inside a task with ``ModuleNotFoundError``.
    """
    pushdown = str(spark.conf.get("spark.sql.python.filterPushdown.enabled", "false")).lower() == "true"
    spark.dataSource.register(KvlogPythonPushdownDataSource if pushdown else KvlogPythonDataSource)
    spark.dataSource.register(ConsumerOffsetsDataSource)
    if jvm_source_available(spark):
        return "jvm"
    try:
        spark.dataSource.register(KvlogPushdownDataSource if pushdown else KvlogDataSource)
    except Exception as exc:  # a Connect server with the jar: Spark refuses a Python name a JVM source has
        if "kvlog" in str(exc) and ("already" in str(exc).lower() or "exist" in str(exc).lower()):
            return "jvm"
        raise
    if check_workers:
        why = _workers_missing_kvlog(spark)
        if why is not None:
            import sys

            from kvlog.errors import ConfigError

            raise ConfigError(
                f"Spark's Python workers cannot import kvlog ({why}); format('kvlog') runs in them. Start the "
                f"session with the interpreter that has kvlog: PYSPARK_PYTHON={sys.executable} in the environment "
                f"(os.environ['PYSPARK_PYTHON'] = sys.executable) before the session starts, or with spark-submit "
                f"--conf spark.pyspark.python={sys.executable}; on a cluster, install kvlog on every executor host "
                "or ship an environment with it (spark.archives). register(spark, check_workers=False) skips "
                "this check")
    return "python"
