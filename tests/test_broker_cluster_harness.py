"""The cluster scenario holds what it says (tests/kafka_oracle/cluster_scenario.py): replicas that agree byte
for byte up to the high watermark, a lagging replica, replicas that diverged through an unclean election, a
replica half-copied into another log dir, a reassignment. These are facts about Kafka that the tests of kvlog
on a cluster's directories rely on, so they are checked on the files themselves: the record batches' headers
are read here directly, not through kvlog."""

from __future__ import annotations

import functools
import hashlib
import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.kafka_oracle import cluster_scenario as CS
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import version_tuple

pytestmark = [pytest.mark.broker, pytest.mark.xdist_group("cluster-harness")]
PARAMS = [pytest.param(v, id=f"kafka-{v}") for v in CS.VERSIONS]


@functools.lru_cache(maxsize=None)
def scenario(version: str) -> Path:
    reason = F.unavailable(version)
    if reason:
        F._skip_or_fail(reason)
    return CS.ensure(version)


@functools.lru_cache(maxsize=None)
def truth(version: str) -> dict[str, Any]:
    return json.loads((scenario(version) / "truth.json").read_text())


@dataclass(frozen=True)
class Batch:
    base: int
    last: int
    epoch: int
    attributes: int
    raw: bytes = field(repr=False)


def batches(partition_dir: Path) -> list[Batch]:
    """The record batches (magic 2) of a partition directory's segments, in offset order; a torn tail (a copy of
    a running broker's active segment) ends the walk."""
    out = []
    for log in sorted(partition_dir.glob("*.log")):
        data = log.read_bytes()
        pos = 0
        while pos + 61 <= len(data):
            base, length, epoch, magic = struct.unpack_from(">qiib", data, pos)
            if length <= 0 or pos + 12 + length > len(data):
                break
            assert magic == 2, f"{log}: magic {magic} at {pos}"
            attributes, delta = struct.unpack_from(">hi", data, pos + 21)
            out.append(Batch(base, base + delta, epoch, attributes, data[pos:pos + 12 + length]))
            pos += 12 + length
    return out


def sig(bs: list[Batch]) -> list[tuple[int, int, int, str]]:
    """The batches as (base offset, last offset, leader epoch, hash of the bytes): equal when the bytes are,
    and readable in a failure's message."""
    return [(b.base, b.last, b.epoch, hashlib.sha256(b.raw).hexdigest()[:12]) for b in bs]


def upto(bs: list[Batch], end: int) -> list[Batch]:
    """The batches below ``end``; the last of them must end right before it (a high watermark falls between
    batches: followers fetch whole batches)."""
    below = [b for b in bs if b.base < end]
    assert below and below[-1].last == end - 1, f"no batch ends at {end - 1}: {[(b.base, b.last) for b in bs]}"
    return below


def replicas(version: str, state: str, tp: str, kind: str = "log") -> dict[int, Path]:
    """``{broker: directory}`` of the copies of ``tp`` (of ``kind``) in ``state``, as truth's ``files`` lists them;
    a broker must hold at most one."""
    out: dict[int, Path] = {}
    for broker, dirs in truth(version)["states"][state]["files"].items():
        for data, d in dirs.items():
            for name, p in d["partitions"].items():
                if f"{p['topic']}-{p['partition']}" == tp and p["kind"] == kind:
                    assert int(broker) not in out, f"{tp} twice on broker {broker} in {state}"
                    out[int(broker)] = scenario(version) / state / f"broker-{broker}" / data / name
    return out


def hw(version: str, state: str, tp: str) -> int:
    value: int = truth(version)["states"][state]["partitions"][tp]["high_watermark"]
    return value


@pytest.mark.parametrize("version", PARAMS)
def test_rf3_replicas_identical_up_to_the_high_watermark(version):
    t = truth(version)
    topic_id = t["states"]["clean"]["metadata"]["topics"]["rf3"]["topic_id"]
    for state in t["states"]:
        for p in range(6):
            tp = f"rf3-{p}"
            reps = replicas(version, state, tp)
            assert set(reps) == {1, 2, 3}, (state, tp)
            # without a leader then (3.7 in state diverged: no eligible leader replicas, KIP-966) the cluster
            # did not answer; rf3 is not written after its step, so its final high watermark holds
            end = hw(version, state, tp) if tp not in t["states"][state]["unread"] else hw(version, "clean", tp)
            assert end > 60
            prefixes = {b: sig(upto(batches(d), end)) for b, d in reps.items()}
            assert prefixes[1] == prefixes[2] == prefixes[3], (state, tp)
            assert sorted(t["states"][state]["partitions"][tp]["replicas"]) == [1, 2, 3]
            ids = {t["states"][state]["files"][str(b)][d.parent.name]["partitions"][d.name]["topic_id"]
                   for b, d in reps.items()}
            assert ids == {topic_id}, (state, tp)
    # lz4 as produced (attributes' codec 3), control batches of the transactions (attribute bit 5) beside
    data = [b for b in batches(replicas(version, "clean", "rf3-0")[1]) if not b.attributes & 0x20]
    assert {b.attributes & 7 for b in data} == {3} and len(data) >= 4
    # a transaction aborted: read_committed reads less than read_uncommitted
    recs = t["records"]
    assert len(recs["read_committed"]["rf3-0"]["records"]) < len(recs["read_uncommitted"]["rf3-0"]["records"])


