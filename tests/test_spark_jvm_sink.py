"""The JVM sink (``df.write.format("kvlog")``, ``writeStream.format("kvlog")``) against independent oracles.

Oracles: the Python sink (``kvlog_python``) for the same rows, kafka-python's murmur2 partitioner for every
keyed row, aiokafka's decoder for the bytes, both read engines and ``Log`` for what is visible. Faults are
injected where the protocol (``docs/spark.md``, "Exactly once without renames") has steps: a task that fails
half way, a dead attempt's or job's files, a driver that died before or after it published, a second job on
the same partitions, a replayed streaming epoch, and a file system whose ``rename`` throws.
"""

from __future__ import annotations

import os
import threading
import warnings

import pytest

import kvlog
import kvlog.spark
from kvlog import committed_offsets
from kvlog.verify import verify_partition
from tests.oracles import peer_can_decode, peer_decode

pytest.importorskip("pyspark")

from py4j.protocol import Py4JJavaError  # noqa: E402
from pyspark.errors import IllegalArgumentException as SparkIllegalArgument  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.partitioner.default import murmur2 as kp_murmur2

JVM_ERRORS = (Py4JJavaError, SparkIllegalArgument)
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
HEADERS = T.ArrayType(T.StructType([T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())]))


@pytest.fixture(scope="module")
def spark(jvm):
    kvlog.spark.register(jvm)  # kvlog_python: the Python sink, the differential's oracle
    return jvm


def rows_df(spark, n, *, seed=0, null_keys=True, headers=True, explicit=False, slices=3):
    """Keyed and null-keyed rows, values, headers and timestamps, some with an explicit partition."""
    data = []
    for i in range(n):
        key = None if null_keys and i % 7 == 3 else f"k{(i * 2654435761 + seed) % 997}".encode()
        value = None if i % 101 == 50 else f"value-{seed}-{i}".encode() * (1 + i % 3)
        hdrs = [("h", f"{i}".encode()), ("n", None)] if headers and i % 5 == 0 else []
        part = (i % 3) if explicit and i % 4 == 0 else None
        data.append((key, value, hdrs, 1_700_000_000 + i * 0.001, part))
    schema = T.StructType([T.StructField("key", T.BinaryType()), T.StructField("value", T.BinaryType()),
                           T.StructField("headers", HEADERS), T.StructField("timestamp", T.DoubleType()),
                           T.StructField("partition", T.IntegerType())])
    return spark.createDataFrame(data, schema).repartition(slices) if slices > 1 else \
        spark.createDataFrame(data, schema).coalesce(1)


def contents(root, topic="t"):
    """Per partition: (log start, log end, [(offset, key, value, timestamp, headers)]) through ``Log``."""
    out = {}
    with kvlog.LogManager(str(root), read_only=True) as mgr:
        for p in mgr.partitions(topic):
            log = mgr.log(topic, p)
            recs = [(r.offset, r.key, r.value, r.timestamp, list(r.headers)) for r in log.records()]
            out[p] = (log.log_start_offset, log.log_end_offset, recs)
    return out


def jvm_rows(spark, root, topic="t"):
    df = spark.read.format("kvlog").option("subscribe", topic).option("includeHeaders", "true").load(str(root))
    return sorted((r.partition, r.offset, r.key, r.value) for r in df.collect())


def python_rows(spark, root, topic="t"):
    df = spark.read.format("kvlog_python").option("subscribe", topic).load(str(root))
    return sorted((r.partition, r.offset, r.key, r.value) for r in df.collect())


def leftovers(root):
    """Files a finished write must not leave: leases, and segments past a partition's committed end."""
    found = [n for n in os.listdir(root) if n.startswith(committed_offsets.LEASE_PREFIX)]
    state = committed_offsets.latest(str(root))
    for d in os.listdir(root):
        tp = kvlog._files.parse_partition_dir(os.path.join(root, d))
        if tp is None:
            continue
        rng = state.range_of(*tp) or (0, 1 << 62)
        found += [f"{d}/{n}" for n in os.listdir(os.path.join(root, d))
                  if n[:20].isdigit() and int(n[:20]) >= rng[1]]
    return found


