"""The scenarios hold what docs/compatibility.md's matrix says they hold: the broker really cleaned, deleted,
rolled, tiered, aborted and stored every kind of group, so every other broker test reads those cases."""

from __future__ import annotations

import pytest

from kvlog.log import Log
from kvlog.records import Compression
from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import version_tuple
from tests.kafka_oracle.scenario import CODECS

pytestmark = pytest.mark.broker


def records(version, topic, p=0, isolation="read_uncommitted"):
    return F.consumer_records(version, isolation, topic, p)


@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_scenario_holds_every_case(version):
    v = version_tuple(version)
    clean = F.data_dir(version, "clean")
    # every codec, batches of many sizes, on disk as produced
    for codec in CODECS:
        with Log.open(clean / f"codec-{codec}-0", read_only=True) as log:
            batches = list(log.read(0, 1 << 24).batches())
        assert Compression.parse(codec) in {b.compression for b in batches}  # (a producer may send a tiny batch plain)
        assert len({b.record_count for b in batches}) >= 4
    # headers with null values, null keys and values, from Kafka's own producer
    java = records(version, "java-headers")["records"]
    assert any(h[1] is None for r in java for h in r["headers"]) and any(r["value"] is None for r in java)
    assert any(r["key"] is None for r in java)
    assert {r["timestamp_type"] for r in records(version, "log-append-time")["records"]} == {"LogAppendTime"}
    # transactions: aborted records hidden from read_committed, control batches on disk
    for p in (0, 1):
        assert len(records(version, "txn", p, "read_committed")["records"]) < len(records(version, "txn", p)["records"])
    assert any((clean / "txn-0").glob("*.txnindex"))
    # the cleaner: overwritten keys gone, tombstones (of user-1..3) removed after their delete horizon
    compacted = records(version, "compacted")["records"]
    keys = [r["key"] for r in compacted if r["key"] != "cm9sbA=="]  # not the "roll" records of the active segment
    assert len(keys) == len(set(keys)) and len(compacted) < 255
    assert not {"dXNlci0x", "dXNlci0y", "dXNlci0z"} & set(keys)  # base64 of user-1, user-2, user-3
    # retention and DeleteRecords moved the log start
    assert records(version, "retention-time")["log_start_offset"] == 90
    assert records(version, "delete-records")["log_start_offset"] == 77
    # rolled by size and by time
    assert len(list((clean / "rolled-size-0").glob("*.log"))) >= 3
    assert len(list((clean / "rolled-time-0").glob("*.log"))) >= 5
    # every group protocol the version has
    types = {(g["type"] or "classic").lower() for g in F.truth(version)["groups"].values()}
    assert types == ({"classic"} | ({"consumer"} if v >= (4, 0) else set()) | ({"share"} if v >= (4, 1) else set())
                     | ({"streams"} if v >= (4, 2) else set()))
    if v < (3, 0):  # on-disk v0 and v1 (message.format.version, removed in 3.0)
        for topic, magic in (("legacy-v0", 0), ("legacy-v1", 1)):
            with Log.open(clean / f"{topic}-0", read_only=True) as log:
                assert {b.magic for b in log.read(0, 1 << 24).batches()} == {magic}
    if v >= (4, 0):  # KRaft: metadata snapshots beside the metadata log
        assert list((F.scenario_dir(version) / "clean" / "meta" / "__cluster_metadata-0").glob("*.checkpoint"))
    if v >= (3, 6):  # KIP-405: older segments only in remote storage
        remote = list((F.scenario_dir(version) / "clean" / "remote").rglob("*.log"))
        assert len(remote) >= 3
        assert records(version, "tiered")["log_start_offset"] == 0
        assert min(int(p.name[:20]) for p in (clean / "tiered-0").glob("*.log")) > 0
