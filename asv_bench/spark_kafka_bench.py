"""kvlog against what users run today: Spark's Kafka source and sink (spark-sql-kafka-0-10) through a live broker.

    make spark-jars kafka-jars jar        # once: Spark's Kafka and S3A jars, Kafka 4.4.0's broker, kvlog's jar
    python asv_bench/spark_kafka_bench.py [--rows N] [--quick] [--codecs none,lz4] [--version 4.4.0] [--no-s3]
                                          [--workdir DIR] [--json PATH]

One Kafka broker (tests/kafka_oracle: KRaft, one node, on this machine) and one Spark session in its DEFAULT
configuration as a new user gets it: ``local[2]``, adaptive execution on, Spark's scratch space where Spark puts
it (the disk), default memory; only the UI is off. The session carries kvlog's jar and Spark's Kafka jars
(build/spark-jars/kafka/). Rows: N records of 12-byte keys and 100-byte values, 4 partitions, one topic per
codec. Each figure is one run (after a small warm-up of every path), in rows/s:

* write: ``df.write.format("kafka")`` into the broker vs ``df.write.format("kvlog")`` (the JVM sink) into a
  directory, with ``df.write.parquet`` and the Python sink (``kvlog_python``) beside them;
* batch scan (count, sum(offset), sum(length(value))): ``format("kafka")`` through the broker vs ``format("kvlog")``
  on the broker's own data directory, the broker running and stopped; and a ``kvlog backup`` of the stopped
  broker's topic in S3 (moto's server on 127.0.0.1): the JVM scan through S3A
  (build/spark-jars/s3a/) against the Python source on the same objects and the JVM scan of the local files
  (``--no-s3`` leaves these rows out);
* selective read: ``startingOffsetsByTimestamp`` at the last 10 % by timestamp, both ways;
* streaming: ``readStream`` with ``Trigger.AvailableNow`` into the ``noop`` sink, both ways;
* load a topic: the job that ends when a consumer can read every record: producing through the broker, vs the
  JVM sink's write plus docs/broker-files.md's serving procedures: for a new topic (each codec), ``kvlog adopt
  --new-topic`` into the running broker and then the topic's creation (the creation timed on both sides); for an
  existing topic (the last codec), stop the broker, ``kvlog adopt`` the written partitions, start it again.

It prints ``kvlog._core.build_info()``'s CPU features and the load average first: other work on the machine
skews every figure (the 2-core VM this was written on is shared).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

KEY_BYTES = 12
VALUE_BYTES = 100
PARTITIONS = 4
BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def spark_kafka_jars(name: str = "kafka") -> list[str]:
    jars = sorted(glob.glob(str(REPO / "build" / "spark-jars" / name / "*.jar")))
    if not jars:
        raise SystemExit(f"no build/spark-jars/{name}/*.jar: run `make spark-jars` first")
    return jars


def s3_server(spark):
    """moto's S3 on 127.0.0.1 (tests/s3_support.py) and the session's S3A settings for its bucket."""
    sys.path.insert(0, str(REPO / "tests"))
    from s3_support import ACCESS_KEY, BUCKET, SECRET_KEY, S3Server

    srv = S3Server()
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    for k, v in {"access.key": ACCESS_KEY, "secret.key": SECRET_KEY, "endpoint": f"http://{srv.host}:{srv.port}",
                 "path.style.access": "true", "endpoint.region": "us-east-1",
                 "connection.ssl.enabled": "false"}.items():
        conf.set(f"fs.s3a.bucket.{BUCKET}.{k}", v)
    return srv


def default_session(extra_jars: list[str]):
    """local[2] with Spark's defaults (adaptive execution on, scratch space on the disk); UI off; kvlog's jar."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    import kvlog.spark
    from pyspark.sql import SparkSession

    jar = kvlog.spark.jar_path()
    if jar is None:
        raise SystemExit("no kvlog-spark.jar: run `make jar` first")
    spark = (SparkSession.builder.master("local[2]").appName("kvlog-vs-kafka")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.jars", ",".join([jar, *extra_jars])).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    if kvlog.spark.register(spark) != "jvm":
        raise SystemExit("format('kvlog') is not served by the JVM in this session")
    return spark


def source(spark, n: int):
    """n rows: key 'k' + 11 digits (12 B), value 100 B, timestamp base + i ms (which Spark 4.2.0's Kafka sink
    ignores: its records carry the producer's clock)."""
    from pyspark.sql import functions as F

    pad = "x" * (VALUE_BYTES - 20)
    return spark.range(n, numPartitions=PARTITIONS).select(
        F.format_string("k%011d", F.col("id") % 1000003).cast("binary").alias("key"),
        F.concat(F.format_string("%020d", F.col("id")), F.lit(pad)).cast("binary").alias("value"),
        F.timestamp_millis(F.col("id") + F.lit(BASE_MS)).alias("timestamp"))


def timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def scan_query(df):
    from pyspark.sql import functions as F

    return tuple(df.agg(F.count("*"), F.sum("offset"), F.sum(F.length("value"))).collect()[0])


class Bench:
    def __init__(self, spark, work: str, version: str, n: int, codecs: list[str]) -> None:
        from tests.kafka_oracle.broker import Broker, KafkaDist

        dist = KafkaDist.find(version)
        if dist is None:
            raise SystemExit(f"Kafka {version}'s jars are not fetched: run `make kafka-jars`")
        self.spark, self.work, self.n, self.codecs = spark, work, n, codecs
        self.broker = Broker(dist, Path(work) / "broker", extra={"log.retention.ms": "-1",
                                                                 "log.segment.bytes": str(1 << 30)})
        self.rows: list[tuple[str, str, float, float]] = []  # what, peer, ours (rows/s), theirs (rows/s)
        self.s3 = None  # an S3Server (tests/s3_support.py) for the object-store rows
        self.steps: dict[str, dict[str, float]] = {}  # the load jobs' steps, in seconds

    # -- helpers ---------------------------------------------------------------------------------------------
    def create(self, *topics: str) -> None:
        from tests.kafka_oracle.serve import create_topics

        create_topics(self.broker, {t: (PARTITIONS, {"retention.ms": -1}) for t in topics})

    def kafka_write(self, df, topic: str, codec: str) -> None:
        (df.write.format("kafka").option("kafka.bootstrap.servers", self.broker.bootstrap).option("topic", topic)
         .option("kafka.compression.type", codec).save())

    def kvlog_write(self, df, root: str, topic: str, codec: str, fmt: str = "kvlog") -> None:
        (df.write.format(fmt).mode("append").option("topic", topic).option("partitions", str(PARTITIONS))
         .option("compression", codec).save(root))

    def kafka_read(self, topic: str, **opts: str):
        r = (self.spark.read.format("kafka").option("kafka.bootstrap.servers", self.broker.bootstrap)
             .option("subscribe", topic).option("startingOffsets", "earliest"))
        for k, v in opts.items():
            r = r.option(k, v)
        return r.load()

    def kvlog_read(self, root: str, topic: str, **opts: str):
        r = self.spark.read.format("kvlog").option("subscribe", topic)
        for k, v in opts.items():
            r = r.option(k, v)
        return r.load(root)

    def consumer_reads_all(self, topic: str, n: int, timeout: float = 120) -> None:
        """A consumer sees every partition's end (the sum is n) and fetches each partition's last record."""
        from kafka import KafkaConsumer, TopicPartition

        c = KafkaConsumer(bootstrap_servers=self.broker.bootstrap, enable_auto_commit=False,
                          request_timeout_ms=30000, fetch_max_wait_ms=100)
        try:
            tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
            c.assign(tps)
            deadline = time.monotonic() + timeout
            while True:
                ends = c.end_offsets(tps)
                if sum(ends.values()) == n:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{topic}: the broker serves {sum(ends.values())} of {n} records")
                time.sleep(0.1)
            want = {tp for tp in tps if ends[tp] > 0}
            for tp in want:
                c.seek(tp, ends[tp] - 1)
            while want:
                for tp, recs in c.poll(timeout_ms=1000).items():
                    if any(r.offset == ends[tp] - 1 for r in recs):
                        want.discard(tp)
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{topic}: no last record from {sorted(t.partition for t in want)}")
        finally:
            c.close()

    def row(self, what: str, peer: str, ours_s: float, theirs_s: float, n: int | None = None) -> None:
        n = self.n if n is None else n
        self.rows.append((what, peer, n / ours_s, n / theirs_s))
        print(f"  {what:<52} {n / ours_s / 1e6:8.3f} M rows/s  vs {peer:<40} {n / theirs_s / 1e6:8.3f}"
              f"  = {theirs_s / ours_s:5.2f}x", flush=True)

    # -- the runs -----------------------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Every path once on a few rows: class loading, JIT, Python workers, the Kafka producer and consumer."""
        small = source(self.spark, 20_000)
        self.create("warm")
        self.kafka_write(small, "warm", "lz4")
        root = os.path.join(self.work, "warm")
        self.kvlog_write(small, root, "warm", "lz4")
        small.write.mode("overwrite").parquet(os.path.join(self.work, "warm-parquet"))
        self.kvlog_write(small, os.path.join(self.work, "warm-py"), "warm", "lz4", "kvlog_python")
        scan_query(self.kafka_read("warm"))
        scan_query(self.kvlog_read(root, "warm"))
        scan_query(self.kvlog_read(str(self.broker.data), "warm"))
        self.stream("kafka", "warm", os.path.join(self.work, "warm-ck1"))
        self.stream("kvlog", "warm", os.path.join(self.work, "warm-ck2"), root)
        if self.s3 is not None:  # S3A's and the AWS SDK's first use, pyarrow's S3 client
            self.s3_scans(root, "warm", "warm")

    def s3_scans(self, root: str, topic: str, key: str) -> tuple[float, float, tuple]:
        """``kvlog backup`` of ``topic`` from the data directory ``root`` into ``key`` in moto's bucket; the seconds
        of the JVM scan of that backup through S3A and of the Python source's, and their (equal) result."""
        from kvlog.backup.run import backup

        result = backup(root, self.s3.uri(key), topics=[topic])
        assert not result.errors, result.errors
        t_s3a, got = timed(lambda: scan_query(self.kvlog_read(f"s3a://kvlog-tests/{key}", topic)))
        t_py, want = timed(lambda: scan_query(self.spark.read.format("kvlog_python").option("subscribe", topic)
                                              .load(self.s3.uri(key))))
        assert got == want, (got, want)
        return t_s3a, t_py, got

    def object_store(self, codec: str, topic: str, t_local: float) -> None:
        """A ``kvlog backup`` of the stopped broker's ``topic`` in moto's S3: the JVM scan through S3A against the
        Python source (pyarrow) on the same objects and against the JVM scan of the local files (``t_local``)."""

        t_s3a, t_py, got = self.s3_scans(str(self.broker.data), topic, f"backup-{codec}")
        assert got[0] == self.n, got
        self.row(f"scan format('kvlog') on S3A, moto [{codec}]", "Python source on the same objects", t_s3a, t_py)
        self.row(f"scan format('kvlog') on S3A, moto [{codec}]", "the JVM scan of the local files", t_s3a, t_local)

    def stream(self, fmt: str, topic: str, checkpoint: str, root: str | None = None) -> int:
        r = self.spark.readStream.format(fmt).option("subscribe", topic).option("startingOffsets", "earliest")
        if fmt == "kafka":
            df = r.option("kafka.bootstrap.servers", self.broker.bootstrap).load()
        else:
            df = r.load(root)
        q = df.writeStream.format("noop").option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
        q.awaitTermination()
        return sum(p["numInputRows"] for p in q.recentProgress)

    def _steps(self, label: str) -> tuple[dict[str, float], Any]:
        steps: dict[str, float] = {}
        self.steps[label] = steps

        def step(name: str, fn) -> None:
            steps[name] = timed(fn)[0]
        return steps, step

    def load_new_topic(self, src, codec: str) -> None:
        """A new topic: producing through the broker (create the topic, ``df.write.format("kafka")``) against
        the JVM sink's write, ``kvlog adopt --new-topic`` into the RUNNING broker and the topic's creation
        (docs/broker-files.md): no restart."""
        from kvlog.backup.adopt_new_topic import adopt_new_topic

        n = self.n
        produced, kvlog_topic = f"load-kafka-{codec}", f"load-new-{codec}"
        t_produce, _ = timed(lambda: (self.create(produced), self.kafka_write(src, produced, codec),
                                      self.consumer_reads_all(produced, n)))
        staging = os.path.join(self.work, f"load-staging-{codec}")
        steps, step = self._steps(f"new topic [{codec}]")

        def kvlog_load() -> None:
            step("JVM sink write", lambda: self.kvlog_write(src, staging, kvlog_topic, codec))
            step("kvlog adopt --new-topic --move", lambda: adopt_new_topic(
                self.broker.data, [os.path.join(staging, f"{kvlog_topic}-{p}") for p in range(PARTITIONS)],
                metadata_dir=self.broker.meta, move=True))
            step("create the topic", lambda: self.create(kvlog_topic))
            step("a consumer reads the ends", lambda: self.consumer_reads_all(kvlog_topic, n))

        t_load, _ = timed(kvlog_load)
        print(f"  new topic [{codec}], step by step: " + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()),
              flush=True)
        self.row(f"load a new topic: JVM sink + adopt --new-topic + create [{codec}]",
                 "create + produce through format('kafka')", t_load, t_produce)

    def load_existing_topic(self, src, codec: str) -> None:
        """An existing (empty) topic: producing into it against the JVM sink's write plus the stopped broker's
        procedure (stop the broker, ``kvlog adopt`` the written partitions into its log directory, start it)."""
        from kvlog.backup.adopt import adopt

        n = self.n
        produced, kvlog_topic = f"load-kafka-existing-{codec}", f"load-existing-{codec}"
        self.create(produced, kvlog_topic)
        t_produce, _ = timed(lambda: (self.kafka_write(src, produced, codec), self.consumer_reads_all(produced, n)))
        staging = os.path.join(self.work, f"load-staging-existing-{codec}")
        steps, step = self._steps(f"existing topic [{codec}]")

        def kvlog_load() -> None:
            step("stop the broker", self.broker.stop)
            step("JVM sink write", lambda: self.kvlog_write(src, staging, kvlog_topic, codec))
            step("kvlog adopt --move", lambda: adopt(
                self.broker.data, [os.path.join(staging, f"{kvlog_topic}-{p}") for p in range(PARTITIONS)],
                metadata_dir=self.broker.meta, move=True))
            step("start the broker", self.broker.start)
            step("a consumer reads the ends", lambda: self.consumer_reads_all(kvlog_topic, n))

        t_load, _ = timed(kvlog_load)
        print(f"  existing topic [{codec}], step by step: " + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()),
              flush=True)
        self.row(f"load an existing topic: JVM sink + adopt + restart [{codec}]", "produce through format('kafka')",
                 t_load, t_produce)

    def run(self) -> None:
        from pyspark.sql import functions as F

        n, spark = self.n, self.spark
        src = source(spark, n).cache()
        assert src.count() == n
        print("warm-up ...", flush=True)
        self.warm_up()
        topics = {c: f"bench-{c}" for c in self.codecs}
        self.create(*topics.values())
        print(f"write, {n} rows (one run each):", flush=True)
        for codec, topic in topics.items():
            t_kafka, _ = timed(lambda: self.kafka_write(src, topic, codec))
            root = os.path.join(self.work, f"sink-{codec}")
            t_sink, _ = timed(lambda: self.kvlog_write(src, root, topic, codec))
            self.row(f"JVM sink format('kvlog') [{codec}]", "df.write.format('kafka') into the broker", t_sink, t_kafka)
        pq_dir = os.path.join(self.work, "parquet")
        t_pq, _ = timed(lambda: src.write.mode("overwrite").parquet(pq_dir))
        t_py, _ = timed(lambda: self.kvlog_write(src, os.path.join(self.work, "sink-python"), "t", "none",
                                                 "kvlog_python"))
        t_sink = n / next(r[2] for r in self.rows if r[0].endswith("[none]"))
        self.row("JVM sink format('kvlog') [none]", "df.write.parquet (snappy)", t_sink, t_pq)
        self.row("JVM sink format('kvlog') [none]", "Python sink format('kvlog_python')", t_sink, t_py)
        shutil.rmtree(pq_dir, ignore_errors=True)

        data = str(self.broker.data)
        # Spark 4.2.0's Kafka sink ignores a timestamp column (the producer stamps the records): the last 10 % by
        # timestamp is found in the data (outside the timings) and both readers must return the same rows
        cuts = {}
        for codec, topic in topics.items():
            ts = self.kvlog_read(data, topic).agg(F.percentile_approx(F.unix_millis("timestamp"), 0.9)).collect()[0][0]
            cuts[codec] = json.dumps({topic: {str(p): int(ts) for p in range(PARTITIONS)}})
        kafka_scan: dict[str, float] = {}
        kafka_stream: dict[str, tuple[float, int]] = {}
        for state in ("running", "stopped"):
            if state == "stopped":
                self.broker.stop()
            for codec, topic in topics.items():
                t_kvlog, got = timed(lambda: scan_query(self.kvlog_read(data, topic)))
                assert got[0] == n, got
                if state == "stopped":
                    self.row(f"scan format('kvlog'), broker stopped [{codec}]", "format('kafka') through the broker",
                             t_kvlog, kafka_scan[codec])
                    t_vs, got_vs = timed(lambda: self.stream("kvlog", topic, os.path.join(self.work, f"ck-v-{codec}"),
                                                             data))
                    t_ks, got_ks = kafka_stream[codec]
                    assert got_vs == got_ks == n, (got_vs, got_ks)
                    self.row(f"stream AvailableNow format('kvlog') [{codec}]", "readStream.format('kafka')", t_vs, t_ks)
                    if self.s3 is not None:
                        self.object_store(codec, topic, t_kvlog)
                    continue
                t_kafka, want = timed(lambda: scan_query(self.kafka_read(topic)))
                assert want == got, (want, got)
                kafka_scan[codec] = t_kafka
                self.row(f"scan format('kvlog'), broker running [{codec}]", "format('kafka') through the broker",
                         t_kvlog, t_kafka)
                opts = {"startingOffsetsByTimestamp": cuts[codec]}
                t_kafka_sel, want_sel = timed(lambda: scan_query(self.kafka_read(topic, **opts)))
                t_kvlog_sel, got_sel = timed(lambda: scan_query(self.kvlog_read(data, topic, **opts)))
                assert got_sel == want_sel and 0 < got_sel[0] < n, (got_sel, want_sel)
                self.row(f"last 10% by timestamp, format('kvlog') [{codec}]", "the same through format('kafka')",
                         t_kvlog_sel, t_kafka_sel, got_sel[0])
                kafka_stream[codec] = timed(lambda: self.stream("kafka", topic, os.path.join(self.work, f"ck-k-{codec}")))
        self.broker.start()

        print("load a topic (until a consumer can read every record; the topic's creation included both ways):",
              flush=True)

        for codec in self.codecs:
            self.load_new_topic(src, codec)
        self.load_existing_topic(src, self.codecs[-1])
        src.unpersist()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--quick", action="store_true", help="200 000 rows")
    ap.add_argument("--codecs", default="none,lz4")
    ap.add_argument("--version", default="4.4.0", help="the Kafka broker's version (make kafka-jars)")
    ap.add_argument("--workdir", help="where the broker's and kvlog's files go (default: a new directory in /tmp)")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--no-s3", action="store_true", help="leave out the object-store rows (moto, S3A)")
    args = ap.parse_args()
    n = 200_000 if args.quick else args.rows
    import kvlog._core as core

    print(f"kvlog {core.build_info()}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    os.environ["KVLOG_KAFKA_JARS"] = os.environ.get("KVLOG_KAFKA_JARS", str(REPO / "build" / "kafka-oracle"))
    work = args.workdir or tempfile.mkdtemp(prefix="kvlog-kafka-bench-")
    spark = default_session(spark_kafka_jars() + ([] if args.no_s3 else spark_kafka_jars("s3a")))
    bench = Bench(spark, work, args.version, n, args.codecs.split(","))
    try:
        if not args.no_s3:
            bench.s3 = s3_server(spark)
        bench.broker.start()
        bench.run()
    finally:
        bench.broker.stop_all()
        if bench.s3 is not None:
            bench.s3.stop()
        spark.stop()
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min)"
          + ("  -- measured under load" if load[1] > 1.0 else ""))
    print(f"\n| what ({n} rows, local[2], default session) | peer | kvlog M rows/s | peer M rows/s | ratio |")
    print("|---|---|---|---|---|")
    for what, peer, ours, theirs in bench.rows:
        print(f"| {what} | {peer} | {ours / 1e6:.3f} | {theirs / 1e6:.3f} | {ours / theirs:.2f}x |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": n, "load": load, "results": bench.rows,
                                               "load_steps_s": getattr(bench, "steps", {})}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
