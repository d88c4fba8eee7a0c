"""The JVM engine on an object store: ``format("kvlog")`` through Hadoop's S3A connector (hadoop-aws, fetched by
``make spark-jars`` into build/spark-jars/s3a/ and put on the test session by tests/conftest.py) against moto's S3.

* the JVM scan of ``s3a://`` (S3A settings in the session) and of ``s3://`` URIs carrying pyarrow's credentials and
  query (translated into the bucket's S3A settings: tests/test_spark_strict_options.py checks the plan) returns,
  row by row, what the Python source returns from the same objects and what the JVM scan returns from the local
  directory they were uploaded from;
* the JVM sink writes to ``s3://`` what it writes locally, and both engines read it back alike;
* its exactly-once guarantees hold there: a failed job leaves nothing visible, a live lease refuses a second job,
  a stream's replayed micro-batch is applied once, a committed job's leftover lease blocks nothing;
* exclusive creation is S3's conditional create (``If-None-Match: *``, S3A's
  ``fs.option.create.conditional.overwrite``): of writers racing for one name exactly one wins, at close.

Without the jars these tests skip (``make spark-jars`` fetches them; ``make test`` does).
"""

from __future__ import annotations

import json
import os
import time

import pyarrow.fs as pafs
import pytest

import kvlog
from kvlog import LogConfig, LogManager, Record, committed_offsets

pytest.importorskip("pyspark")
pytest.importorskip("moto")
pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("s3a")]

COLUMNS = ("topic", "partition", "offset", "key", "value", "timestamp", "timestampType", "headers")


@pytest.fixture(scope="module")
def s3a(jvm, s3):
    """The session's S3A settings for moto's bucket (as an S3A user configures them), removed afterwards."""
    from s3_support import ACCESS_KEY, BUCKET, SECRET_KEY, session_has_s3a

    if not session_has_s3a(jvm):
        pytest.skip("no S3A on the test session: `make spark-jars` fetches hadoop-aws into build/spark-jars/s3a/")
    conf = jvm.sparkContext._jsc.hadoopConfiguration()
    prefix = f"fs.s3a.bucket.{BUCKET}."
    settings = {"access.key": ACCESS_KEY, "secret.key": SECRET_KEY, "endpoint": f"http://{s3.host}:{s3.port}",
                "path.style.access": "true", "endpoint.region": "us-east-1", "connection.ssl.enabled": "false"}
    fs = jvm._jvm.org.apache.hadoop.fs.FileSystem
    bucket = jvm._jvm.java.net.URI.create(f"s3a://{BUCKET}/")
    for k, v in settings.items():
        conf.set(prefix + k, v)
    fs.get(bucket, conf).close()  # a file system cached for the bucket with another module's endpoint: built anew
    yield conf
    for k in settings:
        conf.unset(prefix + k)
    fs.get(bucket, conf).close()


def s3a_uri(key: str) -> str:
    from s3_support import BUCKET

    return f"s3a://{BUCKET}/{key}"


def rows(df) -> list[tuple]:
    def b(v):
        return None if v is None else bytes(v)

    out = []
    for r in df.select(*COLUMNS).collect():
        headers = None if r["headers"] is None else tuple((h["key"], b(h["value"])) for h in r["headers"])
        out.append((r["topic"], r["partition"], r["offset"], b(r["key"]), b(r["value"]), r["timestamp"],
                    r["timestampType"], headers))
    return sorted(out)


def read(spark, fmt: str, where: str, **opts: str):
    r = spark.read.format(fmt).option("includeHeaders", "true")
    for k, v in opts.items():
        r = r.option(k, v)
    return r.load(where)


def write_topics(root) -> None:
    """Two topics of kvlog-written batches: headers (a null value, repeated keys), null keys and values, codecs,
    two segments."""
    with LogManager(str(root), LogConfig(segment_bytes=4096)) as mgr:
        for topic, parts, codec in (("plain", 2, "none"), ("packed", 3, "lz4")):
            for p, log in enumerate(mgr.create_topic(topic, parts)):
                for b in range(6):
                    recs = [Record(None if i % 5 == 0 else b"k%d" % (i % 7),
                                   None if i % 9 == 4 else b"%s-%d-%d-%d" % (topic.encode(), p, b, i) * (1 + i % 3),
                                   1_767_225_600_000 + b * 1000 + i,
                                   headers=() if i % 2 else (("h", b"x"), ("h", None), ("n", b"%d" % i)))
                            for i in range(40)]
                    log.append(kvlog.encode_batch(recs, compression=codec))
                log.flush()


