"""The Spark side of tests/test_spark_multiprocess.py: one SparkSession on a given master, the cases run on it, the
results written as JSON. Run in a child process (a Python process holds one SparkContext, and the pytest worker's is
the shared ``local[2]`` one)::

    PYTHONPATH=<repo> python -m tests.spark_cluster_driver --master 'local-cluster[2,1,1024]' --jar kvlog-spark.jar \\
        --work <dir> --out <dir>/out --result result.json [--case jvm_scan ...] [--executors 2]

``--work`` holds what the test wrote: ``data/`` (a LogManager data directory) and ``brokers/broker-N`` (a
cluster's brokers). Every case writes under ``--out``. The test imports :func:`run_cases` to run the same cases
in its own ``local[2]`` session.

Rows are lists ``[topic, partition, offset, key hex, value hex, headers, timestamp µs, timestampType]`` (null stays
null; headers ``[[key, value hex], ...]`` or null for a record without headers), sorted.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any

#: the columns every read case selects, the timestamp as epoch microseconds (exact, no time zone)
COLUMNS = ("topic", "partition", "offset", "key", "value", "headers", "unix_micros(timestamp) as ts",
           "timestampType")
T0 = 1_700_000_000_000


# ------------------------------------------------------------------------------------------------- rows
def _hex(b: Any) -> str | None:
    return None if b is None else bytes(b).hex()


def _headers(h: Any) -> list | None:
    if h is None:
        return None
    return [[x["key"], _hex(x["value"])] for x in h]


def spark_rows(df: Any) -> list[list]:
    """The rows of ``df`` (selected as :data:`COLUMNS`), as JSON-able lists, sorted."""
    out = [[r["topic"], r["partition"], r["offset"], _hex(r["key"]), _hex(r["value"]), _headers(r["headers"]),
            r["ts"], r["timestampType"]] for r in df.collect()]
    return sorted(out, key=_order)


def _order(row: list) -> tuple:
    return tuple("" if v is None else json.dumps(v) if isinstance(v, list) else v for v in row)


def read(spark: Any, fmt: str, paths: Any, **options: str) -> Any:
    r = spark.read.format(fmt)
    for k, v in options.items():
        r = r.option(k, v)
    return r.load(paths)


def plan_of(df: Any) -> str:
    return str(df._jdf.queryExecution().executedPlan().toString())


# ------------------------------------------------------------------------------------------------ cases
def _data(work: str) -> str:
    return os.path.join(work, "data")


def _brokers(work: str) -> list[str]:
    d = os.path.join(work, "brokers")
    return sorted(os.path.join(d, n) for n in os.listdir(d))


def case_jvm_scan(spark: Any, work: str, out: str) -> dict:
    df = read(spark, "kvlog", _data(work), subscribe="a,b,tx", includeHeaders="true")
    return {"rows": spark_rows(df.selectExpr(*COLUMNS))}


def case_jvm_scan_filtered(spark: Any, work: str, out: str) -> dict:
    """Offset and timestamp bounds the scan takes, and a projection: the scan reads four columns."""
    df = read(spark, "kvlog", _data(work), subscribe="a,b").where(
        f"offset >= 40 and offset < 250 and timestamp >= timestamp_millis({T0 + 1500})"
    ).select("topic", "partition", "offset", "value")
    rows = sorted([r["topic"], r["partition"], r["offset"], _hex(r["value"])] for r in df.collect())
    return {"rows": rows, "plan": plan_of(df)}


def case_jvm_read_committed(spark: Any, work: str, out: str) -> dict:
    df = read(spark, "kvlog", _data(work), subscribe="tx", includeHeaders="true",
              **{"kafka.isolation.level": "read_committed"})
    return {"rows": spark_rows(df.selectExpr(*COLUMNS))}


def case_python_scan(spark: Any, work: str, out: str) -> dict:
    df = read(spark, "kvlog_python", _data(work), subscribe="a,b,tx", includeHeaders="true")
    return {"rows": spark_rows(df.selectExpr(*COLUMNS))}


def case_python_read_committed(spark: Any, work: str, out: str) -> dict:
    df = read(spark, "kvlog_python", _data(work), subscribe="tx", includeHeaders="true",
              **{"kafka.isolation.level": "read_committed"})
    return {"rows": spark_rows(df.selectExpr(*COLUMNS))}


def case_cluster_jvm(spark: Any, work: str, out: str) -> dict:
    df = read(spark, "kvlog", _brokers(work), subscribe="t", includeHeaders="true")
    return {"rows": spark_rows(df.selectExpr(*COLUMNS))}


def case_cluster_python(spark: Any, work: str, out: str) -> dict:
    df = read(spark, "kvlog_python", _brokers(work), subscribe="t", includeHeaders="true")
    return {"rows": spark_rows(df.selectExpr(*COLUMNS))}


def case_jvm_stream(spark: Any, work: str, out: str) -> dict:
    """readStream of topic a into a parquet sink (the executors write its files), capped per micro-batch."""
    path, ckpt = os.path.join(out, "stream-parquet"), os.path.join(out, "stream-checkpoint")
    q = (spark.readStream.format("kvlog").option("subscribe", "a").option("startingOffsets", "earliest")
         .option("includeHeaders", "true").option("maxOffsetsPerTrigger", "400").load(_data(work))
         .selectExpr(*COLUMNS)
         .writeStream.format("parquet").option("path", path).option("checkpointLocation", ckpt)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    batches = [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]]
    return {"rows": spark_rows(spark.read.parquet(path)), "batches": batches}


def _sink_input(spark: Any, work: str) -> Any:
    """Topics a and b as the JVM scan reads them (null keys and values, headers, timestamps), in 5 slices: the
    rows reach each Kafka partition's writer task from several tasks on both executors."""
    df = read(spark, "kvlog", _data(work), subscribe="a,b", includeHeaders="true")
    return df.select("key", "value", "headers", "timestamp").repartition(5)


