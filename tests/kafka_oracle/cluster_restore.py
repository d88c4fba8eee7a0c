"""A fresh cluster that takes a cluster's backup, run in a child process (``python -m
tests.kafka_oracle.cluster_restore BACKUP WORK VERSION TOPICS_JSON``), so that the admin client's network threads
and their sockets die with it, as the scenarios' do.

A cluster of three brokers (one log directory each) creates the topics of ``TOPICS_JSON`` (``{name: {"partitions",
"replication_factor", "configs"}}``), stops, and ``kvlog.backup.restore`` runs once per broker with that broker's KRaft metadata
directory; the cluster starts again, and what it serves is recorded, then once more with broker 1 killed.
``WORK/result.json``: what each restore placed, the replicas the cluster's metadata lists, every restored
``.log`` file's inode and size before and after the restart, directories the brokers renamed, and the records
served (both isolation levels; read_committed again with broker 1 gone).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from kvlog.backup.restore import restore
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


def run(backup: Path, work: Path, version: str, topics: dict[str, Any]) -> dict[str, Any]:
    dist = KafkaDist.find(version)
    if dist is None:
        raise FileNotFoundError(f"Kafka {version}'s jars are not fetched")
    c = Cluster(dist, work / "cluster", log_dirs=1, controllers="separate")
    out: dict[str, Any] = {"placed": {}, "elsewhere": {}, "warnings": {}}
    with c:
        with c.admin() as a:
            a.create_topics({t: {"num_partitions": spec["partitions"], "replication_factor": spec["replication_factor"],
                                 "configs": spec["configs"]} for t, spec in topics.items()})
        c.wait_in_sync(list(topics))
        c.stop_all()
        data = [c.data_dirs(i)[0] for i in c.broker_ids]
        for i in c.broker_ids:
            r = restore(backup, c.data_dirs(i)[0], metadata_dir=c.meta_dir(i))
            out["placed"][str(i)] = sorted(r.partitions)
            out["elsewhere"][str(i)] = sorted(r.elsewhere)
            out["warnings"][str(i)] = r.warnings
        out["before"] = _segments(data)
        c.start()
        c.wait_in_sync(list(topics))
        out["replicas"] = {f"{t}-{p}": d["replicas"] for (t, p), d in c.partitions(list(topics)).items()}
        out["served"] = _read(c, topics, work / "read", ISOLATIONS)
        out["after"] = _segments(data)
        out["renamed"] = sorted(p.name for d in data for p in d.iterdir()
                                if p.name.endswith(("-stray", "-delete", "-future")))
        c.stop_broker(1, kill=True)
        c.wait_brokers([2, 3])
        c.wait("leaders on brokers 2 and 3",
               lambda: all(d["leader"] in (2, 3) for d in c.partitions(list(topics)).values()))
        out["served_without_broker_1"] = _read(c, topics, work / "read2", ("read_committed",))
    return out


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
