import os

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog import checkpoint
from kvlog.manager import LogManager, validate_topic_name

T0 = 1_700_000_000_000


@pytest.mark.parametrize("name", ["orders", "a.b_c-D9", "x" * 249])
def test_legal_topic_names(name):
    validate_topic_name(name)


@pytest.mark.parametrize("name", ["", ".", "..", "x" * 250, "has space", "slash/", "ünï", "a:b"])
def test_illegal_topic_names(name):
    with pytest.raises(kvlog.ConfigError):
        validate_topic_name(name)


def test_create_append_close_reopen(tmp_path):
    with LogManager(tmp_path) as mgr:
        logs = mgr.create_topic("orders", 3, LogConfig(segment_bytes=2000))
        assert [os.path.basename(log.dir) for log in logs] == ["orders-0", "orders-1", "orders-2"]
        for p, log in enumerate(logs):
            log.append([Record(b"k", b"v%d" % i, T0) for i in range(p + 1)])
        mgr.create_topic("events", 1)
        assert mgr.topics() == {"events": 1, "orders": 3}
        with pytest.raises(kvlog.ConfigError, match="already exists"):
            mgr.create_topic("orders", 1)
        with pytest.raises(kvlog.LogLockedError):
            LogManager(tmp_path)
    assert (tmp_path / ".kafka_cleanshutdown").exists()
    rp = checkpoint.read_offsets(str(tmp_path / checkpoint.RECOVERY_POINT))
    assert rp[("orders", 2)] == 3 and rp[("events", 0)] == 0
    with LogManager(tmp_path) as mgr:
        assert not (tmp_path / ".kafka_cleanshutdown").exists()  # deleted before any log loads
        assert mgr.topic_config("orders").segment_bytes == 2000
        assert mgr.log("orders", 2).log_end_offset == 3
        with pytest.raises(kvlog.UnknownTopicOrPartitionError):
            mgr.log("orders", 3)
        assert len(mgr.logs()) == 4


def test_checkpoint_file_format(tmp_path):
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 2)
        mgr.log("t", 1).append([Record(b"k", b"v", T0)] * 2)
    text = (tmp_path / "recovery-point-offset-checkpoint").read_text()
    assert text == "0\n2\nt 0 0\nt 1 2\n"
    (tmp_path / "log-start-offset-checkpoint").write_text("0\n5\nt 0 0\n")  # a wrong count
    with pytest.raises(checkpoint.CorruptCheckpointError):
        checkpoint.read_offsets(str(tmp_path / "log-start-offset-checkpoint"))
    with LogManager(tmp_path) as mgr:  # a damaged checkpoint means full recovery, not failure
        assert mgr.log("t", 1).log_end_offset == 2


def test_delete_topic(tmp_path):
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("gone", 2)
        mgr.create_topic("kept", 1)
        mgr.delete_topic("gone")
        assert mgr.topics() == {"kept": 1}
        assert not any(n.startswith("gone") for n in os.listdir(tmp_path))
        with pytest.raises(kvlog.UnknownTopicOrPartitionError):
            mgr.delete_topic("gone")
    rp = checkpoint.read_offsets(str(tmp_path / checkpoint.RECOVERY_POINT))
    assert ("gone", 0) not in rp


def test_opens_a_broker_style_directory(tmp_path):
    """Partition directories without kvlog's topic table (as a broker leaves them) are found."""
    d = tmp_path / "payments-4"
    d.mkdir()
    (d / f"{0:020d}.log").write_bytes(kvlog.encode_arrays(None, [b"a", b"b"], T0))
    (tmp_path / "meta.properties").write_text("version=1\n")
    (tmp_path / "payments-1.0123456789abcdef0123456789abcdef-delete").mkdir()
    with LogManager(tmp_path) as mgr:
        assert mgr.topics() == {"payments": 1}  # the directories on disk, not the highest number + 1
        assert mgr.partitions("payments") == [4]
        assert [r.value for r in mgr.log("payments", 4).records()] == [b"a", b"b"]
        assert not (tmp_path / "payments-1.0123456789abcdef0123456789abcdef-delete").exists()


def test_read_only_manager(tmp_path):
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 1).__getitem__(0).append([Record(b"k", b"v", T0)])
    ro = LogManager(tmp_path, read_only=True)
    assert [r.value for r in ro.log("t", 0).records()] == [b"v"]
    with pytest.raises(kvlog.KvlogError):
        ro.create_topic("new", 1)
    ro.close()
    assert (tmp_path / ".kafka_cleanshutdown").exists()  # a reader neither consumes nor writes the marker


def test_root_checkpoints_parsed_once_and_rewrites_seen(tmp_path, monkeypatch):
    """A broker's root checkpoints list every partition and each log's open reads them: parsed once while the file
    stays the same, and a rewrite of the same size (a new file renamed over it, as Kafka and kvlog write them) is
    seen at once."""
    from kvlog import checkpoint

    path = str(tmp_path / checkpoint.RECOVERY_POINT)
    checkpoint.write_offsets(path, {("t", p): 5 for p in range(3)})
    calls = []
    real = checkpoint.read_offsets
    monkeypatch.setattr(checkpoint, "read_offsets", lambda p: calls.append(p) or real(p))
    assert checkpoint.read_offsets_cached(path) == {("t", p): 5 for p in range(3)}
    assert checkpoint.read_offsets_cached(path)[("t", 2)] == 5 and len(calls) == 1
    checkpoint.write_offsets(path, {("t", p): 6 for p in range(3)})
    assert checkpoint.read_offsets_cached(path) == {("t", p): 6 for p in range(3)} and len(calls) == 2
    os.unlink(path)
    assert checkpoint.read_offsets_cached(path) == {}


def test_a_partition_directory_linked_outside_the_data_directory_is_refused(tmp_path):
    """A partition directory that is a symlink to a place outside the root is not opened (a writer would write
    there); one linked inside the root opens, and a topic's config is resolved once for all its partitions."""
    root, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    with LogManager(root) as m:
        m.create_topic("t", 2)
        m.log("t", 0).append([Record(b"k", b"v", T0)])
    (root / "t-1").rename(elsewhere)
    os.symlink(elsewhere, root / "t-1")
    (root / "keep").mkdir()
    (root / "t-0").rename(root / "keep" / "t-0")
    os.symlink(root / "keep" / "t-0", root / "t-0")
    with LogManager(root, read_only=True) as m:
        assert m.log("t", 0).log_end_offset == 1
        with pytest.raises(kvlog.KvlogError, match="resolves outside the data directory"):
            m.log("t", 1)
        assert m.topic_config("t") is m.topic_config("t")
