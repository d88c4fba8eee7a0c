"""Several brokers' data directories read as one cluster (kvlog.cluster), on directories laid out as a replicated
cluster's brokers lay them out: ``meta.properties`` with the broker's and the cluster's ids, each partition's
``leader-epoch-checkpoint``, the broker's ``replication-offset-checkpoint``. The live-cluster checks (a real
3-broker cluster's lagging, reassigned and diverged replicas) are in tests/test_broker_cluster_reads.py."""

from __future__ import annotations

import base64
import hashlib
import shutil
from pathlib import Path

import pytest

import kvlog
from kvlog import LogManager, Record, checkpoint
from kvlog.broker_files import write_leader_epochs
from kvlog.cluster import Cluster
from kvlog.errors import ConfigError, DivergentReplicasError

T0 = 1_700_000_000_000


def records(p: int, lo: int, hi: int, tag: bytes = b"") -> list[Record]:
    return [Record(b"k%d" % (j % 7), b"v%d-%d%s" % (p, j, tag), T0 + j) for j in range(lo, hi)]


def broker(root: Path, node: int, parts: dict[tuple[str, int], list[tuple[list[Record], int]]], *,
           hw: dict[tuple[str, int], int] | None = None, cluster_id: str = "c1") -> Path:
    """A broker's log directory: each partition's records appended in runs of ``(records, leader epoch)``,
    its epoch history written as a broker keeps it."""
    d = root / f"broker-{node}"
    with LogManager(d) as m:
        for (t, p), runs in parts.items():
            if t not in m.topics():  # one topic id a topic on every broker, as a cluster's replicas share it
                tid = base64.urlsafe_b64encode(hashlib.md5(t.encode()).digest()).rstrip(b"=").decode()
                m.create_topic(t, [q for tt, q in parts if tt == t], topic_id=tid)
            log = m.log(t, p)
            epochs: list[tuple[int, int]] = []
            for recs, epoch in runs:
                if not epochs or epochs[-1][0] != epoch:
                    epochs.append((epoch, log.log_end_offset))
                log.append(recs)
            ends = {tp: m.log(*tp).log_end_offset for tp in parts if tp[0] in m.topics()}
            epoch_file = d / f"{t}-{p}" / "leader-epoch-checkpoint"
            pending = (epoch_file, epochs)
            m.log(t, p).close()
            write_leader_epochs(str(pending[0]), pending[1])
    (d / "meta.properties").write_text(f"version=1\nnode.id={node}\ncluster.id={cluster_id}\n")
    checkpoint.write_offsets(str(d / "replication-offset-checkpoint"), hw if hw is not None else ends)
    return d


def rows(source, **kw) -> list[tuple]:
    t = kvlog.scan(source, threads=1, **kw).read_all()
    return sorted(zip(t.column("topic").to_pylist(), t.column("partition").to_pylist(),
                      t.column("offset").to_pylist(), t.column("value").to_pylist()))


def test_three_replicas_read_once(tmp_path):
    parts = {("t", p): [(records(p, 0, 50), 0), (records(p, 50, 80), 3)] for p in range(3)}
    dirs = [broker(tmp_path, n, parts) for n in (1, 2, 3)]
    got = rows(dirs)
    assert got == rows(dirs[0]) and len(got) == 240
    with Cluster(dirs) as c:
        assert c.topics() == {"t": 3}
        part = c.partition("t", 1)
        assert len(part.replicas) == 3 and part.end == 80 and not part.problems and not part.diverged


def test_a_lagging_replica_is_not_chosen_and_does_not_shorten_the_read(tmp_path):
    full = {("t", 0): [(records(0, 0, 60), 1)]}
    short = {("t", 0): [(records(0, 0, 35), 1)]}
    dirs = [broker(tmp_path, 1, full), broker(tmp_path, 2, full), broker(tmp_path, 3, short)]
    for order in (dirs, dirs[::-1]):
        assert [r[2] for r in rows(order)] == list(range(60))
        with Cluster(order) as c:
            assert c.partition("t", 0).chosen.directory.broker in (1, 2)


