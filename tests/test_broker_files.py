"""partition.metadata and leader-epoch-checkpoint: the files a broker keeps in every partition directory,
written by kvlog's own writers as Kafka writes them, kept by Kafka's rules, and cross-checked by verify."""

import base64
import json
import os

import pytest

import kvlog
from kvlog import Log, LogConfig, LogManager, Record, broker_files, encode_batch
from kvlog.broker_files import LeaderEpochCache, new_topic_id, parse_topic_id
from kvlog.checkpoint import CorruptCheckpointError
from kvlog.verify import verify_path

T0 = 1_700_000_000_000


def batch(n, epoch, *, base=0, magic=2, ts=T0):
    return encode_batch([Record(b"k%d" % i, b"v%d" % i, ts) for i in range(n)], partition_leader_epoch=epoch,
                        base_offset=base, magic=magic)


def open_log(path, **kw):
    return Log.open(path, time=lambda: T0, **kw)


class KafkaModel:
    """The entries Kafka's LeaderEpochFileCache holds, written out plainly: assign, truncate, clear."""

    def __init__(self):
        self.entries = []

    def append(self, epoch, base, magic=2):
        if magic < 2:
            self.entries = []
        elif epoch >= 0 and (not self.entries or epoch > self.entries[-1][0]):
            self.entries = [(e, s) for e, s in self.entries if e < epoch and s < base] + [(epoch, base)]

    def truncate_to(self, end):
        self.entries = [(e, s) for e, s in self.entries if s < end]

    def start_at(self, start):
        below = [(e, s) for e, s in self.entries if s <= start]
        self.entries = ([(below[-1][0], start)] if below else []) + [(e, s) for e, s in self.entries if s > start]


def checkpoint_text(path):
    return (path / "leader-epoch-checkpoint").read_text()


# ------------------------------------------------------------------------------------------ topic ids
def test_new_topic_id_is_kafkas_random_uuid():
    seen = set()
    for _ in range(200):
        tid = new_topic_id()
        raw = base64.urlsafe_b64decode(tid + "==")
        assert len(tid) == 22 and not tid.startswith("-") and len(raw) == 16
        assert raw[6] >> 4 == 4 and raw[8] >> 6 == 2  # version 4, IETF variant (java.util.UUID.randomUUID)
        assert tid not in (broker_files.ZERO_TOPIC_ID, broker_files.METADATA_TOPIC_ID)
        seen.add(tid)
    assert len(seen) == 200


def test_partition_metadata_text_and_reader(tmp_path):
    tid = new_topic_id()
    broker_files.write_partition_metadata(str(tmp_path), tid)
    # Kafka's PartitionMetadata.encode: two lines, no line end after the id
    assert (tmp_path / "partition.metadata").read_bytes() == f"version: 0\ntopic_id: {tid}".encode()
    assert broker_files.read_partition_metadata(str(tmp_path)) == tid
    assert broker_files.read_partition_metadata(str(tmp_path / "nope")) is None
    for torn in (b"", bytes(46)):  # a crash's leftover of an unsynced write claims no id
        (tmp_path / "partition.metadata").write_bytes(torn)
        assert broker_files.read_partition_metadata(str(tmp_path)) is None
    for text in (f"version: 0\ntopic_id: {tid}\n", f"version:\t0\r\ntopic_id:  {tid}\nextra: x\n",
                 f"version: 1\ntopic_id: {tid}==\n"):  # a later version is read (Kafka's downgrade rule)
        (tmp_path / "partition.metadata").write_text(text)
        assert broker_files.read_partition_metadata(str(tmp_path)) == tid
    for text, why in ((f"version:0\ntopic_id: {tid}", "line 1"), (f"topic_id: {tid}", "line 1"),
                      ("version: 0\n", "line 2"), ("version: x\ntopic_id: " + tid, "not an integer"),
                      ("version: -1\ntopic_id: " + tid, "unknown version"),
                      ("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", "all-zero"),
                      ("version: 0\ntopic_id: " + tid[:21] + "+", "not a topic id"),
                      ("version: 0\ntopic_id: " + tid + " ", "not a topic id")):
        (tmp_path / "partition.metadata").write_text(text)
        with pytest.raises(kvlog.CorruptPartitionMetadataError, match="partition.metadata.*" + why):
            broker_files.read_partition_metadata(str(tmp_path))


