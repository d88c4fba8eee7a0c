"""ListOffsets from a live broker (earliest, latest, max-timestamp, offsetsForTimes at sampled timestamps,
some landing on transaction markers) equals kvlog's ``offset_for_timestamp`` on the broker's files."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kvlog
from kvlog.log import Log
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import version_tuple

pytestmark = pytest.mark.broker


def kafka_answer(answer: dict) -> tuple[int, int]:
    assert "error" not in answer, answer
    return answer["offset"], answer["timestamp"]


def kvlog_answer(found) -> tuple[int, int]:
    return (-1, -1) if found is None else (found.offset, found.timestamp)


def batch_last_offset(log: Log, offset: int) -> int:
    for b in log.read(offset, 1 << 20).batches():
        if b.base_offset <= offset <= b.last_offset:
            return b.last_offset
    raise AssertionError(f"no batch holds offset {offset}")


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_list_offsets_equal_broker(version, state):
    """Where the brokers' versions answer differently, kvlog answers as the newest does, and the test checks the
    older answer is what that version's rule gives (docs/compatibility.md#listoffsets):
    - MAX_TIMESTAMP: before 3.0 refused (ListOffsets v7, KIP-734); 3.0-3.7 answer the last offset of the batch
      holding the largest timestamp, 3.8+ (KAFKA-16310) the offset of the record carrying it;
    - a topic whose message format is v0 (no timestamps; 2.8's message.format.version=0.9.0) refuses
      timestamp queries (UnsupportedForMessageFormat), where kvlog answers "no such record" (None)."""
    data = F.data_dir(version, state)
    truth = F.truth(version)["offsets"]
    v = version_tuple(version)
    checked = 0
    wrong: list[str] = []

    def check(what: str, got: tuple[int, int], answer: dict) -> None:
        if got != kafka_answer(answer):
            wrong.append(f"{what}: kvlog {got}, Kafka {kafka_answer(answer)}")

    for topic, p in F.partitions(version):
        want = truth[f"{topic}-{p}"]
        where = f"{topic}-{p}"
        with Log.open(data / f"{topic}-{p}", read_only=True) as log:
            check(f"{where} earliest", kvlog_answer(log.offset_for_timestamp(kvlog.EARLIEST)), want["earliest"])
            check(f"{where} latest", kvlog_answer(log.offset_for_timestamp(kvlog.LATEST)), want["latest"])
            check(f"{where} last stable offset", (log.last_stable_offset, -1), want["latest_committed"])
            top = kvlog_answer(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP))
            if v < (3, 0):
                assert "UnsupportedVersion" in want["max_timestamp"].get("error", ""), want
            elif v < (3, 8) and top[0] >= 0:
                check(f"{where} max-timestamp (pre-3.8: the batch's last offset)",
                      (batch_last_offset(log, top[0]), top[1]), want["max_timestamp"])
            else:
                check(f"{where} max-timestamp", top, want["max_timestamp"])
            for ts, answer in want["for_timestamp"].items():
                found = kvlog_answer(log.offset_for_timestamp(int(ts)))
                if topic == "legacy-v0":
                    assert "UnsupportedForMessageFormat" in answer.get("error", ""), answer
                    assert found == (-1, -1), (where, ts)
                else:
                    check(f"{where} @ {ts}", found, answer)
                checked += 1
    assert not wrong, f"Kafka {version} {state}: " + "\n".join(wrong)
    assert checked > 100


@pytest.mark.parametrize("version", [p for p in F.VERSION_PARAMS if version_tuple(p.values[0]) >= (3, 0)])
def test_max_timestamp_lands_on_markers(version):
    """The scenario's transactional partitions end with a COMMIT marker whose timestamp (the broker's clock)
    is the largest: Kafka answers the marker's offset, and so must kvlog (it answered None). (Kafka 3.0+:
    before, ListOffsets had no MAX_TIMESTAMP.)"""
    truth = F.truth(version)
    for p in (0, 1):
        want = kafka_answer(truth["offsets"][f"txn-{p}"]["max_timestamp"])
        records = F.consumer_records(version, "read_uncommitted", "txn", p)["records"]
        assert want[0] > records[-1]["offset"], "the max-timestamp answer is not a marker"
        with Log.open(F.data_dir(version, "clean") / f"txn-{p}", read_only=True) as log:
            assert kvlog_answer(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)) == want


@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_offsets_cli_equals_broker(version):
    """``kvlog offsets DATA --timestamp earliest|latest|max`` prints, per partition, what ListOffsets answered
    (max-timestamp by the newest rule, as in test_list_offsets_equal_broker; Kafka 3.0+)."""
    data = F.data_dir(version, "clean")
    truth = F.truth(version)["offsets"]
    specs = ["earliest", "latest"] + (["max"] if version_tuple(version) >= (3, 8) else [])
    for spec in specs:
        r = subprocess.run([sys.executable, "-m", "kvlog", "offsets", str(data), "--timestamp", spec],
                           capture_output=True, text=True, check=True)
        got = {}
        for line in r.stdout.splitlines():
            topic, p, off, ts = line.split()
            got[f"{topic}-{p}"] = (int(off), int(ts))
        key = {"earliest": "earliest", "latest": "latest", "max": "max_timestamp"}[spec]
        want = {tp: kafka_answer(o[key]) for tp, o in truth.items() if not tp.startswith("tiered-")}
        assert {tp: v for tp, v in got.items() if tp in want} == want, spec