def test_jvm_scan_on_s3a_returns_what_the_python_source_and_the_local_scan_return(jvm, s3, s3a, tmp_path):
    local = tmp_path / "local"
    write_topics(local)
    key = s3.new_prefix()
    s3.upload(local, key)
    cases = [{"subscribePattern": ".*"},
             {"subscribe": "packed", "startingOffsets": json.dumps({"packed": {"0": 17, "1": -2, "2": 100}}),
              "endingOffsets": json.dumps({"packed": {"0": 200, "1": -1, "2": 230}})},
             {"assign": json.dumps({"plain": [1], "packed": [0]}),
              "startingOffsetsByTimestamp": json.dumps({"plain": {"1": 1_767_225_603_000},
                                                        "packed": {"0": 1_767_225_602_010}})}]
    for opts in cases:
        want = rows(read(jvm, "kvlog", str(local), **opts))
        assert want
        assert rows(read(jvm, "kvlog", s3a_uri(key), **opts)) == want, opts  # the JVM scan over S3A
        assert rows(read(jvm, "kvlog", s3.uri(key), **opts)) == want, opts  # s3:// with credentials: S3A too
        assert rows(read(jvm, "kvlog_python", s3.uri(key), **opts)) == want, opts  # the Python source, pyarrow
    plan = read(jvm, "kvlog", s3.uri(key), subscribe="plain").select("offset")._jdf.queryExecution() \
        .executedPlan().toString()
    assert "columns struct<offset:bigint>" in plan and "kvlog_python" not in plan, plan  # column pruning
    assert s3.canonical(key) in plan and "kvlogsecret" not in plan, plan


def test_jvm_sink_on_s3_writes_what_it_writes_locally(jvm, s3, s3a, tmp_path):
    from pyspark.sql import functions as F

    df = jvm.range(3000, numPartitions=3).select(
        F.format_string("k%d", F.col("id") % 97).cast("binary").alias("key"),
        F.concat(F.lit("v"), F.col("id").cast("string")).cast("binary").alias("value"),
        F.timestamp_millis(F.col("id") + F.lit(1_767_225_600_000)).alias("timestamp"),
        F.array(F.struct(F.lit("i").alias("key"), F.col("id").cast("string").cast("binary").alias("value")))
        .alias("headers"))
    local, key = str(tmp_path / "local"), s3.new_prefix()
    for codec in ("none", "zstd"):
        for where in (local, s3.uri(key)):
            (df.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "4")
             .option("compression", codec).save(where))
            assert jvm._jvm.io.kvlog.spark.KvlogSource.lastSinkExchange() in ("batches", "rows")  # the JVM sink
    want = rows(read(jvm, "kvlog", local, subscribe="t"))
    assert len(want) == 6000
    assert rows(read(jvm, "kvlog", s3a_uri(key), subscribe="t")) == want
    assert rows(read(jvm, "kvlog_python", s3.uri(key), subscribe="t")) == want
    names = {i.path.rsplit("/", 2)[-2] for i in s3.fs.get_file_info(pafs.FileSelector(f"kvlog-tests/{key}",
                                                                                       recursive=True))
             if i.path.endswith(".log")}
    assert names == {f"t-{p}" for p in range(4)}


def test_a_failed_job_leaves_nothing_visible_and_a_live_lease_refuses_a_second(jvm, s3, s3a):
    from pyspark.sql import functions as F

    key = s3.new_prefix()
    uri = s3.uri(key)
    ok = jvm.range(300).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").option("partitions", "2").save(uri)

    @F.udf("binary")
    def boom(i):
        if i == 900:
            raise RuntimeError("injected task failure")
        return f"v{i}".encode()

    failing = jvm.range(1200).repartition(2).select(F.col("id").cast("string").alias("key"), boom("id").alias("value"))
    with pytest.raises(Exception, match="injected task failure"):
        failing.write.format("kvlog").mode("append").option("topic", "t").save(uri)
    assert len(rows(read(jvm, "kvlog", uri, subscribe="t"))) == 300
    assert len(rows(read(jvm, "kvlog_python", uri, subscribe="t"))) == 300
    s3.put(f"{key}/{committed_offsets.LEASE_PREFIX}batch-other", f"{int(time.time() * 1000)} t -\n".encode())
    with pytest.raises(Exception, match="another kvlog write is in progress"):
        ok.write.format("kvlog").mode("append").option("topic", "t").save(uri)
    ok.write.format("kvlog").mode("append").option("topic", "t").option("kvlog.leaseTimeoutMs", "0").save(uri)
    assert len(rows(read(jvm, "kvlog", uri, subscribe="t"))) == 600