# ------------------------------------------------------------------------------------------ differential
@pytest.mark.parametrize("codec,exchange", [(c, "batches") for c in CODECS] + [("none", "rows"), ("zstd", "rows")])
def test_same_records_at_same_offsets_as_the_python_sink(spark, tmp_path, codec, exchange):
    """One input slice keeps the row order both sinks see, so offsets must match record for record; through the
    batch exchange (the default) and Spark's row exchange alike."""
    df = rows_df(spark, 1500, seed=CODECS.index(codec), explicit=True, slices=1)
    for fmt, root in (("kvlog", tmp_path / "jvm"), ("kvlog_python", tmp_path / "py")):
        df.write.format(fmt).mode("append").option("topic", "t").option("partitions", "4") \
            .option("compression", codec).option("kvlog.sinkExchange", exchange).save(str(root))
        if fmt == "kvlog":
            assert spark._jvm.io.kvlog.spark.KvlogSource.lastSinkExchange() == exchange
        df.limit(200).write.format(fmt).mode("append").option("topic", "t").option("compression", codec) \
            .save(str(root))
    jvm, py = contents(tmp_path / "jvm"), contents(tmp_path / "py")
    assert jvm == py
    assert sum(len(v[2]) for v in jvm.values()) == 1700
    for p, (_s, end, recs) in jvm.items():
        assert [r[0] for r in recs] == list(range(end))
        seg = sorted(n for n in os.listdir(tmp_path / "jvm" / f"t-{p}") if n.endswith(".log"))[0]
        batches = list(kvlog.MemoryRecords((tmp_path / "jvm" / f"t-{p}" / seg).read_bytes()).batches())
        assert batches and {b.compression for b in batches} == {CODECS.index(codec)}


def test_keyed_rows_go_where_kafkas_partitioner_puts_them(spark, tmp_path):
    df = rows_df(spark, 3000, explicit=False, slices=4)
    df.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "7").save(str(tmp_path))
    got = contents(tmp_path)
    assert sorted(got) == list(range(7))
    n = 0
    for p, (_s, _e, recs) in got.items():
        for _o, key, value, _ts, _h in recs:
            routed = key if key is not None else (value or b"")
            assert p == (kp_murmur2(routed) & 0x7FFFFFFF) % 7
            n += 1
    assert n == 3000


def test_multi_slice_input_matches_the_python_sink_per_partition(spark, tmp_path):
    """Many input slices: each partition holds the same records with contiguous offsets (order across
    slices is Spark's shuffle order, so records are compared as sets)."""
    df = rows_df(spark, 4000, seed=9, slices=5)
    for fmt, root in (("kvlog", tmp_path / "jvm"), ("kvlog_python", tmp_path / "py")):
        df.write.format(fmt).mode("append").option("topic", "t").option("partitions", "3").save(str(root))
    jvm, py = contents(tmp_path / "jvm"), contents(tmp_path / "py")
    assert sorted(jvm) == sorted(py)
    for p in jvm:
        assert jvm[p][:2] == py[p][:2]
        assert sorted((r[1:] for r in jvm[p][2]), key=repr) == sorted((r[1:] for r in py[p][2]), key=repr)
        assert [r[0] for r in jvm[p][2]] == list(range(jvm[p][1]))


@pytest.fixture
def adaptive(spark):
    """Adaptive execution on (Spark's default; the shared test session turns it off) for one test."""
    was = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    yield
    spark.conf.set("spark.sql.adaptive.enabled", was)


def test_an_upstream_join_and_aggregate_write_alike_through_both_exchanges(spark, tmp_path, adaptive):
    """Exchanges below the write (a join, an aggregate; adaptive execution on) and a topic column: the batch exchange
    writes the same partitions as Spark's row exchange and the Python sink, each partition by one task."""
    left = spark.range(5000).selectExpr("id", "cast(id % 3 as string) as t")
    right = spark.range(0, 5000, 2).selectExpr("id", "cast(concat('v', id) as binary) as value")
    df = (left.join(right, "id").groupBy("t", "value").count()
          .selectExpr("concat('topic', t) as topic", "cast(value as binary) as key", "value"))
    roots = {}
    for fmt, exchange in (("kvlog", "batches"), ("kvlog", "rows"), ("kvlog_python", None)):
        root = roots[exchange] = tmp_path / (exchange or "py")
        w = df.write.format(fmt).mode("append").option("partitions", "5")
        (w.option("kvlog.sinkExchange", exchange) if exchange else w).save(str(root))
        if exchange:
            assert spark._jvm.io.kvlog.spark.KvlogSource.lastSinkExchange() == exchange
            layout = spark._jvm.io.kvlog.spark.KvlogSource.lastSinkTaskPartitions().strip(";").split(";")
            tps = [tp for task in layout for tp in task.split(",") if tp]
            assert len(tps) == len(set(tps)) == 15
    for topic in ("topic0", "topic1", "topic2"):
        want = {p: sorted(r[2] for r in v[2]) for p, v in contents(roots[None], topic).items()}
        for exchange in ("batches", "rows"):
            got = contents(roots[exchange], topic)
            assert {p: sorted(r[2] for r in v[2]) for p, v in got.items()} == want
            assert all([r[0] for r in v[2]] == list(range(v[1])) for v in got.values())
    assert sum(len(v[2]) for t in ("topic0", "topic1", "topic2") for v in contents(roots["batches"], t).values()) \
        == 2500


