"""One cluster's life as the tests' input: three brokers write replicas, and say what they hold.

:func:`generate` starts a :class:`~tests.kafka_oracle.cluster.Cluster` of one version (three brokers, two log
dirs each) and makes the states a replica's directory goes through in a real cluster, copying every broker's
directories in each (``<version>/<state>/broker-<id>/data<i>``):

- ``rf3`` (6 partitions, RF 3, lz4) written with acks=all, a transaction committed and one aborted, a group's
  committed offsets: every replica holds the same bytes up to the high watermark;
- ``lagging``: broker 3 stopped while records are written (acks=all still succeeds with two in sync): state
  ``lagging`` is broker 3's shorter replica beside the others; broker 3 then restarts and catches up;
- ``moved``: RF 2 on brokers 1 and 2, reassigned to 2 and 3; then ``moved-1`` moved between broker 2's log
  dirs under a throttle, so that state ``future`` holds its half-copied ``<topic>-<p>.<id>-future`` directory;
- ``diverged`` (unclean election allowed, min ISR 1): brokers 2 and 3 stopped, records written to broker 1
  alone (acks=1), broker 1 killed, brokers 2 and 3 started, one elected though out of sync, other records
  written there: state ``diverged`` holds broker 1's replica with records the others never had, at the offsets
  where they hold others; broker 1 then restarts and truncates them;
- ``clean``: every broker stopped (a controlled shutdown), and for 4.4.0 ``running``: copied just before.

``truth.json`` says what the cluster answered in each state (metadata, offsets, records, log dirs) and what
the copies hold (``meta.properties``, ``partition.metadata``); ``info.json`` how long it took. Generation
happens once per version and code (a hash of it names the default directory and is kept in info.json),
under a file lock, one cluster at a time.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.kafka_oracle import client
from tests.kafka_oracle.broker import KafkaDist
from tests.kafka_oracle.cluster import Cluster, copy_tree
from tests.kafka_oracle.scenario import NOW_MS, _CheckedProducer, _records

#: The versions whose cluster life is generated (4.0 removed ZooKeeper; 2.8's KRaft was early access).
VERSIONS = ("3.7.2", "4.1.2", "4.4.0")
#: How each KRaft version's quorum runs here, so both layouts are covered.
CONTROLLERS = {"4.1.2": "combined", "4.4.0": "separate"}
#: Versions that also keep a copy taken while every broker runs.
RUNNING_COPY = ("4.4.0",)

ISOLATIONS = ("read_uncommitted", "read_committed")
#: A partition directory's kind by its name: Kafka renames a directory it is done with.
DIR_KIND = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)(?:\.(?P<id>[0-9a-f]+)-(?P<kind>future|delete|stray))?$")
THROTTLE = 20_000  # bytes/s for the log dir move: the first fetch copies one segment, then it waits


def code_hash() -> str:
    """A hash of the code that makes the scenario: a change regenerates it."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in (here / "cluster_scenario.py", here / "cluster.py", here / "broker.py", client.SOURCE):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def default_base() -> Path:
    """``KVLOG_CLUSTER_SCENARIOS``, else a directory of the temporary directory named by :func:`code_hash`."""
    import tempfile

    if os.environ.get("KVLOG_CLUSTER_SCENARIOS"):
        return Path(os.environ["KVLOG_CLUSTER_SCENARIOS"])
    return Path(tempfile.gettempdir()) / f"kvlog-cluster-scenarios-{os.getuid()}" / code_hash()


@dataclass
class Info:
    version: str
    mode: str
    cluster_id: str
    code: str
    states: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def _tp(topic: str, partition: int) -> str:
    return f"{topic}-{partition}"


