"""kvlog.iceberg: a topic exported into an Iceberg table, read back with pyiceberg (the table format's own reader):
every committed record exactly once, incrementally, with gaps and foreign tables refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


import kvlog
import kvlog.iceberg as ki
from kvlog import checkpoint
from kvlog.errors import ConfigError, ExportGapError, IcebergExportError
from tests.iceberg_support import NOW_MS, assert_exactly, record, summary, table_rows, write_topic

T = "kafka.clicks"


@pytest.fixture
def wh(tmp_path: Path) -> Path:
    return tmp_path / "warehouse"


def test_export_is_every_record_once_as_pyiceberg_reads_it(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    expected = write_topic(root)
    r = ki.export(root, "clicks", T, warehouse=wh)
    assert (r.rows, r.commits, r.offsets, r.previous) == (900, 1, {0: 300, 1: 300, 2: 300}, {})
    cat = ki.catalog(wh)
    assert_exactly(cat, T, expected)
    t = cat.load_table(T)
    assert [f.name for f in t.schema().fields] == ["key", "value", "partition", "offset", "timestamp",
                                                  "timestampType", "headers"]
    assert str(t.schema().find_field("timestamp").field_type) == "timestamptz"
    assert [str(f.transform) for f in t.spec().fields] == ["hour"]
    s = summary(cat, T)
    assert json.loads(s["kvlog.offsets"]) == {"0": 300, "1": 300, "2": 300}
    with kvlog.LogManager(root, read_only=True) as m:
        assert s["kvlog.topic"] == "clicks" and s["kvlog.topic-id"] == m.topic_id("clicks")
    # the timestamps span three hours: hour(timestamp) made a data file per hour
    files = t.inspect.files()
    assert files.num_rows == 3 and sum(files.column("record_count").to_pylist()) == 900


def test_rerun_adds_nothing_and_appends_add_exactly_the_new_records(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    expected = write_topic(root)
    ki.export(root, "clicks", T, warehouse=wh)
    cat = ki.catalog(wh)
    snap = cat.load_table(T).current_snapshot().snapshot_id
    again = ki.export(root, "clicks", T, warehouse=wh)
    assert (again.rows, again.commits, again.snapshot_id) == (0, 0, None)
    assert again.offsets == again.previous == {0: 300, 1: 300, 2: 300}
    assert cat.load_table(T).current_snapshot().snapshot_id == snap  # no new snapshot
    expected.update(write_topic(root, n=120, start=300))
    more = ki.export(root, "clicks", T, warehouse=wh)
    assert (more.rows, more.previous, more.offsets) == (360, {0: 300, 1: 300, 2: 300}, {0: 420, 1: 420, 2: 420})
    assert_exactly(cat, T, expected)


def test_small_commits_each_record_the_offsets_reached(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    expected = write_topic(root, n=400)
    r = ki.export(root, "clicks", T, warehouse=wh, commit_bytes=8000, partition_by=None)
    assert r.commits > 3 and r.rows == 1200
    cat = ki.catalog(wh)
    t = cat.load_table(T)
    seen = []
    for snap in t.snapshots():
        offsets = json.loads(snap.summary["kvlog.offsets"])
        rows = t.scan(snapshot_id=snap.snapshot_id).to_arrow()
        # each snapshot holds exactly the offsets below its recorded next offsets
        have = sorted(zip(rows.column("partition").to_pylist(), rows.column("offset").to_pylist()))
        want = sorted((int(p), o) for p, n in offsets.items() for o in range(n))
        assert have == want
        seen.append(offsets)
    assert len(seen) == r.commits
    assert_exactly(cat, T, expected)


def test_transactions_only_committed_records(tmp_path: Path, wh: Path):
    """read_committed (the default): an aborted transaction's records are left out, an open one's wait."""
    root = tmp_path / "d"
    with kvlog.LogManager(root) as m:
        m.create_topic("tx", 1)
        log = m.log("tx", 0)
        log.append([record(i, 0) for i in range(5)])                                   # 0-4
        log.append([record(i, 0) for i in range(5, 8)], producer_id=7, producer_epoch=0, base_sequence=0,
                   is_transactional=True)                                              # 5-7 aborted
        log.end_transaction(7, 0, commit=False)                                        # 8 marker
        log.append([record(i, 0) for i in range(9, 12)], producer_id=8, producer_epoch=0, base_sequence=0,
                   is_transactional=True)                                              # 9-11 committed
        log.end_transaction(8, 0, commit=True)                                         # 12
        log.append([record(13, 0)], producer_id=9, producer_epoch=0, base_sequence=0,
                   is_transactional=True)                                              # 13 open
    r = ki.export(root, "tx", "kafka.tx", warehouse=wh)
    cat = ki.catalog(wh)
    assert [row["offset"] for row in table_rows(cat, "kafka.tx")] == [0, 1, 2, 3, 4, 9, 10, 11]
    assert r.offsets == {0: 13}  # the last stable offset: the open transaction waits
    with kvlog.LogManager(root) as m:
        m.log("tx", 0).end_transaction(9, 0, commit=True)
    r2 = ki.export(root, "tx", "kafka.tx", warehouse=wh)
    assert r2.rows == 1 and r2.offsets == {0: 15}
    assert [row["offset"] for row in table_rows(cat, "kafka.tx")] == [0, 1, 2, 3, 4, 9, 10, 11, 13]


def test_a_brokers_checkpointed_high_watermark_bounds_the_export(tmp_path: Path, wh: Path):
    """Past the high watermark a broker last checkpointed lie records a leader change may still truncate."""
    root = tmp_path / "d"
    expected = write_topic(root, partitions=2, n=100)
    checkpoint.write_offsets(str(root / checkpoint.REPLICATION_OFFSET), {("clicks", 0): 60, ("clicks", 1): 100})
    r = ki.export(root, "clicks", T, warehouse=wh)
    assert r.offsets == {0: 60, 1: 100} and r.rows == 160
    st = ki.status(root, "clicks", T, warehouse=wh)
    assert [(p.partition, p.exported, p.end, p.log_end, p.lag) for p in st.partitions] == [(0, 60, 60, 100, 0),
                                                                                          (1, 100, 100, 100, 0)]
    checkpoint.write_offsets(str(root / checkpoint.REPLICATION_OFFSET), {("clicks", 0): 100, ("clicks", 1): 100})
    assert ki.status(root, "clicks", T, warehouse=wh).lag == 40
    assert ki.export(root, "clicks", T, warehouse=wh).rows == 40
    assert_exactly(ki.catalog(wh), T, expected)


def test_retention_past_the_exported_offset_is_a_gap(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    expected = write_topic(root, partitions=2, n=100)
    ki.export(root, "clicks", T, warehouse=wh)
    expected.update(write_topic(root, partitions=2, n=100, start=100))
    with kvlog.LogManager(root) as m:
        m.log("clicks", 1).delete_records(150)
    with pytest.raises(ExportGapError) as e:
        ki.export(root, "clicks", T, warehouse=wh)
    assert e.value.gaps == [(1, 100, 150, "retention moved the log start to 150")]
    assert "partition 1 [100, 150)" in str(e.value) and "gaps='accept'" in str(e.value)
    assert ki.status(root, "clicks", T, warehouse=wh).partitions[1].gap
    assert_exactly(ki.catalog(wh), T, {k: v for k, v in expected.items() if k[1] < 100})  # nothing committed
    r = ki.export(root, "clicks", T, warehouse=wh, gaps="accept")
    assert r.gaps == [(1, 100, 150, "retention moved the log start to 150")]
    assert json.loads(summary(ki.catalog(wh), T)["kvlog.gaps"]) == [[1, 100, 150, "retention moved the log start to 150"]]
    assert_exactly(ki.catalog(wh), T, {k: v for k, v in expected.items() if not (k[0] == 1 and 100 <= k[1] < 150)})


def test_compaction_past_the_exported_offset_is_a_gap(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=1, n=100)
    ki.export(root, "clicks", T, warehouse=wh)
    write_topic(root, partitions=1, n=100, start=100)
    checkpoint.write_offsets(str(root / "cleaner-offset-checkpoint"), {("clicks", 0): 180})
    with pytest.raises(ExportGapError) as e:
        ki.export(root, "clicks", T, warehouse=wh)
    assert e.value.gaps[0][:3] == (0, 100, 180) and "compacted" in e.value.gaps[0][3]


def test_a_recreated_topic_is_a_gap(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=2, n=50)
    ki.export(root, "clicks", T, warehouse=wh)
    with kvlog.LogManager(root) as m:
        old = m.topic_id("clicks")
        m.delete_topic("clicks")
    expected = write_topic(root, partitions=2, n=30)
    with pytest.raises(ExportGapError, match="recreated") as e:
        ki.export(root, "clicks", T, warehouse=wh)
    assert [g[:3] for g in e.value.gaps] == [(0, 50, 0), (1, 50, 0)] and old in e.value.gaps[0][3]
    r = ki.export(root, "clicks", T, warehouse=wh, gaps="accept")
    assert r.rows == 60 and r.offsets == {0: 30, 1: 30}
    rows = table_rows(ki.catalog(wh), T)
    assert len(rows) == 160  # the old topic's 100 rows stay; the new topic's 60 follow
    for (p, o), want in expected.items():  # each offset of the new topic: its row beside the old topic's
        assert sum(r["partition"] == p and r["offset"] == o for r in rows) == 2
        assert want["value"] in [r["value"] for r in rows if r["partition"] == p and r["offset"] == o]


def test_a_table_ahead_of_its_source_is_refused(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=1, n=100)
    ki.export(root, "clicks", T, warehouse=wh)
    with kvlog.LogManager(root) as m:
        m.log("clicks", 0).truncate_to(80)
    with pytest.raises(IcebergExportError, match="holds offsets up to 100, but the source's log ends at 80"):
        ki.export(root, "clicks", T, warehouse=wh)


def test_one_topic_a_table(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    write_topic(root, "a", partitions=1, n=10)
    write_topic(root, "b", partitions=1, n=10)
    ki.export(root, "a", T, warehouse=wh)
    with pytest.raises(IcebergExportError, match="holds topic 'a', not 'b'"):
        ki.export(root, "b", T, warehouse=wh)


def test_bad_arguments(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=1, n=10)
    for kwargs, match in [({"table": "clicks"}, "namespace.name"), ({"mode": "merge"}, "mode must be"),
                          ({"gaps": "skip"}, "gaps must be"), ({"on_error": "dlq"}, "give value_format"),
                          ({"partition_by": "hours(timestamp)"}, "partition_by"),
                          ({"partition_by": "bucket(key)"}, "takes a number first"),
                          ({"partition_by": "day(nope)"}, "no column 'nope'"),
                          ({"commit_bytes": 0}, "commit_bytes"), ({"schemas": "x"}, "schemas= is for typed")]:
        args = {"table": T, **kwargs}
        with pytest.raises(ConfigError, match=match):
            ki.export(root, "clicks", args.pop("table"), warehouse=wh, **args)
    with pytest.raises(kvlog.UnknownTopicOrPartitionError, match="no topic 'nope'"):
        ki.export(root, "nope", "kafka.nope", warehouse=wh)
    with pytest.raises(ConfigError, match="warehouse"):
        ki.export(root, "clicks", T)
    with pytest.raises(ConfigError, match="must be a local folder"):
        ki.catalog("s3://bucket/wh")


def test_partitioning_choices(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    expected = write_topic(root, partitions=3, n=60)
    ki.export(root, "clicks", "kafka.byp", warehouse=wh, partition_by=["partition", "day(timestamp)"])
    cat = ki.catalog(wh)
    spec = cat.load_table("kafka.byp").spec()
    assert [(f.name, str(f.transform)) for f in spec.fields] == [("partition_identity", "identity"),
                                                                ("timestamp_day", "day")]
    assert_exactly(cat, "kafka.byp", expected)
    ki.export(root, "clicks", "kafka.flat", warehouse=wh, partition_by=None)
    assert cat.load_table("kafka.flat").spec().is_unpartitioned()
    assert_exactly(cat, "kafka.flat", expected)


def test_any_catalog_by_uri(tmp_path: Path):
    """A SQL catalog given by its SQLAlchemy URL (as a Postgres one would be), its warehouse apart."""
    root = tmp_path / "d"
    expected = write_topic(root, partitions=1, n=30)
    uri = f"sqlite:///{tmp_path / 'other.db'}"
    r = ki.export(root, "clicks", T, catalog=uri, warehouse=tmp_path / "files")
    assert r.rows == 30
    from pyiceberg.catalog import load_catalog

    cat = load_catalog("kvlog", type="sql", uri=uri, warehouse=f"file://{tmp_path / 'files'}")
    assert_exactly(cat, T, expected)
    assert list((tmp_path / "files").rglob("*.parquet"))


def test_export_of_a_backup_and_of_a_partition_directory(tmp_path: Path, wh: Path):
    from kvlog.backup.run import backup

    root = tmp_path / "d"
    expected = write_topic(root, partitions=2, n=80)
    backup(root, tmp_path / "bk")
    r = ki.export(tmp_path / "bk", "clicks", "kafka.from_backup", warehouse=wh)
    assert r.rows == 160
    assert_exactly(ki.catalog(wh), "kafka.from_backup", expected)
    ki.export(root / "clicks-1", "clicks", "kafka.one", warehouse=wh)
    assert_exactly(ki.catalog(wh), "kafka.one", {k: v for k, v in expected.items() if k[0] == 1})


def test_headers_nulls_and_progress(tmp_path: Path, wh: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=2, n=90)
    seen = []
    ki.export(root, "clicks", T, warehouse=wh, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (180, 180) and all(d <= t for d, t in seen)
    rows = table_rows(ki.catalog(wh), T)
    assert any(r["key"] is None for r in rows) and any(r["value"] is None for r in rows)
    assert any(r["headers"] == [{"key": "h", "value": b"0"}, {"key": "n", "value": None}] for r in rows)
    assert all(r["timestampType"] == 0 for r in rows)
    assert min(int(r["timestamp"].timestamp() * 1000) for r in rows) >= NOW_MS - 3 * 3600 * 1000


def test_an_unreachable_catalog_is_a_kvlog_error_without_its_credentials(tmp_path: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=1, n=5)
    with pytest.raises(IcebergExportError, match="cannot open the catalog") as e:
        ki.export(root, "clicks", T, catalog="http://user:s3cret@127.0.0.1:9/catalog", warehouse=tmp_path / "wh")
    assert "s3cret" not in str(e.value)
