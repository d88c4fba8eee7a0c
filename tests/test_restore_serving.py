"""What the broker tests (tests/test_broker_restore.py) showed a Kafka 4.x broker needs from ``kvlog restore`` and
``kvlog adopt``, checked here without a broker:

* the target broker's ``.kafka_cleanshutdown`` stays (without it a 4.x controller handles the broker as uncleanly
  shut down and elects every partition of it again, uncleanly); ``--recover`` removes it;
* the high watermark of a restored partition is its end (a new topic's stale 0 lies below a restored log start,
  and the leader then moves its high watermark backwards);
* a producer snapshot at the restored end: the source's producer state for the same topic (cluster), none for a
  new one (the new cluster hands out the same producer ids to others: OUT_OF_ORDER_SEQUENCE_NUMBER);
* ``--groups-partitions`` finds the ``__consumer_offsets`` topic id itself (the source's with --keep-topic-ids);
* a running broker (its lock on ``.lock``) is refused;
* ``kvlog adopt``: topic ids from the target, leader epochs lowered to the partition's, root checkpoints, a
  stray-to-be refused with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid

import pytest

from kvlog import LogConfig, Record, broker_files, checkpoint
from kvlog.backup.adopt import AdoptError, adopt, broker_running, cap_leader_epochs
from kvlog.backup.restore import restore
from kvlog.backup.run import backup
from kvlog.cli import main
from kvlog.errors import BackupError
from kvlog.internal_topics.decoders import encode_coordinator_record, encode_metadata_record
from kvlog.log import Log
from kvlog.manager import LogManager
from kvlog.producer_state import read_snapshot
from kvlog.records import encode_batch

TID = "AAAAAAAAAAAAAAAAAAAAAQ"  # the source's topic id
NEW = "AAAAAAAAAAAAAAAAAAAAAg"  # the target's (a new cluster's) id of the same topic
OFFSETS_ID = "AAAAAAAAAAAAAAAAAAAAAw"
SMALL = LogConfig(segment_bytes=4096)
MARKER = b'{"version":0,"brokerEpoch":42}'


def _source(root, *, with_groups: bool = False) -> str:
    """A kvlog-written data directory: ``orders-0`` with an idempotent producer (id 0, as a new cluster's first
    producer gets), its log start moved to 77; optionally a group's commit in ``__consumer_offsets-0``."""
    root = str(root)
    with LogManager(root) as m:
        m.create_topic("orders", 1, SMALL, topic_id=TID)
        log = m.log("orders", 0)
        for i in range(0, 200, 5):
            log.append([Record(b"k%d" % j, b"v%06d" % (i + j), 1_000 + i + j) for j in range(5)],
                       producer_id=0, producer_epoch=0, base_sequence=i)
        log.delete_records(77)
        if with_groups:
            m.create_topic("__consumer_offsets", 1, topic_id=OFFSETS_ID)
            k, v = encode_coordinator_record("__consumer_offsets", 1, {"group": "g", "topic": "orders", "partition": 0},
                                             3, {"offset": 150, "leaderEpoch": -1, "metadata": "m",
                                                 "commitTimestamp": 1_500})
            m.log("__consumer_offsets", 0).append([Record(k, v, 1_500)])
    return root


def _target(root, topic_id: str = NEW) -> str:
    """A stopped broker's log directory after the topic was created: its empty partition directory, a high
    watermark of 0 for it, meta.properties and the clean-shutdown marker."""
    os.makedirs(os.path.join(root, "orders-0"))
    broker_files.write_partition_metadata(os.path.join(root, "orders-0"), topic_id)
    checkpoint.write_offsets(os.path.join(root, checkpoint.REPLICATION_OFFSET), {("orders", 0): 0})
    checkpoint.write_offsets(os.path.join(root, checkpoint.RECOVERY_POINT), {("orders", 0): 0})
    with open(os.path.join(root, "meta.properties"), "w") as f:
        f.write("version=1\ncluster.id=x\nnode.id=1\n")
    with open(os.path.join(root, ".kafka_cleanshutdown"), "wb") as f:
        f.write(MARKER)
    return str(root)