def _second_input(spark: Any, work: str) -> Any:
    """Topic tx's rows (a second job on the same partitions), keeping their timestamps, without headers."""
    return read(spark, "kvlog", _data(work), subscribe="tx").select("key", "value", "timestamp").coalesce(1)


def case_jvm_sink(spark: Any, work: str, out: str) -> dict:
    root = os.path.join(out, "jvm-sink")
    _sink_input(spark, work).write.format("kvlog").mode("append").option("topic", "copy") \
        .option("partitions", "4").option("compression", "lz4").save(root)
    # a second job on the same directory: its lease, planning and commit follow the first one's
    _second_input(spark, work).write.format("kvlog").mode("append").option("topic", "copy") \
        .option("compression", "zstd").save(root)
    exchange = str(spark._jvm.io.kvlog.spark.KvlogSource.lastSinkExchange())
    back = read(spark, "kvlog", root, subscribe="copy").count()
    return {"root": root, "exchange": exchange, "jvm_count": back}


def case_python_sink(spark: Any, work: str, out: str) -> dict:
    root = os.path.join(out, "python-sink")
    _sink_input(spark, work).write.format("kvlog_python").mode("append").option("topic", "copy") \
        .option("partitions", "4").option("compression", "zstd").save(root)
    _second_input(spark, work).write.format("kvlog_python").mode("append").option("topic", "copy") \
        .option("compression", "lz4").save(root)
    return {"root": root}