def _last_write_plan(spark):
    store = spark._jsparkSession.sharedState().statusStore()
    plans = [store.executionsList().apply(i).physicalPlanDescription() for i in range(store.executionsList().size())]
    return [p for p in plans if "AppendData" in p or "OverwriteByExpression" in p][-1]


def test_adaptive_execution_runs_a_write_after_a_shuffle_once(spark, tmp_path, adaptive):
    """With adaptive execution on and a shuffle below the write, the write runs and commits once: an append adds one
    committed-offsets version and its rows, an overwrite leaves exactly its own rows visible. Adaptive execution
    wraps the write's input and re-plans the batch exchange as itself."""
    df = spark.range(5000).selectExpr("id % 100 as g").groupBy("g").count() \
        .selectExpr("cast(g as string) as key", "cast(count as string) as value")
    root = tmp_path / "d"
    for mode, visible in (("append", 100), ("append", 200), ("overwrite", 100)):
        df.write.format("kvlog").mode(mode).option("topic", "t").option("partitions", "4").save(str(root))
        assert spark._jvm.io.kvlog.spark.KvlogSource.lastSinkExchange() == "batches"
        assert len(jvm_rows(spark, root)) == visible
        plan = _last_write_plan(spark)
        assert "AdaptiveSparkPlan" in plan and "== Final Plan ==" in plan and "KvlogSinkExchange" in plan
        final = plan.split("== Final Plan ==")[1].split("== Initial Plan ==")[0]
        assert "KvlogSinkExchange" in final and "AppendData" not in final and "OverwriteByExpression" not in final
    versions = sorted(n for n in os.listdir(root) if n.startswith("kvlog-committed-offsets."))
    assert versions[-1].endswith("3")  # three writes, three commits
    assert leftovers(root) == []


def test_a_task_before_the_exchange_bounds_its_open_batches(spark, tmp_path):
    """One input task, 8 partitions: with kvlog.maxOpenBytes small the task closes all its open batches whenever
    they hold more (smaller batches, same records); the default keeps one batch per partition here."""
    df = spark.range(20000, numPartitions=1).selectExpr("cast(concat('k', id) as binary) as key",
                                                         "cast(repeat('v', 100) as binary) as value")
    counts = {}
    for label, bound in (("default", None), ("bounded", "100000")):
        w = df.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "8") \
            .option("kvlog.maxBatchBytes", "4000000")
        (w.option("kvlog.maxOpenBytes", bound) if bound else w).save(str(tmp_path / label))
        counts[label] = sum(len(list(kvlog.MemoryRecords((tmp_path / label / f"t-{p}" / n).read_bytes()).batches()))
                            for p in range(8) for n in os.listdir(tmp_path / label / f"t-{p}") if n.endswith(".log"))
    assert counts["default"] == 8 and counts["bounded"] >= 8 * 4, counts  # held bytes are checked every 4096 rows
    got = {label: {p: sorted(r[2] for r in v[2]) for p, v in contents(tmp_path / label).items()}
           for label in ("default", "bounded")}
    assert got["default"] == got["bounded"]
    assert sum(len(v) for v in got["bounded"].values()) == 20000


def test_an_unknown_exchange_option_is_refused(spark, tmp_path):
    with pytest.raises(JVM_ERRORS, match="kvlog.sinkExchange must be"):
        spark.range(3).selectExpr("cast(id as string) as value").write.format("kvlog").mode("append") \
            .option("topic", "t").option("kvlog.sinkExchange", "bytes").save(str(tmp_path))


