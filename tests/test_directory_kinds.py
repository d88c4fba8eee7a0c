"""``Log.open`` takes one partition's directory and ``LogManager`` a data directory; each refuses the other kind
(``WrongDirectoryKindError``, saying what the directory looks like and what to pass) instead of reading it as
an empty log or a data directory without topics, as the command line refuses the same paths.

What counts follows Kafka: a partition directory is named ``<topic>-<partition>`` (or that renamed
``.<uuid>-delete|-future|-stray``) and holds segments, indexes, producer snapshots, ``partition.metadata`` or
``leader-epoch-checkpoint``; a data directory holds ``meta.properties``, the root checkpoints,
``.kafka_cleanshutdown`` and partition directories.
"""

from __future__ import annotations

import os
import shutil

import pytest

from kvlog import Log, LogConfig, LogManager, Record
from kvlog.cli import main
from kvlog.errors import DirectoryNotFoundError, KvlogError, WrongDirectoryKindError

T0 = 1_700_000_000_000


def listing(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, n), root) for d, ds, fs in os.walk(root) for n in ds + fs)


@pytest.fixture
def kvlog_root(tmp_path):
    root = tmp_path / "data"
    with LogManager(root) as mgr:
        mgr.create_topic("orders", 2, LogConfig(segment_bytes=500))
        for i in range(20):
            mgr.log("orders", i % 2).append([Record(b"k", b"v%d" % i, T0 + i)])
    return root


@pytest.fixture
def broker_root(tmp_path):
    """A data directory as a broker leaves it: meta.properties, root checkpoints, partitions; no kvlog file."""
    root = tmp_path / "kafka-logs"
    with Log.open(root / "clicks-0") as log:
        log.append([Record(b"k", b"v", T0)])
    for n in os.listdir(root / "clicks-0"):
        if n == ".kvlog.lock":
            os.unlink(root / "clicks-0" / n)
    for n in os.listdir(root):
        if not os.path.isdir(root / n):
            os.unlink(root / n)
    (root / "meta.properties").write_text("version=1\nnode.id=1\ncluster.id=abc\n")
    (root / "recovery-point-offset-checkpoint").write_text("0\n1\nclicks 0 1\n")
    return root


@pytest.mark.parametrize("read_only", [True, False])
def test_log_open_refuses_a_data_directory(kvlog_root, broker_root, read_only):
    for root in (kvlog_root, broker_root):
        before = listing(root)
        with pytest.raises(WrongDirectoryKindError) as exc:
            Log.open(root, read_only=read_only)
        msg = str(exc.value)
        assert f"{root} is a Kafka data directory" in msg and "log.dirs" in msg
        assert os.path.join(str(root), "<topic>-<partition>") in msg and f"LogManager({str(root)!r}" in msg
        assert listing(root) == before  # (a writer's lock file did not go into the root)


def test_the_signs_of_a_data_directory(tmp_path):
    # a fresh broker's directory before any partition: its root files alone
    for name in ("meta.properties", ".kafka_cleanshutdown", "log-start-offset-checkpoint", "kvlog-topics.json"):
        d = tmp_path / f"root-{name.strip('.')}"
        d.mkdir()
        (d / name).write_text("0\n0\n")
        with pytest.raises(WrongDirectoryKindError, match=f"it holds {name}"):
            Log.open(d, read_only=True)
    # partition directories alone (a data directory named like a partition, as kafka-logs-1 is)
    d = tmp_path / "kafka-logs-1"
    with Log.open(d / "t-3") as log:
        log.append([Record(b"k", b"v", T0)])
    for n in os.listdir(d):
        if n != "t-3":
            os.unlink(d / n)  # (the root checkpoints the writer kept)
    with pytest.raises(WrongDirectoryKindError, match=r"it holds t-3\)"):
        Log.open(d, read_only=True)


def test_log_open_read_only_refuses_a_directory_that_is_no_partition(tmp_path):
    d = tmp_path / "etc"
    (d / "dbus-1").mkdir(parents=True)  # named like a partition, holding no partition file
    (d / "hosts").write_text("127.0.0.1 localhost\n")
    with pytest.raises(WrongDirectoryKindError, match="is not a Kafka partition directory.*only dbus-1, hosts"):
        Log.open(d, read_only=True)
    (d / "dbus-1" / "system.conf").write_text("<busconfig/>")
    with pytest.raises(WrongDirectoryKindError, match="is not a Kafka partition directory.*only system.conf"):
        Log.open(d / "dbus-1", read_only=True)
    empty = tmp_path / "scratch"
    empty.mkdir()
    with pytest.raises(WrongDirectoryKindError, match="empty directory whose name is not a partition's"):
        Log.open(empty, read_only=True)
    assert isinstance(WrongDirectoryKindError("x"), (KvlogError, ValueError))


