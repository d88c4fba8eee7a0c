"""Spark over a tiered topic whose remote storage is an object store: moto's S3 on 127.0.0.1 for the Python
source (which ``format("kvlog")`` routes ``s3://`` to when the JVM has no connector), and a Hadoop file system of
another scheme with an object store's semantics (``createonly://``: no rename, append or truncate) for the JVM
scan. PySpark ships no S3 connector (hadoop-aws) and this machine reaches no Maven repository, so the JVM scan
cannot be run against S3 itself here; it goes through the same Hadoop ``FileSystem`` calls on any scheme.

The oracle is the same records read as one plain local log.
"""

from __future__ import annotations

import pytest
from tiered_support import T0, to_aiven, two_tiered_partitions

pytest.importorskip("pyspark")

TOPIC = "orders"
COLS = ["partition", "offset", "timestamp", "key", "value"]
CREATE_ONLY = "io.kvlog.spark.write.WriterBlocksForTests$CreateOnlyFileSystem"


@pytest.fixture(scope="module")
def tiered(tmp_path_factory):
    return two_tiered_partitions(tmp_path_factory.mktemp("tiered-os"), TOPIC)


def rows(spark, fmt, root, **opts):
    df = spark.read.format(fmt).options(**opts).load(str(root))
    return sorted(tuple(r) for r in df.select(*COLS).collect()), df.rdd.getNumPartitions()


def local_tiered(path):
    return {"subscribe": TOPIC, "kvlog.remoteStorage.layout": "LocalTieredStorage", "kvlog.remoteStorage.path": path}


def test_remote_segments_in_s3_read_as_the_whole_log(jvm, s3, tiered):
    """The broker's disk local, its bucket on S3 (as a reader of a broker and its bucket has them), then both on
    S3; format("kvlog") and format("kvlog_python") alike, a split per remote piece."""
    t0, _ = tiered
    whole, _ = rows(jvm, "kvlog_jvm", t0.whole, subscribe=TOPIC)
    assert len(whole) == 900
    key = s3.new_prefix()
    s3.upload(t0.remote_root, key + "/remote")
    for fmt in ("kvlog", "kvlog_python"):
        got, splits = rows(jvm, fmt, t0.root, **local_tiered(s3.uri(key + "/remote")))
        assert got == whole, fmt
        assert splits == 3 + 1 + 1 + 1  # partition 1's second remote segment is still local: served locally
    s3.upload(t0.root, key + "/data")
    got, _ = rows(jvm, "kvlog", s3.uri(key + "/data"), **local_tiered(s3.uri(key + "/remote")))
    assert got == whole
    by_time, _ = rows(jvm, "kvlog", t0.root, **local_tiered(s3.uri(key + "/remote")),
                      startingTimestamp=str(T0 + 130))
    assert by_time == [r for r in whole if r[1] >= 130]  # a record's timestamp is T0 + its offset


def test_an_aiven_bucket_in_s3_with_encryption(jvm, s3, tiered, tmp_path):
    from tiered_aiven_writer import make_key_pair

    t0, t1 = tiered
    pub, _, _, priv = make_key_pair(tmp_path, "k1")
    for t in (t0, t1):
        dest = to_aiven(t, tmp_path / "aiven", key_prefix="rsm/", chunk_size=4096, compression=True,
                        encryption=("k1", pub))
    key = s3.new_prefix()
    s3.upload(dest, key)
    whole, _ = rows(jvm, "kvlog_jvm", t0.whole, subscribe=TOPIC)
    opts = {"subscribe": TOPIC, "kvlog.remoteStorage.layout": "aiven", "kvlog.remoteStorage.path": s3.uri(key),
            "kvlog.remoteStorage.keyPrefix": "rsm/", "kvlog.remoteStorage.keyPairs": f"k1={priv}"}
    for fmt in ("kvlog", "kvlog_python"):
        assert rows(jvm, fmt, t0.root, **opts)[0] == whole, fmt


def test_a_stream_reads_the_remote_history_from_s3(jvm, s3, tiered, tmp_path):
    t0, _ = tiered
    key = s3.new_prefix()
    s3.upload(t0.remote_root, key)
    out, ckpt = str(tmp_path / "out"), str(tmp_path / "ckpt")
    q = (jvm.readStream.format("kvlog").options(**local_tiered(s3.uri(key))).option("startingOffsets", "earliest")
         .option("maxOffsetsPerTrigger", "500").load(str(t0.root))
         .select(*COLS).writeStream.format("parquet").option("path", out)
         .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
    try:
        assert q.awaitTermination(180)
    finally:
        q.stop()
    got = sorted(tuple(r) for r in jvm.read.parquet(out).collect())
    assert got == rows(jvm, "kvlog_jvm", t0.whole, subscribe=TOPIC)[0]


def test_the_jvm_scan_reads_remote_storage_through_another_hadoop_file_system(jvm, tiered):
    """Remote storage under createonly:// (the local disk as an object store behaves: files are written once, and
    rename, append and truncate throw), the broker's disk under file://: the JVM scan reads the whole history."""
    t0, _ = tiered
    conf = jvm.sparkContext._jsc.hadoopConfiguration()
    conf.set("fs.createonly.impl", CREATE_ONLY)
    conf.set("fs.createonly.impl.disable.cache", "true")
    try:
        got, splits = rows(jvm, "kvlog_jvm", t0.root, **local_tiered(f"createonly://{t0.remote_root}"))
        by_offset, _ = rows(jvm, "kvlog_jvm", t0.root, **local_tiered(f"createonly://{t0.remote_root}"),
                            startingOffsets='{"orders": {"0": 150, "1": 20}}')
    finally:
        conf.unset("fs.createonly.impl")
        conf.unset("fs.createonly.impl.disable.cache")
    whole, _ = rows(jvm, "kvlog_jvm", t0.whole, subscribe=TOPIC)
    assert got == whole and splits == 3 + 1 + 1 + 1
    assert by_offset == [r for r in whole if r[1] >= (150 if r[0] == 0 else 20)]
