"""Partition discovery takes only what a broker would: ``<topic>-<int>`` directories holding Kafka partition
files; counts are what is on disk; mirror creates no partition the source lacks and never copies KRaft's
metadata log as a topic; a missing partition is a typed error."""

from __future__ import annotations

import os
import shutil

import pytest

import kvlog
from kvlog import _files
from kvlog.cli import main as cli_main
from kvlog.errors import ConfigError, DirectoryNotFoundError, UnknownTopicOrPartitionError
from kvlog.manager import LogManager
from kvlog.mirror import mirror_directory, mirror_log
from kvlog.records import Record

from conftest import FIXTURES

T0 = 1_700_000_000_000


def _log(path: str, n: int = 3) -> None:
    with kvlog.Log.open(path) as log:
        log.append([Record(b"k%d" % i, b"v%d" % i, T0 + i) for i in range(n)])


def _etc_like(root) -> None:
    """What /etc holds: directories named like partitions (dbus-1, polkit-1) with configuration files."""
    (root / "dbus-1" / "system.d").mkdir(parents=True)
    (root / "dbus-1" / "session.conf").write_text("<busconfig/>\n")
    (root / "polkit-1" / "rules.d").mkdir(parents=True)
    (root / "hosts").write_text("127.0.0.1 localhost\n")


def _broker_dir(root, missing: int = 14, partitions: int = 20) -> None:
    """A broker's directory: __consumer_offsets with one partition held elsewhere, a KRaft metadata log."""
    for p in range(partitions):
        if p != missing:
            _log(str(root / f"__consumer_offsets-{p}"), 1)
    _log(str(root / "orders-0"))
    (root / "__cluster_metadata-0").mkdir(parents=True)  # the real KRaft segment (valid metadata records)
    shutil.copyfile(FIXTURES / "kraft-metadata" / "00000000000000000000.log",
                    root / "__cluster_metadata-0" / "00000000000000000000.log")
    (root / "__cluster_metadata-0" / "quorum-state").write_text("{}")


@pytest.mark.parametrize("name,expected", [
    ("orders-0", ("orders", 0)), ("a.b_c-D9-12", ("a.b_c-D9", 12)), ("__consumer_offsets-49", ("__consumer_offsets", 49)),
    ("t-007", None), ("t-+1", None), ("t-\u0663", None), ("has space-1", None), ("-1", None), (".-0", None),
    ("t-0.0123456789abcdef0123456789abcdef-delete", None), ("t-2147483648", None), ("x" * 250 + "-0", None),
])
def test_partition_directory_names_are_the_ones_a_broker_writes(name, expected):
    assert _files.parse_partition_dir(name) == expected


def test_verify_of_a_directory_without_partitions_fails_and_says_so(tmp_path, capfd):
    _etc_like(tmp_path)
    capfd.readouterr()
    code = cli_main(["verify", str(tmp_path)])
    out, err = capfd.readouterr()
    assert code == 1
    assert "verified" not in out
    assert f"no Kafka partitions found in {tmp_path}" in err and "dbus-1, polkit-1" in err


def test_directories_named_like_partitions_without_kafka_files_are_not_partitions(tmp_path, capfd):
    _etc_like(tmp_path)
    _log(str(tmp_path / "orders-0"))
    with LogManager(tmp_path, read_only=True) as m:
        assert m.topics() == {"orders": 1}
    capfd.readouterr()
    assert cli_main(["verify", str(tmp_path)]) == 0
    out = capfd.readouterr()[0]
    assert "verified 1 partition: 0 with errors" in out
    assert "dbus-1: named like a partition directory but holds no Kafka partition files" in out