def test_exclusive_create_on_s3a_is_s3s_conditional_create(jvm, s3, s3a):
    """S3A (Hadoop 3.5) offers fs.option.create.conditional.overwrite: a PUT with If-None-Match: *, which S3 (moto
    here) refuses with 412 when the name exists. Of writers opened together, one wins at close, the others lose with
    FileAlreadyExistsException, and the winner's bytes stay; of commits racing for one version, one is published."""
    hooks = jvm._jvm.io.kvlog.spark.write.ConditionalCreateForTests
    key = s3.new_prefix()
    assert hooks.conditionalAt(s3a_uri(f"{key}/probe"), s3a)
    for n in range(3):
        lines = hooks.raceAt(s3a_uri(f"{key}/f{n}"), 3, s3a).split("\n")
        outcomes, content = lines[:3], lines[3]
        assert sorted(outcomes) == ["lost FileAlreadyExistsException"] * 2 + ["won"], outcomes
        assert content == f"writer {outcomes.index('won')}"
    for v in range(1, 4):
        assert hooks.publishRaceAt(s3a_uri(f"{key}/root"), v, 3, s3a) == 1


def test_a_stream_into_s3_applies_a_replayed_micro_batch_once(jvm, s3, s3a, tmp_path):
    """The JVM sink as a stream's sink on S3: a restart that replays the last micro-batch (Spark's own commit
    record of it lost) adds nothing; the directory's committed version names that batch for the sink."""
    src, ckpt, key = str(tmp_path / "src"), tmp_path / "ckpt", s3.new_prefix()
    dst = s3.uri(key)
    jvm.range(1500).selectExpr("cast(id % 50 as string) as key", "cast(id as string) as value") \
        .write.format("kvlog").mode("append").option("topic", "in").option("partitions", "2").save(src)

    def run():
        q = (jvm.readStream.format("kvlog").option("subscribe", "in").option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", "500").load(src).select("key", "value")
             .writeStream.format("kvlog").option("topic", "out").option("partitions", "3")
             .option("checkpointLocation", str(ckpt)).trigger(availableNow=True).start(dst))
        try:
            assert q.awaitTermination(300)
        finally:
            q.stop()

    run()
    commits = sorted(int(n) for n in os.listdir(ckpt / "commits") if n.isdigit())
    assert len(commits) >= 2
    for name in (str(commits[-1]), f".{commits[-1]}.crc"):
        if (ckpt / "commits" / name).exists():
            (ckpt / "commits" / name).unlink()
    run()
    out = rows(read(jvm, "kvlog", s3a_uri(key), subscribe="out"))
    assert sorted(int(r[4]) for r in out) == list(range(1500))
    assert rows(read(jvm, "kvlog_python", dst, subscribe="out")) == out
    from kvlog.spark import _remote

    assert list(committed_offsets.latest(_remote.canonical(dst)[0]).sinks.values()) == [commits[-1]]


