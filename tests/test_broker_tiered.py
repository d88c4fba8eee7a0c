"""KIP-405 tiered storage written by a real broker (its remote segments, copied by Kafka's own
LocalTieredStorage, or for Kafka 4.4.0, whose test jar is not served, by the tests' DirectoryRemoteStorage in
the same layout; its ``__remote_log_metadata``): kvlog's tiered view equals what a consumer read across the
remote and the local segments, and answers ListOffsets as the broker did."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import kvlog
from kvlog.log import Log
from kvlog.tiered import LocalTieredStorage
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import VERSIONS, version_tuple
from tests.test_broker_reads import _same, kvlog_tuples

pytestmark = pytest.mark.broker

TIERED_VERSIONS = [pytest.param(v, id=f"kafka-{v}") for v in VERSIONS if version_tuple(v) >= (3, 6)]


def open_tiered(version: str, state: str) -> Log:
    root = F.scenario_dir(version) / state
    return Log.open(root / "data" / "tiered-0", read_only=True,
                    remote_storage=LocalTieredStorage(root / "remote" / "kafka-tiered-storage"))


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", TIERED_VERSIONS)
def test_tiered_view_equals_consumer(version, state):
    want = F.consumer_records(version, "read_uncommitted", "tiered", 0)
    local = list((F.scenario_dir(version) / state / "data" / "tiered-0").glob("*.log"))
    assert all(int(p.name[:20]) >= want["records"][-1]["offset"] for p in local), \
        "the scenario's tiered partition kept its older segments locally: nothing is read from remote storage"
    with open_tiered(version, state) as log:
        assert log.log_start_offset == want["log_start_offset"]
        assert log.high_watermark == want["end_offset"]
        _same(kvlog_tuples(log.records()), F.as_tuples(want["records"]), f"Kafka {version} {state} tiered-0")


@pytest.mark.parametrize("version", TIERED_VERSIONS)
def test_tiered_offsets_equal_broker(version):
    """offsetsForTimes over remote segments answers as the broker did. MAX_TIMESTAMP is the one deliberate
    difference: the brokers answered -1 (they search only the local log, which the test's local retention
    emptied) where kvlog answers over the whole log (docs/compatibility.md)."""
    want = F.truth(version)["offsets"]["tiered-0"]
    with open_tiered(version, "clean") as log:
        for ts, answer in want["for_timestamp"].items():
            found = log.offset_for_timestamp(int(ts))
            got = (-1, -1) if found is None else (found.offset, found.timestamp)
            assert got == (answer["offset"], answer["timestamp"]), ts
        assert want["max_timestamp"]["offset"] == -1
        records = F.consumer_records(version, "read_uncommitted", "tiered", 0)["records"]
        top = max(r["timestamp"] for r in records)
        first = next(r["offset"] for r in records if r["timestamp"] == top)
        assert log.offset_for_timestamp(kvlog.MAX_TIMESTAMP) == (first, top)


@pytest.mark.parametrize("version", TIERED_VERSIONS)
def test_verify_remote_segments(version):
    root = F.scenario_dir(version) / "clean"
    r = subprocess.run([sys.executable, "-m", "kvlog", "verify", "--json", str(root / "data" / "tiered-0"),
                        "--remote-storage", str(root / "remote" / "kafka-tiered-storage")],
                       capture_output=True, text=True, check=False)
    report = json.loads(r.stdout)
    assert report["ok"], r.stdout
    assert len(report["partitions"]) == 2  # the local partition and its remote history