def test_topic_ids_stable_shared_and_explicit(tmp_path):
    given = new_topic_id()
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("orders", 3)
        mgr.create_topic("restored", [1, 4], topic_id=given)
        tid = mgr.topic_id("orders")
        assert parse_topic_id(tid) == tid and tid != given
        assert [mgr.log("orders", p).topic_id for p in range(3)] == [tid] * 3
        assert mgr.topic_id("restored") == given and mgr.log("restored", 4).topic_id == given
        with pytest.raises(kvlog.CorruptPartitionMetadataError):
            mgr.create_topic("bad", 1, topic_id="not-an-id")
        assert "bad" not in mgr.topics()
    table = json.loads((tmp_path / "kvlog-topics.json").read_text())
    assert table["orders"]["topic_id"] == tid and table["restored"]["topic_id"] == given
    for p in range(3):
        assert broker_files.read_partition_metadata(str(tmp_path / f"orders-{p}")) == tid
    for read_only in (False, True):  # another manager, writer or reader, and the logs alone
        with LogManager(tmp_path, read_only=read_only) as mgr:
            assert mgr.topic_id("orders") == tid
            assert {mgr.log("orders", p).topic_id for p in range(3)} == {tid}
    with open_log(tmp_path / "orders-2") as log:
        assert log.topic_id == tid
    with Log.open(tmp_path / "orders-1", read_only=True) as log:
        assert log.topic_id == tid
    with pytest.raises(kvlog.UnknownTopicOrPartitionError):
        LogManager(tmp_path, read_only=True).topic_id("nope")


def test_a_log_alone_takes_its_data_directorys_id_or_makes_one(tmp_path):
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 2)
        tid = mgr.topic_id("t")
    with open_log(tmp_path / "t-7") as log:  # a new partition of a topic in the table
        assert log.topic_id == tid
    (tmp_path / "kvlog-topics.json").unlink()
    with open_log(tmp_path / "t-9") as log:  # no table: a sibling partition's partition.metadata
        assert log.topic_id == tid
    with open_log(tmp_path / "other-0") as log:  # nothing to go by: a new id, kept in the directory
        alone = log.topic_id
    assert alone not in (None, tid)
    with open_log(tmp_path / "other-0") as log:
        assert log.topic_id == alone
    with open_log(tmp_path / "bare-0", topic_id=broker_files.NO_TOPIC_ID) as log:  # asked to write none
        assert log.topic_id is None and not (tmp_path / "bare-0" / "partition.metadata").exists()
    with open_log(tmp_path / "__cluster_metadata-0") as log:  # KRaft's reserved id for the metadata log
        assert log.topic_id == broker_files.METADATA_TOPIC_ID
    with pytest.raises(kvlog.InconsistentTopicIdError, match="other-0.*partition.metadata"):
        open_log(tmp_path / "other-0", topic_id=tid)


