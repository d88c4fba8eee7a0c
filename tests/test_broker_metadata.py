"""Topics, topic ids, partitions, configs, brokers and features a live KRaft broker reports through the admin
client equal what kvlog replays from its ``__cluster_metadata`` (``kvlog.cluster_metadata``), and the topic
ids every partition directory carries."""

from __future__ import annotations

import pytest

import kvlog
from tests.kafka_oracle import fixtures as F

pytestmark = pytest.mark.broker


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.KRAFT_VERSION_PARAMS)
def test_cluster_metadata_equals_admin(version, state):
    truth = F.truth(version)["metadata"]
    cm = kvlog.cluster_metadata(F.scenario_dir(version) / state / "meta")
    assert not cm.problems, cm.problems
    topics = {r["topic"]: r for r in cm.topics().to_pylist()}
    assert set(topics) == set(truth["topics"])
    for name, t in truth["topics"].items():
        assert topics[name]["topic_id"] == t["topic_id"], name
        assert topics[name]["partitions"] == len(t["partitions"]), name
    configs: dict[str, dict[str, str]] = {}
    for r in cm.configs().to_pylist():
        if r["resource_type"] == "TOPIC":
            configs.setdefault(r["resource_name"], {})[r["name"]] = r["value"]
    for name, t in truth["topics"].items():
        assert configs.get(name, {}) == t["configs"], name
    assert cm.features == {k: v for k, v in truth["features"].items() if v > 0 or k == "metadata.version"}
    assert set(cm.brokers) == {b["id"] for b in truth["brokers"]}
    if state == "running":  # the live broker's state: after a stop its partitions have no leader (-1)
        parts = {(r["topic"], r["partition"]): r for r in cm.partitions().to_pylist()}
        for name, t in truth["topics"].items():
            for p in t["partitions"]:
                got = parts[(name, p["partition"])]
                assert (got["leader"], got["replicas"], got["isr"]) == (p["leader"], p["replicas"], p["isr"])
        for b in truth["brokers"]:
            assert f"PLAINTEXT://{b['host']}:{b['port']}" in cm.brokers[b["id"]]["endpoints"]
            assert cm.brokers[b["id"]]["rack"] == b["rack"]