def test_topics_counts_the_partitions_on_disk_and_partitions_lists_them(tmp_path):
    _broker_dir(tmp_path)
    with LogManager(tmp_path, read_only=True) as m:
        assert m.topics()["__consumer_offsets"] == 19  # not 20 (the highest number + 1)
        assert m.partitions("__consumer_offsets") == [p for p in range(20) if p != 14]
        assert len(m.logs()) == 19 + 2
        with pytest.raises(UnknownTopicOrPartitionError, match=r"__consumer_offsets-14 .*0-13, 15-19") as info:
            m.log("__consumer_offsets", 14)
        assert info.value.topic == "__consumer_offsets" and info.value.partition == 14
        assert not isinstance(info.value, (KeyError, FileNotFoundError))
        with pytest.raises(UnknownTopicOrPartitionError, match="no topic 'nope'"):
            m.partitions("nope")
        with pytest.raises(UnknownTopicOrPartitionError):
            m.topic_config("nope")
        with pytest.raises(TypeError, match="partition number"):
            m.log("orders", "0")  # type: ignore[arg-type]


def test_a_missing_data_directory_is_a_typed_error(tmp_path):
    with pytest.raises(DirectoryNotFoundError):
        LogManager(tmp_path / "nowhere", read_only=True)
    with pytest.raises(DirectoryNotFoundError):
        mirror_directory(str(tmp_path / "nowhere"), str(tmp_path / "target"))


def test_create_topic_with_chosen_partitions(tmp_path):
    with LogManager(tmp_path) as m:
        logs = m.create_topic("sparse", [3, 0, 7])
        assert [log.partition for log in logs] == [0, 3, 7]
        assert m.topics() == {"sparse": 3} and m.partitions("sparse") == [0, 3, 7]
        for bad in (0, [], "12", [-1], [True]):
            with pytest.raises(ConfigError):
                m.create_topic("bad", bad)  # type: ignore[arg-type]
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("sparse-")) == ["sparse-0", "sparse-3", "sparse-7"]


def test_mirror_copies_only_existing_partitions_and_skips_the_metadata_log(tmp_path, capfd):
    src, dst = tmp_path / "src", tmp_path / "dst"
    _broker_dir(src)
    capfd.readouterr()
    assert cli_main(["mirror", str(src), str(dst)]) == 0
    out, err = capfd.readouterr()
    assert not (dst / "__consumer_offsets-14").exists()
    assert sorted(int(n.rsplit("-", 1)[1]) for n in os.listdir(dst) if n.startswith("__consumer_offsets-")) == \
        [p for p in range(20) if p != 14]
    assert not (dst / "__cluster_metadata-0").exists()
    assert "__cluster_metadata-0: skipped" in err and "Raft" in err
    with LogManager(dst, read_only=True) as m:
        assert m.topics() == {"__consumer_offsets": 19, "orders": 1}
    # a second run finds the same partitions in the target and copies nothing new
    results = mirror_directory(str(src), str(dst))
    assert results[("__cluster_metadata", 0)].skipped and results[("__cluster_metadata", 0)].records == 0
    assert all(s.records == 0 for s in results.values())


def test_the_metadata_log_is_never_mirrored_on_request(tmp_path):
    src = tmp_path / "src"
    _broker_dir(src, partitions=2)
    with pytest.raises(ConfigError, match="Raft"):
        mirror_directory(str(src), str(tmp_path / "dst"), topics=["__cluster_metadata"])
    with pytest.raises(ConfigError, match="cannot write into __cluster_metadata"):
        mirror_directory(str(src), str(tmp_path / "dst"), topic_map={"orders": "__cluster_metadata"})
    with kvlog.Log.open(str(tmp_path / "out-0")) as target, pytest.raises(ConfigError, match="Raft"):
        mirror_log(str(src / "__cluster_metadata-0"), target)
    assert cli_main(["mirror", str(src / "__cluster_metadata-0"), str(tmp_path / "copy-0")]) == 1


def test_mirror_into_a_target_lacking_a_source_partition_is_refused(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    _log(str(src / "t-0"))
    _log(str(src / "t-2"))
    with LogManager(dst) as m:
        m.create_topic("t", [0])
    with pytest.raises(ConfigError, match="lacks partition 2"):
        mirror_directory(str(src), str(dst))
