"""The Python sink (``format("kvlog_python")``) on an object store, through ``pyarrow.fs``, with the JVM sink's
rename-free protocol (``docs/spark.md``, "Exactly once without renames").

Oracles: the same rows written by the Python sink to a local directory and by the JVM sink, and both read
engines over a local copy of the objects. Faults are injected at every step of the driver's commit as a
``kill -9`` would leave them: the step is interrupted and nothing after it runs (no clean-up, no lease
release). The state left must read exactly as before the job, and the same write run again must give every
record once.
"""

from __future__ import annotations

import os
import shutil
import threading
import time

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

import kvlog
from kvlog import committed_offsets, storage
from kvlog.cli import main as cli_main
from kvlog.verify import verify_partition
from kvlog.errors import LogLockedError
from kvlog.object_store import ObjectStore
from kvlog.spark import _remote, _staging

pytest.importorskip("pyspark")

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


# ------------------------------------------------------------------------------------------ helpers
def batch_of(n, *, seed=0, null_keys=True, explicit=False):
    keys = [None if null_keys and i % 7 == 3 else f"k{(i * 2654435761 + seed) % 389}".encode() for i in range(n)]
    values = [None if i % 101 == 50 else f"v-{seed}-{i}".encode() * (1 + i % 3) for i in range(n)]
    cols = {"key": pa.array(keys, pa.binary()), "value": pa.array(values, pa.binary()),
            "timestamp": pa.array([1_700_000_000 + seed + i * 0.001 for i in range(n)], pa.float64())}
    if explicit:
        cols["partition"] = pa.array([(i % 3) if i % 4 == 0 else None for i in range(n)], pa.int32())
    return pa.record_batch(cols)


def write(root, batch, *, job, topic="t", partitions=3, codec="none", overwrite=False, sink=None, batch_id=None):
    """One sink job as Spark runs it, without Spark: plan, one task staging the rows, the driver's commit."""
    opts = {"topic": topic, "partitions": str(partitions), "compression": codec}
    plan = _staging.plan(root, opts, batch.schema.names, overwrite, job=job)
    task = "task-0-0" if storage.is_remote(root) else os.path.join(_staging.job_dir(plan.root, job), "task-0-0")
    staged = _staging.stage_batches(plan, [batch], task)
    commit = _remote.commit if storage.is_remote(root) else _staging.commit
    return commit(plan, staged, sink=sink, batch_id=batch_id)


def contents(root, topic="t"):
    """Per partition: (log start, log end, [(offset, key, value, timestamp)]) through a read-only ``Log``."""
    out = {}
    with kvlog.LogManager(root, read_only=True) as mgr:
        if topic not in mgr.topics():
            return {}
        for p in mgr.partitions(topic):
            log = mgr.log(topic, p)
            out[p] = (log.log_start_offset, log.log_end_offset,
                      [(r.offset, r.key, r.value, r.timestamp) for r in log.records()])
    return out


def objects(s3, key):
    sel = pafs.FileSelector(f"kvlog-tests/{key}", recursive=True, allow_not_found=True)
    return sorted(i.path.split(f"{key}/", 1)[1] for i in s3.fs.get_file_info(sel) if i.type == pafs.FileType.File)


def download(s3, key, local):
    pafs.copy_files(f"kvlog-tests/{key}", str(local), source_filesystem=s3.fs,
                    destination_filesystem=pafs.LocalFileSystem())
    return str(local)


# ------------------------------------------------------------------------------------------ the driver's commit
@pytest.mark.parametrize("codec", [c if c in ("none", "zstd") else pytest.param(c, marks=pytest.mark.slow)
                                   for c in CODECS])  # the codecs share the local sink's encoder, tested there