@pytest.mark.parametrize("version", PARAMS)
def test_lagging_replica_is_shorter(version):
    t = truth(version)
    lag = t["lagging"]
    state = t["states"]["lagging"]
    assert 3 not in state["partitions"]["lagging-0"]["isr"] and state["brokers"]["3"] == "stopped"
    assert hw(version, "lagging", "lagging-0") == lag["end_after"] > lag["end_before"] > 0
    reps = {b: batches(d) for b, d in replicas(version, "lagging", "lagging-0").items()}
    assert reps[3][-1].last + 1 == lag["end_before"]
    for b in (1, 2):
        assert reps[b][-1].last + 1 == lag["end_after"]
        assert sig(reps[b][:len(reps[3])]) == sig(reps[3])
    # restarted, broker 3 caught up
    clean = {b: sig(upto(batches(d), lag["end_after"])) for b, d in replicas(version, "clean", "lagging-0").items()}
    assert set(clean) == {1, 2, 3} and clean[1] == clean[2] == clean[3]


@pytest.mark.parametrize("version", PARAMS)
def test_diverged_replicas_differ_after_a_common_prefix(version):
    t = truth(version)
    d = t["diverged"]
    common, lost_end, end, new = d["common_end"], d["lost_end"], d["end"], d["new_leader"]
    assert 0 < common < lost_end < end and new in (2, 3)
    files = t["states"]["diverged"]["files"]
    assert not any(x["clean_shutdown"] for x in files["1"].values())  # broker 1 was killed
    reps = {b: batches(p) for b, p in replicas(version, "diverged", "diverged-0").items()}
    assert set(reps) == {1, 2, 3}
    old, survivor = reps[1], reps[new]
    head = upto(old, common)
    assert sig(head) == sig(survivor[:len(head)])
    tail_old, tail_new = old[len(head):], survivor[len(head):]
    # the same offsets, other records: broker 1's were written in the old leader's epoch, the survivor's in a later
    assert tail_old[0].base == tail_new[0].base == common and sig(tail_old[:1]) != sig(tail_new[:1])
    assert tail_old[-1].last + 1 == lost_end and tail_new[-1].last + 1 == end
    assert {x.epoch for x in tail_old} == {d["old_leader_epoch"]}
    assert min(x.epoch for x in tail_new) > d["old_leader_epoch"]
    other = reps[5 - new]  # the other survivor follows the elected one
    assert sig(upto(other, hw(version, "diverged", "diverged-0"))) == sig(survivor)
    # the cluster never served broker 1's records after the election, and served others at those offsets
    served = {r["offset"]: r for r in t["records"]["read_uncommitted"]["diverged-0"]["records"]}
    assert [r["offset"] for r in d["lost"]] == list(range(common, lost_end))
    assert all(served[r["offset"]]["value"] != r["value"] for r in d["lost"])
    # restarted, broker 1 truncated its own records and holds the survivor's
    clean = {b: sig(upto(batches(p), end)) for b, p in replicas(version, "clean", "diverged-0").items()}
    assert set(clean) == {1, 2, 3} and clean[1] == clean[2] == clean[3] == sig(survivor)


@pytest.mark.parametrize("version", PARAMS)
def test_reassigned_and_half_moved_between_log_dirs(version):
    t = truth(version)
    move = t["log_dir_move"]
    assert move["future_copied"], "no copy was taken while the -future directory existed"
    future = scenario(version) / "future" / "broker-2" / move["future_dir"]
    current = replicas(version, "future", "moved-1")[2]
    assert current.parent.name == move["from"] and future.parent.name == move["to"]
    assert replicas(version, "future", "moved-1", "future") == {2: future}
    copied, source = batches(future), batches(current)
    assert 0 < len(copied) < len(source)  # a part, copied batch by batch
    assert sig(copied) == sig(source[:len(copied)])
    dirs = t["states"]["future"]["log_dirs"]["2"]
    assert dirs[move["to"]]["moved-1"]["is_future"] and not dirs[move["from"]]["moved-1"]["is_future"]
    # after the move: broker 2's replica in the other log dir, the same bytes as broker 3's
    clean = replicas(version, "clean", "moved-1")
    assert set(clean) == {2, 3} and clean[2].parent.name == move["to"]
    assert sig(batches(clean[2])) == sig(batches(clean[3])) == sig(source)
    assert not replicas(version, "clean", "moved-1", "future")
    # reassigned from brokers {1, 2} to {2, 3}: broker 1 keeps no replica of moved (at most a -delete directory)
    for p in (0, 1):
        assert set(replicas(version, "clean", f"moved-{p}")) == {2, 3}
        assert sorted(t["states"]["clean"]["partitions"][f"moved-{p}"]["replicas"]) == [2, 3]


@pytest.mark.parametrize("version", PARAMS)
def test_groups_log_dirs_and_meta_properties(version):
    t = truth(version)
    offsets = t["groups"]["rf3-readers"]["offsets"]
    assert set(offsets) == {f"rf3-{p}" for p in range(6)}
    assert sum(o["offset"] for o in offsets.values()) >= 300
    assert all(0 <= o["offset"] <= hw(version, "clean", tp) for tp, o in offsets.items())
    files = t["states"]["clean"]["files"]
    assert set(files) == {"1", "2", "3"}
    dir_ids = []
    for broker, dirs in files.items():
        assert set(dirs) == {"data0", "data1"}
        for name, d in dirs.items():
            assert d["clean_shutdown"], (broker, name)
            assert d["partitions"], f"broker {broker}'s {name} holds no partition (JBOD: both are used)"
            meta = d["meta.properties"]
            assert meta.get("node.id", meta.get("broker.id")) == broker
            if version_tuple(version) >= (4, 0):
                assert meta["cluster.id"] == t["cluster_id"]
                dir_ids.append(meta["directory.id"])
            # the cluster (DescribeLogDirs) puts the same replicas in the same log dir as the files
            logs = {n for n, p in d["partitions"].items() if p["kind"] == "log"}
            assert logs == set(t["states"]["clean"]["log_dirs"][broker][name]), (broker, name)
    assert len(set(dir_ids)) == len(dir_ids)
