"""``kvlog backup`` of a cluster's brokers' log directories (issue 50, item 3), on directories laid out as a
replicated cluster's brokers lay them out (tests/test_cluster_read.py's ``broker``): each partition once, from the
replica a cluster read chooses, cut at what the cluster committed; replicas found again by their bytes; diverged
replicas an error of the run unless asked for. The live cluster's round trip is tests/test_broker_cluster_restore.py."""

from __future__ import annotations

import pytest

import kvlog
from kvlog.backup.run import backup, latest_manifest
from kvlog.backup.target import open_target
from kvlog.cli import main as cli
from tests.test_cluster_read import broker, records, rows


def manifest(path):
    m = latest_manifest(open_target(str(path)))
    assert m is not None
    return m


def test_each_partition_once_from_the_chosen_replica_cut_at_the_committed_end(tmp_path):
    # followers copy the leader's batches: the leader holds one more, not yet fetched (past the high watermark)
    leader = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 70), 2), (records(p, 70, 75), 2)] for p in range(3)}
    full = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 70), 2)] for p in range(3)}
    lagging = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 50), 2)] for p in range(3)}
    hw = {("t", p): 68 for p in range(3)}
    dirs = [broker(tmp_path, 1, leader, hw=hw), broker(tmp_path, 2, full, hw=hw), broker(tmp_path, 3, lagging, hw=hw)]
    r = backup(dirs, tmp_path / "bak")
    assert not r.errors and r.run == 1 and r.partitions == 3
    assert rows(tmp_path / "bak") == rows(dirs) and len(rows(dirs)) == 3 * 70
    m = manifest(tmp_path / "bak")
    for e in m.partitions.values():
        assert (e.log_start_offset, e.end_offset, e.cut) == (0, 70, "cluster_committed")
        assert e.replica.startswith(str(tmp_path / "broker-"))
    # the brokers in another order: the same bytes found in another broker's replica, nothing copied again
    again = backup(dirs[::-1], tmp_path / "bak")
    assert again.run is None and again.files_copied == 0


def test_diverged_partitions_are_errors_of_the_run_or_the_newest_leaders(tmp_path):
    old = {("d", 0): [(records(0, 0, 20), 1), (records(0, 20, 30, b"-lost"), 1)], ("d", 1): [(records(1, 0, 9), 1)]}
    new = {("d", 0): [(records(0, 0, 20), 1), (records(0, 20, 25, b"-new"), 2)], ("d", 1): [(records(1, 0, 9), 1)]}
    dirs = [broker(tmp_path, 1, old), broker(tmp_path, 2, new), broker(tmp_path, 3, new)]
    r = backup(dirs, tmp_path / "a")
    assert set(r.errors) == {"d-0"} and "broker 1" in r.errors["d-0"]
    assert set(manifest(tmp_path / "a").partitions) == {"d-1"}
    r = backup(dirs, tmp_path / "b", divergent="newest")
    assert not r.errors
    got = rows(str(tmp_path / "b"))
    assert len([x for x in got if x[1] == 0]) == 25 and not any(x[3].endswith(b"-lost") for x in got)


def test_the_cli_takes_several_directories(tmp_path, capfd):
    parts = {("t", p): [(records(p, 0, 30), 0)] for p in range(2)}
    dirs = [str(broker(tmp_path, n, parts)) for n in (1, 2, 3)]
    assert cli(["backup", *dirs, str(tmp_path / "bak")]) == 0
    assert "run 1: 2 partitions" in capfd.readouterr().out
    assert rows(str(tmp_path / "bak")) == rows(dirs)
    assert cli(["backup", *dirs[::-1], str(tmp_path / "bak")]) == 0
    assert "nothing new since run 1" in capfd.readouterr().out


def test_other_clusters_directories_are_refused(tmp_path):
    parts = {("t", 0): [(records(0, 0, 5), 0)]}
    dirs = [broker(tmp_path, 1, parts), broker(tmp_path, 2, parts, cluster_id="other")]
    with pytest.raises(kvlog.ConfigError, match="different clusters"):
        backup(dirs, tmp_path / "bak")


