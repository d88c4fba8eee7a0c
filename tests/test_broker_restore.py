"""kvlog writes, Kafka serves: ``kvlog restore`` (and ``kvlog adopt``) checked against live Kafka 4.x brokers.

The source is a live broker: the version's scenario (every codec, headers, LogAppendTime, idempotent and
transactional producers with aborts, compaction, retention, DeleteRecords, rolls, groups of every protocol)
started again from its clean copy, plus a topic ``live`` written while it runs (idempotent records, a committed
and an aborted transaction, then a transaction left open and records after it). ``kvlog backup`` copies its data
directory while it runs, as a user would. Then the backup is restored three ways, each onto a broker that is
then started and read through Kafka's Java client:

(a) a fresh cluster: the topics are created there first (new topic ids, read by the restore from the empty
    directories the broker made), consumer groups applied afterwards with Kafka's own ``kafka-consumer-groups
    --reset-offsets --from-file`` on the ``--groups-csv`` files (through the ``reset-offsets.sh`` the restore
    writes). The broker's ``.kafka_cleanshutdown`` is kept (the default): it loads kvlog's files as they are.
(b) a fresh cluster with ``--groups-partitions`` (``__consumer_offsets`` written directly, its topic id and the
    topics' ids read from the target's KRaft metadata, ``--metadata-dir``) and ``--recover`` (the marker removed:
    the broker recovers every log). Besides, ``kvlog adopt`` places a partition kvlog's ``Log`` wrote (leader
    epochs above the partition's) and refuses one of a topic the cluster does not know; that one, copied in
    anyway, is renamed ``-stray`` by the broker, which is the reason adopt gives.
(c) the source cluster itself after it lost its disk: the data directory is gone, the KRaft metadata survives,
    so the topic ids are the source's (``--keep-topic-ids``), and so are the leader epochs
    (``--keep-leader-epochs``); ``kafka-storage format --ignore-formatted`` writes the new ``meta.properties``.

Each time: the broker renames, truncates and (a) recovers nothing (its log lines and the files after it stops;
the changes it makes are listed exactly); every record reads at its offset with its timestamp, type, key, value
and headers as the source served it, read_committed hides exactly the aborted records; ListOffsets (earliest,
latest, last stable, max-timestamp, offsetsForTimes) answers as kvlog does on the restored files; every group
resumes where the source's had committed (clamped to the restored log); DescribeProducers shows the producer
state the restore meant (none of the source's in a new cluster); producing appends at the restored end
with the partition's new leader epoch; DumpLogSegments ``--deep-iteration --index-sanity-check`` passes on every
file the restore wrote.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import kvlog
from kvlog import broker_files, checkpoint
from kvlog.backup.adopt import broker_running
from kvlog.log import Log
from kvlog.records import Record, encode_batch
from tests.kafka_oracle import client, scenario
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import Broker, KafkaDist
from tests.kafka_oracle.serve import create_topics

with warnings.catch_warnings():  # kafka-python (the harness's admin client) loads its schemas a deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka
    import kafka.errors

pytestmark = pytest.mark.broker

VERSIONS = ("4.1.2", "4.4.0")
PARAMS = [pytest.param(v, id=f"kafka-{v}", marks=pytest.mark.xdist_group(f"restore-{v}")) for v in VERSIONS]
CASES = [pytest.param(c, id=c) for c in ("a", "b", "c")]
BY_VERSION = pytest.mark.parametrize("world", PARAMS, indirect=True)
TOOLS = "4.4.0"  # kafka-consumer-groups (kafka-tools) ships in 4.4.0's jar set; it speaks to 4.1.2 too
LIVE = "live"
ADOPTED = "adopted"
UNKNOWN = "unknown"
PRODUCED = (("codec-none", 0), ("txn", 1), (LIVE, 0))  # partitions each case appends to after the restore
SUFFIXES = (".log", ".index", ".timeindex", ".txnindex", ".snapshot")

#: Lines that would mean the broker did not take a partition's files as kvlog wrote them.
BAD = re.compile(r"-stray|Found invalid|[Tt]runcat|[Cc]orrupt|Could not find offset index|Deleting (offset|time) "
                 r"index|Deleting segment|Non-monotonic|ERROR|WARN|Exception")
#: A race of Kafka's retention task with topic config updates at start-up (4.4.0, also without a restore): the
#: retention task resumes cleaning of a partition it had not paused. Nothing about the files.
RACE = re.compile(r"cannot be resumed since it is not paused")
RECOVERY = re.compile(r"Recovering unflushed segment|Deleted producer state snapshot")
COLLISION = re.compile(r"Error processing append operation on partition|OutOfOrderSequenceException")


def _strip(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A consumer's records without the leader epoch (the target's epochs are its own)."""
    return [{k: v for k, v in r.items() if k != "leader_epoch"} for r in records]


def _files(root: Path, labels: list[str]) -> dict[str, bytes]:
    out = {}
    for label in labels:
        d = root / label
        if d.is_dir():
            for f in sorted(d.iterdir()):
                if f.is_file():
                    out[f"{label}/{f.name}"] = f.read_bytes()
    for name in (checkpoint.LOG_START_OFFSET, checkpoint.RECOVERY_POINT, checkpoint.REPLICATION_OFFSET,
                 checkpoint.CLEANER_OFFSET, ".kafka_cleanshutdown"):
        if (root / name).is_file():
            out[name] = (root / name).read_bytes()
    return out


def _epochs(data: bytes) -> list[tuple[int, int]]:
    return broker_files.parse_leader_epochs(data, "leader-epoch-checkpoint")