def test_a_table_without_ids_gets_them(tmp_path):
    """A data directory kvlog wrote before it kept ids: a writable manager gives each topic one on first
    open, records it in the table, and every partition gets the same."""
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 2)
        mgr.log("t", 0).append([Record(b"k", b"v", T0)])
    table = json.loads((tmp_path / "kvlog-topics.json").read_text())
    del table["t"]["topic_id"]
    (tmp_path / "kvlog-topics.json").write_text(json.dumps(table))
    for p in range(2):
        (tmp_path / f"t-{p}" / "partition.metadata").unlink()
    with LogManager(tmp_path, read_only=True) as mgr:
        assert mgr.topic_id("t") is None and mgr.log("t", 0).topic_id is None
    with LogManager(tmp_path) as mgr:
        tid = mgr.log("t", 1).topic_id
        assert tid is not None and mgr.log("t", 0).topic_id == tid
    assert json.loads((tmp_path / "kvlog-topics.json").read_text())["t"]["topic_id"] == tid
    table["t"]["topic_id"] = "zz"
    (tmp_path / "kvlog-topics.json").write_text(json.dumps(table))
    with pytest.raises(kvlog.ConfigError, match="kvlog-topics.json.*'t'.*not a topic id"):
        LogManager(tmp_path, read_only=True)


def test_mismatched_and_malformed_ids_are_refused(tmp_path):
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 3)
        tid = mgr.topic_id("t")
    other = new_topic_id()
    broker_files.write_partition_metadata(str(tmp_path / "t-1"), other)
    for read_only in (False, True):
        with LogManager(tmp_path, read_only=read_only) as mgr:
            assert mgr.log("t", 0).topic_id == tid
            with pytest.raises(kvlog.InconsistentTopicIdError, match=f"t-1/partition.metadata.*{other}.*{tid}"):
                mgr.log("t", 1)
    # without a table, a reader holds the topic's partitions to the first one it opened
    (tmp_path / "kvlog-topics.json").unlink()
    with LogManager(tmp_path, read_only=True) as mgr:
        assert mgr.log("t", 1).topic_id == other
        with pytest.raises(kvlog.InconsistentTopicIdError, match="t-2/partition.metadata"):
            mgr.log("t", 2)
    (tmp_path / "t-2" / "partition.metadata").write_text("version: 0\ntopic_id: nonsense\n")
    with pytest.raises(kvlog.CorruptPartitionMetadataError, match="t-2/partition.metadata"):
        Log.open(tmp_path / "t-2", read_only=True)
    with pytest.raises(kvlog.CorruptPartitionMetadataError, match="t-2/partition.metadata"):
        open_log(tmp_path / "t-2")
    # what a crash leaves of an atomic replace (no bytes, or zeros) claims no id: the writer writes it again
    (tmp_path / "t-2" / "partition.metadata").write_bytes(bytes(40))
    with Log.open(tmp_path / "t-2", read_only=True) as log:
        assert log.topic_id is None
    with open_log(tmp_path / "t-2", topic_id=tid) as log:
        assert log.topic_id == tid
    assert broker_files.read_partition_metadata(str(tmp_path / "t-2")) == tid


# --------------------------------------------------------------------------------- leader epochs
def test_leader_epoch_cache_rules():
    c = LeaderEpochCache()
    assert c.assign(1, 0) and not c.assign(1, 5) and c.assign(3, 10) and c.assign(4, 20)
    assert c.entries == [(1, 0), (3, 10), (4, 20)]
    assert c.assign(2, 15) and c.entries == [(1, 0), (2, 15)]  # Kafka drops what breaks the order
    assert c.epoch_for_offset(14) == 1 and c.epoch_for_offset(15) == 2 and LeaderEpochCache().epoch_for_offset(0) is None
    c = LeaderEpochCache([(1, 0), (3, 10), (4, 20)])
    assert not c.truncate_from_start(0) and c.truncate_from_start(10) and c.entries == [(3, 10), (4, 20)]
    assert c.truncate_from_start(12) and c.entries == [(3, 12), (4, 20)]
    assert c.truncate_from_end(20) and c.entries == [(3, 12)] and not c.truncate_from_end(13)
    assert c.apply_batch(2, -1, 30) is False and c.apply_batch(2, 2, 30) is False  # unknown, or older: no entry
    assert c.apply_batch(2, 7, 30) and c.entries == [(3, 12), (7, 30)]
    assert c.apply_batch(1, 0, 40) and c.entries == []  # a v0/v1 batch clears the cache