# ------------------------------------------------------------------------------------ a killed executor
def executor_pids(app_id: str) -> list[int]:
    """The executor JVMs (CoarseGrainedExecutorBackend) of application ``app_id`` on this machine."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"org.apache.spark.executor.CoarseGrainedExecutorBackend" in argv and \
                app_id.encode() in argv and b"--app-id" in argv:
            found.append(int(name))
    return sorted(found)


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _executor_of(pid: int, executors: list[int]) -> int | None:
    """The executor JVM ``pid`` (a Python worker) descends from."""
    try:
        while pid > 1:
            if pid in executors:
                return pid
            pid = _parent(pid)
    except (OSError, ValueError, IndexError):
        return None
    return None


SLICES, PER_SLICE, SLEEP = 16, 250, 0.6


def case_kill_sink(spark: Any, work: str, out: str) -> dict:
    """A write whose input tasks are slow (a Python function sleeps in each of 16 slices): once three of them have
    started, the executor running one of them is killed (SIGKILL). Spark reruns its tasks elsewhere; the test checks
    that every row is in the output exactly once."""
    root, markers = os.path.join(out, "kill-sink"), os.path.join(out, "kill-markers")
    os.makedirs(markers, exist_ok=True)
    app = spark.sparkContext.applicationId

    def slow(batches):  # a closure: pickled by value, so the executors need nothing of this module
        import os as _os
        import time as _time

        from pyspark import TaskContext

        ctx = TaskContext.get()
        tag = f"{ctx.partitionId()}-{ctx.taskAttemptId()}-{ctx.attemptNumber()}-{_os.getpid()}"
        open(_os.path.join(markers, "start-" + tag), "w").close()
        _time.sleep(SLEEP)
        yield from batches
        open(_os.path.join(markers, "done-" + tag), "w").close()

    killed: dict[str, Any] = {}
    stop = threading.Event()

    def killer() -> None:
        deadline = time.monotonic() + 300
        while not stop.is_set() and time.monotonic() < deadline:
            names = os.listdir(markers)
            started = [n[6:] for n in names if n.startswith("start-")]
            running = [t for t in started if "done-" + t not in names]
            if len(started) >= 3 and running:
                executors = executor_pids(app)
                for tag in running:
                    victim = _executor_of(int(tag.rsplit("-", 1)[1]), executors)
                    if victim is not None:
                        os.kill(victim, signal.SIGKILL)
                        killed.update(pid=victim, task=tag, executors_before=executors, started=len(started))
                        return
            time.sleep(0.02)

    df = spark.range(SLICES * PER_SLICE, numPartitions=SLICES).mapInPandas(slow, "id long") \
        .selectExpr("cast(cast(id as string) as binary) as key", "cast(concat('v-', id) as binary) as value")
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        df.write.format("kvlog").mode("append").option("topic", "k").option("partitions", "3").save(root)
    finally:
        stop.set()
        thread.join()
    return {"root": root, "killed": killed, "markers": sorted(os.listdir(markers)), "rows": SLICES * PER_SLICE,
            "executors_after": executor_pids(app)}


def _open_segments(pid: int, root: str) -> list[str]:
    """The ``.log`` files under ``root`` that process ``pid`` has open."""
    found = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return found
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(root + os.sep) and target.endswith(".log"):
            found.append(target)
    return found


WRITER_ROWS = 400_000


def case_kill_writer(spark: Any, work: str, out: str) -> dict:
    """The executor of a writer task killed (SIGKILL) while that task writes its partition's segment: the writer
    tasks encode and gzip their rows themselves (``kvlog.sinkExchange=rows``), so they write for a while. The lost
    task's retry fails to fetch the dead executor's shuffle output, Spark runs the input stage again and resubmits
    the write stage; its tasks find the killed attempt's segment files and must take them for their own attempt's
    leftovers. Spark's scheduler warnings go to the driver's log for the test."""
    root = os.path.realpath(os.path.join(out, "kill-writer"))
    app = spark.sparkContext.applicationId
    killed: dict[str, Any] = {}
    stop = threading.Event()

    def killer() -> None:
        deadline = time.monotonic() + 300
        while not stop.is_set() and time.monotonic() < deadline:
            executors = executor_pids(app)
            for pid in executors:
                writing = _open_segments(pid, root)
                if writing:
                    os.kill(pid, signal.SIGKILL)
                    killed.update(pid=pid, writing=writing, executors_before=executors)
                    return
            time.sleep(0.01)

    df = spark.range(WRITER_ROWS, numPartitions=4).selectExpr(
        "cast(cast(id as string) as binary) as key",
        "cast(concat('v-', id, '-', sha2(cast(id as string), 256)) as binary) as value")
    thread = threading.Thread(target=killer, daemon=True)
    spark.sparkContext.setLogLevel("WARN")
    thread.start()
    try:
        df.write.format("kvlog").mode("append").option("topic", "w").option("partitions", "2") \
            .option("compression", "gzip").option("kvlog.sinkExchange", "rows").save(root)
    finally:
        stop.set()
        thread.join()
        spark.sparkContext.setLogLevel("ERROR")
    return {"root": root, "killed": killed, "rows": WRITER_ROWS, "executors_after": executor_pids(app)}


CASES = {"jvm_scan": case_jvm_scan, "jvm_scan_filtered": case_jvm_scan_filtered,
         "jvm_read_committed": case_jvm_read_committed, "python_scan": case_python_scan,
         "python_read_committed": case_python_read_committed, "cluster_jvm": case_cluster_jvm,
         "cluster_python": case_cluster_python, "jvm_stream": case_jvm_stream, "jvm_sink": case_jvm_sink,
         "python_sink": case_python_sink, "kill_sink": case_kill_sink,
         "kill_writer": case_kill_writer}  # in this order: the kills last


def run_cases(spark: Any, work: str, out: str, names: list[str]) -> dict:
    """Each case's result, or its error (a failed case does not hide the others); and how long it took."""
    results: dict[str, Any] = {}
    for name in names:
        began = time.monotonic()
        try:
            results[name] = CASES[name](spark, work, out)
        except Exception:  # noqa: BLE001 - reported to the test, which fails naming it
            results[name] = {"error": traceback.format_exc()}
        results[name]["seconds"] = round(time.monotonic() - began, 2)
    return results