@pytest.fixture
def backed_up(tmp_path):
    src = _source(tmp_path / "src")
    r = backup(src, tmp_path / "bak")
    assert not r.errors
    return tmp_path / "bak"


# --------------------------------------------------------------------------------------------------- restore
def test_restore_keeps_the_target_brokers_clean_shutdown_marker(backed_up, tmp_path):
    dst = _target(tmp_path / "dst")
    restore(backed_up, dst)
    assert _read(os.path.join(dst, ".kafka_cleanshutdown")) == MARKER
    assert checkpoint.read_offsets(os.path.join(dst, checkpoint.RECOVERY_POINT)) == {}


def test_restore_with_recover_removes_the_marker(backed_up, tmp_path):
    dst = _target(tmp_path / "dst")
    assert main(["restore", str(backed_up), dst, "--recover"]) == 0
    assert not os.path.exists(os.path.join(dst, ".kafka_cleanshutdown"))


def test_restore_sets_the_high_watermark_at_the_restored_end(backed_up, tmp_path):
    dst = _target(tmp_path / "dst")
    res = restore(backed_up, dst)
    assert (res.partitions["orders-0"].log_start_offset, res.partitions["orders-0"].end_offset) == (77, 200)
    assert checkpoint.read_offsets(os.path.join(dst, checkpoint.REPLICATION_OFFSET)) == {("orders", 0): 200}
    assert checkpoint.read_offsets(os.path.join(dst, checkpoint.LOG_START_OFFSET)) == {("orders", 0): 77}


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _snapshots(directory: str) -> dict[int, list]:
    return {int(n[:20]): read_snapshot(_read(os.path.join(directory, n)))
            for n in sorted(os.listdir(directory)) if n.endswith(".snapshot")}


def test_restore_into_a_new_topic_carries_no_producer_state(backed_up, tmp_path):
    """The target cluster's first idempotent producer gets id 0 too: with the source's entry for id 0 restored,
    its first append would be refused (OUT_OF_ORDER_SEQUENCE_NUMBER, seen on Kafka 4.1.2)."""
    dst = _target(tmp_path / "dst")
    restore(backed_up, dst)
    assert _snapshots(os.path.join(dst, "orders-0")) == {200: []}


def test_restore_into_the_same_topic_keeps_the_producer_state_at_its_end(tmp_path):
    src = _source(tmp_path / "src")
    with Log.open(os.path.join(src, "orders-0"), read_only=True) as log:
        want = [(e.producer_id, e.producer_epoch, e.last_seq) for e in log.producer_state.producers.values()]
    for n in os.listdir(os.path.join(src, "orders-0")):  # a live broker's partition: no snapshot at its end
        if n.endswith(".snapshot"):
            os.unlink(os.path.join(src, "orders-0", n))
    backup(src, tmp_path / "bak")
    dst = _target(tmp_path / "dst", topic_id=TID)
    restore(tmp_path / "bak", dst)
    snaps = _snapshots(os.path.join(dst, "orders-0"))
    assert list(snaps) == [200]
    assert [(e.producer_id, e.producer_epoch, e.last_seq) for e in snaps[200]] == want == [(0, 0, 199)]


def test_groups_partitions_find_the_offsets_topic_id_themselves(tmp_path):
    src = _source(tmp_path / "src", with_groups=True)
    backup(src, tmp_path / "bak")
    dst = tmp_path / "dst"
    res = restore(tmp_path / "bak", dst, keep_topic_ids=True, groups_partitions=1)
    assert broker_files.read_partition_metadata(str(dst / "__consumer_offsets-0")) == OFFSETS_ID
    assert res.groups["offsets"] == 1
    hw = checkpoint.read_offsets(str(dst / checkpoint.REPLICATION_OFFSET))
    assert hw[("__consumer_offsets", 0)] == 1 and hw[("orders", 0)] == 200
    assert any("no meta.properties" in w for w in res.warnings)


