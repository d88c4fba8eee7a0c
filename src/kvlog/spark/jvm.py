"""The JVM ``kvlog`` source: where its jar is and how to put it on a session's classpath.

The jar (``kvlog-spark.jar``, built from ``java/`` by ``tools/build_jar.py``) is a DataSource V2 scan with column
pruning and columnar batches, with the Python source's schema, options and results. On a session that has it,
``format("kvlog")`` is the JVM scan (``format("kvlog_jvm")`` names it without a fallback); the Python source
remains ``format("kvlog_python")``.

The wheel carries the jar as package data (``kvlog/spark/jars/kvlog-spark.jar``). A build from source without a
JDK or pyspark leaves it out (with a message; ``KVLOG_REQUIRE_JAR=1`` makes that an error), and then only the
Python source is there.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

JAR_NAME = "kvlog-spark.jar"
SHORT_NAME = "kvlog"
JVM_ONLY_NAME = "kvlog_jvm"
_SOURCE_CLASS = "io.kvlog.spark.KvlogSource"


def jar_path() -> str | None:
    """The jar named by ``KVLOG_SPARK_JAR`` (a cluster image's copy, a build of your own), else the one
    shipped in the package (``kvlog/spark/jars/``, what an installed wheel answers), else one built in a source
    checkout (``build-jar/``), else None."""
    here = pathlib.Path(__file__).resolve().parent
    candidates = [pathlib.Path(os.environ["KVLOG_SPARK_JAR"])] if os.environ.get("KVLOG_SPARK_JAR") else []
    candidates += [here / "jars" / JAR_NAME]
    if len(here.parents) > 2:
        candidates.append(here.parents[2] / "build-jar" / JAR_NAME)  # <checkout>/src/kvlog/spark
    for p in candidates:
        if p.is_file():
            return str(p)
    return None


def with_jar(builder: Any) -> Any:
    """Add the jar to a ``SparkSession.builder``'s ``spark.jars`` (kept alongside jars already given).

    Raises ``FileNotFoundError`` when no jar is available (a kvlog built without it: build one with
    ``make jar`` in a checkout and name it in ``KVLOG_SPARK_JAR``).
    """
    jar = jar_path()
    if jar is None:
        raise FileNotFoundError(f"no {JAR_NAME} in the kvlog package or build-jar/; build it with `make jar`")
    given = str(getattr(builder, "_options", {}).get("spark.jars", "") or "")
    jars = [j for j in given.split(",") if j] + ([jar] if jar not in given.split(",") else [])
    return builder.config("spark.jars", ",".join(jars))


def jvm_source_available(spark: Any) -> bool:
    """Whether ``spark``'s JVM can load the JVM ``kvlog`` source (the jar is on its classpath)."""
    try:
        jvm = spark.sparkContext._jvm
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        jvm.java.lang.Class.forName(_SOURCE_CLASS, False, loader)
    except Exception:  # py4j reports a missing class as a Py4JJavaError; no JVM gateway (Connect) too
        return False
    return True
