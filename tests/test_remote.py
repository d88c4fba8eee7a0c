"""Log directories in an object store: every read path over s3:// (moto's server on 127.0.0.1) returns
exactly what it returns on the same files on local disk, and failures are typed and name the object."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pyarrow as pa
import pytest

import kvlog
from kvlog import storage
from kvlog.cli import main as cli_main
from kvlog.errors import (
    CorruptRecordError,
    ObjectNotFoundError,
    ReadOnlyStorageError,
    StorageAccessError,
    StorageError,
    StorageUnavailableError,
)
from kvlog.records import Record

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]




def _store(uri):
    return storage.store_for(uri)


def write_log(path, *, magic=2, codec="none", batches=40, per_batch=25, segment_bytes=16 << 10, ts0=1_000_000):
    """A multi-segment log: keyed records with headers (v2), increasing timestamps."""
    cfg = kvlog.LogConfig(segment_bytes=segment_bytes, index_interval_bytes=1024)
    with kvlog.Log.open(path, cfg) as log:
        for b in range(batches):
            recs = [Record(b"k%d" % (i % 7), os.urandom(40) + b"v%d-%d" % (b, i), ts0 + b * 10 + i,
                           ((b"h", b"%d" % i),) if magic == 2 else ())
                    for i in range(per_batch)]
            if magic == 2:
                log.append(recs, compression=codec)
            else:
                log.append(kvlog.encode_batch(recs, magic=magic, compression=codec))
    return path


def snapshot(log: kvlog.Log) -> dict:
    """Everything a reader sees, as plain values."""
    mid = (log.log_start_offset + log.log_end_offset) // 2
    return {
        "start": log.log_start_offset, "end": log.log_end_offset, "lso": log.last_stable_offset,
        "segments": [s.base_offset for s in log.segments],
        "table": log.to_arrow(),
        "records": list(log.records()),
        "read_mid": bytes(log.read(mid, 4096).buffer),
        "ts": [log.offset_for_timestamp(t) for t in (0, 1_000_000, 1_000_205, 1_000_399, 10**12, kvlog.LATEST,
                                                     kvlog.EARLIEST, kvlog.MAX_TIMESTAMP)],
        "committed": log.to_arrow(isolation_level="read_committed"),
        "aborted": log.aborted_transactions(log.log_start_offset, log.log_end_offset)
        if hasattr(log, "aborted_transactions") else None,
    }


def assert_same_view(local_path, uri):
    with kvlog.Log.open(local_path, read_only=True) as a, kvlog.Log.open(uri, read_only=True) as b:
        want, got = snapshot(a), snapshot(b)
    for k in want:
        if isinstance(want[k], pa.Table):
            assert got[k].equals(want[k]), k
        else:
            assert got[k] == want[k], k


# ------------------------------------------------------------------------------------ parity
@pytest.mark.parametrize("magic,codec", [(m, c) for m in (0, 1, 2) for c in CODECS if m == 2 or c != "zstd"])
def test_remote_log_reads_exactly_as_local(s3, tmp_path, magic, codec):
    local = write_log(str(tmp_path / "data" / "orders-0"), magic=magic, codec=codec)
    key = s3.new_prefix()
    s3.upload(tmp_path / "data", key)
    uri = s3.uri(f"{key}/orders-0")
    with kvlog.Log.open(uri, read_only=True) as log:
        assert log.dir == s3.canonical(f"{key}/orders-0")
        assert log.topic == "orders" and log.partition == 0
        assert len(log.segments) > 2
    assert_same_view(local, uri)


def test_transactional_log_read_committed(s3, tmp_path):
    root = tmp_path / "tx"
    committed = []
    with kvlog.LogManager(str(root)) as m:
        log = m.create_topic("tx", 1, kvlog.LogConfig(segment_bytes=4096))[0]
        seq = {7: 0, 8: 0}
        for i in range(30):
            pid = 7 if i % 2 else 8
            vals = [b"t%d-%d" % (i, j) for j in range(5)]
            log.append([Record(b"k", v, timestamp=1000 + i) for v in vals], producer_id=pid, producer_epoch=0,
                       base_sequence=seq[pid], is_transactional=True)
            seq[pid] += 5
            log.end_transaction(pid, 0, commit=i % 3 != 0)
            if i % 3:
                committed += vals
        log.append([Record(b"k", b"open")], producer_id=9, producer_epoch=0, base_sequence=0, is_transactional=True)
    key = s3.new_prefix()
    s3.upload(root, key)
    uri = s3.uri(f"{key}/tx-0")
    with kvlog.Log.open(uri, read_only=True) as log:
        got = log.to_arrow(isolation_level="read_committed").column("value").to_pylist()
        assert got == committed
        assert log.last_stable_offset < log.log_end_offset  # the open transaction
        assert any(s.txn_index.exists() for s in log.segments)
    assert_same_view(str(root / "tx-0"), uri)


def test_kraft_fixture_from_s3(s3, tmp_path, kraft_segment):
    part = tmp_path / "d" / "__cluster_metadata-0"
    part.mkdir(parents=True)
    shutil.copy(kraft_segment, part / kraft_segment.name)
    key = s3.new_prefix()
    s3.upload(tmp_path / "d", key)
    uri = s3.uri(f"{key}/__cluster_metadata-0")
    with kvlog.Log.open(uri, read_only=True) as log:
        t = log.to_arrow()
        assert t.column("offset").to_pylist() == [0, 1, 2, 3]
        assert t.column("timestamp").cast(pa.timestamp("ms")).cast(pa.int64()).to_pylist()[:2] == [1726045943832, 1726045957397]
        assert [len(v) for v in t.column("value").to_pylist()] == [23, 24, 65, 65]
    assert_same_view(str(part), uri)


def test_log_manager_lists_a_remote_data_directory(s3, tmp_path):
    root = tmp_path / "root"
    with kvlog.LogManager(str(root)) as m:
        for topic, n in (("a", 2), ("b", 3)):
            for log in m.create_topic(topic, n, kvlog.LogConfig(segment_bytes=8192)):
                log.append([Record(b"k", b"v%d" % i, 5000 + i) for i in range(200)])
    key = s3.new_prefix()
    s3.upload(root, key)
    with kvlog.LogManager(str(root), read_only=True) as local, kvlog.LogManager(s3.uri(key), read_only=True) as remote:
        assert remote.root == s3.canonical(key)
        assert remote.topics() == local.topics() == {"a": 2, "b": 3}
        for t, n in local.topics().items():
            for p in range(n):
                assert remote.log(t, p).to_arrow().equals(local.log(t, p).to_arrow())
                assert remote.topic_config(t).segment_bytes == 8192


def test_file_uris_are_local_paths(tmp_path):
    local = write_log(str(tmp_path / "f-0"), batches=5)
    with kvlog.Log.open("file://" + local, read_only=True) as a, kvlog.Log.open(local, read_only=True) as b:
        assert a.dir == b.dir == local
        assert a.to_arrow().equals(b.to_arrow())
    with kvlog.Log.open("file://" + local) as w:  # a file:// URI is local: writable
        w.append([Record(b"k", b"more", 1)])


# ------------------------------------------------------------------------------------ economics
def test_request_budget_of_open_scan_and_point_search(s3, tmp_path):
    local = write_log(str(tmp_path / "d" / "big-0"), batches=400, per_batch=50, segment_bytes=256 << 10)
    size = sum(os.path.getsize(os.path.join(local, n)) for n in os.listdir(local) if n.endswith(".log"))
    segments = len([n for n in os.listdir(local) if n.endswith(".log")])
    key = s3.new_prefix()
    s3.upload(tmp_path / "d", key)
    uri = s3.uri(f"{key}/big-0")
    store = _store(uri)
    store.reset_stats()
    log = kvlog.Log.open(uri, read_only=True)
    try:
        opened = store.reset_stats()
        # O(segments): two index objects per segment (HEAD + GET each), listings, checkpoints, the audit
        # of the segment after the recovery point; never a request per batch
        assert opened.requests <= 4 * segments + 12, opened
        mid_ts = 1_000_000 + 200 * 10
        found = log.offset_for_timestamp(mid_ts)
        point = store.reset_stats()
        assert point.requests <= 3, point
        assert found is not None and found.timestamp == mid_ts
        n = log.to_arrow().num_rows
        scan = store.reset_stats()
        assert n == 400 * 50
        assert scan.gets <= 2 * size / (1 << 20) + segments, (scan, size)
        assert scan.get_bytes <= 1.2 * size + segments * store.point_block
    finally:
        log.close()


# ------------------------------------------------------------------------------------ the CLI
def _cli(args, capfd):
    capfd.readouterr()
    code = cli_main(args)
    out, err = capfd.readouterr()
    return code, out, err


def test_cli_dump_verify_offsets_on_uris(s3, tmp_path, capfd):
    root = tmp_path / "root"
    write_log(str(root / "orders-0"), codec="lz4", batches=30)
    write_log(str(root / "orders-1"), codec="zstd", batches=10)
    key = s3.new_prefix()
    s3.upload(root, key)
    seg = "00000000000000000000"
    for local_file, uri_file in ((str(root / "orders-0" / f"{seg}.log"), s3.uri(f"{key}/orders-0/{seg}.log")),
                                 (str(root / "orders-0" / f"{seg}.index"), s3.uri(f"{key}/orders-0/{seg}.index")),
                                 (str(root / "orders-0" / f"{seg}.timeindex"),
                                  s3.uri(f"{key}/orders-0/{seg}.timeindex"))):
        a = _cli(["dump", "--files", local_file, "--deep-iteration", "--print-data-log"], capfd)
        b = _cli(["dump", "--files", uri_file, "--deep-iteration", "--print-data-log"], capfd)
        assert a[0] == b[0] == 0
        assert "kvlogsecret" not in b[1] + b[2]  # credentials never printed
        assert b[1] == a[1].replace(str(root), s3.canonical(key)), uri_file
    a = _cli(["verify", str(root), "--json"], capfd)
    b = _cli(["verify", s3.uri(key), "--json"], capfd)
    assert a[0] == b[0] == 0
    ja, jb = json.loads(a[1]), json.loads(b[1])
    assert jb["path"] == s3.canonical(key)
    assert json.dumps(ja["partitions"]).replace(str(root), s3.canonical(key)) == json.dumps(jb["partitions"])
    for args in (["offsets", "--timestamp", "1000150"], ["offsets", "--timestamp", "1000150", "--margin", "50"]):
        a = _cli([*args[:1], str(root), *args[1:]], capfd)
        b = _cli([*args[:1], s3.uri(key), *args[1:]], capfd)
        assert a[0] == b[0] == 0 and a[1] == b[1] and a[1].count("\n") == 2


def test_mirror_restores_a_remote_backup_locally(s3, tmp_path):
    from kvlog.mirror import mirror_directory

    root = tmp_path / "root"
    write_log(str(root / "orders-0"), codec="gzip", batches=20)
    key = s3.new_prefix()
    s3.upload(root, key)
    mirror_directory(s3.uri(key), str(tmp_path / "restored"))
    with kvlog.Log.open(str(root / "orders-0"), read_only=True) as a, \
            kvlog.Log.open(str(tmp_path / "restored" / "orders-0"), read_only=True) as b:
        cols = ["offset", "key", "value", "timestamp"]
        assert b.to_arrow().select(cols).equals(a.to_arrow().select(cols))


# ------------------------------------------------------------------------------------ writers stay local
def test_remote_writers_are_refused(s3, tmp_path):
    uri = s3.uri("nowhere/t-0")
    with pytest.raises(ReadOnlyStorageError, match="read-only"):
        kvlog.Log.open(uri)
    with pytest.raises(ReadOnlyStorageError):
        kvlog.LogManager(s3.uri("nowhere"))
    from kvlog.spark.sink import _root

    assert _root({"path": uri}) == uri  # the Spark sink writes object stores (tests/test_spark_sink_object_store.py)


# ------------------------------------------------------------------------------------ damage and failures
def _uploaded(s3, tmp_path, **kw):
    local = write_log(str(tmp_path / "d" / "p-0"), **kw)
    key = s3.new_prefix()
    s3.upload(tmp_path / "d", key)
    return local, key


def _first_log(local):
    return sorted(n for n in os.listdir(local) if n.endswith(".log"))[0]


def test_damaged_object_raises_the_same_typed_error_naming_the_object(s3, tmp_path):
    local, key = _uploaded(s3, tmp_path)
    name = _first_log(local)
    path = os.path.join(local, name)
    data = bytearray(pathlib.Path(path).read_bytes())
    data[200] ^= 0xFF  # inside the first batch's records: its CRC no longer matches
    pathlib.Path(path).write_bytes(data)
    s3.put(f"{key}/p-0/{name}", bytes(data))
    errors = []
    for where in (local, s3.uri(f"{key}/p-0")):
        with kvlog.Log.open(where, read_only=True) as log, pytest.raises(CorruptRecordError) as info:
            log.to_arrow()
        errors.append(info.value)
    assert errors[1].position == errors[0].position
    assert s3.canonical(f"{key}/p-0/{name}") in str(errors[1])
    assert str(errors[1]) == str(errors[0]).replace(local, s3.canonical(f"{key}/p-0"))


def test_missing_index_objects_read_as_locally(s3, tmp_path):
    local, key = _uploaded(s3, tmp_path)
    for n in os.listdir(local):
        if n.endswith((".index", ".timeindex")):
            os.unlink(os.path.join(local, n))
            s3.delete(f"{key}/p-0/{n}")
    assert_same_view(local, s3.uri(f"{key}/p-0"))


def test_truncated_object_reads_as_the_same_truncated_file(s3, tmp_path):
    local, key = _uploaded(s3, tmp_path)
    last = sorted(n for n in os.listdir(local) if n.endswith(".log"))[-1]
    path = os.path.join(local, last)
    data = pathlib.Path(path).read_bytes()
    cut = data[: len(data) - 37]  # a torn last batch
    pathlib.Path(path).write_bytes(cut)
    s3.put(f"{key}/p-0/{last}", cut)
    # the recovery point checkpoint says the lost bytes were flushed: damage, alike in both views
    with kvlog.Log.open(local, read_only=True) as a, kvlog.Log.open(s3.uri(f"{key}/p-0"), read_only=True) as b:
        assert [(d.first_offset, d.end_offset, d.position) for d in a.damage] == \
            [(d.first_offset, d.end_offset, d.position) for d in b.damage] != []
        for log in (a, b):
            with pytest.raises(CorruptRecordError, match="durable"):
                log.to_arrow()
    # without that checkpoint it is a torn tail nothing vouches for: both views simply end before it
    for root in (tmp_path / "d",):
        os.unlink(root / "recovery-point-offset-checkpoint")
    s3.delete(f"{key}/recovery-point-offset-checkpoint")
    assert_same_view(local, s3.uri(f"{key}/p-0"))


def test_object_shrinking_under_a_reader_is_a_typed_error(s3, tmp_path):
    local, key = _uploaded(s3, tmp_path)
    name = _first_log(local)
    log = kvlog.Log.open(s3.uri(f"{key}/p-0"), read_only=True)
    try:
        s3.put(f"{key}/p-0/{name}", pathlib.Path(local, name).read_bytes()[:100])
        with pytest.raises(StorageError) as info:
            log.to_arrow()
        assert info.value.path == s3.canonical(f"{key}/p-0/{name}")
        assert info.value.position >= 0 and "shorter than its listing" in str(info.value)
    finally:
        log.close()


def test_throttling_is_retried_then_reported(s3, tmp_path):
    import pyarrow.fs as pafs

    local, key = _uploaded(s3, tmp_path)
    uri = s3.uri(f"{key}/p-0", via_proxy=True)
    with kvlog.Log.open(local, read_only=True) as log:
        want = log.to_arrow()
    store = _store(uri)
    saved = store.fs, store.backoff_s
    # the SDK's own retries off, so that every retry counted here is kvlog's
    store.fs = pafs.S3FileSystem(access_key="kvlogtest", secret_key="kvlogsecret", region="us-east-1",
                                 endpoint_override=f"127.0.0.1:{s3.proxy.port}", scheme="http",
                                 retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=1))
    store.backoff_s = 0.001
    try:
        s3.proxy.fail(store.retries, 503, "SlowDown", match=".log")
        store.reset_stats()
        with kvlog.Log.open(uri, read_only=True) as log:
            assert log.to_arrow().equals(want)
        assert store.stats.retries == store.retries  # each throttled GET was retried, and the read went on
        s3.proxy.fail(-1, 500, "InternalError", match=".log")
        with pytest.raises(StorageUnavailableError) as info:
            with kvlog.Log.open(uri, read_only=True) as log:
                log.to_arrow()
        assert info.value.path.startswith(s3.canonical(f"{key}/p-0/")) and info.value.path.endswith(".log")
        assert info.value.position >= 0 and f"gave up after {store.retries + 1} attempts" in str(info.value)
    finally:
        store.fs, store.backoff_s = saved


def test_wrong_credentials_and_missing_objects_are_typed(s3, tmp_path, capfd):
    local, key = _uploaded(s3, tmp_path)
    s3.proxy.deny_key("intruder")
    bad = s3.uri(f"{key}/p-0", via_proxy=True, access_key="intruder")
    with pytest.raises(StorageAccessError) as info:
        kvlog.Log.open(bad, read_only=True)
    assert s3.canonical(f"{key}/p-0") in str(info.value) and "intruder" not in str(info.value)
    with pytest.raises(FileNotFoundError):
        kvlog.Log.open(s3.uri(f"{key}/no-such-0"), read_only=True)
    with pytest.raises(ObjectNotFoundError):
        storage.store_for(s3.uri(key)).open_ranged(s3.canonical(f"{key}/p-0/missing.log"))
    code, out, err = _cli(["verify", bad], capfd)
    assert code != 0 and "access denied" in err and "kvlogsecret" not in out + err


# ------------------------------------------------------------------------------------ Spark
def test_spark_source_reads_s3_as_local(spark, s3, tmp_path):
    root = tmp_path / "root"
    write_log(str(root / "orders-0"), codec="zstd", batches=30)
    write_log(str(root / "orders-1"), codec="snappy", batches=20)
    write_log(str(root / "audit-0"), magic=1, codec="gzip", batches=10)
    with kvlog.Log.open(str(root / "tx-0")) as log:  # transactions: committed, aborted, one left open
        for i in range(9):
            log.append([Record(b"t", b"tx-%d-%d" % (i, j), 1_000_000 + i) for j in range(3)], producer_id=5,
                       producer_epoch=0, base_sequence=3 * i, is_transactional=True)
            if i < 8:
                log.end_transaction(5, 0, commit=i % 2 == 0)
    key = s3.new_prefix()
    s3.upload(root, key)
    cols = ["topic", "partition", "offset", "key", "value", "timestamp"]
    for options in ({"subscribePattern": ".*"}, {"subscribe": "orders", "startingOffsets": json.dumps({"orders": {"0": 100, "1": -2}}),
                         "endingOffsets": json.dumps({"orders": {"0": 500, "1": -1}})},
                    {"subscribePattern": "a.*", "includeHeaders": "true"},
                    {"assign": json.dumps({"orders": [1]}), "minPartitions": "4"},
                    {"startingTimestamp": "1000150", "subscribe": "orders"},
                    {"endingTimestamp": "1000200", "maxRecordsPerPartition": "90", "subscribe": "orders"},
                    {"subscribe": "tx", "kafka.isolation.level": "read_committed"},
                    {"subscribe": "audit", "failOnDataLoss": "false",
                     "startingOffsets": json.dumps({"audit": {"0": 0}})}):
        def read(path, options=options):
            reader = spark.read.format("kvlog_python")
            for k, v in options.items():
                reader = reader.option(k, v)
            return sorted(tuple(r) for r in reader.load(path).select(*cols).collect())
        want = read(str(root))
        assert want and read(s3.uri(key)) == want, options


def test_spark_streaming_from_s3(spark, s3, tmp_path):
    root = tmp_path / "root"
    write_log(str(root / "s-0"), batches=12)
    key = s3.new_prefix()
    s3.upload(root, key)
    out = tmp_path / "out"

    def run():
        q = (spark.readStream.format("kvlog_python").option("subscribePattern", ".*").option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", "150").load(s3.uri(key))
             .select("offset", "value").writeStream.format("parquet").option("path", str(out))
             .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True).start())
        try:
            assert q.awaitTermination(120)
        finally:
            q.stop()
        return sorted(r.offset for r in spark.read.parquet(str(out)).collect())

    assert run() == list(range(300))
    with kvlog.Log.open(str(root / "s-0")) as log:  # the backup grows: new and replaced objects
        for b in range(30):
            log.append([Record(b"k", b"late-%d" % b, 2_000_000 + b)])
    s3.upload(root, key)
    assert run() == list(range(330))  # exactly once across the restart, the new records included


def test_maintenance_plan_reads_a_remote_directory(spark, s3, tmp_path):
    import kvlog.spark
    from kvlog.spark import maintenance

    root = tmp_path / "root"
    with kvlog.LogManager(str(root)) as m:
        log = m.create_topic("c", 1, kvlog.LogConfig(segment_bytes=2048, cleanup_policy="compact"))[0]
        for i in range(300):
            log.append([Record(b"k%d" % (i % 5), b"v%d" % i, 1000 + i)])
    key = s3.new_prefix()
    s3.upload(root, key)
    local_plan = maintenance.plan(str(root))
    remote_plan = kvlog.spark.plan_maintenance(s3.uri(key))
    assert [(r["topic"], r["partition"], r["dirty_ratio"]) for r in remote_plan] == \
        [(r["topic"], r["partition"], r["dirty_ratio"]) for r in local_plan]
    assert remote_plan[0]["path"] == s3.canonical(f"{key}/c-0") and remote_plan[0]["dirty_ratio"] > 0
    with pytest.raises(ReadOnlyStorageError):
        maintenance.compact(spark, s3.uri(key))