def test_read_and_write_leader_epochs(tmp_path):
    file = tmp_path / "leader-epoch-checkpoint"
    path = str(file)
    assert broker_files.read_leader_epochs(path) == []
    broker_files.write_leader_epochs(path, [(0, 0), (4, 17)])
    assert file.read_text() == "0\n2\n0 0\n4 17\n"
    assert broker_files.read_leader_epochs(path) == [(0, 0), (4, 17)]
    file.write_text("")
    assert broker_files.read_leader_epochs(path) == []  # Kafka reads an empty checkpoint as no entries
    for text, why in (("0\n2\n0 0\n", "header says 2"), ("1\n0\n", "version 1"), ("0\n1\n0\n", "line 3"),
                      ("0\n2\n3 0\n2 5\n", "line 4.*does not follow"), ("0\n1\n-1 0\n", "out of range")):
        file.write_text(text)
        with pytest.raises(CorruptCheckpointError, match="leader-epoch-checkpoint.*" + why):
            broker_files.read_leader_epochs(path)


def test_appends_keep_the_checkpoint_as_kafka_does(tmp_path):
    model = KafkaModel()
    path = tmp_path / "t-0"
    with open_log(path) as log:
        assert checkpoint_text(path) == "0\n0\n"  # an empty cache is written, as a broker's new log has
        plan = [(3, -1), (2, 0), (4, 0), (1, 0), (2, 3), (2, -1), (5, 3), (1, 2), (3, 7), (2, 9)]
        for n, epoch in plan:  # one batch per append: the point path
            first = log.log_end_offset
            log.append(batch(n, epoch))
            model.append(epoch, first)
            assert log.leader_epochs == model.entries
        first = log.log_end_offset
        log.append(batch(2, 9) + batch(1, 11) + batch(3, 11) + batch(1, 12))  # several batches in one append
        for base, epoch in ((first, 9), (first + 2, 11), (first + 3, 11), (first + 6, 12)):
            model.append(epoch, base)
        assert log.leader_epochs == model.entries == [(0, 3), (3, 10), (7, 20), (9, 23), (11, 27), (12, 31)]
        log.append([Record(b"k", b"v", T0)])  # Records: encoded with epoch -1, nothing changes
        model.append(13, log.log_end_offset)
        log.append(batch(1, 13), compression="gzip")  # the general (recompressing) path
        assert log.leader_epochs == model.entries
    assert broker_files.read_leader_epochs(str(path / "leader-epoch-checkpoint")) == model.entries
    with open_log(path) as log:  # stable across a clean reopen
        assert log.leader_epochs == model.entries
    with Log.open(path, read_only=True) as log:
        assert log.leader_epochs == model.entries


def test_truncation_retention_and_start_over(tmp_path):
    model = KafkaModel()
    path = tmp_path / "t-0"
    cfg = LogConfig(segment_bytes=300, retention_ms=1000)
    with open_log(path, config=cfg) as log:
        for i, epoch in enumerate((0, 0, 2, 2, 3, 5, 5, 6, 8)):
            first = log.log_end_offset
            log.append(batch(2, epoch))
            model.append(epoch, first)
        assert log.leader_epochs == model.entries
        log.truncate_to(13)  # inside the batch at 12: whole batches go
        model.truncate_to(12)
        assert log.leader_epochs == model.entries == [(0, 0), (2, 4), (3, 8), (5, 10)]
        log.truncate_to(100)  # nothing to cut
        assert log.leader_epochs == model.entries
        log.delete_records(5)  # inside the batch at 4: Kafka moves the first entry to the new log start
        model.start_at(5)
        assert log.leader_epochs == model.entries == [(2, 5), (3, 8), (5, 10)]
        assert broker_files.read_leader_epochs(str(path / "leader-epoch-checkpoint")) == model.entries
        assert len(log.segments) > 2
        gone = log.delete_old_segments(now_ms=T0 + 10_000)  # retention: every segment before the active one
        assert gone and log.log_start_offset > 5
        model.start_at(log.log_start_offset)
        assert log.leader_epochs == model.entries
        log.truncate_fully_and_start_at(50)
        assert log.leader_epochs == [] and checkpoint_text(path) == "0\n0\n"
        log.append(batch(1, 9))
        assert log.leader_epochs == [(9, 50)]


