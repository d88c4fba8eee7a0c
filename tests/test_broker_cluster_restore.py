"""A whole cluster backed up and restored into a fresh cluster of three brokers (issue 50, item 3).

The source is a real 3-broker cluster's copies (tests/kafka_oracle/cluster_scenario.py, every broker stopped,
two log directories each). ``kvlog backup`` of all six directories stores each partition once (a second run
reading the other brokers' replicas first copies nothing: the replicas are the same bytes). It is restored into a
fresh cluster of one broker (3 -> 1), whose directory is then backed up and restored into a fresh cluster of three
brokers with two log directories each (JBOD) at RF 3 and RF 2 (1 -> 3): each time the cluster creates the topics, stops, and ``kvlog restore`` runs once per
broker with that broker's KRaft metadata directory, placing the partitions the controller assigned to it
(tests/kafka_oracle/cluster_restore.py, in a child process). The restarted cluster must serve every record at its
original offset in both isolation levels, with no truncation, stray or re-replication of what was restored, the
consumer groups back at their committed offsets through ``kafka-consumer-groups`` and the restore's files, and,
with three brokers, still after one broker is killed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kvlog.backup.run import backup
from tests.kafka_oracle import cluster_scenario as CS
from tests.kafka_oracle import fixtures as F

pytestmark = [pytest.mark.broker, pytest.mark.xdist_group("cluster-harness")]
VERSION = "4.4.0"
REPO = Path(__file__).resolve().parents[1]


def records_of(answer: dict) -> list[tuple]:
    return [(r["offset"], r["timestamp"], r["key"], r["value"], tuple(map(tuple, r["headers"])))
            for r in answer["records"]]


def test_a_clusters_backup_restored_into_a_fresh_cluster_serves_every_record_at_its_offset(tmp_path):
    reason = F.unavailable(VERSION)
    if reason:
        F._skip_or_fail(reason)
    src = CS.ensure(VERSION)
    truth = json.loads((src / "truth.json").read_text())
    # the target's shape differs from the source's (RF 3 everywhere): rf3 keeps RF 3, the others get RF 2, so each
    # broker holds some partitions and not others
    topics = {t: {"partitions": spec["partitions"], "configs": spec["configs"], "replication_factor": 3 if t == "rf3"
                  else 2} for t, spec in truth["topics"].items()}
    dirs = sorted(str(d) for d in (src / "clean").glob("broker-*/data*"))
    bak = tmp_path / "backup"
    first = backup(dirs, bak)
    assert not first.errors and first.run == 1
    assert first.partitions == sum(s["partitions"] for s in topics.values()) + 5  # + the internal topics' 5
    again = backup(dirs[::-1], bak)  # other brokers' replicas chosen first where they tie: the same bytes
    assert again.run is None and again.files_copied == 0

    work = tmp_path / "target"
    r = subprocess.run([sys.executable, "-m", "tests.kafka_oracle.cluster_restore", str(bak), str(work), VERSION,
                        json.dumps(topics)], cwd=REPO, capture_output=True, text=True, timeout=900, check=False)
    assert r.returncode == 0, r.stderr[-6000:]
    result = json.loads((work / "result.json").read_text())
    assert not result["one"]["backup_errors"]
    want_groups = {g: {tp: o["offset"] for tp, o in d["offsets"].items()} for g, d in truth["groups"].items()}
    for shape, got in result.items():
        # every replica placed where the controller assigned it, nothing else
        placed: dict[str, list[int]] = {}
        for broker, labels in got["placed"].items():
            for label in labels:
                placed.setdefault(label, []).append(int(broker))
        assert {k: sorted(v) for k, v in placed.items()} == {k: sorted(v) for k, v in got["replicas"].items()}, shape
        for broker, labels in got["elsewhere"].items():
            assert not set(labels) & set(got["placed"][broker])
        # served as the source cluster served it: every record at its offset, both isolation levels
        for iso in CS.ISOLATIONS:
            for tp in got["replicas"]:
                want = truth["records"][iso][tp]
                assert records_of(got["served"][iso][tp]) == records_of(want), (shape, iso, tp)
                assert got["served"][iso][tp]["end_offset"] == want["end_offset"], (shape, iso, tp)
        assert not got["renamed"], shape
        assert {k: v for k, v in got["after"].items() if k in got["before"]} == got["before"], shape  # none refetched
        # the groups, reset with kafka-consumer-groups from the restore's files, at their committed offsets
        committed = {g: {tp: o["offset"] for tp, o in d["offsets"].items()} for g, d in (got["groups"] or {}).items()}
        assert {g: committed.get(g) for g in want_groups} == want_groups, shape
    assert sum(map(len, result["three"]["elsewhere"].values())) == \
        sum(s["partitions"] for t, s in topics.items() if t != "rf3")
    for tp in result["three"]["replicas"]:
        want = truth["records"]["read_committed"][tp]
        assert records_of(result["three"]["served_without_broker_1"]["read_committed"][tp]) == records_of(want), tp


def test_a_clusters_backup_with_diverged_replicas(tmp_path):
    """The diverged partition is an error of the run by default (nothing of it backed up, the rest is), or backed
    up as the new leader served it with divergent='newest'; each partition says which replica it came from."""
    reason = F.unavailable(VERSION)
    if reason:
        F._skip_or_fail(reason)
    src = CS.ensure(VERSION)
    truth = json.loads((src / "truth.json").read_text())
    div = truth["diverged"]["partition"]
    dirs = sorted(str(d) for d in (src / "diverged").glob("broker-*/data*"))
    refused = backup(dirs, tmp_path / "a")
    assert set(refused.errors) == {div} and "diverged" in refused.errors[div]
    import kvlog

    t = kvlog.scan(str(tmp_path / "a"), ["rf3"]).read_all()
    assert t.num_rows == sum(len(v["records"]) for k, v in truth["records"]["read_uncommitted"].items()
                             if k.startswith("rf3-"))
    newest = backup(dirs, tmp_path / "b", divergent="newest")
    assert not newest.errors
    topic, p = div.rsplit("-", 1)
    got = kvlog.scan(str(tmp_path / "b"), topic).read_all()
    want = truth["records"]["read_uncommitted"][div]["records"]
    from tests.kafka_oracle.client import unb64

    assert got.column("offset").to_pylist() == [r["offset"] for r in want]
    assert got.column("value").to_pylist() == [unb64(r["value"]) for r in want]
    from kvlog.backup.run import latest_manifest
    from kvlog.backup.target import open_target

    m = latest_manifest(open_target(str(tmp_path / "b")))
    assert m is not None and all(e.replica.startswith(tuple(dirs)) for e in m.partitions.values())
    assert m.partitions[div].cut == "cluster_committed"
