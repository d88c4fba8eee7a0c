"""Spark figures tracked over history (rows/s; each benchmark process starts its own local[2] JVM).

``track_*`` benchmarks record a measured rate rather than a time because the JVM start-up and the first
query's worker spawn would otherwise dominate asv's timing loop.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class SparkRates:
    timeout = 900
    number = 1
    repeat = 1
    rounds = 1

    def setup_cache(self):
        from spark_bench import build, scan_rows, session, sink_rows, udf_rows

        work = tempfile.mkdtemp(prefix="kvlog-asv-spark-")
        spark = session()
        try:
            root, pq = build(work)
            scan = scan_rows(spark, root, pq, 3)
            sink = sink_rows(spark, pq, work, 2)
            udf = udf_rows(spark, work, 3)
        finally:
            spark.stop()
            shutil.rmtree(work, ignore_errors=True)
        return {"scan": scan, "sink": sink, "udf": udf}

    def track_scan_rows_per_s(self, rates):
        return rates["scan"][0]

    track_scan_rows_per_s.unit = "rows/s"

    def track_scan_ratio_to_parquet(self, rates):
        return rates["scan"][0] / rates["scan"][1]

    track_scan_ratio_to_parquet.unit = "ratio"

    def track_sink_rows_per_s(self, rates):
        return rates["sink"][0]

    track_sink_rows_per_s.unit = "rows/s"

    def track_udf_decode_records_per_s(self, rates):
        return rates["udf"][0]

    track_udf_decode_records_per_s.unit = "records/s"


def _with_jvm_session(make_session, run):
    """``run(spark, workdir)`` in a session with kvlog's jar, then the session and the folder go."""
    import kvlog.spark

    if kvlog.spark.jar_path() is None:
        raise NotImplementedError("no kvlog-spark.jar in this environment")
    work = tempfile.mkdtemp(prefix="kvlog-asv-spark-jvm-")
    spark = make_session()
    try:
        return run(spark, work)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


class SparkJvmRates:
    """The JVM scan (``format("kvlog")`` with the jar) over Parquet, per issue-16 query, uncompressed topic."""

    timeout = 900
    number = 1
    repeat = 1
    rounds = 1

    def setup_cache(self):
        from spark_jvm_bench import _build, jvm_session, measure

        def run(spark, work):
            root, pq = _build(work, 2_000_000, "none")
            return measure(spark, root, pq, 2_000_000, 5)

        return _with_jvm_session(jvm_session, run)

    def track_offsets_and_value_lengths_ratio_to_parquet(self, rates):
        r = rates["sum(offset)+sum(length(value))"]
        return r["kvlog (jvm)"] / r["parquet"]

    track_offsets_and_value_lengths_ratio_to_parquet.unit = "ratio"

    def track_select_offset_ratio_to_parquet(self, rates):
        r = rates["select(offset)"]
        return r["kvlog (jvm)"] / r["parquet"]

    track_select_offset_ratio_to_parquet.unit = "ratio"

    def track_all_seven_columns_ratio_to_parquet(self, rates):
        r = rates["sum(hash(all seven))"]
        return r["kvlog (jvm)"] / r["parquet"]

    track_all_seven_columns_ratio_to_parquet.unit = "ratio"

    def track_all_seven_columns_rows_per_s(self, rates):
        return rates["sum(hash(all seven))"]["kvlog (jvm)"]

    track_all_seven_columns_rows_per_s.unit = "rows/s"


class SparkJvmSinkRates:
    """The JVM sink (``df.write.format("kvlog")``) over ``write.parquet`` and the Python sink, 2 M rows."""

    timeout = 1800
    number = 1
    repeat = 1
    rounds = 1

    def setup_cache(self):
        from spark_sink_bench import batch_rows, session

        return _with_jvm_session(session, lambda spark, work: batch_rows(spark, work, 2_000_000, 3))

    def track_none_ratio_to_parquet(self, rates):
        return rates["kvlog jvm none"] / rates["parquet"]

    track_none_ratio_to_parquet.unit = "ratio"

    def track_zstd_ratio_to_parquet(self, rates):
        return rates["kvlog jvm zstd"] / rates["parquet"]

    track_zstd_ratio_to_parquet.unit = "ratio"

    def track_ratio_to_python_sink(self, rates):
        return rates["kvlog jvm none"] / rates["kvlog_python"]

    track_ratio_to_python_sink.unit = "ratio"