@pytest.mark.parametrize("uri,path,settings", [
    ("s3://AK:S%2Fe%2Bc@bkt/a/b?endpoint_override=127.0.0.1:9000&scheme=http&region=eu-west-1", "s3://bkt/a/b",
     {"access.key": "AK", "secret.key": "S/e+c", "endpoint": "http://127.0.0.1:9000", "path.style.access": "true",
      "connection.ssl.enabled": "false", "endpoint.region": "eu-west-1",
      "aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"}),
    ("s3a://bkt/dir?region=us-east-2&session_token=TOK", "s3a://bkt/dir",
     {"endpoint.region": "us-east-2", "session.token": "TOK",
      "aws.credentials.provider": "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"}),
    ("s3://bkt/plain", "s3://bkt/plain", {}),
    ("s3://bkt/x?endpoint_override=https://minio.example:9000", "s3://bkt/x",
     {"endpoint": "https://minio.example:9000", "path.style.access": "true"}),
    ("/local/dir", "/local/dir", {}),
    ("gs://bkt/dir?x=1", "gs://bkt/dir?x=1", {}),
])
def test_an_s3_uris_credentials_and_query_become_the_buckets_s3a_settings(jvm, uri, path, settings):
    """What the JVM engine makes of a URI written for the Python source (pyarrow's user info and query): the path
    without them, and the bucket's S3A settings (percent-decoded); other schemes are left alone."""
    hooks = jvm._jvm.io.kvlog.spark.fs.S3aRouteForTests
    assert hooks.path(uri) == path
    got = dict(line.split("=", 1) for line in hooks.settings(uri).splitlines())
    assert got == {f"fs.s3a.bucket.bkt.{k}": v for k, v in settings.items()}


def test_a_driver_that_died_after_publishing_on_s3_blocks_nothing(jvm, s3, s3a):
    """The commit was published (the job is visible) but the driver died before removing its lease object: the
    next job sees that the lease's job is committed and goes on."""
    from kvlog.spark import _remote

    key = s3.new_prefix()
    uri = s3.uri(key)
    ok = jvm.range(80).selectExpr("cast(id as string) as key", "cast(cast(id as string) as binary) as value")
    ok.write.format("kvlog").mode("append").option("topic", "t").save(uri)
    job = committed_offsets.latest(_remote.canonical(uri)[0]).job
    s3.put(f"{key}/{committed_offsets.LEASE_PREFIX}{job}", f"{int(time.time() * 1000)} t -\n".encode())
    ok.write.format("kvlog").mode("append").option("topic", "t").save(uri)
    assert len(rows(read(jvm, "kvlog", uri, subscribe="t"))) == 160
    leases = [i.base_name for i in s3.fs.get_file_info(pafs.FileSelector(f"kvlog-tests/{key}"))
              if i.base_name.startswith(committed_offsets.LEASE_PREFIX)]
    assert leases == []


def test_a_scan_asks_s3_for_each_file_a_bounded_number_of_times(jvm, s3, s3a, tmp_path):
    """Each request to a store costs a round trip (moto here: 5-15 ms): the JVM scan of a ``kvlog backup`` asks once
    for an index's status (its existence, length and stream were three requests) and at most three times for a
    segment's (five before; counted from moto's own request log)."""
    import logging
    import re

    from kvlog.backup.run import backup

    local = tmp_path / "local"
    with LogManager(str(local), LogConfig(segment_bytes=1 << 16, index_interval_bytes=1024)) as mgr:
        for p, log in enumerate(mgr.create_topic("packed", 3)):
            for b in range(30):
                log.append([Record(b"k%d" % i, b"%d-%d-%d " % (p, b, i) * 12) for i in range(40)],
                           compression="lz4" if b % 2 else "none")
    key = s3.new_prefix()
    assert not backup(str(local), s3.uri(key), topics=["packed"]).errors  # (no root checkpoints: segments are read
    seen: list[str] = []                                                  # to their ends through the indexes)

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    log = logging.getLogger("werkzeug")
    handler, level = Collect(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        got = rows(read(jvm, "kvlog", s3a_uri(key), subscribe="packed"))
    finally:
        log.setLevel(level)
        log.removeHandler(handler)
    assert got == rows(read(jvm, "kvlog", str(local), subscribe="packed"))
    heads: dict[str, int] = {}
    for line in seen:
        m = re.search(r'HEAD /[^ ]*/' + key + r'/(packed-\d+/\d{20}\.(log|index)) ', line)
        if m:
            heads[m.group(1)] = heads.get(m.group(1), 0) + 1
    segments = [f"packed-{p}/{f.name}" for p in range(3) for f in sorted((local / f"packed-{p}").glob("*.log"))]
    assert len(segments) >= 6 and set(segments) <= set(heads), (segments, heads)
    over = {k: n for k, n in heads.items() if n > (1 if k.endswith(".index") else 3)}
    assert not over, (over, heads)