def test_topic_column_headers_string_columns_and_overwrite(spark, tmp_path):
    data = [(f"topic{i % 3}", f"k{i}", f"v{i}") for i in range(600)]
    df = spark.createDataFrame(data, "topic string, key string, value string")
    for fmt, root in (("kvlog", tmp_path / "jvm"), ("kvlog_python", tmp_path / "py")):
        df.write.format(fmt).mode("append").option("partitions", "2").save(str(root))
        df.where("topic = 'topic1'").limit(10).write.format(fmt).mode("overwrite").save(str(root))
    def untimed(root, topic):  # no timestamp column: each sink stamps the time of writing
        return {p: (s, e, [r[:3] + r[4:] for r in recs]) for p, (s, e, recs) in contents(root, topic).items()}

    for topic in ("topic0", "topic1", "topic2"):
        assert untimed(tmp_path / "jvm", topic) == untimed(tmp_path / "py", topic)
    after = contents(tmp_path / "jvm", "topic1")
    assert sum(len(v[2]) for v in after.values()) == 10  # overwrite emptied the topic first
    assert all(v[0] > 0 for v in after.values())  # its log start moved: offsets never go backwards
    assert sum(len(v[2]) for v in contents(tmp_path / "jvm", "topic0").values()) == 200


def test_what_the_jvm_sink_wrote_reads_alike_everywhere(spark, tmp_path):
    df = rows_df(spark, 2500, seed=4, slices=3)
    df.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "3") \
        .option("compression", "lz4").save(str(tmp_path))
    assert jvm_rows(spark, tmp_path) == python_rows(spark, tmp_path)
    got = contents(tmp_path)
    for p, (_s, end, recs) in got.items():
        part = tmp_path / f"t-{p}"
        report = verify_partition(str(part))
        assert not report.errors, report.errors
        seg = sorted(n for n in os.listdir(part) if n.endswith(".log"))[0]
        buf = (part / seg).read_bytes()
        want = [(o, k, v) for o, k, v, _ts, _h in recs]
        for peer in ("aiokafka-c", "aiokafka-py"):
            if peer_can_decode(peer, 2, 3):
                decoded = [(r["offset"], r["key"], r["value"]) for b in peer_decode(peer, buf) for r in b["records"]]
                assert decoded == want, peer


def test_segment_bytes_rolls_segments_with_indexes(spark, tmp_path):
    with kvlog.LogManager(str(tmp_path)) as mgr:
        mgr.create_topic("t", 1, kvlog.LogConfig(segment_bytes=64 << 10, index_interval_bytes=1024))
    df = rows_df(spark, 5000, headers=False, slices=1)
    df.write.format("kvlog").mode("append").option("topic", "t").option("kvlog.maxBatchBytes", "16384") \
        .save(str(tmp_path))
    names = sorted(os.listdir(tmp_path / "t-0"))
    logs = [n for n in names if n.endswith(".log")]
    assert len(logs) >= 3
    assert all(n[:20] + ".index" in names and n[:20] + ".timeindex" in names for n in logs)
    assert all(os.path.getsize(tmp_path / "t-0" / n) <= 64 << 10 for n in logs)
    with kvlog.Log.open(str(tmp_path / "t-0"), read_only=True) as log:
        assert log.log_end_offset == 5000
        assert log.offset_for_timestamp(1_700_000_002_500).offset == 2500  # the time index leads there


# ------------------------------------------------------------------------------------------------ faults
def failing_df(spark, n, fail_at):
    """Rows whose value UDF raises at row ``fail_at`` of one slice: that task fails half way."""
    @F.udf("binary")
    def boom(i):
        if i == fail_at:
            raise RuntimeError("injected task failure")
        return f"v{i}".encode()

    return spark.range(n).repartition(2).select(F.col("id").cast("string").alias("key"), boom("id").alias("value"))


def test_a_failed_job_leaves_nothing_visible_and_no_files(spark, tmp_path):
    ok = spark.range(300).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "2").save(str(tmp_path))
    before = contents(tmp_path)
    with pytest.raises(Exception, match="injected task failure"):
        failing_df(spark, 5000, 4000).write.format("kvlog").mode("append").option("topic", "t") \
            .save(str(tmp_path))
    assert contents(tmp_path) == before
    assert jvm_rows(spark, tmp_path) == python_rows(spark, tmp_path)
    assert len(jvm_rows(spark, tmp_path)) == 300
    assert leftovers(tmp_path) == []
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))  # the next write works
    assert len(jvm_rows(spark, tmp_path)) == 600


