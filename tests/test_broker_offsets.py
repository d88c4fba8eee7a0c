"""ListOffsets from a live broker (earliest, latest, max-timestamp, offsetsForTimes at sampled timestamps,
some landing on transaction markers) equals kvlog's ``offset_for_timestamp`` on the broker's files."""

from __future__ import annotations

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


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_list_offsets_equal_broker(version, state):
    data = F.data_dir(version, state)
    truth = F.truth(version)["offsets"]
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
            if version_tuple(version) >= (3, 0):
                check(f"{where} max-timestamp", kvlog_answer(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)),
                      want["max_timestamp"])
            else:  # ListOffsets v7 (KIP-734) came with 3.0: older brokers refuse the query
                assert "UnsupportedVersion" in want["max_timestamp"].get("error", ""), want
            for ts, answer in want["for_timestamp"].items():
                check(f"{where} @ {ts}", kvlog_answer(log.offset_for_timestamp(int(ts))), answer)
                checked += 1
    assert not wrong, f"Kafka {version} {state}: " + "\n".join(wrong)
    assert checked > 100


@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_max_timestamp_lands_on_markers(version):
    """The scenario's transactional partitions end with a COMMIT marker whose timestamp (the broker's clock)
    is the largest: Kafka answers the marker's offset, and so must kvlog (it answered None)."""
    if version_tuple(version) < (3, 0):
        pytest.skip("no MAX_TIMESTAMP before Kafka 3.0 (KIP-734)")
    truth = F.truth(version)
    for p in (0, 1):
        want = kafka_answer(truth["offsets"][f"txn-{p}"]["max_timestamp"])
        records = F.consumer_records(version, "read_uncommitted", "txn", p)["records"]
        assert want[0] > records[-1]["offset"], "the max-timestamp answer is not a marker"
        with Log.open(F.data_dir(version, "clean") / f"txn-{p}", read_only=True) as log:
            assert kvlog_answer(log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)) == want
