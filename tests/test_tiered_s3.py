"""Tiered storage on an object store (moto's S3 on 127.0.0.1): both layouts read from ``s3://`` with the
data directory local, as a reader of a broker's disk and its bucket does; request budgets of the open, a
search by time into a remote segment and a scan."""

import os

import pytest
from tiered_support import T0, tier_log, to_aiven, write_log

from kvlog import Log, storage
from kvlog.tiered import AivenTieredStorage, LocalTieredStorage


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """5 segments of ~600 KiB (10 000 records each), the first 4 remote."""
    root = tmp_path_factory.mktemp("tiered-s3") / "data"
    write_log(root, segments=5, batches=100, per_batch=100, value_size=40)
    return tier_log(root, remote=4)


def _whole(t):
    return Log.open(t.whole_dir, read_only=True)


def test_local_tiered_storage_in_s3(s3, big):
    t = big
    key = s3.new_prefix()
    s3.upload(t.remote_root, key)
    uri = s3.uri(key)
    store = storage.store_for(uri)
    store.reset_stats()
    remote = LocalTieredStorage(uri)
    with Log.open(t.dir, read_only=True, remote_storage=remote) as log, _whole(t) as whole:
        assert remote.stats().requests == store.stats.requests > 0  # what a user reads: the store's counters
        opened = store.reset_stats()
        # the partition's listing, then per remote segment its two indexes and the first batch's block, each a
        # GET after the HEAD pyarrow opens an object with: O(segments), never O(batches)
        assert opened.requests <= 2 + 6 * 4, opened
        for k, ts in enumerate((T0 + 12_345, T0 + 31_000, T0 + 5)):
            found = log.offset_for_timestamp(ts)
            point = store.reset_stats()
            assert point.requests <= 3, (ts, point)
            assert found == whole.offset_for_timestamp(ts)
        got = log.to_arrow()
        scan = store.reset_stats()
        assert got.equals(whole.to_arrow())
        remote_bytes = sum(s.segment_size for s in t.segments)
        assert scan.gets <= 2 * remote_bytes / (1 << 20) + 2 * len(t.segments), scan


@pytest.mark.parametrize("compression,encrypted", [(False, False), (True, True)])
def test_aiven_objects_in_s3(s3, big, tmp_path, compression, encrypted):
    from tiered_aiven_writer import make_key_pair

    t = big
    pub, _, _, priv = make_key_pair(tmp_path, "k1")
    dest = to_aiven(t, tmp_path / "aiven", key_prefix="kafka/", chunk_size=256 << 10, compression=compression,
                    encryption=("k1", pub) if encrypted else None)
    key = s3.new_prefix()
    s3.upload(dest, key)
    remote = AivenTieredStorage(s3.uri(key), key_prefix="kafka/",
                                key_pairs={"k1": str(priv)} if encrypted else None)
    with Log.open(t.dir, read_only=True, remote_storage=remote) as log, _whole(t) as whole:
        before = remote.stats()
        for ts in (T0 + 12_345, T0 + 31_000):
            found = log.offset_for_timestamp(ts)
            after = remote.stats()
            assert after.requests - before.requests <= 3, (ts, before, after)
            before = after
            assert found == whole.offset_for_timestamp(ts)
        assert log.to_arrow().equals(whole.to_arrow())
    assert os.path.isdir(dest)


def test_the_data_directory_in_s3_too(s3, big):
    """The broker's directory and its remote storage both in the bucket: ``__remote_log_metadata`` is found
    beside the partition, through the same store (the URI's endpoint and credentials)."""
    t = big
    key = s3.new_prefix()
    s3.upload(t.remote_root, key + "/remote")
    s3.upload(t.root, key + "/data")
    base, query = s3.uri(key + "/data").split("?", 1)
    partition = f"{base}/{os.path.basename(t.dir)}?{query}"
    with Log.open(partition, read_only=True, remote_storage=LocalTieredStorage(s3.uri(key + "/remote"))) as log, \
            _whole(t) as whole:
        assert log.log_start_offset == whole.log_start_offset
        assert log.to_arrow().equals(whole.to_arrow())