def test_a_dead_writers_files_are_never_read_and_removed_by_the_next_write(spark, tmp_path):
    """A dead attempt (or a driver that died before publishing) leaves segment files past the committed end;
    no reader sees them, and the next write's planning removes them."""
    ok = spark.range(100).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    end = contents(tmp_path)[0][1]
    with kvlog.Log.open(str(tmp_path / "stray" / "t-0")) as stray:  # a valid segment at the committed end
        stray.truncate_fully_and_start_at(end)
        stray.append([kvlog.Record(b"ghost", b"ghost")] * 5)
        stray.flush()
    for n in os.listdir(tmp_path / "stray" / "t-0"):
        if n[:20].isdigit() and n.endswith((".log", ".index", ".timeindex")):
            os.replace(tmp_path / "stray" / "t-0" / n, tmp_path / "t-0" / n)
    assert len(leftovers(tmp_path)) >= 1
    assert len(jvm_rows(spark, tmp_path)) == len(python_rows(spark, tmp_path)) == 100
    with kvlog.Log.open(str(tmp_path / "t-0"), read_only=True) as log:
        assert log.log_end_offset == end
        assert b"ghost" not in {r.value for r in log.records()}
    report = verify_partition(str(tmp_path / "t-0"))  # kvlog verify: not an error, not part of the log
    assert not report.errors, report.errors
    assert any("not committed" in w.message for w in report.warnings)
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    assert leftovers(tmp_path) == []
    assert b"ghost" not in {r[3] for r in jvm_rows(spark, tmp_path)}
    assert len(jvm_rows(spark, tmp_path)) == 200


def test_a_live_lease_refuses_a_second_job_and_a_stale_one_does_not(spark, tmp_path):
    ok = spark.range(50).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    import time
    lease = tmp_path / f"{committed_offsets.LEASE_PREFIX}batch-other"
    lease.write_text(f"{int(time.time() * 1000)} t -\n")
    with pytest.raises(JVM_ERRORS, match="another kvlog write is in progress"):
        ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    with pytest.raises(kvlog.LogLockedError, match="Spark write is in progress"):
        kvlog.Log.open(str(tmp_path / "t-0"))  # a local writer would interleave too
    ok.write.format("kvlog").mode("append").option("topic", "other").save(str(tmp_path))  # other topics go on
    ok.write.format("kvlog").mode("append").option("topic", "t").option("kvlog.leaseTimeoutMs", "0") \
        .save(str(tmp_path))  # a dead job's lease, declared stale
    assert len(jvm_rows(spark, tmp_path)) == 100
    lease.unlink()


def test_a_driver_that_died_after_publishing_blocks_nothing(spark, tmp_path):
    """The commit published (the job is visible) but the driver died before releasing its lease."""
    ok = spark.range(80).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    job = committed_offsets.latest(str(tmp_path)).job
    import time
    (tmp_path / f"{committed_offsets.LEASE_PREFIX}{job}").write_text(f"{int(time.time() * 1000)} t -\n")
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    assert len(jvm_rows(spark, tmp_path)) == 160
    assert leftovers(tmp_path) == []


def test_concurrent_jobs_on_one_partition_never_interleave(spark, tmp_path):
    ok = spark.range(2000).selectExpr("cast(id % 10 as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    errors: list[BaseException] = []

    def write():
        try:
            ok.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = len(jvm_rows(spark, tmp_path))
    assert n in (4000, 6000)  # one job, or both one after the other; never part of one
    assert (n == 4000) == (len(errors) == 1)
    for e in errors:
        assert "another kvlog write" in str(e) or "another job" in str(e)
    got = contents(tmp_path)
    assert [r[0] for r in got[0][2]] == list(range(got[0][1]))
    assert leftovers(tmp_path) == []


FILE_SYSTEMS = {"createonly": "io.kvlog.spark.write.WriterBlocksForTests$CreateOnlyFileSystem",
                "condcreate": "io.kvlog.spark.write.ConditionalCreateForTests$ConditionalCreateFileSystem"}


@pytest.mark.parametrize("scheme", sorted(FILE_SYSTEMS))
def test_no_rename_needed(spark, tmp_path, scheme):
    """Through createonly:// (rename, append and truncate throw, as on an object store) and condcreate:// (the
    same, and exclusive creation decided when the upload completes, as S3A's conditional PUT)."""
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    conf.set(f"fs.{scheme}.impl", FILE_SYSTEMS[scheme])
    conf.set(f"fs.{scheme}.impl.disable.cache", "true")
    try:
        df = rows_df(spark, 1200, slices=2)
        uri = f"{scheme}://{tmp_path}"
        df.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "2").save(uri)
        df.write.format("kvlog").mode("append").option("topic", "t").save(uri)
        got = spark.read.format("kvlog").option("subscribe", "t").load(uri).count()
    finally:
        conf.unset(f"fs.{scheme}.impl")
        conf.unset(f"fs.{scheme}.impl.disable.cache")
    assert got == 2400
    assert sum(len(v[2]) for v in contents(tmp_path).values()) == 2400
    assert not [n for n in os.listdir(tmp_path / "t-0") if ".pending-" in n]