def test_same_records_at_same_offsets_as_the_local_python_sink(s3, tmp_path, codec):
    uri, local = s3.uri(s3.new_prefix()), str(tmp_path / "local")
    for root in (uri, local):
        write(root, batch_of(700, seed=1, explicit=True), job="a", codec=codec)
        write(root, batch_of(300, seed=2), job="b", codec=codec)
    remote = contents(uri)
    assert remote == contents(local)
    assert sum(len(v[2]) for v in remote.values()) == 1000
    for _p, (start, end, recs) in remote.items():
        assert start == 0 and [r[0] for r in recs] == list(range(end))


def test_what_it_wrote_is_a_kafka_log_every_reader_agrees_on(s3, tmp_path):
    key = s3.new_prefix()
    uri = s3.uri(key)
    write(uri, batch_of(2000, seed=3), job="a", codec="lz4")
    names = objects(s3, key)
    assert "kvlog-committed-offsets.00000000000000000001" in names
    assert not [n for n in names if n.startswith((".kvlog-staging", committed_offsets.LEASE_PREFIX))]
    for p in range(3):
        assert {f"t-{p}/00000000000000000000{s}" for s in (".log", ".index", ".timeindex")} <= set(names)
    copy = download(s3, key, tmp_path / "copy")
    for p in range(3):  # the objects are the files a local append writes: verify and decode them as such
        report = verify_partition(os.path.join(copy, f"t-{p}"))
        assert not report.errors, report.errors
    assert contents(copy) == contents(uri)
    assert cli_main(["verify", uri]) == 0


def test_overwrite_moves_the_log_start_to_the_old_end(s3, tmp_path):
    uri, local = s3.uri(s3.new_prefix()), str(tmp_path / "local")
    for root in (uri, local):
        write(root, batch_of(400, seed=4), job="a")
        write(root, batch_of(50, seed=5), job="b", overwrite=True)
    remote = contents(uri)
    assert remote == contents(local)
    assert sum(len(v[2]) for v in remote.values()) == 50
    assert all(start > 0 or end == 0 for start, end, _ in remote.values())


def test_a_replayed_stream_epoch_is_applied_once(s3):
    uri = s3.uri(s3.new_prefix())
    write(uri, batch_of(100, seed=6), job="stream-q-0", sink="q", batch_id=0)
    got = write(uri, batch_of(100, seed=6), job="stream-q-0b", sink="q", batch_id=0)
    assert got["skipped"]
    write(uri, batch_of(10, seed=7), job="stream-q-1", sink="q", batch_id=1)
    assert sum(len(v[2]) for v in contents(uri).values()) == 110
    assert committed_offsets.latest(_remote.canonical(uri)[0]).sinks == {"q": 1}


def test_a_failed_task_leaves_nothing_and_abort_removes_its_objects(s3):
    key = s3.new_prefix()
    uri = s3.uri(key)
    write(uri, batch_of(100, seed=8), job="a")
    before = contents(uri)
    plan = _staging.plan(uri, {"topic": "t"}, ["key", "value"], False, job="failing")

    def rows():
        yield batch_of(50, seed=9)
        raise RuntimeError("the task died half way")

    with pytest.raises(RuntimeError):
        _staging.stage_batches(plan, rows(), "task-0-0")
    _remote.abort(uri, "failing")
    assert contents(uri) == before
    assert not [n for n in objects(s3, key) if n.startswith(".kvlog-staging")]


def test_a_live_lease_refuses_a_second_writer_and_names_it(s3):
    uri = s3.uri(s3.new_prefix())
    write(uri, batch_of(10), job="a")
    canonical, store = _remote.canonical(uri)
    _remote.take_lease(canonical, store, "other-job", "t", None)
    with pytest.raises(LogLockedError, match="kvlog-write-lease.other-job") as err:
        write(uri, batch_of(10, seed=1), job="b")
    assert "kvlogsecret" not in str(err.value)
    write(uri, batch_of(10, seed=2), job="c", topic="u")  # another topic is not covered by that lease
    _remote.release_lease(canonical, store, "other-job")
    write(uri, batch_of(10, seed=3), job="d")
    assert sum(len(v[2]) for v in contents(uri).values()) == 20