def test_a_replicas_legacy_batch_clears_the_cache(tmp_path):
    path = tmp_path / "t-0"
    with open_log(path) as log:
        log.append(batch(2, 4))
        log.append(batch(1, -1, base=2, magic=1), assign_offsets=False)  # a v1 batch as a replica copies it
        assert log.leader_epochs == []
        log.append(batch(1, 6, base=3), assign_offsets=False)
        assert log.leader_epochs == [(6, 3)]
        log.append(batch(1, 7, base=10), assign_offsets=False)  # replica offsets with a gap
        assert log.leader_epochs == [(6, 3), (7, 10)]


def crash(log):
    """Stop as a killed process would: nothing closed, flushed or checkpointed."""
    for seg in log.segments:
        seg.close_handlers()
    log.release_lock()
    log._closed = True


def test_recovery_cuts_the_checkpoint_at_the_recovered_end(tmp_path):
    path = tmp_path / "t-0"
    log = open_log(path)
    for epoch in (1, 1, 2, 3):
        log.append(batch(3, epoch))
    log.flush(3)
    assert log.leader_epochs == [(1, 0), (2, 6), (3, 9)]
    crash(log)
    seg = path / "00000000000000000000.log"
    data = seg.read_bytes()
    seg.write_bytes(data[: len(data) - 10])  # the last batch (epoch 3) torn
    with open_log(path) as log:
        assert log.log_end_offset == 9
        assert log.leader_epochs == [(1, 0), (2, 6)]
    assert broker_files.read_leader_epochs(str(path / "leader-epoch-checkpoint")) == [(1, 0), (2, 6)]
    # entries a crash lost: recovery takes in the epochs of the batches of every segment it recovers
    log = open_log(path, config=LogConfig(segment_bytes=400))
    log.append(batch(1, 4))
    log.roll()
    log.append(batch(1, 6))
    log.append(batch(1, 7))
    log.flush(10)
    crash(log)
    broker_files.write_leader_epochs(str(path / "leader-epoch-checkpoint"), [(1, 0)])
    with open_log(path) as log:  # the recovery point is in the second segment: the first is not read
        assert [s.base_offset for s in log.segments] == [0, 10]
        assert log.leader_epochs == [(1, 0), (6, 10), (7, 11)]
    # no checkpoint at all (a directory kvlog wrote before it kept one), or a damaged one: rebuilt
    for damage in (None, b"0\n7\n", b"", bytes(30)):
        if damage is None:
            (path / "leader-epoch-checkpoint").unlink()
        else:
            (path / "leader-epoch-checkpoint").write_bytes(damage)
        with open_log(path) as log:
            assert log.leader_epochs == [(1, 0), (2, 6), (4, 9), (6, 10), (7, 11)]


# -------------------------------------------------------------------------------------------- verify
def problems(path, severity="error"):
    reports, root = verify_path(str(path))
    found = [(p.file, p.message) for r in reports for p in r.problems if p.severity == severity]
    return found + [(p.file, p.message) for p in root if p.severity == severity]


def epoch_dir(root):
    """t-0: batches of epochs 1 (offsets 0-2), 1 (3-5), 2 (6-8), 3 (9-11); t-1 empty."""
    with LogManager(root) as mgr:
        log = mgr.create_topic("t", 2)[0]
        for epoch in (1, 1, 2, 3):
            log.append(batch(3, epoch))
        assert log.leader_epochs == [(1, 0), (2, 6), (3, 9)]
    return root / "t-0"