def test_a_store_that_decides_at_completion_lets_exactly_one_creator_win(spark, tmp_path):
    """S3A's conditional create fails the loser at close(): ExclusiveCreate reports that as the file existing,
    so two tasks or two commits racing for one name never both succeed and the winner's bytes stay."""
    hooks = spark._jvm.io.kvlog.spark.write.ConditionalCreateForTests
    for n in range(5):
        lines = hooks.race(str(tmp_path / f"f{n}"), 4).split("\n")
        outcomes, content = lines[:4], lines[4]
        assert sorted(outcomes) == ["lost FileAlreadyExistsException"] * 3 + ["won"], outcomes
        assert content == f"writer {outcomes.index('won')}"
    for v in range(1, 6):
        assert hooks.publishRace(str(tmp_path / "root"), v, 4) == 1
    assert len([n for n in os.listdir(tmp_path / "root") if n.startswith(committed_offsets.PREFIX)]) == 5


def test_the_version_that_governs_a_directory_is_not_the_jobs_own(spark, tmp_path):
    """A directory nobody governed is first committed as it is; that version names a job of its own, so a job
    that dies after it has not released its lease (the next writer must still wait for it)."""
    with kvlog.Log.open(str(tmp_path / "t-0")) as log:
        log.append([kvlog.Record(b"k", b"v", 1)])
    spark.range(5).selectExpr("cast(cast(id as string) as binary) as value").write.format("kvlog") \
        .mode("append").option("topic", "t").save(str(tmp_path))
    first = committed_offsets.parse((tmp_path / committed_offsets.file_name(1)).read_bytes(), 1, 2)
    second = committed_offsets.parse((tmp_path / committed_offsets.file_name(2)).read_bytes(), 2, 2)
    assert first.job == second.job + ".govern"
    assert first.partitions == {("t", 0): (0, 1)} and second.partitions == {("t", 0): (0, 6)}


def test_refusals_are_clear(spark, tmp_path):
    df = spark.range(3).selectExpr("cast(cast(id as string) as binary) as value")
    with pytest.raises(JVM_ERRORS, match="internal topic"):
        df.write.format("kvlog").mode("append").option("topic", "__consumer_offsets").save(str(tmp_path))
    with pytest.raises(JVM_ERRORS, match="'value' column"):
        spark.range(3).write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    with pytest.raises(JVM_ERRORS, match="topic"):
        df.write.format("kvlog").mode("append").save(str(tmp_path))
    with pytest.raises(JVM_ERRORS, match="partition 9 does not exist"):
        spark.range(3).selectExpr("cast(cast(id as string) as binary) as value", "9 as partition") \
            .write.format("kvlog").mode("append").option("topic", "t").option("partitions", "2").save(str(tmp_path))
    with pytest.raises(Exception, match=r'mode\("append"\)'):
        df.write.format("kvlog").option("topic", "t").save(str(tmp_path))
    assert leftovers(tmp_path) == [] if tmp_path.exists() else True


