"""The Python Spark source (``kvlog_python``) on a tiered topic: the ``kvlog.remoteStorage.*`` options, one input
partition per remote segment, batch and stream, against the same partitions read as one local log."""


import pytest
from tiered_support import T0, tier_log, write_log

PY = "kvlog_python"
COLUMNS = "topic, partition, offset, timestamp, key, value"


@pytest.fixture(scope="module")
def topic(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiered") / "data"
    for p in range(2):
        write_log(root, "orders", p, segments=4)
    t0 = tier_log(root, "orders", 0, remote=2)
    t1 = tier_log(root, "orders", 1, remote=3, after=t0)
    return t0, t1


def options(t):
    return {"subscribe": "orders", "kvlog.remoteStorage.layout": "LocalTieredStorage",
            "kvlog.remoteStorage.path": t.remote_root}


def rows(df):
    return sorted(tuple(r) for r in df.selectExpr(*COLUMNS.split(", ")).collect())


def test_batch_reads_the_whole_history_one_partition_per_remote_segment(spark, topic):
    t0, _ = topic
    df = spark.read.format(PY).options(**options(t0)).load(t0.root)
    whole = spark.read.format(PY).option("subscribe", "orders").load(t0.whole)
    got = rows(df)
    assert got == rows(whole) and len(got) == 800
    assert df.rdd.getNumPartitions() == 2 + 1 + 3 + 1  # remote pieces and the local rest, per partition
    local_only = spark.read.format(PY).option("subscribe", "orders").load(t0.root)
    assert local_only.count() == 200 + 100


def test_offsets_and_timestamps_across_tiers(spark, topic):
    t0, _ = topic
    opts = options(t0) | {"startingOffsets": '{"orders": {"0": 150, "1": 20}}',
                          "endingOffsets": '{"orders": {"0": 320, "1": 390}}'}
    got = rows(spark.read.format(PY).options(**opts).load(t0.root))
    whole = rows(spark.read.format(PY).option("subscribe", "orders").load(t0.whole))
    assert got == [r for r in whole if (r[1] == 0 and 150 <= r[2] < 320) or (r[1] == 1 and 20 <= r[2] < 390)]
    by_ts = rows(spark.read.format(PY).options(**options(t0), startingTimestamp=str(T0 + 130)).load(t0.root))
    assert by_ts == [r for r in whole if r[2] >= 130]


def test_a_stream_reads_the_remote_history_first(spark, topic, tmp_path):
    t0, _ = topic
    out, ckpt = str(tmp_path / "out"), str(tmp_path / "ckpt")
    q = (spark.readStream.format(PY).options(**options(t0)).option("startingOffsets", "earliest")
         .option("maxOffsetsPerTrigger", "300").load(t0.root)
         .selectExpr(*COLUMNS.split(", ")).writeStream.format("parquet").option("path", out)
         .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
    try:
        assert q.awaitTermination(180)
    finally:
        q.stop()
    got = sorted(tuple(r) for r in spark.read.parquet(out).collect())
    assert got == rows(spark.read.format(PY).option("subscribe", "orders").load(t0.whole))


def test_option_errors(spark, topic):
    from kvlog.errors import ConfigError
    from kvlog.spark._plan import ReadOptions

    with pytest.raises(ConfigError, match="layout"):
        ReadOptions.parse({"subscribe": "t", "kvlog.remoteStorage.layout": "s3rsm", "kvlog.remoteStorage.path": "/x"})
    with pytest.raises(ConfigError, match="kvlog.remoteStorage.path"):
        ReadOptions.parse({"subscribe": "t", "kvlog.remoteStorage.layout": "aiven"})
    with pytest.raises(ConfigError, match="needs kvlog.remoteStorage.layout"):
        ReadOptions.parse({"subscribe": "t", "kvlog.remoteStorage.path": "/x"})
    with pytest.raises(ConfigError, match="did you mean"):
        ReadOptions.parse({"subscribe": "t", "kvlog.remoteStorage.layuot": "aiven"})
    with pytest.raises(ConfigError, match="aiven layout only"):
        ReadOptions.parse({"subscribe": "t", "kvlog.remoteStorage.layout": "LocalTieredStorage",
                           "kvlog.remoteStorage.path": "/x", "kvlog.remoteStorage.keyPairs": "k=/a.pem"})


def test_the_aiven_layout_with_encryption(spark, topic, tmp_path):
    from tiered_aiven_writer import make_key_pair
    from tiered_support import to_aiven

    t0, t1 = topic
    pub, _, _, priv = make_key_pair(tmp_path, "k1")
    dest = to_aiven(t0, tmp_path / "aiven", key_prefix="rsm/", compression=True, encryption=("k1", pub))
    to_aiven(t1, dest, key_prefix="rsm/", compression=True, encryption=("k1", pub))
    opts = {"subscribe": "orders", "kvlog.remoteStorage.layout": "aiven", "kvlog.remoteStorage.path": dest,
            "kvlog.remoteStorage.keyPrefix": "rsm/", "kvlog.remoteStorage.keyPairs": f"k1={priv}"}
    got = rows(spark.read.format(PY).options(**opts).load(t0.root))
    assert got == rows(spark.read.format(PY).option("subscribe", "orders").load(t0.whole))


def test_a_remote_spec_never_prints_credentials():
    from kvlog.spark._tiered import RemoteSpec

    spec = RemoteSpec.parse({"kvlog.remotestorage.layout": "aiven",
                             "kvlog.remotestorage.path": "s3://AKIAKEY:s3cr3t@bucket/p?secret_key=x&region=eu"})
    assert "s3cr3t" not in repr(spec) and "AKIAKEY" not in repr(spec) and "bucket/p" in repr(spec)