def test_a_backup_shared_by_the_brokers_each_backing_itself_up(tmp_path):
    """Each broker runs its own backup into one destination (``shared=True``): a partition is taken from the
    broker whose replica supersedes the stored one (a newer leader epoch, or as new and longer), partitions a
    broker does not hold keep their stored state, and the result reads as the cluster does."""
    e1 = [(records(0, 0, 40), 1), (records(0, 40, 70), 2)]
    b1 = broker(tmp_path, 1, {("t", 0): e1, ("t", 1): [(records(1, 0, 50), 3)]})
    b2 = broker(tmp_path, 2, {("t", 0): e1, ("t", 2): [(records(2, 0, 30), 0)]})
    b3 = broker(tmp_path, 3, {("t", 1): [(records(1, 0, 50), 3), (records(1, 50, 60), 3)],
                              ("t", 2): [(records(2, 0, 30), 0)]})
    bak = tmp_path / "bak"
    r1 = backup(b1, bak, shared=True)
    assert r1.run == 1 and r1.partitions == 2
    r2 = backup(b2, bak, shared=True)
    assert r2.run == 2 and r2.partitions == 3 and not r2.errors
    assert {k: e.end_offset for k, e in manifest(bak).partitions.items()} == {"t-0": 70, "t-1": 50, "t-2": 30}
    r3 = backup(b3, bak, shared=True)
    assert r3.run == 3 and not r3.errors
    m = manifest(bak)
    assert {k: e.end_offset for k, e in m.partitions.items()} == {"t-0": 70, "t-1": 60, "t-2": 30}
    assert m.partitions["t-1"].replica == "" and m.partitions["t-0"].cut == "high_watermark"
    assert rows(str(bak)) == rows([b1, b2, b3])
    # broker 1 again (nothing new of its own, its t-1 now behind the stored copy): no run
    assert backup(b1, bak, shared=True).run is None
    # the root checkpoints of the run: each partition's entries from the broker it was taken from
    from kvlog import checkpoint

    root = bak / ".kvlog-backup" / "runs" / f"{3:020d}" / "root"
    assert checkpoint.read_offsets(str(root / "replication-offset-checkpoint")) == \
        {("t", 0): 70, ("t", 1): 60, ("t", 2): 30}


def test_a_shared_backup_refuses_a_diverged_replica_unless_asked(tmp_path):
    old = [(records(0, 0, 20), 1), (records(0, 20, 30, b"-lost"), 1)]
    new = [(records(0, 0, 20), 1), (records(0, 20, 25, b"-new"), 2)]
    b1 = broker(tmp_path, 1, {("d", 0): new})
    b2 = broker(tmp_path, 2, {("d", 0): old})
    bak = tmp_path / "bak"
    backup(b1, bak, shared=True)
    r = backup(b2, bak, shared=True)
    assert set(r.errors) == {"d-0"} and "diverged at offset 20" in r.errors["d-0"]
    assert [x[3] for x in rows(str(bak))][-1].endswith(b"-new")
    assert not backup(b2, bak, shared=True, divergent="newest").errors  # the stored copy is the newest: kept
    assert len(rows(str(bak))) == 25


def test_a_broker_with_several_log_dirs_gets_each_partition_once(tmp_path):
    """restore_broker (``kvlog restore BACKUP DIR DIR``): without metadata, a partition goes to the log dir already
    holding its directory (as the broker created it), else to the least loaded one; never to two."""
    from kvlog.backup.placement import place_partitions, restore_broker

    parts = {("t", p): [(records(p, 0, 20 + p), 0)] for p in range(5)}
    src = broker(tmp_path / "src", 1, parts)
    backup(src, tmp_path / "bak")
    d0, d1 = tmp_path / "t1" / "data0", tmp_path / "t1" / "data1"
    for i, d in enumerate((d0, d1)):
        d.mkdir(parents=True)
        (d / "meta.properties").write_text(f"version=1\nnode.id=1\ncluster.id=c1\ndirectory.id=dir{i}AAAAAAAAAAAAAAAAAA\n")
    (d1 / "t-3").mkdir()  # the broker put t-3 in data1
    placement = place_partitions([f"t-{p}" for p in range(5)], [str(d0), str(d1)], None)
    assert placement["t-3"] == str(d1)
    assert sorted(placement.values()).count(str(d0)) == 3  # the others balanced: d1 holds t-3 already
    r = restore_broker(tmp_path / "bak", [d0, d1], keep_topic_ids=True)
    assert sorted(r.partitions) == [f"t-{p}" for p in range(5)]
    on = {d: sorted(p.name for p in d.iterdir() if p.name.startswith("t-")) for d in (d0, d1)}
    assert not set(on[d0]) & set(on[d1]) and sorted(on[d0] + on[d1]) == sorted(r.partitions)
    assert "t-3" in on[d1]
    assert rows([str(d0), str(d1)]) == rows(src)