# --------------------------------------------------------------------------------------------- streaming
def test_stream_epochs_apply_exactly_once_across_restarts(spark, tmp_path):
    src, dst, ckpt = tmp_path / "src", tmp_path / "dst", tmp_path / "ckpt"
    rows = spark.range(3000).selectExpr("cast(id % 50 as string) as key", "cast(id as string) as value")
    rows.write.format("kvlog").mode("append").option("topic", "in").option("partitions", "2").save(str(src))

    def run():
        q = (spark.readStream.format("kvlog").option("subscribe", "in").option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", "1000").load(str(src)).select("key", "value")
             .writeStream.format("kvlog").option("topic", "out").option("partitions", "3")
             .option("checkpointLocation", str(ckpt)).trigger(availableNow=True).start(str(dst)))
        q.awaitTermination()
        return q

    run()
    assert len(jvm_rows(spark, dst, "out")) == 3000
    # each micro-batch through the batch exchange: a writer task per partition, not one task for all
    assert spark._jvm.io.kvlog.spark.KvlogSource.lastSinkExchange() == "batches"
    layout = spark._jvm.io.kvlog.spark.KvlogSource.lastSinkTaskPartitions().strip(";").split(";")
    assert sorted(layout) == ["out-0", "out-1", "out-2"], layout
    # a restart that replays the last micro-batch (Spark's own commit record of it lost): applied once
    commits = sorted(int(n) for n in os.listdir(ckpt / "commits") if n.isdigit())
    for name in (str(commits[-1]), f".{commits[-1]}.crc"):
        if (ckpt / "commits" / name).exists():
            os.unlink(ckpt / "commits" / name)
    run()
    out = jvm_rows(spark, dst, "out")
    assert len(out) == 3000
    assert sorted(int(r[3]) for r in out) == list(range(3000))
    assert leftovers(dst) == []
    sinks = committed_offsets.latest(str(dst)).sinks
    assert list(sinks.values()) == [commits[-1]]


def test_a_torn_tail_is_refused_until_recovered(spark, tmp_path):
    """A copy of a log whose last segment ends in a partial batch: new records must follow the last valid
    batch, so the write refuses (naming the fix) instead of leaving garbage inside the committed range."""
    with kvlog.LogManager(str(tmp_path)) as mgr:
        mgr.create_topic("t", 1)
        log = mgr.log("t", 0)
        for i in range(10):
            log.append([kvlog.Record(b"k", b"v%d" % i)])
        log.flush()
    with open(tmp_path / "t-0" / "00000000000000000000.log", "ab") as f:
        f.write(b"\0" * 8 + b"\0\0\0\x30" + b"torn tail")
    df = spark.range(5).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    with pytest.raises(JVM_ERRORS, match="not a whole record batch.*recover it first"):
        df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    assert leftovers(tmp_path) == []
    kvlog.Log.open(str(tmp_path / "t-0")).close()  # recovery sets the torn bytes aside
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    assert [r[1] for r in jvm_rows(spark, tmp_path)] == list(range(15))
    assert jvm_rows(spark, tmp_path) == python_rows(spark, tmp_path)


def test_a_read_only_view_refreshes_to_the_committed_end_only(spark, tmp_path):
    df = spark.range(100).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    view = kvlog.Log.open(str(tmp_path / "t-0"), read_only=True)
    assert view.log_end_offset == 100
    with kvlog.Log.open(str(tmp_path / "stray" / "t-0")) as stray:  # an in-flight job's segment, not committed
        stray.truncate_fully_and_start_at(100)
        stray.append([kvlog.Record(b"x", b"uncommitted")] * 3)
        stray.flush()
    for n in os.listdir(tmp_path / "stray" / "t-0"):
        if n[:20].isdigit() and n.endswith((".log", ".index", ".timeindex")):
            os.replace(tmp_path / "stray" / "t-0" / n, tmp_path / "t-0" / n)
    assert view.refresh() == 100  # the new segment is not committed: not part of the log
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))  # removes it, appends
    assert view.refresh() == 200
    assert [r.value for r in view.records(195)] == [str(i).encode() for i in range(95, 100)]
    df.write.format("kvlog").mode("overwrite").option("topic", "t").save(str(tmp_path))
    assert view.refresh() == 300 and view.log_start_offset == 200
    view.close()