def test_the_leaders_unreplicated_tail_is_not_read(tmp_path):
    # the leader appended 10 records its followers have not fetched: not committed, a consumer does not see them
    leader = {("t", 0): [(records(0, 0, 50), 2)]}
    follower = {("t", 0): [(records(0, 0, 40), 2)]}
    dirs = [broker(tmp_path, 1, leader, hw={("t", 0): 38}), broker(tmp_path, 2, follower, hw={("t", 0): 38}),
            broker(tmp_path, 3, follower, hw={("t", 0): 38})]
    assert [r[2] for r in rows(dirs)] == list(range(40))
    # a checkpointed high watermark past what two replicas hold (a follower's copy missing) is still read
    assert [r[2] for r in rows([dirs[0], broker(tmp_path, 4, {("t", 0): [(records(0, 0, 20), 2)]},
                                                hw={("t", 0): 45})])] == list(range(45))
    # one replica present: read to its end, as a single directory is
    assert len(rows([dirs[0]])) == 50


def test_divergent_replicas_are_named_or_read_as_the_newest_leader(tmp_path):
    # broker 1 led epoch 1 and appended offsets 40..59 alone; brokers 2 and 3 elected 2 (unclean) at offset 40
    old = {("t", 0): [(records(0, 0, 40), 1), (records(0, 40, 60, b"-lost"), 1)]}
    new = {("t", 0): [(records(0, 0, 40), 1), (records(0, 40, 55, b"-new"), 2)]}
    dirs = [broker(tmp_path, 1, old), broker(tmp_path, 2, new), broker(tmp_path, 3, new)]
    with pytest.raises(DivergentReplicasError) as e:
        rows(dirs)
    assert e.value.topic == "t" and e.value.partition == 0
    assert "broker 1" in str(e.value) and "offsets 40..60" in str(e.value) and "leader epoch 1" in str(e.value)
    got = rows(Cluster(dirs, divergent="newest"))
    assert len(got) == 55 and all(not v.endswith(b"-lost") for *_, v in got) and got[-1][3].endswith(b"-new")
    # each replica alone reads as it is
    assert rows(dirs[0])[-1][3].endswith(b"-lost")


def test_contradicting_epoch_histories_are_reported(tmp_path):
    a = {("t", 0): [(records(0, 0, 10), 1), (records(0, 10, 30), 2)]}
    b = {("t", 0): [(records(0, 0, 12), 1), (records(0, 12, 30), 2)]}  # epoch 2 begins at 12 here, at 10 there
    with Cluster([broker(tmp_path, 1, a), broker(tmp_path, 2, b)]) as c:
        c.partition("t", 0)
        assert any("epoch 2 starts at offset" in p for p in c.problems)


def test_jbod_brokers_and_partitions_not_everywhere(tmp_path):
    # broker 1 has two log directories; each partition is on two of the brokers
    one_a = broker(tmp_path / "a", 1, {("t", 0): [(records(0, 0, 10), 0)]})
    one_b = broker(tmp_path / "b", 1, {("t", 1): [(records(1, 0, 20), 0)]})
    two = broker(tmp_path, 2, {("t", 0): [(records(0, 0, 10), 0)], ("t", 2): [(records(2, 0, 5), 0)]})
    three = broker(tmp_path, 3, {("t", 1): [(records(1, 0, 20), 0)], ("t", 2): [(records(2, 0, 5), 0)]})
    got = rows([one_a, one_b, two, three])
    assert [(p, len([r for r in got if r[1] == p])) for p in range(3)] == [(0, 10), (1, 20), (2, 5)]


def test_refusals(tmp_path):
    a = broker(tmp_path, 1, {("t", 0): [(records(0, 0, 5), 0)]})
    b = broker(tmp_path / "other", 2, {("t", 0): [(records(0, 0, 5), 0)]}, cluster_id="c2")
    with pytest.raises(ConfigError, match="different clusters"):
        Cluster([a, b])
    with pytest.raises(ConfigError, match="given twice"):
        Cluster([a, a])
    c = broker(tmp_path / "again", 1, {("t", 0): [(records(0, 0, 5), 0)]})  # broker 1's second log directory
    with pytest.raises(ConfigError, match="two log directories of one broker"):
        Cluster([a, c])
    with pytest.raises(ConfigError, match="divergent"):
        Cluster([a], divergent="last")
    with pytest.raises(ConfigError, match="backup_run"):
        rows([a], backup_run=1)