# -------------------------------------------------------------------------------------------- session
def session(master: str, jar: str, jvm_opts: str) -> Any:
    from pyspark.sql import SparkSession

    import kvlog.spark

    builder = (SparkSession.builder.master(master).appName("kvlog-multiprocess")
               .config("spark.jars", jar)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.memory", "1g")
               .config("spark.executor.memory", "1g")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.adaptive.enabled", "false")
               .config("spark.driver.extraJavaOptions", jvm_opts)
               .config("spark.executor.extraJavaOptions", jvm_opts))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    engine = kvlog.spark.register(spark)
    if engine != "jvm":
        raise RuntimeError(f"kvlog.spark.register answered {engine!r}: the jar {jar} is not on the driver")
    return spark


def executor_count(spark: Any) -> int:
    """Executors registered with the driver (the driver's own entry not counted)."""
    return len(spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos()) - 1


def wait_for_executors(spark: Any, n: int, timeout: float = 180) -> int:
    deadline = time.monotonic() + timeout
    while executor_count(spark) < n and time.monotonic() < deadline:
        time.sleep(0.2)
    return executor_count(spark)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--master", required=True)
    ap.add_argument("--jar", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--result", required=True)
    ap.add_argument("--case", action="append", choices=sorted(CASES))
    ap.add_argument("--executors", type=int, default=2)
    ap.add_argument("--jvm-opts", default="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
    args = ap.parse_args(argv)
    began = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    spark = session(args.master, args.jar, args.jvm_opts)
    try:
        info: dict[str, Any] = {"master": args.master, "app_id": spark.sparkContext.applicationId,
                                "driver_pid": int(spark._jvm.java.lang.ProcessHandle.current().pid())}
        info["executors"] = wait_for_executors(spark, args.executors)
        info["executor_pids"] = executor_pids(info["app_id"])
        info["session_seconds"] = round(time.monotonic() - began, 2)
        results = run_cases(spark, args.work, args.out, args.case or list(CASES))
    finally:
        spark.stop()
    info["seconds"] = round(time.monotonic() - began, 2)
    with open(args.result, "w") as f:
        json.dump({"info": info, "cases": results}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