def test_a_kvlog_written_directory_verifies_clean(tmp_path):
    epoch_dir(tmp_path)
    assert problems(tmp_path) == [] and problems(tmp_path, "warning") == []


@pytest.mark.parametrize("entries, expected", [
    ("1 0\n2 6\n5 9", "the batch at offset 9 (position 282 of 00000000000000000000.log) carries epoch 3, but this "
                      "puts offset 9 in epoch 5 (from offset 9)"),
    ("1 0\n2 7\n3 9", "epoch 2 starts at offset 7 here, but the batch at offset 6 (position 188 of "
                      "00000000000000000000.log) already carries it"),
    ("1 0\n2 4\n3 9", "entry '2 4' starts inside the batches of epoch 1 from offset 0 to 5"),
    ("1 0\n3 9", "carries epoch 2, but this puts offset 6 in epoch 1 (from offset 0)"),
    ("3 9", "no entry for epoch 1, which the batch at offset 0 (position 0 of 00000000000000000000.log) carries"),
    ("1 0\n2 6\n3 9\n4 20", "entry '4 20' starts past the log end offset 12"),
])
def test_verify_names_each_epoch_mismatch(tmp_path, entries, expected):
    part = epoch_dir(tmp_path)
    lines = entries.split("\n")
    (part / "leader-epoch-checkpoint").write_text("0\n%d\n%s\n" % (len(lines), entries))
    found = problems(tmp_path)
    assert found and all(f == "leader-epoch-checkpoint" for f, _ in found), found
    assert any(expected in m for _, m in found), found


def test_verify_accepts_what_kafka_can_leave(tmp_path):
    part = epoch_dir(tmp_path)
    # a leader elected since the last write: its epoch starts at the log end
    (part / "leader-epoch-checkpoint").write_text("0\n4\n1 0\n2 6\n3 9\n4 12\n")
    assert problems(tmp_path) == []
    # entries below the log start (Kafka cuts them at its next load), and a first entry moved to it
    with LogManager(tmp_path) as mgr:
        mgr.log("t", 0).delete_records(7)
    assert broker_files.read_leader_epochs(str(part / "leader-epoch-checkpoint")) == [(2, 7), (3, 9)]
    assert problems(tmp_path) == []
    (part / "leader-epoch-checkpoint").write_text("0\n3\n1 0\n2 6\n3 9\n")
    assert problems(tmp_path) == []
    # no checkpoint at all (kvlog before it kept one): a warning, since the batches carry epochs
    (part / "leader-epoch-checkpoint").unlink()
    assert problems(tmp_path) == []
    assert [m for f, m in problems(tmp_path, "warning") if f == "leader-epoch-checkpoint"]


def test_verify_an_entry_without_its_batch(tmp_path):
    """An entry where no batch with an epoch starts: an error in a log that was never compacted, a warning
    in one that may have been (the cleaner removes whole batches, and the first of an epoch may go)."""
    part = tmp_path / "t-0"
    with open_log(part) as log:
        for epoch in (1, -1, 2):
            log.append(batch(3, epoch))
    (part / "leader-epoch-checkpoint").write_text("0\n2\n1 0\n2 4\n")
    assert ("leader-epoch-checkpoint", "entry '2 4': no batch carrying an epoch starts at offset 4") in problems(part)
    gap = tmp_path / "c-0"
    with open_log(gap) as log:  # a compacted log's offsets, copied as a replica does
        log.append(batch(3, 1), assign_offsets=False)
        log.append(batch(3, 2, base=10), assign_offsets=False)
    (gap / "leader-epoch-checkpoint").write_text("0\n2\n1 0\n2 5\n")
    (tmp_path / "cleaner-offset-checkpoint").write_text("0\n1\nc 0 13\n")
    assert problems(gap) == []
    assert ("leader-epoch-checkpoint", "entry '2 5': no batch carrying an epoch starts at offset 5 (compaction "
                                       "may have removed the one that did)") in problems(gap, "warning")