def test_a_future_directory_being_moved_is_not_a_replica(tmp_path):
    a = broker(tmp_path, 1, {("t", 0): [(records(0, 0, 30), 0)]})
    b = broker(tmp_path / "b", 1, {("u", 0): [(records(0, 0, 3), 0)]})
    # the broker copies t-0 into its other log directory as t-0.<id>-future, partly
    shutil.copytree(a / "t-0", b / "t-0.8f3a9c1e2b7d4a6f9e0c1d2b3a4f5e6d-future")
    assert len(rows([a, b], topics="t")) == 30


def test_the_schemas_topic_of_a_cluster(tmp_path):
    from kvlog.schemas import SchemasTopicWriter

    dirs = []
    for n in (1, 2):
        d = tmp_path / f"broker-{n}"
        if n == 1:
            with LogManager(d) as m, SchemasTopicWriter(m) as w:
                ser = w.serializer("t-value", '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}')
                m.create_topic("t", 1)
                m.log("t", 0).append(ser.records([{"a": i} for i in range(5)]))
        else:  # a follower: the same topics (ids) and bytes
            shutil.copytree(dirs[0], d)
        (d / "meta.properties").write_text(f"version=1\nnode.id={n}\ncluster.id=c1\n")
        dirs.append(d)
    t = kvlog.scan(dirs, "t", value_format="registry").read_all()
    assert [v["a"] for v in t.column("value").to_pylist()] == list(range(5))


def test_replicas_of_different_topics_of_one_name_are_refused(tmp_path):
    """A topic deleted and created again while a broker was away: that broker's copy is the old topic's (another
    topic id in partition.metadata), not a replica of the new one."""
    parts = {("t", 0): [(records(0, 0, 10), 0)]}
    dirs = [broker(tmp_path, n, parts) for n in (1, 2)]
    stale = dirs[0] / "t-0" / "partition.metadata"
    stale.write_text("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n")
    with pytest.raises(kvlog.InconsistentTopicIdError, match=r"replicas of t-0 belong to different topics.*broker 1"):
        rows(dirs)
    assert len(rows(dirs[1:])) == 10


@pytest.mark.parametrize("where", ["tail", "first batch"])
def test_a_damaged_replica_is_passed_over_for_an_intact_copy(tmp_path, where):
    """A replica whose bytes fail their checksum below what its broker called durable (a bit flipped on a disk, a
    bad copy) is not read when another replica of the same history holds as much: the damage is reported in the
    problems; one replica alone still raises, naming it."""
    parts = {("t", 0): [(records(0, 0, 50), 0), (records(0, 50, 80), 3)]}
    dirs = [broker(tmp_path, n, parts) for n in (1, 2, 3)]
    (seg,) = (dirs[0] / "t-0").glob("*.log")
    data = bytearray(seg.read_bytes())
    data[len(data) - 3 if where == "tail" else 100] ^= 0xFF
    seg.write_bytes(bytes(data))
    want = rows(dirs[1])
    assert rows(dirs) == want and len(want) == 80
    with Cluster(dirs) as c:
        part = c.partition("t", 0)
        assert part.chosen.directory.broker in (2, 3) and part.end == 80
        assert any("broker 1" in p and "damaged" in p and "CRC" in p for p in part.problems), part.problems
    with pytest.raises(kvlog.CorruptRecordError):
        rows(dirs[0])
    # every replica damaged alike: the read raises, as one replica's would
    for d in dirs[1:]:
        (other,) = (d / "t-0").glob("*.log")
        other.write_bytes(bytes(data))
    with pytest.raises(kvlog.CorruptRecordError):
        rows(dirs)
