"""kvlog.iceberg from every source kvlog reads, against the same records read otherwise: tiered storage (the
remote segments plus the local tail, against the untiered copy) and a data directory in an object store
(moto's S3), each table read back with pyiceberg."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from tiered_support import tier_log, write_log  # noqa: E402

import kvlog  # noqa: E402
import kvlog.iceberg as ki  # noqa: E402
from kvlog.tiered import LocalTieredStorage  # noqa: E402
from tests.iceberg_support import assert_exactly, write_topic  # noqa: E402


def _rows(wh: Path, ident: str) -> pa.Table:
    return ki.catalog(wh).load_table(ident).scan().to_arrow().sort_by([("partition", "ascending"),
                                                                       ("offset", "ascending")])


def test_tiered_storage_exports_the_whole_history(tmp_path: Path):
    root = tmp_path / "data"
    write_log(root, segments=4, batches=10, per_batch=20, value_size=30)
    t = tier_log(root, remote=3)
    remote = LocalTieredStorage(t.remote_root)
    r = ki.export(t.root, "orders", "kafka.orders", warehouse=tmp_path / "wh", remote_storage=remote)
    with kvlog.Log.open(t.whole_dir, read_only=True) as whole:
        want = whole.to_arrow()
    assert r.rows == want.num_rows == 800
    got = _rows(tmp_path / "wh", "kafka.orders")
    assert got.column("offset").to_pylist() == want.column("offset").to_pylist()
    assert got.column("value").to_pylist() == want.column("value").to_pylist()
    assert got.column("key").to_pylist() == want.column("key").to_pylist()


def test_a_data_directory_in_an_object_store(tmp_path: Path, s3):
    root = tmp_path / "d"
    expected = write_topic(root, partitions=2, n=120)
    key = s3.new_prefix()
    s3.upload(root, key)
    r = ki.export(s3.uri(key), "clicks", "kafka.clicks", warehouse=tmp_path / "wh")
    assert r.rows == 240
    assert_exactly(ki.catalog(tmp_path / "wh"), "kafka.clicks", expected)
    st = ki.status(s3.uri(key), "clicks", "kafka.clicks", warehouse=tmp_path / "wh")
    assert st.lag == 0 and [p.exported for p in st.partitions] == [120, 120]


def test_several_brokers_directories_as_one_cluster(tmp_path: Path):
    """Three brokers' directories: each partition exported once, from the replica the cluster read chooses, to
    what the cluster committed (a lagging replica neither chosen nor shortening it; the leader's unreplicated
    tail past the high watermarks left out), the cluster id recorded."""
    import json

    from tests.test_cluster_read import broker, records

    full = {("t", p): [(records(p, 0, 60), 0)] for p in range(2)}
    lagging = {("t", p): [(records(p, 0, 40), 0)] for p in range(2)}
    hw = {("t", 0): 60, ("t", 1): 50}
    dirs = [broker(tmp_path, 1, full, hw=hw), broker(tmp_path, 2, full, hw=hw), broker(tmp_path, 3, lagging)]
    r = ki.export([str(d) for d in dirs], "t", "kafka.t", warehouse=tmp_path / "wh")
    got = _rows(tmp_path / "wh", "kafka.t")
    with kvlog.Cluster([str(d) for d in dirs]) as c:
        ends = {p: c.end_offset("t", p) for p in range(2)}
    assert r.offsets == ends
    assert sorted(zip(got.column("partition").to_pylist(), got.column("offset").to_pylist())) == \
        [(p, o) for p in range(2) for o in range(ends[p])]
    snap = ki.catalog(tmp_path / "wh").load_table("kafka.t").current_snapshot()
    assert snap.summary["kvlog.cluster-id"] == "c1" and json.loads(snap.summary["kvlog.offsets"]) == \
        {str(p): e for p, e in ends.items()}
