"""Fresh clusters that take a cluster's backup, run in a child process (``python -m
tests.kafka_oracle.cluster_restore BACKUP WORK VERSION TOPICS_JSON``), so that the admin client's network threads
and their sockets die with it, as the scenarios' do.

Two shapes in turn (:func:`run`): the backup restored into a cluster of one broker (3 -> 1), then that broker's
directory backed up and restored into a cluster of three with two log directories each (1 -> 3, JBOD). Each time the cluster creates the topics of
``TOPICS_JSON`` (``{name: {"partitions", "replication_factor", "configs"}}``), stops, ``kvlog.backup.restore``
runs once per broker with all its log directories and its KRaft metadata directory (the first writing the groups'
reset files), the
cluster starts, and the groups are reset with Kafka's ``kafka-consumer-groups``. ``WORK/result.json``, per shape:
what each restore placed, the replicas the cluster's metadata lists, every restored ``.log`` file's inode and size
before and after the restart, directories the brokers renamed, the records served (both isolation levels), the
groups' committed offsets, and for three brokers read_committed again with broker 1 killed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from kvlog.backup.placement import restore_broker
from tests.kafka_oracle import client
from tests.kafka_oracle.broker import KafkaDist
from tests.kafka_oracle.cluster import Cluster

ISOLATIONS = ("read_uncommitted", "read_committed")


def _segments(dirs: list[Path]) -> dict[str, list[int]]:
    out = {}
    for d in dirs:
        for f in d.glob("*-*/*.log"):
            st = f.stat()
            out[f"{d.parent.name}/{f.parent.name}/{f.name}"] = [st.st_ino, st.st_size]
    return out


def _read(c: Cluster, topics: dict[str, Any], work: Path, isolations: tuple[str, ...]) -> dict[str, Any]:
    parts = [[t, p] for t, spec in sorted(topics.items()) for p in range(spec["partitions"])]
    steps = [{"op": "read", "name": iso, "partitions": parts, "isolation": iso} for iso in isolations]
    ans = client.run(c.bootstrap, steps, work)
    return {iso: ans[iso] for iso in isolations}


#: a cluster of one broker: its internal topics at RF 1
ONE_BROKER = {"offsets.topic.replication.factor": "1", "default.replication.factor": "1", "min.insync.replicas": "1",
              "transaction.state.log.replication.factor": "1", "transaction.state.log.min.isr": "1",
              "share.coordinator.state.topic.replication.factor": "1", "share.coordinator.state.topic.min.isr": "1"}


def _reset_groups(c: Cluster, csv_dir: Path, work: Path) -> list[str]:
    """The restore's ``reset-offsets.sh --execute`` against ``c``, each ``kafka-consumer-groups`` command it runs
    done by Kafka's ConsumerGroupCommand (4.4.0's tools); returns the commands' outputs."""
    import subprocess

    tools = KafkaDist.find("4.4.0")
    assert tools is not None
    calls, stand_in = work / "kafka-consumer-groups.calls", work / "kafka-consumer-groups"
    stand_in.write_text(f"#!{sys.executable}\nimport json, sys\n"
                        f"with open({str(calls)!r}, 'a') as f:\n    f.write(json.dumps(sys.argv[1:]) + '\\n')\n")
    stand_in.chmod(0o755)
    script = subprocess.run(["sh", str(csv_dir / "reset-offsets.sh"), "--execute"], capture_output=True, text=True,
                            env={**os.environ, "BOOTSTRAP": c.bootstrap, "KAFKA_CONSUMER_GROUPS": str(stand_in)},
                            timeout=60, check=True)
    del script
    outs = []
    for line in calls.read_text().splitlines() if calls.exists() else []:
        r = subprocess.run(tools.java_cmd("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                                          *json.loads(line)), capture_output=True, text=True, timeout=300, check=True)
        outs.append(r.stdout)
    return outs


def _restore_into(c: Cluster, backup: Path, topics: dict[str, Any], rf: dict[str, int], work: Path,
                  out: dict[str, Any]) -> None:
    """Create the topics on ``c`` (RF ``rf``), stop its brokers, restore ``backup`` into each broker (the first
    also writing the groups' reset files), start them, apply the groups, and record what is served."""
    with c.admin() as a:
        a.create_topics({t: {"num_partitions": spec["partitions"], "replication_factor": rf[t],
                             "configs": spec["configs"]} for t, spec in topics.items()})
    c.wait_in_sync(list(topics))
    c.stop_all()
    data = [d for i in c.broker_ids for d in c.data_dirs(i)]
    out.update(placed={}, elsewhere={}, warnings={}, dirs={})
    for i in c.broker_ids:
        csv = work / "groups" if i == c.broker_ids[0] else None
        # a broker with several log dirs (JBOD): restore_broker places each partition in one of them
        r = restore_broker(backup, [str(d) for d in c.data_dirs(i)], metadata_dir=c.meta_dir(i), groups_csv=csv)
        out["placed"][str(i)] = sorted(r.partitions)
        out["elsewhere"][str(i)] = sorted(r.elsewhere)
        out["warnings"][str(i)] = r.warnings
        out["dirs"][str(i)] = {p.name: d.name for d in c.data_dirs(i) for p in d.iterdir()
                               if p.is_dir() and (p / "leader-epoch-checkpoint").exists()}
    out["before"] = _segments(data)
    c.start()
    c.wait_in_sync(list(topics))
    out["replicas"] = {f"{t}-{p}": d["replicas"] for (t, p), d in c.partitions(list(topics)).items()}
    out["served"] = _read(c, topics, work / "read", ISOLATIONS)
    out["reset"] = _reset_groups(c, work / "groups", work)
    out["groups"] = client.run(c.bootstrap, [{"op": "groups"}], work / "groups-read").get("groups")
    out["after"] = _segments(data)
    out["renamed"] = sorted(p.name for d in data for p in d.iterdir()
                            if p.name.endswith(("-stray", "-delete", "-future")))


def run(backup: Path, work: Path, version: str, topics: dict[str, Any]) -> dict[str, Any]:
    """3 -> 1: the cluster's backup restored into a cluster of one broker (RF 1); 1 -> 3: that broker, stopped, backed
    up and restored into a cluster of three (RF 3 for rf3, RF 2 for the others), which loses broker 1 at the end."""
    from kvlog.backup.run import backup as back_up

    dist = KafkaDist.find(version)
    if dist is None:
        raise FileNotFoundError(f"Kafka {version}'s jars are not fetched")
    result: dict[str, Any] = {"one": {}, "three": {}}
    one = Cluster(dist, work / "one", size=1, log_dirs=1, controllers="separate", extra=dict(ONE_BROKER))
    with one:
        _restore_into(one, backup, topics, {t: 1 for t in topics}, work / "one-work", result["one"])
        one.stop_all()
        b = back_up(str(one.data_dirs(1)[0]), str(work / "backup-of-one"))
        result["one"]["backup_errors"] = b.errors
    three = Cluster(dist, work / "three", log_dirs=2, controllers="separate")
    with three:
        rf = {t: spec["replication_factor"] for t, spec in topics.items()}
        _restore_into(three, work / "backup-of-one", topics, rf, work / "three-work", result["three"])
        three.stop_broker(1, kill=True)
        three.wait_brokers([2, 3])
        three.wait("leaders on brokers 2 and 3",
                   lambda: all(d["leader"] in (2, 3) for d in three.partitions(list(topics)).values()))
        result["three"]["served_without_broker_1"] = _read(three, topics, work / "read2", ("read_committed",))
    return result


def main(argv: list[str]) -> int:
    backup, work, version, topics = Path(argv[0]), Path(argv[1]), argv[2], json.loads(argv[3])
    work.mkdir(parents=True, exist_ok=True)
    result = run(backup, work, version, topics)
    (work / "result.json").write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # kafka-python's threads must not hold the exit