def test_concurrent_jobs_never_interleave(s3):
    """Three jobs at once: a job that finds another's lease (or took its own at the same moment) fails with
    LogLockedError and, as a user would, writes again; each ends up whole, one after another, never mixed."""
    import random

    uri = s3.uri(s3.new_prefix())
    write(uri, batch_of(30), job="first")
    refusals: list[str] = []

    def job(i):
        for attempt in range(60):
            try:
                write(uri, batch_of(200, seed=10 + i), job=f"job-{i}-{attempt}")
                return
            except LogLockedError as exc:
                refusals.append(str(exc))
                time.sleep(random.uniform(0.01, 0.2))

    threads = [threading.Thread(target=job, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = contents(uri)
    assert sum(len(v[2]) for v in got.values()) == 30 + 3 * 200
    assert refusals and all("kvlog-write-lease." in r or "same moment" in r for r in refusals)
    for _p, (_s, end, recs) in got.items():
        assert [r[0] for r in recs] == list(range(end))
    owner = {v: i for i in range(3) for v in batch_of(200, seed=10 + i).column("value").to_pylist() if v is not None}
    values = [r[2] for v in got.values() for r in v[2] if r[2] is not None]
    assert sorted(v for v in values if v in owner) == sorted(owner)  # each job's records once
    for _p, (_s, _e, recs) in got.items():  # and in one run per partition: jobs never interleave
        runs = []
        for r in recs:
            who = owner.get(r[2], runs[-1] if runs else None)  # a null value belongs to the run it is in
            if who is not None and (not runs or runs[-1] != who):
                runs.append(who)
        assert len(runs) == len(set(runs)), runs


# ------------------------------------------------------------------------------ a driver killed at any step
class Died(BaseException):
    """The driver process ends here: nothing after this point runs."""


STEPS = ["lease", "govern", "remove_uncommitted", "upload", "publish", "published"]


@pytest.mark.parametrize("step", STEPS)
def test_a_driver_killed_at_any_step_leaves_the_old_state_and_the_rerun_writes_once(s3, tmp_path, monkeypatch, step):
    """The directory starts as a copy of a log nobody governs (a broker backup); the job is killed at ``step``;
    then the same rows are written again by a new job. The oracle: the seed written with those rows once."""
    key = s3.new_prefix()
    uri = s3.uri(key)
    seed = tmp_path / "seed"
    write(str(seed), batch_of(120, seed=20), job="seed")
    for name in os.listdir(seed):
        if name.startswith(committed_offsets.PREFIX):
            os.unlink(seed / name)  # a copy nobody governs yet
    s3.upload(seed, key)
    before = contents(uri)
    rows = batch_of(300, seed=21)
    oracle = str(tmp_path / "oracle")

    shutil.copytree(seed, oracle)
    write(oracle, rows, job="oracle")

    real_delete, real_tree, real_upload = ObjectStore.delete, ObjectStore.delete_tree, ObjectStore.upload
    real_publish, real_remove = _remote.publish, _remote.remove_uncommitted
    dead = {"now": False}

    def die():
        dead["now"] = True
        raise Died(step)

    def quiet(real):
        def call(*a, **kw):
            if not dead["now"]:
                return real(*a, **kw)
        return call

    monkeypatch.setattr(ObjectStore, "delete", quiet(real_delete))  # a dead driver cleans nothing up
    monkeypatch.setattr(ObjectStore, "delete_tree", quiet(real_tree))
    monkeypatch.setattr(_remote, "release_lease", quiet(_remote.release_lease))
    publishes = []

    def publish(*a, **kw):
        publishes.append(a[2])
        if step == "publish" and a[2] > 1:
            die()
        ok = real_publish(*a, **kw)
        if (step == "govern" and a[2] == 1) or (step == "published" and a[2] > 1):
            die()
        return ok

    monkeypatch.setattr(_remote, "publish", publish)
    if step == "lease":
        monkeypatch.setattr(committed_offsets, "latest", lambda *_: die())
    if step == "remove_uncommitted":
        monkeypatch.setattr(_remote, "remove_uncommitted", lambda *a: (real_remove(*a), die()))
    if step == "upload":
        uploads = []

        def upload(self, path, local):
            if path.endswith((".log", ".index", ".timeindex")) and "/t-" in path:
                uploads.append(path)
                if len(uploads) == 4:  # partition 0's three files are up, partition 1's first is not
                    die()
            return real_upload(self, path, local)

        monkeypatch.setattr(ObjectStore, "upload", upload)
    with pytest.raises(Died):
        write(uri, rows, job="killed")
    monkeypatch.undo()

    storage.store_for(uri).forget(_remote.canonical(uri)[0])
    after = contents(uri)
    if step == "published":
        assert after == contents(oracle)  # it committed: the next write is not needed
        write(uri, batch_of(5, seed=22), job="next")  # its lease goes: the job is in a committed version
        write(oracle, batch_of(5, seed=22), job="next")
        assert contents(uri) == contents(oracle)
        return
    assert after == before  # nothing of the killed job is visible to any reader
    assert cli_main(["verify", uri]) == 0
    canonical, store = _remote.canonical(uri)
    with pytest.raises(LogLockedError, match="kvlog-write-lease.killed"):
        write(uri, rows, job="retry")  # its lease outlives it, as documented: the error names the file
    store.delete(_remote._join(canonical, committed_offsets.LEASE_PREFIX + "killed"))
    write(uri, rows, job="retry")
    final = contents(uri)
    assert final == contents(oracle)  # every record once, at the offsets one uninterrupted write gives
    assert sum(len(v[2]) for v in final.values()) == 420


# ------------------------------------------------------------------------------------------ through Spark
@pytest.fixture(scope="module")
def spark(jvm):
    import kvlog.spark

    kvlog.spark.register(jvm)
    return jvm


def spark_rows(spark, n, seed=0):
    from pyspark.sql import types as T

    headers = T.ArrayType(T.StructType([T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())]))
    data = [(None if i % 7 == 3 else f"k{(i * 31 + seed) % 97}".encode(), f"value-{seed}-{i}".encode(),
             [("h", f"{i}".encode())] if i % 5 == 0 else [], 1_700_000_000 + i * 0.001,
             (i % 3) if i % 4 == 0 else None) for i in range(n)]
    schema = T.StructType([T.StructField("key", T.BinaryType()), T.StructField("value", T.BinaryType()),
                           T.StructField("headers", headers), T.StructField("timestamp", T.DoubleType()),
                           T.StructField("partition", T.IntegerType())])
    return spark.createDataFrame(data, schema).coalesce(1)


def engine_rows(spark, fmt, root):
    df = spark.read.format(fmt).option("subscribe", "t").option("includeHeaders", "true").load(root)
    return sorted((r.partition, r.offset, r.key, r.value, r.timestamp, tuple(map(tuple, r.headers or ())))
                  for r in df.collect())


def test_spark_writes_to_s3_what_both_sinks_write_locally_and_both_engines_read_it(spark, s3, tmp_path):
    key = s3.new_prefix()
    uri = s3.uri(key)
    df = spark_rows(spark, 900)
    targets = {"s3": ("kvlog_python", uri), "py": ("kvlog_python", str(tmp_path / "py")),
               "jvm": ("kvlog_jvm", str(tmp_path / "jvm"))}
    for fmt, root in targets.values():
        df.write.format(fmt).mode("append").option("topic", "t").option("partitions", "4") \
            .option("compression", "zstd").save(root)
        df.limit(100).write.format(fmt).mode("append").option("topic", "t").save(root)
    remote = contents(uri)
    assert remote == contents(targets["py"][1]) == contents(targets["jvm"][1])
    assert sum(len(v[2]) for v in remote.values()) == 1000
    copy = download(s3, key, tmp_path / "copy")
    want = engine_rows(spark, "kvlog_python", uri)
    assert len(want) == 1000
    assert engine_rows(spark, "kvlog_jvm", copy) == want == engine_rows(spark, "kvlog_jvm", targets["jvm"][1])


def test_a_failing_spark_job_leaves_nothing_visible_on_s3(spark, s3):
    from pyspark.sql import functions as F

    key = s3.new_prefix()
    uri = s3.uri(key)
    spark_rows(spark, 50).write.format("kvlog_python").mode("append").option("topic", "t").option("partitions", "3") \
        .save(uri)
    before = contents(uri)
    boom = F.udf(lambda v: v if not v.endswith(b"-150") else (_ for _ in ()).throw(RuntimeError("bad row")), "binary")
    with pytest.raises(Exception, match="bad row"):
        spark_rows(spark, 300, seed=1).withColumn("value", boom("value")).repartition(2) \
            .write.format("kvlog_python").mode("append").option("topic", "t").save(uri)
    assert contents(uri) == before
    assert not [n for n in objects(s3, key) if n.startswith((".kvlog-staging", committed_offsets.LEASE_PREFIX))]


def test_a_stream_into_s3_is_exactly_once_across_restarts(spark, s3, tmp_path):
    src, ckpt = str(tmp_path / "src"), str(tmp_path / "ckpt")
    uri = s3.uri(s3.new_prefix())
    spark_rows(spark, 400).select("key", "value").write.format("kvlog_python").mode("append") \
        .option("topic", "in").option("partitions", "2").save(src)

    def run():
        q = (spark.readStream.format("kvlog_python").option("subscribe", "in").option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", "150").load(src).select("key", "value")
             .writeStream.format("kvlog_python").option("topic", "t").option("partitions", "3")
             .option("checkpointLocation", ckpt).trigger(availableNow=True).start(uri))
        try:
            assert q.awaitTermination(180)
        finally:
            q.stop()

    run()
    assert sum(len(v[2]) for v in contents(uri).values()) == 400
    spark_rows(spark, 100, seed=5).select("key", "value").write.format("kvlog_python").mode("append") \
        .option("topic", "in").save(src)
    # the last micro-batch is replayed, as after a driver that died between the sink's commit and the checkpoint's
    commits = sorted(os.listdir(os.path.join(ckpt, "commits")), key=lambda n: int(n) if n.isdigit() else -1)
    for name in (commits[-1], f".{commits[-1]}.crc"):
        if os.path.exists(os.path.join(ckpt, "commits", name)):
            os.unlink(os.path.join(ckpt, "commits", name))
    run()
    got = contents(uri)
    assert sum(len(v[2]) for v in got.values()) == 500
    assert len({r[2] for v in got.values() for r in v[2]}) == 500


def test_a_retried_upload_sends_the_whole_file_again(tmp_path):
    """A PUT that fails part way (a 503 after some bytes) is retried from the first byte: the object is whole,
    never the rest of a stream that the failed attempt consumed."""
    local = pafs.LocalFileSystem()

    class FailsOnce:  # the store's filesystem: its first upload dies after one chunk, as a dropped connection
        def __init__(self):
            self.failed = False

        def open_output_stream(self, path, metadata=None):
            out = local.open_output_stream(path)
            if self.failed:
                return out
            self.failed = True

            class Dying:
                def __enter__(self):
                    return self

                def __exit__(self, *exc):
                    out.close()

                def write(self, chunk):
                    out.write(chunk)
                    raise OSError("AWS Error SERVICE_UNAVAILABLE during UploadPart operation: HTTP status 503")
            return Dying()

        def __getattr__(self, name):
            return getattr(local, name)

    source = tmp_path / "segment.log"
    source.write_bytes(os.urandom((8 << 20) + 12345))  # two chunks: the first is sent, then the PUT fails
    store = ObjectStore(FailsOnce(), strip=len("x://"), backoff_s=0.001)
    target = f"x://{tmp_path}/uploaded.log"
    assert store.upload(target, str(source)) == source.stat().st_size
    assert store.stats.retries == 1
    assert (tmp_path / "uploaded.log").read_bytes() == source.read_bytes()