def test_verify_names_topic_id_mismatches(tmp_path):
    with LogManager(tmp_path) as mgr:
        mgr.create_topic("t", 3)
        tid = mgr.topic_id("t")
    other = new_topic_id()
    broker_files.write_partition_metadata(str(tmp_path / "t-2"), other)
    reports, _ = verify_path(str(tmp_path))
    bad = [(r.partition, p.file, p.message) for r in reports for p in r.errors]
    assert bad == [(2, "partition.metadata", f"topic id {other}, but kvlog-topics.json gives topic t the id {tid}")]
    (tmp_path / "kvlog-topics.json").unlink()  # no table: the partitions are held to each other
    assert problems(tmp_path) == [("partition.metadata", f"topic id {other} differs from {tid} of t-0 (the "
                                                         "partitions of a topic share one id)")]
    (tmp_path / "t-1" / "partition.metadata").write_text("version: 0\ntopic_id\n")
    found = problems(tmp_path)
    assert ("partition.metadata", "line 2 should be 'topic_id: <value>', found 'topic_id'") in found
    (tmp_path / "t-1" / "partition.metadata").write_bytes(b"")
    assert [m for f, m in problems(tmp_path, "warning") if f == "partition.metadata"]


def test_a_broker_directory_from_the_fixtures_verifies_clean(kraft_segment):
    """The real KRaft segment in __cluster_metadata-0 as a broker lays it out (its reserved topic id, the
    epoch its batches carry), then with the checkpoint's first entry at a snapshot-moved log start."""
    d = kraft_segment.parent / "__cluster_metadata-0"
    d.mkdir()
    kraft_segment.rename(d / kraft_segment.name)
    (d / "partition.metadata").write_text(f"version: 0\ntopic_id: {broker_files.METADATA_TOPIC_ID}")
    (d / "leader-epoch-checkpoint").write_text("0\n1\n1 0\n")
    reports, root = verify_path(str(d))
    assert [p.text() for r in reports for p in r.errors] == [] and root == []
    assert reports[0].topic_id == broker_files.METADATA_TOPIC_ID
    assert not [p for p in reports[0].warnings if p.file in ("partition.metadata", "leader-epoch-checkpoint")]
    (d / "leader-epoch-checkpoint").write_text("0\n1\n1 2\n")
    assert problems(d) == []
    (d / "leader-epoch-checkpoint").write_text("0\n1\n2 0\n")
    assert problems(d) and problems(d)[0][0] == "leader-epoch-checkpoint"


# -------------------------------------------------------------------------------------- Python sink
def sink_job(root, n, *, job, overwrite=False, partitions=3):
    """One Python sink job as Spark runs it, without Spark: plan, one task staging the rows, the commit."""
    import pyarrow as pa

    from kvlog import storage
    from kvlog.spark import _remote, _staging

    rows = pa.record_batch({"key": pa.array([b"k%d" % (i % 13) for i in range(n)], pa.binary()),
                            "value": pa.array([b"v%d" % i for i in range(n)], pa.binary())})
    plan = _staging.plan(root, {"topic": "t", "partitions": str(partitions)}, rows.schema.names, overwrite, job=job)
    remote = storage.is_remote(root)
    task = "task-0-0" if remote else os.path.join(_staging.job_dir(plan.root, job), "task-0-0")
    staged = _staging.stage_batches(plan, [rows], task)
    return (_remote.commit if remote else _staging.commit)(plan, staged)


def test_the_python_sink_writes_both_files(tmp_path):
    root = str(tmp_path / "d")
    sink_job(root, 200, job="a")
    sink_job(root, 100, job="b")
    with LogManager(root, read_only=True) as mgr:
        tid = mgr.topic_id("t")
        assert tid is not None and {mgr.log("t", p).topic_id for p in range(3)} == {tid}
    for p in range(3):
        assert broker_files.read_partition_metadata(os.path.join(root, f"t-{p}")) == tid
        assert checkpoint_text(tmp_path / "d" / f"t-{p}") == "0\n0\n"  # its batches carry no epoch (-1)
    sink_job(root, 10, job="c", overwrite=True)
    assert problems(root) == [] and problems(root, "warning") == []