def _hold_lock(path: str) -> subprocess.Popen[str]:
    code = ("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
            "fcntl.lockf(fd, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code, path], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "locked"
    return p


def test_restore_and_adopt_refuse_a_running_broker(backed_up, tmp_path):
    dst = _target(tmp_path / "dst")
    assert not broker_running(dst)
    p = _hold_lock(os.path.join(dst, ".lock"))  # what a running broker holds (FileChannel.tryLock)
    try:
        assert broker_running(dst)
        with pytest.raises(BackupError, match="a broker is running"):
            restore(backed_up, dst)
        with pytest.raises(AdoptError, match="a broker is running"):
            adopt(dst, [os.path.join(dst, "orders-0")])
    finally:
        p.kill()
        p.communicate()
    assert not broker_running(dst)


# ----------------------------------------------------------------------------------------------------- adopt
def _kvlog_partition(root, name: str = "orders-0", epochs: tuple[int, ...] = (-1, 7)) -> str:
    """A partition directory kvlog's Log wrote elsewhere: a leader append (epoch -1), then batches copied from a
    leader of each epoch in ``epochs``."""
    path = os.path.join(str(root), name)
    with Log.open(path, SMALL) as log:
        log.append([Record(b"a", b"leader %d" % i, 1_000 + i) for i in range(5)])
        for e in epochs[1:]:
            log.append(encode_batch([Record(b"e", b"epoch %d/%d" % (e, i), 2_000 + i) for i in range(3)],
                                    base_offset=log.log_end_offset, partition_leader_epoch=e), assign_offsets=False)
    return path


def test_adopt_refuses_a_topic_the_target_does_not_know_and_writes_nothing(tmp_path):
    dst = tmp_path / "dst"
    dst.mkdir()
    src = _kvlog_partition(tmp_path / "kv", "unknown-0")
    before = sorted(os.listdir(dst))
    with pytest.raises(AdoptError, match=r"unknown to the target.*unknown-0\.<id>-stray"):
        adopt(dst, [src])
    assert sorted(os.listdir(dst)) == before
    assert main(["adopt", str(dst), src]) == 1


def test_adopt_takes_the_brokers_topic_id_and_lowers_epochs_to_the_partitions(tmp_path):
    dst = _target(tmp_path / "dst")
    broker_files.write_leader_epochs(os.path.join(dst, "orders-0", "leader-epoch-checkpoint"), [(3, 0)])
    src = _kvlog_partition(tmp_path / "kv", epochs=(-1, 2, 7))
    res = adopt(dst, [src])
    p = res.partitions["orders-0"]
    assert (p.topic_id, p.topic_id_from, p.leader_epoch_cap, p.epochs_lowered) == (NEW, "target", 3, 1)
    out = os.path.join(dst, "orders-0")
    assert broker_files.read_partition_metadata(out) == NEW
    assert broker_files.read_leader_epochs(os.path.join(out, "leader-epoch-checkpoint")) == [(2, 5), (3, 8)]
    with Log.open(out, read_only=True) as log:
        assert [b.partition_leader_epoch for b in log.read(0, 1 << 20).batches()] == [-1, 2, 3]
        assert (log.log_start_offset, log.log_end_offset) == (0, 11)
    assert checkpoint.read_offsets(os.path.join(dst, checkpoint.REPLICATION_OFFSET)) == {("orders", 0): 11}
    assert checkpoint.read_offsets(os.path.join(dst, checkpoint.RECOVERY_POINT)) == {}
    assert os.path.exists(os.path.join(out, f"{11:020d}.snapshot"))
    assert os.path.exists(os.path.join(dst, ".kafka_cleanshutdown"))
    assert os.path.isdir(src)  # copied, not moved


def test_adopt_with_kraft_metadata_checks_the_replica_and_caps_at_its_epoch(tmp_path):
    dst = _target(tmp_path / "dst")
    tid = uuid.UUID(bytes=broker_files_bytes(NEW))

    def rec(api_key, data):
        return Record(None, encode_metadata_record(api_key, 0, data), 1_000)

    part = {"topicId": tid, "replicas": [1], "isr": [1], "removingReplicas": [], "addingReplicas": [], "leader": 1,
            "leaderEpoch": 4, "partitionEpoch": 4}
    with Log.open(tmp_path / "meta" / "__cluster_metadata-0") as log:
        log.append([rec(2, {"name": "orders", "topicId": tid}), rec(3, {**part, "partitionId": 0}),
                    rec(3, {**part, "partitionId": 1, "replicas": [2], "isr": [2], "leader": 2})])
    a = _kvlog_partition(tmp_path / "kv", "orders-0", epochs=(-1, 9))
    res = adopt(dst, [a], metadata_dir=tmp_path / "meta")
    assert (res.partitions["orders-0"].topic_id_from, res.partitions["orders-0"].leader_epoch_cap) == ("metadata", 4)
    b = _kvlog_partition(tmp_path / "kv", "orders-1")
    with pytest.raises(AdoptError, match=r"not a replica of orders-1.*-stray"):
        adopt(dst, [b], metadata_dir=tmp_path / "meta")
    c = _kvlog_partition(tmp_path / "kv", "orders-5")
    with pytest.raises(AdoptError, match="no partition 5"):
        adopt(dst, [c], metadata_dir=tmp_path / "meta")
    with pytest.raises(AdoptError, match="not the one the KRaft metadata gives"):
        adopt(dst, [a], metadata_dir=tmp_path / "meta", topic_ids={"orders": TID}, force=True)


def broker_files_bytes(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "==")


def test_adopt_refuses_a_target_that_holds_records_unless_forced_and_dry_runs(tmp_path):
    dst = _target(tmp_path / "dst")
    first = _kvlog_partition(tmp_path / "kv1")
    adopt(dst, [first])
    second = _kvlog_partition(tmp_path / "kv2", epochs=(-1,))
    with pytest.raises(AdoptError, match="already holds records"):
        adopt(dst, [second])
    files = {n: _read(os.path.join(dst, "orders-0", n)) for n in os.listdir(os.path.join(dst, "orders-0"))}
    res = adopt(dst, [second], force=True, dry_run=True)
    assert res.dry_run and res.partitions["orders-0"].end_offset == 5
    assert files == {n: _read(os.path.join(dst, "orders-0", n)) for n in os.listdir(os.path.join(dst, "orders-0"))}
    out = subprocess.run([sys.executable, "-m", "kvlog", "adopt", dst, second, "--force", "--move", "--json"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["partitions"]["orders-0"]["end_offset"] == 5
    assert not os.path.exists(second)
    with Log.open(os.path.join(dst, "orders-0"), read_only=True) as log:
        assert log.log_end_offset == 5
    assert not [n for n in os.listdir(dst) if n.endswith("-delete")]


def test_adopt_in_place_keeps_the_directory_kafka_created(tmp_path):
    """kvlog wrote into the topic's own directory (the procedure of docs/broker-files.md): adopt fixes it there."""
    dst = _target(tmp_path / "dst")
    shutil.rmtree(os.path.join(dst, "orders-0"))
    _kvlog_partition(dst, epochs=(-1, 7))
    broker_files.write_partition_metadata(os.path.join(dst, "orders-0"), NEW)
    res = adopt(dst, [os.path.join(dst, "orders-0")])
    p = res.partitions["orders-0"]
    assert p.in_place and p.topic_id == NEW and p.leader_epoch_cap == 0 and p.epochs_lowered == 1


def test_cap_leader_epochs_rebuilds_the_checkpoint_from_the_batches(tmp_path):
    path = _kvlog_partition(tmp_path, epochs=(-1, 1, 5, 9))
    lowered, entries = cap_leader_epochs(path, 5, log_start=0, write=False)
    assert (lowered, entries) == (1, [(1, 5), (5, 8)])
    lowered, entries = cap_leader_epochs(path, 5, log_start=6)
    assert (lowered, entries) == (1, [(1, 6), (5, 8)])
    assert broker_files.read_leader_epochs(os.path.join(path, "leader-epoch-checkpoint")) == [(1, 6), (5, 8)]
