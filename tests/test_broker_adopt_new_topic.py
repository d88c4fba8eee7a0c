"""``kvlog adopt --new-topic`` against live brokers: partitions kvlog wrote, placed into a RUNNING broker's log
directory, then the topic created; the broker serves them without a restart.

For each version (2.8.2 and 3.7.2 with ZooKeeper, 4.1.2 and 4.4.0 with KRaft), one broker: three partitions
written by ``Log`` (every codec, headers, null keys and values, several segments; batches stamped with leader
epoch 7; an idempotent producer's batches), two placed with ``kvlog adopt --new-topic --move`` (one through the
CLI), the topic created with four partitions. Checked: Kafka's consumer reads what ``Log.records()`` read, with
leader epoch 0 where kvlog lowered 7; the ends of the unplaced partitions are 0; ListOffsets by timestamp answers
as ``Log.offset_for_timestamp``; DescribeProducers the producer kvlog wrote; a record produced afterwards lands
at the end with epoch 0; the broker's log names none of the partitions as recovered, truncated or rebuilt; after
a restart it serves the same. Refused on the running broker: the created topic again, and (KRaft) a topic the
metadata knows with no directory yet (placed anyway, the broker renamed it ``-stray`` at its next start), and any
placement without the metadata (``--metadata-dir``: the harness keeps it apart from the log directory).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import kvlog
from kvlog import Record
from kvlog.backup.adopt import AdoptError
from kvlog.backup.adopt_new_topic import adopt_new_topic
from kvlog.log import Log
from kvlog.records import encode_batch
from tests.kafka_oracle import client
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import VERSIONS, Broker, KafkaDist, version_tuple
from tests.kafka_oracle.serve import create_topics, suspicious_lines

PARAMS = [pytest.param(v, id=f"kafka-{v}", marks=pytest.mark.xdist_group(f"adopt-new-topic-{v}")) for v in VERSIONS]
pytestmark = [pytest.mark.broker, pytest.mark.parametrize("placed", PARAMS, indirect=True, scope="module")]

with warnings.catch_warnings():  # kafka-python (the harness's admin client) loads its schemas a deprecated way
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka  # noqa: F401

TOPIC = "loaded"
PID = 7_000_000  # far from the ids a cluster hands out
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


def write_partition(path: Path, p: int, now: int) -> None:
    rng = random.Random(p)
    with Log.open(path, kvlog.LogConfig(segment_bytes=4096), create=True) as log:
        i = 0
        for b in range(30):
            recs = []
            for _ in range(1 + b % 5):
                key = None if i % 9 == 4 else b"key-%d" % (i % 17)
                value = None if i % 13 == 7 else b"value %d " % i * (1 + i % 4) + rng.randbytes(6)
                headers = (("h", b"%d" % i), ("n", None)) if i % 5 == 0 else ()
                recs.append(Record(key, value, now - 600_000 + i * 250 - (5_000 if i % 11 == 10 else 0), headers))
                i += 1
            if b % 3 == 2:  # a leader's batch, stamped with an epoch the new topic does not have
                log.append(encode_batch(recs, compression=CODECS[b % 5], partition_leader_epoch=7))
            else:
                log.append(recs, compression=CODECS[b % 5])
        for s in range(3):  # an idempotent producer
            log.append(encode_batch([Record(b"idem", b"seq %d" % s, now - 1_000 + s)], producer_id=PID + p,
                                    producer_epoch=0, base_sequence=s), assign_offsets=True)


@dataclass
class Placed:
    version: str
    broker: Broker
    want: dict[int, list[tuple[Any, ...]]]
    stamps: dict[int, dict[int, Any]]
    answers: dict[str, Any] = field(default_factory=dict)
    after_restart: dict[str, Any] = field(default_factory=dict)
    cli: subprocess.CompletedProcess[str] | None = None
    refused_again: str = ""
    refused_known: list[str] = field(default_factory=list)
    load_log: str = ""

    @property
    def kraft(self) -> bool:
        return version_tuple(self.version) >= (4, 0)


def _answer(found: Any) -> tuple[int, int]:
    return (-1, -1) if found is None else (found.offset, found.timestamp)


@pytest.fixture(scope="module")
def placed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Placed]:
    version = request.param
    reason = F.unavailable(version)
    if reason is not None:
        F._skip_or_fail(reason)
    dist = KafkaDist.find(version)
    assert dist is not None
    root = tmp_path_factory.mktemp(f"adopt-new-{version}")
    broker = Broker(dist, root / "broker", extra={"log.retention.ms": "-1"})
    now = int(time.time() * 1000)
    staging = root / "staging"
    want: dict[int, list[tuple[Any, ...]]] = {}
    stamps: dict[int, dict[int, Any]] = {}
    for p in (0, 2, 3):
        write_partition(staging / f"{TOPIC}-{p}", p, now)
        with Log.open(staging / f"{TOPIC}-{p}", read_only=True) as log:
            want[p] = F.record_tuples(log.records())
            picks = sorted({r[3] for r in want[p]})[::9]
            stamps[p] = {t: _answer(log.offset_for_timestamp(t)) for t in picks}
    broker.start()
    try:
        s = Placed(version, broker, want, stamps)
        mark = len(broker.log_text())
        meta = {"metadata_dir": broker.meta} if version_tuple(version) >= (4, 0) else {}
        adopt_new_topic(broker.data, [staging / f"{TOPIC}-0", staging / f"{TOPIC}-2"], move=True, **meta)
        s.cli = subprocess.run([sys.executable, "-m", "kvlog", "adopt", "--new-topic", "--json", str(broker.data),
                                str(staging / f"{TOPIC}-3")] + [f"--metadata-dir={broker.meta}"] * bool(meta),
                               capture_output=True, text=True, timeout=180)
        from kafka import KafkaAdminClient
        from kafka.admin import NewTopic

        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=30000)
        try:
            admin.create_topics([NewTopic(TOPIC, 5, 1, topic_configs={"retention.ms": "-1"})])
        finally:
            admin.close()
        parts = [[TOPIC, p] for p in range(5)]
        ts = {f"{TOPIC}-{p}": list(stamps[p]) for p in stamps}
        s.answers = client.run(broker.bootstrap, [
            {"op": "read", "name": "read", "partitions": parts},
            {"op": "offsets", "partitions": [[TOPIC, p] for p in stamps], "timestamps": ts},
            {"op": "producers", "partitions": [[TOPIC, 0]]},
            {"op": "produce", "records": [[TOPIC, 0, client.b64(b"after"), client.b64(b"through the broker"),
                                           None, []]]},
            {"op": "read", "name": "after", "partitions": [[TOPIC, 0]]},
        ], root / "client")
        try:
            adopt_new_topic(broker.data, [broker.data / f"{TOPIC}-0"], **meta)
        except AdoptError as exc:
            s.refused_again = str(exc)
        if s.kraft:  # a topic the metadata knows, whose directory is not there: refused by the metadata
            create_topics(broker, {"known": (1, {})})
            spare = root / "spare" / "known-1"
            write_partition(spare, 1, now)
            for given in ({}, meta):
                try:
                    adopt_new_topic(broker.data, [spare], **given)
                except AdoptError as exc:
                    s.refused_known.append(str(exc))
        s.load_log = broker.log_text()[mark:]
        broker.stop()
        broker.start()
        s.after_restart = client.run(broker.bootstrap, [{"op": "read", "name": "read", "partitions": parts}],
                                     root / "client")
        (root / "answers.json").write_text(json.dumps([s.answers, s.after_restart]))
        yield s
    finally:
        broker.stop_all()


def test_the_cli_placed_its_partition(placed: Placed) -> None:
    assert placed.cli is not None and placed.cli.returncode == 0, placed.cli.stderr
    out = json.loads(placed.cli.stdout)
    assert list(out["partitions"]) == [f"{TOPIC}-3"] and out["partitions"][f"{TOPIC}-3"]["epochs_lowered"] == 10
    assert "now create 'loaded'" in placed.cli.stderr


def test_the_consumer_reads_what_kvlog_read(placed: Placed) -> None:
    got = placed.answers["read"]
    for p in range(5):
        part = got[f"{TOPIC}-{p}"]
        want = placed.want.get(p, [])
        assert part["log_start_offset"] == 0 and part["end_offset"] == len(want), p
        assert F.as_tuples(part["records"]) == want, p
        if want:  # kvlog's own batches carry no epoch; the ones stamped 7 now carry the new topic's 0
            assert {r["leader_epoch"] for r in part["records"]} == {0, None}, p


def test_list_offsets_answer_as_kvlog_does(placed: Placed) -> None:
    got = placed.answers["offsets"]
    for p, answers in placed.stamps.items():
        for t, want in answers.items():
            a = got[f"{TOPIC}-{p}"]["for_timestamp"][str(t)]
            assert (a["offset"], a["timestamp"]) == want, (p, t)


def test_the_broker_holds_the_producer_kvlog_wrote(placed: Placed) -> None:
    producers = placed.answers["producers"][f"{TOPIC}-0"]
    assert [(e["producer_id"], e["producer_epoch"], e["last_sequence"]) for e in producers] == [(PID, 0, 2)]


def test_a_record_produced_afterwards_lands_at_the_end(placed: Placed) -> None:
    n = len(placed.want[0])
    assert [r["offset"] for r in placed.answers["after"][f"{TOPIC}-0"]["records"]][-1] == n
    last = placed.answers["after"][f"{TOPIC}-0"]["records"][-1]
    assert client.unb64(last["value"]) == b"through the broker" and last["leader_epoch"] == 0


def test_the_broker_loaded_without_recovering_or_renaming(placed: Placed) -> None:
    names = [f"{TOPIC}-{p}" for p in range(5)]
    assert suspicious_lines(placed.load_log, names) == []
    assert not [n for n in os.listdir(placed.broker.data) if n.endswith("-stray") or n.endswith("-delete")]


def test_after_a_restart_it_serves_the_same(placed: Placed) -> None:
    for p in range(5):
        before = placed.answers["read"][f"{TOPIC}-{p}"]["records"]
        after = placed.after_restart["read"][f"{TOPIC}-{p}"]["records"]
        assert F.as_tuples(after)[:len(before)] == F.as_tuples(before), p
    assert len(placed.after_restart["read"][f"{TOPIC}-0"]["records"]) == len(placed.want[0]) + 1


def test_refused_once_the_topic_exists(placed: Placed) -> None:
    assert "exists" in placed.refused_again
    if placed.kraft:
        without, given = placed.refused_known
        assert "give --metadata-dir" in without
        assert "topic 'known' exists already (KRaft metadata" in given