def test_what_stays_legitimate(tmp_path):
    # an empty partition directory, by each of Kafka's names for one, reads as an empty log
    for name in ("orders-0", "orders-12.0123456789abcdef0123456789abcdef-delete",
                 "orders-1.0123456789abcdef0123456789abcdef-future", "__consumer_offsets-7"):
        (tmp_path / name).mkdir()
        with Log.open(tmp_path / name, read_only=True) as log:
            assert (log.log_start_offset, log.log_end_offset) == (0, 0)
    # a partition whose segments are all remote (tiered) keeps its partition files only
    d = tmp_path / "tiered-0"
    d.mkdir()
    (d / "leader-epoch-checkpoint").write_text("0\n0\n")
    Log.open(d, read_only=True).close()
    # a new directory, and an empty existing one, opened for writing: how a log is created, whatever its name
    for d in (tmp_path / "new" / "scratch", tmp_path / "empty"):
        if d.name == "empty":
            d.mkdir()
        with Log.open(d) as log:
            log.append([Record(b"k", b"v", T0)])
        with Log.open(d, read_only=True) as log:  # and a reader then sees it, whatever its name
            assert log.log_end_offset == 1
    # a kvlog log with a name of its own, before its first append, beside its writer
    with Log.open(tmp_path / "mylog") as w, Log.open(tmp_path / "mylog", read_only=True) as r:
        assert r.log_end_offset == w.log_end_offset == 0
    # a directory of segments is a log whatever it holds beside them
    d = tmp_path / "copied"
    shutil.copytree(tmp_path / "empty", d)
    (d / "NOTES.txt").write_text("copied from broker 3")
    with Log.open(d, read_only=True) as log:
        assert log.log_end_offset == 1


@pytest.mark.parametrize("read_only", [True, False])
def test_log_manager_refuses_a_partition_directory(kvlog_root, broker_root, read_only):
    for part in (kvlog_root / "orders-0", broker_root / "clicks-0"):
        before = listing(part)
        with pytest.raises(WrongDirectoryKindError) as exc:
            LogManager(part, read_only=read_only)
        msg = str(exc.value)
        assert f"{part} is a partition directory" in msg and "00000000000000000000.log" in msg
        assert f"LogManager({str(part.parent)!r})" in msg and f"Log.open({str(part)!r})" in msg
        assert listing(part) == before  # no .lock, no checkpoints, no topic table written into it
    d = kvlog_root.parent / "only-metadata-0"
    d.mkdir()
    (d / "partition.metadata").write_text("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n")
    with pytest.raises(WrongDirectoryKindError, match="it holds partition.metadata"):
        LogManager(d, read_only=read_only)


def test_log_manager_still_takes_data_directories(kvlog_root, broker_root, tmp_path):
    with LogManager(kvlog_root, read_only=True) as mgr:
        assert mgr.topics() == {"orders": 2}
    with LogManager(broker_root, read_only=True) as mgr:
        assert mgr.topics() == {"clicks": 1}
    with LogManager(tmp_path / "fresh") as mgr:  # a new data directory
        mgr.create_topic("t", 1)
    (tmp_path / "empty-root").mkdir()
    with LogManager(tmp_path / "empty-root") as mgr:
        assert mgr.topics() == {}
    with pytest.raises(DirectoryNotFoundError):
        LogManager(tmp_path / "missing", read_only=True)


def test_the_command_line_refuses_the_same_paths(kvlog_root, tmp_path, capfd):
    empty = tmp_path / "scratch"
    empty.mkdir()
    assert main(["verify", str(empty)]) == 1
    assert "no Kafka partitions found" in capfd.readouterr().err
    with pytest.raises(WrongDirectoryKindError):
        Log.open(empty, read_only=True)
    assert main(["groups", str(kvlog_root / "orders-0")]) == 1
    capfd.readouterr()
    with pytest.raises(WrongDirectoryKindError):
        LogManager(kvlog_root / "orders-0", read_only=True)
