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