def read_properties(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def describe_files(state_dir: Path) -> dict[str, Any]:
    """What a state's copies hold: per broker and log dir, ``meta.properties`` and every partition directory
    (``topic``, ``partition``, ``kind``: log, future, delete or stray; ``topic_id`` from partition.metadata)."""
    out: dict[str, Any] = {}
    for broker in sorted(state_dir.glob("broker-*")):
        dirs: dict[str, Any] = {}
        for d in sorted(broker.glob("data*")):
            meta = d / "meta.properties"
            parts = {}
            for p in sorted(x for x in d.iterdir() if x.is_dir()):
                m = DIR_KIND.match(p.name)
                if m is None:
                    continue
                pm = p / "partition.metadata"
                topic_id = None
                if pm.is_file():
                    topic_id = read_properties_colon(pm).get("topic_id")
                parts[p.name] = {"topic": m["topic"], "partition": int(m["partition"]), "kind": m["kind"] or "log",
                                 "topic_id": topic_id}
            dirs[d.name] = {"meta.properties": read_properties(meta) if meta.is_file() else None,
                            "clean_shutdown": (d / ".kafka_cleanshutdown").exists(), "partitions": parts}
        out[broker.name.split("-")[1]] = dirs
    return out


def read_properties_colon(path: Path) -> dict[str, str]:
    """partition.metadata: ``version: 0`` and ``topic_id: <id>`` lines."""
    out = {}
    for line in path.read_text().splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


class Life:
    """The steps of one cluster's life (see the module's docstring) and what the cluster answered in each."""

    def __init__(self, cluster: Cluster, dest: Path, info: Info):
        self.c = cluster
        self.dest = dest
        self.work = dest / "work"
        self.info = info
        self.rng = random.Random(f"kvlog-cluster-{cluster.dist.version}")
        self.base_ts = NOW_MS() - 10 * 60_000
        self.truth: dict[str, Any] = {"version": cluster.dist.version, "mode": cluster.mode, "topics": {},
                                      "states": {}}

    # -- helpers ---------------------------------------------------------------------------------------
    def note(self, text: str) -> None:
        self.info.notes.append(text)

    def topic(self, name: str, partitions: int = 1, assignments: dict[int, list[int]] | None = None,
              **configs: Any) -> None:
        cfg = {k.replace("_", "."): str(v) for k, v in configs.items()}
        spec: dict[str, Any] = {"configs": cfg}
        if assignments:
            spec["assignments"] = assignments
        else:
            spec.update(num_partitions=partitions, replication_factor=3)
        with self.c.admin() as a:
            a.create_topics({name: spec})
        self.truth["topics"][name] = {"partitions": partitions, "configs": cfg,
                                      "assignments": {str(k): v for k, v in (assignments or {}).items()}}
        self.c.wait_in_sync([name])

    def producer(self, **cfg: Any) -> _CheckedProducer:
        from kafka import KafkaProducer

        cfg.setdefault("acks", "all")
        return _CheckedProducer(KafkaProducer(bootstrap_servers=self.c.bootstrap, linger_ms=20,
                                              request_timeout_ms=30000, **cfg))

    def produce(self, topic: str, partition: int, n: int, *, chunks: tuple[int, ...] = (), **cfg: Any) -> int:
        """``n`` records (keys, null keys, headers) to one partition, flushed in ``chunks``; the offset after."""
        p = self.producer(**cfg)
        recs = _records(self.rng, n, self.base_ts)
        last = None
        i = 0
        for size in (*chunks, n):
            for key, value, ts, headers in recs[i:i + size]:
                last = p.send(topic, key=key, value=value, timestamp_ms=ts, headers=headers, partition=partition)
            p.flush()
            i += size
            if i >= n:
                break
        p.close()
        return last.get(timeout=60).offset + 1 if last is not None else -1

    def copy(self, state: str, how: dict[int, str], brokers: list[int] | None = None, others: bool = True) -> None:
        """Copy the brokers' directories (all, or ``brokers``) and with ``others`` the controller's and
        ZooKeeper's into ``dest/state`` (over an earlier copy of the same); ``how`` says how each broker was
        when copied (running, stopped, killed)."""
        out = self.dest / state
        for i in brokers or list(self.c.nodes):
            n = self.c.nodes[i]
            for d in [*n.data_dirs, *([n.meta_dir] if n.meta_dir else [])]:
                shutil.rmtree(out / f"broker-{i}" / d.name, ignore_errors=True)
                if d.exists():
                    copy_tree(d, out / f"broker-{i}" / d.name)
        if others and self.c.controller is not None and self.c.controller.meta_dir:
            copy_tree(self.c.controller.meta_dir, out / "controller" / "meta")
        if others and self.c.zookeeper is not None:
            copy_tree(self.c.zookeeper.root / "zk", out / "zookeeper" / "zk")
        s = self.truth["states"].setdefault(state, {})
        s["brokers"] = {**s.get("brokers", {}), **{str(k): v for k, v in how.items()}}
        if state not in self.info.states:
            self.info.states.append(state)

    def log_dirs(self) -> dict[str, Any]:
        """DescribeLogDirs of every running broker: ``{broker: {data<i>: {partition: {size, offset_lag,
        is_future}}}}`` (offset_lag: the high watermark less the replica's end, or for a future replica the
        current one's end less its own)."""
        out: dict[str, Any] = {}
        with self.c.admin() as a:
            for i in self.c.running_ids:
                names = {str(d): d.name for d in self.c.data_dirs(i)}
                dirs: dict[str, Any] = {}
                for entry in a.describe_log_dirs(brokers=[i]):
                    for ld in entry["log_dirs"]:
                        parts = {}
                        for t in ld["topics"]:
                            for p in t["partitions"]:
                                parts[_tp(t["name"], p["partition_index"])] = {
                                    "size": p["partition_size"], "offset_lag": p["offset_lag"],
                                    "is_future": p["is_future_key"]}
                        dirs[names.get(ld["log_dir"], ld["log_dir"])] = parts
                out[str(i)] = dirs
        return out

    def capture(self, state: str, *, groups: bool = True) -> None:
        """What the cluster answers now, kept as ``truth["states"][state]``: partitions (replicas, leader,
        ISR, log start, high watermark, last stable offset), the Java client's metadata, records read in both
        isolation levels (partitions without a leader are listed as ``unread``), groups, log dirs."""
        parts = self.c.partitions()
        led = sorted((t, p) for (t, p), d in parts.items() if d["leader"] >= 0)
        steps: list[dict[str, Any]] = [{"op": "metadata"}]
        steps += [{"op": "read", "name": iso, "partitions": [list(x) for x in led], "isolation": iso}
                  for iso in ISOLATIONS]
        offsets_led = all(d["leader"] >= 0 for (t, _p), d in parts.items() if t == "__consumer_offsets")
        if groups and offsets_led:
            steps.append({"op": "groups"})
        ans = client.run(self.c.bootstrap, steps, self.work)
        summary = {}
        for (t, p), d in sorted(parts.items()):
            k = _tp(t, p)
            ru, rc = ans["read_uncommitted"].get(k), ans["read_committed"].get(k)
            summary[k] = {"replicas": d["replicas"], "leader": d["leader"], "leader_epoch": d["leader_epoch"],
                          "isr": d["isr"], "log_start_offset": ru["log_start_offset"] if ru else None,
                          "high_watermark": ru["end_offset"] if ru else None,
                          "last_stable_offset": rc["end_offset"] if rc else None}
        s = self.truth["states"].setdefault(state, {})
        s.update({"partitions": summary, "metadata": ans["metadata"], "log_dirs": self.log_dirs(),
                  "groups": ans.get("groups"), "unread": [_tp(t, p) for (t, p), d in sorted(parts.items())
                                                          if d["leader"] < 0],
                  "records": {iso: ans[iso] for iso in ISOLATIONS}})

    def timed(self, name: str, fn: Any) -> None:
        t = time.monotonic()
        fn()
        self.info.timings[name] = round(time.monotonic() - t, 2)

    # -- the life --------------------------------------------------------------------------------------
    def rf3(self) -> None:
        """rf3: 6 partitions, RF 3, lz4; kafka-python (acks=all) in flushes of several sizes, a Java
        transaction committed and one aborted; group rf3-readers commits what it read."""
        from kafka import KafkaConsumer

        self.topic("rf3", 6, compression_type="lz4")
        for p in range(6):
            self.produce("rf3", p, 60 + 10 * p, chunks=(1, 4, 20), compression_type="lz4")
        rec = lambda p, i: client.b64(f"txn-{p}-{i}".encode())  # noqa: E731
        txns = [{"commit": commit, "records": [["rf3", p, rec(p, i), rec(p, i), self.base_ts + i, []]
                                               for p in parts for i in range(8)]}
                for commit, parts in ((True, (0, 1)), (False, (0, 2)), (True, (2, 3)))]
        client.run(self.c.bootstrap, [{"op": "produce", "transactional_id": "rf3-txn", "transactions": txns,
                                       "compression": "lz4"}], self.work)
        c = KafkaConsumer("rf3", bootstrap_servers=self.c.bootstrap, group_id="rf3-readers",
                          auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=5000)
        n = 0
        for _m in c:
            n += 1
            if n >= 300:
                break
        c.commit()
        c.close()
        self.c.wait_in_sync()

    def lagging(self) -> None:
        """lagging: broker 3 stopped, records written to the two in sync; copied; broker 3 caught up."""
        self.topic("lagging", 1)
        before = self.produce("lagging", 0, 80, chunks=(10, 30))
        self.c.stop_broker(3)
        self.c.wait("broker 3 out of lagging's ISR",
                    lambda: 3 not in self.c.partitions(["lagging"])[("lagging", 0)]["isr"])
        after = self.produce("lagging", 0, 120, chunks=(40, 40))
        self.capture("lagging")
        self.copy("lagging", {1: "running", 2: "running", 3: "stopped"})
        self.truth["lagging"] = {"partition": "lagging-0", "stopped": 3, "end_before": before, "end_after": after}
        self.c.start_broker(3)
        self.c.wait_in_sync()

    def moved(self) -> None:
        """moved: RF 2 on brokers 1 and 2, reassigned to 2 and 3; moved-1 then moved between broker 2's log
        dirs under a throttle (state ``future``)."""
        from kafka import TopicPartition

        self.topic("moved", 2, assignments={0: [1, 2], 1: [2, 1]}, segment_bytes=1 << 20)
        self.produce("moved", 0, 150, chunks=(50,), compression_type="lz4")
        p = self.producer()
        for i in range(160):  # ~1.3 MB: a segment of 1 MiB (the least segment.bytes of 4.x) and a part
            p.send("moved", key=f"m{i}".encode(), value=self.rng.randbytes(4096) + b"moved " * 700,
                   timestamp_ms=self.base_ts + i, partition=1)
            if i % 50 == 49:
                p.flush()
        p.close()
        self.c.wait_in_sync(["moved"])
        with self.c.admin() as a:
            a.alter_partition_reassignments({TopicPartition("moved", 0): [2, 3], TopicPartition("moved", 1): [2, 3]})

        def reassigned() -> bool:
            with self.c.admin() as a:
                if a.list_partition_reassignments():
                    return False
            parts = self.c.partitions(["moved"])
            return all(sorted(d["replicas"]) == [2, 3] and sorted(d["isr"]) == [2, 3] for d in parts.values())

        self.c.wait("moved reassigned to brokers 2 and 3", reassigned, 120)
        self.truth["reassignment"] = {"topic": "moved", "from": [1, 2], "to": [2, 3]}
        self.move_log_dir()

    def move_log_dir(self) -> None:
        from kafka import TopicPartitionReplica
        from kafka.admin import ConfigResource, ConfigResourceType

        dirs = self.c.data_dirs(2)
        src = next(d for d in dirs if (d / "moved-1").is_dir())
        dst = next(d for d in dirs if d != src)
        key = "replica.alter.log.dirs.io.max.bytes.per.second"

        def throttle(value: str | None) -> None:
            with self.c.admin() as a:
                a.alter_configs([ConfigResource(ConfigResourceType.BROKER, "2",
                                                {key: ("DELETE", None) if value is None else value})],
                                raise_on_unknown=False)

        def throttled() -> bool:
            with self.c.admin() as a:
                res = a.describe_configs([ConfigResource(ConfigResourceType.BROKER, "2", [key])])
            return str(THROTTLE) in repr(res)

        throttle(str(THROTTLE))
        self.c.wait("the log dir throttle in force on broker 2", throttled, 30)
        with self.c.admin() as a:
            a.alter_replica_log_dirs({TopicPartitionReplica("moved", 1, 2): str(dst)})
        future: list[Path] = []

        def copying() -> bool:
            future[:] = [f for f in dst.glob("moved-1.*-future") if any(
                g.stat().st_size > 0 for g in f.glob("*.log"))]
            return bool(future)

        copied = False
        try:
            self.c.wait("a moved-1 -future directory with records", copying, 60, 0.05)
            self.copy("future", {1: "running", 2: "running", 3: "running"})
            copied = (self.dest / "future" / "broker-2" / dst.name / future[0].name).is_dir()
            self.capture("future")
        except TimeoutError as e:
            self.note(f"no -future directory was seen: {e}")
        finally:
            throttle(None)

        def moved_over() -> bool:
            return (dst / "moved-1").is_dir() and not list(dst.glob("moved-1.*-future"))

        self.c.wait("moved-1 in broker 2's other log dir", moved_over, 120)
        self.truth["log_dir_move"] = {"broker": 2, "partition": "moved-1", "from": src.name, "to": dst.name,
                                      "future_copied": copied,
                                      "future_dir": f"{dst.name}/{future[0].name}" if copied else None}

    def diverged(self) -> None:
        """diverged: brokers 2 and 3 stopped, records written to broker 1 alone (acks=1), broker 1 killed,
        brokers 2 and 3 started and one of them elected though out of sync, other records written there."""
        from kafka.errors import KafkaError

        self.topic("diverged", 1, assignments={0: [1, 2, 3]}, unclean_leader_election_enable="true",
                   min_insync_replicas=1)
        common = self.produce("diverged", 0, 40, chunks=(10,))
        self.c.stop_broker(2)
        self.c.stop_broker(3)
        lost_end = self.produce("diverged", 0, 30, chunks=(10,), acks=1, enable_idempotence=False)
        before = client.run(self.c.nodes[1].bootstrap, [
            {"op": "read", "name": "read_uncommitted", "partitions": [["diverged", 0]],
             "isolation": "read_uncommitted"}], self.work)["read_uncommitted"]["diverged-0"]
        epoch_1 = self.c.partitions(["diverged"])[("diverged", 0)]["leader_epoch"]
        self.c.stop_broker(1, kill=True)
        self.copy("diverged", {1: "killed"}, [1], others=False)  # broker 1's replica as it died
        t = time.monotonic()
        self.c.start_brokers(2, 3)  # (they are two of the three voters of a combined quorum: together)
        election = "automatic"
        try:
            self.c.wait("an unclean election of diverged-0",
                        lambda: self.c.partitions(["diverged"])[("diverged", 0)]["leader"] in (2, 3), 20)
        except TimeoutError:
            election = "ElectLeaders(UNCLEAN)"
            with self.c.admin() as a:
                try:
                    a.elect_leaders(1, {"diverged": [0]})
                except KafkaError as e:
                    self.note(f"ElectLeaders(UNCLEAN) answered {e!r}")
            self.c.wait("diverged-0 led by broker 2 or 3",
                        lambda: self.c.partitions(["diverged"])[("diverged", 0)]["leader"] in (2, 3), 60)
        elected = round(time.monotonic() - t, 2)
        leader = self.c.partitions(["diverged"])[("diverged", 0)]["leader"]
        end = self.produce("diverged", 0, 60, chunks=(20,))
        self.c.wait("diverged-0 in sync on brokers 2 and 3",
                    lambda: sorted(self.c.partitions(["diverged"])[("diverged", 0)]["isr"]) == [2, 3])
        self.capture("diverged")
        self.copy("diverged", {2: "running", 3: "running"}, [2, 3])  # beside broker 1's, copied as it died
        self.truth["diverged"] = {"partition": "diverged-0", "old_leader": 1, "old_leader_epoch": epoch_1,
                                  "new_leader": leader, "election": election, "election_seconds": elected,
                                  "common_end": common, "lost_end": lost_end, "end": end,
                                  "lost": [r for r in before["records"] if r["offset"] >= common]}
        self.note(f"diverged-0: broker {leader} elected ({election}) {elected} s after brokers 2 and 3 started")
        self.c.start_broker(1)
        self.c.wait_in_sync(timeout=180)

    def final(self) -> None:
        self.capture("clean")
        if self.c.dist.version in RUNNING_COPY:
            self.copy("running", {i: "running" for i in self.c.nodes})
            self.truth["states"]["running"].update(
                {k: v for k, v in self.truth["states"]["clean"].items() if k != "brokers"})
        self.c.stop_all()
        missing = [str(d) for n in self.c.nodes.values() for d in n.data_dirs
                   if not (d / ".kafka_cleanshutdown").exists()]
        if missing:
            raise RuntimeError(f"Kafka {self.c.dist.version}: no .kafka_cleanshutdown in {missing}")
        self.copy("clean", {i: "stopped" for i in self.c.nodes})

    def run(self) -> None:
        for step in (self.rf3, self.lagging, self.moved, self.diverged, self.final):
            self.timed(step.__name__, step)

    def finish(self) -> dict[str, Any]:
        """The truth with every state's records kept only where they differ from the final answer's
        (``truth["records"]``), and the copies described (``files``)."""
        truth = self.truth
        final = truth["states"]["clean"].pop("records")
        truth["records"] = final
        truth["groups"] = truth["states"]["clean"]["groups"]
        for name, s in truth["states"].items():
            recs = s.pop("records", {iso: {} for iso in ISOLATIONS})
            s["records"] = {iso: {k: v for k, v in recs[iso].items() if final[iso].get(k) != v}
                            for iso in ISOLATIONS}
            s["files"] = describe_files(self.dest / name)
        return truth


def records(truth: dict[str, Any], state: str, isolation: str, tp: str) -> dict[str, Any] | None:
    """What a consumer read of ``tp`` in ``state`` (log_start_offset, end_offset, records), or None when the
    partition had no leader then."""
    s = truth["states"][state]
    if tp in s["unread"]:
        return None
    return s["records"][isolation].get(tp) or truth["records"][isolation].get(tp)


def generate(version: str, out: Path, controllers: str | None = None) -> Path:
    """Run the cluster's life of ``version`` into ``out/<version>/`` (states, truth.json, info.json)."""
    dist = KafkaDist.find(version)
    if dist is None:
        raise FileNotFoundError(f"Kafka {version}'s jars are not fetched")
    dest = out / version
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    cluster = Cluster(dist, dest / "live", controllers=controllers or CONTROLLERS.get(version, "combined"))
    info = Info(version=version, mode=cluster.mode, cluster_id=cluster.cluster_id, code=code_hash())
    life = Life(cluster, dest, info)
    t0 = time.monotonic()
    try:
        cluster.start()
        info.timings["start"] = round(time.monotonic() - t0, 2)
        life.run()
    except BaseException:
        try:
            cluster.stop_all(kill=True)
        finally:
            logs = [f"==== {n.root.name}\n{n.log_text()[-12000:]}" for n in cluster.all_nodes]
            (dest / "FAILED").write_text("\n".join(logs))
        raise
    truth = life.finish()
    truth["cluster_id"] = cluster.cluster_id
    for n in cluster.all_nodes:
        shutil.copy(n.log_path, dest / f"{n.root.name}.log")
    shutil.rmtree(dest / "live", ignore_errors=True)
    shutil.rmtree(life.work, ignore_errors=True)
    info.timings["total"] = round(time.monotonic() - t0, 2)
    (dest / "truth.json").write_text(json.dumps(truth))
    (dest / "info.json").write_text(json.dumps(asdict(info), indent=1))
    return dest


def _done(dest: Path) -> bool:
    try:
        return json.loads((dest / "info.json").read_text())["code"] == code_hash()
    except (FileNotFoundError, KeyError, ValueError):
        return False


_failed: dict[str, str] = {}


def ensure(version: str, base: Path | None = None) -> Path:
    """The cluster life of ``version`` under ``base`` (:func:`default_base`), generated once for all processes
    in a child process, under one lock for every version: one cluster runs at a time."""
    import fcntl
    import subprocess
    import sys

    if version in _failed:
        raise RuntimeError(f"Kafka {version}'s cluster scenario failed in this process:\n{_failed[version]}")
    base = base or default_base()
    base.mkdir(parents=True, exist_ok=True)
    dest = base / version
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _done(dest):
            return dest
        r = subprocess.run([sys.executable, "-m", "tests.kafka_oracle.cluster_scenario", "--one", str(base), version],
                           capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[2])
        if r.returncode != 0 or not _done(dest):
            _failed[version] = f"{r.stderr[-6000:]}\n(the nodes' logs: {dest / 'FAILED'})"
            raise RuntimeError(f"Kafka {version}'s cluster scenario failed:\n{_failed[version]}")
        return dest


def main(argv: list[str]) -> int:
    """``python -m tests.kafka_oracle.cluster_scenario DIR [VERSION ...]``: generate the cluster lives (every
    version of :data:`VERSIONS` with fetched jars by default) into ``DIR/<version>``, one after the other;
    those already made by the same code are kept."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m tests.kafka_oracle.cluster_scenario")
    ap.add_argument("out", type=Path)
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--controllers", choices=("combined", "separate"), help="the KRaft quorum's layout")
    ap.add_argument("--one", action="store_true", help="generate here, not in a child (as ensure's child does)")
    args = ap.parse_args(argv)
    versions = args.versions or [v for v in VERSIONS if KafkaDist.find(v) is not None]
    if args.one:
        for v in versions:
            t = time.monotonic()
            generate(v, args.out, args.controllers)
            print(f"cluster scenario {v}: {time.monotonic() - t:.1f} s", file=sys.stderr)
        return 0
    code = 0
    for v in versions:
        try:
            ensure(v, args.out)
            info = json.loads((args.out / v / "info.json").read_text())
            print(f"cluster scenario {v} ({info['mode']}): {info['timings']['total']} s", file=sys.stderr)
        except RuntimeError as e:
            print(e, file=sys.stderr)
            code = 1
    return code


if __name__ == "__main__":
    import sys

    status = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)  # kafka-python's threads must not hold the exit