def test_the_python_sink_on_an_object_store_uploads_both_files(s3, tmp_path):
    import pyarrow.fs as pafs

    key = s3.new_prefix()
    uri = s3.uri(key)
    sink_job(uri, 300, job="a")
    sink_job(uri, 50, job="b")

    def get(name):
        with s3.fs.open_input_stream(f"kvlog-tests/{key}/{name}") as f:
            return f.read()

    tid = broker_files.parse_partition_metadata(get("t-0/partition.metadata"), "t-0")
    for p in range(3):  # one id for the topic, kept by the second job, and a checkpoint in every partition
        assert get(f"t-{p}/partition.metadata") == f"version: 0\ntopic_id: {tid}".encode()
        assert get(f"t-{p}/leader-epoch-checkpoint") == b"0\n0\n"
    # a checkpoint with epochs from before (a local writer's): an overwrite moves its first entry to the new start
    with s3.fs.open_output_stream(f"kvlog-tests/{key}/t-1/leader-epoch-checkpoint") as f:
        f.write(b"0\n1\n0 0\n")
    with LogManager(uri, read_only=True) as mgr:
        end = mgr.log("t", 1).log_end_offset
    sink_job(uri, 20, job="c", overwrite=True)
    assert get("t-1/leader-epoch-checkpoint") == f"0\n1\n0 {end}\n".encode()
    copy = tmp_path / "copy"
    pafs.copy_files(f"kvlog-tests/{key}", str(copy), source_filesystem=s3.fs,
                    destination_filesystem=pafs.LocalFileSystem())
    with LogManager(str(copy), read_only=True) as mgr:
        assert mgr.topic_id("t") == tid and {mgr.log("t", p).topic_id for p in range(3)} == {tid}
    assert [m for f, m in problems(copy) if f in ("partition.metadata", "leader-epoch-checkpoint")] == []


# --------------------------------------------------------------------------------------------- Spark
def test_both_spark_sinks_write_both_files(jvm, tmp_path):
    """The JVM sink (format "kvlog") and the Python sink ("kvlog_python"): a new topic's partitions get one id,
    which the next job keeps, and a checkpoint consistent with their batches; an overwrite moves a checkpoint's
    first entry to the new log start. Then each directory verifies clean."""
    pytest.importorskip("pyspark")
    df = jvm.createDataFrame([(b"k%d" % (i % 17), b"v%d" % i) for i in range(300)], "key binary, value binary")
    for fmt in ("kvlog", "kvlog_python"):
        root = tmp_path / fmt
        df.write.format(fmt).mode("append").option("topic", "t").option("partitions", "3").save(str(root))
        ids = {broker_files.read_partition_metadata(str(root / f"t-{p}")) for p in range(3)}
        assert len(ids) == 1 and None not in ids, (fmt, ids)
        assert all(checkpoint_text(root / f"t-{p}") == "0\n0\n" for p in range(3))
        with LogManager(str(root), read_only=True) as mgr:
            end = mgr.log("t", 2).log_end_offset
        broker_files.write_leader_epochs(str(root / "t-2" / "leader-epoch-checkpoint"), [(0, 0)])
        df.limit(30).write.format(fmt).mode("overwrite").option("topic", "t").save(str(root))
        assert {broker_files.read_partition_metadata(str(root / f"t-{p}")) for p in range(3)} == ids
        assert broker_files.read_leader_epochs(str(root / "t-2" / "leader-epoch-checkpoint")) == [(0, end)]
        assert problems(root) == [], fmt
        assert [m for f, m in problems(root, "warning") if f in ("partition.metadata", "leader-epoch-checkpoint")] == []