def test_a_local_writer_and_a_job_exclude_each_other(spark, tmp_path):
    """A process with a partition open for writing holds the root's local lease: a job on this machine is
    refused while that process lives, and a dead process's lease is removed by the next job."""
    df = spark.range(30).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    leases = lambda: sorted(n for n in os.listdir(tmp_path) if n.startswith(committed_offsets.LEASE_PREFIX))  # noqa: E731
    assert leases() == []
    writer = kvlog.Log.open(str(tmp_path / "t-0"))
    other = kvlog.Log.open(str(tmp_path / "u-0"))  # a second log of the same process: one lease
    assert len(leases()) == 1 and leases()[0].endswith(f"-{os.getpid()}")
    with pytest.raises(JVM_ERRORS, match=f"local kvlog writer \\(process {os.getpid()}"):
        df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    writer.append([kvlog.Record(b"local", b"local")])
    writer.close()
    assert len(leases()) == 1
    other.close()
    assert leases() == []
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    got = jvm_rows(spark, tmp_path)
    assert len(got) == 61 and [r[1] for r in got if r[0] == 0] == list(range(len([r for r in got if r[0] == 0])))
    dead = tmp_path / (committed_offsets.LEASE_PREFIX + f"local-{committed_offsets._host()}-999999999")
    dead.write_text(f"1 * local {committed_offsets._host()} 999999999\n")  # a writer that died, never closed
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    assert not dead.exists() and len(jvm_rows(spark, tmp_path)) == 91


def test_planning_removes_leftovers_only_where_the_job_writes(spark, tmp_path):
    """Files past a committed end are a failed job's leftovers only in partitions the job may write: an internal
    topic's (a broker appending to __consumer_offsets) and another topic's stay where they are."""
    for tp in ("t-0", "other-0", "__consumer_offsets-0"):
        with kvlog.Log.open(str(tmp_path / tp)) as log:
            log.append([kvlog.Record(b"k", b"v", 1)])
    df = spark.range(3).selectExpr("cast(cast(id as string) as binary) as value")
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))  # governs the directory
    late = {}
    for tp in ("other-0", "__consumer_offsets-0"):
        with kvlog.Log.open(str(tmp_path / tp), read_only=True) as log:
            end = log.log_end_offset
        name = f"{end:020d}.log"
        (tmp_path / tp / name).write_bytes((tmp_path / tp / f"{0:020d}.log").read_bytes())
        late[tp] = name
    df.write.format("kvlog").mode("append").option("topic", "t").save(str(tmp_path))
    for tp, name in late.items():
        assert (tmp_path / tp / name).exists(), tp
    assert sum(len(v[2]) for v in contents(tmp_path).values()) == 7


def test_spark_buckets_agree_with_sparks_own_hash(spark):
    """The clustering values put partition p in shuffle partition p of n, by Spark's SQL hash() (the same Murmur3
    with seed 42 as its hash partitioning): the oracle is Spark itself, not our copy of the formula."""
    buckets = spark._jvm.io.kvlog.spark.write.WriterBlocksForTests
    cases = [(p, n, buckets.sparkBucketKey(p, n)) for n in (1, 2, 3, 4, 7, 12, 64, 1000) for p in range(n)]
    df = spark.createDataFrame(cases, "p int, n int, v int")
    got = {(r.p, r.n): r.b for r in df.selectExpr("p", "n", "pmod(hash(v), n) as b").collect()}
    assert all(got[(p, n)] == p for p, n, _v in cases)


@pytest.mark.parametrize("key", ["nullable", "never null", "none", "partition column"])
def test_a_one_topic_write_gives_each_kafka_partition_a_task_of_its_own(spark, tmp_path, key):
    n = 6
    df = spark.range(3000).selectExpr("cast(cast(id * 7 as string) as binary) as k", "cast(id as string) as value",
                                      "cast(id % 6 as int) as p")
    if key == "nullable":
        df = df.selectExpr("if(cast(value as int) % 5 = 0, null, k) as key", "value")
    elif key == "never null":
        df = df.selectExpr("k as key", "value")
        assert not df.schema["key"].nullable
    elif key == "none":
        df = df.select("value")
    else:
        df = df.selectExpr("k as key", "value", "if(cast(value as int) % 3 = 0, p, null) as partition")
    df.repartition(3).write.format("kvlog").mode("append").option("topic", "t").option("partitions", str(n)) \
        .save(str(tmp_path / "jvm"))
    layout = spark._jvm.io.kvlog.spark.KvlogSource.lastSinkTaskPartitions().strip(";").split(";")
    assert sorted(layout) == [f"t-{p}" for p in range(n)], layout
    got = contents(tmp_path / "jvm")
    assert sum(len(v[2]) for v in got.values()) == 3000
    py = tmp_path / "py"
    df.coalesce(1).write.format("kvlog_python").mode("append").option("topic", "t").option("partitions", str(n)) \
        .save(str(py))
    assert {p: sorted(r[2] for r in v[2]) for p, v in got.items()} == \
        {p: sorted(r[2] for r in v[2]) for p, v in contents(py).items()}