@dataclass
class Case:
    name: str
    broker: Broker
    ranges: dict[str, tuple[int, int]]  # restored partition -> (log start, end)
    restore: dict[str, Any]
    restored: Path  # a copy of the log directory as the restore (and adopt) left it
    before: dict[str, bytes]
    after: dict[str, bytes] = field(default_factory=dict)
    load_log: str = ""
    dump: subprocess.CompletedProcess[str] | None = None
    dump_files: list[str] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)
    reset: subprocess.CompletedProcess[str] | None = None
    election: subprocess.CompletedProcess[str] | None = None
    adopt: dict[str, Any] = field(default_factory=dict)
    adopt_refused: subprocess.CompletedProcess[str] | None = None
    adopted_records: list[dict[str, Any]] = field(default_factory=list)
    listing: list[str] = field(default_factory=list)  # the log directory after the broker stopped
    root_after: dict[str, dict[tuple[str, int], int]] = field(default_factory=dict)  # root checkpoints after
    kvlog_offsets: dict[str, dict[str, Any]] = field(default_factory=dict)  # kvlog's answers on the restored copy
    dump_pairs: dict[str, set[tuple[int, int]]] = field(default_factory=dict)  # each dumped .log's offset steps
    batch_producers: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)  # kvlog's, from the batches
    recover: bool = False
    locked: bool = False


class World:
    """One version's source, backup and restores (computed once per worker: the module's brokers)."""

    def mark(self, what: str) -> None:
        now = time.monotonic()
        self.timings.append((what, round(now - self._t, 2)))
        self._t = now

    def __init__(self, version: str, root: Path):
        self.version = version
        self.root = root
        dist = KafkaDist.find(version)
        assert dist is not None
        self.dist = dist
        self.info = F.info(version)
        self.truth = F.truth(version)
        self.cases: dict[str, Case] = {}
        self.failed: dict[str, str] = {}
        self.source: Broker | None = None
        self.backup = root / "backup"
        self.live: dict[str, Any] = {}
        self.brokers: list[Broker] = []
        self.reset_groups: list[str] = []
        self.timings: list[tuple[str, float]] = []
        self._t = time.monotonic()

    # -- topics ------------------------------------------------------------------------------------------------
    def restored_topics(self) -> list[str]:
        names = [t for t, d in self.truth["metadata"]["topics"].items()
                 if not d["internal"] and not t.startswith("__") and t not in F.TIERED_TOPICS]
        return sorted(names) + [LIVE]

    def topic_specs(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """The topics as the target creates them: the source's partition counts and configs, but a retention
        that keeps the restored records (time retention reads their timestamps: docs/backup.md)."""
        out: dict[str, tuple[int, dict[str, Any]]] = {}
        for name in self.restored_topics():
            if name == LIVE:
                out[name] = (1, {})
                continue
            spec = self.info["topics"][name]
            cfg = dict(spec["configs"])
            if "retention.ms" in cfg:
                cfg["retention.ms"] = "-1"
            out[name] = (spec["partitions"], cfg)
        return out

    def truth_of(self, isolation: str, label: str) -> dict[str, Any]:
        if label.startswith(f"{LIVE}-"):
            return self.live[isolation][label]
        return self.truth[isolation][label]

    def offsets_of(self, label: str) -> dict[str, Any]:
        if label.startswith(f"{LIVE}-"):
            return self.live["offsets"][label]
        return self.truth["offsets"][label]

    def groups(self) -> dict[str, dict[str, Any]]:
        """The source's groups with committed offsets (not share groups: their state is not restored)."""
        return {g: v for g, v in self.truth["groups"].items()
                if (v["type"] or "").lower() != "share" and any("offset" in o and o["offset"] is not None
                                                                for o in v["offsets"].values())}

    # -- the source --------------------------------------------------------------------------------------------
    def start_source(self) -> None:
        scen = F.scenario_dir(self.version)
        root = self.root / "source"
        for name in ("data", "meta", "remote"):
            if (scen / "clean" / name).exists():
                shutil.copytree(scen / "clean" / name, root / name, symlinks=True)
        feat = scenario.Features.of(self.dist)
        plugins = () if not feat.tiered or feat.local_tiered_storage else (
            str(client.compiled(client.RSM_SOURCE, self.version)),)
        extra = scenario.broker_settings(feat, root)
        # the scenario's records are hours old: no retention pass while it serves as the source; high watermarks
        # checkpointed often, so the backup (which ends at the checkpointed high watermark) holds the live topic
        extra.update({"log.initial.task.delay.ms": "3600000", "replica.high.watermark.checkpoint.interval.ms": "300"})
        b = Broker(self.dist, root, extra=extra, classpath=plugins, cluster_id=self.info["cluster_id"])
        b.starts = 1  # formatted already: the scenario's copy
        self.brokers.append(b)
        b.start()
        self.mark("source: start")
        self.source = b
        create_topics(b, {LIVE: (1, {})})
        self._write_live(b)
        self.mark("source: live topic written and read")
        end = self.live["read_uncommitted"][f"{LIVE}-0"]["end_offset"]
        deadline = time.monotonic() + 30
        while checkpoint.read_offsets(str(b.data / checkpoint.REPLICATION_OFFSET)).get((LIVE, 0)) != end:
            assert time.monotonic() < deadline, "the live topic's high watermark was never checkpointed"
            time.sleep(0.1)
        r = subprocess.run([sys.executable, "-m", "kvlog", "backup", str(b.data), str(self.backup), "--json"],
                           capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr
        summary = json.loads(r.stdout)
        assert not summary["errors"], summary
        self.mark("source: backup")

    def _write_live(self, b: Broker) -> None:
        rng = random.Random(f"live-{self.version}")
        base = int(time.time() * 1000) - 600_000

        def recs(n: int, at: int) -> list[list[Any]]:
            out = []
            for i in range(n):
                headers = [(f"h{j}", rng.randbytes(rng.randint(0, 6))) for j in range(i % 3)]
                out.append(scenario.Workload.java_record(LIVE, 0, None if i % 4 == 0 else b"k%d" % i,
                                                         b"live %d " % i * rng.randint(1, 9), at + i * 7 - (i % 5),
                                                         headers))
            return out

        plain = recs(20, base)
        txns = [{"commit": True, "records": recs(8, base + 1000)}, {"commit": False, "records": recs(6, base + 2000)}]
        opened = recs(5, base + 3000)
        after = recs(5, base + 4000)
        stamps = sorted({r[4] for r in plain + txns[0]["records"] + txns[1]["records"] + opened + after})
        sample = sorted({stamps[0] - 1, stamps[0], stamps[5], stamps[len(stamps) // 2], stamps[-1], stamps[-1] + 1,
                         base + 3000, base + 3001})
        parts = [[LIVE, 0]]
        got = client.run(b.bootstrap, [
            {"op": "produce", "records": plain, "compression": "gzip"},
            {"op": "produce", "name": "txns", "transactional_id": "live-tx", "transactions": txns,
             "compression": "lz4"},
            {"op": "open_transaction", "transactional_id": "live-open", "records": opened},
            {"op": "produce", "name": "after", "records": after},
            {"op": "read", "name": "read_uncommitted", "partitions": parts, "isolation": "read_uncommitted"},
            {"op": "read", "name": "read_committed", "partitions": parts, "isolation": "read_committed"},
            {"op": "offsets", "partitions": parts, "timestamps": {f"{LIVE}-0": sample}},
        ], self.root / "work")
        self.live = got
        self.live["open_first"] = 20 + 8 + 1 + 6 + 1  # the open transaction's first offset: the restore's cut

    # -- the cases ---------------------------------------------------------------------------------------------
    def case(self, name: str) -> Case:
        if name in self.failed:  # computed once: a case that failed fails each of its tests with the same error
            raise AssertionError(f"Kafka {self.version}, case {name} failed: {self.failed[name]}")
        return self.cases[name]

    def compute(self) -> None:
        """The source, the backup and the three restores, each served and read; what the tests check is kept in
        memory (the brokers' files go when this ends). (c) comes last: it takes the source's cluster."""
        try:
            self.start_source()
        except Exception as exc:  # noqa: BLE001 - every case fails with it
            for name in ("a", "b", "c"):
                self.failed[name] = f"the source: {type(exc).__name__}: {exc}"[:4000]
            return
        for name, run in (("a", self._case_a), ("b", self._case_b), ("c", self._case_c)):
            try:
                case = run()
                self._derive(case)
                self.cases[name] = case
            except Exception as exc:  # noqa: BLE001 - reported by each test of the case
                self.failed[name] = f"{type(exc).__name__}: {exc}"[:4000]

    def _derive(self, case: Case) -> None:
        """What the tests compare that lives in files: kvlog's ListOffsets answers on the restored copy, each
        dumped segment's consecutive record offsets."""
        for label in case.ranges:
            got = case.answers["offsets"][label]

            def pair(found: Any) -> tuple[int, int]:
                return (-1, -1) if found is None else (found.offset, found.timestamp)

            with Log.open(case.restored / label, read_only=True) as log:
                case.kvlog_offsets[label] = {
                    "earliest": pair(log.offset_for_timestamp(kvlog.EARLIEST)),
                    "latest": pair(log.offset_for_timestamp(kvlog.LATEST)),
                    "max_timestamp": pair(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)),
                    "stable": log.last_stable_offset,
                    "for_timestamp": {ts: pair(log.offset_for_timestamp(int(ts))) for ts in got["for_timestamp"]},
                }
        rebuilt = self.root / f"{case.name}-rebuilt"  # the restored copy without producer snapshots: kvlog rebuilds
        shutil.copytree(case.restored, rebuilt)     # the producer state from the batches, as Kafka's recovery does
        for label in case.ranges:
            for f in (rebuilt / label).glob("*.snapshot"):
                f.unlink()
            with Log.open(rebuilt / label, read_only=True) as log:
                case.batch_producers[label] = sorted(_producer(e) for e in log.producer_state.producers.values())
        for f in case.dump_files:
            if f.endswith(".log"):
                copy = case.restored / os.path.relpath(f, case.broker.data)
                case.dump_pairs[f] = _record_offset_pairs(str(copy))

    def _restore(self, data: Path, *args: str) -> dict[str, Any]:
        r = subprocess.run([sys.executable, "-m", "kvlog", "restore", str(self.backup), str(data), "--json",
                            "--topics", *self.restored_topics(), *args], capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr
        out: dict[str, Any] = json.loads(r.stdout)
        self.mark("restore")
        return out

    def _fresh(self, name: str, extra_topics: dict[str, tuple[int, dict[str, Any]]] | None = None) -> Broker:
        b = Broker(self.dist, self.root / name)
        self.brokers.append(b)
        b.start()
        create_topics(b, {**self.topic_specs(), **(extra_topics or {})})
        self.mark(f"{name}: fresh cluster, topics")
        return b

    def _prepare(self, name: str, b: Broker, restore: dict[str, Any], recover: bool,
                 extra_labels: tuple[str, ...] = ()) -> Case:
        ranges = {k: (v["log_start_offset"], v["end_offset"]) for k, v in restore["partitions"].items()}
        labels = sorted(ranges) + list(extra_labels)
        copy = self.root / f"{name}-restored"
        shutil.copytree(b.data, copy)
        case = Case(name, b, ranges, restore, copy, _files(b.data, labels), recover=recover)
        case.dump_files = [str(f) for label in labels for f in sorted((b.data / label).iterdir())
                           if f.suffix in SUFFIXES]
        case.dump = subprocess.run(
            self.dist.java_cmd(self.dist.dump_class, "--files", ",".join(case.dump_files), "--deep-iteration",
                               "--index-sanity-check"), capture_output=True, text=True, timeout=300, check=False)
        self.mark(f"{name}: copy, DumpLogSegments")
        return case

    def _serve(self, case: Case, labels: list[str]) -> None:
        b = case.broker
        mark = len(b.log_text())
        b.start()
        case.locked = broker_running(b.data)  # what restore and adopt refuse: the broker's lock on .lock
        self.mark(f"{case.name}: start")
        if case.name == "c":
            # after a lost disk the controller fenced the broker out of every ISR (it cannot know the restore put the
            # records back), and the partitions sit in the lost directory: the only replica is elected uncleanly
            case.election = self._tool("org.apache.kafka.tools.LeaderElectionCommand", "--bootstrap-server",
                                       b.bootstrap, "--election-type", "unclean", "--all-topic-partitions")
            assert case.election.returncode == 0, case.election.stdout + case.election.stderr
        if case.name == "a":
            case.reset = self._reset_offsets(b, Path(case.restore["groups"]["csv"][0]).parent)
            assert case.reset.returncode == 0, case.reset.stderr[-3000:]
        self.mark(f"{case.name}: kafka-consumer-groups / kafka-leader-election")
        parts = [list(_label(label)) for label in sorted(case.ranges)]
        stamps = {label: list(self.offsets_of(label)["for_timestamp"]) for label in case.ranges}
        resume = []
        for g, v in sorted(self.groups().items()):
            topics = sorted({_label(tp)[0] for tp, o in v["offsets"].items() if tp in case.ranges})
            if topics:
                resume.append({"group": g, "topics": topics,
                               "protocol": "consumer" if (v["type"] or "").lower() == "consumer" else "classic"})
        produce = [scenario.Workload.java_record(t, p, b"after-%d" % i, b"appended %d" % i, None,
                                                 [("after", b"restore")]) for t, p in PRODUCED for i in range(3)]
        steps: list[dict[str, Any]] = [
            {"op": "read", "name": "read_uncommitted", "partitions": parts, "isolation": "read_uncommitted"},
            {"op": "read", "name": "read_committed", "partitions": parts, "isolation": "read_committed"},
            {"op": "offsets", "partitions": parts, "timestamps": stamps},
            {"op": "groups"},
            {"op": "resume", "groups": resume},
            {"op": "producers", "partitions": parts},
            {"op": "produce", "records": produce},
            {"op": "read", "name": "read_after", "partitions": [list(tp) for tp in PRODUCED]},
        ]
        if case.name == "b":
            steps.append({"op": "read", "name": "read_adopted", "partitions": [[ADOPTED, 0]]})
        case.answers = client.run(b.bootstrap, steps, self.root / "work")
        self.mark(f"{case.name}: client")
        b.stop()
        case.load_log = b.log_text()[mark:]
        self.mark(f"{case.name}: stop")
        case.after = _files(b.data, labels)
        case.listing = sorted(os.listdir(b.data))
        case.root_after = {n: checkpoint.read_offsets(str(b.data / n)) for n in
                           (checkpoint.LOG_START_OFFSET, checkpoint.RECOVERY_POINT, checkpoint.REPLICATION_OFFSET)}

    def _tool(self, main: str, *args: str) -> subprocess.CompletedProcess[str]:
        tools = KafkaDist.find(TOOLS)
        assert tools is not None
        return subprocess.run(tools.java_cmd(main, *args), capture_output=True, text=True, timeout=300, check=False)

    def _reset_offsets(self, b: Broker, csv_dir: Path) -> subprocess.CompletedProcess[str]:
        """``sh reset-offsets.sh --execute`` as the restore wrote it, with KAFKA_CONSUMER_GROUPS naming a stand-in
        that records each command line; the commands (Kafka's ConsumerGroupCommand, one per group) then run side
        by side. Their outputs, in the script's order, make the result's stdout."""
        tools = KafkaDist.find(TOOLS)
        assert tools is not None
        calls = self.root / "kafka-consumer-groups.calls"
        stand_in = self.root / "kafka-consumer-groups"
        stand_in.write_text(f"#!{sys.executable}\nimport json, sys\n"
                            f"with open({str(calls)!r}, 'a') as f:\n    f.write(json.dumps(sys.argv[1:]) + '\\n')\n")
        stand_in.chmod(0o755)
        script = subprocess.run(["sh", str(csv_dir / "reset-offsets.sh"), "--execute"], capture_output=True,
                                text=True, env={**os.environ, "BOOTSTRAP": b.bootstrap,
                                                "KAFKA_CONSUMER_GROUPS": str(stand_in)}, timeout=60, check=False)
        assert script.returncode == 0, script.stderr
        argvs = [json.loads(line) for line in calls.read_text().splitlines()]
        case_groups = [a[a.index("--group") + 1] for a in argvs]
        procs = [subprocess.Popen(tools.java_cmd("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", *a),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for a in argvs]
        outs = [p.communicate(timeout=300) for p in procs]
        rc = max((p.returncode for p in procs), default=0)
        self.reset_groups = case_groups
        return subprocess.CompletedProcess(argvs, rc, "".join(o for o, _ in outs), "".join(e for _, e in outs))

    def _case_a(self) -> Case:
        b = self._fresh("a")
        b.stop()
        restore = self._restore(b.data, "--groups-csv", str(self.root / "a-groups"))
        case = self._prepare("a", b, restore, recover=False)
        self._serve(case, sorted(case.ranges))
        return case

    def _case_b(self) -> Case:
        b = self._fresh("b", {ADOPTED: (1, {})})
        from kafka import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=b.bootstrap, request_timeout_ms=30000)
        try:
            admin.describe_groups(["probe"])  # finding a coordinator creates __consumer_offsets
        except kafka.errors.CoordinatorNotAvailableError:
            pass  # (the answer while it is being created)
        finally:
            admin.close()
        deadline = time.monotonic() + 60
        while not (b.data / "__consumer_offsets-0" / "partition.metadata").exists():
            assert time.monotonic() < deadline, "no __consumer_offsets-0"
            time.sleep(0.1)
        b.stop()
        shutil.move(str(b.data / "__consumer_offsets-0"), str(self.root / "b-old-offsets"))  # docs/backup-groups.md
        restore = self._restore(b.data, "--groups-partitions", "1", "--metadata-dir", str(b.meta), "--recover")
        written = self.root / "b-kvlog"
        adopted_records = _write_adopted(written)
        refused = subprocess.run([sys.executable, "-m", "kvlog", "adopt", str(b.data), str(written / f"{UNKNOWN}-0"),
                                  "--metadata-dir", str(b.meta)], capture_output=True, text=True, check=False)
        r = subprocess.run([sys.executable, "-m", "kvlog", "adopt", str(b.data), str(written / f"{ADOPTED}-0"),
                            "--metadata-dir", str(b.meta), "--json"], capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr
        # the refused directory, put in place anyway: what the broker does with it is adopt's reason
        shutil.copytree(written / f"{UNKNOWN}-0", b.data / f"{UNKNOWN}-0")
        case = self._prepare("b", b, restore, recover=True, extra_labels=("__consumer_offsets-0", f"{ADOPTED}-0"))
        case.adopt = json.loads(r.stdout)
        case.adopt_refused = refused
        case.adopted_records = adopted_records
        self._serve(case, sorted(case.ranges) + ["__consumer_offsets-0", f"{ADOPTED}-0"])
        return case

    def _case_c(self) -> Case:
        b = self.source
        assert b is not None
        from kafka import KafkaAdminClient
        from kafka.admin import ConfigResource, ConfigResourceType

        admin = KafkaAdminClient(bootstrap_servers=b.bootstrap, request_timeout_ms=30000)
        try:  # the restored records are older than the topic's retention: keep them (docs/backup.md, step 2)
            admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "retention-time",
                                                configs={"retention.ms": "-1", "segment.ms": "100"})])
        finally:
            admin.close()
        b.stop()
        shutil.rmtree(b.data)  # the disk is lost; the KRaft metadata (another disk) survives
        b.extra.pop("log.initial.task.delay.ms", None)
        restore = self._restore(b.data, "--keep-topic-ids", "--keep-leader-epochs", "--groups-partitions", "1")
        b.configure()
        fmt = self.dist.run_tool("kafka.tools.StorageTool", "format", "-t", b.cluster_id, "-c",
                                 str(b.root / "server.properties"), "--ignore-formatted")
        assert fmt.returncode == 0, fmt.stdout + fmt.stderr
        case = self._prepare("c", b, restore, recover=False, extra_labels=("__consumer_offsets-0",))
        self._serve(case, sorted(case.ranges) + ["__consumer_offsets-0"])
        return case

    def close(self) -> None:
        for b in self.brokers:
            b.stop_all(kill=True)


def _producer(e: Any) -> tuple[Any, ...]:
    """A producer's state as DescribeProducers answers it (a kvlog ProducerStateEntry, or the client's JSON)."""
    if isinstance(e, dict):
        return (e["producer_id"], e["producer_epoch"], e["last_sequence"], e["last_timestamp"],
                e["coordinator_epoch"], e["current_txn_start_offset"])
    return (e.producer_id, e.producer_epoch, e.last_seq, e.last_timestamp,
            None if e.coordinator_epoch < 0 else e.coordinator_epoch,
            None if e.current_txn_first_offset < 0 else e.current_txn_first_offset)


def _record_offset_pairs(path: str) -> set[tuple[int, int]]:
    """Each record's offset after the one before it in a segment file (-1 before the first)."""
    with open(path, "rb") as f:
        data = f.read()
    offsets = [r.offset for b in kvlog.MemoryRecords(data).batches() for r in b.records()]
    return set(zip([-1, *offsets], offsets))


def _label(label: str) -> tuple[str, int]:
    topic, _, p = label.rpartition("-")
    return topic, int(p)


def _write_adopted(root: Path) -> list[dict[str, Any]]:
    """Partitions written by kvlog's ``Log``: ``adopted-0`` (plain, compressed and idempotent appends, then a batch
    copied from a leader of epoch 7, beyond the target's epochs) and ``unknown-0`` (a topic no cluster has)."""
    root.mkdir()
    want = []
    with Log.open(root / f"{ADOPTED}-0") as log:
        ts = int(time.time() * 1000) - 5000
        for i, codec in enumerate(("none", "gzip", "zstd")):
            recs = [Record(b"a%d" % j, b"adopted %d/%d" % (i, j), ts + 10 * i + j, (("n", b"%d" % j),))
                    for j in range(5)]
            log.append(recs, compression=codec)
        log.append([Record(b"idem", b"idempotent %d" % j, ts + 100 + j) for j in range(4)], producer_id=4242,
                   producer_epoch=0, base_sequence=0)
        log.append(encode_batch([Record(b"e7", b"epoch seven %d" % j, ts + 200 + j) for j in range(3)],
                                base_offset=log.log_end_offset, partition_leader_epoch=7), assign_offsets=False)
        for r in log.read(0, 1 << 20).records():
            want.append({"offset": r.offset, "timestamp": r.timestamp, "timestamp_type": "CreateTime",
                         "key": client.b64(r.key), "value": client.b64(r.value),
                         "headers": [[k, client.b64(v)] for k, v in r.headers]})
    with Log.open(root / f"{UNKNOWN}-0") as log:
        log.append([Record(b"u", b"unknown")])
    return want


_WORLDS: dict[str, World] = {}


def _world_once(version: str, shared: Path, wait: bool) -> World | None:
    """The version's World, computed by the first pytest worker that needs it (under a file lock, then pickled
    for the others: pytest 9 ignores the node ids xdist's loadgroup sets, so xdist_group does not keep a
    version's tests on one worker). None when another worker is computing it and ``wait`` is false."""
    import fcntl
    import pickle

    if version in _WORLDS:
        return _WORLDS[version]
    result = shared / f"kvlog-restore-{version}.pickle"
    with open(shared / f"kvlog-restore-{version}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None
        if result.exists():
            with open(result, "rb") as f:
                _WORLDS[version] = pickle.load(f)
            return _WORLDS[version]
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        w = World(version, Path(tempfile.mkdtemp(prefix=f"kvlog-restore-{version}-", dir=base)))
        try:
            w.compute()
        finally:
            w.close()
            if os.environ.get("KVLOG_RESTORE_TIMINGS"):
                with open(os.environ["KVLOG_RESTORE_TIMINGS"], "a") as f:
                    f.write(json.dumps({version: w.timings}) + "\n")
            if not os.environ.get("KVLOG_KEEP_RESTORE"):  # kept for a look at the brokers' logs and files
                shutil.rmtree(w.root, ignore_errors=True)
        tmp = result.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            pickle.dump(w, f)
        tmp.rename(result)
        _WORLDS[version] = w
        return w


@pytest.fixture
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> World:
    """The version's World (tests take it through ``@BY_VERSION``). A worker that finds its version being
    computed by another computes the other version meanwhile, so that two workers serve two versions at once."""
    version = request.param
    F.scenario_dir(version)  # skips (or fails under KVLOG_REQUIRE_BROKER) without Java or jars
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    w = _world_once(version, shared, wait=False)
    if w is None:
        for other in VERSIONS:
            if other != version and not F.unavailable(other):
                _world_once(other, shared, wait=False)
        w = _world_once(version, shared, wait=True)
    assert w is not None
    return w


# ============================================================================================== the tests
@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_broker_loads_the_restore_without_renaming_truncating_or_rebuilding(world: World, name: str) -> None:
    """The broker's log lines about the restored partitions, and their files after it stopped: nothing renamed
    (-stray), truncated, deleted or distrusted; in (a) nothing recovered either (the marker is kept). What the
    broker does change, exactly: each leader-epoch-checkpoint gains the entry of the partition's new leader epoch
    at the restored end; the root checkpoints get their entries in its own order and the recovery points at the
    end; ``.kafka_cleanshutdown`` is written anew. With ``--recover`` (b) and after the lost disk (c) the broker
    recovers every restored segment, and the files come out byte for byte as kvlog wrote them (indexes, producer
    snapshots, transaction indexes); the controller then handles the broker as uncleanly shut down."""
    case = world.case(name)
    names = [re.escape(label) for label in case.ranges]
    about = re.compile(r"\b(" + "|".join(names) + r")\b")
    mine = [line for line in case.load_log.splitlines() if about.search(line)]
    bad = [line for line in mine if BAD.search(line) and not RACE.search(line)]
    if name == "b":
        # --recover: Kafka's recovery rebuilds the producer state from the batches, the source's producer ids
        # included, and the target hands out the same ids: its producer's first append to such a partition is
        # refused once (the Java client bumps its epoch and appends: see the produce test). (a) restores no
        # producer state into a new cluster; (c) is the cluster that issued the ids.
        bad = [line for line in bad if not COLLISION.search(line)]
    assert not bad, "\n".join(bad[:20])
    if name != "b":
        assert not COLLISION.search(case.load_log)
    recovered = {label for label in case.ranges if any(RECOVERY.search(line) and label in line for line in mine)}
    unclean = "handleBrokerUncleanShutdown" in case.load_log
    if name == "a":
        assert not recovered and not unclean
    else:
        assert recovered == set(case.ranges) and unclean
    assert not [n for n in case.listing if n.endswith(("-stray", "-delete")) and not n.startswith(UNKNOWN)]
    assert case.locked  # while it ran, kvlog restore and adopt would have refused the directory
    produced = {f"{t}-{p}" for t, p in PRODUCED}
    for label, (start, end) in case.ranges.items():
        before = {k: v for k, v in case.before.items() if k.startswith(label + "/")}
        after = {k: v for k, v in case.after.items() if k.startswith(label + "/")}
        changed = []
        for k, v in before.items():
            if name == "b" and k.endswith(".snapshot"):
                continue  # recovery rebuilds producer snapshots from the batches (kvlog wrote an empty one)
            assert k in after, f"{k} is gone"
            if k.endswith("/leader-epoch-checkpoint"):
                continue
            if label in produced and k.endswith((".log", ".index", ".timeindex")):
                assert after[k].startswith(v) if k.endswith(".log") else True, k
                continue
            if after[k] != v:
                changed.append(k)
        assert not changed, changed
        if label not in produced:
            unsnapped = {k for k in set(after) ^ set(before) if not (name == "b" and k.endswith(".snapshot"))}
            assert not unsnapped, unsnapped
        old = _epochs(before[f"{label}/leader-epoch-checkpoint"])
        new = _epochs(after[f"{label}/leader-epoch-checkpoint"])
        assert new[:len(old)] == old and len(new) == len(old) + 1, (label, old, new)
        assert new[-1][1] == end and new[-1][0] > max((e for e, _ in old), default=-1), (label, old, new)
    root_after = case.root_after
    for label, (start, end) in case.ranges.items():
        tp = _label(label)
        grown = 3 if tp in PRODUCED else 0
        assert root_after[checkpoint.REPLICATION_OFFSET][tp] == end + grown
        assert root_after[checkpoint.RECOVERY_POINT][tp] == end + grown
        assert root_after[checkpoint.LOG_START_OFFSET].get(tp, start) == start


@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_every_record_reads_as_the_source_served_it(world: World, name: str) -> None:
    """Offsets, timestamps, timestamp types, keys, values and headers (both isolation levels: read_committed
    hides exactly the aborted records) as the source broker served them; each partition ends where the backup
    did (the source's high watermark), but ``live``, cut before the transaction left open."""
    case = world.case(name)
    assert set(case.ranges) == {f"{t}-{p}" for t in world.restored_topics()
                                for p in range(world.topic_specs()[t][0])}
    for label, (start, end) in sorted(case.ranges.items()):
        if label == f"{LIVE}-0":
            assert end == world.live["open_first"]
            assert case.restore["partitions"][label]["cut"] == "transaction"
        else:
            assert end == world.truth["read_uncommitted"][label]["end_offset"], label
        for isolation in ("read_uncommitted", "read_committed"):
            want = world.truth_of(isolation, label)
            got = case.answers[isolation][label]
            assert got["log_start_offset"] == want["log_start_offset"] == start, (label, isolation)
            assert got["end_offset"] == min(want["end_offset"], end), (label, isolation)
            assert _strip(got["records"]) == [r for r in _strip(want["records"]) if r["offset"] < end], \
                (label, isolation)
    aborted = {r["offset"] for r in case.answers["read_uncommitted"]["txn-0"]["records"]} - \
        {r["offset"] for r in case.answers["read_committed"]["txn-0"]["records"]}
    assert aborted  # the scenario's aborted transactions are there, hidden from read_committed


@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_list_offsets_answer_as_kvlog_does_on_the_restored_files(world: World, name: str) -> None:
    """earliest, latest, the last stable offset, max-timestamp and offsetsForTimes at the source's sampled
    timestamps: the target broker answers as kvlog's ``offset_for_timestamp`` does on the files the restore wrote,
    and (but for ``live``, cut) as the source broker answered."""
    case = world.case(name)
    wrong = []
    checked = 0
    for label in sorted(case.ranges):
        got = case.answers["offsets"][label]
        mine = case.kvlog_offsets[label]
        stable = mine["stable"]
        pairs = [(k, mine[k], got[k]) for k in ("earliest", "latest", "max_timestamp")] + \
            [(f"@{ts}", v, got["for_timestamp"][ts]) for ts, v in mine["for_timestamp"].items()]
        for what, kv, answer in pairs:
            assert "error" not in answer, (label, what, answer)
            if tuple(kv) != (answer["offset"], answer["timestamp"]):
                wrong.append(f"{label} {what}: kvlog {kv}, Kafka {answer['offset'], answer['timestamp']}")
            checked += 1
        if stable != got["latest_committed"]["offset"]:
            wrong.append(f"{label} last stable offset: kvlog {stable}, Kafka {got['latest_committed']['offset']}")
        if not label.startswith(f"{LIVE}-"):
            source = world.offsets_of(label)
            for k in ("earliest", "latest", "latest_committed", "max_timestamp"):
                if (got[k]["offset"], got[k]["timestamp"]) != (source[k]["offset"], source[k]["timestamp"]):
                    wrong.append(f"{label} {k}: target {got[k]}, source {source[k]}")
            for ts, answer in source["for_timestamp"].items():
                if (got["for_timestamp"][ts]["offset"], got["for_timestamp"][ts]["timestamp"]) != \
                        (answer["offset"], answer["timestamp"]):
                    wrong.append(f"{label} @{ts}: target {got['for_timestamp'][ts]}, source {answer}")
    assert not wrong, "\n".join(wrong[:30])
    assert checked > 150


@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_consumer_groups_resume_where_the_source_committed(world: World, name: str) -> None:
    """Every group of the source with committed offsets (classic groups of kafka-python, aiokafka and Java, the
    admin API's, a KIP-848 group, 4.4's streams group): its committed offsets on the target are the source's,
    clamped to the restored log (the group ``ahead`` committed past the end); a Java consumer of the group (its
    own protocol; auto.offset.reset=none, so a missing offset fails) starts there and fetches that record first.
    (a) commits through kafka-consumer-groups carry no metadata and no leader epoch; (b) and (c) keep the
    source's metadata."""
    case = world.case(name)
    listed = case.answers["groups"]
    resumed = case.answers["resume"]
    checked = 0
    for group, v in sorted(world.groups().items()):
        for tp, o in sorted(v["offsets"].items()):
            if tp not in case.ranges or o.get("offset") is None:
                continue
            start, end = case.ranges[tp]
            want = min(max(o["offset"], start), end)
            got = listed[group]["offsets"][tp]
            assert got["offset"] == want, (group, tp, got, o)
            assert got["metadata"] == ("" if name == "a" else o["metadata"]), (group, tp)
            assert got["leader_epoch"] is None, (group, tp)
            r = resumed[group][tp]
            assert "error" not in r, (group, tp, r)
            assert r["start"] == want, (group, tp, r)
            if want < end:  # (the consumers run before anything is appended)
                assert r.get("first") == want, (group, tp, r)
            checked += 1
    assert checked >= 10
    assert any(o["offset"] > case.ranges[tp][1] for v in world.groups().values() for tp, o in v["offsets"].items()
               if tp in case.ranges and o.get("offset") is not None)  # a commit past the end was clamped
    if name == "a":  # one kafka-consumer-groups --reset-offsets --from-file per group, each printing its plan
        assert case.reset is not None and case.reset.stdout.count("NEW-OFFSET") == len(world.groups())
        assert sorted(world.reset_groups) == sorted(world.groups())


@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_the_broker_holds_the_producer_state_the_restore_meant(world: World, name: str) -> None:
    """DescribeProducers on each restored partition, before anything is appended: (a) a new cluster, so no producer
    of the source (its ids are the new cluster's to hand out); (b) recovered, so the state Kafka rebuilt from the
    batches; (c) the same cluster, loaded from the producer snapshot the restore wrote at each end. In (b) and (c)
    that is the state kvlog rebuilds from the batches, producer for producer (the source's idempotent and
    transactional producers; none with a transaction open: the restore cut before it). A producer whose last batch
    is near a day old is left out: the broker drops it at load (producer.id.expiration.ms), kvlog keeps it."""
    case = world.case(name)
    fresh = int(time.time() * 1000) - 23 * 3_600_000
    checked = 0
    for label in sorted(case.ranges):
        got = sorted(_producer(e) for e in case.answers["producers"][label])
        if name == "a":
            assert got == [], label
            continue
        assert [p for p in got if p[3] >= fresh] == [p for p in case.batch_producers[label] if p[3] >= fresh], label
        assert all(p[5] is None for p in got), label
        checked += sum(p[3] >= fresh for p in got)
    assert name == "a" or checked >= 2  # (the live topic's producers, at least)


@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_producing_appends_after_the_restored_end_with_the_new_leader_epoch(world: World, name: str) -> None:
    case = world.case(name)
    for t, p in PRODUCED:
        label = f"{t}-{p}"
        end = case.ranges[label][1]
        recs = [r for r in case.answers["read_after"][label]["records"] if r["offset"] >= end]
        assert [r["offset"] for r in recs] == [end, end + 1, end + 2], label
        assert [client.unb64(r["value"]) for r in recs] == [b"appended %d" % i for i in range(3)], label
        epoch, start = _epochs(case.after[f"{label}/leader-epoch-checkpoint"])[-1]
        assert start == end and {r["leader_epoch"] for r in recs} == {epoch}, (label, epoch, recs)
        restored_epochs = {e for e, _ in _epochs(case.before[f"{label}/leader-epoch-checkpoint"])}
        assert epoch > max(restored_epochs, default=-1)


@BY_VERSION
@pytest.mark.parametrize("name", CASES)
def test_dump_log_segments_passes_on_every_file_the_restore_wrote(world: World, name: str) -> None:
    """Kafka's DumpLogSegments --deep-iteration --index-sanity-check over every segment, index, transaction index
    and producer snapshot of the restored partitions (and the __consumer_offsets and adopted partitions kvlog
    wrote): exit 0, every index passes its sanity check, no record problem. (The tool's stderr names a -1
    "offset" before the first batch of each file whose base offset is not 0: its own quirk.)"""
    case = world.case(name)
    assert case.dump is not None
    assert case.dump.returncode == 0, case.dump.stderr[-3000:]
    out = case.dump.stdout
    for f in case.dump_files:
        assert f"Dumping {f}" in out
        if f.endswith((".index", ".timeindex")):
            assert f"{f} passed sanity check." in out or f"{f} is empty." in out, f
    assert "failed sanity check" not in out and "Mismatches" not in out and "orrupt" not in out
    lines = [line for line in case.dump.stderr.splitlines() if line and not re.match(r"^\d+ \[", line)]
    header = re.compile(r"^Non-consecutive offsets in (.+)$")
    pair = re.compile(r"^\s+(-?\d+) is followed by (\d+)$")
    current = None
    for line in lines:
        m = header.match(line)
        if m:
            current = m.group(1)
            follows = case.dump_pairs[current]
            continue
        m = pair.match(line)
        assert m and current is not None, line
        # a gap the file really has: compaction's, or the tool's -1 before a first record that is not offset 0
        assert (int(m.group(1)), int(m.group(2))) in follows, (current, line)


@BY_VERSION
def test_adopt_places_a_kvlog_written_partition_and_refuses_a_stray(world: World) -> None:
    """``kvlog adopt`` of a partition kvlog's ``Log`` wrote (a batch of leader epoch 7, above the target's): the
    topic id from the target's KRaft metadata, the epoch lowered to the partition's current one, served record
    for record. A partition of a topic the metadata does not know is refused, saying the broker would rename it
    ``-stray``; copied in anyway, the broker does exactly that (and serves nothing of it)."""
    case = world.case("b")
    adopted = case.adopt["partitions"][f"{ADOPTED}-0"]
    assert adopted["topic_id_from"] == "metadata"
    assert adopted["epochs_lowered"] == 1 and adopted["leader_epoch_cap"] < 7
    got = case.answers["read_adopted"][f"{ADOPTED}-0"]
    assert _strip(got["records"]) == case.adopted_records
    assert {r["leader_epoch"] for r in got["records"] if r["value"] and b"epoch seven" in client.unb64(r["value"])} \
        == {adopted["leader_epoch_cap"]}
    refused = case.adopt_refused
    assert refused is not None and refused.returncode == 1
    assert f"{UNKNOWN}-0" in refused.stderr and "-stray" in refused.stderr and "unknown to" in refused.stderr
    strays = [n for n in case.listing if n.startswith(f"{UNKNOWN}-0.") and n.endswith("-stray")]
    assert len(strays) == 1 and f"{UNKNOWN}-0" not in case.listing
